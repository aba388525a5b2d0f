#include "manifest/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace dra::manifest {
namespace {

TEST(ScenarioTest, ParsesDeviceIds) {
  auto id = ParseScenarioDeviceId("gpu.example.com/pool/a/gpu-0");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->driver, "gpu.example.com");
  EXPECT_EQ(id->pool, "pool/a");
  EXPECT_EQ(id->device, "gpu-0");
  for (const char* bad : {"", "a", "a/b", "/p/d", "d/p/", "d//x"}) {
    EXPECT_FALSE(ParseScenarioDeviceId(bad).ok()) << bad;
  }
}

TEST(ScenarioTest, ReadsAllFields) {
  auto s = ParseScenario(R"(name: simple
source: test
features: [DRAPrioritizedList]
node: {name: node-1, labels: {region: r1}}
objects:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: class-a}
allocatedDevices: [driver-a/pool-1/device-9]
allocatedShares:
- device: driver-a/pool-1/device-1
  shareID: aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa
  consumedCapacity: {memory: 1Gi}
allocate: [default/claim-0]
expect:
  allocations:
  - claim: default/claim-0
    devices:
      results:
      - {request: req-0, driver: driver-a, pool: pool-1, device: device-1}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-1]}
)",
                         "s.yaml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->name, "simple");
  EXPECT_EQ(s->features, std::vector<std::string>{"DRAPrioritizedList"});
  EXPECT_EQ(s->node.metadata.name, "node-1");
  EXPECT_EQ(*s->node.metadata.labels.find("region"), "r1");
  ASSERT_EQ(s->objects.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<api::DeviceClass>(s->objects[0]));
  ASSERT_EQ(s->allocated_devices.size(), 1u);
  EXPECT_EQ(s->allocated_devices[0].device, "device-9");
  ASSERT_EQ(s->allocated_shares.size(), 1u);
  EXPECT_EQ(s->allocated_shares[0].consumed_capacity.find("memory")->String(), "1Gi");
  ASSERT_EQ(s->expect.allocations.size(), 1u);
  const api::AllocationResult& r = s->expect.allocations[0].result;
  ASSERT_EQ(r.devices.results.size(), 1u);
  EXPECT_EQ(r.devices.results[0].device, "device-1");
  ASSERT_TRUE(r.node_selector.has_value());
}

TEST(ScenarioTest, ReportsProblemsWithLocation) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"name: x\nnode: {name: n}\nbogus: 1\nexpect: {unsatisfiable: true}\n",
       "s.yaml:3:1: bogus: unknown scenario field"},
      {"name: x\nnode: {name: n}\nexpect: {unsatisfiable: true, error: e}\n", "exactly one of allocations"},
      {"name: x\nnode: {name: n}\nallocatedDevices: [nope]\nexpect: {unsatisfiable: true}\n",
       "s.yaml:3:20: allocatedDevices[0]: \"nope\" is not driver/pool/device"},
      {"name: x\nnode: {name: n}\nobjects:\n- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: "
       "7}\n"
       "expect: {unsatisfiable: true}\n",
       "s.yaml:6:20: objects[0]: metadata.name: expected string, got integer"},
      {"name: x\nnode: {name: n}\nallocate: [a/b]\nexpect: {allocations: []}\n",
       "has 0 entries but allocate names 1 claims"},
  };
  for (const Case& c : cases) {
    auto s = ParseScenario(c.text, "s.yaml");
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.status().message().find(c.want), std::string::npos) << s.status().message();
  }
}

// `dractl allocate --scenario` runs scenarios without `expect:`.
TEST(ScenarioTest, ExpectIsOptional) {
  auto s = ParseScenario("name: x\nnode: {name: n}\nallocate: [a/b]\n", "s.yaml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->allocate.size(), 1u);
}

TEST(ScenarioTest, UnreadableFileSaysWhy) {
  auto missing = LoadScenarioFile("/nonexistent/s.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "/nonexistent/s.yaml: cannot open: No such file or directory");
  auto dir = LoadScenarioFile("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "/: is a directory");
}

// Every shared allocator vector reads cleanly (the allocator tests of #4 use
// them; here we only check that the format is understood completely).
TEST(ScenarioTest, ReadsEverySharedAllocatorVector) {
  size_t count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(DRA_TESTDATA_DIR) + "/conformance/allocator")) {
    if (entry.path().extension() != ".yaml") continue;
    auto s = LoadScenarioFile(entry.path().string());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (s.ok()) {
      EXPECT_EQ(s->name + ".yaml", entry.path().filename().string());
    }
    ++count;
  }
  EXPECT_GE(count, 100u);
  std::printf("read %zu allocator scenarios\n", count);
}

}  // namespace
}  // namespace dra::manifest
