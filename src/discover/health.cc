#include "discover/health.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace dra::discover {
namespace {

constexpr std::string_view kXid = "gpu.nvidia.com/xid";
constexpr std::string_view kGpuLost = "gpu.nvidia.com/gpu-lost";
constexpr std::string_view kUnmonitored = "gpu.nvidia.com/unmonitored";

// Every published device key of one GPU.
std::vector<DeviceKey> KeysOf(const GpuInfo& gpu) {
  std::vector<DeviceKey> keys;
  if (!gpu.mig_enabled) {
    keys.emplace_back(gpu.uuid, nvml::kNoInstance, nvml::kNoInstance);
  } else {
    for (const StaticMigDevice& mig : gpu.mig_devices) {
      keys.emplace_back(gpu.uuid, mig.gi_id, mig.ci_id);
    }
  }
  return keys;
}

// One taint per key per device: a new value or effect replaces the old one.
void SetTaint(DeviceTaints& taints, const DeviceKey& key, std::string_view taint_key, std::string value,
              std::string_view effect) {
  std::vector<api::DeviceTaint>& list = taints[key];
  auto it = std::find_if(list.begin(), list.end(), [&](const api::DeviceTaint& t) { return t.key == taint_key; });
  api::DeviceTaint taint;
  taint.key = std::string(taint_key);
  taint.value = std::move(value);
  taint.effect = api::EnumString<api::DeviceTaintEffect>(std::string(effect));
  if (it != list.end()) {
    *it = std::move(taint);
  } else {
    list.push_back(std::move(taint));
  }
}

void TaintAll(DeviceTaints& taints, const NvidiaHost& host, std::string_view taint_key, std::string_view effect) {
  for (const GpuInfo& gpu : host.gpus) {
    for (const DeviceKey& key : KeysOf(gpu)) SetTaint(taints, key, taint_key, "", effect);
  }
}

}  // namespace

const std::set<uint64_t>& DefaultIgnoredXids() {
  static const std::set<uint64_t> kIgnored = {13, 31, 43, 45, 68, 109};
  return kIgnored;
}

std::set<uint64_t> ParseXidList(std::string_view list, Diagnostics& diag) {
  std::set<uint64_t> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string_view item =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      bool digits = item.size() <= 19;
      for (char c : item) digits = digits && c >= '0' && c <= '9';
      if (digits) {
        uint64_t v = 0;
        for (char c : item) v = v * 10 + static_cast<uint64_t>(c - '0');
        out.insert(v);
      } else {
        diag.Note(fmt::format("XID to ignore \"{}\" is not a number; skipped", item));
      }
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

DeviceTaints WatchHealth(nvml::Api& nvml, const NvidiaHost& host, const HealthOptions& options, Diagnostics& diag) {
  DeviceTaints taints;
  // (UUID, GI, CI) -> published device.
  std::set<DeviceKey> published;
  for (const GpuInfo& gpu : host.gpus) {
    for (const DeviceKey& key : KeysOf(gpu)) published.insert(key);
  }
  nvml::EventSet set = nullptr;
  nvml::Return ret = nvml.EventSetCreate(&set);
  if (ret != nvml::kSuccess) {
    diag.Warn(fmt::format("health: nvmlEventSetCreate: {}; every GPU is unmonitored", DescribeReturn(nvml, ret)));
    TaintAll(taints, host, kUnmonitored, "None");
    return taints;
  }
  constexpr unsigned long long kWanted =
      nvml::kEventTypeXidCriticalError | nvml::kEventTypeDoubleBitEccError | nvml::kEventTypeSingleBitEccError;
  for (const GpuInfo& gpu : host.gpus) {
    nvml::Device device = nullptr;
    std::string failure;
    ret = nvml.DeviceGetHandleByIndex(gpu.index, &device);
    if (ret != nvml::kSuccess) {
      failure = fmt::format("nvmlDeviceGetHandleByIndex_v2: {}", nvml::ReturnName(ret));
    } else {
      unsigned long long supported = 0;
      ret = nvml.DeviceGetSupportedEventTypes(device, &supported);
      if (ret != nvml::kSuccess) {
        failure = fmt::format("nvmlDeviceGetSupportedEventTypes: {}", nvml::ReturnName(ret));
      } else if ((ret = nvml.DeviceRegisterEvents(device, kWanted & supported, set)) != nvml::kSuccess) {
        failure = fmt::format("nvmlDeviceRegisterEvents: {}", nvml::ReturnName(ret));
      }
    }
    if (!failure.empty()) {
      diag.Warn(fmt::format("health: GPU {} ({}) is unmonitored: {}", gpu.index, gpu.bus_id, failure));
      for (const DeviceKey& key : KeysOf(gpu)) SetTaint(taints, key, kUnmonitored, "", "None");
    }
  }

  const int64_t deadline = nvml.NowMs() + options.wait_ms;
  int errors_in_a_row = 0;
  while (true) {
    int64_t remaining = deadline - nvml.NowMs();
    if (remaining <= 0) break;
    nvml::EventData data{};
    ret = nvml.EventSetWait(set, &data, static_cast<unsigned int>(std::min<int64_t>(5000, remaining)));
    if (ret == nvml::kErrorTimeout) {
      errors_in_a_row = 0;
      continue;
    }
    if (ret == nvml::kErrorGpuIsLost) {
      diag.Warn("health: NVML reports a GPU is lost; every device is tainted gpu-lost");
      TaintAll(taints, host, kGpuLost, "NoSchedule");
      continue;
    }
    if (ret != nvml::kSuccess) {
      // The plugin keeps waiting; a library that fails at once every time
      // would spin, so give up after many errors in a row.
      if (++errors_in_a_row >= 100) {
        diag.Warn(
            fmt::format("health: nvmlEventSetWait_v2 keeps failing ({}); stopped waiting", nvml::ReturnName(ret)));
        break;
      }
      continue;
    }
    errors_in_a_row = 0;
    if (data.eventType != nvml::kEventTypeXidCriticalError) continue;  // ECC: registered, unused
    char uuid[nvml::kDeviceUuidBufferSize] = {};
    ret = nvml.DeviceGetUUID(data.device, uuid, sizeof uuid);
    if (ret != nvml::kSuccess) {
      diag.Warn(
          "health: an XID event names a GPU whose UUID cannot be read; every device is "
          "tainted gpu-lost");
      TaintAll(taints, host, kGpuLost, "NoSchedule");
      continue;
    }
    DeviceKey key{std::string(uuid, strnlen(uuid, sizeof uuid)), data.gpuInstanceId, data.computeInstanceId};
    if (!published.count(key)) {
      diag.Note(
          fmt::format("health: XID {} on {} (GPU instance {}, compute instance {}) matches "
                      "no published device; ignored, as the plugin does",
                      data.eventData, std::get<0>(key), data.gpuInstanceId, data.computeInstanceId));
      continue;
    }
    bool ignored = DefaultIgnoredXids().count(data.eventData) || options.additional_ignored_xids.count(data.eventData);
    SetTaint(taints, key, kXid, std::to_string(data.eventData), ignored ? "None" : "NoSchedule");
  }
  nvml.EventSetFree(set);
  return taints;
}

DeviceTaints XidLogTaints(std::string_view log, const NvidiaHost& host, const HealthOptions& options,
                          Diagnostics& diag) {
  DeviceTaints taints;
  size_t line_no = 0;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    start = end + 1;
    ++line_no;
    constexpr std::string_view kMarker = "NVRM: Xid (PCI:";
    size_t at = line.find(kMarker);
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + kMarker.size());
    size_t close = rest.find("): ");
    if (close == std::string_view::npos) continue;
    std::string bus(rest.substr(0, close));  // "0000:18:00"
    for (char& c : bus) {
      if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    }
    std::string_view number = rest.substr(close + 3);
    uint64_t xid = 0;
    size_t digits = 0;
    while (digits < number.size() && digits < 19 && number[digits] >= '0' && number[digits] <= '9') {
      xid = xid * 10 + static_cast<uint64_t>(number[digits] - '0');
      ++digits;
    }
    if (digits == 0) continue;
    const GpuInfo* gpu = nullptr;
    for (const GpuInfo& g : host.gpus) {
      // The log names domain:bus:device; the function is 0 for a GPU.
      if (g.bus_id.compare(0, bus.size(), bus) == 0 && g.bus_id.size() == bus.size() + 2) gpu = &g;
    }
    if (gpu == nullptr) {
      diag.Note(
          fmt::format("--xid-log line {}: XID {} on PCI {} names no GPU of this node; skipped", line_no, xid, bus));
      continue;
    }
    if (gpu->mig_enabled) {
      diag.Note(
          fmt::format("--xid-log line {}: XID {} on GPU {} ({}), which has MIG enabled: the "
                      "log does not say which MIG device; skipped",
                      line_no, xid, gpu->index, gpu->bus_id));
      continue;
    }
    bool ignored = DefaultIgnoredXids().count(xid) || options.additional_ignored_xids.count(xid);
    SetTaint(taints, DeviceKey{gpu->uuid, nvml::kNoInstance, nvml::kNoInstance}, kXid, std::to_string(xid),
             ignored ? "None" : "NoSchedule");
  }
  return taints;
}

void MergeTaints(DeviceTaints& taints, const DeviceTaints& more) {
  for (const auto& [key, list] : more) {
    for (const api::DeviceTaint& t : list) {
      SetTaint(taints, key, t.key, t.value, t.effect.text());
    }
  }
}

}  // namespace dra::discover
