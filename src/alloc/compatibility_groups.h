// Compatibility groups of partitionable devices (gate DRADeviceCompatibilityGroups,
// Kubernetes 1.37 alpha; src/alloc/README.md §8.1): a device may share a
// counter set with the devices already drawing from it only if the
// compatibilityGroups of all of them have a group in common, and a device that
// declares no groups only shares with devices that declare none either.
// Upstream: compatibilityGroupIntersection in
// k8s.io/dynamic-resource-allocation structured/internal/experimental/
// compatibility_groups.go.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace dra::alloc {

// The rolling state of one counter set: the intersection of the groups of
// every device placed on it so far. A plain value: a copy taken before Add is
// the snapshot that undoes it.
class GroupIntersection {
 public:
  // Whether a device declaring `groups` may join.
  bool Admits(std::span<const std::string> groups) const;
  // Folds `groups` in (the caller checked Admits first).
  void Add(std::span<const std::string> groups);

  bool has_members() const { return has_members_; }
  // Sorted, without repeats; meaningful when has_members() and some member
  // declared groups.
  const std::vector<std::string>& groups() const { return groups_; }

  friend bool operator==(const GroupIntersection&, const GroupIntersection&) = default;

 private:
  bool has_members_ = false;
  // Every member so far declared no groups (only with has_members_).
  bool all_empty_ = false;
  std::vector<std::string> groups_;
};

}  // namespace dra::alloc
