// dractl validate: everything the API server checks for the DRA kinds, plus
// cross-object checks it cannot make (as warnings), reported as
// `file:line:col: Kind ns/name: field.path: message`.
//
// CEL selectors and derived attributes are compiled as the API server
// compiles new expressions (cel/dra/api_checker.h), in the NewExpressions
// environment of the --kubernetes-version release and its feature gates:
//
//   spec.selectors[0].cel.expression: Invalid value: "...": compilation failed: ERROR: <input>:1:5: ...
//   spec.selectors[0].cel.expression: Invalid value: "1": must evaluate to bool or the unknown type, not int
//   spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit
//
// Every command that reads manifests validates them the same way
// (cli/common.h DefaultAndValidate, cli/cluster_inputs.h LoadCluster).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "base/release.h"
#include "cel/dra/api_checker.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/emit.h"

namespace dra::cli {
namespace {

manifest::Node MessageToJson(const manifest::LoadMessage& m) {
  manifest::Node n = manifest::Node::Mapping();
  n.Add("severity", manifest::Node::String(m.severity == api::Severity::kError ? "error" : "warning"));
  n.Add("file", manifest::Node::String(m.file));
  n.Add("line", manifest::Node::Int(m.mark.line));
  n.Add("column", manifest::Node::Int(m.mark.column));
  n.Add("object", manifest::Node::String(m.object));
  n.Add("field", manifest::Node::String(m.field));
  n.Add("message", manifest::Node::String(m.message));
  return n;
}

}  // namespace

int RunValidate(std::span<const std::string_view> args) {
  CLI::App app{
      "Checks DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates,\n"
      "DeviceTaintRules, Nodes, Pods, PodGroups and Workloads (scheduling.k8s.io, gate\n"
      "GenericWorkload), and the pod templates of Deployments, ReplicaSets,\n"
      "StatefulSets, DaemonSets, Jobs and CronJobs, as the API server would (names, required and\n"
      "one-of fields, limits, feature-gated fields, CEL selectors compiled with their\n"
      "result type and estimated cost), and across objects (missing classes and\n"
      "templates, inconsistent pools) as warnings.\n"
      "Prints one line per problem: file:line:col: Kind ns/name: field.path: message.\n"
      "Exit code 1 if any error was found, 0 otherwise.",
      "dractl validate"};
  std::vector<std::string> files;
  bool strict = false;
  std::string gates_flag;
  std::string version{kDefaultRelease};
  std::string output = "text";
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_flag("--strict", strict, "unknown fields are errors (in every object and workload pod template)");
  app.add_option("--kubernetes-version", version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", gates_flag,
                 "gate overrides, e.g. DRAListTypeAttributes=true,DRADeviceTaints=false");
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl validate", version, gates_flag);
  if (!gates) return kExitUsageError;

  manifest::LoadResult result;
  LoadInputs(files, {.strict = strict, .keep_trees = true, .keep_workloads = true}, &result);

  // Defaulting happens before validation on the API server, too.
  std::vector<api::Object> objects;
  objects.reserve(result.objects.size() + result.workloads.size());
  for (manifest::LoadedObject& loaded : result.objects) {
    api::SetDefaults(loaded.object, "1970-01-01T00:00:00Z", *gates);
    objects.push_back(loaded.object);
  }
  // A workload's pod template is checked as the pod its controller would
  // create (the API server validates it the same way, as a PodTemplateSpec),
  // across objects too; problems are reported once, at the template's fields.
  const size_t num_objects = objects.size();
  std::set<std::string> said;
  auto add_workload_message = [&](size_t w, const api::FieldError& e) {
    manifest::LoadMessage m = WorkloadTemplateMessage(result.workloads[w], e);
    if (said.insert(m.ToString()).second) result.messages.push_back(std::move(m));
  };
  for (size_t w = 0; w < result.workloads.size(); ++w) {
    TemplatePod t = ValidateWorkloadTemplate(result.workloads[w].workload, *gates);
    for (const api::FieldError& e : t.errors) add_workload_message(w, e);
    objects.push_back(std::move(t.pod));
  }
  const std::unique_ptr<api::CelExpressionChecker> cel = cel::NewApiServerChecker(*gates);
  for (size_t i = 0; i < result.objects.size(); ++i) {
    for (const api::FieldError& e : api::Validate(result.objects[i].object, *gates, cel.get())) {
      result.messages.push_back(ToMessage(result.objects[i], e));
    }
  }
  for (const api::ObjectFieldError& e : api::ValidateCrossObject(objects)) {
    if (e.object_index < num_objects) {
      result.messages.push_back(ToMessage(result.objects[e.object_index], e.error));
    } else if (e.object_index - num_objects < result.workloads.size() && !e.error.field.starts_with("metadata.name")) {
      add_workload_message(e.object_index - num_objects, e.error);
    }
  }
  // Stable order: by file, then position.
  std::stable_sort(result.messages.begin(), result.messages.end(),
                   [](const manifest::LoadMessage& a, const manifest::LoadMessage& b) {
                     if (a.file != b.file) return a.file < b.file;
                     if (a.mark.line != b.mark.line) return a.mark.line < b.mark.line;
                     return a.mark.column < b.mark.column;
                   });

  size_t errors = result.error_count();
  size_t warnings = result.warning_count();
  if (output == "json") {
    manifest::Node root = manifest::Node::Mapping();
    root.Add("objects", manifest::Node::Int(static_cast<int64_t>(result.objects.size())));
    root.Add("workloads", manifest::Node::Int(static_cast<int64_t>(result.workloads.size())));
    root.Add("files", manifest::Node::Int(static_cast<int64_t>(result.files)));
    manifest::Node skipped = manifest::Node::Mapping();
    for (const auto& [kind, count] : result.skipped_kinds) {
      skipped.Add(kind, manifest::Node::Int(static_cast<int64_t>(count)));
    }
    root.Add("skipped", skipped);
    root.Add("errors", manifest::Node::Int(static_cast<int64_t>(errors)));
    root.Add("warnings", manifest::Node::Int(static_cast<int64_t>(warnings)));
    manifest::Node list = manifest::Node::Sequence();
    for (const auto& m : result.messages) list.Push(MessageToJson(m));
    root.Add("problems", list);
    std::fputs(manifest::EmitJson(root, 2).c_str(), stdout);
  } else {
    for (const auto& m : result.messages) std::printf("%s\n", m.ToString().c_str());
    std::fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", DescribeLoad(result).c_str(), errors,
                 errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  }
  return errors > 0 ? kExitInputError : kExitOk;
}

}  // namespace dra::cli
