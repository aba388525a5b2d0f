// Node tree -> api::Object: the typed decoding step of the loader.
//
// DecodeObject reads one parsed document (manifest/node.h) as the Kubernetes
// API server would, and reports every problem with the node's line and column
// and the field path (`spec.devices[2].capacity[memory].value`), collecting all
// of them rather than stopping at the first.
//
// Kinds and versions:
//   DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate
//       resource.k8s.io/v1 and v1beta2 (same schema), and v1beta1 (requests
//       without `exactly`, device fields under `basic`; converted structurally).
//   DeviceTaintRule   resource.k8s.io/v1, v1beta2 and v1alpha3.
//   Node, Pod         v1.
//   PodGroup, Workload
//       scheduling.k8s.io/v1beta1 and v1alpha3 (same schema). A Workload of
//       another group or version is not one of these (kNotFound below).
//
// Rules:
//   - Scalars must have the JSON type of the field: a string where an integer
//     is expected is an error, and so is a plain integer in a string field
//     (kubectl reports both). Integers must be whole and fit the Go type;
//     quantities accept strings and numbers, as Quantity.UnmarshalJSON does;
//     timestamps must be RFC 3339.
//   - null means "unset", as in Kubernetes, except for a required scalar field,
//     a list element, or a map value other than a string: those are errors.
//   - Unknown fields of resource.k8s.io and scheduling.k8s.io objects are warnings
//     (`unknown field "foo"`, the path in Diagnostic::field), or errors with
//     DecodeOptions::strict; they are dropped. Core/meta structs keep fields
//     they do not model in `extra`: silently when the field exists in
//     Kubernetes, with the same warning (error if strict) when it does not. Fully modelled core structs
//     (Toleration, NodeSelector, ...) drop unknown fields with the warning.
//   - No defaulting happens here (see api/defaults.h).
#pragma once

#include <string>
#include <vector>

#include "api/field_path.h"
#include "api/object.h"
#include "api/workload.h"
#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

struct Diagnostic {
  api::Severity severity = api::Severity::kError;
  Mark mark;          // of the offending node (or key, for unknown fields)
  std::string field;  // FieldPath::String(), e.g. "spec.devices[2].name"; may be empty
  std::string message;

  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

struct DecodeOptions {
  // Unknown fields are errors instead of warnings.
  bool strict = false;
};

// Decodes `root`, appending every problem found to `*diagnostics` (warnings
// included; may be null to discard them).
//
// Returns:
//   ok                 the object; ObjectMeta::source gets root's line and
//                      column (the caller fills in the file). Warnings may
//                      have been added.
//   kNotFound          `root` is empty (null) or not a kind/apiVersion listed
//                      above (e.g. apps/v1 Deployment); nothing is added to
//                      `*diagnostics`. Loaders count and skip these.
//   kInvalidArgument   at least one error Diagnostic was added; the message
//                      summarises the first and says how many there were.
StatusOr<api::Object> DecodeObject(const Node& root, const DecodeOptions& options,
                                   std::vector<Diagnostic>* diagnostics);

// Decodes an apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet or batch/v1
// Job or CronJob (api/workload.h) with the same rules as DecodeObject: the pod
// template as a Pod, unmodelled spec fields kept in Workload::spec_extra,
// status raw.
// kNotFound (nothing added to `*diagnostics`) for any other kind or version.
StatusOr<api::Workload> DecodeWorkload(const Node& root, const DecodeOptions& options,
                                       std::vector<Diagnostic>* diagnostics);

}  // namespace dra::manifest
