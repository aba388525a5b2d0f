// The CEL abstract syntax tree: what the parser produces and the checker,
// planner and evaluator read.
//
// The tree is a value tree, as in cel-cpp's common/ast: an `Expr` owns its
// children outright (through `Box<Expr>` for a single child and
// `std::vector<Expr>` for a list of them), copying an `Expr` copies the whole
// subtree, and moving one is cheap. Every node carries an int64 id; facts about
// a node live in side tables keyed by that id (source positions here in
// `SourceInfo`, types and references later in the checker's tables), so the
// tree itself never changes after parsing. We chose owned children over an
// index-based arena for clarity: the planner converts the tree into its own
// program once per expression, so walking it is not on the per-device path.
//
// Invariants of a tree produced by Parse():
//   1. Ids are positive and unique within one ParsedExpr; struct fields and
//      map entries have ids of their own (they are not Exprs).
//   2. Every id in the tree has a position in SourceInfo. Nodes made by macro
//      expansion carry the position of the macro call.
//   3. No node is kUnspecified. (kUnspecified appears only inside the macro
//      call records of SourceInfo, standing for a nested expanded macro.)
//   4. The depth of the tree is bounded by ParseOptions::max_recursion_depth
//      times a small constant, so recursive walks cannot exhaust the stack.
//
// The node kinds, and what their fields mean:
//
//   kind            fields
//   --------------  --------------------------------------------------------
//   kConstant       null, bool, int64, uint64, double, string or bytes
//   kIdent          name; a leading dot is kept (".x" is resolved only at the
//                   root of the container, by the checker)
//   kSelect         operand.field; test_only marks the has(operand.field) form
//   kCall           function, optional target (receiver), args. Operators are
//                   calls named as in operators.h ("_+_", "_[_]", "_?._", ...)
//   kList           elements; optional_indices lists the `[?e]` elements
//   kStruct         message construction `a.b.Msg{f: v, ?g: w}`; name keeps a
//                   leading dot
//   kMap            map literal `{k: v, ?k2: w}`
//   kComprehension  iter_var (and iter_var2 for two-variable forms) over
//                   iter_range; accu_var starts as accu_init; while
//                   loop_condition holds, each element sets accu_var to
//                   loop_step; the value is result. Macros expand into this
//                   (accumulator "@result", as cel-go names it), and cel.bind
//                   into a zero-iteration comprehension over [].
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace dra::cel {

namespace internal {
// Aborts the process: a checked accessor was used on the wrong kind (our bug).
[[noreturn]] void BadAccess(const char* what);
}  // namespace internal

// An owning pointer with value semantics: copying a Box copies what it holds,
// and two Boxes compare equal when what they hold does. Lets node structs be
// copied and compared with defaulted members although Expr is recursive.
template <typename T>
class Box {
 public:
  Box() = default;
  explicit Box(T value) : ptr_(std::make_unique<T>(std::move(value))) {}
  Box(const Box& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box& operator=(const Box& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Box(Box&&) noexcept = default;
  Box& operator=(Box&&) noexcept = default;
  ~Box() = default;

  bool has_value() const { return ptr_ != nullptr; }
  // REQUIRES: has_value().
  const T& operator*() const {
    if (!ptr_) internal::BadAccess("empty Box");
    return *ptr_;
  }
  T& operator*() {
    if (!ptr_) internal::BadAccess("empty Box");
    return *ptr_;
  }
  const T* operator->() const { return &**this; }
  T* operator->() { return &**this; }
  const T* get() const { return ptr_.get(); }
  T* get() { return ptr_.get(); }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.ptr_ || !b.ptr_) return a.ptr_ == b.ptr_;
    return *a.ptr_ == *b.ptr_;
  }

 private:
  std::unique_ptr<T> ptr_;
};

// A literal value.
class Constant {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kBytes };

  Constant() = default;  // null
  static Constant Null() { return Constant(); }
  static Constant Bool(bool v) { return Constant(Kind::kBool, v); }
  static Constant Int(int64_t v) { return Constant(Kind::kInt, v); }
  static Constant Uint(uint64_t v) { return Constant(Kind::kUint, v); }
  static Constant Double(double v) { return Constant(Kind::kDouble, v); }
  static Constant String(std::string v) { return Constant(Kind::kString, std::move(v)); }
  // `v` holds raw bytes (any values, not necessarily UTF-8).
  static Constant Bytes(std::string v) { return Constant(Kind::kBytes, std::move(v)); }

  Kind kind() const { return kind_; }
  // Each REQUIRES the matching kind().
  bool bool_value() const { return Get<bool>(Kind::kBool); }
  int64_t int_value() const { return Get<int64_t>(Kind::kInt); }
  uint64_t uint_value() const { return Get<uint64_t>(Kind::kUint); }
  double double_value() const { return Get<double>(Kind::kDouble); }
  const std::string& string_value() const { return Get<std::string>(Kind::kString); }
  const std::string& bytes_value() const { return Get<std::string>(Kind::kBytes); }

  friend bool operator==(const Constant&, const Constant&) = default;

 private:
  template <typename T>
  Constant(Kind kind, T value) : kind_(kind), value_(std::move(value)) {}

  template <typename T>
  const T& Get(Kind kind) const {
    const T* p = std::get_if<T>(&value_);
    if (kind_ != kind || p == nullptr) internal::BadAccess("Constant of another kind");
    return *p;
  }

  Kind kind_ = Kind::kNull;
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string> value_;
};

class Expr;

// A node whose kind is not set. Never in a parsed tree (see invariant 3).
struct UnspecifiedExpr {
  friend bool operator==(const UnspecifiedExpr&, const UnspecifiedExpr&) = default;
};

struct IdentExpr {
  std::string name;
  friend bool operator==(const IdentExpr&, const IdentExpr&) = default;
};

struct SelectExpr {
  Box<Expr> operand;
  std::string field;
  bool test_only = false;  // has(operand.field)
  friend bool operator==(const SelectExpr&, const SelectExpr&) = default;
};

struct CallExpr {
  std::string function;
  Box<Expr> target;  // empty for a global call
  std::vector<Expr> args;
  bool has_target() const { return target.has_value(); }
  friend bool operator==(const CallExpr&, const CallExpr&) = default;
};

struct ListExpr {
  std::vector<Expr> elements;
  // Indices (ascending) of elements written `?e`: each is an optional value,
  // included in the list only when it has a value.
  std::vector<int32_t> optional_indices;
  bool IsOptional(size_t index) const;
  friend bool operator==(const ListExpr&, const ListExpr&) = default;
};

struct StructField {
  int64_t id = 0;
  std::string name;
  Box<Expr> value;
  bool optional = false;  // `?name: value`: set only when value has a value
  friend bool operator==(const StructField&, const StructField&) = default;
};

struct StructExpr {
  std::string name;  // message name as written, e.g. "google.protobuf.Int64Value"
  std::vector<StructField> fields;
  friend bool operator==(const StructExpr&, const StructExpr&) = default;
};

struct MapEntry {
  int64_t id = 0;
  Box<Expr> key;
  Box<Expr> value;
  bool optional = false;  // `?key: value`: present only when value has a value
  friend bool operator==(const MapEntry&, const MapEntry&) = default;
};

struct MapExpr {
  std::vector<MapEntry> entries;
  friend bool operator==(const MapExpr&, const MapExpr&) = default;
};

struct ComprehensionExpr {
  std::string iter_var;
  std::string iter_var2;  // empty unless a two-variable comprehension
  Box<Expr> iter_range;
  std::string accu_var;
  Box<Expr> accu_init;
  Box<Expr> loop_condition;
  Box<Expr> loop_step;
  Box<Expr> result;
  friend bool operator==(const ComprehensionExpr&, const ComprehensionExpr&) = default;
};

// The order matches the alternatives of Expr::Node.
enum class ExprKind : uint8_t {
  kUnspecified,
  kConstant,
  kIdent,
  kSelect,
  kCall,
  kList,
  kStruct,
  kMap,
  kComprehension,
};

std::string_view ExprKindName(ExprKind kind);

class Expr {
 public:
  // The comprehension, much the largest node, is boxed so that an Expr stays
  // small (80 bytes rather than 152): vectors of arguments and the parser's
  // stack frames hold Exprs by value. Is<ComprehensionExpr>() and
  // As<ComprehensionExpr>() hide the box; only visitors of node() see it.
  using Node = std::variant<UnspecifiedExpr, Constant, IdentExpr, SelectExpr, CallExpr, ListExpr, StructExpr, MapExpr,
                            Box<ComprehensionExpr>>;

  Expr() = default;
  template <typename T>
  requires std::is_constructible_v<Node, T&&> Expr(int64_t id, T&& node) : id_(id), node_(std::forward<T>(node)) {}
  Expr(int64_t id, ComprehensionExpr node) : id_(id), node_(Box<ComprehensionExpr>(std::move(node))) {}

  int64_t id() const { return id_; }
  void set_id(int64_t id) { id_ = id; }
  ExprKind kind() const { return static_cast<ExprKind>(node_.index()); }

  template <typename T>
  bool Is() const {
    return std::holds_alternative<Stored<T>>(node_);
  }
  // Checked access: REQUIRES Is<T>() (aborts otherwise).
  template <typename T>
  const T& As() const {
    const Stored<T>* p = std::get_if<Stored<T>>(&node_);
    if (p == nullptr) internal::BadAccess("Expr::As on another kind");
    if constexpr (std::is_same_v<T, ComprehensionExpr>) {
      return **p;
    } else {
      return *p;
    }
  }
  template <typename T>
  T& As() {
    Stored<T>* p = std::get_if<Stored<T>>(&node_);
    if (p == nullptr) internal::BadAccess("Expr::As on another kind");
    if constexpr (std::is_same_v<T, ComprehensionExpr>) {
      return **p;
    } else {
      return *p;
    }
  }

  const Constant& constant() const { return As<Constant>(); }
  const IdentExpr& ident() const { return As<IdentExpr>(); }
  const SelectExpr& select() const { return As<SelectExpr>(); }
  const CallExpr& call() const { return As<CallExpr>(); }
  const ListExpr& list() const { return As<ListExpr>(); }
  const StructExpr& struct_expr() const { return As<StructExpr>(); }
  const MapExpr& map() const { return As<MapExpr>(); }
  const ComprehensionExpr& comprehension() const { return As<ComprehensionExpr>(); }

  // For std::visit (a comprehension is visited as Box<ComprehensionExpr>).
  const Node& node() const { return node_; }
  Node& mutable_node() { return node_; }

  // Deep comparison, ids included.
  friend bool operator==(const Expr&, const Expr&) = default;

 private:
  // The alternative of Node that holds a T.
  template <typename T>
  using Stored = std::conditional_t<std::is_same_v<T, ComprehensionExpr>, Box<ComprehensionExpr>, T>;

  int64_t id_ = 0;
  Node node_;
};

// Where a node came from in the source text.
struct SourcePosition {
  int32_t line = 0;    // 1-based; 0 means unknown
  int32_t column = 0;  // 1-based, counted in Unicode code points
  int32_t offset = 0;  // byte offset of the node's first character
  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

// Side table of a parsed expression: position of every id and, when the
// parser was asked to keep them, the call each macro expansion replaced.
class SourceInfo {
 public:
  // The position of `id`, or std::nullopt if none was recorded.
  std::optional<SourcePosition> GetPosition(int64_t id) const;
  void SetPosition(int64_t id, SourcePosition position);

  // Macro calls by the id of the expression they expanded into (the root of
  // the expansion; as in cel-go, the call's own id is not reused). The call has the
  // original target and arguments, except that an argument (or part of one)
  // that was itself an expanded macro is an UnspecifiedExpr carrying that
  // expansion's id, as in cel-go. Empty unless ParseOptions::populate_macro_calls.
  const std::map<int64_t, Expr>& macro_calls() const { return macro_calls_; }
  const Expr* GetMacroCall(int64_t id) const;
  void SetMacroCall(int64_t id, Expr call);

 private:
  std::vector<SourcePosition> positions_;  // indexed by id; line 0 = none
  std::map<int64_t, Expr> macro_calls_;
};

// A successfully parsed expression.
struct ParsedExpr {
  Expr expr;
  SourceInfo source_info;
  int64_t next_id = 1;  // one past the largest id in use, for later rewrites
};

// A canonical, single-line, fully parenthesised rendering of `expr`, used by
// tests and debugging. Calls print as `f(a, b)` / `t.f(a, b)` (operators too:
// `_+_(a, b)`), selects as `a.f` (`a.f~test-only` for has()), constants in
// CEL syntax (`1`, `1u`, `1.0`, `"s"`, `b"\xff"`), lists `[a, ?b]`, maps
// `{k: v, ?k: v}`, messages `M{f: v}` and comprehensions
// `__comprehension__(iter: x, [iter2: y, ]range: r, accu: a, init: i,
// cond: c, step: s, result: r)`. With `with_ids`, each node is followed by
// `#id` (entries and fields by `#id` after their key).
std::string DebugString(const Expr& expr, bool with_ids = false);

// Renders a constant in CEL source syntax (strings and bytes quoted and escaped).
std::string ConstantToString(const Constant& constant);

// Calls `fn` on each direct child of `e` (a call's target, then its
// arguments; list elements; map keys and values; struct field values; a
// comprehension's range, init, condition, step and result).
void ForEachChild(const Expr& e, const std::function<void(const Expr&)>& fn);
void ForEachChild(Expr& e, const std::function<void(Expr&)>& fn);

}  // namespace dra::cel
