// The FGD paper's node scoring policies (docs/fgd.md §4), as pure
// functions of one node's state and one pod, with the authors' integer
// truncations. Higher is better; the scheduler (sim_scheduler.h) takes the
// highest and breaks ties by the per-run node rank.
//
// Notation: C = node free CPU, G = node free GPU milli (sum over GPUs),
// c = pod CPU, g = pod GPU milli in total, N = node GPU count.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "sim/cluster.h"
#include "sim/frag.h"

namespace dra::sim {

enum class Policy { kRandom, kDotProd, kGpuClustering, kGpuPacking, kBestFit, kFgd, kDraPack };

// "random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd",
// "dra-pack" (case-insensitive; the authors' "01-Random" .. "06-FGD" too).
StatusOr<Policy> ParsePolicy(std::string_view name);
std::string_view PolicyName(Policy policy);
// The authors' directory name ("06-FGD"); "" for dra-pack, which is ours.
std::string_view PaperPolicyName(Policy policy);

// Scale constants: the largest node CPU and the largest node GPU milli.
inline constexpr int64_t kMaxNodeCpu = 128'000;
inline constexpr int64_t kMaxNodeGpuMilli = 8'000;

// §4.2 trunc(100 * (1 - ((C/128000)(c/128000) + (G/8000)(g/8000)) / 2)).
int64_t DotProdScore(const SimNode& node, const PodShape& pod);
// §4.3 base (75 / 50 / 25 / 0 by the node's pod classes) + (25 (8000 - G)) div 8000;
// 0 for CPU-only pods.
int64_t GpuClusteringScore(const SimNode& node, const PodShape& pod);
// §4.4 idle node max(33 - N, N); a fully free GPU taken max(50 - taken free, 33);
// else max(100 - (sum (free*100) div 1000) div 10, 50); 0 for CPU-only pods.
int64_t GpuPackingScore(const SimNode& node, const PodShape& pod);
// §4.5 raw = trunc(100 (1 - (0.5 (C - c)/128000 + 0.5 (G - g)/8000))).
int64_t BestFitRaw(const SimNode& node, const PodShape& pod);
// §4.5 (raw - min) * 100 div (max - min); 0 when max == min.
int64_t MinMaxNormalize(int64_t raw, int64_t min, int64_t max);

// §4.6 FGD: the score and, for sharing pods, the GPU (first index reaching
// the highest truncated score; -1 for other pods). `frag_now` is
// NodeFrag(typical, node).
struct FgdScore {
  int64_t score = 0;
  int32_t gpu = -1;
};
FgdScore ScoreFgd(const TypicalPods& typical, const SimNode& node, const PodShape& pod, double frag_now);
// trunc(100 * sigmoid((now - after) / 1000)): one definition for both
// engines (sched/fragmentation.h).
using sched::FgdStepScore;

// dra-pack, our policy: FGD's descent on P(n) = F(n) + S(n) instead of F(n).
// S(n) = max(0, G - rho * C) is the free GPU milli that the node's free CPU
// cannot feed when pods take CPU and GPU at the workload's ratio rho; FGD
// counts a GPU as lost to CPU only once no typical pod's CPU fits any more,
// and then it is too late. The score and the GPU choice follow ScoreFgd with
// P in place of F (same sigmoid, truncation and ties).
//
// rho = sum_m p_m g_m / sum_m p_m c_m over the typical GPU pods: the GPU milli
// per CPU milli that GPU pods ask for (0.0917 on the default trace). With the
// CPU-only pods counted as well, rho is smaller and multigpu30 falls below
// FGD (bench/RESULTS.md).
double WorkloadGpuPerCpu(const TypicalPods& typical);
// S(n) for free CPU `cpu_free` and free GPU milli `gpu_free_total`.
double StrandedGpu(int64_t cpu_free, int64_t gpu_free_total, double rho);
// P of a node state (the arguments of NodeFrag, plus rho).
double PackFrag(const TypicalPods& typical, double rho, int64_t cpu_free, const int32_t* gpu_free, int32_t gpus,
                int32_t model);
inline double PackFrag(const TypicalPods& typical, double rho, const SimNode& node) {
  return PackFrag(typical, rho, node.cpu_free, node.gpu_free.data(), node.gpus, node.model);
}
// `pack_now` is PackFrag(typical, rho, node).
FgdScore ScoreDraPack(const TypicalPods& typical, double rho, const SimNode& node, const PodShape& pod,
                      double pack_now);

}  // namespace dra::sim
