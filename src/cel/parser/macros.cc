// Macro expanders. Each mirrors the cel-go function named in its comment;
// sub-expressions are built into locals first so that ids are allocated in
// the same order whatever the compiler's argument evaluation order.
#include "cel/parser/macros.h"

#include <array>

#include "cel/parser/operators.h"

namespace dra::cel {

Expr MacroExprFactory::NewPresenceTest(Expr operand, std::string field) {
  SelectExpr select;
  select.operand = Box<Expr>(std::move(operand));
  select.field = std::move(field);
  select.test_only = true;
  return Expr(NextId(), std::move(select));
}

Expr MacroExprFactory::NewComprehension(std::string_view iter_var, std::string_view iter_var2, Expr iter_range,
                                        std::string_view accu_var, Expr accu_init, Expr loop_condition, Expr loop_step,
                                        Expr result) {
  ComprehensionExpr c;
  c.iter_var = std::string(iter_var);
  c.iter_var2 = std::string(iter_var2);
  c.iter_range = Box<Expr>(std::move(iter_range));
  c.accu_var = std::string(accu_var);
  c.accu_init = Box<Expr>(std::move(accu_init));
  c.loop_condition = Box<Expr>(std::move(loop_condition));
  c.loop_step = Box<Expr>(std::move(loop_step));
  c.result = Box<Expr>(std::move(result));
  return Expr(NextId(), std::move(c));
}

namespace {

MacroExpansion Expanded(Expr expr) { return MacroExpansion{std::move(expr), std::nullopt}; }
MacroExpansion Failed(int64_t id, std::string message) {
  return MacroExpansion{std::nullopt, MacroError{id, std::move(message)}};
}

const std::string* IdentName(const Expr& e) { return e.Is<IdentExpr>() ? &e.ident().name : nullptr; }

bool IsAccumulatorName(std::string_view name) { return name == kAccumulatorName || name == kLegacyAccumulatorName; }

// cel-go parser.MakeHas.
MacroExpansion ExpandHas(MacroExprFactory& f, Expr*, std::vector<Expr>& args) {
  Expr& arg = args[0];
  if (!arg.Is<SelectExpr>() || arg.select().test_only) {
    return Failed(arg.id(), "invalid argument to has() macro");
  }
  SelectExpr& select = arg.As<SelectExpr>();
  return Expanded(f.NewPresenceTest(std::move(*select.operand), std::move(select.field)));
}

enum class Quantifier { kAll, kExists, kExistsOne };

// The pieces of a quantifier comprehension (cel-go parser.makeQuantifier and
// ext quantifierAll/Exists/ExistsOne share them).
struct QuantifierParts {
  Expr init;
  Expr condition;
  Expr step;
  Expr result;
};

QuantifierParts MakeQuantifierParts(MacroExprFactory& f, Quantifier kind, Expr predicate) {
  QuantifierParts parts;
  switch (kind) {
    case Quantifier::kAll: {
      parts.init = f.NewBool(true);
      Expr accu = f.NewAccuIdent();
      parts.condition = f.NewCall(op::kNotStrictlyFalse, std::move(accu));
      Expr step_accu = f.NewAccuIdent();
      parts.step = f.NewCall(op::kLogicalAnd, std::move(step_accu), std::move(predicate));
      parts.result = f.NewAccuIdent();
      break;
    }
    case Quantifier::kExists: {
      parts.init = f.NewBool(false);
      Expr accu = f.NewAccuIdent();
      Expr not_accu = f.NewCall(op::kLogicalNot, std::move(accu));
      parts.condition = f.NewCall(op::kNotStrictlyFalse, std::move(not_accu));
      Expr step_accu = f.NewAccuIdent();
      parts.step = f.NewCall(op::kLogicalOr, std::move(step_accu), std::move(predicate));
      parts.result = f.NewAccuIdent();
      break;
    }
    case Quantifier::kExistsOne: {
      // No short-circuit: every element is evaluated (errors included).
      parts.init = f.NewInt(0);
      parts.condition = f.NewBool(true);
      Expr accu = f.NewAccuIdent();
      Expr one = f.NewInt(1);
      Expr plus_one = f.NewCall(op::kAdd, std::move(accu), std::move(one));
      Expr unchanged = f.NewAccuIdent();
      parts.step = f.NewCall(op::kConditional, std::move(predicate), std::move(plus_one), std::move(unchanged));
      Expr result_accu = f.NewAccuIdent();
      Expr result_one = f.NewInt(1);
      parts.result = f.NewCall(op::kEquals, std::move(result_accu), std::move(result_one));
      break;
    }
  }
  return parts;
}

// cel-go parser.makeQuantifier (all, exists, exists_one with 2 arguments).
template <Quantifier kKind>
MacroExpansion ExpandQuantifier(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  const std::string* var = IdentName(args[0]);
  if (var == nullptr) return Failed(args[0].id(), "argument must be a simple name");
  if (IsAccumulatorName(*var)) {
    return Failed(args[0].id(), "iteration variable overwrites accumulator variable");
  }
  QuantifierParts parts = MakeQuantifierParts(f, kKind, std::move(args[1]));
  return Expanded(f.NewComprehension(*var, "", std::move(*target), kAccumulatorName, std::move(parts.init),
                                     std::move(parts.condition), std::move(parts.step), std::move(parts.result)));
}

// cel-go parser.MakeMap, shared with sortBy: `range.map(args[0], [filter,] fn)`.
MacroExpansion MakeMap(MacroExprFactory& f, Expr range, std::vector<Expr>& args) {
  const std::string* var = IdentName(args[0]);
  if (var == nullptr) return Failed(args[0].id(), "argument is not an identifier");
  if (IsAccumulatorName(*var)) {
    return Failed(args[0].id(), "iteration variable overwrites accumulator variable");
  }
  const bool has_filter = args.size() == 3;
  Expr fn = std::move(args[has_filter ? 2 : 1]);
  Expr init = f.NewList();
  Expr condition = f.NewBool(true);
  Expr accu = f.NewAccuIdent();
  Expr element = f.NewList(std::move(fn));
  Expr step = f.NewCall(op::kAdd, std::move(accu), std::move(element));
  if (has_filter) {
    Expr unchanged = f.NewAccuIdent();
    step = f.NewCall(op::kConditional, std::move(args[1]), std::move(step), std::move(unchanged));
  }
  Expr result = f.NewAccuIdent();
  return Expanded(f.NewComprehension(*var, "", std::move(range), kAccumulatorName, std::move(init),
                                     std::move(condition), std::move(step), std::move(result)));
}

MacroExpansion ExpandMap(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  if (IdentName(args[0]) == nullptr) return Failed(args[0].id(), "argument is not an identifier");
  return MakeMap(f, std::move(*target), args);
}

// cel-go parser.MakeFilter.
MacroExpansion ExpandFilter(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  const std::string* found = IdentName(args[0]);
  if (found == nullptr) return Failed(args[0].id(), "argument is not an identifier");
  if (IsAccumulatorName(*found)) {
    return Failed(args[0].id(), "iteration variable overwrites accumulator variable");
  }
  const std::string var = *found;
  Expr init = f.NewList();
  Expr condition = f.NewBool(true);
  Expr accu = f.NewAccuIdent();
  Expr element = f.NewList(std::move(args[0]));  // the iteration variable itself
  Expr append = f.NewCall(op::kAdd, std::move(accu), std::move(element));
  Expr unchanged = f.NewAccuIdent();
  Expr step = f.NewCall(op::kConditional, std::move(args[1]), std::move(append), std::move(unchanged));
  Expr result = f.NewAccuIdent();
  return Expanded(f.NewComprehension(var, "", std::move(*target), kAccumulatorName, std::move(init),
                                     std::move(condition), std::move(step), std::move(result)));
}

// cel-go ext extractIterVars: both iteration variables of a two-variable form.
std::optional<MacroError> ExtractIterVars(const std::vector<Expr>& args, std::string* var1, std::string* var2) {
  const std::string* v1 = IdentName(args[0]);
  if (v1 == nullptr) return MacroError{args[0].id(), "iteration variable must be a simple name"};
  const std::string* v2 = IdentName(args[1]);
  if (v2 == nullptr) return MacroError{args[1].id(), "iteration variable must be a simple name"};
  if (*v1 == *v2) return MacroError{args[1].id(), "duplicate variable name: " + *v1};
  if (IsAccumulatorName(*v1)) {
    return MacroError{args[0].id(), "iteration variable overwrites accumulator variable"};
  }
  if (IsAccumulatorName(*v2)) {
    return MacroError{args[1].id(), "iteration variable overwrites accumulator variable"};
  }
  *var1 = *v1;
  *var2 = *v2;
  return std::nullopt;
}

// cel-go ext quantifierAll / quantifierExists / quantifierExistsOne.
template <Quantifier kKind>
MacroExpansion ExpandQuantifier2(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  std::string var1, var2;
  if (auto error = ExtractIterVars(args, &var1, &var2)) return MacroExpansion{std::nullopt, error};
  QuantifierParts parts = MakeQuantifierParts(f, kKind, std::move(args[2]));
  return Expanded(f.NewComprehension(var1, var2, std::move(*target), kAccumulatorName, std::move(parts.init),
                                     std::move(parts.condition), std::move(parts.step), std::move(parts.result)));
}

enum class Transform { kList, kMap, kMapEntry };

// cel-go ext transformList / transformMap / transformMapEntry.
template <Transform kKind>
MacroExpansion ExpandTransform(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  std::string var1, var2;
  if (auto error = ExtractIterVars(args, &var1, &var2)) return MacroExpansion{std::nullopt, error};
  const bool has_filter = args.size() == 4;
  Expr transform = std::move(args[has_filter ? 3 : 2]);
  Expr init = kKind == Transform::kList ? f.NewList() : f.NewMap();
  Expr condition = f.NewBool(true);
  Expr step;
  Expr accu = f.NewAccuIdent();
  switch (kKind) {
    case Transform::kList: {
      Expr element = f.NewList(std::move(transform));
      step = f.NewCall(op::kAdd, std::move(accu), std::move(element));
      break;
    }
    case Transform::kMap: {
      Expr key = f.NewIdent(var1);
      step = f.NewCall(op::kMapInsert, std::move(accu), std::move(key), std::move(transform));
      break;
    }
    case Transform::kMapEntry: step = f.NewCall(op::kMapInsert, std::move(accu), std::move(transform)); break;
  }
  if (has_filter) {
    Expr unchanged = f.NewAccuIdent();
    step = f.NewCall(op::kConditional, std::move(args[2]), std::move(step), std::move(unchanged));
  }
  Expr result = f.NewAccuIdent();
  return Expanded(f.NewComprehension(var1, var2, std::move(*target), kAccumulatorName, std::move(init),
                                     std::move(condition), std::move(step), std::move(result)));
}

// A zero-iteration comprehension that binds `var` to `init` while evaluating
// `result` (the shape of cel.bind, optMap, optFlatMap and sortBy).
Expr MakeBind(MacroExprFactory& f, const std::string& var, Expr init, Expr result) {
  Expr range = f.NewList();
  Expr condition = f.NewBool(false);
  Expr step = f.NewIdent(var);
  return f.NewComprehension(kUnusedIterVar, "", std::move(range), var, std::move(init), std::move(condition),
                            std::move(step), std::move(result));
}

// cel-go ext celBind. Expands only `cel.bind(...)`; other targets decline.
MacroExpansion ExpandBind(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  if (!target->Is<IdentExpr>() || target->ident().name != "cel") return {};
  const std::string* var = IdentName(args[0]);
  if (var == nullptr) {
    return Failed(args[0].id(), "cel.bind() variable names must be simple identifiers");
  }
  const std::string name = *var;
  return Expanded(MakeBind(f, name, std::move(args[1]), std::move(args[2])));
}

// cel-go optMap (kWrap) and optFlatMap.
template <bool kWrap>
MacroExpansion ExpandOptMap(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  const std::string* var = IdentName(args[0]);
  if (var == nullptr) {
    return Failed(args[0].id(), kWrap ? "optMap() variable name must be a simple identifier"
                                      : "optFlatMap() variable name must be a simple identifier");
  }
  const std::string name = *var;
  Expr target_copy = f.Copy(*target);
  Expr has_value = f.NewMemberCall(op::kHasValue, std::move(*target));
  Expr value = f.NewMemberCall(op::kValue, std::move(target_copy));
  Expr bound = MakeBind(f, name, std::move(value), std::move(args[1]));
  if (kWrap) bound = f.NewCall(op::kOptionalOf, std::move(bound));
  Expr none = f.NewCall(op::kOptionalNone);
  return Expanded(f.NewCall(op::kConditional, std::move(has_value), std::move(bound), std::move(none)));
}

// cel-go ext sortByMacro.
MacroExpansion ExpandSortBy(MacroExprFactory& f, Expr* target, std::vector<Expr>& args) {
  static constexpr std::string_view kInput = "@__sortBy_input__";
  switch (target->kind()) {
    case ExprKind::kList:
    case ExprKind::kSelect:
    case ExprKind::kIdent:
    case ExprKind::kComprehension:
    case ExprKind::kCall: break;
    default:
      return Failed(target->id(),
                    "sortBy can only be applied to a list, identifier, comprehension, call or "
                    "select expression");
  }
  Expr keys_range = f.NewIdent(kInput);
  MacroExpansion keys = MakeMap(f, std::move(keys_range), args);
  if (keys.error) return keys;
  Expr receiver = f.NewIdent(kInput);
  Expr sorted = f.NewMemberCall(op::kSortByAssociatedKeys, std::move(receiver), std::move(*keys.expr));
  return Expanded(MakeBind(f, std::string(kInput), std::move(*target), std::move(sorted)));
}

constexpr std::array kMacros = {
    Macro{"has", 1, false, MacroLibrary::kStandard, &ExpandHas},
    Macro{"all", 2, true, MacroLibrary::kStandard, &ExpandQuantifier<Quantifier::kAll>},
    Macro{"exists", 2, true, MacroLibrary::kStandard, &ExpandQuantifier<Quantifier::kExists>},
    Macro{"exists_one", 2, true, MacroLibrary::kStandard, &ExpandQuantifier<Quantifier::kExistsOne>},
    Macro{"map", 2, true, MacroLibrary::kStandard, &ExpandMap},
    Macro{"map", 3, true, MacroLibrary::kStandard, &ExpandMap},
    Macro{"filter", 2, true, MacroLibrary::kStandard, &ExpandFilter},
    Macro{"all", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandQuantifier2<Quantifier::kAll>},
    Macro{"exists", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandQuantifier2<Quantifier::kExists>},
    Macro{"existsOne", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandQuantifier2<Quantifier::kExistsOne>},
    Macro{"exists_one", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandQuantifier2<Quantifier::kExistsOne>},
    Macro{"transformList", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kList>},
    Macro{"transformList", 4, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kList>},
    Macro{"transformMap", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kMap>},
    Macro{"transformMap", 4, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kMap>},
    Macro{"transformMapEntry", 3, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kMapEntry>},
    Macro{"transformMapEntry", 4, true, MacroLibrary::kTwoVarComprehensions, &ExpandTransform<Transform::kMapEntry>},
    Macro{"bind", 3, true, MacroLibrary::kBindings, &ExpandBind},
    Macro{"optMap", 2, true, MacroLibrary::kOptional, &ExpandOptMap<true>},
    Macro{"optFlatMap", 2, true, MacroLibrary::kOptional, &ExpandOptMap<false>},
    Macro{"sortBy", 2, true, MacroLibrary::kLists, &ExpandSortBy},
};

}  // namespace

std::span<const Macro> AllMacros() { return kMacros; }

const Macro* FindMacro(std::string_view function, size_t arg_count, bool receiver_style) {
  for (const Macro& m : kMacros) {
    if (m.name == function && static_cast<size_t>(m.arg_count) == arg_count && m.receiver_style == receiver_style) {
      return &m;
    }
  }
  return nullptr;
}

}  // namespace dra::cel
