#include "alloc/compatibility_groups.h"

#include <algorithm>

namespace dra::alloc {
namespace {

std::vector<std::string> SortedSet(std::span<const std::string> groups) {
  std::vector<std::string> out(groups.begin(), groups.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

bool GroupIntersection::Admits(std::span<const std::string> groups) const {
  if (!has_members_) return true;
  // No groups joins only members without groups, and the other way round.
  if (groups.empty() || all_empty_) return groups.empty() && all_empty_;
  return std::any_of(groups.begin(), groups.end(),
                     [&](const std::string& g) { return std::binary_search(groups_.begin(), groups_.end(), g); });
}

void GroupIntersection::Add(std::span<const std::string> groups) {
  if (!has_members_) {
    has_members_ = true;
    all_empty_ = groups.empty();
    groups_ = SortedSet(groups);
    return;
  }
  // A member without groups (on either side) leaves the state as it is:
  // Admits allowed it only when both sides had none.
  if (all_empty_ || groups.empty()) return;
  const std::vector<std::string> theirs = SortedSet(groups);
  std::vector<std::string> both;
  std::set_intersection(groups_.begin(), groups_.end(), theirs.begin(), theirs.end(), std::back_inserter(both));
  groups_ = std::move(both);
}

}  // namespace dra::alloc
