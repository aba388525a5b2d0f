#include "api/field_path.h"

namespace dra::api {

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
