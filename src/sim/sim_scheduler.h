// One scheduling cycle of the FGD simulator (docs/fgd.md §2.4)
// on the native model: filter every node, score the feasible ones with the
// policy, take the highest score (ties: the lowest per-run node rank), then
// choose the GPUs (§3.2). Keeps each node's fragmentation F (frag.h) up to
// date for FGD and for the metrics, and P (policies.h) for dra-pack.
//
// Not thread-safe; one SimScheduler per run. The cluster, typical pods, rank
// and rng are borrowed for the scheduler's life.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cluster.h"
#include "sim/frag.h"
#include "sim/policies.h"
#include "sim/rng.h"

namespace dra::sim {

struct Placement {
  size_t node = 0;
  GpuPick pick;
  int64_t score = 0;
};

class SimScheduler {
 public:
  // rank[n]: node n's tie-break priority (lower wins), a permutation.
  SimScheduler(Cluster* cluster, const TypicalPods* typical, Policy policy, std::span<const uint32_t> rank, Rng* rng);

  // Where `pod` goes, or nullopt if no node fits. Draws from the rng for the
  // random policy. Does not change the cluster.
  std::optional<Placement> Schedule(const PodShape& pod);
  // Binds `pod` as `placement` says and updates the node's F.
  void Place(const PodShape& pod, const Placement& placement);
  // The pod placed as `placement` leaves; updates the node's F (and P).
  void Remove(const PodShape& pod, const Placement& placement);

  // Sum of F over nodes, and the typical-weighted free GPU milli (§5.1).
  double FragTotal() const;
  double IdleTotal() const;
  double frag(size_t node) const { return frag_[node]; }

 private:
  GpuPick ChooseGpus(const SimNode& node, const PodShape& pod, int32_t fgd_gpu);
  void Refresh(size_t node);

  Cluster* cluster_;
  const TypicalPods* typical_;
  Policy policy_;
  std::span<const uint32_t> rank_;
  Rng* rng_;
  double weight_sum_ = 0;
  std::vector<double> frag_;
  std::vector<double> idle_;
  // dra-pack only: the workload's GPU-per-CPU ratio and each node's P.
  double rho_ = 0;
  std::vector<double> pack_;
  // Scratch per cycle.
  std::vector<size_t> feasible_;
  std::vector<int64_t> scores_;
};

}  // namespace dra::sim
