// Cross-object checks. One pass indexes the set (classes, claims, templates,
// slices by pool); a second pass walks each object and looks things up. The
// pool rules mirror what the allocator does with the slices it is given
// (src/alloc/README.md §3: only the newest generation of a pool counts;
// duplicate device or counter-set names make the pool invalid).
#include "api/cross_validation.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/suggest.h"

namespace dra::api {
namespace {

std::string Quote(std::string_view s) { return GoQuote(s); }

std::string NamespaceOf(const ObjectMeta& meta) { return meta.namespace_.empty() ? "default" : meta.namespace_; }

class CrossValidator {
 public:
  explicit CrossValidator(std::span<const Object> objects) : objects_(objects) {}

  std::vector<ObjectFieldError> Run() {
    Index();
    for (size_t i = 0; i < objects_.size(); ++i) {
      if (const auto* claim = std::get_if<ResourceClaim>(&objects_[i])) {
        ClassReferences(i, claim->spec.devices, FieldPath("spec").Child("devices"));
      } else if (const auto* tmpl = std::get_if<ResourceClaimTemplate>(&objects_[i])) {
        ClassReferences(i, tmpl->spec.spec.devices, FieldPath("spec").Child("spec").Child("devices"));
      } else if (const auto* pod = std::get_if<Pod>(&objects_[i])) {
        PodReferences(i, *pod);
      }
    }
    Pools();
    ExtendedResourceNames();
    DuplicateObjects();
    std::stable_sort(out_.begin(), out_.end(), [](const ObjectFieldError& a, const ObjectFieldError& b) {
      return a.object_index < b.object_index;
    });
    return std::move(out_);
  }

 private:
  void Warn(size_t index, FieldErrorType type, const FieldPath& path, std::string bad, std::string detail) {
    out_.push_back({.object_index = index,
                    .error = FieldError{.type = type,
                                        .field = path.String(),
                                        .bad_value = std::move(bad),
                                        .detail = std::move(detail),
                                        .severity = Severity::kWarning}});
  }

  void Index() {
    for (size_t i = 0; i < objects_.size(); ++i) {
      const Object& o = objects_[i];
      if (const auto* c = std::get_if<DeviceClass>(&o)) {
        classes_.insert(c->metadata.name);
      } else if (const auto* claim = std::get_if<ResourceClaim>(&o)) {
        claims_.emplace(std::make_pair(NamespaceOf(claim->metadata), claim->metadata.name), &claim->spec.devices);
      } else if (const auto* tmpl = std::get_if<ResourceClaimTemplate>(&o)) {
        templates_.emplace(std::make_pair(NamespaceOf(tmpl->metadata), tmpl->metadata.name), &tmpl->spec.spec.devices);
      } else if (const auto* slice = std::get_if<ResourceSlice>(&o)) {
        pools_[{slice->spec.driver, slice->spec.pool.name}].push_back(i);
      }
    }
  }

  // Finding 1.
  void ClassReferences(size_t index, const DeviceClaim& claim, const FieldPath& path) {
    FieldPath requests = path.Child("requests");
    for (size_t r = 0; r < claim.requests.size(); ++r) {
      const DeviceRequest& request = claim.requests[r];
      if (request.exactly) {
        ClassReference(index, request.exactly->device_class_name,
                       requests.Index(r).Child("exactly").Child("deviceClassName"));
      }
      for (size_t s = 0; s < request.first_available.size(); ++s) {
        ClassReference(index, request.first_available[s].device_class_name,
                       requests.Index(r).Child("firstAvailable").Index(s).Child("deviceClassName"));
      }
    }
  }

  void ClassReference(size_t index, const std::string& name, const FieldPath& path) {
    if (name.empty() || classes_.count(name) > 0) return;
    const std::vector<std::string> known(classes_.begin(), classes_.end());
    Warn(index, FieldErrorType::kNotFound, path, Quote(name),
         "no DeviceClass of this name is among the objects given; the request cannot be allocated" +
             DidYouMean(Suggest(name, known)));
  }

  // Finding 2.
  void PodReferences(size_t index, const Pod& pod) {
    std::string ns = NamespaceOf(pod.metadata);
    FieldPath claims_path = FieldPath("spec").Child("resourceClaims");
    // Pod claim name -> requests of the claim it resolves to (null if unknown).
    std::map<std::string, const DeviceClaim*> resolved;
    for (size_t i = 0; i < pod.spec.resource_claims.size(); ++i) {
      const PodResourceClaim& pc = pod.spec.resource_claims[i];
      const DeviceClaim* target = nullptr;
      if (pc.resource_claim_name) {
        auto it = claims_.find({ns, *pc.resource_claim_name});
        if (it == claims_.end()) {
          Warn(index, FieldErrorType::kNotFound, claims_path.Index(i).Child("resourceClaimName"),
               Quote(*pc.resource_claim_name),
               "no ResourceClaim of this name in namespace " + Quote(ns) + " is among the objects given");
        } else {
          target = it->second;
        }
      } else if (pc.resource_claim_template_name) {
        auto it = templates_.find({ns, *pc.resource_claim_template_name});
        if (it == templates_.end()) {
          // Templates are namespaced: one of the same name elsewhere does
          // not serve this pod. Name where they are.
          std::vector<std::string> elsewhere;
          for (const auto& [key, claim] : templates_) {
            if (key.second == *pc.resource_claim_template_name) elsewhere.push_back(Quote(key.first));
          }
          std::string detail =
              "no ResourceClaimTemplate of this name in namespace " + Quote(ns) + " is among the objects given";
          if (!elsewhere.empty()) {
            detail += std::string("; namespace") + (elsewhere.size() == 1 ? " " : "s ");
            for (size_t k = 0; k < elsewhere.size(); ++k) detail += (k ? ", " : "") + elsewhere[k];
            detail += elsewhere.size() == 1 ? " has one" : " have one";
          } else {
            std::vector<std::string> here;
            for (const auto& [key, claim] : templates_) {
              if (key.first == ns) here.push_back(key.second);
            }
            detail += DidYouMean(Suggest(*pc.resource_claim_template_name, here));
          }
          Warn(index, FieldErrorType::kNotFound, claims_path.Index(i).Child("resourceClaimTemplateName"),
               Quote(*pc.resource_claim_template_name), detail);
        } else {
          target = it->second;
        }
      }
      resolved.emplace(pc.name, target);
    }
    auto containers = [&](const std::vector<Container>& list, std::string_view field) {
      for (size_t c = 0; c < list.size(); ++c) {
        const std::vector<ContainerClaim>& claims = list[c].resources.claims;
        for (size_t j = 0; j < claims.size(); ++j) {
          if (claims[j].request.empty()) continue;
          auto it = resolved.find(claims[j].name);
          if (it == resolved.end() || it->second == nullptr) continue;
          bool found = std::any_of(it->second->requests.begin(), it->second->requests.end(),
                                   [&](const DeviceRequest& r) { return r.name == claims[j].request; });
          if (!found) {
            Warn(index, FieldErrorType::kNotFound,
                 FieldPath("spec").Child(field).Index(c).Child("resources").Child("claims").Index(j).Child("request"),
                 Quote(claims[j].request),
                 "the claim behind pod claim " + Quote(claims[j].name) + " has no request of this name");
          }
        }
      }
    };
    containers(pod.spec.init_containers, "initContainers");
    containers(pod.spec.containers, "containers");
  }

  // Findings 3 and 4.
  void Pools() {
    for (const auto& [pool_key, indices] : pools_) {
      const auto& [driver, pool_name] = pool_key;
      std::string pool_text = Quote(driver + "/" + pool_name);
      std::map<int64_t, std::vector<size_t>> by_generation;
      for (size_t i : indices) by_generation[Slice(i).spec.pool.generation].push_back(i);

      for (const auto& [generation, slices] : by_generation) {
        int64_t count = Slice(slices[0]).spec.pool.resource_slice_count;
        for (size_t k = 1; k < slices.size(); ++k) {
          int64_t other = Slice(slices[k]).spec.pool.resource_slice_count;
          if (other != count) {
            Warn(slices[k], FieldErrorType::kInvalid, FieldPath("spec").Child("pool").Child("resourceSliceCount"),
                 std::to_string(other),
                 "slices of pool " + pool_text + " at generation " + std::to_string(generation) +
                     " disagree on resourceSliceCount (ResourceSlice " + Quote(Slice(slices[0]).metadata.name) +
                     " says " + std::to_string(count) + ")");
          }
        }
        if (count > 0 && static_cast<int64_t>(slices.size()) > count) {
          Warn(slices[static_cast<size_t>(count)], FieldErrorType::kInvalid, FieldPath("spec").Child("pool"),
               std::to_string(slices.size()) + " slices",
               "pool " + pool_text + " has more slices at generation " + std::to_string(generation) +
                   " than its resourceSliceCount of " + std::to_string(count));
        }
      }

      // Only the newest generation is used: older slices are stale, and a
      // newest generation with fewer slices than it announces is incomplete.
      const int64_t newest_generation = by_generation.rbegin()->first;
      for (const auto& [generation, slices] : by_generation) {
        if (generation == newest_generation) continue;
        for (size_t i : slices) {
          Warn(i, FieldErrorType::kInvalid, FieldPath("spec").Child("pool").Child("generation"),
               std::to_string(generation),
               "pool " + pool_text + " also has slices at generation " + std::to_string(newest_generation) +
                   "; this older slice is ignored by the scheduler");
        }
      }
      const std::vector<size_t>& newest = by_generation.rbegin()->second;
      const int64_t announced = Slice(newest[0]).spec.pool.resource_slice_count;
      if (announced > 0 && static_cast<int64_t>(newest.size()) < announced) {
        Warn(newest[0], FieldErrorType::kInvalid, FieldPath("spec").Child("pool").Child("resourceSliceCount"),
             std::to_string(announced),
             "pool " + pool_text + " at generation " + std::to_string(newest_generation) + " has only " +
                 std::to_string(newest.size()) + " of its " + std::to_string(announced) +
                 " slices among the objects given; the scheduler does not allocate from an incomplete pool");
      }
      std::map<std::string, size_t> devices;
      std::map<std::string, size_t> counter_sets;
      for (size_t i : newest) {
        const ResourceSliceSpec& spec = Slice(i).spec;
        for (size_t d = 0; d < spec.devices.size(); ++d) {
          auto [it, inserted] = devices.emplace(spec.devices[d].name, i);
          if (!inserted && it->second != i) {
            Warn(i, FieldErrorType::kDuplicate, FieldPath("spec").Child("devices").Index(d),
                 Quote(spec.devices[d].name),
                 "device name also used by ResourceSlice " + Quote(Slice(it->second).metadata.name) + " of pool " +
                     pool_text + "; the allocator treats the pool as invalid");
          }
        }
        for (size_t c = 0; c < spec.shared_counters.size(); ++c) {
          auto [it, inserted] = counter_sets.emplace(spec.shared_counters[c].name, i);
          if (!inserted && it->second != i) {
            Warn(i, FieldErrorType::kDuplicate, FieldPath("spec").Child("sharedCounters").Index(c),
                 Quote(spec.shared_counters[c].name),
                 "counter set name also used by ResourceSlice " + Quote(Slice(it->second).metadata.name) + " of pool " +
                     pool_text + "; the allocator treats the pool as invalid");
          }
        }
      }
    }
  }

  // Finding 5.
  void ExtendedResourceNames() {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < objects_.size(); ++i) {
      const auto* c = std::get_if<DeviceClass>(&objects_[i]);
      if (c == nullptr || !c->spec.extended_resource_name) continue;
      auto [it, inserted] = seen.emplace(*c->spec.extended_resource_name, i);
      if (!inserted) {
        const auto& first = std::get<DeviceClass>(objects_[it->second]);
        Warn(i, FieldErrorType::kDuplicate, FieldPath("spec").Child("extendedResourceName"),
             Quote(*c->spec.extended_resource_name),
             "also served by DeviceClass " + Quote(first.metadata.name) +
                 "; only one class serves an extended resource (the most recently created, ties to "
                 "the smaller name)");
      }
    }
  }

  // Finding 6.
  void DuplicateObjects() {
    for (const DuplicateObject& d :
         FindDuplicateObjects(objects_.size(), [&](size_t i) -> const Object& { return objects_[i]; })) {
      const ObjectMeta& meta = MetaOf(objects_[d.index]);
      Warn(d.index, FieldErrorType::kDuplicate, FieldPath("metadata").Child("name"), Quote(meta.name),
           std::string(KindName(KindOf(objects_[d.index]))) + " " + Quote(ObjectName(objects_[d.index])) +
               " appears more than once (first as object " + std::to_string(d.first_index) +
               "); objects are identified by kind, namespace and name");
    }
  }

  const ResourceSlice& Slice(size_t index) const { return std::get<ResourceSlice>(objects_[index]); }

  std::span<const Object> objects_;
  std::vector<ObjectFieldError> out_;
  std::set<std::string> classes_;
  std::map<std::pair<std::string, std::string>, const DeviceClaim*> claims_;
  std::map<std::pair<std::string, std::string>, const DeviceClaim*> templates_;
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> pools_;
};

}  // namespace

std::vector<DuplicateObject> FindDuplicateObjects(size_t count, const std::function<const Object&(size_t)>& object_at) {
  std::vector<DuplicateObject> out;
  std::map<std::tuple<size_t, std::string, std::string>, size_t> seen;
  for (size_t i = 0; i < count; ++i) {
    const Object& object = object_at(i);
    const ObjectMeta& meta = MetaOf(object);
    if (meta.name.empty()) continue;
    std::string ns = IsNamespaced(KindOf(object)) ? NamespaceOf(meta) : "";
    auto [it, inserted] = seen.emplace(std::make_tuple(object.index(), ns, meta.name), i);
    if (!inserted) out.push_back({.index = i, .first_index = it->second});
  }
  return out;
}

std::vector<ObjectFieldError> ValidateCrossObject(std::span<const Object> objects) {
  return CrossValidator(objects).Run();
}

}  // namespace dra::api
