// What the checker knows about functions and variables: the signatures of
// the standard library, of the cel-go extensions and of the Kubernetes
// libraries, and the environments built from them.
//
// The signatures mirror cel-go v0.26 (common/stdlib, ext/strings.go,
// ext/lists.go, ext/sets.go, ext/comprehensions.go, the optional library in
// cel/library.go) and k8s.io/apiserver pkg/cel/library (quantity, semver,
// regex, lists, urls, ip, cidr, format) with their overload ids, which the
// cost estimator (cel/cost/cost.h) keys on. The implementations live elsewhere (the
// FunctionRegistry of cel/libraries/library.h and the Kubernetes libraries); this file only
// tells the checker what type-checks.
//
// Environments (src/cel/README.md §1-§4):
//   StandardCheckerEnv()      cel-spec conformance: standard library, strings
//                             v3, lists, sets, optional, two-variable
//                             comprehensions; heterogeneous literals allowed.
//   KubernetesCheckerEnv(o)   a DRA selector environment of Kubernetes 1.<minor>,
//                             NewExpressions or StoredExpressions, with the
//                             `device` variable, the Kubernetes libraries and
//                             validators (homogeneous literals, constant
//                             regexes, format()).
#pragma once

#include <optional>
#include <string>

#include "base/release.h"
#include "cel/checker/checker.h"
#include "cel/checker/types.h"
#include "cel/parser/parser.h"

namespace dra::cel {

// Which function libraries DeclareLibraries adds.
struct CheckerLibraries {
  // ext.Strings version (0-3); negative: none.
  int strings_version = 3;
  bool lists = true;                   // ext.Lists v3
  bool sets = true;                    // ext.Sets
  bool optional = true;                // optional types library
  bool two_var_comprehensions = true;  // cel.@mapInsert for transformMap
  // `1 < 1.5`: ordering between int, uint and double.
  bool cross_type_numeric_comparisons = true;
  bool timestamps = true;  // timestamp and duration functions
  // quantity, semver, regex find/findAll, lists (isSorted, sum, min, max,
  // indexOf, lastIndexOf), url, ip, cidr, format.
  bool kubernetes = false;
  // Kubernetes lists v1: `<dyn>.includes(<dyn>)`.
  bool kubernetes_lists_includes = false;
  // DRA's `<dyn>.includes(<dyn>)` (DRAListTypeAttributes).
  bool dra_includes = false;
};

// Adds the libraries' signatures to `env`.
void DeclareLibraries(CheckerEnv& env, const CheckerLibraries& libraries);

// The cel-spec conformance profile (no variables).
CheckerEnv StandardCheckerEnv();

// The two Kubernetes environments (src/cel/README.md §1).
enum class ExpressionEnv : uint8_t {
  kNewExpressions,     // API validation of new or changed expressions
  kStoredExpressions,  // stored expressions; what kube-scheduler uses
};

struct KubernetesEnvOptions {
  // The release of the binary: 1.<minor>, 34 to 37. NewExpressions contain
  // what release 1.<minor - 1> (the compatibility version) has.
  int minor = kDefaultMinor;
  ExpressionEnv env = ExpressionEnv::kStoredExpressions;
  // Feature gates (honoured by NewExpressions only).
  bool consumable_capacity = false;   // DRAConsumableCapacity
  bool list_type_attributes = false;  // DRAListTypeAttributes
  // Declare the DRA `device` variable.
  bool declare_device = true;
};

// The static type of DRA attribute values (src/cel/README.md §4): `any`, or
// `dyn` where list attributes are known to the environment.
Type DraAttributeType(const KubernetesEnvOptions& options);

// Whether `device.allowMultipleAllocations` is declared (src/cel/README.md §4).
bool DraDeclaresAllowMultipleAllocations(const KubernetesEnvOptions& options);

// The libraries of a Kubernetes environment (src/cel/README.md §3).
CheckerLibraries KubernetesLibraries(const KubernetesEnvOptions& options);

// The parser options that go with the environment: the sortBy macro comes with
// ext.Lists.
ParseOptions KubernetesParseOptions(const KubernetesEnvOptions& options);

// A Kubernetes DRA selector environment: libraries, validators and (unless
// options.declare_device is false) the `device` variable of object type
// kubernetes.DRADevice with fields driver (string), attributes
// (map(string, map(string, A))), capacity (map(string, map(string,
// kubernetes.Quantity))) and, where declared, allowMultipleAllocations (bool).
CheckerEnv KubernetesCheckerEnv(const KubernetesEnvOptions& options = {});

// Kubernetes' rule for the type of a whole selector: bool, any, or dyn where
// dyn is the attribute type. Returns the message of a violation ("must
// evaluate to bool or the unknown type, not int"), or std::nullopt.
std::optional<std::string> SelectorResultTypeError(const Type& result, const KubernetesEnvOptions& options);

// Kubernetes' rule for the type of a derived attribute's expression
// (validateOutputType with DerivedAttribute): bool, int, string, semver, any
// or dyn, or a list of one of those where lists are allowed (always in
// StoredExpressions, in NewExpressions with DRAListTypeAttributes). Returns
// the message of a violation ("must evaluate to a primitive scalar (string,
// integer, boolean, semver) or a list of these scalars, not double"), or
// std::nullopt.
std::optional<std::string> DerivedAttributeResultTypeError(const Type& result, const KubernetesEnvOptions& options);

}  // namespace dra::cel
