// Workload expansion: the pods that the Deployment, ReplicaSet, StatefulSet,
// DaemonSet and Job controllers would create for the workloads of the input
// (api/workload.h), so that `dractl schedule` can place the manifests a user
// is about to apply. The pods keep the template's claims
// (resourceClaimTemplateName entries), so the resource-claim controller step
// (pod_claims.h) creates their claims as for any other pod.
//
// Per kind (upstream controller in parentheses):
//
//   kind         pods                          name
//   Deployment   replicas (default 1), via     ReplicaSet `<deploy>-<hash>`, pods
//                one ReplicaSet                `<rs>-<5 chars>` (deployment/sync.go)
//   ReplicaSet   replicas (default 1)          `<rs>-<5 chars>` (replica_set.go)
//   StatefulSet  replicas (default 1)          `<sts>-0` .. `<sts>-N-1` (stateful_set_utils.go)
//   Job          min(parallelism, completions) `<job>-<5 chars>`, Indexed: `<job>-<i>-<5 chars>`
//                (parallelism default 1, unset completions = parallelism; suspend: none)
//   DaemonSet    one per node that passes      `<ds>-<5 chars>`; nodeAffinity matchFields
//                nodeName, nodeSelector/affinity metadata.name In [node] as the controller
//                and NoSchedule/NoExecute taints sets (daemon/util)
//                with the DaemonSet's default tolerations
//   CronJob      none: it starts Jobs on its schedule, not now (a note says
//                so; `validate` still checks its jobTemplate's pod template)
//
// Determinism. Upstream the 5 characters are random and the pod-template-hash
// is FNV-32a of the whole template. Here the 5 characters come from FNV-1a 64
// of "<namespace>/<generateName>/<ordinal>" ("#<n>" appended on the n-th retry
// while the name is taken), mapped as for claim names (pod_claims.h). The
// pod-template-hash is FNV-1a 32 of "<kind>/<namespace>/<name>", written as
// upstream writes it (rand.SafeEncodeString of the decimal digits). Owners
// without a metadata.uid get StableUid("<Kind>/<namespace>/<name>").
// Generated pods have the workload's creationTimestamp (unset if it has none),
// so they queue together, in name order.
//
// Labels and annotations are the template's plus the controller's own:
// pod-template-hash (Deployment); controller-revision-hash,
// statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index
// (StatefulSet); controller-revision-hash and pod-template-generation
// (DaemonSet); batch.kubernetes.io/controller-uid, batch.kubernetes.io/job-name,
// controller-uid, job-name and for Indexed Jobs
// batch.kubernetes.io/job-completion-index (Job). Each pod has one controller
// owner reference (blockOwnerDeletion) to its ReplicaSet, StatefulSet,
// DaemonSet or Job.
//
// Pods already in the input (a dump of a running cluster). A workload is not
// expanded if an input pod says its controller made it: an owner reference
// of the workload's kind and name (or its uid); for a Deployment, an owner
// reference to a ReplicaSet `<deploy>-<pod's pod-template-hash label>`, or an
// input ReplicaSet whose owner reference names the Deployment (that
// ReplicaSet is expanded instead, if it has no pods). Partially running
// workloads are not topped up: upstream would create the missing pods, but a
// dump cannot tell missing pods from ones being deleted.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "api/core.h"
#include "api/workload.h"

namespace dra::sched {

// The most pods one ExpandWorkloads call creates, all workloads together. A
// workload that would go over it is not expanded and is listed in
// ExpandedWorkloads::over_limit (an input error for the caller): `replicas:
// 2147483647` is valid API input, but gigabytes of pods and hours of
// scheduling are not an answer anyone waits for.
inline constexpr int64_t kMaxWorkloadPods = 1'000'000;

struct ExpandedWorkloads {
  std::vector<api::Pod> pods{};
  std::vector<size_t> workload{};  // per pod: index into the workloads given
  // Workloads (indices into the workloads given) not expanded because their
  // pods would exceed kMaxWorkloadPods, each with the pods it asks for.
  std::vector<std::pair<size_t, int64_t>> over_limit{};
  // One line per workload that was not expanded, or that made no pods, e.g.
  // "Deployment ml/vllm: not expanded: input pod ml/vllm-6d4f-x2b9q is owned
  // by ReplicaSet vllm-6d4f".
  std::vector<std::string> notes{};
};

// The pods the controllers would create for `workloads` (see the top of this
// file), in workload order. `pods` are the input's pods (for the dedup rule and
// unique names), `nodes` the input's Nodes (for DaemonSets).
// REQUIRES: the pods' and nodes' node selectors are valid (DaemonSet
// eligibility treats an unparsable affinity as not matching).
ExpandedWorkloads ExpandWorkloads(std::span<const api::Workload> workloads, std::span<const api::Pod> pods,
                                  std::span<const api::Node> nodes);

// "Deployment ns/name" (or "Deployment name" without a namespace).
std::string WorkloadDisplayName(const api::Workload& workload);

}  // namespace dra::sched
