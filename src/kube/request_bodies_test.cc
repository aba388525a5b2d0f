#include "kube/request_bodies.h"

#include <gtest/gtest.h>

#include "manifest/json_parser.h"

namespace dra::kube {
namespace {

using manifest::Node;
using manifest::NodeKind;

// The body as the API server reads it: RequestJson parsed back.
Node Parse(const Node& body) {
  auto docs = manifest::ParseJson(RequestJson(body), "body");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  if (!docs.ok() || docs->size() != 1) return Node::Null();
  return (*docs)[0].root;
}

// The string at `path` (keys, or "0", "1"... for sequence elements), or
// "<missing>" / "<not a string>".
std::string At(const Node& root, std::initializer_list<std::string_view> path) {
  const Node* n = &root;
  for (std::string_view key : path) {
    if (n->is_sequence()) {
      size_t i = static_cast<size_t>(std::stoul(std::string(key)));
      n = i < n->items.size() ? &n->items[i] : nullptr;
    } else {
      n = n->Find(key);
    }
    if (n == nullptr) return "<missing>";
  }
  if (n->kind == NodeKind::kNull) return "<null>";
  if (n->kind == NodeKind::kString || n->kind == NodeKind::kInt) return n->text;
  return "<not a string>";
}

// Field names below are the json tags of k8s.io/api v0.37.2: core/v1
// Binding, PodStatus, PodCondition, PodResourceClaimStatus,
// PodExtendedResourceClaimStatus; resource/v1 ResourceClaimConsumerReference;
// events/v1 Event and EventSeries; coordination/v1 Lease and LeaseSpec.

api::Pod MakePod() {
  api::Pod pod;
  pod.metadata.name = "train-0";
  pod.metadata.namespace_ = "ml";
  pod.metadata.uid = "uid-pod";
  return pod;
}

TEST(RequestBodiesTest, BindingIsCompactJsonOfBindingFields) {
  // Worked out by hand from core/v1 Binding{metadata, target ObjectReference}.
  EXPECT_EQ(RequestJson(BindingBody(MakePod(), "node-1")),
            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"train-0","namespace":"ml","uid":"uid-pod"},)"
            R"("target":{"apiVersion":"v1","kind":"Node","name":"node-1"}})");
}

TEST(RequestBodiesTest, PodClaimStatusPatchCarriesBothStatusesAndUid) {
  api::Pod pod = MakePod();
  pod.status.resource_claim_statuses.push_back({.name = "gpu", .resource_claim_name = "train-0-gpu-x7k2"});
  pod.status.resource_claim_statuses.push_back({.name = "skipped", .resource_claim_name = std::nullopt});
  pod.status.extended_resource_claim_status =
      api::PodExtendedResourceClaimStatus{.request_mappings = {{.container_name = "main",
                                                                .resource_name = "example.com/gpu",
                                                                .request_name = "container-0-request-0"}},
                                          .resource_claim_name = "train-0-extended-resources-abc"};
  Node got = Parse(PodClaimStatusPatch(pod));
  EXPECT_EQ(At(got, {"metadata", "uid"}), "uid-pod");
  EXPECT_EQ(At(got, {"status", "resourceClaimStatuses", "0", "name"}), "gpu");
  EXPECT_EQ(At(got, {"status", "resourceClaimStatuses", "0", "resourceClaimName"}), "train-0-gpu-x7k2");
  EXPECT_EQ(At(got, {"status", "resourceClaimStatuses", "1", "name"}), "skipped");
  // resourceClaimName is a pointer with omitempty: no claim, no key.
  EXPECT_EQ(At(got, {"status", "resourceClaimStatuses", "1", "resourceClaimName"}), "<missing>");
  EXPECT_EQ(At(got, {"status", "extendedResourceClaimStatus", "resourceClaimName"}), "train-0-extended-resources-abc");
  EXPECT_EQ(At(got, {"status", "extendedResourceClaimStatus", "requestMappings", "0", "containerName"}), "main");
  EXPECT_EQ(At(got, {"status", "extendedResourceClaimStatus", "requestMappings", "0", "resourceName"}),
            "example.com/gpu");
  EXPECT_EQ(At(got, {"status", "extendedResourceClaimStatus", "requestMappings", "0", "requestName"}),
            "container-0-request-0");
}

TEST(RequestBodiesTest, PodClaimStatusPatchOfPodWithoutClaimsHasEmptyStatus) {
  EXPECT_EQ(RequestJson(PodClaimStatusPatch(MakePod())), R"({"metadata":{"uid":"uid-pod"},"status":{}})");
}

TEST(RequestBodiesTest, UnreservePatchDeletesThePodsReservedForEntry) {
  EXPECT_EQ(RequestJson(UnreservePatch("uid-claim", "uid-pod")),
            R"({"metadata":{"uid":"uid-claim"},"status":{"reservedFor":[{"$patch":"delete","uid":"uid-pod"}]}})");
}

TEST(RequestBodiesTest, PodScheduledPatchEscapesTheMessage) {
  // A message with quotes, a backslash, a newline and non-ASCII text must
  // reach the API server unchanged.
  const std::string message = "0/2 nodes are available: \"gpu\" \\ claim\nnot 日本";
  Node got = Parse(PodScheduledPatch("Unschedulable", message, "2026-01-02T03:04:05Z"));
  EXPECT_EQ(At(got, {"status", "conditions", "0", "type"}), "PodScheduled");
  EXPECT_EQ(At(got, {"status", "conditions", "0", "status"}), "False");
  EXPECT_EQ(At(got, {"status", "conditions", "0", "reason"}), "Unschedulable");
  EXPECT_EQ(At(got, {"status", "conditions", "0", "message"}), message);
  EXPECT_EQ(At(got, {"status", "conditions", "0", "lastTransitionTime"}), "2026-01-02T03:04:05Z");
  // Unchanged status: the transition time is left as it is.
  Node same = Parse(PodScheduledPatch("SchedulerError", "m", ""));
  EXPECT_EQ(At(same, {"status", "conditions", "0", "reason"}), "SchedulerError");
  EXPECT_EQ(At(same, {"status", "conditions", "0", "lastTransitionTime"}), "<missing>");
}

TEST(RequestBodiesTest, EventNamesThePodAndCarriesSeriesOnlyWhenGiven) {
  const EventBodyFields fields{.name = "train-0.18a",
                               .namespace_ = "ml",
                               .event_time = "2026-01-02T03:04:05.000006Z",
                               .reporting_controller = "dractl",
                               .reporting_instance = "dractl-host_ab12",
                               .action = "Scheduling",
                               .reason = "FailedScheduling",
                               .type = "Warning",
                               .note = "line \"one\"\ttab",
                               .pod_name = "train-0",
                               .pod_uid = "uid-pod"};
  Node got = Parse(EventBody(fields));
  EXPECT_EQ(At(got, {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(At(got, {"kind"}), "Event");
  EXPECT_EQ(At(got, {"metadata", "name"}), "train-0.18a");
  EXPECT_EQ(At(got, {"metadata", "namespace"}), "ml");
  EXPECT_EQ(At(got, {"eventTime"}), "2026-01-02T03:04:05.000006Z");
  EXPECT_EQ(At(got, {"reportingController"}), "dractl");
  EXPECT_EQ(At(got, {"reportingInstance"}), "dractl-host_ab12");
  EXPECT_EQ(At(got, {"action"}), "Scheduling");
  EXPECT_EQ(At(got, {"reason"}), "FailedScheduling");
  EXPECT_EQ(At(got, {"type"}), "Warning");
  EXPECT_EQ(At(got, {"note"}), "line \"one\"\ttab");
  EXPECT_EQ(At(got, {"series"}), "<missing>");
  EXPECT_EQ(At(got, {"regarding", "apiVersion"}), "v1");
  EXPECT_EQ(At(got, {"regarding", "kind"}), "Pod");
  EXPECT_EQ(At(got, {"regarding", "name"}), "train-0");
  EXPECT_EQ(At(got, {"regarding", "namespace"}), "ml");
  EXPECT_EQ(At(got, {"regarding", "uid"}), "uid-pod");

  Node with_series = Parse(EventBody(fields, EventSeriesNode(3, "2026-01-02T03:09:05.000000Z")));
  EXPECT_EQ(At(with_series, {"series", "count"}), "3");
  EXPECT_EQ(with_series.Find("series")->Find("count")->kind, NodeKind::kInt);
  EXPECT_EQ(At(with_series, {"series", "lastObservedTime"}), "2026-01-02T03:09:05.000000Z");
  EXPECT_EQ(RequestJson(EventSeriesPatch(2, "t")), R"({"series":{"count":2,"lastObservedTime":"t"}})");
}

TEST(RequestBodiesTest, LeaseForCreateRenewAndRelease) {
  // Create: no resourceVersion, a holder, transitions 0.
  EXPECT_EQ(RequestJson(LeaseBody({.name = "dractl",
                                   .namespace_ = "dractl-system",
                                   .holder_identity = "host_1",
                                   .lease_duration_seconds = 15,
                                   .acquire_time = "T0",
                                   .renew_time = "T0",
                                   .lease_transitions = 0})),
            R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"dractl",)"
            R"("namespace":"dractl-system"},"spec":{"holderIdentity":"host_1","leaseDurationSeconds":15,)"
            R"("acquireTime":"T0","renewTime":"T0","leaseTransitions":0}})");
  // Renew with the resourceVersion read, an unknown acquire time as null.
  Node renew = Parse(LeaseBody({.name = "dractl",
                                .namespace_ = "dractl-system",
                                .resource_version = "4711",
                                .holder_identity = "host_1",
                                .lease_duration_seconds = 15,
                                .acquire_time = std::nullopt,
                                .renew_time = "T1",
                                .lease_transitions = 2}));
  EXPECT_EQ(At(renew, {"metadata", "resourceVersion"}), "4711");
  EXPECT_EQ(At(renew, {"spec", "acquireTime"}), "<null>");
  EXPECT_EQ(At(renew, {"spec", "leaseTransitions"}), "2");
  // Release: the holder cleared.
  Node release = Parse(LeaseBody({.name = "dractl",
                                  .namespace_ = "dractl-system",
                                  .resource_version = "4712",
                                  .holder_identity = std::nullopt,
                                  .lease_duration_seconds = 15,
                                  .renew_time = "T2"}));
  EXPECT_EQ(At(release, {"spec", "holderIdentity"}), "<null>");
  EXPECT_EQ(At(release, {"spec", "leaseDurationSeconds"}), "15");
  EXPECT_EQ(At(release, {"spec", "renewTime"}), "T2");
  EXPECT_EQ(At(release, {"spec", "acquireTime"}), "<null>");
  EXPECT_EQ(At(release, {"spec", "leaseTransitions"}), "<null>");
}

}  // namespace
}  // namespace dra::kube
