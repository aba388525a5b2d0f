// resource.Quantity, exactly as Kubernetes (k8s.io/apimachinery/pkg/api/resource)
// parses, compares, adds and prints it.
//
// A Quantity is an exact decimal number plus the format it was written in
// (DecimalSI "1k", BinarySI "1Ki", DecimalExponent "1e3"). Kubernetes rounds
// every parsed value away from zero to nano precision (10^-9): "0.9n" is 1n,
// "-3.001n" is -4n. So does Parse. Comparison and equality look at the value
// only: "200M" == "0.2G", "50M" < "50Mi". String() prints the canonical form
// Kubernetes computes (e.g. "1.5" -> "1500m", "1024Ki" -> "1Mi",
// "0.5Gi" -> "512Mi", "1.5Ki" -> "1536", "1.1Ki" -> "1126400m").
//
// Range. A value is coefficient * 10^exponent with a signed 128-bit
// coefficient and a 64-bit exponent, so every value with at most 38
// significant decimal digits is held exactly, however large or small its
// exponent: "1e100", "9999999999999999999999999999999999999G" and
// "1e2147483647" are all exact. Kubernetes (inf.Dec) has no digit limit; where
// a value would need more than 38 significant digits (e.g. a 40-digit integer,
// or 1e100 + 1), Parse, Add and Sub return kOutOfRange instead of rounding.
// Nothing is ever silently rounded except as Kubernetes rounds (nano precision
// on parse, the BinarySI cap below, and the integer accessors).
//
// Deliberate differences from Go, all in corners:
//   1. Go's String() echoes some non-canonical spellings verbatim right after
//      parsing ("+1", "01", "5.", "1E3", "1e+3", "1e0", "1.500k"; upstream
//      kubernetes#141166). String() here always prints the canonical form
//      ("1", "1", "5", "1e3", "1e3", "1", "1500"), which is what Go prints for
//      the same value once it has been through any arithmetic.
//   2. Go prints exponents beyond int32 with a wrapped exponent; we print the
//      true one (only reachable as e.g. "1000e2147483647").
//   3. Value()/MilliValue() saturate where Go's result is undefined.
//   4. AsInt64() looks at the value; Go's AsInt64 also depends on the internal
//      representation (Go reports false for "1000m" and for
//      "1000000000000000000", true for "1k").
//   5. AsApproximateFloat64() is correctly rounded; Go's may differ in the
//      last bit (and is NaN for a zero written with a huge exponent).
// Where apimachinery v0.37 and its master branch differ, this follows master:
// DecimalSI 10^21 prints "1e21" (v0.37: "1"), BinarySI 2^70 prints its digits
// (v0.37: "1"), an exponent beyond int32 is rejected (v0.37 truncates it, so
// "1e4294967297" is 10, or hangs), and
// Value() of a negative rounds away from zero on every path.
//
// Thread-safe: a Quantity is an immutable value type, trivially copyable.
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
  // Most significant decimal digits a value may have (see "Range" above).
  static constexpr int kMaxDigits = 38;

  // Zero, DecimalSI.
  Quantity() = default;

  // Parses every form Kubernetes accepts: <sign><digits>[.<digits>]<suffix>
  // with suffix one of n u m "" k M G T P E (DecimalSI), Ki Mi Gi Ti Pi Ei
  // (BinarySI), or e/E followed by a signed integer in [-2^31+1, 2^31-1]
  // (DecimalExponent). Like Kubernetes it also accepts "5.", ".5", leading
  // zeros, and a number part with no digits at all as zero (".", "+", "Gi",
  // "m", "e3"), except, again like Kubernetes, with Pi, Ei or an exponent
  // below -9 ("Pi", ".e-10" are rejected). The value is rounded away from
  // zero to nano precision. A
  // BinarySI value is capped at 2^63-1 in magnitude ("8Ei" parses as
  // 9223372036854775807), and a non-zero BinarySI value below 1 in magnitude
  // becomes DecimalSI (".5Ki" is 512 BinarySI, ".0001Ki" is 0.1024 DecimalSI).
  //
  // Returns kInvalidArgument, quoting `text`, for everything Kubernetes
  // rejects: empty, whitespace anywhere ("1 Gi", " 1"), "1.2.3", "1K", "1mi",
  // "1iB", "0x10", "1e", "Ei", an exponent outside int32. Returns kOutOfRange,
  // quoting `text`, for a well-formed quantity whose rounded value needs more
  // than kMaxDigits significant digits.
  static StatusOr<Quantity> Parse(std::string_view text);

  // value * 10^scale, in `format`. Exact (no nano rounding, so FromScaled(1,
  // -12, kDecimalSI) is 10^-12 and prints "1e-12", as Go's NewScaledQuantity).
  static Quantity FromScaled(int64_t value, int32_t scale, Format format);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI) { return FromScaled(value, 0, format); }
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI) { return FromScaled(milli, -3, format); }

  // Canonical string, as Quantity.String() in Go (see difference 1 above).
  // Zero is "0". DecimalSI and DecimalExponent print the smallest integer
  // mantissa whose exponent is a multiple of 3 ("1500m", "12e6"); a DecimalSI
  // exponent outside n..E falls back to "e" notation ("1e21"). BinarySI prints
  // as DecimalSI when the value is below 1024 in magnitude or not an integer,
  // otherwise with the largest of Ki..Ei that divides it ("1536Mi", "1025");
  // past Ei (2^70 and up, reachable only by arithmetic) it falls back to
  // DecimalExponent.
  std::string String() const;
  Format format() const { return format_; }

  // -1, 0 or 1 by value. Exact for every representable value.
  int Compare(const Quantity& other) const;
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    int c = a.Compare(b);
    return c < 0 ? std::strong_ordering::less : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
  }

  // Exact sum / difference. The result keeps this quantity's format, except
  // that a zero receiver takes `other`'s format (as Go's Add/Sub do, so
  // Quantity() + "1Gi" prints "1Gi"). kOutOfRange if the exact result needs
  // more than kMaxDigits significant digits; the operands are never rounded.
  StatusOr<Quantity> Add(const Quantity& other) const;
  StatusOr<Quantity> Sub(const Quantity& other) const;
  // The negated value, same format. Always exact.
  Quantity Neg() const;

  int Sign() const;  // -1, 0, 1
  bool IsZero() const { return coef_ == 0; }

  // Value rounded away from zero to an integer (Go Value(): "1500m" -> 2,
  // "-1500m" -> -2), saturating at the int64 limits.
  int64_t Value() const;
  // Value*1000 rounded away from zero (Go MilliValue()), saturating.
  int64_t MilliValue() const;
  // Value / 10^scale rounded away from zero (Go ScaledValue()), saturating.
  // Value() is ScaledValue(0), MilliValue() is ScaledValue(-3).
  int64_t ScaledValue(int32_t scale) const;
  // The exact integer value if this quantity is an integer that fits int64
  // (CEL isInteger/asInteger), else nullopt. See difference 4 above.
  std::optional<int64_t> AsInt64() const;
  // Nearest double, correctly rounded; +-infinity beyond the double range
  // (Go AsApproximateFloat64).
  double AsApproximateFloat64() const;

  // Private representation; may change.
  //
  // Invariants:
  //   1. value == coef_ * 10^exp_, exactly.
  //   2. Normalised: coef_ == 0 implies exp_ == 0; otherwise coef_ is not a
  //      multiple of 10. Equal values therefore have equal (coef_, exp_).
  //   3. coef_ != INT128_MIN, so -coef_ never overflows.
  //   4. exp_ never comes near the int64 limits: Parse and FromScaled start
  //      within about +-2^31, and a sum's exponent lies between the smaller
  //      operand exponent and one past the larger operand's leading digit.
 private:
  __extension__ typedef __int128 Int128;
  __extension__ typedef unsigned __int128 UInt128;

  Quantity(Int128 coef, int64_t exp, Format format) : coef_(coef), exp_(exp), format_(format) {}

  // The normalised quantity (-1)^negative * magnitude * 10^exp, or nullopt if
  // its coefficient does not fit (invariant 3).
  static std::optional<Quantity> Make(bool negative, UInt128 magnitude, int64_t exp, Format format);
  UInt128 Magnitude() const;
  // this + (negate ? -other : other), exact, or kOutOfRange naming `op`.
  StatusOr<Quantity> AddSigned(const Quantity& other, bool negate, char op) const;

  Int128 coef_ = 0;
  int64_t exp_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace dra::quantity
