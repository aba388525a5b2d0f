// dractl cel run FILE.jsonl [--profile standard|kubernetes]: evaluates CEL
// conformance vectors (testdata/conformance/FORMAT.md §2) and prints one JSON
// object a line, in input order (FORMAT.md §3):
//
//   {"name": "...", "value": <typed value>}   or   {"name": "...", "error": "..."}
//
// Exit 0 whenever the file could be read and parsed, whatever the vectors
// evaluate to; 1 if it cannot be read or a line is not a JSON object; 2 on a
// usage error.
//
// Standard profile (cel-spec files), per vector: `expr` is parsed; `decls`
// and `bindings` declare variables (every bound name is declared);
// `container` sets the namespace; `check: false` turns undeclared
// identifiers into run-time errors instead of compile errors (cel-go without
// its checker).
//
// Kubernetes profile (k8s-* and dra-* files): the expression is compiled in
// the DRA selector environment of Kubernetes 1.37 (cel/dra/dra_env.h):
// StoredExpressions, or NewExpressions when `env` says so, with the feature
// gates of `features` (DRAConsumableCapacity, DRAListTypeAttributes).
// A vector with `device` is evaluated as kube-scheduler evaluates a selector
// on that device (the result must be a bool; errors as the allocator sees
// them), the device built from `raw_attributes` / `raw_capacity` when given
// (so that the engine's own domain resolution is exercised), else from
// `device`. Without `device` the expression's value is printed as is.
// `phase` and `max_cost` are informative and ignored (there is no cost
// estimator); the runtime cost limit is Kubernetes' 1,000,000.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "api/resource.h"
#include "base/base64.h"
#include "base/json_escape.h"
#include "cel/dra/dra_env.h"
#include "cel/libraries/k8s_lib.h"
#include "cel/libraries/library.h"
#include "cel/parser/parser.h"
#include "cel/runtime/program.h"
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

// Strings in typed values and result lines: \b, \f and DEL as \u00XX.
constexpr JsonEscapeOptions kTypedJsonString{.short_backspace_formfeed = false, .escape_del = true};

// --- Typed JSON values (FORMAT.md §2) ------------------------------------------------

std::string_view StaticTypeName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"bool", "int", "uint",      "double", "string",       "bytes",
                                                "list", "map", "null_type", "type",   "optional_type"};
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
    DRA_ASSIGN_OR_RETURN(std::string b, Base64Decode(v.text, Base64Syntax::kLenient));
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
  if (type == "quantity") {
    StatusOr<quantity::Quantity> q = quantity::Quantity::Parse(v.text);
    if (!q.ok()) return q.status();
    return cel::NewQuantityValue(*q);
  }
  if (type == "semver") {
    StatusOr<cel::lib::SemVer> sv = cel::lib::SemVer::Parse(v.text);
    if (!sv.ok()) return sv.status();
    return cel::NewSemverValue(*std::move(sv));
  }
  return InvalidArgumentError(std::string(kNotSupported) + "typed value '" + type + "'");
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
      AppendJsonString(v.string_value(), out, kTypedJsonString);
      out.push_back('}');
      return;
    case ValueKind::kBytes: out += "{\"bytes\": \"" + Base64Encode(v.bytes_value()) + "\"}"; return;
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
      AppendJsonString(v.type_name_value(), out, kTypedJsonString);
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
      AppendJsonString(v.error_message(), out, kTypedJsonString);
      out.push_back('}');
      return;
    case ValueKind::kOpaque: {
      std::string_view type = v.opaque().type_name();
      if (type == "kubernetes.Quantity") type = "quantity";
      if (type == "kubernetes.Semver") type = "semver";
      out += "{";
      AppendJsonString(type, out, kTypedJsonString);
      out += ": ";
      AppendJsonString(v.opaque().DebugString(), out, kTypedJsonString);
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

// The standard profile: plain CEL with the vector's declarations and bindings.
Outcome RunVector(const Node& vector, const std::shared_ptr<const cel::FunctionRegistry>& registry) {
  Outcome out;
  const Node* expr = vector.Find("expr");
  if (expr == nullptr || expr->kind != NodeKind::kString) {
    out.error = "vector has no \"expr\" string";
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

// --- The Kubernetes profile -------------------------------------------------------------

// A DeviceAttribute from a typed value ({"int": "5"}, {"semver": "1.2.3"},
// {"list": [...]}, ...).
StatusOr<api::DeviceAttribute> AttributeFromTypedJson(const Node& node) {
  if (!node.is_mapping() || node.keys.size() != 1) {
    return InvalidArgumentError("an attribute value is an object with one key");
  }
  const std::string& type = node.keys[0].first;
  const Node& v = node.items[0];
  if (type == "list") {
    std::string element_type;
    for (const Node& item : v.items) {
      if (!item.is_mapping() || item.keys.size() != 1) {
        return InvalidArgumentError("a list attribute element is an object with one key");
      }
      if (element_type.empty()) element_type = item.keys[0].first;
      if (item.keys[0].first != element_type) {
        return InvalidArgumentError("a list attribute mixes element types");
      }
    }
    std::vector<int64_t> ints;
    std::vector<bool> bools;
    std::vector<api::InternedString> strings;
    for (const Node& item : v.items) {
      DRA_ASSIGN_OR_RETURN(api::DeviceAttribute a, AttributeFromTypedJson(item));
      if (const int64_t* i = a.int_value()) ints.push_back(*i);
      if (const bool* b = a.bool_value()) bools.push_back(*b);
      if (const api::InternedString* s = a.string_value()) strings.push_back(*s);
      if (const api::InternedString* s = a.version_value()) strings.push_back(*s);
    }
    if (element_type == "bool") return api::DeviceAttribute::Bools(std::move(bools));
    if (element_type == "string") return api::DeviceAttribute::Strings(std::move(strings));
    if (element_type == "semver") return api::DeviceAttribute::Versions(std::move(strings));
    return api::DeviceAttribute::Ints(std::move(ints));
  }
  if (type == "int") {
    DRA_ASSIGN_OR_RETURN(Value i, FromTypedJson(node));
    return api::DeviceAttribute::Int(i.int_value());
  }
  if (type == "bool") return api::DeviceAttribute::Bool(v.bool_value);
  if (type == "string") return api::DeviceAttribute::String(v.text);
  if (type == "semver") return api::DeviceAttribute::VersionOf(v.text);
  return InvalidArgumentError("unsupported attribute value type '" + type + "'");
}

// The device of a vector, and the driver of its slice.
struct VectorDevice {
  api::Device device;
  std::string driver;
};

StatusOr<VectorDevice> DeviceFromVector(const Node& vector) {
  const Node& d = *vector.Find("device");
  VectorDevice out;
  if (const Node* driver = d.Find("driver")) out.driver = driver->text;
  if (const Node* multi = d.Find("allowMultipleAllocations"); multi != nullptr) {
    out.device.allow_multiple_allocations = multi->bool_value;
  }
  // A name in the slice's form: bare for the driver's own domain.
  const auto qualified = [&](const std::string& domain, const std::string& id) {
    return domain == out.driver ? id : domain + "/" + id;
  };
  if (const Node* raw = vector.Find("raw_attributes")) {
    for (size_t i = 0; i < raw->keys.size(); ++i) {
      DRA_ASSIGN_OR_RETURN(api::DeviceAttribute a, AttributeFromTypedJson(raw->items[i]));
      out.device.attributes.insert_or_assign(api::InternedString(raw->keys[i].first), std::move(a));
    }
  } else if (const Node* attrs = d.Find("attributes")) {
    for (size_t i = 0; i < attrs->keys.size(); ++i) {
      const Node& inner = attrs->items[i];
      for (size_t j = 0; j < inner.keys.size(); ++j) {
        DRA_ASSIGN_OR_RETURN(api::DeviceAttribute a, AttributeFromTypedJson(inner.items[j]));
        const std::string name = qualified(attrs->keys[i].first, inner.keys[j].first);
        out.device.attributes.insert_or_assign(api::InternedString(name), std::move(a));
      }
    }
  }
  const auto add_capacity = [&](const std::string& name, const Node& value) -> Status {
    DRA_ASSIGN_OR_RETURN(quantity::Quantity q, quantity::Quantity::Parse(value.text));
    api::DeviceCapacity c;
    c.value = q;
    out.device.capacity.insert_or_assign(api::InternedString(name), std::move(c));
    return OkStatus();
  };
  if (const Node* raw = vector.Find("raw_capacity")) {
    for (size_t i = 0; i < raw->keys.size(); ++i) {
      DRA_RETURN_IF_ERROR(add_capacity(raw->keys[i].first, raw->items[i]));
    }
  } else if (const Node* caps = d.Find("capacity")) {
    for (size_t i = 0; i < caps->keys.size(); ++i) {
      const Node& inner = caps->items[i];
      for (size_t j = 0; j < inner.keys.size(); ++j) {
        DRA_RETURN_IF_ERROR(add_capacity(qualified(caps->keys[i].first, inner.keys[j].first), inner.items[j]));
      }
    }
  }
  return out;
}

// One DraEnvironment per combination of environment and gates a file uses.
class KubernetesProfile {
 public:
  StatusOr<const cel::DraEnvironment*> Environment(const Node& vector) {
    cel::DraEnvOptions options;
    if (const Node* env = vector.Find("env"); env != nullptr) {
      if (env->text != "NewExpressions" && env->text != "StoredExpressions") {
        return InvalidArgumentError("unknown env \"" + env->text + "\"");
      }
      options.new_expressions = env->text == "NewExpressions";
    }
    if (const Node* features = vector.Find("features"); features != nullptr) {
      for (const Node& f : features->items) {
        if (f.text == "DRAConsumableCapacity") {
          options.consumable_capacity = true;
        } else if (f.text == "DRAListTypeAttributes") {
          options.list_type_attributes = true;
        } else {
          return InvalidArgumentError("unknown feature gate \"" + f.text + "\"");
        }
      }
    }
    const int key = (options.new_expressions ? 4 : 0) | (options.consumable_capacity ? 2 : 0) |
                    (options.list_type_attributes ? 1 : 0);
    std::unique_ptr<cel::DraEnvironment>& env = envs_[key];
    if (env == nullptr) {
      DRA_ASSIGN_OR_RETURN(env, cel::DraEnvironment::New(options));
    }
    return env.get();
  }

  cel::EvalScratch& scratch() { return scratch_; }

 private:
  std::map<int, std::unique_ptr<cel::DraEnvironment>> envs_;
  cel::EvalScratch scratch_;
};

Outcome RunKubernetesVector(const Node& vector, KubernetesProfile& profile) {
  Outcome out;
  const Node* expr = vector.Find("expr");
  if (expr == nullptr || expr->kind != NodeKind::kString) {
    out.error = "vector has no \"expr\" string";
    return out;
  }
  for (std::string_view field : {"bindings", "decls", "container"}) {
    if (vector.Find(field) != nullptr) {
      out.error = std::string(kNotSupported) + "'" + std::string(field) +
                  "' in the Kubernetes profile (only `device` is declared)";
      return out;
    }
  }
  StatusOr<const cel::DraEnvironment*> env = profile.Environment(vector);
  if (!env.ok()) {
    out.error = env.status().message();
    return out;
  }
  // With a device the vector is a selector, compiled as the scheduler does
  // (result type bool); without one, an expression of any type.
  const bool has_device = vector.Find("device") != nullptr;
  std::shared_ptr<const cel::CompiledSelector> selector =
      has_device ? (*env)->Compile(expr->text) : (*env)->CompileExpression(expr->text);
  if (!selector->ok()) {
    out.error = selector->error();
    return out;
  }
  if (has_device) {
    StatusOr<VectorDevice> device = DeviceFromVector(vector);
    if (!device.ok()) {
      out.error = "device: " + device.status().message();
      return out;
    }
    StatusOr<bool> match = (*env)->Matches(*selector, device->device, device->driver, profile.scratch());
    if (!match.ok()) {
      out.error = match.status().message();
      return out;
    }
    out.has_value = true;
    AppendTypedJson(Value::Bool(*match), out.value_json);
    return out;
  }
  StatusOr<Value> result = (*env)->Evaluate(*selector, nullptr, "", profile.scratch());
  if (!result.ok()) {
    out.error = result.status().message();
    return out;
  }
  if (result->is_error()) {
    out.error = std::string(result->error_message());
    return out;
  }
  // Rendered now: the value may borrow from the scratch.
  out.has_value = true;
  AppendTypedJson(*result, out.value_json);
  return out;
}

}  // namespace

int RunCel(std::span<const std::string_view> args) {
  CLI::App app{"Evaluates CEL expressions.", "dractl cel"};
  app.require_subcommand(1);
  CLI::App* run =
      app.add_subcommand("run",
                         "Evaluates the conformance vectors of FILE.jsonl (dractl's CEL vector format) and prints\n"
                         "one JSON object a line: {\"name\": ..., \"value\": <typed value>} or {\"name\": ..., "
                         "\"error\": ...}.");
  std::string file;
  std::string profile = "standard";
  run->add_option("FILE", file, "a .jsonl file of CEL vectors")->required();
  run->add_option("--profile", profile, "standard (cel-spec) or kubernetes (DRA selectors)")
      ->check(CLI::IsMember({"standard", "kubernetes"}))
      ->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;

  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    std::fprintf(stderr, "dractl cel run: %s: is a directory, not a .jsonl file\n", file.c_str());
    return kExitInputError;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "dractl cel run: %s: cannot open: %s\n", file.c_str(), std::strerror(errno));
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
      const std::string_view kind = manifest::NodeKindName(doc.root.kind);
      std::fprintf(stderr, "dractl cel run: %s:%u:%u: a vector is a JSON object, not %.*s\n", file.c_str(),
                   doc.mark.line, doc.mark.column, static_cast<int>(kind.size()), kind.data());
      return kExitInputError;
    }
  }

  const bool kubernetes = profile == "kubernetes";
  StatusOr<std::shared_ptr<cel::FunctionRegistry>> registry = cel::NewRegistry(cel::LibraryOptions::Standard());
  if (!registry.ok()) {
    std::fprintf(stderr, "dractl cel run: internal error: %s\n", registry.status().message().c_str());
    return kExitInternalError;
  }
  std::shared_ptr<const cel::FunctionRegistry> shared = *registry;
  KubernetesProfile kubernetes_profile;
  std::string line;
  for (const manifest::Document& doc : *docs) {
    const Node* name = doc.root.Find("name");
    line = "{\"name\": ";
    AppendJsonString(name != nullptr ? name->text : "", line, kTypedJsonString);
    Outcome outcome = kubernetes ? RunKubernetesVector(doc.root, kubernetes_profile) : RunVector(doc.root, shared);
    if (outcome.has_value) {
      line += ", \"value\": ";
      line += outcome.value_json;
    } else {
      line += ", \"error\": ";
      AppendJsonString(outcome.error, line, kTypedJsonString);
    }
    line += "}\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace dra::cli
