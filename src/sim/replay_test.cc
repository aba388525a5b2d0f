// Trace replay on a hand-made trace where every number is worked out below,
// and on the openb default trace for the bookkeeping that must hold on any
// trace.
#include "sim/replay.h"

#include <limits>

#include "gtest/gtest.h"
#include "sim/cluster.h"

namespace dra::sim {
namespace {

OpenbPod Pod(std::string name, int64_t created, int64_t deleted, int64_t cpu, int64_t gpus, int64_t milli) {
  OpenbPod p;
  p.name = std::move(name);
  p.cpu_milli = cpu;
  p.memory_mib = 1;
  p.num_gpu = gpus;
  p.gpu_milli = gpus > 0 ? milli : 0;
  p.creation_time = created;
  p.deletion_time = deleted;
  return p;
}

// One node: 8 cores, one T4.
//   a  t=0..100, 1 GPU, 1 core         starts at 0 (wait 0), leaves at 100
//   f  t=5,       2 GPUs               fits no node: pending to the end
//   b  t=10, runs 50, 1 GPU, 1 core    pending; starts at 100 when a leaves
//                                      (wait 90), leaves at 150
//   c  t=20, never deleted, 2 cores    CPU-only, starts at 20, runs to the end
//   d  t=30, runs 10, 0.5 GPU, 1 core  pending; at 100 b is ahead of it in the
//                                      queue and takes the GPU; starts at 150
//                                      (wait 120), leaves at 160
TEST(ReplayTest, HandTrace) {
  std::vector<OpenbNode> nodes = {{.name = "n0", .cpu_milli = 8000, .memory_mib = 1024, .gpus = 1, .model = "T4"}};
  std::vector<OpenbPod> pods = {
      Pod("a", 0, 100, 1000, 1, 1000), Pod("f", 5, 50, 1000, 2, 1000), Pod("b", 10, 60, 1000, 1, 1000),
      Pod("c", 20, -1, 2000, 0, 0),    Pod("d", 30, 40, 1000, 1, 500),
  };
  StatusOr<ReplayResult> r = Replay(nodes, pods, ReplayOptions{.policy = Policy::kFgd, .seed = 1, .interval = 50});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ReplaySummary& s = r->summary;
  EXPECT_EQ(s.pods, 5);
  EXPECT_EQ(s.started, 4);             // a b c d
  EXPECT_EQ(s.started_on_arrival, 2);  // a c
  EXPECT_EQ(s.pending_at_end, 1);      // f
  EXPECT_EQ(s.finished, 3);            // a b d
  EXPECT_EQ(s.peak_pending, 3);        // f b d after t=30
  EXPECT_DOUBLE_EQ(s.peak_gpu_allocation, 100);
  EXPECT_EQ(s.start_time, 0);
  EXPECT_EQ(s.end_time, 160);
  // Waits 0, 0, 90, 120: mean 52.5; nearest rank p50 = 2nd = 0, p95 = 4th = 120.
  EXPECT_DOUBLE_EQ(s.wait_mean, 52.5);
  EXPECT_EQ(s.wait_p50, 0);
  EXPECT_EQ(s.wait_p95, 120);
  EXPECT_EQ(s.wait_max, 120);
  // GPU: 100% on 0..150 (a, then b), 50% on 150..160 (d):
  // (150 * 100 + 10 * 50) / 160 = 96.875.
  EXPECT_DOUBLE_EQ(s.gpu_allocation_mean, 96.875);
  // CPU of 8000: 1000 on 0..20 (12.5%), 3000 on 20..160 (37.5%: a or b or d, and c):
  // (20 * 12.5 + 140 * 37.5) / 160 = 34.375.
  EXPECT_DOUBLE_EQ(s.cpu_allocation_mean, 34.375);
  EXPECT_EQ(s.gpu_capacity, 1000);
  EXPECT_EQ(s.cpu_capacity, 8000);

  // Samples at 0, 50, 100, 150 and the end, 160, each after that instant's events.
  ASSERT_EQ(r->series.size(), 5u);
  struct Want {
    int64_t time;
    double gpu, cpu;
    int64_t running, pending;
  };
  const Want want[] = {
      {0, 100, 12.5, 1, 0},    // a
      {50, 100, 37.5, 2, 3},   // a c; f b d wait
      {100, 100, 37.5, 2, 2},  // b c; f d wait
      {150, 50, 37.5, 2, 1},   // c d; f waits
      {160, 0, 25, 1, 1},      // c; f waits
  };
  for (size_t i = 0; i < 5; ++i) {
    const ReplaySample& got = r->series[i];
    EXPECT_EQ(got.time, want[i].time) << i;
    EXPECT_DOUBLE_EQ(got.gpu_allocation, want[i].gpu) << i;
    EXPECT_DOUBLE_EQ(got.cpu_allocation, want[i].cpu) << i;
    EXPECT_EQ(got.running, want[i].running) << i;
    EXPECT_EQ(got.pending, want[i].pending) << i;
    EXPECT_GE(got.frag_amount, 0) << i;
    EXPECT_LE(got.frag_amount, got.gpu_allocation > 99 ? 0.0 : 100.0) << i;
  }
}

// A pending pod is tried again only when a node it fits was freed; a pod
// that would fit a node freed earlier cannot exist, because it would have
// started then. Two nodes: the pending pod fits only the second, which frees
// up later than the first.
TEST(ReplayTest, PendingPodWaitsForANodeItFits) {
  std::vector<OpenbNode> nodes = {
      {.name = "small", .cpu_milli = 4000, .memory_mib = 1024, .gpus = 1, .model = "T4"},
      {.name = "big", .cpu_milli = 32000, .memory_mib = 1024, .gpus = 1, .model = "T4"},
  };
  std::vector<OpenbPod> pods = {
      Pod("p1", 0, 10, 2000, 1, 1000),  // on one of the two
      Pod("p2", 0, 50, 2000, 1, 1000),  // on the other
      Pod("w", 1, 2, 16000, 1, 1000),   // needs "big": waits until its pod leaves
  };
  StatusOr<ReplayResult> r = Replay(nodes, pods, ReplayOptions{.policy = Policy::kBestFit, .seed = 3, .interval = 100});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Whichever of p1/p2 took "big", w starts when it leaves: at 10 or at 50.
  EXPECT_EQ(r->summary.started, 3);
  EXPECT_EQ(r->summary.pending_at_end, 0);
  EXPECT_TRUE(r->summary.wait_max == 9 || r->summary.wait_max == 49) << r->summary.wait_max;
  EXPECT_EQ(r->summary.finished, 3);
}

// Remove undoes Place, including GpuClustering's classes: a class bit goes
// only with the node's last pod of that class.
TEST(ReplayTest, RemoveUndoesPlace) {
  std::vector<OpenbNode> nodes = {{.name = "n0", .cpu_milli = 8000, .memory_mib = 1024, .gpus = 2, .model = "T4"}};
  StatusOr<Cluster> c = Cluster::Build(nodes);
  ASSERT_TRUE(c.ok());
  SimNode& n = c->nodes()[0];
  const SimNode idle = n;
  PodShape share{.cpu = 1000, .memory = 10, .milli = 300, .count = 1};
  PodShape whole{.cpu = 2000, .memory = 20, .milli = 1000, .count = 1};
  GpuPick gpu0, gpu1;
  gpu0.index[0] = 0;
  gpu0.size = 1;
  gpu1.index[0] = 1;
  gpu1.size = 1;
  c->Place(n, share, gpu0);
  c->Place(n, share, gpu0);
  c->Place(n, whole, gpu1);
  EXPECT_EQ(n.classes, ClassBit(share) | ClassBit(whole));
  EXPECT_EQ(n.gpu_free[0], 400);
  c->Remove(n, share, gpu0);
  EXPECT_EQ(n.classes, ClassBit(share) | ClassBit(whole));  // one sharing pod is left
  c->Remove(n, whole, gpu1);
  EXPECT_EQ(n.classes, ClassBit(share));
  c->Remove(n, share, gpu0);
  EXPECT_EQ(n.classes, 0u);
  EXPECT_EQ(n.cpu_free, idle.cpu_free);
  EXPECT_EQ(n.memory_free, idle.memory_free);
  EXPECT_EQ(n.pods, 0);
  EXPECT_EQ(n.gpu_free, idle.gpu_free);
  EXPECT_EQ(n.gpu_free_total, idle.gpu_free_total);
}

TEST(ReplayTest, RejectsBadInput) {
  std::vector<OpenbNode> nodes = {{.name = "n0", .cpu_milli = 8000, .memory_mib = 1024, .gpus = 1, .model = "T4"}};
  StatusOr<ReplayResult> r = Replay(nodes, {Pod("a", 0, 1, 1, 0, 0)}, ReplayOptions{.interval = 0});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "interval 0 s: must be positive");
  r = Replay(nodes, {Pod("a", 0, 1, 1, 0, 0), Pod("a", 5, 9, 1, 0, 0)}, ReplayOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "duplicate pod name a");
  // One pod that runs 2,000,001 s: 2,000,002 one-second samples.
  r = Replay(nodes, {Pod("long", 0, 2'000'001, 1, 0, 0)}, ReplayOptions{.interval = 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "the series would have more than 1000000 samples at an interval of 1 s: give a longer interval");
  // Times near the largest int64 do not overflow: b waits for a, which ends at
  // the largest time; b's end saturates there too.
  const int64_t max = std::numeric_limits<int64_t>::max();
  r = Replay(nodes, {Pod("a", 0, max, 1, 1, 1000), Pod("b", 1, max, 1, 1, 1000)}, ReplayOptions{.interval = max});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->summary.started, 2);
  EXPECT_EQ(r->summary.end_time, max);
  EXPECT_EQ(r->summary.wait_max, max - 1);
  nodes.push_back(nodes[0]);
  r = Replay(nodes, {Pod("a", 0, 1, 1, 0, 0)}, ReplayOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "duplicate node name n0");
}

// The openb default trace with its own times: every pod either started or is
// still pending, nothing runs past the trace, samples are in time order and
// never show more than the capacity.
TEST(ReplayTest, DefaultTraceBookkeeping) {
  const std::string dir = std::string(DRA_TESTDATA_DIR) + "/traces/alibaba-openb";
  StatusOr<std::vector<OpenbNode>> nodes = ReadOpenbNodes(dir + "/openb_node_list_gpu_node.csv");
  StatusOr<std::vector<OpenbPod>> pods = ReadOpenbPods(dir + "/openb_pod_list_default.csv");
  ASSERT_TRUE(nodes.ok() && pods.ok());
  StatusOr<ReplayResult> r =
      Replay(*nodes, *pods, ReplayOptions{.policy = Policy::kDraPack, .seed = 42, .interval = 86400});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ReplaySummary& s = r->summary;
  EXPECT_EQ(s.pods, 8152);
  EXPECT_EQ(s.started + s.pending_at_end, s.pods);
  EXPECT_LE(s.finished, s.started);
  EXPECT_EQ(s.start_time, 0);
  EXPECT_GE(s.end_time, 12'902'960);  // the last deletion in the trace, or later after waits
  EXPECT_GT(s.gpu_allocation_mean, 0);
  EXPECT_LE(s.gpu_allocation_mean, 100);
  ASSERT_GT(r->series.size(), 100u);  // ~149 days, one sample a day
  for (size_t i = 1; i < r->series.size(); ++i) {
    EXPECT_LT(r->series[i - 1].time, r->series[i].time);
    EXPECT_LE(r->series[i].gpu_allocation, 100);
    EXPECT_LE(r->series[i].cpu_allocation, 100);
  }
  // Nothing is left running once every pod with a deletion time has gone:
  // every pod of this trace has one.
  EXPECT_EQ(r->series.back().running, 0);
  EXPECT_EQ(s.finished, s.started);
}

}  // namespace
}  // namespace dra::sim
