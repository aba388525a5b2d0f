// General trace replay (issue #7, item 4): pods arrive at their creation time
// and run for (deletion_time - creation_time) once placed; a pod that fits no
// node waits in a pending queue and is tried again whenever capacity frees
// up. Metrics over time: GPU and CPU allocation, running and pending pods,
// fragmentation; per pod the wait from arrival to start.
//
// Placement is one scheduling cycle of the simulator (sim_scheduler.h) with any
// policy, on the native model (cluster.h), whose filter `simulate openb
// --check all` proves equal to the DRA allocator's on the imported objects.
//
// Event order at one instant t:
//   1. departures of running pods whose end time is <= t;
//   2. if anything departed, the pending queue in arrival order: each pod
//      that now fits a node freed in step 1 gets a full scheduling cycle
//      (no other node gained room since the pod last failed, so the result is
//      the same as retrying every pending pod on every node);
//   3. arrivals at t in (creation_time, name) order: one cycle each; a pod
//      that fits nowhere joins the end of the pending queue.
// Nothing is dropped: a pod never placed by the last event is reported as
// pending at the end. A pod without a deletion time runs to the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "sim/openb.h"
#include "sim/policies.h"

namespace dra::sim {

// The most samples a series may have (about 50 MB); more is an error.
inline constexpr size_t kMaxReplaySamples = 1'000'000;

struct ReplayOptions {
  Policy policy = Policy::kFgd;
  uint64_t seed = 42;       // node ranks (ties) and the random policy
  int64_t interval = 3600;  // seconds between samples of the series; > 0
  // Arrivals `speedup` times faster: a pod arrives at floor(creation_time /
  // speedup); run times stay. >= 1; raises the load by about that factor
  // (the openb traces record few pods over months: ~0.2% GPU load as is).
  double speedup = 1;
};

// The state right after all events at `time` (seconds since the trace start).
struct ReplaySample {
  int64_t time = 0;
  double gpu_allocation = 0;  // % of GPU milli in use
  double cpu_allocation = 0;  // % of CPU in use
  int64_t running = 0;
  int64_t pending = 0;
  double frag_amount = 0;  // sum of F over nodes, % of GPU capacity (docs/fgd.md §5)
};

struct ReplaySummary {
  int64_t pods = 0;     // in the trace
  int64_t started = 0;  // placed at some point
  int64_t started_on_arrival = 0;
  int64_t pending_at_end = 0;  // never placed
  int64_t finished = 0;        // started and departed by the last event
  int64_t peak_pending = 0;
  double peak_gpu_allocation = 0;  // %, after any instant
  int64_t start_time = 0;          // first arrival
  int64_t end_time = 0;            // last event
  // Waits (start - creation) of the started pods, seconds.
  double wait_mean = 0;
  int64_t wait_p50 = 0;
  int64_t wait_p95 = 0;
  int64_t wait_max = 0;
  // Averages over [start_time, end_time], weighted by time, %.
  double gpu_allocation_mean = 0;
  double cpu_allocation_mean = 0;
  int64_t gpu_capacity = 0;  // milli
  int64_t cpu_capacity = 0;  // milli
};

struct ReplayResult {
  ReplaySummary summary;
  // At start_time, every `interval` seconds after it, and at end_time.
  std::vector<ReplaySample> series;
};

// All nodes take part (CPU-only ones too). kInvalidArgument for nodes the
// model cannot hold (cluster.h), a non-positive interval, a speedup below 1,
// or a series longer than kMaxReplaySamples.
StatusOr<ReplayResult> Replay(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                              const ReplayOptions& options);

}  // namespace dra::sim
