// The device-taint eviction controller of kube-controller-manager 1.37
// (k8s.io/kubernetes v1.37.2, pkg/controller/devicetainteviction):
// a running pod is deleted when a device allocated to one of its claims has a
// NoExecute taint its claim does not tolerate, from the taint's timeAdded
// plus the toleration's tolerationSeconds.
//   - Taints: those of the devices in the ResourceSlices (of each pool's
//     highest generation) and those of the DeviceTaintRules whose selector
//     matches the allocated device (the slice need not exist any more).
//   - A claim's time, per allocated device and NoExecute taint on it: only
//     the tolerations copied into the allocation result whose effect is
//     explicitly NoExecute and that match the taint count; one with no
//     tolerationSeconds means never; else timeAdded plus the smallest of
//     their seconds (negative counts as 0); none: timeAdded. The claim's
//     time is the earliest over its taints. (An empty-effect toleration lets
//     the allocator use the device but does not stop the eviction.)
//   - A pod's time: the earliest over its claims that are allocated and list
//     it in reservedFor. Only bound pods are evicted.
// As a TimelineActor it deletes each pod at that time (at once when it is
// past); the pod keeps its devices for its grace period, then its controller
// makes a new one (pods without a controller owner are gone).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "sched/snapshot.h"
#include "sched/timeline.h"

namespace dra::sched {

struct EvictionTime {
  int64_t time = 0;                   // seconds since the epoch
  std::vector<std::string> taints{};  // "key=value:NoExecute" of the taints that set it, sorted
};

// When the controller evicts `pod` from `cluster`, or nullopt (not bound, or
// no claim of it has an untolerated NoExecute taint).
std::optional<EvictionTime> PodEvictionTime(const Snapshot& cluster, const api::Pod& pod);

class TaintEvictionController final : public TimelineActor {
 public:
  // `grace`: seconds an evicted pod keeps its devices (the pod's
  // terminationGracePeriodSeconds in a cluster; 30 by default).
  explicit TaintEvictionController(int64_t grace = 30) : grace_(grace) {}
  Status AfterRun(TimelineControl& control) override;

 private:
  int64_t grace_;
};

}  // namespace dra::sched
