#include "api/field_path.h"

namespace dra::api {

std::string GoQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
  return out;
}

std::string FieldError::ToString() const {
  std::string out = field;
  if (!out.empty()) out += ": ";
  auto with_value = [&](std::string_view prefix) {
    out += prefix;
    if (!bad_value.empty()) {
      out += ": ";
      out += bad_value;
    }
  };
  switch (type) {
    case FieldErrorType::kRequired: out += "Required value"; break;
    case FieldErrorType::kInvalid: with_value("Invalid value"); break;
    case FieldErrorType::kDuplicate: with_value("Duplicate value"); break;
    case FieldErrorType::kNotSupported: with_value("Unsupported value"); break;
    case FieldErrorType::kForbidden: out += "Forbidden"; break;
    case FieldErrorType::kTooLong: out += "Too long"; break;
    case FieldErrorType::kTooMany: with_value("Too many"); break;
    case FieldErrorType::kNotFound: with_value("Not found"); break;
    case FieldErrorType::kInternal: out += "Internal error"; break;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

}  // namespace dra::api
