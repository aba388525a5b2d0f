// cel-spec "Standard Definitions": arithmetic, comparisons, size, string
// predicates, matches, and type conversions, with cel-go's overload ids and
// runtime costs (interpreter/runtimecost.go).
//
// Equality, `in`, logical operators, indexing and field selection are
// planned as dedicated nodes (cel/runtime/planner.cc), not registered here.
#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "base/utf8.h"
#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"
#include "cel/runtime/value.h"

namespace dra::cel {

namespace internal {

std::vector<char32_t> ToCodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char32_t cp;
    size_t len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if (c < 0xE0) {
      cp = c & 0x1F;
      len = 2;
    } else if (c < 0xF0) {
      cp = c & 0x0F;
      len = 3;
    } else {
      cp = c & 0x07;
      len = 4;
    }
    for (size_t k = 1; k < len && i + k < s.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string FromCodePoints(const char32_t* begin, const char32_t* end) {
  std::string out;
  out.reserve(static_cast<size_t>(end - begin));
  for (const char32_t* p = begin; p != end; ++p) AppendUtf8(static_cast<uint32_t>(*p), out);
  return out;
}

}  // namespace internal

namespace {

using namespace internal;  // NOLINT: library-local helpers

Value IntOverflow() { return Err("integer overflow"); }
Value UintOverflow() { return Err("unsigned integer overflow"); }

// --- Arithmetic ------------------------------------------------------------------

Value AddInt(std::span<const Value> a, CallContext&) {
  int64_t r;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
Value SubInt(std::span<const Value> a, CallContext&) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
Value MulInt(std::span<const Value> a, CallContext&) {
  int64_t r;
  if (__builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &r)) return IntOverflow();
  return Value::Int(r);
}
Value DivInt(std::span<const Value> a, CallContext&) {
  const int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return Err("division by zero");
  if (x == INT64_MIN && y == -1) return IntOverflow();
  return Value::Int(x / y);
}
Value ModInt(std::span<const Value> a, CallContext&) {
  const int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return Err("modulus by zero");
  if (x == INT64_MIN && y == -1) return IntOverflow();
  return Value::Int(x % y);
}
Value NegInt(std::span<const Value> a, CallContext&) {
  if (a[0].int_value() == INT64_MIN) return IntOverflow();
  return Value::Int(-a[0].int_value());
}
Value AddUint(std::span<const Value> a, CallContext&) {
  uint64_t r;
  if (__builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
Value SubUint(std::span<const Value> a, CallContext&) {
  uint64_t r;
  if (__builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
Value MulUint(std::span<const Value> a, CallContext&) {
  uint64_t r;
  if (__builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &r)) return UintOverflow();
  return Value::Uint(r);
}
Value DivUint(std::span<const Value> a, CallContext&) {
  if (a[1].uint_value() == 0) return Err("division by zero");
  return Value::Uint(a[0].uint_value() / a[1].uint_value());
}
Value ModUint(std::span<const Value> a, CallContext&) {
  if (a[1].uint_value() == 0) return Err("modulus by zero");
  return Value::Uint(a[0].uint_value() % a[1].uint_value());
}
Value AddDouble(std::span<const Value> a, CallContext&) {
  return Value::Double(a[0].double_value() + a[1].double_value());
}
Value SubDouble(std::span<const Value> a, CallContext&) {
  return Value::Double(a[0].double_value() - a[1].double_value());
}
Value MulDouble(std::span<const Value> a, CallContext&) {
  return Value::Double(a[0].double_value() * a[1].double_value());
}
Value DivDouble(std::span<const Value> a, CallContext&) {
  return Value::Double(a[0].double_value() / a[1].double_value());
}
Value NegDouble(std::span<const Value> a, CallContext&) { return Value::Double(-a[0].double_value()); }

Value AddString(std::span<const Value> a, CallContext& ctx) {
  const std::string_view x = a[0].string_value(), y = a[1].string_value();
  if (y.empty()) return a[0];
  if (x.empty()) return a[1];
  if (!ctx.CheckAllocation(x.size() + y.size())) return Err("allocation limit exceeded");
  std::string out;
  out.reserve(x.size() + y.size());
  out.append(x).append(y);
  return a[0].is_bytes() ? Value::Bytes(std::move(out)) : Value::String(std::move(out));
}

Value AddList(std::span<const Value> a, CallContext& ctx) {
  const ListObject& x = a[0].list();
  const ListObject& y = a[1].list();
  if (y.size() == 0) return a[0];
  if (x.size() == 0) return a[1];
  if (!ctx.CheckAllocation(16 * (x.size() + y.size()))) return Err("allocation limit exceeded");
  std::vector<Value> out;
  out.reserve(x.size() + y.size());
  for (size_t i = 0; i < x.size(); ++i) out.push_back(x.Get(i));
  for (size_t i = 0; i < y.size(); ++i) out.push_back(y.Get(i));
  return Value::List(std::move(out));
}

uint64_t ConcatCost(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]) + CostSize(a[1]), 0.1); }
uint64_t MinSizeCost(std::span<const Value> a, const Value&) {
  return CeilFactor(std::min(CostSize(a[0]), CostSize(a[1])), 0.1);
}
uint64_t FirstSizeCost(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]), 0.1); }

// --- Comparisons -------------------------------------------------------------------

template <int kWhich>  // 0 <, 1 <=, 2 >, 3 >=
Value Relation(std::span<const Value> a, CallContext&) {
  const Ordering o = Compare(a[0], a[1]);
  switch (o) {
    case Ordering::kUnordered: return Value::Bool(false);
    case Ordering::kInvalid: {
      static constexpr std::string_view kNames[] = {"_<_", "_<=_", "_>_", "_>=_"};
      return NoMatchingOverload(kNames[kWhich], a);
    }
    default: break;
  }
  switch (kWhich) {
    case 0: return Value::Bool(o == Ordering::kLess);
    case 1: return Value::Bool(o != Ordering::kGreater);
    case 2: return Value::Bool(o == Ordering::kGreater);
    default: return Value::Bool(o != Ordering::kLess);
  }
}

Status RegisterRelations(FunctionRegistry& r) {
  struct Rel {
    std::string_view fn;
    std::string_view id;
    FunctionImpl impl;
  };
  const Rel rels[] = {{"_<_", "less", Relation<0>},
                      {"_<=_", "less_equals", Relation<1>},
                      {"_>_", "greater", Relation<2>},
                      {"_>=_", "greater_equals", Relation<3>}};
  struct Pair {
    ValueKind a, b;
    std::string_view suffix;
  };
  const Pair pairs[] = {
      {kIntK, kIntK, "int64"},        {kIntK, kUintK, "int64_uint64"},   {kIntK, kDoubleK, "int64_double"},
      {kUintK, kUintK, "uint64"},     {kUintK, kIntK, "uint64_int64"},   {kUintK, kDoubleK, "uint64_double"},
      {kDoubleK, kDoubleK, "double"}, {kDoubleK, kIntK, "double_int64"}, {kDoubleK, kUintK, "double_uint64"},
      {kStringK, kStringK, "string"}, {kBytesK, kBytesK, "bytes"},       {kBoolK, kBoolK, "bool"},
  };
  for (const Rel& rel : rels) {
    for (const Pair& p : pairs) {
      const bool sized = p.a == kStringK || p.a == kBytesK;
      DRA_RETURN_IF_ERROR(Add(r, std::string(rel.id) + "_" + std::string(p.suffix), std::string(rel.fn), false,
                              {P(p.a), P(p.b)}, rel.impl, sized ? MinSizeCost : nullptr));
    }
  }
  return OkStatus();
}

// --- Size and strings ----------------------------------------------------------------

Value SizeString(std::span<const Value> a, CallContext&) {
  return Value::Int(static_cast<int64_t>(CodePointCount(a[0].string_value())));
}
Value SizeBytes(std::span<const Value> a, CallContext&) {
  return Value::Int(static_cast<int64_t>(a[0].bytes_value().size()));
}
Value SizeList(std::span<const Value> a, CallContext&) { return Value::Int(static_cast<int64_t>(a[0].list().size())); }
Value SizeMap(std::span<const Value> a, CallContext&) { return Value::Int(static_cast<int64_t>(a[0].map().size())); }

Value Contains(std::span<const Value> a, CallContext&) {
  return Value::Bool(a[0].string_value().find(a[1].string_value()) != std::string_view::npos);
}
Value StartsWith(std::span<const Value> a, CallContext&) {
  return Value::Bool(a[0].string_value().starts_with(a[1].string_value()));
}
Value EndsWith(std::span<const Value> a, CallContext&) {
  return Value::Bool(a[0].string_value().ends_with(a[1].string_value()));
}
uint64_t ContainsCost(std::span<const Value> a, const Value&) {
  return CeilFactor(CostSize(a[0]), 0.1) * CeilFactor(CostSize(a[1]), 0.1);
}

StatusOr<std::shared_ptr<const RE2>> CompileRegex(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    return InvalidArgumentError("invalid regular expression '" + std::string(pattern) + "': " + re->error());
  }
  return re;
}

StatusOr<std::shared_ptr<const void>> PrepareRegex(const Value& pattern) {
  DRA_ASSIGN_OR_RETURN(std::shared_ptr<const RE2> re, CompileRegex(pattern.string_value()));
  return std::shared_ptr<const void>(std::move(re));
}

Value Matches(std::span<const Value> a, CallContext& ctx) {
  const std::string_view s = a[0].string_value();
  const auto* prepared = static_cast<const RE2*>(ctx.prepared());
  std::shared_ptr<const RE2> compiled;
  if (prepared == nullptr) {
    StatusOr<std::shared_ptr<const RE2>> re = CompileRegex(a[1].string_value());
    if (!re.ok()) return Err(re.status().message());
    compiled = std::move(*re);
    prepared = compiled.get();
  }
  return Value::Bool(RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *prepared));
}
uint64_t MatchesCost(std::span<const Value> a, const Value&) {
  return CeilFactor(1 + CostSize(a[0]), 0.1) * CeilFactor(CostSize(a[1]), 0.25);
}

// --- Conversions -------------------------------------------------------------------------

Value Identity(std::span<const Value> a, CallContext&) { return a[0]; }
Value TypeOf(std::span<const Value> a, CallContext&) { return a[0].GetType(); }

Value IntFromUint(std::span<const Value> a, CallContext&) {
  if (a[0].uint_value() > static_cast<uint64_t>(INT64_MAX)) return Err("range error converting uint to int");
  return Value::Int(static_cast<int64_t>(a[0].uint_value()));
}
Value IntFromDouble(std::span<const Value> a, CallContext&) {
  const double d = a[0].double_value();
  // cel-go accepts only doubles strictly inside (-2^63, 2^63).
  if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) {
    return Err("range error converting double to int");
  }
  return Value::Int(static_cast<int64_t>(d));
}
Value IntFromString(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  int64_t v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (!s.empty() && s[0] == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (s.empty() || ec != std::errc() || ptr != end || begin == end) {
    return Err("cannot convert string '" + std::string(s) + "' to int");
  }
  return Value::Int(v);
}
Value UintFromInt(std::span<const Value> a, CallContext&) {
  if (a[0].int_value() < 0) return Err("range error converting int to uint");
  return Value::Uint(static_cast<uint64_t>(a[0].int_value()));
}
Value UintFromDouble(std::span<const Value> a, CallContext&) {
  const double d = a[0].double_value();
  if (!(d >= 0 && d < 18446744073709551616.0)) return Err("range error converting double to uint");
  return Value::Uint(static_cast<uint64_t>(d));
}
Value UintFromString(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  uint64_t v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (!s.empty() && s[0] == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (s.empty() || ec != std::errc() || ptr != end || begin == end) {
    return Err("cannot convert string '" + std::string(s) + "' to uint");
  }
  return Value::Uint(v);
}
Value DoubleFromInt(std::span<const Value> a, CallContext&) {
  return Value::Double(static_cast<double>(a[0].int_value()));
}
Value DoubleFromUint(std::span<const Value> a, CallContext&) {
  return Value::Double(static_cast<double>(a[0].uint_value()));
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Go's strconv.ParseFloat(s, 64): decimal (or hex-float) numbers, "inf",
// "infinity", "nan" in any case with an optional sign; no spaces.
std::optional<double> ParseDouble(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoreCase(body, "inf") || EqualsIgnoreCase(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (EqualsIgnoreCase(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (body.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ptr != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Go returns ±Inf (or 0) with an error for out-of-range values.
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  return negative ? -v : v;
}

Value DoubleFromString(std::span<const Value> a, CallContext&) {
  std::optional<double> d = ParseDouble(a[0].string_value());
  if (!d) return Err("cannot convert string '" + std::string(a[0].string_value()) + "' to double");
  return Value::Double(*d);
}
Value StringFromInt(std::span<const Value> a, CallContext&) { return Value::String(std::to_string(a[0].int_value())); }
Value StringFromUint(std::span<const Value> a, CallContext&) {
  return Value::String(std::to_string(a[0].uint_value()));
}
Value StringFromDouble(std::span<const Value> a, CallContext&) {
  return Value::String(FormatDoubleCel(a[0].double_value()));
}
Value StringFromBool(std::span<const Value> a, CallContext&) {
  return Value::StringView(a[0].bool_value() ? "true" : "false");
}
Value StringFromBytes(std::span<const Value> a, CallContext&) {
  const std::string_view b = a[0].bytes_value();
  if (FindInvalidUtf8(b)) return Err("invalid UTF-8 in bytes, cannot convert to string");
  return Value::String(std::string(b));
}
Value BytesFromString(std::span<const Value> a, CallContext&) { return Value::Bytes(std::string(a[0].string_value())); }
Value BoolFromString(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return Value::Bool(false);
  }
  return Err("Type conversion error from 'string' to 'bool': '" + std::string(s) + "'");
}

}  // namespace

Status RegisterStandardLibrary(FunctionRegistry& r) {
  // Arithmetic.
  DRA_RETURN_IF_ERROR(Add(r, "add_int64", "_+_", false, {P(kIntK), P(kIntK)}, AddInt));
  DRA_RETURN_IF_ERROR(Add(r, "add_uint64", "_+_", false, {P(kUintK), P(kUintK)}, AddUint));
  DRA_RETURN_IF_ERROR(Add(r, "add_double", "_+_", false, {P(kDoubleK), P(kDoubleK)}, AddDouble));
  DRA_RETURN_IF_ERROR(Add(r, "add_string", "_+_", false, {P(kStringK), P(kStringK)}, AddString, ConcatCost));
  DRA_RETURN_IF_ERROR(Add(r, "add_bytes", "_+_", false, {P(kBytesK), P(kBytesK)}, AddString, ConcatCost));
  DRA_RETURN_IF_ERROR(Add(r, "add_list", "_+_", false, {P(kListK), P(kListK)}, AddList));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_int64", "_-_", false, {P(kIntK), P(kIntK)}, SubInt));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_uint64", "_-_", false, {P(kUintK), P(kUintK)}, SubUint));
  DRA_RETURN_IF_ERROR(Add(r, "subtract_double", "_-_", false, {P(kDoubleK), P(kDoubleK)}, SubDouble));
  DRA_RETURN_IF_ERROR(Add(r, "multiply_int64", "_*_", false, {P(kIntK), P(kIntK)}, MulInt));
  DRA_RETURN_IF_ERROR(Add(r, "multiply_uint64", "_*_", false, {P(kUintK), P(kUintK)}, MulUint));
  DRA_RETURN_IF_ERROR(Add(r, "multiply_double", "_*_", false, {P(kDoubleK), P(kDoubleK)}, MulDouble));
  DRA_RETURN_IF_ERROR(Add(r, "divide_int64", "_/_", false, {P(kIntK), P(kIntK)}, DivInt));
  DRA_RETURN_IF_ERROR(Add(r, "divide_uint64", "_/_", false, {P(kUintK), P(kUintK)}, DivUint));
  DRA_RETURN_IF_ERROR(Add(r, "divide_double", "_/_", false, {P(kDoubleK), P(kDoubleK)}, DivDouble));
  DRA_RETURN_IF_ERROR(Add(r, "modulo_int64", "_%_", false, {P(kIntK), P(kIntK)}, ModInt));
  DRA_RETURN_IF_ERROR(Add(r, "modulo_uint64", "_%_", false, {P(kUintK), P(kUintK)}, ModUint));
  DRA_RETURN_IF_ERROR(Add(r, "negate_int64", "-_", false, {P(kIntK)}, NegInt));
  DRA_RETURN_IF_ERROR(Add(r, "negate_double", "-_", false, {P(kDoubleK)}, NegDouble));

  DRA_RETURN_IF_ERROR(RegisterRelations(r));

  // size, as a global function and as a method.
  for (bool receiver : {false, true}) {
    const std::string prefix = receiver ? "_size" : "size";
    DRA_RETURN_IF_ERROR(Add(r, "string" + prefix, "size", receiver, {P(kStringK)}, SizeString));
    DRA_RETURN_IF_ERROR(Add(r, "bytes" + prefix, "size", receiver, {P(kBytesK)}, SizeBytes));
    DRA_RETURN_IF_ERROR(Add(r, "list" + prefix, "size", receiver, {P(kListK)}, SizeList));
    DRA_RETURN_IF_ERROR(Add(r, "map" + prefix, "size", receiver, {P(kMapK)}, SizeMap));
  }

  // String predicates.
  DRA_RETURN_IF_ERROR(Add(r, "contains_string", "contains", true, {P(kStringK), P(kStringK)}, Contains, ContainsCost));
  DRA_RETURN_IF_ERROR(
      Add(r, "starts_with_string", "startsWith", true, {P(kStringK), P(kStringK)}, StartsWith, FirstSizeCost));
  DRA_RETURN_IF_ERROR(
      Add(r, "ends_with_string", "endsWith", true, {P(kStringK), P(kStringK)}, EndsWith, FirstSizeCost));
  for (bool receiver : {false, true}) {
    Overload o;
    o.id = receiver ? "matches_string" : "matches";
    o.function = "matches";
    o.receiver_style = receiver;
    o.params = {P(kStringK), P(kStringK)};
    o.impl = Matches;
    o.cost = MatchesCost;
    o.prepare = PrepareRegex;
    o.prepare_arg = 1;
    DRA_RETURN_IF_ERROR(r.Register(std::move(o)));
  }

  // Conversions.
  DRA_RETURN_IF_ERROR(Add(r, "to_dyn", "dyn", false, {AnyP()}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "type", "type", false, {AnyP()}, TypeOf));
  DRA_RETURN_IF_ERROR(Add(r, "int64_to_int64", "int", false, {P(kIntK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "uint64_to_int64", "int", false, {P(kUintK)}, IntFromUint));
  DRA_RETURN_IF_ERROR(Add(r, "double_to_int64", "int", false, {P(kDoubleK)}, IntFromDouble));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_int64", "int", false, {P(kStringK)}, IntFromString));
  DRA_RETURN_IF_ERROR(Add(r, "uint64_to_uint64", "uint", false, {P(kUintK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "int64_to_uint64", "uint", false, {P(kIntK)}, UintFromInt));
  DRA_RETURN_IF_ERROR(Add(r, "double_to_uint64", "uint", false, {P(kDoubleK)}, UintFromDouble));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_uint64", "uint", false, {P(kStringK)}, UintFromString));
  DRA_RETURN_IF_ERROR(Add(r, "double_to_double", "double", false, {P(kDoubleK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "int64_to_double", "double", false, {P(kIntK)}, DoubleFromInt));
  DRA_RETURN_IF_ERROR(Add(r, "uint64_to_double", "double", false, {P(kUintK)}, DoubleFromUint));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_double", "double", false, {P(kStringK)}, DoubleFromString));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_string", "string", false, {P(kStringK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "int64_to_string", "string", false, {P(kIntK)}, StringFromInt));
  DRA_RETURN_IF_ERROR(Add(r, "uint64_to_string", "string", false, {P(kUintK)}, StringFromUint));
  DRA_RETURN_IF_ERROR(Add(r, "double_to_string", "string", false, {P(kDoubleK)}, StringFromDouble));
  DRA_RETURN_IF_ERROR(Add(r, "bool_to_string", "string", false, {P(kBoolK)}, StringFromBool));
  DRA_RETURN_IF_ERROR(Add(r, "bytes_to_string", "string", false, {P(kBytesK)}, StringFromBytes, FirstSizeCost));
  DRA_RETURN_IF_ERROR(Add(r, "bytes_to_bytes", "bytes", false, {P(kBytesK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_bytes", "bytes", false, {P(kStringK)}, BytesFromString, FirstSizeCost));
  DRA_RETURN_IF_ERROR(Add(r, "bool_to_bool", "bool", false, {P(kBoolK)}, Identity));
  DRA_RETURN_IF_ERROR(Add(r, "string_to_bool", "bool", false, {P(kStringK)}, BoolFromString));
  return RegisterTimeLibrary(r);
}

StatusOr<std::shared_ptr<FunctionRegistry>> NewRegistry(const LibraryOptions& options) {
  auto registry = std::make_shared<FunctionRegistry>();
  DRA_RETURN_IF_ERROR(RegisterStandardLibrary(*registry));
  DRA_RETURN_IF_ERROR(RegisterStringsLibrary(*registry, options.strings_version, options.format_flavor));
  if (options.lists) DRA_RETURN_IF_ERROR(RegisterListsLibrary(*registry));
  if (options.sets) DRA_RETURN_IF_ERROR(RegisterSetsLibrary(*registry));
  if (options.optional) DRA_RETURN_IF_ERROR(RegisterOptionalLibrary(*registry));
  return registry;
}

}  // namespace dra::cel
