// dractl migrate (issue #25): workloads that ask device plugins for GPUs and
// TPUs (`nvidia.com/gpu: 1` plus node labels of GPU feature discovery)
// rewritten for Dynamic Resource Allocation. The rewrite works on the parsed
// trees (manifest::Node), so objects keep their order, names and every field
// the migration does not touch.
//
// Flow, per object (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// CronJob; other objects pass through unchanged):
//   1. the device-plugin resources of each container (device_plugin.h): the
//      requests; names in a device-plugin domain dractl does not know are
//      errors and stay as they are;
//   2. the pod's node constraints (nodeSelector, the single term of required
//      node affinity) on device labels (labels.h): hints that change a
//      request's kind, then, per label, a CEL selector for every request of
//      the label's vendor, or the label is kept (a warning says why);
//   3. --mode claims: one ResourceClaimTemplate per distinct request (class,
//      count, selectors, sharing config) and namespace, named
//      `<workload>-<pod claim>` after the first workload that needs it and
//      placed just before it; the pod gets `spec.resourceClaims` and each
//      container `resources.claims`; the device-plugin limits and the
//      translated label constraints are removed. An init container whose
//      request equals an app container's shares that claim (the device plugin
//      hands init containers the devices of the pod's later containers).
//      --mode extended-resource: the workloads stay as they are; what is
//      emitted is a DeviceClass per resource with `extendedResourceName`.
//   4. the DeviceClasses the output uses and `existing_classes` lacks, first.
//
// Messages are the loader's (file:line:col: Kind ns/name: field: message);
// an error means the output is not complete.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "manifest/loader.h"
#include "manifest/node.h"
#include "migrate/device_plugin.h"

namespace dra::migrate {

enum class Mode { kClaims, kExtendedResource };

// One input object; a List's items are objects of their own.
struct SourceObject {
  manifest::Node root;
  std::shared_ptr<const std::string> file{};
};

// Appends the objects of document `root` (the items of a `kind: List` or
// `<Kind>List`, flattened; else the document itself) to `out`.
void AppendObjects(manifest::Node root, const std::shared_ptr<const std::string>& file, std::vector<SourceObject>* out);

struct MigrateOptions {
  Mode mode = Mode::kClaims;
  // DeviceClasses of the cluster: name -> its extendedResourceName ("" when
  // none). The DeviceClasses among the input objects are added to them.
  std::map<std::string, std::string, std::less<>> existing_classes{};
  // True when `existing_classes` comes from a cluster (--cluster): classes it
  // lacks are emitted with a note each; false: every class the output needs
  // is emitted, with one note saying so.
  bool cluster_known = false;
};

struct MigrateResult {
  std::vector<manifest::Node> objects{};          // the output, in order
  std::vector<manifest::LoadMessage> messages{};  // warnings and errors
  std::vector<std::string> notes{};               // for stderr, one line each
  size_t rewritten = 0;                           // workloads and pods changed
  size_t templates = 0;                           // ResourceClaimTemplates emitted
  std::vector<std::string> classes{};             // DeviceClasses emitted

  size_t error_count() const;
};

// Migrates `objects` (see the top of this file). Never fails as a whole:
// what cannot be translated is a message and stays as it was.
MigrateResult Migrate(std::vector<SourceObject> objects, const MigrateOptions& options);

// The time-slicing ConfigMaps among `objects` (device_plugin.h), read.
SharingConfig ReadSharing(const std::vector<SourceObject>& objects, std::vector<manifest::LoadMessage>* messages);

}  // namespace dra::migrate
