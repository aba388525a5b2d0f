// Gathering the resource pools a node can use (src/alloc/README.md §3), the
// first step of every Allocate(node, claims) call.
//
//   SliceIndex   built once per snapshot: slices grouped by node name, the
//                slices without a node name, and every slice per pool (for the
//                completeness check). Never rescans all slices per call. It
//                also numbers every device densely (DeviceId), so that the
//                Allocator can keep per-device tables across nodes.
//   GatherPools  for one node: the relevant slices (node name / all nodes /
//                node selector / per-device selection), newest generation per
//                pool, completeness and obsolescence, invalid pools, and the
//                search order (driver, pool name; pools with binding
//                conditions last).
//
// Semantics are upstream's "incubating"/"experimental" allocator, the
// project's reference (src/alloc/README.md §15; upstream GatherPools in
// k8s.io/dynamic-resource-allocation/structured/internal/incubating/
// pools_incubating.go).
//
// Lifetimes: the index and the pools hold pointers into the slices given to
// SliceIndex, which must outlive them. Both are immutable after construction
// and safe to share between threads.
#pragma once

#include <algorithm>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "alloc/features.h"
#include "api/core.h"
#include "api/resource.h"
#include "base/status.h"

namespace dra::alloc {

class SliceIndex {
 public:
  explicit SliceIndex(std::vector<const api::ResourceSlice*> slices);

  // Slices with spec.nodeName == node, in input order.
  std::span<const api::ResourceSlice* const> OnNode(std::string_view node) const;
  // Slices without spec.nodeName, in input order.
  std::span<const api::ResourceSlice* const> WithoutNodeName() const { return shared_; }
  // Every slice of (driver, pool), in input order.
  std::span<const api::ResourceSlice* const> OfPool(std::string_view driver, std::string_view pool) const;

  // Devices are numbered 0 .. device_count() - 1, slice by slice in input
  // order: device i of `slice` is FirstDeviceId(slice) + i. -1 for a slice
  // that is not in the index.
  size_t device_count() const { return device_count_; }
  int64_t FirstDeviceId(const api::ResourceSlice* slice) const;

  // Whether some device of `slice` declares compatibilityGroups on one of
  // its counter consumptions (upstream sliceUsesCompatibilityGroups): with
  // DRADeviceCompatibilityGroups off, GatherPools ignores such slices
  // (src/alloc/README.md §3.1 item 2).
  bool UsesCompatibilityGroups(const api::ResourceSlice* slice) const {
    return !grouped_.empty() && std::binary_search(grouped_.begin(), grouped_.end(), slice);
  }

 private:
  // Flat sorted arrays, not maps: an index is built for every scheduling
  // run and `dractl explain`, over thousands of slices, and the views point
  // into the slices (which outlive the index).
  std::vector<const api::ResourceSlice*> all_;
  // (slice, its first device id), sorted by address; a slice listed twice
  // keeps the numbers of its first listing.
  std::vector<std::pair<const api::ResourceSlice*, size_t>> first_device_;
  size_t device_count_ = 0;
  // The slices for which UsesCompatibilityGroups holds, sorted by address.
  std::vector<const api::ResourceSlice*> grouped_;
  // The slices with a node name, by (node name, input order); node_keys_[i]
  // is by_node_[i]'s node name.
  std::vector<std::string_view> node_keys_;
  std::vector<const api::ResourceSlice*> by_node_;
  std::vector<const api::ResourceSlice*> shared_;
  // Every slice by (driver, pool name, input order), likewise.
  std::vector<std::pair<std::string_view, std::string_view>> pool_keys_;
  std::vector<const api::ResourceSlice*> by_pool_;
  // Hash tables over the runs of equal keys in node_keys_ and pool_keys_
  // (open addressing, a power of two of slots): a slot is [begin, end) of a
  // run, {0, 0} when empty. A lookup costs a hash and usually one compare,
  // where a binary search over 5,000 nodes compared a dozen strings.
  using Run = std::pair<uint32_t, uint32_t>;
  std::vector<Run> node_runs_;
  std::vector<Run> pool_runs_;
};

struct Pool {
  std::string driver;
  std::string name;
  int64_t generation = 0;

  // Incomplete: the newest generation has a different number of slices than
  // it announces. No devices are offered; allocation from it "cannot happen
  // yet" (not an error).
  bool incomplete = false;
  // Invalid (duplicate device or counter-set names, unknown counter sets or
  // counters): no devices are offered; `invalid_reason` says why.
  bool invalid = false;
  std::string invalid_reason;

  // Slices whose devices may be allocated on this node, sorted by name.
  std::vector<const api::ResourceSlice*> slices;
  // Slices holding the pool's shared counter sets.
  std::vector<const api::ResourceSlice*> counter_slices;
  // Slices of the same generation that do not target this node: their devices
  // count against the pool's counters but are never allocated here.
  std::vector<const api::ResourceSlice*> other_slices;
  // Some device of `slices` has binding conditions (such pools are searched last).
  bool has_binding_conditions = false;
};

// Node scope shared by slices and (with perDeviceNodeSelection) devices: a
// non-empty `node_name` must equal the node's name, `all_nodes` matches, a
// `selector` is evaluated; nothing set matches nothing. `what` names the
// object in the error for a selector that cannot be evaluated.
StatusOr<bool> ScopeMatches(const std::optional<std::string>& node_name, const std::optional<bool>& all_nodes,
                            const std::optional<api::NodeSelector>& selector, const api::Node& node,
                            std::string_view what);

// Whether `slice` (or, with perDeviceNodeSelection, any of its devices) is
// available on the node. Errors: a node selector that cannot be evaluated.
StatusOr<bool> SliceTargetsNode(const api::ResourceSlice& slice, const api::Node& node, const Features& features);

// The pools usable on `node`, in search order. Incomplete and invalid pools are
// included (flagged), obsolete ones are not. Errors are fatal for the
// scheduling attempt (a node selector that cannot be parsed).
StatusOr<std::vector<Pool>> GatherPools(const SliceIndex& index, const api::Node& node, const Features& features);

}  // namespace dra::alloc
