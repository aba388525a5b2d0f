// The allocator on the shapes of upstream's scheduler_perf DRA tests
// (issue #4, "Speed"): one pod's claim tried against every node of a
// 500-node cluster, as the scheduler's Filter does (one Allocator per
// snapshot, one Allocate call per node, the pod's claims prepared once:
// alloc::PreparedClaims). The benchmark time is the time per pod, all 500
// nodes together.
//
//   build/bench/bench/alloc_bench
//   build/bench/bench/alloc_bench --benchmark_filter=Cel
//
// Shapes (test-driver.cdi.k8s.io, one ResourceSlice and pool per node, devices
// named as upstream's resourceSlice helper names them):
//   BM_Basic/{0,1,2}        10 devices per node; claim: 1 device of class
//                           "test-class" (`device.driver == "test-driver..."`);
//                           /0 empty cluster, /1 half of every node's devices
//                           allocated, /2 all of them allocated
//   BM_Cel/{0,1,2}          the same with the request selector
//                           `driverVersion.major() >= 1 && memory > 1Mi`
//   BM_BasicFresh, BM_CelFresh
//                           the same, each pod on a new Allocator (built and
//                           destroyed outside the timing) on the snapshot's
//                           alloc::SnapshotState, as for a scheduler that
//                           builds one per pod on one snapshot: node states
//                           and verdicts outlive each Allocator; the other
//                           shapes reuse one Allocator for every pod
//   BM_BasicCold, BM_CelCold
//                           as Fresh, without a SnapshotState: nothing is
//                           cached from one pod to the next
//   BM_BasicPerNode, BM_CelPerNode
//                           as BM_Basic, BM_Cel with the claims prepared on
//                           every call (Allocate(node, claims), no
//                           PreparedClaims), as upstream's Allocate does
//   BM_BasicFilter, BM_CelFilter
//                           as Fresh, the way sched/scheduler.cc calls the
//                           allocator: every node through a NodeHandle with
//                           ResultDetail::kSummary (the decision only), then
//                           the full AllocationResult on the node chosen (the
//                           first that fits; none for /2)
//   BM_ManyRequests/{0,1}   64 devices per node, 32 devices with a list-mode
//                           matchAttribute (DRAListTypeAttributes) on an int
//                           list attribute that half the devices fail:
//                           /0 one request for 32 devices, /1 32 requests of
//                           1 device each
//   BM_Partitionable/{0,1}  2 GPUs per node sharing counters with their
//                           partitions (whole, 2 halves, 4 quarters); claim: 4
//                           devices with matchAttribute on the parent GPU, so
//                           the first choices exhaust the counters and the
//                           search backtracks to the 4 quarters of one GPU;
//                           /1 with every node's gpu-0 allocated
//
// Every shape checks its outcome once before timing (how many nodes fit, that
// the search backtracked) and aborts with a message if it is off, so the
// benchmark cannot silently time a broken path.
//
// Counters: nodes_fit (nodes where the claim fits, per pod), steps_per_pod
// (search steps over all nodes), per_node (CPU seconds per node).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "api/core.h"
#include "api/resource.h"
#include "quantity/quantity.h"

namespace dra::bench {
namespace {

constexpr int kNodes = 500;
constexpr std::string_view kDriver = "test-driver.cdi.k8s.io";
constexpr std::string_view kClassSelector = "device.driver == \"test-driver.cdi.k8s.io\"";
constexpr std::string_view kCelSelector =
    "device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.major() >= 1 && "
    "device.capacity[\"test-driver.cdi.k8s.io\"].memory.isGreaterThan(quantity(\"1Mi\"))";

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "alloc_bench: %s\n", what.c_str());
  std::abort();
}

quantity::Quantity Q(std::string_view text) {
  StatusOr<quantity::Quantity> q = quantity::Quantity::Parse(text);
  if (!q.ok()) Fail("bad quantity " + std::string(text));
  return *q;
}

std::string NodeName(int node_idx) { return "scheduler-perf-dra-" + std::to_string(node_idx); }

// A device as upstream's scheduler_perf resourceSlice helper publishes it:
// model, family, driverVersion and a numa index, plus 1Gi of memory.
api::Device TestDevice(std::string name, int device_idx) {
  api::Device d;
  d.name = std::move(name);
  d.attributes.insert_or_assign(api::InternedString("driverVersion"), api::DeviceAttribute::VersionOf("1.2.3"));
  d.attributes.insert_or_assign(api::InternedString("family"), api::DeviceAttribute::String("GPU"));
  d.attributes.insert_or_assign(api::InternedString("model"), api::DeviceAttribute::String("A100"));
  d.attributes.insert_or_assign(api::InternedString("dra.example.com/numa"), api::DeviceAttribute::Int(device_idx));
  d.capacity.insert_or_assign(api::InternedString("memory"), api::DeviceCapacity{.value = Q("1Gi")});
  return d;
}

api::ResourceSlice NodeSlice(int node_idx, std::string slice_name, int64_t slice_count) {
  api::ResourceSlice s;
  s.metadata.name = std::move(slice_name);
  s.spec.driver = std::string(kDriver);
  s.spec.node_name = NodeName(node_idx);
  s.spec.pool = {.name = NodeName(node_idx), .generation = 0, .resource_slice_count = slice_count};
  return s;
}

api::DeviceRequest Request(std::string name, int64_t count, std::string_view selector) {
  api::ExactDeviceRequest ex{
      .device_class_name = "test-class", .allocation_mode = api::AllocationMode::kExactCount, .count = count};
  if (!selector.empty()) ex.selectors.push_back({.cel = api::CelDeviceSelector{std::string(selector)}});
  return {.name = std::move(name), .exactly = std::move(ex)};
}

// One snapshot: slices, index, class, allocated devices, the evaluator and
// the Allocator built on them, the nodes, and the pod's claim.
struct Cluster {
  alloc::Features features;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::Node> nodes;
  api::DeviceClass device_class;
  api::ResourceClaim claim;
  alloc::AllocatedState allocated;
  std::unique_ptr<alloc::SliceIndex> index;
  std::unique_ptr<alloc::SelectorEvaluator> selectors;
  std::unique_ptr<alloc::Allocator> allocator;
  std::shared_ptr<const alloc::SnapshotState> snapshot;  // for the Fresh shapes

  Cluster() {
    device_class.metadata.name = "test-class";
    device_class.spec.selectors.push_back({.cel = api::CelDeviceSelector{std::string(kClassSelector)}});
    claim.metadata.namespace_ = "default";
    claim.metadata.name = "test-claim";
    for (int node_idx = 0; node_idx < kNodes; ++node_idx) {
      api::Node& n = nodes.emplace_back();
      n.metadata.name = NodeName(node_idx);
    }
  }
  void Allocate(std::string_view device_name, int node_idx) {
    api::DeviceRequestAllocationResult r;
    r.driver = std::string(kDriver);
    r.pool = NodeName(node_idx);
    r.device = std::string(device_name);
    if (!allocated.AddResult(r, features).ok()) Fail("AddResult");
  }
  void Build() {
    std::vector<const api::ResourceSlice*> ptrs;
    for (const api::ResourceSlice& s : slices) ptrs.push_back(&s);
    index = std::make_unique<alloc::SliceIndex>(std::move(ptrs));
    StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> ev = alloc::NewCelSelectorEvaluator(features);
    if (!ev.ok()) Fail("NewCelSelectorEvaluator: " + ev.status().ToString());
    selectors = *std::move(ev);
    allocator = NewAllocator();
    snapshot = std::make_shared<alloc::SnapshotState>(features, allocated, index.get());
  }
  // On the shared SnapshotState (`shared`), or on its own.
  std::unique_ptr<alloc::Allocator> NewAllocator(bool shared = false) const {
    if (shared) {
      return std::make_unique<alloc::Allocator>(snapshot, std::vector<const api::DeviceClass*>{&device_class},
                                                selectors.get());
    }
    return std::make_unique<alloc::Allocator>(features, allocated, std::vector<const api::DeviceClass*>{&device_class},
                                              index.get(), selectors.get());
  }
};

struct PodOutcome {
  int nodes_fit = 0;
  uint64_t steps = 0;
};

// The scheduler's Filter for one pod: the claim against every node, prepared
// once for the pod (alloc::PreparedClaims, as sched/scheduler.cc's Filter
// does), a full AllocationResult on every node that fits.
// On `allocator`, or on the Cluster's (warm from earlier pods) if null.
// `per_node`: without PreparedClaims.
PodOutcome SchedulePod(const Cluster& c, const alloc::Allocator* allocator_or_null = nullptr, bool per_node = false) {
  const api::ResourceClaim* claims[] = {&c.claim};
  const alloc::PreparedClaims prepared(claims);
  PodOutcome out;
  const alloc::Allocator& allocator = allocator_or_null != nullptr ? *allocator_or_null : *c.allocator;
  alloc::NodeFit fit;
  for (const api::Node& node : c.nodes) {
    Status st;
    if (per_node) {
      StatusOr<alloc::NodeFit> one = allocator.Allocate(node, claims);
      st = one.status();
      if (one.ok()) fit = *std::move(one);
    } else {
      st = allocator.AllocateInto(allocator.Handle(node), prepared, alloc::Allocator::ResultDetail::kFull, fit);
    }
    if (!st.ok()) Fail("Allocate on " + node.metadata.name + ": " + st.ToString());
    out.nodes_fit += fit.fits ? 1 : 0;
    out.steps += fit.steps;
  }
  return out;
}

// The scheduler's pattern (sched/scheduler.cc Filter, then Reserve): every
// node decided with kSummary through a handle into one NodeFit, results in full only on the
// node chosen (here the first that fits).
PodOutcome FilterPod(const Cluster& c, const alloc::Allocator& allocator) {
  const api::ResourceClaim* claims[] = {&c.claim};
  const alloc::PreparedClaims prepared(claims);
  PodOutcome out;
  const api::Node* chosen = nullptr;
  alloc::NodeFit fit;
  for (const api::Node& node : c.nodes) {
    Status st = allocator.AllocateInto(allocator.Handle(node), prepared, alloc::Allocator::ResultDetail::kSummary, fit);
    if (!st.ok()) Fail("Allocate on " + node.metadata.name + ": " + st.ToString());
    out.nodes_fit += fit.fits ? 1 : 0;
    out.steps += fit.steps;
    if (fit.fits && chosen == nullptr) chosen = &node;
  }
  if (chosen != nullptr) {
    StatusOr<alloc::NodeFit> full = allocator.Allocate(*chosen, claims);
    if (!full.ok() || !full->fits || full->results.size() != 1 || !full->results[0].node_selector) {
      Fail("full allocation on the chosen node " + chosen->metadata.name + " failed");
    }
  }
  return out;
}

// How the pods of a shape get their Allocator.
enum class Mode { kWarm, kFresh, kCold, kFilter, kPerNode };

void Run(benchmark::State& state, std::string_view shape, const Cluster& c, int want_fit, uint64_t min_steps = 0,
         Mode mode = Mode::kWarm) {
  const std::string name = std::string(shape) + "/" + std::to_string(state.range(0));
  const bool fresh = mode != Mode::kWarm && mode != Mode::kPerNode;
  const bool per_node = mode == Mode::kPerNode;
  const bool shared = mode == Mode::kFresh || mode == Mode::kFilter;
  auto pod = [&](const alloc::Allocator* allocator) {
    return mode == Mode::kFilter ? FilterPod(c, *allocator) : SchedulePod(c, allocator);
  };
  PodOutcome first = fresh ? pod(c.NewAllocator(shared).get()) : SchedulePod(c, nullptr, per_node);
  if (first.nodes_fit != want_fit) {
    Fail(name + ": " + std::to_string(first.nodes_fit) + " nodes fit, want " + std::to_string(want_fit));
  }
  if (first.steps < min_steps) {
    Fail(name + ": " + std::to_string(first.steps) + " steps, want at least " + std::to_string(min_steps));
  }
  PodOutcome o;
  for (auto _ : state) {
    if (!fresh) {
      o = SchedulePod(c, nullptr, per_node);
      benchmark::DoNotOptimize(o);
      continue;
    }
    // Fresh: a new Allocator per pod on the snapshot's SnapshotState, as a
    // scheduler that builds one per pod would; Cold: nothing cached but
    // compiled CEL. Building it (Cold: a copy of the AllocatedState) and
    // destroying it are not timed.
    state.PauseTiming();
    std::unique_ptr<alloc::Allocator> allocator = c.NewAllocator(shared);
    state.ResumeTiming();
    o = pod(allocator.get());
    benchmark::DoNotOptimize(o);
    state.PauseTiming();
    allocator.reset();
    state.ResumeTiming();
  }
  if (o.nodes_fit != want_fit) Fail(name + ": result changed between runs");
  state.counters["nodes_fit"] = o.nodes_fit;
  state.counters["steps_per_pod"] = static_cast<double>(o.steps);
  // Seconds per node, CPU time (printed with SI prefixes: "2.8u" = 2.8 us).
  state.counters["per_node"] =
      benchmark::Counter(kNodes, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// 10 devices per node ("instance-0".."instance-9"); `fill` 0 empty, 1 half
// of each node allocated, 2 all of it.
void BasicShape(benchmark::State& state, std::string_view request_selector, Mode mode = Mode::kWarm) {
  constexpr int kDevices = 10;
  const int64_t fill = state.range(0);
  Cluster c;
  for (int node_idx = 0; node_idx < kNodes; ++node_idx) {
    api::ResourceSlice s = NodeSlice(node_idx, NodeName(node_idx), 1);
    for (int device_idx = 0; device_idx < kDevices; ++device_idx) {
      std::string name = "instance-" + std::to_string(device_idx);
      s.spec.devices.push_back(TestDevice(name, device_idx));
      const int taken = fill == 0 ? 0 : fill == 1 ? kDevices / 2 : kDevices;
      if (device_idx < taken) c.Allocate(name, node_idx);
    }
    c.slices.push_back(std::move(s));
  }
  c.claim.spec.devices.requests.push_back(Request("req-0", 1, request_selector));
  c.Build();
  const std::string shape =
      std::string(request_selector.empty() ? "BM_Basic" : "BM_Cel") + (mode == Mode::kFresh     ? "Fresh"
                                                                       : mode == Mode::kCold    ? "Cold"
                                                                       : mode == Mode::kFilter  ? "Filter"
                                                                       : mode == Mode::kPerNode ? "PerNode"
                                                                                                : "");
  Run(state, shape, c, fill == 2 ? 0 : kNodes, 0, mode);
}

void BM_Basic(benchmark::State& state) { BasicShape(state, ""); }
void BM_Cel(benchmark::State& state) { BasicShape(state, kCelSelector); }
void BM_BasicFresh(benchmark::State& state) { BasicShape(state, "", Mode::kFresh); }
void BM_CelFresh(benchmark::State& state) { BasicShape(state, kCelSelector, Mode::kFresh); }
void BM_BasicCold(benchmark::State& state) { BasicShape(state, "", Mode::kCold); }
void BM_CelCold(benchmark::State& state) { BasicShape(state, kCelSelector, Mode::kCold); }
void BM_BasicFilter(benchmark::State& state) { BasicShape(state, "", Mode::kFilter); }
void BM_BasicPerNode(benchmark::State& state) { BasicShape(state, "", Mode::kPerNode); }
void BM_CelPerNode(benchmark::State& state) { BasicShape(state, kCelSelector, Mode::kPerNode); }
void BM_CelFilter(benchmark::State& state) { BasicShape(state, kCelSelector, Mode::kFilter); }

// 64 devices per node; device i has the int list attribute numaNodes =
// [i%4, (i+1)%4], so with list-mode matchAttribute only the devices with
// i%4 in {0, 1} can join devices 0 and 1 (intersection {1}): exactly 32
// devices fit, every other one is refused by the constraint.
void BM_ManyRequests(benchmark::State& state) {
  constexpr int kDevices = 64;
  constexpr int kWanted = 32;
  Cluster c;
  c.features.list_type_attributes = true;
  for (int node_idx = 0; node_idx < kNodes; ++node_idx) {
    api::ResourceSlice s = NodeSlice(node_idx, NodeName(node_idx), 1);
    for (int device_idx = 0; device_idx < kDevices; ++device_idx) {
      api::Device d = TestDevice("instance-" + std::to_string(device_idx), device_idx);
      d.attributes.insert_or_assign(api::InternedString("numaNodes"),
                                    api::DeviceAttribute::Ints({device_idx % 4, (device_idx + 1) % 4}));
      s.spec.devices.push_back(std::move(d));
    }
    c.slices.push_back(std::move(s));
  }
  api::DeviceConstraint match{
      .requests = {}, .match_attribute = std::string(kDriver) + "/numaNodes", .distinct_attribute = std::nullopt};
  if (state.range(0) == 0) {
    c.claim.spec.devices.requests.push_back(Request("req-0", kWanted, ""));
  } else {
    for (int request_idx = 0; request_idx < kWanted; ++request_idx) {
      c.claim.spec.devices.requests.push_back(Request("req-" + std::to_string(request_idx), 1, ""));
    }
  }
  c.claim.spec.devices.constraints.push_back(match);
  c.Build();
  Run(state, "BM_ManyRequests", c, kNodes);
}

// Per node: a counter slice with counter sets gpu-0 and gpu-1 (memory 8Gi
// each) and a device slice with, per GPU g, gpu-g (8Gi), gpu-g-half-{0,1}
// (4Gi) and gpu-g-quarter-{0..3} (2Gi), each with the int attribute gpu = g.
// The claim wants 4 devices with the same gpu: only the four quarters of one
// GPU fit, and the search reaches them by backtracking out of the whole GPU
// and the halves. /1: gpu-0 is allocated on every node, so its counters are
// used up and the quarters of gpu-1 are the answer.
void BM_Partitionable(benchmark::State& state) {
  Cluster c;
  c.features.partitionable_devices = true;
  for (int node_idx = 0; node_idx < kNodes; ++node_idx) {
    api::ResourceSlice counters = NodeSlice(node_idx, NodeName(node_idx) + "-counters", 2);
    api::ResourceSlice devices = NodeSlice(node_idx, NodeName(node_idx) + "-devices", 2);
    for (int gpu = 0; gpu < 2; ++gpu) {
      const std::string set = "gpu-" + std::to_string(gpu);
      api::CounterSet cs{.name = set, .counters = {}};
      cs.counters.insert_or_assign(api::InternedString("memory"), api::Counter{.value = Q("8Gi")});
      counters.spec.shared_counters.push_back(std::move(cs));
      auto add = [&](std::string name, std::string_view memory) {
        api::Device d = TestDevice(std::move(name), static_cast<int>(devices.spec.devices.size()));
        d.attributes.insert_or_assign(api::InternedString("gpu"), api::DeviceAttribute::Int(gpu));
        api::DeviceCounterConsumption use{.counter_set = set, .counters = {}, .compatibility_groups = {}};
        use.counters.insert_or_assign(api::InternedString("memory"), api::Counter{.value = Q(memory)});
        d.rare.mut().consumes_counters.push_back(std::move(use));
        devices.spec.devices.push_back(std::move(d));
      };
      add(set, "8Gi");
      for (int i = 0; i < 2; ++i) add(set + "-half-" + std::to_string(i), "4Gi");
      for (int i = 0; i < 4; ++i) add(set + "-quarter-" + std::to_string(i), "2Gi");
    }
    if (state.range(0) == 1) c.Allocate("gpu-0", node_idx);
    c.slices.push_back(std::move(counters));
    c.slices.push_back(std::move(devices));
  }
  c.claim.spec.devices.requests.push_back(Request("req-0", 4, ""));
  c.claim.spec.devices.constraints.push_back(
      {.requests = {}, .match_attribute = std::string(kDriver) + "/gpu", .distinct_attribute = std::nullopt});
  c.Build();
  // Backtracking: far more steps than the 5 of a straight pick per node.
  Run(state, "BM_Partitionable", c, kNodes, /*min_steps=*/20 * kNodes);
}

BENCHMARK(BM_Basic)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cel)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BasicFresh)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CelFresh)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BasicCold)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CelCold)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BasicFilter)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CelFilter)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BasicPerNode)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CelPerNode)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ManyRequests)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Partitionable)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dra::bench

BENCHMARK_MAIN();
