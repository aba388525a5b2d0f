// Capacity planning (`dractl plan`): which nodes of which node groups to add
// so that the pending pods fit, each plan checked by the scheduler of
// `dractl schedule` (filters, DRA allocation, the policy), not by a model.
// The cluster is first scheduled as it is (what fits is bound there, as
// kube-scheduler binds it before an autoscaler looks); the pods that stay
// pending are the demand.
//
// Scale-up, as the cluster autoscaler decides it (--expander least-waste,
// price, most-pods, random: one group per loop, each group's option
// estimated by adding its nodes one at a time while that places more pods;
// the expander picks one option), or `optimal`: the cheapest set of nodes
// over all groups together that places as many pods as any plan can:
//   1. an incumbent: the best of the four expanders' plans, improved by
//      local moves (drop a node; trade one or two nodes of a group for one
//      of a cheaper group) while the pods placed do not drop;
//   2. best-first over the lattice of node counts in order of total price
//      (each popped count vector is scheduled): the first that places as
//      many pods as the target is optimal; the search ends there, at the
//      incumbent's price (which is then optimal), or at the time limit,
//      where the price of the cheapest unscheduled vector is a lower bound
//      (every cheaper vector was tried and failed).
// The target is the most pods any plan places: the expanders' best, or every
// group at its maxSize, whichever is more.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "alloc/best_fit.h"
#include "base/status.h"
#include "plan/node_group.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::plan {

enum class Expander { kOptimal, kLeastWaste, kPrice, kMostPods, kRandom };
// "optimal", "least-waste", "price", "most-pods", "random"; nullopt for others.
std::optional<Expander> ParseExpander(std::string_view name);
std::string_view ExpanderName(Expander expander);

// How the planner values a candidate set of nodes: kRuns schedules each one
// (every pending pod on the new nodes); kClasses builds plans from what one
// node of each group holds of each class of equal pending pods
// (class_model.h) and schedules only the plans it chooses between (an
// expander: its own; optimal: least-waste's, price's, the best on the model
// and a cheaper one, two runs at a time); kAuto takes kClasses
// where it applies and there are more than kClassesFromPods pending pods or
// kClassesFromGroups groups.
enum class Valuation { kAuto, kRuns, kClasses };
inline constexpr size_t kClassesFromPods = 200;
inline constexpr size_t kClassesFromGroups = 8;

struct PlanOptions {
  const sched::ScorePolicy* policy = nullptr;  // required; borrowed
  uint64_t seed = 0;                           // the scheduler's tie-break, and the random expander's
  uint64_t max_steps = 0;
  alloc::DeviceChoice device_choice = alloc::DeviceChoice::kFirstFit;
  Expander expander = Expander::kOptimal;
  double max_seconds = 10;  // optimal: the search's time limit
  // Per group, the index of its first new node (the nodes it has already:
  // new ones are named from "<group>-<index>" on); empty: 0 for all.
  std::vector<int64_t> first_index{};
  Valuation valuation = Valuation::kAuto;
  sched::GangOptions gang{};  // how pod groups are placed (sched/scheduler.h)
};

struct GroupCount {
  std::string group{};
  int64_t count = 0;
  double cost = 0;  // count * price
};

struct Placement {
  std::string pod{};  // "namespace/name"
  std::string node{};
  bool new_node = false;
};

struct Unschedulable {
  std::string pod{};
  std::string reason{};  // the scheduler's message with every group at its maxSize
  // Scale-up: explain's analysis there (sched/explain.h): why it can never
  // fit ("no node has more than 8 devices matching ...; the request asks for
  // 16"), else its causes per node; may be empty.
  std::string detail{};
};

struct PlanResult {
  Expander expander = Expander::kOptimal;
  std::vector<GroupCount> scale_up{};  // groups that get nodes, in input order
  double cost = 0;
  // optimal: a price no plan that places as many pods can be below; equal to
  // cost when the plan is proven optimal. Other expanders: not set (-1).
  double lower_bound = -1;
  bool stopped_early = false;                  // optimal: the time limit ended the search
  size_t pending = 0;                          // pods the cluster as it is leaves pending
  std::vector<Placement> placements{};         // where the plan places those pods
  std::vector<Unschedulable> unschedulable{};  // those no plan places
  std::vector<NodeInstance> added{};           // the nodes to add, with their slices
  size_t evaluations = 0;                      // scheduler runs
  bool class_model = false;                    // candidates were valued by class_model.h
  size_t simulations = 0;                      // its one-node scheduler runs
};

// Scale-down, as the cluster autoscaler decides it: a node whose utilization
// (the largest of its cpu and memory requested over allocatable and, where it
// has DRA devices, the share of them allocated) is below the threshold can be
// removed when every pod on it, with its claims, fits elsewhere: the node and
// its slices are taken away, its pods become pending, their claims are
// deallocated, and the scheduler places them (a drain simulation). Each node
// is judged on the cluster as it is (not after the others' removal).
struct ScaleDownNode {
  std::string node{};
  double utilization = 0;  // 0..1
  bool removable = false;
  std::vector<Placement> moves{};         // where its pods would go
  std::vector<Unschedulable> blockers{};  // pods that would not fit elsewhere
};
StatusOr<std::vector<ScaleDownNode>> PlanScaleDown(const sched::Snapshot& cluster, const PlanOptions& options,
                                                   double utilization_threshold);

// The parts of PlanScaleDown, for the autoscaler of the replay (autoscale.h).
// The utilization of each node of `cluster` (running pods only), 0..1.
std::vector<double> NodeUtilizations(const sched::Snapshot& cluster);
// The drain of `cluster->nodes[node]` (at `utilization`): it goes with its
// slices, its running pods are pending again, the claims only they reserved
// are deallocated, and the scheduler places those pods on the other nodes.
// `cluster` must hold no other pending pod (they would compete:
// WithoutPendingPods), and is as it was when this returns.
StatusOr<ScaleDownNode> SimulateDrain(sched::Snapshot* cluster, size_t node, double utilization,
                                      const PlanOptions& options);
// `cluster` without its pods that are not bound to a node.
sched::Snapshot WithoutPendingPods(sched::Snapshot cluster);

// Plans the scale-up of `cluster` (pods, claims, nodes... as `dractl
// schedule` reads them) over `groups`.
StatusOr<PlanResult> PlanScaleUp(const sched::Snapshot& cluster, std::span<const NodeGroup> groups,
                                 const PlanOptions& options);

}  // namespace dra::plan
