// Out-of-line parts of the AST: checked-access failure, SourceInfo and the
// canonical debug rendering.
#include "cel/parser/ast.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace dra::cel {

namespace internal {

void BadAccess(const char* what) {
  std::fprintf(stderr, "dra::cel: bad AST access: %s\n", what);
  std::abort();
}

}  // namespace internal

std::string_view ExprKindName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kUnspecified: return "unspecified";
    case ExprKind::kConstant: return "constant";
    case ExprKind::kIdent: return "ident";
    case ExprKind::kSelect: return "select";
    case ExprKind::kCall: return "call";
    case ExprKind::kList: return "list";
    case ExprKind::kStruct: return "struct";
    case ExprKind::kMap: return "map";
    case ExprKind::kComprehension: return "comprehension";
  }
  return "unknown";
}

bool ListExpr::IsOptional(size_t index) const {
  for (int32_t i : optional_indices) {
    if (static_cast<size_t>(i) == index) return true;
  }
  return false;
}

std::optional<SourcePosition> SourceInfo::GetPosition(int64_t id) const {
  if (id <= 0 || static_cast<uint64_t>(id) >= positions_.size()) return std::nullopt;
  const SourcePosition& p = positions_[static_cast<size_t>(id)];
  if (p.line == 0) return std::nullopt;
  return p;
}

void SourceInfo::SetPosition(int64_t id, SourcePosition position) {
  if (id <= 0) return;
  const auto index = static_cast<size_t>(id);
  if (index >= positions_.size()) positions_.resize(index + 1);
  positions_[index] = position;
}

const Expr* SourceInfo::GetMacroCall(int64_t id) const {
  auto it = macro_calls_.find(id);
  return it == macro_calls_.end() ? nullptr : &it->second;
}

void SourceInfo::SetMacroCall(int64_t id, Expr call) { macro_calls_[id] = std::move(call); }

namespace {

void AppendEscaped(std::string_view text, bool bytes, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\\': out += "\\\\"; continue;
      case '"': out += "\\\""; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    // Strings keep their (valid) UTF-8; bytes show every non-ASCII octet.
    if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else {
      out.push_back(ch);
    }
  }
}

void AppendDouble(double value, std::string& out) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  std::string_view text(buf, ec == std::errc() ? static_cast<size_t>(end - buf) : 0);
  out += text;
  if (text.find_first_of(".eEn") == std::string_view::npos) out += ".0";  // "n": inf, nan
}

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

void AppendFieldName(std::string_view name, std::string& out) {
  if (IsPlainIdentifier(name)) {
    out += name;
  } else {
    out += '`';
    out += name;
    out += '`';
  }
}

class DebugPrinter {
 public:
  explicit DebugPrinter(bool with_ids) : with_ids_(with_ids) {}

  void Print(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::kUnspecified: out_ += "<unspecified>"; break;
      case ExprKind::kConstant: out_ += ConstantToString(e.constant()); break;
      case ExprKind::kIdent: out_ += e.ident().name; break;
      case ExprKind::kSelect: {
        const SelectExpr& s = e.select();
        Print(*s.operand);
        out_ += '.';
        AppendFieldName(s.field, out_);
        if (s.test_only) out_ += "~test-only";
        break;
      }
      case ExprKind::kCall: {
        const CallExpr& c = e.call();
        if (c.has_target()) {
          Print(*c.target);
          out_ += '.';
        }
        out_ += c.function;
        out_ += '(';
        PrintList(c.args);
        out_ += ')';
        break;
      }
      case ExprKind::kList: {
        const ListExpr& l = e.list();
        out_ += '[';
        for (size_t i = 0; i < l.elements.size(); ++i) {
          if (i > 0) out_ += ", ";
          if (l.IsOptional(i)) out_ += '?';
          Print(l.elements[i]);
        }
        out_ += ']';
        break;
      }
      case ExprKind::kStruct: {
        const StructExpr& s = e.struct_expr();
        out_ += s.name;
        out_ += '{';
        for (size_t i = 0; i < s.fields.size(); ++i) {
          const StructField& f = s.fields[i];
          if (i > 0) out_ += ", ";
          if (f.optional) out_ += '?';
          AppendFieldName(f.name, out_);
          Id(f.id);
          out_ += ": ";
          Print(*f.value);
        }
        out_ += '}';
        break;
      }
      case ExprKind::kMap: {
        const MapExpr& m = e.map();
        out_ += '{';
        for (size_t i = 0; i < m.entries.size(); ++i) {
          const MapEntry& entry = m.entries[i];
          if (i > 0) out_ += ", ";
          if (entry.optional) out_ += '?';
          Print(*entry.key);
          Id(entry.id);
          out_ += ": ";
          Print(*entry.value);
        }
        out_ += '}';
        break;
      }
      case ExprKind::kComprehension: {
        const ComprehensionExpr& c = e.comprehension();
        out_ += "__comprehension__(iter: ";
        out_ += c.iter_var;
        if (!c.iter_var2.empty()) {
          out_ += ", iter2: ";
          out_ += c.iter_var2;
        }
        out_ += ", range: ";
        Print(*c.iter_range);
        out_ += ", accu: ";
        out_ += c.accu_var;
        out_ += ", init: ";
        Print(*c.accu_init);
        out_ += ", cond: ";
        Print(*c.loop_condition);
        out_ += ", step: ";
        Print(*c.loop_step);
        out_ += ", result: ";
        Print(*c.result);
        out_ += ')';
        break;
      }
    }
    Id(e.id());
  }

  std::string Take() { return std::move(out_); }

 private:
  void PrintList(const std::vector<Expr>& exprs) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i > 0) out_ += ", ";
      Print(exprs[i]);
    }
  }

  void Id(int64_t id) {
    if (!with_ids_) return;
    out_ += '#';
    out_ += std::to_string(id);
  }

  bool with_ids_;
  std::string out_;
};

}  // namespace

std::string ConstantToString(const Constant& constant) {
  std::string out;
  switch (constant.kind()) {
    case Constant::Kind::kNull: out = "null"; break;
    case Constant::Kind::kBool: out = constant.bool_value() ? "true" : "false"; break;
    case Constant::Kind::kInt: out = std::to_string(constant.int_value()); break;
    case Constant::Kind::kUint: out = std::to_string(constant.uint_value()) + "u"; break;
    case Constant::Kind::kDouble: AppendDouble(constant.double_value(), out); break;
    case Constant::Kind::kString:
      out += '"';
      AppendEscaped(constant.string_value(), /*bytes=*/false, out);
      out += '"';
      break;
    case Constant::Kind::kBytes:
      out += "b\"";
      AppendEscaped(constant.bytes_value(), /*bytes=*/true, out);
      out += '"';
      break;
  }
  return out;
}

std::string DebugString(const Expr& expr, bool with_ids) {
  DebugPrinter printer(with_ids);
  printer.Print(expr);
  return printer.Take();
}

namespace {

// E is Expr or const Expr; one walk serves both overloads.
template <typename E, typename F>
void ForEachChildImpl(E& e, const F& fn) {
  switch (e.kind()) {
    case ExprKind::kSelect: fn(*e.template As<SelectExpr>().operand); break;
    case ExprKind::kCall: {
      auto& call = e.template As<CallExpr>();
      if (call.has_target()) fn(*call.target);
      for (auto& arg : call.args) fn(arg);
      break;
    }
    case ExprKind::kList:
      for (auto& elem : e.template As<ListExpr>().elements) fn(elem);
      break;
    case ExprKind::kMap:
      for (auto& entry : e.template As<MapExpr>().entries) {
        fn(*entry.key);
        fn(*entry.value);
      }
      break;
    case ExprKind::kStruct:
      for (auto& f : e.template As<StructExpr>().fields) fn(*f.value);
      break;
    case ExprKind::kComprehension: {
      auto& c = e.template As<ComprehensionExpr>();
      fn(*c.iter_range);
      fn(*c.accu_init);
      fn(*c.loop_condition);
      fn(*c.loop_step);
      fn(*c.result);
      break;
    }
    default: break;
  }
}

}  // namespace

void ForEachChild(const Expr& e, const std::function<void(const Expr&)>& fn) { ForEachChildImpl(e, fn); }

void ForEachChild(Expr& e, const std::function<void(Expr&)>& fn) { ForEachChildImpl(e, fn); }

}  // namespace dra::cel
