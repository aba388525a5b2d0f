// Loading a `kubectl get resourceslices -o json` dump of 5,000 nodes x 8 GPUs:
// time (parse + decode) and the memory the decoded objects keep per device.
//
// Memory is glibc's in-use heap (mallinfo2().uordblks) after loading minus
// before, with the input text already freed: what a long-lived snapshot costs.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include "bench/slice_dump.h"
#include "manifest/json_parser.h"
#include "manifest/loader.h"

namespace dra::bench {
namespace {

size_t HeapInUse() { return mallinfo2().uordblks; }

void LoadDump(benchmark::State& state, DumpFormat format) {
  const int nodes = static_cast<int>(state.range(0));
  const int gpus = 8;
  std::string dump = GenerateSliceDump(nodes, gpus, format);
  manifest::Loader loader({});
  double kept_per_device = 0;
  for (auto _ : state) {
    size_t before = HeapInUse();
    auto result = std::make_unique<manifest::LoadResult>();
    loader.LoadText(dump, "dump", result.get());
    size_t after = HeapInUse();
    if (result->objects.size() != static_cast<size_t>(nodes) || result->error_count() != 0) {
      state.SkipWithError("dump did not load cleanly");
      break;
    }
    kept_per_device = static_cast<double>(after - before) / (nodes * gpus);
    state.PauseTiming();
    result.reset();
    state.ResumeTiming();
  }
  state.counters["devices"] = nodes * gpus;
  state.counters["MB"] = static_cast<double>(dump.size()) / 1e6;
  state.counters["bytes_per_device"] = kept_per_device;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(dump.size()));
}

// The parse step alone (text -> Node trees), to see where loading time goes.
void BM_ParseSliceDumpJson(benchmark::State& state) {
  std::string dump = GenerateSliceDump(static_cast<int>(state.range(0)), 8, DumpFormat::kJson);
  for (auto _ : state) {
    auto docs = manifest::ParseJson(dump, "dump");
    if (!docs.ok()) {
      state.SkipWithError("parse failed");
      break;
    }
    benchmark::DoNotOptimize(docs);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(dump.size()));
}
BENCHMARK(BM_ParseSliceDumpJson)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LoadSliceDumpJson(benchmark::State& state) { LoadDump(state, DumpFormat::kJson); }
void BM_LoadSliceDumpYaml(benchmark::State& state) { LoadDump(state, DumpFormat::kYaml); }

BENCHMARK(BM_LoadSliceDumpJson)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadSliceDumpYaml)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace dra::bench

BENCHMARK_MAIN();
