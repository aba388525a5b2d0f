#include "sched/generate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "base/json_escape.h"
#include "sched/snapshot.h"

namespace dra::sched {
namespace {

constexpr int64_t kMaxNodes = 100'000;
constexpr int64_t kMaxDevicesPerNode = 128;
constexpr int64_t kMaxPods = 1'000'000;

// YAML double-quoted scalar. JSON's escapes are YAML's too, and escaping
// control characters keeps a newline a newline (a raw one in a double-quoted
// scalar folds into a space); DEL is not printable in YAML.
std::string Quote(std::string_view s) { return JsonString(s, {.escape_del = true}); }

Status CheckCount(int64_t value, int64_t max, std::string_view what) {
  if (value < 1 || value > max) {
    return InvalidArgumentError(fmt::format("{} must be between 1 and {}, got {}", what, max, value));
  }
  return OkStatus();
}

// A DeviceClass named `name` whose one selector is `expression`.
std::string DeviceClassDocument(std::string_view name, std::string_view expression) {
  return fmt::format(
      "apiVersion: resource.k8s.io/v1\n"
      "kind: DeviceClass\n"
      "metadata:\n"
      "  name: {}\n"
      "spec:\n"
      "  selectors:\n"
      "  - cel:\n"
      "      expression: {}\n",
      name, Quote(expression));
}

// "---" and a Node with hostname and `label: value` labels, and allocatable
// (= capacity) cpu, memory and pods.
std::string NodeDocument(std::string_view node, std::string_view label, std::string_view value, int64_t cpu_milli,
                         int64_t memory_mib, int64_t pods) {
  return fmt::format(
      "---\n"
      "apiVersion: v1\n"
      "kind: Node\n"
      "metadata:\n"
      "  name: {0}\n"
      "  uid: {1}\n"
      "  labels:\n"
      "    kubernetes.io/hostname: {0}\n"
      "    kubernetes.io/os: linux\n"
      "    {2}: {3}\n"
      "status:\n"
      "  allocatable:\n"
      "    cpu: {4}m\n"
      "    memory: {5}Mi\n"
      "    pods: \"{6}\"\n"
      "  capacity:\n"
      "    cpu: {4}m\n"
      "    memory: {5}Mi\n"
      "    pods: \"{6}\"\n",
      node, StableUid(fmt::format("Node/{}", node)), label, Quote(value), cpu_milli, memory_mib, pods);
}

// "---" and the head of a ResourceSlice of `node`'s pool `node` (one of
// `slices`), up to its last key `field` ("devices" or "sharedCounters").
std::string SliceHead(std::string_view name, std::string_view driver, std::string_view node, int64_t slices,
                      std::string_view field) {
  return fmt::format(
      "---\n"
      "apiVersion: resource.k8s.io/v1\n"
      "kind: ResourceSlice\n"
      "metadata:\n"
      "  name: {0}\n"
      "spec:\n"
      "  driver: {1}\n"
      "  nodeName: {2}\n"
      "  pool:\n"
      "    name: {2}\n"
      "    generation: 1\n"
      "    resourceSliceCount: {3}\n"
      "  {4}:\n",
      name, driver, node, slices, field);
}

// A Pod of one container with cpu and memory requests and one claim:
// `claim` from `source` ("resourceClaimTemplateName" or
// "resourceClaimName") `name`. `extra_metadata` is inserted after
// creationTimestamp (whole lines).
std::string PodDocument(std::string_view pod, std::string_view ns, std::string_view created,
                        std::string_view extra_metadata, int64_t cpu_milli, int64_t memory_mib, std::string_view claim,
                        std::string_view source, std::string_view name) {
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Pod\n"
      "metadata:\n"
      "  name: {0}\n"
      "  namespace: {1}\n"
      "  uid: {2}\n"
      "  creationTimestamp: \"{3}\"\n"
      "{4}"
      "spec:\n"
      "  containers:\n"
      "  - name: main\n"
      "    image: registry.k8s.io/pause:3.10\n"
      "    resources:\n"
      "      requests:\n"
      "        cpu: {5}m\n"
      "        memory: {6}Mi\n"
      "      claims:\n"
      "      - name: {7}\n"
      "  resourceClaims:\n"
      "  - name: {7}\n"
      "    {8}: {9}\n",
      pod, ns, StableUid(fmt::format("Pod/{}/{}", ns, pod)), created, extra_metadata, cpu_milli, memory_mib, claim,
      source, name);
}

}  // namespace

StatusOr<std::vector<GpuModel>> ParseModels(std::string_view text) {
  std::vector<GpuModel> models;
  if (text.empty()) return InvalidArgumentError("no models given");
  for (bool more = true; more;) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    more = comma != std::string_view::npos;
    text = more ? text.substr(comma + 1) : std::string_view();
    size_t colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return InvalidArgumentError(fmt::format("model \"{}\": want NAME:MEMORY, e.g. H100-80GB:80Gi", item));
    }
    std::string_view name = item.substr(0, colon);
    std::string_view memory = item.substr(colon + 1);
    int64_t factor = 0;
    if (memory.ends_with("Mi")) factor = 1;
    if (memory.ends_with("Gi")) factor = 1024;
    if (memory.ends_with("Ti")) factor = 1024 * 1024;
    int64_t amount = 0;
    std::string_view digits = memory.substr(0, memory.size() >= 2 ? memory.size() - 2 : 0);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), amount);
    if (factor == 0 || digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || amount < 1 ||
        amount > (int64_t{1} << 40) / factor) {
      return InvalidArgumentError(
          fmt::format("model \"{}\": memory \"{}\" is not a whole number of Mi, Gi or Ti", item, memory));
    }
    for (char c : name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) {
        return InvalidArgumentError(fmt::format("model \"{}\": a name holds letters, digits, '-', '.' and '_'", item));
      }
    }
    models.push_back(GpuModel{.name = std::string(name), .memory_mib = amount * factor});
  }
  if (models.empty()) return InvalidArgumentError("no models given");
  return models;
}

StatusOr<std::string> GenerateCluster(const ClusterShape& shape) {
  if (Status st = CheckCount(shape.nodes, kMaxNodes, "nodes"); !st.ok()) return st;
  if (Status st = CheckCount(shape.devices_per_node, kMaxDevicesPerNode, "devices per node"); !st.ok()) return st;
  if (shape.models.empty()) return InvalidArgumentError("no models given");
  std::string out;
  out.reserve(static_cast<size_t>(shape.nodes) * (800 + 520 * static_cast<size_t>(shape.devices_per_node)));
  out += DeviceClassDocument(shape.device_class, fmt::format("device.driver == \"{}\"", shape.driver));
  const int width = shape.nodes < 10'000 ? 4 : 6;
  for (int64_t n = 0; n < shape.nodes; ++n) {
    const std::string node = fmt::format("{}-{:0{}d}", shape.node_prefix, n, width);
    const GpuModel& model = shape.models[static_cast<size_t>(n) % shape.models.size()];
    out += NodeDocument(node, "gpu.example.com/model", model.name, shape.node_cpu_milli, shape.node_memory_mib,
                        shape.node_pods);
    out += SliceHead(fmt::format("{}-{}", node, shape.driver), shape.driver, node, 1, "devices");
    for (int64_t d = 0; d < shape.devices_per_node; ++d) {
      out += fmt::format(
          "  - name: gpu-{0}\n"
          "    attributes:\n"
          "      index:\n"
          "        int: {0}\n"
          "      productName:\n"
          "        string: {1}\n"
          "      architecture:\n"
          "        string: Generic\n"
          "      driverVersion:\n"
          "        version: 1.2.3\n"
          "      uuid:\n"
          "        string: GPU-{2}\n"
          "      resource.kubernetes.io/pcieRoot:\n"
          "        string: pci0000:{3:02x}\n"
          "    capacity:\n"
          "      memory:\n"
          "        value: {4}Mi\n",
          d, Quote(model.name), StableUid(fmt::format("{}/gpu-{}", node, d)), d / 2, model.memory_mib);
    }
  }
  return out;
}

StatusOr<std::string> GeneratePods(const PodShape& shape) {
  if (Status st = CheckCount(shape.pods, kMaxPods, "pods"); !st.ok()) return st;
  if (Status st = CheckCount(shape.devices_per_pod, 32, "devices per pod"); !st.ok()) return st;
  std::string out;
  out.reserve(static_cast<size_t>(shape.pods) * 900);
  auto claim_spec = [&](std::string_view indent) {
    std::string s = fmt::format(
        "{0}devices:\n"
        "{0}  requests:\n"
        "{0}  - name: gpu\n"
        "{0}    exactly:\n"
        "{0}      deviceClassName: {1}\n"
        "{0}      allocationMode: ExactCount\n"
        "{0}      count: {2}\n",
        indent, shape.device_class, shape.devices_per_pod);
    if (!shape.selector.empty()) {
      s += fmt::format(
          "{0}      selectors:\n"
          "{0}      - cel:\n"
          "{0}          expression: {1}\n",
          indent, Quote(shape.selector));
    }
    return s;
  };
  const std::string tmpl = shape.name_prefix + "-gpu";
  if (!shape.claim_per_pod) {
    out += fmt::format(
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaimTemplate\n"
        "metadata:\n"
        "  name: {}\n"
        "  namespace: {}\n"
        "spec:\n"
        "  spec:\n"
        "{}",
        tmpl, shape.namespace_, claim_spec("    "));
  }
  const int width = shape.pods < 100'000 ? 5 : 7;
  for (int64_t p = 0; p < shape.pods; ++p) {
    const std::string pod = fmt::format("{}-{:0{}d}", shape.name_prefix, p, width);
    // One second apart from 2026-01-01T00:00:00Z.
    const int64_t t = p;
    const std::string created = fmt::format("2026-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", 1 + t / (28 * 86400),
                                            1 + (t / 86400) % 28, (t / 3600) % 24, (t / 60) % 60, t % 60);
    if (!out.empty()) out += "---\n";
    if (shape.claim_per_pod) {
      out += fmt::format(
          "apiVersion: resource.k8s.io/v1\n"
          "kind: ResourceClaim\n"
          "metadata:\n"
          "  name: {}-gpu\n"
          "  namespace: {}\n"
          "spec:\n"
          "{}"
          "---\n",
          pod, shape.namespace_, claim_spec("  "));
    }
    out += PodDocument(pod, shape.namespace_, created, "", shape.cpu_milli, shape.memory_mib, "gpu",
                       shape.claim_per_pod ? "resourceClaimName" : "resourceClaimTemplateName",
                       shape.claim_per_pod ? pod + "-gpu" : tmpl);
  }
  return out;
}

namespace {

// One MIG profile of a model: compute slices, memory per instance and the
// memory-slice placements (first slice, slices taken).
struct MigProfile {
  int64_t compute = 0;
  std::string name;
  int64_t sms = 0;
  int64_t memory_slices = 0;
  std::vector<int64_t> starts;
};

std::optional<std::vector<MigProfile>> MigProfiles(std::string_view model) {
  // Placements and SM counts as NVIDIA documents them for the A100-40GB and
  // H100-80GB (MIG user guide, "Supported MIG profiles").
  if (model == "A100-40GB") {
    return std::vector<MigProfile>{{1, "1g.5gb", 14, 1, {0, 1, 2, 3, 4, 5, 6}},
                                   {2, "2g.10gb", 28, 2, {0, 2, 4}},
                                   {3, "3g.20gb", 42, 4, {0, 4}},
                                   {4, "4g.20gb", 56, 4, {0}},
                                   {7, "7g.40gb", 98, 8, {0}}};
  }
  if (model == "H100-80GB") {
    return std::vector<MigProfile>{{1, "1g.10gb", 16, 1, {0, 1, 2, 3, 4, 5, 6}},
                                   {2, "2g.20gb", 32, 2, {0, 2, 4}},
                                   {3, "3g.40gb", 60, 4, {0, 4}},
                                   {4, "4g.40gb", 64, 4, {0}},
                                   {7, "7g.80gb", 132, 8, {0}}};
  }
  return std::nullopt;
}

int64_t TotalSms(const std::vector<MigProfile>& profiles) { return profiles.back().sms; }

// Profile "3g.20gb" -> "3g20gb" (device names).
std::string Compact(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '.') out.push_back(c);
  }
  return out;
}

// SplitMix64 (sched/ does not use sim/'s generator).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string Timestamp(int64_t t) {
  return fmt::format("2026-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", 1 + t / (28 * 86400), 1 + (t / 86400) % 28,
                     (t / 3600) % 24, (t / 60) % 60, t % 60);
}

constexpr char kMigDriver[] = "gpu.nvidia.com";
constexpr char kMigClass[] = "mig.nvidia.com";

}  // namespace

StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseMigMix(std::string_view text) {
  std::vector<std::pair<int64_t, int64_t>> mix;
  for (bool more = !text.empty(); more;) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    more = comma != std::string_view::npos;
    text = more ? text.substr(comma + 1) : std::string_view();
    size_t colon = item.find(':');
    int64_t size = 0, weight = 0;
    bool ok = colon != std::string_view::npos;
    if (ok) {
      auto [e1, ec1] = std::from_chars(item.data(), item.data() + colon, size);
      auto [e2, ec2] = std::from_chars(item.data() + colon + 1, item.data() + item.size(), weight);
      ok = ec1 == std::errc() && e1 == item.data() + colon && ec2 == std::errc() && e2 == item.data() + item.size();
    }
    if (!ok || (size != 1 && size != 2 && size != 3 && size != 4 && size != 7) || weight < 1) {
      return InvalidArgumentError(
          fmt::format("mix entry \"{}\": want SLICES:WEIGHT with SLICES 1, 2, 3, 4 or 7 and WEIGHT >= 1", item));
    }
    mix.emplace_back(size, weight);
  }
  if (mix.empty()) return InvalidArgumentError("empty mix");
  return mix;
}

StatusOr<std::string> GenerateMigCluster(const MigClusterShape& shape) {
  if (Status st = CheckCount(shape.nodes, kMaxNodes, "nodes"); !st.ok()) return st;
  if (Status st = CheckCount(shape.gpus_per_node, 16, "GPUs per node"); !st.ok()) return st;
  std::optional<std::vector<MigProfile>> profiles = MigProfiles(shape.model);
  if (!profiles) return InvalidArgumentError(fmt::format("unknown model \"{}\" (A100-40GB or H100-80GB)", shape.model));
  std::string out = DeviceClassDocument(
      kMigClass,
      fmt::format("device.driver == \"{}\" && \"profile\" in device.attributes[\"{}\"]", kMigDriver, kMigDriver));
  const int width = shape.nodes < 10'000 ? 4 : 6;
  for (int64_t n = 0; n < shape.nodes; ++n) {
    const std::string node = fmt::format("{}-{:0{}d}", shape.node_prefix, n, width);
    out += NodeDocument(node, "nvidia.com/gpu.product", shape.model, shape.node_cpu_milli, shape.node_memory_mib,
                        shape.node_pods);
    out += SliceHead(node + "-counters", kMigDriver, node, shape.gpus_per_node + 1, "sharedCounters");
    for (int64_t g = 0; g < shape.gpus_per_node; ++g) {
      out += fmt::format("  - name: gpu-{}-counter-set\n    counters:\n      multiprocessors: {{value: \"{}\"}}\n", g,
                         TotalSms(*profiles));
      for (int k = 0; k < 8; ++k) out += fmt::format("      memory-slice-{}: {{value: \"1\"}}\n", k);
    }
    for (int64_t g = 0; g < shape.gpus_per_node; ++g) {
      out += SliceHead(fmt::format("{}-gpu-{}", node, g), kMigDriver, node, shape.gpus_per_node + 1, "devices");
      for (const MigProfile& p : *profiles) {
        for (int64_t start : p.starts) {
          out += fmt::format(
              "  - name: gpu-{0}-mig-{1}-{2}\n"
              "    attributes:\n"
              "      profile: {{string: {3}}}\n"
              "      computeSlices: {{int: {4}}}\n"
              "      parentIndex: {{int: {0}}}\n"
              "      placementStart: {{int: {2}}}\n"
              "    consumesCounters:\n"
              "    - counterSet: gpu-{0}-counter-set\n"
              "      counters:\n"
              "        multiprocessors: {{value: \"{5}\"}}\n",
              g, Compact(p.name), start, Quote(p.name), p.compute, p.sms);
          for (int64_t k = start; k < start + p.memory_slices; ++k) {
            out += fmt::format("        memory-slice-{}: {{value: \"1\"}}\n", k);
          }
        }
      }
    }
  }
  return out;
}

StatusOr<std::string> GenerateMigPods(const MigPodShape& shape) {
  if (Status st = CheckCount(shape.pods, kMaxPods, "pods"); !st.ok()) return st;
  std::optional<std::vector<MigProfile>> profiles = MigProfiles(shape.model);
  if (!profiles) return InvalidArgumentError(fmt::format("unknown model \"{}\" (A100-40GB or H100-80GB)", shape.model));
  if (shape.mix.empty()) return InvalidArgumentError("empty mix");
  if (shape.interval_seconds < 0 || shape.lifetime_seconds < 0) {
    return InvalidArgumentError("interval and lifetime must not be negative");
  }
  auto profile_of = [&](int64_t compute) -> const MigProfile* {
    for (const MigProfile& p : *profiles) {
      if (p.compute == compute) return &p;
    }
    return nullptr;
  };
  int64_t total_weight = 0;
  for (const auto& [size, weight] : shape.mix) {
    if (profile_of(size) == nullptr || weight < 1) {
      return InvalidArgumentError(fmt::format("mix: no {}g profile or weight {} < 1", size, weight));
    }
    total_weight += weight;
  }
  std::string out;
  for (const auto& [size, weight] : shape.mix) {
    const MigProfile& p = *profile_of(size);
    if (!out.empty()) out += "---\n";
    out += fmt::format(
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaimTemplate\n"
        "metadata:\n"
        "  name: {0}-{1}\n"
        "  namespace: {2}\n"
        "spec:\n"
        "  spec:\n"
        "    devices:\n"
        "      requests:\n"
        "      - name: mig\n"
        "        exactly:\n"
        "          deviceClassName: {3}\n"
        "          selectors:\n"
        "          - cel:\n"
        "              expression: {4}\n",
        shape.name_prefix, Compact(p.name), shape.namespace_, kMigClass,
        Quote(fmt::format("device.attributes[\"{}\"].profile == \"{}\"", kMigDriver, p.name)));
  }
  uint64_t state = shape.seed;
  const int width = shape.pods < 100'000 ? 5 : 7;
  for (int64_t i = 0; i < shape.pods; ++i) {
    int64_t draw = static_cast<int64_t>(NextRandom(state) % static_cast<uint64_t>(total_weight));
    const MigProfile* p = nullptr;
    for (const auto& [size, weight] : shape.mix) {
      if (draw < weight) {
        p = profile_of(size);
        break;
      }
      draw -= weight;
    }
    const std::string pod = fmt::format("{}-{:0{}d}", shape.name_prefix, i, width);
    const int64_t created = i * shape.interval_seconds;
    std::string deleted;
    if (shape.lifetime_seconds > 0) {
      const int64_t life = shape.lifetime_seconds / 2 +
                           static_cast<int64_t>(NextRandom(state) % static_cast<uint64_t>(shape.lifetime_seconds + 1));
      deleted = fmt::format("  deletionTimestamp: \"{}\"\n", Timestamp(created + std::max<int64_t>(life, 1)));
    }
    out += "---\n";
    out += PodDocument(pod, shape.namespace_, Timestamp(created), deleted, shape.cpu_milli, shape.memory_mib, "mig",
                       "resourceClaimTemplateName", fmt::format("{}-{}", shape.name_prefix, Compact(p->name)));
  }
  return out;
}

}  // namespace dra::sched
