// Pending pods as equivalence classes, and the cluster autoscaler's
// binpacking estimator over them (cluster-autoscaler pkg/estimator/binpacking_estimator.go), for
// plans too large to schedule every candidate (`dractl plan` with thousands
// of pending pods or tens of node groups).
//
// Pods of one class (same namespace and spec: requests, claims from the same
// templates, tolerations, node selection, priority) are interchangeable for
// the scheduler's filters. What fits on one node is decided by the scheduler
// itself, once per (group, what the node holds, class): a one-node run of
// `dractl schedule` with copies of the classes' first pods, memoized. Plans
// are then built from those counts; only the plan chosen is scheduled in
// full (plan.h).
//
// The model applies only where pods are independent of one another across
// nodes: no pending pod names a claim (ResourceClaim shared or made by
// hand), no claim of a pending pod is allocated, and no device is outside a
// node (network-attached slices are shared by all nodes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "base/status.h"
#include "plan/node_group.h"
#include "sched/resources.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::plan {

struct PodClass {
  std::vector<size_t> pods{};  // indices into the pending snapshot's pods, in its order
  sched::Resources requests{};
};

// What one node holds: (class, pods) in the order they were placed; a class
// placed twice in a row is one entry.
using NodeContent = std::vector<std::pair<uint32_t, int64_t>>;

// `nodes` nodes of one group, each holding `content`.
struct NodeRun {
  NodeContent content{};
  int64_t nodes = 0;
};

class ClassModel {
 public:
  // The model of `pending` (pods not bound to a node, the claims they use,
  // slices of no node: Planner's pending part) over `groups`, scheduled with
  // `options`; nullopt where it does not apply (see the top of this file).
  static std::optional<ClassModel> Make(const sched::Snapshot& pending, std::span<const NodeGroup> groups,
                                        const sched::ScheduleOptions& options);

  std::span<const PodClass> classes() const { return classes_; }

  // How many more pods of class `c` fit one node of group `g` that holds
  // `content`, as the scheduler places them there (at most the node's pod
  // capacity, or kMaxFill where it has none).
  static constexpr int64_t kMaxFill = 1024;
  StatusOr<int64_t> Fill(size_t g, const NodeContent& content, uint32_t c);

  // The exclusive devices (not shared by capacity, not admin access) one pod
  // of class `c` takes on a fresh node of group `g`, and the devices such a
  // node has; from Fill's run (0 where the pod does not fit).
  StatusOr<int64_t> DevicesPerPod(size_t g, uint32_t c);
  int64_t DevicesPerNode(size_t g) const;

  // Places up to `*count` pods of class `c` on `runs` (nodes of group `g`),
  // first fit in node order, splitting runs where only some of their nodes
  // take pods; `*count` is lowered by the pods placed. Returns them.
  StatusOr<int64_t> FirstFit(size_t g, uint32_t c, int64_t* count, std::vector<NodeRun>* runs);

  // The cluster autoscaler's estimate for group `g`: at most `limit` new
  // nodes for `remaining` pods per class. Classes in the estimator's order
  // (cpu/allocatable + memory/allocatable, highest first); each fills the
  // nodes added so far first fit, then new ones; a class whose pod fits no
  // new node leaves that node empty, and no node is added after an empty one.
  struct Estimate {
    int64_t nodes = 0;              // nodes that hold pods
    std::vector<int64_t> placed{};  // per class
    std::vector<NodeRun> runs{};    // those nodes
  };
  StatusOr<Estimate> EstimateGroup(size_t g, std::span<const int64_t> remaining, int64_t limit);

  // The pods per class (at most `remaining`) that `counts` new nodes per
  // group take: the classes that fit the fewest groups first (then the
  // fewest pods on a node: first fit decreasing), each first fit over the
  // groups' nodes in group order. How the planner values a set of nodes
  // without scheduling it.
  StatusOr<std::vector<int64_t>> Pack(std::span<const int64_t> counts, std::span<const int64_t> remaining);

  size_t simulations() const { return simulations_; }

 private:
  ClassModel(const sched::Snapshot& pending, std::span<const NodeGroup> groups, const sched::ScheduleOptions& options)
      : groups_(groups), options_(options) {
    base_.gates = pending.gates;
    base_.templates = pending.templates;
    base_.classes = pending.classes;
    base_.rules = pending.rules;
  }

  sched::Snapshot base_{};             // the cluster-wide objects every one-node run needs
  std::vector<api::Pod> exemplars_{};  // per class, its first pod as a fresh one
  std::vector<PodClass> classes_{};
  std::span<const NodeGroup> groups_{};
  sched::ScheduleOptions options_{};
  std::vector<std::vector<uint32_t>> order_{};                            // per group
  std::map<std::tuple<size_t, NodeContent, uint32_t>, int64_t> fills_{};  // Fill's memo
  std::map<std::pair<size_t, uint32_t>, int64_t> devices_per_pod_{};      // set by Fill on fresh nodes
  std::vector<uint32_t> pack_order_{};                                    // Pack's, once
  size_t simulations_ = 0;
};

}  // namespace dra::plan
