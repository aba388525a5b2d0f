// Go's strconv and fmt behaviour that the Kubernetes CEL libraries leak into
// their results and error messages: strconv.Quote (fmt's %q), the shortest
// 'g' form of a float64 (CEL's string(double)), fixed/scientific digits, and
// the error texts of strconv.ParseUint / strconv.Atoi.
//
// Only src/cel/lib uses these; they are not a general Go emulation layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dra::cel::lib::internal {

// Decodes one code point of `text` at `pos` as Go's utf8.DecodeRuneInString
// does: an invalid or truncated sequence decodes as U+FFFD with width 1.
// REQUIRES: pos < text.size().
struct DecodedRune {
  uint32_t rune;
  size_t width;
  bool valid;  // false for the U+FFFD-of-width-1 error case
};
DecodedRune DecodeRune(std::string_view text, size_t pos);

// Appends the UTF-8 encoding of `rune` (any value up to U+10FFFF; surrogates
// and larger values are written as U+FFFD, as Go's string(rune) does).
void AppendRune(uint32_t rune, std::string& out);

// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and U+0020,
// per Unicode 15.0.0 like Go 1.21-1.26 (see go_isprint_table.h).
bool GoIsPrint(uint32_t rune);

// strconv.Quote(s): a double-quoted Go string literal. Invalid UTF-8 bytes are
// written as \xNN, non-printable runes as \a \b \f \n \r \t \v, \xNN, \uNNNN or
// \UNNNNNNNN (lowercase hex), '"' and '\\' are backslash-escaped.
std::string GoQuote(std::string_view s);

// strconv.FormatFloat(v, 'g', -1, 64): the shortest decimal that round-trips,
// in %e form when its decimal exponent is < -4 or >= 6 ("1e+06", "123456.7",
// "1.2345678e+07", "1e-05"), and "NaN", "+Inf", "-Inf".
std::string GoFormatFloatShortest(double v);

// fmt.Sprintf("%.*f", prec, v) for finite and non-finite v ("NaN", "+Inf",
// "-Inf"). Exact (correctly rounded) like Go's strconv.
std::string GoFormatFloatFixed(double v, int prec);

// The decimal digits of |v| (no leading zeros unless v == 0, then empty) and
// the position of the decimal point: |v| = 0.d1d2d3... x 10^point.
// `mode` selects how they are produced, mirroring strconv.AppendFloat:
//   kShortest:    shortest round-trip digits ('g', -1)
//   kFixed:       rounded to `prec` digits after the point ('f', prec)
//   kSignificant: rounded to `prec` significant digits ('g', prec)
// Digits are normalized: no leading or trailing zeros; zero has none.
// REQUIRES: v is finite; prec >= 0 (>= 1 for kSignificant).
enum class DigitsMode { kShortest, kFixed, kSignificant };
struct FloatDigits {
  std::string digits;  // '0'..'9'
  int point = 0;
};
FloatDigits GoFloatDigits(double v, DigitsMode mode, int prec);

// strconv.ParseUint(s, 10, 64) for a string of ASCII digits. Returns the value,
// or std::nullopt and sets `error` to Go's message
//   strconv.ParseUint: parsing "<s>": invalid syntax | value out of range
std::optional<uint64_t> GoParseUint64(std::string_view s, std::string& error);

}  // namespace dra::cel::lib::internal
