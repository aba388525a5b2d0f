#include "discover/nvml/recording.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iterator>
#include <span>
#include <vector>

#include "base/version.h"
#include "manifest/emit.h"
#include "manifest/json_parser.h"

namespace dra::discover::nvml {

using manifest::Node;
using manifest::NodeKind;

namespace tree {

Node* Find(Node& map, std::string_view key) {
  if (!map.is_mapping()) return nullptr;
  for (size_t i = 0; i < map.keys.size(); ++i) {
    if (map.keys[i].first == key) return &map.items[i];
  }
  return nullptr;
}

Node& Child(Node& map, std::string_view key, Node init) {
  if (Node* found = Find(map, key)) return *found;
  map.Add(std::string(key), std::move(init));
  return map.items.back();
}

void Set(Node& map, std::string_view key, Node value) {
  if (Node* found = Find(map, key)) {
    *found = std::move(value);
    return;
  }
  map.Add(std::string(key), std::move(value));
}

Node Uint(uint64_t value) { return Node::Number(std::to_string(value), NodeKind::kInt); }

std::optional<uint64_t> ToUint(const Node& node, uint64_t max) {
  if (node.kind != NodeKind::kInt) return std::nullopt;
  uint64_t value = 0;
  const char* end = node.text.data() + node.text.size();
  auto [ptr, ec] = std::from_chars(node.text.data(), end, value);
  if (ec != std::errc() || ptr != end || value > max) return std::nullopt;
  return value;
}

std::optional<int64_t> ToInt(const Node& node, int64_t min, int64_t max) {
  if (node.kind != NodeKind::kInt) return std::nullopt;
  int64_t value = 0;
  const char* end = node.text.data() + node.text.size();
  auto [ptr, ec] = std::from_chars(node.text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) return std::nullopt;
  return value;
}

}  // namespace tree

namespace {

// ---- The schema, as tables: one FieldSpec per output field of an answer. ----

enum class FieldType { kU32, kI32, kU64, kI64, kString, kBool, kPair, kPairList };

struct FieldSpec {
  std::string_view name;
  FieldType type;
  size_t max_len = 0;  // kString: longest value (NVML's fixed char arrays), 0 = any
};

struct AnswerSpec {
  std::string_view key;  // the C function name
  std::span<const FieldSpec> fields;
};

constexpr std::span<const FieldSpec> kRetOnly;  // answers with only "ret"
constexpr FieldSpec kNameFields[] = {{"name", FieldType::kString}};
constexpr FieldSpec kUuidFields[] = {{"uuid", FieldType::kString}};
constexpr FieldSpec kMinorFields[] = {{"minorNumber", FieldType::kU32}};
constexpr FieldSpec kBrandFields[] = {{"type", FieldType::kI32}};
constexpr FieldSpec kArchFields[] = {{"arch", FieldType::kU32}};
constexpr FieldSpec kCcFields[] = {{"major", FieldType::kI32}, {"minor", FieldType::kI32}};
constexpr FieldSpec kMemoryFields[] = {
    {"total", FieldType::kU64}, {"free", FieldType::kU64}, {"used", FieldType::kU64}};
constexpr FieldSpec kPciFields[] = {{"busId", FieldType::kString, 31},  {"busIdLegacy", FieldType::kString, 15},
                                    {"domain", FieldType::kU32},        {"bus", FieldType::kU32},
                                    {"device", FieldType::kU32},        {"pciDeviceId", FieldType::kU32},
                                    {"pciSubSystemId", FieldType::kU32}};
constexpr FieldSpec kAddressingFields[] = {{"value", FieldType::kU32}};
constexpr FieldSpec kMigModeFields[] = {{"currentMode", FieldType::kU32}, {"pendingMode", FieldType::kU32}};
constexpr FieldSpec kVirtFields[] = {{"mode", FieldType::kI32}};
constexpr FieldSpec kCountFields[] = {{"count", FieldType::kU32}};
constexpr FieldSpec kEventTypesFields[] = {{"eventTypes", FieldType::kU64}};
constexpr FieldSpec kIdFields[] = {{"id", FieldType::kU32}};
constexpr FieldSpec kGiProfileFields[] = {{"id", FieldType::kU32},
                                          {"isP2pSupported", FieldType::kU32},
                                          {"sliceCount", FieldType::kU32},
                                          {"instanceCount", FieldType::kU32},
                                          {"multiprocessorCount", FieldType::kU32},
                                          {"copyEngineCount", FieldType::kU32},
                                          {"decoderCount", FieldType::kU32},
                                          {"encoderCount", FieldType::kU32},
                                          {"jpegCount", FieldType::kU32},
                                          {"ofaCount", FieldType::kU32},
                                          {"memorySizeMB", FieldType::kU64}};
constexpr FieldSpec kPlacementsFields[] = {{"placements", FieldType::kPairList}};
constexpr FieldSpec kInstanceInfoFields[] = {
    {"id", FieldType::kU32}, {"profileId", FieldType::kU32}, {"placement", FieldType::kPair}};
constexpr FieldSpec kCiProfileFields[] = {{"id", FieldType::kU32},
                                          {"sliceCount", FieldType::kU32},
                                          {"instanceCount", FieldType::kU32},
                                          {"multiprocessorCount", FieldType::kU32},
                                          {"sharedCopyEngineCount", FieldType::kU32},
                                          {"sharedDecoderCount", FieldType::kU32},
                                          {"sharedEncoderCount", FieldType::kU32},
                                          {"sharedJpegCount", FieldType::kU32},
                                          {"sharedOfaCount", FieldType::kU32}};
constexpr FieldSpec kDriverVersionFields[] = {{"version", FieldType::kString}};
constexpr FieldSpec kCudaVersionFields[] = {{"cudaDriverVersion", FieldType::kI32}};
constexpr FieldSpec kDeviceCountFields[] = {{"deviceCount", FieldType::kU32}};
constexpr FieldSpec kInitFields[] = {{"function", FieldType::kString}, {"flags", FieldType::kU32}};
constexpr FieldSpec kEventFields[] = {{"device", FieldType::kU32},
                                      {"eventType", FieldType::kU64},
                                      {"eventData", FieldType::kU64},
                                      {"gpuInstanceId", FieldType::kU32},
                                      {"computeInstanceId", FieldType::kU32}};
constexpr FieldSpec kMetaFields[] = {{"dractlVersion", FieldType::kString}, {"recordedAt", FieldType::kString},
                                     {"nodeName", FieldType::kString},      {"euid", FieldType::kI64},
                                     {"anonymized", FieldType::kBool},      {"library", FieldType::kString},
                                     {"nvmlVersion", FieldType::kString}};

// Answers found on a GPU's object and on a MIG device's object (a MIG handle
// is an nvmlDevice_t, so the same calls apply to it).
constexpr AnswerSpec kDeviceAnswers[] = {
    {"nvmlDeviceGetHandleByIndex_v2", kRetOnly},
    {"nvmlDeviceGetName", kNameFields},
    {"nvmlDeviceGetUUID", kUuidFields},
    {"nvmlDeviceGetMinorNumber", kMinorFields},
    {"nvmlDeviceGetBrand", kBrandFields},
    {"nvmlDeviceGetArchitecture", kArchFields},
    {"nvmlDeviceGetCudaComputeCapability", kCcFields},
    {"nvmlDeviceGetMemoryInfo", kMemoryFields},
    {"nvmlDeviceGetPciInfo_v3", kPciFields},
    {"nvmlDeviceGetAddressingMode", kAddressingFields},
    {"nvmlDeviceGetMigMode", kMigModeFields},
    {"nvmlDeviceGetVirtualizationMode", kVirtFields},
    {"nvmlDeviceGetMaxMigDeviceCount", kCountFields},
    {"nvmlDeviceGetSupportedEventTypes", kEventTypesFields},
    {"nvmlDeviceRegisterEvents", kRetOnly},
    {"nvmlDeviceGetMigDeviceHandleByIndex", kRetOnly},
    {"nvmlDeviceGetGpuInstanceId", kIdFields},
    {"nvmlDeviceGetComputeInstanceId", kIdFields},
};

// GPU indices, MIG indices, GI and CI ids are packed into 16 bits of a
// replay handle (replay_api.cc).
constexpr uint64_t kMaxHandleField = 0xFFFF;

std::string Quote(std::string_view s) { return fmt::format("\"{}\"", s); }

std::string_view TypeName(FieldType type) {
  switch (type) {
    case FieldType::kU32: return "an unsigned 32-bit integer";
    case FieldType::kI32: return "a 32-bit integer";
    case FieldType::kU64: return "an unsigned 64-bit integer";
    case FieldType::kI64: return "a 64-bit integer";
    case FieldType::kString: return "a string";
    case FieldType::kBool: return "true or false";
    case FieldType::kPair: return "a [start, size] pair of unsigned integers";
    case FieldType::kPairList: return "a list of [start, size] pairs";
  }
  return "?";
}

bool IsU32(const Node& n) { return tree::ToUint(n, UINT32_MAX).has_value(); }

bool IsPair(const Node& n) { return n.is_sequence() && n.items.size() == 2 && IsU32(n.items[0]) && IsU32(n.items[1]); }

// "12" -> 12: a canonical decimal (no sign, no leading zero) within max.
std::optional<uint64_t> ParseDecimalKey(std::string_view key, uint64_t max) {
  if (key.empty() || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), value);
  if (ec != std::errc() || ptr != key.data() + key.size() || value > max) return std::nullopt;
  return value;
}

// A relative path of plain elements: no leading or trailing '/', no empty,
// "." or ".." elements.
bool IsCleanRelativePath(std::string_view path) {
  if (path.empty()) return false;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view elem = path.substr(pos, slash - pos);
    if (elem.empty() || elem == "." || elem == "..") return false;
    pos = slash + 1;
  }
  return path.find('\0') == std::string_view::npos;
}

bool IsUnder(std::string_view path, std::string_view dir) {
  return path == dir || (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

class Validator {
 public:
  explicit Validator(std::string_view file) : file_(file) {}

  Status Document(const Node& root) {
    if (!root.is_mapping()) return Fail(root, "recording", "must be a JSON object");
    const Node* format = root.Find("format");
    if (format == nullptr) {
      return Fail(root, "format", fmt::format("missing; a recording has \"format\": {}", Quote(kRecordingFormat)));
    }
    if (format->kind != NodeKind::kString || format->text != kRecordingFormat) {
      return Fail(
          *format, "format",
          fmt::format("is {}, not {}: not a dractl NVML recording", Describe(*format), Quote(kRecordingFormat)));
    }
    const Node* version = root.Find("version");
    if (version == nullptr) return Fail(root, "version", "missing");
    if (tree::ToInt(*version) != kRecordingVersion) {
      return Fail(*version, "version",
                  fmt::format("is {}; this dractl reads version {}", Describe(*version), kRecordingVersion));
    }
    if (const Node* meta = root.Find("meta")) {
      if (!meta->is_mapping()) return Fail(*meta, "meta", "must be an object");
      for (const FieldSpec& f : kMetaFields) DRA_RETURN_IF_ERROR(Field(*meta, "meta", f, false));
    }
    if (const Node* missing = root.Find("missingSymbols")) {
      DRA_RETURN_IF_ERROR(StringList(*missing, "missingSymbols"));
    }
    if (const Node* init = root.Find("init")) {
      DRA_RETURN_IF_ERROR(Answer(*init, "init", kRetOnly));
      for (const FieldSpec& f : kInitFields) DRA_RETURN_IF_ERROR(Field(*init, "init", f, false));
    }
    DRA_RETURN_IF_ERROR(OptionalAnswer(root, "", "nvmlSystemGetDriverVersion", kDriverVersionFields));
    DRA_RETURN_IF_ERROR(OptionalAnswer(root, "", "nvmlSystemGetCudaDriverVersion", kCudaVersionFields));
    DRA_RETURN_IF_ERROR(OptionalAnswer(root, "", "nvmlDeviceGetCount_v2", kDeviceCountFields));
    DRA_RETURN_IF_ERROR(OptionalAnswer(root, "", "nvmlEventSetCreate", kRetOnly));
    if (const Node* devices = root.Find("devices")) {
      if (!devices->is_sequence()) return Fail(*devices, "devices", "must be a list");
      if (devices->items.size() > kMaxHandleField + 1) {
        return Fail(*devices, "devices", "more than 65536 GPUs");
      }
      for (size_t i = 0; i < devices->items.size(); ++i) {
        const Node& device = devices->items[i];
        std::string where = fmt::format("devices[{}]", i);
        if (!device.is_mapping()) return Fail(device, where, "must be an object");
        const Node* index = device.Find("index");
        if (index == nullptr) return Fail(device, where, "\"index\" is missing");
        if (tree::ToUint(*index) != i) {
          return Fail(*index, where + ".index",
                      fmt::format("is {}, but the entry is at position {}", Describe(*index), i));
        }
        DRA_RETURN_IF_ERROR(DeviceObject(device, where));
      }
    }
    if (const Node* events = root.Find("events")) DRA_RETURN_IF_ERROR(Events(*events));
    if (const Node* sysfs = root.Find("sysfs")) DRA_RETURN_IF_ERROR(Sysfs(*sysfs));
    if (const Node* dev = root.Find("dev")) DRA_RETURN_IF_ERROR(Dev(*dev));
    if (const Node* files = root.Find("files")) DRA_RETURN_IF_ERROR(Files(*files));
    return OkStatus();
  }

 private:
  Status Fail(const Node& at, std::string_view where, std::string_view what) const {
    return Fail(at.mark, where, what);
  }
  Status Fail(const manifest::Mark& mark, std::string_view where, std::string_view what) const {
    if (mark.line == 0) return InvalidArgumentError(fmt::format("{}: {}: {}", file_, where, what));
    return InvalidArgumentError(fmt::format("{}:{}:{}: {}: {}", file_, mark.line, mark.column, where, what));
  }

  static std::string Describe(const Node& n) {
    if (n.kind == NodeKind::kString) return Quote(n.text);
    if (n.kind == NodeKind::kInt || n.kind == NodeKind::kFloat) return n.text;
    return std::string(manifest::NodeKindName(n.kind));
  }

  static std::string Join(std::string_view where, std::string_view key) {
    if (where.empty()) return std::string(key);
    return fmt::format("{}.{}", where, key);
  }

  Status Field(const Node& answer, std::string_view where, const FieldSpec& f, bool required) {
    const Node* v = answer.Find(f.name);
    if (v == nullptr) {
      if (!required) return OkStatus();
      return Fail(answer, where, fmt::format("\"{}\" is missing (ret is 0)", f.name));
    }
    bool ok = false;
    switch (f.type) {
      case FieldType::kU32: ok = IsU32(*v); break;
      case FieldType::kI32: ok = tree::ToInt(*v, INT32_MIN, INT32_MAX).has_value(); break;
      case FieldType::kU64: ok = tree::ToUint(*v).has_value(); break;
      case FieldType::kI64: ok = tree::ToInt(*v).has_value(); break;
      case FieldType::kBool: ok = v->kind == NodeKind::kBool; break;
      case FieldType::kPair: ok = IsPair(*v); break;
      case FieldType::kPairList:
        ok = v->is_sequence();
        for (const Node& item : v->items) ok = ok && IsPair(item);
        break;
      case FieldType::kString:
        ok = v->kind == NodeKind::kString;
        if (ok && v->text.find('\0') != std::string::npos) {
          return Fail(*v, Join(where, f.name), "contains a NUL character");
        }
        if (ok && f.max_len != 0 && v->text.size() > f.max_len) {
          return Fail(*v, Join(where, f.name),
                      fmt::format("is {} bytes long; NVML's buffer holds at most {}", v->text.size(), f.max_len));
        }
        break;
    }
    if (!ok) {
      return Fail(*v, Join(where, f.name), fmt::format("is {}, expected {}", Describe(*v), TypeName(f.type)));
    }
    return OkStatus();
  }

  // An answer object: {"ret": n, fields...}; fields required when ret is 0.
  Status Answer(const Node& n, std::string_view where, std::span<const FieldSpec> fields) {
    if (!n.is_mapping()) return Fail(n, where, "an answer must be an object with \"ret\"");
    const Node* ret = n.Find("ret");
    if (ret == nullptr) return Fail(n, where, "\"ret\" is missing");
    std::optional<int64_t> code = tree::ToInt(*ret, INT32_MIN, INT32_MAX);
    if (!code) {
      return Fail(*ret, Join(where, "ret"), fmt::format("is {}, expected an nvmlReturn_t number", Describe(*ret)));
    }
    for (const FieldSpec& f : fields) DRA_RETURN_IF_ERROR(Field(n, where, f, *code == 0));
    return OkStatus();
  }

  Status OptionalAnswer(const Node& parent, std::string_view where, std::string_view key,
                        std::span<const FieldSpec> fields) {
    const Node* n = parent.Find(key);
    if (n == nullptr) return OkStatus();
    return Answer(*n, Join(where, key), fields);
  }

  // An object keyed by decimal arguments; `each` checks one value.
  Status Keyed(const Node& n, const std::string& where, uint64_t max_key,
               const std::function<Status(const Node&, const std::string&)>& each) {
    if (!n.is_mapping()) return Fail(n, where, "must be an object keyed by decimal arguments");
    for (size_t i = 0; i < n.keys.size(); ++i) {
      const auto& [key, mark] = n.keys[i];
      std::string item_where = fmt::format("{}[{}]", where, key);
      if (!ParseDecimalKey(key, max_key)) {
        return Fail(mark, item_where, fmt::format("key {} is not a decimal number up to {}", Quote(key), max_key));
      }
      DRA_RETURN_IF_ERROR(each(n.items[i], item_where));
    }
    return OkStatus();
  }

  Status DeviceObject(const Node& device, const std::string& where) {
    for (const AnswerSpec& spec : kDeviceAnswers) {
      DRA_RETURN_IF_ERROR(OptionalAnswer(device, where, spec.key, spec.fields));
    }
    if (const Node* n = device.Find("nvmlDeviceGetGpuInstanceProfileInfo")) {
      DRA_RETURN_IF_ERROR(Keyed(*n, Join(where, "nvmlDeviceGetGpuInstanceProfileInfo"), UINT32_MAX,
                                [&](const Node& a, const std::string& w) { return Answer(a, w, kGiProfileFields); }));
    }
    if (const Node* n = device.Find("nvmlDeviceGetGpuInstancePossiblePlacements_v2")) {
      DRA_RETURN_IF_ERROR(Keyed(*n, Join(where, "nvmlDeviceGetGpuInstancePossiblePlacements_v2"), UINT32_MAX,
                                [&](const Node& a, const std::string& w) { return Answer(a, w, kPlacementsFields); }));
    }
    if (const Node* n = device.Find("migDevices")) {
      DRA_RETURN_IF_ERROR(Keyed(*n, Join(where, "migDevices"), kMaxHandleField,
                                [&](const Node& mig, const std::string& w) { return MigObject(mig, w); }));
    }
    if (const Node* n = device.Find("gpuInstances")) {
      DRA_RETURN_IF_ERROR(Keyed(*n, Join(where, "gpuInstances"), kMaxHandleField,
                                [&](const Node& gi, const std::string& w) { return GpuInstance(gi, w); }));
    }
    return OkStatus();
  }

  Status GpuInstance(const Node& gi, const std::string& where) {
    if (!gi.is_mapping()) return Fail(gi, where, "must be an object");
    DRA_RETURN_IF_ERROR(OptionalAnswer(gi, where, "nvmlDeviceGetGpuInstanceById", kRetOnly));
    DRA_RETURN_IF_ERROR(OptionalAnswer(gi, where, "nvmlGpuInstanceGetInfo", kInstanceInfoFields));
    if (const Node* n = gi.Find("nvmlGpuInstanceGetComputeInstanceProfileInfo")) {
      std::string w = Join(where, "nvmlGpuInstanceGetComputeInstanceProfileInfo");
      if (!n->is_mapping()) return Fail(*n, w, "must be an object keyed \"<profile>/<engProfile>\"");
      for (size_t i = 0; i < n->keys.size(); ++i) {
        const auto& [key, mark] = n->keys[i];
        std::string item_where = fmt::format("{}[{}]", w, key);
        size_t slash = key.find('/');
        if (slash == std::string::npos || !ParseDecimalKey(std::string_view(key).substr(0, slash), UINT32_MAX) ||
            !ParseDecimalKey(std::string_view(key).substr(slash + 1), UINT32_MAX)) {
          return Fail(mark, item_where, fmt::format("key {} is not \"<profile>/<engProfile>\"", Quote(key)));
        }
        DRA_RETURN_IF_ERROR(Answer(n->items[i], item_where, kCiProfileFields));
      }
    }
    if (const Node* n = gi.Find("computeInstances")) {
      DRA_RETURN_IF_ERROR(Keyed(*n, Join(where, "computeInstances"), kMaxHandleField,
                                [&](const Node& ci, const std::string& w) { return ComputeInstance(ci, w); }));
    }
    return OkStatus();
  }

  // A MIG device's object: the device calls made on its handle.
  Status MigObject(const Node& mig, const std::string& where) {
    if (!mig.is_mapping()) return Fail(mig, where, "must be an object");
    for (const AnswerSpec& spec : kDeviceAnswers) {
      DRA_RETURN_IF_ERROR(OptionalAnswer(mig, where, spec.key, spec.fields));
    }
    return OkStatus();
  }

  Status ComputeInstance(const Node& ci, const std::string& where) {
    if (!ci.is_mapping()) return Fail(ci, where, "must be an object");
    DRA_RETURN_IF_ERROR(OptionalAnswer(ci, where, "nvmlGpuInstanceGetComputeInstanceById", kRetOnly));
    return OptionalAnswer(ci, where, "nvmlComputeInstanceGetInfo_v2", kInstanceInfoFields);
  }

  Status Events(const Node& events) {
    if (!events.is_sequence()) return Fail(events, "events", "must be a list");
    int64_t last_at = 0;
    for (size_t i = 0; i < events.items.size(); ++i) {
      const Node& e = events.items[i];
      std::string where = fmt::format("events[{}]", i);
      DRA_RETURN_IF_ERROR(Answer(e, where, kEventFields));
      const Node* at = e.Find("atMs");
      if (at == nullptr) return Fail(e, where, "\"atMs\" is missing");
      std::optional<int64_t> at_ms = tree::ToInt(*at, 0);
      if (!at_ms) {
        return Fail(*at, where + ".atMs", fmt::format("is {}, expected milliseconds >= 0", Describe(*at)));
      }
      if (*at_ms < last_at) {
        return Fail(*at, where + ".atMs",
                    fmt::format("{} is earlier than the event before ({}); events are in time order", *at_ms, last_at));
      }
      last_at = *at_ms;
    }
    return OkStatus();
  }

  Status StringMap(const Node& n, const std::string& where) {
    if (!n.is_mapping()) return Fail(n, where, "must be an object of strings");
    for (size_t i = 0; i < n.items.size(); ++i) {
      const std::string& key = n.keys[i].first;
      std::string item_where = fmt::format("{}[{}]", where, key);
      if (key.empty() || key.find('/') != std::string::npos || key == "." || key == "..") {
        return Fail(n.keys[i].second, item_where, "a name must be one path element");
      }
      if (n.items[i].kind != NodeKind::kString) {
        return Fail(n.items[i], item_where, fmt::format("is {}, expected a string", Describe(n.items[i])));
      }
    }
    return OkStatus();
  }

  Status Sysfs(const Node& sysfs) {
    if (!sysfs.is_mapping()) return Fail(sysfs, "sysfs", "must be an object keyed by path");
    for (size_t i = 0; i < sysfs.items.size(); ++i) {
      const auto& [key, mark] = sysfs.keys[i];
      std::string where = fmt::format("sysfs[{}]", key);
      if (!IsCleanRelativePath(key)) {
        return Fail(mark, where,
                    "a key must be a path relative to /sys without empty, \".\" or \"..\" "
                    "elements");
      }
      const Node& entry = sysfs.items[i];
      if (!entry.is_mapping()) return Fail(entry, where, "must be an object {link, files, links}");
      if (const Node* link = entry.Find("link")) {
        if (link->kind != NodeKind::kString || link->text.empty()) {
          return Fail(*link, where + ".link", "must be a non-empty string");
        }
      }
      if (const Node* files = entry.Find("files")) {
        DRA_RETURN_IF_ERROR(StringMap(*files, where + ".files"));
      }
      if (const Node* links = entry.Find("links")) {
        DRA_RETURN_IF_ERROR(StringMap(*links, where + ".links"));
      }
    }
    return OkStatus();
  }

  Status Dev(const Node& dev) {
    DRA_RETURN_IF_ERROR(StringList(dev, "dev"));
    for (size_t i = 0; i < dev.items.size(); ++i) {
      if (!IsCleanRelativePath(dev.items[i].text)) {
        return Fail(dev.items[i], fmt::format("dev[{}]", i),
                    fmt::format("{} is not a path relative to /dev", Quote(dev.items[i].text)));
      }
    }
    return OkStatus();
  }

  Status Files(const Node& files) {
    if (!files.is_mapping()) return Fail(files, "files", "must be an object keyed by path");
    for (size_t i = 0; i < files.items.size(); ++i) {
      const auto& [key, mark] = files.keys[i];
      std::string where = fmt::format("files[{}]", key);
      if (key.empty() || key[0] != '/' || !IsCleanRelativePath(std::string_view(key).substr(1))) {
        return Fail(mark, where, "a key must be a clean absolute path");
      }
      if (IsUnder(key, "/sys") || IsUnder(key, "/dev")) {
        return Fail(mark, where, "paths under /sys and /dev belong in \"sysfs\" and \"dev\"");
      }
      if (files.items[i].kind != NodeKind::kString) {
        return Fail(files.items[i], where, fmt::format("is {}, expected a string", Describe(files.items[i])));
      }
    }
    return OkStatus();
  }

  Status StringList(const Node& n, std::string_view where) {
    if (!n.is_sequence()) return Fail(n, where, "must be a list of strings");
    for (size_t i = 0; i < n.items.size(); ++i) {
      if (n.items[i].kind != NodeKind::kString) {
        return Fail(n.items[i], fmt::format("{}[{}]", where, i),
                    fmt::format("is {}, expected a string", Describe(n.items[i])));
      }
    }
    return OkStatus();
  }

  std::string file_;
};

}  // namespace

Recording NewRecording(const RecordingMeta& meta) {
  Node meta_node = Node::Mapping();
  meta_node.Add("dractlVersion", Node::String(meta.dractl_version.empty() ? DRACTL_VERSION : meta.dractl_version));
  if (!meta.recorded_at.empty()) meta_node.Add("recordedAt", Node::String(meta.recorded_at));
  meta_node.Add("nodeName", Node::String(meta.node_name));
  meta_node.Add("euid", Node::Int(meta.euid));
  meta_node.Add("anonymized", Node::Bool(meta.anonymized));
  if (!meta.library.empty()) meta_node.Add("library", Node::String(meta.library));
  if (!meta.nvml_version.empty()) meta_node.Add("nvmlVersion", Node::String(meta.nvml_version));

  Recording recording;
  recording.root = Node::Mapping();
  recording.root.Add("format", Node::String(std::string(kRecordingFormat)));
  recording.root.Add("version", Node::Int(kRecordingVersion));
  recording.root.Add("meta", std::move(meta_node));
  recording.root.Add("missingSymbols", Node::Sequence());
  recording.root.Add("devices", Node::Sequence());
  recording.root.Add("events", Node::Sequence());
  recording.root.Add("sysfs", Node::Mapping());
  recording.root.Add("dev", Node::Sequence());
  recording.root.Add("files", Node::Mapping());
  return recording;
}

StatusOr<Recording> ReadRecording(std::string_view text, std::string_view file_name) {
  DRA_ASSIGN_OR_RETURN(std::vector<manifest::Document> docs, manifest::ParseJson(text, file_name));
  if (docs.size() != 1) {
    return InvalidArgumentError(
        fmt::format("{}: a recording is one JSON object, found {} JSON values", file_name, docs.size()));
  }
  Recording recording{std::move(docs[0].root)};
  DRA_RETURN_IF_ERROR(ValidateRecording(recording, file_name));
  return recording;
}

Status ValidateRecording(const Recording& recording, std::string_view file_name) {
  return Validator(file_name).Document(recording.root);
}

std::string WriteRecording(const Recording& recording) {
  // Top-level sections in RECORDING.md's order, whatever order the backends
  // added them in; keys this version does not know go last.
  static constexpr std::string_view kOrder[] = {"format",
                                                "version",
                                                "meta",
                                                "missingSymbols",
                                                "init",
                                                "nvmlSystemGetDriverVersion",
                                                "nvmlSystemGetCudaDriverVersion",
                                                "nvmlDeviceGetCount_v2",
                                                "devices",
                                                "nvmlEventSetCreate",
                                                "events",
                                                "sysfs",
                                                "dev",
                                                "files"};
  const Node& root = recording.root;
  Node ordered = Node::Mapping();
  if (root.is_mapping()) {
    for (std::string_view key : kOrder) {
      if (const Node* value = root.Find(key)) ordered.Add(std::string(key), *value);
    }
    for (size_t i = 0; i < root.keys.size(); ++i) {
      const std::string& key = root.keys[i].first;
      if (std::find(std::begin(kOrder), std::end(kOrder), key) == std::end(kOrder)) {
        ordered.Add(key, root.items[i]);
      }
    }
  } else {
    ordered = root;
  }
  std::string out = manifest::EmitJson(ordered, 2);
  out.push_back('\n');
  return out;
}

std::string RecordingNodeName(const Recording& recording) {
  const Node* meta = recording.root.Find("meta");
  const Node* name = meta != nullptr ? meta->Find("nodeName") : nullptr;
  if (name == nullptr || name->kind != NodeKind::kString) return "";
  return name->text;
}

}  // namespace dra::discover::nvml
