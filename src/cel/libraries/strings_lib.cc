// ext.Strings (cel-go ext/strings.go): string manipulation in code points,
// plus format() in two flavours and strings.quote.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/strings.h"
#include "base/utf8.h"
#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"

namespace dra::cel {

namespace {

using namespace internal;  // NOLINT: library-local helpers

Value OutOfRange(int64_t index) { return Err("index out of range: " + std::to_string(index)); }

Value CharAt(std::span<const Value> a, CallContext&) {
  const std::vector<char32_t> runes = ToCodePoints(a[0].string_value());
  const int64_t i = a[1].int_value();
  if (i < 0 || static_cast<uint64_t>(i) > runes.size()) return OutOfRange(i);
  if (static_cast<uint64_t>(i) == runes.size()) return Value::StringView("");
  const auto pos = static_cast<size_t>(i);
  return Value::String(FromCodePoints(&runes[pos], &runes[pos] + 1));
}

bool MatchAt(const std::vector<char32_t>& s, const std::vector<char32_t>& sub, size_t at) {
  if (at + sub.size() > s.size()) return false;
  return std::equal(sub.begin(), sub.end(), s.begin() + static_cast<ptrdiff_t>(at));
}

Value IndexOfImpl(std::string_view str, std::string_view substr, int64_t offset) {
  if (substr.empty()) return Value::Int(offset);
  const std::vector<char32_t> runes = ToCodePoints(str);
  const std::vector<char32_t> sub = ToCodePoints(substr);
  if (offset < 0 || static_cast<uint64_t>(offset) >= runes.size()) return OutOfRange(offset);
  if (sub.size() > runes.size()) return Value::Int(-1);
  for (size_t i = static_cast<size_t>(offset); i + sub.size() <= runes.size(); ++i) {
    if (MatchAt(runes, sub, i)) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

Value IndexOf(std::span<const Value> a, CallContext&) {
  return IndexOfImpl(a[0].string_value(), a[1].string_value(), 0);
}
Value IndexOfOffset(std::span<const Value> a, CallContext&) {
  return IndexOfImpl(a[0].string_value(), a[1].string_value(), a[2].int_value());
}

Value LastIndexOfImpl(std::string_view str, std::string_view substr, int64_t offset) {
  if (substr.empty()) return Value::Int(offset);
  const std::vector<char32_t> runes = ToCodePoints(str);
  const std::vector<char32_t> sub = ToCodePoints(substr);
  if (offset < 0 || static_cast<uint64_t>(offset) >= runes.size()) return OutOfRange(offset);
  if (sub.size() > runes.size()) return Value::Int(-1);
  size_t start = static_cast<size_t>(offset);
  if (start > runes.size() - sub.size()) start = runes.size() - sub.size();
  for (size_t i = start + 1; i-- > 0;) {
    if (MatchAt(runes, sub, i)) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

Value LastIndexOf(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  const auto n = static_cast<int64_t>(CodePointCount(s));
  if (a[1].string_value().empty()) return Value::Int(n);
  if (n == 0) return Value::Int(-1);
  return LastIndexOfImpl(s, a[1].string_value(), n - 1);
}
Value LastIndexOfOffset(std::span<const Value> a, CallContext&) {
  return LastIndexOfImpl(a[0].string_value(), a[1].string_value(), a[2].int_value());
}

Value LowerAscii(std::span<const Value> a, CallContext&) {
  std::string s(a[0].string_value());
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return Value::String(std::move(s));
}
Value UpperAscii(std::span<const Value> a, CallContext&) {
  std::string s(a[0].string_value());
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return Value::String(std::move(s));
}

// Length in bytes of the UTF-8 sequence starting with `c`.
size_t SeqLen(unsigned char c) {
  if (c < 0x80) return 1;
  if (c < 0xE0) return 2;
  if (c < 0xF0) return 3;
  return 4;
}

// Go's strings.Replace: at most `n` replacements (all if n < 0); an empty
// `old` matches before every code point and at the end.
Value ReplaceImpl(std::string_view s, std::string_view old, std::string_view repl, int64_t n, CallContext& ctx) {
  if (n == 0) return Value::String(std::string(s));
  // Count matches first so the result size is known before building it.
  std::vector<size_t> at;
  if (old.empty()) {
    for (size_t i = 0; i <= s.size();) {
      if (n >= 0 && static_cast<int64_t>(at.size()) >= n) break;
      at.push_back(i);
      if (i == s.size()) break;
      i += SeqLen(static_cast<unsigned char>(s[i]));
    }
  } else {
    for (size_t i = s.find(old); i != std::string_view::npos; i = s.find(old, i + old.size())) {
      if (n >= 0 && static_cast<int64_t>(at.size()) >= n) break;
      at.push_back(i);
    }
  }
  if (at.empty()) return Value::String(std::string(s));
  const uint64_t size = s.size() + at.size() * repl.size() - at.size() * old.size();
  if (!ctx.CheckAllocation(size)) return Err("allocation limit exceeded");
  std::string out;
  out.reserve(static_cast<size_t>(size));
  size_t prev = 0;
  for (size_t pos : at) {
    out.append(s.substr(prev, pos - prev));
    out.append(repl);
    prev = pos + old.size();
  }
  out.append(s.substr(prev));
  return Value::String(std::move(out));
}

Value Replace(std::span<const Value> a, CallContext& ctx) {
  return ReplaceImpl(a[0].string_value(), a[1].string_value(), a[2].string_value(), -1, ctx);
}
Value ReplaceN(std::span<const Value> a, CallContext& ctx) {
  return ReplaceImpl(a[0].string_value(), a[1].string_value(), a[2].string_value(), a[3].int_value(), ctx);
}

// Go's strings.SplitN (n < 0: all; n == 0: none; else at most n parts). An
// empty separator splits into code points.
Value SplitImpl(std::string_view s, std::string_view sep, int64_t n, CallContext& ctx) {
  std::vector<Value> parts;
  if (n == 0) return Value::List(std::move(parts));
  if (!ctx.CheckAllocation(16 * (s.size() + 1) + s.size())) return Err("allocation limit exceeded");
  if (sep.empty()) {
    size_t i = 0;
    while (i < s.size()) {
      if (n > 0 && static_cast<int64_t>(parts.size()) == n - 1) {
        parts.push_back(Value::String(std::string(s.substr(i))));
        return Value::List(std::move(parts));
      }
      const size_t len = SeqLen(static_cast<unsigned char>(s[i]));
      parts.push_back(Value::String(std::string(s.substr(i, len))));
      i += len;
    }
    return Value::List(std::move(parts));
  }
  size_t start = 0;
  while (true) {
    if (n > 0 && static_cast<int64_t>(parts.size()) == n - 1) break;
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) break;
    parts.push_back(Value::String(std::string(s.substr(start, pos - start))));
    start = pos + sep.size();
  }
  parts.push_back(Value::String(std::string(s.substr(start))));
  return Value::List(std::move(parts));
}

Value Split(std::span<const Value> a, CallContext& ctx) {
  return SplitImpl(a[0].string_value(), a[1].string_value(), -1, ctx);
}
Value SplitN(std::span<const Value> a, CallContext& ctx) {
  return SplitImpl(a[0].string_value(), a[1].string_value(), a[2].int_value(), ctx);
}

Value Substring(std::span<const Value> a, CallContext&) {
  const std::vector<char32_t> runes = ToCodePoints(a[0].string_value());
  const int64_t start = a[1].int_value();
  if (start < 0 || static_cast<uint64_t>(start) > runes.size()) return OutOfRange(start);
  return Value::String(FromCodePoints(runes.data() + start, runes.data() + runes.size()));
}
Value SubstringRange(std::span<const Value> a, CallContext&) {
  const std::vector<char32_t> runes = ToCodePoints(a[0].string_value());
  const int64_t start = a[1].int_value();
  const int64_t end = a[2].int_value();
  if (start > end) {
    return Err("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(end));
  }
  if (start < 0 || static_cast<uint64_t>(start) > runes.size()) return OutOfRange(start);
  if (end < 0 || static_cast<uint64_t>(end) > runes.size()) return OutOfRange(end);
  return Value::String(FromCodePoints(runes.data() + start, runes.data() + end));
}

// Unicode White_Space, as Go's unicode.IsSpace.
bool IsSpace(char32_t c) {
  switch (c) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000: return true;
    default: return c >= 0x2000 && c <= 0x200A;
  }
}

Value Trim(std::span<const Value> a, CallContext&) {
  const std::vector<char32_t> runes = ToCodePoints(a[0].string_value());
  size_t b = 0, e = runes.size();
  while (b < e && IsSpace(runes[b])) ++b;
  while (e > b && IsSpace(runes[e - 1])) --e;
  return Value::String(FromCodePoints(runes.data() + b, runes.data() + e));
}

Value JoinImpl(const ListObject& list, std::string_view sep, CallContext& ctx) {
  uint64_t size = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    Value v = list.Get(i);
    if (!v.is_string()) {
      return Err("join: list element " + std::to_string(i) + " is " + std::string(v.TypeName()) + ", not string");
    }
    size += v.string_value().size() + sep.size();
  }
  if (!ctx.CheckAllocation(size)) return Err("allocation limit exceeded");
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out.append(sep);
    out.append(list.Get(i).string_value());
  }
  return Value::String(std::move(out));
}
Value Join(std::span<const Value> a, CallContext& ctx) { return JoinImpl(a[0].list(), "", ctx); }
Value JoinSep(std::span<const Value> a, CallContext& ctx) { return JoinImpl(a[0].list(), a[1].string_value(), ctx); }

Value Quote(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out.push_back(c);
    }
  }
  out.push_back('"');
  return Value::String(std::move(out));
}

Value Reverse(std::span<const Value> a, CallContext&) {
  std::vector<char32_t> runes = ToCodePoints(a[0].string_value());
  std::reverse(runes.begin(), runes.end());
  return Value::String(FromCodePoints(runes.data(), runes.data() + runes.size()));
}

// --- format() ------------------------------------------------------------------

std::string NonFinite(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "Infinity" : "-Infinity";
}

std::string Printf(const char* spec, int precision, double d) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof(buf), spec, precision, d);
  if (n < 0) return {};
  if (static_cast<size_t>(n) < sizeof(buf)) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec, precision, d);
  big.resize(static_cast<size_t>(n));
  return big;
}

std::string IntInBase(const Value& v, int base, bool upper) {
  if (v.is_uint()) return UintToBase(v.uint_value(), base, upper);
  return IntToBase(v.int_value(), base, upper);
}

struct Formatter {
  FormatFlavor flavor;

  // %s of any value; `nested` inside a list or map.
  bool FormatString(const Value& v, bool nested, std::string& out, std::string& error) const {
    switch (v.kind()) {
      case ValueKind::kNull: out += "null"; return true;
      case ValueKind::kBool: out += v.bool_value() ? "true" : "false"; return true;
      case ValueKind::kInt: out += std::to_string(v.int_value()); return true;
      case ValueKind::kUint: out += std::to_string(v.uint_value()); return true;
      case ValueKind::kDouble: {
        const double d = v.double_value();
        if (!std::isfinite(d)) {
          if (flavor == FormatFlavor::kLegacy) {
            // Legacy: a top-level double goes through string(double) ("+Inf");
            // inside a list or map it is quoted.
            out += nested ? "\"" + NonFinite(d) + "\"" : FormatDoubleCel(d);
          } else {
            out += NonFinite(d);
          }
        } else if (flavor == FormatFlavor::kLegacy) {
          out += nested ? Printf("%.*f", 6, d) : FormatDoubleCel(d);
        } else {
          out += FormatDoubleCel(d);
        }
        return true;
      }
      case ValueKind::kString:
        if (flavor == FormatFlavor::kLegacy && nested) {
          out += Value::StringView(v.string_value()).DebugString();
        } else {
          out += v.string_value();
        }
        return true;
      case ValueKind::kBytes:
        if (flavor == FormatFlavor::kLegacy && nested) {
          out += Value::BytesView(v.bytes_value()).DebugString();
        } else {
          out += v.bytes_value();
        }
        return true;
      case ValueKind::kType: out += v.type_name_value(); return true;
      case ValueKind::kList: {
        out.push_back('[');
        const ListObject& l = v.list();
        for (size_t i = 0; i < l.size(); ++i) {
          if (i > 0) out += ", ";
          if (!FormatString(l.Get(i), true, out, error)) return false;
        }
        out.push_back(']');
        return true;
      }
      case ValueKind::kMap: {
        const MapObject& m = v.map();
        std::vector<std::pair<std::string, std::string>> entries;
        for (size_t i = 0; i < m.size(); ++i) {
          std::string k, val;
          if (!FormatString(m.KeyAt(i), true, k, error)) return false;
          if (!FormatString(m.ValueAt(i), true, val, error)) return false;
          entries.emplace_back(std::move(k), std::move(val));
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        out.push_back('{');
        for (size_t i = 0; i < entries.size(); ++i) {
          if (i > 0) out += ", ";
          out += entries[i].first;
          out += flavor == FormatFlavor::kLegacy ? ":" : ": ";
          out += entries[i].second;
        }
        out.push_back('}');
        return true;
      }
      default:
        error =
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
            "lists, types, durations, and timestamps, was given " +
            std::string(v.TypeName());
        return false;
    }
  }

  bool FormatClause(char verb, int precision, const Value& v, std::string& out, std::string& error) const {
    const std::string type(v.TypeName());
    switch (verb) {
      case 's': return FormatString(v, false, out, error);
      case 'd':
        if (v.is_int() || v.is_uint()) {
          out += v.is_int() ? std::to_string(v.int_value()) : std::to_string(v.uint_value());
          return true;
        }
        if (v.is_double() && !std::isfinite(v.double_value()) && flavor == FormatFlavor::kCurrent) {
          out += NonFinite(v.double_value());
          return true;
        }
        error = "decimal clause can only be used on integers, was given " + type;
        return false;
      case 'f':
      case 'e': {
        double d;
        if (v.is_double()) {
          d = v.double_value();
        } else if (flavor == FormatFlavor::kCurrent && v.is_int()) {
          d = static_cast<double>(v.int_value());
        } else if (flavor == FormatFlavor::kCurrent && v.is_uint()) {
          d = static_cast<double>(v.uint_value());
        } else if (flavor == FormatFlavor::kLegacy && v.is_string() &&
                   (v.string_value() == "NaN" || v.string_value() == "Infinity" || v.string_value() == "-Infinity")) {
          out += v.string_value();
          return true;
        } else {
          error = verb == 'f' ? "fixed-point clause can only be used on doubles, was given " + type
                              : "scientific clause can only be used on doubles, was given " + type;
          return false;
        }
        if (!std::isfinite(d)) {
          out += NonFinite(d);
          return true;
        }
        out += Printf(verb == 'f' ? "%.*f" : "%.*e", precision < 0 ? 6 : precision, d);
        return true;
      }
      case 'b':
        if (v.is_int() || v.is_uint()) {
          out += IntInBase(v, 2, false);
          return true;
        }
        if (v.is_bool()) {
          out += v.bool_value() ? "1" : "0";
          return true;
        }
        error = "only integers and bools can be formatted as binary, was given " + type;
        return false;
      case 'o':
        if (v.is_int() || v.is_uint()) {
          out += IntInBase(v, 8, false);
          return true;
        }
        error = "octal clause can only be used on integers, was given " + type;
        return false;
      case 'x':
      case 'X': {
        const bool upper = verb == 'X';
        if (v.is_int() || v.is_uint()) {
          out += IntInBase(v, 16, upper);
          return true;
        }
        if (v.is_string() || v.is_bytes()) {
          const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
          for (char c : v.string_value()) {
            const auto b = static_cast<unsigned char>(c);
            out.push_back(digits[b >> 4]);
            out.push_back(digits[b & 15]);
          }
          return true;
        }
        error = "only integers, byte buffers, and strings can be formatted as hex, was given " + type;
        return false;
      }
      default: break;
    }
    error = "unrecognized formatting clause";
    return false;
  }

  Value Format(std::string_view fmt, const ListObject& args, CallContext& ctx) const {
    std::string out;
    size_t arg_index = 0;
    for (size_t i = 0; i < fmt.size(); ++i) {
      const char c = fmt[i];
      if (c != '%') {
        out.push_back(c);
        continue;
      }
      if (i + 1 >= fmt.size()) {
        return Err("could not parse formatting clause: unterminated formatting clause");
      }
      if (fmt[i + 1] == '%') {
        out.push_back('%');
        ++i;
        continue;
      }
      size_t j = i + 1;
      int precision = -1;
      if (fmt[j] == '.') {
        ++j;
        precision = 0;
        size_t digits = 0;
        while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9' && digits < 4) {
          precision = precision * 10 + (fmt[j] - '0');
          ++j;
          ++digits;
        }
        if (j >= fmt.size()) {
          return Err("could not parse formatting clause: unterminated formatting clause");
        }
      }
      const char verb = fmt[j];
      if (std::string_view("sdfeboxX").find(verb) == std::string_view::npos) {
        return Err("could not parse formatting clause: unrecognized formatting clause \"" + std::string(1, verb) +
                   "\"");
      }
      if (arg_index >= args.size()) {
        return Err("index " + std::to_string(arg_index) + " out of range");
      }
      std::string error;
      if (!FormatClause(verb, precision, args.Get(arg_index), out, error)) {
        return Err("error during formatting: " + error);
      }
      ++arg_index;
      i = j;
      if (!ctx.CheckAllocation(0)) return Err("allocation limit exceeded");
    }
    if (!ctx.CheckAllocation(out.size())) return Err("allocation limit exceeded");
    return Value::String(std::move(out));
  }
};

Value FormatCurrent(std::span<const Value> a, CallContext& ctx) {
  return Formatter{FormatFlavor::kCurrent}.Format(a[0].string_value(), a[1].list(), ctx);
}
Value FormatLegacy(std::span<const Value> a, CallContext& ctx) {
  return Formatter{FormatFlavor::kLegacy}.Format(a[0].string_value(), a[1].list(), ctx);
}

uint64_t TenthCost(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]), 0.1); }
uint64_t FifthCost(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]), 0.2); }
uint64_t JoinCost(std::span<const Value>, const Value& result) {
  return result.is_string() ? CeilFactor(CostSize(result), 0.2) : 1;
}

}  // namespace

Status RegisterStringsLibrary(FunctionRegistry& r, int version, FormatFlavor flavor) {
  const Param s = P(kStringK);
  const Param i = P(kIntK);
  DRA_RETURN_IF_ERROR(Add(r, "string_char_at_int", "charAt", true, {s, i}, CharAt));
  DRA_RETURN_IF_ERROR(Add(r, "string_index_of_string", "indexOf", true, {s, s}, IndexOf));
  DRA_RETURN_IF_ERROR(Add(r, "string_index_of_string_int", "indexOf", true, {s, s, i}, IndexOfOffset));
  DRA_RETURN_IF_ERROR(Add(r, "string_last_index_of_string", "lastIndexOf", true, {s, s}, LastIndexOf));
  DRA_RETURN_IF_ERROR(Add(r, "string_last_index_of_string_int", "lastIndexOf", true, {s, s, i}, LastIndexOfOffset));
  DRA_RETURN_IF_ERROR(Add(r, "string_lower_ascii", "lowerAscii", true, {s}, LowerAscii, TenthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_upper_ascii", "upperAscii", true, {s}, UpperAscii, TenthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_replace_string_string", "replace", true, {s, s, s}, Replace, FifthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_replace_string_string_int", "replace", true, {s, s, s, i}, ReplaceN, FifthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_split_string", "split", true, {s, s}, Split, FifthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_split_string_int", "split", true, {s, s, i}, SplitN, FifthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_substring_int", "substring", true, {s, i}, Substring, TenthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_substring_int_int", "substring", true, {s, i, i}, SubstringRange, TenthCost));
  DRA_RETURN_IF_ERROR(Add(r, "string_trim", "trim", true, {s}, Trim, TenthCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_join", "join", true, {P(kListK)}, Join, JoinCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_join_string", "join", true, {P(kListK), s}, JoinSep, JoinCost));
  if (version >= 1 && flavor != FormatFlavor::kExternal) {
    DRA_RETURN_IF_ERROR(Add(r, "string_format", "format", true, {s, P(kListK)},
                            flavor == FormatFlavor::kLegacy ? FormatLegacy : FormatCurrent, TenthCost));
  }
  if (version >= 1) {
    DRA_RETURN_IF_ERROR(Add(r, "strings_quote", "strings.quote", false, {s}, Quote, TenthCost));
  }
  if (version >= 3) {
    DRA_RETURN_IF_ERROR(Add(r, "string_reverse", "reverse", true, {s}, Reverse, TenthCost));
  }
  return OkStatus();
}

}  // namespace dra::cel
