#include "sched/generate.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "sched/snapshot.h"

namespace dra::sched {
namespace {

constexpr int64_t kMaxNodes = 100'000;
constexpr int64_t kMaxDevicesPerNode = 128;
constexpr int64_t kMaxPods = 1'000'000;

// YAML double-quoted scalar.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

Status CheckCount(int64_t value, int64_t max, std::string_view what) {
  if (value < 1 || value > max) {
    return InvalidArgumentError(fmt::format("{} must be between 1 and {}, got {}", what, max, value));
  }
  return OkStatus();
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
  out += fmt::format(
      "apiVersion: resource.k8s.io/v1\n"
      "kind: DeviceClass\n"
      "metadata:\n"
      "  name: {}\n"
      "spec:\n"
      "  selectors:\n"
      "  - cel:\n"
      "      expression: {}\n",
      shape.device_class, Quote(fmt::format("device.driver == \"{}\"", shape.driver)));
  const int width = shape.nodes < 10'000 ? 4 : 6;
  for (int64_t n = 0; n < shape.nodes; ++n) {
    const std::string node = fmt::format("{}-{:0{}d}", shape.node_prefix, n, width);
    const GpuModel& model = shape.models[static_cast<size_t>(n) % shape.models.size()];
    out += fmt::format(
        "---\n"
        "apiVersion: v1\n"
        "kind: Node\n"
        "metadata:\n"
        "  name: {0}\n"
        "  uid: {1}\n"
        "  labels:\n"
        "    kubernetes.io/hostname: {0}\n"
        "    kubernetes.io/os: linux\n"
        "    gpu.example.com/model: {2}\n"
        "status:\n"
        "  allocatable:\n"
        "    cpu: {3}m\n"
        "    memory: {4}Mi\n"
        "    pods: \"{5}\"\n"
        "  capacity:\n"
        "    cpu: {3}m\n"
        "    memory: {4}Mi\n"
        "    pods: \"{5}\"\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceSlice\n"
        "metadata:\n"
        "  name: {0}-{6}\n"
        "spec:\n"
        "  driver: {6}\n"
        "  nodeName: {0}\n"
        "  pool:\n"
        "    name: {0}\n"
        "    generation: 1\n"
        "    resourceSliceCount: 1\n"
        "  devices:\n",
        node, StableUid("Node/" + node), Quote(model.name), shape.node_cpu_milli,
        shape.node_memory_mib, shape.node_pods, shape.driver);
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
    out += fmt::format(
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  name: {0}\n"
        "  namespace: {1}\n"
        "  uid: {2}\n"
        "  creationTimestamp: \"{3}\"\n"
        "spec:\n"
        "  containers:\n"
        "  - name: main\n"
        "    image: registry.k8s.io/pause:3.10\n"
        "    resources:\n"
        "      requests:\n"
        "        cpu: {4}m\n"
        "        memory: {5}Mi\n"
        "      claims:\n"
        "      - name: gpu\n"
        "  resourceClaims:\n"
        "  - name: gpu\n"
        "    {6}: {7}\n",
        pod, shape.namespace_, StableUid(fmt::format("Pod/{}/{}", shape.namespace_, pod)), created, shape.cpu_milli,
        shape.memory_mib, shape.claim_per_pod ? "resourceClaimName" : "resourceClaimTemplateName",
        shape.claim_per_pod ? pod + "-gpu" : tmpl);
  }
  return out;
}

}  // namespace dra::sched
