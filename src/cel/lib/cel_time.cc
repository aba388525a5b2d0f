// Go's time.Time and time.Duration behaviour behind CEL timestamps and
// durations: cel-go common/types/overflow.go (checked arithmetic), Go's
// time/format.go (String, RFC3339Nano), time/time.go (Duration.String,
// Hours, ...), time/zoneinfo_read.go and zoneinfo.go (TZif files, lookup and
// the POSIX TZ rule that extends the last transition).
#include "cel/lib/cel_time.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "base/civil_date.h"

namespace dra::cel::lib {
namespace {

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kSecondsPerDay = 86400;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

int DaysIn(int month, int64_t year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// Days before month m (1-12) in a non-leap year.
int DaysBefore(int m) {
  static constexpr int kBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  return kBefore[m - 1];
}

void AppendPadded(std::string& out, int64_t v, int width) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v));
  out += buf;
}

// ".123" for the nanoseconds without trailing zeros; nothing for zero.
void AppendFraction(std::string& out, int32_t nanos) {
  if (nanos == 0) return;
  char buf[16];
  std::snprintf(buf, sizeof buf, ".%09d", nanos);
  std::string_view f(buf);
  while (f.back() == '0') f.remove_suffix(1);
  out += f;
}

void AppendDateTime(std::string& out, const CivilTime& c, char sep) {
  AppendPadded(out, c.year, 4);
  out.push_back('-');
  AppendPadded(out, c.month, 2);
  out.push_back('-');
  AppendPadded(out, c.day, 2);
  out.push_back(sep);
  AppendPadded(out, c.hour, 2);
  out.push_back(':');
  AppendPadded(out, c.minute, 2);
  out.push_back(':');
  AppendPadded(out, c.second, 2);
  AppendFraction(out, c.nanos);
}

Status IntOverflow() { return InvalidArgumentError("integer overflow"); }

}  // namespace

CivilTime ToCivil(const CelTime& t, int32_t offset) {
  const int64_t local = t.seconds + offset;
  const int64_t days = FloorDiv(local, kSecondsPerDay);
  const int64_t rem = local - days * kSecondsPerDay;
  CivilTime c;
  int64_t month = 0, day = 0;
  CivilFromDays(days, &c.year, &month, &day);
  c.month = static_cast<int>(month);
  c.day = static_cast<int>(day);
  c.yday = DaysBefore(c.month) + c.day + (IsLeap(c.year) && c.month > 2 ? 1 : 0);
  c.weekday = static_cast<int>((days % 7 + 11) % 7);  // 1970-01-01 was a Thursday (4)
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem % 3600 / 60);
  c.second = static_cast<int>(rem % 60);
  c.nanos = t.nanos;
  return c;
}

std::string FormatGoTime(const CelTime& t) {
  std::string out;
  AppendDateTime(out, ToCivil(t, t.offset), ' ');
  int zone = t.offset / 60;
  std::string num;
  num.push_back(zone < 0 ? '-' : '+');
  if (zone < 0) zone = -zone;
  AppendPadded(num, zone / 60, 2);
  AppendPadded(num, zone % 60, 2);
  out += " " + num + " " + (t.utc ? std::string("UTC") : num);
  return out;
}

std::string FormatRfc3339Nano(const CelTime& t) {
  std::string out;
  AppendDateTime(out, ToCivil(t, t.offset), 'T');
  if (t.offset == 0) {
    out.push_back('Z');
    return out;
  }
  int zone = t.offset / 60;
  out.push_back(zone < 0 ? '-' : '+');
  if (zone < 0) zone = -zone;
  AppendPadded(out, zone / 60, 2);
  out.push_back(':');
  AppendPadded(out, zone % 60, 2);
  return out;
}

std::string FormatGoDuration(int64_t d) {
  uint64_t u = static_cast<uint64_t>(d);
  const bool neg = d < 0;
  if (neg) u = 0 - u;
  std::string rev;  // built backwards, as Go does
  auto frac = [&rev](uint64_t v, int prec) {
    bool print = false;
    for (int i = 0; i < prec; ++i) {
      const uint64_t digit = v % 10;
      print = print || digit != 0;
      if (print) rev.push_back(static_cast<char>('0' + digit));
      v /= 10;
    }
    if (print) rev.push_back('.');
    return v;
  };
  auto integer = [&rev](uint64_t v) {
    if (v == 0) {
      rev.push_back('0');
      return;
    }
    for (; v > 0; v /= 10) rev.push_back(static_cast<char>('0' + v % 10));
  };
  rev.push_back('s');
  if (u < static_cast<uint64_t>(kNanosPerSecond)) {
    int prec = 0;
    if (u == 0) {
      return "0s";
    } else if (u < 1000) {
      rev.push_back('n');
    } else if (u < 1000000) {
      prec = 3;
      rev += "\xB5\xC2";  // U+00B5, reversed
    } else {
      prec = 6;
      rev.push_back('m');
    }
    integer(frac(u, prec));
  } else {
    u = frac(u, 9);
    integer(u % 60);
    u /= 60;
    if (u > 0) {
      rev.push_back('m');
      integer(u % 60);
      u /= 60;
      if (u > 0) {
        rev.push_back('h');
        integer(u);
      }
    }
  }
  if (neg) rev.push_back('-');
  return std::string(rev.rbegin(), rev.rend());
}

std::string FormatDurationSeconds(int64_t nanos) {
  const int64_t whole = nanos / kNanosPerSecond;
  const double seconds = static_cast<double>(whole) + static_cast<double>(nanos % kNanosPerSecond) / 1e9;
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, seconds, std::chars_format::fixed);
  std::string out(buf, ec == std::errc() ? end : buf);
  if (out == "-0") out = "0";  // Go prints a zero duration as "0s"
  return out + "s";
}

int64_t DurationHours(int64_t d) {
  constexpr int64_t kHour = 3600 * kNanosPerSecond;
  const int64_t whole = d / kHour;
  return static_cast<int64_t>(static_cast<double>(whole) + static_cast<double>(d % kHour) / (60 * 60 * 1e9));
}
int64_t DurationMinutes(int64_t d) {
  constexpr int64_t kMinute = 60 * kNanosPerSecond;
  const int64_t whole = d / kMinute;
  return static_cast<int64_t>(static_cast<double>(whole) + static_cast<double>(d % kMinute) / (60 * 1e9));
}
int64_t DurationSeconds(int64_t d) {
  const int64_t whole = d / kNanosPerSecond;
  return static_cast<int64_t>(static_cast<double>(whole) + static_cast<double>(d % kNanosPerSecond) / 1e9);
}
int64_t DurationMilliseconds(int64_t d) { return d / 1000000; }

StatusOr<int64_t> AddDurations(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return IntOverflow();
  return r;
}

StatusOr<int64_t> SubtractDurations(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return IntOverflow();
  return r;
}

StatusOr<CelTime> AddTimeDuration(const CelTime& t, int64_t d) {
  int64_t sec;
  if (__builtin_add_overflow(t.seconds, d / kNanosPerSecond, &sec)) return IntOverflow();
  int64_t nsec = t.nanos + d % kNanosPerSecond;
  if (nsec < 0 || nsec >= kNanosPerSecond) {
    sec += nsec / kNanosPerSecond;  // no overflow: sec is far inside int64 here
    nsec -= nsec / kNanosPerSecond * kNanosPerSecond;
    if (nsec < 0) {
      sec -= 1;
      nsec += kNanosPerSecond;
    }
  }
  if (!IsCelTimestampSeconds(sec)) return InvalidArgumentError("timestamp overflow");
  CelTime r = t;
  r.seconds = sec;
  r.nanos = static_cast<int32_t>(nsec);
  return r;
}

StatusOr<CelTime> SubtractTimeDuration(const CelTime& t, int64_t d) {
  if (d == INT64_MIN) return IntOverflow();
  return AddTimeDuration(t, -d);
}

StatusOr<int64_t> SubtractTimes(const CelTime& a, const CelTime& b) {
  int64_t sec, tsec, r;
  if (__builtin_sub_overflow(a.seconds, b.seconds, &sec)) return IntOverflow();
  if (__builtin_mul_overflow(sec, kNanosPerSecond, &tsec)) return IntOverflow();
  if (__builtin_add_overflow(tsec, int64_t{a.nanos} - b.nanos, &r)) return IntOverflow();
  return r;
}

int CompareTimes(const CelTime& a, const CelTime& b) {
  if (a.seconds != b.seconds) return a.seconds < b.seconds ? -1 : 1;
  if (a.nanos != b.nanos) return a.nanos < b.nanos ? -1 : 1;
  return 0;
}

CelTime TimeFromUnix(int64_t seconds) { return CelTime{.seconds = seconds, .nanos = 0, .offset = 0, .utc = true}; }

namespace {

// --- Time zones -------------------------------------------------------------------

// Go's strconv.Atoi over the text cel-go hands it (errors as Go prints them).
StatusOr<int64_t> GoAtoi(std::string_view s) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  const std::string quoted = "\"" + std::string(s) + "\"";
  if (body.empty()) return InvalidArgumentError("strconv.Atoi: parsing " + quoted + ": invalid syntax");
  uint64_t v = 0;
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  bool range = false;
  for (char c : body) {
    if (c < '0' || c > '9') return InvalidArgumentError("strconv.Atoi: parsing " + quoted + ": invalid syntax");
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (range || v > (limit - digit) / 10) {
      range = true;
      continue;
    }
    v = v * 10 + digit;
  }
  if (range) return InvalidArgumentError("strconv.Atoi: parsing " + quoted + ": value out of range");
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

struct Zone {
  int32_t offset;
  bool dst;
};

struct TzData {
  std::vector<int64_t> when;
  std::vector<uint8_t> index;
  std::vector<Zone> zones;
  std::string extend;
};

uint64_t BigEndian(std::string_view b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
  return v;
}

// Go's LoadLocationFromTZData: the 64-bit body of a version 2+ file (or the
// 32-bit one of a version 1 file) and the footer's TZ string.
std::optional<TzData> ParseTzif(std::string_view b) {
  if (b.size() < 44 || b.substr(0, 4) != "TZif") return std::nullopt;
  const bool v2 = b[4] >= '2';
  auto counts = [&b](size_t at, uint64_t* c) {
    if (b.size() < at + 44) return false;
    for (size_t i = 0; i < 6; ++i) c[i] = BigEndian(b, at + 20 + 4 * i, 4);
    return true;
  };
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  uint64_t c[6];
  size_t at = 0;
  if (!counts(at, c)) return std::nullopt;
  size_t width = 4;
  if (v2) {
    at += 44 + c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (!counts(at, c) || b.substr(at, 4) != "TZif") return std::nullopt;
    width = 8;
  }
  at += 44;
  const uint64_t need = c[3] * width + c[3] + c[4] * 6 + c[5] + c[2] * (width + 4) + c[1] + c[0];
  if (b.size() < at + need || c[4] == 0) return std::nullopt;
  TzData tz;
  for (uint64_t i = 0; i < c[3]; ++i) {
    const uint64_t raw = BigEndian(b, at + i * width, width);
    tz.when.push_back(width == 8 ? static_cast<int64_t>(raw) : static_cast<int64_t>(static_cast<int32_t>(raw)));
  }
  at += c[3] * width;
  for (uint64_t i = 0; i < c[3]; ++i) {
    tz.index.push_back(static_cast<uint8_t>(b[at + i]));
    if (tz.index.back() >= c[4]) return std::nullopt;
  }
  at += c[3];
  for (uint64_t i = 0; i < c[4]; ++i) {
    tz.zones.push_back({static_cast<int32_t>(BigEndian(b, at + i * 6, 4)), b[at + i * 6 + 4] != 0});
  }
  at += need - c[3] * width - c[3];
  if (v2 && at < b.size() && b[at] == '\n') {
    const size_t end = b.find('\n', at + 1);
    if (end != std::string_view::npos) tz.extend = std::string(b.substr(at + 1, end - at - 1));
  }
  return tz;
}

// Go's tzsetName / tzsetOffset / tzsetRule.
bool TzName(std::string_view* s) {
  if (s->empty()) return false;
  if ((*s)[0] == '<') {
    const size_t end = s->find('>');
    if (end == std::string_view::npos || end < 2) return false;
    s->remove_prefix(end + 1);
    return true;
  }
  size_t i = 0;
  for (; i < s->size(); ++i) {
    const char c = (*s)[i];
    if ((c >= '0' && c <= '9') || c == ',' || c == '-' || c == '+') break;
  }
  if (i < 3) return false;
  s->remove_prefix(i);
  return true;
}

bool TzNum(std::string_view* s, int* n) {
  size_t i = 0;
  *n = 0;
  for (; i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9'; ++i) {
    *n = *n * 10 + ((*s)[i] - '0');
    if (*n >= 1000000) return false;
  }
  if (i == 0) return false;
  s->remove_prefix(i);
  return true;
}

bool TzOffset(std::string_view* s, int* off) {
  if (s->empty()) return false;
  bool neg = false;
  if ((*s)[0] == '+' || (*s)[0] == '-') {
    neg = (*s)[0] == '-';
    s->remove_prefix(1);
  }
  int hours = 0;
  if (!TzNum(s, &hours) || hours > 24 * 7) return false;
  int total = hours * 3600;
  for (int mul : {60, 1}) {
    if (s->empty() || (*s)[0] != ':') break;
    s->remove_prefix(1);
    int n = 0;
    if (!TzNum(s, &n) || n >= 60) return false;
    total += n * mul;
  }
  *off = neg ? -total : total;
  return true;
}

struct TzRule {
  char kind;  // 'J', 'D' (day of year), 'M'
  int day = 0, week = 0, mon = 0;
  int time = 2 * 3600;
};

bool TzRuleParse(std::string_view* s, TzRule* r) {
  if (s->empty()) return false;
  if ((*s)[0] == 'J') {
    s->remove_prefix(1);
    r->kind = 'J';
    if (!TzNum(s, &r->day) || r->day < 1 || r->day > 365) return false;
  } else if ((*s)[0] == 'M') {
    s->remove_prefix(1);
    r->kind = 'M';
    if (!TzNum(s, &r->mon) || r->mon < 1 || r->mon > 12 || s->empty() || (*s)[0] != '.') return false;
    s->remove_prefix(1);
    if (!TzNum(s, &r->week) || r->week < 1 || r->week > 5 || s->empty() || (*s)[0] != '.') return false;
    s->remove_prefix(1);
    if (!TzNum(s, &r->day) || r->day > 6) return false;
  } else {
    r->kind = 'D';
    if (!TzNum(s, &r->day) || r->day > 365) return false;
  }
  if (s->empty() || (*s)[0] != '/') return true;
  s->remove_prefix(1);
  return TzOffset(s, &r->time);
}

// Go's tzruleTime: seconds since the start of `year` (UTC) of the rule's
// transition, for a zone at `off`.
int64_t TzRuleTime(int64_t year, const TzRule& r, int off) {
  int64_t s = 0;
  if (r.kind == 'J') {
    s = int64_t{r.day - 1} * kSecondsPerDay;
    if (IsLeap(year) && r.day >= 60) s += kSecondsPerDay;
  } else if (r.kind == 'D') {
    s = int64_t{r.day} * kSecondsPerDay;
  } else {
    const int m1 = (r.mon + 9) % 12 + 1;
    const int64_t yy0 = r.mon <= 2 ? year - 1 : year;
    const int64_t yy1 = yy0 / 100, yy2 = yy0 % 100;
    int64_t dow = ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
    if (dow < 0) dow += 7;
    int64_t d = r.day - dow;
    if (d < 0) d += 7;
    for (int i = 1; i < r.week; ++i) {
      if (d + 7 >= DaysIn(r.mon, year)) break;
      d += 7;
    }
    d += DaysBefore(r.mon);
    if (IsLeap(year) && r.mon > 2) ++d;
    s = d * kSecondsPerDay;
  }
  return s + r.time - off;
}

// Go's tzset: the offset the TZ string gives at `sec`.
std::optional<int32_t> TzSet(std::string_view s, int64_t sec) {
  int std_off = 0, dst_off = 0;
  if (!TzName(&s) || !TzOffset(&s, &std_off)) return std::nullopt;
  std_off = -std_off;
  if (s.empty() || s[0] == ',') return std_off;
  if (!TzName(&s)) return std::nullopt;
  if (s.empty() || s[0] == ',') {
    dst_off = std_off + 3600;
  } else {
    if (!TzOffset(&s, &dst_off)) return std::nullopt;
    dst_off = -dst_off;
  }
  std::string_view rules = s.empty() ? std::string_view(",M3.2.0,M11.1.0") : s;
  if (rules[0] != ',' && rules[0] != ';') return std::nullopt;
  rules.remove_prefix(1);
  TzRule start, end;
  if (!TzRuleParse(&rules, &start) || rules.empty() || rules[0] != ',') return std::nullopt;
  rules.remove_prefix(1);
  if (!TzRuleParse(&rules, &end) || !rules.empty()) return std::nullopt;
  const CivilTime c = ToCivil(TimeFromUnix(sec), 0);
  const int64_t ysec = int64_t{c.yday - 1} * kSecondsPerDay + (sec - FloorDiv(sec, kSecondsPerDay) * kSecondsPerDay);
  int64_t start_sec = TzRuleTime(c.year, start, std_off), end_sec = TzRuleTime(c.year, end, dst_off);
  if (end_sec < start_sec) {
    std::swap(start_sec, end_sec);
    std::swap(std_off, dst_off);
  }
  return ysec < start_sec || ysec >= end_sec ? std_off : dst_off;
}

// Go's lookupFirstZone.
size_t FirstZone(const TzData& tz) {
  bool used = false;
  for (uint8_t i : tz.index) used = used || i == 0;
  if (!used) return 0;
  if (!tz.index.empty() && tz.zones[tz.index[0]].dst) {
    for (size_t z = tz.index[0]; z-- > 0;) {
      if (!tz.zones[z].dst) return z;
    }
  }
  for (size_t z = 0; z < tz.zones.size(); ++z) {
    if (!tz.zones[z].dst) return z;
  }
  return 0;
}

// Go's Location.lookup.
int32_t TzOffsetAt(const TzData& tz, int64_t sec) {
  if (tz.when.empty() || sec < tz.when[0]) {
    if (tz.when.empty() && !tz.extend.empty()) {
      if (std::optional<int32_t> o = TzSet(tz.extend, sec)) return *o;
    }
    return tz.zones[FirstZone(tz)].offset;
  }
  size_t lo = 0, hi = tz.when.size();
  while (hi - lo > 1) {
    const size_t m = (lo + hi) / 2;
    if (sec < tz.when[m]) {
      hi = m;
    } else {
      lo = m;
    }
  }
  if (lo == tz.when.size() - 1 && !tz.extend.empty()) {
    if (std::optional<int32_t> o = TzSet(tz.extend, sec)) return *o;
  }
  return tz.zones[tz.index[lo]].offset;
}

// Go's time.LoadLocation for names other than "", "UTC" and "Local": the
// file under the system's zoneinfo directory.
StatusOr<TzData> LoadZone(std::string_view name) {
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return InvalidArgumentError("time: invalid location name");
  }
  std::ifstream in("/usr/share/zoneinfo/" + std::string(name), std::ios::binary);
  std::string data;
  if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::optional<TzData> tz = in ? ParseTzif(data) : std::nullopt;
  if (!tz) return InvalidArgumentError("unknown time zone " + std::string(name));
  return *std::move(tz);
}

}  // namespace

StatusOr<int32_t> ZoneOffsetAt(std::string_view tz, const CelTime& t) {
  const size_t colon = tz.find(':');
  if (colon == std::string_view::npos) {
    // "Local" is UTC where Kubernetes runs (see ParseCelTimestamp).
    if (tz.empty() || tz == "UTC" || tz == "Local") return 0;
    DRA_ASSIGN_OR_RETURN(TzData data, LoadZone(tz));
    return TzOffsetAt(data, t.seconds);
  }
  DRA_ASSIGN_OR_RETURN(int64_t hr, GoAtoi(tz.substr(0, colon)));
  DRA_ASSIGN_OR_RETURN(int64_t min, GoAtoi(tz.substr(colon + 1)));
  const int64_t offset = tz[0] == '-' ? hr * 60 - min : hr * 60 + min;
  return static_cast<int32_t>(offset * 60);
}

}  // namespace dra::cel::lib
