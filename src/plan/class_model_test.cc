// The class model on counts worked out by hand: 4-GPU nodes (32 cpu, 128Gi)
// and one-GPU pods (1 cpu, 4Gi): four fit a node, by its GPUs.
#include "plan/class_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "plan/plan_testing.h"
#include "sched/policy.h"

namespace dra::plan {
namespace {

using plan_testing::Group;
using plan_testing::kClass;
using plan_testing::Pod;
using plan_testing::Template;

class ClassModelTest : public ::testing::Test {
 protected:
  void Load(const std::string& text) {
    manifest::LoadResult loaded;
    manifest::Loader(manifest::LoadOptions{}).LoadText(text, "pods.yaml", &loaded);
    ASSERT_EQ(loaded.error_count(), 0u) << (loaded.messages.empty() ? "" : loaded.messages[0].ToString());
    std::vector<const api::Object*> objects;
    for (manifest::LoadedObject& o : loaded.objects) {
      api::SetDefaults(o.object, "2026-12-01T08:00:00Z");
      objects.push_back(&o.object);
    }
    pending_ = sched::NewSnapshot(objects, api::FeatureGates::Defaults());
    std::vector<manifest::LoadMessage> messages;
    ParseNodeGroups(Group("gpu4", 4, 32, "128Gi", 3, 10), "groups.yaml", api::FeatureGates::Defaults(), &groups_,
                    &messages);
    ASSERT_TRUE(messages.empty()) << messages[0].ToString();
    auto policy = sched::NewPolicy("kube");
    ASSERT_TRUE(policy.ok());
    policy_ = std::move(*policy);
  }

  std::optional<ClassModel> Make() { return ClassModel::Make(pending_, groups_, {.policy = policy_.get()}); }

  sched::Snapshot pending_;
  std::vector<NodeGroup> groups_;
  std::unique_ptr<sched::ScorePolicy> policy_;
};

TEST_F(ClassModelTest, TenEqualPodsAreOneClassAndFourFillANode) {
  std::string text = std::string(kClass) + Template("one", 1);
  for (int i = 0; i < 10; ++i) text += Pod("p" + std::to_string(i), "one", 1, "4Gi", i);
  Load(text);
  std::optional<ClassModel> m = Make();
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->classes().size(), 1u);
  EXPECT_EQ(m->classes()[0].pods.size(), 10u);
  EXPECT_EQ(*m->Fill(0, {}, 0), 4);
  EXPECT_EQ(*m->Fill(0, {{0, 2}}, 0), 2);
  EXPECT_EQ(*m->Fill(0, {{0, 4}}, 0), 0);
  EXPECT_EQ(*m->DevicesPerPod(0, 0), 1);
  EXPECT_EQ(m->DevicesPerNode(0), 4);

  // Ten pods: two full nodes and one with two; with at most two nodes, eight.
  StatusOr<ClassModel::Estimate> e = m->EstimateGroup(0, std::vector<int64_t>{10}, 10);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->nodes, 3);
  EXPECT_EQ(e->placed, std::vector<int64_t>{10});
  ASSERT_EQ(e->runs.size(), 2u);
  EXPECT_EQ(e->runs[0].nodes, 2);
  EXPECT_EQ(e->runs[0].content, (NodeContent{{0, 4}}));
  EXPECT_EQ(e->runs[1].content, (NodeContent{{0, 2}}));
  e = m->EstimateGroup(0, std::vector<int64_t>{10}, 2);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->nodes, 2);
  EXPECT_EQ(e->placed, std::vector<int64_t>{8});

  // Six pods first fit onto three empty nodes: one full, one with two, one
  // untouched, in that order.
  std::vector<NodeRun> runs = {{{}, 3}};
  int64_t count = 6;
  EXPECT_EQ(*m->FirstFit(0, 0, &count, &runs), 6);
  EXPECT_EQ(count, 0);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].content, (NodeContent{{0, 4}}));
  EXPECT_EQ(runs[0].nodes, 1);
  EXPECT_EQ(runs[1].content, (NodeContent{{0, 2}}));
  EXPECT_EQ(runs[2].content, NodeContent{});
  EXPECT_EQ(runs[2].nodes, 1);

  // Two nodes hold eight of the ten.
  EXPECT_EQ(*m->Pack(std::vector<int64_t>{2}, std::vector<int64_t>{10}), std::vector<int64_t>{8});
}

TEST_F(ClassModelTest, PodsDifferingInRequestsAreTwoClasses) {
  Load(std::string(kClass) + Template("one", 1) + Pod("a", "one", 1, "4Gi", 1) + Pod("b", "one", 2, "4Gi", 2) +
       Pod("c", "one", 1, "4Gi", 3));
  std::optional<ClassModel> m = Make();
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->classes().size(), 2u);
  EXPECT_EQ(m->classes()[0].pods, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(m->classes()[1].pods, (std::vector<size_t>{1}));
}

// A claim named by the pod may be shared with others: the pods are not
// independent, and the model does not apply.
TEST_F(ClassModelTest, ANamedClaimTurnsTheModelOff) {
  Load(std::string(kClass) +
       "apiVersion: v1\nkind: Pod\nmetadata: {name: shared, namespace: default}\nspec:\n  resourceClaims:\n"
       "  - {name: gpu, resourceClaimName: team-gpu}\n  containers:\n  - name: main\n    image: x\n"
       "    resources:\n      claims: [{name: gpu}]\n");
  EXPECT_FALSE(Make().has_value());
}

}  // namespace
}  // namespace dra::plan
