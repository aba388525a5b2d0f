#include "cli/cluster_inputs.h"

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/validation.h"
#include "base/version.h"
#include "cel/dra/api_checker.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/list.h"
#include "manifest/loader.h"
#include "sched/resources.h"
#include "sched/snapshot.h"
#include "sched/workloads.h"
#include "sim/dra_engine.h"
#include "sim/frag.h"
#include "sim/import.h"
#include "sim/openb.h"

namespace dra::cli {
namespace {

// Appends the pods the workload controllers would create (sched/workloads.h)
// to `loaded`, before defaulting and validation, so that problems in a
// template are reported against the workload's file. Notes go to stderr.
// Returns, for each pod appended, its index in loaded->objects and the index
// of its workload in loaded->workloads.
std::vector<std::pair<size_t, size_t>> ExpandWorkloads(manifest::LoadResult* loaded, const char* command) {
  std::vector<std::pair<size_t, size_t>> from_workload;
  if (loaded->workloads.empty()) return from_workload;
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  for (const manifest::LoadedObject& o : loaded->objects) {
    if (const auto* p = std::get_if<api::Pod>(&o.object)) pods.push_back(*p);
    if (const auto* n = std::get_if<api::Node>(&o.object)) nodes.push_back(*n);
  }
  std::vector<api::Workload> workloads;
  for (const manifest::LoadedWorkload& w : loaded->workloads) workloads.push_back(w.workload);
  sched::ExpandedWorkloads expanded = sched::ExpandWorkloads(workloads, pods, nodes);
  for (const std::string& note : expanded.notes) std::fprintf(stderr, "%s: %s\n", command, note.c_str());
  for (const auto& [index, wanted] : expanded.over_limit) {
    const manifest::LoadedWorkload& w = loaded->workloads[index];
    loaded->messages.push_back(
        {.severity = api::Severity::kError,
         .file = w.file ? *w.file : "",
         .mark = w.mark,
         .object = sched::WorkloadDisplayName(w.workload),
         .field = w.workload.kind == api::WorkloadKind::kJob ? "spec.parallelism" : "spec.replicas",
         .message = fmt::format("Too many: {} pods: the workloads of one input may create at most {} pods", wanted,
                                sched::kMaxWorkloadPods)});
  }
  for (size_t i = 0; i < expanded.pods.size(); ++i) {
    const manifest::LoadedWorkload& from = loaded->workloads[expanded.workload[i]];
    manifest::LoadedObject o;
    o.object = std::move(expanded.pods[i]);
    o.file = from.file;
    o.mark = from.mark;
    from_workload.emplace_back(loaded->objects.size(), expanded.workload[i]);
    loaded->objects.push_back(std::move(o));
  }
  return from_workload;
}

// What a cluster cannot hold, which `validate` only warns about because it
// also reads unrelated files: two objects of one kind, namespace and name
// (which is the real one?) is an error; a bound pod whose node is not in the
// input is a warning (its requests count on no node).
void CheckIdentities(manifest::LoadResult* loaded) {
  std::set<std::string> nodes;
  for (const manifest::LoadedObject& o : loaded->objects) {
    if (const auto* n = std::get_if<api::Node>(&o.object)) nodes.insert(n->metadata.name);
  }
  for (const api::DuplicateObject& d : api::FindDuplicateObjects(
           loaded->objects.size(), [&](size_t i) -> const api::Object& { return loaded->objects[i].object; })) {
    const manifest::LoadedObject& o = loaded->objects[d.index];
    const manifest::LoadedObject& first = loaded->objects[d.first_index];
    const api::ObjectMeta& meta = api::MetaOf(o.object);
    api::FieldError e{.type = api::FieldErrorType::kDuplicate,
                      .field = "metadata.name",
                      .bad_value = "\"" + meta.name + "\"",
                      .detail = fmt::format("{} is already defined at {}:{}:{}; a cluster holds one object of a "
                                            "kind, namespace and name",
                                            manifest::ObjectDisplayName(o.object), first.file ? *first.file : "",
                                            first.mark.line, first.mark.column)};
    loaded->messages.push_back(ToMessage(o, e));
  }
  for (const manifest::LoadedObject& o : loaded->objects) {
    if (const auto* pod = std::get_if<api::Pod>(&o.object);
        pod != nullptr && !pod->spec.node_name.empty() && nodes.count(pod->spec.node_name) == 0) {
      api::FieldError e{.type = api::FieldErrorType::kNotFound,
                        .field = "spec.nodeName",
                        .bad_value = "\"" + pod->spec.node_name + "\"",
                        .detail =
                            "no Node of this name is among the objects given: the pod counts as bound, but "
                            "its requests and claims count on no node",
                        .severity = api::Severity::kWarning};
      loaded->messages.push_back(ToMessage(o, e));
    }
  }
}

// Lists the cluster from the API server into `loaded`. Returns -1 on
// success, else the exit code (the reason printed).
int LoadLive(const ClusterInputOptions& options, const manifest::LoadOptions& load_options,
             manifest::LoadResult* loaded) {
  kube::RestConfig config;
  const std::unique_ptr<kube::Client> client =
      ConnectToApiServer(options.command, options.kubeconfig, options.context, &config);
  if (client == nullptr) return kExitInputError;
  manifest::LoadOptions live_options = load_options;
  live_options.drop_managed_fields = true;
  manifest::Loader loader(live_options);
  size_t before = loaded->objects.size();
  std::string counts;
  std::vector<kube::Collection> collections = kube::SnapshotCollections();
  if (options.namespaces) collections.push_back({.path = "/api/v1/namespaces"});
  for (const kube::Collection& c : collections) {
    StatusOr<kube::ListResult> list = kube::ListAll(*client, c);
    if (!list.ok() && c.path == "/api/v1/namespaces") {
      // Only `audit` asks for them, to read one label; a role without them
      // (dractl serve's) still audits the rest.
      std::fprintf(stderr, "%s: warning: cannot list namespaces (%s): their labels are not checked\n", options.command,
                   list.status().message().c_str());
      continue;
    }
    if (!list.ok()) {
      std::fprintf(stderr, "%s: %s (%s)\n", options.command, list.status().message().c_str(), config.source.c_str());
      return kExitInputError;
    }
    size_t from = loaded->objects.size();
    for (const kube::ListPage& page : list->pages) loader.LoadText(page.body, page.name, loaded);
    if (!list->served) continue;
    std::string name = c.path.substr(c.path.rfind('/') + 1);
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", loaded->objects.size() - from, name);
  }
  std::fprintf(stderr, "%s: read %zu objects from %s (%s): %s\n", options.command, loaded->objects.size() - before,
               config.server.c_str(), config.source.c_str(), counts.c_str());
  return -1;
}

}  // namespace

int LoadCluster(const std::vector<std::string>& files, const api::FeatureGates& gates,
                const ClusterInputOptions& options, manifest::LoadResult* loaded) {
  const manifest::LoadOptions load_options{
      .keep_trees = true, .keep_workloads = options.expand_workloads, .keep_namespaces = options.namespaces};
  if (options.live) {
    if (int rc = LoadLive(options, load_options, loaded); rc >= 0) return rc;
  }
  LoadInputs(files, load_options, loaded);
  {
    std::vector<const api::Object*> inputs;
    for (const manifest::LoadedObject& o : loaded->objects) inputs.push_back(&o.object);
    std::vector<api::Node> implied = sched::ImpliedNodes(inputs);
    if (!implied.empty()) {
      std::fprintf(stderr,
                   "%s: warning: no Node objects in the input; assuming %zu node%s named by "
                   "ResourceSlices (no taints, allocatable cpu 1k, memory 16Ti, pods 110)\n",
                   options.command, implied.size(), implied.size() == 1 ? "" : "s");
    }
    for (api::Node& n : implied)
      loaded->objects.push_back({.object = std::move(n), .file = {}, .mark = {}, .tree = {}});
  }
  const std::vector<std::pair<size_t, size_t>> from_workload = ExpandWorkloads(loaded, options.command);
  std::map<size_t, size_t> workload_of(from_workload.begin(), from_workload.end());
  std::set<std::string> said;  // workload template messages already added
  // As for allocate: the API server defaults and validates every object first.
  const std::unique_ptr<api::CelExpressionChecker> cel = cel::NewApiServerChecker(gates);
  for (size_t i = 0; i < loaded->objects.size(); ++i) {
    manifest::LoadedObject& o = loaded->objects[i];
    api::SetDefaults(o.object, "1970-01-01T00:00:00Z", gates);
    // Errors and the API server's warnings (a gated field it would drop).
    for (const api::FieldError& e : api::Validate(o.object, gates, cel.get())) {
      auto w = workload_of.find(i);
      if (w == workload_of.end()) {
        loaded->messages.push_back(ToMessage(o, e));
        continue;
      }
      manifest::LoadMessage m = WorkloadTemplateMessage(loaded->workloads[w->second], e);
      if (said.insert(m.ToString()).second) loaded->messages.push_back(std::move(m));
    }
  }
  // A workload that makes no pods now (a CronJob, 0 replicas) is checked
  // all the same: the API server would refuse it on apply.
  std::set<size_t> expanded;
  for (const auto& [object, workload] : from_workload) expanded.insert(workload);
  for (size_t w = 0; w < loaded->workloads.size(); ++w) {
    if (expanded.contains(w)) continue;
    for (const api::FieldError& e : ValidateWorkloadTemplate(loaded->workloads[w].workload, gates).errors) {
      manifest::LoadMessage m = WorkloadTemplateMessage(loaded->workloads[w], e);
      if (said.insert(m.ToString()).second) loaded->messages.push_back(std::move(m));
    }
  }
  CheckIdentities(loaded);
  PrintMessages(*loaded);
  if (loaded->error_count() > 0) {
    std::fprintf(stderr, "%s: %zu input error%s (see above)\n", options.command, loaded->error_count(),
                 loaded->error_count() == 1 ? "" : "s");
    return kExitInputError;
  }
  return -1;
}

std::optional<ClusterInputOptions> InputOptions(const char* command, const std::vector<std::string>& files,
                                                const ClusterFlags& flags) {
  ClusterInputOptions options{.command = command,
                              .expand_workloads = flags.workloads == "expand",
                              .live = flags.live || !flags.kubeconfig.empty(),
                              .kubeconfig = flags.kubeconfig,
                              .context = flags.context};
  if (files.empty() && !options.live) {
    std::fprintf(stderr, "%s: no cluster: give -f FILE|DIR|- (repeatable), --live or --kubeconfig FILE\n", command);
    return std::nullopt;
  }
  if (!options.live && !flags.context.empty()) {
    std::fprintf(stderr, "%s: --context needs --live or --kubeconfig\n", command);
    return std::nullopt;
  }
  return options;
}

std::unique_ptr<sched::ScorePolicy> PolicyFromFlag(const char* command, const std::string& name) {
  StatusOr<std::unique_ptr<sched::ScorePolicy>> policy = sched::NewPolicy(name);
  if (!policy.ok()) {
    std::fprintf(stderr, "%s: --policy: %s\n", command, policy.status().message().c_str());
    return nullptr;
  }
  return std::move(*policy);
}

alloc::DeviceChoice DeviceChoiceFor(std::string_view device_choice, std::string_view policy) {
  if (device_choice == "best-fit") return alloc::DeviceChoice::kBestFit;
  if (device_choice == "first-fit") return alloc::DeviceChoice::kFirstFit;
  return policy == "binpack" || policy == "best-fit" ? alloc::DeviceChoice::kBestFit : alloc::DeviceChoice::kFirstFit;
}

int LoadWorkloadProfile(const std::vector<std::string>& files, const api::FeatureGates& gates,
                        const sched::Snapshot& cluster, const char* command, sched::WorkloadProfile* out) {
  std::vector<std::string> csv, manifests;
  for (const std::string& f : files) (f.ends_with(".csv") ? csv : manifests).push_back(f);
  const std::string source = fmt::format("--workload-profile {}", fmt::join(files, ","));
  std::vector<sim::OpenbPod> openb;
  for (const std::string& f : csv) {
    StatusOr<std::vector<sim::OpenbPod>> pods = sim::ReadOpenbPods(f);
    if (!pods.ok()) {
      std::fprintf(stderr, "%s: --workload-profile: %s\n", command, pods.status().message().c_str());
      return kExitInputError;
    }
    openb.insert(openb.end(), pods->begin(), pods->end());
  }
  if (manifests.empty()) {
    // The native simulator's typical pods, in its order (sim/frag.h).
    std::vector<sim::PodShape> shapes;
    std::vector<std::string> specs;
    for (const sim::OpenbPod& p : openb) {
      sim::PodShape s;
      s.cpu = p.cpu_milli;
      if (p.uses_gpu()) {
        s.milli = static_cast<int32_t>(p.gpu_milli);
        s.count = static_cast<int32_t>(p.num_gpu);
      }
      shapes.push_back(s);
      specs.push_back(p.gpu_spec);
    }
    *out = sim::OpenbProfile(sim::BuildTypicalPods(shapes, specs), source);
  } else {
    manifest::LoadResult loaded;
    const std::string prefix = fmt::format("{}: --workload-profile", command);
    const ClusterInputOptions options{
        .command = prefix.c_str(), .expand_workloads = true, .live = false, .kubeconfig = {}, .context = {}};
    if (int rc = LoadCluster(manifests, gates, options, &loaded); rc >= 0) return rc;
    std::vector<const api::Object*> objects;
    for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
    sched::Snapshot ps = sched::NewSnapshot(objects, gates);
    for (const api::ResourceClaimTemplate& t : cluster.templates) {
      if (ps.FindTemplate(t.metadata.namespace_, t.metadata.name) == nullptr) ps.templates.push_back(t);
    }
    std::vector<size_t> pods(ps.pods.size());
    for (size_t i = 0; i < pods.size(); ++i) pods[i] = i;
    std::vector<sched::WorkloadShape> shapes = sched::ShapesOfPods(ps, pods);
    // Templates of the profile's own files that no pod uses: one pod each.
    std::set<std::pair<std::string, std::string>> used;
    for (const api::Pod& p : ps.pods) {
      for (const api::PodResourceClaim& c : p.spec.resource_claims) {
        if (c.resource_claim_template_name) used.emplace(p.metadata.namespace_, *c.resource_claim_template_name);
      }
    }
    for (const api::Object* o : objects) {
      const auto* t = std::get_if<api::ResourceClaimTemplate>(o);
      if (t == nullptr || used.contains({t->metadata.namespace_, t->metadata.name})) continue;
      const api::ResourceClaimSpec* spec[] = {&t->spec.spec};
      shapes.push_back(sched::ShapeOf(0, 0, spec));
    }
    for (const sim::OpenbPod& p : openb) {
      std::vector<const api::ResourceClaimSpec*> specs;
      api::ResourceClaimSpec spec;
      if (p.uses_gpu()) {
        spec = sim::MakeClaimSpec(p);
        api::SetDefaults(spec);
        specs.push_back(&spec);
      }
      shapes.push_back(sched::ShapeOf(p.cpu_milli, 0, specs));
    }
    *out = sched::BuildProfile(shapes, source);
  }
  if (out->total_pods == 0) {
    std::fprintf(stderr, "%s: --workload-profile: no pods, workloads or claim templates in %s\n", command,
                 fmt::format("{}", fmt::join(files, ", ")).c_str());
    return kExitInputError;
  }
  return -1;
}

int PrepareProfile(const ClusterFlags& flags, const api::FeatureGates& gates, const sched::Snapshot& snapshot,
                   std::span<const size_t> default_pods, std::string default_source, const char* command,
                   std::optional<sched::WorkloadProfile>* profile) {
  if (flags.policy != "fgd" && flags.policy != "dra-pack") {
    if (!flags.workload_profile.empty()) {
      std::fprintf(stderr, "%s: note: --workload-profile is for --policy fgd and dra-pack; --policy %s ignores it\n",
                   command, flags.policy.c_str());
    }
    return -1;
  }
  sched::WorkloadProfile p;
  if (!flags.workload_profile.empty()) {
    if (int rc = LoadWorkloadProfile(flags.workload_profile, gates, snapshot, command, &p); rc >= 0) return rc;
  } else {
    p = sched::BuildProfile(sched::ShapesOfPods(snapshot, default_pods), std::move(default_source));
  }
  std::fprintf(stderr, "%s: --policy %s measures fragmentation against %s\n", command, flags.policy.c_str(),
               p.Describe().c_str());
  *profile = std::move(p);
  return -1;
}

sched::GangOptions GangOptionsFor(std::string_view gang, std::string_view policy, uint64_t search_steps) {
  sched::GangOptions options;
  const bool search = gang == "search" || (gang.empty() && policy != "kube");
  options.mode = search ? sched::GangMode::kSearch : sched::GangMode::kUpstream;
  options.max_steps = search_steps;
  return options;
}

void AddGangFlags(CLI::App& app, std::string* gang, uint64_t* search_steps) {
  app.add_option("--gang", *gang,
                 "pod groups (PodGroup, --feature-gates GenericWorkload=true): upstream places members one at a "
                 "time as kube-scheduler 1.37 does, all or nothing; search also reconsiders the members' node and "
                 "device choices where that fails (default: upstream with --policy kube, else search)")
      ->check(CLI::IsMember({"upstream", "search"}));
  app.add_option(
         "--gang-search-steps", *search_steps,
         "the search's budget per group: nodes filtered, members placed, allocator calls and their search steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void AddClusterFlags(CLI::App& app, ClusterFlags& flags) {
  app.add_option("--policy", flags.policy, kPolicyHelp)
      ->check(CLI::IsMember({"kube", "binpack", "best-fit", "fgd", "dra-pack"}))
      ->capture_default_str();
  app.add_option("--workload-profile", flags.workload_profile, kWorkloadProfileHelp)->expected(1, -1);
  app.add_option("--device-choice", flags.device_choice, kDeviceChoiceHelp)
      ->check(CLI::IsMember({"first-fit", "best-fit"}));
  app.add_option("--seed", flags.seed, "breaks ties between equally scored nodes deterministically")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  app.add_option("--kubernetes-version", flags.version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", flags.gates, "gate overrides, e.g. DRAConsumableCapacity=true");
  app.add_option("--max-steps", flags.max_steps,
                 "allocator search steps per node before giving up (0: the default limit, 50,000,000)")
      ->check(NonNegativeInteger());
  app.add_option("--workloads", flags.workloads,
                 "expand: workloads become the pods their controllers would create; ignore: skip them")
      ->check(CLI::IsMember({"expand", "ignore"}))
      ->capture_default_str();
  app.add_option("--percentage-of-nodes-to-score", flags.percentage_of_nodes_to_score,
                 "as kube-scheduler's: Filter stops after finding this share of the nodes feasible (at least "
                 "100 nodes); 0: its adaptive default (50% minus 1% per 125 nodes, at least 5%); 100: every node")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  AddGangFlags(app, &flags.gang, &flags.gang_search_steps);
  AddLiveFlags(app,
               "also read the cluster from its API server (nodes, pods, claims, templates, slices, classes, "
               "taint rules), found as kubectl finds it: $KUBECONFIG, ~/.kube/config, else in-cluster; "
               "nothing is written to it",
               &flags.live, &flags.kubeconfig, &flags.context);
}

std::unique_ptr<kube::Client> ConnectToApiServer(std::string_view command, const std::string& kubeconfig,
                                                 const std::string& context, kube::RestConfig* config) {
  StatusOr<kube::RestConfig> resolved = kube::ResolveConfig(kubeconfig, context);
  if (!resolved.ok()) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(),
                 resolved.status().message().c_str());
    return nullptr;
  }
  StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::New(*resolved, "dractl/" DRACTL_VERSION);
  if (!client.ok()) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(),
                 client.status().message().c_str());
    return nullptr;
  }
  *config = *std::move(resolved);
  return *std::move(client);
}

void AddLiveFlags(CLI::App& app, std::string live_help, bool* live, std::string* kubeconfig, std::string* context) {
  app.add_flag("--live", *live, std::move(live_help));
  app.add_option("--kubeconfig", *kubeconfig, "kubeconfig file for --live (implies --live)");
  app.add_option("--context", *context, "kubeconfig context for --live (default: current-context)");
}

}  // namespace dra::cli
