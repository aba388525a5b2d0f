#include "cel/lib/internal/go_strconv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <system_error>

#include "cel/lib/internal/go_isprint_table.h"

namespace dra::cel::lib::internal {
namespace {

constexpr char kLowerHex[] = "0123456789abcdef";

// Removes leading and trailing zeros from `d`, moving the point with the
// leading ones, so that zero is the empty digit string (x/text's normalize).
void Normalize(FloatDigits& d) {
  size_t first = d.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits.clear();
    d.point = 0;
    return;
  }
  d.point -= static_cast<int>(first);
  size_t last = d.digits.find_last_not_of('0');
  d.digits = d.digits.substr(first, last - first + 1);
}

// Reads "ddd.ddde+XX" / "ddd.ddd" as printed by std::to_chars into digits and
// point, then normalizes.
FloatDigits ReadPrinted(std::string_view text) {
  FloatDigits d;
  bool seen_point = false;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      d.digits.push_back(c);
      if (!seen_point) ++d.point;
    } else if (c == '.') {
      seen_point = true;
    } else {
      break;
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    int exp = 0;
    std::from_chars(text.data() + i + 1 + (text[i + 1] == '+' ? 1 : 0), text.data() + text.size(), exp);
    // to_chars scientific output has exactly one digit before the point.
    d.point = exp + 1;
  }
  Normalize(d);
  return d;
}

std::string ToChars(double v, std::chars_format fmt, std::optional<int> prec) {
  // Large enough for any fixed output of a double with a precision we allow:
  // 309 integer digits + point + prec fraction digits.
  std::string buf(static_cast<size_t>(400 + (prec ? *prec : 0)), '\0');
  std::to_chars_result r = prec ? std::to_chars(buf.data(), buf.data() + buf.size(), v, fmt, *prec)
                                : std::to_chars(buf.data(), buf.data() + buf.size(), v, fmt);
  buf.resize(static_cast<size_t>(r.ptr - buf.data()));
  return buf;
}

void AppendExponent(int exp, std::string& out) {
  out.push_back('e');
  out.push_back(exp < 0 ? '-' : '+');
  if (exp < 0) exp = -exp;
  if (exp < 10) out.push_back('0');
  out += std::to_string(exp);
}

}  // namespace

DecodedRune DecodeRune(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const DecodedRune error{0xFFFD, 1, false};
  uint8_t b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1, true};
  size_t need;
  uint32_t r;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    r = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    r = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    r = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return error;
  }
  if (pos + need >= text.size()) return error;  // truncated sequence
  for (size_t k = 1; k <= need; ++k) {
    uint8_t b = byte(pos + k);
    uint8_t min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
    if (b < min || b > max) return error;
    r = (r << 6) | (b & 0x3Fu);
  }
  return {r, need + 1, true};
}

void AppendRune(uint32_t rune, std::string& out) {
  if (rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) rune = 0xFFFD;
  if (rune < 0x80) {
    out.push_back(static_cast<char>(rune));
  } else if (rune < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (rune >> 6)));
    out.push_back(static_cast<char>(0x80 | (rune & 0x3F)));
  } else if (rune < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (rune >> 12)));
    out.push_back(static_cast<char>(0x80 | ((rune >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (rune & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (rune >> 18)));
    out.push_back(static_cast<char>(0x80 | ((rune >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((rune >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (rune & 0x3F)));
  }
}

bool GoIsPrint(uint32_t r) {
  if (r < 0x80) return r >= 0x20 && r != 0x7F;
  if (r > 0x10FFFF) return false;
  // The last range whose first code point is <= r decides.
  auto it = std::upper_bound(std::begin(kGoNotPrintable), std::end(kGoNotPrintable), r,
                             [](uint32_t x, const RuneRange& range) { return x < range.first; });
  if (it == std::begin(kGoNotPrintable)) return true;
  return r > std::prev(it)->last;
}

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    DecodedRune d = DecodeRune(s, i);
    if (!d.valid) {
      uint8_t b = static_cast<uint8_t>(s[i]);
      out += "\\x";
      out.push_back(kLowerHex[b >> 4]);
      out.push_back(kLowerHex[b & 0xF]);
      i += 1;
      continue;
    }
    uint32_t r = d.rune;
    if (r == '"' || r == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(r));
    } else if (GoIsPrint(r)) {
      out.append(s.substr(i, d.width));
    } else {
      switch (r) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          if (r < ' ' || r == 0x7F) {
            out += "\\x";
            out.push_back(kLowerHex[(r >> 4) & 0xF]);
            out.push_back(kLowerHex[r & 0xF]);
          } else if (r < 0x10000) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kLowerHex[(r >> shift) & 0xF]);
          } else {
            out += "\\U";
            for (int shift = 28; shift >= 0; shift -= 4) out.push_back(kLowerHex[(r >> shift) & 0xF]);
          }
      }
    }
    i += d.width;
  }
  out.push_back('"');
  return out;
}

FloatDigits GoFloatDigits(double v, DigitsMode mode, int prec) {
  double a = std::fabs(v);
  switch (mode) {
    case DigitsMode::kShortest: return ReadPrinted(ToChars(a, std::chars_format::scientific, std::nullopt));
    case DigitsMode::kFixed: return ReadPrinted(ToChars(a, std::chars_format::fixed, prec));
    case DigitsMode::kSignificant: return ReadPrinted(ToChars(a, std::chars_format::scientific, prec - 1));
  }
  return {};
}

std::string GoFormatFloatShortest(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::string out;
  if (std::signbit(v)) out.push_back('-');
  FloatDigits d = GoFloatDigits(v, DigitsMode::kShortest, 0);
  if (d.digits.empty()) {
    out.push_back('0');
    return out;
  }
  const int nd = static_cast<int>(d.digits.size());
  const int exp = d.point - 1;
  // strconv's %g: exponent form when exp < -4 || exp >= eprec, and eprec is 6
  // for the shortest representation.
  if (exp < -4 || exp >= 6) {
    out.push_back(d.digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(d.digits, 1);
    }
    AppendExponent(exp, out);
    return out;
  }
  if (d.point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-d.point), '0');
    out += d.digits;
  } else if (d.point >= nd) {
    out += d.digits;
    out.append(static_cast<size_t>(d.point - nd), '0');
  } else {
    out.append(d.digits, 0, static_cast<size_t>(d.point));
    out.push_back('.');
    out.append(d.digits, static_cast<size_t>(d.point));
  }
  return out;
}

std::string GoFormatFloatFixed(double v, int prec) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return ToChars(v, std::chars_format::fixed, prec);
}

std::optional<uint64_t> GoParseUint64(std::string_view s, std::string& error) {
  auto fail = [&](std::string_view why) -> std::optional<uint64_t> {
    error = "strconv.ParseUint: parsing " + GoQuote(s) + ": " + std::string(why);
    return std::nullopt;
  };
  if (s.empty()) return fail("invalid syntax");
  uint64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return fail("invalid syntax");
    uint64_t digit = static_cast<uint64_t>(c - '0');
    // Like Go, report overflow at the digit that causes it.
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return fail("value out of range");
    }
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace dra::cel::lib::internal
