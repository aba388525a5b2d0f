// The search behind Allocator::Allocate: preparation (src/alloc/README.md §4),
// the depth-first search over device slots (§5), taking and undoing devices
// (§5.3) and shared counters (§8), and the caches that make repeated calls
// on one Allocator cheap.
//
// Layout of the work (what is done how often):
//   per Allocator     AllocatorCache: the NodeStates and the VerdictTables
//   (or SnapshotState) (a VerdictStore, shared with the copy Detach makes)
//   per node          NodeState: the gathered pools and the candidate devices
//                     (allocated flags, device IDs, per-device node selection,
//                     aggregated capacity, available counters, also as
//                     DenseCounters), built on the node's first Allocate call
//                     and changed only by AddAllocation and its kin
//   per expression    VerdictTable: one byte per device of the SliceIndex,
//                     filled as the search evaluates selectors
//   per call          Search: prepared claims, the devices taken, counters
//                     consumed. One Search per thread is reused from call to
//                     call, so its buffers keep their capacity.
//
// Invariants of the search:
//   1. claims_[i].records holds the devices taken for claim i, in slot order;
//      every successful Take appends one record and Undo removes the last.
//   2. takers_ lists (candidate, claim) for every exclusive take, and
//      taker_count_[c] counts the entries for candidate c.
//   3. Devices are identified by their index in NodeState::candidates, which
//      lists the devices of complete, valid pools in search order (§3.4); the
//      index order is the enumeration order, so "start after the previous
//      pick" (combinations, not permutations) is "start at index + 1".
//   4. Every cached thing is a pure function of the Allocator's inputs (and
//      of the node's name and labels): a call that uses a cache decides what a
//      call that computes afresh would. Errors are never cached as verdicts.
#include "alloc/allocator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <unordered_map>

#include "alloc/capacity.h"
#include "alloc/compatibility_groups.h"
#include "alloc/constraints.h"
#include "alloc/result.h"
#include "fmt/format.h"

namespace dra::alloc {

using quantity::Quantity;

std::string NewRandomShareId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff, lo >> 48,
                     lo & 0xffffffffffffULL);
}

std::string Reason::ToString() const {
  std::string out;
  if (!claim.empty()) out = fmt::format("claim {}, request {}: ", claim, request);
  out += message.empty() ? "cannot allocate all claims" : message;
  std::vector<std::string> parts;
  auto add = [&](int64_t n, const char* what) {
    if (n > 0) parts.push_back(fmt::format("{} {}", n, what));
  };
  add(class_selector, "rejected by class selector");
  add(request_selector, "rejected by request selector");
  add(node_selection, "not on this node");
  add(binding_conditions, "with binding conditions");
  add(in_use, "in use");
  add(taint, "tainted");
  add(counters, "without counters left");
  add(incompatible, "incompatible with devices sharing their counter set");
  add(capacity, "without capacity left");
  add(constraint, "violating a constraint");
  if (needed > 0) {
    parts.insert(parts.begin(), fmt::format("needs {} device{}, {} usable", needed, needed == 1 ? "" : "s", usable));
  }
  if (!parts.empty()) out += " (" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
  return out;
}

namespace internal {

using CounterSets = std::map<std::string, std::map<std::string, Quantity, std::less<>>, std::less<>>;

// Per-device node selection (perDeviceNodeSelection slices), decided when the
// node is first seen. kError: the device's node selector cannot be evaluated;
// Selectable evaluates it again to report the error where the search meets it.
enum class OnNode : uint8_t { kNotApplicable, kYes, kNo, kError };

struct Candidate {
  int pool = 0;
  // Its counter consumption: DenseCounters::uses[uses_begin, uses_begin +
  // uses_count) of its pool (the fields fill padding: 40 bytes in all).
  uint32_t uses_begin = 0;
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  uint32_t device_id = 0;  // SliceIndex numbering: the column of VerdictTables
  bool allocated = false;  // in AllocatedState::devices
  OnNode on_node = OnNode::kNotApplicable;
  uint16_t uses_count = 0;
  // AllocatedState::aggregated_capacity of the device, or nullptr.
  const CapacityAmounts* aggregated = nullptr;
};
static_assert(sizeof(Candidate) <= 40);

// The shared counters of one pool as integers (§8 without maps): every
// counter of `available` (a CounterSets, in its order: set name, counter
// name) is a slot, every quantity a multiple of 10^scale held as an exact
// integer. `exact` is false when some quantity is not (the search then uses
// the CounterSets with Quantity arithmetic, as before).
struct DenseCounters {
  struct Use {
    uint32_t slot = 0;
    int64_t amount = 0;
  };
  bool exact = false;
  std::vector<int64_t> available;  // per slot
  std::vector<Use> uses;           // per candidate of the pool, see Candidate::uses_begin
};

// What Allocate needs about one node that does not depend on the claims.
// Immutable once built; lives as long as the Allocator.
struct NodeState {
  // Whether gathering could read the node's labels (some slice or device
  // selects nodes by selector); if so the state is only reused for a node
  // object with equal `labels`.
  std::string name;
  bool uses_labels = false;
  api::FlatMap<std::string> labels;
  Status error;  // GatherPools failed: every call on this node returns it
  std::vector<Pool> pools;
  std::vector<Candidate> candidates;
  // Per pool, with DRAPartitionableDevices: its counter sets minus what
  // devices allocated before this snapshot consume (nullopt for pools without
  // candidates).
  std::vector<std::optional<CounterSets>> available;
  // The same as integers, per pool (empty without DRAPartitionableDevices).
  std::vector<DenseCounters> dense;
  // Per pool, with DRADeviceCompatibilityGroups: per counter set, the groups
  // of the devices allocated before this snapshot that draw from it (§8.1;
  // upstream compatibilityGroupsBaselineForPool). Empty without the feature.
  std::vector<std::vector<std::pair<std::string, GroupIntersection>>> groups_baseline;
  // "invalid resource pools were encountered: ..." when some pool is invalid.
  std::string invalid_message;
  // Changed by AllocatorCache::Refresh whenever the state changes, to a
  // number no state has had (next_generation below).
  uint64_t generation = 1;
};

// The verdicts of one CEL expression on every device of the SliceIndex,
// indexed by Candidate::device_id. Entries go from kUnknown (through kTried:
// the slice's columns did not decide it, cel/dra/columnar.h) to kFalse or kTrue
// once and never back; racing threads store the same value.
struct VerdictTable {
  static constexpr uint8_t kUnknown = 0, kFalse = 1, kTrue = 2, kTried = 3;
  explicit VerdictTable(size_t devices) : verdicts(std::make_unique<std::atomic<uint8_t>[]>(devices)) {}
  std::unique_ptr<std::atomic<uint8_t>[]> verdicts;  // value-initialized: kUnknown
  mutable std::atomic<bool> no_columns{false};       // the evaluator has no columnar form
};

struct VerdictStore;
// The evaluator's state for `slice` kept in `store` (SelectorEvaluator::NewSliceState), made on first use.
SelectorEvaluator::SliceState* SliceStateOf(VerdictStore& store, SelectorEvaluator& selectors,
                                            const api::ResourceSlice& slice);

// Fills `table` for every device of `c`'s slice at once where the evaluator
// can (SelectorEvaluator::EvaluateSlice), marking the rest kTried so that the
// slice is not tried again; returns `c`'s cell.
uint8_t FillSliceVerdicts(const VerdictTable& table, VerdictStore& store, SelectorEvaluator& selectors,
                          std::string_view expression, const Candidate& c) {
  if (table.no_columns.load(std::memory_order_relaxed)) return VerdictTable::kTried;
  const std::vector<api::Device>& devices = c.slice->spec.devices;
  const size_t first = c.device_id - static_cast<size_t>(c.device - devices.data());
  thread_local std::vector<uint8_t> column;
  column.assign(devices.size(), VerdictTable::kUnknown);
  SelectorEvaluator::SliceState* state = SliceStateOf(store, selectors, *c.slice);
  if (!selectors.EvaluateSliceWith(expression, state, devices, c.slice->spec.driver, column)) {
    table.no_columns.store(true, std::memory_order_relaxed);
    return VerdictTable::kTried;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    std::atomic<uint8_t>& cell = table.verdicts[first + i];
    if (column[i] != VerdictTable::kUnknown) {
      cell.store(column[i], std::memory_order_relaxed);
    } else {
      uint8_t unknown = VerdictTable::kUnknown;
      cell.compare_exchange_strong(unknown, VerdictTable::kTried, std::memory_order_relaxed);
    }
  }
  return table.verdicts[c.device_id].load(std::memory_order_relaxed);
}

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// (driver, pool name).
using PoolKey = std::pair<std::string_view, std::string_view>;
struct PoolKeyHash {
  size_t operator()(const PoolKey& k) const {
    return std::hash<std::string_view>{}(k.first) * 31 + std::hash<std::string_view>{}(k.second);
  }
};

namespace {

// Tells AllocatorCaches apart in the per-thread table cache (an address could
// be reused after an Allocator is destroyed; these numbers are not).
std::atomic<uint64_t> next_cache_id{1};
// NodeState::generation after a change: unique across caches, so that the
// copies Allocator::Detach makes never reuse a number with another meaning.
std::atomic<uint64_t> next_generation{2};

bool UsesLabels(const api::ResourceSlice& s) {
  return s.spec.node_selector.has_value() || s.spec.per_device_node_selection.value_or(false);
}

// The available counters of `pool` (§8): its counter sets, minus what devices
// allocated before the call consume (upstream's counter bookkeeping).
CounterSets AvailableCounters(const Pool& pool, const AllocatedState& state) {
  CounterSets sets;
  for (const api::ResourceSlice* s : pool.counter_slices) {
    for (const api::CounterSet& set : s->spec.shared_counters) {
      auto& counters = sets[set.name];
      for (const auto& [name, counter] : set.counters)
        counters.insert_or_assign(std::string(name.view()), counter.value);
    }
  }
  const bool nothing_allocated =
      state.devices.empty() && state.shared_device_ids.empty() && state.aggregated_capacity.empty();
  auto subtract = [&](const std::vector<const api::ResourceSlice*>& slices) {
    for (const api::ResourceSlice* s : slices) {
      for (const api::Device& d : s->spec.devices) {
        if (d.rare->consumes_counters.empty()) continue;
        if (nothing_allocated || !state.InUseForCounters(DeviceIdString(pool.driver, pool.name, d.name))) continue;
        for (const api::DeviceCounterConsumption& use : d.rare->consumes_counters) {
          auto set = sets.find(use.counter_set);
          if (set == sets.end()) continue;
          for (const auto& [name, counter] : use.counters) {
            auto have = set->second.find(name.view());
            if (have == set->second.end()) continue;
            StatusOr<Quantity> left = have->second.Sub(counter.value);
            if (left.ok()) have->second = *left;
          }
        }
      }
    }
  };
  subtract(pool.slices);
  subtract(pool.other_slices);
  return sets;
}

// The compatibility groups baseline of `pool` (§8.1): per counter set, the
// intersection over the allocated devices of the pool (targeting the node or
// not) that draw from it, in slice order.
std::vector<std::pair<std::string, GroupIntersection>> GroupsBaseline(const Pool& pool, const AllocatedState& state) {
  std::vector<std::pair<std::string, GroupIntersection>> baseline;
  if (state.devices.empty() && state.shared_device_ids.empty() && state.aggregated_capacity.empty()) return baseline;
  for (const auto* slices : {&pool.slices, &pool.other_slices}) {
    for (const api::ResourceSlice* s : *slices) {
      for (const api::Device& d : s->spec.devices) {
        if (d.rare->consumes_counters.empty()) continue;
        if (!state.InUseForCounters(DeviceIdString(pool.driver, pool.name, d.name))) continue;
        for (const api::DeviceCounterConsumption& use : d.rare->consumes_counters) {
          auto it =
              std::find_if(baseline.begin(), baseline.end(), [&](const auto& e) { return e.first == use.counter_set; });
          if (it == baseline.end()) it = baseline.insert(baseline.end(), {use.counter_set, GroupIntersection()});
          it->second.Add(use.compatibility_groups);
        }
      }
    }
  }
  return baseline;
}

// The bound on every integer of DenseCounters, and on the sum of the
// magnitudes of a pool's uses: a call's consumption of a slot is a sum of
// distinct candidates' uses (a device charges its counters once, however many
// shares it gives), so it stays within int64.
constexpr int64_t kDenseLimit = int64_t{1} << 62;

// `q` as an integer multiple of 10^scale, if it is one and |q| <= kDenseLimit.
std::optional<int64_t> Scaled(const Quantity& q, int32_t scale) {
  const int64_t v = q.ScaledValue(scale);
  if (v > kDenseLimit || v < -kDenseLimit) return std::nullopt;
  if (Quantity::FromScaled(v, scale, quantity::Format::kDecimalSI).Compare(q) != 0) return std::nullopt;
  return v;
}

// state.dense[pool_idx] from state.available[pool_idx] and the consumption of
// the pool's candidates (Candidate::uses_begin/end are set).
void BuildDenseCounters(NodeState& state, size_t pool_idx) {
  if (state.dense.size() < state.pools.size()) state.dense.resize(state.pools.size());
  DenseCounters& dense = state.dense[pool_idx];
  dense = DenseCounters{};
  if (!state.available[pool_idx]) return;
  const CounterSets& available = *state.available[pool_idx];
  // Slots in CounterSets order; consumption of a counter the pool does not
  // have is never checked (§8) and gets no slot.
  std::vector<std::pair<std::pair<std::string_view, std::string_view>, const Quantity*>> slots;
  for (const auto& [set_name, counters] : available) {
    for (const auto& [name, have] : counters) slots.push_back({{set_name, name}, &have});
  }
  if (slots.empty()) {  // no counters: nothing to count (uses_count stays 0)
    dense.exact = true;
    return;
  }
  auto slot_of = [&](std::string_view set_name, std::string_view name) -> std::optional<uint32_t> {
    auto it = std::lower_bound(slots.begin(), slots.end(), std::pair(set_name, name),
                               [](const auto& slot, const auto& key) { return slot.first < key; });
    if (it == slots.end() || it->first != std::pair(set_name, name)) return std::nullopt;
    return static_cast<uint32_t>(it - slots.begin());
  };
  for (int32_t scale : {0, -3, -6, -9}) {
    dense.exact = true;
    dense.available.clear();
    dense.uses.clear();
    int64_t magnitudes = 0;  // of the uses so far, at most kDenseLimit
    for (const auto& slot : slots) {
      std::optional<int64_t> v = Scaled(*slot.second, scale);
      if (!v) {
        dense.exact = false;
        break;
      }
      dense.available.push_back(*v);
    }
    for (Candidate& c : state.candidates) {
      if (!dense.exact) break;
      if (static_cast<size_t>(c.pool) != pool_idx) continue;
      c.uses_begin = static_cast<uint32_t>(dense.uses.size());
      for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
        for (const auto& [name, counter] : use.counters) {
          std::optional<uint32_t> slot = slot_of(use.counter_set, name.view());
          if (!slot) continue;
          std::optional<int64_t> amount = Scaled(counter.value, scale);
          if (!amount) {
            dense.exact = false;
            break;
          }
          magnitudes += *amount < 0 ? -*amount : *amount;  // both at most 2^62: no overflow
          if (magnitudes > kDenseLimit) {
            dense.exact = false;
            break;
          }
          dense.uses.push_back({.slot = *slot, .amount = *amount});
        }
        if (!dense.exact) break;
      }
      const size_t count = dense.uses.size() - c.uses_begin;
      if (count > UINT16_MAX || dense.uses.size() > UINT32_MAX) dense.exact = false;
      c.uses_count = static_cast<uint16_t>(count);
    }
    if (dense.exact) return;
  }
  dense = DenseCounters{};
}

std::unique_ptr<NodeState> BuildNodeState(const SliceIndex& index, const Features& features,
                                          const AllocatedState& allocated_state, const api::Node& node) {
  auto state = std::make_unique<NodeState>();
  state->name = node.metadata.name;
  // The slices GatherPools considers; only node selectors read labels.
  for (const api::ResourceSlice* s : index.OnNode(node.metadata.name)) state->uses_labels |= UsesLabels(*s);
  for (const api::ResourceSlice* s : index.WithoutNodeName()) state->uses_labels |= UsesLabels(*s);
  if (state->uses_labels) state->labels = node.metadata.labels;

  StatusOr<std::vector<Pool>> pools = GatherPools(index, node, features);
  if (!pools.ok()) {
    state->error = pools.status();
    return state;
  }
  state->pools = *std::move(pools);
  const std::vector<Pool>& all_pools = state->pools;
  size_t total = 0;
  for (const Pool& pool : all_pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const api::ResourceSlice* slice : pool.slices) total += slice->spec.devices.size();
  }
  state->candidates.reserve(total);
  // The allocated devices of a pool are the keys of AllocatedState::devices
  // that start with "driver/pool/": one sorted range of the set, so its device
  // names (the rest of each key) come out sorted. Looking devices up there
  // instead of building "driver/pool/device" per device saves an allocation
  // and a search of the whole set per device; `id == prefix + name` holds
  // exactly when the key is in the range and its rest equals `name`.
  const auto& allocated = allocated_state.devices;
  const auto& aggregated = allocated_state.aggregated_capacity;
  std::string prefix;
  std::vector<std::string_view> allocated_names;
  for (size_t pool_idx = 0; pool_idx < all_pools.size(); ++pool_idx) {
    const Pool& pool = all_pools[pool_idx];
    if (pool.incomplete || pool.invalid) continue;
    allocated_names.clear();
    if (!allocated.empty()) {
      prefix.assign(pool.driver).append(1, '/').append(pool.name).append(1, '/');
      for (auto it = allocated.lower_bound(std::string_view(prefix));
           it != allocated.end() && std::string_view(*it).substr(0, prefix.size()) == prefix; ++it) {
        allocated_names.push_back(std::string_view(*it).substr(prefix.size()));
      }
    }
    for (const api::ResourceSlice* slice : pool.slices) {
      const int64_t first_id = index.FirstDeviceId(slice);  // pools hold slices of the index
      const bool per_device = slice->spec.per_device_node_selection.value_or(false);
      for (size_t device_idx = 0; device_idx < slice->spec.devices.size(); ++device_idx) {
        const api::Device& device = slice->spec.devices[device_idx];
        Candidate c{.pool = static_cast<int>(pool_idx),
                    .slice = slice,
                    .device = &device,
                    .device_id = static_cast<uint32_t>(first_id + static_cast<int64_t>(device_idx))};
        c.allocated = !allocated_names.empty() &&
                      std::binary_search(allocated_names.begin(), allocated_names.end(), std::string_view(device.name));
        if (!c.allocated && !allocated_state.excluded.empty()) {
          c.allocated = allocated_state.excluded.count(DeviceIdString(pool.driver, pool.name, device.name)) > 0;
        }
        if (per_device) {
          const api::DeviceRareFields& rare = device.rare.get();
          StatusOr<bool> on = ScopeMatches(rare.node_name, rare.all_nodes, rare.node_selector, node, "device");
          c.on_node = !on.ok() ? OnNode::kError : *on ? OnNode::kYes : OnNode::kNo;
        }
        if (!aggregated.empty()) {
          auto it = aggregated.find(DeviceIdString(pool.driver, pool.name, device.name));
          if (it != aggregated.end()) c.aggregated = &it->second;
        }
        state->candidates.push_back(c);
      }
    }
  }
  if (features.partitionable_devices) {
    state->available.resize(all_pools.size());
    for (size_t pool_idx = 0; pool_idx < all_pools.size(); ++pool_idx) {
      const Pool& pool = all_pools[pool_idx];
      if (!pool.incomplete && !pool.invalid) state->available[pool_idx] = AvailableCounters(pool, allocated_state);
      BuildDenseCounters(*state, pool_idx);
    }
  }
  if (features.compatibility_groups) {
    state->groups_baseline.resize(all_pools.size());
    for (size_t pool_idx = 0; pool_idx < all_pools.size(); ++pool_idx) {
      const Pool& pool = all_pools[pool_idx];
      if (!pool.incomplete && !pool.invalid) state->groups_baseline[pool_idx] = GroupsBaseline(pool, allocated_state);
    }
  }
  std::vector<std::string> invalid;
  for (const Pool& pool : all_pools) {
    if (pool.invalid) invalid.push_back(fmt::format("{}/{}: {}", pool.driver, pool.name, pool.invalid_reason));
  }
  if (!invalid.empty()) {
    state->invalid_message = fmt::format("invalid resource pools were encountered: {}", fmt::join(invalid, "; "));
  }
  return state;
}

}  // namespace

// The VerdictTables of one snapshot (SliceIndex and features), by
// expression; shared by an AllocatorCache and the copies Detach makes.
struct VerdictStore {
  explicit VerdictStore(size_t devices)
      : device_count(devices), id(next_cache_id.fetch_add(1, std::memory_order_relaxed)) {}
  const size_t device_count;
  const uint64_t id;
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<VerdictTable>, StringHash, std::equal_to<>> tables;  // guarded by mu
  // The evaluator's per-slice states (columns of values), by slice; guarded by mu.
  std::unordered_map<const api::ResourceSlice*, std::unique_ptr<SelectorEvaluator::SliceState>> slice_states;
};

SelectorEvaluator::SliceState* SliceStateOf(VerdictStore& store, SelectorEvaluator& selectors,
                                            const api::ResourceSlice& slice) {
  std::lock_guard<std::mutex> lock(store.mu);
  auto [it, added] = store.slice_states.try_emplace(&slice);
  if (added) it->second = selectors.NewSliceState(slice.spec.devices, slice.spec.driver);
  return it->second.get();
}

// The Allocator's memory of work done (allocator.h, "Caches"), or a
// SnapshotState's, shared by its Allocators. Thread-safe: the maps are
// guarded by `mu`; what they point to is never freed or moved before the
// cache dies, so pointers handed out stay valid without the lock (NodeStates
// are immutable but for Refresh, which no call may overlap; VerdictTables are
// atomics).
struct AllocatorCache {
  AllocatorCache(const SliceIndex* slice_index, const Features* feature_set, const AllocatedState* allocated_state,
                 std::shared_ptr<VerdictStore> verdicts)
      : slices(slice_index),
        features(feature_set),
        allocation(allocated_state),
        store(verdicts ? std::move(verdicts) : std::make_shared<VerdictStore>(slice_index->device_count())),
        id(next_cache_id.fetch_add(1, std::memory_order_relaxed)) {}

  // A private copy for an Allocator that leaves its SnapshotState: the same
  // node states (and verdict tables, shared) over `allocated_state`, a copy
  // of this cache's allocated state.
  std::shared_ptr<AllocatorCache> CopyFor(const Features* feature_set, const AllocatedState* allocated_state) {
    auto copy = std::make_shared<AllocatorCache>(slices, feature_set, allocated_state, store);
    std::lock_guard<std::mutex> lock(mu);
    const auto& aggregated = allocated_state->aggregated_capacity;
    for (const auto& [name, states] : nodes) {
      for (const auto& s : states) {
        auto state = std::make_unique<NodeState>(*s);
        for (Candidate& c : state->candidates) {
          if (c.aggregated == nullptr) continue;
          const Pool& pool = state->pools[static_cast<size_t>(c.pool)];
          auto it = aggregated.find(DeviceIdString(pool.driver, pool.name, c.device->name));
          c.aggregated = it == aggregated.end() ? nullptr : &it->second;
        }
        copy->Insert(std::move(state));
      }
    }
    return copy;
  }

  // The state of `node`, built on first use. Its `error` is set if the node's
  // pools could not be gathered.
  const NodeState& Node(const api::Node& node) {
    auto matches = [&](const NodeState& s) {
      return s.name == node.metadata.name && (!s.uses_labels || s.labels == node.metadata.labels);
    };
    // The scheduler passes the same Node objects for every pod: a per-thread
    // table keyed by the object's address answers without the lock or a hash
    // of the name. A hit is checked against the name and labels, so a reused
    // address or a changed object only costs a trip to the map.
    struct Slot {
      uint64_t cache = 0;
      const api::Node* node = nullptr;
      const NodeState* state = nullptr;
    };
    // 96 KiB per thread; 500 nodes collide in about 6% of the slots.
    static constexpr size_t kSlots = 4096;
    thread_local std::array<Slot, kSlots> slots;
    // Node objects sit in arrays at a fixed stride: mix the address well
    // (MurmurHash3's finalizer) before taking the slot.
    uint64_t h = reinterpret_cast<uintptr_t>(&node);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    Slot& slot = slots[h % kSlots];
    if (slot.cache == id && slot.node == &node && matches(*slot.state)) return *slot.state;
    const NodeState& state = Lookup(node, matches);
    slot = {.cache = id, .node = &node, .state = &state};
    return state;
  }

  template <typename Matches>
  const NodeState& Lookup(const api::Node& node, const Matches& matches) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = nodes.find(std::string_view(node.metadata.name));
      if (it != nodes.end()) {
        for (const auto& s : it->second) {
          if (matches(*s)) return *s;
        }
      }
    }
    // Built without the lock: other nodes go on meanwhile. Two threads may
    // build the same node; the first stored wins and both answer with it.
    std::unique_ptr<NodeState> built = BuildNodeState(*slices, *features, *allocation, node);
    std::lock_guard<std::mutex> lock(mu);
    auto it = nodes.find(std::string_view(node.metadata.name));
    if (it != nodes.end()) {
      for (const auto& s : it->second) {
        if (matches(*s)) return *s;
      }
    }
    return Insert(std::move(built));
  }

  // Stores a new state. REQUIRES: mu held (or the cache not yet shared).
  NodeState& Insert(std::unique_ptr<NodeState> built) {
    auto it = nodes.find(std::string_view(built->name));
    // The key views the name held by the first state (states are never
    // dropped, and live on the heap).
    if (it == nodes.end()) it = nodes.emplace(std::string_view(built->name), NodeStates{}).first;
    for (const Pool& pool : built->pools) {
      // Likewise, the key views the first user's pool.
      if (!pool.incomplete && !pool.invalid) pool_users[PoolKey(pool.driver, pool.name)].push_back(built.get());
    }
    it->second.push_back(std::move(built));
    return *it->second.back();
  }

  // Brings every node state that holds the device of `result` up to date
  // with the Allocator's AllocatedState (Allocator::AddAllocation).
  // REQUIRES: no Allocate call in flight.
  void Refresh(const api::DeviceRequestAllocationResult& result, std::vector<std::string>* changed_nodes) {
    std::lock_guard<std::mutex> lock(mu);
    auto users = pool_users.find(PoolKey(result.driver, result.pool));
    if (users == pool_users.end()) return;
    const AllocatedState& allocated = *allocation;
    const std::string device_id = DeviceIdString(result.driver, result.pool, result.device);
    const bool in_devices = allocated.Unavailable(device_id);
    auto aggregated = allocated.aggregated_capacity.find(device_id);
    // Every state holding the pool changes: the device's flags where it is a
    // candidate, and the pool's available counters even where it is not (a
    // device of the pool that is not usable on the node still consumes them).
    for (NodeState* state : users->second) {
      state->generation = next_generation.fetch_add(1, std::memory_order_relaxed);
      if (changed_nodes != nullptr) changed_nodes->push_back(state->name);
      for (Candidate& c : state->candidates) {
        const Pool& pool = state->pools[static_cast<size_t>(c.pool)];
        if (c.device->name != result.device || pool.name != result.pool || pool.driver != result.driver) continue;
        c.allocated = in_devices;
        c.aggregated = aggregated == allocated.aggregated_capacity.end() ? nullptr : &aggregated->second;
      }
      for (size_t pool_idx = 0; pool_idx < state->available.size(); ++pool_idx) {
        const Pool& pool = state->pools[pool_idx];
        if (state->available[pool_idx] && pool.name == result.pool && pool.driver == result.driver) {
          state->available[pool_idx] = AvailableCounters(pool, allocated);
          BuildDenseCounters(*state, pool_idx);
        }
      }
      // The compatibility groups of the allocated devices (§8.1), likewise.
      for (size_t pool_idx = 0; pool_idx < state->groups_baseline.size(); ++pool_idx) {
        const Pool& pool = state->pools[pool_idx];
        if (!pool.incomplete && !pool.invalid && pool.name == result.pool && pool.driver == result.driver) {
          state->groups_baseline[pool_idx] = GroupsBaseline(pool, allocated);
        }
      }
    }
  }

  // The verdict table of `expression`, created on first use.
  const VerdictTable& Table(std::string_view expression) {
    // Every call asks for the same few expressions: a small per-thread cache
    // in front of the shared map costs a comparison of the text, not a lock
    // and a hash.
    struct Slot {
      uint64_t cache = 0;
      std::string expression;
      const VerdictTable* table = nullptr;
    };
    static constexpr size_t kSlots = 8;
    thread_local std::array<Slot, kSlots> slots;
    thread_local size_t next = 0;
    const uint64_t store_id = store->id;
    for (const Slot& slot : slots) {
      if (slot.cache == store_id && slot.expression == expression) return *slot.table;
    }
    const VerdictTable* table = nullptr;
    {
      std::lock_guard<std::mutex> lock(store->mu);
      auto it = store->tables.find(expression);
      if (it == store->tables.end()) {
        it = store->tables.emplace(std::string(expression), std::make_unique<VerdictTable>(store->device_count)).first;
      }
      table = it->second.get();
    }
    Slot& slot = slots[next];
    next = (next + 1) % kSlots;
    slot.cache = store_id;
    slot.expression.assign(expression);
    slot.table = table;
    return *table;
  }

  const SliceIndex* const slices;
  const Features* const features;
  const AllocatedState* const allocation;
  const std::shared_ptr<VerdictStore> store;
  const uint64_t id;
  std::mutex mu;
  // Node name -> its states, one per distinct label set when labels matter.
  // Keys view strings the states own (no copy per node).
  using NodeStates = std::vector<std::unique_ptr<NodeState>>;
  std::unordered_map<std::string_view, NodeStates> nodes;  // guarded by mu
  // (driver, pool) -> the node states holding that (complete, valid) pool,
  // for Refresh. Guarded by mu.
  std::unordered_map<PoolKey, std::vector<NodeState*>, PoolKeyHash> pool_users;
};

}  // namespace internal

SnapshotState::SnapshotState(Features features, AllocatedState allocated, const SliceIndex* slices)
    : features_(features),
      allocated_(std::move(allocated)),
      slices_(slices),
      cache_(std::make_shared<internal::AllocatorCache>(slices_, &features_, &allocated_, nullptr)) {}

SnapshotState::~SnapshotState() = default;

Allocator::Allocator(Features features, AllocatedState allocated, const std::vector<const api::DeviceClass*>& classes,
                     const SliceIndex* slices, SelectorEvaluator* selectors, AllocatorOptions options)
    : features_(features),
      allocated_(std::move(allocated)),
      allocated_view_(&allocated_),
      slices_(slices),
      selectors_(selectors),
      options_(std::move(options)),
      cache_(std::make_shared<internal::AllocatorCache>(slices_, &features_, &allocated_, nullptr)) {
  for (const api::DeviceClass* c : classes) classes_.emplace(c->metadata.name, c);
  if (!options_.new_share_id) options_.new_share_id = NewRandomShareId;
  id_ = internal::next_cache_id.fetch_add(1, std::memory_order_relaxed);
}

Allocator::Allocator(std::shared_ptr<const SnapshotState> snapshot, const std::vector<const api::DeviceClass*>& classes,
                     SelectorEvaluator* selectors, AllocatorOptions options)
    : features_(snapshot->features()),
      allocated_view_(&snapshot->allocated()),
      snapshot_(std::move(snapshot)),
      slices_(&snapshot_->slices()),
      selectors_(selectors),
      options_(std::move(options)),
      cache_(snapshot_->cache_) {
  for (const api::DeviceClass* c : classes) classes_.emplace(c->metadata.name, c);
  if (!options_.new_share_id) options_.new_share_id = NewRandomShareId;
  id_ = internal::next_cache_id.fetch_add(1, std::memory_order_relaxed);
}

Allocator::~Allocator() = default;

void Allocator::Detach() {
  if (snapshot_ == nullptr) return;
  allocated_ = snapshot_->allocated();
  allocated_view_ = &allocated_;
  cache_ = cache_->CopyFor(&features_, &allocated_);
  snapshot_.reset();
}

const internal::NodeState& Allocator::StateOf(NodeHandle node) const {
  if (node.cache_id_ == cache_->id) return *node.state_;
  return cache_->Node(*node.node_);
}

Status Allocator::AddAllocation(const api::AllocationResult& allocation, std::vector<std::string>* changed_nodes) {
  Detach();
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (Status st = allocated_.AddResult(result, features_); !st.ok()) return st;
    cache_->Refresh(result, changed_nodes);
  }
  return OkStatus();
}

Status Allocator::RemoveAllocation(const api::AllocationResult& allocation, std::vector<std::string>* changed_nodes) {
  Detach();
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (Status st = allocated_.RemoveResult(result, features_); !st.ok()) return st;
    cache_->Refresh(result, changed_nodes);
  }
  return OkStatus();
}

void Allocator::SetExcluded(std::string_view driver, std::string_view pool, std::string_view device, bool excluded,
                            std::vector<std::string>* changed_nodes) {
  std::string id = DeviceIdString(driver, pool, device);
  if (excluded == (allocated().excluded.count(id) > 0)) return;
  Detach();
  if (excluded) {
    if (!allocated_.excluded.insert(std::move(id)).second) return;
  } else if (allocated_.excluded.erase(id) == 0) {
    return;
  }
  api::DeviceRequestAllocationResult result;
  result.driver = std::string(driver);
  result.pool = std::string(pool);
  result.device = std::string(device);
  cache_->Refresh(result, changed_nodes);
}

uint64_t Allocator::NodeGeneration(const api::Node& node) const { return cache_->Node(node).generation; }

uint64_t Allocator::NodeGeneration(NodeHandle node) const { return StateOf(node).generation; }

Allocator::NodeHandle Allocator::Handle(const api::Node& node) const {
  NodeHandle h;
  h.state_ = &cache_->Node(node);
  h.node_ = &node;
  h.cache_id_ = cache_->id;
  return h;
}

Allocator::DeviceCount Allocator::CountDevices(const api::Node& node) const { return CountDevices(Handle(node)); }

Allocator::DeviceCount Allocator::CountDevices(NodeHandle node) const {
  const internal::NodeState& state = StateOf(node);
  DeviceCount count;
  count.devices = static_cast<int64_t>(state.candidates.size());
  for (const internal::Candidate& c : state.candidates) count.in_use += c.allocated;
  return count;
}

const api::DeviceClass* Allocator::FindClass(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

namespace {

using internal::Candidate;
using internal::CounterSets;
using internal::NodeState;
using internal::OnNode;
using internal::VerdictTable;

// A request, or one subrequest of a firstAvailable request.
struct Entry {
  std::string name;             // "req" or "req/sub"
  std::string_view request;     // "req"
  std::string_view subrequest;  // "sub" or ""
  const api::DeviceClass* device_class = nullptr;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const std::optional<api::CapacityRequirements>* capacity = nullptr;
  // DRADerivedAttributes: the request's derivedAttributes (§7.4); nullptr
  // when it has none.
  const std::vector<api::DerivedAttribute>* derived = nullptr;
  bool admin_access = false;
  bool all = false;
  int64_t num_devices = 0;
  std::vector<int> all_devices;  // All mode: candidate indices
  // Best fit: candidate indices in the order the search tries them, set when
  // the search starts on this entry (it depends on what the claim took).
  std::vector<int> order;
  bool preferred = false;  // `order` holds a DevicePreference's order
  // Search::tables_[class_tables + i] is the table of the class's selector i
  // (nullptr for a selector without CEL); request_tables likewise.
  size_t class_tables = 0;
  size_t request_tables = 0;
};

struct PreparedRequest {
  bool has_subrequests = false;
  std::vector<Entry> entries;
  int selected = 0;
};

struct Record {
  int request = 0;
  int entry = 0;
  int candidate = 0;
  int pos = 0;  // the candidate's position in the entry's search order
  bool multi = false;
  bool counters_added = false;
  // Entries this take pushed onto Search::groups_undo_ (§8.1).
  uint16_t groups_saved = 0;
  // Consumable capacity of a shared device: whether this call had already
  // taken capacity of the device before this share (the entry stays then).
  bool capacity_entry_existed = false;
  std::optional<std::string> share_id;
  CapacityAmounts consumed;
};

struct PreparedClaim {
  const api::ResourceClaim* claim = nullptr;
  std::vector<PreparedRequest> requests;
  std::vector<std::unique_ptr<Constraint>> constraints;
  std::vector<Record> records;
};

// "namespace/name", for messages. Built only when one is needed.
std::string ClaimName(const PreparedClaim& claim) {
  return fmt::format("{}/{}", claim.claim->metadata.namespace_, claim.claim->metadata.name);
}

enum class Outcome { kSuccess, kFail, kMaxSize, kError };

// Reason{}, keeping the strings' buffers (Search reuses its Reasons).
void ClearReason(Reason& r) {
  static_assert(sizeof(Reason) == 3 * sizeof(std::string) + 13 * sizeof(int64_t),
                "a new field of Reason: clear it here");
  r.claim.clear();
  r.request.clear();
  r.invalid_pools = false;
  r.message.clear();
  r.class_selector = r.request_selector = r.node_selection = r.binding_conditions = r.in_use = r.taint = r.counters =
      r.incompatible = r.capacity = r.constraint = r.needed = r.usable = 0;
}

// `result` as `count` default results (and no config, node selector or
// timestamp), keeping the buffers of what it held.
void ResetResult(api::AllocationResult& result, size_t count) {
  static_assert(sizeof(api::DeviceRequestAllocationResult) ==
                    4 * sizeof(std::string) + 8 + 3 * sizeof(std::vector<std::string>) +
                        sizeof(std::optional<std::string>) + sizeof(api::FlatMap<Quantity>) +
                        sizeof(std::vector<api::EnumString<api::NodeOperation>>),
                "a new field of DeviceRequestAllocationResult: reset it here");
  static_assert(sizeof(api::AllocationResult) == sizeof(api::DeviceAllocationResult) +
                                                     sizeof(std::optional<api::NodeSelector>) + sizeof(std::string),
                "a new field of AllocationResult: reset it here");
  result.devices.config.clear();
  result.node_selector.reset();
  result.allocation_timestamp.clear();
  auto& results = result.devices.results;
  results.resize(count);
  for (api::DeviceRequestAllocationResult& r : results) {
    r.request.clear();
    r.driver.clear();
    r.pool.clear();
    r.device.clear();
    r.admin_access.reset();
    r.tolerations.clear();
    r.binding_conditions.clear();
    r.binding_failure_conditions.clear();
    r.share_id.reset();
    if (!r.consumed_capacity.empty()) r.consumed_capacity = {};
    r.skip_node_operations.clear();
  }
}

// PreparedClaims identities (0 is none).
std::atomic<uint64_t> next_prepared_id{1};
enum class Verdict : uint8_t { kYes, kClass, kRequest, kNode, kBinding };
enum class TakeResult { kTaken, kInUse, kCounters, kIncompatible, kTaint, kConstraint, kCapacity, kError };

// All per-call state. Reused from call to call on one thread (Allocate keeps
// one per thread), so Reset clears without giving memory back.
class Search {
 public:
  // The outcome into `fit`, reusing its buffers (unspecified on error).
  Status Run(const Allocator& allocator, internal::AllocatorCache& cache, const NodeState& state, const api::Node& node,
             std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id, Allocator::ResultDetail detail,
             const DevicePreference* preference, NodeFit& fit);
  bool busy() const { return busy_; }

 private:
  void Reset(const Allocator& allocator, internal::AllocatorCache& cache, const NodeState& state,
             const api::Node& node);
  const std::vector<Pool>& pools() const { return state_->pools; }
  const std::vector<Candidate>& candidates() const { return state_->candidates; }

  // Prepare, or when `prepared_id` (a PreparedClaims) is the one the last
  // successful Prepare of this Search was made for, on the same Allocator
  // and cache, Renew: the same outcome, without the lookups.
  Status PrepareFor(std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id);
  Status Prepare(std::span<const api::ResourceClaim* const> claims);
  // Back to the state Prepare left: what the last call changed in claims_
  // (records, constraints, the subrequest chosen, preference flags) reset.
  void Renew();
  Status PrepareEntry(PreparedClaim& claim, int request_idx, int entry_idx, Entry& entry,
                      const std::string& device_class_name, const std::vector<api::DeviceSelector>& selectors,
                      const std::optional<bool>& admin_access, const api::EnumString<api::AllocationMode>& mode,
                      int64_t count);
  size_t AddTables(const std::vector<api::DeviceSelector>& selectors);

  // Counting before searching: true (and reason_ set) when some request
  // cannot get enough devices even if it had the node to itself, so the
  // search would fail; false when the search must decide.
  bool ShortfallWithoutSearch();
  // Devices `entry` could take in the best case (nothing else taken in this
  // call), stopping at `enough`; `stats` (optional) counts the others by
  // cause. Not OK when a selector fails on a device the search could try.
  StatusOr<int64_t> CountUsable(int claim_idx, int request_idx, int entry_idx, int64_t enough, Reason* stats);

  Outcome Step(int claim_idx, int request_idx, int entry_idx, int64_t device_idx, bool in_subrequest);
  StatusOr<Verdict> Selectable(int candidate, int claim_idx, int request_idx, int entry_idx);
  TakeResult Take(int claim_idx, int request_idx, int entry_idx, int candidate, bool must);
  void Undo(int claim_idx);
  void CountRejection(TakeResult r);
  void NoteFailure(int claim_idx, const Entry& entry);

  // Whether `claim_idx` took `candidate` exclusively (and has not undone it).
  bool TakenBy(int candidate, int claim_idx) const {
    if (taker_count_[static_cast<size_t>(candidate)] == 0) return false;
    return std::find(takers_.begin(), takers_.end(), std::pair<int, int>(candidate, claim_idx)) != takers_.end();
  }

  const CounterSets& Available(int pool);
  CounterSets& Consumed(int pool);
  // The pool's DenseCounters if this call uses them for it, else nullptr.
  const internal::DenseCounters* Dense(int pool) const {
    if (!dense_) return nullptr;
    const auto& dense = state_->dense;
    const size_t p = static_cast<size_t>(pool);
    return p < dense.size() && dense[p].exact ? &dense[p] : nullptr;
  }
  std::vector<int64_t>& DenseConsumed(int pool, size_t slots);
  bool CountersFit(int candidate);
  // A result of an allocated claim shares the device (AllocatedState::
  // shared_device_ids has "driver/pool/device/<shareID>").
  bool SharedInUse(int candidate) const {
    const auto& shared = a_->allocated().shared_device_ids;
    if (shared.empty()) return false;
    const std::string prefix = Id(candidate) + "/";
    auto it = shared.lower_bound(std::string_view(prefix));
    return it != shared.end() && std::string_view(*it).substr(0, prefix.size()) == prefix;
  }
  void GiveBackCounters(int candidate);
  // DRADeviceCompatibilityGroups (§8.1): whether `candidate` may join every
  // counter set it draws from; if so its groups are folded in and `*saved`
  // entries pushed onto groups_undo_, which RestoreGroups(saved) pops.
  // `baseline_only`: against the allocated devices alone, changing nothing.
  bool TakeGroups(int candidate, uint16_t* saved, bool baseline_only = false);
  void RestoreGroups(uint16_t saved);
  // The constraint `constraint_idx` of the claim for `candidate` taken by
  // `entry`, whose request defines derived attributes (§7.4): the derived
  // value where the constraint's attribute is one, else as Constraint::Add.
  // Not OK when evaluating the derived attribute fails.
  StatusOr<bool> AddWithDerived(PreparedClaim& claim, const Entry& entry, size_t constraint_idx, int candidate);
  // DeviceChoice::kBestFit: sets entry.order (best_fit.h) from the devices the
  // claim took so far and the counters left in this call.
  void OrderForBestFit(int claim_idx, Entry& entry);
  // DevicePreference: the entry's preferred devices (those of this node, in
  // the caller's order) first, then entry.order (or the driver's order).
  // False when no preference names the entry (entry.order is then unset).
  bool OrderForPreference(int claim_idx, Entry& entry);
  // The counter sets of a pool as published (no consumption subtracted).
  const CounterSets& Totals(int pool_idx);

  // Into `result`, whatever it held before (its buffers reused).
  Status BuildResult(const PreparedClaim& claim, api::AllocationResult& result);
  // Allocator::ResultDetail::kSummary's result.
  Status BuildSummary(const PreparedClaim& claim, api::AllocationResult& result);

  // "driver/pool/device" of a candidate, for messages.
  std::string Id(int candidate) const {
    const Candidate& c = candidates()[static_cast<size_t>(candidate)];
    const Pool& pool = pools()[static_cast<size_t>(c.pool)];
    return DeviceIdString(pool.driver, pool.name, c.device->name);
  }

  const Allocator* a_ = nullptr;
  const Features* f_ = nullptr;
  internal::AllocatorCache* cache_ = nullptr;
  const NodeState* state_ = nullptr;
  const api::Node* node_ = nullptr;
  bool busy_ = false;

  // claims_[0, num_claims_) are this call's; later ones are kept for reuse.
  std::vector<PreparedClaim> claims_;
  size_t num_claims_ = 0;
  std::vector<const VerdictTable*> tables_;  // see Entry::class_tables
  // What claims_ and tables_ were prepared for (PrepareFor): a PreparedClaims
  // (0: none, prepare again), on this Allocator and cache, for these claims.
  uint64_t prepared_id_ = 0;
  // Ids, not addresses: a new Allocator or cache may take a freed one's.
  uint64_t prepared_allocator_ = 0;
  uint64_t prepared_cache_ = 0;
  std::vector<const api::ResourceClaim*> prepared_claims_;
  bool has_all_ = false;  // some entry of claims_ is in All mode (set by Prepare)

  std::vector<uint32_t> taker_count_;                                // per candidate
  std::vector<std::pair<int, int>> takers_;                          // (candidate, claim), in take order
  std::vector<std::optional<CapacityAmounts>> allocating_capacity_;  // per candidate (consumable capacity)
  // Counters consumed in this call, per pool (driver and pool name: upstream
  // 1.37 keys them by pool ID; keying by pool name only is older, quirk Q9).
  std::vector<CounterSets> consumed_by_pool_;
  // The same for the pools with exact DenseCounters, per slot (never beyond
  // kDenseLimit in magnitude, see there), when dense_
  // (every call but best fit's, whose ordering reads consumed_by_pool_).
  bool dense_ = false;
  std::vector<std::vector<int64_t>> dense_consumed_;
  // DRADeviceCompatibilityGroups: per pool, per counter set in use in this
  // call, the rolling intersection (seeded from NodeState::groups_baseline),
  // and the undo stack of the takes (the state before each change).
  struct GroupsSaved {
    int pool = 0;
    size_t entry = 0;  // index in groups_running_[pool]
    GroupIntersection before;
  };
  std::vector<std::vector<std::pair<std::string_view, GroupIntersection>>> groups_running_;
  std::vector<GroupsSaved> groups_undo_;
  // DRADerivedAttributes: the values evaluated in this call, per (candidate,
  // expression) (upstream derivedAttributesCache). A deque: constraints keep
  // pointers to the values.
  struct PairHash {
    size_t operator()(const std::pair<int, std::string_view>& k) const {
      return std::hash<std::string_view>()(k.second) * 31 + static_cast<size_t>(k.first);
    }
  };
  std::unordered_map<std::pair<int, std::string_view>, const api::DeviceAttribute*, PairHash> derived_cache_;
  std::deque<api::DeviceAttribute> derived_values_;
  // Best fit: whether this call orders devices, their sizes (DeviceSizer,
  // built on first use) and the published counters per pool.
  bool best_fit_ = false;
  const DevicePreference* preference_ = nullptr;  // kFull calls only; may be null
  std::vector<double> sizes_;
  std::vector<std::optional<CounterSets>> totals_;
  struct BestFitKey {
    int affinity = 2;
    double size = 0;
    double parent_free = 1;
    int64_t placements = 0;
    int64_t free_runs = 0;
  };
  std::vector<BestFitKey> keys_;
  // Per (pool, counter set): the candidates that consume from it.
  std::map<std::pair<int, std::string_view>, std::vector<int>> set_members_;
  // BuildResult's scratch.
  std::vector<TakenDevice> taken_;
  std::vector<AllocatedRequest> allocated_requests_;

  uint64_t steps_ = 0;
  Status error_;
  Reason reason_;
  // ShortfallWithoutSearch's scratch: the entries counted over every device,
  // and the last one's reasons.
  struct Counted {
    size_t claim, request, entry;
  };
  std::vector<Counted> counted_all_;
  Reason shortfall_reason_;
  std::pair<int, int> deepest_failure_{-1, -1};
  // The claim and request named in the reason; the strings are built once,
  // when the call ends without a fit (reason_request_ views this call's
  // entries or claims).
  int reason_claim_ = -1;
  std::string_view reason_request_;
};

void Search::Reset(const Allocator& allocator, internal::AllocatorCache& cache, const NodeState& state,
                   const api::Node& node) {
  a_ = &allocator;
  f_ = &allocator.features();
  cache_ = &cache;
  state_ = &state;
  node_ = &node;
  const size_t n = state.candidates.size();
  taker_count_.assign(n, 0);
  takers_.clear();
  if (f_->consumable_capacity) {
    allocating_capacity_.assign(n, std::nullopt);
  } else {
    allocating_capacity_.clear();
  }
  consumed_by_pool_.clear();
  for (auto& consumed : dense_consumed_) consumed.clear();
  // (Only calls with the 1.37 alpha features fill these.)
  if (!groups_running_.empty()) {
    groups_running_.clear();
    groups_undo_.clear();
  }
  if (!derived_values_.empty()) {
    derived_cache_.clear();
    derived_values_.clear();
  }
  dense_ = false;
  best_fit_ = false;
  preference_ = nullptr;
  sizes_.clear();
  totals_.clear();
  set_members_.clear();
  steps_ = 0;
  error_ = OkStatus();
  ClearReason(reason_);
  deepest_failure_ = {-1, -1};
  reason_claim_ = -1;
  reason_request_ = {};
}

size_t Search::AddTables(const std::vector<api::DeviceSelector>& selectors) {
  const size_t first = tables_.size();
  for (const api::DeviceSelector& selector : selectors) {
    tables_.push_back(selector.cel ? &cache_->Table(selector.cel->expression) : nullptr);
  }
  return first;
}

Status Search::PrepareEntry(PreparedClaim& claim, int request_idx, int entry_idx, Entry& entry,
                            const std::string& device_class_name, const std::vector<api::DeviceSelector>& selectors,
                            const std::optional<bool>& admin_access, const api::EnumString<api::AllocationMode>& mode,
                            int64_t count) {
  auto where = [&] { return fmt::format("claim {}, request {}", ClaimName(claim), entry.name); };
  if (entry.derived != nullptr && !f_->derived_attributes) {
    // Upstream refuses rather than ignore constraints it cannot honour (§7.4).
    return InvalidArgumentError(
        fmt::format("{}: cannot handle request with derived attributes, the feature is disabled", where()));
  }
  for (size_t i = 0; i < selectors.size(); ++i) {
    if (!selectors[i].cel) {
      return InvalidArgumentError(
          fmt::format("{}: selector #{}: CEL expression empty (unsupported selector type?)", where(), i));
    }
  }
  if (admin_access.has_value() && !f_->admin_access) {
    return InvalidArgumentError(fmt::format("{}: admin access is requested, but the feature is disabled", where()));
  }
  if (device_class_name.empty()) {
    return InvalidArgumentError(fmt::format("{}: missing device class name (unsupported request type?)", where()));
  }
  entry.device_class = a_->FindClass(device_class_name);
  if (entry.device_class == nullptr) {
    return NotFoundError(
        fmt::format("{}: could not retrieve device class {}: deviceclass.resource.k8s.io \"{}\" not found", where(),
                    device_class_name, device_class_name));
  }
  entry.selectors = &selectors;
  entry.class_tables = AddTables(entry.device_class->spec.selectors);
  entry.request_tables = AddTables(selectors);
  entry.admin_access = admin_access.value_or(false);
  if (mode == api::AllocationMode::kExactCount) {
    entry.num_devices = count;
    return OkStatus();
  }
  if (!(mode == api::AllocationMode::kAll)) {
    return InvalidArgumentError(fmt::format("{}: unsupported count mode {}", where(), mode.text()));
  }
  entry.all = true;
  has_all_ = true;
  int claim_idx = static_cast<int>(&claim - claims_.data());
  for (size_t pool_idx = 0; pool_idx < pools().size(); ++pool_idx) {
    const Pool& pool = pools()[pool_idx];
    if (pool.incomplete) {
      return FailedPreconditionError(
          fmt::format("{}: asks for all devices, but resource pool {}/{} is currently being updated", where(),
                      pool.driver, pool.name));
    }
    if (pool.invalid) {
      return FailedPreconditionError(fmt::format(
          "{}: asks for all devices, but resource pool {}/{} is currently invalid", where(), pool.driver, pool.name));
    }
  }
  for (size_t c = 0; c < candidates().size(); ++c) {
    int candidate = static_cast<int>(c);
    DRA_ASSIGN_OR_RETURN(Verdict v, Selectable(candidate, claim_idx, request_idx, entry_idx));
    if (v != Verdict::kYes) continue;
    if (f_->consumable_capacity && !CapacityFitsTrivially(*entry.capacity, *candidates()[c].device, nullptr, nullptr)) {
      // The device's total capacity only (upstream 1.37): capacity that other
      // claims already consume is rechecked when the device is taken, so a
      // matching device that is partly used makes the All request fail rather
      // than drop out of the set.
      StatusOr<bool> fit =
          CapacityFits(*entry.capacity, *candidates()[c].device, nullptr, nullptr, f_->fractional_capacity_range);
      if (!fit.ok()) {
        return Status(fit.status().code(), fmt::format("{}: checking capacity for device {}: {}", where(),
                                                       Id(candidate), fit.status().message()));
      }
      if (!*fit) continue;
    }
    entry.all_devices.push_back(candidate);
  }
  entry.num_devices = static_cast<int64_t>(entry.all_devices.size());
  return OkStatus();
}

Status Search::PrepareFor(std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id) {
  if (prepared_id != 0 && prepared_id == prepared_id_ && prepared_allocator_ == a_->id() &&
      prepared_cache_ == cache_->id &&
      std::equal(claims.begin(), claims.end(), prepared_claims_.begin(), prepared_claims_.end())) {
    Renew();
    return OkStatus();
  }
  prepared_id_ = 0;
  DRA_RETURN_IF_ERROR(Prepare(claims));
  // All mode lists the node's devices: such claims are prepared per call.
  if (prepared_id != 0 && !has_all_) {
    prepared_id_ = prepared_id;
    prepared_allocator_ = a_->id();
    prepared_cache_ = cache_->id;
    prepared_claims_.assign(claims.begin(), claims.end());
  }
  return OkStatus();
}

void Search::Renew() {
  for (size_t claim_idx = 0; claim_idx < num_claims_; ++claim_idx) {
    PreparedClaim& prepared = claims_[claim_idx];
    prepared.records.clear();
    // Constraints remember the devices added: new ones, as Prepare made them
    // (it checked that each spec makes one).
    prepared.constraints.clear();
    for (const api::DeviceConstraint& spec : prepared.claim->spec.devices.constraints) {
      prepared.constraints.push_back(NewConstraint(spec, f_->list_type_attributes));
    }
    for (PreparedRequest& request : prepared.requests) {
      request.selected = 0;
      for (Entry& entry : request.entries) entry.preferred = false;
    }
  }
}

Status Search::Prepare(std::span<const api::ResourceClaim* const> claims) {
  // Reuse the PreparedClaims (and their vectors) of earlier calls.
  if (claims_.size() < claims.size()) claims_.resize(claims.size());
  num_claims_ = claims.size();
  tables_.clear();
  has_all_ = false;
  for (size_t claim_idx = 0; claim_idx < claims.size(); ++claim_idx) {
    const api::ResourceClaim& claim = *claims[claim_idx];
    PreparedClaim& prepared = claims_[claim_idx];
    prepared.claim = &claim;
    prepared.constraints.clear();
    prepared.records.clear();
    const auto& requests = claim.spec.devices.requests;
    prepared.requests.resize(requests.size());
    for (PreparedRequest& pr : prepared.requests) {
      pr.has_subrequests = false;
      pr.entries.clear();
      pr.selected = 0;
    }
    int64_t min_devices = 0;
    for (size_t request_idx = 0; request_idx < requests.size(); ++request_idx) {
      const api::DeviceRequest& request = requests[request_idx];
      PreparedRequest& pr = prepared.requests[request_idx];
      auto where = [&] { return fmt::format("claim {}, request {}", ClaimName(prepared), request.name); };
      if (!request.first_available.empty() && !f_->prioritized_list) {
        return InvalidArgumentError(
            fmt::format("{}: has subrequests, but the DRAPrioritizedList feature is disabled", where()));
      }
      if (!f_->consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return InvalidArgumentError(
              fmt::format("{}: has capacity requests, but the DRAConsumableCapacity feature is disabled", where()));
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (sub.capacity) {
            return InvalidArgumentError(fmt::format(
                "claim {}, subrequest {}: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                ClaimName(prepared), sub.name));
          }
        }
      }
      if (request.exactly) {
        const api::ExactDeviceRequest& ex = *request.exactly;
        Entry& e = pr.entries.emplace_back();
        e.name = request.name;
        e.request = request.name;
        e.tolerations = &ex.tolerations;
        e.capacity = &ex.capacity;
        e.derived = ex.derived_attributes.empty() ? nullptr : &ex.derived_attributes;
        DRA_RETURN_IF_ERROR(PrepareEntry(prepared, static_cast<int>(request_idx), 0, e, ex.device_class_name,
                                         ex.selectors, ex.admin_access, ex.allocation_mode, ex.count));
        min_devices += e.num_devices;
      } else if (!request.first_available.empty()) {
        pr.has_subrequests = true;
        pr.entries.resize(request.first_available.size());
        int64_t min_sub = -1;
        for (size_t sub_idx = 0; sub_idx < request.first_available.size(); ++sub_idx) {
          const api::DeviceSubRequest& sub = request.first_available[sub_idx];
          Entry& e = pr.entries[sub_idx];
          e.name = fmt::format("{}/{}", request.name, sub.name);
          e.request = request.name;
          e.subrequest = sub.name;
          e.tolerations = &sub.tolerations;
          e.capacity = &sub.capacity;
          e.derived = sub.derived_attributes.empty() ? nullptr : &sub.derived_attributes;
          DRA_RETURN_IF_ERROR(PrepareEntry(prepared, static_cast<int>(request_idx), static_cast<int>(sub_idx), e,
                                           sub.device_class_name, sub.selectors, std::nullopt, sub.allocation_mode,
                                           sub.count));
          if (min_sub < 0 || e.num_devices < min_sub) min_sub = e.num_devices;
        }
        min_devices += std::max<int64_t>(min_sub, 0);
      } else {
        return InvalidArgumentError(fmt::format("{}: missing device class name (unsupported request type?)", where()));
      }
    }
    if (min_devices > kMaxDevicesPerClaim) {
      return InvalidArgumentError(fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}",
                                              ClaimName(prepared), min_devices, kMaxDevicesPerClaim));
    }
    const auto& constraints = claim.spec.devices.constraints;
    for (size_t i = 0; i < constraints.size(); ++i) {
      std::unique_ptr<Constraint> c = NewConstraint(constraints[i], f_->list_type_attributes);
      if (c == nullptr) {
        return InvalidArgumentError(fmt::format(
            "claim {}, constraint #{}: empty constraint (unsupported constraint type?)", ClaimName(prepared), i));
      }
      prepared.constraints.push_back(std::move(c));
    }
  }
  return OkStatus();
}

StatusOr<Verdict> Search::Selectable(int candidate, int claim_idx, int request_idx, int entry_idx) {
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  const api::Device& device = *c.device;
  if (!f_->device_binding_and_status && !device.rare->binding_conditions.empty()) return Verdict::kBinding;
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];

  const std::string& driver = c.slice->spec.driver;
  // Selectors in order, stopping at the first false one, as without the
  // tables; a verdict already in the table stands for an evaluation that
  // would give it again. `is_class`: the owner in messages is the class, else
  // the claim (built only for an error).
  auto evaluate = [&](const std::vector<api::DeviceSelector>& selectors, size_t first_table,
                      bool is_class) -> StatusOr<bool> {
    for (size_t i = 0; i < selectors.size(); ++i) {
      const VerdictTable* table = tables_[first_table + i];
      if (table == nullptr) continue;  // no CEL: rejected during preparation
      std::atomic<uint8_t>& cell = table->verdicts[c.device_id];
      uint8_t known = cell.load(std::memory_order_relaxed);
      if (known == VerdictTable::kUnknown) {
        known = FillSliceVerdicts(*table, *cache_->store, a_->selectors(), selectors[i].cel->expression, c);
      }
      if (known == VerdictTable::kTried) {
        StatusOr<bool> match = a_->selectors().Evaluate(selectors[i].cel->expression, device, driver);
        if (!match.ok()) {
          std::string owner = is_class ? "class " + entry.device_class->metadata.name : "claim " + ClaimName(claim);
          if (match.status().code() == StatusCode::kInvalidArgument) {
            return InvalidArgumentError(
                fmt::format("{}: selector #{}: CEL compile error: {}", owner, i, match.status().message()));
          }
          return FailedPreconditionError(fmt::format("{}: selector #{} on device {}: CEL runtime error: {}", owner, i,
                                                     Id(candidate), match.status().message()));
        }
        known = *match ? VerdictTable::kTrue : VerdictTable::kFalse;
        cell.store(known, std::memory_order_relaxed);
      }
      if (known == VerdictTable::kFalse) return false;
    }
    return true;
  };
  // Usually every verdict is in the tables already: read them without the
  // evaluation machinery (kTrue: all true so far; kFalse: one false before
  // any unknown; kUnknown: evaluate as above).
  auto known = [&](size_t count, size_t first_table) {
    for (size_t i = 0; i < count; ++i) {
      const VerdictTable* table = tables_[first_table + i];
      if (table == nullptr) continue;
      const uint8_t v = table->verdicts[c.device_id].load(std::memory_order_relaxed);
      if (v != VerdictTable::kTrue) return v;
    }
    return VerdictTable::kTrue;
  };
  const std::vector<api::DeviceSelector>& class_selectors = entry.device_class->spec.selectors;
  switch (known(class_selectors.size(), entry.class_tables)) {
    case VerdictTable::kTrue: break;
    case VerdictTable::kFalse: return Verdict::kClass;
    default: {
      DRA_ASSIGN_OR_RETURN(bool class_ok, evaluate(class_selectors, entry.class_tables, true));
      if (!class_ok) return Verdict::kClass;
    }
  }
  switch (known(entry.selectors->size(), entry.request_tables)) {
    case VerdictTable::kTrue: break;
    case VerdictTable::kFalse: return Verdict::kRequest;
    default: {
      DRA_ASSIGN_OR_RETURN(bool request_ok, evaluate(*entry.selectors, entry.request_tables, false));
      if (!request_ok) return Verdict::kRequest;
    }
  }
  switch (c.on_node) {
    case OnNode::kNotApplicable:
    case OnNode::kYes: return Verdict::kYes;
    case OnNode::kNo: return Verdict::kNode;
    case OnNode::kError: break;
  }
  // The device's node selector cannot be evaluated: evaluate it again for
  // the error, now that the search has reached the device.
  const api::DeviceRareFields& rare = device.rare.get();
  DRA_ASSIGN_OR_RETURN(bool on_node, ScopeMatches(rare.node_name, rare.all_nodes, rare.node_selector, *node_,
                                                  "device " + Id(candidate)));
  return on_node ? Verdict::kYes : Verdict::kNode;
}

CounterSets& Search::Consumed(int pool_idx) {
  if (consumed_by_pool_.size() < pools().size()) consumed_by_pool_.resize(pools().size());
  return consumed_by_pool_[static_cast<size_t>(pool_idx)];
}

const CounterSets& Search::Available(int pool_idx) {
  // Computed when the node was first seen (every pool with candidates, with
  // DRAPartitionableDevices, the only way here).
  static const CounterSets kNone;
  const auto& precomputed = state_->available;
  if (static_cast<size_t>(pool_idx) < precomputed.size() && precomputed[static_cast<size_t>(pool_idx)]) {
    return *precomputed[static_cast<size_t>(pool_idx)];
  }
  return kNone;
}

std::vector<int64_t>& Search::DenseConsumed(int pool_idx, size_t slots) {
  if (dense_consumed_.size() < pools().size()) dense_consumed_.resize(pools().size());
  std::vector<int64_t>& consumed = dense_consumed_[static_cast<size_t>(pool_idx)];
  if (consumed.size() != slots) consumed.assign(slots, 0);
  return consumed;
}

bool Search::CountersFit(int candidate) {
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  if (const internal::DenseCounters* dense = Dense(c.pool)) {
    std::vector<int64_t>& consumed = DenseConsumed(c.pool, dense->available.size());
    for (uint32_t u = c.uses_begin; u < c.uses_begin + c.uses_count; ++u) {
      consumed[dense->uses[u].slot] += dense->uses[u].amount;
    }
    // Every counter of every set of the pool is checked, not only D's (§8).
    for (size_t slot = 0; slot < consumed.size(); ++slot) {
      if (dense->available[slot] < consumed[slot]) {
        GiveBackCounters(candidate);
        return false;
      }
    }
    return true;
  }
  const CounterSets& available = Available(c.pool);
  CounterSets& consumed = Consumed(c.pool);
  for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
    auto& set = consumed[use.counter_set];
    for (const auto& [name, counter] : use.counters) {
      auto it = set.find(name.view());
      if (it == set.end()) {
        set.emplace(std::string(name.view()), counter.value);
        continue;
      }
      StatusOr<Quantity> sum = it->second.Add(counter.value);
      if (sum.ok()) it->second = *sum;
    }
  }
  // Every counter of every set of the pool is checked, not only D's (§8).
  for (const auto& [set_name, counters] : available) {
    auto used_set = consumed.find(set_name);
    for (const auto& [name, have] : counters) {
      Quantity used;
      if (used_set != consumed.end()) {
        auto u = used_set->second.find(name);
        if (u != used_set->second.end()) used = u->second;
      }
      if (have.Compare(used) < 0) {
        GiveBackCounters(candidate);
        return false;
      }
    }
  }
  return true;
}

void Search::GiveBackCounters(int candidate) {
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  if (const internal::DenseCounters* dense = Dense(c.pool)) {
    std::vector<int64_t>& consumed = DenseConsumed(c.pool, dense->available.size());
    for (uint32_t u = c.uses_begin; u < c.uses_begin + c.uses_count; ++u) {
      consumed[dense->uses[u].slot] -= dense->uses[u].amount;
    }
    return;
  }
  CounterSets& consumed = Consumed(c.pool);
  for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
    auto& set = consumed[use.counter_set];
    for (const auto& [name, counter] : use.counters) {
      auto it = set.find(name.view());
      if (it == set.end()) continue;
      StatusOr<Quantity> left = it->second.Sub(counter.value);
      if (left.ok()) it->second = *left;
    }
  }
}

const CounterSets& Search::Totals(int pool_idx) {
  if (totals_.size() < pools().size()) totals_.resize(pools().size());
  std::optional<CounterSets>& totals = totals_[static_cast<size_t>(pool_idx)];
  if (!totals) {
    totals.emplace();
    for (const api::ResourceSlice* s : pools()[static_cast<size_t>(pool_idx)].counter_slices) {
      for (const api::CounterSet& set : s->spec.shared_counters) {
        auto& counters = (*totals)[set.name];
        for (const auto& [name, counter] : set.counters)
          counters.insert_or_assign(std::string(name.view()), counter.value);
      }
    }
  }
  return *totals;
}

void Search::OrderForBestFit(int claim_idx, Entry& entry) {
  static constexpr std::string_view kPcieRoot = "resource.kubernetes.io/pcieRoot";
  static constexpr std::string_view kNumaNode = "resource.kubernetes.io/numaNode";
  const size_t n = candidates().size();
  if (sizes_.size() != n) {
    DeviceSizer sizer;
    for (const Candidate& c : candidates()) sizer.Add(*c.device);
    sizes_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Candidate& c = candidates()[i];
      sizes_[i] = sizer.Size(*c.device);
      if (c.allocated) continue;
      for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
        set_members_[{c.pool, use.counter_set}].push_back(static_cast<int>(i));
      }
    }
  }
  // Where the devices this claim took so far sit.
  std::vector<const api::DeviceAttribute*> roots, numa_nodes;
  for (const Record& r : claims_[static_cast<size_t>(claim_idx)].records) {
    const Candidate& c = candidates()[static_cast<size_t>(r.candidate)];
    if (const api::DeviceAttribute* a = LookupAttribute(*c.device, c.slice->spec.driver, kPcieRoot)) roots.push_back(a);
    if (const api::DeviceAttribute* a = LookupAttribute(*c.device, c.slice->spec.driver, kNumaNode)) {
      numa_nodes.push_back(a);
    }
  }
  auto shares = [](const std::vector<const api::DeviceAttribute*>& taken, const api::DeviceAttribute* a) {
    return a != nullptr &&
           std::any_of(taken.begin(), taken.end(), [a](const api::DeviceAttribute* t) { return *t == *a; });
  };
  keys_.assign(n, BestFitKey{});
  CounterAmounts left;
  for (size_t i = 0; i < n; ++i) {
    const Candidate& c = candidates()[i];
    BestFitKey& key = keys_[i];
    key.size = sizes_[i];
    if (!roots.empty() || !numa_nodes.empty()) {
      const std::string_view driver = c.slice->spec.driver;
      if (shares(roots, LookupAttribute(*c.device, driver, kPcieRoot))) {
        key.affinity = 0;
      } else if (shares(numa_nodes, LookupAttribute(*c.device, driver, kNumaNode))) {
        key.affinity = 1;
      }
    }
    const auto& consumes = c.device->rare->consumes_counters;
    if (!f_->partitionable_devices || consumes.empty() || c.allocated) continue;
    double free_sum = 0;
    for (const api::DeviceCounterConsumption& use : consumes) {
      // What the set has left in this call, before and after taking the device.
      left.clear();
      const CounterSets& available = Available(c.pool);
      if (auto set = available.find(use.counter_set); set != available.end()) {
        for (const auto& [name, amount] : set->second) left.insert_or_assign(name, amount);
      }
      const CounterSets& consumed = Consumed(c.pool);
      if (auto set = consumed.find(use.counter_set); set != consumed.end()) {
        for (const auto& [name, amount] : set->second) {
          auto it = left.find(name);
          if (it == left.end()) continue;
          if (StatusOr<Quantity> l = it->second.Sub(amount); l.ok()) it->second = *l;
        }
      }
      const CounterSets& totals = Totals(c.pool);
      if (auto set = totals.find(use.counter_set); set != totals.end()) free_sum += FreeFraction(set->second, left);
      for (const auto& [name, counter] : use.counters) {
        auto it = left.find(name.view());
        if (it == left.end()) continue;
        if (StatusOr<Quantity> l = it->second.Sub(counter.value); l.ok()) it->second = *l;
      }
      key.free_runs += LongestFreeSlotRuns(left);
      // The other devices of the set that would still fit.
      for (int other : set_members_[{c.pool, use.counter_set}]) {
        if (other == static_cast<int>(i) || taker_count_[static_cast<size_t>(other)] != 0) continue;
        bool fits = true;
        for (const api::DeviceCounterConsumption& other_use :
             candidates()[static_cast<size_t>(other)].device->rare->consumes_counters) {
          if (other_use.counter_set != use.counter_set) continue;
          for (const auto& [name, counter] : other_use.counters) {
            auto it = left.find(name.view());
            if (it == left.end() || it->second.Compare(counter.value) < 0) fits = false;
          }
        }
        key.placements += fits;
      }
    }
    key.parent_free = free_sum / static_cast<double>(consumes.size());
  }
  entry.order.resize(n);
  for (size_t i = 0; i < n; ++i) entry.order[i] = static_cast<int>(i);
  std::stable_sort(entry.order.begin(), entry.order.end(), [this](int a, int b) {
    const BestFitKey& x = keys_[static_cast<size_t>(a)];
    const BestFitKey& y = keys_[static_cast<size_t>(b)];
    if (x.affinity != y.affinity) return x.affinity < y.affinity;
    if (x.size != y.size) return x.size < y.size;
    if (x.parent_free != y.parent_free) return x.parent_free < y.parent_free;
    if (x.placements != y.placements) return x.placements > y.placements;
    return x.free_runs > y.free_runs;
  });
}

bool Search::OrderForPreference(int claim_idx, Entry& entry) {
  const DevicePreference::Entry* wanted = nullptr;
  for (const DevicePreference::Entry& e : preference_->entries) {
    if (e.claim == static_cast<size_t>(claim_idx) && e.request == entry.name) wanted = &e;
  }
  if (wanted == nullptr || wanted->devices.empty()) return false;
  const size_t n = candidates().size();
  if (!best_fit_) {
    entry.order.resize(n);
    for (size_t i = 0; i < n; ++i) entry.order[i] = static_cast<int>(i);
  }
  // Rank per candidate: its position in the preference, or past its end.
  std::vector<size_t> rank(n, wanted->devices.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string id = Id(static_cast<int>(i));
    for (size_t k = 0; k < wanted->devices.size(); ++k) {
      if (wanted->devices[k] == id) {
        rank[i] = k;
        break;
      }
    }
  }
  std::stable_sort(entry.order.begin(), entry.order.end(),
                   [&rank](int a, int b) { return rank[static_cast<size_t>(a)] < rank[static_cast<size_t>(b)]; });
  return true;
}

TakeResult Search::Take(int claim_idx, int request_idx, int entry_idx, int candidate, bool must) {
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  const api::Device& device = *c.device;
  const bool multi = f_->consumable_capacity && device.allow_multiple_allocations.value_or(false);
  const bool taken_by_this = TakenBy(candidate, claim_idx);

  if (!multi && entry.admin_access && taken_by_this) return TakeResult::kInUse;
  if (!entry.admin_access && (c.allocated || taker_count_[static_cast<size_t>(candidate)] != 0)) {
    return TakeResult::kInUse;
  }
  const auto& consumes = device.rare->consumes_counters;
  if (!f_->partitionable_devices && !consumes.empty()) return TakeResult::kCounters;

  bool counters_added = false;
  const CapacityAmounts* aggregated = c.aggregated;
  // A shared device whose capacity is taken already (by an allocated claim,
  // persisted with or without consumed capacity, or earlier in this call)
  // has its counters accounted for: a further share does not charge them.
  const bool capacity_in_use = multi && (aggregated != nullptr || SharedInUse(candidate) ||
                                         allocating_capacity_[static_cast<size_t>(candidate)]);
  // Compatibility groups (§8.1) are checked, like the counters, only when
  // the counters get charged, and before them.
  uint16_t groups_saved = 0;
  if (f_->compatibility_groups && !capacity_in_use && !consumes.empty() && !TakeGroups(candidate, &groups_saved)) {
    return TakeResult::kIncompatible;
  }
  if (!capacity_in_use && !consumes.empty()) {
    if (!CountersFit(candidate)) {
      RestoreGroups(groups_saved);
      return TakeResult::kCounters;
    }
    counters_added = true;
  }
  // From here on every refusal rolls back what this call changed, in
  // reverse order (upstream 1.37 rollbackDevice; README.md §5.3 and quirk Q9
  // describe the older leaks).
  auto give_back = [&] {
    RestoreGroups(groups_saved);
    if (counters_added) GiveBackCounters(candidate);
  };
  if (f_->device_taints && !TaintsAllow(device, *entry.tolerations)) {
    give_back();
    return TakeResult::kTaint;
  }

  for (size_t i = 0; i < claim.constraints.size(); ++i) {
    bool added = false;
    if (entry.derived == nullptr) {
      added = claim.constraints[i]->Add(entry.request, entry.subrequest, device, c.slice->spec.driver);
    } else {
      StatusOr<bool> derived_added = AddWithDerived(claim, entry, i, candidate);
      if (!derived_added.ok()) {
        for (size_t j = i; j > 0; --j) {
          claim.constraints[j - 1]->Remove(entry.request, entry.subrequest, device, c.slice->spec.driver);
        }
        give_back();
        error_ = derived_added.status();
        return TakeResult::kError;
      }
      added = *derived_added;
    }
    if (added) continue;
    for (size_t j = i; j > 0; --j) {
      claim.constraints[j - 1]->Remove(entry.request, entry.subrequest, device, c.slice->spec.driver);
    }
    give_back();
    if (must) {
      error_ = FailedPreconditionError(
          fmt::format("claim {}, request {}: cannot add device {} because a claim constraint would not be satisfied",
                      ClaimName(claim), entry.name, Id(candidate)));
      return TakeResult::kError;
    }
    return TakeResult::kConstraint;
  }
  if (!multi) {
    ++taker_count_[static_cast<size_t>(candidate)];
    takers_.emplace_back(candidate, claim_idx);
  }

  Record record{.request = request_idx,
                .entry = entry_idx,
                .candidate = candidate,
                .multi = multi,
                .counters_added = counters_added,
                .groups_saved = groups_saved,
                .capacity_entry_existed = false,
                .share_id = std::nullopt,
                .consumed = {}};
  // A shared device's share records what it consumes; otherwise only the
  // verdict matters. (allocating_capacity_ is sized only with the feature.)
  const bool check_capacity =
      f_->consumable_capacity &&
      (multi || !CapacityFitsTrivially(*entry.capacity, device, aggregated,
                                       allocating_capacity_[static_cast<size_t>(candidate)]
                                           ? &*allocating_capacity_[static_cast<size_t>(candidate)]
                                           : nullptr));
  if (check_capacity) {
    auto& allocating = allocating_capacity_[static_cast<size_t>(candidate)];
    StatusOr<std::optional<CapacityAmounts>> fit = CheckCapacity(
        *entry.capacity, device, aggregated, allocating ? &*allocating : nullptr, f_->fractional_capacity_range);
    if (!fit.ok() || !fit->has_value()) {
      if (!multi) {
        --taker_count_[static_cast<size_t>(candidate)];
        takers_.pop_back();
      }
      for (size_t j = claim.constraints.size(); j > 0; --j) {
        claim.constraints[j - 1]->Remove(entry.request, entry.subrequest, device, c.slice->spec.driver);
      }
      give_back();
      if (!fit.ok()) {
        error_ =
            FailedPreconditionError(fmt::format("claim {}, request {}: rechecking capacity for device {}: {}",
                                                ClaimName(claim), entry.name, Id(candidate), fit.status().message()));
        return TakeResult::kError;
      }
      return TakeResult::kCapacity;
    }
    if (multi) {
      record.capacity_entry_existed = allocating.has_value();
      record.consumed = std::move(**fit);
      record.share_id = a_->options().new_share_id();
      if (!allocating) allocating.emplace();
      for (const auto& [name, amount] : record.consumed) {
        Quantity* sum = allocating->find(name);
        if (sum == nullptr) {
          allocating->insert_or_assign(name, amount);
        } else if (StatusOr<Quantity> s = sum->Add(amount); s.ok()) {
          *sum = *s;
        }
      }
    }
  }
  claim.records.push_back(std::move(record));
  return TakeResult::kTaken;
}

void Search::Undo(int claim_idx) {
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  Record record = std::move(claim.records.back());
  claim.records.pop_back();
  const Entry& entry = claim.requests[static_cast<size_t>(record.request)].entries[static_cast<size_t>(record.entry)];
  const Candidate& c = candidates()[static_cast<size_t>(record.candidate)];
  for (auto& constraint : claim.constraints) {
    constraint->Remove(entry.request, entry.subrequest, *c.device, c.slice->spec.driver);
  }
  if (record.multi) {
    auto& allocating = allocating_capacity_[static_cast<size_t>(record.candidate)];
    if (allocating) {
      if (!record.capacity_entry_existed) {
        allocating.reset();  // this share created the entry
      } else {
        for (const auto& [name, amount] : record.consumed) {
          Quantity* sum = allocating->find(name);
          if (sum == nullptr) continue;
          if (StatusOr<Quantity> s = sum->Sub(amount); s.ok()) *sum = *s;
        }
      }
    }
    RestoreGroups(record.groups_saved);
    if (record.counters_added) GiveBackCounters(record.candidate);
    return;
  }
  auto it = std::find(takers_.rbegin(), takers_.rend(), std::pair<int, int>(record.candidate, claim_idx));
  if (it != takers_.rend()) {
    takers_.erase(std::next(it).base());
    --taker_count_[static_cast<size_t>(record.candidate)];
  }
  RestoreGroups(record.groups_saved);
  if (record.counters_added) GiveBackCounters(record.candidate);
}

bool Search::TakeGroups(int candidate, uint16_t* saved, bool baseline_only) {
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  const size_t pool = static_cast<size_t>(c.pool);
  static const std::vector<std::pair<std::string, GroupIntersection>> kNoBaseline;
  const auto& baseline = pool < state_->groups_baseline.size() ? state_->groups_baseline[pool] : kNoBaseline;
  auto baseline_of = [&](std::string_view set) -> const GroupIntersection* {
    for (const auto& [name, groups] : baseline) {
      if (name == set) return &groups;
    }
    return nullptr;
  };
  if (baseline_only) {
    for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
      const GroupIntersection* b = baseline_of(use.counter_set);
      if (b != nullptr && !b->Admits(use.compatibility_groups)) return false;
    }
    return true;
  }
  if (groups_running_.size() <= pool) groups_running_.resize(pools().size());
  auto& running = groups_running_[pool];
  *saved = 0;
  for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
    size_t entry = 0;
    while (entry < running.size() && running[entry].first != use.counter_set) ++entry;
    if (entry == running.size()) {
      // First use in this call: start from the allocated devices' groups.
      const GroupIntersection* b = baseline_of(use.counter_set);
      running.emplace_back(use.counter_set, b != nullptr ? *b : GroupIntersection());
    }
    GroupIntersection& groups = running[entry].second;
    if (!groups.Admits(use.compatibility_groups)) {
      RestoreGroups(*saved);
      *saved = 0;
      return false;
    }
    groups_undo_.push_back({.pool = c.pool, .entry = entry, .before = groups});
    ++*saved;
    groups.Add(use.compatibility_groups);
  }
  return true;
}

void Search::RestoreGroups(uint16_t saved) {
  for (; saved > 0; --saved) {
    GroupsSaved& undo = groups_undo_.back();
    groups_running_[static_cast<size_t>(undo.pool)][undo.entry].second = std::move(undo.before);
    groups_undo_.pop_back();
  }
}

StatusOr<bool> Search::AddWithDerived(PreparedClaim& claim, const Entry& entry, size_t constraint_idx, int candidate) {
  Constraint& constraint = *claim.constraints[constraint_idx];
  const Candidate& c = candidates()[static_cast<size_t>(candidate)];
  const std::string& driver = c.slice->spec.driver;
  // The last definition of the name counts (upstream builds a map).
  const api::DerivedAttribute* derived = nullptr;
  for (const api::DerivedAttribute& d : *entry.derived) {
    if (d.name == constraint.attribute_name()) derived = &d;
  }
  if (derived == nullptr || !constraint.Applies(entry.request, entry.subrequest)) {
    return constraint.Add(entry.request, entry.subrequest, *c.device, driver);
  }
  const std::pair<int, std::string_view> key(candidate, derived->expression);
  auto cached = derived_cache_.find(key);
  if (cached == derived_cache_.end()) {
    StatusOr<api::DeviceAttribute> value = a_->selectors().EvaluateAttribute(derived->expression, *c.device, driver);
    if (!value.ok()) {
      const std::string what =
          value.status().code() == StatusCode::kInvalidArgument
              ? fmt::format("compile derived attribute {} failed", derived->name)
              : fmt::format("evaluate derived attribute {} on device {} failed", derived->name, Id(candidate));
      const StatusCode code = value.status().code() == StatusCode::kInvalidArgument ? StatusCode::kInvalidArgument
                                                                                    : StatusCode::kFailedPrecondition;
      return Status(code, fmt::format("claim {}, request {}: {}: {}", ClaimName(claim), entry.name, what,
                                      value.status().message()));
    }
    cached = derived_cache_.emplace(key, &derived_values_.emplace_back(*std::move(value))).first;
  }
  return constraint.AddAttribute(*cached->second);
}

void Search::CountRejection(TakeResult r) {
  switch (r) {
    case TakeResult::kInUse: ++reason_.in_use; break;
    case TakeResult::kCounters: ++reason_.counters; break;
    case TakeResult::kIncompatible: ++reason_.incompatible; break;
    case TakeResult::kTaint: ++reason_.taint; break;
    case TakeResult::kConstraint: ++reason_.constraint; break;
    case TakeResult::kCapacity: ++reason_.capacity; break;
    case TakeResult::kTaken:
    case TakeResult::kError: break;
  }
}

void Search::NoteFailure(int claim_idx, const Entry& entry) {
  std::pair<int, int> here{claim_idx, 0};
  // Find the request index of `entry` (small loops; only on failure).
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  for (size_t j = 0; j < claim.requests.size(); ++j) {
    for (const Entry& e : claim.requests[j].entries) {
      if (&e == &entry) here.second = static_cast<int>(j);
    }
  }
  if (here >= deepest_failure_) {
    deepest_failure_ = here;
    reason_claim_ = claim_idx;
    reason_request_ = entry.name;
  }
}

StatusOr<int64_t> Search::CountUsable(int claim_idx, int request_idx, int entry_idx, int64_t enough, Reason* stats) {
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];
  Reason ignored;
  Reason& count = stats != nullptr ? *stats : ignored;
  int64_t usable = 0;
  // Every check below only gets stricter as the search takes devices, so
  // `usable` bounds what the search can ever take for this entry.
  for (size_t c = 0; c < candidates().size() && usable < enough; ++c) {
    const int candidate = static_cast<int>(c);
    const Candidate& cand = candidates()[c];
    // Checked before any selector runs, as in Step: the search never
    // evaluates selectors on devices allocated to other claims.
    if (cand.allocated && !entry.admin_access) {
      ++count.in_use;
      continue;
    }
    DRA_ASSIGN_OR_RETURN(Verdict verdict, Selectable(candidate, claim_idx, request_idx, entry_idx));
    switch (verdict) {
      case Verdict::kYes: break;
      case Verdict::kClass: ++count.class_selector; continue;
      case Verdict::kRequest: ++count.request_selector; continue;
      case Verdict::kNode: ++count.node_selection; continue;
      case Verdict::kBinding: ++count.binding_conditions; continue;
    }
    const api::Device& device = *cand.device;
    const bool multi = f_->consumable_capacity && device.allow_multiple_allocations.value_or(false);
    const CapacityAmounts* aggregated = cand.aggregated;
    if (f_->consumable_capacity && !CapacityFitsTrivially(*entry.capacity, device, aggregated, nullptr)) {
      StatusOr<bool> fit = CapacityFits(*entry.capacity, device, aggregated, nullptr, f_->fractional_capacity_range);
      if (!fit.ok()) return fit.status();  // the search reports it where upstream does
      if (!*fit) {
        ++count.capacity;
        continue;
      }
    }
    const auto& consumes = device.rare->consumes_counters;
    const bool charges_counters = !consumes.empty() && !(multi && (aggregated != nullptr || SharedInUse(candidate)));
    if (charges_counters && f_->compatibility_groups && !TakeGroups(candidate, nullptr, /*baseline_only=*/true)) {
      // Incompatible with devices allocated before: nothing taken later helps.
      ++count.incompatible;
      continue;
    }
    if (charges_counters) {
      // Nothing is consumed in this call yet: the most the counters allow.
      if (!f_->partitionable_devices || !CountersFit(candidate)) {
        ++count.counters;
        continue;
      }
      GiveBackCounters(candidate);
    }
    if (f_->device_taints && !TaintsAllow(device, *entry.tolerations)) {
      ++count.taint;
      continue;
    }
    ++usable;
  }
  return usable;
}

bool Search::ShortfallWithoutSearch() {
  // Find the first request (in search order) without enough usable devices;
  // every subrequest of a firstAvailable request must fall short. A count
  // that stays below its limit went over every device without an error, and
  // is what a count without a limit gives: the checks below reuse it.
  std::vector<Counted>& counted_all = counted_all_;
  counted_all.clear();
  Reason& last_reason = shortfall_reason_;
  int64_t last_usable = 0;
  int short_claim = -1, short_request = -1;
  for (size_t ci = 0; ci < num_claims_ && short_claim < 0; ++ci) {
    const PreparedClaim& claim = claims_[ci];
    for (size_t ri = 0; ri < claim.requests.size() && short_claim < 0; ++ri) {
      bool all_short = true;
      const auto& entries = claim.requests[ri].entries;
      for (size_t ei = 0; ei < entries.size() && all_short; ++ei) {
        const Entry& e = entries[ei];
        if (e.all) {
          if (!e.all_devices.empty()) all_short = false;
          continue;
        }
        ClearReason(last_reason);
        StatusOr<int64_t> usable =
            CountUsable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(ei), e.num_devices, &last_reason);
        if (!usable.ok()) return false;  // the search reports it, or not, as upstream does
        if (*usable >= e.num_devices) {
          all_short = false;
        } else {
          counted_all.push_back({ci, ri, ei});
          last_usable = *usable;
        }
      }
      if (all_short) {
        short_claim = static_cast<int>(ci);
        short_request = static_cast<int>(ri);
      }
    }
  }
  if (short_claim < 0) return false;

  // The search would fail, but upstream's search could meet an error first
  // (a selector failing on some device it tries, an All-mode constraint
  // violation). Answer without searching only when no such error is possible.
  for (size_t ci = 0; ci < num_claims_; ++ci) {
    const PreparedClaim& claim = claims_[ci];
    for (size_t ri = 0; ri < claim.requests.size(); ++ri) {
      const auto& entries = claim.requests[ri].entries;
      for (size_t ei = 0; ei < entries.size(); ++ei) {
        const Entry& e = entries[ei];
        // Evaluating a derived attribute for a constraint can fail (§7.4).
        if (e.derived != nullptr && !claim.constraints.empty()) return false;
        if (e.all) {
          if (!e.all_devices.empty() && !claim.constraints.empty()) return false;
          continue;
        }
        if (std::any_of(counted_all.begin(), counted_all.end(),
                        [&](const Counted& c) { return c.claim == ci && c.request == ri && c.entry == ei; })) {
          continue;
        }
        StatusOr<int64_t> usable = CountUsable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(ei),
                                               std::numeric_limits<int64_t>::max(), nullptr);
        if (!usable.ok()) return false;
      }
    }
  }

  // Why: the devices of the short request by cause (each device once). Its
  // last entry was the last one counted above, over every device.
  const PreparedClaim& claim = claims_[static_cast<size_t>(short_claim)];
  const PreparedRequest& request = claim.requests[static_cast<size_t>(short_request)];
  const Entry& last = request.entries.back();
  ClearReason(reason_);
  reason_claim_ = short_claim;
  reason_request_ = request.has_subrequests ? last.request : std::string_view(last.name);
  if (!last.all) {
    std::swap(reason_, last_reason);
    reason_.needed = last.num_devices;
    reason_.usable = last_usable;
  }
  return true;
}

Outcome Search::Step(int claim_idx, int request_idx, int entry_idx, int64_t device_idx, bool in_subrequest) {
  ++steps_;
  if (a_->options().max_steps != 0 && steps_ > a_->options().max_steps) {
    error_ =
        ResourceExhaustedError(fmt::format("allocation search exceeded {} steps; giving up", a_->options().max_steps));
    return Outcome::kError;
  }
  if (claim_idx == static_cast<int>(num_claims_)) return Outcome::kSuccess;
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  if (request_idx == static_cast<int>(claim.requests.size())) {
    Outcome o = Step(claim_idx + 1, 0, 0, 0, false);
    return o == Outcome::kMaxSize ? Outcome::kFail : o;
  }
  PreparedRequest& request = claim.requests[static_cast<size_t>(request_idx)];
  if (request.has_subrequests && !in_subrequest) {
    bool all_max_size = true;
    for (size_t sub = 0; sub < request.entries.size(); ++sub) {
      Outcome o = Step(claim_idx, request_idx, static_cast<int>(sub), 0, true);
      if (o == Outcome::kSuccess) {
        request.selected = static_cast<int>(sub);
        return o;
      }
      if (o == Outcome::kError) return o;
      if (o != Outcome::kMaxSize) all_max_size = false;
    }
    return all_max_size ? Outcome::kMaxSize : Outcome::kFail;
  }
  Entry& entry = request.entries[static_cast<size_t>(entry_idx)];
  if (entry.all && entry.all_devices.empty()) {
    NoteFailure(claim_idx, entry);
    return Outcome::kFail;
  }
  if (device_idx == entry.num_devices) return Step(claim_idx, request_idx + 1, 0, 0, false);
  if (static_cast<int64_t>(claim.records.size()) + entry.num_devices - device_idx > kMaxDevicesPerClaim) {
    return Outcome::kMaxSize;
  }

  if (entry.all) {
    int candidate = entry.all_devices[static_cast<size_t>(device_idx)];
    TakeResult t = Take(claim_idx, request_idx, entry_idx, candidate, true);
    if (t == TakeResult::kError) return Outcome::kError;
    if (t != TakeResult::kTaken) {
      CountRejection(t);
      NoteFailure(claim_idx, entry);
      return Outcome::kFail;
    }
    Outcome o = Step(claim_idx, request_idx, entry_idx, device_idx + 1, in_subrequest);
    if (o != Outcome::kSuccess) Undo(claim_idx);
    return o;
  }

  if (device_idx == 0) {
    if (best_fit_) OrderForBestFit(claim_idx, entry);
    entry.preferred = preference_ != nullptr && OrderForPreference(claim_idx, entry);
  }
  const int* order = best_fit_ || entry.preferred ? entry.order.data() : nullptr;
  size_t start = device_idx > 0 ? static_cast<size_t>(claim.records.back().pos) + 1 : 0;
  for (size_t pos = start; pos < candidates().size(); ++pos) {
    const size_t c = order != nullptr ? static_cast<size_t>(order[pos]) : pos;
    int candidate = static_cast<int>(c);
    const Candidate& cand = candidates()[c];
    if (entry.admin_access) {
      if (TakenBy(candidate, claim_idx)) {
        ++reason_.in_use;
        continue;
      }
    } else if (cand.allocated || taker_count_[c] != 0) {
      ++reason_.in_use;
      continue;
    }
    StatusOr<Verdict> verdict = Selectable(candidate, claim_idx, request_idx, entry_idx);
    if (!verdict.ok()) {
      error_ = verdict.status();
      return Outcome::kError;
    }
    switch (*verdict) {
      case Verdict::kYes: break;
      case Verdict::kClass: ++reason_.class_selector; continue;
      case Verdict::kRequest: ++reason_.request_selector; continue;
      case Verdict::kNode: ++reason_.node_selection; continue;
      case Verdict::kBinding: ++reason_.binding_conditions; continue;
    }
    if (f_->consumable_capacity &&
        !CapacityFitsTrivially(*entry.capacity, *cand.device, cand.aggregated,
                               allocating_capacity_[c] ? &*allocating_capacity_[c] : nullptr)) {
      const auto& allocating = allocating_capacity_[c];
      StatusOr<bool> fit = CapacityFits(*entry.capacity, *cand.device, cand.aggregated,
                                        allocating ? &*allocating : nullptr, f_->fractional_capacity_range);
      if (!fit.ok()) {
        error_ = Status(fit.status().code(), fmt::format("claim {}, request {}: checking capacity for device {}: {}",
                                                         ClaimName(claims_[static_cast<size_t>(claim_idx)]), entry.name,
                                                         Id(candidate), fit.status().message()));
        return Outcome::kError;
      }
      if (!*fit) {
        ++reason_.capacity;
        continue;
      }
    }
    TakeResult t = Take(claim_idx, request_idx, entry_idx, candidate, false);
    if (t == TakeResult::kError) return Outcome::kError;
    if (t != TakeResult::kTaken) {
      CountRejection(t);
      continue;
    }
    claim.records.back().pos = static_cast<int>(pos);
    Outcome o = Step(claim_idx, request_idx, entry_idx, device_idx + 1, in_subrequest);
    if (o == Outcome::kSuccess) return o;
    Undo(claim_idx);
    if (o == Outcome::kError || o == Outcome::kMaxSize) return o;
  }
  NoteFailure(claim_idx, entry);
  return Outcome::kFail;
}

Status Search::BuildSummary(const PreparedClaim& claim, api::AllocationResult& result) {
  taken_.clear();
  ResetResult(result, claim.records.size());
  for (size_t i = 0; i < claim.records.size(); ++i) {
    const Record& record = claim.records[i];
    const Entry& entry = claim.requests[static_cast<size_t>(record.request)].entries[static_cast<size_t>(record.entry)];
    const Candidate& c = candidates()[static_cast<size_t>(record.candidate)];
    api::DeviceRequestAllocationResult& r = result.devices.results[i];
    r.request.assign(entry.name);
    if (entry.admin_access) r.admin_access = true;
    if (record.multi) r.share_id = record.share_id;
    taken_.push_back({.slice = c.slice, .device = c.device});
  }
  return CheckNodeSelector(taken_, claim.claim->metadata.name);
}

Status Search::BuildResult(const PreparedClaim& claim, api::AllocationResult& result) {
  taken_.clear();
  ResetResult(result, claim.records.size());
  for (size_t i = 0; i < claim.records.size(); ++i) {
    const Record& record = claim.records[i];
    const Entry& entry = claim.requests[static_cast<size_t>(record.request)].entries[static_cast<size_t>(record.entry)];
    const Candidate& c = candidates()[static_cast<size_t>(record.candidate)];
    const Pool& pool = pools()[static_cast<size_t>(c.pool)];
    api::DeviceRequestAllocationResult& r = result.devices.results[i];
    r.request.assign(entry.name);
    r.driver.assign(pool.driver);
    r.pool.assign(pool.name);
    r.device.assign(c.device->name);
    if (entry.admin_access) r.admin_access = true;
    r.tolerations = *entry.tolerations;
    if (f_->device_binding_and_status) {
      r.binding_conditions = c.device->rare->binding_conditions;
      r.binding_failure_conditions = c.device->rare->binding_failure_conditions;
    }
    if (record.multi) {
      r.share_id = record.share_id;
      r.consumed_capacity = record.consumed;
    }
    taken_.push_back({.slice = c.slice, .device = c.device});
  }
  allocated_requests_.clear();
  for (const PreparedRequest& request : claim.requests) {
    const Entry& e = request.entries[static_cast<size_t>(request.selected)];
    allocated_requests_.push_back({.request = e.request, .subrequest = e.subrequest, .device_class = e.device_class});
  }
  result.devices.config = BuildConfig(*claim.claim, allocated_requests_);
  DRA_ASSIGN_OR_RETURN(result.node_selector,
                       BuildNodeSelector(taken_, node_->metadata.name, claim.claim->metadata.name));
  return OkStatus();
}

Status Search::Run(const Allocator& allocator, internal::AllocatorCache& cache, const NodeState& state,
                   const api::Node& node, std::span<const api::ResourceClaim* const> claims, uint64_t prepared_id,
                   Allocator::ResultDetail detail, const DevicePreference* preference, NodeFit& fit) {
  busy_ = true;
  struct Done {
    bool& busy;
    ~Done() { busy = false; }
  } done{busy_};
  Reset(allocator, cache, state, node);
  best_fit_ = allocator.options().device_choice == DeviceChoice::kBestFit && detail == Allocator::ResultDetail::kFull;
  dense_ = !best_fit_;
  if (preference != nullptr && !preference->empty() && detail == Allocator::ResultDetail::kFull) {
    preference_ = preference;
  }
  DRA_RETURN_IF_ERROR(PrepareFor(claims, prepared_id));
  Outcome o = ShortfallWithoutSearch() ? Outcome::kFail : Step(0, 0, 0, 0, false);
  uint64_t earlier_steps = 0;
  if (o == Outcome::kError && (best_fit_ || preference_ != nullptr)) {
    // Where the search meets an error depends on its order (a selector that
    // fails on one device, an All request a constraint refuses, the step
    // limit): search again in the driver's order, so that best fit (or a
    // DevicePreference) fails only where first fit does.
    earlier_steps = steps_;
    Reset(allocator, cache, state, node);
    dense_ = true;  // first fit now
    DRA_RETURN_IF_ERROR(PrepareFor(claims, prepared_id));
    o = ShortfallWithoutSearch() ? Outcome::kFail : Step(0, 0, 0, 0, false);
  }
  if (o == Outcome::kError) return error_;
  fit.steps = earlier_steps + steps_;
  fit.fits = o == Outcome::kSuccess;
  if (fit.fits) {
    ClearReason(fit.reason);
    // The results (and their buffers) of an earlier call are reused.
    fit.results.resize(num_claims_);
    for (size_t claim_idx = 0; claim_idx < num_claims_; ++claim_idx) {
      DRA_RETURN_IF_ERROR(detail == Allocator::ResultDetail::kFull
                              ? BuildResult(claims_[claim_idx], fit.results[claim_idx])
                              : BuildSummary(claims_[claim_idx], fit.results[claim_idx]));
    }
    return OkStatus();
  }
  fit.results.clear();
  // Swapped, not moved: the next call's reason_ reuses fit's old buffers.
  std::swap(fit.reason, reason_);
  if (reason_claim_ >= 0) {
    const api::ObjectMeta& meta = claims_[static_cast<size_t>(reason_claim_)].claim->metadata;
    fit.reason.claim.assign(meta.namespace_).append("/").append(meta.name);
    fit.reason.request.assign(reason_request_);
  }
  if (!state.invalid_message.empty()) {
    fit.reason.invalid_pools = true;
    fit.reason.message = state.invalid_message;
  }
  return OkStatus();
}

}  // namespace

StatusOr<NodeFit> Allocator::Allocate(const api::Node& node, std::span<const api::ResourceClaim* const> claims,
                                      ResultDetail detail) const {
  return Allocate(Handle(node), claims, detail);
}

PreparedClaims::PreparedClaims(std::span<const api::ResourceClaim* const> claims)
    : claims_(claims.begin(), claims.end()), id_(next_prepared_id.fetch_add(1, std::memory_order_relaxed)) {}

StatusOr<NodeFit> Allocator::Allocate(NodeHandle handle, std::span<const api::ResourceClaim* const> claims,
                                      uint64_t prepared_id, ResultDetail detail,
                                      const DevicePreference* preference) const {
  NodeFit fit;
  DRA_RETURN_IF_ERROR(AllocateInto(handle, claims, prepared_id, detail, preference, fit));
  return fit;
}

Status Allocator::AllocateInto(NodeHandle handle, std::span<const api::ResourceClaim* const> claims,
                               uint64_t prepared_id, ResultDetail detail, const DevicePreference* preference,
                               NodeFit& fit) const {
  const NodeState& state = StateOf(handle);
  const api::Node& node = *handle.node_;
  if (!state.error.ok()) return state.error;
  // One Search per thread, reused: its buffers keep their capacity. A call
  // made while it is busy (an evaluator that allocates again) gets its own.
  thread_local Search reusable;
  if (reusable.busy()) {
    Search search;
    return search.Run(*this, *cache_, state, node, claims, 0, detail, preference, fit);
  }
  return reusable.Run(*this, *cache_, state, node, claims, prepared_id, detail, preference, fit);
}

}  // namespace dra::alloc
