// The JSON field names of the core/v1 and meta/v1 structs that api/ models only
// in part, in Go struct order (k8s.io/api core/v1 types.go, Kubernetes 1.36 /
// 1.37-dev; apimachinery meta/v1 types.go).
//
// decode.cc uses them to tell a real Kubernetes field (kept silently in
// `extra`) from a misspelt one (kept too, with a warning); encode.cc writes the
// fields of a struct in this order, modelled or raw, and then any others.
#pragma once

#include <algorithm>
#include <span>
#include <string_view>

namespace dra::manifest::internal {

// clang-format off
inline constexpr std::string_view kObjectMetaFields[] = {
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields"};

inline constexpr std::string_view kAffinityFields[] = {
    "nodeAffinity", "podAffinity", "podAntiAffinity"};

inline constexpr std::string_view kContainerFields[] = {
    "name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources",
    "resizePolicy", "restartPolicy", "restartPolicyRules", "volumeMounts", "volumeDevices",
    "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "terminationMessagePath",
    "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty"};

inline constexpr std::string_view kPodSpecFields[] = {
    "volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy",
    "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy", "nodeSelector",
    "serviceAccountName", "serviceAccount", "automountServiceAccountToken", "nodeName",
    "hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "securityContext",
    "imagePullSecrets", "hostname", "subdomain", "affinity", "schedulerName", "tolerations",
    "hostAliases", "priorityClassName", "priority", "dnsConfig", "readinessGates",
    "runtimeClassName", "enableServiceLinks", "preemptionPolicy", "overhead",
    "topologySpreadConstraints", "setHostnameAsFQDN", "os", "hostUsers", "schedulingGates",
    "resourceClaims", "resources", "hostnameOverride", "workloadRef", "schedulingGroup"};

inline constexpr std::string_view kPodStatusFields[] = {
    "observedGeneration", "phase", "conditions", "message", "reason", "nominatedNodeName",
    "hostIP", "hostIPs", "podIP", "podIPs", "startTime", "initContainerStatuses",
    "containerStatuses", "qosClass", "ephemeralContainerStatuses", "resize",
    "resourceClaimStatuses", "extendedResourceClaimStatus", "allocatedResources", "resources",
    "nodeAllocatableResourceClaimStatuses"};

inline constexpr std::string_view kNodeSpecFields[] = {
    "podCIDR", "podCIDRs", "providerID", "unschedulable", "taints", "configSource", "externalID"};

inline constexpr std::string_view kNodeStatusFields[] = {
    "capacity", "allocatable", "phase", "conditions", "addresses", "daemonEndpoints", "nodeInfo",
    "images", "volumesInUse", "volumesAttached", "config", "runtimeHandlers", "features",
    "declaredFeatures"};
// clang-format on

inline bool IsListed(std::span<const std::string_view> fields, std::string_view name) {
  return !name.empty() && std::find(fields.begin(), fields.end(), name) != fields.end();
}

}  // namespace dra::manifest::internal
