// dractl discover: the ResourceSlices the official DRA drivers would publish
// on this node, read from NVML (dlopen), sysfs and /dev, or replayed from a
// recording (discover/discover.h; the contract is src/discover/README.md).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "discover/device_classes.h"
#include "discover/discover.h"
#include "manifest/emit.h"
#include "manifest/encode.h"

namespace dra::cli {
namespace {

// Exit code when something was skipped or left out (listed on stderr).
constexpr int kExitPartial = 5;

// A Go duration ("10s", "1m30s", "500ms", "0") in milliseconds; nullopt if malformed.
std::optional<int64_t> ParseDurationMs(std::string_view text) {
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    std::string_view number = text.substr(start, i - start);
    if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return std::nullopt;
    double value = std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr);
    size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    double scale;
    if (unit == "ns") {
      scale = 1e-6;
    } else if (unit == "us" || unit == "µs") {
      scale = 1e-3;
    } else if (unit == "ms") {
      scale = 1;
    } else if (unit == "s") {
      scale = 1e3;
    } else if (unit == "m") {
      scale = 60e3;
    } else if (unit == "h") {
      scale = 3600e3;
    } else {
      return std::nullopt;
    }
    total += value * scale;
  }
  if (total > 86400e3) return std::nullopt;  // more than a day: surely a typo
  return static_cast<int64_t>(total);
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The flags that are not fields of DiscoverOptions as they are given.
struct DiscoverFlags {
  std::string drivers = "nvidia,tpu";
  std::string slice_layout = "split";
  std::string attribute_set = "current";
  std::string health = "none";
  std::string health_wait = "10s";
  std::string xids;
  std::string format = "yaml";
  std::string out_file;
  bool device_classes = false;
};

// Declares the flags of dractl discover.
void AddDiscoverFlags(CLI::App& app, dra::discover::DiscoverOptions& options, DiscoverFlags& flags) {
  app.add_option("--node-name", options.node_name,
                 "node name (pool and spec.nodeName); default: the recording's, $NODE_NAME, or "
                 "the hostname");
  app.add_option("--drivers", flags.drivers, "driver modules to run, comma-separated: nvidia, tpu, pci")
      ->capture_default_str();
  app.add_option("--nvml-lib", options.nvml_lib, "path of libnvidia-ml.so.1 (default: searched)");
  app.add_option("--driver-root", options.driver_root,
                 "root of the driver installation searched for libnvidia-ml.so.1 "
                 "(/run/nvidia/driver with a containerised driver)")
      ->capture_default_str();
  app.add_option("--sysfs-root", options.sysfs_root, "where /sys is read")->capture_default_str();
  app.add_option("--dev-root", options.dev_root, "where /dev is read")->capture_default_str();
  app.add_flag("--dynamic-mig", options.nvidia.dynamic_mig,
               "publish MIG partitions as partitionable devices (plugin gate DynamicMIG)");
  app.add_option("--slice-layout", flags.slice_layout,
                 "with --dynamic-mig: split (Kubernetes >= 1.35: a counters slice, then one slice "
                 "per GPU) or combined (1.34: counters and devices per GPU)")
      ->check(CLI::IsMember({"split", "combined"}))
      ->capture_default_str();
  app.add_option("--attribute-set", flags.attribute_set,
                 "current, or v25.3 (the older plugin's index, minor, pcieBusID)")
      ->check(CLI::IsMember({"current", "v25.3"}))
      ->capture_default_str();
  app.add_flag("--list-attributes", options.nvidia.list_attributes,
               "publish numaNode as a one-element list (gate DRAListTypeAttributes)");
  app.add_option("--consumable-shares", options.nvidia.consumable_shares,
                 "unlimited, memory, or a share count N: devices allow multiple allocations "
                 "with a memory request policy (gate DRAConsumableCapacity)");
  app.add_option("--health", flags.health, "none, or events: wait for NVML XID events and taint devices")
      ->check(CLI::IsMember({"none", "events"}))
      ->capture_default_str();
  app.add_option("--health-wait", flags.health_wait, "how long --health events waits (Go duration)")
      ->capture_default_str();
  app.add_option("--additional-xids-to-ignore", flags.xids,
                 "comma list of XIDs tainted with effect None besides 13,31,43,45,68,109 "
                 "(default: $ADDITIONAL_XIDS_TO_IGNORE)");
  app.add_option("--xid-log", options.xid_log_file,
                 "extension: also taint GPUs named by kernel-log lines \"NVRM: Xid (PCI:...): N\" "
                 "in FILE (dmesg or journalctl -k output), with the same rules");
  app.add_flag("--strict", options.nvidia.strict,
               "fail (exit 1) where the plugin would refuse to start, instead of skipping");
  app.add_option("--record", options.record_file,
                 "also write every NVML answer and file read to FILE (dractl.nvml-recording)");
  app.add_option("--replay", options.replay_file, "answer from a recording instead of the host");
  app.add_flag("--anonymize", options.anonymize, "with --record: replace UUIDs and the node name by stable hashes");
  app.add_option("--tpu-accelerator", options.tpu_accelerator,
                 "TPU accelerator type (e.g. tpu-v5-lite-podslice); default: from --tpu-env-file");
  app.add_option("--tpu-env-file", options.tpu_env_file, "the GKE tpu-env file")->capture_default_str();
  app.add_flag("--pci-include-vfs", options.pci_include_vfs, "pci module: publish SR-IOV virtual functions too");
  app.add_flag("--generate-name", options.pool.generate_name,
               "write metadata.generateName (as the driver sends it) instead of a name with a "
               "deterministic suffix");
  app.add_flag("--device-classes", flags.device_classes,
               "also print the DeviceClasses the drivers' charts install (gpu.nvidia.com, "
               "mig.nvidia.com, vfio.gpu.nvidia.com, tpu.google.com, pci.dractl.io)");
  app.add_option("-o,--output", flags.format, "yaml or json (a v1 List)")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  app.add_option("--out", flags.out_file, "write the objects to FILE instead of stdout");
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "dractl discover: %s\nRun 'dractl discover --help' for usage.\n", message.c_str());
  return kExitUsageError;
}

// Checks the flags and sets `options` from them. Returns the usage error's
// exit code, or -1 to go on.
int ApplyDiscoverFlags(DiscoverFlags& flags, dra::discover::DiscoverOptions& options) {
  options.drivers.clear();
  for (const std::string& d : SplitComma(flags.drivers)) {
    if (d != "nvidia" && d != "tpu" && d != "pci") {
      return Usage("--drivers: unknown module \"" + d + "\" (nvidia, tpu, pci)");
    }
    options.drivers.insert(d);
  }
  if (options.drivers.empty()) return Usage("--drivers: no module named");
  options.nvidia.layout =
      flags.slice_layout == "combined" ? dra::discover::SliceLayout::kCombined : dra::discover::SliceLayout::kSplit;
  options.nvidia.attribute_set =
      flags.attribute_set == "v25.3" ? dra::discover::AttributeSet::kV25_3 : dra::discover::AttributeSet::kCurrent;
  const std::string& shares = options.nvidia.consumable_shares;
  if (!shares.empty() && shares != "unlimited" && shares != "memory") {
    bool digits = shares.size() <= 9;
    for (char c : shares) digits = digits && c >= '0' && c <= '9';
    if (!digits || std::stoll(shares) < 1) {
      return Usage("--consumable-shares: \"" + shares + "\" is not unlimited, memory or a positive integer");
    }
  }
  options.health = flags.health == "events";
  std::optional<int64_t> wait = ParseDurationMs(flags.health_wait);
  if (!wait) return Usage("--health-wait: \"" + flags.health_wait + "\" is not a duration (e.g. 10s, 500ms)");
  options.health_options.wait_ms = *wait;
  if (options.anonymize && options.record_file.empty()) return Usage("--anonymize needs --record");
  if (!options.record_file.empty() && !options.replay_file.empty()) {
    return Usage("--record and --replay cannot be combined");
  }

  dra::discover::Diagnostics flag_notes;
  if (flags.xids.empty()) {
    if (const char* env = std::getenv("ADDITIONAL_XIDS_TO_IGNORE")) flags.xids = env;
  }
  options.health_options.additional_ignored_xids = dra::discover::ParseXidList(flags.xids, flag_notes);
  for (const std::string& m : flag_notes.messages()) std::fprintf(stderr, "%s\n", m.c_str());
  return -1;
}

// The objects to print (the DeviceClasses first with --device-classes), as
// YAML documents or a JSON v1 List.
std::string RenderObjects(const dra::discover::DiscoverResult& result, bool device_classes, const std::string& format) {
  std::vector<manifest::Node> roots;
  if (device_classes) {
    for (api::DeviceClass& c : dra::discover::DriverDeviceClasses(result.slices)) {
      roots.push_back(manifest::EncodeObject(api::Object(std::move(c))));
    }
  }
  for (const api::ResourceSlice& slice : result.slices) {
    roots.push_back(manifest::EncodeObject(api::Object(slice)));
  }
  std::string text;
  if (format == "json") {
    manifest::Node list = manifest::Node::Mapping();
    list.Add("apiVersion", manifest::Node::String("v1"));
    manifest::Node items = manifest::Node::Sequence();
    for (auto& r : roots) items.Push(std::move(r));
    list.Add("items", std::move(items));
    list.Add("kind", manifest::Node::String("List"));
    // As kubectl prints a list of objects (`kubectl get -o json`).
    manifest::Node meta = manifest::Node::Mapping();
    meta.Add("resourceVersion", manifest::Node::String(""));
    list.Add("metadata", std::move(meta));
    text = manifest::EmitJson(list, 4, {.sort_keys = true});
  } else {
    text = manifest::EmitYamlDocuments(roots, {.sort_keys = true});
  }
  return text;
}

// Writes `text` to --out (stdout for "" or "-"). Returns the exit code of a
// failure, or -1.
int WriteObjects(const std::string& out_file, const std::string& text) {
  std::FILE* f = out_file.empty() || out_file == "-" ? stdout : std::fopen(out_file.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "dractl discover: cannot write %s\n", out_file.c_str());
    return kExitInputError;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (f == stdout ? std::fflush(f) == 0 : std::fclose(f) == 0) && ok;
  if (!ok) {
    std::fprintf(stderr, "dractl discover: writing %s failed\n", out_file.empty() ? "stdout" : out_file.c_str());
    return kExitInputError;
  }
  return -1;
}

}  // namespace

int RunDiscover(std::span<const std::string_view> args) {
  CLI::App app{
      "Prints the ResourceSlices the official DRA drivers would publish on this node\n"
      "(gpu.nvidia.com from NVML, tpu.google.com from /dev and sysfs, optionally a generic\n"
      "pci.dractl.io pool), as resource.k8s.io/v1 objects that `dractl validate`, `schedule`\n"
      "and `explain` read. NVML (libnvidia-ml.so.1) is loaded at run time; no GPU is needed\n"
      "with --replay. Diagnostics (what was skipped and why) go to stderr.\n\n"
      "Exit codes: 0 everything discovered; 5 partial (a device or attribute was skipped,\n"
      "listed on stderr); 1 nothing usable (neither NVML nor sysfs answered), an unreadable\n"
      "recording, a --strict violation or slices the API server would reject; 2 usage error.",
      "dractl discover"};
  dra::discover::DiscoverOptions options;
  DiscoverFlags flags;
  AddDiscoverFlags(app, options, flags);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  if (int rc = ApplyDiscoverFlags(flags, options); rc >= 0) return rc;

  StatusOr<dra::discover::DiscoverResult> result = dra::discover::Discover(options);
  if (!result.ok()) {
    std::fprintf(stderr, "dractl discover: %s\n", result.status().message().c_str());
    return kExitInputError;
  }
  for (const std::string& m : result->diagnostics.messages()) {
    std::fprintf(stderr, "%s\n", m.c_str());
  }
  for (const std::string& call : result->unrecorded) {
    std::fprintf(stderr, "warning: the recording has no answer for %s (answered NOT_SUPPORTED)\n", call.c_str());
  }

  const std::string text = RenderObjects(*result, flags.device_classes, flags.format);
  if (int rc = WriteObjects(flags.out_file, text); rc >= 0) return rc;
  if (result->nothing_usable) {
    std::fprintf(stderr, "dractl discover: nothing usable: neither NVML nor sysfs answered\n");
    return kExitInputError;
  }
  if (result->diagnostics.partial() || !result->unrecorded.empty()) return kExitPartial;
  return kExitOk;
}

}  // namespace dra::cli
