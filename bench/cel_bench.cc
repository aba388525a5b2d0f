// CEL selector evaluation per device (issue #3): DraEnvironment::Matches over
// 100,000 NVIDIA-like GPUs built directly as api::Device objects, one
// selector per benchmark. Reports the time per device and the heap
// allocations per evaluation (counted by base/testing/count_allocations.h).
//
//   build/bench/cel_bench                  all benchmarks
//   build/bench/cel_bench --benchmark_filter=Quantity
//
// Each benchmark runs twice: /0 with Matches' per-evaluation device check
// (DeviceCheck::kCheck, what a single call does), /1 with the device checked
// beforehand (DeviceCheck::kDone, what the allocator does: CheckDevice once
// per device, then any number of selectors).
//
// Counters: ns_per_device (CPU time of one Matches call, averaged over the
// 100,000 devices), allocs_per_eval, matched (devices for which the selector
// is true, a sanity check).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "api/resource.h"
#include "cel/dra/dra_env.h"
#include "quantity/quantity.h"

#include "base/testing/count_allocations.h"

using dra::testing::g_allocations;
using dra::testing::g_count_allocations;

namespace dra::bench {
namespace {

constexpr int kDevices = 100'000;
constexpr std::string_view kDriver = "gpu.nvidia.com";

struct Model {
  const char* product;
  const char* architecture;
  const char* compute_capability;
  const char* memory;
};

// The GPU models of testdata/fixtures (productName, architecture, CUDA compute
// capability, memory), spread evenly over the devices.
constexpr Model kModels[] = {
    {"NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "81559Mi"}, {"NVIDIA H200", "Hopper", "9.0.0", "143771Mi"},
    {"NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "40Gi"},    {"NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi"},
    {"NVIDIA L4", "Ada Lovelace", "8.9.0", "23034Mi"},       {"NVIDIA A10", "Ampere", "8.6.0", "23028Mi"},
};

// A full GPU with the attribute set of the NVIDIA driver
// (testdata/fixtures/nvidia/node-dgx-h100.yaml): 15 attributes, 1 capacity.
api::Device MakeGpu(int index) {
  const Model& m = kModels[static_cast<size_t>(index) % std::size(kModels)];
  api::Device d;
  d.name = "gpu-" + std::to_string(index % 8);
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-%08x-4e2b-9c1d-%012x", index, index * 7919);
  char bus[32];
  std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + index % 8);
  auto attr = [&](std::string_view name, api::DeviceAttribute a) {
    d.attributes.Append(api::InternedString(name), std::move(a));
  };
  attr("addressingMode", api::DeviceAttribute::String("HMM"));
  attr("architecture", api::DeviceAttribute::String(m.architecture));
  attr("brand", api::DeviceAttribute::String("Nvidia"));
  attr("cudaComputeCapability", api::DeviceAttribute::VersionOf(m.compute_capability));
  attr("cudaDriverVersion", api::DeviceAttribute::VersionOf("13.0.0"));
  attr("driverVersion", api::DeviceAttribute::VersionOf("580.95.5"));
  attr("pcieBusID", api::DeviceAttribute::String(bus));
  attr("productName", api::DeviceAttribute::String(m.product));
  attr("resource.kubernetes.io/numaNode", api::DeviceAttribute::Int(index % 8 < 4 ? 0 : 1));
  attr("resource.kubernetes.io/pciBusID", api::DeviceAttribute::String(bus));
  attr("resource.kubernetes.io/pcieRoot", api::DeviceAttribute::String("pci0000:" + std::to_string(index % 8)));
  attr("type", api::DeviceAttribute::String("gpu"));
  attr("uuid", api::DeviceAttribute::String(uuid));
  attr("gpuModuleID", api::DeviceAttribute::Int(index % 8 + 1));
  attr("partition8", api::DeviceAttribute::Int(0));
  d.attributes.Finish();
  api::DeviceCapacity memory;
  memory.value = *quantity::Quantity::Parse(m.memory);
  d.capacity.Append(api::InternedString("memory"), std::move(memory));
  d.capacity.Finish();
  return d;
}

const std::vector<api::Device>& Devices() {
  static const std::vector<api::Device> devices = [] {
    std::vector<api::Device> out;
    out.reserve(kDevices);
    for (int i = 0; i < kDevices; ++i) out.push_back(MakeGpu(i));
    return out;
  }();
  return devices;
}

const cel::DraEnvironment& Env() {
  static const std::unique_ptr<cel::DraEnvironment> env = [] {
    StatusOr<std::unique_ptr<cel::DraEnvironment>> e = cel::DraEnvironment::New({});
    if (!e.ok()) std::abort();
    return *std::move(e);
  }();
  return *env;
}

// Stops counting allocations and sets the counters of the file comment.
void SetCounters(benchmark::State& state, size_t matched) {
  g_count_allocations = false;
  const double evaluations = static_cast<double>(state.iterations()) * kDevices;
  state.counters["ns_per_device"] = benchmark::Counter(
      static_cast<double>(kDevices), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["allocs_per_eval"] = static_cast<double>(g_allocations.load()) / evaluations;
  state.counters["matched"] = static_cast<double>(matched);
}

void RunSelector(benchmark::State& state, const char* expression) {
  const std::vector<api::Device>& devices = Devices();
  std::shared_ptr<const cel::CompiledSelector> selector = Env().Compile(expression);
  if (!selector->ok()) {
    state.SkipWithError(selector->error().c_str());
    return;
  }
  cel::EvalScratch scratch;
  const cel::DeviceCheck check = state.range(0) == 0 ? cel::DeviceCheck::kCheck : cel::DeviceCheck::kDone;
  // Warm up: the scratch's pools and version cache reach their size.
  for (const api::Device& d : devices) {
    if (!Env().CheckDevice(d, scratch).ok()) std::abort();
    (void)Env().Matches(*selector, d, kDriver, scratch);
  }
  size_t matched = 0, errors = 0;
  g_allocations = 0;
  g_count_allocations = true;
  for (auto _ : state) {
    matched = 0;
    for (const api::Device& d : devices) {
      StatusOr<bool> m = Env().Matches(*selector, d, kDriver, scratch, check);
      matched += m.ok() && *m;
      errors += !m.ok();
    }
  }
  SetCounters(state, matched);
  if (errors > 0) state.SkipWithError("evaluation errors");
}

// The selectors, shared by the plain call and the columns.
constexpr const char* kDriverExpr = "device.driver == \"gpu.nvidia.com\"";
constexpr const char* kStringEqExpr = "device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA H100 80GB HBM3\"";
constexpr const char* kInListExpr =
    "device.attributes[\"gpu.nvidia.com\"].productName in [\"NVIDIA A100-SXM4-40GB\", "
    "\"NVIDIA H100 80GB HBM3\", \"NVIDIA H200\"]";
constexpr const char* kQuantityExpr = "device.capacity[\"gpu.nvidia.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0";
constexpr const char* kSemverExpr =
    "device.attributes[\"gpu.nvidia.com\"].cudaComputeCapability.isGreaterThan("
    "semver(\"8.9.0\"))";
constexpr const char* kConjunctionExpr =
    "device.driver == \"gpu.nvidia.com\" && "
    "device.attributes[\"gpu.nvidia.com\"].type == \"gpu\" && "
    "device.capacity[\"gpu.nvidia.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0";

void BM_Driver(benchmark::State& state) { RunSelector(state, kDriverExpr); }
void BM_AttributeStringEq(benchmark::State& state) { RunSelector(state, kStringEqExpr); }
void BM_AttributeInList(benchmark::State& state) { RunSelector(state, kInListExpr); }
void BM_QuantityCompare(benchmark::State& state) { RunSelector(state, kQuantityExpr); }
void BM_SemverIsGreaterThan(benchmark::State& state) { RunSelector(state, kSemverExpr); }
void BM_Matches(benchmark::State& state) {
  RunSelector(state, "device.attributes[\"gpu.nvidia.com\"].productName.matches(\"^NVIDIA H[0-9]+\")");
}
void BM_Conjunction(benchmark::State& state) { RunSelector(state, kConjunctionExpr); }

// The same selectors over columns (cel/dra/columnar.h): DraEnvironment::MatchColumn
// on the 100,000 devices cut into slices of state.range(1) devices (8: a DGX
// node's slice; 128: the API's maximum). /0/n checks each device's
// attributes as Matches does; /1/n has them checked beforehand. ns_per_device
// as above; undecided counts devices the columns left to the interpreter.
// `kept`: over SliceColumns kept from one run to the next (the columns a
// selector reads and the device check, built once per slice and snapshot,
// here in the warm-up outside the timed loop; BM_BuildColumns times that);
// else over the devices' maps.
void RunColumns(benchmark::State& state, const char* expression, bool kept) {
  const std::vector<api::Device>& devices = Devices();
  std::shared_ptr<const cel::CompiledSelector> selector = Env().Compile(expression);
  if (!selector->ok() || selector->columnar() == nullptr) {
    state.SkipWithError("no columnar form");
    return;
  }
  cel::EvalScratch scratch;
  const cel::DeviceCheck check = state.range(0) == 0 ? cel::DeviceCheck::kCheck : cel::DeviceCheck::kDone;
  const size_t slice = static_cast<size_t>(state.range(1));
  std::vector<std::unique_ptr<cel::SliceColumns>> columns;
  for (size_t begin = 0; kept && begin < devices.size(); begin += slice) {
    const size_t n = std::min(slice, devices.size() - begin);
    columns.push_back(std::make_unique<cel::SliceColumns>(std::span(devices.data() + begin, n), kDriver));
  }
  std::vector<uint8_t> out(devices.size());
  auto run = [&] {
    for (size_t begin = 0, k = 0; begin < devices.size(); begin += slice, ++k) {
      const size_t n = std::min(slice, devices.size() - begin);
      const std::span<uint8_t> part(out.data() + begin, n);
      if (kept) {
        (void)Env().MatchColumn(*selector, *columns[k], part, scratch, check);
      } else {
        (void)Env().MatchColumn(*selector, std::span<const api::Device>(devices.data() + begin, n), kDriver, part,
                                scratch, check);
      }
    }
  };
  // Warm up: the scratch's version cache (used by the check) reaches its
  // size; kept columns are built.
  run();
  g_allocations = 0;
  g_count_allocations = true;
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.data());
  }
  size_t matched = 0, undecided = 0;
  for (uint8_t v : out) {
    matched += v == cel::kColumnTrue;
    undecided += v == cel::kColumnUnknown;
  }
  SetCounters(state, matched);
  state.counters["undecided"] = static_cast<double>(undecided);
}

// Building the columns of a slice, per device: the device check (/0) or
// one attribute column (/1: productName; /2: the memory capacity), slices of 128.
void BM_BuildColumns(benchmark::State& state) {
  const std::vector<api::Device>& devices = Devices();
  std::shared_ptr<const cel::CompiledSelector> selector =
      Env().Compile(state.range(0) == 2 ? kQuantityExpr : kStringEqExpr);
  const cel::DeviceCheck check = state.range(0) == 0 ? cel::DeviceCheck::kCheck : cel::DeviceCheck::kDone;
  cel::EvalScratch scratch;
  std::vector<uint8_t> out(devices.size());
  for (auto _ : state) {
    for (size_t begin = 0; begin < devices.size(); begin += 128) {
      const size_t n = std::min<size_t>(128, devices.size() - begin);
      const cel::SliceColumns columns(std::span(devices.data() + begin, n), kDriver);
      (void)Env().MatchColumn(*selector, columns, std::span<uint8_t>(out.data() + begin, n), scratch, check);
    }
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, 0);
}

void BM_ColumnsDriver(benchmark::State& state) { RunColumns(state, kDriverExpr, false); }
void BM_ColumnsAttributeStringEq(benchmark::State& state) { RunColumns(state, kStringEqExpr, false); }
void BM_ColumnsAttributeInList(benchmark::State& state) { RunColumns(state, kInListExpr, false); }
void BM_ColumnsQuantityCompare(benchmark::State& state) { RunColumns(state, kQuantityExpr, false); }
void BM_ColumnsSemverIsGreaterThan(benchmark::State& state) { RunColumns(state, kSemverExpr, false); }
void BM_ColumnsConjunction(benchmark::State& state) { RunColumns(state, kConjunctionExpr, false); }
void BM_KeptColumnsDriver(benchmark::State& state) { RunColumns(state, kDriverExpr, true); }
void BM_KeptColumnsAttributeStringEq(benchmark::State& state) { RunColumns(state, kStringEqExpr, true); }
void BM_KeptColumnsAttributeInList(benchmark::State& state) { RunColumns(state, kInListExpr, true); }
void BM_KeptColumnsQuantityCompare(benchmark::State& state) { RunColumns(state, kQuantityExpr, true); }
void BM_KeptColumnsSemverIsGreaterThan(benchmark::State& state) { RunColumns(state, kSemverExpr, true); }
void BM_KeptColumnsConjunction(benchmark::State& state) { RunColumns(state, kConjunctionExpr, true); }

// The compile cache: looking up an expression compiled before.
void BM_CompileCached(benchmark::State& state) {
  const char* expression = "device.attributes[\"gpu.nvidia.com\"].type == \"gpu\"";
  (void)Env().Compile(expression);
  for (auto _ : state) benchmark::DoNotOptimize(Env().Compile(expression));
}

BENCHMARK(BM_Driver)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttributeStringEq)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttributeInList)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuantityCompare)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SemverIsGreaterThan)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Matches)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conjunction)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileCached);
#define DRA_COLUMNS(name) BENCHMARK(name)->Args({0, 8})->Args({1, 8})->Args({1, 128})->Unit(benchmark::kMillisecond)
DRA_COLUMNS(BM_ColumnsDriver);
DRA_COLUMNS(BM_ColumnsAttributeStringEq);
DRA_COLUMNS(BM_ColumnsAttributeInList);
DRA_COLUMNS(BM_ColumnsQuantityCompare);
DRA_COLUMNS(BM_ColumnsSemverIsGreaterThan);
DRA_COLUMNS(BM_ColumnsConjunction);
DRA_COLUMNS(BM_KeptColumnsDriver);
DRA_COLUMNS(BM_KeptColumnsAttributeStringEq);
DRA_COLUMNS(BM_KeptColumnsAttributeInList);
DRA_COLUMNS(BM_KeptColumnsQuantityCompare);
DRA_COLUMNS(BM_KeptColumnsSemverIsGreaterThan);
DRA_COLUMNS(BM_KeptColumnsConjunction);
BENCHMARK(BM_BuildColumns)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
#undef DRA_COLUMNS

}  // namespace
}  // namespace dra::bench

BENCHMARK_MAIN();
