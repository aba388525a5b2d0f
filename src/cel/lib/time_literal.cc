// Go's time.ParseDuration and time.Parse(time.RFC3339, ...) as predicates,
// step by step as Go's time package takes them (format.go, parse and
// ParseDuration), and CEL's timestamp range (cel-go common/types/timestamp.go).
#include "cel/lib/time_literal.h"

#include <cstddef>
#include <optional>

#include "base/civil_date.h"

namespace dra::cel::lib {
namespace {

constexpr uint64_t kTwo63 = uint64_t{1} << 63;

bool IsDigit(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// Go's leadingInt: the digits at the front of `*s` (consumed); false on
// overflow past 2^63.
bool LeadingInt(std::string_view* s, uint64_t* x) {
  *x = 0;
  size_t i = 0;
  for (; i < s->size(); ++i) {
    const char c = (*s)[i];
    if (c < '0' || c > '9') break;
    if (*x > kTwo63 / 10) return false;
    *x = *x * 10 + static_cast<uint64_t>(c - '0');
    if (*x > kTwo63) return false;
  }
  s->remove_prefix(i);
  return true;
}

// Go's leadingFraction: the digits at the front of `*s` (consumed) as a
// fraction value / scale; digits past what fits are consumed and dropped.
void LeadingFraction(std::string_view* s, uint64_t* value, double* scale) {
  *value = 0;
  *scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s->size(); ++i) {
    const char c = (*s)[i];
    if (c < '0' || c > '9') break;
    if (overflow) continue;
    if (*value > (kTwo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = *value * 10 + static_cast<uint64_t>(c - '0');
    if (y > kTwo63) {
      overflow = true;
      continue;
    }
    *value = y;
    *scale *= 10;
  }
  s->remove_prefix(i);
}

// Nanoseconds per unit; 0 for an unknown unit.
uint64_t UnitNanos(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1000;  // U+00B5, U+03BC
  if (u == "ms") return 1000 * 1000;
  if (u == "s") return 1000 * 1000 * 1000;
  if (u == "m") return uint64_t{60} * 1000 * 1000 * 1000;
  if (u == "h") return uint64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

// Go's getnum: one or two digits (two when `fixed`).
bool GetNum(std::string_view* s, bool fixed, int* n) {
  if (!IsDigit(*s, 0)) return false;
  if (!IsDigit(*s, 1)) {
    if (fixed) return false;
    *n = (*s)[0] - '0';
    s->remove_prefix(1);
    return true;
  }
  *n = ((*s)[0] - '0') * 10 + ((*s)[1] - '0');
  s->remove_prefix(2);
  return true;
}

bool Skip(std::string_view* s, char c) {
  if (s->empty() || (*s)[0] != c) return false;
  s->remove_prefix(1);
  return true;
}

bool IsLeap(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int DaysIn(int month, int64_t year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// cel-go's minUnixTime and maxUnixTime.
constexpr int64_t kMinUnixSeconds = -62135596800;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxUnixSeconds = 253402300799;  // 9999-12-31T23:59:59Z

}  // namespace

std::optional<int64_t> ParseGoDuration(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return int64_t{0};
  if (s.empty()) return std::nullopt;
  uint64_t d = 0;
  while (!s.empty()) {
    // The next character must be [0-9.].
    if (!(s[0] == '.' || IsDigit(s, 0))) return std::nullopt;
    const size_t before = s.size();
    uint64_t v = 0;
    if (!LeadingInt(&s, &v)) return std::nullopt;
    const bool pre = before != s.size();
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const size_t at = s.size();
      LeadingFraction(&s, &f, &scale);
      post = at != s.size();
    }
    if (!pre && !post) return std::nullopt;  // no digits, e.g. ".s"
    size_t i = 0;
    while (i < s.size() && s[i] != '.' && !IsDigit(s, i)) ++i;
    if (i == 0) return std::nullopt;  // missing unit
    const uint64_t unit = UnitNanos(s.substr(0, i));
    s.remove_prefix(i);
    if (unit == 0) return std::nullopt;  // unknown unit
    if (v > kTwo63 / unit) return std::nullopt;
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kTwo63) return std::nullopt;
    }
    d += v;
    if (d > kTwo63) return std::nullopt;
  }
  if (neg) return static_cast<int64_t>(0 - d);  // -2^63 included
  if (d > kTwo63 - 1) return std::nullopt;
  return static_cast<int64_t>(d);
}

bool IsGoDuration(std::string_view s) { return ParseGoDuration(s).has_value(); }

bool IsCelTimestampSeconds(int64_t seconds) { return seconds >= kMinUnixSeconds && seconds <= kMaxUnixSeconds; }

TimestampParse ParseCelTimestamp(std::string_view s, CelTime* out) {
  // "2006": four characters, the first a digit, all digits.
  if (s.size() < 4 || !IsDigit(s, 0)) return TimestampParse::kInvalid;
  int64_t year = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (!IsDigit(s, i)) return TimestampParse::kInvalid;
    year = year * 10 + (s[i] - '0');
  }
  s.remove_prefix(4);
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
  constexpr TimestampParse kBad = TimestampParse::kInvalid;
  if (!Skip(&s, '-') || !GetNum(&s, true, &month) || month < 1 || month > 12) return kBad;
  if (!Skip(&s, '-') || !GetNum(&s, true, &day)) return kBad;
  if (!Skip(&s, 'T') || !GetNum(&s, false, &hour) || hour > 23) return kBad;
  if (!Skip(&s, ':') || !GetNum(&s, true, &minute) || minute > 59) return kBad;
  if (!Skip(&s, ':') || !GetNum(&s, true, &second) || second > 59) return kBad;
  // A fractional second the layout does not name: "." or "," and digits;
  // Go keeps the first nine digits (parseNanoseconds).
  int32_t nanos = 0;
  if (s.size() >= 2 && (s[0] == '.' || s[0] == ',') && IsDigit(s, 1)) {
    size_t n = 1;
    int digits = 0;
    for (; IsDigit(s, n); ++n) {
      if (digits < 9) {
        nanos = nanos * 10 + (s[n] - '0');
        ++digits;
      }
    }
    for (; digits < 9; ++digits) nanos *= 10;
    s.remove_prefix(n);
  }
  // "Z07:00".
  int64_t offset = 0;
  if (!s.empty() && s[0] == 'Z') {
    s.remove_prefix(1);
  } else {
    if (s.size() < 6 || s[3] != ':') return kBad;
    const char sign = s[0];
    std::string_view hh = s.substr(1, 2), mm = s.substr(4, 2);
    s.remove_prefix(6);
    int oh = 0, om = 0;
    if (!GetNum(&hh, true, &oh) || !GetNum(&mm, true, &om)) return kBad;
    if (oh > 24 || om > 60) return kBad;
    if (sign != '+' && sign != '-') return kBad;
    offset = (sign == '+' ? 1 : -1) * (int64_t{oh} * 3600 + int64_t{om} * 60);
  }
  if (!s.empty()) return kBad;  // extra text
  if (day < 1 || day > DaysIn(month, year)) return kBad;
  const int64_t unix = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  if (!IsCelTimestampSeconds(unix)) return TimestampParse::kOutOfRange;
  // Go records a zero offset as the local zone, which is UTC where Kubernetes
  // runs (and where the reference runs); any other offset as an unnamed
  // fixed zone.
  *out = CelTime{.seconds = unix, .nanos = nanos, .offset = static_cast<int32_t>(offset), .utc = offset == 0};
  return TimestampParse::kOk;
}

bool IsCelTimestamp(std::string_view s) {
  CelTime t;
  return ParseCelTimestamp(s, &t) == TimestampParse::kOk;
}

}  // namespace dra::cel::lib
