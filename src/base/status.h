// Status and StatusOr<T>: how every fallible function in dractl reports failure.
//
// Shaped like absl::Status. A Status is a canonical code plus a message; OK has
// an empty message. StatusOr<T> holds either a value or a non-OK Status. Both are
// [[nodiscard]]. No exception leaves a function of ours: failures travel as these.
//
// Messages read from the outside in. Use WithContext() while an error rises:
//   claim default/c0: request gpu: class gpu-class: selector 1: no such key: model
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace dra {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// Returns the canonical name of `code`, e.g. "INVALID_ARGUMENT".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // OK.
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(code == StatusCode::kOk ? std::string() : std::move(message)) {}

  static Status OK() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>". OK stays OK.
  Status WithContext(std::string_view context) const;

  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Explicitly ignores a status (for best-effort calls).
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) { return a.code_ == b.code_ && a.message_ == b.message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status OutOfRangeError(std::string message);
Status ResourceExhaustedError(std::string message);
Status UnimplementedError(std::string message);
Status InternalError(std::string message);
Status UnavailableError(std::string message);
Status DataLossError(std::string message);
Status PermissionDeniedError(std::string message);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok().
  StatusOr(Status status) : rep_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(rep_).ok());
    if (std::get<Status>(rep_).ok()) rep_ = Status(StatusCode::kInternal, "OK status in StatusOr");
  }
  StatusOr(const T& value) : rep_(value) {}        // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : rep_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  template <typename U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Status> && !std::is_same_v<std::decay_t<U>, StatusOr<T>>)
      StatusOr(U&& value)
      : rep_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(rep_); }
  Status status() const { return ok() ? Status() : std::get<Status>(rep_); }

  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(rep_); }
  T& value() & { return std::get<T>(rep_); }
  T&& value() && { return std::get<T>(std::move(rep_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<Status, T> rep_;
};

namespace internal {
inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
Status AsStatus(const StatusOr<T>& s) {
  return s.status();
}
}  // namespace internal

}  // namespace dra

#define DRA_STATUS_CONCAT_INNER_(a, b) a##b
#define DRA_STATUS_CONCAT_(a, b) DRA_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define DRA_RETURN_IF_ERROR(expr)                                  \
  do {                                                             \
    ::dra::Status dra_status_ = ::dra::internal::AsStatus((expr)); \
    if (!dra_status_.ok()) return dra_status_;                     \
  } while (0)

// DRA_ASSIGN_OR_RETURN(auto x, Foo()); declares/assigns x or returns the error.
#define DRA_ASSIGN_OR_RETURN(lhs, expr) \
  DRA_ASSIGN_OR_RETURN_IMPL_(DRA_STATUS_CONCAT_(dra_statusor_, __LINE__), lhs, expr)
#define DRA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
