// Upstream: pkg/scheduler/framework/plugins/noderesources (least_allocated.go,
// most_allocated.go, balanced_allocation.go, resource_allocation.go) and
// dynamicresources NormalizeScore.
#include "sched/policy.h"

#include "api/node_selector.h"
#include "sched/node_filters.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dra::sched {
namespace {

int64_t LeastRequested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t MostRequested(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * kMaxNodeScore / capacity;
}

class KubePolicy : public ScorePolicy {
 public:
  std::string_view name() const override { return "kube"; }
  int64_t Score(const NodeState& node, const api::Pod& /*pod*/, const PodFit& fit) const override {
    // Default plugin weights of 1.37 (pkg/scheduler/apis/config/v1/default_plugins.go): NodeResourcesFit 1,
    // NodeResourcesBalancedAllocation 1, DynamicResources 2 (applyDynamicResources).
    // TaintToleration 3 and NodeAffinity 2 (MultiPoint weights).
    return 3 * TaintTolerationScore(fit) + 2 * NodeAffinityScore(fit) + LeastAllocatedScore(node, fit) +
           BalancedAllocationScore(node, fit) + 2 * DraNormalizedScore(fit);
  }
  bool scores_node_preferences() const override { return true; }
  std::vector<PluginScore> Explain(const NodeState& node, const api::Pod& /*pod*/, const PodFit& fit) const override {
    std::vector<PluginScore> out = {{"TaintToleration", TaintTolerationScore(fit)},
                                    {"NodeAffinity", NodeAffinityScore(fit)},
                                    {"NodeResourcesFit", LeastAllocatedScore(node, fit)},
                                    {"NodeResourcesBalancedAllocation", BalancedAllocationScore(node, fit)},
                                    {"DynamicResources", DraNormalizedScore(fit)}};
    return out;
  }
};

class BinpackPolicy : public ScorePolicy {
 public:
  std::string_view name() const override { return "binpack"; }
  int64_t Score(const NodeState& node, const api::Pod& /*pod*/, const PodFit& fit) const override {
    return MostAllocatedScore(node, fit);
  }
};

class BestFitPolicy : public ScorePolicy {
 public:
  std::string_view name() const override { return "best-fit"; }
  int64_t Score(const NodeState& node, const api::Pod& /*pod*/, const PodFit& fit) const override {
    return BestFitScore(node, fit);
  }
};

// fgd and dra-pack: the scheduler scores with its DeviceModel.
class PackingPolicy : public ScorePolicy {
 public:
  explicit PackingPolicy(Packing packing) : packing_(packing) {}
  std::string_view name() const override { return packing_ == Packing::kFgd ? "fgd" : "dra-pack"; }
  int64_t Score(const NodeState& /*node*/, const api::Pod& /*pod*/, const PodFit& /*fit*/) const override { return 0; }
  Packing packing() const override { return packing_; }

 private:
  Packing packing_;
};

// Permille of `capacity` left after `requested`, clamped to 0..1000.
int64_t FreePermille(int64_t requested, int64_t capacity) {
  if (requested >= capacity) return 0;
  if (requested <= 0) return 1000;
  return (capacity - requested) * 1000 / capacity;
}

}  // namespace

int64_t LeastAllocatedScore(const NodeState& node, const PodFit& fit) {
  // Resources with zero allocatable are left out of the weights, as upstream.
  int64_t sum = 0, weights = 0;
  if (node.allocatable->milli_cpu > 0) {
    sum += LeastRequested(node.non_zero_requested->milli_cpu + fit.non_zero_requests.milli_cpu,
                          node.allocatable->milli_cpu);
    ++weights;
  }
  if (node.allocatable->memory > 0) {
    sum += LeastRequested(node.non_zero_requested->memory + fit.non_zero_requests.memory, node.allocatable->memory);
    ++weights;
  }
  return weights == 0 ? 0 : sum / weights;
}

namespace {

// balancedResourceScore: (1 - the standard deviation of the cpu and memory
// fractions, each capped at 1) * 100, truncated.
int64_t BalancedResourceScore(int64_t milli_cpu, int64_t memory, const Resources& allocatable) {
  double fractions[2] = {0, 0};
  size_t count = 0;
  auto add = [&](int64_t requested, int64_t capacity) {
    if (capacity == 0) return;
    double f = static_cast<double>(requested) / static_cast<double>(capacity);
    fractions[count++] = f > 1 ? 1 : f;
  };
  add(milli_cpu, allocatable.milli_cpu);
  add(memory, allocatable.memory);
  double std_dev = count == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0;
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

}  // namespace

int64_t BalancedAllocationScore(const NodeState& node, const PodFit& fit) {
  // PreScore skips the plugin for a pod that requests neither cpu nor memory.
  if (fit.requests.milli_cpu == 0 && fit.requests.memory == 0) return 0;
  // 1.37 (balanced_allocation.go balancedResourceScorer) scores the change
  // in balance: 50 + (50 + with the pod - without it) / 2, so that a pod
  // that evens the node out scores towards 100, one that unbalances it
  // towards 50.
  const int64_t with_pod = BalancedResourceScore(node.requested->milli_cpu + fit.requests.milli_cpu,
                                                 node.requested->memory + fit.requests.memory, *node.allocatable);
  const int64_t without_pod =
      BalancedResourceScore(node.requested->milli_cpu, node.requested->memory, *node.allocatable);
  return kMaxNodeScore / 2 + (kMaxNodeScore / 2 + with_pod - without_pod) / 2;
}

int64_t DraNormalizedScore(const PodFit& fit) {
  if (fit.dra_max_raw_score <= 0) return 0;
  return kMaxNodeScore * fit.dra_raw_score / fit.dra_max_raw_score;
}

int64_t IntolerablePreferNoScheduleTaints(const api::Pod& pod, const api::Node& node) {
  int64_t count = 0;
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != api::TaintEffect::kPreferNoSchedule) continue;
    // Only tolerations with effect PreferNoSchedule or none can tolerate it
    // (ToleratesTaint checks the effect).
    bool tolerated = std::any_of(pod.spec.tolerations.begin(), pod.spec.tolerations.end(),
                                 [&](const api::Toleration& t) { return ToleratesTaint(t, taint); });
    if (!tolerated) ++count;
  }
  return count;
}

int64_t TaintTolerationScore(const PodFit& fit) {
  // helper.DefaultNormalizeScore(MaxNodeScore, reverse = true, ...).
  if (fit.taint_max_raw_score <= 0) return kMaxNodeScore;
  return kMaxNodeScore - kMaxNodeScore * fit.taint_raw_score / fit.taint_max_raw_score;
}

bool HasPreferredNodeAffinity(const api::Pod& pod) {
  return pod.spec.affinity && pod.spec.affinity->node_affinity &&
         !pod.spec.affinity->node_affinity->preferred_during_scheduling_ignored_during_execution.empty();
}

int64_t PreferredNodeAffinityWeight(const api::Pod& pod, const api::Node& node) {
  if (!HasPreferredNodeAffinity(pod)) return 0;
  int64_t sum = 0;
  for (const api::PreferredSchedulingTerm& term :
       pod.spec.affinity->node_affinity->preferred_during_scheduling_ignored_during_execution) {
    StatusOr<bool> match = api::MatchesNodeSelectorTerm(term.preference, node.metadata.name, node.metadata.labels);
    if (match.ok() && *match) sum += term.weight;
  }
  return sum;
}

int64_t NodeAffinityScore(const PodFit& fit) {
  // helper.DefaultNormalizeScore(MaxNodeScore, reverse = false, ...).
  if (!fit.affinity_scored || fit.affinity_max_raw_score <= 0) return 0;
  return kMaxNodeScore * fit.affinity_raw_score / fit.affinity_max_raw_score;
}

int64_t MostAllocatedScore(const NodeState& node, const PodFit& fit) {
  int64_t sum = 0, weights = 0;
  if (node.allocatable->milli_cpu > 0) {
    sum += MostRequested(node.non_zero_requested->milli_cpu + fit.non_zero_requests.milli_cpu,
                         node.allocatable->milli_cpu);
    ++weights;
  }
  if (node.allocatable->memory > 0) {
    sum += MostRequested(node.non_zero_requested->memory + fit.non_zero_requests.memory, node.allocatable->memory);
    ++weights;
  }
  if (node.devices > 0) {
    sum += MostRequested(node.devices_in_use + fit.devices_taken, node.devices);
    ++weights;
  }
  return weights == 0 ? 0 : sum / weights;
}

int64_t BestFitScore(const NodeState& node, const PodFit& fit) {
  const int64_t free_devices = std::max<int64_t>(0, node.devices - node.devices_in_use - fit.devices_taken);
  int64_t sum = 0, weights = 0;
  if (node.allocatable->milli_cpu > 0) {
    sum += FreePermille(node.requested->milli_cpu + fit.requests.milli_cpu, node.allocatable->milli_cpu);
    ++weights;
  }
  if (node.allocatable->memory > 0) {
    sum += FreePermille(node.requested->memory + fit.requests.memory, node.allocatable->memory);
    ++weights;
  }
  const int64_t free_permille = weights == 0 ? 0 : sum / weights;
  return -(free_devices * 1000 + free_permille);
}

StatusOr<std::unique_ptr<ScorePolicy>> NewPolicy(std::string_view name) {
  if (name == "kube") return std::unique_ptr<ScorePolicy>(std::make_unique<KubePolicy>());
  if (name == "binpack") return std::unique_ptr<ScorePolicy>(std::make_unique<BinpackPolicy>());
  if (name == "best-fit") return std::unique_ptr<ScorePolicy>(std::make_unique<BestFitPolicy>());
  if (name == "fgd") return std::unique_ptr<ScorePolicy>(std::make_unique<PackingPolicy>(Packing::kFgd));
  if (name == "dra-pack") return std::unique_ptr<ScorePolicy>(std::make_unique<PackingPolicy>(Packing::kDraPack));
  return InvalidArgumentError("unknown policy \"" + std::string(name) + "\" (want " + std::string(kPolicyNames) + ")");
}

}  // namespace dra::sched
