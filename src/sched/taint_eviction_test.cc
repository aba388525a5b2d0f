// Device failures in the replay: faults injected as taint rules, pods evicted
// as the 1.37 device-taint eviction controller evicts them, on timelines worked
// out by hand. One node n1 with two GPUs; times are seconds after
// 2026-12-01T08:00:00Z; an evicted pod keeps its devices for a 30 s grace.
#include "sched/taint_eviction.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "sched/faults.h"
#include "sched/policy.h"
#include "sched/timeline.h"
#include "sched/timeline_testing.h"

namespace dra::sched {
namespace {

constexpr int64_t kStart = 1796112000;  // 2026-12-01T08:00:00Z

std::string Cluster(const std::string& tolerations) {
  return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n"
         "  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n---\n"
         "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"8\", memory: 32Gi, "
         "pods: \"110\"}\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n1-gpus}\nspec:\n"
         "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
         "  devices:\n  - name: gpu-0\n  - name: gpu-1\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: default}\n"
         "spec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n"
         "          deviceClassName: gpu\n" +
         tolerations + "---\n";
}

// A claim toleration of the fault's taint for 300 s (effect NoExecute).
constexpr char kTolerate300[] =
    "          tolerations: [{key: gpu.example.com/xid, operator: Exists, effect: NoExecute, "
    "tolerationSeconds: 300}]\n";

// A pod of one GPU arriving at `arrival` and running `run` seconds; with
// `job`, controlled by a Job (its controller makes a new one when evicted).
std::string WorkloadPod(const std::string& name, int64_t arrival, int64_t run, bool job) {
  std::string owner = job ? "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: job-uid, "
                            "controller: true}]\n"
                          : "";
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n" + owner +
         "  creationTimestamp: \"" + FormatUtcSeconds(kStart + arrival) + "\"\n  deletionTimestamp: \"" +
         FormatUtcSeconds(kStart + arrival + run) +
         "\"\nspec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one}\n  containers:\n"
         "  - name: main\n    image: x\n    resources:\n      claims: [{name: gpu}]\n---\n";
}

// A fault on all of n1's devices from `at` for `seconds`.
Fault NodeFault(int64_t at, int64_t seconds) {
  return Fault{.at = kStart + at,
               .until = kStart + at + seconds,
               .node = "n1",
               .taint = {.key = "gpu.example.com/xid",
                         .value = "79",
                         .effect = api::DeviceTaintEffect::kNoExecute,
                         .time_added = FormatUtcSeconds(kStart + at)}};
}

TimelineResult Replay(const std::string& cluster, const std::string& workload, std::vector<Fault> faults,
                      std::vector<FaultEvent>* events = nullptr) {
  testing::Replayable in = testing::LoadReplayable(cluster + workload);
  auto policy = NewPolicy("kube");
  EXPECT_TRUE(policy.ok());
  FaultInjector injector(std::move(faults));
  TaintEvictionController controller(30);
  const std::vector<TimelineActor*> actors{&injector, &controller};
  StatusOr<TimelineResult> r =
      ReplayWorkload(std::move(in.cluster), std::move(in.workload), {.policy = policy->get()}, actors);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (events) *events = injector.events();
  return r.ok() ? *r : TimelineResult{};
}

// The node fails at 600 for an hour. The Job's pod (0..3600) is evicted at
// 600 (no toleration: at the taint's timeAdded), holds its GPU to 630, its
// replacement is pending (every device tainted) until the repair at 4200,
// when the node takes it again: it runs its whole hour, to 7800. Lost: 4200 -
// 600 = 3600 s; tainted: 2 devices for 3600 s = 2 device-hours; pending only
// for the taint: 1 pod, from 630 to 4200.
TEST(TaintEvictionTest, AJobPodIsEvictedAndRunsAgainWhenTheNodeIsRepaired) {
  std::vector<FaultEvent> events;
  TimelineResult r = Replay(Cluster(""), WorkloadPod("a", 0, 3600, true), {NodeFault(600, 3600)}, &events);
  ASSERT_EQ(r.pods.size(), 1u);
  const TimelinePod& a = r.pods[0];
  EXPECT_EQ(a.evictions, 1);
  EXPECT_EQ(a.seconds_lost, 3600);
  ASSERT_TRUE(a.start && a.end);
  EXPECT_EQ(*a.start - kStart, 0);  // the first start
  EXPECT_EQ(*a.end - kStart, 7800);
  EXPECT_EQ(a.node, "n1");
  EXPECT_FALSE(a.gone);
  EXPECT_EQ(r.summary.evictions, 1);
  EXPECT_EQ(r.summary.restarts, 1);
  EXPECT_EQ(r.summary.seconds_lost, 3600);
  EXPECT_EQ(r.summary.finished, 1);
  EXPECT_NEAR(r.summary.device_hours_tainted, 2.0, 1e-9);
  // From 630 to 4200 the new pod waits for the taint alone.
  EXPECT_EQ(r.summary.peak_pending_for_taints, 1);
  for (const TimelineSample& x : r.samples) {
    EXPECT_EQ(x.pending_for_taints, x.time - kStart >= 630 && x.time - kStart < 4200 ? 1 : 0) << x.time - kStart;
  }
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].time - kStart, 600);
  EXPECT_TRUE(events[0].set);
  EXPECT_EQ(events[0].target, "node n1");
  EXPECT_EQ(events[0].taint, "gpu.example.com/xid=79:NoExecute");
  EXPECT_EQ(events[1].time - kStart, 4200);
  EXPECT_FALSE(events[1].set);
}

// The claim tolerates the taint for 300 s (effect NoExecute): a pod with no
// controller is evicted at 600 + 300 = 900, stops at 930 and is gone (not
// finished); the replay ends when the fault clears at 2400. Lost: 2400 - 900.
TEST(TaintEvictionTest, TolerationSecondsDelayTheEviction) {
  TimelineResult r = Replay(Cluster(kTolerate300), WorkloadPod("b", 0, 3600, false), {NodeFault(600, 1800)});
  ASSERT_EQ(r.pods.size(), 1u);
  const TimelinePod& b = r.pods[0];
  EXPECT_EQ(b.evictions, 1);
  EXPECT_TRUE(b.gone);
  ASSERT_TRUE(b.end);
  EXPECT_EQ(*b.end - kStart, 930);
  EXPECT_EQ(r.summary.finished, 0);
  EXPECT_EQ(r.summary.restarts, 0);
  EXPECT_EQ(r.summary.end_time - kStart, 2400);
  EXPECT_EQ(r.summary.seconds_lost, 2400 - 900);
}

// The same toleration, but the fault clears at 720, before 900: no eviction;
// the pod runs its hour. Tainted: 2 devices for 120 s.
TEST(TaintEvictionTest, ATaintClearedBeforeTheTolerationRunsOutEvictsNothing) {
  TimelineResult r = Replay(Cluster(kTolerate300), WorkloadPod("c", 0, 3600, true), {NodeFault(600, 120)});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].evictions, 0);
  ASSERT_TRUE(r.pods[0].end);
  EXPECT_EQ(*r.pods[0].end - kStart, 3600);
  EXPECT_EQ(r.summary.evictions, 0);
  EXPECT_NEAR(r.summary.device_hours_tainted, 2 * 120.0 / 3600, 1e-9);
}

// Thrash, as upstream does it: the Job's claim tolerates the taint for 300 s,
// so the allocator still takes the tainted devices (it ignores the seconds)
// while the controller evicts at 600 + 300 = 900. From 900 the pod is evicted,
// stops 30 s later, is placed again on the same node and is evicted at once,
// every 30 s: evictions at 900, 930, ..., 2370 (50), each running again 30 s
// later (1500 s lost). The fault clears at 2400, when the last new pod is
// placed: it runs its hour, to 6000.
TEST(TaintEvictionTest, AnExpiredTolerationEvictsEveryGracePeriodUntilTheTaintGoes) {
  TimelineResult r = Replay(Cluster(kTolerate300), WorkloadPod("t", 0, 3600, true), {NodeFault(600, 1800)});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].evictions, 50);
  EXPECT_EQ(r.summary.restarts, 50);
  EXPECT_EQ(r.summary.seconds_lost, 1500);
  ASSERT_TRUE(r.pods[0].end);
  EXPECT_EQ(*r.pods[0].end - kStart, 6000);
}

// A toleration with no tolerationSeconds keeps the pod forever; one whose
// effect is empty lets the allocator use the device but does not stop the
// eviction (the controller counts only tolerations of effect NoExecute).
TEST(TaintEvictionTest, OnlyNoExecuteTolerationsCount) {
  TimelineResult forever =
      Replay(Cluster("          tolerations: [{key: gpu.example.com/xid, operator: Exists, effect: NoExecute}]\n"),
             WorkloadPod("d", 0, 3600, true), {NodeFault(600, 600)});
  EXPECT_EQ(forever.summary.evictions, 0);
  TimelineResult empty = Replay(Cluster("          tolerations: [{operator: Exists}]\n"),
                                WorkloadPod("e", 0, 3600, false), {NodeFault(600, 600)});
  EXPECT_EQ(empty.summary.evictions, 1);
  ASSERT_TRUE(empty.pods[0].end);
  EXPECT_EQ(*empty.pods[0].end - kStart, 630);
}

TEST(FaultsTest, FileProblemsHaveLineAndField) {
  std::vector<Fault> faults;
  std::vector<manifest::LoadMessage> messages;
  ParseFaults(
      "apiVersion: dractl.io/v1alpha1\nkind: Faults\nfaults:\n"
      "- at: \"2026-12-01T10:00:00Z\"\n  node: n1\n  taint: {key: k, effect: NoExecute}\n  for: 2h\n"
      "- at: tomorrow\n  node: n1\n  device: {driver: d}\n  taint: {key: k, effect: Sometimes}\n  for: 1m30\n",
      "faults.yaml", &faults, &messages);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].at, kStart + 7200);
  EXPECT_EQ(*faults[0].until, kStart + 7200 + 7200);
  std::vector<std::string> got;
  for (const manifest::LoadMessage& m : messages) got.push_back(m.ToString());
  ASSERT_EQ(got.size(), 4u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find("faults.yaml:8:"), std::string::npos) << got[0];
  EXPECT_NE(got[0].find("faults[1].at: Invalid value: \"tomorrow\""), std::string::npos) << got[0];
  EXPECT_NE(got[1].find("faults[1].device: Forbidden: give node or device, not both"), std::string::npos) << got[1];
  EXPECT_NE(got[2].find("faults[1].taint.effect: Unsupported value: \"Sometimes\""), std::string::npos) << got[2];
  EXPECT_NE(got[3].find("faults[1].for: Invalid value: \"1m30\""), std::string::npos) << got[3];
}

// Random failures: one stream per physical device. n1's two whole GPUs are
// two; a MIG-capable GPU (a counter set with three partitions) is one, whose
// faults taint all three. At 1 failure an hour and 30 min repairs over ten
// hours, each device's faults are ordered and never overlap; the seed decides.
TEST(FaultsTest, RandomFaultsPerPhysicalDevice) {
  manifest::LoadResult loaded;
  manifest::Loader(manifest::LoadOptions{})
      .LoadText(
          Cluster("") +
              "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n2-counters}\nspec:\n"
              "  driver: gpu.example.com\n  nodeName: n2\n  pool: {name: n2, generation: 1, resourceSliceCount: 2}\n"
              "  sharedCounters:\n  - name: gpu-0\n    counters: {slices: {value: \"3\"}}\n---\n"
              "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n2-gpus}\nspec:\n"
              "  driver: gpu.example.com\n  nodeName: n2\n  pool: {name: n2, generation: 1, resourceSliceCount: 2}\n"
              "  devices:\n"
              "  - {name: mig-0, consumesCounters: [{counterSet: gpu-0, counters: {slices: {value: \"1\"}}}]}\n"
              "  - {name: mig-1, consumesCounters: [{counterSet: gpu-0, counters: {slices: {value: \"1\"}}}]}\n"
              "  - {name: mig-2, consumesCounters: [{counterSet: gpu-0, counters: {slices: {value: \"1\"}}}]}\n",
          "cluster.yaml", &loaded);
  ASSERT_EQ(loaded.error_count(), 0u) << loaded.messages[0].ToString();
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  const Snapshot s = NewSnapshot(objects, api::FeatureGates::Defaults());
  const FaultRate rate{.per_device_hour = 1, .repair_seconds = 1800, .seed = 7};
  const std::vector<Fault> faults = RandomFaults(s, rate, kStart, kStart + 36000);
  std::map<std::string, std::vector<const Fault*>> by_unit;
  for (const Fault& f : faults) {
    ASSERT_FALSE(f.devices.empty());
    by_unit[*f.devices[0].pool + "/" + *f.devices[0].device].push_back(&f);
    EXPECT_GE(f.at, kStart);
    EXPECT_LT(f.at, kStart + 36000);
    EXPECT_EQ(*f.until, f.at + 1800);
    EXPECT_EQ(f.taint.key, "dractl.io/fault");
    EXPECT_EQ(f.devices.size(), *f.devices[0].pool == "n2" ? 3u : 1u);
  }
  EXPECT_EQ(by_unit.size(), 3u);  // n1/gpu-0, n1/gpu-1, n2/mig-0 (the counter set's first device)
  // About 10 h / (1 h between failures + 0.5 h repair) = 6.7 a device, 20 in
  // all; a wrong unit (per second, per day) would be far off.
  EXPECT_GE(faults.size(), 8u);
  EXPECT_LE(faults.size(), 36u);
  for (const auto& [unit, list] : by_unit) {
    for (size_t i = 1; i < list.size(); ++i) EXPECT_GE(list[i]->at, *list[i - 1]->until) << unit;
  }
  const std::vector<Fault> again = RandomFaults(s, rate, kStart, kStart + 36000);
  ASSERT_EQ(again.size(), faults.size());
  for (size_t i = 0; i < faults.size(); ++i) EXPECT_EQ(again[i].at, faults[i].at);
  // Exponential repairs: each at least a second, their mean near the 1800 s
  // given (about 20 draws: within a factor of two).
  FaultRate exp = rate;
  exp.exponential_repair = true;
  const std::vector<Fault> exp_faults = RandomFaults(s, exp, kStart, kStart + 36000);
  ASSERT_FALSE(exp_faults.empty());
  double total = 0;
  for (const Fault& f : exp_faults) {
    EXPECT_GE(*f.until - f.at, 1);
    total += static_cast<double>(*f.until - f.at);
  }
  const double mean = total / static_cast<double>(exp_faults.size());
  EXPECT_GT(mean, 900);
  EXPECT_LT(mean, 3600);
  FaultRate other = rate;
  other.seed = 8;
  const std::vector<Fault> different = RandomFaults(s, other, kStart, kStart + 36000);
  EXPECT_TRUE(different.size() != faults.size() || different[0].at != faults[0].at);
}

TEST(FaultsTest, RatesAndDurations) {
  EXPECT_NEAR(*ParseFaultRate("1%/day"), 0.01 / 24, 1e-15);
  EXPECT_NEAR(*ParseFaultRate("2/day"), 2.0 / 24, 1e-15);
  EXPECT_NEAR(*ParseFaultRate("0.5%/h"), 0.005, 1e-15);
  EXPECT_NEAR(*ParseFaultRate("0.0004"), 0.0004, 1e-15);
  for (const char* bad : {"", "-1", "x/day", "1%%", "%/day"}) EXPECT_FALSE(ParseFaultRate(bad)) << bad;
  EXPECT_EQ(ParseDurationSeconds("1h30m"), 5400);
  EXPECT_EQ(ParseDurationSeconds("90"), 90);
  EXPECT_FALSE(ParseDurationSeconds("1m30"));
  EXPECT_FALSE(ParseDurationSeconds(""));
}

}  // namespace
}  // namespace dra::sched
