// nvml::Api: the NVML calls `dractl discover` makes, one virtual method per C
// function of discover/README.md §2.2, named after it without the `nvml`
// prefix (versioned suffixes dropped: DeviceGetCount is nvmlDeviceGetCount_v2).
// Arguments and results are C-shaped, exactly as the C function takes them, so
// the real backend is a pass-through and every backend answers the same way:
//   - DlopenApi   (dlopen_api.h): libnvidia-ml.so.1 loaded at run time;
//   - RecordingApi (recording_api.h): forwards to another Api and writes every
//     call and answer into a recording (recording.h, RECORDING.md);
//   - ReplayApi   (replay_api.h): answers from a recording.
// A symbol the library lacks answers kErrorFunctionNotFound.
//
// Not thread-safe (NVML is, but our backends keep state); discover calls it
// from one thread.
#pragma once

#include <cstdint>

#include "discover/nvml/types.h"

namespace dra::discover::nvml {

class Api {
 public:
  virtual ~Api() = default;

  // nvmlInitWithFlags (falls back to nvmlInit_v2 when flags == 0 or the
  // symbol is missing); nvmlShutdown.
  virtual Return InitWithFlags(unsigned int flags) = 0;
  virtual Return Shutdown() = 0;
  // nvmlErrorString; never null.
  virtual const char* ErrorString(Return ret) = 0;

  virtual Return SystemGetDriverVersion(char* version, unsigned int length) = 0;
  virtual Return SystemGetCudaDriverVersion(int* cuda_driver_version) = 0;

  virtual Return DeviceGetCount(unsigned int* device_count) = 0;
  virtual Return DeviceGetHandleByIndex(unsigned int index, Device* device) = 0;
  virtual Return DeviceGetName(Device device, char* name, unsigned int length) = 0;
  virtual Return DeviceGetUUID(Device device, char* uuid, unsigned int length) = 0;
  virtual Return DeviceGetMinorNumber(Device device, unsigned int* minor_number) = 0;
  virtual Return DeviceGetBrand(Device device, int* type) = 0;  // nvmlBrandType_t
  virtual Return DeviceGetArchitecture(Device device, unsigned int* arch) = 0;
  virtual Return DeviceGetCudaComputeCapability(Device device, int* major, int* minor) = 0;
  virtual Return DeviceGetMemoryInfo(Device device, Memory* memory) = 0;
  virtual Return DeviceGetPciInfo(Device device, PciInfo* pci) = 0;  // _v3, else _v2, else v1
  // The caller sets mode->version = kDeviceAddressingModeV1.
  virtual Return DeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) = 0;

  virtual Return DeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) = 0;
  // `profile` is the GI profile index (0 .. kGpuInstanceProfileCount-1).
  virtual Return DeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile, GpuInstanceProfileInfo* info) = 0;
  // `profile_id` is GpuInstanceProfileInfo::id. With placements == nullptr
  // only *count is written; else *count is the buffer size on entry and the
  // number written on return.
  virtual Return DeviceGetGpuInstancePossiblePlacements(Device device, unsigned int profile_id,
                                                        GpuInstancePlacement* placements, unsigned int* count) = 0;
  virtual Return DeviceGetMaxMigDeviceCount(Device device, unsigned int* count) = 0;
  virtual Return DeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) = 0;
  virtual Return DeviceGetGpuInstanceId(Device mig_device, unsigned int* id) = 0;
  virtual Return DeviceGetComputeInstanceId(Device mig_device, unsigned int* id) = 0;
  virtual Return DeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) = 0;
  virtual Return GpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) = 0;
  virtual Return GpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                                   ComputeInstance* compute_instance) = 0;
  virtual Return ComputeInstanceGetInfo(ComputeInstance compute_instance,
                                        ComputeInstanceInfo* info) = 0;  // _v2
  // `profile` is the CI profile index, `eng_profile` the engine profile index.
  virtual Return GpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                          unsigned int eng_profile,
                                                          ComputeInstanceProfileInfo* info) = 0;
  virtual Return DeviceGetVirtualizationMode(Device device, int* mode) = 0;

  virtual Return EventSetCreate(EventSet* set) = 0;
  virtual Return DeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) = 0;
  virtual Return DeviceRegisterEvents(Device device, unsigned long long event_types, EventSet set) = 0;
  // nvmlEventSetWait_v2: blocks up to `timeout_ms`; kErrorTimeout when no event came.
  virtual Return EventSetWait(EventSet set, EventData* data, unsigned int timeout_ms) = 0;
  virtual Return EventSetFree(EventSet set) = 0;

  // Milliseconds on the clock the event wait runs on: the real monotonic
  // clock for a live library, a virtual clock for a replay (so a replayed
  // --health-wait of 10 s takes no time). Used only by the health loop.
  virtual int64_t NowMs() = 0;
};

}  // namespace dra::discover::nvml
