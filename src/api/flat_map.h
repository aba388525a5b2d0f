// FlatMap<V>: the string-keyed map type of the api structs.
//
// Kubernetes maps (labels, attributes, capacity, counters, ...) are small and
// read far more often than written, so they are kept as a vector of (key, value)
// pairs sorted by key with unique keys: half the memory of std::map, cache
// friendly, and iteration order is the order kubectl prints them in.
// operator== compares contents, so two maps built in any order compare equal.
//
// The key type K defaults to std::string. Maps whose keys repeat across
// thousands of objects (device attribute, capacity and counter names) use
// InternedString (api/intern.h) instead: 8 bytes per key and no per-key heap
// block. Any K works that is ordered against std::string_view and constructible
// from std::string.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dra::api {

template <typename V, typename K = std::string>
class FlatMap {
 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  using iterator = typename std::vector<value_type>::iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> init) {
    for (const auto& kv : init) insert_or_assign(kv.first, kv.second);
  }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }

  // Returns the value for `key`, or nullptr.
  const V* find(std::string_view key) const {
    auto it = LowerBound(key);
    return (it != entries_.end() && it->first == key) ? &it->second : nullptr;
  }
  V* find(std::string_view key) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const value_type& e, std::string_view k) { return e.first < k; });
    return (it != entries_.end() && it->first == key) ? &it->second : nullptr;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Inserts or replaces. Returns true if the key was new.
  bool insert_or_assign(K key, V value) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const value_type& e, std::string_view k) { return e.first < k; });
    if (it != entries_.end() && it->first == key) {
      it->second = std::move(value);
      return false;
    }
    entries_.insert(it, value_type(std::move(key), std::move(value)));
    return true;
  }

  // Appends without keeping order; call Finish() once after a series of
  // Append()s (the decoder's fast path for already-sorted input).
  void Append(K key, V value) { entries_.emplace_back(std::move(key), std::move(value)); }
  // Sorts appended entries; returns false (keeping the first of each) if a key repeats.
  bool Finish() {
    if (!std::is_sorted(entries_.begin(), entries_.end(), KeyLess)) {
      std::stable_sort(entries_.begin(), entries_.end(), KeyLess);
    }
    auto dup = std::adjacent_find(entries_.begin(), entries_.end(),
                                  [](const value_type& a, const value_type& b) { return a.first == b.first; });
    if (dup == entries_.end()) {
      entries_.shrink_to_fit();
      return true;
    }
    entries_.erase(std::unique(entries_.begin(), entries_.end(),
                               [](const value_type& a, const value_type& b) { return a.first == b.first; }),
                   entries_.end());
    entries_.shrink_to_fit();
    return false;
  }

  friend bool operator==(const FlatMap& a, const FlatMap& b) { return a.entries_ == b.entries_; }

 private:
  static bool KeyLess(const value_type& a, const value_type& b) { return a.first < b.first; }
  const_iterator LowerBound(std::string_view key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type& e, std::string_view k) { return e.first < k; });
  }

  std::vector<value_type> entries_;
};

}  // namespace dra::api
