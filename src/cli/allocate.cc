// dractl allocate: allocates claims on one node from user manifests (-f, --node,
// --claim), or runs one allocator conformance scenario and prints the outcome as
// FORMAT.md §3 asks (--scenario).
#include "cli/allocate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "alloc/cel_selector.h"
#include "alloc/taint_rules.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "base/release.h"
#include "cel/dra/api_checker.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/emit.h"
#include "manifest/encode.h"

namespace dra::cli {

ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::AllocatorOptions options, int prepared_calls) {
  ScenarioOutcome out;
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(std::span<const std::string>(scenario.features));
  if (!gates.ok()) {
    out.error = gates.status().message();
    return out;
  }
  alloc::Features features = alloc::Features::FromGates(*gates);
  StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> cel = alloc::NewCelSelectorEvaluator(features);
  if (!cel.ok()) {
    out.error = cel.status().message();
    return out;
  }
  return RunScenario(scenario, **cel, std::move(options), prepared_calls);
}

ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::SelectorEvaluator& selectors,
                            alloc::AllocatorOptions options, int prepared_calls) {
  ScenarioOutcome out;
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(std::span<const std::string>(scenario.features));
  if (!gates.ok()) {
    out.error = gates.status().message();
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
    out.error = st.message();
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
  if (prepared_calls > 0) {
    // One NodeFit for every call, as a caller deciding many nodes keeps one
    // (Allocator::AllocateInto): the first call a summary, then full results
    // over what the call before left in it.
    const alloc::PreparedClaims prepared(to_allocate);
    alloc::NodeFit reused;
    for (int i = 0; i < prepared_calls; ++i) {
      const auto detail = i == 0 && prepared_calls > 1 ? alloc::Allocator::ResultDetail::kSummary
                                                       : alloc::Allocator::ResultDetail::kFull;
      Status call = allocator.AllocateInto(allocator.Handle(scenario.node), prepared, detail, reused);
      fit = call.ok() ? StatusOr<alloc::NodeFit>(reused) : StatusOr<alloc::NodeFit>(call);
    }
  }
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
    case ScenarioOutcome::Kind::kError: root.Add("error", manifest::Node::String(outcome.error)); break;
    case ScenarioOutcome::Kind::kUnsatisfiable: root.Add("unsatisfiable", manifest::Node::Bool(true)); break;
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

namespace {

// A scenario is an allocator test vector: its objects are run as given, as
// upstream's allocator tests build them, even where the API server would
// refuse one. Says so, once, when that is the case.
void WarnAboutRefusedObjects(const manifest::Scenario& scenario) {
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(scenario.features);
  if (!gates.ok()) return;  // the run reports unknown gates itself
  const std::unique_ptr<api::CelExpressionChecker> cel = cel::NewApiServerChecker(*gates);
  size_t refused = 0;
  std::string first;
  for (const api::Object& object : scenario.objects) {
    api::Object defaulted = object;
    api::SetDefaults(defaulted, "1970-01-01T00:00:00Z", *gates);
    for (const api::FieldError& e : api::Validate(defaulted, *gates, cel.get())) {
      if (e.severity != api::Severity::kError) continue;
      if (refused++ == 0)
        first = std::string(api::KindName(object)) + " " + api::ObjectName(object) + ": " + e.ToString();
      break;
    }
  }
  if (refused == 0) return;
  std::fprintf(stderr,
               "dractl allocate: warning: %zu object%s of the scenario would be refused by the API server (first: "
               "%s); --scenario runs them as given\n",
               refused, refused == 1 ? "" : "s", first.c_str());
}

int RunScenarioFile(const std::string& scenario_path, uint64_t max_steps, alloc::DeviceChoice device_choice) {
  StatusOr<manifest::Scenario> scenario = manifest::LoadScenarioFile(scenario_path);
  if (!scenario.ok()) {
    std::fprintf(stderr, "dractl allocate: %s\n", scenario.status().message().c_str());
    return kExitInputError;
  }
  WarnAboutRefusedObjects(*scenario);
  alloc::AllocatorOptions options;
  if (max_steps != 0) options.max_steps = max_steps;
  options.device_choice = device_choice;
  ScenarioOutcome outcome = RunScenario(*scenario, std::move(options));
  std::string yaml = OutcomeYaml(outcome);
  std::fwrite(yaml.data(), 1, yaml.size(), stdout);
  if (outcome.kind == ScenarioOutcome::Kind::kUnsatisfiable) {
    std::fprintf(stderr, "%s\n", outcome.reason.ToString().c_str());
  }
  std::fprintf(stderr, "search steps: %llu\n", static_cast<unsigned long long>(outcome.steps));
  return kExitOk;
}

// "ns/name" or "name" (namespace "default").
std::string ClaimKey(std::string_view flag) {
  if (flag.find('/') == std::string_view::npos) return "default/" + std::string(flag);
  return std::string(flag);
}

struct ManifestFlags {
  std::vector<std::string> files;
  std::string node;
  std::vector<std::string> claims;
  std::vector<std::string> templates;
  std::string version{kDefaultRelease};
  std::string gates;
  std::string output = "yaml";
  uint64_t max_steps = 0;
  std::string device_choice = "first-fit";
};

// The objects of the input the allocation reads.
struct AllocateInput {
  std::vector<const api::DeviceClass*> classes;
  std::vector<const api::ResourceSlice*> raw_slices;
  std::vector<const api::DeviceTaintRule*> rules;
  std::map<std::string, const api::ResourceClaim*> claims_by_key;
  std::set<std::string> duplicates;  // claims in the input more than once
  const api::Node* node = nullptr;   // the Node named --node, if the input has it
};

AllocateInput SortInput(const manifest::LoadResult& loaded, const std::string& node_name) {
  AllocateInput in;
  for (const manifest::LoadedObject& o : loaded.objects) {
    if (const auto* c = std::get_if<api::DeviceClass>(&o.object)) in.classes.push_back(c);
    if (const auto* s = std::get_if<api::ResourceSlice>(&o.object)) in.raw_slices.push_back(s);
    if (const auto* r = std::get_if<api::DeviceTaintRule>(&o.object)) in.rules.push_back(r);
    if (const auto* c = std::get_if<api::ResourceClaim>(&o.object)) {
      const std::string key = c->metadata.namespace_ + "/" + c->metadata.name;
      if (in.claims_by_key.count(key) > 0) in.duplicates.insert(key);
      in.claims_by_key[key] = c;
    }
    if (const auto* n = std::get_if<api::Node>(&o.object); n != nullptr && n->metadata.name == node_name) in.node = n;
  }
  return in;
}

// A claim per --template, as the resource-claim controller would create it
// for a pod (named after the template here; not allocated yet): added to
// in.claims_by_key, owned by *from_templates, its key appended to
// *claim_flags. Returns the exit code of an error, or -1 to go on.
int AddTemplateClaims(const manifest::LoadResult& loaded, const std::vector<std::string>& templates, AllocateInput& in,
                      std::vector<std::unique_ptr<api::ResourceClaim>>* from_templates,
                      std::vector<std::string>* claim_flags) {
  for (const std::string& flag : templates) {
    const std::string key = ClaimKey(flag);
    const api::ResourceClaimTemplate* found = nullptr;
    for (const manifest::LoadedObject& o : loaded.objects) {
      if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&o.object);
          t != nullptr && t->metadata.namespace_ + "/" + t->metadata.name == key) {
        found = t;
      }
    }
    if (found == nullptr) {
      std::fprintf(stderr, "dractl allocate: --template %s: no ResourceClaimTemplate %s in the input\n", flag.c_str(),
                   key.c_str());
      return kExitInputError;
    }
    if (in.claims_by_key.count(key) > 0) {
      std::fprintf(stderr,
                   "dractl allocate: --template %s: a ResourceClaim %s exists too; name the claim with --claim\n",
                   flag.c_str(), key.c_str());
      return kExitUsageError;
    }
    auto claim = std::make_unique<api::ResourceClaim>();
    claim->metadata.name = found->metadata.name;
    claim->metadata.namespace_ = found->metadata.namespace_;
    claim->metadata.labels = found->spec.metadata.labels;
    claim->metadata.annotations = found->spec.metadata.annotations;
    claim->spec = found->spec.spec;
    in.claims_by_key[key] = claim.get();
    from_templates->push_back(std::move(claim));
    claim_flags->push_back(key);
  }
  return -1;
}

// The claims to allocate, in the order named, and their keys. Returns the
// exit code of an error (a claim missing, in the input twice or named twice),
// or -1 to go on.
int PickClaims(const std::vector<std::string>& claim_flags, const AllocateInput& in,
               std::vector<const api::ResourceClaim*>* to_allocate, std::vector<std::string>* keys) {
  for (const std::string& flag : claim_flags) {
    std::string key = ClaimKey(flag);
    auto it = in.claims_by_key.find(key);
    if (it == in.claims_by_key.end()) {
      std::fprintf(stderr, "dractl allocate: --claim %s: no ResourceClaim %s in the input\n", flag.c_str(),
                   key.c_str());
      return kExitInputError;
    }
    if (in.duplicates.count(key) > 0) {
      std::fprintf(stderr,
                   "dractl allocate: --claim %s: the input has more than one ResourceClaim %s (dractl validate "
                   "names them)\n",
                   flag.c_str(), key.c_str());
      return kExitInputError;
    }
    if (std::find(keys->begin(), keys->end(), key) != keys->end()) {
      std::fprintf(stderr, "dractl allocate: claim %s: named twice\n", flag.c_str());
      return kExitUsageError;
    }
    if (it->second->status.allocation) {
      std::fprintf(stderr,
                   "dractl allocate: note: claim %s is allocated already; its devices are treated as free "
                   "and it is allocated again\n",
                   key.c_str());
    }
    to_allocate->push_back(it->second);
    keys->push_back(std::move(key));
  }
  return -1;
}

// The allocated claims on stdout (one object, or a v1 List), and a summary on
// stderr.
void PrintAllocated(const std::vector<const api::ResourceClaim*>& to_allocate, alloc::NodeFit& fit,
                    const ManifestFlags& flags) {
  std::vector<manifest::Node> docs;
  for (size_t i = 0; i < to_allocate.size(); ++i) {
    api::ResourceClaim claim = *to_allocate[i];
    claim.status.allocation = std::move(fit.results[i]);
    docs.push_back(manifest::EncodeObject(api::Object(std::move(claim))));
  }
  manifest::Node root;
  if (docs.size() == 1) {
    root = std::move(docs[0]);
  } else {
    root = manifest::Node::Mapping();
    root.Add("apiVersion", manifest::Node::String("v1"));
    root.Add("kind", manifest::Node::String("List"));
    manifest::Node items = manifest::Node::Sequence();
    for (manifest::Node& d : docs) items.Push(std::move(d));
    root.Add("items", std::move(items));
  }
  std::string text = flags.output == "json" ? manifest::EmitJson(root, 4) : manifest::EmitYaml(root);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fprintf(stderr, "dractl allocate: %zu claim%s allocated on node %s (%llu search steps)\n", docs.size(),
               docs.size() == 1 ? "" : "s", flags.node.c_str(), static_cast<unsigned long long>(fit.steps));
}

int RunOnManifests(const ManifestFlags& flags) {
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl allocate", flags.version, flags.gates);
  if (!gates) return kExitUsageError;

  manifest::LoadResult loaded;
  LoadInputs(flags.files, {.keep_trees = true}, &loaded);
  // The API server defaults and validates every object before the scheduler
  // sees it; an invalid object here would make the answer meaningless.
  if (int rc = DefaultAndValidate(&loaded, *gates, "dractl allocate"); rc >= 0) return rc;

  AllocateInput in = SortInput(loaded, flags.node);
  std::vector<std::unique_ptr<api::ResourceClaim>> from_templates;
  std::vector<std::string> claim_flags = flags.claims;
  if (int rc = AddTemplateClaims(loaded, flags.templates, in, &from_templates, &claim_flags); rc >= 0) return rc;
  const api::Node* node = in.node;
  api::Node bare_node;
  if (node == nullptr) {
    std::fprintf(stderr,
                 "dractl allocate: warning: no Node \"%s\" in the input; its labels are taken as empty "
                 "(slices selecting nodes by label will not match)\n",
                 flags.node.c_str());
    bare_node.metadata.name = flags.node;
    node = &bare_node;
  }

  std::vector<const api::ResourceClaim*> to_allocate;
  std::vector<std::string> keys;
  if (int rc = PickClaims(claim_flags, in, &to_allocate, &keys); rc >= 0) return rc;

  alloc::Features features = alloc::Features::FromGates(*gates);
  // Devices in use: every allocated claim except the ones allocated now.
  std::vector<const api::ResourceClaim*> in_use;
  for (const auto& [key, claim] : in.claims_by_key) {
    if (claim->status.allocation && std::find(keys.begin(), keys.end(), key) == keys.end()) {
      in_use.push_back(claim);
    }
  }
  alloc::AllocatedState state;
  if (Status st = state.AddClaims(in_use, features); !st.ok()) {
    std::fprintf(stderr, "dractl allocate: allocated claims: %s\n", st.ToString().c_str());
    return kExitInputError;
  }

  std::vector<api::ResourceSlice> slices = alloc::ApplyDeviceTaintRules(in.raw_slices, in.rules, *gates);
  std::vector<const api::ResourceSlice*> slice_ptrs;
  slice_ptrs.reserve(slices.size());
  for (const api::ResourceSlice& s : slices) slice_ptrs.push_back(&s);
  alloc::SliceIndex index(std::move(slice_ptrs));
  StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> cel = alloc::NewCelSelectorEvaluator(features);
  if (!cel.ok()) {
    std::fprintf(stderr, "dractl allocate: internal error: %s\n", cel.status().ToString().c_str());
    return kExitInternalError;
  }
  alloc::AllocatorOptions options;
  if (flags.max_steps != 0) options.max_steps = flags.max_steps;
  options.device_choice = DeviceChoiceFor(flags.device_choice, "kube");
  alloc::Allocator allocator(features, std::move(state), in.classes, &index, cel->get(), std::move(options));
  StatusOr<alloc::NodeFit> fit = allocator.Allocate(*node, to_allocate);
  if (!fit.ok()) {
    // Upstream aborts scheduling of the pod on such errors (bad selector,
    // unsupported request, step limit).
    std::fprintf(stderr, "dractl allocate: error: node %s: %s\n", flags.node.c_str(),
                 std::string(fit.status().message()).c_str());
    return kExitInputError;
  }
  if (!fit->fits) {
    std::fprintf(stderr, "dractl allocate: node %s: %s\n", flags.node.c_str(), fit->reason.ToString().c_str());
    return kExitUnsatisfiable;
  }

  PrintAllocated(to_allocate, *fit, flags);
  return kExitOk;
}

}  // namespace

int RunAllocate(std::span<const std::string_view> args) {
  CLI::App app{
      "Allocates devices for ResourceClaims on one node, exactly as kube-scheduler's DRA\n"
      "allocator would, and prints the claims with status.allocation filled in.\n"
      "\n"
      "  dractl allocate -f cluster/ --node NODE --claim NS/NAME [--template NS/NAME ...]\n"
      "      reads DeviceClasses, ResourceSlices, DeviceTaintRules, ResourceClaims and\n"
      "      Nodes from the files; devices of other allocated claims count as in use.\n"
      "      Exit code 4 (and the reason on stderr) if the claims do not fit the node.\n"
      "  dractl allocate --scenario FILE\n"
      "      runs one allocator conformance scenario (dractl's conformance-scenario YAML) and\n"
      "      prints the outcome as YAML: allocations, unsatisfiable: true, or error. Its objects\n"
      "      are run as given, like upstream's allocator tests build them; a warning says when\n"
      "      the API server would refuse some.",
      "dractl allocate"};
  std::string scenario_path;
  ManifestFlags flags;
  CLI::Option* scenario = app.add_option("--scenario", scenario_path, "allocator conformance scenario file");
  CLI::Option* files = app.add_option("-f,--filename", flags.files, "file, directory or - (stdin); repeatable");
  app.add_option("--node", flags.node, "the node to allocate on (a Node object in -f supplies its labels)");
  app.add_option("--claim", flags.claims, "ResourceClaim NS/NAME (or NAME in default) to allocate; repeatable");
  app.add_option("--template", flags.templates,
                 "ResourceClaimTemplate NS/NAME: allocate a claim made from it (named after it); repeatable");
  app.add_option("--kubernetes-version", flags.version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", flags.gates, "gate overrides, e.g. DRAConsumableCapacity=true");
  app.add_option("--max-steps", flags.max_steps,
                 "give up after this many search steps (0: the default limit, 50,000,000); with -f or --scenario")
      ->check(NonNegativeInteger());
  app.add_option("--device-choice", flags.device_choice,
                 "first-fit (upstream: the driver's order) or best-fit (see `dractl schedule --help`); with -f or "
                 "--scenario")
      ->check(CLI::IsMember({"first-fit", "best-fit"}))
      ->capture_default_str();
  app.add_option("-o,--output", flags.output, "yaml or json")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  scenario->excludes(files);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  if (!scenario_path.empty())
    return RunScenarioFile(scenario_path, flags.max_steps, DeviceChoiceFor(flags.device_choice, "kube"));
  if (flags.files.empty() || flags.node.empty() || (flags.claims.empty() && flags.templates.empty())) {
    std::fprintf(stderr,
                 "dractl allocate: error: give --scenario FILE, or -f FILES with --node NAME and --claim "
                 "NS/NAME or --template NS/NAME\nRun 'dractl allocate --help' for usage.\n");
    return kExitUsageError;
  }
  return RunOnManifests(flags);
}

}  // namespace dra::cli
