#include "discover/nvidia.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "discover/normalize.h"
#include "discover/sysfs.h"
#include "quantity/quantity.h"

namespace dra::discover {
namespace {

using api::Box;
using api::InternedString;
using nvml::Return;
using quantity::Quantity;

constexpr std::string_view kStd = "resource.kubernetes.io/";
constexpr uint64_t kMiB = uint64_t{1} << 20;
// Sanity bounds on NVML's answers (real GPUs have 8 memory slices and at most
// 7 placements per profile): anything beyond is reported, not trusted.
constexpr unsigned int kMaxPlacements = 64;
constexpr unsigned int kMaxMemorySlices = 32;

bool PlausiblePlacement(const nvml::GpuInstancePlacement& p) {
  return p.size >= 1 && p.size <= kMaxMemorySlices && p.start < kMaxMemorySlices &&
         p.start + p.size <= kMaxMemorySlices;
}

std::string CallError(nvml::Api& nvml, std::string_view function, Return ret) {
  return fmt::format("{}: {}", function, DescribeReturn(nvml, ret));
}

// Reports a condition the plugin treats as fatal: an error with --strict,
// else a warning (the attribute or GPU is left out).
Status Fatal(const NvidiaOptions& options, Diagnostics& diag, std::string message) {
  if (options.strict) return FailedPreconditionError(message);
  diag.Warn(std::move(message));
  return OkStatus();
}

bool Absent(Return ret) { return ret == nvml::kErrorNotSupported || ret == nvml::kErrorFunctionNotFound; }

std::string CString(const char* buffer, size_t size) { return std::string(buffer, strnlen(buffer, size)); }

// GPU instance profiles and their placements (README §1.5.2, §1.5.3). Leaves
// gpu.mig_data false (with a warning) when they cannot be had.
Status GatherMigProfiles(nvml::Api& nvml, nvml::Device device, GpuInfo& gpu, const NvidiaOptions& options,
                         Diagnostics& diag) {
  std::string where = fmt::format("GPU {} ({})", gpu.index, gpu.bus_id);
  if (!gpu.memory_bytes) {
    diag.Warn(
        fmt::format("{}: no memory total, so MIG profile names cannot be computed; MIG "
                    "profiles left out",
                    where));
    return OkStatus();
  }
  for (unsigned int index = 0; index < nvml::kGpuInstanceProfileCount; ++index) {
    nvml::GpuInstanceProfileInfo info{};
    Return ret = nvml.DeviceGetGpuInstanceProfileInfo(device, index, &info);
    if (ret == nvml::kErrorNotSupported || ret == nvml::kErrorInvalidArgument) continue;
    if (ret != nvml::kSuccess) {
      Status s = Fatal(options, diag,
                       fmt::format("{}: MIG profiles left out: {}", where,
                                   CallError(nvml, "nvmlDeviceGetGpuInstanceProfileInfo", ret)));
      gpu.profiles.clear();
      return s;
    }
    std::optional<GiProfileShape> shape = GiProfileShapeOf(index);
    if (!shape) {
      Status s = Fatal(options, diag,
                       fmt::format("{}: GPU instance profile index {:#x} (id {}) is unknown to "
                                   "the driver's MIG library; profile left out",
                                   where, index, info.id));
      if (!s.ok()) return s;
      continue;
    }
    int64_t gb = MigProfileGigabytes(info.memorySizeMB, *gpu.memory_bytes);
    if (gb < 0) {
      Status s = Fatal(options, diag,
                       fmt::format("{}: GPU instance profile {} reports {} MiB of memory; "
                                   "profile left out",
                                   where, info.id, info.memorySizeMB));
      if (!s.ok()) return s;
      continue;
    }
    MigProfile profile;
    profile.gi_index = index;
    profile.info = info;
    profile.slices = shape->slices;
    profile.name = MigProfileName(shape->slices, gb, shape->suffix);

    unsigned int count = 0;
    ret = nvml.DeviceGetGpuInstancePossiblePlacements(device, info.id, nullptr, &count);
    if (ret == nvml::kSuccess && count > kMaxPlacements) {
      Status s = Fatal(options, diag,
                       fmt::format("{}: GPU instance profile {} reports {} placements; profile "
                                   "left out",
                                   where, info.id, count));
      if (!s.ok()) return s;
      continue;
    }
    if (ret == nvml::kSuccess && count > 0) {
      profile.placements.resize(count);
      ret = nvml.DeviceGetGpuInstancePossiblePlacements(device, info.id, profile.placements.data(), &count);
      profile.placements.resize(std::min<size_t>(count, profile.placements.size()));
    }
    if (ret == nvml::kErrorNotSupported || ret == nvml::kErrorInvalidArgument) continue;
    if (ret != nvml::kSuccess) {
      std::string message =
          fmt::format("{}: MIG profiles left out: {}{}", where,
                      CallError(nvml, "nvmlDeviceGetGpuInstancePossiblePlacements_v2", ret),
                      ret == nvml::kErrorNoPermission ? " (the plugin runs privileged: run as root)" : "");
      gpu.profiles.clear();
      return Fatal(options, diag, std::move(message));
    }
    if (!std::all_of(profile.placements.begin(), profile.placements.end(), PlausiblePlacement)) {
      Status s = Fatal(options, diag,
                       fmt::format("{}: GPU instance profile {} reports a placement outside "
                                   "memory slices 0..{}; profile left out",
                                   where, info.id, kMaxMemorySlices - 1));
      if (!s.ok()) return s;
      continue;
    }
    // The plugin keys profiles by name: a later index with the same name
    // replaces an earlier one.
    auto same = std::find_if(gpu.profiles.begin(), gpu.profiles.end(),
                             [&](const MigProfile& p) { return p.name == profile.name; });
    if (same != gpu.profiles.end()) {
      *same = std::move(profile);
    } else {
      gpu.profiles.push_back(std::move(profile));
    }
  }
  gpu.mig_data = !gpu.profiles.empty();
  return OkStatus();
}

// The MIG devices that exist on a MIG-enabled GPU (README §1.5.4).
Status GatherStaticMig(nvml::Api& nvml, nvml::Device device, GpuInfo& gpu, const NvidiaOptions& options,
                       Diagnostics& diag) {
  std::string where = fmt::format("GPU {} ({})", gpu.index, gpu.bus_id);
  unsigned int max_count = 0;
  Return ret = nvml.DeviceGetMaxMigDeviceCount(device, &max_count);
  if (ret != nvml::kSuccess) {
    return Fatal(
        options, diag,
        fmt::format("{}: MIG devices left out: {}", where, CallError(nvml, "nvmlDeviceGetMaxMigDeviceCount", ret)));
  }
  if (max_count > kMaxPlacements) {
    return Fatal(options, diag,
                 fmt::format("{}: MIG devices left out: nvmlDeviceGetMaxMigDeviceCount reports {}", where, max_count));
  }
  for (unsigned int k = 0; k < max_count; ++k) {
    nvml::Device mig = nullptr;
    ret = nvml.DeviceGetMigDeviceHandleByIndex(device, k, &mig);
    if (ret == nvml::kErrorNotFound || ret == nvml::kErrorInvalidArgument) continue;
    std::string mig_where = fmt::format("{}: MIG device {}", where, k);
    auto fail = [&](std::string_view function, Return r) {
      return Fatal(options, diag, fmt::format("{} left out: {}", mig_where, CallError(nvml, function, r)));
    };
    if (ret != nvml::kSuccess) {
      Status s = fail("nvmlDeviceGetMigDeviceHandleByIndex", ret);
      if (!s.ok()) return s;
      continue;
    }
    StaticMigDevice out;
    char uuid[nvml::kDeviceUuidBufferSize] = {};
    if ((ret = nvml.DeviceGetGpuInstanceId(mig, &out.gi_id)) != nvml::kSuccess) {
      Status s = fail("nvmlDeviceGetGpuInstanceId", ret);
      if (!s.ok()) return s;
      continue;
    }
    if ((ret = nvml.DeviceGetComputeInstanceId(mig, &out.ci_id)) != nvml::kSuccess) {
      Status s = fail("nvmlDeviceGetComputeInstanceId", ret);
      if (!s.ok()) return s;
      continue;
    }
    if ((ret = nvml.DeviceGetUUID(mig, uuid, sizeof uuid)) != nvml::kSuccess) {
      Status s = fail("nvmlDeviceGetUUID", ret);
      if (!s.ok()) return s;
      continue;
    }
    out.uuid = CString(uuid, sizeof uuid);
    nvml::GpuInstance gi = nullptr;
    if ((ret = nvml.DeviceGetGpuInstanceById(device, out.gi_id, &gi)) != nvml::kSuccess) {
      Status s = fail("nvmlDeviceGetGpuInstanceById", ret);
      if (!s.ok()) return s;
      continue;
    }
    nvml::GpuInstanceInfo gi_info{};
    if ((ret = nvml.GpuInstanceGetInfo(gi, &gi_info)) != nvml::kSuccess) {
      Status s = fail("nvmlGpuInstanceGetInfo", ret);
      if (!s.ok()) return s;
      continue;
    }
    nvml::ComputeInstance ci = nullptr;
    if ((ret = nvml.GpuInstanceGetComputeInstanceById(gi, out.ci_id, &ci)) != nvml::kSuccess) {
      Status s = fail("nvmlGpuInstanceGetComputeInstanceById", ret);
      if (!s.ok()) return s;
      continue;
    }
    nvml::ComputeInstanceInfo ci_info{};
    if ((ret = nvml.ComputeInstanceGetInfo(ci, &ci_info)) != nvml::kSuccess) {
      Status s = fail("nvmlComputeInstanceGetInfo_v2", ret);
      if (!s.ok()) return s;
      continue;
    }
    out.placement = gi_info.placement;
    if (!PlausiblePlacement(out.placement)) {
      Status s = Fatal(options, diag,
                       fmt::format("{} ({}) left out: its GPU instance placement {}+{} is outside "
                                   "memory slices 0..{}",
                                   mig_where, out.uuid, out.placement.start, out.placement.size, kMaxMemorySlices - 1));
      if (!s.ok()) return s;
      continue;
    }
    // Match the GPU's profiles: GI profile ID, then the CI profile whose
    // compute-slice count equals the GI's; the last match wins.
    std::optional<size_t> match;
    for (size_t p = 0; p < gpu.profiles.size(); ++p) {
      const MigProfile& profile = gpu.profiles[p];
      if (profile.info.id != gi_info.profileId) continue;
      for (char j : CiProfileIndicesFor(profile.slices)) {
        nvml::ComputeInstanceProfileInfo ci_profile{};
        Return r = nvml.GpuInstanceGetComputeInstanceProfileInfo(
            gi, static_cast<unsigned char>(j), nvml::kComputeInstanceEngineProfileShared, &ci_profile);
        if (r == nvml::kSuccess && ci_profile.id == ci_info.profileId) {
          match = p;
          break;
        }
      }
    }
    if (!match) {
      Status s = Fatal(options, diag,
                       fmt::format("{} ({}) left out: its GPU instance profile {} / compute "
                                   "instance profile {} match no MIG profile of the GPU",
                                   mig_where, out.uuid, gi_info.profileId, ci_info.profileId));
      if (!s.ok()) return s;
      continue;
    }
    out.profile = *match;
    gpu.mig_devices.push_back(std::move(out));
  }
  if (gpu.mig_devices.empty()) {
    diag.Warn(
        fmt::format("{}: MIG mode is enabled but no MIG device exists; nothing published "
                    "for this GPU",
                    where));
  }
  return OkStatus();
}

// An attribute of the GPU at `where` left out (an error with --strict).
Status Omit(const NvidiaOptions& options, Diagnostics& diag, const std::string& where, std::string_view attribute,
            std::string_view why) {
  return Fatal(options, diag, fmt::format("{}: {} left out: {}", where, attribute, why));
}

// The GPU's brand, architecture, CUDA compute capability and memory.
Status GatherProductAttributes(nvml::Api& nvml, nvml::Device device, const std::string& where, GpuInfo& gpu,
                               const NvidiaOptions& options, Diagnostics& diag) {
  Return ret = nvml::kSuccess;
  int brand = 0;
  if ((ret = nvml.DeviceGetBrand(device, &brand)) != nvml::kSuccess) {
    if (Status s = Omit(options, diag, where, "brand", CallError(nvml, "nvmlDeviceGetBrand", ret)); !s.ok()) return s;
  } else if (std::optional<std::string_view> b = BrandName(brand)) {
    gpu.brand = std::string(*b);
  } else if (Status s = Omit(options, diag, where, "brand", fmt::format("unknown brand type {}", brand)); !s.ok()) {
    return s;
  }

  unsigned int arch = 0;
  if ((ret = nvml.DeviceGetArchitecture(device, &arch)) != nvml::kSuccess) {
    if (Status s = Omit(options, diag, where, "architecture", CallError(nvml, "nvmlDeviceGetArchitecture", ret));
        !s.ok()) {
      return s;
    }
  } else if (std::optional<std::string_view> a = ArchitectureName(arch)) {
    gpu.architecture = std::string(*a);
    gpu.architecture_value = arch;
  } else if (Status s = Omit(options, diag, where, "architecture", fmt::format("unknown architecture {}", arch));
             !s.ok()) {
    return s;
  }

  int major = 0;
  int minor = 0;
  if ((ret = nvml.DeviceGetCudaComputeCapability(device, &major, &minor)) != nvml::kSuccess) {
    if (Status s = Omit(options, diag, where, "cudaComputeCapability",
                        CallError(nvml, "nvmlDeviceGetCudaComputeCapability", ret));
        !s.ok()) {
      return s;
    }
  } else {
    StatusOr<std::string> cc = CoerceSemver(fmt::format("{}.{}", major, minor));
    if (cc.ok()) {
      gpu.cuda_compute_capability = *cc;
    } else if (Status s = Omit(options, diag, where, "cudaComputeCapability", cc.status().message()); !s.ok()) {
      return s;
    }
  }

  nvml::Memory memory{};
  ret = nvml.DeviceGetMemoryInfo(device, &memory);
  if (ret == nvml::kSuccess) {
    gpu.memory_bytes = memory.total;
  } else if (ret == nvml::kErrorNotSupported) {
    diag.Warn(fmt::format("{}: memory capacity left out: {}", where, CallError(nvml, "nvmlDeviceGetMemoryInfo", ret)));
  } else if (Status s = Omit(options, diag, where, "memory capacity", CallError(nvml, "nvmlDeviceGetMemoryInfo", ret));
             !s.ok()) {
    return s;
  }
  return OkStatus();
}

// Topology from sysfs: tolerated by the plugin when missing.
void GatherTopology(HostFs& fs, const std::string& where, GpuInfo& gpu, Diagnostics& diag) {
  if (StatusOr<std::string> root = PcieRoot(fs, gpu.bus_id); root.ok()) {
    gpu.pcie_root = *root;
  } else {
    diag.Warn(fmt::format("{}: {}pcieRoot left out: {}", where, kStd, root.status().message()));
  }
  StatusOr<PciFunction> function = ReadPciFunction(fs, gpu.bus_id);
  if (!function.ok()) {
    diag.Warn(fmt::format("{}: {}numaNode left out: {}", where, kStd, function.status().message()));
  } else if (function->vendor != 0x10de || (function->class_code != 0x030000 && function->class_code != 0x030200)) {
    diag.Warn(
        fmt::format("{}: {}numaNode left out: sysfs shows vendor {:#06x} class {:#08x}, "
                    "not an NVIDIA VGA or 3D controller",
                    where, kStd, function->vendor, function->class_code));
  } else if (StatusOr<std::optional<int64_t>> numa = NumaNode(fs, gpu.bus_id); numa.ok()) {
    gpu.numa_node = *numa;  // nullopt for -1: omitted without a word, as the plugin does
  } else {
    diag.Warn(fmt::format("{}: {}numaNode left out: {}", where, kStd, numa.status().message()));
  }
}

Status GatherAddressingMode(nvml::Api& nvml, nvml::Device device, const std::string& where, GpuInfo& gpu,
                            const NvidiaOptions& options, Diagnostics& diag) {
  nvml::DeviceAddressingMode mode{};
  mode.version = nvml::kDeviceAddressingModeV1;
  Return ret = nvml.DeviceGetAddressingMode(device, &mode);
  if (ret == nvml::kSuccess) {
    if (std::optional<std::string_view> m = AddressingModeName(mode.value)) {
      gpu.addressing_mode = std::string(*m);
    } else if (Status s =
                   Omit(options, diag, where, "addressingMode", fmt::format("unknown addressing mode {}", mode.value));
               !s.ok()) {
      return s;
    }
  } else if (!Absent(ret)) {
    if (Status s = Omit(options, diag, where, "addressingMode", CallError(nvml, "nvmlDeviceGetAddressingMode", ret));
        !s.ok()) {
      return s;
    }
  }
  return OkStatus();
}

// MIG: the mode, the profiles, the virtualization mode for DynamicMIG, and
// the static MIG devices when MIG is enabled without it.
Status GatherMig(nvml::Api& nvml, nvml::Device device, const std::string& where, GpuInfo& gpu,
                 const NvidiaOptions& options, Diagnostics& diag) {
  unsigned int current = 0;
  unsigned int pending = 0;
  Return ret = nvml.DeviceGetMigMode(device, &current, &pending);
  if (ret == nvml::kSuccess) {
    gpu.mig_capable = true;
    gpu.mig_enabled = current == nvml::kDeviceMigEnable;
  } else if (!Absent(ret)) {
    Status s =
        Fatal(options, diag,
              fmt::format("{}: treated as not MIG-capable: {}", where, CallError(nvml, "nvmlDeviceGetMigMode", ret)));
    if (!s.ok()) return s;
  }
  if (gpu.mig_capable) {
    if (Status s = GatherMigProfiles(nvml, device, gpu, options, diag); !s.ok()) return s;
    if (options.dynamic_mig) {
      int virt = 0;
      ret = nvml.DeviceGetVirtualizationMode(device, &virt);
      if (ret == nvml::kSuccess) {
        gpu.virtualization_mode = virt;
      } else {
        Status s = Fatal(options, diag,
                         fmt::format("{}: DynamicMIG not offered: {}", where,
                                     CallError(nvml, "nvmlDeviceGetVirtualizationMode", ret)));
        if (!s.ok()) return s;
      }
    }
  }
  bool dynamic = options.dynamic_mig && gpu.mig_capable && gpu.virtualization_mode &&
                 *gpu.virtualization_mode != nvml::kGpuVirtualizationModeVgpu;
  if (gpu.mig_enabled && !dynamic) {
    if (!gpu.mig_data) {
      diag.Warn(
          fmt::format("{}: MIG is enabled but its profiles are unknown, so its MIG devices "
                      "cannot be described; nothing published for this GPU",
                      where));
    } else if (Status s = GatherStaticMig(nvml, device, gpu, options, diag); !s.ok()) {
      return s;
    }
  }
  return OkStatus();
}

// One GPU (README §1.2, §1.3, §1.5). nullopt: the GPU is skipped (already
// reported).
StatusOr<std::optional<GpuInfo>> GatherGpu(nvml::Api& nvml, HostFs& fs, unsigned int index,
                                           const NvidiaOptions& options, Diagnostics& diag) {
  GpuInfo gpu;
  gpu.index = index;
  std::string where = fmt::format("GPU {}", index);
  auto skip = [&](std::string_view function, Return ret) -> StatusOr<std::optional<GpuInfo>> {
    Status s = Fatal(options, diag, fmt::format("{} skipped: {}", where, CallError(nvml, function, ret)));
    if (!s.ok()) return s;
    return std::optional<GpuInfo>();
  };
  nvml::Device device = nullptr;
  Return ret = nvml.DeviceGetHandleByIndex(index, &device);
  if (ret != nvml::kSuccess) return skip("nvmlDeviceGetHandleByIndex_v2", ret);
  char name[nvml::kDeviceNameBufferSize] = {};
  if ((ret = nvml.DeviceGetName(device, name, sizeof name)) != nvml::kSuccess) {
    return skip("nvmlDeviceGetName", ret);
  }
  gpu.product_name = CString(name, sizeof name);
  if (gpu.product_name == "DGX Display" || gpu.product_name == "NVIDIA DGX Display") {
    diag.Note(fmt::format("{} ({}) is a display device; not published", where, gpu.product_name));
    return std::optional<GpuInfo>();
  }
  // PCI first, so that later messages can name the bus ID.
  nvml::PciInfo pci{};
  if ((ret = nvml.DeviceGetPciInfo(device, &pci)) != nvml::kSuccess) {
    return skip("nvmlDeviceGetPciInfo_v3", ret);
  }
  StatusOr<std::string> bus = NormalizeBusId(CString(pci.busId, sizeof pci.busId));
  if (!bus.ok()) {
    Status s = Fatal(options, diag, fmt::format("{} skipped: {}", where, bus.status().message()));
    if (!s.ok()) return s;
    return std::optional<GpuInfo>();
  }
  gpu.bus_id = *bus;
  where = fmt::format("GPU {} ({})", index, gpu.bus_id);

  char uuid[nvml::kDeviceUuidBufferSize] = {};
  if ((ret = nvml.DeviceGetUUID(device, uuid, sizeof uuid)) != nvml::kSuccess) {
    return skip("nvmlDeviceGetUUID", ret);
  }
  gpu.uuid = CString(uuid, sizeof uuid);
  if ((ret = nvml.DeviceGetMinorNumber(device, &gpu.minor)) != nvml::kSuccess) {
    return skip("nvmlDeviceGetMinorNumber", ret);
  }
  if (Status s = GatherProductAttributes(nvml, device, where, gpu, options, diag); !s.ok()) return s;
  GatherTopology(fs, where, gpu, diag);
  if (Status s = GatherAddressingMode(nvml, device, where, gpu, options, diag); !s.ok()) return s;
  if (Status s = GatherMig(nvml, device, where, gpu, options, diag); !s.ok()) return s;
  return std::optional<GpuInfo>(std::move(gpu));
}

// ---------------------------------------------------------------- building

api::DeviceCapacity Capacity(int64_t value) {
  api::DeviceCapacity c;
  c.value = Quantity::FromInt(value, quantity::Format::kBinarySI);
  return c;
}

api::Counter CounterOf(int64_t value) {
  api::Counter c;
  c.value = Quantity::FromInt(value, quantity::Format::kBinarySI);
  return c;
}

void Put(api::AttributeMap& attributes, std::string_view name, api::DeviceAttribute value) {
  attributes.insert_or_assign(InternedString(name), std::move(value));
}

// Attributes a full GPU and its MIG devices share.
void CommonAttributes(const NvidiaHost& host, const GpuInfo& gpu, const NvidiaOptions& options, api::AttributeMap& a) {
  Put(a, "productName", api::DeviceAttribute::String(gpu.product_name));
  if (gpu.brand) Put(a, "brand", api::DeviceAttribute::String(*gpu.brand));
  if (gpu.architecture) Put(a, "architecture", api::DeviceAttribute::String(*gpu.architecture));
  if (gpu.cuda_compute_capability) {
    Put(a, "cudaComputeCapability", api::DeviceAttribute::VersionOf(*gpu.cuda_compute_capability));
  }
  if (host.driver_version) {
    Put(a, "driverVersion", api::DeviceAttribute::VersionOf(*host.driver_version));
  }
  if (host.cuda_driver_version) {
    Put(a, "cudaDriverVersion", api::DeviceAttribute::VersionOf(*host.cuda_driver_version));
  }
  if (gpu.pcie_root) {
    Put(a, fmt::format("{}pcieRoot", kStd), api::DeviceAttribute::String(*gpu.pcie_root));
  }
  if (options.attribute_set == AttributeSet::kV25_3) {
    Put(a, "pcieBusID", api::DeviceAttribute::String(gpu.bus_id));
    return;
  }
  Put(a, fmt::format("{}pciBusID", kStd), api::DeviceAttribute::String(gpu.bus_id));
  if (gpu.numa_node) {
    Put(a, fmt::format("{}numaNode", kStd),
        options.list_attributes ? api::DeviceAttribute::Ints({*gpu.numa_node})
                                : api::DeviceAttribute::Int(*gpu.numa_node));
  }
  if (gpu.addressing_mode) {
    Put(a, "addressingMode", api::DeviceAttribute::String(*gpu.addressing_mode));
  }
}

// The MIG capacities of a profile (camelCase names), memory in bytes.
std::vector<std::pair<std::string_view, int64_t>> MigCapacities(const MigProfile& p) {
  return {
      {"copyEngines", p.info.copyEngineCount},
      {"decoders", p.info.decoderCount},
      {"encoders", p.info.encoderCount},
      {"jpegEngines", p.info.jpegCount},
      {"memory", static_cast<int64_t>(p.info.memorySizeMB * kMiB)},
      {"multiprocessors", p.info.multiprocessorCount},
      {"ofaEngines", p.info.ofaCount},
  };
}

std::string MigDeviceName(const GpuInfo& gpu, const MigProfile& p, unsigned int start) {
  return fmt::format("gpu-{}-mig-{}-{}-{}", gpu.minor, CanonicalMigProfile(p.name), p.info.id, start);
}

std::string CounterSetName(const GpuInfo& gpu) { return fmt::format("gpu-{}-counter-set", gpu.minor); }

// --consumable-shares (README §1.8; the plugin's consumable_shares.go) on a
// device with a memory capacity.
Status ApplyShares(const NvidiaOptions& options, api::Device& device) {
  if (options.consumable_shares.empty()) return OkStatus();
  device.allow_multiple_allocations = true;
  api::DeviceCapacity* memory = device.capacity.find("memory");
  if (memory == nullptr) return OkStatus();
  int64_t bytes = memory->value.Value();
  int64_t max_mib = bytes / static_cast<int64_t>(kMiB);
  Quantity max = Quantity::FromInt(max_mib * static_cast<int64_t>(kMiB), quantity::Format::kBinarySI);
  Quantity step = Quantity::FromInt(static_cast<int64_t>(kMiB), quantity::Format::kBinarySI);
  api::CapacityRequestPolicy policy;
  api::CapacityRequestPolicyRange range;
  range.max = max;
  range.step = step;
  if (options.consumable_shares == "memory") {
    policy.default_ = max;
    range.min = step;
  } else {
    policy.default_ = Quantity::FromInt(0, quantity::Format::kBinarySI);
    range.min = Quantity::FromInt(0, quantity::Format::kBinarySI);
  }
  policy.valid_range = range;
  memory->request_policy = Box<api::CapacityRequestPolicy>(std::move(policy));
  if (options.consumable_shares != "memory" && options.consumable_shares != "unlimited") {
    int64_t n = std::stoll(options.consumable_shares);  // validated by the caller
    api::DeviceCapacity shares = Capacity(n);
    api::CapacityRequestPolicy share_policy;
    share_policy.default_ = Quantity::FromInt(1, quantity::Format::kBinarySI);
    api::CapacityRequestPolicyRange share_range;
    share_range.min = Quantity::FromInt(1, quantity::Format::kBinarySI);
    share_range.max = Quantity::FromInt(n, quantity::Format::kBinarySI);
    share_range.step = Quantity::FromInt(1, quantity::Format::kBinarySI);
    share_policy.valid_range = share_range;
    shares.request_policy = Box<api::CapacityRequestPolicy>(std::move(share_policy));
    device.capacity.insert_or_assign(InternedString("shares"), std::move(shares));
  }
  return OkStatus();
}

void AddTaints(const DeviceTaints& taints, const DeviceKey& key, api::Device& device) {
  auto it = taints.find(key);
  if (it == taints.end() || it->second.empty()) return;
  device.rare.mut().taints = it->second;
}

api::Device FullGpu(const NvidiaHost& host, const GpuInfo& gpu, const NvidiaOptions& options,
                    const DeviceTaints& taints) {
  api::Device d;
  d.name = fmt::format("gpu-{}", gpu.minor);
  CommonAttributes(host, gpu, options, d.attributes);
  Put(d.attributes, "type", api::DeviceAttribute::String("gpu"));
  Put(d.attributes, "uuid", api::DeviceAttribute::String(gpu.uuid));
  if (options.attribute_set == AttributeSet::kV25_3) {
    Put(d.attributes, "index", api::DeviceAttribute::Int(gpu.index));
    Put(d.attributes, "minor", api::DeviceAttribute::Int(gpu.minor));
  }
  if (gpu.memory_bytes) {
    d.capacity.insert_or_assign(InternedString("memory"), Capacity(static_cast<int64_t>(*gpu.memory_bytes)));
  }
  AddTaints(taints, DeviceKey{gpu.uuid, nvml::kNoInstance, nvml::kNoInstance}, d);
  return d;
}

api::Device MigBase(const NvidiaHost& host, const GpuInfo& gpu, const MigProfile& p, unsigned int start,
                    const NvidiaOptions& options) {
  api::Device d;
  d.name = MigDeviceName(gpu, p, start);
  CommonAttributes(host, gpu, options, d.attributes);
  Put(d.attributes, "type", api::DeviceAttribute::String("mig"));
  Put(d.attributes, "parentUUID", api::DeviceAttribute::String(gpu.uuid));
  Put(d.attributes, "profile", api::DeviceAttribute::String(p.name));
  for (const auto& [name, value] : MigCapacities(p)) {
    d.capacity.insert_or_assign(InternedString(name), Capacity(value));
  }
  return d;
}

// The MIG devices that exist (README §1.5.4): uuid and memorySlice<K>
// capacities.
void AppendStaticMig(const NvidiaHost& host, const GpuInfo& gpu, const NvidiaOptions& options,
                     const DeviceTaints& taints, std::vector<api::Device>& out) {
  for (const StaticMigDevice& mig : gpu.mig_devices) {
    const MigProfile& p = gpu.profiles[mig.profile];
    api::Device d = MigBase(host, gpu, p, mig.placement.start, options);
    Put(d.attributes, "uuid", api::DeviceAttribute::String(mig.uuid));
    for (unsigned int k = mig.placement.start; k < mig.placement.start + mig.placement.size; ++k) {
      d.capacity.insert_or_assign(InternedString(fmt::format("memorySlice{}", k)), Capacity(1));
    }
    AddTaints(taints, DeviceKey{gpu.uuid, mig.gi_id, mig.ci_id}, d);
    out.push_back(std::move(d));
  }
}

bool Dynamic(const GpuInfo& gpu, const NvidiaOptions& options) {
  return options.dynamic_mig && gpu.mig_capable && gpu.mig_data && gpu.virtualization_mode &&
         *gpu.virtualization_mode != nvml::kGpuVirtualizationModeVgpu &&
         (gpu.mig_enabled ||
          (gpu.architecture_value && *gpu.architecture_value >= 9 && *gpu.architecture_value != 0xffffffffu));
}

bool SortByName(const api::Device& a, const api::Device& b) { return a.name < b.name; }

}  // namespace

std::string DescribeReturn(nvml::Api& nvml, nvml::Return ret) {
  std::string_view text = nvml.ErrorString(ret);
  std::string_view name = nvml::ReturnName(ret);
  if (text == name) return std::string(name);
  return fmt::format("{} ({})", text, name);
}

StatusOr<NvidiaHost> GatherNvidia(nvml::Api& nvml, HostFs& fs, const NvidiaOptions& options, Diagnostics& diag) {
  NvidiaHost host;
  char version[nvml::kSystemDriverVersionBufferSize] = {};
  Return ret = nvml.SystemGetDriverVersion(version, sizeof version);
  if (ret != nvml::kSuccess) {
    Status s = Fatal(options, diag,
                     fmt::format("driverVersion left out: {}", CallError(nvml, "nvmlSystemGetDriverVersion", ret)));
    if (!s.ok()) return s;
  } else if (StatusOr<std::string> v = CoerceSemver(CString(version, sizeof version)); v.ok()) {
    host.driver_version = *v;
  } else if (Status s = Fatal(options, diag, fmt::format("driverVersion left out: {}", v.status().message()));
             !s.ok()) {
    return s;
  }
  int cuda = 0;
  ret = nvml.SystemGetCudaDriverVersion(&cuda);
  if (ret != nvml::kSuccess) {
    Status s =
        Fatal(options, diag,
              fmt::format("cudaDriverVersion left out: {}", CallError(nvml, "nvmlSystemGetCudaDriverVersion", ret)));
    if (!s.ok()) return s;
  } else if (StatusOr<std::string> v = CoerceSemver(CudaDriverVersionString(cuda)); v.ok()) {
    host.cuda_driver_version = *v;
  } else if (Status s = Fatal(options, diag, fmt::format("cudaDriverVersion left out: {}", v.status().message()));
             !s.ok()) {
    return s;
  }
  unsigned int count = 0;
  ret = nvml.DeviceGetCount(&count);
  if (ret != nvml::kSuccess) {
    return UnavailableError(CallError(nvml, "nvmlDeviceGetCount_v2", ret));
  }
  // NVML's own limit is far below this; a larger answer is not a real count.
  constexpr unsigned int kMaxGpus = 1024;
  if (count > kMaxGpus) {
    return UnavailableError(
        fmt::format("nvmlDeviceGetCount_v2 reports {} GPUs (more than {}): not believed", count, kMaxGpus));
  }
  for (unsigned int index = 0; index < count; ++index) {
    StatusOr<std::optional<GpuInfo>> gpu = GatherGpu(nvml, fs, index, options, diag);
    if (!gpu.ok()) return gpu.status();
    if (gpu->has_value()) host.gpus.push_back(std::move(**gpu));
  }
  std::stable_sort(host.gpus.begin(), host.gpus.end(),
                   [](const GpuInfo& a, const GpuInfo& b) { return a.bus_id < b.bus_id; });
  return host;
}

StatusOr<std::vector<SliceContent>> BuildNvidiaSlices(const NvidiaHost& host, const NvidiaOptions& options,
                                                      const DeviceTaints& taints, Diagnostics& diag) {
  (void)diag;
  if (!options.dynamic_mig) {
    // Default mode: one slice, full GPUs and static MIG devices, by name.
    SliceContent slice;
    for (const GpuInfo& gpu : host.gpus) {
      if (!gpu.mig_enabled) {
        slice.devices.push_back(FullGpu(host, gpu, options, taints));
        continue;
      }
      AppendStaticMig(host, gpu, options, taints, slice.devices);
    }
    for (api::Device& d : slice.devices) {
      if (Status s = ApplyShares(options, d); !s.ok()) return s;
    }
    std::sort(slice.devices.begin(), slice.devices.end(), SortByName);
    return std::vector<SliceContent>{std::move(slice)};
  }

  // DynamicMIG (README §1.6, §1.7): per GPU its devices and, with MIG data, a
  // counter set.
  std::vector<SliceContent> per_gpu;
  for (const GpuInfo& gpu : host.gpus) {
    SliceContent content;
    if (!Dynamic(gpu, options)) {
      if (gpu.mig_enabled) {
        AppendStaticMig(host, gpu, options, taints, content.devices);
      } else {
        content.devices.push_back(FullGpu(host, gpu, options, taints));
      }
    } else {
      // Counter set: per capacity the maximum over every profile x placement,
      // plus memory-slice-0 .. N-1 for the largest placement size N.
      std::map<std::string, int64_t> maxima;
      unsigned int memory_slices = 0;
      for (const MigProfile& p : gpu.profiles) {
        if (p.placements.empty()) continue;
        for (const nvml::GpuInstancePlacement& pl : p.placements) {
          memory_slices = std::max(memory_slices, pl.size);
        }
        for (const auto& [name, value] : MigCapacities(p)) {
          auto [it, inserted] = maxima.emplace(std::string(name), value);
          if (!inserted) it->second = std::max(it->second, value);
        }
      }
      api::CounterSet set;
      set.name = CounterSetName(gpu);
      for (const auto& [name, value] : maxima) {
        set.counters.insert_or_assign(InternedString(CamelToDnsLabel(name)), CounterOf(value));
      }
      for (unsigned int k = 0; k < memory_slices; ++k) {
        set.counters.insert_or_assign(InternedString(fmt::format("memory-slice-{}", k)), CounterOf(1));
      }
      bool hopper = gpu.architecture_value && *gpu.architecture_value >= 9;
      if (hopper) {
        api::Device full = FullGpu(host, gpu, options, taints);
        full.capacity = api::CapacityMap();
        for (const auto& [name, value] : maxima) {
          full.capacity.insert_or_assign(InternedString(name), Capacity(value));
        }
        api::DeviceCounterConsumption all;
        all.counter_set = set.name;
        all.counters = set.counters;
        full.rare.mut().consumes_counters.push_back(std::move(all));
        content.devices.push_back(std::move(full));
      }
      for (const MigProfile& p : gpu.profiles) {
        for (const nvml::GpuInstancePlacement& pl : p.placements) {
          api::Device d = MigBase(host, gpu, p, pl.start, options);
          api::DeviceCounterConsumption use;
          use.counter_set = set.name;
          for (const auto& [name, value] : MigCapacities(p)) {
            use.counters.insert_or_assign(InternedString(CamelToDnsLabel(name)), CounterOf(value));
          }
          for (unsigned int k = pl.start; k < pl.start + pl.size; ++k) {
            use.counters.insert_or_assign(InternedString(fmt::format("memory-slice-{}", k)), CounterOf(1));
          }
          d.rare.mut().consumes_counters.push_back(std::move(use));
          content.devices.push_back(std::move(d));
        }
      }
      content.shared_counters.push_back(std::move(set));
    }
    for (api::Device& d : content.devices) {
      if (Status s = ApplyShares(options, d); !s.ok()) return s;
    }
    std::sort(content.devices.begin(), content.devices.end(), SortByName);
    per_gpu.push_back(std::move(content));
  }
  if (options.layout == SliceLayout::kCombined) return per_gpu;
  std::vector<SliceContent> out;
  SliceContent counters;
  for (SliceContent& c : per_gpu) {
    for (api::CounterSet& set : c.shared_counters) counters.shared_counters.push_back(std::move(set));
    c.shared_counters.clear();
  }
  if (!counters.shared_counters.empty()) out.push_back(std::move(counters));
  for (SliceContent& c : per_gpu) {
    if (!c.devices.empty()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace dra::discover
