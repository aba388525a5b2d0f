// Device-plugin resource names (device_plugin.h). The names follow the device
// plugins: NVIDIA/k8s-device-plugin names MIG resources of the mixed strategy
// `nvidia.com/mig-<profile>` with a profile's "+me" written ".me" (a resource
// name cannot hold '+'), and time-slicing's renameByDefault appends ".shared".
#include "migrate/device_plugin.h"

#include <set>

#include <fmt/format.h>

#include "manifest/yaml_parser.h"

namespace dra::migrate {
namespace {

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "1g.5gb", "7g.40gb", "1g.5gb+me": compute slices, 'g', '.', memory, "gb".
bool IsMigProfile(std::string_view p) {
  if (p.ends_with("+me")) p.remove_suffix(3);
  size_t g = p.find("g.");
  if (g == std::string_view::npos || !IsDigits(p.substr(0, g))) return false;
  std::string_view mem = p.substr(g + 2);
  return mem.ends_with("gb") && IsDigits(mem.substr(0, mem.size() - 2));
}

// A DNS label or subdomain made from a resource name's parts: characters
// a resource name may hold but a DNS name may not become '-'.
std::string DnsSafe(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '_' || c == '+') c = '-';
  }
  return out;
}

std::string ClaimShortName(std::string_view s) {
  std::string out = DnsSafe(s);
  for (char& c : out) {
    if (c == '.') c = '-';
  }
  return out;
}

// The name without sharing: nvidia.com/gpu, nvidia.com/mig-<P>, google.com/tpu, amd.com/gpu.
ResourceClass ClassifyBase(std::string_view name, DeviceKind* kind) {
  if (name == "nvidia.com/gpu") {
    *kind = {.vendor = Vendor::kNvidia, .class_name = "gpu.nvidia.com"};
    return ResourceClass::kDevice;
  }
  if (name.starts_with("nvidia.com/mig-")) {
    std::string profile(name.substr(15));
    if (profile.ends_with(".me")) profile.replace(profile.size() - 3, 3, "+me");
    if (!IsMigProfile(profile)) return ResourceClass::kUnknownDevice;
    *kind = {.vendor = Vendor::kNvidia, .class_name = "mig.nvidia.com", .mig_profile = profile};
    return ResourceClass::kDevice;
  }
  if (name == "google.com/tpu") {
    *kind = {.vendor = Vendor::kTpu, .class_name = "tpu.google.com"};
    return ResourceClass::kDevice;
  }
  if (name == "amd.com/gpu") {
    *kind = {.vendor = Vendor::kAmd, .class_name = "gpu.amd.com"};
    return ResourceClass::kDevice;
  }
  if (name.starts_with("nvidia.com/") || name.starts_with("amd.com/") || name.starts_with("google.com/")) {
    return ResourceClass::kUnknownDevice;
  }
  return ResourceClass::kOther;
}

}  // namespace

ResourceClass ClassifyResource(std::string_view name, const SharingConfig& sharing, DeviceKind* kind) {
  std::string_view base = name;
  bool shared = false;
  if (auto it = sharing.shared.find(name); it != sharing.shared.end()) {
    base = it->second;
    shared = true;
  } else if (name.ends_with(".shared")) {
    base = name.substr(0, name.size() - 7);
    shared = true;
  }
  ResourceClass c = ClassifyBase(base, kind);
  if (c != ResourceClass::kDevice) return c == ResourceClass::kOther && shared ? ClassifyBase(name, kind) : c;
  kind->time_sliced = shared;
  size_t slash = name.find('/');
  kind->short_name = name == "amd.com/gpu" ? "amd-gpu" : ClaimShortName(name.substr(slash + 1));
  kind->extended_class_name = DnsSafe(fmt::format("{}.{}", name.substr(slash + 1), name.substr(0, slash)));
  return ResourceClass::kDevice;
}

namespace {

// The device-plugin configs of a ConfigMap's data: (key, parsed config).
std::vector<std::pair<std::string, manifest::Node>> DevicePluginConfigs(const manifest::Node& root,
                                                                        std::vector<std::string>* unparsable) {
  std::vector<std::pair<std::string, manifest::Node>> out;
  const manifest::Node* data = root.Find("data");
  if (data == nullptr || !data->is_mapping()) return out;
  for (size_t i = 0; i < data->items.size(); ++i) {
    const manifest::Node& value = data->items[i];
    if (value.kind != manifest::NodeKind::kString) continue;
    StatusOr<std::vector<manifest::Document>> docs = manifest::ParseYaml(value.text, data->keys[i].first);
    if (!docs.ok() || docs->size() != 1 || !(*docs)[0].root.is_mapping()) {
      if (unparsable != nullptr) unparsable->push_back(data->keys[i].first);
      continue;
    }
    manifest::Node config = std::move((*docs)[0].root);
    const manifest::Node* version = config.Find("version");
    if (version == nullptr || version->text != "v1") continue;
    if (config.Find("sharing") == nullptr && config.Find("flags") == nullptr) continue;
    out.emplace_back(data->keys[i].first, std::move(config));
  }
  return out;
}

}  // namespace

bool IsDevicePluginConfigMap(const manifest::Node& root) {
  const manifest::Node* kind = root.Find("kind");
  const manifest::Node* api_version = root.Find("apiVersion");
  if (kind == nullptr || kind->text != "ConfigMap" || api_version == nullptr || api_version->text != "v1") {
    return false;
  }
  return !DevicePluginConfigs(root, nullptr).empty();
}

void ReadSharingConfigMap(const manifest::Node& root, const std::string& file, std::string_view object,
                          SharingConfig* sharing, std::vector<manifest::LoadMessage>* messages) {
  auto warn = [&](std::string field, std::string message) {
    messages->push_back({.severity = api::Severity::kWarning,
                         .file = file,
                         .mark = root.mark,
                         .object = std::string(object),
                         .field = std::move(field),
                         .message = std::move(message)});
  };
  std::vector<std::string> unparsable;
  std::vector<std::pair<std::string, manifest::Node>> configs = DevicePluginConfigs(root, &unparsable);
  for (const std::string& key : unparsable) {
    warn(fmt::format("data[{}]", key), "not a device-plugin config (does not parse as a YAML mapping): not read");
  }
  // name -> the configs (data keys) that share it.
  std::map<std::string, std::set<std::string>, std::less<>> shared_by;
  for (const auto& [key, config] : configs) {
    const manifest::Node* s = config.Find("sharing");
    if (s == nullptr || !s->is_mapping()) continue;
    if (const manifest::Node* mps = s->Find("mps"); mps != nullptr && !mps->is_null()) {
      warn(fmt::format("data[{}]", key),
           "sharing.mps is not translated: dractl expresses only time-slicing (the driver's MPS sharing needs "
           "GpuConfig sharing.strategy MPS and mpsConfig, which you write by hand)");
    }
    const manifest::Node* ts = s->Find("timeSlicing");
    if (ts == nullptr || !ts->is_mapping()) continue;
    const manifest::Node* rename_default = ts->Find("renameByDefault");
    const bool rename =
        rename_default != nullptr && rename_default->kind == manifest::NodeKind::kBool && rename_default->bool_value;
    const manifest::Node* resources = ts->Find("resources");
    if (resources == nullptr || !resources->is_sequence()) continue;
    for (const manifest::Node& r : resources->items) {
      const manifest::Node* name = r.Find("name");
      if (name == nullptr || name->text.empty()) continue;
      const manifest::Node* renamed = r.Find("rename");
      std::string shared_name = renamed != nullptr && !renamed->text.empty() ? renamed->text
                                : rename                                     ? name->text + ".shared"
                                                                             : name->text;
      sharing->shared.insert_or_assign(shared_name, name->text);
      shared_by[shared_name].insert(key);
    }
  }
  for (const auto& [name, keys] : shared_by) {
    if (keys.size() == configs.size()) continue;
    std::vector<std::string> others;
    for (const auto& c : configs) {
      if (!keys.contains(c.first)) others.push_back(c.first);
    }
    warn("data", fmt::format("{} is time-sliced by config {} but not by {} (nodes choose a config by their "
                             "nvidia.com/device-plugin.config label): dractl time-slices it in every workload",
                             name, fmt::join(keys, ", "), fmt::join(others, ", ")));
  }
}

}  // namespace dra::migrate
