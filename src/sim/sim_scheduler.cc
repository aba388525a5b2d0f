// The cycle: filter -> score -> select -> GPU choice. BestFit needs the
// min and max raw scores of all feasible nodes before it can compare them, so
// every policy first scores into scores_ and then selects.
#include "sim/sim_scheduler.h"

namespace dra::sim {

SimScheduler::SimScheduler(Cluster* cluster, const TypicalPods* typical, Policy policy, std::span<const uint32_t> rank,
                           Rng* rng)
    : cluster_(cluster), typical_(typical), policy_(policy), rank_(rank), rng_(rng) {
  for (const TypicalPod& t : typical_->list) weight_sum_ += t.weight;
  if (policy_ == Policy::kDraPack) {
    rho_ = WorkloadGpuPerCpu(*typical_);
    pack_.resize(cluster_->nodes().size());
  }
  frag_.resize(cluster_->nodes().size());
  idle_.resize(cluster_->nodes().size());
  for (size_t n = 0; n < frag_.size(); ++n) Refresh(n);
}

void SimScheduler::Refresh(size_t n) {
  const SimNode& node = cluster_->nodes()[n];
  frag_[n] = NodeFrag(*typical_, node);
  if (policy_ == Policy::kDraPack) pack_[n] = PackFrag(*typical_, rho_, node);
  // sum_m p_m * G in list order, as the authors total it.
  double idle = 0;
  for (const TypicalPod& t : typical_->list) idle += t.weight * static_cast<double>(node.gpu_free_total);
  idle_[n] = idle;
}

double SimScheduler::FragTotal() const {
  double s = 0;
  for (double f : frag_) s += f;
  return s;
}

double SimScheduler::IdleTotal() const {
  double s = 0;
  for (double f : idle_) s += f;
  return s;
}

std::optional<Placement> SimScheduler::Schedule(const PodShape& pod) {
  const std::vector<SimNode>& nodes = cluster_->nodes();
  feasible_.clear();
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (cluster_->Fits(nodes[n], pod)) feasible_.push_back(n);
  }
  if (feasible_.empty()) return std::nullopt;

  scores_.assign(feasible_.size(), 0);
  switch (policy_) {
    case Policy::kRandom: {
      // PreScore picks one feasible node uniformly; it scores 100, others 0.
      scores_[static_cast<size_t>(rng_->Below(feasible_.size()))] = 100;
      break;
    }
    case Policy::kDotProd:
      for (size_t i = 0; i < feasible_.size(); ++i) scores_[i] = DotProdScore(nodes[feasible_[i]], pod);
      break;
    case Policy::kGpuClustering:
      for (size_t i = 0; i < feasible_.size(); ++i) scores_[i] = GpuClusteringScore(nodes[feasible_[i]], pod);
      break;
    case Policy::kGpuPacking:
      for (size_t i = 0; i < feasible_.size(); ++i) scores_[i] = GpuPackingScore(nodes[feasible_[i]], pod);
      break;
    case Policy::kBestFit: {
      int64_t lo = 0, hi = 0;
      for (size_t i = 0; i < feasible_.size(); ++i) {
        scores_[i] = BestFitRaw(nodes[feasible_[i]], pod);
        if (i == 0 || scores_[i] < lo) lo = scores_[i];
        if (i == 0 || scores_[i] > hi) hi = scores_[i];
      }
      for (int64_t& s : scores_) s = MinMaxNormalize(s, lo, hi);
      break;
    }
    case Policy::kFgd:
      for (size_t i = 0; i < feasible_.size(); ++i) {
        scores_[i] = ScoreFgd(*typical_, nodes[feasible_[i]], pod, frag_[feasible_[i]]).score;
      }
      break;
    case Policy::kDraPack:
      for (size_t i = 0; i < feasible_.size(); ++i) {
        scores_[i] = ScoreDraPack(*typical_, rho_, nodes[feasible_[i]], pod, pack_[feasible_[i]]).score;
      }
      break;
  }

  size_t best = 0;
  for (size_t i = 1; i < feasible_.size(); ++i) {
    if (scores_[i] > scores_[best] || (scores_[i] == scores_[best] && rank_[feasible_[i]] < rank_[feasible_[best]])) {
      best = i;
    }
  }
  Placement p;
  p.node = feasible_[best];
  p.score = scores_[best];
  int32_t fgd_gpu = -1;
  if (policy_ == Policy::kFgd && pod.sharing()) {
    fgd_gpu = ScoreFgd(*typical_, nodes[p.node], pod, frag_[p.node]).gpu;
  } else if (policy_ == Policy::kDraPack && pod.sharing()) {
    fgd_gpu = ScoreDraPack(*typical_, rho_, nodes[p.node], pod, pack_[p.node]).gpu;
  }
  p.pick = ChooseGpus(nodes[p.node], pod, fgd_gpu);
  return p;
}

GpuPick SimScheduler::ChooseGpus(const SimNode& node, const PodShape& pod, int32_t fgd_gpu) {
  if (!pod.sharing()) return Cluster::PickBest(node, pod);  // whole GPUs, or none
  GpuPick pick;
  pick.size = 1;
  if (fgd_gpu >= 0) {
    pick.index[0] = static_cast<int8_t>(fgd_gpu);
    return pick;
  }
  if (policy_ == Policy::kRandom) {
    // Reservoir sampling in index order: the c-th eligible GPU replaces the
    // pick when a uniform draw from 0..c-1 is 0.
    uint64_t c = 0;
    for (int32_t i = 0; i < node.gpus; ++i) {
      if (node.gpu_free[static_cast<size_t>(i)] < pod.milli) continue;
      ++c;
      if (rng_->Below(c) == 0) pick.index[0] = static_cast<int8_t>(i);
    }
    return pick;
  }
  return Cluster::PickBest(node, pod);
}

void SimScheduler::Place(const PodShape& pod, const Placement& placement) {
  cluster_->Place(cluster_->nodes()[placement.node], pod, placement.pick);
  Refresh(placement.node);
}

void SimScheduler::Remove(const PodShape& pod, const Placement& placement) {
  cluster_->Remove(cluster_->nodes()[placement.node], pod, placement.pick);
  Refresh(placement.node);
}

}  // namespace dra::sim
