// dractl simulate replay: a trace over time (sim/replay.h): pods arrive at
// their creation time and leave after their run time, a pending queue is
// retried when capacity frees up; summary and a time series of GPU/CPU
// allocation, running and pending pods, fragmentation.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/simulate_print.h"
#include "fmt/format.h"
#include "sim/openb.h"
#include "sim/policies.h"
#include "sim/replay.h"

namespace dra::cli {
namespace {

std::vector<SeriesRow> Rows(const std::vector<sim::ReplaySample>& series) {
  std::vector<SeriesRow> rows;
  rows.reserve(series.size());
  for (const sim::ReplaySample& x : series) {
    rows.push_back(SeriesRow{.time_csv = fmt::format("{}", x.time),
                             .time_json = Integer(x.time),
                             .first = x.gpu_allocation,
                             .cpu_allocation = x.cpu_allocation,
                             .running = x.running,
                             .pending = x.pending,
                             .last = x.frag_amount});
  }
  return rows;
}

std::string Json(const sim::ReplayResult& r, sim::Policy policy, uint64_t seed, size_t nodes, int64_t interval,
                 double speedup) {
  const sim::ReplaySummary& s = r.summary;
  const RunCounts c = CountsOf(s);
  manifest::Node summary = manifest::Node::Mapping();
  summary.Add("pods", Integer(s.pods));
  AddRunCounts(c, &summary);
  summary.Add("peak_gpu_allocation", Fixed(s.peak_gpu_allocation, 4));
  summary.Add("start_time", Integer(s.start_time));
  summary.Add("end_time", Integer(s.end_time));
  summary.Add("wait", WaitNode(c));
  summary.Add("gpu_allocation_mean", Fixed(s.gpu_allocation_mean, 4));
  summary.Add("cpu_allocation_mean", Fixed(s.cpu_allocation_mean, 4));
  summary.Add("gpu_capacity", Integer(s.gpu_capacity));
  summary.Add("cpu_capacity", Integer(s.cpu_capacity));
  manifest::Node report = manifest::Node::Mapping();
  report.Add("policy", manifest::Node::String(std::string(sim::PolicyName(policy))));
  report.Add("seed", Integer(seed));
  report.Add("nodes", Integer(nodes));
  report.Add("interval", Integer(interval));
  report.Add("speedup", manifest::Node::Number(fmt::format("{}", speedup), manifest::NodeKind::kFloat));
  report.Add("summary", std::move(summary));
  report.Add("series", SeriesNode("gpu_allocation", "frag_amount", Rows(r.series)));
  return ReportJson(report);
}

}  // namespace

int RunSimulateReplay(std::span<const std::string_view> args) {
  CLI::App app{
      "Replays a trace over time: each pod arrives at its creation_time and, once placed, runs for\n"
      "deletion_time - creation_time (to the end without a deletion_time). A pod that fits no node\n"
      "waits in a pending queue, tried again in arrival order whenever a departure frees a node\n"
      "it fits. Placement is the simulator's scheduling cycle with --policy on the native model\n"
      "(the filter `simulate openb --check all` proves equal to the DRA allocator's). Prints a\n"
      "summary (pods started, still pending, waits, time-weighted GPU and CPU allocation) and,\n"
      "with -o json or --csv, a time series every --interval seconds: GPU and CPU allocation %,\n"
      "running and pending pods, fragmentation (% of GPU capacity, the FGD metric).\n"
      "  dractl simulate replay --nodes NODES.csv --pods PODS.csv [--policy P] [--seed S]\n"
      "Both CSVs in the openb format (Alibaba clusterdata's openb CSVs); every node takes part.",
      "dractl simulate replay"};
  std::string nodes_csv, pods_csv, policy_text = "fgd", output = "text", csv;
  uint64_t seed = 42;
  int64_t interval = 3600;
  double speedup = 1;
  app.add_option("--nodes", nodes_csv, "node list CSV")->required();
  app.add_option("--pods", pods_csv, "pod list CSV with creation_time and deletion_time")->required();
  app.add_option("--policy", policy_text, "random, dotprod, gpuclustering, gpupacking, bestfit, fgd or dra-pack")
      ->capture_default_str();
  app.add_option("--seed", seed, "node ranks for ties, and the random policy's draws")->capture_default_str();
  app.add_option("--interval", interval, "seconds between samples of the series (at most 1,000,000 samples)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--speedup", speedup,
                 "arrivals this many times faster (creation_time / X), run times unchanged: X times the load")
      ->check(CLI::Range(1.0, 1e12))
      ->capture_default_str();
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app.add_option("--csv", csv, "write the series to FILE");
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  StatusOr<sim::Policy> policy = sim::ParsePolicy(policy_text);
  if (!policy.ok()) {
    std::fprintf(stderr, "dractl simulate replay: --policy: %s\n", policy.status().message().c_str());
    return kExitUsageError;
  }
  StatusOr<sim::OpenbTrace> input = sim::ReadOpenbTrace(nodes_csv, pods_csv);
  if (!input.ok()) {
    std::fprintf(stderr, "%s\n", input.status().message().c_str());
    return kExitInputError;
  }
  std::vector<sim::OpenbNode>& nodes = input->nodes;
  std::vector<sim::OpenbPod>& pods = input->pods;
  StatusOr<sim::ReplayResult> r = sim::Replay(
      nodes, pods, sim::ReplayOptions{.policy = *policy, .seed = seed, .interval = interval, .speedup = speedup});
  if (!r.ok()) {
    std::fprintf(stderr, "dractl simulate replay: %s\n", r.status().message().c_str());
    return kExitInputError;
  }
  if (!csv.empty()) {
    if (Status st = WriteTextFile(csv, SeriesCsv("gpu_allocation", "frag_amount", Rows(r->series))); !st.ok()) {
      std::fprintf(stderr, "dractl simulate replay: --csv: %s\n", st.message().c_str());
      return kExitInputError;
    }
  }
  if (output == "json") {
    std::fputs(Json(*r, *policy, seed, nodes.size(), interval, speedup).c_str(), stdout);
    return kExitOk;
  }
  const sim::ReplaySummary& s = r->summary;
  std::printf("replay: policy %s, seed %llu, speedup %g, %zu nodes, %lld pods over %lld..%lld s\n",
              std::string(sim::PolicyName(*policy)).c_str(), static_cast<unsigned long long>(seed), speedup,
              nodes.size(), static_cast<long long>(s.pods), static_cast<long long>(s.start_time),
              static_cast<long long>(s.end_time));
  PrintRunCounts(CountsOf(s));
  std::printf("  allocation, time-weighted mean: GPU %.2f%% of %lld milli (peak %.2f%%), CPU %.2f%% of %lld milli\n",
              s.gpu_allocation_mean, static_cast<long long>(s.gpu_capacity), s.peak_gpu_allocation,
              s.cpu_allocation_mean, static_cast<long long>(s.cpu_capacity));
  if (csv.empty()) std::printf("  (the series: -o json or --csv FILE)\n");
  return kExitOk;
}

}  // namespace dra::cli
