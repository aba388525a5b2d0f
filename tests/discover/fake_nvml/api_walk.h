// Test helpers shared by the nvml backend tests: a small hand-written
// recording (2 GPUs; GPU 1 has MIG on with two MIG devices; a subset of the
// GI profile table; three events) and WalkApi, which makes every nvml::Api
// call discover makes (and a few it should never need) and returns one line
// per call and answer (ApiWalk: the phases, in order). Two backends answer alike iff their walks are equal.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "discover/nvml/api.h"

namespace dra::discover::nvml::testing {

// Top-level keys are in WriteRecording's order, so a write/read round trip
// gives back an equal tree.
inline constexpr std::string_view kTestRecording = R"json({
  "format": "dractl.nvml-recording", "version": 1,
  "meta": {"dractlVersion": "0.1.0", "recordedAt": "2026-12-01T10:00:00Z",
           "nodeName": "test-node-1", "euid": 0, "anonymized": false,
           "library": "libnvidia-ml.so.1", "nvmlVersion": "13.580.105.08"},
  "missingSymbols": ["nvmlDeviceGetVirtualizationMode"],
  "init": {"function": "nvmlInitWithFlags", "flags": 1, "ret": 0},
  "nvmlSystemGetDriverVersion": {"ret": 0, "version": "580.105.08"},
  "nvmlSystemGetCudaDriverVersion": {"ret": 0, "cudaDriverVersion": 13000},
  "nvmlDeviceGetCount_v2": {"ret": 0, "deviceCount": 2},
  "devices": [
    {
      "index": 0,
      "nvmlDeviceGetHandleByIndex_v2": {"ret": 0},
      "nvmlDeviceGetName": {"ret": 0, "name": "NVIDIA H200"},
      "nvmlDeviceGetUUID": {"ret": 0, "uuid": "GPU-ba5e6264-eef2-57f7-a7e8-3aa87a6df396"},
      "nvmlDeviceGetMinorNumber": {"ret": 0, "minorNumber": 0},
      "nvmlDeviceGetBrand": {"ret": 0, "type": 14},
      "nvmlDeviceGetArchitecture": {"ret": 0, "arch": 9},
      "nvmlDeviceGetCudaComputeCapability": {"ret": 0, "major": 9, "minor": 0},
      "nvmlDeviceGetMemoryInfo": {"ret": 0, "total": 150754820096, "free": 150000000000,
                                  "used": 754820096},
      "nvmlDeviceGetPciInfo_v3": {"ret": 0, "busId": "00000000:18:00.0",
                                  "busIdLegacy": "0000:18:00.0", "domain": 0, "bus": 24,
                                  "device": 0, "pciDeviceId": 590680286,
                                  "pciSubSystemId": 415109342},
      "nvmlDeviceGetAddressingMode": {"ret": 0, "value": 1},
      "nvmlDeviceGetMigMode": {"ret": 0, "currentMode": 0, "pendingMode": 0},
      "nvmlDeviceGetGpuInstanceProfileInfo": {
        "0": {"ret": 0, "id": 19, "isP2pSupported": 0, "sliceCount": 1, "instanceCount": 7,
              "multiprocessorCount": 16, "copyEngineCount": 1, "decoderCount": 1,
              "encoderCount": 0, "jpegCount": 1, "ofaCount": 0, "memorySizeMB": 16384},
        "1": {"ret": 0, "id": 14, "isP2pSupported": 0, "sliceCount": 2, "instanceCount": 3,
              "multiprocessorCount": 32, "copyEngineCount": 2, "decoderCount": 2,
              "encoderCount": 0, "jpegCount": 2, "ofaCount": 0, "memorySizeMB": 33024},
        "4": {"ret": 0, "id": 0, "isP2pSupported": 0, "sliceCount": 7, "instanceCount": 1,
              "multiprocessorCount": 132, "copyEngineCount": 8, "decoderCount": 7,
              "encoderCount": 0, "jpegCount": 7, "ofaCount": 1, "memorySizeMB": 143360},
        "5": {"ret": 3},
        "17": {"ret": 2}
      },
      "nvmlDeviceGetGpuInstancePossiblePlacements_v2": {
        "19": {"ret": 0, "placements": [[0,1],[1,1],[2,1],[3,1],[4,1],[5,1],[6,1]]},
        "14": {"ret": 0, "placements": [[0,2],[2,2],[4,2]]},
        "0": {"ret": 4}
      },
      "nvmlDeviceGetMaxMigDeviceCount": {"ret": 0, "count": 7},
      "nvmlDeviceGetSupportedEventTypes": {"ret": 0, "eventTypes": 15},
      "nvmlDeviceRegisterEvents": {"ret": 0},
      "migDevices": {},
      "gpuInstances": {}
    },
    {
      "index": 1,
      "nvmlDeviceGetHandleByIndex_v2": {"ret": 0},
      "nvmlDeviceGetName": {"ret": 0, "name": "NVIDIA H200"},
      "nvmlDeviceGetUUID": {"ret": 0, "uuid": "GPU-0c9b3a3e-4b1c-5d7e-8f90-123456789abc"},
      "nvmlDeviceGetMinorNumber": {"ret": 0, "minorNumber": 1},
      "nvmlDeviceGetBrand": {"ret": 0, "type": 14},
      "nvmlDeviceGetArchitecture": {"ret": 0, "arch": 9},
      "nvmlDeviceGetCudaComputeCapability": {"ret": 0, "major": 9, "minor": 0},
      "nvmlDeviceGetMemoryInfo": {"ret": 3},
      "nvmlDeviceGetPciInfo_v3": {"ret": 0, "busId": "00000000:2A:00.0",
                                  "busIdLegacy": "0000:2A:00.0", "domain": 0, "bus": 42,
                                  "device": 0, "pciDeviceId": 590680286,
                                  "pciSubSystemId": 415109342},
      "nvmlDeviceGetAddressingMode": {"ret": 3},
      "nvmlDeviceGetMigMode": {"ret": 0, "currentMode": 1, "pendingMode": 1},
      "nvmlDeviceGetGpuInstanceProfileInfo": {
        "0": {"ret": 0, "id": 19, "isP2pSupported": 0, "sliceCount": 1, "instanceCount": 7,
              "multiprocessorCount": 16, "copyEngineCount": 1, "decoderCount": 1,
              "encoderCount": 0, "jpegCount": 1, "ofaCount": 0, "memorySizeMB": 16384},
        "2": {"ret": 0, "id": 9, "isP2pSupported": 0, "sliceCount": 3, "instanceCount": 2,
              "multiprocessorCount": 60, "copyEngineCount": 3, "decoderCount": 3,
              "encoderCount": 0, "jpegCount": 3, "ofaCount": 0, "memorySizeMB": 71168}
      },
      "nvmlDeviceGetGpuInstancePossiblePlacements_v2": {
        "19": {"ret": 0, "placements": [[0,1],[1,1],[2,1],[3,1],[4,1],[5,1],[6,1]]},
        "9": {"ret": 0, "placements": [[0,4],[4,4]]}
      },
      "nvmlDeviceGetMaxMigDeviceCount": {"ret": 0, "count": 7},
      "migDevices": {
        "0": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 0},
              "nvmlDeviceGetUUID": {"ret": 0, "uuid": "MIG-11111111-2222-5333-8444-555555555555"},
              "nvmlDeviceGetGpuInstanceId": {"ret": 0, "id": 2},
              "nvmlDeviceGetComputeInstanceId": {"ret": 0, "id": 0}},
        "1": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 0},
              "nvmlDeviceGetUUID": {"ret": 0, "uuid": "MIG-66666666-7777-5888-9999-aaaaaaaaaaaa"},
              "nvmlDeviceGetGpuInstanceId": {"ret": 0, "id": 7},
              "nvmlDeviceGetComputeInstanceId": {"ret": 0, "id": 0}},
        "2": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 6}},
        "3": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 6}},
        "4": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 6}},
        "5": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 6}},
        "6": {"nvmlDeviceGetMigDeviceHandleByIndex": {"ret": 6}}
      },
      "gpuInstances": {
        "2": {"nvmlDeviceGetGpuInstanceById": {"ret": 0},
              "nvmlGpuInstanceGetInfo": {"ret": 0, "id": 2, "profileId": 9, "placement": [0, 4]},
              "nvmlGpuInstanceGetComputeInstanceProfileInfo": {
                "2/0": {"ret": 0, "id": 2, "sliceCount": 3, "instanceCount": 1,
                        "multiprocessorCount": 60, "sharedCopyEngineCount": 3,
                        "sharedDecoderCount": 3, "sharedEncoderCount": 0,
                        "sharedJpegCount": 3, "sharedOfaCount": 0},
                "0/0": {"ret": 0, "id": 0, "sliceCount": 1, "instanceCount": 3,
                        "multiprocessorCount": 16, "sharedCopyEngineCount": 3,
                        "sharedDecoderCount": 3, "sharedEncoderCount": 0,
                        "sharedJpegCount": 3, "sharedOfaCount": 0},
                "4/0": {"ret": 2}
              },
              "computeInstances": {
                "0": {"nvmlGpuInstanceGetComputeInstanceById": {"ret": 0},
                      "nvmlComputeInstanceGetInfo_v2": {"ret": 0, "id": 0, "profileId": 2,
                                                        "placement": [0, 3]}}
              }},
        "7": {"nvmlDeviceGetGpuInstanceById": {"ret": 0},
              "nvmlGpuInstanceGetInfo": {"ret": 0, "id": 7, "profileId": 19, "placement": [4, 1]},
              "nvmlGpuInstanceGetComputeInstanceProfileInfo": {
                "0/0": {"ret": 0, "id": 0, "sliceCount": 1, "instanceCount": 1,
                        "multiprocessorCount": 16, "sharedCopyEngineCount": 1,
                        "sharedDecoderCount": 1, "sharedEncoderCount": 0,
                        "sharedJpegCount": 1, "sharedOfaCount": 0}
              },
              "computeInstances": {
                "0": {"nvmlGpuInstanceGetComputeInstanceById": {"ret": 0},
                      "nvmlComputeInstanceGetInfo_v2": {"ret": 0, "id": 0, "profileId": 0,
                                                        "placement": [0, 1]}}
              }}
      },
      "nvmlDeviceGetSupportedEventTypes": {"ret": 0, "eventTypes": 11},
      "nvmlDeviceRegisterEvents": {"ret": 3}
    }
  ],
  "nvmlEventSetCreate": {"ret": 0},
  "events": [
    {"atMs": 20, "ret": 0, "device": 1, "eventType": 8, "eventData": 95,
     "gpuInstanceId": 2, "computeInstanceId": 0},
    {"atMs": 50, "ret": 0, "device": 0, "eventType": 8, "eventData": 13,
     "gpuInstanceId": 4294967295, "computeInstanceId": 4294967295},
    {"atMs": 70, "ret": 15}
  ],
  "sysfs": {},
  "dev": ["nvidia0", "nvidia1", "nvidiactl"],
  "files": {}
}
)json";

struct WalkOptions {
  unsigned int wait_timeout_ms = 100;
  int waits = 5;
  // Print NowMs after each wait (equal only between backends on the same
  // virtual clock, not for a real library).
  bool with_clock = true;
  // Extra device index past the count, to ask for an absent answer.
  unsigned int extra_devices = 1;
};

inline std::string HandleText(const void* handle) { return fmt::format("{:#x}", reinterpret_cast<uintptr_t>(handle)); }

// One walk: WalkApi's phases, in order, each appending its lines to `out`.
struct ApiWalk {
  Api& api;
  const WalkOptions& options;
  std::vector<std::string> out = {};
  std::vector<Device> devices = {};
  std::vector<unsigned long long> supported = {};  // event types, by entry of `devices`

  void say(std::string line) { out.push_back(std::move(line)); }
  // Init, error strings, driver versions; returns the device count.
  unsigned int System();
  // Device `i` (past the count too): its handle and every per-device call.
  void DeviceAt(unsigned int i);
  // Identity, memory, PCI, addressing, MIG and virtualization modes.
  void Basics(Device dev, const std::string& d);
  // GPU instance profile `p` and its placements (full, counted, short).
  void GpuInstanceProfile(Device dev, const std::string& d, unsigned int p);
  // MIG device `k`: its ids, its GPU instance, compute instance profiles
  // and compute instance.
  void MigDevice(Device dev, const std::string& d, unsigned int k);
  // An event set over the devices' supported events, waits, and shutdown.
  void Events();
};

inline unsigned int ApiWalk::System() {
  say(fmt::format("InitWithFlags(1) = {}", api.InitWithFlags(kInitFlagNoGpus)));
  say(fmt::format("ErrorString(3) = {}", api.ErrorString(kErrorNotSupported)));
  {
    char version[kSystemDriverVersionBufferSize] = {};
    Return ret = api.SystemGetDriverVersion(version, sizeof version);
    say(fmt::format("SystemGetDriverVersion = {} '{}'", ret, ret == kSuccess ? version : ""));
    char small[4] = {};
    say(fmt::format("SystemGetDriverVersion(len 4) = {}", api.SystemGetDriverVersion(small, sizeof small)));
    int cuda = -1;
    ret = api.SystemGetCudaDriverVersion(&cuda);
    say(fmt::format("SystemGetCudaDriverVersion = {} {}", ret, cuda));
  }
  unsigned int count = 0;
  say(fmt::format("DeviceGetCount = {} {}", api.DeviceGetCount(&count), count));
  return count;
}

inline void ApiWalk::DeviceAt(unsigned int i) {
  Device dev = nullptr;
  Return ret = api.DeviceGetHandleByIndex(i, &dev);
  say(fmt::format("DeviceGetHandleByIndex({}) = {} {}", i, ret, HandleText(dev)));
  if (ret != kSuccess) return;
  devices.push_back(dev);
  std::string d = fmt::format("dev{}", i);

  Basics(dev, d);
  for (unsigned int p = 0; p < kGpuInstanceProfileCount; ++p) GpuInstanceProfile(dev, d, p);

  unsigned int max_mig = 0;
  ret = api.DeviceGetMaxMigDeviceCount(dev, &max_mig);
  say(fmt::format("{} MaxMigDeviceCount = {} {}", d, ret, max_mig));
  for (unsigned int k = 0; ret == kSuccess && k < max_mig; ++k) MigDevice(dev, d, k);

  unsigned long long types = 0;
  ret = api.DeviceGetSupportedEventTypes(dev, &types);
  say(fmt::format("{} SupportedEventTypes = {} {:#x}", d, ret, types));
  supported.push_back(ret == kSuccess ? types : 0);
}

inline void ApiWalk::Basics(Device dev, const std::string& d) {
  char name[kDeviceNameBufferSize] = {};
  Return ret = api.DeviceGetName(dev, name, sizeof name);
  say(fmt::format("{} Name = {} '{}'", d, ret, ret == kSuccess ? name : ""));
  char short_name[5] = {};
  say(fmt::format("{} Name(len 5) = {}", d, api.DeviceGetName(dev, short_name, 5)));
  char uuid[kDeviceUuidBufferSize] = {};
  ret = api.DeviceGetUUID(dev, uuid, sizeof uuid);
  say(fmt::format("{} UUID = {} '{}'", d, ret, ret == kSuccess ? uuid : ""));
  unsigned int minor = 0;
  ret = api.DeviceGetMinorNumber(dev, &minor);
  say(fmt::format("{} MinorNumber = {} {}", d, ret, minor));
  int brand = -1;
  ret = api.DeviceGetBrand(dev, &brand);
  say(fmt::format("{} Brand = {} {}", d, ret, brand));
  unsigned int arch = 0;
  ret = api.DeviceGetArchitecture(dev, &arch);
  say(fmt::format("{} Architecture = {} {}", d, ret, arch));
  int major = -1, minor_cc = -1;
  ret = api.DeviceGetCudaComputeCapability(dev, &major, &minor_cc);
  say(fmt::format("{} CudaComputeCapability = {} {}.{}", d, ret, major, minor_cc));
  Memory memory{};
  ret = api.DeviceGetMemoryInfo(dev, &memory);
  say(fmt::format("{} MemoryInfo = {} {} {} {}", d, ret, memory.total, memory.free, memory.used));
  PciInfo pci{};
  ret = api.DeviceGetPciInfo(dev, &pci);
  say(fmt::format("{} PciInfo = {} '{}' '{}' {} {} {} {} {}", d, ret, pci.busId, pci.busIdLegacy, pci.domain, pci.bus,
                  pci.device, pci.pciDeviceId, pci.pciSubSystemId));
  DeviceAddressingMode mode{};
  mode.version = kDeviceAddressingModeV1;
  ret = api.DeviceGetAddressingMode(dev, &mode);
  say(fmt::format("{} AddressingMode = {} {}", d, ret, mode.value));
  unsigned int current = 9, pending = 9;
  ret = api.DeviceGetMigMode(dev, &current, &pending);
  say(fmt::format("{} MigMode = {} {} {}", d, ret, current, pending));
  int virt = -1;
  ret = api.DeviceGetVirtualizationMode(dev, &virt);
  say(fmt::format("{} VirtualizationMode = {} {}", d, ret, virt));
}

inline void ApiWalk::GpuInstanceProfile(Device dev, const std::string& d, unsigned int p) {
  GpuInstanceProfileInfo info{};
  Return ret = api.DeviceGetGpuInstanceProfileInfo(dev, p, &info);
  say(fmt::format(
      "{} GpuInstanceProfileInfo({}) = {} id={} p2p={} slices={} instances={} "
      "sm={} ce={} dec={} enc={} jpeg={} ofa={} mem={}",
      d, p, ret, info.id, info.isP2pSupported, info.sliceCount, info.instanceCount, info.multiprocessorCount,
      info.copyEngineCount, info.decoderCount, info.encoderCount, info.jpegCount, info.ofaCount, info.memorySizeMB));
  if (ret != kSuccess) return;
  unsigned int n = 0;
  ret = api.DeviceGetGpuInstancePossiblePlacements(dev, info.id, nullptr, &n);
  say(fmt::format("{} Placements({}, null) = {} {}", d, info.id, ret, n));
  if (ret != kSuccess) return;
  std::vector<GpuInstancePlacement> placements(n + 1);
  unsigned int have = n + 1;
  ret = api.DeviceGetGpuInstancePossiblePlacements(dev, info.id, placements.data(), &have);
  std::string list;
  for (unsigned int k = 0; k < have && k < placements.size(); ++k) {
    list += fmt::format(" {}:{}", placements[k].start, placements[k].size);
  }
  say(fmt::format("{} Placements({}) = {} {}{}", d, info.id, ret, have, list));
  if (n > 0) {
    unsigned int short_count = n - 1;
    ret = api.DeviceGetGpuInstancePossiblePlacements(dev, info.id, placements.data(), &short_count);
    say(fmt::format("{} Placements({}, short) = {} {}", d, info.id, ret, short_count));
  }
}

inline void ApiWalk::MigDevice(Device dev, const std::string& d, unsigned int k) {
  Device mig = nullptr;
  Return mret = api.DeviceGetMigDeviceHandleByIndex(dev, k, &mig);
  say(fmt::format("{} MigDeviceHandleByIndex({}) = {} {}", d, k, mret, HandleText(mig)));
  if (mret != kSuccess) return;
  char mig_uuid[kDeviceUuidBufferSize] = {};
  mret = api.DeviceGetUUID(mig, mig_uuid, sizeof mig_uuid);
  say(fmt::format("{} mig{} UUID = {} '{}'", d, k, mret, mret == kSuccess ? mig_uuid : ""));
  unsigned int gi_id = 0, ci_id = 0;
  mret = api.DeviceGetGpuInstanceId(mig, &gi_id);
  say(fmt::format("{} mig{} GpuInstanceId = {} {}", d, k, mret, gi_id));
  mret = api.DeviceGetComputeInstanceId(mig, &ci_id);
  say(fmt::format("{} mig{} ComputeInstanceId = {} {}", d, k, mret, ci_id));
  // Asked on a MIG handle: not recorded, and never needed by discover.
  char mig_name[kDeviceNameBufferSize] = {};
  say(fmt::format("{} mig{} Name = {}", d, k, api.DeviceGetName(mig, mig_name, sizeof mig_name)));

  GpuInstance gi = nullptr;
  mret = api.DeviceGetGpuInstanceById(dev, gi_id, &gi);
  say(fmt::format("{} GpuInstanceById({}) = {} {}", d, gi_id, mret, HandleText(gi)));
  if (mret != kSuccess) return;
  GpuInstanceInfo gi_info{};
  mret = api.GpuInstanceGetInfo(gi, &gi_info);
  say(fmt::format("{} gi{} Info = {} dev={} id={} profile={} placement={}:{}", d, gi_id, mret,
                  HandleText(gi_info.device), gi_info.id, gi_info.profileId, gi_info.placement.start,
                  gi_info.placement.size));
  for (unsigned int j = 0; j < kComputeInstanceProfileCount; ++j) {
    ComputeInstanceProfileInfo cp{};
    Return cret = api.GpuInstanceGetComputeInstanceProfileInfo(gi, j, kComputeInstanceEngineProfileShared, &cp);
    say(fmt::format(
        "{} gi{} ComputeInstanceProfileInfo({}/0) = {} id={} slices={} "
        "instances={} sm={} ce={} dec={} enc={} jpeg={} ofa={}",
        d, gi_id, j, cret, cp.id, cp.sliceCount, cp.instanceCount, cp.multiprocessorCount, cp.sharedCopyEngineCount,
        cp.sharedDecoderCount, cp.sharedEncoderCount, cp.sharedJpegCount, cp.sharedOfaCount));
  }
  ComputeInstance ci = nullptr;
  mret = api.GpuInstanceGetComputeInstanceById(gi, ci_id, &ci);
  say(fmt::format("{} gi{} ComputeInstanceById({}) = {} {}", d, gi_id, ci_id, mret, HandleText(ci)));
  if (mret != kSuccess) return;
  ComputeInstanceInfo ci_info{};
  mret = api.ComputeInstanceGetInfo(ci, &ci_info);
  say(fmt::format("{} gi{} ci{} Info = {} dev={} gi={} id={} profile={} placement={}:{}", d, gi_id, ci_id, mret,
                  HandleText(ci_info.device), HandleText(ci_info.gpuInstance), ci_info.id, ci_info.profileId,
                  ci_info.placement.start, ci_info.placement.size));
}

inline void ApiWalk::Events() {
  EventSet set = nullptr;
  Return ret = api.EventSetCreate(&set);
  say(fmt::format("EventSetCreate = {} {}", ret, HandleText(set)));
  if (ret == kSuccess) {
    for (size_t i = 0; i < devices.size(); ++i) {
      unsigned long long mask =
          (kEventTypeXidCriticalError | kEventTypeDoubleBitEccError | kEventTypeSingleBitEccError) & supported[i];
      say(fmt::format("dev{} RegisterEvents({:#x}) = {}", i, mask, api.DeviceRegisterEvents(devices[i], mask, set)));
    }
    for (int w = 0; w < options.waits; ++w) {
      EventData data{};
      Return wret = api.EventSetWait(set, &data, options.wait_timeout_ms);
      std::string line = fmt::format("EventSetWait({}) = {}", options.wait_timeout_ms, wret);
      if (wret == kSuccess) {
        line += fmt::format(" dev={} type={} data={} gi={} ci={}", HandleText(data.device), data.eventType,
                            data.eventData, data.gpuInstanceId, data.computeInstanceId);
      }
      if (options.with_clock) line += fmt::format(" now={}", api.NowMs());
      say(std::move(line));
    }
    say(fmt::format("EventSetFree = {}", api.EventSetFree(set)));
  }
  say(fmt::format("Shutdown = {}", api.Shutdown()));
}

// Makes the calls and records the answers. Handles are printed as numbers:
// backends that share a handle scheme must agree on them too.
inline std::vector<std::string> WalkApi(Api& api, const WalkOptions& options = {}) {
  ApiWalk walk{.api = api, .options = options};
  const unsigned int count = walk.System();
  for (unsigned int i = 0; i < count + options.extra_devices; ++i) walk.DeviceAt(i);
  walk.Events();
  return std::move(walk.out);
}

}  // namespace dra::discover::nvml::testing
