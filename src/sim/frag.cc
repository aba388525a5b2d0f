// Typical pods and node fragmentation. NodeFrag is the simulator's hot loop
// (FGD evaluates it for every feasible node and candidate GPU of every pod),
// so it works on the raw arrays and sums in the list order the metric needs.
#include "sim/frag.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "sched/profile.h"

namespace dra::sim {

TypicalPods BuildTypicalPods(std::span<const PodShape> shapes, std::span<const std::string> specs,
                             int64_t threshold_percent) {
  using Key = std::tuple<int64_t, int32_t, int32_t, std::string>;  // cpu, milli, count, spec
  std::map<Key, std::pair<int64_t, PodShape>> counts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const PodShape& s = shapes[i];
    auto& e = counts[Key{s.cpu, s.milli, s.count, s.cpu_only() ? std::string() : specs[i]}];
    if (e.first++ == 0) e.second = s;
  }
  std::vector<TypicalPod> all;
  for (const auto& [key, e] : counts) {
    TypicalPod t;
    t.shape = e.second;
    t.shape.memory = 0;  // not part of the shape
    t.spec = std::get<3>(key);
    t.pods = e.first;
    all.push_back(std::move(t));
  }
  // Most pods first; equal counts: larger cpu, milli, count, spec first.
  std::sort(all.begin(), all.end(), [](const TypicalPod& a, const TypicalPod& b) {
    return std::tie(b.pods, b.shape.cpu, b.shape.milli, b.shape.count, b.spec) <
           std::tie(a.pods, a.shape.cpu, a.shape.milli, a.shape.count, a.spec);
  });
  TypicalPods out;
  out.distinct_shapes = static_cast<int64_t>(all.size());
  out.total_pods = static_cast<int64_t>(shapes.size());
  out.covered_pods = sched::TakeTypical(all, out.total_pods, threshold_percent, &out.list);
  return out;
}

double NodeFrag(const TypicalPods& typical, int64_t cpu_free, const int32_t* gpu_free, int32_t gpus, int32_t model) {
  int64_t total = 0;
  for (int32_t i = 0; i < gpus; ++i) total += gpu_free[i];
  const double g = static_cast<double>(total);
  double f = 0;
  for (const TypicalPod& t : typical.list) {
    const PodShape& m = t.shape;
    double frag = g;
    if (!m.cpu_only() && gpus > 0 && ((m.models >> model) & 1) != 0 && cpu_free >= m.cpu) {
      int32_t fit = 0;
      int64_t below = 0;
      for (int32_t i = 0; i < gpus; ++i) {
        if (gpu_free[i] >= m.milli) {
          ++fit;
        } else {
          below += gpu_free[i];
        }
      }
      if (fit >= m.count) frag = static_cast<double>(below);
    }
    f += t.weight * frag;
  }
  return f;
}

}  // namespace dra::sim
