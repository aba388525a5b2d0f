#include "alloc/pools.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

api::ResourceSlice Slice(std::string name, std::string driver, std::string pool, int64_t generation, int64_t count,
                         std::vector<std::string> devices) {
  api::ResourceSlice s;
  s.metadata.name = std::move(name);
  s.spec.driver = std::move(driver);
  s.spec.pool = {.name = std::move(pool), .generation = generation, .resource_slice_count = count};
  for (std::string& d : devices) s.spec.devices.push_back(api::Device{.name = std::move(d)});
  return s;
}

api::ResourceSlice OnNode(api::ResourceSlice s, std::string node) {
  s.spec.node_name = std::move(node);
  return s;
}

api::ResourceSlice AllNodes(api::ResourceSlice s) {
  s.spec.all_nodes = true;
  return s;
}

api::Node NodeNamed(std::string name) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels.insert_or_assign("zone", "a");
  return n;
}

Features AllOn() {
  return Features{.admin_access = true,
                  .consumable_capacity = true,
                  .device_binding_and_status = true,
                  .device_taints = true,
                  .list_type_attributes = false,
                  .partitionable_devices = true,
                  .prioritized_list = true};
}

// The pools point into `slices`: callers that dereference them keep `slices` alive.
std::vector<Pool> Gather(const std::vector<api::ResourceSlice>& slices, const std::string& node,
                         Features features = AllOn()) {
  std::vector<const api::ResourceSlice*> ptrs;
  for (const auto& s : slices) ptrs.push_back(&s);
  SliceIndex index(ptrs);
  StatusOr<std::vector<Pool>> pools = GatherPools(index, NodeNamed(node), features);
  EXPECT_TRUE(pools.ok()) << pools.status().ToString();
  return pools.ok() ? *pools : std::vector<Pool>{};
}

std::vector<std::string> Names(const std::vector<Pool>& pools) {
  std::vector<std::string> out;
  for (const Pool& p : pools) out.push_back(p.driver + "/" + p.name);
  return out;
}

// SliceIndex's hash tables answer exactly what a scan of the input answers:
// every slice of the node or pool, in input order; nothing for other keys.
TEST(PoolsTest, SliceIndexFindsEveryKeyLikeAScan) {
  std::vector<api::ResourceSlice> slices;
  for (int i = 0; i < 600; ++i) {
    // Nodes get 1 to 3 slices, listed far apart; pools span nodes; every
    // tenth slice has no node name.
    const std::string node = "node-" + std::to_string((i * 7) % 250);
    const std::string driver = i % 3 == 0 ? "b.example.com" : "a.example.com";
    api::ResourceSlice s = Slice("s" + std::to_string(i), driver, "pool-" + std::to_string(i % 40), 1, 1, {"x"});
    slices.push_back(i % 10 == 9 ? AllNodes(std::move(s)) : OnNode(std::move(s), node));
  }
  std::vector<const api::ResourceSlice*> ptrs;
  for (const auto& s : slices) ptrs.push_back(&s);
  SliceIndex index(ptrs);
  auto names = [](std::span<const api::ResourceSlice* const> found) {
    std::vector<std::string> out;
    for (const api::ResourceSlice* s : found) out.push_back(s->metadata.name);
    return out;
  };
  for (int n = 0; n < 260; ++n) {  // 250 .. 259 have no slices
    const std::string node = "node-" + std::to_string(n);
    std::vector<std::string> want;
    for (const auto& s : slices) {
      if (s.spec.node_name == node) want.push_back(s.metadata.name);
    }
    EXPECT_EQ(names(index.OnNode(node)), want) << node;
  }
  for (const std::string driver : {"a.example.com", "b.example.com", "c.example.com"}) {
    for (int p = 0; p < 42; ++p) {
      const std::string pool = "pool-" + std::to_string(p);
      std::vector<std::string> want;
      for (const auto& s : slices) {
        if (s.spec.driver == driver && s.spec.pool.name == pool) want.push_back(s.metadata.name);
      }
      EXPECT_EQ(names(index.OfPool(driver, pool)), want) << driver << "/" << pool;
    }
  }
  EXPECT_EQ(index.WithoutNodeName().size(), 60u);
  EXPECT_TRUE(index.OnNode("").empty());

  SliceIndex empty({});
  EXPECT_TRUE(empty.OnNode("node-0").empty());
  EXPECT_TRUE(empty.OfPool("a.example.com", "pool-0").empty());
}

TEST(PoolsTest, SelectsSlicesByNodeScope) {
  api::ResourceSlice selector = Slice("sel", "d", "by-label", 1, 1, {"x"});
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({.key = "zone", .operator_ = api::NodeSelectorOperator::kIn, .values = {"a"}});
  selector.spec.node_selector = api::NodeSelector{{term}};
  api::ResourceSlice per_device = Slice("per", "d", "per-device", 1, 1, {"on-1", "on-2"});
  per_device.spec.per_device_node_selection = true;
  per_device.spec.devices[0].rare.mut().node_name = "node-1";
  per_device.spec.devices[1].rare.mut().node_name = "node-2";
  std::vector<api::ResourceSlice> slices = {OnNode(Slice("a", "d", "local", 1, 1, {"g0"}), "node-1"),
                                            OnNode(Slice("b", "d", "elsewhere", 1, 1, {"g0"}), "node-2"),
                                            AllNodes(Slice("c", "d", "network", 1, 1, {"n0"})),
                                            selector,
                                            per_device,
                                            Slice("none", "d", "no-scope", 1, 1, {"z"})};
  EXPECT_EQ(Names(Gather(slices, "node-1")),
            (std::vector<std::string>{"d/by-label", "d/local", "d/network", "d/per-device"}));
  EXPECT_EQ(Names(Gather(slices, "node-3")), (std::vector<std::string>{"d/by-label", "d/network"}));
}

TEST(PoolsTest, KeepsOnlyTheNewestGeneration) {
  std::vector<api::ResourceSlice> slices = {OnNode(Slice("old", "d", "p", 1, 1, {"a"}), "node-1"),
                                            OnNode(Slice("new", "d", "p", 2, 1, {"b"}), "node-1")};
  std::vector<Pool> pools = Gather(slices, "node-1");
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0].generation, 2);
  ASSERT_EQ(pools[0].slices.size(), 1u);
  EXPECT_EQ(pools[0].slices[0]->metadata.name, "new");
  EXPECT_FALSE(pools[0].incomplete);
}

TEST(PoolsTest, IncompleteObsoleteAndCompletedElsewhere) {
  // Announces 2 slices, only 1 exists: incomplete.
  std::vector<Pool> incomplete = Gather({OnNode(Slice("s", "d", "p", 1, 2, {"a"}), "node-1")}, "node-1");
  ASSERT_EQ(incomplete.size(), 1u);
  EXPECT_TRUE(incomplete[0].incomplete);
  // The node sees generation 1 of a pool whose generation 2 exists elsewhere: dropped.
  std::vector<Pool> obsolete = Gather(
      {AllNodes(Slice("s1", "d", "p", 1, 2, {"a"})), OnNode(Slice("s2", "d", "p", 2, 1, {"b"}), "node-2")}, "node-1");
  EXPECT_TRUE(obsolete.empty());
  // Two slices at generation 1, one targets another node: complete, the other
  // slice is kept for counter accounting only.
  // Pools point into the slices, so they must outlive the pools.
  std::vector<api::ResourceSlice> split_slices = {OnNode(Slice("s1", "d", "p", 1, 2, {"a"}), "node-1"),
                                                  OnNode(Slice("s2", "d", "p", 1, 2, {"b"}), "node-2")};
  std::vector<Pool> split = Gather(split_slices, "node-1");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_FALSE(split[0].incomplete);
  ASSERT_EQ(split[0].slices.size(), 1u);
  ASSERT_EQ(split[0].other_slices.size(), 1u);
  EXPECT_EQ(split[0].other_slices[0]->metadata.name, "s2");
}

TEST(PoolsTest, SortsSlicesByNameAndPoolsByDriverThenName) {
  std::vector<api::ResourceSlice> slices = {OnNode(Slice("z", "b.example.com", "p", 1, 2, {"a"}), "node-1"),
                                            OnNode(Slice("y", "b.example.com", "p", 1, 2, {"b"}), "node-1"),
                                            OnNode(Slice("x", "a.example.com", "q", 1, 1, {"c"}), "node-1"),
                                            OnNode(Slice("w", "a.example.com", "p", 1, 1, {"d"}), "node-1")};
  slices[3].spec.devices[0].rare.mut().binding_conditions = {"ready"};
  std::vector<Pool> pools = Gather(slices, "node-1");
  EXPECT_EQ(Names(pools), (std::vector<std::string>{"a.example.com/q", "b.example.com/p", "a.example.com/p"}));
  ASSERT_EQ(pools[1].slices.size(), 2u);
  EXPECT_EQ(pools[1].slices[0]->metadata.name, "y");
  EXPECT_TRUE(pools[2].has_binding_conditions);
}

TEST(PoolsTest, InvalidPools) {
  std::vector<Pool> dup = Gather(
      {OnNode(Slice("s1", "d", "p", 1, 2, {"a"}), "node-1"), OnNode(Slice("s2", "d", "p", 1, 2, {"a"}), "node-1")},
      "node-1");
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_TRUE(dup[0].invalid);
  EXPECT_EQ(dup[0].invalid_reason, "duplicate device name a");

  api::ResourceSlice counters = OnNode(Slice("c", "d", "p", 1, 2, {}), "node-1");
  counters.spec.shared_counters.push_back({.name = "gpu-0", .counters = {{"memory", api::Counter{}}}});
  api::ResourceSlice devices = OnNode(Slice("d", "d", "p", 1, 2, {"mig-0"}), "node-1");
  devices.spec.devices[0].rare.mut().consumes_counters.push_back({.counter_set = "gpu-1", .counters = {}});
  std::vector<Pool> unknown_set = Gather({counters, devices}, "node-1");
  ASSERT_EQ(unknown_set.size(), 1u);
  EXPECT_EQ(unknown_set[0].invalid_reason, "counter set gpu-1 not found");

  devices.spec.devices[0].rare.mut().consumes_counters[0] = {.counter_set = "gpu-0",
                                                             .counters = {{"cores", api::Counter{}}}};
  std::vector<Pool> unknown_counter = Gather({counters, devices}, "node-1");
  ASSERT_EQ(unknown_counter.size(), 1u);
  EXPECT_EQ(unknown_counter[0].invalid_reason, "counter cores not found in counter set gpu-0");

  devices.spec.devices[0].rare.mut().consumes_counters[0] = {.counter_set = "gpu-0",
                                                             .counters = {{"memory", api::Counter{}}}};
  std::vector<Pool> valid = Gather({counters, devices}, "node-1");
  ASSERT_EQ(valid.size(), 1u);
  EXPECT_FALSE(valid[0].invalid) << valid[0].invalid_reason;
  EXPECT_EQ(valid[0].counter_slices.size(), 1u);
  EXPECT_EQ(valid[0].slices.size(), 1u);

  // Without the partitionable-devices feature the counter slice is not
  // relevant for the node, but it still counts for completeness (upstream
  // counts every slice of the pool's generation), and counters are not checked.
  Features off = AllOn();
  off.partitionable_devices = false;
  std::vector<Pool> hidden = Gather({counters, devices}, "node-1", off);
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_FALSE(hidden[0].incomplete);
  EXPECT_FALSE(hidden[0].invalid);
  EXPECT_TRUE(hidden[0].counter_slices.empty());
  EXPECT_EQ(hidden[0].slices.size(), 1u);
}

TEST(PoolsTest, BrokenNodeSelectorIsAnError) {
  api::ResourceSlice s = Slice("bad", "d", "p", 1, 1, {"a"});
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({.key = "zone", .operator_ = std::string("Near"), .values = {"a"}});
  s.spec.node_selector = api::NodeSelector{{term}};
  std::vector<const api::ResourceSlice*> ptrs = {&s};
  SliceIndex index(ptrs);
  StatusOr<std::vector<Pool>> pools = GatherPools(index, NodeNamed("node-1"), AllOn());
  ASSERT_FALSE(pools.ok());
  EXPECT_NE(pools.status().message().find("failed to perform node selection for ResourceSlice bad"), std::string::npos)
      << pools.status().message();
}

TEST(SliceIndexTest, NumbersDevicesDenselyInSliceOrder) {
  api::ResourceSlice a, b, c;
  a.spec.devices.resize(3);
  c.spec.devices.resize(2);  // b has none
  api::ResourceSlice outside;
  SliceIndex index({&a, &b, &c});
  EXPECT_EQ(index.device_count(), 5u);
  EXPECT_EQ(index.FirstDeviceId(&a), 0);
  EXPECT_EQ(index.FirstDeviceId(&b), 3);
  EXPECT_EQ(index.FirstDeviceId(&c), 3);
  EXPECT_EQ(index.FirstDeviceId(&outside), -1);
}

}  // namespace
}  // namespace dra::alloc
