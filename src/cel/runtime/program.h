// Planning a parsed expression into an immutable Program, and evaluating it.
//
//   ParsedExpr --Plan(env)--> Program (shared, immutable, thread-safe)
//   Program + Activation + EvalState --Evaluate--> Value | cost-limit Status
//
// Planning resolves every identifier once: variables (with container
// namespace resolution, cel-spec "namespace" rules, longest qualified name
// first), comprehension variables (lexically scoped, each given a slot), and
// type names (`int`, `list`, ...). A chain of field selections and constant
// indexes rooted at a variable (`device.attributes["d"].model`) becomes one
// path node, which an opaque variable value may resolve in a single call
// (OpaqueObject::ResolvePath). Calls are bound to their candidate
// overloads in the FunctionRegistry; calls whose arguments are all constants
// are folded (evaluated once at plan time), as are constant list and map
// literals. Evaluation then walks the planned nodes without looking up a
// single name.
//
// The three channels (expected outcomes such as compile problems and CEL
// errors come back inside the result, not as a failed Status):
//   - compile problems (an undeclared identifier, an invalid constant regular
//     expression) come back as issues in an OK PlanResult;
//   - CEL runtime errors (division by zero, no such key, no matching
//     overload) are error Values: `false && 1/0 == 0` is false;
//   - a non-OK Status from Evaluate means the evaluation was cancelled
//     because it exceeded its cost limit (or its allocation budget):
//     kResourceExhausted, "operation cancelled: actual cost limit exceeded".
//
// Cost follows cel-go's runtime CostTracker (interpreter/runtimecost.go) as
// Kubernetes configures it (src/cel/README.md §5): constants 0, identifiers,
// field selections and index operations 1 each, has() 0, list/map literals
// 10/30, calls 1 unless the overload has a size-dependent cost (string
// equality, `in` on a list, matches, contains, ...); &&, || and ?: cost
// nothing themselves. Comprehensions pay for every loop condition and step they
// evaluate, so a cost bomb stops at the limit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "cel/parser/ast.h"
#include "cel/parser/issue.h"
#include "cel/runtime/function_registry.h"
#include "cel/runtime/value.h"

namespace dra::cel {

// Kubernetes' runtime cost limit per selector evaluation.
inline constexpr uint64_t kKubernetesCostLimit = 1'000'000;
// The message of a cancelled evaluation (cel-go's wording).
inline constexpr std::string_view kCostLimitExceededMessage = "operation cancelled: actual cost limit exceeded";

struct PlanOptions {
  // An identifier that names no declared variable, comprehension variable or
  // type is a compile issue ("undeclared reference to 'x' (in container
  // '')"), as cel-go's checker reports it. When false, it becomes an error
  // value at run time instead, as in cel-go without a checker (conformance
  // vectors with "check": false).
  bool report_undeclared = true;
  // Evaluate calls with constant arguments, and constant literals, at plan
  // time.
  bool fold_constants = true;
  // A call of a function that no library of the registry defines is a
  // compile issue ("undeclared reference to 'f' (in container '')"), as
  // cel-go's checker reports it. When false, such a call evaluates to a "no
  // matching overload" error value (cel-go without a checker).
  bool report_unknown_functions = false;
};

// Plan-time preparation of a constant access path rooted at a declared
// variable, e.g. `device.attributes["gpu.example.com"].model` is variable
// "device" with steps .attributes, ["gpu.example.com"], .model. What it returns
// is handed to OpaqueObject::ResolvePath of the variable's value at run time
// (nullptr when it returns nullptr). Called once per path while planning.
using PathPreparer =
    std::function<std::shared_ptr<const void>(std::string_view variable, std::span<const PathStep> steps)>;

// What an expression may refer to.
struct Environment {
  std::shared_ptr<const FunctionRegistry> registry;
  // Fully qualified variable names ("device", "a.b.c").
  std::vector<std::string> variables;
  // Namespace for name resolution, e.g. "com.example" (may be empty).
  std::string container;
  PlanOptions options;
  // Optional; see PathPreparer.
  PathPreparer prepare_path;
};

// Supplies variable values by name for one evaluation.
class Activation {
 public:
  virtual ~Activation() = default;
  // The value of the fully qualified variable `name`, or std::nullopt if it is
  // unbound (reading an unbound variable yields an error value). The result
  // may borrow memory that lives as long as the Activation.
  virtual std::optional<Value> Find(std::string_view name) const = 0;
};

// An Activation backed by a hash map.
class MapActivation final : public Activation {
 public:
  void Bind(std::string name, Value value) { values_[std::move(name)] = std::move(value); }
  std::optional<Value> Find(std::string_view name) const override;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, Value, Hash, std::equal_to<>> values_;
};

struct EvalOptions {
  // Runtime cost limit; std::nullopt means unlimited.
  std::optional<uint64_t> cost_limit = kKubernetesCostLimit;
  // Bytes (16 per list element) that library functions may allocate for
  // results in one evaluation before it is cancelled like a cost overrun.
  // Protects against expressions whose results grow faster than their cost
  // (e.g. nested replace()); far above anything a selector needs.
  uint64_t allocation_limit = uint64_t{64} << 20;
};

// Per-evaluation scratch state: variable and comprehension slots, the cost
// counter. One EvalState per thread; reuse it across evaluations (of any
// program) so that evaluation does not allocate. Not thread-safe.
class EvalState {
 public:
  explicit EvalState(EvalOptions options = {}) : options_(options) {}

  const EvalOptions& options() const { return options_; }
  void set_options(const EvalOptions& options) { options_ = options; }
  // Cost of the last evaluation (so far, while one runs).
  uint64_t cost() const { return cost_; }

 private:
  friend class Program;
  friend class CallContext;
  friend class Evaluator;
  friend class Planner;

  void Reset(size_t slot_count) {
    if (slots_.size() < slot_count) slots_.resize(slot_count);
    cost_ = 0;
    limit_ = options_.cost_limit.value_or(UINT64_MAX);
    allocated_ = 0;
    cancelled_ = false;
  }

  EvalOptions options_;
  std::vector<Value> slots_;
  uint64_t cost_ = 0;
  uint64_t limit_ = UINT64_MAX;
  uint64_t allocated_ = 0;
  bool cancelled_ = false;
};

namespace internal {
struct PlanNode;
}  // namespace internal

// A planned expression. Immutable after Plan; safe to share across threads
// and to evaluate concurrently (each thread with its own EvalState).
class Program {
 public:
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // The variables the expression reads, in slot order.
  std::span<const std::string> variables() const { return variables_; }
  // The slot of variable `name`, or std::nullopt if the program does not read it.
  std::optional<size_t> VariableSlot(std::string_view name) const;

  // Evaluates with variables looked up by name in `activation` (one lookup
  // per variable the program reads). The result is a Value, possibly an
  // error value; a non-OK Status only when the cost limit (or allocation
  // budget) of `state` was exceeded. The result may borrow from this Program
  // and from the activation's values.
  StatusOr<Value> Evaluate(const Activation& activation, EvalState& state) const;
  // The fast path: `vars[i]` is the value of variables()[i] (borrowed for the
  // duration of the call). Returns kInvalidArgument if vars.size() differs
  // from variables().size().
  StatusOr<Value> Evaluate(std::span<const Value> vars, EvalState& state) const;

  // The planned tree, for tests and debugging: one node per line.
  std::string DebugString() const;

 private:
  friend class Planner;
  friend class Evaluator;
  Program();
  StatusOr<Value> Run(EvalState& state) const;

  std::vector<internal::PlanNode> nodes_;
  std::vector<uint32_t> children_;
  uint32_t root_ = 0;
  std::vector<std::string> variables_;
  size_t slot_count_ = 0;
  bool has_comprehensions_ = false;
  std::shared_ptr<const FunctionRegistry> registry_;
  std::vector<std::shared_ptr<const void>> prepared_;  // keeps prepared state alive
};

struct PlanResult {
  // Set exactly when `issues` is empty.
  std::shared_ptr<const Program> program;
  std::vector<Issue> issues;
};

// Plans `parsed` in `env`. Problems with the expression are issues in an OK
// result (render them with FormatIssues). Returns kInvalidArgument if `env`
// has no registry. Thread-safe.
StatusOr<PlanResult> Plan(const ParsedExpr& parsed, const Environment& env);

}  // namespace dra::cel
