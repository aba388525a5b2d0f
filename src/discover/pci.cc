// Generic PCI fallback: every function of an interesting class that no
// driver module claimed, in the shape README.md §4.3 fixes. Names follow the
// SR-IOV driver's convention (BDF with ':' and '.' -> '-'); IDs are formatted
// as the NVIDIA plugin's VFIO devices format theirs ("0x%04x"), so selectors
// written for one read naturally on the other.
#include "discover/pci.h"

#include <algorithm>

#include <fmt/format.h>

#include "discover/sysfs.h"

namespace dra::discover {
namespace {

// README §4.3 classes: base 0x03 display, 0x12 processing accelerator, 0x02
// network; and 0x0b40 co-processor. Bridges (0x0604xx PCI bridge, 0x0680xx
// "other bridge", which NVSwitches report) never qualify; the check is kept
// explicit so widening the base classes cannot let them in.
bool IsCandidateClass(uint32_t class_code) {
  const uint32_t base = class_code >> 16;
  const uint32_t base_sub = class_code >> 8;
  if (base_sub == 0x0604 || base_sub == 0x0680) return false;
  return base == 0x03 || base == 0x12 || base == 0x02 || base_sub == 0x0b40;
}

std::string DeviceName(std::string_view bdf) {
  std::string name(bdf);
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == ':' || c == '.'; }, '-');
  return name;
}

}  // namespace

std::vector<api::Device> DiscoverPci(HostFs& fs, const PciOptions& options,
                                     const std::vector<std::string>& claimed_bdfs, Diagnostics& diag) {
  std::vector<api::Device> devices;
  StatusOr<std::vector<PciFunction>> functions = ListPciFunctions(fs);
  if (!functions.ok()) {
    if (functions.status().code() == StatusCode::kNotFound) {
      diag.Note("pci: /sys/bus/pci/devices is absent; no PCI functions");
    } else {
      diag.Warn(fmt::format("pci: {}", functions.status().message()));
    }
    return devices;
  }
  for (const PciFunction& f : *functions) {
    if (!IsCandidateClass(f.class_code)) continue;
    if (std::find(claimed_bdfs.begin(), claimed_bdfs.end(), f.bdf) != claimed_bdfs.end()) continue;
    const bool is_vf = f.physfn.has_value();
    if (is_vf && !options.include_vfs) continue;
    if (!IsPciBdf(f.bdf)) {
      // Device names and pciBusID need the dddd:bb:dd.f form (some hypervisors
      // use wider domains).
      diag.Warn(fmt::format("pci: {}: not a dddd:bb:dd.f PCI address; not published", f.bdf));
      continue;
    }

    api::Device device;
    device.name = DeviceName(f.bdf);
    auto& attrs = device.attributes;
    attrs.insert_or_assign("vendorID", api::DeviceAttribute::String(fmt::format("0x{:04x}", f.vendor)));
    attrs.insert_or_assign("deviceID", api::DeviceAttribute::String(fmt::format("0x{:04x}", f.device)));
    attrs.insert_or_assign("subsystemVendorID",
                           api::DeviceAttribute::String(fmt::format("0x{:04x}", f.subsystem_vendor)));
    attrs.insert_or_assign("subsystemDeviceID",
                           api::DeviceAttribute::String(fmt::format("0x{:04x}", f.subsystem_device)));
    attrs.insert_or_assign("classCode", api::DeviceAttribute::String(fmt::format("0x{:06x}", f.class_code)));
    if (!f.driver.empty()) {
      attrs.insert_or_assign("kernelDriver", api::DeviceAttribute::String(f.driver));
    }
    attrs.insert_or_assign("sriovVF", api::DeviceAttribute::Bool(is_vf));
    if (is_vf) attrs.insert_or_assign("physfn", api::DeviceAttribute::String(*f.physfn));
    attrs.insert_or_assign("resource.kubernetes.io/pciBusID", api::DeviceAttribute::String(f.bdf));
    if (StatusOr<std::string> root = PcieRoot(fs, f.bdf); root.ok()) {
      attrs.insert_or_assign("resource.kubernetes.io/pcieRoot", api::DeviceAttribute::String(*root));
    } else {
      diag.Warn(fmt::format("pci: {}: pcieRoot omitted: {}", f.bdf, root.status().message()));
    }
    // A kernel built without NUMA support has no numa_node file: nothing is
    // known, as with -1, so that is not worth a warning.
    if (StatusOr<std::optional<int64_t>> numa = NumaNode(fs, f.bdf); !numa.ok()) {
      if (numa.status().code() != StatusCode::kNotFound) {
        diag.Warn(fmt::format("pci: {}: numaNode omitted: {}", f.bdf, numa.status().message()));
      }
    } else if (numa->has_value()) {
      attrs.insert_or_assign("resource.kubernetes.io/numaNode", api::DeviceAttribute::Int(**numa));
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace dra::discover
