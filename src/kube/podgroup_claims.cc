#include "kube/podgroup_claims.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "sched/pod_claims.h"

namespace dra::kube {
namespace {

const api::ResourceClaim* FindClaim(const ClusterCache& cache, const std::string& ns, const std::string& name) {
  const api::Object* o = cache.Find(api::Kind::kResourceClaim, ns + "/" + name);
  return o != nullptr ? std::get_if<api::ResourceClaim>(o) : nullptr;
}

const api::OwnerReference* ControllerOf(const api::ResourceClaim& claim) {
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

// Upstream's findPodGroupResourceClaim: the first claim controlled by the
// group (by UID, in its namespace) annotated with the entry's name.
const api::ResourceClaim* FindGroupClaim(const api::PodGroup& group, const std::string& entry,
                                         const ClaimsByController& controlled) {
  auto it = controlled.find(group.metadata.uid);
  if (it == controlled.end()) return nullptr;
  for (const api::ResourceClaim* c : it->second) {
    if (c->metadata.namespace_ != group.metadata.namespace_) continue;
    const std::string* annotation = c->metadata.annotations.find(sched::kPodClaimNameAnnotation);
    if (annotation != nullptr && *annotation == entry) return c;
  }
  return nullptr;
}

// Upstream's IsForPodGroup (namespace, and metav1.IsControlledBy: the
// controller's UID).
bool IsForPodGroup(const api::PodGroup& group, const api::ResourceClaim& claim) {
  const api::OwnerReference* controller = ControllerOf(claim);
  return claim.metadata.namespace_ == group.metadata.namespace_ && controller != nullptr &&
         controller->uid == group.metadata.uid;
}

// Upstream's IsForPod with acceptPodGroupOwner: controlled by the pod (UID),
// or by a PodGroup of the pod's group's name (kind, name, API group).
bool IsForPodOrItsGroup(const api::Pod& pod, const api::ResourceClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  const api::OwnerReference* controller = ControllerOf(claim);
  if (controller == nullptr) return false;
  if (controller->uid == pod.metadata.uid) return true;
  std::optional<std::string> group = sched::PodGroupName(pod);
  return group && controller->name == *group && controller->kind == "PodGroup" &&
         controller->api_version.rfind("scheduling.k8s.io/", 0) == 0;
}

// The claim the controller makes for `entry` from `tmpl` (handlePodGroupClaim),
// named as src/sched/pod_claims.cc's EnsurePodGroupClaim names it.
api::ResourceClaim NewGroupClaim(const api::PodGroup& group, const api::PodGroupResourceClaim& entry,
                                 const api::ResourceClaimTemplate& tmpl, const ClusterCache& cache) {
  const std::string& ns = group.metadata.namespace_;
  const std::string base = sched::ClaimGenerateName(group.metadata.name, entry.name);
  std::string name;
  for (int attempt = 0;; ++attempt) {
    name = base + sched::StableNameSuffix(ns, group.metadata.name, entry.name, attempt);
    if (FindClaim(cache, ns, name) == nullptr) break;
  }
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.generate_name = base;
  claim.metadata.namespace_ = ns;
  claim.metadata.labels = tmpl.spec.metadata.labels;
  claim.metadata.annotations = tmpl.spec.metadata.annotations;
  claim.metadata.annotations.insert_or_assign(sched::kPodClaimNameAnnotation, entry.name);
  claim.metadata.owner_references.push_back(api::OwnerReference{.api_version = "scheduling.k8s.io/v1beta1",
                                                                .kind = "PodGroup",
                                                                .name = group.metadata.name,
                                                                .uid = group.metadata.uid,
                                                                .controller = true,
                                                                .block_owner_deletion = std::nullopt});
  claim.spec = tmpl.spec.spec;
  return claim;
}

}  // namespace

ClaimsByController IndexClaimsByController(const ClusterCache& cache) {
  ClaimsByController index;
  for (const api::Object* o : cache.Objects([](const api::Pod&) { return false; })) {
    const auto* claim = std::get_if<api::ResourceClaim>(o);
    if (claim == nullptr) continue;
    if (const api::OwnerReference* controller = ControllerOf(*claim)) index[controller->uid].push_back(claim);
  }
  return index;
}

PodGroupClaimsPlan PlanPodGroupClaims(const api::PodGroup& group, const ClusterCache& cache,
                                      const ClaimsByController& controlled) {
  PodGroupClaimsPlan plan;
  if (!group.metadata.deletion_timestamp.empty()) return plan;
  const std::string& ns = group.metadata.namespace_;
  for (const api::PodGroupResourceClaim& entry : group.spec.resource_claims) {
    // NameFromPodGroup: a resourceClaimName is used as it is.
    if (entry.resource_claim_name || !entry.resource_claim_template_name) continue;
    const api::PodGroupResourceClaimStatus* recorded = nullptr;
    for (const api::PodGroupResourceClaimStatus& s : group.status.resource_claim_statuses) {
      if (s.name == entry.name) recorded = &s;
    }
    if (recorded != nullptr) {
      if (!recorded->resource_claim_name) continue;  // no claim needed
      // Recorded: done if the claim exists and is the group's; else (deleted
      // by accident, or someone else's) a new one, as upstream.
      const api::ResourceClaim* claim = FindClaim(cache, ns, *recorded->resource_claim_name);
      if (claim != nullptr && IsForPodGroup(group, *claim)) continue;
    }
    std::string name;
    if (const api::ResourceClaim* orphan = FindGroupClaim(group, entry.name, controlled)) {
      name = orphan->metadata.name;  // created earlier, never recorded
    } else {
      const api::Object* t =
          cache.Find(api::Kind::kResourceClaimTemplate, ns + "/" + *entry.resource_claim_template_name);
      if (t == nullptr) {
        plan = {};
        plan.error = fmt::format("PodGroupResourceClaim {}: resource claim template \"{}\": not found", entry.name,
                                 *entry.resource_claim_template_name);
        return plan;
      }
      api::ResourceClaim claim = NewGroupClaim(group, entry, std::get<api::ResourceClaimTemplate>(*t), cache);
      name = claim.metadata.name;
      plan.create.push_back(std::move(claim));
    }
    plan.record.push_back({.name = entry.name, .resource_claim_name = std::move(name)});
  }
  return plan;
}

bool IsPodGroupClaimEntry(const api::Pod& pod, const api::PodGroup& group, const api::PodResourceClaim& entry) {
  std::optional<std::string> name = sched::PodGroupName(pod);
  if (!name || *name != group.metadata.name || pod.metadata.namespace_ != group.metadata.namespace_) return false;
  return std::any_of(group.spec.resource_claims.begin(), group.spec.resource_claims.end(),
                     [&](const api::PodGroupResourceClaim& c) {
                       return c.name == entry.name && c.resource_claim_name == entry.resource_claim_name &&
                              c.resource_claim_template_name == entry.resource_claim_template_name;
                     });
}

std::optional<std::vector<api::PodResourceClaimStatus>> PlanMemberClaimStatuses(const api::Pod& pod,
                                                                                const api::PodGroup& group,
                                                                                const ClusterCache& cache,
                                                                                const ClaimsByController& controlled) {
  if (!pod.metadata.deletion_timestamp.empty()) return std::nullopt;
  std::map<std::string, std::optional<std::string>> merged;
  for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses)
    merged[s.name] = s.resource_claim_name;
  bool changed = false;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (entry.resource_claim_name || !entry.resource_claim_template_name) continue;
    if (!IsPodGroupClaimEntry(pod, group, entry)) continue;  // the pod's own: the snapshot's part
    if (auto it = merged.find(entry.name); it != merged.end()) {
      if (!it->second) continue;  // no claim needed
      const api::ResourceClaim* claim = FindClaim(cache, pod.metadata.namespace_, *it->second);
      if (claim != nullptr && IsForPodOrItsGroup(pod, *claim)) continue;
    }
    const api::ResourceClaim* claim = FindGroupClaim(group, entry.name, controlled);
    if (claim == nullptr) continue;  // the group's claim is not there yet
    merged[entry.name] = claim->metadata.name;
    changed = true;
  }
  if (!changed) return std::nullopt;
  std::vector<api::PodResourceClaimStatus> out;
  out.reserve(merged.size());
  for (auto& [name, claim] : merged) out.push_back({.name = name, .resource_claim_name = std::move(claim)});
  return out;
}

bool WaitingForPodGroupClaims(const api::Pod& pod, const api::PodGroup& group) {
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (entry.resource_claim_name || !entry.resource_claim_template_name) continue;
    if (!IsPodGroupClaimEntry(pod, group, entry)) continue;
    const bool recorded =
        std::any_of(pod.status.resource_claim_statuses.begin(), pod.status.resource_claim_statuses.end(),
                    [&](const api::PodResourceClaimStatus& s) { return s.name == entry.name; });
    if (!recorded) return true;
  }
  return false;
}

manifest::Node PodGroupClaimStatusPatch(std::string_view group_uid,
                                        const std::vector<api::PodGroupResourceClaimStatus>& entries) {
  using manifest::Node;
  Node list = Node::Sequence();
  for (const api::PodGroupResourceClaimStatus& s : entries) {
    Node entry = Node::Mapping();
    entry.Add("name", Node::String(s.name));
    if (s.resource_claim_name) entry.Add("resourceClaimName", Node::String(*s.resource_claim_name));
    list.Push(std::move(entry));
  }
  Node status = Node::Mapping();
  status.Add("resourceClaimStatuses", std::move(list));
  Node meta = Node::Mapping();
  meta.Add("uid", Node::String(std::string(group_uid)));
  Node patch = Node::Mapping();
  patch.Add("metadata", std::move(meta));
  patch.Add("status", std::move(status));
  return patch;
}

}  // namespace dra::kube
