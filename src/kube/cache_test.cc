#include "kube/cache.h"

#include <gtest/gtest.h>

#include <string>

#include "kube/metrics.h"

namespace dra::kube {
namespace {

api::Object Claim(const std::string& name, const std::string& rv, bool allocated = false) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "ns";
  c.metadata.name = name;
  c.metadata.resource_version = rv;
  if (allocated) c.status.allocation = api::AllocationResult{};
  return c;
}

api::Object Pod(const std::string& name, const std::string& rv) {
  api::Pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.name = name;
  p.metadata.resource_version = rv;
  return p;
}

ReflectorBatch Batch(const std::string& collection, bool replace, std::vector<ObjectEvent> events) {
  ReflectorBatch b;
  b.collection = collection;
  b.replace = replace;
  b.events = std::move(events);
  return b;
}

bool Allocated(const ClusterCache& cache, const std::string& key) {
  const api::Object* o = cache.Find(api::Kind::kResourceClaim, key);
  return o != nullptr && std::get<api::ResourceClaim>(*o).status.allocation.has_value();
}

constexpr char kClaims[] = "/apis/resource.k8s.io/v1/resourceclaims";

TEST(CompareResourceVersions, IntegersOrNothing) {
  EXPECT_EQ(CompareResourceVersions("9", "10"), -1);
  EXPECT_EQ(CompareResourceVersions("10", "10"), 0);
  EXPECT_EQ(CompareResourceVersions("11", "10"), 1);
  EXPECT_EQ(CompareResourceVersions("abc", "10"), std::nullopt);
  EXPECT_EQ(CompareResourceVersions("", "10"), std::nullopt);
}

TEST(ClusterCache, AssumedWriteSurvivesItsEchoAndOlderEventsButNotNewerOnes) {
  ClusterCache cache;
  cache.Apply(Batch(kClaims, true, {{.type = EventType::kAdded, .object = Claim("c", "10")}}));
  EXPECT_TRUE(cache.synced(1));
  EXPECT_FALSE(Allocated(cache, "ns/c"));

  cache.Assume(Claim("c", "12", /*allocated=*/true));  // our status write answered RV 12
  EXPECT_TRUE(Allocated(cache, "ns/c"));
  // An event in flight from before our write, then the echo of the write
  // itself: neither undoes it.
  cache.Apply(Batch(kClaims, false, {{.type = EventType::kModified, .object = Claim("c", "11")}}));
  EXPECT_TRUE(Allocated(cache, "ns/c"));
  cache.Apply(Batch(kClaims, false, {{.type = EventType::kModified, .object = Claim("c", "12")}}));
  EXPECT_TRUE(Allocated(cache, "ns/c"));
  // Someone else deallocates later: the watch wins.
  cache.Apply(Batch(kClaims, false, {{.type = EventType::kModified, .object = Claim("c", "13")}}));
  EXPECT_FALSE(Allocated(cache, "ns/c"));
  // An assume older than what the watch delivered is ignored.
  cache.Assume(Claim("c", "12", true));
  EXPECT_FALSE(Allocated(cache, "ns/c"));
}

TEST(ClusterCache, BindingAssumedAtTheSameVersion) {
  // A binding answers with a Status, so the bound pod is assumed at the
  // version it had; an event carrying that same version must not unbind it.
  ClusterCache cache;
  cache.Apply(Batch("/api/v1/pods", true, {{.type = EventType::kAdded, .object = Pod("p", "5")}}));
  api::Pod bound = std::get<api::Pod>(Pod("p", "5"));
  bound.spec.node_name = "node-a";
  cache.Assume(bound);
  cache.Apply(Batch("/api/v1/pods", false, {{.type = EventType::kModified, .object = Pod("p", "5")}}));
  EXPECT_EQ(std::get<api::Pod>(*cache.Find(api::Kind::kPod, "ns/p")).spec.node_name, "node-a");
}

TEST(ClusterCache, RelistRemovesWhatIsGoneEvenWhenTheListIsEmpty) {
  ClusterCache cache;
  cache.Apply(Batch(kClaims, true,
                    {{.type = EventType::kAdded, .object = Claim("a", "1")},
                     {.type = EventType::kAdded, .object = Claim("b", "2")}}));
  EXPECT_EQ(cache.size(), 2u);
  cache.Apply(Batch(kClaims, true, {{.type = EventType::kAdded, .object = Claim("b", "3")}}));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Find(api::Kind::kResourceClaim, "ns/a"), nullptr);
  cache.Apply(Batch(kClaims, true, {}));  // a 410 re-list of an empty collection
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ClusterCache, DeletionAndGeneration) {
  ClusterCache cache;
  uint64_t g0 = cache.generation();
  cache.Apply(Batch(kClaims, true, {{.type = EventType::kAdded, .object = Claim("a", "1")}}));
  uint64_t g1 = cache.generation();
  EXPECT_GT(g1, g0);
  cache.Apply(Batch(kClaims, false, {{.type = EventType::kDeleted, .object = Claim("a", "2")}}));
  EXPECT_EQ(cache.Find(api::Kind::kResourceClaim, "ns/a"), nullptr);
  EXPECT_GT(cache.generation(), g1);
  EXPECT_FALSE(cache.synced(2));  // one collection listed of two
}

TEST(Metrics, PrometheusTextWithCumulativeBuckets) {
  Metrics m("dractl");
  m.Attempt("scheduled", 0.0015);
  m.Attempt("scheduled", 0.5);
  m.Attempt("unschedulable", 0.002);
  m.ApiRequest("update", "resourceclaims/status", 409, 0.001);
  m.Conflict();
  std::string text = m.Render();
  EXPECT_NE(text.find("scheduler_schedule_attempts_total{profile=\"dractl\",result=\"scheduled\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_schedule_attempts_total{profile=\"dractl\",result=\"error\"} 0\n"), std::string::npos);
  // 0.0015 falls in le=0.002, 0.5 in le=0.512; buckets are cumulative.
  EXPECT_NE(text.find("scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"dractl\",result=\"scheduled\","
                      "le=\"0.001\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"dractl\",result=\"scheduled\","
                      "le=\"0.002\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"dractl\",result=\"scheduled\","
                      "le=\"0.512\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"dractl\",result=\"scheduled\","
                      "le=\"+Inf\"} 2\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("scheduler_scheduling_attempt_duration_seconds_count{profile=\"dractl\",result=\"scheduled\"} 2\n"),
      std::string::npos);
  EXPECT_NE(text.find("dractl_api_requests_total{verb=\"update\",resource=\"resourceclaims/status\",code=\"409\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("dractl_api_conflicts_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE scheduler_pending_pods gauge\n"), std::string::npos);
}

}  // namespace
}  // namespace dra::kube

namespace dra::kube {
namespace {

TEST(DecodeList, ItemsInheritTheListKindAndLoseManagedFields) {
  const std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},"items":[
    {"metadata":{"name":"a","namespace":"ns","resourceVersion":"40","managedFields":[{"manager":"kubectl"}]},
     "spec":{"containers":[{"name":"c","image":"x"}]}},
    {"metadata":{"name":"b","namespace":"ns"},"spec":{"containers":"not a list"}},
    7]})";
  std::vector<ObjectEvent> events;
  std::vector<std::string> problems;
  StatusOr<std::string> rv = DecodeList(body, "pods", &events, &problems);
  ASSERT_TRUE(rv.ok()) << rv.status().ToString();
  EXPECT_EQ(*rv, "42");
  ASSERT_EQ(events.size(), 1u);
  const auto& pod = std::get<api::Pod>(events[0].object);
  EXPECT_EQ(pod.metadata.name, "a");
  EXPECT_EQ(pod.metadata.resource_version, "40");
  EXPECT_EQ(pod.metadata.extra.find("managedFields"), nullptr);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("Pod ns/b: spec.containers"), std::string::npos) << problems[0];
  EXPECT_EQ(problems[1], "pods: an item is not an object");

  EXPECT_FALSE(DecodeList(R"({"kind":"Pod","apiVersion":"v1"})", "pods", &events, &problems).ok());
  EXPECT_FALSE(DecodeList("[1,2]", "pods", &events, &problems).ok());
}

}  // namespace
}  // namespace dra::kube
