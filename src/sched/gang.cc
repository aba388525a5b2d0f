#include "sched/gang.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "alloc/constraints.h"
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

namespace {

// A device attribute's value as a domain name: scalars only (a list is no
// domain).
std::optional<std::string> DomainOf(const api::DeviceAttribute& a) {
  if (const int64_t* v = a.int_value()) return std::to_string(*v);
  if (const bool* v = a.bool_value()) return *v ? "true" : "false";
  if (const api::InternedString* v = a.string_value()) return std::string(v->view());
  if (const api::InternedString* v = a.version_value()) return std::string(v->view());
  return std::nullopt;
}

// The group's members bound to a node (PodGroupState.ScheduledPods).
std::vector<size_t> ScheduledMembers(const Snapshot& snapshot, const GroupEntity& entity) {
  std::vector<size_t> out;
  for (size_t i = 0; i < snapshot.pods.size(); ++i) {
    const api::Pod& pod = snapshot.pods[i];
    if (pod.metadata.namespace_ != entity.group_namespace || Finished(pod) || pod.spec.node_name.empty()) continue;
    std::optional<std::string> group = PodGroupName(pod);
    if (group && *group == entity.group_name) out.push_back(i);
  }
  return out;
}

// The domains already taken by scheduled members (getScheduledPodsTopologyDomain):
// at most one, or upstream's error text.
struct Pinned {
  std::optional<std::string> domain;
  std::optional<std::string> error;
};
Pinned PinnedDomain(const Snapshot& snapshot, const GroupEntity& entity, const std::string& key, bool devices) {
  Pinned pinned;
  auto take = [&](const std::string& domain) {
    if (pinned.domain && *pinned.domain != domain) {
      pinned.error = fmt::format("more than 1 domain found for pod group: {}, {}", *pinned.domain, domain);
    }
    if (!pinned.domain) pinned.domain = domain;
  };
  std::map<std::string_view, const api::Node*> nodes;  // by name, made on first use
  for (size_t pod_idx : ScheduledMembers(snapshot, entity)) {
    const api::Pod& pod = snapshot.pods[pod_idx];
    if (!devices) {
      if (nodes.empty()) {
        for (const api::Node& n : snapshot.nodes) nodes.emplace(n.metadata.name, &n);
      }
      auto found = nodes.find(pod.spec.node_name);
      const api::Node* node = found == nodes.end() ? nullptr : found->second;
      if (node == nullptr) {
        pinned.error = fmt::format("getting node for pod {}/{}: nodeinfo not found for node name \"{}\"",
                                   pod.metadata.namespace_, pod.metadata.name, pod.spec.node_name);
      } else if (const std::string* domain = node->metadata.labels.find(key); domain == nullptr) {
        pinned.error =
            fmt::format("no topology domain found for pod {}/{}", pod.metadata.namespace_, pod.metadata.name);
      } else {
        take(*domain);
      }
    } else {
      // The values of the devices the member's claims hold.
      StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(snapshot, pod);
      if (!refs.ok()) continue;
      for (const PodClaimRef& ref : *refs) {
        const api::ResourceClaim& claim = snapshot.claims[ref.claim];
        if (!claim.status.allocation) continue;
        for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
          for (const api::ResourceSlice& slice : snapshot.slices) {
            if (slice.spec.driver != r.driver || slice.spec.pool.name != r.pool) continue;
            for (const api::Device& d : slice.spec.devices) {
              if (d.name != r.device) continue;
              const api::DeviceAttribute* a = alloc::LookupAttribute(d, slice.spec.driver, key);
              if (std::optional<std::string> domain = a != nullptr ? DomainOf(*a) : std::nullopt) take(*domain);
            }
          }
        }
      }
    }
    if (pinned.error) break;
  }
  if (pinned.error) pinned.error = "cannot determine domain for already scheduled pods: " + *pinned.error;
  return pinned;
}

}  // namespace

GroupPlacements GeneratePlacements(const Snapshot& snapshot, const GroupEntity& entity, bool devices) {
  GroupPlacements out;
  const api::PodGroup* group = entity.group ? &snapshot.pod_groups[*entity.group] : nullptr;
  const std::optional<api::PodGroupSchedulingConstraints>& constraints =
      group != nullptr ? group->spec.scheduling_constraints : std::nullopt;
  if (!constraints || constraints->topology.empty()) {
    GroupPlacement all;
    for (size_t i = 0; i < snapshot.nodes.size(); ++i) all.nodes.push_back(i);
    out.placements.push_back(std::move(all));
    return out;
  }
  const std::string& key = constraints->topology.front().key;
  bool on_nodes = false;
  for (const api::Node& n : snapshot.nodes) on_nodes = on_nodes || n.metadata.labels.find(key) != nullptr;
  const bool by_devices = devices && !on_nodes;
  const Pinned pinned = PinnedDomain(snapshot, entity, key, by_devices);
  if (pinned.error) {
    out.error = true;
    out.message = *pinned.error;
    return out;
  }
  std::map<std::string, GroupPlacement> by_name;
  if (!by_devices) {
    for (size_t i = 0; i < snapshot.nodes.size(); ++i) {
      const std::string* domain = snapshot.nodes[i].metadata.labels.find(key);
      if (domain == nullptr || (pinned.domain && *pinned.domain != *domain)) continue;
      GroupPlacement& p = by_name[*domain];
      p.name = *domain;
      p.nodes.push_back(i);
    }
  } else {
    // Every value, then each placement keeps out the devices of the others.
    std::vector<std::pair<DeviceKey, std::string>> valued;
    for (const api::ResourceSlice& slice : snapshot.slices) {
      for (const api::Device& d : slice.spec.devices) {
        const api::DeviceAttribute* a = alloc::LookupAttribute(d, slice.spec.driver, key);
        std::optional<std::string> domain = a != nullptr ? DomainOf(*a) : std::nullopt;
        if (!domain) continue;
        valued.emplace_back(DeviceKey{slice.spec.driver, slice.spec.pool.name, d.name}, *domain);
        if (!pinned.domain || *pinned.domain == *domain) by_name[*domain].name = *domain;
      }
    }
    for (auto& [name, p] : by_name) {
      for (size_t i = 0; i < snapshot.nodes.size(); ++i) p.nodes.push_back(i);
      for (const auto& [device, domain] : valued) {
        if (domain != name) p.excluded.push_back(device);
      }
    }
  }
  for (auto& [name, p] : by_name) out.placements.push_back(std::move(p));
  if (out.placements.empty()) out.message = "no feasible placements found";
  return out;
}

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
                   .reason = placed                                     ? api::kPodGroupReasonScheduled
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

GroupPostFilter RunPodGroupPostFilter(const Snapshot& snapshot, const GroupEntity& entity, bool dra_state) {
  if (!entity.group) return {};
  const api::PodGroup& group = snapshot.pod_groups[*entity.group];
  // DynamicResources first: its Unschedulable reasons are kept only when
  // DefaultPreemption's status is Unschedulable too.
  std::string dra_reasons;
  const bool topology = snapshot.gates.enabled(api::Gate::kTopologyAwareWorkloadScheduling) &&
                        group.spec.scheduling_constraints.has_value();
  if (!topology) {
    if (!dra_state)
      return {.error = true, .text = "error in \"DynamicResources\" PodGroupPostFilter plugins: not found"};
    dra_reasons = ", deallocation and deletion of ResourceClaims completed";
  }
  // resolvePreemptionPolicy: the group's field with PodGroupPreemptionPolicy,
  // else Never when any pending member says Never.
  bool never = false;
  if (snapshot.gates.enabled(api::Gate::kPodGroupPreemptionPolicy)) {
    never = group.spec.preemption_policy.value_or("") == "Never";
  } else {
    for (size_t idx : entity.pods) never = never || PreemptionPolicy(snapshot.pods[idx]) == "Never";
  }
  if (never)
    return {.error = false,
            .text = dra_reasons + ", pod group preemption: not eligible due to preemptionPolicy=Never."};
  // The candidates: every pod on a node (getCrossNodesVictims) whose
  // priority (its group's, for a member: GetPodPriority) is lower.
  const int32_t priority = group.spec.priority.value_or(0);
  for (const api::Pod& pod : snapshot.pods) {
    if (pod.spec.node_name.empty() || Finished(pod)) continue;
    int32_t p = pod.spec.priority.value_or(0);
    if (std::optional<std::string> name = PodGroupName(pod)) {
      if (std::optional<size_t> g = snapshot.FindPodGroup(pod.metadata.namespace_, *name)) {
        p = snapshot.pod_groups[*g].spec.priority.value_or(0);
      }
    }
    if (p >= priority) continue;
    for (const api::Node& n : snapshot.nodes) {
      if (n.metadata.name == pod.spec.node_name) return {};  // upstream would look for victims: not modelled
    }
  }
  return {.error = false, .text = ", pod group preemption: No preemption victims found for incoming preemptor"};
}

std::string MinCountCannotBeSatisfied(size_t min_count, size_t scheduled, size_t remaining) {
  return fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min_count, scheduled, remaining);
}

std::string MinCountNotYetSatisfied(size_t min_count, size_t scheduled, size_t remaining) {
  return fmt::format("minCount ({}) is not yet satisfied: {} scheduled, {} remaining", min_count, scheduled, remaining);
}

}  // namespace dra::sched
