// `dractl serve`: a secondary scheduler on a real API server (what it does
// with the API server: src/kube/README.md). Pods with spec.schedulerName ==
// the scheduler name get their claims allocated and are bound, as
// kube-scheduler's DynamicResources plugin would do it.
//
// Threads: one reflector per collection (reflector.h) feeds a queue; one
// scheduling thread owns the cache (cache.h) and plans. Because that thread
// alone plans, counting every placement of a round before the next, on a cache
// that already holds every write dractl made (the assume layer), no two pods
// get one device (src/kube/README.md §4.1) — there is no in-flight state to
// get wrong.
//
// A planning round: snapshot of the cache (bound pods + our pending pods; pods
// of other schedulers that are pending are left out), sched::Schedule on it
// (queue order: priority, creation time), then for each placed pod the API
// writes of src/kube/README.md §3.2-3.3 — finalizer (update), allocation +
// reservedFor (status update with the resourceVersion, retried on 409 with a
// fresh GET), binding; the pods of a round touch different claims, so their
// writes run on workers at once, and the answers are assumed into the cache
// on the scheduling thread afterwards. For each pod that does not fit:
// PodScheduled=False with the "0/N nodes are available: ..." message and a
// FailedScheduling event (only when the message changed). When a write fails,
// the claims already reserved for that pod are unreserved
// (src/kube/README.md §3.5) and the next round plans it again on fresh state.
// Rounds run whenever the cache changes.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/features.h"
#include "base/status.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "kube/events.h"
#include "kube/metrics.h"
#include "kube/reflector.h"
#include "sched/policy.h"
#include "sched/profile.h"
#include "sched/scheduler.h"

namespace dra::kube {

struct ServeOptions {
  std::string scheduler_name = "dractl";
  api::FeatureGates gates = api::FeatureGates::Defaults();
  const sched::ScorePolicy* policy = nullptr;  // required; borrowed
  alloc::DeviceChoice device_choice = alloc::DeviceChoice::kFirstFit;
  uint64_t seed = 0;
  // Pod groups: a group's members are bound only when the whole group is
  // placed (sched::Schedule leaves a failed group's members unplaced).
  sched::GangOptions gang{};
  // fgd, dra-pack: the workload is the pods seen pending lately
  // (sched::ProfileWindow: each pod once, weighted 2^(-age / half-life),
  // forgotten after the window), seeded with `workload_profile` when given
  // (borrowed).
  const sched::WorkloadProfile* workload_profile = nullptr;
  double profile_window_seconds = 3600;
  double profile_half_life_seconds = 600;
  // Create claims from templates and record them in the pod status, as the
  // resource-claim controller does (src/kube/README.md §2.1), for clusters
  // without kube-controller-manager. Off: pods wait for the controller.
  bool manage_claims = false;
  // Identity in events (reportingInstance) and logs.
  std::string instance = "dractl";
  int watch_timeout_seconds = 300;
  // How long a pod waits for the binding conditions of its devices, from
  // each claim's allocationTimestamp (upstream's bindingTimeout).
  std::chrono::seconds binding_timeout{600};
  // Tests only: wait this long between planning a pod and writing its claims
  // (after --manage-claims created them), announcing it in the log, so that a
  // test can write to the API server in between (src/kube/README.md §9.4-9.6).
  std::chrono::milliseconds write_delay{0};
  // One line per decision and per problem; must be thread-safe.
  std::function<void(std::string_view)> log;
};

class Server {
 public:
  Server(Client* client, ServeOptions options);
  ~Server();

  // Starts the reflectors and runs the scheduling loop until Stop().
  void Run();
  // Asks Run() to return (any thread); writes in progress finish first.
  void Stop();

  // Plans and writes only while leading (default true); the reflectors and
  // the cache run either way. Any thread.
  void SetLeading(bool leading) { leading_.store(leading); }

  // True once every collection was listed (for /readyz).
  bool ready() const { return ready_.load(); }
  Metrics& metrics() { return metrics_; }

 private:
  // One placed pod's writes, prepared on the planning thread (which alone
  // touches the cache), executed on a worker, and its answers assumed back
  // on the planning thread.
  struct PodWrite {
    struct Claim {
      std::string key;                           // "ns/name"
      api::ResourceClaim planned;                // with the planned allocation
      std::optional<api::ResourceClaim> cached;  // as the cache had it
      bool allocate = false;                     // false: only reserve
    };
    std::string pod_key;
    std::string node;
    api::Pod pod;                            // as planned (resourceClaimStatuses of --manage-claims)
    api::Pod cached_pod;                     // as the cache had it
    std::vector<api::ResourceClaim> create;  // --manage-claims: claims to create first
    std::vector<Claim> claims;
    std::string devices;  // for the log
    // Results.
    bool ok = false;
    // The claims are written, but devices have binding conditions: the
    // Binding waits for them (binding_waits_).
    bool wait_binding = false;
    std::vector<api::Object> assumed;  // the API server's answers, and the bound pod
  };

  // A pod whose claims are written and whose allocated devices have binding
  // conditions (src/kube/README.md §3.4; upstream: DynamicResources.PreBind in
  // k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go):
  // bound once the drivers report every condition True in the claims'
  // status.devices; a failure condition or the timeout deallocates its claims
  // instead, and the pod is planned again.
  struct BindingWait {
    api::Pod pod;
    std::string node;
    std::vector<std::string> claims;     // "ns/name" of every claim of the pod
    std::vector<std::string> allocated;  // those this attempt allocated
    std::string devices;                 // for the log
    std::chrono::steady_clock::time_point start;
    std::chrono::system_clock::time_point deadline;
  };

  struct Round {
    int64_t placed = 0;
    int64_t unschedulable = 0;
    int64_t deferred = 0;  // placed, but their writes depend on this round's: next round
  };

  void Enqueue(ReflectorBatch batch);
  // One planning round: the phases below, in order.
  Round Plan();
  // The round's objects: everything but pending pods of other schedulers,
  // pods being deleted or waiting for binding conditions, and pods whose
  // template claims are not recorded yet (counted in `gated`).
  std::vector<const api::Object*> RoundObjects(int64_t* gated) const;
  // fgd, dra-pack: observes the pending pods in the profile window and
  // returns its profile, written to `profile`; nullptr for other policies.
  const sched::WorkloadProfile* ObservePending(const sched::Snapshot& snapshot, sched::WorkloadProfile* profile);
  // A placed pod's writes: the claims the round created for it (`created`,
  // indexes into snapshot.claims) and its claims' allocations or
  // reservations; adds the claims it allocates to `allocated_now`.
  PodWrite PrepareWrite(const sched::PodOutcome& outcome, const api::Pod& pod, const sched::Snapshot& snapshot,
                        const std::vector<size_t>& created, std::set<std::string>* allocated_now) const;
  // A pod that does not fit: creates and records its template claims
  // (`created`), and reports it unschedulable when its message changed.
  void ReportUnplaced(const sched::PodOutcome& outcome, const api::Pod& pod, const sched::Snapshot& snapshot,
                      const std::vector<size_t>& created);
  // Runs Execute on every write, up to kMaxParallelWrites at once.
  void ExecuteWrites(std::vector<PodWrite>* writes);
  // Assumes the writes' answers into the cache, turns the pods waiting for
  // binding conditions into binding_waits_, and counts the rest; returns the
  // pods placed.
  int64_t FinishWrites(std::vector<PodWrite>* writes, std::chrono::steady_clock::time_point start);
  // Forgets the per-pod records of pods neither in the round (`pod_index`)
  // nor waiting for binding.
  void ForgetGone(const std::map<std::string, size_t>& pod_index);
  // fgd, dra-pack: the pods seen pending lately (ServeOptions), made on the
  // first round.
  std::optional<sched::ProfileWindow> profile_window_;
  std::chrono::steady_clock::time_point profile_start_{};
  void Execute(PodWrite* write);
  StatusOr<api::ResourceClaim> WriteClaim(const PodWrite::Claim& claim, const api::Pod& pod,
                                          std::vector<api::Object>* assumed);
  void UpdatePodGroupCondition(const sched::GroupOutcome& outcome);
  // --manage-claims with DRAWorkloadResourceClaims: before a round is
  // planned, for each PodGroup with pods of ours, creates the claims of its
  // template entries and records them in the group's and then the members'
  // status.resourceClaimStatuses, as the resource-claim controller does
  // (src/kube/README.md §2.3; podgroup_claims.h). A group whose writes fail
  // is tried again after a backoff (1 s, doubling up to 60 s).
  void ManagePodGroupClaims();
  Status EnsurePodGroupClaims(const api::PodGroup& group, const std::vector<std::string>& member_keys);
  // Whether a template claim of `pod` that is its PodGroup's is not recorded
  // in its status yet (the pod then waits, counted as gated).
  bool WaitingForGroupClaims(const api::Pod& pod) const;
  // Whether a group's backoff has run out (a round is due without a change).
  bool PodGroupClaimRetryDue() const;
  void Unreserve(const PodWrite::Claim& claim, const std::string& uid, const api::Pod& pod,
                 std::vector<api::Object>* assumed);
  Status Bind(const api::Pod& pod, const std::string& node);
  Status CreateClaim(const api::ResourceClaim& claim, std::vector<api::Object>* assumed);
  // Upstream's Unreserve for the special claim of extended resources that
  // this attempt created: drops the delete-protection finalizer (GET, PUT)
  // and deletes it, so that the next attempt starts anew. Best effort
  // (logged).
  void DeleteCreatedClaim(const api::ResourceClaim& claim);
  Status RecordPodClaims(const api::Pod& pod, std::vector<api::Object>* assumed);
  void ReportUnschedulable(const api::Pod& pod, const std::string& message, bool error,
                           std::vector<api::Object>* assumed);
  // Records an event about `pod` through events_: creates it, adds its
  // series, or only counts (events.h).
  void PostEvent(const api::Pod& pod, std::string_view type, std::string_view reason, std::string_view action,
                 std::string_view note);
  // Creates `e`, or (series) patches its series in, creating it with the
  // series if it is gone. Best effort (logged).
  void WriteEvent(const EventSeries::Event& e, bool series);
  // Once a minute: writes the final counts of ended series; every 30
  // minutes: the counts of ongoing ones (events.h). Planning thread.
  void MaintainEvents();
  // Whether binding conditions are in play (both gates on).
  bool BindingConditionsEnabled() const;
  // Binds the waiting pods whose conditions are met; fails the others that
  // cannot be met any more (planning thread).
  void CheckBindingWaits();
  // Takes `claim_key` back from `pod`, whose binding failed: `pod` leaves
  // reservedFor; if no one else reserves the claim, its allocation and device
  // status go too. Written to /status with the resourceVersion. Best effort
  // (logged).
  void Deallocate(const std::string& claim_key, const api::Pod& pod, std::vector<api::Object>* assumed);
  void Log(std::string_view line);

  Client* client_;
  ServeOptions options_;
  Metrics metrics_;
  ClusterCache cache_;  // owned by the scheduling thread

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<ReflectorBatch> queue_;  // guarded by mu_
  bool stop_ = false;                 // guarded by mu_
  std::atomic<bool> ready_{false};
  std::atomic<bool> leading_{true};
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::vector<std::thread> threads_;

  uint64_t planned_generation_ = UINT64_MAX;
  // Pods whose PodScheduled=False message we last wrote: key -> message.
  std::map<std::string, std::string> reported_;
  // First time each pending pod was seen (for the SLI metric).
  std::map<std::string, std::chrono::steady_clock::time_point> first_seen_;
  std::map<std::string, int> attempts_;
  std::map<std::string, BindingWait> binding_waits_;  // by pod key; planning thread
  struct Backoff {
    std::chrono::steady_clock::time_point next;
    std::chrono::seconds delay;
  };
  std::map<std::string, Backoff> podgroup_claims_backoff_;  // by PodGroup key; planning thread
  EventSeries events_;                                      // FailedScheduling and Scheduled events (any thread)
  std::chrono::system_clock::time_point last_events_finish_ = std::chrono::system_clock::now();
  std::chrono::system_clock::time_point last_events_refresh_ = std::chrono::system_clock::now();
};

}  // namespace dra::kube
