// dractl simulate cluster: a workload replayed over time on a cluster of DRA
// objects with `dractl schedule`'s scheduler (sched/timeline.h).
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/defaults.h"
#include "cli/cluster_inputs.h"
#include "cli/cluster_report.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/node_groups.h"
#include "cli/simulate_print.h"
#include "fmt/format.h"
#include "plan/autoscale.h"
#include "sched/faults.h"
#include "sched/policy.h"
#include "sched/taint_eviction.h"
#include "sched/timeline.h"
#include "sim/import.h"
#include "sim/openb.h"

namespace dra::cli {
namespace {

std::vector<SeriesRow> Rows(const std::vector<sched::TimelineSample>& samples) {
  std::vector<SeriesRow> rows;
  rows.reserve(samples.size());
  for (const sched::TimelineSample& x : samples) {
    rows.push_back(SeriesRow{.time_csv = fmt::format("{}", x.time),
                             .time_json = manifest::Node::String(sched::FormatUtcSeconds(x.time)),
                             .first = x.device_allocation,
                             .cpu_allocation = x.cpu_allocation,
                             .running = x.running,
                             .pending = x.pending,
                             .last = x.stranded_devices});
  }
  return rows;
}

// The fault flags.
struct FaultFlags {
  std::vector<std::string> files{};
  std::string rate{};
  std::string repair_time = "4h";
  uint64_t seed = 1;
  std::string driver{};
  std::string grace = "30s";
};

// The autoscaling flags (--node-groups and the timings).
struct AutoscaleFlags {
  NodeGroupFlags groups{};
  std::string scale_up_delay = "10s";
  std::string provision_time = "3m";
  std::string scale_down_unneeded = "10m";
  double utilization_threshold = 0.5;
};

manifest::Node Str(std::string_view s) { return manifest::Node::String(std::string(s)); }

// Shortest form, as fmt's "{}" writes a double (0.5, 1e-05).
manifest::Node Shortest(double v) { return manifest::Node::Number(fmt::format("{}", v), manifest::NodeKind::kFloat); }

manifest::Node AutoscaleNode(const plan::AutoscaleReport& a, const AutoscaleFlags& flags,
                             const plan::AutoscaleOptions& o) {
  manifest::Node groups = manifest::Node::Sequence();
  for (const plan::GroupUsage& g : a.groups) {
    groups.Push(Object({{"nodeGroup", Str(g.group)},
                        {"added", Integer(g.added)},
                        {"removed", Integer(g.removed)},
                        {"peak", Integer(g.peak)},
                        {"nodeHours", Fixed(g.node_hours, 4)},
                        {"cost", Fixed(g.cost, 4)}}));
  }
  manifest::Node events = manifest::Node::Sequence();
  for (const plan::AutoscaleEvent& e : a.events) {
    events.Push(Object({{"time", Str(sched::FormatUtcSeconds(e.time))},
                        {"event", Str(plan::AutoscaleEventName(e.kind))},
                        {"nodeGroup", Str(e.group)},
                        {"node", Str(e.node)}}));
  }
  return Object({{"expander", Str(flags.groups.expander)},
                 {"scaleUpDelaySeconds", Integer(o.scale_up_delay)},
                 {"provisionSeconds", Integer(o.provision_time)},
                 {"scaleDownUnneededSeconds", Integer(o.scale_down_unneeded)},
                 {"utilizationThreshold", Shortest(o.utilization_threshold)},
                 {"nodeHours", Fixed(a.node_hours, 4)},
                 {"cost", Fixed(a.cost, 4)},
                 {"plans", Integer(a.plans)},
                 {"groups", std::move(groups)},
                 {"events", std::move(events)}});
}

manifest::Node FaultsNode(const std::vector<sched::FaultEvent>& events) {
  manifest::Node out = manifest::Node::Sequence();
  for (const sched::FaultEvent& e : events) {
    out.Push(Object({{"time", Str(sched::FormatUtcSeconds(e.time))},
                     {"event", Str(e.set ? "set" : "cleared")},
                     {"target", Str(e.target)},
                     {"taint", Str(e.taint)},
                     {"origin", Str(e.origin)}}));
  }
  return out;
}

manifest::Node PodNode(const sched::TimelinePod& p) {
  manifest::Node pod = manifest::Node::Mapping();
  pod.Add("pod", Str(p.pod));
  pod.Add("arrival", Str(sched::FormatUtcSeconds(p.arrival)));
  if (p.start) {
    pod.Add("start", Str(sched::FormatUtcSeconds(*p.start)));
    pod.Add("node", Str(p.node));
  }
  if (p.end) pod.Add("end", Str(sched::FormatUtcSeconds(*p.end)));
  if (p.evictions) {
    pod.Add("evictions", Integer(p.evictions));
    pod.Add("seconds_lost", Integer(p.seconds_lost));
  }
  if (p.gone) pod.Add("gone", manifest::Node::Bool(true));
  if (p.pending_at_end) pod.Add("pending", Str(p.last_message));
  return pod;
}

// The -o json report; the caller adds "autoscaling" and "faults".
manifest::Node Report(const sched::TimelineResult& r, const ClusterFlags& flags) {
  const sched::TimelineSummary& s = r.summary;
  const RunCounts c = CountsOf(s);
  manifest::Node summary = manifest::Node::Mapping();
  summary.Add("pods", Integer(s.pods));
  AddRunCounts(c, &summary);
  summary.Add("start", Str(sched::FormatUtcSeconds(s.start_time)));
  summary.Add("end", Str(sched::FormatUtcSeconds(s.end_time)));
  summary.Add("wait", WaitNode(c));
  summary.Add("devices", Integer(s.devices));
  summary.Add("device_allocation_mean", Fixed(s.device_allocation_mean, 4));
  summary.Add("peak_device_allocation", Fixed(s.peak_device_allocation, 4));
  summary.Add("cpu_allocation_mean", Fixed(s.cpu_allocation_mean, 4));
  summary.Add("stranded_devices_mean", Fixed(s.stranded_devices_mean, 4));
  summary.Add("evictions", Integer(s.evictions));
  summary.Add("restarts", Integer(s.restarts));
  summary.Add("seconds_lost", Integer(s.seconds_lost));
  summary.Add("device_hours_tainted", Fixed(s.device_hours_tainted, 4));
  summary.Add("peak_pending_for_taints", Integer(s.peak_pending_for_taints));
  manifest::Node pods = manifest::Node::Sequence();
  for (const sched::TimelinePod& p : r.pods) pods.Push(PodNode(p));
  manifest::Node report = manifest::Node::Mapping();
  report.Add("policy", Str(flags.policy));
  report.Add("device_choice", Str(alloc::DeviceChoiceName(DeviceChoiceFor(flags.device_choice, flags.policy))));
  report.Add("seed", Integer(flags.seed));
  report.Add("summary", std::move(summary));
  report.Add("series", SeriesNode("device_allocation", "stranded_devices", Rows(r.samples)));
  report.Add("pods", std::move(pods));
  return report;
}

// An openb pod list (testdata/traces/alibaba-openb) as workload: each pod as
// `dractl import openb` makes it, with creation_time/deletion_time (seconds
// from the trace start) as times from the epoch: it runs for their
// difference once placed, as in `dractl simulate replay`.
Status AddCsvWorkload(const std::string& path, std::vector<api::Pod>* pods, std::vector<api::Object>* others) {
  StatusOr<std::vector<sim::OpenbPod>> rows = sim::ReadOpenbPods(path);
  if (!rows.ok()) return rows.status();
  for (const sim::OpenbPod& row : *rows) {
    if (row.uses_gpu()) {
      api::ResourceClaimTemplate t = sim::MakeClaimTemplate(row);
      api::SetDefaults(t);
      others->emplace_back(std::move(t));
    }
    api::Pod p = sim::MakePod(row);
    p.metadata.creation_timestamp = sched::FormatUtcSeconds(row.creation_time);
    if (row.deletion_time > row.creation_time)
      p.metadata.deletion_timestamp = sched::FormatUtcSeconds(row.deletion_time);
    pods->push_back(std::move(p));
  }
  return OkStatus();
}

// The command line of `dractl simulate cluster`.
struct SimulateClusterArgs {
  std::vector<std::string> files, workload_files;
  ClusterFlags flags;
  std::string output = "text", csv;
  std::string report_file;
  AutoscaleFlags as;
  FaultFlags ff;
};

void AddSimulateClusterOptions(CLI::App& app, SimulateClusterArgs& a) {
  app.add_option("-f,--filename", a.files, "cluster: file, directory or - (stdin); repeatable");
  app.add_option("--workload", a.workload_files, "pods arriving over time: YAML/JSON or an openb pod CSV; repeatable")
      ->required();
  AddClusterFlags(app, a.flags);
  app.add_option("-o,--output", a.output, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--csv", a.csv, "write the series to FILE");
  app.add_option("--report", a.report_file,
                 "write an HTML page to FILE: devices allocated and tainted, pods running and pending over time, "
                 "the faults, the pods evicted");
  AddNodeGroupFlags(app, &a.as.groups);
  app.add_option("--scale-up-delay", a.as.scale_up_delay,
                 "how long a pod is pending before it asks for nodes (90, 10s, 3m, 1h)")
      ->capture_default_str();
  app.add_option("--provision-time", a.as.provision_time, "from a scale-up to the node ready with its slices")
      ->capture_default_str();
  app.add_option("--scale-down-unneeded", a.as.scale_down_unneeded,
                 "how long a node of a group stays unneeded before it is removed")
      ->capture_default_str();
  app.add_option("--utilization-threshold", a.as.utilization_threshold,
                 "nodes of a group below this utilization (the largest of cpu, memory and the share of their "
                 "devices allocated) whose pods fit elsewhere are unneeded")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--faults", a.ff.files, "Faults files: devices or nodes tainted from one time to another; repeatable");
  app.add_option("--fault-rate", a.ff.rate,
                 "random device failures: per device and hour (0.0004), or 1%/day, 2/day, 0.5%/h; each physical "
                 "device (a MIG-capable GPU counts once) gets dractl.io/fault:NoExecute");
  app.add_option("--repair-time", a.ff.repair_time,
                 "--fault-rate: how long a failed device stays tainted (4h), or exp:4h for exponentially distributed "
                 "repair times of that mean")
      ->capture_default_str();
  app.add_option("--fault-seed", a.ff.seed, "--fault-rate: the random failures' seed")->capture_default_str();
  app.add_option("--fault-driver", a.ff.driver, "--fault-rate: only devices of this driver (default: all)");
  app.add_option("--eviction-grace", a.ff.grace,
                 "how long an evicted pod keeps its devices (its terminationGracePeriodSeconds)")
      ->capture_default_str();
}

// The durations and the fault rate of the command line, checked (a usage
// error prints why and gives nullopt).
struct SimulateClusterTimes {
  plan::AutoscaleOptions as_options;
  int64_t grace = 0;
  bool exponential_repair = false;
  int64_t repair = 0;
  double rate = 0;
};

std::optional<SimulateClusterTimes> CheckTimeFlags(CLI::App& app, SimulateClusterArgs& a, bool autoscale) {
  for (const char* flag : {"--expander", "--max-time", "--scale-up-delay", "--provision-time", "--scale-down-unneeded",
                           "--utilization-threshold"}) {
    if (!autoscale && app.get_option(flag)->count() > 0) {
      std::fprintf(stderr,
                   "dractl simulate cluster: %s is for autoscaling: give --node-groups FILE or "
                   "--node-group-from NODE=NAME:MAX:PRICE\n",
                   flag);
      return std::nullopt;
    }
  }
  SimulateClusterTimes t;
  plan::AutoscaleOptions& as_options = t.as_options;
  for (auto [flag, text, out] :
       {std::tuple{"--scale-up-delay", &a.as.scale_up_delay, &as_options.scale_up_delay},
        std::tuple{"--provision-time", &a.as.provision_time, &as_options.provision_time},
        std::tuple{"--scale-down-unneeded", &a.as.scale_down_unneeded, &as_options.scale_down_unneeded}}) {
    std::optional<int64_t> seconds = sched::ParseDurationSeconds(*text);
    if (!seconds) {
      std::fprintf(stderr, "dractl simulate cluster: %s %s: want a duration such as 90, 10s, 3m or 1h30m\n", flag,
                   text->c_str());
      return std::nullopt;
    }
    *out = *seconds;
  }
  FaultFlags& ff = a.ff;
  for (const char* flag : {"--repair-time", "--fault-seed", "--fault-driver"}) {
    if (ff.rate.empty() && app.get_option(flag)->count() > 0) {
      std::fprintf(stderr, "dractl simulate cluster: %s is for random failures: give --fault-rate\n", flag);
      return std::nullopt;
    }
  }
  const std::optional<int64_t> grace = sched::ParseDurationSeconds(ff.grace);
  const bool exponential_repair = ff.repair_time.starts_with("exp:");
  const std::optional<int64_t> repair =
      sched::ParseDurationSeconds(std::string_view(ff.repair_time).substr(exponential_repair ? 4 : 0));
  const std::optional<double> rate = ff.rate.empty() ? std::optional<double>(0) : sched::ParseFaultRate(ff.rate);
  for (auto [flag, ok, text] : {std::tuple{"--eviction-grace", grace.has_value(), &ff.grace},
                                std::tuple{"--repair-time", repair.has_value() && *repair > 0, &ff.repair_time}}) {
    if (!ok) {
      std::fprintf(stderr, "dractl simulate cluster: %s %s: want a duration such as 90, 10s, 3m or 1h30m\n", flag,
                   text->c_str());
      return std::nullopt;
    }
  }
  if (!rate) {
    std::fprintf(stderr,
                 "dractl simulate cluster: --fault-rate %s: want a rate per device and hour (0.0004), or "
                 "N/day, N%%/day, N/h, N%%/h\n",
                 ff.rate.c_str());
    return std::nullopt;
  }
  t.grace = *grace;
  t.exponential_repair = exponential_repair;
  t.repair = *repair;
  t.rate = *rate;
  return t;
}

// Reads the --workload files: openb pod lists here, the other files as the
// cluster is read (never live). Returns an exit code, or -1 to go on.
int LoadWorkload(const std::vector<std::string>& workload_files, const api::FeatureGates& gates,
                 const ClusterInputOptions& inputs, std::vector<api::Pod>* workload,
                 std::vector<api::Object>* workload_others, manifest::LoadResult* loaded_workload) {
  std::vector<std::string> object_files;
  for (const std::string& f : workload_files) {
    if (f.size() > 4 && f.compare(f.size() - 4, 4, ".csv") == 0) {
      if (Status st = AddCsvWorkload(f, workload, workload_others); !st.ok()) {
        std::fprintf(stderr, "dractl simulate cluster: --workload %s: %s\n", f.c_str(), st.message().c_str());
        return kExitInputError;
      }
    } else {
      object_files.push_back(f);
    }
  }
  if (!object_files.empty()) {
    ClusterInputOptions wopts = inputs;
    wopts.live = false;
    if (int rc = LoadCluster(object_files, gates, wopts, loaded_workload); rc >= 0) return rc;
  }
  return -1;
}

// The packing policies' default profile: every pod of the workload. Returns
// an exit code, or -1 to go on.
int DefaultWorkloadProfile(const ClusterFlags& flags, const api::FeatureGates& gates, const sched::Snapshot& snapshot,
                           const std::vector<api::Pod>& workload, std::optional<sched::WorkloadProfile>* profile) {
  sched::Snapshot with_workload;
  std::vector<size_t> pods;
  if ((flags.policy == "fgd" || flags.policy == "dra-pack") && flags.workload_profile.empty()) {
    with_workload.templates = snapshot.templates;
    with_workload.claims = snapshot.claims;
    with_workload.pods = workload;
    for (size_t i = 0; i < workload.size(); ++i) pods.push_back(i);
  }
  return PrepareProfile(flags, gates, flags.workload_profile.empty() ? with_workload : snapshot, pods, "workload pods",
                        "dractl simulate cluster", profile);
}

// Random failures run over the workload's span: to its last deletion (or arrival).
int64_t FaultEnd(const std::vector<api::Pod>& workload) {
  int64_t fault_end = INT64_MIN;
  for (const api::Pod& p : workload) {
    for (const std::string* t : {&p.metadata.creation_timestamp, &p.metadata.deletion_timestamp}) {
      if (std::optional<int64_t> v = sched::ParseUtcSeconds(*t)) fault_end = std::max(fault_end, *v);
    }
  }
  return fault_end;
}

// The text summary.
void PrintClusterSummary(const sched::TimelineResult& r, const SimulateClusterArgs& a,
                         const manifest::LoadResult& cluster, const std::vector<sched::FaultEvent>& fault_events,
                         const std::optional<plan::AutoscaleReport>& report) {
  const ClusterFlags& flags = a.flags;
  const AutoscaleFlags& as = a.as;
  const sched::TimelineSummary& s = r.summary;
  std::printf("simulate: policy %s, device choice %s, %zu nodes, %lld devices, %lld workload pods, %s .. %s\n",
              flags.policy.c_str(),
              std::string(alloc::DeviceChoiceName(DeviceChoiceFor(flags.device_choice, flags.policy))).c_str(),
              cluster.objects.empty()
                  ? size_t{0}
                  : static_cast<size_t>(std::count_if(
                        cluster.objects.begin(), cluster.objects.end(),
                        [](const manifest::LoadedObject& o) { return std::holds_alternative<api::Node>(o.object); })),
              static_cast<long long>(s.devices), static_cast<long long>(s.pods),
              s.pods ? sched::FormatUtcSeconds(s.start_time).c_str() : "-",
              s.pods ? sched::FormatUtcSeconds(s.end_time).c_str() : "-");
  PrintRunCounts(CountsOf(s));
  std::printf("  time-weighted: devices %.2f%% allocated (peak %.2f%%), CPU %.2f%%, stranded devices %.2f%%\n",
              s.device_allocation_mean, s.peak_device_allocation, s.cpu_allocation_mean, s.stranded_devices_mean);
  if (s.evictions > 0 || !fault_events.empty() || s.device_hours_tainted > 0) {
    std::printf(
        "  evictions %lld (%lld running again; %lld s from eviction to running again, or to the end), "
        "tainted devices %.2f device-hours (at most %lld pods pending only for them), %zu fault events\n",
        static_cast<long long>(s.evictions), static_cast<long long>(s.restarts), static_cast<long long>(s.seconds_lost),
        s.device_hours_tainted, static_cast<long long>(s.peak_pending_for_taints), fault_events.size());
  }
  if (report) {
    std::printf(
        "  autoscaling (--expander %s; pending %s before a scale-up, provisioned in %s, removed after %s "
        "unneeded): %.2f node-hours, cost %.2f, %lld pod evictions\n",
        as.groups.expander.c_str(), as.scale_up_delay.c_str(), as.provision_time.c_str(),
        as.scale_down_unneeded.c_str(), report->node_hours, report->cost, static_cast<long long>(s.evictions));
    for (const plan::GroupUsage& g : report->groups) {
      std::printf("    %s: %lld added, %lld removed, peak %lld nodes, %.2f node-hours, cost %.2f\n", g.group.c_str(),
                  static_cast<long long>(g.added), static_cast<long long>(g.removed), static_cast<long long>(g.peak),
                  g.node_hours, g.cost);
    }
  }
  for (const sched::TimelinePod& p : r.pods) {
    if (p.pending_at_end) std::printf("  still pending: %s: %s\n", p.pod.c_str(), p.last_message.c_str());
  }
  if (a.csv.empty()) std::printf("  (the series: -o json or --csv FILE)\n");
}

}  // namespace

int RunSimulateCluster(std::span<const std::string_view> args) {
  CLI::App app{
      "Replays a workload over time on a cluster of DRA objects, with the scheduler of `dractl schedule`:\n"
      "each workload pod arrives at its metadata.creationTimestamp and, once placed, runs for\n"
      "deletionTimestamp - creationTimestamp (to the end without one); at each instant departures free their\n"
      "claims (the resource-claim controller's part), arrivals join the queue, and every pending pod is\n"
      "tried again in queue order. Prints a summary (pods started, still pending, waits, time-weighted\n"
      "device and CPU allocation, stranded devices: free devices on nodes where no workload pod fits for\n"
      "lack of CPU, memory or pod slots) and, with -o json or --csv, the series after every instant.\n"
      "  dractl simulate cluster -f CLUSTER... --workload PODS.yaml|TRACE.csv... [--policy P]\n"
      "The cluster is read as `dractl schedule` reads it (its pods and allocated claims are in use from\n"
      "the start; --live reads it from an API server). Workload files hold pods (and workloads, claims,\n"
      "templates they use) or an openb pod list CSV (pods as `dractl import openb` makes them).\n"
      "With --node-groups (NodeGroup files, as `dractl plan` reads them) the cluster autoscales: pods pending\n"
      "for --scale-up-delay are planned for with --expander, the nodes join --provision-time later, and nodes\n"
      "of the groups below --utilization-threshold whose pods fit elsewhere for --scale-down-unneeded are\n"
      "removed (their pods evicted and placed again); the summary adds node-hours and cost per group.\n"
      "Device failures: NoExecute device taints (in slices, DeviceTaintRules, --faults FILE, --fault-rate)\n"
      "evict the pods using the devices as kube-controller-manager's device-taint eviction controller does\n"
      "(after their claims' tolerationSeconds; --eviction-grace later the devices are free and the pods of\n"
      "workloads come back as new pods); the summary adds evictions, restarts, seconds lost and tainted\n"
      "device-hours.",
      "dractl simulate cluster"};
  SimulateClusterArgs a;
  AddSimulateClusterOptions(app, a);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  const bool autoscale = a.as.groups.given();
  std::optional<SimulateClusterTimes> times = CheckTimeFlags(app, a, autoscale);
  if (!times) return kExitUsageError;
  plan::AutoscaleOptions& as_options = times->as_options;
  const ClusterFlags& flags = a.flags;
  std::vector<sched::Fault> faults;
  const auto parse_faults = [&](std::string_view text, const std::string& file,
                                std::vector<manifest::LoadMessage>* messages) {
    sched::ParseFaults(text, file, &faults, messages);
  };
  if (int rc = ReadOwnFormat("dractl simulate cluster", "--faults", a.ff.files, parse_faults); rc >= 0) return rc;

  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl simulate cluster", flags.version, flags.gates);
  if (!gates) return kExitUsageError;
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl simulate cluster", flags.policy);
  if (!policy) return kExitUsageError;
  std::optional<ClusterInputOptions> inputs = InputOptions("dractl simulate cluster", a.files, flags);
  if (!inputs) return kExitUsageError;
  manifest::LoadResult cluster;
  if (int rc = LoadCluster(a.files, *gates, *inputs, &cluster); rc >= 0) return rc;

  std::vector<api::Pod> workload;
  std::vector<api::Object> workload_others;
  manifest::LoadResult loaded_workload;
  if (int rc = LoadWorkload(a.workload_files, *gates, *inputs, &workload, &workload_others, &loaded_workload);
      rc >= 0) {
    return rc;
  }
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : cluster.objects) objects.push_back(&o.object);
  for (manifest::LoadedObject& o : loaded_workload.objects) {
    if (auto* p = std::get_if<api::Pod>(&o.object)) {
      workload.push_back(std::move(*p));
    } else {
      objects.push_back(&o.object);
    }
  }
  for (const api::Object& o : workload_others) objects.push_back(&o);
  sched::Snapshot snapshot = sched::NewSnapshot(objects, *gates);
  std::vector<plan::NodeGroup> groups;
  if (!a.as.groups.node_groups.empty()) {
    if (int rc = LoadNodeGroups("dractl simulate cluster", a.as.groups.node_groups, *gates, &groups); rc >= 0) {
      return rc;
    }
  }
  if (int rc = NodeGroupsFromNodes("dractl simulate cluster", a.as.groups.node_group_from, snapshot, &groups);
      rc >= 0) {
    return rc;
  }
  std::optional<sched::WorkloadProfile> profile;
  if (int rc = DefaultWorkloadProfile(flags, *gates, snapshot, workload, &profile); rc >= 0) return rc;
  sched::ScheduleOptions options{.policy = policy.get(),
                                 .seed = flags.seed,
                                 .max_steps = flags.max_steps,
                                 .percentage_of_nodes_to_score = flags.percentage_of_nodes_to_score,
                                 .device_choice = DeviceChoiceFor(flags.device_choice, flags.policy)};
  if (profile) options.workload_profile = &*profile;
  options.gang = GangOptionsFor(flags);
  as_options.plan =
      plan::PlanOptions{.policy = policy.get(),
                        .seed = flags.seed,
                        .max_steps = flags.max_steps,
                        .device_choice = options.device_choice,
                        .expander = plan::ParseExpander(a.as.groups.expander).value_or(plan::Expander::kOptimal),
                        .max_seconds = a.as.groups.max_time};
  as_options.plan.gang = options.gang;
  as_options.utilization_threshold = a.as.utilization_threshold;
  plan::Autoscaler autoscaler(groups, as_options);
  if (autoscale) {
    if (Status st = autoscaler.AddMinimum(&snapshot); !st.ok()) {
      std::fprintf(stderr, "dractl simulate cluster: %s\n", st.message().c_str());
      return kExitInputError;
    }
  }
  std::optional<sched::FaultRate> fault_rate;
  int64_t fault_end = 0;
  if (times->rate > 0) {
    fault_rate = sched::FaultRate{.per_device_hour = times->rate,
                                  .repair_seconds = times->repair,
                                  .exponential_repair = times->exponential_repair,
                                  .seed = a.ff.seed,
                                  .driver = a.ff.driver};
    fault_end = FaultEnd(workload);
  }
  sched::TaintEvictionController evictions(times->grace);
  sched::FaultInjector injector(std::move(faults), fault_rate, fault_end);
  std::vector<sched::TimelineActor*> actors{&injector, &evictions};
  if (autoscale) actors.push_back(&autoscaler);
  StatusOr<sched::TimelineResult> r = sched::ReplayWorkload(std::move(snapshot), std::move(workload), options, actors);
  if (!r.ok()) {
    std::fprintf(stderr, "dractl simulate cluster: %s\n", r.status().message().c_str());
    return r.status().code() == StatusCode::kInvalidArgument ? kExitInputError : kExitInternalError;
  }
  if (!a.csv.empty()) {
    if (Status st = WriteTextFile(a.csv, SeriesCsv("device_allocation", "stranded_devices", Rows(r->samples)));
        !st.ok()) {
      std::fprintf(stderr, "dractl simulate cluster: --csv: %s\n", st.message().c_str());
      return kExitInputError;
    }
  }
  if (!a.report_file.empty()) {
    if (Status st = WriteTextFile(
            a.report_file, RenderClusterReport(*r, injector.events(), CommandLine("dractl simulate cluster", args)));
        !st.ok()) {
      std::fprintf(stderr, "dractl simulate cluster: --report: %s\n", st.message().c_str());
      return kExitInputError;
    }
  }
  std::optional<plan::AutoscaleReport> report;
  if (autoscale) report = autoscaler.Report(r->summary.start_time, r->summary.end_time);
  if (a.output == "json") {
    manifest::Node json = Report(*r, flags);
    if (report) json.Add("autoscaling", AutoscaleNode(*report, a.as, as_options));
    json.Add("faults", FaultsNode(injector.events()));
    std::fputs(ReportJson(json).c_str(), stdout);
    return kExitOk;
  }
  PrintClusterSummary(*r, a, cluster, injector.events(), report);
  return kExitOk;
}

}  // namespace dra::cli
