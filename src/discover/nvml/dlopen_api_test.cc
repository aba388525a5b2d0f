// LoadNvml over tests/discover/fake_nvml: the real dlopen path, without a GPU.
#include "discover/nvml/dlopen_api.h"
#include "discover/testing/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "discover/fake_nvml/api_walk.h"
#include "discover/nvml/recording.h"
#include "discover/nvml/recording_api.h"
#include "discover/nvml/replay_api.h"

namespace dra::discover::nvml {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kTestRecording;
using testing::WalkApi;
using testing::WalkOptions;

namespace fs = std::filesystem;

constexpr const char* kFake = DRA_FAKE_NVML_PATH;
constexpr const char* kFakeOld = DRA_FAKE_NVML_OLD_PATH;

class TempDir : public dra::discover::testing::TempDir {
 public:
  TempDir() : dra::discover::testing::TempDir("dlopen_api_test") {}
};

class DlopenApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    UseRecording(kTestRecording);
  }
  void TearDown() override { unsetenv("DRACTL_FAKE_NVML_RECORDING"); }

  void UseRecording(std::string_view text) {
    std::string path = dir_.path() + "/recording.json";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    setenv("DRACTL_FAKE_NVML_RECORDING", path.c_str(), 1);
  }

  static Recording Read(std::string_view text) {
    StatusOr<Recording> r = ReadRecording(text, "test.json");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  }

  // Real time: the fake blocks in EventSetWait, so NowMs is not compared.
  static WalkOptions RealTime() { return WalkOptions{.with_clock = false}; }

  TempDir dir_;
};

TEST_F(DlopenApiTest, FakeLibraryAnswersLikeTheReplay) {
  std::string loaded;
  std::vector<std::string> missing = {"stale"};
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = kFake}, &loaded, &missing);
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  EXPECT_EQ(loaded, kFake);
  EXPECT_THAT(missing, ::testing::IsEmpty());

  int64_t start = (*api)->NowMs();
  std::vector<std::string> through_dlopen = WalkApi(**api, RealTime());
  int64_t elapsed = (*api)->NowMs() - start;
  ReplayApi replay(Read(kTestRecording));
  EXPECT_EQ(through_dlopen, WalkApi(replay, RealTime()));
  // Three events by 70 ms, then two 100 ms timeouts: the fake blocks as NVML does.
  EXPECT_GE(elapsed, 270);
  EXPECT_LT(elapsed, 20000);
}

TEST_F(DlopenApiTest, OldLibraryUsesTheFallbacks) {
  std::string loaded;
  std::vector<std::string> missing;
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = kFakeOld}, &loaded, &missing);
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  EXPECT_THAT(missing, ElementsAre("nvmlInitWithFlags", "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetAddressingMode"));
  std::vector<std::string> through_dlopen = WalkApi(**api, RealTime());

  // The same answers as a replay of a library without nvmlDeviceGetAddressingMode:
  // init through nvmlInit_v2 and PCI info through _v2 answer as usual.
  Recording expected = Read(kTestRecording);
  tree::Find(expected.root, "missingSymbols")->Push(manifest::Node::String("nvmlDeviceGetAddressingMode"));
  ReplayApi replay(expected);
  EXPECT_EQ(through_dlopen, WalkApi(replay, RealTime()));
  EXPECT_THAT(through_dlopen, ::testing::Contains("dev0 AddressingMode = 13 0"));
  EXPECT_THAT(through_dlopen, ::testing::Contains("InitWithFlags(1) = 0"));
  EXPECT_THAT(through_dlopen, ::testing::Contains("dev0 PciInfo = 0 '00000000:18:00.0' '0000:18:00.0' 0 24 0 "
                                                  "590680286 415109342"));
}

TEST_F(DlopenApiTest, RecordingTheFakeReplaysTheSameAnswers) {
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = kFake}, nullptr);
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  Recording recorded = NewRecording({.node_name = "n", .library = kFake});
  RecordingApi recorder(**api, &recorded);
  std::vector<std::string> live = WalkApi(recorder, RealTime());
  StatusOr<Recording> reread = ReadRecording(WriteRecording(recorded), "recorded.json");
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();
  ReplayApi replay(std::move(*reread));
  EXPECT_EQ(WalkApi(replay, RealTime()), live);
  // Real-time atMs: at least the recorded ones, as the fake sleeps until then.
  const manifest::Node* events = recorded.root.Find("events");
  ASSERT_NE(events, nullptr);
  ASSERT_EQ(events->items.size(), 3u);
  EXPECT_GE(tree::ToInt(*events->items[2].Find("atMs")).value_or(0), 70);
}

TEST_F(DlopenApiTest, FakeIsUninitialisedUntilInit) {
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = kFake}, nullptr);
  ASSERT_TRUE(api.ok());
  unsigned int count = 0;
  EXPECT_EQ((*api)->DeviceGetCount(&count), kErrorUninitialized);
  EXPECT_EQ((*api)->Shutdown(), kErrorUninitialized);
  EXPECT_STREQ((*api)->ErrorString(kErrorUninitialized), "NVML_ERROR_UNINITIALIZED");
  unsetenv("DRACTL_FAKE_NVML_RECORDING");
  EXPECT_EQ((*api)->InitWithFlags(kInitFlagNoGpus), kErrorUnknown);
  UseRecording(kTestRecording);
  ASSERT_EQ((*api)->InitWithFlags(kInitFlagNoGpus), kSuccess);
  ASSERT_EQ((*api)->DeviceGetCount(&count), kSuccess);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ((*api)->Shutdown(), kSuccess);
  EXPECT_EQ((*api)->DeviceGetCount(&count), kErrorUninitialized);
}

TEST_F(DlopenApiTest, MissingLibraryNamesThePathAndDlerror) {
  std::string path = dir_.path() + "/no/libnvidia-ml.so.1";
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = path}, nullptr);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(api.status().message(), HasSubstr("--nvml-lib " + path));
  EXPECT_THAT(api.status().message(), HasSubstr("No such file or directory"));
}

TEST_F(DlopenApiTest, AFileThatIsNotALibrary) {
  std::string path = dir_.path() + "/libnvidia-ml.so.1";
  std::ofstream(path) << "not ELF\n";
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.library_path = path}, nullptr);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(), HasSubstr(path));
}

TEST(NvmlSearchPaths, FollowTheDriverRoot) {
  EXPECT_THAT(NvmlSearchPaths("/run/nvidia/driver/"),
              ElementsAre("/run/nvidia/driver/libnvidia-ml.so.1", "/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1",
                          "/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                          "/run/nvidia/driver/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1",
                          "/run/nvidia/driver/lib64/libnvidia-ml.so.1",
                          "/run/nvidia/driver/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                          "/run/nvidia/driver/lib/aarch64-linux-gnu/libnvidia-ml.so.1"));
  EXPECT_EQ(NvmlSearchPaths("/")[0], "/libnvidia-ml.so.1");
  EXPECT_EQ(NvmlSearchPaths("/")[1], "/usr/lib64/libnvidia-ml.so.1");
}

TEST_F(DlopenApiTest, DriverRootSearchFindsTheFirstRegularFileThroughSymlinks) {
  // A directory named like the library comes first and is skipped; the
  // symlink under usr/lib/x86_64-linux-gnu is followed to the fake.
  fs::create_directories(dir_.path() + "/libnvidia-ml.so.1");
  fs::create_directories(dir_.path() + "/usr/lib/x86_64-linux-gnu");
  fs::create_symlink(kFake, dir_.path() + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  fs::create_directories(dir_.path() + "/lib64");
  fs::create_symlink(kFakeOld, dir_.path() + "/lib64/libnvidia-ml.so.1");
  std::string loaded;
  std::vector<std::string> missing;
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.driver_root = dir_.path()}, &loaded, &missing);
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  EXPECT_EQ(loaded, fs::canonical(kFake).string());
  EXPECT_THAT(missing, ::testing::IsEmpty());  // the new fake, not the old one
}

TEST_F(DlopenApiTest, EmptyDriverRootListsWhatWasTried) {
  StatusOr<std::unique_ptr<Api>> api = LoadNvml({.driver_root = dir_.path()}, nullptr);
  if (api.ok())
    GTEST_SKIP() << "this machine has "
                 << "libnvidia-ml.so.1 on the loader path";
  EXPECT_EQ(api.status().code(), StatusCode::kNotFound);
  std::string message = api.status().message();
  EXPECT_THAT(message, HasSubstr("no libnvidia-ml.so.1 under driver root " + dir_.path()));
  EXPECT_THAT(message, HasSubstr(dir_.path() + "/usr/lib64/libnvidia-ml.so.1 (No such file"));
  EXPECT_THAT(message, HasSubstr("libnvidia-ml.so.1 through the dynamic loader ("));
}

}  // namespace
}  // namespace dra::discover::nvml
