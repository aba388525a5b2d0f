#include "alloc/constraints.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

api::Device Dev(std::string name, std::string attr, api::DeviceAttribute value) {
  api::Device d{.name = std::move(name)};
  d.attributes.insert_or_assign(attr, std::move(value));
  return d;
}

api::DeviceConstraint Match(std::string attr, std::vector<std::string> requests = {}) {
  return {.requests = std::move(requests), .match_attribute = std::move(attr)};
}
api::DeviceConstraint Distinct(std::string attr) { return {.distinct_attribute = std::move(attr)}; }

TEST(ConstraintsTest, LooksUpBareNameInDriverDomain) {
  api::Device d = Dev("a", "model", api::DeviceAttribute::String("x"));
  EXPECT_NE(LookupAttribute(d, "drv", "drv/model"), nullptr);
  EXPECT_EQ(LookupAttribute(d, "other", "drv/model"), nullptr);
}

TEST(ConstraintsTest, MatchAttributeScalar) {
  auto c = NewConstraint(Match("drv/model"), false);
  api::Device a = Dev("a", "model", api::DeviceAttribute::String("x"));
  api::Device b = Dev("b", "model", api::DeviceAttribute::String("y"));
  api::Device i = Dev("i", "model", api::DeviceAttribute::Int(1));
  api::Device none{.name = "n"};
  EXPECT_TRUE(c->Add("r", "", a, "drv"));
  EXPECT_FALSE(c->Add("r", "", b, "drv"));
  EXPECT_FALSE(c->Add("r", "", i, "drv"));
  EXPECT_FALSE(c->Add("r", "", none, "drv"));
  c->Remove("r", "", a, "drv");
  EXPECT_TRUE(c->Add("r", "", b, "drv"));  // empty again: b sets the reference
}

TEST(ConstraintsTest, MatchAttributeOnlyAppliesToNamedRequests) {
  auto c = NewConstraint(Match("drv/model", {"r1", "r2/sub"}), false);
  api::Device a = Dev("a", "model", api::DeviceAttribute::String("x"));
  api::Device b = Dev("b", "model", api::DeviceAttribute::String("y"));
  EXPECT_TRUE(c->Add("r1", "", a, "drv"));
  EXPECT_TRUE(c->Add("r3", "", b, "drv"));       // not applicable
  EXPECT_TRUE(c->Add("r2", "other", b, "drv"));  // other subrequest
  EXPECT_FALSE(c->Add("r2", "sub", b, "drv"));
}

TEST(ConstraintsTest, MatchAttributeListModeIntersects) {
  auto c = NewConstraint(Match("drv/numa"), true);
  api::Device a = Dev("a", "numa", api::DeviceAttribute::Ints({0, 1}));
  api::Device b = Dev("b", "numa", api::DeviceAttribute::Ints({1, 2}));
  api::Device d = Dev("d", "numa", api::DeviceAttribute::Int(0));
  api::Device s = Dev("s", "numa", api::DeviceAttribute::String("1"));
  EXPECT_TRUE(c->Add("r", "", a, "drv"));
  EXPECT_FALSE(c->Add("r", "", s, "drv"));  // other element type
  EXPECT_TRUE(c->Add("r", "", b, "drv"));   // intersection {1}
  EXPECT_FALSE(c->Add("r", "", d, "drv"));
  c->Remove("r", "", b, "drv");
  EXPECT_TRUE(c->Add("r", "", d, "drv"));  // back to {0, 1} (1.37 restores it)
  api::Device empty = Dev("e", "numa", api::DeviceAttribute::Ints({}));
  auto fresh = NewConstraint(Match("drv/numa"), true);
  EXPECT_FALSE(fresh->Add("r", "", empty, "drv"));  // an empty list is no set at all
}

TEST(ConstraintsTest, DistinctAttributeComparesWithEveryDeviceAdded) {
  auto c = NewConstraint(Distinct("drv/id"), false);
  api::Device a = Dev("a", "id", api::DeviceAttribute::Int(1));
  api::Device b = Dev("b", "id", api::DeviceAttribute::Int(2));
  api::Device a2 = Dev("a2", "id", api::DeviceAttribute::Int(1));
  EXPECT_TRUE(c->Add("r1", "", a, "drv"));
  EXPECT_FALSE(c->Add("r2", "", a2, "drv"));
  EXPECT_TRUE(c->Add("r1", "", b, "drv"));
  EXPECT_FALSE(c->Add("r1", "", a2, "drv"));  // 1 is still taken by a
  c->Remove("r1", "", b, "drv");
  c->Remove("r1", "", a, "drv");
  EXPECT_TRUE(c->Add("r1", "", a2, "drv"));  // nothing left to clash with
}

TEST(ConstraintsTest, DistinctAttributeListModeIsPairwiseDisjoint) {
  auto c = NewConstraint(Distinct("drv/numa"), true);
  api::Device a = Dev("a", "numa", api::DeviceAttribute::Ints({0, 1}));
  api::Device b = Dev("b", "numa", api::DeviceAttribute::Ints({1, 2}));
  api::Device d = Dev("d", "numa", api::DeviceAttribute::Int(2));
  EXPECT_TRUE(c->Add("r", "", a, "drv"));
  EXPECT_FALSE(c->Add("r", "", b, "drv"));  // shares 1 with a
  EXPECT_TRUE(c->Add("r", "", d, "drv"));
}

TEST(ConstraintsTest, EmptyConstraintIsNull) { EXPECT_EQ(NewConstraint(api::DeviceConstraint{}, false), nullptr); }

}  // namespace
}  // namespace dra::alloc
