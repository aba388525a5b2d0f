#include "kube/request_bodies.h"

#include <utility>

#include "manifest/emit.h"

namespace dra::kube {
namespace {

using manifest::Node;

Node Str(std::string_view s) { return Node::String(std::string(s)); }

// {"uid": uid}: a precondition (the object must still be this one).
Node UidMeta(std::string_view uid) {
  Node meta = Node::Mapping();
  meta.Add("uid", Str(uid));
  return meta;
}

// {"apiVersion": api_version, "kind": kind}, to add the rest to.
Node Typed(std::string_view api_version, std::string_view kind) {
  Node n = Node::Mapping();
  n.Add("apiVersion", Str(api_version));
  n.Add("kind", Str(kind));
  return n;
}

}  // namespace

std::string RequestJson(const Node& body) {
  std::string json = manifest::EmitJson(body, 0);
  if (!json.empty() && json.back() == '\n') json.pop_back();  // the emitter ends a document with one
  return json;
}

Node PodClaimStatusPatch(const api::Pod& pod) {
  Node status = Node::Mapping();
  if (!pod.status.resource_claim_statuses.empty()) {
    Node entries = Node::Sequence();
    for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
      Node entry = Node::Mapping();
      entry.Add("name", Str(s.name));
      if (s.resource_claim_name) entry.Add("resourceClaimName", Str(*s.resource_claim_name));
      entries.Push(std::move(entry));
    }
    status.Add("resourceClaimStatuses", std::move(entries));
  }
  if (const auto& ext = pod.status.extended_resource_claim_status; ext.has_value()) {
    Node mappings = Node::Sequence();
    for (const api::ContainerExtendedResourceRequest& m : ext->request_mappings) {
      Node mapping = Node::Mapping();
      mapping.Add("containerName", Str(m.container_name));
      mapping.Add("resourceName", Str(m.resource_name));
      mapping.Add("requestName", Str(m.request_name));
      mappings.Push(std::move(mapping));
    }
    Node e = Node::Mapping();
    e.Add("requestMappings", std::move(mappings));
    e.Add("resourceClaimName", Str(ext->resource_claim_name));
    status.Add("extendedResourceClaimStatus", std::move(e));
  }
  Node patch = Node::Mapping();
  patch.Add("metadata", UidMeta(pod.metadata.uid));
  patch.Add("status", std::move(status));
  return patch;
}

Node UnreservePatch(std::string_view claim_uid, std::string_view pod_uid) {
  Node entry = Node::Mapping();
  entry.Add("$patch", Str("delete"));  // strategic merge: reservedFor merges by uid
  entry.Add("uid", Str(pod_uid));
  Node reserved_for = Node::Sequence();
  reserved_for.Push(std::move(entry));
  Node status = Node::Mapping();
  status.Add("reservedFor", std::move(reserved_for));
  Node patch = Node::Mapping();
  patch.Add("metadata", UidMeta(claim_uid));
  patch.Add("status", std::move(status));
  return patch;
}

Node BindingBody(const api::Pod& pod, std::string_view node) {
  Node meta = Node::Mapping();
  meta.Add("name", Str(pod.metadata.name));
  meta.Add("namespace", Str(pod.metadata.namespace_));
  meta.Add("uid", Str(pod.metadata.uid));
  Node target = Typed("v1", "Node");
  target.Add("name", Str(node));
  Node binding = Typed("v1", "Binding");
  binding.Add("metadata", std::move(meta));
  binding.Add("target", std::move(target));
  return binding;
}

Node PodScheduledPatch(std::string_view reason, std::string_view message, std::string_view last_transition_time) {
  Node condition = Node::Mapping();
  condition.Add("type", Str("PodScheduled"));
  condition.Add("status", Str("False"));
  condition.Add("reason", Str(reason));
  condition.Add("message", Str(message));
  if (!last_transition_time.empty()) condition.Add("lastTransitionTime", Str(last_transition_time));
  Node conditions = Node::Sequence();  // strategic merge: conditions merge by type
  conditions.Push(std::move(condition));
  Node status = Node::Mapping();
  status.Add("conditions", std::move(conditions));
  Node patch = Node::Mapping();
  patch.Add("status", std::move(status));
  return patch;
}

Node EventSeriesNode(int64_t count, std::string_view last_observed_time) {
  Node series = Node::Mapping();
  series.Add("count", Node::Int(count));
  series.Add("lastObservedTime", Str(last_observed_time));
  return series;
}

Node EventSeriesPatch(int64_t count, std::string_view last_observed_time) {
  Node patch = Node::Mapping();
  patch.Add("series", EventSeriesNode(count, last_observed_time));
  return patch;
}

Node EventBody(const EventBodyFields& e, Node series) {
  Node meta = Node::Mapping();
  meta.Add("name", Str(e.name));
  meta.Add("namespace", Str(e.namespace_));
  Node regarding = Typed("v1", "Pod");
  regarding.Add("name", Str(e.pod_name));
  regarding.Add("namespace", Str(e.namespace_));
  regarding.Add("uid", Str(e.pod_uid));
  Node event = Typed("events.k8s.io/v1", "Event");
  event.Add("metadata", std::move(meta));
  event.Add("eventTime", Str(e.event_time));
  event.Add("reportingController", Str(e.reporting_controller));
  event.Add("reportingInstance", Str(e.reporting_instance));
  event.Add("action", Str(e.action));
  event.Add("reason", Str(e.reason));
  event.Add("type", Str(e.type));
  event.Add("note", Str(e.note));
  if (!series.is_null()) event.Add("series", std::move(series));
  event.Add("regarding", std::move(regarding));
  return event;
}

Node LeaseBody(const LeaseRecord& lease) {
  auto optional_string = [](std::optional<std::string_view> v) { return v ? Str(*v) : Node::Null(); };
  Node meta = Node::Mapping();
  meta.Add("name", Str(lease.name));
  meta.Add("namespace", Str(lease.namespace_));
  if (!lease.resource_version.empty()) meta.Add("resourceVersion", Str(lease.resource_version));
  Node spec = Node::Mapping();
  spec.Add("holderIdentity", optional_string(lease.holder_identity));
  spec.Add("leaseDurationSeconds", Node::Int(lease.lease_duration_seconds));
  spec.Add("acquireTime", optional_string(lease.acquire_time));
  spec.Add("renewTime", Str(lease.renew_time));
  spec.Add("leaseTransitions", lease.lease_transitions ? Node::Int(*lease.lease_transitions) : Node::Null());
  Node body = Typed("coordination.k8s.io/v1", "Lease");
  body.Add("metadata", std::move(meta));
  body.Add("spec", std::move(spec));
  return body;
}

}  // namespace dra::kube
