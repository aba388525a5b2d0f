// The optional library (cel-go cel/library.go, optionalLib).
#include "cel/libraries/internal/lib_util.h"
#include "cel/libraries/library.h"

namespace dra::cel {

namespace {

using namespace internal;  // NOLINT: library-local helpers

// cel-go's IsZeroValue for ofNonZeroValue.
bool IsZeroValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return true;
    case ValueKind::kBool: return !v.bool_value();
    case ValueKind::kInt: return v.int_value() == 0;
    case ValueKind::kUint: return v.uint_value() == 0;
    case ValueKind::kDouble: return v.double_value() == 0;
    case ValueKind::kString:
    case ValueKind::kBytes: return v.string_value().empty();
    case ValueKind::kList: return v.list().size() == 0;
    case ValueKind::kMap: return v.map().size() == 0;
    case ValueKind::kOptional: return !v.has_optional_value();
    default: return false;
  }
}

Value Of(std::span<const Value> a, CallContext&) { return Value::Optional(a[0]); }
Value OfNonZero(std::span<const Value> a, CallContext&) {
  return IsZeroValue(a[0]) ? Value::OptionalNone() : Value::Optional(a[0]);
}
Value None(std::span<const Value>, CallContext&) { return Value::OptionalNone(); }
Value HasValue(std::span<const Value> a, CallContext&) { return Value::Bool(a[0].has_optional_value()); }
Value GetValue(std::span<const Value> a, CallContext&) {
  if (!a[0].has_optional_value()) return Err("optional.none() dereference");
  return a[0].optional_value();
}
Value Or(std::span<const Value> a, CallContext&) { return a[0].has_optional_value() ? a[0] : a[1]; }
Value OrValue(std::span<const Value> a, CallContext&) {
  return a[0].has_optional_value() ? a[0].optional_value() : a[1];
}
Value Unwrap(std::span<const Value> a, CallContext& ctx) {
  const ListObject& l = a[0].list();
  if (!ctx.CheckAllocation(16 * l.size())) return Err("allocation limit exceeded");
  std::vector<Value> out;
  for (size_t i = 0; i < l.size(); ++i) {
    Value v = l.Get(i);
    if (!v.is_optional()) {
      return Err("optional.unwrap: list element " + std::to_string(i) + " is " + std::string(v.TypeName()) +
                 ", not an optional");
    }
    if (v.has_optional_value()) out.push_back(v.optional_value());
  }
  return Value::List(std::move(out));
}

}  // namespace

Status RegisterOptionalLibrary(FunctionRegistry& r) {
  const Param o = P(kOptionalK);
  DRA_RETURN_IF_ERROR(Add(r, "optional_of", "optional.of", false, {AnyP()}, Of));
  DRA_RETURN_IF_ERROR(Add(r, "optional_ofNonZeroValue", "optional.ofNonZeroValue", false, {AnyP()}, OfNonZero));
  DRA_RETURN_IF_ERROR(Add(r, "optional_none", "optional.none", false, {}, None));
  DRA_RETURN_IF_ERROR(Add(r, "optional_hasValue", "hasValue", true, {o}, HasValue));
  DRA_RETURN_IF_ERROR(Add(r, "optional_value", "value", true, {o}, GetValue));
  // Planned as short-circuit nodes when the receiver has a value; these
  // overloads serve the strict fallback and constant folding.
  DRA_RETURN_IF_ERROR(Add(r, "optional_or_optional", "or", true, {o, o}, Or));
  DRA_RETURN_IF_ERROR(Add(r, "optional_orValue_value", "orValue", true, {o, AnyP()}, OrValue));
  DRA_RETURN_IF_ERROR(Add(r, "optional_unwrap_list", "optional.unwrap", false, {P(kListK)}, Unwrap));
  DRA_RETURN_IF_ERROR(Add(r, "list_unwrapOpt", "unwrapOpt", true, {P(kListK)}, Unwrap));
  return OkStatus();
}

}  // namespace dra::cel
