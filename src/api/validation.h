// Validation of API objects as the Kubernetes API server validates them on
// create (pkg/apis/resource/validation, the DRA parts of
// pkg/apis/core/validation, and scheduling.k8s.io's PodGroup and Workload:
// pkg/apis/scheduling/validation with the declarative rules of
// scheduling/v1beta1, in scheduling_validation.cc), as src/api/README.md
// summarises.
//
// Each function returns every problem it finds as FieldErrors whose paths,
// types and texts follow the API server's field.Error
// (`spec.devices[0].attributes[gpu.nvidia.com/model].string: Too long: may not
// be more than 64 bytes`). An empty list means valid.
//
// Severity::kError entries are what the API server would reject. Two kinds of
// entry go beyond it:
//   * A gated field that is set while its gate is off is a WARNING of type
//     kForbidden naming the gate. The API server accepts the object and
//     silently drops such a field on create; reporting it tells the user why it
//     would have no effect. The field's contents are then not validated
//     further (the server would not see them either).
//   * Severity::kWarning entries flag what the server accepts but the
//     documentation rejects (upper-case driver names, an empty toleration key
//     with operator Equal, toleration effect None, more than 16 tolerations, a
//     per-device node selector with more than one term, both matchAttribute
//     and distinctAttribute in one constraint, ...).
//
// What is validated is the object as given: nothing is defaulted first. The
// API server defaults before it validates, so objects written by hand should
// go through api::SetDefaults (api/defaults.h) before Validate; otherwise an
// empty allocationMode or toleration operator is reported, as the server
// would report it if defaulting were skipped.
//
// Release differences (src/api/README.md §9) follow gates.version(): with 1.34
// gates a device may have at most 4 taints, the 64-device limit does not
// apply, a slice may carry devices and sharedCounters together, and taint
// effect None is not known. Gates without a version (AllOff, FromList) use the
// newest rules.
//
// CEL expressions (device selectors, derived attributes) are compiled as the
// API server compiles new expressions -- parse, type check, result type,
// estimated cost -- by a CelExpressionChecker passed in; src/cel implements
// it (cel/dra/api_checker.h), which this layer cannot include. Without one only
// their length and emptiness are checked.
//
// Not validated here: update-only rules (immutability, "stored" expressions),
// admission (the admin-access namespace label), and anything that needs other
// objects (see api/cross_validation.h).
//
// All functions are pure and thread-safe, except for the checker's cache: one
// CelExpressionChecker must not be used by two threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/features.h"
#include "api/field_path.h"
#include "api/object.h"

namespace dra::api {

// Limits of src/api/README.md §6 (1.36+ values unless the name says otherwise).
inline constexpr size_t kResourceSliceMaxDevices = 128;
inline constexpr size_t kResourceSliceMaxDevicesWithAdvancedFeatures = 64;
inline constexpr size_t kResourceSliceMaxCounterSets = 8;
inline constexpr size_t kResourceSliceMaxCountersPerCounterSet = 32;
inline constexpr size_t kResourceSliceMaxDeviceCounterConsumptionsPerDevice = 2;
inline constexpr size_t kResourceSliceMaxCountersPerDeviceCounterConsumption = 32;
inline constexpr size_t kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr size_t kResourceSliceMaxAttributeValuesPerDevice = 48;
inline constexpr size_t kDeviceTaintsMaxLength = 16;
inline constexpr size_t kDeviceTaintsMaxLength134 = 4;
inline constexpr size_t kDeviceTolerationsMaxLength = 16;  // documented, warning only
inline constexpr size_t kBindingConditionsMaxSize = 4;
inline constexpr size_t kBindingFailureConditionsMaxSize = 4;
inline constexpr size_t kDeviceRequestsMaxSize = 32;
inline constexpr size_t kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr size_t kDeviceSelectorsMaxSize = 32;
inline constexpr size_t kDeviceConstraintsMaxSize = 32;
inline constexpr size_t kDeviceConfigMaxSize = 32;
inline constexpr size_t kCELSelectorExpressionMaxLength = 10240;
inline constexpr size_t kOpaqueParametersMaxLength = 10240;
inline constexpr size_t kCapacityRequestPolicyDiscreteMaxOptions = 10;
inline constexpr size_t kAllocationResultsMaxSize = 32;
inline constexpr size_t kResourceClaimReservedForMaxSize = 256;
inline constexpr size_t kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr size_t kAllocatedDeviceStatusDataMaxLength = 10240;
inline constexpr size_t kNetworkDeviceDataMaxIPs = 16;
inline constexpr size_t kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr size_t kNetworkDeviceDataHardwareAddressMaxLength = 128;
inline constexpr size_t kDeviceTaintRuleStatusMaxConditions = 8;

// DeviceClaimDerivedAttributeCELMaxCost: the limit of one derived
// attribute's estimated cost and of their sum in one claim.
inline constexpr uint64_t kDeviceClaimDerivedAttributeCELMaxCost = 1'000'000;

// Where a CEL expression sits: a device selector must evaluate to bool (or
// the attribute type), a derived attribute to a scalar attribute value.
enum class CelExpressionKind : uint8_t { kSelector, kDerivedAttribute };

// What compiling one expression found: each problem becomes a FieldError at
// the expression's path (kInvalid ones carry the expression as bad value).
struct CelExpressionProblem {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string detail;
  Severity severity = Severity::kError;
};
struct CelExpressionCheck {
  std::vector<CelExpressionProblem> problems;
  // Whether it compiled (parsed, type checked, result type accepted); then
  // max_cost is its estimated cost, which counts towards a claim's total
  // for derived attributes even when it alone is over the limit.
  bool compiled = false;
  uint64_t max_cost = 0;
};

// Compiles expressions of at most kCELSelectorExpressionMaxLength bytes in
// the NewExpressions environment of the gates it was made for.
class CelExpressionChecker {
 public:
  virtual ~CelExpressionChecker() = default;
  // Valid until the next call.
  virtual const CelExpressionCheck& Check(std::string_view expression, CelExpressionKind kind) = 0;
};

// `cel` may be null (see the file comment); it must have been made for the
// same gates.
FieldErrors ValidateDeviceClass(const DeviceClass& device_class, const FeatureGates& gates, CelExpressionChecker* cel);
FieldErrors ValidateResourceSlice(const ResourceSlice& slice, const FeatureGates& gates);
// Spec and status (allocation result, reservedFor, devices status).
FieldErrors ValidateResourceClaim(const ResourceClaim& claim, const FeatureGates& gates, CelExpressionChecker* cel);
FieldErrors ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template, const FeatureGates& gates,
                                          CelExpressionChecker* cel);
// The same without CEL compilation.
FieldErrors ValidateDeviceClass(const DeviceClass& device_class, const FeatureGates& gates);
FieldErrors ValidateResourceClaim(const ResourceClaim& claim, const FeatureGates& gates);
FieldErrors ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template, const FeatureGates& gates);
FieldErrors ValidateDeviceTaintRule(const DeviceTaintRule& rule, const FeatureGates& gates);
// Only the DRA-relevant parts: metadata, spec.taints.
FieldErrors ValidateNode(const Node& node, const FeatureGates& gates);
// Only the DRA-relevant parts: metadata, spec.resourceClaims,
// [init]containers[].resources.claims, no claims in pod-level spec.resources,
// spec.tolerations, node affinity's required node selector,
// spec.schedulingGroup (gate GenericWorkload),
// status.extendedResourceClaimStatus.
FieldErrors ValidatePod(const Pod& pod, const FeatureGates& gates);
// scheduling.k8s.io (gate GenericWorkload; with it off the kind itself is an
// error, at `kind`, as for a DeviceTaintRule without its gate). The gated
// fields (schedulingConstraints, resourceClaims, preemptionPolicy,
// parentCompositePodGroupName, compositePodGroupTemplates) are warnings while
// their gates are off, as everywhere else. PodGroup status is checked as a
// status update would be (conditions, resourceClaimStatuses).
FieldErrors ValidatePodGroup(const PodGroup& group, const FeatureGates& gates);
FieldErrors ValidateSchedulingWorkload(const SchedulingWorkload& workload, const FeatureGates& gates);

// Dispatches on the kind.
FieldErrors Validate(const Object& object, const FeatureGates& gates, CelExpressionChecker* cel = nullptr);

// core/v1 NodeSelector rules (at least one term; operators and their values;
// matchFields only on metadata.name), with `path` naming the selector.
FieldErrors ValidateNodeSelector(const NodeSelector& selector, const FieldPath& path);

// True if some entry has Severity::kError.
bool HasErrors(const FieldErrors& errors);

// Building blocks shared with scheduling_validation.cc.
//   ValidateObjectMeta: name (or generateName) as a DNS subdomain, namespace
//     as a DNS label (or forbidden when not `namespaced`), labels, annotations.
//   ValidateConditions: metav1 ValidateConditions.
//   GateOffWarning: the warning for a gated field set while `gate` is off
//     (see the file comment).
//   ValidatePodSchedulingGroup: pod.spec.schedulingGroup as kept in
//     PodSpec::extra (compact JSON), upstream validateSchedulingGroup, at `path`.
FieldErrors ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, const FieldPath& path);
FieldErrors ValidateConditions(const std::vector<Condition>& conditions, const FieldPath& path);
FieldError GateOffWarning(Gate gate, const FieldPath& path);
FieldErrors ValidatePodSchedulingGroup(const RawJson& scheduling_group, const FeatureGates& gates,
                                       const FieldPath& path);

}  // namespace dra::api
