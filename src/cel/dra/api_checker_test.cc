// The API server's compilation of selectors and derived attributes through
// api::Validate. Expectations are upstream's own: the cases of
// dynamic-resource-allocation v0.37.2 cel/compile_test.go
// TestCompileDerivedAttributes and of kubernetes v1.37.2
// pkg/apis/resource/validation/validation_resourceclaim_test.go (the
// derived-attributes-* cases), and the selector messages of
// validateCELExpression.
#include "cel/dra/api_checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "manifest/loader.h"

namespace dra::cel {
namespace {

api::FeatureGates Gates(bool list_type_attributes) {
  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults("1.37");
  EXPECT_TRUE(gates.ok());
  EXPECT_TRUE(gates->Set(api::Gate::kDRADerivedAttributes, true).ok());
  EXPECT_TRUE(gates->Set(api::Gate::kDRAListTypeAttributes, list_type_attributes).ok());
  return *gates;
}

// TestCompileDerivedAttributes, NewExpressions cases.
TEST(ApiCheckerTest, DerivedAttributeResultTypes) {
  struct Case {
    std::string expression;
    bool list_type_attributes;
    std::string error;  // empty: compiles
  };
  const std::vector<Case> cases = {
      {"true", false, ""},
      {"[true, false]", true, ""},
      {"1", false, ""},
      {"[1, 2, 3]", true, ""},
      {R"("fish")", false, ""},
      {R"(["a", "b"])", true, ""},
      {R"(semver("1.0.0"))", false, ""},
      {R"([semver("1.0.0"), semver("2.0.0")])", true, ""},
      {R"(device.attributes["dra.example.com"]["numa"])", false, ""},
      {R"([device.attributes["dra.example.com"]["numa"]])", true, ""},
      {R"(dyn("foo"))", false, ""},
      {R"([dyn("foo"), dyn(1)])", true, ""},
      {"device.attributes", false,
       "must evaluate to a primitive scalar (string, integer, boolean, semver), not map(string, map(string, "
       "google.protobuf.Any))"},
      {"[1, 2, 3]", false, "must evaluate to a primitive scalar (string, integer, boolean, semver), not list(int)"},
      {"[device.attributes]", true,
       "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not "
       "list(map(string, map(string, dyn)))"},
      {"null", true,
       "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not "
       "null_type"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expression);
    std::unique_ptr<api::CelExpressionChecker> checker = NewApiServerChecker(Gates(c.list_type_attributes));
    const api::CelExpressionCheck& check = checker->Check(c.expression, api::CelExpressionKind::kDerivedAttribute);
    if (c.error.empty()) {
      EXPECT_TRUE(check.compiled);
      EXPECT_TRUE(check.problems.empty());
    } else {
      EXPECT_FALSE(check.compiled);
      ASSERT_EQ(check.problems.size(), 1u);
      EXPECT_EQ(check.problems[0].type, api::FieldErrorType::kInvalid);
      EXPECT_EQ(check.problems[0].detail, c.error);
    }
  }
}

// 10^5 and 10^7 iterations of a small body (validation_resourceclaim_test.go).
std::string NestedAll(int levels) {
  std::string e = "int('1'.find('[0-9]*')) < 100";
  for (int i = levels; i > 0; --i) {
    e = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(v" + std::to_string(i) + ", " + e + ")";
  }
  return e;
}

std::string Claim(const std::vector<std::string>& expressions) {
  std::string yaml = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: claim, namespace: default}
spec:
  devices:
    requests:
    - name: req
      exactly:
        deviceClassName: gpu
        derivedAttributes:
)";
  for (size_t i = 0; i < expressions.size(); ++i) {
    yaml += "        - name: derived/attr" + std::to_string(i) + "\n          expression: \"" + expressions[i] + "\"\n";
  }
  yaml += "    constraints:\n";
  for (size_t i = 0; i < expressions.size(); ++i) {
    yaml += "    - requests: [req]\n      matchAttribute: derived/attr" + std::to_string(i) + "\n";
  }
  return yaml;
}

std::vector<std::string> Validate(const std::string& yaml, const api::FeatureGates& gates) {
  manifest::LoadResult loaded;
  manifest::Loader(manifest::LoadOptions{}).LoadText(yaml, "claim.yaml", &loaded);
  EXPECT_EQ(loaded.error_count(), 0u);
  EXPECT_EQ(loaded.objects.size(), 1u);
  if (loaded.objects.empty()) return {};
  api::SetDefaults(loaded.objects[0].object, "1970-01-01T00:00:00Z", gates);
  std::unique_ptr<api::CelExpressionChecker> checker = NewApiServerChecker(gates);
  std::vector<std::string> out;
  for (const api::FieldError& e : api::Validate(loaded.objects[0].object, gates, checker.get())) {
    out.push_back(e.ToString());
  }
  return out;
}

TEST(ApiCheckerTest, DerivedAttributeCostUnderLimit) {
  EXPECT_EQ(Validate(Claim({NestedAll(5)}), Gates(false)), std::vector<std::string>{});
}

TEST(ApiCheckerTest, DerivedAttributeCostPerExpressionExceedsLimit) {
  EXPECT_EQ(Validate(Claim({NestedAll(7)}), Gates(false)),
            (std::vector<std::string>{
                "spec.devices.requests[0].exactly.derivedAttributes[0].expression: Forbidden: too complex, exceeds "
                "cost limit",
                "spec.devices: Forbidden: too complex, total cost of derived attribute CEL expressions in the claim "
                "exceeds cost limit"}));
}

TEST(ApiCheckerTest, DerivedAttributeCostSharedByTheClaim) {
  EXPECT_EQ(Validate(Claim({NestedAll(5), NestedAll(5)}), Gates(false)),
            (std::vector<std::string>{"spec.devices: Forbidden: too complex, total cost of derived attribute CEL "
                                      "expressions in the claim exceeds cost limit"}));
}

TEST(ApiCheckerTest, DerivedAttributeListTypeDisabled) {
  EXPECT_EQ(Validate(Claim({"[1, 2, 3]"}), Gates(false)),
            (std::vector<std::string>{
                "spec.devices.requests[0].exactly.derivedAttributes[0].expression: Invalid value: \"[1, 2, 3]\": must "
                "evaluate to a primitive scalar (string, integer, boolean, semver), not list(int)"}));
}

// validateCELExpression on a selector: the result type, then the cost limit.
TEST(ApiCheckerTest, Selectors) {
  std::unique_ptr<api::CelExpressionChecker> checker = NewApiServerChecker(Gates(false));
  const api::CelExpressionCheck& int_result = checker->Check("1", api::CelExpressionKind::kSelector);
  ASSERT_EQ(int_result.problems.size(), 1u);
  EXPECT_EQ(int_result.problems[0].detail, "must evaluate to bool or the unknown type, not int");
  const api::CelExpressionCheck& costly = checker->Check(NestedAll(7), api::CelExpressionKind::kSelector);
  ASSERT_EQ(costly.problems.size(), 1u);
  EXPECT_EQ(costly.problems[0].type, api::FieldErrorType::kForbidden);
  EXPECT_EQ(costly.problems[0].detail, "too complex, exceeds cost limit");
  const api::CelExpressionCheck& fine = checker->Check(NestedAll(5), api::CelExpressionKind::kSelector);
  EXPECT_TRUE(fine.compiled);
  EXPECT_TRUE(fine.problems.empty());
}

}  // namespace
}  // namespace dra::cel
