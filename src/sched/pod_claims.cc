// Upstream: pkg/controller/resourceclaim/controller.go (handleClaim,
// findPodResourceClaim) and dynamic-resource-allocation/resourceclaim
// (Name, IsForPod); the scheduler's foreachPodResourceClaim.
#include "sched/pod_claims.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "base/fnv.h"
#include "manifest/json_parser.h"

namespace dra::sched {

std::string ClaimGenerateName(std::string_view pod_name, std::string_view pod_claim_name) {
  std::string base = std::string(pod_name) + "-" + std::string(pod_claim_name) + "-";
  if (base.size() <= kMaxGenerateNameBase) return base;
  // As upstream: both parts proportionally, no trailing '-'.
  const size_t len = base.size();
  return std::string(pod_name.substr(0, pod_name.size() * kMaxGenerateNameBase / len)) + "-" +
         std::string(pod_claim_name.substr(0, pod_claim_name.size() * kMaxGenerateNameBase / len));
}

std::string StableNameSuffix(std::string_view pod_namespace, std::string_view pod_name, std::string_view pod_claim_name,
                             int attempt) {
  std::string key = fmt::format("{}/{}/{}", pod_namespace, pod_name, pod_claim_name);
  if (attempt > 0) key += fmt::format("#{}", attempt);
  uint64_t h = Fnv1a64(key);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kNameSuffixAlphabet[h % kNameSuffixAlphabet.size()];
    h /= kNameSuffixAlphabet.size();
  }
  return out;
}

bool IsControlledBy(const api::ResourceClaim& claim, const api::Pod& pod) {
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false)) return ref.uid == pod.metadata.uid;
  }
  return false;
}

api::ResourceClaim NewClaimFromTemplate(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                                        const api::ResourceClaimTemplate& tmpl, std::string name) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.generate_name = ClaimGenerateName(pod.metadata.name, pod_claim.name);
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.uid = StableUid("resourceclaim/" + claim.metadata.namespace_ + "/" + claim.metadata.name);
  claim.metadata.labels = tmpl.spec.metadata.labels;
  claim.metadata.annotations = tmpl.spec.metadata.annotations;
  claim.metadata.annotations.insert_or_assign(kPodClaimNameAnnotation, pod_claim.name);
  claim.metadata.owner_references.push_back(api::OwnerReference{.api_version = "v1",
                                                                .kind = "Pod",
                                                                .name = pod.metadata.name,
                                                                .uid = pod.metadata.uid,
                                                                .controller = true,
                                                                .block_owner_deletion = true});
  claim.spec = tmpl.spec.spec;
  return claim;
}

namespace {

// The PodGroup that controls `claim` and that the pod belongs to (upstream's
// isForPodGroupByPod: kind, name and API group of the controller).
const api::PodGroup* ControllingPodGroup(const Snapshot& snapshot, const api::Pod& pod,
                                         const api::ResourceClaim& claim) {
  std::optional<std::string> group = PodGroupName(pod);
  if (!group) return nullptr;
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (!ref.controller.value_or(false)) continue;
    if (ref.kind != "PodGroup" || ref.name != *group || ref.api_version.rfind("scheduling.k8s.io/", 0) != 0) {
      return nullptr;
    }
    std::optional<size_t> idx = snapshot.FindPodGroup(pod.metadata.namespace_, *group);
    return idx ? &snapshot.pod_groups[*idx] : nullptr;
  }
  return nullptr;
}

const api::PodResourceClaimStatus* FindStatus(const api::Pod& pod, std::string_view pod_claim) {
  for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
    if (s.name == pod_claim) return &s;
  }
  return nullptr;
}

}  // namespace

std::optional<size_t> PodGroupClaimOf(const Snapshot& snapshot, const api::Pod& pod,
                                      const api::PodResourceClaim& entry) {
  if (!snapshot.gates.enabled(api::Gate::kDRAWorkloadResourceClaims) ||
      !snapshot.gates.enabled(api::Gate::kGenericWorkload)) {
    return std::nullopt;
  }
  std::optional<std::string> group = PodGroupName(pod);
  if (!group) return std::nullopt;
  std::optional<size_t> idx = snapshot.FindPodGroup(pod.metadata.namespace_, *group);
  if (!idx) return std::nullopt;
  for (const api::PodGroupResourceClaim& c : snapshot.pod_groups[*idx].spec.resource_claims) {
    if (c.name == entry.name && c.resource_claim_name == entry.resource_claim_name &&
        c.resource_claim_template_name == entry.resource_claim_template_name) {
      return idx;
    }
  }
  return std::nullopt;
}

api::ResourceClaimConsumerReference ConsumerOf(const Snapshot& snapshot, const api::Pod& pod,
                                               const api::ResourceClaim& claim) {
  if (snapshot.gates.enabled(api::Gate::kDRAWorkloadResourceClaims)) {
    if (const api::PodGroup* group = ControllingPodGroup(snapshot, pod, claim)) {
      return api::ResourceClaimConsumerReference{.api_group = "scheduling.k8s.io",
                                                 .resource = "podgroups",
                                                 .name = group->metadata.name,
                                                 .uid = group->metadata.uid};
    }
  }
  return api::ResourceClaimConsumerReference{.resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid};
}

namespace {

// The controller's handlePodGroupClaim for the group's claim `entry`: its
// claim's name (created from the template when there is none yet, then
// appended to *created), or nullopt while the template is missing.
std::optional<std::string> EnsurePodGroupClaim(Snapshot* snapshot, size_t group_idx, const api::PodResourceClaim& entry,
                                               std::vector<size_t>* created) {
  api::PodGroup& group = snapshot->pod_groups[group_idx];
  const std::string& ns = group.metadata.namespace_;
  // NameFromPodGroup: the first status entry of that name. Its claim is
  // used if it exists and the group controls it (IsForPodGroup: namespace
  // and the controller's UID); else (deleted by accident, or someone
  // else's) a new one is made, as upstream's controller does.
  for (const api::PodGroupResourceClaimStatus& s : group.status.resource_claim_statuses) {
    if (s.name != entry.name) continue;
    if (!s.resource_claim_name) break;
    if (std::optional<size_t> claim_idx = snapshot->FindClaim(ns, *s.resource_claim_name)) {
      for (const api::OwnerReference& ref : snapshot->claims[*claim_idx].metadata.owner_references) {
        if (ref.controller.value_or(false) && ref.uid == group.metadata.uid) return s.resource_claim_name;
      }
    }
    break;
  }
  std::optional<std::string> name;
  // One made earlier: controlled by the group, annotated with the claim name.
  for (size_t claim_idx : snapshot->ClaimsControlledBy(group.metadata.uid)) {
    const api::ResourceClaim& c = snapshot->claims[claim_idx];
    const std::string* annotation = c.metadata.annotations.find(kPodClaimNameAnnotation);
    if (c.metadata.namespace_ == ns && annotation != nullptr && *annotation == entry.name) name = c.metadata.name;
  }
  if (!name) {
    const api::ResourceClaimTemplate* tmpl = snapshot->FindTemplate(ns, *entry.resource_claim_template_name);
    if (tmpl == nullptr) return std::nullopt;
    const std::string base = ClaimGenerateName(group.metadata.name, entry.name);
    std::string candidate;
    for (int attempt = 0;; ++attempt) {
      candidate = base + StableNameSuffix(ns, group.metadata.name, entry.name, attempt);
      if (!snapshot->FindClaim(ns, candidate)) break;
    }
    api::ResourceClaim claim;
    claim.metadata.name = candidate;
    claim.metadata.generate_name = base;
    claim.metadata.namespace_ = ns;
    claim.metadata.uid = StableUid("resourceclaim/" + ns + "/" + candidate);
    claim.metadata.labels = tmpl->spec.metadata.labels;
    claim.metadata.annotations = tmpl->spec.metadata.annotations;
    claim.metadata.annotations.insert_or_assign(kPodClaimNameAnnotation, entry.name);
    // The controller sets no blockOwnerDeletion here (handlePodGroupClaim).
    claim.metadata.owner_references.push_back(api::OwnerReference{.api_version = "scheduling.k8s.io/v1beta1",
                                                                  .kind = "PodGroup",
                                                                  .name = group.metadata.name,
                                                                  .uid = group.metadata.uid,
                                                                  .controller = true,
                                                                  .block_owner_deletion = std::nullopt});
    claim.spec = tmpl->spec.spec;
    snapshot->claims.push_back(std::move(claim));
    created->push_back(snapshot->claims.size() - 1);
    name = std::move(candidate);
  }
  api::PodGroup& g = snapshot->pod_groups[group_idx];
  auto it = std::find_if(g.status.resource_claim_statuses.begin(), g.status.resource_claim_statuses.end(),
                         [&](const api::PodGroupResourceClaimStatus& s) { return s.name == entry.name; });
  if (it == g.status.resource_claim_statuses.end()) {
    g.status.resource_claim_statuses.push_back({.name = entry.name, .resource_claim_name = *name});
  } else {
    it->resource_claim_name = *name;
  }
  return name;
}

}  // namespace

std::vector<size_t> EnsurePodClaims(Snapshot* snapshot, size_t pod_idx) {
  std::vector<size_t> created;
  for (size_t entry_idx = 0; entry_idx < snapshot->pods[pod_idx].spec.resource_claims.size(); ++entry_idx) {
    const api::Pod& pod = snapshot->pods[pod_idx];
    const api::PodResourceClaim pod_claim = pod.spec.resource_claims[entry_idx];
    if (!pod_claim.resource_claim_template_name || pod_claim.resource_claim_name) continue;
    if (FindStatus(pod, pod_claim.name) != nullptr) continue;  // created already (or not needed)
    if (std::optional<size_t> group = PodGroupClaimOf(*snapshot, pod, pod_claim)) {
      std::optional<std::string> name = EnsurePodGroupClaim(snapshot, *group, pod_claim, &created);
      if (name) {
        snapshot->pods[pod_idx].status.resource_claim_statuses.push_back(
            api::PodResourceClaimStatus{.name = pod_claim.name, .resource_claim_name = *name});
      }
      continue;
    }
    const std::string& ns = pod.metadata.namespace_;
    std::optional<std::string> name;
    // Crash recovery: a claim created earlier whose name never reached the pod.
    for (size_t claim_idx : snapshot->ClaimsControlledBy(pod.metadata.uid)) {
      const api::ResourceClaim& c = snapshot->claims[claim_idx];
      const std::string* annotation = c.metadata.annotations.find(kPodClaimNameAnnotation);
      if (c.metadata.namespace_ == ns && annotation != nullptr && *annotation == pod_claim.name) {
        name = c.metadata.name;
        break;
      }
    }
    if (!name) {
      const api::ResourceClaimTemplate* tmpl = snapshot->FindTemplate(ns, *pod_claim.resource_claim_template_name);
      if (tmpl == nullptr) continue;
      std::string base = ClaimGenerateName(pod.metadata.name, pod_claim.name);
      if (base.size() > kMaxGeneratedNameBase) base.resize(kMaxGeneratedNameBase);
      std::string candidate;
      for (int attempt = 0;; ++attempt) {
        candidate = base + StableNameSuffix(ns, pod.metadata.name, pod_claim.name, attempt);
        if (!snapshot->FindClaim(ns, candidate)) break;
      }
      snapshot->claims.push_back(NewClaimFromTemplate(pod, pod_claim, *tmpl, candidate));
      created.push_back(snapshot->claims.size() - 1);
      name = std::move(candidate);
    }
    snapshot->pods[pod_idx].status.resource_claim_statuses.push_back(
        api::PodResourceClaimStatus{.name = pod_claim.name, .resource_claim_name = *name});
  }
  return created;
}

StatusOr<std::vector<PodClaimRef>> ResolvePodClaims(const Snapshot& snapshot, const api::Pod& pod) {
  std::vector<PodClaimRef> out;
  const std::string& ns = pod.metadata.namespace_;
  const std::string pod_key = ns + "/" + pod.metadata.name;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    std::string claim_name;
    bool must_check_owner = false;
    if (entry.resource_claim_name) {
      claim_name = *entry.resource_claim_name;
    } else if (entry.resource_claim_template_name) {
      const api::PodResourceClaimStatus* status = FindStatus(pod, entry.name);
      if (status == nullptr) {
        return FailedPreconditionError(fmt::format("pod \"{}\": ResourceClaim not created yet", pod_key));
      }
      if (!status->resource_claim_name) continue;  // no claim needed
      claim_name = *status->resource_claim_name;
      must_check_owner = true;
    } else {
      return FailedPreconditionError(fmt::format(
          "pod \"{}\", spec.resourceClaim \"{}\": none of the supported fields are set", pod_key, entry.name));
    }
    std::optional<size_t> idx = snapshot.FindClaim(ns, claim_name);
    if (!idx) return FailedPreconditionError(fmt::format("resourceclaim.resource.k8s.io \"{}\" not found", claim_name));
    const api::ResourceClaim& claim = snapshot.claims[*idx];
    if (!claim.metadata.deletion_timestamp.empty()) {
      return FailedPreconditionError(fmt::format("resourceclaim \"{}\" is being deleted", claim_name));
    }
    if (must_check_owner && !IsControlledBy(claim, pod)) {
      // With DRAWorkloadResourceClaims, a claim of the pod's PodGroup is
      // the pod's too (IsForPod's acceptPodGroupOwner).
      std::optional<std::string> group = PodGroupName(pod);
      if (snapshot.gates.enabled(api::Gate::kDRAWorkloadResourceClaims) && group &&
          snapshot.gates.enabled(api::Gate::kGenericWorkload)) {
        if (ControllingPodGroup(snapshot, pod, claim) == nullptr) {
          return FailedPreconditionError(
              fmt::format("ResourceClaim {}/{} was not created for Pod {} (neither Pod nor PodGroup {} is the owner)",
                          ns, claim_name, pod_key, *group));
        }
      } else {
        return FailedPreconditionError(
            fmt::format("ResourceClaim {}/{} was not created for Pod {} (Pod is not owner)", ns, claim_name, pod_key));
      }
    }
    out.push_back(PodClaimRef{.pod_claim = entry.name, .claim = *idx});
  }
  return out;
}

std::optional<std::string> PodGroupName(const api::Pod& pod) {
  const api::RawJson* raw = pod.spec.extra.find("schedulingGroup");
  if (raw == nullptr || raw->empty() || *raw == "null") return std::nullopt;
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(*raw, "schedulingGroup");
  if (!docs.ok() || docs->size() != 1) return std::string();
  const manifest::Node* name = (*docs)[0].root.is_mapping() ? (*docs)[0].root.Find("podGroupName") : nullptr;
  if (name == nullptr || name->kind != manifest::NodeKind::kString) return std::string();
  return name->text;
}

std::string MissingTemplates(const Snapshot& snapshot, const api::Pod& pod) {
  std::vector<std::string> parts;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (!entry.resource_claim_template_name) continue;
    const std::string& name = *entry.resource_claim_template_name;
    if (snapshot.FindTemplate(pod.metadata.namespace_, name) != nullptr) continue;
    std::vector<std::string> elsewhere;
    for (const api::ResourceClaimTemplate& t : snapshot.templates) {
      if (t.metadata.name == name &&
          std::find(elsewhere.begin(), elsewhere.end(), t.metadata.namespace_) == elsewhere.end()) {
        elsewhere.push_back(t.metadata.namespace_);
      }
    }
    std::string part =
        fmt::format("no ResourceClaimTemplate \"{}\" in namespace \"{}\"", name, pod.metadata.namespace_);
    if (!elsewhere.empty()) {
      part += fmt::format("; namespace{} \"{}\" {} one", elsewhere.size() == 1 ? "" : "s",
                          fmt::join(elsewhere, "\", \""), elsewhere.size() == 1 ? "has" : "have");
    }
    parts.push_back(std::move(part));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace dra::sched
