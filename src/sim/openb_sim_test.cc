// The FGD protocol end to end: the allocator agrees with the native filter on
// every node of every attempt (small slice of the trace), one seed of the
// default trace lands within the tolerance of the authors' number, and
// dra-pack beats FGD on that seed.
#include "sim/openb_sim.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expected.h"
#include "sim/trace_testing.h"

namespace dra::sim {
namespace {

using testing::LoadTrace;
using testing::Trace;

TEST(OpenbSimTest, PreparesTheDefaultTraceAsTheSpecCounts) {
  Trace t = LoadTrace("openb_pod_list_default.csv");
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->cluster().nodes().size(), 1213u);
  EXPECT_EQ(e->cluster().gpu_capacity(), 6'212'000);
  EXPECT_EQ(e->trace_gpu_request(), 6'086'800);
  // docs/fgd.md §5.2: 91 distinct shapes, 35 taken, CPU-only weight 13.60%.
  EXPECT_EQ(e->typical().distinct_shapes, 91);
  EXPECT_EQ(e->typical().list.size(), 35u);
  double cpu_only = 0;
  for (const TypicalPod& p : e->typical().list) {
    if (p.shape.cpu_only()) cpu_only += p.weight;
  }
  EXPECT_NEAR(cpu_only, 0.1360, 0.00005);
  EXPECT_EQ(e->typical().list[0].shape.cpu, 3152);
  EXPECT_EQ(e->typical().list[0].shape.milli, 810);
  EXPECT_EQ(e->typical().list[0].pods, 1047);
}

// Every node, every attempt: the DRA allocator on the imported objects and
// the native GPU filter agree (the run fails otherwise), and every placement
// is replayed through the allocator with the policy's devices pinned.
TEST(OpenbSimTest, AllocatorAgreesOnEveryAttempt) {
  Trace t = LoadTrace("openb_pod_list_gpuspec33.csv");  // model constraints exercise the selectors
  t.nodes.resize(60);
  t.pods.resize(500);
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();
  for (Policy p : {Policy::kFgd, Policy::kRandom, Policy::kGpuPacking, Policy::kDraPack}) {
    StatusOr<RunLog> log =
        e->Run(RunOptions{.policy = p, .seed = 7, .tune_ratio = 1.3, .check = AllocatorCheck::kAllNodes});
    ASSERT_TRUE(log.ok()) << PolicyName(p) << ": " << log.status().message();
    EXPECT_EQ(log->allocator_disagreements, 0u);
    EXPECT_GT(log->allocator_calls, 10'000u);
    EXPECT_GT(log->failed, 0);  // the slice is overloaded to 130%: some pods fail
  }
}

// One seed of the default trace against the authors' per-seed number
// (expected/analysis_allo_discrete.csv, default, 06-FGD, seed 42, column
// 130: 95.29). Our seeds are our own (docs/fgd.md §7.1), so the bar is the
// reproduction tolerance, ±0.3. (The allocator checks are left to the test
// above, to keep this one fast under ASan.)
TEST(OpenbSimTest, OneSeedWithinToleranceOfThePublishedRun) {
  Trace t = LoadTrace("openb_pod_list_default.csv");
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();
  StatusOr<RunLog> log =
      e->Run(RunOptions{.policy = Policy::kFgd, .seed = 42, .tune_ratio = 1.3, .check = AllocatorCheck::kNone});
  ASSERT_TRUE(log.ok()) << log.status().message();
  Columns c = BinRows(*log);
  StatusOr<Published> published = ReadPublished(std::string(testing::kTraces) + "/expected");
  ASSERT_TRUE(published.ok()) << published.status().message();
  const std::vector<PublishedRun>* runs = published->Find("default", "06-FGD");
  ASSERT_NE(runs, nullptr);
  std::optional<double> want;
  for (const PublishedRun& r : *runs) {
    if (r.seed == 42) want = r.allocation[130];
  }
  ASSERT_TRUE(want.has_value());
  EXPECT_DOUBLE_EQ(*want, 95.29);
  ASSERT_TRUE(c.allocation[130].has_value());
  EXPECT_NEAR(*c.allocation[130], *want, 0.3);
  // Sanity checks of docs/fgd.md §8: everything is allocated up to ~90% arrived, and the
  // tuned list ends near 130%.
  ASSERT_TRUE(c.allocation[90].has_value());
  EXPECT_NEAR(*c.allocation[90], 89.98, 0.1);
  EXPECT_GT(log->copies, 2000);
  EXPECT_LE(log->rows.back().arrived, 8'075'600 + 7'000);
}

// dra-pack's target (issue #7): at least FGD's published mean at 130% arrived
// on the default trace (95.39, seeds 42-51), here on one seed, and above our
// own FGD run of the same seed (same pod order and node ranks).
TEST(OpenbSimTest, DraPackLeavesFewerGpusIdleThanFgd) {
  Trace t = LoadTrace("openb_pod_list_default.csv");
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();
  std::optional<double> at130[2];
  const Policy policies[2] = {Policy::kFgd, Policy::kDraPack};
  for (int i = 0; i < 2; ++i) {
    StatusOr<RunLog> log =
        e->Run(RunOptions{.policy = policies[i], .seed = 42, .tune_ratio = 1.3, .check = AllocatorCheck::kNone});
    ASSERT_TRUE(log.ok()) << log.status().message();
    at130[i] = BinRows(*log).allocation[130];
    ASSERT_TRUE(at130[i].has_value());
  }
  EXPECT_GE(*at130[1], 95.39);
  EXPECT_GT(*at130[1], *at130[0]);
}

}  // namespace
}  // namespace dra::sim
