// Scheduling cycles on small clusters built in code, with the real CEL
// evaluator (classes select by driver).
#include "sched/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>

#include "api/defaults.h"
#include "sched/scheduler_testing.h"

namespace dra::sched {
namespace {

TEST(ObjectKeyTest, HasObjectKeyAgreesWithObjectKey) {
  api::ObjectMeta m;
  m.namespace_ = "ml";
  m.name = "job-3";
  EXPECT_EQ(ObjectKey(m), "ml/job-3");
  for (std::string_view key : {"ml/job-3", "ml/job-", "ml/job-33", "m/job-3", "mlx/job-3", "ml-job-3", "ml/", "/job-3",
                               "", "ml//job-3", "job-3/ml"}) {
    EXPECT_EQ(HasObjectKey(m, key), key == ObjectKey(m)) << key;
  }
  api::ObjectMeta cluster_scoped;
  cluster_scoped.name = "n";
  EXPECT_TRUE(HasObjectKey(cluster_scoped, "/n"));
  EXPECT_FALSE(HasObjectKey(cluster_scoped, "n"));
}

TEST_F(SchedulerTest, QueueOrderIsPriorityThenCreationThenName) {
  AddPod("b").metadata.creation_timestamp = "2025-01-01T00:00:01Z";
  AddPod("a").metadata.creation_timestamp = "2025-01-01T00:00:01Z";
  AddPod("early").metadata.creation_timestamp = "2025-01-01T00:00:00Z";
  AddPod("urgent").spec.priority = 1000;
  AddPod("bound").spec.node_name = "n1";
  AddPod("done").status.phase = api::PodPhase::kSucceeded;
  AddPod("negative").spec.priority = -1;
  std::vector<std::string> names;
  for (size_t i : PendingQueue(snap_)) names.push_back(snap_.pods[i].metadata.name);
  // Bound and finished pods are not queued.
  EXPECT_THAT(names, ::testing::ElementsAre("urgent", "early", "a", "b", "negative"));
}

TEST_F(SchedulerTest, LeastAllocatedSpreadsAndBoundPodsCount) {
  AddNode("n1");
  AddNode("n2");
  AddPod("running", "4").spec.node_name = "n1";
  AddPod("p1");
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.pods[0].node, "n2");
  EXPECT_EQ(snap_.pods[1].spec.node_name, "n2");
  EXPECT_THAT(r.changed_pods, ::testing::ElementsAre(1u));
}

// A node's pod count includes its bound pods and the pods this run placed.
TEST_F(SchedulerTest, PodCountCountsBoundAndPlacedPods) {
  AddNode("n1").status.allocatable.insert_or_assign("pods", Q("2"));
  AddPod("running").spec.node_name = "n1";
  AddPod("p1");
  AddPod("p2");
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.pods[0].node, "n1");
  EXPECT_EQ(r.pods[1].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.pods[1].message, "0/1 nodes are available: 1 Too many pods.");
}

TEST_F(SchedulerTest, BinpackFillsTheBusierNode) {
  AddNode("n1");
  AddNode("n2");
  AddPod("running", "4").spec.node_name = "n1";
  AddPod("p1");
  ScheduleResult r = Run("binpack");
  EXPECT_EQ(r.pods[0].node, "n1");
}

TEST_F(SchedulerTest, NoFitAggregatesReasonsAsUpstream) {
  AddNode("n1", "2");
  AddNode("n2").spec.unschedulable = true;
  api::Node& n3 = AddNode("n3");
  n3.spec.taints.push_back({.key = "dedicated", .value = "ml", .effect = api::TaintEffect::kNoSchedule});
  AddNode("n4", "1");
  AddPod("big", "3");
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.pods[0].message,
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were "
            "unschedulable, 2 Insufficient cpu.");
  EXPECT_EQ(r.pods[0].rejections.size(), 4u);
  EXPECT_TRUE(snap_.pods[0].spec.node_name.empty());
}

// The filters decide without texts and are asked again for them when the pod
// fits nowhere: each node's rejection names its filter and that filter's reasons.
TEST_F(SchedulerTest, EachTurnedDownNodeNamesItsFilterAndReasons) {
  AddNode("n1").spec.unschedulable = true;
  AddNode("n2").metadata.labels.insert_or_assign("zone", "b");
  api::Node& n3 = AddNode("n3", "2", "1Gi");
  n3.metadata.labels.insert_or_assign("zone", "a");
  api::Node& n4 = AddNode("n4");
  n4.metadata.labels.insert_or_assign("zone", "a");
  n4.spec.taints.push_back({.key = "dedicated", .value = "ml", .effect = api::TaintEffect::kNoSchedule});
  api::Pod& p = AddPod("p", "3");
  p.spec.node_selector.insert_or_assign("zone", "a");
  p.spec.containers[0].resources.requests.insert_or_assign("memory", Q("2Gi"));
  p.spec.containers[0].resources.requests.insert_or_assign("example.com/foo", Q("1"));
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.pods[0].message,
            "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient example.com/foo, 1 Insufficient memory, "
            "1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s), "
            "1 node(s) were unschedulable.");
  const std::vector<NodeRejection>& got = r.pods[0].rejections;
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].node, "n1");
  EXPECT_EQ(got[0].plugin, "NodeUnschedulable");
  EXPECT_THAT(got[0].reasons, ::testing::ElementsAre("node(s) were unschedulable"));
  EXPECT_EQ(got[1].plugin, "NodeAffinity");
  EXPECT_THAT(got[1].reasons, ::testing::ElementsAre("node(s) didn't match Pod's node affinity/selector"));
  EXPECT_EQ(got[2].plugin, "NodeResourcesFit");
  EXPECT_THAT(got[2].reasons,
              ::testing::ElementsAre("Insufficient cpu", "Insufficient memory", "Insufficient example.com/foo"));
  EXPECT_EQ(got[3].node, "n4");
  EXPECT_EQ(got[3].plugin, "TaintToleration");
  EXPECT_THAT(got[3].reasons, ::testing::ElementsAre("node(s) had untolerated taint(s)"));
}

// Without GenericWorkload (off by default) the API server drops
// spec.schedulingGroup, so such pods are ordinary pods (gang_test.cc has the
// gate on). The field stays in spec.extra as written.
TEST_F(SchedulerTest, PodGroupMembersAreOrdinaryPodsWithoutGenericWorkload) {
  AddNode("n1");
  AddPod("worker-0").spec.extra.insert_or_assign("schedulingGroup", R"({"podGroupName":"train"})");
  AddPod("worker-1").spec.extra.insert_or_assign("schedulingGroup", "{}");
  AddPod("single").spec.extra.insert_or_assign("schedulingGroup", "null");
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 3u);
  for (const PodOutcome& o : r.pods) EXPECT_EQ(o.kind, PodOutcome::Kind::kPlaced) << o.pod;
  EXPECT_TRUE(r.groups.empty());
  EXPECT_EQ(*snap_.pods[0].spec.extra.find("schedulingGroup"), R"({"podGroupName":"train"})");
}

TEST_F(SchedulerTest, NodeSelectorAndTolerationsSteer) {
  AddNode("n1");
  api::Node& n2 = AddNode("n2");
  n2.spec.taints.push_back({.key = "dedicated", .value = "ml", .effect = api::TaintEffect::kNoSchedule});
  api::Pod& p = AddPod("p");
  p.spec.node_selector.insert_or_assign("kubernetes.io/hostname", "n2");
  p.spec.tolerations.push_back({.key = "dedicated", .value = "ml"});
  ScheduleResult r = Run();
  EXPECT_EQ(r.pods[0].node, "n2");
}

TEST_F(SchedulerTest, TemplateClaimsAreGeneratedAllocatedAndCountedForLaterPods) {
  AddNode("n1");
  AddNode("n2");
  AddGpus("n1", 1);
  AddTemplate("one-gpu");
  for (std::string name : {"p1", "p2"}) {
    AddPod(name).spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "one-gpu"});
  }
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced) << r.pods[0].message;
  EXPECT_EQ(r.pods[0].node, "n1");
  ASSERT_EQ(r.pods[0].claims.size(), 1u);
  EXPECT_EQ(r.pods[0].claims[0].results[0].device, "gpu-0");
  EXPECT_EQ(r.pods[1].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.pods[1].message, "0/2 nodes are available: 2 cannot allocate all claims.");
  ASSERT_EQ(snap_.claims.size(), 2u);  // both generated
  EXPECT_EQ(r.created_claims.size(), 2u);
  const api::ResourceClaim& c = snap_.claims[0];
  ASSERT_TRUE(c.status.allocation.has_value());
  ASSERT_EQ(c.status.reserved_for.size(), 1u);
  EXPECT_EQ(c.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(c.status.reserved_for[0].name, "p1");
  EXPECT_EQ(c.status.reserved_for[0].uid, "uid-p1");
  EXPECT_THAT(c.metadata.finalizers, ::testing::ElementsAre(kDeleteProtectionFinalizer));
  EXPECT_FALSE(snap_.claims[1].status.allocation.has_value());
  // The pending pod's generated claim is still written (the controller ran).
  EXPECT_THAT(r.changed_pods, ::testing::ElementsAre(0u, 1u));
}

// Without texts (ScheduleOptions::unschedulable_texts), a pod equal to one
// that fit nowhere fails without filtering; pods that differ still get their
// turn. n1 has 4 cpu and 2 GPUs, n2 2 cpu and 1 GPU; every pod asks for one
// GPU from the same template:
//   big1 (3 cpu): only n1 has the cpu;
//   big2 (3 cpu): n1 has 1 cpu left, n2 2: nowhere;
//   small1 (1 cpu): LeastAllocated takes n2 (cpu 0/2 against 3/4 used);
//   big3: as big2 (nothing freed): nowhere;
//   small2: n1 (1 cpu and a GPU left);
//   small3: no GPU left.
// Both runs give exactly that.
TEST_F(SchedulerTest, WithoutTextsAPodEqualToAFailedOneFailsAndOthersStillFit) {
  for (bool texts : {true, false}) {
    Snapshot fresh;
    fresh.classes = snap_.classes;
    snap_ = std::move(fresh);
    AddNode("n1", "4");
    AddNode("n2", "2");
    AddGpus("n1", 2);
    AddGpus("n2", 1);
    AddTemplate("one-gpu");
    for (auto [name, cpu] : std::vector<std::pair<std::string, std::string>>{{"a-big1", "3"},
                                                                             {"b-big2", "3"},
                                                                             {"c-small1", "1"},
                                                                             {"d-big3", "3"},
                                                                             {"e-small2", "1"},
                                                                             {"f-small3", "1"}}) {
      AddPod(name, cpu).spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "one-gpu"});
    }
    auto policy = NewPolicy("kube");
    ASSERT_TRUE(policy.ok());
    StatusOr<ScheduleResult> r = Schedule(&snap_, {.policy = policy->get(), .unschedulable_texts = texts});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> got;
    for (const PodOutcome& o : r->pods)
      got.push_back(o.pod + "=" + (o.kind == PodOutcome::Kind::kPlaced ? o.node : "-"));
    EXPECT_THAT(got, ::testing::ElementsAre("default/a-big1=n1", "default/b-big2=-", "default/c-small1=n2",
                                            "default/d-big3=-", "default/e-small2=n1", "default/f-small3=-"))
        << "texts " << texts;
    if (!texts) {
      EXPECT_EQ(r->pods[3].message, "0/2 nodes are available.");
    }
  }
}

// Without texts, equal pods pass over the nodes that turned an earlier one
// of them down (they only fill up) but count them as processed, so the
// search's start rotates as with texts and every choice is the same. 200
// nodes of 4 cpu and one GPU (kube-scheduler then filters until it has 100
// feasible nodes, from where the last pod stopped), every seventh tainted
// (0, 7, ..., 196: 29 nodes); 250 one-GPU pods from one template, of 1 and 3
// cpu in turn (two classes). Each untainted node takes one pod: 171 placed.
TEST_F(SchedulerTest, WithoutTextsEqualPodsSkipNodesThatTurnedThemDownAndChooseAlike) {
  std::vector<std::string> runs[2];
  for (bool texts : {true, false}) {
    Snapshot fresh;
    fresh.classes = snap_.classes;
    snap_ = std::move(fresh);
    for (int n = 0; n < 200; ++n) {
      const std::string name = fmt::format("n{:03}", n);
      api::Node& node = AddNode(name, "4");
      if (n % 7 == 0) {
        node.spec.taints.push_back({.key = "dedicated", .value = "ml", .effect = api::TaintEffect::kNoSchedule});
      }
      AddGpus(name, 1);
    }
    AddTemplate("one-gpu");
    for (int p = 0; p < 250; ++p) {
      AddPod(fmt::format("p{:03}", p), p % 2 == 0 ? "1" : "3")
          .spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "one-gpu"});
    }
    auto policy = NewPolicy("kube");
    ASSERT_TRUE(policy.ok());
    StatusOr<ScheduleResult> r = Schedule(&snap_, {.policy = policy->get(), .unschedulable_texts = texts});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> nodes;
    for (const PodOutcome& o : r->pods) {
      runs[texts ? 0 : 1].push_back(o.pod + "=" + (o.kind == PodOutcome::Kind::kPlaced ? o.node : "-"));
      if (o.kind == PodOutcome::Kind::kPlaced) nodes.insert(o.node);
    }
    EXPECT_EQ(nodes.size(), 171u) << "texts " << texts;
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST_F(SchedulerTest, SharedClaimIsAllocatedOnceAndReservedForEachPod) {
  AddNode("n1");
  AddNode("n2");
  AddGpus("n1", 1);
  AddClaim("shared");
  // A busy n1 would lose on resources, but the claim pins p2 to it.
  AddPod("p1").spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "shared"});
  AddPod("p2", "6").spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "shared"});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].node, "n1");
  EXPECT_TRUE(r.pods[0].claims[0].allocated_now);
  ASSERT_EQ(r.pods[1].kind, PodOutcome::Kind::kPlaced) << r.pods[1].message;
  EXPECT_EQ(r.pods[1].node, "n1");
  EXPECT_FALSE(r.pods[1].claims[0].allocated_now);
  EXPECT_EQ(snap_.claims[0].status.reserved_for.size(), 2u);
  EXPECT_THAT(r.changed_claims, ::testing::ElementsAre(0u));
}

TEST_F(SchedulerTest, SharedClaimPinnedToAFullNodeKeepsThePodPending) {
  AddNode("n1");
  AddNode("n2");
  AddGpus("n1", 1);
  AddClaim("shared");
  AddPod("p1", "7").spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "shared"});
  // n1 has 1 cpu left; n2 has room, but the claim is allocated on n1.
  AddPod("p2", "2").spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "shared"});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].node, "n1");
  ASSERT_EQ(r.pods[1].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.pods[1].message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 resourceclaim not available on the node.");
  ASSERT_EQ(r.pods[1].rejections.size(), 2u);
  EXPECT_EQ(r.pods[1].rejections[0].node, "n1");
  EXPECT_EQ(r.pods[1].rejections[0].plugin, "NodeResourcesFit");
  EXPECT_EQ(r.pods[1].rejections[1].node, "n2");
  EXPECT_EQ(r.pods[1].rejections[1].plugin, kDynamicResourcesPlugin);
  EXPECT_THAT(r.pods[1].rejections[1].reasons, ::testing::ElementsAre("resourceclaim not available on the node"));
  EXPECT_EQ(snap_.claims[0].status.reserved_for.size(), 1u);
}

TEST_F(SchedulerTest, ReservedForLimitIs256) {
  AddNode("n1");
  AddGpus("n1", 1);
  api::ResourceClaim& c = AddClaim("shared");
  c.status.allocation = api::AllocationResult{};
  for (int i = 0; i < 256; ++i) {
    c.status.reserved_for.push_back({.resource = "pods", .name = "x" + std::to_string(i), .uid = std::to_string(i)});
  }
  AddPod("p").spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "shared"});
  ScheduleResult r = Run();
  EXPECT_EQ(r.pods[0].kind, PodOutcome::Kind::kError);
  EXPECT_EQ(r.pods[0].message,
            "ResourceClaim.resource.k8s.io \"shared\" is invalid: status.reservedFor: Too many: 257: must have at "
            "most 256 items");
}

TEST_F(SchedulerTest, MissingClassIsAPreFilterRejection) {
  AddNode("n1");
  AddTemplate("bad", "nope");
  AddPod("p").spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "bad"});
  AddPod("q").spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "missing"});
  ScheduleResult r = Run();
  EXPECT_EQ(r.pods[0].message, "0/1 nodes are available: request gpu: device class nope does not exist.");
  // Upstream's text, then why the claim was never made (issue #32 item 2).
  EXPECT_EQ(r.pods[1].message,
            "pod \"default/q\": ResourceClaim not created yet: no ResourceClaimTemplate \"missing\" in namespace "
            "\"default\"");
}

// A template of that name in other namespaces is named.
TEST_F(SchedulerTest, MissingTemplateNamesTheNamespacesThatHaveIt) {
  AddNode("n1");
  AddTemplate("one-gpu");  // in default
  AddTemplate("one-gpu");
  snap_.templates.back().metadata.namespace_ = "team-b";
  api::Pod& p = AddPod("p");
  p.metadata.namespace_ = "ml";
  p.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "one-gpu"});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message,
            "pod \"ml/p\": ResourceClaim not created yet: no ResourceClaimTemplate \"one-gpu\" in namespace \"ml\"; "
            "namespaces \"default\", \"team-b\" have one");
}

TEST_F(SchedulerTest, SeedBreaksTiesDeterministically) {
  AddNode("n1");
  AddNode("n2");
  AddPod("p");
  Snapshot original = snap_;
  std::set<std::string> chosen;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    snap_ = original;
    std::string first = Run("kube", seed).pods[0].node;
    snap_ = original;
    EXPECT_EQ(Run("kube", seed).pods[0].node, first);
    chosen.insert(first);
  }
  EXPECT_EQ(chosen.size(), 2u);
}

TEST(NumFeasibleNodesToFindTest, FollowsKubeScheduler) {
  // Below 100 nodes: all of them.
  EXPECT_EQ(NumFeasibleNodesToFind(0, 50), 50u);
  // Adaptive: 50% - nodes/125, at least 5%, at least 100 nodes.
  EXPECT_EQ(NumFeasibleNodesToFind(0, 150), 100u);    // 48% = 72 -> 100
  EXPECT_EQ(NumFeasibleNodesToFind(0, 500), 230u);    // 46%
  EXPECT_EQ(NumFeasibleNodesToFind(0, 1000), 420u);   // 42%
  EXPECT_EQ(NumFeasibleNodesToFind(0, 5000), 500u);   // 10%
  EXPECT_EQ(NumFeasibleNodesToFind(0, 6250), 312u);   // 0% -> 5%
  EXPECT_EQ(NumFeasibleNodesToFind(0, 10000), 500u);  // 5%
  // A set percentage.
  EXPECT_EQ(NumFeasibleNodesToFind(30, 1000), 300u);
  EXPECT_EQ(NumFeasibleNodesToFind(10, 200), 100u);  // 20 -> 100
  EXPECT_EQ(NumFeasibleNodesToFind(100, 1000), 1000u);
}

// 150 nodes: n000-n099 small (8 cpu), n100-n149 large (64 cpu, which every
// score prefers). Filter stops after 100 feasible nodes, so the first pod
// only sees small nodes; the second starts where the first stopped.
TEST_F(SchedulerTest, FilterStopsAfterEnoughFeasibleNodesAndTheNextPodGoesOn) {
  auto name = [](int i) {
    std::string digits = std::to_string(i);
    return "n" + std::string(3 - digits.size(), '0') + digits;
  };
  for (int i = 0; i < 150; ++i) AddNode(name(i), i < 100 ? "8" : "64");
  AddPod("p1").metadata.creation_timestamp = "2025-01-01T00:00:01Z";
  AddPod("p2").metadata.creation_timestamp = "2025-01-01T00:00:02Z";
  Snapshot fresh = snap_;
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_LT(r.pods[0].node, "n100");
  ASSERT_EQ(r.pods[1].kind, PodOutcome::Kind::kPlaced);
  EXPECT_GE(r.pods[1].node, "n100");
  // Every node scored: both pods land on large nodes.
  snap_ = fresh;
  r = Run("kube", 0, 100);
  EXPECT_GE(r.pods[0].node, "n100");
  EXPECT_GE(r.pods[1].node, "n100");
}

// kube-scheduler with parallelism 1 (schedule_one.go findNodesThatPassFilters:
// one worker walks the nodes in order; the feasible node after the 100th
// cancels the search and is dropped; nextStartNodeIndex advances by the
// feasible nodes kept plus the rejected ones). n000-n099 small and free,
// n100-n109 large but tainted, n110-n149 small. p1 (no toleration) keeps
// n000-n099, is turned down by n100-n109 and stops at n110: 110 processed.
// p2 tolerates the taint and starts at n110: n110-n149 and n000-n059 are
// its 100 (n060 stops it), so it never sees the large nodes. (Stopping at
// the 100th would have started p2 at n100, on the large nodes, which every
// score prefers.)
TEST_F(SchedulerTest, NodesRejectedAfterTheLastFeasibleNodeCountAsProcessed) {
  auto name = [](int i) {
    std::string digits = std::to_string(i);
    return "n" + std::string(3 - digits.size(), '0') + digits;
  };
  for (int i = 0; i < 150; ++i) {
    api::Node& n = AddNode(name(i), i >= 100 && i < 110 ? "64" : "8");
    if (i >= 100 && i < 110) {
      n.spec.taints.push_back({.key = "dedicated", .value = "ml", .effect = api::TaintEffect::kNoSchedule});
    }
  }
  AddPod("p1").metadata.creation_timestamp = "2025-01-01T00:00:01Z";
  api::Pod& p2 = AddPod("p2");
  p2.metadata.creation_timestamp = "2025-01-01T00:00:02Z";
  p2.spec.tolerations.push_back({.key = "dedicated", .value = "ml"});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 2u);
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_LT(r.pods[0].node, "n100");
  ASSERT_EQ(r.pods[1].kind, PodOutcome::Kind::kPlaced);
  EXPECT_TRUE(r.pods[1].node < "n060" || r.pods[1].node >= "n110") << r.pods[1].node;
}

// node_tree.go by hand. In name order, with zone keys (GetZoneKey: the
// failure-domain.beta labels win over topology.kubernetes.io ones, even
// when empty; region + ":\0:" + zone): a1 z1, a2 z2, b1 z1, b2 "" (no
// labels), c1 r1/z1, c2 z2 (beta; its topology zone z9 is ignored), d1 z2,
// e1 "" (beta zone empty; its topology zone z1 is ignored). Zones by first
// appearance: z1 {a1, b1}, z2 {a2, c2, d1}, "" {b2, e1}, r1/z1 {c1}; list()
// takes the first of each, then the second of each, ...
TEST(NodeTreeOrderTest, ZonesRoundRobinInOrderOfFirstAppearance) {
  std::vector<api::Node> nodes(8);
  const char* names[] = {"a1", "a2", "b1", "b2", "c1", "c2", "d1", "e1"};
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].metadata.name = names[i];
  auto set = [&](size_t i, std::string key, std::string value) {
    nodes[i].metadata.labels.insert_or_assign(std::move(key), std::move(value));
  };
  const std::string zone = "topology.kubernetes.io/zone", beta = "failure-domain.beta.kubernetes.io/zone";
  set(0, zone, "z1");
  set(1, zone, "z2");
  set(2, zone, "z1");
  set(4, zone, "z1");
  set(4, "topology.kubernetes.io/region", "r1");
  set(5, beta, "z2");
  set(5, zone, "z9");
  set(6, zone, "z2");
  set(7, beta, "");
  set(7, zone, "z1");
  EXPECT_EQ(NodeTreeOrder(nodes), (std::vector<size_t>{0, 1, 3, 4, 2, 5, 7, 6}));
  // No zone or region label on any node: name order (empty).
  for (api::Node& n : nodes) n.metadata.labels = {};
  set(3, "zone", "z1");
  EXPECT_TRUE(NodeTreeOrder(nodes).empty());
}

// 110 small nodes in zone a (n000-n109), 10 large ones in zone b
// (n110-n119). In name order the first 100 are all small; the nodeTree
// interleaves the zones (n000, n110, n001, n111, ...), so the first 100
// hold every large node, which the scores prefer.
TEST_F(SchedulerTest, FilterWalksTheZonesRoundRobin) {
  auto name = [](int i) {
    std::string digits = std::to_string(i);
    return "n" + std::string(3 - digits.size(), '0') + digits;
  };
  for (int i = 0; i < 120; ++i) AddNode(name(i), i < 110 ? "8" : "64");
  AddPod("p");
  Snapshot fresh = snap_;
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_LT(r.pods[0].node, "n100");
  snap_ = fresh;
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    snap_.nodes[i].metadata.labels.insert_or_assign("topology.kubernetes.io/zone", i < 110 ? "a" : "b");
  }
  r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_GE(r.pods[0].node, "n110");
}

// --- Extended resources backed by DRA (extended.h) ---

TEST_F(SchedulerTest, ExtendedResourceGetsASpecialClaimOnNodesWithoutTheDevicePlugin) {
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("dra");
  AddGpus("dra", 2);
  AddNode("plugin").status.allocatable.insert_or_assign("example.com/gpu", Q("1"));
  api::Pod& p = AddPod("p", "");
  p.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("2"));
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  // "plugin" lists only 1; "dra" serves both through the class.
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced) << r.pods[0].message;
  EXPECT_EQ(r.pods[0].node, "dra");
  ASSERT_EQ(r.created_claims.size(), 1u);
  const api::ResourceClaim& claim = snap_.claims[r.created_claims[0]];
  EXPECT_EQ(claim.metadata.name.rfind("p-extended-resources-", 0), 0u) << claim.metadata.name;
  EXPECT_EQ(claim.metadata.name.size(), std::string("p-extended-resources-").size() + 5);
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  EXPECT_EQ(claim.spec.devices.requests[0].name, "container-0-request-0");
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->count, 2);
  ASSERT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(claim.status.allocation->devices.results.size(), 2u);
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].uid, "uid-p");
  ASSERT_TRUE(snap_.pods[0].status.extended_resource_claim_status.has_value());
  EXPECT_EQ(snap_.pods[0].status.extended_resource_claim_status->resource_claim_name, claim.metadata.name);
  ASSERT_EQ(r.pods[0].claims.size(), 1u);
  EXPECT_EQ(r.pods[0].claims[0].pod_claim, "<extended-resources>");

  // A second pod: the device plugin node has room for 1, the DRA node none.
  api::Pod& q = AddPod("q", "");
  q.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].node, "plugin");
  EXPECT_TRUE(r.created_claims.empty());
  // A third finds neither: the plugin's one is counted as requested.
  api::Pod& third = AddPod("third", "");
  third.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message,
            "0/2 nodes are available: 1 Insufficient example.com/gpu, 1 cannot allocate all claims.");
}

// Worked out from kube-scheduler 1.37.2's DynamicResources (and checked by
// tools/difftest --level scheduler against it): a pod with its own claim and
// a DRA-backed extended resource on a node whose device plugin serves it.
// filterExtendedResources still builds the special claim (no requests, as
// the pod has a user claim), its empty allocation passes Reserve, PreBind
// writes the user claim's allocation and reservation, then
// patchPodExtendedResourceClaimStatus fails on the empty request mappings;
// Unreserve takes the pod out of reservedFor. The pod stays pending; the
// claim stays allocated.
TEST_F(SchedulerTest, ExtendedResourceFromTheDevicePluginWithAUserClaimFailsAtPreBind) {
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("plugin").status.allocatable.insert_or_assign("example.com/gpu", Q("1"));
  AddGpus("plugin", 1);
  AddClaim("mine");
  api::Pod& p = AddPod("p", "");
  p.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  p.spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "mine"});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].kind, PodOutcome::Kind::kError);
  EXPECT_EQ(r.pods[0].message,
            "running PreBind plugin \"DynamicResources\": nil or empty request mappings, no update of pod "
            "default/p ExtendedResourceClaimStatus");
  EXPECT_TRUE(snap_.pods[0].spec.node_name.empty());
  EXPECT_TRUE(r.created_claims.empty());
  ASSERT_TRUE(snap_.claims[0].status.allocation.has_value());
  EXPECT_EQ(snap_.claims[0].status.allocation->devices.results.size(), 1u);
  EXPECT_TRUE(snap_.claims[0].status.reserved_for.empty());
}

TEST_F(SchedulerTest, ExtendedResourceClaimLeftFromAnEarlierAttemptBlocksEveryNode) {
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("dra");
  AddGpus("dra", 2);
  api::Pod& p = AddPod("p", "");
  p.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  api::ResourceClaim& stale = AddClaim("p-extended-resources-abcde");
  stale.metadata.annotations.insert_or_assign("resource.kubernetes.io/extended-resource-claim", "true");
  stale.metadata.owner_references.push_back(
      {.api_version = "v1", .kind = "Pod", .name = "p", .uid = "uid-p", .controller = true});
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message, "0/1 nodes are available: 1 cannot schedule extended resource claim.");
}

TEST_F(SchedulerTest, ExtendedResourceWithoutClassOrAllocatableIsInsufficient) {
  AddNode("n1");
  AddGpus("n1", 2);
  api::Pod& p = AddPod("p", "");
  p.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  ScheduleResult r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message, "0/1 nodes are available: 1 Insufficient example.com/gpu.");
  // The class's implicit name works without extendedResourceName.
  p.spec.containers[0].resources.limits = {};
  p.spec.containers[0].resources.limits.insert_or_assign("deviceclass.resource.kubernetes.io/gpu", Q("1"));
  r = Run();
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced) << r.pods[0].message;
}

}  // namespace
}  // namespace dra::sched

namespace dra::sched {
namespace {

// Issue #23's example, worked by hand: 4 nodes of 8 GPUs (64 cores each);
// eight 1-GPU pods (4 cores) arrive before three 8-GPU pods (32 cores).
// kube-scheduler's LeastAllocated spreads the small pods two per node, so no
// node has 8 GPUs left for the large ones: 8 placed. fgd and dra-pack measure
// fragmentation against the pending pods (8/11 one-GPU, 3/11 eight-GPU): a
// small pod on a fresh node leaves 7 GPUs the large shape cannot use (F from
// 0 to 7000 x 3/11, score 12), on the node that has one already F falls
// (7000 -> 6000 x 3/11, score 56), so the small pods share one node and the
// large pods get the other three: 11 placed.
class PackingExampleTest : public SchedulerTest {
 protected:
  PackingExampleTest() {
    for (int n = 1; n <= 4; ++n) {
      AddNode("node-" + std::to_string(n), "64", "512Gi");
      AddGpus("node-" + std::to_string(n), 8);
    }
    for (auto [name, count] : {std::pair{"one-gpu", 1}, std::pair{"eight-gpus", 8}}) {
      api::ResourceClaimTemplate t;
      t.metadata.namespace_ = "default";
      t.metadata.name = name;
      t.spec.spec.devices.requests.push_back(
          {.name = "gpu", .exactly = api::ExactDeviceRequest{.device_class_name = "gpu", .count = count}});
      api::SetDefaults(t);
      snap_.templates.push_back(t);
    }
    for (int i = 0; i < 8; ++i) {
      api::Pod& p = AddPod("small-" + std::to_string(i), "4");
      p.metadata.creation_timestamp = "2026-01-01T00:00:0" + std::to_string(i) + "Z";
      p.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "one-gpu"});
    }
    for (int i = 0; i < 3; ++i) {
      api::Pod& p = AddPod("large-" + std::to_string(i), "32");
      p.metadata.creation_timestamp = "2026-01-01T00:01:0" + std::to_string(i) + "Z";
      p.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "eight-gpus"});
    }
  }
  // Placed pods per node, and the count placed.
  std::pair<std::map<std::string, int>, int> Placements(const ScheduleResult& r) {
    std::map<std::string, int> per_node;
    int placed = 0;
    for (const PodOutcome& o : r.pods) {
      if (o.kind != PodOutcome::Kind::kPlaced) continue;
      ++placed;
      ++per_node[o.node];
    }
    return {per_node, placed};
  }
};

TEST_F(PackingExampleTest, KubeSpreadsAndPlacesEight) {
  ScheduleResult r = Run("kube");
  auto [per_node, placed] = Placements(r);
  EXPECT_EQ(placed, 8);
  EXPECT_THAT(per_node, ::testing::ElementsAre(::testing::Pair("node-1", 2), ::testing::Pair("node-2", 2),
                                               ::testing::Pair("node-3", 2), ::testing::Pair("node-4", 2)));
  EXPECT_EQ(r.profile, "");
}

TEST_F(PackingExampleTest, DraPackPlacesAllEleven) {
  ScheduleResult r = Run("dra-pack");
  auto [per_node, placed] = Placements(r);
  EXPECT_EQ(placed, 11);
  // One node holds the eight small pods, each other node one large pod.
  std::vector<int> counts;
  for (const auto& [node, n] : per_node) counts.push_back(n);
  EXPECT_THAT(counts, ::testing::UnorderedElementsAre(8, 1, 1, 1));
  EXPECT_EQ(r.profile, "pending pods: 11 pods, 2 shapes, 2 typical covering 100.0%");
  // The large pods got whole nodes: the eight GPUs of one node each.
  for (const PodOutcome& o : r.pods) {
    if (o.pod.starts_with("default/large-")) {
      ASSERT_EQ(o.claims.size(), 1u);
      EXPECT_EQ(o.claims[0].results.size(), 8u);
    }
  }
}

TEST_F(PackingExampleTest, FgdPlacesAllEleven) {
  auto [per_node, placed] = Placements(Run("fgd"));
  EXPECT_EQ(placed, 11);
}

// A profile given in the options replaces the pending pods, and the run
// names the one it measured against.
TEST_F(PackingExampleTest, AGivenProfileReplacesThePendingPods) {
  std::vector<WorkloadShape> shapes;
  const api::ResourceClaimSpec* one[] = {&snap_.templates[0].spec.spec};
  shapes.push_back(ShapeOf(4000, 0, one));
  WorkloadProfile profile = BuildProfile(shapes, "--workload-profile");
  auto p = NewPolicy("dra-pack");
  ASSERT_TRUE(p.ok());
  ScheduleOptions options{.policy = p->get()};
  options.workload_profile = &profile;
  StatusOr<ScheduleResult> r = Schedule(&snap_, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->profile, "--workload-profile: 1 pod, 1 shape, 1 typical covering 100.0%");
}

}  // namespace
}  // namespace dra::sched
