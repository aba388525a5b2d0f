// The printing kubectl does, reimplemented: sigs.k8s.io/yaml turns an
// object into JSON and then YAML through go.yaml.in/yaml/v2, whose emitter
// is libyaml's (MIT licence; Kirill Simonov, go-yaml authors). The scalar
// analysis and style choice below follow that emitter's logic, named after
// its functions so that a difference can be traced; tests/print compares
// the output byte for byte with the real library (tools/yamlprint).
#include "manifest/emit.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string_view>
#include <system_error>

#include "base/json_escape.h"

namespace dra::manifest {
namespace {

// ---------------------------------------------------------------------------
// UTF-8, as Go decodes it (unicode/utf8): a byte that does not start a valid
// sequence (overlong forms, surrogates and values above U+10FFFF are invalid)
// is one U+FFFD. encoding/json writes each such byte as \ufffd, so kubectl
// never prints invalid UTF-8; both emitters below first do the same.

size_t ValidUtf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c1 < lo || c1 > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// `s` with every invalid byte replaced by U+FFFD (in `storage` if needed).
std::string_view ValidUtf8(std::string_view s, std::string& storage) {
  size_t i = 0;
  while (i < s.size()) {
    size_t n = ValidUtf8Length(s, i);
    if (n == 0) break;
    i += n;
  }
  if (i == s.size()) return s;
  storage.assign(s.substr(0, i));
  while (i < s.size()) {
    size_t n = ValidUtf8Length(s, i);
    if (n == 0) {
      storage += "\xEF\xBF\xBD";
      ++i;
    } else {
      storage.append(s.substr(i, n));
      i += n;
    }
  }
  return storage;
}

std::u32string Runes(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = ValidUtf8Length(s, i);
    if (n == 0) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    auto c = static_cast<unsigned char>(s[i]);
    char32_t r = n == 1 ? c : n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    out.push_back(r);
    i += n;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Scalars a reader would not read back as strings.

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return static_cast<char>(c | 0x20); }  // Go's strconv lower()

bool OneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// strconv.ParseUint(s, base, 64) for base 0 (prefixes 0b 0o 0x, leading 0 =
// octal) or 2; `s` holds no underscores.
bool GoParseUint(std::string_view s, int base, uint64_t* out) {
  if (s.empty()) return false;
  if (base == 0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && Lower(s[1]) == 'b') {
        base = 2;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
        base = 8;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
        base = 16;
        s.remove_prefix(2);
      } else {
        base = 8;
        s.remove_prefix(1);
      }
    }
  }
  uint64_t n = 0;
  for (char c : s) {
    int d = 0;
    if (IsDigit(c)) {
      d = c - '0';
    } else if (Lower(c) >= 'a' && Lower(c) <= 'z') {
      d = Lower(c) - 'a' + 10;
    } else {
      return false;
    }
    if (d >= base) return false;
    const auto b = static_cast<uint64_t>(base);
    const auto ud = static_cast<uint64_t>(d);
    if (n > (UINT64_MAX - ud) / b) return false;  // out of range
    n = n * b + ud;
  }
  *out = n;
  return true;
}

// strconv.ParseInt(s, base, 64) succeeds.
bool GoParseIntOk(std::string_view s, int base) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+') {
    s.remove_prefix(1);
  } else if (s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  uint64_t u = 0;
  if (!GoParseUint(s, base, &u)) return false;
  return neg ? u <= (uint64_t{1} << 63) : u < (uint64_t{1} << 63);
}

bool GoParseUintOk(std::string_view s, int base) {
  uint64_t u = 0;
  return GoParseUint(s, base, &u);
}

// strconv's underscoreOK: underscores only between digits (or after a base
// prefix).
bool GoUnderscoreOk(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' && (Lower(s[1]) == 'b' || Lower(s[1]) == 'o' || Lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = Lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    if (IsDigit(s[i]) || (hex && Lower(s[i]) >= 'a' && Lower(s[i]) <= 'f')) {
      saw = '0';
      continue;
    }
    if (s[i] == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// A decimal number's text (digits, at most one '.', optional exponent, no
// underscores or sign) is beyond the double range: its magnitude is positive
// (underflow rounds to zero, which strconv accepts).
bool DecimalOverflows(std::string_view t) {
  long magnitude = 0;
  bool seen_nonzero = false;
  bool after_dot = false;
  size_t i = 0;
  for (; i < t.size() && (IsDigit(t[i]) || t[i] == '.'); ++i) {
    if (t[i] == '.') {
      after_dot = true;
    } else if (!seen_nonzero) {
      if (t[i] != '0') {
        seen_nonzero = true;
        if (!after_dot) magnitude = 1;
      } else if (after_dot) {
        --magnitude;
      }
    } else if (!after_dot) {
      ++magnitude;
    }
  }
  if (!seen_nonzero) return false;
  if (i < t.size() && Lower(t[i]) == 'e') {
    long e = std::strtol(std::string(t.substr(i + 1)).c_str(), nullptr, 10);
    magnitude += e;
  }
  return magnitude > 0;
}

// Parses a decimal number's text (sign allowed, no underscores) as a double;
// false if it overflows.
bool ParseDecimal(std::string_view t, double* out) {
  bool neg = false;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    if (DecimalOverflows(t)) return false;
    v = 0;
  } else if (ec != std::errc() || ptr != t.data() + t.size()) {
    return false;
  }
  *out = neg ? -v : v;
  return true;
}

// strconv.ParseFloat(s, 64) succeeds, for decimal text (the only kind the
// resolver hands it: text starting with '.', or matching yamlStyleFloat).
bool GoParseFloatOk(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  if (i + 2 < n && s[i] == '0' && Lower(s[i + 1]) == 'x') return false;  // hex floats: not reached
  bool sawdot = false;
  bool sawdigits = false;
  bool underscores = false;
  for (; i < n; ++i) {
    char c = s[i];
    if (c == '_') {
      underscores = true;
      continue;
    }
    if (c == '.') {
      if (sawdot) break;
      sawdot = true;
      continue;
    }
    if (IsDigit(c)) {
      sawdigits = true;
      continue;
    }
    break;
  }
  if (!sawdigits) return false;
  if (i < n && Lower(s[i]) == 'e') {
    ++i;
    if (i >= n) return false;
    if (s[i] == '+' || s[i] == '-') ++i;
    if (i >= n || !IsDigit(s[i])) return false;
    for (; i < n && (IsDigit(s[i]) || s[i] == '_'); ++i) {
      if (s[i] == '_') underscores = true;
    }
  }
  if (i != n) return false;
  if (underscores && !GoUnderscoreOk(s)) return false;
  std::string clean;
  for (char c : s) {
    if (c != '_') clean.push_back(c);
  }
  double v = 0;
  return ParseDecimal(clean, &v);
}

// go-yaml's yamlStyleFloat, which is also YAML 1.2's core-schema float:
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < n && s[i] == '.') {
    ++i;
    size_t start = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    size_t start = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < n && s[i] == '.') {
      ++i;
      while (i < n && IsDigit(s[i])) ++i;
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == n;
}

// Reads `count` (1 or 2) digits as Go's time getnum(s, false) does.
bool GoGetNum(std::string_view s, size_t* i, int* value) {
  if (*i >= s.size() || !IsDigit(s[*i])) return false;
  *value = s[*i] - '0';
  ++*i;
  if (*i < s.size() && IsDigit(s[*i])) {
    *value = *value * 10 + (s[*i] - '0');
    ++*i;
  }
  return true;
}

int DaysIn(int month, int year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) return 29;
  return kDays[month - 1];
}

// go-yaml's parseTimestamp: time.Parse with the layouts
// "2006-1-2T15:4:5.999999999Z07:00", the same with 't',
// "2006-1-2 15:4:5.999999999" and "2006-1-2".
bool IsGoYamlTimestamp(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i != 4 || i == s.size() || s[i] != '-') return false;
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  ++i;
  int month = 0;
  int day = 0;
  if (!GoGetNum(s, &i, &month) || month < 1 || month > 12) return false;
  if (i >= s.size() || s[i] != '-') return false;
  ++i;
  if (!GoGetNum(s, &i, &day)) return false;
  const bool day_ok = day >= 1 && day <= DaysIn(month, year);
  if (i == s.size()) return day_ok;  // "2006-1-2"
  const char sep = s[i];
  if (sep != 'T' && sep != 't' && sep != ' ') return false;
  ++i;
  if (sep == ' ') {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!GoGetNum(s, &i, &hour) || hour >= 24) return false;
  if (i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!GoGetNum(s, &i, &minute) || minute >= 60) return false;
  if (i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!GoGetNum(s, &i, &second) || second >= 60) return false;
  // .999999999: optional, a '.' or ',' and any number of digits.
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && IsDigit(s[i + 1])) {
    i += 2;
    while (i < s.size() && IsDigit(s[i])) ++i;
  }
  if (sep != ' ') {
    // Z07:00
    if (i < s.size() && s[i] == 'Z') {
      ++i;
    } else {
      if (s.size() - i < 6 || s[i + 3] != ':') return false;
      if (s[i] != '+' && s[i] != '-') return false;
      if (!IsDigit(s[i + 1]) || !IsDigit(s[i + 2]) || !IsDigit(s[i + 4]) || !IsDigit(s[i + 5])) return false;
      const int zh = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
      const int zm = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
      if (zh > 24 || zm > 60) return false;
      i += 6;
    }
  }
  return i == s.size() && day_ok;
}

// go-yaml's isBase60Float: ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
// with the groups parsed by MatchBase60Groups.
bool MatchBase60Groups(std::string_view s, size_t* i) {
  size_t groups = 0;
  while (*i < s.size() && s[*i] == ':') {
    ++*i;
    size_t start = *i;
    while (*i < s.size() && IsDigit(s[*i])) ++*i;
    size_t len = *i - start;
    if (len == 0 || len > 2 || (len == 2 && s[start] > '5')) return false;
    ++groups;
  }
  return groups > 0;
}

bool IsBase60Float(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  if (!MatchBase60Groups(s, &i)) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

// go-yaml v2's resolve("", s) gives a tag other than !!str.
bool GoYamlResolvesNonString(std::string_view s) {
  if (s.empty()) return true;  // null
  const char c = s[0];
  char hint = 0;
  if (c == '+' || c == '-') {
    hint = 'S';
  } else if (IsDigit(c)) {
    hint = 'D';
  } else if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) {
    hint = 'M';
  } else if (c == '.') {
    hint = '.';
  }
  if (hint == 0) return false;  // "<<" included: '<' has no hint
  if (s.size() <= 5 && OneOf(s, {"y",    "Y",    "yes",   "Yes",   "YES",   "true",  "True",  "TRUE",  "on",    "On",
                                 "ON",   "n",    "N",     "no",    "No",    "NO",    "false", "False", "FALSE", "off",
                                 "Off",  "OFF",  "~",     "null",  "Null",  "NULL",  ".nan",  ".NaN",  ".NAN",  ".inf",
                                 ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"})) {
    return true;
  }
  if (hint == 'M') return false;
  if (hint == '.') return GoParseFloatOk(s);
  if (IsGoYamlTimestamp(s)) return true;
  std::string plain;
  for (char ch : s) {
    if (ch != '_') plain.push_back(ch);
  }
  if (GoParseIntOk(plain, 0) || GoParseUintOk(plain, 0)) return true;
  if (IsYamlStyleFloat(plain) && GoParseFloatOk(plain)) return true;
  std::string_view p = plain;
  if (p.starts_with("0b")) {
    return GoParseIntOk(p.substr(2), 2) || GoParseUintOk(p.substr(2), 2);
  }
  if (p.starts_with("-0b")) return GoParseIntOk("-" + std::string(p.substr(3)), 2);
  return false;
}

// All of s[i..] is in `set`, and there is at least one character.
bool RestIn(std::string_view s, size_t i, std::string_view set) {
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i) {
    if (set.find(s[i]) == std::string_view::npos) return false;
  }
  return true;
}

constexpr std::string_view kDigitsUnderscore = "0123456789_";

// PyYAML's (YAML 1.1) int resolver:
// ^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+
//    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$
bool IsYaml11Int(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::string_view r = s.substr(i);
  if (r.empty()) return false;
  if (r.starts_with("0b") && RestIn(r, 2, "01_")) return true;
  if (r[0] == '0' && RestIn(r, 1, "01234567_")) return true;
  if (r == "0") return true;
  if (r.starts_with("0x") && RestIn(r, 2, "0123456789abcdefABCDEF_")) return true;
  if (r[0] >= '1' && r[0] <= '9') {
    if (r.size() == 1 || RestIn(r, 1, kDigitsUnderscore)) return true;
    size_t k = 1;
    while (k < r.size() && (IsDigit(r[k]) || r[k] == '_')) ++k;
    return MatchBase60Groups(r, &k) && k == r.size();
  }
  return false;
}

// [eE][-+][0-9]+ at s[*i], optional: true if absent or complete.
bool Yaml11Exponent(std::string_view s, size_t* i) {
  if (*i >= s.size() || (s[*i] != 'e' && s[*i] != 'E')) return true;
  ++*i;
  if (*i >= s.size() || (s[*i] != '+' && s[*i] != '-')) return false;
  ++*i;
  size_t start = *i;
  while (*i < s.size() && IsDigit(s[*i])) ++*i;
  return *i > start;
}

// PyYAML's float resolver (6.0, and 3.x's `\.[0-9_]+` second branch):
// ^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
//    |\.[0-9_]+(?:[eE][-+][0-9]+)?
//    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
//    |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$
// (the last two are in go-yaml's table).
bool IsYaml11Float(std::string_view s) {
  if (s.starts_with(".")) {
    size_t i = 1;
    size_t start = i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
    return i > start && Yaml11Exponent(s, &i) && i == s.size();
  }
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
    return Yaml11Exponent(s, &i) && i == s.size();
  }
  if (!MatchBase60Groups(s, &i) || i >= s.size() || s[i] != '.') return false;
  ++i;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  return i == s.size();
}

// PyYAML's timestamp resolver:
// ^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}
//    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
//     (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$
bool IsYaml11Timestamp(std::string_view s) {
  auto digits = [&](size_t* i, size_t min, size_t max) {
    size_t start = *i;
    while (*i < s.size() && IsDigit(s[*i]) && *i - start < max) ++*i;
    return *i - start >= min && (*i >= s.size() || !IsDigit(s[*i]));
  };
  size_t i = 0;
  if (!digits(&i, 4, 4) || i >= s.size() || s[i] != '-') return false;
  ++i;
  size_t month_start = i;
  if (!digits(&i, 1, 2) || i >= s.size() || s[i] != '-') return false;
  const bool two_digit_month = i - month_start == 2;
  ++i;
  size_t day_start = i;
  if (!digits(&i, 1, 2)) return false;
  if (i == s.size()) return two_digit_month && i - day_start == 2;
  if (s[i] == 'T' || s[i] == 't') {
    ++i;
  } else if (s[i] == ' ' || s[i] == '\t') {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  } else {
    return false;
  }
  if (!digits(&i, 1, 2) || i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!digits(&i, 2, 2) || i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!digits(&i, 2, 2)) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
  }
  if (i == s.size()) return true;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i < s.size() && s[i] == 'Z') return i + 1 == s.size();
  if (i >= s.size() || (s[i] != '+' && s[i] != '-')) return false;
  ++i;
  if (!digits(&i, 1, 2)) return false;
  if (i == s.size()) return true;
  if (s[i] != ':') return false;
  ++i;
  return digits(&i, 2, 2) && i == s.size();
}

// YAML 1.2 core schema ints: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ (floats
// are IsYamlStyleFloat).
bool IsYaml12Int(std::string_view s) {
  if (s.starts_with("0o")) return RestIn(s, 2, "01234567");
  if (s.starts_with("0x")) return RestIn(s, 2, "0123456789abcdefABCDEF");
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return RestIn(s, i, "0123456789");
}

// A string starting with a digit that holds a character none of the
// resolvers below has in a number, timestamp or base-60 form (their
// alphabet: digits, +-._:, space, tab and the letters a-f, o, x, t, z in
// either case), a second '.' (each form has at most one) or a fourth '-'
// (a timestamp has three at most), reads as a string in every reader:
// quantities ("80Gi", "128000m"), versions ("1.2.3") and uids skip the
// parsing.
bool DigitWordReadsAsString(std::string_view s) {
  if (s.empty() || !IsDigit(s[0])) return false;
  int dots = 0;
  int dashes = 0;
  for (char c : s) {
    if (c == '.') {
      if (++dots == 2) return true;
      continue;
    }
    if (c == '-') {
      if (++dashes == 4) return true;
      continue;
    }
    if (IsDigit(c) || c == '+' || c == '-' || c == '_' || c == ':' || c == ',' || c == ' ' || c == '\t') continue;
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    const char l = Lower(c);
    if (!letter || !((l >= 'a' && l <= 'f') || l == 'o' || l == 'x' || l == 't' || l == 'z')) return true;
  }
  return false;
}

// How go-yaml's stringv asks for a string to be written; the emitter may
// still fall back to quotes (SelectStyle).
enum class Style { kPlain, kSingleQuoted, kDoubleQuoted, kLiteral };

Style RequestedStyle(std::string_view s) {
  if (s.find('\n') != std::string_view::npos) return Style::kLiteral;
  return ReadsAsNonString(s) ? Style::kDoubleQuoted : Style::kPlain;
}

// ---------------------------------------------------------------------------
// The YAML emitter: go.yaml.in/yaml/v2 v2.4.4's emitterc.go (libyaml's
// emitter), for the events sigs.k8s.io/yaml produces (block collections,
// empty ones as {} and [], implicit scalars; no anchors, tags or flow
// content), unicode output, indent 2, width 80. Node::style adds two
// layouts of dractl's own, outside go-yaml's logic: JSON-quoted strings and
// flow collections, each on one line (WriteQuotedJson, WriteFlow).

constexpr int kBestIndent = 2;
constexpr int kBestWidth = 80;

unsigned char At(std::string_view v, size_t i) { return i < v.size() ? static_cast<unsigned char>(v[i]) : 0; }

size_t Width(unsigned char c) {
  if ((c & 0x80) == 0x00) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;  // not reached: strings are valid UTF-8 here
}

bool IsPrintable(std::string_view v, size_t i) {
  const unsigned char c = At(v, i);
  const unsigned char c1 = At(v, i + 1);
  const unsigned char c2 = At(v, i + 2);
  return c == 0x0A || (c >= 0x20 && c <= 0x7E) || (c == 0xC2 && c1 >= 0xA0) || (c > 0xC2 && c < 0xED) ||
         (c == 0xED && c1 < 0xA0) || c == 0xEE ||
         (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)));
}
bool IsSpace(std::string_view v, size_t i) { return At(v, i) == ' '; }
bool IsBlank(std::string_view v, size_t i) { return At(v, i) == ' ' || At(v, i) == '\t'; }
bool IsBreak(std::string_view v, size_t i) {
  const unsigned char c = At(v, i);
  return c == '\r' || c == '\n' || (c == 0xC2 && At(v, i + 1) == 0x85) ||
         (c == 0xE2 && At(v, i + 1) == 0x80 && (At(v, i + 2) == 0xA8 || At(v, i + 2) == 0xA9));
}
bool IsBlankz(std::string_view v, size_t i) { return IsBlank(v, i) || IsBreak(v, i) || At(v, i) == 0; }

struct Analysis {
  bool multiline = false;
  bool block_plain_allowed = true;
  bool single_quoted_allowed = true;
  bool block_allowed = true;
};

// yaml_emitter_analyze_scalar.
Analysis Analyze(std::string_view v) {
  Analysis a;
  if (v.empty()) {
    a.block_allowed = false;
    return a;
  }
  bool block_indicators = false;
  bool line_breaks = false;
  bool special_characters = false;
  bool leading_space = false;
  bool leading_break = false;
  bool trailing_space = false;
  bool trailing_break = false;
  bool break_space = false;
  bool space_break = false;
  bool previous_space = false;
  bool previous_break = false;
  if (v.starts_with("---") || v.starts_with("...")) block_indicators = true;
  bool preceded_by_whitespace = true;
  for (size_t i = 0, w = 0; i < v.size(); i += w) {
    w = Width(At(v, i));
    const bool followed_by_whitespace = i + w >= v.size() || IsBlank(v, i + w);
    const char c = v[i];
    if (i == 0) {
      switch (c) {
        case '#':
        case ',':
        case '[':
        case ']':
        case '{':
        case '}':
        case '&':
        case '*':
        case '!':
        case '|':
        case '>':
        case '\'':
        case '"':
        case '%':
        case '@':
        case '`': block_indicators = true; break;
        case '?':
        case ':':
        case '-':
          if (followed_by_whitespace) block_indicators = true;
          break;
        default: break;
      }
    } else if ((c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace)) {
      block_indicators = true;
    }
    if (!IsPrintable(v, i)) special_characters = true;
    if (IsSpace(v, i)) {
      if (i == 0) leading_space = true;
      if (i + w == v.size()) trailing_space = true;
      if (previous_break) break_space = true;
      previous_space = true;
      previous_break = false;
    } else if (IsBreak(v, i)) {
      line_breaks = true;
      if (i == 0) leading_break = true;
      if (i + w == v.size()) trailing_break = true;
      if (previous_space) space_break = true;
      previous_space = false;
      previous_break = true;
    } else {
      previous_space = false;
      previous_break = false;
    }
    preceded_by_whitespace = IsBlankz(v, i);
  }
  a.multiline = line_breaks;
  if (leading_space || leading_break || trailing_space || trailing_break) a.block_plain_allowed = false;
  if (trailing_space) a.block_allowed = false;
  if (break_space) {
    a.block_plain_allowed = false;
    a.single_quoted_allowed = false;
  }
  if (space_break || special_characters) {
    a.block_plain_allowed = false;
    a.single_quoted_allowed = false;
    a.block_allowed = false;
  }
  if (line_breaks || block_indicators) a.block_plain_allowed = false;
  return a;
}

// yaml_emitter_select_scalar_style, block context.
Style SelectStyle(std::string_view v, Style style, const Analysis& a, bool simple_key) {
  if (simple_key && a.multiline) style = Style::kDoubleQuoted;
  if (style == Style::kPlain) {
    if (!a.block_plain_allowed) style = Style::kSingleQuoted;
    if (v.empty() && simple_key) style = Style::kSingleQuoted;
  }
  if (style == Style::kSingleQuoted && !a.single_quoted_allowed) style = Style::kDoubleQuoted;
  if (style == Style::kLiteral && (!a.block_allowed || simple_key)) style = Style::kDoubleQuoted;
  return style;
}

// The order of two keys, as go-yaml's keyList.Less orders strings: letters
// after everything else, runs of digits by value. Go asks unicode.IsLetter;
// beyond Latin-1 this counts every character as a letter except punctuation
// and symbol blocks (keys are ASCII in practice).
bool IsLetterRune(char32_t r) {
  if (r < 0x80) return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
  if (r < 0xC0) return r == 0xAA || r == 0xB5 || r == 0xBA;
  if (r == 0xD7 || r == 0xF7) return false;
  if (r >= 0x2000 && r <= 0x2BFF) return false;
  if (r >= 0x3000 && r <= 0x303F) return false;
  if (r >= 0xE000 && r <= 0xF8FF) return false;
  if ((r >= 0xFE00 && r <= 0xFE6F) || r == 0xFEFF) return false;
  if (r >= 0xFF00 && r <= 0xFF20) return false;
  if (r >= 0x1F000) return false;
  return true;
}
bool IsDigitRune(char32_t r) { return r >= '0' && r <= '9'; }

bool GoYamlKeyLess(const std::u32string& a, const std::u32string& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    const bool al = IsLetterRune(a[i]);
    const bool bl = IsLetterRune(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return bl;
    // Go's int64 arithmetic wraps; so does this.
    uint64_t an = 0;
    uint64_t bn = 0;
    if (a[i] == '0' || b[i] == '0') {
      for (auto j = static_cast<ptrdiff_t>(i) - 1; j >= 0 && IsDigitRune(a[static_cast<size_t>(j)]); --j) {
        if (a[static_cast<size_t>(j)] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    size_t ai = i;
    size_t bi = i;
    for (; ai < a.size() && IsDigitRune(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
    for (; bi < b.size() && IsDigitRune(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return static_cast<int64_t>(an) < static_cast<int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

std::vector<size_t> KeyOrder(const Node& n, bool yaml, bool sort) {
  std::vector<size_t> order(n.keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (!sort) return order;
  if (yaml) {
    std::vector<std::u32string> runes;
    runes.reserve(n.keys.size());
    for (const auto& k : n.keys) runes.push_back(Runes(k.first));
    // Stable: a comparator that is not a strict weak order (Go's is not, for
    // some digit runs) must not break the sort.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return GoYamlKeyLess(runes[a], runes[b]); });
  } else {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return n.keys[a].first < n.keys[b].first; });
  }
  return order;
}

// ---------------------------------------------------------------------------
// Numbers as Go prints them (object mode).

// The shortest digits of |v| (no leading or trailing zeros) and the decimal
// point position: v = 0.DIGITS x 10^dp.
void ShortestDigits(double v, std::string* digits, int* dp) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v < 0 ? -v : v, std::chars_format::scientific);
  std::string_view t(buf, static_cast<size_t>(end - buf));
  size_t e = t.find('e');
  digits->clear();
  for (char c : t.substr(0, e)) {
    if (c != '.') digits->push_back(c);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  *dp = std::atoi(std::string(t.substr(e + 1)).c_str()) + 1;
  if (*digits == "0") {
    digits->clear();
    *dp = 0;
  }
}

std::string FormatE(bool neg, const std::string& d, int dp) {
  std::string out = neg ? "-" : "";
  out.push_back(d.empty() ? '0' : d[0]);
  if (d.size() > 1) {
    out.push_back('.');
    out.append(d, 1);
  }
  int exp = d.empty() ? 0 : dp - 1;
  out.push_back('e');
  out.push_back(exp < 0 ? '-' : '+');
  if (exp < 0) exp = -exp;
  if (exp < 10) out.push_back('0');
  out += std::to_string(exp);
  return out;
}

std::string FormatF(bool neg, const std::string& d, int dp) {
  std::string out = neg ? "-" : "";
  const auto nd = static_cast<int>(d.size());
  if (dp <= 0) {
    out.push_back('0');
    if (nd > 0) {
      out.push_back('.');
      out.append(static_cast<size_t>(-dp), '0');
      out += d;
    }
  } else if (dp >= nd) {
    out += d;
    out.append(static_cast<size_t>(dp - nd), '0');
  } else {
    out.append(d, 0, static_cast<size_t>(dp));
    out.push_back('.');
    out.append(d, static_cast<size_t>(dp));
  }
  return out;
}

// encoding/json's float64 encoding.
std::string GoJsonFloat(double v) {
  std::string d;
  int dp = 0;
  ShortestDigits(v, &d, &dp);
  const bool neg = std::signbit(v);
  const double abs = neg ? -v : v;
  if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
    std::string s = FormatE(neg, d, dp);
    // e-07 -> e-7
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
    return s;
  }
  return FormatF(neg, d, dp);
}

// strconv.FormatFloat(v, 'g', -1, 64), as go-yaml writes a float64.
std::string GoFormatG(double v) {
  std::string d;
  int dp = 0;
  ShortestDigits(v, &d, &dp);
  const bool neg = std::signbit(v);
  const int exp = dp - 1;
  if (!d.empty() && (exp < -4 || exp >= 6)) return FormatE(neg, d, dp);
  if (d.empty()) return neg ? "-0" : "0";
  return FormatF(neg, d, dp);
}

// A number node as kubectl prints it: decoded as int64 if it is one, else
// as float64 (k8s.io/apimachinery's util/json), then written by
// encoding/json; in YAML, that text read back by go-yaml and written again.
// nullopt: not representable (infinite, NaN, beyond the double range).
std::optional<std::string> GoNumber(const Node& n, bool yaml) {
  std::string_view t = n.text;
  if (n.kind == NodeKind::kInt) {
    int64_t v = 0;
    std::string_view digits = t.starts_with('+') ? t.substr(1) : t;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && ptr == digits.data() + digits.size()) return std::to_string(v);
  }
  if (t == "+Inf" || t == "-Inf" || t == "NaN") return std::nullopt;
  double v = 0;
  if (!ParseDecimal(t, &v)) return std::nullopt;
  std::string json = GoJsonFloat(v);
  if (!yaml || GoParseIntOk(json, 0) || GoParseUintOk(json, 0)) return json;
  return GoFormatG(v);
}

// Non-object mode: the number's own text (YAML spellings of infinities).
std::string YamlNumberText(const Node& n) {
  if (n.kind == NodeKind::kFloat) {
    if (n.text == "+Inf") return ".inf";
    if (n.text == "-Inf") return "-.inf";
    if (n.text == "NaN") return ".nan";
  }
  return n.text;
}

// NodeStyle::kDoubleQuoted: `s` as a JSON string literal (JsonString, DEL
// escaped) appended to `out`, made YAML-safe: invalid UTF-8 as U+FFFD, and
// the characters a YAML reader rejects (C1 controls, U+FEFF, U+FFFE, U+FFFF)
// or reads as line breaks (U+0085, U+2028, U+2029) as \uXXXX, which YAML's
// double-quoted scalars read as JSON does.
void AppendQuotedJson(std::string_view s, std::string& out) {
  std::string storage;
  std::string_view v = ValidUtf8(s, storage);
  const size_t begin = out.size();
  AppendJsonString(v, out, {.escape_del = true});
  if (std::all_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return;
  // JsonString copies non-ASCII bytes as they are; escape the ones above.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string fixed;
  std::string_view t = std::string_view(out).substr(begin);
  for (size_t i = 0; i < t.size();) {
    const unsigned char c = At(t, i);
    const unsigned char c1 = At(t, i + 1);
    const unsigned char c2 = At(t, i + 2);
    char32_t r = 0;
    size_t w = 0;
    if (c == 0xC2 && c1 >= 0x80 && c1 <= 0x9F) {
      r = c1;
      w = 2;
    } else if ((c == 0xE2 && c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9)) || (c == 0xEF && c1 == 0xBB && c2 == 0xBF) ||
               (c == 0xEF && c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF))) {
      r = ((c & 0x0Fu) << 12) | ((c1 & 0x3Fu) << 6) | (c2 & 0x3Fu);
      w = 3;
    }
    if (w == 0) {
      fixed.push_back(t[i]);
      ++i;
      continue;
    }
    fixed += "\\u";
    for (int k = 12; k >= 0; k -= 4) fixed.push_back(kHex[(r >> k) & 0x0F]);
    i += w;
  }
  out.resize(begin);
  out += fixed;
}

// The common scalar, recognised without the whole analysis: ASCII letters,
// digits and ._/:- , starting with a letter or digit and not ending in ':'.
// It holds no indicator, space, break or special character, so Analyze
// allows it plain on one line (SelectStyle keeps kPlain): printed plain as
// it is, unless it reads as another type (RequestedStyle).
bool IsSimpleWord(std::string_view v) {
  // 1: a letter or digit; 2: one of ._/:-
  static constexpr auto kClass = [] {
    std::array<uint8_t, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = 1;
    for (int c = 'a'; c <= 'z'; ++c) {
      const int upper = c - 'a' + 'A';
      t[static_cast<size_t>(c)] = t[static_cast<size_t>(upper)] = 1;
    }
    for (char c : std::string_view("._/:-")) t[static_cast<unsigned char>(c)] = 2;
    return t;
  }();
  if (v.empty() || kClass[static_cast<unsigned char>(v[0])] != 1 || v.back() == ':') return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return kClass[static_cast<unsigned char>(c)] != 0; });
}

// A simple word printed plain: IsSimpleWord(v) && !ReadsAsNonString(v).
// One starting with a letter reads as another type only as one of go-yaml's
// bool and null spellings, 5 characters at most.
bool IsPlainWord(std::string_view v) {
  if (!IsSimpleWord(v)) return false;
  return (!IsDigit(v[0]) && v.size() > 5) || !ReadsAsNonString(v);
}

// A string written plain inside a flow collection reads back as itself: it
// is plain-safe in block context and holds no flow indicator (go-yaml's
// analysis sets flow_indicators for ,?[]{}: anywhere).
bool IsFlowPlainSafe(std::string_view s) {
  return s.find_first_of(",?[]{}:") == std::string_view::npos && IsPlainSafe(s);
}

class YamlEmitter {
 public:
  YamlEmitter(std::string& out, const EmitOptions& options) : out_(out), options_(options) {}

  void Document(const Node& root) {
    EmitNode(root, {});
    // Document end: the last line is ended.
    WriteIndent();
  }

 private:
  struct Context {
    bool mapping = false;
    bool simple_key = false;
  };

  void Put(char c) {
    out_.push_back(c);
    ++column_;
  }
  void PutBreak() {
    out_.push_back('\n');
    column_ = 0;
  }
  void Write(std::string_view v, size_t& i) {
    size_t w = Width(At(v, i));
    out_.append(v.substr(i, w));
    i += w;
    ++column_;
  }
  void WriteBreak(std::string_view v, size_t& i) {
    if (v[i] == '\n') {
      PutBreak();
      ++i;
    } else {
      Write(v, i);
      column_ = 0;
    }
  }
  void WriteIndent() {
    const int indent = std::max(indent_, 0);
    if (!indention_ || column_ > indent || (column_ == indent && !whitespace_)) PutBreak();
    if (column_ < indent) {
      out_.append(static_cast<size_t>(indent - column_), ' ');
      column_ = indent;
    }
    whitespace_ = true;
    indention_ = true;
  }
  void WriteIndicator(std::string_view indicator, bool need_whitespace, bool is_whitespace, bool is_indention) {
    if (need_whitespace && !whitespace_) Put(' ');
    for (char c : indicator) Put(c);
    whitespace_ = is_whitespace;
    indention_ = indention_ && is_indention;
  }
  void IncreaseIndent(bool flow, bool indentless) {
    indents_.push_back(indent_);
    if (indent_ < 0) {
      indent_ = flow ? kBestIndent : 0;
    } else if (!indentless) {
      indent_ += kBestIndent;
    }
  }
  void PopIndent() {
    indent_ = indents_.back();
    indents_.pop_back();
  }

  void EmitNode(const Node& n, Context ctx) {
    if (n.style == NodeStyle::kDoubleQuoted && n.kind == NodeKind::kString) {
      WriteQuotedJson(n.text);
      return;
    }
    if (n.style == NodeStyle::kFlow && !n.is_scalar() && !n.items.empty()) {
      if (!whitespace_) Put(' ');
      WriteFlow(n);
      whitespace_ = false;
      indention_ = false;
      return;
    }
    switch (n.kind) {
      case NodeKind::kNull: EmitScalar("null", Style::kPlain, ctx); return;
      case NodeKind::kBool: EmitScalar(n.bool_value ? "true" : "false", Style::kPlain, ctx); return;
      case NodeKind::kInt:
      case NodeKind::kFloat:
        if (options_.sort_keys) {
          if (std::optional<std::string> text = GoNumber(n, /*yaml=*/true)) {
            EmitScalar(*text, Style::kPlain, ctx);
          } else {
            EmitString(YamlNumberText(n), ctx);
          }
        } else if (IsSimpleWord(n.text) && IsDigit(n.text[0])) {
          WriteWord(n.text);  // YamlNumberText changes only NaN and infinities
        } else {
          EmitScalar(YamlNumberText(n), Style::kPlain, ctx);
        }
        return;
      case NodeKind::kString: EmitString(n.text, ctx); return;
      case NodeKind::kMapping:
        if (n.items.empty()) {
          WriteIndicator("{", true, true, false);
          WriteIndicator("}", false, false, false);
        } else {
          EmitMapping(n);
        }
        return;
      case NodeKind::kSequence:
        if (n.items.empty()) {
          WriteIndicator("[", true, true, false);
          WriteIndicator("]", false, false, false);
        } else {
          IncreaseIndent(false, ctx.mapping && !indention_);
          for (const Node& item : n.items) {
            WriteIndent();
            WriteIndicator("-", true, false, true);
            EmitNode(item, {});
          }
          PopIndent();
        }
        return;
    }
  }

  // NodeStyle::kDoubleQuoted; one line, so the column only grows.
  void WriteQuotedJson(std::string_view s) {
    if (!whitespace_) Put(' ');
    const size_t begin = out_.size();
    AppendQuotedJson(s, out_);
    column_ += static_cast<int>(out_.size() - begin);
    whitespace_ = false;
    indention_ = false;
  }

  void Append(std::string_view s) {
    out_ += s;
    column_ += static_cast<int>(s.size());
  }

  // NodeStyle::kFlow: `n` (a non-empty collection) and all it holds on one
  // line, never folded.
  void WriteFlow(const Node& n) {
    if (n.is_sequence()) {
      Put('[');
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i > 0) Append(", ");
        WriteFlowItem(n.items[i]);
      }
      Put(']');
      return;
    }
    Put('{');
    bool first = true;
    for (size_t i : KeyOrder(n, /*yaml=*/true, options_.sort_keys)) {
      if (!first) Append(", ");
      first = false;
      WriteFlowString(n.keys[i].first, false);
      Append(": ");
      WriteFlowItem(n.items[i]);
    }
    Put('}');
  }

  void WriteFlowString(std::string_view s, bool quoted) {
    if (!quoted && IsFlowPlainSafe(s)) {
      Append(s);
    } else {
      const size_t begin = out_.size();
      AppendQuotedJson(s, out_);
      column_ += static_cast<int>(out_.size() - begin);
    }
  }

  void WriteFlowItem(const Node& n) {
    switch (n.kind) {
      case NodeKind::kNull: Append("null"); return;
      case NodeKind::kBool: Append(n.bool_value ? "true" : "false"); return;
      case NodeKind::kInt:
      case NodeKind::kFloat:
        if (!options_.sort_keys) {
          Append(YamlNumberText(n));
        } else if (std::optional<std::string> text = GoNumber(n, /*yaml=*/true)) {
          Append(*text);
        } else {
          WriteFlowString(YamlNumberText(n), true);
        }
        return;
      case NodeKind::kString: WriteFlowString(n.text, n.style == NodeStyle::kDoubleQuoted); return;
      case NodeKind::kSequence:
      case NodeKind::kMapping:
        if (n.items.empty()) {
          Append(n.is_mapping() ? "{}" : "[]");
        } else {
          WriteFlow(n);
        }
        return;
    }
  }

  // A simple word (IsSimpleWord) as WritePlain writes it: no spaces, so no
  // folding, and no breaks.
  void WriteWord(std::string_view v) {
    if (!whitespace_) Put(' ');
    out_ += v;
    column_ += static_cast<int>(v.size());
    whitespace_ = false;
    indention_ = false;
  }

  void EmitMapping(const Node& n) {
    IncreaseIndent(false, false);
    if (options_.sort_keys) {
      for (size_t i : KeyOrder(n, /*yaml=*/true, true)) EmitMappingEntry(n, i);
    } else {
      for (size_t i = 0; i < n.keys.size(); ++i) EmitMappingEntry(n, i);
    }
    PopIndent();
  }

  void EmitMappingEntry(const Node& n, size_t i) {
    WriteIndent();
    const std::string& raw_key = n.keys[i].first;
    if (raw_key.size() <= 128 && IsPlainWord(raw_key)) {
      WriteWord(raw_key);
      WriteIndicator(":", false, false, false);
      EmitNode(n.items[i], {.mapping = true});
      return;
    }
    std::string storage;
    std::string_view key = ValidUtf8(raw_key, storage);
    if (!Analyze(key).multiline && key.size() <= 128) {
      EmitScalar(key, RequestedStyle(key), {.mapping = true, .simple_key = true});
      WriteIndicator(":", false, false, false);
    } else {
      WriteIndicator("?", true, false, true);
      EmitScalar(key, RequestedStyle(key), {.mapping = true});
      WriteIndent();
      WriteIndicator(":", true, false, true);
    }
    EmitNode(n.items[i], {.mapping = true});
  }

  void EmitString(std::string_view s, Context ctx) {
    if (IsPlainWord(s)) {
      WriteWord(s);
      return;
    }
    std::string storage;
    std::string_view v = ValidUtf8(s, storage);
    EmitScalar(v, RequestedStyle(v), ctx);
  }

  void EmitScalar(std::string_view v, Style requested, Context ctx) {
    const Style style = SelectStyle(v, requested, Analyze(v), ctx.simple_key);
    IncreaseIndent(true, false);
    const bool allow_breaks = !ctx.simple_key;
    switch (style) {
      case Style::kPlain: WritePlain(v, allow_breaks); break;
      case Style::kSingleQuoted: WriteSingleQuoted(v, allow_breaks); break;
      case Style::kDoubleQuoted: WriteDoubleQuoted(v, allow_breaks); break;
      case Style::kLiteral: WriteLiteral(v); break;
    }
    PopIndent();
  }

  void WritePlain(std::string_view v, bool allow_breaks) {
    if (!whitespace_) Put(' ');
    bool spaces = false;
    bool breaks = false;
    for (size_t i = 0; i < v.size();) {
      if (IsSpace(v, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && !IsSpace(v, i + 1)) {
          WriteIndent();
          ++i;
        } else {
          Write(v, i);
        }
        spaces = true;
      } else if (IsBreak(v, i)) {
        if (!breaks && v[i] == '\n') PutBreak();
        WriteBreak(v, i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        Write(v, i);
        indention_ = false;
        spaces = false;
        breaks = false;
      }
    }
    whitespace_ = false;
    indention_ = false;
  }

  void WriteSingleQuoted(std::string_view v, bool allow_breaks) {
    WriteIndicator("'", true, false, false);
    bool spaces = false;
    bool breaks = false;
    for (size_t i = 0; i < v.size();) {
      if (IsSpace(v, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && i > 0 && i < v.size() - 1 && !IsSpace(v, i + 1)) {
          WriteIndent();
          ++i;
        } else {
          Write(v, i);
        }
        spaces = true;
      } else if (IsBreak(v, i)) {
        if (!breaks && v[i] == '\n') PutBreak();
        WriteBreak(v, i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        if (v[i] == '\'') Put('\'');
        Write(v, i);
        indention_ = false;
        spaces = false;
        breaks = false;
      }
    }
    WriteIndicator("'", false, false, false);
    whitespace_ = false;
    indention_ = false;
  }

  void WriteDoubleQuoted(std::string_view v, bool allow_breaks) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    bool spaces = false;
    WriteIndicator("\"", true, false, false);
    // go-yaml's is_bom looks at the start of the value, whatever the index:
    // a value starting with U+FEFF has every character escaped.
    const bool bom = At(v, 0) == 0xEF && At(v, 1) == 0xBB && At(v, 2) == 0xBF;
    for (size_t i = 0; i < v.size();) {
      if (!IsPrintable(v, i) || bom || IsBreak(v, i) || v[i] == '"' || v[i] == '\\') {
        const unsigned char lead = At(v, i);
        size_t w = Width(lead);
        char32_t r = w == 1 ? lead : w == 2 ? (lead & 0x1Fu) : w == 3 ? (lead & 0x0Fu) : (lead & 0x07u);
        for (size_t k = 1; k < w; ++k) r = (r << 6) | (At(v, i + k) & 0x3Fu);
        i += w;
        Put('\\');
        switch (r) {
          case 0x00: Put('0'); break;
          case 0x07: Put('a'); break;
          case 0x08: Put('b'); break;
          case 0x09: Put('t'); break;
          case 0x0A: Put('n'); break;
          case 0x0B: Put('v'); break;
          case 0x0C: Put('f'); break;
          case 0x0D: Put('r'); break;
          case 0x1B: Put('e'); break;
          case 0x22: Put('"'); break;
          case 0x5C: Put('\\'); break;
          case 0x85: Put('N'); break;
          case 0xA0: Put('_'); break;
          case 0x2028: Put('L'); break;
          case 0x2029: Put('P'); break;
          default: {
            int digits = 8;
            if (r <= 0xFF) {
              Put('x');
              digits = 2;
            } else if (r <= 0xFFFF) {
              Put('u');
              digits = 4;
            } else {
              Put('U');
            }
            for (int k = (digits - 1) * 4; k >= 0; k -= 4) Put(kHex[(r >> k) & 0x0F]);
          }
        }
        spaces = false;
      } else if (IsSpace(v, i)) {
        if (allow_breaks && !spaces && column_ > kBestWidth && i > 0 && i < v.size() - 1) {
          WriteIndent();
          if (IsSpace(v, i + 1)) Put('\\');
          ++i;
        } else {
          Write(v, i);
        }
        spaces = true;
      } else {
        Write(v, i);
        spaces = false;
      }
    }
    WriteIndicator("\"", false, false, false);
    whitespace_ = false;
    indention_ = false;
  }

  void WriteBlockScalarHints(std::string_view v) {
    if (IsSpace(v, 0) || IsBreak(v, 0)) {
      const char hint[] = {static_cast<char>('0' + kBestIndent), '\0'};
      WriteIndicator(hint, false, false, false);
    }
    char chomp = 0;
    if (v.empty()) {
      chomp = '-';
    } else {
      size_t i = v.size() - 1;
      while ((At(v, i) & 0xC0) == 0x80) --i;
      if (!IsBreak(v, i)) {
        chomp = '-';
      } else if (i == 0) {
        chomp = '+';
      } else {
        --i;
        while ((At(v, i) & 0xC0) == 0x80) --i;
        if (IsBreak(v, i)) chomp = '+';
      }
    }
    if (chomp != 0) WriteIndicator(std::string_view(&chomp, 1), false, false, false);
  }

  void WriteLiteral(std::string_view v) {
    WriteIndicator("|", true, false, false);
    WriteBlockScalarHints(v);
    PutBreak();
    indention_ = true;
    whitespace_ = true;
    bool breaks = true;
    for (size_t i = 0; i < v.size();) {
      if (IsBreak(v, i)) {
        WriteBreak(v, i);
        indention_ = true;
        breaks = true;
      } else {
        if (breaks) WriteIndent();
        Write(v, i);
        indention_ = false;
        breaks = false;
      }
    }
  }

  std::string& out_;
  const EmitOptions& options_;
  int column_ = 0;
  bool whitespace_ = true;
  bool indention_ = true;
  int indent_ = -1;
  std::vector<int> indents_;
};

// ---------------------------------------------------------------------------
// JSON: encoding/json's string and number encoding, MarshalIndent's layout.

void AppendGoJsonString(std::string_view s, bool escape_html, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c >= 0x20 && c != '"' && c != '\\' && !(escape_html && (c == '<' || c == '>' || c == '&'))) {
        out.push_back(static_cast<char>(c));
        continue;
      }
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
      }
      continue;
    }
    size_t n = ValidUtf8Length(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
    } else if (n == 3 && c == 0xE2 && At(s, i + 1) == 0x80 && (At(s, i + 2) == 0xA8 || At(s, i + 2) == 0xA9)) {
      out += At(s, i + 2) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 3;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  out.push_back('"');
}

void EmitJsonNode(const Node& n, int indent, int level, const EmitOptions& opt, std::string& out) {
  auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out.push_back('\n');
    out.append(static_cast<size_t>(indent) * static_cast<size_t>(lvl), ' ');
  };
  const std::string_view item_separator = indent <= 0 && opt.spaced_separators ? ", " : ",";
  switch (n.kind) {
    case NodeKind::kNull: out += "null"; return;
    case NodeKind::kBool: out += n.bool_value ? "true" : "false"; return;
    case NodeKind::kInt:
    case NodeKind::kFloat:
      if (opt.sort_keys) {
        if (std::optional<std::string> text = GoNumber(n, /*yaml=*/false)) {
          out += *text;
        } else {
          AppendGoJsonString(n.text, true, out);  // not a JSON number
        }
      } else if (n.kind == NodeKind::kFloat && (n.text == "+Inf" || n.text == "-Inf" || n.text == "NaN")) {
        AppendGoJsonString(n.text, false, out);  // not representable as a JSON number
      } else if (n.kind == NodeKind::kFloat && !n.text.empty() && (n.text[0] == '+' || n.text[0] == '.')) {
        // YAML allows "+1.5" and ".5"; JSON does not.
        std::string_view t = n.text;
        if (t[0] == '+') t.remove_prefix(1);
        if (!t.empty() && t[0] == '.') out.push_back('0');
        out.append(t);
      } else {
        out += n.text;  // an int, or a float JSON reads as written
      }
      return;
    case NodeKind::kString: AppendGoJsonString(n.text, opt.sort_keys, out); return;
    case NodeKind::kSequence:
      if (n.items.empty()) {
        out += "[]";
        return;
      }
      out.push_back('[');
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i) out += item_separator;
        newline(level + 1);
        EmitJsonNode(n.items[i], indent, level + 1, opt, out);
      }
      newline(level);
      out.push_back(']');
      return;
    case NodeKind::kMapping: {
      if (n.items.empty()) {
        out += "{}";
        return;
      }
      out.push_back('{');
      bool first = true;
      for (size_t i : KeyOrder(n, /*yaml=*/false, opt.sort_keys)) {
        if (!first) out += item_separator;
        first = false;
        newline(level + 1);
        AppendGoJsonString(n.keys[i].first, opt.sort_keys, out);
        out += indent > 0 || opt.spaced_separators ? ": " : ":";
        EmitJsonNode(n.items[i], indent, level + 1, opt, out);
      }
      newline(level);
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

bool ReadsAsNonString(std::string_view s) {
  if (DigitWordReadsAsString(s)) return false;
  if (GoYamlResolvesNonString(s) || IsBase60Float(s)) return true;  // go-yaml: kubectl quotes these
  // YAML 1.1 (PyYAML) and 1.2: `=` (the value key; PyYAML has no
  // constructor for it), `<<` (merge key; go-yaml reads it as one too), and
  // numbers and timestamps go-yaml leaves plain: out of range (1.0e+400,
  // 0x followed by 17 digits), 2001-02-30, 2001-12-14 21:59:43.10 -5, 0b_.
  if (s == "=" || s == "<<") return true;
  if (s.empty()) return false;
  const char c = s[0];
  if (!IsDigit(c) && c != '+' && c != '-' && c != '.') return false;
  return IsYaml11Int(s) || IsYaml11Float(s) || IsYaml11Timestamp(s) || IsYaml12Int(s) || IsYamlStyleFloat(s);
}

bool IsPlainSafe(std::string_view s) {
  std::string storage;
  std::string_view v = ValidUtf8(s, storage);
  return v == s && SelectStyle(v, RequestedStyle(v), Analyze(v), false) == Style::kPlain;
}

std::string EmitYaml(const Node& root, const EmitOptions& options) {
  std::string out;
  YamlEmitter(out, options).Document(root);
  return out;
}

void AppendYaml(const Node& root, std::string& out, const EmitOptions& options) {
  YamlEmitter(out, options).Document(root);
}

std::string EmitYamlDocuments(const std::vector<Node>& roots, const EmitOptions& options) {
  std::string out;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i) out += "---\n";
    YamlEmitter(out, options).Document(roots[i]);
  }
  return out;
}

std::string EmitJson(const Node& root, int indent, const EmitOptions& options) {
  std::string out;
  EmitJsonNode(root, indent, 0, options, out);
  out.push_back('\n');
  return out;
}

}  // namespace dra::manifest
