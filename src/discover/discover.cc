#include "discover/discover.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "base/version.h"
#include "discover/host_fs.h"
#include "discover/nvml/dlopen_api.h"
#include "discover/nvml/recording.h"
#include "discover/nvml/recording_api.h"
#include "discover/nvml/replay_api.h"
#include "discover/pci.h"
#include "discover/recorded_fs.h"
#include "discover/sysfs.h"
#include "discover/tpu.h"

namespace dra::discover {
namespace {

using manifest::Node;

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("{}: {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return DataLossError(fmt::format("{}: read error", path));
  return ss.str();
}

Status WriteWholeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return PermissionDeniedError(fmt::format("{}: {}", path, std::strerror(errno)));
  out << text;
  out.close();
  if (!out) return DataLossError(fmt::format("{}: write error", path));
  return OkStatus();
}

std::string HostName() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "";
  return buffer;
}

std::string NowRfc3339() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// A stable stand-in for an identifier (FNV-1a 64, twice, as hex).
std::string StableHash(std::string_view text) {
  uint64_t a = 1469598103934665603ULL;
  uint64_t b = 0x9e3779b97f4a7c15ULL;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    a = (a ^ c) * 1099511628211ULL;
    b = (b ^ c) * 0x100000001b3ULL + 0x7f4a7c15ULL;
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

// "GPU-ba5e6264-..." -> "GPU-<uuid-shaped hash>", keeping the prefix.
std::string AnonymizeUuid(std::string_view uuid) {
  size_t dash = uuid.find('-');
  std::string prefix =
      dash != std::string_view::npos && dash <= 4 ? std::string(uuid.substr(0, dash + 1)) : std::string();
  std::string h = StableHash(uuid);
  return fmt::format("{}{}-{}-{}-{}-{}", prefix, h.substr(0, 8), h.substr(8, 4), h.substr(12, 4), h.substr(16, 4),
                     h.substr(20, 12));
}

void AnonymizeTree(Node& node, std::string_view node_name, const std::string& new_name) {
  if (node.is_mapping()) {
    for (size_t i = 0; i < node.items.size(); ++i) {
      Node& value = node.items[i];
      if (node.keys[i].first == "uuid" && value.kind == manifest::NodeKind::kString) {
        value.text = AnonymizeUuid(value.text);
      } else {
        AnonymizeTree(value, node_name, new_name);
      }
    }
  } else if (node.is_sequence()) {
    for (Node& item : node.items) AnonymizeTree(item, node_name, new_name);
  } else if (node.kind == manifest::NodeKind::kString && !node_name.empty()) {
    size_t pos;
    while ((pos = node.text.find(node_name)) != std::string::npos) {
      node.text.replace(pos, node_name.size(), new_name);
    }
  }
}

Node NewRecordingRoot(const std::string& node_name, const std::string& library) {
  Node meta = Node::Mapping();
  meta.Add("dractlVersion", Node::String(DRACTL_VERSION));
  meta.Add("recordedAt", Node::String(NowRfc3339()));
  meta.Add("nodeName", Node::String(node_name));
  meta.Add("euid", Node::Int(static_cast<int64_t>(geteuid())));
  meta.Add("anonymized", Node::Bool(false));
  meta.Add("library", Node::String(library));
  Node root = Node::Mapping();
  root.Add("format", Node::String("dractl.nvml-recording"));
  root.Add("version", Node::Int(1));
  root.Add("meta", std::move(meta));
  return root;
}

// The NVIDIA functions sysfs shows, for "present but not discoverable".
std::vector<std::string> NvidiaGpusInSysfs(HostFs& fs) {
  std::vector<std::string> out;
  StatusOr<std::vector<PciFunction>> functions = ListPciFunctions(fs);
  if (!functions.ok()) return out;
  for (const PciFunction& f : *functions) {
    if (f.vendor == 0x10de && (f.class_code >> 8 == 0x0300 || f.class_code >> 8 == 0x0302)) {
      out.push_back(f.bdf);
    }
  }
  return out;
}

std::string InitAdvice(nvml::Return ret) {
  switch (ret) {
    case nvml::kErrorNoPermission: return " (run as root or with access to /dev/nvidia*)";
    case nvml::kErrorDriverNotLoaded: return " (the NVIDIA kernel driver is not loaded)";
    case nvml::kErrorLibRmVersionMismatch: return " (libnvidia-ml and the kernel module are different versions)";
    default: return "";
  }
}

// Where NVML answers and files are read from: a recording (--replay), or the
// host with NVML loaded when the nvidia module runs.
struct Backends {
  std::optional<nvml::Recording> replay;
  std::unique_ptr<nvml::ReplayApi> replay_api;  // reads *replay: Backends stays where it is made
  std::unique_ptr<nvml::Api> real_api;
  std::string nvml_load_error;
  std::string library;
  std::vector<std::string> missing_symbols;  // what the loaded library lacks
  std::unique_ptr<HostFs> fs;
};

Status OpenBackends(const DiscoverOptions& options, Backends& b) {
  if (!options.replay_file.empty()) {
    StatusOr<std::string> text = ReadWholeFile(options.replay_file);
    if (!text.ok()) return text.status().WithContext("--replay");
    StatusOr<nvml::Recording> rec = nvml::ReadRecording(*text, options.replay_file);
    if (!rec.ok()) return rec.status();
    b.replay = *std::move(rec);
    b.replay_api = std::make_unique<nvml::ReplayApi>(*b.replay);
    b.fs = NewRecordedFs(*b.replay);
  } else {
    b.fs = NewDirFs(DirFsRoots{options.sysfs_root, options.dev_root, options.driver_root});
    if (options.drivers.count("nvidia")) {
      nvml::DlopenOptions dl;
      dl.library_path = options.nvml_lib;
      dl.driver_root = options.driver_root;
      StatusOr<std::unique_ptr<nvml::Api>> loaded = nvml::LoadNvml(dl, &b.library, &b.missing_symbols);
      if (loaded.ok()) {
        b.real_api = *std::move(loaded);
      } else {
        b.nvml_load_error = loaded.status().message();
      }
    }
  }
  return OkStatus();
}

// --node-name, else the recording's, $NODE_NAME or the hostname.
StatusOr<std::string> NodeName(const DiscoverOptions& options, const std::optional<nvml::Recording>& replay) {
  std::string node_name = options.node_name;
  if (node_name.empty() && replay) {
    if (const Node* meta = replay->root.Find("meta")) {
      if (const Node* n = meta->Find("nodeName"); n && n->kind == manifest::NodeKind::kString) {
        node_name = n->text;
      }
    }
  }
  if (node_name.empty()) {
    if (const char* env = std::getenv("NODE_NAME"); env && *env) node_name = env;
  }
  if (node_name.empty()) node_name = HostName();
  if (node_name.empty()) {
    return InvalidArgumentError("no node name: pass --node-name (or set NODE_NAME)");
  }
  return node_name;
}

// The gpu.nvidia.com pool of `host` (NVML initialized): health taints, then
// the slices. Shuts NVML down.
Status AddNvidiaPool(nvml::Api& api, const NvidiaHost& host, const DiscoverOptions& options,
                     const std::string& node_name, DiscoverResult& result) {
  Diagnostics& diag = result.diagnostics;
  DeviceTaints taints;
  if (options.health) {
    if (options.nvidia.dynamic_mig) {
      diag.Note(
          "--health with --dynamic-mig: the plugin does not allow this "
          "combination; only full GPUs can be tainted");
    }
    taints = WatchHealth(api, host, options.health_options, diag);
  }
  api.Shutdown();
  if (!options.xid_log_file.empty()) {
    StatusOr<std::string> log = ReadWholeFile(options.xid_log_file);
    if (!log.ok()) return log.status().WithContext("--xid-log");
    diag.Note(
        "--xid-log: XIDs from the kernel log are an extension; the plugin only sees "
        "events after it starts");
    DeviceTaints from_log = XidLogTaints(*log, host, options.health_options, diag);
    // Events seen live are newer than the log: they win.
    MergeTaints(from_log, taints);
    taints = std::move(from_log);
  }
  if (host.gpus.empty()) {
    diag.Note(
        "NVML sees no GPU: no gpu.nvidia.com pool (the plugin would publish an "
        "empty slice)");
    return OkStatus();
  }
  StatusOr<std::vector<SliceContent>> contents = BuildNvidiaSlices(host, options.nvidia, taints, diag);
  if (!contents.ok()) return contents.status();
  for (auto& slice : MakePool(kNvidiaDriver, node_name, *std::move(contents), options.pool)) {
    result.slices.push_back(std::move(slice));
  }
  return OkStatus();
}

// The nvidia module: NVML (api null when it could not be loaded), or why it is
// unusable. Sets *nvml_ok when NVML initialized.
Status DiscoverNvidia(nvml::Api* api, const std::string& nvml_load_error, HostFs& host_fs,
                      const DiscoverOptions& options, const std::string& node_name, DiscoverResult& result,
                      bool* nvml_ok) {
  Diagnostics& diag = result.diagnostics;
  std::string unusable;
  if (api == nullptr) {
    unusable = fmt::format("NVML could not be loaded: {}", nvml_load_error);
  } else {
    nvml::Return ret = api->InitWithFlags(nvml::kInitFlagNoGpus);
    if (ret != nvml::kSuccess) {
      unusable = fmt::format("nvmlInitWithFlags: {}{}", DescribeReturn(*api, ret), InitAdvice(ret));
    } else {
      *nvml_ok = true;
      StatusOr<NvidiaHost> host = GatherNvidia(*api, host_fs, options.nvidia, diag);
      if (!host.ok()) {
        api->Shutdown();
        // --strict: the plugin would not start. Otherwise nothing of NVIDIA
        // can be described, but other drivers still can.
        if (host.status().code() == StatusCode::kFailedPrecondition) return host.status();
        diag.Warn(fmt::format("no gpu.nvidia.com pool: {}", host.status().message()));
      } else if (Status s = AddNvidiaPool(*api, *host, options, node_name, result); !s.ok()) {
        return s;
      }
    }
  }
  if (!unusable.empty()) {
    std::vector<std::string> present = NvidiaGpusInSysfs(host_fs);
    if (present.empty()) {
      diag.Note(fmt::format("no NVIDIA GPU: {}", unusable));
    } else {
      std::string list;
      for (const std::string& bdf : present) list += (list.empty() ? "" : ", ") + bdf;
      diag.Warn(fmt::format("NVIDIA GPUs present but not discoverable ({}): {}", list, unusable));
    }
  }
  return OkStatus();
}

// The tpu module: one tpu.google.com slice of the chips found.
Status DiscoverTpuPool(HostFs& host_fs, const DiscoverOptions& options, const std::string& node_name,
                       DiscoverResult& result) {
  TpuOptions tpu;
  tpu.accelerator = options.tpu_accelerator;
  tpu.env_file = options.tpu_env_file;
  tpu.node_name = node_name;
  StatusOr<std::vector<api::Device>> chips = DiscoverTpu(host_fs, tpu, result.diagnostics);
  if (!chips.ok()) return chips.status();
  if (!chips->empty()) {
    std::vector<SliceContent> contents(1);
    contents[0].devices = *std::move(chips);
    for (auto& s : MakePool("tpu.google.com", node_name, std::move(contents), options.pool)) {
      result.slices.push_back(std::move(s));
    }
  }
  return OkStatus();
}

// The pci module: the PCI functions no earlier pool (nor a TPU) holds, 128 a
// slice.
void DiscoverPciPool(HostFs& host_fs, const DiscoverOptions& options, const std::string& node_name,
                     DiscoverResult& result) {
  std::vector<std::string> claimed = TpuPciFunctions(host_fs);
  for (const api::ResourceSlice& s : result.slices) {
    for (const api::Device& d : s.spec.devices) {
      for (std::string_view key : {"resource.kubernetes.io/pciBusID", "pcieBusID"}) {
        if (const api::DeviceAttribute* a = d.attributes.find(key); a && a->string_value()) {
          claimed.push_back(a->string_value()->str());
        }
      }
    }
  }
  PciOptions pci;
  pci.include_vfs = options.pci_include_vfs;
  std::vector<api::Device> devices = DiscoverPci(host_fs, pci, claimed, result.diagnostics);
  if (!devices.empty()) {
    std::vector<SliceContent> contents;
    for (size_t i = 0; i < devices.size(); i += 128) {
      SliceContent c;
      for (size_t j = i; j < std::min(devices.size(), i + 128); ++j) {
        c.devices.push_back(std::move(devices[j]));
      }
      contents.push_back(std::move(c));
    }
    for (auto& s : MakePool("pci.dractl.io", node_name, std::move(contents), options.pool)) {
      result.slices.push_back(std::move(s));
    }
  }
}

// --record: anonymized with --anonymize, then written.
Status WriteRecordingFile(const DiscoverOptions& options, const std::string& node_name, nvml::Recording& recording) {
  if (options.anonymize) {
    std::string new_name = "node-" + StableHash(node_name).substr(0, 8);
    AnonymizeTree(recording.root, node_name, new_name);
    if (Node* meta = const_cast<Node*>(recording.root.Find("meta"))) {
      for (size_t i = 0; i < meta->keys.size(); ++i) {
        if (meta->keys[i].first == "anonymized") meta->items[i] = Node::Bool(true);
      }
    }
  }
  if (Status s = WriteWholeFile(options.record_file, nvml::WriteRecording(recording)); !s.ok()) {
    return s.WithContext("--record");
  }
  return OkStatus();
}

}  // namespace

StatusOr<DiscoverResult> Discover(const DiscoverOptions& options) {
  DiscoverResult result;
  for (const std::string& d : options.drivers) {
    if (d != "nvidia" && d != "tpu" && d != "pci") {
      return InvalidArgumentError(fmt::format("unknown driver module \"{}\" (nvidia, tpu, pci)", d));
    }
  }
  if (!options.replay_file.empty() && !options.record_file.empty()) {
    return InvalidArgumentError("--record and --replay cannot be combined");
  }

  // Backends.
  Backends b;
  if (Status s = OpenBackends(options, b); !s.ok()) return s;

  // Node name.
  StatusOr<std::string> named = NodeName(options, b.replay);
  if (!named.ok()) return named.status();
  const std::string& node_name = *named;

  // Recording wrappers.
  std::optional<nvml::Recording> recording;
  std::unique_ptr<nvml::RecordingApi> recording_api;
  std::unique_ptr<HostFs> recording_fs;
  if (!options.record_file.empty()) {
    recording = nvml::Recording{NewRecordingRoot(node_name, b.library)};
    recording_fs = NewRecordingFs(*b.fs, &*recording);
    if (b.real_api) {
      recording_api = std::make_unique<nvml::RecordingApi>(*b.real_api, &*recording, b.missing_symbols);
    }
  }
  HostFs& host_fs = recording_fs ? *recording_fs : *b.fs;
  nvml::Api* api = recording_api  ? static_cast<nvml::Api*>(recording_api.get())
                   : b.replay_api ? static_cast<nvml::Api*>(b.replay_api.get())
                                  : b.real_api.get();

  bool nvml_ok = false;
  bool sysfs_ok = host_fs.Exists("/sys/bus/pci/devices");
  if (options.drivers.count("nvidia")) {
    Status s = DiscoverNvidia(api, b.nvml_load_error, host_fs, options, node_name, result, &nvml_ok);
    if (!s.ok()) return s;
  }
  if (options.drivers.count("tpu")) {
    if (Status s = DiscoverTpuPool(host_fs, options, node_name, result); !s.ok()) return s;
  }
  if (options.drivers.count("pci")) DiscoverPciPool(host_fs, options, node_name, result);

  if (b.replay_api) result.unrecorded = b.replay_api->unrecorded();
  result.nothing_usable = !nvml_ok && !sysfs_ok;

  if (recording) {
    if (Status s = WriteRecordingFile(options, node_name, *recording); !s.ok()) return s;
  }
  // The combined layout is what 1.34 accepts (a slice with devices and
  // counters together); later releases reject it.
  bool combined = options.nvidia.dynamic_mig && options.nvidia.layout == SliceLayout::kCombined;
  if (Status s = CheckSlices(result.slices, combined ? "1.34" : ""); !s.ok()) return s;
  return result;
}

}  // namespace dra::discover
