// dractl simulate cluster: a workload replayed over time on a cluster of DRA
// objects with `dractl schedule`'s scheduler (sched/timeline.h).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/simulate_print.h"
#include "fmt/format.h"
#include "kube/client.h"
#include "sched/policy.h"
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
                             .time_json = fmt::format("\"{}\"", sched::FormatUtcSeconds(x.time)),
                             .first = x.device_allocation,
                             .cpu_allocation = x.cpu_allocation,
                             .running = x.running,
                             .pending = x.pending,
                             .last = x.stranded_devices});
  }
  return rows;
}

std::string Json(const sched::TimelineResult& r, const ClusterFlags& flags) {
  const sched::TimelineSummary& s = r.summary;
  const RunCounts c = CountsOf(s);
  std::string out = fmt::format(
      "{{\"policy\": \"{}\", \"device_choice\": \"{}\", \"seed\": {}, \"summary\": {{\"pods\": {}, {}, "
      "\"start\": \"{}\", \"end\": \"{}\", {}, "
      "\"devices\": {}, \"device_allocation_mean\": {:.4f}, \"peak_device_allocation\": {:.4f}, "
      "\"cpu_allocation_mean\": {:.4f}, \"stranded_devices_mean\": {:.4f}}}, \"series\": [",
      flags.policy, alloc::DeviceChoiceName(DeviceChoiceFor(flags.device_choice, flags.policy)), flags.seed, s.pods,
      RunCountsJson(c), sched::FormatUtcSeconds(s.start_time), sched::FormatUtcSeconds(s.end_time), WaitJson(c),
      s.devices, s.device_allocation_mean, s.peak_device_allocation, s.cpu_allocation_mean, s.stranded_devices_mean);
  out += SeriesJson("device_allocation", "stranded_devices", Rows(r.samples));
  out += "], \"pods\": [";
  for (size_t i = 0; i < r.pods.size(); ++i) {
    const sched::TimelinePod& p = r.pods[i];
    out += fmt::format("{}{{\"pod\": {}, \"arrival\": \"{}\"", i ? ", " : "", kube::JsonString(p.pod),
                       sched::FormatUtcSeconds(p.arrival));
    if (p.start) out += fmt::format(", \"start\": \"{}\", \"node\": {}", sched::FormatUtcSeconds(*p.start), kube::JsonString(p.node));
    if (p.end) out += fmt::format(", \"end\": \"{}\"", sched::FormatUtcSeconds(*p.end));
    if (!p.start) out += fmt::format(", \"pending\": {}", kube::JsonString(p.last_message));
    out += "}";
  }
  out += "]}\n";
  return out;
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
    if (row.deletion_time > row.creation_time) p.metadata.deletion_timestamp = sched::FormatUtcSeconds(row.deletion_time);
    pods->push_back(std::move(p));
  }
  return OkStatus();
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
      "templates they use) or an openb pod list CSV (pods as `dractl import openb` makes them).",
      "dractl simulate cluster"};
  std::vector<std::string> files, workload_files;
  ClusterFlags flags;
  std::string output = "text", csv;
  app.add_option("-f,--filename", files, "cluster: file, directory or - (stdin); repeatable");
  app.add_option("--workload", workload_files, "pods arriving over time: YAML/JSON or an openb pod CSV; repeatable")
      ->required();
  AddClusterFlags(app, flags);
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app.add_option("--csv", csv, "write the series to FILE");
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl simulate cluster", flags.version, flags.gates);
  if (!gates) return kExitUsageError;
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl simulate cluster", flags.policy);
  if (!policy) return kExitUsageError;
  std::optional<ClusterInputOptions> inputs = InputOptions("dractl simulate cluster", files, flags);
  if (!inputs) return kExitUsageError;
  manifest::LoadResult cluster;
  if (int rc = LoadCluster(files, *gates, *inputs, &cluster); rc >= 0) return rc;

  std::vector<api::Pod> workload;
  std::vector<api::Object> workload_others;
  std::vector<std::string> object_files;
  for (const std::string& f : workload_files) {
    if (f.size() > 4 && f.compare(f.size() - 4, 4, ".csv") == 0) {
      if (Status st = AddCsvWorkload(f, &workload, &workload_others); !st.ok()) {
        std::fprintf(stderr, "dractl simulate cluster: --workload %s: %s\n", f.c_str(), st.message().c_str());
        return kExitInputError;
      }
    } else {
      object_files.push_back(f);
    }
  }
  manifest::LoadResult loaded_workload;
  if (!object_files.empty()) {
    ClusterInputOptions wopts = *inputs;
    wopts.live = false;
    if (int rc = LoadCluster(object_files, *gates, wopts, &loaded_workload); rc >= 0) return rc;
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
  // The packing policies' default profile: every pod of the workload.
  std::optional<sched::WorkloadProfile> profile;
  {
    sched::Snapshot with_workload;
    std::vector<size_t> pods;
    if ((flags.policy == "fgd" || flags.policy == "dra-pack") && flags.workload_profile.empty()) {
      with_workload.templates = snapshot.templates;
      with_workload.claims = snapshot.claims;
      with_workload.pods = workload;
      for (size_t i = 0; i < workload.size(); ++i) pods.push_back(i);
    }
    if (int rc = PrepareProfile(flags, *gates, flags.workload_profile.empty() ? with_workload : snapshot, pods,
                                "workload pods", "dractl simulate cluster", &profile);
        rc >= 0) {
      return rc;
    }
  }
  sched::ScheduleOptions options{.policy = policy.get(),
                                 .seed = flags.seed,
                                 .max_steps = flags.max_steps,
                                 .percentage_of_nodes_to_score = flags.percentage_of_nodes_to_score,
                                 .device_choice = DeviceChoiceFor(flags.device_choice, flags.policy)};
  if (profile) options.workload_profile = &*profile;
  StatusOr<sched::TimelineResult> r = sched::ReplayWorkload(std::move(snapshot), std::move(workload), options);
  if (!r.ok()) {
    std::fprintf(stderr, "dractl simulate cluster: %s\n", r.status().message().c_str());
    return r.status().code() == StatusCode::kInvalidArgument ? kExitInputError : kExitInternalError;
  }
  if (!csv.empty()) {
    if (Status st = WriteTextFile(csv, SeriesCsv("device_allocation", "stranded_devices", Rows(r->samples))); !st.ok()) {
      std::fprintf(stderr, "dractl simulate cluster: --csv: %s\n", st.message().c_str());
      return kExitInputError;
    }
  }
  if (output == "json") {
    std::fputs(Json(*r, flags).c_str(), stdout);
    return kExitOk;
  }
  const sched::TimelineSummary& s = r->summary;
  std::printf("simulate: policy %s, device choice %s, %zu nodes, %lld devices, %lld workload pods, %s .. %s\n",
              flags.policy.c_str(),
              std::string(alloc::DeviceChoiceName(DeviceChoiceFor(flags.device_choice, flags.policy))).c_str(),
              cluster.objects.empty() ? size_t{0} : static_cast<size_t>(std::count_if(
                  cluster.objects.begin(), cluster.objects.end(),
                  [](const manifest::LoadedObject& o) { return std::holds_alternative<api::Node>(o.object); })),
              static_cast<long long>(s.devices), static_cast<long long>(s.pods),
              s.pods ? sched::FormatUtcSeconds(s.start_time).c_str() : "-",
              s.pods ? sched::FormatUtcSeconds(s.end_time).c_str() : "-");
  PrintRunCounts(CountsOf(s));
  std::printf("  time-weighted: devices %.2f%% allocated (peak %.2f%%), CPU %.2f%%, stranded devices %.2f%%\n",
              s.device_allocation_mean, s.peak_device_allocation, s.cpu_allocation_mean, s.stranded_devices_mean);
  for (const sched::TimelinePod& p : r->pods) {
    if (!p.start) std::printf("  still pending: %s: %s\n", p.pod.c_str(), p.last_message.c_str());
  }
  if (csv.empty()) std::printf("  (the series: -o json or --csv FILE)\n");
  return kExitOk;
}

}  // namespace dra::cli
