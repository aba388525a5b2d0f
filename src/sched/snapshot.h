// The cluster as the scheduler sees it at one moment: every object it reads,
// owned by value. Schedule() (scheduler.h) changes it as kube-scheduler and
// the resource-claim controller would change the API objects: generated
// claims are appended, claims get status.allocation and reservedFor, pods get
// spec.nodeName and status.resourceClaimStatuses.
//
// Invariants after NewSnapshot:
//   1. `nodes` are sorted by name; the other lists keep input order.
//   2. `slices` hold the DeviceTaintRules' taints (alloc::ApplyDeviceTaintRules).
//   3. Every pod and PodGroup has a metadata.uid: those without one get a
//      stable one derived from namespace/name (StableUid), so owner
//      references and reservedFor entries can name them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/features.h"
#include "api/object.h"
#include "api/scheduling.h"

namespace dra::sched {

struct Snapshot {
  api::FeatureGates gates = api::FeatureGates::Defaults();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  std::vector<api::ResourceClaim> claims;
  std::vector<api::ResourceClaimTemplate> templates;
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::DeviceTaintRule> rules;
  // scheduling.k8s.io PodGroups: the groups pods name in
  // spec.schedulingGroup.podGroupName (gate GenericWorkload).
  std::vector<api::PodGroup> pod_groups;

  // Index into `claims` of claim `name` in namespace `ns`, or nullopt.
  std::optional<size_t> FindClaim(std::string_view ns, std::string_view name) const;
  // Indices into `claims` of the claims whose controller owner reference has
  // this uid, in claims order.
  std::vector<size_t> ClaimsControlledBy(std::string_view uid) const;
  const api::ResourceClaimTemplate* FindTemplate(std::string_view ns, std::string_view name) const;
  // Index into `pod_groups` of PodGroup `name` in namespace `ns`, or nullopt
  // (a scan: a snapshot holds few groups).
  std::optional<size_t> FindPodGroup(std::string_view ns, std::string_view name) const;

  // The lookup tables behind FindClaim and ClaimsControlledBy, extended on
  // each lookup to the claims appended since (claims are only ever appended;
  // a claim's namespace, name and owners must not change once looked up).
  struct ClaimIndex {
    size_t indexed = 0;                                             // claims[0, indexed) are in the maps
    std::unordered_map<std::string, size_t> by_key;                 // "ns/name"
    std::unordered_map<std::string, std::vector<size_t>> by_owner;  // controller uid
  };
  mutable ClaimIndex claim_index{};
  // FindTemplate's table, likewise (templates are only ever appended).
  struct TemplateIndex {
    size_t indexed = 0;
    std::unordered_map<std::string, size_t> by_key;  // "ns/name"
  };
  mutable TemplateIndex template_index{};

 private:
  void IndexClaims() const;
};

// Node name -> index into a list of nodes, built once (the names are viewed,
// not copied: the nodes must outlive it and keep their names).
class NodeIndex {
 public:
  explicit NodeIndex(std::span<const api::Node> nodes);
  std::optional<size_t> Find(std::string_view name) const;

 private:
  std::vector<std::pair<std::string_view, size_t>> sorted_;
};

// A snapshot of copies of `objects` (other kinds are ignored).
// REQUIRES: the objects are defaulted (api/defaults.h) and valid.
Snapshot NewSnapshot(std::span<const api::Object* const> objects, const api::FeatureGates& gates);

// NewSnapshot without the copies: the objects' contents are moved into the
// snapshot (the objects of the kinds it holds are left moved-from, to be
// destroyed or assigned), so that a large cluster is held once, not twice.
Snapshot NewSnapshotTaking(std::span<api::Object* const> objects, const api::FeatureGates& gates);

// Nodes for an input that has ResourceSlices but no Node objects (the
// fixtures of a driver, say), so that `schedule` can still place pods: one
// Node per distinct ResourceSlice spec.nodeName, in name order, labelled
// kubernetes.io/hostname=<name>, without taints, with allocatable cpu 1k,
// memory 16Ti and pods 110 (large enough that only devices decide).
// Empty if `objects` holds any Node.
std::vector<api::Node> ImpliedNodes(std::span<const api::Object* const> objects);

// "namespace/name" of an object.
std::string ObjectKey(const api::ObjectMeta& m);
// Whether `key` is ObjectKey(m), without building it.
bool HasObjectKey(const api::ObjectMeta& m, std::string_view key);

// A UUID-shaped (version 4 layout) text derived from `key` alone.
std::string StableUid(std::string_view key);

}  // namespace dra::sched
