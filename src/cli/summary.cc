// dractl summary: what a cluster dump holds — nodes, devices per driver and
// model, device classes, claims, templates and pods.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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
  std::set<std::string> nodes;
};

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
  LoadInputs(files, {.keep_trees = true}, &result);
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
        if (!d.rare->taints.empty()) ++tainted;
        if (d.allow_multiple_allocations.value_or(false)) ++shared_devices;
        ModelRow& row = models[{spec.driver, DeviceModel(d, spec.driver)}];
        ++row.devices;
        row.nodes.insert(where);
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
    root.Add("shareableDevices", num(shared_devices));
    root.Add("pools", num(pools.size()));
    root.Add("drivers", num(drivers.size()));
    Node rows = Node::Sequence();
    for (const auto& [key, row] : models) {
      Node r = Node::Mapping();
      r.Add("driver", Node::String(key.first));
      r.Add("model", Node::String(key.second));
      r.Add("devices", num(row.devices));
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
    root.Add("errors", num(result.error_count()));
    std::fputs(manifest::EmitJson(root, 2).c_str(), stdout);
    return result.error_count() > 0 ? kExitInputError : kExitOk;
  }

  std::printf("Loaded %s\n", DescribeLoad(result).c_str());
  std::printf("Nodes:    %zu (%zu Node objects, %zu named by ResourceSlices)\n", all_nodes.size(),
              node_objects.size(), slice_nodes.size());
  std::printf("Devices:  %zu in %zu pools of %zu drivers (%zu tainted, %zu shareable, %zu counter sets)\n",
              devices, pools.size(), drivers.size(), tainted, shared_devices, counter_sets);
  if (!models.empty()) {
    size_t w_driver = 6, w_model = 5;
    for (const auto& [key, row] : models) {
      w_driver = std::max(w_driver, key.first.size());
      w_model = std::max(w_model, key.second.size());
    }
    std::printf("  %-*s  %-*s  %7s  %5s\n", static_cast<int>(w_driver), "DRIVER", static_cast<int>(w_model),
                "MODEL", "DEVICES", "NODES");
    for (const auto& [key, row] : models) {
      std::printf("  %-*s  %-*s  %7zu  %5zu\n", static_cast<int>(w_driver), key.first.c_str(),
                  static_cast<int>(w_model), key.second.c_str(), row.devices, row.nodes.size());
    }
  }
  std::string class_list;
  for (size_t i = 0; i < classes.size(); ++i) class_list += (i ? ", " : "") + classes[i];
  std::printf("Classes:  %zu%s%s\n", classes.size(), classes.empty() ? "" : ": ", class_list.c_str());
  std::printf("Claims:   %zu (%zu allocated, %zu pending); %zu templates; %zu device taint rules\n", claims,
              allocated, claims - allocated, templates, taint_rules);
  std::printf("Pods:     %zu (%zu bound, %zu pending)\n", pods, bound, pods - bound);
  if (result.error_count() > 0) {
    std::printf("Input errors: %zu (see above)\n", result.error_count());
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace dra::cli
