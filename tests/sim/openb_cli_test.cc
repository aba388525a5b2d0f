// End-to-end tests of `dractl import openb` and `dractl simulate openb` on a
// tiny hand-written trace:
//
//   nodes  n0: 2 x T4, 16 cores, 64 GiB      n1: 8 x G2, 96 cores, 384 GiB
//   pods   a: 1 x 500 milli, gpu_spec T4     -> only n0 has T4s
//          b: 1 x 600 milli, gpu_spec G2     -> n1, a share of one of its GPUs
//          c: 8 whole GPUs                   -> only n1 has 8 GPUs, and b holds a
//                                               share of one: stays pending
//          d: CPU-only
//          e: 1 whole GPU, gpu_spec V100M32  -> no such node: stays pending
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "cli/run_command.h"
#include "manifest/json_parser.h"
#include "sched/timeline.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;

class OpenbCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "openb_cli_test";
    RunCommand("mkdir -p " + ShellQuote(dir_));
    Write("nodes.csv",
          "sn,cpu_milli,memory_mib,gpu,model\n"
          "n0,16000,65536,2,T4\n"
          "n1,96000,393216,8,G2\n");
    Write("pods.csv",
          "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
          "a,4000,1024,1,500,T4,LS\n"
          "b,4000,1024,1,600,G2,LS\n"
          "c,32000,4096,8,1000,,LS\n"
          "d,2000,512,0,0,,BE\n"
          "e,2000,512,1,1000,V100M32,LS\n");
  }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  std::string Path(const std::string& name) const { return ShellQuote(dir_ + "/" + name); }
  std::string Import(const std::string& output) const {
    return kBin + " import openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") + " -o " + output;
  }

  std::string dir_;
};

TEST_F(OpenbCliTest, ImportValidatesAndSchedules) {
  CommandResult imported = RunCommand(Import("yaml") + " > " + Path("cluster.yaml"));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  CommandResult validated = RunCommand(kBin + " validate --strict -f " + Path("cluster.yaml"));
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  // 1 class + 2 nodes + 2 slices + 4 templates + 5 pods
  EXPECT_NE(validated.output.find("14 objects"), std::string::npos) << validated.output;

  CommandResult scheduled = RunCommand(kBin + " schedule -f " + Path("cluster.yaml"));
  ASSERT_EQ(scheduled.exit_code, 0) << scheduled.output;
  const std::string& t = scheduled.output;
  EXPECT_NE(t.find("paib-gpu/a  n0"), std::string::npos) << t;
  EXPECT_NE(t.find("paib-gpu/b  n1"), std::string::npos) << t;
  EXPECT_NE(t.find("paib-gpu/c  <pending>  0/2 nodes are available: 1 Insufficient cpu, 1 cannot allocate all claims."),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("paib-gpu/e  <pending>  0/2 nodes are available: 2 cannot allocate all claims."), std::string::npos)
      << t;
  EXPECT_EQ(t.find("paib-gpu/d  <pending>"), std::string::npos) << t;
}

TEST_F(OpenbCliTest, ImportJsonIsAList) {
  CommandResult r = RunCommand(Import("json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"kind\": \"List\""), std::string::npos);
  EXPECT_NE(r.output.find("\"allowMultipleAllocations\": true"), std::string::npos);
}

TEST_F(OpenbCliTest, BadCsvNamesFileLineColumn) {
  Write("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,2,1,500\nb,1,2,x,500\n");
  CommandResult r = RunCommand(kBin + " import openb --nodes " + Path("nodes.csv") + " --pods " + Path("bad.csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("bad.csv:3:7: num_gpu: \"x\" is not an integer"), std::string::npos) << r.output;
}

TEST_F(OpenbCliTest, SimulatePrintsTheIssueJsonShape) {
  CommandResult r = RunCommand(kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                               " --policy fgd --seed 1,2 --check all -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The tiny trace is tuned to 130% of its 10 GPUs but stops short of the 130
  // column (its pods are large), so 130 is null, not a mean of nothing.
  for (const char* key : {"\"trace\": \"pods\"", "\"policy\": \"fgd\"", "\"seeds\": [1, 2]",
                          "\"allocation\": {\"100\": {\"mean\": ", "\"130\": null}, \"frag_amount\": {",
                          "\"frag_ratio\": {", "\"runs\": ["}) {
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
  }
  CommandResult bad = RunCommand(kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                                 " --policy tetris");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("unknown policy \"tetris\""), std::string::npos) << bad.output;
}

// dractl simulate cluster on tests/sim/cluster-replay (the workload file's
// header works every number out by hand).
TEST(SimulateClusterCliTest, ReplaysPodsOverTimeOnDraObjects) {
  const std::string data = std::string(DRA_SOURCE_DIR) + "/tests/sim/cluster-replay/";
  const std::string base = kBin + " simulate cluster -f " + ShellQuote(data + "cluster.yaml") + " --workload " +
                           ShellQuote(data + "workload.yaml");
  CommandResult text = RunCommand(base);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  for (const char* want : {"2 nodes, 4 devices, 5 workload pods, 2026-01-01T00:00:00Z .. 2026-01-01T00:00:10Z",
                           "started 4 (2 on arrival), pending at the end 1, finished 1, peak pending 3",
                           "mean 3.5, p50 0, p95 8, max 8", "devices 95.00% allocated (peak 100.00%)",
                           "still pending: default/d: 0/2 nodes are available: 2 cannot allocate all claims."}) {
    EXPECT_NE(text.output.find(want), std::string::npos) << want << "\n" << text.output;
  }
  CommandResult json = RunCommand(base + " -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const char* want : {"{\"time\": \"2026-01-01T00:00:04Z\", \"device_allocation\": 100.0000, \"cpu_allocation\": "
                           "12.5000, \"running\": 2, \"pending\": 3,",
                           "{\"time\": \"2026-01-01T00:00:10Z\", \"device_allocation\": 100.0000, \"cpu_allocation\": "
                           "18.7500, \"running\": 3, \"pending\": 1,",
                           "{\"pod\": \"default/c\", \"arrival\": \"2026-01-01T00:00:02Z\", \"start\": "
                           "\"2026-01-01T00:00:10Z\", \"node\": \"n1\"}",
                           "{\"pod\": \"default/a\", \"arrival\": \"2026-01-01T00:00:00Z\", \"start\": "
                           "\"2026-01-01T00:00:00Z\", \"node\": \"n1\", \"end\": \"2026-01-01T00:00:10Z\"}"}) {
    EXPECT_NE(json.output.find(want), std::string::npos) << want << "\n" << json.output;
  }
  // The issue's spelling is the same command.
  CommandResult same = RunCommand(kBin + " simulate -f " + ShellQuote(data + "cluster.yaml") + " --workload " +
                                  ShellQuote(data + "workload.yaml"));
  EXPECT_EQ(same.output, text.output);
  CommandResult missing = RunCommand(kBin + " simulate cluster -f " + ShellQuote(data + "cluster.yaml"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("--workload"), std::string::npos) << missing.output;
}

// Autoscaling in the replay, on the bundled example: the JSON's events and
// node-hours agree with each other (each node counted from its scale-up to
// its removal or the end, by this test's own sum), each node is ready the
// provisioning time after its scale-up, and bad durations are usage errors.
// (The timelines worked out by hand are in src/plan/autoscale_test.cc.)
TEST(SimulateClusterCliTest, AutoscalesNodeGroupsOnTheExample) {
  const std::string examples = std::string(DRA_SOURCE_DIR) + "/examples/";
  const std::string base = kBin + " simulate cluster -f " + ShellQuote(examples + "cluster") + " --workload " +
                           ShellQuote(examples + "autoscale/training-day.yaml") + " --node-groups " +
                           ShellQuote(examples + "node-groups");
  CommandResult json = RunCommand(base + " --provision-time 2m -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  auto docs = manifest::ParseJson(json.output, "json");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString() << json.output;
  const manifest::Node& root = (*docs)[0].root;
  const manifest::Node* summary = root.Find("summary");
  const manifest::Node* autoscaling = root.Find("autoscaling");
  ASSERT_TRUE(summary != nullptr && autoscaling != nullptr) << json.output;
  const std::optional<int64_t> end = sched::ParseUtcSeconds(summary->Find("end")->text);
  ASSERT_TRUE(end.has_value());
  std::map<std::string, int64_t> requested, ready, removed;
  for (const manifest::Node& e : autoscaling->Find("events")->items) {
    const std::string& node = e.Find("node")->text;
    const int64_t t = *sched::ParseUtcSeconds(e.Find("time")->text);
    const std::string& kind = e.Find("event")->text;
    (kind == "scale-up" ? requested : kind == "ready" ? ready : removed)[node] = t;
  }
  ASSERT_FALSE(requested.empty());
  double seconds = 0;
  for (const auto& [node, t] : requested) {
    EXPECT_EQ(ready[node], t + 120) << node;
    seconds += static_cast<double>((removed.contains(node) ? removed[node] : *end) - t);
  }
  EXPECT_NEAR(std::stod(autoscaling->Find("nodeHours")->text), seconds / 3600, 1e-3);
  double group_hours = 0;
  for (const manifest::Node& g : autoscaling->Find("groups")->items)
    group_hours += std::stod(g.Find("nodeHours")->text);
  EXPECT_NEAR(group_hours, seconds / 3600, 1e-3);
  EXPECT_EQ(summary->Find("pending_at_end")->text, "0") << json.output;

  CommandResult text = RunCommand(base + " --expander least-waste");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  for (const char* want : {"autoscaling (--expander least-waste; pending 10s before a scale-up, provisioned in 3m, "
                           "removed after 10m unneeded)",
                           "    dgx-h100: ", "    hgx-h200: "}) {
    EXPECT_NE(text.output.find(want), std::string::npos) << want << "\n" << text.output;
  }
  for (const char* bad : {" --provision-time 3x", " --scale-up-delay 1m30", " --scale-down-unneeded ''"}) {
    CommandResult r = RunCommand(base + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("want a duration such as 90, 10s, 3m or 1h30m"), std::string::npos) << r.output;
  }
  CommandResult alone = RunCommand(kBin + " simulate cluster -f " + ShellQuote(examples + "cluster") + " --workload " +
                                   ShellQuote(examples + "autoscale") + " --expander price");
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--expander is for autoscaling: give --node-groups"), std::string::npos) << alone.output;
  CommandResult clash = RunCommand(base + " --node-group-from dgx-h100-01=dgx-h100:2:1");
  EXPECT_EQ(clash.exit_code, 2) << clash.output;
  EXPECT_NE(clash.output.find("a node group dgx-h100 is already given"), std::string::npos) << clash.output;
}

// Issue #30: a node failure on the example day, worked out by hand. eval-0
// (1 GPU, its Job's, 10:00-10:40) runs on hgx-h200-07; the fault taints the
// node's devices NoExecute at 10:30 for 2 h. The pod has no toleration: it is
// evicted at 10:30 (the taint's timeAdded), holds its GPU for the 30 s grace,
// and its Job's new pod starts at 10:30:30 on dgx-h100-01 (free, and in
// class h100-or-newer), running its 40 min again: to 11:10:30. Lost: 30 s.
// The cluster's own two pods there (the vLLM replica on gpu-0, the notebook
// on gpu-1, as `dractl schedule -f examples/cluster` places them) are
// evicted too, and deleted: 3 evictions, 1 running again.
// Tainted: the node's 8 GPUs for 2 h, plus its gpu-3 (XID 95, NoSchedule, in
// the slice all day, 09:00-18:00) outside those 2 h: 16 + 7 = 23 device-hours.
TEST(SimulateClusterCliTest, AFaultEvictsAPodThatRunsAgainElsewhere) {
  const std::string examples = std::string(DRA_SOURCE_DIR) + "/examples/";
  const std::string base = kBin + " simulate cluster -f " + ShellQuote(examples + "cluster") + " --workload " +
                           ShellQuote(examples + "autoscale");
  CommandResult json = RunCommand(base + " --faults " + ShellQuote(examples + "faults") + " -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const char* want :
       {"\"evictions\": 3, \"restarts\": 1, \"seconds_lost\": 30, \"device_hours_tainted\": 23.0000",
        "{\"pod\": \"ml/eval-0\", \"arrival\": \"2026-12-02T10:00:00Z\", \"start\": \"2026-12-02T10:00:00Z\", "
        "\"node\": \"dgx-h100-01\", \"end\": \"2026-12-02T11:10:30Z\", \"evictions\": 1, \"seconds_lost\": 30}",
        "{\"time\": \"2026-12-02T10:30:00Z\", \"event\": \"set\", \"target\": \"node hgx-h200-07\", \"taint\": "
        "\"gpu.nvidia.com/xid=79:NoExecute\"",
        "{\"time\": \"2026-12-02T12:30:00Z\", \"event\": \"cleared\""}) {
    EXPECT_NE(json.output.find(want), std::string::npos) << want << "\n" << json.output;
  }
  const std::string dir = ::testing::TempDir() + "simulate_faults_test";
  RunCommand("mkdir -p " + ShellQuote(dir));
  // The report: the day spans 09:00-18:00 on a 700-wide plot from x = 50,
  // so the fault's marks are at 50 + 700 * 1.5 / 9 = 166.7 (set, 10:30) and
  // 50 + 700 * 3.5 / 9 = 322.2 (cleared, 12:30), in both plots.
  CommandResult report = RunCommand(base + " --faults " + ShellQuote(examples + "faults") + " --report " +
                                    ShellQuote(dir + "/report.html"));
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::ifstream in(dir + "/report.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* want :
       {"<svg data-plot=\"devices\"", "<svg data-plot=\"pods\"", "<polyline data-series=\"tainted\"",
        "<line class=\"fault-set\" x1=\"166.7\" x2=\"166.7\"",
        "<line class=\"fault-cleared\" x1=\"322.2\" x2=\"322.2\"",
        "<tr data-pod=\"ml/eval-0\"><td>ml/eval-0</td><td>1</td><td>30</td><td>2026-12-02T10:00:00Z</td>"
        "<td>2026-12-02T11:10:30Z</td><td>dgx-h100-01</td></tr>"}) {
    EXPECT_NE(html.find(want), std::string::npos) << want;
  }
  EXPECT_EQ(html.find("<script"), std::string::npos);
  std::ofstream(dir + "/bad.yaml") << "apiVersion: dractl.io/v1alpha1\nkind: Faults\nfaults:\n"
                                      "- at: \"2026-12-02T10:30:00Z\"\n  node: hgx-h200-07\n"
                                      "  taint: {key: k, effect: Sometimes}\n";
  CommandResult bad = RunCommand(base + " --faults " + ShellQuote(dir + "/bad.yaml"));
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("bad.yaml:6:"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("faults[0].taint.effect: Unsupported value: \"Sometimes\""), std::string::npos)
      << bad.output;
  CommandResult rate = RunCommand(base + " --fault-rate often");
  EXPECT_EQ(rate.exit_code, 2) << rate.output;
  EXPECT_NE(rate.output.find("--fault-rate often: want a rate"), std::string::npos) << rate.output;
}

// simulate replay on a two-pod trace with times: x takes all 8 G2 GPUs on
// 0..100; y (8 GPUs, arrives at 10, runs 20) waits for them, starts at 100
// (wait 90), ends at 120.
TEST_F(OpenbCliTest, ReplayQueuesAPodUntilADepartureFreesRoom) {
  Write("timed.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time\n"
        "x,8000,1024,8,1000,,LS,Running,0,100\n"
        "y,8000,1024,8,1000,,LS,Running,10,30\n");
  const std::string base =
      kBin + " simulate replay --nodes " + Path("nodes.csv") + " --pods " + Path("timed.csv") + " --interval 50";
  CommandResult text = RunCommand(base + " --csv " + Path("series.csv"));
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("2 pods over 0..120 s"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("started 2 (1 on arrival), pending at the end 0, finished 2, peak pending 1"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("p50 0, p95 90, max 90"), std::string::npos) << text.output;
  // 10 GPUs in all; 8 in use on 0..120: 80% throughout. CPU 8 of 112 cores:
  // 7.1429%. Fragmentation against the one typical shape (8 whole GPUs): n0's
  // 2 T4s can never hold it -> 2000 milli = 20% of 10000, at every sample; n1
  // adds nothing (all in use, or all free and fitting).
  EXPECT_NE(text.output.find("GPU 80.00% of 10000 milli (peak 80.00%)"), std::string::npos) << text.output;
  std::ifstream in(dir_ + "/series.csv");
  std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(csv,
            "time,gpu_allocation,cpu_allocation,running,pending,frag_amount\n"
            "0,80.0000,7.1429,1,0,20.0000\n"
            "50,80.0000,7.1429,1,1,20.0000\n"
            "100,80.0000,7.1429,1,0,20.0000\n"
            "120,0.0000,0.0000,0,0,20.0000\n");
  CommandResult json = RunCommand(base + " -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const char* key : {"\"policy\": \"fgd\"", "\"speedup\": 1,", "\"pending_at_end\": 0",
                          "\"wait\": {\"mean\": 45.000", "\"series\": [{\"time\": 0, "}) {
    EXPECT_NE(json.output.find(key), std::string::npos) << key << "\n" << json.output;
  }
  EXPECT_EQ(RunCommand(base + " --speedup 0.5").exit_code, 2);
  EXPECT_EQ(RunCommand(base + " --interval 0").exit_code, 2);
  CommandResult help = RunCommand(kBin + " simulate replay --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--speedup"), std::string::npos) << help.output;
}

// The same trace through DRA objects: `dractl import openb` for the cluster,
// the CSV as workload. The allocator's replay agrees with the native one:
// y waits 90 s for x's 8 GPUs, 8 of the 10 devices are in use throughout.
TEST_F(OpenbCliTest, SimulateClusterWithCsvWorkloadAgreesWithReplay) {
  Write("timed.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time\n"
        "x,8000,1024,8,1000,,LS,Running,0,100\n"
        "y,8000,1024,8,1000,,LS,Running,10,30\n");
  Write("none.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n");
  CommandResult imported = RunCommand(kBin + " import openb --nodes " + Path("nodes.csv") + " --pods " +
                                      Path("none.csv") + " > " + Path("cluster.yaml"));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  CommandResult r = RunCommand(kBin + " simulate cluster -f " + Path("cluster.yaml") + " --workload " +
                               Path("timed.csv") + " -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"\"started\": 2, \"started_on_arrival\": 1, \"pending_at_end\": 0",
                           "\"wait\": {\"mean\": 45.000, \"p50\": 0, \"p95\": 90, \"max\": 90}",
                           "\"devices\": 10, \"device_allocation_mean\": 80.0000",
                           "{\"pod\": \"paib-gpu/y\", \"arrival\": \"1970-01-01T00:00:10Z\", \"start\": "
                           "\"1970-01-01T00:01:40Z\", \"node\": \"n1\", \"end\": \"1970-01-01T00:02:00Z\"}"}) {
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  }
}

// dra-pack has no published runs; with --expected it stands beside FGD's and
// passes when it reaches them. The published FGD value here is the same in
// every column: `fgd` percent.
TEST_F(OpenbCliTest, DraPackIsJudgedAgainstPublishedFgd) {
  auto write_expected = [&](const std::string& sub, const std::string& fgd) {
    RunCommand("mkdir -p " + Path(sub));
    std::string header = "workload,sc_policy,tune,seed";
    std::string row = "openb_pod_list_pods,06-FGD,1.3,42";
    for (int c = 0; c <= 130; ++c) {
      header += "," + std::to_string(c);
      row += "," + fgd;
    }
    for (const char* f :
         {"analysis_allo_discrete.csv", "analysis_frag_discrete.csv", "analysis_frag_ratio_discrete.csv"}) {
      Write(sub + "/" + f, header + "\n" + row + "\n");
    }
  };
  write_expected("low", "1.5");
  write_expected("high", "99.5");
  const std::string base = kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                           " --policy dra-pack --seed 1";
  CommandResult low = RunCommand(base + " --expected " + Path("low"));
  ASSERT_EQ(low.exit_code, 0) << low.output;
  EXPECT_NE(low.output.find("published fgd 1.50, diff +"), std::string::npos) << low.output;
  EXPECT_NE(low.output.find("target at least fgd: ok"), std::string::npos) << low.output;
  EXPECT_EQ(low.output.find("MISS"), std::string::npos) << low.output;
  // The tiny trace never reaches 99.5% of its GPUs (pods c and e stay pending).
  CommandResult high = RunCommand(base + " --expected " + Path("high"));
  ASSERT_EQ(high.exit_code, 0) << high.output;
  EXPECT_NE(high.output.find("published fgd 99.50, diff -"), std::string::npos) << high.output;
  EXPECT_NE(high.output.find("target at least fgd: MISS"), std::string::npos) << high.output;
  CommandResult json = RunCommand(base + " --expected " + Path("low") + " -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const char* key : {"\"policy\": \"dra-pack\"", "\"published\": {\"allocation\": {\"100\": {\"mean\": 1.5000",
                          "\"published_policy\": \"fgd\"", "\"target\": \"at least\""}) {
    EXPECT_NE(json.output.find(key), std::string::npos) << key << "\n" << json.output;
  }
  EXPECT_EQ(json.output.find("\"tolerance\""), std::string::npos) << json.output;
  // FGD itself is judged within a tolerance: ±0.5 off the default trace (this one is "pods").
  CommandResult fgd = RunCommand(kBin + " simulate openb --nodes " + Path("nodes.csv") + " --pods " + Path("pods.csv") +
                                 " --policy fgd --seed 1 --expected " + Path("low") + " -o json");
  ASSERT_EQ(fgd.exit_code, 0) << fgd.output;
  EXPECT_NE(fgd.output.find("\"tolerance\": 0.5"), std::string::npos) << fgd.output;
}

}  // namespace
}  // namespace dra::testing
