#include "alloc/best_fit.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

using quantity::Quantity;

Quantity Q(const char* text) { return *Quantity::Parse(text); }

api::Device WithCapacity(std::vector<std::pair<const char*, const char*>> capacities) {
  api::Device d;
  for (auto& [name, value] : capacities) d.capacity.insert_or_assign(name, api::DeviceCapacity{.value = Q(value)});
  return d;
}

TEST(DeviceSizerTest, MeanShareOfTheLargestPerCapacity) {
  api::Device big = WithCapacity({{"memory", "80Gi"}, {"sm", "132"}, {"encoders", "0"}});
  api::Device half = WithCapacity({{"memory", "40Gi"}, {"sm", "33"}, {"encoders", "0"}});
  api::Device none;
  DeviceSizer sizer;
  for (const api::Device* d : {&big, &half, &none}) sizer.Add(*d);
  EXPECT_DOUBLE_EQ(sizer.Size(big), 1.0);
  EXPECT_DOUBLE_EQ(sizer.Size(half), (0.5 + 0.25) / 2);  // encoders are 0 everywhere: left out
  EXPECT_DOUBLE_EQ(sizer.Size(none), 0.0);
  // A capacity the sizer never saw does not count.
  EXPECT_DOUBLE_EQ(sizer.Size(WithCapacity({{"memory", "20Gi"}, {"other", "5"}})), 0.25);
}

TEST(FreeFractionTest, MeanOverPositiveCounters) {
  CounterAmounts total{{"memory", Q("40Gi")}, {"slice-0", Q("1")}, {"none", Q("0")}};
  EXPECT_DOUBLE_EQ(FreeFraction(total, total), 1.0);
  EXPECT_DOUBLE_EQ(FreeFraction(total, {{"memory", Q("10Gi")}, {"slice-0", Q("1")}}), (0.25 + 1) / 2);
  EXPECT_DOUBLE_EQ(FreeFraction(total, {{"memory", Q("10Gi")}}), 0.25 / 2);  // missing: nothing left
  EXPECT_DOUBLE_EQ(FreeFraction(total, {{"memory", Q("-1")}, {"slice-0", Q("0")}}), 0.0);
  EXPECT_DOUBLE_EQ(FreeFraction({}, {}), 1.0);
}

TEST(LongestFreeSlotRunsTest, Cases) {
  struct Case {
    const char* name;
    CounterAmounts left;
    int64_t want;
  };
  const Case cases[] = {
      {.name = "all free", .left = {{"s0", Q("1")}, {"s1", Q("1")}, {"s2", Q("1")}}, .want = 3},
      {.name = "middle taken", .left = {{"s0", Q("1")}, {"s1", Q("0")}, {"s2", Q("1")}, {"s3", Q("1")}}, .want = 2},
      {.name = "numeric not lexical order",
       .left = {{"s9", Q("1")}, {"s10", Q("1")}, {"s11", Q("1")}, {"s2", Q("1")}},
       .want = 3},
      {.name = "gap in numbers breaks a run", .left = {{"s0", Q("1")}, {"s2", Q("1")}}, .want = 1},
      {.name = "a lone slot is not a row", .left = {{"s0", Q("1")}, {"memory", Q("5")}}, .want = 0},
      {.name = "stems add up", .left = {{"a0", Q("1")}, {"a1", Q("1")}, {"b0", Q("1")}, {"b1", Q("0")}}, .want = 3},
      {.name = "all digits or no digits are not slots",
       .left = {{"7", Q("1")}, {"8", Q("1")}, {"x", Q("1")}},
       .want = 0},
      {.name = "negative left is taken", .left = {{"s0", Q("-1")}, {"s1", Q("1")}}, .want = 1},
      {.name = "number overflow ignored",
       .left = {{"s99999999999999999999999", Q("1")}, {"s1", Q("1")}, {"s2", Q("1")}},
       .want = 2},
  };
  for (const Case& c : cases) EXPECT_EQ(LongestFreeSlotRuns(c.left), c.want) << c.name;
}

TEST(DeviceChoiceTest, Names) {
  EXPECT_EQ(DeviceChoiceName(DeviceChoice::kFirstFit), "first-fit");
  EXPECT_EQ(DeviceChoiceName(DeviceChoice::kBestFit), "best-fit");
}

}  // namespace
}  // namespace dra::alloc
