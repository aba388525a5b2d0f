// The two engines of `simulate openb` against each other. The native model
// (cluster.h, frag.h, policies.h) is the reference: it reproduces the
// authors' published numbers (openb_sim_test, scripts/reproduce-fgd). Here
// the DRA side must give the same numbers on the objects `dractl import
// openb` writes:
//   - sched's fragmentation measure equals NodeFrag / PackFrag on every node
//     through a long sequence of placements;
//   - a whole run through the DRA scheduler logs the same rows as the native
//     engine, for bestfit, fgd and dra-pack.
#include "sim/dra_engine.h"

#include "alloc/cel_selector.h"
#include "api/defaults.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sched/fragmentation.h"
#include "sched/resources.h"
#include "sim/import.h"
#include "sim/sim_scheduler.h"
#include "sim/trace_testing.h"

namespace dra::sim {
namespace {

using testing::LoadTrace;
using testing::Trace;

// The native FGD scheduler places pods of the trace; the same placements are
// applied to sched's DeviceModel of the imported objects, and after each one
// F, P and G must be equal on the node that changed, and on every node
// every 500 placements.
void ExpectMeasuresEqual(const std::string& pods_file, size_t attempts) {
  Trace t = LoadTrace(pods_file);
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();

  std::vector<api::Object> objects;
  objects.emplace_back(MakeDeviceClass());
  for (const OpenbNode& n : e->nodes()) {
    objects.emplace_back(MakeNode(n));
    objects.emplace_back(MakeSlice(n));
  }
  std::vector<const api::Object*> ptrs;
  for (api::Object& o : objects) {
    api::SetDefaults(o, "2026-01-01T00:00:00Z");
    ptrs.push_back(&o);
  }
  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults("1.37");
  ASSERT_TRUE(gates.ok());
  sched::Snapshot snapshot = sched::NewSnapshot(ptrs, *gates);
  const alloc::Features features = alloc::Features::FromGates(*gates);
  auto cel = std::move(*alloc::NewCelSelectorEvaluator(features));
  const sched::WorkloadProfile profile = OpenbProfile(e->typical(), "test");
  ASSERT_EQ(profile.shapes.size(), e->typical().list.size());
  std::unique_ptr<sched::DeviceModel> model = sched::DeviceModel::New(snapshot, &profile, cel.get(), features);
  ASSERT_EQ(model->num_nodes(), e->cluster().nodes().size());
  const double rho = WorkloadGpuPerCpu(e->typical());
  EXPECT_EQ(model->rho(), rho);

  Cluster cluster = e->cluster();
  RunPlan plan = e->Plan(RunOptions{.policy = Policy::kFgd, .seed = 7});
  SimScheduler scheduler(&cluster, &e->typical(), Policy::kFgd, plan.rank, &plan.rng);
  auto expect_node = [&](size_t n) {
    const SimNode& node = cluster.nodes()[n];
    ASSERT_EQ(model->FreeMilli(n), node.gpu_free_total) << node.name;
    ASSERT_EQ(model->Frag(n), NodeFrag(e->typical(), node)) << node.name;
    ASSERT_EQ(model->Pack(n), PackFrag(e->typical(), rho, node)) << node.name;
  };
  for (size_t n = 0; n < cluster.nodes().size(); ++n) expect_node(n);
  size_t placed = 0;
  for (size_t i = 0; i < attempts && i < plan.list.size(); ++i) {
    const uint32_t idx = plan.list[i];
    const PodShape& pod = e->shapes()[idx];
    std::optional<Placement> p = scheduler.Schedule(pod);
    if (!p) continue;
    scheduler.Place(pod, *p);
    sched::Resources requests;
    requests.milli_cpu = pod.cpu;
    model->AddPod(p->node, requests);
    api::AllocationResult a;
    for (int8_t g : p->pick.indices()) {
      api::DeviceRequestAllocationResult r{.request = kClaimName,
                                           .driver = kDriver,
                                           .pool = cluster.nodes()[p->node].name,
                                           .device = fmt::format("gpu-{}", g)};
      r.consumed_capacity.insert_or_assign(kCapacityName, api::Quantity::FromInt(pod.milli));
      a.devices.results.push_back(std::move(r));
    }
    model->AddAllocation(a);
    expect_node(p->node);
    if (++placed % 500 == 0) {
      for (size_t n = 0; n < cluster.nodes().size(); ++n) expect_node(n);
      EXPECT_EQ(model->FragTotal(), scheduler.FragTotal());
      EXPECT_EQ(model->IdleTotal(), scheduler.IdleTotal());
    }
  }
  EXPECT_GT(placed, attempts / 2);
}

TEST(DraEngineTest, FragmentationEqualsTheNativeMeasure) { ExpectMeasuresEqual("openb_pod_list_default.csv", 6000); }

// Model constraints: typical shapes whose selectors exclude some nodes.
TEST(DraEngineTest, FragmentationEqualsTheNativeMeasureWithModelSelectors) {
  ExpectMeasuresEqual("openb_pod_list_gpuspec33.csv", 3000);
}

// Whole runs on a slice of a trace: the same rows from both engines.
void ExpectEnginesAgree(const std::string& pods_file, size_t nodes, size_t pods) {
  Trace t = LoadTrace(pods_file);
  t.nodes.resize(nodes);
  t.pods.resize(pods);
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok()) << e.status().message();
  for (Policy p : {Policy::kBestFit, Policy::kFgd, Policy::kDraPack}) {
    for (uint64_t seed : {uint64_t{42}, uint64_t{43}}) {
      StatusOr<RunLog> native =
          e->Run(RunOptions{.policy = p, .seed = seed, .check = AllocatorCheck::kNone, .engine = Engine::kNative});
      StatusOr<RunLog> dra = e->Run(RunOptions{.policy = p, .seed = seed, .engine = Engine::kDra});
      ASSERT_TRUE(native.ok()) << native.status().message();
      ASSERT_TRUE(dra.ok()) << dra.status().message();
      SCOPED_TRACE(fmt::format("{} {} seed {}", pods_file, PolicyName(p), seed));
      EXPECT_EQ(dra->submitted, native->submitted);
      EXPECT_EQ(dra->failed, native->failed);
      EXPECT_GT(native->failed, 0);  // the slice is tuned to 130%: some pods must fail
      ASSERT_EQ(dra->rows.size(), native->rows.size());
      for (size_t i = 0; i < dra->rows.size(); ++i) {
        ASSERT_EQ(dra->rows[i].arrived, native->rows[i].arrived) << "row " << i;
        ASSERT_EQ(dra->rows[i].allocated, native->rows[i].allocated) << "row " << i;
        ASSERT_EQ(dra->rows[i].frag, native->rows[i].frag) << "row " << i;
        ASSERT_EQ(dra->rows[i].idle, native->rows[i].idle) << "row " << i;
      }
    }
  }
}

TEST(DraEngineTest, EnginesLogTheSameRows) { ExpectEnginesAgree("openb_pod_list_default.csv", 80, 600); }

TEST(DraEngineTest, EnginesLogTheSameRowsWithModelSelectors) {
  ExpectEnginesAgree("openb_pod_list_gpuspec33.csv", 60, 500);
}

TEST(DraEngineTest, OtherPoliciesAreRefused) {
  Trace t = LoadTrace("openb_pod_list_default.csv");
  t.nodes.resize(10);
  t.pods.resize(50);
  StatusOr<OpenbExperiment> e = OpenbExperiment::Prepare(t.nodes, t.pods);
  ASSERT_TRUE(e.ok());
  StatusOr<RunLog> r = e->Run(RunOptions{.policy = Policy::kRandom, .engine = Engine::kDra});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("bestfit, fgd and dra-pack"));
}

}  // namespace
}  // namespace dra::sim
