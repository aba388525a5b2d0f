// The CEL parser: source text -> ParsedExpr (an Expr tree plus SourceInfo),
// with macros expanded, following cel-go's parser (parser/parser.go) for the
// shape of the tree, the names of operators, and its error messages.
//
// Grammar (cel-spec langdef.md, as cel-go implements it), loosest first:
//   Expr     = Or ["?" Or ":" Expr]                  right-associative
//   Or       = And {"||" And}                        balanced tree, as cel-go
//   And      = Rel {"&&" Rel}                        balanced tree, as cel-go
//   Rel      = Add {("<"|"<="|">="|">"|"=="|"!="|"in") Add}   left-assoc.
//   Add      = Mul {("+"|"-") Mul}                   left-associative
//   Mul      = Unary {("*"|"/"|"%") Unary}           left-associative
//   Unary    = Member | "!" {"!"} Member | "-" {"-"} Member
//   Member   = Primary {"." ["?"] FIELD | "." IDENT "(" [Args] ")"
//                       | "[" ["?"] Expr "]"}
//   Primary  = ["."] IDENT ["(" [Args] ")"] | "(" Expr ")"
//            | "[" [["?"] Expr {"," ["?"] Expr}] [","] "]"
//            | "{" [["?"] Expr ":" Expr {"," ...}] [","] "}"
//            | ["."] IDENT {"." IDENT} "{" [["?"] FIELD ":" Expr {"," ...}] [","] "}"
//            | ["-"] NUM_INT | NUM_UINT | ["-"] NUM_FLOAT | STRING | BYTES
//            | "true" | "false" | "null"
// FIELD is an identifier or a `quoted` name. As in cel-go: an even run of `!`
// or `-` cancels out and an odd run becomes one call; `-` directly before a
// number literal is part of the literal (so -9223372036854775808 parses); the
// reserved words (as, break, const, continue, else, for, function, if, import,
// let, loop, package, namespace, return, var, void, while) may be field and
// method names but not variables or global functions.
//
// Errors: problems in the source come back as issues in an OK ParseResult,
// because a syntax error is an expected answer about the expression; a
// failed Status would mean a broken input or invariant. Parsing stops at the
// first syntax error ("Syntax error: ..." messages in ANTLR's words); other
// problems (an int literal out of range, a reserved identifier, a malformed
// macro call) are collected and parsing goes on, up to error_reporting_limit
// issues.
//
// Limits, so hostile input cannot exhaust time or stack:
//   - sources longer than expression_size_code_point_limit code points are
//     rejected before lexing;
//   - the parser counts its nesting before it recurses: every nested
//     expression (parentheses, arguments, elements, entries, the branches of
//     ?:) and every left-associative operator or member step (`+`, `<`, `.f`,
//     `[i]`, `.f()`) adds one level, and more than max_recursion_depth levels
//     is an issue ("expression recursion limit exceeded: 250"). Runs of `!`,
//     `-`, `&&` and `||` add none (they are loops, and && and || build
//     balanced trees), so the depth of the resulting tree stays within a small
//     multiple of the limit;
//   - macro expansions that copy a subtree (optMap and optFlatMap copy their
//     target) may not grow the tree past 1,000,000 nodes, so chained calls
//     cannot double it without bound.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cel/parser/ast.h"
#include "cel/parser/issue.h"

namespace dra::cel {

// The largest max_recursion_depth accepted; deeper trees would strain the
// stack of the recursive passes that follow parsing.
inline constexpr int kMaxRecursionDepthLimit = 1000;

struct ParseOptions {
  // Nesting limit (see above). cel-go's default is 250.
  int max_recursion_depth = 250;
  // Longest accepted source, in code points. cel-go's default is 100,000.
  int expression_size_code_point_limit = 100'000;
  // Most issues reported before parsing gives up. cel-go's default is 100.
  int error_reporting_limit = 100;
  // Accept `.?f`, `[?i]`, `[?e]`, `{?k: v}` and `M{?f: v}`. On in Kubernetes.
  bool enable_optional_syntax = true;
  // Record each expanded macro call in SourceInfo::macro_calls().
  bool populate_macro_calls = false;
  // Macro libraries to expand. The defaults are the Kubernetes DRA selector
  // environment, which has all of them (see macros.h).
  bool enable_standard_macros = true;
  bool enable_two_var_comprehensions = true;
  bool enable_bindings = true;
  bool enable_optional_macros = true;
  bool enable_lists_macros = true;
};

struct ParseResult {
  // Set exactly when `issues` is empty.
  std::optional<ParsedExpr> expr;
  std::vector<Issue> issues;
};

// Parses `source`. The result is OK whenever the options are valid: syntax
// errors and other problems with the source are in `issues` (render them with
// FormatIssues(source, issues)). Returns kInvalidArgument if `options` is out
// of range (a limit below 1, or max_recursion_depth above
// kMaxRecursionDepthLimit). Thread-safe; keeps no reference to `source`.
StatusOr<ParseResult> Parse(std::string_view source, const ParseOptions& options = {});

}  // namespace dra::cel
