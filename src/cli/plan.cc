// dractl plan: which nodes of which node groups to add so that the pending
// pods fit (plan/plan.h), every plan checked by the scheduler of
// `dractl schedule`.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/node_groups.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "plan/node_group.h"
#include "plan/plan.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::cli {
namespace {

struct PlanFlags {
  ClusterFlags cluster{};
  std::vector<std::string> files{};
  NodeGroupFlags groups{};
  bool scale_down = false;
  double utilization_threshold = 0.5;
  std::string output = "table";
};

std::string Number(double v) { return fmt::format("{:g}", v); }

void PrintTable(const plan::PlanResult& r) {
  std::string out;
  size_t w = 10;
  for (const plan::GroupCount& g : r.scale_up) w = std::max(w, g.group.size());
  out += fmt::format("{:<{}}  {:>5}  {:>10}\n", "NODE GROUP", w, "ADD", "COST");
  for (const plan::GroupCount& g : r.scale_up)
    out += fmt::format("{:<{}}  {:>5}  {:>10}\n", g.group, w, g.count, Number(g.cost));
  int64_t nodes = 0;
  for (const plan::GroupCount& g : r.scale_up) nodes += g.count;
  out += fmt::format("{:<{}}  {:>5}  {:>10}\n", "total", w, nodes, Number(r.cost));
  if (r.expander == plan::Expander::kOptimal) {
    out += r.stopped_early ? fmt::format("optimal: not proven ({}); no plan costs less than {} (gap {})\n",
                                         r.class_model ? "the class model's linear bound" : "stopped at --max-time",
                                         Number(r.lower_bound), Number(r.cost - r.lower_bound))
                           : "optimal: no cheaper set of nodes places as many pods\n";
  } else {
    out += fmt::format("expander {}: the cluster autoscaler's choice, one group at a time\n",
                       plan::ExpanderName(r.expander));
  }
  size_t on_new = 0;
  for (const plan::Placement& p : r.placements) on_new += p.new_node ? 1 : 0;
  out +=
      fmt::format("{} pod{} pending on the cluster as it is; with the plan {} placed on new nodes, {} unschedulable\n",
                  r.pending, r.pending == 1 ? "" : "s", on_new, r.unschedulable.size());
  size_t pod_w = 3;
  for (const plan::Placement& p : r.placements) pod_w = std::max(pod_w, p.pod.size());
  for (const plan::Unschedulable& u : r.unschedulable) pod_w = std::max(pod_w, u.pod.size());
  if (on_new > 0) {
    out += fmt::format("\n{:<{}}  {}\n", "POD", pod_w, "NEW NODE");
    for (const plan::Placement& p : r.placements) {
      if (p.new_node) out += fmt::format("{:<{}}  {}\n", p.pod, pod_w, p.node);
    }
  }
  if (!r.unschedulable.empty()) {
    out += fmt::format("\n{:<{}}  {}\n", "UNSCHEDULABLE", pod_w, "REASON (every group at its maxSize)");
    for (const plan::Unschedulable& u : r.unschedulable) {
      out += fmt::format("{:<{}}  {}\n", u.pod, pod_w, u.reason);
      if (!u.detail.empty()) out += fmt::format("{:<{}}  {}\n", "", pod_w, u.detail);
    }
  }
  std::fputs(out.c_str(), stdout);
}

void PrintScaleDown(const std::vector<plan::ScaleDownNode>& nodes, double threshold) {
  std::string out = fmt::format("\nSCALE-DOWN: {} node{} below {:g}% utilization\n", nodes.size(),
                                nodes.size() == 1 ? "" : "s", threshold * 100);
  for (const plan::ScaleDownNode& n : nodes) {
    out += fmt::format("{}  {:.1f}%  {}\n", n.node, n.utilization * 100,
                       n.removable
                           ? fmt::format("removable: {} pod{} move", n.moves.size(), n.moves.size() == 1 ? "" : "s")
                           : "kept: a pod would not fit elsewhere");
    for (const plan::Placement& m : n.moves) out += fmt::format("  {} -> {}\n", m.pod, m.node);
    for (const plan::Unschedulable& b : n.blockers) out += fmt::format("  {}: {}\n", b.pod, b.reason);
  }
  std::fputs(out.c_str(), stdout);
}

// [{"pod", "node"(, "newNode")}]
manifest::Node PlacementsJson(const std::vector<plan::Placement>& placements, bool with_new_node) {
  manifest::Node list = manifest::Node::Sequence();
  for (const plan::Placement& p : placements) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("pod", manifest::Node::String(p.pod));
    n.Add("node", manifest::Node::String(p.node));
    if (with_new_node) n.Add("newNode", manifest::Node::Bool(p.new_node));
    list.Push(std::move(n));
  }
  return list;
}

// [{"pod", "reason"}]
manifest::Node UnschedulableJson(const std::vector<plan::Unschedulable>& pods) {
  manifest::Node list = manifest::Node::Sequence();
  for (const plan::Unschedulable& u : pods) {
    manifest::Node n = manifest::Node::Mapping();
    n.Add("pod", manifest::Node::String(u.pod));
    n.Add("reason", manifest::Node::String(u.reason));
    if (!u.detail.empty()) n.Add("detail", manifest::Node::String(u.detail));
    list.Push(std::move(n));
  }
  return list;
}

manifest::Node ScaleDownJson(const std::vector<plan::ScaleDownNode>& nodes) {
  using manifest::Node;
  Node list = Node::Sequence();
  for (const plan::ScaleDownNode& n : nodes) {
    Node e = Node::Mapping();
    e.Add("node", Node::String(n.node));
    e.Add("utilization", Node::Number(fmt::format("{:.4f}", n.utilization), manifest::NodeKind::kFloat));
    e.Add("removable", Node::Bool(n.removable));
    e.Add("moves", PlacementsJson(n.moves, false));
    e.Add("blockers", UnschedulableJson(n.blockers));
    list.Push(std::move(e));
  }
  return list;
}

manifest::Node JsonResult(const plan::PlanResult& r) {
  using manifest::Node;
  Node root = Node::Mapping();
  root.Add("expander", Node::String(std::string(plan::ExpanderName(r.expander))));
  Node scale_up = Node::Sequence();
  for (const plan::GroupCount& g : r.scale_up) {
    Node n = Node::Mapping();
    n.Add("nodeGroup", Node::String(g.group));
    n.Add("count", Node::Int(g.count));
    n.Add("cost", Node::Number(Number(g.cost), manifest::NodeKind::kFloat));
    scale_up.Push(std::move(n));
  }
  root.Add("scaleUp", std::move(scale_up));
  root.Add("cost", Node::Number(Number(r.cost), manifest::NodeKind::kFloat));
  if (r.lower_bound >= 0) root.Add("lowerBound", Node::Number(Number(r.lower_bound), manifest::NodeKind::kFloat));
  root.Add("stoppedEarly", Node::Bool(r.stopped_early));
  root.Add("pending", Node::Int(static_cast<int64_t>(r.pending)));
  root.Add("placements", PlacementsJson(r.placements, true));
  root.Add("unschedulable", UnschedulableJson(r.unschedulable));
  root.Add("evaluations", Node::Int(static_cast<int64_t>(r.evaluations)));
  return root;
}

int Run(const PlanFlags& flags) {
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl plan", flags.cluster.version, flags.cluster.gates);
  if (!gates) return kExitUsageError;
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl plan", flags.cluster.policy);
  if (!policy) return kExitUsageError;
  const std::optional<plan::Expander> expander = plan::ParseExpander(flags.groups.expander);
  std::optional<ClusterInputOptions> inputs = InputOptions("dractl plan", flags.files, flags.cluster);
  if (!inputs) return kExitUsageError;
  manifest::LoadResult loaded;
  if (int rc = LoadCluster(flags.files, *gates, *inputs, &loaded); rc >= 0) return rc;
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  const sched::Snapshot snapshot = sched::NewSnapshot(objects, *gates);
  std::vector<plan::NodeGroup> groups;
  if (!flags.groups.node_groups.empty()) {
    if (int rc = LoadNodeGroups("dractl plan", flags.groups.node_groups, *gates, &groups); rc >= 0) return rc;
  }
  if (int rc = NodeGroupsFromNodes("dractl plan", flags.groups.node_group_from, snapshot, &groups); rc >= 0) {
    return rc;
  }
  const bool scale_up = !groups.empty();
  plan::PlanOptions options{.policy = policy.get(),
                            .seed = flags.cluster.seed,
                            .max_steps = flags.cluster.max_steps,
                            .device_choice = DeviceChoiceFor(flags.cluster.device_choice, flags.cluster.policy),
                            .expander = expander.value_or(plan::Expander::kOptimal),
                            .max_seconds = flags.groups.max_time};
  options.gang = GangOptionsFor(flags.cluster);
  StatusOr<plan::PlanResult> result = plan::PlanResult{};
  if (scale_up) result = plan::PlanScaleUp(snapshot, groups, options);
  StatusOr<std::vector<plan::ScaleDownNode>> scale_down = std::vector<plan::ScaleDownNode>{};
  if (flags.scale_down) scale_down = plan::PlanScaleDown(snapshot, options, flags.utilization_threshold);
  for (const Status& s : {result.status(), scale_down.status()}) {
    if (!s.ok()) {
      std::fprintf(stderr, "dractl plan: internal error: %s\n", s.ToString().c_str());
      return kExitInternalError;
    }
  }
  if (flags.output == "table") {
    if (scale_up) PrintTable(*result);
    if (flags.scale_down) PrintScaleDown(*scale_down, flags.utilization_threshold);
  } else if (flags.output == "json") {
    manifest::Node root = scale_up ? JsonResult(*result) : manifest::Node::Mapping();
    if (flags.scale_down) root.Add("scaleDown", ScaleDownJson(*scale_down));
    std::string json = manifest::EmitJson(root, 2);
    if (json.empty() || json.back() != '\n') json += '\n';
    std::fputs(json.c_str(), stdout);
  } else {
    std::vector<manifest::Node> docs;
    for (const plan::NodeInstance& n : result->added) {
      docs.push_back(manifest::EncodeObject(api::Object(n.node)));
      for (const api::ResourceSlice& s : n.slices) docs.push_back(manifest::EncodeObject(api::Object(s)));
    }
    PrintDocuments(std::move(docs), "yaml");
  }
  if (scale_up) {
    std::fprintf(stderr, "dractl plan: %zu scheduler run%s", result->evaluations, result->evaluations == 1 ? "" : "s");
    if (result->class_model) {
      std::fprintf(stderr, " (candidates on the class model: %zu one-node run%s)", result->simulations,
                   result->simulations == 1 ? "" : "s");
    }
    std::fputc('\n', stderr);
  }
  return kExitOk;
}

}  // namespace

int RunPlan(std::span<const std::string_view> args) {
  CLI::App app{
      "Plans which nodes to add so that the pending pods fit: node groups (--node-groups, NodeGroup\n"
      "files: a template Node with its ResourceSlices, maxSize, a price) are added to the cluster\n"
      "and every candidate plan is scheduled as `dractl schedule` schedules (filters, DRA\n"
      "allocation, --policy). --expander optimal (the default) finds the cheapest set of nodes, over\n"
      "all groups together, that places as many pending pods as any plan can, or says how far\n"
      "from a lower bound it stopped (--max-time); least-waste, price, most-pods and random decide\n"
      "as the cluster autoscaler's expanders do, one group per loop.\n"
      "With more than 200 pending pods or 8 groups, candidates are valued on classes of equal pods\n"
      "(what one node of a group holds of each, by one-node scheduler runs, as the autoscaler's\n"
      "binpacking estimator does) and only the plans chosen between are scheduled in full;\n"
      "optimal then reports a linear-programming lower bound.\n"
      "  dractl plan -f cluster/ --node-groups groups.yaml [--expander E] [-o table|json|yaml]\n"
      "-o yaml prints the Nodes and ResourceSlices of the nodes to add, ready for `dractl schedule`.\n"
      "--scale-down lists the nodes below --utilization-threshold whose pods all fit elsewhere.\n"
      "Exit 0 with a plan (pods no plan places are listed with the scheduler's reason); 1 for input\n"
      "errors; 2 for usage errors.",
      "dractl plan"};
  PlanFlags flags;
  app.add_option("-f,--filename", flags.files, "the cluster: file, directory or - (stdin); repeatable");
  AddNodeGroupFlags(app, &flags.groups);
  app.add_flag("--scale-down", flags.scale_down,
               "also list the nodes below --utilization-threshold that can be removed: every pod on them fits "
               "elsewhere (a drain through the scheduler and the allocator)");
  app.add_option("--utilization-threshold", flags.utilization_threshold,
                 "--scale-down: nodes whose utilization (the largest of cpu, memory and the share of their devices "
                 "allocated) is below this are candidates")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("-o,--output", flags.output, "table, json, or yaml (the nodes to add)")
      ->check(CLI::IsMember({"table", "json", "yaml"}))
      ->capture_default_str();
  AddClusterFlags(app, flags.cluster);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  if (!flags.groups.given() && !flags.scale_down) {
    std::fprintf(stderr,
                 "dractl plan: nothing to plan: give --node-groups FILE or --node-group-from NODE=NAME:MAX:PRICE "
                 "(scale-up), or --scale-down\n");
    return kExitUsageError;
  }
  return Run(flags);
}

}  // namespace dra::cli
