// Autoscaling during a replay (`dractl simulate cluster --node-groups`): the
// node groups of `dractl plan` grow and shrink as the workload comes and
// goes, decided as the cluster autoscaler decides (kubernetes-sigs/cluster-autoscaler:
// pkg/core/static_autoscaler.go RunOnce, pkg/core/scaledown/planner) but
// with the planner of plan.h, so `--expander optimal` can be compared with
// the autoscaler's own expanders over time.
//
// At every instant of the replay, after the scheduling run (sched/timeline.h):
//   1. Nodes whose provisioning is over join the cluster with their slices
//      (the pending pods are scheduled again before anything else).
//   2. Scale-up: the pods pending for at least the scale-up delay are the
//      demand; the cluster with the nodes still provisioning added (pods that
//      fit those are not demand) is planned with PlanScaleUp, each group
//      capped at maxSize minus the nodes it has. The nodes of the plan are
//      requested now and ready `provision_time` later. A plan that added
//      nothing is not tried again until the demand or the nodes change.
//   3. Scale-down: a ready node of a group is unneeded while its utilization
//      is below the threshold and every pod on it fits elsewhere
//      (SimulateDrain); once unneeded for the whole window it is removed
//      (its pods are evicted and scheduled again), unless that would take its
//      group below minSize. Empty nodes go together; at most one node with
//      pods goes per scheduling run. The cluster's own nodes are never removed.
// Each group starts with its minSize nodes, ready from the start. Not
// modelled: the autoscaler's 10 s loop (decisions are made at the instants
// of the replay and at the wake-ups they need), backoff after failed
// provisioning, scale-down cooldowns, PodDisruptionBudgets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "plan/node_group.h"
#include "plan/plan.h"
#include "sched/snapshot.h"
#include "sched/timeline.h"

namespace dra::plan {

struct AutoscaleOptions {
  PlanOptions plan{};                 // the expander, the scheduler's options
  int64_t scale_up_delay = 10;        // seconds a pod is pending before it is demand
  int64_t provision_time = 180;       // seconds from the request to a ready node
  int64_t scale_down_unneeded = 600;  // seconds unneeded before removal
  double utilization_threshold = 0.5;
};

struct AutoscaleEvent {
  enum class Kind { kScaleUp, kReady, kScaleDown };
  int64_t time = 0;
  Kind kind = Kind::kScaleUp;
  std::string group{};
  std::string node{};
};
std::string_view AutoscaleEventName(AutoscaleEvent::Kind kind);  // "scale-up", "ready", "scale-down"

struct GroupUsage {
  std::string group{};
  int64_t added = 0;  // nodes requested during the replay
  int64_t removed = 0;
  int64_t peak = 0;       // most nodes at once, provisioning ones included
  double node_hours = 0;  // from each node's request (or the start) to its removal (or the end)
  double cost = 0;        // node_hours * price
};

struct AutoscaleReport {
  std::vector<AutoscaleEvent> events{};  // in time order
  std::vector<GroupUsage> groups{};      // in input order
  double node_hours = 0;
  double cost = 0;
  size_t plans = 0;  // PlanScaleUp calls
};

class Autoscaler final : public sched::TimelineActor {
 public:
  Autoscaler(std::span<const NodeGroup> groups, AutoscaleOptions options);

  // Adds each group's minSize nodes to `cluster` (before the replay).
  // kInvalidArgument if a node of that name is there already.
  Status AddMinimum(sched::Snapshot* cluster);
  Status AfterRun(sched::TimelineControl& control) override;
  // After a replay from `start` to `end` (seconds since the epoch).
  AutoscaleReport Report(int64_t start, int64_t end) const;

 private:
  struct NodeState {
    size_t group = 0;
    std::string name{};
    std::optional<int64_t> requested{};  // nullopt: there from the start
    int64_t ready_at = 0;
    bool ready = false;
    std::optional<int64_t> removed{};
    std::optional<int64_t> unneeded_since{};
    NodeInstance instance{};  // until it is ready
  };

  Status ScaleUp(sched::TimelineControl& control);
  Status ScaleDown(sched::TimelineControl& control);
  int64_t Live(size_t group) const;  // nodes not removed, provisioning included

  std::span<const NodeGroup> groups_;
  AutoscaleOptions options_;
  std::vector<NodeState> nodes_{};
  std::vector<int64_t> next_index_{};
  std::vector<int64_t> peak_{};
  std::vector<AutoscaleEvent> events_{};
  size_t plans_ = 0;
  // The last plan that added nothing: its demand and the nodes it saw.
  std::set<std::string> idle_demand_{};
  std::set<std::string> idle_nodes_{};
};

}  // namespace dra::plan
