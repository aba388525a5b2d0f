#include "alloc/pools.h"

#include <algorithm>
#include <set>

#include "api/node_selector.h"
#include "fmt/format.h"

namespace dra::alloc {
namespace {

bool HasCounterSets(const api::ResourceSlice& s) { return !s.spec.shared_counters.empty(); }

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
  first_device_.reserve(all_.size());
  for (const api::ResourceSlice* s : all_) {
    // A slice listed twice keeps its first numbers.
    if (first_device_.emplace(s, device_count_).second) device_count_ += s->spec.devices.size();
    if (s->spec.node_name && !s->spec.node_name->empty()) {
      by_node_[*s->spec.node_name].push_back(s);
    } else {
      shared_.push_back(s);
    }
    by_pool_[s->spec.driver + '\n' + s->spec.pool.name].push_back(s);
  }
}

std::span<const api::ResourceSlice* const> SliceIndex::OnNode(std::string_view node) const {
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return {};
  return it->second;
}

int64_t SliceIndex::FirstDeviceId(const api::ResourceSlice* slice) const {
  auto it = first_device_.find(slice);
  return it == first_device_.end() ? -1 : static_cast<int64_t>(it->second);
}

std::span<const api::ResourceSlice* const> SliceIndex::OfPool(std::string_view driver, std::string_view pool) const {
  // Called for every pool of every node: reuse one buffer per thread.
  thread_local std::string key;
  key.assign(driver).append(1, '\n').append(pool);
  auto it = by_pool_.find(key);
  if (it == by_pool_.end()) return {};
  return it->second;
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
      DRA_ASSIGN_OR_RETURN(bool match, ScopeMatches(r.node_name, r.all_nodes, r.node_selector, node,
                                                    what + " device " + d.name));
      if (match) return true;
    }
    return false;
  }
  return false;  // no node selection at all: a future extension we do not know
}

StatusOr<std::vector<Pool>> GatherPools(const SliceIndex& index, const api::Node& node, const Features& features) {
  // 1. Relevant slices per pool, newest generation only (allocator.md §3.1).
  struct Collected {
    int64_t generation = 0;
    std::vector<const api::ResourceSlice*> slices;
  };
  // Keys view the slices' driver and pool names (the slices outlive the call).
  std::map<std::pair<std::string_view, std::string_view>, Collected> collected;
  auto consider = [&](const api::ResourceSlice* s) -> Status {
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
  };
  for (const api::ResourceSlice* s : index.OnNode(node.metadata.name)) DRA_RETURN_IF_ERROR(consider(s));
  for (const api::ResourceSlice* s : index.WithoutNodeName()) DRA_RETURN_IF_ERROR(consider(s));

  std::vector<Pool> pools;
  for (auto& [key, c] : collected) {
    Pool pool;
    pool.driver = std::string(key.first);
    pool.name = std::string(key.second);
    pool.generation = c.generation;
    const int64_t announced = c.slices.front()->spec.pool.resource_slice_count;

    // 2. Completeness and obsolescence (§3.2), against every slice of the pool.
    std::vector<const api::ResourceSlice*> same_generation;
    bool obsolete = false;
    for (const api::ResourceSlice* s : index.OfPool(pool.driver, pool.name)) {
      if (s->spec.pool.generation > c.generation) obsolete = true;
      if (s->spec.pool.generation == c.generation) same_generation.push_back(s);
    }
    if (static_cast<int64_t>(c.slices.size()) != announced) {
      if (obsolete) continue;  // a newer generation exists elsewhere: drop the pool
      if (static_cast<int64_t>(same_generation.size()) != announced) {
        pool.incomplete = true;
        pools.push_back(std::move(pool));
        continue;
      }
    }

    // 3. Build the pool (§3.3): slices by name; counter-set slices apart;
    // generation-G slices that do not target the node kept for accounting.
    std::sort(c.slices.begin(), c.slices.end(),
              [](const api::ResourceSlice* a, const api::ResourceSlice* b) { return a->metadata.name < b->metadata.name; });
    // The targeting slices, sorted by address for lookups (usually one).
    std::vector<const api::ResourceSlice*> targeting(c.slices.begin(), c.slices.end());
    std::sort(targeting.begin(), targeting.end());
    for (const api::ResourceSlice* s : c.slices) {
      if (features.partitionable_devices && HasCounterSets(*s)) {
        pool.counter_slices.push_back(s);
      } else {
        pool.slices.push_back(s);
      }
    }
    std::sort(same_generation.begin(), same_generation.end(),
              [](const api::ResourceSlice* a, const api::ResourceSlice* b) { return a->metadata.name < b->metadata.name; });
    for (const api::ResourceSlice* s : same_generation) {
      if (std::binary_search(targeting.begin(), targeting.end(), s)) continue;
      if (features.partitionable_devices && HasCounterSets(*s)) {
        pool.counter_slices.push_back(s);
      } else {
        pool.other_slices.push_back(s);
      }
    }

    // Duplicate device names: a sorted vector finds whether there is one; the
    // message names the first device (in slice order) whose name was seen
    // before, so that rare case repeats the scan in order with a set.
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
    if (features.partitionable_devices && !pool.invalid) {
      std::map<std::string_view, const api::CounterSet*> sets;
      for (const api::ResourceSlice* s : pool.counter_slices) {
        for (const api::CounterSet& set : s->spec.shared_counters) {
          if (!sets.emplace(set.name, &set).second && !pool.invalid) {
            pool.invalid = true;
            pool.invalid_reason = "duplicate counter set name " + set.name;
          }
        }
      }
      auto check_consumers = [&](const std::vector<const api::ResourceSlice*>& slices) {
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
      };
      check_consumers(pool.slices);
      check_consumers(pool.other_slices);
    }
    pools.push_back(std::move(pool));
  }

  // 4. Search order (§3.4): driver, pool name; binding-condition pools last.
  std::stable_sort(pools.begin(), pools.end(), [](const Pool& a, const Pool& b) {
    if (a.has_binding_conditions != b.has_binding_conditions) return !a.has_binding_conditions;
    if (a.driver != b.driver) return a.driver < b.driver;
    return a.name < b.name;
  });
  return pools;
}

}  // namespace dra::alloc
