// The planner: ParsedExpr -> Program (program.h). Resolves every name once,
// binds calls to their overloads and folds constants (with the evaluator,
// internal::EvaluateNode).
#include <algorithm>
#include <set>

#include "cel/parser/macros.h"
#include "cel/parser/operators.h"
#include "cel/runtime/internal/plan_node.h"
#include "cel/runtime/program.h"

namespace dra::cel {

using internal::IsKeyLike;
using internal::Op;
using internal::PlanNode;

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
    Value v = internal::EvaluateNode(*program_, state, index);
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
    static constexpr std::string_view kTypes[] = {"bool", "int", "uint", "double", "string", "bytes", "list", "map",
                                                  "null_type", "type", "optional_type",
                                                  // cel-spec's well-known types
                                                  "google.protobuf.Timestamp", "google.protobuf.Duration"};
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
    // A qualified type name (google.protobuf.Duration) as a whole.
    if (std::optional<std::string_view> t = TypeDenotation(Join(parts))) return NewConst(Value::Type(*t), e.id());
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
