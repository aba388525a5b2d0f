// The run protocol (docs/fgd.md §2.3). The RNG is consumed in the authors'
// order (§7.1): one value for a log argument, the shuffle, the tuning draws
// (including the one that stops the loop), the node permutation, then the
// random policy's draws.
#include "sim/openb_sim.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "fmt/format.h"
#include "sim/dra_check.h"
#include "sim/dra_engine.h"
#include "sim/rng.h"
#include "sim/sim_scheduler.h"

namespace dra::sim {

StatusOr<OpenbExperiment> OpenbExperiment::Prepare(std::vector<OpenbNode> nodes, std::vector<OpenbPod> pods) {
  OpenbExperiment e;
  for (OpenbNode& n : nodes) {
    if (n.gpus > 0) e.nodes_.push_back(std::move(n));
  }
  if (e.nodes_.empty()) return Status(StatusCode::kInvalidArgument, "the node list has no GPU nodes");
  std::sort(e.nodes_.begin(), e.nodes_.end(), [](const OpenbNode& a, const OpenbNode& b) { return a.name < b.name; });
  for (size_t i = 1; i < e.nodes_.size(); ++i) {
    if (e.nodes_[i].name == e.nodes_[i - 1].name) {
      return Status(StatusCode::kInvalidArgument, fmt::format("duplicate node name {}", e.nodes_[i].name));
    }
  }
  e.pods_ = std::move(pods);
  if (e.pods_.empty()) return Status(StatusCode::kInvalidArgument, "the pod list is empty");
  std::sort(e.pods_.begin(), e.pods_.end(), [](const OpenbPod& a, const OpenbPod& b) { return a.name < b.name; });
  for (size_t i = 1; i < e.pods_.size(); ++i) {
    if (e.pods_[i].name == e.pods_[i - 1].name) {
      return Status(StatusCode::kInvalidArgument, fmt::format("duplicate pod name {}", e.pods_[i].name));
    }
  }
  DRA_ASSIGN_OR_RETURN(e.cluster_, Cluster::Build(e.nodes_));
  std::vector<std::string> specs;
  for (const OpenbPod& p : e.pods_) {
    e.shapes_.push_back(e.cluster_.Shape(p));
    specs.push_back(p.gpu_spec);
  }
  e.typical_ = BuildTypicalPods(e.shapes_, specs);
  return e;
}

int64_t OpenbExperiment::trace_gpu_request() const {
  int64_t r = 0;
  for (const PodShape& s : shapes_) r += s.gpu_total();
  return r;
}

RunPlan OpenbExperiment::Plan(const RunOptions& options) const {
  RunPlan plan{.list = {}, .rank = {}, .copies = 0, .removed = 0, .rng = Rng(options.seed)};
  Rng& rng = plan.rng;
  rng.Next();  // the authors' simulator draws one value for a debug log line

  std::vector<uint32_t>& list = plan.list;
  list.resize(pods_.size());
  std::iota(list.begin(), list.end(), 0u);
  rng.Shuffle(list);

  // Tuning (§2.3 step 5). The target in integer milli: ratio is given in
  // thousandths so that 1.3 x 6,212,000 is exactly 8,075,600.
  const int64_t target = static_cast<int64_t>(std::llround(options.tune_ratio * 1000)) * cluster_.gpu_capacity() / 1000;
  int64_t total = trace_gpu_request();
  if (total < target) {
    while (true) {
      uint32_t pick = static_cast<uint32_t>(rng.Below(pods_.size()));
      if (total + shapes_[pick].milli > target) break;  // per-GPU milli, as the authors test
      list.push_back(pick);
      total += shapes_[pick].gpu_total();
      ++plan.copies;
    }
  } else {
    while (total > target) {
      size_t at = static_cast<size_t>(rng.Below(list.size()));
      total -= shapes_[list[at]].gpu_total();
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(at));
      ++plan.removed;
    }
  }
  plan.rank = rng.Perm(static_cast<uint32_t>(cluster_.nodes().size()));
  return plan;
}

StatusOr<RunLog> OpenbExperiment::Run(const RunOptions& options) const {
  if (options.engine == Engine::kDra) return RunOnDraScheduler(*this, options);
  RunLog log;
  log.capacity = cluster_.gpu_capacity();
  log.trace_pods = static_cast<int64_t>(pods_.size());
  RunPlan plan = Plan(options);
  const std::vector<uint32_t>& list = plan.list;
  const std::vector<uint32_t>& rank = plan.rank;
  Rng& rng = plan.rng;
  log.copies = plan.copies;
  log.removed = plan.removed;
  log.submitted = static_cast<int64_t>(list.size());

  Cluster cluster = cluster_;
  SimScheduler scheduler(&cluster, &typical_, options.policy, rank, &rng);
  std::unique_ptr<DraChecker> checker;
  if (options.check != AllocatorCheck::kNone) {
    DRA_ASSIGN_OR_RETURN(checker, DraChecker::New(nodes_, pods_));
  }

  log.rows.reserve(list.size());
  int64_t arrived = 0;
  int64_t allocated = 0;
  for (uint32_t idx : list) {
    const PodShape& pod = shapes_[idx];
    arrived += pod.gpu_total();
    if (options.check == AllocatorCheck::kAllNodes && !pod.cpu_only()) {
      for (size_t n = 0; n < cluster.nodes().size(); ++n) {
        DRA_ASSIGN_OR_RETURN(bool dra_fits, checker->Fits(n, idx));
        if (dra_fits != Cluster::GpuFits(cluster.nodes()[n], pod)) {
          ++log.allocator_disagreements;
          return Status(StatusCode::kFailedPrecondition,
                        fmt::format("pod {} on node {}: the allocator says {}, the native filter {}", pods_[idx].name,
                                    cluster.nodes()[n].name, dra_fits ? "fits" : "does not fit",
                                    dra_fits ? "does not fit" : "fits"));
        }
      }
    }
    std::optional<Placement> p = scheduler.Schedule(pod);
    if (!p) {
      ++log.failed;
    } else {
      if (checker) DRA_RETURN_IF_ERROR(checker->Commit(p->node, idx, p->pick.indices()));
      scheduler.Place(pod, *p);
      allocated += pod.gpu_total();
    }
    log.rows.push_back(RunRow{
        .arrived = arrived, .allocated = allocated, .frag = scheduler.FragTotal(), .idle = scheduler.IdleTotal()});
  }
  if (checker) log.allocator_calls = checker->allocations();
  return log;
}

namespace {

// Python's round(x, 2) for the values we see (half to even on the scaled value).
double Round2(double x) { return std::nearbyint(x * 100) / 100; }

}  // namespace

Columns BinRows(const RunLog& log) {
  struct Bin {
    int64_t n = 0;
    double alloc = 0, frag = 0, ratio = 0;
  };
  std::array<Bin, kColumns + 1> bins{};
  const double one_percent = static_cast<double>(log.capacity) / 100;
  for (const RunRow& r : log.rows) {
    const double a = std::nearbyint(static_cast<double>(r.arrived) / one_percent);
    if (a < 0 || a > kColumns) continue;
    Bin& b = bins[static_cast<size_t>(a)];
    ++b.n;
    b.alloc += Round2(100.0 * static_cast<double>(r.allocated) / static_cast<double>(log.capacity));
    b.frag += Round2(r.frag);
    b.ratio += r.idle > 0 ? Round2(100.0 * r.frag / r.idle) : 0.0;
  }
  Columns c;
  const double gpus = static_cast<double>(log.capacity) / 1000;
  for (int k = 0; k < kColumns; ++k) {
    Bin sum = bins[static_cast<size_t>(k)];
    if (sum.n == 0) {
      for (int j = k - 1; j <= k + 1; ++j) {
        if (j < 0 || j > kColumns) continue;
        const Bin& b = bins[static_cast<size_t>(j)];
        sum.n += b.n;
        sum.alloc += b.alloc;
        sum.frag += b.frag;
        sum.ratio += b.ratio;
      }
    }
    if (sum.n == 0) continue;
    const double n = static_cast<double>(sum.n);
    c.allocation[static_cast<size_t>(k)] = Round2(sum.alloc / n);
    c.frag_amount[static_cast<size_t>(k)] = Round2(100 * (sum.frag / n) / 1000 / gpus);
    c.frag_ratio[static_cast<size_t>(k)] = sum.ratio / n;
  }
  return c;
}

}  // namespace dra::sim
