#include "plan/autoscale.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "sched/scheduler.h"

namespace dra::plan {

std::string_view AutoscaleEventName(AutoscaleEvent::Kind kind) {
  switch (kind) {
    case AutoscaleEvent::Kind::kScaleUp: return "scale-up";
    case AutoscaleEvent::Kind::kReady: return "ready";
    case AutoscaleEvent::Kind::kScaleDown: return "scale-down";
  }
  return "";
}

Autoscaler::Autoscaler(std::span<const NodeGroup> groups, AutoscaleOptions options)
    : groups_(groups), options_(std::move(options)), next_index_(groups.size(), 0), peak_(groups.size(), 0) {}

int64_t Autoscaler::Live(size_t group) const {
  return std::count_if(nodes_.begin(), nodes_.end(),
                       [&](const NodeState& n) { return n.group == group && !n.removed; });
}

Status Autoscaler::AddMinimum(sched::Snapshot* cluster) {
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (int64_t k = 0; k < groups_[g].min_size; ++k) {
      NodeInstance inst = Instantiate(groups_[g], static_cast<size_t>(next_index_[g]++));
      for (const api::Node& n : cluster->nodes) {
        if (n.metadata.name == inst.node.metadata.name) {
          return InvalidArgumentError(
              fmt::format("node group {}: its node {} is in the cluster already", groups_[g].name, n.metadata.name));
        }
      }
      nodes_.push_back({.group = g, .name = inst.node.metadata.name, .ready = true});
      cluster->nodes.push_back(std::move(inst.node));
      for (api::ResourceSlice& s : inst.slices) cluster->slices.push_back(std::move(s));
    }
    peak_[g] = groups_[g].min_size;
  }
  return OkStatus();
}

Status Autoscaler::AfterRun(sched::TimelineControl& control) {
  const int64_t now = control.now();
  // 1. Provisioned nodes join; the scheduler gets to place pods on them first.
  bool joined = false;
  for (NodeState& n : nodes_) {
    if (n.ready || n.removed || n.ready_at > now) continue;
    DRA_RETURN_IF_ERROR(control.AddNode(std::move(n.instance.node), std::move(n.instance.slices)));
    n.instance = {};
    n.ready = true;
    joined = true;
    events_.push_back({now, AutoscaleEvent::Kind::kReady, groups_[n.group].name, n.name});
  }
  if (joined) return OkStatus();
  DRA_RETURN_IF_ERROR(ScaleUp(control));
  return ScaleDown(control);
}

Status Autoscaler::ScaleUp(sched::TimelineControl& control) {
  const int64_t now = control.now();
  std::set<std::string> demand, young;
  for (const auto& [pod, since] : control.pending()) {
    if (now - since >= options_.scale_up_delay) {
      demand.insert(pod);
    } else {
      young.insert(pod);
      control.WakeAt(since + options_.scale_up_delay);
    }
  }
  if (demand.empty()) return OkStatus();
  std::set<std::string> live;
  for (const NodeState& n : nodes_) {
    if (!n.removed) live.insert(n.name);
  }
  if (demand == idle_demand_ && live == idle_nodes_) return OkStatus();

  // The cluster as the plan sees it: the young pods left out, the nodes
  // being provisioned added.
  sched::Snapshot s = control.cluster();
  std::erase_if(s.pods, [&](const api::Pod& p) { return young.contains(sched::ObjectKey(p.metadata)); });
  for (const NodeState& n : nodes_) {
    if (n.ready || n.removed) continue;
    s.nodes.push_back(n.instance.node);
    for (const api::ResourceSlice& sl : n.instance.slices) s.slices.push_back(sl);
  }
  std::vector<NodeGroup> capped(groups_.begin(), groups_.end());
  for (size_t g = 0; g < capped.size(); ++g) capped[g].max_size = std::max<int64_t>(0, capped[g].max_size - Live(g));
  PlanOptions plan = options_.plan;
  plan.first_index = next_index_;
  ++plans_;
  DRA_ASSIGN_OR_RETURN(PlanResult r, PlanScaleUp(s, capped, plan));
  if (r.added.empty()) {
    idle_demand_ = std::move(demand);
    idle_nodes_ = std::move(live);
    return OkStatus();
  }
  idle_demand_.clear();
  idle_nodes_.clear();
  // r.added holds each group's nodes in turn, in the order of r.scale_up.
  size_t next = 0;
  for (const GroupCount& c : r.scale_up) {
    const size_t g = static_cast<size_t>(
        std::find_if(groups_.begin(), groups_.end(), [&](const NodeGroup& x) { return x.name == c.group; }) -
        groups_.begin());
    for (int64_t k = 0; k < c.count && next < r.added.size(); ++k) {
      NodeInstance& inst = r.added[next++];
      ++next_index_[g];
      NodeState n{.group = g,
                  .name = inst.node.metadata.name,
                  .requested = now,
                  .ready_at = now + options_.provision_time,
                  .instance = std::move(inst)};
      events_.push_back({now, AutoscaleEvent::Kind::kScaleUp, groups_[g].name, n.name});
      nodes_.push_back(std::move(n));
      peak_[g] = std::max(peak_[g], Live(g));
      control.WakeAt(nodes_.back().ready_at);
    }
  }
  // Ready at once (no provisioning time): they join now.
  if (options_.provision_time <= 0) return AfterRun(control);
  return OkStatus();
}

Status Autoscaler::ScaleDown(sched::TimelineControl& control) {
  const int64_t now = control.now();
  // The drains see the bound pods only (the pending ones wait for a scale-up).
  sched::Snapshot s = WithoutPendingPods(control.cluster());
  std::map<std::string, size_t, std::less<>> by_name;
  for (size_t i = 0; i < s.nodes.size(); ++i) by_name[s.nodes[i].metadata.name] = i;
  const std::vector<double> utilization = NodeUtilizations(s);
  // Which nodes are unneeded now, and since when.
  std::vector<NodeState*> due_empty, due_busy;
  for (NodeState& n : nodes_) {
    if (!n.ready || n.removed) continue;
    auto it = by_name.find(n.name);
    if (it == by_name.end()) continue;
    bool unneeded = false;
    bool empty = false;
    if (utilization[it->second] < options_.utilization_threshold) {
      DRA_ASSIGN_OR_RETURN(ScaleDownNode drain, SimulateDrain(&s, it->second, utilization[it->second], options_.plan));
      unneeded = drain.removable;
      empty = drain.moves.empty();
    }
    if (!unneeded) {
      n.unneeded_since.reset();
      continue;
    }
    if (!n.unneeded_since) n.unneeded_since = now;
    if (now - *n.unneeded_since < options_.scale_down_unneeded) {
      control.WakeAt(*n.unneeded_since + options_.scale_down_unneeded);
      continue;
    }
    (empty ? due_empty : due_busy).push_back(&n);
  }
  const auto remove = [&](NodeState& n) -> Status {
    DRA_RETURN_IF_ERROR(control.RemoveNode(n.name));
    n.removed = now;
    events_.push_back({now, AutoscaleEvent::Kind::kScaleDown, groups_[n.group].name, n.name});
    return OkStatus();
  };
  for (NodeState* n : due_empty) {
    if (Live(n->group) > groups_[n->group].min_size) DRA_RETURN_IF_ERROR(remove(*n));
  }
  for (NodeState* n : due_busy) {
    if (Live(n->group) <= groups_[n->group].min_size) continue;
    // Judged again: the empty nodes just removed may have been where its pods would go.
    sched::Snapshot now_s = WithoutPendingPods(control.cluster());
    const auto it = std::find_if(now_s.nodes.begin(), now_s.nodes.end(),
                                 [&](const api::Node& x) { return x.metadata.name == n->name; });
    if (it == now_s.nodes.end()) continue;
    const size_t index = static_cast<size_t>(it - now_s.nodes.begin());
    DRA_ASSIGN_OR_RETURN(ScaleDownNode drain, SimulateDrain(&now_s, index, 0, options_.plan));
    if (!drain.removable) continue;
    DRA_RETURN_IF_ERROR(remove(*n));
    break;
  }
  return OkStatus();
}

AutoscaleReport Autoscaler::Report(int64_t start, int64_t end) const {
  AutoscaleReport r{.events = events_, .plans = plans_};
  std::stable_sort(r.events.begin(), r.events.end(),
                   [](const AutoscaleEvent& a, const AutoscaleEvent& b) { return a.time < b.time; });
  for (size_t g = 0; g < groups_.size(); ++g) r.groups.push_back({.group = groups_[g].name, .peak = peak_[g]});
  for (const NodeState& n : nodes_) {
    GroupUsage& u = r.groups[n.group];
    if (n.requested) ++u.added;
    if (n.removed) ++u.removed;
    const int64_t from = n.requested.value_or(start);
    const int64_t to = n.removed.value_or(std::max(end, from));
    u.node_hours += static_cast<double>(to - from) / 3600.0;
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    r.groups[g].cost = r.groups[g].node_hours * groups_[g].price;
    r.node_hours += r.groups[g].node_hours;
    r.cost += r.groups[g].cost;
  }
  return r;
}

}  // namespace dra::plan
