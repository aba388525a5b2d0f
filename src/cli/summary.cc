// dractl summary: what a cluster dump holds — nodes, devices per driver and
// model, device classes, claims, templates and pods.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/allocated_state.h"
#include "alloc/taint_rules.h"
#include "api/object.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "manifest/emit.h"

namespace dra::cli {
namespace {

// The attribute that names a device's model, per driver convention: NVIDIA
// publishes productName, the example driver model, the TPU driver accelerator.
std::string DeviceModel(const api::Device& device, std::string_view driver) {
  for (std::string_view name : {"productName", "model", "accelerator", "tpuGen", "type"}) {
    const api::DeviceAttribute* attr = device.attributes.find(name);
    if (attr == nullptr) attr = device.attributes.find(fmt::format("{}/{}", driver, name));
    if (attr != nullptr && attr->string_value() != nullptr) return attr->string_value()->str();
  }
  return "-";
}

struct ModelRow {
  size_t devices = 0;
  size_t whole = 0;       // devices that consume no shared counters
  size_t partitions = 0;  // devices that consume a counter set's counters (MIG placements)
  size_t split = 0;       // counter sets (physical GPUs split into partitions)
  size_t in_use = 0;      // devices allocated to a claim
  double memory = 0;      // bytes: whole devices' memory capacity + counter sets' memory counter
  std::set<std::string> nodes;
};

// "1 template", "2 templates".
std::string Count(size_t n, std::string_view word, std::string_view plural = "") {
  if (n == 1) return fmt::format("1 {}", word);
  return plural.empty() ? fmt::format("{} {}s", n, word) : fmt::format("{} {}", n, plural);
}

// Gibibytes with one decimal, so that models compare at a glance.
std::string Bytes(double bytes) {
  if (bytes <= 0) return "-";
  return fmt::format("{:.1f}Gi", bytes / (1024.0 * 1024 * 1024));
}

// What the summary counts.
struct Tally {
  std::set<std::string> node_objects;
  std::set<std::string> slice_nodes;
  std::set<std::string> pools;
  std::set<std::string> drivers;
  std::map<std::pair<std::string, std::string>, ModelRow> models;
  size_t devices = 0, tainted = 0, shared_devices = 0, counter_sets = 0;
  std::vector<std::string> classes;
  size_t claims = 0, allocated = 0, templates = 0, pods = 0, bound = 0, taint_rules = 0;
  // Tainted devices per node and key, the rules' taints included.
  std::vector<alloc::TaintCount> taint_counts;
  // Pods the workloads' controllers would create, and the workloads per kind.
  std::map<std::string, size_t> workload_kinds;
  size_t workload_pods = 0;
  // The nodes: Node objects and the nodes ResourceSlices name.
  std::set<std::string> all_nodes;
};

// Devices allocated to some claim ("driver/pool/device").
std::set<std::string, std::less<>> UsedDevices(const manifest::LoadResult& result) {
  std::set<std::string, std::less<>> used;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* claim = std::get_if<api::ResourceClaim>(&loaded.object); claim && claim->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
        used.insert(alloc::DeviceIdString(r.driver, r.pool, r.device));
      }
    }
  }
  return used;
}

// Counter sets by "driver/pool/set", with their memory counter; a set
// counts for the model of the devices that consume from it.
std::map<std::string, double> CounterSetMemory(const manifest::LoadResult& result) {
  std::map<std::string, double> set_memory;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* slice = std::get_if<api::ResourceSlice>(&loaded.object)) {
      for (const api::CounterSet& cs : slice->spec.shared_counters) {
        const api::Counter* memory = cs.counters.find("memory");
        set_memory[fmt::format("{}/{}/{}", slice->spec.driver, slice->spec.pool.name, cs.name)] =
            memory != nullptr ? memory->value.AsApproximateFloat64() : 0;
      }
    }
  }
  return set_memory;
}

// The state a slice's devices are counted with.
struct SliceCounting {
  const std::set<std::string, std::less<>>& used;
  const std::vector<const api::DeviceTaintRule*>& rule_ptrs;
  bool rules_apply;
  const std::map<std::string, double>& set_memory;
  std::set<std::string> set_counted;  // counter sets (and parent GPUs) counted once
};

// One device of a slice: its model's row (whole or a partition, memory, in use).
void CountDevice(const api::ResourceSliceSpec& spec, const api::Device& d, const std::string& where, SliceCounting& c,
                 Tally* sum) {
  ++sum->devices;
  if (!d.rare->taints.empty() ||
      (c.rules_apply && std::any_of(c.rule_ptrs.begin(), c.rule_ptrs.end(), [&](const api::DeviceTaintRule* r) {
         return alloc::TaintRuleMatches(r->spec, spec.driver, spec.pool.name, d.name);
       }))) {
    ++sum->tainted;
  }
  if (d.allow_multiple_allocations.value_or(false)) ++sum->shared_devices;
  ModelRow& row = sum->models[{spec.driver, DeviceModel(d, spec.driver)}];
  ++row.devices;
  row.nodes.insert(where);
  if (c.used.contains(alloc::DeviceIdString(spec.driver, spec.pool.name, d.name))) ++row.in_use;
  const auto& consumes = d.rare->consumes_counters;
  const api::DeviceCapacity* memory = d.capacity.find("memory");
  if (consumes.empty()) {
    // A partition made in advance (static MIG) names its parent GPU.
    const api::DeviceAttribute* parent = d.attributes.find("parentUUID");
    if (parent == nullptr || parent->string_value() == nullptr) {
      ++row.whole;
    } else {
      ++row.partitions;
      if (c.set_counted.insert(spec.driver + "/" + parent->string_value()->str()).second) ++row.split;
    }
    if (memory != nullptr) row.memory += memory->value.AsApproximateFloat64();
    return;
  }
  ++row.partitions;
  for (const api::DeviceCounterConsumption& use : consumes) {
    const std::string set = fmt::format("{}/{}/{}", spec.driver, spec.pool.name, use.counter_set);
    if (!c.set_counted.insert(set).second) continue;
    ++row.split;
    if (auto it = c.set_memory.find(set); it != c.set_memory.end()) row.memory += it->second;
  }
}

void CountSlice(const api::ResourceSliceSpec& spec, SliceCounting& c, Tally* sum) {
  sum->drivers.insert(spec.driver);
  sum->pools.insert(spec.driver + "/" + spec.pool.name);
  sum->counter_sets += spec.shared_counters.size();
  std::string where =
      spec.node_name ? *spec.node_name : (spec.all_nodes.value_or(false) ? "(all nodes)" : "(node selector)");
  if (spec.node_name) sum->slice_nodes.insert(*spec.node_name);
  for (const api::Device& d : spec.devices) CountDevice(spec, d, where, c, sum);
}

// Pods the workloads' controllers would create (DaemonSets: one per node).
void CountWorkloads(const std::vector<manifest::LoadedWorkload>& workloads, Tally* sum) {
  for (const manifest::LoadedWorkload& w : workloads) {
    const api::Workload& wl = w.workload;
    ++sum->workload_kinds[std::string(api::EnumName(wl.kind))];
    switch (wl.kind) {
      case api::WorkloadKind::kJob:
        sum->workload_pods += wl.suspend ? 0 : static_cast<size_t>(std::max(0, wl.parallelism.value_or(1)));
        break;
      case api::WorkloadKind::kDaemonSet:
        sum->workload_pods += std::max(sum->node_objects.size(), sum->slice_nodes.size());
        break;
      case api::WorkloadKind::kCronJob: break;  // Jobs on its schedule, not now
      default: sum->workload_pods += static_cast<size_t>(std::max(0, wl.replicas.value_or(1)));
    }
  }
}

Tally TallyObjects(const manifest::LoadResult& result, const api::FeatureGates& gates) {
  Tally sum;
  const std::set<std::string, std::less<>> used = UsedDevices(result);
  std::vector<const api::ResourceSlice*> slice_ptrs;
  std::vector<const api::DeviceTaintRule*> rule_ptrs;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* slice = std::get_if<api::ResourceSlice>(&loaded.object)) slice_ptrs.push_back(slice);
    if (const auto* rule = std::get_if<api::DeviceTaintRule>(&loaded.object)) rule_ptrs.push_back(rule);
  }
  sum.taint_counts = alloc::CountTaints(slice_ptrs, rule_ptrs, gates);

  const std::map<std::string, double> set_memory = CounterSetMemory(result);
  SliceCounting counting{
      .used = used,
      .rule_ptrs = rule_ptrs,
      .rules_apply = gates.enabled(api::Gate::kDRADeviceTaints) && gates.enabled(api::Gate::kDRADeviceTaintRules),
      .set_memory = set_memory,
      .set_counted = {}};
  for (const manifest::LoadedObject& loaded : result.objects) {
    const api::Object& o = loaded.object;
    if (const auto* node = std::get_if<api::Node>(&o)) {
      sum.node_objects.insert(node->metadata.name);
    } else if (const auto* slice = std::get_if<api::ResourceSlice>(&o)) {
      CountSlice(slice->spec, counting, &sum);
    } else if (const auto* cls = std::get_if<api::DeviceClass>(&o)) {
      sum.classes.push_back(cls->metadata.name);
    } else if (const auto* claim = std::get_if<api::ResourceClaim>(&o)) {
      ++sum.claims;
      if (claim->status.allocation) ++sum.allocated;
    } else if (std::holds_alternative<api::ResourceClaimTemplate>(o)) {
      ++sum.templates;
    } else if (std::holds_alternative<api::DeviceTaintRule>(o)) {
      ++sum.taint_rules;
    } else if (const auto* pod = std::get_if<api::Pod>(&o)) {
      ++sum.pods;
      if (!pod->spec.node_name.empty()) ++sum.bound;
    }
  }
  CountWorkloads(result.workloads, &sum);
  sum.all_nodes = sum.node_objects;
  sum.all_nodes.insert(sum.slice_nodes.begin(), sum.slice_nodes.end());
  return sum;
}

manifest::Node SummaryJson(const Tally& sum, const manifest::LoadResult& result) {
  using manifest::Node;
  auto num = [](size_t v) { return Node::Int(static_cast<int64_t>(v)); };
  Node root = Node::Mapping();
  root.Add("objects", num(result.objects.size()));
  root.Add("nodes", num(sum.all_nodes.size()));
  root.Add("nodeObjects", num(sum.node_objects.size()));
  root.Add("devices", num(sum.devices));
  root.Add("taintedDevices", num(sum.tainted));
  Node taints = Node::Sequence();
  for (const alloc::TaintCount& t : sum.taint_counts) {
    Node row = Node::Mapping();
    row.Add("node", Node::String(t.where));
    row.Add("key", Node::String(t.key));
    row.Add("effect", Node::String(t.effect));
    row.Add("devices", num(t.devices));
    taints.Push(std::move(row));
  }
  root.Add("taints", std::move(taints));
  root.Add("shareableDevices", num(sum.shared_devices));
  root.Add("pools", num(sum.pools.size()));
  root.Add("drivers", num(sum.drivers.size()));
  Node rows = Node::Sequence();
  for (const auto& [key, row] : sum.models) {
    Node r = Node::Mapping();
    r.Add("driver", Node::String(key.first));
    r.Add("model", Node::String(key.second));
    r.Add("devices", num(row.devices));
    r.Add("wholeDevices", num(row.whole));
    r.Add("splitDevices", num(row.split));
    r.Add("partitions", num(row.partitions));
    r.Add("allocated", num(row.in_use));
    r.Add("memory", Node::String(Bytes(row.memory)));
    r.Add("nodes", num(row.nodes.size()));
    rows.Push(r);
  }
  root.Add("models", rows);
  Node cls = Node::Sequence();
  for (const auto& c : sum.classes) cls.Push(Node::String(c));
  root.Add("deviceClasses", cls);
  root.Add("resourceClaims", num(sum.claims));
  root.Add("allocatedClaims", num(sum.allocated));
  root.Add("resourceClaimTemplates", num(sum.templates));
  root.Add("deviceTaintRules", num(sum.taint_rules));
  root.Add("pods", num(sum.pods));
  root.Add("boundPods", num(sum.bound));
  root.Add("workloads", num(result.workloads.size()));
  root.Add("workloadPods", num(sum.workload_pods));
  root.Add("errors", num(result.error_count()));
  return root;
}

// Per model: whole devices and physical devices split into partitions
// (counter sets) apart from the partitions themselves, their memory, and
// how many devices claims hold.
void PrintModels(const std::map<std::pair<std::string, std::string>, ModelRow>& models) {
  size_t w_driver = 6, w_model = 5;
  for (const auto& [key, row] : models) {
    w_driver = std::max(w_driver, key.first.size());
    w_model = std::max(w_model, key.second.size());
  }
  std::printf("  %-*s  %-*s  %5s  %5s  %10s  %9s  %9s  %5s\n", static_cast<int>(w_driver), "DRIVER",
              static_cast<int>(w_model), "MODEL", "WHOLE", "SPLIT", "PARTITIONS", "MEMORY", "ALLOCATED", "NODES");
  for (const auto& [key, row] : models) {
    std::printf("  %-*s  %-*s  %5zu  %5zu  %10zu  %9s  %9zu  %5zu\n", static_cast<int>(w_driver), key.first.c_str(),
                static_cast<int>(w_model), key.second.c_str(), row.whole, row.split, row.partitions,
                Bytes(row.memory).c_str(), row.in_use, row.nodes.size());
  }
  std::printf(
      "  (WHOLE: devices allocated whole; SPLIT: devices split into PARTITIONS: MIG GPUs, by counter sets "
      "or by parent; MEMORY of both)\n");
}

// Device health: tainted devices per node, key and effect.
void PrintTaints(const std::vector<alloc::TaintCount>& taint_counts, size_t tainted) {
  size_t w_node = 4, w_key = 3;
  for (const alloc::TaintCount& t : taint_counts) {
    w_node = std::max(w_node, t.where.size());
    w_key = std::max(w_key, t.key.size());
  }
  std::printf("Taints:   %zu tainted device%s\n", tainted, tainted == 1 ? "" : "s");
  std::printf("  %-*s  %-*s  %-10s  %7s\n", static_cast<int>(w_node), "NODE", static_cast<int>(w_key), "KEY", "EFFECT",
              "DEVICES");
  for (const alloc::TaintCount& t : taint_counts) {
    std::printf("  %-*s  %-*s  %-10s  %7zu\n", static_cast<int>(w_node), t.where.c_str(), static_cast<int>(w_key),
                t.key.c_str(), t.effect.c_str(), t.devices);
  }
}

void PrintSummary(const Tally& sum, const manifest::LoadResult& result) {
  std::printf("Loaded %s\n", DescribeLoad(result).c_str());
  std::printf("Nodes:    %zu (%s, %zu named by ResourceSlices)\n", sum.all_nodes.size(),
              Count(sum.node_objects.size(), "Node object").c_str(), sum.slice_nodes.size());
  std::printf("Devices:  %zu in %s of %s (%zu tainted, %zu shareable, %s)\n", sum.devices,
              Count(sum.pools.size(), "pool").c_str(), Count(sum.drivers.size(), "driver").c_str(), sum.tainted,
              sum.shared_devices, Count(sum.counter_sets, "counter set").c_str());
  if (!sum.models.empty()) PrintModels(sum.models);
  if (!sum.taint_counts.empty()) PrintTaints(sum.taint_counts, sum.tainted);
  std::string class_list;
  for (size_t i = 0; i < sum.classes.size(); ++i) class_list += (i ? ", " : "") + sum.classes[i];
  std::printf("Classes:  %zu%s%s\n", sum.classes.size(), sum.classes.empty() ? "" : ": ", class_list.c_str());
  std::printf("Claims:   %zu (%zu allocated, %zu pending); %s; %s\n", sum.claims, sum.allocated,
              sum.claims - sum.allocated, Count(sum.templates, "template").c_str(),
              Count(sum.taint_rules, "device taint rule").c_str());
  std::printf("Pods:     %zu (%zu bound, %zu pending)", sum.pods, sum.bound, sum.pods - sum.bound);
  if (!result.workloads.empty()) {
    std::vector<std::string> kinds;
    kinds.reserve(sum.workload_kinds.size());
    for (const auto& [kind, n] : sum.workload_kinds) kinds.push_back(Count(n, kind));
    std::printf("; %s (%s) would create %s", Count(result.workloads.size(), "workload").c_str(),
                fmt::format("{}", fmt::join(kinds, ", ")).c_str(), Count(sum.workload_pods, "pod").c_str());
  }
  std::printf("\n");
}

}  // namespace

int RunSummary(std::span<const std::string_view> args) {
  CLI::App app{
      "Summarises a cluster dump: nodes, devices per driver and model, device classes,\n"
      "claims (allocated or pending), templates and pods.",
      "dractl summary"};
  std::vector<std::string> files;
  std::string output = "text";
  GateFlags gate_flags;
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  AddGateFlags(app, &gate_flags);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl summary", gate_flags.version, gate_flags.gates);
  if (!gates) return kExitUsageError;

  manifest::LoadResult result;
  LoadInputs(files, {.keep_trees = true, .keep_workloads = true}, &result);
  // As the API server would take them: an object it refuses is not summed.
  if (int rc = DefaultAndValidate(&result, *gates, "dractl summary"); rc >= 0) return rc;

  const Tally sum = TallyObjects(result, *gates);
  if (output == "json") {
    std::fputs(manifest::EmitJson(SummaryJson(sum, result), 2).c_str(), stdout);
    return result.error_count() > 0 ? kExitInputError : kExitOk;
  }
  PrintSummary(sum, result);
  if (result.error_count() > 0) {
    std::printf("Input errors: %zu (see above)\n", result.error_count());
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace dra::cli
