// Small string helpers shared by several folders: splitting as Go's strings
// package does, and integers in a given base as Go's strconv and fmt print them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dra {

// Go's strings.SplitN(s, string(sep), n) for n > 0: splits `s` at the first
// n - 1 occurrences of `sep`; the last piece holds the rest, separators
// included. Empty pieces are kept ("a,,b" -> "a", "", "b"; "a," -> "a", "";
// "" -> ""), so the result always has at least one element. The pieces view
// `s`, which must outlive them.
// REQUIRES: n > 0.
std::vector<std::string_view> SplitN(std::string_view s, char sep, size_t n);

// Go's strings.Split(s, string(sep)): SplitN with no limit.
std::vector<std::string_view> Split(std::string_view s, char sep);

// `v` written in `base` with the digits 0-9 then a-f (A-F if `upper`), no
// prefix and no leading zeroes ("0" for zero), as Go's strconv.FormatUint.
// REQUIRES: 2 <= base <= 16.
std::string UintToBase(uint64_t v, int base, bool upper);

// The same for a signed `v`: a leading '-' and the magnitude, INT64_MIN
// included.
// REQUIRES: 2 <= base <= 16.
std::string IntToBase(int64_t v, int base, bool upper);

}  // namespace dra
