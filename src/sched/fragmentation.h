// Fragmentation on DRA devices: how much of a node's device capacity the
// target workload (profile.h) cannot use, measured on what the allocator
// sees, and the packing policies that descend it (fgd, dra-pack). The one
// place both engines take it from: the scheduler (policy fgd / dra-pack) and
// `simulate openb --engine dra` (sim/dra_engine.h); src/sim's native model
// keeps its own arithmetic for speed and is tested equal to this one on the
// imported openb objects.
//
// Units. The capacity that can be fragmented is counted in units, each worth
// 1000 (milli-devices) when wholly free:
//   - a device that consumes no shared counters: free = 1000 when it is not
//     allocated; for a device allocated several times (allowMultipleAllocations,
//     DRAConsumableCapacity) 1000 x the smallest share left of its
//     capacities, rounded down;
//   - a counter set of a pool (a partitionable GPU, DRAPartitionableDevices),
//     with every device that consumes from it (its MIG placements): free =
//     1000 x the mean share left of its counters (alloc::FreeFraction).
// Only units of devices published for the node (slices with spec.nodeName)
// and matching the class of some typical request count; the rest is not
// capacity the workload wants.
//
// Fragmentation of node n against typical shape m (docs/fgd.md §5.1,
// generalised):
//   m asks for no devices, or the node lacks m's cpu, memory or a pod slot,
//   or some request of m cannot be served            -> G (every free unit)
//   otherwise                                         -> the free units that
//                                                        no request of m can use
// where request r (count k) can be served when at least k units have a
// device that matches r's class and selectors, tolerates its taints and has
// room for it now (not allocated; capacity left for r's consumption; counters
// left); an All request when every matching device has room. For a
// firstAvailable request the first subrequest that can be served counts.
// F(n) = sum over m of p_m x frag_m(n), in list order, in double. On openb's
// objects (one shareable `milli` capacity of 1000 per GPU) this is the
// paper's F, and sim/frag.h's NodeFrag.
//
// dra-pack: P(n) = F(n) + max(0, G(n) - rho x C(n)), C the node's free cpu in
// millicores and rho the milli-devices per millicore that the typical
// device-using shapes ask for (sum p_m g_m / sum p_m c_m).
//
// Thread safety: none; one DeviceModel per scheduling run or simulation.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/features.h"
#include "alloc/selector.h"
#include "api/resource.h"
#include "base/status.h"
#include "sched/policy.h"
#include "sched/profile.h"
#include "sched/resources.h"
#include "sched/snapshot.h"

namespace dra::sched {

// --- The arithmetic of FGD (docs/fgd.md §4.6), shared by both engines.

// 1 / (1 + e^-x).
double Sigmoid(double x);
// trunc(100 x sigmoid((now - after) / 1000)): FGD's score of a step that takes
// a node's fragmentation from `frag_now` to `frag_after`.
int64_t FgdStepScore(double frag_now, double frag_after);
// dra-pack's stranded capacity: max(0, free_milli - rho x cpu_free_milli).
double StrandedMilli(int64_t cpu_free_milli, int64_t free_milli, double rho);

// A pod as the model reads it: its cpu, memory and the requests of the
// claims it allocates (ShapeOf), compiled against the model's devices.
struct PodDemand {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  struct Request {
    size_t claim = 0;                // index into the claims given to Demand()
    std::vector<std::string> names;  // per alternative: "req" or "req/sub"
    std::vector<uint32_t> tables;    // per alternative: the model's request table
    std::vector<int64_t> counts;     // per alternative: count, 0 for All
  };
  std::vector<Request> requests;
  uint32_t key = 0;  // equal keys: equal demands (the score cache's key)
};

class DeviceModel {
 public:
  // The devices of `snapshot`'s slices published for its nodes (by
  // spec.nodeName; the newest generation of complete pools), with what its
  // allocated claims take and what its bound pods request. `profile` is read
  // here only; `selectors` and the snapshot's slices and classes are
  // borrowed for the model's life and must not change. A selector that fails
  // on a device counts as not matching it.
  static std::unique_ptr<DeviceModel> New(const Snapshot& snapshot, const WorkloadProfile* profile,
                                          alloc::SelectorEvaluator* selectors, const alloc::Features& features);
  ~DeviceModel();

  // A pod bound to node `node` (an index into the snapshot's nodes): its
  // cpu, memory and pod slot count from now on.
  void AddPod(size_t node, const Resources& requests);
  // The inverse of AddPod (a gang member's tentative placement undone).
  void RemovePod(size_t node, const Resources& requests);
  // The devices `allocation` takes (exclusive devices, consumed capacity,
  // counters). Results naming devices the model does not hold are ignored.
  void AddAllocation(const api::AllocationResult& allocation);
  // The inverse: the devices `allocation` took are free again (a claim
  // deallocated; explain's "if these were released").
  void ReleaseAllocation(const api::AllocationResult& allocation);

  size_t num_nodes() const;
  // G(n), F(n) and P(n) now.
  int64_t FreeMilli(size_t node) const;
  double Frag(size_t node);
  double Pack(size_t node);
  // Sum of F over nodes, and the typical-weighted free milli (docs/fgd.md §5.1's idle).
  double FragTotal();
  double IdleTotal();
  double rho() const { return rho_; }
  // Free cpu (millicores) of a node.
  int64_t FreeMilliCpu(size_t node) const;

  // Compiles a pod's demand: `requests` (PodRequests) and the specs of the
  // claims it allocates now.
  PodDemand Demand(const Resources& requests, std::span<const api::ResourceClaimSpec* const> claims);

  // FGD's (or dra-pack's) score of placing the pod on `node`: the step score
  // from the node's F (P) now to after the devices the policy would take
  // (Choose). Remembered per (node, demand key) until the node changes.
  int64_t Score(size_t node, const PodDemand& demand, Packing packing);
  // The devices the policy takes on `node`: for a request of one device, the
  // device whose taking scores best (the first in the driver's order among
  // equals; FGD's GPU choice for shared GPUs); for other requests the first
  // devices with room in the driver's order. As a preference for the
  // allocator (only an order: it still decides what fits). With
  // `leave_partitions`, requests the policy would serve from partitions
  // (devices of a counter set) get no preference: the allocator's
  // DeviceChoice orders them.
  alloc::DevicePreference Choose(size_t node, const PodDemand& demand, Packing packing, bool leave_partitions = false);
  // The milli-devices the pod would take on `node` (G now - G after the
  // first-fit choice), for scores that need the pod's device size.
  int64_t DemandMilli(size_t node, const PodDemand& demand);

 private:
  struct Impl;
  explicit DeviceModel(std::unique_ptr<Impl> impl);
  void Apply(const api::AllocationResult& allocation, bool take);
  std::unique_ptr<Impl> impl_;
  double rho_ = 0;
};

}  // namespace dra::sched
