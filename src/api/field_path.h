// Field paths and field errors, shaped like k8s.io/apimachinery's field.Path and
// field.Error, so messages read as the API server's do:
//   spec.devices[0].attributes[model]: Invalid value: "x": must be ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dra::api {

// An immutable path like `spec.devices[3].capacity[memory]`. Cheap to copy.
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : text_(root) {}

  FieldPath Child(std::string_view name) const {
    FieldPath p = *this;
    if (!p.text_.empty()) p.text_ += '.';
    p.text_ += name;
    return p;
  }
  FieldPath Index(size_t i) const {
    FieldPath p = *this;
    p.text_ += '[';
    p.text_ += std::to_string(i);
    p.text_ += ']';
    return p;
  }
  FieldPath Key(std::string_view key) const {
    FieldPath p = *this;
    p.text_ += '[';
    p.text_ += key;
    p.text_ += ']';
    return p;
  }
  const std::string& String() const { return text_; }

 private:
  std::string text_;
};

enum class FieldErrorType {
  kRequired,      // "Required value"
  kInvalid,       // "Invalid value: <value>"
  kDuplicate,     // "Duplicate value: <value>"
  kNotSupported,  // "Unsupported value: <value>: supported values: ..."
  kForbidden,     // "Forbidden"
  kTooLong,       // "Too long: may not be more than N bytes"
  kTooMany,       // "Too many: N: must have at most M items"
  kNotFound,      // "Not found: <value>"
  kInternal,      // "Internal error"
};

enum class Severity { kError, kWarning };

// A bad value as field.Invalid's %q prints it: Go's strconv.Quote for the
// ASCII range (\", \\, \n, \t, \r, \xNN for other control bytes); other
// bytes pass through, as Go keeps printable UTF-8.
std::string GoQuote(std::string_view s);

struct FieldError {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string field;      // FieldPath::String()
  std::string bad_value;  // already rendered, e.g. "\"Gpu_0\"" or "33"; may be empty
  std::string detail;
  Severity severity = Severity::kError;

  // "field: Invalid value: \"x\": detail", as the API server prints it.
  std::string ToString() const;
};

using FieldErrors = std::vector<FieldError>;

}  // namespace dra::api
