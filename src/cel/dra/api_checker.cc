#include "cel/dra/api_checker.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/release.h"
#include "cel/checker/checker.h"
#include "cel/checker/checker_decls.h"
#include "cel/cost/cost.h"
#include "cel/dra/dra_env.h"
#include "cel/libraries/k8s_lib.h"
#include "cel/parser/ast.h"
#include "cel/parser/parser.h"
#include "re2/re2.h"

namespace dra::cel {
namespace {

using api::CelExpressionCheck;
using api::CelExpressionKind;
using api::CelExpressionProblem;
using api::FieldErrorType;

// device.capacity.memory / device.attributes.model: both maps are keyed by
// the driver's domain first, so the name is taken as a domain and the
// overloads do not match. Says how to write it.
std::string DomainHint(std::string_view expression) {
  static const RE2 kDotAccess(R"(device\.(capacity|attributes)\.([A-Za-z_][A-Za-z0-9_]*))");
  std::string map, name;
  if (!RE2::PartialMatch(expression, kDotAccess, &map, &name)) return "";
  return "\nhint: device." + map + " is keyed by the driver's domain first: write device." + map + "[\"<driver>\"]." +
         name + " (e.g. device." + map + "[\"gpu.nvidia.com\"]." + name + ")";
}

class ApiServerChecker final : public api::CelExpressionChecker {
 public:
  explicit ApiServerChecker(const api::FeatureGates& gates) {
    options_.minor = gates.minor() != 0 ? gates.minor() : kDefaultMinor;
    options_.env = ExpressionEnv::kNewExpressions;
    options_.consumable_capacity = gates.enabled(api::Gate::kDRAConsumableCapacity);
    options_.list_type_attributes = gates.enabled(api::Gate::kDRAListTypeAttributes);
    env_ = KubernetesCheckerEnv(options_);
    parse_options_ = KubernetesParseOptions(options_);
    estimator_ = NewKubernetesCostEstimator();
  }

  const CelExpressionCheck& Check(std::string_view expression, CelExpressionKind kind) override {
    auto& cache = cache_[static_cast<size_t>(kind)];
    auto it = cache.find(expression);  // no copy of the expression on a hit
    if (it == cache.end()) it = cache.emplace(std::string(expression), Compile(expression, kind)).first;
    return it->second;
  }

 private:
  static CelExpressionCheck Failed(FieldErrorType type, std::string detail) {
    CelExpressionCheck check;
    check.problems.push_back({.type = type, .detail = std::move(detail)});
    return check;
  }

  CelExpressionCheck Compile(std::string_view expression, CelExpressionKind kind) {
    StatusOr<ParseResult> parsed = Parse(expression, parse_options_);
    if (!parsed.ok()) return Failed(FieldErrorType::kInternal, std::string(parsed.status().message()));
    if (!parsed->issues.empty()) {
      return Failed(FieldErrorType::kInvalid, "compilation failed: " + FormatIssues(expression, parsed->issues));
    }
    const CheckResult checked = cel::Check(*parsed->expr, env_);
    if (!checked.ok()) {
      return Failed(FieldErrorType::kInvalid,
                    "compilation failed: " + FormatIssues(expression, checked.issues) + DomainHint(expression));
    }
    const std::optional<std::string> type_error =
        kind == CelExpressionKind::kSelector ? SelectorResultTypeError(checked.result_type(), options_)
                                             : DerivedAttributeResultTypeError(checked.result_type(), options_);
    if (type_error) return Failed(FieldErrorType::kInvalid, *type_error);
    CelExpressionCheck check;
    check.compiled = true;
    check.max_cost = EstimateCost(*parsed->expr, checked, KubernetesCostOptions(*estimator_)).max;
    const uint64_t limit = kind == CelExpressionKind::kSelector
                               ? kCelSelectorExpressionMaxCost
                               : std::min(kCelSelectorExpressionMaxCost, api::kDeviceClaimDerivedAttributeCELMaxCost);
    if (check.max_cost > limit) {
      check.problems.push_back({.type = FieldErrorType::kForbidden, .detail = "too complex, exceeds cost limit"});
    } else {
      FailingLiteralCalls(*parsed->expr, parsed->expr->expr, &check.problems);
    }
    return check;
  }

  // The API server accepts `quantity('40GiB')`, `semver('v1')`, `ip(...)`,
  // `cidr(...)` and `url(...)` with constant arguments that cannot convert
  // (only duration, timestamp and regex literals are checked when compiling;
  // tools/oracle shows which), but every evaluation that reaches such a call
  // fails at scheduling time. A warning per call, with the run-time error.
  void FailingLiteralCalls(const ParsedExpr& parsed, const Expr& e, std::vector<CelExpressionProblem>* out) {
    if (e.Is<CallExpr>()) {
      const CallExpr& call = e.call();
      static constexpr std::string_view kConversions[] = {"quantity", "semver", "ip", "cidr", "url"};
      const bool conversion =
          !call.has_target() && !call.args.empty() &&
          std::find(std::begin(kConversions), std::end(kConversions), call.function) != std::end(kConversions);
      if (conversion &&
          std::all_of(call.args.begin(), call.args.end(), [](const Expr& a) { return a.Is<Constant>(); })) {
        // The call alone, in CEL syntax (constants quoted as CEL writes them).
        const std::string text = DebugString(e);
        if (std::optional<std::string> error = EvaluationError(text)) {
          std::string where;
          if (std::optional<SourcePosition> pos = parsed.source_info.GetPosition(call.args[0].id())) {
            where = " at <input>:" + std::to_string(pos->line) + ":" + std::to_string(pos->column);
          }
          out->push_back({.type = FieldErrorType::kInvalid,
                          .detail = text + where + " fails whenever it is evaluated: " + *error +
                                    "; the API server accepts the selector, kube-scheduler's evaluation of it fails",
                          .severity = api::Severity::kWarning});
        }
      }
    }
    ForEachChild(e, [&](const Expr& child) { FailingLiteralCalls(parsed, child, out); });
  }

  // The error of evaluating a constant expression in the scheduler's
  // environment; std::nullopt when it has a value.
  std::optional<std::string> EvaluationError(const std::string& text) {
    if (!runtime_) {
      StatusOr<std::unique_ptr<DraEnvironment>> env =
          DraEnvironment::New({.minor = options_.minor,
                               .new_expressions = false,
                               .consumable_capacity = options_.consumable_capacity,
                               .list_type_attributes = options_.list_type_attributes});
      if (!env.ok()) return std::nullopt;
      runtime_ = *std::move(env);
    }
    std::shared_ptr<const CompiledSelector> compiled = runtime_->CompileExpression(text);
    if (!compiled->ok()) return std::nullopt;  // not this check's business
    StatusOr<Value> value = runtime_->Evaluate(*compiled, nullptr, "", scratch_);
    if (!value.ok()) return std::string(value.status().message());
    if (value->is_error()) return std::string(value->error_message());
    return std::nullopt;
  }

  KubernetesEnvOptions options_;
  CheckerEnv env_;
  ParseOptions parse_options_;
  std::unique_ptr<CostEstimator> estimator_;
  // Per CelExpressionKind, by expression.
  std::array<std::map<std::string, CelExpressionCheck, std::less<>>, 2> cache_;
  std::unique_ptr<DraEnvironment> runtime_;  // made on first use
  EvalScratch scratch_;
};

}  // namespace

std::unique_ptr<api::CelExpressionChecker> NewApiServerChecker(const api::FeatureGates& gates) {
  return std::make_unique<ApiServerChecker>(gates);
}

}  // namespace dra::cel
