// Helpers shared by the library files (stdlib.cc, strings_lib.cc, ...).
// Not for use outside src/cel.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "cel/runtime/function_registry.h"
#include "cel/runtime/value.h"

namespace dra::cel::internal {

inline Param P(ValueKind kind) { return Param::Of(kind); }
inline Param AnyP() { return Param::Any(); }

inline constexpr ValueKind kNullK = ValueKind::kNull;
inline constexpr ValueKind kBoolK = ValueKind::kBool;
inline constexpr ValueKind kIntK = ValueKind::kInt;
inline constexpr ValueKind kUintK = ValueKind::kUint;
inline constexpr ValueKind kDoubleK = ValueKind::kDouble;
inline constexpr ValueKind kStringK = ValueKind::kString;
inline constexpr ValueKind kBytesK = ValueKind::kBytes;
inline constexpr ValueKind kListK = ValueKind::kList;
inline constexpr ValueKind kMapK = ValueKind::kMap;
inline constexpr ValueKind kTypeK = ValueKind::kType;
inline constexpr ValueKind kOptionalK = ValueKind::kOptional;

// Registers one overload.
inline Status Add(FunctionRegistry& r, std::string id, std::string function, bool receiver, std::vector<Param> params,
                  FunctionImpl impl, CostFunction cost = nullptr) {
  Overload o;
  o.id = std::move(id);
  o.function = std::move(function);
  o.receiver_style = receiver;
  o.params = std::move(params);
  o.impl = impl;
  o.cost = cost;
  return r.Register(std::move(o));
}

inline Value Err(std::string message) { return Value::Error(std::move(message)); }

inline uint64_t CeilFactor(uint64_t n, double factor) {
  const double c = static_cast<double>(n) * factor;
  auto r = static_cast<uint64_t>(c);
  if (static_cast<double>(r) < c) ++r;
  return r;
}

// Durations (time_lib.cc), for the Kubernetes lists library's sum().
bool IsDuration(const Value& v);
// REQUIRES: IsDuration(v).
int64_t DurationNanos(const Value& v);
Value NewDurationValue(int64_t nanos);

// Decodes the code points of valid UTF-8 `s`.
std::vector<char32_t> ToCodePoints(std::string_view s);
// Encodes code points as UTF-8.
std::string FromCodePoints(const char32_t* begin, const char32_t* end);

}  // namespace dra::cel::internal
