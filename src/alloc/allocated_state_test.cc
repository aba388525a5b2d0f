#include "alloc/allocated_state.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

api::DeviceRequestAllocationResult Result(std::string device) {
  return {.request = "r", .driver = "d", .pool = "p", .device = std::move(device)};
}

TEST(AllocatedStateTest, AdminAccessResultsNeverCount) {
  AllocatedState state;
  auto r = Result("dev-0");
  r.admin_access = true;
  ASSERT_TRUE(state.AddResult(r, Features{.consumable_capacity = true}).ok());
  EXPECT_TRUE(state.devices.empty());
  EXPECT_FALSE(state.InUseForCounters("d/p/dev-0"));
}

TEST(AllocatedStateTest, SharedResultsAggregateCapacityWithTheFeature) {
  Features on{.consumable_capacity = true};
  AllocatedState state;
  for (const char* id : {"a", "b"}) {
    auto r = Result("dev-0");
    r.share_id = id;
    r.consumed_capacity.insert_or_assign("memory", *quantity::Quantity::Parse("1Gi"));
    ASSERT_TRUE(state.AddResult(r, on).ok());
  }
  EXPECT_TRUE(state.devices.empty());
  EXPECT_EQ(state.shared_device_ids.size(), 2u);
  EXPECT_EQ(*state.aggregated_capacity.at("d/p/dev-0").find("memory"), *quantity::Quantity::Parse("2Gi"));
  EXPECT_TRUE(state.InUseForCounters("d/p/dev-0"));
  EXPECT_FALSE(state.InUseForCounters("d/p/dev"));
}

TEST(AllocatedStateTest, SharedResultsAreExclusiveWithoutTheFeature) {
  AllocatedState state;
  auto r = Result("dev-0");
  r.share_id = "a";
  ASSERT_TRUE(state.AddResult(r, Features{}).ok());
  EXPECT_TRUE(state.devices.count("d/p/dev-0"));
  EXPECT_TRUE(state.shared_device_ids.empty());
}

TEST(AllocatedStateTest, AddClaimsSkipsUnallocatedClaims) {
  api::ResourceClaim allocated, pending;
  allocated.status.allocation.emplace();
  allocated.status.allocation->devices.results.push_back(Result("dev-1"));
  std::vector<const api::ResourceClaim*> claims{&allocated, &pending};
  AllocatedState state;
  ASSERT_TRUE(state.AddClaims(claims, Features{}).ok());
  EXPECT_EQ(state.devices, (std::set<std::string, std::less<>>{"d/p/dev-1"}));
}

}  // namespace
}  // namespace dra::alloc
