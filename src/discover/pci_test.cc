#include "discover/pci.h"
#include "discover/testing/map_fs.h"

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dra::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using FakeFs = testing::MapFs;

struct Function {
  std::string bdf{};
  uint32_t vendor = 0x15b3;
  uint32_t device = 0x1021;
  uint32_t subsystem_vendor = 0x15b3;
  uint32_t subsystem_device = 0x0041;
  uint32_t class_code = 0x020000;
  std::string numa = "0";
  std::string root = "pci0000:15";
  std::string driver{};  // "" = unbound
  std::string physfn{};  // "" = not a VF
};

void Add(FakeFs& fs, const Function& f) {
  std::string dir = "/sys/bus/pci/devices/" + f.bdf;
  fs.Link(dir, fmt::format("../../../devices/{}/{}", f.root, f.bdf));
  fs.File(dir + "/vendor", fmt::format("0x{:04x}\n", f.vendor));
  fs.File(dir + "/device", fmt::format("0x{:04x}\n", f.device));
  fs.File(dir + "/subsystem_vendor", fmt::format("0x{:04x}\n", f.subsystem_vendor));
  fs.File(dir + "/subsystem_device", fmt::format("0x{:04x}\n", f.subsystem_device));
  fs.File(dir + "/class", fmt::format("0x{:06x}\n", f.class_code));
  if (!f.numa.empty()) fs.File(dir + "/numa_node", f.numa + "\n");
  if (!f.driver.empty()) fs.Link(dir + "/driver", "../../../../bus/pci/drivers/" + f.driver);
  if (!f.physfn.empty()) fs.Link(dir + "/physfn", "../" + f.physfn);
}

std::vector<std::string> Names(const std::vector<api::Device>& devices) {
  std::vector<std::string> names;
  for (const api::Device& d : devices) names.push_back(d.name);
  return names;
}

const api::Device* Find(const std::vector<api::Device>& devices, std::string_view name) {
  for (const api::Device& d : devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::vector<api::Device> Discover(FakeFs& fs, Diagnostics& diag, PciOptions options = {},
                                  std::vector<std::string> claimed = {}) {
  return DiscoverPci(fs, options, claimed, diag);
}

TEST(PciTest, PublishesEveryAttributeOfAFunction) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:17:00.0", .numa = "1", .driver = "mlx5_core"});
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag);
  ASSERT_EQ(devices.size(), 1u);
  api::Device want;
  want.name = "0000-17-00-0";
  want.attributes = {
      {"vendorID", api::DeviceAttribute::String("0x15b3")},
      {"deviceID", api::DeviceAttribute::String("0x1021")},
      {"subsystemVendorID", api::DeviceAttribute::String("0x15b3")},
      {"subsystemDeviceID", api::DeviceAttribute::String("0x0041")},
      {"classCode", api::DeviceAttribute::String("0x020000")},
      {"kernelDriver", api::DeviceAttribute::String("mlx5_core")},
      {"sriovVF", api::DeviceAttribute::Bool(false)},
      {"resource.kubernetes.io/pciBusID", api::DeviceAttribute::String("0000:17:00.0")},
      {"resource.kubernetes.io/pcieRoot", api::DeviceAttribute::String("pci0000:15")},
      {"resource.kubernetes.io/numaNode", api::DeviceAttribute::Int(1)},
  };
  EXPECT_EQ(devices[0], want);
  EXPECT_THAT(diag.messages(), IsEmpty());
}

TEST(PciTest, KeepsAcceleratorDisplayAndNetworkClassesOnly) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:00:00.0", .vendor = 0x8086, .class_code = 0x060000});  // host bridge
  Add(fs, {.bdf = "0000:00:01.0", .vendor = 0x8086, .class_code = 0x060400});  // PCI bridge
  Add(fs, {.bdf = "0000:00:02.0", .vendor = 0x10de, .class_code = 0x068000});  // NVSwitch
  Add(fs, {.bdf = "0000:00:03.0", .vendor = 0x144d, .class_code = 0x010802});  // NVMe
  Add(fs, {.bdf = "0000:00:04.0", .vendor = 0x8086, .class_code = 0x0c0330});  // USB
  Add(fs, {.bdf = "0000:00:05.0", .vendor = 0x1a03, .class_code = 0x030000});  // VGA
  Add(fs, {.bdf = "0000:00:06.0", .vendor = 0x10de, .class_code = 0x030200});  // 3D
  Add(fs, {.bdf = "0000:00:07.0", .vendor = 0x1002, .class_code = 0x038000});  // other display
  Add(fs, {.bdf = "0000:00:08.0", .vendor = 0x1ae0, .class_code = 0x120000});  // accelerator
  Add(fs, {.bdf = "0000:00:09.0", .vendor = 0x15b3, .class_code = 0x020700});  // InfiniBand
  Add(fs, {.bdf = "0000:00:0a.0", .vendor = 0x8086, .class_code = 0x0b4000});  // co-processor
  Add(fs, {.bdf = "0000:00:0b.0", .vendor = 0x8086, .class_code = 0x0b2000});  // other processor
  Add(fs, {.bdf = "0000:00:0c.0", .vendor = 0x8086, .class_code = 0x020000});  // Ethernet
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag);
  EXPECT_THAT(Names(devices), ElementsAre("0000-00-05-0", "0000-00-06-0", "0000-00-07-0", "0000-00-08-0",
                                          "0000-00-09-0", "0000-00-0a-0", "0000-00-0c-0"));
}

TEST(PciTest, SkipsVirtualFunctionsUnlessAsked) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:17:00.0", .driver = "mlx5_core"});
  Add(fs, {.bdf = "0000:17:00.2", .device = 0x101e, .driver = "mlx5_core", .physfn = "0000:17:00.0"});
  Add(fs, {.bdf = "0000:17:00.3", .device = 0x101e, .physfn = "0000:17:00.0"});
  Diagnostics diag;
  EXPECT_THAT(Names(Discover(fs, diag)), ElementsAre("0000-17-00-0"));

  std::vector<api::Device> with_vfs = Discover(fs, diag, {.include_vfs = true});
  ASSERT_THAT(Names(with_vfs), ElementsAre("0000-17-00-0", "0000-17-00-2", "0000-17-00-3"));
  const api::Device& vf = with_vfs[1];
  EXPECT_EQ(*vf.attributes.find("sriovVF"), api::DeviceAttribute::Bool(true));
  EXPECT_EQ(*vf.attributes.find("physfn"), api::DeviceAttribute::String("0000:17:00.0"));
  EXPECT_EQ(*vf.attributes.find("deviceID"), api::DeviceAttribute::String("0x101e"));
  // The PF carries no physfn; an unbound VF no kernelDriver.
  EXPECT_EQ(with_vfs[0].attributes.find("physfn"), nullptr);
  EXPECT_EQ(*with_vfs[0].attributes.find("sriovVF"), api::DeviceAttribute::Bool(false));
  EXPECT_EQ(with_vfs[2].attributes.find("kernelDriver"), nullptr);
  EXPECT_THAT(diag.messages(), IsEmpty());
}

TEST(PciTest, OmitsUnknownNumaNode) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:00:04.0", .numa = "-1", .root = "pci0000:00"});
  Add(fs, {.bdf = "0000:00:05.0", .numa = "", .root = "pci0000:00"});  // no numa_node file
  Add(fs, {.bdf = "0000:00:06.0", .numa = "zero", .root = "pci0000:00"});
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag);
  ASSERT_EQ(devices.size(), 3u);
  for (const api::Device& d : devices) {
    EXPECT_EQ(d.attributes.find("resource.kubernetes.io/numaNode"), nullptr) << d.name;
    EXPECT_EQ(*d.attributes.find("resource.kubernetes.io/pcieRoot"), api::DeviceAttribute::String("pci0000:00"));
  }
  // Only the unparsable value is worth a warning.
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("0000:00:06.0: numaNode omitted")));
}

TEST(PciTest, OmitsPcieRootOutsideThePciHierarchy) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:00:04.0", .root = "LNXSYSTM:00/VMBUS:00"});
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].attributes.find("resource.kubernetes.io/pcieRoot"), nullptr);
  EXPECT_NE(devices[0].attributes.find("resource.kubernetes.io/pciBusID"), nullptr);
  EXPECT_TRUE(diag.partial());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("0000:00:04.0: pcieRoot omitted")));
}

TEST(PciTest, SkipsClaimedFunctions) {
  FakeFs fs;
  Add(fs, {.bdf = "0000:18:00.0", .vendor = 0x10de, .class_code = 0x030200});
  Add(fs, {.bdf = "0000:2a:00.0", .vendor = 0x10de, .class_code = 0x030200});
  Add(fs, {.bdf = "0000:00:04.0", .vendor = 0x1ae0, .class_code = 0x120000});
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag, {}, {"0000:18:00.0", "0000:00:04.0"});
  EXPECT_THAT(Names(devices), ElementsAre("0000-2a-00-0"));
}

TEST(PciTest, NamesAndOrdersByBdf) {
  FakeFs fs;
  Add(fs, {.bdf = "0001:0a:00.1"});
  Add(fs, {.bdf = "0000:b1:00.0"});
  Add(fs, {.bdf = "0000:1b:00.7"});
  Diagnostics diag;
  std::vector<api::Device> devices = Discover(fs, diag);
  EXPECT_THAT(Names(devices), ElementsAre("0000-1b-00-7", "0000-b1-00-0", "0001-0a-00-1"));
  const api::Device* d = Find(devices, "0001-0a-00-1");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(*d->attributes.find("resource.kubernetes.io/pciBusID"), api::DeviceAttribute::String("0001:0a:00.1"));
}

TEST(PciTest, SkipsAddressesThatAreNotBdfs) {
  FakeFs fs;
  Add(fs, {.bdf = "10000:00:00.0", .class_code = 0x030200});  // a VMD-style wide domain
  Add(fs, {.bdf = "10000:00:01.0", .class_code = 0x060400});  // not a candidate: silent
  Diagnostics diag;
  EXPECT_THAT(Discover(fs, diag), IsEmpty());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("10000:00:00.0: not a dddd:bb:dd.f")));
}

TEST(PciTest, NoSysfsNoDevices) {
  FakeFs fs;
  Diagnostics diag;
  EXPECT_THAT(Discover(fs, diag), IsEmpty());
  EXPECT_FALSE(diag.partial());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("/sys/bus/pci/devices is absent")));
}

}  // namespace
}  // namespace dra::discover
