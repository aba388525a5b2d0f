#include "cel/dra/dra_env.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "base/testing/count_allocations.h"

using dra::testing::g_allocations;
using dra::testing::g_count_allocations;
using dra::testing::kCountsAllocations;

namespace dra::cel {
namespace {

using api::DeviceAttribute;

constexpr std::string_view kDriver = "gpu.example.com";

// A GPU as the example driver publishes it, with an attribute of another
// domain and a standard one.
api::Device Gpu() {
  api::Device d;
  d.name = "gpu-0";
  d.attributes.insert_or_assign("model", DeviceAttribute::String("LATEST-GPU-MODEL"));
  d.attributes.insert_or_assign("index", DeviceAttribute::Int(3));
  d.attributes.insert_or_assign("healthy", DeviceAttribute::Bool(true));
  d.attributes.insert_or_assign("driverVersion", DeviceAttribute::VersionOf("1.2.3"));
  d.attributes.insert_or_assign("ext.example.com/family", DeviceAttribute::String("hopper"));
  d.attributes.insert_or_assign("resource.kubernetes.io/pcieRoot", DeviceAttribute::String("pci0000:00"));
  api::DeviceCapacity memory;
  memory.value = *quantity::Quantity::Parse("80Gi");
  d.capacity.insert_or_assign("memory", memory);
  return d;
}

std::unique_ptr<DraEnvironment> NewEnv(DraEnvOptions options = {}) {
  StatusOr<std::unique_ptr<DraEnvironment>> env = DraEnvironment::New(options);
  if (!env.ok()) std::abort();
  return *std::move(env);
}

struct Case {
  std::string name{};
  std::string expr{};
  std::optional<bool> want{};  // the result, or
  std::string want_error{};    // a substring of the error
  StatusCode want_code = StatusCode::kFailedPrecondition;
};

void RunCases(const DraEnvironment& env, const api::Device& device, const std::vector<Case>& cases,
              std::string_view driver = kDriver) {
  EvalScratch scratch;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.expr);
    std::shared_ptr<const CompiledSelector> selector = env.Compile(c.expr);
    StatusOr<bool> got = env.Matches(*selector, device, driver, scratch);
    if (c.want.has_value()) {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, *c.want);
    } else {
      ASSERT_FALSE(got.ok()) << *got;
      EXPECT_EQ(got.status().code(), c.want_code) << got.status().ToString();
      EXPECT_NE(got.status().message().find(c.want_error), std::string::npos) << got.status().message();
    }
  }
}

TEST(DraEnvTest, DeviceFieldsAndDomains) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  RunCases(
      *env, Gpu(),
      {
          {.name = "driver", .expr = "device.driver == 'gpu.example.com'", .want = true},
          {.name = "bare_name_in_driver_domain",
           .expr = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'",
           .want = true},
          {.name = "qualified_name", .expr = "device.attributes['ext.example.com'].family == 'hopper'", .want = true},
          {.name = "index_syntax", .expr = "device.attributes['gpu.example.com']['index'] == 3", .want = true},
          {.name = "bool", .expr = "device.attributes['gpu.example.com'].healthy", .want = true},
          {.name = "int_cross_type", .expr = "device.attributes['gpu.example.com'].index > 2.5", .want = true},
          {.name = "string_eq_int", .expr = "device.attributes['gpu.example.com'].model == 5", .want = false},
          {.name = "semver",
           .expr = "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))",
           .want = true},
          {.name = "semver_eq_string",
           .expr = "device.attributes['gpu.example.com'].driverVersion == "
                   "'1.2.3'",
           .want_error = "no such overload"},
          {.name = "semver_ne_string",
           .expr = "device.attributes['gpu.example.com'].driverVersion != "
                   "'1.2.3'",
           .want = true},
          {.name = "capacity",
           .expr = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
           .want = true},
          {.name = "capacity_eq",
           .expr = "device.capacity['gpu.example.com'].memory == "
                   "quantity('81920Mi')",
           .want = true},
          {.name = "unknown_domain_is_empty", .expr = "device.attributes['nope'].size() == 0", .want = true},
          {.name = "in_is_the_real_test",
           .expr = "!('nope' in device.attributes) && "
                   "'ext.example.com' in device.attributes",
           .want = true},
          {.name = "has_domain_always_true", .expr = "has(device.attributes.nope)", .want = true},
          {.name = "has_missing_attribute", .expr = "has(device.attributes['gpu.example.com'].nope)", .want = false},
          {.name = "optional", .expr = "device.attributes['gpu.example.com'].?nope.orValue('x') == 'x'", .want = true},
          {.name = "domains",
           .expr = "device.attributes.size() == 3 && "
                   "device.attributes.exists_one(d, d == 'ext.example.com')",
           .want = true},
          {.name = "inner_iteration", .expr = "device.attributes['gpu.example.com'].all(k, k != '')", .want = true},
          {.name = "capacity_domains", .expr = "device.capacity.exists_one(d, d == 'gpu.example.com')", .want = true},
          {.name = "bind",
           .expr = "cel.bind(a, device.attributes['gpu.example.com'], "
                   "a.healthy && a.index == 3)",
           .want = true},
          {.name = "allow_multiple_default", .expr = "device.allowMultipleAllocations == false", .want = true},
          {.name = "matches_is_a_search",
           .expr = "device.attributes['gpu.example.com'].model."
                   "matches('GPU')",
           .want = true},
          {.name = "missing_key",
           .expr = "device.attributes['gpu.example.com'].nope == 1",
           .want_error = "no such key: nope. consider using CEL optional chaining (.? followed by "
                         "orValue()) or guarding the check with has() for optional fields"},
          {.name = "missing_key_absorbed",
           .expr = "device.attributes['gpu.example.com'].nope == 1 || "
                   "true",
           .want = true},
          {.name = "not_a_bool",
           .expr = "device.attributes['gpu.example.com'].model",
           .want_error = "CEL result of type string could not be converted to bool"},
          {.name = "syntax_error",
           .expr = "device.driver ==",
           .want_error = "compilation failed: ERROR: <input>:1:",
           .want_code = StatusCode::kInvalidArgument},
          {.name = "constant_not_bool",
           .expr = "1",
           .want_error = "must evaluate to bool or the unknown type, not int",
           .want_code = StatusCode::kInvalidArgument},
          {.name = "undefined_field",
           .expr = "device.nope == 1",
           .want_error = "undefined field 'nope'",
           .want_code = StatusCode::kInvalidArgument},
          {.name = "bool_domain_key",
           .expr = "device.attributes[true].x",
           .want_error = "found no matching overload for '_[_]' applied to '(map(string, map(string, "
                         "dyn)), bool)'",
           .want_code = StatusCode::kInvalidArgument},
          {.name = "unknown_function",
           .expr = "device.driver.nope()",
           .want_error = "undeclared reference to 'nope'",
           .want_code = StatusCode::kInvalidArgument},
      });
}

TEST(DraEnvTest, EmptyDriverPutsBareNamesInTheEmptyDomain) {
  RunCases(*NewEnv(), Gpu(),
           {{.name = "empty_domain", .expr = "device.attributes[''].model == 'LATEST-GPU-MODEL'", .want = true}}, "");
}

// A device that lists both `x` and `<driver>/x`: upstream picks one at
// random; the bare one wins here, on every path.
TEST(DraEnvTest, BareNameWinsOverItsQualifiedTwin) {
  api::Device d;
  d.attributes.insert_or_assign("x", DeviceAttribute::Int(1));
  d.attributes.insert_or_assign("gpu.example.com/x", DeviceAttribute::Int(2));
  RunCases(*NewEnv(), d,
           {
               {.name = "path", .expr = "device.attributes['gpu.example.com'].x == 1", .want = true},
               {.name = "twice",
                .expr = "device.attributes['gpu.example.com'].x == 1 && "
                        "device.attributes['gpu.example.com'].x == 1",
                .want = true},
               {.name = "map",
                .expr = "cel.bind(m, device.attributes['gpu.example.com'], m.x == 1 && "
                        "m.size() == 1)",
                .want = true},
           });
}

// The same selector on devices of different drivers, the driver's text in
// the same buffer each time (as a loop over slices may do).
TEST(DraEnvTest, DriverTextReusedForAnotherDriver) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  std::shared_ptr<const CompiledSelector> selector =
      env->Compile("device.attributes['dra.example.com'].model == 'LATEST-GPU-MODEL'");
  EvalScratch scratch;
  std::string driver = "gpu.example.com";
  const api::Device device = Gpu();
  StatusOr<bool> first = env->Matches(*selector, device, driver, scratch);
  EXPECT_FALSE(first.ok());  // no such key: model (domain dra.example.com is empty)
  driver.replace(0, 3, "dra");
  StatusOr<bool> second = env->Matches(*selector, device, driver, scratch);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(*second);
}

TEST(DraEnvTest, ReleasesAndGates) {
  api::Device lists;
  lists.attributes.insert_or_assign("ids", DeviceAttribute::Ints({1, 2}));
  lists.attributes.insert_or_assign("name", DeviceAttribute::String("fish"));
  // 1.37 StoredExpressions: list values, dyn attributes, includes.
  RunCases(*NewEnv(), lists,
           {
               {.name = "exists", .expr = "device.attributes['gpu.example.com'].ids.exists(i, i == 2)", .want = true},
               {.name = "in", .expr = "2 in device.attributes['gpu.example.com'].ids", .want = true},
               {.name = "includes_list", .expr = "device.attributes['gpu.example.com'].ids.includes(1)", .want = true},
               {.name = "includes_scalar",
                .expr = "device.attributes['gpu.example.com'].name.includes('fish')",
                .want = true},
               {.name = "list_not_bool",
                .expr = "device.attributes['gpu.example.com'].ids",
                .want_error = "CEL result of type list could not be converted to bool"},
           });
  // 1.36 with the gate off: list values fail every selector on the device.
  RunCases(*NewEnv({.minor = 36}), lists,
           {
               {.name = "any_selector", .expr = "true", .want_error = "attribute ids: unsupported attribute value"},
               {.name = "no_hint",
                .expr = "device.driver == 'x'",
                .want_error = "attribute ids: unsupported attribute value"},
           });
  RunCases(*NewEnv({.minor = 36, .list_type_attributes = true}), lists,
           {{.name = "gate_on", .expr = "device.attributes['gpu.example.com'].ids.size() == 2", .want = true}});
  // NewExpressions without gates: `any` attributes, no includes, no
  // allowMultipleAllocations.
  const DraEnvOptions new_no_gates{.new_expressions = true};
  RunCases(*NewEnv(new_no_gates), lists,
           {
               {.name = "any_range",
                .expr = "device.attributes['gpu.example.com'].ids.exists(i, i == 2)",
                // cel-go's checker formats the type as 'any' (as Kubernetes prints it
                // for other map(string, any) variables, e.g. JWT claims), although
                // the type is google.protobuf.Any (src/cel/README.md §4).
                .want_error = "expression of type 'any' cannot be range of a comprehension",
                .want_code = StatusCode::kInvalidArgument},
               {.name = "no_includes",
                .expr = "device.attributes['gpu.example.com'].name.includes('fish')",
                .want_error = "undeclared reference to 'includes'",
                .want_code = StatusCode::kInvalidArgument},
               {.name = "no_multi",
                .expr = "device.allowMultipleAllocations",
                .want_error = "undefined field 'allowMultipleAllocations'",
                .want_code = StatusCode::kInvalidArgument},
           });
  api::Device shared = lists;
  shared.allow_multiple_allocations = true;
  RunCases(*NewEnv({.new_expressions = true, .consumable_capacity = true}), shared,
           {{.name = "multi", .expr = "device.allowMultipleAllocations", .want = true}});
  // The "no such key" hint is 1.37's.
  RunCases(*NewEnv({.minor = 36}), Gpu(),
           {
               {.name = "no_hint",
                .expr = "device.attributes['gpu.example.com'].nope == 1",
                .want_error = "no such key: nope"},
           });
  EvalScratch scratch;
  std::unique_ptr<DraEnvironment> v136 = NewEnv({.minor = 36});
  StatusOr<bool> r =
      v136->Matches(*v136->Compile("device.attributes['gpu.example.com'].nope"), Gpu(), kDriver, scratch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no such key: nope");
  EXPECT_FALSE(DraEnvironment::New({.minor = 33}).ok());
}

TEST(DraEnvTest, DeviceConversionErrors) {
  api::Device bad_version = Gpu();
  bad_version.attributes.insert_or_assign("v", DeviceAttribute::VersionOf("1.0"));
  api::Device no_value = Gpu();
  no_value.attributes.insert_or_assign("empty", DeviceAttribute{});
  std::unique_ptr<DraEnvironment> env = NewEnv();
  RunCases(*env, bad_version,
           {{.name = "version",
             .expr = "true",
             .want_error = "attribute v: parse semantic version: "
                           "No Major.Minor.Patch elements found"}});
  RunCases(*env, no_value,
           {{.name = "none", .expr = "true", .want_error = "attribute empty: unsupported attribute value"}});
  EvalScratch scratch;
  EXPECT_EQ(env->CheckDevice(no_value, scratch).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(env->CheckDevice(Gpu(), scratch).ok());
  // Told that the device was checked, Matches does not look again.
  StatusOr<bool> r = env->Matches(*env->Compile("true"), no_value, kDriver, scratch, DeviceCheck::kDone);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
}

TEST(DraEnvTest, CostLimit) {
  std::unique_ptr<DraEnvironment> env = NewEnv({.cost_limit = 100});
  RunCases(*env, Gpu(),
           {
               {.name = "over",
                .expr = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, "
                        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, x * y > 0))",
                .want_error = "operation cancelled: actual cost limit exceeded",
                .want_code = StatusCode::kResourceExhausted},
               {.name = "under", .expr = "device.driver == 'gpu.example.com'", .want = true},
           });
  EvalScratch scratch;
  ASSERT_TRUE(
      env->Matches(*env->Compile("device.attributes['gpu.example.com'].model == 'x'"), Gpu(), kDriver, scratch).ok());
  EXPECT_EQ(scratch.cost(), 5u);  // device, .attributes, [d], .model, ==
}

TEST(DraEnvTest, CompileCacheAndEvaluateWithoutDevice) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  std::shared_ptr<const CompiledSelector> a = env->Compile("quantity('1Gi').isInteger()");
  EXPECT_EQ(a, env->Compile("quantity('1Gi').isInteger()"));
  EXPECT_TRUE(a->ok());
  EvalScratch scratch;
  StatusOr<Value> v = env->Evaluate(*a, nullptr, "", scratch);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_true());
  std::shared_ptr<const CompiledSelector> bad = env->Compile("1 +");
  EXPECT_FALSE(bad->ok());
  EXPECT_FALSE(bad->issues().empty());
  EXPECT_EQ(bad, env->Compile("1 +"));
  EXPECT_EQ(env->Evaluate(*bad, nullptr, "", scratch).status().code(), StatusCode::kInvalidArgument);
}

TEST(DraEnvTest, ConcurrentEvaluations) {
  std::unique_ptr<DraEnvironment> env = NewEnv();
  const api::Device device = Gpu();
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      EvalScratch scratch;
      for (int i = 0; i < 500; ++i) {
        const std::string expr = "device.attributes['gpu.example.com'].index == " + std::to_string(i % 5);
        StatusOr<bool> r = env->Matches(*env->Compile(expr), device, kDriver, scratch);
        if (r.ok() && *r == (i % 5 == 3)) ok.fetch_add(1);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(ok.load(), 4 * 500);
}

TEST(DraEnvTest, CommonSelectorsDoNotAllocate) {
  if (!kCountsAllocations) GTEST_SKIP() << "allocation counting is off under sanitizers";
  // The counter itself counts (otherwise every "0 allocations" below would pass).
  g_allocations = 0;
  g_count_allocations = true;
  ::operator delete(::operator new(16));  // a direct call: not elided as new-expressions may be
  g_count_allocations = false;
  ASSERT_EQ(g_allocations.load(), 1u);
  std::unique_ptr<DraEnvironment> env = NewEnv();
  const api::Device device = Gpu();
  for (const char* expr : {
           "device.driver == 'gpu.example.com'",
           "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'",
           "device.attributes['gpu.example.com'].model in ['A', 'LATEST-GPU-MODEL']",
           "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
           "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))",
           "device.attributes['gpu.example.com'].model.matches('^LATEST')",
           "device.attributes['ext.example.com'].family == 'hopper' && "
           "device.attributes['gpu.example.com'].index > 2",
           "cel.bind(a, device.attributes['gpu.example.com'], a.healthy)",
       }) {
    SCOPED_TRACE(expr);
    std::shared_ptr<const CompiledSelector> selector = env->Compile(expr);
    EvalScratch scratch;
    ASSERT_TRUE(env->Matches(*selector, device, kDriver, scratch).ok());  // warm up
    g_allocations = 0;
    g_count_allocations = true;
    bool all_true = true;
    for (int i = 0; i < 100; ++i) {
      StatusOr<bool> r = env->Matches(*selector, device, kDriver, scratch);
      all_true = all_true && r.ok() && *r;
    }
    g_count_allocations = false;
    EXPECT_TRUE(all_true);
    EXPECT_EQ(g_allocations.load(), 0u);
  }
}

TEST(DraEnvTest, SplitQualifiedName) {
  EXPECT_EQ(SplitQualifiedName("model", "d"), std::make_pair(std::string_view("d"), std::string_view("model")));
  EXPECT_EQ(SplitQualifiedName("a.b/c", "d"), std::make_pair(std::string_view("a.b"), std::string_view("c")));
}

}  // namespace
}  // namespace dra::cel
