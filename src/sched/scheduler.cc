// One scheduling cycle per pending pod, mirroring kube-scheduler's framework
// (schedule_one.go: findNodesThatFitPod, prioritizeNodes, selectHost) with
// the DynamicResources plugin (README.md §4; upstream's dynamicresources.go;
// the bare § numbers below point into the same README). Nodes are filtered
// one by one in name order, starting where the previous pod stopped, until
// NumFeasibleNodesToFind nodes fit (upstream filters in parallel, so which
// nodes it finds first can vary; here the order is fixed).
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
          return InvalidArgumentError(
              fmt::format("request {}/{}: unsupported request type", request.name, sub.name));
        }
        if (allocator.FindClass(sub.device_class_name) == nullptr) {
          return std::optional<std::string>(fmt::format("request {}/{}: device class {} does not exist",
                                                        request.name, sub.name, sub.device_class_name));
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
  uint32_t signature = 0;      // 0: nothing remembered
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
    verdicts_.resize(s_.nodes.size());
    why_not_.resize(s_.nodes.size());
    handles_.resize(s_.nodes.size());
    allocatable_.reserve(s_.nodes.size());
    for (const api::Node& n : s_.nodes) allocatable_.push_back(NodeAllocatable(n));
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
        std::vector<size_t> pending = options_.queue.empty() ? PendingQueue(s_)
                                                             : std::vector<size_t>(options_.queue.begin(),
                                                                                   options_.queue.end());
        own_profile_ = BuildProfile(ShapesOfPods(s_, pending), "pending pods");
        profile = &own_profile_;
      }
      result_.profile = profile->Describe();
      model_ = DeviceModel::New(s_, profile, selectors, features_);
    }
  }

  PodOutcome Run(size_t pod_idx);

 private:
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
    // A pod of a pod group (spec.schedulingGroup) is placed by upstream's
    // GangScheduling plugin together with its group, all or nothing, and may
    // share the group's claims. dractl does neither; placing the pods one by
    // one would break the group's contract, so the pod is left alone.
    if (std::optional<std::string> group = PodGroupName(pod)) {
      return fmt::format("the pod belongs to pod group {} (spec.schedulingGroup): dractl does not schedule pod "
                         "groups (gang scheduling, pod group claims); use kube-scheduler for them",
                         group->empty() ? std::string("(unnamed)") : fmt::format("\"{}\"", *group));
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
        for (DraVerdict& v : verdicts_[*idx]) v = DraVerdict{};
      }
    }
    changed_nodes_.clear();
  }
  // The verdict remembered for `signature` on a node: a direct-mapped table
  // of kVerdictSlots per node, made on the node's first use, so that pods
  // of different templates arriving in turn (a trace) each find theirs.
  static constexpr size_t kVerdictSlots = 128;
  DraVerdict& VerdictSlot(size_t node_idx, uint32_t signature) {
    std::vector<DraVerdict>& slots = verdicts_[node_idx];
    if (slots.empty()) slots.resize(kVerdictSlots);
    return slots[signature % kVerdictSlots];
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
    return (static_cast<uint64_t>(signature) * 0x9E3779B97F4A7C15ULL) ^
           static_cast<uint64_t>(requests.milli_cpu) * 31 ^ static_cast<uint64_t>(requests.memory);
  }
  std::unordered_multimap<uint64_t, size_t> class_index_;  // into classes_
  std::vector<PodClass> classes_;
  size_t rejected_words_ = 0;  // in all classes' `rejected`
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
    const api::Pod* pod = nullptr;  // &s_.pods[pod_idx], once the claim controller ran
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
  std::optional<PodOutcome> PreFilter(Cycle& c);
  std::optional<PodOutcome> Classify(Cycle& c);
  std::optional<PodOutcome> Filter(Cycle& c);
  Status FilterDra(size_t node_idx, const std::vector<const api::ResourceClaim*>& node_to_allocate,
                   uint32_t node_signature, std::span<const api::ResourceClaim* const> to_allocate,
                   DraVerdict& verdict);
  PodOutcome Unschedulable(Cycle& c);
  void ScoreAndSelect(Cycle& c);
  std::optional<PodOutcome> Reserve(Cycle& c);
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

  std::vector<NodeUsage> usage_;  // per node of s_.nodes
  std::vector<std::vector<DraVerdict>> verdicts_;  // per node of s_.nodes: VerdictSlot
  std::vector<DraWhyNot> why_not_;    // per node of s_.nodes
  std::vector<std::string> changed_nodes_;  // AddAllocation's, reused
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
  std::vector<int64_t> scores_;  // per feasible node, reused
  // Content of the templates seen in this run: a template with the same
  // spec as an earlier one stands for it (Signature).
  std::unordered_map<const api::ResourceClaimTemplate*, const api::ResourceClaimTemplate*> canonical_;
  std::unordered_map<std::string, std::vector<const api::ResourceClaimTemplate*>> distinct_;
  const api::ResourceClaimTemplate* Canonical(const api::ResourceClaimTemplate* t);
  const NodeIndex& node_index_;
  ExtendedResourceClasses extended_classes_;  // extended resources backed by DRA (§6)
  size_t next_start_node_ = 0;  // kube-scheduler's nextStartNodeIndex
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
    const api::ResourceClaimTemplate* tmpl = s_.FindTemplate(claim.metadata.namespace_, *prc.resource_claim_template_name);
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

  const size_t num_nodes = s_.nodes.size();
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
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("running PreFilter plugin \"{}\": {}", kDynamicResourcesPlugin,
                              check.status().message()));
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
  const bool comparable = !options_.unschedulable_texts && !c.extended && pod.spec.node_name.empty() &&
                          c.to_allocate.size() == c.all_claims.size() && (c.to_allocate.empty() || c.signature != 0);
  c.pod_class = comparable ? &ClassOf(c.pod_idx, c.requests, c.signature) : nullptr;
  if (c.pod_class != nullptr && c.pod_class->failed) {
    return Fail(std::move(c.out), PodOutcome::Kind::kUnschedulable,
                fmt::format("0/{} nodes are available.", s_.nodes.size()));
  }
  return std::nullopt;
}

// Filter: the nodes that fit, into c.feasible.
std::optional<PodOutcome> Scheduler::Filter(Cycle& c) {
  const api::Pod& pod = *c.pod;
  const size_t num_nodes = s_.nodes.size();
  // Locals, not reads through `c` after every call, in the loop.
  const Resources& requests = c.requests;
  const std::span<const api::ResourceClaim* const> all_claims = c.all_claims;
  const std::span<const api::ResourceClaim* const> to_allocate = c.to_allocate;
  ClaimsPerNode& claims_per_node = *c.claims_per_node;
  const bool extended = c.extended;
  const bool stale_extended_claim = c.stale_extended_claim;
  const uint32_t signature = c.signature;
  std::vector<uint64_t>* known_rejected =
      c.pod_class != nullptr && !c.pod_class->rejected.empty() ? &c.pod_class->rejected : nullptr;
  const bool record_rejected = options_.unschedulable_texts;
  rejected_.clear();
  std::vector<Candidate> feasible;
  // The packing policies compare every node unless told otherwise.
  const int32_t percentage = options_.percentage_of_nodes_to_score == 0 && options_.policy->packing() != Packing::kNone
                                 ? 100
                                 : options_.percentage_of_nodes_to_score;
  const size_t want_feasible = NumFeasibleNodesToFind(percentage, num_nodes);
  feasible.reserve(want_feasible);
  // A filter that passes every node for this pod is not called: a call costs
  // ~20 instructions even when it returns at once, on every node.
  const bool has_node_name = !pod.spec.node_name.empty();
  const bool has_node_affinity = HasNodeAffinity(pod);
  size_t processed = 0;
  for (; processed < num_nodes && feasible.size() < want_feasible; ++processed) {
    const size_t node_idx = (next_start_node_ + processed) % num_nodes;
    if (known_rejected != nullptr) {
      // Nodes that turned this pod's class down: passed over, as processed.
      const size_t skip = std::min(OnesFrom(*known_rejected, node_idx), num_nodes - processed);
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
      feasible.push_back(Candidate{.node = node_idx});
      continue;
    }
    bool unavailable = false;
    for (const api::ResourceClaim* claim : all_claims) {
      if (!claim->status.allocation || !claim->status.allocation->node_selector) continue;
      StatusOr<bool> match = api::MatchesNodeSelector(*claim->status.allocation->node_selector, node.metadata.name,
                                                      node.metadata.labels);
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
        if (Status st = FilterDra(node_idx, node_to_allocate, node_signature, to_allocate, verdict); !st.ok()) {
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
    feasible.push_back(cand);
  }
  if (num_nodes > 0) next_start_node_ = (next_start_node_ + processed) % num_nodes;
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
// `verdict`. Returns the allocator's error, with `verdict` cleared.
Status Scheduler::FilterDra(size_t node_idx, const std::vector<const api::ResourceClaim*>& node_to_allocate,
                            uint32_t node_signature, std::span<const api::ResourceClaim* const> to_allocate,
                            DraVerdict& verdict) {
  const alloc::Allocator& allocator = *allocator_;
  const alloc::Allocator::NodeHandle handle = HandleOf(node_idx);
  StatusOr<alloc::NodeFit> fit = allocator.Allocate(handle, node_to_allocate, alloc::Allocator::ResultDetail::kSummary);
  if (!fit.ok()) {
    verdict = DraVerdict{};
    return fit.status();
  }
  verdict = DraVerdict{.signature = node_signature, .fits = fit->fits};
  verdict.invalid_pools = !fit->fits && fit->reason.invalid_pools;
  if (fit->fits) {
    for (size_t i = 0; i < node_to_allocate.size(); ++i) {
      const api::AllocationResult& a = fit->results[i];
      if (features_.prioritized_list) verdict.raw_score += PrioritizedListScore(*node_to_allocate[i], a);
      for (const auto& r : a.devices.results) {
        if (!r.admin_access.value_or(false) && !r.share_id) ++verdict.devices_taken;
      }
    }
    alloc::Allocator::DeviceCount count = allocator.CountDevices(handle);
    verdict.devices = count.devices;
    verdict.devices_in_use = count.in_use;
  } else {
    WhyNot(node_idx, node_signature, to_allocate, std::move(fit->reason));
  }
  return OkStatus();
}

// No node fit (texts on): why not, per node, in kube-scheduler's words.
PodOutcome Scheduler::Unschedulable(Cycle& c) {
  const api::Pod& pod = *c.pod;
  const size_t num_nodes = s_.nodes.size();
  const alloc::Allocator& allocator = *allocator_;
  PodOutcome& out = c.out;
  // Why not, per node, in node order (the search may have started anywhere).
  std::sort(rejected_.begin(), rejected_.end(), [](const Rejected& a, const Rejected& b) { return a.node < b.node; });
  out.rejections.reserve(rejected_.size());
  std::vector<std::string> claim_keys;  // of to_allocate, built on first use
  for (const Rejected& r : rejected_) {
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
      case Rejected::kUnschedulable:
        FilterUnschedulable(pod, node, texts);
        break;
      case Rejected::kNodeName:
        FilterNodeName(pod, node, texts);
        break;
      case Rejected::kTaints:
        FilterTaints(pod, node, texts);
        break;
      case Rejected::kNodeAffinity:
        // It succeeded on this node in Filter (an error returned at once).
        (void)FilterNodeAffinity(pod, node, texts);
        break;
      case Rejected::kResources:
        FilterResources(c.requests, usage_[r.node].requested, allocatable_[r.node], &extended_classes_, texts);
        break;
      case Rejected::kStaleExtendedClaim:
        rejection.reasons = {"cannot schedule extended resource claim"};
        break;
      case Rejected::kExtendedCannotFit:
        rejection.reasons = {"cannot fit resource"};
        break;
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
      case Rejected::kNotAvailable:
        rejection.reasons = {"resourceclaim not available on the node"};
        break;
    }
    out.rejections.push_back(std::move(rejection));
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
  scores_.resize(feasible.size());
  for (size_t i = 0; i < feasible.size(); ++i) {
    const Candidate& cand = feasible[i];
    if (packing != Packing::kNone) {
      scores_[i] = model_->Score(cand.node, demand, packing);
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
    scores_[i] = options_.policy->Score(state, pod, fit);
  }
  options_.policy->Normalize(scores_);
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
    bool reserved = std::any_of(claim->status.reserved_for.begin(), claim->status.reserved_for.end(),
                                [&](const auto& r) { return r.uid == pod.metadata.uid; });
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
  if (!chosen_to_allocate.empty()) {
    // A device-model policy's choice inside the node: its devices first.
    alloc::DevicePreference preference;
    if (model_) {
      preference = model_->Choose(chosen.node, c.demand, c.packing,
                                  options_.device_choice == alloc::DeviceChoice::kBestFit);
    }
    StatusOr<alloc::NodeFit> full = allocator_->Allocate(HandleOf(chosen.node), chosen_to_allocate,
                                                         alloc::Allocator::ResultDetail::kFull, &preference);
    if (!full.ok()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("running \"{}\" filter plugin: {}", kDynamicResourcesPlugin, full.status().message()));
    }
    if (!full->fits || full->results.size() != chosen_to_allocate.size()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("internal error: node {} fit in Filter but not when allocating (please report this)",
                              node_name));
    }
    c.allocations = std::move(full->results);
  }
  // Reserve: the new allocations count for every later pod.
  changed_nodes_.clear();
  for (const api::AllocationResult& a : c.allocations) {
    Status st = allocator_->AddAllocation(a, &changed_nodes_);
    ForgetVerdicts();
    if (!st.ok()) {
      return Fail(std::move(c.out), PodOutcome::Kind::kError,
                  fmt::format("running Reserve plugin \"{}\": {}", kDynamicResourcesPlugin, st.message()));
    }
  }
  NodeUsage& usage = usage_[chosen.node];
  usage.requested.Add(c.requests);
  usage.non_zero_requested.Add(c.non_zero_requests);
  if (model_) {
    model_->AddPod(chosen.node, c.requests);
    for (const api::AllocationResult& a : c.allocations) model_->AddAllocation(a);
  }
  return std::nullopt;
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
  for (size_t i = 0; i < c.refs.size(); ++i) {
    api::ResourceClaim& claim = s_.claims[c.refs[i].claim];
    if (!c.allocated_before[i]) {
      claim.status.allocation = std::move(c.allocations[next++]);
      if (std::find(claim.metadata.finalizers.begin(), claim.metadata.finalizers.end(), kDeleteProtectionFinalizer) ==
          claim.metadata.finalizers.end()) {
        claim.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
      }
    }
    bool reserved = std::any_of(claim.status.reserved_for.begin(), claim.status.reserved_for.end(),
                                [&](const auto& r) { return r.uid == pod.metadata.uid; });
    if (!reserved) {
      claim.status.reserved_for.push_back(api::ResourceClaimConsumerReference{
          .resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid});
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
  for (size_t pod_idx : queue) {
    result.pods.push_back(scheduler.Run(pod_idx));
    if (options.after_pod && !options.after_pod(pod_idx, result.pods.back())) break;
  }
  SortUnique(result.changed_pods);
  SortUnique(result.changed_claims);
  SortUnique(result.created_claims);
  return result;
}

}  // namespace dra::sched
