// `dractl migrate --check`: the workloads scheduled on the cluster before the
// migration (the device-plugin model) and after it (DRA), and every pod that
// would no longer fit or would land on a different kind of device.
//
//   before  the cluster's Nodes with their labels and allocatable
//           device-plugin resources (kube-scheduler's NodeResourcesFit counts
//           `nvidia.com/gpu` there); no DeviceClass maps an extended
//           resource (extendedResourceName is cleared), so only the device
//           plugin serves them. The input's workloads, unchanged.
//   after   the same Nodes without device-plugin resources (the plugin is
//           gone), the cluster's ResourceSlices and DeviceClasses, and the
//           migrated output (templates, classes, rewritten workloads).
//
// Both runs are sched::Schedule with the `kube` policy; workloads become the
// pods their controllers would create (sched/workloads.h), whose names are
// the same in both runs.
//
// Kind of device: before, the node's nvidia.com/gpu.product label (GFD
// form, "NVIDIA-H100-80GB-HBM3"; for a MIG resource "<product> MIG
// <profile>"; GKE's accelerator label through labels.h's table; for TPUs
// cloud.google.com/gke-tpu-accelerator); after, each allocated device's
// productName with '-' for ' ' (MIG devices: "<product> MIG <profile>"), or a
// TPU's accelerator attribute.
#pragma once

#include <string>
#include <vector>

#include "api/features.h"
#include "api/object.h"
#include "api/workload.h"
#include "base/status.h"
#include "migrate/device_plugin.h"

namespace dra::migrate {

struct CheckInputs {
  // --cluster: Nodes (labels, allocatable device-plugin resources),
  // ResourceSlices, DeviceClasses and whatever else runs there.
  std::vector<api::Object> cluster{};
  // The input (-f) as loaded, and the migrated output as loaded.
  std::vector<api::Object> before_objects{};
  std::vector<api::Workload> before_workloads{};
  std::vector<api::Object> after_objects{};
  std::vector<api::Workload> after_workloads{};
  SharingConfig sharing{};  // which resource names the device plugin time-slices
};

struct PodCheck {
  enum class Verdict {
    kSame,           // placed before and after, on the same kind of device
    kDifferentKind,  // placed both times, on another kind of device
    kNoLongerFits,   // placed before, pending after
    kNowFits,        // pending before, placed after
    kPendingBoth,
    kKindUnknown,  // placed both times, but the node says nothing of its device kind before
  };
  std::string pod{};  // "namespace/name"
  Verdict verdict = Verdict::kSame;
  std::string before_node{};  // empty: pending
  std::string after_node{};
  std::string before_kind{};  // kinds joined by ", "; empty: none or unknown
  std::string after_kind{};
  std::string after_message{};  // pending after: kube-scheduler's reason
};

struct CheckReport {
  std::vector<PodCheck> pods{};  // pods with device-plugin resources, and other pods that no longer fit; queue order
  size_t Count(PodCheck::Verdict verdict) const;
};

// Runs both schedules. Errors only when the scheduler cannot run at all.
// REQUIRES: every object has passed api::Validate (the caller defaults and
// validates them; defaults are applied again on copies here).
StatusOr<CheckReport> Check(const CheckInputs& inputs, const api::FeatureGates& gates);

// The report as a table (POD, BEFORE, AFTER, CHANGE), the reasons of the
// pods that no longer fit, and a summary line.
std::string FormatCheck(const CheckReport& report);

}  // namespace dra::migrate
