// Extended resources backed by DRA (README.md §6, gate
// DRAExtendedResource: beta in 1.36, GA in 1.37). A pod that asks for
// `nvidia.com/gpu: 2` on a node whose allocatable does not list
// nvidia.com/gpu gets its devices from the DeviceClass that names
// nvidia.com/gpu as its extendedResourceName (or from class C for the
// implicit name `deviceclass.resource.kubernetes.io/C`), through one special
// ResourceClaim per pod that the scheduler builds for the chosen node and
// creates at bind time.
//
// The pieces, in the order the scheduler uses them:
//   ExtendedResourceClasses   resource name -> DeviceClass
//   ResourcesServedByDra      Filter: which of the pod's resources this node
//                             serves through DRA (allocatable 0 and a class),
//                             or "cannot fit resource"
//   BuildExtendedRequests     the node's claim: one ExactCount request per
//                             container and resource, and the container ->
//                             request mappings for the pod status
//   NewExtendedResourceClaim  the claim as created at bind time
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "sched/resources.h"
#include "sched/snapshot.h"

namespace dra::sched {

inline constexpr char kExtendedResourceClaimAnnotation[] = "resource.kubernetes.io/extended-resource-claim";
inline constexpr char kImplicitExtendedResourcePrefix[] = "deviceclass.resource.kubernetes.io/";
// The in-memory claim's name upstream: not a valid name, so it never clashes
// with a real claim. Messages and tables use it for the claim before it
// exists.
inline constexpr char kExtendedResourceClaimInMemoryName[] = "<extended-resources>";

// Upstream IsDRAExtendedResourceName: an extended resource name, or a name
// with the implicit prefix.
bool IsDraExtendedResourceName(std::string_view name);

// Which DeviceClass serves an extended resource. Explicit names
// (spec.extendedResourceName): when two classes claim one name, the newer
// creationTimestamp wins, then the smaller class name. Every class also
// serves `deviceclass.resource.kubernetes.io/<class name>`.
class ExtendedResourceClasses {
 public:
  ExtendedResourceClasses() = default;
  // Empty (nothing is served through DRA) unless `enabled`.
  ExtendedResourceClasses(std::span<const api::DeviceClass> classes, bool enabled);

  const api::DeviceClass* Find(std::string_view resource) const;
  bool empty() const { return by_resource_.empty(); }

 private:
  std::map<std::string, const api::DeviceClass*, std::less<>> by_resource_;
};

// Filter (§6.2) for one node: of the pod's requests (PodRequests) the DRA
// extended resources with a non-zero amount; each is served by the device
// plugin when the node's allocatable has a non-zero amount of it, else
// through DRA when a class maps it; a resource the node does not list at all
// and no class maps makes the node unfit ("cannot fit resource").
struct DraServed {
  std::vector<std::string> resources;  // served through DRA here, sorted
  bool cannot_fit = false;
};
DraServed ResourcesServedByDra(const Resources& pod_requests, const Resources& allocatable,
                               const ExtendedResourceClasses& classes);

// Whether the pod asks for a non-zero amount of some resource a class maps
// (upstream's test for "this pod needs the special claim").
bool NeedsExtendedResourceClaim(const Resources& pod_requests, const ExtendedResourceClasses& classes);

// The node-specific requests and mappings (upstream createRequestsAndMappings,
// 1.36+): for each resource of `resources` in name order, every long-lived
// container (regular, or init with restartPolicy Always) asking for it gets a
// request `container-<i>-request-<j>` (i: index in initContainers ++
// containers; j: index of the resource among the container's sorted request
// names) for its integer amount; a non-sidecar init container first reuses
// the requests of the long-lived containers after it until they cover its
// amount and requests only the rest, and of those init requests only the
// largest is kept (the others' mappings point to it). Requests are sorted by
// name. A container's amount is its request, else its limit.
struct ExtendedRequests {
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};
ExtendedRequests BuildExtendedRequests(const api::Pod& pod, std::span<const std::string> resources,
                                       const ExtendedResourceClasses& classes);

// The claims to allocate for a pod on one node at a time: `base` (the pod's
// claims without allocation), plus the special claim (named
// kExtendedResourceClaimInMemoryName) when the node serves some of the pod's
// extended resources through DRA. The references stay valid until the next
// call of For; `pod`, `requests`, `classes` and `base` must outlive this.
class ClaimsPerNode {
 public:
  ClaimsPerNode(const api::Pod& pod, const Resources& requests, const ExtendedResourceClasses& classes,
                const std::vector<const api::ResourceClaim*>& base)
      : pod_(pod),
        requests_(requests),
        classes_(classes),
        base_(base),
        extended_(NeedsExtendedResourceClaim(requests, classes)) {}

  // Whether the pod asks for resources some class maps.
  bool extended() const { return extended_; }
  const std::vector<const api::ResourceClaim*>& For(const Resources& allocatable);
  // The special claim and its container mappings of the last For that
  // returned one.
  const api::ResourceClaim& claim() const { return claim_; }
  const std::vector<api::ContainerExtendedResourceRequest>& mappings() const { return mappings_; }

 private:
  const api::Pod& pod_;
  const Resources& requests_;
  const ExtendedResourceClasses& classes_;
  const std::vector<const api::ResourceClaim*>& base_;
  const bool extended_;
  api::ResourceClaim claim_;
  std::vector<api::ContainerExtendedResourceRequest> mappings_;
  std::vector<const api::ResourceClaim*> with_claim_;
};

// The claim left from an earlier scheduling attempt: annotated
// kExtendedResourceClaimAnnotation "true" and controlled by the pod. Index
// into snapshot.claims.
std::optional<size_t> FindExtendedResourceClaim(const Snapshot& snapshot, const api::Pod& pod);

// The claim the scheduler creates at bind time, named `name`: generateName
// "<pod>-extended-resources-" (cut to 58 characters), the pod as controller
// owner, the annotation, and `requests`.
api::ResourceClaim NewExtendedResourceClaim(const api::Pod& pod, std::string name,
                                            std::vector<api::DeviceRequest> requests);

}  // namespace dra::sched
