// The replay loop: a time-ordered walk over arrivals and departures (see
// replay.h for the order of events at one instant).
#include "sim/replay.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "fmt/format.h"
#include "sim/cluster.h"
#include "sim/frag.h"
#include "sim/rng.h"
#include "sim/sim_scheduler.h"

namespace dra::sim {
namespace {

constexpr int64_t kNever = -1;

// a + b for b >= 0, stopping at the largest int64 (times near it in hostile
// input must not overflow).
int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

struct PodState {
  PodShape shape;
  int64_t arrival = 0;
  int64_t run = kNever;  // seconds it runs once started; kNever: to the end
  std::optional<Placement> placement;
  int64_t start = kNever;
};

class ReplayRun {
 public:
  ReplayRun(Cluster cluster, std::vector<PodState> pods, const TypicalPods* typical, const ReplayOptions& options)
      : cluster_(std::move(cluster)),
        pods_(std::move(pods)),
        rng_(options.seed),
        rank_(rng_.Perm(static_cast<uint32_t>(cluster_.nodes().size()))),
        scheduler_(&cluster_, typical, options.policy, rank_, &rng_),
        interval_(options.interval) {
    for (const SimNode& n : cluster_.nodes()) cpu_capacity_ += n.cpu_free;
  }

  StatusOr<ReplayResult> Run() {
    ReplayResult out;
    ReplaySummary& s = out.summary;
    s.pods = static_cast<int64_t>(pods_.size());
    s.gpu_capacity = cluster_.gpu_capacity();
    s.cpu_capacity = cpu_capacity_;
    if (pods_.empty()) return out;
    s.start_time = pods_.front().arrival;
    int64_t next_sample = s.start_time;
    int64_t last_time = s.start_time;
    double gpu_area = 0, cpu_area = 0;  // allocation % x seconds
    size_t next_arrival = 0;
    while (next_arrival < pods_.size() || !ends_.empty()) {
      int64_t t = next_arrival < pods_.size() ? pods_[next_arrival].arrival : ends_.top().first;
      if (!ends_.empty()) t = std::min(t, ends_.top().first);
      // Samples strictly before t see the state left by the previous instant.
      while (next_sample < t) {
        if (out.series.size() >= kMaxReplaySamples) return TooManySamples();
        out.series.push_back(Sample(next_sample));
        next_sample = SaturatingAdd(next_sample, interval_);
      }
      gpu_area += GpuPercent() * static_cast<double>(t - last_time);
      cpu_area += CpuPercent() * static_cast<double>(t - last_time);
      last_time = t;
      // 1. Departures.
      freed_.clear();
      while (!ends_.empty() && ends_.top().first <= t) {
        PodState& p = pods_[ends_.top().second];
        ends_.pop();
        scheduler_.Remove(p.shape, *p.placement);
        freed_.push_back(p.placement->node);
        --running_;
        ++s.finished;
      }
      // 2. The pending queue, where a freed node now fits.
      if (!freed_.empty() && !pending_.empty()) RetryPending(t);
      // 3. Arrivals.
      while (next_arrival < pods_.size() && pods_[next_arrival].arrival == t) {
        size_t i = next_arrival++;
        if (TryStart(i, t)) {
          ++s.started_on_arrival;
        } else {
          pending_.push_back(i);
        }
      }
      s.peak_pending = std::max<int64_t>(s.peak_pending, static_cast<int64_t>(pending_.size()));
      s.peak_gpu_allocation = std::max(s.peak_gpu_allocation, GpuPercent());
    }
    s.end_time = last_time;
    while (next_sample < s.end_time) {
      if (out.series.size() >= kMaxReplaySamples) return TooManySamples();
      out.series.push_back(Sample(next_sample));
      next_sample = SaturatingAdd(next_sample, interval_);
    }
    out.series.push_back(Sample(s.end_time));
    const double span = static_cast<double>(s.end_time - s.start_time);
    s.gpu_allocation_mean = span > 0 ? gpu_area / span : GpuPercent();
    s.cpu_allocation_mean = span > 0 ? cpu_area / span : CpuPercent();
    s.pending_at_end = static_cast<int64_t>(pending_.size());

    std::vector<int64_t> waits;
    for (const PodState& p : pods_) {
      if (p.start != kNever) waits.push_back(p.start - p.arrival);
    }
    s.started = static_cast<int64_t>(waits.size());
    if (!waits.empty()) {
      std::sort(waits.begin(), waits.end());
      double sum = 0;
      for (int64_t w : waits) sum += static_cast<double>(w);
      s.wait_mean = sum / static_cast<double>(waits.size());
      // Nearest rank: the smallest wait with at least q of the waits <= it.
      auto rank = [&](int64_t q) {
        return waits[static_cast<size_t>((q * static_cast<int64_t>(waits.size()) + 99) / 100) - 1];
      };
      s.wait_p50 = rank(50);
      s.wait_p95 = rank(95);
      s.wait_max = waits.back();
    }
    return out;
  }

 private:
  Status TooManySamples() const {
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("the series would have more than {} samples at an interval of {} s: give a longer "
                              "interval",
                              kMaxReplaySamples, interval_));
  }

  bool TryStart(size_t i, int64_t t) {
    PodState& p = pods_[i];
    std::optional<Placement> placement = scheduler_.Schedule(p.shape);
    if (!placement) return false;
    scheduler_.Place(p.shape, *placement);
    p.placement = placement;
    p.start = t;
    ++running_;
    if (p.run != kNever) ends_.emplace(SaturatingAdd(t, p.run), i);
    return true;
  }

  void RetryPending(int64_t t) {
    std::sort(freed_.begin(), freed_.end());
    freed_.erase(std::unique(freed_.begin(), freed_.end()), freed_.end());
    std::deque<size_t> still;
    for (size_t i : pending_) {
      bool may_fit = false;
      for (size_t n : freed_) {
        if (cluster_.Fits(cluster_.nodes()[n], pods_[i].shape)) {
          may_fit = true;
          break;
        }
      }
      if (!may_fit || !TryStart(i, t)) still.push_back(i);
    }
    pending_.swap(still);
  }

  double GpuPercent() const {
    const int64_t cap = cluster_.gpu_capacity();
    return cap > 0 ? 100.0 * static_cast<double>(cluster_.Allocated()) / static_cast<double>(cap) : 0;
  }
  double CpuPercent() const {
    if (cpu_capacity_ <= 0) return 0;
    int64_t free = 0;
    for (const SimNode& n : cluster_.nodes()) free += n.cpu_free;
    return 100.0 * static_cast<double>(cpu_capacity_ - free) / static_cast<double>(cpu_capacity_);
  }

  ReplaySample Sample(int64_t time) const {
    const int64_t cap = cluster_.gpu_capacity();
    return ReplaySample{.time = time,
                        .gpu_allocation = GpuPercent(),
                        .cpu_allocation = CpuPercent(),
                        .running = running_,
                        .pending = static_cast<int64_t>(pending_.size()),
                        .frag_amount = cap > 0 ? 100.0 * scheduler_.FragTotal() / static_cast<double>(cap) : 0};
  }

  Cluster cluster_;
  std::vector<PodState> pods_;  // by (arrival, name)
  Rng rng_;
  std::vector<uint32_t> rank_;
  SimScheduler scheduler_;
  int64_t interval_;
  int64_t cpu_capacity_ = 0;
  int64_t running_ = 0;
  std::deque<size_t> pending_;  // indices into pods_, in arrival order
  std::vector<size_t> freed_;   // nodes a departure freed at this instant
  // (end time, pod index), earliest first.
  std::priority_queue<std::pair<int64_t, size_t>, std::vector<std::pair<int64_t, size_t>>, std::greater<>> ends_;
};

}  // namespace

StatusOr<ReplayResult> Replay(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                              const ReplayOptions& options) {
  if (options.interval <= 0) {
    return Status(StatusCode::kInvalidArgument, fmt::format("interval {} s: must be positive", options.interval));
  }
  if (!(options.speedup >= 1) || options.speedup > 1e12) {
    return Status(StatusCode::kInvalidArgument, fmt::format("speedup {}: must be 1 to 1e12", options.speedup));
  }
  std::vector<OpenbNode> sorted_nodes = nodes;
  std::sort(sorted_nodes.begin(), sorted_nodes.end(),
            [](const OpenbNode& a, const OpenbNode& b) { return a.name < b.name; });
  for (size_t i = 1; i < sorted_nodes.size(); ++i) {
    if (sorted_nodes[i].name == sorted_nodes[i - 1].name) {
      return Status(StatusCode::kInvalidArgument, fmt::format("duplicate node name {}", sorted_nodes[i].name));
    }
  }
  if (sorted_nodes.empty()) return Status(StatusCode::kInvalidArgument, "the node list is empty");
  DRA_ASSIGN_OR_RETURN(Cluster cluster, Cluster::Build(sorted_nodes));

  std::vector<std::string_view> names;
  names.reserve(pods.size());
  for (const OpenbPod& p : pods) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  if (auto dup = std::adjacent_find(names.begin(), names.end()); dup != names.end()) {
    return Status(StatusCode::kInvalidArgument, fmt::format("duplicate pod name {}", *dup));
  }
  std::vector<size_t> order(pods.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(pods[a].creation_time, pods[a].name) < std::tie(pods[b].creation_time, pods[b].name);
  });
  std::vector<PodState> states;
  std::vector<PodShape> shapes;
  std::vector<std::string> specs;
  for (size_t k = 0; k < order.size(); ++k) {
    const OpenbPod& p = pods[order[k]];
    PodState s;
    s.shape = cluster.Shape(p);
    s.arrival = static_cast<int64_t>(std::floor(static_cast<double>(p.creation_time) / options.speedup));
    s.run = p.deletion_time < 0 ? kNever : p.deletion_time - p.creation_time;
    shapes.push_back(s.shape);
    specs.push_back(p.gpu_spec);
    states.push_back(s);
  }
  const TypicalPods typical = BuildTypicalPods(shapes, specs);
  ReplayRun run(std::move(cluster), std::move(states), &typical, options);
  return run.Run();
}

}  // namespace dra::sim
