// Scoring policies: how the scheduler ranks the nodes a pod fits on. A policy
// is a small stateless class; Schedule() asks it for one score per feasible
// node and takes the highest (ties: scheduler.h). New policies implement
// ScorePolicy and are added to NewPolicy.
//
//   kube     kube-scheduler's default scoring, limited to what dractl models:
//            3 TaintToleration (PreferNoSchedule taints) + 2 NodeAffinity
//            (preferred terms) + NodeResourcesFit (LeastAllocated, cpu and
//            memory, weight 1 each) + NodeResourcesBalancedAllocation (cpu,
//            memory) + 2 DynamicResources (prioritized-list score,
//            README.md §4.6): 1.37's default weights, each plugin 0-100.
//   binpack  MostAllocated over cpu, memory and devices (equal weights; the
//            device term only on nodes with devices): fills nodes first.
//   best-fit the node the pod leaves with the least free: fewest devices left
//            free first (a count, not a fraction, so a CPU-only pod keeps off
//            nodes with free devices and a 1-device pod takes the last free
//            device of a node before it opens a fresh one), then the least
//            cpu and memory left (mean of the free fractions).
//   fgd      the FGD paper's policy on DRA devices (fragmentation.h): the node
//            whose fragmentation against the workload profile (profile.h)
//            grows least when the pod lands there, trunc(100 sigmoid((F now -
//            F after) / 1000)); inside the node, the device whose taking
//            scores best.
//   dra-pack fgd on P = F + the free device capacity the node's free cpu
//            cannot feed at the workload's ratio (fragmentation.h): ours.
// fgd and dra-pack score on the scheduler's DeviceModel, not through Score().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "base/status.h"
#include "sched/resources.h"

namespace dra::sched {

inline constexpr int64_t kMaxNodeScore = 100;

// Resources with nothing in them: what a NodeState points to by default.
inline const Resources kNoResources{};

// A node as the scorer sees it before the pod is placed. The resources are
// the caller's (the scheduler's per-node figures), pointed to: the scheduler
// makes a NodeState for every feasible node of every pod.
struct NodeState {
  const api::Node* node = nullptr;
  const Resources* allocatable = &kNoResources;
  const Resources* requested = &kNoResources;           // PodRequests of the pods on the node
  const Resources* non_zero_requested = &kNoResources;  // PodRequests(non_zero) of the pods on the node
  int64_t devices = 0;                                  // devices of the pools usable on the node
  int64_t devices_in_use = 0;                           // of those, allocated to some claim
  // With a DeviceModel (ScorePolicy::uses_device_model): the node's free
  // device capacity in milli-devices (fragmentation.h's G); else 0.
  int64_t free_device_milli = 0;
};

// What placing the pod on the node takes.
struct PodFit {
  Resources requests{};           // PodRequests(pod)
  Resources non_zero_requests{};  // PodRequests(pod, non_zero)
  int64_t devices_taken = 0;      // devices of the node the pod's new allocations take
  // DynamicResources' raw score on this node (README.md §4.6) and the highest raw score
  // over all feasible nodes for this pod (for NormalizeScore).
  int64_t dra_raw_score = 0;
  int64_t dra_max_raw_score = 0;
  // With a DeviceModel: the milli-devices the pod's new allocations take on
  // this node (DeviceModel::DemandMilli); else 0.
  int64_t device_milli = 0;
  // With ScorePolicy::scores_node_preferences: TaintToleration's raw score
  // on this node (PreferNoSchedule taints the pod does not tolerate) and
  // NodeAffinity's (the weights of the preferred terms the node matches),
  // and their highest over the feasible nodes (for NormalizeScore).
  // `affinity_scored` is false for a pod without preferred terms (upstream's
  // PreScore skips the plugin).
  int64_t taint_raw_score = 0;
  int64_t taint_max_raw_score = 0;
  int64_t affinity_raw_score = 0;
  int64_t affinity_max_raw_score = 0;
  bool affinity_scored = false;
};

// One score plugin's normalized score (0-100, before its weight), for
// `dractl schedule --trace`.
struct PluginScore {
  std::string_view plugin;
  int64_t score = 0;
};

// Policies that score on the devices (fragmentation.h).
enum class Packing : uint8_t { kNone, kFgd, kDraPack };

class ScorePolicy {
 public:
  virtual ~ScorePolicy() = default;
  virtual std::string_view name() const = 0;
  // Higher is better. Must be deterministic.
  virtual int64_t Score(const NodeState& node, const api::Pod& pod, const PodFit& fit) const = 0;
  // After every feasible node is scored, before the highest is taken
  // (a score plugin's NormalizeScore). The default leaves them as they are.
  virtual void Normalize(std::span<int64_t> /*scores*/) const {}
  // fgd and dra-pack: the scheduler scores with its DeviceModel instead of
  // Score() and lets the model choose the devices inside the chosen node.
  virtual Packing packing() const { return Packing::kNone; }
  // Whether the scheduler keeps a DeviceModel for this policy (it fills
  // NodeState::free_device_milli and PodFit::device_milli, and takes the
  // devices the model chooses, the tightest first).
  virtual bool uses_device_model() const { return packing() != Packing::kNone; }
  // Whether Score reads PodFit's taint and affinity scores (the scheduler
  // computes them over the feasible nodes only then).
  virtual bool scores_node_preferences() const { return false; }
  // The plugin scores Score() adds up, for a trace; empty for policies that
  // are not made of kube-scheduler's plugins. Not called on the hot path.
  virtual std::vector<PluginScore> Explain(const NodeState& /*node*/, const api::Pod& /*pod*/,
                                           const PodFit& /*fit*/) const {
    return {};
  }
};

// The names NewPolicy knows, for help texts.
inline constexpr std::string_view kPolicyNames = "kube, binpack, best-fit, fgd or dra-pack";

// "kube", "binpack", "best-fit", "fgd" or "dra-pack"; kInvalidArgument otherwise.
StatusOr<std::unique_ptr<ScorePolicy>> NewPolicy(std::string_view name);

// The plugin scores the policies add up (each 0..100), exposed for tests.
int64_t LeastAllocatedScore(const NodeState& node, const PodFit& fit);
int64_t BalancedAllocationScore(const NodeState& node, const PodFit& fit);
int64_t DraNormalizedScore(const PodFit& fit);  // 100 * raw / max, 0 if max is 0
// TaintToleration (tainttoleration/taint_toleration.go): the raw score is
// the number of the node's PreferNoSchedule taints that no toleration of the
// pod tolerates; normalized 100 - 100 * raw / max (100 when max is 0).
int64_t IntolerablePreferNoScheduleTaints(const api::Pod& pod, const api::Node& node);
int64_t TaintTolerationScore(const PodFit& fit);
// NodeAffinity (nodeaffinity/node_affinity.go): the raw score is the sum of
// the weights of the pod's preferred terms the node matches (a term that
// cannot be parsed matches nothing); normalized 100 * raw / max (0 when max
// is 0, and when the pod has no preferred terms).
bool HasPreferredNodeAffinity(const api::Pod& pod);
int64_t PreferredNodeAffinityWeight(const api::Pod& pod, const api::Node& node);
int64_t NodeAffinityScore(const PodFit& fit);
int64_t MostAllocatedScore(const NodeState& node, const PodFit& fit);
// -(devices left free * 1000 + cpu and memory left free, mean, in permille):
// 0 is a perfect fit, lower is a looser one.
int64_t BestFitScore(const NodeState& node, const PodFit& fit);

}  // namespace dra::sched
