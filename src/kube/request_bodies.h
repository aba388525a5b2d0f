// The bodies of the requests dractl writes to the API server, other than
// whole objects (those go through manifest::EncodeObject): patches, the
// Binding, the Event and the Lease. Each is a manifest::Node tree with the
// field names of the upstream type (k8s.io/api v0.37.2), sent as compact JSON
// (`RequestJson`); every string is escaped by the emitter, never by hand.
//
// Thread-safe; never fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/core.h"
#include "manifest/node.h"

namespace dra::kube {

// Compact JSON of a request body (json.Marshal's layout; keys in the order
// built).
std::string RequestJson(const manifest::Node& body);

// A strategic merge patch of pods/status recording the claims dractl made or
// chose for `pod`: `status.resourceClaimStatuses` (merged by name) and
// `status.extendedResourceClaimStatus`, each only if `pod` has it, with
// `metadata.uid` as a precondition.
manifest::Node PodClaimStatusPatch(const api::Pod& pod);

// A strategic merge patch of resourceclaims/status removing the
// `reservedFor` entry of the pod `pod_uid`, with the claim's uid as a
// precondition (src/kube/README.md §3.5).
manifest::Node UnreservePatch(std::string_view claim_uid, std::string_view pod_uid);

// The v1 Binding of `pod` to `node` (POST pods/binding).
manifest::Node BindingBody(const api::Pod& pod, std::string_view node);

// A strategic merge patch of pods/status setting the PodScheduled condition
// to False with `reason` and `message`; `last_transition_time` (RFC 3339)
// only when not empty (the status changes).
manifest::Node PodScheduledPatch(std::string_view reason, std::string_view message,
                                 std::string_view last_transition_time);

// events.k8s.io/v1 EventSeries: {count, lastObservedTime}.
manifest::Node EventSeriesNode(int64_t count, std::string_view last_observed_time);
// A strategic merge patch of an Event adding or updating its series.
manifest::Node EventSeriesPatch(int64_t count, std::string_view last_observed_time);

// An events.k8s.io/v1 Event about a v1 Pod; `series` is left out when null.
struct EventBodyFields {
  std::string_view name{};        // metadata.name
  std::string_view namespace_{};  // metadata.namespace, also the Pod's
  std::string_view event_time{};  // RFC 3339 with microseconds
  std::string_view reporting_controller{};
  std::string_view reporting_instance{};
  std::string_view action{}, reason{}, type{}, note{};
  std::string_view pod_name{}, pod_uid{};
};
manifest::Node EventBody(const EventBodyFields& e, manifest::Node series = manifest::Node::Null());

// A coordination.k8s.io/v1 Lease as leader election writes it (create,
// renew or take over, release).
struct LeaseRecord {
  std::string_view name{}, namespace_{};
  std::string_view resource_version{};                // empty: left out (create)
  std::optional<std::string_view> holder_identity{};  // nullopt: null (released)
  int64_t lease_duration_seconds = 0;
  std::optional<std::string_view> acquire_time{};  // nullopt: null
  std::string_view renew_time{};
  std::optional<int64_t> lease_transitions{};  // nullopt: null
};
manifest::Node LeaseBody(const LeaseRecord& lease);

}  // namespace dra::kube
