#include "base/json_escape.h"

namespace dra {

void AppendJsonString(std::string_view s, std::string& out, JsonEscapeOptions options) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b':
        if (options.short_backspace_formfeed) {
          out += "\\b";
          continue;
        }
        break;
      case '\f':
        if (options.short_backspace_formfeed) {
          out += "\\f";
          continue;
        }
        break;
      default: break;
    }
    if (c < 0x20 || (c == 0x7F && options.escape_del)) {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}

std::string JsonString(std::string_view s, JsonEscapeOptions options) {
  std::string out;
  AppendJsonString(s, out, options);
  return out;
}

}  // namespace dra
