#include "api/node_selector.h"

#include <gtest/gtest.h>

namespace dra::api {
namespace {

NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values) {
  NodeSelectorRequirement r;
  r.key = std::move(key);
  r.operator_ = EnumString<NodeSelectorOperator>(std::move(op));
  r.values = std::move(values);
  return r;
}

struct Case {
  std::string name;
  NodeSelector selector;
  bool want = false;
  std::string error = "";  // substring; empty = no error
};

TEST(NodeSelectorTest, MatchesAsNodeAffinityDoes) {
  FlatMap<std::string> labels{{"zone", "a"}, {"gpus", "8"}};
  auto term = [](std::vector<NodeSelectorRequirement> exprs, std::vector<NodeSelectorRequirement> fields = {}) {
    NodeSelectorTerm t;
    t.match_expressions = std::move(exprs);
    t.match_fields = std::move(fields);
    return t;
  };
  const Case cases[] = {
      {.name = "in", .selector = {{term({Req("zone", "In", {"b", "a"})})}}, .want = true},
      {.name = "in_missing_label", .selector = {{term({Req("rack", "In", {"a"})})}}, .want = false},
      {.name = "not_in", .selector = {{term({Req("zone", "NotIn", {"a"})})}}, .want = false},
      {.name = "not_in_missing_label", .selector = {{term({Req("rack", "NotIn", {"a"})})}}, .want = true},
      {.name = "exists", .selector = {{term({Req("zone", "Exists", {})})}}, .want = true},
      {.name = "does_not_exist", .selector = {{term({Req("zone", "DoesNotExist", {})})}}, .want = false},
      {.name = "gt", .selector = {{term({Req("gpus", "Gt", {"4"})})}}, .want = true},
      {.name = "lt", .selector = {{term({Req("gpus", "Lt", {"4"})})}}, .want = false},
      {.name = "terms_are_ored",
       .selector = {{term({Req("zone", "In", {"x"})}), term({Req("zone", "In", {"a"})})}},
       .want = true},
      {.name = "requirements_are_anded",
       .selector = {{term({Req("zone", "In", {"a"}), Req("gpus", "Gt", {"8"})})}},
       .want = false},
      {.name = "field_in", .selector = {{term({}, {Req("metadata.name", "In", {"node-1"})})}}, .want = true},
      {.name = "field_not_in", .selector = {{term({}, {Req("metadata.name", "NotIn", {"node-1"})})}}, .want = false},
      {.name = "empty_term_matches_nothing", .selector = {{term({})}}, .want = false},
      {.name = "no_terms_match_nothing", .selector = {}, .want = false},
      {.name = "bad_operator", .selector = {{term({Req("zone", "Like", {"a"})})}}, .error = "unsupported operator"},
      {.name = "in_without_values", .selector = {{term({Req("zone", "In", {})})}}, .error = "must be non-empty"},
      {.name = "exists_with_values", .selector = {{term({Req("zone", "Exists", {"a"})})}}, .error = "must be empty"},
      {.name = "gt_not_integer", .selector = {{term({Req("gpus", "Gt", {"x"})})}}, .error = "is not an integer"},
      {.name = "field_other_key",
       .selector = {{term({}, {Req("metadata.uid", "In", {"x"})})}},
       .error = "only metadata.name"},
      {.name = "field_two_values",
       .selector = {{term({}, {Req("metadata.name", "In", {"a", "b"})})}},
       .error = "exactly one value"},
      {.name = "error_after_mismatch_still_reported",
       .selector = {{term({Req("zone", "In", {"x"}), Req("gpus", "Gt", {"x"})})}},
       .error = "is not an integer"},
  };
  for (const Case& c : cases) {
    StatusOr<bool> got = MatchesNodeSelector(c.selector, "node-1", labels);
    if (!c.error.empty()) {
      ASSERT_FALSE(got.ok()) << c.name;
      EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.name;
      EXPECT_NE(got.status().message().find(c.error), std::string::npos) << c.name << ": " << got.status().message();
    } else {
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
      EXPECT_EQ(*got, c.want) << c.name;
    }
  }
}

}  // namespace
}  // namespace dra::api
