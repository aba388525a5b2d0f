// gpu.nvidia.com: what the NVIDIA DRA kubelet plugin would publish on this
// node (README.md §1). Two steps:
//   GatherNvidia  NVML + sysfs -> NvidiaHost, a plain description of every
//                 GPU, its MIG profiles and static MIG devices (every NVML
//                 call happens here, in the order the plugin makes them);
//   BuildNvidiaSlices  NvidiaHost (+ health taints) -> the pool's slices.
// Whatever the plugin treats as fatal is, here, a warning that omits the
// attribute or skips the GPU (Diagnostics::Warn -> exit 5), unless
// options.strict, which turns it into an error as the plugin would refuse to
// start.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/resource.h"
#include "base/status.h"
#include "discover/diagnostics.h"
#include "discover/host_fs.h"
#include "discover/nvml/api.h"
#include "discover/slices.h"

namespace dra::discover {

inline constexpr std::string_view kNvidiaDriver = "gpu.nvidia.com";

enum class AttributeSet { kCurrent, kV25_3 };

struct NvidiaOptions {
  bool dynamic_mig = false;                             // --dynamic-mig (plugin gate DynamicMIG)
  SliceLayout layout = SliceLayout::kSplit;             // --slice-layout, DynamicMIG only
  AttributeSet attribute_set = AttributeSet::kCurrent;  // --attribute-set
  bool list_attributes = false;                         // --list-attributes (DRAListTypeAttributes)
  // --consumable-shares: "" (off), "unlimited", "memory" or a positive integer.
  std::string consumable_shares;
  bool strict = false;  // --strict
};

struct MigProfile {
  unsigned int gi_index = 0;            // GI profile index (0 .. 0x11)
  nvml::GpuInstanceProfileInfo info{};  // info.id is the GI profile ID
  int slices = 0;                       // G
  std::string name;                     // "1g.18gb+me"
  std::vector<nvml::GpuInstancePlacement> placements;
};

struct StaticMigDevice {
  std::string uuid;  // "MIG-..."
  unsigned int gi_id = 0;
  unsigned int ci_id = 0;
  size_t profile = 0;  // index into GpuInfo::profiles
  nvml::GpuInstancePlacement placement{};
};

struct GpuInfo {
  unsigned int index = 0;  // NVML index
  unsigned int minor = 0;  // /dev/nvidia<minor>
  std::string uuid;
  std::string product_name;
  std::string bus_id;  // normalised "0000:18:00.0"
  std::optional<std::string> brand;
  std::optional<std::string> architecture;
  std::optional<unsigned int> architecture_value;
  std::optional<std::string> cuda_compute_capability;  // coerced "9.0.0"
  std::optional<std::string> pcie_root;
  std::optional<int64_t> numa_node;
  std::optional<std::string> addressing_mode;
  std::optional<uint64_t> memory_bytes;
  bool mig_capable = false;
  bool mig_enabled = false;
  bool mig_data = false;                   // profiles + placements are usable
  std::optional<int> virtualization_mode;  // asked in DynamicMIG mode only
  std::vector<MigProfile> profiles;
  std::vector<StaticMigDevice> mig_devices;
};

struct NvidiaHost {
  std::optional<std::string> driver_version;       // coerced
  std::optional<std::string> cuda_driver_version;  // coerced
  std::vector<GpuInfo> gpus;                       // sorted by bus ID
};

// "Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)": nvmlErrorString's text
// and the code's name (once, when they are the same).
std::string DescribeReturn(nvml::Api& nvml, nvml::Return ret);

// Walks NVML (already initialised by the caller) and sysfs. Not OK only when
// nothing can be described (the device count fails) or, with
// options.strict, on the first condition the plugin treats as fatal.
StatusOr<NvidiaHost> GatherNvidia(nvml::Api& nvml, HostFs& fs, const NvidiaOptions& options, Diagnostics& diag);

// Taints per published device, keyed as the plugin's health monitor keys
// them: (GPU UUID, GI id, CI id), with nvml::kNoInstance for a full GPU.
using DeviceKey = std::tuple<std::string, unsigned int, unsigned int>;
using DeviceTaints = std::map<DeviceKey, std::vector<api::DeviceTaint>>;

// The pool's slices' contents in publishing order (README §1.7). Devices that the
// health monitor tainted carry `taints`.
StatusOr<std::vector<SliceContent>> BuildNvidiaSlices(const NvidiaHost& host, const NvidiaOptions& options,
                                                      const DeviceTaints& taints, Diagnostics& diag);

}  // namespace dra::discover
