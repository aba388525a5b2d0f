#include "alloc/pools.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>

#include "api/node_selector.h"
#include "fmt/format.h"

namespace dra::alloc {
namespace {

bool HasCounterSets(const api::ResourceSlice& s) { return !s.spec.shared_counters.empty(); }

size_t KeyHash(std::string_view k) { return std::hash<std::string_view>{}(k); }
size_t KeyHash(const std::pair<std::string_view, std::string_view>& k) {
  return KeyHash(k.first) * 31 + KeyHash(k.second);
}

// The hash table of SliceIndex (pools.h) over the runs of equal keys of the
// sorted `keys`.
template <typename Key>
std::vector<std::pair<uint32_t, uint32_t>> BuildRuns(const std::vector<Key>& keys) {
  size_t runs = 0;
  for (size_t i = 0; i < keys.size(); ++i) runs += i == 0 || keys[i] != keys[i - 1];
  size_t slots = 1;
  while (slots < 2 * runs) slots *= 2;
  std::vector<std::pair<uint32_t, uint32_t>> table(slots, {0, 0});
  for (size_t begin = 0; begin < keys.size();) {
    size_t end = begin + 1;
    while (end < keys.size() && keys[end] == keys[begin]) ++end;
    size_t slot = KeyHash(keys[begin]) & (slots - 1);
    while (table[slot].second != 0) slot = (slot + 1) & (slots - 1);
    table[slot] = {static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
    begin = end;
  }
  return table;
}

template <typename Key>
std::pair<size_t, size_t> FindRun(const std::vector<std::pair<uint32_t, uint32_t>>& table, const std::vector<Key>& keys,
                                  const Key& key) {
  if (table.empty()) return {0, 0};
  const size_t mask = table.size() - 1;
  for (size_t slot = KeyHash(key) & mask; table[slot].second != 0; slot = (slot + 1) & mask) {
    if (keys[table[slot].first] == key) return table[slot];
  }
  return {0, 0};
}

}  // namespace

StatusOr<bool> ScopeMatches(const std::optional<std::string>& node_name, const std::optional<bool>& all_nodes,
                            const std::optional<api::NodeSelector>& selector, const api::Node& node,
                            std::string_view what) {
  if (node_name && !node_name->empty()) return *node_name == node.metadata.name;
  if (all_nodes.value_or(false)) return true;
  if (selector) {
    StatusOr<bool> match = api::MatchesNodeSelector(*selector, node.metadata.name, node.metadata.labels);
    if (!match.ok()) {
      return InvalidArgumentError(
          fmt::format("failed to perform node selection for {}: failed to parse node selector: {}", what,
                      match.status().message()));
    }
    return *match;
  }
  return false;
}

SliceIndex::SliceIndex(std::vector<const api::ResourceSlice*> slices) : all_(std::move(slices)) {
  // Device numbers in input order, skipping repeated listings.
  std::vector<std::pair<const api::ResourceSlice*, size_t>> listed;  // (slice, input position)
  listed.reserve(all_.size());
  for (size_t i = 0; i < all_.size(); ++i) listed.emplace_back(all_[i], i);
  std::sort(listed.begin(), listed.end());  // by address, then position: first listings first
  std::vector<bool> repeated(all_.size(), false);
  for (size_t i = 1; i < listed.size(); ++i) {
    if (listed[i].first == listed[i - 1].first) repeated[listed[i].second] = true;
  }
  std::vector<size_t> first(all_.size(), 0);
  for (size_t i = 0; i < all_.size(); ++i) {
    if (repeated[i]) continue;
    first[i] = device_count_;
    device_count_ += all_[i]->spec.devices.size();
  }
  first_device_.reserve(all_.size());
  for (const auto& [slice, pos] : listed) {
    if (!repeated[pos]) first_device_.emplace_back(slice, first[pos]);
  }

  for (const api::ResourceSlice* s : all_) {
    for (const api::Device& d : s->spec.devices) {
      const auto& consumes = d.rare->consumes_counters;
      if (std::any_of(consumes.begin(), consumes.end(),
                      [](const api::DeviceCounterConsumption& use) { return !use.compatibility_groups.empty(); })) {
        grouped_.push_back(s);
        break;
      }
    }
  }
  std::sort(grouped_.begin(), grouped_.end());
  grouped_.erase(std::unique(grouped_.begin(), grouped_.end()), grouped_.end());
  std::vector<size_t> on_node, every;
  for (size_t i = 0; i < all_.size(); ++i) {
    const api::ResourceSlice* s = all_[i];
    if (s->spec.node_name && !s->spec.node_name->empty()) {
      on_node.push_back(i);
    } else {
      shared_.push_back(s);
    }
    every.push_back(i);
  }
  std::stable_sort(on_node.begin(), on_node.end(),
                   [&](size_t a, size_t b) { return *all_[a]->spec.node_name < *all_[b]->spec.node_name; });
  node_keys_.reserve(on_node.size());
  by_node_.reserve(on_node.size());
  for (size_t i : on_node) {
    node_keys_.push_back(*all_[i]->spec.node_name);
    by_node_.push_back(all_[i]);
  }
  auto pool_key = [&](size_t i) {
    return std::pair<std::string_view, std::string_view>(all_[i]->spec.driver, all_[i]->spec.pool.name);
  };
  std::stable_sort(every.begin(), every.end(), [&](size_t a, size_t b) { return pool_key(a) < pool_key(b); });
  pool_keys_.reserve(every.size());
  by_pool_.reserve(every.size());
  for (size_t i : every) {
    pool_keys_.push_back(pool_key(i));
    by_pool_.push_back(all_[i]);
  }
  node_runs_ = BuildRuns(node_keys_);
  pool_runs_ = BuildRuns(pool_keys_);
}

std::span<const api::ResourceSlice* const> SliceIndex::OnNode(std::string_view node) const {
  auto [begin, end] = FindRun(node_runs_, node_keys_, node);
  return {by_node_.data() + begin, end - begin};
}

int64_t SliceIndex::FirstDeviceId(const api::ResourceSlice* slice) const {
  auto it = std::lower_bound(first_device_.begin(), first_device_.end(), slice,
                             [](const auto& entry, const api::ResourceSlice* s) { return entry.first < s; });
  return it == first_device_.end() || it->first != slice ? -1 : static_cast<int64_t>(it->second);
}

std::span<const api::ResourceSlice* const> SliceIndex::OfPool(std::string_view driver, std::string_view pool) const {
  auto [begin, end] = FindRun(pool_runs_, pool_keys_, std::pair<std::string_view, std::string_view>(driver, pool));
  return {by_pool_.data() + begin, end - begin};
}

StatusOr<bool> SliceTargetsNode(const api::ResourceSlice& slice, const api::Node& node, const Features& features) {
  const api::ResourceSliceSpec& spec = slice.spec;
  // Partitionable-device slices are invisible without the feature.
  if (!features.partitionable_devices && (spec.per_device_node_selection.has_value() || HasCounterSets(slice))) {
    return false;
  }
  // ScopeMatches' first two cases, without building `what` (only a node
  // selector can fail and needs it).
  if (spec.node_name && !spec.node_name->empty()) return *spec.node_name == node.metadata.name;
  if (spec.all_nodes.value_or(false)) return true;
  std::string what = "ResourceSlice " + slice.metadata.name;
  if (spec.node_selector) return ScopeMatches(spec.node_name, spec.all_nodes, spec.node_selector, node, what);
  if (spec.per_device_node_selection.value_or(false)) {
    for (const api::Device& d : spec.devices) {
      const api::DeviceRareFields& r = d.rare.get();
      DRA_ASSIGN_OR_RETURN(bool match,
                           ScopeMatches(r.node_name, r.all_nodes, r.node_selector, node, what + " device " + d.name));
      if (match) return true;
    }
    return false;
  }
  return false;  // no node selection at all: a future extension we do not know
}

namespace {

// The slices of one pool that target the node, of its newest generation.
struct Collected {
  int64_t generation = 0;
  std::vector<const api::ResourceSlice*> slices;
};
// Keys view the slices' driver and pool names (the slices outlive the call).
using CollectedPools = std::map<std::pair<std::string_view, std::string_view>, Collected>;

// With DRADeviceCompatibilityGroups off, slices using compatibility groups
// are invisible: not collected here and not counted towards completeness
// below, so their pool is incomplete (README.md §3.1 item 2).
bool Hidden(const SliceIndex& index, const Features& features, const api::ResourceSlice* s) {
  return !features.compatibility_groups && index.UsesCompatibilityGroups(s);
}

Status Consider(const SliceIndex& index, const api::Node& node, const Features& features, const api::ResourceSlice* s,
                CollectedPools& collected) {
  if (Hidden(index, features, s)) return OkStatus();
  DRA_ASSIGN_OR_RETURN(bool relevant, SliceTargetsNode(*s, node, features));
  if (!relevant) return OkStatus();
  auto [it, inserted] = collected.try_emplace({s->spec.driver, s->spec.pool.name});
  Collected& c = it->second;
  if (inserted || s->spec.pool.generation > c.generation) {
    c.generation = s->spec.pool.generation;
    c.slices.assign(1, s);
  } else if (s->spec.pool.generation == c.generation) {
    c.slices.push_back(s);
  }
  return OkStatus();
}

// 3. Build the pool (README.md §3.3): slices by name; counter-set slices apart;
// generation-G slices that do not target the node kept for accounting.
void AssignSlices(const Features& features, std::vector<const api::ResourceSlice*>& slices,
                  std::vector<const api::ResourceSlice*>& same_generation, Pool& pool) {
  std::sort(slices.begin(), slices.end(), [](const api::ResourceSlice* a, const api::ResourceSlice* b) {
    return a->metadata.name < b->metadata.name;
  });
  // The targeting slices, sorted by address for lookups (usually one).
  std::vector<const api::ResourceSlice*> targeting(slices.begin(), slices.end());
  std::sort(targeting.begin(), targeting.end());
  for (const api::ResourceSlice* s : slices) {
    if (features.partitionable_devices && HasCounterSets(*s)) {
      pool.counter_slices.push_back(s);
    } else {
      pool.slices.push_back(s);
    }
  }
  std::sort(
      same_generation.begin(), same_generation.end(),
      [](const api::ResourceSlice* a, const api::ResourceSlice* b) { return a->metadata.name < b->metadata.name; });
  for (const api::ResourceSlice* s : same_generation) {
    if (std::binary_search(targeting.begin(), targeting.end(), s)) continue;
    if (features.partitionable_devices && HasCounterSets(*s)) {
      pool.counter_slices.push_back(s);
    } else {
      pool.other_slices.push_back(s);
    }
  }
}

// Duplicate device names: a sorted vector finds whether there is one; the
// message names the first device (in slice order) whose name was seen
// before, so that rare case repeats the scan in order with a set.
void CheckDeviceNames(Pool& pool) {
  std::vector<std::string_view> device_names;
  for (const api::ResourceSlice* s : pool.slices) {
    for (const api::Device& d : s->spec.devices) {
      device_names.push_back(d.name);
      if (!d.rare->binding_conditions.empty()) pool.has_binding_conditions = true;
    }
  }
  std::sort(device_names.begin(), device_names.end());
  if (std::adjacent_find(device_names.begin(), device_names.end()) != device_names.end()) {
    std::set<std::string_view> seen;
    for (const api::ResourceSlice* s : pool.slices) {
      for (const api::Device& d : s->spec.devices) {
        if (!seen.insert(d.name).second && !pool.invalid) {
          pool.invalid = true;
          pool.invalid_reason = "duplicate device name " + d.name;
        }
      }
    }
  }
}

// Every counter use of the devices of `slices` must name a set of `sets` and
// counters of that set; the first one that does not makes the pool invalid.
void CheckConsumers(const std::vector<const api::ResourceSlice*>& slices,
                    const std::map<std::string_view, const api::CounterSet*>& sets, Pool& pool) {
  for (const api::ResourceSlice* s : slices) {
    for (const api::Device& d : s->spec.devices) {
      for (const api::DeviceCounterConsumption& use : d.rare->consumes_counters) {
        if (pool.invalid) return;
        auto set = sets.find(use.counter_set);
        if (set == sets.end()) {
          pool.invalid = true;
          pool.invalid_reason = "counter set " + use.counter_set + " not found";
          return;
        }
        for (const auto& [counter, value] : use.counters) {
          if (set->second->counters.find(counter) == nullptr) {
            pool.invalid = true;
            pool.invalid_reason =
                fmt::format("counter {} not found in counter set {}", counter.view(), use.counter_set);
            return;
          }
        }
      }
    }
  }
}

// Counter sets (partitionable devices): names unique within the pool, and
// the devices' counter uses valid.
void CheckCounterSets(Pool& pool) {
  std::map<std::string_view, const api::CounterSet*> sets;
  for (const api::ResourceSlice* s : pool.counter_slices) {
    for (const api::CounterSet& set : s->spec.shared_counters) {
      if (!sets.emplace(set.name, &set).second && !pool.invalid) {
        pool.invalid = true;
        pool.invalid_reason = "duplicate counter set name " + set.name;
      }
    }
  }
  CheckConsumers(pool.slices, sets, pool);
  CheckConsumers(pool.other_slices, sets, pool);
}

}  // namespace

StatusOr<std::vector<Pool>> GatherPools(const SliceIndex& index, const api::Node& node, const Features& features) {
  // 1. Relevant slices per pool, newest generation only (src/alloc/README.md §3.1).
  CollectedPools collected;
  for (const api::ResourceSlice* s : index.OnNode(node.metadata.name)) {
    DRA_RETURN_IF_ERROR(Consider(index, node, features, s, collected));
  }
  for (const api::ResourceSlice* s : index.WithoutNodeName()) {
    DRA_RETURN_IF_ERROR(Consider(index, node, features, s, collected));
  }

  std::vector<Pool> pools;
  for (auto& [key, c] : collected) {
    Pool pool;
    pool.driver = std::string(key.first);
    pool.name = std::string(key.second);
    pool.generation = c.generation;
    const int64_t announced = c.slices.front()->spec.pool.resource_slice_count;

    // 2. Completeness and obsolescence (README.md §3.2), against every slice of the pool.
    std::vector<const api::ResourceSlice*> same_generation;
    bool obsolete = false;
    for (const api::ResourceSlice* s : index.OfPool(pool.driver, pool.name)) {
      if (s->spec.pool.generation > c.generation) obsolete = true;
      if (s->spec.pool.generation == c.generation && !Hidden(index, features, s)) same_generation.push_back(s);
    }
    if (static_cast<int64_t>(c.slices.size()) != announced) {
      if (obsolete) continue;  // a newer generation exists elsewhere: drop the pool
      if (static_cast<int64_t>(same_generation.size()) != announced) {
        pool.incomplete = true;
        pools.push_back(std::move(pool));
        continue;
      }
    }

    // 3. Build the pool (README.md §3.3).
    AssignSlices(features, c.slices, same_generation, pool);
    CheckDeviceNames(pool);
    if (features.partitionable_devices && !pool.invalid) CheckCounterSets(pool);
    pools.push_back(std::move(pool));
  }

  // 4. Search order (README.md §3.4): driver, pool name; binding-condition pools last.
  // (stable_sort allocates a buffer even for one element.)
  if (pools.size() > 1) {
    std::stable_sort(pools.begin(), pools.end(), [](const Pool& a, const Pool& b) {
      if (a.has_binding_conditions != b.has_binding_conditions) return !a.has_binding_conditions;
      if (a.driver != b.driver) return a.driver < b.driver;
      return a.name < b.name;
    });
  }
  return pools;
}

}  // namespace dra::alloc
