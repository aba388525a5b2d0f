#include "cel/parser/parser.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cel/parser/operators.h"

namespace dra::cel {
namespace {

// The canonical rendering of the parsed tree, or the formatted issues.
std::string ParseToString(std::string_view source, const ParseOptions& options = {}) {
  auto result = Parse(source, options);
  if (!result.ok()) return "STATUS: " + result.status().ToString();
  if (!result->issues.empty()) return FormatIssues(source, result->issues);
  return DebugString(result->expr->expr);
}

// Depth of the tree (a leaf is 1).
int TreeDepth(const Expr& e) {
  int deepest = 0;
  auto visit = [&](const Expr& child) { deepest = std::max(deepest, TreeDepth(child)); };
  switch (e.kind()) {
    case ExprKind::kSelect: visit(*e.select().operand); break;
    case ExprKind::kCall:
      if (e.call().has_target()) visit(*e.call().target);
      for (const Expr& a : e.call().args) visit(a);
      break;
    case ExprKind::kList:
      for (const Expr& a : e.list().elements) visit(a);
      break;
    case ExprKind::kStruct:
      for (const StructField& f : e.struct_expr().fields) visit(*f.value);
      break;
    case ExprKind::kMap:
      for (const MapEntry& m : e.map().entries) {
        visit(*m.key);
        visit(*m.value);
      }
      break;
    case ExprKind::kComprehension: {
      const ComprehensionExpr& c = e.comprehension();
      for (const Box<Expr>* b : {&c.iter_range, &c.accu_init, &c.loop_condition, &c.loop_step, &c.result}) {
        visit(**b);
      }
      break;
    }
    default: break;
  }
  return deepest + 1;
}

// Checks invariants 1-3 of ast.h: ids unique and positive, each with a
// position, no unspecified nodes.
void CheckInvariants(const ParsedExpr& parsed, std::string_view source) {
  std::set<int64_t> seen;
  auto id_ok = [&](int64_t id) {
    EXPECT_GT(id, 0) << source;
    EXPECT_LT(id, parsed.next_id) << source;
    EXPECT_TRUE(seen.insert(id).second) << "duplicate id " << id << " in " << source;
    EXPECT_TRUE(parsed.source_info.GetPosition(id).has_value()) << "id " << id << " in " << source;
  };
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    id_ok(e.id());
    switch (e.kind()) {
      case ExprKind::kUnspecified: ADD_FAILURE() << "unspecified node in " << source; break;
      case ExprKind::kSelect: walk(*e.select().operand); break;
      case ExprKind::kCall:
        if (e.call().has_target()) walk(*e.call().target);
        for (const Expr& a : e.call().args) walk(a);
        break;
      case ExprKind::kList:
        for (const Expr& a : e.list().elements) walk(a);
        break;
      case ExprKind::kStruct:
        for (const StructField& f : e.struct_expr().fields) {
          id_ok(f.id);
          walk(*f.value);
        }
        break;
      case ExprKind::kMap:
        for (const MapEntry& m : e.map().entries) {
          id_ok(m.id);
          walk(*m.key);
          walk(*m.value);
        }
        break;
      case ExprKind::kComprehension: {
        const ComprehensionExpr& c = e.comprehension();
        walk(*c.iter_range);
        walk(*c.accu_init);
        walk(*c.loop_condition);
        walk(*c.loop_step);
        walk(*c.result);
        break;
      }
      default: break;
    }
  };
  walk(parsed.expr);
}

struct ParseCase {
  std::string name;
  std::string expr;
  std::string want;
};

class ParseShapeTest : public testing::TestWithParam<ParseCase> {};

TEST_P(ParseShapeTest, Renders) {
  EXPECT_EQ(ParseToString(GetParam().expr), GetParam().want) << GetParam().expr;
  auto result = Parse(GetParam().expr);
  ASSERT_TRUE(result.ok());
  if (result->expr) CheckInvariants(*result->expr, GetParam().expr);
}

std::string CaseName(const testing::TestParamInfo<ParseCase>& p) { return p.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Precedence, ParseShapeTest,
    testing::Values(
        ParseCase{.name = "mul_binds_tighter", .expr = "a + b * c", .want = "_+_(a, _*_(b, c))"},
        ParseCase{.name = "mul_first", .expr = "a * b + c", .want = "_+_(_*_(a, b), c)"},
        ParseCase{.name = "sub_left_assoc", .expr = "a - b - c", .want = "_-_(_-_(a, b), c)"},
        ParseCase{.name = "div_mod_left_assoc", .expr = "a / b % c", .want = "_%_(_/_(a, b), c)"},
        ParseCase{.name = "relations_left_assoc", .expr = "a < b == c", .want = "_==_(_<_(a, b), c)"},
        ParseCase{.name = "all_relations",
                  .expr = "a <= b != c >= d > e in f",
                  .want = "@in(_>_(_>=_(_!=_(_<=_(a, b), c), d), e), f)"},
        ParseCase{.name = "relation_below_add", .expr = "a + b < c * d", .want = "_<_(_+_(a, b), _*_(c, d))"},
        ParseCase{.name = "and_below_relation", .expr = "a < b && c", .want = "_&&_(_<_(a, b), c)"},
        ParseCase{.name = "or_below_and", .expr = "a || b && c", .want = "_||_(a, _&&_(b, c))"},
        ParseCase{.name = "and_or_and", .expr = "a && b || c && d", .want = "_||_(_&&_(a, b), _&&_(c, d))"},
        ParseCase{
            .name = "conditional_lowest", .expr = "a || b ? c + 1 : d", .want = "_?_:_(_||_(a, b), _+_(c, 1), d)"},
        ParseCase{
            .name = "conditional_right_assoc", .expr = "a ? b : c ? d : e", .want = "_?_:_(a, b, _?_:_(c, d, e))"},
        ParseCase{.name = "parens", .expr = "(a + b) * c", .want = "_*_(_+_(a, b), c)"},
        ParseCase{.name = "nested_conditional_in_parens",
                  .expr = "a ? (b ? c : d) : e",
                  .want = "_?_:_(a, _?_:_(b, c, d), e)"},
        ParseCase{.name = "or_chain_balanced", .expr = "a || b || c || d", .want = "_||_(_||_(a, b), _||_(c, d))"},
        ParseCase{.name = "and_chain_balanced", .expr = "a && b && c", .want = "_&&_(_&&_(a, b), c)"},
        ParseCase{
            .name = "or_chain_five", .expr = "a || b || c || d || e", .want = "_||_(_||_(_||_(a, b), c), _||_(d, e))"},
        ParseCase{.name = "not", .expr = "!a", .want = "!_(a)"},
        ParseCase{.name = "not_not_cancels", .expr = "!!a", .want = "a"},
        ParseCase{.name = "not_three", .expr = "!!!a", .want = "!_(a)"},
        ParseCase{.name = "negate", .expr = "-a", .want = "-_(a)"},
        ParseCase{.name = "negate_twice_cancels", .expr = "--a", .want = "a"},
        ParseCase{.name = "negative_literal", .expr = "-1", .want = "-1"},
        ParseCase{.name = "negated_negative_pair", .expr = "--1", .want = "1"},
        ParseCase{.name = "three_minus_literal", .expr = "---1", .want = "-_(1)"},
        ParseCase{.name = "negate_parens", .expr = "-(1)", .want = "-_(1)"},
        ParseCase{.name = "negative_double", .expr = "-1.5", .want = "-1.5"},
        ParseCase{.name = "negate_uint", .expr = "-1u", .want = "-_(1u)"},
        ParseCase{.name = "not_negative_literal", .expr = "!-1", .want = "!_(-1)"},
        ParseCase{.name = "binary_minus_literal", .expr = "a -1", .want = "_-_(a, 1)"},
        ParseCase{.name = "minus_negative_literal", .expr = "a - -1", .want = "_-_(a, -1)"},
        ParseCase{.name = "negative_literal_member", .expr = "-1.foo()", .want = "-1.foo()"},
        ParseCase{.name = "unary_below_member", .expr = "!a.b(c)[d]", .want = "!_(_[_](a.b(c), d))"},
        ParseCase{.name = "negate_member", .expr = "-a.b", .want = "-_(a.b)"},
        ParseCase{.name = "unary_above_mul", .expr = "-a * b", .want = "_*_(-_(a), b)"},
        ParseCase{.name = "in_operator", .expr = "'a' in m", .want = "@in(\"a\", m)"},
        ParseCase{.name = "comments", .expr = "a // first\n + b // second", .want = "_+_(a, b)"}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Terms, ParseShapeTest,
    testing::Values(ParseCase{.name = "select_chain", .expr = "a.b.c", .want = "a.b.c"},
                    ParseCase{.name = "leading_dot", .expr = ".a.b", .want = ".a.b"},
                    ParseCase{.name = "global_call", .expr = "f(a, b)", .want = "f(a, b)"},
                    ParseCase{.name = "global_call_no_args", .expr = "f()", .want = "f()"},
                    ParseCase{.name = "leading_dot_call", .expr = ".f(a)", .want = ".f(a)"},
                    ParseCase{.name = "member_call", .expr = "a.b(c).d(e, f)", .want = "a.b(c).d(e, f)"},
                    ParseCase{.name = "index_chain", .expr = "a[0][1]", .want = "_[_](_[_](a, 0), 1)"},
                    ParseCase{.name = "mixed_member", .expr = "a.b(c).d[e]", .want = "_[_](a.b(c).d, e)"},
                    ParseCase{.name = "optional_select", .expr = "a.?b", .want = "_?._(a, \"b\")"},
                    ParseCase{.name = "optional_select_chain", .expr = "a.?b.c", .want = "_?._(a, \"b\").c"},
                    ParseCase{.name = "optional_index", .expr = "a[?0]", .want = "_[?_](a, 0)"},
                    ParseCase{.name = "quoted_field", .expr = "a.`b-c`", .want = "a.`b-c`"},
                    ParseCase{.name = "quoted_optional_field", .expr = "a.?`b.c`", .want = "_?._(a, \"b.c\")"},
                    ParseCase{.name = "reserved_word_fields", .expr = "a.if.var", .want = "a.if.var"},
                    ParseCase{.name = "reserved_word_method", .expr = "a.as() || true", .want = "_||_(a.as(), true)"},
                    ParseCase{.name = "list", .expr = "[1, 2, 3]", .want = "[1, 2, 3]"},
                    ParseCase{.name = "empty_list", .expr = "[]", .want = "[]"},
                    ParseCase{.name = "list_trailing_comma", .expr = "[1, 2,]", .want = "[1, 2]"},
                    ParseCase{.name = "list_lone_comma", .expr = "[,]", .want = "[]"},
                    ParseCase{.name = "optional_elements", .expr = "[?a, b, ?c]", .want = "[?a, b, ?c]"},
                    ParseCase{.name = "map", .expr = "{1: 'a', b: c}", .want = "{1: \"a\", b: c}"},
                    ParseCase{.name = "empty_map", .expr = "{}", .want = "{}"},
                    ParseCase{.name = "map_trailing_comma", .expr = "{'a': 1,}", .want = "{\"a\": 1}"},
                    ParseCase{
                        .name = "optional_map_entry", .expr = "{?'a': x, 'b': y}", .want = "{?\"a\": x, \"b\": y}"},
                    ParseCase{.name = "message", .expr = "Foo{a: 1, ?b: x}", .want = "Foo{a: 1, ?b: x}"},
                    ParseCase{.name = "qualified_message", .expr = "a.b.Foo{}", .want = "a.b.Foo{}"},
                    ParseCase{.name = "leading_dot_message", .expr = ".a.Foo{x: 1,}", .want = ".a.Foo{x: 1}"},
                    ParseCase{.name = "message_quoted_field", .expr = "Foo{`a-b`: 1}", .want = "Foo{`a-b`: 1}"},
                    ParseCase{.name = "message_then_select", .expr = "Foo{a: 1}.a", .want = "Foo{a: 1}.a"},
                    ParseCase{.name = "nested_message_in_map", .expr = "{a.B{}: 1}", .want = "{a.B{}: 1}"},
                    ParseCase{.name = "map_select", .expr = "{'const': 1}.const", .want = "{\"const\": 1}.const"}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Literals, ParseShapeTest,
    testing::Values(
        ParseCase{.name = "int", .expr = "42", .want = "42"},
        ParseCase{.name = "int_max", .expr = "9223372036854775807", .want = "9223372036854775807"},
        ParseCase{.name = "int_min", .expr = "-9223372036854775808", .want = "-9223372036854775808"},
        ParseCase{.name = "hex", .expr = "0x10", .want = "16"},
        ParseCase{.name = "negative_hex", .expr = "-0x10", .want = "-16"},
        ParseCase{.name = "hex_int_min", .expr = "-0x8000000000000000", .want = "-9223372036854775808"},
        ParseCase{.name = "uint", .expr = "1u", .want = "1u"},
        ParseCase{.name = "uint_upper", .expr = "1U", .want = "1u"},
        ParseCase{.name = "uint_max", .expr = "18446744073709551615u", .want = "18446744073709551615u"},
        ParseCase{.name = "hex_uint", .expr = "0xFFFFFFFFFFFFFFFFu", .want = "18446744073709551615u"},
        ParseCase{.name = "leading_zeros", .expr = "007", .want = "7"},
        ParseCase{.name = "double", .expr = "1.5", .want = "1.5"},
        ParseCase{.name = "double_exponent", .expr = "1e3", .want = "1000.0"},
        ParseCase{.name = "double_leading_dot", .expr = ".5", .want = "0.5"},
        ParseCase{.name = "double_small", .expr = "1.5e-3", .want = "0.0015"},
        ParseCase{.name = "double_zero_exp", .expr = "0e+0", .want = "0.0"},
        ParseCase{.name = "negative_zero", .expr = "-0.0", .want = "-0.0"},
        ParseCase{.name = "double_max", .expr = "1.7976931348623157e308", .want = "1.7976931348623157e+308"},
        ParseCase{.name = "double_underflow_is_zero", .expr = "1e-400", .want = "0.0"},
        ParseCase{.name = "double_denormal", .expr = "4.9e-324", .want = "5e-324"},
        ParseCase{.name = "string", .expr = "'a'", .want = "\"a\""},
        ParseCase{.name = "string_escapes", .expr = R"("\t\x41\101\u00e9\U0001F600")", .want = "\"\\tAAé😀\""},
        ParseCase{.name = "raw_string", .expr = R"(r'\n')", .want = R"("\\n")"},
        ParseCase{.name = "triple_string", .expr = "'''a\nb'''", .want = R"("a\nb")"},
        ParseCase{.name = "bytes", .expr = R"(b'\xff\101')", .want = R"(b"\xffA")"},
        ParseCase{.name = "bytes_utf8", .expr = "b'é'", .want = R"(b"\xc3\xa9")"},
        ParseCase{.name = "bools_null", .expr = "[true, false, null]", .want = "[true, false, null]"}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Macros, ParseShapeTest,
    testing::Values(
        ParseCase{.name = "has", .expr = "has(a.b.c)", .want = "a.b.c~test-only"},
        ParseCase{.name = "has_quoted_field", .expr = "has(a.`b-c`)", .want = "a.`b-c`~test-only"},
        ParseCase{.name = "all",
                  .expr = "[1].all(x, x > 0)",
                  .want = "__comprehension__(iter: x, range: [1], accu: @result, init: true, "
                          "cond: @not_strictly_false(@result), step: _&&_(@result, _>_(x, 0)), "
                          "result: @result)"},
        ParseCase{.name = "exists",
                  .expr = "m.exists(k, k == 'a')",
                  .want = "__comprehension__(iter: k, range: m, accu: @result, init: false, "
                          "cond: @not_strictly_false(!_(@result)), "
                          "step: _||_(@result, _==_(k, \"a\")), result: @result)"},
        ParseCase{.name = "exists_one",
                  .expr = "l.exists_one(x, x > 0)",
                  .want = "__comprehension__(iter: x, range: l, accu: @result, init: 0, "
                          "cond: true, step: _?_:_(_>_(x, 0), _+_(@result, 1), @result), "
                          "result: _==_(@result, 1))"},
        ParseCase{.name = "map",
                  .expr = "l.map(x, x * 2)",
                  .want = "__comprehension__(iter: x, range: l, accu: @result, init: [], "
                          "cond: true, step: _+_(@result, [_*_(x, 2)]), result: @result)"},
        ParseCase{.name = "map_filter",
                  .expr = "l.map(x, x > 0, x * 2)",
                  .want = "__comprehension__(iter: x, range: l, accu: @result, init: [], "
                          "cond: true, step: _?_:_(_>_(x, 0), _+_(@result, [_*_(x, 2)]), "
                          "@result), result: @result)"},
        ParseCase{.name = "filter",
                  .expr = "l.filter(x, x > 0)",
                  .want = "__comprehension__(iter: x, range: l, accu: @result, init: [], "
                          "cond: true, step: _?_:_(_>_(x, 0), _+_(@result, [x]), @result), "
                          "result: @result)"},
        ParseCase{.name = "nested",
                  .expr = "[1].all(x, [2].exists(y, x == y))",
                  .want = "__comprehension__(iter: x, range: [1], accu: @result, init: true, "
                          "cond: @not_strictly_false(@result), step: _&&_(@result, "
                          "__comprehension__(iter: y, range: [2], accu: @result, init: false, "
                          "cond: @not_strictly_false(!_(@result)), step: _||_(@result, "
                          "_==_(x, y)), result: @result)), result: @result)"},
        ParseCase{.name = "all_two_var",
                  .expr = "m.all(k, v, v > 0)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: true, cond: @not_strictly_false(@result), "
                          "step: _&&_(@result, _>_(v, 0)), result: @result)"},
        ParseCase{.name = "exists_two_var",
                  .expr = "m.exists(k, v, v > 0)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: false, cond: @not_strictly_false(!_(@result)), "
                          "step: _||_(@result, _>_(v, 0)), result: @result)"},
        ParseCase{.name = "existsOne",
                  .expr = "m.existsOne(k, v, v > 0)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: 0, cond: true, step: _?_:_(_>_(v, 0), _+_(@result, 1), "
                          "@result), result: _==_(@result, 1))"},
        ParseCase{.name = "exists_one_two_var",
                  .expr = "m.exists_one(k, v, v > 0)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: 0, cond: true, step: _?_:_(_>_(v, 0), _+_(@result, 1), "
                          "@result), result: _==_(@result, 1))"},
        ParseCase{.name = "transformList",
                  .expr = "l.transformList(i, v, v * i)",
                  .want = "__comprehension__(iter: i, iter2: v, range: l, accu: @result, "
                          "init: [], cond: true, step: _+_(@result, [_*_(v, i)]), "
                          "result: @result)"},
        ParseCase{.name = "transformList_filter",
                  .expr = "l.transformList(i, v, i > 0, v)",
                  .want = "__comprehension__(iter: i, iter2: v, range: l, accu: @result, "
                          "init: [], cond: true, step: _?_:_(_>_(i, 0), _+_(@result, [v]), "
                          "@result), result: @result)"},
        ParseCase{.name = "transformMap",
                  .expr = "m.transformMap(k, v, v + 1)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: {}, cond: true, step: cel.@mapInsert(@result, k, _+_(v, 1)), "
                          "result: @result)"},
        ParseCase{.name = "transformMap_filter",
                  .expr = "m.transformMap(k, v, v > 0, v)",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: {}, cond: true, step: _?_:_(_>_(v, 0), "
                          "cel.@mapInsert(@result, k, v), @result), result: @result)"},
        ParseCase{.name = "transformMapEntry",
                  .expr = "m.transformMapEntry(k, v, {v: k})",
                  .want = "__comprehension__(iter: k, iter2: v, range: m, accu: @result, "
                          "init: {}, cond: true, step: cel.@mapInsert(@result, {v: k}), "
                          "result: @result)"},
        ParseCase{.name = "bind",
                  .expr = "cel.bind(x, 1, x + 1)",
                  .want = "__comprehension__(iter: #unused, range: [], accu: x, init: 1, "
                          "cond: false, step: x, result: _+_(x, 1))"},
        ParseCase{.name = "bind_other_target_is_a_call", .expr = "other.bind(x, 1, 2)", .want = "other.bind(x, 1, 2)"},
        ParseCase{.name = "optMap",
                  .expr = "o.optMap(v, v + 1)",
                  .want = "_?_:_(o.hasValue(), optional.of(__comprehension__(iter: #unused, "
                          "range: [], accu: v, init: o.value(), cond: false, step: v, "
                          "result: _+_(v, 1))), optional.none())"},
        ParseCase{.name = "optFlatMap",
                  .expr = "o.optFlatMap(v, v.?x)",
                  .want = "_?_:_(o.hasValue(), __comprehension__(iter: #unused, range: [], "
                          "accu: v, init: o.value(), cond: false, step: v, "
                          "result: _?._(v, \"x\")), optional.none())"},
        ParseCase{.name = "sortBy",
                  .expr = "l.sortBy(x, -x)",
                  .want = "__comprehension__(iter: #unused, range: [], accu: @__sortBy_input__, "
                          "init: l, cond: false, step: @__sortBy_input__, "
                          "result: @__sortBy_input__.@sortByAssociatedKeys(__comprehension__("
                          "iter: x, range: @__sortBy_input__, accu: @result, init: [], "
                          "cond: true, step: _+_(@result, [-_(x)]), result: @result)))"},
        ParseCase{.name = "wrong_arity_is_a_call", .expr = "l.all(x)", .want = "l.all(x)"},
        ParseCase{.name = "global_all_is_a_call", .expr = "all(l, x, p)", .want = "all(l, x, p)"},
        ParseCase{.name = "receiver_has_is_a_call", .expr = "a.has(b.c)", .want = "a.has(b.c)"},
        ParseCase{.name = "leading_dot_has_is_a_call", .expr = ".has(a.b)", .want = ".has(a.b)"}),
    CaseName);

INSTANTIATE_TEST_SUITE_P(
    Errors, ParseShapeTest,
    testing::Values(ParseCase{.name = "trailing_operator",
                              .expr = "x + ",
                              .want = "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting "
                                      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                                      "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x + \n | ....^"},
                    ParseCase{.name = "dra_syntax_error",
                              .expr = "?!",
                              .want = "ERROR: <input>:1:1: Syntax error: mismatched input '?' expecting "
                                      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                                      "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ?!\n | ^"},
                    ParseCase{.name = "extra_token",
                              .expr = "1 2",
                              .want = "ERROR: <input>:1:3: Syntax error: mismatched input '2' expecting "
                                      "<EOF>\n | 1 2\n | ..^"},
                    ParseCase{.name = "unclosed_paren",
                              .expr = "(1",
                              .want = "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' "
                                      "expecting ')'\n | (1\n | ..^"},
                    ParseCase{.name = "unclosed_list",
                              .expr = "[1 2]",
                              .want = "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting "
                                      "{',', ']'}\n | [1 2]\n | ...^"},
                    ParseCase{.name = "bad_argument_list",
                              .expr = "f(1 2)",
                              .want = "ERROR: <input>:1:5: Syntax error: mismatched input '2' expecting "
                                      "{')', ','}\n | f(1 2)\n | ....^"},
                    ParseCase{.name = "middle_of_conditional_is_not_expr",
                              .expr = "a ? b ? c : d : e",
                              .want = "ERROR: <input>:1:7: Syntax error: mismatched input '?' expecting "
                                      "':'\n | a ? b ? c : d : e\n | ......^"},
                    ParseCase{.name = "keyword_field",
                              .expr = "a.true",
                              .want = "ERROR: <input>:1:3: Syntax error: mismatched input 'true' "
                                      "expecting IDENTIFIER\n | a.true\n | ..^"},
                    ParseCase{.name = "in_is_not_a_field",
                              .expr = "a.in",
                              .want = "ERROR: <input>:1:3: Syntax error: mismatched input 'in' "
                                      "expecting IDENTIFIER\n | a.in\n | ..^"},
                    ParseCase{.name = "not_then_negate",
                              .expr = "!-a",
                              .want = "ERROR: <input>:1:3: Syntax error: mismatched input 'a' expecting "
                                      "{NUM_FLOAT, NUM_INT}\n | !-a\n | ..^"},
                    ParseCase{.name = "negate_then_not",
                              .expr = "-!a",
                              .want = "ERROR: <input>:1:2: Syntax error: mismatched input '!' expecting "
                                      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                                      "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -!a\n | .^"},
                    ParseCase{.name = "quoted_method_name",
                              .expr = "a.`b`()",
                              .want = "ERROR: <input>:1:6: Syntax error: mismatched input '(' expecting "
                                      "<EOF>\n | a.`b`()\n | .....^"},
                    ParseCase{.name = "quoted_ident_is_not_a_variable",
                              .expr = "`a`",
                              .want = "ERROR: <input>:1:1: Syntax error: mismatched input '`a`' expecting "
                                      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                                      "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | `a`\n | ^"},
                    ParseCase{.name = "trailing_comma_in_call",
                              .expr = "f(1,)",
                              .want = "ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting "
                                      "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                                      "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | f(1,)\n | ....^"},
                    ParseCase{.name = "lexer_error",
                              .expr = "a = 1",
                              .want = "ERROR: <input>:1:3: Syntax error: token recognition error at: '='\n"
                                      " | a = 1\n | ..^"},
                    ParseCase{.name = "unterminated_string",
                              .expr = "x == 'abc",
                              .want = "ERROR: <input>:1:6: Syntax error: unterminated string literal\n"
                                      " | x == 'abc\n | .....^"},
                    ParseCase{.name = "invalid_escape",
                              .expr = "'a\\qb'",
                              .want = "ERROR: <input>:1:3: Syntax error: invalid escape sequence '\\q'\n"
                                      " | 'a\\qb'\n | ..^"},
                    ParseCase{.name = "surrogate_escape",
                              .expr = "x + '\\uD800'",
                              .want = "ERROR: <input>:1:5: invalid unicode code point\n"
                                      " | x + '\\uD800'\n | ....^"},
                    ParseCase{.name = "int_overflow",
                              .expr = "9223372036854775808",
                              .want = "ERROR: <input>:1:1: invalid int literal\n"
                                      " | 9223372036854775808\n | ^"},
                    ParseCase{.name = "negative_int_overflow",
                              .expr = "-9223372036854775809",
                              .want = "ERROR: <input>:1:1: invalid int literal\n"
                                      " | -9223372036854775809\n | ^"},
                    ParseCase{.name = "hex_overflow",
                              .expr = "0x8000000000000000",
                              .want = "ERROR: <input>:1:1: invalid int literal\n"
                                      " | 0x8000000000000000\n | ^"},
                    ParseCase{.name = "uint_overflow",
                              .expr = "18446744073709551616u",
                              .want = "ERROR: <input>:1:1: invalid uint literal\n"
                                      " | 18446744073709551616u\n | ^"},
                    ParseCase{.name = "double_overflow",
                              .expr = "1e999",
                              .want = "ERROR: <input>:1:1: invalid double literal\n | 1e999\n | ^"},
                    ParseCase{.name = "reserved_identifier",
                              .expr = "if",
                              .want = "ERROR: <input>:1:1: reserved identifier: if\n | if\n | ^"},
                    ParseCase{.name = "reserved_function",
                              .expr = "1 + var(2)",
                              .want = "ERROR: <input>:1:5: reserved identifier: var\n"
                                      " | 1 + var(2)\n | ....^"},
                    ParseCase{.name = "reserved_leading_dot",
                              .expr = ".while",
                              .want = "ERROR: <input>:1:1: reserved identifier: while\n | .while\n | ^"},
                    ParseCase{.name = "several_issues",
                              .expr = "[if, 9223372036854775808, let]",
                              .want = "ERROR: <input>:1:2: reserved identifier: if\n"
                                      " | [if, 9223372036854775808, let]\n | .^\n"
                                      "ERROR: <input>:1:6: invalid int literal\n"
                                      " | [if, 9223372036854775808, let]\n | .....^\n"
                                      "ERROR: <input>:1:27: reserved identifier: let\n"
                                      " | [if, 9223372036854775808, let]\n | ..........................^"},
                    ParseCase{.name = "macro_simple_name",
                              .expr = "[].all(1, true)",
                              .want = "ERROR: <input>:1:8: argument must be a simple name\n"
                                      " | [].all(1, true)\n | .......^"},
                    ParseCase{.name = "macro_select_is_not_a_name",
                              .expr = "[].exists(x.y, true)",
                              .want = "ERROR: <input>:1:12: argument must be a simple name\n"
                                      " | [].exists(x.y, true)\n | ...........^"},
                    ParseCase{.name = "map_not_an_identifier",
                              .expr = "[].map(1, 2)",
                              .want = "ERROR: <input>:1:8: argument is not an identifier\n"
                                      " | [].map(1, 2)\n | .......^"},
                    ParseCase{.name = "filter_not_an_identifier",
                              .expr = "[].filter('x', true)",
                              .want = "ERROR: <input>:1:11: argument is not an identifier\n"
                                      " | [].filter('x', true)\n | ..........^"},
                    ParseCase{.name = "has_needs_select",
                              .expr = "has(a)",
                              .want = "ERROR: <input>:1:5: invalid argument to has() macro\n"
                                      " | has(a)\n | ....^"},
                    ParseCase{.name = "has_of_optional_select",
                              .expr = "has(a.?b)",
                              .want = "ERROR: <input>:1:6: invalid argument to has() macro\n"
                                      " | has(a.?b)\n | .....^"},
                    ParseCase{.name = "accumulator_name",
                              .expr = "[].all(__result__, true)",
                              .want = "ERROR: <input>:1:8: iteration variable overwrites accumulator "
                                      "variable\n | [].all(__result__, true)\n | .......^"},
                    ParseCase{.name = "two_var_simple_name",
                              .expr = "[].all(i, 1, true)",
                              .want = "ERROR: <input>:1:11: iteration variable must be a simple name\n"
                                      " | [].all(i, 1, true)\n | ..........^"},
                    ParseCase{.name = "two_var_duplicate",
                              .expr = "[].transformList(i, i, i)",
                              .want = "ERROR: <input>:1:21: duplicate variable name: i\n"
                                      " | [].transformList(i, i, i)\n | ....................^"},
                    ParseCase{.name = "bind_simple_name",
                              .expr = "cel.bind(a.b, 1, 2)",
                              .want = "ERROR: <input>:1:11: cel.bind() variable names must be simple "
                                      "identifiers\n | cel.bind(a.b, 1, 2)\n | ..........^"},
                    ParseCase{.name = "optMap_simple_name",
                              .expr = "o.optMap(1, 2)",
                              .want = "ERROR: <input>:1:10: optMap() variable name must be a simple "
                                      "identifier\n | o.optMap(1, 2)\n | .........^"},
                    ParseCase{.name = "sortBy_target",
                              .expr = "1.sortBy(x, x)",
                              .want = "ERROR: <input>:1:1: sortBy can only be applied to a list, "
                                      "identifier, comprehension, call or select expression\n"
                                      " | 1.sortBy(x, x)\n | ^"},
                    ParseCase{.name = "multiline_position",
                              .expr = "a &&\n  b +\n",
                              .want = "ERROR: <input>:3:1: Syntax error: mismatched input '<EOF>' "
                                      "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                                      "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | \n | ^"},
                    ParseCase{.name = "second_line_caret",
                              .expr = "a &&\n\tb c",
                              .want = "ERROR: <input>:2:4: Syntax error: mismatched input 'c' expecting "
                                      "<EOF>\n |  b c\n | ...^"},
                    ParseCase{.name = "wide_caret",
                              .expr = "'日本' + ",
                              .want = "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' "
                                      "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                                      "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
                                      " | '日本' + \n | ．．．．．．．＾"},
                    ParseCase{.name = "invalid_utf8",
                              .expr = "'\xff'",
                              .want = "ERROR: <input>:1:2: Syntax error: invalid UTF-8 in expression\n"
                                      " | '\xff'\n | ．＾"}),
    CaseName);

TEST(ParserTest, OptionalSyntaxCanBeDisabled) {
  ParseOptions options;
  options.enable_optional_syntax = false;
  EXPECT_EQ(ParseToString("a.?b", options), "ERROR: <input>:1:2: unsupported syntax '.?'\n | a.?b\n | .^");
  EXPECT_EQ(ParseToString("a[?b]", options), "ERROR: <input>:1:2: unsupported syntax '[?'\n | a[?b]\n | .^");
  EXPECT_EQ(ParseToString("[?a]", options), "ERROR: <input>:1:2: unsupported syntax '?'\n | [?a]\n | .^");
  EXPECT_EQ(ParseToString("{?a: b}", options), "ERROR: <input>:1:2: unsupported syntax '?'\n | {?a: b}\n | .^");
  EXPECT_EQ(ParseToString("A{?a: b}", options), "ERROR: <input>:1:3: unsupported syntax '?'\n | A{?a: b}\n | ..^");
}

TEST(ParserTest, MacroLibrariesCanBeDisabled) {
  ParseOptions options;
  options.enable_standard_macros = false;
  EXPECT_EQ(ParseToString("has(a.b) && l.all(x, x)", options), "_&&_(has(a.b), l.all(x, x))");
  EXPECT_EQ(ParseToString("l.all(k, v, v)", options).substr(0, 17), "__comprehension__");

  options = ParseOptions();
  options.enable_two_var_comprehensions = false;
  EXPECT_EQ(ParseToString("l.all(k, v, v)", options), "l.all(k, v, v)");
  options.enable_bindings = false;
  EXPECT_EQ(ParseToString("cel.bind(x, 1, x)", options), "cel.bind(x, 1, x)");
  options.enable_optional_macros = false;
  EXPECT_EQ(ParseToString("o.optMap(x, x)", options), "o.optMap(x, x)");
  options.enable_lists_macros = false;
  EXPECT_EQ(ParseToString("l.sortBy(x, x)", options), "l.sortBy(x, x)");
}

TEST(ParserTest, RejectsInvalidOptions) {
  ParseOptions options;
  options.max_recursion_depth = 0;
  auto result = Parse("1", options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("max_recursion_depth"), std::string::npos);

  options.max_recursion_depth = kMaxRecursionDepthLimit + 1;
  EXPECT_EQ(Parse("1", options).status().code(), StatusCode::kInvalidArgument);

  options = ParseOptions();
  options.expression_size_code_point_limit = 0;
  EXPECT_EQ(Parse("1", options).status().code(), StatusCode::kInvalidArgument);

  options = ParseOptions();
  options.error_reporting_limit = 0;
  EXPECT_EQ(Parse("1", options).status().code(), StatusCode::kInvalidArgument);
}

// ---- ids, positions, macro calls -------------------------------------------

TEST(ParserTest, IdsFollowCelGoOrder) {
  struct Case {
    std::string expr;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"a + b", "_+_(a#1, b#3)#2"},
      {"a || b", "_||_(a#1, b#2)#3"},
      {"f(x)", "f(x#2)#1"},
      {"a.f(x)", "a#1.f(x#3)#2"},
      {"a.b", "a#1.b#2"},
      {"a[i]", "_[_](a#1, i#3)#2"},
      {"-x", "-_(x#2)#1"},
      {"[1, 2]", "[1#2, 2#3]#1"},
      {"{'k': v}", "{\"k\"#3#2: v#4}#1"},
      {"M{f: 1}", "M{f#2: 1#3}#1"},
      {"a ? b : c", "_?_:_(a#1, b#3, c#4)#2"},
      {"a.?b", "_?._(a#1, \"b\"#2)#3"},
  };
  for (const Case& c : cases) {
    auto result = Parse(c.expr);
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(result->expr.has_value()) << FormatIssues(c.expr, result->issues);
    EXPECT_EQ(DebugString(result->expr->expr, /*with_ids=*/true), c.want) << c.expr;
  }
}

TEST(ParserTest, PositionsPointAtCelGoTokens) {
  const std::string source = "a.b(c) +\n  -1 < d[e] && 'é'.f == 'x'";
  auto result = Parse(source);
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->expr.has_value());
  const ParsedExpr& parsed = *result->expr;
  auto pos = [&](int64_t id) {
    auto p = parsed.source_info.GetPosition(id);
    EXPECT_TRUE(p.has_value()) << id;
    return p ? std::to_string(p->line) + ":" + std::to_string(p->column) : "none";
  };
  // `&&` at the root, then `<`, `+`, the call b(...) at '(' etc.
  const Expr& root = parsed.expr;
  EXPECT_EQ(root.call().function, op::kLogicalAnd);
  EXPECT_EQ(pos(root.id()), "2:13");
  const Expr& less = root.call().args[0];
  EXPECT_EQ(pos(less.id()), "2:6");
  const Expr& plus = less.call().args[0];
  EXPECT_EQ(pos(plus.id()), "1:8");
  EXPECT_EQ(pos(plus.call().args[0].id()), "1:4");  // '(' of b(c)
  EXPECT_EQ(pos(plus.call().args[1].id()), "2:3");  // the literal -1 starts at its sign
  const Expr& index = less.call().args[1];
  EXPECT_EQ(pos(index.id()), "2:9");  // '['
  const Expr& eq = root.call().args[1];
  EXPECT_EQ(pos(eq.id()), "2:22");                                 // columns count code points: 'é' is one
  EXPECT_EQ(pos(eq.call().args[0].id()), "2:19");                  // '.' of .f
  EXPECT_EQ(parsed.source_info.GetPosition(eq.id())->offset, 31);  // bytes
}

TEST(ParserTest, MacroExpansionNodesSitAtTheCall) {
  const std::string source = "x &&\n  [1].all(v, v > 0)";
  auto result = Parse(source);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  const Expr& comprehension = result->expr->expr.call().args[1];
  ASSERT_EQ(comprehension.kind(), ExprKind::kComprehension);
  const SourceInfo& info = result->expr->source_info;
  EXPECT_EQ(info.GetPosition(comprehension.id())->column, 10);  // the '(' of all(
  EXPECT_EQ(info.GetPosition(comprehension.comprehension().accu_init->id())->column, 10);
  // Arguments keep their own positions.
  const Expr& step = *comprehension.comprehension().loop_step;
  EXPECT_EQ(info.GetPosition(step.call().args[1].id())->column, 16);
  CheckInvariants(*result->expr, source);
}

TEST(ParserTest, RecordsMacroCallsWhenAsked) {
  ParseOptions options;
  options.populate_macro_calls = true;
  const std::string source = "[1].all(x, [2].exists(y, y == x)) && has(a.b)";
  auto result = Parse(source, options);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  const SourceInfo& info = result->expr->source_info;
  ASSERT_EQ(info.macro_calls().size(), 3u);
  const Expr& outer = result->expr->expr.call().args[0];
  const Expr* outer_call = info.GetMacroCall(outer.id());
  ASSERT_NE(outer_call, nullptr);
  EXPECT_EQ(DebugString(*outer_call), "[1].all(x, <unspecified>)");
  // The placeholder carries the id of the inner expansion, whose call is recorded too.
  const int64_t inner_id = outer_call->call().args[1].id();
  const Expr* inner_call = info.GetMacroCall(inner_id);
  ASSERT_NE(inner_call, nullptr);
  EXPECT_EQ(DebugString(*inner_call), "[2].exists(y, _==_(y, x))");
  const Expr& has = result->expr->expr.call().args[1];
  ASSERT_NE(info.GetMacroCall(has.id()), nullptr);
  EXPECT_EQ(DebugString(*info.GetMacroCall(has.id())), "has(a.b)");

  EXPECT_TRUE(Parse(source)->expr->source_info.macro_calls().empty());
}

TEST(ParserTest, OptMapCopiesTheTargetWithFreshIds) {
  const std::string source = "a.b.optMap(v, v)";
  auto result = Parse(source);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  CheckInvariants(*result->expr, source);
  const Expr& root = result->expr->expr;
  const Expr& has_value_target = *root.call().args[0].call().target;
  const Expr& value_target = *root.call().args[1].call().args[0].comprehension().accu_init->call().target;
  EXPECT_EQ(DebugString(has_value_target), DebugString(value_target));
  EXPECT_NE(has_value_target.id(), value_target.id());
  const SourceInfo& info = result->expr->source_info;
  EXPECT_EQ(info.GetPosition(has_value_target.id()), info.GetPosition(value_target.id()));
}

// ---- limits ----------------------------------------------------------------

// Returns `prefix` followed by `n` copies of `s` (built with append: g++ 12
// warns falsely about operator+ on temporaries).
std::string Repeat(std::string_view s, size_t n, std::string_view prefix = "") {
  std::string out(prefix);
  out.reserve(prefix.size() + s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(ParserLimitsTest, NestingUpToTheLimitParses) {
  // The top level is one level; each parenthesis adds one.
  const std::string ok = Repeat("(", 249) + "x" + Repeat(")", 249);
  EXPECT_EQ(ParseToString(ok), "x");
  const std::string deep = Repeat("(", 250) + "x" + Repeat(")", 250);
  auto result = Parse(deep);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->issues.size(), 1u);
  EXPECT_EQ(result->issues[0].message, "expression recursion limit exceeded: 250");
  EXPECT_EQ(result->issues[0].column, 251);
}

TEST(ParserLimitsTest, TenThousandNestedParensIsAnIssue) {
  const std::string source = Repeat("(", 10'000) + "x" + Repeat(")", 10'000);
  auto result = Parse(source);
  ASSERT_TRUE(result.ok());
  ASSERT_FALSE(result->expr.has_value());
  EXPECT_EQ(result->issues[0].message, "expression recursion limit exceeded: 250");
}

TEST(ParserLimitsTest, DeepListsMapsCallsAndIndexesAreIssues) {
  for (const auto& [open, close] : std::vector<std::pair<std::string, std::string>>{{"[", "]"},
                                                                                    {"{1: ", "}"},
                                                                                    {"f(", ")"},
                                                                                    {"a[", "]"},
                                                                                    {"-(", ")"},
                                                                                    {"!(", ")"},
                                                                                    {"x ? y : ", ""},
                                                                                    {"[?", "]"},
                                                                                    {"M{f: ", "}"}}) {
    const std::string source = Repeat(open, 5'000) + "x" + Repeat(close, 5'000);
    auto result = Parse(source);
    ASSERT_TRUE(result.ok());
    ASSERT_EQ(result->issues.size(), 1u) << open;
    EXPECT_EQ(result->issues[0].message, "expression recursion limit exceeded: 250") << open;
  }
}

TEST(ParserLimitsTest, LeftAssociativeChainsCountTowardTheLimit) {
  for (std::string_view op : {" + ", " * ", " < ", "."}) {
    const std::string step = std::string(op) + "a";
    std::string source = Repeat(step, 240, "a");
    EXPECT_TRUE(Parse(source)->issues.empty()) << op;
    source = Repeat(step, 300, "a");
    auto result = Parse(source);
    ASSERT_EQ(result->issues.size(), 1u) << op;
    EXPECT_EQ(result->issues[0].message, "expression recursion limit exceeded: 250");
  }
  EXPECT_FALSE(Parse(Repeat("[0]", 300, "a"))->issues.empty());
  EXPECT_FALSE(Parse(Repeat(".f()", 300, "a"))->issues.empty());
}

TEST(ParserLimitsTest, LogicalChainsAreBalancedAndUnlimited) {
  const std::string source = Repeat(" || a", 15'000, "a");
  auto result = Parse(source);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  EXPECT_LE(TreeDepth(result->expr->expr), 17);
  const std::string ands = Repeat(" && a", 15'000, "a");
  result = Parse(ands);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  EXPECT_LE(TreeDepth(result->expr->expr), 17);
}

TEST(ParserLimitsTest, UnaryRunsAreLoops) {
  ParseOptions options;
  options.expression_size_code_point_limit = 2'000'000;
  const std::string nots = Repeat("!", 1'000'000) + "x";
  EXPECT_EQ(ParseToString(nots, options), "x");
  const std::string negs = Repeat("-", 1'000'001) + "x";
  EXPECT_EQ(ParseToString(negs, options), "-_(x)");
}

TEST(ParserLimitsTest, DoubleUnderflowIsZero) {
  // Go's ParseFloat (and so cel-go) rounds a too-small literal to zero.
  EXPECT_EQ(ParseToString(Repeat("0", 400, "0.") + "1"), "0.0");
  EXPECT_EQ(ParseToString("-1e-400"), "-0.0");
}

TEST(ParserLimitsTest, ExpressionSizeLimit) {
  const std::string source = Repeat("!", 1 << 20) + "x";
  auto result = Parse(source);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->issues.size(), 1u);
  EXPECT_EQ(FormatIssues(source, result->issues),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 1048577, "
            "limit 100000");
  // The limit counts code points, not bytes.
  ParseOptions options;
  options.expression_size_code_point_limit = 5;
  EXPECT_TRUE(Parse("'ééé'", options)->issues.empty());
  EXPECT_FALSE(Parse("'éééé'", options)->issues.empty());
}

TEST(ParserLimitsTest, CopyingMacrosCannotExplode) {
  // Each optMap copies its target, which holds the previous expansion.
  const std::string chain = Repeat(".optMap(a, a)", 40, "x");
  ParseOptions options;
  options.populate_macro_calls = true;
  auto result = Parse(chain, options);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->issues.size(), 1u);
  EXPECT_EQ(result->issues[0].message, "expression is too large after macro expansion (more than 1000000 nodes)");
  // A few are fine.
  result = Parse(Repeat(".optMap(a, a)", 5, "x"), options);
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  EXPECT_EQ(result->expr->source_info.macro_calls().size(), 5u);
}

TEST(ParserLimitsTest, ErrorReportingLimit) {
  std::string source = "[if";
  for (int i = 0; i < 150; ++i) source += ", if";
  source += "]";
  auto result = Parse(source);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->issues.size(), 101u);
  EXPECT_EQ(result->issues.back().message, "More than 100 syntax errors");
}

TEST(ParserLimitsTest, GarbageNeverCrashes) {
  // Deterministic pseudo-random token soup: every parse ends in a tree or issues.
  const std::vector<std::string> pieces = {"a",     "1", "'s'", "(",  ")",  "[",  "]",  "{",     "}",  ".",
                                           ",",     "?", ":",   "-",  "!",  "+",  "&&", "||",    "in", "has(",
                                           ".all(", "x", "`f`", "[?", ".?", "==", "1u", "b\"\"", " "};
  uint32_t state = 12345;
  for (int round = 0; round < 2000; ++round) {
    std::string source;
    const int length = static_cast<int>(state % 40);
    for (int i = 0; i < length; ++i) {
      state = state * 1664525u + 1013904223u;
      source += pieces[(state >> 8) % pieces.size()];
    }
    state = state * 1664525u + 1013904223u;
    auto result = Parse(source);
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->expr.has_value(), result->issues.empty()) << source;
    if (result->expr) CheckInvariants(*result->expr, source);
    if (!result->issues.empty()) {
      EXPECT_FALSE(FormatIssues(source, result->issues).empty());
    }
  }
}

// ---- AST values ------------------------------------------------------------

TEST(AstTest, ExprIsACopyableValue) {
  auto result = Parse("[1, {'a': M{f: x.?y}}].all(v, has(v.z) && v[0] in [1u, 2.5, b'x'])");
  ASSERT_TRUE(result.ok() && result->expr.has_value());
  const Expr& original = result->expr->expr;
  Expr copy = original;
  EXPECT_EQ(copy, original);
  EXPECT_EQ(DebugString(copy, true), DebugString(original, true));
  copy.set_id(999);
  EXPECT_NE(copy, original);
  Expr moved = std::move(copy);
  EXPECT_EQ(moved.id(), 999);
}

TEST(AstTest, ConstantAccessors) {
  EXPECT_EQ(Constant().kind(), Constant::Kind::kNull);
  EXPECT_TRUE(Constant::Bool(true).bool_value());
  EXPECT_EQ(Constant::Int(-3).int_value(), -3);
  EXPECT_EQ(Constant::Uint(3).uint_value(), 3u);
  EXPECT_EQ(Constant::Double(2.5).double_value(), 2.5);
  EXPECT_EQ(Constant::String("s").string_value(), "s");
  EXPECT_EQ(Constant::Bytes("b").bytes_value(), "b");
  EXPECT_NE(Constant::String("x"), Constant::Bytes("x"));
  EXPECT_EQ(ConstantToString(Constant::Double(1e300)), "1e+300");
  EXPECT_EQ(ConstantToString(Constant::String("a\"\\\n\x01")), "\"a\\\"\\\\\\n\\x01\"");
}

TEST(AstTest, CheckedAccessAbortsOnTheWrongKind) {
  Expr ident(1, IdentExpr{"x"});
  EXPECT_EQ(ident.kind(), ExprKind::kIdent);
  EXPECT_EQ(ExprKindName(ident.kind()), "ident");
  EXPECT_DEATH((void)ident.call(), "bad AST access");
  EXPECT_DEATH((void)Constant::Int(1).string_value(), "bad AST access");
}

TEST(IssueTest, FormatsSortedByPosition) {
  const std::string source = "ab\ncd";
  const std::vector<Issue> issues = {{2, 2, "second"}, {1, 1, "first"}, {0, 0, "nowhere"}};
  EXPECT_EQ(FormatIssues(source, issues),
            "ERROR: <input>:-1:0: nowhere\n"
            "ERROR: <input>:1:1: first\n | ab\n | ^\n"
            "ERROR: <input>:2:2: second\n | cd\n | .^");
  EXPECT_EQ(FormatIssues(source, std::vector<Issue>{{1, 3, "m"}}, "sel.cel"), "ERROR: sel.cel:1:3: m\n | ab\n | ..^");
}

}  // namespace
}  // namespace dra::cel
