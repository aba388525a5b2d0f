// Static cost estimation. The Coster mirrors cel-go's checker/cost.go
// (coster.cost and the functions it calls, named alike); the Kubernetes
// estimator mirrors k8s.io/apiserver library.CostEstimator.EstimateCallCost
// and the DRA draCostEstimator and sizeEstimator.
//
// Bookkeeping, as upstream: every expression may get a field path (for size
// hints), a computed size (for strings, lists and maps whose size the
// expression fixes) and an entry size (key and element sizes of a list or map
// literal). Comprehension and cel.bind variables are tracked on a scope stack
// with the path, size and entry size of what they stand for.
#include "cel/cost/cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "cel/parser/macros.h"

namespace dra::cel {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// cel-go common/cost.go.
constexpr uint64_t kSelectAndIdentCost = 1;
constexpr uint64_t kConstCost = 0;
constexpr uint64_t kListCreateBaseCost = 10;
constexpr uint64_t kMapCreateBaseCost = 30;
constexpr uint64_t kStructCreateBaseCost = 40;
constexpr double kStringTraversalCostFactor = 0.1;
constexpr double kRegexStringLengthCostFactor = 0.25;

uint64_t AddSat(uint64_t x, uint64_t y) { return y > 0 && x > kMax - y ? kMax : x + y; }
uint64_t MulSat(uint64_t x, uint64_t y) { return y != 0 && x > kMax / y ? kMax : x * y; }
uint64_t MulFactor(uint64_t x, double y) {
  const double xf = static_cast<double>(x);
  if (xf > 0 && y > 0 && xf > static_cast<double>(kMax) / y) return kMax;
  const double c = std::ceil(xf * y);
  if (c >= 18446744073709551616.0) return kMax;
  return static_cast<uint64_t>(c);
}

CostEstimate Fixed(uint64_t c) { return {c, c}; }
CostEstimate Add(CostEstimate a, CostEstimate b) { return {AddSat(a.min, b.min), AddSat(a.max, b.max)}; }
CostEstimate Mul(CostEstimate a, CostEstimate b) { return {MulSat(a.min, b.min), MulSat(a.max, b.max)}; }
CostEstimate Union(CostEstimate a, CostEstimate b) { return {std::min(a.min, b.min), std::max(a.max, b.max)}; }
CostEstimate Factor(CostEstimate a, double f) { return {MulFactor(a.min, f), MulFactor(a.max, f)}; }

SizeEstimate FixedSize(uint64_t s) { return {s, s}; }
SizeEstimate UnknownSize() { return {0, kMax}; }
SizeEstimate Add(SizeEstimate a, SizeEstimate b) { return {AddSat(a.min, b.min), AddSat(a.max, b.max)}; }
SizeEstimate Mul(SizeEstimate a, SizeEstimate b) { return {MulSat(a.min, b.min), MulSat(a.max, b.max)}; }
SizeEstimate Union(SizeEstimate a, SizeEstimate b) { return {std::min(a.min, b.min), std::max(a.max, b.max)}; }
CostEstimate Factor(SizeEstimate a, double f) { return {MulFactor(a.min, f), MulFactor(a.max, f)}; }
CostEstimate MulCost(SizeEstimate a, CostEstimate c) { return {MulSat(a.min, c.min), MulSat(a.max, c.max)}; }

// isScalar: types of a fixed size.
bool IsScalar(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kBool:
    case TypeKind::kDouble:
    case TypeKind::kDuration:
    case TypeKind::kInt:
    case TypeKind::kTimestamp:
    case TypeKind::kUint: return true;
    case TypeKind::kOpaque: return t.is_optional() && IsScalar(t.optional_value());
    default: return false;
  }
}

// computeExprSize: sizes fixed by literals.
std::optional<SizeEstimate> ComputeExprSize(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kConstant: {
      const Constant& c = e.constant();
      switch (c.kind()) {
        case Constant::Kind::kString: {
          uint64_t n = 0;
          for (char ch : c.string_value()) {
            if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
          }
          return FixedSize(n);
        }
        case Constant::Kind::kBytes: return FixedSize(c.bytes_value().size());
        default: return FixedSize(1);
      }
    }
    case ExprKind::kList: return FixedSize(e.list().elements.size());
    case ExprKind::kMap: return FixedSize(e.map().entries.size());
    default: return std::nullopt;
  }
}

struct EntrySize {
  bool is_list = false;  // else a map
  SizeEstimate key;
  SizeEstimate value;
};

std::optional<EntrySize> UnionEntry(const std::optional<EntrySize>& a, const std::optional<EntrySize>& b) {
  if (!a || !b) return std::nullopt;
  return EntrySize{a->is_list, Union(a->key, b->key), Union(a->value, b->value)};
}

struct LocalVar {
  std::vector<std::string> path;
  std::optional<SizeEstimate> size;
  std::optional<EntrySize> entry_size;
};

class Coster {
 public:
  Coster(const CheckResult& checked, const CostOptions& options)
      : checked_(checked),
        options_(options),
        presence_cost_(Fixed(options.presence_test_has_cost ? kSelectAndIdentCost : 0)) {}

  CostEstimate Cost(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::kConstant: return Fixed(kConstCost);
      case ExprKind::kIdent: return CostIdent(e);
      case ExprKind::kSelect: return CostSelect(e);
      case ExprKind::kCall: return CostCall(e);
      case ExprKind::kList: return CostCreateList(e);
      case ExprKind::kMap: return CostCreateMap(e);
      case ExprKind::kStruct: return CostCreateStruct(e);
      case ExprKind::kComprehension: return IsBind(e) ? CostBind(e) : CostComprehension(e);
      case ExprKind::kUnspecified: break;
    }
    return {};
  }

 private:
  // --- Side tables ---

  Type GetType(const Expr& e) const { return checked_.TypeOf(e.id()); }

  const LocalVar* PeekLocal(std::string_view name) const {
    auto it = locals_.find(std::string(name));
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void PushLocal(const std::string& name, LocalVar v) { locals_[name].push_back(std::move(v)); }
  void PopLocal(const std::string& name) {
    auto it = locals_.find(name);
    if (it != locals_.end() && !it->second.empty()) it->second.pop_back();
  }

  // The variable a node names after the checker's resolution: an identifier,
  // or a qualified name (`a.b.c`) that resolved to a variable.
  const std::string* ResolvedName(const Expr& e) const {
    auto it = checked_.references.find(e.id());
    if (it == checked_.references.end() || it->second.name.empty()) return nullptr;
    return &it->second.name;
  }

  std::vector<std::string> GetPath(const Expr& e) const {
    if (e.Is<IdentExpr>()) {
      if (const LocalVar* v = PeekLocal(e.ident().name)) return v->path;
    }
    auto it = paths_.find(e.id());
    return it == paths_.end() ? std::vector<std::string>{} : it->second;
  }
  void AddPath(const Expr& e, std::vector<std::string> path) { paths_.insert_or_assign(e.id(), std::move(path)); }
  static std::vector<std::string> Append(std::vector<std::string> path, std::string_view step) {
    path.emplace_back(step);
    return path;
  }

  void SetSize(const Expr& e, const std::optional<SizeEstimate>& size) {
    if (size) sizes_.insert_or_assign(e.id(), *size);
  }
  void SetEntrySize(const Expr& e, const std::optional<EntrySize>& size) {
    if (size) entry_sizes_.insert_or_assign(e.id(), *size);
  }

  std::optional<SizeEstimate> ComputeSize(const Expr& e) {
    if (auto it = sizes_.find(e.id()); it != sizes_.end()) return it->second;
    if (std::optional<SizeEstimate> s = ComputeExprSize(e)) return s;
    const Type type = GetType(e);
    if (options_.estimator != nullptr) {
      CostNode node{GetPath(e), type, &e, std::nullopt};
      if (std::optional<SizeEstimate> s = options_.estimator->EstimateSize(node)) {
        sizes_.insert_or_assign(e.id(), *s);
        return s;
      }
    }
    if (IsScalar(type)) return FixedSize(1);
    if (e.Is<IdentExpr>()) {
      if (const LocalVar* v = PeekLocal(e.ident().name); v != nullptr && v->size) return v->size;
    }
    return std::nullopt;
  }

  SizeEstimate SizeOrUnknown(const Expr& e) {
    std::optional<SizeEstimate> s = ComputeSize(e);
    return s ? *s : UnknownSize();
  }
  static SizeEstimate SizeOrUnknown(const CostNode& n) { return n.computed_size ? *n.computed_size : UnknownSize(); }

  std::optional<EntrySize> ComputeEntrySize(const Expr& e) const {
    if (auto it = entry_sizes_.find(e.id()); it != entry_sizes_.end()) return it->second;
    if (e.Is<IdentExpr>()) {
      if (const LocalVar* v = PeekLocal(e.ident().name); v != nullptr && v->entry_size) {
        return v->entry_size;
      }
    }
    return std::nullopt;
  }

  void CopySizeEstimates(const Expr& dst, const Expr& src) {
    SetSize(dst, ComputeSize(src));
    SetEntrySize(dst, ComputeEntrySize(src));
  }

  CostNode NewNode(const Expr& e) {
    std::vector<std::string> path = GetPath(e);
    // Only paths rooted at variables; not at comprehension accumulators.
    if (!path.empty() && (path[0] == kAccumulatorName || path[0] == kLegacyAccumulatorName)) {
      path.clear();
    }
    CostNode n;
    n.path = std::move(path);
    n.type = GetType(e);
    n.expr = &e;
    n.computed_size = ComputeSize(e);
    return n;
  }

  // --- Local variables (pushLocalVar, pushIterKey, ...) ---

  void PushLocalVar(const std::string& name, const Expr& e) {
    LocalVar v{GetPath(e), ComputeSize(e), ComputeEntrySize(e)};
    PushLocal(name, std::move(v));
  }

  bool RangeIsList(const Expr& range, const std::optional<EntrySize>& entry) const {
    if (entry) return entry->is_list;
    return GetType(range).kind() == TypeKind::kList;
  }

  void PushIterKey(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    const bool list = RangeIsList(range, entry);
    LocalVar v{Append(GetPath(range), list ? "@indices" : "@keys"),
               entry ? std::optional<SizeEstimate>(entry->key) : std::nullopt, std::nullopt};
    PushLocal(name, std::move(v));
  }

  void PushIterValue(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    const bool list = RangeIsList(range, entry);
    LocalVar v{Append(GetPath(range), list ? "@items" : "@values"),
               entry ? std::optional<SizeEstimate>(entry->value) : std::nullopt, std::nullopt};
    PushLocal(name, std::move(v));
  }

  void PushIterSingle(const std::string& name, const Expr& range) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    const bool list = RangeIsList(range, entry);
    std::optional<SizeEstimate> size;
    if (entry) size = list ? entry->value : entry->key;
    LocalVar v{Append(GetPath(range), list ? "@items" : "@keys"), size, std::nullopt};
    PushLocal(name, std::move(v));
  }

  // --- Expressions ---

  CostEstimate CostIdent(const Expr& e) {
    const std::string& name = e.ident().name;
    if (const LocalVar* v = PeekLocal(name)) {
      AddPath(e, v->path);
    } else {
      const std::string* resolved = ResolvedName(e);
      AddPath(e, {resolved != nullptr ? *resolved : name});
    }
    return Fixed(kSelectAndIdentCost);
  }

  CostEstimate CostSelect(const Expr& e) {
    // A qualified name the checker resolved to a variable is an identifier.
    if (const std::string* resolved = ResolvedName(e)) {
      AddPath(e, {*resolved});
      return Fixed(kSelectAndIdentCost);
    }
    const SelectExpr& sel = e.select();
    CostEstimate sum;
    if (sel.test_only) {
      // As evalTestOnly at run time: the operand, plus the presence test.
      sum = Add(sum, presence_cost_);
      return Add(sum, Cost(*sel.operand));
    }
    sum = Add(sum, Cost(*sel.operand));
    switch (GetType(*sel.operand).kind()) {
      case TypeKind::kMap:
      case TypeKind::kStruct:
      case TypeKind::kTypeParam: sum = Add(sum, Fixed(kSelectAndIdentCost)); break;
      default: break;
    }
    AddPath(e, Append(GetPath(*sel.operand), sel.field));
    return sum;
  }

  CostEstimate CostCall(const Expr& e) {
    const CallExpr& call = e.call();
    auto ref = checked_.references.find(e.id());
    // A call written with a receiver that is the function's namespace
    // (`strings.quote(s)`) is a global call of the qualified name.
    const bool namespaced = ref != checked_.references.end() && !ref->second.name.empty();
    const std::string& function = namespaced ? ref->second.name : call.function;

    // dyn() only turns type-checking off: 1 plus its argument.
    if (function == "dyn" && call.args.size() == 1 && !call.has_target()) {
      CostEstimate arg = Cost(call.args[0]);
      CopySizeEstimates(e, call.args[0]);
      return Add(Fixed(1), arg);
    }

    std::vector<CostEstimate> arg_costs;
    std::vector<CostNode> arg_nodes;
    arg_costs.reserve(call.args.size());
    arg_nodes.reserve(call.args.size());
    for (const Expr& arg : call.args) {
      arg_costs.push_back(Cost(arg));
      arg_nodes.push_back(NewNode(arg));
    }
    if (ref == checked_.references.end() || ref->second.overload_ids.empty()) return {};

    CostEstimate sum;
    std::optional<CostNode> target;
    if (call.has_target() && !namespaced) {
      sum = Add(sum, Cost(*call.target));
      target = NewNode(*call.target);
    }
    CostEstimate fn_cost{kMax, 0};
    std::optional<SizeEstimate> result_size;
    for (const std::string& overload : ref->second.overload_ids) {
      CallEstimate est = FunctionCost(e, function, overload, target ? &*target : nullptr, arg_nodes, arg_costs);
      fn_cost = Union(fn_cost, est.cost);
      if (est.result_size) {
        result_size = result_size ? Union(*result_size, *est.result_size) : *est.result_size;
      }
      if (overload == "index_list" && !call.args.empty()) {
        std::optional<EntrySize> entry = ComputeEntrySize(call.args[0]);
        result_size = entry ? std::optional<SizeEstimate>(entry->value) : std::nullopt;
        AddPath(e, Append(GetPath(call.args[0]), "@items"));
      } else if (overload == "index_map" && !call.args.empty()) {
        std::optional<EntrySize> entry = ComputeEntrySize(call.args[0]);
        result_size = entry ? std::optional<SizeEstimate>(entry->value) : std::nullopt;
        AddPath(e, Append(GetPath(call.args[0]), "@values"));
      }
      if (!result_size) result_size = ComputeSize(e);
    }
    SetSize(e, result_size);
    return Add(sum, fn_cost);
  }

  CallEstimate FunctionCost(const Expr& e, const std::string& function, const std::string& overload,
                            const CostNode* target, std::span<const CostNode> args,
                            std::span<const CostEstimate> arg_costs) {
    CostEstimate arg_sum;
    for (const CostEstimate& c : arg_costs) arg_sum = Add(arg_sum, c);

    if (options_.estimator != nullptr) {
      if (std::optional<CallEstimate> est = options_.estimator->EstimateCallCost(function, overload, target, args)) {
        return {Add(est->cost, arg_sum), est->result_size};
      }
    }
    const CallExpr& call = e.call();
    // O(n) functions.
    if (overload == "string_format") {
      if (target != nullptr) {
        return {Add(Factor(SizeOrUnknown(*target), kStringTraversalCostFactor), arg_sum), {}};
      }
    } else if (overload == "string_to_bytes") {
      if (args.size() == 1) {
        const SizeEstimate sz = SizeOrUnknown(args[0]);
        return {Add(Factor(sz, kStringTraversalCostFactor), arg_sum), SizeEstimate{sz.min, MulSat(sz.max, 4)}};
      }
    } else if (overload == "bytes_to_string") {
      if (args.size() == 1) {
        const SizeEstimate sz = SizeOrUnknown(args[0]);
        return {Add(Factor(sz, kStringTraversalCostFactor), arg_sum), SizeEstimate{sz.min / 4, sz.max}};
      }
    } else if (overload == "strings_quote") {
      if (args.size() == 1) {
        const SizeEstimate sz = SizeOrUnknown(args[0]);
        return {Add(Factor(sz, kStringTraversalCostFactor), arg_sum),
                SizeEstimate{AddSat(sz.min, 2), AddSat(MulSat(sz.max, 2), 2)}};
      }
    } else if (overload == "starts_with_string" || overload == "ends_with_string") {
      if (args.size() == 1) {
        return {Add(Factor(SizeOrUnknown(args[0]), kStringTraversalCostFactor), arg_sum), {}};
      }
    } else if (overload == "in_list") {
      // Assumed O(n), even for a list of constants.
      if (args.size() == 2) return {Add(Factor(SizeOrUnknown(args[1]), 1), arg_sum), {}};
    } else if (overload == "matches_string") {
      // O(nm): string length (plus one, so that an empty string still pays
      // for the regex) times a guess of the regex's states (4 chars each).
      if (target != nullptr && args.size() == 1) {
        const CostEstimate str = Factor(Add(SizeOrUnknown(*target), FixedSize(1)), kStringTraversalCostFactor);
        const CostEstimate regex = Factor(SizeOrUnknown(args[0]), kRegexStringLengthCostFactor);
        return {Add(Mul(str, regex), arg_sum), {}};
      }
    } else if (overload == "contains_string") {
      if (target != nullptr && args.size() == 1) {
        const CostEstimate str = Factor(SizeOrUnknown(*target), kStringTraversalCostFactor);
        const CostEstimate sub = Factor(SizeOrUnknown(args[0]), kStringTraversalCostFactor);
        return {Add(Mul(str, sub), arg_sum), {}};
      }
    } else if (overload == "logical_or" || overload == "logical_and") {
      // Short-circuit: at least the left operand, at most both.
      if (arg_costs.size() == 2) {
        return {CostEstimate{arg_costs[0].min, Add(arg_costs[0], arg_costs[1]).max}, {}};
      }
    } else if (overload == "conditional") {
      if (args.size() == 3) {
        const SizeEstimate size = Union(SizeOrUnknown(args[1]), SizeOrUnknown(args[2]));
        SetEntrySize(e, UnionEntry(ComputeEntrySize(call.args[1]), ComputeEntrySize(call.args[2])));
        return {Add(arg_costs[0], Union(arg_costs[1], arg_costs[2])), size};
      }
    } else if (overload == "add_string" || overload == "add_bytes" || overload == "add_list") {
      if (args.size() == 2) {
        const SizeEstimate size = Add(SizeOrUnknown(args[0]), SizeOrUnknown(args[1]));
        SetEntrySize(e, UnionEntry(ComputeEntrySize(call.args[0]), ComputeEntrySize(call.args[1])));
        if (overload == "add_list") return {Add(Fixed(1), arg_sum), size};  // O(1)
        return {Add(Factor(size, kStringTraversalCostFactor), arg_sum), size};
      }
    } else if (overload == "less_string" || overload == "greater_string" || overload == "less_equals_string" ||
               overload == "greater_equals_string" || overload == "less_bytes" || overload == "greater_bytes" ||
               overload == "less_equals_bytes" || overload == "greater_equals_bytes" || overload == "equals" ||
               overload == "not_equals") {
      if (args.size() == 2) {
        const SizeEstimate lhs = SizeOrUnknown(args[0]);
        const SizeEstimate rhs = SizeOrUnknown(args[1]);
        const uint64_t smallest_max = std::min(lhs.max, rhs.max);
        // Equality of two scalars costs 1.
        const CostEstimate c{smallest_max > 0 ? uint64_t{1} : uint64_t{0}, smallest_max};
        return {Add(Factor(c, kStringTraversalCostFactor), arg_sum), {}};
      }
    }
    // O(1) functions.
    return {Add(Fixed(1), arg_sum), {}};
  }

  CostEstimate CostCreateList(const Expr& e) {
    const ListExpr& list = e.list();
    CostEstimate sum;
    SizeEstimate item{kMax, 0};
    if (list.elements.empty()) item.min = 0;
    for (const Expr& elem : list.elements) {
      sum = Add(sum, Cost(elem));
      item = Union(item, SizeOrUnknown(elem));
    }
    SetEntrySize(e, EntrySize{true, FixedSize(1), item});
    return Add(sum, Fixed(kListCreateBaseCost));
  }

  CostEstimate CostCreateMap(const Expr& e) {
    const MapExpr& map = e.map();
    CostEstimate sum;
    SizeEstimate key{kMax, 0};
    SizeEstimate value{kMax, 0};
    if (map.entries.empty()) {
      key.min = 0;
      value.min = 0;
    }
    for (const MapEntry& entry : map.entries) {
      sum = Add(sum, Cost(*entry.key));
      sum = Add(sum, Cost(*entry.value));
      key = Union(key, SizeOrUnknown(*entry.key));
      value = Union(value, SizeOrUnknown(*entry.value));
    }
    SetEntrySize(e, EntrySize{false, key, value});
    return Add(sum, Fixed(kMapCreateBaseCost));
  }

  CostEstimate CostCreateStruct(const Expr& e) {
    CostEstimate sum;
    for (const StructField& f : e.struct_expr().fields) sum = Add(sum, Cost(*f.value));
    return Add(sum, Fixed(kStructCreateBaseCost));
  }

  CostEstimate CostComprehension(const Expr& e) {
    const ComprehensionExpr& c = e.comprehension();
    CostEstimate sum = Add(Cost(*c.iter_range), Cost(*c.accu_init));
    PushLocalVar(c.accu_var, *c.accu_init);
    if (!c.iter_var2.empty()) {
      PushIterKey(c.iter_var, *c.iter_range);
      PushIterValue(c.iter_var2, *c.iter_range);
    } else {
      PushIterSingle(c.iter_var, *c.iter_range);
    }
    // The cost of one iteration.
    const CostEstimate loop = Cost(*c.loop_condition);
    const CostEstimate step = Cost(*c.loop_step);
    PopLocal(c.iter_var);
    if (!c.iter_var2.empty()) PopLocal(c.iter_var2);
    sum = Add(sum, Cost(*c.result));
    PopLocal(c.accu_var);

    const SizeEstimate range = SizeOrUnknown(*c.iter_range);
    sum = Add(sum, MulCost(range, Add(step, loop)));
    switch (c.accu_init->kind()) {
      case ExprKind::kConstant: SetSize(e, ComputeSize(*c.accu_init)); break;
      case ExprKind::kList:
      case ExprKind::kMap:
        SetSize(e, range);
        SetEntrySize(e, ComputeEntrySize(*c.loop_step));
        break;
      default: break;
    }
    return sum;
  }

  // A cel.bind-style comprehension: no iterations, the accumulator is a local.
  static bool IsBind(const Expr& e) {
    const ComprehensionExpr& c = e.comprehension();
    return c.iter_range->Is<ListExpr>() && c.iter_range->list().elements.empty() && c.loop_condition->Is<Constant>() &&
           c.loop_condition->constant().kind() == Constant::Kind::kBool && !c.loop_condition->constant().bool_value() &&
           c.accu_var != kLegacyAccumulatorName;
  }

  CostEstimate CostBind(const Expr& e) {
    const ComprehensionExpr& c = e.comprehension();
    // Binds are lazy: the empty range still counts.
    CostEstimate sum = Add(Cost(*c.iter_range), Cost(*c.accu_init));
    PushLocalVar(c.accu_var, *c.accu_init);
    sum = Add(sum, Cost(*c.result));
    PopLocal(c.accu_var);
    CopySizeEstimates(e, *c.result);
    return sum;
  }

  const CheckResult& checked_;
  const CostOptions& options_;
  const CostEstimate presence_cost_;
  std::unordered_map<int64_t, std::vector<std::string>> paths_;
  std::unordered_map<std::string, std::vector<LocalVar>> locals_;
  std::unordered_map<int64_t, SizeEstimate> sizes_;
  std::unordered_map<int64_t, EntrySize> entry_sizes_;
};

// --- Kubernetes -------------------------------------------------------------------------

// k8s.io/api resource/v1 limits the DRA size hints come from.
constexpr uint64_t kDriverNameMaxLength = 63;
constexpr uint64_t kDeviceMaxDomainLength = 63;
constexpr uint64_t kDeviceMaxIdLength = 32;
constexpr uint64_t kDeviceAttributeMaxValueLength = 64;
constexpr uint64_t kMaxAttributesAndCapacitiesPerDevice = 32;
constexpr uint64_t kMaxAttributeValuesPerDevice = 48;
// k8s.io/apiserver pkg/cel/limits.go.
constexpr uint64_t kMaxFormatSize = 64;
constexpr double kMaxNameFormatRegexSize = 128;

// The declared shape of the `device` variable (the DeclTypes of
// dynamic-resource-allocation's compiler), for the size estimator's walk.
enum class DeviceNode : uint8_t {
  kDevice,        // object with fields driver, allowMultipleAllocations, attributes, capacity
  kDriver,        // string, max 63
  kMultiAlloc,    // bool with a "size" of 1
  kAttributes,    // map(domain, map(id, attribute)), max 32 entries
  kAttributeMap,  // map(id, attribute), max 32 entries
  kAttribute,     // the attribute value: max 64 (string length or list items)
  kCapacity,      // map(domain, map(id, quantity)), max 32
  kCapacityMap,   // map(id, quantity), max 32
  kQuantity,      // no max size declared (0)
  kDomain,        // string, max 63
  kId,            // string, max 32
};

uint64_t MaxElements(DeviceNode n) {
  switch (n) {
    case DeviceNode::kDevice: return 0;
    case DeviceNode::kDriver: return kDriverNameMaxLength;
    case DeviceNode::kMultiAlloc: return 1;
    case DeviceNode::kAttributes:
    case DeviceNode::kAttributeMap:
    case DeviceNode::kCapacity:
    case DeviceNode::kCapacityMap: return kMaxAttributesAndCapacitiesPerDevice;
    case DeviceNode::kAttribute: return std::max(kDeviceAttributeMaxValueLength, kMaxAttributeValuesPerDevice);
    case DeviceNode::kQuantity: return 0;
    case DeviceNode::kDomain: return kDeviceMaxDomainLength;
    case DeviceNode::kId: return kDeviceMaxIdLength;
  }
  return 0;
}

std::optional<DeviceNode> ElemOf(DeviceNode n) {
  switch (n) {
    case DeviceNode::kAttributes: return DeviceNode::kAttributeMap;
    case DeviceNode::kAttributeMap: return DeviceNode::kAttribute;
    case DeviceNode::kCapacity: return DeviceNode::kCapacityMap;
    case DeviceNode::kCapacityMap: return DeviceNode::kQuantity;
    default: return std::nullopt;
  }
}

std::optional<DeviceNode> KeyOf(DeviceNode n) {
  switch (n) {
    case DeviceNode::kAttributes:
    case DeviceNode::kCapacity: return DeviceNode::kDomain;
    case DeviceNode::kAttributeMap:
    case DeviceNode::kCapacityMap: return DeviceNode::kId;
    default: return std::nullopt;
  }
}

std::optional<DeviceNode> FieldOf(DeviceNode n, std::string_view name) {
  if (n != DeviceNode::kDevice) return std::nullopt;
  if (name == "driver") return DeviceNode::kDriver;
  if (name == "allowMultipleAllocations") return DeviceNode::kMultiAlloc;
  if (name == "attributes") return DeviceNode::kAttributes;
  if (name == "capacity") return DeviceNode::kCapacity;
  return std::nullopt;
}

class KubernetesCostEstimator final : public CostEstimator {
 public:
  // dynamic-resource-allocation sizeEstimator.EstimateSize.
  std::optional<SizeEstimate> EstimateSize(const CostNode& node) const override {
    const std::vector<std::string>& path = node.path;
    if (path.empty() || path[0] != "device") return std::nullopt;
    DeviceNode current = DeviceNode::kDevice;
    for (size_t i = 1; i < path.size(); ++i) {
      const std::string& name = path[i];
      std::optional<DeviceNode> next;
      if (name == "@items" || name == "@values") {
        next = ElemOf(current);
      } else if (name == "@keys") {
        next = KeyOf(current);
      } else {
        next = FieldOf(current, name);
        // Every attribute of an attribute map has the attribute type's size,
        // whatever its name.
        if (!next && current == DeviceNode::kAttributeMap) next = DeviceNode::kAttribute;
      }
      if (!next) return std::nullopt;
      current = *next;
    }
    return SizeEstimate{0, MaxElements(current)};
  }

  std::optional<CallEstimate> EstimateCallCost(std::string_view function, std::string_view overload,
                                               const CostNode* target, std::span<const CostNode> args) const override {
    // DRA's includes: like `arg in target`, linear in the list, which is
    // bounded by the attribute values per device.
    if (function == "includes" && overload == "dra_includes_dyn_dyn" && target != nullptr) {
      return CallEstimate{MulCost(SizeEstimate{0, kMaxAttributeValuesPerDevice}, Fixed(1)), {}};
    }
    return LibraryCallCost(function, overload, target, args);
  }

 private:
  SizeEstimate SizeOf(const CostNode& n) const {
    if (n.computed_size) return *n.computed_size;
    if (std::optional<SizeEstimate> s = EstimateSize(n)) return *s;
    return UnknownSize();
  }

  // The node of a list's elements (library.CostEstimator.listElementNode).
  static std::optional<CostNode> ListElementNode(const CostNode& list) {
    if (list.type.params().empty()) return std::nullopt;
    CostNode elem;
    elem.type = list.type.params()[0];
    if (!list.path.empty()) elem.path = Append(list.path, "@items");
    return elem;
  }
  static std::vector<std::string> Append(std::vector<std::string> path, std::string_view step) {
    path.emplace_back(step);
    return path;
  }

  // library.CostEstimator.EstimateCallCost, keyed by function name.
  std::optional<CallEstimate> LibraryCallCost(std::string_view fn, std::string_view overload, const CostNode* target,
                                              std::span<const CostNode> args) const {
    auto one = [] { return CallEstimate{Fixed(1), {}}; };
    if (fn == "check") return CallEstimate{Fixed(350000), {}};
    if (fn == "serviceAccount" || fn == "path" || fn == "group" || fn == "resource" || fn == "subresource" ||
        fn == "namespace" || fn == "name" || fn == "allowed" || fn == "reason" || fn == "error" || fn == "errored") {
      return one();
    }
    if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf") {
      if (target == nullptr) return std::nullopt;
      if (std::optional<CostNode> elem = ListElementNode(*target)) {
        CostEstimate el_cost = Fixed(1);
        const TypeKind k = elem->type.kind();
        if (k == TypeKind::kString || k == TypeKind::kBytes) {
          el_cost = Add(el_cost, Factor(SizeOf(*elem), kStringTraversalCostFactor));
        }
        return CallEstimate{MulCost(SizeOf(*target), el_cost), {}};
      }
      // indexOf and lastIndexOf on a string.
      return CallEstimate{Factor(SizeOf(*target), kStringTraversalCostFactor), {}};
    }
    if (fn == "url") {
      if (args.size() != 1) return std::nullopt;
      const SizeEstimate sz = SizeOf(args[0]);
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") {
      if (target == nullptr) return std::nullopt;
      const SizeEstimate sz = SizeOf(*target);
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "replace") {
      if (target == nullptr || args.size() < 2) return std::nullopt;
      return ReplaceCost(SizeOf(*target), SizeOf(args[0]), SizeOf(args[1]));
    }
    if (fn == "split") {
      if (target == nullptr) return std::nullopt;
      const SizeEstimate sz = SizeOf(*target);
      // Worst case: a separator of "", one element per character; a
      // constant limit bounds it.
      uint64_t max = sz.max;
      if (args.size() > 1 && args[1].expr != nullptr && args[1].expr->Is<Constant>()) {
        const Constant& c = args[1].expr->constant();
        if (c.kind() == Constant::Kind::kInt && c.int_value() >= 0) {
          max = static_cast<uint64_t>(c.int_value());
        } else if (c.kind() == Constant::Kind::kUint) {
          max = c.uint_value();
        }
      }
      return CallEstimate{Factor(sz, 2 * kStringTraversalCostFactor), SizeEstimate{0, max}};
    }
    if (fn == "join") {
      if (target == nullptr) return std::nullopt;
      SizeEstimate sz;
      const SizeEstimate list_size = SizeOf(*target);
      if (std::optional<CostNode> elem = ListElementNode(*target)) {
        sz = Mul(list_size, SizeOf(*elem));
      }
      if (!args.empty()) {
        const SizeEstimate sep = SizeOf(args[0]);
        const SizeEstimate separators{list_size.min > 0 ? list_size.min - 1 : 0,
                                      list_size.max > 0 ? list_size.max - 1 : 0};
        sz = Add(sz, Mul(sep, separators));
      }
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "find" || fn == "findAll") {
      if (target == nullptr || args.empty()) return std::nullopt;
      const SizeEstimate sz = SizeOf(*target);
      const CostEstimate str = Factor(Add(sz, FixedSize(1)), kStringTraversalCostFactor);
      const CostEstimate regex = Factor(SizeOf(args[0]), kRegexStringLengthCostFactor);
      return CallEstimate{Mul(str, regex), SizeEstimate{0, sz.max}};
    }
    if (fn == "cidr" || fn == "isIP" || fn == "isCIDR") {
      // Upstream tests for a receiver these global functions never have.
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{Factor(SizeOf(args[0]), kStringTraversalCostFactor), {}};
    }
    if (fn == "ip") {
      if (target != nullptr && !args.empty()) {
        if (overload == "cidr_ip") return one();
        return CallEstimate{Factor(SizeOf(args[0]), kStringTraversalCostFactor), {}};
      }
      if (target != nullptr) return one();  // cidr.ip(): a field access
      return std::nullopt;
    }
    if (fn == "ip.isCanonical") {
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{Factor(SizeOf(args[0]), 2 * kStringTraversalCostFactor), {}};
    }
    if (fn == "masked" || fn == "prefixLength" || fn == "family" || fn == "isUnspecified" || fn == "isLoopback" ||
        fn == "isLinkLocalMulticast" || fn == "isLinkLocalUnicast" || fn == "isGlobalUnicast") {
      return one();
    }
    if (fn == "containsIP" || fn == "containsCIDR") {
      if (target == nullptr || args.empty()) return std::nullopt;
      // Comparing two byte lists of an IPv4 or IPv6 address.
      const SizeEstimate sz{4, 16};
      CostEstimate cost = Factor(Add(sz, sz), kStringTraversalCostFactor);
      if (fn == "containsCIDR") {
        cost = Add(cost, Factor(sz, kStringTraversalCostFactor));
        cost = Add(cost, Fixed(1));
      }
      if (overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string") {
        cost = Add(cost, Factor(SizeOf(args[0]), kStringTraversalCostFactor));
      }
      return CallEstimate{cost, {}};
    }
    if (fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") {
      // Upstream tests for a receiver these global functions never have, so
      // they cost 1 (the generic rule).
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{Factor(SizeOf(args[0]), kStringTraversalCostFactor), {}};
    }
    if (fn == "validate") {
      // A named format's regex is assumed to be as long as the longest one.
      if (target == nullptr || args.empty()) return std::nullopt;
      return CallEstimate{Factor(Factor(SizeOf(args[0]), kStringTraversalCostFactor),
                                 kMaxNameFormatRegexSize * kRegexStringLengthCostFactor),
                          {}};
    }
    if (fn == "format.named") return one();
    if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" || fn == "isGreaterThan" ||
        fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" || fn == "major" || fn == "minor" ||
        fn == "patch") {
      return one();
    }
    if (fn == "getScheme" || fn == "getHostname" || fn == "getHost" || fn == "getPort" || fn == "getEscapedPath" ||
        fn == "getQuery") {
      return one();  // URL accessors
    }
    if (fn == "_==_" && args.size() == 2 && args[0].type.IsExact(args[1].type)) {
      // Equality of two values of one Kubernetes type.
      const std::string& name = args[0].type.name();
      if (name == "net.IP" || name == "net.CIDR" || name == "kubernetes.Quantity" || name == "kubernetes.Semver") {
        return one();
      }
      if (name == "kubernetes.NamedFormat") {
        return CallEstimate{Factor(CostEstimate{1, kMaxFormatSize}, kStringTraversalCostFactor), {}};
      }
      if (name == "kubernetes.URL") {
        // Upstream unions the right operand's size with itself.
        SizeEstimate size{1, 1};
        if (args[1].computed_size) size = Union(*args[1].computed_size, *args[1].computed_size);
        return CallEstimate{Factor(CostEstimate{1, size.max}, kStringTraversalCostFactor), {}};
      }
    }
    return std::nullopt;
  }

  // ceil(x / y) computed in floating point, as upstream does, saturating.
  static uint64_t CeilDiv(uint64_t x, uint64_t y) {
    const double q = std::ceil(static_cast<double>(x) / static_cast<double>(y));
    return q >= 18446744073709551616.0 ? kMax : static_cast<uint64_t>(q);
  }

  static CallEstimate ReplaceCost(SizeEstimate sz, SizeEstimate to_replace, SizeEstimate replace_with) {
    SizeEstimate count;
    SizeEstimate retained;
    // The longest result.
    if (to_replace.min == 0) {
      // Replacing "" surrounds every character with the replacement.
      count.max = sz.max < kMax ? sz.max + 1 : sz.max;
      retained.max = sz.max;
    } else if (replace_with.max <= to_replace.min) {
      count.max = 0;
      retained.max = sz.max;
    } else {
      count.max = CeilDiv(sz.max, to_replace.min);
    }
    // The shortest result.
    if (to_replace.max == 0) {
      count.min = sz.min < kMax ? sz.min + 1 : sz.min;
      retained.min = sz.min;
    } else if (to_replace.max <= replace_with.min) {
      count.min = 0;
      retained.min = sz.min;
    } else {
      count.min = CeilDiv(sz.min, to_replace.max);
    }
    const SizeEstimate size = Add(Mul(count, replace_with), retained);
    return CallEstimate{Factor(sz, 2 * kStringTraversalCostFactor), size};
  }
};

}  // namespace

CostEstimate EstimateCost(const ParsedExpr& parsed, const CheckResult& checked, const CostOptions& options) {
  return Coster(checked, options).Cost(parsed.expr);
}

std::unique_ptr<CostEstimator> NewKubernetesCostEstimator() { return std::make_unique<KubernetesCostEstimator>(); }

CostOptions KubernetesCostOptions(const CostEstimator& estimator) {
  CostOptions o;
  o.presence_test_has_cost = false;
  o.estimator = &estimator;
  return o;
}

}  // namespace dra::cel
