#include "sched/snapshot.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "alloc/taint_rules.h"
#include "base/fnv.h"

namespace dra::sched {

std::string ObjectKey(const api::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

bool HasObjectKey(const api::ObjectMeta& m, std::string_view key) {
  return key.size() == m.namespace_.size() + 1 + m.name.size() && key.starts_with(m.namespace_) &&
         key[m.namespace_.size()] == '/' && key.ends_with(m.name);
}

std::string StableUid(std::string_view key) {
  uint64_t a = Fnv1a64(key);
  uint64_t b = Fnv1a64(key, a ^ 0x9e3779b97f4a7c15ULL);
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", static_cast<uint32_t>(a >> 32),
                     static_cast<uint32_t>((a >> 16) & 0xffff), static_cast<uint32_t>(a & 0xfff),
                     static_cast<uint32_t>(0x8000 | ((b >> 48) & 0x3fff)), b & 0xffffffffffffULL);
}

void Snapshot::IndexClaims() const {
  ClaimIndex& index = claim_index;
  if (index.indexed > claims.size()) index = ClaimIndex{};  // claims were replaced
  for (; index.indexed < claims.size(); ++index.indexed) {
    const api::ObjectMeta& m = claims[index.indexed].metadata;
    index.by_key.emplace(m.namespace_ + "/" + m.name, index.indexed);  // the first of duplicates wins
    for (const api::OwnerReference& ref : m.owner_references) {
      if (!ref.controller.value_or(false)) continue;
      index.by_owner[ref.uid].push_back(index.indexed);
      break;
    }
  }
}

std::optional<size_t> Snapshot::FindClaim(std::string_view ns, std::string_view name) const {
  IndexClaims();
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append(1, '/').append(name);
  auto it = claim_index.by_key.find(key);
  if (it == claim_index.by_key.end()) return std::nullopt;
  return it->second;
}

std::vector<size_t> Snapshot::ClaimsControlledBy(std::string_view uid) const {
  IndexClaims();
  auto it = claim_index.by_owner.find(std::string(uid));
  return it == claim_index.by_owner.end() ? std::vector<size_t>() : it->second;
}

NodeIndex::NodeIndex(std::span<const api::Node> nodes) {
  sorted_.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) sorted_.emplace_back(nodes[i].metadata.name, i);
  std::sort(sorted_.begin(), sorted_.end());
}

std::optional<size_t> NodeIndex::Find(std::string_view name) const {
  auto it = std::lower_bound(
      sorted_.begin(), sorted_.end(), name,
      [](const std::pair<std::string_view, size_t>& e, std::string_view want) { return e.first < want; });
  if (it == sorted_.end() || it->first != name) return std::nullopt;
  return it->second;
}

const api::ResourceClaimTemplate* Snapshot::FindTemplate(std::string_view ns, std::string_view name) const {
  // A few templates: a scan. A trace imported as objects has one per pod.
  constexpr size_t kScan = 16;
  if (templates.size() <= kScan) {
    for (const api::ResourceClaimTemplate& t : templates) {
      if (t.metadata.namespace_ == ns && t.metadata.name == name) return &t;
    }
    return nullptr;
  }
  TemplateIndex& index = template_index;
  if (index.indexed > templates.size()) index = TemplateIndex{};  // templates were replaced
  for (; index.indexed < templates.size(); ++index.indexed) {
    const api::ObjectMeta& m = templates[index.indexed].metadata;
    index.by_key.emplace(m.namespace_ + "/" + m.name, index.indexed);  // the first of duplicates wins
  }
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append(1, '/').append(name);
  auto it = index.by_key.find(key);
  return it == index.by_key.end() ? nullptr : &templates[it->second];
}

std::vector<api::Node> ImpliedNodes(std::span<const api::Object* const> objects) {
  std::vector<std::string> names;
  for (const api::Object* o : objects) {
    if (std::holds_alternative<api::Node>(*o)) return {};
    const auto* r = std::get_if<api::ResourceSlice>(o);
    if (r != nullptr && r->spec.node_name && !r->spec.node_name->empty()) names.push_back(*r->spec.node_name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<api::Node> nodes;
  for (std::string& name : names) {
    api::Node n;
    n.metadata.labels.insert_or_assign("kubernetes.io/hostname", name);
    n.metadata.name = std::move(name);
    n.status.allocatable.insert_or_assign("cpu", quantity::Quantity::FromInt(1000));
    n.status.allocatable.insert_or_assign("memory",
                                          quantity::Quantity::FromInt(int64_t{16} << 40, quantity::Format::kBinarySI));
    n.status.allocatable.insert_or_assign("pods", quantity::Quantity::FromInt(110));
    n.status.capacity = n.status.allocatable;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

std::optional<size_t> Snapshot::FindPodGroup(std::string_view ns, std::string_view name) const {
  for (size_t i = 0; i < pod_groups.size(); ++i) {
    if (pod_groups[i].metadata.namespace_ == ns && pod_groups[i].metadata.name == name) return i;
  }
  return std::nullopt;
}

namespace {

// NewSnapshot and NewSnapshotTaking: the objects copied, or moved if `take`.
Snapshot BuildSnapshot(std::span<api::Object* const> objects, bool take, const api::FeatureGates& gates) {
  Snapshot s;
  s.gates = gates;
  auto add = [take]<typename T>(std::vector<T>& to, T& object) {
    if (take) {
      to.push_back(std::move(object));
    } else {
      to.push_back(object);
    }
  };
  // Each list sized once (a large cluster's lists are tens of megabytes: no
  // growth by doubling, with the old and the new copy alive at once).
  std::array<size_t, std::variant_size_v<api::Object>> count{};
  for (const api::Object* o : objects) ++count[o->index()];
  auto reserve = [&]<typename T>(std::vector<T>& list) {
    list.reserve(count[api::Object(std::in_place_type<T>).index()]);
  };
  reserve(s.nodes);
  reserve(s.pods);
  reserve(s.claims);
  reserve(s.templates);
  reserve(s.classes);
  reserve(s.slices);
  reserve(s.rules);
  reserve(s.pod_groups);
  for (api::Object* o : objects) {
    if (auto* n = std::get_if<api::Node>(o)) add(s.nodes, *n);
    if (auto* p = std::get_if<api::Pod>(o)) add(s.pods, *p);
    if (auto* c = std::get_if<api::ResourceClaim>(o)) add(s.claims, *c);
    if (auto* t = std::get_if<api::ResourceClaimTemplate>(o)) add(s.templates, *t);
    if (auto* c = std::get_if<api::DeviceClass>(o)) add(s.classes, *c);
    if (auto* r = std::get_if<api::ResourceSlice>(o)) add(s.slices, *r);
    if (auto* r = std::get_if<api::DeviceTaintRule>(o)) add(s.rules, *r);
    if (auto* g = std::get_if<api::PodGroup>(o)) add(s.pod_groups, *g);
  }
  std::stable_sort(s.nodes.begin(), s.nodes.end(),
                   [](const api::Node& a, const api::Node& b) { return a.metadata.name < b.metadata.name; });
  for (api::Pod& p : s.pods) {
    if (p.metadata.uid.empty()) p.metadata.uid = StableUid("pod/" + p.metadata.namespace_ + "/" + p.metadata.name);
  }
  for (api::PodGroup& g : s.pod_groups) {
    if (g.metadata.uid.empty()) {
      g.metadata.uid = StableUid("podgroup/" + g.metadata.namespace_ + "/" + g.metadata.name);
    }
  }
  // The rules' taints, as alloc::ApplyDeviceTaintRules adds them (in rule
  // order, only with both gates on), on the snapshot's own copies.
  if (!s.rules.empty() && gates.enabled(api::Gate::kDRADeviceTaints) &&
      gates.enabled(api::Gate::kDRADeviceTaintRules)) {
    for (api::ResourceSlice& slice : s.slices) {
      for (api::Device& device : slice.spec.devices) {
        for (const api::DeviceTaintRule& rule : s.rules) {
          if (alloc::TaintRuleMatches(rule.spec, slice.spec.driver, slice.spec.pool.name, device.name)) {
            device.rare.mut().taints.push_back(rule.spec.taint);
          }
        }
      }
    }
  }
  return s;
}

}  // namespace

Snapshot NewSnapshot(std::span<const api::Object* const> objects, const api::FeatureGates& gates) {
  // Read only: BuildSnapshot copies when it does not take.
  std::vector<api::Object*> mutable_objects;
  mutable_objects.reserve(objects.size());
  for (const api::Object* o : objects) mutable_objects.push_back(const_cast<api::Object*>(o));
  return BuildSnapshot(mutable_objects, /*take=*/false, gates);
}

Snapshot NewSnapshotTaking(std::span<api::Object* const> objects, const api::FeatureGates& gates) {
  return BuildSnapshot(objects, /*take=*/true, gates);
}

}  // namespace dra::sched
