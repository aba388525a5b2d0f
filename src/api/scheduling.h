// scheduling.k8s.io objects of the Workload API (KEP-4671, Kubernetes 1.37:
// v1alpha3 and v1beta1 serve the same PodGroup fields; gate GenericWorkload):
// a PodGroup names pods (pod.spec.schedulingGroup.podGroupName) that the
// scheduler places together, all or nothing under a gang policy; a
// Workload holds the templates a controller makes PodGroups from.
//
// Conventions of api/meta.h. Every PodGroupSpec field of 1.37 is modelled
// (validation needs workloadRef, disruptionMode, preemptionPolicy and
// parentCompositePodGroupName too; they come after `extra` so that designated
// initialisers of the first fields keep working). Workload's
// compositePodGroupTemplates (gate CompositePodGroup, alpha) is kept verbatim
// in WorkloadSpec::extra so that nothing read is lost when printed.
//
// Both served versions, scheduling.k8s.io/v1alpha3 and v1beta1, have this
// schema; dractl writes v1beta1 (api::ApiVersionFor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"

namespace dra::api {

// spec.schedulingPolicy: exactly one of basic ({}) and gang.
struct GangSchedulingPolicy {
  int32_t min_count = 0;  // >= 1

  friend bool operator==(const GangSchedulingPolicy&, const GangSchedulingPolicy&) = default;
};
struct PodGroupSchedulingPolicy {
  bool basic = false;  // `basic: {}` present
  std::optional<GangSchedulingPolicy> gang{};

  friend bool operator==(const PodGroupSchedulingPolicy&, const PodGroupSchedulingPolicy&) = default;
};

// spec.schedulingConstraints.topology[] (gate TopologyAwareWorkloadScheduling):
// the group's pods go to nodes with one value of the node label `key`.
struct TopologyConstraint {
  std::string key{};

  friend bool operator==(const TopologyConstraint&, const TopologyConstraint&) = default;
};
struct PodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology{};

  friend bool operator==(const PodGroupSchedulingConstraints&, const PodGroupSchedulingConstraints&) = default;
};

// spec.resourceClaims[] (gate DRAWorkloadResourceClaims): one ResourceClaim
// shared by the whole group. A member pod uses it when one of its own
// spec.resourceClaims entries has the same name, resourceClaimName and
// resourceClaimTemplateName.
struct PodGroupResourceClaim {
  std::string name{};
  std::optional<std::string> resource_claim_name{};
  std::optional<std::string> resource_claim_template_name{};

  friend bool operator==(const PodGroupResourceClaim&, const PodGroupResourceClaim&) = default;
};

// spec.disruptionMode: exactly one of single ({}) and all ({}). A PodGroup
// defaults it to single (api/defaults.h); a template leaves it unset.
struct DisruptionMode {
  bool single = false;  // `single: {}` present
  bool all = false;     // `all: {}` present

  friend bool operator==(const DisruptionMode&, const DisruptionMode&) = default;
};

// PodGroup spec.workloadRef: the Workload and template it was made from.
struct WorkloadReference {
  std::string workload_name{};  // DNS subdomain, required
  std::string template_name{};  // DNS label, required

  friend bool operator==(const WorkloadReference&, const WorkloadReference&) = default;
};

// Values of spec.preemptionPolicy (gate PodGroupPreemptionPolicy).
inline constexpr char kPreemptLowerPriority[] = "PreemptLowerPriority";
inline constexpr char kPreemptNever[] = "Never";

// The PodGroupSpec fields, shared by PodGroup and Workload's
// podGroupTemplates[] (which add `name`, and have neither workloadRef nor
// parentCompositePodGroupName).
struct PodGroupSpec {
  PodGroupSchedulingPolicy scheduling_policy{};
  std::optional<PodGroupSchedulingConstraints> scheduling_constraints{};
  std::vector<PodGroupResourceClaim> resource_claims{};
  std::string priority_class_name{};
  std::optional<int32_t> priority{};
  // Fields the decoder does not model: none in 1.37 (left empty by the
  // decoder); the encoder writes whatever a caller puts here after the
  // modelled fields.
  RawFields extra{};
  std::optional<WorkloadReference> workload_ref{};               // PodGroup only
  std::optional<std::string> parent_composite_pod_group_name{};  // PodGroup only; gate CompositePodGroup
  std::optional<DisruptionMode> disruption_mode{};
  std::optional<std::string> preemption_policy{};  // kPreemptLowerPriority or kPreemptNever

  friend bool operator==(const PodGroupSpec&, const PodGroupSpec&) = default;
};

struct PodGroupResourceClaimStatus {
  std::string name{};
  std::optional<std::string> resource_claim_name{};

  friend bool operator==(const PodGroupResourceClaimStatus&, const PodGroupResourceClaimStatus&) = default;
};

// Condition types and reasons the scheduler writes.
inline constexpr char kPodGroupInitiallyScheduled[] = "PodGroupInitiallyScheduled";
inline constexpr char kPodGroupReasonScheduled[] = "Scheduled";
inline constexpr char kPodGroupReasonUnschedulable[] = "Unschedulable";
inline constexpr char kPodGroupReasonSchedulerError[] = "SchedulerError";

struct PodGroupStatus {
  std::vector<Condition> conditions{};
  std::vector<PodGroupResourceClaimStatus> resource_claim_statuses{};

  friend bool operator==(const PodGroupStatus&, const PodGroupStatus&) = default;
};

struct PodGroup {
  ObjectMeta metadata{};
  PodGroupSpec spec{};
  PodGroupStatus status{};

  friend bool operator==(const PodGroup&, const PodGroup&) = default;
};

// Workload spec.podGroupTemplates[].
struct PodGroupTemplate {
  std::string name{};
  PodGroupSpec spec{};  // its fields sit beside `name` in the object

  friend bool operator==(const PodGroupTemplate&, const PodGroupTemplate&) = default;
};

// Workload spec.controllerRef.
struct TypedLocalObjectReference {
  std::string api_group{};  // empty: the core group
  std::string kind{};       // required
  std::string name{};       // required

  friend bool operator==(const TypedLocalObjectReference&, const TypedLocalObjectReference&) = default;
};

// At most this many podGroupTemplates (WorkloadMaxPodGroupTemplates), and
// claims per PodGroup or template (MaxPodGroupResourceClaims).
inline constexpr size_t kWorkloadMaxPodGroupTemplates = 8;
inline constexpr size_t kMaxPodGroupResourceClaims = 4;
// schedulingConstraints.topology holds at most one constraint in 1.37.
inline constexpr size_t kPodGroupMaxTopologyConstraints = 1;

struct WorkloadSpec {
  std::vector<PodGroupTemplate> pod_group_templates{};
  RawFields extra{};  // compositePodGroupTemplates
  std::optional<TypedLocalObjectReference> controller_ref{};

  friend bool operator==(const WorkloadSpec&, const WorkloadSpec&) = default;
};

// kind Workload of scheduling.k8s.io (not to be confused with api::Workload,
// the apps/batch controllers of api/workload.h).
struct SchedulingWorkload {
  ObjectMeta metadata{};
  WorkloadSpec spec{};

  friend bool operator==(const SchedulingWorkload&, const SchedulingWorkload&) = default;
};

}  // namespace dra::api
