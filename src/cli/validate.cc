// dractl validate: everything the API server checks for the DRA kinds, plus
// cross-object checks it cannot make (as warnings), reported as
// `file:line:col: Kind ns/name: field.path: message`.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "manifest/emit.h"

namespace dra::cli {
namespace {

manifest::LoadMessage ToMessage(const manifest::LoadedObject& loaded, const api::FieldError& error) {
  manifest::LoadMessage m;
  m.severity = error.severity;
  m.file = loaded.file ? *loaded.file : "";
  m.mark = loaded.tree ? manifest::FindFieldMark(*loaded.tree, error.field) : loaded.mark;
  m.object = manifest::ObjectDisplayName(loaded.object);
  m.field = error.field;
  api::FieldError copy = error;
  copy.field.clear();
  m.message = copy.ToString();
  return m;
}

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
      "DeviceTaintRules, Nodes and Pods as the API server would (names, required and\n"
      "one-of fields, limits, feature-gated fields), and across objects (missing\n"
      "classes and templates, inconsistent pools) as warnings.\n"
      "Prints one line per problem: file:line:col: Kind ns/name: field.path: message.\n"
      "Exit code 1 if any error was found, 0 otherwise.",
      "dractl validate"};
  std::vector<std::string> files;
  bool strict = false;
  std::string gates_flag;
  std::string version = "1.37";
  std::string output = "text";
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_flag("--strict", strict, "unknown fields in resource.k8s.io objects are errors");
  app.add_option("--kubernetes-version", version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", gates_flag, "gate overrides, e.g. DRAListTypeAttributes=true,DRADeviceTaints=false");
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults(version);
  if (!gates.ok()) {
    std::fprintf(stderr, "dractl validate: --kubernetes-version: %s\n", gates.status().message().c_str());
    return kExitUsageError;
  }
  if (!gates_flag.empty()) {
    if (Status s = gates->ParseFlag(gates_flag); !s.ok()) {
      std::fprintf(stderr, "dractl validate: --feature-gates: %s\n", s.message().c_str());
      return kExitUsageError;
    }
  }

  manifest::LoadResult result;
  LoadInputs(files, {.strict = strict, .keep_trees = true}, &result);

  // Defaulting happens before validation on the API server, too.
  std::vector<api::Object> objects;
  objects.reserve(result.objects.size());
  for (manifest::LoadedObject& loaded : result.objects) {
    api::SetDefaults(loaded.object, "1970-01-01T00:00:00Z");
    objects.push_back(loaded.object);
  }
  for (size_t i = 0; i < result.objects.size(); ++i) {
    for (const api::FieldError& e : api::Validate(result.objects[i].object, *gates)) {
      result.messages.push_back(ToMessage(result.objects[i], e));
    }
  }
  for (const api::ObjectFieldError& e : api::ValidateCrossObject(objects)) {
    if (e.object_index < result.objects.size()) {
      result.messages.push_back(ToMessage(result.objects[e.object_index], e.error));
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
