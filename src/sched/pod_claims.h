// Which ResourceClaims a pod uses (README.md §2): the
// resource-claim controller's part (creating claims from templates, §2.2) and
// the scheduler's part (resolving pod.spec.resourceClaims, §2.1).
//
// Generated claim names. The controller asks the API server for a name with
// generateName `<pod>-<pod claim>-` (both parts truncated proportionally when
// longer than 57 characters, ClaimGenerateName), and the API server appends 5
// random characters from "bcdfghjklmnpqrstvwxz2456789". To be deterministic
// we derive the 5 characters from a hash instead (StableNameSuffix): FNV-1a
// 64-bit of "<pod namespace>/<pod name>/<pod claim name>" (with "#<n>" appended
// on the n-th retry when the name is taken), then 5 times: next character =
// alphabet[h % 27], h /= 27.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "base/status.h"
#include "sched/snapshot.h"

namespace dra::sched {

inline constexpr char kPodClaimNameAnnotation[] = "resource.kubernetes.io/pod-claim-name";
// The longest generateName base the controller uses (63 - 1 - 5).
inline constexpr size_t kMaxGenerateNameBase = 57;
// The API server's limit for the base of generateName (63 - 5).
inline constexpr size_t kMaxGeneratedNameBase = 58;
// The API server's characters for generated names (utilrand.String).
inline constexpr std::string_view kNameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// "<pod>-<claim>-", or when longer than 57 characters the proportional
// truncation "<pod[:len(pod)*57/len(base)]>-<claim[:len(claim)*57/len(base)]>".
std::string ClaimGenerateName(std::string_view pod_name, std::string_view pod_claim_name);

// The 5 characters appended to the generateName (see the top of this file).
std::string StableNameSuffix(std::string_view pod_namespace, std::string_view pod_name, std::string_view pod_claim_name,
                             int attempt = 0);

// True if `claim` has a controller owner reference with the pod's UID
// (upstream metav1.IsControlledBy; only the UID is compared).
bool IsControlledBy(const api::ResourceClaim& claim, const api::Pod& pod);

// The claim the controller creates for `pod_claim` from `tmpl`, named `name`:
// owner reference to the pod (controller, blockOwnerDeletion), the template's
// labels and annotations plus kPodClaimNameAnnotation, its spec unchanged.
api::ResourceClaim NewClaimFromTemplate(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                                        const api::ResourceClaimTemplate& tmpl, std::string name);

// The resource-claim controller for `pod` (pod index `pod_idx` of `snapshot`):
// for each template entry without a recorded claim, reuses a claim of the
// namespace annotated with the pod claim name and controlled by the pod, or
// creates one (appended to snapshot->claims), and records it in
// pod.status.resourceClaimStatuses. Entries whose template does not exist are
// left alone (the scheduler then reports "ResourceClaim not created yet").
// Returns the indices of the claims it created.
// A template entry that is one of the pod's PodGroup's claims (README.md
// §2.3) gets the group's claim instead: created once for the group (owner
// the PodGroup, name "<group>-<claim>-" and a suffix, recorded in the
// group's status.resourceClaimStatuses), and recorded in the pod's status.
std::vector<size_t> EnsurePodClaims(Snapshot* snapshot, size_t pod_idx);

// The PodGroup claim a pod claim entry stands for (upstream's BindTo: the
// pod's group exists, DRAWorkloadResourceClaims and GenericWorkload are on,
// and one of the group's spec.resourceClaims has the entry's name,
// resourceClaimName and resourceClaimTemplateName): the group's index into
// snapshot.pod_groups, else nullopt (a claim of the pod's own).
std::optional<size_t> PodGroupClaimOf(const Snapshot& snapshot, const api::Pod& pod,
                                      const api::PodResourceClaim& entry);

// The reservedFor entry a pod's use of `claim` is recorded as: the pod, or
// for a claim controlled by the pod's PodGroup, the PodGroup
// {scheduling.k8s.io, podgroups} (one entry for the whole group).
api::ResourceClaimConsumerReference ConsumerOf(const Snapshot& snapshot, const api::Pod& pod,
                                               const api::ResourceClaim& claim);

// One entry of pod.spec.resourceClaims resolved to a claim.
struct PodClaimRef {
  std::string pod_claim{};  // pod.spec.resourceClaims[].name
  size_t claim = 0;         // index into Snapshot::claims
};

// The scheduler's resolution (§2.1), in pod order; entries whose status says
// no claim is needed are skipped. Errors (kFailedPrecondition, message as
// upstream): claim not created yet, not found, being deleted, not owned by
// the pod, no source set.
StatusOr<std::vector<PodClaimRef>> ResolvePodClaims(const Snapshot& snapshot, const api::Pod& pod);

// Why the controller made no claim for the pod's template entries, when the
// reason is a template missing from the pod's namespace: `no
// ResourceClaimTemplate "t" in namespace "ml"; namespace "default" has one`
// (entries joined by "; "); "" when every template exists.
std::string MissingTemplates(const Snapshot& snapshot, const api::Pod& pod);

// The pod group a pod belongs to (pod.spec.schedulingGroup, gate
// GenericWorkload; the API server drops the field while the gate is off):
// nullopt if the field is unset or null, else podGroupName ("" if the group
// is named some other way).
std::optional<std::string> PodGroupName(const api::Pod& pod);

}  // namespace dra::sched
