#include "alloc/result.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

api::NodeSelectorTerm Term(std::string key, std::string value) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back(
      {.key = std::move(key), .operator_ = api::NodeSelectorOperator::kIn, .values = {std::move(value)}});
  return t;
}

TEST(NodeSelectorTest, NodeNamePinsTheNode) {
  api::ResourceSlice local;
  local.spec.node_name = "worker";
  api::Device d{.name = "d"};
  std::vector<TakenDevice> taken{{&local, &d}};
  auto sel = BuildNodeSelector(taken, "node-1", "c");
  ASSERT_TRUE(sel.ok() && sel->has_value());
  ASSERT_EQ((*sel)->node_selector_terms.size(), 1u);
  EXPECT_EQ((*sel)->node_selector_terms[0].match_fields[0].values, std::vector<std::string>{"node-1"});
}

TEST(NodeSelectorTest, MergesSingleTermsAndSkipsDuplicates) {
  api::ResourceSlice a, b, all;
  a.spec.node_selector = api::NodeSelector{.node_selector_terms = {Term("zone", "x")}};
  b.spec.node_selector = api::NodeSelector{.node_selector_terms = {Term("zone", "x")}};
  all.spec.all_nodes = true;
  api::Device d{.name = "d"};
  std::vector<TakenDevice> taken{{&a, &d}, {&b, &d}, {&all, &d}};
  auto sel = BuildNodeSelector(taken, "node-1", "c");
  ASSERT_TRUE(sel.ok() && sel->has_value());
  EXPECT_EQ((*sel)->node_selector_terms[0].match_expressions.size(), 1u);
}

TEST(NodeSelectorTest, AllNodesOnlyMeansNoSelector) {
  api::ResourceSlice all;
  all.spec.all_nodes = true;
  api::Device d{.name = "d"};
  std::vector<TakenDevice> taken{{&all, &d}};
  auto sel = BuildNodeSelector(taken, "node-1", "c");
  ASSERT_TRUE(sel.ok());
  EXPECT_FALSE(sel->has_value());
}

TEST(NodeSelectorTest, SeveralTermsAreAnError) {
  api::ResourceSlice s;
  s.spec.node_selector = api::NodeSelector{.node_selector_terms = {Term("a", "1"), Term("b", "2")}};
  api::Device d{.name = "d"};
  std::vector<TakenDevice> taken{{&s, &d}};
  auto sel = BuildNodeSelector(taken, "n", "claim-0");
  ASSERT_FALSE(sel.ok());
  EXPECT_NE(sel.status().message().find("with 2 terms"), std::string::npos);
}

TEST(ConfigTest, ClassConfigCoveringAllRequestsMeansAll) {
  api::DeviceClass cls;
  cls.spec.config.push_back({.opaque = api::OpaqueDeviceConfiguration{.driver = "d"}});
  api::ResourceClaim claim;
  claim.spec.devices.config.push_back({.requests = {"r2"}, .opaque = api::OpaqueDeviceConfiguration{.driver = "c"}});
  claim.spec.devices.config.push_back({.requests = {"r9"}, .opaque = api::OpaqueDeviceConfiguration{.driver = "x"}});
  std::vector<AllocatedRequest> requests{{"r1", "", &cls}, {"r2", "s", &cls}};
  auto config = BuildConfig(claim, requests);
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config[0].source, api::AllocationConfigSource::kFromClass);
  EXPECT_TRUE(config[0].requests.empty());  // r1 and r2/s = every request
  EXPECT_EQ(config[1].requests, std::vector<std::string>{"r2"});
}

}  // namespace
}  // namespace dra::alloc
