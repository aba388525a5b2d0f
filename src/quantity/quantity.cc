// Kubernetes resource.Quantity on a (128-bit coefficient, 64-bit exponent)
// decimal.
//
// Parsing mirrors ParseQuantity and its scanner parseQuantityString
// (quantity.go) and the suffix tables of suffix.go; printing mirrors
// CanonicalizeBytes (quantity.go) with AsCanonicalBytes and
// AsCanonicalBase1024Bytes (amount.go); rounding mirrors negativeScaleInt64
// (math.go). Go switches between an int64 fast path and inf.Dec; both give the
// same values, so one exact representation stands in for both here.
//
// Arithmetic works on sign and unsigned 128-bit magnitude. The stored
// coefficient is kept within the signed range (|coef| <= 2^127 - 1), which
// holds every 38-digit number, so an unsigned intermediate has a spare bit for
// sums and for aligning exponents.
#include "quantity/quantity.h"

#include <array>
#include <charconv>
#include <cstddef>
#include <limits>
#include <system_error>
#include <utility>

namespace dra::quantity {
namespace {

__extension__ typedef unsigned __int128 U128;
__extension__ typedef __int128 I128;

constexpr U128 kU128Max = ~U128{0};
constexpr U128 kCoefMax = kU128Max >> 1;  // INT128_MAX, the largest |coef_|
constexpr int kMaxPow10 = 38;             // 10^38 < 2^128 < 10^39

constexpr std::array<U128, kMaxPow10 + 1> MakePow10() {
  std::array<U128, kMaxPow10 + 1> pow10{};
  U128 p = 1;
  for (int i = 0; i <= kMaxPow10; ++i) {
    pow10[static_cast<size_t>(i)] = p;
    p *= 10;
  }
  return pow10;
}
constexpr std::array<U128, kMaxPow10 + 1> kPow10 = MakePow10();

// Go's maxAllowed: parsing caps a BinarySI magnitude here.
constexpr U128 kBinaryCap = static_cast<U128>(std::numeric_limits<int64_t>::max());
constexpr uint64_t kNanosPerUnit = 1000000000;
constexpr int64_t kNanoExp = -9;
// The exponent of an "e" suffix must fit Go's int32 Scale and negate safely.
constexpr int64_t kMaxSuffixExponent = std::numeric_limits<int32_t>::max();

U128 Pow10(int64_t k) { return kPow10[static_cast<size_t>(k)]; }

// v * 10^k for k >= 0, or false if that exceeds 128 bits.
bool MulPow10(U128 v, int64_t k, U128* out) {
  if (v == 0) {
    *out = 0;
    return true;
  }
  if (k > kMaxPow10) return false;
  U128 p = Pow10(k);
  if (v > kU128Max / p) return false;
  *out = v * p;
  return true;
}

// Decimal digits of v > 0.
int64_t DigitCount(U128 v) {
  int64_t n = 1;
  while (n <= kMaxPow10 && v >= Pow10(n)) ++n;
  return n;
}

// Moves factors of ten from *mag into *exp (removeInt64Factors(value, 10)).
void StripZeros(U128* mag, int64_t* exp) {
  if (*mag == 0) {
    *exp = 0;
    return;
  }
  while (*mag > std::numeric_limits<uint64_t>::max() && *mag % 10 == 0) {
    *mag /= 10;
    ++*exp;
  }
  if (*mag <= std::numeric_limits<uint64_t>::max()) {
    auto small = static_cast<uint64_t>(*mag);
    while (small % 10 == 0) {
      small /= 10;
      ++*exp;
    }
    *mag = small;
  }
}

std::string MagToString(U128 v) {
  if (v <= std::numeric_limits<uint64_t>::max()) return std::to_string(static_cast<uint64_t>(v));
  char buf[40];
  size_t pos = sizeof(buf);
  while (v != 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  return std::string(buf + pos, sizeof(buf) - pos);
}

int CountTrailingZeroBits(U128 v) {  // v > 0
  auto low = static_cast<uint64_t>(v);
  if (low != 0) return __builtin_ctzll(low);
  return 64 + __builtin_ctzll(static_cast<uint64_t>(v >> 64));
}

// Divides the decimal integer in `digits` by `divisor` in place, dropping the
// remainder and leading zeros.
void DivideDecimalString(std::string* digits, unsigned divisor) {
  std::string quotient;
  unsigned remainder = 0;
  for (char c : *digits) {
    remainder = remainder * 10 + static_cast<unsigned>(c - '0');
    char q = static_cast<char>('0' + remainder / divisor);
    remainder %= divisor;
    if (!quotient.empty() || q != '0') quotient.push_back(q);
  }
  *digits = quotient.empty() ? "0" : quotient;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The letters parseQuantityString lets into a suffix.
bool IsSuffixLetter(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P': return true;
    default: return false;
  }
}

// `text` in double quotes, with quotes, backslashes and unprintable bytes
// escaped so that an error message stays on one readable line.
std::string Quote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

Status InvalidQuantity(std::string_view text, std::string_view why) {
  return InvalidArgumentError("invalid quantity " + Quote(text) + ": " + std::string(why));
}

constexpr std::string_view kGrammar =
    "want <sign><digits>[.<digits>]<suffix>, suffix one of n u m k M G T P E, "
    "Ki Mi Gi Ti Pi Ei, or e<integer>";

// The pieces of "<sign><whole>.<frac><suffix>", as parseQuantityString splits
// them. It accepts pieces with no digits at all; so does Kubernetes.
struct Pieces {
  bool negative = false;
  std::string_view whole;
  std::string_view frac;
  std::string_view suffix;
};

bool Split(std::string_view text, Pieces* out) {
  const size_t n = text.size();
  size_t i = 0;
  if (n > 0 && (text[0] == '+' || text[0] == '-')) {
    out->negative = text[0] == '-';
    i = 1;
  }
  size_t begin = i;
  while (i < n && IsDigit(text[i])) ++i;
  out->whole = text.substr(begin, i - begin);
  if (i < n && text[i] == '.') {
    begin = ++i;
    while (i < n && IsDigit(text[i])) ++i;
    out->frac = text.substr(begin, i - begin);
  }
  // A suffix is letters, then an optional sign and digits (for "e-3"); which
  // combinations mean something is decided by Interpret.
  begin = i;
  while (i < n && IsSuffixLetter(text[i])) ++i;
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  while (i < n && IsDigit(text[i])) ++i;
  out->suffix = text.substr(begin);
  return i == n;
}

struct Suffix {
  int base;          // 10 or 2
  int64_t exponent;  // value is multiplied by base^exponent
  Format format;
};

enum class SuffixError { kNone, kUnknown, kExponentRange };

// suffix.go's tables: decimal SI, binary SI, then "e"/"E" and a Go ParseInt.
SuffixError Interpret(std::string_view s, Suffix* out) {
  struct Entry {
    std::string_view name;
    Suffix suffix;
  };
  static constexpr Entry kTable[] = {
      {"", {10, 0, Format::kDecimalSI}},   {"n", {10, -9, Format::kDecimalSI}}, {"u", {10, -6, Format::kDecimalSI}},
      {"m", {10, -3, Format::kDecimalSI}}, {"k", {10, 3, Format::kDecimalSI}},  {"M", {10, 6, Format::kDecimalSI}},
      {"G", {10, 9, Format::kDecimalSI}},  {"T", {10, 12, Format::kDecimalSI}}, {"P", {10, 15, Format::kDecimalSI}},
      {"E", {10, 18, Format::kDecimalSI}}, {"Ki", {2, 10, Format::kBinarySI}},  {"Mi", {2, 20, Format::kBinarySI}},
      {"Gi", {2, 30, Format::kBinarySI}},  {"Ti", {2, 40, Format::kBinarySI}},  {"Pi", {2, 50, Format::kBinarySI}},
      {"Ei", {2, 60, Format::kBinarySI}},
  };
  for (const Entry& entry : kTable) {
    if (entry.name == s) {
      *out = entry.suffix;
      return SuffixError::kNone;
    }
  }
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return SuffixError::kUnknown;
  std::string_view number = s.substr(1);
  bool negative = false;
  if (number[0] == '+' || number[0] == '-') {
    negative = number[0] == '-';
    number.remove_prefix(1);
  }
  if (number.empty()) return SuffixError::kUnknown;
  int64_t magnitude = 0;
  bool too_big = false;
  for (char c : number) {
    if (!IsDigit(c)) return SuffixError::kUnknown;
    if (!too_big) {
      magnitude = magnitude * 10 + (c - '0');
      too_big = magnitude > kMaxSuffixExponent;
    }
  }
  // Kubernetes once truncated such exponents to int32 ("1e4294967297" was
  // 1e1); it now rejects them, as interpret's int32 bounds check does.
  if (too_big) return SuffixError::kExponentRange;
  *out = {10, negative ? -magnitude : magnitude, Format::kDecimalExponent};
  return SuffixError::kNone;
}

// The magnitude of <whole>.<frac> * 10^exponent rounded away from zero to
// nano precision, as (*mag, *exp). False if it needs more than 128 bits.
bool DecimalMagnitude(std::string_view whole, std::string_view frac, int64_t exponent, U128* mag, int64_t* exp) {
  const auto whole_len = static_cast<int64_t>(whole.size());
  const auto total = whole_len + static_cast<int64_t>(frac.size());
  auto digit_at = [&](int64_t i) {
    return i < whole_len ? whole[static_cast<size_t>(i)] : frac[static_cast<size_t>(i - whole_len)];
  };
  // Digit i stands for digit * 10^(top - i).
  const int64_t top = exponent + whole_len - 1;
  U128 acc = 0;
  int64_t pending_zeros = 0;  // zeros after the last non-zero digit taken
  int64_t acc_exp = 0;        // the power of ten of acc's last digit
  bool below_nano = false;    // a non-zero digit finer than 10^-9 was dropped
  for (int64_t i = 0; i < total; ++i) {
    const int digit = digit_at(i) - '0';
    if (top - i < kNanoExp) {
      if (digit != 0) {
        below_nano = true;
        break;
      }
      continue;
    }
    if (digit == 0) {
      if (acc != 0) ++pending_zeros;
      continue;
    }
    if (acc != 0) {
      if (!MulPow10(acc, pending_zeros + 1, &acc)) return false;
      if (acc > kU128Max - static_cast<U128>(digit)) return false;
    }
    acc += static_cast<U128>(digit);
    pending_zeros = 0;
    acc_exp = top - i;
  }
  if (below_nano) {
    // Round up at the nano digit: Go's amount.Round(Nano, inf.RoundUp) on the
    // magnitude.
    if (acc == 0) {
      acc_exp = kNanoExp;
    } else if (!MulPow10(acc, acc_exp - kNanoExp, &acc)) {
      return false;
    }
    if (acc == kU128Max) return false;
    ++acc;
    acc_exp = kNanoExp;
  }
  *mag = acc;
  *exp = acc_exp;
  return true;
}

// The magnitude of <whole>.<frac> * 2^power in nanos, rounded up; *capped is
// set instead when the value exceeds kBinaryCap.
U128 BinaryNanos(std::string_view whole, std::string_view frac, int64_t power, bool* capped) {
  const U128 multiplier = U128{1} << power;  // power <= 60
  // The whole part, saturated: anything from 2^64 up is far above the cap.
  const U128 saturate = U128{1} << 64;
  U128 integer = 0;
  for (char c : whole) {
    integer = integer * 10 + static_cast<U128>(c - '0');
    if (integer > saturate) integer = saturate;
  }
  *capped = integer * multiplier > kBinaryCap;
  if (*capped) return 0;
  // frac * multiplier * 10^9 / 10^len(frac): multiply the decimal fraction by
  // an integer from its last digit up, carrying; the final carry is the whole
  // part, and any non-zero digit left behind means a remainder to round up.
  const U128 scaled_multiplier = multiplier * kNanosPerUnit;  // < 2^90
  U128 carry = 0;
  bool remainder = false;
  for (auto it = frac.rbegin(); it != frac.rend(); ++it) {
    const U128 t = static_cast<U128>(*it - '0') * scaled_multiplier + carry;
    if (t % 10 != 0) remainder = true;
    carry = t / 10;
  }
  const U128 nanos = integer * multiplier * kNanosPerUnit + carry + (remainder ? 1 : 0);
  *capped = nanos > kBinaryCap * kNanosPerUnit;
  return *capped ? 0 : nanos;
}

// Compares magnitudes a * 10^ea and b * 10^eb, both normalised and non-zero.
int CompareMagnitudes(U128 a, int64_t ea, U128 b, int64_t eb) {
  if (ea == eb) return a < b ? -1 : (a > b ? 1 : 0);
  // The power of ten of the leading digit decides unless it is the same.
  const int64_t lead_a = ea + DigitCount(a) - 1;
  const int64_t lead_b = eb + DigitCount(b) - 1;
  if (lead_a != lead_b) return lead_a < lead_b ? -1 : 1;
  // Same leading position: divide the one with more digits down (the shift is
  // below 39 digits) rather than scale the other up past 128 bits.
  if (ea > eb) {
    const U128 p = Pow10(ea - eb);
    const U128 q = b / p;
    if (a != q) return a < q ? -1 : 1;
    return b % p != 0 ? -1 : 0;
  }
  const U128 p = Pow10(eb - ea);
  const U128 q = a / p;
  if (q != b) return q < b ? -1 : 1;
  return a % p != 0 ? 1 : 0;
}

struct SignedMagnitude {
  bool negative;
  U128 mag;
  int64_t exp;
};

// The exact sum of two non-zero values, or false if an aligned operand or the
// sum exceeds 128 bits. Inputs are normalised with magnitudes at most
// kCoefMax, so when that happens the exact result is beyond kCoefMax too.
bool Sum(SignedMagnitude x, SignedMagnitude y, SignedMagnitude* out) {
  if (x.exp < y.exp) std::swap(x, y);
  // Align x down to y's exponent.
  if (!MulPow10(x.mag, x.exp - y.exp, &x.mag)) return false;
  out->exp = y.exp;
  if (x.negative == y.negative) {
    if (x.mag > kU128Max - y.mag) return false;
    out->negative = x.negative;
    out->mag = x.mag + y.mag;
  } else if (x.mag >= y.mag) {
    out->negative = x.negative;
    out->mag = x.mag - y.mag;
  } else {
    out->negative = y.negative;
    out->mag = y.mag - x.mag;
  }
  return true;
}

int64_t SaturatingInt64(bool negative, U128 mag) {
  constexpr auto kMax = static_cast<U128>(std::numeric_limits<int64_t>::max());
  if (!negative) {
    return mag > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(mag);
  }
  if (mag > kMax) return std::numeric_limits<int64_t>::min();
  return -static_cast<int64_t>(mag);
}

// The DecimalSI suffix for a power of ten that is a multiple of 3, or nullopt.
std::optional<std::string_view> DecimalSuffix(int64_t exp) {
  switch (exp) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
    default: return std::nullopt;
  }
}

// AsCanonicalBytes plus its suffix: the mantissa gains trailing zeros until
// the exponent is a multiple of 3 (rounding the exponent down), then the
// exponent becomes a suffix. DecimalSI has none below n or above E and falls
// back to "e" notation there, as newer Kubernetes does (older releases
// dropped the exponent, printing 1e21 as "1").
void AppendDecimal(U128 mag, int64_t exp, Format format, std::string* out) {
  *out += MagToString(mag);
  int64_t rem = exp % 3;
  if (rem < 0) rem += 3;
  out->append(static_cast<size_t>(rem), '0');
  exp -= rem;
  if (format == Format::kDecimalSI) {
    if (std::optional<std::string_view> suffix = DecimalSuffix(exp)) {
      *out += *suffix;
      return;
    }
  }
  if (exp != 0) {
    out->push_back('e');
    *out += std::to_string(exp);
  }
}

// AsCanonicalBase1024Bytes plus its suffix for an integer magnitude
// mag * 10^exp >= 1024 (exp >= 0): the largest power of 1024 dividing it picks
// the suffix. Returns false past Ei, where no suffix exists.
bool AppendBinary(U128 mag, int64_t exp, std::string* out) {
  static constexpr std::string_view kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  // 10^exp contributes exp factors of two.
  const int64_t twos = CountTrailingZeroBits(mag) + exp;
  const int64_t thousands = twos / 10;
  if (thousands > 6) return false;
  U128 value;
  if (MulPow10(mag, exp, &value)) {
    *out += MagToString(value >> (10 * thousands));
  } else {
    // Wider than 128 bits (exp < 70 here): divide the decimal digits.
    std::string digits = MagToString(mag);
    digits.append(static_cast<size_t>(exp), '0');
    for (int64_t i = 0; i < thousands; ++i) DivideDecimalString(&digits, 1024);
    *out += digits;
  }
  *out += kSuffixes[thousands];
  return true;
}

}  // namespace

std::optional<Quantity> Quantity::Make(bool negative, UInt128 magnitude, int64_t exp, Format format) {
  StripZeros(&magnitude, &exp);
  if (magnitude > kCoefMax) return std::nullopt;
  const auto coef = static_cast<I128>(magnitude);
  return Quantity(negative ? -coef : coef, exp, format);
}

Quantity::UInt128 Quantity::Magnitude() const {
  return coef_ < 0 ? -static_cast<U128>(coef_) : static_cast<U128>(coef_);
}

StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return InvalidQuantity(text, "empty string");
  Pieces pieces;
  if (!Split(text, &pieces)) return InvalidQuantity(text, kGrammar);
  Suffix suffix;
  switch (Interpret(pieces.suffix, &suffix)) {
    case SuffixError::kNone: break;
    case SuffixError::kUnknown:
      return InvalidQuantity(text, "unknown suffix " + Quote(pieces.suffix) + "; " + std::string(kGrammar));
    case SuffixError::kExponentRange: return InvalidQuantity(text, "exponent out of range [-2147483647, 2147483647]");
  }

  // ParseQuantity takes a number part without digits as zero only on its
  // int64 fast path; elsewhere inf.Dec's SetString demands a digit. The fast
  // path is skipped for Pi and Ei and for a decimal exponent below nano.
  if (pieces.whole.empty() && pieces.frac.empty() &&
      (suffix.base == 10 ? suffix.exponent < kNanoExp : suffix.exponent > 40)) {
    return InvalidQuantity(text, "no digits");
  }

  Format format = suffix.format;
  U128 mag = 0;
  int64_t exp = 0;
  bool fits = true;
  if (suffix.base == 10) {
    fits = DecimalMagnitude(pieces.whole, pieces.frac, suffix.exponent, &mag, &exp);
  } else {
    bool capped = false;
    mag = BinaryNanos(pieces.whole, pieces.frac, suffix.exponent, &capped);
    exp = kNanoExp;
    if (capped) {
      mag = kBinaryCap;
      exp = 0;
    } else if (mag != 0 && mag < kNanosPerUnit) {
      // ParseQuantity: "This avoids rounding and hopefully confusion, too."
      format = Format::kDecimalSI;
    }
  }
  std::optional<Quantity> q;
  if (fits) q = Make(pieces.negative, mag, exp, format);
  if (!q) {
    return OutOfRangeError("quantity " + Quote(text) + " needs more than " + std::to_string(kMaxDigits) +
                           " significant digits");
  }
  return *q;
}

Quantity Quantity::FromScaled(int64_t value, int32_t scale, Format format) {
  const U128 mag = value < 0 ? -static_cast<U128>(static_cast<I128>(value)) : static_cast<U128>(value);
  // An int64 always fits the coefficient.
  return *Make(value < 0, mag, scale, format);
}

std::string Quantity::String() const {
  if (coef_ == 0) return "0";
  const U128 mag = Magnitude();
  std::string out = coef_ < 0 ? "-" : "";
  Format format = format_;
  switch (format) {
    case Format::kDecimalSI:
    case Format::kDecimalExponent: break;
    case Format::kBinarySI: {
      // Below 1024 or fractional, BinarySI would round: show DecimalSI.
      U128 value;
      const bool at_least_1024 = exp_ >= 0 && (!MulPow10(mag, exp_, &value) || value >= 1024);
      if (!at_least_1024) {
        format = Format::kDecimalSI;
      } else if (AppendBinary(mag, exp_, &out)) {
        return out;
      } else {
        format = Format::kDecimalExponent;
      }
      break;
    }
    default:
      format = Format::kDecimalExponent;  // CanonicalizeBytes' default case
      break;
  }
  AppendDecimal(mag, exp_, format, &out);
  return out;
}

int Quantity::Sign() const { return coef_ < 0 ? -1 : (coef_ > 0 ? 1 : 0); }

int Quantity::Compare(const Quantity& other) const {
  const int sign = Sign();
  const int other_sign = other.Sign();
  if (sign != other_sign) return sign < other_sign ? -1 : 1;
  if (sign == 0) return 0;
  const int c = CompareMagnitudes(Magnitude(), exp_, other.Magnitude(), other.exp_);
  return sign > 0 ? c : -c;
}

StatusOr<Quantity> Quantity::AddSigned(const Quantity& other, bool negate, char op) const {
  const Quantity rhs = negate ? other.Neg() : other;
  // Go's Add and Sub: a zero receiver takes the other operand's format.
  if (coef_ == 0) return rhs;
  if (rhs.coef_ == 0) return *this;
  SignedMagnitude sum;
  std::optional<Quantity> result;
  if (Sum({coef_ < 0, Magnitude(), exp_}, {rhs.coef_ < 0, rhs.Magnitude(), rhs.exp_}, &sum)) {
    result = Make(sum.negative, sum.mag, sum.exp, format_);
  }
  if (!result) {
    return OutOfRangeError("quantity " + String() + " " + op + " " + other.String() +
                           ": exact result needs more than " + std::to_string(kMaxDigits) + " significant digits");
  }
  return *result;
}

StatusOr<Quantity> Quantity::Add(const Quantity& other) const { return AddSigned(other, /*negate=*/false, '+'); }

StatusOr<Quantity> Quantity::Sub(const Quantity& other) const { return AddSigned(other, /*negate=*/true, '-'); }

Quantity Quantity::Neg() const { return Quantity(-coef_, exp_, format_); }

int64_t Quantity::Value() const { return ScaledValue(0); }

int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

int64_t Quantity::ScaledValue(int32_t scale) const {
  if (coef_ == 0) return 0;
  const bool negative = coef_ < 0;
  const U128 mag = Magnitude();
  const int64_t shift = exp_ - scale;
  U128 result;
  if (shift >= 0) {
    if (!MulPow10(mag, shift, &result)) {
      return negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    }
  } else if (-shift > kMaxPow10) {
    result = 1;  // 0 < |value| < 1 rounds away from zero
  } else {
    // negativeScaleInt64: any dropped digit rounds the magnitude up.
    const U128 p = Pow10(-shift);
    result = mag / p + (mag % p != 0 ? 1 : 0);
  }
  return SaturatingInt64(negative, result);
}

std::optional<int64_t> Quantity::AsInt64() const {
  if (coef_ == 0) return 0;
  // Normalised, so a negative exponent means a fraction.
  U128 mag;
  if (exp_ < 0 || !MulPow10(Magnitude(), exp_, &mag)) return std::nullopt;
  const bool negative = coef_ < 0;
  const U128 limit = static_cast<U128>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  if (mag > limit) return std::nullopt;
  return SaturatingInt64(negative, mag);
}

double Quantity::AsApproximateFloat64() const {
  if (coef_ == 0) return 0.0;
  // from_chars rounds correctly; the text is at most 39 digits plus exponent.
  const std::string text = MagToString(Magnitude()) + "e" + std::to_string(exp_);
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    value = exp_ > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  }
  return coef_ < 0 ? -value : value;
}

}  // namespace dra::quantity
