// Static worst-case cost estimation of a checked CEL expression, as cel-go's
// checker.Cost (checker/cost.go) computes it, with the Kubernetes estimators
// (k8s.io/apiserver pkg/cel/library/cost.go, and the DRA size hints of
// k8s.io/dynamic-resource-allocation cel/compile.go).
//
// The estimate is a range [min, max] of cost units, in the units of the
// runtime cost (cel/runtime/program.h): identifiers and selections 1, constants 0, list
// and map literals 10 and 30, most calls 1, string operations by length,
// comprehensions by range size times the cost of one iteration. Sizes of
// strings, lists and maps that the expression itself does not fix come from
// a CostEstimator; without one they are unknown (0 to 2^64-1), which makes
// e.g. a comprehension over an unbounded list cost "infinitely" much.
//
// Kubernetes rejects a new DRA selector whose max exceeds
// kCelSelectorExpressionMaxCost ("Forbidden: too complex, exceeds cost
// limit"); src/cel/README.md §5 lists the sizes the DRA estimator
// (sizeEstimator in cel/compile.go) assumes for the `device` variable.
// Examples (upstream max_cost): `device.driver == "dra.example.com"` 4,
// `device.attributes.exists_one(x, x == "dra.example.com")` 164.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/checker/checker.h"
#include "cel/checker/types.h"
#include "cel/parser/ast.h"

namespace dra::cel {

// k8s.io/api resource/v1 CELSelectorExpressionMaxCost.
inline constexpr uint64_t kCelSelectorExpressionMaxCost = 1'000'000;

// A range of sizes (string length in code points, bytes, list or map
// entries). Arithmetic saturates at UINT64_MAX.
struct SizeEstimate {
  uint64_t min = 0;
  uint64_t max = 0;
  friend bool operator==(const SizeEstimate&, const SizeEstimate&) = default;
};

// A range of cost units. Arithmetic saturates at UINT64_MAX.
struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;
  friend bool operator==(const CostEstimate&, const CostEstimate&) = default;
};

// What an estimator sees of an expression (cel-go checker.AstNode).
struct CostNode {
  // Field path from a variable: {"device", "attributes", "@values", "model"};
  // "@items", "@keys", "@values" step into lists and maps. Empty when the
  // expression does not reach into a variable.
  std::vector<std::string> path;
  Type type;
  const Expr* expr = nullptr;  // null for the element of a list type
  // The size the expression itself fixes (literals, computed results).
  std::optional<SizeEstimate> computed_size;
};

struct CallEstimate {
  CostEstimate cost;
  std::optional<SizeEstimate> result_size;
};

// Sizes of inputs and costs of functions the generic rules do not know
// (cel-go checker.CostEstimator).
class CostEstimator {
 public:
  virtual ~CostEstimator() = default;
  // The size of `node`, or std::nullopt if unknown to the estimator.
  virtual std::optional<SizeEstimate> EstimateSize(const CostNode& node) const = 0;
  // The cost of one call of `overload_id` of `function`, not counting its
  // arguments, or std::nullopt to use the generic rules. `target` is null for
  // a global call.
  virtual std::optional<CallEstimate> EstimateCallCost(std::string_view function, std::string_view overload_id,
                                                       const CostNode* target,
                                                       std::span<const CostNode> args) const = 0;
};

struct CostOptions {
  // cel-go's PresenceTestHasCost; Kubernetes turns it off (has() costs 0).
  bool presence_test_has_cost = true;
  // Not owned; may be null (no size hints, generic function costs only).
  const CostEstimator* estimator = nullptr;
};

// Estimates the cost of `parsed`, whose check result is `checked`.
// REQUIRES: checked.ok() and `checked` came from Check(parsed, ...).
// Thread-safe; keeps no reference to its arguments.
CostEstimate EstimateCost(const ParsedExpr& parsed, const CheckResult& checked, const CostOptions& options = {});

// Kubernetes' estimator for DRA selectors: the function costs of
// k8s.io/apiserver's library.CostEstimator (quantity, semver, regex, lists,
// strings, ip, cidr, url), DRA's `includes` (48 list elements), and the sizes
// of the `device` variable's fields (driver and domains 63 characters,
// attribute and capacity ids 32, attribute values 64, 32 entries per map).
// Immutable and thread-safe.
std::unique_ptr<CostEstimator> NewKubernetesCostEstimator();

// The options Kubernetes estimates DRA selectors with, using `estimator`
// (which must outlive the options).
CostOptions KubernetesCostOptions(const CostEstimator& estimator);

}  // namespace dra::cel
