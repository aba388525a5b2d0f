// A workload replayed over time on a cluster of DRA objects (issue #7, item
// 4: `dractl simulate cluster -f CLUSTER --workload PODS`). The same
// scheduler as `dractl schedule` (Schedule, with its policy and device
// choice), driven by events:
//   - a workload pod arrives at its metadata.creationTimestamp and, once
//     placed, runs for deletionTimestamp - creationTimestamp (to the end
//     without a deletionTimestamp), as a trace records it (and as `dractl
//     simulate replay` runs the openb traces);
//   - at each instant: departures first (the pod ends; each claim it reserved
//     drops it from reservedFor and, reserved by no one, is deallocated, as
//     the resource-claim controller does), then arrivals, then one
//     scheduling run over every pending pod in queue order (priority, then
//     creation time), so pods that did not fit are retried whenever anything
//     changed;
//   - after each instant a sample: devices and CPU allocated, pods running
//     and pending, and stranded devices (free devices on nodes where no
//     workload pod could start for lack of CPU, memory or pod slots).
// The cluster's own pods (bound, with allocated claims) are in-use state
// from the start. Nothing is dropped: pods never placed are counted as
// pending at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "base/status.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::sched {

// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 time in UTC as the API
// server writes it ("2026-01-02T03:04:05Z", fractional seconds allowed and
// dropped); nullopt if it is not one.
std::optional<int64_t> ParseUtcSeconds(std::string_view text);
// The inverse: "2026-01-02T03:04:05Z".
std::string FormatUtcSeconds(int64_t seconds);

struct TimelineSample {
  int64_t time = 0;                 // seconds since the epoch
  double device_allocation = 0;     // % of the devices in use
  double cpu_allocation = 0;        // % of allocatable CPU requested by running pods
  int64_t running = 0;              // workload pods placed and not departed
  int64_t pending = 0;              // workload pods arrived and not placed
  double stranded_devices = 0;      // % of the devices: free, on nodes no workload pod fits
};

struct TimelineSummary {
  int64_t pods = 0;
  int64_t started = 0;
  int64_t started_on_arrival = 0;
  int64_t pending_at_end = 0;
  int64_t finished = 0;
  int64_t peak_pending = 0;
  int64_t start_time = 0;  // first arrival
  int64_t end_time = 0;    // last event
  double wait_mean = 0;    // seconds from arrival to start, started pods
  int64_t wait_p50 = 0;
  int64_t wait_p95 = 0;
  int64_t wait_max = 0;
  // Time-weighted over [start_time, end_time], %.
  double device_allocation_mean = 0;
  double cpu_allocation_mean = 0;
  double stranded_devices_mean = 0;
  double peak_device_allocation = 0;
  int64_t devices = 0;
};

struct TimelinePod {
  std::string pod;  // "namespace/name"
  int64_t arrival = 0;
  std::optional<int64_t> start;
  std::optional<int64_t> end;  // departed at
  std::string node;
  std::string last_message;    // why it was pending when last tried
};

struct TimelineResult {
  TimelineSummary summary;
  std::vector<TimelineSample> samples;  // one per instant with events
  std::vector<TimelinePod> pods;        // in arrival order
};

// Replays `workload` pods on `cluster` (whose pods are the cluster's own).
// kInvalidArgument for a workload pod without a creation time, with a
// deletion time not after it, bound already, or named like another pod.
StatusOr<TimelineResult> ReplayWorkload(Snapshot cluster, std::vector<api::Pod> workload,
                                        const ScheduleOptions& options);

}  // namespace dra::sched
