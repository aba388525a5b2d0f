// RecordingApi: an nvml::Api that forwards every call to another Api and
// writes each answer into a recording at the place RECORDING.md defines, for
// `discover --record`. A ReplayApi over what it wrote answers the same calls
// the same way (recording_api_test.cc checks this).
//
// Handles pass through unchanged: the caller gets the inner Api's handles.
// The recorder remembers which GPU index, MIG index, GI id or CI id each
// handle it handed out stands for, and files later answers on that handle
// under that place (devices[i], devices[i].migDevices[k],
// devices[i].gpuInstances[g], ....computeInstances[c]).
//
// What is written:
//   - the answer ("ret" and, when it is 0, the outputs) of every call that
//     has a place, replacing an earlier answer at the same place;
//   - a kErrorFunctionNotFound answer adds the method's C symbols to
//     missingSymbols instead (all of them for a method with fallbacks);
//   - char buffers: on kErrorInsufficientSize the recorder asks the inner Api
//     again with a large buffer and records the whole string, so a replay
//     gives the same answer for every buffer length;
//   - placements: a count-only call (null buffer) is followed by one call with
//     a buffer, so the recording holds the list;
//   - EventSetWait: answers other than kErrorTimeout are appended to "events"
//     with atMs = inner.NowMs() - (inner.NowMs() when the first wait began);
//     the event's device is written as its NVML index;
//   - nothing for nvmlShutdown, nvmlErrorString, nvmlEventSetFree, NowMs.
// Not written (the call is still forwarded): calls with a null output pointer
// or a wrong struct version (the caller's mistake, not the library's answer),
// and calls on a handle the recorder never handed out; the latter are listed
// in unrecordable().
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "discover/nvml/api.h"
#include "discover/nvml/recording.h"

namespace dra::discover::nvml {

class RecordingApi : public Api {
 public:
  // Borrows `inner` and `out`; both must outlive this object. `out` is
  // usually NewRecording(...). `missing_symbols` (LoadNvml's list) is added
  // to out's missingSymbols at once, and also tells which init symbol the
  // inner Api uses (written as init.function).
  RecordingApi(Api& inner, Recording* out, const std::vector<std::string>& missing_symbols = {});
  RecordingApi(const RecordingApi&) = delete;
  RecordingApi& operator=(const RecordingApi&) = delete;

  Return InitWithFlags(unsigned int flags) override;
  Return Shutdown() override;
  const char* ErrorString(Return ret) override;

  Return SystemGetDriverVersion(char* version, unsigned int length) override;
  Return SystemGetCudaDriverVersion(int* cuda_driver_version) override;

  Return DeviceGetCount(unsigned int* device_count) override;
  Return DeviceGetHandleByIndex(unsigned int index, Device* device) override;
  Return DeviceGetName(Device device, char* name, unsigned int length) override;
  Return DeviceGetUUID(Device device, char* uuid, unsigned int length) override;
  Return DeviceGetMinorNumber(Device device, unsigned int* minor_number) override;
  Return DeviceGetBrand(Device device, int* type) override;
  Return DeviceGetArchitecture(Device device, unsigned int* arch) override;
  Return DeviceGetCudaComputeCapability(Device device, int* major, int* minor) override;
  Return DeviceGetMemoryInfo(Device device, Memory* memory) override;
  Return DeviceGetPciInfo(Device device, PciInfo* pci) override;
  Return DeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) override;

  Return DeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) override;
  Return DeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile, GpuInstanceProfileInfo* info) override;
  Return DeviceGetGpuInstancePossiblePlacements(Device device, unsigned int profile_id,
                                                GpuInstancePlacement* placements, unsigned int* count) override;
  Return DeviceGetMaxMigDeviceCount(Device device, unsigned int* count) override;
  Return DeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) override;
  Return DeviceGetGpuInstanceId(Device mig_device, unsigned int* id) override;
  Return DeviceGetComputeInstanceId(Device mig_device, unsigned int* id) override;
  Return DeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) override;
  Return GpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) override;
  Return GpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                           ComputeInstance* compute_instance) override;
  Return ComputeInstanceGetInfo(ComputeInstance compute_instance, ComputeInstanceInfo* info) override;
  Return GpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                  unsigned int eng_profile, ComputeInstanceProfileInfo* info) override;
  Return DeviceGetVirtualizationMode(Device device, int* mode) override;

  Return EventSetCreate(EventSet* set) override;
  Return DeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) override;
  Return DeviceRegisterEvents(Device device, unsigned long long event_types, EventSet set) override;
  Return EventSetWait(EventSet set, EventData* data, unsigned int timeout_ms) override;
  Return EventSetFree(EventSet set) override;

  int64_t NowMs() override { return inner_.NowMs(); }

  // Calls forwarded but not written because their handle was never handed
  // out by this recorder, each once ("nvmlDeviceGetName: unknown device handle").
  const std::vector<std::string>& unrecordable() const { return unrecordable_; }

 private:
  // What a handle stands for. mig / gi / ci are set as the kind requires.
  struct DeviceRef {
    uint32_t gpu = 0;
    std::optional<uint32_t> mig{};  // set for a MIG device handle
  };
  struct InstanceRef {
    uint32_t gpu = 0;
    uint32_t gi = 0;
    uint32_t ci = 0;  // compute instances only
  };

  manifest::Node& Root() { return out_->root; }
  manifest::Node& GpuObject(uint32_t gpu);
  // The object answers on `device` go to, or nullptr (noted as unrecordable).
  manifest::Node* DeviceObject(Device device, std::string_view function);
  manifest::Node* GpuInstanceObject(GpuInstance gpu_instance, std::string_view function);
  manifest::Node* ComputeInstanceObject(ComputeInstance compute_instance, std::string_view function);
  void Unrecordable(std::string_view function, std::string_view what);
  void AddMissing(std::string_view symbol);
  template <typename Symbols>
  void AddAllMissing(const Symbols& symbols);
  bool IsMissing(std::string_view symbol) const;
  // True, with the symbol noted as missing, when `ret` says the library
  // lacks the function (the second form: all of its fallback symbols).
  bool NotFound(Return ret, std::string_view symbol);
  template <typename Symbols>
  bool NoneFound(Return ret, const Symbols& symbols);
  // Writes `answer` as `function`'s on the device's object, if the handle is known.
  void SetOnDevice(Device device, std::string_view function, manifest::Node answer);
  // The getters of one value on a device: records `ret` and, on success,
  // `*value` as `field`. `value` is the caller's pointer (nothing recorded if null).
  template <typename T>
  Return DeviceValue(Device device, std::string_view function, std::string_view field, Return ret, const T* value);
  // Shared by DeviceGetName / DeviceGetUUID.
  Return DeviceString(Device device, std::string_view function, std::string_view field, char* buffer,
                      unsigned int length, Return (Api::*call)(Device, char*, unsigned int));

  Api& inner_;
  Recording* out_;
  std::set<std::string, std::less<>> missing_;
  std::map<uintptr_t, DeviceRef> devices_;
  std::map<uintptr_t, InstanceRef> gpu_instances_;
  std::map<uintptr_t, InstanceRef> compute_instances_;
  std::set<uintptr_t> event_sets_;
  std::optional<int64_t> first_wait_ms_;
  std::vector<std::string> unrecordable_;
  std::set<std::string, std::less<>> unrecordable_seen_;
};

}  // namespace dra::discover::nvml
