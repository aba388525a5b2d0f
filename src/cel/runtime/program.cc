// The planner (ParsedExpr -> Program) and the evaluator (a tree walk over the
// planned nodes).
//
// Planned nodes live in one vector and refer to their children by index
// (Program::children_), so evaluation touches contiguous memory and never a
// string map. Nodes are never removed: constant folding turns a node into a
// kConst in place and leaves its former children unreferenced, so values a
// folded constant borrows from them stay valid.
#include "cel/runtime/program.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <set>

#include "cel/parser/macros.h"
#include "cel/parser/operators.h"

namespace dra::cel {

namespace internal {

enum class Op : uint8_t {
  kConst,             // value
  kVar,               // activation variable in `slot`
  kLocal,             // comprehension variable in `slot`
  kUnbound,           // undeclared identifier (report_undeclared off): error at run time
  kSelect,            // child 0 . field(value)
  kHas,               // has(child 0 . field)
  kOptSelect,         // child 0 .? field
  kIndex,             // child 0 [child 1]
  kOptIndex,          // child 0 [? child 1]
  kAnd,               // child 0 && child 1
  kOr,                // child 0 || child 1
  kNot,               // !child 0
  kCond,              // child 0 ? child 1 : child 2
  kNotStrictlyFalse,  // @not_strictly_false(child 0)
  kEq,                // child 0 == child 1
  kNe,                // child 0 != child 1
  kIn,                // child 0 in child 1
  kCall,              // overloads(children)
  kList,              // [children], `optional` marks [?e]
  kMap,               // {child 2i: child 2i+1}, `optional` marks {?k: v}
  kComprehension,     // children: range, init, cond, step, result
  kAppendAccu,        // accumulator(slot) + [children] (in place when unshared)
  kMapInsertAccu,     // cel.@mapInsert(accumulator(slot), children...)
  kOptOr,             // child 0 .or(child 1), child 1 only when child 0 is none
  kOptOrValue,        // child 0 .orValue(child 1), likewise
  kPath,              // child 0 (a kVar) followed by the constant steps `path`
};

struct PlanNode {
  Op op = Op::kConst;
  uint32_t first = 0;  // first child in Program::children_
  uint32_t count = 0;  // number of children
  uint32_t slot = 0;   // kVar/kLocal: the slot; comprehension/accu nodes: accumulator slot
  uint32_t iter_slot = 0;
  uint32_t iter2_slot = UINT32_MAX;  // none
  int64_t expr_id = 0;
  Value value;       // kConst: the constant; selects: the field name; kUnbound: the message
  std::string name;  // kCall: function name (for messages)
  std::vector<const Overload*> overloads;
  const Overload* prepared_overload = nullptr;
  const void* prepared = nullptr;
  std::vector<bool> optional;  // kList: per element; kMap: per entry
  std::vector<PathStep> path;  // kPath: the selections and constant indexes
  // kEq/kNe: the child (0 or 1) that is a string constant, or -1; and the
  // constant's size in code points.
  int8_t const_side = -1;
  uint32_t const_cp = 0;
};

}  // namespace internal

using internal::Op;
using internal::PlanNode;

std::optional<Value> MapActivation::Find(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return Value::Borrow(it->second);
}

bool CallContext::CheckAllocation(uint64_t units) {
  state_->allocated_ += units;
  if (state_->allocated_ > state_->options_.allocation_limit) {
    state_->cancelled_ = true;
    return false;
  }
  return !state_->cancelled_;
}

// ---------------------------------------------------------------------------
// Evaluator
// ---------------------------------------------------------------------------

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

bool IsKeyLike(const Value& v) { return IsValidMapKey(v) || v.is_double(); }

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
    const uint32_t side = static_cast<uint32_t>(n.const_side);
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

// ---------------------------------------------------------------------------
// Program
// ---------------------------------------------------------------------------

Program::Program() = default;
Program::~Program() = default;

std::optional<size_t> Program::VariableSlot(std::string_view name) const {
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (variables_[i] == name) return i;
  }
  return std::nullopt;
}

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

namespace {

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kConst: return "const";
    case Op::kVar: return "var";
    case Op::kLocal: return "local";
    case Op::kUnbound: return "unbound";
    case Op::kSelect: return "select";
    case Op::kHas: return "has";
    case Op::kOptSelect: return "opt_select";
    case Op::kIndex: return "index";
    case Op::kOptIndex: return "opt_index";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
    case Op::kNot: return "not";
    case Op::kCond: return "cond";
    case Op::kNotStrictlyFalse: return "not_strictly_false";
    case Op::kEq: return "eq";
    case Op::kNe: return "ne";
    case Op::kIn: return "in";
    case Op::kCall: return "call";
    case Op::kList: return "list";
    case Op::kMap: return "map";
    case Op::kComprehension: return "comprehension";
    case Op::kAppendAccu: return "append_accu";
    case Op::kMapInsertAccu: return "map_insert_accu";
    case Op::kOptOr: return "opt_or";
    case Op::kOptOrValue: return "opt_or_value";
    case Op::kPath: return "path";
  }
  return "?";
}

}  // namespace

std::string Program::DebugString() const {
  std::string out;
  std::vector<std::pair<uint32_t, size_t>> stack = {{root_, 0}};
  while (!stack.empty()) {
    auto [index, depth] = stack.back();
    stack.pop_back();
    const PlanNode& n = nodes_[index];
    out.append(depth * 2, ' ');
    out += OpName(n.op);
    if (n.op == Op::kConst || n.op == Op::kSelect || n.op == Op::kHas || n.op == Op::kOptSelect) {
      out += ' ';
      out += n.value.DebugString();
    }
    if (n.op == Op::kVar || n.op == Op::kLocal) {
      out += " slot ";
      out += std::to_string(n.slot);
    }
    if (n.op == Op::kCall) {
      out += ' ';
      out += n.name;
    }
    if (n.op == Op::kPath) {
      out += ' ';
      for (const PathStep& step : n.path) {
        if (step.is_index) {
          out += '[';
          out += step.key.DebugString();
          out += ']';
        } else {
          out += '.';
          out += step.key.string_value();
        }
      }
    }
    out.push_back('\n');
    for (uint32_t i = n.count; i > 0; --i) stack.emplace_back(children_[n.first + i - 1], depth + 1);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Planner
// ---------------------------------------------------------------------------

class Planner {
 public:
  Planner(const ParsedExpr& parsed, const Environment& env) : parsed_(parsed), env_(env), program_(new Program()) {
    program_->registry_ = env.registry;
    for (const std::string& v : env.variables) declared_.insert(v);
  }

  StatusOr<PlanResult> Run() {
    const uint32_t root = PlanExpr(parsed_.expr);
    PlanResult result;
    if (!issues_.empty()) {
      result.issues = std::move(issues_);
      return result;
    }
    program_->root_ = root;
    program_->slot_count_ = program_->variables_.size() + max_locals_;
    if (env_.prepare_path) {
      // Only the paths the program uses: extending a path leaves the shorter
      // one behind, unreferenced.
      std::vector<bool> reachable(program_->nodes_.size(), false);
      std::vector<uint32_t> stack = {root};
      while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        if (reachable[i]) continue;
        reachable[i] = true;
        const PlanNode& n = program_->nodes_[i];
        for (uint32_t c = 0; c < n.count; ++c) stack.push_back(program_->children_[n.first + c]);
      }
      for (uint32_t i = 0; i < program_->nodes_.size(); ++i) {
        PlanNode& n = program_->nodes_[i];
        if (n.op != Op::kPath || !reachable[i]) continue;
        const PlanNode& var = program_->nodes_[program_->children_[n.first]];
        std::shared_ptr<const void> prepared = env_.prepare_path(program_->variables_[var.slot], n.path);
        n.prepared = prepared.get();
        if (prepared != nullptr) program_->prepared_.push_back(std::move(prepared));
      }
    }
    // Comprehension slots come after the variables: shift them now that the
    // number of variables is known.
    const auto base = static_cast<uint32_t>(program_->variables_.size());
    for (PlanNode& n : program_->nodes_) {
      if (n.op == Op::kLocal || n.op == Op::kAppendAccu || n.op == Op::kMapInsertAccu) {
        n.slot += base;
      } else if (n.op == Op::kComprehension) {
        n.slot += base;
        n.iter_slot += base;
        if (n.iter2_slot != UINT32_MAX) n.iter2_slot += base;
      }
    }
    result.program = std::shared_ptr<const Program>(program_.release());
    return result;
  }

 private:
  struct Local {
    std::string_view name;
    uint32_t slot;  // relative to the first comprehension slot
  };

  // --- Node construction ---

  uint32_t NewNode(PlanNode node, std::span<const uint32_t> children) {
    node.first = static_cast<uint32_t>(program_->children_.size());
    node.count = static_cast<uint32_t>(children.size());
    program_->children_.insert(program_->children_.end(), children.begin(), children.end());
    program_->nodes_.push_back(std::move(node));
    const auto index = static_cast<uint32_t>(program_->nodes_.size() - 1);
    return MaybeFold(index);
  }

  uint32_t NewConst(Value v, int64_t id) {
    PlanNode n;
    n.op = Op::kConst;
    n.value = std::move(v);
    n.expr_id = id;
    return NewNode(std::move(n), {});
  }

  PlanNode Make(Op op, int64_t id) {
    PlanNode n;
    n.op = op;
    n.expr_id = id;
    return n;
  }

  static bool Foldable(Op op) {
    switch (op) {
      case Op::kConst:
      case Op::kVar:
      case Op::kLocal:
      case Op::kUnbound:
      case Op::kComprehension:
      case Op::kAppendAccu:
      case Op::kMapInsertAccu: return false;
      default: return true;
    }
  }

  // Evaluates a node whose children are all constants, and turns it into a
  // constant if that succeeds without an error (errors keep their runtime
  // cost and position, so they are left to run time).
  uint32_t MaybeFold(uint32_t index) {
    if (!env_.options.fold_constants) return index;
    PlanNode& n = program_->nodes_[index];
    if (!Foldable(n.op)) return index;
    for (uint32_t i = 0; i < n.count; ++i) {
      if (program_->nodes_[program_->children_[n.first + i]].op != Op::kConst) return index;
    }
    if (n.op == Op::kCall) {
      if (n.overloads.empty()) return index;
      for (const Overload* ov : n.overloads) {
        if (!ov->pure) return index;
      }
    }
    EvalOptions options;
    options.cost_limit = kKubernetesCostLimit;
    EvalState state(options);
    state.Reset(0);
    Value v = Evaluator(*program_, state).Eval(index);
    if (state.cancelled_ || v.is_error()) return index;
    PlanNode& folded = program_->nodes_[index];
    // A value borrowed from a child constant stays valid: children are kept.
    folded.op = Op::kConst;
    folded.value = std::move(v);
    folded.count = 0;
    folded.overloads.clear();
    return index;
  }

  void Report(int64_t id, std::string message) {
    Issue issue;
    if (auto pos = parsed_.source_info.GetPosition(id)) {
      issue.line = pos->line;
      issue.column = pos->column;
    }
    issue.message = std::move(message);
    issues_.push_back(std::move(issue));
  }

  // --- Name resolution ---

  // `name` qualified by the container, most specific first (cel-spec:
  // "a.b" container, name "x" -> "a.b.x", "a.x", "x"). A leading dot names
  // the root only.
  std::vector<std::string> Candidates(std::string_view name) const {
    if (name.starts_with('.')) return {std::string(name.substr(1))};
    std::vector<std::string> out;
    std::string_view container = env_.container;
    while (!container.empty()) {
      out.push_back(std::string(container) + "." + std::string(name));
      const size_t dot = container.rfind('.');
      container = dot == std::string_view::npos ? std::string_view() : container.substr(0, dot);
    }
    out.emplace_back(name);
    return out;
  }

  const Local* FindLocal(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->name == name) return &*it;
    }
    return nullptr;
  }

  uint32_t VariableSlot(const std::string& name) {
    auto& vars = program_->variables_;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (vars[i] == name) return static_cast<uint32_t>(i);
    }
    vars.push_back(name);
    return static_cast<uint32_t>(vars.size() - 1);
  }

  // The declared variable among the candidates of `name`, if any.
  std::optional<std::string> ResolveVariable(std::string_view name) const {
    for (std::string& c : Candidates(name)) {
      if (declared_.count(c) > 0) return std::move(c);
    }
    return std::nullopt;
  }

  static std::optional<std::string_view> TypeDenotation(std::string_view name) {
    static constexpr std::string_view kTypes[] = {"bool", "int", "uint",      "double", "string",       "bytes",
                                                  "list", "map", "null_type", "type",   "optional_type"};
    for (std::string_view t : kTypes) {
      if (name == t) return t;
    }
    return std::nullopt;
  }

  uint32_t PlanIdent(std::string_view name, int64_t id) {
    if (!name.starts_with('.')) {
      if (const Local* local = FindLocal(name)) {
        PlanNode n = Make(Op::kLocal, id);
        n.slot = local->slot;
        return NewNode(std::move(n), {});
      }
    }
    if (std::optional<std::string> var = ResolveVariable(name)) {
      PlanNode n = Make(Op::kVar, id);
      n.slot = VariableSlot(*var);
      return NewNode(std::move(n), {});
    }
    std::string_view bare = name.starts_with('.') ? name.substr(1) : name;
    if (std::optional<std::string_view> t = TypeDenotation(bare)) return NewConst(Value::Type(*t), id);
    std::string message = "undeclared reference to '" + std::string(bare) + "' (in container '" + env_.container + "')";
    if (env_.options.report_undeclared) {
      Report(id, message);
      return NewConst(Value(), id);
    }
    PlanNode n = Make(Op::kUnbound, id);
    n.value = Value::Error(std::move(message));
    return NewNode(std::move(n), {});
  }

  // If `e` is a chain of identifiers and selections (`a.b.c`) whose root is
  // not a comprehension variable, its parts.
  bool QualifiedParts(const Expr& e, std::vector<std::string_view>* parts) const {
    if (e.Is<IdentExpr>()) {
      const std::string& name = e.ident().name;
      if (!name.starts_with('.') && FindLocal(name) != nullptr) return false;
      parts->push_back(name);
      return true;
    }
    if (e.Is<SelectExpr>()) {
      const SelectExpr& s = e.select();
      if (s.test_only) return false;
      if (!QualifiedParts(*s.operand, parts)) return false;
      parts->push_back(s.field);
      return true;
    }
    return false;
  }

  static std::string Join(std::span<const std::string_view> parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out.push_back('.');
      out += parts[i];
    }
    return out;
  }

  // Plans `e` as the longest declared qualified name, then field selections.
  // Returns std::nullopt if no prefix of the chain names a variable.
  std::optional<uint32_t> PlanQualified(const Expr& e) {
    std::vector<std::string_view> parts;
    if (!QualifiedParts(e, &parts) || parts.size() < 2) return std::nullopt;
    // Ids of the nodes along the chain, root first.
    std::vector<int64_t> ids;
    for (const Expr* cur = &e;;) {
      ids.push_back(cur->id());
      if (!cur->Is<SelectExpr>()) break;
      cur = cur->select().operand.get();
    }
    std::reverse(ids.begin(), ids.end());
    for (size_t len = parts.size(); len >= 1; --len) {
      std::optional<std::string> var = ResolveVariable(Join(std::span<const std::string_view>(parts.data(), len)));
      if (!var) continue;
      PlanNode n = Make(Op::kVar, ids[len - 1]);
      n.slot = VariableSlot(*var);
      uint32_t node = NewNode(std::move(n), {});
      for (size_t i = len; i < parts.size(); ++i) {
        node = NewSelect(node, Value::String(std::string(parts[i])), ids[i]);
      }
      return node;
    }
    return std::nullopt;
  }

  // --- Expressions ---

  uint32_t PlanExpr(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::kUnspecified: Report(e.id(), "unspecified expression"); return NewConst(Value(), e.id());
      case ExprKind::kConstant: return NewConst(ConstantValue(e.constant()), e.id());
      case ExprKind::kIdent: return PlanIdent(e.ident().name, e.id());
      case ExprKind::kSelect: return PlanSelect(e);
      case ExprKind::kCall: return PlanCall(e);
      case ExprKind::kList: return PlanList(e);
      case ExprKind::kMap: return PlanMap(e);
      case ExprKind::kStruct:
        return NewConst(Value::Error("unsupported message type '" + e.struct_expr().name + "'"), e.id());
      case ExprKind::kComprehension: return PlanComprehension(e);
    }
    return NewConst(Value(), e.id());
  }

  static Value ConstantValue(const Constant& c) {
    switch (c.kind()) {
      case Constant::Kind::kNull: return Value::Null();
      case Constant::Kind::kBool: return Value::Bool(c.bool_value());
      case Constant::Kind::kInt: return Value::Int(c.int_value());
      case Constant::Kind::kUint: return Value::Uint(c.uint_value());
      case Constant::Kind::kDouble: return Value::Double(c.double_value());
      case Constant::Kind::kString: return Value::String(c.string_value());
      case Constant::Kind::kBytes: return Value::Bytes(c.bytes_value());
    }
    return Value();
  }

  uint32_t PlanSelect(const Expr& e) {
    const SelectExpr& s = e.select();
    if (!s.test_only) {
      if (std::optional<uint32_t> q = PlanQualified(e)) return *q;
    }
    uint32_t operand;
    if (std::optional<uint32_t> q = PlanQualified(*s.operand)) {
      operand = *q;
    } else {
      operand = PlanExpr(*s.operand);
    }
    if (!s.test_only) return NewSelect(operand, Value::String(s.field), e.id());
    PlanNode n = Make(Op::kHas, e.id());
    n.value = Value::String(s.field);
    const uint32_t child[] = {operand};
    return NewNode(std::move(n), child);
  }

  // Notes on an ==/!= node (not folded) which operand is a string constant.
  uint32_t MarkStringConstant(uint32_t index) {
    PlanNode& n = program_->nodes_[index];
    if (n.op != Op::kEq && n.op != Op::kNe) return index;
    for (uint32_t side = 0; side < 2; ++side) {
      const PlanNode& c = program_->nodes_[program_->children_[n.first + side]];
      if (c.op == Op::kConst && c.value.is_string() && CodePointCount(c.value.string_value()) <= UINT32_MAX) {
        n.const_side = static_cast<int8_t>(side);
        n.const_cp = static_cast<uint32_t>(CodePointCount(c.value.string_value()));
        break;
      }
    }
    return index;
  }

  // `operand.field`: extends a path node, or starts one on a variable.
  uint32_t NewSelect(uint32_t operand, Value field, int64_t id) {
    if (std::optional<uint32_t> path = ExtendPath(operand, PathStep{false, field}, id)) {
      return *path;
    }
    PlanNode n = Make(Op::kSelect, id);
    n.value = std::move(field);
    const uint32_t child[] = {operand};
    return NewNode(std::move(n), child);
  }

  // A kPath node for `operand` followed by `step`, if `operand` is a
  // variable or a path.
  std::optional<uint32_t> ExtendPath(uint32_t operand, PathStep step, int64_t id) {
    const PlanNode& op_node = program_->nodes_[operand];
    PlanNode n = Make(Op::kPath, id);
    uint32_t root;
    if (op_node.op == Op::kVar) {
      root = operand;
    } else if (op_node.op == Op::kPath) {
      root = program_->children_[op_node.first];
      n.path = op_node.path;
    } else {
      return std::nullopt;
    }
    n.path.push_back(std::move(step));
    const uint32_t child[] = {root};
    return NewNode(std::move(n), child);
  }

  uint32_t PlanChildren(Op op, const Expr& e, std::span<const Expr> args) {
    std::vector<uint32_t> children;
    children.reserve(args.size());
    for (const Expr& a : args) children.push_back(PlanExpr(a));
    return NewNode(Make(op, e.id()), children);
  }

  // True if `call` is a loop step (or a branch of a conditional loop step)
  // and `e` is the accumulator of the innermost comprehension: only there
  // may the accumulator be extended in place, since the step's value
  // replaces it.
  bool IsInnermostAccu(const Expr& call, const Expr& e) const {
    if (std::find(step_calls_.begin(), step_calls_.end(), &call) == step_calls_.end()) {
      return false;
    }
    if (accu_slots_.empty() || !e.Is<IdentExpr>()) return false;
    const Local* local = FindLocal(e.ident().name);
    return local != nullptr && local->slot == accu_slots_.back();
  }

  uint32_t PlanCall(const Expr& e) {
    const CallExpr& call = e.call();
    const std::string& fn = call.function;
    const std::span<const Expr> args(call.args);
    if (!call.has_target()) {
      if (fn == op::kLogicalAnd && args.size() == 2) return PlanChildren(Op::kAnd, e, args);
      if (fn == op::kLogicalOr && args.size() == 2) return PlanChildren(Op::kOr, e, args);
      if (fn == op::kConditional && args.size() == 3) return PlanChildren(Op::kCond, e, args);
      if (fn == op::kLogicalNot && args.size() == 1) return PlanChildren(Op::kNot, e, args);
      if (fn == op::kNotStrictlyFalse && args.size() == 1) {
        return PlanChildren(Op::kNotStrictlyFalse, e, args);
      }
      if (fn == op::kEquals && args.size() == 2) {
        return MarkStringConstant(PlanChildren(Op::kEq, e, args));
      }
      if (fn == op::kNotEquals && args.size() == 2) {
        return MarkStringConstant(PlanChildren(Op::kNe, e, args));
      }
      if (fn == op::kIn && args.size() == 2) return PlanChildren(Op::kIn, e, args);
      if (fn == op::kIndex && args.size() == 2) {
        const uint32_t operand = PlanExpr(args[0]);
        const uint32_t key = PlanExpr(args[1]);
        const PlanNode& key_node = program_->nodes_[key];
        if (key_node.op == Op::kConst && IsKeyLike(key_node.value)) {
          if (std::optional<uint32_t> path = ExtendPath(operand, PathStep{true, key_node.value}, e.id())) {
            return *path;
          }
        }
        const uint32_t children[] = {operand, key};
        return NewNode(Make(Op::kIndex, e.id()), children);
      }
      if (fn == op::kOptIndex && args.size() == 2) return PlanChildren(Op::kOptIndex, e, args);
      if (fn == op::kOptSelect && args.size() == 2 && args[1].Is<Constant>() &&
          args[1].constant().kind() == Constant::Kind::kString) {
        PlanNode n = Make(Op::kOptSelect, e.id());
        n.value = Value::String(args[1].constant().string_value());
        const uint32_t child[] = {PlanExpr(args[0])};
        return NewNode(std::move(n), child);
      }
      if (fn == op::kAdd && args.size() == 2 && IsInnermostAccu(e, args[0]) && args[1].Is<ListExpr>() &&
          args[1].list().optional_indices.empty()) {
        PlanNode n = Make(Op::kAppendAccu, e.id());
        n.slot = accu_slots_.back();
        std::vector<uint32_t> children;
        for (const Expr& el : args[1].list().elements) children.push_back(PlanExpr(el));
        return NewNode(std::move(n), children);
      }
      if (fn == op::kMapInsert && (args.size() == 3 || args.size() == 2) && IsInnermostAccu(e, args[0])) {
        PlanNode n = Make(Op::kMapInsertAccu, e.id());
        n.slot = accu_slots_.back();
        std::vector<uint32_t> children;
        for (size_t i = 1; i < args.size(); ++i) children.push_back(PlanExpr(args[i]));
        return NewNode(std::move(n), children);
      }
      return PlanFunction(e, fn, false, nullptr, args);
    }
    // `ns.fn(args)`: a namespaced global function such as strings.quote or
    // optional.of, unless `ns` is a variable.
    std::vector<std::string_view> parts;
    if (QualifiedParts(*call.target, &parts)) {
      const std::string qualified = Join(parts) + "." + fn;
      bool is_variable = false;
      for (size_t len = parts.size(); len >= 1 && !is_variable; --len) {
        is_variable = ResolveVariable(Join(std::span<const std::string_view>(parts.data(), len))).has_value();
      }
      if (!is_variable) {
        for (const std::string& c : Candidates(qualified)) {
          if (env_.registry->HasFunction(c)) return PlanFunction(e, c, false, nullptr, args);
        }
      }
    }
    if ((fn == "or" || fn == "orValue") && args.size() == 1) {
      const std::string_view id = fn == "or" ? "optional_or_optional" : "optional_orValue_value";
      for (const Overload* ov : env_.registry->Find(fn, true, 2)) {
        if (ov->id != id) continue;
        const uint32_t children[] = {PlanExpr(*call.target), PlanExpr(args[0])};
        return NewNode(Make(fn == "or" ? Op::kOptOr : Op::kOptOrValue, e.id()), children);
      }
    }
    return PlanFunction(e, fn, true, call.target.get(), args);
  }

  uint32_t PlanFunction(const Expr& e, std::string_view fn, bool receiver, const Expr* target,
                        std::span<const Expr> args) {
    std::vector<uint32_t> children;
    if (target != nullptr) children.push_back(PlanExpr(*target));
    for (const Expr& a : args) children.push_back(PlanExpr(a));
    if (env_.options.report_unknown_functions && !env_.registry->HasFunction(fn)) {
      Report(e.id(), "undeclared reference to '" + std::string(fn) + "' (in container '" + env_.container + "')");
    }
    PlanNode n = Make(Op::kCall, e.id());
    n.name = std::string(fn);
    n.overloads = env_.registry->Find(fn, receiver, children.size());
    for (const Overload* ov : n.overloads) {
      if (ov->prepare == nullptr || ov->prepare_arg < 0 || static_cast<size_t>(ov->prepare_arg) >= children.size()) {
        continue;
      }
      const PlanNode& arg = program_->nodes_[children[static_cast<size_t>(ov->prepare_arg)]];
      if (arg.op != Op::kConst || !ov->params[static_cast<size_t>(ov->prepare_arg)].Accepts(arg.value)) {
        continue;
      }
      StatusOr<std::shared_ptr<const void>> prepared = ov->prepare(arg.value);
      if (!prepared.ok()) {
        Report(e.id(), prepared.status().message());
        break;
      }
      n.prepared_overload = ov;
      n.prepared = prepared->get();
      program_->prepared_.push_back(std::move(*prepared));
      break;
    }
    return NewNode(std::move(n), children);
  }

  uint32_t PlanList(const Expr& e) {
    const ListExpr& l = e.list();
    std::vector<uint32_t> children;
    for (const Expr& el : l.elements) children.push_back(PlanExpr(el));
    PlanNode n = Make(Op::kList, e.id());
    if (!l.optional_indices.empty()) {
      n.optional.assign(l.elements.size(), false);
      for (int32_t i : l.optional_indices) n.optional[static_cast<size_t>(i)] = true;
    }
    return NewNode(std::move(n), children);
  }

  uint32_t PlanMap(const Expr& e) {
    const MapExpr& m = e.map();
    std::vector<uint32_t> children;
    PlanNode n = Make(Op::kMap, e.id());
    bool any_optional = false;
    for (const MapEntry& entry : m.entries) {
      children.push_back(PlanExpr(*entry.key));
      children.push_back(PlanExpr(*entry.value));
      any_optional = any_optional || entry.optional;
    }
    if (any_optional) {
      for (const MapEntry& entry : m.entries) n.optional.push_back(entry.optional);
    }
    return NewNode(std::move(n), children);
  }

  uint32_t PlanComprehension(const Expr& e) {
    const ComprehensionExpr& c = e.comprehension();
    program_->has_comprehensions_ = true;
    const uint32_t range = PlanExpr(*c.iter_range);
    const uint32_t init = PlanExpr(*c.accu_init);
    const auto mark = locals_.size();
    const uint32_t accu_slot = next_local_++;
    const uint32_t iter_slot = next_local_++;
    uint32_t iter2_slot = UINT32_MAX;
    if (!c.iter_var2.empty()) iter2_slot = next_local_++;
    max_locals_ = std::max(max_locals_, static_cast<size_t>(next_local_));
    locals_.push_back({c.accu_var, accu_slot});
    locals_.push_back({c.iter_var, iter_slot});
    if (iter2_slot != UINT32_MAX) locals_.push_back({c.iter_var2, iter2_slot});
    accu_slots_.push_back(accu_slot);
    const uint32_t cond = PlanExpr(*c.loop_condition);
    const size_t step_mark = step_calls_.size();
    const Expr& step_expr = *c.loop_step;
    step_calls_.push_back(&step_expr);
    if (step_expr.Is<CallExpr>() && step_expr.call().function == op::kConditional &&
        step_expr.call().args.size() == 3) {
      step_calls_.push_back(&step_expr.call().args[1]);
      step_calls_.push_back(&step_expr.call().args[2]);
    }
    const uint32_t step = PlanExpr(step_expr);
    step_calls_.resize(step_mark);
    // The result sees the accumulator but not the iteration variables.
    locals_.resize(mark);
    locals_.push_back({c.accu_var, accu_slot});
    const uint32_t result = PlanExpr(*c.result);
    accu_slots_.pop_back();
    locals_.resize(mark);
    next_local_ = accu_slot;
    PlanNode n = Make(Op::kComprehension, e.id());
    n.slot = accu_slot;
    n.iter_slot = iter_slot;
    n.iter2_slot = iter2_slot;
    const uint32_t children[] = {range, init, cond, step, result};
    return NewNode(std::move(n), children);
  }

  const ParsedExpr& parsed_;
  const Environment& env_;
  std::unique_ptr<Program> program_;
  std::set<std::string, std::less<>> declared_;
  std::vector<Local> locals_;
  std::vector<uint32_t> accu_slots_;
  std::vector<const Expr*> step_calls_;
  uint32_t next_local_ = 0;
  size_t max_locals_ = 0;
  std::vector<Issue> issues_;
};

StatusOr<PlanResult> Plan(const ParsedExpr& parsed, const Environment& env) {
  if (env.registry == nullptr) return InvalidArgumentError("environment has no function registry");
  return Planner(parsed, env).Run();
}

}  // namespace dra::cel
