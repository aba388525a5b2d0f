#include "sched/node_filters.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dra::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

api::Node NodeNamed(std::string name) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels.insert_or_assign("zone", "a");
  return n;
}

TEST(NodeFiltersTest, UnschedulableNodeNeedsToleration) {
  api::Node node = NodeNamed("n1");
  api::Pod pod;
  EXPECT_THAT(FilterUnschedulable(pod, node), IsEmpty());
  node.spec.unschedulable = true;
  EXPECT_THAT(FilterUnschedulable(pod, node), ElementsAre("node(s) were unschedulable"));
  pod.spec.tolerations.push_back({.key = kUnschedulableTaintKey, .operator_ = api::TolerationOperator::kExists});
  EXPECT_THAT(FilterUnschedulable(pod, node), IsEmpty());
}

TEST(NodeFiltersTest, NodeNameMustMatchWhenSet) {
  api::Pod pod;
  EXPECT_THAT(FilterNodeName(pod, NodeNamed("n1")), IsEmpty());
  pod.spec.node_name = "n2";
  EXPECT_THAT(FilterNodeName(pod, NodeNamed("n1")), ElementsAre("node(s) didn't match the requested node name"));
  EXPECT_THAT(FilterNodeName(pod, NodeNamed("n2")), IsEmpty());
}

TEST(NodeFiltersTest, TaintsNoScheduleAndNoExecuteNeedTolerations) {
  api::Node node = NodeNamed("n1");
  node.spec.taints.push_back({.key = "soft", .value = "x", .effect = api::TaintEffect::kPreferNoSchedule});
  node.spec.taints.push_back({.key = "nvidia.com/gpu", .value = "present", .effect = api::TaintEffect::kNoSchedule});
  api::Pod pod;
  // 1.37's text names no taint (tainttoleration/taint_toleration.go Filter).
  EXPECT_THAT(FilterTaints(pod, node), ElementsAre("node(s) had untolerated taint(s)"));
  ASSERT_NE(FirstUntoleratedTaint(pod, node), nullptr);
  EXPECT_EQ(FirstUntoleratedTaint(pod, node)->key, "nvidia.com/gpu");           // PreferNoSchedule only scores
  pod.spec.tolerations.push_back({.key = "nvidia.com/gpu", .value = "other"});  // Equal, wrong value
  EXPECT_THAT(FilterTaints(pod, node), ElementsAre("node(s) had untolerated taint(s)"));
  pod.spec.tolerations.push_back({.key = "nvidia.com/gpu",
                                  .operator_ = api::TolerationOperator::kExists,
                                  .effect = api::TaintEffect::kNoSchedule});
  EXPECT_THAT(FilterTaints(pod, node), IsEmpty());
  node.spec.taints.push_back({.key = "evict", .effect = api::TaintEffect::kNoExecute});
  EXPECT_THAT(FilterTaints(pod, node), ElementsAre("node(s) had untolerated taint(s)"));
  pod.spec.tolerations.push_back({.operator_ = api::TolerationOperator::kExists});  // tolerates everything
  EXPECT_THAT(FilterTaints(pod, node), IsEmpty());
}

TEST(NodeFiltersTest, NodeSelectorAndRequiredAffinity) {
  api::Node node = NodeNamed("n1");
  api::Pod pod;
  EXPECT_FALSE(HasNodeAffinity(pod));
  EXPECT_THAT(*FilterNodeAffinity(pod, node), IsEmpty());
  pod.spec.node_selector.insert_or_assign("zone", "b");
  EXPECT_TRUE(HasNodeAffinity(pod));
  EXPECT_THAT(*FilterNodeAffinity(pod, node), ElementsAre("node(s) didn't match Pod's node affinity/selector"));
  pod.spec.node_selector.insert_or_assign("zone", "a");
  EXPECT_THAT(*FilterNodeAffinity(pod, node), IsEmpty());
  api::NodeSelector sel;
  sel.node_selector_terms.push_back(
      {.match_fields = {{.key = "metadata.name", .operator_ = api::NodeSelectorOperator::kIn, .values = {"n2"}}}});
  pod.spec.affinity = api::Affinity{.node_affinity = api::NodeAffinity{}};
  pod.spec.node_selector = {};
  EXPECT_FALSE(HasNodeAffinity(pod));  // node affinity without required terms
  pod.spec.affinity =
      api::Affinity{.node_affinity = api::NodeAffinity{.required_during_scheduling_ignored_during_execution = sel}};
  EXPECT_TRUE(HasNodeAffinity(pod));
  pod.spec.node_selector.insert_or_assign("zone", "a");
  EXPECT_THAT(*FilterNodeAffinity(pod, node), ElementsAre("node(s) didn't match Pod's node affinity/selector"));
  EXPECT_THAT(*FilterNodeAffinity(pod, NodeNamed("n2")), IsEmpty());
  pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution->node_selector_terms[0]
      .match_fields[0]
      .operator_ = api::NodeSelectorOperator::kGt;
  StatusOr<std::vector<std::string>> bad = FilterNodeAffinity(pod, node);
  EXPECT_FALSE(bad.ok());
}

TEST(NodeFiltersTest, ResourcesReportEveryShortage) {
  Resources alloc{.milli_cpu = 4000, .memory = 8 << 20, .pods = 2, .scalar = {{"example.com/fpga", 1}}};
  Resources used{.milli_cpu = 3000, .memory = 1 << 20, .pods = 1};
  Resources pod{.milli_cpu = 1000, .memory = 7 << 20, .pods = 1};
  EXPECT_THAT(FilterResources(pod, used, alloc), IsEmpty());
  pod.milli_cpu = 1001;
  pod.memory = (7 << 20) + 1;
  pod.scalar["example.com/fpga"] = 2;
  pod.scalar["example.com/other"] = 1;
  EXPECT_THAT(FilterResources(pod, used, alloc),
              ElementsAre("Insufficient cpu", "Insufficient memory", "Insufficient example.com/fpga",
                          "Insufficient example.com/other"));
  used.pods = 2;
  EXPECT_EQ(FilterResources(Resources{.pods = 1}, used, alloc), std::vector<std::string>{"Too many pods"});
}

// The forms the scheduler calls append to a vector it reuses: they keep what
// is there, add only their own reasons, and say whether the node passes.
TEST(NodeFiltersTest, AppendingFormsKeepEarlierReasons) {
  api::Node node = NodeNamed("n1");
  node.spec.unschedulable = true;
  node.spec.taints.push_back({.key = "gpu", .value = "busy", .effect = api::TaintEffect::kNoSchedule});
  api::Pod pod;
  pod.spec.node_selector.insert_or_assign("zone", "b");
  std::vector<std::string> reasons = {"earlier"};
  EXPECT_FALSE(FilterUnschedulable(pod, node, &reasons));
  EXPECT_FALSE(FilterTaints(pod, node, &reasons));
  StatusOr<bool> affinity = FilterNodeAffinity(pod, node, &reasons);
  ASSERT_TRUE(affinity.ok());
  EXPECT_FALSE(*affinity);
  EXPECT_TRUE(FilterNodeName(pod, node, &reasons));
  Resources alloc{.milli_cpu = 1000, .memory = 1 << 20, .pods = 10};
  EXPECT_TRUE(FilterResources(Resources{.milli_cpu = 500}, Resources{}, alloc, nullptr, &reasons));
  EXPECT_FALSE(FilterResources(Resources{.milli_cpu = 1500}, Resources{}, alloc, nullptr, &reasons));
  EXPECT_THAT(reasons, ElementsAre("earlier", "node(s) were unschedulable", "node(s) had untolerated taint(s)",
                                   "node(s) didn't match Pod's node affinity/selector", "Insufficient cpu"));
}

// With no vector the filters only decide: the same verdict as with one, for
// each kind of shortage alone (the resources filter stops at the first).
TEST(NodeFiltersTest, NullReasonsGiveTheSameVerdict) {
  api::Node node = NodeNamed("n1");
  api::Pod pod;
  EXPECT_TRUE(FilterUnschedulable(pod, node, nullptr));
  EXPECT_TRUE(FilterNodeName(pod, node, nullptr));
  EXPECT_TRUE(FilterTaints(pod, node, nullptr));
  EXPECT_TRUE(*FilterNodeAffinity(pod, node, nullptr));
  node.spec.unschedulable = true;
  node.spec.taints.push_back({.key = "gpu", .value = "busy", .effect = api::TaintEffect::kNoSchedule});
  pod.spec.node_name = "n2";
  pod.spec.node_selector.insert_or_assign("zone", "b");
  EXPECT_FALSE(FilterUnschedulable(pod, node, nullptr));
  EXPECT_FALSE(FilterNodeName(pod, node, nullptr));
  EXPECT_FALSE(FilterTaints(pod, node, nullptr));
  EXPECT_FALSE(*FilterNodeAffinity(pod, node, nullptr));

  const Resources alloc{.milli_cpu = 1000, .memory = 1 << 20, .pods = 2, .scalar = {{"example.com/fpga", 1}}};
  const Resources used{.milli_cpu = 500, .memory = 1 << 19, .pods = 1};
  const std::vector<Resources> pods = {
      Resources{.milli_cpu = 500, .memory = 1 << 19, .pods = 1, .scalar = {{"example.com/fpga", 1}}},  // fits
      Resources{.milli_cpu = 501, .pods = 1},
      Resources{.memory = (1 << 19) + 1, .pods = 1},
      Resources{.pods = 1, .scalar = {{"example.com/fpga", 2}}},
      Resources{.pods = 1, .scalar = {{"example.com/other", 1}}},
  };
  for (size_t i = 0; i < pods.size(); ++i) {
    const bool fits = FilterResources(pods[i], used, alloc).empty();
    EXPECT_EQ(fits, i == 0) << i;
    EXPECT_EQ(FilterResources(pods[i], used, alloc, nullptr, nullptr), fits) << i;
  }
  const Resources full{.milli_cpu = 500, .memory = 1 << 19, .pods = 2};
  EXPECT_FALSE(FilterResources(pods[0], full, alloc, nullptr, nullptr));
}

}  // namespace
}  // namespace dra::sched
