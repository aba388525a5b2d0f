// Generic PCI fallback (README.md §4.3, a dractl design): accelerator,
// display and network functions that no driver module claims, published as
// `pci.dractl.io` devices so a cluster snapshot still shows them. Read through
// HostFs (sysfs.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "discover/diagnostics.h"
#include "discover/host_fs.h"

namespace dra::discover {

// A dractl-owned domain, so nobody mistakes it for an official driver.
inline constexpr std::string_view kPciDriverName = "pci.dractl.io";

struct PciOptions {
  // --pci-include-vfs: also publish SR-IOV virtual functions.
  bool include_vfs = false;
};

// One device per PCI function under /sys/bus/pci/devices that
//   - has class base 0x03 (display), 0x12 (processing accelerator) or 0x02
//     (network), or class 0x0b40 (co-processor);
//   - is not a bridge (0x0604xx, 0x0680xx);
//   - is not an SR-IOV VF (has `physfn`), unless options.include_vfs;
//   - is not listed in `claimed_bdfs` (functions another driver module
//     publishes: NVML GPUs, TPU chips);
// in the numeric BDF order of ListPciFunctions. Name: the BDF with ':' and '.'
// replaced by '-' ("0000-17-00-2"). Attributes: vendorID, deviceID,
// subsystemVendorID, subsystemDeviceID ("0x%04x"), classCode ("0x%06x"),
// kernelDriver (if bound), sriovVF (bool), physfn (VFs only), and
// resource.kubernetes.io/{pciBusID, pcieRoot, numaNode} (numaNode omitted when
// the kernel does not know it: -1 or no numa_node file; pcieRoot, and a
// numaNode that is not an integer, omitted with a warning). No capacity.
// The caller wraps the devices into slices (driver kPciDriverName).
// A function whose name is not a dddd:bb:dd.f BDF is skipped with a warning;
// a missing /sys/bus/pci/devices gives no devices and a note.
std::vector<api::Device> DiscoverPci(HostFs& fs, const PciOptions& options,
                                     const std::vector<std::string>& claimed_bdfs, Diagnostics& diag);

}  // namespace dra::discover
