// dractl schedule: places the pending pods of user manifests on their nodes as
// kube-scheduler would (sched/scheduler.h) and prints where each went, or the
// updated objects.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/json_parser.h"
#include "sched/gang.h"
#include "sched/pod_claims.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"
#include "sched/taint_eviction.h"
#include "sched/timeline.h"

namespace dra::cli {
namespace {

struct ScheduleFlags {
  ClusterFlags cluster;
  std::vector<std::string> files;
  std::string output = "table";
  bool fail_on_pending = false;
  std::string trace;  // --trace FILE
};

// The condition kube-scheduler writes on a pod it cannot place (its
// FailureHandler): PodScheduled=False, reason Unschedulable (SchedulerError
// for an error), the message; other conditions are kept.
void SetPodScheduledFalse(api::Pod& pod, const sched::PodOutcome& outcome) {
  manifest::Node conditions = manifest::Node::Sequence();
  if (const api::RawJson* raw = pod.status.extra.find("conditions")) {
    StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(*raw, "conditions");
    if (docs.ok() && docs->size() == 1 && (*docs)[0].root.is_sequence()) {
      for (manifest::Node& c : (*docs)[0].root.items) {
        const manifest::Node* type = c.Find("type");
        if (type == nullptr || type->text != "PodScheduled") conditions.Push(std::move(c));
      }
    }
  }
  manifest::Node c = manifest::Node::Mapping();
  c.Add("type", manifest::Node::String("PodScheduled"));
  c.Add("status", manifest::Node::String("False"));
  c.Add("reason",
        manifest::Node::String(outcome.kind == sched::PodOutcome::Kind::kError ? "SchedulerError" : "Unschedulable"));
  c.Add("message", manifest::Node::String(outcome.message));
  conditions.Push(std::move(c));
  std::string json = manifest::EmitJson(conditions, 0);
  while (!json.empty() && json.back() == '\n') json.pop_back();
  pod.status.extra.insert_or_assign("conditions", std::move(json));
}

// "mig: gpu.nvidia.com/pool/dev,gpu.nvidia.com/pool/dev2; nic: ..."
std::string DevicesText(const sched::PodOutcome& pod) {
  std::vector<std::string> parts;
  for (const sched::ClaimPlacement& c : pod.claims) {
    std::vector<std::string> devices;
    for (const api::DeviceRequestAllocationResult& r : c.results) {
      devices.push_back(fmt::format("{}/{}/{}", r.driver, r.pool, r.device));
    }
    std::string list = devices.empty() ? "-" : fmt::format("{}", fmt::join(devices, ","));
    parts.push_back(fmt::format("{}: {}", c.pod_claim, list));
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, "; "));
}

void PrintTable(const sched::ScheduleResult& result) {
  size_t pod_w = 3, node_w = 4;
  for (const sched::PodOutcome& p : result.pods) {
    pod_w = std::max(pod_w, p.pod.size());
    node_w = std::max(node_w, p.kind == sched::PodOutcome::Kind::kPlaced ? p.node.size() : size_t{9});
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {}\n", "POD", pod_w, "NODE", node_w, "DEVICES / REASON");
  size_t placed = 0, errors = 0;
  constexpr size_t kErrorPreview = 80;
  for (const sched::PodOutcome& p : result.pods) {
    if (p.kind == sched::PodOutcome::Kind::kPlaced) {
      ++placed;
      out += fmt::format("{:<{}}  {:<{}}  {}\n", p.pod, pod_w, p.node, node_w, DevicesText(p));
    } else if (p.kind == sched::PodOutcome::Kind::kError) {
      // One line per pod: an error (a selector failing at run time, say)
      // is named here and printed whole below the table.
      ++errors;
      std::string_view first = std::string_view(p.message).substr(0, p.message.find('\n'));
      out += fmt::format("{:<{}}  {:<{}}  error ({} below): {}{}\n", p.pod, pod_w, "<pending>", node_w, errors,
                         first.substr(0, kErrorPreview), first.size() > kErrorPreview ? "..." : "");
    } else {
      out += fmt::format("{:<{}}  {:<{}}  {}\n", p.pod, pod_w, "<pending>", node_w, p.message);
    }
  }
  out += fmt::format("{} placed, {} pending{}\n", placed, result.pods.size() - placed,
                     errors > 0 ? fmt::format(" ({} with errors)", errors) : "");
  // One line per pod group tried: how many members, and why not.
  for (const sched::GroupOutcome& g : result.groups) {
    std::string how = g.searched ? fmt::format("; gang search: {} steps", g.steps) : "";
    if (!g.placement.empty()) how += fmt::format("; topology domain {} of {}", g.placement, g.placements);
    if (g.kind == sched::PodOutcome::Kind::kPlaced) {
      out += fmt::format("pod group {}: {} of {} pending members placed ({} bound before, minCount {}{})\n", g.group,
                         g.placed, g.members, g.scheduled_before, g.min_count, how);
    } else {
      out += fmt::format("pod group {}: not placed: {}\n", g.group, g.message);
    }
  }
  size_t n = 0;
  for (const sched::PodOutcome& p : result.pods) {
    if (p.kind != sched::PodOutcome::Kind::kError) continue;
    std::string message = p.message;
    for (size_t at = message.find('\n'); at != std::string::npos; at = message.find('\n', at + 1)) {
      message.insert(at + 1, "    ");
    }
    out += fmt::format("error {}: {}: {}\n", ++n, p.pod, message);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

void PrintObjects(sched::Snapshot& snapshot, const sched::ScheduleResult& result, const std::string& format) {
  // Pods left pending carry kube-scheduler's PodScheduled=False condition
  // and are listed with the changed objects.
  std::vector<size_t> pods = result.changed_pods;
  for (const sched::PodOutcome& o : result.pods) {
    if (o.kind == sched::PodOutcome::Kind::kPlaced) continue;
    for (size_t i = 0; i < snapshot.pods.size(); ++i) {
      if (!sched::HasObjectKey(snapshot.pods[i].metadata, o.pod)) continue;
      SetPodScheduledFalse(snapshot.pods[i], o);
      if (std::find(pods.begin(), pods.end(), i) == pods.end()) pods.push_back(i);
      break;
    }
  }
  std::sort(pods.begin(), pods.end());
  manifest::Node items = manifest::Node::Sequence();
  // The pod groups tried, with their condition (and the claims recorded in
  // their status).
  for (const sched::GroupOutcome& g : result.groups) {
    if (!g.tried) continue;
    const size_t slash = g.group.find('/');
    std::optional<size_t> idx = snapshot.FindPodGroup(g.group.substr(0, slash), g.group.substr(slash + 1));
    if (!idx) continue;
    // The epoch: the "now" every command's defaulting uses (outputs do not
    // depend on the clock).
    sched::SetInitiallyScheduled(g, "1970-01-01T00:00:00Z", &snapshot.pod_groups[*idx]);
    items.Push(manifest::EncodeObject(api::Object(snapshot.pod_groups[*idx])));
  }
  for (size_t i : result.changed_claims) items.Push(manifest::EncodeObject(api::Object(snapshot.claims[i])));
  for (size_t i : pods) items.Push(manifest::EncodeObject(api::Object(snapshot.pods[i])));
  manifest::Node root = manifest::Node::Mapping();
  root.Add("apiVersion", manifest::Node::String("v1"));
  root.Add("kind", manifest::Node::String("List"));
  root.Add("items", std::move(items));
  std::string text = format == "json" ? manifest::EmitJson(root, 4) : manifest::EmitYaml(root);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

// --trace: per pod in queue order, kube-scheduler's framework view (the
// shape tools/oracle `schedule` prints, so that tools/difftest --level
// scheduler compares them): the node or the message; per rejected node the
// first plugin that turned it down and its reasons; per feasible node each
// score plugin's normalized score and the weighted total. Then per pod
// group the queue met (`groups`, in queue order): its members in the run,
// whether kube-scheduler's group cycle tried it (past PreEnqueue), the
// result (placed / unschedulable / error) and message, the placement
// (TopologyAwareWorkloadScheduling: the domain, of how many), and the
// PodGroupInitiallyScheduled condition kube-scheduler would leave on it
// (none when it was not tried).
std::string TraceJson(const sched::Snapshot& snapshot, const sched::ScheduleResult& result,
                      const std::vector<sched::PodTrace>& traces) {
  manifest::Node pods = manifest::Node::Sequence();
  for (const sched::PodOutcome& o : result.pods) {
    manifest::Node pod = manifest::Node::Mapping();
    pod.Add("pod", manifest::Node::String(o.pod));
    if (o.kind == sched::PodOutcome::Kind::kPlaced) {
      pod.Add("node", manifest::Node::String(o.node));
    } else {
      pod.Add("message", manifest::Node::String(o.message));
      if (o.kind == sched::PodOutcome::Kind::kError) pod.Add("error", manifest::Node::Bool(true));
    }
    // The pod's last cycle (a pod is tried once, a group member maybe more).
    const sched::PodTrace* trace = nullptr;
    for (const sched::PodTrace& t : traces) {
      if (t.pod == o.pod) trace = &t;
    }
    if (trace != nullptr && !trace->rejections.empty()) {
      manifest::Node filter = manifest::Node::Mapping();
      for (const sched::NodeRejection& r : trace->rejections) {
        manifest::Node verdict = manifest::Node::Mapping();
        verdict.Add("plugin", manifest::Node::String(r.plugin));
        manifest::Node reasons = manifest::Node::Sequence();
        for (const std::string& reason : r.reasons) reasons.Push(manifest::Node::String(reason));
        verdict.Add("reasons", std::move(reasons));
        filter.Add(r.node, std::move(verdict));
      }
      pod.Add("filter", std::move(filter));
    }
    if (trace != nullptr && !trace->scores.empty()) {
      manifest::Node scores = manifest::Node::Mapping();
      for (const sched::NodeScoreTrace& n : trace->scores) {
        manifest::Node plugins = manifest::Node::Mapping();
        for (const sched::PluginScore& p : n.plugins) plugins.Add(std::string(p.plugin), manifest::Node::Int(p.score));
        plugins.Add("total", manifest::Node::Int(n.total));
        scores.Add(n.node, std::move(plugins));
      }
      pod.Add("scores", std::move(scores));
    }
    pods.Push(std::move(pod));
  }
  manifest::Node root = manifest::Node::Mapping();
  root.Add("pods", std::move(pods));
  if (!result.groups.empty()) {
    // Each pod of the run's group ("namespace/name"), or "".
    std::map<std::string, std::string, std::less<>> group_of;
    for (const api::Pod& pod : snapshot.pods) {
      if (std::optional<std::string> pg = sched::PodGroupName(pod)) {
        group_of.emplace(sched::ObjectKey(pod.metadata), pod.metadata.namespace_ + "/" + *pg);
      }
    }
    manifest::Node groups = manifest::Node::Sequence();
    for (const sched::GroupOutcome& g : result.groups) {
      manifest::Node group = manifest::Node::Mapping();
      group.Add("group", manifest::Node::String(g.group));
      const size_t slash = g.group.find('/');
      const std::string_view ns = std::string_view(g.group).substr(0, slash);
      const std::string_view name = std::string_view(g.group).substr(slash + 1);
      manifest::Node members = manifest::Node::Sequence();
      for (const sched::PodOutcome& o : result.pods) {
        if (auto it = group_of.find(o.pod); it != group_of.end() && it->second == g.group) {
          members.Push(manifest::Node::String(o.pod));
        }
      }
      group.Add("members", std::move(members));
      group.Add("tried", manifest::Node::Bool(g.tried));
      group.Add("result", manifest::Node::String(g.kind == sched::PodOutcome::Kind::kPlaced          ? "placed"
                                                 : g.kind == sched::PodOutcome::Kind::kUnschedulable ? "unschedulable"
                                                                                                     : "error"));
      if (!g.message.empty()) group.Add("message", manifest::Node::String(g.message));
      group.Add("minCount", manifest::Node::Int(g.min_count));
      group.Add("placed", manifest::Node::Int(static_cast<int64_t>(g.placed)));
      if (g.placements > 0) {
        group.Add("placements", manifest::Node::Int(static_cast<int64_t>(g.placements)));
        if (!g.placement.empty()) group.Add("placement", manifest::Node::String(g.placement));
      }
      if (std::optional<size_t> idx = snapshot.FindPodGroup(ns, name); g.tried && idx) {
        api::PodGroup copy = snapshot.pod_groups[*idx];
        sched::SetInitiallyScheduled(g, "1970-01-01T00:00:00Z", &copy);
        for (const api::Condition& c : copy.status.conditions) {
          if (c.type != api::kPodGroupInitiallyScheduled) continue;
          manifest::Node cond = manifest::Node::Mapping();
          cond.Add("status", manifest::Node::String(std::string(c.status.text())));
          cond.Add("reason", manifest::Node::String(c.reason));
          if (!c.message.empty()) cond.Add("message", manifest::Node::String(c.message));
          group.Add("condition", std::move(cond));
        }
      }
      groups.Push(std::move(group));
    }
    root.Add("groups", std::move(groups));
  }
  return manifest::EmitJson(root, 0);
}

int Run(const ScheduleFlags& flags) {
  std::optional<api::FeatureGates> gates =
      GatesFromFlags("dractl schedule", flags.cluster.version, flags.cluster.gates);
  if (!gates) return kExitUsageError;
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl schedule", flags.cluster.policy);
  if (!policy) return kExitUsageError;

  std::optional<ClusterInputOptions> inputs = InputOptions("dractl schedule", flags.files, flags.cluster);
  if (!inputs) return kExitUsageError;
  manifest::LoadResult loaded;
  if (int rc = LoadCluster(flags.files, *gates, *inputs, &loaded); rc >= 0) {
    return rc;
  }
  // The snapshot takes the objects (nothing below reads them): a large
  // cluster is held once, not twice.
  std::vector<api::Object*> objects;
  for (manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  sched::Snapshot snapshot = sched::NewSnapshotTaking(objects, *gates);
  std::vector<manifest::LoadedObject>().swap(loaded.objects);  // their slots, freed
  if (snapshot.nodes.empty()) {
    std::fprintf(stderr, "dractl schedule: warning: no Node objects in the input; every pod stays pending\n");
  }
  std::optional<sched::WorkloadProfile> profile;
  if (int rc = PrepareProfile(flags.cluster, *gates, snapshot, sched::PendingQueue(snapshot), "pending pods",
                              "dractl schedule", &profile);
      rc >= 0) {
    return rc;
  }
  sched::ScheduleOptions options{.policy = policy.get(),
                                 .seed = flags.cluster.seed,
                                 .max_steps = flags.cluster.max_steps,
                                 .percentage_of_nodes_to_score = flags.cluster.percentage_of_nodes_to_score,
                                 .device_choice = DeviceChoiceFor(flags.cluster.device_choice, flags.cluster.policy)};
  if (profile) options.workload_profile = &*profile;
  options.gang = GangOptionsFor(flags.cluster);
  // Running pods the device-taint eviction controller is to delete: a device
  // of theirs has a NoExecute taint their claims do not tolerate (for ever).
  for (const api::Pod& pod : snapshot.pods) {
    if (pod.spec.node_name.empty() || pod.status.phase == api::PodPhase::kSucceeded ||
        pod.status.phase == api::PodPhase::kFailed) {
      continue;
    }
    if (std::optional<sched::EvictionTime> t = sched::PodEvictionTime(snapshot, pod)) {
      std::fprintf(stderr,
                   "dractl schedule: note: pod %s on %s is evicted from %s by the device-taint eviction controller "
                   "(untolerated %s on a device of its claims)\n",
                   sched::ObjectKey(pod.metadata).c_str(), pod.spec.node_name.c_str(),
                   sched::FormatUtcSeconds(t->time).c_str(), fmt::format("{}", fmt::join(t->taints, ", ")).c_str());
    }
  }
  std::vector<sched::PodTrace> traces;
  if (!flags.trace.empty()) options.trace = &traces;
  StatusOr<sched::ScheduleResult> result = sched::Schedule(&snapshot, options);
  if (!result.ok()) {
    std::fprintf(stderr, "dractl schedule: internal error: %s\n", result.status().ToString().c_str());
    return kExitInternalError;
  }
  if (!flags.trace.empty()) {
    if (Status st = WriteTextFile(flags.trace, TraceJson(snapshot, *result, traces)); !st.ok()) {
      std::fprintf(stderr, "dractl schedule: --trace: %s\n", st.ToString().c_str());
      return kExitInputError;
    }
  }
  if (flags.output == "table") {
    PrintTable(*result);
  } else {
    PrintObjects(snapshot, *result, flags.output);
  }
  if (flags.fail_on_pending) {
    for (const sched::PodOutcome& o : result->pods) {
      if (o.kind != sched::PodOutcome::Kind::kPlaced) return kExitPending;
    }
  }
  return kExitOk;
}

}  // namespace

int RunSchedule(std::span<const std::string_view> args) {
  CLI::App app{
      "Places the pending pods (no spec.nodeName) of the input on its Nodes, one at a time, as\n"
      "kube-scheduler 1.37 would: node filters (unschedulable, nodeName, taints, node\n"
      "affinity/selector, cpu/memory/pods/extended resources), then the DRA allocator for the\n"
      "pods' ResourceClaims (claims from templates are created as the resource-claim\n"
      "controller would), then scoring. Pods already bound and claims already allocated are\n"
      "in use. Queue order: priority, creationTimestamp, namespace/name.\n"
      "Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs are expanded into the pods\n"
      "their controllers would create (unless input pods are owned by them); a CronJob makes\n"
      "none now (its Jobs start on its schedule), but its pod template is checked.\n"
      "\n"
      "  dractl schedule -f cluster/ [--policy kube|dra-pack|...] [--fail-on-pending] [-o table|yaml|json]\n"
      "  dractl schedule --live [--kubeconfig FILE] [--context NAME] [-f new-pods.yaml]\n"
      "\n"
      "-o table (default): one line per pending pod: POD, NODE (or <pending>) and the devices\n"
      "per pod claim (claim: driver/pool/device,...) or kube-scheduler's reason, then a summary.\n"
      "-o yaml|json: a List of the changed objects (claims with status.allocation and\n"
      "reservedFor, generated claims, pods with spec.nodeName) and of the pods left pending,\n"
      "with the PodScheduled=False condition kube-scheduler writes (reason Unschedulable, its\n"
      "message); loadable by every command.\n"
      "Exit 0 even if pods stay pending (6 with --fail-on-pending: a CI gate); 1 for input errors.",
      "dractl schedule"};
  ScheduleFlags flags;
  app.add_option("-f,--filename", flags.files,
                 "file, directory or - (stdin); repeatable; with --live, added to the cluster read from the API "
                 "server (e.g. the manifests about to be applied)");
  AddClusterFlags(app, flags.cluster);
  app.add_option("-o,--output", flags.output, "table, yaml or json")
      ->check(CLI::IsMember({"table", "yaml", "json"}))
      ->capture_default_str();
  app.add_flag("--fail-on-pending", flags.fail_on_pending, "exit 6 when any pod stays pending (after printing)");
  app.add_option("--trace", flags.trace,
                 "also write, as JSON to FILE, per pod the first plugin that rejected each node (with its "
                 "reasons) and each score plugin's score per feasible node, and per pod group its members, result "
                 "and PodGroupInitiallyScheduled condition (tools/difftest --level scheduler)");
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  return Run(flags);
}

}  // namespace dra::cli
