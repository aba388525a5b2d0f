// Server-side defaulting of DRA objects (src/api/README.md §3; upstream
// k8s.io/kubernetes/pkg/apis/resource/v1/defaults.go), for objects written
// by hand that lack what the API server would have filled in. The allocator
// treats an empty allocationMode as an error, so apply these before allocating.
//
// What is defaulted:
//   - requests[].exactly and requests[].firstAvailable[]: allocationMode "" ->
//     ExactCount; then, for ExactCount, count 0 -> 1.
//   - every DeviceToleration (requests, subrequests, allocation results):
//     operator "" -> Equal.
//   - every DeviceTaint (slice devices, DeviceTaintRule) with no timeAdded:
//     timeAdded -> `now`, when `now` is not empty.
//   - PodGroup (scheduling.k8s.io, upstream pkg/apis/scheduling/v1beta1
//     defaults.go and zz_generated.defaults.go, the same in v1alpha3):
//     spec.disruptionMode unset -> {single: {}}; with the
//     PodGroupPreemptionPolicy gate on, spec.preemptionPolicy unset ->
//     PreemptLowerPriority. A Workload's podGroupTemplates are not defaulted.
// Unknown enum values are left as written (validation reports them). Core
// objects (Node, Pod) are not changed.
//
// `now` is the RFC 3339 time to stamp (second precision, e.g.
// "2026-07-24T10:00:00Z"); it is a parameter so that results are deterministic.
// Pass "" to leave timeAdded unset.
#pragma once

#include <string_view>

#include "api/features.h"
#include "api/object.h"

namespace dra::api {

void SetDefaults(ExactDeviceRequest& request);
void SetDefaults(DeviceSubRequest& request);
void SetDefaults(DeviceToleration& toleration);
void SetDefaults(ResourceClaimSpec& spec);
void SetDefaults(ResourceClaim& claim);
void SetDefaults(ResourceClaimTemplate& claim_template);
void SetDefaults(DeviceTaint& taint, std::string_view now);
void SetDefaults(ResourceSlice& slice, std::string_view now);
void SetDefaults(DeviceTaintRule& rule, std::string_view now);
void SetDefaults(PodGroup& group, const FeatureGates& gates);

// Dispatches on the kind; DeviceClass, Node, Pod and Workload are unchanged.
// The gated PodGroup default follows `gates`; the overload without them uses
// FeatureGates::Defaults() (1.37, where PodGroupPreemptionPolicy is off).
void SetDefaults(Object& object, std::string_view now, const FeatureGates& gates);
void SetDefaults(Object& object, std::string_view now);

}  // namespace dra::api
