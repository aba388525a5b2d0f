#include "discover/nvml/replay_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "discover/fake_nvml/api_walk.h"
#include "discover/nvml/recording.h"

namespace dra::discover::nvml {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kTestRecording;

Recording TestRecording() {
  StatusOr<Recording> recording = ReadRecording(kTestRecording, "test.json");
  EXPECT_TRUE(recording.ok()) << recording.status().ToString();
  return std::move(recording).value();
}

class ReplayApiTest : public ::testing::Test {
 protected:
  ReplayApiTest() : api_(TestRecording()) {}

  Device Gpu(unsigned int index) {
    Device device = nullptr;
    EXPECT_EQ(api_.DeviceGetHandleByIndex(index, &device), kSuccess);
    return device;
  }

  ReplayApi api_;
};

TEST_F(ReplayApiTest, AnswersRecordedCalls) {
  EXPECT_EQ(api_.InitWithFlags(kInitFlagNoGpus), kSuccess);
  char version[kSystemDriverVersionBufferSize];
  ASSERT_EQ(api_.SystemGetDriverVersion(version, sizeof version), kSuccess);
  EXPECT_STREQ(version, "580.105.08");
  int cuda = 0;
  ASSERT_EQ(api_.SystemGetCudaDriverVersion(&cuda), kSuccess);
  EXPECT_EQ(cuda, 13000);
  unsigned int count = 0;
  ASSERT_EQ(api_.DeviceGetCount(&count), kSuccess);
  EXPECT_EQ(count, 2u);

  Device gpu0 = Gpu(0);
  char uuid[kDeviceUuidBufferSize];
  ASSERT_EQ(api_.DeviceGetUUID(gpu0, uuid, sizeof uuid), kSuccess);
  EXPECT_STREQ(uuid, "GPU-ba5e6264-eef2-57f7-a7e8-3aa87a6df396");
  Memory memory{};
  ASSERT_EQ(api_.DeviceGetMemoryInfo(gpu0, &memory), kSuccess);
  EXPECT_EQ(memory.total, 150754820096ull);
  EXPECT_EQ(memory.used, 754820096ull);
  PciInfo pci{};
  ASSERT_EQ(api_.DeviceGetPciInfo(gpu0, &pci), kSuccess);
  EXPECT_STREQ(pci.busId, "00000000:18:00.0");
  EXPECT_STREQ(pci.busIdLegacy, "0000:18:00.0");
  EXPECT_EQ(pci.bus, 24u);
  EXPECT_EQ(pci.pciDeviceId, 590680286u);
  GpuInstanceProfileInfo info{};
  ASSERT_EQ(api_.DeviceGetGpuInstanceProfileInfo(gpu0, 4, &info), kSuccess);
  EXPECT_EQ(info.id, 0u);
  EXPECT_EQ(info.multiprocessorCount, 132u);
  EXPECT_EQ(info.memorySizeMB, 143360u);
  // Recorded error answers come back as recorded.
  EXPECT_EQ(api_.DeviceGetGpuInstanceProfileInfo(gpu0, 5, &info), kErrorNotSupported);
  EXPECT_EQ(api_.DeviceGetGpuInstanceProfileInfo(gpu0, 17, &info), kErrorInvalidArgument);
  unsigned int n = 0;
  EXPECT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 0, nullptr, &n), kErrorNoPermission);
  EXPECT_EQ(api_.DeviceGetMemoryInfo(Gpu(1), &memory), kErrorNotSupported);
  EXPECT_TRUE(api_.unrecorded().empty()) << ::testing::PrintToString(api_.unrecorded());
}

TEST_F(ReplayApiTest, AbsentAnswersAreNotSupportedAndRemembered) {
  Device gpu0 = Gpu(0);
  GpuInstanceProfileInfo info{};
  EXPECT_EQ(api_.DeviceGetGpuInstanceProfileInfo(gpu0, 3, &info), kErrorNotSupported);
  EXPECT_EQ(api_.DeviceGetGpuInstanceProfileInfo(gpu0, 3, &info), kErrorNotSupported);
  Device gpu2 = nullptr;
  EXPECT_EQ(api_.DeviceGetHandleByIndex(2, &gpu2), kErrorNotSupported);
  Device mig = nullptr;
  EXPECT_EQ(api_.DeviceGetMigDeviceHandleByIndex(gpu0, 0, &mig), kErrorNotSupported);
  ComputeInstanceProfileInfo ci_info{};
  GpuInstance gi = nullptr;
  ASSERT_EQ(api_.DeviceGetGpuInstanceById(Gpu(1), 7, &gi), kSuccess);
  EXPECT_EQ(api_.GpuInstanceGetComputeInstanceProfileInfo(gi, 1, 0, &ci_info), kErrorNotSupported);
  unsigned int n = 0;
  EXPECT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 5, nullptr, &n), kErrorNotSupported);
  EXPECT_THAT(
      api_.unrecorded(),
      ElementsAre("devices[0].nvmlDeviceGetGpuInstanceProfileInfo[3]", "devices[2].nvmlDeviceGetHandleByIndex_v2",
                  "devices[0].migDevices[0].nvmlDeviceGetMigDeviceHandleByIndex",
                  "devices[1].gpuInstances[7].nvmlGpuInstanceGetComputeInstanceProfileInfo[1/0]",
                  "devices[0].nvmlDeviceGetGpuInstancePossiblePlacements_v2[5]"));
}

TEST_F(ReplayApiTest, MissingSymbolsAnswerFunctionNotFound) {
  int mode = 0;
  EXPECT_EQ(api_.DeviceGetVirtualizationMode(Gpu(0), &mode), kErrorFunctionNotFound);
  // Before argument checks, as a call to an absent symbol cannot happen at all.
  EXPECT_EQ(api_.DeviceGetVirtualizationMode(nullptr, nullptr), kErrorFunctionNotFound);
  EXPECT_TRUE(api_.unrecorded().empty());
  EXPECT_THAT(api_.missing_symbols(), ElementsAre("nvmlDeviceGetVirtualizationMode"));
}

TEST(ReplayApiFallbacks, MethodWithFallbacksNeedsAllSymbolsMissing) {
  Recording recording = TestRecording();
  manifest::Node& missing = *tree::Find(recording.root, "missingSymbols");
  missing.Push(manifest::Node::String("nvmlDeviceGetPciInfo_v3"));
  missing.Push(manifest::Node::String("nvmlInitWithFlags"));
  {
    ReplayApi api(recording);
    Device gpu = nullptr;
    ASSERT_EQ(api.DeviceGetHandleByIndex(0, &gpu), kSuccess);
    PciInfo pci{};
    EXPECT_EQ(api.DeviceGetPciInfo(gpu, &pci), kSuccess);  // _v2 answers
    EXPECT_EQ(api.InitWithFlags(1), kSuccess);             // nvmlInit_v2 answers
  }
  missing.Push(manifest::Node::String("nvmlDeviceGetPciInfo_v2"));
  missing.Push(manifest::Node::String("nvmlDeviceGetPciInfo"));
  missing.Push(manifest::Node::String("nvmlInit_v2"));
  missing.Push(manifest::Node::String("nvmlInit"));
  ReplayApi api(recording);
  Device gpu = nullptr;
  ASSERT_EQ(api.DeviceGetHandleByIndex(0, &gpu), kSuccess);
  PciInfo pci{};
  EXPECT_EQ(api.DeviceGetPciInfo(gpu, &pci), kErrorFunctionNotFound);
  EXPECT_EQ(api.InitWithFlags(1), kErrorFunctionNotFound);
}

TEST_F(ReplayApiTest, CharBuffersHonourLength) {
  Device gpu0 = Gpu(0);
  // "NVIDIA H200" is 11 characters: 12 bytes with the NUL.
  char name[12];
  std::memset(name, 'x', sizeof name);
  EXPECT_EQ(api_.DeviceGetName(gpu0, name, 11), kErrorInsufficientSize);
  EXPECT_EQ(name[0], 'x');  // untouched
  EXPECT_EQ(api_.DeviceGetName(gpu0, name, 12), kSuccess);
  EXPECT_STREQ(name, "NVIDIA H200");
  EXPECT_EQ(api_.DeviceGetName(gpu0, nullptr, 12), kErrorInvalidArgument);
  char version[11];
  EXPECT_EQ(api_.SystemGetDriverVersion(version, 10), kErrorInsufficientSize);
  EXPECT_EQ(api_.SystemGetDriverVersion(version, 11), kSuccess);
  EXPECT_STREQ(version, "580.105.08");
}

TEST_F(ReplayApiTest, PlacementsCountThenFill) {
  Device gpu0 = Gpu(0);
  unsigned int count = 0;
  ASSERT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 14, nullptr, &count), kSuccess);
  EXPECT_EQ(count, 3u);
  GpuInstancePlacement placements[3] = {};
  unsigned int short_count = 2;
  EXPECT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 14, placements, &short_count), kErrorInsufficientSize);
  EXPECT_EQ(short_count, 3u);
  ASSERT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 14, placements, &count), kSuccess);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(placements[2].start, 4u);
  EXPECT_EQ(placements[2].size, 2u);
  EXPECT_EQ(api_.DeviceGetGpuInstancePossiblePlacements(gpu0, 14, placements, nullptr), kErrorInvalidArgument);
}

TEST_F(ReplayApiTest, StaticMigWalkUsesSyntheticHandles) {
  Device gpu1 = Gpu(1);
  EXPECT_EQ(Gpu(1), gpu1);  // stable
  EXPECT_NE(Gpu(0), gpu1);
  Device mig = nullptr;
  ASSERT_EQ(api_.DeviceGetMigDeviceHandleByIndex(gpu1, 0, &mig), kSuccess);
  EXPECT_NE(mig, gpu1);
  EXPECT_EQ(api_.DeviceGetMigDeviceHandleByIndex(gpu1, 2, &mig), kErrorNotFound);
  ASSERT_EQ(api_.DeviceGetMigDeviceHandleByIndex(gpu1, 0, &mig), kSuccess);
  char uuid[kDeviceUuidBufferSize];
  ASSERT_EQ(api_.DeviceGetUUID(mig, uuid, sizeof uuid), kSuccess);
  EXPECT_STREQ(uuid, "MIG-11111111-2222-5333-8444-555555555555");
  unsigned int gi_id = 0, ci_id = 9;
  ASSERT_EQ(api_.DeviceGetGpuInstanceId(mig, &gi_id), kSuccess);
  ASSERT_EQ(api_.DeviceGetComputeInstanceId(mig, &ci_id), kSuccess);
  EXPECT_EQ(gi_id, 2u);
  EXPECT_EQ(ci_id, 0u);
  // MIG handles have no MIG devices or GPU instances of their own.
  EXPECT_EQ(api_.DeviceGetMigDeviceHandleByIndex(mig, 0, &mig), kErrorInvalidArgument);

  GpuInstance gi = nullptr;
  ASSERT_EQ(api_.DeviceGetGpuInstanceById(gpu1, gi_id, &gi), kSuccess);
  GpuInstanceInfo gi_info{};
  ASSERT_EQ(api_.GpuInstanceGetInfo(gi, &gi_info), kSuccess);
  EXPECT_EQ(gi_info.device, gpu1);
  EXPECT_EQ(gi_info.profileId, 9u);
  EXPECT_EQ(gi_info.placement.start, 0u);
  EXPECT_EQ(gi_info.placement.size, 4u);
  ComputeInstance ci = nullptr;
  ASSERT_EQ(api_.GpuInstanceGetComputeInstanceById(gi, ci_id, &ci), kSuccess);
  ComputeInstanceInfo ci_info{};
  ASSERT_EQ(api_.ComputeInstanceGetInfo(ci, &ci_info), kSuccess);
  EXPECT_EQ(ci_info.device, gpu1);
  EXPECT_EQ(ci_info.gpuInstance, gi);
  EXPECT_EQ(ci_info.profileId, 2u);
  ComputeInstanceProfileInfo profile{};
  ASSERT_EQ(api_.GpuInstanceGetComputeInstanceProfileInfo(gi, 2, 0, &profile), kSuccess);
  EXPECT_EQ(profile.id, ci_info.profileId);
  EXPECT_EQ(profile.multiprocessorCount, 60u);
  EXPECT_TRUE(api_.unrecorded().empty()) << ::testing::PrintToString(api_.unrecorded());
}

TEST_F(ReplayApiTest, RejectsForeignHandlesAndNullOutputs) {
  unsigned int minor = 0;
  EXPECT_EQ(api_.DeviceGetMinorNumber(nullptr, &minor), kErrorInvalidArgument);
  EXPECT_EQ(api_.DeviceGetMinorNumber(reinterpret_cast<Device>(uintptr_t{0x1234}), &minor), kErrorInvalidArgument);
  EXPECT_EQ(api_.DeviceGetMinorNumber(Gpu(0), nullptr), kErrorInvalidArgument);
  GpuInstance gi = nullptr;
  ASSERT_EQ(api_.DeviceGetGpuInstanceById(Gpu(1), 2, &gi), kSuccess);
  // A GPU instance handle is not a device handle.
  EXPECT_EQ(api_.DeviceGetMinorNumber(reinterpret_cast<Device>(gi), &minor), kErrorInvalidArgument);
  GpuInstanceInfo info{};
  EXPECT_EQ(api_.GpuInstanceGetInfo(reinterpret_cast<GpuInstance>(Gpu(1)), &info), kErrorInvalidArgument);
  EXPECT_TRUE(api_.unrecorded().empty());
}

TEST_F(ReplayApiTest, AddressingModeChecksStructVersion) {
  DeviceAddressingMode mode{};
  EXPECT_EQ(api_.DeviceGetAddressingMode(Gpu(0), &mode), 25);  // ARGUMENT_VERSION_MISMATCH
  mode.version = kDeviceAddressingModeV1;
  ASSERT_EQ(api_.DeviceGetAddressingMode(Gpu(0), &mode), kSuccess);
  EXPECT_EQ(mode.value, 1u);
  EXPECT_EQ(api_.DeviceGetAddressingMode(Gpu(1), &mode), kErrorNotSupported);
}

TEST_F(ReplayApiTest, EventsRunOnAVirtualClock) {
  EventSet set = nullptr;
  ASSERT_EQ(api_.EventSetCreate(&set), kSuccess);
  EXPECT_EQ(api_.DeviceRegisterEvents(Gpu(0), 0xB, set), kSuccess);
  EXPECT_EQ(api_.DeviceRegisterEvents(Gpu(1), 0xB, set), kErrorNotSupported);
  EXPECT_EQ(api_.NowMs(), 0);
  EventData data{};
  // The first event is at 20 ms: a 10 ms wait times out first.
  EXPECT_EQ(api_.EventSetWait(set, &data, 10), kErrorTimeout);
  EXPECT_EQ(api_.NowMs(), 10);
  ASSERT_EQ(api_.EventSetWait(set, &data, 5000), kSuccess);
  EXPECT_EQ(api_.NowMs(), 20);
  EXPECT_EQ(data.device, Gpu(1));
  EXPECT_EQ(data.eventType, kEventTypeXidCriticalError);
  EXPECT_EQ(data.eventData, 95u);
  EXPECT_EQ(data.gpuInstanceId, 2u);
  EXPECT_EQ(data.computeInstanceId, 0u);
  ASSERT_EQ(api_.EventSetWait(set, &data, 5000), kSuccess);
  EXPECT_EQ(data.device, Gpu(0));
  EXPECT_EQ(data.eventData, 13u);
  EXPECT_EQ(data.gpuInstanceId, kNoInstance);
  EXPECT_EQ(api_.NowMs(), 50);
  EXPECT_EQ(api_.EventSetWait(set, &data, 5000), kErrorGpuIsLost);
  EXPECT_EQ(api_.NowMs(), 70);
  EXPECT_EQ(api_.EventSetWait(set, &data, 5000), kErrorTimeout);
  EXPECT_EQ(api_.NowMs(), 5070);
  EXPECT_EQ(api_.EventSetFree(set), kSuccess);
  EXPECT_EQ(api_.EventSetWait(set, &data, 5000), kErrorInvalidArgument);
  EXPECT_EQ(api_.EventSetFree(set), kErrorInvalidArgument);
  EXPECT_TRUE(api_.unrecorded().empty());
}

TEST_F(ReplayApiTest, AdvanceClockNeverGoesBack) {
  api_.AdvanceClockTo(60);
  EXPECT_EQ(api_.NowMs(), 60);
  api_.AdvanceClockTo(30);
  EXPECT_EQ(api_.NowMs(), 60);
  EventSet set = nullptr;
  ASSERT_EQ(api_.EventSetCreate(&set), kSuccess);
  // Events already due come out at once, without moving the clock back.
  EventData data{};
  EXPECT_EQ(api_.EventSetWait(set, &data, 0), kSuccess);
  EXPECT_EQ(api_.NowMs(), 60);
}

TEST(ReplayApiEvents, NoEventListTimesOutAndSaysSo) {
  Recording recording = NewRecording({.node_name = "n"});
  for (size_t i = 0; i < recording.root.keys.size(); ++i) {
    if (recording.root.keys[i].first != "events") continue;
    recording.root.items.erase(recording.root.items.begin() + static_cast<std::ptrdiff_t>(i));
    recording.root.keys.erase(recording.root.keys.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  ASSERT_EQ(recording.root.Find("events"), nullptr);
  tree::Set(recording.root, "nvmlEventSetCreate", manifest::Node::Mapping());
  tree::Set(*tree::Find(recording.root, "nvmlEventSetCreate"), "ret", manifest::Node::Int(0));
  ReplayApi api(recording);
  EventSet set = nullptr;
  ASSERT_EQ(api.EventSetCreate(&set), kSuccess);
  EventData data{};
  EXPECT_EQ(api.EventSetWait(set, &data, 5000), kErrorTimeout);
  EXPECT_EQ(api.NowMs(), 5000);
  EXPECT_THAT(api.unrecorded(), ElementsAre("events"));
  EXPECT_EQ(api.node_name(), "n");
}

TEST(ReplayApiMalformed, UnvalidatedAnswerIsUnknownError) {
  Recording recording = NewRecording({});
  manifest::Node answer = manifest::Node::Mapping();
  answer.Add("ret", manifest::Node::Int(0));
  answer.Add("cudaDriverVersion", manifest::Node::String("13.0"));
  tree::Set(recording.root, "nvmlSystemGetCudaDriverVersion", std::move(answer));
  ReplayApi api(recording);
  int version = 0;
  EXPECT_EQ(api.SystemGetCudaDriverVersion(&version), kErrorUnknown);
  ASSERT_EQ(api.unrecorded().size(), 1u);
  EXPECT_THAT(api.unrecorded()[0], HasSubstr("nvmlSystemGetCudaDriverVersion (malformed"));
}

TEST_F(ReplayApiTest, MiscAnswers) {
  EXPECT_EQ(api_.node_name(), "test-node-1");
  EXPECT_STREQ(api_.ErrorString(kErrorGpuIsLost), "NVML_ERROR_GPU_IS_LOST");
  EXPECT_EQ(api_.Shutdown(), kSuccess);
}

TEST(ReplayApiWalk, TwoReplaysOfOneRecordingAgree) {
  ReplayApi a(TestRecording());
  ReplayApi b(TestRecording());
  std::vector<std::string> walk = testing::WalkApi(a);
  EXPECT_EQ(walk, testing::WalkApi(b));
  EXPECT_GT(walk.size(), 100u);
  // The walk asks for a few things on purpose that no recording holds.
  EXPECT_THAT(a.unrecorded(), ::testing::Contains("devices[2].nvmlDeviceGetHandleByIndex_v2"));
  EXPECT_THAT(a.unrecorded(), ::testing::Contains("devices[1].migDevices[0].nvmlDeviceGetName"));
}

// ---- ReadRecording / WriteRecording ----

TEST(ReadRecording, WriteReadRoundTrip) {
  Recording recording = TestRecording();
  std::string text = WriteRecording(recording);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_THAT(text, HasSubstr("\n  \"format\": \"dractl.nvml-recording\","));
  StatusOr<Recording> again = ReadRecording(text, "again.json");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->root, recording.root);
  EXPECT_EQ(RecordingNodeName(*again), "test-node-1");
}

TEST(ReadRecording, NewRecordingIsValid) {
  Recording recording = NewRecording({.recorded_at = "2026-12-01T10:00:00Z",
                                      .node_name = "node-a",
                                      .euid = 1000,
                                      .library = "/usr/lib64/libnvidia-ml.so.1"});
  EXPECT_TRUE(ValidateRecording(recording, "new").ok());
  StatusOr<Recording> read = ReadRecording(WriteRecording(recording), "new.json");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(RecordingNodeName(*read), "node-a");
  const manifest::Node* meta = read->root.Find("meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->Find("euid")->text, "1000");
  EXPECT_NE(meta->Find("dractlVersion")->text, "");
}

struct BadCase {
  std::string name;
  std::string text;
  std::string want;  // substring of the message
};

TEST(ReadRecording, ReportsWhatIsWrongAndWhere) {
  auto with = [](std::string_view body) {
    return fmt::format("{{\"format\": \"dractl.nvml-recording\", \"version\": 1, {}}}", body);
  };
  const BadCase cases[] = {
      {.name = "not_json", .text = "{", .want = "bad.json:1:2: JSON: "},
      {.name = "two_values", .text = "{} {}", .want = "bad.json: a recording is one JSON object"},
      {.name = "not_object", .text = "[]", .want = "bad.json:1:1: recording: must be a JSON object"},
      {.name = "no_format", .text = "{\"version\": 1}", .want = "format: missing"},
      {.name = "wrong_format",
       .text = "{\"format\": \"dractl.scenario\", \"version\": 1}",
       .want = "bad.json:1:12: format: is \"dractl.scenario\", not \"dractl.nvml-recording\""},
      {.name = "wrong_version",
       .text = "{\"format\": \"dractl.nvml-recording\", \"version\": 2}",
       .want = "version: is 2; this dractl reads version 1"},
      {.name = "missing_output",
       .text = with("\"devices\": [{\"index\": 0, \"nvmlDeviceGetName\": {\"ret\": 0}}]"),
       .want = "devices[0].nvmlDeviceGetName: \"name\" is missing (ret is 0)"},
      {.name = "meta_not_object", .text = with("\"meta\": 1"), .want = "meta: must be an object"},
      {.name = "no_ret",
       .text = with("\"nvmlDeviceGetCount_v2\": {\"deviceCount\": 2}"),
       .want = "nvmlDeviceGetCount_v2: \"ret\" is missing"},
      {.name = "negative_unsigned",
       .text = with("\"nvmlDeviceGetCount_v2\": {\"ret\": 0, \"deviceCount\": -1}"),
       .want = "nvmlDeviceGetCount_v2.deviceCount: is -1, expected an unsigned 32-bit integer"},
      {.name = "too_big_u32",
       .text = with("\"devices\": [{\"index\": 0, \"nvmlDeviceGetMinorNumber\": "
                    "{\"ret\": 0, \"minorNumber\": 4294967296}}]"),
       .want = "devices[0].nvmlDeviceGetMinorNumber.minorNumber: is 4294967296"},
      {.name = "index_mismatch",
       .text = with("\"devices\": [{\"index\": 1}]"),
       .want = "devices[0].index: is 1, but the entry is at position 0"},
      {.name = "bad_profile_key",
       .text = with("\"devices\": [{\"index\": 0, \"nvmlDeviceGetGpuInstanceProfileInfo\": "
                    "{\"0x1\": {\"ret\": 3}}}]"),
       .want = "devices[0].nvmlDeviceGetGpuInstanceProfileInfo[0x1]: key \"0x1\" is not a "
               "decimal number"},
      {.name = "gi_id_too_big",
       .text = with("\"devices\": [{\"index\": 0, \"gpuInstances\": {\"70000\": {}}}]"),
       .want = "devices[0].gpuInstances[70000]: key \"70000\" is not a decimal number up to 65535"},
      {.name = "ci_profile_key",
       .text = with("\"devices\": [{\"index\": 0, \"gpuInstances\": {\"1\": "
                    "{\"nvmlGpuInstanceGetComputeInstanceProfileInfo\": {\"2\": {\"ret\": 3}}}}}]"),
       .want = "key \"2\" is not \"<profile>/<engProfile>\""},
      {.name = "bad_placement",
       .text = with("\"devices\": [{\"index\": 0, "
                    "\"nvmlDeviceGetGpuInstancePossiblePlacements_v2\": "
                    "{\"19\": {\"ret\": 0, \"placements\": [[0, 1, 2]]}}}]"),
       .want = "placements: is list, expected a list of [start, size] pairs"},
      {.name = "bus_id_too_long",
       .text = with("\"devices\": [{\"index\": 0, \"nvmlDeviceGetPciInfo_v3\": {\"ret\": 0, "
                    "\"busId\": \"00000000000000000000000000000000:18:00.0\", "
                    "\"busIdLegacy\": \"0000:18:00.0\", \"domain\": 0, \"bus\": 24, "
                    "\"device\": 0, \"pciDeviceId\": 1, \"pciSubSystemId\": 1}}]"),
       .want = "busId: is 40 bytes long; NVML's buffer holds at most 31"},
      {.name = "events_out_of_order",
       .text = with("\"events\": [{\"atMs\": 5, \"ret\": 15}, {\"atMs\": 4, \"ret\": 15}]"),
       .want = "events[1].atMs: 4 is earlier than the event before (5)"},
      {.name = "event_without_device",
       .text = with("\"events\": [{\"atMs\": 5, \"ret\": 0, \"eventType\": 8}]"),
       .want = "events[0]: \"device\" is missing (ret is 0)"},
      {.name = "sysfs_dotdot",
       .text = with("\"sysfs\": {\"bus/../etc\": {}}"),
       .want = "sysfs[bus/../etc]: a key must be a path relative to /sys"},
      {.name = "sysfs_file_not_string",
       .text = with("\"sysfs\": {\"bus/pci/devices/x\": {\"files\": {\"vendor\": 4318}}}"),
       .want = "sysfs[bus/pci/devices/x].files[vendor]: is 4318, expected a string"},
      {.name = "files_under_sys",
       .text = with("\"files\": {\"/sys/x\": \"y\"}"),
       .want = "files[/sys/x]: paths under /sys and /dev belong in \"sysfs\" and \"dev\""},
      {.name = "dev_absolute",
       .text = with("\"dev\": [\"/dev/nvidia0\"]"),
       .want = "dev[0]: \"/dev/nvidia0\" is not a path relative to /dev"},
  };
  for (const BadCase& c : cases) {
    StatusOr<Recording> r = ReadRecording(c.text, "bad.json");
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(r.status().message(), HasSubstr(c.want)) << c.name;
    EXPECT_THAT(r.status().message(), ::testing::StartsWith("bad.json")) << c.name;
  }
}

TEST(ReadRecording, AcceptsErrorAnswersWithoutOutputsAndUnknownKeys) {
  StatusOr<Recording> r = ReadRecording(
      "{\"format\": \"dractl.nvml-recording\", \"version\": 1, \"later\": [1],"
      " \"devices\": [{\"index\": 0, \"nvmlDeviceGetName\": {\"ret\": 3},"
      " \"nvmlDeviceGetModuleId\": {\"ret\": 0, \"moduleId\": 1}}]}",
      "ok.json");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(ReadRecording, ErrorsCarryLineAndColumn) {
  std::string text =
      "{\"format\": \"dractl.nvml-recording\", \"version\": 1,\n"
      " \"nvmlDeviceGetCount_v2\": {\"ret\": 0,\n"
      "   \"deviceCount\": \"two\"}}\n";
  StatusOr<Recording> r = ReadRecording(text, "lines.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "lines.json:3:19: nvmlDeviceGetCount_v2.deviceCount: is \"two\", expected an "
            "unsigned 32-bit integer");
}

}  // namespace
}  // namespace dra::discover::nvml
