// dractl discover: the ResourceSlices the official DRA drivers would publish
// on this node. Front door of src/discover; see README.md for the flow and
// for the contract (which NVML call or host file backs each published value):
//   backends (real NVML via dlopen + the host's files, or a recording; either
//   optionally recorded) -> per driver: gather -> (health) -> build devices
//   -> pools of slices -> API limits checked.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/resource.h"
#include "base/status.h"
#include "discover/diagnostics.h"
#include "discover/health.h"
#include "discover/nvidia.h"
#include "discover/slices.h"

namespace dra::discover {

struct DiscoverOptions {
  std::string node_name;  // "" = recording's meta.nodeName, $NODE_NAME, else the hostname
  // Driver modules to run: "nvidia", "tpu", "pci".
  std::set<std::string> drivers = {"nvidia", "tpu"};
  NvidiaOptions nvidia;
  bool health = false;  // --health events
  HealthOptions health_options;
  std::string xid_log_file;  // --xid-log (extension)
  // Real host (ignored with replay_file).
  std::string nvml_lib;             // --nvml-lib
  std::string driver_root = "/";    // --driver-root
  std::string sysfs_root = "/sys";  // --sysfs-root
  std::string dev_root = "/dev";    // --dev-root
  std::string replay_file;          // --replay
  std::string record_file;          // --record
  bool anonymize = false;           // --anonymize (recording only)
  std::string tpu_accelerator;      // --tpu-accelerator
  std::string tpu_env_file = "/etc/tpu/tpu-env";
  bool pci_include_vfs = false;  // --pci-include-vfs
  PoolOptions pool;
};

struct DiscoverResult {
  std::vector<api::ResourceSlice> slices;
  Diagnostics diagnostics;
  // Nothing could be read: neither NVML nor sysfs answered (exit 1).
  bool nothing_usable = false;
  // Replay only: calls the recording had no answer for.
  std::vector<std::string> unrecorded;
};

// Not OK for bad options, an unreadable or malformed recording, a --strict
// violation, slices the API server would reject, or a recording that cannot
// be written.
StatusOr<DiscoverResult> Discover(const DiscoverOptions& options);

}  // namespace dra::discover
