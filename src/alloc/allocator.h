// The structured-parameters allocator: the front door of alloc/
// (src/alloc/README.md: semantics of upstream's "incubating" allocator, with
// "experimental" list semantics when DRAListTypeAttributes is on, §15).
//
// Flow of one Allocate(node, claims) call:
//   pools.h        gather the pools usable on the node (§3)
//   allocator.cc   prepare each request (§4), then the depth-first search
//                  over device slots (§5) using
//   constraints.h  matchAttribute / distinctAttribute (§7)
//   capacity.h     consumable capacity (§9) and taints (§10)
//                  counters (§8) live in allocator.cc (per-call state)
//   result.h       AllocationResult: results, config, nodeSelector (§11)
//
// Thread safety: Allocate may run concurrently on one Allocator if the
// SelectorEvaluator and the share-ID generator are thread-safe. What an
// Allocator decides never changes during its life; it only remembers work
// (see "Caches"), behind a mutex and in tables of atomics. Per-call state
// lives in a scratch object per thread, reused by the next call on that
// thread.
//
// Caches: an Allocator stands for one snapshot (slices, classes, allocated
// state; AddAllocation adds to the allocated state), so it keeps, for its
// whole life,
//   - per node (keyed by name, and by labels when some slice or device
//     selects nodes by selector): the gathered pools and the candidate
//     devices with their allocated flags, built on the node's first call;
//   - per (CEL expression, device): the selector's verdict, once evaluated.
//     Errors are not kept: a selector that fails is evaluated again whenever
//     the search reaches that device, and the call reports it as before.
// Memory grows with the nodes seen (about one Candidate per device) and with
// the distinct expressions (one byte per device of the SliceIndex each).
// Built on a SnapshotState (below), an Allocator uses the snapshot's caches,
// shared with every other Allocator on it.
// Because of the caches, the slices, classes and SelectorEvaluator must not
// change while the Allocator lives, and the evaluator must be deterministic.
//
// Lifetimes: the classes, the SliceIndex (and the slices behind it) and the
// SelectorEvaluator are borrowed and must outlive the Allocator. Claims passed
// to Allocate are only read during the call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alloc/allocated_state.h"
#include "alloc/best_fit.h"
#include "alloc/features.h"
#include "alloc/pools.h"
#include "alloc/selector.h"
#include "api/core.h"
#include "api/resource.h"
#include "base/status.h"

namespace dra::alloc {

namespace internal {
struct AllocatorCache;  // allocator.cc
struct NodeState;       // allocator.cc
}  // namespace internal

// The claim limit of upstream (resource.AllocationResultsMaxSize).
inline constexpr int64_t kMaxDevicesPerClaim = 32;

struct AllocatorOptions {
  // Upper bound on search steps (slot visits) per Allocate call; 0 = none.
  // Hitting it is kResourceExhausted "allocation search exceeded ... steps".
  uint64_t max_steps = 50'000'000;
  // New share IDs for devices allocated multiple times (§9). Default: random
  // lower-case RFC 4122 version-4 UUIDs. Inject a deterministic one in tests.
  std::function<std::string()> new_share_id;
  // Which fitting devices a kFull call takes (best_fit.h). kSummary calls
  // always search in the driver's order: the decision is the same. Errors
  // depend on the order (a selector failing on one device, an All request
  // that a constraint refuses, the step limit), so a best-fit search that
  // meets one searches again in the driver's order: best fit fails only
  // where first fit does (and may fit where first fit fails).
  DeviceChoice device_choice = DeviceChoice::kFirstFit;
};

// Why claims do not fit on a node. The counts add up every device the search
// rejected, by the first check that rejected it.
struct Reason {
  std::string claim;    // "namespace/name" of the deepest request that failed
  std::string request;  // its name ("req" or "req/sub")
  // Nothing could be allocated and some pool on the node is invalid
  // (upstream's "invalid resource pools were encountered", which the
  // scheduler treats as "unschedulable on this node", §13).
  bool invalid_pools = false;
  // One line for humans, set with invalid_pools ("invalid resource pools
  // were encountered: ..."); empty otherwise, which ToString renders as
  // "cannot allocate all claims" (not built per node that does not fit).
  std::string message;

  int64_t class_selector = 0;      // a class selector was false
  int64_t request_selector = 0;    // a request selector was false
  int64_t node_selection = 0;      // per-device node selection excludes the node
  int64_t binding_conditions = 0;  // binding conditions without the feature
  int64_t in_use = 0;              // allocated already, or taken in this call
  int64_t taint = 0;               // an untolerated NoSchedule/NoExecute taint
  int64_t counters = 0;            // shared counters exhausted (or feature off)
  int64_t incompatible = 0;        // compatibilityGroups disjoint from a counter set's devices
  int64_t capacity = 0;            // consumable capacity exhausted / policy
  int64_t constraint = 0;          // a claim constraint refused it

  // Set when the request was rejected by counting, without search: it needs
  // `needed` devices and at most `usable` pass every check above (the counts
  // then name each device of the node once).
  int64_t needed = 0;
  int64_t usable = 0;

  // "claim default/c, request gpu: cannot allocate: 3 in use, 1 tainted".
  std::string ToString() const;
};

// Devices a caller wants tried first (a packing policy's choice inside the
// node it picked, sched/fragmentation.h): for the request entry `request`
// ("req" or "req/sub") of claim `claim` (an index into the claims passed to
// Allocate), the devices "driver/pool/device" in the order to try them; the
// other devices follow in the order DeviceChoice gives. Only an order: what
// fits is decided as without it, and a search that meets an error searches
// again in the driver's order, as best fit does.
struct DevicePreference {
  struct Entry {
    size_t claim = 0;
    std::string request;
    std::vector<std::string> devices;
  };
  std::vector<Entry> entries;
  bool empty() const { return entries.empty(); }
};

struct NodeFit {
  bool fits = false;
  std::vector<api::AllocationResult> results;  // fits: one per claim, in order
  Reason reason;                               // !fits
  uint64_t steps = 0;                          // search steps used
};

// A pod's claims, prepared once for Allocate calls on many nodes (Filter
// over every node). What does not depend on the node — classes looked up,
// selector tables found, modes and counts checked, subrequest names built —
// is worked out on the first call and kept (per thread) for the calls that
// follow with the same PreparedClaims on the same Allocator; every call
// decides and answers exactly as Allocate(node, claims()) would. Claims with
// an All-mode request are prepared again on every call (their devices are
// the node's). The claims must not change while a PreparedClaims of them is
// used; copies share its identity.
class PreparedClaims {
 public:
  PreparedClaims() = default;
  explicit PreparedClaims(std::span<const api::ResourceClaim* const> claims);
  std::span<const api::ResourceClaim* const> claims() const { return claims_; }

 private:
  friend class Allocator;
  std::vector<const api::ResourceClaim*> claims_;
  uint64_t id_ = 0;  // unique per constructed object; 0 for the default one
};

// State that outlives one Allocator: the caches of "Caches" above (node
// states, verdict tables) for one snapshot — one SliceIndex, one feature set,
// one AllocatedState — shared by every Allocator built on it, as
// kube-scheduler builds a new allocator per pod on one snapshot. The first
// Allocator to meet a node or an expression does the work; the others reuse
// it, so a fresh Allocator per pod costs what a warm one costs.
//
// Invalidation: a SnapshotState never changes. When the slices or the
// allocations change, build a new one (DeviceClasses are not part of it:
// verdicts are kept per expression, node states do not read classes). An
// Allocator that changes its own allocated state (AddAllocation,
// RemoveAllocation, SetExcluded) first takes a private copy of the shared
// node states (Allocator::Detach below) and keeps sharing only the verdict
// tables; the SnapshotState and the other Allocators are not affected.
//
// The Allocators built on one SnapshotState must use SelectorEvaluators that
// decide alike (CEL evaluators for its features): verdicts are shared by
// expression text. Thread-safe like one Allocator's caches. The SliceIndex is
// borrowed and must outlive the SnapshotState and its Allocators.
class SnapshotState {
 public:
  SnapshotState(Features features, AllocatedState allocated, const SliceIndex* slices);
  ~SnapshotState();
  SnapshotState(const SnapshotState&) = delete;
  SnapshotState& operator=(const SnapshotState&) = delete;

  const Features& features() const { return features_; }
  const AllocatedState& allocated() const { return allocated_; }
  const SliceIndex& slices() const { return *slices_; }

 private:
  friend class Allocator;
  Features features_;
  AllocatedState allocated_;
  const SliceIndex* slices_;
  std::shared_ptr<internal::AllocatorCache> cache_;
};

class Allocator {
 public:
  Allocator(Features features, AllocatedState allocated, const std::vector<const api::DeviceClass*>& classes,
            const SliceIndex* slices, SelectorEvaluator* selectors, AllocatorOptions options = {});
  // On a shared snapshot (SnapshotState): its features, allocated state and
  // slices, and its caches. Nothing is copied.
  Allocator(std::shared_ptr<const SnapshotState> snapshot, const std::vector<const api::DeviceClass*>& classes,
            SelectorEvaluator* selectors, AllocatorOptions options = {});
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Tries to place `claims` on `node`.
  //   ok, fit.fits   -> fit.results holds one AllocationResult per claim, in the order given
  //   ok, !fit.fits  -> they do not fit on this node; fit.reason says which request failed
  //   not ok         -> the input is broken (bad selector, bad pool, unsupported
  //                     request, feature off, step limit): stop scheduling
  // REQUIRES: claims have been defaulted (api/defaults.h).
  StatusOr<NodeFit> Allocate(const api::Node& node, std::span<const api::ResourceClaim* const> claims) const {
    return Allocate(node, claims, ResultDetail::kFull);
  }
  // kSummary: the same decision (fits, reason, errors), but each result of
  // fit.results carries only `request`, `admin_access` and `share_id` (no
  // driver/pool/device, tolerations, config or node selector): enough to
  // score a node, at a fraction of the cost. The scheduler filters every
  // node this way and allocates in full on the node it picks.
  enum class ResultDetail { kFull, kSummary };
  StatusOr<NodeFit> Allocate(const api::Node& node, std::span<const api::ResourceClaim* const> claims,
                             ResultDetail detail) const;

  // A node resolved to the Allocator's cached state once, for callers that
  // come back to the same nodes many times (the scheduler): the calls taking
  // a handle skip the lookup by name. Valid while the Allocator and the Node
  // object live, if the node's name and labels do not change.
  class NodeHandle {
   public:
    NodeHandle() = default;
    bool valid() const { return state_ != nullptr; }

   private:
    friend class Allocator;
    const internal::NodeState* state_ = nullptr;
    const api::Node* node_ = nullptr;
    // The cache the state belongs to: a handle taken before the Allocator
    // detached from its SnapshotState is resolved again on use.
    uint64_t cache_id_ = 0;
  };
  NodeHandle Handle(const api::Node& node) const;
  StatusOr<NodeFit> Allocate(NodeHandle node, std::span<const api::ResourceClaim* const> claims,
                             ResultDetail detail) const {
    return Allocate(node, claims, detail, nullptr);
  }
  // With `preference` (kFull only; ignored for kSummary): its devices first.
  StatusOr<NodeFit> Allocate(NodeHandle node, std::span<const api::ResourceClaim* const> claims, ResultDetail detail,
                             const DevicePreference* preference) const {
    return Allocate(node, claims, 0, detail, preference);
  }
  // The same for claims prepared once for many nodes (PreparedClaims above).
  StatusOr<NodeFit> Allocate(NodeHandle node, const PreparedClaims& claims, ResultDetail detail,
                             const DevicePreference* preference = nullptr) const {
    return Allocate(node, claims.claims_, claims.id_, detail, preference);
  }
  // The same into `fit`, which is overwritten (unspecified when not OK);
  // its buffers are reused, so a caller deciding node after node with one
  // NodeFit allocates next to nothing once they have grown.
  Status AllocateInto(NodeHandle node, const PreparedClaims& claims, ResultDetail detail, NodeFit& fit,
                      const DevicePreference* preference = nullptr) const {
    return AllocateInto(node, claims.claims_, claims.id_, detail, preference, fit);
  }
  Status AllocateInto(NodeHandle node, std::span<const api::ResourceClaim* const> claims, ResultDetail detail,
                      NodeFit& fit, const DevicePreference* preference = nullptr) const {
    return AllocateInto(node, claims, 0, detail, preference, fit);
  }

  // Records the devices of an allocation made since the Allocator was built
  // (a claim the scheduler just allocated), as if they had been in the
  // AllocatedState from the start; the node caches are updated in place, so
  // one Allocator can serve a whole scheduling run. kOutOfRange if summing
  // consumed capacities overflows (the state then holds the results before
  // the one that failed).
  // With `changed_nodes`, appends the names of the nodes whose cached state
  // changed (those that see a pool of the allocated devices and were seen by
  // this Allocator before — on a SnapshotState, by any Allocator on it):
  // Allocate outcomes on other nodes stay as they were.
  // REQUIRES: no Allocate call in flight on any thread.
  Status AddAllocation(const api::AllocationResult& allocation, std::vector<std::string>* changed_nodes = nullptr);

  // The inverse of AddAllocation for an allocation added before (a gang's
  // tentative reservation undone): its devices, shares and consumed
  // capacity are free again; the same caches are updated and the same
  // nodes named.
  // REQUIRES: no Allocate call in flight on any thread.
  Status RemoveAllocation(const api::AllocationResult& allocation, std::vector<std::string>* changed_nodes = nullptr);
  // Keeps a device out of (or lets it back into) every later search without
  // counting it as usage (AllocatedState::excluded): a caller that wants
  // another solution than the one it got. Admin-access requests still see
  // the device. REQUIRES: as above.
  void SetExcluded(std::string_view driver, std::string_view pool, std::string_view device, bool excluded,
                   std::vector<std::string>* changed_nodes = nullptr);

  // The devices of the node's complete, valid pools, and how many of them
  // are allocated (AllocatedState::devices).
  struct DeviceCount {
    int64_t devices = 0;
    int64_t in_use = 0;
  };
  DeviceCount CountDevices(const api::Node& node) const;
  DeviceCount CountDevices(NodeHandle node) const;

  // A number that changes whenever AddAllocation changes what Allocate can
  // find on the node: equal numbers mean an equal Allocate outcome for equal
  // claims (callers may remember outcomes under it).
  uint64_t NodeGeneration(const api::Node& node) const;
  uint64_t NodeGeneration(NodeHandle node) const;

  const Features& features() const { return features_; }
  // Unique among the Allocators of the process (never reused).
  uint64_t id() const { return id_; }
  const AllocatedState& allocated() const { return *allocated_view_; }
  const AllocatorOptions& options() const { return options_; }
  const api::DeviceClass* FindClass(std::string_view name) const;
  const SliceIndex& slices() const { return *slices_; }
  SelectorEvaluator& selectors() const { return *selectors_; }

 private:
  // Before the first change to the allocated state of an Allocator built on
  // a SnapshotState: copies its allocated state and its node states (the
  // handles out are resolved again), so that the change stays private.
  void Detach();
  // `prepared_id`: the PreparedClaims the claims are from (0: none).
  StatusOr<NodeFit> Allocate(NodeHandle node, std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id,
                             ResultDetail detail, const DevicePreference* preference) const;
  Status AllocateInto(NodeHandle node, std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id,
                      ResultDetail detail, const DevicePreference* preference, NodeFit& fit) const;
  // The state behind a handle, resolved again if it is from before Detach.
  const internal::NodeState& StateOf(NodeHandle node) const;

  Features features_;
  AllocatedState allocated_;                       // this Allocator's own, unless on a snapshot
  const AllocatedState* allocated_view_;           // &allocated_ or the snapshot's
  std::shared_ptr<const SnapshotState> snapshot_;  // while attached to one
  std::map<std::string, const api::DeviceClass*, std::less<>> classes_;
  const SliceIndex* slices_;
  SelectorEvaluator* selectors_;
  AllocatorOptions options_;
  std::shared_ptr<internal::AllocatorCache> cache_;  // see "Caches" above; the snapshot's while attached
  uint64_t id_ = 0;  // unique among the Allocators of the process (a kept preparation names it)
};

// A random lower-case RFC 4122 version-4 UUID.
std::string NewRandomShareId();

}  // namespace dra::alloc
