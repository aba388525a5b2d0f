#include "discover/tpu.h"
#include "discover/testing/map_fs.h"

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "manifest/loader.h"

namespace dra::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using FakeFs = testing::MapFs;

struct PciIds {
  uint32_t vendor = 0x1ae0;
  uint32_t device = 0x0063;
  uint32_t subsystem_device = 0x0000;
  uint32_t class_code = 0x120000;
};

void AddPciFunction(FakeFs& fs, const std::string& bdf, const PciIds& ids) {
  std::string dir = "/sys/bus/pci/devices/" + bdf;
  fs.Link(dir, "../../../devices/pci0000:00/" + bdf);
  fs.File(dir + "/vendor", fmt::format("0x{:04x}\n", ids.vendor));
  fs.File(dir + "/device", fmt::format("0x{:04x}\n", ids.device));
  fs.File(dir + "/subsystem_vendor", fmt::format("0x{:04x}\n", ids.vendor));
  fs.File(dir + "/subsystem_device", fmt::format("0x{:04x}\n", ids.subsystem_device));
  fs.File(dir + "/class", fmt::format("0x{:06x}\n", ids.class_code));
  fs.File(dir + "/numa_node", "-1\n");
}

// A chip bound to vfio-pci: /dev/vfio/<group> and its IOMMU group holding one
// function.
void AddVfioChip(FakeFs& fs, const std::string& group, const std::string& bdf, const PciIds& ids = {}) {
  fs.File("/dev/vfio/" + group, "");
  fs.Link(fmt::format("/sys/kernel/iommu_groups/{}/devices/{}", group, bdf), "../../../../devices/pci0000:00/" + bdf);
  AddPciFunction(fs, bdf, ids);
  fs.Link(fmt::format("/sys/bus/pci/devices/{}/iommu_group", bdf), "../../../../kernel/iommu_groups/" + group);
  fs.Link(fmt::format("/sys/bus/pci/devices/{}/driver", bdf), "../../../bus/pci/drivers/vfio-pci");
}

std::string Bdf(int slot) { return fmt::format("0000:00:{:02x}.0", slot + 4); }

// The fixture's host: 8 v5e chips in IOMMU groups 0..7, the GKE tpu-env.
void AddV5eHost(FakeFs& fs) {
  fs.File("/dev/vfio/vfio", "");
  for (int chip_idx = 0; chip_idx < 8; ++chip_idx) {
    AddVfioChip(fs, std::to_string(chip_idx), Bdf(chip_idx));
  }
  fs.File("/etc/tpu/tpu-env",
          "ACCELERATOR_TYPE: 'v5litepod-8'\n"
          "CHIPS_PER_HOST_BOUNDS: '2,4,1'\n"
          "HOST_BOUNDS: '1,1,1'\n"
          "TOPOLOGY: '2x4'\n"
          "TYPE: 'V5LITE_POD'\n");
}

constexpr std::string_view kFixtureNode = "gke-tpu-v5e-pool-9d2c4b1a-x7vq";

std::vector<std::string> Names(const std::vector<api::Device>& devices) {
  std::vector<std::string> names;
  for (const api::Device& d : devices) names.push_back(d.name);
  return names;
}

std::string StringAttr(const api::Device& device, std::string_view key) {
  const api::DeviceAttribute* a = device.attributes.find(key);
  if (a == nullptr) return "<absent>";
  const auto* s = std::get_if<api::InternedString>(&a->value);
  return s == nullptr ? "<not a string>" : s->str();
}

int64_t IntAttr(const api::Device& device, std::string_view key) {
  const api::DeviceAttribute* a = device.attributes.find(key);
  if (a == nullptr) return -100;
  const auto* i = std::get_if<int64_t>(&a->value);
  return i == nullptr ? -200 : *i;
}

StatusOr<std::vector<api::Device>> Discover(FakeFs& fs, Diagnostics& diag, std::string accelerator = "") {
  TpuOptions options;
  options.accelerator = std::move(accelerator);
  options.node_name = std::string(kFixtureNode);
  return DiscoverTpu(fs, options, diag);
}

TEST(TpuTest, VfioV5eHostMatchesFixture) {
  manifest::LoadResult loaded;
  manifest::Loader(manifest::LoadOptions{})
      .LoadPath(std::string(DRA_TESTDATA_DIR) + "/fixtures/tpu/node-tpu-v5e.yaml", &loaded);
  ASSERT_EQ(loaded.error_count(), 0u);
  ASSERT_EQ(loaded.objects.size(), 1u);
  const auto* slice = std::get_if<api::ResourceSlice>(&loaded.objects[0].object);
  ASSERT_NE(slice, nullptr);
  ASSERT_EQ(slice->spec.pool.name, kFixtureNode);

  FakeFs fs;
  AddV5eHost(fs);
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  EXPECT_EQ(Names(*devices), Names(slice->spec.devices));
  // Every attribute, the uuid included: our substitute uses the fixture
  // generator's namespace and name.
  EXPECT_EQ(*devices, slice->spec.devices);
  EXPECT_FALSE(diag.partial());
}

TEST(TpuTest, VfioV5eAttributes) {
  FakeFs fs;
  AddV5eHost(fs);
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_THAT(Names(*devices), ElementsAre("0", "1", "2", "3", "4", "5", "6", "7"));
  for (size_t device_idx = 0; device_idx < devices->size(); ++device_idx) {
    const api::Device& d = (*devices)[device_idx];
    EXPECT_EQ(IntAttr(d, "index"), static_cast<int64_t>(device_idx));
    EXPECT_EQ(StringAttr(d, "accelerator"), "tpu-v5-lite-podslice");
    EXPECT_EQ(StringAttr(d, "tpuGen"), "v5litepod");
    EXPECT_EQ(StringAttr(d, "brand"), "Google");
    EXPECT_EQ(IntAttr(d, "chipCount"), 8);
    EXPECT_EQ(StringAttr(d, "topology"), "2x4");
    EXPECT_EQ(StringAttr(d, "uuid"), "tpu-0707963b-13b0-505e-a447-8fa21c1d61a5");
    EXPECT_EQ(d.attributes.size(), 7u);
    EXPECT_TRUE(d.capacity.empty());
  }
}

TEST(TpuTest, AccelNodesWinOverVfioGroups) {
  FakeFs fs;
  fs.File("/dev/accel0", "");
  fs.File("/dev/accel1", "");
  fs.File("/dev/accelerator", "");  // not ^accel[0-9]+$
  fs.Link("/sys/class/accel/accel0/device", "../../../0000:00:04.0");
  fs.Link("/sys/class/accel/accel1/device", "../../../0000:00:05.0");
  AddPciFunction(fs, "0000:00:04.0", {.device = 0x005e});
  AddPciFunction(fs, "0000:00:05.0", {.device = 0x005e});
  AddVfioChip(fs, "9", "0000:00:09.0");  // ignored: accel nodes come first
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "tpu-v4-podslice");
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_THAT(Names(*devices), ElementsAre("accel0", "accel1"));
  EXPECT_EQ(IntAttr((*devices)[1], "index"), 1);
  EXPECT_EQ(StringAttr((*devices)[0], "tpuGen"), "v4");
  EXPECT_EQ(IntAttr((*devices)[0], "chipCount"), 2);
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "1x2");
  EXPECT_THAT(TpuPciFunctions(fs), ElementsAre("0000:00:04.0", "0000:00:05.0"));
}

TEST(TpuTest, AccelGenerationFromPciIdsInNote) {
  FakeFs fs;
  fs.File("/dev/accel0", "");
  fs.Link("/sys/class/accel/accel0/device", "../../../0000:00:04.0");
  AddPciFunction(fs, "0000:00:04.0", {.device = 0x0027, .subsystem_device = 0x004f});
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("1 TPU chip of generation v3 found, accelerator type unknown")));
  EXPECT_FALSE(diag.partial());
}

TEST(TpuTest, AccelOrderIsLexicographic) {
  FakeFs fs;
  for (const char* name : {"accel0", "accel1", "accel10", "accel2"}) fs.File(std::string("/dev/") + name, "");
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "tpu-v4-podslice");
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(Names(*devices), ElementsAre("accel0", "accel1", "accel10", "accel2"));
  EXPECT_EQ(IntAttr((*devices)[2], "index"), 2);
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "2x2");
}

TEST(TpuTest, VfioGroupOrderIsLexicographic) {
  FakeFs fs;
  AddVfioChip(fs, "2", Bdf(0));
  AddVfioChip(fs, "10", Bdf(1));
  AddVfioChip(fs, "1", Bdf(2));
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "tpu-v6e-slice");
  ASSERT_TRUE(devices.ok());
  ASSERT_THAT(Names(*devices), ElementsAre("1", "10", "2"));
  EXPECT_EQ(IntAttr((*devices)[0], "index"), 0);
  EXPECT_EQ(IntAttr((*devices)[1], "index"), 1);
  EXPECT_EQ(IntAttr((*devices)[2], "index"), 2);
  // No single-host topology for 3 chips: the attribute is left out.
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "<absent>");
  EXPECT_EQ(StringAttr((*devices)[0], "tpuGen"), "v6e");
}

TEST(TpuTest, NonTpuFunctionsAreNotChips) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0), {.device = 0x001f});  // Google NVMe
  AddVfioChip(fs, "1", Bdf(1), {.device = 0x0042});  // gVNIC
  AddVfioChip(fs, "2", Bdf(2), {.device = 0xabcd});
  AddVfioChip(fs, "3", Bdf(3), {.vendor = 0x10de, .device = 0x2335});  // an H200
  fs.File("/dev/vfio/vfio", "");
  fs.File("/etc/tpu/tpu-env", "ACCELERATOR_TYPE: 'v5litepod-8'\n");
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
  EXPECT_THAT(diag.messages(), ElementsAre("note: no TPU chips found"));
  EXPECT_THAT(TpuPciFunctions(fs), IsEmpty());
}

TEST(TpuTest, GroupWithATpuAmongOtherFunctionsIsAChip) {
  FakeFs fs;
  AddVfioChip(fs, "5", "0000:00:04.0", {.device = 0x0042});
  fs.Link("/sys/kernel/iommu_groups/5/devices/0000:00:05.0", "../../../../devices/pci0000:00/0000:00:05.0");
  AddPciFunction(fs, "0000:00:05.0", {.device = 0x0062});
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("1 TPU chip of generation v5p found")));
  EXPECT_THAT(TpuPciFunctions(fs), ElementsAre("0000:00:05.0"));
}

TEST(TpuTest, UnknownDeviceIdIsAChipOfUnknownGeneration) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0), {.device = 0x0076});
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("1 TPU chip of generation unknown found, accelerator type "
                                                     "unknown")));

  // With an accelerator it is published; tpuGen comes from the accelerator.
  Diagnostics diag2;
  devices = Discover(fs, diag2, "tpu7x");
  ASSERT_TRUE(devices.ok());
  ASSERT_THAT(Names(*devices), ElementsAre("0"));
  EXPECT_EQ(StringAttr((*devices)[0], "tpuGen"), "tpu7x");
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "1x1");
}

TEST(TpuTest, MixedGenerationsVoidTheGeneration) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0), {.device = 0x0063});
  AddVfioChip(fs, "1", Bdf(1), {.device = 0x006f});
  Diagnostics diag;
  ASSERT_TRUE(Discover(fs, diag).ok());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("2 TPU chips of generation unknown found")));

  FakeFs same;
  AddVfioChip(same, "0", Bdf(0), {.device = 0x006f});
  AddVfioChip(same, "1", Bdf(1), {.device = 0x006f});
  Diagnostics diag2;
  ASSERT_TRUE(Discover(same, diag2).ok());
  EXPECT_THAT(diag2.messages(), ElementsAre(HasSubstr("2 TPU chips of generation v6e found")));
}

TEST(TpuTest, FlagOverridesEnvFile) {
  FakeFs fs;
  AddV5eHost(fs);
  fs.File("/etc/tpu/tpu-env", "ACCELERATOR_TYPE: 'v5litepod-16'\nTOPOLOGY: '4x4'\n");
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "tpu-v6e-slice");
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 8u);
  EXPECT_EQ(StringAttr((*devices)[0], "accelerator"), "tpu-v6e-slice");
  EXPECT_EQ(StringAttr((*devices)[0], "tpuGen"), "v6e");
  // The flag's source names no topology and the file is not consulted: the
  // single-host topology for 8 chips, not the file's 4x4.
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "2x4");
}

TEST(TpuTest, FlagTakesTpuEnvStyleTypes) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0));
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "v5litepod-1");
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(StringAttr((*devices)[0], "accelerator"), "tpu-v5-lite-podslice");
}

TEST(TpuTest, BadFlagIsInvalidArgument) {
  FakeFs fs;  // even without chips
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "h100");
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(devices.status().message(), HasSubstr("--tpu-accelerator \"h100\""));
}

TEST(TpuTest, EnvFileWithUnknownTypeWarns) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0));
  fs.File("/etc/tpu/tpu-env", "ACCELERATOR_TYPE: 'h100-8'\n");
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
  EXPECT_TRUE(diag.partial());
  EXPECT_THAT(diag.messages(),
              ElementsAre(HasSubstr("\"h100-8\" is not a known TPU type"), HasSubstr("accelerator type unknown")));
}

TEST(TpuTest, EnvFileLocationIsAnOption) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0));
  AddVfioChip(fs, "1", Bdf(1));
  fs.File("/run/tpu-env", "TYPE=v5p-8\nCHIPS_PER_HOST_BOUNDS=1,2,1\n");
  TpuOptions options;
  options.env_file = "/run/tpu-env";
  options.node_name = "n";
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = DiscoverTpu(fs, options, diag);
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ(StringAttr((*devices)[0], "accelerator"), "tpu-v5p-slice");
  EXPECT_EQ(StringAttr((*devices)[0], "topology"), "1x2");
}

TEST(TpuTest, MissingDeviceNodeDropsTheChip) {
  FakeFs fs;
  AddV5eHost(fs);
  // The listing still shows group 3, but its node no longer resolves.
  fs.DanglingLink("/dev/vfio/3", "/dev/vfio/gone");
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag);
  ASSERT_TRUE(devices.ok());
  ASSERT_THAT(Names(*devices), ElementsAre("0", "1", "2", "4", "5", "6", "7"));
  // Indices and chipCount are those of the chips found.
  EXPECT_EQ(IntAttr((*devices)[3], "index"), 4);
  EXPECT_EQ(IntAttr((*devices)[3], "chipCount"), 8);
  EXPECT_TRUE(diag.partial());
  EXPECT_THAT(diag.messages(), ElementsAre(HasSubstr("chip 3: device node /dev/vfio/3 is missing")));
}

TEST(TpuTest, NoChipsNoDevices) {
  FakeFs fs;
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = Discover(fs, diag, "tpu-v5p-slice");
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
  EXPECT_FALSE(diag.partial());
}

TEST(TpuTest, NodeNameIsRequiredToPublish) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0));
  TpuOptions options;
  options.accelerator = "tpu-v5-lite-device";
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = DiscoverTpu(fs, options, diag);
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), StatusCode::kInvalidArgument);
}

TEST(TpuTest, UuidIsSharedAndDependsOnTheNodeOnly) {
  FakeFs fs;
  AddVfioChip(fs, "0", Bdf(0));
  AddVfioChip(fs, "1", Bdf(1));
  TpuOptions options;
  options.accelerator = "tpu-v5-lite-device";
  options.node_name = "node-a";
  Diagnostics diag;
  StatusOr<std::vector<api::Device>> devices = DiscoverTpu(fs, options, diag);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(StringAttr((*devices)[0], "uuid"), "tpu-c3a4f414-9077-5237-b5f8-e308d2384cf4");
  EXPECT_EQ(StringAttr((*devices)[1], "uuid"), StringAttr((*devices)[0], "uuid"));
  EXPECT_EQ(StringAttr((*devices)[0], "tpuGen"), "v5lite");
}

struct EnvCase {
  std::string name;
  std::string text{};
  std::optional<std::string> accelerator_type{};
  std::optional<std::string> topology{};
  std::optional<std::string> bounds{};
};

TEST(TpuEnvTest, ParsesLineVariants) {
  const std::vector<EnvCase> cases = {
      {.name = "yaml_quoted",
       .text = "ACCELERATOR_TYPE: 'v5litepod-8'\nTOPOLOGY: '2x4'\nCHIPS_PER_HOST_BOUNDS: '2,4,1'\n",
       .accelerator_type = "v5litepod-8",
       .topology = "2x4",
       .bounds = "2,4,1"},
      {.name = "yaml_plain",
       .text = "ACCELERATOR_TYPE: v6e-8\nTOPOLOGY: 2x4",
       .accelerator_type = "v6e-8",
       .topology = "2x4"},
      {.name = "double_quoted", .text = "ACCELERATOR_TYPE: \"v5p-8\"\n", .accelerator_type = "v5p-8"},
      {.name = "shell",
       .text = "ACCELERATOR_TYPE=v4-8\r\nTOPOLOGY=2x2x1\r\n",
       .accelerator_type = "v4-8",
       .topology = "2x2x1"},
      {.name = "type_fallback", .text = "TYPE: 'V5LITE_POD'\n", .accelerator_type = "V5LITE_POD"},
      {.name = "accelerator_type_beats_type",
       .text = "TYPE: 'V4'\nACCELERATOR_TYPE: 'v5p-16'\n",
       .accelerator_type = "v5p-16"},
      {.name = "comments_blank_and_other_keys",
       .text = "# tpu-env\n\n  WORKER_ID: '0'\nTPU_ACCELERATOR_TYPE: x\nNOT A KEY\n  TOPOLOGY :  "
               "'4x4'  \n",
       .topology = "4x4"},
      {.name = "empty_value_is_absent", .text = "ACCELERATOR_TYPE: ''\nTYPE: v3-8\n", .accelerator_type = "v3-8"},
      {.name = "value_with_separator",
       .text = "TOPOLOGY=2x4\nACCELERATOR_TYPE: a=b\n",
       .accelerator_type = "a=b",
       .topology = "2x4"},
      {.name = "empty", .text = ""},
  };
  for (const EnvCase& c : cases) {
    tpu_internal::TpuEnv env = tpu_internal::ParseTpuEnv(c.text);
    EXPECT_EQ(env.accelerator_type, c.accelerator_type) << c.name;
    EXPECT_EQ(env.topology, c.topology) << c.name;
    EXPECT_EQ(env.chips_per_host_bounds, c.bounds) << c.name;
  }
}

TEST(TpuEnvTest, NormalizesAcceleratorTypes) {
  const std::vector<std::pair<std::string, std::optional<std::string>>> cases = {
      {"v5litepod-8", "tpu-v5-lite-podslice"},
      {"v5litepod-256", "tpu-v5-lite-podslice"},
      {"V5LITE_POD", "tpu-v5-lite-podslice"},
      {"v5lite-1", "tpu-v5-lite-device"},
      {"v5p-8", "tpu-v5p-slice"},
      {"v6e-8", "tpu-v6e-slice"},
      {"v4-8", "tpu-v4-podslice"},
      {"v3-8", "tpu-v3-device"},
      {"tpu-v5-lite-podslice", "tpu-v5-lite-podslice"},
      {"tpu-v6e-slice", "tpu-v6e-slice"},
      {" tpu7x ", "tpu7x"},
      {"v2-8", std::nullopt},
      {"tpu-v4-device", std::nullopt},
      {"h100", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(tpu_internal::NormalizeAccelerator(in), want) << in;
  }
}

TEST(TpuEnvTest, GenerationFromAccelerator) {
  const std::vector<std::pair<std::string, std::optional<std::string>>> cases = {
      {"tpu-v5-lite-podslice", "v5litepod"},
      {"tpu-v5-lite-device", "v5lite"},
      {"tpu-v5p-slice", "v5p"},
      {"tpu-v6e-slice", "v6e"},
      {"tpu-v4-podslice", "v4"},
      {"tpu-v4-lite-device", "v4lite"},
      {"tpu-v3-device", "v3"},
      {"tpu-v3-slice", "v3"},
      {"tpu7x", "tpu7x"},
      {"tpu8", "tpu8"},
      {"tpu-v4-device", std::nullopt},
      {"tpu-v4-lite-podslice", std::nullopt},
      {"tpu-v5-podslice", std::nullopt},
      {"tpu-v9-slice", std::nullopt},
      {"tpu-v5p-slice-extra", std::nullopt},
      {"v5litepod-8", std::nullopt},
      {"tpu-v5e", std::nullopt},
      {"tpu7xy", std::nullopt},
      {"tpu", std::nullopt},
      {"tpu-v", std::nullopt},
      {"tpu-v5-lite", std::nullopt},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(tpu_internal::TpuGeneration(in), want) << in;
  }
}

TEST(TpuUuidTest, MatchesRfc4122Vectors) {
  // The DNS namespace, 6ba7b810-9dad-11d1-80b4-00c04fd430c8.
  constexpr std::array<uint8_t, 16> kDns = {0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1,
                                            0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};
  // Python: uuid.uuid5(uuid.NAMESPACE_DNS, ...).
  EXPECT_EQ(tpu_internal::UuidV5(kDns, "www.example.com"), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
  EXPECT_EQ(tpu_internal::UuidV5(kDns, ""), "4ebd0208-8328-5d69-8c44-ec50939c0967");
  // Crosses SHA-1 block boundaries.
  EXPECT_EQ(tpu_internal::UuidV5(kDns, std::string(200, 'x')), "ddcc691a-b8e2-53e5-b059-6a232874b2eb");
}

}  // namespace
}  // namespace dra::discover
