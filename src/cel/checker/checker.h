// The CEL type checker: ParsedExpr + CheckerEnv -> a type for every expression
// id, the overloads each call may bind to, and compile issues.
//
// Follows cel-go's checker (checker/checker.go, checker/types.go) for the
// typing rules and the wording of its messages:
//
//   undeclared reference to 'x' (in container '')
//   found no matching overload for '_+_' applied to '(int, string)'
//   undefined field 'allowMultipleAllocations'
//   type 'int' does not support field selection
//   expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)
//   expected type 'bool' but found 'int'
//
// and for the AST validators Kubernetes adds after a successful check
// (cel-go's cel/validator.go), each an option of the environment:
//   - homogeneous aggregate literals: the elements of a list literal, and the
//     keys and the values of a map literal, must have equivalent types
//     ("expected type 'int' but found 'string'"), except inside a format() call;
//   - constant regular expressions given to matches() must compile;
//   - constant '...'.format([...]) calls must pass the legacy formatter's
//     compile-time check (lib/format.h).
//
// Generic overloads (`_==_(A, A)`, `size(list(A))`) are instantiated with
// fresh type variables per call and unified as cel-go does; after checking,
// variables still unbound become dyn. Macros arrive expanded (cel/parser/macros.h): the
// checker types a comprehension's accumulator and iteration variables in
// nested scopes, so `[1, 2].map(x, x + 1)` is list(int).
//
// Issues come back inside the result, since a type error is an expected
// answer about the expression (a failed Status would mean a broken input or
// invariant); render them with FormatIssues(source, result.issues). As in
// cel-go, the validators run only when the check itself found no issue.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cel/checker/types.h"
#include "cel/parser/ast.h"
#include "cel/parser/issue.h"

namespace dra::cel {

// One overload of a function, as the checker sees it.
struct OverloadDecl {
  std::string id;  // cel-go's overload id, e.g. "add_int64", "size_list"
  bool member = false;
  // Receiver first for member overloads. Type parameters (Type::Param with
  // a one-letter name) make the overload generic.
  std::vector<Type> params;
  Type result;
};

struct FunctionDecl {
  std::string name;
  std::vector<OverloadDecl> overloads;  // in declaration order
};

struct CheckerOptions {
  // Kubernetes' HomogeneousAggregateLiterals validator (see the file comment).
  bool homogeneous_aggregate_literals = false;
  // cel-go's ValidateRegexLiterals: a constant pattern passed to matches()
  // must be a valid RE2 expression ("invalid matches argument").
  bool validate_regex_literals = false;
  // ext.Strings' check of `'<constant>'.format([<literal list>])` with the
  // legacy formatter's rules (lib/format.h CheckFormatCall).
  bool validate_format_calls = false;
  // cel-go's ValidateDurationLiterals and ValidateTimestampLiterals: a
  // constant argument of duration() / timestamp() must convert ("invalid
  // duration argument"; lib/time_literal.h).
  bool validate_time_literals = false;
  // Most issues reported; cel-go's default.
  int error_limit = 100;
};

// A field of a declared object type.
struct StructFieldDecl {
  std::string name;
  Type type;
};

// The declarations an expression is checked against: variables, functions,
// object types, the container for name resolution, and the options.
//
// Copying is cheap: the function table is shared until a copy declares a
// function of its own. Not thread-safe to modify; safe to share for reading.
class CheckerEnv {
 public:
  CheckerEnv();

  // Declares (or redeclares) the variable `name`, a fully qualified name such
  // as "device" or "com.example.x".
  void Declare(std::string name, Type type);
  // Adds an overload to function `name` ("size", "_+_", "strings.quote").
  // An overload with the same id replaces the earlier one.
  void DeclareFunction(std::string_view name, OverloadDecl overload);
  // Declares an object type with its fields (for Type::Struct(name)).
  void DeclareStruct(std::string name, std::vector<StructFieldDecl> fields);

  // The namespace for name resolution ("com.example"); empty by default.
  void set_container(std::string container) { container_ = std::move(container); }
  const std::string& container() const { return container_; }

  CheckerOptions& options() { return options_; }
  const CheckerOptions& options() const { return options_; }

  // --- Lookups (used by the checker; exact names, no container resolution) ---
  const Type* FindVariable(std::string_view name) const;
  const FunctionDecl* FindFunction(std::string_view name) const;
  bool HasStruct(std::string_view name) const;
  // The type of `field` of object type `name`, or std::nullopt.
  std::optional<Type> FindStructField(std::string_view name, std::string_view field) const;

  // The names `name` may refer to in the container, most qualified first
  // (cel-spec name resolution): "a.b" in "x.y" -> "x.y.a.b", "x.a.b",
  // "a.b". A leading '.' names the root: ".a.b" -> "a.b" only.
  std::vector<std::string> ResolveCandidateNames(std::string_view name) const;

 private:
  struct FunctionTable {
    std::map<std::string, FunctionDecl, std::less<>> functions;
  };

  std::map<std::string, Type, std::less<>> variables_;
  std::shared_ptr<FunctionTable> functions_;  // shared between copies until one declares
  std::map<std::string, std::vector<StructFieldDecl>, std::less<>> structs_;
  std::string container_;
  CheckerOptions options_;
};

// What a name or call resolved to.
struct Reference {
  // For identifiers and qualified names: the fully qualified variable name.
  // For a call whose receiver is really a namespace (`strings.quote(s)`,
  // `optional.of(x)`): the function's qualified name; such a call has no
  // receiver.
  std::string name;
  // For calls: every overload the call may bind to (several when argument
  // types are dyn), in declaration order.
  std::vector<std::string> overload_ids;
};

struct CheckResult {
  // Empty when the expression type-checks.
  std::vector<Issue> issues;
  // The type of every expression id of the checked tree (type variables
  // still unbound at the end are dyn).
  std::unordered_map<int64_t, Type> types;
  std::unordered_map<int64_t, Reference> references;
  int64_t root_id = 0;

  bool ok() const { return issues.empty(); }
  // The type of the whole expression (dyn when not checked).
  Type result_type() const { return TypeOf(root_id); }
  // The type of expression `id`, or dyn if it has none.
  Type TypeOf(int64_t id) const;
  // The overloads call `id` binds to, or nullptr.
  const std::vector<std::string>* OverloadIds(int64_t id) const;
};

// Type-checks `parsed` against `env`. Thread-safe; keeps no reference to its
// arguments.
CheckResult Check(const ParsedExpr& parsed, const CheckerEnv& env);

}  // namespace dra::cel
