// libFuzzer target for the CEL engine: one input is one expression, run
// through every step a selector goes through (parse -> check -> estimate cost
// -> plan -> evaluate), in one of two profiles picked by the first byte:
//
//   byte 0, bit 0 = 0   standard cel-spec environment (StandardCheckerEnv, the
//                       Standard() registry) with a few bound variables:
//                       i int, u uint, d double, s string, b bytes,
//                       l list(int), m map(string, int), x dyn
//   byte 0, bit 0 = 1   Kubernetes DRA selector environment (DraEnvironment):
//                       bits 1-2 pick the release 1.34-1.37, bit 3
//                       NewExpressions, bit 4 DRAConsumableCapacity, bit 5
//                       DRAListTypeAttributes; `device` is a small fixed
//                       device with attributes of every kind and capacities.
//
//   byte 0, bit 7 = 1   evaluate even when the expression does not type-check
//                       (the planner must cope with unchecked trees, as for
//                       the `check: false` conformance vectors); bit 6 is
//                       unused.
//
// The rest of the input is the expression. Evaluation runs only when the
// expression type-checks (or bit 7 says otherwise) and plans, with
// Kubernetes' runtime cost limit (1,000,000), so cost bombs are cancelled.
// Outcomes are not compared with anything: the target finds crashes, hangs,
// leaks and undefined behaviour (ASan + UBSan). Compile errors and runtime
// errors are normal results. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "cel/checker/checker.h"
#include "cel/checker/checker_decls.h"
#include "cel/checker/types.h"
#include "cel/cost/cost.h"
#include "cel/dra/dra_env.h"
#include "cel/libraries/k8s_lib.h"
#include "cel/libraries/library.h"
#include "cel/parser/issue.h"
#include "cel/parser/parser.h"
#include "cel/runtime/program.h"
#include "cel/runtime/value.h"
#include "quantity/quantity.h"

namespace dra::cel {
namespace {

constexpr std::string_view kDriver = "gpu.example.com";

// Inputs whose tree has more nodes after macro expansion stop after parsing.
// Every later step is linear in the tree, but chained optMap/optFlatMap calls
// copy their target (as cel-go's macros do), so 16 of them in 230 bytes make
// ~850,000 nodes (the parser stops at 1,000,000): about a minute under
// ASan + UBSan, which libFuzzer would report as a timeout although nothing
// is wrong. Linear inputs of -max_len=4096 bytes stay far below this.
constexpr int64_t kMaxNodes = 20'000;

// Matches repeats the evaluation; it is skipped when that cost more than
// this, so that a cost bomb costs one evaluation, not two.
constexpr uint64_t kMaxCostToRepeat = 100'000;

// CEL_FUZZ_DEBUG=1 prints how far each input got (to see what a corpus file
// or a reproducer does): "parse", "check", "compile" or the result.
const bool kDebug = std::getenv("CEL_FUZZ_DEBUG") != nullptr;

void Debug(std::string_view stage, std::string_view detail) {
  if (kDebug) {
    std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(stage.size()), stage.data(), static_cast<int>(detail.size()),
                 detail.data());
  }
}

void DebugResult(const StatusOr<Value>& result) {
  if (kDebug) Debug("result", result.ok() ? result->DebugString() : result.status().ToString());
}

// Touches every part of a value, so that a result that borrows freed memory
// (or holds a broken container) is caught by ASan here rather than later.
void Consume(const Value& v) {
  volatile size_t sink = v.DebugString().size();
  (void)sink;
}

// --- Standard profile ------------------------------------------------------------------

struct StandardProfile {
  CheckerEnv checker;
  Environment env;
  MapActivation activation;
  EvalState state;  // default options: the Kubernetes cost limit

  StandardProfile() : checker(StandardCheckerEnv()) {
    StatusOr<std::shared_ptr<FunctionRegistry>> registry = NewRegistry(LibraryOptions::Standard());
    if (!registry.ok()) __builtin_trap();
    env.registry = *std::move(registry);

    auto map = MakeRef<HashMap>();
    (void)map->Insert(Value::String("a"), Value::Int(1));
    (void)map->Insert(Value::String("b"), Value::Int(2));
    const struct {
      const char* name;
      Type type;
      Value value;
    } kVariables[] = {
        {"i", Type::Int(), Value::Int(-7)},
        {"u", Type::Uint(), Value::Uint(42)},
        {"d", Type::Double(), Value::Double(2.5)},
        {"s", Type::String(), Value::String("héllo wörld")},
        {"b", Type::Bytes(), Value::Bytes(std::string("\x00\xff\x10", 3))},
        {"l", Type::List(Type::Int()), Value::List(std::vector<Value>{Value::Int(3), Value::Int(1), Value::Int(2)})},
        {"m", Type::Map(Type::String(), Type::Int()), Value::Map(std::move(map))},
        {"x", Type::Dyn(), Value::String("dyn")},
    };
    for (const auto& v : kVariables) {
      checker.Declare(v.name, v.type);
      env.variables.emplace_back(v.name);
      activation.Bind(v.name, v.value);
    }
  }

  void Run(std::string_view expr, bool unchecked) {
    StatusOr<ParseResult> parsed = Parse(expr);
    if (!parsed.ok() || !parsed->issues.empty()) {
      Debug("parse", parsed.ok() ? FormatIssues(expr, parsed->issues) : "bad options");
      return;
    }
    if (parsed->expr->next_id > kMaxNodes) {
      Debug("parse", "too many nodes to go on: " + std::to_string(parsed->expr->next_id));
      return;
    }
    CheckResult checked = Check(*parsed->expr, checker);
    if (!checked.ok()) {
      Debug("check", FormatIssues(expr, checked.issues));
      if (!unchecked) return;
    } else {
      (void)checked.result_type().ToString();
      (void)EstimateCost(*parsed->expr, checked);
    }
    StatusOr<PlanResult> planned = Plan(*parsed->expr, env);
    if (!planned.ok() || !planned->issues.empty()) {
      Debug("plan", planned.ok() ? FormatIssues(expr, planned->issues) : "bad options");
      return;
    }
    StatusOr<Value> result = planned->program->Evaluate(activation, state);
    if (result.ok()) Consume(*result);
    DebugResult(result);
  }
};

// --- Kubernetes DRA profile ------------------------------------------------------------

api::Device NewDevice(bool list_values) {
  api::Device device;
  device.name = "gpu-0";
  const auto attr = [&](std::string_view name, api::DeviceAttribute a) {
    device.attributes.insert_or_assign(api::InternedString(name), std::move(a));
  };
  attr("model", api::DeviceAttribute::String("H100"));
  attr("index", api::DeviceAttribute::Int(3));
  attr("healthy", api::DeviceAttribute::Bool(true));
  attr("driverVersion", api::DeviceAttribute::VersionOf("1.2.3-rc.1+build.5"));
  attr("other.example.com/numa", api::DeviceAttribute::Int(-1));
  attr("other.example.com/name", api::DeviceAttribute::String(""));
  if (list_values) {
    attr("cores", api::DeviceAttribute::Ints({0, 1, 2, 3}));
    attr("modes", api::DeviceAttribute::Strings({api::InternedString("fast"), api::InternedString("safe")}));
    attr("flags", api::DeviceAttribute::Bools({true, false}));
    attr("other.example.com/versions", api::DeviceAttribute::Versions({api::InternedString("1.0.0")}));
  }
  const auto cap = [&](std::string_view name, std::string_view value) {
    api::DeviceCapacity c;
    StatusOr<quantity::Quantity> q = quantity::Quantity::Parse(value);
    if (!q.ok()) __builtin_trap();
    c.value = *q;
    device.capacity.insert_or_assign(api::InternedString(name), std::move(c));
  };
  cap("memory", "80Gi");
  cap("cores", "1500m");
  cap("other.example.com/bandwidth", "1e3");
  return device;
}

struct KubernetesProfile {
  // The environments are rebuilt every kRebuildEvery inputs: Compile caches
  // every expression it sees, which would otherwise grow without bound.
  static constexpr int kRebuildEvery = 4096;

  std::unique_ptr<DraEnvironment> envs[32];
  int runs = 0;
  api::Device device = NewDevice(false);
  api::Device list_device = NewDevice(true);
  EvalScratch scratch;
  std::unique_ptr<CostEstimator> estimator = NewKubernetesCostEstimator();

  void Run(uint8_t selector_byte, std::string_view expr, bool unchecked) {
    const int key = (selector_byte >> 1) & 31;
    KubernetesEnvOptions k8s;
    k8s.minor = 34 + (key & 3);
    k8s.env = (key & 4) != 0 ? ExpressionEnv::kNewExpressions : ExpressionEnv::kStoredExpressions;
    k8s.consumable_capacity = (key & 8) != 0;
    k8s.list_type_attributes = (key & 16) != 0;

    // Parse, check and estimate as API validation does.
    StatusOr<ParseResult> parsed = Parse(expr, KubernetesParseOptions(k8s));
    if (!parsed.ok() || !parsed->issues.empty()) {
      Debug("parse", parsed.ok() ? FormatIssues(expr, parsed->issues) : "bad options");
      return;
    }
    if (parsed->expr->next_id > kMaxNodes) {
      Debug("parse", "too many nodes to go on: " + std::to_string(parsed->expr->next_id));
      return;
    }
    CheckResult checked = Check(*parsed->expr, KubernetesCheckerEnv(k8s));
    if (!checked.ok()) {
      Debug("check", FormatIssues(expr, checked.issues));
      if (!unchecked) return;
    } else {
      (void)SelectorResultTypeError(checked.result_type(), k8s);
      (void)EstimateCost(*parsed->expr, checked, KubernetesCostOptions(*estimator));
    }

    // Compile and evaluate as kube-scheduler does.
    if (++runs == kRebuildEvery) {
      runs = 0;
      for (auto& e : envs) e.reset();
    }
    std::unique_ptr<DraEnvironment>& env = envs[key];
    if (env == nullptr) {
      DraEnvOptions options;
      options.minor = k8s.minor;
      options.new_expressions = k8s.env == ExpressionEnv::kNewExpressions;
      options.consumable_capacity = k8s.consumable_capacity;
      options.list_type_attributes = k8s.list_type_attributes;
      StatusOr<std::unique_ptr<DraEnvironment>> made = DraEnvironment::New(options);
      if (!made.ok()) __builtin_trap();
      env = *std::move(made);
    }
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expr);
    if (!selector->ok()) {
      Debug("compile", selector->error());
      return;
    }
    const api::Device& d = env->options().list_values() ? list_device : device;
    StatusOr<Value> value = env->Evaluate(*selector, &d, kDriver, scratch);
    if (value.ok()) Consume(*value);
    DebugResult(value);
    if (scratch.cost() <= kMaxCostToRepeat) (void)env->Matches(*selector, d, kDriver, scratch);
  }
};

}  // namespace
}  // namespace dra::cel

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Built on first use and kept: building the registries is the slow part.
  static dra::cel::StandardProfile standard;
  static dra::cel::KubernetesProfile kubernetes;
  if (size == 0) return 0;
  const std::string_view expr(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool unchecked = (data[0] & 0x80) != 0;
  if ((data[0] & 1) == 0) {
    standard.Run(expr, unchecked);
  } else {
    kubernetes.Run(data[0], expr, unchecked);
  }
  return 0;
}
