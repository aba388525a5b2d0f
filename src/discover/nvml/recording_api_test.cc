#include "discover/nvml/recording_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "discover/fake_nvml/api_walk.h"
#include "discover/nvml/recording.h"
#include "discover/nvml/replay_api.h"

namespace dra::discover::nvml {
namespace {

using manifest::Node;
using ::testing::ElementsAre;
using testing::kTestRecording;
using testing::WalkApi;

Recording TestRecording() {
  StatusOr<Recording> recording = ReadRecording(kTestRecording, "test.json");
  EXPECT_TRUE(recording.ok()) << recording.status().ToString();
  return std::move(recording).value();
}

// Follows a path of mapping keys and sequence indices ("devices", "1", ...).
const Node* At(const Node& root, std::initializer_list<std::string_view> path) {
  const Node* n = &root;
  for (std::string_view step : path) {
    if (n == nullptr) return nullptr;
    if (n->is_sequence()) {
      size_t index = std::stoul(std::string(step));
      n = index < n->items.size() ? &n->items[index] : nullptr;
    } else {
      n = n->Find(step);
    }
  }
  return n;
}

std::string Text(const Node* n) { return n == nullptr ? "<absent>" : n->text; }

TEST(RecordingApiTest, ReplayOfARecordingAnswersTheSameWalk) {
  ReplayApi source(TestRecording());
  Recording recorded = NewRecording({.node_name = "test-node-1"});
  RecordingApi recorder(source, &recorded);
  std::vector<std::string> original = WalkApi(recorder);
  EXPECT_TRUE(recorder.unrecordable().empty()) << ::testing::PrintToString(recorder.unrecordable());

  // What was written is a valid recording, also after a trip through JSON.
  ASSERT_TRUE(ValidateRecording(recorded, "recorded").ok()) << ValidateRecording(recorded, "recorded").ToString();
  StatusOr<Recording> reread = ReadRecording(WriteRecording(recorded), "recorded.json");
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();

  ReplayApi replay(std::move(*reread));
  EXPECT_EQ(WalkApi(replay), original);
  // Every call the walk made now has an answer, even those the source lacked.
  EXPECT_TRUE(replay.unrecorded().empty()) << ::testing::PrintToString(replay.unrecorded());
  EXPECT_FALSE(source.unrecorded().empty());
}

TEST(RecordingApiTest, WritesAnswersWhereRecordingMdSays) {
  ReplayApi source(TestRecording());
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r);
  WalkApi(recorder);
  const Node& root = r.root;
  EXPECT_EQ(Text(At(root, {"init", "function"})), "nvmlInitWithFlags");
  EXPECT_EQ(Text(At(root, {"init", "flags"})), "1");
  EXPECT_EQ(Text(At(root, {"nvmlSystemGetDriverVersion", "version"})), "580.105.08");
  EXPECT_EQ(Text(At(root, {"nvmlDeviceGetCount_v2", "deviceCount"})), "2");
  EXPECT_EQ(Text(At(root, {"devices", "1", "index"})), "1");
  EXPECT_EQ(Text(At(root, {"devices", "0", "nvmlDeviceGetPciInfo_v3", "busId"})), "00000000:18:00.0");
  EXPECT_EQ(Text(At(root, {"devices", "0", "nvmlDeviceGetMemoryInfo", "total"})), "150754820096");
  // Getters of one value: signed, unsigned, 64-bit, and one on a MIG device.
  EXPECT_EQ(Text(At(root, {"devices", "1", "nvmlDeviceGetMinorNumber", "minorNumber"})), "1");
  EXPECT_EQ(Text(At(root, {"devices", "0", "nvmlDeviceGetBrand", "type"})), "14");
  EXPECT_EQ(Text(At(root, {"devices", "1", "nvmlDeviceGetSupportedEventTypes", "eventTypes"})), "11");
  const Node* mig_gi = At(root, {"devices", "1", "migDevices", "1", "nvmlDeviceGetGpuInstanceId"});
  ASSERT_NE(mig_gi, nullptr);
  EXPECT_EQ(Text(mig_gi->Find("id")), "7");
  EXPECT_EQ(Text(mig_gi->Find("ret")), "0");
  EXPECT_EQ(Text(At(root, {"devices", "0", "nvmlDeviceGetGpuInstanceProfileInfo", "4", "id"})), "0");
  EXPECT_EQ(Text(At(root, {"devices", "0", "nvmlDeviceGetGpuInstanceProfileInfo", "5", "ret"})), "3");
  const Node* placements =
      At(root, {"devices", "0", "nvmlDeviceGetGpuInstancePossiblePlacements_v2", "14", "placements"});
  ASSERT_NE(placements, nullptr);
  ASSERT_EQ(placements->items.size(), 3u);
  EXPECT_EQ(placements->items[2].items[0].text, "4");
  EXPECT_EQ(Text(At(root, {"devices", "1", "migDevices", "1", "nvmlDeviceGetUUID", "uuid"})),
            "MIG-66666666-7777-5888-9999-aaaaaaaaaaaa");
  EXPECT_EQ(Text(At(root, {"devices", "1", "migDevices", "2", "nvmlDeviceGetMigDeviceHandleByIndex", "ret"})), "6");
  EXPECT_EQ(Text(At(root, {"devices", "1", "gpuInstances", "2", "nvmlGpuInstanceGetInfo", "placement", "1"})), "4");
  EXPECT_EQ(Text(At(root, {"devices", "1", "gpuInstances", "2", "nvmlGpuInstanceGetComputeInstanceProfileInfo", "2/0",
                           "id"})),
            "2");
  EXPECT_EQ(Text(At(root, {"devices", "1", "gpuInstances", "2", "computeInstances", "0",
                           "nvmlComputeInstanceGetInfo_v2", "profileId"})),
            "2");
  EXPECT_EQ(Text(At(root, {"devices", "1", "nvmlDeviceRegisterEvents", "ret"})), "3");
  // A function the library lacks goes to missingSymbols, not to an answer.
  EXPECT_EQ(At(root, {"devices", "0", "nvmlDeviceGetVirtualizationMode"}), nullptr);
  const Node* missing = root.Find("missingSymbols");
  ASSERT_NE(missing, nullptr);
  ASSERT_EQ(missing->items.size(), 1u);
  EXPECT_EQ(missing->items[0].text, "nvmlDeviceGetVirtualizationMode");
  // Events: not the timeouts; atMs from the first wait; device as NVML index.
  const Node* events = root.Find("events");
  ASSERT_NE(events, nullptr);
  ASSERT_EQ(events->items.size(), 3u);
  EXPECT_EQ(Text(At(*events, {"0", "atMs"})), "20");
  EXPECT_EQ(Text(At(*events, {"0", "device"})), "1");
  EXPECT_EQ(Text(At(*events, {"0", "eventData"})), "95");
  EXPECT_EQ(Text(At(*events, {"1", "device"})), "0");
  EXPECT_EQ(Text(At(*events, {"1", "gpuInstanceId"})), "4294967295");
  EXPECT_EQ(Text(At(*events, {"2", "atMs"})), "70");
  EXPECT_EQ(Text(At(*events, {"2", "ret"})), "15");
  EXPECT_EQ(At(*events, {"2", "device"}), nullptr);
}

TEST(RecordingApiTest, ShortBufferStillRecordsTheWholeString) {
  ReplayApi source(TestRecording());
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r);
  Device gpu = nullptr;
  ASSERT_EQ(recorder.DeviceGetHandleByIndex(0, &gpu), kSuccess);
  char name[5];
  EXPECT_EQ(recorder.DeviceGetName(gpu, name, sizeof name), kErrorInsufficientSize);
  EXPECT_EQ(Text(At(r.root, {"devices", "0", "nvmlDeviceGetName", "name"})), "NVIDIA H200");
  char version[3];
  EXPECT_EQ(recorder.SystemGetDriverVersion(version, sizeof version), kErrorInsufficientSize);
  EXPECT_EQ(Text(At(r.root, {"nvmlSystemGetDriverVersion", "version"})), "580.105.08");
  // The replay answers both lengths as the library did.
  ReplayApi replay(r);
  Device replayed = nullptr;
  ASSERT_EQ(replay.DeviceGetHandleByIndex(0, &replayed), kSuccess);
  EXPECT_EQ(replay.DeviceGetName(replayed, name, sizeof name), kErrorInsufficientSize);
  char full[kDeviceNameBufferSize];
  ASSERT_EQ(replay.DeviceGetName(replayed, full, sizeof full), kSuccess);
  EXPECT_STREQ(full, "NVIDIA H200");
}

TEST(RecordingApiTest, CountOnlyPlacementCallRecordsTheList) {
  ReplayApi source(TestRecording());
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r);
  Device gpu = nullptr;
  ASSERT_EQ(recorder.DeviceGetHandleByIndex(1, &gpu), kSuccess);
  unsigned int count = 0;
  ASSERT_EQ(recorder.DeviceGetGpuInstancePossiblePlacements(gpu, 9, nullptr, &count), kSuccess);
  EXPECT_EQ(count, 2u);
  const Node* list = At(r.root, {"devices", "1", "nvmlDeviceGetGpuInstancePossiblePlacements_v2", "9", "placements"});
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].items[0].text, "4");
  EXPECT_EQ(list->items[1].items[1].text, "4");
}

TEST(RecordingApiTest, CallerMistakesAreForwardedButNotRecorded) {
  ReplayApi source(TestRecording());
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r);
  Device gpu = nullptr;
  ASSERT_EQ(recorder.DeviceGetHandleByIndex(0, &gpu), kSuccess);
  unsigned int minor = 7;
  ASSERT_EQ(recorder.DeviceGetMinorNumber(gpu, &minor), kSuccess);
  EXPECT_EQ(recorder.DeviceGetMinorNumber(gpu, nullptr), kErrorInvalidArgument);
  EXPECT_EQ(Text(At(r.root, {"devices", "0", "nvmlDeviceGetMinorNumber", "ret"})), "0");
  DeviceAddressingMode mode{};  // version not set
  EXPECT_EQ(recorder.DeviceGetAddressingMode(gpu, &mode), 25);
  EXPECT_EQ(At(r.root, {"devices", "0", "nvmlDeviceGetAddressingMode"}), nullptr);
  // A handle the recorder never handed out has no place in the recording.
  EXPECT_EQ(recorder.DeviceGetMinorNumber(reinterpret_cast<Device>(uintptr_t{0x99}), &minor), kErrorInvalidArgument);
  EXPECT_THAT(recorder.unrecordable(), ElementsAre("nvmlDeviceGetMinorNumber: unknown device handle"));
}

TEST(RecordingApiTest, MissingSymbolsFromTheLoaderAndFallbacks) {
  Recording source_recording = TestRecording();
  Node& missing = *tree::Find(source_recording.root, "missingSymbols");
  for (std::string_view s : kDeviceGetPciInfoSymbols) missing.Push(Node::String(std::string(s)));
  ReplayApi source(source_recording);
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r, {"nvmlInitWithFlags"});
  EXPECT_EQ(recorder.InitWithFlags(kInitFlagNoGpus), kSuccess);
  EXPECT_EQ(Text(At(r.root, {"init", "function"})), "nvmlInit_v2");
  Device gpu = nullptr;
  ASSERT_EQ(recorder.DeviceGetHandleByIndex(0, &gpu), kSuccess);
  PciInfo pci{};
  EXPECT_EQ(recorder.DeviceGetPciInfo(gpu, &pci), kErrorFunctionNotFound);
  std::vector<std::string> names;
  for (const Node& n : r.root.Find("missingSymbols")->items) names.push_back(n.text);
  EXPECT_THAT(names, ElementsAre("nvmlInitWithFlags", "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",
                                 "nvmlDeviceGetPciInfo"));
  ReplayApi replay(r);
  Device replayed = nullptr;
  ASSERT_EQ(replay.DeviceGetHandleByIndex(0, &replayed), kSuccess);
  EXPECT_EQ(replay.DeviceGetPciInfo(replayed, &pci), kErrorFunctionNotFound);
}

TEST(RecordingApiTest, InitWithFlagsZeroIsNvmlInitV2) {
  ReplayApi source(TestRecording());
  Recording r = NewRecording({});
  RecordingApi recorder(source, &r);
  EXPECT_EQ(recorder.InitWithFlags(0), kSuccess);
  EXPECT_EQ(Text(At(r.root, {"init", "function"})), "nvmlInit_v2");
  EXPECT_EQ(Text(At(r.root, {"init", "flags"})), "0");
}

}  // namespace
}  // namespace dra::discover::nvml
