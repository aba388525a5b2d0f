#include "sched/resources.h"

#include <gtest/gtest.h>

namespace dra::sched {
namespace {

api::Quantity Q(std::string_view text) { return *api::Quantity::Parse(text); }

api::Container C(std::string cpu, std::string memory, bool sidecar = false) {
  api::Container c;
  if (!cpu.empty()) c.resources.requests.insert_or_assign("cpu", Q(cpu));
  if (!memory.empty()) c.resources.requests.insert_or_assign("memory", Q(memory));
  if (sidecar) c.restart_policy = api::ContainerRestartPolicy::kAlways;
  return c;
}

TEST(ResourcesTest, SumsContainers) {
  api::Pod pod;
  pod.spec.containers = {C("500m", "1Gi"), C("1", "")};
  Resources r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 1500);
  EXPECT_EQ(r.memory, int64_t{1} << 30);
  EXPECT_EQ(r.pods, 1);
}

TEST(ResourcesTest, InitContainersTakeTheMaximum) {
  api::Pod pod;
  pod.spec.containers = {C("1", "1Gi")};
  pod.spec.init_containers = {C("3", "100Mi"), C("2", "2Gi")};
  Resources r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 3000);
  EXPECT_EQ(r.memory, int64_t{2} << 30);
}

TEST(ResourcesTest, SidecarsRunAlongsideLaterInitAndRegularContainers) {
  api::Pod pod;
  pod.spec.containers = {C("1", "")};
  // sidecar 500m, then an init container of 2: it needs 2 + 0.5 while running.
  pod.spec.init_containers = {C("500m", "", /*sidecar=*/true), C("2", "")};
  EXPECT_EQ(PodRequests(pod).milli_cpu, 2500);
  // An init container before the sidecar does not see it.
  pod.spec.init_containers = {C("2", ""), C("500m", "", true)};
  EXPECT_EQ(PodRequests(pod).milli_cpu, 2000);
  // Small init: the regular containers + sidecar win.
  pod.spec.init_containers = {C("500m", "", true), C("100m", "")};
  EXPECT_EQ(PodRequests(pod).milli_cpu, 1500);
}

TEST(ResourcesTest, LimitsDefaultRequestsAndOverheadIsAdded) {
  api::Pod pod;
  api::Container c;
  c.resources.limits.insert_or_assign("nvidia.com/gpu", Q("2"));
  c.resources.limits.insert_or_assign("cpu", Q("1"));
  c.resources.requests.insert_or_assign("cpu", Q("250m"));
  pod.spec.containers = {c};
  pod.spec.overhead.insert_or_assign("cpu", Q("100m"));
  Resources r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 350);
  EXPECT_EQ(r.Get("nvidia.com/gpu"), 2);
}

TEST(ResourcesTest, NonZeroFillsMissingCpuAndMemoryPerContainer) {
  api::Pod pod;
  pod.spec.containers = {C("", ""), C("1", "")};
  Resources r = PodRequests(pod, /*non_zero=*/true);
  EXPECT_EQ(r.milli_cpu, 1100);
  EXPECT_EQ(r.memory, 2 * kDefaultMemoryRequest);
  EXPECT_EQ(PodRequests(pod).memory, 0);
}

}  // namespace
}  // namespace dra::sched
