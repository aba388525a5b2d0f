// Score arithmetic of the six paper policies. Floating-point expressions are
// written in the order docs/fgd.md §4 gives them (left to right, as Go evaluates
// them), because the integer truncations make the last bit matter at
// boundaries.
#include "sim/policies.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "fmt/format.h"

namespace dra::sim {
namespace {

struct PolicyNames {
  Policy policy;
  std::string_view name;
  std::string_view paper;
};
constexpr std::array<PolicyNames, 7> kPolicies = {{
    {Policy::kRandom, "random", "01-Random"},
    {Policy::kDotProd, "dotprod", "02-DotProd"},
    {Policy::kGpuClustering, "gpuclustering", "03-GpuClustering"},
    {Policy::kGpuPacking, "gpupacking", "04-GpuPacking"},
    {Policy::kBestFit, "bestfit", "05-BestFit"},
    {Policy::kFgd, "fgd", "06-FGD"},
    {Policy::kDraPack, "dra-pack", ""},
}};

}  // namespace

StatusOr<Policy> ParsePolicy(std::string_view name) {
  std::string lower;
  for (char ch : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  for (const PolicyNames& p : kPolicies) {
    std::string paper;
    for (char ch : p.paper) paper.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    if (lower == p.name || (!paper.empty() && lower == paper)) return p.policy;
  }
  return Status(
      StatusCode::kInvalidArgument,
      fmt::format("unknown policy \"{}\" (random, dotprod, gpuclustering, gpupacking, bestfit, fgd, dra-pack)", name));
}

std::string_view PolicyName(Policy policy) { return kPolicies[static_cast<size_t>(policy)].name; }
std::string_view PaperPolicyName(Policy policy) { return kPolicies[static_cast<size_t>(policy)].paper; }

int64_t DotProdScore(const SimNode& node, const PodShape& pod) {
  const double cpu = (static_cast<double>(node.cpu_free) / kMaxNodeCpu) * (static_cast<double>(pod.cpu) / kMaxNodeCpu);
  const double gpu = (static_cast<double>(node.gpu_free_total) / kMaxNodeGpuMilli) *
                     (static_cast<double>(pod.gpu_total()) / kMaxNodeGpuMilli);
  return static_cast<int64_t>(100 * (1 - (cpu + gpu) / 2));
}

int64_t GpuClusteringScore(const SimNode& node, const PodShape& pod) {
  if (pod.cpu_only()) return 0;
  const uint32_t mine = ClassBit(pod);
  int64_t base = 0;
  if (node.classes == 0) {
    base = 25;
  } else if (node.classes == mine) {
    base = 75;
  } else if ((node.classes & mine) != 0) {
    base = 50;
  }
  return base + (25 * (kMaxNodeGpuMilli - node.gpu_free_total)) / kMaxNodeGpuMilli;
}

int64_t GpuPackingScore(const SimNode& node, const PodShape& pod) {
  if (pod.cpu_only()) return 0;
  if (node.gpu_free_total == int64_t{kGpuMilli} * node.gpus) {
    return std::max<int64_t>(33 - node.gpus, node.gpus);
  }
  GpuPick pick = Cluster::PickBest(node, pod);
  int64_t fully_free = 0;
  int64_t sum = 0;
  for (int8_t i : pick.indices()) {
    int32_t free = node.gpu_free[static_cast<uint8_t>(i)];
    if (free == kGpuMilli) ++fully_free;
    sum += (int64_t{free} * 100) / kGpuMilli;
  }
  if (fully_free > 0) return std::max<int64_t>(50 - fully_free, 33);
  return std::max<int64_t>(100 - sum / 10, 50);
}

int64_t BestFitRaw(const SimNode& node, const PodShape& pod) {
  const double cpu = 0.5 * static_cast<double>(node.cpu_free - pod.cpu) / kMaxNodeCpu;
  const double gpu = 0.5 * static_cast<double>(node.gpu_free_total - pod.gpu_total()) / kMaxNodeGpuMilli;
  return static_cast<int64_t>(100 * (1 - (cpu + gpu)));
}

int64_t MinMaxNormalize(int64_t raw, int64_t min, int64_t max) {
  if (max == min) return 0;
  return (raw - min) * 100 / (max - min);
}

namespace {

// FGD's score and GPU choice (§4.6) for any node measure `frag_of(cpu_after,
// gpu_free_after)` that depends only on the node state, as F and P do.
template <typename FragOf>
FgdScore ScoreByDescent(const SimNode& node, const PodShape& pod, double frag_now, const FragOf& frag_of) {
  std::array<int32_t, kMaxGpus> after = node.gpu_free;
  const int64_t cpu_after = node.cpu_free - pod.cpu;
  FgdScore out;
  if (pod.sharing()) {
    // GPUs with the same free milli give the same state, hence the same score;
    // evaluate each distinct value once (the first index keeps the tie).
    std::array<int32_t, kMaxGpus> seen_value{};
    std::array<int64_t, kMaxGpus> seen_score{};
    int32_t seen = 0;
    out.score = -1;
    for (int32_t i = 0; i < node.gpus; ++i) {
      const int32_t free = node.gpu_free[static_cast<size_t>(i)];
      if (free < pod.milli) continue;
      int64_t s = -1;
      for (int32_t k = 0; k < seen; ++k) {
        if (seen_value[static_cast<size_t>(k)] == free) s = seen_score[static_cast<size_t>(k)];
      }
      if (s < 0) {
        after[static_cast<size_t>(i)] = free - pod.milli;
        s = FgdStepScore(frag_now, frag_of(cpu_after, after.data()));
        after[static_cast<size_t>(i)] = free;
        seen_value[static_cast<size_t>(seen)] = free;
        seen_score[static_cast<size_t>(seen)] = s;
        ++seen;
      }
      if (s > out.score) {
        out.score = s;
        out.gpu = i;
      }
    }
    if (out.score < 0) out.score = 0;
    return out;
  }
  if (!pod.cpu_only()) {
    GpuPick pick = Cluster::PickBest(node, pod);
    for (int8_t i : pick.indices()) after[static_cast<uint8_t>(i)] -= pod.milli;
  }
  out.score = FgdStepScore(frag_now, frag_of(cpu_after, after.data()));
  return out;
}

}  // namespace

FgdScore ScoreFgd(const TypicalPods& typical, const SimNode& node, const PodShape& pod, double frag_now) {
  return ScoreByDescent(node, pod, frag_now, [&](int64_t cpu, const int32_t* gpu_free) {
    return NodeFrag(typical, cpu, gpu_free, node.gpus, node.model);
  });
}

double WorkloadGpuPerCpu(const TypicalPods& typical) {
  double gpu = 0;
  double cpu = 0;
  for (const TypicalPod& t : typical.list) {
    if (t.shape.cpu_only()) continue;
    gpu += t.weight * static_cast<double>(t.shape.gpu_total());
    cpu += t.weight * static_cast<double>(t.shape.cpu);
  }
  return cpu > 0 ? gpu / cpu : 0;
}

double StrandedGpu(int64_t cpu_free, int64_t gpu_free_total, double rho) {
  return sched::StrandedMilli(cpu_free, gpu_free_total, rho);
}

double PackFrag(const TypicalPods& typical, double rho, int64_t cpu_free, const int32_t* gpu_free, int32_t gpus,
                int32_t model) {
  int64_t total = 0;
  for (int32_t i = 0; i < gpus; ++i) total += gpu_free[i];
  return NodeFrag(typical, cpu_free, gpu_free, gpus, model) + StrandedGpu(cpu_free, total, rho);
}

FgdScore ScoreDraPack(const TypicalPods& typical, double rho, const SimNode& node, const PodShape& pod,
                      double pack_now) {
  return ScoreByDescent(node, pod, pack_now, [&](int64_t cpu, const int32_t* gpu_free) {
    return PackFrag(typical, rho, cpu, gpu_free, node.gpus, node.model);
  });
}

}  // namespace dra::sim
