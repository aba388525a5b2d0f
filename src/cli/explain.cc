// dractl explain: why a pending pod does not schedule (sched/explain.h): per
// node the first blocking cause with numbers, a cluster summary, the nearest
// misses and selectors that match no device anywhere, as text or JSON.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/defaults.h"
#include "api/features.h"
#include "api/object.h"
#include "api/validation.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/emit.h"
#include "sched/explain.h"
#include "sched/policy.h"
#include "sched/snapshot.h"

namespace dra::cli {
namespace {

struct ExplainFlags {
  ClusterFlags cluster;
  std::vector<std::string> files;
  std::string pod;
  std::string namespace_;  // -n: for a POD given without one
  bool all_pending = false;
  std::string output = "text";
};

// "file:line" of `field_path` in the loaded object `kind` `object` ("ns/name" or "name").
std::string Locate(const manifest::LoadResult& loaded, const std::string& kind, const std::string& object,
                   const std::string& field_path) {
  for (const manifest::LoadedObject& o : loaded.objects) {
    if (api::KindName(o.object) != kind) continue;
    const api::ObjectMeta& m = api::MetaOf(o.object);
    const std::string key = m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
    if (key != object) continue;
    manifest::Mark mark = o.tree ? manifest::FindFieldMark(*o.tree, field_path) : o.mark;
    return fmt::format("{}:{}", o.file ? *o.file : "-", mark.line);
  }
  return "";
}

manifest::Node Str(std::string s) { return manifest::Node::String(std::move(s)); }
manifest::Node Int(int64_t v) { return manifest::Node::Int(v); }

manifest::Node Strings(const std::vector<std::string>& v) {
  manifest::Node n = manifest::Node::Sequence();
  for (const std::string& s : v) n.Push(Str(s));
  return n;
}

manifest::Node Holders(const std::vector<sched::DeviceHolder>& holders) {
  manifest::Node n = manifest::Node::Sequence();
  for (const sched::DeviceHolder& h : holders) {
    manifest::Node m = manifest::Node::Mapping();
    m.Add("claim", Str(h.claim));
    m.Add("devices", Strings(h.devices));
    n.Push(std::move(m));
  }
  return n;
}

std::string_view KindText(sched::PodOutcome::Kind kind) {
  switch (kind) {
    case sched::PodOutcome::Kind::kPlaced: return "placed";
    case sched::PodOutcome::Kind::kUnschedulable: return "unschedulable";
    case sched::PodOutcome::Kind::kError: return "error";
  }
  return "";
}

manifest::Node MemberTries(const std::vector<sched::GroupOutcome::MemberTry>& tries) {
  manifest::Node n = manifest::Node::Sequence();
  for (const sched::GroupOutcome::MemberTry& t : tries) {
    manifest::Node m = manifest::Node::Mapping();
    m.Add("pod", Str(t.pod));
    m.Add("node", Str(t.node));
    m.Add("devices", Strings(t.devices));
    n.Push(std::move(m));
  }
  return n;
}

manifest::Node GroupJson(const sched::GroupExplanation& g) {
  manifest::Node n = manifest::Node::Mapping();
  n.Add("group", Str(g.group));
  n.Add("minCount", Int(g.min_count));
  n.Add("scheduledBefore", Int(static_cast<int64_t>(g.scheduled_before)));
  n.Add("members", Int(static_cast<int64_t>(g.members)));
  n.Add("outcome", Str(std::string(KindText(g.kind))));
  n.Add("message", Str(g.message));
  n.Add("upstreamPass", MemberTries(g.upstream_pass));
  if (g.search_run) {
    n.Add("searchPlaces", manifest::Node::Bool(g.search_places));
    n.Add("searchPlacement", MemberTries(g.search_placement));
  }
  if (g.most_together >= 0) {
    n.Add("mostTogether", Int(g.most_together));
    n.Add("leftOut", Strings(g.left_out));
  }
  n.Add("text", Strings(g.text));
  return n;
}

manifest::Node ToJson(const sched::PodExplanation& e) {
  manifest::Node root = manifest::Node::Mapping();
  root.Add("pod", Str(e.pod));
  root.Add("outcome", Str(std::string(KindText(e.kind))));
  root.Add("bound", manifest::Node::Bool(e.bound));
  if (!e.node.empty()) root.Add("node", Str(e.node));
  if (!e.message.empty()) root.Add("message", Str(e.message));
  if (e.group) root.Add("podGroup", GroupJson(*e.group));
  root.Add("numNodes", Int(e.num_nodes));
  manifest::Node nodes = manifest::Node::Sequence();
  for (const sched::NodeCause& c : e.nodes) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("node", Str(c.node));
    n.Add("plugin", Str(c.plugin));
    n.Add("cause", Str(std::string(sched::CauseKindName(c.kind))));
    n.Add("reasons", Strings(c.reasons));
    if (!c.shortages.empty()) {
      manifest::Node shortages = manifest::Node::Sequence();
      for (const sched::ResourceShortage& r : c.shortages) {
        manifest::Node m = manifest::Node::Mapping();
        m.Add("resource", Str(r.resource));
        m.Add("requested", Str(r.requested));
        m.Add("free", Str(r.free));
        m.Add("allocatable", Str(r.allocatable));
        shortages.Push(std::move(m));
      }
      n.Add("shortages", std::move(shortages));
    }
    if (!c.claim.empty()) {
      n.Add("claim", Str(c.claim));
      n.Add("request", Str(c.request));
      n.Add("deviceClass", Str(c.device_class));
      n.Add("allMode", manifest::Node::Bool(c.all_mode));
      n.Add("wanted", Int(c.wanted));
      n.Add("devices", Int(c.devices));
      n.Add("classMatching", Int(c.class_matching));
      n.Add("matching", Int(c.matching));
      n.Add("inUse", Int(c.in_use));
      n.Add("usable", Int(c.usable));
      n.Add("tainted", Int(c.tainted));
      n.Add("withoutCounters", Int(c.no_counters));
      n.Add("withoutCapacity", Int(c.no_capacity));
      n.Add("holders", Holders(c.holders));
      if (!c.constraint.empty()) {
        n.Add("constraint", Str(c.constraint));
        n.Add("constraintAtMost", Int(c.constraint_at_most));
      }
    }
    n.Add("text", Str(c.text));
    nodes.Push(std::move(n));
  }
  root.Add("nodes", std::move(nodes));
  manifest::Node summary = manifest::Node::Sequence();
  for (const sched::CauseSummary& s : e.summary) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("nodes", Int(s.nodes));
    n.Add("text", Str(s.text));
    summary.Push(std::move(n));
  }
  root.Add("summary", std::move(summary));
  if (!e.never_fits.empty()) root.Add("neverFits", Str(e.never_fits));
  manifest::Node misses = manifest::Node::Sequence();
  for (const sched::NearMiss& m : e.near_misses) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("node", Str(m.node));
    n.Add("release", Holders(m.release));
    if (m.score >= 0) n.Add("score", Int(m.score));
    n.Add("text", Str(m.text));
    misses.Push(std::move(n));
  }
  root.Add("nearMisses", std::move(misses));
  manifest::Node unmatched = manifest::Node::Sequence();
  for (const sched::UnmatchedSelector& u : e.unmatched) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("claim", Str(u.claim));
    n.Add("request", Str(u.request));
    n.Add("expression", Str(u.expression));
    n.Add("objectKind", Str(u.object_kind));
    n.Add("object", Str(u.object));
    n.Add("fieldPath", Str(u.field_path));
    n.Add("location", Str(u.location));
    manifest::Node closest = manifest::Node::Sequence();
    for (const sched::ValueRange& r : u.closest) {
      manifest::Node v = manifest::Node::Mapping();
      v.Add("name", Str(r.name));
      v.Add("devices", Int(r.devices));
      if (!r.max.empty()) {
        v.Add("max", Str(r.max));
        v.Add("maxDevices", Int(r.max_devices));
        v.Add("maxNodes", Int(r.max_nodes));
        v.Add("min", Str(r.min));
        v.Add("minDevices", Int(r.min_devices));
        v.Add("minNodes", Int(r.min_nodes));
      }
      if (!r.values.empty()) {
        manifest::Node vals = manifest::Node::Mapping();
        for (const auto& [value, count] : r.values) vals.Add(value, Int(count));
        v.Add("values", std::move(vals));
      }
      v.Add("text", Str(r.text));
      closest.Push(std::move(v));
    }
    n.Add("closest", std::move(closest));
    unmatched.Push(std::move(n));
  }
  root.Add("unmatchedSelectors", std::move(unmatched));
  return root;
}

// A ReplicaSet that a Deployment of the input made ("<deployment>-<hash>")
// is named by the Deployment.
std::string OwnerDisplay(const std::string& owner, const manifest::LoadResult& loaded) {
  constexpr std::string_view kRs = "ReplicaSet ";
  if (!owner.starts_with(kRs)) return owner;
  const std::string key = owner.substr(kRs.size());  // "ns/name"
  for (const manifest::LoadedWorkload& w : loaded.workloads) {
    if (w.workload.kind != api::WorkloadKind::kDeployment) continue;
    const std::string prefix = w.workload.metadata.namespace_ + "/" + w.workload.metadata.name + "-";
    if (key.starts_with(prefix) && key.find('-', prefix.size()) == std::string::npos) {
      return "Deployment " + w.workload.metadata.namespace_ + "/" + w.workload.metadata.name;
    }
  }
  return owner;
}

std::string ToText(const sched::PodExplanation& e);

// Pods of one controller with the same verdict (kube-scheduler's message)
// are told once: "3 pods of Deployment ml/trainer (ml/a, ml/b, ml/c): ...",
// then the first one's causes (the others differ only in claim names).
std::string GroupedText(const std::vector<sched::PodExplanation>& all, const manifest::LoadResult& loaded) {
  // The message with the pod's own name taken out ("pod \"ns/x\": ...").
  auto verdict = [](const sched::PodExplanation& e) {
    std::string m = e.message;
    for (size_t at = m.find(e.pod); at != std::string::npos; at = m.find(e.pod, at + 1))
      m.replace(at, e.pod.size(), "\x01");
    return m;
  };
  std::string out;
  std::vector<bool> done(all.size(), false);
  for (size_t i = 0; i < all.size(); ++i) {
    if (done[i]) continue;
    const sched::PodExplanation& e = all[i];
    std::vector<std::string> same{e.pod};
    if (!e.owner.empty() && e.kind != sched::PodOutcome::Kind::kPlaced && !e.bound) {
      for (size_t j = i + 1; j < all.size(); ++j) {
        const sched::PodExplanation& o = all[j];
        if (!done[j] && o.owner == e.owner && o.kind == e.kind && !o.bound && verdict(o) == verdict(e)) {
          same.push_back(o.pod);
          done[j] = true;
        }
      }
    }
    std::string text = ToText(e);
    if (same.size() > 1) {
      const size_t head = fmt::format("pod {}: ", e.pod).size();
      text = fmt::format("{} pods of {} ({}): ", same.size(), OwnerDisplay(e.owner, loaded), fmt::join(same, ", ")) +
             text.substr(head);
    }
    out += text;
  }
  return out;
}

std::string ToText(const sched::PodExplanation& e) {
  if (e.kind == sched::PodOutcome::Kind::kPlaced) {
    return e.bound ? fmt::format("pod {}: not pending: bound to node {}\n", e.pod, e.node)
                   : fmt::format("pod {}: would be placed on node {}\n", e.pod, e.node);
  }
  if (e.bound) return fmt::format("pod {}: not pending: {}\n", e.pod, e.message);
  std::string out = fmt::format("pod {}: {}: {}\n", e.pod,
                                e.kind == sched::PodOutcome::Kind::kError ? "error" : "pending", e.message);
  if (e.group) {
    for (const std::string& line : e.group->text) out += line + "\n";
  }
  if (!e.never_fits.empty()) out += fmt::format("it can never fit: {}\n", e.never_fits);
  if (e.nodes.empty()) return out;
  std::vector<std::string> parts;
  for (const sched::CauseSummary& s : e.summary) parts.push_back(fmt::format("{} {}", s.nodes, s.text));
  out += fmt::format("0/{} nodes: {}\n", e.num_nodes, fmt::join(parts, "; "));
  out += "per node:\n";
  for (const sched::NodeCause& c : e.nodes) out += fmt::format("  {}\n", c.text);
  if (!e.near_misses.empty()) {
    out += "nearest misses:\n";
    for (const sched::NearMiss& m : e.near_misses) out += fmt::format("  {}\n", m.text);
  }
  for (const sched::UnmatchedSelector& u : e.unmatched) {
    out += fmt::format("selector matches no device in the cluster: {}{} {} {}: claim {} request {}: {}\n",
                       u.location.empty() ? "" : u.location + ": ", u.object_kind, u.object, u.field_path, u.claim,
                       u.request, u.expression);
    for (const sched::ValueRange& r : u.closest) out += fmt::format("  {}\n", r.text);
  }
  return out;
}

int Run(const ExplainFlags& flags) {
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl explain", flags.cluster.version, flags.cluster.gates);
  if (!gates) return kExitUsageError;
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl explain", flags.cluster.policy);
  if (!policy) return kExitUsageError;
  if (flags.pod.empty() == !flags.all_pending) {
    std::fprintf(stderr, "dractl explain: give either a POD (namespace/name) or --all-pending\n");
    return kExitUsageError;
  }
  std::string pod = flags.pod;
  if (!pod.empty()) {
    const size_t slash = pod.find('/');
    if (slash == std::string::npos) {
      pod = (flags.namespace_.empty() ? "default" : flags.namespace_) + "/" + pod;
    } else if (!flags.namespace_.empty() && pod.substr(0, slash) != flags.namespace_) {
      std::fprintf(stderr, "dractl explain: the pod %s is not in namespace %s (-n); give one of them\n", pod.c_str(),
                   flags.namespace_.c_str());
      return kExitUsageError;
    }
  }
  std::optional<ClusterInputOptions> inputs = InputOptions("dractl explain", flags.files, flags.cluster);
  if (!inputs) return kExitUsageError;
  manifest::LoadResult loaded;
  if (int rc = LoadCluster(flags.files, *gates, *inputs, &loaded); rc >= 0) {
    return rc;
  }
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  sched::Snapshot snapshot = sched::NewSnapshot(objects, *gates);
  std::vector<std::string> pods;
  if (!pod.empty()) pods.push_back(pod);
  std::optional<sched::WorkloadProfile> profile;
  if (int rc = PrepareProfile(flags.cluster, *gates, snapshot, sched::PendingQueue(snapshot), "pending pods",
                              "dractl explain", &profile);
      rc >= 0) {
    return rc;
  }
  sched::ExplainOptions options{
      .schedule = {.policy = policy.get(),
                   .seed = flags.cluster.seed,
                   .max_steps = flags.cluster.max_steps,
                   .percentage_of_nodes_to_score = flags.cluster.percentage_of_nodes_to_score,
                   .device_choice = DeviceChoiceFor(flags.cluster.device_choice, flags.cluster.policy)}};
  if (profile) options.schedule.workload_profile = &*profile;
  options.schedule.gang = GangOptionsFor(flags.cluster);
  StatusOr<std::vector<sched::PodExplanation>> result = sched::Explain(&snapshot, options, pods);
  if (!result.ok()) {
    if (result.status().code() == StatusCode::kNotFound) {
      std::fprintf(stderr, "dractl explain: %s\n", result.status().message().c_str());
      return kExitInputError;
    }
    std::fprintf(stderr, "dractl explain: internal error: %s\n", result.status().ToString().c_str());
    return kExitInternalError;
  }
  for (sched::PodExplanation& e : *result) {
    for (sched::UnmatchedSelector& u : e.unmatched) u.location = Locate(loaded, u.object_kind, u.object, u.field_path);
  }
  std::string text;
  if (flags.output == "json" || flags.output == "yaml") {
    manifest::Node items = manifest::Node::Sequence();
    for (const sched::PodExplanation& e : *result) items.Push(ToJson(e));
    manifest::Node root = manifest::Node::Mapping();
    root.Add("pods", std::move(items));
    text = flags.output == "json" ? manifest::EmitJson(root, 2) : manifest::EmitYaml(root);
  } else {
    text = GroupedText(*result, loaded);
    if (result->empty()) text = "no pending pod stays pending\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

int RunExplain(std::span<const std::string_view> args) {
  CLI::App app{
      "Explains why a pending pod does not schedule: runs the queue as `dractl schedule` does up\n"
      "to the pod (earlier pods' placements count) and, for the pod's turn, prints per node the\n"
      "first blocking cause with numbers (for DRA: the claim and request, devices wanted,\n"
      "devices matching the class and selectors, those in use and the claims holding them, what\n"
      "a matchAttribute constraint leaves), a cluster summary, the nearest misses (nodes where\n"
      "releasing the devices of at most two claims makes the pod fit, checked with the\n"
      "allocator) and selectors that match no device in the cluster, with file:line and the\n"
      "values the attributes they read actually have.\n"
      "\n"
      "  dractl explain -f cluster/ NAMESPACE/POD [-o text|yaml|json]\n"
      "  dractl explain -f cluster/ --all-pending\n"
      "  dractl explain --live [--kubeconfig FILE] [--context NAME] NAMESPACE/POD\n"
      "\n"
      "A pod that is not pending, or that would be placed now, is reported with its node.\n"
      "Exit 0 when explained; 1 for input errors or an unknown pod; 2 for usage errors.",
      "dractl explain"};
  ExplainFlags flags;
  app.add_option("-f,--filename", flags.files,
                 "file, directory or - (stdin); repeatable; with --live, added to the cluster read from the API "
                 "server")
      ->allow_extra_args(false);  // one path per -f, so POD may follow
  app.add_option("pod", flags.pod, "the pod: namespace/name, or name (in the namespace of -n, else default)");
  app.add_option("-n,--namespace", flags.namespace_, "the namespace of a POD given without one (default: default)");
  app.add_flag("--all-pending", flags.all_pending, "explain every pending pod that stays pending");
  AddClusterFlags(app, flags.cluster);
  app.add_option("-o,--output", flags.output, "text, yaml or json (the same fields)")
      ->check(CLI::IsMember({"text", "yaml", "json"}))
      ->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  return Run(flags);
}

}  // namespace dra::cli
