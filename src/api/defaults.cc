#include "api/defaults.h"

namespace dra::api {
namespace {

// Mirrors upstream SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest:
// the count is only defaulted for ExactCount, so `All` with count 0 stays valid
// and an unknown mode keeps its count for validation to judge.
template <typename Request>
void DefaultModeAndCount(Request& request) {
  if (request.allocation_mode.empty()) request.allocation_mode = AllocationMode::kExactCount;
  if (request.allocation_mode == AllocationMode::kExactCount && request.count == 0) {
    request.count = 1;
  }
  for (DeviceToleration& toleration : request.tolerations) SetDefaults(toleration);
}

}  // namespace

void SetDefaults(ExactDeviceRequest& request) { DefaultModeAndCount(request); }

void SetDefaults(DeviceSubRequest& request) { DefaultModeAndCount(request); }

void SetDefaults(DeviceToleration& toleration) {
  if (toleration.operator_.empty()) toleration.operator_ = DeviceTolerationOperator::kEqual;
}

void SetDefaults(ResourceClaimSpec& spec) {
  for (DeviceRequest& request : spec.devices.requests) {
    if (request.exactly) SetDefaults(*request.exactly);
    for (DeviceSubRequest& sub : request.first_available) SetDefaults(sub);
  }
}

void SetDefaults(ResourceClaim& claim) {
  SetDefaults(claim.spec);
  if (claim.status.allocation) {
    for (DeviceRequestAllocationResult& result : claim.status.allocation->devices.results) {
      for (DeviceToleration& toleration : result.tolerations) SetDefaults(toleration);
    }
  }
}

void SetDefaults(ResourceClaimTemplate& claim_template) { SetDefaults(claim_template.spec.spec); }

void SetDefaults(DeviceTaint& taint, std::string_view now) {
  if (taint.time_added.empty() && !now.empty()) taint.time_added = std::string(now);
}

void SetDefaults(ResourceSlice& slice, std::string_view now) {
  if (now.empty()) return;
  for (Device& device : slice.spec.devices) {
    if (device.rare->taints.empty()) continue;  // don't allocate the box for nothing
    for (DeviceTaint& taint : device.rare.mut().taints) SetDefaults(taint, now);
  }
}

void SetDefaults(DeviceTaintRule& rule, std::string_view now) { SetDefaults(rule.spec.taint, now); }

void SetDefaults(PodGroup& group, const FeatureGates& gates) {
  // SetDefaults_PodGroup runs first, then the +default of disruptionMode.
  if (gates.enabled(Gate::kPodGroupPreemptionPolicy) && !group.spec.preemption_policy) {
    group.spec.preemption_policy = kPreemptLowerPriority;
  }
  if (!group.spec.disruption_mode) group.spec.disruption_mode = DisruptionMode{.single = true, .all = false};
}

void SetDefaults(Object& object, std::string_view now, const FeatureGates& gates) {
  std::visit(
      [now, &gates](auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, ResourceClaim> || std::is_same_v<T, ResourceClaimTemplate>) {
          SetDefaults(o);
        } else if constexpr (std::is_same_v<T, ResourceSlice> || std::is_same_v<T, DeviceTaintRule>) {
          SetDefaults(o, now);
        } else if constexpr (std::is_same_v<T, PodGroup>) {
          SetDefaults(o, gates);
        }
      },
      object);
}

void SetDefaults(Object& object, std::string_view now) {
  if (auto* group = std::get_if<PodGroup>(&object)) {
    SetDefaults(*group, FeatureGates::Defaults());
    return;
  }
  SetDefaults(object, now, FeatureGates::AllOff());
}

}  // namespace dra::api
