#include "manifest/decode.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json_escape.h"
#include "base/suggest.h"
#include "manifest/internal/core_fields.h"
#include "manifest/internal/raw_json.h"
#include "quantity/quantity.h"

namespace dra::manifest {
namespace {

using quantity::Quantity;

enum class Req { kOptional, kRequired };

// A field path built on the stack while decoding: Child/Index/Key link to the
// parent without copying, and the text (api::FieldPath's format) is made only
// when a problem is reported. A Path must not outlive the Path it was made
// from, nor the key text it names; each lives in one decoding call frame.
class Path {
 public:
  Path() = default;
  Path Child(std::string_view name) const { return Path(this, Step::kChild, name, 0); }
  Path Index(size_t index) const { return Path(this, Step::kIndex, {}, index); }
  Path Key(std::string_view key) const { return Path(this, Step::kKey, key, 0); }

  std::string String() const {
    std::string out;
    Append(&out);
    return out;
  }

 private:
  enum class Step : uint8_t { kRoot, kChild, kIndex, kKey };
  Path(const Path* parent, Step step, std::string_view name, size_t index)
      : parent_(parent), step_(step), name_(name), index_(index) {}

  void Append(std::string* out) const {
    if (parent_ != nullptr) parent_->Append(out);
    switch (step_) {
      case Step::kRoot: break;
      case Step::kChild:
        if (!out->empty()) out->push_back('.');
        out->append(name_);
        break;
      case Step::kIndex:
        out->push_back('[');
        out->append(std::to_string(index_));
        out->push_back(']');
        break;
      case Step::kKey:
        out->push_back('[');
        out->append(name_);
        out->push_back(']');
        break;
    }
  }

  const Path* parent_ = nullptr;
  Step step_ = Step::kRoot;
  std::string_view name_;
  size_t index_ = 0;
};

bool IsDigits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// RFC 3339 date-time, as metav1.Time accepts it:
// YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM).
bool IsRfc3339(std::string_view s) {
  if (!IsDigits(s, 0, 4) || s.size() < 20 || s[4] != '-' || !IsDigits(s, 5, 2) || s[7] != '-' || !IsDigits(s, 8, 2) ||
      (s[10] != 'T' && s[10] != 't') || !IsDigits(s, 11, 2) || s[13] != ':' || !IsDigits(s, 14, 2) || s[16] != ':' ||
      !IsDigits(s, 17, 2)) {
    return false;
  }
  size_t i = 19;
  if (s[i] == '.') {
    ++i;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) return i + 1 == s.size();
  return i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && IsDigits(s, i + 1, 2) && s[i + 3] == ':' &&
         IsDigits(s, i + 4, 2);
}

// The last element of a field path: "atributes" for "spec.devices[0].atributes",
// "x" for "metadata.labels[x]".
std::string LastSegment(const std::string& path) {
  if (!path.empty() && path.back() == ']') {
    size_t open = path.rfind('[');
    if (open != std::string::npos) return path.substr(open + 1, path.size() - open - 2);
  }
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string Quote(std::string_view s) { return JsonString(s); }

// Decodes one document. Each Decode(node, path, out) reads `node` into `*out`
// and reports problems; callers keep going after errors so that one pass finds
// them all.
class Decoder {
 public:
  Decoder(const DecodeOptions& options, std::vector<Diagnostic>* diagnostics)
      : options_(options), diagnostics_(diagnostics) {}

  // resource.k8s.io/v1beta1 shapes (see decode.h).
  bool beta1 = false;

  size_t error_count() const { return error_count_; }
  const Diagnostic& first_error() const { return first_error_; }

  // ---------------------------------------------------------------------------
  // Reporting

  void Report(api::Severity severity, Mark mark, const Path& path, std::string message) {
    Diagnostic d{severity, mark, path.String(), std::move(message)};
    if (severity == api::Severity::kError && error_count_++ == 0) first_error_ = d;
    if (diagnostics_ != nullptr) diagnostics_->push_back(std::move(d));
  }
  void Error(Mark mark, const Path& path, std::string message) {
    Report(api::Severity::kError, mark, path, std::move(message));
  }
  void TypeError(const Node& n, const Path& path, std::string_view expected) {
    Error(n.mark, path, "expected " + std::string(expected) + ", got " + std::string(NodeKindName(n.kind)));
  }
  // `known`: the fields of the object holding it, for "did you mean".
  void UnknownField(Mark mark, const Path& path, std::span<const std::string_view> known) {
    const std::string name = LastSegment(path.String());
    const std::vector<std::string> candidates(known.begin(), known.end());
    Report(options_.strict ? api::Severity::kError : api::Severity::kWarning, mark, path,
           "unknown field " + Quote(name) + DidYouMean(Suggest(name, candidates)));
  }
  // A field name test of DRA_FIELD; while `collecting_names_`, the names
  // tested are kept: a field callback asked again about a key it does not
  // know lists every field it knows, and decodes nothing.
  bool FieldIs(std::string_view key, std::string_view name) {
    if (key == name) return true;
    if (collecting_names_) names_.push_back(name);
    return false;
  }
  // Go's JSON decoder, and so the API server, reads null as the zero value
  // (an unset field, an empty list entry or map value) and validation goes
  // on from there; so does this one, with a warning at the null.
  void NullWarning(const Node& n, const Path& path, std::string_view zero = "an empty value") {
    Report(api::Severity::kWarning, n.mark, path,
           "null is read as " + std::string(zero) + ", as the API server reads it");
  }

  // ---------------------------------------------------------------------------
  // Structure

  // True if `n` is a mapping; reports a type error unless it is a mapping or null.
  bool IsMapping(const Node& n, const Path& path) {
    if (n.is_null()) return false;
    if (!n.is_mapping()) {
      TypeError(n, path, "object");
      return false;
    }
    return true;
  }

  // A resource.k8s.io struct: `field(key, value, path)` returns false for keys
  // it does not know, which are reported and dropped.
  template <typename F>
  void Struct(const Node& n, const Path& path, F&& field) {
    if (!IsMapping(n, path)) return;
    for (size_t i = 0; i < n.items.size(); ++i) {
      const std::string& key = n.keys[i].first;
      Path field_path = path.Child(key);
      if (!field(std::string_view(key), n.items[i], field_path)) {
        collecting_names_ = true;
        names_.clear();
        field(std::string_view(key), n.items[i], field_path);
        collecting_names_ = false;
        UnknownField(n.keys[i].second, field_path, names_);
      }
    }
  }

  // A core/meta struct modelled in part: unknown keys go to `*extra`, with a
  // warning unless `known` lists them.
  template <typename F>
  void CoreStruct(const Node& n, const Path& path, std::span<const std::string_view> known, api::RawFields* extra,
                  F&& field) {
    if (!IsMapping(n, path)) return;
    for (size_t i = 0; i < n.items.size(); ++i) {
      const std::string& key = n.keys[i].first;
      Path field_path = path.Child(key);
      if (field(std::string_view(key), n.items[i], field_path)) continue;
      if (!internal::IsListed(known, key)) UnknownField(n.keys[i].second, field_path, known);
      api::RawJson json;
      if (Raw(n.items[i], field_path, &json)) extra->Append(key, std::move(json));
    }
    if (!extra->Finish()) Error(n.mark, path, "duplicate keys");
  }

  template <typename T, typename F>
  void List(const Node& n, const Path& path, std::vector<T>* out, F&& element) {
    if (n.is_null()) return;
    if (!n.is_sequence()) {
      TypeError(n, path, "list");
      return;
    }
    out->reserve(out->size() + n.items.size());
    for (size_t i = 0; i < n.items.size(); ++i) {
      Path element_path = path.Index(i);
      const Node& e = n.items[i];
      T value{};
      if (e.is_null()) {
        NullWarning(e, element_path, "an empty entry");
      } else {
        element(e, element_path, &value);
      }
      out->push_back(std::move(value));
    }
  }

  // A string-keyed map. A null value is the zero value (with a warning unless
  // `null_is_zero`).
  template <typename V, typename K, typename F>
  void Map(const Node& n, const Path& path, api::FlatMap<V, K>* out, F&& value_fn, bool null_is_zero = false) {
    if (n.is_null()) return;
    if (!n.is_mapping()) {
      TypeError(n, path, "object");
      return;
    }
    for (size_t i = 0; i < n.items.size(); ++i) {
      const std::string& key = n.keys[i].first;
      Path key_path = path.Key(key);
      const Node& v = n.items[i];
      V value{};
      if (v.is_null()) {
        if (!null_is_zero) NullWarning(v, key_path);
      } else {
        value_fn(v, key_path, &value);
      }
      out->Append(K(key), std::move(value));
    }
    if (!out->Finish()) Error(n.mark, path, "duplicate keys");
  }

  // Adapts the Decode overloads for List/Map.
  auto Dec() {
    return [this](const Node& n, const Path& path, auto* out) { Decode(n, path, out); };
  }

  // ---------------------------------------------------------------------------
  // Scalars. Each returns true if it stored a value.

  bool String(const Node& n, const Path& path, std::string* out, Req req = Req::kOptional) {
    if (n.is_null()) {
      if (req == Req::kRequired) NullWarning(n, path);
      return false;
    }
    if (n.kind == NodeKind::kBool && !n.text.empty()) {
      // A plain YAML 1.1 boolean spelling (`Y`, `no`, `on`) in a string field:
      // kubectl rejects it, but the parser kept the text, so the intent is clear.
      Report(api::Severity::kWarning, n.mark, path,
             "the plain scalar " + n.text + " is a YAML 1.1 boolean (kubectl rejects it here); " +
                 "read as the string " + Quote(n.text) + ", quote it to be portable");
      *out = n.text;
      return true;
    }
    if (n.kind != NodeKind::kString) {
      TypeError(n, path, "string");
      return false;
    }
    *out = n.text;
    return true;
  }
  bool OptString(const Node& n, const Path& path, std::optional<std::string>* out) {
    std::string s;
    if (!String(n, path, &s)) return false;
    *out = std::move(s);
    return true;
  }
  template <typename E>
  bool Enum(const Node& n, const Path& path, api::EnumString<E>* out, Req req = Req::kOptional) {
    std::string s;
    if (!String(n, path, &s, req)) return false;
    *out = api::EnumString<E>(std::move(s));
    return true;
  }
  bool Time(const Node& n, const Path& path, std::string* out) {
    std::string s;
    if (!String(n, path, &s)) return false;
    if (!IsRfc3339(s)) {
      Error(n.mark, path, "invalid time " + Quote(s) + ": must be RFC 3339, e.g. 2006-01-02T15:04:05Z");
      return false;
    }
    *out = std::move(s);
    return true;
  }
  bool Bool(const Node& n, const Path& path, bool* out) {
    if (n.is_null()) return false;
    if (n.kind != NodeKind::kBool) {
      TypeError(n, path, "boolean");
      return false;
    }
    *out = n.bool_value;
    return true;
  }
  bool OptBool(const Node& n, const Path& path, std::optional<bool>* out) {
    bool b = false;
    if (!Bool(n, path, &b)) return false;
    *out = b;
    return true;
  }
  bool Int64(const Node& n, const Path& path, int64_t* out, Req req = Req::kOptional) {
    if (n.is_null()) {
      if (req == Req::kRequired) NullWarning(n, path);
      return false;
    }
    if (n.kind == NodeKind::kFloat) {
      Error(n.mark, path, "expected integer, got number " + n.text);
      return false;
    }
    if (n.kind != NodeKind::kInt) {
      TypeError(n, path, "integer");
      return false;
    }
    std::optional<int64_t> v = internal::ParseIntegerText(n.text);
    if (!v) {
      Error(n.mark, path, "integer " + n.text + " does not fit in 64 bits");
      return false;
    }
    *out = *v;
    return true;
  }
  bool OptInt64(const Node& n, const Path& path, std::optional<int64_t>* out) {
    int64_t v = 0;
    if (!Int64(n, path, &v)) return false;
    *out = v;
    return true;
  }
  bool Int32(const Node& n, const Path& path, int32_t* out, Req req = Req::kOptional) {
    int64_t v = 0;
    if (!Int64(n, path, &v, req)) return false;
    if (v < INT32_MIN || v > INT32_MAX) {
      Error(n.mark, path, "integer " + n.text + " does not fit in 32 bits");
      return false;
    }
    *out = static_cast<int32_t>(v);
    return true;
  }
  bool OptInt32(const Node& n, const Path& path, std::optional<int32_t>* out) {
    int32_t v = 0;
    if (!Int32(n, path, &v)) return false;
    *out = v;
    return true;
  }
  // Strings and numbers, as Quantity.UnmarshalJSON accepts them.
  bool Qty(const Node& n, const Path& path, Quantity* out, Req req = Req::kOptional) {
    if (n.is_null()) {
      if (req == Req::kRequired) NullWarning(n, path);
      return false;
    }
    std::string text;
    if (n.kind == NodeKind::kString) {
      text = n.text;
    } else if (n.kind == NodeKind::kInt || n.kind == NodeKind::kFloat) {
      std::optional<std::string> number = internal::JsonNumberText(n);
      if (!number) {
        Error(n.mark, path, "invalid quantity " + n.text);
        return false;
      }
      text = std::move(*number);
    } else {
      TypeError(n, path, "quantity (string or number)");
      return false;
    }
    StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) {
      Error(n.mark, path, q.status().message());
      return false;
    }
    *out = *q;
    return true;
  }
  bool OptQty(const Node& n, const Path& path, std::optional<Quantity>* out) {
    Quantity q;
    if (!Qty(n, path, &q)) return false;
    *out = q;
    return true;
  }
  // Any JSON value but null (which means unset), as compact text.
  bool Raw(const Node& n, const Path& path, api::RawJson* out) {
    if (n.is_null()) return false;
    std::string json;
    const Node* bad = nullptr;
    if (!internal::AppendCompactJson(n, &json, &bad)) {
      Error(bad->mark, path, "number " + bad->text + " cannot be represented in JSON");
      return false;
    }
    *out = std::move(json);
    return true;
  }

  void StringList(const Node& n, const Path& path, std::vector<std::string>* out) {
    List(n, path, out, [this](const Node& e, const Path& p, std::string* s) { String(e, p, s); });
  }
  template <typename E>
  void EnumList(const Node& n, const Path& path, std::vector<api::EnumString<E>>* out) {
    List(n, path, out, [this](const Node& e, const Path& p, api::EnumString<E>* s) { Enum(e, p, s); });
  }
  void StringMap(const Node& n, const Path& path, api::FlatMap<std::string>* out) {
    Map(
        n, path, out, [this](const Node& v, const Path& p, std::string* s) { String(v, p, s); },
        /*null_is_zero=*/true);
  }
  template <typename K>
  void QuantityMap(const Node& n, const Path& path, api::FlatMap<Quantity, K>* out) {
    Map(n, path, out, [this](const Node& v, const Path& p, Quantity* q) { Qty(v, p, q); });
  }

  // ---------------------------------------------------------------------------
  // meta/v1

#define DRA_FIELD(json_name, ...) \
  if (FieldIs(key, json_name)) {  \
    __VA_ARGS__;                  \
    return true;                  \
  }

  void Decode(const Node& n, const Path& path, api::ObjectMeta* m) {
    CoreStruct(n, path, internal::kObjectMetaFields, &m->extra,
               [&](std::string_view key, const Node& v, const Path& p) {
                 DRA_FIELD("name", String(v, p, &m->name));
                 DRA_FIELD("generateName", String(v, p, &m->generate_name));
                 DRA_FIELD("namespace", String(v, p, &m->namespace_));
                 DRA_FIELD("uid", String(v, p, &m->uid));
                 DRA_FIELD("resourceVersion", String(v, p, &m->resource_version));
                 DRA_FIELD("generation", Int64(v, p, &m->generation));
                 DRA_FIELD("creationTimestamp", Time(v, p, &m->creation_timestamp));
                 DRA_FIELD("deletionTimestamp", Time(v, p, &m->deletion_timestamp));
                 DRA_FIELD("labels", StringMap(v, p, &m->labels));
                 DRA_FIELD("annotations", StringMap(v, p, &m->annotations));
                 DRA_FIELD("ownerReferences", List(v, p, &m->owner_references, Dec()));
                 DRA_FIELD("finalizers", StringList(v, p, &m->finalizers));
                 return false;
               });
  }

  void Decode(const Node& n, const Path& path, api::OwnerReference* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("apiVersion", String(v, p, &r->api_version, Req::kRequired));
      DRA_FIELD("kind", String(v, p, &r->kind, Req::kRequired));
      DRA_FIELD("name", String(v, p, &r->name, Req::kRequired));
      DRA_FIELD("uid", String(v, p, &r->uid, Req::kRequired));
      DRA_FIELD("controller", OptBool(v, p, &r->controller));
      DRA_FIELD("blockOwnerDeletion", OptBool(v, p, &r->block_owner_deletion));
      return false;
    });
  }

  void Decode(const Node& n, const Path& path, api::Condition* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("type", String(v, p, &c->type, Req::kRequired));
      DRA_FIELD("status", Enum(v, p, &c->status, Req::kRequired));
      DRA_FIELD("observedGeneration", Int64(v, p, &c->observed_generation));
      DRA_FIELD("lastTransitionTime", Time(v, p, &c->last_transition_time));
      DRA_FIELD("reason", String(v, p, &c->reason));
      DRA_FIELD("message", String(v, p, &c->message));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // core/v1

  void Decode(const Node& n, const Path& path, api::NodeSelectorRequirement* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &r->key, Req::kRequired));
      DRA_FIELD("operator", Enum(v, p, &r->operator_, Req::kRequired));
      DRA_FIELD("values", StringList(v, p, &r->values));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeSelectorTerm* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("matchExpressions", List(v, p, &t->match_expressions, Dec()));
      DRA_FIELD("matchFields", List(v, p, &t->match_fields, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeSelector* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("nodeSelectorTerms", List(v, p, &s->node_selector_terms, Dec()));
      return false;
    });
  }
  // Optional struct fields (Go pointers): null -> unset, anything else -> set.
  template <typename T>
  void Opt(const Node& n, const Path& path, std::optional<T>* out) {
    if (n.is_null()) return;
    T value{};
    Decode(n, path, &value);
    *out = std::move(value);
  }
  void Decode(const Node& n, const Path& path, api::PreferredSchedulingTerm* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("weight", Int32(v, p, &t->weight, Req::kRequired));
      DRA_FIELD("preference", Decode(v, p, &t->preference));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeAffinity* a) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requiredDuringSchedulingIgnoredDuringExecution",
                Opt(v, p, &a->required_during_scheduling_ignored_during_execution));
      DRA_FIELD("preferredDuringSchedulingIgnoredDuringExecution",
                List(v, p, &a->preferred_during_scheduling_ignored_during_execution, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::Affinity* a) {
    CoreStruct(n, path, internal::kAffinityFields, &a->extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("nodeAffinity", Opt(v, p, &a->node_affinity));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::Taint* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &t->key, Req::kRequired));
      DRA_FIELD("value", String(v, p, &t->value));
      DRA_FIELD("effect", Enum(v, p, &t->effect, Req::kRequired));
      DRA_FIELD("timeAdded", Time(v, p, &t->time_added));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::Toleration* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &t->key));
      DRA_FIELD("operator", Enum(v, p, &t->operator_));
      DRA_FIELD("value", String(v, p, &t->value));
      DRA_FIELD("effect", Enum(v, p, &t->effect));
      DRA_FIELD("tolerationSeconds", OptInt64(v, p, &t->toleration_seconds));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeSpec* s) {
    CoreStruct(n, path, internal::kNodeSpecFields, &s->extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("unschedulable", Bool(v, p, &s->unschedulable));
      DRA_FIELD("taints", List(v, p, &s->taints, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeStatus* s) {
    CoreStruct(n, path, internal::kNodeStatusFields, &s->extra,
               [&](std::string_view key, const Node& v, const Path& p) {
                 DRA_FIELD("capacity", QuantityMap(v, p, &s->capacity));
                 DRA_FIELD("allocatable", QuantityMap(v, p, &s->allocatable));
                 return false;
               });
  }
  void Decode(const Node& n, const Path& path, api::ContainerClaim* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &c->name, Req::kRequired));
      DRA_FIELD("request", String(v, p, &c->request));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceRequirements* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("limits", QuantityMap(v, p, &r->limits));
      DRA_FIELD("requests", QuantityMap(v, p, &r->requests));
      DRA_FIELD("claims", List(v, p, &r->claims, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::Container* c) {
    CoreStruct(n, path, internal::kContainerFields, &c->extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &c->name, Req::kRequired));
      DRA_FIELD("resources", Decode(v, p, &c->resources));
      DRA_FIELD("restartPolicy", Enum(v, p, &c->restart_policy));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodResourceClaim* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &c->name, Req::kRequired));
      DRA_FIELD("resourceClaimName", OptString(v, p, &c->resource_claim_name));
      DRA_FIELD("resourceClaimTemplateName", OptString(v, p, &c->resource_claim_template_name));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodSpec* s) {
    CoreStruct(n, path, internal::kPodSpecFields, &s->extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("initContainers", List(v, p, &s->init_containers, Dec()));
      DRA_FIELD("containers", List(v, p, &s->containers, Dec()));
      DRA_FIELD("nodeSelector", StringMap(v, p, &s->node_selector));
      DRA_FIELD("nodeName", String(v, p, &s->node_name));
      DRA_FIELD("affinity", Opt(v, p, &s->affinity));
      DRA_FIELD("schedulerName", String(v, p, &s->scheduler_name));
      DRA_FIELD("tolerations", List(v, p, &s->tolerations, Dec()));
      DRA_FIELD("priorityClassName", String(v, p, &s->priority_class_name));
      DRA_FIELD("priority", OptInt32(v, p, &s->priority));
      DRA_FIELD("overhead", QuantityMap(v, p, &s->overhead));
      DRA_FIELD("resourceClaims", List(v, p, &s->resource_claims, Dec()));
      if (key == "schedulingGroup" && v.is_mapping()) {
        // Kept as raw JSON (api/scheduling_validation.cc reads
        // it); its fields are known here, for --strict.
        static constexpr std::string_view kSchedulingGroupFields[] = {"podGroupName"};
        for (const auto& [name, mark] : v.keys) {
          if (std::find(std::begin(kSchedulingGroupFields), std::end(kSchedulingGroupFields), name) ==
              std::end(kSchedulingGroupFields)) {
            UnknownField(mark, p.Child(name), kSchedulingGroupFields);
          }
        }
      }
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodResourceClaimStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &s->name, Req::kRequired));
      DRA_FIELD("resourceClaimName", OptString(v, p, &s->resource_claim_name));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ContainerExtendedResourceRequest* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("containerName", String(v, p, &r->container_name, Req::kRequired));
      DRA_FIELD("resourceName", String(v, p, &r->resource_name, Req::kRequired));
      DRA_FIELD("requestName", String(v, p, &r->request_name, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodExtendedResourceClaimStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requestMappings", List(v, p, &s->request_mappings, Dec()));
      DRA_FIELD("resourceClaimName", String(v, p, &s->resource_claim_name, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodStatus* s) {
    CoreStruct(n, path, internal::kPodStatusFields, &s->extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("phase", Enum(v, p, &s->phase));
      DRA_FIELD("nominatedNodeName", String(v, p, &s->nominated_node_name));
      DRA_FIELD("resourceClaimStatuses", List(v, p, &s->resource_claim_statuses, Dec()));
      DRA_FIELD("extendedResourceClaimStatus", Opt(v, p, &s->extended_resource_claim_status));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // resource.k8s.io: shared pieces

  void Decode(const Node& n, const Path& path, api::CelDeviceSelector* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("expression", String(v, p, &s->expression, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceSelector* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("cel", Opt(v, p, &s->cel));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::OpaqueDeviceConfiguration* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("driver", String(v, p, &c->driver, Req::kRequired));
      DRA_FIELD("parameters", Raw(v, p, &c->parameters));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceTaint* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &t->key, Req::kRequired));
      DRA_FIELD("value", String(v, p, &t->value));
      DRA_FIELD("effect", Enum(v, p, &t->effect, Req::kRequired));
      DRA_FIELD("timeAdded", Time(v, p, &t->time_added));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceToleration* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &t->key));
      DRA_FIELD("operator", Enum(v, p, &t->operator_));
      DRA_FIELD("value", String(v, p, &t->value));
      DRA_FIELD("effect", Enum(v, p, &t->effect));
      DRA_FIELD("tolerationSeconds", OptInt64(v, p, &t->toleration_seconds));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // DeviceClass

  void Decode(const Node& n, const Path& path, api::DeviceClassConfiguration* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("opaque", Opt(v, p, &c->opaque));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceClassSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("selectors", List(v, p, &s->selectors, Dec()));
      DRA_FIELD("config", List(v, p, &s->config, Dec()));
      DRA_FIELD("extendedResourceName", OptString(v, p, &s->extended_resource_name));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // ResourceSlice

  void Decode(const Node& n, const Path& path, api::DeviceAttribute* a) {
    std::vector<std::string_view> set;
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      if (v.is_null()) {  // Go pointer / omitempty list: null is unset
        return key == "int" || key == "bool" || key == "string" || key == "version" || key == "ints" ||
               key == "bools" || key == "strings" || key == "versions";
      }
      if (key == "int") {
        int64_t x = 0;
        if (Int64(v, p, &x)) a->value = api::DeviceAttribute::Int(x).value;
      } else if (key == "bool") {
        bool x = false;
        if (Bool(v, p, &x)) a->value = api::DeviceAttribute::Bool(x).value;
      } else if (key == "string") {
        std::string x;
        if (String(v, p, &x)) a->value = api::DeviceAttribute::String(x).value;
      } else if (key == "version") {
        std::string x;
        if (String(v, p, &x)) a->value = api::DeviceAttribute::VersionOf(x).value;
      } else if (key == "ints") {
        std::vector<int64_t> x;
        List(v, p, &x, [this](const Node& e, const Path& ep, int64_t* i) { Int64(e, ep, i); });
        a->value = api::DeviceAttribute::Ints(std::move(x)).value;
      } else if (key == "bools") {
        std::vector<char> x;  // not vector<bool>: List needs addressable elements
        List(v, p, &x, [this](const Node& e, const Path& ep, char* b) {
          bool value = false;
          Bool(e, ep, &value);
          *b = value ? 1 : 0;
        });
        a->value = api::DeviceAttribute::Bools(std::vector<bool>(x.begin(), x.end())).value;
      } else if (key == "strings" || key == "versions") {
        std::vector<std::string> x;
        StringList(v, p, &x);
        std::vector<api::InternedString> values(x.begin(), x.end());
        a->value = key == "strings" ? api::DeviceAttribute::Strings(std::move(values)).value
                                    : api::DeviceAttribute::Versions(std::move(values)).value;
      } else {
        return false;
      }
      set.push_back(key);
      return true;
    });
    if (set.size() > 1) {
      // As the API server's union rule says it (a real v1.37.2 answered
      // `Invalid value: "{int, string}"` for `{string: x, int: 1}`): the fields
      // set, in the union's member order.
      static constexpr std::string_view kMembers[] = {"int",  "bool",  "string",  "version",
                                                      "ints", "bools", "strings", "versions"};
      std::string fields;
      for (std::string_view m : kMembers) {
        if (std::find(set.begin(), set.end(), m) != set.end()) fields += (fields.empty() ? "" : ", ") + std::string(m);
      }
      Error(n.mark, path,
            "Invalid value: \"{" + fields +
                "}\": must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, "
                "`versions`");
    }
  }
  void Decode(const Node& n, const Path& path, api::CapacityRequestPolicyRange* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("min", OptQty(v, p, &r->min));
      DRA_FIELD("max", OptQty(v, p, &r->max));
      DRA_FIELD("step", OptQty(v, p, &r->step));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::CapacityRequestPolicy* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("default", OptQty(v, p, &r->default_));
      DRA_FIELD("validValues",
                List(v, p, &r->valid_values, [this](const Node& e, const Path& ep, Quantity* q) { Qty(e, ep, q); }));
      DRA_FIELD("validRange", Opt(v, p, &r->valid_range));
      return false;
    });
  }
  // A capacity or counter without `value`: Go reads the missing quantity as
  // 0 and the API server validates on.
  void MissingQuantity(const Node& n, const Path& path) {
    Report(api::Severity::kWarning, n.mark, path, "missing: read as 0, as the API server reads it");
  }
  void Decode(const Node& n, const Path& path, api::DeviceCapacity* c) {
    bool has_value = false;
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      if (key == "value") {
        has_value = true;
        Qty(v, p, &c->value, Req::kRequired);
        return true;
      }
      if (key == "requestPolicy") {
        if (!v.is_null()) Decode(v, p, &c->request_policy.emplace());
        return true;
      }
      return false;
    });
    if (!has_value && n.is_mapping()) MissingQuantity(n, path.Child("value"));
  }
  void Decode(const Node& n, const Path& path, api::Counter* c) {
    bool has_value = false;
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      if (key == "value") {
        has_value = true;
        Qty(v, p, &c->value, Req::kRequired);
        return true;
      }
      return false;
    });
    if (!has_value && n.is_mapping()) MissingQuantity(n, path.Child("value"));
  }
  void Decode(const Node& n, const Path& path, api::CounterSet* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &s->name, Req::kRequired));
      DRA_FIELD("counters", Map(v, p, &s->counters, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceCounterConsumption* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("counterSet", String(v, p, &c->counter_set, Req::kRequired));
      DRA_FIELD("counters", Map(v, p, &c->counters, Dec()));
      DRA_FIELD("compatibilityGroups", StringList(v, p, &c->compatibility_groups));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeAllocatableResourceMapping* m) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("capacityKey", OptString(v, p, &m->capacity_key));
      DRA_FIELD("capacityMultiplier", OptQty(v, p, &m->capacity_multiplier));
      DRA_FIELD("deviceMultiplier", OptQty(v, p, &m->device_multiplier));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeAllocatableResourceOverhead* o) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("perPod", OptQty(v, p, &o->per_pod));
      DRA_FIELD("perContainer", OptQty(v, p, &o->per_container));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NodeAllocatableResource* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("mapping", Opt(v, p, &r->mapping));
      DRA_FIELD("overhead", Opt(v, p, &r->overhead));
      return false;
    });
  }

  // The fields of a Device besides its name (v1beta1 nests them under `basic`).
  bool DeviceBodyField(std::string_view key, const Node& v, const Path& p, api::Device* d,
                       api::DeviceRareFields* rare) {
    DRA_FIELD("attributes", Map(v, p, &d->attributes, Dec()));
    DRA_FIELD("capacity", Map(v, p, &d->capacity, Dec()));
    DRA_FIELD("allowMultipleAllocations", OptBool(v, p, &d->allow_multiple_allocations));
    DRA_FIELD("consumesCounters", List(v, p, &rare->consumes_counters, Dec()));
    DRA_FIELD("nodeName", OptString(v, p, &rare->node_name));
    DRA_FIELD("nodeSelector", Opt(v, p, &rare->node_selector));
    DRA_FIELD("allNodes", OptBool(v, p, &rare->all_nodes));
    DRA_FIELD("taints", List(v, p, &rare->taints, Dec()));
    DRA_FIELD("bindsToNode", OptBool(v, p, &rare->binds_to_node));
    DRA_FIELD("bindingConditions", StringList(v, p, &rare->binding_conditions));
    DRA_FIELD("bindingFailureConditions", StringList(v, p, &rare->binding_failure_conditions));
    DRA_FIELD("nodeAllocatableResources", Map(v, p, &rare->node_allocatable_resources, Dec()));
    return false;
  }
  void Decode(const Node& n, const Path& path, api::Device* d) {
    api::DeviceRareFields rare;
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &d->name, Req::kRequired));
      if (beta1) {
        if (key != "basic") return false;
        Struct(v, p, [&](std::string_view k, const Node& bv, const Path& bp) {
          return DeviceBodyField(k, bv, bp, d, &rare);
        });
        return true;
      }
      return DeviceBodyField(key, v, p, d, &rare);
    });
    if (!(rare == api::DeviceRareFields{})) d->rare = api::Lazy<api::DeviceRareFields>(std::move(rare));
  }
  void Decode(const Node& n, const Path& path, api::ResourcePool* pool) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &pool->name, Req::kRequired));
      DRA_FIELD("generation", Int64(v, p, &pool->generation, Req::kRequired));
      DRA_FIELD("resourceSliceCount", Int64(v, p, &pool->resource_slice_count, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceSliceSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("driver", String(v, p, &s->driver, Req::kRequired));
      DRA_FIELD("pool", Decode(v, p, &s->pool));
      DRA_FIELD("nodeName", OptString(v, p, &s->node_name));
      DRA_FIELD("nodeSelector", Opt(v, p, &s->node_selector));
      DRA_FIELD("allNodes", OptBool(v, p, &s->all_nodes));
      DRA_FIELD("devices", List(v, p, &s->devices, Dec()));
      DRA_FIELD("perDeviceNodeSelection", OptBool(v, p, &s->per_device_node_selection));
      DRA_FIELD("sharedCounters", List(v, p, &s->shared_counters, Dec()));
      DRA_FIELD("partitionTypeAttribute", OptString(v, p, &s->partition_type_attribute));
      DRA_FIELD("skipNodeOperations", EnumList(v, p, &s->skip_node_operations));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // ResourceClaim

  void Decode(const Node& n, const Path& path, api::CapacityRequirements* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requests", QuantityMap(v, p, &c->requests));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DerivedAttribute* a) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &a->name, Req::kRequired));
      DRA_FIELD("expression", String(v, p, &a->expression, Req::kRequired));
      return false;
    });
  }
  // Fields shared by ExactDeviceRequest and DeviceSubRequest (and, in v1beta1,
  // DeviceRequest itself).
  template <typename Request>
  bool RequestField(std::string_view key, const Node& v, const Path& p, Request* r) {
    DRA_FIELD("deviceClassName", String(v, p, &r->device_class_name, Req::kRequired));
    DRA_FIELD("selectors", List(v, p, &r->selectors, Dec()));
    DRA_FIELD("allocationMode", Enum(v, p, &r->allocation_mode));
    DRA_FIELD("count", Int64(v, p, &r->count));
    DRA_FIELD("tolerations", List(v, p, &r->tolerations, Dec()));
    DRA_FIELD("capacity", Opt(v, p, &r->capacity));
    DRA_FIELD("derivedAttributes", List(v, p, &r->derived_attributes, Dec()));
    if constexpr (std::is_same_v<Request, api::ExactDeviceRequest>) {
      DRA_FIELD("adminAccess", OptBool(v, p, &r->admin_access));
    }
    return false;
  }
  void Decode(const Node& n, const Path& path, api::ExactDeviceRequest* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) { return RequestField(key, v, p, r); });
  }
  void Decode(const Node& n, const Path& path, api::DeviceSubRequest* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &r->name, Req::kRequired));
      return RequestField(key, v, p, r);
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceRequest* r) {
    api::ExactDeviceRequest exact;
    bool has_exact_fields = false;
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &r->name, Req::kRequired));
      DRA_FIELD("firstAvailable", List(v, p, &r->first_available, Dec()));
      if (!beta1) {
        DRA_FIELD("exactly", Opt(v, p, &r->exactly));
        return false;
      }
      if (RequestField(key, v, p, &exact)) {
        has_exact_fields = true;
        return true;
      }
      return false;
    });
    // As the upstream v1beta1 -> v1 conversion: a request without
    // firstAvailable is an exact request. (Both given is left for validation.)
    if (beta1 && (has_exact_fields || r->first_available.empty())) r->exactly = std::move(exact);
  }
  void Decode(const Node& n, const Path& path, api::DeviceConstraint* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requests", StringList(v, p, &c->requests));
      DRA_FIELD("matchAttribute", OptString(v, p, &c->match_attribute));
      DRA_FIELD("distinctAttribute", OptString(v, p, &c->distinct_attribute));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceClaimConfiguration* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requests", StringList(v, p, &c->requests));
      DRA_FIELD("opaque", Opt(v, p, &c->opaque));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceClaim* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("requests", List(v, p, &c->requests, Dec()));
      DRA_FIELD("constraints", List(v, p, &c->constraints, Dec()));
      DRA_FIELD("config", List(v, p, &c->config, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceClaimSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("devices", Decode(v, p, &s->devices));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceRequestAllocationResult* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("request", String(v, p, &r->request, Req::kRequired));
      DRA_FIELD("driver", String(v, p, &r->driver, Req::kRequired));
      DRA_FIELD("pool", String(v, p, &r->pool, Req::kRequired));
      DRA_FIELD("device", String(v, p, &r->device, Req::kRequired));
      DRA_FIELD("adminAccess", OptBool(v, p, &r->admin_access));
      DRA_FIELD("tolerations", List(v, p, &r->tolerations, Dec()));
      DRA_FIELD("bindingConditions", StringList(v, p, &r->binding_conditions));
      DRA_FIELD("bindingFailureConditions", StringList(v, p, &r->binding_failure_conditions));
      DRA_FIELD("shareID", OptString(v, p, &r->share_id));
      DRA_FIELD("consumedCapacity", QuantityMap(v, p, &r->consumed_capacity));
      DRA_FIELD("skipNodeOperations", EnumList(v, p, &r->skip_node_operations));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceAllocationConfiguration* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("source", Enum(v, p, &c->source, Req::kRequired));
      DRA_FIELD("requests", StringList(v, p, &c->requests));
      DRA_FIELD("opaque", Opt(v, p, &c->opaque));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceAllocationResult* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("results", List(v, p, &r->results, Dec()));
      DRA_FIELD("config", List(v, p, &r->config, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::AllocationResult* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("devices", Decode(v, p, &r->devices));
      DRA_FIELD("nodeSelector", Opt(v, p, &r->node_selector));
      DRA_FIELD("allocationTimestamp", Time(v, p, &r->allocation_timestamp));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceClaimConsumerReference* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("apiGroup", String(v, p, &r->api_group));
      DRA_FIELD("resource", String(v, p, &r->resource, Req::kRequired));
      DRA_FIELD("name", String(v, p, &r->name, Req::kRequired));
      DRA_FIELD("uid", String(v, p, &r->uid, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::NetworkDeviceData* d) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("interfaceName", String(v, p, &d->interface_name));
      DRA_FIELD("ips", StringList(v, p, &d->ips));
      DRA_FIELD("hardwareAddress", String(v, p, &d->hardware_address));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::AllocatedDeviceStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("driver", String(v, p, &s->driver, Req::kRequired));
      DRA_FIELD("pool", String(v, p, &s->pool, Req::kRequired));
      DRA_FIELD("device", String(v, p, &s->device, Req::kRequired));
      DRA_FIELD("shareID", OptString(v, p, &s->share_id));
      DRA_FIELD("conditions", List(v, p, &s->conditions, Dec()));
      DRA_FIELD("data", Raw(v, p, &s->data));
      DRA_FIELD("networkData", Opt(v, p, &s->network_data));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceClaimStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("allocation", Opt(v, p, &s->allocation));
      DRA_FIELD("reservedFor", List(v, p, &s->reserved_for, Dec()));
      DRA_FIELD("devices", List(v, p, &s->devices, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::ResourceClaimTemplateSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("metadata", Decode(v, p, &s->metadata));
      DRA_FIELD("spec", Decode(v, p, &s->spec));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // DeviceTaintRule

  void Decode(const Node& n, const Path& path, api::DeviceTaintSelector* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("driver", OptString(v, p, &s->driver));
      DRA_FIELD("pool", OptString(v, p, &s->pool));
      DRA_FIELD("device", OptString(v, p, &s->device));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceTaintRuleSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("deviceSelector", Opt(v, p, &s->device_selector));
      DRA_FIELD("taint", Decode(v, p, &s->taint));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DeviceTaintRuleStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("conditions", List(v, p, &s->conditions, Dec()));
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // scheduling.k8s.io PodGroup and Workload (v1alpha3 and v1beta1 share the
  // schema). Unknown fields are reported as in resource.k8s.io objects.

  // An empty marker struct (`basic: {}`, `single: {}`): true when given as an
  // object; null is unset, as for any Go pointer.
  void Marker(const Node& n, const Path& path, bool* out) {
    if (!IsMapping(n, path)) return;
    Struct(n, path, [](std::string_view, const Node&, const Path&) { return false; });
    *out = true;
  }
  void Decode(const Node& n, const Path& path, api::GangSchedulingPolicy* g) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("minCount", Int32(v, p, &g->min_count, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupSchedulingPolicy* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("basic", Marker(v, p, &s->basic));
      DRA_FIELD("gang", Opt(v, p, &s->gang));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::TopologyConstraint* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("key", String(v, p, &t->key, Req::kRequired));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupSchedulingConstraints* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("topology", List(v, p, &c->topology, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupResourceClaim* c) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &c->name, Req::kRequired));
      DRA_FIELD("resourceClaimName", OptString(v, p, &c->resource_claim_name));
      DRA_FIELD("resourceClaimTemplateName", OptString(v, p, &c->resource_claim_template_name));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::DisruptionMode* m) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("single", Marker(v, p, &m->single));
      DRA_FIELD("all", Marker(v, p, &m->all));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::WorkloadReference* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("workloadName", String(v, p, &r->workload_name, Req::kRequired));
      DRA_FIELD("templateName", String(v, p, &r->template_name, Req::kRequired));
      return false;
    });
  }
  // The fields a PodGroupSpec and a PodGroupTemplate share.
  bool PodGroupSpecField(std::string_view key, const Node& v, const Path& p, api::PodGroupSpec* s) {
    DRA_FIELD("schedulingPolicy", Decode(v, p, &s->scheduling_policy));
    DRA_FIELD("schedulingConstraints", Opt(v, p, &s->scheduling_constraints));
    DRA_FIELD("resourceClaims", List(v, p, &s->resource_claims, Dec()));
    DRA_FIELD("disruptionMode", Opt(v, p, &s->disruption_mode));
    DRA_FIELD("priorityClassName", String(v, p, &s->priority_class_name));
    DRA_FIELD("priority", OptInt32(v, p, &s->priority));
    DRA_FIELD("preemptionPolicy", OptString(v, p, &s->preemption_policy));
    return false;
  }
  void Decode(const Node& n, const Path& path, api::PodGroupSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("parentCompositePodGroupName", OptString(v, p, &s->parent_composite_pod_group_name));
      DRA_FIELD("workloadRef", Opt(v, p, &s->workload_ref));
      return PodGroupSpecField(key, v, p, s);
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupResourceClaimStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &s->name, Req::kRequired));
      DRA_FIELD("resourceClaimName", OptString(v, p, &s->resource_claim_name));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupStatus* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("conditions", List(v, p, &s->conditions, Dec()));
      DRA_FIELD("resourceClaimStatuses", List(v, p, &s->resource_claim_statuses, Dec()));
      return false;
    });
  }
  void Decode(const Node& n, const Path& path, api::PodGroupTemplate* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("name", String(v, p, &t->name, Req::kRequired));
      return PodGroupSpecField(key, v, p, &t->spec);
    });
  }
  void Decode(const Node& n, const Path& path, api::TypedLocalObjectReference* r) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("apiGroup", String(v, p, &r->api_group));
      DRA_FIELD("kind", String(v, p, &r->kind, Req::kRequired));
      DRA_FIELD("name", String(v, p, &r->name, Req::kRequired));
      return false;
    });
  }
  // compositePodGroupTemplates (gate CompositePodGroup, alpha) is kept raw in
  // `extra`; it must be a list.
  void Decode(const Node& n, const Path& path, api::WorkloadSpec* s) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("controllerRef", Opt(v, p, &s->controller_ref));
      DRA_FIELD("podGroupTemplates", List(v, p, &s->pod_group_templates, Dec()));
      DRA_FIELD("compositePodGroupTemplates", {
        api::RawJson json;
        if (!v.is_null() && !v.is_sequence()) {
          TypeError(v, p, "list");
        } else if (Raw(v, p, &json)) {
          s->extra.insert_or_assign(std::string(key), std::move(json));
        }
      });
      return false;
    });
  }

  // ---------------------------------------------------------------------------
  // Top level: apiVersion and kind were checked by the caller.

  template <typename T>
  T Top(const Node& root) {
    T object{};
    Path root_path;
    Struct(root, root_path, [&](std::string_view key, const Node& v, const Path& p) {
      if (key == "apiVersion" || key == "kind") return true;
      DRA_FIELD("metadata", Decode(v, p, &object.metadata));
      DRA_FIELD("spec", Decode(v, p, &object.spec));
      if constexpr (requires { object.status; }) {
        DRA_FIELD("status", Decode(v, p, &object.status));
      }
      return false;
    });
    return object;
  }

  // Workloads (api/workload.h): the fields that decide which pods exist, the
  // rest of the spec kept raw; apiVersion and kind were checked by the caller.
  void Decode(const Node& n, const Path& path, api::PodTemplateSpec* t) {
    Struct(n, path, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("metadata", Decode(v, p, &t->metadata));
      DRA_FIELD("spec", Decode(v, p, &t->spec));
      return false;
    });
  }
  void DecodeWorkloadSpec(const Node& n, const Path& path, api::Workload* w) {
    // The spec fields of all five kinds (apps/v1 and batch/v1 types.go).
    static constexpr std::string_view kWorkloadSpecFields[] = {"replicas",
                                                               "selector",
                                                               "template",
                                                               "strategy",
                                                               "minReadySeconds",
                                                               "revisionHistoryLimit",
                                                               "paused",
                                                               "progressDeadlineSeconds",
                                                               "volumeClaimTemplates",
                                                               "serviceName",
                                                               "podManagementPolicy",
                                                               "updateStrategy",
                                                               "persistentVolumeClaimRetentionPolicy",
                                                               "ordinals",
                                                               "parallelism",
                                                               "completions",
                                                               "activeDeadlineSeconds",
                                                               "podFailurePolicy",
                                                               "successPolicy",
                                                               "backoffLimit",
                                                               "backoffLimitPerIndex",
                                                               "maxFailedIndexes",
                                                               "manualSelector",
                                                               "ttlSecondsAfterFinished",
                                                               "completionMode",
                                                               "suspend",
                                                               "podReplacementPolicy",
                                                               "managedBy"};
    const bool job = w->kind == api::WorkloadKind::kJob;
    const bool has_replicas = !job && w->kind != api::WorkloadKind::kDaemonSet;
    // The API server rejects negative counts (ValidateNonnegativeField); read
    // as 0 they would silently make no pods.
    const auto count = [&](const Node& v, const Path& p, std::optional<int32_t>* out) {
      if (OptInt32(v, p, out) && **out < 0) {
        Error(v.mark, p, "Invalid value: " + std::to_string(**out) + ": must be greater than or equal to 0");
        out->reset();
      }
    };
    CoreStruct(n, path, kWorkloadSpecFields, &w->spec_extra, [&](std::string_view key, const Node& v, const Path& p) {
      if (has_replicas) DRA_FIELD("replicas", count(v, p, &w->replicas));
      if (job) DRA_FIELD("parallelism", count(v, p, &w->parallelism));
      if (job) DRA_FIELD("completions", count(v, p, &w->completions));
      if (job) DRA_FIELD("suspend", Bool(v, p, &w->suspend));
      if (job) DRA_FIELD("completionMode", String(v, p, &w->completion_mode));
      DRA_FIELD("template", Decode(v, p, &w->template_));
      return false;
    });
  }
  // batch/v1 CronJobSpec: the schedule, suspend, and the jobTemplate's Job
  // spec (its pod template, parallelism, completions, completion mode).
  void DecodeCronJobSpec(const Node& n, const Path& path, api::Workload* w) {
    static constexpr std::string_view kCronJobSpecFields[] = {"schedule",
                                                              "timeZone",
                                                              "startingDeadlineSeconds",
                                                              "concurrencyPolicy",
                                                              "suspend",
                                                              "successfulJobsHistoryLimit",
                                                              "failedJobsHistoryLimit",
                                                              "jobTemplate"};
    CoreStruct(n, path, kCronJobSpecFields, &w->spec_extra, [&](std::string_view key, const Node& v, const Path& p) {
      DRA_FIELD("schedule", String(v, p, &w->schedule));
      DRA_FIELD("suspend", Bool(v, p, &w->suspend));
      DRA_FIELD("jobTemplate", Struct(v, p, [&](std::string_view jkey, const Node& jv, const Path& jp) {
                  if (jkey == "metadata") {
                    api::ObjectMeta meta;
                    Decode(jv, jp, &meta);
                    return true;
                  }
                  if (jkey != "spec") return false;
                  api::Workload job;
                  job.kind = api::WorkloadKind::kJob;
                  DecodeWorkloadSpec(jv, jp, &job);
                  w->template_ = std::move(job.template_);
                  w->parallelism = job.parallelism;
                  w->completions = job.completions;
                  w->completion_mode = std::move(job.completion_mode);
                  return true;
                }));
      return false;
    });
  }
  api::Workload TopWorkload(const Node& root, api::WorkloadKind kind) {
    api::Workload w;
    w.kind = kind;
    Path root_path;
    Struct(root, root_path, [&](std::string_view key, const Node& v, const Path& p) {
      if (key == "apiVersion" || key == "kind") return true;
      DRA_FIELD("metadata", Decode(v, p, &w.metadata));
      DRA_FIELD("spec",
                kind == api::WorkloadKind::kCronJob ? DecodeCronJobSpec(v, p, &w) : DecodeWorkloadSpec(v, p, &w));
      DRA_FIELD("status", Raw(v, p, &w.status_raw));
      return false;
    });
    return w;
  }

#undef DRA_FIELD

 private:
  const DecodeOptions& options_;
  std::vector<Diagnostic>* diagnostics_;
  size_t error_count_ = 0;
  Diagnostic first_error_;
  bool collecting_names_ = false;
  std::vector<std::string_view> names_;  // FieldIs's, while collecting
};

// Which apiVersions each kind is read from; the boolean marks v1beta1 shapes.
struct VersionMatch {
  bool supported = false;
  bool beta1 = false;
};

VersionMatch MatchVersion(api::Kind kind, std::string_view api_version) {
  switch (kind) {
    case api::Kind::kNode:
    case api::Kind::kPod: return {api_version == "v1", false};
    case api::Kind::kDeviceTaintRule:
      return {api_version == "resource.k8s.io/v1" || api_version == "resource.k8s.io/v1beta2" ||
                  api_version == "resource.k8s.io/v1alpha3",
              false};
    case api::Kind::kPodGroup:
    case api::Kind::kSchedulingWorkload:
      // Only this group: `kind: Workload` of another group is not ours.
      return {api_version == "scheduling.k8s.io/v1beta1" || api_version == "scheduling.k8s.io/v1alpha3", false};
    default:
      if (api_version == "resource.k8s.io/v1beta1") return {true, true};
      return {api_version == "resource.k8s.io/v1" || api_version == "resource.k8s.io/v1beta2", false};
  }
}

// Reads apiVersion or kind from the root; reports problems.
std::string TypeMetaField(const Node& root, std::string_view name, std::vector<Diagnostic>* diags, bool* ok) {
  const Node* n = root.Find(name);
  auto report = [&](Mark mark, std::string message) {
    *ok = false;
    if (diags != nullptr) {
      diags->push_back(Diagnostic{api::Severity::kError, mark, std::string(name), std::move(message)});
    }
  };
  if (n == nullptr || n->is_null()) {
    report(root.mark, "Required value");
    return "";
  }
  if (n->kind != NodeKind::kString) {
    report(n->mark, "expected string, got " + std::string(NodeKindName(n->kind)));
    return "";
  }
  if (n->text.empty()) report(n->mark, "Required value");
  return n->text;
}

std::string Summary(const Diagnostic& first, size_t count) {
  std::string out;
  if (!first.field.empty()) out = first.field + ": ";
  out += first.message;
  if (first.mark.line > 0) {
    out += " (line " + std::to_string(first.mark.line) + ", column " + std::to_string(first.mark.column) + ")";
  }
  if (count > 1) out += " (and " + std::to_string(count - 1) + " more errors)";
  return out;
}

}  // namespace

StatusOr<api::Object> DecodeObject(const Node& root, const DecodeOptions& options,
                                   std::vector<Diagnostic>* diagnostics) {
  if (root.is_null()) return NotFoundError("empty document");
  if (!root.is_mapping()) {
    Diagnostic d{api::Severity::kError, root.mark, "",
                 "expected an object, got " + std::string(NodeKindName(root.kind))};
    std::string summary = Summary(d, 1);
    if (diagnostics != nullptr) diagnostics->push_back(std::move(d));
    return InvalidArgumentError(summary);
  }
  bool ok = true;
  std::vector<Diagnostic> type_meta_errors;
  std::string api_version = TypeMetaField(root, "apiVersion", &type_meta_errors, &ok);
  std::string kind_name = TypeMetaField(root, "kind", &type_meta_errors, &ok);
  if (!ok) {
    std::string summary = Summary(type_meta_errors.front(), type_meta_errors.size());
    if (diagnostics != nullptr) {
      diagnostics->insert(diagnostics->end(), type_meta_errors.begin(), type_meta_errors.end());
    }
    return InvalidArgumentError(summary);
  }
  std::optional<api::Kind> kind = api::ParseKind(kind_name);
  VersionMatch version;
  if (kind) version = MatchVersion(*kind, api_version);
  if (!kind || !version.supported) {
    return NotFoundError("unsupported kind " + api_version + " " + kind_name);
  }

  Decoder decoder(options, diagnostics);
  decoder.beta1 = version.beta1;
  api::Object object;
  switch (*kind) {
    case api::Kind::kDeviceClass: object = decoder.Top<api::DeviceClass>(root); break;
    case api::Kind::kResourceSlice: object = decoder.Top<api::ResourceSlice>(root); break;
    case api::Kind::kResourceClaim: object = decoder.Top<api::ResourceClaim>(root); break;
    case api::Kind::kResourceClaimTemplate: object = decoder.Top<api::ResourceClaimTemplate>(root); break;
    case api::Kind::kDeviceTaintRule: object = decoder.Top<api::DeviceTaintRule>(root); break;
    case api::Kind::kNode: object = decoder.Top<api::Node>(root); break;
    case api::Kind::kPod: object = decoder.Top<api::Pod>(root); break;
    case api::Kind::kPodGroup: object = decoder.Top<api::PodGroup>(root); break;
    case api::Kind::kSchedulingWorkload: object = decoder.Top<api::SchedulingWorkload>(root); break;
  }
  if (decoder.error_count() > 0) {
    return InvalidArgumentError(Summary(decoder.first_error(), decoder.error_count()));
  }
  api::ObjectMeta& meta = api::MetaOf(object);
  meta.source.line = root.mark.line;
  meta.source.column = root.mark.column;
  return object;
}

StatusOr<api::Workload> DecodeWorkload(const Node& root, const DecodeOptions& options,
                                       std::vector<Diagnostic>* diagnostics) {
  if (!root.is_mapping()) return NotFoundError("not an object");
  const Node* api_node = root.Find("apiVersion");
  const Node* kind_node = root.Find("kind");
  if (api_node == nullptr || kind_node == nullptr || api_node->kind != NodeKind::kString ||
      kind_node->kind != NodeKind::kString) {
    return NotFoundError("no apiVersion or kind");
  }
  std::optional<api::WorkloadKind> kind = api::ParseEnum<api::WorkloadKind>(kind_node->text);
  if (!kind || api_node->text != api::WorkloadApiVersion(*kind)) {
    return NotFoundError("unsupported kind " + api_node->text + " " + kind_node->text);
  }
  Decoder decoder(options, diagnostics);
  api::Workload workload = decoder.TopWorkload(root, *kind);
  if (decoder.error_count() > 0) {
    return InvalidArgumentError(Summary(decoder.first_error(), decoder.error_count()));
  }
  workload.metadata.source.line = root.mark.line;
  workload.metadata.source.column = root.mark.column;
  return workload;
}

}  // namespace dra::manifest
