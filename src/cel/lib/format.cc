// cel-go's legacy string formatter (ext/formatting.go: parseFormatString,
// stringFormatter, clauseForType, formatList/formatMap, quoteForCEL) with the
// en_US number rendering of golang.org/x/text/message for %f and %e
// (internal/number: ConvertFloat, decimalVisibleDigits, appendDecimal,
// scientificVisibleDigits, appendScientific), which is where Kubernetes'
// format() differs most from cel-spec.
#include "cel/lib/format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "base/strings.h"
#include "cel/lib/internal/go_strconv.h"

namespace dra::cel::lib {
namespace {

using internal::DigitsMode;
using internal::FloatDigits;
using internal::GoFloatDigits;
using internal::GoQuote;

constexpr int kDefaultPrecision = 6;

template <typename T>
const T* Get(const FormatArg& a) {
  return std::get_if<T>(&a.value);
}

// "%!(NOVERB)" marker for a precision x/text's format parser gives up on.
constexpr std::string_view kNoVerb = "%!(NOVERB)";

// x/text's parsenum stops with "too large" when the accumulated number is
// above 1e6 and another digit follows.
bool PrecisionTooLargeForXText(int64_t prec) {
  std::string digits = std::to_string(prec);
  int64_t num = 0;
  for (char c : digits) {
    if (num > 1000000) return true;
    num = num * 10 + (c - '0');
  }
  return false;
}

// ---------------------------------------------------------------------------
// golang.org/x/text number rendering for the en / en-US locale: decimal
// point '.', group ',' every 3 integer digits, minus '-', NaN "NaN",
// infinity "∞", scientific exponent "×10" with superscript digits.

constexpr std::string_view kInfinity = "\u221E";
constexpr std::string_view kNarrowNoBreakSpace = "\u202F";
constexpr std::string_view kTimes = "\u00D7";
constexpr std::string_view kSuperMinus = "\u207B";
constexpr std::string_view kSuperDigits[10] = {"\u2070", "\u00B9", "\u00B2", "\u00B3", "\u2074",
                                               "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};

// Pattern "#,##0.###": primary and secondary grouping 3.
bool NeedsGroupSeparator(int pos) {
  int p = pos - 1;
  if (p == 0) return false;
  if (p == 3) return true;
  p -= 3;
  return p >= 0 && p % 3 == 0;
}

// message.Printer.Sprintf("%.<prec>f", v) for language en-US.
std::string XTextFixed(double v, int64_t prec) {
  if (PrecisionTooLargeForXText(prec)) return std::string(kNoVerb);
  if (std::isnan(v)) return "NaN";
  const bool neg = v < 0;
  if (std::isinf(v)) return (neg ? "-" : "") + std::string(kInfinity);
  // initDecimal(prec, prec) stores the precision in narrow fields.
  const int max_frac = static_cast<int16_t>(static_cast<uint16_t>(prec & 0xFFFF));
  const int min_frac = static_cast<uint8_t>(prec & 0xFF);

  // ConvertFloat: strconv's 'f' digits for a non-negative fraction limit
  // (RoundFractionDigits), otherwise the shortest digits.
  FloatDigits fd =
      max_frac >= 0 ? GoFloatDigits(v, DigitsMode::kFixed, max_frac) : GoFloatDigits(v, DigitsMode::kShortest, 0);
  const std::string& digits = fd.digits;
  int exp = fd.point;

  // decimalVisibleDigits. Its rounding to max_frac fraction digits is a
  // no-op here: strconv already rounded there, or there is no limit.
  int end = static_cast<int>(digits.size());
  if (end == 0) {
    exp = 0;
    if (min_frac > 0) end = min_frac;
  } else if (exp + min_frac > end) {
    end = exp + min_frac;
  }

  // appendDecimal.
  std::string out = neg ? "-" : "";
  const int num_frac = end - exp;
  int num_int = 0;
  std::string_view int_digits, frac_digits;
  if (exp > 0) {
    num_int = exp;
    if (exp >= static_cast<int>(digits.size())) {
      int_digits = digits;
    } else {
      int_digits = std::string_view(digits).substr(0, static_cast<size_t>(exp));
      frac_digits = std::string_view(digits).substr(static_cast<size_t>(exp));
    }
  } else {
    frac_digits = digits;
  }
  if (num_int == 0) out.push_back('0');  // MinIntegerDigits = 1
  int i = 0;
  for (; i < static_cast<int>(int_digits.size()); ++i) {
    out.push_back(int_digits[static_cast<size_t>(i)]);
    if (NeedsGroupSeparator(num_int - i)) out.push_back(',');
  }
  for (; i < num_int; ++i) {
    out.push_back('0');
    if (NeedsGroupSeparator(num_int - i)) out.push_back(',');
  }
  if (num_frac > 0) out.push_back('.');
  int written = 0;
  for (; written < -exp; ++written) out.push_back('0');
  for (char c : frac_digits) {
    out.push_back(c);
    ++written;
  }
  for (; written < num_frac; ++written) out.push_back('0');
  return out;
}

// message.Printer.Sprintf("%<width>e", v) for language en-US. cel-go's legacy
// Scientific clause builds "%<precision>e", so the clause's precision is a
// minimum width (in runes, padded with spaces on the left) and the fraction
// always has x/text's default of 6 digits. Width 0 reads as the '0' flag.
std::string XTextScientific(double v, int64_t width) {
  if (PrecisionTooLargeForXText(width)) return std::string(kNoVerb);
  std::string out;
  if (std::isnan(v)) {
    out = "NaN";
  } else if (std::isinf(v)) {
    out = (v < 0 ? "-" : "") + std::string(kInfinity);
  } else {
    // initScientific(6, 6): seven significant digits, six after the point,
    // so ConvertFloat asks strconv for 'g' with precision 7.
    constexpr int kFrac = 6;
    FloatDigits fd = GoFloatDigits(v, DigitsMode::kSignificant, kFrac + 1);
    std::string digits = fd.digits;
    int exp = fd.point;
    // scientificVisibleDigits: at least one digit; one integer digit.
    if (digits.empty()) {
      digits = "0";
      exp = 1;
    }
    if (v < 0) out.push_back('-');
    out.push_back(digits[0]);
    out.push_back('.');
    out.append(digits, 1);
    out.append(static_cast<size_t>(kFrac + 1) - digits.size(), '0');
    int e = exp - 1;
    out += kNarrowNoBreakSpace;
    out += kTimes;
    out += kNarrowNoBreakSpace;
    out += "10";
    if (e < 0) {
      out += kSuperMinus;
      e = -e;
    }
    std::string e_digits = std::to_string(e);
    for (size_t k = e_digits.size(); k < 2; ++k) out += kSuperDigits[0];
    for (char c : e_digits) out += kSuperDigits[c - '0'];
  }
  int64_t runes = 0;
  for (char c : out) {
    if ((static_cast<uint8_t>(c) & 0xC0) != 0x80) ++runes;
  }
  if (width > runes) out.insert(0, static_cast<size_t>(width - runes), ' ');
  return out;
}

// ---------------------------------------------------------------------------
// Go fmt integer verbs.

std::string HexOfBytes(std::string_view s, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  out.reserve(2 * s.size());
  for (char c : s) {
    uint8_t b = static_cast<uint8_t>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0xF]);
  }
  return out;
}

// ---------------------------------------------------------------------------
// %s and the list/map rendering.

Status FormattingError(std::string message) { return InvalidArgumentError(std::move(message)); }

Status StringClauseError(const FormatArg& a) {
  return FormattingError(
      "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
      "types, durations, and timestamps, was given " +
      a.TypeName());
}

StatusOr<std::string> RenderList(const FormatList& list);
StatusOr<std::string> RenderMap(const FormatMap& map);

// Bytes -> string conversion as CEL's string(bytes): must be valid UTF-8.
StatusOr<std::string> BytesAsString(const std::string& data) {
  for (size_t i = 0; i < data.size();) {
    internal::DecodedRune r = internal::DecodeRune(data, i);
    if (!r.valid) {
      return FormattingError("could not convert argument " +
                             GoQuote("invalid UTF-8 in bytes, cannot convert to string") + " to string");
    }
    i += r.width;
  }
  return data;
}

// FormatString: the %s clause.
StatusOr<std::string> FormatAsString(const FormatArg& a) {
  if (const auto* v = Get<FormatList>(a)) return RenderList(*v);
  if (const auto* v = Get<FormatMap>(a)) return RenderMap(*v);
  if (const auto* v = Get<int64_t>(a)) return std::to_string(*v);
  if (const auto* v = Get<uint64_t>(a)) return std::to_string(*v);
  if (const auto* v = Get<double>(a)) return internal::GoFormatFloatShortest(*v);
  if (const auto* v = Get<bool>(a)) return std::string(*v ? "true" : "false");
  if (const auto* v = Get<std::string>(a)) return *v;
  if (const auto* v = Get<FormatTimestamp>(a)) return v->text;
  if (const auto* v = Get<FormatBytes>(a)) return BytesAsString(v->data);
  if (const auto* v = Get<FormatDuration>(a)) return v->text;
  if (const auto* v = Get<FormatType>(a)) return v->name;
  if (Get<FormatNull>(a)) return std::string("null");
  return StringClauseError(a);
}

StatusOr<std::string> FormatDecimal(const FormatArg& a) {
  if (const auto* v = Get<int64_t>(a)) return std::to_string(*v);
  if (const auto* v = Get<uint64_t>(a)) return std::to_string(*v);
  return FormattingError("decimal clause can only be used on integers, was given " + a.TypeName());
}

// clauseForType + quoteForCEL: how one element of a list or map renders.
StatusOr<std::string> FormatElement(const FormatArg& a) {
  if (Get<int64_t>(a) || Get<uint64_t>(a)) return FormatDecimal(a);
  if (const auto* v = Get<std::string>(a)) return GoQuote(*v);
  if (const auto* v = Get<FormatBytes>(a)) {
    DRA_ASSIGN_OR_RETURN(std::string text, BytesAsString(v->data));
    return "b" + GoQuote(text);
  }
  if (Get<bool>(a) || Get<FormatNull>(a) || Get<FormatType>(a)) return FormatAsString(a);
  if (const auto* v = Get<FormatTimestamp>(a)) return "timestamp(" + GoQuote(v->text) + ")";
  if (const auto* v = Get<FormatDuration>(a)) return "duration(" + GoQuote(v->text) + ")";
  if (const auto* v = Get<FormatList>(a)) return RenderList(*v);
  if (const auto* v = Get<FormatMap>(a)) return RenderMap(*v);
  if (const auto* v = Get<double>(a)) {
    // fmt's %.6f, so always a '.' decimal point; non-finite values are quoted.
    std::string text = internal::GoFormatFloatFixed(*v, kDefaultPrecision);
    return std::isfinite(*v) ? text : GoQuote(text);
  }
  return FormattingError("no formatting function for " + a.TypeName());
}

StatusOr<std::string> RenderList(const FormatList& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.elements.size(); ++i) {
    DRA_ASSIGN_OR_RETURN(std::string s, FormatElement(list.elements[i]));
    out += s;
    if (i + 1 < list.elements.size()) out += ", ";
  }
  out += "]";
  return out;
}

StatusOr<std::string> RenderMap(const FormatMap& map) {
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(map.entries.size());
  for (const FormatMapEntry& e : map.entries) {
    std::string key;
    if (const auto* s = Get<std::string>(e.key)) {
      key = GoQuote(*s);
    } else if (const auto* b = Get<bool>(e.key)) {
      key = *b ? "true" : "false";
    } else if (Get<int64_t>(e.key) || Get<uint64_t>(e.key)) {
      DRA_ASSIGN_OR_RETURN(key, FormatDecimal(e.key));
    } else {
      return FormattingError("no formatting function for map key of type " + e.key.TypeName());
    }
    DRA_ASSIGN_OR_RETURN(std::string value, FormatElement(e.value));
    pairs.emplace_back(std::move(key), std::move(value));
  }
  // Sorted by the rendered key, bytewise, like Go's string <.
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    out += pairs[i].first + ":" + pairs[i].second;
    if (i + 1 < pairs.size()) out += ", ";
  }
  out += "}";
  return out;
}

// The value %f and %e accept: a double, or one of the three strings that
// name non-finite values.
std::optional<double> FloatClauseArg(const FormatArg& a) {
  if (const auto* v = Get<double>(a)) return *v;
  if (const auto* s = Get<std::string>(a)) {
    if (*s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (*s == "Infinity") return std::numeric_limits<double>::infinity();
    if (*s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

// One clause after the '%' (and an optional precision): the verb and how
// much of the format string it took.
StatusOr<std::string> ApplyVerb(char verb, std::optional<int64_t> precision, const FormatArg& a) {
  switch (verb) {
    case 's': return FormatAsString(a);
    case 'd': return FormatDecimal(a);
    case 'f': {
      std::optional<double> v = FloatClauseArg(a);
      if (!v) {
        return FormattingError("fixed-point clause can only be used on doubles, was given " + a.TypeName());
      }
      return XTextFixed(*v, precision.value_or(kDefaultPrecision));
    }
    case 'e': {
      std::optional<double> v = FloatClauseArg(a);
      if (!v) {
        return FormattingError("scientific clause can only be used on doubles, was given " + a.TypeName());
      }
      return XTextScientific(*v, precision.value_or(kDefaultPrecision));
    }
    case 'b':
      if (const auto* v = Get<int64_t>(a)) return IntToBase(*v, 2, false);
      if (const auto* v = Get<uint64_t>(a)) return UintToBase(*v, 2, false);
      if (const auto* v = Get<bool>(a)) return std::string(*v ? "1" : "0");
      return FormattingError("only integers and bools can be formatted as binary, was given " + a.TypeName());
    case 'x':
    case 'X': {
      bool upper = verb == 'X';
      if (const auto* v = Get<std::string>(a)) return HexOfBytes(*v, upper);
      if (const auto* v = Get<FormatBytes>(a)) return HexOfBytes(v->data, upper);
      if (const auto* v = Get<int64_t>(a)) return IntToBase(*v, 16, upper);
      if (const auto* v = Get<uint64_t>(a)) return UintToBase(*v, 16, upper);
      return FormattingError("only integers, byte buffers, and strings can be formatted as hex, was given " +
                             a.TypeName());
    }
    case 'o':
      if (const auto* v = Get<int64_t>(a)) return IntToBase(*v, 8, false);
      if (const auto* v = Get<uint64_t>(a)) return UintToBase(*v, 8, false);
      return FormattingError("octal clause can only be used on integers, was given " + a.TypeName());
    default: break;
  }
  // Unreachable: the parser only passes the verbs above.
  return InternalError("unexpected verb");
}

// parsePrecision + the verb lookup of parseFormattingClause, on the text after
// '%'. Returns the verb, the precision if any, and the length consumed.
struct Clause {
  char verb;
  std::optional<int64_t> precision;
  size_t length;
};

StatusOr<Clause> ParseClause(std::string_view s) {
  auto parse_error = [](std::string_view msg) {
    return InvalidArgumentError("could not parse formatting clause: " + std::string(msg));
  };
  Clause clause{0, std::nullopt, 0};
  size_t i = 0;
  if (s[0] == '.') {
    i = 1;
    size_t start = i;
    while (true) {
      if (i >= s.size()) {
        return parse_error("error while parsing precision: could not find end of precision specifier");
      }
      if (s[i] < '0' || s[i] > '9') break;
      ++i;
    }
    std::string_view digits = s.substr(start, i - start);
    // strconv.Atoi on the digits (a Go int is 64-bit).
    std::string error;
    std::optional<uint64_t> v = internal::GoParseUint64(digits, error);
    if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      std::string why = digits.empty() ? "invalid syntax" : "value out of range";
      return parse_error(
          "error while parsing precision: error while converting precision to "
          "integer: strconv.Atoi: parsing " +
          GoQuote(digits) + ": " + why);
    }
    clause.precision = static_cast<int64_t>(*v);
  }
  char verb = s[i];
  switch (verb) {
    case 's':
    case 'd':
    case 'f':
    case 'e':
    case 'b':
    case 'x':
    case 'X':
    case 'o':
      clause.verb = verb;
      clause.length = i + 1;
      return clause;
    default: {
      // Go reads one byte and prints it with %c, i.e. as the code point of
      // that byte value.
      std::string shown;
      internal::AppendRune(static_cast<uint8_t>(verb), shown);
      return parse_error("unrecognized formatting clause \"" + shown + "\"");
    }
  }
}

}  // namespace

FormatArg FormatArg::Null() { return {Value(std::in_place_type<FormatNull>)}; }
FormatArg FormatArg::Bool(bool v) { return {Value(std::in_place_type<bool>, v)}; }
FormatArg FormatArg::Int(int64_t v) { return {Value(std::in_place_type<int64_t>, v)}; }
FormatArg FormatArg::Uint(uint64_t v) { return {Value(std::in_place_type<uint64_t>, v)}; }
FormatArg FormatArg::Double(double v) { return {Value(std::in_place_type<double>, v)}; }
FormatArg FormatArg::String(std::string v) { return {Value(std::in_place_type<std::string>, std::move(v))}; }
FormatArg FormatArg::Bytes(std::string v) {
  return {Value(std::in_place_type<FormatBytes>, FormatBytes{std::move(v)})};
}
FormatArg FormatArg::Timestamp(std::string text) {
  return {Value(std::in_place_type<FormatTimestamp>, FormatTimestamp{std::move(text)})};
}
FormatArg FormatArg::Duration(std::string text) {
  return {Value(std::in_place_type<FormatDuration>, FormatDuration{std::move(text)})};
}
FormatArg FormatArg::Type(std::string name) {
  return {Value(std::in_place_type<FormatType>, FormatType{std::move(name)})};
}
FormatArg FormatArg::Other(std::string type_name) {
  return {Value(std::in_place_type<FormatOther>, FormatOther{std::move(type_name)})};
}
FormatArg FormatArg::List(std::vector<FormatArg> elements) {
  return {Value(std::in_place_type<FormatList>, FormatList{std::move(elements)})};
}
FormatArg FormatArg::Map(std::vector<FormatMapEntry> entries) {
  return {Value(std::in_place_type<FormatMap>, FormatMap{std::move(entries)})};
}

std::string FormatArg::TypeName() const {
  struct Namer {
    std::string operator()(const FormatNull&) const { return "null_type"; }
    std::string operator()(bool) const { return "bool"; }
    std::string operator()(int64_t) const { return "int"; }
    std::string operator()(uint64_t) const { return "uint"; }
    std::string operator()(double) const { return "double"; }
    std::string operator()(const std::string&) const { return "string"; }
    std::string operator()(const FormatBytes&) const { return "bytes"; }
    std::string operator()(const FormatTimestamp&) const { return "google.protobuf.Timestamp"; }
    std::string operator()(const FormatDuration&) const { return "google.protobuf.Duration"; }
    std::string operator()(const FormatType&) const { return "type"; }
    std::string operator()(const FormatList&) const { return "list"; }
    std::string operator()(const FormatMap&) const { return "map"; }
    std::string operator()(const FormatOther& o) const { return o.type_name; }
  };
  return std::visit(Namer{}, value);
}

namespace {

// parseFormatString's loop over the format string. `apply` renders (or checks)
// one clause for argument `index` and returns a Status whose message follows
// "error during formatting: " on failure. Upstream fetches the argument before
// looking at the clause; the run-time argument list rejects a missing index
// right then, the compile-time checker only after the end-of-string check, so
// `fetch_checks_range` picks which comes first.
template <typename Apply>
StatusOr<std::string> RunFormat(std::string_view format, size_t num_args, bool fetch_checks_range, Apply apply) {
  std::string out;
  size_t arg_index = 0;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out.push_back(format[i++]);
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    auto out_of_range = [&] { return InvalidArgumentError("index " + std::to_string(arg_index) + " out of range"); };
    if (fetch_checks_range && arg_index >= num_args) return out_of_range();
    if (i + 1 >= format.size()) return InvalidArgumentError("unexpected end of string");
    if (arg_index >= num_args) return out_of_range();
    DRA_ASSIGN_OR_RETURN(Clause clause, ParseClause(format.substr(i + 1)));
    StatusOr<std::string> text = apply(clause, arg_index);
    if (!text.ok()) {
      return InvalidArgumentError("error during formatting: " + text.status().message());
    }
    out += *text;
    i += 1 + clause.length;
    ++arg_index;
  }
  return out;
}

bool AcceptsType(const FormatArgType& t, std::initializer_list<std::string_view> names) {
  if (t.type_name == "dyn") return true;
  return std::find(names.begin(), names.end(), t.type_name) != names.end();
}

// stringFormatChecker.verifyString: the element's type, and for list and map
// literals every nested element. On failure sets `path` to the offender.
bool CheckStringClause(const FormatArgType& t, std::vector<size_t>& path) {
  if (!AcceptsType(t, {"list", "map", "int", "uint", "double", "bool", "string", "google.protobuf.Timestamp", "bytes",
                       "google.protobuf.Duration", "type", "null_type"})) {
    return false;
  }
  for (size_t k = 0; k < t.literal_elements.size(); ++k) {
    path.push_back(k);
    if (!CheckStringClause(t.literal_elements[k], path)) return false;
    path.pop_back();
  }
  return true;
}

}  // namespace

StatusOr<std::string> FormatString(std::string_view format, std::span<const FormatArg> args) {
  return RunFormat(format, args.size(), /*fetch_checks_range=*/true, [&](const Clause& clause, size_t index) {
    return ApplyVerb(clause.verb, clause.precision, args[index]);
  });
}

std::optional<FormatCheckError> CheckFormatCall(std::string_view format, std::span<const FormatArgType> args) {
  std::vector<size_t> path;
  size_t requested = 0;
  StatusOr<std::string> run =
      RunFormat(format, args.size(), /*fetch_checks_range=*/false,
                [&](const Clause& clause, size_t index) -> StatusOr<std::string> {
                  ++requested;
                  const FormatArgType& t = args[index];
                  path = {index};
                  // Names the offender, which %s may find inside a nested literal.
                  auto reject = [&](std::string_view what) {
                    const FormatArgType* offender = &t;
                    for (size_t k = 1; k < path.size(); ++k) offender = &offender->literal_elements[path[k]];
                    return FormattingError(std::string(what) + ", was given " + offender->type_name);
                  };
                  switch (clause.verb) {
                    case 's':
                      if (!CheckStringClause(t, path)) {
                        return reject(
                            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
                            "lists, types, durations, and timestamps");
                      }
                      break;
                    case 'd':
                      if (!AcceptsType(t, {"int", "uint"})) {
                        return reject("decimal clause can only be used on integers");
                      }
                      break;
                    case 'f':
                      if (!AcceptsType(t, {"double", "string"})) {
                        return reject("fixed-point clause can only be used on doubles");
                      }
                      break;
                    case 'e':
                      if (!AcceptsType(t, {"double", "string"})) {
                        return reject("scientific clause can only be used on doubles");
                      }
                      break;
                    case 'b':
                      if (!AcceptsType(t, {"int", "uint", "bool"})) {
                        return reject("only integers and bools can be formatted as binary");
                      }
                      break;
                    case 'x':
                    case 'X':
                      if (!AcceptsType(t, {"int", "uint", "string", "bytes"})) {
                        return reject("only integers, byte buffers, and strings can be formatted as hex");
                      }
                      break;
                    case 'o':
                      if (!AcceptsType(t, {"int", "uint"})) {
                        return reject("octal clause can only be used on integers");
                      }
                      break;
                    default: break;
                  }
                  return std::string();
                });
  if (!run.ok()) {
    // Formatting errors point at the argument; the others at the call.
    bool at_argument = run.status().message().starts_with("error during formatting: ");
    return FormatCheckError{run.status().message(), at_argument ? path : std::vector<size_t>()};
  }
  if (args.size() > requested) {
    return FormatCheckError{"too many arguments supplied to string.format (expected " + std::to_string(requested) +
                                ", got " + std::to_string(args.size()) + ")",
                            {}};
  }
  return std::nullopt;
}

}  // namespace dra::cel::lib
