// JSON string literals, for every place that writes JSON by hand or through
// the manifest emitter (manifest/emit.cc, manifest/internal/raw_json.cc,
// cli/cel.cc). The options keep the byte-exact output each of them had.
#pragma once

#include <string>
#include <string_view>

namespace dra {

struct JsonEscapeOptions {
  // '\b' and '\f' as the two-character escapes \b and \f; if false, as
  // \u0008 and \u000c.
  bool short_backspace_formfeed = true;
  // DEL (0x7F) as \u007f; if false, written as is.
  bool escape_del = false;
};

// Appends `s` as a JSON string literal, quotes included, to `out`: '"' and
// '\\' backslash-escaped; '\n', '\r', '\t' as \n, \r, \t; '\b', '\f' and DEL
// as `options` says; every other byte below 0x20 as \u00XX with lowercase hex
// digits. All other bytes, '/' and non-ASCII (UTF-8) included, are copied
// unchanged; `s` is not checked for valid UTF-8.
void AppendJsonString(std::string_view s, std::string& out, JsonEscapeOptions options = {});

// AppendJsonString into a new string.
std::string JsonString(std::string_view s, JsonEscapeOptions options = {});

}  // namespace dra
