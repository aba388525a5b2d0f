// `dractl serve --manage-claims` for PodGroup claims (src/kube/README.md
// §2.3): what the resource-claim controller of kube-controller-manager would
// write for a PodGroup whose spec.resourceClaims name a
// resourceClaimTemplateName, and for the group's member pods. Upstream:
// `syncPodGroup`, `handlePodGroupClaim` and `findPodGroupResourceClaim`, and
// for the members `syncPod` and `handleClaim`, in
// k8s.io/kubernetes/pkg/controller/resourceclaim/controller.go;
// `NameFromPodGroup`, `IsForPodGroup` and `BindTo` in
// k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go.
//
// These functions only decide (on the cache, owned by the planning thread);
// serve.cc writes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "api/scheduling.h"
#include "kube/cache.h"
#include "manifest/node.h"

namespace dra::kube {

// The claims of the cache by the UID of their controller (upstream's
// claimPodGroupOwnerIndex; the first controller reference counts).
using ClaimsByController = std::map<std::string, std::vector<const api::ResourceClaim*>>;
ClaimsByController IndexClaimsByController(const ClusterCache& cache);

// What the controller does for one PodGroup.
struct PodGroupClaimsPlan {
  // Claims to create (POST), in spec order. Named as the snapshot names them
  // (src/sched/pod_claims.h): generateName `<group>-<claim>-` (both parts cut
  // proportionally past 57 characters) plus 5 characters from a hash.
  std::vector<api::ResourceClaim> create;
  // Entries of status.resourceClaimStatuses to write, in spec order: the
  // claims created and those found (created earlier, never recorded). Empty:
  // no status write.
  std::vector<api::PodGroupResourceClaimStatus> record;
  // Set when an entry cannot be handled (its template is missing): then,
  // as upstream's syncPodGroup returns before its status write, nothing is
  // written for the group.
  std::string error;
};

// For each spec.resourceClaims entry with a resourceClaimTemplateName whose
// claim is not recorded in the group's status, or recorded under a name that
// does not exist any more or is not controlled by the group: the claim
// controlled by the group and annotated with the entry's name
// (`resource.kubernetes.io/pod-claim-name`) if there is one, else a new one
// from the template (owner the PodGroup, scheduling.k8s.io/v1beta1,
// controller: true, no blockOwnerDeletion; the template's labels and
// annotations plus the pod-claim-name annotation; its spec). A group being
// deleted gets nothing. `controlled`: IndexClaimsByController of `cache`.
PodGroupClaimsPlan PlanPodGroupClaims(const api::PodGroup& group, const ClusterCache& cache,
                                      const ClaimsByController& controlled);

// Whether the pod's claim entry is one of its PodGroup's claims (upstream's
// BindTo): the pod belongs to `group` (spec.schedulingGroup.podGroupName, same
// namespace) and one of the group's spec.resourceClaims has the entry's name,
// resourceClaimName and resourceClaimTemplateName.
bool IsPodGroupClaimEntry(const api::Pod& pod, const api::PodGroup& group, const api::PodResourceClaim& entry);

// A member pod's status.resourceClaimStatuses after upstream's syncPod: for
// each template entry of the group's whose claim is not recorded (or is
// recorded under a name that does not exist or belongs neither to the pod
// nor to its group), the group's claim for it (controlled by the group,
// annotated with the entry's name) when it exists. The whole list, merged
// with what the pod had, sorted by name, as upstream applies it; nullopt when
// nothing is new (or the pod is being deleted).
std::optional<std::vector<api::PodResourceClaimStatus>> PlanMemberClaimStatuses(const api::Pod& pod,
                                                                                const api::PodGroup& group,
                                                                                const ClusterCache& cache,
                                                                                const ClaimsByController& controlled);

// Whether a template entry of the pod that is one of its group's claims is
// not recorded in the pod's status yet (the pod then waits, as
// kube-scheduler's PreEnqueue makes it wait for any template claim).
bool WaitingForPodGroupClaims(const api::Pod& pod, const api::PodGroup& group);

// The strategic merge patch of podgroups/status recording `entries` in
// status.resourceClaimStatuses (merged by name: other entries stay), with the
// group's metadata.uid as a precondition. Sent as JSON by RequestJson
// (request_bodies.h).
manifest::Node PodGroupClaimStatusPatch(std::string_view group_uid,
                                        const std::vector<api::PodGroupResourceClaimStatus>& entries);

}  // namespace dra::kube
