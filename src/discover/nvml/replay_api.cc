#include "discover/nvml/replay_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace dra::discover::nvml {

using manifest::Node;

namespace {

// NVML_ERROR_ARGUMENT_VERSION_MISMATCH: a versioned struct whose `version`
// the library does not know. types.h does not list it; only the addressing
// mode call uses a versioned struct here.
constexpr Return kErrorArgumentVersionMismatch = 25;

enum class Kind : uint64_t {
  kDevice = 1,
  kMigDevice = 2,
  kGpuInstance = 3,
  kComputeInstance = 4,
  kEventSet = 5,
};

// The parts of a synthetic handle; see the layout in replay_api.h.
struct Ref {
  Kind kind = Kind::kDevice;
  uint32_t gpu = 0;
  uint32_t a = 0;
  uint32_t b = 0;
};

constexpr uint32_t kFieldMax = 0xFFFF;

template <typename Handle>
Handle ToHandle(Ref ref) {
  uint64_t packed = (static_cast<uint64_t>(ref.kind) << 48) | (static_cast<uint64_t>(ref.gpu & kFieldMax) << 32) |
                    (static_cast<uint64_t>(ref.a & kFieldMax) << 16) | (ref.b & kFieldMax);
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(packed));
}

template <typename Handle>
std::optional<Ref> FromHandle(Handle handle) {
  uint64_t packed = reinterpret_cast<uintptr_t>(handle);
  uint64_t kind = packed >> 48;
  if (kind < static_cast<uint64_t>(Kind::kDevice) || kind > static_cast<uint64_t>(Kind::kEventSet)) {
    return std::nullopt;
  }
  return Ref{.kind = static_cast<Kind>(kind),
             .gpu = static_cast<uint32_t>((packed >> 32) & kFieldMax),
             .a = static_cast<uint32_t>((packed >> 16) & kFieldMax),
             .b = static_cast<uint32_t>(packed & kFieldMax)};
}

bool Fits(uint64_t v) { return v <= kFieldMax; }

// Reads the output fields of one answer; remembers the first field that is
// missing or of the wrong type.
class Fields {
 public:
  explicit Fields(const Node& answer) : answer_(answer) {}

  unsigned int U32(std::string_view name) {
    return static_cast<unsigned int>(Get(name, tree::ToUint, UINT32_MAX).value_or(0));
  }
  int I32(std::string_view name) {
    const Node* v = answer_.Find(name);
    std::optional<int64_t> x = v ? tree::ToInt(*v, INT32_MIN, INT32_MAX) : std::nullopt;
    if (!x) Bad(name);
    return static_cast<int>(x.value_or(0));
  }
  unsigned long long U64(std::string_view name) { return Get(name, tree::ToUint, UINT64_MAX).value_or(0); }
  std::string String(std::string_view name, size_t max_len = std::string::npos) {
    const Node* v = answer_.Find(name);
    if (v == nullptr || v->kind != manifest::NodeKind::kString || v->text.size() > max_len ||
        v->text.find('\0') != std::string::npos) {
      Bad(name);
      return "";
    }
    return v->text;
  }
  std::pair<unsigned int, unsigned int> Pair(std::string_view name) {
    const Node* v = answer_.Find(name);
    std::pair<unsigned int, unsigned int> out;
    if (v == nullptr || !ToPair(*v, &out)) Bad(name);
    return out;
  }
  std::vector<GpuInstancePlacement> Placements(std::string_view name) {
    const Node* v = answer_.Find(name);
    std::vector<GpuInstancePlacement> out;
    if (v == nullptr || !v->is_sequence()) {
      Bad(name);
      return out;
    }
    for (const Node& item : v->items) {
      std::pair<unsigned int, unsigned int> p;
      if (!ToPair(item, &p)) {
        Bad(name);
        return {};
      }
      out.push_back(GpuInstancePlacement{.start = p.first, .size = p.second});
    }
    return out;
  }

  bool ok() const { return bad_.empty(); }
  const std::string& bad() const { return bad_; }

 private:
  std::optional<uint64_t> Get(std::string_view name, std::optional<uint64_t> (*read)(const Node&, uint64_t),
                              uint64_t max) {
    const Node* v = answer_.Find(name);
    std::optional<uint64_t> x = v ? read(*v, max) : std::nullopt;
    if (!x) Bad(name);
    return x;
  }
  static bool ToPair(const Node& n, std::pair<unsigned int, unsigned int>* out) {
    if (!n.is_sequence() || n.items.size() != 2) return false;
    std::optional<uint64_t> first = tree::ToUint(n.items[0], UINT32_MAX);
    std::optional<uint64_t> second = tree::ToUint(n.items[1], UINT32_MAX);
    if (!first || !second) return false;
    *out = {static_cast<unsigned int>(*first), static_cast<unsigned int>(*second)};
    return true;
  }
  void Bad(std::string_view name) {
    if (bad_.empty()) bad_ = std::string(name);
  }

  const Node& answer_;
  std::string bad_;
};

// Copies a recorded string into a caller's buffer of `length` bytes.
Return CopyString(const std::string& s, char* buffer, unsigned int length) {
  if (s.size() + 1 > length) return kErrorInsufficientSize;
  std::memcpy(buffer, s.data(), s.size());
  buffer[s.size()] = '\0';
  return kSuccess;
}

}  // namespace

// One looked-up answer: ret is the recorded code, or 3 / 999 when the answer
// is absent / has no valid "ret" (answer is then null).
struct ReplayApi::Found {
  Return ret = kErrorNotSupported;
  const Node* answer = nullptr;
  std::string path;
};

// Where a handle's answers live: the GPU, MIG device, GI or CI object.
struct ReplayApi::Place {
  const Node* node = nullptr;
  std::string path;
  Ref ref;
};

ReplayApi::ReplayApi(Recording recording) : recording_(std::move(recording)) {
  if (const Node* missing = recording_.root.Find("missingSymbols")) {
    for (const Node& name : missing->items) {
      if (name.kind == manifest::NodeKind::kString) missing_.insert(name.text);
    }
  }
}

bool ReplayApi::Missing(std::string_view symbol) const { return missing_.contains(symbol); }

template <typename Symbols>
bool ReplayApi::AllMissing(const Symbols& symbols) const {
  return std::all_of(symbols.begin(), symbols.end(), [&](std::string_view s) { return Missing(s); });
}

void ReplayApi::Note(std::string path) {
  if (unrecorded_seen_.insert(path).second) unrecorded_.push_back(std::move(path));
}

Return ReplayApi::Malformed(const std::string& path, std::string_view field) {
  Note(fmt::format("{} (malformed: \"{}\" missing or of the wrong type)", path, field));
  return kErrorUnknown;
}

ReplayApi::Found ReplayApi::Lookup(const Node* parent, std::string_view key, std::string_view arg,
                                   const std::string& base) {
  Found found;
  found.path = base.empty() ? std::string(key) : fmt::format("{}.{}", base, key);
  if (!arg.empty()) found.path += fmt::format("[{}]", arg);
  const Node* node = parent != nullptr ? parent->Find(key) : nullptr;
  if (node != nullptr && !arg.empty()) node = node->Find(arg);
  if (node == nullptr) {
    Note(found.path);
    found.ret = kErrorNotSupported;
    return found;
  }
  const Node* ret = node->Find("ret");
  std::optional<int64_t> code = ret ? tree::ToInt(*ret, INT32_MIN, INT32_MAX) : std::nullopt;
  if (!code) {
    found.ret = Malformed(found.path, "ret");
    return found;
  }
  found.ret = static_cast<Return>(*code);
  found.answer = node;
  return found;
}

const Node* ReplayApi::GpuObject(uint32_t gpu) const {
  const Node* devices = recording_.root.Find("devices");
  if (devices == nullptr || !devices->is_sequence() || gpu >= devices->items.size()) {
    return nullptr;
  }
  return &devices->items[gpu];
}

std::optional<ReplayApi::Place> ReplayApi::DevicePlace(Device device) const {
  std::optional<Ref> ref = FromHandle(device);
  if (!ref) return std::nullopt;
  const Node* gpu = GpuObject(ref->gpu);
  if (gpu == nullptr) return std::nullopt;
  std::string path = fmt::format("devices[{}]", ref->gpu);
  if (ref->kind == Kind::kDevice) return Place{gpu, std::move(path), *ref};
  if (ref->kind != Kind::kMigDevice) return std::nullopt;
  const Node* migs = gpu->Find("migDevices");
  const Node* mig = migs ? migs->Find(std::to_string(ref->a)) : nullptr;
  if (mig == nullptr) return std::nullopt;
  return Place{mig, fmt::format("{}.migDevices[{}]", path, ref->a), *ref};
}

std::optional<ReplayApi::Place> ReplayApi::GpuInstancePlace(GpuInstance gpu_instance) const {
  std::optional<Ref> ref = FromHandle(gpu_instance);
  if (!ref || ref->kind != Kind::kGpuInstance) return std::nullopt;
  const Node* gpu = GpuObject(ref->gpu);
  const Node* gis = gpu ? gpu->Find("gpuInstances") : nullptr;
  const Node* gi = gis ? gis->Find(std::to_string(ref->a)) : nullptr;
  if (gi == nullptr) return std::nullopt;
  return Place{gi, fmt::format("devices[{}].gpuInstances[{}]", ref->gpu, ref->a), *ref};
}

std::optional<ReplayApi::Place> ReplayApi::ComputeInstancePlace(ComputeInstance compute_instance) const {
  std::optional<Ref> ref = FromHandle(compute_instance);
  if (!ref || ref->kind != Kind::kComputeInstance) return std::nullopt;
  const Node* gpu = GpuObject(ref->gpu);
  const Node* gis = gpu ? gpu->Find("gpuInstances") : nullptr;
  const Node* gi = gis ? gis->Find(std::to_string(ref->a)) : nullptr;
  const Node* cis = gi ? gi->Find("computeInstances") : nullptr;
  const Node* ci = cis ? cis->Find(std::to_string(ref->b)) : nullptr;
  if (ci == nullptr) return std::nullopt;
  return Place{ci, fmt::format("devices[{}].gpuInstances[{}].computeInstances[{}]", ref->gpu, ref->a, ref->b), *ref};
}

bool ReplayApi::LiveEventSet(EventSet set) const {
  std::optional<Ref> ref = FromHandle(set);
  return ref && ref->kind == Kind::kEventSet && live_event_sets_.contains(ref->a);
}

void ReplayApi::AdvanceClockTo(int64_t now_ms) { now_ms_ = std::max(now_ms_, now_ms); }

// ---- Init and system ----

Return ReplayApi::InitWithFlags(unsigned int /*flags*/) {
  if (AllMissing(kInitSymbols)) return kErrorFunctionNotFound;
  // "init" also says which symbol answered and with which flags; that is
  // informational (the answer is the same whichever was used).
  return Lookup(&recording_.root, "init", "", "").ret;
}

Return ReplayApi::Shutdown() {
  if (Missing("nvmlShutdown")) return kErrorFunctionNotFound;
  return kSuccess;
}

const char* ReplayApi::ErrorString(Return ret) { return ReturnName(ret); }

Return ReplayApi::SystemGetDriverVersion(char* version, unsigned int length) {
  if (Missing("nvmlSystemGetDriverVersion")) return kErrorFunctionNotFound;
  if (version == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(&recording_.root, "nvmlSystemGetDriverVersion", "", "");
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  std::string s = fields.String("version");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  return CopyString(s, version, length);
}

Return ReplayApi::SystemGetCudaDriverVersion(int* cuda_driver_version) {
  if (Missing("nvmlSystemGetCudaDriverVersion")) return kErrorFunctionNotFound;
  if (cuda_driver_version == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(&recording_.root, "nvmlSystemGetCudaDriverVersion", "", "");
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  int v = fields.I32("cudaDriverVersion");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *cuda_driver_version = v;
  return kSuccess;
}

// ---- Devices ----

Return ReplayApi::DeviceGetCount(unsigned int* device_count) {
  if (AllMissing(kDeviceGetCountSymbols)) return kErrorFunctionNotFound;
  if (device_count == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(&recording_.root, "nvmlDeviceGetCount_v2", "", "");
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  unsigned int v = fields.U32("deviceCount");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *device_count = v;
  return kSuccess;
}

Return ReplayApi::DeviceGetHandleByIndex(unsigned int index, Device* device) {
  if (AllMissing(kDeviceGetHandleByIndexSymbols)) return kErrorFunctionNotFound;
  if (device == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(GpuObject(index), "nvmlDeviceGetHandleByIndex_v2", "", fmt::format("devices[{}]", index));
  if (f.ret != kSuccess) return f.ret;
  if (!Fits(index)) return Malformed(f.path, "index");
  *device = ToHandle<Device>(Ref{.kind = Kind::kDevice, .gpu = index});
  return kSuccess;
}

Return ReplayApi::DeviceString(Device device, std::string_view function, std::string_view field, char* buffer,
                               unsigned int length) {
  if (Missing(function)) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || buffer == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, function, "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  std::string s = fields.String(field);
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  return CopyString(s, buffer, length);
}

Return ReplayApi::DeviceGetName(Device device, char* name, unsigned int length) {
  return DeviceString(device, "nvmlDeviceGetName", "name", name, length);
}

Return ReplayApi::DeviceGetUUID(Device device, char* uuid, unsigned int length) {
  return DeviceString(device, "nvmlDeviceGetUUID", "uuid", uuid, length);
}

// The common shape of a device call with outputs: symbol check, handle and
// pointer check, lookup; `write` reads the fields and, if all were good,
// writes the caller's outputs.
template <typename Write>
Return ReplayApi::DeviceCall(Device device, std::string_view function, bool outputs_non_null, Write write) {
  if (Missing(function)) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || !outputs_non_null) return kErrorInvalidArgument;
  Found f = Lookup(place->node, function, "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  write(fields);
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  return kSuccess;
}

Return ReplayApi::DeviceGetMinorNumber(Device device, unsigned int* minor_number) {
  return DeviceCall(device, "nvmlDeviceGetMinorNumber", minor_number != nullptr, [&](Fields& fields) {
    unsigned int v = fields.U32("minorNumber");
    if (fields.ok()) *minor_number = v;
  });
}

Return ReplayApi::DeviceGetBrand(Device device, int* type) {
  return DeviceCall(device, "nvmlDeviceGetBrand", type != nullptr, [&](Fields& fields) {
    int v = fields.I32("type");
    if (fields.ok()) *type = v;
  });
}

Return ReplayApi::DeviceGetArchitecture(Device device, unsigned int* arch) {
  return DeviceCall(device, "nvmlDeviceGetArchitecture", arch != nullptr, [&](Fields& fields) {
    unsigned int v = fields.U32("arch");
    if (fields.ok()) *arch = v;
  });
}

Return ReplayApi::DeviceGetCudaComputeCapability(Device device, int* major, int* minor) {
  return DeviceCall(device, "nvmlDeviceGetCudaComputeCapability", major != nullptr && minor != nullptr,
                    [&](Fields& fields) {
                      int ma = fields.I32("major");
                      int mi = fields.I32("minor");
                      if (!fields.ok()) return;
                      *major = ma;
                      *minor = mi;
                    });
}

Return ReplayApi::DeviceGetMemoryInfo(Device device, Memory* memory) {
  return DeviceCall(device, "nvmlDeviceGetMemoryInfo", memory != nullptr, [&](Fields& fields) {
    Memory m{.total = fields.U64("total"), .free = fields.U64("free"), .used = fields.U64("used")};
    if (fields.ok()) *memory = m;
  });
}

Return ReplayApi::DeviceGetPciInfo(Device device, PciInfo* pci) {
  if (AllMissing(kDeviceGetPciInfoSymbols)) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || pci == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, "nvmlDeviceGetPciInfo_v3", "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  PciInfo p{};
  std::string bus_id = fields.String("busId", kDevicePciBusIdBufferSize - 1);
  std::string bus_id_legacy = fields.String("busIdLegacy", kDevicePciBusIdLegacyBufferSize - 1);
  p.domain = fields.U32("domain");
  p.bus = fields.U32("bus");
  p.device = fields.U32("device");
  p.pciDeviceId = fields.U32("pciDeviceId");
  p.pciSubSystemId = fields.U32("pciSubSystemId");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  std::memcpy(p.busId, bus_id.data(), bus_id.size());
  std::memcpy(p.busIdLegacy, bus_id_legacy.data(), bus_id_legacy.size());
  *pci = p;
  return kSuccess;
}

Return ReplayApi::DeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) {
  if (Missing("nvmlDeviceGetAddressingMode")) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || mode == nullptr) return kErrorInvalidArgument;
  if (mode->version != kDeviceAddressingModeV1) return kErrorArgumentVersionMismatch;
  Found f = Lookup(place->node, "nvmlDeviceGetAddressingMode", "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  unsigned int v = fields.U32("value");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  mode->value = v;
  return kSuccess;
}

Return ReplayApi::DeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) {
  return DeviceCall(device, "nvmlDeviceGetMigMode", current_mode != nullptr && pending_mode != nullptr,
                    [&](Fields& fields) {
                      unsigned int cur = fields.U32("currentMode");
                      unsigned int pend = fields.U32("pendingMode");
                      if (!fields.ok()) return;
                      *current_mode = cur;
                      *pending_mode = pend;
                    });
}

Return ReplayApi::DeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile, GpuInstanceProfileInfo* info) {
  if (Missing("nvmlDeviceGetGpuInstanceProfileInfo")) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || info == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, "nvmlDeviceGetGpuInstanceProfileInfo", std::to_string(profile), place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  GpuInstanceProfileInfo p{};
  p.id = fields.U32("id");
  p.isP2pSupported = fields.U32("isP2pSupported");
  p.sliceCount = fields.U32("sliceCount");
  p.instanceCount = fields.U32("instanceCount");
  p.multiprocessorCount = fields.U32("multiprocessorCount");
  p.copyEngineCount = fields.U32("copyEngineCount");
  p.decoderCount = fields.U32("decoderCount");
  p.encoderCount = fields.U32("encoderCount");
  p.jpegCount = fields.U32("jpegCount");
  p.ofaCount = fields.U32("ofaCount");
  p.memorySizeMB = fields.U64("memorySizeMB");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *info = p;
  return kSuccess;
}

Return ReplayApi::DeviceGetGpuInstancePossiblePlacements(Device device, unsigned int profile_id,
                                                         GpuInstancePlacement* placements, unsigned int* count) {
  if (AllMissing(kPossiblePlacementsSymbols)) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || count == nullptr) return kErrorInvalidArgument;
  Found f =
      Lookup(place->node, "nvmlDeviceGetGpuInstancePossiblePlacements_v2", std::to_string(profile_id), place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  std::vector<GpuInstancePlacement> recorded = fields.Placements("placements");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  auto n = static_cast<unsigned int>(recorded.size());
  if (placements == nullptr) {
    *count = n;
    return kSuccess;
  }
  if (*count < n) {
    *count = n;
    return kErrorInsufficientSize;
  }
  std::copy(recorded.begin(), recorded.end(), placements);
  *count = n;
  return kSuccess;
}

Return ReplayApi::DeviceGetMaxMigDeviceCount(Device device, unsigned int* count) {
  return DeviceCall(device, "nvmlDeviceGetMaxMigDeviceCount", count != nullptr, [&](Fields& fields) {
    unsigned int v = fields.U32("count");
    if (fields.ok()) *count = v;
  });
}

Return ReplayApi::DeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) {
  if (Missing("nvmlDeviceGetMigDeviceHandleByIndex")) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  // Only a full GPU has MIG devices.
  if (!place || place->ref.kind != Kind::kDevice || mig_device == nullptr) {
    return kErrorInvalidArgument;
  }
  const Node* migs = place->node->Find("migDevices");
  std::string key = std::to_string(index);
  Found f = Lookup(migs ? migs->Find(key) : nullptr, "nvmlDeviceGetMigDeviceHandleByIndex", "",
                   fmt::format("{}.migDevices[{}]", place->path, key));
  if (f.ret != kSuccess) return f.ret;
  if (!Fits(index)) return Malformed(f.path, "index");
  *mig_device = ToHandle<Device>(Ref{.kind = Kind::kMigDevice, .gpu = place->ref.gpu, .a = index});
  return kSuccess;
}

Return ReplayApi::DeviceGetGpuInstanceId(Device device, unsigned int* id) {
  return DeviceCall(device, "nvmlDeviceGetGpuInstanceId", id != nullptr, [&](Fields& fields) {
    unsigned int v = fields.U32("id");
    if (fields.ok()) *id = v;
  });
}

Return ReplayApi::DeviceGetComputeInstanceId(Device device, unsigned int* id) {
  return DeviceCall(device, "nvmlDeviceGetComputeInstanceId", id != nullptr, [&](Fields& fields) {
    unsigned int v = fields.U32("id");
    if (fields.ok()) *id = v;
  });
}

Return ReplayApi::DeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) {
  if (Missing("nvmlDeviceGetGpuInstanceById")) return kErrorFunctionNotFound;
  std::optional<Place> place = DevicePlace(device);
  if (!place || place->ref.kind != Kind::kDevice || gpu_instance == nullptr) {
    return kErrorInvalidArgument;
  }
  const Node* gis = place->node->Find("gpuInstances");
  std::string key = std::to_string(id);
  Found f = Lookup(gis ? gis->Find(key) : nullptr, "nvmlDeviceGetGpuInstanceById", "",
                   fmt::format("{}.gpuInstances[{}]", place->path, key));
  if (f.ret != kSuccess) return f.ret;
  if (!Fits(id)) return Malformed(f.path, "id");
  *gpu_instance = ToHandle<GpuInstance>(Ref{.kind = Kind::kGpuInstance, .gpu = place->ref.gpu, .a = id});
  return kSuccess;
}

Return ReplayApi::GpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) {
  if (Missing("nvmlGpuInstanceGetInfo")) return kErrorFunctionNotFound;
  std::optional<Place> place = GpuInstancePlace(gpu_instance);
  if (!place || info == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, "nvmlGpuInstanceGetInfo", "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  GpuInstanceInfo out{};
  out.device = ToHandle<Device>(Ref{.kind = Kind::kDevice, .gpu = place->ref.gpu});
  out.id = fields.U32("id");
  out.profileId = fields.U32("profileId");
  auto [start, size] = fields.Pair("placement");
  out.placement = GpuInstancePlacement{.start = start, .size = size};
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *info = out;
  return kSuccess;
}

Return ReplayApi::GpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                                    ComputeInstance* compute_instance) {
  if (Missing("nvmlGpuInstanceGetComputeInstanceById")) return kErrorFunctionNotFound;
  std::optional<Place> place = GpuInstancePlace(gpu_instance);
  if (!place || compute_instance == nullptr) return kErrorInvalidArgument;
  const Node* cis = place->node->Find("computeInstances");
  std::string key = std::to_string(id);
  Found f = Lookup(cis ? cis->Find(key) : nullptr, "nvmlGpuInstanceGetComputeInstanceById", "",
                   fmt::format("{}.computeInstances[{}]", place->path, key));
  if (f.ret != kSuccess) return f.ret;
  if (!Fits(id)) return Malformed(f.path, "id");
  *compute_instance =
      ToHandle<ComputeInstance>(Ref{.kind = Kind::kComputeInstance, .gpu = place->ref.gpu, .a = place->ref.a, .b = id});
  return kSuccess;
}

Return ReplayApi::ComputeInstanceGetInfo(ComputeInstance compute_instance, ComputeInstanceInfo* info) {
  if (AllMissing(kComputeInstanceGetInfoSymbols)) return kErrorFunctionNotFound;
  std::optional<Place> place = ComputeInstancePlace(compute_instance);
  if (!place || info == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, "nvmlComputeInstanceGetInfo_v2", "", place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  ComputeInstanceInfo out{};
  out.device = ToHandle<Device>(Ref{.kind = Kind::kDevice, .gpu = place->ref.gpu});
  out.gpuInstance = ToHandle<GpuInstance>(Ref{.kind = Kind::kGpuInstance, .gpu = place->ref.gpu, .a = place->ref.a});
  out.id = fields.U32("id");
  out.profileId = fields.U32("profileId");
  auto [start, size] = fields.Pair("placement");
  out.placement = ComputeInstancePlacement{.start = start, .size = size};
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *info = out;
  return kSuccess;
}

Return ReplayApi::GpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                           unsigned int eng_profile, ComputeInstanceProfileInfo* info) {
  if (Missing("nvmlGpuInstanceGetComputeInstanceProfileInfo")) return kErrorFunctionNotFound;
  std::optional<Place> place = GpuInstancePlace(gpu_instance);
  if (!place || info == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(place->node, "nvmlGpuInstanceGetComputeInstanceProfileInfo",
                   fmt::format("{}/{}", profile, eng_profile), place->path);
  if (f.ret != kSuccess) return f.ret;
  Fields fields(*f.answer);
  ComputeInstanceProfileInfo p{};
  p.id = fields.U32("id");
  p.sliceCount = fields.U32("sliceCount");
  p.instanceCount = fields.U32("instanceCount");
  p.multiprocessorCount = fields.U32("multiprocessorCount");
  p.sharedCopyEngineCount = fields.U32("sharedCopyEngineCount");
  p.sharedDecoderCount = fields.U32("sharedDecoderCount");
  p.sharedEncoderCount = fields.U32("sharedEncoderCount");
  p.sharedJpegCount = fields.U32("sharedJpegCount");
  p.sharedOfaCount = fields.U32("sharedOfaCount");
  if (!fields.ok()) return Malformed(f.path, fields.bad());
  *info = p;
  return kSuccess;
}

Return ReplayApi::DeviceGetVirtualizationMode(Device device, int* mode) {
  return DeviceCall(device, "nvmlDeviceGetVirtualizationMode", mode != nullptr, [&](Fields& fields) {
    int v = fields.I32("mode");
    if (fields.ok()) *mode = v;
  });
}

// ---- Events ----

Return ReplayApi::EventSetCreate(EventSet* set) {
  if (Missing("nvmlEventSetCreate")) return kErrorFunctionNotFound;
  if (set == nullptr) return kErrorInvalidArgument;
  Found f = Lookup(&recording_.root, "nvmlEventSetCreate", "", "");
  if (f.ret != kSuccess) return f.ret;
  // Serials 1..0xFFFF, reused after wrapping (far more sets than any run makes).
  last_event_set_ = last_event_set_ % kFieldMax + 1;
  live_event_sets_.insert(last_event_set_);
  *set = ToHandle<EventSet>(Ref{.kind = Kind::kEventSet, .a = last_event_set_});
  return kSuccess;
}

Return ReplayApi::DeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) {
  return DeviceCall(device, "nvmlDeviceGetSupportedEventTypes", event_types != nullptr, [&](Fields& fields) {
    unsigned long long v = fields.U64("eventTypes");
    if (fields.ok()) *event_types = v;
  });
}

Return ReplayApi::DeviceRegisterEvents(Device device, unsigned long long /*event_types*/, EventSet set) {
  return DeviceCall(device, "nvmlDeviceRegisterEvents", LiveEventSet(set), [](Fields&) {});
}

Return ReplayApi::EventSetWait(EventSet set, EventData* data, unsigned int timeout_ms) {
  if (AllMissing(kEventSetWaitSymbols)) return kErrorFunctionNotFound;
  if (!LiveEventSet(set) || data == nullptr) return kErrorInvalidArgument;
  const Node* events = recording_.root.Find("events");
  if (events == nullptr || !events->is_sequence()) {
    // No list: nothing happens, but say that the recording could not tell.
    // The clock still moves, so a caller looping until a deadline ends.
    Note("events");
    now_ms_ += timeout_ms;
    return kErrorTimeout;
  }
  if (next_event_ < events->items.size()) {
    const Node& event = events->items[next_event_];
    std::string path = fmt::format("events[{}]", next_event_);
    const Node* at = event.Find("atMs");
    std::optional<int64_t> at_ms = at ? tree::ToInt(*at, 0) : std::nullopt;
    if (!at_ms) {
      ++next_event_;  // skip it, so the replay cannot stall on it
      return Malformed(path, "atMs");
    }
    if (*at_ms <= now_ms_ + static_cast<int64_t>(timeout_ms)) {
      ++next_event_;
      now_ms_ = std::max(now_ms_, *at_ms);
      const Node* ret = event.Find("ret");
      std::optional<int64_t> code = ret ? tree::ToInt(*ret, INT32_MIN, INT32_MAX) : std::nullopt;
      if (!code) return Malformed(path, "ret");
      if (*code != kSuccess) return static_cast<Return>(*code);
      Fields fields(event);
      unsigned int device = fields.U32("device");
      EventData out{};
      out.eventType = fields.U64("eventType");
      out.eventData = fields.U64("eventData");
      out.gpuInstanceId = fields.U32("gpuInstanceId");
      out.computeInstanceId = fields.U32("computeInstanceId");
      if (!fields.ok()) return Malformed(path, fields.bad());
      if (!Fits(device)) return Malformed(path, "device");
      out.device = ToHandle<Device>(Ref{.kind = Kind::kDevice, .gpu = device});
      *data = out;
      return kSuccess;
    }
  }
  now_ms_ += timeout_ms;
  return kErrorTimeout;
}

Return ReplayApi::EventSetFree(EventSet set) {
  if (Missing("nvmlEventSetFree")) return kErrorFunctionNotFound;
  if (!LiveEventSet(set)) return kErrorInvalidArgument;
  live_event_sets_.erase(FromHandle(set)->a);
  return kSuccess;
}

}  // namespace dra::discover::nvml
