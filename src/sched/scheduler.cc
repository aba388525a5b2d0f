// One scheduling cycle per pending pod, mirroring kube-scheduler's framework
// (schedule_one.go: findNodesThatFitPod, prioritizeNodes, selectHost) with
// the DynamicResources plugin of scheduler-plugin.md §4. Nodes are filtered
// one by one in name order and all of them are evaluated (upstream stops
// after "enough" feasible nodes only in clusters of more than 100 nodes).
#include "sched/scheduler.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "alloc/pools.h"
#include "api/node_selector.h"
#include "sched/node_filters.h"
#include "sched/pod_claims.h"
#include "sched/resources.h"

namespace dra::sched {
namespace {

uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string Key(const api::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

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
  const std::string key = Key(claim.metadata);
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

struct Candidate {
  size_t node = 0;
  NodeState state{};
  PodFit fit{};
  std::vector<api::AllocationResult> allocations{};  // one per claim to allocate
};

class Cycle {
 public:
  Cycle(Snapshot* snapshot, const ScheduleOptions& options, const alloc::SliceIndex& index,
        alloc::SelectorEvaluator* selectors, const alloc::Features& features, uint64_t* share_counter,
        ScheduleResult* result)
      : s_(*snapshot),
        options_(options),
        index_(index),
        selectors_(selectors),
        features_(features),
        share_counter_(share_counter),
        result_(*result) {}

  PodOutcome Run(size_t pod_idx);

 private:
  PodOutcome Fail(PodOutcome out, PodOutcome::Kind kind, std::string message) {
    out.kind = kind;
    out.message = std::move(message);
    return out;
  }
  NodeState StateOf(const api::Node& node, const alloc::AllocatedState& allocated) const;

  Snapshot& s_;
  const ScheduleOptions& options_;
  const alloc::SliceIndex& index_;
  alloc::SelectorEvaluator* selectors_;
  const alloc::Features& features_;
  uint64_t* share_counter_;
  ScheduleResult& result_;
};

NodeState Cycle::StateOf(const api::Node& node, const alloc::AllocatedState& allocated) const {
  NodeState st;
  st.node = &node;
  st.allocatable = NodeAllocatable(node);
  for (const api::Pod& p : s_.pods) {
    if (!IsActiveOnNode(p) || p.spec.node_name != node.metadata.name) continue;
    st.requested.Add(PodRequests(p));
    st.non_zero_requested.Add(PodRequests(p, /*non_zero=*/true));
  }
  StatusOr<std::vector<alloc::Pool>> pools = alloc::GatherPools(index_, node, features_);
  if (pools.ok()) {
    for (const alloc::Pool& pool : *pools) {
      if (pool.incomplete || pool.invalid) continue;
      for (const api::ResourceSlice* slice : pool.slices) {
        for (const api::Device& d : slice->spec.devices) {
          ++st.devices;
          if (allocated.devices.count(alloc::DeviceIdString(slice->spec.driver, pool.name, d.name)) > 0) {
            ++st.devices_in_use;
          }
        }
      }
    }
  }
  return st;
}

PodOutcome Cycle::Run(size_t pod_idx) {
  PodOutcome out;
  out.pod = Key(s_.pods[pod_idx].metadata);

  // The resource-claim controller runs independently of scheduling.
  std::vector<size_t> created = EnsurePodClaims(&s_, pod_idx);
  if (!created.empty()) {
    result_.changed_pods.push_back(pod_idx);
    for (size_t c : created) {
      result_.created_claims.push_back(c);
      result_.changed_claims.push_back(c);
    }
  }
  const api::Pod& pod = s_.pods[pod_idx];

  // PreEnqueue.
  if (const api::RawJson* gates = pod.spec.extra.find("schedulingGates"); gates != nullptr && *gates != "[]") {
    return Fail(std::move(out), PodOutcome::Kind::kUnschedulable, "waiting for scheduling gates: " + *gates);
  }
  if (!pod.spec.scheduler_name.empty() && pod.spec.scheduler_name != "default-scheduler") {
    return Fail(std::move(out), PodOutcome::Kind::kUnschedulable,
                fmt::format("spec.schedulerName is \"{}\", not default-scheduler", pod.spec.scheduler_name));
  }
  StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(s_, pod);
  if (!refs.ok()) return Fail(std::move(out), PodOutcome::Kind::kUnschedulable, refs.status().message());

  // PreFilter.
  const size_t num_nodes = s_.nodes.size();
  std::vector<const api::ResourceClaim*> all_claims;
  std::vector<const api::ResourceClaim*> to_allocate;
  std::vector<bool> allocated_before;
  for (const PodClaimRef& ref : *refs) {
    const api::ResourceClaim* c = &s_.claims[ref.claim];
    all_claims.push_back(c);
    allocated_before.push_back(c->status.allocation.has_value());
    if (!c->status.allocation) to_allocate.push_back(c);
  }
  std::vector<const api::ResourceClaim*> allocated_claims;
  for (const api::ResourceClaim& c : s_.claims) {
    if (c.status.allocation) allocated_claims.push_back(&c);
  }
  alloc::AllocatedState state;
  if (Status st = state.AddClaims(allocated_claims, features_); !st.ok()) {
    return Fail(std::move(out), PodOutcome::Kind::kError,
                fmt::format("running PreFilter plugin \"{}\": {}", kDynamicResourcesPlugin, st.message()));
  }
  std::vector<const api::DeviceClass*> classes;
  for (const api::DeviceClass& c : s_.classes) classes.push_back(&c);
  alloc::AllocatorOptions alloc_options;
  if (options_.max_steps != 0) alloc_options.max_steps = options_.max_steps;
  uint64_t seed = options_.seed;
  uint64_t* counter = share_counter_;
  alloc_options.new_share_id = [seed, counter] { return StableUid(fmt::format("share/{}/{}", seed, (*counter)++)); };
  alloc::AllocatedState state_copy = state;
  alloc::Allocator allocator(features_, std::move(state_copy), classes, &index_, selectors_, std::move(alloc_options));
  for (const api::ResourceClaim* c : to_allocate) {
    StatusOr<std::optional<std::string>> check = CheckClaimRequests(*c, allocator, features_);
    if (!check.ok()) {
      return Fail(std::move(out), PodOutcome::Kind::kError,
                  fmt::format("running PreFilter plugin \"{}\": {}", kDynamicResourcesPlugin,
                              check.status().message()));
    }
    if (*check) {
      return Fail(std::move(out), PodOutcome::Kind::kUnschedulable,
                  fmt::format("0/{} nodes are available: {}.", num_nodes, **check));
    }
  }

  // Filter.
  const Resources requests = PodRequests(pod);
  const Resources non_zero_requests = PodRequests(pod, /*non_zero=*/true);
  std::vector<Candidate> feasible;
  for (size_t node_idx = 0; node_idx < num_nodes; ++node_idx) {
    const api::Node& node = s_.nodes[node_idx];
    NodeRejection rejection{.node = node.metadata.name};
    auto reject = [&](std::string plugin, std::vector<std::string> reasons, std::string detail = {}) {
      rejection.plugin = std::move(plugin);
      rejection.reasons = std::move(reasons);
      rejection.detail = std::move(detail);
      out.rejections.push_back(std::move(rejection));
    };
    if (auto r = FilterUnschedulable(pod, node); !r.empty()) {
      reject("NodeUnschedulable", std::move(r));
      continue;
    }
    if (auto r = FilterNodeName(pod, node); !r.empty()) {
      reject("NodeName", std::move(r));
      continue;
    }
    if (auto r = FilterTaints(pod, node); !r.empty()) {
      reject("TaintToleration", std::move(r));
      continue;
    }
    StatusOr<std::vector<std::string>> affinity = FilterNodeAffinity(pod, node);
    if (!affinity.ok()) {
      return Fail(std::move(out), PodOutcome::Kind::kError,
                  fmt::format("running \"NodeAffinity\" filter plugin: {}", affinity.status().message()));
    }
    if (!affinity->empty()) {
      reject("NodeAffinity", std::move(*affinity));
      continue;
    }
    Candidate cand{.node = node_idx, .state = StateOf(node, state)};
    Resources on_node = cand.state.requested;
    on_node.pods = 0;
    for (const api::Pod& p : s_.pods) {
      if (IsActiveOnNode(p) && p.spec.node_name == node.metadata.name) ++on_node.pods;
    }
    if (auto r = FilterResources(requests, on_node, cand.state.allocatable); !r.empty()) {
      reject("NodeResourcesFit", std::move(r));
      continue;
    }
    // DynamicResources (§4.4).
    if (all_claims.empty()) {
      cand.fit = PodFit{.requests = requests, .non_zero_requests = non_zero_requests};
      feasible.push_back(std::move(cand));
      continue;
    }
    bool unavailable = false;
    for (const api::ResourceClaim* c : all_claims) {
      if (!c->status.allocation || !c->status.allocation->node_selector) continue;
      StatusOr<bool> match =
          api::MatchesNodeSelector(*c->status.allocation->node_selector, node.metadata.name, node.metadata.labels);
      if (!match.ok()) {
        return Fail(std::move(out), PodOutcome::Kind::kError,
                    fmt::format("running PreFilter plugin \"{}\": claim {}: {}", kDynamicResourcesPlugin,
                                Key(c->metadata), match.status().message()));
      }
      if (!*match) unavailable = true;
    }
    std::vector<api::AllocationResult> allocations;
    if (!to_allocate.empty()) {
      StatusOr<alloc::NodeFit> fit = allocator.Allocate(node, to_allocate);
      if (!fit.ok()) {
        return Fail(std::move(out), PodOutcome::Kind::kError,
                    fmt::format("running \"{}\" filter plugin: {}", kDynamicResourcesPlugin, fit.status().message()));
      }
      if (!fit->fits) {
        if (fit->reason.invalid_pools) {
          reject(kDynamicResourcesPlugin, {fit->reason.message}, fit->reason.message);
        } else {
          reject(kDynamicResourcesPlugin, {"cannot allocate all claims"}, fit->reason.ToString());
        }
        continue;
      }
      allocations = std::move(fit->results);
    }
    if (unavailable) {
      reject(kDynamicResourcesPlugin, {"resourceclaim not available on the node"});
      continue;
    }
    cand.fit = PodFit{.requests = requests, .non_zero_requests = non_zero_requests};
    size_t next = 0;
    for (size_t i = 0; i < all_claims.size(); ++i) {
      const api::AllocationResult& a = allocated_before[i] ? *all_claims[i]->status.allocation : allocations[next++];
      if (features_.prioritized_list) cand.fit.dra_raw_score += PrioritizedListScore(*all_claims[i], a);
      if (!allocated_before[i]) {
        for (const auto& r : a.devices.results) {
          if (!r.admin_access.value_or(false) && !r.share_id) ++cand.fit.devices_taken;
        }
      }
    }
    cand.allocations = std::move(allocations);
    feasible.push_back(std::move(cand));
  }
  if (feasible.empty()) {
    return Fail(std::move(out), PodOutcome::Kind::kUnschedulable, FitErrorMessage(num_nodes, out.rejections));
  }

  // Score and select.
  int64_t max_raw = 0;
  for (const Candidate& c : feasible) max_raw = std::max(max_raw, c.fit.dra_raw_score);
  size_t best = 0;
  int64_t best_score = 0;
  uint64_t best_tie = 0;
  for (size_t i = 0; i < feasible.size(); ++i) {
    feasible[i].fit.dra_max_raw_score = max_raw;
    int64_t score = options_.policy->Score(feasible[i].state, pod, feasible[i].fit);
    uint64_t tie = Fnv1a(fmt::format("{}/{}/{}", options_.seed, out.pod, s_.nodes[feasible[i].node].metadata.name));
    if (i == 0 || score > best_score || (score == best_score && tie < best_tie)) {
      best = i;
      best_score = score;
      best_tie = tie;
    }
  }
  Candidate& chosen = feasible[best];
  const std::string& node_name = s_.nodes[chosen.node].metadata.name;

  // PreBind: the API server refuses a 257th reservedFor entry.
  for (const api::ResourceClaim* c : all_claims) {
    bool reserved = std::any_of(c->status.reserved_for.begin(), c->status.reserved_for.end(),
                                [&](const auto& r) { return r.uid == pod.metadata.uid; });
    if (!reserved && c->status.reserved_for.size() >= kReservedForMaxSize) {
      return Fail(std::move(out), PodOutcome::Kind::kError,
                  fmt::format("ResourceClaim.resource.k8s.io \"{}\" is invalid: status.reservedFor: Too many: {}: "
                              "must have at most {} items",
                              c->metadata.name, c->status.reserved_for.size() + 1, kReservedForMaxSize));
    }
  }

  // Reserve + Bind.
  out.kind = PodOutcome::Kind::kPlaced;
  out.node = node_name;
  out.score = best_score;
  size_t next = 0;
  for (size_t i = 0; i < refs->size(); ++i) {
    api::ResourceClaim& c = s_.claims[(*refs)[i].claim];
    if (!allocated_before[i]) {
      c.status.allocation = std::move(chosen.allocations[next++]);
      if (std::find(c.metadata.finalizers.begin(), c.metadata.finalizers.end(), kDeleteProtectionFinalizer) ==
          c.metadata.finalizers.end()) {
        c.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
      }
    }
    bool reserved = std::any_of(c.status.reserved_for.begin(), c.status.reserved_for.end(),
                                [&](const auto& r) { return r.uid == pod.metadata.uid; });
    if (!reserved) {
      c.status.reserved_for.push_back(api::ResourceClaimConsumerReference{
          .resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid});
    }
    if (!allocated_before[i] || !reserved) result_.changed_claims.push_back((*refs)[i].claim);
    out.claims.push_back(ClaimPlacement{.pod_claim = (*refs)[i].pod_claim,
                                        .claim = Key(c.metadata),
                                        .allocated_now = !allocated_before[i],
                                        .results = c.status.allocation->devices.results});
  }
  s_.pods[pod_idx].spec.node_name = node_name;
  result_.changed_pods.push_back(pod_idx);
  return out;
}

void SortUnique(std::vector<size_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

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
  std::vector<const api::ResourceSlice*> slices;
  for (const api::ResourceSlice& s : snapshot->slices) slices.push_back(&s);
  alloc::SliceIndex index(std::move(slices));
  ScheduleResult result;
  uint64_t share_counter = 0;
  for (size_t pod_idx : PendingQueue(*snapshot)) {
    Cycle cycle(snapshot, options, index, cel->get(), features, &share_counter, &result);
    result.pods.push_back(cycle.Run(pod_idx));
  }
  SortUnique(result.changed_pods);
  SortUnique(result.changed_claims);
  SortUnique(result.created_claims);
  return result;
}

}  // namespace dra::sched
