#include "discover/nvml/recording_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace dra::discover::nvml {

using manifest::Node;

namespace {

// Large enough for any NVML string (NVML's own buffers are at most 96 bytes).
constexpr unsigned int kRetryBufferSize = 4096;

Node Answer(Return ret) {
  Node answer = Node::Mapping();
  answer.Add("ret", Node::Int(ret));
  return answer;
}

Node Pair(unsigned int first, unsigned int second) {
  Node pair = Node::Sequence();
  pair.Push(tree::Uint(first));
  pair.Push(tree::Uint(second));
  return pair;
}

template <typename Handle>
uintptr_t Key(Handle handle) {
  return reinterpret_cast<uintptr_t>(handle);
}

// A recorded value, as RECORDING.md writes it (signed or unsigned).
Node Value(int value) { return Node::Int(value); }
Node Value(unsigned int value) { return tree::Uint(value); }
Node Value(unsigned long long value) { return tree::Uint(value); }

// The C string in a buffer of `length` bytes (up to the NUL, or the whole
// buffer if there is none).
std::string FromBuffer(const char* buffer, unsigned int length) { return std::string(buffer, strnlen(buffer, length)); }

}  // namespace

RecordingApi::RecordingApi(Api& inner, Recording* out, const std::vector<std::string>& missing_symbols)
    : inner_(inner), out_(out) {
  // Make sure the sections we append to exist, whatever `out` held.
  if (!Root().is_mapping()) Root() = NewRecording({}).root;
  for (const std::string& symbol : missing_symbols) AddMissing(symbol);
  Node& missing = tree::Child(Root(), "missingSymbols", Node::Sequence());
  for (const Node& name : missing.items) {
    if (name.kind == manifest::NodeKind::kString) missing_.insert(name.text);
  }
}

void RecordingApi::AddMissing(std::string_view symbol) {
  if (!missing_.insert(std::string(symbol)).second) return;
  Node& missing = tree::Child(Root(), "missingSymbols", Node::Sequence());
  for (const Node& name : missing.items) {
    if (name.text == symbol) return;
  }
  missing.Push(Node::String(std::string(symbol)));
}

template <typename Symbols>
void RecordingApi::AddAllMissing(const Symbols& symbols) {
  for (std::string_view symbol : symbols) AddMissing(symbol);
}

bool RecordingApi::IsMissing(std::string_view symbol) const { return missing_.contains(symbol); }

bool RecordingApi::NotFound(Return ret, std::string_view symbol) {
  if (ret != kErrorFunctionNotFound) return false;
  AddMissing(symbol);
  return true;
}

template <typename Symbols>
bool RecordingApi::NoneFound(Return ret, const Symbols& symbols) {
  if (ret != kErrorFunctionNotFound) return false;
  AddAllMissing(symbols);
  return true;
}

void RecordingApi::SetOnDevice(Device device, std::string_view function, Node answer) {
  if (Node* object = DeviceObject(device, function)) {
    tree::Set(*object, function, std::move(answer));
  }
}

template <typename T>
Return RecordingApi::DeviceValue(Device device, std::string_view function, std::string_view field, Return ret,
                                 const T* value) {
  if (NotFound(ret, function) || value == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) answer.Add(std::string(field), Value(*value));
  SetOnDevice(device, function, std::move(answer));
  return ret;
}

void RecordingApi::Unrecordable(std::string_view function, std::string_view what) {
  std::string message = fmt::format("{}: {}", function, what);
  if (unrecordable_seen_.insert(message).second) unrecordable_.push_back(std::move(message));
}

Node& RecordingApi::GpuObject(uint32_t gpu) {
  Node& devices = tree::Child(Root(), "devices", Node::Sequence());
  while (devices.items.size() <= gpu) {
    Node device = Node::Mapping();
    device.Add("index", tree::Uint(devices.items.size()));
    devices.Push(std::move(device));
  }
  return devices.items[gpu];
}

Node* RecordingApi::DeviceObject(Device device, std::string_view function) {
  auto it = devices_.find(Key(device));
  if (it == devices_.end()) {
    Unrecordable(function, "unknown device handle");
    return nullptr;
  }
  Node& gpu = GpuObject(it->second.gpu);
  if (!it->second.mig) return &gpu;
  return &tree::Child(tree::Child(gpu, "migDevices"), std::to_string(*it->second.mig));
}

Node* RecordingApi::GpuInstanceObject(GpuInstance gpu_instance, std::string_view function) {
  auto it = gpu_instances_.find(Key(gpu_instance));
  if (it == gpu_instances_.end()) {
    Unrecordable(function, "unknown GPU instance handle");
    return nullptr;
  }
  return &tree::Child(tree::Child(GpuObject(it->second.gpu), "gpuInstances"), std::to_string(it->second.gi));
}

Node* RecordingApi::ComputeInstanceObject(ComputeInstance compute_instance, std::string_view function) {
  auto it = compute_instances_.find(Key(compute_instance));
  if (it == compute_instances_.end()) {
    Unrecordable(function, "unknown compute instance handle");
    return nullptr;
  }
  Node& gi = tree::Child(tree::Child(GpuObject(it->second.gpu), "gpuInstances"), std::to_string(it->second.gi));
  return &tree::Child(tree::Child(gi, "computeInstances"), std::to_string(it->second.ci));
}

// ---- Init and system ----

Return RecordingApi::InitWithFlags(unsigned int flags) {
  Return ret = inner_.InitWithFlags(flags);
  if (NoneFound(ret, kInitSymbols)) return ret;
  // The symbol that answered: nvmlInitWithFlags unless flags are 0 (api.h)
  // or the library lacks it, then the first fallback it has.
  auto first = kInitSymbols.begin() + (flags == 0 ? 1 : 0);
  auto used = std::find_if(first, kInitSymbols.end(), [&](std::string_view s) { return !IsMissing(s); });
  // With flags 0 and no plain init symbol, nvmlInitWithFlags(0) answered.
  if (used == kInitSymbols.end()) used = kInitSymbols.begin();
  Node init = Node::Mapping();
  init.Add("function", Node::String(std::string(*used)));
  init.Add("flags", tree::Uint(flags));
  init.Add("ret", Node::Int(ret));
  tree::Set(Root(), "init", std::move(init));
  return ret;
}

Return RecordingApi::Shutdown() { return inner_.Shutdown(); }

const char* RecordingApi::ErrorString(Return ret) { return inner_.ErrorString(ret); }

Return RecordingApi::SystemGetDriverVersion(char* version, unsigned int length) {
  Return ret = inner_.SystemGetDriverVersion(version, length);
  if (NotFound(ret, "nvmlSystemGetDriverVersion") || version == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("version", Node::String(FromBuffer(version, length)));
  } else if (ret == kErrorInsufficientSize) {
    std::vector<char> big(kRetryBufferSize, '\0');
    Return full = inner_.SystemGetDriverVersion(big.data(), kRetryBufferSize);
    answer = Answer(full);
    if (full == kSuccess) answer.Add("version", Node::String(FromBuffer(big.data(), kRetryBufferSize)));
  }
  tree::Set(Root(), "nvmlSystemGetDriverVersion", std::move(answer));
  return ret;
}

Return RecordingApi::SystemGetCudaDriverVersion(int* cuda_driver_version) {
  Return ret = inner_.SystemGetCudaDriverVersion(cuda_driver_version);
  if (NotFound(ret, "nvmlSystemGetCudaDriverVersion") || cuda_driver_version == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) answer.Add("cudaDriverVersion", Node::Int(*cuda_driver_version));
  tree::Set(Root(), "nvmlSystemGetCudaDriverVersion", std::move(answer));
  return ret;
}

// ---- Devices ----

Return RecordingApi::DeviceGetCount(unsigned int* device_count) {
  Return ret = inner_.DeviceGetCount(device_count);
  if (NoneFound(ret, kDeviceGetCountSymbols) || device_count == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) answer.Add("deviceCount", tree::Uint(*device_count));
  tree::Set(Root(), "nvmlDeviceGetCount_v2", std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetHandleByIndex(unsigned int index, Device* device) {
  Return ret = inner_.DeviceGetHandleByIndex(index, device);
  if (NoneFound(ret, kDeviceGetHandleByIndexSymbols) || device == nullptr) return ret;
  tree::Set(GpuObject(index), "nvmlDeviceGetHandleByIndex_v2", Answer(ret));
  if (ret == kSuccess) devices_[Key(*device)] = DeviceRef{.gpu = index, .mig = std::nullopt};
  return ret;
}

Return RecordingApi::DeviceString(Device device, std::string_view function, std::string_view field, char* buffer,
                                  unsigned int length, Return (Api::*call)(Device, char*, unsigned int)) {
  Return ret = (inner_.*call)(device, buffer, length);
  if (NotFound(ret, function) || buffer == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add(std::string(field), Node::String(FromBuffer(buffer, length)));
  } else if (ret == kErrorInsufficientSize) {
    std::vector<char> big(kRetryBufferSize, '\0');
    Return full = (inner_.*call)(device, big.data(), kRetryBufferSize);
    answer = Answer(full);
    if (full == kSuccess) {
      answer.Add(std::string(field), Node::String(FromBuffer(big.data(), kRetryBufferSize)));
    }
  }
  SetOnDevice(device, function, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetName(Device device, char* name, unsigned int length) {
  return DeviceString(device, "nvmlDeviceGetName", "name", name, length, &Api::DeviceGetName);
}

Return RecordingApi::DeviceGetUUID(Device device, char* uuid, unsigned int length) {
  return DeviceString(device, "nvmlDeviceGetUUID", "uuid", uuid, length, &Api::DeviceGetUUID);
}

Return RecordingApi::DeviceGetMinorNumber(Device device, unsigned int* minor_number) {
  return DeviceValue(device, "nvmlDeviceGetMinorNumber", "minorNumber",
                     inner_.DeviceGetMinorNumber(device, minor_number), minor_number);
}

Return RecordingApi::DeviceGetBrand(Device device, int* type) {
  return DeviceValue(device, "nvmlDeviceGetBrand", "type", inner_.DeviceGetBrand(device, type), type);
}

Return RecordingApi::DeviceGetArchitecture(Device device, unsigned int* arch) {
  return DeviceValue(device, "nvmlDeviceGetArchitecture", "arch", inner_.DeviceGetArchitecture(device, arch), arch);
}

Return RecordingApi::DeviceGetCudaComputeCapability(Device device, int* major, int* minor) {
  constexpr std::string_view kFunction = "nvmlDeviceGetCudaComputeCapability";
  Return ret = inner_.DeviceGetCudaComputeCapability(device, major, minor);
  if (NotFound(ret, kFunction) || major == nullptr || minor == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("major", Node::Int(*major));
    answer.Add("minor", Node::Int(*minor));
  }
  SetOnDevice(device, kFunction, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetMemoryInfo(Device device, Memory* memory) {
  constexpr std::string_view kFunction = "nvmlDeviceGetMemoryInfo";
  Return ret = inner_.DeviceGetMemoryInfo(device, memory);
  if (NotFound(ret, kFunction) || memory == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("total", tree::Uint(memory->total));
    answer.Add("free", tree::Uint(memory->free));
    answer.Add("used", tree::Uint(memory->used));
  }
  SetOnDevice(device, kFunction, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetPciInfo(Device device, PciInfo* pci) {
  constexpr std::string_view kFunction = "nvmlDeviceGetPciInfo_v3";
  Return ret = inner_.DeviceGetPciInfo(device, pci);
  if (NoneFound(ret, kDeviceGetPciInfoSymbols) || pci == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("busId", Node::String(FromBuffer(pci->busId, sizeof pci->busId)));
    answer.Add("busIdLegacy", Node::String(FromBuffer(pci->busIdLegacy, sizeof pci->busIdLegacy)));
    answer.Add("domain", tree::Uint(pci->domain));
    answer.Add("bus", tree::Uint(pci->bus));
    answer.Add("device", tree::Uint(pci->device));
    answer.Add("pciDeviceId", tree::Uint(pci->pciDeviceId));
    answer.Add("pciSubSystemId", tree::Uint(pci->pciSubSystemId));
  }
  SetOnDevice(device, kFunction, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) {
  constexpr std::string_view kFunction = "nvmlDeviceGetAddressingMode";
  bool version_ok = mode != nullptr && mode->version == kDeviceAddressingModeV1;
  Return ret = inner_.DeviceGetAddressingMode(device, mode);
  if (NotFound(ret, kFunction) || !version_ok) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) answer.Add("value", tree::Uint(mode->value));
  SetOnDevice(device, kFunction, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) {
  constexpr std::string_view kFunction = "nvmlDeviceGetMigMode";
  Return ret = inner_.DeviceGetMigMode(device, current_mode, pending_mode);
  if (NotFound(ret, kFunction) || current_mode == nullptr || pending_mode == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("currentMode", tree::Uint(*current_mode));
    answer.Add("pendingMode", tree::Uint(*pending_mode));
  }
  SetOnDevice(device, kFunction, std::move(answer));
  return ret;
}

Return RecordingApi::DeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile,
                                                     GpuInstanceProfileInfo* info) {
  constexpr std::string_view kFunction = "nvmlDeviceGetGpuInstanceProfileInfo";
  Return ret = inner_.DeviceGetGpuInstanceProfileInfo(device, profile, info);
  if (NotFound(ret, kFunction) || info == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("id", tree::Uint(info->id));
    answer.Add("isP2pSupported", tree::Uint(info->isP2pSupported));
    answer.Add("sliceCount", tree::Uint(info->sliceCount));
    answer.Add("instanceCount", tree::Uint(info->instanceCount));
    answer.Add("multiprocessorCount", tree::Uint(info->multiprocessorCount));
    answer.Add("copyEngineCount", tree::Uint(info->copyEngineCount));
    answer.Add("decoderCount", tree::Uint(info->decoderCount));
    answer.Add("encoderCount", tree::Uint(info->encoderCount));
    answer.Add("jpegCount", tree::Uint(info->jpegCount));
    answer.Add("ofaCount", tree::Uint(info->ofaCount));
    answer.Add("memorySizeMB", tree::Uint(info->memorySizeMB));
  }
  if (Node* object = DeviceObject(device, kFunction)) {
    tree::Set(tree::Child(*object, kFunction), std::to_string(profile), std::move(answer));
  }
  return ret;
}

Return RecordingApi::DeviceGetGpuInstancePossiblePlacements(Device device, unsigned int profile_id,
                                                            GpuInstancePlacement* placements, unsigned int* count) {
  constexpr std::string_view kFunction = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
  Return ret = inner_.DeviceGetGpuInstancePossiblePlacements(device, profile_id, placements, count);
  if (NoneFound(ret, kPossiblePlacementsSymbols) || count == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess && placements != nullptr) {
    Node list = Node::Sequence();
    for (unsigned int i = 0; i < *count; ++i) list.Push(Pair(placements[i].start, placements[i].size));
    answer.Add("placements", std::move(list));
  } else if ((ret == kSuccess && placements == nullptr) || ret == kErrorInsufficientSize) {
    // The caller asked for the count only, or its buffer was short: ask
    // again with a buffer so the recording holds the list itself.
    unsigned int n = 0;
    Return sized = inner_.DeviceGetGpuInstancePossiblePlacements(device, profile_id, nullptr, &n);
    std::vector<GpuInstancePlacement> buffer(n);
    if (sized == kSuccess) {
      sized = inner_.DeviceGetGpuInstancePossiblePlacements(device, profile_id, buffer.data(), &n);
    }
    answer = Answer(sized);
    if (sized == kSuccess) {
      Node list = Node::Sequence();
      for (unsigned int i = 0; i < n && i < buffer.size(); ++i) {
        list.Push(Pair(buffer[i].start, buffer[i].size));
      }
      answer.Add("placements", std::move(list));
    }
  }
  if (Node* object = DeviceObject(device, kFunction)) {
    tree::Set(tree::Child(*object, kFunction), std::to_string(profile_id), std::move(answer));
  }
  return ret;
}

Return RecordingApi::DeviceGetMaxMigDeviceCount(Device device, unsigned int* count) {
  return DeviceValue(device, "nvmlDeviceGetMaxMigDeviceCount", "count",
                     inner_.DeviceGetMaxMigDeviceCount(device, count), count);
}

Return RecordingApi::DeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) {
  constexpr std::string_view kFunction = "nvmlDeviceGetMigDeviceHandleByIndex";
  Return ret = inner_.DeviceGetMigDeviceHandleByIndex(device, index, mig_device);
  if (NotFound(ret, kFunction) || mig_device == nullptr) return ret;
  auto parent = devices_.find(Key(device));
  if (parent == devices_.end() || parent->second.mig) {
    Unrecordable(kFunction, parent == devices_.end() ? "unknown device handle" : "called on a MIG device handle");
    return ret;
  }
  uint32_t gpu = parent->second.gpu;
  Node& mig = tree::Child(tree::Child(GpuObject(gpu), "migDevices"), std::to_string(index));
  tree::Set(mig, kFunction, Answer(ret));
  if (ret == kSuccess) devices_[Key(*mig_device)] = DeviceRef{.gpu = gpu, .mig = index};
  return ret;
}

Return RecordingApi::DeviceGetGpuInstanceId(Device device, unsigned int* id) {
  return DeviceValue(device, "nvmlDeviceGetGpuInstanceId", "id", inner_.DeviceGetGpuInstanceId(device, id), id);
}

Return RecordingApi::DeviceGetComputeInstanceId(Device device, unsigned int* id) {
  return DeviceValue(device, "nvmlDeviceGetComputeInstanceId", "id", inner_.DeviceGetComputeInstanceId(device, id), id);
}

Return RecordingApi::DeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) {
  constexpr std::string_view kFunction = "nvmlDeviceGetGpuInstanceById";
  Return ret = inner_.DeviceGetGpuInstanceById(device, id, gpu_instance);
  if (NotFound(ret, kFunction) || gpu_instance == nullptr) return ret;
  auto parent = devices_.find(Key(device));
  if (parent == devices_.end() || parent->second.mig) {
    Unrecordable(kFunction, parent == devices_.end() ? "unknown device handle" : "called on a MIG device handle");
    return ret;
  }
  uint32_t gpu = parent->second.gpu;
  Node& gi = tree::Child(tree::Child(GpuObject(gpu), "gpuInstances"), std::to_string(id));
  tree::Set(gi, kFunction, Answer(ret));
  if (ret == kSuccess) gpu_instances_[Key(*gpu_instance)] = InstanceRef{.gpu = gpu, .gi = id, .ci = 0};
  return ret;
}

Return RecordingApi::GpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) {
  constexpr std::string_view kFunction = "nvmlGpuInstanceGetInfo";
  Return ret = inner_.GpuInstanceGetInfo(gpu_instance, info);
  if (NotFound(ret, kFunction) || info == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("id", tree::Uint(info->id));
    answer.Add("profileId", tree::Uint(info->profileId));
    answer.Add("placement", Pair(info->placement.start, info->placement.size));
  }
  if (Node* object = GpuInstanceObject(gpu_instance, kFunction)) {
    tree::Set(*object, kFunction, std::move(answer));
  }
  return ret;
}

Return RecordingApi::GpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                                       ComputeInstance* compute_instance) {
  constexpr std::string_view kFunction = "nvmlGpuInstanceGetComputeInstanceById";
  Return ret = inner_.GpuInstanceGetComputeInstanceById(gpu_instance, id, compute_instance);
  if (NotFound(ret, kFunction) || compute_instance == nullptr) return ret;
  auto parent = gpu_instances_.find(Key(gpu_instance));
  if (parent == gpu_instances_.end()) {
    Unrecordable(kFunction, "unknown GPU instance handle");
    return ret;
  }
  InstanceRef ref = parent->second;
  Node& gi = tree::Child(tree::Child(GpuObject(ref.gpu), "gpuInstances"), std::to_string(ref.gi));
  Node& ci = tree::Child(tree::Child(gi, "computeInstances"), std::to_string(id));
  tree::Set(ci, kFunction, Answer(ret));
  if (ret == kSuccess) {
    compute_instances_[Key(*compute_instance)] = InstanceRef{.gpu = ref.gpu, .gi = ref.gi, .ci = id};
  }
  return ret;
}

Return RecordingApi::ComputeInstanceGetInfo(ComputeInstance compute_instance, ComputeInstanceInfo* info) {
  constexpr std::string_view kFunction = "nvmlComputeInstanceGetInfo_v2";
  Return ret = inner_.ComputeInstanceGetInfo(compute_instance, info);
  if (NoneFound(ret, kComputeInstanceGetInfoSymbols) || info == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("id", tree::Uint(info->id));
    answer.Add("profileId", tree::Uint(info->profileId));
    answer.Add("placement", Pair(info->placement.start, info->placement.size));
  }
  if (Node* object = ComputeInstanceObject(compute_instance, kFunction)) {
    tree::Set(*object, kFunction, std::move(answer));
  }
  return ret;
}

Return RecordingApi::GpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                              unsigned int eng_profile,
                                                              ComputeInstanceProfileInfo* info) {
  constexpr std::string_view kFunction = "nvmlGpuInstanceGetComputeInstanceProfileInfo";
  Return ret = inner_.GpuInstanceGetComputeInstanceProfileInfo(gpu_instance, profile, eng_profile, info);
  if (NotFound(ret, kFunction) || info == nullptr) return ret;
  Node answer = Answer(ret);
  if (ret == kSuccess) {
    answer.Add("id", tree::Uint(info->id));
    answer.Add("sliceCount", tree::Uint(info->sliceCount));
    answer.Add("instanceCount", tree::Uint(info->instanceCount));
    answer.Add("multiprocessorCount", tree::Uint(info->multiprocessorCount));
    answer.Add("sharedCopyEngineCount", tree::Uint(info->sharedCopyEngineCount));
    answer.Add("sharedDecoderCount", tree::Uint(info->sharedDecoderCount));
    answer.Add("sharedEncoderCount", tree::Uint(info->sharedEncoderCount));
    answer.Add("sharedJpegCount", tree::Uint(info->sharedJpegCount));
    answer.Add("sharedOfaCount", tree::Uint(info->sharedOfaCount));
  }
  if (Node* object = GpuInstanceObject(gpu_instance, kFunction)) {
    tree::Set(tree::Child(*object, kFunction), fmt::format("{}/{}", profile, eng_profile), std::move(answer));
  }
  return ret;
}

Return RecordingApi::DeviceGetVirtualizationMode(Device device, int* mode) {
  return DeviceValue(device, "nvmlDeviceGetVirtualizationMode", "mode",
                     inner_.DeviceGetVirtualizationMode(device, mode), mode);
}

// ---- Events ----

Return RecordingApi::EventSetCreate(EventSet* set) {
  Return ret = inner_.EventSetCreate(set);
  if (NotFound(ret, "nvmlEventSetCreate") || set == nullptr) return ret;
  tree::Set(Root(), "nvmlEventSetCreate", Answer(ret));
  if (ret == kSuccess) event_sets_.insert(Key(*set));
  return ret;
}

Return RecordingApi::DeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) {
  return DeviceValue(device, "nvmlDeviceGetSupportedEventTypes", "eventTypes",
                     inner_.DeviceGetSupportedEventTypes(device, event_types), event_types);
}

Return RecordingApi::DeviceRegisterEvents(Device device, unsigned long long event_types, EventSet set) {
  constexpr std::string_view kFunction = "nvmlDeviceRegisterEvents";
  Return ret = inner_.DeviceRegisterEvents(device, event_types, set);
  if (NotFound(ret, kFunction)) return ret;
  if (!event_sets_.contains(Key(set))) {
    Unrecordable(kFunction, "unknown event set");
    return ret;
  }
  SetOnDevice(device, kFunction, Answer(ret));
  return ret;
}

Return RecordingApi::EventSetWait(EventSet set, EventData* data, unsigned int timeout_ms) {
  constexpr std::string_view kFunction = "nvmlEventSetWait_v2";
  if (!first_wait_ms_) {
    first_wait_ms_ = inner_.NowMs();
    // A wait happened: even with no event, the recording says so (an empty
    // list), so that a replay's waits are answered, not unrecorded.
    tree::Child(Root(), "events", Node::Sequence());
  }
  Return ret = inner_.EventSetWait(set, data, timeout_ms);
  if (NoneFound(ret, kEventSetWaitSymbols)) return ret;
  // Timeouts are implied by the gaps between events (RECORDING.md).
  if (ret == kErrorTimeout || data == nullptr) return ret;
  if (!event_sets_.contains(Key(set))) {
    Unrecordable(kFunction, "unknown event set");
    return ret;
  }
  Node event = Node::Mapping();
  event.Add("atMs", Node::Int(std::max<int64_t>(0, inner_.NowMs() - *first_wait_ms_)));
  event.Add("ret", Node::Int(ret));
  if (ret == kSuccess) {
    auto device = devices_.find(Key(data->device));
    if (device == devices_.end() || device->second.mig) {
      Unrecordable(kFunction, "event on a device handle not from nvmlDeviceGetHandleByIndex_v2");
      return ret;
    }
    event.Add("device", tree::Uint(device->second.gpu));
    event.Add("eventType", tree::Uint(data->eventType));
    event.Add("eventData", tree::Uint(data->eventData));
    event.Add("gpuInstanceId", tree::Uint(data->gpuInstanceId));
    event.Add("computeInstanceId", tree::Uint(data->computeInstanceId));
  }
  tree::Child(Root(), "events", Node::Sequence()).Push(std::move(event));
  return ret;
}

Return RecordingApi::EventSetFree(EventSet set) {
  Return ret = inner_.EventSetFree(set);
  if (NotFound(ret, "nvmlEventSetFree")) return ret;
  if (ret == kSuccess) event_sets_.erase(Key(set));
  return ret;
}

}  // namespace dra::discover::nvml
