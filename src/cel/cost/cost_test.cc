#include "cel/cost/cost.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "cel/checker/checker_decls.h"
#include "cel/parser/parser.h"

namespace dra::cel {
namespace {

constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

// The estimate of `expr` in the Kubernetes DRA environment (1.37 stored,
// DRAListTypeAttributes on), or in the standard one with no estimator.
CostEstimate Estimate(std::string_view expr, bool kubernetes = true) {
  KubernetesEnvOptions o;
  o.list_type_attributes = true;
  CheckerEnv env = kubernetes ? KubernetesCheckerEnv(o) : StandardCheckerEnv();
  if (!kubernetes) env.Declare("l", Type::List(Type::Int()));
  StatusOr<ParseResult> parsed = Parse(expr);
  EXPECT_TRUE(parsed.ok() && parsed->issues.empty()) << expr;
  if (!parsed.ok() || !parsed->issues.empty()) return {};
  CheckResult checked = Check(*parsed->expr, env);
  EXPECT_TRUE(checked.ok()) << expr << ": " << FormatIssues(expr, checked.issues);
  if (!kubernetes) return EstimateCost(*parsed->expr, checked);
  auto estimator = NewKubernetesCostEstimator();
  return EstimateCost(*parsed->expr, checked, KubernetesCostOptions(*estimator));
}

struct Case {
  const char* name;
  const char* expr;
  uint64_t want_max;
};

// Upstream's estimates (dynamic-resource-allocation cel/compile_test.go, as
// the max_cost fields of testdata/conformance/cel/dra-compile.jsonl give them)
// and hand-computed ones following cel-go's rules.
TEST(CostTest, MatchesUpstreamEstimates) {
  const Case cases[] = {
      {.name = "constant", .expr = "true", .want_max = 0},
      {.name = "driver_empty", .expr = "device.driver == \"\"", .want_max = 2},
      {.name = "driver", .expr = "device.driver == \"dra.example.com\"", .want_max = 4},
      {.name = "domain_in", .expr = "\"d\" in device.attributes", .want_max = 3},
      {.name = "attribute", .expr = "device.attributes[\"dra.example.com\"].name", .want_max = 4},
      {.name = "bind", .expr = "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name)", .want_max = 15},
      {.name = "exists_on_attribute",
       .expr = "device.attributes[\"dra.example.com\"].names.exists(x, x > 0)",
       .want_max = 389},
      {.name = "all_on_attribute",
       .expr = "device.attributes[\"dra.example.com\"].names.all(x, x != \"\")",
       .want_max = 261},
      {.name = "includes", .expr = "device.attributes[\"dra.example.com\"].name.includes(\"fish\")", .want_max = 52},
      {.name = "in_attribute_list", .expr = "1 in device.attributes[\"dra.example.com\"].names", .want_max = 68},
      {.name = "exists_one_domains",
       .expr = "device.attributes.exists_one(x, x == \"dra.example.com\")",
       .want_max = 164},
      {.name = "split",
       .expr = "device.attributes[\"dra.example.com\"].services.split(\"example\").size() >= 2",
       .want_max = 19},
      {.name = "matches",
       .expr = "device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\")",
       .want_max = 18},
      {.name = "quantity",
       .expr = "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
       .want_max = 6},
      {.name = "multi_alloc", .expr = "device.allowMultipleAllocations == false", .want_max = 3},
      // Kubernetes prices equality of two quantities at 1, whatever their size.
      {.name = "quantity_equality", .expr = "device.capacity[\"d\"].memory == quantity(\"1Gi\")", .want_max = 6},
      // has() is free in Kubernetes.
      {.name = "has", .expr = "has(device.attributes[\"d\"].model)", .want_max = 3},
      {.name = "lower_ascii", .expr = "device.attributes[\"d\"].model.lowerAscii() == \"x\"", .want_max = 4 + 7 + 1},
      {.name = "expensive",
       .expr = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
               "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
               "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
               "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
       .want_max = 85555551},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Estimate(c.expr).max, c.want_max) << c.name << ": " << c.expr;
  }
}

TEST(CostTest, GenericRules) {
  // No estimator: the standard environment.
  EXPECT_EQ(Estimate("1 + 1", false).max, 1u);
  EXPECT_EQ(Estimate("'abc'.contains('b')", false).max, 1u);
  // 10 for the list, 3 iterations of cond (2) + step (3), 1 for the result.
  EXPECT_EQ(Estimate("[1, 2, 3].all(x, x > 0)", false).max, 26u);
  // has() costs 1 without Kubernetes' option.
  EXPECT_EQ(Estimate("has({'a': 1}.a)", false).max, 31u);
  EXPECT_EQ(Estimate("has({'a': 1}.a)", true).max, 30u);
  // A comprehension over a list of unknown size is unbounded.
  EXPECT_EQ(Estimate("l.all(x, x > 0)", false).max, kUnbounded);
  // Sizes flow through map() into a following comprehension.
  EXPECT_EQ(Estimate("[1, 2].map(x, x + 1).exists(y, y == 3)", false).max, 62u);
}

TEST(CostTest, OverTheLimit) {
  const CostEstimate c = Estimate(
      "device.attributes.all(d, device.attributes[d].all(a, device.attributes.all(e, "
      "device.attributes[e].all(b, a == b))))");
  EXPECT_GT(c.max, kCelSelectorExpressionMaxCost);
  EXPECT_LE(c.min, c.max);
}

}  // namespace
}  // namespace dra::cel
