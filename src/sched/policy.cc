// Upstream: pkg/scheduler/framework/plugins/noderesources (least_allocated.go,
// most_allocated.go, balanced_allocation.go, resource_allocation.go) and
// dynamicresources NormalizeScore.
#include "sched/policy.h"

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
    return LeastAllocatedScore(node, fit) + BalancedAllocationScore(node, fit) + 2 * DraNormalizedScore(fit);
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

int64_t BalancedAllocationScore(const NodeState& node, const PodFit& fit) {
  // PreScore skips the plugin for a pod that requests neither cpu nor memory.
  if (fit.requests.milli_cpu == 0 && fit.requests.memory == 0) return 0;
  double fractions[2] = {0, 0};
  size_t count = 0;
  auto add = [&](int64_t requested, int64_t allocatable) {
    if (allocatable == 0) return;
    double f = static_cast<double>(requested) / static_cast<double>(allocatable);
    fractions[count++] = f > 1 ? 1 : f;
  };
  add(node.requested->milli_cpu + fit.requests.milli_cpu, node.allocatable->milli_cpu);
  add(node.requested->memory + fit.requests.memory, node.allocatable->memory);
  double std_dev = count == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0;
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

int64_t DraNormalizedScore(const PodFit& fit) {
  if (fit.dra_max_raw_score <= 0) return 0;
  return kMaxNodeScore * fit.dra_raw_score / fit.dra_max_raw_score;
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
