// Pod groups in the scheduling queue (KEP-4671, kube-scheduler 1.37.2's
// GangScheduling plugin and pod-group cycle; README.md §2.4): which pods
// form a group, in what order the queue meets groups and single pods, and
// the group-level checks and texts that decide before any member is tried.
// The group cycle itself (members placed one by one, undone on failure, and
// the search of GangMode::kSearch) is in scheduler.cc, which owns the state
// it changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sched/snapshot.h"

namespace dra::sched {

// One entry of the scheduling queue: a single pod, or the pending members of
// one pod group.
struct GroupEntity {
  std::vector<size_t> pods;  // into Snapshot::pods: one pod, or the members in queue order
  // Members only: the group's namespace and name, and its index into
  // Snapshot::pod_groups (nullopt: no such PodGroup in the snapshot).
  std::string group_namespace;
  std::string group_name;
  std::optional<size_t> group;
  bool is_group() const { return !group_name.empty(); }
};

// The queue `queue` (indices into snapshot.pods, in order) with the pods of
// each pod group collected into one entity at the place of its first member
// (kube-scheduler queues a group as one entity ordered by the group's
// priority and first member's timestamp; members must share the group's
// priority, so the first member's place is the group's). Without
// GenericWorkload every pod is its own entity: the API server drops
// spec.schedulingGroup while the gate is off.
std::vector<GroupEntity> GroupQueue(const Snapshot& snapshot, std::span<const size_t> queue);

// gang.minCount, or 1 for a basic policy (GangScheduling's getMinCount).
int32_t MinCount(const api::PodGroup& group);

// The pods of the snapshot in the group that kube-scheduler's PodGroupState
// counts: every pod naming the group that is not finished or being deleted
// (AllPodsCount), and of those the ones bound to a node (ScheduledPodsCount).
struct GroupCounts {
  size_t all = 0;
  size_t scheduled = 0;
};
GroupCounts CountGroupPods(const Snapshot& snapshot, std::string_view ns, std::string_view name);

// GangScheduling PreEnqueue: nullopt when the group may be tried, else
// upstream's text (the group missing, or fewer pods than minCount).
std::optional<std::string> GroupPreEnqueue(const Snapshot& snapshot, const GroupEntity& entity);

// validatePodGroup: the error text when the group's pods (pending and
// scheduled) disagree on spec.schedulerName, priority (the group's) or
// preemptionPolicy; nullopt when they agree.
std::optional<std::string> ValidateGroupPods(const Snapshot& snapshot, const GroupEntity& entity);

// Placements (TopologyAwareWorkloadScheduling, KEP-5732; README.md §2.4):
// where kube-scheduler 1.37.2 tries a pod group, each in turn. Without a
// topology constraint one placement of every node; with
// schedulingConstraints.topology[0].key, one per value of that node label
// (nodes without it are in none), only the value of the group's scheduled
// members' nodes once some are scheduled (TopologyPlacementGenerator).
// Upstream walks them in map order; dractl by name.
//
// dractl's extension (`devices`, for --gang search): a key that no node
// carries but devices do as an attribute ("gpu.example.com/nvlinkDomain",
// as matchAttribute names it) makes one placement per value of that
// attribute, on every node, with the devices whose attribute has another
// value kept out: the members' devices share the value.
struct DeviceKey {
  std::string driver, pool, device;
};
struct GroupPlacement {
  std::string name;                 // the domain; "" for the all-nodes placement
  std::vector<size_t> nodes;        // into snapshot.nodes, rising
  std::vector<DeviceKey> excluded;  // device domains: the devices of the other values
};
struct GroupPlacements {
  std::vector<GroupPlacement> placements;  // by name
  // When there are none: upstream's status, an error ("cannot determine
  // domain for already scheduled pods: ...") or Unschedulable ("no feasible
  // placements found").
  bool error = false;
  std::string message;
};
GroupPlacements GeneratePlacements(const Snapshot& snapshot, const GroupEntity& entity, bool devices);

struct GroupOutcome;  // scheduler.h

// kube-scheduler's PodGroupInitiallyScheduled condition for a group it tried
// (submitPodGroupAlgorithmResult) written into `group`: True/Scheduled, or
// False with Unschedulable or SchedulerError and the group's message, at
// `now` (RFC 3339); a True condition is never turned False
// (updatePodGroupCondition). Returns whether the condition changed.
bool SetInitiallyScheduled(const GroupOutcome& outcome, const std::string& now, api::PodGroup* group);

// errPodGroupUnschedulable: the error upstream's pod-group statuses wrap
// (their Message() then starts with it and ", ").
inline constexpr char kPodGroupUnschedulable[] = "pod group is unschedulable";

// kube-scheduler's PodGroupPostFilter plugins (DynamicResources, then
// DefaultPreemption) on a group whose cycle ended Unschedulable.
// `dra_state`: some member's cycle ran DynamicResources' PreFilter (a
// member was tried on a cluster with nodes), which leaves the state that
// DynamicResources' PodGroupPostFilter reads; without it (and without a
// topology constraint under TopologyAwareWorkloadScheduling, which makes
// that plugin step aside) the plugin fails and the group ends with an
// error: `error` and `text` its message. Otherwise `text` is what upstream
// appends (", " and the plugins' status) to the group's status before it
// writes the PodGroup's condition and the message of the members that fit:
// ", pod group preemption: No preemption victims found for incoming
// preemptor", or with preemptionPolicy Never ", deallocation and deletion
// of ResourceClaims completed, pod group preemption: not eligible due to
// preemptionPolicy=Never." (DefaultPreemption's Unschedulable keeps the
// reasons before it, its UnschedulableAndUnresolvable does not). dractl
// models no preemption (nor DynamicResources' deallocation of allocated,
// unreserved claims a member could not use): where some pod on a node has
// a lower priority than the group's, upstream would look for victims, and
// `text` is "".
struct GroupPostFilter {
  bool error = false;
  std::string text;
};
GroupPostFilter RunPodGroupPostFilter(const Snapshot& snapshot, const GroupEntity& entity, bool dra_state);

// PlacementFeasible's texts.
std::string MinCountCannotBeSatisfied(size_t min_count, size_t scheduled, size_t remaining);
std::string MinCountNotYetSatisfied(size_t min_count, size_t scheduled, size_t remaining);

}  // namespace dra::sched
