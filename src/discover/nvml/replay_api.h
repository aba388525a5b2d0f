// ReplayApi: an nvml::Api that answers from a recording (RECORDING.md), for
// `discover --replay`, the golden tests and tests/discover/fake_nvml.
//
// Answers:
//   1. A method whose C symbols are all in `missingSymbols` answers
//      kErrorFunctionNotFound (13), before anything else.
//   2. A null output pointer or a handle this replay did not hand out answers
//      kErrorInvalidArgument (2), as NVML does.
//   3. A call whose answer the recording lacks answers kErrorNotSupported (3)
//      and is remembered in unrecorded() as the path where the answer would
//      be ("devices[2].nvmlDeviceGetGpuInstanceProfileInfo[5]").
//   4. Otherwise the recorded "ret"; when it is 0, the recorded outputs.
//      Char buffers honour `length` (kErrorInsufficientSize when the string
//      and its NUL do not fit); placements with a null buffer give the count,
//      with a short buffer kErrorInsufficientSize and the count needed.
//   An answer that is present but malformed (only possible for a recording
//   that did not pass ValidateRecording) answers kErrorUnknown (999) and is
//   listed in unrecorded() with "(malformed ...)" appended.
//
// Handles are synthetic: a 64-bit value, never dereferenced, packing
//   kind (bits 48..55) | GPU index (32..47) | a (16..31) | b (0..15)
// with a = MIG index (MIG device), GI id (GPU / compute instance) or event-set
// serial, and b = CI id. The same call always yields the same handle, so two
// replays of one recording (or a replay inside fake_nvml) agree on handles.
// Handles the caller gets in GpuInstanceInfo / ComputeInstanceInfo /
// EventData are this replay's handles for the right GPU / GI.
//
// Calls with no place in the recording (nvmlShutdown, nvmlEventSetFree)
// answer kSuccess. ErrorString is nvml::ReturnName.
//
// Events: a virtual clock (NowMs) starts at 0 and moves only inside
// EventSetWait: an event due within the wait's timeout is returned and the
// clock moves to its atMs (never backwards); otherwise the wait answers
// kErrorTimeout and the clock moves by the timeout. Once the list is
// exhausted every wait times out. A recording without an "events" list
// behaves as an empty one and "events" is listed in unrecorded().
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "discover/nvml/api.h"
#include "discover/nvml/recording.h"

namespace dra::discover::nvml {

class ReplayApi : public Api {
 public:
  // Keeps its own copy of `recording`. It should have passed
  // ValidateRecording (ReadRecording does that).
  explicit ReplayApi(Recording recording);
  ReplayApi(const ReplayApi&) = delete;
  ReplayApi& operator=(const ReplayApi&) = delete;

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

  int64_t NowMs() override { return now_ms_; }

  // Calls the recording had no answer for, each once, in the order first
  // asked. The golden tests require it to be empty.
  const std::vector<std::string>& unrecorded() const { return unrecorded_; }
  // meta.nodeName ("" when absent): the default --node-name of a replay.
  std::string node_name() const { return RecordingNodeName(recording_); }
  // The recording's missingSymbols.
  const std::set<std::string, std::less<>>& missing_symbols() const { return missing_; }
  const Recording& recording() const { return recording_; }

  // Moves the virtual clock forward to `now_ms` (never back). fake_nvml uses
  // it to keep the replay's clock in step with real time.
  void AdvanceClockTo(int64_t now_ms);

 private:
  struct Found;
  struct Place;

  bool Missing(std::string_view symbol) const;
  template <typename Symbols>
  bool AllMissing(const Symbols& symbols) const;
  void Note(std::string path);
  Return Malformed(const std::string& path, std::string_view field);
  // The answer `key` (then `[arg]` when arg is not empty) under `parent`.
  Found Lookup(const manifest::Node* parent, std::string_view key, std::string_view arg, const std::string& base);
  const manifest::Node* GpuObject(uint32_t gpu) const;
  std::optional<Place> DevicePlace(Device device) const;
  std::optional<Place> GpuInstancePlace(GpuInstance gpu_instance) const;
  std::optional<Place> ComputeInstancePlace(ComputeInstance compute_instance) const;
  bool LiveEventSet(EventSet set) const;
  template <typename Write>
  Return DeviceCall(Device device, std::string_view function, bool outputs_non_null, Write write);
  // Shared by the device calls whose answer is one string.
  Return DeviceString(Device device, std::string_view function, std::string_view field, char* buffer,
                      unsigned int length);

  Recording recording_;
  std::set<std::string, std::less<>> missing_;
  std::vector<std::string> unrecorded_;
  std::set<std::string, std::less<>> unrecorded_seen_;
  int64_t now_ms_ = 0;
  size_t next_event_ = 0;
  uint32_t last_event_set_ = 0;
  std::set<uint32_t> live_event_sets_;
};

}  // namespace dra::discover::nvml
