#include "cel/runtime/program.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "cel/libraries/library.h"
#include "cel/parser/parser.h"

#include "base/testing/count_allocations.h"

using dra::testing::g_allocations;
using dra::testing::g_count_allocations;
using dra::testing::kCountsAllocations;

namespace dra::cel {
namespace {

std::shared_ptr<const FunctionRegistry> Registry() {
  static const std::shared_ptr<const FunctionRegistry> registry = [] {
    StatusOr<std::shared_ptr<FunctionRegistry>> r = NewRegistry(LibraryOptions::Standard());
    if (!r.ok()) std::abort();
    return std::shared_ptr<const FunctionRegistry>(*r);
  }();
  return registry;
}

struct Compiled {
  std::shared_ptr<const Program> program;
  std::string issues;
};

Compiled Compile(std::string_view expr, std::vector<std::string> vars = {}, std::string container = "",
                 bool report_undeclared = true) {
  Compiled out;
  StatusOr<ParseResult> parsed = Parse(expr);
  if (!parsed.ok() || !parsed->issues.empty()) {
    out.issues = parsed.ok() ? FormatIssues(expr, parsed->issues) : parsed.status().ToString();
    return out;
  }
  Environment env;
  env.registry = Registry();
  env.variables = std::move(vars);
  env.container = std::move(container);
  env.options.report_undeclared = report_undeclared;
  StatusOr<PlanResult> planned = Plan(*parsed->expr, env);
  if (!planned.ok()) {
    out.issues = planned.status().ToString();
  } else if (!planned->issues.empty()) {
    out.issues = FormatIssues(expr, planned->issues);
  } else {
    out.program = planned->program;
  }
  return out;
}

struct Case {
  std::string name = "";
  std::string expr = "";
  std::optional<Value> want = std::nullopt;
  std::string want_error = "";  // substring of the error value's message
};

class ProgramTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(ProgramTableTest, Evaluates) {
  const Case& c = GetParam();
  Compiled compiled = Compile(c.expr, {"x", "m"});
  ASSERT_NE(compiled.program, nullptr) << compiled.issues;
  MapActivation activation;
  activation.Bind("x", Value::Int(7));
  auto map = MakeRef<HashMap>();
  ASSERT_TRUE(map->Insert(Value::String("k"), Value::String("v")));
  activation.Bind("m", Value::Map(std::move(map)));
  EvalState state;
  StatusOr<Value> result = compiled.program->Evaluate(activation, state);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  if (c.want) {
    EXPECT_TRUE(EqualBool(*result, *c.want) && result->kind() == c.want->kind())
        << "got " << result->DebugString() << ", want " << c.want->DebugString();
  } else {
    ASSERT_TRUE(result->is_error()) << "got " << result->DebugString();
    EXPECT_NE(result->error_message().find(c.want_error), std::string_view::npos) << result->error_message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ProgramTableTest,
    ::testing::Values(
        Case{.name = "and_false_error", .expr = "false && 1/0 == 0", .want = Value::Bool(false)},
        Case{.name = "and_error_false", .expr = "1/0 == 0 && false", .want = Value::Bool(false)},
        Case{.name = "or_error_true", .expr = "1/0 != 0 || true", .want = Value::Bool(true)},
        Case{.name = "or_true_error", .expr = "true || 1/0 != 0", .want = Value::Bool(true)},
        Case{.name = "and_true_error", .expr = "true && 1/0 == 0", .want_error = "division by zero"},
        Case{.name = "not_error", .expr = "!(1/0 == 0)", .want_error = "division by zero"},
        Case{.name = "cond_error", .expr = "1/0 == 0 ? 1 : 2", .want_error = "division by zero"},
        Case{.name = "int_overflow", .expr = "9223372036854775807 + x", .want_error = "overflow"},
        Case{.name = "uint_underflow", .expr = "0u - 1u", .want_error = "overflow"},
        Case{.name = "double_div_zero", .expr = "1.0 / 0.0 > 1e308", .want = Value::Bool(true)},
        Case{.name = "modulo_zero", .expr = "x % 0", .want_error = "modulus by zero"},
        Case{.name = "mixed_equality", .expr = "dyn(x) == 7.0 && dyn(7u) == x", .want = Value::Bool(true)},
        Case{.name = "mixed_ordering", .expr = "x > 6.5 && 7u >= x", .want = Value::Bool(true)},
        Case{.name = "string_vs_int_unequal", .expr = "dyn('7') == x", .want = Value::Bool(false)},
        Case{.name = "ordering_no_overload", .expr = "'a' < x", .want_error = "no matching overload"},
        Case{
            .name = "code_points", .expr = "size('héllo') == 5 && 'héllo'.charAt(1) == 'é'", .want = Value::Bool(true)},
        Case{.name = "matches_unanchored", .expr = "'asymetric'.matches('[^a]?sym')", .want = Value::Bool(true)},
        Case{.name = "map_select", .expr = "m.k", .want = Value::String("v")},
        Case{.name = "map_missing_key", .expr = "m.nope", .want_error = "no such key: nope"},
        Case{.name = "has_map", .expr = "has(m.k) && !has(m.nope)", .want = Value::Bool(true)},
        Case{.name = "opt_select", .expr = "m.?nope.orValue('d')", .want = Value::String("d")},
        Case{.name = "opt_index", .expr = "m[?'k'].value()", .want = Value::String("v")},
        Case{.name = "or_value_short_circuits", .expr = "optional.of(1).orValue(1/0)", .want = Value::Int(1)},
        Case{.name = "in_list", .expr = "7u in [1, x]", .want = Value::Bool(true)},
        Case{.name = "in_map", .expr = "'k' in m && !('v' in m)", .want = Value::Bool(true)},
        Case{.name = "exists_absorbs_error", .expr = "[0, 1].exists(i, 1 / i == 1)", .want = Value::Bool(true)},
        Case{.name = "all_absorbs_error", .expr = "[0, 1].all(i, 1 / i == 5)", .want = Value::Bool(false)},
        Case{.name = "all_error", .expr = "[0, 1].all(i, 1 / i == 1)", .want_error = "division"},
        Case{.name = "exists_one", .expr = "[1, 2, 3].exists_one(i, i > 2)", .want = Value::Bool(true)},
        Case{.name = "map_filter",
             .expr = "[1, 2, 3].filter(i, i != 2).map(i, i * x) == [7, 21]",
             .want = Value::Bool(true)},
        Case{.name = "two_var", .expr = "{'a': 1}.all(k, v, k == 'a' && v == 1)", .want = Value::Bool(true)},
        Case{.name = "transform_map",
             .expr = "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
             .want = Value::Bool(true)},
        Case{.name = "bind", .expr = "cel.bind(y, x * 2, y + y)", .want = Value::Int(28)},
        Case{.name = "shadowing", .expr = "[1].exists(x, x == 1) && x == 7", .want = Value::Bool(true)},
        Case{.name = "type_values", .expr = "type(x) == int && type(type(x)) == type", .want = Value::Bool(true)},
        Case{.name = "conversions", .expr = "int('12') + int(2.9) + int(3u)", .want = Value::Int(17)},
        Case{.name = "double_to_string", .expr = "string(1e100)", .want = Value::String("1e+100")},
        Case{.name = "int_range", .expr = "int(9223372036854775807.0)", .want_error = "range"},
        Case{.name = "repeated_key", .expr = "{1: 'a', 1u: 'b'}", .want_error = "repeated key"},
        Case{.name = "unknown_function", .expr = "nope(1) || true", .want = Value::Bool(true)},
        Case{.name = "message_unsupported", .expr = "a.B{}", .want_error = "unsupported message"},
        Case{.name = "lists_ext", .expr = "lists.range(4).slice(1, 3).reverse() == [2, 1]", .want = Value::Bool(true)},
        Case{.name = "sort_by",
             .expr = "['bb', 'a', 'ccc'].sortBy(s, size(s))",
             .want = Value::List({Value::String("a"), Value::String("bb"), Value::String("ccc")})},
        Case{.name = "sets_ext", .expr = "sets.contains([1, 2], [2.0])", .want = Value::Bool(true)},
        Case{.name = "strings_ext",
             .expr = "'a-b'.split('-').join('+') + 'X'.lowerAscii()",
             .want = Value::String("a+bx")},
        Case{.name = "quote", .expr = "strings.quote('a\"b')", .want = Value::String("\"a\\\"b\"")}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return param_info.param.name; });

TEST(ProgramTest, UndeclaredIdentifierIsACompileIssue) {
  Compiled c = Compile("y + 1");
  EXPECT_EQ(c.program, nullptr);
  EXPECT_NE(c.issues.find("undeclared reference to 'y' (in container '')"), std::string::npos) << c.issues;
}

TEST(ProgramTest, UndeclaredIdentifierIsARuntimeErrorWithoutChecks) {
  Compiled c = Compile("y || true", {}, "", /*report_undeclared=*/false);
  ASSERT_NE(c.program, nullptr) << c.issues;
  EvalState state;
  StatusOr<Value> v = c.program->Evaluate(MapActivation(), state);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_true());
}

TEST(ProgramTest, InvalidConstantRegexIsACompileIssue) {
  Compiled c = Compile("'a'.matches('[')");
  EXPECT_EQ(c.program, nullptr);
  EXPECT_NE(c.issues.find("invalid regular expression"), std::string::npos) << c.issues;
}

TEST(ProgramTest, ResolvesNamesInTheContainer) {
  Compiled c = Compile("y && .z == 1", {"com.example.y", "y", "z"}, "com.example");
  ASSERT_NE(c.program, nullptr) << c.issues;
  MapActivation a;
  a.Bind("com.example.y", Value::Bool(true));
  a.Bind("y", Value::Bool(false));
  a.Bind("z", Value::Int(1));
  EvalState state;
  StatusOr<Value> v = c.program->Evaluate(a, state);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_true()) << v->DebugString();
}

TEST(ProgramTest, PrefersTheLongestQualifiedName) {
  Compiled c = Compile("a.b.c", {"a.b.c", "a.b"});
  ASSERT_NE(c.program, nullptr) << c.issues;
  EXPECT_EQ(c.program->variables().size(), 1u);
  EXPECT_EQ(c.program->variables()[0], "a.b.c");
}

TEST(ProgramTest, FoldsConstants) {
  Compiled c = Compile("[1, 2 + 3, size('abc')]");
  ASSERT_NE(c.program, nullptr);
  EXPECT_EQ(c.program->DebugString(), "const [1, 5, 3]\n");
  EvalState state;
  StatusOr<Value> v = c.program->Evaluate(MapActivation(), state);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(state.cost(), 0u);
}

TEST(ProgramTest, TracksCostLikeCelGo) {
  // ident 1, string equality ceil(0.1 * min(4, 4)) = 1.
  Compiled c = Compile("s == 'H100'", {"s"});
  ASSERT_NE(c.program, nullptr);
  EvalState state;
  const Value vars[] = {Value::StringView("H100")};
  ASSERT_TRUE(c.program->Evaluate(vars, state).ok());
  EXPECT_EQ(state.cost(), 2u);
  // The range 1, 3 iterations x (condition: accu 1 + call 1; step: accu 1 +
  // ident 1 + `>` 1), the result (accu) 1.
  Compiled loop = Compile("l.all(e, e > 0)", {"l"});
  ASSERT_NE(loop.program, nullptr);
  const Value list[] = {Value::List({Value::Int(1), Value::Int(2), Value::Int(3)})};
  ASSERT_TRUE(loop.program->Evaluate(list, state).ok());
  EXPECT_EQ(state.cost(), 1u + 3 * 5 + 1);
}

TEST(ProgramTest, StopsACostBombAtTheLimit) {
  Compiled c = Compile("lists.range(1000).all(x, lists.range(1000).all(y, lists.range(1000).all(z, z >= 0)))");
  ASSERT_NE(c.program, nullptr) << c.issues;
  EvalState state;
  StatusOr<Value> v = c.program->Evaluate(MapActivation(), state);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(v.status().message(), kCostLimitExceededMessage);
  EXPECT_LT(state.cost(), kKubernetesCostLimit + 100);
}

TEST(ProgramTest, StopsGrowingStringsAtTheAllocationBudget) {
  Compiled c = Compile(
      "cel.bind(s, 'abcdefghijklmnopqrstuvwxyz0123456789'.replace('', "
      "'abcdefghijklmnopqrstuvwxyz0123456789'), cel.bind(t, s.replace('', s), "
      "t.replace('', t).size()))");
  ASSERT_NE(c.program, nullptr) << c.issues;
  EvalState state;
  StatusOr<Value> v = c.program->Evaluate(MapActivation(), state);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kResourceExhausted);
}

TEST(ProgramTest, BuildsComprehensionResultsInLinearTime) {
  Compiled c = Compile("lists.range(200000).map(i, i * 2).filter(i, i % 4 == 0).size()");
  ASSERT_NE(c.program, nullptr) << c.issues;
  EvalState state(EvalOptions{.cost_limit = std::nullopt});
  StatusOr<Value> v = c.program->Evaluate(MapActivation(), state);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->int_value(), 100000);
}

TEST(ProgramTest, SharedProgramEvaluatesOnManyThreads) {
  Compiled c = Compile("l.map(e, e + x).exists(e, e == 10) && s.startsWith('ab')", {"l", "x", "s"});
  ASSERT_NE(c.program, nullptr) << c.issues;
  const Value list = Value::List({Value::Int(1), Value::Int(2), Value::Int(3)});
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      EvalState state;
      for (int i = 0; i < 2000; ++i) {
        const Value vars[] = {list, Value::Int(t % 2 == 0 ? 7 : 100), Value::StringView("abc")};
        StatusOr<Value> v = c.program->Evaluate(vars, state);
        if (v.ok() && v->is_bool() && v->bool_value() == (t % 2 == 0)) ok.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 4 * 2000);
}

// A device as dra_env will expose it: an opaque object whose maps are views
// that borrow api memory, with unknown domains reading as empty maps.
class FakeAttributes final : public MapObject {
 public:
  explicit FakeAttributes(std::vector<std::pair<std::string, Value>> entries) : entries_(std::move(entries)) {}
  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (!key.is_string()) return std::nullopt;
    for (const auto& [k, v] : entries_) {
      if (k == key.string_value()) return Value::Borrow(v);
    }
    return std::nullopt;
  }
  Value KeyAt(size_t i) const override { return Value::StringView(entries_[i].first); }
  Value ValueAt(size_t i) const override { return Value::Borrow(entries_[i].second); }

 private:
  std::vector<std::pair<std::string, Value>> entries_;
};

class FakeDevice final : public OpaqueObject {
 public:
  FakeDevice() {
    auto inner =
        MakeRef<FakeAttributes>(std::vector<std::pair<std::string, Value>>{{"model", Value::StringView(kModel)}});
    attributes_ = MakeRef<FakeAttributes>(
        std::vector<std::pair<std::string, Value>>{{"gpu.nvidia.com", Value::Map(std::move(inner))}});
  }
  std::string_view type_name() const override { return "kubernetes.DRADevice"; }
  std::optional<Value> GetField(std::string_view field) const override {
    if (field == "driver") return Value::StringView("gpu.nvidia.com");
    if (field == "attributes") return Value::BorrowMap(attributes_.get());
    return std::nullopt;
  }
  std::string DebugString() const override { return "device"; }

 private:
  static constexpr std::string_view kModel = "H100";
  RefPtr<FakeAttributes> attributes_;
};

TEST(ProgramTest, SelectorHotPathDoesNotAllocate) {
  if (!kCountsAllocations) GTEST_SKIP() << "allocation counting is off under sanitizers";
  Compiled c = Compile("device.attributes[\"gpu.nvidia.com\"].model == \"H100\"", {"device"});
  ASSERT_NE(c.program, nullptr) << c.issues;
  FakeDevice device;
  const Value vars[] = {Value::BorrowOpaque(&device)};
  EvalState state;
  ASSERT_TRUE(c.program->Evaluate(vars, state).ok());  // warm up the slots
  g_allocations = 0;
  g_count_allocations = true;
  bool all_true = true;
  for (int i = 0; i < 1000; ++i) {
    StatusOr<Value> v = c.program->Evaluate(vars, state);
    all_true = all_true && v.ok() && v->is_true();
  }
  g_count_allocations = false;
  EXPECT_TRUE(all_true);
  EXPECT_EQ(g_allocations.load(), 0u);
}

// An object that resolves `obj.a["k"]` in one call, counting the calls.
class PathObject final : public OpaqueObject {
 public:
  std::string_view type_name() const override { return "test.PathObject"; }
  std::optional<Value> GetField(std::string_view field) const override {
    if (field == "a") return Value::BorrowMap(inner_.get());
    return std::nullopt;
  }
  bool ResolvePath(std::span<const PathStep> steps, const void* prepared, Value* out) const override {
    ++resolved;
    if (prepared == nullptr || steps.size() != 2) return false;
    *out = Value::StringView(*static_cast<const std::string*>(prepared));
    return true;
  }
  std::string DebugString() const override { return "path object"; }

  mutable int resolved = 0;

 private:
  RefPtr<FakeAttributes> inner_ =
      MakeRef<FakeAttributes>(std::vector<std::pair<std::string, Value>>{{"k", Value::StringView("walked")}});
};

TEST(ProgramTest, ConstantPathsResolveInOneCallWithTheSameCost) {
  StatusOr<ParseResult> parsed = Parse("obj.a['k'] == 'walked' || obj.a.k == 'resolved'");
  ASSERT_TRUE(parsed.ok() && parsed->issues.empty());
  std::vector<std::string> prepared_paths;
  Environment env;
  env.registry = Registry();
  env.variables = {"obj"};
  env.prepare_path = [&](std::string_view var, std::span<const PathStep> steps) -> std::shared_ptr<const void> {
    std::string path(var);
    for (const PathStep& s : steps) {
      path += s.is_index ? "[" + s.key.DebugString() + "]" : "." + std::string(s.key.string_value());
    }
    prepared_paths.push_back(path);
    return std::make_shared<const std::string>("resolved");
  };
  StatusOr<PlanResult> planned = Plan(*parsed->expr, env);
  ASSERT_TRUE(planned.ok() && planned->issues.empty());
  EXPECT_EQ(prepared_paths, (std::vector<std::string>{"obj.a[\"k\"]", "obj.a.k"}));
  EXPECT_NE(planned->program->DebugString().find("path .a[\"k\"]"), std::string::npos)
      << planned->program->DebugString();
  PathObject obj;
  const Value vars[] = {Value::BorrowOpaque(&obj)};
  EvalState state;
  StatusOr<Value> v = planned->program->Evaluate(vars, state);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_true());
  EXPECT_EQ(obj.resolved, 2);
  // Resolved or walked, a path costs 1 + its steps; each == 1.
  EXPECT_EQ(state.cost(), 3u + 1u + 3u + 1u);

  // Without a preparer the object declines, and the walk gives the same
  // values and costs.
  env.prepare_path = nullptr;
  planned = Plan(*parsed->expr, env);
  ASSERT_TRUE(planned.ok() && planned->issues.empty());
  v = planned->program->Evaluate(vars, state);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_true());  // 'walked' == 'walked'
  EXPECT_EQ(state.cost(), 3u + 1u);
}

TEST(ProgramTest, EqualityWithAStringConstantCostsLikeAnyEquality) {
  // ceil(0.1 * min(code points)) for strings longer than 10 bytes.
  const std::string long_text = "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9";
  MapActivation activation;
  activation.Bind("s", Value::String(long_text));
  activation.Bind("t", Value::String("abcdefghijklmnopqrstuvw"));
  struct Want {
    const char* expr;
    uint64_t cost;  // variables read cost 1 each
  };
  for (const Want& w : {Want{"s == 'abcdefghijklmnopqrstuvw'", 1 + 2},  // 12 vs 23 code points
                        Want{"'abcdefghijklmnopqrstuvw' != s", 1 + 2}, Want{"s == t", 2 + 2},
                        Want{"s == 'short'", 1 + 1}, Want{"t == 'abcdefghijklmnopqrstuvw'", 1 + 3}}) {
    Compiled c = Compile(w.expr, {"s", "t"});
    ASSERT_NE(c.program, nullptr) << c.issues;
    EvalState state;
    ASSERT_TRUE(c.program->Evaluate(activation, state).ok());
    EXPECT_EQ(state.cost(), w.cost) << w.expr;
  }
}

}  // namespace
}  // namespace dra::cel
