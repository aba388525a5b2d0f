#include "sched/policy.h"

#include <gtest/gtest.h>

namespace dra::sched {
namespace {

NodeState Node(int64_t cpu, int64_t mem, int64_t used_cpu, int64_t used_mem) {
  NodeState n;
  n.allocatable = {.milli_cpu = cpu, .memory = mem, .pods = 110};
  n.requested = {.milli_cpu = used_cpu, .memory = used_mem};
  n.non_zero_requested = n.requested;
  return n;
}

TEST(PolicyTest, LeastAllocatedAveragesCpuAndMemory) {
  NodeState n = Node(4000, 1000, 1000, 0);
  PodFit fit{.requests = {.milli_cpu = 1000, .memory = 500}, .non_zero_requests = {.milli_cpu = 1000, .memory = 500}};
  // cpu (4000-2000)*100/4000 = 50, memory (1000-500)*100/1000 = 50.
  EXPECT_EQ(LeastAllocatedScore(n, fit), 50);
  fit.non_zero_requests.memory = 1001;  // over capacity -> 0 for memory
  EXPECT_EQ(LeastAllocatedScore(n, fit), 25);
}

TEST(PolicyTest, BalancedAllocationPenalisesSkew) {
  NodeState n = Node(4000, 1000, 0, 0);
  PodFit fit{.requests = {.milli_cpu = 2000, .memory = 100}};
  // fractions 0.5 and 0.1: std = 0.2 -> 80.
  EXPECT_EQ(BalancedAllocationScore(n, fit), 80);
  fit.requests = {};
  EXPECT_EQ(BalancedAllocationScore(n, fit), 0);  // PreScore skips
}

TEST(PolicyTest, DraScoreIsNormalisedToTheBestNode) {
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 7, .dra_max_raw_score = 8}), 87);
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 8, .dra_max_raw_score = 8}), 100);
  EXPECT_EQ(DraNormalizedScore({.dra_raw_score = 0, .dra_max_raw_score = 0}), 0);
}

TEST(PolicyTest, MostAllocatedCountsDevices) {
  NodeState n = Node(4000, 1000, 1000, 500);
  n.devices = 8;
  n.devices_in_use = 2;
  PodFit fit{.non_zero_requests = {.milli_cpu = 1000, .memory = 0}, .devices_taken = 2};
  // cpu 50, memory 50, devices 4/8 = 50.
  EXPECT_EQ(MostAllocatedScore(n, fit), 50);
  n.devices = 0;
  EXPECT_EQ(MostAllocatedScore(n, fit), 50);
}

TEST(PolicyTest, PoliciesByName) {
  auto kube = NewPolicy("kube");
  ASSERT_TRUE(kube.ok());
  EXPECT_EQ((*kube)->name(), "kube");
  NodeState n = Node(4000, 1000, 0, 0);
  PodFit fit{.requests = {.milli_cpu = 2000, .memory = 100},
             .non_zero_requests = {.milli_cpu = 2000, .memory = 100},
             .dra_raw_score = 8,
             .dra_max_raw_score = 8};
  // least (50 + 90) / 2 = 70, balanced 80, dra 100.
  EXPECT_EQ((*kube)->Score(n, api::Pod{}, fit), 250);
  auto binpack = NewPolicy("binpack");
  ASSERT_TRUE(binpack.ok());
  EXPECT_EQ((*binpack)->Score(n, api::Pod{}, fit), 30);  // (50 + 10) / 2
  auto bad = NewPolicy("spread");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dra::sched
