#include "cel/checker/checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/checker/checker_decls.h"
#include "cel/parser/parser.h"

namespace dra::cel {
namespace {

struct Checked {
  std::string type;    // result type (ToString), when it checks
  std::string issues;  // FormatIssues output, when it does not
};

Checked CheckIn(std::string_view expr, const CheckerEnv& env, const ParseOptions& options = {}) {
  StatusOr<ParseResult> parsed = Parse(expr, options);
  EXPECT_TRUE(parsed.ok());
  if (!parsed.ok()) return {};
  if (!parsed->issues.empty()) return {"", FormatIssues(expr, parsed->issues)};
  CheckResult r = Check(*parsed->expr, env);
  if (!r.ok()) return {"", FormatIssues(expr, r.issues)};
  return {r.result_type().ToString(), ""};
}

CheckerEnv Standard() {
  CheckerEnv env = StandardCheckerEnv();
  env.Declare("m", Type::Map(Type::String(), Type::Int()));
  env.Declare("l", Type::List(Type::Int()));
  env.Declare("s", Type::String());
  env.Declare("d", Type::Dyn());
  env.Declare("a.b.c", Type::Int());
  return env;
}

struct TypeCase {
  const char* name;
  const char* expr;
  const char* want;
};

TEST(CheckerTest, InfersTypes) {
  const TypeCase cases[] = {
      {.name = "int_add", .expr = "1 + 2", .want = "int"},
      {.name = "string_concat", .expr = "'a' + s", .want = "string"},
      {.name = "list", .expr = "[1, 2]", .want = "list(int)"},
      {.name = "empty_list", .expr = "[]", .want = "list(dyn)"},
      {.name = "empty_map", .expr = "{}", .want = "map(dyn, dyn)"},
      {.name = "map", .expr = "{'a': 1}", .want = "map(string, int)"},
      {.name = "mixed_list_is_dyn", .expr = "[1, 'a']", .want = "list(dyn)"},
      {.name = "nested_empty_list_unifies", .expr = "[[], [1]]", .want = "list(list(int))"},
      {.name = "index_list", .expr = "l[0]", .want = "int"},
      {.name = "index_map", .expr = "m['k']", .want = "int"},
      {.name = "map_field", .expr = "m.k", .want = "int"},
      {.name = "has", .expr = "has(m.k)", .want = "bool"},
      {.name = "dyn_select", .expr = "d.x.y", .want = "dyn"},
      {.name = "qualified_variable", .expr = "a.b.c + 1", .want = "int"},
      {.name = "equality", .expr = "l == [1]", .want = "bool"},
      {.name = "cross_type_ordering", .expr = "1 < 1.5", .want = "bool"},
      {.name = "in_list", .expr = "1 in l", .want = "bool"},
      {.name = "size_member", .expr = "s.size()", .want = "int"},
      {.name = "size_global", .expr = "size(m)", .want = "int"},
      {.name = "conditional", .expr = "true ? 1 : 2", .want = "int"},
      {.name = "conditional_dyn_widens", .expr = "true ? 1 : dyn('a')", .want = "dyn"},
      {.name = "map_macro", .expr = "l.map(x, x * 2)", .want = "list(int)"},
      {.name = "map_macro_to_string", .expr = "l.map(x, string(x))", .want = "list(string)"},
      {.name = "filter_macro", .expr = "l.filter(x, x > 1)", .want = "list(int)"},
      {.name = "all_macro", .expr = "m.all(k, k.startsWith('a'))", .want = "bool"},
      {.name = "exists_one", .expr = "l.exists_one(x, x == 1)", .want = "bool"},
      {.name = "two_var_all", .expr = "l.all(i, v, i < v)", .want = "bool"},
      {.name = "transform_map", .expr = "l.transformMap(i, v, v * 2)", .want = "map(int, int)"},
      {.name = "transform_list", .expr = "m.transformList(k, v, k)", .want = "list(string)"},
      {.name = "bind", .expr = "cel.bind(x, 1, x + 1)", .want = "int"},
      {.name = "optional_of", .expr = "optional.of(1)", .want = "optional_type(int)"},
      {.name = "optional_none", .expr = "optional.none()", .want = "optional_type(dyn)"},
      {.name = "optional_or_value", .expr = "optional.of(1).orValue(2)", .want = "int"},
      {.name = "optional_select", .expr = "m.?k", .want = "optional_type(int)"},
      {.name = "optional_index", .expr = "l[?0]", .want = "optional_type(int)"},
      {.name = "optional_chain", .expr = "m.?k.orValue(0)", .want = "int"},
      {.name = "opt_map_macro", .expr = "m.?k.optMap(v, v + 1)", .want = "optional_type(int)"},
      {.name = "optional_list_element", .expr = "[?optional.of(1), 2]", .want = "list(int)"},
      {.name = "first", .expr = "l.first()", .want = "optional_type(int)"},
      {.name = "type_of", .expr = "type(1)", .want = "type(int)"},
      {.name = "type_ident", .expr = "int", .want = "type(int)"},
      {.name = "type_compare", .expr = "type(1) == int", .want = "bool"},
      {.name = "dyn_call", .expr = "dyn(1)", .want = "dyn"},
      {.name = "string_ext", .expr = "s.split(',')", .want = "list(string)"},
      {.name = "namespaced_function", .expr = "strings.quote(s)", .want = "string"},
      {.name = "lists_range", .expr = "lists.range(3)", .want = "list(int)"},
      {.name = "sort_by_macro", .expr = "l.sortBy(x, -x)", .want = "list(int)"},
      {.name = "sets", .expr = "sets.contains(l, [1])", .want = "bool"},
      {.name = "null_compare", .expr = "null == null", .want = "bool"},
  };
  const CheckerEnv env = Standard();
  for (const TypeCase& c : cases) {
    const Checked got = CheckIn(c.expr, env);
    EXPECT_EQ(got.issues, "") << c.name << ": " << c.expr;
    EXPECT_EQ(got.type, c.want) << c.name << ": " << c.expr;
  }
}

struct ErrorCase {
  const char* name;
  const char* expr;
  const char* want;  // the complete FormatIssues output
};

TEST(CheckerTest, ReportsErrorsAsCelGo) {
  const ErrorCase cases[] = {
      {.name = "undeclared",
       .expr = "x",
       .want = "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
               " | x\n"
               " | ^"},
      {.name = "no_overload",
       .expr = "1 + 'a'",
       .want = "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, "
               "string)'\n"
               " | 1 + 'a'\n"
               " | ..^"},
      {.name = "no_overload_member",
       .expr = "1.startsWith('a')",
       .want = "ERROR: <input>:1:13: found no matching overload for 'startsWith' applied to "
               "'int.(string)'\n"
               " | 1.startsWith('a')\n"
               " | ............^"},
      {.name = "equality_needs_same_type",
       .expr = "1 == 1.0",
       .want = "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, "
               "double)'\n"
               " | 1 == 1.0\n"
               " | ..^"},
      {.name = "field_of_int",
       .expr = "l[0].f",
       .want = "ERROR: <input>:1:5: type 'int' does not support field selection\n"
               " | l[0].f\n"
               " | ....^"},
      {.name = "logic_needs_bool",
       .expr = "true && 1",
       .want = "ERROR: <input>:1:9: expected type 'bool' but found 'int'\n"
               " | true && 1\n"
               " | ........^"},
      {.name = "not_a_range",
       .expr = "1.all(x, x)",
       .want = "ERROR: <input>:1:1: expression of type 'int' cannot be range of a "
               "comprehension (must be list, map, or dynamic)\n"
               " | 1.all(x, x)\n"
               " | ^"},
      {.name = "undeclared_function",
       .expr = "foo(1)",
       .want = "ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')\n"
               " | foo(1)\n"
               " | ...^"},
      {.name = "leading_dot_skips_container",
       .expr = ".c",
       .want = "ERROR: <input>:1:2: undeclared reference to '.c' (in container '')\n"
               " | .c\n"
               " | .^"},
      // Both branches of ?: must have one type (cel-go: `_?_:_(bool, A, A)`).
      {.name = "conditional_mixed",
       .expr = "true ? 1 : 'a'",
       .want = "ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, "
               "int, string)'\n"
               " | true ? 1 : 'a'\n"
               " | .....^"},
  };
  const CheckerEnv env = Standard();
  for (const ErrorCase& c : cases) {
    EXPECT_EQ(CheckIn(c.expr, env).issues, c.want) << c.name << ": " << c.expr;
  }
}

TEST(CheckerTest, ResolvesNamesInContainer) {
  CheckerEnv env = StandardCheckerEnv();
  env.set_container("com.example");
  env.Declare("com.example.x", Type::Int());
  env.Declare("y", Type::String());
  EXPECT_EQ(CheckIn("x + 1", env).type, "int");
  EXPECT_EQ(CheckIn("y", env).type, "string");
  EXPECT_EQ(CheckIn("com.example.x", env).type, "int");
  EXPECT_NE(CheckIn(".x", env).issues.find("undeclared reference to '.x' (in container "
                                           "'com.example')"),
            std::string::npos);
  // A comprehension variable shadows the container-qualified global.
  EXPECT_EQ(CheckIn("cel.bind(x, 'a', x)", env).type, "string");
}

TEST(CheckerTest, KeepsAllOverloadsThatMatchDyn) {
  CheckerEnv env = StandardCheckerEnv();
  env.Declare("d", Type::Dyn());
  StatusOr<ParseResult> parsed = Parse("d + 1");
  ASSERT_TRUE(parsed.ok());
  CheckResult r = Check(*parsed->expr, env);
  ASSERT_TRUE(r.ok());
  const std::vector<std::string>* ids = r.OverloadIds(parsed->expr->expr.id());
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(*ids, std::vector<std::string>({"add_int64"}));
  EXPECT_EQ(r.result_type().ToString(), "int");

  parsed = Parse("d == d");
  ASSERT_TRUE(parsed.ok());
  r = Check(*parsed->expr, env);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.result_type().ToString(), "bool");
}

TEST(CheckerTest, TypesEveryNode) {
  StatusOr<ParseResult> parsed = Parse("[1, 2].map(x, x + 1)[0] > 1");
  ASSERT_TRUE(parsed.ok());
  CheckResult r = Check(*parsed->expr, StandardCheckerEnv());
  ASSERT_TRUE(r.ok());
  for (const auto& [id, t] : r.types) {
    EXPECT_NE(t.kind(), TypeKind::kTypeParam) << id;  // no variable survives
  }
  EXPECT_GE(r.types.size(), 10u);
}

// --- The Kubernetes environment ---------------------------------------------------

TEST(CheckerKubernetesTest, RejectsHeterogeneousLiterals) {
  const CheckerEnv env = KubernetesCheckerEnv();
  EXPECT_EQ(CheckIn("[1, 'a']", env).issues,
            "ERROR: <input>:1:5: expected type 'int' but found 'string'\n"
            " | [1, 'a']\n"
            " | ....^");
  EXPECT_NE(CheckIn("{'a': 1, 'b': 'x'}.size() == 2", env).issues.find("expected type 'int' but found 'string'"),
            std::string::npos);
  EXPECT_NE(CheckIn("{'a': 1, 2: 1}", env).issues.find("expected type 'string' but found 'int'"), std::string::npos);
  // Equivalent, not merely assignable, types: dyn differs from int.
  EXPECT_NE(CheckIn("[1, dyn('a')]", env).issues.find("expected type 'int' but found 'dyn'"), std::string::npos);
  EXPECT_EQ(CheckIn("[dyn(1), dyn('a')]", env).issues, "");
  EXPECT_EQ(CheckIn("[[1], [2]]", env).issues, "");
  // Literals inside format() are exempt, also when nested.
  EXPECT_EQ(CheckIn("'%s-%d'.format(['a', 1]) == 'a-1'", env).issues, "");
  EXPECT_EQ(CheckIn("'%s'.format([[1, 'a']])", env).issues, "");
  // ... but not inside another call within format().
  EXPECT_NE(CheckIn("'%d'.format([[1, 'a'].size()])", env).issues.find("expected type"), std::string::npos);
}

TEST(CheckerKubernetesTest, LibrariesFollowTheRelease) {
  // strings v2: no string reverse.
  EXPECT_NE(CheckIn("'abc'.reverse() == 'cba'", KubernetesCheckerEnv())
                .issues.find("found no matching overload for 'reverse' applied to 'string.()'"),
            std::string::npos);
  EXPECT_NE(CheckIn("math.greatest(1, 2) == 2", KubernetesCheckerEnv()).issues.find("undeclared reference to 'math'"),
            std::string::npos);
  // ext.Lists: not in 1.34 NewExpressions (compatibility version 1.33).
  KubernetesEnvOptions new134{.minor = 34, .env = ExpressionEnv::kNewExpressions};
  EXPECT_NE(CheckIn("[3, 1].sort() == [1, 3]", KubernetesCheckerEnv(new134), KubernetesParseOptions(new134))
                .issues.find("undeclared reference to 'sort'"),
            std::string::npos);
  KubernetesEnvOptions stored134{.minor = 34};
  EXPECT_EQ(CheckIn("[3, 1].sort() == [1, 3]", KubernetesCheckerEnv(stored134)).issues, "");
  // Kubernetes libraries.
  const CheckerEnv env = KubernetesCheckerEnv();
  EXPECT_EQ(CheckIn("quantity('1Gi').isGreaterThan(quantity('1'))", env).type, "bool");
  EXPECT_EQ(CheckIn("quantity('1Gi').add(1)", env).type, "kubernetes.Quantity");
  EXPECT_EQ(CheckIn("sign(quantity('-1'))", env).type, "int");
  EXPECT_NE(CheckIn("quantity('1').sign()", env).issues.find("found no matching overload"), std::string::npos);
  EXPECT_EQ(CheckIn("semver('1.0.0', true).major()", env).type, "int");
  EXPECT_EQ(CheckIn("'abc'.findAll('[a-z]')", env).type, "list(string)");
  EXPECT_EQ(CheckIn("[1, 2].sum()", env).type, "int");
  EXPECT_EQ(CheckIn("['a'].indexOf('a')", env).type, "int");
  EXPECT_EQ(CheckIn("cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))", env).type, "bool");
  EXPECT_EQ(CheckIn("url('https://x').getQuery()", env).type, "map(string, list(string))");
  EXPECT_EQ(CheckIn("format.dns1123Label().validate('a')", env).type, "optional_type(list(string))");
  EXPECT_NE(CheckIn("isQuantity([1, 2, 3])", env)
                .issues.find("found no matching overload for 'isQuantity' applied to "
                             "'(list(int))'"),
            std::string::npos);
  // Capacities are statically typed: no comparison with strings.
  EXPECT_NE(CheckIn("device.capacity['d'].memory == '1Gi'", env)
                .issues.find("found no matching overload for '_==_' applied to "
                             "'(kubernetes.Quantity, string)'"),
            std::string::npos);
}

TEST(CheckerKubernetesTest, DeviceVariableFollowsGatesAndEnvironment) {
  // 1.35: attributes are `any`, no range of a comprehension.
  KubernetesEnvOptions o135{.minor = 35};
  EXPECT_EQ(CheckIn("device.attributes['d'].x.exists(y, y == 1)", KubernetesCheckerEnv(o135)).issues,
            "ERROR: <input>:1:23: expression of type 'any' cannot be range of a comprehension "
            "(must be list, map, or dynamic)\n"
            " | device.attributes['d'].x.exists(y, y == 1)\n"
            " | ......................^");
  // 1.37 stored: dyn.
  EXPECT_EQ(CheckIn("device.attributes['d'].x.exists(y, y == 1)", KubernetesCheckerEnv()).type, "bool");
  // allowMultipleAllocations only with DRAConsumableCapacity in NewExpressions.
  KubernetesEnvOptions fresh{.env = ExpressionEnv::kNewExpressions};
  EXPECT_NE(CheckIn("device.allowMultipleAllocations", KubernetesCheckerEnv(fresh))
                .issues.find("undefined field 'allowMultipleAllocations'"),
            std::string::npos);
  fresh.consumable_capacity = true;
  EXPECT_EQ(CheckIn("device.allowMultipleAllocations", KubernetesCheckerEnv(fresh)).type, "bool");
  // includes: only with DRAListTypeAttributes in NewExpressions.
  fresh.consumable_capacity = false;
  EXPECT_NE(CheckIn("device.attributes['d'].a.includes(1)", KubernetesCheckerEnv(fresh))
                .issues.find("undeclared reference to 'includes'"),
            std::string::npos);
  fresh.list_type_attributes = true;
  EXPECT_EQ(CheckIn("device.attributes['d'].a.includes(1)", KubernetesCheckerEnv(fresh)).type, "bool");
  // The API validation vector: attributes keyed by a bool.
  KubernetesEnvOptions plain{.env = ExpressionEnv::kNewExpressions};
  EXPECT_NE(CheckIn("device.attributes[true].someBoolean", KubernetesCheckerEnv(plain))
                .issues.find("found no matching overload for '_[_]' applied to "
                             "'(map(string, map(string, any)), bool)'"),
            std::string::npos);
  EXPECT_EQ(CheckIn("device.driver", KubernetesCheckerEnv()).type, "string");
  EXPECT_NE(CheckIn("device.foo", KubernetesCheckerEnv()).issues.find("undefined field 'foo'"), std::string::npos);
}

TEST(CheckerKubernetesTest, ValidatesConstantArguments) {
  const CheckerEnv env = KubernetesCheckerEnv();
  EXPECT_EQ(CheckIn("'a'.matches('[')", env).issues,
            "ERROR: <input>:1:13: invalid matches argument\n"
            " | 'a'.matches('[')\n"
            " | ............^");
  EXPECT_EQ(CheckIn("'a'.matches('[a]')", env).issues, "");
  EXPECT_NE(CheckIn("'%d'.format(['a'])", env).issues.find("error during formatting"), std::string::npos);
  EXPECT_NE(CheckIn("'%s'.format(['a', 'b'])", env).issues.find("too many arguments"), std::string::npos);
  // Duration and timestamp literals, as tools/oracle (upstream's compiler)
  // reports them: at the argument, column 10 and 11 here.
  EXPECT_EQ(CheckIn("duration('1x') > duration('1s')", env).issues,
            "ERROR: <input>:1:10: invalid duration argument\n"
            " | duration('1x') > duration('1s')\n"
            " | .........^");
  EXPECT_EQ(CheckIn("timestamp('bad') > timestamp(0)", env).issues,
            "ERROR: <input>:1:11: invalid timestamp argument\n"
            " | timestamp('bad') > timestamp(0)\n"
            " | ..........^");
  EXPECT_NE(CheckIn("timestamp(253402300800) > timestamp(0)", env).issues.find("invalid timestamp argument"),
            std::string::npos);
  EXPECT_EQ(CheckIn("duration('1h30m') > duration('0s')", env).issues, "");
  EXPECT_EQ(CheckIn("timestamp('2020-02-29T00:00:00Z') > timestamp(0)", env).issues, "");
  // The standard profile has none of these validators.
  EXPECT_EQ(CheckIn("'a'.matches('[')", StandardCheckerEnv()).issues, "");
  EXPECT_EQ(CheckIn("duration('1x') > duration('1s')", StandardCheckerEnv()).issues, "");
}

TEST(CheckerKubernetesTest, SelectorResultType) {
  KubernetesEnvOptions o{.env = ExpressionEnv::kNewExpressions};
  EXPECT_EQ(SelectorResultTypeError(Type::Bool(), o), std::nullopt);
  EXPECT_EQ(SelectorResultTypeError(Type::Any(), o), std::nullopt);
  EXPECT_EQ(SelectorResultTypeError(Type::Int(), o), "must evaluate to bool or the unknown type, not int");
  EXPECT_EQ(SelectorResultTypeError(Type::List(Type::String()), o),
            "must evaluate to bool or the unknown type, not list(string)");
  EXPECT_EQ(SelectorResultTypeError(Type::Dyn(), o), "must evaluate to bool or the unknown type, not dyn");
  o.list_type_attributes = true;
  EXPECT_EQ(SelectorResultTypeError(Type::Dyn(), o), std::nullopt);
}

// --- Types ---------------------------------------------------------------------------

TEST(TypesTest, ParsesTypeNames) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"int", "int"},
      {"list(int)", "list(int)"},
      {"map(string, list(int))", "map(string, list(int))"},
      {"null_type", "null"},
      {"dyn", "dyn"},
      {"type(int)", "type(int)"},
      {"optional_type(string)", "optional_type(string)"},
      {"kubernetes.Quantity", "kubernetes.Quantity"},
      {"google.protobuf.Any", "any"},
      {"list", "list(dyn)"},
  };
  for (const Case& c : cases) {
    StatusOr<Type> t = ParseTypeName(c.text);
    ASSERT_TRUE(t.ok()) << c.text << ": " << t.status().ToString();
    EXPECT_EQ(t->ToString(), c.want) << c.text;
  }
  for (const char* bad : {"", "foo", "list(int", "map(int)", "int(int)", "list(int))", "A"}) {
    StatusOr<Type> t = ParseTypeName(bad);
    EXPECT_FALSE(t.ok()) << bad;
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    }
  }
  StatusOr<Type> param = ParseSignatureType("list(A)");
  ASSERT_TRUE(param.ok());
  EXPECT_EQ(param->params()[0].kind(), TypeKind::kTypeParam);
}

TEST(TypesTest, PrintsAsCelGo) {
  EXPECT_EQ(Type::Any().ToString(), "any");
  EXPECT_EQ(Type::Any().DeclaredString(), "google.protobuf.Any");
  EXPECT_EQ(Type::Null().DeclaredString(), "null_type");
  EXPECT_EQ(Type::Map(Type::String(), Type::Map(Type::String(), Type::Any())).ToString(),
            "map(string, map(string, any))");
  EXPECT_TRUE(Type::List(Type::Int()).IsEquivalent(Type::List(Type::Int())));
  EXPECT_FALSE(Type::List(Type::Int()).IsEquivalent(Type::List(Type::Dyn())));
}

}  // namespace
}  // namespace dra::cel
