// The CEL environment of DRA device selectors: the `device` variable on top of
// the Kubernetes libraries (cel/libraries/k8s_lib.h), as kube-scheduler and kube-apiserver
// of Kubernetes 1.34-1.37 compile and evaluate
// `DeviceClass.spec.selectors[].cel.expression` and the request selectors.
// src/cel/README.md §1-§7 describe that environment; upstream it is
// newCompiler, CompileCELExpression and DeviceMatches in
// k8s.io/dynamic-resource-allocation cel/compile.go.
//
// This is the only file of cel/ that knows about devices.
//
//   DraEnvironment (build once: registry + options)
//     Compile(expression)     -> shared CompiledSelector (cached by string)
//     Matches(selector, device, driver, scratch) -> bool | error Status
//
// The `device` variable (src/cel/README.md §4), an object of type
// kubernetes.DRADevice:
//
//   device.driver                    string: the driver of the slice
//   device.attributes[domain][id]    the attribute `<domain>/<id>`, or `<id>`
//   device.attributes[domain].id     published by driver `domain` (a bare name
//                                    belongs to the driver's domain); int,
//                                    bool, string, kubernetes.Semver, or a list
//                                    of those (gate DRAListTypeAttributes)
//   device.capacity[domain].id       the capacity's value, kubernetes.Quantity
//   device.allowMultipleAllocations  bool, false when unset (declared in
//                                    StoredExpressions, and in NewExpressions
//                                    with DRAConsumableCapacity)
//
// An unknown domain reads as an empty map (`"d" in device.attributes` is the
// real test); a missing id is the error "no such key: <id>".
//
// Evaluation works directly on api::Device: nothing is converted or copied
// per device. `device` is a view object whose maps look attributes up in the
// device's own (interned) tables; a selector's constant access paths
// (`device.attributes["gpu.nvidia.com"].productName`) are resolved at compile
// time to the two interned keys they can match ("productName" when the
// domain is the driver, "gpu.nvidia.com/productName" always), so a lookup is a
// scan comparing pointers. Version attributes are parsed once per distinct
// text and cached in the EvalScratch; capacities are viewed in place. A
// selector such as an attribute comparison or a capacity compareTo() runs
// without allocating (bench/cel_bench.cc measures it).
//
// Before every evaluation the device's attributes are checked as upstream
// converts them: an attribute with no value, a version that is not a strict
// SemVer, or (before 1.37, unless 1.36 with DRAListTypeAttributes) a list
// value makes every selector fail on that device with
// "attribute <name>: <problem>". That check reads every attribute of the
// device, which costs more than most selectors; a caller that evaluates many
// selectors on the same devices (the allocator) runs CheckDevice once per
// device and then passes DeviceCheck::kDone.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/resource.h"
#include "base/release.h"
#include "base/status.h"
#include "cel/checker/checker.h"
#include "cel/checker/checker_decls.h"
#include "cel/dra/columnar.h"
#include "cel/libraries/k8s_lib.h"
#include "cel/parser/issue.h"
#include "cel/runtime/function_registry.h"
#include "cel/runtime/program.h"
#include "cel/runtime/value.h"

namespace dra::cel {

// The hint 1.37 appends to "no such key:" errors of selectors.
inline constexpr std::string_view kNoSuchKeyHint =
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields";

// Which environment, of which release, with which gates (src/cel/README.md
// §1, §3, §4).
struct DraEnvOptions {
  // Kubernetes minor release, 34 to 37.
  int minor = kDefaultMinor;
  // NewExpressions (API validation of new or changed selectors, feature
  // gates honoured) instead of StoredExpressions (kube-scheduler; gates
  // ignored, src/cel/README.md §1).
  bool new_expressions = false;
  // Feature gates DRAConsumableCapacity and DRAListTypeAttributes.
  bool consumable_capacity = false;
  bool list_type_attributes = false;
  // Runtime cost limit per evaluation (CELSelectorExpressionMaxCost);
  // std::nullopt = none.
  std::optional<uint64_t> cost_limit = kKubernetesCostLimit;

  // Derived facts (src/cel/README.md §3, §4):
  // `device.allowMultipleAllocations` is declared.
  bool allow_multiple_allocations_declared() const { return !new_expressions || consumable_capacity; }
  // Attribute values are statically `dyn` (so comprehensions over them
  // compile) rather than `any`.
  bool dyn_attributes() const { return minor >= 36 && (list_type_attributes || (minor >= 37 && !new_expressions)); }
  // List-valued attributes convert to CEL lists (else the device fails with
  // "unsupported attribute value").
  bool list_values() const { return minor >= 37 || (minor == 36 && list_type_attributes); }
  // `<dyn>.includes(<dyn>)` is declared (with a 48-element limit in 1.36 only).
  bool includes() const { return minor >= 36 && (!new_expressions || list_type_attributes); }
  // Runtime "no such key" errors carry kNoSuchKeyHint.
  bool no_such_key_hint() const { return minor >= 37; }
};

// A compiled selector expression. Immutable; share it freely (threads
// included). Either ok() and runnable, or it carries the compile error.
class CompiledSelector {
 public:
  const std::string& expression() const { return expression_; }
  bool ok() const { return program_ != nullptr; }
  // When !ok(): what Kubernetes reports, e.g.
  //   compilation failed: ERROR: <input>:1:3: Syntax error: ...
  //   must evaluate to bool or the unknown type, not int
  const std::string& error() const { return error_; }
  // When !ok() because of issues: the issues (empty for the result-type error).
  const std::vector<Issue>& issues() const { return issues_; }
  // The planned program (for tests and debugging), or nullptr.
  const Program* program() const { return program_.get(); }
  // The columnar form (cel/dra/columnar.h), or nullptr when the selector is not
  // one of its shapes.
  const ColumnarSelector* columnar() const { return columnar_.get(); }
  // For CompileExpression when ok(): why the expression cannot be a derived
  // attribute (DerivedAttributeResultTypeError: "must evaluate to a primitive
  // scalar (...) or a list of these scalars, not double"), or empty.
  const std::string& derived_attribute_error() const { return derived_attribute_error_; }

 private:
  friend class DraEnvironment;
  std::string expression_;
  std::shared_ptr<const Program> program_;
  std::shared_ptr<const ColumnarSelector> columnar_;
  std::optional<size_t> device_slot_;
  std::string error_;
  std::string derived_attribute_error_;
  std::vector<Issue> issues_;
};

namespace internal {
class DraScratch;
}  // namespace internal

// Per-thread scratch state for evaluations: the evaluator's slots and cost
// counter, the `device` view objects, and a cache of parsed version
// attributes (it grows with the number of distinct version strings seen, so
// that evaluating them does not allocate). Reuse one per thread across
// evaluations, devices, selectors and environments. Not thread-safe.
class EvalScratch {
 public:
  EvalScratch();
  ~EvalScratch();
  EvalScratch(const EvalScratch&) = delete;
  EvalScratch& operator=(const EvalScratch&) = delete;

  // Cost of the last evaluation.
  uint64_t cost() const;

 private:
  friend class DraEnvironment;
  std::unique_ptr<internal::DraScratch> impl_;
};

// Whether Matches / Evaluate check the device's attributes first (see the
// top of this file).
enum class DeviceCheck : uint8_t {
  kCheck,  // check, as upstream does before every evaluation
  kDone,   // CheckDevice already returned OK for this device, driver and environment
};

// Upstream converts a derived attribute's value by switching on the Go
// value behind it (ref.Val's Value()) and names that value's Go type with
// %T in its errors. For `v`, a value of this environment: that name as %T
// prints it, e.g. "int64", "float64", "[]uint8", "structpb.NullValue",
// "*resource.Quantity", "map[ref.Val]ref.Val" (a map literal),
// "map[string]interface {}" (device.attributes[d]), "[]ref.Val" (a list
// literal or comprehension; upstream's concatenations, "[]interface {}", and
// split results, "[]string", are not told apart), "[]int64" (a list
// attribute). Optionals are looked through as Value() does
// (optional.none(): "<nil>"); a type value is its name, a "string". `v` must
// still be valid (it may borrow from the scratch of its evaluation).
std::string_view GoValueTypeName(const Value& v);

class DraEnvironment {
 public:
  // Builds the registry and the environment of `options`. kInvalidArgument
  // for a release outside 1.34-1.37.
  static StatusOr<std::unique_ptr<DraEnvironment>> New(const DraEnvOptions& options);

  const DraEnvOptions& options() const { return options_; }
  const std::shared_ptr<const FunctionRegistry>& registry() const { return registry_; }

  // Compiles the selector `expression` as Kubernetes does: parse, type-check
  // (undeclared names, overloads, the attribute types of the release, the
  // literal validators), result type bool, any or dyn. Returns the cached
  // result of an earlier call with the same text (compile errors are cached
  // too). Never null. Thread-safe.
  std::shared_ptr<const CompiledSelector> Compile(std::string_view expression) const;
  // The same for an expression of any result type (`dractl cel run`).
  std::shared_ptr<const CompiledSelector> CompileExpression(std::string_view expression) const;

  // Evaluates `selector` on `device`, a device of a ResourceSlice of
  // `driver` (src/cel/README.md §1, §4). `driver` and `device` must stay
  // valid during the call. Results:
  //   true / false
  //   kInvalidArgument     the selector does not compile (selector.error())
  //   kFailedPrecondition  a CEL runtime error ("no such key: memory", with
  //                        kNoSuchKeyHint from 1.37), a result that is not a
  //                        bool ("CEL result of type string could not be
  //                        converted to bool"), or an attribute of the device
  //                        that does not convert ("attribute x: unsupported
  //                        attribute value")
  //   kResourceExhausted   the cost limit was exceeded ("operation cancelled:
  //                        actual cost limit exceeded")
  // The allocator words these as "CEL compile error" / "CEL runtime error"
  // (src/cel/README.md §1). Does not allocate for common selectors once
  // `scratch` is warm. Thread-safe with one scratch per thread.
  StatusOr<bool> Matches(const CompiledSelector& selector, const api::Device& device, std::string_view driver,
                         EvalScratch& scratch, DeviceCheck check = DeviceCheck::kCheck) const;

  // Matches over all devices of one slice of `driver` at once, where
  // `selector` has a columnar form (cel/dra/columnar.h): out[i] (REQUIRES
  // out.size() == devices.size()) becomes kColumnTrue or kColumnFalse where
  // Matches(selector, devices[i], ...) would return that bool, else
  // kColumnUnknown (call Matches for that device: an error, a shape the
  // columns do not decide, or a device that fails the check of `check`).
  // Returns false, leaving `out` alone, when the selector has no columnar
  // form or does not compile. Does not update scratch.cost(). Thread-safe
  // with one scratch per thread.
  bool MatchColumn(const CompiledSelector& selector, std::span<const api::Device> devices, std::string_view driver,
                   std::span<uint8_t> out, EvalScratch& scratch, DeviceCheck check = DeviceCheck::kCheck) const;

  // The same over the columns of one slice (cel/dra/columnar.h), which keep
  // the values a selector reads and the result of `check` per device from
  // one call to the next: out.size() == columns.devices().size().
  bool MatchColumn(const CompiledSelector& selector, const SliceColumns& columns, std::span<uint8_t> out,
                   EvalScratch& scratch, DeviceCheck check = DeviceCheck::kCheck) const;

  // The check Matches makes before evaluating (kFailedPrecondition, e.g.
  // "attribute names: unsupported attribute value"). It depends only on the
  // device and the environment's options, not on the selector or the driver.
  Status CheckDevice(const api::Device& device, EvalScratch& scratch) const;

  // The value of `selector` itself, without the conversion to bool (for
  // `dractl cel run`): with `device` null, the `device` variable is unbound
  // (an error if the expression reads it). The result may borrow from the
  // selector, the device and `scratch`: it is valid until the next use of
  // `scratch`. Errors as Matches, but a CEL error value comes back as the
  // Value (is_error()), unmodified.
  StatusOr<Value> Evaluate(const CompiledSelector& selector, const api::Device* device, std::string_view driver,
                           EvalScratch& scratch, DeviceCheck check = DeviceCheck::kCheck) const;

 private:
  explicit DraEnvironment(const DraEnvOptions& options) : options_(options) {}
  std::shared_ptr<const CompiledSelector> CompileCached(std::string_view expression, bool selector) const;
  std::shared_ptr<const CompiledSelector> CompileUncached(std::string_view expression, bool selector) const;
  void SetCostLimit(EvalState& state) const;
  // The Matches error for a result that is not a bool.
  Status NotABool(const Value& v) const;

  DraEnvOptions options_;
  std::shared_ptr<const FunctionRegistry> registry_;
  Environment env_;
  ParseOptions parse_options_;
  // The type checker's view of the same environment (declarations, the
  // `device` type, Kubernetes' literal validators).
  KubernetesEnvOptions checker_options_;
  CheckerEnv checker_env_;

  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  mutable std::shared_mutex cache_mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const CompiledSelector>, Hash, std::equal_to<>> cache_,
      expression_cache_;
};

// Splits a qualified attribute or capacity name into domain and ID: the part
// before the first '/' is the domain; a bare name belongs to `driver`
// (upstream parseQualifiedName).
std::pair<std::string_view, std::string_view> SplitQualifiedName(std::string_view name, std::string_view driver);

}  // namespace dra::cel
