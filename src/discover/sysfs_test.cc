#include "discover/sysfs.h"

#include <gtest/gtest.h>

#include "discover/testing/map_fs.h"

namespace dra::discover {
namespace {

TEST(IsPciBdf, Format) {
  EXPECT_TRUE(IsPciBdf("0000:18:00.0"));
  EXPECT_TRUE(IsPciBdf("0000:a0:1d.7"));
  EXPECT_FALSE(IsPciBdf("0000:A0:1d.0"));      // upper case
  EXPECT_FALSE(IsPciBdf("00000000:18:00.0"));  // 8-digit domain
  EXPECT_FALSE(IsPciBdf("0000:18:00:0"));
  EXPECT_FALSE(IsPciBdf(""));
}

TEST(PcieRootFromLink, RelativeLinkIsCleaned) {
  auto root = PcieRootFromLink("../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0",
                               "0000:18:00.0");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(*root, "pci0000:15");
  auto vm = PcieRootFromLink("../../../devices/pci0000:00/0000:00:03.0", "0000:00:03.0");
  ASSERT_TRUE(vm.ok());
  EXPECT_EQ(*vm, "pci0000:00");
  // Redundant elements: "./" and "x/.." are removed lexically.
  auto odd = PcieRootFromLink("../.././../devices/x/../pci0000:97/./0000:97:01.0/0000:9a:00.0", "0000:9a:00.0");
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(*odd, "pci0000:97");
}

TEST(PcieRootFromLink, AbsoluteLink) {
  auto root = PcieRootFromLink("/sys/devices/pci0000:37/0000:37:01.0/0000:3a:00.0", "0000:3a:00.0");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(*root, "pci0000:37");
}

TEST(PcieRootFromLink, Rejections) {
  // Last element is another function.
  EXPECT_FALSE(PcieRootFromLink("../../../devices/pci0000:15/0000:18:00.1", "0000:18:00.0").ok());
  // Not under devices/pci (a VMBus parent).
  auto vmbus =
      PcieRootFromLink("../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/0000:18:00.0", "0000:18:00.0");
  ASSERT_FALSE(vmbus.ok());
  EXPECT_NE(vmbus.status().message().find("not a PCI device path"), std::string::npos);
  EXPECT_FALSE(PcieRootFromLink("/elsewhere/devices/pci0000:15/0000:18:00.0", "0000:18:00.0").ok());
}

TEST(PcieRoot, MissingLink) {
  testing::MapFs fs;
  auto root = PcieRoot(fs, "0000:18:00.0");
  EXPECT_EQ(root.status().code(), StatusCode::kNotFound);
}

TEST(NumaNode, Values) {
  testing::MapFs fs;
  const std::string dir = "/sys/bus/pci/devices/";
  fs.File(dir + "0000:01:00.0/numa_node", "1\n");
  fs.File(dir + "0000:02:00.0/numa_node", "-1\n");
  fs.File(dir + "0000:03:00.0/numa_node", "0x1\n");
  fs.File(dir + "0000:04:00.0/numa_node", "garbage\n");
  fs.File(dir + "0000:05:00.0/numa_node", " 3 \n");
  auto one = NumaNode(fs, "0000:01:00.0");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::optional<int64_t>(1));
  auto unknown = NumaNode(fs, "0000:02:00.0");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
  auto hex = NumaNode(fs, "0000:03:00.0");
  ASSERT_TRUE(hex.ok());
  EXPECT_EQ(*hex, std::optional<int64_t>(1));
  auto bad = NumaNode(fs, "0000:04:00.0");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("garbage"), std::string::npos);
  auto spaced = NumaNode(fs, "0000:05:00.0");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(*spaced, std::optional<int64_t>(3));
  EXPECT_EQ(NumaNode(fs, "0000:09:00.0").status().code(), StatusCode::kNotFound);
}

TEST(ListPciFunctions, SortedNumericallyWithFields) {
  testing::MapFs fs;
  const std::string dir = "/sys/bus/pci/devices/";
  for (std::string bdf : {"0000:9a:00.0", "0000:18:00.0", "0001:00:00.0", "0000:18:00.1"}) {
    fs.Link(dir + bdf, "../../../devices/pci0000:00/" + bdf);
  }
  fs.File(dir + "0000:18:00.0/vendor", "0x10de\n");
  fs.File(dir + "0000:18:00.0/device", "0x2335\n");
  fs.File(dir + "0000:18:00.0/class", "0x030200\n");
  fs.Link(dir + "0000:18:00.0/driver", "../../../../bus/pci/drivers/nvidia");
  fs.Link(dir + "0000:18:00.0/iommu_group", "../../../../kernel/iommu_groups/12");
  fs.Link(dir + "0000:18:00.1/physfn", "../0000:18:00.0");
  auto list = ListPciFunctions(fs);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].bdf, "0000:18:00.0");
  EXPECT_EQ((*list)[1].bdf, "0000:18:00.1");
  EXPECT_EQ((*list)[2].bdf, "0000:9a:00.0");
  EXPECT_EQ((*list)[3].bdf, "0001:00:00.0");
  const PciFunction& gpu = (*list)[0];
  EXPECT_EQ(gpu.vendor, 0x10deu);
  EXPECT_EQ(gpu.device, 0x2335u);
  EXPECT_EQ(gpu.class_code, 0x030200u);
  EXPECT_EQ(gpu.driver, "nvidia");
  EXPECT_EQ(gpu.iommu_group, std::optional<std::string>("12"));
  EXPECT_EQ((*list)[1].physfn, std::optional<std::string>("0000:18:00.0"));
  EXPECT_FALSE((*list)[2].physfn.has_value());
}

}  // namespace
}  // namespace dra::discover
