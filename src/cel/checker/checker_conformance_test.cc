// Runs the checker (and, where upstream gives one, the cost estimator) over
// every vector of testdata/conformance/cel/*.jsonl whose `check` is not false.
//
//   - cel-spec files (standard profile): every checked vector type-checks,
//     error vectors included (cel-spec's eval_error tests pass the checker);
//   - k8s-* and dra-* files (Kubernetes profile, the vector's `env` and
//     `features`, release 1.37): a vector whose error has `phase: compile`,
//     or without a phase reads like a compile error, must get a parse, check
//     or result-type issue whose message contains the expected text; every
//     other vector must compile. dra-* vectors
//     also get the selector result-type rule, and their `max_cost` must
//     equal our estimate.
//
// Deviations are listed in kKnownDeviations with their reason; the test fails
// on an unlisted deviation and on a listed vector that no longer deviates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cel/checker/checker.h"
#include "cel/checker/checker_decls.h"
#include "cel/cost/cost.h"
#include "cel/parser/parser.h"
#include "manifest/json_parser.h"

namespace dra::cel {
namespace {

namespace fs = std::filesystem;

// name -> why the checker disagrees with the vector.
const std::map<std::string, std::string>& KnownDeviations() {
  static const std::map<std::string, std::string> kDeviations = {};
  return kDeviations;
}

bool LooksLikeCompileError(std::string_view message) {
  for (std::string_view pattern : {"undeclared reference", "no matching overload", "expected type", "undefined field",
                                   "cannot be range of a comprehension", "does not support field selection",
                                   "must evaluate to bool", "compile error", "Syntax error"}) {
    if (message.find(pattern) != std::string_view::npos) return true;
  }
  return false;
}

struct Outcome {
  std::string name;
  std::string problem;
};

class CheckerConformance {
 public:
  void Run(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto docs = manifest::ParseJson(buffer.str(), path.filename().string());
    ASSERT_TRUE(docs.ok()) << path << ": " << docs.status().ToString();
    const std::string file = path.filename().string();
    const bool kubernetes = file.rfind("k8s-", 0) == 0 || file.rfind("dra-", 0) == 0;
    const bool dra = file.rfind("dra-", 0) == 0;
    const bool validation = file == "dra-validation.jsonl";
    for (const manifest::Document& doc : *docs) RunVector(doc.root, kubernetes, dra, validation);
  }

  int checked = 0;
  int costs_compared = 0;
  std::vector<Outcome> deviations;

 private:
  void RunVector(const manifest::Node& v, bool kubernetes, bool dra, bool validation) {
    const manifest::Node* name_node = v.Find("name");
    const manifest::Node* expr_node = v.Find("expr");
    const manifest::Node* expect = v.Find("expect");
    ASSERT_TRUE(name_node && expr_node && expect);
    const std::string name = name_node->text;
    const std::string& expr = expr_node->text;
    if (const manifest::Node* check = v.Find("check"); check && !check->bool_value) return;

    const manifest::Node* error = expect->Find("error");
    const manifest::Node* phase = v.Find("phase");
    bool want_compile_error = false;
    if (error != nullptr && kubernetes) {
      want_compile_error = phase != nullptr ? phase->text == "compile" : LooksLikeCompileError(error->text);
    }

    KubernetesEnvOptions k8s;
    // dra-validation.jsonl comes from API validation, which compiles new
    // expressions in NewExpressions (the attribute type is `any` there).
    if (validation) k8s.env = ExpressionEnv::kNewExpressions;
    if (const manifest::Node* env = v.Find("env"); env && env->text == "NewExpressions") {
      k8s.env = ExpressionEnv::kNewExpressions;
    }
    if (const manifest::Node* features = v.Find("features")) {
      for (const manifest::Node& f : features->items) {
        if (f.text == "DRAConsumableCapacity") k8s.consumable_capacity = true;
        if (f.text == "DRAListTypeAttributes") k8s.list_type_attributes = true;
      }
    }

    CheckerEnv env = kubernetes ? KubernetesCheckerEnv(k8s) : StandardCheckerEnv();
    ParseOptions parse_options = kubernetes ? KubernetesParseOptions(k8s) : ParseOptions();
    if (const manifest::Node* container = v.Find("container")) {
      env.set_container(container->text);
    }
    std::set<std::string> declared;
    if (const manifest::Node* decls = v.Find("decls")) {
      for (size_t i = 0; i < decls->keys.size(); ++i) {
        StatusOr<Type> t = ParseTypeName(decls->items[i].text);
        ASSERT_TRUE(t.ok()) << name << ": " << t.status().ToString();
        env.Declare(decls->keys[i].first, *t);
        declared.insert(decls->keys[i].first);
      }
    }
    if (const manifest::Node* bindings = v.Find("bindings")) {
      for (const auto& [key, mark] : bindings->keys) {
        if (!declared.count(key)) env.Declare(key, Type::Dyn());
      }
    }

    ++checked;
    std::string issues;
    StatusOr<ParseResult> parsed = Parse(expr, parse_options);
    ASSERT_TRUE(parsed.ok()) << name;
    std::optional<CheckResult> result;
    if (!parsed->issues.empty()) {
      issues = FormatIssues(expr, parsed->issues);
    } else {
      result = Check(*parsed->expr, env);
      if (!result->ok()) {
        issues = FormatIssues(expr, result->issues);
      } else if (dra) {
        if (auto e = SelectorResultTypeError(result->result_type(), k8s)) issues = *e;
      }
    }

    std::string problem;
    if (want_compile_error && issues.empty()) {
      problem = "expected a compile error (" + error->text + "), but it compiles";
    } else if (!want_compile_error && !issues.empty()) {
      problem = "does not compile:\n" + issues;
    } else if (want_compile_error && error->text.find("Syntax error") == std::string::npos &&
               error->text != "compile error" && issues.find(error->text) == std::string::npos) {
      problem = "compile error differs: want \"" + error->text + "\", got:\n" + issues;
    }

    if (problem.empty() && issues.empty() && kubernetes && result) {
      if (const manifest::Node* max_cost = v.Find("max_cost")) {
        auto estimator = NewKubernetesCostEstimator();
        const CostEstimate cost = EstimateCost(*parsed->expr, *result, KubernetesCostOptions(*estimator));
        ++costs_compared;
        if (std::to_string(cost.max) != max_cost->text) {
          problem = "estimated max cost " + std::to_string(cost.max) + ", upstream " + max_cost->text;
        }
      }
    }
    if (!problem.empty()) deviations.push_back({name, expr + ": " + problem});
  }
};

TEST(CheckerConformanceTest, EveryCheckedVector) {
  const fs::path dir = fs::path(DRA_TESTDATA_DIR) / "conformance" / "cel";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  CheckerConformance run;
  for (const fs::path& f : files) run.Run(f);

  const auto& known = KnownDeviations();
  std::set<std::string> seen;
  for (const Outcome& o : run.deviations) {
    seen.insert(o.name);
    if (known.count(o.name)) continue;
    ADD_FAILURE() << o.name << ": " << o.problem;
  }
  for (const auto& [name, reason] : known) {
    EXPECT_TRUE(seen.count(name)) << name << " is listed as a deviation (" << reason
                                  << ") but now agrees with its vector";
  }
  std::printf("checked %d vectors, compared %d cost estimates, %zu known deviations\n", run.checked, run.costs_compared,
              known.size());
  EXPECT_GT(run.checked, 900);
  EXPECT_GT(run.costs_compared, 40);
}

}  // namespace
}  // namespace dra::cel
