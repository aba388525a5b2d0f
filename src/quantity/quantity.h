// resource.Quantity, exactly as Kubernetes (k8s.io/apimachinery/pkg/api/resource)
// parses, compares, adds and prints it.
//
// A Quantity is an exact decimal number plus the format it was written in
// (DecimalSI "1k", BinarySI "1Ki", DecimalExponent "1e3"). Kubernetes rounds
// every parsed value *up* to nano precision (10^-9); so does Parse. Comparison
// and equality look at the value only: "200M" == "0.2G", "50M" < "50Mi".
// String() prints the canonical form Kubernetes prints (e.g. "1500m" -> "1500m",
// "1.5" -> "1500m", "1024Ki" -> "1Mi", "0.5Gi" -> "512Mi").
//
// Thread-safe: a Quantity is an immutable value type.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dra::quantity {

enum class Format : uint8_t {
  kDecimalExponent,  // "12e6"
  kBinarySI,         // "12Mi"
  kDecimalSI,        // "12M"
};

class Quantity {
 public:
  // Zero, DecimalSI.
  Quantity() = default;

  // Parses every form Kubernetes accepts ("<signedNumber><suffix>", see
  // ParseQuantity in apimachinery). Returns kInvalidArgument quoting `text`
  // for everything it rejects (empty, "1.2.3", "1 Gi", "Gi", "1iB", "0x10", ...).
  static StatusOr<Quantity> Parse(std::string_view text);

  // value * 10^scale, in `format`. Exact. E.g. FromScaled(15, -1, kDecimalSI) = 1.5.
  static Quantity FromScaled(int64_t value, int32_t scale, Format format);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI) {
    return FromScaled(value, 0, format);
  }
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI) {
    return FromScaled(milli, -3, format);
  }

  // Canonical string, as Quantity.String() in Go.
  std::string String() const;
  Format format() const { return format_; }

  // -1, 0 or 1 by value.
  int Compare(const Quantity& other) const;
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    int c = a.Compare(b);
    return c < 0 ? std::strong_ordering::less
                 : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
  }

  // Exact sum / difference; the result keeps this quantity's format (as Go's
  // Add/Sub do). kOutOfRange if the result cannot be represented.
  StatusOr<Quantity> Add(const Quantity& other) const;
  StatusOr<Quantity> Sub(const Quantity& other) const;
  Quantity Neg() const;

  int Sign() const;  // -1, 0, 1
  bool IsZero() const { return Sign() == 0; }

  // Value rounded up to an integer (Go Value()), saturating at int64 limits.
  int64_t Value() const;
  // Value*1000 rounded up (Go MilliValue()), saturating.
  int64_t MilliValue() const;
  // The exact integer value if this quantity is an integer that fits int64
  // (CEL isInteger/asInteger), else nullopt.
  std::optional<int64_t> AsInt64() const;
  // Nearest double (Go AsApproximateFloat64).
  double AsApproximateFloat64() const;

  // Private representation (see quantity.cc); may change.
 private:
  __extension__ typedef __int128 Int128;
  Int128 nanos_ = 0;  // value = nanos_ * 10^-9
  Format format_ = Format::kDecimalSI;
};

}  // namespace dra::quantity
