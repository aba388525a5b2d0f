// PCI facts from sysfs (README.md §1.4.3, §1.4.4, §4.1), read through
// HostFs so tests and replays use recorded trees.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "discover/host_fs.h"

namespace dra::discover {

// True if `bdf` has the form dddd:bb:dd.f in lower-case hex (the format
// dynamic-resource-allocation's verifyPCIBDFFormat accepts).
bool IsPciBdf(std::string_view bdf);

// resource.kubernetes.io/pcieRoot for `bdf`: readlink of
// /sys/bus/pci/devices/<bdf> (one level), joined to bus/pci/devices and
// cleaned lexically when relative; it must lie under devices/pci... and end in
// <bdf>; the answer is the first element after devices/ ("pci0000:15").
StatusOr<std::string> PcieRoot(HostFs& fs, std::string_view bdf);

// Pure part of PcieRoot: the root for a link target as readlink gave it.
StatusOr<std::string> PcieRootFromLink(std::string_view link, std::string_view bdf);

// numa_node of `bdf` parsed as go-nvlib does (trimmed, base auto-detected:
// "0x1" is 1). nullopt when the value is negative (-1 = unknown).
// kNotFound if unreadable, kInvalidArgument if not an integer.
StatusOr<std::optional<int64_t>> NumaNode(HostFs& fs, std::string_view bdf);

// A PCI function as sysfs describes it (README §4.1). Missing files leave fields
// empty / zero; `error` says what could not be read.
struct PciFunction {
  std::string bdf;      // "0000:18:00.0"
  uint32_t vendor = 0;  // 0x10de
  uint32_t device = 0;
  uint32_t subsystem_vendor = 0;
  uint32_t subsystem_device = 0;
  uint32_t class_code = 0;                 // 24 bits: 0x030200
  std::string driver;                      // bound kernel driver ("nvidia", "vfio-pci"), "" if none
  std::optional<std::string> iommu_group;  // "12"
  std::optional<std::string> physfn;       // BDF of the PF, for SR-IOV VFs
};

// Every function under /sys/bus/pci/devices, sorted by the numeric value of
// the BDF with ':' and '.' removed (as go-nvlib sorts). kNotFound when the
// directory is absent (not Linux, or no sysfs mounted).
StatusOr<std::vector<PciFunction>> ListPciFunctions(HostFs& fs);

// One function by BDF.
StatusOr<PciFunction> ReadPciFunction(HostFs& fs, std::string_view bdf);

}  // namespace dra::discover
