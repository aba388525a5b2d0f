// The Kubernetes CEL libraries: bindings of quantity/quantity.h and cel/lib/
// to CEL functions, with the runtime costs of k8s.io/apiserver's
// library.CostEstimator.CallCost (pkg/cel/library/cost.go; summarised in
// src/cel/README.md §5).
//
// Overload ids are upstream's, so messages and debugging output name the
// same overloads as kube-apiserver.
#include "cel/libraries/k8s_lib.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>

#include "api/names.h"
#include "base/release.h"
#include "cel/lib/format.h"
#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"

namespace dra::cel {

namespace {

using namespace internal;  // NOLINT: library-local helpers
using quantity::Quantity;

Value NoSuchOverload() { return Err("no such overload"); }

bool IsOpaqueOf(const Value& v, std::string_view type_name) {
  return v.is_opaque() && v.opaque().type_name() == type_name;
}

template <typename T>
const T& As(const Value& v) {
  return static_cast<const T&>(v.opaque());
}

Param Opaque(std::string_view type_name) { return Param::Opaque(type_name); }

// ceil(factor * size) for string-traversal costs (cel-go's common.StringTraversalCostFactor
// is 0.1); the size of a string is its length in code points.
uint64_t TenthOfFirst(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]), 0.1); }
uint64_t FifthOfFirst(std::span<const Value> a, const Value&) { return CeilFactor(CostSize(a[0]), 0.2); }

// Registers one overload with an optional plan-time preparation.
Status AddPrepared(FunctionRegistry& r, std::string id, std::string function, bool receiver, std::vector<Param> params,
                   FunctionImpl impl, CostFunction cost, PrepareFunction prepare, int prepare_arg) {
  Overload o;
  o.id = std::move(id);
  o.function = std::move(function);
  o.receiver_style = receiver;
  o.params = std::move(params);
  o.impl = impl;
  o.cost = cost;
  o.prepare = prepare;
  o.prepare_arg = prepare_arg;
  return r.Register(std::move(o));
}

}  // namespace

// --- Value types ------------------------------------------------------------------

Value QuantityValue::Equals(const Value& other) const {
  if (!IsOpaqueOf(other, kQuantityTypeName)) return NoSuchOverload();
  return Value::Bool(quantity() == As<QuantityValue>(other).quantity());
}

Value SemverValue::Equals(const Value& other) const {
  if (!IsOpaqueOf(other, kSemverTypeName)) return NoSuchOverload();
  return Value::Bool(v_ == As<SemverValue>(other).semver());
}

Value URLValue::Equals(const Value& other) const {
  if (!IsOpaqueOf(other, kURLTypeName)) return NoSuchOverload();
  return Value::Bool(u_ == As<URLValue>(other).url());
}

Value IPValue::Equals(const Value& other) const {
  if (!IsOpaqueOf(other, kIPTypeName)) return NoSuchOverload();
  return Value::Bool(ip_ == As<IPValue>(other).ip());
}

Value CIDRValue::Equals(const Value& other) const {
  if (!IsOpaqueOf(other, kCIDRTypeName)) return NoSuchOverload();
  return Value::Bool(cidr_ == As<CIDRValue>(other).cidr());
}

Value NewQuantityValue(const Quantity& q) { return Value::Opaque(MakeRef<QuantityValue>(q)); }
Value NewSemverValue(lib::SemVer v) { return Value::Opaque(MakeRef<SemverValue>(std::move(v))); }

std::string QuantityParseErrorText(std::string_view s, const Status& status) {
  static constexpr std::string_view kFormatWrong =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  // Our range limit (quantity.h, "Range") has no upstream counterpart.
  if (status.code() == StatusCode::kOutOfRange) return std::string(status.message());
  // The shape resource.ParseQuantity's scanner accepts: sign, digits, an
  // optional fraction, suffix letters, then an optional signed exponent.
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t pos = 0;
  const size_t n = s.size();
  if (n == 0) return std::string(kFormatWrong);
  if (s[0] == '+' || s[0] == '-') ++pos;
  while (pos < n && digit(s[pos])) ++pos;
  if (pos < n && s[pos] == '.') {
    ++pos;
    while (pos < n && digit(s[pos])) ++pos;
  }
  const size_t suffix_start = pos;
  while (pos < n && std::string_view("eEinumkKMGTP").find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < n && (s[pos] == '+' || s[pos] == '-')) ++pos;
  while (pos < n && digit(s[pos])) ++pos;
  if (pos < n) return std::string(kFormatWrong);
  const std::string_view suffix = s.substr(suffix_start);
  static constexpr std::string_view kSuffixes[] = {"",  "n", "u",  "m",  "k",  "M",  "G",  "T",
                                                   "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  bool known = std::find(std::begin(kSuffixes), std::end(kSuffixes), suffix) != std::end(kSuffixes);
  if (!known && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view exp = suffix.substr(1);
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.remove_prefix(1);
    known = !exp.empty() && std::all_of(exp.begin(), exp.end(), digit);
  }
  return known ? "unable to parse numeric part of quantity" : "unable to parse quantity's suffix";
}

namespace {

// --- quantity --------------------------------------------------------------------

const Quantity& Q(const Value& v) { return As<QuantityValue>(v).quantity(); }

Value QuantityFromString(std::span<const Value> a, CallContext&) {
  const std::string_view s = a[0].string_value();
  StatusOr<Quantity> q = Quantity::Parse(s);
  if (!q.ok()) return Err(QuantityParseErrorText(s, q.status()));
  return NewQuantityValue(*q);
}
Value IsQuantity(std::span<const Value> a, CallContext&) {
  return Value::Bool(Quantity::Parse(a[0].string_value()).ok());
}
Value QuantitySign(std::span<const Value> a, CallContext&) { return Value::Int(Q(a[0]).Sign()); }
Value QuantityIsGreaterThan(std::span<const Value> a, CallContext&) {
  return Value::Bool(Q(a[0]).Compare(Q(a[1])) > 0);
}
Value QuantityIsLessThan(std::span<const Value> a, CallContext&) { return Value::Bool(Q(a[0]).Compare(Q(a[1])) < 0); }
Value QuantityCompareTo(std::span<const Value> a, CallContext&) { return Value::Int(Q(a[0]).Compare(Q(a[1]))); }
Value QuantityAsFloat(std::span<const Value> a, CallContext&) { return Value::Double(Q(a[0]).AsApproximateFloat64()); }
Value QuantityAsInteger(std::span<const Value> a, CallContext&) {
  std::optional<int64_t> v = Q(a[0]).AsInt64();
  if (!v) return Err("cannot convert value to integer");
  return Value::Int(*v);
}
Value QuantityIsInteger(std::span<const Value> a, CallContext&) { return Value::Bool(Q(a[0]).AsInt64().has_value()); }
Value ArithmeticResult(StatusOr<Quantity> r) {
  if (!r.ok()) return Err(std::string(r.status().message()));
  return NewQuantityValue(*r);
}
// quantityAddInt / quantitySubInt convert the int with NewQuantity(i, DecimalExponent).
Quantity IntQuantity(const Value& v) { return Quantity::FromInt(v.int_value(), quantity::Format::kDecimalExponent); }
Value QuantityAdd(std::span<const Value> a, CallContext&) { return ArithmeticResult(Q(a[0]).Add(Q(a[1]))); }
Value QuantityAddInt(std::span<const Value> a, CallContext&) {
  return ArithmeticResult(Q(a[0]).Add(IntQuantity(a[1])));
}
Value QuantitySub(std::span<const Value> a, CallContext&) { return ArithmeticResult(Q(a[0]).Sub(Q(a[1]))); }
Value QuantitySubInt(std::span<const Value> a, CallContext&) {
  return ArithmeticResult(Q(a[0]).Sub(IntQuantity(a[1])));
}

Status RegisterQuantity(FunctionRegistry& r) {
  const Param q = Opaque(kQuantityTypeName);
  const Param s = P(kStringK);
  DRA_RETURN_IF_ERROR(Add(r, "string_to_quantity", "quantity", false, {s}, QuantityFromString, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "is_quantity_string", "isQuantity", false, {s}, IsQuantity, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_sign", "sign", false, {q}, QuantitySign));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_is_greater_than", "isGreaterThan", true, {q, q}, QuantityIsGreaterThan));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_is_less_than", "isLessThan", true, {q, q}, QuantityIsLessThan));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_compare_to", "compareTo", true, {q, q}, QuantityCompareTo));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_get_float", "asApproximateFloat", true, {q}, QuantityAsFloat));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_get_int", "asInteger", true, {q}, QuantityAsInteger));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_is_integer", "isInteger", true, {q}, QuantityIsInteger));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_add", "add", true, {q, q}, QuantityAdd));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_add_int", "add", true, {q, P(kIntK)}, QuantityAddInt));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_sub", "sub", true, {q, q}, QuantitySub));
  DRA_RETURN_IF_ERROR(Add(r, "quantity_sub_int", "sub", true, {q, P(kIntK)}, QuantitySubInt));
  return OkStatus();
}

// --- semver ----------------------------------------------------------------------

const lib::SemVer& SV(const Value& v) { return As<SemverValue>(v).semver(); }

Value SemverResult(StatusOr<lib::SemVer> v) {
  if (!v.ok()) return Err(std::string(v.status().message()));
  return NewSemverValue(*std::move(v));
}
Value SemverFromString(std::span<const Value> a, CallContext&) {
  return SemverResult(lib::SemVer::Parse(a[0].string_value(), false));
}
Value SemverFromStringNormalize(std::span<const Value> a, CallContext&) {
  return SemverResult(lib::SemVer::Parse(a[0].string_value(), a[1].bool_value()));
}
Value IsSemver(std::span<const Value> a, CallContext&) {
  return Value::Bool(lib::SemVer::IsValid(a[0].string_value(), false));
}
Value IsSemverNormalize(std::span<const Value> a, CallContext&) {
  return Value::Bool(lib::SemVer::IsValid(a[0].string_value(), a[1].bool_value()));
}
Value SemverIsGreaterThan(std::span<const Value> a, CallContext&) {
  return Value::Bool(SV(a[0]).IsGreaterThan(SV(a[1])));
}
Value SemverIsLessThan(std::span<const Value> a, CallContext&) { return Value::Bool(SV(a[0]).IsLessThan(SV(a[1]))); }
Value SemverCompareTo(std::span<const Value> a, CallContext&) { return Value::Int(SV(a[0]).Compare(SV(a[1]))); }
Value SemverMajor(std::span<const Value> a, CallContext&) { return Value::Int(SV(a[0]).CelMajor()); }
Value SemverMinor(std::span<const Value> a, CallContext&) { return Value::Int(SV(a[0]).CelMinor()); }
Value SemverPatch(std::span<const Value> a, CallContext&) { return Value::Int(SV(a[0]).CelPatch()); }

Status RegisterSemver(FunctionRegistry& r) {
  const Param v = Opaque(kSemverTypeName);
  const Param s = P(kStringK);
  const Param b = P(kBoolK);
  DRA_RETURN_IF_ERROR(Add(r, "string_to_semver", "semver", false, {s}, SemverFromString, TenthOfFirst));
  DRA_RETURN_IF_ERROR(
      Add(r, "string_bool_to_semver", "semver", false, {s, b}, SemverFromStringNormalize, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "is_semver_string", "isSemver", false, {s}, IsSemver, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "is_semver_string_bool", "isSemver", false, {s, b}, IsSemverNormalize, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "semver_is_greater_than", "isGreaterThan", true, {v, v}, SemverIsGreaterThan));
  DRA_RETURN_IF_ERROR(Add(r, "semver_is_less_than", "isLessThan", true, {v, v}, SemverIsLessThan));
  DRA_RETURN_IF_ERROR(Add(r, "semver_compare_to", "compareTo", true, {v, v}, SemverCompareTo));
  DRA_RETURN_IF_ERROR(Add(r, "semver_major", "major", true, {v}, SemverMajor));
  DRA_RETURN_IF_ERROR(Add(r, "semver_minor", "minor", true, {v}, SemverMinor));
  DRA_RETURN_IF_ERROR(Add(r, "semver_patch", "patch", true, {v}, SemverPatch));
  return OkStatus();
}

// --- lists -----------------------------------------------------------------------

// library.traversalCost: one unit per scalar, a tenth per string or bytes
// character (rounded down, Go's uint64(float64(len) * 0.1), len in bytes),
// containers by their elements (keys and values for maps).
uint64_t TraversalCost(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes: return static_cast<uint64_t>(static_cast<double>(v.string_value().size()) * 0.1);
    case ValueKind::kList: {
      uint64_t cost = 0;
      const ListObject& l = v.list();
      for (size_t i = 0; i < l.size(); ++i) cost += TraversalCost(l.Get(i));
      return cost;
    }
    case ValueKind::kMap: {
      uint64_t cost = 0;
      const MapObject& m = v.map();
      for (size_t i = 0; i < m.size(); ++i) {
        cost += TraversalCost(m.KeyAt(i)) + TraversalCost(m.ValueAt(i));
      }
      return cost;
    }
    default: return 1;
  }
}
uint64_t ListTraversalCost(std::span<const Value> a, const Value&) { return TraversalCost(a[0]); }

// cel-go's traits.Comparer kinds we have.
bool IsComparable(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kDouble:
    case ValueKind::kString:
    case ValueKind::kBytes: return true;
    case ValueKind::kOpaque: return v.opaque().Compare(v) != Ordering::kInvalid;  // timestamps, durations
    default: return false;
  }
}

Value NotComparable(const Value& v) { return v.is_error() ? v : NoSuchOverload(); }

Value IsSorted(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  Value prev;
  for (size_t i = 0; i < l.size(); ++i) {
    Value next = l.Get(i);
    if (!IsComparable(next)) return NotComparable(next);
    // Upstream stops only when prev.Compare(next) is exactly 1; an error
    // (unrelated types) or NaN does not decide.
    if (i > 0 && Compare(prev, next) == Ordering::kGreater) return Value::Bool(false);
    prev = std::move(next);
  }
  return Value::Bool(true);
}

Value AddNumbers(const Value& x, const Value& y) {
  if (x.kind() != y.kind()) return NoSuchOverload();
  switch (x.kind()) {
    case ValueKind::kInt: {
      int64_t r;
      if (__builtin_add_overflow(x.int_value(), y.int_value(), &r)) return Err("integer overflow");
      return Value::Int(r);
    }
    case ValueKind::kUint: {
      uint64_t r;
      if (__builtin_add_overflow(x.uint_value(), y.uint_value(), &r)) {
        return Err("unsigned integer overflow");
      }
      return Value::Uint(r);
    }
    case ValueKind::kDouble: return Value::Double(x.double_value() + y.double_value());
    case ValueKind::kOpaque: {
      if (!IsDuration(x) || !IsDuration(y)) return NoSuchOverload();
      int64_t r;
      if (__builtin_add_overflow(DurationNanos(x), DurationNanos(y), &r)) return Err("integer overflow");
      return NewDurationValue(r);
    }
    default: return NoSuchOverload();
  }
}

// See k8s_lib.h, difference 2, for how the zero is chosen.
Value Sum(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  if (l.size() == 0) return Value::Int(0);
  const Value first = l.Get(0);
  Value acc;
  switch (first.kind()) {
    case ValueKind::kUint: acc = Value::Uint(0); break;
    case ValueKind::kDouble: acc = Value::Double(0); break;
    default: acc = IsDuration(first) ? NewDurationValue(0) : Value::Int(0); break;
  }
  for (size_t i = 0; i < l.size(); ++i) {
    Value next = l.Get(i);
    if (next.is_error()) return next;
    acc = AddNumbers(acc, next);
    if (acc.is_error()) return acc;
  }
  return acc;
}

template <bool kMin>
Value MinMax(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  Value result;
  for (size_t i = 0; i < l.size(); ++i) {
    Value next = l.Get(i);
    if (!IsComparable(next)) return NotComparable(next);
    if (i == 0) {
      result = std::move(next);
      continue;
    }
    const Ordering o = Compare(result, next);
    if (o == (kMin ? Ordering::kGreater : Ordering::kLess)) result = std::move(next);
  }
  if (l.size() == 0) return Err(kMin ? "min called on empty list" : "max called on empty list");
  return result;
}

Value ListIndexOf(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  for (size_t i = 0; i < l.size(); ++i) {
    if (EqualBool(l.Get(i), a[1])) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

Value ListLastIndexOf(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  for (size_t i = l.size(); i > 0; --i) {
    if (EqualBool(l.Get(i - 1), a[1])) return Value::Int(static_cast<int64_t>(i - 1));
  }
  return Value::Int(-1);
}

// `<dyn>.includes(<dyn>)`: a list contains the argument, or a scalar equals
// it. ctx.data() is the element limit (0: none) as a size_t*.
Value Includes(std::span<const Value> a, CallContext& ctx) {
  const size_t limit = *static_cast<const size_t*>(ctx.data());
  if (a[0].is_list()) {
    const ListObject& l = a[0].list();
    for (size_t i = 0; i < l.size(); ++i) {
      if (limit != 0 && i >= limit) {
        return Err("'includes' function cannot be applied to lists longer than " + std::to_string(limit) + " values");
      }
      if (EqualBool(l.Get(i), a[1])) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  return Value::Bool(EqualBool(a[0], a[1]));
}

Status RegisterLists(FunctionRegistry& r, const KubernetesLibraryOptions& options) {
  const Param l = P(kListK);
  DRA_RETURN_IF_ERROR(Add(r, "list_is_sorted_bool", "isSorted", true, {l}, IsSorted, ListTraversalCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_sum", "sum", true, {l}, Sum, ListTraversalCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_min", "min", true, {l}, MinMax<true>, ListTraversalCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_max", "max", true, {l}, MinMax<false>, ListTraversalCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_a_index_of_int", "indexOf", true, {l, AnyP()}, ListIndexOf, ListTraversalCost));
  DRA_RETURN_IF_ERROR(
      Add(r, "list_a_last_index_of_int", "lastIndexOf", true, {l, AnyP()}, ListLastIndexOf, ListTraversalCost));
  if (options.includes) {
    // The limit lives as long as the process: registries are shared freely.
    static const size_t kNoLimit = 0;
    static const size_t kDraLimit = 48;
    const size_t* limit = &kNoLimit;
    if (options.includes_max_list_length == kDraLimit) {
      limit = &kDraLimit;
    } else if (options.includes_max_list_length != 0) {
      return InvalidArgumentError("includes: unsupported list limit " +
                                  std::to_string(options.includes_max_list_length));
    }
    Overload o;
    o.id = limit == &kDraLimit ? "dra_includes_dyn_dyn" : "list_includes_dyn_dyn";
    o.function = "includes";
    o.receiver_style = true;
    o.params = {AnyP(), AnyP()};
    o.impl = Includes;
    o.cost = ListTraversalCost;
    o.data = limit;
    DRA_RETURN_IF_ERROR(r.Register(std::move(o)));
  }
  return OkStatus();
}

// --- regex -----------------------------------------------------------------------

StatusOr<std::shared_ptr<const RE2>> CompileGoRegex(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return InvalidArgumentError("Illegal regex: " + re->error());
  return re;
}

StatusOr<std::shared_ptr<const void>> PrepareGoRegex(const Value& pattern) {
  DRA_ASSIGN_OR_RETURN(std::shared_ptr<const RE2> re, CompileGoRegex(pattern.string_value()));
  return std::shared_ptr<const void>(std::move(re));
}

// The prepared regex of this call site, or one compiled now (kept in `holder`).
const RE2* RegexFor(const Value& pattern, CallContext& ctx, std::shared_ptr<const RE2>& holder, Value* error) {
  if (ctx.prepared() != nullptr) return static_cast<const RE2*>(ctx.prepared());
  StatusOr<std::shared_ptr<const RE2>> re = CompileGoRegex(pattern.string_value());
  if (!re.ok()) {
    *error = Err(std::string(re.status().message()));
    return nullptr;
  }
  holder = *std::move(re);
  return holder.get();
}

Value Find(std::span<const Value> a, CallContext& ctx) {
  std::shared_ptr<const RE2> holder;
  Value error;
  const RE2* re = RegexFor(a[1], ctx, holder, &error);
  if (re == nullptr) return error;
  const std::string_view s = a[0].string_value();
  re2::StringPiece match;
  if (!re->Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), RE2::UNANCHORED, &match, 1)) {
    return Value::StringView("");
  }
  return Value::String(std::string(match.data(), match.size()));
}

size_t RuneWidth(std::string_view s, size_t pos) {
  const auto c = static_cast<unsigned char>(s[pos]);
  size_t width = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  return std::min(width, s.size() - pos);
}

// Go's Regexp.FindAllString(s, n): successive non-overlapping leftmost-first
// matches; an empty match right after the previous match is skipped; n < 0
// means all.
Value FindAllN(std::string_view s, const RE2& re, int64_t n, CallContext& ctx) {
  std::vector<Value> out;
  if (n == 0) return Value::List(std::move(out));
  size_t pos = 0;
  bool have_prev = false;
  size_t prev_end = 0;
  while (pos <= s.size() && (n < 0 || static_cast<int64_t>(out.size()) < n)) {
    re2::StringPiece m;
    if (!re.Match(re2::StringPiece(s.data(), s.size()), pos, s.size(), RE2::UNANCHORED, &m, 1)) {
      break;
    }
    const auto start = static_cast<size_t>(m.data() - s.data());
    const size_t end = start + m.size();
    bool accept = true;
    if (end == pos) {
      if (have_prev && start == prev_end) accept = false;
      pos += pos < s.size() ? RuneWidth(s, pos) : 1;
    } else {
      pos = end;
    }
    have_prev = true;
    prev_end = end;
    if (accept) {
      if (!ctx.CheckAllocation(16 + m.size())) return Err("allocation limit exceeded");
      out.push_back(Value::String(std::string(m.data(), m.size())));
    }
  }
  return Value::List(std::move(out));
}

Value FindAll(std::span<const Value> a, CallContext& ctx) {
  std::shared_ptr<const RE2> holder;
  Value error;
  const RE2* re = RegexFor(a[1], ctx, holder, &error);
  if (re == nullptr) return error;
  return FindAllN(a[0].string_value(), *re, -1, ctx);
}

Value FindAllLimit(std::span<const Value> a, CallContext& ctx) {
  std::shared_ptr<const RE2> holder;
  Value error;
  const RE2* re = RegexFor(a[1], ctx, holder, &error);
  if (re == nullptr) return error;
  return FindAllN(a[0].string_value(), *re, a[2].int_value(), ctx);
}

// ceil(0.1 * (1 + len s)) * ceil(0.25 * len regex).
uint64_t FindCost(std::span<const Value> a, const Value&) {
  return CeilFactor(1 + CostSize(a[0]), 0.1) * CeilFactor(CostSize(a[1]), 0.25);
}

Status RegisterRegex(FunctionRegistry& r) {
  const Param s = P(kStringK);
  DRA_RETURN_IF_ERROR(AddPrepared(r, "string_find_string", "find", true, {s, s}, Find, FindCost, PrepareGoRegex, 1));
  DRA_RETURN_IF_ERROR(
      AddPrepared(r, "string_find_all_string", "findAll", true, {s, s}, FindAll, FindCost, PrepareGoRegex, 1));
  DRA_RETURN_IF_ERROR(AddPrepared(r, "string_find_all_string_int", "findAll", true, {s, s, P(kIntK)}, FindAllLimit,
                                  FindCost, PrepareGoRegex, 1));
  return OkStatus();
}

// --- url -------------------------------------------------------------------------

const lib::Url& U(const Value& v) { return As<URLValue>(v).url(); }

Value UrlFromString(std::span<const Value> a, CallContext& ctx) {
  const auto* rules = static_cast<const lib::GoUrlRules*>(ctx.data());
  StatusOr<lib::Url> u = lib::Url::Parse(a[0].string_value(), *rules);
  if (!u.ok()) return Err(std::string(u.status().message()));
  return Value::Opaque(MakeRef<URLValue>(*std::move(u)));
}
Value IsUrl(std::span<const Value> a, CallContext& ctx) {
  const auto* rules = static_cast<const lib::GoUrlRules*>(ctx.data());
  return Value::Bool(lib::Url::IsValid(a[0].string_value(), *rules));
}
Value UrlScheme(std::span<const Value> a, CallContext&) { return Value::String(U(a[0]).scheme()); }
Value UrlHost(std::span<const Value> a, CallContext&) { return Value::String(U(a[0]).host()); }
Value UrlHostname(std::span<const Value> a, CallContext&) { return Value::String(U(a[0]).Hostname()); }
Value UrlPort(std::span<const Value> a, CallContext&) { return Value::String(U(a[0]).Port()); }
Value UrlEscapedPath(std::span<const Value> a, CallContext&) { return Value::String(U(a[0]).EscapedPath()); }
Value UrlQuery(std::span<const Value> a, CallContext& ctx) {
  std::vector<lib::Url::QueryEntry> query = U(a[0]).Query();
  auto map = MakeRef<HashMap>();
  for (auto& [key, values] : query) {
    if (!ctx.CheckAllocation(32 + 16 * values.size())) return Err("allocation limit exceeded");
    std::vector<Value> list;
    list.reserve(values.size());
    for (std::string& v : values) list.push_back(Value::String(std::move(v)));
    map->Insert(Value::String(std::move(key)), Value::List(std::move(list)));
  }
  return Value::Map(std::move(map));
}

Status RegisterUrl(FunctionRegistry& r, const KubernetesLibraryOptions& options) {
  static const lib::GoUrlRules kRules[] = {lib::GoUrlRules::kGo125, lib::GoUrlRules::kGo126};
  const void* rules = options.url_rules == lib::GoUrlRules::kGo126 ? &kRules[1] : &kRules[0];
  const Param u = Opaque(kURLTypeName);
  const Param s = P(kStringK);
  Overload url;
  url.id = "string_to_url";
  url.function = "url";
  url.params = {s};
  url.impl = UrlFromString;
  url.cost = TenthOfFirst;
  url.data = rules;
  DRA_RETURN_IF_ERROR(r.Register(std::move(url)));
  Overload is_url;
  is_url.id = "url_is_url_string";
  is_url.function = "isURL";
  is_url.params = {s};
  is_url.impl = IsUrl;
  is_url.data = rules;
  DRA_RETURN_IF_ERROR(r.Register(std::move(is_url)));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_scheme", "getScheme", true, {u}, UrlScheme));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_host", "getHost", true, {u}, UrlHost));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_hostname", "getHostname", true, {u}, UrlHostname));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_port", "getPort", true, {u}, UrlPort));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_escaped_path", "getEscapedPath", true, {u}, UrlEscapedPath));
  DRA_RETURN_IF_ERROR(Add(r, "url_get_query", "getQuery", true, {u}, UrlQuery));
  return OkStatus();
}

// --- ip and cidr -----------------------------------------------------------------

const lib::IPAddress& IP(const Value& v) { return As<IPValue>(v).ip(); }
const lib::Cidr& CIDR(const Value& v) { return As<CIDRValue>(v).cidr(); }

Value NewIP(lib::IPAddress ip) { return Value::Opaque(MakeRef<IPValue>(std::move(ip))); }
Value NewCIDR(lib::Cidr c) { return Value::Opaque(MakeRef<CIDRValue>(std::move(c))); }

Value IpFromString(std::span<const Value> a, CallContext&) {
  StatusOr<lib::IPAddress> ip = lib::IPAddress::Parse(a[0].string_value());
  if (!ip.ok()) return Err(std::string(ip.status().message()));
  return NewIP(*std::move(ip));
}
Value IsIp(std::span<const Value> a, CallContext&) { return Value::Bool(lib::IPAddress::IsValid(a[0].string_value())); }
Value IpIsCanonical(std::span<const Value> a, CallContext&) {
  StatusOr<bool> c = lib::IPAddress::IsCanonical(a[0].string_value());
  if (!c.ok()) return Err(std::string(c.status().message()));
  return Value::Bool(*c);
}
Value IpToString(std::span<const Value> a, CallContext&) { return Value::String(IP(a[0]).String()); }
Value IpFamily(std::span<const Value> a, CallContext&) { return Value::Int(IP(a[0]).family()); }
Value IpIsUnspecified(std::span<const Value> a, CallContext&) { return Value::Bool(IP(a[0]).IsUnspecified()); }
Value IpIsLoopback(std::span<const Value> a, CallContext&) { return Value::Bool(IP(a[0]).IsLoopback()); }
Value IpIsLinkLocalMulticast(std::span<const Value> a, CallContext&) {
  return Value::Bool(IP(a[0]).IsLinkLocalMulticast());
}
Value IpIsLinkLocalUnicast(std::span<const Value> a, CallContext&) {
  return Value::Bool(IP(a[0]).IsLinkLocalUnicast());
}
Value IpIsGlobalUnicast(std::span<const Value> a, CallContext&) { return Value::Bool(IP(a[0]).IsGlobalUnicast()); }

Value CidrFromString(std::span<const Value> a, CallContext&) {
  StatusOr<lib::Cidr> c = lib::Cidr::Parse(a[0].string_value());
  if (!c.ok()) return Err(std::string(c.status().message()));
  return NewCIDR(*std::move(c));
}
Value IsCidr(std::span<const Value> a, CallContext&) { return Value::Bool(lib::Cidr::IsValid(a[0].string_value())); }
Value CidrToString(std::span<const Value> a, CallContext&) { return Value::String(CIDR(a[0]).String()); }
Value CidrContainsIp(std::span<const Value> a, CallContext&) { return Value::Bool(CIDR(a[0]).ContainsIP(IP(a[1]))); }
Value CidrContainsIpString(std::span<const Value> a, CallContext&) {
  StatusOr<bool> c = CIDR(a[0]).ContainsIP(a[1].string_value());
  if (!c.ok()) return Err(std::string(c.status().message()));
  return Value::Bool(*c);
}
Value CidrContainsCidr(std::span<const Value> a, CallContext&) {
  return Value::Bool(CIDR(a[0]).ContainsCidr(CIDR(a[1])));
}
Value CidrContainsCidrString(std::span<const Value> a, CallContext&) {
  StatusOr<bool> c = CIDR(a[0]).ContainsCidr(a[1].string_value());
  if (!c.ok()) return Err(std::string(c.status().message()));
  return Value::Bool(*c);
}
Value CidrIp(std::span<const Value> a, CallContext&) { return NewIP(CIDR(a[0]).ip()); }
Value CidrMasked(std::span<const Value> a, CallContext&) { return NewCIDR(CIDR(a[0]).Masked()); }
Value CidrPrefixLength(std::span<const Value> a, CallContext&) { return Value::Int(CIDR(a[0]).prefix_length()); }

// containsIP: ceil(0.1 * 2 * size(cidr)) with size 1 for the object, plus the
// parse of a string argument; containsCIDR adds another ceil(0.1) + 1.
uint64_t ContainsIpCost(std::span<const Value>, const Value&) { return 1; }
uint64_t ContainsIpStringCost(std::span<const Value> a, const Value& r) {
  return ContainsIpCost(a, r) + CeilFactor(CostSize(a[1]), 0.1);
}
uint64_t ContainsCidrCost(std::span<const Value>, const Value&) { return 3; }
uint64_t ContainsCidrStringCost(std::span<const Value> a, const Value& r) {
  return ContainsCidrCost(a, r) + CeilFactor(CostSize(a[1]), 0.1);
}

Status RegisterIp(FunctionRegistry& r) {
  const Param ip = Opaque(kIPTypeName);
  const Param cidr = Opaque(kCIDRTypeName);
  const Param s = P(kStringK);
  DRA_RETURN_IF_ERROR(Add(r, "string_to_ip", "ip", false, {s}, IpFromString, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "is_ip", "isIP", false, {s}, IsIp, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_canonical", "ip.isCanonical", false, {s}, IpIsCanonical, FifthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "ip_to_string", "string", false, {ip}, IpToString));
  DRA_RETURN_IF_ERROR(Add(r, "ip_family", "family", true, {ip}, IpFamily));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_unspecified", "isUnspecified", true, {ip}, IpIsUnspecified));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_loopback", "isLoopback", true, {ip}, IpIsLoopback));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_link_local_multicast", "isLinkLocalMulticast", true, {ip}, IpIsLinkLocalMulticast));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_link_local_unicast", "isLinkLocalUnicast", true, {ip}, IpIsLinkLocalUnicast));
  DRA_RETURN_IF_ERROR(Add(r, "ip_is_global_unicast", "isGlobalUnicast", true, {ip}, IpIsGlobalUnicast));

  DRA_RETURN_IF_ERROR(Add(r, "string_to_cidr", "cidr", false, {s}, CidrFromString, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "is_cidr", "isCIDR", false, {s}, IsCidr, TenthOfFirst));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_to_string", "string", false, {cidr}, CidrToString));
  DRA_RETURN_IF_ERROR(
      Add(r, "cidr_contains_ip_string", "containsIP", true, {cidr, s}, CidrContainsIpString, ContainsIpStringCost));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_contains_ip_ip", "containsIP", true, {cidr, ip}, CidrContainsIp, ContainsIpCost));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_contains_cidr_string", "containsCIDR", true, {cidr, s}, CidrContainsCidrString,
                          ContainsCidrStringCost));
  DRA_RETURN_IF_ERROR(
      Add(r, "cidr_contains_cidr", "containsCIDR", true, {cidr, cidr}, CidrContainsCidr, ContainsCidrCost));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_ip", "ip", true, {cidr}, CidrIp));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_masked", "masked", true, {cidr}, CidrMasked));
  DRA_RETURN_IF_ERROR(Add(r, "cidr_prefix_length", "prefixLength", true, {cidr}, CidrPrefixLength));
  return OkStatus();
}

// --- named formats (format.named, format.dns1123Label(), f.validate) ----------------

using Validator = std::vector<std::string> (*)(std::string_view);

struct NamedFormat {
  std::string_view key;   // format.named(key), format.<key>()
  std::string_view name;  // upstream Format.Name
  Validator validate;
};

// apimachinery's NameIs*(name, prefix=true) validate a generated-name
// prefix: a trailing '-' is allowed, so it is replaced by a letter first.
std::string MaskTrailingDash(std::string_view s) {
  std::string out(s);
  if (out.size() > 1 && out.back() == '-') out.back() = 'a';
  return out;
}

std::vector<std::string> Dns1035Label(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > api::kDNS1123LabelMaxLength) {
    errs.push_back(api::MaxLengthMessage(api::kDNS1123LabelMaxLength));
  }
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const auto alnum = [&](char c) { return lower(c) || (c >= '0' && c <= '9'); };
  bool ok = !s.empty() && lower(s.front()) && alnum(s.back());
  for (char c : s) ok = ok && (alnum(c) || c == '-');
  if (!ok) {
    errs.push_back(
        "a DNS-1035 label may contain only lower case alphanumeric characters or '-', and must "
        "begin with a letter and end with an alphanumeric character (e.g. 'my-name' or "
        "'abc-123'; regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return errs;
}

std::vector<std::string> FormatDns1123Label(std::string_view s) { return api::IsDNS1123Label(s); }
std::vector<std::string> FormatDns1123Subdomain(std::string_view s) { return api::IsDNS1123Subdomain(s); }
std::vector<std::string> FormatDns1123LabelPrefix(std::string_view s) {
  return api::IsDNS1123Label(MaskTrailingDash(s));
}
std::vector<std::string> FormatDns1123SubdomainPrefix(std::string_view s) {
  return api::IsDNS1123Subdomain(MaskTrailingDash(s));
}
std::vector<std::string> FormatDns1035LabelPrefix(std::string_view s) { return Dns1035Label(MaskTrailingDash(s)); }
std::vector<std::string> FormatQualifiedName(std::string_view s) { return api::IsLabelName(s); }
std::vector<std::string> FormatLabelValue(std::string_view s) { return api::IsLabelValue(s); }

std::vector<std::string> FormatUri(std::string_view s) {
  if (lib::Url::IsValid(s)) return {};
  // url.ParseRequestURI's error, without the CEL conversion prefix.
  static constexpr std::string_view kPrefix = "URL parse error during conversion from string: ";
  StatusOr<lib::Url> u = lib::Url::Parse(s);
  std::string message = u.ok() ? "invalid URI" : std::string(u.status().message());
  if (message.starts_with(kPrefix)) message.erase(0, kPrefix.size());
  return {message};
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// strfmt "uuid": 8-4-4-4-12 hex digits, either case, the dashes optional.
std::vector<std::string> FormatUuid(std::string_view s) {
  size_t pos = 0;
  bool ok = true;
  for (size_t group : std::initializer_list<size_t>{8, 4, 4, 4, 12}) {
    if (group != 8 && pos < s.size() && s[pos] == '-') ++pos;
    for (size_t i = 0; i < group; ++i, ++pos) ok = ok && pos < s.size() && IsHex(s[pos]);
  }
  if (!ok || pos != s.size()) return {"does not match the UUID format"};
  return {};
}

// strfmt "byte": Go's base64.StdEncoding.DecodeString succeeds (padded,
// standard alphabet; carriage returns and newlines are ignored).
std::vector<std::string> FormatByte(std::string_view s) {
  std::string clean;
  for (char c : s) {
    if (c != '\r' && c != '\n') clean.push_back(c);
  }
  const auto b64 = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
  };
  if (clean.size() % 4 != 0) return {"invalid base64"};
  size_t pad = 0;
  while (pad < 2 && pad < clean.size() && clean[clean.size() - 1 - pad] == '=') ++pad;
  for (size_t i = 0; i + pad < clean.size(); ++i) {
    if (!b64(clean[i])) return {"invalid base64"};
  }
  return {};
}

bool ParseDigits(std::string_view s, size_t pos, size_t count, int* out) {
  if (pos + count > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// YYYY-MM-DD at `s[0..10)`, a real calendar date.
bool ValidDate(std::string_view s) {
  int y, m, d;
  if (s.size() < 10 || !ParseDigits(s, 0, 4, &y) || s[4] != '-' || !ParseDigits(s, 5, 2, &m) || s[7] != '-' ||
      !ParseDigits(s, 8, 2, &d)) {
    return false;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

std::vector<std::string> FormatDate(std::string_view s) {
  if (s.size() != 10 || !ValidDate(s)) return {"invalid date"};
  return {};
}

// RFC 3339 date-time: date 'T' hh:mm:ss[.frac] then 'Z' or +-hh:mm.
std::vector<std::string> FormatDatetime(std::string_view s) {
  int h, mi, sec, zh, zm;
  bool ok = ValidDate(s) && s.size() >= 20 && (s[10] == 'T' || s[10] == 't') && ParseDigits(s, 11, 2, &h) &&
            s[13] == ':' && ParseDigits(s, 14, 2, &mi) && s[16] == ':' && ParseDigits(s, 17, 2, &sec) && h < 24 &&
            mi < 60 && sec < 60;
  size_t pos = 19;
  if (ok && pos < s.size() && s[pos] == '.') {
    ++pos;
    const size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    ok = pos > start;
  }
  if (ok) {
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
      ok = pos + 1 == s.size();
    } else {
      ok = pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && ParseDigits(s, pos + 1, 2, &zh) &&
           s[pos + 3] == ':' && ParseDigits(s, pos + 4, 2, &zm) && zh < 24 && zm < 60;
    }
  }
  if (!ok) return {"invalid datetime"};
  return {};
}

constexpr NamedFormat kNamedFormats[] = {
    {"dns1123Label", "DNS1123Label", FormatDns1123Label},
    {"dns1123Subdomain", "DNS1123Subdomain", FormatDns1123Subdomain},
    {"dns1035Label", "DNS1035Label", Dns1035Label},
    {"qualifiedName", "QualifiedName", FormatQualifiedName},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", FormatDns1123LabelPrefix},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", FormatDns1123SubdomainPrefix},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", FormatDns1035LabelPrefix},
    {"labelValue", "LabelValue", FormatLabelValue},
    {"uri", "URI", FormatUri},
    {"uuid", "uuid", FormatUuid},
    {"byte", "byte", FormatByte},
    {"date", "date", FormatDate},
    {"datetime", "datetime", FormatDatetime},
};

class NamedFormatValue final : public OpaqueObject {
 public:
  explicit NamedFormatValue(const NamedFormat* format) : format_(format) {}
  ~NamedFormatValue() override = default;
  const NamedFormat& format() const { return *format_; }
  std::string_view type_name() const override { return kNamedFormatTypeName; }
  Value Equals(const Value& other) const override {
    if (!IsOpaqueOf(other, kNamedFormatTypeName)) return NoSuchOverload();
    return Value::Bool(format_ == &As<NamedFormatValue>(other).format());
  }
  std::string DebugString() const override { return std::string(format_->name); }

 private:
  const NamedFormat* format_;
};

Value NewNamedFormat(const NamedFormat* f) { return Value::Opaque(MakeRef<NamedFormatValue>(f)); }

Value FormatNamed(std::span<const Value> a, CallContext&) {
  for (const NamedFormat& f : kNamedFormats) {
    if (f.key == a[0].string_value()) return Value::Optional(NewNamedFormat(&f));
  }
  return Value::OptionalNone();
}

Value FormatConstant(std::span<const Value>, CallContext& ctx) {
  return NewNamedFormat(static_cast<const NamedFormat*>(ctx.data()));
}

Value FormatValidate(std::span<const Value> a, CallContext&) {
  std::vector<std::string> errs = As<NamedFormatValue>(a[0]).format().validate(a[1].string_value());
  if (errs.empty()) return Value::OptionalNone();
  std::vector<Value> list;
  list.reserve(errs.size());
  for (std::string& e : errs) list.push_back(Value::String(std::move(e)));
  return Value::Optional(Value::List(std::move(list)));
}

Status RegisterNamedFormats(FunctionRegistry& r) {
  DRA_RETURN_IF_ERROR(Add(r, "format-named", "format.named", false, {P(kStringK)}, FormatNamed));
  DRA_RETURN_IF_ERROR(
      Add(r, "format-validate", "validate", true, {Opaque(kNamedFormatTypeName), P(kStringK)}, FormatValidate));
  for (const NamedFormat& f : kNamedFormats) {
    Overload o;
    o.id = "format." + std::string(f.key);
    o.function = o.id;
    o.impl = FormatConstant;
    o.data = &f;
    DRA_RETURN_IF_ERROR(r.Register(std::move(o)));
  }
  return OkStatus();
}

// --- strings v2 format() ------------------------------------------------------------

lib::FormatArg ToFormatArg(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return lib::FormatArg::Null();
    case ValueKind::kBool: return lib::FormatArg::Bool(v.bool_value());
    case ValueKind::kInt: return lib::FormatArg::Int(v.int_value());
    case ValueKind::kUint: return lib::FormatArg::Uint(v.uint_value());
    case ValueKind::kDouble: return lib::FormatArg::Double(v.double_value());
    case ValueKind::kString: return lib::FormatArg::String(std::string(v.string_value()));
    case ValueKind::kBytes: return lib::FormatArg::Bytes(std::string(v.bytes_value()));
    case ValueKind::kType: return lib::FormatArg::Type(std::string(v.type_name_value()));
    case ValueKind::kList: {
      std::vector<lib::FormatArg> elements;
      const ListObject& l = v.list();
      for (size_t i = 0; i < l.size(); ++i) elements.push_back(ToFormatArg(l.Get(i)));
      return lib::FormatArg::List(std::move(elements));
    }
    case ValueKind::kMap: {
      std::vector<lib::FormatMapEntry> entries;
      const MapObject& m = v.map();
      for (size_t i = 0; i < m.size(); ++i) {
        entries.push_back({ToFormatArg(m.KeyAt(i)), ToFormatArg(m.ValueAt(i))});
      }
      return lib::FormatArg::Map(std::move(entries));
    }
    default: return lib::FormatArg::Other(std::string(v.TypeName()));
  }
}

Value StringFormat(std::span<const Value> a, CallContext& ctx) {
  const ListObject& l = a[1].list();
  std::vector<lib::FormatArg> args;
  args.reserve(l.size());
  for (size_t i = 0; i < l.size(); ++i) args.push_back(ToFormatArg(l.Get(i)));
  StatusOr<std::string> out = lib::FormatString(a[0].string_value(), args);
  if (!out.ok()) return Err(std::string(out.status().message()));
  if (!ctx.CheckAllocation(out->size())) return Err("allocation limit exceeded");
  return Value::String(*std::move(out));
}

}  // namespace

// --- Environment --------------------------------------------------------------------

KubernetesLibraryOptions KubernetesLibraryOptions::Stored(int minor) {
  KubernetesLibraryOptions o;
  o.minor = minor;
  o.includes = minor >= 37;  // Kubernetes lists v1
  return o;
}

KubernetesLibraryOptions KubernetesLibraryOptions::New(int minor) {
  KubernetesLibraryOptions o;
  o.minor = minor;
  o.new_expressions = true;
  return o;
}

Status RegisterKubernetesLibraries(FunctionRegistry& registry, const KubernetesLibraryOptions& options) {
  DRA_RETURN_IF_ERROR(RegisterQuantity(registry));
  DRA_RETURN_IF_ERROR(RegisterSemver(registry));
  DRA_RETURN_IF_ERROR(RegisterLists(registry, options));
  DRA_RETURN_IF_ERROR(RegisterRegex(registry));
  DRA_RETURN_IF_ERROR(RegisterUrl(registry, options));
  DRA_RETURN_IF_ERROR(RegisterIp(registry));
  DRA_RETURN_IF_ERROR(RegisterNamedFormats(registry));
  DRA_RETURN_IF_ERROR(
      Add(registry, "string_format", "format", true, {P(kStringK), P(kListK)}, StringFormat, TenthOfFirst));
  return OkStatus();
}

StatusOr<std::shared_ptr<FunctionRegistry>> NewKubernetesRegistry(const KubernetesLibraryOptions& options) {
  if (options.minor < kOldestMinor || options.minor > kNewestMinor) {
    return InvalidArgumentError("Kubernetes release 1." + std::to_string(options.minor) + " is not supported (1." +
                                std::to_string(kOldestMinor) + " to 1." + std::to_string(kNewestMinor) + " are)");
  }
  LibraryOptions lib = LibraryOptions::Kubernetes();
  lib.format_flavor = FormatFlavor::kExternal;
  lib.lists = options.ext_lists();
  DRA_ASSIGN_OR_RETURN(std::shared_ptr<FunctionRegistry> registry, NewRegistry(lib));
  DRA_RETURN_IF_ERROR(RegisterKubernetesLibraries(*registry, options));
  return registry;
}

ParseOptions KubernetesLibraryParseOptions(const KubernetesLibraryOptions& options) {
  ParseOptions p;
  p.enable_lists_macros = options.ext_lists();
  return p;
}

// --- Literal validators --------------------------------------------------------------

namespace {

// What can be said about the type of an expression without a checker.
struct StaticType {
  bool known = false;
  std::string name;  // cel-go's rendering: "int", "list(int)", "map(string, int)", "dyn"
  // For the format check: the element types of a list or map literal.
  std::vector<lib::FormatArgType> literal_elements;
  // For the format check: "list"/"map" for literals, else `name`; empty
  // (dyn) when unknown.
  std::string format_name;

  static StaticType Unknown() { return {}; }
  static StaticType Named(std::string n) {
    StaticType t;
    t.known = true;
    t.format_name = n;
    t.name = std::move(n);
    return t;
  }
};

class LiteralValidator {
 public:
  explicit LiteralValidator(const ParsedExpr& parsed) : parsed_(parsed) {}

  std::vector<Issue> Run() {
    Visit(parsed_.expr, false);
    return std::move(issues_);
  }

 private:
  void Report(int64_t id, std::string message) {
    Issue issue;
    if (auto pos = parsed_.source_info.GetPosition(id)) {
      issue.line = pos->line;
      issue.column = pos->column;
    }
    issue.message = std::move(message);
    issues_.push_back(std::move(issue));
  }

  static std::string_view ConstantTypeName(const Constant& c) {
    switch (c.kind()) {
      case Constant::Kind::kNull: return "null_type";
      case Constant::Kind::kBool: return "bool";
      case Constant::Kind::kInt: return "int";
      case Constant::Kind::kUint: return "uint";
      case Constant::Kind::kDouble: return "double";
      case Constant::Kind::kString: return "string";
      case Constant::Kind::kBytes: return "bytes";
    }
    return "dyn";
  }

  // Checks that the known types among `types` (with the ids of their
  // expressions) agree; returns the common type, if every one is known.
  std::optional<std::string> Homogeneous(const std::vector<std::pair<int64_t, StaticType>>& types, bool exempt) {
    const StaticType* first = nullptr;
    bool all_known = true;
    for (const auto& [id, t] : types) {
      if (!t.known) {
        all_known = false;
        continue;
      }
      if (first == nullptr) {
        first = &t;
        continue;
      }
      if (t.name != first->name) {
        if (!exempt) Report(id, "expected type '" + first->name + "' but found '" + t.name + "'");
        return std::nullopt;
      }
    }
    if (!all_known || first == nullptr) return std::nullopt;
    return first->name;
  }

  static lib::FormatArgType ToFormatType(const StaticType& t) {
    lib::FormatArgType f;
    f.type_name = t.format_name.empty() ? "dyn" : t.format_name;
    f.literal_elements = t.literal_elements;
    return f;
  }

  // Types `e` as far as literals allow, reporting heterogeneous literals
  // unless `exempt` (inside a format() call).
  StaticType Visit(const Expr& e, bool exempt) {
    switch (e.kind()) {
      case ExprKind::kConstant: return StaticType::Named(std::string(ConstantTypeName(e.constant())));
      case ExprKind::kList: {
        const ListExpr& l = e.list();
        std::vector<std::pair<int64_t, StaticType>> types;
        for (size_t i = 0; i < l.elements.size(); ++i) {
          StaticType t = Visit(l.elements[i], exempt);
          if (l.IsOptional(i)) t = StaticType::Unknown();
          types.emplace_back(l.elements[i].id(), std::move(t));
        }
        std::optional<std::string> elem = Homogeneous(types, exempt);
        StaticType out = elem ? StaticType::Named("list(" + *elem + ")") : StaticType::Unknown();
        for (const auto& [id, t] : types) out.literal_elements.push_back(ToFormatType(t));
        out.format_name = "list";
        return out;
      }
      case ExprKind::kMap: {
        const MapExpr& m = e.map();
        std::vector<std::pair<int64_t, StaticType>> keys, values;
        std::vector<lib::FormatArgType> elements;
        for (const MapEntry& entry : m.entries) {
          StaticType k = Visit(*entry.key, exempt);
          StaticType v = Visit(*entry.value, exempt);
          if (entry.optional) v = StaticType::Unknown();
          elements.push_back(ToFormatType(k));
          elements.push_back(ToFormatType(v));
          keys.emplace_back(entry.key->id(), std::move(k));
          values.emplace_back(entry.value->id(), std::move(v));
        }
        std::optional<std::string> k = Homogeneous(keys, exempt);
        std::optional<std::string> v = Homogeneous(values, exempt);
        StaticType out = (k && v) ? StaticType::Named("map(" + *k + ", " + *v + ")") : StaticType::Unknown();
        out.literal_elements = std::move(elements);
        out.format_name = "map";
        return out;
      }
      case ExprKind::kCall: {
        const CallExpr& c = e.call();
        const bool is_format = c.function == "format";
        if (c.has_target()) Visit(*c.target, exempt || is_format);
        std::vector<StaticType> args;
        for (const Expr& a : c.args) args.push_back(Visit(a, exempt || is_format));
        if (is_format && c.has_target() && c.target->Is<Constant>() &&
            c.target->constant().kind() == Constant::Kind::kString && c.args.size() == 1 && c.args[0].Is<ListExpr>()) {
          CheckFormat(e, c.target->constant().string_value(), c.args[0], args[0]);
        }
        if (!c.has_target() && c.function == "dyn" && c.args.size() == 1) {
          return StaticType::Named("dyn");
        }
        return StaticType::Unknown();
      }
      case ExprKind::kSelect: Visit(*e.select().operand, exempt); return StaticType::Unknown();
      case ExprKind::kStruct:
        for (const StructField& f : e.struct_expr().fields) Visit(*f.value, exempt);
        return StaticType::Unknown();
      case ExprKind::kComprehension: {
        const ComprehensionExpr& c = e.comprehension();
        Visit(*c.iter_range, exempt);
        Visit(*c.accu_init, exempt);
        Visit(*c.loop_condition, exempt);
        Visit(*c.loop_step, exempt);
        Visit(*c.result, exempt);
        return StaticType::Unknown();
      }
      default: return StaticType::Unknown();
    }
  }

  // The formatter's compile-time check of '<format>'.format([...]).
  void CheckFormat(const Expr& call, const std::string& format, const Expr& list, const StaticType& list_type) {
    std::optional<lib::FormatCheckError> err = lib::CheckFormatCall(format, list_type.literal_elements);
    if (!err) return;
    // Report at the offending element when the check names one.
    const Expr* at = &call;
    const Expr* cur = &list;
    for (size_t step : err->element_path) {
      const Expr* next = nullptr;
      if (cur->Is<ListExpr>() && step < cur->list().elements.size()) {
        next = &cur->list().elements[step];
      } else if (cur->Is<MapExpr>() && step / 2 < cur->map().entries.size()) {
        const MapEntry& entry = cur->map().entries[step / 2];
        next = step % 2 == 0 ? entry.key.get() : entry.value.get();
      }
      if (next == nullptr) break;
      at = cur = next;
    }
    Report(at->id(), err->message);
  }

  const ParsedExpr& parsed_;
  std::vector<Issue> issues_;
};

}  // namespace

std::vector<Issue> ValidateKubernetesLiterals(const ParsedExpr& parsed) { return LiteralValidator(parsed).Run(); }

}  // namespace dra::cel
