// dractl cel run FILE.jsonl [--profile standard|kubernetes]: evaluates CEL
// conformance vectors (shared/conformance/FORMAT.md §2) and prints one JSON
// object a line, in input order (§3):
//
//   {"name": "...", "value": <typed value>}   or   {"name": "...", "error": "..."}
//
// Exit 0 whenever the file could be read and parsed, whatever the vectors
// evaluate to; 1 if it cannot be read or a line is not a JSON object; 2 on a
// usage error.
//
// Per vector: `expr` is parsed; `decls` and `bindings` declare variables
// (every bound name is declared); `container` sets the namespace; `check:
// false` turns undeclared identifiers into run-time errors instead of
// compile errors (cel-go without its checker). The Kubernetes profile's own
// libraries and the `device` variable come from the DRA environment, which
// this command does not have yet: such vectors report an error starting
// with "not supported yet".
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cel/library.h"
#include "cel/parser.h"
#include "cel/program.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/json_parser.h"

namespace dra::cli {
namespace {

using cel::Value;
using cel::ValueKind;
using manifest::Node;
using manifest::NodeKind;

constexpr std::string_view kNotSupported = "not supported yet: ";

// Functions of the Kubernetes libraries that dra_env will provide.
const std::set<std::string_view>& KubernetesOnlyFunctions() {
  static const std::set<std::string_view> kNames = {
      "quantity", "isQuantity", "sign", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
      "asInteger", "isInteger", "asApproximateFloat", "semver", "isSemver", "major", "minor",
      "patch", "isSorted", "sum", "min", "max", "includes", "find", "findAll", "url", "isURL",
      "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "ip",
      "isIP", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
      "isLinkLocalUnicast", "isGlobalUnicast", "cidr", "isCIDR", "containsIP", "containsCIDR",
      "prefixLength", "masked", "format.named", "validate", "isCanonical"};
  return kNames;
}

// --- Typed JSON values (FORMAT.md §2) ------------------------------------------------

std::string Base64Encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (i + 1 == in.size()) {
    const uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view in) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else {
      return InvalidArgumentError("invalid base64");
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

std::string_view StaticTypeName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"bool",   "int",       "uint", "double",
                                                "string", "bytes",     "list", "map",
                                                "null_type", "type", "optional_type"};
  for (std::string_view n : kNames) {
    if (n == name) return n;
  }
  return {};
}

StatusOr<Value> FromTypedJson(const Node& node) {
  if (!node.is_mapping() || node.keys.size() != 1) {
    return InvalidArgumentError("a typed value is an object with one key");
  }
  const std::string& type = node.keys[0].first;
  const Node& v = node.items[0];
  if (type == "int") {
    int64_t i = 0;
    auto [p, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), i);
    if (ec != std::errc() || p != v.text.data() + v.text.size()) {
      return InvalidArgumentError("bad int: " + v.text);
    }
    return Value::Int(i);
  }
  if (type == "uint") {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), u);
    if (ec != std::errc() || p != v.text.data() + v.text.size()) {
      return InvalidArgumentError("bad uint: " + v.text);
    }
    return Value::Uint(u);
  }
  if (type == "double") {
    if (v.kind == NodeKind::kString) {
      if (v.text == "NaN") return Value::Double(std::nan(""));
      if (v.text == "Infinity") return Value::Double(HUGE_VAL);
      if (v.text == "-Infinity") return Value::Double(-HUGE_VAL);
      return InvalidArgumentError("bad double: " + v.text);
    }
    double d = 0;
    auto [p, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), d);
    if (ec != std::errc()) return InvalidArgumentError("bad double: " + v.text);
    return Value::Double(d);
  }
  if (type == "string") return Value::String(v.text);
  if (type == "bytes") {
    DRA_ASSIGN_OR_RETURN(std::string b, Base64Decode(v.text));
    return Value::Bytes(std::move(b));
  }
  if (type == "bool") return Value::Bool(v.bool_value);
  if (type == "null") return Value::Null();
  if (type == "list") {
    std::vector<Value> elements;
    for (const Node& item : v.items) {
      DRA_ASSIGN_OR_RETURN(Value e, FromTypedJson(item));
      elements.push_back(std::move(e));
    }
    return Value::List(std::move(elements));
  }
  if (type == "map") {
    auto map = cel::MakeRef<cel::HashMap>();
    for (const Node& pair : v.items) {
      if (!pair.is_sequence() || pair.items.size() != 2) {
        return InvalidArgumentError("a map entry is a [key, value] pair");
      }
      DRA_ASSIGN_OR_RETURN(Value key, FromTypedJson(pair.items[0]));
      DRA_ASSIGN_OR_RETURN(Value value, FromTypedJson(pair.items[1]));
      if (!cel::IsValidMapKey(key) || !map->Insert(key, std::move(value))) {
        return InvalidArgumentError("bad or repeated map key " + key.DebugString());
      }
    }
    return Value::Map(std::move(map));
  }
  if (type == "type") {
    std::string_view name = StaticTypeName(v.text);
    if (name.empty()) return InvalidArgumentError("unknown type " + v.text);
    return Value::Type(name);
  }
  return InvalidArgumentError(std::string(kNotSupported) + "typed value '" + type + "'");
}

void AppendJsonString(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

void AppendTypedJson(const Value& v, std::string& out) {
  switch (v.kind()) {
    case ValueKind::kNull: out += "{\"null\": null}"; return;
    case ValueKind::kBool: out += v.bool_value() ? "{\"bool\": true}" : "{\"bool\": false}"; return;
    case ValueKind::kInt: out += "{\"int\": \"" + std::to_string(v.int_value()) + "\"}"; return;
    case ValueKind::kUint: out += "{\"uint\": \"" + std::to_string(v.uint_value()) + "\"}"; return;
    case ValueKind::kDouble: {
      const double d = v.double_value();
      out += "{\"double\": ";
      if (std::isnan(d)) {
        out += "\"NaN\"";
      } else if (std::isinf(d)) {
        out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
      } else {
        char buf[64];
        auto res = std::to_chars(buf, buf + sizeof(buf), d);
        std::string_view text(buf, static_cast<size_t>(res.ptr - buf));
        out += text;
        if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
      }
      out.push_back('}');
      return;
    }
    case ValueKind::kString:
      out += "{\"string\": ";
      AppendJsonString(v.string_value(), out);
      out.push_back('}');
      return;
    case ValueKind::kBytes:
      out += "{\"bytes\": \"" + Base64Encode(v.bytes_value()) + "\"}";
      return;
    case ValueKind::kList: {
      out += "{\"list\": [";
      const cel::ListObject& l = v.list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i > 0) out += ", ";
        AppendTypedJson(l.Get(i), out);
      }
      out += "]}";
      return;
    }
    case ValueKind::kMap: {
      out += "{\"map\": [";
      const cel::MapObject& m = v.map();
      for (size_t i = 0; i < m.size(); ++i) {
        if (i > 0) out += ", ";
        out.push_back('[');
        AppendTypedJson(m.KeyAt(i), out);
        out += ", ";
        AppendTypedJson(m.ValueAt(i), out);
        out.push_back(']');
      }
      out += "]}";
      return;
    }
    case ValueKind::kType:
      out += "{\"type\": ";
      AppendJsonString(v.type_name_value(), out);
      out.push_back('}');
      return;
    case ValueKind::kOptional:
      out += "{\"optional\": ";
      if (v.has_optional_value()) {
        AppendTypedJson(v.optional_value(), out);
      } else {
        out += "null";
      }
      out.push_back('}');
      return;
    case ValueKind::kError:
      out += "{\"error\": ";
      AppendJsonString(v.error_message(), out);
      out.push_back('}');
      return;
    case ValueKind::kOpaque: {
      std::string_view type = v.opaque().type_name();
      if (type == "kubernetes.Quantity") type = "quantity";
      if (type == "kubernetes.Semver") type = "semver";
      out += "{";
      AppendJsonString(type, out);
      out += ": ";
      AppendJsonString(v.opaque().DebugString(), out);
      out.push_back('}');
      return;
    }
  }
}

// --- Running one vector --------------------------------------------------------------

// The result of one vector: the typed JSON of its value, or an error message.
struct Outcome {
  bool has_value = false;
  std::string value_json;
  std::string error;
};

// Reports the first call of a Kubernetes-only function in `e`, if any.
bool FindKubernetesOnlyCall(const cel::Expr& e, const cel::FunctionRegistry& registry,
                            std::string* name) {
  bool found = false;
  std::function<void(const cel::Expr&)> walk = [&](const cel::Expr& x) {
    if (found) return;
    switch (x.kind()) {
      case cel::ExprKind::kCall: {
        const cel::CallExpr& c = x.call();
        if (KubernetesOnlyFunctions().count(c.function) > 0 && !registry.HasFunction(c.function)) {
          *name = c.function;
          found = true;
          return;
        }
        if (c.has_target()) walk(*c.target);
        for (const cel::Expr& a : c.args) walk(a);
        return;
      }
      case cel::ExprKind::kSelect: walk(*x.select().operand); return;
      case cel::ExprKind::kList:
        for (const cel::Expr& el : x.list().elements) walk(el);
        return;
      case cel::ExprKind::kMap:
        for (const cel::MapEntry& m : x.map().entries) {
          walk(*m.key);
          walk(*m.value);
        }
        return;
      case cel::ExprKind::kStruct:
        for (const cel::StructField& f : x.struct_expr().fields) walk(*f.value);
        return;
      case cel::ExprKind::kComprehension: {
        const cel::ComprehensionExpr& c = x.comprehension();
        walk(*c.iter_range);
        walk(*c.accu_init);
        walk(*c.loop_condition);
        walk(*c.loop_step);
        walk(*c.result);
        return;
      }
      default: return;
    }
  };
  walk(e);
  return found;
}

Outcome RunVector(const Node& vector, bool kubernetes,
                  const std::shared_ptr<const cel::FunctionRegistry>& registry) {
  Outcome out;
  const Node* expr = vector.Find("expr");
  if (expr == nullptr || expr->kind != NodeKind::kString) {
    out.error = "vector has no \"expr\" string";
    return out;
  }
  if (kubernetes && vector.Find("device") != nullptr) {
    out.error = std::string(kNotSupported) + "the DRA `device` variable (dra_env)";
    return out;
  }
  StatusOr<cel::ParseResult> parsed = cel::Parse(expr->text);
  if (!parsed.ok()) {
    out.error = parsed.status().message();
    return out;
  }
  if (!parsed->issues.empty()) {
    out.error = cel::FormatIssues(expr->text, parsed->issues);
    return out;
  }
  std::string k8s_function;
  if (kubernetes && FindKubernetesOnlyCall(parsed->expr->expr, *registry, &k8s_function)) {
    out.error = std::string(kNotSupported) + "Kubernetes library function '" + k8s_function + "'";
    return out;
  }

  cel::Environment env;
  env.registry = registry;
  cel::MapActivation activation;
  if (const Node* decls = vector.Find("decls"); decls != nullptr && decls->is_mapping()) {
    for (const auto& [name, mark] : decls->keys) env.variables.push_back(name);
  }
  if (const Node* bindings = vector.Find("bindings"); bindings != nullptr && bindings->is_mapping()) {
    for (size_t i = 0; i < bindings->keys.size(); ++i) {
      const std::string& name = bindings->keys[i].first;
      StatusOr<Value> v = FromTypedJson(bindings->items[i]);
      if (!v.ok()) {
        out.error = "binding " + name + ": " + v.status().message();
        return out;
      }
      activation.Bind(name, std::move(*v));
      env.variables.push_back(name);
    }
  }
  if (const Node* container = vector.Find("container"); container != nullptr) {
    env.container = container->text;
  }
  if (const Node* check = vector.Find("check"); check != nullptr && check->kind == NodeKind::kBool) {
    env.options.report_undeclared = check->bool_value;
  }
  StatusOr<cel::PlanResult> planned = cel::Plan(*parsed->expr, env);
  if (!planned.ok()) {
    out.error = planned.status().message();
    return out;
  }
  if (!planned->issues.empty()) {
    out.error = cel::FormatIssues(expr->text, planned->issues);
    return out;
  }
  cel::EvalState state;
  StatusOr<Value> result = planned->program->Evaluate(activation, state);
  if (!result.ok()) {
    out.error = result.status().message();
    return out;
  }
  if (result->is_error()) {
    out.error = std::string(result->error_message());
    return out;
  }
  // Rendered here, while the program and the activation are alive (the value
  // may borrow from them).
  out.has_value = true;
  AppendTypedJson(*result, out.value_json);
  return out;
}

}  // namespace

int RunCel(std::span<const std::string_view> args) {
  CLI::App app{"Evaluates CEL expressions.", "dractl cel"};
  app.require_subcommand(1);
  CLI::App* run = app.add_subcommand(
      "run",
      "Evaluates the conformance vectors of FILE.jsonl (shared/conformance/FORMAT.md) and prints\n"
      "one JSON object a line: {\"name\": ..., \"value\": <typed value>} or {\"name\": ..., "
      "\"error\": ...}.");
  std::string file;
  std::string profile = "standard";
  run->add_option("FILE", file, "a .jsonl file of CEL vectors")->required();
  run->add_option("--profile", profile, "standard (cel-spec) or kubernetes (DRA selectors)")
      ->check(CLI::IsMember({"standard", "kubernetes"}))
      ->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "dractl cel run: cannot read %s\n", file.c_str());
    return kExitInputError;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(text, file);
  if (!docs.ok()) {
    std::fprintf(stderr, "dractl cel run: %s\n", docs.status().message().c_str());
    return kExitInputError;
  }
  for (const manifest::Document& doc : *docs) {
    if (!doc.root.is_mapping()) {
      std::fprintf(stderr, "dractl cel run: %s:%u: a vector is a JSON object\n", file.c_str(),
                   doc.mark.line);
      return kExitInputError;
    }
  }

  const bool kubernetes = profile == "kubernetes";
  StatusOr<std::shared_ptr<cel::FunctionRegistry>> registry = cel::NewRegistry(
      kubernetes ? cel::LibraryOptions::Kubernetes() : cel::LibraryOptions::Standard());
  if (!registry.ok()) {
    std::fprintf(stderr, "dractl cel run: internal error: %s\n", registry.status().message().c_str());
    return kExitInternalError;
  }
  std::shared_ptr<const cel::FunctionRegistry> shared = *registry;
  std::string line;
  for (const manifest::Document& doc : *docs) {
    const Node* name = doc.root.Find("name");
    line = "{\"name\": ";
    AppendJsonString(name != nullptr ? name->text : "", line);
    Outcome outcome = RunVector(doc.root, kubernetes, shared);
    if (outcome.has_value) {
      line += ", \"value\": ";
      line += outcome.value_json;
    } else {
      line += ", \"error\": ";
      AppendJsonString(outcome.error, line);
    }
    line += "}\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace dra::cli
