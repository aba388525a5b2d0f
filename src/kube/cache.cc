#include "kube/cache.h"

#include <charconv>
#include <set>
#include <utility>

#include "kube/list.h"

namespace dra::kube {
namespace {

std::optional<int64_t> ParseRv(std::string_view rv) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size() || rv.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string ObjectKey(const api::Object& object) {
  const api::ObjectMeta& m = api::MetaOf(object);
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

std::optional<int> CompareResourceVersions(std::string_view a, std::string_view b) {
  std::optional<int64_t> x = ParseRv(a);
  std::optional<int64_t> y = ParseRv(b);
  if (!x || !y) return std::nullopt;
  return *x < *y ? -1 : (*x > *y ? 1 : 0);
}

void ClusterCache::Put(api::Object object, bool from_watch) {
  std::map<std::string, Entry>& entries = objects_[api::KindOf(object)];
  std::string key = ObjectKey(object);
  auto it = entries.find(key);
  if (it != entries.end()) {
    const std::string& held = api::MetaOf(it->second.object).resource_version;
    const std::string& offered = api::MetaOf(object).resource_version;
    std::optional<int> order = CompareResourceVersions(offered, held);
    if (from_watch) {
      // Unparsable versions: the informer's object wins.
      if (order && (*order < 0 || (*order == 0 && it->second.assumed))) return;
    } else if (order && *order < 0) {
      return;
    }
    it->second = Entry{.object = std::move(object), .assumed = !from_watch};
  } else {
    entries.emplace(std::move(key), Entry{.object = std::move(object), .assumed = !from_watch});
  }
  ++generation_;
}

void ClusterCache::Apply(const ReflectorBatch& batch) {
  listed_[batch.collection] = true;
  if (batch.replace) {
    // Objects of this collection that the list does not hold are gone.
    std::set<std::pair<api::Kind, std::string>> present;
    std::set<api::Kind> kinds;
    if (std::optional<api::Kind> kind = CollectionKind(batch.collection)) kinds.insert(*kind);
    for (const ObjectEvent& e : batch.events) {
      present.emplace(api::KindOf(e.object), ObjectKey(e.object));
      kinds.insert(api::KindOf(e.object));
    }
    for (api::Kind kind : kinds) {
      std::map<std::string, Entry>& entries = objects_[kind];
      for (auto it = entries.begin(); it != entries.end();) {
        if (present.count({kind, it->first}) == 0) {
          it = entries.erase(it);
          ++generation_;
        } else {
          ++it;
        }
      }
    }
  }
  for (const ObjectEvent& e : batch.events) {
    if (e.type == EventType::kDeleted) {
      auto kind = objects_.find(api::KindOf(e.object));
      if (kind != objects_.end() && kind->second.erase(ObjectKey(e.object)) > 0) ++generation_;
      continue;
    }
    Put(e.object, /*from_watch=*/true);
  }
  if (batch.replace) ++generation_;
}

void ClusterCache::Assume(api::Object object) { Put(std::move(object), /*from_watch=*/false); }

const api::Object* ClusterCache::Find(api::Kind kind, const std::string& key) const {
  auto k = objects_.find(kind);
  if (k == objects_.end()) return nullptr;
  auto it = k->second.find(key);
  return it == k->second.end() ? nullptr : &it->second.object;
}

size_t ClusterCache::size() const {
  size_t n = 0;
  for (const auto& [kind, entries] : objects_) n += entries.size();
  return n;
}

}  // namespace dra::kube
