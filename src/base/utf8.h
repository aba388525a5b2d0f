// UTF-8 helpers shared by the loader and CEL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dra {

// Returns the byte offset of the first invalid UTF-8 sequence in `text`
// (overlong forms, surrogates and code points above U+10FFFF are invalid),
// or std::nullopt if `text` is valid UTF-8.
std::optional<size_t> FindInvalidUtf8(std::string_view text);

// Appends the UTF-8 encoding of `code_point` to `out`.
// REQUIRES: code_point <= 0x10FFFF and not a surrogate.
void AppendUtf8(uint32_t code_point, std::string& out);

// Number of code points in valid UTF-8 `text`.
size_t CountCodePoints(std::string_view text);

}  // namespace dra
