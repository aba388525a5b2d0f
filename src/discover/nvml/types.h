// The few NVML C types, constants and return codes `dractl discover` uses,
// declared by us (no CUDA toolkit or nvml.h at build time). Layouts follow
// NVML API version 13 as discover/README.md §2.3 lists them; the static_asserts
// pin the LP64 sizes. NVML only appends to its enums and versions structs by
// new symbol names, so these stay valid for newer libraries.
//
// Handles are opaque pointers, as in nvml.h. Backends other than the real
// library (replay, tests) use small integers cast to these pointer types and
// never dereference them.
#pragma once

#include <cstdint>

namespace dra::discover::nvml {

struct DeviceSt;
struct GpuInstanceSt;
struct ComputeInstanceSt;
struct EventSetSt;
using Device = DeviceSt*;                    // nvmlDevice_t
using GpuInstance = GpuInstanceSt*;          // nvmlGpuInstance_t
using ComputeInstance = ComputeInstanceSt*;  // nvmlComputeInstance_t
using EventSet = EventSetSt*;                // nvmlEventSet_t

// nvmlReturn_t (an enum: int-sized).
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorAlreadyInitialized = 5;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorInsufficientPower = 8;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorIrqIssue = 11;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorCorruptedInforom = 14;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;
inline constexpr Return kErrorOperatingSystem = 17;
inline constexpr Return kErrorLibRmVersionMismatch = 18;
inline constexpr Return kErrorInUse = 19;
inline constexpr Return kErrorMemory = 20;
inline constexpr Return kErrorNoData = 21;
inline constexpr Return kErrorUnknown = 999;

// The NVML_ERROR_* name of `ret` ("NVML_ERROR_NOT_SUPPORTED"), or
// "NVML_ERROR_UNRECOGNISED" for a code we do not know. Never null.
const char* ReturnName(Return ret);

// Constants (nvml.h names in comments).
inline constexpr unsigned kInitFlagNoGpus = 1;                 // NVML_INIT_FLAG_NO_GPUS
inline constexpr unsigned kDeviceMigEnable = 1;                // NVML_DEVICE_MIG_ENABLE
inline constexpr unsigned kGpuInstanceProfileCount = 0x12;     // NVML_GPU_INSTANCE_PROFILE_COUNT
inline constexpr unsigned kComputeInstanceProfileCount = 0x9;  // NVML_COMPUTE_INSTANCE_PROFILE_COUNT
inline constexpr unsigned kComputeInstanceEngineProfileShared = 0;
inline constexpr int kGpuVirtualizationModeVgpu = 2;  // NVML_GPU_VIRTUALIZATION_MODE_VGPU
inline constexpr unsigned long long kEventTypeSingleBitEccError = 0x1;
inline constexpr unsigned long long kEventTypeDoubleBitEccError = 0x2;
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
inline constexpr unsigned kNoInstance = 0xFFFFFFFFu;  // gpuInstanceId/computeInstanceId "none"
inline constexpr unsigned kSystemDriverVersionBufferSize = 80;
inline constexpr unsigned kDeviceNameBufferSize = 96;
inline constexpr unsigned kDeviceUuidBufferSize = 96;
inline constexpr unsigned kDevicePciBusIdBufferSize = 32;
inline constexpr unsigned kDevicePciBusIdLegacyBufferSize = 16;

struct PciInfo {  // nvmlPciInfo_t
  char busIdLegacy[kDevicePciBusIdLegacyBufferSize];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[kDevicePciBusIdBufferSize];
};
static_assert(sizeof(PciInfo) == 68);

struct Memory {  // nvmlMemory_t (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(Memory) == 24);

struct GpuInstanceProfileInfo {  // nvmlGpuInstanceProfileInfo_t (v1)
  unsigned int id;
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;  // MiB, despite the name
};
static_assert(sizeof(GpuInstanceProfileInfo) == 48);

struct GpuInstancePlacement {  // nvmlGpuInstancePlacement_t
  unsigned int start;
  unsigned int size;
};
static_assert(sizeof(GpuInstancePlacement) == 8);

struct GpuInstanceInfo {  // nvmlGpuInstanceInfo_t
  Device device;
  unsigned int id;
  unsigned int profileId;
  GpuInstancePlacement placement;
};
static_assert(sizeof(GpuInstanceInfo) == 24);

struct ComputeInstancePlacement {  // nvmlComputeInstancePlacement_t
  unsigned int start;
  unsigned int size;
};

struct ComputeInstanceInfo {  // nvmlComputeInstanceInfo_t
  Device device;
  GpuInstance gpuInstance;
  unsigned int id;
  unsigned int profileId;
  ComputeInstancePlacement placement;
};
static_assert(sizeof(ComputeInstanceInfo) == 32);

struct ComputeInstanceProfileInfo {  // nvmlComputeInstanceProfileInfo_t (v1)
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
};
static_assert(sizeof(ComputeInstanceProfileInfo) == 36);

struct EventData {  // nvmlEventData_t
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
static_assert(sizeof(EventData) == 32);

struct DeviceAddressingMode {  // nvmlDeviceAddressingMode_t (v1)
  unsigned int version;        // set to kDeviceAddressingModeV1 before the call
  unsigned int value;          // 0 None, 1 HMM, 2 ATS
};
static_assert(sizeof(DeviceAddressingMode) == 8);
inline constexpr unsigned kDeviceAddressingModeV1 = sizeof(DeviceAddressingMode) | (1u << 24);

}  // namespace dra::discover::nvml
