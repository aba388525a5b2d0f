// dractl allocate --scenario FILE: runs one allocator conformance scenario
// and prints the outcome as FORMAT.md §3 asks.
#include "cli/allocate.h"

#include <cstdio>
#include <map>

#include "alloc/cel_selector.h"
#include "api/defaults.h"
#include "api/features.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/emit.h"
#include "manifest/encode.h"

namespace dra::cli {

ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::AllocatorOptions options) {
  ScenarioOutcome out;
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(std::span<const std::string>(scenario.features));
  if (!gates.ok()) {
    out.error = gates.status().ToString();
    return out;
  }
  alloc::Features features = alloc::Features::FromGates(*gates);
  StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> cel = alloc::NewCelSelectorEvaluator(features);
  if (!cel.ok()) {
    out.error = cel.status().ToString();
    return out;
  }
  return RunScenario(scenario, **cel, std::move(options));
}

ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::SelectorEvaluator& selectors,
                            alloc::AllocatorOptions options) {
  ScenarioOutcome out;
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(std::span<const std::string>(scenario.features));
  if (!gates.ok()) {
    out.error = gates.status().ToString();
    return out;
  }
  alloc::Features features = alloc::Features::FromGates(*gates);

  std::vector<const api::DeviceClass*> classes;
  std::vector<const api::ResourceSlice*> slices;
  std::vector<api::ResourceClaim> claims;
  for (const api::Object& object : scenario.objects) {
    if (const auto* c = std::get_if<api::DeviceClass>(&object)) classes.push_back(c);
    if (const auto* s = std::get_if<api::ResourceSlice>(&object)) slices.push_back(s);
    if (const auto* c = std::get_if<api::ResourceClaim>(&object)) {
      claims.push_back(*c);
      api::SetDefaults(claims.back());
    }
  }
  alloc::AllocatedState state;
  std::map<std::string, const api::ResourceClaim*> by_name;
  std::vector<const api::ResourceClaim*> allocated;
  for (const api::ResourceClaim& c : claims) {
    by_name[c.metadata.namespace_ + "/" + c.metadata.name] = &c;
    if (c.status.allocation) allocated.push_back(&c);
  }
  Status st = state.AddClaims(allocated, features);
  for (const auto& d : scenario.allocated_devices) {
    state.devices.insert(alloc::DeviceIdString(d.driver, d.pool, d.device));
  }
  for (const auto& share : scenario.allocated_shares) {
    if (!st.ok()) break;
    st = state.AddShare(alloc::DeviceIdString(share.device.driver, share.device.pool, share.device.device),
                        share.share_id, share.consumed_capacity, features);
  }
  if (!st.ok()) {
    out.error = st.ToString();
    return out;
  }
  std::vector<const api::ResourceClaim*> to_allocate;
  for (const std::string& name : scenario.allocate) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      out.error = "claim " + name + " not found in the scenario";
      return out;
    }
    to_allocate.push_back(it->second);
  }

  alloc::SliceIndex index(slices);
  alloc::Allocator allocator(features, std::move(state), classes, &index, &selectors, std::move(options));
  StatusOr<alloc::NodeFit> fit = allocator.Allocate(scenario.node, to_allocate);
  if (!fit.ok()) {
    out.error = std::string(fit.status().message());
    return out;
  }
  out.steps = fit->steps;
  if (!fit->fits && fit->reason.invalid_pools) {
    // Upstream returns an error wrapping ErrFailedAllocationOnNode here; the
    // vectors expect `error` (the scheduler treats it as unschedulable on the
    // node, which the Allocator reports as reason.invalid_pools).
    out.error = fit->reason.message;
    return out;
  }
  if (!fit->fits) {
    out.kind = ScenarioOutcome::Kind::kUnsatisfiable;
    out.reason = fit->reason;
    return out;
  }
  out.kind = ScenarioOutcome::Kind::kAllocations;
  for (size_t i = 0; i < to_allocate.size(); ++i) {
    out.allocations.emplace_back(scenario.allocate[i], std::move(fit->results[i]));
  }
  return out;
}

std::string OutcomeYaml(const ScenarioOutcome& outcome) {
  manifest::Node root = manifest::Node::Mapping();
  switch (outcome.kind) {
    case ScenarioOutcome::Kind::kError:
      root.Add("error", manifest::Node::String(outcome.error));
      break;
    case ScenarioOutcome::Kind::kUnsatisfiable:
      root.Add("unsatisfiable", manifest::Node::Bool(true));
      break;
    case ScenarioOutcome::Kind::kAllocations: {
      manifest::Node list = manifest::Node::Sequence();
      for (const auto& [claim, result] : outcome.allocations) {
        // Encode through a claim so the allocation is printed exactly as the
        // API prints status.allocation.
        api::ResourceClaim holder;
        holder.status.allocation = result;
        manifest::Node encoded = manifest::EncodeObject(api::Object(holder));
        manifest::Node entry = manifest::Node::Mapping();
        entry.Add("claim", manifest::Node::String(claim));
        const manifest::Node* status = encoded.Find("status");
        const manifest::Node* allocation = status ? status->Find("allocation") : nullptr;
        if (allocation != nullptr && allocation->is_mapping()) {
          for (size_t k = 0; k < allocation->keys.size(); ++k) {
            entry.Add(allocation->keys[k].first, allocation->items[k]);
          }
        }
        list.Push(std::move(entry));
      }
      root.Add("allocations", std::move(list));
      break;
    }
  }
  return manifest::EmitYaml(root);
}

int RunAllocate(std::span<const std::string_view> args) {
  CLI::App app{"Runs one allocator conformance scenario (shared/conformance/FORMAT.md) and prints the\n"
               "outcome as YAML: allocations, unsatisfiable: true, or error.",
               "dractl allocate"};
  std::string scenario_path;
  app.add_option("--scenario", scenario_path, "scenario file")->required();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  StatusOr<manifest::Scenario> scenario = manifest::LoadScenarioFile(scenario_path);
  if (!scenario.ok()) {
    std::fprintf(stderr, "dractl allocate: %s\n", scenario.status().ToString().c_str());
    return kExitInputError;
  }
  ScenarioOutcome outcome = RunScenario(*scenario);
  std::string yaml = OutcomeYaml(outcome);
  std::fwrite(yaml.data(), 1, yaml.size(), stdout);
  if (outcome.kind == ScenarioOutcome::Kind::kUnsatisfiable) {
    std::fprintf(stderr, "%s\n", outcome.reason.ToString().c_str());
  }
  std::fprintf(stderr, "search steps: %llu\n", static_cast<unsigned long long>(outcome.steps));
  return kExitOk;
}

}  // namespace dra::cli
