#include "discover/slices.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace dra::discover {
namespace {

std::vector<SliceContent> Contents(size_t slices, size_t devices_each) {
  std::vector<SliceContent> out(slices);
  for (size_t i = 0; i < slices; ++i) {
    for (size_t d = 0; d < devices_each; ++d) {
      api::Device device;
      device.name = fmt::format("dev-{}-{}", i, d);
      out[i].devices.push_back(std::move(device));
    }
  }
  return out;
}

TEST(MakePool, NamesPoolAndCounts) {
  std::vector<api::ResourceSlice> pool = MakePool("gpu.nvidia.com", "node-a", Contents(11, 1), {});
  ASSERT_EQ(pool.size(), 11u);
  for (const api::ResourceSlice& s : pool) {
    EXPECT_EQ(s.spec.driver, "gpu.nvidia.com");
    EXPECT_EQ(s.spec.node_name, std::optional<std::string>("node-a"));
    EXPECT_EQ(s.spec.pool.name, "node-a");
    EXPECT_EQ(s.spec.pool.generation, 1);
    EXPECT_EQ(s.spec.pool.resource_slice_count, 11);
  }
  // The index is lower-case hex, at least 5 digits: slice 10 is 0000a.
  EXPECT_EQ(pool[10].metadata.name.substr(0, 28), "0000a-gpu.nvidia.com-node-a-");
  ASSERT_EQ(pool[10].metadata.name.size(), 33u);
  for (char c : pool[10].metadata.name.substr(28)) {
    EXPECT_NE(std::string_view("bcdfghjklmnpqrstvwxz2456789").find(c), std::string_view::npos);
  }
  // Deterministic, and different per slice.
  EXPECT_EQ(pool[3].metadata.name, MakePool("gpu.nvidia.com", "node-a", Contents(11, 1), {})[3].metadata.name);
  EXPECT_NE(pool[3].metadata.name.substr(28), pool[4].metadata.name.substr(28));
  EXPECT_TRUE(CheckSlices(pool).ok());
}

TEST(MakePool, GenerateName) {
  std::vector<api::ResourceSlice> pool =
      MakePool("tpu.google.com", "n", Contents(1, 1), PoolOptions{.generate_name = true});
  EXPECT_EQ(pool[0].metadata.name, "");
  EXPECT_EQ(pool[0].metadata.generate_name, "00000-tpu.google.com-n-");
  EXPECT_TRUE(CheckSlices(pool).ok()) << CheckSlices(pool).ToString();
}

TEST(CheckSlices, RejectsWhatTheApiServerWould) {
  std::vector<api::ResourceSlice> pool = MakePool("pci.dractl.io", "n", Contents(1, 129), {});
  Status s = CheckSlices(pool);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("spec.devices: Too many: 129: must have at most 128 items"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("00000-pci.dractl.io-n-"), std::string::npos) << s.message();
  EXPECT_TRUE(CheckSlices(MakePool("pci.dractl.io", "n", Contents(1, 128), {})).ok());
}

}  // namespace
}  // namespace dra::discover

namespace dra::discover {
namespace {

TEST(CheckSlices, NamesUniqueAcrossThePool) {
  std::vector<SliceContent> contents = Contents(2, 1);
  contents[1].devices[0].name = contents[0].devices[0].name;
  Status s = CheckSlices(MakePool("gpu.nvidia.com", "n", contents, {}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("device \"dev-0-0\" is also in another slice of pool gpu.nvidia.com/n"), std::string::npos)
      << s.message();
  // Another pool may reuse the name.
  std::vector<api::ResourceSlice> both = MakePool("gpu.nvidia.com", "n", Contents(1, 1), {});
  for (auto& slice : MakePool("tpu.google.com", "n", Contents(1, 1), {})) both.push_back(slice);
  EXPECT_TRUE(CheckSlices(both).ok());
}

}  // namespace
}  // namespace dra::discover
