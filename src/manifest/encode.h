// api::Object -> Node tree, for printing (manifest/emit.h) or sending to the
// API server.
//
// The tree is what the Go JSON encoder makes of the upstream type:
//   - `apiVersion` ("resource.k8s.io/v1", "v1" or "scheduling.k8s.io/v1beta1",
//     see api::ApiVersionFor) and
//     `kind` first, then the fields in Go struct order;
//   - omitempty fields are left out when empty, others are always written:
//     struct-valued fields even when empty (`spec: {}`, `status: {}`,
//     `resources: {}`), unset non-omitempty pointers, lists, maps and times as
//     null (`creationTimestamp: null`, `requests: null`);
//   - map keys sorted, as Go sorts them;
//   - quantities as their canonical string ("1Gi", "500m");
//   - RawJson values (opaque parameters, `extra` fields) expanded back into
//     trees; `extra` fields of core structs go in their Go position, fields
//     Kubernetes does not know after the known ones.
// Deviations, each so that decode(encode(x)) == x holds: an empty list-typed
// attribute (`ints: []`) is written, keeping its type; unmodelled core struct
// fields that are absent are not synthesised (Go would print a zero
// `nodeInfo`, for example).
//
// Nodes carry no marks. Thread-safe; never fails.
#pragma once

#include "api/object.h"
#include "manifest/node.h"

namespace dra::manifest {

Node EncodeObject(const api::Object& object);

}  // namespace dra::manifest
