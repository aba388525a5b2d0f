// Google TPU discovery (README.md §4.2, §3.3): the devices
// kubernetes-sigs/dra-driver-google-tpu publishes as `tpu.google.com`, derived
// from /dev, sysfs and the tpu-env file, all read through HostFs.
//
// Flow: find the chips (accel nodes, else VFIO groups holding a Google TPU
// function) -> name the accelerator (flag, else tpu-env) -> one api::Device per
// chip whose device node is present, in directory-listing order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "base/status.h"
#include "discover/diagnostics.h"
#include "discover/host_fs.h"

namespace dra::discover {

inline constexpr std::string_view kTpuDriverName = "tpu.google.com";

struct TpuOptions {
  // --tpu-accelerator: the accelerator label value ("tpu-v5-lite-podslice").
  // A tpu-env style type ("v5litepod-8") is mapped as README §4.2 maps the
  // file's.
  // When set, the tpu-env file is not read (the first source that names an
  // accelerator wins, as in the plugin's getTPUNodeLabels).
  std::string accelerator;
  // --tpu-env-file.
  std::string env_file = "/etc/tpu/tpu-env";
  // The node name; seeds the (shared) uuid attribute.
  std::string node_name;
};

// The TPU chips on this host as `tpu.google.com` devices (no capacity).
//   ok, empty     -> no TPU: no chips, or chips but no accelerator type (a Note
//                    in `diag` says "N TPU chips of generation G found,
//                    accelerator type unknown"), or every chip's device node is
//                    gone (one Warn per dropped chip).
//   ok, devices   -> one device per chip, named after its /dev entry ("accel0",
//                    or the IOMMU group number "0"), in bytewise name order,
//                    with attributes index, uuid, tpuGen, brand, accelerator,
//                    chipCount and topology (when known).
//   kInvalidArgument -> options.accelerator is not a TPU accelerator type, or
//                    chips were found but options.node_name is empty.
//   other codes   -> /dev could not be listed for a reason other than absence.
// Unreadable tpu-env contents and unknown accelerator generations are warnings.
StatusOr<std::vector<api::Device>> DiscoverTpu(HostFs& fs, const TpuOptions& options, Diagnostics& diag);

// BDFs of the PCI functions that are TPU chips (VFIO groups; for accel nodes
// the function /sys/class/accel/<name>/device points at, when it does), so
// the generic PCI fallback (pci.h) can leave them out. Bytewise sorted.
std::vector<std::string> TpuPciFunctions(HostFs& fs);

// Helpers exposed for tests.
namespace tpu_internal {

// The tpu-env file: lines `KEY: 'value'`, `KEY: "value"`, `KEY: value` or
// `KEY=value`; blank lines and `#` comments are skipped.
struct TpuEnv {
  std::optional<std::string> accelerator_type;       // ACCELERATOR_TYPE, else TYPE
  std::optional<std::string> topology;               // TOPOLOGY
  std::optional<std::string> chips_per_host_bounds;  // CHIPS_PER_HOST_BOUNDS ("2,4,1")
};
TpuEnv ParseTpuEnv(std::string_view text);

// The accelerator label for `value`: a label that names a known generation
// ("tpu-v5-lite-podslice", new-style "tpu7x") is returned as is; a tpu-env
// type is mapped by prefix (v5litepod -> tpu-v5-lite-podslice, v5lite ->
// tpu-v5-lite-device, v5p -> tpu-v5p-slice, v6e -> tpu-v6e-slice, v4 ->
// tpu-v4-podslice, v3 -> tpu-v3-device). nullopt otherwise.
std::optional<std::string> NormalizeAccelerator(std::string_view value);

// tpuGen for an accelerator label (the plugin's AcceleratorGen rules):
// "tpu7x" -> "tpu7x"; tpu-v5-lite-podslice -> v5litepod, tpu-v5-lite-device ->
// v5lite, tpu-v5p-slice -> v5p, tpu-v6e-slice -> v6e, tpu-v4-podslice -> v4,
// tpu-v4-lite-device -> v4lite, tpu-v3-device -> v3. nullopt if invalid.
std::optional<std::string> TpuGeneration(std::string_view accelerator);

// Name-based (version 5, SHA-1) UUID of `name` in namespace `ns`, RFC 4122
// text form ("2ed6657d-e927-568b-95e1-2665a8aea6a2").
std::string UuidV5(const std::array<uint8_t, 16>& ns, std::string_view name);

}  // namespace tpu_internal
}  // namespace dra::discover
