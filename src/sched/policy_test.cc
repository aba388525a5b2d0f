#include "sched/policy.h"

#include <gtest/gtest.h>

namespace dra::sched {
namespace {

// A NodeState and the resources it points to (requested and non-zero
// requested alike).
struct TestNode {
  TestNode(int64_t cpu, int64_t mem, int64_t used_cpu, int64_t used_mem)
      : allocatable{.milli_cpu = cpu, .memory = mem, .pods = 110},
        requested{.milli_cpu = used_cpu, .memory = used_mem},
        state{.allocatable = &allocatable, .requested = &requested, .non_zero_requested = &requested} {}
  TestNode(const TestNode&) = delete;
  TestNode& operator=(const TestNode&) = delete;

  Resources allocatable;
  Resources requested;
  NodeState state;
};

TEST(PolicyTest, LeastAllocatedAveragesCpuAndMemory) {
  TestNode n_node(4000, 1000, 1000, 0);
  NodeState& n = n_node.state;
  PodFit fit{.requests = {.milli_cpu = 1000, .memory = 500}, .non_zero_requests = {.milli_cpu = 1000, .memory = 500}};
  // cpu (4000-2000)*100/4000 = 50, memory (1000-500)*100/1000 = 50.
  EXPECT_EQ(LeastAllocatedScore(n, fit), 50);
  fit.non_zero_requests.memory = 1001;  // over capacity -> 0 for memory
  EXPECT_EQ(LeastAllocatedScore(n, fit), 25);
}

TEST(PolicyTest, BalancedAllocationPenalisesSkew) {
  TestNode n_node(4000, 1000, 0, 0);
  NodeState& n = n_node.state;
  PodFit fit{.requests = {.milli_cpu = 2000, .memory = 100}};
  // 1.37 scores the change (balanced_allocation.go balancedResourceScorer):
  // with the pod, fractions 0.5 and 0.1: std = 0.2 -> 80; without, an empty
  // node: 100; 50 + (50 + 80 - 100) / 2 = 65.
  EXPECT_EQ(BalancedAllocationScore(n, fit), 65);
  fit.requests = {};
  EXPECT_EQ(BalancedAllocationScore(n, fit), 0);  // PreScore skips
}

TEST(PolicyTest, BalancedAllocationRewardsAPodThatEvensTheNodeOut) {
  TestNode n_node(4000, 1000, 2000, 0);  // cpu half used, memory free
  PodFit fit{.requests = {.milli_cpu = 0, .memory = 500}};
  // Without the pod: 0.5 and 0 -> std 0.25 -> 75; with it 0.5 and 0.5 -> 100;
  // 50 + (50 + 100 - 75) / 2 = 50 + 37 = 87.
  EXPECT_EQ(BalancedAllocationScore(n_node.state, fit), 87);
}

TEST(PolicyTest, TaintTolerationCountsUntoleratedPreferNoScheduleTaints) {
  api::Node node;
  node.spec.taints = {{.key = "a", .value = "x", .effect = api::TaintEffect::kPreferNoSchedule},
                      {.key = "b", .value = "", .effect = api::TaintEffect::kPreferNoSchedule},
                      {.key = "c", .value = "", .effect = api::TaintEffect::kNoSchedule}};
  api::Pod pod;
  // NoSchedule taints do not count (they filter).
  EXPECT_EQ(IntolerablePreferNoScheduleTaints(pod, node), 2);
  // A toleration with another effect does not tolerate a PreferNoSchedule taint.
  pod.spec.tolerations = {
      {.key = "a", .operator_ = api::TolerationOperator::kExists, .effect = api::TaintEffect::kNoSchedule}};
  EXPECT_EQ(IntolerablePreferNoScheduleTaints(pod, node), 2);
  pod.spec.tolerations = {{.key = "a", .operator_ = api::TolerationOperator::kExists}};
  EXPECT_EQ(IntolerablePreferNoScheduleTaints(pod, node), 1);
  // DefaultNormalizeScore, reversed: 100 - 100 * raw / max; 100 when max is 0.
  EXPECT_EQ(TaintTolerationScore({.taint_raw_score = 1, .taint_max_raw_score = 3}), 67);
  EXPECT_EQ(TaintTolerationScore({.taint_raw_score = 3, .taint_max_raw_score = 3}), 0);
  EXPECT_EQ(TaintTolerationScore({.taint_raw_score = 0, .taint_max_raw_score = 0}), 100);
}

TEST(PolicyTest, NodeAffinityAddsTheWeightsOfMatchingPreferredTerms) {
  api::Node node;
  node.metadata.name = "n1";
  node.metadata.labels.insert_or_assign("zone", "a");
  api::Pod pod;
  EXPECT_FALSE(HasPreferredNodeAffinity(pod));
  auto term = [](std::string value) {
    api::NodeSelectorTerm t;
    t.match_expressions.push_back({.key = "zone", .operator_ = "In", .values = {std::move(value)}});
    return t;
  };
  pod.spec.affinity.emplace().node_affinity.emplace().preferred_during_scheduling_ignored_during_execution = {
      {.weight = 5, .preference = term("a")},
      {.weight = 50, .preference = term("b")},
      {.weight = 1, .preference = term("a")}};
  EXPECT_TRUE(HasPreferredNodeAffinity(pod));
  EXPECT_EQ(PreferredNodeAffinityWeight(pod, node), 6);
  // DefaultNormalizeScore: 100 * raw / max; 0 when max is 0 or the plugin
  // is skipped (no preferred terms).
  EXPECT_EQ(NodeAffinityScore({.affinity_raw_score = 6, .affinity_max_raw_score = 50, .affinity_scored = true}), 12);
  EXPECT_EQ(NodeAffinityScore({.affinity_raw_score = 0, .affinity_max_raw_score = 0, .affinity_scored = true}), 0);
  EXPECT_EQ(NodeAffinityScore({.affinity_raw_score = 6, .affinity_max_raw_score = 6, .affinity_scored = false}), 0);
}

TEST(PolicyTest, DraScoreIsNormalisedToTheBestNode) {
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 7, .dra_max_raw_score = 8}), 87);
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 8, .dra_max_raw_score = 8}), 100);
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 0, .dra_max_raw_score = 0}), 0);
}

TEST(PolicyTest, MostAllocatedCountsDevices) {
  TestNode n_node(4000, 1000, 1000, 500);
  NodeState& n = n_node.state;
  n.devices = 8;
  n.devices_in_use = 2;
  PodFit fit{.non_zero_requests = {.milli_cpu = 1000, .memory = 0}, .devices_taken = 2};
  // cpu 50, memory 50, devices 4/8 = 50.
  EXPECT_EQ(MostAllocatedScore(n, fit), 50);
  n.devices = 0;
  EXPECT_EQ(MostAllocatedScore(n, fit), 50);
}

TEST(PolicyTest, BestFitPrefersTheFewestFreeDevicesThenTheLeastFreeCpuAndMemory) {
  TestNode busy_node(4000, 1000, 1000, 500);
  NodeState& busy = busy_node.state;
  busy.devices = 8;
  busy.devices_in_use = 6;
  NodeState fresh = busy;
  fresh.devices_in_use = 0;
  PodFit one_gpu{.requests = {.milli_cpu = 1000, .memory = 0}, .devices_taken = 1};
  // busy: 1 device left, cpu (4000-2000)/4000 = 500 and memory 500 permille
  // left -> -(1000 + 500); fresh: 7 devices left -> -(7000 + 500).
  EXPECT_EQ(BestFitScore(busy, one_gpu), -1500);
  EXPECT_EQ(BestFitScore(fresh, one_gpu), -7500);
  // Taking the last device is a perfect device fit; then cpu and memory decide.
  busy.devices_in_use = 7;
  EXPECT_EQ(BestFitScore(busy, one_gpu), -500);

  // A CPU-only pod: a node without devices beats one with free devices even
  // when it has more cpu and memory left.
  TestNode cpu_only_node(4000, 1000, 0, 0);
  NodeState& cpu_only = cpu_only_node.state;
  PodFit cpu_pod{.requests = {.milli_cpu = 1000, .memory = 100}};
  TestNode gpu(4000, 1000, 2000, 800);
  NodeState& gpu_node = gpu.state;
  gpu_node.devices = 8;
  gpu_node.devices_in_use = 7;
  EXPECT_EQ(BestFitScore(cpu_only, cpu_pod), -(750 + 900) / 2);
  EXPECT_EQ(BestFitScore(gpu_node, cpu_pod), -(1000 + (250 + 100) / 2));
  EXPECT_GT(BestFitScore(cpu_only, cpu_pod), BestFitScore(gpu_node, cpu_pod));

  // Over capacity counts as nothing left; a node without cpu and memory
  // figures is judged by its devices alone.
  PodFit huge{.requests = {.milli_cpu = 9000, .memory = 9000}};
  EXPECT_EQ(BestFitScore(cpu_only, huge), 0);
  NodeState bare;
  bare.devices = 4;
  EXPECT_EQ(BestFitScore(bare, one_gpu), -3000);
}

TEST(PolicyTest, PoliciesByName) {
  auto kube = NewPolicy("kube");
  ASSERT_TRUE(kube.ok());
  EXPECT_EQ((*kube)->name(), "kube");
  TestNode n_node(4000, 1000, 0, 0);
  NodeState& n = n_node.state;
  PodFit fit{.requests = {.milli_cpu = 2000, .memory = 100},
             .non_zero_requests = {.milli_cpu = 2000, .memory = 100},
             .dra_raw_score = 8,
             .dra_max_raw_score = 8};
  // 1.37's default weights (default_plugins.go; applyDynamicResources):
  // TaintToleration 100 (no PreferNoSchedule taints anywhere) at weight 3,
  // NodeAffinity 0 (no preferred terms) at 2, least (50 + 90) / 2 = 70,
  // balanced 65 (see above), dra 100 at weight 2: 300 + 0 + 70 + 65 + 200.
  EXPECT_EQ((*kube)->Score(n, api::Pod{}, fit), 635);
  std::vector<PluginScore> parts = (*kube)->Explain(n, api::Pod{}, fit);
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0].plugin, "TaintToleration");
  EXPECT_EQ(parts[0].score, 100);
  EXPECT_EQ(parts[3].plugin, "NodeResourcesBalancedAllocation");
  EXPECT_EQ(parts[3].score, 65);
  auto binpack = NewPolicy("binpack");
  ASSERT_TRUE(binpack.ok());
  EXPECT_EQ((*binpack)->Score(n, api::Pod{}, fit), 30);  // (50 + 10) / 2
  auto best_fit = NewPolicy("best-fit");
  ASSERT_TRUE(best_fit.ok());
  EXPECT_EQ((*best_fit)->name(), "best-fit");
  // No devices; cpu 500 and memory 900 permille left: -(0 + 700).
  EXPECT_EQ((*best_fit)->Score(n, api::Pod{}, fit), -700);
  auto bad = NewPolicy("spread");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dra::sched
