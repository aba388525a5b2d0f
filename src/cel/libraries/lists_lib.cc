// ext.Lists v3 and ext.Sets (cel-go ext/lists.go, ext/sets.go), with the
// runtime costs of cel-go's list cost trackers (result size x factor, plus
// the call and the list allocation).
#include <algorithm>

#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"

namespace dra::cel {

namespace {

using namespace internal;  // NOLINT: library-local helpers

constexpr int64_t kMaxRangeSize = 10'000'000;
constexpr uint64_t kCallCost = 1;
constexpr uint64_t kListCreateCost = 10;

uint64_t AllocatingListCost(double factor, uint64_t size) {
  return static_cast<uint64_t>(static_cast<double>(size) * factor) + kCallCost + kListCreateCost;
}

std::vector<Value> Elements(const ListObject& l) {
  std::vector<Value> out;
  out.reserve(l.size());
  for (size_t i = 0; i < l.size(); ++i) out.push_back(l.Get(i));
  return out;
}

Value Range(std::span<const Value> a, CallContext& ctx) {
  const int64_t n = a[0].int_value();
  if (n < 0) return Err("lists.range: size must be non-negative, got " + std::to_string(n));
  if (n > kMaxRangeSize) {
    return Err("lists.range: size " + std::to_string(n) + " exceeds maximum allowed (" + std::to_string(kMaxRangeSize) +
               ")");
  }
  if (!ctx.CheckAllocation(16 * static_cast<uint64_t>(n))) return Err("allocation limit exceeded");
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(Value::Int(i));
  return Value::List(std::move(out));
}

Value Reverse(std::span<const Value> a, CallContext& ctx) {
  const ListObject& l = a[0].list();
  if (!ctx.CheckAllocation(16 * l.size())) return Err("allocation limit exceeded");
  std::vector<Value> out = Elements(l);
  std::reverse(out.begin(), out.end());
  return Value::List(std::move(out));
}

Value Slice(std::span<const Value> a, CallContext& ctx) {
  const ListObject& l = a[0].list();
  const int64_t start = a[1].int_value(), end = a[2].int_value();
  const std::string call = "cannot slice(" + std::to_string(start) + ", " + std::to_string(end) + ")";
  if (start < 0 || end < 0) return Err(call + ", negative indexes not supported");
  if (start > end) return Err(call + ", start index must be less than or equal to end index");
  if (static_cast<uint64_t>(end) > l.size()) {
    return Err(call + ", list is length " + std::to_string(l.size()));
  }
  if (!ctx.CheckAllocation(16 * static_cast<uint64_t>(end - start))) {
    return Err("allocation limit exceeded");
  }
  std::vector<Value> out;
  for (int64_t i = start; i < end; ++i) out.push_back(l.Get(static_cast<size_t>(i)));
  return Value::List(std::move(out));
}

bool FlattenInto(const ListObject& l, int64_t depth, std::vector<Value>& out, CallContext& ctx) {
  for (size_t i = 0; i < l.size(); ++i) {
    Value v = l.Get(i);
    if (v.is_list() && depth > 0) {
      if (!FlattenInto(v.list(), depth - 1, out, ctx)) return false;
    } else {
      if (!ctx.CheckAllocation(16)) return false;
      out.push_back(std::move(v));
    }
  }
  return true;
}

Value FlattenImpl(const ListObject& l, int64_t depth, CallContext& ctx) {
  if (depth < 0) return Err("level must be non-negative");
  std::vector<Value> out;
  if (!FlattenInto(l, std::min<int64_t>(depth, 1000), out, ctx)) {
    return Err("allocation limit exceeded");
  }
  return Value::List(std::move(out));
}
Value Flatten(std::span<const Value> a, CallContext& ctx) { return FlattenImpl(a[0].list(), 1, ctx); }
Value FlattenDepth(std::span<const Value> a, CallContext& ctx) {
  return FlattenImpl(a[0].list(), a[1].int_value(), ctx);
}

Value Distinct(std::span<const Value> a, CallContext& ctx) {
  const ListObject& l = a[0].list();
  if (!ctx.CheckAllocation(16 * l.size())) return Err("allocation limit exceeded");
  std::vector<Value> out;
  for (size_t i = 0; i < l.size(); ++i) {
    Value v = l.Get(i);
    bool seen = false;
    for (const Value& u : out) {
      if (EqualBool(v, u)) {
        seen = true;
        break;
      }
    }
    if (!seen) out.push_back(std::move(v));
  }
  return Value::List(std::move(out));
}

bool Comparable(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kDouble:
    case ValueKind::kBool:
    case ValueKind::kString:
    case ValueKind::kBytes: return true;
    case ValueKind::kOpaque: return v.opaque().Compare(v) != Ordering::kInvalid;  // timestamps, durations
    default: return false;
  }
}

Value SortByKeys(const ListObject& list, const ListObject& keys, CallContext& ctx) {
  if (list.size() != keys.size()) {
    return Err(
        "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
        "but got " +
        std::to_string(list.size()) + " and " + std::to_string(keys.size()) + " elements respectively");
  }
  if (!ctx.CheckAllocation(32 * list.size())) return Err("allocation limit exceeded");
  std::vector<Value> key_values = Elements(keys);
  if (key_values.empty()) return Value::List(Elements(list));
  if (!Comparable(key_values[0])) return Err("list elements must be comparable");
  for (const Value& k : key_values) {
    if (k.kind() != key_values[0].kind()) return Err("list elements must have the same type");
  }
  std::vector<size_t> order(key_values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return Compare(key_values[x], key_values[y]) == Ordering::kLess; });
  std::vector<Value> out;
  out.reserve(order.size());
  for (size_t i : order) out.push_back(list.Get(i));
  return Value::List(std::move(out));
}

Value Sort(std::span<const Value> a, CallContext& ctx) { return SortByKeys(a[0].list(), a[0].list(), ctx); }
Value SortByAssociatedKeys(std::span<const Value> a, CallContext& ctx) {
  return SortByKeys(a[0].list(), a[1].list(), ctx);
}

Value First(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  return l.size() == 0 ? Value::OptionalNone() : Value::Optional(l.Get(0));
}
Value Last(std::span<const Value> a, CallContext&) {
  const ListObject& l = a[0].list();
  return l.size() == 0 ? Value::OptionalNone() : Value::Optional(l.Get(l.size() - 1));
}

uint64_t OutputSizeCost(std::span<const Value>, const Value& result) { return AllocatingListCost(1, CostSize(result)); }
uint64_t FlattenCost(std::span<const Value> a, const Value&) {
  const double depth = a.size() == 2 ? static_cast<double>(std::max<int64_t>(a[1].int_value(), 0)) : 1.0;
  return AllocatingListCost(depth, CostSize(a[0]));
}
uint64_t SelfCompareCost(const ListObject& l) {
  const uint64_t n = l.size();
  double factor = 2.0;
  if (n > 0) {
    Value first = l.Get(0);
    if (first.is_string() || first.is_bytes()) factor += 0.1;
  }
  return AllocatingListCost(factor, n * n);
}
uint64_t DistinctCost(std::span<const Value> a, const Value&) { return SelfCompareCost(a[0].list()); }
uint64_t SortByCost(std::span<const Value> a, const Value&) { return SelfCompareCost(a[a.size() - 1].list()); }

// --- Sets ---------------------------------------------------------------------

bool ListContains(const ListObject& l, const Value& v) {
  for (size_t i = 0; i < l.size(); ++i) {
    if (EqualBool(l.Get(i), v)) return true;
  }
  return false;
}

bool ContainsAll(const ListObject& a, const ListObject& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    if (!ListContains(a, b.Get(i))) return false;
  }
  return true;
}

Value SetsContains(std::span<const Value> a, CallContext&) {
  return Value::Bool(ContainsAll(a[0].list(), a[1].list()));
}
Value SetsEquivalent(std::span<const Value> a, CallContext&) {
  return Value::Bool(ContainsAll(a[0].list(), a[1].list()) && ContainsAll(a[1].list(), a[0].list()));
}
Value SetsIntersects(std::span<const Value> a, CallContext&) {
  const ListObject& x = a[0].list();
  const ListObject& y = a[1].list();
  for (size_t i = 0; i < y.size(); ++i) {
    if (ListContains(x, y.Get(i))) return Value::Bool(true);
  }
  return Value::Bool(false);
}
// cel-go's sets cost: the product of the list sizes (at least 1).
uint64_t SetsCost(std::span<const Value> a, const Value&) {
  return std::max<uint64_t>(1, CostSize(a[0]) * CostSize(a[1]));
}

}  // namespace

Status RegisterListsLibrary(FunctionRegistry& r) {
  const Param l = P(kListK);
  const Param i = P(kIntK);
  DRA_RETURN_IF_ERROR(Add(r, "lists_range", "lists.range", false, {i}, Range, OutputSizeCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_reverse", "reverse", true, {l}, Reverse, OutputSizeCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_slice", "slice", true, {l, i, i}, Slice, OutputSizeCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_flatten", "flatten", true, {l}, Flatten, FlattenCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_flatten_int", "flatten", true, {l, i}, FlattenDepth, FlattenCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_distinct", "distinct", true, {l}, Distinct, DistinctCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_sort", "sort", true, {l}, Sort, SortByCost));
  DRA_RETURN_IF_ERROR(
      Add(r, "list_sortByAssociatedKeys", "@sortByAssociatedKeys", true, {l, l}, SortByAssociatedKeys, SortByCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_first", "first", true, {l}, First));
  DRA_RETURN_IF_ERROR(Add(r, "list_last", "last", true, {l}, Last));
  return OkStatus();
}

Status RegisterSetsLibrary(FunctionRegistry& r) {
  const Param l = P(kListK);
  DRA_RETURN_IF_ERROR(Add(r, "list_sets_contains_list", "sets.contains", false, {l, l}, SetsContains, SetsCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_sets_equivalent_list", "sets.equivalent", false, {l, l}, SetsEquivalent, SetsCost));
  DRA_RETURN_IF_ERROR(Add(r, "list_sets_intersects_list", "sets.intersects", false, {l, l}, SetsIntersects, SetsCost));
  return OkStatus();
}

}  // namespace dra::cel
