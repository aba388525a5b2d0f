// The bridge from the simulator's native model to DRA: every decision the
// simulator makes on a GPU pod is replayed through the dractl allocator
// (alloc/allocator.h) on the objects `dractl import openb` writes (import.h).
//
//   Commit(node, pod, gpus)   the pod's claim, made from its ResourceClaimTemplate
//                             spec plus one selector pinning the GPUs the
//                             policy chose (`index` attribute), is allocated
//                             on the node against the node's allocated state;
//                             it must fit and take exactly those devices with
//                             the pod's milli as consumed capacity. The result
//                             is added to the node's allocated state.
//   Fits(node, pod)           whether the unpinned claim fits on the node now
//                             (the DRA half of feasibility), for checks that
//                             compare it with the native filter.
//
// Per node the checker keeps one ResourceSlice index and its AllocatedState;
// an Allocator is built per node and reused until the node's state changes.
// Not thread-safe: one DraChecker per run.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/selector.h"
#include "api/object.h"
#include "base/status.h"
#include "sim/openb.h"

namespace dra::sim {

class DraChecker {
 public:
  // `nodes` in the simulator's node order; `pods` are the trace's pods
  // (claims are made from them once, lazily).
  static StatusOr<std::unique_ptr<DraChecker>> New(std::span<const OpenbNode> nodes, std::span<const OpenbPod> pods);
  ~DraChecker();

  // kFailedPrecondition with the allocator's reason when the allocator does
  // not agree; other codes for broken input.
  Status Commit(size_t node, size_t pod, std::span<const int8_t> gpus);
  StatusOr<bool> Fits(size_t node, size_t pod);

  uint64_t allocations() const { return allocations_; }

 private:
  struct NodeObjects;
  DraChecker() = default;
  StatusOr<const alloc::Allocator*> AllocatorFor(size_t node);
  const api::ResourceClaim& ClaimFor(size_t pod);

  alloc::Features features_{};
  api::DeviceClass class_{};
  std::unique_ptr<alloc::SelectorEvaluator> selectors_;
  std::vector<std::unique_ptr<NodeObjects>> nodes_;
  std::span<const OpenbPod> pods_;
  std::vector<std::unique_ptr<api::ResourceClaim>> claims_;
  uint64_t share_ids_ = 0;
  uint64_t allocations_ = 0;
};

}  // namespace dra::sim
