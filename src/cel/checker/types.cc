// CEL static types: construction, printing and the type-name parser.
#include "cel/checker/types.h"

#include <cctype>

namespace dra::cel {

struct Type::Rep {
  TypeKind kind;
  std::string name;
  std::vector<Type> params;
};

namespace {

constexpr std::string_view kOptionalTypeName = "optional_type";

}  // namespace

Type Type::Make(TypeKind kind, std::string name, std::vector<Type> params) {
  return Type(std::make_shared<const Rep>(Rep{kind, std::move(name), std::move(params)}));
}

// The parameterless types are shared singletons, so that the checker's
// thousands of int and bool types cost no allocation.
#define DRA_CEL_SIMPLE_TYPE(Fn, kind, name)                      \
  Type Type::Fn() {                                              \
    static const Type* const t = new Type(Make(kind, name, {})); \
    return *t;                                                   \
  }
DRA_CEL_SIMPLE_TYPE(Error, TypeKind::kError, "*error*")
DRA_CEL_SIMPLE_TYPE(Dyn, TypeKind::kDyn, "dyn")
DRA_CEL_SIMPLE_TYPE(Any, TypeKind::kAny, "google.protobuf.Any")
DRA_CEL_SIMPLE_TYPE(Null, TypeKind::kNull, "null_type")
DRA_CEL_SIMPLE_TYPE(Bool, TypeKind::kBool, "bool")
DRA_CEL_SIMPLE_TYPE(Int, TypeKind::kInt, "int")
DRA_CEL_SIMPLE_TYPE(Uint, TypeKind::kUint, "uint")
DRA_CEL_SIMPLE_TYPE(Double, TypeKind::kDouble, "double")
DRA_CEL_SIMPLE_TYPE(String, TypeKind::kString, "string")
DRA_CEL_SIMPLE_TYPE(Bytes, TypeKind::kBytes, "bytes")
DRA_CEL_SIMPLE_TYPE(Timestamp, TypeKind::kTimestamp, "google.protobuf.Timestamp")
DRA_CEL_SIMPLE_TYPE(Duration, TypeKind::kDuration, "google.protobuf.Duration")
DRA_CEL_SIMPLE_TYPE(TypeType, TypeKind::kType, "type")
#undef DRA_CEL_SIMPLE_TYPE

Type::Type() : Type(Dyn()) {}

Type Type::List(Type element) { return Make(TypeKind::kList, "list", {std::move(element)}); }
Type Type::Map(Type key, Type value) { return Make(TypeKind::kMap, "map", {std::move(key), std::move(value)}); }
Type Type::TypeOf(Type type) { return Make(TypeKind::kType, "type", {std::move(type)}); }
Type Type::Optional(Type value) { return Make(TypeKind::kOpaque, std::string(kOptionalTypeName), {std::move(value)}); }
Type Type::Opaque(std::string name, std::vector<Type> params) {
  return Make(TypeKind::kOpaque, std::move(name), std::move(params));
}
Type Type::Struct(std::string name) { return Make(TypeKind::kStruct, std::move(name), {}); }
Type Type::Param(std::string name) { return Make(TypeKind::kTypeParam, std::move(name), {}); }

TypeKind Type::kind() const { return rep_->kind; }
const std::string& Type::name() const { return rep_->name; }
std::span<const Type> Type::params() const { return rep_->params; }

bool Type::is_optional() const {
  return rep_->kind == TypeKind::kOpaque && rep_->name == kOptionalTypeName && rep_->params.size() == 1;
}

const Type& Type::optional_value() const { return rep_->params.at(0); }

bool Type::IsExact(const Type& other) const {
  if (rep_ == other.rep_) return true;
  if (rep_->kind != other.rep_->kind || rep_->name != other.rep_->name ||
      rep_->params.size() != other.rep_->params.size()) {
    return false;
  }
  for (size_t i = 0; i < rep_->params.size(); ++i) {
    if (!rep_->params[i].IsExact(other.rep_->params[i])) return false;
  }
  return true;
}

namespace {

std::string Format(const Type& t, bool declared) {
  if (!declared) {
    switch (t.kind()) {
      case TypeKind::kAny: return "any";
      case TypeKind::kDuration: return "duration";
      case TypeKind::kError: return "!error!";
      case TypeKind::kNull: return "null";
      case TypeKind::kTimestamp: return "timestamp";
      default: break;
    }
  }
  if (t.params().empty()) return t.name();
  std::string out = t.name();
  out += '(';
  for (size_t i = 0; i < t.params().size(); ++i) {
    if (i > 0) out += ", ";
    out += Format(t.params()[i], declared);
  }
  out += ')';
  return out;
}

// Recursive-descent parser for ParseTypeName / ParseSignatureType.
class TypeNameParser {
 public:
  TypeNameParser(std::string_view text, bool type_params) : text_(text), type_params_(type_params) {}

  StatusOr<Type> ParseAll() {
    StatusOr<Type> t = ParseType(0);
    if (!t.ok()) return t;
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected text after the type");
    return t;
  }

 private:
  static constexpr int kMaxDepth = 64;

  Status Error(std::string_view what) const {
    return InvalidArgumentError("invalid CEL type '" + std::string(text_) + "': " + std::string(what));
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  std::string_view ParseName() {
    SkipSpaces();
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
        ++pos_;
      } else {
        break;
      }
    }
    return text_.substr(start, pos_ - start);
  }

  StatusOr<Type> ParseType(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    const std::string_view name = ParseName();
    if (name.empty()) return Error("expected a type name");
    std::vector<Type> params;
    SkipSpaces();
    bool has_parens = false;
    if (pos_ < text_.size() && text_[pos_] == '(') {
      has_parens = true;
      ++pos_;
      while (true) {
        StatusOr<Type> p = ParseType(depth + 1);
        if (!p.ok()) return p;
        params.push_back(*std::move(p));
        SkipSpaces();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ')') {
          ++pos_;
          break;
        }
        return Error("expected ',' or ')'");
      }
    }
    return Build(name, std::move(params), has_parens);
  }

  StatusOr<Type> Build(std::string_view name, std::vector<Type> params, bool has_parens) {
    struct Simple {
      std::string_view name;
      Type (*make)();
    };
    static constexpr Simple kSimple[] = {
        {"int", Type::Int},
        {"uint", Type::Uint},
        {"double", Type::Double},
        {"bool", Type::Bool},
        {"string", Type::String},
        {"bytes", Type::Bytes},
        {"null_type", Type::Null},
        {"null", Type::Null},
        {"dyn", Type::Dyn},
        {"any", Type::Any},
        {"google.protobuf.Any", Type::Any},
        {"timestamp", Type::Timestamp},
        {"google.protobuf.Timestamp", Type::Timestamp},
        {"duration", Type::Duration},
        {"google.protobuf.Duration", Type::Duration},
    };
    for (const Simple& s : kSimple) {
      if (name == s.name) {
        if (has_parens) return Error("'" + std::string(name) + "' takes no parameters");
        return s.make();
      }
    }
    if (name == "list") {
      if (!has_parens) return Type::List(Type::Dyn());
      if (params.size() != 1) return Error("list takes one parameter");
      return Type::List(std::move(params[0]));
    }
    if (name == "map") {
      if (!has_parens) return Type::Map(Type::Dyn(), Type::Dyn());
      if (params.size() != 2) return Error("map takes two parameters");
      return Type::Map(std::move(params[0]), std::move(params[1]));
    }
    if (name == "type") {
      if (!has_parens) return Type::TypeType();
      if (params.size() != 1) return Error("type takes one parameter");
      return Type::TypeOf(std::move(params[0]));
    }
    if (name == "optional_type" || name == "optional") {
      if (params.size() != 1) return Error("optional_type takes one parameter");
      return Type::Optional(std::move(params[0]));
    }
    if (type_params_ && name.size() == 1 && std::isupper(static_cast<unsigned char>(name[0]))) {
      if (has_parens) return Error("a type parameter takes no parameters");
      return Type::Param(std::string(name));
    }
    if (name.find('.') == std::string_view::npos || name.front() == '.' || name.back() == '.') {
      return Error("unknown type '" + std::string(name) + "'");
    }
    return Type::Opaque(std::string(name), std::move(params));
  }

  std::string_view text_;
  bool type_params_;
  size_t pos_ = 0;
};

}  // namespace

std::string Type::ToString() const { return Format(*this, /*declared=*/false); }
std::string Type::DeclaredString() const { return Format(*this, /*declared=*/true); }

StatusOr<Type> ParseTypeName(std::string_view text) { return TypeNameParser(text, /*type_params=*/false).ParseAll(); }

StatusOr<Type> ParseSignatureType(std::string_view text) {
  return TypeNameParser(text, /*type_params=*/true).ParseAll();
}

}  // namespace dra::cel
