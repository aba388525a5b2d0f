// Checks across a set of objects, which the API server cannot make because it
// sees one object at a time. Every finding is a FieldError with
// Severity::kWarning: the objects are each valid, but together they will not
// work as the user probably intends (a request names a DeviceClass that is not
// there, a pool whose slices disagree, ...).
//
// Findings, each reported on the object it is about:
//   1. A ResourceClaim or ResourceClaimTemplate request (or subrequest) names a
//      DeviceClass that is not in the set (NotFound at ...deviceClassName).
//   2. A Pod names a ResourceClaim or ResourceClaimTemplate that is not in its
//      namespace (NotFound at spec.resourceClaims[i].resourceClaimName /
//      resourceClaimTemplateName), or a container claim names a request the
//      claim does not have (NotFound at ...resources.claims[j].request).
//      An empty namespace counts as "default", as kubectl applies it.
//   3. Slices of one pool (driver + pool name) with the same generation that
//      disagree on spec.pool.resourceSliceCount, or more slices of that
//      generation than resourceSliceCount says (Invalid at spec.pool...).
//   4. In the newest generation of a pool, a device name or a counter-set name
//      that another slice of the pool also uses (Duplicate at
//      spec.devices[j] / spec.sharedCounters[j]): the allocator then treats
//      the whole pool as invalid.
//   5. Two DeviceClasses with the same extendedResourceName (Duplicate at
//      spec.extendedResourceName on the later one): only one of them serves
//      the extended resource.
//   6. Two objects of the same kind, namespace and name (Duplicate at
//      metadata.name on the later one).
//
// Findings come in object order, then in the order above. Pure and thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "api/field_path.h"
#include "api/object.h"

namespace dra::api {

struct ObjectFieldError {
  size_t object_index = 0;  // index into the span given to ValidateCrossObject
  FieldError error;
};

std::vector<ObjectFieldError> ValidateCrossObject(std::span<const Object> objects);

// Finding 6 alone, for callers that treat it as an error (schedule, explain)
// and hold their objects elsewhere: for each object whose kind, namespace (an
// empty one is "default"; ignored for cluster-scoped kinds) and non-empty
// name an earlier object already has, {its index, the first one's index}, in
// index order. `object_at(i)` gives object i of `count`.
struct DuplicateObject {
  size_t index = 0;
  size_t first_index = 0;
};
std::vector<DuplicateObject> FindDuplicateObjects(size_t count, const std::function<const Object&(size_t)>& object_at);

}  // namespace dra::api
