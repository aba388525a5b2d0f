#include "sched/generate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "manifest/emit.h"
#include "manifest/node.h"
#include "sched/snapshot.h"

namespace dra::sched {
namespace {

constexpr int64_t kMaxNodes = 100'000;
constexpr int64_t kMaxDevicesPerNode = 128;
constexpr int64_t kMaxPods = 1'000'000;

Status CheckCount(int64_t value, int64_t max, std::string_view what) {
  if (value < 1 || value > max) {
    return InvalidArgumentError(fmt::format("{} must be between 1 and {}, got {}", what, max, value));
  }
  return OkStatus();
}

using manifest::Node;

// `t` seconds after 2026-01-01T00:00:00Z, in 28-day months.
std::string Timestamp(int64_t t) {
  return fmt::format("2026-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", 1 + t / (28 * 86400), 1 + (t / 86400) % 28,
                     (t / 3600) % 24, (t / 60) % 60, t % 60);
}

// Tree builders: the documents are manifest::Node trees printed by the
// emitter, one document at a time. Strings the emitter would print plain
// are Str; Quoted keeps the double quotes (and one line) of the layout gen
// has always written, where kubectl would choose another style.
Node Str(std::string s) { return Node::String(std::move(s)); }
Node Quoted(std::string s) { return Node::QuotedString(std::move(s)); }

void AddPairs(Node& /*mapping*/) {}
template <typename... Rest>
void AddPairs(Node& mapping, std::string_view key, Node value, Rest&&... rest) {
  mapping.Add(std::string(key), std::move(value));
  AddPairs(mapping, std::forward<Rest>(rest)...);
}

// A mapping of `key, value, key, value, ...`, in this order.
template <typename... Args>
Node Map(Args&&... args) {
  static_assert(sizeof...(Args) % 2 == 0, "key, value pairs");
  Node m = Node::Mapping();
  m.keys.reserve(sizeof...(Args) / 2);
  m.items.reserve(sizeof...(Args) / 2);
  AddPairs(m, std::forward<Args>(args)...);
  return m;
}

// Map in flow style: `{key: value}` on one line.
template <typename... Args>
Node FlowMap(Args&&... args) {
  Node m = Map(std::forward<Args>(args)...);
  m.style = manifest::NodeStyle::kFlow;
  return m;
}

template <typename... Items>
Node Seq(Items&&... items) {
  Node s = Node::Sequence();
  s.items.reserve(sizeof...(Items));
  (s.Push(std::forward<Items>(items)), ...);
  return s;
}

// Appends "---" (unless `out` is empty) and the document `root`.
void AppendDocument(const Node& root, std::string& out) {
  if (!out.empty()) out += "---\n";
  manifest::AppendYaml(root, out);
}

// A DeviceClass named `name` whose one selector is `expression`.
Node DeviceClassDocument(std::string name, std::string expression) {
  return Map("apiVersion", Str("resource.k8s.io/v1"), "kind", Str("DeviceClass"), "metadata",
             Map("name", Str(std::move(name))), "spec",
             Map("selectors", Seq(Map("cel", Map("expression", Quoted(std::move(expression)))))));
}

// Nodes, slices and pods differ between objects in a few leaves only
// (names, uids, timestamps): a generator builds each kind of document once
// and rewrites those per object (RenameNode, RenameSlice, RenamePod), as
// building and freeing a tree per object took most of its time.

// A Node with hostname and `label` labels, and allocatable (= capacity)
// cpu, memory and pods; its name, uid and label values are left empty for
// RenameNode.
Node NodeDocument(std::string_view label, int64_t cpu_milli, int64_t memory_mib, int64_t pods) {
  Node resources = Map("cpu", Str(fmt::format("{}m", cpu_milli)), "memory", Str(fmt::format("{}Mi", memory_mib)),
                       "pods", Quoted(std::to_string(pods)));
  Node capacity = resources;
  return Map("apiVersion", Str("v1"), "kind", Str("Node"), "metadata",
             Map("name", Str(""), "uid", Str(""), "labels",
                 Map("kubernetes.io/hostname", Str(""), "kubernetes.io/os", Str("linux"), label, Quoted(""))),
             "status", Map("allocatable", std::move(resources), "capacity", std::move(capacity)));
}

// The node `node` whose `label` (NodeDocument's) is `value`.
void RenameNode(Node& doc, const std::string& node, std::string_view label, std::string value) {
  Node& metadata = *doc.Find("metadata");
  metadata.Find("name")->text = node;
  metadata.Find("uid")->text = StableUid(fmt::format("Node/{}", node));
  Node& labels = *metadata.Find("labels");
  labels.Find("kubernetes.io/hostname")->text = node;
  labels.Find(label)->text = std::move(value);
}

// A ResourceSlice of a node's pool (one of `slices`) whose last key `field`
// ("devices" or "sharedCounters") holds `list`; its name, node and pool are
// left empty for RenameSlice.
Node SliceDocument(std::string_view driver, int64_t slices, std::string_view field, Node list) {
  return Map("apiVersion", Str("resource.k8s.io/v1"), "kind", Str("ResourceSlice"), "metadata", Map("name", Str("")),
             "spec",
             Map("driver", Str(std::string(driver)), "nodeName", Str(""), "pool",
                 Map("name", Str(""), "generation", Node::Int(1), "resourceSliceCount", Node::Int(slices)), field,
                 std::move(list)));
}

// The slice `name` of `node`'s pool `node`.
void RenameSlice(Node& slice, std::string name, const std::string& node) {
  slice.Find("metadata")->Find("name")->text = std::move(name);
  Node& spec = *slice.Find("spec");
  spec.Find("nodeName")->text = node;
  spec.Find("pool")->Find("name")->text = node;
}

// A Pod in `ns` of one container with cpu and memory requests and one
// claim: `claim` from `source` ("resourceClaimTemplateName" or
// "resourceClaimName"), with a deletionTimestamp if `deleted`. Its name,
// uid, timestamps and claim source are left empty for RenamePod.
Node PodDocument(const std::string& ns, bool deleted, int64_t cpu_milli, int64_t memory_mib, std::string_view claim,
                 std::string_view source) {
  Node metadata = Map("name", Str(""), "namespace", Str(ns), "uid", Str(""), "creationTimestamp", Quoted(""));
  if (deleted) metadata.Add("deletionTimestamp", Quoted(""));
  return Map(
      "apiVersion", Str("v1"), "kind", Str("Pod"), "metadata", std::move(metadata), "spec",
      Map("containers",
          Seq(Map("name", Str("main"), "image", Str("registry.k8s.io/pause:3.10"), "resources",
                  Map("requests",
                      Map("cpu", Str(fmt::format("{}m", cpu_milli)), "memory", Str(fmt::format("{}Mi", memory_mib))),
                      "claims", Seq(Map("name", Str(std::string(claim))))))),
          "resourceClaims", Seq(Map("name", Str(std::string(claim)), source, Str("")))));
}

// The pod `pod` of a PodDocument in `ns` with `source`, created at
// `created`, deleted at `deleted` (if it has a deletionTimestamp), whose
// claim comes from `name`.
void RenamePod(Node& doc, std::string pod, const std::string& ns, std::string created, std::string deleted,
               std::string_view source, std::string name) {
  Node& metadata = *doc.Find("metadata");
  metadata.Find("uid")->text = StableUid(fmt::format("Pod/{}/{}", ns, pod));
  metadata.Find("name")->text = std::move(pod);
  metadata.Find("creationTimestamp")->text = std::move(created);
  if (!deleted.empty()) metadata.Find("deletionTimestamp")->text = std::move(deleted);
  doc.Find("spec")->Find("resourceClaims")->items[0].Find(source)->text = std::move(name);
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
  AppendDocument(DeviceClassDocument(shape.device_class, fmt::format("device.driver == \"{}\"", shape.driver)), out);
  constexpr std::string_view kModelLabel = "gpu.example.com/model";
  Node node_doc = NodeDocument(kModelLabel, shape.node_cpu_milli, shape.node_memory_mib, shape.node_pods);
  const int width = shape.nodes < 10'000 ? 4 : 6;
  std::vector<Node> slices(shape.models.size());
  for (int64_t n = 0; n < shape.nodes; ++n) {
    const std::string node = fmt::format("{}-{:0{}d}", shape.node_prefix, n, width);
    const GpuModel& model = shape.models[static_cast<size_t>(n) % shape.models.size()];
    RenameNode(node_doc, node, kModelLabel, model.name);
    AppendDocument(node_doc, out);
    // Nodes of one model have the same slice but for its names and the
    // devices' uuids.
    Node& slice = slices[static_cast<size_t>(n) % shape.models.size()];
    if (slice.is_null()) {
      Node devices = Node::Sequence();
      devices.items.reserve(static_cast<size_t>(shape.devices_per_node));
      for (int64_t d = 0; d < shape.devices_per_node; ++d) {
        devices.Push(
            Map("name", Str(fmt::format("gpu-{}", d)), "attributes",
                Map("index", Map("int", Node::Int(d)), "productName", Map("string", Quoted(model.name)), "architecture",
                    Map("string", Str("Generic")), "driverVersion", Map("version", Str("1.2.3")), "uuid",
                    Map("string", Str("")), "resource.kubernetes.io/pcieRoot",
                    Map("string", Str(fmt::format("pci0000:{:02x}", d / 2)))),
                "capacity", Map("memory", Map("value", Str(fmt::format("{}Mi", model.memory_mib))))));
      }
      slice = SliceDocument(shape.driver, 1, "devices", std::move(devices));
    }
    RenameSlice(slice, fmt::format("{}-{}", node, shape.driver), node);
    std::vector<Node>& devices = slice.Find("spec")->Find("devices")->items;
    for (size_t d = 0; d < devices.size(); ++d) {
      devices[d].Find("attributes")->Find("uuid")->Find("string")->text =
          "GPU-" + StableUid(fmt::format("{}/gpu-{}", node, d));
    }
    AppendDocument(slice, out);
  }
  return out;
}

StatusOr<std::string> GeneratePods(const PodShape& shape) {
  if (Status st = CheckCount(shape.pods, kMaxPods, "pods"); !st.ok()) return st;
  if (Status st = CheckCount(shape.devices_per_pod, 32, "devices per pod"); !st.ok()) return st;
  std::string out;
  out.reserve(static_cast<size_t>(shape.pods) * 900);
  // The claim's spec, the same in a template and in a claim.
  Node exactly = Map("deviceClassName", Str(shape.device_class), "allocationMode", Str("ExactCount"), "count",
                     Node::Int(shape.devices_per_pod));
  if (!shape.selector.empty()) exactly.Add("selectors", Seq(Map("cel", Map("expression", Quoted(shape.selector)))));
  const Node claim_spec = Map("devices", Map("requests", Seq(Map("name", Str("gpu"), "exactly", std::move(exactly)))));
  const std::string tmpl = shape.name_prefix + "-gpu";
  if (!shape.claim_per_pod) {
    AppendDocument(Map("apiVersion", Str("resource.k8s.io/v1"), "kind", Str("ResourceClaimTemplate"), "metadata",
                       Map("name", Str(tmpl), "namespace", Str(shape.namespace_)), "spec", Map("spec", claim_spec)),
                   out);
  }
  // Built once; per pod, the claim's name and RenamePod's leaves change.
  Node claim = Map("apiVersion", Str("resource.k8s.io/v1"), "kind", Str("ResourceClaim"), "metadata",
                   Map("name", Str(""), "namespace", Str(shape.namespace_)), "spec", claim_spec);
  const std::string_view source = shape.claim_per_pod ? "resourceClaimName" : "resourceClaimTemplateName";
  Node pod_doc = PodDocument(shape.namespace_, false, shape.cpu_milli, shape.memory_mib, "gpu", source);
  const int width = shape.pods < 100'000 ? 5 : 7;
  for (int64_t p = 0; p < shape.pods; ++p) {
    std::string pod = fmt::format("{}-{:0{}d}", shape.name_prefix, p, width);
    if (shape.claim_per_pod) {
      claim.Find("metadata")->Find("name")->text = pod + "-gpu";
      AppendDocument(claim, out);
    }
    // One second apart from 2026-01-01T00:00:00Z.
    std::string claim_name = shape.claim_per_pod ? pod + "-gpu" : tmpl;
    RenamePod(pod_doc, std::move(pod), shape.namespace_, Timestamp(p), "", source, std::move(claim_name));
    AppendDocument(pod_doc, out);
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
  std::string out;
  std::string selector =
      fmt::format("device.driver == \"{}\" && \"profile\" in device.attributes[\"{}\"]", kMigDriver, kMigDriver);
  AppendDocument(DeviceClassDocument(kMigClass, std::move(selector)), out);
  // {value: "N"}, as counters are written.
  auto counter = [](int64_t value) { return FlowMap("value", Quoted(std::to_string(value))); };
  // Every node has the same slices but for their names.
  Node counter_sets = Node::Sequence();
  for (int64_t g = 0; g < shape.gpus_per_node; ++g) {
    Node counters = Map("multiprocessors", counter(TotalSms(*profiles)));
    for (int k = 0; k < 8; ++k) counters.Add(fmt::format("memory-slice-{}", k), counter(1));
    counter_sets.Push(Map("name", Str(fmt::format("gpu-{}-counter-set", g)), "counters", std::move(counters)));
  }
  Node counter_slice = SliceDocument(kMigDriver, shape.gpus_per_node + 1, "sharedCounters", std::move(counter_sets));
  std::vector<Node> gpu_slices;
  for (int64_t g = 0; g < shape.gpus_per_node; ++g) {
    Node devices = Node::Sequence();
    for (const MigProfile& p : *profiles) {
      for (int64_t start : p.starts) {
        Node counters = Map("multiprocessors", counter(p.sms));
        for (int64_t k = start; k < start + p.memory_slices; ++k) {
          counters.Add(fmt::format("memory-slice-{}", k), counter(1));
        }
        devices.Push(
            Map("name", Str(fmt::format("gpu-{}-mig-{}-{}", g, Compact(p.name), start)), "attributes",
                Map("profile", FlowMap("string", Quoted(p.name)), "computeSlices", FlowMap("int", Node::Int(p.compute)),
                    "parentIndex", FlowMap("int", Node::Int(g)), "placementStart", FlowMap("int", Node::Int(start))),
                "consumesCounters",
                Seq(Map("counterSet", Str(fmt::format("gpu-{}-counter-set", g)), "counters", std::move(counters)))));
      }
    }
    gpu_slices.push_back(SliceDocument(kMigDriver, shape.gpus_per_node + 1, "devices", std::move(devices)));
  }
  constexpr std::string_view kProductLabel = "nvidia.com/gpu.product";
  Node node_doc = NodeDocument(kProductLabel, shape.node_cpu_milli, shape.node_memory_mib, shape.node_pods);
  const int width = shape.nodes < 10'000 ? 4 : 6;
  for (int64_t n = 0; n < shape.nodes; ++n) {
    const std::string node = fmt::format("{}-{:0{}d}", shape.node_prefix, n, width);
    RenameNode(node_doc, node, kProductLabel, shape.model);
    AppendDocument(node_doc, out);
    RenameSlice(counter_slice, node + "-counters", node);
    AppendDocument(counter_slice, out);
    for (size_t g = 0; g < gpu_slices.size(); ++g) {
      RenameSlice(gpu_slices[g], fmt::format("{}-gpu-{}", node, g), node);
      AppendDocument(gpu_slices[g], out);
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
    Node exactly = Map(
        "deviceClassName", Str(kMigClass), "selectors",
        Seq(Map("cel", Map("expression",
                           Quoted(fmt::format("device.attributes[\"{}\"].profile == \"{}\"", kMigDriver, p.name))))));
    AppendDocument(
        Map("apiVersion", Str("resource.k8s.io/v1"), "kind", Str("ResourceClaimTemplate"), "metadata",
            Map("name", Str(fmt::format("{}-{}", shape.name_prefix, Compact(p.name))), "namespace",
                Str(shape.namespace_)),
            "spec",
            Map("spec", Map("devices", Map("requests", Seq(Map("name", Str("mig"), "exactly", std::move(exactly))))))),
        out);
  }
  // Built once, renamed per pod (RenamePod); deleted iff pods have a lifetime.
  Node pod_doc = PodDocument(shape.namespace_, shape.lifetime_seconds > 0, shape.cpu_milli, shape.memory_mib, "mig",
                             "resourceClaimTemplateName");
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
    const int64_t created = i * shape.interval_seconds;
    std::string deleted;
    if (shape.lifetime_seconds > 0) {
      const int64_t life = shape.lifetime_seconds / 2 +
                           static_cast<int64_t>(NextRandom(state) % static_cast<uint64_t>(shape.lifetime_seconds + 1));
      deleted = Timestamp(created + std::max<int64_t>(life, 1));
    }
    RenamePod(pod_doc, fmt::format("{}-{:0{}d}", shape.name_prefix, i, width), shape.namespace_, Timestamp(created),
              std::move(deleted), "resourceClaimTemplateName",
              fmt::format("{}-{}", shape.name_prefix, Compact(p->name)));
    AppendDocument(pod_doc, out);
  }
  return out;
}

}  // namespace dra::sched
