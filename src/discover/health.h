// NVML health events -> device taints, as the NVIDIA plugin's health monitor
// (gate NVMLDeviceHealthCheck) writes them (README.md §3): register
// every GPU for XID (and ECC) events, wait, and turn what arrives into
// gpu.nvidia.com/{xid,gpu-lost,unmonitored} taints.
#pragma once

#include <cstdint>
#include <set>
#include <string_view>

#include "base/status.h"
#include "discover/diagnostics.h"
#include "discover/nvidia.h"
#include "discover/nvml/api.h"

namespace dra::discover {

// XIDs that are application errors (effect None): 13, 31, 43, 45, 68, 109.
const std::set<uint64_t>& DefaultIgnoredXids();

// --additional-xids-to-ignore / ADDITIONAL_XIDS_TO_IGNORE: a comma list;
// entries that are not unsigned integers are skipped (as the plugin does),
// each named in a note.
std::set<uint64_t> ParseXidList(std::string_view list, Diagnostics& diag);

struct HealthOptions {
  int64_t wait_ms = 10000;  // --health-wait
  std::set<uint64_t> additional_ignored_xids;
};

// Registers for events on every GPU of `host`, waits `wait_ms` on the Api's
// clock (5 s per call at most) and returns the taints per device key.
// Devices of a GPU whose registration failed get `unmonitored`; a lost GPU
// gives `gpu-lost` on every device. The Api must be initialised.
DeviceTaints WatchHealth(nvml::Api& nvml, const NvidiaHost& host, const HealthOptions& options, Diagnostics& diag);

// --xid-log (an extension, not plugin behaviour, README §3.2): kernel-log lines
// "NVRM: Xid (PCI:0000:18:00): 95, pid=..., ..." as dmesg / journalctl -k
// print them, applied with the same key and effect rules to the full GPU on
// that bus, so a snapshot can carry XIDs from before discover ran. Later
// lines win; lines naming no GPU of `host` are noted and skipped.
DeviceTaints XidLogTaints(std::string_view log, const NvidiaHost& host, const HealthOptions& options,
                          Diagnostics& diag);

// Adds `more` to `taints`; for the same device and key, `more` wins.
void MergeTaints(DeviceTaints& taints, const DeviceTaints& more);

}  // namespace dra::discover
