// GPU fragmentation against the workload's typical pods (docs/fgd.md §5),
// the quantity FGD descends and the metric of §6.
//
// Typical pods (§5.2): the trace's pod shapes (cpu, milli per GPU, count,
// spec string), most common first, taken until they cover >= 95% of pods,
// each weighted by its share of the taken ones.
//
// frag_m(n) of node n against shape m (§5.1), checked in this order:
//   m CPU-only                                  -> G (all free GPU milli)
//   node model not allowed by m's spec          -> G
//   >= count_m GPUs with free >= milli_m and C >= cpu_m
//                                               -> sum of free over GPUs with free < milli_m
//   otherwise                                   -> G
// F(n) = sum_m p_m * frag_m(n), in list order, in double (as the authors sum).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sched/fragmentation.h"
#include "sim/cluster.h"

namespace dra::sim {

struct TypicalPod {
  PodShape shape;
  std::string spec;   // the gpu_spec string (sort key)
  int64_t pods = 0;   // pods of the trace with this shape
  double weight = 0;  // p_m
};

struct TypicalPods {
  std::vector<TypicalPod> list;
  int64_t distinct_shapes = 0;
  int64_t covered_pods = 0;
  int64_t total_pods = 0;
};

// `shapes[i]` and `specs[i]` describe pod i of the trace.
// threshold_percent: 95 in every paper run.
TypicalPods BuildTypicalPods(std::span<const PodShape> shapes, std::span<const std::string> specs,
                             int64_t threshold_percent = 95);

// F of a node state: free CPU `cpu_free`, free milli per GPU `gpu_free`
// (gpus entries), model id `model`.
double NodeFrag(const TypicalPods& typical, int64_t cpu_free, const int32_t* gpu_free, int32_t gpus, int32_t model);
inline double NodeFrag(const TypicalPods& typical, const SimNode& node) {
  return NodeFrag(typical, node.cpu_free, node.gpu_free.data(), node.gpus, node.model);
}

// Sigmoid as FGD scores with it: 1 / (1 + e^-x); one definition for both
// engines (sched/fragmentation.h).
using sched::Sigmoid;

}  // namespace dra::sim
