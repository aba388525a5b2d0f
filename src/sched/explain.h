// `dractl explain`: why a pending pod does not schedule, as data. Built on
// Schedule (scheduler.h) and the allocator (alloc/allocator.h).
//
// Flow of Explain(snapshot, options, pods):
//   queue      one Schedule run over the pending pods, as `dractl schedule`
//              does (ScheduleOptions::after_pod): each pod asked about is
//              analysed right after its attempt, with the pods before it
//              placed and the ones after it not yet tried; the run stops
//              after the last pod asked about
//   per node   the scheduler's rejection (NodeRejection) becomes a NodeCause;
//              for DynamicResources the allocator's Reason names the request
//              that failed (the scheduler hands it over), and the node's devices are
//              counted for it: how many pass the class and request selectors,
//              how many of those are in use and by which claims, and what a
//              matchAttribute constraint leaves
//   summary    node counts per cause ("3 have fewer than 2 free devices ...")
//   misses     nodes rejected only for devices in use, where freeing the
//              devices of at most two claims makes the pod fit (checked by
//              running the allocator on that node with only the claims that
//              use its devices, those two left out); with fgd or dra-pack
//              the score the node would then get (a DeviceModel of the
//              state the pod saw, those claims released)
//   selectors  a selector of a failing request that is false for every
//              device of the cluster, with the values the attributes and
//              capacities it reads actually have
//
// Causes are plain data (see NodeCause); texts are rendered from them, so a
// JSON dump and the text say the same thing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::sched {

enum class CauseKind {
  kNodeFilter,         // a filter before DynamicResources (plugin, reasons)
  kClaimNotAvailable,  // an allocated claim's node selector excludes the node
  kInvalidPools,       // "invalid resource pools were encountered"
  kTooFewDevices,      // fewer free devices pass the selectors than wanted
  kDevicesUnusable,    // enough free, but taints/counters/capacity leave too few
  kConstraint,         // enough usable, but a claim constraint refuses them
  kNoCombination,      // enough usable; the search found no combination
};
std::string_view CauseKindName(CauseKind kind);

// A claim holding devices on a node, with the devices ("driver/pool/device").
struct DeviceHolder {
  std::string claim{};
  std::vector<std::string> devices{};
};

// One resource NodeResourcesFit found short on a node, in the units of a
// Quantity ("96", "500m", "64Gi"; pods as a count).
struct ResourceShortage {
  std::string resource{};   // "cpu", "memory", "pods", "nvidia.com/gpu", ...
  std::string requested{};  // by the pod (pods: 1)
  std::string free{};       // allocatable minus the requests of the node's pods
  std::string allocatable{};
};

struct NodeCause {
  std::string node{};
  std::string plugin{};
  CauseKind kind = CauseKind::kNodeFilter;
  std::vector<std::string> reasons{};  // kube-scheduler's texts for this node
  // NodeResourcesFit: the numbers behind "Insufficient cpu" and co.
  std::vector<ResourceShortage> shortages{};
  // DynamicResources (kinds after kInvalidPools): the request that failed.
  std::string claim{};    // "namespace/name"
  std::string request{};  // "req" or "req/sub"
  std::string device_class{};
  bool all_mode = false;  // allocationMode All: wanted = every matching device
  int64_t wanted = 0;
  int64_t devices = 0;         // devices of the node's usable pools
  int64_t class_matching = 0;  // pass the class's selectors
  int64_t matching = 0;        // of those, pass the request's selectors too
  int64_t in_use = 0;          // of `matching`: allocated to other claims
  int64_t usable = 0;          // of `matching`: free and passing taints, counters, capacity
  int64_t tainted = 0;
  int64_t no_counters = 0;
  // DRADeviceCompatibilityGroups: compatibilityGroups disjoint from those of
  // devices already allocated on their counter set (src/alloc/README.md §8.1).
  int64_t incompatible = 0;
  int64_t no_capacity = 0;
  std::vector<DeviceHolder> holders{};  // claims holding the `in_use` devices
  std::string constraint{};             // kConstraint: "matchAttribute resource.kubernetes.io/pcieRoot"
  int64_t constraint_at_most = 0;       // kConstraint: the most the constraint leaves for the request
  std::string text{};                   // one line, rendered from the fields above
};

// One line of the cluster summary: `nodes` nodes share this cause.
struct CauseSummary {
  int64_t nodes = 0;
  std::string text{};
};

// Freeing the devices of `claims` on `node` makes the pod fit there.
struct NearMiss {
  std::string node{};
  std::vector<DeviceHolder> release{};
  // With --policy fgd or dra-pack: the node's score for the pod once those
  // devices are free (0-100; fragmentation.h); -1 with other policies.
  int64_t score = -1;
  std::string text{};
};

// The values an attribute or capacity read by a selector has in the cluster.
struct ValueRange {
  std::string name{};  // as written: "device.capacity[\"gpu.nvidia.com\"].memory"
  bool capacity = false;
  std::string max{}, min{};              // quantities and ints
  int64_t max_nodes = 0, min_nodes = 0;  // nodes with a device of that value
  int64_t max_devices = 0, min_devices = 0;
  std::vector<std::pair<std::string, int64_t>> values{};  // other types: value -> devices
  int64_t devices = 0;                                    // devices having it
  std::string text{};
};

// A selector of a failing request that is false (or an error) for every
// device of the cluster.
struct UnmatchedSelector {
  std::string claim{};
  std::string request{};
  std::string expression{};
  // Where it is written: "ResourceClaim", "ResourceClaimTemplate" or
  // "DeviceClass", the object's namespace/name, and the field path
  // (api/field_path.h syntax) for manifest::FindFieldMark.
  std::string object_kind{};
  std::string object{};
  std::string field_path{};
  std::string location{};  // "file:line", filled in by the CLI
  std::vector<ValueRange> closest{};
};

// The pod group of a pending member (gang.h): how its cycle went and what
// would place it.
struct GroupExplanation {
  std::string group{};  // "namespace/name"
  int32_t min_count = 1;
  size_t scheduled_before = 0;
  size_t members = 0;  // pending members
  PodOutcome::Kind kind = PodOutcome::Kind::kUnschedulable;
  std::string message{};  // the group's (PodGroupInitiallyScheduled) message
  // kube-scheduler's pass, member by member (GroupOutcome::upstream_pass).
  std::vector<GroupOutcome::MemberTry> upstream_pass{};
  // Not placed with --gang upstream: the same run with --gang search.
  bool search_run = false;
  bool search_places = false;
  std::vector<GroupOutcome::MemberTry> search_placement{};  // search_places
  // Not placed by the search either: the most members that fit together
  // (the same search with minCount 1), and the members it leaves out with
  // their reasons ("ns/pod: 0/3 nodes are available: ..."); -1 when not run.
  int64_t most_together = -1;
  std::vector<std::string> left_out{};
  std::vector<std::string> text{};  // lines, rendered from the fields above
};

struct PodExplanation {
  std::string pod{};  // "namespace/name"
  // The pod's controller: "ReplicaSet ml/trainer-6bc56db7c8", "Job ml/train";
  // "" without one. Replicas with the same verdict are told once.
  std::string owner{};
  // kPlaced: the pod was bound before (`bound`) or would be placed now.
  PodOutcome::Kind kind = PodOutcome::Kind::kUnschedulable;
  bool bound = false;
  std::string node{};
  std::string message{};  // kube-scheduler's message (not placed)
  int64_t num_nodes = 0;
  std::vector<NodeCause> nodes{};  // per rejected node, in node order
  std::vector<CauseSummary> summary{};
  // Set when every node was turned down by DynamicResources for the same
  // request and no node has as many matching devices as it asks, even all
  // free: "no node has more than 8 devices matching class X (largest: node-a,
  // 8); the request asks for 16".
  std::string never_fits{};
  std::vector<NearMiss> near_misses{};
  std::vector<UnmatchedSelector> unmatched{};
  // A member of a pod group that was tried (the group's PreEnqueue passed).
  std::optional<GroupExplanation> group{};
};

struct ExplainOptions {
  ScheduleOptions schedule{};
  size_t max_release_candidates = 16;  // claims per node tried for near misses
};

// Explains `pods` ("namespace/name"; empty: every pending pod that does not
// get placed) in queue order. A pod that is not pending comes back with
// `bound` and its node. `snapshot` ends as Schedule leaves it after the last
// explained pod. kNotFound for a pod not in the snapshot; other errors as
// Schedule's.
StatusOr<std::vector<PodExplanation>> Explain(Snapshot* snapshot, const ExplainOptions& options,
                                              const std::vector<std::string>& pods);

}  // namespace dra::sched
