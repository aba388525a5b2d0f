// Device failures injected into a replay (`dractl simulate cluster --faults
// FILE`, `--fault-rate`): each fault taints devices from one time to another
// as a DeviceTaintRule would (the scheduler stops allocating them for
// NoSchedule and NoExecute; the eviction controller of taint_eviction.h
// evicts their pods for NoExecute). A fault file, a format of our own:
//
//   apiVersion: dractl.io/v1alpha1
//   kind: Faults
//   faults:
//   - at: "2026-12-02T10:00:00Z"          # RFC 3339, UTC
//     node: hgx-h200-07                   # every device of the node's slices, or
//     device: {driver: gpu.nvidia.com, pool: hgx-h200-07, device: gpu-3}
//     taint: {key: gpu.nvidia.com/xid, value: "79", effect: NoExecute}
//     for: 2h                             # cleared then (90, 10s, 3m, 1h30m); absent: never
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "manifest/loader.h"
#include "sched/snapshot.h"
#include "sched/timeline.h"

namespace dra::sched {

inline constexpr std::string_view kFaultsApiVersion = "dractl.io/v1alpha1";

struct Fault {
  int64_t at = 0;                                   // seconds since the epoch
  std::optional<int64_t> until{};                   // cleared then; nullopt: never
  std::string node{};                               // every device of its slices, or
  std::vector<api::DeviceTaintSelector> devices{};  // the devices these select
  api::DeviceTaint taint{};                         // key, value, effect (timeAdded is `at`)
  std::string origin{};                             // "file:line", or "random"
};

// A duration in seconds: "90" (seconds), or numbers with units h, m, s in
// any sequence ("10s", "3m", "1h30m"); nullopt for anything else.
std::optional<int64_t> ParseDurationSeconds(std::string_view text);

// Reads the fault documents of `text` (YAML or JSON; `file` names it in
// messages) into `faults`; every problem joins `messages` at its line and
// field path.
void ParseFaults(std::string_view text, const std::string& file, std::vector<Fault>* faults,
                 std::vector<manifest::LoadMessage>* messages);

// Random failures: each physical device (a device consuming no counters, or
// a counter set with every device consuming from it, such as a MIG-capable
// GPU) of `driver` ("": any) on a node fails at `per_device_hour`, as a
// Poisson process over [start, end), and is repaired `repair_seconds` later,
// or with `exponential_repair` after a time drawn from an exponential
// distribution of that mean, at least a second (it cannot fail while in
// repair). The taint is dractl.io/fault:NoExecute.
// Each physical device draws from its own stream of the seed (named by
// driver, pool and device or counter set), so the same seed gives the same
// faults whatever else the cluster holds.
struct FaultRate {
  double per_device_hour = 0;
  int64_t repair_seconds = 4 * 3600;
  bool exponential_repair = false;
  uint64_t seed = 1;
  std::string driver{};
};
std::vector<Fault> RandomFaults(const Snapshot& cluster, const FaultRate& rate, int64_t start, int64_t end);

// "0.001" (per device and hour), "1%/day", "2/day", "0.5%/h": a rate per
// device and hour; nullopt if it is not one (or negative).
std::optional<double> ParseFaultRate(std::string_view text);

// A fault as it happened in the replay.
struct FaultEvent {
  int64_t time = 0;
  bool set = true;       // false: cleared
  std::string target{};  // "node N" or "device driver/pool/device"
  std::string taint{};   // "key=value:Effect"
  std::string origin{};
};

// Sets and clears `faults` as the replay reaches their times; with a rate,
// also the random failures of every physical device from when it is first
// seen (nodes the autoscaler adds included) to `end`. A fault on devices
// that are gone by its time (their node removed) does nothing.
class FaultInjector final : public TimelineActor {
 public:
  explicit FaultInjector(std::vector<Fault> faults, std::optional<FaultRate> rate = std::nullopt, int64_t end = 0)
      : faults_(std::move(faults)), rate_(std::move(rate)), end_(end) {}
  Status AfterRun(TimelineControl& control) override;
  const std::vector<FaultEvent>& events() const { return events_; }

 private:
  struct State {
    bool set = false, cleared = false;
    std::vector<std::string> rules{};  // the rules it added
  };
  std::vector<Fault> faults_;
  std::vector<State> state_{};
  std::optional<FaultRate> rate_;
  int64_t end_;
  std::set<std::string> units_seen_{};
  std::vector<FaultEvent> events_;
};

}  // namespace dra::sched
