// GroupIntersection against the rules of upstream's compatibility_groups.go
// (KEP DRADeviceCompatibilityGroups): expectations worked out by hand.
#include "alloc/compatibility_groups.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

using Groups = std::vector<std::string>;

TEST(GroupIntersectionTest, EmptyCounterSetAdmitsAnything) {
  GroupIntersection g;
  EXPECT_FALSE(g.has_members());
  EXPECT_TRUE(g.Admits(Groups{}));
  EXPECT_TRUE(g.Admits(Groups{"a"}));
}

TEST(GroupIntersectionTest, NarrowsToTheCommonGroups) {
  GroupIntersection g;
  g.Add(Groups{"b", "a"});
  EXPECT_EQ(g.groups(), (Groups{"a", "b"}));
  EXPECT_TRUE(g.Admits(Groups{"b", "c"}));
  g.Add(Groups{"b", "c"});
  EXPECT_EQ(g.groups(), Groups{"b"});
  // "a" was common to the first device only: no longer enough.
  EXPECT_FALSE(g.Admits(Groups{"a"}));
  EXPECT_FALSE(g.Admits(Groups{"c"}));
  EXPECT_TRUE(g.Admits(Groups{"x", "b"}));
}

TEST(GroupIntersectionTest, NoGroupsOnlyWithNoGroups) {
  GroupIntersection none;
  none.Add(Groups{});
  EXPECT_TRUE(none.Admits(Groups{}));  // a second device without groups
  EXPECT_FALSE(none.Admits(Groups{"a"}));
  none.Add(Groups{});
  EXPECT_TRUE(none.Admits(Groups{}));

  GroupIntersection grouped;
  grouped.Add(Groups{"a"});
  EXPECT_FALSE(grouped.Admits(Groups{}));
}

TEST(GroupIntersectionTest, CopyIsTheUndoSnapshot) {
  GroupIntersection g;
  g.Add(Groups{"a", "b"});
  const GroupIntersection before = g;
  g.Add(Groups{"b"});
  EXPECT_FALSE(g.Admits(Groups{"a"}));
  g = before;
  EXPECT_TRUE(g.Admits(Groups{"a"}));
  EXPECT_EQ(g, before);
}

}  // namespace
}  // namespace dra::alloc
