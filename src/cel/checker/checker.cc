// The CEL type checker. Mirrors cel-go's checker.Check (checker/checker.go)
// and its type unification (checker/types.go); names of the upstream
// functions are given where a function here follows one.
//
// Unification: a Mapping binds type variables (Type::Param) to types. Every
// assignability test works on a copy of the mapping and keeps it only when
// the test succeeds, so a failed overload candidate leaves no trace. Generic
// overloads get fresh variables ("_var0", "_var1", ...) each time they are
// tried; declared parameter names are single upper-case letters, so the two
// never collide.
#include "cel/checker/checker.h"

#include <re2/re2.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "cel/lib/format.h"
#include "cel/lib/time_literal.h"
#include "cel/parser/operators.h"

namespace dra::cel {

// --- CheckerEnv ------------------------------------------------------------------

CheckerEnv::CheckerEnv() : functions_(std::make_shared<FunctionTable>()) {}

void CheckerEnv::Declare(std::string name, Type type) { variables_.insert_or_assign(std::move(name), std::move(type)); }

void CheckerEnv::DeclareFunction(std::string_view name, OverloadDecl overload) {
  // Copy on write: other copies of this environment keep the old table.
  if (functions_.use_count() > 1) functions_ = std::make_shared<FunctionTable>(*functions_);
  auto it = functions_->functions.find(name);
  if (it == functions_->functions.end()) {
    it = functions_->functions.emplace(std::string(name), FunctionDecl{std::string(name), {}}).first;
  }
  for (OverloadDecl& existing : it->second.overloads) {
    if (existing.id == overload.id) {
      existing = std::move(overload);
      return;
    }
  }
  it->second.overloads.push_back(std::move(overload));
}

void CheckerEnv::DeclareStruct(std::string name, std::vector<StructFieldDecl> fields) {
  structs_.insert_or_assign(std::move(name), std::move(fields));
}

const Type* CheckerEnv::FindVariable(std::string_view name) const {
  auto it = variables_.find(name);
  return it == variables_.end() ? nullptr : &it->second;
}

const FunctionDecl* CheckerEnv::FindFunction(std::string_view name) const {
  auto it = functions_->functions.find(name);
  return it == functions_->functions.end() ? nullptr : &it->second;
}

bool CheckerEnv::HasStruct(std::string_view name) const { return structs_.count(name) > 0; }

std::optional<Type> CheckerEnv::FindStructField(std::string_view name, std::string_view field) const {
  auto it = structs_.find(name);
  if (it == structs_.end()) return std::nullopt;
  for (const StructFieldDecl& f : it->second) {
    if (f.name == field) return f.type;
  }
  return std::nullopt;
}

std::vector<std::string> CheckerEnv::ResolveCandidateNames(std::string_view name) const {
  if (name.starts_with('.')) return {std::string(name.substr(1))};
  std::vector<std::string> out;
  std::string_view prefix = container_;
  while (!prefix.empty()) {
    out.push_back(std::string(prefix) + "." + std::string(name));
    const size_t dot = prefix.rfind('.');
    if (dot == std::string_view::npos) break;
    prefix = prefix.substr(0, dot);
  }
  out.emplace_back(name);
  return out;
}

// --- CheckResult -------------------------------------------------------------------

Type CheckResult::TypeOf(int64_t id) const {
  auto it = types.find(id);
  return it == types.end() ? Type::Dyn() : it->second;
}

const std::vector<std::string>* CheckResult::OverloadIds(int64_t id) const {
  auto it = references.find(id);
  if (it == references.end() || it->second.overload_ids.empty()) return nullptr;
  return &it->second.overload_ids;
}

namespace {

// --- Type unification (cel-go checker/types.go) ------------------------------------

// Bindings of type variables. Changes are journaled so that a failed
// assignability test can be rolled back in time proportional to what it
// changed (cel-go copies the whole mapping per test instead, which is
// quadratic in the number of type variables, e.g. for `[[], [], ...]`).
class Mapping {
 public:
  const Type* Find(const std::string& name) const {
    auto it = bindings_.find(name);
    return it == bindings_.end() ? nullptr : &it->second;
  }
  void Set(const std::string& name, Type t) {
    auto it = bindings_.find(name);
    if (it == bindings_.end()) {
      journal_.push_back({name, std::nullopt});
      bindings_.emplace(name, std::move(t));
    } else {
      journal_.push_back({name, it->second});
      it->second = std::move(t);
    }
  }
  size_t Checkpoint() const { return journal_.size(); }
  void Rollback(size_t checkpoint) {
    while (journal_.size() > checkpoint) {
      Undo& u = journal_.back();
      if (u.old) {
        bindings_.insert_or_assign(u.name, *std::move(u.old));
      } else {
        bindings_.erase(u.name);
      }
      journal_.pop_back();
    }
  }
  // Keeps every change made so far.
  void Commit() { journal_.clear(); }

 private:
  struct Undo {
    std::string name;
    std::optional<Type> old;
  };
  std::unordered_map<std::string, Type> bindings_;
  std::vector<Undo> journal_;
};

const Type* FindSub(const Mapping& m, const Type& t) {
  if (t.kind() != TypeKind::kTypeParam) return nullptr;
  return m.Find(t.name());
}

bool IsDynOrError(const Type& t) { return t.is_dyn_or_any() || t.is_error(); }

// isEqualOrLessSpecific: whether t1 is t2 or a less specific form of it.
bool IsEqualOrLessSpecific(const Type& t1, const Type& t2) {
  if (t1.is_dyn_or_any() || t1.kind() == TypeKind::kTypeParam) return true;
  if (t2.is_dyn_or_any() || t2.kind() == TypeKind::kTypeParam) return false;
  if (t1.kind() != t2.kind()) return false;
  switch (t1.kind()) {
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap: {
      if (t1.name() != t2.name() || t1.params().size() != t2.params().size()) return false;
      for (size_t i = 0; i < t1.params().size(); ++i) {
        if (!IsEqualOrLessSpecific(t1.params()[i], t2.params()[i])) return false;
      }
      return true;
    }
    case TypeKind::kType: return true;
    default: return t1.IsExact(t2);
  }
}

Type MostGeneral(const Type& t1, const Type& t2) { return IsEqualOrLessSpecific(t1, t2) ? t1 : t2; }

// notReferencedIn: whether type variable `t` does not occur in `within`
// (following the mapping), so binding t to `within` makes no cycle.
bool NotReferencedIn(const Mapping& m, const Type& t, const Type& within) {
  if (t.IsExact(within)) return false;
  switch (within.kind()) {
    case TypeKind::kTypeParam: {
      const Type* sub = FindSub(m, within);
      return sub == nullptr || NotReferencedIn(m, t, *sub);
    }
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
    case TypeKind::kType:
      for (const Type& p : within.params()) {
        if (!NotReferencedIn(m, t, p)) return false;
      }
      return true;
    default: return true;
  }
}

// substitute: replaces bound type variables by their bindings, and (when
// `param_to_dyn`) unbound ones by dyn.
Type Substitute(const Mapping& m, const Type& t, bool param_to_dyn) {
  if (const Type* sub = FindSub(m, t)) return Substitute(m, *sub, param_to_dyn);
  switch (t.kind()) {
    case TypeKind::kTypeParam: return param_to_dyn ? Type::Dyn() : t;
    case TypeKind::kList: return Type::List(Substitute(m, t.params()[0], param_to_dyn));
    case TypeKind::kMap:
      return Type::Map(Substitute(m, t.params()[0], param_to_dyn), Substitute(m, t.params()[1], param_to_dyn));
    case TypeKind::kType:
      if (t.params().empty()) return t;
      return Type::TypeOf(Substitute(m, t.params()[0], param_to_dyn));
    case TypeKind::kOpaque: {
      if (t.params().empty()) return t;
      std::vector<Type> params;
      params.reserve(t.params().size());
      for (const Type& p : t.params()) params.push_back(Substitute(m, p, param_to_dyn));
      return Type::Opaque(t.name(), std::move(params));
    }
    default: return t;
  }
}

// Type.IsAssignableType's default rule: same kind, name and assignable
// parameters, or a dynamic target.
bool IsAssignableType(const Type& to, const Type& from) {
  if (to.is_dyn_or_any() || to.kind() == TypeKind::kTypeParam) return true;
  if (to.kind() != from.kind() || to.name() != from.name() || to.params().size() != from.params().size()) {
    return false;
  }
  for (size_t i = 0; i < to.params().size(); ++i) {
    if (!IsAssignableType(to.params()[i], from.params()[i])) return false;
  }
  return true;
}

// isLegacyNullable plus Type.IsAssignableType(NullType).
bool IsAssignableNull(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kOpaque:
    case TypeKind::kStruct:
    case TypeKind::kAny:
    case TypeKind::kDuration:
    case TypeKind::kTimestamp:
    case TypeKind::kNull:
    case TypeKind::kDyn:
    case TypeKind::kTypeParam: return true;
    default: return false;
  }
}

bool InternalIsAssignable(Mapping& m, const Type& t1, const Type& t2);

bool InternalIsAssignableList(Mapping& m, std::span<const Type> l1, std::span<const Type> l2) {
  if (l1.size() != l2.size()) return false;
  for (size_t i = 0; i < l1.size(); ++i) {
    if (!InternalIsAssignable(m, l1[i], l2[i])) return false;
  }
  return true;
}

// isValidTypeSubstitution: whether t2 (a type variable), or what it is bound
// to, can stand for t1; binds or widens t2 when it can. Second: whether t2
// had a binding.
std::pair<bool, bool> IsValidTypeSubstitution(Mapping& m, const Type& t1, const Type& t2) {
  if (t1.kind() == t2.kind() && t1.IsExact(t2)) return {true, true};
  if (const Type* found = FindSub(m, t2)) {
    const Type sub = *found;
    if (t1.kind() == sub.kind() && t1.IsExact(sub)) return {true, true};
    if (InternalIsAssignable(m, t1, sub)) {
      Type widened = MostGeneral(t1, sub);
      if (NotReferencedIn(m, t2, widened)) m.Set(t2.name(), std::move(widened));
      return {true, true};
    }
    return {false, true};
  }
  if (NotReferencedIn(m, t2, t1)) {
    m.Set(t2.name(), t1);
    return {true, false};
  }
  return {false, false};
}

// internalIsAssignable: whether a value of type t2 may be used where t1 is
// expected, binding type variables in `m` as needed.
bool InternalIsAssignable(Mapping& m, const Type& t1, const Type& t2) {
  if (t2.kind() == TypeKind::kTypeParam) {
    auto [valid, has_sub] = IsValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (has_sub) return false;
  }
  if (t1.kind() == TypeKind::kTypeParam) {
    return IsValidTypeSubstitution(m, t2, t1).first;
  }
  if (IsDynOrError(t1) || IsDynOrError(t2)) return true;
  if (t1.kind() == TypeKind::kNull) return IsAssignableNull(t2);
  if (t2.kind() == TypeKind::kNull) return IsAssignableNull(t1);
  switch (t1.kind()) {
    case TypeKind::kBool:
    case TypeKind::kBytes:
    case TypeKind::kDouble:
    case TypeKind::kInt:
    case TypeKind::kString:
    case TypeKind::kUint:
    case TypeKind::kAny:
    case TypeKind::kDuration:
    case TypeKind::kTimestamp:
    case TypeKind::kStruct: return IsAssignableType(t1, t2);
    case TypeKind::kType: return t2.kind() == TypeKind::kType;
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
      return t1.kind() == t2.kind() && t1.name() == t2.name() && InternalIsAssignableList(m, t1.params(), t2.params());
    default: return false;
  }
}

bool HasTypeParams(const Type& t) {
  if (t.kind() == TypeKind::kTypeParam) return true;
  for (const Type& p : t.params()) {
    if (HasTypeParams(p)) return true;
  }
  return false;
}

void CollectTypeParams(const Type& t, std::vector<std::string>& out) {
  if (t.kind() == TypeKind::kTypeParam) {
    if (std::find(out.begin(), out.end(), t.name()) == out.end()) out.push_back(t.name());
    return;
  }
  for (const Type& p : t.params()) CollectTypeParams(p, out);
}

// "(int, string)" or "string.(int)" (cel-go formatFunctionDeclType).
std::string FormatSignature(std::span<const Type> args, bool member) {
  std::string out;
  size_t first = 0;
  if (member && !args.empty()) {
    out += args[0].ToString();
    out += '.';
    first = 1;
  }
  out += '(';
  for (size_t i = first; i < args.size(); ++i) {
    if (i > first) out += ", ";
    out += args[i].ToString();
  }
  out += ')';
  return out;
}

// The type denoted by a type identifier (`int`, `list`, ...), as the planner
// knows them (cel/runtime/planner.cc TypeDenotation).
std::optional<Type> TypeIdentifier(std::string_view name) {
  if (name == "bool") return Type::TypeOf(Type::Bool());
  if (name == "int") return Type::TypeOf(Type::Int());
  if (name == "uint") return Type::TypeOf(Type::Uint());
  if (name == "double") return Type::TypeOf(Type::Double());
  if (name == "string") return Type::TypeOf(Type::String());
  if (name == "bytes") return Type::TypeOf(Type::Bytes());
  if (name == "list") return Type::TypeOf(Type::List(Type::Dyn()));
  if (name == "map") return Type::TypeOf(Type::Map(Type::Dyn(), Type::Dyn()));
  if (name == "null_type") return Type::TypeOf(Type::Null());
  if (name == "type") return Type::TypeOf(Type::TypeType());
  if (name == "optional_type") return Type::TypeOf(Type::Optional(Type::Dyn()));
  if (name == "google.protobuf.Timestamp") return Type::TypeOf(Type::Timestamp());
  if (name == "google.protobuf.Duration") return Type::TypeOf(Type::Duration());
  return std::nullopt;
}

// --- The checker ----------------------------------------------------------------------

class Checker {
 public:
  Checker(const ParsedExpr& parsed, const CheckerEnv& env, CheckResult& result)
      : parsed_(parsed), env_(env), result_(result) {}

  void Run() {
    result_.root_id = parsed_.expr.id();
    Visit(parsed_.expr);
    for (auto& [id, t] : result_.types) t = Substitute(mapping_, t, /*param_to_dyn=*/true);
    if (!result_.issues.empty()) return;
    // AST validators run on a successfully checked tree only (cel-go
    // Env.Check).
    if (env_.options().homogeneous_aggregate_literals) ValidateHomogeneous(parsed_.expr, false);
    if (env_.options().validate_regex_literals) ValidateRegexLiterals(parsed_.expr);
    if (env_.options().validate_format_calls) ValidateFormatCalls(parsed_.expr);
    if (env_.options().validate_time_literals) ValidateTimeLiterals(parsed_.expr);
  }

 private:
  struct Resolution {
    Type type;
    std::vector<std::string> overload_ids;
  };
  struct Local {
    std::string name;
    Type type;
  };

  // --- Issues and side tables ---

  void Report(int64_t id, std::string message) {
    if (static_cast<int>(result_.issues.size()) >= env_.options().error_limit) return;
    Issue issue;
    issue.message = std::move(message);
    if (std::optional<SourcePosition> pos = parsed_.source_info.GetPosition(id)) {
      issue.line = pos->line;
      issue.column = pos->column;
    }
    result_.issues.push_back(std::move(issue));
  }

  void ReportTypeMismatch(int64_t id, const Type& expected, const Type& actual) {
    Report(id, "expected type '" + expected.ToString() + "' but found '" + actual.ToString() + "'");
  }

  void ReportUndeclared(int64_t id, std::string_view name) {
    Report(id, "undeclared reference to '" + std::string(name) + "' (in container '" + env_.container() + "')");
  }

  void SetType(const Expr& e, Type t) { result_.types.insert_or_assign(e.id(), std::move(t)); }
  Type GetType(const Expr& e) const { return result_.TypeOf(e.id()); }

  // Whether t2 is assignable to t1; keeps the bindings this needs only when
  // it is (cel-go works on a copy of the mapping for the same effect).
  bool IsAssignable(const Type& t1, const Type& t2) {
    const size_t checkpoint = mapping_.Checkpoint();
    if (InternalIsAssignable(mapping_, t1, t2)) {
      mapping_.Commit();
      return true;
    }
    mapping_.Rollback(checkpoint);
    return false;
  }

  bool IsAssignableList(std::span<const Type> l1, std::span<const Type> l2) {
    const size_t checkpoint = mapping_.Checkpoint();
    if (InternalIsAssignableList(mapping_, l1, l2)) {
      mapping_.Commit();
      return true;
    }
    mapping_.Rollback(checkpoint);
    return false;
  }

  Type NewTypeVar() { return Type::Param("_var" + std::to_string(free_vars_++)); }

  // --- Names ---

  const Local* FindLocal(std::string_view name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      for (auto it = scope->rbegin(); it != scope->rend(); ++it) {
        if (it->name == name) return &*it;
      }
    }
    return nullptr;
  }

  // LookupIdent: comprehension variables first (they shadow container-
  // qualified globals, as bindings_ext's shadowing test requires), then the
  // container's candidate names, each as a variable or a type name.
  std::optional<std::pair<std::string, Type>> LookupIdent(std::string_view name) const {
    if (!name.starts_with('.')) {
      if (const Local* local = FindLocal(name)) return std::make_pair(local->name, local->type);
    }
    for (std::string& candidate : env_.ResolveCandidateNames(name)) {
      if (const Type* t = env_.FindVariable(candidate)) return std::make_pair(candidate, *t);
      if (std::optional<Type> t = TypeIdentifier(candidate)) {
        return std::make_pair(std::move(candidate), *std::move(t));
      }
    }
    return std::nullopt;
  }

  const FunctionDecl* LookupFunction(std::string_view name) const {
    for (const std::string& candidate : env_.ResolveCandidateNames(name)) {
      if (const FunctionDecl* fn = env_.FindFunction(candidate)) return fn;
    }
    return nullptr;
  }

  // containers.ToQualifiedName: `a.b.c` for a chain of identifiers and
  // (non-test-only) selections. A chain rooted at a comprehension variable is
  // not a qualified name, as in the planner.
  bool ToQualifiedName(const Expr& e, std::string* out) const {
    if (e.Is<IdentExpr>()) {
      const std::string& name = e.ident().name;
      if (!name.starts_with('.') && FindLocal(name) != nullptr) return false;
      *out = name;
      return true;
    }
    if (e.Is<SelectExpr>()) {
      const SelectExpr& s = e.select();
      if (s.test_only) return false;
      std::string prefix;
      if (!ToQualifiedName(*s.operand, &prefix)) return false;
      *out = prefix + "." + s.field;
      return true;
    }
    return false;
  }

  // --- Expressions ---

  void Visit(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::kConstant: SetType(e, ConstantType(e.constant())); break;
      case ExprKind::kIdent: CheckIdent(e); break;
      case ExprKind::kSelect: CheckSelect(e); break;
      case ExprKind::kCall: CheckCall(e); break;
      case ExprKind::kList: CheckCreateList(e); break;
      case ExprKind::kMap: CheckCreateMap(e); break;
      case ExprKind::kStruct: CheckCreateStruct(e); break;
      case ExprKind::kComprehension: CheckComprehension(e); break;
      case ExprKind::kUnspecified: SetType(e, Type::Error()); break;
    }
  }

  static Type ConstantType(const Constant& c) {
    switch (c.kind()) {
      case Constant::Kind::kNull: return Type::Null();
      case Constant::Kind::kBool: return Type::Bool();
      case Constant::Kind::kInt: return Type::Int();
      case Constant::Kind::kUint: return Type::Uint();
      case Constant::Kind::kDouble: return Type::Double();
      case Constant::Kind::kString: return Type::String();
      case Constant::Kind::kBytes: return Type::Bytes();
    }
    return Type::Error();
  }

  void CheckIdent(const Expr& e) {
    const std::string& name = e.ident().name;
    if (auto found = LookupIdent(name)) {
      SetType(e, found->second);
      result_.references[e.id()].name = found->first;
      return;
    }
    SetType(e, Type::Error());
    ReportUndeclared(e.id(), name);
  }

  void CheckSelect(const Expr& e) {
    const SelectExpr& sel = e.select();
    std::string qname;
    if (ToQualifiedName(e, &qname)) {
      if (auto found = LookupIdent(qname)) {
        SetType(e, found->second);
        result_.references[e.id()].name = found->first;
        return;
      }
    }
    Type result = CheckSelectField(e, *sel.operand, sel.field, /*optional=*/false);
    if (sel.test_only) result = Type::Bool();
    SetType(e, Substitute(mapping_, result, false));
  }

  Type CheckSelectField(const Expr& e, const Expr& operand, const std::string& field, bool optional) {
    Visit(operand);
    const Type operand_type = Substitute(mapping_, GetType(operand), false);
    const bool is_opt = operand_type.is_optional();
    const Type target = is_opt ? operand_type.optional_value() : operand_type;
    Type result = Type::Error();
    switch (target.kind()) {
      case TypeKind::kMap: result = target.params()[1]; break;
      case TypeKind::kStruct:
        if (!env_.HasStruct(target.name())) {
          Report(e.id(), "[internal] unexpected failed resolution of '" + target.name() + "'");
        } else if (std::optional<Type> ft = env_.FindStructField(target.name(), field)) {
          result = *ft;
        } else {
          Report(e.id(), "undefined field '" + field + "'");
        }
        break;
      case TypeKind::kTypeParam:
        IsAssignable(Type::Dyn(), target);
        result = Type::Dyn();
        break;
      default:
        if (!IsDynOrError(target)) {
          Report(e.id(), "type '" + target.ToString() + "' does not support field selection");
        }
        result = Type::Dyn();
        break;
    }
    if (is_opt || optional) return Type::Optional(std::move(result));
    return result;
  }

  void CheckOptSelect(const Expr& e) {
    const CallExpr& call = e.call();
    if (call.args.size() != 2 || call.has_target()) {
      Report(e.id(), "incorrect signature for optional field selection");
      SetType(e, Type::Error());
      return;
    }
    const Expr& field = call.args[1];
    if (!field.Is<Constant>() || field.constant().kind() != Constant::Kind::kString) {
      Report(field.id(), "unsupported optional field selection");
      SetType(e, Type::Error());
      return;
    }
    Type result = CheckSelectField(e, call.args[0], field.constant().string_value(), true);
    SetType(e, Substitute(mapping_, result, false));
    result_.references[e.id()].overload_ids = {"select_optional_field"};
  }

  void CheckCall(const Expr& e) {
    const CallExpr& call = e.call();
    if (call.function == op::kOptSelect) {
      CheckOptSelect(e);
      return;
    }
    for (const Expr& arg : call.args) Visit(arg);

    if (!call.has_target()) {
      const FunctionDecl* fn = LookupFunction(call.function);
      if (fn == nullptr) {
        ReportUndeclared(e.id(), call.function);
        SetType(e, Type::Error());
        return;
      }
      ResolveOverloadOrError(e, *fn, nullptr, call.args);
      return;
    }

    // `a.b.f(x)` is either the namespaced function `a.b.f` or a call of `f`
    // on the receiver `a.b`, never both.
    std::string qualifier;
    if (ToQualifiedName(*call.target, &qualifier)) {
      if (const FunctionDecl* fn = LookupFunction(qualifier + "." + call.function)) {
        result_.references[e.id()].name = fn->name;
        ResolveOverloadOrError(e, *fn, nullptr, call.args);
        return;
      }
    }
    Visit(*call.target);
    const FunctionDecl* fn = LookupFunction(call.function);
    if (fn == nullptr) {
      SetType(e, Type::Error());
      ReportUndeclared(e.id(), call.function);
      return;
    }
    ResolveOverloadOrError(e, *fn, call.target.get(), call.args);
  }

  void ResolveOverloadOrError(const Expr& e, const FunctionDecl& fn, const Expr* target, std::span<const Expr> args) {
    std::optional<Resolution> r = ResolveOverload(e, fn, target, args);
    if (!r) {
      SetType(e, Type::Error());
      return;
    }
    SetType(e, std::move(r->type));
    result_.references[e.id()].overload_ids = std::move(r->overload_ids);
  }

  std::optional<Resolution> ResolveOverload(const Expr& call, const FunctionDecl& fn, const Expr* target,
                                            std::span<const Expr> args) {
    std::vector<Type> arg_types;
    arg_types.reserve(args.size() + 1);
    if (target != nullptr) arg_types.push_back(GetType(*target));
    for (const Expr& arg : args) arg_types.push_back(GetType(arg));

    std::optional<Type> result_type;
    std::vector<std::string> ids;
    for (const OverloadDecl& overload : fn.overloads) {
      if ((target == nullptr) == overload.member) continue;  // wrong call style

      // && and || take any number of bool arguments.
      if (fn.name == op::kLogicalAnd || fn.name == op::kLogicalOr) {
        bool failed = false;
        for (size_t i = 0; i < arg_types.size(); ++i) {
          if (!IsAssignable(arg_types[i], Type::Bool())) {
            ReportTypeMismatch(args[i].id(), Type::Bool(), arg_types[i]);
            failed = true;
          }
        }
        if (failed) return std::nullopt;
        return Resolution{Type::Bool(), {overload.id}};
      }

      std::vector<Type> params = overload.params;
      Type result = overload.result;
      if (std::any_of(params.begin(), params.end(), HasTypeParams) || HasTypeParams(result)) {
        // Instantiate the overload with fresh type variables.
        std::vector<std::string> names;
        for (const Type& p : params) CollectTypeParams(p, names);
        CollectTypeParams(result, names);
        Mapping fresh;
        for (const std::string& name : names) fresh.Set(name, NewTypeVar());
        for (Type& p : params) p = Substitute(fresh, p, false);
        result = Substitute(fresh, result, false);
      }
      if (!IsAssignableList(arg_types, params)) continue;
      ids.push_back(overload.id);
      Type fn_result = Substitute(mapping_, result, false);
      if (!result_type) {
        result_type = std::move(fn_result);
      } else if (!result_type->is_dyn_or_any() && !fn_result.IsExact(*result_type)) {
        result_type = Type::Dyn();
      }
    }
    if (!result_type) {
      for (Type& t : arg_types) t = Substitute(mapping_, t, true);
      Report(call.id(), "found no matching overload for '" + fn.name + "' applied to '" +
                            FormatSignature(arg_types, target != nullptr) + "'");
      return std::nullopt;
    }
    return Resolution{*std::move(result_type), std::move(ids)};
  }

  // joinTypes with dynamic aggregate element types (cel-go's default; the
  // homogeneous rule is a separate validator).
  Type JoinTypes(const std::optional<Type>& previous, const Type& current) {
    if (!previous) return current;
    if (IsAssignable(*previous, current)) return MostGeneral(*previous, current);
    return Type::Dyn();
  }

  // For `[?e]` and `{?k: e}`: the value type of an optional element.
  Type UnwrapOptionalElement(const Expr& e, Type t) {
    if (t.is_optional()) return t.optional_value();
    if (!t.is_dyn_or_any()) ReportTypeMismatch(e.id(), Type::Optional(t), t);
    return t;
  }

  void CheckCreateList(const Expr& e) {
    const ListExpr& list = e.list();
    std::optional<Type> elems;
    for (size_t i = 0; i < list.elements.size(); ++i) {
      const Expr& elem = list.elements[i];
      Visit(elem);
      Type t = GetType(elem);
      if (list.IsOptional(i)) t = UnwrapOptionalElement(elem, std::move(t));
      elems = JoinTypes(elems, t);
    }
    SetType(e, Type::List(elems ? *std::move(elems) : NewTypeVar()));
  }

  void CheckCreateMap(const Expr& e) {
    std::optional<Type> key_type;
    std::optional<Type> value_type;
    for (const MapEntry& entry : e.map().entries) {
      Visit(*entry.key);
      key_type = JoinTypes(key_type, GetType(*entry.key));
      Visit(*entry.value);
      Type vt = GetType(*entry.value);
      if (entry.optional) vt = UnwrapOptionalElement(*entry.value, std::move(vt));
      value_type = JoinTypes(value_type, vt);
    }
    if (!key_type) {
      key_type = NewTypeVar();
      value_type = NewTypeVar();
    }
    SetType(e, Type::Map(*std::move(key_type), *std::move(value_type)));
  }

  // Message construction. Only object types declared with DeclareStruct can
  // be built; the DRA environment has none that users may construct.
  void CheckCreateStruct(const Expr& e) {
    const StructExpr& s = e.struct_expr();
    auto found = LookupIdent(s.name);
    if (!found) {
      ReportUndeclared(e.id(), s.name);
      SetType(e, Type::Error());
      return;
    }
    Type result = Type::Error();
    const Type& ident_type = found->second;
    if (ident_type.kind() != TypeKind::kType) {
      Report(e.id(), "'" + ident_type.ToString() + "' is not a type");
    } else if (ident_type.params().empty() || ident_type.params()[0].kind() != TypeKind::kStruct) {
      Report(e.id(), "'" + (ident_type.params().empty() ? std::string("type") : ident_type.params()[0].ToString()) +
                         "' is not a message type");
    } else {
      result = ident_type.params()[0];
    }
    SetType(e, result);
    for (const StructField& f : s.fields) {
      Visit(*f.value);
      Type field_type = Type::Error();
      if (result.kind() == TypeKind::kStruct) {
        if (std::optional<Type> ft = env_.FindStructField(result.name(), f.name)) {
          field_type = *ft;
        } else {
          Report(f.id, "undefined field '" + f.name + "'");
        }
      }
      Type vt = GetType(*f.value);
      if (f.optional) vt = UnwrapOptionalElement(*f.value, std::move(vt));
      if (!IsAssignable(field_type, vt)) {
        Report(f.id, "expected type of field '" + f.name + "' is '" + field_type.ToString() +
                         "' but provided type is '" + vt.ToString() + "'");
      }
    }
  }

  void CheckComprehension(const Expr& e) {
    const ComprehensionExpr& c = e.comprehension();
    Visit(*c.iter_range);
    Visit(*c.accu_init);
    const Type range_type = Substitute(mapping_, GetType(*c.iter_range), false);
    const Type accu_type = GetType(*c.accu_init);
    scopes_.push_back({Local{c.accu_var, accu_type}});

    const bool two_vars = !c.iter_var2.empty();
    Type var_type = Type::Error();
    Type var2_type = Type::Error();
    switch (range_type.kind()) {
      case TypeKind::kList:
        var_type = range_type.params()[0];
        if (two_vars) {
          var2_type = var_type;
          var_type = Type::Int();
        }
        break;
      case TypeKind::kMap:
        var_type = range_type.params()[0];
        if (two_vars) var2_type = range_type.params()[1];
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
      case TypeKind::kTypeParam:
        IsAssignable(Type::Dyn(), range_type);
        var_type = Type::Dyn();
        var2_type = Type::Dyn();
        break;
      default:
        // Includes `any`: Kubernetes' scalar attribute type is no range.
        Report(c.iter_range->id(), "expression of type '" + range_type.ToString() +
                                       "' cannot be range of a comprehension (must be list, "
                                       "map, or dynamic)");
        break;
    }

    std::vector<Local> loop_scope = {Local{c.iter_var, var_type}};
    if (two_vars) loop_scope.push_back(Local{c.iter_var2, var2_type});
    scopes_.push_back(std::move(loop_scope));
    Visit(*c.loop_condition);
    AssertType(*c.loop_condition, Type::Bool());
    Visit(*c.loop_step);
    AssertType(*c.loop_step, accu_type);
    scopes_.pop_back();  // the result sees only the accumulator
    Visit(*c.result);
    scopes_.pop_back();
    SetType(e, Substitute(mapping_, GetType(*c.result), false));
  }

  void AssertType(const Expr& e, const Type& t) {
    const Type actual = GetType(e);
    if (!IsAssignable(t, actual)) ReportTypeMismatch(e.id(), t, actual);
  }

  // --- Validators (cel-go cel/validator.go), on the final types ---

  // homogeneousAggregateLiteralValidator. `exempt`: inside a format() call
  // (directly, or through enclosing list and map literals).
  void ValidateHomogeneous(const Expr& e, bool exempt) {
    switch (e.kind()) {
      case ExprKind::kList: {
        const ListExpr& list = e.list();
        if (!exempt) {
          std::optional<Type> elem_type;
          for (size_t i = 0; i < list.elements.size(); ++i) {
            Type t = GetType(list.elements[i]);
            if (list.IsOptional(i) && t.is_optional()) t = t.optional_value();
            if (!elem_type) {
              elem_type = t;
            } else if (!elem_type->IsEquivalent(t)) {
              ReportTypeMismatch(list.elements[i].id(), *elem_type, t);
              break;
            }
          }
        }
        for (const Expr& elem : list.elements) ValidateHomogeneous(elem, exempt);
        return;
      }
      case ExprKind::kMap: {
        const MapExpr& map = e.map();
        if (!exempt) {
          std::optional<Type> key_type;
          std::optional<Type> value_type;
          for (const MapEntry& entry : map.entries) {
            Type kt = GetType(*entry.key);
            Type vt = GetType(*entry.value);
            if (entry.optional && vt.is_optional()) vt = vt.optional_value();
            if (!key_type) {
              key_type = kt;
              value_type = vt;
              continue;
            }
            if (!key_type->IsEquivalent(kt)) ReportTypeMismatch(entry.key->id(), *key_type, kt);
            if (!value_type->IsEquivalent(vt)) {
              ReportTypeMismatch(entry.value->id(), *value_type, vt);
            }
          }
        }
        for (const MapEntry& entry : map.entries) {
          ValidateHomogeneous(*entry.key, exempt);
          ValidateHomogeneous(*entry.value, exempt);
        }
        return;
      }
      case ExprKind::kCall: {
        const CallExpr& call = e.call();
        // Only a literal whose parent is the format call (or a literal
        // nested in such one) is exempt.
        const bool child_exempt = call.function == "format";
        if (call.has_target()) ValidateHomogeneous(*call.target, child_exempt);
        for (const Expr& arg : call.args) ValidateHomogeneous(arg, child_exempt);
        return;
      }
      default: ForEachChild(e, [&](const Expr& child) { ValidateHomogeneous(child, false); }); return;
    }
  }

  // cel-go's regex literal validator: argument 0 of every call named
  // "matches" (for `s.matches(re)` that is the pattern), when a constant.
  void ValidateRegexLiterals(const Expr& e) {
    if (e.Is<CallExpr>()) {
      const CallExpr& call = e.call();
      if (call.function == "matches" && !call.args.empty() && call.args[0].Is<Constant>() &&
          call.args[0].constant().kind() == Constant::Kind::kString) {
        const std::string& pattern = call.args[0].constant().string_value();
        RE2::Options options;
        options.set_log_errors(false);
        RE2 re(re2::StringPiece(pattern.data(), pattern.size()), options);
        if (!re.ok()) Report(call.args[0].id(), "invalid matches argument");
      }
    }
    ForEachChild(e, [&](const Expr& child) { ValidateRegexLiterals(child); });
  }

  // cel-go's duration and timestamp literal validators: argument 0 of every
  // call named "duration" or "timestamp", when a constant, must convert.
  void ValidateTimeLiterals(const Expr& e) {
    if (e.Is<CallExpr>()) {
      const CallExpr& call = e.call();
      const bool duration = call.function == "duration", timestamp = call.function == "timestamp";
      if ((duration || timestamp) && !call.args.empty() && call.args[0].Is<Constant>()) {
        const Constant& c = call.args[0].constant();
        bool ok = true;
        if (c.kind() == Constant::Kind::kString) {
          ok = duration ? lib::IsGoDuration(c.string_value()) : lib::IsCelTimestamp(c.string_value());
        } else if (c.kind() == Constant::Kind::kInt && timestamp) {
          ok = lib::IsCelTimestampSeconds(c.int_value());
        }
        if (!ok) Report(call.args[0].id(), duration ? "invalid duration argument" : "invalid timestamp argument");
      }
    }
    ForEachChild(e, [&](const Expr& child) { ValidateTimeLiterals(child); });
  }

  lib::FormatArgType FormatArgTypeOf(const Expr& e) const {
    lib::FormatArgType t;
    t.type_name = GetType(e).name();
    if (e.Is<ListExpr>()) {
      for (const Expr& elem : e.list().elements) t.literal_elements.push_back(FormatArgTypeOf(elem));
    } else if (e.Is<MapExpr>()) {
      for (const MapEntry& entry : e.map().entries) {
        t.literal_elements.push_back(FormatArgTypeOf(*entry.key));
        t.literal_elements.push_back(FormatArgTypeOf(*entry.value));
      }
    }
    return t;
  }

  // The node an element path of a FormatCheckError points at.
  static const Expr* FormatElement(const Expr& list, std::span<const size_t> path) {
    const Expr* cur = &list;
    for (size_t index : path) {
      if (cur->Is<ListExpr>()) {
        if (index >= cur->list().elements.size()) return nullptr;
        cur = &cur->list().elements[index];
      } else if (cur->Is<MapExpr>()) {
        const auto& entries = cur->map().entries;
        if (index / 2 >= entries.size()) return nullptr;
        cur = index % 2 == 0 ? entries[index / 2].key.get() : entries[index / 2].value.get();
      } else {
        return nullptr;
      }
    }
    return cur;
  }

  // ext.Strings' format() validator: a constant format string applied to a
  // list literal.
  void ValidateFormatCalls(const Expr& e) {
    if (e.Is<CallExpr>()) {
      const CallExpr& call = e.call();
      if (call.function == "format" && call.has_target() && call.args.size() == 1 && call.target->Is<Constant>() &&
          call.target->constant().kind() == Constant::Kind::kString && call.args[0].Is<ListExpr>()) {
        std::vector<lib::FormatArgType> args;
        for (const Expr& elem : call.args[0].list().elements) args.push_back(FormatArgTypeOf(elem));
        if (std::optional<lib::FormatCheckError> err =
                lib::CheckFormatCall(call.target->constant().string_value(), args)) {
          const Expr* at = err->element_path.empty() ? &e : FormatElement(call.args[0], err->element_path);
          Report(at != nullptr ? at->id() : e.id(), err->message);
        }
      }
    }
    ForEachChild(e, [&](const Expr& child) { ValidateFormatCalls(child); });
  }

  const ParsedExpr& parsed_;
  const CheckerEnv& env_;
  CheckResult& result_;
  Mapping mapping_;
  int free_vars_ = 0;
  std::vector<std::vector<Local>> scopes_;
};

}  // namespace

CheckResult Check(const ParsedExpr& parsed, const CheckerEnv& env) {
  CheckResult result;
  Checker(parsed, env, result).Run();
  return result;
}

}  // namespace dra::cel
