#include "discover/recorded_fs.h"
#include "discover/testing/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "discover/host_fs.h"
#include "discover/nvml/recording.h"

namespace dra::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr std::string_view kHostRecording = R"json({
  "format": "dractl.nvml-recording", "version": 1,
  "sysfs": {
    "bus/pci/devices/0000:18:00.0": {
      "link": "../../../devices/pci0000:15/0000:15:01.0/0000:18:00.0",
      "files": {"vendor": "0x10de\n", "class": "0x030200\n", "numa_node": "0\n"},
      "links": {"driver": "../../../../bus/pci/drivers/nvidia",
                "iommu_group": "../../../../kernel/iommu_groups/12"}
    },
    "bus/pci/devices/0000:2a:00.0": {
      "link": "../../../devices/pci0000:15/0000:15:02.0/0000:2a:00.0",
      "files": {"vendor": "0x10de\n", "numa_node": "-1\n"}
    },
    "class/accel/accel0": {"link": "../../devices/pci0000:00/0000:00:04.0/accel/accel0"},
    "bus/pci/drivers/vfio-pci": {}
  },
  "dev": ["nvidia0", "nvidiactl", "vfio/0", "vfio/vfio"],
  "files": {"/etc/tpu/tpu-env": "TPU_ACCELERATOR_TYPE: 'v5litepod-8'\n"}
})json";

constexpr std::string_view kDev0 = "/sys/bus/pci/devices/0000:18:00.0";

nvml::Recording HostRecording() {
  StatusOr<nvml::Recording> r = nvml::ReadRecording(kHostRecording, "host.json");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

class TempDir : public dra::discover::testing::TempDir {
 public:
  TempDir() : dra::discover::testing::TempDir("recorded_fs_test") {}
};

std::unique_ptr<HostFs> DirFsAt(const std::string& dir) {
  return NewDirFs({.sysfs_root = dir + "/sys", .dev_root = dir + "/dev", .root = dir});
}

// One HostFs call and its answer, as text, so two backends can be compared.
enum class Op { kRead, kLink, kList, kExists };

std::string Answer(HostFs& fs, Op op, const std::string& path) {
  switch (op) {
    case Op::kRead: {
      StatusOr<std::string> r = fs.ReadFile(path);
      return r.ok() ? "file " + *r : std::string(StatusCodeName(r.status().code()));
    }
    case Op::kLink: {
      StatusOr<std::string> r = fs.ReadLink(path);
      return r.ok() ? "link " + *r : std::string(StatusCodeName(r.status().code()));
    }
    case Op::kList: {
      StatusOr<std::vector<std::string>> r = fs.List(path);
      if (!r.ok()) return std::string(StatusCodeName(r.status().code()));
      std::string out = "dir";
      for (const std::string& name : *r) out += " " + name;
      return out;
    }
    case Op::kExists: return fs.Exists(path) ? "exists" : "absent";
  }
  return "";
}

TEST(RecordedFsTest, ListsKeysFilesLinksAndImpliedDirectories) {
  std::unique_ptr<HostFs> fs = NewRecordedFs(HostRecording());
  EXPECT_THAT(*fs->List("/sys/bus/pci/devices"), ElementsAre("0000:18:00.0", "0000:2a:00.0"));
  EXPECT_THAT(*fs->List("/sys/bus/pci"), ElementsAre("devices", "drivers"));
  EXPECT_THAT(*fs->List("/sys"), ElementsAre("bus", "class"));
  EXPECT_THAT(*fs->List(kDev0), ElementsAre("class", "driver", "iommu_group", "numa_node", "vendor"));
  EXPECT_THAT(*fs->List("/sys/bus/pci/drivers/vfio-pci"), ::testing::IsEmpty());
  EXPECT_THAT(*fs->List("/dev"), ElementsAre("nvidia0", "nvidiactl", "vfio"));
  EXPECT_THAT(*fs->List("/dev/vfio"), ElementsAre("0", "vfio"));
  EXPECT_THAT(*fs->List("/"), ElementsAre("dev", "etc", "sys"));
  EXPECT_THAT(*fs->List("/etc/tpu"), ElementsAre("tpu-env"));
}

TEST(RecordedFsTest, ReadsFilesAndLinks) {
  std::unique_ptr<HostFs> fs = NewRecordedFs(HostRecording());
  EXPECT_EQ(*fs->ReadFile(std::string(kDev0) + "/numa_node"), "0\n");
  EXPECT_EQ(*fs->ReadLink(kDev0), "../../../devices/pci0000:15/0000:15:01.0/0000:18:00.0");
  EXPECT_EQ(*fs->ReadLink(std::string(kDev0) + "/driver"), "../../../../bus/pci/drivers/nvidia");
  EXPECT_EQ(*fs->ReadFile("/etc/tpu/tpu-env"), "TPU_ACCELERATOR_TYPE: 'v5litepod-8'\n");
  EXPECT_EQ(*fs->ReadFile("/dev/nvidia0"), "");
  EXPECT_TRUE(fs->Exists("/dev/vfio/0"));
  EXPECT_TRUE(fs->Exists("/sys/class/accel/accel0"));
  EXPECT_TRUE(fs->Exists("/sys/bus"));
  // Lexical normalisation.
  EXPECT_EQ(*fs->ReadFile("//sys/bus/pci/devices/0000:18:00.0/./vendor"), "0x10de\n");
  EXPECT_THAT(*fs->List("/sys/bus/pci/devices/"), ElementsAre("0000:18:00.0", "0000:2a:00.0"));
}

TEST(RecordedFsTest, WhatTheRecordingLacksDoesNotExist) {
  std::unique_ptr<HostFs> fs = NewRecordedFs(HostRecording());
  StatusOr<std::string> missing = fs->ReadFile("/sys/bus/pci/devices/0000:99:00.0/vendor");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/sys/bus/pci/devices/0000:99:00.0/vendor: not in the recording"));
  EXPECT_FALSE(fs->Exists("/dev/nvidia1"));
  EXPECT_EQ(fs->List("/sys/class/net").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs->ReadLink("/etc/hostname").status().code(), StatusCode::kNotFound);
  // ".." is not resolved, so it is never found.
  EXPECT_EQ(fs->ReadFile(std::string(kDev0) + "/../0000:2a:00.0/vendor").status().code(), StatusCode::kNotFound);
  // Wrong kinds.
  EXPECT_EQ(fs->ReadLink(std::string(kDev0) + "/vendor").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs->List(std::string(kDev0) + "/vendor").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs->ReadFile(kDev0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs->ReadFile(std::string(kDev0) + "/driver").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs->ReadFile("sys/bus").status().code(), StatusCode::kInvalidArgument);
}

// Every path the recording names, their parents, and some it does not.
std::vector<std::string> Probes() {
  std::vector<std::string> paths = {
      "/",
      "/sys/bus",
      "/sys/bus/pci",
      "/sys/bus/pci/devices",
      std::string(kDev0),
      std::string(kDev0) + "/vendor",
      std::string(kDev0) + "/class",
      std::string(kDev0) + "/numa_node",
      std::string(kDev0) + "/driver",
      std::string(kDev0) + "/iommu_group",
      std::string(kDev0) + "/missing",
      "/sys/bus/pci/devices/0000:2a:00.0",
      "/sys/bus/pci/devices/0000:2a:00.0/numa_node",
      "/sys/bus/pci/devices/0000:99:00.0",
      "/sys/class",
      "/sys/class/accel",
      "/sys/class/accel/accel0",
      "/sys/bus/pci/drivers",
      "/sys/bus/pci/drivers/vfio-pci",
      "/sys",
      "/dev",
      "/dev/nvidia0",
      "/dev/nvidiactl",
      "/dev/nvidia7",
      "/dev/vfio",
      "/dev/vfio/0",
      "/dev/vfio/vfio",
      "/etc",
      "/etc/tpu",
      "/etc/tpu/tpu-env",
      "/etc/tpu/other",
  };
  return paths;
}

// Documented differences of a materialised tree (recorded_fs.h): listings of
// /sys show link targets' ancestors ("devices"); a `links` entry is a
// dangling link on disk (List: NOT_FOUND) but not a directory in the
// recording (List: INVALID_ARGUMENT).
bool Comparable(Op op, const std::string& path) {
  if (op != Op::kList) return true;
  return path != "/sys" && path != std::string(kDev0) + "/driver" && path != std::string(kDev0) + "/iommu_group";
}

TEST(MaterializeRecordedFsTest, DirFsReadsWhatRecordedFsReads) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  nvml::Recording recording = HostRecording();
  Status s = MaterializeRecordedFs(recording, dir.path());
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<HostFs> recorded = NewRecordedFs(recording);
  std::unique_ptr<HostFs> real = DirFsAt(dir.path());
  for (const std::string& path : Probes()) {
    for (Op op : {Op::kRead, Op::kLink, Op::kList, Op::kExists}) {
      if (!Comparable(op, path)) continue;
      EXPECT_EQ(Answer(*real, op, path), Answer(*recorded, op, path))
          << "op " << static_cast<int>(op) << " on " << path;
    }
  }
  // The link target exists as a directory holding the files.
  EXPECT_TRUE(fs::is_regular_file(dir.path() + "/sys/devices/pci0000:15/0000:15:01.0/0000:18:00.0/vendor"));
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/sys/bus/pci/devices/0000:18:00.0"));
}

TEST(MaterializeRecordedFsTest, NeverWritesOutsideTheDirectory) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  StatusOr<nvml::Recording> recording = nvml::ReadRecording(R"json({
    "format": "dractl.nvml-recording", "version": 1,
    "sysfs": {
      "a/abs": {"link": "/dractl-materialize-test/abs", "files": {"f": "1"}},
      "a/up": {"link": "../../../../../dractl-materialize-test/up", "files": {"g": "2"}}
    }})json",
                                                            "escape.json");
  ASSERT_TRUE(recording.ok()) << recording.status().ToString();
  Status s = MaterializeRecordedFs(*recording, dir.path());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(fs::is_regular_file(dir.path() + "/dractl-materialize-test/abs/f"));
  EXPECT_TRUE(fs::is_regular_file(dir.path() + "/dractl-materialize-test/up/g"));
  EXPECT_FALSE(fs::exists("/dractl-materialize-test"));
  // The links themselves are kept verbatim.
  EXPECT_EQ(fs::read_symlink(dir.path() + "/sys/a/abs").string(), "/dractl-materialize-test/abs");
}

TEST(RecordingFsTest, ReplayAnswersWhatWasRead) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(MaterializeRecordedFs(HostRecording(), dir.path()).ok());
  std::unique_ptr<HostFs> real = DirFsAt(dir.path());
  nvml::Recording out = nvml::NewRecording({});
  std::unique_ptr<HostFs> recording_fs = NewRecordingFs(*real, &out);

  // What discover does: list the PCI functions, then read each one.
  const std::vector<std::pair<Op, std::string>> calls = {
      {Op::kList, "/sys/bus/pci/devices"},
      {Op::kLink, std::string(kDev0)},
      {Op::kRead, std::string(kDev0) + "/vendor"},
      {Op::kRead, std::string(kDev0) + "/numa_node"},
      {Op::kLink, std::string(kDev0) + "/driver"},
      {Op::kLink, std::string(kDev0) + "/iommu_group"},
      {Op::kRead, std::string(kDev0) + "/missing"},
      {Op::kRead, "/sys/bus/pci/devices/0000:2a:00.0/vendor"},
      {Op::kExists, "/dev/nvidia0"},
      {Op::kExists, "/dev/nvidia7"},
      {Op::kList, "/dev"},
      {Op::kExists, "/sys/class/accel/accel0"},
      {Op::kRead, "/etc/tpu/tpu-env"},
      {Op::kList, "/sys/bus/pci/drivers/vfio-pci"},
  };
  std::vector<std::string> live;
  for (const auto& [op, path] : calls) live.push_back(Answer(*recording_fs, op, path));
  EXPECT_EQ(live[0], "dir 0000:18:00.0 0000:2a:00.0");
  EXPECT_EQ(live[6], "NOT_FOUND");

  Status valid = nvml::ValidateRecording(out, "recorded");
  ASSERT_TRUE(valid.ok()) << valid.ToString() << "\n" << nvml::WriteRecording(out);
  std::unique_ptr<HostFs> replay = NewRecordedFs(out);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(Answer(*replay, calls[i].first, calls[i].second), live[i]) << calls[i].second;
  }
  // Listing /dev kept the vfio directory through its entries.
  EXPECT_THAT(*replay->List("/dev/vfio"), ElementsAre("0", "vfio"));
  // The listed device that was never read is still there, with its link.
  EXPECT_EQ(*replay->ReadLink("/sys/bus/pci/devices/0000:2a:00.0"),
            "../../../devices/pci0000:15/0000:15:02.0/0000:2a:00.0");
  const manifest::Node* dev0 = out.root.Find("sysfs")->Find("bus/pci/devices/0000:18:00.0");
  ASSERT_NE(dev0, nullptr);
  EXPECT_EQ(dev0->Find("links")->Find("driver")->text, "../../../../bus/pci/drivers/nvidia");
}

TEST(DirFsTest, ErrorsNameThePathAndTheSystemError) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::unique_ptr<HostFs> real = DirFsAt(dir.path());
  StatusOr<std::string> r = real->ReadFile("/sys/nothing");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/sys/nothing (read at " + dir.path() + "/sys/nothing)"));
  EXPECT_THAT(r.status().message(), HasSubstr("No such file or directory"));
  EXPECT_EQ(real->List("relative").status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(real->Exists("/dev/nvidia0"));
  // The default roots read the host as it is.
  std::unique_ptr<HostFs> host = NewDirFs({});
  EXPECT_TRUE(host->Exists("/"));
  StatusOr<std::vector<std::string>> names = host->List("/");
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_TRUE(std::is_sorted(names->begin(), names->end()));
}

}  // namespace
}  // namespace dra::discover
