#include "alloc/result.h"

#include <algorithm>
#include <set>

#include "fmt/format.h"

namespace dra::alloc {
namespace {

bool SameRequirement(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  if (a.key != b.key || a.operator_ != b.operator_) return false;
  std::set<std::string> va(a.values.begin(), a.values.end());
  std::set<std::string> vb(b.values.begin(), b.values.end());
  return va == vb;
}

void AddRequirements(std::vector<api::NodeSelectorRequirement>& to,
                     const std::vector<api::NodeSelectorRequirement>& from) {
  for (const auto& r : from) {
    bool dup = std::any_of(to.begin(), to.end(), [&](const auto& e) { return SameRequirement(e, r); });
    if (!dup) to.push_back(r);
  }
}

std::string FullName(const AllocatedRequest& r) {
  if (r.subrequest.empty()) return std::string(r.request);
  return fmt::format("{}/{}", r.request, r.subrequest);
}

// Whether `names` covers every allocated request (by name or request/sub).
bool CoversAll(const std::vector<std::string>& names, std::span<const AllocatedRequest> requests) {
  for (const AllocatedRequest& r : requests) {
    bool covered = std::any_of(names.begin(), names.end(),
                               [&](const std::string& n) { return n == r.request || n == FullName(r); });
    if (!covered) return false;
  }
  return true;
}

}  // namespace

namespace {

// The slice's node name and selector that decide where `taken` is usable.
struct Scope {
  const std::optional<std::string>* name;
  const std::optional<api::NodeSelector>* selector;
  bool pinned;  // a node name or bindsToNode: usable on the allocating node only
};

Scope ScopeOf(const TakenDevice& taken) {
  const api::ResourceSliceSpec& spec = taken.slice->spec;
  const api::DeviceRareFields& rare = taken.device->rare.get();
  Scope scope{.name = &spec.node_name, .selector = &spec.node_selector, .pinned = false};
  if (spec.per_device_node_selection.value_or(false)) {
    scope.name = &rare.node_name;
    scope.selector = &rare.node_selector;
  }
  scope.pinned = (*scope.name && !(*scope.name)->empty()) || rare.binds_to_node.value_or(false);
  return scope;
}

Status TooManyTerms(std::string_view claim_name, size_t terms) {
  return InvalidArgumentError(fmt::format(
      "create NodeSelector for claim {}: unsupported ResourceSlice.NodeSelector with {} terms", claim_name, terms));
}

}  // namespace

Status CheckNodeSelector(std::span<const TakenDevice> devices, std::string_view claim_name) {
  for (const TakenDevice& taken : devices) {
    const Scope scope = ScopeOf(taken);
    if (scope.pinned) return OkStatus();
    if (*scope.selector && (*scope.selector)->node_selector_terms.size() > 1) {
      return TooManyTerms(claim_name, (*scope.selector)->node_selector_terms.size());
    }
  }
  return OkStatus();
}

StatusOr<std::optional<api::NodeSelector>> BuildNodeSelector(std::span<const TakenDevice> devices,
                                                             std::string_view node_name, std::string_view claim_name) {
  api::NodeSelectorTerm term;
  for (const TakenDevice& taken : devices) {
    const Scope scope = ScopeOf(taken);
    const std::optional<api::NodeSelector>* selector = scope.selector;
    if (scope.pinned) {
      api::NodeSelector pinned;
      api::NodeSelectorTerm t;
      t.match_fields.push_back(
          {.key = "metadata.name", .operator_ = api::NodeSelectorOperator::kIn, .values = {std::string(node_name)}});
      pinned.node_selector_terms.push_back(std::move(t));
      return std::optional<api::NodeSelector>(std::move(pinned));
    }
    if (*selector) {
      const auto& terms = (*selector)->node_selector_terms;
      if (terms.size() > 1) return TooManyTerms(claim_name, terms.size());
      if (terms.size() == 1) {
        AddRequirements(term.match_fields, terms[0].match_fields);
        AddRequirements(term.match_expressions, terms[0].match_expressions);
      }
    }
  }
  if (term.match_fields.empty() && term.match_expressions.empty()) return std::optional<api::NodeSelector>();
  api::NodeSelector out;
  out.node_selector_terms.push_back(std::move(term));
  return std::optional<api::NodeSelector>(std::move(out));
}

std::vector<api::DeviceAllocationConfiguration> BuildConfig(const api::ResourceClaim& claim,
                                                            std::span<const AllocatedRequest> requests) {
  std::vector<api::DeviceAllocationConfiguration> config;
  // 1. Class configs: entries of a class collect every request using it.
  std::vector<std::pair<const api::DeviceClass*, std::vector<size_t>>> class_entries;
  for (const AllocatedRequest& r : requests) {
    if (r.device_class == nullptr || r.device_class->spec.config.empty()) continue;
    auto it = std::find_if(class_entries.begin(), class_entries.end(),
                           [&](const auto& e) { return e.first == r.device_class; });
    if (it == class_entries.end()) {
      std::vector<size_t> indices;
      for (const auto& c : r.device_class->spec.config) {
        indices.push_back(config.size());
        config.push_back(
            {.source = api::AllocationConfigSource::kFromClass, .requests = {FullName(r)}, .opaque = c.opaque});
      }
      class_entries.emplace_back(r.device_class, std::move(indices));
    } else {
      for (size_t idx : it->second) config[idx].requests.push_back(FullName(r));
    }
  }
  // 2. Claim configs.
  for (const api::DeviceClaimConfiguration& c : claim.spec.devices.config) {
    bool keep = c.requests.empty();
    for (const AllocatedRequest& r : requests) {
      if (keep) break;
      keep = std::any_of(c.requests.begin(), c.requests.end(),
                         [&](const std::string& n) { return n == r.request || n == FullName(r); });
    }
    if (!keep) continue;
    config.push_back({.source = api::AllocationConfigSource::kFromClaim, .requests = c.requests, .opaque = c.opaque});
  }
  // 3. Normalisation: an entry naming every request means "all".
  for (auto& entry : config) {
    if (!entry.requests.empty() && CoversAll(entry.requests, requests)) entry.requests.clear();
  }
  return config;
}

}  // namespace dra::alloc
