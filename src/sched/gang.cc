#include "sched/gang.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "api/features.h"
#include "sched/pod_claims.h"
#include "sched/scheduler.h"

namespace dra::sched {
namespace {

bool Finished(const api::Pod& pod) {
  return pod.status.phase == api::PodPhase::kSucceeded || pod.status.phase == api::PodPhase::kFailed ||
         !pod.metadata.deletion_timestamp.empty();
}

// pod.spec.preemptionPolicy (kept verbatim in spec.extra), defaulted as
// upstream's podPreemptionPolicy does.
std::string PreemptionPolicy(const api::Pod& pod) {
  const api::RawJson* raw = pod.spec.extra.find("preemptionPolicy");
  if (raw == nullptr || raw->size() < 2 || raw->front() != '"') return "PreemptLowerPriority";
  return raw->substr(1, raw->size() - 2);
}

}  // namespace

std::vector<GroupEntity> GroupQueue(const Snapshot& snapshot, std::span<const size_t> queue) {
  std::vector<GroupEntity> out;
  const bool groups = snapshot.gates.enabled(api::Gate::kGenericWorkload);
  std::map<std::pair<std::string, std::string>, size_t> by_group;  // (namespace, name) -> index into out
  for (size_t pod_idx : queue) {
    const api::Pod& pod = snapshot.pods[pod_idx];
    std::optional<std::string> name = groups ? PodGroupName(pod) : std::nullopt;
    if (!name) {
      out.push_back(GroupEntity{.pods = {pod_idx}, .group_namespace = {}, .group_name = {}, .group = std::nullopt});
      continue;
    }
    auto [it, inserted] = by_group.try_emplace({pod.metadata.namespace_, *name}, out.size());
    if (inserted) {
      out.push_back(GroupEntity{.pods = {},
                                .group_namespace = pod.metadata.namespace_,
                                .group_name = *name,
                                .group = snapshot.FindPodGroup(pod.metadata.namespace_, *name)});
      // A pod naming no group ("schedulingGroup: {}") is refused by the API
      // server; keep it apart under a name no group can have.
      if (name->empty()) out.back().group_name = "(unnamed)";
    }
    out[it->second].pods.push_back(pod_idx);
  }
  return out;
}

int32_t MinCount(const api::PodGroup& group) {
  return group.spec.scheduling_policy.gang ? group.spec.scheduling_policy.gang->min_count : 1;
}

GroupCounts CountGroupPods(const Snapshot& snapshot, std::string_view ns, std::string_view name) {
  GroupCounts counts;
  for (const api::Pod& pod : snapshot.pods) {
    if (pod.metadata.namespace_ != ns || Finished(pod)) continue;
    std::optional<std::string> group = PodGroupName(pod);
    if (!group || *group != name) continue;
    ++counts.all;
    if (!pod.spec.node_name.empty()) ++counts.scheduled;
  }
  return counts;
}

std::optional<std::string> GroupPreEnqueue(const Snapshot& snapshot, const GroupEntity& entity) {
  if (!entity.group) {
    return fmt::format("waiting for pods's pod group \"{}\" to appear in scheduling queue", entity.group_name);
  }
  const api::PodGroup& group = snapshot.pod_groups[*entity.group];
  if (!group.spec.scheduling_policy.gang) return std::nullopt;  // basic: nothing to wait for
  GroupCounts counts = CountGroupPods(snapshot, entity.group_namespace, entity.group_name);
  if (counts.all < static_cast<size_t>(MinCount(group))) {
    return "waiting for minCount pods from a gang to appear in scheduling queue";
  }
  return std::nullopt;
}

std::optional<std::string> ValidateGroupPods(const Snapshot& snapshot, const GroupEntity& entity) {
  const api::PodGroup& group = snapshot.pod_groups[*entity.group];
  const int32_t group_priority = group.spec.priority.value_or(0);
  std::vector<const api::Pod*> pods;
  for (size_t idx : entity.pods) pods.push_back(&snapshot.pods[idx]);
  // Then the group's scheduled pods (validateScheduledPods).
  for (const api::Pod& pod : snapshot.pods) {
    if (pod.spec.node_name.empty() || Finished(pod) || pod.metadata.namespace_ != entity.group_namespace) continue;
    std::optional<std::string> name = PodGroupName(pod);
    if (name && *name == entity.group_name) pods.push_back(&pod);
  }
  const std::string& scheduler_name = pods.front()->spec.scheduler_name;
  std::string preemption_policy;
  for (const api::Pod* pod : pods) {
    if (pod->spec.scheduler_name != scheduler_name) {
      return fmt::format(
          "all pods in a single pod group should have the same .spec.schedulerName set, got: \"{}\" and \"{}\"",
          pod->spec.scheduler_name, scheduler_name);
    }
    if (const int32_t priority = pod->spec.priority.value_or(0); priority != group_priority) {
      return fmt::format(
          "all pods in a single pod group should have the same priority as the pod group's priority, got {} and {}",
          priority, group_priority);
    }
    // PodGroupPreemptionPolicy off: the first pod's policy is the group's.
    const std::string policy = PreemptionPolicy(*pod);
    if (preemption_policy.empty()) {
      preemption_policy = policy;
    } else if (policy != preemption_policy) {
      return fmt::format("all pods in a single pod group should have the same preemption policy, got {} and {}", policy,
                         preemption_policy);
    }
  }
  return std::nullopt;
}

bool SetInitiallyScheduled(const GroupOutcome& outcome, const std::string& now, api::PodGroup* group) {
  const bool placed = outcome.kind == PodOutcome::Kind::kPlaced;
  api::Condition c{.type = api::kPodGroupInitiallyScheduled,
                   .status = api::EnumString<api::ConditionStatus>(placed ? "True" : "False"),
                   .observed_generation = group->metadata.generation,
                   .last_transition_time = now,
                   .reason = placed                                        ? api::kPodGroupReasonScheduled
                             : outcome.kind == PodOutcome::Kind::kError ? api::kPodGroupReasonSchedulerError
                                                                         : api::kPodGroupReasonUnschedulable,
                   .message = outcome.message};
  for (api::Condition& old : group->status.conditions) {
    if (old.type != api::kPodGroupInitiallyScheduled) continue;
    if (old.status.text() == "True") return false;
    if (old.status == c.status && old.reason == c.reason && old.message == c.message &&
        old.observed_generation == c.observed_generation) {
      return false;  // unchanged: its transition time stays
    }
    old = std::move(c);
    return true;
  }
  group->status.conditions.push_back(std::move(c));
  return true;
}

std::string MinCountCannotBeSatisfied(size_t min_count, size_t scheduled, size_t remaining) {
  return fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min_count, scheduled, remaining);
}

std::string MinCountNotYetSatisfied(size_t min_count, size_t scheduled, size_t remaining) {
  return fmt::format("minCount ({}) is not yet satisfied: {} scheduled, {} remaining", min_count, scheduled, remaining);
}

}  // namespace dra::sched
