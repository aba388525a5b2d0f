// The parts of core/v1 that DRA scheduling reads: node selectors, taints and
// tolerations, Node, and Pod (claims, containers, scheduling fields).
//
// Conventions: see api/meta.h. Structs that model only part of their upstream
// type (Affinity, Container, PodSpec, PodStatus, NodeSpec, NodeStatus, and
// ObjectMeta) keep every other field, verbatim, in `extra`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/enum_string.h"
#include "api/flat_map.h"
#include "api/meta.h"
#include "quantity/quantity.h"

namespace dra::api {

using quantity::Quantity;

// ---------------------------------------------------------------------------
// Node selectors

enum class NodeSelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
template <>
struct EnumTraits<NodeSelectorOperator> {
  static constexpr std::array<std::string_view, 6> kNames = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
};

struct NodeSelectorRequirement {
  std::string key{};
  EnumString<NodeSelectorOperator> operator_{};
  std::vector<std::string> values{};

  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

// Requirements are ANDed. matchFields supports only the key `metadata.name`.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions{};
  std::vector<NodeSelectorRequirement> match_fields{};

  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// Terms are ORed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms{};

  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference{};

  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> required_during_scheduling_ignored_during_execution{};
  std::vector<PreferredSchedulingTerm> preferred_during_scheduling_ignored_during_execution{};

  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

// podAffinity and podAntiAffinity are kept raw in `extra`.
struct Affinity {
  std::optional<NodeAffinity> node_affinity{};
  RawFields extra{};

  friend bool operator==(const Affinity&, const Affinity&) = default;
};

// ---------------------------------------------------------------------------
// Taints and tolerations (node level; devices have their own in resource.h)

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };
template <>
struct EnumTraits<TaintEffect> {
  static constexpr std::array<std::string_view, 3> kNames = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
};

struct Taint {
  std::string key{};
  std::string value{};
  EnumString<TaintEffect> effect{};
  std::string time_added{};  // RFC 3339; empty = unset

  friend bool operator==(const Taint&, const Taint&) = default;
};

enum class TolerationOperator { kExists, kEqual };
template <>
struct EnumTraits<TolerationOperator> {
  static constexpr std::array<std::string_view, 2> kNames = {"Exists", "Equal"};
};

// An empty operator means Equal; an empty effect matches all effects.
struct Toleration {
  std::string key{};
  EnumString<TolerationOperator> operator_{};
  std::string value{};
  EnumString<TaintEffect> effect{};
  std::optional<int64_t> toleration_seconds{};

  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// ---------------------------------------------------------------------------
// Node

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints{};
  RawFields extra{};  // podCIDR(s), providerID, configSource, externalID, ...

  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

struct NodeStatus {
  FlatMap<Quantity> capacity{};
  FlatMap<Quantity> allocatable{};
  RawFields extra{};  // conditions, addresses, nodeInfo, images, ...

  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

// core/v1 Node. The node name and labels are metadata.name / metadata.labels.
struct Node {
  ObjectMeta metadata{};
  NodeSpec spec{};
  NodeStatus status{};

  friend bool operator==(const Node&, const Node&) = default;
};

// ---------------------------------------------------------------------------
// Pod

// core/v1 ResourceClaim: one entry of containers[].resources.claims. Renamed
// because resource.k8s.io's ResourceClaim (resource.h) owns that name here.
struct ContainerClaim {
  std::string name{};     // a pod.spec.resourceClaims[].name
  std::string request{};  // empty = the whole claim

  friend bool operator==(const ContainerClaim&, const ContainerClaim&) = default;
};

struct ResourceRequirements {
  FlatMap<Quantity> limits{};
  FlatMap<Quantity> requests{};
  std::vector<ContainerClaim> claims{};

  friend bool operator==(const ResourceRequirements&, const ResourceRequirements&) = default;
};

enum class ContainerRestartPolicy { kAlways, kOnFailure, kNever };
template <>
struct EnumTraits<ContainerRestartPolicy> {
  static constexpr std::array<std::string_view, 3> kNames = {"Always", "OnFailure", "Never"};
};

// A container or init container. An init container with restart_policy Always
// is a sidecar.
struct Container {
  std::string name{};
  ResourceRequirements resources{};
  EnumString<ContainerRestartPolicy> restart_policy{};  // empty = unset (Go nil)
  RawFields extra{};                                    // image, command, args, env, ports, volumeMounts, probes, ...

  friend bool operator==(const Container&, const Container&) = default;
};

// pod.spec.resourceClaims[]: exactly one source should be set.
struct PodResourceClaim {
  std::string name{};
  std::optional<std::string> resource_claim_name{};
  std::optional<std::string> resource_claim_template_name{};

  friend bool operator==(const PodResourceClaim&, const PodResourceClaim&) = default;
};

struct PodSpec {
  std::vector<Container> init_containers{};
  std::vector<Container> containers{};
  FlatMap<std::string> node_selector{};
  std::string node_name{};
  std::optional<Affinity> affinity{};
  std::string scheduler_name{};
  std::vector<Toleration> tolerations{};
  std::string priority_class_name{};
  std::optional<int32_t> priority{};
  FlatMap<Quantity> overhead{};
  std::vector<PodResourceClaim> resource_claims{};
  RawFields extra{};  // volumes, restartPolicy, securityContext, hostNetwork, ...

  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };
template <>
struct EnumTraits<PodPhase> {
  static constexpr std::array<std::string_view, 5> kNames = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
};

struct PodResourceClaimStatus {
  std::string name{};
  std::optional<std::string> resource_claim_name{};  // unset: no claim was needed

  friend bool operator==(const PodResourceClaimStatus&, const PodResourceClaimStatus&) = default;
};

struct ContainerExtendedResourceRequest {
  std::string container_name{};
  std::string resource_name{};
  std::string request_name{};

  friend bool operator==(const ContainerExtendedResourceRequest&, const ContainerExtendedResourceRequest&) = default;
};

struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings{};
  std::string resource_claim_name{};

  friend bool operator==(const PodExtendedResourceClaimStatus&, const PodExtendedResourceClaimStatus&) = default;
};

struct PodStatus {
  EnumString<PodPhase> phase{};
  std::string nominated_node_name{};
  std::vector<PodResourceClaimStatus> resource_claim_statuses{};
  std::optional<PodExtendedResourceClaimStatus> extended_resource_claim_status{};
  RawFields extra{};  // conditions, hostIP, podIP(s), startTime, containerStatuses, ...

  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

// core/v1 Pod. Namespace, name, uid and creationTimestamp are in metadata.
struct Pod {
  ObjectMeta metadata{};
  PodSpec spec{};
  PodStatus status{};

  friend bool operator==(const Pod&, const Pod&) = default;
};

}  // namespace dra::api
