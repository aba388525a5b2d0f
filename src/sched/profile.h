// The target workload of the packing policies (fgd, dra-pack): the "typical
// pods" against which a node's fragmentation is measured (docs/fgd.md §5.2,
// generalised from openb's (cpu, milli, count, gpu_spec) to DRA claims).
//
// A pod's shape is its cpu and memory requests plus the device requests of
// the claims it would allocate, as the allocator reads them (class,
// selectors, count or All, capacity requests, tolerations). Equal shapes (the
// same canonical key) are counted together; the typical list is the most
// common shapes, taken until they cover 95% of the pods, each weighted by its
// share of the pods taken (§5.2 steps 1-4). Ties between equal counts: larger
// cpu first, then larger memory, then the larger key.
//
// Where a profile comes from (WorkloadProfile::source says which):
//   - the pending pods of the input (the default of schedule, explain,
//     simulate cluster and serve): ShapesOfPods;
//   - `--workload-profile FILE…`: pods, workloads and claim templates read
//     from manifests, or an openb pod CSV (sim/ converts it);
//   - the native simulator's typical list (sim/dra_engine.h), so that both
//     engines of `simulate openb` weigh the same shapes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/resource.h"
#include "sched/snapshot.h"

namespace dra::sched {

inline constexpr int64_t kTypicalCoverPercent = 95;

// One device request (or one subrequest of a firstAvailable list) of a shape.
struct ShapeRequest {
  std::string device_class;
  std::vector<std::string> selectors;  // the request's own CEL selectors
  bool all = false;                    // allocationMode All
  int64_t count = 1;                   // ExactCount
  std::optional<api::CapacityRequirements> capacity;
  std::vector<api::DeviceToleration> tolerations;

  // Canonical text: equal texts allocate alike.
  std::string Key() const;
};

// A request of a claim: one alternative for `exactly`, the subrequests in
// order for `firstAvailable` (the first one a node can serve is taken).
struct ShapeClaimRequest {
  std::vector<ShapeRequest> alternatives;
};

struct WorkloadShape {
  int64_t milli_cpu = 0;
  int64_t memory = 0;  // bytes
  // Every device request of every claim the pod allocates, in pod order.
  // Admin-access requests take nothing and are left out.
  std::vector<ShapeClaimRequest> requests;
  std::string key;    // canonical text of all of the above
  int64_t pods = 0;   // pods of this shape in the source
  double weight = 0;  // p_m: pods / pods covered by the typical list

  bool cpu_only() const { return requests.empty(); }
};

// The shape of a pod with these cpu and memory requests and these claims to
// allocate (key included; pods = 1).
WorkloadShape ShapeOf(int64_t milli_cpu, int64_t memory, std::span<const api::ResourceClaimSpec* const> claims);

struct WorkloadProfile {
  std::vector<WorkloadShape> shapes;  // the typical list, most common first
  int64_t distinct_shapes = 0;
  int64_t covered_pods = 0;
  int64_t total_pods = 0;
  std::string source;  // where the pods came from, for messages

  bool empty() const { return shapes.empty(); }
  // "pending pods: 11 pods, 2 shapes, 2 typical covering 100.0%".
  std::string Describe() const;
};

// §5.2 steps 3-4, for both engines' lists: moves shapes of `all` (most
// common first; T has `pods` and `weight`) into `typical` one at a time until
// they cover `cover_percent`% of `total` pods, sets each weight to its share
// of the pods taken, and returns that number.
template <typename T>
int64_t TakeTypical(std::vector<T>& all, int64_t total, int64_t cover_percent, std::vector<T>* typical) {
  int64_t cum = 0;
  for (T& t : all) {
    // An integer test of cum / total >= cover_percent / 100.
    if (total > 0 && cum * 100 >= cover_percent * total) break;
    cum += t.pods;
    typical->push_back(std::move(t));
  }
  for (T& t : *typical) t.weight = static_cast<double>(t.pods) / static_cast<double>(cum);
  return cum;
}

// Counts the shapes of `pods` (one entry per pod, pods ignored) by key and
// keeps the most common until they cover `cover_percent`% of them.
WorkloadProfile BuildProfile(std::span<const WorkloadShape> pods, std::string source,
                             int64_t cover_percent = kTypicalCoverPercent);

// A typical list already chosen and ordered (the native simulator's): the
// weights are pods / the sum of pods, nothing is dropped.
WorkloadProfile ProfileFromTypical(std::vector<WorkloadShape> typical, int64_t distinct_shapes, int64_t total_pods,
                                   std::string source);

// The shapes of the snapshot's pods at `pod_indices`: PodRequests' cpu and
// memory, and the claims each would allocate: a template's spec (looked up in
// the pod's namespace) or an existing claim that is not allocated yet.
// Entries whose template or claim is missing are left out of the shape.
std::vector<WorkloadShape> ShapesOfPods(const Snapshot& snapshot, std::span<const size_t> pod_indices);

// The profile of the pods a live scheduler (`dractl serve`) has seen lately:
// each pod counts once (by UID) from the time it was first seen pending,
// weighted 2^(-age / half_life) and forgotten once older than `window`. A seed
// profile (--workload-profile) counts as its pods seen at `start`, so it
// fades as the cluster's own pods take over. The typical list is cut at 95%
// of the decayed weight, as BuildProfile cuts at 95% of the pods.
// Not thread-safe.
class ProfileWindow {
 public:
  ProfileWindow(double window_seconds, double half_life_seconds, const WorkloadProfile* seed, double start);

  // Pod `uid` of `shape`, seen at `now` (seconds on any clock the caller
  // keeps); a UID seen before is ignored.
  void Observe(const std::string& uid, const WorkloadShape& shape, double now);
  // The profile at `now` (drops what is older than the window). Empty when
  // nothing was seen and there is no seed.
  WorkloadProfile Profile(double now);
  size_t size() const { return seen_.size(); }

 private:
  struct Seen {
    double time = 0;
    double pods = 1;
    size_t shape = 0;  // index into shapes_
  };
  double window_;
  double half_life_;
  std::vector<WorkloadShape> shapes_;  // distinct, by key
  std::map<std::string, size_t, std::less<>> shape_index_;
  std::vector<Seen> seen_;                           // in time order
  std::map<std::string, double, std::less<>> uids_;  // uid -> time seen
  size_t Intern(const WorkloadShape& shape);
};

}  // namespace dra::sched
