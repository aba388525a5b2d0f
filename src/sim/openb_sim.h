// The FGD paper's experiment on an openb trace (docs/fgd.md §2):
// the front door of sim/ for `dractl simulate openb`.
//
// Prepare (once per trace, shared read-only by the runs):
//   GPU nodes only, sorted by name -> Cluster; pods sorted by name -> shapes;
//   typical pods from the whole trace (§5.2).
// Run(policy, seed), one run:
//   rng(seed); one draw (the authors' log argument); shuffle the pods;
//   tune to `tune_ratio` of GPU capacity (append copies drawn with
//   replacement, or delete random pods, §2.3 step 5); node ranks = a random
//   permutation; then one pod at a time: arrived += its GPU request, one
//   cycle (sim_scheduler.h), a failed pod is dropped, and a row is logged after
//   every attempt (§6.1).
// Every placement of a GPU pod is replayed through the DRA allocator on the
// imported objects (dra_check.h) unless check is kNone; kAllNodes also
// compares the native filter with the allocator on every node of every
// attempt (slow: for tests and --verify-allocator).
//
// Thread safety: an OpenbExperiment is immutable after Prepare; Run may be
// called from several threads at once.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/cluster.h"
#include "sim/frag.h"
#include "sim/openb.h"
#include "sim/policies.h"
#include "sim/rng.h"

namespace dra::sim {

enum class AllocatorCheck { kNone, kPlacements, kAllNodes };

// Who schedules each pod: the native model (sim_scheduler.h, the default), or
// the DRA scheduler of `dractl schedule` on the imported objects
// (dra_engine.h: Filter through the allocator, Score and device choice by
// the policy; bestfit, fgd and dra-pack).
enum class Engine { kNative, kDra };

struct RunOptions {
  Policy policy = Policy::kFgd;
  uint64_t seed = 42;
  double tune_ratio = 1.3;
  AllocatorCheck check = AllocatorCheck::kPlacements;  // native engine only
  Engine engine = Engine::kNative;
};

// The pods of one run and the node ranks (§2.3 steps 4-6), the same for both
// engines; `rng` is left where the random policy draws next.
struct RunPlan {
  std::vector<uint32_t> list;  // pod indices (into OpenbExperiment::pods()), in attempt order
  std::vector<uint32_t> rank;  // per node of cluster().nodes(): tie-break rank, lower wins
  int64_t copies = 0;
  int64_t removed = 0;
  Rng rng{0};
};

// One row per pod attempt (§6.1).
struct RunRow {
  int64_t arrived = 0;    // milli-GPU requested by the pods attempted so far
  int64_t allocated = 0;  // milli-GPU in use
  double frag = 0;        // sum of F over nodes, milli-GPU
  double idle = 0;        // typical-weighted free milli-GPU
};

struct RunLog {
  std::vector<RunRow> rows;
  int64_t capacity = 0;  // cluster GPU milli
  int64_t trace_pods = 0;
  int64_t submitted = 0;  // after tuning
  int64_t copies = 0;     // appended by tuning
  int64_t removed = 0;    // deleted by tuning
  int64_t failed = 0;
  uint64_t allocator_calls = 0;
  uint64_t allocator_disagreements = 0;  // kAllNodes only
};

class OpenbExperiment {
 public:
  // `nodes` may include CPU-only nodes; they are left out (§1.1).
  static StatusOr<OpenbExperiment> Prepare(std::vector<OpenbNode> nodes, std::vector<OpenbPod> pods);

  // kFailedPrecondition if the allocator disagrees with a decision.
  StatusOr<RunLog> Run(const RunOptions& options) const;
  RunPlan Plan(const RunOptions& options) const;

  const Cluster& cluster() const { return cluster_; }
  const TypicalPods& typical() const { return typical_; }
  const std::vector<OpenbNode>& nodes() const { return nodes_; }   // GPU nodes by name
  const std::vector<OpenbPod>& pods() const { return pods_; }      // by name
  const std::vector<PodShape>& shapes() const { return shapes_; }  // per pod
  int64_t trace_gpu_request() const;

 private:
  std::vector<OpenbNode> nodes_;  // GPU nodes by name
  std::vector<OpenbPod> pods_;    // by name
  Cluster cluster_;               // idle state; copied per run
  std::vector<PodShape> shapes_;  // per pod
  TypicalPods typical_;
};

// §6.2: bins 0..130 of one run. Missing bins are nullopt.
inline constexpr int kColumns = 131;
struct Columns {
  std::array<std::optional<double>, kColumns> allocation{};   // % of capacity
  std::array<std::optional<double>, kColumns> frag_amount{};  // % of capacity
  std::array<std::optional<double>, kColumns> frag_ratio{};   // % of idle
};
Columns BinRows(const RunLog& log);

}  // namespace dra::sim
