// Whole-cluster scheduling and explain (issue #6, "Speed") on inputs from
// sched/generate.h (what `dractl gen` prints), loaded, defaulted and turned
// into a Snapshot outside the timing. Each iteration schedules a fresh copy
// of the snapshot (the copy is not timed).
//
//   build/release/bench/sched_bench
//
// Shapes:
//   BM_Schedule500x10     500 nodes x 10 devices; 5,000 pods, one claim from
//                         a template each, one device: fills every device.
//                         Target: < 0.5 s.
//   BM_Schedule500x10Kube100, BM_Schedule500x10DraPack: the same with every
//                         node filtered (kube at --percentage-of-nodes-to-score
//                         100, and dra-pack, which filters every node): the
//                         fragmentation score's cost is the difference.
//                         Target (issue #23): dra-pack < 1.2 x Kube100.
//   BM_Schedule5000x8Cel  5,000 nodes x 8 devices, half H100-80GB (80Gi), half
//                         L4 (24Gi); 20,000 pods whose claims select memory
//                         >= 40Gi: fills every H100. Target: < 5 s.
//   BM_Explain5000        5,000 nodes x 8 devices, one pending pod wanting 9
//                         devices (fits nowhere): Explain for that pod.
//   BM_ExplainAllPending  200 nodes x 8 devices, 2,000 one-device pods:
//                         `explain --all-pending` (400 stay pending).
//                         Target: < 100 ms.
//
// Every shape checks its outcome once before timing (pods placed, the
// explanation's node count) and aborts if it is off. Counters: pods_placed,
// heap_bytes_per_device (heap in use by the loaded snapshot / devices; target
// < 1 KiB per device).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "sched/explain.h"
#include "sched/generate.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::bench {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "sched_bench: %s\n", what.c_str());
  std::abort();
}

template <typename T>
T Must(StatusOr<T> v, const char* what) {
  if (!v.ok()) Fail(std::string(what) + ": " + v.status().ToString());
  return *std::move(v);
}

struct Input {
  sched::Snapshot snapshot;
  double bytes_per_device = 0;
};

// Generates, loads and defaults the objects; the snapshot's heap share is
// measured as the growth of malloc's in-use bytes while it is built from the
// loaded objects (the loaded copies are freed before measuring).
Input Build(const sched::ClusterShape& cluster, const sched::PodShape& pods) {
  std::string text =
      Must(sched::GenerateCluster(cluster), "cluster") + "---\n" + Must(sched::GeneratePods(pods), "pods");
  Input in;
  size_t before = 0;
  {
    manifest::LoadResult loaded;
    manifest::Loader({}).LoadText(text, "generated.yaml", &loaded);
    if (loaded.error_count() > 0) Fail("generated input does not load: " + loaded.messages[0].ToString());
    text = std::string();
    std::vector<const api::Object*> objects;
    for (manifest::LoadedObject& o : loaded.objects) {
      api::SetDefaults(o.object, "1970-01-01T00:00:00Z");
      objects.push_back(&o.object);
    }
    malloc_trim(0);
    before = mallinfo2().uordblks;
    in.snapshot = sched::NewSnapshot(objects, api::FeatureGates::Defaults());
    const size_t after = mallinfo2().uordblks;
    in.bytes_per_device =
        static_cast<double>(after - before) / static_cast<double>(cluster.nodes * cluster.devices_per_node);
  }
  return in;
}

sched::ScheduleOptions Options(const sched::ScorePolicy* policy) {
  return sched::ScheduleOptions{.policy = policy, .seed = 1, .max_steps = 0, .percentage_of_nodes_to_score = 0};
}

// Google Benchmark calls a benchmark function several times (to size the
// iterations): build each shape's input once.
const Input& Cached(const std::string& name, const sched::ClusterShape& cluster, const sched::PodShape& pods) {
  static std::map<std::string, std::unique_ptr<Input>> inputs;
  std::unique_ptr<Input>& in = inputs[name];
  if (!in) in = std::make_unique<Input>(Build(cluster, pods));
  return *in;
}

sched::ClusterShape ClusterOf(int64_t nodes, int64_t devices, std::vector<sched::GpuModel> models) {
  sched::ClusterShape c;
  c.nodes = nodes;
  c.devices_per_node = devices;
  c.models = std::move(models);
  return c;
}

sched::PodShape PodsOf(int64_t pods, int64_t devices, std::string selector) {
  sched::PodShape p;
  p.pods = pods;
  p.devices_per_pod = devices;
  p.selector = std::move(selector);
  return p;
}

void RunSchedule(benchmark::State& state, const std::string& name, const sched::ClusterShape& cluster,
                 const sched::PodShape& pods, const std::string& policy_name = "kube", int32_t percentage = 0) {
  const Input* input = &Cached(name, cluster, pods);
  auto policy = Must(sched::NewPolicy(policy_name), "policy");
  int64_t placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sched::Snapshot copy = input->snapshot;
    state.ResumeTiming();
    sched::ScheduleOptions options = Options(policy.get());
    options.percentage_of_nodes_to_score = percentage;
    sched::ScheduleResult result = Must(sched::Schedule(&copy, options), "schedule");
    placed = 0;
    for (const sched::PodOutcome& p : result.pods) placed += p.kind == sched::PodOutcome::Kind::kPlaced;
    state.PauseTiming();
    if (placed != pods.pods) Fail(name + ": " + std::to_string(placed) + " pods placed, want all");
    copy = sched::Snapshot();  // freed outside the timing
    state.ResumeTiming();
  }
  state.counters["pods_placed"] = static_cast<double>(placed);
  state.counters["heap_bytes_per_device"] = input->bytes_per_device;
}

void BM_Schedule500x10(benchmark::State& state) {
  RunSchedule(state, "500x10", ClusterOf(500, 10, {{"H100-80GB", 81920}}), PodsOf(5000, 1, ""));
}
BENCHMARK(BM_Schedule500x10)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same with every node filtered and scored, as the packing policies do:
// kube (the reference) and dra-pack (the fragmentation score added).
void BM_Schedule500x10Kube100(benchmark::State& state) {
  RunSchedule(state, "500x10", ClusterOf(500, 10, {{"H100-80GB", 81920}}), PodsOf(5000, 1, ""), "kube", 100);
}
BENCHMARK(BM_Schedule500x10Kube100)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_Schedule500x10DraPack(benchmark::State& state) {
  RunSchedule(state, "500x10", ClusterOf(500, 10, {{"H100-80GB", 81920}}), PodsOf(5000, 1, ""), "dra-pack");
}
BENCHMARK(BM_Schedule500x10DraPack)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Schedule5000x8Cel(benchmark::State& state) {
  RunSchedule(state, "5000x8cel", ClusterOf(5000, 8, {{"H100-80GB", 81920}, {"L4", 24576}}),
              PodsOf(20000, 1, "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"));
}
BENCHMARK(BM_Schedule5000x8Cel)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

void BM_Explain5000(benchmark::State& state) {
  const Input& in = Cached("explain5000", ClusterOf(5000, 8, {{"H100-80GB", 81920}}), PodsOf(1, 9, ""));
  auto policy = Must(sched::NewPolicy("kube"), "policy");
  sched::ExplainOptions options{.schedule = Options(policy.get())};
  const std::vector<std::string> pods = {"default/pod-00000"};
  for (auto _ : state) {
    state.PauseTiming();
    sched::Snapshot copy = in.snapshot;
    state.ResumeTiming();
    std::vector<sched::PodExplanation> out = Must(sched::Explain(&copy, options, pods), "explain");
    state.PauseTiming();
    if (out.size() != 1 || out[0].kind == sched::PodOutcome::Kind::kPlaced || out[0].nodes.size() != 5000) {
      Fail("explain: want one unplaced pod with 5000 rejected nodes");
    }
    copy = sched::Snapshot();
    state.ResumeTiming();
  }
  state.counters["heap_bytes_per_device"] = in.bytes_per_device;
}
BENCHMARK(BM_Explain5000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ExplainAllPending(benchmark::State& state) {
  const Input& in = Cached("explain-all", ClusterOf(200, 8, {{"H100-80GB", 81920}}), PodsOf(2000, 1, ""));
  auto policy = Must(sched::NewPolicy("kube"), "policy");
  sched::ExplainOptions options{.schedule = Options(policy.get())};
  for (auto _ : state) {
    state.PauseTiming();
    sched::Snapshot copy = in.snapshot;
    state.ResumeTiming();
    std::vector<sched::PodExplanation> out = Must(sched::Explain(&copy, options, {}), "explain");
    state.PauseTiming();
    if (out.size() != 400) Fail("explain --all-pending: want 400 pods that stay pending");
    copy = sched::Snapshot();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_ExplainAllPending)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace dra::bench

BENCHMARK_MAIN();
