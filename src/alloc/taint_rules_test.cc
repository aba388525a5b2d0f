#include "alloc/taint_rules.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

api::ResourceSlice Slice(std::string driver, std::string pool, std::vector<std::string> devices) {
  api::ResourceSlice s;
  s.metadata.name = driver + "-" + pool;
  s.spec.driver = std::move(driver);
  s.spec.pool = {.name = std::move(pool), .generation = 1, .resource_slice_count = 1};
  for (std::string& d : devices) s.spec.devices.push_back(api::Device{.name = std::move(d)});
  return s;
}

api::DeviceTaintRule Rule(std::optional<api::DeviceTaintSelector> selector, std::string key) {
  api::DeviceTaintRule r;
  r.metadata.name = key;
  r.spec.device_selector = std::move(selector);
  r.spec.taint = {.key = std::move(key), .value = "", .effect = api::DeviceTaintEffect::kNoSchedule, .time_added = ""};
  return r;
}

std::vector<std::string> TaintKeys(const api::Device& d) {
  std::vector<std::string> keys;
  for (const api::DeviceTaint& t : d.rare->taints) keys.push_back(t.key);
  return keys;
}

TEST(TaintRulesTest, SelectorFieldsFilterAndUnsetMatchesNothing) {
  api::DeviceTaintRuleSpec spec;
  EXPECT_FALSE(TaintRuleMatches(spec, "d", "p", "x"));  // no selector: nothing
  spec.device_selector = api::DeviceTaintSelector{};
  EXPECT_TRUE(TaintRuleMatches(spec, "d", "p", "x"));  // empty selector: everything
  spec.device_selector->driver = "d";
  spec.device_selector->device = "x";
  EXPECT_TRUE(TaintRuleMatches(spec, "d", "p", "x"));
  EXPECT_FALSE(TaintRuleMatches(spec, "d", "p", "y"));
  EXPECT_FALSE(TaintRuleMatches(spec, "e", "p", "x"));
  spec.device_selector->pool = "q";
  EXPECT_FALSE(TaintRuleMatches(spec, "d", "p", "x"));
}

TEST(TaintRulesTest, AppendsTaintsInRuleOrderOnlyWithBothGates) {
  api::ResourceSlice a = Slice("gpu.example.com", "node-1", {"gpu-0", "gpu-1"});
  a.spec.devices[0].rare.mut().taints.push_back(
      {.key = "driver", .value = "", .effect = "NoExecute", .time_added = ""});
  api::ResourceSlice b = Slice("nic.example.com", "node-1", {"nic-0"});
  api::DeviceTaintRule all_gpus = Rule(api::DeviceTaintSelector{.driver = "gpu.example.com"}, "maintenance");
  api::DeviceTaintRule one = Rule(api::DeviceTaintSelector{.device = "gpu-0"}, "broken");
  api::DeviceTaintRule none = Rule(std::nullopt, "never");
  std::vector<const api::ResourceSlice*> slices = {&a, &b};
  std::vector<const api::DeviceTaintRule*> rules = {&all_gpus, &one, &none};

  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults("1.37");
  ASSERT_TRUE(gates.ok());
  ASSERT_TRUE(gates->Set(api::Gate::kDRADeviceTaints, true).ok());
  ASSERT_TRUE(gates->Set(api::Gate::kDRADeviceTaintRules, true).ok());
  std::vector<api::ResourceSlice> out = ApplyDeviceTaintRules(slices, rules, *gates);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(TaintKeys(out[0].spec.devices[0]), (std::vector<std::string>{"driver", "maintenance", "broken"}));
  EXPECT_EQ(TaintKeys(out[0].spec.devices[1]), (std::vector<std::string>{"maintenance"}));
  EXPECT_TRUE(TaintKeys(out[1].spec.devices[0]).empty());
  // The input is not modified.
  EXPECT_EQ(TaintKeys(a.spec.devices[1]), std::vector<std::string>{});

  ASSERT_TRUE(gates->Set(api::Gate::kDRADeviceTaintRules, false).ok());
  out = ApplyDeviceTaintRules(slices, rules, *gates);
  EXPECT_EQ(out[0], a);
  EXPECT_EQ(out[1], b);
  ASSERT_TRUE(gates->Set(api::Gate::kDRADeviceTaintRules, true).ok());
  ASSERT_TRUE(gates->Set(api::Gate::kDRADeviceTaints, false).ok());
  out = ApplyDeviceTaintRules(slices, rules, *gates);
  EXPECT_EQ(out[0], a);
}

}  // namespace
}  // namespace dra::alloc
