#include "sched/pod_claims.h"

#include <gtest/gtest.h>

namespace dra::sched {
namespace {

api::Pod PodWith(std::string name, std::vector<api::PodResourceClaim> claims) {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = std::move(name);
  pod.metadata.uid = "uid-" + pod.metadata.name;
  pod.spec.resource_claims = std::move(claims);
  return pod;
}

api::ResourceClaimTemplate Template(std::string name) {
  api::ResourceClaimTemplate t;
  t.metadata.namespace_ = "ns";
  t.metadata.name = std::move(name);
  t.spec.metadata.labels.insert_or_assign("team", "a");
  t.spec.spec.devices.requests.push_back({.name = "gpu", .exactly = api::ExactDeviceRequest{.device_class_name = "c"}});
  return t;
}

TEST(PodClaimsTest, GenerateNameShortIsPodDashClaimDash) { EXPECT_EQ(ClaimGenerateName("web-0", "gpu"), "web-0-gpu-"); }

TEST(PodClaimsTest, GenerateNameTruncatesBothPartsProportionally) {
  std::string pod(50, 'p'), claim(20, 'c');
  // base = 72 chars: pod 50*57/72 = 39, claim 20*57/72 = 15, no trailing '-'.
  EXPECT_EQ(ClaimGenerateName(pod, claim), std::string(39, 'p') + "-" + std::string(15, 'c'));
  // 57 exactly is kept as is.
  std::string p2(45, 'p'), c2(10, 'c');
  EXPECT_EQ(ClaimGenerateName(p2, c2), p2 + "-" + c2 + "-");
}

TEST(PodClaimsTest, SuffixIsStableAndUsesTheApiServerAlphabet) {
  std::string a = StableNameSuffix("ns", "pod", "gpu");
  EXPECT_EQ(a, StableNameSuffix("ns", "pod", "gpu"));
  EXPECT_NE(a, StableNameSuffix("ns", "pod", "gpu", 1));
  EXPECT_NE(a, StableNameSuffix("ns", "pod2", "gpu"));
  ASSERT_EQ(a.size(), 5u);
  for (char c : a) EXPECT_NE(kNameSuffixAlphabet.find(c), std::string_view::npos) << a;
}

TEST(PodClaimsTest, ControllerCreatesClaimFromTemplate) {
  Snapshot s;
  s.templates.push_back(Template("tmpl"));
  s.pods.push_back(PodWith("web-0", {{.name = "gpu", .resource_claim_template_name = "tmpl"}}));
  std::vector<size_t> created = EnsurePodClaims(&s, 0);
  ASSERT_EQ(created.size(), 1u);
  const api::ResourceClaim& c = s.claims[created[0]];
  EXPECT_EQ(c.metadata.name, "web-0-gpu-" + StableNameSuffix("ns", "web-0", "gpu"));
  EXPECT_EQ(c.metadata.generate_name, "web-0-gpu-");
  EXPECT_EQ(c.metadata.namespace_, "ns");
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(c.metadata.owner_references[0].uid, "uid-web-0");
  EXPECT_EQ(c.metadata.owner_references[0].controller, true);
  EXPECT_EQ(c.metadata.owner_references[0].block_owner_deletion, true);
  EXPECT_EQ(*c.metadata.annotations.find(kPodClaimNameAnnotation), "gpu");
  EXPECT_EQ(*c.metadata.labels.find("team"), "a");
  EXPECT_EQ(c.spec, s.templates[0].spec.spec);
  ASSERT_EQ(s.pods[0].status.resource_claim_statuses.size(), 1u);
  EXPECT_EQ(s.pods[0].status.resource_claim_statuses[0].resource_claim_name, c.metadata.name);
  // Idempotent: the status now records the claim.
  EXPECT_TRUE(EnsurePodClaims(&s, 0).empty());
  EXPECT_EQ(s.claims.size(), 1u);
  StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(s, s.pods[0]);
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  ASSERT_EQ(refs->size(), 1u);
  EXPECT_EQ((*refs)[0].claim, 0u);
}

TEST(PodClaimsTest, ControllerReusesAnOrphanedClaimAndAvoidsTakenNames) {
  Snapshot s;
  s.templates.push_back(Template("tmpl"));
  api::Pod pod = PodWith("web-0", {{.name = "gpu", .resource_claim_template_name = "tmpl"}});
  api::ResourceClaim orphan = NewClaimFromTemplate(pod, pod.spec.resource_claims[0], s.templates[0], "web-0-gpu-zzzzz");
  s.claims.push_back(orphan);
  s.pods.push_back(pod);
  EXPECT_TRUE(EnsurePodClaims(&s, 0).empty());
  EXPECT_EQ(s.pods[0].status.resource_claim_statuses[0].resource_claim_name, "web-0-gpu-zzzzz");

  // A foreign claim holding the first candidate name: the next attempt is used.
  Snapshot t;
  t.templates.push_back(Template("tmpl"));
  api::ResourceClaim foreign;
  foreign.metadata.namespace_ = "ns";
  foreign.metadata.name = "web-0-gpu-" + StableNameSuffix("ns", "web-0", "gpu");
  t.claims.push_back(foreign);
  t.pods.push_back(pod);
  std::vector<size_t> created = EnsurePodClaims(&t, 0);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(t.claims[created[0]].metadata.name, "web-0-gpu-" + StableNameSuffix("ns", "web-0", "gpu", 1));
}

TEST(PodClaimsTest, ResolveErrorsUseUpstreamMessages) {
  Snapshot s;
  struct Case {
    std::string name{};
    api::PodResourceClaim entry{};
    std::vector<api::PodResourceClaimStatus> statuses{};
    std::string want{};
  };
  api::ResourceClaim other;
  other.metadata.namespace_ = "ns";
  other.metadata.name = "other";
  s.claims.push_back(other);
  api::ResourceClaim deleting = other;
  deleting.metadata.name = "deleting";
  deleting.metadata.deletion_timestamp = "2025-01-01T00:00:00Z";
  s.claims.push_back(deleting);
  std::vector<Case> cases = {
      {.name = "not_created",
       .entry = {.name = "gpu", .resource_claim_template_name = "t"},
       .want = "pod \"ns/p\": ResourceClaim not created yet"},
      {.name = "not_found",
       .entry = {.name = "gpu", .resource_claim_name = "missing"},
       .want = "resourceclaim.resource.k8s.io \"missing\" not found"},
      {.name = "deleting",
       .entry = {.name = "gpu", .resource_claim_name = "deleting"},
       .want = "resourceclaim \"deleting\" is being deleted"},
      {.name = "not_owner",
       .entry = {.name = "gpu", .resource_claim_template_name = "t"},
       .statuses = {{.name = "gpu", .resource_claim_name = "other"}},
       .want = "ResourceClaim ns/other was not created for Pod ns/p (Pod is not owner)"},
      {.name = "no_source",
       .entry = {.name = "gpu"},
       .want = "pod \"ns/p\", spec.resourceClaim \"gpu\": none of the supported fields are set"},
  };
  for (const Case& c : cases) {
    api::Pod pod = PodWith("p", {c.entry});
    pod.status.resource_claim_statuses = c.statuses;
    StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(s, pod);
    ASSERT_FALSE(refs.ok()) << c.name;
    EXPECT_EQ(refs.status().message(), c.want) << c.name;
  }
  // A status entry without a claim name: no claim needed.
  api::Pod pod = PodWith("p", {{.name = "gpu", .resource_claim_template_name = "t"}});
  pod.status.resource_claim_statuses = {{.name = "gpu"}};
  StatusOr<std::vector<PodClaimRef>> refs = ResolvePodClaims(s, pod);
  ASSERT_TRUE(refs.ok());
  EXPECT_TRUE(refs->empty());
}

}  // namespace
}  // namespace dra::sched
