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
//
// TimelineActors change the cluster as the replay goes: the device-taint
// eviction controller (taint_eviction.h), fault injection (faults.h), the
// autoscaler (plan/autoscale.h). After each scheduling run each sees the
// pending pods and may add nodes, remove nodes (their pods are evicted:
// pending again, their claims released, each keeps the run time it had
// left), add or remove DeviceTaintRules, evict pods, and ask to be called at
// later instants; when one changed anything, the pending pods get another
// scheduling run at the same instant and all are called again.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
  int64_t time = 0;                // seconds since the epoch
  double device_allocation = 0;    // % of the devices in use
  double cpu_allocation = 0;       // % of allocatable CPU requested by running pods
  int64_t running = 0;             // workload pods placed and not departed
  int64_t pending = 0;             // workload pods arrived and not placed
  double stranded_devices = 0;     // % of the devices: free, on nodes no workload pod fits
  double tainted_devices = 0;      // % of the devices with a NoSchedule or NoExecute taint (slice or rule)
  int64_t pending_for_taints = 0;  // pending pods a run would place were no device tainted
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
  int64_t devices = 0;                  // at the start
  int64_t evictions = 0;                // pods evicted (node removals, device taints; the cluster's own pods too)
  int64_t restarts = 0;                 // evicted pods that ran again
  int64_t seconds_lost = 0;             // over evictions: from the eviction to running again (or to the end)
  double device_hours_tainted = 0;      // devices with a NoSchedule or NoExecute taint, times hours
  int64_t peak_pending_for_taints = 0;  // the most pods pending only because of taints at once
};

struct TimelinePod {
  std::string pod;  // "namespace/name"
  int64_t arrival = 0;
  std::optional<int64_t> start;
  std::optional<int64_t> end;  // departed at
  std::string node;
  std::string last_message;     // why it was pending when last tried
  int64_t evictions = 0;        // times it was evicted (its node removed, a device tainted)
  int64_t seconds_lost = 0;     // from each eviction to running again (or to the end)
  bool pending_at_end = false;  // not running when the replay ended (never started, or evicted)
  bool gone = false;            // evicted and not to come back (no controller)
};

// What a TimelineActor sees of the replay at one instant and may do to it.
class TimelineControl {
 public:
  virtual ~TimelineControl() = default;
  virtual int64_t now() const = 0;
  virtual const Snapshot& cluster() const = 0;
  // Workload pods arrived and not running: ("namespace/name", pending since:
  // the arrival, or the eviction), in arrival order.
  virtual const std::vector<std::pair<std::string, int64_t>>& pending() const = 0;
  // Adds a node and its slices (a node of that name must not exist).
  virtual Status AddNode(api::Node node, std::vector<api::ResourceSlice> slices) = 0;
  // Removes a node and the slices on it; its pods are evicted.
  virtual Status RemoveNode(std::string_view name) = 0;
  // Evicts the running pod "namespace/name": it keeps its devices for
  // `grace` seconds, then stops (its claims released). With `restart` it
  // comes back then as its controller's new pod (pending, to run its whole
  // time again); without, it is gone. A pod that ends by itself within the
  // grace just ends; a pod being evicted already is left as it is. The grace
  // is at least a second. A pod of the cluster (not of the workload) is
  // deleted at once and not made again.
  virtual Status EvictPod(std::string_view pod, int64_t grace, bool restart) = 0;
  // True while the pod is being evicted (within its grace).
  virtual bool Evicting(std::string_view pod) const = 0;
  // Adds a DeviceTaintRule (its name must be new) or removes one by name.
  virtual Status AddTaintRule(api::DeviceTaintRule rule) = 0;
  virtual Status RemoveTaintRule(std::string_view name) = 0;
  // Calls the actor again at `time` (ignored unless after now()).
  virtual void WakeAt(int64_t time) = 0;
};

class TimelineActor {
 public:
  virtual ~TimelineActor() = default;
  // After each scheduling run. Changing the nodes brings another run.
  virtual Status AfterRun(TimelineControl& control) = 0;
};

struct TimelineResult {
  TimelineSummary summary;
  std::vector<TimelineSample> samples;  // one per instant with events
  std::vector<TimelinePod> pods;        // in arrival order
};

// Replays `workload` pods on `cluster` (whose pods are the cluster's own).
// kInvalidArgument for a workload pod without a creation time, with a
// deletion time not after it, bound already, or named like another pod.
// `actors` are called after every scheduling run, in order (borrowed).
StatusOr<TimelineResult> ReplayWorkload(Snapshot cluster, std::vector<api::Pod> workload,
                                        const ScheduleOptions& options, std::span<TimelineActor* const> actors = {});

}  // namespace dra::sched
