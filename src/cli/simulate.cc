// dractl simulate openb: the FGD paper's experiment (docs/fgd.md) on the
// native model, every placement checked by the DRA allocator; per run and
// over seeds the GPU allocation, fragmentation amount and ratio at 100% and
// 130% arrived; --report writes them as an HTML page with plots
// (sim/report.h). See src/sim/README.md.
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/simulate_print.h"
#include "fmt/format.h"
#include "sim/expected.h"
#include "sim/openb.h"
#include "sim/openb_sim.h"
#include "sim/policies.h"
#include "sim/report.h"

namespace dra::cli {
namespace {

constexpr int kReportColumns[] = {100, 130};

struct RunOutcome {
  uint64_t seed = 0;
  sim::RunLog log;
  sim::Columns columns;
  double seconds = 0;
  Status status;
};

// "42,43" or "42-51" or a mix.
std::optional<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (part.empty()) return std::nullopt;
    size_t dash = part.find('-');
    try {
      if (dash == std::string::npos) {
        out.push_back(std::stoull(part));
      } else {
        uint64_t a = std::stoull(part.substr(0, dash)), b = std::stoull(part.substr(dash + 1));
        if (b < a || b - a > 100000) return std::nullopt;
        for (uint64_t s = a; s <= b; ++s) out.push_back(s);
      }
    } catch (...) {
      return std::nullopt;
    }
  }
  return out;
}

std::string TraceName(const std::string& pods_csv) {
  std::string base = pods_csv.substr(pods_csv.find_last_of('/') + 1);
  const std::string prefix = "openb_pod_list_";
  if (base.starts_with(prefix)) base = base.substr(prefix.size());
  if (base.ends_with(".csv")) base.resize(base.size() - 4);
  return base;
}

std::string Num(std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : "null"; }

using ColumnOf = const std::array<std::optional<double>, sim::kColumns>& (*)(const sim::Columns&);
const std::array<std::optional<double>, sim::kColumns>& Alloc(const sim::Columns& c) { return c.allocation; }
const std::array<std::optional<double>, sim::kColumns>& FragAmount(const sim::Columns& c) { return c.frag_amount; }
const std::array<std::optional<double>, sim::kColumns>& FragRatio(const sim::Columns& c) { return c.frag_ratio; }

struct MetricDef {
  const char* json;
  ColumnOf ours;
  const std::vector<std::optional<double>> sim::PublishedRun::*published;
};
constexpr MetricDef kMetrics[] = {
    {"allocation", Alloc, &sim::PublishedRun::allocation},
    {"frag_amount", FragAmount, &sim::PublishedRun::frag_amount},
    {"frag_ratio", FragRatio, &sim::PublishedRun::frag_ratio},
};

sim::MeanSd OursAt(const std::vector<RunOutcome>& runs, const MetricDef& m, int col) {
  std::vector<double> v;
  for (const RunOutcome& r : runs) {
    if (auto x = m.ours(r.columns)[static_cast<size_t>(col)]) v.push_back(*x);
  }
  return sim::Summarize(v);
}

std::optional<sim::MeanSd> PublishedAt(const std::vector<sim::PublishedRun>* runs, const MetricDef& m, int col) {
  if (runs == nullptr) return std::nullopt;
  std::vector<double> v;
  for (const sim::PublishedRun& r : *runs) {
    const auto& values = r.*m.published;
    if (static_cast<size_t>(col) < values.size() && values[static_cast<size_t>(col)]) {
      v.push_back(*values[static_cast<size_t>(col)]);
    }
  }
  if (v.empty()) return std::nullopt;
  return sim::Summarize(v);
}

// The reproduction tolerance, as scripts/reproduce-fgd judges: on the default
// trace ±0.5 for GpuClustering and GpuPacking (larger per-seed spread,
// docs/fgd.md §7.9), else ±0.3; ±0.5 on the other traces.
double Tolerance(const std::string& trace, sim::Policy p) {
  if (trace != "default") return 0.5;
  return p == sim::Policy::kGpuClustering || p == sim::Policy::kGpuPacking ? 0.5 : 0.3;
}

// The published runs our numbers stand beside: the policy's own, and for
// dra-pack (ours, never published) FGD's, which it must reach or beat.
sim::Policy ComparedWith(sim::Policy p) { return p == sim::Policy::kDraPack ? sim::Policy::kFgd : p; }
bool AtLeast(sim::Policy p) { return p == sim::Policy::kDraPack; }
// Whether ours - published = `diff` passes: at least FGD for dra-pack, else
// within the tolerance.
bool Passes(const std::string& trace, sim::Policy p, double diff) {
  return AtLeast(p) ? diff >= -1e-9 : std::abs(diff) <= Tolerance(trace, p);
}
const std::vector<sim::PublishedRun>* PublishedFor(const std::optional<sim::Published>& published,
                                                   const std::string& trace, sim::Policy p) {
  if (!published) return nullptr;
  return published->Find(trace, std::string(sim::PaperPolicyName(ComparedWith(p))));
}

manifest::Node MeanSdNode(const std::optional<sim::MeanSd>& ms) {
  if (!ms) return manifest::Node::Null();
  manifest::Node n = manifest::Node::Mapping();
  n.Add("mean", Fixed(ms->mean, 4));
  n.Add("sd", Fixed(ms->sd, 4));
  return n;
}

// One value per report column ("100", "130"), keyed by the column.
template <typename ValueAt>
manifest::Node ByColumn(ValueAt value_at) {
  manifest::Node n = manifest::Node::Mapping();
  for (int col : kReportColumns) n.Add(std::to_string(col), value_at(col));
  return n;
}

manifest::Node JsonFor(const std::string& trace, sim::Policy policy, const std::vector<RunOutcome>& runs,
                       const std::vector<sim::PublishedRun>* published) {
  manifest::Node report = manifest::Node::Mapping();
  report.Add("trace", manifest::Node::String(trace));
  report.Add("policy", manifest::Node::String(std::string(sim::PolicyName(policy))));
  manifest::Node seeds = manifest::Node::Sequence();
  for (const RunOutcome& r : runs) seeds.Push(Integer(r.seed));
  report.Add("seeds", std::move(seeds));
  for (const MetricDef& m : kMetrics) {
    // null where no run reached the column (a trace tuned below 130%).
    report.Add(m.json, ByColumn([&](int col) {
                 sim::MeanSd ms = OursAt(runs, m, col);
                 return MeanSdNode(ms.n > 0 ? std::optional<sim::MeanSd>(ms) : std::nullopt);
               }));
  }
  if (published != nullptr) {
    manifest::Node pub = manifest::Node::Mapping();
    for (const MetricDef& m : kMetrics) {
      pub.Add(m.json, ByColumn([&](int col) { return MeanSdNode(PublishedAt(published, m, col)); }));
    }
    report.Add("published", std::move(pub));
    if (AtLeast(policy)) {
      report.Add("published_policy", manifest::Node::String(std::string(sim::PolicyName(ComparedWith(policy)))));
      report.Add("target", manifest::Node::String("at least"));
    } else {
      report.Add("tolerance",
                 manifest::Node::Number(fmt::format("{}", Tolerance(trace, policy)), manifest::NodeKind::kFloat));
    }
  }
  manifest::Node run_list = manifest::Node::Sequence();
  for (const RunOutcome& r : runs) {
    manifest::Node run = manifest::Node::Mapping();
    run.Add("seed", Integer(r.seed));
    for (const MetricDef& m : kMetrics) {
      run.Add(m.json, ByColumn([&](int col) {
                const std::optional<double>& v = m.ours(r.columns)[static_cast<size_t>(col)];
                return v ? Fixed(*v, 2) : manifest::Node::Null();
              }));
    }
    run.Add("pods", Integer(r.log.submitted));
    run.Add("copies", Integer(r.log.copies));
    run.Add("removed", Integer(r.log.removed));
    run.Add("failed", Integer(r.log.failed));
    run.Add("allocator_calls", Integer(r.log.allocator_calls));
    run.Add("seconds", Fixed(r.seconds, 3));
    run_list.Push(std::move(run));
  }
  report.Add("runs", std::move(run_list));
  return report;
}

void PrintText(const std::string& trace, sim::Policy policy, const std::vector<RunOutcome>& runs,
               const std::vector<sim::PublishedRun>* published) {
  std::printf("trace %s, policy %s\n", trace.c_str(), std::string(sim::PolicyName(policy)).c_str());
  std::printf("%6s %9s %9s %9s %9s %9s %9s %7s %7s %8s\n", "seed", "alloc100", "alloc130", "frag100", "frag130",
              "ratio100", "ratio130", "pods", "failed", "seconds");
  for (const RunOutcome& r : runs) {
    const auto& c = r.columns;
    std::printf("%6llu %9s %9s %9s %9s %9s %9s %7lld %7lld %8.2f\n", static_cast<unsigned long long>(r.seed),
                Num(c.allocation[100]).c_str(), Num(c.allocation[130]).c_str(), Num(c.frag_amount[100]).c_str(),
                Num(c.frag_amount[130]).c_str(), Num(c.frag_ratio[100]).c_str(), Num(c.frag_ratio[130]).c_str(),
                static_cast<long long>(r.log.submitted), static_cast<long long>(r.log.failed), r.seconds);
  }
  std::string mean = "  mean", pub = AtLeast(policy) ? "   fgd" : "   pub";
  for (const MetricDef& m : kMetrics) {
    for (int col : kReportColumns) {
      sim::MeanSd ms = OursAt(runs, m, col);
      mean += fmt::format(" {:>9}", ms.n > 0 ? fmt::format("{:.2f}±{:.2f}", ms.mean, ms.sd) : "-");
      std::optional<sim::MeanSd> p = PublishedAt(published, m, col);
      pub += fmt::format(" {:>9}", p ? fmt::format("{:.2f}±{:.2f}", p->mean, p->sd) : "-");
    }
  }
  std::printf("%s\n", mean.c_str());
  if (published != nullptr) {
    std::printf("%s\n", pub.c_str());
    for (int col : kReportColumns) {
      sim::MeanSd ours = OursAt(runs, kMetrics[0], col);
      std::optional<sim::MeanSd> p = PublishedAt(published, kMetrics[0], col);
      if (!p) continue;
      if (ours.n == 0) {
        std::printf("  allocation at %d%%: no run reached %d%% arrived, nothing to compare\n", col, col);
        continue;
      }
      double diff = ours.mean - p->mean;
      const std::string target = AtLeast(policy)
                                     ? fmt::format("target at least {}", sim::PolicyName(ComparedWith(policy)))
                                     : fmt::format("tolerance ±{:.1f}", Tolerance(trace, policy));
      std::printf("  allocation at %d%%: ours %.2f, published %s %.2f, diff %+.2f, %s: %s\n", col, ours.mean,
                  std::string(sim::PolicyName(ComparedWith(policy))).c_str(), p->mean, diff, target.c_str(),
                  Passes(trace, policy, diff) ? "ok" : "MISS");
    }
  }
}

// The flags of dractl simulate openb.
struct OpenbFlags {
  std::string format, nodes_csv, pods_csv, policies = "fgd", seeds_text = "42", output = "text", csv, expected, trace;
  std::string check = "placements", report, engine = "native";
  double tune = 1.3;
  unsigned jobs = 1;
};

void AddOpenbFlags(CLI::App& app, OpenbFlags& f) {
  app.add_option("format", f.format, "openb (the FGD protocol); replay has its own --help")
      ->required()
      ->check(CLI::IsMember({"openb"}));
  app.add_option("--nodes", f.nodes_csv, "node list CSV")->required();
  app.add_option("--pods", f.pods_csv, "pod list CSV")->required();
  app.add_option("--policy", f.policies, "policy or comma-separated policies")->capture_default_str();
  app.add_option("--seed", f.seeds_text, "seeds: 42 or 42,43 or 42-51")->capture_default_str();
  app.add_option("-o,--output", f.output, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--csv", f.csv, "write the per-column table (0..130) of every run to FILE");
  app.add_option("--expected", f.expected, "directory of the published results (traces/alibaba-openb/expected)");
  app.add_option("--trace", f.trace, "trace name for --expected (default: from the pod file name)");
  app.add_option("--tune", f.tune, "tune the workload to this share of GPU capacity")->capture_default_str();
  app.add_option("--check", f.check, "allocator checks: none, placements (every placement), all (every node, slow)")
      ->check(CLI::IsMember({"none", "placements", "all"}))
      ->capture_default_str();
  app.add_option("--report", f.report, "write an HTML page with plots and the published comparison to FILE");
  app.add_option("-j,--jobs", f.jobs, "runs in parallel (threads)")->capture_default_str();
  app.add_option("--engine", f.engine,
                 "who schedules: native (the simulator's own model, every policy) or dra (dractl schedule's "
                 "scheduler on the imported objects: the allocator filters, the policy scores and chooses the "
                 "devices; bestfit, fgd and dra-pack; --check does not apply)")
      ->check(CLI::IsMember({"native", "dra"}))
      ->capture_default_str();
}

// --policy: one policy or several, comma-separated (--engine dra runs three).
// Returns the usage error's exit code, or -1 to go on.
int ParsePolicyList(const std::string& policies, const std::string& engine, std::vector<sim::Policy>* policy_list) {
  size_t pos = 0;
  while (pos <= policies.size()) {
    size_t comma = policies.find(',', pos);
    if (comma == std::string::npos) comma = policies.size();
    StatusOr<sim::Policy> p = sim::ParsePolicy(policies.substr(pos, comma - pos));
    if (!p.ok()) {
      std::fprintf(stderr, "dractl simulate: --policy: %s\n", p.status().message().c_str());
      return kExitUsageError;
    }
    if (engine == "dra" && *p != sim::Policy::kBestFit && *p != sim::Policy::kFgd && *p != sim::Policy::kDraPack) {
      std::fprintf(stderr, "dractl simulate: --policy %s: --engine dra runs bestfit, fgd and dra-pack\n",
                   std::string(sim::PolicyName(*p)).c_str());
      return kExitUsageError;
    }
    policy_list->push_back(*p);
    pos = comma + 1;
  }
  return -1;
}

// Runs every (policy, seed), `jobs` at a time.
std::vector<std::vector<RunOutcome>> RunAll(const sim::OpenbExperiment& experiment,
                                            const std::vector<sim::Policy>& policy_list,
                                            const std::vector<uint64_t>& seeds, double tune,
                                            sim::AllocatorCheck check_mode, bool dra_engine, unsigned jobs) {
  // Every (policy, seed) is one task; threads take the next task.
  std::vector<std::vector<RunOutcome>> results(policy_list.size(), std::vector<RunOutcome>(seeds.size()));
  const size_t tasks = policy_list.size() * seeds.size();
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mu;
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto worker = [&] {
    while (true) {
      size_t t = next++;
      if (t >= tasks) return;
      size_t pi = t / seeds.size(), si = t % seeds.size();
      RunOutcome& r = results[pi][si];
      r.seed = seeds[si];
      auto start = std::chrono::steady_clock::now();
      StatusOr<sim::RunLog> log =
          experiment.Run(sim::RunOptions{.policy = policy_list[pi],
                                         .seed = r.seed,
                                         .tune_ratio = tune,
                                         .check = check_mode,
                                         .engine = dra_engine ? sim::Engine::kDra : sim::Engine::kNative});
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!log.ok()) {
        r.status = log.status();
      } else {
        r.log = std::move(*log);
        r.columns = sim::BinRows(r.log);
        r.log.rows = {};  // the columns are what we keep
      }
      size_t d = ++done;
      if (tty) {
        std::lock_guard<std::mutex> lock(progress_mu);
        std::fprintf(stderr, "\r[%zu/%zu runs]%s", d, tasks, d == tasks ? "\n" : "");
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 1; j < std::min<size_t>(jobs, tasks); ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  return results;
}

// --csv: the per-column table of every run. Returns the exit code of a
// failure, or -1.
int WriteCsv(const std::string& csv, const std::string& trace, const std::vector<sim::Policy>& policy_list,
             const std::vector<std::vector<RunOutcome>>& results) {
  std::string text = "trace,policy,seed,metric";
  for (int k = 0; k < sim::kColumns; ++k) text += fmt::format(",{}", k);
  text += "\n";
  for (size_t pi = 0; pi < policy_list.size(); ++pi) {
    for (const RunOutcome& r : results[pi]) {
      for (const MetricDef& m : kMetrics) {
        text += fmt::format("{},{},{},{}", trace, sim::PolicyName(policy_list[pi]), r.seed, m.json);
        for (const std::optional<double>& v : m.ours(r.columns)) text += v ? fmt::format(",{:.4f}", *v) : ",";
        text += "\n";
      }
    }
  }
  if (Status st = WriteTextFile(csv, text); !st.ok()) {
    std::fprintf(stderr, "dractl simulate: --csv: %s\n", st.message().c_str());
    return kExitInputError;
  }
  return -1;
}

// --report: the HTML page. Returns the exit code of a failure, or -1.
int WriteReport(const std::string& report, const std::string& trace, const std::vector<uint64_t>& seeds,
                std::span<const std::string_view> args, const sim::OpenbExperiment& experiment,
                const std::vector<sim::Policy>& policy_list, const std::vector<std::vector<RunOutcome>>& results,
                const std::optional<sim::Published>& published) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  sim::ReportInput in{.trace = trace,
                      .seeds = seeds,
                      .command_line = CommandLine("dractl simulate", args),
                      .policies = {},
                      .gpus = experiment.cluster().gpu_capacity() / 1000,
                      .generated = fmt::format("dractl {} on {}", DRACTL_VERSION, date)};
  for (size_t pi = 0; pi < policy_list.size(); ++pi) {
    sim::ReportPolicy rp{.name = std::string(sim::PolicyName(policy_list[pi])),
                         .runs = {},
                         .published = {},
                         .tolerance = Tolerance(trace, policy_list[pi])};
    for (const RunOutcome& r : results[pi]) rp.runs.push_back(r.columns);
    // dra-pack has no published runs of its own; the fgd row carries FGD's.
    const std::vector<sim::PublishedRun>* pub =
        AtLeast(policy_list[pi]) ? nullptr : PublishedFor(published, trace, policy_list[pi]);
    if (pub != nullptr) rp.published = *pub;
    if (AtLeast(policy_list[pi])) rp.tolerance = std::nullopt;
    in.policies.push_back(std::move(rp));
  }
  if (Status st = WriteTextFile(report, sim::RenderReport(in)); !st.ok()) {
    std::fprintf(stderr, "dractl simulate: --report: %s\n", st.message().c_str());
    return kExitInputError;
  }
  return -1;
}

// The results on stdout: text, or JSON (a list for several policies).
void PrintResults(const std::string& output, const std::string& trace, const std::vector<sim::Policy>& policy_list,
                  const std::vector<std::vector<RunOutcome>>& results, const std::optional<sim::Published>& published) {
  if (output == "json") {
    std::string out = policy_list.size() > 1 ? "[" : "";
    for (size_t pi = 0; pi < policy_list.size(); ++pi) {
      const std::vector<sim::PublishedRun>* pub = PublishedFor(published, trace, policy_list[pi]);
      std::string json = ReportJson(JsonFor(trace, policy_list[pi], results[pi], pub));
      json.pop_back();  // the newline: several policies are a list, one a line
      out += (pi ? ",\n" : "") + json;
    }
    out += policy_list.size() > 1 ? "]\n" : "\n";
    std::fputs(out.c_str(), stdout);
  } else {
    for (size_t pi = 0; pi < policy_list.size(); ++pi) {
      const std::vector<sim::PublishedRun>* pub = PublishedFor(published, trace, policy_list[pi]);
      if (pi) std::printf("\n");
      PrintText(trace, policy_list[pi], results[pi], pub);
    }
  }
}

}  // namespace

int RunSimulate(std::span<const std::string_view> args) {
  if (!args.empty() && args[0] == "replay") return RunSimulateReplay(args.subspan(1));
  if (!args.empty() && args[0] == "cluster") return RunSimulateCluster(args.subspan(1));
  // `dractl simulate -f CLUSTER --workload PODS` (the spelling) is the same.
  if (!args.empty() && (args[0] == "-f" || args[0].starts_with("--filename") || args[0].starts_with("--workload"))) {
    return RunSimulateCluster(args);
  }
  CLI::App app{
      "Replays a trace through the scheduler and reports GPU allocation and fragmentation.\n"
      "  dractl simulate openb --nodes NODES.csv --pods PODS.csv --policy P --seed S[,S...]\n"
      "runs the FGD paper's protocol (Weng et al., USENIX ATC'23): GPU nodes only, pods\n"
      "shuffled per seed and tuned to 130% of GPU capacity, one at a time, dropped on failure;\n"
      "every placement checked by the DRA allocator on the imported objects. Policies: random,\n"
      "dotprod, gpuclustering, gpupacking, bestfit, fgd (the paper's six), and dra-pack (ours:\n"
      "FGD that also counts the GPUs a node's free CPU cannot feed; with --expected it is\n"
      "compared with FGD's published numbers and must reach them). Comma-separated for several.\n"
      "  dractl simulate replay --nodes NODES.csv --pods PODS.csv [--policy P]\n"
      "replays a trace over time instead (arrivals, departures, a pending queue; see\n"
      "dractl simulate replay --help).\n"
      "  dractl simulate cluster -f CLUSTER... --workload PODS... (or dractl simulate -f ...)\n"
      "replays pods over time on a cluster of DRA objects with `dractl schedule`'s scheduler\n"
      "(see dractl simulate cluster --help).",
      "dractl simulate"};
  OpenbFlags f;
  AddOpenbFlags(app, f);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::vector<sim::Policy> policy_list;
  if (int rc = ParsePolicyList(f.policies, f.engine, &policy_list); rc >= 0) return rc;
  std::optional<std::vector<uint64_t>> seeds = ParseSeeds(f.seeds_text);
  if (!seeds || seeds->empty()) {
    std::fprintf(stderr, "dractl simulate: --seed: \"%s\" is not a seed list (42 or 42,43 or 42-51)\n",
                 f.seeds_text.c_str());
    return kExitUsageError;
  }
  if (f.jobs == 0) f.jobs = 1;
  if (f.trace.empty()) f.trace = TraceName(f.pods_csv);

  StatusOr<sim::OpenbTrace> input = sim::ReadOpenbTrace(f.nodes_csv, f.pods_csv);
  if (!input.ok()) {
    std::fprintf(stderr, "%s\n", input.status().message().c_str());
    return kExitInputError;
  }
  std::vector<sim::OpenbNode>& nodes = input->nodes;
  std::vector<sim::OpenbPod>& pods = input->pods;
  std::optional<sim::Published> published;
  if (!f.expected.empty()) {
    StatusOr<sim::Published> p = sim::ReadPublished(f.expected);
    if (!p.ok()) {
      std::fprintf(stderr, "%s\n", p.status().message().c_str());
      return kExitInputError;
    }
    published = std::move(*p);
  }
  StatusOr<sim::OpenbExperiment> experiment = sim::OpenbExperiment::Prepare(std::move(nodes), std::move(pods));
  if (!experiment.ok()) {
    std::fprintf(stderr, "dractl simulate: %s\n", experiment.status().message().c_str());
    return kExitInputError;
  }
  sim::AllocatorCheck check_mode = f.check == "none"         ? sim::AllocatorCheck::kNone
                                   : f.check == "placements" ? sim::AllocatorCheck::kPlacements
                                                             : sim::AllocatorCheck::kAllNodes;

  std::vector<std::vector<RunOutcome>> results =
      RunAll(*experiment, policy_list, *seeds, f.tune, check_mode, f.engine == "dra", f.jobs);

  for (const auto& per_policy : results) {
    for (const RunOutcome& r : per_policy) {
      if (!r.status.ok()) {
        std::fprintf(stderr, "dractl simulate: seed %llu: %s\n", static_cast<unsigned long long>(r.seed),
                     r.status.message().c_str());
        return r.status.code() == StatusCode::kFailedPrecondition ? kExitInternalError : kExitInputError;
      }
    }
  }

  if (!f.csv.empty()) {
    if (int rc = WriteCsv(f.csv, f.trace, policy_list, results); rc >= 0) return rc;
  }
  if (!f.report.empty()) {
    if (int rc = WriteReport(f.report, f.trace, *seeds, args, *experiment, policy_list, results, published); rc >= 0) {
      return rc;
    }
  }

  PrintResults(f.output, f.trace, policy_list, results, published);
  return kExitOk;
}

}  // namespace dra::cli
