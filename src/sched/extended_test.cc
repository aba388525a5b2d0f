#include "sched/extended.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dra::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

api::Quantity Q(std::string_view text) { return *api::Quantity::Parse(text); }

api::DeviceClass Class(std::string name, std::optional<std::string> resource = std::nullopt,
                       std::string created = "2026-01-01T00:00:00Z") {
  api::DeviceClass c;
  c.metadata.name = std::move(name);
  c.metadata.creation_timestamp = std::move(created);
  c.spec.extended_resource_name = std::move(resource);
  return c;
}

TEST(ExtendedTest, DraExtendedResourceNames) {
  EXPECT_TRUE(IsDraExtendedResourceName("nvidia.com/gpu"));
  EXPECT_TRUE(IsDraExtendedResourceName("deviceclass.resource.kubernetes.io/gpu"));
  EXPECT_FALSE(IsDraExtendedResourceName("cpu"));
  EXPECT_FALSE(IsDraExtendedResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsDraExtendedResourceName("kubernetes.io/something"));
  EXPECT_FALSE(IsDraExtendedResourceName("requests.example.com/gpu"));
}

TEST(ExtendedTest, ClassesNewestThenSmallestNameWin) {
  std::vector<api::DeviceClass> classes = {
      Class("old", "example.com/gpu", "2026-01-01T00:00:00Z"),
      Class("new", "example.com/gpu", "2026-02-01T00:00:00Z"),
      Class("b", "example.com/nic", "2026-01-01T00:00:00Z"),
      Class("a", "example.com/nic", "2026-01-01T00:00:00Z"),
  };
  ExtendedResourceClasses resolver(classes, /*enabled=*/true);
  ASSERT_NE(resolver.Find("example.com/gpu"), nullptr);
  EXPECT_EQ(resolver.Find("example.com/gpu")->metadata.name, "new");
  EXPECT_EQ(resolver.Find("example.com/nic")->metadata.name, "a");
  EXPECT_EQ(resolver.Find("deviceclass.resource.kubernetes.io/old")->metadata.name, "old");
  EXPECT_EQ(resolver.Find("example.com/fpga"), nullptr);
  EXPECT_TRUE(ExtendedResourceClasses(classes, /*enabled=*/false).empty());
}

TEST(ExtendedTest, ServedByDraOnlyWhereAllocatableHasNone) {
  std::vector<api::DeviceClass> classes = {Class("gpu", "example.com/gpu")};
  ExtendedResourceClasses resolver(classes, true);
  Resources pod{.scalar = {{"example.com/gpu", 2}, {"example.com/fpga", 0}}};
  EXPECT_THAT(ResourcesServedByDra(pod, Resources{}, resolver).resources, ElementsAre("example.com/gpu"));
  EXPECT_THAT(ResourcesServedByDra(pod, Resources{.scalar = {{"example.com/gpu", 0}}}, resolver).resources,
              ElementsAre("example.com/gpu"));
  // A device plugin lists it: NodeResourcesFit's business.
  EXPECT_THAT(ResourcesServedByDra(pod, Resources{.scalar = {{"example.com/gpu", 1}}}, resolver).resources, IsEmpty());
  // Not listed and not mapped.
  Resources fpga{.scalar = {{"example.com/fpga", 1}}};
  EXPECT_TRUE(ResourcesServedByDra(fpga, Resources{}, resolver).cannot_fit);
  EXPECT_FALSE(ResourcesServedByDra(fpga, Resources{.scalar = {{"example.com/fpga", 0}}}, resolver).cannot_fit);
  EXPECT_TRUE(NeedsExtendedResourceClaim(pod, resolver));
  EXPECT_FALSE(NeedsExtendedResourceClaim(fpga, resolver));
}

api::Container Container(std::string name, std::vector<std::pair<std::string, std::string>> limits,
                         bool sidecar = false) {
  api::Container c;
  c.name = std::move(name);
  for (auto& [r, q] : limits) c.resources.limits.insert_or_assign(r, Q(q));
  if (sidecar) c.restart_policy = api::ContainerRestartPolicy::kAlways;
  return c;
}

std::vector<std::string> Requests(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const api::DeviceRequest& d : r.requests) {
    out.push_back(d.name + "=" + d.exactly->device_class_name + "x" + std::to_string(d.exactly->count));
  }
  return out;
}
std::vector<std::string> Mappings(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const auto& m : r.mappings) out.push_back(m.container_name + "/" + m.resource_name + "->" + m.request_name);
  return out;
}

TEST(ExtendedTest, RequestsPerContainerAndResource) {
  std::vector<api::DeviceClass> classes = {Class("gpu", "example.com/gpu"), Class("nic", "example.com/nic")};
  ExtendedResourceClasses resolver(classes, true);
  api::Pod pod;
  pod.spec.containers = {Container("a", {{"cpu", "1"}, {"example.com/gpu", "2"}, {"example.com/nic", "1"}}),
                         Container("b", {{"example.com/gpu", "1"}})};
  const std::vector<std::string> both = {"example.com/nic", "example.com/gpu"};
  ExtendedRequests r = BuildExtendedRequests(pod, both, resolver);
  // j indexes the container's sorted request names: cpu, example.com/gpu, example.com/nic.
  EXPECT_THAT(Requests(r),
              ElementsAre("container-0-request-1=gpux2", "container-0-request-2=nicx1", "container-1-request-0=gpux1"));
  EXPECT_THAT(Mappings(r),
              ElementsAre("a/example.com/gpu->container-0-request-1", "b/example.com/gpu->container-1-request-0",
                          "a/example.com/nic->container-0-request-2"));
  // Only the resources served through DRA on this node.
  EXPECT_THAT(Requests(BuildExtendedRequests(pod, std::vector<std::string>{"example.com/nic"}, resolver)),
              ElementsAre("container-0-request-2=nicx1"));
}

TEST(ExtendedTest, InitContainersReuseLaterLongLivedRequestsAndKeepTheLargest) {
  std::vector<api::DeviceClass> classes = {Class("gpu", "example.com/gpu")};
  ExtendedResourceClasses resolver(classes, true);
  api::Pod pod;
  pod.spec.init_containers = {Container("init-big", {{"example.com/gpu", "4"}}),
                              Container("sidecar", {{"example.com/gpu", "1"}}, /*sidecar=*/true),
                              Container("init-small", {{"example.com/gpu", "2"}})};
  pod.spec.containers = {Container("main", {{"example.com/gpu", "1"}})};
  ExtendedRequests r = BuildExtendedRequests(pod, std::vector<std::string>{"example.com/gpu"}, resolver);
  // init-big (index 0) reuses the sidecar's and main's requests (2) and asks
  // for 2 more; init-small (index 2) reuses main's (1) and asks for 1 more;
  // only the larger init request is kept and both point to it.
  EXPECT_THAT(Requests(r),
              ElementsAre("container-0-request-0=gpux2", "container-1-request-0=gpux1", "container-3-request-0=gpux1"));
  EXPECT_THAT(
      Mappings(r),
      ElementsAre("sidecar/example.com/gpu->container-1-request-0", "main/example.com/gpu->container-3-request-0",
                  "init-big/example.com/gpu->container-1-request-0", "init-big/example.com/gpu->container-3-request-0",
                  "init-big/example.com/gpu->container-0-request-0",
                  "init-small/example.com/gpu->container-3-request-0",
                  "init-small/example.com/gpu->container-0-request-0"));
  // An init container fully covered by later ones asks for nothing.
  pod.spec.init_containers = {Container("init", {{"example.com/gpu", "1"}})};
  r = BuildExtendedRequests(pod, std::vector<std::string>{"example.com/gpu"}, resolver);
  EXPECT_THAT(Requests(r), ElementsAre("container-1-request-0=gpux1"));
  EXPECT_THAT(Mappings(r), ElementsAre("main/example.com/gpu->container-1-request-0",
                                       "init/example.com/gpu->container-1-request-0"));
}

TEST(ExtendedTest, NewClaimNamesThePodAsController) {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = std::string(60, 'p');
  pod.metadata.uid = "uid-1";
  api::ResourceClaim c = NewExtendedResourceClaim(pod, "x", {});
  EXPECT_EQ(c.metadata.generate_name.size(), 58u);  // cut as the API server does
  EXPECT_EQ(*c.metadata.annotations.find(kExtendedResourceClaimAnnotation), "true");
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0].uid, "uid-1");
  EXPECT_TRUE(c.metadata.owner_references[0].controller.value_or(false));
}

}  // namespace
}  // namespace dra::sched
