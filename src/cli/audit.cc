// dractl audit: findings about a cluster's DRA setup (audit/audit.h), as a
// table or JSON; exit 1 when one is at or above --fail-on (for CI).
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "api/object.h"
#include "audit/audit.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "manifest/emit.h"

namespace dra::cli {
namespace {

struct AuditFlags {
  std::vector<std::string> files;
  ClusterFlags cluster;  // the input options (-f, --live) only
  GateFlags gates;
  std::string output = "table";
  std::string fail_on = "error";
  uint64_t cost_warning = 100'000;
};

// Where each finding's object (and field, where the tree has it) is written:
// "file:line", or "" for objects not read from a file.
class Locator {
 public:
  explicit Locator(const manifest::LoadResult& loaded) {
    for (const manifest::LoadedObject& o : loaded.objects) {
      by_name_.emplace(std::make_pair(std::string(api::KindName(o.object)), api::ObjectName(o.object)), &o);
    }
  }
  std::string Find(const audit::Finding& f) const {
    auto it = by_name_.find({f.kind, f.object});
    if (it == by_name_.end() || it->second->file == nullptr) return "";
    const manifest::LoadedObject& o = *it->second;
    manifest::Mark mark = o.mark;
    if (o.tree != nullptr && !f.field.empty()) {
      const manifest::Mark field = manifest::FindFieldMark(*o.tree, f.field);
      if (field.line != 0) mark = field;
    }
    return fmt::format("{}:{}", *o.file, mark.line);
  }

 private:
  std::map<std::pair<std::string, std::string>, const manifest::LoadedObject*> by_name_;
};

std::string ObjectText(const audit::Finding& f) { return f.kind.empty() ? f.object : f.kind + " " + f.object; }

int Run(const AuditFlags& flags) {
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl audit", flags.gates.version, flags.gates.gates);
  if (!gates) return kExitUsageError;
  std::optional<ClusterInputOptions> inputs = InputOptions("dractl audit", flags.files, flags.cluster);
  if (!inputs) return kExitUsageError;
  inputs->expand_workloads = false;
  inputs->namespaces = true;
  manifest::LoadResult loaded;
  if (int rc = LoadCluster(flags.files, *gates, *inputs, &loaded); rc >= 0) return rc;
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  const sched::Snapshot snapshot = sched::NewSnapshot(objects, *gates);
  audit::AuditOptions options{
      .namespaces = {}, .namespaces_known = !loaded.namespaces.empty(), .cost_warning = flags.cost_warning};
  for (const manifest::LoadedNamespace& n : loaded.namespaces) {
    options.namespaces.push_back({.name = n.name, .labels = n.labels});
  }
  StatusOr<std::vector<audit::Finding>> findings = audit::Audit(snapshot, options);
  if (!findings.ok()) {
    std::fprintf(stderr, "dractl audit: internal error: %s\n", findings.status().ToString().c_str());
    return kExitInternalError;
  }
  const Locator locator(loaded);
  std::map<audit::Severity, size_t> by_severity;
  std::map<std::string, size_t> by_id;
  for (const audit::Finding& f : *findings) {
    ++by_severity[f.severity];
    ++by_id[f.id];
  }
  const auto count = [&](audit::Severity s) { return by_severity.contains(s) ? by_severity.at(s) : size_t{0}; };
  if (flags.output == "json") {
    manifest::Node list = manifest::Node::Sequence();
    for (const audit::Finding& f : *findings) {
      manifest::Node item = manifest::Node::Mapping();
      item.Add("id", manifest::Node::String(f.id));
      item.Add("severity", manifest::Node::String(std::string(audit::SeverityName(f.severity))));
      item.Add("object", manifest::Node::String(ObjectText(f)));
      item.Add("field", manifest::Node::String(f.field));
      item.Add("message", manifest::Node::String(f.message));
      item.Add("fix", manifest::Node::String(f.fix));
      if (std::string at = locator.Find(f); !at.empty()) item.Add("location", manifest::Node::String(at));
      list.Push(std::move(item));
    }
    manifest::Node summary = manifest::Node::Mapping();
    summary.Add("errors", manifest::Node::Int(static_cast<int64_t>(count(audit::Severity::kError))));
    summary.Add("warnings", manifest::Node::Int(static_cast<int64_t>(count(audit::Severity::kWarning))));
    summary.Add("info", manifest::Node::Int(static_cast<int64_t>(count(audit::Severity::kInfo))));
    manifest::Node ids = manifest::Node::Mapping();
    for (const auto& [id, n] : by_id) ids.Add(id, manifest::Node::Int(static_cast<int64_t>(n)));
    summary.Add("byId", std::move(ids));
    summary.Add("devices", manifest::Node::Int(static_cast<int64_t>([&] {
                  size_t n = 0;
                  for (const api::ResourceSlice& s : snapshot.slices) n += s.spec.devices.size();
                  return n;
                }())));
    summary.Add("nodes", manifest::Node::Int(static_cast<int64_t>(snapshot.nodes.size())));
    manifest::Node root = manifest::Node::Mapping();
    root.Add("findings", std::move(list));
    root.Add("summary", std::move(summary));
    std::string json = manifest::EmitJson(root, 2);
    if (json.empty() || json.back() != '\n') json += '\n';
    std::fputs(json.c_str(), stdout);
  } else {
    for (const audit::Finding& f : *findings) {
      const std::string at = locator.Find(f);
      std::printf("%-7s  %s  %s%s\n", std::string(audit::SeverityName(f.severity)).c_str(), f.id.c_str(),
                  ObjectText(f).c_str(), at.empty() ? "" : ("  (" + at + ")").c_str());
      std::printf("  %s%s%s\n", f.field.c_str(), f.field.empty() ? "" : ": ", f.message.c_str());
      std::printf("  fix: %s\n", f.fix.c_str());
    }
    std::printf("%s%zu finding%s: %zu error%s, %zu warning%s, %zu info\n", findings->empty() ? "" : "\n",
                findings->size(), findings->size() == 1 ? "" : "s", count(audit::Severity::kError),
                count(audit::Severity::kError) == 1 ? "" : "s", count(audit::Severity::kWarning),
                count(audit::Severity::kWarning) == 1 ? "" : "s", count(audit::Severity::kInfo));
  }
  const audit::Severity threshold = flags.fail_on == "info"      ? audit::Severity::kInfo
                                    : flags.fail_on == "warning" ? audit::Severity::kWarning
                                                                 : audit::Severity::kError;
  if (flags.fail_on == "none") return kExitOk;
  for (const audit::Finding& f : *findings) {
    if (f.severity >= threshold) return kExitInputError;
  }
  return kExitOk;
}

}  // namespace

int RunAudit(std::span<const std::string_view> args) {
  CLI::App app{
      "Audits a cluster's DRA setup: what makes pods fail at scheduling time for reasons nobody sees.\n"
      "Each finding has a stable ID, a severity, the object and field, and a one-line fix:\n"
      "  class-matches-nothing, device-in-no-class, classes-overlap     DeviceClasses over every device\n"
      "  selector-runtime-error, selector-cost-high                     selectors as kube-scheduler runs them\n"
      "  claim-fits-no-node                 unallocated claims and templates no node holds, even empty\n"
      "  admin-access-namespace             adminAccess where the namespace lacks its label\n"
      "  pool-incomplete, device-tainted, stranded-devices, slice-near-limit, attribute-nonstandard\n"
      "  dractl audit -f cluster/ [--fail-on error|warning|info|none] [-o table|json]\n"
      "  dractl audit --live --fail-on warning      (in CI: exit 1 on any warning or error)\n"
      "Namespaces in the input (kind: Namespace; --live lists them) are checked for the admin-access\n"
      "label. Exit 0: no finding at or above --fail-on; 1: some (or input errors); 2: usage errors.",
      "dractl audit"};
  AuditFlags flags;
  app.add_option("-f,--filename", flags.files, "the cluster: file, directory or - (stdin); repeatable");
  app.add_option("-o,--output", flags.output, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  app.add_option("--fail-on", flags.fail_on, "exit 1 when a finding of this severity or above exists")
      ->check(CLI::IsMember({"error", "warning", "info", "none"}))
      ->capture_default_str();
  app.add_option("--cost-warning", flags.cost_warning,
                 "selector-cost-high: a selector's runtime cost on one device at or above this (the limit per "
                 "evaluation is 1,000,000)")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  AddGateFlags(app, &flags.gates);
  AddLiveFlags(app,
               "also read the cluster from its API server (as kubectl finds it), Namespaces included; nothing is "
               "written to it",
               &flags.cluster.live, &flags.cluster.kubeconfig, &flags.cluster.context);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  return Run(flags);
}

}  // namespace dra::cli
