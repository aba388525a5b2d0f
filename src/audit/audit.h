// `dractl audit`: what in a cluster's DRA setup makes pods fail at
// scheduling time for reasons nobody sees, as findings with a stable ID, a
// severity, the object and field, and a one-line fix.
//
// Checks (the IDs are stable: scripts match on them):
//   DeviceClasses over every device of every ResourceSlice, evaluated as
//   kube-scheduler evaluates them (cel/dra/dra_env.h, StoredExpressions; the
//   selectors in order, the first false or error deciding):
//     class-matches-nothing   a class no device passes
//     device-in-no-class      devices no class passes, per driver
//     classes-overlap         two classes passing the same devices (equal
//                             sets: warning; otherwise info)
//     selector-runtime-error  a selector (of a class, or of a request of an
//                             unallocated claim or a template, on the devices
//                             its class passes) that fails on some device:
//                             the allocator then fails the whole claim
//     selector-cost-high      a selector whose runtime cost on some device
//                             reaches AuditOptions::cost_warning
//   Claims:
//     claim-fits-no-node      an unallocated claim, or a template, that no
//                             node can hold even with every device free (the
//                             allocator on each node, no allocations), with
//                             explain's reason and the nearest node
//     admin-access-namespace  adminAccess requested in a namespace without
//                             the label resource.kubernetes.io/admin-access:
//                             "true" (the API server refuses such claims), or
//                             in one the input does not hold
//   Slices and nodes:
//     pool-incomplete         a pool whose newest generation has fewer slices
//                             than resourceSliceCount, or whose slices of one
//                             generation disagree on it (the allocator skips
//                             the pool: its devices are unusable)
//     device-tainted          devices tainted NoSchedule or NoExecute (with
//                             DeviceTaintRules), per taint key and effect
//     stranded-devices        free devices on a node with no pod slot left,
//                             or less than 1% of its cpu or memory
//     slice-near-limit        a slice at 90% or more of its device limit (128;
//                             64 with taints, counters or binding conditions),
//                             or a device at 90% of the 32 attributes and
//                             capacities it may have
//     attribute-nonstandard   a driver's own attribute for what a standard
//                             resource.kubernetes.io/ one says (pcieRoot,
//                             pciBusID, numaNode), on devices without the
//                             standard one: matchAttribute across drivers
//                             needs the standard name
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sched/snapshot.h"

namespace dra::audit {

enum class Severity { kInfo, kWarning, kError };
std::string_view SeverityName(Severity s);  // "info", "warning", "error"

struct Finding {
  std::string id{};  // "class-matches-nothing", ...
  Severity severity = Severity::kWarning;
  std::string kind{};    // of the object: "DeviceClass", "ResourceSlice", "Node", ...; may be empty
  std::string object{};  // its name ("ns/name" when namespaced), or what the finding is about
  std::string field{};   // a field path in it (api/field_path.h syntax); may be empty
  std::string message{};
  std::string fix{};  // one line
};

// A Namespace of the input: only its name and labels matter here.
struct Namespace {
  std::string name{};
  std::map<std::string, std::string, std::less<>> labels{};
};

struct AuditOptions {
  // The cluster's Namespaces; `namespaces_known` false: the input had none,
  // so admin-access-namespace says it cannot tell.
  std::vector<Namespace> namespaces{};
  bool namespaces_known = false;
  // selector-cost-high: a runtime cost on one device at or above this
  // (a tenth of CELSelectorExpressionMaxCost, the limit per evaluation).
  uint64_t cost_warning = 100'000;
  // How many device names a finding lists before "and N more".
  size_t examples = 3;
};

// The findings for `cluster` (defaulted and valid objects), sorted by
// severity (errors first), then ID, object and field. Errors only for a bug
// (the CEL environment cannot be built).
StatusOr<std::vector<Finding>> Audit(const sched::Snapshot& cluster, const AuditOptions& options);

}  // namespace dra::audit
