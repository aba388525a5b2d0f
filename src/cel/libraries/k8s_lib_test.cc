#include "cel/libraries/k8s_lib.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cel/parser/parser.h"
#include "cel/runtime/program.h"

namespace dra::cel {
namespace {

struct Outcome {
  std::optional<Value> value;  // the result, or
  std::string error;           // a compile issue / error value / status message
  uint64_t cost = 0;
};

// Parses, plans and evaluates `expr` in a Kubernetes registry of `options`.
Outcome Eval(std::string_view expr, KubernetesLibraryOptions options = KubernetesLibraryOptions::Stored(),
             bool fold = true) {
  Outcome out;
  StatusOr<std::shared_ptr<FunctionRegistry>> registry = NewKubernetesRegistry(options);
  if (!registry.ok()) {
    out.error = registry.status().ToString();
    return out;
  }
  StatusOr<ParseResult> parsed = Parse(expr, KubernetesLibraryParseOptions(options));
  if (!parsed.ok() || !parsed->issues.empty()) {
    out.error = parsed.ok() ? FormatIssues(expr, parsed->issues) : parsed.status().ToString();
    return out;
  }
  std::vector<Issue> literal = ValidateKubernetesLiterals(*parsed->expr);
  if (!literal.empty()) {
    out.error = FormatIssues(expr, literal);
    return out;
  }
  Environment env;
  env.registry = *registry;
  env.options.fold_constants = fold;
  env.options.report_unknown_functions = true;
  StatusOr<PlanResult> planned = Plan(*parsed->expr, env);
  if (!planned.ok() || !planned->issues.empty()) {
    out.error = planned.ok() ? FormatIssues(expr, planned->issues) : planned.status().ToString();
    return out;
  }
  EvalState state;
  StatusOr<Value> v = planned->program->Evaluate(std::span<const Value>(), state);
  out.cost = state.cost();
  if (!v.ok()) {
    out.error = v.status().message();
  } else if (v->is_error()) {
    out.error = std::string(v->error_message());
  } else {
    // Keep the rendering only: the value may borrow from the program.
    out.value = Value::String(v->DebugString());
  }
  return out;
}

struct Case {
  std::string name{};
  std::string expr{};
  std::string want{};        // DebugString of the value, if no error is expected
  std::string want_error{};  // substring of the error
};

void RunCases(const std::vector<Case>& cases, KubernetesLibraryOptions options = KubernetesLibraryOptions::Stored()) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.expr);
    Outcome o = Eval(c.expr, options);
    if (c.want_error.empty()) {
      ASSERT_TRUE(o.value.has_value()) << o.error;
      EXPECT_EQ(o.value->string_value(), c.want);
    } else {
      ASSERT_FALSE(o.value.has_value()) << o.value->string_value();
      EXPECT_NE(o.error.find(c.want_error), std::string::npos) << o.error;
    }
  }
}

TEST(K8sLibTest, Quantity) {
  RunCases({
      {.name = "parse", .expr = "quantity('12Mi')", .want = "kubernetes.Quantity(12Mi)"},
      {.name = "canonical", .expr = "quantity('1.5')", .want = "kubernetes.Quantity(1500m)"},
      {.name = "bad_format",
       .expr = "quantity('10Mo')",
       .want_error = "quantities must match the regular expression "
                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {.name = "bad_suffix", .expr = "quantity('10Mm')", .want_error = "unable to parse quantity's suffix"},
      {.name = "is_quantity", .expr = "isQuantity('20M') && !isQuantity('10Mm')", .want = "true"},
      {.name = "eq_numeric", .expr = "quantity('1Gi') == quantity('1073741824')", .want = "true"},
      {.name = "eq_exact", .expr = "quantity('200M') == quantity('0.2G')", .want = "true"},
      {.name = "eq_other_type", .expr = "quantity('1') == 1", .want_error = "no such overload"},
      {.name = "compare", .expr = "quantity('50M').compareTo(quantity('50Mi'))", .want = "-1"},
      {.name = "greater", .expr = "quantity('50Mi').isGreaterThan(quantity('50M'))", .want = "true"},
      {.name = "less", .expr = "quantity('50Mi').isLessThan(quantity('50M'))", .want = "false"},
      {.name = "sign", .expr = "sign(quantity('-3')) + sign(quantity('0'))", .want = "-1"},
      {.name = "sign_not_a_method", .expr = "quantity('-3').sign()", .want_error = "no matching overload"},
      {.name = "add_int", .expr = "quantity('50k').add(20) == quantity('50020')", .want = "true"},
      {.name = "sub", .expr = "quantity('50k').sub(quantity('20k')) == quantity('30k')", .want = "true"},
      {.name = "chain", .expr = "quantity('50k').add(20).sub(quantity('100k')).asInteger()", .want = "-49980"},
      {.name = "as_integer_fraction",
       .expr = "quantity('1500m').asInteger()",
       .want_error = "cannot convert value to integer"},
      {.name = "is_integer", .expr = "quantity('1500m').isInteger()", .want = "false"},
      {.name = "as_float", .expr = "quantity('50.703k').asApproximateFloat()", .want = "50703.0"},
      {.name = "beyond_38_digits",
       .expr = "quantity('99999999999999999999999999999999999999').add(quantity('0.1'))",
       .want_error = "quantity"},
  });
}

TEST(K8sLibTest, QuantityParseErrorText) {
  const auto text = [](std::string_view s) { return QuantityParseErrorText(s, quantity::Quantity::Parse(s).status()); };
  EXPECT_EQ(text("1 Gi").substr(0, 26), "quantities must match the ");
  EXPECT_EQ(text("").substr(0, 26), "quantities must match the ");
  EXPECT_EQ(text("1.2.3").substr(0, 26), "quantities must match the ");
  EXPECT_EQ(text("1K"), "unable to parse quantity's suffix");
  EXPECT_EQ(text("Pi"), "unable to parse numeric part of quantity");
}

TEST(K8sLibTest, Semver) {
  RunCases({
      {.name = "parse", .expr = "semver('1.2.3')", .want = "kubernetes.Semver(1.2.3)"},
      {.name = "strict", .expr = "semver('v1.0.0')", .want_error = "Invalid character(s)"},
      {.name = "normalize", .expr = "semver('v01.2', true) == semver('1.2.0')", .want = "true"},
      {.name = "is_semver", .expr = "isSemver('1.0.0') && !isSemver('1.0') && isSemver('1', true)", .want = "true"},
      {.name = "parts",
       .expr = "semver('1.2.3').major() * 100 + semver('1.2.3').minor() * 10 + "
               "semver('1.2.3').patch()",
       .want = "123"},
      {.name = "compare", .expr = "semver('1.0.0-alpha').compareTo(semver('1.0.0'))", .want = "-1"},
      {.name = "build_ignored", .expr = "semver('1.0.0+a') == semver('1.0.0+b')", .want = "true"},
      {.name = "eq_string_error", .expr = "semver('1.2.3') == '1.2.3'", .want_error = "no such overload"},
      {.name = "string_eq_semver", .expr = "'1.2.3' == semver('1.2.3')", .want = "false"},
      {.name = "ne_string", .expr = "semver('1.2.3') != '1.2.3'", .want = "true"},
      {.name = "greater", .expr = "semver('1.10.0').isGreaterThan(semver('1.9.0'))", .want = "true"},
  });
}

TEST(K8sLibTest, Lists) {
  RunCases({
      {.name = "sorted", .expr = "[1, 2, 2, 3].isSorted() && !['b', 'a'].isSorted()", .want = "true"},
      {.name = "sorted_empty", .expr = "[].isSorted()", .want = "true"},
      {.name = "sum_int", .expr = "[1, 3].sum()", .want = "4"},
      {.name = "sum_double", .expr = "[1.0, 3.0].sum()", .want = "4.0"},
      {.name = "sum_empty", .expr = "[].sum()", .want = "0"},
      {.name = "sum_overflow", .expr = "[9223372036854775807, 1].sum()", .want_error = "integer overflow"},
      {.name = "min_max", .expr = "[3, 1, 2].min() * 10 + [3, 1, 2].max()", .want = "13"},
      {.name = "min_string", .expr = "['b', 'a', 'c'].min()", .want = "\"a\""},
      {.name = "min_empty", .expr = "[].min()", .want_error = "min called on empty list"},
      {.name = "index_of", .expr = "[1, 2, 2, 3].indexOf(2)", .want = "1"},
      {.name = "last_index_of", .expr = "['a', 'b', 'b', 'c'].lastIndexOf('b')", .want = "2"},
      {.name = "index_of_missing", .expr = "[1.0].indexOf(1.1)", .want = "-1"},
      {.name = "string_index_of_still_works", .expr = "'abcb'.lastIndexOf('b')", .want = "3"},
      {.name = "includes_list", .expr = "[1, 2].includes(2) && ![1, 2].includes(3)", .want = "true"},
      {.name = "includes_scalar", .expr = "'model-a'.includes('model-a')", .want = "true"},
  });
  // Lists v1 `includes` is 1.37 StoredExpressions only.
  RunCases({{.name = "no_includes", .expr = "[1, 2].includes(2)", .want_error = "undeclared reference to 'includes'"}},
           KubernetesLibraryOptions::Stored(36));
  // The DRA flavour refuses to scan past its limit.
  KubernetesLibraryOptions dra = KubernetesLibraryOptions::Stored();
  dra.includes_max_list_length = 48;
  RunCases({{.name = "limit",
             .expr = "lists.range(49).includes(48)",
             .want_error = "'includes' function cannot be applied to lists longer than 48 values"},
            {.name = "within_limit", .expr = "lists.range(49).includes(47)", .want = "true"}},
           dra);
}

TEST(K8sLibTest, ExtListsOnlyFromTheirRelease) {
  RunCases({{.name = "sort", .expr = "[3, 1].sort() == [1, 3]", .want = "true"}}, KubernetesLibraryOptions::New(35));
  // 1.34 NewExpressions are at compatibility version 1.33: no ext.Lists.
  RunCases({{.name = "no_sort", .expr = "[3, 1].sort()", .want_error = "undeclared reference to 'sort'"}},
           KubernetesLibraryOptions::New(34));
}

TEST(K8sLibTest, Regex) {
  RunCases({
      {.name = "find", .expr = "'abc 123'.find('[0-9]+')", .want = "\"123\""},
      {.name = "find_none", .expr = "'abc 123'.find('xyz')", .want = "\"\""},
      {.name = "find_all", .expr = "'123 abc 456'.findAll('[0-9]+')", .want = "[\"123\", \"456\"]"},
      {.name = "find_all_limit", .expr = "'123 abc 456'.findAll('[0-9]+', 1)", .want = "[\"123\"]"},
      {.name = "find_all_zero", .expr = "'123 abc 456'.findAll('[0-9]+', 0)", .want = "[]"},
      // Go skips an empty match right after a match.
      {.name = "find_all_empty", .expr = "'a1b'.findAll('[0-9]*')", .want = "[\"\", \"1\", \"\"]"},
      {.name = "invalid_constant", .expr = "'a'.find('(')", .want_error = "Illegal regex"},
      {.name = "invalid_runtime", .expr = "'a'.find(['('][0])", .want_error = "Illegal regex"},
  });
}

TEST(K8sLibTest, UrlIpCidr) {
  RunCases({
      {.name = "url_parts",
       .expr = "url('https://user@example.com:8080/a%20b?x=1&x=2').getHostname() + ':' + "
               "url('https://example.com:8080/').getPort()",
       .want = "\"example.com:8080\""},
      {.name = "url_query",
       .expr = "url('https://e.com/?x=1&x=2&y').getQuery()",
       .want = "{\"x\": [\"1\", \"2\"], \"y\": [\"\"]}"},
      {.name = "url_path", .expr = "url('https://e.com/a%20b').getEscapedPath()", .want = "\"/a%20b\""},
      {.name = "is_url", .expr = "isURL('https://e.com') && !isURL('relative/path')", .want = "true"},
      {.name = "url_error", .expr = "url('relative')", .want_error = "URL parse error during conversion from string"},
      {.name = "ip", .expr = "ip('192.168.0.1').family() == 4 && ip('::1').isLoopback()", .want = "true"},
      {.name = "ip_string", .expr = "string(ip('2001:DB8::68'))", .want = "\"2001:db8::68\""},
      {.name = "ip_canonical",
       .expr = "ip.isCanonical('2001:db8::68') && "
               "!ip.isCanonical('2001:DB8::68')",
       .want = "true"},
      {.name = "ip_eq", .expr = "ip('127.0.0.1') == ip('127.0.0.1')", .want = "true"},
      {.name = "ip_error", .expr = "ip('1.2.3')", .want_error = "IP Address \"1.2.3\" parse error"},
      {.name = "cidr",
       .expr = "cidr('10.0.0.0/8').containsIP('10.1.2.3') && "
               "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && "
               "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')",
       .want = "true"},
      {.name = "cidr_masked", .expr = "string(cidr('192.168.0.1/24').masked())", .want = "\"192.168.0.0/24\""},
      {.name = "cidr_parts",
       .expr = "cidr('192.168.0.1/24').prefixLength() == 24 && "
               "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
       .want = "true"},
      {.name = "contains_ip_bad_string",
       .expr = "cidr('10.0.0.0/8').containsIP('x')",
       .want_error = "no such overload"},
  });
}

TEST(K8sLibTest, NamedFormats) {
  RunCases({
      {.name = "named", .expr = "format.named('dns1123Label').hasValue()", .want = "true"},
      {.name = "named_none", .expr = "format.named('nope').hasValue()", .want = "false"},
      {.name = "valid", .expr = "format.dns1123Label().validate('my-name').hasValue()", .want = "false"},
      {.name = "invalid", .expr = "format.dns1123Label().validate('My_Name').hasValue()", .want = "true"},
      {.name = "prefix", .expr = "format.dns1123LabelPrefix().validate('my-prefix-').hasValue()", .want = "false"},
      {.name = "dns1035", .expr = "format.dns1035Label().validate('1abc').hasValue()", .want = "true"},
      {.name = "uuid",
       .expr = "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')"
               ".hasValue() || format.uuid().validate('x').value().size() != 1",
       .want = "false"},
      {.name = "byte",
       .expr = "format.byte().validate('aGVsbG8=').hasValue() || "
               "!format.byte().validate('aGVsbG8').hasValue()",
       .want = "false"},
      {.name = "date",
       .expr = "format.date().validate('2024-02-29').hasValue() || "
               "!format.date().validate('2023-02-29').hasValue()",
       .want = "false"},
      {.name = "datetime",
       .expr = "format.datetime().validate('2021-01-01T00:00:00Z').hasValue() "
               "|| !format.datetime().validate('2021-01-01').hasValue()",
       .want = "false"},
      {.name = "uri",
       .expr = "format.uri().validate('relative')",
       .want = "optional.of([\"parse \\\"relative\\\": invalid URI for request\"])"},
  });
}

TEST(K8sLibTest, StringsFormat) {
  RunCases({
      {.name = "mixed_literal_exempt", .expr = "'%s-%d'.format(['a', 1])", .want = "\"a-1\""},
      {.name = "float", .expr = "'%.2f'.format([1.5])", .want = "\"1.50\""},
      {.name = "list", .expr = "'%s'.format([['a', 1.0]])", .want = "\"[\\\"a\\\", 1.000000]\""},
      {.name = "too_few_runtime", .expr = "'%s %s'.format(['a'].map(x, x))", .want_error = "index 1 out of range"},
      {.name = "static_check_bad_clause",
       .expr = "'%d'.format(['a'])",
       .want_error = "error during formatting: decimal clause can only be used on integers"},
      {.name = "static_check_too_many",
       .expr = "'%s'.format(['a', 'b'])",
       .want_error = "too many arguments supplied to string.format (expected 1, got 2)"},
  });
}

TEST(K8sLibTest, HomogeneousLiterals) {
  RunCases({
      {.name = "map_values",
       .expr = "{'a': 1, 'b': 'x'}.size() == 2",
       .want_error = "expected type 'int' but found 'string'"},
      {.name = "list", .expr = "[1, 'a'].size()", .want_error = "expected type 'int' but found 'string'"},
      {.name = "dyn_not_equivalent",
       .expr = "[1, dyn('a')].size()",
       .want_error = "expected type 'int' but found 'dyn'"},
      {.name = "all_dyn", .expr = "[dyn(1), dyn('a')].size()", .want = "2"},
      {.name = "nested",
       .expr = "[[1], ['a']].size()",
       .want_error = "expected type 'list(int)' but found 'list(string)'"},
      {.name = "unknown_elements_not_judged", .expr = "[1, [1, 2].map(x, 'a')[0]].size()", .want = "2"},
  });
  Outcome o = Eval("{'a': 1, 'b': 'x'}");
  EXPECT_NE(o.error.find("ERROR: <input>:1:15:"), std::string::npos) << o.error;
}

TEST(K8sLibTest, RuntimeCosts) {
  // Without constant folding, so that the calls run at evaluation time.
  EXPECT_EQ(Eval("[1, 2, 3].sum()", KubernetesLibraryOptions::Stored(), false).cost, 10u + 3u);
  EXPECT_EQ(Eval("quantity('12345678901')", KubernetesLibraryOptions::Stored(), false).cost, 2u);
  EXPECT_EQ(Eval("'abc'.find('b')", KubernetesLibraryOptions::Stored(), false).cost, 1u);
  EXPECT_EQ(Eval("semver('1.2.3').isGreaterThan(semver('1.0.0'))", KubernetesLibraryOptions::Stored(), false).cost,
            1u + 1u + 1u);
}

}  // namespace
}  // namespace dra::cel
