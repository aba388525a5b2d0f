// dractl migrate (issue #25): device-plugin workloads rewritten for DRA
// (migrate/migrate.h), and with --check scheduled before and after on a
// cluster (migrate/check.h).
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/defaults.h"
#include "api/validation.h"
#include "cel/dra/api_checker.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "kube/list.h"
#include "manifest/emit.h"
#include "migrate/check.h"
#include "migrate/migrate.h"

namespace dra::cli {
namespace {

struct MigrateFlags {
  std::vector<std::string> files;
  std::vector<std::string> cluster;
  std::string mode = "claims";
  std::string output = "yaml";
  bool check = false;
  GateFlags gates;
  bool live = false;
  std::string kubeconfig;
  std::string context;
};

// What a live object carries that the API server fills in, dropped so that
// the output can be applied again: status, and these fields of metadata.
constexpr std::string_view kServerMetadata[] = {"uid",           "resourceVersion", "generation", "creationTimestamp",
                                                "managedFields", "selfLink"};

// "apiVersion kind namespace/name" of an object's tree.
std::string ObjectId(const manifest::Node& root) {
  auto text = [](const manifest::Node* n) { return n != nullptr ? n->text : std::string(); };
  const manifest::Node* meta = root.Find("metadata");
  return fmt::format("{} {} {}/{}", text(root.Find("apiVersion")), text(root.Find("kind")),
                     text(meta != nullptr ? meta->Find("namespace") : nullptr),
                     text(meta != nullptr ? meta->Find("name") : nullptr));
}

// True if a controller owns the object (its pods are the controller's
// template's: that is what is migrated).
bool ControllerOwned(const manifest::Node& root) {
  const manifest::Node* meta = root.Find("metadata");
  const manifest::Node* owners = meta != nullptr ? meta->Find("ownerReferences") : nullptr;
  if (owners == nullptr || !owners->is_sequence()) return false;
  for (const manifest::Node& o : owners->items) {
    const manifest::Node* controller = o.Find("controller");
    if (controller != nullptr && controller->kind == manifest::NodeKind::kBool && controller->bool_value) return true;
  }
  return false;
}

// The workloads of the API server (`workloads`) or its Nodes, ResourceSlices
// and DeviceClasses (`cluster`), as -f would read `kubectl get -o yaml` of
// them: each list item gets its kind and apiVersion back. Workloads a
// controller owns are left out, and what the server fills in is dropped
// (a bare Pod's nodeName too: the migrated pod is scheduled anew).
// Returns -1 on success, else the exit code (the reason printed).
int ReadLive(const MigrateFlags& flags, bool workloads, manifest::LoadResult* loaded,
             std::vector<migrate::SourceObject>* objects) {
  constexpr char kCommand[] = "dractl migrate";
  kube::RestConfig config;
  const std::unique_ptr<kube::Client> client = ConnectToApiServer(kCommand, flags.kubeconfig, flags.context, &config);
  if (client == nullptr) return kExitInputError;
  const std::vector<std::string> paths =
      workloads ? std::vector<std::string>{"/api/v1/pods",
                                           "/apis/apps/v1/deployments",
                                           "/apis/apps/v1/replicasets",
                                           "/apis/apps/v1/statefulsets",
                                           "/apis/apps/v1/daemonsets",
                                           "/apis/batch/v1/jobs",
                                           "/apis/batch/v1/cronjobs"}
                : std::vector<std::string>{"/api/v1/nodes", "/apis/resource.k8s.io/v1/resourceslices",
                                           "/apis/resource.k8s.io/v1/deviceclasses"};
  const manifest::Loader loader({.keep_trees = true, .keep_workloads = true, .drop_managed_fields = true});
  size_t read = 0;
  for (const std::string& path : paths) {
    StatusOr<kube::ListResult> list = kube::ListAll(*client, {.path = path});
    if (!list.ok()) {
      std::fprintf(stderr, "%s: %s (%s)\n", kCommand, list.status().message().c_str(), config.source.c_str());
      return kExitInputError;
    }
    for (kube::ListPage& page : list->pages) {
      const manifest::Node* kind_node = page.tree.Find("kind");
      const manifest::Node* version_node = page.tree.Find("apiVersion");
      const std::string list_kind = kind_node != nullptr ? kind_node->text : "";
      const std::string api_version = version_node != nullptr ? version_node->text : "";
      manifest::Node* items = page.tree.Find("items");
      if (items == nullptr || !items->is_sequence() || !list_kind.ends_with("List")) continue;
      auto file = std::make_shared<const std::string>(page.name);
      for (manifest::Node& item : items->items) {
        if (!item.is_mapping() || (workloads && ControllerOwned(item))) continue;
        item.keys.insert(item.keys.begin(), {{"apiVersion", {}}, {"kind", {}}});
        item.items.insert(item.items.begin(), {manifest::Node::String(api_version),
                                               manifest::Node::String(list_kind.substr(0, list_kind.size() - 4))});
        if (workloads) {
          item.Erase("status");
          if (manifest::Node* meta = item.Find("metadata")) {
            for (std::string_view key : kServerMetadata) meta->Erase(key);
          }
          if (manifest::Node* spec = item.Find("spec"); spec != nullptr && list_kind == "PodList") {
            spec->Erase("nodeName");
          }
        }
        loader.LoadText(manifest::EmitJson(item), *file, loaded);
        if (objects != nullptr) objects->push_back({.root = std::move(item), .file = file});
        ++read;
      }
    }
  }
  std::fprintf(stderr, "%s: read %zu %s from %s (%s)\n", kCommand, read,
               workloads ? "pods and workloads (those a controller owns left out)" : "nodes, slices and classes",
               config.server.c_str(), config.source.c_str());
  return -1;
}

// Reads -f: every text is loaded (for validation and --check) and parsed
// into trees (for the rewrite). Messages (unreadable files) join `loaded`.
void ReadInputs(const std::vector<std::string>& paths, manifest::LoadResult* loaded,
                std::vector<migrate::SourceObject>* objects) {
  const manifest::Loader loader({.keep_trees = true, .keep_workloads = true});
  auto each = [&](std::string_view text, const std::string& file) {
    loader.LoadText(text, file, loaded);
    StatusOr<std::vector<manifest::Document>> docs = manifest::ParseManifestText(text, file);
    if (!docs.ok()) return;  // the loader said why
    auto name = std::make_shared<const std::string>(file);
    for (manifest::Document& d : *docs) {
      if (!d.root.is_null()) migrate::AppendObjects(std::move(d.root), name, objects);
    }
  };
  for (const std::string& path : paths) {
    if (const std::string* text = FindInlineInput(path)) {
      each(*text, path);
    } else {
      manifest::ReadManifestTexts(path, &loaded->messages, each);
    }
  }
}

std::string OutputText(const std::vector<manifest::Node>& objects, const std::string& format) {
  if (format == "yaml") return manifest::EmitYamlDocuments(objects);
  manifest::Node list = manifest::Node::Mapping();
  list.Add("apiVersion", manifest::Node::String("v1"));
  list.Add("kind", manifest::Node::String("List"));
  manifest::Node items = manifest::Node::Sequence();
  for (const manifest::Node& o : objects) items.Push(o);
  list.Add("items", std::move(items));
  return manifest::EmitJson(list);
}

// The output read back as `dractl validate` reads it. Errors in it are
// dractl's own bugs: printed, and false returned.
bool LoadOutput(const std::string& text, const api::FeatureGates& gates, manifest::LoadResult* out) {
  manifest::Loader({.keep_trees = true, .keep_workloads = true}).LoadText(text, "<migrate output>", out);
  manifest::LoadResult checked = *out;
  size_t errors = checked.error_count();
  const std::unique_ptr<api::CelExpressionChecker> cel = cel::NewApiServerChecker(gates);
  for (manifest::LoadedObject& o : checked.objects) {
    api::SetDefaults(o.object, "1970-01-01T00:00:00Z");
    for (const api::FieldError& e : api::Validate(o.object, gates, cel.get())) {
      if (e.severity == api::Severity::kWarning) continue;
      std::fprintf(stderr, "%s\n", ToMessage(o, e).ToString().c_str());
      ++errors;
    }
  }
  for (const manifest::LoadedWorkload& w : checked.workloads) {
    for (const api::FieldError& e : ValidateWorkloadTemplate(w.workload, gates).errors) {
      if (e.severity == api::Severity::kWarning) continue;
      std::fprintf(stderr, "%s\n", WorkloadTemplateMessage(w, e).ToString().c_str());
      ++errors;
    }
  }
  for (const manifest::LoadMessage& m : checked.messages) {
    if (m.severity == api::Severity::kError) std::fprintf(stderr, "%s\n", m.ToString().c_str());
  }
  return errors == 0;
}

int Run(const MigrateFlags& flags) {
  constexpr char kCommand[] = "dractl migrate";
  std::optional<api::FeatureGates> gates = GatesFromFlags(kCommand, flags.gates.version, flags.gates.gates);
  if (!gates) return kExitUsageError;
  if (flags.files.empty() && !flags.live) {
    std::fprintf(stderr,
                 "%s: error: no workloads: give -f FILE|DIR|- (repeatable), --live or --kubeconfig FILE\n"
                 "Run '%s --help' for usage.\n",
                 kCommand, kCommand);
    return kExitUsageError;
  }
  if (flags.check && flags.cluster.empty() && !flags.live) {
    std::fprintf(stderr,
                 "%s: error: --check needs --cluster (the Nodes, ResourceSlices and DeviceClasses to "
                 "schedule on)\nRun '%s --help' for usage.\n",
                 kCommand, kCommand);
    return kExitUsageError;
  }

  manifest::LoadResult input;
  std::vector<migrate::SourceObject> objects;
  if (flags.live && flags.files.empty()) {
    if (int rc = ReadLive(flags, /*workloads=*/true, &input, &objects); rc >= 0) return rc;
  }
  ReadInputs(flags.files, &input, &objects);
  {
    manifest::LoadResult checked = input;
    if (int rc = DefaultAndValidate(&checked, *gates, kCommand); rc >= 0) return rc;
  }
  manifest::LoadResult cluster;
  const bool live_cluster = flags.live && flags.cluster.empty();
  if (live_cluster) {
    if (int rc = ReadLive(flags, /*workloads=*/false, &cluster, nullptr); rc >= 0) return rc;
  }
  if (!flags.cluster.empty() || live_cluster) {
    LoadInputs(flags.cluster, {.keep_trees = true}, &cluster);
    if (int rc = DefaultAndValidate(&cluster, *gates, kCommand); rc >= 0) return rc;
  }

  migrate::MigrateOptions options{
      .mode = flags.mode == "claims" ? migrate::Mode::kClaims : migrate::Mode::kExtendedResource,
      .existing_classes = {},
      .cluster_known = !flags.cluster.empty() || live_cluster};
  for (const manifest::LoadedObject& o : cluster.objects) {
    if (const auto* c = std::get_if<api::DeviceClass>(&o.object)) {
      options.existing_classes.emplace(c->metadata.name, c->spec.extended_resource_name.value_or(""));
    }
  }
  std::vector<manifest::LoadMessage> sharing_messages;  // Migrate reports them itself
  const migrate::SharingConfig sharing = migrate::ReadSharing(objects, &sharing_messages);
  // Read live, the cluster's workloads that need no change are not printed:
  // only what migrate adds (templates, classes) or rewrites.
  const bool live_workloads = flags.live && flags.files.empty();
  std::map<std::string, manifest::Node> unchanged;  // by ObjectId, the inputs
  if (live_workloads) {
    for (const migrate::SourceObject& o : objects) unchanged.emplace(ObjectId(o.root), o.root);
  }
  migrate::MigrateResult result = migrate::Migrate(std::move(objects), options);
  if (live_workloads) {
    std::erase_if(result.objects, [&](const manifest::Node& o) {
      auto it = unchanged.find(ObjectId(o));
      return it != unchanged.end() && it->second == o;
    });
  }
  for (const manifest::LoadMessage& m : result.messages) std::fprintf(stderr, "%s\n", m.ToString().c_str());
  for (const std::string& note : result.notes) std::fprintf(stderr, "%s: note: %s\n", kCommand, note.c_str());
  if (size_t errors = result.error_count(); errors > 0) {
    std::fprintf(stderr, "%s: %zu error%s (see above): nothing printed\n", kCommand, errors, errors == 1 ? "" : "s");
    return kExitInputError;
  }

  const std::string text = OutputText(result.objects, flags.output);
  manifest::LoadResult output;
  if (!LoadOutput(text, *gates, &output)) {
    std::fprintf(stderr,
                 "%s: internal error: the output does not validate (see above); please report it with "
                 "the input\n",
                 kCommand);
    return kExitInternalError;
  }
  std::fprintf(stderr, "%s: %zu workload%s rewritten, %zu ResourceClaimTemplate%s, %zu DeviceClass%s added\n", kCommand,
               result.rewritten, result.rewritten == 1 ? "" : "s", result.templates, result.templates == 1 ? "" : "s",
               result.classes.size(), result.classes.size() == 1 ? "" : "es");
  if (!flags.check) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }

  migrate::CheckInputs check{.cluster = {},
                             .before_objects = {},
                             .before_workloads = {},
                             .after_objects = {},
                             .after_workloads = {},
                             .sharing = sharing};
  bool nodes = false;
  for (const manifest::LoadedObject& o : cluster.objects) {
    nodes = nodes || std::holds_alternative<api::Node>(o.object);
    check.cluster.push_back(o.object);
  }
  if (!nodes) {
    std::fprintf(stderr,
                 "%s: --check needs Node objects in --cluster, with their labels and allocatable "
                 "device-plugin resources (kubectl get nodes -o yaml)\n",
                 kCommand);
    return kExitInputError;
  }
  for (const manifest::LoadedObject& o : input.objects) check.before_objects.push_back(o.object);
  for (const manifest::LoadedWorkload& w : input.workloads) check.before_workloads.push_back(w.workload);
  for (const manifest::LoadedObject& o : output.objects) check.after_objects.push_back(o.object);
  for (const manifest::LoadedWorkload& w : output.workloads) check.after_workloads.push_back(w.workload);
  StatusOr<migrate::CheckReport> report = migrate::Check(check, *gates);
  if (!report.ok()) {
    std::fprintf(stderr, "%s: internal error: %s\n", kCommand, report.status().ToString().c_str());
    return kExitInternalError;
  }
  const std::string table = migrate::FormatCheck(*report);
  std::fwrite(table.data(), 1, table.size(), stdout);
  return kExitOk;
}

}  // namespace

int RunMigrate(std::span<const std::string_view> args) {
  CLI::App app{
      "Rewrites workloads that ask device plugins for devices (nvidia.com/gpu, nvidia.com/mig-<profile>,\n"
      "time-sliced <name>.shared, google.com/tpu, amd.com/gpu) with node labels of GPU feature discovery\n"
      "(nvidia.com/gpu.product, gpu.memory, gpu.family, mig.strategy, cloud.google.com/gke-accelerator,\n"
      "gke-tpu-accelerator, ...) for Dynamic Resource Allocation. Pods, Deployments, ReplicaSets,\n"
      "StatefulSets, DaemonSets, Jobs and CronJobs are rewritten; every other object (and the device\n"
      "plugin's time-slicing ConfigMap, which says which names are time-sliced) is printed as it was.\n"
      "Object order, names and the fields migrate does not touch are kept.\n"
      "\n"
      "  dractl migrate -f workloads/ [--cluster cluster.yaml] [-o yaml|json] > migrated.yaml\n"
      "  dractl migrate -f workloads/ --mode extended-resource     # keep nvidia.com/gpu: DeviceClasses only\n"
      "  dractl migrate -f workloads/ --cluster cluster.yaml --check   # before/after scheduling\n"
      "\n"
      "--mode claims (default): a ResourceClaimTemplate per distinct request (class gpu.nvidia.com,\n"
      "mig.nvidia.com with the profile, tpu.google.com, gpu.amd.com; count; CEL selectors for the labels:\n"
      "product -> productName, memory -> capacity['gpu.nvidia.com'].memory, family -> architecture;\n"
      "time-slicing -> the driver's GpuConfig sharing.strategy TimeSlicing), named <workload>-<claim>\n"
      "and placed before the first workload that uses it; the pod gets spec.resourceClaims and each\n"
      "container resources.claims; the device-plugin limits and the translated label constraints are\n"
      "removed, other constraints kept. DeviceClasses the templates use are added first when the\n"
      "--cluster lacks them (without --cluster: always, with a note).\n"
      "--mode extended-resource: the workloads stay as they are; a DeviceClass per resource with\n"
      "extendedResourceName (served by DRA on nodes without the device plugin) and the selector of the\n"
      "devices the plugin exposed.\n"
      "--check (needs --cluster: Nodes with labels and allocatable device-plugin resources, plus\n"
      "ResourceSlices): schedules the workloads before (device plugin) and after (DRA) and prints per pod\n"
      "where it went, the kind of device (product, MIG profile), and whether it would no longer fit or\n"
      "land on a different kind of device.\n"
      "What cannot be translated is named with file:line and why on stderr: unknown device-plugin\n"
      "resources are errors (exit 1, nothing printed); labels dractl cannot map (nvidia.com/gpu.count,\n"
      "DoesNotExist, ORed terms, preferences) are warnings and stay as node constraints.",
      "dractl migrate"};
  MigrateFlags flags;
  app.add_option("-f,--filename", flags.files, "workloads: file, directory or - (stdin); repeatable");
  app.add_option("--cluster", flags.cluster,
                 "the cluster: Nodes, ResourceSlices, DeviceClasses (files, directories); DeviceClasses it has are "
                 "not added; needed by --check")
      ->type_name("FILE");
  app.add_option("--mode", flags.mode, "claims or extended-resource")
      ->check(CLI::IsMember({"claims", "extended-resource"}))
      ->capture_default_str();
  app.add_option("-o,--output", flags.output, "yaml or json (a v1 List)")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  app.add_flag("--check", flags.check,
               "schedule before and after on --cluster and list the pods that would no longer fit or land on a "
               "different kind of device (instead of printing the objects)");
  AddGateFlags(app, &flags.gates);
  AddLiveFlags(app,
               "read from the API server (as kubectl finds it): without -f the workloads (Pods, Deployments, "
               "ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs; those a controller owns are left to it), "
               "without --cluster the Nodes, ResourceSlices and DeviceClasses; nothing is written to it",
               &flags.live, &flags.kubeconfig, &flags.context);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  if (!flags.kubeconfig.empty()) flags.live = true;
  return Run(flags);
}

}  // namespace dra::cli
