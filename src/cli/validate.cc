// dractl validate: everything the API server checks for the DRA kinds, plus
// cross-object checks it cannot make (as warnings), reported as
// `file:line:col: Kind ns/name: field.path: message`.
//
// CEL selectors (of DeviceClasses and of the requests and subrequests of
// ResourceClaims and ResourceClaimTemplates) are compiled as the API server
// compiles new expressions (pkg/apis/resource/validation validateCELSelector
// with dynamic-resource-allocation's CompileCELExpression): in the
// NewExpressions environment of the --kubernetes-version release and its
// feature gates, with the parser and checker of src/cel, then the result-type
// rule and the estimated cost:
//
//   spec.selectors[0].cel.expression: Invalid value: "...": compilation failed: ERROR: <input>:1:5: ...
//   spec.selectors[0].cel.expression: Invalid value: "1": must evaluate to bool or the unknown type, not int
//   spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit
//
// Expressions that api::Validate already rejects for their length, or that
// the server would not see (a dropped gated field, a list over its limit),
// are not compiled, as upstream does not compile them.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "base/release.h"
#include "cel/ast.h"
#include "cel/checker.h"
#include "cel/checker_decls.h"
#include "cel/cost.h"
#include "cel/dra_env.h"
#include "cel/parser.h"
#include "cli/commands.h"
#include "cli/cluster_inputs.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "manifest/emit.h"
#include "re2/re2.h"

namespace dra::cli {
namespace {

// device.capacity.memory / device.attributes.model: both maps are keyed by
// the driver's domain first, so the name is taken as a domain and the
// overloads do not match. Says how to write it.
std::string DomainHint(std::string_view expression) {
  static const RE2 kDotAccess(R"(device\.(capacity|attributes)\.([A-Za-z_][A-Za-z0-9_]*))");
  std::string map, name;
  if (!RE2::PartialMatch(expression, kDotAccess, &map, &name)) return "";
  return fmt::format("\nhint: device.{0} is keyed by the driver's domain first: write device.{0}[\"<driver>\"].{1} "
                     "(e.g. device.{0}[\"gpu.nvidia.com\"].{1})",
                     map, name);
}

// Compiles CEL selectors in the NewExpressions environment of one release and
// gate set. Each distinct expression is compiled once.
class SelectorCompiler {
 public:
  explicit SelectorCompiler(const api::FeatureGates& gates) : gates_(gates) {
    const std::string version = gates.version();  // "1.36", or "" (newest rules)
    options_.minor = kDefaultMinor;
    if (version.starts_with("1.")) {
      int minor = 0;
      auto [ptr, ec] = std::from_chars(version.data() + 2, version.data() + version.size(), minor);
      if (ec == std::errc() && ptr == version.data() + version.size()) options_.minor = minor;
    }
    options_.env = cel::ExpressionEnv::kNewExpressions;
    options_.consumable_capacity = gates.enabled(api::Gate::kDRAConsumableCapacity);
    options_.list_type_attributes = gates.enabled(api::Gate::kDRAListTypeAttributes);
    env_ = cel::KubernetesCheckerEnv(options_);
    parse_options_ = cel::KubernetesParseOptions(options_);
    estimator_ = cel::NewKubernetesCostEstimator();
  }

  // The problems of every CEL selector of `object`.
  api::FieldErrors Validate(const api::Object& object) {
    errors_.clear();
    if (const auto* c = std::get_if<api::DeviceClass>(&object)) {
      Selectors(c->spec.selectors, api::FieldPath("spec").Child("selectors"));
    } else if (const auto* claim = std::get_if<api::ResourceClaim>(&object)) {
      Claim(claim->spec.devices, api::FieldPath("spec").Child("devices"));
    } else if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&object)) {
      Claim(t->spec.spec.devices, api::FieldPath("spec").Child("spec").Child("devices"));
    }
    return std::move(errors_);
  }

 private:
  // What is wrong with one expression: a field error without its path.
  struct Problem {
    api::FieldErrorType type;
    std::string detail;
    api::Severity severity = api::Severity::kError;
  };

  void Claim(const api::DeviceClaim& claim, const api::FieldPath& path) {
    if (claim.requests.size() > api::kDeviceRequestsMaxSize) return;
    for (size_t i = 0; i < claim.requests.size(); ++i) {
      const api::DeviceRequest& request = claim.requests[i];
      const api::FieldPath item = path.Child("requests").Index(i);
      const bool has_first_available = !request.first_available.empty();
      if (request.exactly && !has_first_available) {
        Selectors(request.exactly->selectors, item.Child("exactly").Child("selectors"));
      } else if (has_first_available && !request.exactly) {
        // Dropped by the server while DRAPrioritizedList is off.
        if (!gates_.enabled(api::Gate::kDRAPrioritizedList)) continue;
        if (request.first_available.size() > api::kFirstAvailableDeviceRequestMaxSize) continue;
        for (size_t j = 0; j < request.first_available.size(); ++j) {
          Selectors(request.first_available[j].selectors,
                    item.Child("firstAvailable").Index(j).Child("selectors"));
        }
      }
    }
  }

  void Selectors(const std::vector<api::DeviceSelector>& selectors, const api::FieldPath& path) {
    if (selectors.size() > api::kDeviceSelectorsMaxSize) return;
    for (size_t i = 0; i < selectors.size(); ++i) {
      if (!selectors[i].cel) continue;
      const std::string& expression = selectors[i].cel->expression;
      if (expression.empty() || expression.size() > api::kCELSelectorExpressionMaxLength) continue;
      for (const Problem& problem : Compile(expression)) {
        api::FieldError e;
        e.type = problem.type;
        e.severity = problem.severity;
        e.field = path.Index(i).Child("cel").Child("expression").String();
        if (problem.type == api::FieldErrorType::kInvalid) e.bad_value = api::GoQuote(expression);
        e.detail = problem.detail;
        errors_.push_back(std::move(e));
      }
    }
  }

  const std::vector<Problem>& Compile(const std::string& expression) {
    auto it = cache_.find(expression);
    if (it != cache_.end()) return it->second;
    return cache_.emplace(expression, CompileUncached(expression)).first->second;
  }

  std::vector<Problem> CompileUncached(std::string_view expression) {
    StatusOr<cel::ParseResult> parsed = cel::Parse(expression, parse_options_);
    if (!parsed.ok()) {
      return {Problem{api::FieldErrorType::kInternal, parsed.status().message()}};
    }
    if (!parsed->issues.empty()) {
      return {Problem{api::FieldErrorType::kInvalid,
                      "compilation failed: " + cel::FormatIssues(expression, parsed->issues)}};
    }
    const cel::CheckResult checked = cel::Check(*parsed->expr, env_);
    if (!checked.ok()) {
      return {Problem{api::FieldErrorType::kInvalid,
                      "compilation failed: " + cel::FormatIssues(expression, checked.issues) + DomainHint(expression)}};
    }
    if (std::optional<std::string> e =
            cel::SelectorResultTypeError(checked.result_type(), options_)) {
      return {Problem{api::FieldErrorType::kInvalid, *std::move(e)}};
    }
    const cel::CostEstimate cost =
        cel::EstimateCost(*parsed->expr, checked, cel::KubernetesCostOptions(*estimator_));
    if (cost.max > cel::kCelSelectorExpressionMaxCost) {
      return {Problem{api::FieldErrorType::kForbidden, "too complex, exceeds cost limit"}};
    }
    std::vector<Problem> warnings;
    FailingLiteralCalls(*parsed->expr, parsed->expr->expr, &warnings);
    return warnings;
  }

  // The API server accepts `quantity('40GiB')`, `semver('v1')`, `ip(...)`,
  // `cidr(...)` and `url(...)` with constant arguments that cannot convert
  // (only duration, timestamp and regex literals are checked when compiling;
  // tools/oracle shows which), but every evaluation that reaches such a call
  // fails at scheduling time. A warning per call, with the run-time error.
  void FailingLiteralCalls(const cel::ParsedExpr& parsed, const cel::Expr& e, std::vector<Problem>* out) {
    if (e.Is<cel::CallExpr>()) {
      const cel::CallExpr& call = e.call();
      static constexpr std::string_view kConversions[] = {"quantity", "semver", "ip", "cidr", "url"};
      const bool conversion = !call.has_target() && !call.args.empty() &&
                              std::find(std::begin(kConversions), std::end(kConversions), call.function) !=
                                  std::end(kConversions);
      if (conversion && std::all_of(call.args.begin(), call.args.end(),
                                    [](const cel::Expr& a) { return a.Is<cel::Constant>(); })) {
        // The call alone, in CEL syntax (constants quoted as CEL writes them).
        const std::string text = cel::DebugString(e);
        if (std::optional<std::string> error = EvaluationError(text)) {
          std::string where;
          if (std::optional<cel::SourcePosition> pos = parsed.source_info.GetPosition(call.args[0].id())) {
            where = fmt::format(" at <input>:{}:{}", pos->line, pos->column);
          }
          out->push_back(Problem{api::FieldErrorType::kInvalid,
                                 fmt::format("{}{} fails whenever it is evaluated: {}; the API server accepts the "
                                             "selector, kube-scheduler's evaluation of it fails",
                                             text, where, *error),
                                 api::Severity::kWarning});
        }
      }
    }
    cel::ForEachChild(e, [&](const cel::Expr& child) { FailingLiteralCalls(parsed, child, out); });
  }

  // The error of evaluating a constant expression in the scheduler's
  // environment; std::nullopt when it has a value.
  std::optional<std::string> EvaluationError(const std::string& text) {
    if (!runtime_) {
      StatusOr<std::unique_ptr<cel::DraEnvironment>> env = cel::DraEnvironment::New(
          {.minor = options_.minor,
           .new_expressions = false,
           .consumable_capacity = options_.consumable_capacity,
           .list_type_attributes = options_.list_type_attributes});
      if (!env.ok()) return std::nullopt;
      runtime_ = *std::move(env);
    }
    std::shared_ptr<const cel::CompiledSelector> compiled = runtime_->CompileExpression(text);
    if (!compiled->ok()) return std::nullopt;  // not this check's business
    StatusOr<cel::Value> value = runtime_->Evaluate(*compiled, nullptr, "", scratch_);
    if (!value.ok()) return std::string(value.status().message());
    if (value->is_error()) return std::string(value->error_message());
    return std::nullopt;
  }

  const api::FeatureGates& gates_;
  cel::KubernetesEnvOptions options_;
  cel::CheckerEnv env_;
  cel::ParseOptions parse_options_;
  std::unique_ptr<cel::CostEstimator> estimator_;
  std::map<std::string, std::vector<Problem>, std::less<>> cache_;
  std::unique_ptr<cel::DraEnvironment> runtime_;  // made on first use
  cel::EvalScratch scratch_;
  api::FieldErrors errors_;
};

manifest::Node MessageToJson(const manifest::LoadMessage& m) {
  manifest::Node n = manifest::Node::Mapping();
  n.Add("severity", manifest::Node::String(m.severity == api::Severity::kError ? "error" : "warning"));
  n.Add("file", manifest::Node::String(m.file));
  n.Add("line", manifest::Node::Int(m.mark.line));
  n.Add("column", manifest::Node::Int(m.mark.column));
  n.Add("object", manifest::Node::String(m.object));
  n.Add("field", manifest::Node::String(m.field));
  n.Add("message", manifest::Node::String(m.message));
  return n;
}

}  // namespace

int RunValidate(std::span<const std::string_view> args) {
  CLI::App app{
      "Checks DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates,\n"
      "DeviceTaintRules, Nodes, Pods, PodGroups and Workloads (scheduling.k8s.io, gate\n"
      "GenericWorkload), and the pod templates of Deployments, ReplicaSets,\n"
      "StatefulSets, DaemonSets, Jobs and CronJobs, as the API server would (names, required and\n"
      "one-of fields, limits, feature-gated fields, CEL selectors compiled with their\n"
      "result type and estimated cost), and across objects (missing classes and\n"
      "templates, inconsistent pools) as warnings.\n"
      "Prints one line per problem: file:line:col: Kind ns/name: field.path: message.\n"
      "Exit code 1 if any error was found, 0 otherwise.",
      "dractl validate"};
  std::vector<std::string> files;
  bool strict = false;
  std::string gates_flag;
  std::string version{kDefaultRelease};
  std::string output = "text";
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_flag("--strict", strict, "unknown fields are errors (in every object and workload pod template)");
  app.add_option("--kubernetes-version", version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", gates_flag, "gate overrides, e.g. DRAListTypeAttributes=true,DRADeviceTaints=false");
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl validate", version, gates_flag);
  if (!gates) return kExitUsageError;

  manifest::LoadResult result;
  LoadInputs(files, {.strict = strict, .keep_trees = true, .keep_workloads = true}, &result);

  // Defaulting happens before validation on the API server, too.
  std::vector<api::Object> objects;
  objects.reserve(result.objects.size() + result.workloads.size());
  for (manifest::LoadedObject& loaded : result.objects) {
    api::SetDefaults(loaded.object, "1970-01-01T00:00:00Z", *gates);
    objects.push_back(loaded.object);
  }
  // A workload's pod template is checked as the pod its controller would
  // create (the API server validates it the same way, as a PodTemplateSpec),
  // across objects too; problems are reported once, at the template's fields.
  const size_t num_objects = objects.size();
  std::set<std::string> said;
  auto add_workload_message = [&](size_t w, const api::FieldError& e) {
    manifest::LoadMessage m = WorkloadTemplateMessage(result.workloads[w], e);
    if (said.insert(m.ToString()).second) result.messages.push_back(std::move(m));
  };
  for (size_t w = 0; w < result.workloads.size(); ++w) {
    TemplatePod t = ValidateWorkloadTemplate(result.workloads[w].workload, *gates);
    for (const api::FieldError& e : t.errors) add_workload_message(w, e);
    objects.push_back(std::move(t.pod));
  }
  SelectorCompiler selectors(*gates);
  for (size_t i = 0; i < result.objects.size(); ++i) {
    for (const api::FieldError& e : api::Validate(result.objects[i].object, *gates)) {
      result.messages.push_back(ToMessage(result.objects[i], e));
    }
    for (const api::FieldError& e : selectors.Validate(result.objects[i].object)) {
      result.messages.push_back(ToMessage(result.objects[i], e));
    }
  }
  for (const api::ObjectFieldError& e : api::ValidateCrossObject(objects)) {
    if (e.object_index < num_objects) {
      result.messages.push_back(ToMessage(result.objects[e.object_index], e.error));
    } else if (e.object_index - num_objects < result.workloads.size() && !e.error.field.starts_with("metadata.name")) {
      add_workload_message(e.object_index - num_objects, e.error);
    }
  }
  // Stable order: by file, then position.
  std::stable_sort(result.messages.begin(), result.messages.end(),
                   [](const manifest::LoadMessage& a, const manifest::LoadMessage& b) {
                     if (a.file != b.file) return a.file < b.file;
                     if (a.mark.line != b.mark.line) return a.mark.line < b.mark.line;
                     return a.mark.column < b.mark.column;
                   });

  size_t errors = result.error_count();
  size_t warnings = result.warning_count();
  if (output == "json") {
    manifest::Node root = manifest::Node::Mapping();
    root.Add("objects", manifest::Node::Int(static_cast<int64_t>(result.objects.size())));
    root.Add("workloads", manifest::Node::Int(static_cast<int64_t>(result.workloads.size())));
    root.Add("files", manifest::Node::Int(static_cast<int64_t>(result.files)));
    manifest::Node skipped = manifest::Node::Mapping();
    for (const auto& [kind, count] : result.skipped_kinds) {
      skipped.Add(kind, manifest::Node::Int(static_cast<int64_t>(count)));
    }
    root.Add("skipped", skipped);
    root.Add("errors", manifest::Node::Int(static_cast<int64_t>(errors)));
    root.Add("warnings", manifest::Node::Int(static_cast<int64_t>(warnings)));
    manifest::Node list = manifest::Node::Sequence();
    for (const auto& m : result.messages) list.Push(MessageToJson(m));
    root.Add("problems", list);
    std::fputs(manifest::EmitJson(root, 2).c_str(), stdout);
  } else {
    for (const auto& m : result.messages) std::printf("%s\n", m.ToString().c_str());
    std::fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", DescribeLoad(result).c_str(), errors,
                 errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  }
  return errors > 0 ? kExitInputError : kExitOk;
}

}  // namespace dra::cli
