// libfake_nvml.so: the NVML C symbols of src/discover/README.md §2.2, answered
// from the recording named by $DRACTL_FAKE_NVML_RECORDING through
// nvml::ReplayApi.
// Load it with `discover --nvml-lib` or nvml::LoadNvml to run the real dlopen
// path without a GPU. It proves symbol resolution, the versioned fallbacks
// (libfake_nvml_old.so, built with DRA_FAKE_NVML_OLD) and buffer handling; it
// cannot prove our struct layouts match NVIDIA's, since both sides use types.h.
//
// Behaves like the real library where the replay alone would not:
//   - the recording is read by the first successful nvmlInit*, and calls
//     before it (or after the last nvmlShutdown) answer
//     NVML_ERROR_UNINITIALIZED; init/shutdown are reference-counted;
//   - an unset variable or unreadable recording makes nvmlInit* answer
//     NVML_ERROR_UNKNOWN, with the reason on stderr;
//   - nvmlEventSetWait_v2 blocks in real time: the replay's clock is kept at
//     the real time since the first wait, and the call sleeps until the
//     replay's answer is due (an event's atMs, or the end of the timeout).
//     So a health wait of D takes D, as with the real library.
// Symbols outside nvml::Api: nvmlDeviceGetHandleByUUID searches the devices'
// UUIDs; nvmlSystemGetNVMLVersion answers meta.nvmlVersion (NOT_SUPPORTED if
// absent); nvmlDeviceGetModuleId answers NOT_SUPPORTED.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "discover/nvml/recording.h"
#include "discover/nvml/replay_api.h"

namespace {

namespace nvml = dra::discover::nvml;
using nvml::Return;

struct State {
  std::unique_ptr<nvml::ReplayApi> replay;
  int init_count = 0;
  std::optional<std::chrono::steady_clock::time_point> first_wait;
};

State& GetState() {
  static State state;
  return state;
}

// Reads the recording into a fresh replay; false (with a message) on failure.
bool Load(State& state) {
  const char* path = std::getenv("DRACTL_FAKE_NVML_RECORDING");
  if (path == nullptr || path[0] == '\0') {
    std::fprintf(stderr, "fake_nvml: DRACTL_FAKE_NVML_RECORDING is not set\n");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fake_nvml: cannot read %s: %s\n", path, std::strerror(errno));
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  dra::StatusOr<nvml::Recording> recording = nvml::ReadRecording(text.str(), path);
  if (!recording.ok()) {
    std::fprintf(stderr, "fake_nvml: %s\n", recording.status().ToString().c_str());
    return false;
  }
  state.replay = std::make_unique<nvml::ReplayApi>(std::move(*recording));
  state.first_wait.reset();
  return true;
}

Return Init(unsigned int flags) {
  State& state = GetState();
  if (state.init_count == 0 && !Load(state)) return nvml::kErrorUnknown;
  Return ret = state.replay->InitWithFlags(flags);
  if (ret != nvml::kSuccess) {
    if (state.init_count == 0) state.replay.reset();
    return ret;
  }
  ++state.init_count;
  return ret;
}

// The replay, or nullptr while NVML is not initialised.
nvml::ReplayApi* Live() {
  State& state = GetState();
  return state.init_count > 0 ? state.replay.get() : nullptr;
}

template <typename Fn>
Return WithReplay(Fn fn) {
  nvml::ReplayApi* replay = Live();
  if (replay == nullptr) return nvml::kErrorUninitialized;
  return fn(*replay);
}

}  // namespace

#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))

using nvml::ComputeInstance;
using nvml::ComputeInstanceInfo;
using nvml::ComputeInstanceProfileInfo;
using nvml::Device;
using nvml::DeviceAddressingMode;
using nvml::EventData;
using nvml::EventSet;
using nvml::GpuInstance;
using nvml::GpuInstanceInfo;
using nvml::GpuInstancePlacement;
using nvml::GpuInstanceProfileInfo;
using nvml::Memory;
using nvml::PciInfo;

#ifndef DRA_FAKE_NVML_OLD
FAKE_NVML_EXPORT Return nvmlInitWithFlags(unsigned int flags) { return Init(flags); }
#endif

FAKE_NVML_EXPORT Return nvmlInit_v2() { return Init(0); }

FAKE_NVML_EXPORT Return nvmlShutdown() {
  State& state = GetState();
  if (state.init_count == 0) return nvml::kErrorUninitialized;
  Return ret = state.replay->Shutdown();
  if (ret == nvml::kSuccess && --state.init_count == 0) state.replay.reset();
  return ret;
}

FAKE_NVML_EXPORT const char* nvmlErrorString(Return result) { return nvml::ReturnName(result); }

FAKE_NVML_EXPORT Return nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.SystemGetDriverVersion(version, length); });
}

FAKE_NVML_EXPORT Return nvmlSystemGetCudaDriverVersion(int* cuda_driver_version) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.SystemGetCudaDriverVersion(cuda_driver_version); });
}

FAKE_NVML_EXPORT Return nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  return WithReplay([&](nvml::ReplayApi& r) -> Return {
    if (version == nullptr) return nvml::kErrorInvalidArgument;
    const dra::manifest::Node* meta = r.recording().root.Find("meta");
    const dra::manifest::Node* text = meta != nullptr ? meta->Find("nvmlVersion") : nullptr;
    if (text == nullptr || text->kind != dra::manifest::NodeKind::kString) {
      return nvml::kErrorNotSupported;
    }
    if (text->text.size() + 1 > length) return nvml::kErrorInsufficientSize;
    std::memcpy(version, text->text.c_str(), text->text.size() + 1);
    return nvml::kSuccess;
  });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetCount_v2(unsigned int* device_count) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetCount(device_count); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, Device* device) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetHandleByIndex(index, device); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetHandleByUUID(const char* uuid, Device* device) {
  return WithReplay([&](nvml::ReplayApi& r) -> Return {
    if (uuid == nullptr || device == nullptr) return nvml::kErrorInvalidArgument;
    unsigned int count = 0;
    Return ret = r.DeviceGetCount(&count);
    if (ret != nvml::kSuccess) return ret;
    for (unsigned int i = 0; i < count; ++i) {
      Device candidate = nullptr;
      char buffer[nvml::kDeviceUuidBufferSize] = {};
      if (r.DeviceGetHandleByIndex(i, &candidate) == nvml::kSuccess &&
          r.DeviceGetUUID(candidate, buffer, sizeof buffer) == nvml::kSuccess && std::strcmp(buffer, uuid) == 0) {
        *device = candidate;
        return nvml::kSuccess;
      }
    }
    return nvml::kErrorNotFound;
  });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetName(Device device, char* name, unsigned int length) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetName(device, name, length); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetUUID(Device device, char* uuid, unsigned int length) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetUUID(device, uuid, length); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetMinorNumber(Device device, unsigned int* minor_number) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetMinorNumber(device, minor_number); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetBrand(Device device, int* type) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetBrand(device, type); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetArchitecture(Device device, unsigned int* arch) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetArchitecture(device, arch); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetCudaComputeCapability(Device device, int* major, int* minor) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetCudaComputeCapability(device, major, minor); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetMemoryInfo(Device device, Memory* memory) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetMemoryInfo(device, memory); });
}

#ifndef DRA_FAKE_NVML_OLD
FAKE_NVML_EXPORT Return nvmlDeviceGetPciInfo_v3(Device device, PciInfo* pci) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetPciInfo(device, pci); });
}
#endif

FAKE_NVML_EXPORT Return nvmlDeviceGetPciInfo_v2(Device device, PciInfo* pci) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetPciInfo(device, pci); });
}

#ifndef DRA_FAKE_NVML_OLD
FAKE_NVML_EXPORT Return nvmlDeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetAddressingMode(device, mode); });
}
#endif

FAKE_NVML_EXPORT Return nvmlDeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetMigMode(device, current_mode, pending_mode); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile,
                                                            GpuInstanceProfileInfo* info) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetGpuInstanceProfileInfo(device, profile, info); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetGpuInstancePossiblePlacements_v2(Device device, unsigned int profile_id,
                                                                      GpuInstancePlacement* placements,
                                                                      unsigned int* count) {
  return WithReplay([&](nvml::ReplayApi& r) {
    return r.DeviceGetGpuInstancePossiblePlacements(device, profile_id, placements, count);
  });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetMaxMigDeviceCount(Device device, unsigned int* count) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetMaxMigDeviceCount(device, count); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetMigDeviceHandleByIndex(device, index, mig_device); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetGpuInstanceId(Device device, unsigned int* id) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetGpuInstanceId(device, id); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetComputeInstanceId(Device device, unsigned int* id) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetComputeInstanceId(device, id); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetGpuInstanceById(device, id, gpu_instance); });
}

FAKE_NVML_EXPORT Return nvmlGpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.GpuInstanceGetInfo(gpu_instance, info); });
}

FAKE_NVML_EXPORT Return nvmlGpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                                              ComputeInstance* compute_instance) {
  return WithReplay(
      [&](nvml::ReplayApi& r) { return r.GpuInstanceGetComputeInstanceById(gpu_instance, id, compute_instance); });
}

FAKE_NVML_EXPORT Return nvmlComputeInstanceGetInfo_v2(ComputeInstance compute_instance, ComputeInstanceInfo* info) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.ComputeInstanceGetInfo(compute_instance, info); });
}

FAKE_NVML_EXPORT Return nvmlGpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                                     unsigned int eng_profile,
                                                                     ComputeInstanceProfileInfo* info) {
  return WithReplay([&](nvml::ReplayApi& r) {
    return r.GpuInstanceGetComputeInstanceProfileInfo(gpu_instance, profile, eng_profile, info);
  });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetVirtualizationMode(Device device, int* mode) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetVirtualizationMode(device, mode); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetModuleId(Device device, unsigned int* module_id) {
  return WithReplay([&](nvml::ReplayApi&) -> Return {
    if (device == nullptr || module_id == nullptr) return nvml::kErrorInvalidArgument;
    return nvml::kErrorNotSupported;
  });
}

FAKE_NVML_EXPORT Return nvmlEventSetCreate(EventSet* set) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.EventSetCreate(set); });
}

FAKE_NVML_EXPORT Return nvmlDeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceGetSupportedEventTypes(device, event_types); });
}

FAKE_NVML_EXPORT Return nvmlDeviceRegisterEvents(Device device, unsigned long long event_types, EventSet set) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.DeviceRegisterEvents(device, event_types, set); });
}

FAKE_NVML_EXPORT Return nvmlEventSetWait_v2(EventSet set, EventData* data, unsigned int timeoutms) {
  return WithReplay([&](nvml::ReplayApi& r) {
    using Clock = std::chrono::steady_clock;
    State& state = GetState();
    if (!state.first_wait) state.first_wait = Clock::now();
    auto elapsed_ms = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - *state.first_wait).count();
    };
    r.AdvanceClockTo(elapsed_ms());
    Return ret = r.EventSetWait(set, data, timeoutms);
    // Block until the answer is due, as the real call does.
    int64_t due_in = r.NowMs() - elapsed_ms();
    if (due_in > 0) std::this_thread::sleep_for(std::chrono::milliseconds(due_in));
    return ret;
  });
}

FAKE_NVML_EXPORT Return nvmlEventSetFree(EventSet set) {
  return WithReplay([&](nvml::ReplayApi& r) { return r.EventSetFree(set); });
}
