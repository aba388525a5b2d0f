// Recursive-descent parser over the token vector of lexer.h.
//
// Ids and positions follow cel-go's visitor: a node's id is allocated when
// the parser reaches the token that cel-go attaches to it (the operator of a
// binary call, '(' of a call, '.' of a select, '[' of an index or list, '{' of
// a map or message, ':' of an entry, the first token of a literal or ident),
// so ids grow in roughly source order and positions match cel-go's.
//
// Error handling: a syntax error (or the depth limit, or too many issues)
// sets `stopped_`; every parse function checks it after each sub-parse and
// returns at once, so the parser unwinds without exceptions. Non-syntax
// problems are recorded and parsing continues with an UnspecifiedExpr in
// place of the bad node; such a tree is never returned.
#include "cel/parser/parser.h"

#include <array>
#include <charconv>
#include <limits>
#include <string>
#include <utility>

#include "base/utf8.h"
#include "cel/parser/lexer.h"
#include "cel/parser/macros.h"
#include "cel/parser/operators.h"

// The recursive descent nests about a dozen calls per level of the source;
// keeping the heavy, rarely taken branches out of line keeps those frames
// small: at the default depth limit a parse needs well under 1 MiB of stack
// in an optimised build (tested down to 1 MiB; 2 MiB under ASan at -O0).
#define DRA_CEL_NOINLINE [[gnu::noinline]]

namespace dra::cel {
namespace {

// What ANTLR lists when a primary expression was expected.
constexpr std::string_view kExpectPrimary =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

// Reserved words that may not name a variable or a global function (cel-go
// parser.reservedIds; true, false, null and in are keywords of the lexer).
bool IsReservedIdentifier(std::string_view id) {
  static constexpr std::array<std::string_view, 17> kReserved = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  for (std::string_view r : kReserved) {
    if (r == id) return true;
  }
  return false;
}

// Precedence of a binary operator token (higher binds tighter), 0 if none.
int BinaryPrecedence(TokenKind kind) {
  switch (kind) {
    case TokenKind::kLess:
    case TokenKind::kLessEqual:
    case TokenKind::kGreater:
    case TokenKind::kGreaterEqual:
    case TokenKind::kEqualEqual:
    case TokenKind::kBangEqual:
    case TokenKind::kIn: return 1;
    case TokenKind::kPlus:
    case TokenKind::kMinus: return 2;
    case TokenKind::kStar:
    case TokenKind::kSlash:
    case TokenKind::kPercent: return 3;
    default: return 0;
  }
}

std::string_view BinaryFunction(TokenKind kind) {
  switch (kind) {
    case TokenKind::kLess: return op::kLess;
    case TokenKind::kLessEqual: return op::kLessEquals;
    case TokenKind::kGreater: return op::kGreater;
    case TokenKind::kGreaterEqual: return op::kGreaterEquals;
    case TokenKind::kEqualEqual: return op::kEquals;
    case TokenKind::kBangEqual: return op::kNotEquals;
    case TokenKind::kIn: return op::kIn;
    case TokenKind::kPlus: return op::kAdd;
    case TokenKind::kMinus: return op::kSubtract;
    case TokenKind::kStar: return op::kMultiply;
    case TokenKind::kSlash: return op::kDivide;
    default: return op::kModulo;
  }
}

// Value of the digits of a double literal, used to tell underflow (which Go's
// ParseFloat, and so cel-go, accepts as 0) from overflow (an error).
// Returns the decimal exponent of the first significant digit, or a very
// small number if all digits are zero.
int64_t LeadingDecimalExponent(std::string_view text) {
  int64_t exponent = 0;
  const size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    int64_t v = 0;
    std::string_view digits = text.substr(e + 1);
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    for (char c : digits) {
      v = v * 10 + (c - '0');
      if (v > 1'000'000'000) break;  // far beyond double range either way
    }
    exponent = negative ? -v : v;
    text = text.substr(0, e);
  }
  const size_t dot = text.find('.');
  const std::string_view int_part = text.substr(0, dot);
  const std::string_view frac_part = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  for (size_t i = 0; i < int_part.size(); ++i) {
    if (int_part[i] != '0') return exponent + static_cast<int64_t>(int_part.size() - i) - 1;
  }
  for (size_t i = 0; i < frac_part.size(); ++i) {
    if (frac_part[i] != '0') return exponent - static_cast<int64_t>(i) - 1;
  }
  return std::numeric_limits<int64_t>::min() / 2;
}

// Most ids one parse may allocate. Only macro expansion that copies a
// subtree (optMap, optFlatMap) can approach it; everything else is linear in
// the (size-limited) source.
constexpr int64_t kMaxNodes = 1'000'000;

// One parse. Lives only for the duration of a Parse() call, so it may hold
// views of the source and the options.
class Parser final : public MacroExprFactory {
 public:
  Parser(std::string_view source, std::vector<Token> tokens, const ParseOptions& options)
      : source_(source), tokens_(std::move(tokens)), options_(options) {}

  ParseResult Run() {
    Expr root = ParseExpr();
    if (!stopped_ && !At(TokenKind::kEof)) Mismatched(Peek(), "<EOF>");
    ParseResult result;
    if (issues_.empty()) {
      result.expr = ParsedExpr{std::move(root), std::move(info_), next_id_};
    }
    result.issues = std::move(issues_);
    return result;
  }

  // MacroExprFactory.
  int64_t NextId() override { return NewIdAt(macro_position_); }
  Expr Copy(const Expr& expr) override {
    // The one place where the tree can grow faster than the source: chained
    // optMap calls each copy their (already expanded) target, doubling it.
    if (next_id_ + CountNodes(expr) > kMaxNodes) {
      Report(macro_position_,
             "expression is too large after macro expansion (more than " + std::to_string(kMaxNodes) + " nodes)");
      stopped_ = true;
      return Expr(NextId(), UnspecifiedExpr{});
    }
    Expr copy = expr;
    Renumber(copy);
    return copy;
  }

 private:
  // Counts nesting levels for the depth limit; gives them back on scope exit.
  class Levels {
   public:
    explicit Levels(Parser* parser) : parser_(parser) {}
    Levels(const Levels&) = delete;
    Levels& operator=(const Levels&) = delete;
    ~Levels() { parser_->depth_ -= count_; }
    // Adds a level; false (and the parse stops) if that exceeds the limit.
    bool Add(const Token& at) {
      ++count_;
      ++parser_->depth_;
      if (parser_->depth_ <= parser_->options_.max_recursion_depth) return true;
      parser_->Fatal(at,
                     "expression recursion limit exceeded: " + std::to_string(parser_->options_.max_recursion_depth));
      return false;
    }

   private:
    Parser* parser_;
    int count_ = 0;
  };

  // ---- tokens --------------------------------------------------------------

  const Token& Peek(size_t ahead = 0) const {
    const size_t i = pos_ + ahead;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  // Consumes the current token. The final (EOF or error) token is never passed.
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  std::string_view Text(const Token& t) const { return t.Text(source_); }

  // The token as ANTLR shows it in messages.
  std::string Display(const Token& t) const {
    if (t.kind == TokenKind::kEof) return "<EOF>";
    std::string out;
    for (char c : Text(t)) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: out.push_back(c);
      }
    }
    return out;
  }

  // ---- issues --------------------------------------------------------------

  static SourcePosition PositionOf(const Token& t) { return {t.line, t.column, t.offset}; }

  DRA_CEL_NOINLINE void Report(SourcePosition at, std::string message) {
    if (stopped_) return;
    if (static_cast<int>(issues_.size()) >= options_.error_reporting_limit) {
      issues_.push_back(
          {at.line, at.column, "More than " + std::to_string(options_.error_reporting_limit) + " syntax errors"});
      stopped_ = true;
      return;
    }
    issues_.push_back({at.line, at.column, std::move(message)});
  }
  void Report(const Token& at, std::string message) { Report(PositionOf(at), std::move(message)); }

  // Reports and stops parsing.
  DRA_CEL_NOINLINE Expr Fatal(const Token& at, std::string message) {
    Report(at, std::move(message));
    stopped_ = true;
    return Expr();
  }
  Expr SyntaxError(const Token& at, std::string_view message) {
    return Fatal(at, "Syntax error: " + std::string(message));
  }
  // `at` is not what the grammar allows here.
  DRA_CEL_NOINLINE Expr Mismatched(const Token& at, std::string_view expecting) {
    if (at.kind == TokenKind::kError) return SyntaxError(at, at.error);
    return SyntaxError(at, "mismatched input '" + Display(at) + "' expecting " + std::string(expecting));
  }
  bool Expect(TokenKind kind) {
    if (At(kind)) {
      Advance();
      return true;
    }
    Mismatched(Peek(), TokenKindName(kind));
    return false;
  }

  // A placeholder for a node that could not be built (an issue was reported).
  Expr ErrorNode(SourcePosition at) { return Expr(NewIdAt(at), UnspecifiedExpr{}); }

  // ---- ids -----------------------------------------------------------------

  int64_t NewIdAt(SourcePosition at) {
    const int64_t id = next_id_++;
    info_.SetPosition(id, at);
    return id;
  }
  int64_t NewId(const Token& t) { return NewIdAt(PositionOf(t)); }

  // Gives `e` and everything below it fresh ids, keeping positions.
  void Renumber(Expr& e) {
    auto renumber_id = [this](int64_t old_id) {
      const int64_t id = next_id_++;
      if (auto p = info_.GetPosition(old_id)) info_.SetPosition(id, *p);
      return id;
    };
    e.set_id(renumber_id(e.id()));
    ForEachChild(e, [&](Expr& child) { Renumber(child); });
    if (e.Is<StructExpr>()) {
      for (StructField& f : e.As<StructExpr>().fields) f.id = renumber_id(f.id);
    } else if (e.Is<MapExpr>()) {
      for (MapEntry& entry : e.As<MapExpr>().entries) entry.id = renumber_id(entry.id);
    }
  }

  static int64_t CountNodes(const Expr& e) {
    int64_t count = 1;
    ForEachChild(e, [&](const Expr& child) { count += CountNodes(child); });
    return count;
  }

  // ---- node builders -------------------------------------------------------

  static Expr MakeCall(int64_t id, std::string_view function, std::vector<Expr> args) {
    CallExpr call;
    call.function = std::string(function);
    call.args = std::move(args);
    return Expr(id, std::move(call));
  }
  static Expr MakeCall2(int64_t id, std::string_view function, Expr a, Expr b) {
    std::vector<Expr> args;
    args.reserve(2);
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return MakeCall(id, function, std::move(args));
  }

  bool MacroEnabled(MacroLibrary library) const {
    switch (library) {
      case MacroLibrary::kStandard: return options_.enable_standard_macros;
      case MacroLibrary::kTwoVarComprehensions: return options_.enable_two_var_comprehensions;
      case MacroLibrary::kBindings: return options_.enable_bindings;
      case MacroLibrary::kOptional: return options_.enable_optional_macros;
      case MacroLibrary::kLists: return options_.enable_lists_macros;
    }
    return false;
  }

  // A copy of `e` for a macro call record in which subtrees that are expanded
  // macros become UnspecifiedExpr placeholders carrying their id (as cel-go
  // records them). Built node by node, so a large expansion is never copied.
  DRA_CEL_NOINLINE Expr MacroCallArg(const Expr& e) {
    if (info_.GetMacroCall(e.id()) != nullptr) return Expr(e.id(), UnspecifiedExpr{});
    auto arg = [this](const Box<Expr>& child) { return Box<Expr>(MacroCallArg(*child)); };
    switch (e.kind()) {
      case ExprKind::kSelect: {
        const SelectExpr& from = e.select();
        SelectExpr to;
        to.operand = arg(from.operand);
        to.field = from.field;
        to.test_only = from.test_only;
        return Expr(e.id(), std::move(to));
      }
      case ExprKind::kCall: {
        const CallExpr& from = e.call();
        CallExpr to;
        to.function = from.function;
        if (from.has_target()) to.target = arg(from.target);
        for (const Expr& a : from.args) to.args.push_back(MacroCallArg(a));
        return Expr(e.id(), std::move(to));
      }
      case ExprKind::kList: {
        const ListExpr& from = e.list();
        ListExpr to;
        for (const Expr& a : from.elements) to.elements.push_back(MacroCallArg(a));
        to.optional_indices = from.optional_indices;
        return Expr(e.id(), std::move(to));
      }
      case ExprKind::kStruct: {
        const StructExpr& from = e.struct_expr();
        StructExpr to;
        to.name = from.name;
        for (const StructField& f : from.fields) {
          to.fields.push_back(StructField{f.id, f.name, arg(f.value), f.optional});
        }
        return Expr(e.id(), std::move(to));
      }
      case ExprKind::kMap: {
        MapExpr to;
        for (const MapEntry& m : e.map().entries) {
          to.entries.push_back(MapEntry{m.id, arg(m.key), arg(m.value), m.optional});
        }
        return Expr(e.id(), std::move(to));
      }
      case ExprKind::kComprehension: {
        const ComprehensionExpr& from = e.comprehension();
        ComprehensionExpr to;
        to.iter_var = from.iter_var;
        to.iter_var2 = from.iter_var2;
        to.iter_range = arg(from.iter_range);
        to.accu_var = from.accu_var;
        to.accu_init = arg(from.accu_init);
        to.loop_condition = arg(from.loop_condition);
        to.loop_step = arg(from.loop_step);
        to.result = arg(from.result);
        return Expr(e.id(), std::move(to));
      }
      default: return e;  // leaves
    }
  }

  // A call of `function` (on `target` if it is not null) at the token `at`
  // with id `id`, or its macro expansion (cel-go globalCallOrMacro and
  // receiverCallOrMacro).
  DRA_CEL_NOINLINE Expr CallOrMacro(int64_t id, const Token& at, std::string_view function, std::optional<Expr> target,
                                    std::vector<Expr> args) {
    const Macro* macro = FindMacro(function, args.size(), target.has_value());
    if (macro != nullptr && MacroEnabled(macro->library)) {
      std::optional<Expr> record;
      if (options_.populate_macro_calls) {
        CallExpr call;
        call.function = std::string(function);
        if (target) call.target = Box<Expr>(MacroCallArg(*target));
        for (const Expr& arg : args) call.args.push_back(MacroCallArg(arg));
        record = Expr(0, std::move(call));
      }
      macro_position_ = PositionOf(at);
      MacroExpansion expansion = macro->expander(*this, target ? &*target : nullptr, args);
      if (expansion.error) {
        auto where = info_.GetPosition(expansion.error->id);
        const SourcePosition pos = where ? *where : PositionOf(at);
        Report(pos, std::move(expansion.error->message));
        return ErrorNode(pos);
      }
      if (expansion.expr) {
        if (record) info_.SetMacroCall(expansion.expr->id(), std::move(*record));
        return std::move(*expansion.expr);
      }
      // Declined: an ordinary call.
    }
    CallExpr call;
    call.function = std::string(function);
    if (target) call.target = Box<Expr>(std::move(*target));
    call.args = std::move(args);
    return Expr(id, std::move(call));
  }

  // ---- grammar -------------------------------------------------------------

  // The functions on the recursion path parse their first operand and hand
  // anything more to an out-of-line "...Rest" function, so that the common
  // case (no operator at this level) costs a small frame.

  // Expr = Or ["?" Or ":" Expr]
  Expr ParseExpr() {
    Levels levels(this);
    if (!levels.Add(Peek())) return Expr();
    Expr condition = ParseOr();
    if (stopped_ || !At(TokenKind::kQuestion)) return condition;
    return ParseConditionalRest(std::move(condition));
  }

  DRA_CEL_NOINLINE Expr ParseConditionalRest(Expr condition) {
    const int64_t id = NewId(Advance());
    Expr if_true = ParseOr();
    if (stopped_ || !Expect(TokenKind::kColon)) return Expr();
    Expr if_false = ParseExpr();
    if (stopped_) return Expr();
    std::vector<Expr> args;
    args.reserve(3);
    args.push_back(std::move(condition));
    args.push_back(std::move(if_true));
    args.push_back(std::move(if_false));
    return MakeCall(id, op::kConditional, std::move(args));
  }

  // Or = And {"||" And};  And = Rel {"&&" Rel}. Both build balanced trees.
  Expr ParseOr() { return ParseLogical(TokenKind::kOrOr, op::kLogicalOr); }
  Expr ParseAnd() { return ParseLogical(TokenKind::kAndAnd, op::kLogicalAnd); }

  Expr ParseLogicalTerm(TokenKind op_kind) { return op_kind == TokenKind::kOrOr ? ParseAnd() : ParseBinary(1); }

  Expr ParseLogical(TokenKind op_kind, std::string_view function) {
    Expr first = ParseLogicalTerm(op_kind);
    if (stopped_ || !At(op_kind)) return first;
    return ParseLogicalRest(op_kind, function, std::move(first));
  }

  DRA_CEL_NOINLINE Expr ParseLogicalRest(TokenKind op_kind, std::string_view function, Expr first) {
    std::vector<Expr> terms;
    std::vector<int64_t> ops;
    terms.push_back(std::move(first));
    while (At(op_kind)) {
      const Token& op_token = Advance();
      Expr term = ParseLogicalTerm(op_kind);
      if (stopped_) return Expr();
      ops.push_back(NewId(op_token));  // after the term, as cel-go numbers them
      terms.push_back(std::move(term));
    }
    return Balance(function, terms, ops, 0, ops.size() - 1);
  }

  // cel-go's balancer: op `mid` joins the balanced trees of its two sides.
  DRA_CEL_NOINLINE Expr Balance(std::string_view function, std::vector<Expr>& terms, const std::vector<int64_t>& ops,
                                size_t lo, size_t hi) {
    const size_t mid = (lo + hi + 1) / 2;
    Expr left = mid == lo ? std::move(terms[mid]) : Balance(function, terms, ops, lo, mid - 1);
    Expr right = mid == hi ? std::move(terms[mid + 1]) : Balance(function, terms, ops, mid + 1, hi);
    return MakeCall2(ops[mid], function, std::move(left), std::move(right));
  }

  // Rel, Add and Mul by precedence climbing; each operator adds a level.
  Expr ParseBinary(int min_precedence) {
    Expr lhs = ParseUnary();
    if (stopped_) return Expr();
    const int precedence = BinaryPrecedence(Peek().kind);
    if (precedence == 0 || precedence < min_precedence) return lhs;
    return ParseBinaryRest(min_precedence, std::move(lhs));
  }

  DRA_CEL_NOINLINE Expr ParseBinaryRest(int min_precedence, Expr lhs) {
    Levels levels(this);
    while (true) {
      const int precedence = BinaryPrecedence(Peek().kind);
      if (precedence == 0 || precedence < min_precedence) break;
      const Token& op_token = Advance();
      if (!levels.Add(op_token)) return Expr();
      const int64_t id = NewId(op_token);
      Expr rhs = ParseBinary(precedence + 1);
      if (stopped_) return Expr();
      lhs = MakeCall2(id, BinaryFunction(op_token.kind), std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  // Unary = Member | "!" {"!"} Member | "-" {"-"} Member
  Expr ParseUnary() {
    const Token& first = Peek();
    const bool is_not = first.kind == TokenKind::kBang;
    if (!is_not && first.kind != TokenKind::kMinus) return ParseMember();
    // A single '-' before a number is the number's sign (ParsePrimary), as
    // cel-go's grammar prefers the signed literal.
    if (!is_not && (Peek(1).kind == TokenKind::kInt || Peek(1).kind == TokenKind::kDouble)) {
      return ParseMember();
    }
    size_t count = 0;
    while (At(first.kind)) {
      Advance();
      ++count;
    }
    const bool odd = count % 2 == 1;
    const int64_t id = odd ? NewId(first) : 0;
    Expr operand = ParseMember();
    if (stopped_ || !odd) return operand;
    std::vector<Expr> args;
    args.push_back(std::move(operand));
    return MakeCall(id, is_not ? op::kLogicalNot : op::kNegate, std::move(args));
  }

  // Member = Primary {"." ["?"] FIELD | "." IDENT "(" [Args] ")" | "[" ["?"] Expr "]"}
  Expr ParseMember() {
    Expr e = ParsePrimary();
    if (stopped_) return Expr();
    if (!At(TokenKind::kDot) && !At(TokenKind::kLeftBracket)) return e;
    return ParseMemberRest(std::move(e));
  }

  DRA_CEL_NOINLINE Expr ParseMemberRest(Expr e) {
    Levels levels(this);
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kDot) {
        if (!levels.Add(t)) return Expr();
        Advance();
        e = ParseSelectOrMemberCall(t, std::move(e));
      } else if (t.kind == TokenKind::kLeftBracket) {
        if (!levels.Add(t)) return Expr();
        Advance();
        e = ParseIndex(t, std::move(e));
      } else {
        break;
      }
      if (stopped_) return Expr();
    }
    return e;
  }

  // After `operand .`.
  DRA_CEL_NOINLINE Expr ParseSelectOrMemberCall(const Token& dot, Expr operand) {
    bool optional = false;
    if (At(TokenKind::kQuestion)) {
      Advance();
      optional = true;
      if (!options_.enable_optional_syntax) Report(dot, "unsupported syntax '.?'");
    }
    const Token& name = Peek();
    std::string field;
    if (name.kind == TokenKind::kIdentifier) {
      Advance();
      field = std::string(Text(name));
      if (!optional && At(TokenKind::kLeftParen)) {
        const Token& open = Advance();
        const int64_t id = NewId(open);
        std::vector<Expr> args = ParseArgs();
        if (stopped_) return Expr();
        return CallOrMacro(id, open, field, std::move(operand), std::move(args));
      }
    } else if (name.kind == TokenKind::kQuotedIdentifier) {
      Advance();
      const std::string_view text = Text(name);
      field = std::string(text.substr(1, text.size() - 2));
    } else {
      return Mismatched(name, "IDENTIFIER");
    }
    if (optional) {
      if (!options_.enable_optional_syntax) return ErrorNode(PositionOf(dot));
      Expr field_name(NewId(name), Constant::String(std::move(field)));
      return MakeCall2(NewId(dot), op::kOptSelect, std::move(operand), std::move(field_name));
    }
    SelectExpr select;
    select.operand = Box<Expr>(std::move(operand));
    select.field = std::move(field);
    return Expr(NewId(dot), std::move(select));
  }

  // After `operand [`.
  DRA_CEL_NOINLINE Expr ParseIndex(const Token& bracket, Expr operand) {
    const int64_t id = NewId(bracket);
    bool optional = false;
    if (At(TokenKind::kQuestion)) {
      Advance();
      optional = true;
      if (!options_.enable_optional_syntax) Report(bracket, "unsupported syntax '[?'");
    }
    Expr index = ParseExpr();
    if (stopped_ || !Expect(TokenKind::kRightBracket)) return Expr();
    return MakeCall2(id, optional ? op::kOptIndex : op::kIndex, std::move(operand), std::move(index));
  }

  // After '(': [Expr {"," Expr}] ")"
  DRA_CEL_NOINLINE std::vector<Expr> ParseArgs() {
    std::vector<Expr> args;
    if (At(TokenKind::kRightParen)) {
      Advance();
      return args;
    }
    while (true) {
      args.push_back(ParseExpr());
      if (stopped_) return {};
      if (At(TokenKind::kComma)) {
        Advance();
        continue;
      }
      if (At(TokenKind::kRightParen)) {
        Advance();
        return args;
      }
      Mismatched(Peek(), "{')', ','}");
      return {};
    }
  }

  Expr ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kDot:
        if (Peek(1).kind != TokenKind::kIdentifier) return Mismatched(Peek(1), "IDENTIFIER");
        return ParseNamePrimary();
      case TokenKind::kIdentifier: return ParseNamePrimary();
      case TokenKind::kLeftParen: {
        Advance();
        Expr e = ParseExpr();
        if (stopped_ || !Expect(TokenKind::kRightParen)) return Expr();
        return e;
      }
      case TokenKind::kLeftBracket: return ParseList();
      case TokenKind::kLeftBrace: return ParseMap();
      case TokenKind::kMinus: {
        const Token& number = Peek(1);
        if (number.kind != TokenKind::kInt && number.kind != TokenKind::kDouble) {
          return Mismatched(number, "{NUM_FLOAT, NUM_INT}");
        }
        Advance();
        Advance();
        return ParseNumber(t, number, /*negative=*/true);
      }
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble: Advance(); return ParseNumber(t, t, /*negative=*/false);
      case TokenKind::kString:
      case TokenKind::kBytes: Advance(); return ParseQuoted(t);
      case TokenKind::kTrue:
      case TokenKind::kFalse: Advance(); return Expr(NewId(t), Constant::Bool(t.kind == TokenKind::kTrue));
      case TokenKind::kNull: Advance(); return Expr(NewId(t), Constant::Null());
      default: return Mismatched(t, kExpectPrimary);
    }
  }

  DRA_CEL_NOINLINE Expr ParseQuoted(const Token& t) {
    auto decoded = DecodeQuotedLiteral(Text(t));
    if (!decoded.ok()) {
      Report(t, decoded.status().message());
      return ErrorNode(PositionOf(t));
    }
    return Expr(NewId(t), t.kind == TokenKind::kString ? Constant::String(std::move(decoded).value())
                                                       : Constant::Bytes(std::move(decoded).value()));
  }

  // `start` is the first token of the literal (the sign, if any).
  DRA_CEL_NOINLINE Expr ParseNumber(const Token& start, const Token& number, bool negative) {
    std::string_view text = Text(number);
    const SourcePosition at = PositionOf(start);
    if (number.kind == TokenKind::kDouble) {
      std::string s = negative ? "-" : "";
      s += text;
      double value = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec == std::errc::result_out_of_range && LeadingDecimalExponent(text) < 0) {
        value = negative ? -0.0 : 0.0;  // underflow: Go's ParseFloat rounds to zero
        ec = std::errc();
        ptr = s.data() + s.size();
      }
      if (ec != std::errc() || ptr != s.data() + s.size()) {
        Report(at, "invalid double literal");
        return ErrorNode(at);
      }
      return Expr(NewIdAt(at), Constant::Double(value));
    }
    const bool is_uint = number.kind == TokenKind::kUint;
    if (is_uint) text.remove_suffix(1);  // the u/U
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
      base = 16;
      text.remove_prefix(2);
    }
    if (is_uint) {
      uint64_t value = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
      if (ec != std::errc() || ptr != text.data() + text.size()) {
        Report(at, "invalid uint literal");
        return ErrorNode(at);
      }
      return Expr(NewIdAt(at), Constant::Uint(value));
    }
    std::string s = negative ? "-" : "";
    s += text;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
      Report(at, "invalid int literal");
      return ErrorNode(at);
    }
    return Expr(NewIdAt(at), Constant::Int(value));
  }

  // ["."] IDENT: an identifier, a global call, or (followed by {"." IDENT} "{")
  // a message construction.
  DRA_CEL_NOINLINE Expr ParseNamePrimary() {
    const Token& start = Peek();
    const bool leading_dot = start.kind == TokenKind::kDot;
    size_t ahead = leading_dot ? 2 : 1;
    while (Peek(ahead).kind == TokenKind::kDot && Peek(ahead + 1).kind == TokenKind::kIdentifier) {
      ahead += 2;
    }
    if (Peek(ahead).kind == TokenKind::kLeftBrace) return ParseMessage();

    if (leading_dot) Advance();
    const Token& name_token = Advance();
    const std::string_view name = Text(name_token);
    const bool reserved = IsReservedIdentifier(name);
    if (reserved) Report(start, "reserved identifier: " + std::string(name));
    std::string full_name = leading_dot ? "." : "";
    full_name += name;

    if (At(TokenKind::kLeftParen)) {
      const Token& open = Advance();
      const int64_t id = NewId(open);
      std::vector<Expr> args = ParseArgs();
      if (stopped_) return Expr();
      if (reserved) return ErrorNode(PositionOf(start));
      return CallOrMacro(id, open, full_name, std::nullopt, std::move(args));
    }
    if (reserved) return ErrorNode(PositionOf(start));
    return Expr(NewId(name_token), IdentExpr{std::move(full_name)});
  }

  // ["."] IDENT {"." IDENT} "{" [Field ":" Expr {"," Field ":" Expr}] [","] "}"
  DRA_CEL_NOINLINE Expr ParseMessage() {
    std::string name;
    if (At(TokenKind::kDot)) {
      Advance();
      name = ".";
    }
    name += Text(Advance());
    while (At(TokenKind::kDot)) {
      Advance();
      name += '.';
      name += Text(Advance());
    }
    const Token& brace = Advance();
    const int64_t id = NewId(brace);
    StructExpr message;
    message.name = std::move(name);
    if (!ParseEntries(TokenKind::kRightBrace, [&]() {
          const Token& first = Peek();
          bool optional = false;
          if (At(TokenKind::kQuestion)) {
            Advance();
            optional = true;
            if (!options_.enable_optional_syntax) Report(first, "unsupported syntax '?'");
          }
          const Token& field = Peek();
          std::string field_name;
          if (field.kind == TokenKind::kIdentifier) {
            field_name = std::string(Text(field));
          } else if (field.kind == TokenKind::kQuotedIdentifier) {
            const std::string_view text = Text(field);
            field_name = std::string(text.substr(1, text.size() - 2));
          } else {
            Mismatched(field, "IDENTIFIER");
            return;
          }
          Advance();
          const Token& colon = Peek();
          if (!Expect(TokenKind::kColon)) return;
          StructField entry;
          entry.id = NewId(colon);
          entry.name = std::move(field_name);
          entry.value = Box<Expr>(ParseExpr());
          entry.optional = optional && options_.enable_optional_syntax;
          message.fields.push_back(std::move(entry));
        })) {
      return Expr();
    }
    return Expr(id, std::move(message));
  }

  // "[" [["?"] Expr {"," ["?"] Expr}] [","] "]"
  DRA_CEL_NOINLINE Expr ParseList() {
    const Token& bracket = Advance();
    const int64_t id = NewId(bracket);
    ListExpr list;
    if (!ParseEntries(TokenKind::kRightBracket, [&]() {
          const Token& first = Peek();
          bool optional = false;
          if (At(TokenKind::kQuestion)) {
            Advance();
            optional = true;
            if (!options_.enable_optional_syntax) Report(first, "unsupported syntax '?'");
          }
          if (optional && options_.enable_optional_syntax) {
            list.optional_indices.push_back(static_cast<int32_t>(list.elements.size()));
          }
          list.elements.push_back(ParseExpr());
        })) {
      return Expr();
    }
    return Expr(id, std::move(list));
  }

  // "{" [["?"] Expr ":" Expr {"," ...}] [","] "}"
  DRA_CEL_NOINLINE Expr ParseMap() {
    const Token& brace = Advance();
    const int64_t id = NewId(brace);
    MapExpr map;
    if (!ParseEntries(TokenKind::kRightBrace, [&]() {
          const Token& first = Peek();
          bool optional = false;
          if (At(TokenKind::kQuestion)) {
            Advance();
            optional = true;
            if (!options_.enable_optional_syntax) Report(first, "unsupported syntax '?'");
          }
          // cel-go numbers the entry (at its ':') before the key.
          const int64_t entry_id = next_id_++;
          Expr key = ParseExpr();
          if (stopped_) return;
          const Token& colon = Peek();
          if (!Expect(TokenKind::kColon)) return;
          info_.SetPosition(entry_id, PositionOf(colon));
          MapEntry entry;
          entry.id = entry_id;
          entry.key = Box<Expr>(std::move(key));
          entry.value = Box<Expr>(ParseExpr());
          entry.optional = optional && options_.enable_optional_syntax;
          map.entries.push_back(std::move(entry));
        })) {
      return Expr();
    }
    return Expr(id, std::move(map));
  }

  // Comma-separated entries, each parsed by `parse_one`, up to `close`; a
  // trailing comma (or a lone one, as cel-go's grammar allows) is accepted.
  // Returns false if parsing stopped.
  template <typename F>
  bool ParseEntries(TokenKind close, F&& parse_one) {
    if (At(TokenKind::kComma) && Peek(1).kind == close) Advance();
    while (!At(close)) {
      parse_one();
      if (stopped_) return false;
      if (At(TokenKind::kComma)) {
        Advance();
        continue;
      }
      if (!At(close)) {
        Mismatched(Peek(), close == TokenKind::kRightBracket ? "{',', ']'}" : "{',', '}'}");
        return false;
      }
    }
    Advance();
    return true;
  }

  std::string_view source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  const ParseOptions& options_;

  int64_t next_id_ = 1;
  SourceInfo info_;
  std::vector<Issue> issues_;
  bool stopped_ = false;
  int depth_ = 0;
  SourcePosition macro_position_;
};

Status ValidateOptions(const ParseOptions& options) {
  if (options.max_recursion_depth < 1 || options.max_recursion_depth > kMaxRecursionDepthLimit) {
    return InvalidArgumentError("max_recursion_depth must be in [1, " + std::to_string(kMaxRecursionDepthLimit) +
                                "], got " + std::to_string(options.max_recursion_depth));
  }
  if (options.expression_size_code_point_limit < 1) {
    return InvalidArgumentError("expression_size_code_point_limit must be positive");
  }
  if (options.error_reporting_limit < 1) {
    return InvalidArgumentError("error_reporting_limit must be positive");
  }
  return OkStatus();
}

}  // namespace

StatusOr<ParseResult> Parse(std::string_view source, const ParseOptions& options) {
  DRA_RETURN_IF_ERROR(ValidateOptions(options));
  const size_t code_points = CountCodePoints(source);
  if (code_points > static_cast<size_t>(options.expression_size_code_point_limit)) {
    ParseResult result;
    result.issues.push_back({0, 0,
                             "expression code point size exceeds limit: size: " + std::to_string(code_points) +
                                 ", limit " + std::to_string(options.expression_size_code_point_limit)});
    return result;
  }
  return Parser(source, Tokenize(source), options).Run();
}

}  // namespace dra::cel
