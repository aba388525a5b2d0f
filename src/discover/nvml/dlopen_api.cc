#include "discover/nvml/dlopen_api.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <link.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "discover/nvml/recording.h"

namespace dra::discover::nvml {
namespace {

constexpr const char* kSoname = "libnvidia-ml.so.1";

// The C signatures of discover/README.md §2.2, with nvmlReturn_t as int and
// the handle structs as our opaque pointer types (same ABI: one pointer).
struct Symbols {
  Return (*init_with_flags)(unsigned int) = nullptr;
  Return (*init)() = nullptr;  // nvmlInit_v2 or nvmlInit
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*system_get_driver_version)(char*, unsigned int) = nullptr;
  Return (*system_get_cuda_driver_version)(int*) = nullptr;
  Return (*device_get_count)(unsigned int*) = nullptr;
  Return (*device_get_handle_by_index)(unsigned int, Device*) = nullptr;
  Return (*device_get_name)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_uuid)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_minor_number)(Device, unsigned int*) = nullptr;
  Return (*device_get_brand)(Device, int*) = nullptr;
  Return (*device_get_architecture)(Device, unsigned int*) = nullptr;
  Return (*device_get_cuda_compute_capability)(Device, int*, int*) = nullptr;
  Return (*device_get_memory_info)(Device, Memory*) = nullptr;
  Return (*device_get_pci_info)(Device, PciInfo*) = nullptr;
  Return (*device_get_addressing_mode)(Device, DeviceAddressingMode*) = nullptr;
  Return (*device_get_mig_mode)(Device, unsigned int*, unsigned int*) = nullptr;
  Return (*device_get_gpu_instance_profile_info)(Device, unsigned int, GpuInstanceProfileInfo*) = nullptr;
  Return (*device_get_gpu_instance_possible_placements)(Device, unsigned int, GpuInstancePlacement*,
                                                        unsigned int*) = nullptr;
  Return (*device_get_max_mig_device_count)(Device, unsigned int*) = nullptr;
  Return (*device_get_mig_device_handle_by_index)(Device, unsigned int, Device*) = nullptr;
  Return (*device_get_gpu_instance_id)(Device, unsigned int*) = nullptr;
  Return (*device_get_compute_instance_id)(Device, unsigned int*) = nullptr;
  Return (*device_get_gpu_instance_by_id)(Device, unsigned int, GpuInstance*) = nullptr;
  Return (*gpu_instance_get_info)(GpuInstance, GpuInstanceInfo*) = nullptr;
  Return (*gpu_instance_get_compute_instance_by_id)(GpuInstance, unsigned int, ComputeInstance*) = nullptr;
  Return (*compute_instance_get_info)(ComputeInstance, ComputeInstanceInfo*) = nullptr;
  Return (*gpu_instance_get_compute_instance_profile_info)(GpuInstance, unsigned int, unsigned int,
                                                           ComputeInstanceProfileInfo*) = nullptr;
  Return (*device_get_virtualization_mode)(Device, int*) = nullptr;
  Return (*event_set_create)(EventSet*) = nullptr;
  Return (*device_get_supported_event_types)(Device, unsigned long long*) = nullptr;
  Return (*device_register_events)(Device, unsigned long long, EventSet) = nullptr;
  Return (*event_set_wait)(EventSet, EventData*, unsigned int) = nullptr;
  Return (*event_set_free)(EventSet) = nullptr;
};

// Looks symbols up in one library, remembering the names it did not find.
class Resolver {
 public:
  explicit Resolver(void* handle) : handle_(handle) {}

  // Sets `slot` to the first of `names` the library exports; every name
  // tried before it (or all of them) is recorded as missing.
  template <typename Fn>
  void Resolve(Fn*& slot, std::initializer_list<std::string_view> names) {
    ResolveFrom(slot, names);
  }
  template <typename Fn, size_t N>
  void Resolve(Fn*& slot, const std::array<std::string_view, N>& names) {
    ResolveFrom(slot, names);
  }

  std::vector<std::string> TakeMissing() { return std::move(missing_); }

 private:
  template <typename Fn, typename Names>
  void ResolveFrom(Fn*& slot, const Names& names) {
    for (std::string_view name : names) {
      void* address = dlsym(handle_, std::string(name).c_str());
      if (address != nullptr) {
        // POSIX guarantees that a dlsym result converts to a function pointer.
        slot = reinterpret_cast<Fn*>(address);
        return;
      }
      missing_.emplace_back(name);
    }
  }

  void* handle_;
  std::vector<std::string> missing_;
};

// Calls `fn(args...)`, or answers kErrorFunctionNotFound when the library
// lacks the symbol.
template <typename Fn, typename... Args>
Return Call(Fn* fn, Args... args) {
  if (fn == nullptr) return kErrorFunctionNotFound;
  return fn(args...);
}

class DlopenApi : public Api {
 public:
  DlopenApi(void* handle, const Symbols& symbols) : handle_(handle), s_(symbols) {}
  ~DlopenApi() override { dlclose(handle_); }
  DlopenApi(const DlopenApi&) = delete;
  DlopenApi& operator=(const DlopenApi&) = delete;

  Return InitWithFlags(unsigned int flags) override {
    if (flags != 0 && s_.init_with_flags != nullptr) return s_.init_with_flags(flags);
    if (s_.init != nullptr) return s_.init();
    return Call(s_.init_with_flags, flags);
  }
  Return Shutdown() override { return Call(s_.shutdown); }
  const char* ErrorString(Return ret) override {
    const char* text = s_.error_string != nullptr ? s_.error_string(ret) : nullptr;
    return text != nullptr ? text : ReturnName(ret);
  }

  Return SystemGetDriverVersion(char* version, unsigned int length) override {
    return Call(s_.system_get_driver_version, version, length);
  }
  Return SystemGetCudaDriverVersion(int* cuda_driver_version) override {
    return Call(s_.system_get_cuda_driver_version, cuda_driver_version);
  }

  Return DeviceGetCount(unsigned int* device_count) override { return Call(s_.device_get_count, device_count); }
  Return DeviceGetHandleByIndex(unsigned int index, Device* device) override {
    return Call(s_.device_get_handle_by_index, index, device);
  }
  Return DeviceGetName(Device device, char* name, unsigned int length) override {
    return Call(s_.device_get_name, device, name, length);
  }
  Return DeviceGetUUID(Device device, char* uuid, unsigned int length) override {
    return Call(s_.device_get_uuid, device, uuid, length);
  }
  Return DeviceGetMinorNumber(Device device, unsigned int* minor_number) override {
    return Call(s_.device_get_minor_number, device, minor_number);
  }
  Return DeviceGetBrand(Device device, int* type) override { return Call(s_.device_get_brand, device, type); }
  Return DeviceGetArchitecture(Device device, unsigned int* arch) override {
    return Call(s_.device_get_architecture, device, arch);
  }
  Return DeviceGetCudaComputeCapability(Device device, int* major, int* minor) override {
    return Call(s_.device_get_cuda_compute_capability, device, major, minor);
  }
  Return DeviceGetMemoryInfo(Device device, Memory* memory) override {
    return Call(s_.device_get_memory_info, device, memory);
  }
  Return DeviceGetPciInfo(Device device, PciInfo* pci) override { return Call(s_.device_get_pci_info, device, pci); }
  Return DeviceGetAddressingMode(Device device, DeviceAddressingMode* mode) override {
    return Call(s_.device_get_addressing_mode, device, mode);
  }

  Return DeviceGetMigMode(Device device, unsigned int* current_mode, unsigned int* pending_mode) override {
    return Call(s_.device_get_mig_mode, device, current_mode, pending_mode);
  }
  Return DeviceGetGpuInstanceProfileInfo(Device device, unsigned int profile, GpuInstanceProfileInfo* info) override {
    return Call(s_.device_get_gpu_instance_profile_info, device, profile, info);
  }
  Return DeviceGetGpuInstancePossiblePlacements(Device device, unsigned int profile_id,
                                                GpuInstancePlacement* placements, unsigned int* count) override {
    return Call(s_.device_get_gpu_instance_possible_placements, device, profile_id, placements, count);
  }
  Return DeviceGetMaxMigDeviceCount(Device device, unsigned int* count) override {
    return Call(s_.device_get_max_mig_device_count, device, count);
  }
  Return DeviceGetMigDeviceHandleByIndex(Device device, unsigned int index, Device* mig_device) override {
    return Call(s_.device_get_mig_device_handle_by_index, device, index, mig_device);
  }
  Return DeviceGetGpuInstanceId(Device mig_device, unsigned int* id) override {
    return Call(s_.device_get_gpu_instance_id, mig_device, id);
  }
  Return DeviceGetComputeInstanceId(Device mig_device, unsigned int* id) override {
    return Call(s_.device_get_compute_instance_id, mig_device, id);
  }
  Return DeviceGetGpuInstanceById(Device device, unsigned int id, GpuInstance* gpu_instance) override {
    return Call(s_.device_get_gpu_instance_by_id, device, id, gpu_instance);
  }
  Return GpuInstanceGetInfo(GpuInstance gpu_instance, GpuInstanceInfo* info) override {
    return Call(s_.gpu_instance_get_info, gpu_instance, info);
  }
  Return GpuInstanceGetComputeInstanceById(GpuInstance gpu_instance, unsigned int id,
                                           ComputeInstance* compute_instance) override {
    return Call(s_.gpu_instance_get_compute_instance_by_id, gpu_instance, id, compute_instance);
  }
  Return ComputeInstanceGetInfo(ComputeInstance compute_instance, ComputeInstanceInfo* info) override {
    return Call(s_.compute_instance_get_info, compute_instance, info);
  }
  Return GpuInstanceGetComputeInstanceProfileInfo(GpuInstance gpu_instance, unsigned int profile,
                                                  unsigned int eng_profile, ComputeInstanceProfileInfo* info) override {
    return Call(s_.gpu_instance_get_compute_instance_profile_info, gpu_instance, profile, eng_profile, info);
  }
  Return DeviceGetVirtualizationMode(Device device, int* mode) override {
    return Call(s_.device_get_virtualization_mode, device, mode);
  }

  Return EventSetCreate(EventSet* set) override { return Call(s_.event_set_create, set); }
  Return DeviceGetSupportedEventTypes(Device device, unsigned long long* event_types) override {
    return Call(s_.device_get_supported_event_types, device, event_types);
  }
  Return DeviceRegisterEvents(Device device, unsigned long long event_types, EventSet set) override {
    return Call(s_.device_register_events, device, event_types, set);
  }
  Return EventSetWait(EventSet set, EventData* data, unsigned int timeout_ms) override {
    return Call(s_.event_set_wait, set, data, timeout_ms);
  }
  Return EventSetFree(EventSet set) override { return Call(s_.event_set_free, set); }

  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

 private:
  void* handle_;
  Symbols s_;
};

Symbols ResolveAll(void* handle, std::vector<std::string>* missing) {
  Resolver r(handle);
  Symbols s;
  r.Resolve(s.init_with_flags, {"nvmlInitWithFlags"});
  r.Resolve(s.init, {"nvmlInit_v2", "nvmlInit"});
  r.Resolve(s.shutdown, {"nvmlShutdown"});
  r.Resolve(s.error_string, {"nvmlErrorString"});
  r.Resolve(s.system_get_driver_version, {"nvmlSystemGetDriverVersion"});
  r.Resolve(s.system_get_cuda_driver_version, {"nvmlSystemGetCudaDriverVersion"});
  r.Resolve(s.device_get_count, kDeviceGetCountSymbols);
  r.Resolve(s.device_get_handle_by_index, kDeviceGetHandleByIndexSymbols);
  r.Resolve(s.device_get_name, {"nvmlDeviceGetName"});
  r.Resolve(s.device_get_uuid, {"nvmlDeviceGetUUID"});
  r.Resolve(s.device_get_minor_number, {"nvmlDeviceGetMinorNumber"});
  r.Resolve(s.device_get_brand, {"nvmlDeviceGetBrand"});
  r.Resolve(s.device_get_architecture, {"nvmlDeviceGetArchitecture"});
  r.Resolve(s.device_get_cuda_compute_capability, {"nvmlDeviceGetCudaComputeCapability"});
  r.Resolve(s.device_get_memory_info, {"nvmlDeviceGetMemoryInfo"});
  r.Resolve(s.device_get_pci_info, kDeviceGetPciInfoSymbols);
  r.Resolve(s.device_get_addressing_mode, {"nvmlDeviceGetAddressingMode"});
  r.Resolve(s.device_get_mig_mode, {"nvmlDeviceGetMigMode"});
  r.Resolve(s.device_get_gpu_instance_profile_info, {"nvmlDeviceGetGpuInstanceProfileInfo"});
  r.Resolve(s.device_get_gpu_instance_possible_placements, kPossiblePlacementsSymbols);
  r.Resolve(s.device_get_max_mig_device_count, {"nvmlDeviceGetMaxMigDeviceCount"});
  r.Resolve(s.device_get_mig_device_handle_by_index, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  r.Resolve(s.device_get_gpu_instance_id, {"nvmlDeviceGetGpuInstanceId"});
  r.Resolve(s.device_get_compute_instance_id, {"nvmlDeviceGetComputeInstanceId"});
  r.Resolve(s.device_get_gpu_instance_by_id, {"nvmlDeviceGetGpuInstanceById"});
  r.Resolve(s.gpu_instance_get_info, {"nvmlGpuInstanceGetInfo"});
  r.Resolve(s.gpu_instance_get_compute_instance_by_id, {"nvmlGpuInstanceGetComputeInstanceById"});
  r.Resolve(s.compute_instance_get_info, kComputeInstanceGetInfoSymbols);
  r.Resolve(s.gpu_instance_get_compute_instance_profile_info, {"nvmlGpuInstanceGetComputeInstanceProfileInfo"});
  r.Resolve(s.device_get_virtualization_mode, {"nvmlDeviceGetVirtualizationMode"});
  r.Resolve(s.event_set_create, {"nvmlEventSetCreate"});
  r.Resolve(s.device_get_supported_event_types, {"nvmlDeviceGetSupportedEventTypes"});
  r.Resolve(s.device_register_events, {"nvmlDeviceRegisterEvents"});
  r.Resolve(s.event_set_wait, kEventSetWaitSymbols);
  r.Resolve(s.event_set_free, {"nvmlEventSetFree"});
  if (missing != nullptr) *missing = r.TakeMissing();
  return s;
}

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

// The path the loader actually used for `handle`.
std::string LoadedPath(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

std::vector<std::string> NvmlSearchPaths(const std::string& driver_root) {
  std::string root = driver_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  static constexpr const char* kDirs[] = {"",
                                          "/usr/lib64",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/usr/lib/aarch64-linux-gnu",
                                          "/lib64",
                                          "/lib/x86_64-linux-gnu",
                                          "/lib/aarch64-linux-gnu"};
  std::vector<std::string> paths;
  for (const char* dir : kDirs) paths.push_back(fmt::format("{}{}/{}", root, dir, kSoname));
  return paths;
}

StatusOr<std::unique_ptr<Api>> LoadNvml(const DlopenOptions& options, std::string* loaded_path,
                                        std::vector<std::string>* missing_symbols) {
  void* handle = nullptr;
  std::string path;
  if (!options.library_path.empty()) {
    path = options.library_path;
    dlerror();
    handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_GLOBAL);
    if (handle == nullptr) {
      struct stat st {};
      bool exists = stat(path.c_str(), &st) == 0;
      std::string message = fmt::format("cannot load NVML from --nvml-lib {}: {}", path, DlError());
      if (exists) return FailedPreconditionError(std::move(message));
      return NotFoundError(std::move(message));
    }
  } else {
    std::vector<std::string> tried;
    for (const std::string& candidate : NvmlSearchPaths(options.driver_root)) {
      struct stat st {};
      if (stat(candidate.c_str(), &st) != 0) {
        tried.push_back(fmt::format("{} ({})", candidate, std::strerror(errno)));
        continue;
      }
      if (!S_ISREG(st.st_mode)) {
        tried.push_back(fmt::format("{} (not a regular file)", candidate));
        continue;
      }
      char resolved[PATH_MAX];
      path = realpath(candidate.c_str(), resolved) != nullptr ? resolved : candidate;
      dlerror();
      handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_GLOBAL);
      if (handle == nullptr) {
        return FailedPreconditionError(fmt::format("cannot load NVML from {}{}: {}", candidate,
                                                   path != candidate ? fmt::format(" (resolved to {})", path) : "",
                                                   DlError()));
      }
      break;
    }
    if (handle == nullptr) {
      dlerror();
      handle = dlopen(kSoname, RTLD_LAZY | RTLD_GLOBAL);
      if (handle == nullptr) {
        tried.push_back(fmt::format("{} through the dynamic loader ({})", kSoname, DlError()));
        return NotFoundError(fmt::format("cannot load NVML: no {} under driver root {}; tried {}", kSoname,
                                         options.driver_root, fmt::join(tried, "; ")));
      }
      path = kSoname;
    }
  }
  if (loaded_path != nullptr) *loaded_path = LoadedPath(handle, path);
  Symbols symbols = ResolveAll(handle, missing_symbols);
  return std::unique_ptr<Api>(std::make_unique<DlopenApi>(handle, symbols));
}

}  // namespace dra::discover::nvml
