// The front door of sched/: places pending pods on nodes one at a time, as
// kube-scheduler would, with the DRA allocator (alloc/allocator.h) deciding
// devices. See README.md for what is modelled and what is not; § numbers
// below point into its "What kube-scheduler does (reference)".
//
// Flow of Schedule(snapshot, options):
//   queue        pending pods (no spec.nodeName, not finished, not being
//                deleted) by spec.priority (higher first), creationTimestamp,
//                namespace/name
//   per pod:
//     controller   EnsurePodClaims: claims from templates (pod_claims.h)
//     PreEnqueue   scheduling gates, schedulerName, pod groups (left alone);
//                  ResolvePodClaims (§2.1)
//     PreFilter    per claim: classes exist, prioritized lists allowed (§4.3);
//                  an Allocator over the current allocated state
//     Filter       per node, in name order from where the previous pod's
//                  search stopped, until enough feasible nodes are found
//                  (NumFeasibleNodesToFind): NodeUnschedulable, NodeName,
//                  TaintToleration, NodeAffinity, NodeResourcesFit
//                  (node_filters.h), then DynamicResources (§4.4), which
//                  only decides here (Allocator ResultDetail::kSummary)
//     Score        the policy (policy.h); ties broken by the seed. fgd and
//                  dra-pack score on a DeviceModel of the cluster
//                  (fragmentation.h) and choose the devices inside the
//                  chosen node (alloc::DevicePreference); they filter every
//                  node unless percentage_of_nodes_to_score says otherwise
//     Reserve/Bind the chosen node's claims are allocated in full; they get
//                  status.allocation, the delete-protection
//                  finalizer and the pod in reservedFor (at most 256 entries);
//                  the pod gets spec.nodeName
//   A placed pod's requests and devices count for every later pod.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "api/resource.h"
#include "base/status.h"
#include "sched/policy.h"
#include "sched/profile.h"
#include "sched/snapshot.h"

namespace dra::sched {

// The finalizer the scheduler adds to claims it allocates.
inline constexpr char kDeleteProtectionFinalizer[] = "resource.kubernetes.io/delete-protection";
// resource.ResourceClaimReservedForMaxSize.
inline constexpr size_t kReservedForMaxSize = 256;
// Default plugin's name in error texts.
inline constexpr char kDynamicResourcesPlugin[] = "DynamicResources";

struct PodOutcome;
struct PodTrace;

// How the members of a gang (a PodGroup, gate GenericWorkload) are placed.
enum class GangMode {
  // As kube-scheduler 1.37.2: members one at a time in queue order, each
  // with the single-pod algorithm and its first allocation; earlier
  // members' choices are never revisited; all or nothing against minCount.
  kUpstream,
  // kUpstream first; where it fails, a search over the members' node and
  // device choices (backtracking, within `max_steps`) for the most members
  // it can place, at least minCount. Never worse than kUpstream.
  kSearch,
};

struct GangOptions {
  GangMode mode = GangMode::kUpstream;
  // The search's budget per group, in steps: a node filtered, a member
  // placed and an allocator call are one each, and an allocator call adds
  // its own search steps (NodeFit::steps), so that the budget bounds the
  // time. Exhausted: the group is unschedulable, and says so.
  uint64_t max_steps = 60'000;
  size_t max_nodes = 16;       // nodes tried per member, best score first
  size_t max_allocations = 8;  // device choices tried per member and node
};

struct ScheduleOptions {
  const ScorePolicy* policy = nullptr;  // required; borrowed
  // Ties between nodes with the highest score go to the node with the
  // smallest FNV-1a 64 of "<seed>/<pod namespace>/<pod name>/<node name>".
  uint64_t seed = 0;
  uint64_t max_steps = 0;  // allocator search steps per call; 0: the allocator's default
  // kube-scheduler's percentageOfNodesToScore: Filter stops once this share
  // of the nodes was found feasible (at least 100 nodes), and the next pod's
  // search starts where this one stopped. 0: kube-scheduler's adaptive
  // default (50% minus 1% per 125 nodes, at least 5%); 100: every node.
  int32_t percentage_of_nodes_to_score = 0;
  // The scheduler this run acts as: pods naming another (an empty
  // spec.schedulerName is default-scheduler) are not placed.
  std::string scheduler_name = "default-scheduler";
  // Do the resource-claim controller's part for each pod (EnsurePodClaims:
  // claims from templates). `dractl serve` leaves that to
  // kube-controller-manager unless told otherwise; then a pod whose claim was
  // not created yet is unschedulable ("waiting for resource claim creation").
  bool create_template_claims = true;
  // Which of a node's fitting devices a pod gets (alloc/best_fit.h); the
  // choice of node does not depend on it.
  alloc::DeviceChoice device_choice = alloc::DeviceChoice::kFirstFit;
  // Called after each pod's attempt, in queue order, with the snapshot as
  // that attempt left it (earlier pods placed, later ones not yet tried; for
  // the members of a pod group, once the group is decided, and where
  // GangMode::kUpstream fails it, with the members' tentative placements
  // still in place):
  // `dractl explain` analyses pods there. Returning false ends the run (the
  // later pods are not tried and not in the result).
  std::function<bool(size_t pod_idx, const PodOutcome& outcome)> after_pod{};
  // Indexes of the snapshot's slices and nodes, to use instead of building
  // them (explain builds them once for the run and its analysis). Slices and
  // nodes do not change during a run.
  const alloc::SliceIndex* slice_index = nullptr;
  const NodeIndex* node_index = nullptr;
  // The workload the packing policies (fgd, dra-pack) measure fragmentation
  // against (profile.h); null: the pending pods of the snapshot. Borrowed.
  const WorkloadProfile* workload_profile = nullptr;
  // The pods to try, in this order (indices into the snapshot's pods),
  // instead of the pending queue: drivers that fix the order themselves
  // (simulate openb --engine dra). Each must be pending.
  std::span<const size_t> queue{};
  // Ties between the best-scored nodes go to the lowest rank (indexed like
  // the snapshot's nodes) instead of the hash above: the native simulator's
  // per-run node ranks, so that both engines break ties alike.
  std::span<const uint32_t> node_rank{};
  // False: a pod that fits nowhere gets "0/N nodes are available." and no
  // rejections (the per-node texts cost more than the attempt for a driver
  // that only counts failures: simulate openb --engine dra).
  bool unschedulable_texts = true;
  GangOptions gang{};
  // When set, each cycle that reaches Filter appends its PodTrace (texts for
  // every rejected node, scores per plugin): for `dractl schedule --trace`
  // and tools/difftest --level scheduler. Costs texts; off on the hot path.
  std::vector<PodTrace>* trace = nullptr;
};

// How many feasible nodes Filter looks for in a cluster of `num_nodes`
// (kube-scheduler's numFeasibleNodesToFind).
size_t NumFeasibleNodesToFind(int32_t percentage_of_nodes_to_score, size_t num_nodes);

// The order in which Filter walks `nodes` (sorted by name, as an API
// server lists them and kube-scheduler's informer adds them): upstream's
// nodeTree (backend/cache/node_tree.go), which groups the nodes by zone key
// (region and zone labels, the failure-domain.beta.kubernetes.io ones
// first), zones in order of first appearance, and lists them round-robin
// across zones. Empty when no node has a zone or region label: then the
// order is the name order.
std::vector<size_t> NodeTreeOrder(std::span<const api::Node> nodes);

// One claim of a placed pod.
struct ClaimPlacement {
  std::string pod_claim{};     // pod.spec.resourceClaims[].name
  std::string claim{};         // "namespace/name"
  bool allocated_now = false;  // false: it was allocated before (shared or pre-allocated)
  std::vector<api::DeviceRequestAllocationResult> results{};
};

// Why one node was rejected.
struct NodeRejection {
  std::string node{};
  std::string plugin{};                // "NodeResourcesFit", "DynamicResources", ...
  std::vector<std::string> reasons{};  // upstream texts, aggregated in `message`
  // The invalid-pools message for such a DynamicResources rejection; else
  // empty (see Detail()).
  std::string detail{};
  // The allocator's Reason behind "cannot allocate all claims" (its `claim`
  // is "namespace/name"), so that explain need not ask the allocator again.
  std::optional<alloc::Reason> dra_reason{};

  // The allocator's detail for a DynamicResources rejection ("claim c,
  // request r: cannot allocate: ..."), rendered on demand (a pod that fits
  // nowhere has one per node); else empty.
  std::string Detail() const { return !detail.empty() ? detail : dra_reason ? dra_reason->ToString() : ""; }
};

// What `dractl schedule --trace` prints for one pod that reached Filter
// (ScheduleOptions::trace): the first plugin that turned each node down,
// with its texts, and per feasible node each score plugin's normalized
// score and the policy's total (as kube-scheduler's framework sees them).
struct NodeScoreTrace {
  std::string node{};
  std::vector<PluginScore> plugins{};  // empty for policies not made of plugins
  int64_t total = 0;
};
struct PodTrace {
  std::string pod{};                        // "namespace/name"
  std::vector<NodeRejection> rejections{};  // in node order
  std::vector<NodeScoreTrace> scores{};     // in node order
};

struct PodOutcome {
  enum class Kind {
    kPlaced,
    kUnschedulable,  // no node fits, or the pod cannot be tried (claims missing, gates)
    kError,          // an error status: the attempt failed (bad selector, limits, ...)
  };
  std::string pod{};  // "namespace/name"
  Kind kind = Kind::kUnschedulable;
  std::string node{};                    // kPlaced
  std::vector<ClaimPlacement> claims{};  // kPlaced: every claim of the pod, in pod order
  int64_t score = 0;                     // kPlaced: the winning node's score
  // Not placed: kube-scheduler's message, e.g. "0/3 nodes are available: 1
  // Insufficient cpu, 2 cannot allocate all claims." or the PreEnqueue /
  // error text.
  std::string message{};
  // Not placed: per node that was filtered out, in node order (every node was
  // tried). Empty for a placed pod.
  std::vector<NodeRejection> rejections{};
};

// What happened to one pod group's attempt (its members' own outcomes are
// in ScheduleResult::pods).
struct GroupOutcome {
  std::string group{};  // "namespace/name"
  // kPlaced: minCount is met (members that did not fit have their own
  // outcome); kUnschedulable: none of the members was placed; kError: the
  // group could not be tried (its pods disagree, a member's error).
  PodOutcome::Kind kind = PodOutcome::Kind::kUnschedulable;
  // The PodGroupInitiallyScheduled condition's message (kube-scheduler's
  // PlacementFeasible texts, e.g. "minCount (4) cannot be satisfied: 1
  // scheduled, 2 remaining"), with the search's summary in kSearch.
  std::string message{};
  // Past PreEnqueue (the group was popped from the queue): kube-scheduler
  // writes the PodGroup's condition only then.
  bool tried = false;
  int32_t min_count = 1;        // gang minCount; 1 for a basic policy
  size_t scheduled_before = 0;  // members bound before this run
  size_t members = 0;           // members tried now
  size_t placed = 0;            // of them placed now
  bool searched = false;        // kSearch ran its search (kUpstream failed)
  uint64_t steps = 0;           // the search's steps
  // TopologyAwareWorkloadScheduling (gang.h GeneratePlacements): how many
  // placements were tried, and the domain the group was placed in ("" for
  // the all-nodes placement, or when it was not placed).
  size_t placements = 0;
  std::string placement{};
  // kube-scheduler's pass over the members, in order, as it went before a
  // failed group was undone: where each member fit, with its devices
  // ("driver/pool/device"); node "" where it fit nowhere (or was not tried).
  struct MemberTry {
    std::string pod{};
    std::string node{};
    std::vector<std::string> devices{};
  };
  std::vector<MemberTry> upstream_pass{};
};

struct ScheduleResult {
  std::vector<PodOutcome> pods{};      // in queue order; a group's members together
  std::vector<GroupOutcome> groups{};  // per pod group tried, in queue order
  // Indices into the snapshot of objects that changed (sorted, unique):
  // placed pods and pods whose resourceClaimStatuses were written; claims
  // created from templates, allocated or reserved.
  std::vector<size_t> changed_pods{};
  std::vector<size_t> changed_claims{};
  std::vector<size_t> created_claims{};  // subset of changed_claims
  // With fgd or dra-pack: the workload profile the run measured against
  // (WorkloadProfile::Describe); else empty.
  std::string profile{};
};

// The pending pods of `snapshot` in queue order (indices into pods).
std::vector<size_t> PendingQueue(const Snapshot& snapshot);

// Places every pending pod of `snapshot`, updating it (see snapshot.h).
// Errors only for problems outside any one pod (the CEL environment cannot be
// built); a pod's own problems are outcomes.
StatusOr<ScheduleResult> Schedule(Snapshot* snapshot, const ScheduleOptions& options);

}  // namespace dra::sched
