// The autoscaler in the replay, on timelines worked out by hand. Times are
// seconds after 2026-12-01T08:00:00Z; the group g4 has nodes of 4 GPUs,
// 16 cpu and 64Gi at 2 an hour.
#include "plan/autoscale.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "plan/plan_testing.h"
#include "sched/policy.h"
#include "sched/timeline.h"
#include "sched/timeline_testing.h"

namespace dra::plan {
namespace {

using plan_testing::Group;
using plan_testing::kClass;
using plan_testing::Template;

constexpr int64_t kStart = 1796112000;  // 2026-12-01T08:00:00Z

// A workload pod arriving at `arrival` and running `run` seconds.
std::string WorkloadPod(const std::string& name, const std::string& tmpl, int cpu, const std::string& memory,
                        int64_t arrival, int64_t run) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n  creationTimestamp: \"" +
         sched::FormatUtcSeconds(kStart + arrival) + "\"\n  deletionTimestamp: \"" +
         sched::FormatUtcSeconds(kStart + arrival + run) +
         "\"\nspec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: " + tmpl +
         "}\n  containers:\n  - name: main\n    image: x\n    resources:\n      requests: {cpu: \"" +
         std::to_string(cpu) + "\", memory: " + memory + "}\n      claims: [{name: gpu}]\n---\n";
}

struct Replayed {
  sched::TimelineResult timeline;
  AutoscaleReport report;
};

class AutoscaleTest : public ::testing::Test {
 protected:
  Replayed Replay(const std::string& cluster, const std::string& workload, const std::string& groups,
                  Expander expander) {
    sched::testing::Replayable in = sched::testing::LoadReplayable(cluster + workload);
    sched::Snapshot snapshot = std::move(in.cluster);
    std::vector<api::Pod> pods = std::move(in.workload);
    std::vector<manifest::LoadMessage> messages;
    groups_.clear();
    ParseNodeGroups(groups, "groups.yaml", gates_, &groups_, &messages);
    EXPECT_TRUE(messages.empty()) << messages[0].ToString();
    auto policy = sched::NewPolicy("kube");
    EXPECT_TRUE(policy.ok());
    policy_ = std::move(*policy);
    AutoscaleOptions options{.plan = {.policy = policy_.get(), .expander = expander}};
    Autoscaler autoscaler(groups_, options);
    EXPECT_TRUE(autoscaler.AddMinimum(&snapshot).ok());
    const std::vector<sched::TimelineActor*> actors{&autoscaler};
    StatusOr<sched::TimelineResult> r =
        sched::ReplayWorkload(std::move(snapshot), std::move(pods), {.policy = policy_.get()}, actors);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    return {*r, autoscaler.Report(r->summary.start_time, r->summary.end_time)};
  }

  // "time event node" per event, times in seconds after kStart.
  static std::vector<std::string> Events(const AutoscaleReport& r) {
    std::vector<std::string> out;
    for (const AutoscaleEvent& e : r.events) {
      out.push_back(std::to_string(e.time - kStart) + " " + std::string(AutoscaleEventName(e.kind)) + " " + e.node);
    }
    return out;
  }

  api::FeatureGates gates_ = api::FeatureGates::Defaults();
  std::vector<NodeGroup> groups_;
  std::unique_ptr<sched::ScorePolicy> policy_;
};

// p1 (4 GPUs, 1 h) and p2 (1 GPU, 30 min) arrive at 0 on a cluster with no
// nodes (scale-up delay 10 s, provisioning 180 s, unneeded 600 s):
//   10    both have waited the delay: 5 GPUs need two g4 nodes (one cannot
//         hold both), requested g4-0 and g4-1;
//   190   ready; p1 fills one, p2 takes a GPU of the other (1/4 < 0.5, but
//         its pod fits nowhere else: needed);
//   1990  p2 ends (190 + 1800): its node is empty, unneeded;
//   2590  removed (600 s later);
//   3790  p1 ends (190 + 3600); 4390 its node is removed.
// Node-hours: (4390 - 10) + (2590 - 10) = 6960 s = 1.9333 h; cost 3.8667.
TEST_F(AutoscaleTest, ScalesUpForPendingPodsAndDownWhenTheyEnd) {
  const std::string cluster = std::string(kClass) + Template("one", 1) + Template("four", 4);
  const std::string workload =
      WorkloadPod("p1", "four", 1, "4Gi", 0, 3600) + WorkloadPod("p2", "one", 1, "4Gi", 0, 1800);
  for (Expander e : {Expander::kOptimal, Expander::kLeastWaste}) {
    Replayed r = Replay(cluster, workload, Group("g4", 4, 16, "64Gi", 2, 3), e);
    ASSERT_EQ(r.report.events.size(), 6u) << ::testing::PrintToString(Events(r.report));
    std::vector<std::string> events = Events(r.report);
    EXPECT_EQ(events[0], "10 scale-up g4-0");
    EXPECT_EQ(events[1], "10 scale-up g4-1");
    EXPECT_EQ(events[2], "190 ready g4-0");
    EXPECT_EQ(events[3], "190 ready g4-1");
    // p2's node goes at 2590, p1's at 4390, whichever node each got.
    const std::string p1_node = r.timeline.pods[0].node, p2_node = r.timeline.pods[1].node;
    EXPECT_NE(p1_node, p2_node);
    EXPECT_EQ(events[4], "2590 scale-down " + p2_node);
    EXPECT_EQ(events[5], "4390 scale-down " + p1_node);
    ASSERT_EQ(r.report.groups.size(), 1u);
    EXPECT_EQ(r.report.groups[0].added, 2);
    EXPECT_EQ(r.report.groups[0].removed, 2);
    EXPECT_EQ(r.report.groups[0].peak, 2);
    EXPECT_NEAR(r.report.node_hours, 6960.0 / 3600, 1e-9);
    EXPECT_NEAR(r.report.cost, 2 * 6960.0 / 3600, 1e-9);
    EXPECT_EQ(r.timeline.summary.started, 2);
    EXPECT_EQ(r.timeline.summary.wait_max, 190);
    EXPECT_EQ(r.timeline.summary.end_time - kStart, 4390);
    EXPECT_EQ(r.timeline.summary.evictions, 0);
  }
}

// A group with minSize 1 (g4-0 is there from the start):
//   0     p1 (2 GPUs, 8 cpu, 32Gi, 3 h) starts on g4-0;
//   60    p2 (3 GPUs, 1 cpu, 4Gi, 1 h) does not fit the 2 free GPUs;
//   70    scale-up g4-1; 250 ready, p2 starts there (ends 3850);
//   3000  p3 (1 GPU, 1 cpu, 4Gi, 3 h) fits both nodes' free GPUs;
//         LeastAllocated sends it to g4-1 (cpu 1/16 against 8/16);
//   3850  p2 ends: g4-1 holds p3 alone (1/4 of its GPUs): its pod fits
//         g4-0's 2 free GPUs, so it is unneeded; g4-0 is at 0.5 (2/4
//         GPUs, 8/16 cpu): needed;
//   4450  g4-1 is removed: p3 is evicted and starts again on g4-0 with the
//         time it had left (3000 + 10800 = 13800, the same end);
//   10800 p1 ends; 13800 p3 ends; g4-0 stays (minSize 1); the wake-up at
//         14400 (13800 + 600) is the last instant.
// Node-hours: g4-0 0..14400 (4 h) + g4-1 70..4450 (4380 s): 5.2167 h.
TEST_F(AutoscaleTest, DrainsALowNodeOntoAnotherAndKeepsMinSize) {
  const std::string cluster = std::string(kClass) + Template("one", 1) + Template("two", 2) + Template("three", 3);
  const std::string workload = WorkloadPod("p1", "two", 8, "32Gi", 0, 10800) +
                               WorkloadPod("p2", "three", 1, "4Gi", 60, 3600) +
                               WorkloadPod("p3", "one", 1, "4Gi", 3000, 10800);
  std::string group = Group("g4", 4, 16, "64Gi", 2, 3);
  group.replace(group.find("  maxSize"), 0, "  minSize: 1\n");
  Replayed r = Replay(cluster, workload, group, Expander::kOptimal);
  EXPECT_EQ(Events(r.report), (std::vector<std::string>{"70 scale-up g4-1", "250 ready g4-1", "4450 scale-down g4-1"}));
  ASSERT_EQ(r.timeline.pods.size(), 3u);
  const sched::TimelinePod& p3 = r.timeline.pods[2];
  EXPECT_EQ(p3.pod, "default/p3");
  EXPECT_EQ(p3.evictions, 1);
  EXPECT_EQ(p3.node, "g4-0");
  ASSERT_TRUE(p3.start && p3.end);
  EXPECT_EQ(*p3.start - kStart, 3000);
  EXPECT_EQ(*p3.end - kStart, 13800);
  EXPECT_EQ(r.timeline.summary.evictions, 1);
  EXPECT_EQ(r.timeline.summary.end_time - kStart, 14400);
  EXPECT_EQ(r.report.groups[0].added, 1);
  EXPECT_EQ(r.report.groups[0].removed, 1);
  EXPECT_EQ(r.report.groups[0].peak, 2);
  EXPECT_NEAR(r.report.node_hours, (14400.0 + 4380.0) / 3600, 1e-9);
}

}  // namespace
}  // namespace dra::plan
