// The node filters kube-scheduler runs before DynamicResources, in its
// default order (apis/config/v1 default_plugins.go): NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodeResourcesFit. Each returns the
// reasons upstream reports for a node that does not pass (empty = passes);
// the texts are upstream's, so that aggregated messages ("0/3 nodes are
// available: 2 Insufficient cpu, 1 node(s) were unschedulable.") read as
// kube-scheduler's do.
//
// Not modelled: NodePorts, volume plugins, PodTopologySpread,
// InterPodAffinity and taint/toleration comparison operators (Gt/Lt).
#pragma once

#include <string>
#include <vector>

#include "api/core.h"
#include "base/status.h"
#include "sched/extended.h"
#include "sched/resources.h"

namespace dra::sched {

inline constexpr char kReasonUnschedulable[] = "node(s) were unschedulable";
inline constexpr char kReasonNodeName[] = "node(s) didn't match the requested node name";
// TaintToleration's text in 1.37 (tainttoleration/taint_toleration.go
// Filter; older releases named the taint: "untolerated taint {KEY: VALUE}").
inline constexpr char kReasonUntoleratedTaint[] = "node(s) had untolerated taint(s)";
inline constexpr char kReasonNodeAffinity[] = "node(s) didn't match Pod's node affinity/selector";
inline constexpr char kReasonTooManyPods[] = "Too many pods";
// The taint the node lifecycle controller pairs with spec.unschedulable.
inline constexpr char kUnschedulableTaintKey[] = "node.kubernetes.io/unschedulable";

// Upstream Toleration.ToleratesTaint: effect (empty matches all), key (empty
// matches all), then Exists, or Equal (also the empty operator) on the value.
bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint);

// Each filter appends its reasons for turning the node down to `*reasons`
// and returns whether the node passes (no reasons). With `reasons` null it
// only decides, and writes no text: the scheduler's pass over the nodes runs
// them that way, and runs the one that turned a node down again, with a
// vector, for a pod that fits nowhere. The forms that return the reasons are
// for single calls.

// NodeUnschedulable: a node with spec.unschedulable passes only pods that
// tolerate node.kubernetes.io/unschedulable:NoSchedule.
bool FilterUnschedulable(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons);

// NodeName: spec.nodeName, when set, must be the node's name.
bool FilterNodeName(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons);

// TaintToleration: a NoSchedule/NoExecute taint no toleration tolerates:
// "node(s) had untolerated taint(s)". FirstUntoleratedTaint names the first
// (null: none), for explain's detail.
const api::Taint* FirstUntoleratedTaint(const api::Pod& pod, const api::Node& node);
bool FilterTaints(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons);

// NodeAffinity: spec.nodeSelector (every label equal) and required node
// affinity (api::MatchesNodeSelector). kInvalidArgument if the affinity
// cannot be parsed (upstream rejects such pods at validation).
StatusOr<bool> FilterNodeAffinity(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons);
// Whether the pod has a nodeSelector or required node affinity: without,
// FilterNodeAffinity passes every node.
bool HasNodeAffinity(const api::Pod& pod);

// NodeResourcesFit: "Too many pods", then "Insufficient cpu", "Insufficient
// memory", then "Insufficient NAME" per other resource in name order.
// `requested` is the sum of PodRequests of the pods already on the node
// (with `pods` = their count), `pod` is PodRequests of this pod.
// An extended resource that `dra_classes` maps to a DeviceClass and the node
// does not list (or lists as 0) is left to DynamicResources (extended.h).
bool FilterResources(const Resources& pod, const Resources& requested, const Resources& allocatable,
                     const ExtendedResourceClasses* dra_classes, std::vector<std::string>* reasons);

inline std::vector<std::string> FilterUnschedulable(const api::Pod& pod, const api::Node& node) {
  std::vector<std::string> reasons;
  FilterUnschedulable(pod, node, &reasons);
  return reasons;
}
inline std::vector<std::string> FilterNodeName(const api::Pod& pod, const api::Node& node) {
  std::vector<std::string> reasons;
  FilterNodeName(pod, node, &reasons);
  return reasons;
}
inline std::vector<std::string> FilterTaints(const api::Pod& pod, const api::Node& node) {
  std::vector<std::string> reasons;
  FilterTaints(pod, node, &reasons);
  return reasons;
}
inline StatusOr<std::vector<std::string>> FilterNodeAffinity(const api::Pod& pod, const api::Node& node) {
  std::vector<std::string> reasons;
  if (StatusOr<bool> passes = FilterNodeAffinity(pod, node, &reasons); !passes.ok()) return passes.status();
  return reasons;
}
inline std::vector<std::string> FilterResources(const Resources& pod, const Resources& requested,
                                                const Resources& allocatable,
                                                const ExtendedResourceClasses* dra_classes = nullptr) {
  std::vector<std::string> reasons;
  FilterResources(pod, requested, allocatable, dra_classes, &reasons);
  return reasons;
}

}  // namespace dra::sched
