// Upstream: pkg/scheduler/framework/plugins/dynamicresources/
// extendeddynamicresources.go (preFilterExtendedResources,
// filterExtendedResources, createRequestsAndMappings) and
// dynamic-resource-allocation/deviceclass/extendedresourcecache.
#include "sched/extended.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "api/names.h"
#include "sched/pod_claims.h"

namespace dra::sched {

bool IsDraExtendedResourceName(std::string_view name) {
  return api::IsExtendedResourceName(name).empty() || name.starts_with(kImplicitExtendedResourcePrefix);
}

ExtendedResourceClasses::ExtendedResourceClasses(std::span<const api::DeviceClass> classes, bool enabled) {
  if (!enabled) return;
  for (const api::DeviceClass& c : classes) {
    by_resource_.emplace(kImplicitExtendedResourcePrefix + c.metadata.name, &c);
  }
  for (const api::DeviceClass& c : classes) {
    if (!c.spec.extended_resource_name || c.spec.extended_resource_name->empty()) continue;
    auto [it, inserted] = by_resource_.emplace(*c.spec.extended_resource_name, &c);
    if (inserted) continue;
    const api::DeviceClass& other = *it->second;
    // Newer wins; equal timestamps: the smaller name. (RFC 3339 times in UTC
    // compare as text.)
    const std::string& a = c.metadata.creation_timestamp;
    const std::string& b = other.metadata.creation_timestamp;
    if (a > b || (a == b && c.metadata.name < other.metadata.name)) it->second = &c;
  }
}

const api::DeviceClass* ExtendedResourceClasses::Find(std::string_view resource) const {
  auto it = by_resource_.find(resource);
  return it == by_resource_.end() ? nullptr : it->second;
}

DraServed ResourcesServedByDra(const Resources& pod_requests, const Resources& allocatable,
                               const ExtendedResourceClasses& classes) {
  DraServed out;
  if (classes.empty()) return out;
  for (const auto& [name, amount] : pod_requests.scalar) {  // a sorted map
    if (amount == 0 || !IsDraExtendedResourceName(name)) continue;
    auto have = allocatable.scalar.find(name);
    const bool listed = have != allocatable.scalar.end();
    if (classes.Find(name) != nullptr && (!listed || have->second == 0)) {
      out.resources.push_back(name);
    } else if (!listed) {
      out.cannot_fit = true;
      out.resources.clear();
      return out;
    }
  }
  return out;
}

bool NeedsExtendedResourceClaim(const Resources& pod_requests, const ExtendedResourceClasses& classes) {
  if (classes.empty()) return false;
  return std::any_of(pod_requests.scalar.begin(), pod_requests.scalar.end(), [&](const auto& entry) {
    return entry.second != 0 && IsDraExtendedResourceName(entry.first) && classes.Find(entry.first) != nullptr;
  });
}

namespace {

// The container's amount of `resource` (its request, else its limit: the API
// server defaults one from the other) as an integer; 0 when absent, zero or
// not an integer.
int64_t ContainerAmount(const api::Container& c, std::string_view resource) {
  const api::Quantity* q = c.resources.requests.find(resource);
  if (q == nullptr) q = c.resources.limits.find(resource);
  if (q == nullptr) return 0;
  return q->AsInt64().value_or(0);
}

// Index of `resource` among the container's request names, sorted.
size_t RequestIndex(const api::Container& c, std::string_view resource) {
  std::set<std::string_view> names;
  for (const auto& [name, q] : c.resources.requests) names.insert(name);
  for (const auto& [name, q] : c.resources.limits) names.insert(name);
  return static_cast<size_t>(std::distance(names.begin(), names.find(resource)));
}

api::DeviceRequest NewRequest(std::string name, const std::string& class_name, int64_t count) {
  return api::DeviceRequest{
      .name = std::move(name),
      .exactly = api::ExactDeviceRequest{
          .device_class_name = class_name, .allocation_mode = api::AllocationMode::kExactCount, .count = count}};
}

}  // namespace

ExtendedRequests BuildExtendedRequests(const api::Pod& pod, std::span<const std::string> resources,
                                       const ExtendedResourceClasses& classes) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) containers.push_back(&c);
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  const size_t num_init = pod.spec.init_containers.size();
  auto long_lived = [&](size_t i) {
    return i >= num_init || containers[i]->restart_policy == api::ContainerRestartPolicy::kAlways;
  };

  ExtendedRequests out;
  std::vector<std::string> sorted(resources.begin(), resources.end());
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& resource : sorted) {
    const api::DeviceClass* cls = classes.Find(resource);
    if (cls == nullptr) continue;
    auto mapping = [&](size_t i, const std::string& request) {
      return api::ContainerExtendedResourceRequest{
          .container_name = containers[i]->name, .resource_name = resource, .request_name = request};
    };
    // Long-lived containers: a request each.
    std::vector<std::optional<api::DeviceRequest>> long_requests(containers.size());
    std::vector<api::ContainerExtendedResourceRequest> long_mappings;
    for (size_t i = 0; i < containers.size(); ++i) {
      if (!long_lived(i)) continue;
      const int64_t amount = ContainerAmount(*containers[i], resource);
      if (amount == 0) continue;
      std::string name = fmt::format("container-{}-request-{}", i, RequestIndex(*containers[i], resource));
      long_mappings.push_back(mapping(i, name));
      long_requests[i] = NewRequest(std::move(name), cls->metadata.name, amount);
    }
    // Init containers that run to completion: reuse what later long-lived
    // containers request, then ask for the rest.
    std::optional<api::DeviceRequest> largest_short;
    std::set<std::string> short_names;
    std::vector<api::ContainerExtendedResourceRequest> short_mappings;
    for (size_t i = 0; i < containers.size(); ++i) {
      if (long_lived(i)) continue;
      const int64_t amount = ContainerAmount(*containers[i], resource);
      if (amount == 0) continue;
      int64_t covered = 0;
      for (size_t j = i; j < containers.size() && covered < amount; ++j) {
        if (!long_requests[j]) continue;
        covered += long_requests[j]->exactly->count;
        short_mappings.push_back(mapping(i, long_requests[j]->name));
      }
      if (covered >= amount) continue;
      std::string name = fmt::format("container-{}-request-{}", i, RequestIndex(*containers[i], resource));
      short_mappings.push_back(mapping(i, name));
      short_names.insert(name);
      if (!largest_short || largest_short->exactly->count < amount - covered) {
        largest_short = NewRequest(std::move(name), cls->metadata.name, amount - covered);
      }
    }
    if (largest_short && short_names.size() > 1) {
      for (api::ContainerExtendedResourceRequest& m : short_mappings) {
        if (short_names.count(m.request_name) != 0) m.request_name = largest_short->name;
      }
    }
    if (largest_short) out.requests.push_back(std::move(*largest_short));
    for (std::optional<api::DeviceRequest>& r : long_requests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(), long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(), short_mappings.end());
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const api::DeviceRequest& a, const api::DeviceRequest& b) { return a.name < b.name; });
  return out;
}

const std::vector<const api::ResourceClaim*>& ClaimsPerNode::For(const Resources& allocatable) {
  if (!extended_) return base_;
  DraServed served = ResourcesServedByDra(requests_, allocatable, classes_);
  if (served.resources.empty()) return base_;
  ExtendedRequests built = BuildExtendedRequests(pod_, served.resources, classes_);
  claim_ = NewExtendedResourceClaim(pod_, kExtendedResourceClaimInMemoryName, std::move(built.requests));
  mappings_ = std::move(built.mappings);
  with_claim_ = base_;
  with_claim_.push_back(&claim_);
  return with_claim_;
}

std::optional<size_t> FindExtendedResourceClaim(const Snapshot& snapshot, const api::Pod& pod) {
  for (size_t idx : snapshot.ClaimsControlledBy(pod.metadata.uid)) {
    const api::ResourceClaim& c = snapshot.claims[idx];
    const std::string* annotation = c.metadata.annotations.find(kExtendedResourceClaimAnnotation);
    if (c.metadata.namespace_ == pod.metadata.namespace_ && annotation != nullptr && *annotation == "true") {
      return idx;
    }
  }
  return std::nullopt;
}

api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod, std::string name,
                                            std::vector<api::DeviceRequest> requests) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.generate_name = pod.metadata.name + "-extended-resources-";
  if (claim.metadata.generate_name.size() > kMaxGeneratedNameBase) {
    claim.metadata.generate_name.resize(kMaxGeneratedNameBase);
  }
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.uid = StableUid("resourceclaim/" + claim.metadata.namespace_ + "/" + claim.metadata.name);
  claim.metadata.annotations.insert_or_assign(kExtendedResourceClaimAnnotation, "true");
  claim.metadata.owner_references.push_back(api::OwnerReference{
      .api_version = "v1", .kind = "Pod", .name = pod.metadata.name, .uid = pod.metadata.uid, .controller = true});
  claim.spec.devices.requests = std::move(requests);
  return claim;
}

}  // namespace dra::sched
