// The simulator's native resource model (docs/fgd.md §3): per
// node the free CPU, memory, pod slots and the free milli of each GPU; per pod
// its shape. All integers. Policies (policies.h) and the fragmentation metric
// (frag.h) read it; the DRA allocator checks the decisions made on it
// (dra_check.h).
//
// Invariants:
//   1. 0 <= gpu_free[i] <= 1000 for i < gpus; gpu_free[i] = 0 for i >= gpus.
//   2. gpu_free_total = sum of gpu_free.
//   3. classes holds one bit per class of GPU pod placed on the node
//      (ClassBit); CPU-only pods set none. class_pods[b] counts the pods
//      on the node of class bit b; bit b of classes is set iff it is > 0.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/openb.h"

namespace dra::sim {

inline constexpr int kMaxGpus = 16;
inline constexpr int32_t kGpuMilli = 1000;

// A pod as the scheduler sees it: (cpu, milli per GPU, count, model set) plus
// memory for the fit filter.
struct PodShape {
  int64_t cpu = 0;
  int64_t memory = 0;              // MiB
  int32_t milli = 0;               // per GPU; 0 = CPU-only
  int32_t count = 0;               // GPUs; 0 when milli is 0
  uint64_t models = ~uint64_t{0};  // bit m: the node model with id m is allowed
  int32_t spec = 0;                // index into Cluster::specs() ("" = any model is 0)

  bool cpu_only() const { return milli == 0; }
  bool sharing() const { return milli > 0 && milli < kGpuMilli && count == 1; }
  int64_t gpu_total() const { return int64_t{milli} * count; }
};

struct SimNode {
  std::string name;
  int64_t cpu_free = 0;
  int64_t memory_free = 0;
  int64_t pods = 0;  // bound pods
  int32_t gpus = 0;
  int32_t model = -1;  // model id, -1 without GPUs
  int64_t gpu_free_total = 0;
  uint32_t classes = 0;  // see invariant 3
  std::array<int32_t, kMaxGpus> gpu_free{};
  std::array<int32_t, 32> class_pods{};  // pods per class bit (for Remove)
};

// Pod class bits for GpuClustering: bit 0 = share-gpu, bit k = k-gpu.
uint32_t ClassBit(const PodShape& pod);

// Kept GPU indices of one placement, lowest first.
struct GpuPick {
  std::array<int8_t, kMaxGpus> index{};
  int32_t size = 0;
  std::span<const int8_t> indices() const { return {index.data(), static_cast<size_t>(size)}; }
};

// Nodes, the model-name table and the spec strings of the pods.
class Cluster {
 public:
  // kInvalidArgument for a node with more than kMaxGpus GPUs or more than 64 models.
  static StatusOr<Cluster> Build(std::span<const OpenbNode> nodes);

  std::vector<SimNode>& nodes() { return nodes_; }
  const std::vector<SimNode>& nodes() const { return nodes_; }
  int64_t gpu_capacity() const { return gpu_capacity_; }
  const std::vector<std::string>& models() const { return models_; }
  const std::vector<std::string>& specs() const { return specs_; }

  // The shape of `pod`; its gpu_spec is interned into specs(). Unknown models
  // in the spec match no node.
  PodShape Shape(const OpenbPod& pod);

  // Filter (§2.4): CPU, memory, pod slots, then GPUs (model, count/share).
  bool Fits(const SimNode& node, const PodShape& pod) const;
  // The GPU half of Fits (Open-Gpu-Share; what DRA decides): true for
  // CPU-only pods.
  static bool GpuFits(const SimNode& node, const PodShape& pod);
  // Places `pod` on `node` with GPUs `pick` (empty for CPU-only pods).
  void Place(SimNode& node, const PodShape& pod, const GpuPick& pick) const;
  // Undoes Place(node, pod, pick): the pod leaves the node.
  void Remove(SimNode& node, const PodShape& pod, const GpuPick& pick) const;

  // The GPU choice "best" (§3.2): among GPUs with free >= milli, smallest
  // free first, ties by lower index; the first `count`. For whole-GPU pods
  // these are the lowest-index fully free GPUs. size < count if they do not fit.
  static GpuPick PickBest(const SimNode& node, const PodShape& pod);

  // Allocated milli-GPU over all nodes.
  int64_t Allocated() const;

 private:
  std::vector<SimNode> nodes_;
  std::vector<std::string> models_;
  std::vector<std::string> specs_{""};
  int64_t gpu_capacity_ = 0;
};

}  // namespace dra::sim
