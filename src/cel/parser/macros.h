// Parse-time macros: calls that the parser rewrites into other expressions,
// exactly as cel-go expands them (parser/macro.go, ext/comprehensions.go,
// ext/bindings.go, ext/lists.go and the optional library in cel/library.go).
//
//   macro                                   expands to
//   --------------------------------------  --------------------------------------
//   has(e.f)                                e.f~test-only (Select, test_only)
//   r.all(x, p)                             comprehension, accu "@result":
//                                           init true, cond @not_strictly_false(@result),
//                                           step @result && p, result @result
//   r.exists(x, p)                          init false, cond @not_strictly_false(!@result),
//                                           step @result || p, result @result
//   r.exists_one(x, p)                      init 0, cond true,
//                                           step p ? @result + 1 : @result, result @result == 1
//   r.map(x, t) / r.map(x, p, t)            init [], cond true, step @result + [t]
//                                           (p ? @result + [t] : @result), result @result
//   r.filter(x, p)                          init [], step p ? @result + [x] : @result
//   r.all/exists(i, v, p),                  the same with iter_var2 (ext.TwoVarComprehensions)
//   r.existsOne / r.exists_one(i, v, p)
//   r.transformList(i, v, [p,] t)           init [], step @result + [t] (filtered by p)
//   r.transformMap(k, v, [p,] t)            init {}, step cel.@mapInsert(@result, k, t)
//   r.transformMapEntry(k, v, [p,] e)       init {}, step cel.@mapInsert(@result, e)
//   cel.bind(x, init, e)                    comprehension over [] with iter_var "#unused",
//                                           accu x = init, cond false, step x, result e
//   o.optMap(x, t)                          o.hasValue() ? optional.of(<bind x = o.value() in t>)
//                                                        : optional.none()
//   o.optFlatMap(x, t)                      o.hasValue() ? <bind x = o.value() in t>
//                                                        : optional.none()
//   l.sortBy(x, k)                          <bind @__sortBy_input__ = l in
//                                            @__sortBy_input__.@sortByAssociatedKeys(
//                                              @__sortBy_input__.map(x, k))>
//
// A macro is chosen by name, argument count and call style (receiver or
// global); a call that matches none stays a call. Malformed arguments (e.g.
// `[].all(1, true)`) are errors, reported at the offending argument.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/parser/ast.h"

namespace dra::cel {

// The accumulator variable of expanded comprehensions (cel-go's hidden
// accumulator name; "__result__" was its older, user-visible name).
inline constexpr std::string_view kAccumulatorName = "@result";
inline constexpr std::string_view kLegacyAccumulatorName = "__result__";
// The iteration variable of zero-iteration (bind-style) comprehensions.
inline constexpr std::string_view kUnusedIterVar = "#unused";

// Builds the nodes of a macro expansion. Implemented by the parser: every node
// made here gets a fresh id, positioned at the macro call.
class MacroExprFactory {
 public:
  virtual ~MacroExprFactory() = default;

  // A fresh id, positioned at the macro call.
  virtual int64_t NextId() = 0;
  // A deep copy of `expr` whose nodes (and entries) get fresh ids, each keeping
  // the position of the node it copies.
  virtual Expr Copy(const Expr& expr) = 0;

  Expr NewConst(Constant value) { return Expr(NextId(), std::move(value)); }
  Expr NewBool(bool value) { return NewConst(Constant::Bool(value)); }
  Expr NewInt(int64_t value) { return NewConst(Constant::Int(value)); }
  Expr NewIdent(std::string_view name) { return Expr(NextId(), IdentExpr{std::string(name)}); }
  Expr NewAccuIdent() { return NewIdent(kAccumulatorName); }
  Expr NewPresenceTest(Expr operand, std::string field);

  template <typename... Args>
  Expr NewCall(std::string_view function, Args&&... args) {
    CallExpr call;
    call.function = std::string(function);
    (call.args.push_back(std::forward<Args>(args)), ...);
    return Expr(NextId(), std::move(call));
  }
  template <typename... Args>
  Expr NewMemberCall(std::string_view function, Expr target, Args&&... args) {
    CallExpr call;
    call.function = std::string(function);
    call.target = Box<Expr>(std::move(target));
    (call.args.push_back(std::forward<Args>(args)), ...);
    return Expr(NextId(), std::move(call));
  }
  template <typename... Args>
  Expr NewList(Args&&... elements) {
    ListExpr list;
    (list.elements.push_back(std::forward<Args>(elements)), ...);
    return Expr(NextId(), std::move(list));
  }
  Expr NewMap() { return Expr(NextId(), MapExpr{}); }

  // `iter_var2` empty for a one-variable comprehension.
  Expr NewComprehension(std::string_view iter_var, std::string_view iter_var2, Expr iter_range,
                        std::string_view accu_var, Expr accu_init, Expr loop_condition, Expr loop_step, Expr result);
};

// A malformed macro call: `message`, reported at the position of node `id`.
struct MacroError {
  int64_t id = 0;
  std::string message;
};

// What an expander returns: exactly one of an expansion or an error, or
// neither when the expander declines (the call then stays a plain call; an
// expander that declines has not touched target or args).
struct MacroExpansion {
  std::optional<Expr> expr;
  std::optional<MacroError> error;
};

// `target` is null for a global call. The expander may move from *target and
// from args.
using MacroExpander = MacroExpansion (*)(MacroExprFactory& factory, Expr* target, std::vector<Expr>& args);

// Groups of macros that environments enable together.
enum class MacroLibrary : uint8_t {
  kStandard,              // has, all, exists, exists_one, map, filter
  kTwoVarComprehensions,  // ext.TwoVarComprehensions
  kBindings,              // ext.Bindings: cel.bind
  kOptional,              // optional library: optMap, optFlatMap
  kLists,                 // ext.Lists (v2+): sortBy
};

struct Macro {
  std::string_view name;
  int arg_count;
  bool receiver_style;
  MacroLibrary library;
  MacroExpander expander;
};

// Every macro the parser knows, in no particular order.
std::span<const Macro> AllMacros();

// The macro for a call of `function` with `arg_count` arguments, receiver-style
// or not, or nullptr.
const Macro* FindMacro(std::string_view function, size_t arg_count, bool receiver_style);

}  // namespace dra::cel
