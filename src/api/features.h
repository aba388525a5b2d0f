// The Kubernetes feature gates that shape DRA (src/api/README.md §8), with
// their maturity and default in each release we know (1.34 to 1.37), as
// k8s.io/kubernetes/pkg/features/kube_features.go declares them.
//
// A FeatureGates value answers `enabled(Gate)`. It is made in one of three ways:
//   * Defaults() / Defaults("1.36"): what a cluster of that release runs with.
//     Gates that release does not have are off and cannot be set; gates that
//     are GA and locked cannot be turned off.
//   * AllOff(): every gate off, nothing locked (tests that turn gates on one by one).
//   * FromList({"DRAPrioritizedList", ...}): the `features:` list of a
//     conformance vector: the listed gates on, the others off, nothing locked.
//     DynamicResourceAllocation, the master gate that the vectors never list,
//     stays on (as in the upstream allocator tests, which have no such switch).
// Set() and ParseFlag() then change single gates, as --feature-gates does.
//
// Dependencies (kube_features.go's defaultKubernetesFeatureGateDependencies)
// are recorded for the Workload API gates only: DRAWorkloadResourceClaims
// needs DynamicResourceAllocation and GenericWorkload; TopologyAware-
// WorkloadScheduling, PodGroupPreemptionPolicy and WorkloadWithJob need
// GenericWorkload; CompositePodGroup needs GenericWorkload and
// TopologyAwareWorkloadScheduling. ParseFlag rejects a result that breaks
// them, as the API server's --feature-gates does; Set() and FromList() do not
// check them (tests turn gates on one at a time).
//
// FeatureGates is a small value type; copies are independent. Thread-safe for
// concurrent reads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dra::api {

// One enumerator per gate; the name without `k` is the gate's name.
enum class Gate : uint8_t {
  kDynamicResourceAllocation,
  kDRAAdminAccess,
  kDRAPrioritizedList,
  kDRAResourceClaimDeviceStatus,
  kDRASchedulerFilterTimeout,
  kDRAPartitionableDevices,
  kDRADeviceTaints,
  kDRADeviceTaintRules,
  kDRAConsumableCapacity,
  kDRADeviceBindingConditions,
  kDRAExtendedResource,
  kDRAListTypeAttributes,
  kDRANodeAllocatableResources,
  kDRAWorkloadResourceClaims,
  kDRADerivedAttributes,
  kDRADeviceCompatibilityGroups,
  kDRAFractionalCapacityRange,
  kDRAOptionalNodeOperations,
  kDRAPartitionableDevicesType,
  kGenericWorkload,
  kTopologyAwareWorkloadScheduling,
  kCompositePodGroup,
  kPodGroupPreemptionPolicy,
  kWorkloadWithJob,
};
inline constexpr size_t kGateCount = 24;

enum class Maturity : uint8_t {
  kAbsent,  // the release does not have the gate
  kAlpha,
  kBeta,
  kGA,        // GA, may still be turned off
  kGALocked,  // GA and locked to on
};

class FeatureGates {
 public:
  // The defaults of the newest release we know, 1.37.
  static FeatureGates Defaults();
  // The defaults of release `version`: "1.34" to "1.37", optionally with a
  // leading 'v' and a patch number ("v1.36.2"). kInvalidArgument otherwise.
  static StatusOr<FeatureGates> Defaults(std::string_view version);
  // Every gate off, nothing locked, every gate settable.
  static FeatureGates AllOff();
  // The listed gates on, the others off except DynamicResourceAllocation (see
  // the file comment). kInvalidArgument naming the first unknown gate.
  static StatusOr<FeatureGates> FromList(std::span<const std::string> names);
  static StatusOr<FeatureGates> FromList(std::initializer_list<std::string_view> names);

  // The gate's name, e.g. "DRAAdminAccess".
  static std::string_view Name(Gate gate);
  // The gate with that exact (case-sensitive) name, or nullopt.
  static std::optional<Gate> GateByName(std::string_view name);

  bool enabled(Gate gate) const { return enabled_[static_cast<size_t>(gate)]; }

  // The release these gates describe ("1.36"), or "" for AllOff()/FromList().
  std::string version() const;
  // Its minor number (36), or 0 for AllOff()/FromList().
  int minor() const { return minor_; }
  // Maturity of `gate` in version(); kAlpha for every gate when there is no version.
  Maturity maturity(Gate gate) const;

  // Turns one gate on or off. kInvalidArgument if the name is unknown, if the
  // release lacks the gate, or if it asks to turn off a gate locked to on
  // ("cannot set feature gate X to false, feature is locked to true").
  // Unchanged on error.
  Status Set(std::string_view name, bool value);
  Status Set(Gate gate, bool value);

  // Applies a --feature-gates value: "A=true,B=false" (spaces around names and
  // values are ignored; an empty string changes nothing; values as Go's
  // strconv.ParseBool reads them: 1, t, T, TRUE, true, True and 0, f, F,
  // FALSE, false, False). All or nothing: on kInvalidArgument no gate changed.
  Status ParseFlag(std::string_view flag);

  // The gates `gate` depends on (see the file comment), in name order; empty
  // for the gates without recorded dependencies.
  static std::span<const Gate> Dependencies(Gate gate);
  // kInvalidArgument if an enabled gate depends on a disabled one, worded as
  // upstream's featuregate: "GenericWorkload ... depends on features that
  // are disabled: [GenericWorkload]" (one sentence per such gate, in enum
  // order, joined by ", ").
  Status CheckDependencies() const;

  // "Gate=true,Gate=false,..." for every gate the release has, in enum order.
  std::string ToString() const;

  friend bool operator==(const FeatureGates&, const FeatureGates&) = default;

 private:
  FeatureGates() = default;

  int minor_ = 0;  // 34..37; 0 = no release
  std::array<bool, kGateCount> enabled_{};
};

}  // namespace dra::api
