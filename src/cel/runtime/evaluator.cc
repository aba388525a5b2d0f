// The evaluator: a tree walk over the planned nodes (internal/plan_node.h)
// with a per-thread EvalState, and Program's entry points into it.
#include <algorithm>
#include <cmath>
#include <new>

#include "cel/parser/operators.h"
#include "cel/runtime/internal/plan_node.h"
#include "cel/runtime/program.h"

namespace dra::cel {

using internal::IsKeyLike;
using internal::Op;
using internal::PlanNode;

bool CallContext::CheckAllocation(uint64_t units) {
  state_->allocated_ += units;
  if (state_->allocated_ > state_->options_.allocation_limit) {
    state_->cancelled_ = true;
    return false;
  }
  return !state_->cancelled_;
}

namespace {

Value ErrorValue(std::string message) { return Value::Error(std::move(message)); }

uint64_t CeilTenth(uint64_t n) { return (n + 9) / 10; }

// cel-go's cost of ==/!=: ceil(0.1 * min(size a, size b)), sizes in code
// points for strings. Strings of at most 10 bytes have at most 10 code
// points, so their cost is 1 (0 if one is empty) without counting.
uint64_t EqualityCost(const Value& a, const Value& b) {
  if (a.is_string() && b.is_string()) {
    const std::string_view x = a.string_value(), y = b.string_value();
    const size_t min_bytes = std::min(x.size(), y.size());
    if (min_bytes <= 10) return min_bytes > 0 ? 1 : 0;
    return CeilTenth(std::min(CodePointCount(x), CodePointCount(y)));
  }
  return CeilTenth(std::min(CostSize(a), CostSize(b)));
}

// Converts a list index (int, uint, or a whole double) to a position.
// Returns an error value when it is not a usable index.
std::optional<Value> ListIndex(const Value& list, const Value& key, size_t* position) {
  int64_t index = 0;
  switch (key.kind()) {
    case ValueKind::kInt: index = key.int_value(); break;
    case ValueKind::kUint:
      if (key.uint_value() > static_cast<uint64_t>(INT64_MAX)) {
        return ErrorValue("index out of range: " + std::to_string(key.uint_value()));
      }
      index = static_cast<int64_t>(key.uint_value());
      break;
    case ValueKind::kDouble: {
      const double d = key.double_value();
      if (!std::isfinite(d) || std::trunc(d) != d || d < -9.2e18 || d > 9.2e18) {
        return ErrorValue("unsupported index value " + key.DebugString() + " in list");
      }
      index = static_cast<int64_t>(d);
      break;
    }
    default: return ErrorValue("unsupported index type '" + std::string(key.TypeName()) + "' in list");
  }
  const size_t size = list.list().size();
  if (index < 0 || static_cast<uint64_t>(index) >= size) {
    return ErrorValue("index out of range: index " + std::to_string(index) + " in list of size " +
                      std::to_string(size));
  }
  *position = static_cast<size_t>(index);
  return std::nullopt;
}

}  // namespace

class Evaluator {
 public:
  Evaluator(const Program& program, EvalState& state) : p_(program), s_(state) {}

  Value Eval(uint32_t index) {
    if (s_.cancelled_) return Value();
    const PlanNode& n = p_.nodes_[index];
    switch (n.op) {
      case Op::kConst: return Value::Borrow(n.value);
      case Op::kVar: Charge(1); return Value::Borrow(s_.slots_[n.slot]);
      case Op::kLocal: Charge(1); return s_.slots_[n.slot];
      case Op::kUnbound: Charge(1); return n.value;
      case Op::kSelect: return EvalSelect(n);
      case Op::kHas: return EvalHas(n);
      case Op::kOptSelect: return EvalOptSelect(n);
      case Op::kIndex: return EvalIndex(n, false);
      case Op::kOptIndex: return EvalIndex(n, true);
      case Op::kAnd: return EvalLogic(n, false);
      case Op::kOr: return EvalLogic(n, true);
      case Op::kNot: {
        Value v = Eval(Child(n, 0));
        Charge(1);
        if (v.is_bool()) return Value::Bool(!v.bool_value());
        if (v.is_error()) return v;
        return NoMatchingOverload(op::kLogicalNot, std::span<const Value>(&v, 1));
      }
      case Op::kCond: {
        Value c = Eval(Child(n, 0));
        if (c.is_bool()) return Eval(Child(n, c.bool_value() ? 1 : 2));
        if (c.is_error()) return c;
        return NoMatchingOverload(op::kConditional, std::span<const Value>(&c, 1));
      }
      case Op::kNotStrictlyFalse: {
        Value v = Eval(Child(n, 0));
        Charge(1);
        if (v.is_bool()) return v;
        return Value::Bool(true);
      }
      case Op::kEq:
      case Op::kNe: return EvalEquality(n);
      case Op::kIn: return EvalIn(n);
      case Op::kCall: return EvalCall(n);
      case Op::kList: return EvalList(n);
      case Op::kMap: return EvalMap(n);
      case Op::kComprehension: return EvalComprehension(n);
      case Op::kAppendAccu: return EvalAppendAccu(n);
      case Op::kMapInsertAccu: return EvalMapInsertAccu(n);
      case Op::kOptOr:
      case Op::kOptOrValue: return EvalOptOr(n);
      case Op::kPath: return EvalPath(n);
    }
    return Value();
  }

  // Evaluates child node `index`, with the two most frequent operand kinds
  // of selectors (constants and access paths) handled without the dispatch.
  Value EvalOperand(uint32_t index) {
    const PlanNode& c = p_.nodes_[index];
    if (c.op == Op::kConst) return Value::Borrow(c.value);
    if (c.op == Op::kPath) return EvalPath(c);
    return Eval(index);
  }

  // A constant access path: one ResolvePath call when the variable's value
  // offers it, else the same steps as the kSelect / kIndex nodes it replaces,
  // with the same costs (1 for the variable, 1 per step).
  Value EvalPath(const PlanNode& n) {
    // Child 0 is always the kVar node of the root variable.
    const Value& root = s_.slots_[p_.nodes_[Child(n, 0)].slot];
    Charge(1);
    if (root.is_opaque()) {
      Value v;
      if (root.opaque().ResolvePath(n.path, n.prepared, &v)) {
        Charge(n.path.size());
        return v;
      }
    }
    return WalkPath(n, root);
  }

  // The steps of a path one by one (kept out of EvalPath, whose fast case
  // stays small).
  [[gnu::noinline]] Value WalkPath(const PlanNode& n, const Value& root) {
    Value current = Value::Borrow(root);
    for (const PathStep& step : n.path) {
      Value next;
      if (step.is_index) {
        if (current.is_error()) return current;
        Charge(1);
        next = IndexValue(current, step.key, false);
      } else {
        Charge(1);
        next = SelectField(current, step.key, false);
      }
      current = std::move(next);
    }
    return current;
  }

  // optional.or / orValue: the alternative is evaluated only when needed.
  Value EvalOptOr(const PlanNode& n) {
    Value lhs = Eval(Child(n, 0));
    if (lhs.is_error()) return lhs;
    Charge(1);
    if (!lhs.is_optional()) {
      return NoMatchingOverload(n.op == Op::kOptOr ? "or" : "orValue", std::span<const Value>(&lhs, 1));
    }
    if (lhs.has_optional_value()) return n.op == Op::kOptOr ? lhs : lhs.optional_value();
    Value rhs = Eval(Child(n, 1));
    if (rhs.is_error()) return rhs;
    if (n.op == Op::kOptOr && !rhs.is_optional()) {
      const Value args[2] = {lhs, rhs};
      return NoMatchingOverload("or", args);
    }
    return rhs;
  }

 private:
  uint32_t Child(const PlanNode& n, uint32_t i) const { return p_.children_[n.first + i]; }

  void Charge(uint64_t cost) {
    s_.cost_ += cost;
    if (s_.cost_ > s_.limit_) s_.cancelled_ = true;
  }

  // Field selection on a map or object; `optional` gives `.?` semantics.
  Value SelectField(const Value& operand, const Value& field, bool optional) {
    switch (operand.kind()) {
      case ValueKind::kMap: {
        std::optional<Value> v = operand.map().Find(field);
        if (optional) return v ? Value::Optional(std::move(*v)) : Value::OptionalNone();
        if (v) return std::move(*v);
        return NoSuchKeyError(field);
      }
      case ValueKind::kOpaque: {
        std::optional<Value> v = operand.opaque().GetField(field.string_value());
        if (optional) return v ? Value::Optional(std::move(*v)) : Value::OptionalNone();
        if (v) return std::move(*v);
        return ErrorValue("no such field '" + std::string(field.string_value()) + "' in type '" +
                          std::string(operand.TypeName()) + "'");
      }
      case ValueKind::kOptional:
        if (!operand.has_optional_value()) return Value::OptionalNone();
        return SelectField(operand.optional_value(), field, true);
      case ValueKind::kError: return operand;
      default: return ErrorValue("type '" + std::string(operand.TypeName()) + "' does not support field selection");
    }
  }

  Value EvalSelect(const PlanNode& n) {
    Value operand = Eval(Child(n, 0));
    Charge(1);
    return SelectField(operand, n.value, false);
  }

  Value EvalOptSelect(const PlanNode& n) {
    Value operand = Eval(Child(n, 0));
    Charge(1);
    return SelectField(operand, n.value, true);
  }

  Value HasField(const Value& operand, const Value& field) {
    switch (operand.kind()) {
      case ValueKind::kMap: return Value::Bool(operand.map().Find(field).has_value());
      case ValueKind::kOpaque: return Value::Bool(operand.opaque().HasField(field.string_value()));
      case ValueKind::kOptional:
        if (!operand.has_optional_value()) return Value::Bool(false);
        return HasField(operand.optional_value(), field);
      case ValueKind::kError: return operand;
      default: return ErrorValue("invalid type for field selection: " + std::string(operand.TypeName()));
    }
  }

  Value EvalHas(const PlanNode& n) {
    Value operand = Eval(Child(n, 0));
    // has() costs nothing in Kubernetes (pre-cel-go-0.17.7 behaviour).
    return HasField(operand, n.value);
  }

  Value IndexValue(const Value& operand, const Value& key, bool optional) {
    switch (operand.kind()) {
      case ValueKind::kList: {
        size_t position = 0;
        if (std::optional<Value> err = ListIndex(operand, key, &position)) {
          // Out of range is "absent" for [?i]; a bad index type stays an error.
          if (optional && (key.is_int() || key.is_uint() || key.is_double()) &&
              err->error_message().starts_with("index out of range")) {
            return Value::OptionalNone();
          }
          return std::move(*err);
        }
        Value v = operand.list().Get(position);
        return optional ? Value::Optional(std::move(v)) : v;
      }
      case ValueKind::kMap: {
        if (!IsKeyLike(key)) {
          return ErrorValue("unsupported key type '" + std::string(key.TypeName()) + "'");
        }
        std::optional<Value> v = operand.map().Find(key);
        if (optional) return v ? Value::Optional(std::move(*v)) : Value::OptionalNone();
        if (v) return std::move(*v);
        return NoSuchKeyError(key);
      }
      case ValueKind::kOptional:
        if (!operand.has_optional_value()) return Value::OptionalNone();
        return IndexValue(operand.optional_value(), key, true);
      default: {
        const Value args[2] = {operand, key};
        return NoMatchingOverload(op::kIndex, args);
      }
    }
  }

  Value EvalIndex(const PlanNode& n, bool optional) {
    Value operand = Eval(Child(n, 0));
    if (operand.is_error()) return operand;
    Value key = Eval(Child(n, 1));
    Charge(1);
    if (key.is_error()) return key;
    return IndexValue(operand, key, optional);
  }

  // && (is_or false) and ||: short-circuit, absorbing an error on either side
  // when the other side decides.
  Value EvalLogic(const PlanNode& n, bool is_or) {
    Value lhs = Eval(Child(n, 0));
    if (lhs.is_bool() && lhs.bool_value() == is_or) return lhs;
    Value rhs = Eval(Child(n, 1));
    if (rhs.is_bool() && rhs.bool_value() == is_or) return rhs;
    if (lhs.is_bool() && rhs.is_bool()) return rhs;  // both !is_or
    if (lhs.is_error()) return lhs;
    if (rhs.is_error()) return rhs;
    const Value args[2] = {lhs, rhs};
    return NoMatchingOverload(is_or ? op::kLogicalOr : op::kLogicalAnd, args);
  }

  Value EvalEquality(const PlanNode& n) {
    if (n.const_side >= 0) return EvalEqualityConst(n);
    return EvalEqualityGeneric(n);
  }

  // ==/!= with a string constant on one side.
  Value EvalEqualityConst(const PlanNode& n) {
    // One side is a string constant whose size in code points is known.
    const uint32_t side = static_cast<uint32_t>(static_cast<uint8_t>(n.const_side));
    const Value& c = p_.nodes_[Child(n, side)].value;
    Value v = EvalOperand(Child(n, 1 - side));
    if (v.is_string()) {
      const std::string_view x = v.string_value(), y = c.string_value();
      const bool eq = x == y;
      uint64_t cost;  // EqualityCost without counting the constant again
      if (x.empty() || y.empty()) {
        cost = 0;
      } else if (x.size() <= 10 || n.const_cp <= 10) {
        cost = 1;
      } else {
        cost = CeilTenth(eq ? n.const_cp : std::min<uint64_t>(CodePointCount(x), n.const_cp));
      }
      Charge(cost);
      return Value::Bool(eq == (n.op == Op::kEq));
    }
    return side == 0 ? CompareEquality(n, Value::Borrow(c), std::move(v))
                     : CompareEquality(n, std::move(v), Value::Borrow(c));
  }

  [[gnu::noinline]] Value EvalEqualityGeneric(const PlanNode& n) {
    Value a = EvalOperand(Child(n, 0));
    Value b = EvalOperand(Child(n, 1));
    if (a.is_string() && b.is_string()) {
      // The common selector case, without the generic dispatch of Equal().
      const std::string_view x = a.string_value(), y = b.string_value();
      Charge(EqualityCost(a, b));
      return Value::Bool((x == y) == (n.op == Op::kEq));
    }
    return CompareEquality(n, std::move(a), std::move(b));
  }

  [[gnu::noinline]] Value CompareEquality(const PlanNode& n, Value a, Value b) {
    Charge(EqualityCost(a, b));
    if (a.is_error()) return a;
    if (b.is_error()) return b;
    Value eq = Equal(a, b);
    if (n.op == Op::kEq) return eq;
    // cel-go computes != as "== did not return true".
    return Value::Bool(!eq.is_true());
  }

  Value EvalIn(const PlanNode& n) {
    Value elem = EvalOperand(Child(n, 0));
    Value container = EvalOperand(Child(n, 1));
    if (elem.is_error()) {
      Charge(1);
      return elem;
    }
    if (container.is_error()) {
      Charge(1);
      return container;
    }
    if (container.is_list()) {
      const ListObject& l = container.list();
      Charge(l.size());
      if (l.IsVectorList()) {
        // Compare in place: no copy (and reference count) per element.
        for (const Value& e : static_cast<const VectorList&>(l).elements()) {
          if (EqualBool(e, elem)) return Value::Bool(true);
        }
        return Value::Bool(false);
      }
      for (size_t i = 0; i < l.size(); ++i) {
        if (EqualBool(l.Get(i), elem)) return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    Charge(1);
    if (container.is_map()) {
      if (!IsKeyLike(elem)) return Value::Bool(false);
      return Value::Bool(container.map().Contains(elem));
    }
    const Value args[2] = {elem, container};
    return NoMatchingOverload(op::kIn, args);
  }

  static constexpr uint32_t kInlineArgs = 4;

  // Up to kInlineArgs call arguments, constructed in place (no default
  // construction and assignment per argument) and destroyed on return.
  class ArgBuffer {
   public:
    ArgBuffer() = default;
    ArgBuffer(const ArgBuffer&) = delete;
    ArgBuffer& operator=(const ArgBuffer&) = delete;
    ~ArgBuffer() {
      for (uint32_t i = 0; i < size_; ++i) data()[i].~Value();
    }
    Value& Push(Value v) { return *new (&data()[size_++]) Value(std::move(v)); }
    const Value* data() const { return reinterpret_cast<const Value*>(storage_); }
    Value* data() { return reinterpret_cast<Value*>(storage_); }

   private:
    alignas(Value) unsigned char storage_[kInlineArgs * sizeof(Value)];
    uint32_t size_ = 0;
  };

  Value EvalCall(const PlanNode& n) {
    if (n.count > kInlineArgs) return EvalCallWithManyArgs(n);
    ArgBuffer args;
    for (uint32_t i = 0; i < n.count; ++i) {
      const Value& arg = args.Push(EvalOperand(Child(n, i)));
      if (arg.is_error()) return arg;
      if (s_.cancelled_) return Value();
    }
    return Dispatch(n, args.data());
  }

  [[gnu::noinline]] Value EvalCallWithManyArgs(const PlanNode& n) {
    std::vector<Value> args(n.count);
    for (uint32_t i = 0; i < n.count; ++i) {
      args[i] = EvalOperand(Child(n, i));
      if (args[i].is_error()) return args[i];
      if (s_.cancelled_) return Value();
    }
    return Dispatch(n, args.data());
  }

  // Calls the first overload whose parameters accept `args` (n.count of them).
  Value Dispatch(const PlanNode& n, const Value* args) {
    std::span<const Value> span(args, n.count);
    for (const Overload* ov : n.overloads) {
      bool match = true;
      for (uint32_t i = 0; i < n.count; ++i) {
        if (!ov->params[i].Accepts(args[i])) {
          match = false;
          break;
        }
      }
      if (!match) continue;
      CallContext ctx(&s_, ov->data, ov == n.prepared_overload ? n.prepared : nullptr);
      Value result = ov->impl(span, ctx);
      Charge(ov->cost != nullptr ? ov->cost(span, result) : 1);
      return result;
    }
    Charge(1);
    return NoMatchingOverload(n.name, span);
  }

  Value EvalList(const PlanNode& n) {
    std::vector<Value> elements;
    elements.reserve(n.count);
    for (uint32_t i = 0; i < n.count; ++i) {
      Value v = Eval(Child(n, i));
      if (v.is_error()) return v;
      if (!n.optional.empty() && n.optional[i]) {
        if (!v.is_optional()) {
          return ErrorValue("cannot initialize optional list element from non-optional value " + v.DebugString());
        }
        if (!v.has_optional_value()) continue;
        elements.push_back(v.optional_value());
        continue;
      }
      elements.push_back(std::move(v));
    }
    Charge(10);
    return Value::List(std::move(elements));
  }

  Value EvalMap(const PlanNode& n) {
    auto map = MakeRef<HashMap>();
    const uint32_t entries = n.count / 2;
    for (uint32_t i = 0; i < entries; ++i) {
      Value key = Eval(Child(n, 2 * i));
      if (key.is_error()) return key;
      Value value = Eval(Child(n, 2 * i + 1));
      if (value.is_error()) return value;
      if (!IsValidMapKey(key)) {
        return ErrorValue("unsupported key type '" + std::string(key.TypeName()) + "'");
      }
      if (!n.optional.empty() && n.optional[i]) {
        if (!value.is_optional()) {
          return ErrorValue("cannot initialize optional entry '" + key.DebugString() + "' from non-optional value " +
                            value.DebugString());
        }
        if (!value.has_optional_value()) continue;
        if (!map->Insert(key, value.optional_value())) {
          return ErrorValue("Failed with repeated key: " + key.DebugString());
        }
        continue;
      }
      if (!map->Insert(key, std::move(value))) {
        return ErrorValue("Failed with repeated key: " + key.DebugString());
      }
    }
    Charge(30);
    return Value::Map(std::move(map));
  }

  Value EvalComprehension(const PlanNode& n) {
    Value range = Eval(Child(n, 0));
    if (range.is_error()) return range;
    if (!range.is_list() && !range.is_map()) {
      return ErrorValue("expression of type '" + std::string(range.TypeName()) +
                        "' cannot be range of a comprehension (got '" + std::string(range.TypeName()) +
                        "', expected iterable type)");
    }
    std::vector<Value>& slots = s_.slots_;
    slots[n.slot] = Eval(Child(n, 1));
    const bool two = n.iter2_slot != UINT32_MAX;
    const size_t size = range.is_list() ? range.list().size() : range.map().size();
    for (size_t i = 0; i < size; ++i) {
      if (range.is_list()) {
        if (two) {
          slots[n.iter_slot] = Value::Int(static_cast<int64_t>(i));
          slots[n.iter2_slot] = range.list().Get(i);
        } else {
          slots[n.iter_slot] = range.list().Get(i);
        }
      } else {
        slots[n.iter_slot] = range.map().KeyAt(i);
        if (two) slots[n.iter2_slot] = range.map().ValueAt(i);
      }
      Value cond = Eval(Child(n, 2));
      if (s_.cancelled_) return Value();
      if (cond.is_bool() && !cond.bool_value()) break;
      Value step = Eval(Child(n, 3));
      if (s_.cancelled_) return Value();
      slots[n.slot] = std::move(step);
    }
    slots[n.iter_slot] = Value();
    if (two) slots[n.iter2_slot] = Value();
    Value result = Eval(Child(n, 4));
    slots[n.slot] = Value();
    return result;
  }

  // `@result + [e...]` inside a comprehension step: appends in place when the
  // accumulator holds the only reference to a list it built (cel-go's mutable
  // list optimisation), so map()/filter() stay linear.
  Value EvalAppendAccu(const PlanNode& n) {
    Charge(1);  // reading the accumulator
    constexpr uint32_t kInline = 2;
    Value inline_elems[kInline];
    std::vector<Value> heap_elems;
    Value* elems = inline_elems;
    if (n.count > kInline) {
      heap_elems.resize(n.count);
      elems = heap_elems.data();
    }
    for (uint32_t i = 0; i < n.count; ++i) {
      elems[i] = Eval(Child(n, i));
      if (elems[i].is_error()) return elems[i];
    }
    Charge(10 + 1);  // the list literal and the `+`
    Value& accu = s_.slots_[n.slot];
    if (accu.is_error()) return accu;
    if (!accu.is_list()) {
      const Value args[2] = {accu, Value::List(std::vector<Value>(elems, elems + n.count))};
      return NoMatchingOverload(op::kAdd, args);
    }
    CallContext ctx(&s_, nullptr, nullptr);
    if (!ctx.CheckAllocation(16 * uint64_t{n.count})) return Value();
    if (accu.IsUniquelyOwned()) {
      if (VectorList* vec = AsVectorList(accu)) {
        Value result = std::move(accu);
        for (uint32_t i = 0; i < n.count; ++i) vec->mutable_elements().push_back(std::move(elems[i]));
        return result;
      }
    }
    const ListObject& old = accu.list();
    if (!ctx.CheckAllocation(16 * uint64_t{old.size()})) return Value();
    std::vector<Value> out;
    out.reserve(old.size() + n.count);
    for (size_t i = 0; i < old.size(); ++i) out.push_back(old.Get(i));
    for (uint32_t i = 0; i < n.count; ++i) out.push_back(std::move(elems[i]));
    return Value::List(std::move(out));
  }

  // cel.@mapInsert(@result, k, v) and cel.@mapInsert(@result, m).
  Value EvalMapInsertAccu(const PlanNode& n) {
    Charge(1);
    Value a = Eval(Child(n, 0));
    if (a.is_error()) return a;
    Value b;
    if (n.count > 1) {
      b = Eval(Child(n, 1));
      if (b.is_error()) return b;
    }
    Charge(1);
    Value& accu = s_.slots_[n.slot];
    if (accu.is_error()) return accu;
    if (!accu.is_map() || (n.count == 1 && !a.is_map())) {
      return NoMatchingOverload(op::kMapInsert, std::span<const Value>(&accu, 1));
    }
    std::vector<std::pair<Value, Value>> add;
    if (n.count == 1) {
      for (size_t i = 0; i < a.map().size(); ++i) add.emplace_back(a.map().KeyAt(i), a.map().ValueAt(i));
    } else {
      if (!IsValidMapKey(a)) {
        return ErrorValue("unsupported key type '" + std::string(a.TypeName()) + "'");
      }
      add.emplace_back(a, b);
    }
    CallContext ctx(&s_, nullptr, nullptr);
    if (!ctx.CheckAllocation(32 * uint64_t{add.size()})) return Value();
    HashMap* target = nullptr;
    Value result;
    if (accu.IsUniquelyOwned() && (target = AsHashMap(accu)) != nullptr) {
      result = std::move(accu);
    } else {
      const MapObject& old = accu.map();
      if (!ctx.CheckAllocation(32 * uint64_t{old.size()})) return Value();
      auto copy = MakeRef<HashMap>();
      for (size_t i = 0; i < old.size(); ++i) copy->Insert(old.KeyAt(i), old.ValueAt(i));
      target = copy.get();
      result = Value::Map(std::move(copy));
    }
    for (auto& [k, v] : add) {
      if (!target->Insert(k, v)) {
        return ErrorValue("insert failed: key " + k.DebugString() + " already exists");
      }
    }
    return result;
  }

  // Invariant 2 of value.h: a uniquely owned list or map may be mutated by
  // the evaluator; only its own object types can be extended in place.
  static VectorList* AsVectorList(const Value& v) {
    if (!v.list().IsVectorList()) return nullptr;
    return static_cast<VectorList*>(const_cast<ListObject*>(&v.list()));
  }
  static HashMap* AsHashMap(const Value& v) {
    if (!v.map().IsHashMap()) return nullptr;
    return static_cast<HashMap*>(const_cast<MapObject*>(&v.map()));
  }

  const Program& p_;
  EvalState& s_;
};

StatusOr<Value> Program::Evaluate(const Activation& activation, EvalState& state) const {
  state.Reset(slot_count_);
  for (size_t i = 0; i < variables_.size(); ++i) {
    std::optional<Value> v = activation.Find(variables_[i]);
    state.slots_[i] = v ? std::move(*v) : Value::Error("no such attribute: " + variables_[i]);
  }
  return Run(state);
}

StatusOr<Value> Program::Evaluate(std::span<const Value> vars, EvalState& state) const {
  if (vars.size() != variables_.size()) {
    return InvalidArgumentError("program reads " + std::to_string(variables_.size()) + " variables, " +
                                std::to_string(vars.size()) + " given");
  }
  state.Reset(slot_count_);
  for (size_t i = 0; i < vars.size(); ++i) state.slots_[i].AssignBorrowed(vars[i]);
  return Run(state);
}

StatusOr<Value> Program::Run(EvalState& state) const {
  Value result = Evaluator(*this, state).Eval(root_);
  if (has_comprehensions_) {
    for (size_t i = variables_.size(); i < slot_count_; ++i) state.slots_[i] = Value();
  }
  if (state.cancelled_) return ResourceExhaustedError(std::string(kCostLimitExceededMessage));
  return result;
}

namespace internal {

Value EvaluateNode(const Program& program, EvalState& state, uint32_t index) {
  return Evaluator(program, state).Eval(index);
}

}  // namespace internal

}  // namespace dra::cel
