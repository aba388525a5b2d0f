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

}  // namespace

int RunSummary(std::span<const std::string_view> args) {
  CLI::App app{"Summarises a cluster dump: nodes, devices per driver and model, device classes,\n"
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

  std::set<std::string> node_objects;
  std::set<std::string> slice_nodes;
  std::set<std::string> pools;
  std::set<std::string> drivers;
  std::map<std::pair<std::string, std::string>, ModelRow> models;
  size_t devices = 0, tainted = 0, shared_devices = 0, counter_sets = 0;
  std::vector<std::string> classes;
  size_t claims = 0, allocated = 0, templates = 0, pods = 0, bound = 0, taint_rules = 0;
  // Devices allocated to some claim ("driver/pool/device").
  std::set<std::string, std::less<>> used;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* claim = std::get_if<api::ResourceClaim>(&loaded.object); claim && claim->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
        used.insert(alloc::DeviceIdString(r.driver, r.pool, r.device));
      }
    }
  }
  // Tainted devices per node and key, the rules' taints included.
  std::vector<const api::ResourceSlice*> slice_ptrs;
  std::vector<const api::DeviceTaintRule*> rule_ptrs;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* slice = std::get_if<api::ResourceSlice>(&loaded.object)) slice_ptrs.push_back(slice);
    if (const auto* rule = std::get_if<api::DeviceTaintRule>(&loaded.object)) rule_ptrs.push_back(rule);
  }
  const std::vector<alloc::TaintCount> taint_counts = alloc::CountTaints(slice_ptrs, rule_ptrs, *gates);

  const bool rules_apply = gates->enabled(api::Gate::kDRADeviceTaints) && gates->enabled(api::Gate::kDRADeviceTaintRules);
  // Counter sets by "driver/pool/set", with their memory counter; a set
  // counts for the model of the devices that consume from it.
  std::map<std::string, double> set_memory;
  std::set<std::string> set_counted;
  for (const manifest::LoadedObject& loaded : result.objects) {
    if (const auto* slice = std::get_if<api::ResourceSlice>(&loaded.object)) {
      for (const api::CounterSet& cs : slice->spec.shared_counters) {
        const api::Counter* memory = cs.counters.find("memory");
        set_memory[fmt::format("{}/{}/{}", slice->spec.driver, slice->spec.pool.name, cs.name)] =
            memory != nullptr ? memory->value.AsApproximateFloat64() : 0;
      }
    }
  }
  for (const manifest::LoadedObject& loaded : result.objects) {
    const api::Object& o = loaded.object;
    if (const auto* node = std::get_if<api::Node>(&o)) {
      node_objects.insert(node->metadata.name);
    } else if (const auto* slice = std::get_if<api::ResourceSlice>(&o)) {
      const auto& spec = slice->spec;
      drivers.insert(spec.driver);
      pools.insert(spec.driver + "/" + spec.pool.name);
      counter_sets += spec.shared_counters.size();
      std::string where = spec.node_name ? *spec.node_name : (spec.all_nodes.value_or(false) ? "(all nodes)" : "(node selector)");
      if (spec.node_name) slice_nodes.insert(*spec.node_name);
      for (const api::Device& d : spec.devices) {
        ++devices;
        if (!d.rare->taints.empty() ||
            (rules_apply && std::any_of(rule_ptrs.begin(), rule_ptrs.end(), [&](const api::DeviceTaintRule* r) {
              return alloc::TaintRuleMatches(r->spec, spec.driver, spec.pool.name, d.name);
            }))) {
          ++tainted;
        }
        if (d.allow_multiple_allocations.value_or(false)) ++shared_devices;
        ModelRow& row = models[{spec.driver, DeviceModel(d, spec.driver)}];
        ++row.devices;
        row.nodes.insert(where);
        if (used.contains(alloc::DeviceIdString(spec.driver, spec.pool.name, d.name))) ++row.in_use;
        const auto& consumes = d.rare->consumes_counters;
        const api::DeviceCapacity* memory = d.capacity.find("memory");
        if (consumes.empty()) {
          // A partition made in advance (static MIG) names its parent GPU.
          const api::DeviceAttribute* parent = d.attributes.find("parentUUID");
          if (parent == nullptr || parent->string_value() == nullptr) {
            ++row.whole;
          } else {
            ++row.partitions;
            if (set_counted.insert(spec.driver + "/" + parent->string_value()->str()).second) ++row.split;
          }
          if (memory != nullptr) row.memory += memory->value.AsApproximateFloat64();
          continue;
        }
        ++row.partitions;
        for (const api::DeviceCounterConsumption& use : consumes) {
          const std::string set = fmt::format("{}/{}/{}", spec.driver, spec.pool.name, use.counter_set);
          if (!set_counted.insert(set).second) continue;
          ++row.split;
          if (auto it = set_memory.find(set); it != set_memory.end()) row.memory += it->second;
        }
      }
    } else if (const auto* cls = std::get_if<api::DeviceClass>(&o)) {
      classes.push_back(cls->metadata.name);
    } else if (const auto* claim = std::get_if<api::ResourceClaim>(&o)) {
      ++claims;
      if (claim->status.allocation) ++allocated;
    } else if (std::holds_alternative<api::ResourceClaimTemplate>(o)) {
      ++templates;
    } else if (std::holds_alternative<api::DeviceTaintRule>(o)) {
      ++taint_rules;
    } else if (const auto* pod = std::get_if<api::Pod>(&o)) {
      ++pods;
      if (!pod->spec.node_name.empty()) ++bound;
    }
  }
  // Pods the workloads' controllers would create (DaemonSets: one per node).
  std::map<std::string, size_t> workload_kinds;
  size_t workload_pods = 0;
  for (const manifest::LoadedWorkload& w : result.workloads) {
    const api::Workload& wl = w.workload;
    ++workload_kinds[std::string(api::EnumName(wl.kind))];
    switch (wl.kind) {
      case api::WorkloadKind::kJob:
        workload_pods += wl.suspend ? 0 : static_cast<size_t>(std::max(0, wl.parallelism.value_or(1)));
        break;
      case api::WorkloadKind::kDaemonSet:
        workload_pods += std::max(node_objects.size(), slice_nodes.size());
        break;
      case api::WorkloadKind::kCronJob:
        break;  // Jobs on its schedule, not now
      default:
        workload_pods += static_cast<size_t>(std::max(0, wl.replicas.value_or(1)));
    }
  }
  std::set<std::string> all_nodes = node_objects;
  all_nodes.insert(slice_nodes.begin(), slice_nodes.end());

  if (output == "json") {
    using manifest::Node;
    auto num = [](size_t v) { return Node::Int(static_cast<int64_t>(v)); };
    Node root = Node::Mapping();
    root.Add("objects", num(result.objects.size()));
    root.Add("nodes", num(all_nodes.size()));
    root.Add("nodeObjects", num(node_objects.size()));
    root.Add("devices", num(devices));
    root.Add("taintedDevices", num(tainted));
    Node taints = Node::Sequence();
    for (const alloc::TaintCount& t : taint_counts) {
      Node row = Node::Mapping();
      row.Add("node", Node::String(t.where));
      row.Add("key", Node::String(t.key));
      row.Add("effect", Node::String(t.effect));
      row.Add("devices", num(t.devices));
      taints.Push(std::move(row));
    }
    root.Add("taints", std::move(taints));
    root.Add("shareableDevices", num(shared_devices));
    root.Add("pools", num(pools.size()));
    root.Add("drivers", num(drivers.size()));
    Node rows = Node::Sequence();
    for (const auto& [key, row] : models) {
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
    for (const auto& c : classes) cls.Push(Node::String(c));
    root.Add("deviceClasses", cls);
    root.Add("resourceClaims", num(claims));
    root.Add("allocatedClaims", num(allocated));
    root.Add("resourceClaimTemplates", num(templates));
    root.Add("deviceTaintRules", num(taint_rules));
    root.Add("pods", num(pods));
    root.Add("boundPods", num(bound));
    root.Add("workloads", num(result.workloads.size()));
    root.Add("workloadPods", num(workload_pods));
    root.Add("errors", num(result.error_count()));
    std::fputs(manifest::EmitJson(root, 2).c_str(), stdout);
    return result.error_count() > 0 ? kExitInputError : kExitOk;
  }

  std::printf("Loaded %s\n", DescribeLoad(result).c_str());
  std::printf("Nodes:    %zu (%s, %zu named by ResourceSlices)\n", all_nodes.size(),
              Count(node_objects.size(), "Node object").c_str(), slice_nodes.size());
  std::printf("Devices:  %zu in %s of %s (%zu tainted, %zu shareable, %s)\n", devices,
              Count(pools.size(), "pool").c_str(), Count(drivers.size(), "driver").c_str(), tainted, shared_devices,
              Count(counter_sets, "counter set").c_str());
  if (!models.empty()) {
    // Per model: whole devices and physical devices split into partitions
    // (counter sets) apart from the partitions themselves, their memory, and
    // how many devices claims hold.
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
    std::printf("  (WHOLE: devices allocated whole; SPLIT: devices split into PARTITIONS: MIG GPUs, by counter sets "
                "or by parent; MEMORY of both)\n");
  }
  if (!taint_counts.empty()) {
    // Device health: tainted devices per node, key and effect.
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
  std::string class_list;
  for (size_t i = 0; i < classes.size(); ++i) class_list += (i ? ", " : "") + classes[i];
  std::printf("Classes:  %zu%s%s\n", classes.size(), classes.empty() ? "" : ": ", class_list.c_str());
  std::printf("Claims:   %zu (%zu allocated, %zu pending); %s; %s\n", claims, allocated, claims - allocated,
              Count(templates, "template").c_str(), Count(taint_rules, "device taint rule").c_str());
  std::printf("Pods:     %zu (%zu bound, %zu pending)", pods, bound, pods - bound);
  if (!result.workloads.empty()) {
    std::vector<std::string> kinds;
    for (const auto& [kind, n] : workload_kinds) kinds.push_back(Count(n, kind));
    std::printf("; %s (%s) would create %s", Count(result.workloads.size(), "workload").c_str(),
                fmt::format("{}", fmt::join(kinds, ", ")).c_str(), Count(workload_pods, "pod").c_str());
  }
  std::printf("\n");
  if (result.error_count() > 0) {
    std::printf("Input errors: %zu (see above)\n", result.error_count());
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace dra::cli
