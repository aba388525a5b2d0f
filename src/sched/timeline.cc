#include "sched/timeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "alloc/allocated_state.h"
#include "alloc/taint_rules.h"
#include "base/civil_date.h"
#include "sched/resources.h"

namespace dra::sched {

namespace {

std::string PodKey(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

bool Active(const api::Pod& p) {
  return !p.spec.node_name.empty() &&
         !(p.status.phase == api::PodPhase::kSucceeded || p.status.phase == api::PodPhase::kFailed);
}

// The resource-claim controller's part when a pod ends: it leaves
// reservedFor, and a claim reserved by no one is deallocated.
void ReleaseClaims(Snapshot& s, const api::Pod& pod) {
  for (api::ResourceClaim& c : s.claims) {
    auto& reserved = c.status.reserved_for;
    auto it = std::remove_if(reserved.begin(), reserved.end(),
                             [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod.metadata.uid; });
    if (it == reserved.end()) continue;
    reserved.erase(it, reserved.end());
    if (reserved.empty()) c.status.allocation.reset();
  }
}

// What one sample measures.
class Meter {
 public:
  Meter(const Snapshot& s, const std::vector<api::Pod>& workload) {
    // The smallest requests a workload pod can have (the Pareto front of
    // (cpu, memory)): a node fits some pod iff it fits one of these.
    std::set<std::pair<int64_t, int64_t>> sizes;
    for (const api::Pod& p : workload) {
      Resources r = PodRequests(p);
      sizes.emplace(r.milli_cpu, r.memory);
    }
    for (const auto& [cpu, mem] : sizes) {
      if (smallest_.empty() || mem < smallest_.back().second) smallest_.emplace_back(cpu, mem);
    }
    Nodes(s);
  }

  // Takes the nodes and slices of `s` (again, after nodes came or went).
  void Nodes(const Snapshot& s) {
    node_index_.clear();
    allocatable_.clear();
    pool_node_.clear();
    devices_ = 0;
    cpu_capacity_ = 0;
    for (const api::Node& n : s.nodes) {
      node_index_.emplace(n.metadata.name, allocatable_.size());
      allocatable_.push_back(NodeAllocatable(n));
      cpu_capacity_ += allocatable_.back().milli_cpu;
    }
    devices_per_node_.assign(s.nodes.size(), 0);
    tainted_ids_.clear();
    for (const api::ResourceSlice& sl : s.slices) {
      for (const api::Device& d : sl.spec.devices) {
        if (Tainted(d)) tainted_ids_.push_back(alloc::DeviceIdString(sl.spec.driver, sl.spec.pool.name, d.name));
      }
    }
    tainted_ = static_cast<int64_t>(tainted_ids_.size());
    for (const api::ResourceSlice& sl : s.slices) {
      devices_ += static_cast<int64_t>(sl.spec.devices.size());
      if (!sl.spec.node_name) continue;
      auto n = node_index_.find(*sl.spec.node_name);
      if (n == node_index_.end()) continue;
      pool_node_[{sl.spec.driver, sl.spec.pool.name}] = n->second;
      devices_per_node_[n->second] += static_cast<int64_t>(sl.spec.devices.size());
    }
  }

  int64_t devices() const { return devices_; }
  int64_t tainted() const { return tainted_; }
  int64_t free_tainted() const { return free_tainted_; }

  // Also counts the tainted devices no claim holds (free_tainted()).
  void Measure(const Snapshot& s, TimelineSample* out) {
    std::vector<Resources> requested(allocatable_.size());
    for (const api::Pod& p : s.pods) {
      if (!Active(p)) continue;
      auto n = node_index_.find(p.spec.node_name);
      if (n == node_index_.end()) continue;
      Resources r = PodRequests(p);
      r.pods = 1;
      requested[n->second].Add(r);
    }
    int64_t cpu_used = 0;
    for (const Resources& r : requested) cpu_used += r.milli_cpu;
    std::set<std::string> in_use;
    std::vector<int64_t> used_per_node(allocatable_.size(), 0);
    for (const api::ResourceClaim& c : s.claims) {
      if (!c.status.allocation) continue;
      for (const api::DeviceRequestAllocationResult& r : c.status.allocation->devices.results) {
        if (r.admin_access.value_or(false)) continue;
        if (!in_use.insert(alloc::DeviceIdString(r.driver, r.pool, r.device)).second) continue;
        auto n = pool_node_.find({r.driver, r.pool});
        if (n != pool_node_.end()) ++used_per_node[n->second];
      }
    }
    free_tainted_ = std::count_if(tainted_ids_.begin(), tainted_ids_.end(),
                                  [&](const std::string& id) { return !in_use.contains(id); });
    int64_t stranded = 0;
    for (size_t i = 0; i < allocatable_.size(); ++i) {
      const int64_t free_devices = devices_per_node_[i] - used_per_node[i];
      if (free_devices <= 0) continue;
      const Resources& a = allocatable_[i];
      const Resources& r = requested[i];
      bool fits = r.pods + 1 <= a.pods;
      if (fits) {
        fits = std::any_of(smallest_.begin(), smallest_.end(), [&](const std::pair<int64_t, int64_t>& size) {
          return size.first <= a.milli_cpu - r.milli_cpu && size.second <= a.memory - r.memory;
        });
      }
      if (!fits) stranded += free_devices;
    }
    out->device_allocation =
        devices_ > 0 ? 100.0 * static_cast<double>(in_use.size()) / static_cast<double>(devices_) : 0;
    out->cpu_allocation =
        cpu_capacity_ > 0 ? 100.0 * static_cast<double>(cpu_used) / static_cast<double>(cpu_capacity_) : 0;
    out->stranded_devices = devices_ > 0 ? 100.0 * static_cast<double>(stranded) / static_cast<double>(devices_) : 0;
    out->tainted_devices = devices_ > 0 ? 100.0 * static_cast<double>(tainted_) / static_cast<double>(devices_) : 0;
  }

 private:
  std::map<std::string, size_t, std::less<>> node_index_;
  std::vector<Resources> allocatable_;
  std::vector<int64_t> devices_per_node_;
  std::map<std::pair<std::string, std::string>, size_t> pool_node_;
  std::vector<std::pair<int64_t, int64_t>> smallest_;
  int64_t devices_ = 0;
  int64_t tainted_ = 0;                   // devices with a NoSchedule or NoExecute taint
  std::vector<std::string> tainted_ids_;  // theirs, "driver/pool/device"
  int64_t free_tainted_ = 0;              // of them, held by no claim at the last Measure
  int64_t cpu_capacity_ = 0;

  static bool Blocks(const api::DeviceTaint& t) {
    return t.effect == api::DeviceTaintEffect::kNoSchedule || t.effect == api::DeviceTaintEffect::kNoExecute;
  }
  // The slices carry the rules' taints too (NewSnapshot, Control).
  static bool Tainted(const api::Device& d) {
    return std::any_of(d.rare->taints.begin(), d.rare->taints.end(), Blocks);
  }
};

}  // namespace

std::optional<int64_t> ParseUtcSeconds(std::string_view t) {
  auto digits = [&](size_t at, size_t n) -> std::optional<int64_t> {
    if (at + n > t.size()) return std::nullopt;
    int64_t v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return std::nullopt;
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2), mi = digits(14, 2),
       sec = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !sec) return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  size_t i = 19;
  if (i < t.size() && t[i] == '.') {
    ++i;
    const size_t first = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == first) return std::nullopt;
  }
  if (i + 1 != t.size() || (t[i] != 'Z' && t[i] != 'z')) return std::nullopt;
  return DaysFromCivil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *sec;
}

std::string FormatUtcSeconds(int64_t seconds) {
  int64_t days = seconds / 86400, rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, rest / 3600, rest / 60 % 60, rest % 60);
}

namespace {

// One workload pod in the replay.
struct Item {
  api::Pod pod;
  int64_t arrival = 0;
  std::optional<int64_t> run_time;       // what it has left to run once started
  std::optional<int64_t> full_run_time;  // deletion - creation
  size_t snapshot_idx = SIZE_MAX;        // once arrived
  std::optional<int64_t> departure;      // once started: start + run_time (or the end of an eviction's grace)
  bool pending = false, running = false;
  int64_t pending_since = 0;
  // Being evicted: it stops at `departure`; then pending again if `restart`.
  bool evicting = false, restart = false;
  std::optional<int64_t> evicted_at;  // the last eviction, until it runs again
};

// The replay's state as a TimelineActor sees and changes it.
class Control final : public TimelineControl {
 public:
  Control(Snapshot* s, std::vector<Item>* items, TimelineResult* result, std::set<int64_t>* times)
      : s_(s), items_(items), result_(result), times_(times) {
    for (size_t i = 0; i < items->size(); ++i) by_key_[result->pods[i].pod] = i;
  }

  // Before the actor is called at `t`.
  void Begin(int64_t t) {
    now_ = t;
    changed_ = false;
    pending_.clear();
    for (size_t i = 0; i < items_->size(); ++i) {
      if ((*items_)[i].pending) pending_.emplace_back(result_->pods[i].pod, (*items_)[i].pending_since);
    }
  }
  bool changed() const { return changed_; }
  // True once, after nodes came or went since the last call.
  bool TakeNodesChanged() { return std::exchange(nodes_changed_, false); }

  int64_t now() const override { return now_; }
  const Snapshot& cluster() const override { return *s_; }
  const std::vector<std::pair<std::string, int64_t>>& pending() const override { return pending_; }

  Status AddNode(api::Node node, std::vector<api::ResourceSlice> slices) override {
    for (const api::Node& n : s_->nodes) {
      if (n.metadata.name == node.metadata.name) {
        return InvalidArgumentError(fmt::format("node {} is in the cluster already", node.metadata.name));
      }
    }
    s_->nodes.push_back(std::move(node));
    for (api::ResourceSlice& sl : slices) {
      for (const api::DeviceTaintRule& r : s_->rules) Taint(r, &sl, true);
      s_->slices.push_back(std::move(sl));
    }
    changed_ = nodes_changed_ = true;
    return OkStatus();
  }

  Status RemoveNode(std::string_view name) override {
    const auto node =
        std::find_if(s_->nodes.begin(), s_->nodes.end(), [&](const api::Node& n) { return n.metadata.name == name; });
    if (node == s_->nodes.end()) return InvalidArgumentError(fmt::format("no node {} to remove", name));
    s_->nodes.erase(node);
    std::erase_if(s_->slices, [&](const api::ResourceSlice& sl) { return sl.spec.node_name == name; });
    for (api::Pod& pod : s_->pods) {
      if (pod.spec.node_name != name || !Active(pod)) continue;
      pod.spec.node_name.clear();
      pod.status.phase = api::PodPhase::kPending;
      ReleaseClaims(*s_, pod);
      auto k = by_key_.find(PodKey(pod));
      if (k == by_key_.end()) continue;
      Item& it = (*items_)[k->second];
      if (it.departure && !it.evicting) it.run_time = *it.departure - now_;
      if (it.evicting && it.restart) it.run_time = it.full_run_time;
      it.departure.reset();
      it.running = false;
      it.evicting = false;
      it.pending = true;
      it.pending_since = now_;
      if (!it.evicted_at) it.evicted_at = now_;
      ++result_->pods[k->second].evictions;
      ++result_->summary.evictions;
    }
    changed_ = nodes_changed_ = true;
    return OkStatus();
  }

  Status EvictPod(std::string_view pod, int64_t grace, bool restart) override {
    auto k = by_key_.find(pod);
    if (k == by_key_.end()) return EvictClusterPod(pod);
    if (!(*items_)[k->second].running) {
      return InvalidArgumentError(fmt::format("no running workload pod {} to evict", pod));
    }
    Item& it = (*items_)[k->second];
    if (it.evicting) return OkStatus();
    ++result_->pods[k->second].evictions;
    ++result_->summary.evictions;
    it.evicted_at = now_;
    // At least a second: a pod placed again on a device whose toleration has
    // run out is evicted again (kube-controller-manager does the same), once
    // per grace, not endlessly at one instant.
    const int64_t stop = now_ + std::max<int64_t>(grace, 1);
    if (it.departure && *it.departure <= stop) return OkStatus();  // it ends by itself first
    it.evicting = true;
    it.restart = restart;
    it.departure = stop;
    times_->insert(stop);
    s_->pods[it.snapshot_idx].metadata.deletion_timestamp = FormatUtcSeconds(now_);
    changed_ = true;
    return OkStatus();
  }

  // A pod of the cluster (not of the workload) is deleted at once; no
  // controller of the cluster's is simulated to make it again.
  Status EvictClusterPod(std::string_view key) {
    for (api::Pod& pod : s_->pods) {
      if (PodKey(pod) != key || !Active(pod)) continue;
      ReleaseClaims(*s_, pod);
      pod.status.phase = api::PodPhase::kFailed;
      ++result_->summary.evictions;
      changed_ = true;
      return OkStatus();
    }
    return InvalidArgumentError(fmt::format("no running pod {} to evict", key));
  }

  bool Evicting(std::string_view pod) const override {
    auto k = by_key_.find(pod);
    return k != by_key_.end() && (*items_)[k->second].evicting;
  }

  Status AddTaintRule(api::DeviceTaintRule rule) override {
    for (const api::DeviceTaintRule& r : s_->rules) {
      if (r.metadata.name == rule.metadata.name) {
        return InvalidArgumentError(fmt::format("DeviceTaintRule {} exists already", rule.metadata.name));
      }
    }
    for (api::ResourceSlice& sl : s_->slices) Taint(rule, &sl, true);
    s_->rules.push_back(std::move(rule));
    changed_ = nodes_changed_ = true;
    return OkStatus();
  }

  Status RemoveTaintRule(std::string_view name) override {
    const auto it = std::find_if(s_->rules.begin(), s_->rules.end(),
                                 [&](const api::DeviceTaintRule& r) { return r.metadata.name == name; });
    if (it == s_->rules.end()) return InvalidArgumentError(fmt::format("no DeviceTaintRule {} to remove", name));
    for (api::ResourceSlice& sl : s_->slices) Taint(*it, &sl, false);
    s_->rules.erase(it);
    changed_ = nodes_changed_ = true;
    return OkStatus();
  }

  void WakeAt(int64_t time) override {
    if (time <= now_) return;
    times_->insert(time);
    wakes_.insert(time);
  }
  // True once for an instant an actor asked for.
  bool TakeWake(int64_t time) { return wakes_.erase(time) > 0; }

 private:
  // The snapshot's slices carry the taints of the rules (NewSnapshot applies
  // them, as the scheduler's slice tracker does): adds `rule`'s taint to the
  // devices of `slice` it matches, or takes it away again (the last equal
  // taint: rule taints follow the driver's own).
  void Taint(const api::DeviceTaintRule& rule, api::ResourceSlice* slice, bool add) const {
    if (!s_->gates.enabled(api::Gate::kDRADeviceTaints) || !s_->gates.enabled(api::Gate::kDRADeviceTaintRules)) return;
    for (api::Device& d : slice->spec.devices) {
      if (!alloc::TaintRuleMatches(rule.spec, slice->spec.driver, slice->spec.pool.name, d.name)) continue;
      if (add) {
        d.rare.mut().taints.push_back(rule.spec.taint);
        continue;
      }
      std::vector<api::DeviceTaint>& taints = d.rare.mut().taints;
      for (auto t = taints.rbegin(); t != taints.rend(); ++t) {
        if (*t == rule.spec.taint) {
          taints.erase(std::next(t).base());
          break;
        }
      }
    }
  }

  Snapshot* s_;
  std::vector<Item>* items_;
  TimelineResult* result_;
  std::set<int64_t>* times_;
  std::map<std::string, size_t, std::less<>> by_key_;
  std::vector<std::pair<std::string, int64_t>> pending_;
  std::set<int64_t> wakes_;  // instants actors asked for
  int64_t now_ = 0;
  bool changed_ = false;
  bool nodes_changed_ = false;
};

// The workload pods pending now that a scheduling run would place if no
// device had a NoSchedule or NoExecute taint (a probe on a copy).
StatusOr<int64_t> PendingForTaints(const Snapshot& s, const std::map<std::string, size_t>& workload,
                                   const ScheduleOptions& options) {
  Snapshot probe = s;
  for (api::ResourceSlice& sl : probe.slices) {
    for (api::Device& d : sl.spec.devices) {
      if (d.rare->taints.empty()) continue;
      std::erase_if(d.rare.mut().taints, [](const api::DeviceTaint& t) {
        return t.effect == api::DeviceTaintEffect::kNoSchedule || t.effect == api::DeviceTaintEffect::kNoExecute;
      });
    }
  }
  DRA_ASSIGN_OR_RETURN(ScheduleResult run, Schedule(&probe, options));
  int64_t n = 0;
  for (const PodOutcome& o : run.pods) {
    n += o.kind == PodOutcome::Kind::kPlaced && workload.contains(o.pod) ? 1 : 0;
  }
  return n;
}

// Scheduling runs an actor may bring about at one instant.
constexpr int kMaxRunsPerInstant = 1000;

// The workload's pods as items, checked (an arrival time, a departure after
// it, pending, a new name) and in arrival order.
StatusOr<std::vector<Item>> WorkloadItems(const Snapshot& s, std::vector<api::Pod>& workload) {
  std::set<std::string> names;
  for (const api::Pod& p : s.pods) names.insert(PodKey(p));
  std::vector<Item> items;
  for (api::Pod& p : workload) {
    const std::string key = PodKey(p);
    std::optional<int64_t> arrival = ParseUtcSeconds(p.metadata.creation_timestamp);
    if (!arrival) {
      return InvalidArgumentError(
          fmt::format("workload pod {}: metadata.creationTimestamp {}: an arrival time "
                      "(RFC 3339, UTC) is required",
                      key,
                      p.metadata.creation_timestamp.empty() ? "is missing"
                                                            : "\"" + p.metadata.creation_timestamp + "\" is not one"));
    }
    std::optional<int64_t> deletion;
    if (!p.metadata.deletion_timestamp.empty()) {
      deletion = ParseUtcSeconds(p.metadata.deletion_timestamp);
      if (!deletion || *deletion <= *arrival) {
        return InvalidArgumentError(
            fmt::format("workload pod {}: metadata.deletionTimestamp \"{}\" must be an RFC 3339 UTC time after its "
                        "creationTimestamp",
                        key, p.metadata.deletion_timestamp));
      }
    }
    if (!p.spec.node_name.empty()) {
      return InvalidArgumentError(
          fmt::format("workload pod {}: spec.nodeName is set; workload pods arrive pending "
                      "(bound pods belong in the cluster files)",
                      key));
    }
    if (!names.insert(key).second)
      return InvalidArgumentError(
          fmt::format("workload pod {}: a pod of this name "
                      "is already in the cluster or workload",
                      key));
    p.metadata.deletion_timestamp.clear();
    if (p.metadata.uid.empty()) p.metadata.uid = StableUid("pod/" + key);
    std::optional<int64_t> run_time;
    if (deletion) run_time = *deletion - *arrival;
    Item& item = items.emplace_back();
    item.pod = std::move(p);
    item.arrival = *arrival;
    item.run_time = run_time;
    item.full_run_time = run_time;
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.arrival < b.arrival; });
  return items;
}

// 1. Departures at `t`, and evictions whose grace is over, among the pods
// arrived (the first `arrived` items).
void Depart(int64_t t, size_t arrived, Snapshot& s, std::vector<Item>& items, TimelineResult& result) {
  for (size_t i = 0; i < arrived; ++i) {
    Item& it = items[i];
    if (!it.running || !it.departure || *it.departure > t) continue;
    api::Pod& pod = s.pods[it.snapshot_idx];
    ReleaseClaims(s, pod);
    it.running = false;
    it.departure.reset();
    if (!it.evicting) {
      pod.status.phase = api::PodPhase::kSucceeded;
      result.pods[i].end = t;
      continue;
    }
    it.evicting = false;
    if (it.restart) {  // its controller's new pod
      pod.spec.node_name.clear();
      pod.status.phase = api::PodPhase::kPending;
      pod.metadata.deletion_timestamp.clear();
      it.pending = true;
      it.pending_since = t;
      it.run_time = it.full_run_time;
    } else {
      pod.status.phase = api::PodPhase::kFailed;
      result.pods[i].end = t;
      result.pods[i].gone = true;
    }
  }
}

// What a scheduling run at `t` did to the workload pod of item `it`: placed
// (its departure then scheduled in `times`), or still pending and why.
void RecordOutcome(const PodOutcome& o, int64_t t, Item& it, TimelinePod& tp, std::set<int64_t>& times,
                   TimelineSummary& summary) {
  if (o.kind == PodOutcome::Kind::kPlaced) {
    it.pending = false;
    it.running = true;
    if (it.evicted_at) {  // running again
      ++summary.restarts;
      summary.seconds_lost += t - *it.evicted_at;
      tp.seconds_lost += t - *it.evicted_at;
      it.evicted_at.reset();
    }
    if (!tp.start) tp.start = t;
    tp.node = o.node;
    tp.last_message.clear();
    if (it.run_time) {
      it.departure = t + *it.run_time;
      times.insert(*it.departure);
    }
  } else {
    tp.last_message = o.message;
  }
}

// 3. A scheduling run over everything pending; again after the actors
// changed the nodes.
Status ScheduleAt(int64_t t, Snapshot& s, std::vector<Item>& items, const std::map<std::string, size_t>& by_key,
                  const ScheduleOptions& options, std::span<TimelineActor* const> actors, Control& control,
                  std::set<int64_t>& times, TimelineResult& result) {
  for (int runs = 1;; ++runs) {
    StatusOr<ScheduleResult> run = Schedule(&s, options);
    if (!run.ok()) return run.status();
    for (const PodOutcome& o : run->pods) {
      auto k = by_key.find(o.pod);
      if (k == by_key.end()) continue;
      RecordOutcome(o, t, items[k->second], result.pods[k->second], times, result.summary);
    }
    bool changed = false;
    for (TimelineActor* actor : actors) {
      control.Begin(t);
      DRA_RETURN_IF_ERROR(actor->AfterRun(control));
      changed = changed || control.changed();
    }
    if (!changed) break;
    if (runs == kMaxRunsPerInstant) {
      return InternalError(fmt::format("the nodes changed {} times at {}", runs, FormatUtcSeconds(t)));
    }
  }
  return OkStatus();
}

// The summary of the replay, from the pods and the samples.
void Summarize(const std::vector<Item>& items, double tainted_seconds, TimelineResult& result) {
  TimelineSummary& sum = result.summary;
  sum.device_hours_tainted = tainted_seconds / 3600.0;
  sum.start_time = result.samples.front().time;
  sum.end_time = result.samples.back().time;
  std::vector<int64_t> waits;
  for (size_t i = 0; i < items.size(); ++i) {
    const TimelinePod& tp = result.pods[i];
    if (tp.start) {
      ++sum.started;
      if (*tp.start == tp.arrival) ++sum.started_on_arrival;
      waits.push_back(*tp.start - tp.arrival);
    }
    if (tp.end && !tp.gone) ++sum.finished;
    if (items[i].evicted_at) {  // not running again
      sum.seconds_lost += sum.end_time - *items[i].evicted_at;
      result.pods[i].seconds_lost += sum.end_time - *items[i].evicted_at;
    }
    if (items[i].pending) {
      ++sum.pending_at_end;
      result.pods[i].pending_at_end = true;
    }
  }
  if (!waits.empty()) {
    std::sort(waits.begin(), waits.end());
    double total = 0;
    for (int64_t w : waits) total += static_cast<double>(w);
    sum.wait_mean = total / static_cast<double>(waits.size());
    // Nearest rank, as `simulate replay`: the smallest wait with at least q%
    // of the waits at or below it.
    auto rank = [&](size_t q) { return waits[(q * waits.size() + 99) / 100 - 1]; };
    sum.wait_p50 = rank(50);
    sum.wait_p95 = rank(95);
    sum.wait_max = waits.back();
  }
  const double span = static_cast<double>(sum.end_time - sum.start_time);
  for (size_t i = 0; i < result.samples.size(); ++i) {
    const TimelineSample& x = result.samples[i];
    sum.peak_pending = std::max(sum.peak_pending, x.pending);
    sum.peak_device_allocation = std::max(sum.peak_device_allocation, x.device_allocation);
    // Each sample holds until the next instant; a single instant counts whole.
    const double weight =
        span > 0
            ? (i + 1 < result.samples.size() ? static_cast<double>(result.samples[i + 1].time - x.time) / span : 0.0)
            : 1.0;
    sum.device_allocation_mean += weight * x.device_allocation;
    sum.cpu_allocation_mean += weight * x.cpu_allocation;
    sum.stranded_devices_mean += weight * x.stranded_devices;
  }
}

}  // namespace

StatusOr<TimelineResult> ReplayWorkload(Snapshot s, std::vector<api::Pod> workload, const ScheduleOptions& options,
                                        std::span<TimelineActor* const> actors) {
  DRA_ASSIGN_OR_RETURN(std::vector<Item> items, WorkloadItems(s, workload));

  TimelineResult result;
  Meter meter(s, [&] {
    std::vector<api::Pod> pods;
    pods.reserve(items.size());
    for (const Item& it : items) pods.push_back(it.pod);
    return pods;
  }());
  result.summary.pods = static_cast<int64_t>(items.size());
  result.summary.devices = meter.devices();
  result.pods.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    result.pods[i].pod = PodKey(items[i].pod);
    result.pods[i].arrival = items[i].arrival;
  }
  if (items.empty()) return result;

  // Instants with events: arrivals, departures once pods start, and the
  // actor's wake-ups.
  std::set<int64_t> times;
  for (const Item& it : items) times.insert(it.arrival);
  std::map<std::string, size_t> by_key;  // workload pod -> item
  for (size_t i = 0; i < items.size(); ++i) by_key[result.pods[i].pod] = i;
  Control control(&s, &items, &result, &times);

  size_t next_arrival = 0;
  double tainted_seconds = 0;  // tainted devices x seconds
  std::optional<int64_t> last_time;
  while (!times.empty()) {
    const int64_t t = *times.begin();
    times.erase(times.begin());
    // An instant left behind by a departure that moved (an eviction) has
    // nothing to do.
    bool event = control.TakeWake(t) || (next_arrival < items.size() && items[next_arrival].arrival == t);
    for (size_t i = 0; i < next_arrival && !event; ++i) event = items[i].running && items[i].departure == t;
    if (!event) continue;
    if (last_time) tainted_seconds += static_cast<double>(meter.tainted()) * static_cast<double>(t - *last_time);
    last_time = t;
    Depart(t, next_arrival, s, items, result);
    // 2. Arrivals.
    for (; next_arrival < items.size() && items[next_arrival].arrival == t; ++next_arrival) {
      Item& it = items[next_arrival];
      it.snapshot_idx = s.pods.size();
      it.pending = true;
      it.pending_since = t;
      s.pods.push_back(it.pod);
    }
    DRA_RETURN_IF_ERROR(ScheduleAt(t, s, items, by_key, options, actors, control, times, result));
    if (control.TakeNodesChanged()) meter.Nodes(s);
    TimelineSample sample{.time = t};
    meter.Measure(s, &sample);
    for (const Item& it : items) {
      sample.running += it.running;
      sample.pending += it.pending;
    }
    // Only a tainted device no claim holds can be what a pending pod waits for.
    if (sample.pending > 0 && meter.free_tainted() > 0) {
      DRA_ASSIGN_OR_RETURN(sample.pending_for_taints, PendingForTaints(s, by_key, options));
    }
    result.summary.peak_pending_for_taints =
        std::max(result.summary.peak_pending_for_taints, sample.pending_for_taints);
    result.samples.push_back(sample);
  }

  Summarize(items, tainted_seconds, result);
  return result;
}

}  // namespace dra::sched
