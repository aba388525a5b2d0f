// One scheduling cycle per pending pod, mirroring kube-scheduler's framework
// (schedule_one.go: findNodesThatFitPod, prioritizeNodes, selectHost) with
// the DynamicResources plugin (README.md §4; upstream's dynamicresources.go;
// the bare § numbers below point into the same README). Nodes are filtered
// one by one in name order (zones round-robin when nodes have zones:
// NodeTreeOrder), starting where the previous pod stopped, until
// NumFeasibleNodesToFind nodes fit (upstream filters in parallel, so which
// nodes it finds first can vary; here the order is kube-scheduler's with
// parallelism 1).
#include "sched/scheduler.h"

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "alloc/pools.h"
#include "api/node_selector.h"
#include "base/fnv.h"
#include "sched/extended.h"
#include "sched/fragmentation.h"
#include "sched/gang.h"
#include "sched/node_filters.h"
#include "sched/pod_claims.h"
#include "sched/resources.h"

namespace dra::sched {
namespace {

bool IsPending(const api::Pod& pod) {
  if (!pod.spec.node_name.empty() || !pod.metadata.deletion_timestamp.empty()) return false;
  return !(pod.status.phase == api::PodPhase::kSucceeded || pod.status.phase == api::PodPhase::kFailed);
}

bool IsActiveOnNode(const api::Pod& pod) {
  return !pod.spec.node_name.empty() &&
         !(pod.status.phase == api::PodPhase::kSucceeded || pod.status.phase == api::PodPhase::kFailed);
}

// "0/N nodes are available: <count> <reason>, ...." (upstream FitError.Error:
// the "<count> <reason>" strings sorted as strings).
std::string FitErrorMessage(size_t num_nodes, const std::vector<NodeRejection>& rejections) {
  std::map<std::string, int> histogram;
  for (const NodeRejection& r : rejections) {
    for (const std::string& reason : r.reasons) ++histogram[reason];
  }
  std::vector<std::string> parts;
  parts.reserve(histogram.size());
  for (const auto& [reason, count] : histogram) parts.push_back(fmt::format("{} {}", count, reason));
  std::sort(parts.begin(), parts.end());
  std::string msg = fmt::format("0/{} nodes are available:", num_nodes);
  if (!parts.empty()) msg += fmt::format(" {}.", fmt::join(parts, ", "));
  return msg;
}

// PreFilter checks of one claim that needs allocation (§4.3). Returns the
// unschedulable message, or an error status for an empty class name.
StatusOr<std::optional<std::string>> CheckClaimRequests(const api::ResourceClaim& claim,
                                                        const alloc::Allocator& allocator,
                                                        const alloc::Features& features) {
  const std::string key = ObjectKey(claim.metadata);
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    if (request.exactly) {
      if (request.exactly->device_class_name.empty()) {
        return InvalidArgumentError(fmt::format("request {}: unsupported request type", request.name));
      }
      if (allocator.FindClass(request.exactly->device_class_name) == nullptr) {
        return std::optional<std::string>(fmt::format("request {}: device class {} does not exist", request.name,
                                                      request.exactly->device_class_name));
      }
    } else if (!request.first_available.empty()) {
      if (!features.prioritized_list) {
        return std::optional<std::string>(fmt::format(
            "resource claim {}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled", key,
            request.name));
      }
      for (const api::DeviceSubRequest& sub : request.first_available) {
        if (sub.device_class_name.empty()) {
          return InvalidArgumentError(fmt::format("request {}/{}: unsupported request type", request.name, sub.name));
        }
        if (allocator.FindClass(sub.device_class_name) == nullptr) {
          return std::optional<std::string>(fmt::format("request {}/{}: device class {} does not exist", request.name,
                                                        sub.name, sub.device_class_name));
        }
      }
    } else {
      return std::optional<std::string>(
          fmt::format("resource claim {}, request {}: unknown request type", key, request.name));
    }
  }
  return std::optional<std::string>();
}

// §4.6: 8 - i for each firstAvailable request whose subrequest i was chosen.
int64_t PrioritizedListScore(const api::ResourceClaim& claim, const api::AllocationResult& allocation) {
  int64_t score = 0;
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    if (request.first_available.empty()) continue;
    for (const api::DeviceRequestAllocationResult& r : allocation.devices.results) {
      if (r.request.size() <= request.name.size() || r.request.compare(0, request.name.size(), request.name) != 0 ||
          r.request[request.name.size()] != '/') {
        continue;
      }
      std::string_view sub = std::string_view(r.request).substr(request.name.size() + 1);
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        if (request.first_available[i].name == sub) score += 8 - static_cast<int64_t>(i);
      }
      break;
    }
  }
  return score;
}

// A node that passed Filter; scored once Filter is done.
struct Candidate {
  size_t node = 0;
  bool dra = false;  // devices, devices_in_use, devices_taken, raw_score are set
  int64_t devices = 0;
  int64_t devices_in_use = 0;
  int64_t devices_taken = 0;
  int64_t raw_score = 0;  // of the claims allocated now
};

// DynamicResources' Filter verdict on one node for the claims of one pod,
// remembered until an allocation changes the node's devices
// (Allocator::AddAllocation names the nodes) for pods whose claims to
// allocate come from the same templates (so their specs are equal). Kept
// small and dense: every pod reads it for every node it filters.
struct DraVerdict {
  uint32_t signature = 0;  // 0: nothing remembered
  bool fits = false;
  bool invalid_pools = false;  // !fits: Reason::invalid_pools
  int64_t raw_score = 0;       // fits: prioritized-list score of the claims allocated now
  int64_t devices_taken = 0;   // fits: exclusive devices they take
  int64_t devices = 0;         // fits: Allocator::CountDevices
  int64_t devices_in_use = 0;
};

// Why the claims did not fit (!DraVerdict::fits), for the rejection texts of
// a pod that is not placed.
struct DraWhyNot {
  alloc::Reason reason{};  // `claim` is rendered from reason_claim
  int reason_claim = -1;   // index into the pod's claims to allocate
  uint32_t signature = 0;  // of the claims it is about (0: this pod's, not remembered)
};

// How many bits are set in `bits` from bit `i` on, without a gap.
size_t OnesFrom(const std::vector<uint64_t>& bits, size_t i) {
  size_t w = i / 64;
  const size_t offset = i % 64;
  size_t n = static_cast<size_t>(std::countr_one(bits[w] >> offset));
  if (n < 64 - offset) return n;
  for (++w; w < bits.size(); ++w) {
    const size_t ones = static_cast<size_t>(std::countr_one(bits[w]));
    n += ones;
    if (ones < 64) break;
  }
  return n;
}

// A node Filter rejected, recorded cheaply (no text); turned into a
// NodeRejection only if the pod is not placed.
struct Rejected {
  enum Why {
    // A node filter (node_filters.h): it is run again for its texts.
    kUnschedulable,
    kNodeName,
    kTaints,
    kNodeAffinity,
    kResources,
    // DynamicResources: fixed texts, or those of why_not_[node].
    kStaleExtendedClaim,
    kExtendedCannotFit,
    kCannotAllocate,
    kInvalidPools,
    kNotAvailable,
  };
  size_t node = 0;
  const char* plugin = nullptr;
  Why why = kUnschedulable;
};

// What the pods bound to one node request (NodeResourcesFit's view),
// kept up to date as pods are placed.
struct NodeUsage {
  Resources requested{};  // .pods counts the pods: PodRequests gives each 1
  Resources non_zero_requested{};
};

// The state of one Schedule() call that lives across pods: one Allocator
// (AddAllocation keeps it current, so its node and selector caches serve
// every pod) and per-node usage.
class Scheduler {
 public:
  Scheduler(Snapshot* snapshot, const ScheduleOptions& options, const alloc::SliceIndex& index,
            const NodeIndex& node_index, alloc::SelectorEvaluator* selectors, const alloc::Features& features,
            ScheduleResult* result)
      : s_(*snapshot), options_(options), features_(features), result_(*result), node_index_(node_index) {
    for (const api::Node& node : s_.nodes) {
      for (const api::Taint& taint : node.spec.taints) {
        prefer_no_schedule_taints_ |= taint.effect == api::TaintEffect::kPreferNoSchedule;
      }
    }
    std::vector<const api::ResourceClaim*> allocated_claims;
    for (const api::ResourceClaim& c : s_.claims) {
      if (c.status.allocation) allocated_claims.push_back(&c);
    }
    alloc::AllocatedState state;
    state_error_ = state.AddClaims(allocated_claims, features_);
    std::vector<const api::DeviceClass*> classes;
    for (const api::DeviceClass& c : s_.classes) classes.push_back(&c);
    alloc::AllocatorOptions alloc_options;
    if (options_.max_steps != 0) alloc_options.max_steps = options_.max_steps;
    alloc_options.device_choice = options_.device_choice;
    const uint64_t seed = options_.seed;
    uint64_t* counter = &share_counter_;
    alloc_options.new_share_id = [seed, counter] { return StableUid(fmt::format("share/{}/{}", seed, (*counter)++)); };
    allocator_ = std::make_unique<alloc::Allocator>(features_, std::move(state), std::move(classes), &index, selectors,
                                                    std::move(alloc_options));
    usage_.resize(s_.nodes.size());
    verdicts_.resize(kVerdictSlots);
    why_not_.resize(s_.nodes.size());
    handles_.resize(s_.nodes.size());
    allocatable_.reserve(s_.nodes.size());
    for (const api::Node& n : s_.nodes) allocatable_.push_back(NodeAllocatable(n));
    order_ = NodeTreeOrder(s_.nodes);
    extended_classes_ = ExtendedResourceClasses(s_.classes, s_.gates.enabled(api::Gate::kDRAExtendedResource));
    for (const api::Pod& p : s_.pods) {
      if (!IsActiveOnNode(p)) continue;
      std::optional<size_t> idx = node_index_.Find(p.spec.node_name);
      if (!idx) continue;
      NodeUsage& u = usage_[*idx];
      u.requested.Add(PodRequests(p));
      u.non_zero_requested.Add(PodRequests(p, /*non_zero=*/true));
    }
    if (options_.policy->uses_device_model()) {
      const WorkloadProfile* profile = options_.workload_profile;
      if (profile == nullptr) {
        std::vector<size_t> pending = options_.queue.empty()
                                          ? PendingQueue(s_)
                                          : std::vector<size_t>(options_.queue.begin(), options_.queue.end());
        own_profile_ = BuildProfile(ShapesOfPods(s_, pending), "pending pods");
        profile = &own_profile_;
      }
      result_.profile = profile->Describe();
      model_ = DeviceModel::New(s_, profile, selectors, features_);
    }
  }

  PodOutcome Run(size_t pod_idx);
  // A pod group's members (pending, in queue order) as one decision (gang.h).
  // When the group fails with GangMode::kUpstream, ScheduleOptions::after_pod
  // is called for its members here, before their tentative placements are
  // undone (the state each member's failure comes from); `*reported` says
  // so, and `*stop` whether after_pod asked to end the run.
  std::vector<PodOutcome> RunGroup(const GroupEntity& entity, GroupOutcome* group, bool* reported, bool* stop);

 private:
  // One placement a gang search tries for a member: a node and the
  // allocations of the claims the pod allocates there (in the order
  // ClaimsPerNode::For gives), found in the state the member is placed in.
  struct Choice {
    size_t node = 0;
    int64_t score = 0;
    std::vector<api::AllocationResult> allocations;
    // What the allocations take: devices, then the counters and consumed
    // capacity they use (all amounts added up). The search tries the
    // leanest first.
    int64_t devices = 0;
    double amounts = 0;
    bool packs = false;  // on a node the group's placed members use
  };
  // Undo of one member's Reserve and Bind while a group cycle is open
  // (logging_): what the placement changed, restored by UndoTo.
  struct ClaimBefore {
    size_t claim = 0;
    std::optional<api::AllocationResult> allocation;
    std::vector<api::ResourceClaimConsumerReference> reserved_for;
    std::vector<std::string> finalizers;
  };
  struct PlacementUndo {
    size_t pod_idx = 0;
    size_t node = 0;
    Resources requests{};
    NodeUsage usage_before{};
    bool usage_added = false;
    std::vector<api::AllocationResult> allocations;  // added to the allocator (and model)
    std::vector<ClaimBefore> claims;
    bool bound = false;
    std::optional<api::PodExtendedResourceClaimStatus> extended_before;
    bool created_claim = false;                                       // Bind appended the extended-resource claim
    size_t changed_pods = 0, changed_claims = 0, created_claims = 0;  // result_ sizes before
    // A group member whose PreBind will fail once its group is placed
    // (Reserve; BindingCycles), with its non-zero requests to forget.
    bool prebind_fails = false;
    Resources non_zero_requests{};
  };
  std::vector<PlacementUndo> undo_;
  bool logging_ = false;    // record PlacementUndo entries
  bool in_group_ = false;   // no pod classes (their caches assume nodes only fill up)
  bool all_nodes_ = false;  // Filter every node from the first; next_start_node_ stays
  size_t Mark() const { return undo_.size(); }
  void UndoTo(size_t mark);
  // The binding cycles of a placed group's members whose PreBind fails
  // (PlacementUndo::prebind_fails, from `mark` on): each is unreserved and
  // forgotten, and its outcome in `outs` (per entity.pods) becomes
  // PreBind's error. Then counts group->placed.
  void BindingCycles(size_t mark, const GroupEntity& entity, std::vector<PodOutcome>& outs, GroupOutcome* group);
  // The group cycle's parts (gang.h has the texts).
  struct GangSearch;
  // The member's placements in the current state: on the nodes from
  // `min_node` on (indices into s_.nodes), upstream's node first, then by
  // score (with `by_index`, in node order), at most max_nodes of them and
  // every node of `used` (sorted: the nodes the group's placed members
  // use), each with up to max_allocations device choices. `*steps` grows by
  // the nodes filtered and the allocator's steps.
  std::vector<Choice> Choices(size_t pod_idx, size_t min_node, bool by_index, std::span<const size_t> used,
                              uint64_t* steps);
  bool SameMember(size_t a, size_t b);
  void Search(GangSearch& gs, size_t i, size_t placed);
  bool RunSearch(const GroupEntity& entity, size_t min_count, size_t scheduled, std::vector<PodOutcome>* outs,
                 GroupOutcome* group);
  // How a pass over a group's members ended.
  struct GroupPass {
    PodOutcome::Kind kind = PodOutcome::Kind::kUnschedulable;
    // Upstream's status as its Message() prints it (with "pod group is
    // unschedulable, " first where the status wraps errPodGroupUnschedulable)
    // and as AsError() does (that error alone then), which
    // podGroupSchedulingPlacementAlgorithm quotes for the first placement.
    std::string message;
    std::string error_text;
    size_t tried = 0;  // members tried, in order
  };

  // kube-scheduler's podGroupSchedulingDefaultAlgorithm: the members in
  // order, each placed (undoably) before the next is tried; they stay.
  GroupPass DefaultAlgorithm(const GroupEntity& entity, size_t min_count, size_t scheduled_before,
                             std::vector<PodOutcome>& outs);
  // podGroupSchedulingPlacementAlgorithm (TopologyAwareWorkloadScheduling):
  // DefaultAlgorithm in each placement, undone, then again in the best one.
  GroupPass PlacementAlgorithm(const GroupEntity& entity, const GroupPlacements& placements, size_t min_count,
                               size_t scheduled_before, std::vector<PodOutcome>& outs, GroupOutcome* group);
  // The search of GangMode::kSearch in each placement; the best one placed.
  bool SearchPlacements(const GroupEntity& entity, const GroupPlacements& placements, size_t min_count,
                        size_t scheduled_before, std::vector<PodOutcome>* outs, GroupOutcome* group);
  // Filter sees only the placement's nodes (view_), and its excluded
  // devices are kept out of the allocator's searches, until LeavePlacement.
  void EnterPlacement(const GroupPlacement& placement);
  void LeavePlacement(const GroupPlacement& placement);
  // PodGroupPodsCount's raw score and NodeResourcesFit's ScorePlacement
  // (MostAllocated over cpu and memory, summed over the placement's nodes,
  // the members `outs` placed counted with the nodes' pods).
  int64_t PlacementFitScore(const GroupPlacement& placement, const GroupEntity& entity,
                            const std::vector<PodOutcome>& outs) const;
  // The nodes Filter walks: view_ when set (a placement), else all.
  std::vector<size_t> view_;
  size_t NumNodes() const { return view_.empty() ? s_.nodes.size() : view_.size(); }
  size_t NodeAt(size_t k) const { return view_.empty() ? k : view_[k]; }

  // PreEnqueue: why the pod is not tried at all, or nullopt. Out of line: in
  // Run, with the pod-group check, GCC 12 compiled Run's per-node loop worse
  // (bench/RESULTS.md, "PreEnqueue out of line").
  [[gnu::noinline]] std::optional<std::string> PreEnqueue(const api::Pod& pod) const {
    if (const api::RawJson* gates = pod.spec.extra.find("schedulingGates"); gates != nullptr && *gates != "[]") {
      return "waiting for scheduling gates: " + *gates;
    }
    if (const std::string& name = pod.spec.scheduler_name.empty() ? "default-scheduler" : pod.spec.scheduler_name;
        name != options_.scheduler_name) {
      return fmt::format("spec.schedulerName is \"{}\", not {}", name, options_.scheduler_name);
    }
    return std::nullopt;
  }

  PodOutcome Fail(PodOutcome out, PodOutcome::Kind kind, std::string message) {
    out.kind = kind;
    out.message = std::move(message);
    return out;
  }
  // Drops the DRA verdicts of the nodes in changed_nodes_.
  void ForgetVerdicts() {
    for (const std::string& name : changed_nodes_) {
      if (std::optional<size_t> idx = node_index_.Find(name)) {
        for (std::vector<DraVerdict>& slot : verdicts_) {
          if (!slot.empty()) slot[*idx] = DraVerdict{};
        }
      }
    }
    changed_nodes_.clear();
  }
  // The verdict remembered for `signature` on a node: direct-mapped, one of
  // kVerdictSlots by signature, so that pods of different templates
  // arriving in turn (a trace) each find theirs. Slot-major: each slot holds
  // one verdict per node, made on the slot's first use, so that a pod's walk
  // over the nodes reads consecutive verdicts (node-major, one 5 KiB table
  // per node, every read was a cache miss: about half the time of a
  // 5,000-node run, bench/RESULTS.md "Filter's verdict table").
  static constexpr size_t kVerdictSlots = 128;
  DraVerdict& VerdictSlot(size_t node_idx, uint32_t signature) {
    std::vector<DraVerdict>& slot = verdicts_[signature % kVerdictSlots];
    if (slot.empty()) slot.resize(s_.nodes.size());
    return slot[node_idx];
  }
  // Keeps why the pod's claims do not fit on the node (the allocator's
  // reason); Unschedulable asks again when the one kept is about other claims (a
  // remembered verdict's reason may have been overwritten since).
  void WhyNot(size_t node_idx, uint32_t signature, std::span<const api::ResourceClaim* const> to_allocate,
              alloc::Reason reason) {
    DraWhyNot& why = why_not_[node_idx];
    why.reason = std::move(reason);
    why.signature = signature;
    why.reason_claim = -1;
    for (size_t i = 0; i < to_allocate.size(); ++i) {
      if (HasObjectKey(to_allocate[i]->metadata, why.reason.claim)) why.reason_claim = static_cast<int>(i);
    }
  }
  NodeState StateOf(size_t node_idx) const;
  NodeState StateOf(size_t node_idx, int64_t devices, int64_t devices_in_use) const;
  // Pods that Filter treats alike in this run (texts off): the same
  // requests, claims (signature), tolerations and node selection. Nodes only
  // fill up during a run (no filter here passes a node that more pods or
  // allocations on it would fail), so a node that turned one of them down
  // turns down every later one, and a class that fit no node fits none.
  struct PodClass {
    size_t pod = 0;  // its first pod, into s_.pods
    Resources requests{};
    uint32_t signature = 0;
    size_t members = 0;  // pods filtered so far
    bool failed = false;
    // A bit per node of s_.nodes that turned the class down, from its second
    // pod on (a class of one pod never reads it); empty past the budget.
    std::vector<uint64_t> rejected;
  };
  // By signature, cpu and memory (a scan per pod would grow with the classes
  // when pods all differ).
  static uint64_t ClassKey(const Resources& requests, uint32_t signature) {
    return (static_cast<uint64_t>(signature) * 0x9E3779B97F4A7C15ULL) ^ static_cast<uint64_t>(requests.milli_cpu) * 31 ^
           static_cast<uint64_t>(requests.memory);
  }
  std::unordered_multimap<uint64_t, size_t> class_index_;  // into classes_
  std::vector<PodClass> classes_;
  size_t rejected_words_ = 0;                                       // in all classes' `rejected`
  static constexpr size_t kRejectedWordsBudget = size_t{32} << 20;  // 256 MiB
  PodClass& ClassOf(size_t pod_idx, const Resources& requests, uint32_t signature) {
    const api::PodSpec& spec = s_.pods[pod_idx].spec;
    const uint64_t key = ClassKey(requests, signature);
    auto [begin, end] = class_index_.equal_range(key);
    for (auto it = begin; it != end; ++it) {
      PodClass& c = classes_[it->second];
      if (c.signature != signature || !(c.requests == requests)) continue;
      const api::PodSpec& other = s_.pods[c.pod].spec;
      if (other.tolerations == spec.tolerations && other.node_selector == spec.node_selector &&
          other.affinity == spec.affinity) {
        if (++c.members == 2 && rejected_words_ + s_.nodes.size() / 64 + 1 <= kRejectedWordsBudget) {
          c.rejected.assign(s_.nodes.size() / 64 + 1, 0);
          rejected_words_ += c.rejected.size();
        }
        return c;
      }
    }
    class_index_.emplace(key, classes_.size());
    return classes_.emplace_back(PodClass{
        .pod = pod_idx, .requests = requests, .signature = signature, .members = 1, .failed = false, .rejected = {}});
  }

  // One pod's scheduling cycle, handed from phase to phase (Run) by
  // reference; never moved: claims_per_node refers to requests and
  // to_allocate.
  struct Cycle {
    size_t pod_idx = 0;
    const Choice* forced = nullptr;  // a gang search's choice: no Filter or Score
    const api::Pod* pod = nullptr;   // &s_.pods[pod_idx], once the claim controller ran
    PodOutcome out;
    // PreFilter.
    std::vector<PodClaimRef> refs;
    std::vector<const api::ResourceClaim*> all_claims;  // per entry of refs
    std::vector<const api::ResourceClaim*> to_allocate;
    std::vector<bool> allocated_before;  // per entry of refs
    Resources requests{};
    Resources non_zero_requests{};
    std::optional<ClaimsPerNode> claims_per_node;
    bool extended = false;
    bool stale_extended_claim = false;
    // Classify.
    int64_t allocated_raw_score = 0;
    uint32_t signature = 0;
    PodClass* pod_class = nullptr;
    // Filter.
    std::vector<Candidate> feasible;
    // Score and select.
    Packing packing = Packing::kNone;
    PodDemand demand;
    size_t best = 0;  // into feasible
    int64_t best_score = 0;
    // Reserve.
    std::vector<api::AllocationResult> allocations;  // of the claims to allocate on the chosen node
    bool allocate_extended = false;
  };
  // The phases of Run, in order. Each returns the pod's outcome when the
  // cycle ends there, else nullopt.
  void RunClaimController(size_t pod_idx);
  PodOutcome RunCycle(size_t pod_idx, const Choice* forced);
  std::optional<PodOutcome> PreFilter(Cycle& c);
  std::optional<PodOutcome> Classify(Cycle& c);
  std::optional<PodOutcome> Filter(Cycle& c);
  // The packing policies compare every node unless told otherwise.
  int32_t PercentageToScore() const {
    return options_.percentage_of_nodes_to_score == 0 && options_.policy->packing() != Packing::kNone
               ? 100
               : options_.percentage_of_nodes_to_score;
  }
  Status FilterDra(size_t node_idx, const std::vector<const api::ResourceClaim*>& node_to_allocate,
                   const alloc::PreparedClaims& prepared, uint32_t node_signature,
                   std::span<const api::ResourceClaim* const> to_allocate, DraVerdict& verdict);
  PodOutcome Unschedulable(Cycle& c);
  NodeRejection RejectionOf(Cycle& c, const Rejected& r, std::vector<std::string>& claim_keys);
  void ScoreAndSelect(Cycle& c);
  std::optional<PodOutcome> Reserve(Cycle& c);
  PodOutcome PreBindWithoutMappings(Cycle& c, PlacementUndo* undo);
  PodOutcome Bind(Cycle& c);

  Snapshot& s_;
  const ScheduleOptions& options_;
  const alloc::Features& features_;
  ScheduleResult& result_;
  uint64_t share_counter_ = 0;
  Status state_error_;  // the allocated claims could not be added up
  std::unique_ptr<alloc::Allocator> allocator_;
  // The signature of claims to allocate that all come from templates in this
  // run (0: some do not, nothing is remembered).
  uint32_t Signature(std::span<const api::ResourceClaim* const> to_allocate);
  // A claim the resource-claim controller made for `pod` before this run
  // (dractl plan schedules a cluster whose pending pods have their claims):
  // from its template as well when its spec is still the template's.
  void RememberTemplate(const api::Pod& pod, size_t claim_idx);

  std::vector<NodeUsage> usage_;                   // per node of s_.nodes
  std::vector<std::vector<DraVerdict>> verdicts_;  // kVerdictSlots, each empty or per node of s_.nodes: VerdictSlot
  std::vector<DraWhyNot> why_not_;                 // per node of s_.nodes
  alloc::NodeFit filter_fit_;                      // FilterDra's, reused
  std::vector<std::string> changed_nodes_;         // AddAllocation's, reused
  mutable std::vector<alloc::Allocator::NodeHandle> handles_;  // per node of s_.nodes, resolved on first use
  alloc::Allocator::NodeHandle HandleOf(size_t node_idx) const {
    alloc::Allocator::NodeHandle& h = handles_[node_idx];
    if (!h.valid()) h = allocator_->Handle(s_.nodes[node_idx]);
    return h;
  }
  std::vector<Rejected> rejected_;  // this pod's, reused
  // Per claim of s_.claims: the template it was created from in this run
  // (its spec is a copy of the template's), or before it with the spec still
  // the template's (RememberTemplate), else nullptr.
  std::vector<const api::ResourceClaimTemplate*> from_template_;
  std::vector<bool> template_checked_;  // by RememberTemplate
  std::map<std::vector<const api::ResourceClaimTemplate*>, uint32_t> signatures_;
  std::vector<Resources> allocatable_;  // per node of s_.nodes
  // Policies that score on the devices (fgd, dra-pack; policy.h).
  WorkloadProfile own_profile_;
  std::unique_ptr<DeviceModel> model_;
  std::vector<int64_t> scores_;          // per feasible node, reused
  std::vector<int64_t> preference_raw_;  // per feasible node: taint, affinity raw scores (kube), reused
  // Some node has a PreferNoSchedule taint (nodes do not change in a run):
  // else TaintToleration scores 100 everywhere and nothing is computed.
  bool prefer_no_schedule_taints_ = false;
  // Content of the templates seen in this run: a template with the same
  // spec as an earlier one stands for it (Signature).
  std::unordered_map<const api::ResourceClaimTemplate*, const api::ResourceClaimTemplate*> canonical_;
  std::unordered_map<std::string, std::vector<const api::ResourceClaimTemplate*>> distinct_;
  const api::ResourceClaimTemplate* Canonical(const api::ResourceClaimTemplate* t);
  const NodeIndex& node_index_;
  ExtendedResourceClasses extended_classes_;  // extended resources backed by DRA (§6)
  size_t next_start_node_ = 0;                // kube-scheduler's nextStartNodeIndex
  // Filter's walk over all nodes (NodeTreeOrder: zones round-robin); empty:
  // name order (indices into s_.nodes).
  std::vector<size_t> order_;
};

const api::ResourceClaimTemplate* Scheduler::Canonical(const api::ResourceClaimTemplate* t) {
  auto [it, inserted] = canonical_.emplace(t, t);
  if (!inserted) return it->second;
  const api::ResourceClaimSpec* spec[] = {&t->spec.spec};
  std::vector<const api::ResourceClaimTemplate*>& bucket = distinct_[ShapeOf(0, 0, spec).key];
  for (const api::ResourceClaimTemplate* other : bucket) {
    if (other->spec.spec == t->spec.spec) return it->second = other;
  }
  bucket.push_back(t);
  return t;
}

void Scheduler::RememberTemplate(const api::Pod& pod, size_t claim_idx) {
  if (claim_idx < from_template_.size() && from_template_[claim_idx] != nullptr) return;
  if (claim_idx < template_checked_.size() && template_checked_[claim_idx]) return;
  if (template_checked_.size() <= claim_idx) template_checked_.resize(s_.claims.size(), false);
  template_checked_[claim_idx] = true;
  const api::ResourceClaim& claim = s_.claims[claim_idx];
  const std::string* pod_claim = claim.metadata.annotations.find(kPodClaimNameAnnotation);
  if (pod_claim == nullptr || !IsControlledBy(claim, pod)) return;
  for (const api::PodResourceClaim& prc : pod.spec.resource_claims) {
    if (prc.name != *pod_claim || !prc.resource_claim_template_name) continue;
    const api::ResourceClaimTemplate* tmpl =
        s_.FindTemplate(claim.metadata.namespace_, *prc.resource_claim_template_name);
    if (tmpl == nullptr || !(tmpl->spec.spec == claim.spec)) return;
    if (from_template_.size() <= claim_idx) from_template_.resize(s_.claims.size(), nullptr);
    from_template_[claim_idx] = tmpl;
    return;
  }
}

uint32_t Scheduler::Signature(std::span<const api::ResourceClaim* const> to_allocate) {
  // Claims from templates with equal specs decide alike on every node: the
  // key is the first template seen with each spec.
  std::vector<const api::ResourceClaimTemplate*> key;
  for (const api::ResourceClaim* c : to_allocate) {
    const auto claim_idx = static_cast<size_t>(c - s_.claims.data());
    if (claim_idx >= from_template_.size() || from_template_[claim_idx] == nullptr) return 0;
    key.push_back(Canonical(from_template_[claim_idx]));
  }
  auto [it, inserted] = signatures_.emplace(std::move(key), static_cast<uint32_t>(signatures_.size() + 1));
  return it->second;
}

NodeState Scheduler::StateOf(size_t node_idx) const {
  alloc::Allocator::DeviceCount count = allocator_->CountDevices(HandleOf(node_idx));
  return StateOf(node_idx, count.devices, count.in_use);
}

NodeState Scheduler::StateOf(size_t node_idx, int64_t devices, int64_t devices_in_use) const {
  return NodeState{.node = &s_.nodes[node_idx],
                   .allocatable = &allocatable_[node_idx],
                   .requested = &usage_[node_idx].requested,
                   .non_zero_requested = &usage_[node_idx].non_zero_requested,
                   .devices = devices,
                   .devices_in_use = devices_in_use};
}

PodOutcome Scheduler::Run(size_t pod_idx) {
  Cycle c;
  c.pod_idx = pod_idx;
  c.out.pod = ObjectKey(s_.pods[pod_idx].metadata);
  RunClaimController(pod_idx);
  c.pod = &s_.pods[pod_idx];
  if (std::optional<std::string> why = PreEnqueue(*c.pod)) {
    return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable, std::move(*why));
  }
  if (std::optional<PodOutcome> end = PreFilter(c)) return std::move(*end);
  if (std::optional<PodOutcome> end = Classify(c)) return std::move(*end);
  if (std::optional<PodOutcome> end = Filter(c)) return std::move(*end);
  if (c.feasible.empty()) return Unschedulable(c);
  ScoreAndSelect(c);
  if (std::optional<PodOutcome> end = Reserve(c)) return std::move(*end);
  return Bind(c);
}

// A group member's cycle after PreEnqueue (checked for the whole group):
// with `forced`, the search's choice instead of Filter and Score.
PodOutcome Scheduler::RunCycle(size_t pod_idx, const Choice* forced) {
  Cycle c;
  c.pod_idx = pod_idx;
  c.forced = forced;
  c.out.pod = ObjectKey(s_.pods[pod_idx].metadata);
  c.pod = &s_.pods[pod_idx];
  if (std::optional<PodOutcome> end = PreFilter(c)) return std::move(*end);
  if (std::optional<PodOutcome> end = Classify(c)) return std::move(*end);
  if (forced != nullptr) {
    c.feasible = {Candidate{.node = forced->node, .dra = !forced->allocations.empty()}};
    c.best = 0;
    c.best_score = forced->score;
  } else {
    if (std::optional<PodOutcome> end = Filter(c)) return std::move(*end);
    if (c.feasible.empty()) return Unschedulable(c);
    ScoreAndSelect(c);
  }
  if (std::optional<PodOutcome> end = Reserve(c)) return std::move(*end);
  return Bind(c);
}

// The resource-claim controller runs independently of scheduling.
void Scheduler::RunClaimController(size_t pod_idx) {
  std::vector<size_t> created;
  if (options_.create_template_claims) created = EnsurePodClaims(&s_, pod_idx);
  from_template_.resize(s_.claims.size(), nullptr);
  if (!created.empty()) {
    result_.changed_pods.push_back(pod_idx);
    for (size_t c : created) {
      result_.created_claims.push_back(c);
      result_.changed_claims.push_back(c);
      const api::ResourceClaim& claim = s_.claims[c];
      // The pod claim it was made for names the template (pod_claims.h).
      const std::string* pod_claim = claim.metadata.annotations.find(kPodClaimNameAnnotation);
      for (const api::PodResourceClaim& prc : s_.pods[pod_idx].spec.resource_claims) {
        if (pod_claim == nullptr || prc.name != *pod_claim || !prc.resource_claim_template_name) continue;
        const api::ResourceClaimTemplate* tmpl =
            s_.FindTemplate(claim.metadata.namespace_, *prc.resource_claim_template_name);
        if (tmpl != nullptr) from_template_[c] = tmpl;
      }
    }
  }
}

// PreFilter.
std::optional<PodOutcome> Scheduler::PreFilter(Cycle& c) {
  const api::Pod& pod = *c.pod;
  StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(s_, pod);
  if (!refs.ok()) {
    std::string message(refs.status().message());
    // Upstream's text, and why the claim was never made when a template is
    // missing from the pod's namespace (the controller waits for it).
    if (std::string missing = MissingTemplates(s_, pod); !missing.empty()) message += ": " + missing;
    return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable, std::move(message));
  }
  c.refs = std::move(*refs);

  const size_t num_nodes = NumNodes();
  for (const PodClaimRef& ref : c.refs) {
    const api::ResourceClaim* claim = &s_.claims[ref.claim];
    if (!claim->status.allocation) RememberTemplate(pod, ref.claim);
    c.all_claims.push_back(claim);
    c.allocated_before.push_back(claim->status.allocation.has_value());
    if (!claim->status.allocation) c.to_allocate.push_back(claim);
  }
  if (!state_error_.ok()) {
    return Fail(std::move(c.out), PodOutcome::Kind::kError,
                fmt::format("running PreFilter plugin \"{}\": {}", kDynamicResourcesPlugin, state_error_.message()));
  }
  const alloc::Allocator& allocator = *allocator_;
  for (const api::ResourceClaim* claim : c.to_allocate) {
    StatusOr<std::optional<std::string>> check = CheckClaimRequests(*claim, allocator, features_);
    if (!check.ok()) {
      return Fail(
          std::move(c.out), PodOutcome::Kind::kError,
          fmt::format("running PreFilter plugin \"{}\": {}", kDynamicResourcesPlugin, check.status().message()));
    }
    if (*check) {
      return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable,
                  fmt::format("0/{} nodes are available: {}.", num_nodes, **check));
    }
  }

  // Extended resources backed by DRA (§6): the pod's special claim is built
  // per node in Filter. One left from an earlier attempt that has requests
  // makes every node unfit (upstream's PostFilter then deletes it).
  c.requests = PodRequests(pod);
  c.non_zero_requests = PodRequests(pod, /*non_zero=*/true);
  c.claims_per_node.emplace(pod, c.requests, extended_classes_, c.to_allocate);
  c.extended = c.claims_per_node->extended();
  if (c.extended) {
    std::optional<size_t> old = FindExtendedResourceClaim(s_, pod);
    c.stale_extended_claim = old && !s_.claims[*old].spec.devices.requests.empty();
  }
  return std::nullopt;
}

// Filter, before the nodes: what holds on every node, and the pod's class.
std::optional<PodOutcome> Scheduler::Classify(Cycle& c) {
  const api::Pod& pod = *c.pod;
  // The claims allocated before count the same on every node.
  for (size_t i = 0; i < c.all_claims.size(); ++i) {
    if (c.allocated_before[i] && features_.prioritized_list) {
      c.allocated_raw_score += PrioritizedListScore(*c.all_claims[i], *c.all_claims[i]->status.allocation);
    }
  }
  c.signature = Signature(c.to_allocate);
  // Without texts, a pod that Filter treats as one that fit no node earlier
  // in this run fails at once: nodes only fill up during a run (no filter
  // here passes a node that more pods or allocations on it would fail), and
  // its claims are fresh ones from templates of equal specs.
  const bool comparable = !options_.unschedulable_texts && !in_group_ && !c.extended && pod.spec.node_name.empty() &&
                          c.to_allocate.size() == c.all_claims.size() && (c.to_allocate.empty() || c.signature != 0);
  c.pod_class = comparable ? &ClassOf(c.pod_idx, c.requests, c.signature) : nullptr;
  if (c.pod_class != nullptr && c.pod_class->failed) {
    return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable,
                fmt::format("0/{} nodes are available.", NumNodes()));
  }
  return std::nullopt;
}

// Filter: the nodes that fit, into c.feasible.
std::optional<PodOutcome> Scheduler::Filter(Cycle& c) {
  const api::Pod& pod = *c.pod;
  const size_t num_nodes = NumNodes();
  // Locals, not reads through `c` after every call, in the loop.
  const Resources& requests = c.requests;
  const std::span<const api::ResourceClaim* const> all_claims = c.all_claims;
  const std::span<const api::ResourceClaim* const> to_allocate = c.to_allocate;
  ClaimsPerNode& claims_per_node = *c.claims_per_node;
  const bool extended = c.extended;
  const bool stale_extended_claim = c.stale_extended_claim;
  const uint32_t signature = c.signature;
  // (No pod classes in a group cycle, so none while a placement's view_ is set.)
  std::vector<uint64_t>* known_rejected =
      c.pod_class != nullptr && !c.pod_class->rejected.empty() ? &c.pod_class->rejected : nullptr;
  const bool record_rejected = options_.unschedulable_texts;
  rejected_.clear();
  std::vector<Candidate> feasible;
  const size_t want_feasible = all_nodes_ ? num_nodes : NumFeasibleNodesToFind(PercentageToScore(), num_nodes);
  const size_t start_node = all_nodes_ ? 0 : next_start_node_;
  feasible.reserve(want_feasible);
  const alloc::PreparedClaims prepared(to_allocate);  // once for every node (FilterDra)
  // A filter that passes every node for this pod is not called: a call costs
  // ~20 instructions even when it returns at once, on every node.
  const bool has_node_name = !pod.spec.node_name.empty();
  const bool has_node_affinity = HasNodeAffinity(pod);
  // A placement's nodes (a local: the loop's calls could change a member),
  // else the zones' order if the nodes have zones.
  const size_t* const view = !view_.empty() ? view_.data() : !order_.empty() ? order_.data() : nullptr;
  // Upstream (with parallelism 1) stops at the feasible node after the
  // want_feasible-th: that one is dropped and not counted as processed, the
  // nodes rejected before it are. Every node is processed when no such node
  // comes.
  size_t processed = 0;
  for (; processed < num_nodes; ++processed) {
    const size_t k = (start_node + processed) % num_nodes;
    const size_t node_idx = view == nullptr ? k : view[k];
    if (known_rejected != nullptr) {
      // Nodes that turned this pod's class down: passed over, as processed
      // (a run of them in name order; one at a time in the zones' order).
      const size_t skip = view == nullptr ? std::min(OnesFrom(*known_rejected, node_idx), num_nodes - processed)
                                          : ((*known_rejected)[node_idx / 64] >> (node_idx % 64)) & 1;
      if (skip > 0) {
        processed += skip - 1;
        continue;
      }
    }
    const api::Node& node = s_.nodes[node_idx];
    auto reject = [&](const char* plugin, Rejected::Why why) {
      if (record_rejected) rejected_.push_back(Rejected{.node = node_idx, .plugin = plugin, .why = why});
      if (known_rejected != nullptr) (*known_rejected)[node_idx / 64] |= uint64_t{1} << (node_idx % 64);
    };
    // The filters decide without texts: about half the nodes of a busy
    // cluster are turned down, and their texts are only read if the pod fits
    // nowhere (then the filters run again, in Unschedulable).
    if (node.spec.unschedulable && !FilterUnschedulable(pod, node, nullptr)) {
      reject("NodeUnschedulable", Rejected::kUnschedulable);
      continue;
    }
    if (has_node_name && !FilterNodeName(pod, node, nullptr)) {
      reject("NodeName", Rejected::kNodeName);
      continue;
    }
    if (!node.spec.taints.empty() && !FilterTaints(pod, node, nullptr)) {
      reject("TaintToleration", Rejected::kTaints);
      continue;
    }
    if (has_node_affinity) {
      StatusOr<bool> affinity = FilterNodeAffinity(pod, node, nullptr);
      if (!affinity.ok()) {
        return Fail(std::move(c.out), PodOutcome::Kind::kError,
                    fmt::format("running \"NodeAffinity\" filter plugin: {}", affinity.status().message()));
      }
      if (!*affinity) {
        reject("NodeAffinity", Rejected::kNodeAffinity);
        continue;
      }
    }
    if (!FilterResources(requests, usage_[node_idx].requested, allocatable_[node_idx], &extended_classes_, nullptr)) {
      reject("NodeResourcesFit", Rejected::kResources);
      continue;
    }
    // DynamicResources (§4.4), extended resources first (§6.2).
    if (extended) {
      if (stale_extended_claim) {
        reject(kDynamicResourcesPlugin, Rejected::kStaleExtendedClaim);
        continue;
      }
      if (ResourcesServedByDra(requests, allocatable_[node_idx], extended_classes_).cannot_fit) {
        reject(kDynamicResourcesPlugin, Rejected::kExtendedCannotFit);
        continue;
      }
    }
    const std::vector<const api::ResourceClaim*>& node_to_allocate = claims_per_node.For(allocatable_[node_idx]);
    if (all_claims.empty() && node_to_allocate.empty()) {
      if (feasible.size() == want_feasible) break;
      feasible.push_back(Candidate{.node = node_idx});
      continue;
    }
    bool unavailable = false;
    for (const api::ResourceClaim* claim : all_claims) {
      if (!claim->status.allocation || !claim->status.allocation->node_selector) continue;
      StatusOr<bool> match =
          api::MatchesNodeSelector(*claim->status.allocation->node_selector, node.metadata.name, node.metadata.labels);
      if (!match.ok()) {
        return Fail(std::move(c.out), PodOutcome::Kind::kError,
                    fmt::format("running PreFilter plugin \"{}\": claim {}: {}", kDynamicResourcesPlugin,
                                ObjectKey(claim->metadata), match.status().message()));
      }
      if (!*match) unavailable = true;
    }
    Candidate cand{.node = node_idx, .dra = !node_to_allocate.empty()};
    if (!node_to_allocate.empty()) {
      // A special claim is built for this node: nothing to remember.
      const uint32_t node_signature = node_to_allocate.size() == to_allocate.size() ? signature : 0;
      DraVerdict scratch;
      DraVerdict& verdict = node_signature == 0 ? scratch : VerdictSlot(node_idx, node_signature);
      if (node_signature == 0 || verdict.signature != node_signature) {
        if (Status st = FilterDra(node_idx, node_to_allocate, prepared, node_signature, to_allocate, verdict);
            !st.ok()) {
          return Fail(std::move(c.out), PodOutcome::Kind::kError,
                      fmt::format("running \"{}\" filter plugin: {}", kDynamicResourcesPlugin, st.message()));
        }
      }
      if (!verdict.fits) {
        reject(kDynamicResourcesPlugin, verdict.invalid_pools ? Rejected::kInvalidPools : Rejected::kCannotAllocate);
        continue;
      }
      cand.devices = verdict.devices;
      cand.devices_in_use = verdict.devices_in_use;
      cand.devices_taken = verdict.devices_taken;
      cand.raw_score = verdict.raw_score;
    }
    if (unavailable) {
      reject(kDynamicResourcesPlugin, Rejected::kNotAvailable);
      continue;
    }
    if (feasible.size() == want_feasible) break;
    feasible.push_back(cand);
  }
  if (num_nodes > 0 && !all_nodes_) next_start_node_ = (next_start_node_ + processed) % num_nodes;
  if (feasible.empty() && !options_.unschedulable_texts) {
    if (c.pod_class != nullptr) c.pod_class->failed = true;
    return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable,
                fmt::format("0/{} nodes are available.", num_nodes));
  }
  c.feasible = std::move(feasible);
  return std::nullopt;
}

// DynamicResources' Filter on a node whose verdict for these claims is not
// remembered (or not kept: node_signature 0): the allocator decides, into
// `verdict`. `prepared`: the pod's claims, node_to_allocate when
// node_signature is not 0.
// Returns the allocator's error, with `verdict` cleared.
Status Scheduler::FilterDra(size_t node_idx, const std::vector<const api::ResourceClaim*>& node_to_allocate,
                            const alloc::PreparedClaims& prepared, uint32_t node_signature,
                            std::span<const api::ResourceClaim* const> to_allocate, DraVerdict& verdict) {
  const alloc::Allocator& allocator = *allocator_;
  const alloc::Allocator::NodeHandle handle = HandleOf(node_idx);
  constexpr auto kSummary = alloc::Allocator::ResultDetail::kSummary;
  alloc::NodeFit& fit = filter_fit_;  // its buffers serve every node
  Status st = node_signature != 0 ? allocator.AllocateInto(handle, prepared, kSummary, fit)
                                  : allocator.AllocateInto(handle, node_to_allocate, kSummary, fit);
  if (!st.ok()) {
    verdict = DraVerdict{};
    return st;
  }
  verdict = DraVerdict{.signature = node_signature, .fits = fit.fits};
  verdict.invalid_pools = !fit.fits && fit.reason.invalid_pools;
  if (fit.fits) {
    for (size_t i = 0; i < node_to_allocate.size(); ++i) {
      const api::AllocationResult& a = fit.results[i];
      if (features_.prioritized_list) verdict.raw_score += PrioritizedListScore(*node_to_allocate[i], a);
      for (const auto& r : a.devices.results) {
        if (!r.admin_access.value_or(false) && !r.share_id) ++verdict.devices_taken;
      }
    }
    alloc::Allocator::DeviceCount count = allocator.CountDevices(handle);
    verdict.devices = count.devices;
    verdict.devices_in_use = count.in_use;
  } else {
    WhyNot(node_idx, node_signature, to_allocate, std::move(fit.reason));
  }
  return OkStatus();
}

// The texts of one rejection of Filter (the filter that turned the node
// down runs again, now with texts). `claim_keys` caches the keys of
// c.to_allocate across calls.
NodeRejection Scheduler::RejectionOf(Cycle& c, const Rejected& r, std::vector<std::string>& claim_keys) {
  const api::Pod& pod = *c.pod;
  const alloc::Allocator& allocator = *allocator_;
  const api::Node& node = s_.nodes[r.node];
  NodeRejection rejection{
      .node = node.metadata.name, .plugin = r.plugin, .reasons = {}, .detail = {}, .dra_reason = {}};
  if ((r.why == Rejected::kCannotAllocate || r.why == Rejected::kInvalidPools) &&
      why_not_[r.node].signature != c.signature) {
    // A remembered verdict whose reason was overwritten since: the same
    // claims on the same node give the same reason.
    const std::vector<const api::ResourceClaim*>& node_to_allocate = c.claims_per_node->For(allocatable_[r.node]);
    StatusOr<alloc::NodeFit> fit =
        allocator.Allocate(HandleOf(r.node), node_to_allocate, alloc::Allocator::ResultDetail::kSummary);
    if (fit.ok() && !fit->fits) WhyNot(r.node, c.signature, c.to_allocate, std::move(fit->reason));
  }
  const DraWhyNot& memo = why_not_[r.node];
  std::vector<std::string>* texts = &rejection.reasons;
  switch (r.why) {
    // The same filters on the same state as in Filter: the same verdict,
    // now with its texts.
    case Rejected::kUnschedulable: FilterUnschedulable(pod, node, texts); break;
    case Rejected::kNodeName: FilterNodeName(pod, node, texts); break;
    case Rejected::kTaints: FilterTaints(pod, node, texts); break;
    case Rejected::kNodeAffinity:
      // It succeeded on this node in Filter (an error returned at once).
      (void)FilterNodeAffinity(pod, node, texts);
      break;
    case Rejected::kResources:
      FilterResources(c.requests, usage_[r.node].requested, allocatable_[r.node], &extended_classes_, texts);
      break;
    case Rejected::kStaleExtendedClaim: rejection.reasons = {"cannot schedule extended resource claim"}; break;
    case Rejected::kExtendedCannotFit: rejection.reasons = {"cannot fit resource"}; break;
    case Rejected::kInvalidPools:
      rejection.reasons = {memo.reason.message};
      rejection.detail = memo.reason.message;
      break;
    case Rejected::kCannotAllocate: {
      rejection.reasons = {"cannot allocate all claims"};
      alloc::Reason reason = memo.reason;
      if (memo.reason_claim >= 0) {
        if (claim_keys.empty()) {
          for (const api::ResourceClaim* claim : c.to_allocate) claim_keys.push_back(ObjectKey(claim->metadata));
        }
        reason.claim = claim_keys[static_cast<size_t>(memo.reason_claim)];
      }
      rejection.dra_reason = std::move(reason);
      break;
    }
    case Rejected::kNotAvailable: rejection.reasons = {"resourceclaim not available on the node"}; break;
  }
  return rejection;
}

// No node fit (texts on): why not, per node, in kube-scheduler's words.
PodOutcome Scheduler::Unschedulable(Cycle& c) {
  const size_t num_nodes = NumNodes();
  PodOutcome& out = c.out;
  // Why not, per node, in node order (the search may have started anywhere).
  std::sort(rejected_.begin(), rejected_.end(), [](const Rejected& a, const Rejected& b) { return a.node < b.node; });
  out.rejections.reserve(rejected_.size());
  std::vector<std::string> claim_keys;  // of to_allocate, built on first use
  for (const Rejected& r : rejected_) out.rejections.push_back(RejectionOf(c, r, claim_keys));
  if (options_.trace != nullptr) {
    options_.trace->push_back(PodTrace{.pod = out.pod, .rejections = out.rejections, .scores = {}});
  }
  // The message first: the order in which Fail's arguments are evaluated is
  // unspecified, and moving `out` first would empty out.rejections.
  std::string message = FitErrorMessage(num_nodes, out.rejections);
  return Fail(std::move(out), PodOutcome::Kind::kUnschedulable, std::move(message));
}

// Score and select: c.best, c.best_score (and c.packing, c.demand for Reserve).
void Scheduler::ScoreAndSelect(Cycle& c) {
  // Locals, not reads through `c` after every call, in the loops.
  const std::span<const Candidate> feasible = c.feasible;
  const int64_t allocated_raw_score = c.allocated_raw_score;
  const api::Pod& pod = *c.pod;
  const PodDemand& demand = c.demand;
  int64_t max_raw = 0;
  for (const Candidate& cand : feasible) max_raw = std::max(max_raw, allocated_raw_score + cand.raw_score);
  const Packing packing = c.packing = options_.policy->packing();
  if (model_) {
    std::vector<const api::ResourceClaimSpec*> specs;
    for (const api::ResourceClaim* claim : c.to_allocate) specs.push_back(&claim->spec);
    c.demand = model_->Demand(c.requests, specs);
  }
  NodeState state;
  PodFit fit{.requests = c.requests, .non_zero_requests = c.non_zero_requests};
  fit.dra_max_raw_score = max_raw;
  // TaintToleration and NodeAffinity (kube): raw scores, normalized by their
  // highest over the feasible nodes. Most nodes have no taints and most pods
  // no preferred terms: then nothing is computed per node.
  const bool preferences = packing == Packing::kNone && options_.policy->scores_node_preferences();
  const bool taints_scored = preferences && prefer_no_schedule_taints_;
  fit.affinity_scored = preferences && HasPreferredNodeAffinity(pod);
  if (taints_scored || fit.affinity_scored) {
    preference_raw_.assign(2 * feasible.size(), 0);
    for (size_t i = 0; i < feasible.size(); ++i) {
      const api::Node& node = s_.nodes[feasible[i].node];
      if (taints_scored) preference_raw_[2 * i] = IntolerablePreferNoScheduleTaints(pod, node);
      if (fit.affinity_scored) preference_raw_[2 * i + 1] = PreferredNodeAffinityWeight(pod, node);
      fit.taint_max_raw_score = std::max(fit.taint_max_raw_score, preference_raw_[2 * i]);
      fit.affinity_max_raw_score = std::max(fit.affinity_max_raw_score, preference_raw_[2 * i + 1]);
    }
  }
  const bool node_preferences = taints_scored || fit.affinity_scored;
  PodTrace* trace = nullptr;
  if (options_.trace != nullptr) {
    trace = &options_.trace->emplace_back(PodTrace{.pod = c.out.pod, .rejections = {}, .scores = {}});
    std::sort(rejected_.begin(), rejected_.end(), [](const Rejected& a, const Rejected& b) { return a.node < b.node; });
    std::vector<std::string> claim_keys;
    for (const Rejected& r : rejected_) trace->rejections.push_back(RejectionOf(c, r, claim_keys));
  }
  scores_.resize(feasible.size());
  for (size_t i = 0; i < feasible.size(); ++i) {
    const Candidate& cand = feasible[i];
    if (packing != Packing::kNone) {
      scores_[i] = model_->Score(cand.node, demand, packing);
      if (trace != nullptr) trace->scores.push_back(NodeScoreTrace{.node = s_.nodes[cand.node].metadata.name});
      continue;
    }
    if (cand.dra) {
      state = StateOf(cand.node, cand.devices, cand.devices_in_use);
    } else {
      state = StateOf(cand.node);
    }
    fit.devices_taken = cand.devices_taken;
    fit.dra_raw_score = allocated_raw_score + cand.raw_score;
    if (model_) {
      state.free_device_milli = model_->FreeMilli(cand.node);
      fit.device_milli = model_->DemandMilli(cand.node, demand);
    }
    if (node_preferences) {
      fit.taint_raw_score = preference_raw_[2 * i];
      fit.affinity_raw_score = preference_raw_[2 * i + 1];
    }
    scores_[i] = options_.policy->Score(state, pod, fit);
    if (trace != nullptr) {
      trace->scores.push_back(NodeScoreTrace{
          .node = s_.nodes[cand.node].metadata.name, .plugins = options_.policy->Explain(state, pod, fit), .total = 0});
    }
  }
  options_.policy->Normalize(scores_);
  if (trace != nullptr) {
    for (size_t i = 0; i < feasible.size(); ++i) trace->scores[i].total = scores_[i];
    std::sort(trace->scores.begin(), trace->scores.end(),
              [](const NodeScoreTrace& a, const NodeScoreTrace& b) { return a.node < b.node; });
  }
  size_t best = 0;
  int64_t best_score = 0;
  uint64_t best_tie = 0;
  // The tie hash of "<seed>/<pod>/<node>": the prefix is hashed once.
  const uint64_t tie_prefix = options_.node_rank.empty() ? Fnv1a64(fmt::format("{}/{}/", options_.seed, c.out.pod)) : 0;
  for (size_t i = 0; i < feasible.size(); ++i) {
    const size_t node = feasible[i].node;
    const int64_t score = scores_[i];
    const uint64_t tie = options_.node_rank.empty() ? Fnv1a64(s_.nodes[node].metadata.name, tie_prefix)
                                                    : uint64_t{options_.node_rank[node]};
    if (i == 0 || score > best_score || (score == best_score && tie < best_tie)) {
      best = i;
      best_score = score;
      best_tie = tie;
    }
  }
  c.best = best;
  c.best_score = best_score;
}

// PreBind's reservedFor limit, the chosen node's allocation, and Reserve.
std::optional<PodOutcome> Scheduler::Reserve(Cycle& c) {
  const api::Pod& pod = *c.pod;
  const Candidate& chosen = c.feasible[c.best];
  const std::string& node_name = s_.nodes[chosen.node].metadata.name;
  // PreBind: the API server refuses a 257th reservedFor entry.
  for (const api::ResourceClaim* claim : c.all_claims) {
    std::string group_uid;
    if (!s_.pod_groups.empty()) group_uid = ConsumerOf(s_, pod, *claim).uid;
    const std::string& uid = s_.pod_groups.empty() ? pod.metadata.uid : group_uid;
    bool reserved = std::any_of(claim->status.reserved_for.begin(), claim->status.reserved_for.end(),
                                [&](const auto& r) { return r.uid == uid; });
    if (!reserved && claim->status.reserved_for.size() >= kReservedForMaxSize) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("ResourceClaim.resource.k8s.io \"{}\" is invalid: status.reservedFor: Too many: {}: "
                              "must have at most {} items",
                              claim->metadata.name, claim->status.reserved_for.size() + 1, kReservedForMaxSize));
    }
  }
  // The chosen node's allocation in full (Filter only decided): the same
  // search on the same state, so it fits the same way.
  const std::vector<const api::ResourceClaim*>& chosen_to_allocate = c.claims_per_node->For(allocatable_[chosen.node]);
  c.allocate_extended = chosen_to_allocate.size() > c.to_allocate.size();
  if (c.forced != nullptr) {
    // Found by Choices on this state for these claims.
    if (c.forced->allocations.size() != chosen_to_allocate.size()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("internal error: gang search's choice on node {} does not match the pod's claims "
                              "(please report this)",
                              node_name));
    }
    c.allocations = c.forced->allocations;
  } else if (!chosen_to_allocate.empty()) {
    // A device-model policy's choice inside the node: its devices first.
    alloc::DevicePreference preference;
    if (model_) {
      preference =
          model_->Choose(chosen.node, c.demand, c.packing, options_.device_choice == alloc::DeviceChoice::kBestFit);
    }
    StatusOr<alloc::NodeFit> full = allocator_->Allocate(HandleOf(chosen.node), chosen_to_allocate,
                                                         alloc::Allocator::ResultDetail::kFull, &preference);
    if (!full.ok()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("running \"{}\" filter plugin: {}", kDynamicResourcesPlugin, full.status().message()));
    }
    if (!full->fits || full->results.size() != chosen_to_allocate.size()) {
      return Fail(
          std::move(c.out), PodOutcome::Kind::kError,
          fmt::format("internal error: node {} fit in Filter but not when allocating (please report this)", node_name));
    }
    c.allocations = std::move(full->results);
  }
  // Reserve: the new allocations count for every later pod.
  PlacementUndo* undo = nullptr;
  if (logging_) {
    undo = &undo_.emplace_back();
    undo->pod_idx = c.pod_idx;
    undo->node = chosen.node;
    undo->requests = c.requests;
    undo->changed_pods = result_.changed_pods.size();
    undo->changed_claims = result_.changed_claims.size();
    undo->created_claims = result_.created_claims.size();
  }
  changed_nodes_.clear();
  for (const api::AllocationResult& a : c.allocations) {
    Status st = allocator_->AddAllocation(a, &changed_nodes_);
    ForgetVerdicts();
    if (!st.ok()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("running Reserve plugin \"{}\": {}", kDynamicResourcesPlugin, st.message()));
    }
    if (undo != nullptr) undo->allocations.push_back(a);
  }
  // kube-scheduler 1.37.2 cannot bind a pod with its own claims whose
  // DRA-backed extended resources the chosen node's device plugin serves:
  // filterExtendedResources still builds the special claim, without
  // requests, and PreBind refuses its empty request mappings.
  // A group member's PreBind runs in its binding cycle, once the group is
  // placed: in the group's cycle it is assumed and reserved like any other
  // (RunGroup's BindingCycles end it afterwards).
  if (c.extended && !c.allocate_extended && !c.refs.empty()) {
    std::optional<size_t> old = FindExtendedResourceClaim(s_, *c.pod);
    if (!old || !s_.claims[*old].status.allocation) {
      if (in_group_ && undo != nullptr) {
        undo->prebind_fails = true;
        undo->non_zero_requests = c.non_zero_requests;
      } else {
        if (model_) {
          for (const api::AllocationResult& a : c.allocations) model_->AddAllocation(a);
        }
        return PreBindWithoutMappings(c, undo);
      }
    }
  }
  NodeUsage& usage = usage_[chosen.node];
  if (undo != nullptr) {
    undo->usage_before = usage;
    undo->usage_added = true;
  }
  usage.requested.Add(c.requests);
  usage.non_zero_requested.Add(c.non_zero_requests);
  if (model_) {
    model_->AddPod(chosen.node, c.requests);
    for (const api::AllocationResult& a : c.allocations) model_->AddAllocation(a);
  }
  return std::nullopt;
}

namespace {

// PreBind's error for the special claim without requests.
std::string PreBindWithoutMappingsMessage(const api::Pod& pod) {
  return fmt::format(
      "running PreBind plugin \"{}\": nil or empty request mappings, no update of pod {}/{} "
      "ExtendedResourceClaimStatus",
      kDynamicResourcesPlugin, pod.metadata.namespace_, pod.metadata.name);
}

}  // namespace

// PreBind's failure for the special claim without requests (Reserve), as
// upstream ends it: bindClaim has already written each user claim's
// allocation (and reservation), then patchPodExtendedResourceClaimStatus
// fails; the binding cycle's Unreserve removes the pod from the claims'
// reservedFor and deletes the special claim it created, and the pod stays
// pending with an error. The allocations stay, as in the API server.
PodOutcome Scheduler::PreBindWithoutMappings(Cycle& c, PlacementUndo* undo) {
  const api::Pod& pod = *c.pod;
  size_t next = 0;
  for (size_t i = 0; i < c.refs.size(); ++i) {
    api::ResourceClaim& claim = s_.claims[c.refs[i].claim];
    if (undo != nullptr) {
      undo->claims.push_back(ClaimBefore{.claim = c.refs[i].claim,
                                         .allocation = claim.status.allocation,
                                         .reserved_for = claim.status.reserved_for,
                                         .finalizers = claim.metadata.finalizers});
    }
    bool changed = false;
    if (!c.allocated_before[i]) {
      claim.status.allocation = std::move(c.allocations[next++]);
      if (std::find(claim.metadata.finalizers.begin(), claim.metadata.finalizers.end(), kDeleteProtectionFinalizer) ==
          claim.metadata.finalizers.end()) {
        claim.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
      }
      changed = true;
    }
    std::vector<api::ResourceClaimConsumerReference>& reserved = claim.status.reserved_for;
    const size_t before = reserved.size();
    std::erase_if(reserved, [&](const auto& r) { return r.uid == pod.metadata.uid; });
    if (changed || reserved.size() != before) result_.changed_claims.push_back(c.refs[i].claim);
  }
  return Fail(std::move(c.out), PodOutcome::Kind::kError, PreBindWithoutMappingsMessage(pod));
}

// Bind.
PodOutcome Scheduler::Bind(Cycle& c) {
  const api::Pod& pod = *c.pod;
  const std::string& node_name = s_.nodes[c.feasible[c.best].node].metadata.name;
  PodOutcome& out = c.out;
  out.kind = PodOutcome::Kind::kPlaced;
  out.node = node_name;
  out.score = c.best_score;
  size_t next = 0;
  PlacementUndo* undo = logging_ && !undo_.empty() && undo_.back().pod_idx == c.pod_idx ? &undo_.back() : nullptr;
  if (undo != nullptr) {
    undo->bound = true;
    undo->extended_before = pod.status.extended_resource_claim_status;
    undo->created_claim = c.allocate_extended;
    for (const PodClaimRef& ref : c.refs) {
      const api::ResourceClaim& claim = s_.claims[ref.claim];
      undo->claims.push_back(ClaimBefore{.claim = ref.claim,
                                         .allocation = claim.status.allocation,
                                         .reserved_for = claim.status.reserved_for,
                                         .finalizers = claim.metadata.finalizers});
    }
  }
  for (size_t i = 0; i < c.refs.size(); ++i) {
    api::ResourceClaim& claim = s_.claims[c.refs[i].claim];
    if (!c.allocated_before[i]) {
      claim.status.allocation = std::move(c.allocations[next++]);
      if (std::find(claim.metadata.finalizers.begin(), claim.metadata.finalizers.end(), kDeleteProtectionFinalizer) ==
          claim.metadata.finalizers.end()) {
        claim.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
      }
    }
    bool reserved = false;
    if (s_.pod_groups.empty()) {
      reserved = std::any_of(claim.status.reserved_for.begin(), claim.status.reserved_for.end(),
                             [&](const auto& r) { return r.uid == pod.metadata.uid; });
      if (!reserved) {
        claim.status.reserved_for.push_back(api::ResourceClaimConsumerReference{
            .resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid});
      }
    } else {
      // A PodGroup's claim is reserved once, for the group (README.md §2.3).
      api::ResourceClaimConsumerReference consumer = ConsumerOf(s_, pod, claim);
      reserved = std::any_of(claim.status.reserved_for.begin(), claim.status.reserved_for.end(),
                             [&](const auto& r) { return r.uid == consumer.uid; });
      if (!reserved) claim.status.reserved_for.push_back(std::move(consumer));
    }
    if (!c.allocated_before[i] || !reserved) result_.changed_claims.push_back(c.refs[i].claim);
    out.claims.push_back(ClaimPlacement{.pod_claim = c.refs[i].pod_claim,
                                        .claim = ObjectKey(claim.metadata),
                                        .allocated_now = !c.allocated_before[i],
                                        .results = claim.status.allocation->devices.results});
  }
  if (c.allocate_extended) {
    // PreBind creates the special claim (generateName: the API server picks
    // the suffix; here it is hashed, as for template claims), allocated and
    // reserved, and records it in the pod status.
    // The claim is the one just allocated on the chosen node.
    const std::string& ns = pod.metadata.namespace_;
    api::ResourceClaim claim = c.claims_per_node->claim();
    for (int attempt = 0;; ++attempt) {
      claim.metadata.name = claim.metadata.generate_name +
                            StableNameSuffix(ns, pod.metadata.name, kExtendedResourceClaimInMemoryName, attempt);
      if (!s_.FindClaim(ns, claim.metadata.name)) break;
    }
    claim.metadata.uid = StableUid("resourceclaim/" + ns + "/" + claim.metadata.name);
    const std::string name = claim.metadata.name;
    claim.status.allocation = std::move(c.allocations[next++]);
    claim.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
    claim.status.reserved_for.push_back(
        api::ResourceClaimConsumerReference{.resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid});
    out.claims.push_back(ClaimPlacement{.pod_claim = kExtendedResourceClaimInMemoryName,
                                        .claim = ns + "/" + name,
                                        .allocated_now = true,
                                        .results = claim.status.allocation->devices.results});
    // `pod` refers into s_.pods, which the push below leaves alone.
    s_.pods[c.pod_idx].status.extended_resource_claim_status = api::PodExtendedResourceClaimStatus{
        .request_mappings = c.claims_per_node->mappings(), .resource_claim_name = name};
    s_.claims.push_back(std::move(claim));
    result_.created_claims.push_back(s_.claims.size() - 1);
    result_.changed_claims.push_back(s_.claims.size() - 1);
  }
  s_.pods[c.pod_idx].spec.node_name = node_name;
  result_.changed_pods.push_back(c.pod_idx);
  return std::move(out);
}

// --- Pod groups: the group cycle (gang.h; README.md §2.4).

void Scheduler::UndoTo(size_t mark) {
  if (undo_.size() <= mark) return;
  while (undo_.size() > mark) {
    PlacementUndo u = std::move(undo_.back());
    undo_.pop_back();
    for (auto it = u.claims.rbegin(); it != u.claims.rend(); ++it) {
      api::ResourceClaim& claim = s_.claims[it->claim];
      claim.status.allocation = std::move(it->allocation);
      claim.status.reserved_for = std::move(it->reserved_for);
      claim.metadata.finalizers = std::move(it->finalizers);
    }
    if (u.bound) {
      api::Pod& pod = s_.pods[u.pod_idx];
      pod.spec.node_name.clear();
      pod.status.extended_resource_claim_status = std::move(u.extended_before);
      if (u.created_claim) {
        // The extended-resource claim Bind appended: nothing was appended
        // after it (a group's claim controller runs before its cycle).
        s_.claims.pop_back();
        if (s_.claim_index.indexed > s_.claims.size()) s_.claim_index = Snapshot::ClaimIndex{};
        if (from_template_.size() > s_.claims.size()) from_template_.resize(s_.claims.size());
        if (template_checked_.size() > s_.claims.size()) template_checked_.resize(s_.claims.size());
      }
    }
    for (auto it = u.allocations.rbegin(); it != u.allocations.rend(); ++it) {
      changed_nodes_.clear();
      // The same results AddAllocation summed: subtracting them cannot fail.
      (void)allocator_->RemoveAllocation(*it, &changed_nodes_);
      ForgetVerdicts();
      if (model_) model_->ReleaseAllocation(*it);
    }
    if (u.usage_added) {
      usage_[u.node] = std::move(u.usage_before);
      if (model_) model_->RemovePod(u.node, u.requests);
    }
    result_.changed_pods.resize(u.changed_pods);
    result_.changed_claims.resize(u.changed_claims);
    result_.created_claims.resize(u.created_claims);
  }
  // The pod classes' caches assume nodes only fill up.
  for (PodClass& pc : classes_) {
    pc.failed = false;
    std::fill(pc.rejected.begin(), pc.rejected.end(), 0);
  }
}

namespace {

// `v` without the entry `value` at or after `from` (the one a placement
// pushed), when there is one.
void EraseOneFrom(std::vector<size_t>& v, size_t from, size_t value) {
  for (size_t i = v.size(); i > from; --i) {
    if (v[i - 1] == value) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i - 1));
      return;
    }
  }
}

void Subtract(Resources& from, const Resources& r) {
  from.milli_cpu -= r.milli_cpu;
  from.memory -= r.memory;
  from.pods -= r.pods;
  for (const auto& [name, value] : r.scalar) from.scalar[name] -= value;
}

}  // namespace

// kube-scheduler 1.37.2 sends a placed group's members to their binding
// cycles (submitPodGroupAlgorithmResult, with the group's condition already
// True); a member whose PreBind fails (PreBindWithoutMappings' case) is
// handled by handleBindingCycleError: DynamicResources' Unreserve takes the
// pod out of its claims' reservedFor (a reservation for its PodGroup stays,
// the allocations PreBind wrote stay), the cache forgets the pod (its node
// has its requests back), and the pod keeps PreBind's error. The other
// members stay bound.
void Scheduler::BindingCycles(size_t mark, const GroupEntity& entity, std::vector<PodOutcome>& outs,
                              GroupOutcome* group) {
  bool forgot = false;
  for (size_t k = mark; k < undo_.size() && group->kind == PodOutcome::Kind::kPlaced; ++k) {
    const PlacementUndo& u = undo_[k];
    if (!u.prebind_fails || !u.bound) continue;
    api::Pod& pod = s_.pods[u.pod_idx];
    for (const ClaimBefore& before : u.claims) {
      api::ResourceClaim& claim = s_.claims[before.claim];
      std::erase_if(claim.status.reserved_for, [&](const auto& r) { return r.uid == pod.metadata.uid; });
      if (claim.status.allocation == before.allocation && claim.status.reserved_for == before.reserved_for &&
          claim.metadata.finalizers == before.finalizers) {
        EraseOneFrom(result_.changed_claims, u.changed_claims, before.claim);
      }
    }
    pod.spec.node_name.clear();
    EraseOneFrom(result_.changed_pods, u.changed_pods, u.pod_idx);
    NodeUsage& usage = usage_[u.node];
    Subtract(usage.requested, u.requests);
    Subtract(usage.non_zero_requested, u.non_zero_requests);
    if (model_) model_->RemovePod(u.node, u.requests);
    forgot = true;
    for (size_t i = 0; i < entity.pods.size(); ++i) {
      if (entity.pods[i] != u.pod_idx) continue;
      outs[i] = PodOutcome{
          .pod = outs[i].pod, .kind = PodOutcome::Kind::kError, .message = PreBindWithoutMappingsMessage(pod)};
    }
  }
  for (const PodOutcome& out : outs) group->placed += out.kind == PodOutcome::Kind::kPlaced ? 1 : 0;
  if (!forgot) return;
  // The pod classes' caches assume nodes only fill up.
  for (PodClass& pc : classes_) {
    pc.failed = false;
    std::fill(pc.rejected.begin(), pc.rejected.end(), 0);
  }
}

bool Scheduler::SameMember(size_t a, size_t b) {
  const api::Pod& pa = s_.pods[a];
  const api::Pod& pb = s_.pods[b];
  if (!(PodRequests(pa) == PodRequests(pb)) || pa.spec.tolerations != pb.spec.tolerations ||
      pa.spec.node_selector != pb.spec.node_selector || !(pa.spec.affinity == pb.spec.affinity)) {
    return false;
  }
  // Claims: fresh ones from templates of equal specs, in the same order.
  StatusOr<std::vector<PodClaimRef>> ra = ResolvePodClaims(s_, pa);
  StatusOr<std::vector<PodClaimRef>> rb = ResolvePodClaims(s_, pb);
  if (!ra.ok() || !rb.ok() || ra->size() != rb->size()) return false;
  for (size_t i = 0; i < ra->size(); ++i) {
    const size_t ca = (*ra)[i].claim, cb = (*rb)[i].claim;
    if (s_.claims[ca].status.allocation || s_.claims[cb].status.allocation) return false;
    if (ca >= from_template_.size() || cb >= from_template_.size() || from_template_[ca] == nullptr ||
        from_template_[cb] == nullptr || Canonical(from_template_[ca]) != Canonical(from_template_[cb])) {
      return false;
    }
  }
  return true;
}

// A device as the gang search tells choices apart: everything but its name
// (selectors and constraints see attributes, capacity and counters, never
// the name), with the pool it is in.
namespace {
bool SameShape(const api::Device* a, const api::Device* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  api::Device ca = *a, cb = *b;
  ca.name.clear();
  cb.name.clear();
  return ca == cb;
}
}  // namespace

std::vector<Scheduler::Choice> Scheduler::Choices(size_t pod_idx, size_t min_node, bool by_index,
                                                  std::span<const size_t> used, uint64_t* steps) {
  Cycle c;
  c.pod_idx = pod_idx;
  c.out.pod = ObjectKey(s_.pods[pod_idx].metadata);
  c.pod = &s_.pods[pod_idx];
  if (PreFilter(c) || Classify(c)) return {};
  all_nodes_ = true;
  std::optional<PodOutcome> end = Filter(c);
  all_nodes_ = false;
  *steps += NumNodes();
  if (end || c.feasible.empty()) return {};
  ScoreAndSelect(c);
  // Upstream's node first, then by score (highest first) and name.
  std::vector<size_t> order;
  for (size_t i = 0; i < c.feasible.size(); ++i) {
    if (c.feasible[i].node >= min_node) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (by_index) return c.feasible[a].node < c.feasible[b].node;
    if ((a == c.best) != (b == c.best)) return a == c.best;
    if (scores_[a] != scores_[b]) return scores_[a] > scores_[b];
    return c.feasible[a].node < c.feasible[b].node;
  });
  auto is_used = [&](size_t node) { return std::binary_search(used.begin(), used.end(), node); };
  // A member walking the nodes in order (its twins continue from its node)
  // needs only the next few: a quarter of max_nodes, at least 4.
  const size_t max_nodes = by_index
                               ? std::min(options_.gang.max_nodes, std::max<size_t>(4, options_.gang.max_nodes / 4))
                               : options_.gang.max_nodes;
  if (order.size() > max_nodes) {
    // The best max_nodes, and the group's own nodes after them.
    auto keep = std::stable_partition(order.begin() + static_cast<std::ptrdiff_t>(max_nodes), order.end(),
                                      [&](size_t i) { return is_used(c.feasible[i].node); });
    order.erase(keep, order.end());
  }
  const std::vector<int64_t> scores = scores_;
  std::vector<Choice> out;
  const alloc::SliceIndex& slices = allocator_->slices();
  auto find_device = [&](const api::DeviceRequestAllocationResult& r) -> const api::Device* {
    for (const api::ResourceSlice* slice : slices.OfPool(r.driver, r.pool)) {
      for (const api::Device& d : slice->spec.devices) {
        if (d.name == r.device) return &d;
      }
    }
    return nullptr;
  };
  // The devices, counters and capacity a choice takes (Choice::devices,
  // amounts).
  auto weigh = [&](Choice& choice) {
    for (const api::AllocationResult& a : choice.allocations) {
      for (const api::DeviceRequestAllocationResult& r : a.devices.results) {
        ++choice.devices;
        for (const auto& [name, q] : r.consumed_capacity) choice.amounts += q.AsApproximateFloat64();
        const api::Device* d = find_device(r);
        if (d == nullptr) continue;
        for (const api::DeviceCounterConsumption& use : d->rare->consumes_counters) {
          for (const auto& [name, counter] : use.counters) choice.amounts += counter.value.AsApproximateFloat64();
        }
      }
    }
  };
  using Shape = std::vector<std::pair<std::string, const api::Device*>>;
  auto shape_of = [&](const std::vector<api::AllocationResult>& allocations) {
    Shape shape;
    for (const api::AllocationResult& a : allocations) {
      for (const api::DeviceRequestAllocationResult& r : a.devices.results) {
        shape.emplace_back(r.request + "\n" + r.driver + "\n" + r.pool, find_device(r));
      }
    }
    return shape;
  };
  auto same_shape = [](const Shape& a, const Shape& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].first != b[i].first || !SameShape(a[i].second, b[i].second)) return false;
    }
    return true;
  };
  for (size_t i : order) {
    const size_t node = c.feasible[i].node;
    const std::vector<const api::ResourceClaim*>& node_to_allocate = c.claims_per_node->For(allocatable_[node]);
    if (node_to_allocate.empty()) {
      out.push_back(Choice{.node = node, .score = scores[i], .allocations = {}, .packs = is_used(node)});
      continue;
    }
    alloc::DevicePreference preference;
    if (model_) {
      preference = model_->Choose(node, c.demand, c.packing, options_.device_choice == alloc::DeviceChoice::kBestFit);
    }
    StatusOr<alloc::NodeFit> first =
        allocator_->Allocate(HandleOf(node), node_to_allocate, alloc::Allocator::ResultDetail::kFull, &preference);
    *steps += 1 + (first.ok() ? first->steps : 0);
    if (!first.ok() || !first->fits) continue;
    std::vector<Shape> shapes = {shape_of(first->results)};
    const size_t node_first = out.size();
    out.push_back(
        Choice{.node = node, .score = scores[i], .allocations = std::move(first->results), .packs = is_used(node)});
    weigh(out.back());
    // Other device choices: each device of the first kept out in turn,
    // together with the node's devices of the same shape (another of them
    // would be the same choice).
    std::vector<api::DeviceRequestAllocationResult> taken;
    for (const api::AllocationResult& a : out[node_first].allocations) {
      for (const api::DeviceRequestAllocationResult& r : a.devices.results) taken.push_back(r);
    }
    for (const api::DeviceRequestAllocationResult& r : taken) {
      if (out.size() - node_first >= options_.gang.max_allocations) break;
      std::vector<std::pair<const api::ResourceSlice*, const api::Device*>> out_of_search;
      const api::Device* device = find_device(r);
      for (const api::ResourceSlice* slice : slices.OnNode(s_.nodes[node].metadata.name)) {
        if (slice->spec.driver != r.driver || slice->spec.pool.name != r.pool) continue;
        for (const api::Device& d : slice->spec.devices) {
          if (d.name == r.device || (device != nullptr && SameShape(&d, device))) out_of_search.emplace_back(slice, &d);
        }
      }
      if (out_of_search.empty()) out_of_search.emplace_back(nullptr, nullptr);  // not node-local: the device alone
      changed_nodes_.clear();
      for (const auto& [slice, d] : out_of_search) {
        allocator_->SetExcluded(r.driver, r.pool, d != nullptr ? std::string_view(d->name) : r.device, true,
                                &changed_nodes_);
      }
      StatusOr<alloc::NodeFit> alt =
          allocator_->Allocate(HandleOf(node), node_to_allocate, alloc::Allocator::ResultDetail::kFull);
      *steps += 1 + out_of_search.size() + (alt.ok() ? alt->steps : 0);
      for (const auto& [slice, d] : out_of_search) {
        allocator_->SetExcluded(r.driver, r.pool, d != nullptr ? std::string_view(d->name) : r.device, false,
                                &changed_nodes_);
      }
      ForgetVerdicts();
      if (!alt.ok() || !alt->fits) continue;
      Shape shape = shape_of(alt->results);
      if (std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) { return same_shape(s, shape); })) continue;
      shapes.push_back(std::move(shape));
      out.push_back(
          Choice{.node = node, .score = scores[i], .allocations = std::move(alt->results), .packs = is_used(node)});
      weigh(out.back());
    }
  }
  return out;
}

struct Scheduler::GangSearch {
  std::vector<size_t> members;  // into s_.pods, in queue order
  size_t min_count = 1;
  size_t scheduled = 0;  // members bound before
  uint64_t steps = 0;
  uint64_t budget = 0;
  std::vector<bool> dead;         // no choice even in the state before the group
  std::vector<size_t> dead_from;  // dead members at or after each position
  std::vector<int> same_as;       // the latest earlier member it is interchangeable with, or -1
  std::vector<std::optional<Choice>> path, best;
  size_t best_placed = 0;
  bool found = false;
  bool complete = false;   // best places every member that is not dead
  bool exhausted = false;  // the budget ran out
};

// Depth-first over the members in queue order: each member takes one of
// its choices (the leanest first) or is left out while minCount stays
// reachable; the best assignment (most members) is kept.
void Scheduler::Search(GangSearch& gs, size_t i, size_t placed) {
  const size_t n = gs.members.size();
  if (gs.complete || gs.exhausted) return;
  const size_t reachable = placed + (n - i) - gs.dead_from[i];
  if (gs.scheduled + reachable < gs.min_count || reachable <= gs.best_placed) return;
  if (i == n) {
    gs.best = gs.path;
    gs.best_placed = placed;
    gs.found = true;
    gs.complete = placed == n - gs.dead_from[0];
    return;
  }
  const int twin = gs.same_as[i];
  // Interchangeable members: the later one is left out first.
  const bool leave_out = gs.dead[i] || (twin >= 0 && !gs.path[static_cast<size_t>(twin)]);
  if (!leave_out) {
    if (gs.steps >= gs.budget) {
      gs.exhausted = true;
      return;
    }
    // Interchangeable members: a solution can always be reordered so that
    // they take nodes in rising order.
    const size_t min_node = twin >= 0 ? gs.path[static_cast<size_t>(twin)]->node : 0;
    std::vector<size_t> used;
    for (size_t j = 0; j < i; ++j) {
      if (gs.path[j]) used.push_back(gs.path[j]->node);
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    // A member with twins walks the nodes in order (the twins after it
    // continue from its node); the others take the best-scored nodes.
    const bool by_index = twin >= 0 || (i + 1 < gs.members.size() && gs.same_as[i + 1] == static_cast<int>(i));
    std::vector<Choice> choices = Choices(gs.members[i], min_node, by_index, used, &gs.steps);
    // Upstream's order failed already (RunGroup tried it first): the
    // leanest choices first (a partition rather than the whole device,
    // kubernetes#138765), then those on the group's own nodes (what is left
    // of a device the group broke into), ties in the order Choices gives.
    std::stable_sort(choices.begin(), choices.end(), [](const Choice& a, const Choice& b) {
      if (a.devices != b.devices) return a.devices < b.devices;
      if (a.amounts != b.amounts) return a.amounts < b.amounts;
      return a.packs && !b.packs;
    });
    for (Choice& choice : choices) {
      if (gs.steps >= gs.budget) {
        gs.exhausted = true;
        return;
      }
      const size_t mark = Mark();
      ++gs.steps;
      PodOutcome out = RunCycle(gs.members[i], &choice);
      if (out.kind == PodOutcome::Kind::kPlaced) {
        gs.path[i] = choice;
        Search(gs, i + 1, placed + 1);
        gs.path[i].reset();
      }
      UndoTo(mark);
      if (gs.complete || gs.exhausted) return;
    }
  }
  Search(gs, i + 1, placed);
}

// GangMode::kSearch after the upstream cycle failed (and was undone): the
// best assignment placed, or false with the snapshot unchanged.
bool Scheduler::RunSearch(const GroupEntity& entity, size_t min_count, size_t scheduled, std::vector<PodOutcome>* outs,
                          GroupOutcome* group) {
  const size_t n = entity.pods.size();
  GangSearch gs;
  gs.members = entity.pods;
  gs.min_count = min_count;
  gs.scheduled = scheduled;
  gs.budget = options_.gang.max_steps;
  gs.dead.assign(n, false);
  gs.same_as.assign(n, -1);
  gs.path.resize(n);
  // Interchangeable members, and members that fit nowhere even now (one
  // check per kind of member).
  std::vector<size_t> kinds;  // the first member of each kind, by position
  std::vector<size_t> kind_of(n);
  for (size_t i = 0; i < n; ++i) {
    size_t k = 0;
    while (k < kinds.size() && !SameMember(entity.pods[kinds[k]], entity.pods[i])) ++k;
    if (k == kinds.size()) {
      kinds.push_back(i);
      gs.dead[i] = Choices(entity.pods[i], 0, false, {}, &gs.steps).empty();
    } else {
      gs.dead[i] = gs.dead[kinds[k]];
    }
    kind_of[i] = k;
    for (size_t j = i; j-- > 0;) {
      if (kind_of[j] == k) {
        gs.same_as[i] = static_cast<int>(j);
        break;
      }
    }
  }
  gs.dead_from.assign(n + 1, 0);
  for (size_t i = n; i-- > 0;) gs.dead_from[i] = gs.dead_from[i + 1] + (gs.dead[i] ? 1 : 0);
  const size_t mark = Mark();
  Search(gs, 0, 0);
  UndoTo(mark);
  group->searched = true;
  group->steps = gs.steps;
  if (!gs.found) {
    group->message += gs.exhausted ? fmt::format(
                                         "; gang search: no placement of minCount members found before its budget "
                                         "of {} steps ran out",
                                         gs.budget)
                                   : fmt::format(
                                         "; gang search: no placement of minCount members exists among the {} "
                                         "best nodes and {} device choices per member ({} steps)",
                                         options_.gang.max_nodes, options_.gang.max_allocations, gs.steps);
    return false;
  }
  // The best assignment, then the members it left out as upstream would try
  // them (in what the placed members left).
  for (size_t i = 0; i < n; ++i) {
    if (!gs.best[i]) continue;
    (*outs)[i] = RunCycle(entity.pods[i], &*gs.best[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!gs.best[i]) (*outs)[i] = RunCycle(entity.pods[i], nullptr);
  }
  return true;
}

Scheduler::GroupPass Scheduler::DefaultAlgorithm(const GroupEntity& entity, size_t min_count, size_t scheduled_before,
                                                 std::vector<PodOutcome>& outs) {
  const size_t n = entity.pods.size();
  GroupPass pass;
  size_t remaining = n, scheduled = scheduled_before;
  // PlacementFeasible before any member: its Unschedulable is wrapped.
  if (remaining + scheduled < min_count) {
    pass.message = kPodGroupUnschedulable + (", " + MinCountCannotBeSatisfied(min_count, scheduled, remaining));
    pass.error_text = kPodGroupUnschedulable;
  }
  for (size_t i = 0; i < n && pass.message.empty(); ++i) {
    outs[i] = RunCycle(entity.pods[i], nullptr);
    pass.tried = i + 1;
    if (outs[i].kind == PodOutcome::Kind::kError) {
      pass.kind = PodOutcome::Kind::kError;
      pass.message = "failed to schedule other pod from a pod group: " + outs[i].message;
      pass.error_text = pass.message;
      break;
    }
    --remaining;
    if (outs[i].kind == PodOutcome::Kind::kPlaced) ++scheduled;
    if (remaining + scheduled < min_count) {
      // PlacementFeasible's status as it is: no "pod group is unschedulable".
      pass.kind = PodOutcome::Kind::kUnschedulable;
      pass.message = MinCountCannotBeSatisfied(min_count, scheduled, remaining);
      pass.error_text = pass.message;
      break;
    }
    // "Wait" (not yet satisfied) cannot outlast the last member: then
    // scheduled >= minCount.
    pass.kind = scheduled < min_count ? PodOutcome::Kind::kUnschedulable : PodOutcome::Kind::kPlaced;
  }
  // Members the cycle did not reach get the group's status.
  for (size_t i = pass.tried; i < n; ++i) {
    outs[i].kind = pass.kind;
    outs[i].message = pass.message;
  }
  return pass;
}

void Scheduler::EnterPlacement(const GroupPlacement& placement) {
  if (placement.nodes.size() != s_.nodes.size()) view_ = placement.nodes;
  if (placement.excluded.empty()) return;
  changed_nodes_.clear();
  for (const DeviceKey& d : placement.excluded)
    allocator_->SetExcluded(d.driver, d.pool, d.device, true, &changed_nodes_);
  ForgetVerdicts();
}

void Scheduler::LeavePlacement(const GroupPlacement& placement) {
  view_.clear();
  if (placement.excluded.empty()) return;
  changed_nodes_.clear();
  for (const DeviceKey& d : placement.excluded)
    allocator_->SetExcluded(d.driver, d.pool, d.device, false, &changed_nodes_);
  ForgetVerdicts();
}

int64_t Scheduler::PlacementFitScore(const GroupPlacement& placement, const GroupEntity& entity,
                                     const std::vector<PodOutcome>& outs) const {
  Resources requested, allocatable;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].kind == PodOutcome::Kind::kPlaced) requested.Add(PodRequests(s_.pods[entity.pods[i]], true));
  }
  for (size_t node : placement.nodes) {
    requested.Add(usage_[node].non_zero_requested);
    allocatable.Add(allocatable_[node]);
  }
  // mostResourceScorer with weights cpu 1, memory 1.
  int64_t score = 0, weights = 0;
  for (auto [req, cap] :
       {std::pair{requested.milli_cpu, allocatable.milli_cpu}, std::pair{requested.memory, allocatable.memory}}) {
    if (cap == 0) continue;
    score += std::min(req, cap) * kMaxNodeScore / cap;
    ++weights;
  }
  return weights == 0 ? 0 : score / weights;
}

namespace {

// findBestPlacement over the placements that fit: PodGroupPodsCount
// (scheduled and placed members, normalized to 0-100 by the largest) plus
// NodeResourcesFit's placement score, weight 1 each; ties (upstream: at
// random) go to the first by name. Returns the index into `counts`.
size_t BestPlacement(const std::vector<int64_t>& counts, const std::vector<int64_t>& fit) {
  const int64_t max_count = std::max<int64_t>(1, *std::max_element(counts.begin(), counts.end()));
  size_t best = 0;
  int64_t best_total = -1;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t total = counts[i] * kMaxNodeScore / max_count + fit[i];
    if (total > best_total) {
      best = i;
      best_total = total;
    }
  }
  return best;
}

size_t CountPlaced(const std::vector<PodOutcome>& outs) {
  return static_cast<size_t>(
      std::count_if(outs.begin(), outs.end(), [](const PodOutcome& o) { return o.kind == PodOutcome::Kind::kPlaced; }));
}

}  // namespace

Scheduler::GroupPass Scheduler::PlacementAlgorithm(const GroupEntity& entity, const GroupPlacements& placements,
                                                   size_t min_count, size_t scheduled_before,
                                                   std::vector<PodOutcome>& outs, GroupOutcome* group) {
  const size_t mark = Mark();
  std::optional<GroupPass> first;
  std::vector<PodOutcome> first_outs;
  std::vector<size_t> feasible;
  std::vector<int64_t> counts, fit;
  for (size_t p = 0; p < placements.placements.size(); ++p) {
    const GroupPlacement& placement = placements.placements[p];
    std::vector<PodOutcome> tried = outs;
    EnterPlacement(placement);
    GroupPass pass = DefaultAlgorithm(entity, min_count, scheduled_before, tried);
    UndoTo(mark);
    LeavePlacement(placement);
    if (pass.kind == PodOutcome::Kind::kError) {  // an error ends the cycle at once
      outs = std::move(tried);
      return pass;
    }
    if (pass.kind == PodOutcome::Kind::kPlaced) {
      feasible.push_back(p);
      counts.push_back(static_cast<int64_t>(scheduled_before + CountPlaced(tried)));
      fit.push_back(PlacementFitScore(placement, entity, tried));
    }
    if (!first) {
      first = std::move(pass);
      first_outs = std::move(tried);
    }
  }
  if (feasible.empty()) {
    // The first placement's members, with upstream's summary.
    GroupPass out = *first;
    out.message = fmt::format("{}, 0/{} placements are available, first placement status: {}", kPodGroupUnschedulable,
                              placements.placements.size(), first->error_text);
    out.error_text = kPodGroupUnschedulable;
    outs = std::move(first_outs);
    for (PodOutcome& o : outs) {
      if (o.kind != PodOutcome::Kind::kPlaced && o.message == first->message) o.message = out.message;
    }
    return out;
  }
  const GroupPlacement& best = placements.placements[feasible[BestPlacement(counts, fit)]];
  group->placement = best.name;
  EnterPlacement(best);
  GroupPass pass = DefaultAlgorithm(entity, min_count, scheduled_before, outs);
  LeavePlacement(best);
  return pass;
}

bool Scheduler::SearchPlacements(const GroupEntity& entity, const GroupPlacements& placements, size_t min_count,
                                 size_t scheduled_before, std::vector<PodOutcome>* outs, GroupOutcome* group) {
  const std::string message = group->message;
  uint64_t steps = 0;
  std::vector<size_t> feasible;
  std::vector<int64_t> counts, fit;
  for (size_t p = 0; p < placements.placements.size(); ++p) {
    const GroupPlacement& placement = placements.placements[p];
    std::vector<PodOutcome> searched = *outs;
    const size_t mark = Mark();
    EnterPlacement(placement);
    const bool found = RunSearch(entity, min_count, scheduled_before, &searched, group);
    UndoTo(mark);
    LeavePlacement(placement);
    steps += group->steps;
    if (!found) continue;
    feasible.push_back(p);
    counts.push_back(static_cast<int64_t>(scheduled_before + CountPlaced(searched)));
    fit.push_back(PlacementFitScore(placement, entity, searched));
  }
  if (feasible.empty()) {
    group->steps = steps;
    group->message = message + fmt::format(
                                   "; gang search: no placement of minCount members in any of the {} "
                                   "placements ({} steps)",
                                   placements.placements.size(), steps);
    return false;
  }
  group->message = message;
  const GroupPlacement& best = placements.placements[feasible[BestPlacement(counts, fit)]];
  group->placement = best.name;
  EnterPlacement(best);
  const bool found = RunSearch(entity, min_count, scheduled_before, outs, group);
  LeavePlacement(best);
  group->steps += steps;
  return found;
}

std::vector<PodOutcome> Scheduler::RunGroup(const GroupEntity& entity, GroupOutcome* group, bool* reported,
                                            bool* stop) {
  *reported = false;
  *stop = false;
  const size_t n = entity.pods.size();
  std::vector<PodOutcome> outs(n);
  for (size_t i = 0; i < n; ++i) outs[i].pod = ObjectKey(s_.pods[entity.pods[i]].metadata);
  group->group = entity.group_namespace + "/" + entity.group_name;
  group->members = n;
  auto all = [&](PodOutcome::Kind kind, const std::string& message) {
    group->kind = kind;
    group->message = message;
    for (PodOutcome& out : outs) {
      out.kind = kind;
      out.message = message;
    }
    return outs;
  };
  // The resource-claim controller does not wait for the scheduler.
  for (size_t pod_idx : entity.pods) RunClaimController(pod_idx);
  if (std::optional<std::string> why = GroupPreEnqueue(s_, entity)) return all(PodOutcome::Kind::kUnschedulable, *why);
  // A member that PreEnqueue turns away keeps the whole group out of the
  // queue; the others say which (dractl's text: upstream writes nothing).
  for (size_t i = 0; i < n; ++i) {
    std::optional<std::string> why = PreEnqueue(s_.pods[entity.pods[i]]);
    if (!why) continue;
    (void)all(PodOutcome::Kind::kUnschedulable,
              fmt::format("pod group \"{}\" waits for its pod {}: {}", entity.group_name, outs[i].pod, *why));
    outs[i].message = *why;
    return outs;
  }
  group->tried = true;
  if (std::optional<std::string> error = ValidateGroupPods(s_, entity)) return all(PodOutcome::Kind::kError, *error);
  const api::PodGroup& pg = s_.pod_groups[*entity.group];
  const size_t min_count = static_cast<size_t>(MinCount(pg));
  const size_t scheduled_before = CountGroupPods(s_, entity.group_namespace, entity.group_name).scheduled;
  group->min_count = MinCount(pg);
  group->scheduled_before = scheduled_before;

  // TopologyAwareWorkloadScheduling: the group is tried in each placement.
  std::optional<GroupPlacements> placements;
  if (s_.gates.enabled(api::Gate::kTopologyAwareWorkloadScheduling)) {
    placements = GeneratePlacements(s_, entity, options_.gang.mode == GangMode::kSearch);
    group->placements = placements->placements.size();
    if (placements->placements.empty()) {
      for (const PodOutcome& out : outs) group->upstream_pass.push_back({.pod = out.pod, .node = {}, .devices = {}});
      (void)all(placements->error ? PodOutcome::Kind::kError : PodOutcome::Kind::kUnschedulable, placements->message);
      if (placements->error) return outs;
      // An Unschedulable status goes to PodGroupPostFilter (no member was
      // tried); the members keep the status from before it, or take its
      // error.
      const GroupPostFilter post = RunPodGroupPostFilter(s_, entity, /*dra_state=*/false);
      if (post.error) return all(PodOutcome::Kind::kError, post.text);
      group->message += post.text;
      return outs;
    }
  }

  logging_ = true;
  in_group_ = true;
  const size_t mark = Mark();
  GroupPass pass = placements ? PlacementAlgorithm(entity, *placements, min_count, scheduled_before, outs, group)
                              : DefaultAlgorithm(entity, min_count, scheduled_before, outs);
  // A pass that fits with no member placed now (minCount met by members
  // bound before): runRootSchedulingAlgorithm makes it Unschedulable.
  const bool none_placed_now = pass.kind == PodOutcome::Kind::kPlaced && CountPlaced(outs) == 0;
  if (none_placed_now) {
    pass.kind = PodOutcome::Kind::kUnschedulable;
    pass.message = pass.error_text = kPodGroupUnschedulable;
  }
  // Upstream's PodGroupInitiallyScheduled message: the status, and for an
  // Unschedulable one what PodGroupPostFilter appended; or its error, which
  // every member takes but those with an error of their own.
  std::string group_message = pass.message;
  if (pass.kind == PodOutcome::Kind::kUnschedulable) {
    const GroupPostFilter post = RunPodGroupPostFilter(s_, entity, pass.tried > 0 && !s_.nodes.empty());
    if (post.error) {
      pass.kind = PodOutcome::Kind::kError;
      pass.message = group_message = post.text;
      pass.tried = n;
    } else {
      group_message += post.text;
    }
  }
  const PodOutcome::Kind kind = pass.kind;
  const std::string& message = pass.message;
  const size_t tried = pass.tried;
  group->kind = kind;
  group->message = group_message;
  for (const PodOutcome& out : outs) {
    GroupOutcome::MemberTry& t = group->upstream_pass.emplace_back();
    t.pod = out.pod;
    if (out.kind != PodOutcome::Kind::kPlaced) continue;
    t.node = out.node;
    for (const ClaimPlacement& claim : out.claims) {
      for (const api::DeviceRequestAllocationResult& r : claim.results) {
        t.devices.push_back(r.driver + "/" + r.pool + "/" + r.device);
      }
    }
  }
  if (kind != PodOutcome::Kind::kPlaced) {
    // Members that fit take the group's status; members that did not keep
    // their own (upstream's submitPodGroupAlgorithmResult): an error as it
    // is; for Unschedulable, NewStatus(Unschedulable, the group's message)
    // wrapping errPodGroupUnschedulable. Members not reached (i >= tried)
    // hold the status from before PodGroupPostFilter (DefaultAlgorithm).
    for (size_t i = 0; i < tried; ++i) {
      PodOutcome& out = outs[i];
      const bool own = out.kind != PodOutcome::Kind::kPlaced &&
                       (kind != PodOutcome::Kind::kError || out.kind == PodOutcome::Kind::kError);
      if (own) continue;
      out = PodOutcome{.pod = out.pod,
                       .kind = kind,
                       .message = kind == PodOutcome::Kind::kError
                                      ? message
                                      : fmt::format("{}, {}", kPodGroupUnschedulable, group->message)};
    }
    if (options_.after_pod && options_.gang.mode == GangMode::kUpstream) {
      *reported = true;
      for (size_t i = 0; i < n && !*stop; ++i) *stop = !options_.after_pod(entity.pods[i], outs[i]);
    }
    UndoTo(mark);
    // (No search where minCount is out of reach of the pending members, or
    // met by members bound before while none of the pending ones fits.)
    if (kind == PodOutcome::Kind::kUnschedulable && options_.gang.mode == GangMode::kSearch &&
        n + scheduled_before >= min_count && !none_placed_now) {
      const std::string upstream_message = group->message;
      std::vector<PodOutcome> searched = outs;
      if (placements ? SearchPlacements(entity, *placements, min_count, scheduled_before, &searched, group)
                     : RunSearch(entity, min_count, scheduled_before, &searched, group)) {
        outs = std::move(searched);
        group->kind = PodOutcome::Kind::kPlaced;
        group->message.clear();
      } else {
        for (PodOutcome& out : outs) {
          // Members that took the group's status take its search summary.
          if (out.message == message ||
              out.message == fmt::format("{}, {}", kPodGroupUnschedulable, upstream_message)) {
            out.message = group->message;
          }
        }
      }
    }
  }
  BindingCycles(mark, entity, outs, group);
  undo_.clear();
  logging_ = false;
  in_group_ = false;
  return outs;
}

void SortUnique(std::vector<size_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

size_t NumFeasibleNodesToFind(int32_t percentage_of_nodes_to_score, size_t num_nodes) {
  constexpr size_t kMinFeasibleNodesToFind = 100;
  constexpr int64_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int64_t percentage = percentage_of_nodes_to_score;
  if (percentage <= 0) {
    percentage = std::max<int64_t>(50 - static_cast<int64_t>(num_nodes) / 125, kMinFeasibleNodesPercentageToFind);
  }
  if (percentage >= 100) return num_nodes;
  const size_t n = num_nodes * static_cast<size_t>(percentage) / 100;
  return std::max(n, kMinFeasibleNodesToFind);
}

std::vector<size_t> NodeTreeOrder(std::span<const api::Node> nodes) {
  // GetZoneKey (component-helpers node/topology): a beta label wins even
  // when empty; "" when neither region nor zone is set.
  auto label = [](const api::Node& n, std::string_view beta, std::string_view ga) -> std::string_view {
    if (const std::string* v = n.metadata.labels.find(beta)) return *v;
    if (const std::string* v = n.metadata.labels.find(ga)) return *v;
    return {};
  };
  std::vector<std::string> keys;
  keys.reserve(nodes.size());
  bool any = false;
  for (const api::Node& n : nodes) {
    const std::string_view zone = label(n, "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
    const std::string_view region =
        label(n, "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
    if (zone.empty() && region.empty()) {
      keys.emplace_back();
      continue;
    }
    any = true;
    std::string key(region);
    key.append(":\0:", 3).append(zone);
    keys.push_back(std::move(key));
  }
  if (!any) return {};
  // addNode in list order: zones in order of first appearance.
  std::vector<std::vector<size_t>> zones;
  std::unordered_map<std::string, size_t> zone_of;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto [it, inserted] = zone_of.emplace(keys[i], zones.size());
    if (inserted) zones.emplace_back();
    zones[it->second].push_back(i);
  }
  // list(): the i-th node of every zone that has one, for i = 0, 1, ...
  std::vector<size_t> order;
  order.reserve(nodes.size());
  for (size_t i = 0; order.size() < nodes.size(); ++i) {
    for (const std::vector<size_t>& zone : zones) {
      if (i < zone.size()) order.push_back(zone[i]);
    }
  }
  return order;
}

std::vector<size_t> PendingQueue(const Snapshot& snapshot) {
  std::vector<size_t> queue;
  for (size_t i = 0; i < snapshot.pods.size(); ++i) {
    if (IsPending(snapshot.pods[i])) queue.push_back(i);
  }
  std::stable_sort(queue.begin(), queue.end(), [&](size_t a, size_t b) {
    const api::Pod& pa = snapshot.pods[a];
    const api::Pod& pb = snapshot.pods[b];
    int32_t prio_a = pa.spec.priority.value_or(0), prio_b = pb.spec.priority.value_or(0);
    if (prio_a != prio_b) return prio_a > prio_b;
    if (pa.metadata.creation_timestamp != pb.metadata.creation_timestamp) {
      return pa.metadata.creation_timestamp < pb.metadata.creation_timestamp;
    }
    return std::tie(pa.metadata.namespace_, pa.metadata.name) < std::tie(pb.metadata.namespace_, pb.metadata.name);
  });
  return queue;
}

StatusOr<ScheduleResult> Schedule(Snapshot* snapshot, const ScheduleOptions& options) {
  if (options.policy == nullptr) return InvalidArgumentError("no scoring policy");
  alloc::Features features = alloc::Features::FromGates(snapshot->gates);
  StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> cel = alloc::NewCelSelectorEvaluator(features);
  if (!cel.ok()) return cel.status();
  std::optional<alloc::SliceIndex> own_slices;
  if (options.slice_index == nullptr) {
    std::vector<const api::ResourceSlice*> slices;
    for (const api::ResourceSlice& s : snapshot->slices) slices.push_back(&s);
    own_slices.emplace(std::move(slices));
  }
  std::optional<NodeIndex> own_nodes;
  if (options.node_index == nullptr) own_nodes.emplace(snapshot->nodes);
  ScheduleResult result;
  Scheduler scheduler(snapshot, options, own_slices ? *own_slices : *options.slice_index,
                      own_nodes ? *own_nodes : *options.node_index, cel->get(), features, &result);
  const std::vector<size_t> queue =
      options.queue.empty() ? PendingQueue(*snapshot) : std::vector<size_t>(options.queue.begin(), options.queue.end());
  if (!snapshot->gates.enabled(api::Gate::kGenericWorkload)) {
    // No pod groups: the pods one by one.
    for (size_t pod_idx : queue) {
      result.pods.push_back(scheduler.Run(pod_idx));
      if (options.after_pod && !options.after_pod(pod_idx, result.pods.back())) break;
    }
  }
  for (const GroupEntity& entity : snapshot->gates.enabled(api::Gate::kGenericWorkload) ? GroupQueue(*snapshot, queue)
                                                                                        : std::vector<GroupEntity>{}) {
    if (!entity.is_group()) {
      const size_t pod_idx = entity.pods.front();
      result.pods.push_back(scheduler.Run(pod_idx));
      if (options.after_pod && !options.after_pod(pod_idx, result.pods.back())) break;
      continue;
    }
    GroupOutcome group;
    bool reported = false, stop = false;
    std::vector<PodOutcome> outs = scheduler.RunGroup(entity, &group, &reported, &stop);
    result.groups.push_back(std::move(group));
    for (size_t i = 0; i < outs.size() && !stop; ++i) {
      result.pods.push_back(std::move(outs[i]));
      if (options.after_pod && !reported) stop = !options.after_pod(entity.pods[i], result.pods.back());
    }
    if (stop) break;
  }
  SortUnique(result.changed_pods);
  SortUnique(result.changed_claims);
  SortUnique(result.created_claims);
  return result;
}

}  // namespace dra::sched
