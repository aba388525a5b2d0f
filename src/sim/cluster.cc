// The native model's filter and placement, mirroring the authors' fit filter
// (kube-scheduler NodeResourcesFit) and Open-Gpu-Share filter/reserve.
#include "sim/cluster.h"

#include <algorithm>
#include <bit>

#include "fmt/format.h"
#include "sim/import.h"

namespace dra::sim {

uint32_t ClassBit(const PodShape& pod) {
  if (pod.cpu_only()) return 0;
  if (pod.sharing()) return 1u;
  return 1u << std::min(pod.count, 31);
}

StatusOr<Cluster> Cluster::Build(std::span<const OpenbNode> nodes) {
  Cluster c;
  for (const OpenbNode& n : nodes) {
    if (n.gpus > kMaxGpus) {
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("node {}: {} GPUs (the simulator models at most {})", n.name, n.gpus, kMaxGpus));
    }
    SimNode s;
    s.name = n.name;
    s.cpu_free = n.cpu_milli;
    s.memory_free = n.memory_mib;
    s.gpus = static_cast<int32_t>(n.gpus);
    if (n.gpus > 0) {
      auto it = std::find(c.models_.begin(), c.models_.end(), n.model);
      if (it == c.models_.end()) {
        if (c.models_.size() == 64) return Status(StatusCode::kInvalidArgument, "more than 64 GPU models");
        c.models_.push_back(n.model);
        it = c.models_.end() - 1;
      }
      s.model = static_cast<int32_t>(it - c.models_.begin());
    }
    for (int32_t i = 0; i < s.gpus; ++i) s.gpu_free[static_cast<size_t>(i)] = kGpuMilli;
    s.gpu_free_total = int64_t{kGpuMilli} * s.gpus;
    c.gpu_capacity_ += s.gpu_free_total;
    c.nodes_.push_back(std::move(s));
  }
  return c;
}

PodShape Cluster::Shape(const OpenbPod& pod) {
  PodShape s;
  s.cpu = pod.cpu_milli;
  s.memory = pod.memory_mib;
  if (!pod.uses_gpu()) return s;
  s.milli = static_cast<int32_t>(pod.gpu_milli);
  s.count = static_cast<int32_t>(pod.num_gpu);
  auto it = std::find(specs_.begin(), specs_.end(), pod.gpu_spec);
  if (it == specs_.end()) {
    specs_.push_back(pod.gpu_spec);
    it = specs_.end() - 1;
  }
  s.spec = static_cast<int32_t>(it - specs_.begin());
  if (!pod.gpu_spec.empty()) {
    s.models = 0;
    for (const std::string& m : pod.SpecModels()) {
      auto mit = std::find(models_.begin(), models_.end(), m);
      if (mit != models_.end()) s.models |= uint64_t{1} << (mit - models_.begin());
    }
  }
  return s;
}

bool Cluster::Fits(const SimNode& node, const PodShape& pod) const {
  if (node.cpu_free < pod.cpu || node.memory_free < pod.memory || node.pods + 1 > kPodsPerNode) return false;
  return GpuFits(node, pod);
}

bool Cluster::GpuFits(const SimNode& node, const PodShape& pod) {
  if (pod.cpu_only()) return true;
  if (node.gpus == 0 || ((pod.models >> node.model) & 1) == 0) return false;
  int32_t fit = 0;
  for (int32_t i = 0; i < node.gpus; ++i) {
    if (node.gpu_free[static_cast<size_t>(i)] >= pod.milli && ++fit >= pod.count) return true;
  }
  return false;
}

GpuPick Cluster::PickBest(const SimNode& node, const PodShape& pod) {
  GpuPick pick;
  if (pod.cpu_only()) return pick;
  // Selection by (free, index): repeatedly the smallest eligible not taken.
  uint32_t taken = 0;
  for (int32_t k = 0; k < pod.count; ++k) {
    int32_t best = -1;
    for (int32_t i = 0; i < node.gpus; ++i) {
      int32_t f = node.gpu_free[static_cast<size_t>(i)];
      if (f < pod.milli || (taken >> i) & 1) continue;
      if (best < 0 || f < node.gpu_free[static_cast<size_t>(best)]) best = i;
    }
    if (best < 0) break;
    taken |= 1u << best;
  }
  for (int32_t i = 0; i < node.gpus; ++i) {
    if ((taken >> i) & 1) pick.index[static_cast<size_t>(pick.size++)] = static_cast<int8_t>(i);
  }
  return pick;
}

void Cluster::Place(SimNode& node, const PodShape& pod, const GpuPick& pick) const {
  node.cpu_free -= pod.cpu;
  node.memory_free -= pod.memory;
  node.pods += 1;
  for (int8_t i : pick.indices()) {
    node.gpu_free[static_cast<uint8_t>(i)] -= pod.milli;
    node.gpu_free_total -= pod.milli;
  }
  const uint32_t bit = ClassBit(pod);
  if (bit != 0) {
    node.classes |= bit;
    ++node.class_pods[static_cast<size_t>(std::countr_zero(bit))];
  }
}

void Cluster::Remove(SimNode& node, const PodShape& pod, const GpuPick& pick) const {
  node.cpu_free += pod.cpu;
  node.memory_free += pod.memory;
  node.pods -= 1;
  for (int8_t i : pick.indices()) {
    node.gpu_free[static_cast<uint8_t>(i)] += pod.milli;
    node.gpu_free_total += pod.milli;
  }
  const uint32_t bit = ClassBit(pod);
  if (bit != 0 && --node.class_pods[static_cast<size_t>(std::countr_zero(bit))] == 0) node.classes &= ~bit;
}

int64_t Cluster::Allocated() const {
  int64_t a = 0;
  for (const SimNode& n : nodes_) a += int64_t{kGpuMilli} * n.gpus - n.gpu_free_total;
  return a;
}

}  // namespace dra::sim
