// The front door of sched/: places pending pods on nodes one at a time, as
// kube-scheduler would, with the DRA allocator (alloc/allocator.h) deciding
// devices. See README.md for what is modelled and what is not.
//
// Flow of Schedule(snapshot, options):
//   queue        pending pods (no spec.nodeName, not finished, not being
//                deleted) by spec.priority (higher first), creationTimestamp,
//                namespace/name
//   per pod:
//     controller   EnsurePodClaims: claims from templates (pod_claims.h)
//     PreEnqueue   scheduling gates; ResolvePodClaims (§2.1)
//     PreFilter    per claim: classes exist, prioritized lists allowed (§4.3);
//                  an Allocator over the current allocated state
//     Filter       per node, in name order: NodeUnschedulable, NodeName,
//                  TaintToleration, NodeAffinity, NodeResourcesFit
//                  (node_filters.h), then DynamicResources (§4.4)
//     Score        the policy (policy.h); ties broken by the seed
//     Reserve/Bind claims get status.allocation, the delete-protection
//                  finalizer and the pod in reservedFor (at most 256 entries);
//                  the pod gets spec.nodeName
//   A placed pod's requests and devices count for every later pod.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/resource.h"
#include "base/status.h"
#include "sched/policy.h"
#include "sched/snapshot.h"

namespace dra::sched {

// The finalizer the scheduler adds to claims it allocates.
inline constexpr char kDeleteProtectionFinalizer[] = "resource.kubernetes.io/delete-protection";
// resource.ResourceClaimReservedForMaxSize.
inline constexpr size_t kReservedForMaxSize = 256;
// Default plugin's name in error texts.
inline constexpr char kDynamicResourcesPlugin[] = "DynamicResources";

struct ScheduleOptions {
  const ScorePolicy* policy = nullptr;  // required; borrowed
  // Ties between nodes with the highest score go to the node with the
  // smallest FNV-1a 64 of "<seed>/<pod namespace>/<pod name>/<node name>".
  uint64_t seed = 0;
  uint64_t max_steps = 0;  // allocator search steps per call; 0: the allocator's default
};

// One claim of a placed pod.
struct ClaimPlacement {
  std::string pod_claim{};  // pod.spec.resourceClaims[].name
  std::string claim{};      // "namespace/name"
  bool allocated_now = false;  // false: it was allocated before (shared or pre-allocated)
  std::vector<api::DeviceRequestAllocationResult> results{};
};

// Why one node was rejected.
struct NodeRejection {
  std::string node{};
  std::string plugin{};                // "NodeResourcesFit", "DynamicResources", ...
  std::vector<std::string> reasons{};  // upstream texts, aggregated in `message`
  std::string detail{};                // allocator detail for DynamicResources, else empty
};

struct PodOutcome {
  enum class Kind {
    kPlaced,
    kUnschedulable,  // no node fits, or the pod cannot be tried (claims missing, gates)
    kError,          // an error status: the attempt failed (bad selector, limits, ...)
  };
  std::string pod{};  // "namespace/name"
  Kind kind = Kind::kUnschedulable;
  std::string node{};                     // kPlaced
  std::vector<ClaimPlacement> claims{};   // kPlaced: every claim of the pod, in pod order
  int64_t score = 0;                    // kPlaced: the winning node's score
  // Not placed: kube-scheduler's message, e.g. "0/3 nodes are available: 1
  // Insufficient cpu, 2 cannot allocate all claims." or the PreEnqueue /
  // error text.
  std::string message{};
  std::vector<NodeRejection> rejections{};  // per node that was filtered out
};

struct ScheduleResult {
  std::vector<PodOutcome> pods{};  // in queue order
  // Indices into the snapshot of objects that changed (sorted, unique):
  // placed pods and pods whose resourceClaimStatuses were written; claims
  // created from templates, allocated or reserved.
  std::vector<size_t> changed_pods{};
  std::vector<size_t> changed_claims{};
  std::vector<size_t> created_claims{};  // subset of changed_claims
};

// The pending pods of `snapshot` in queue order (indices into pods).
std::vector<size_t> PendingQueue(const Snapshot& snapshot);

// Places every pending pod of `snapshot`, updating it (see snapshot.h).
// Errors only for problems outside any one pod (the CEL environment cannot be
// built); a pod's own problems are outcomes.
StatusOr<ScheduleResult> Schedule(Snapshot* snapshot, const ScheduleOptions& options);

}  // namespace dra::sched
