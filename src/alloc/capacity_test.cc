#include "alloc/capacity.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

using quantity::Quantity;
Quantity Q(const char* s) { return *Quantity::Parse(s); }

api::Device DeviceWith(const char* value, api::CapacityRequestPolicy policy, bool with_policy = true) {
  api::Device d{.name = "d"};
  api::DeviceCapacity cap{.value = Q(value)};
  if (with_policy) cap.request_policy = api::Box<api::CapacityRequestPolicy>(std::move(policy));
  d.capacity.insert_or_assign("memory", std::move(cap));
  return d;
}

api::CapacityRequirements Req(const char* amount) {
  api::CapacityRequirements r;
  r.requests.insert_or_assign("memory", Q(amount));
  return r;
}

TEST(CapacityTest, UnrequestedCapacityConsumesDefaultElseEverything) {
  api::Device whole = DeviceWith("8Gi", {}, false);
  auto fit = CheckCapacity(std::nullopt, whole, nullptr, nullptr);
  ASSERT_TRUE(fit.ok() && fit->has_value());
  EXPECT_EQ(*(*fit)->find("memory"), Q("8Gi"));
  api::Device def = DeviceWith("8Gi", {.default_ = Q("1Gi")});
  fit = CheckCapacity(std::nullopt, def, nullptr, nullptr);
  EXPECT_EQ(*(*fit)->find("memory"), Q("1Gi"));
}

TEST(CapacityTest, RangeRoundsUpToStep) {
  api::Device d = DeviceWith(
      "8Gi", {.valid_range = api::CapacityRequestPolicyRange{.min = Q("1Gi"), .max = Q("4Gi"), .step = Q("1Gi")}});
  auto fit = CheckCapacity(Req("1500Mi"), d, nullptr, nullptr);
  ASSERT_TRUE(fit.ok() && fit->has_value());
  EXPECT_EQ(*(*fit)->find("memory"), Q("2Gi"));
  fit = CheckCapacity(Req("5Gi"), d, nullptr, nullptr);  // above max
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->has_value());
}

TEST(CapacityTest, ValidValuesPickFirstLargeEnough) {
  api::Device d = DeviceWith("8Gi", {.valid_values = {Q("1Gi"), Q("4Gi")}});
  auto fit = CheckCapacity(Req("2Gi"), d, nullptr, nullptr);
  EXPECT_EQ(*(*fit)->find("memory"), Q("4Gi"));
}

TEST(CapacityTest, CountsAllocatedAndAllocating) {
  api::Device d = DeviceWith("8Gi", {}, false);
  CapacityAmounts used{{"memory", Q("6Gi")}};
  CapacityAmounts taking{{"memory", Q("1Gi")}};
  auto fit = CheckCapacity(Req("1Gi"), d, &used, &taking);
  ASSERT_TRUE(fit.ok() && fit->has_value());
  fit = CheckCapacity(Req("2Gi"), d, &used, &taking);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->has_value());
}

TEST(CapacityTest, UnknownRequestedCapacitySkipsTheDevice) {
  // Another device may define it (upstream 1.37: skip, not abort).
  api::Device d = DeviceWith("8Gi", {}, false);
  api::CapacityRequirements r;
  r.requests.insert_or_assign("cores", Q("1"));
  auto fit = CheckCapacity(r, d, nullptr, nullptr);
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_FALSE(fit->has_value());
}

TEST(CapacityTest, FractionalRangeRoundsInMilliUnitsWithTheGate) {
  api::CapacityRequestPolicyRange range{.min = Q("250m"), .max = std::nullopt, .step = Q("250m")};
  api::Device d = DeviceWith("4", {.valid_range = range});
  // Whole units without DRAFractionalCapacityRange: 300m -> Value() 1.
  auto whole = CheckCapacity(Req("300m"), d, nullptr, nullptr, /*fractional=*/false);
  ASSERT_TRUE(whole.ok() && whole->has_value());
  EXPECT_EQ((*whole)->find("memory")->String(), "1");
  // Milli units with it: 300m -> the next step from 250m, 500m.
  auto milli = CheckCapacity(Req("300m"), d, nullptr, nullptr, /*fractional=*/true);
  ASSERT_TRUE(milli.ok() && milli->has_value());
  EXPECT_EQ((*milli)->find("memory")->String(), "500m");
  // A whole result is a plain integer quantity.
  auto one = CheckCapacity(Req("800m"), d, nullptr, nullptr, /*fractional=*/true);
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->find("memory")->String(), "1");
}

TEST(CapacityTest, UnrepresentableRequestIsAnError) {
  api::CapacityRequestPolicyRange range{.min = Q("1"), .max = std::nullopt, .step = Q("1")};
  api::Device d = DeviceWith("8", {.valid_range = range});
  auto fit = CheckCapacity(Req("100E"), d, nullptr, nullptr);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("not representable"), std::string::npos) << fit.status().ToString();
}

TEST(TaintsTest, NoScheduleNeedsToleration) {
  api::Device d{.name = "d"};
  d.rare.mut().taints.push_back({.key = "k", .value = "v", .effect = api::DeviceTaintEffect::kNoSchedule});
  EXPECT_FALSE(TaintsAllow(d, {}));
  std::vector<api::DeviceToleration> equal{
      {.key = "k", .operator_ = api::DeviceTolerationOperator::kEqual, .value = "v"}};
  EXPECT_TRUE(TaintsAllow(d, equal));
  std::vector<api::DeviceToleration> wrong{{.key = "k", .value = "w"}};
  EXPECT_FALSE(TaintsAllow(d, wrong));
  std::vector<api::DeviceToleration> exists{{.operator_ = api::DeviceTolerationOperator::kExists}};
  EXPECT_TRUE(TaintsAllow(d, exists));
  std::vector<api::DeviceToleration> other_effect{
      {.operator_ = api::DeviceTolerationOperator::kExists, .effect = api::DeviceTaintEffect::kNoExecute}};
  EXPECT_FALSE(TaintsAllow(d, other_effect));
}

TEST(TaintsTest, NoneEffectNeverBlocks) {
  api::Device d{.name = "d"};
  d.rare.mut().taints.push_back({.key = "k", .effect = api::DeviceTaintEffect::kNone});
  EXPECT_TRUE(TaintsAllow(d, {}));
}

}  // namespace
}  // namespace dra::alloc
