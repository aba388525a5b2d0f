// Pod requests and node allocatable as kube-scheduler's NodeResourcesFit
// plugin counts them (component-helpers resource.PodRequests, framework
// NodeInfo): cpu in millicores, every other resource in whole units (Quantity
// Value(), rounded up), and the pod count.
//
// Effective pod requests (upstream PodRequests):
//   1. sum over containers of their requests;
//   2. init containers in order: a sidecar (restartPolicy Always) adds its
//      requests to the running sum and to the sidecar sum; a regular init
//      container needs its own requests plus the sidecars started before it;
//      the largest such need is kept;
//   3. per resource, max(sum of step 1 and the sidecars, largest init need);
//   4. plus pod.spec.overhead.
// A container that sets a limit but no request for a resource requests the
// limit (API-server defaulting). With `non_zero`, a container without a cpu
// or memory request counts as 100m cpu / 200Mi memory (upstream
// NonMissingContainerRequests, used for scoring only).
// Not modelled: pod-level resources (spec.resources, gate PodLevelResources)
// and in-place resize (status.containerStatuses[].allocatedResources).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "api/core.h"

namespace dra::sched {

// Upstream schedutil.DefaultMilliCPURequest / DefaultMemoryRequest.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

struct Resources {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t pods = 0;
  // Every other resource (ephemeral-storage, hugepages-*, extended) by name.
  std::map<std::string, int64_t, std::less<>> scalar{};

  // The amount of `name` ("cpu" in millicores, "memory", "pods", others).
  int64_t Get(std::string_view name) const;
  void Add(const Resources& other);
  // Per resource, the larger of this and `other`.
  void Max(const Resources& other);

  friend bool operator==(const Resources&, const Resources&) = default;
};

// A resource list (requests, limits, allocatable) in scheduler units.
Resources ToResources(const api::FlatMap<api::Quantity>& list);

// The pod's effective requests (see the top of this file); `pods` is 1.
Resources PodRequests(const api::Pod& pod, bool non_zero = false);

// node.status.allocatable.
Resources NodeAllocatable(const api::Node& node);

}  // namespace dra::sched
