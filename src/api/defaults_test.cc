#include "api/defaults.h"

#include <gtest/gtest.h>

namespace dra::api {
namespace {

TEST(DefaultsTest, RequestsGetModeCountAndTolerationOperator) {
  ResourceClaim claim;
  DeviceRequest exact{.name = "a", .exactly = ExactDeviceRequest{.device_class_name = "c"}};
  exact.exactly->tolerations.push_back({.key = "k"});
  exact.exactly->tolerations.push_back({.key = "k", .operator_ = DeviceTolerationOperator::kExists});
  DeviceRequest all{.name = "b",
                    .exactly = ExactDeviceRequest{.device_class_name = "c", .allocation_mode = AllocationMode::kAll}};
  DeviceRequest counted{.name = "c", .exactly = ExactDeviceRequest{.device_class_name = "c", .count = 3}};
  DeviceRequest unknown{.name = "d",
                        .exactly = ExactDeviceRequest{.device_class_name = "c", .allocation_mode = "Sometimes"}};
  DeviceRequest first{.name = "e"};
  first.first_available.push_back({.name = "x", .device_class_name = "c"});
  first.first_available.push_back({.name = "y", .device_class_name = "c", .count = 2});
  claim.spec.devices.requests = {exact, all, counted, unknown, first};
  claim.status.allocation.emplace();
  claim.status.allocation->devices.results.push_back({.request = "a"});
  claim.status.allocation->devices.results[0].tolerations.push_back({.key = "k"});

  SetDefaults(claim);
  const auto& r = claim.spec.devices.requests;
  EXPECT_TRUE(r[0].exactly->allocation_mode == AllocationMode::kExactCount);
  EXPECT_EQ(r[0].exactly->count, 1);
  EXPECT_TRUE(r[0].exactly->tolerations[0].operator_ == DeviceTolerationOperator::kEqual);
  EXPECT_TRUE(r[0].exactly->tolerations[1].operator_ == DeviceTolerationOperator::kExists);
  EXPECT_TRUE(r[1].exactly->allocation_mode == AllocationMode::kAll);
  EXPECT_EQ(r[1].exactly->count, 0);  // All keeps count 0
  EXPECT_EQ(r[2].exactly->count, 3);
  EXPECT_EQ(r[3].exactly->allocation_mode.text(), "Sometimes");  // left for validation
  EXPECT_EQ(r[3].exactly->count, 0);
  EXPECT_TRUE(r[4].first_available[0].allocation_mode == AllocationMode::kExactCount);
  EXPECT_EQ(r[4].first_available[0].count, 1);
  EXPECT_EQ(r[4].first_available[1].count, 2);
  EXPECT_TRUE(claim.status.allocation->devices.results[0].tolerations[0].operator_ == DeviceTolerationOperator::kEqual);

  ResourceClaim again = claim;
  SetDefaults(again);
  EXPECT_EQ(again, claim);  // idempotent
}

TEST(DefaultsTest, TemplatesAreDefaultedThroughTheObjectVariant) {
  ResourceClaimTemplate t;
  t.spec.spec.devices.requests.push_back({.name = "a", .exactly = ExactDeviceRequest{.device_class_name = "c"}});
  Object object = t;
  SetDefaults(object, "");
  const auto& request = std::get<ResourceClaimTemplate>(object).spec.spec.devices.requests[0];
  EXPECT_EQ(request.exactly->count, 1);
}

TEST(DefaultsTest, TaintsGetTheGivenTimeOnlyWhenUnset) {
  ResourceSlice slice;
  slice.spec.devices.resize(2);
  slice.spec.devices[0].rare.mut().taints = {
      {.key = "a", .effect = DeviceTaintEffect::kNoSchedule},
      {.key = "b", .effect = DeviceTaintEffect::kNone, .time_added = "2020-01-01T00:00:00Z"}};
  SetDefaults(slice, "2026-07-24T10:00:00Z");
  EXPECT_EQ(slice.spec.devices[0].rare->taints[0].time_added, "2026-07-24T10:00:00Z");
  EXPECT_EQ(slice.spec.devices[0].rare->taints[1].time_added, "2020-01-01T00:00:00Z");
  EXPECT_FALSE(slice.spec.devices[1].rare.allocated());  // untouched

  ResourceSlice no_time = ResourceSlice{};
  no_time.spec.devices.resize(1);
  no_time.spec.devices[0].rare.mut().taints = {{.key = "a"}};
  SetDefaults(no_time, "");
  EXPECT_EQ(no_time.spec.devices[0].rare->taints[0].time_added, "");

  Object rule = DeviceTaintRule{};
  SetDefaults(rule, "2026-07-24T10:00:00Z");
  EXPECT_EQ(std::get<DeviceTaintRule>(rule).spec.taint.time_added, "2026-07-24T10:00:00Z");

  Object pod = Pod{};
  SetDefaults(pod, "2026-07-24T10:00:00Z");
  EXPECT_EQ(std::get<Pod>(pod), Pod{});
}

}  // namespace
}  // namespace dra::api
