// Device-plugin resource names and what DRA request each stands for: the
// first step of `dractl migrate` (migrate.h). A container's
// `nvidia.com/gpu: 2` becomes a request for 2 devices of class
// gpu.nvidia.com; `nvidia.com/mig-1g.5gb` one device of mig.nvidia.com whose
// profile is 1g.5gb; a time-sliced name (`nvidia.com/gpu.shared`, or a name
// the device plugin's time-slicing ConfigMap shares) the same GPU request
// with the driver's TimeSlicing sharing config.
//
//   resource name               class            selector                 sharing
//   nvidia.com/gpu              gpu.nvidia.com   -                        -
//   nvidia.com/mig-<P>          mig.nvidia.com   profile == '<P>'         -
//   nvidia.com/mig-<P>.me       mig.nvidia.com   profile == '<P>+me'      -
//   <one of the above>.shared   (as above)       (as above)               TimeSlicing
//   google.com/tpu              tpu.google.com   -                        -
//   amd.com/gpu                 gpu.amd.com      -                        -
//
// Any other name under nvidia.com/, amd.com/ or google.com/ is a device-plugin
// resource dractl cannot translate (an error for the caller); names in other
// domains (cpu, hugepages-2Mi, example.com/foo) are not device-plugin
// resources and are left alone.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "manifest/loader.h"
#include "manifest/node.h"

namespace dra::migrate {

enum class Vendor { kNvidia, kTpu, kAmd };

// The DRA request a device-plugin resource stands for.
struct DeviceKind {
  Vendor vendor = Vendor::kNvidia;
  std::string class_name{};   // "gpu.nvidia.com", "mig.nvidia.com", "tpu.google.com", "gpu.amd.com"
  std::string mig_profile{};  // mig.nvidia.com: "1g.5gb"; empty: any profile
  bool time_sliced = false;
  // The pod claim name for it when one container of the pod asks for it:
  // "gpu", "gpu-shared", "mig-1g-5gb", "tpu", "amd-gpu" (a DNS label).
  std::string short_name{};
  // The name of the DeviceClass `--mode extended-resource` maps the
  // resource to ("gpu.nvidia.com", "mig-1g.5gb.nvidia.com", ...).
  std::string extended_class_name{};

  friend bool operator==(const DeviceKind&, const DeviceKind&) = default;
};

// What the device plugin's time-slicing ConfigMap says (the `data` values
// of a v1 ConfigMap holding `version: v1` device-plugin configs):
// the resource names it shares, each mapped to the resource it replicates.
// Without a ConfigMap, `<name>.shared` names are read as renameByDefault
// makes them.
struct SharingConfig {
  std::map<std::string, std::string, std::less<>> shared{};  // "nvidia.com/gpu.shared" -> "nvidia.com/gpu"
};

enum class ResourceClass {
  kOther,          // not a device-plugin resource: leave it
  kDevice,         // translated into `kind`
  kUnknownDevice,  // in a device-plugin domain, but no name dractl knows
};

// Classifies resource `name` (a key of a container's resources.limits).
ResourceClass ClassifyResource(std::string_view name, const SharingConfig& sharing, DeviceKind* kind);

// True if `root` is a v1 ConfigMap holding NVIDIA device-plugin configs
// (a data value with a `sharing:` or `flags:` key and `version: v1`).
bool IsDevicePluginConfigMap(const manifest::Node& root);

// Adds what the device-plugin ConfigMap `root` shares to `sharing`:
// sharing.timeSlicing.resources[] of each config, named `rename`, else
// `<name>.shared` under renameByDefault, else `<name>` itself. Problems (a
// config that does not parse, MPS sharing dractl does not translate, a name
// shared by some configs only) join `messages` at the ConfigMap's line;
// `object` is its display name.
void ReadSharingConfigMap(const manifest::Node& root, const std::string& file, std::string_view object,
                          SharingConfig* sharing, std::vector<manifest::LoadMessage>* messages);

}  // namespace dra::migrate
