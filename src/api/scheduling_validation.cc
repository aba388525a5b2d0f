// Create-time validation of scheduling.k8s.io PodGroup and Workload (the
// Workload API, gate GenericWorkload) and of pod.spec.schedulingGroup.
//
// Upstream validates these kinds in two layers, both followed here in their
// order: the hand-written pkg/apis/scheduling/validation (ValidatePodGroup:
// metadata and workloadRef required with parentCompositePodGroupName;
// ValidateWorkloadSpec: one priority for all templates), then the
// declarative rules of k8s.io/api/scheduling/v1beta1's +k8s tags
// (pkg/apis/scheduling/v1beta1/zz_generated.validations.go): unions,
// required values, name formats, list limits, unique list-map keys, enums.
// Messages are those of apimachinery's validate package (union.go,
// strfmt.go, limits.go, each.go). Before validating, the registry strategy
// drops the fields whose gates are off (pkg/registry/scheduling/podgroup and
// workload strategy.go); dractl reports such a field as a warning and does
// not look into it, as for every gated field (api/validation.h).
//
// Update-only rules (immutability, NoSet/NoUnset of gang, no added or removed
// templates) do not apply to a create and are not checked.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/names.h"
#include "api/validation.h"
#include "base/json_escape.h"
#include "base/utf8.h"

namespace dra::api {
namespace {

// scheduling.HighestUserDefinablePriority: +k8s:maximum of `priority`.
constexpr int32_t kHighestUserDefinablePriority = 1000000000;

std::string Quote(std::string_view s) { return GoQuote(s); }

// ---------------------------------------------------------------------------
// A list-map entry as the declarative Duplicate error shows it: Go's
// json.Marshal of the v1beta1 struct (field.Error renders non-scalar bad
// values as JSON), which escapes <, > and & for HTML.

void AppendGoJsonString(std::string_view s, std::string& out) {
  std::string plain;
  AppendJsonString(s, plain, {.short_backspace_formfeed = false, .escape_del = false});
  for (char c : plain) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
}

// Appends `"name":` (after a comma unless `out` ends an opening brace).
void Key(std::string_view name, std::string& out) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += name;
  out += "\":";
}

std::string ClaimJson(const PodGroupResourceClaim& claim) {
  std::string out = "{";
  Key("name", out);
  AppendGoJsonString(claim.name, out);
  if (claim.resource_claim_name) {
    Key("resourceClaimName", out);
    AppendGoJsonString(*claim.resource_claim_name, out);
  }
  if (claim.resource_claim_template_name) {
    Key("resourceClaimTemplateName", out);
    AppendGoJsonString(*claim.resource_claim_template_name, out);
  }
  return out + "}";
}

std::string ClaimStatusJson(const PodGroupResourceClaimStatus& status) {
  std::string out = "{";
  Key("name", out);
  AppendGoJsonString(status.name, out);
  if (status.resource_claim_name) {
    Key("resourceClaimName", out);
    AppendGoJsonString(*status.resource_claim_name, out);
  }
  return out + "}";
}

// v1beta1.PodGroupTemplate as json.Marshal writes it, after the strategy
// dropped the fields of disabled gates (schedulingConstraints has no
// omitempty: null when unset).
std::string TemplateJson(const PodGroupTemplate& t, const FeatureGates& gates) {
  const PodGroupSpec& s = t.spec;
  std::string out = "{";
  Key("name", out);
  AppendGoJsonString(t.name, out);
  Key("schedulingPolicy", out);
  out += '{';
  if (s.scheduling_policy.basic) {
    Key("basic", out);
    out += "{}";
  }
  if (s.scheduling_policy.gang) {
    Key("gang", out);
    out += "{\"minCount\":" + std::to_string(s.scheduling_policy.gang->min_count) + "}";
  }
  out += '}';
  Key("schedulingConstraints", out);
  if (s.scheduling_constraints && gates.enabled(Gate::kTopologyAwareWorkloadScheduling)) {
    out += '{';
    if (!s.scheduling_constraints->topology.empty()) {
      Key("topology", out);
      out += '[';
      for (size_t i = 0; i < s.scheduling_constraints->topology.size(); ++i) {
        if (i > 0) out += ',';
        out += "{\"key\":";
        AppendGoJsonString(s.scheduling_constraints->topology[i].key, out);
        out += '}';
      }
      out += ']';
    }
    out += '}';
  } else {
    out += "null";
  }
  if (!s.resource_claims.empty() && gates.enabled(Gate::kDRAWorkloadResourceClaims)) {
    Key("resourceClaims", out);
    out += '[';
    for (size_t i = 0; i < s.resource_claims.size(); ++i) {
      if (i > 0) out += ',';
      out += ClaimJson(s.resource_claims[i]);
    }
    out += ']';
  }
  if (s.disruption_mode) {
    Key("disruptionMode", out);
    out += '{';
    if (s.disruption_mode->single) {
      Key("single", out);
      out += "{}";
    }
    if (s.disruption_mode->all) {
      Key("all", out);
      out += "{}";
    }
    out += '}';
  }
  if (!s.priority_class_name.empty()) {
    Key("priorityClassName", out);
    AppendGoJsonString(s.priority_class_name, out);
  }
  if (s.priority) {
    Key("priority", out);
    out += std::to_string(*s.priority);
  }
  if (s.preemption_policy && gates.enabled(Gate::kPodGroupPreemptionPolicy)) {
    Key("preemptionPolicy", out);
    AppendGoJsonString(*s.preemption_policy, out);
  }
  return out + "}";
}

// ---------------------------------------------------------------------------
// pod.spec.schedulingGroup, kept by PodSpec as compact JSON: the one field
// validateSchedulingGroup reads. The api library has no JSON parser (the
// decoder's lives in manifest/, a floor above), and this needs one string.

class SchedulingGroupReader {
 public:
  enum class Result { kNotObject, kNoName, kNameNotString, kName };

  explicit SchedulingGroupReader(std::string_view text) : text_(text) {}

  // Reads the top-level object; `*name` gets podGroupName on kName.
  Result Read(std::string* name) {
    Space();
    if (!Eat('{')) return Result::kNotObject;
    Result result = Result::kNoName;
    Space();
    if (Eat('}')) return AtEnd() ? result : Result::kNotObject;
    while (true) {
      Space();
      std::string key;
      if (!String(&key)) return Result::kNotObject;
      Space();
      if (!Eat(':')) return Result::kNotObject;
      Space();
      if (key == "podGroupName") {
        if (Peek() == '"') {
          if (!String(name)) return Result::kNotObject;
          result = Result::kName;
        } else if (text_.substr(pos_, 4) == "null") {
          pos_ += 4;
          result = Result::kNoName;
        } else {
          if (!Skip()) return Result::kNotObject;
          result = Result::kNameNotString;
        }
      } else if (!Skip()) {
        return Result::kNotObject;
      }
      Space();
      if (Eat(',')) continue;
      if (Eat('}')) return AtEnd() ? result : Result::kNotObject;
      return Result::kNotObject;
    }
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void Space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool AtEnd() {
    Space();
    return pos_ == text_.size();
  }
  bool Hex4(uint32_t* out) {
    if (pos_ + 4 > text_.size()) return false;
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    pos_ += 4;
    *out = v;
    return true;
  }
  // A JSON string literal, unescaped into `*out` (may be null to skip).
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    std::string value;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') {
        if (out != nullptr) *out = std::move(value);
        return true;
      }
      if (c != '\\') {
        value += c;
        continue;
      }
      if (pos_ >= text_.size()) return false;
      char e = text_[pos_++];
      switch (e) {
        case '"': value += '"'; break;
        case '\\': value += '\\'; break;
        case '/': value += '/'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'n': value += '\n'; break;
        case 'r': value += '\r'; break;
        case 't': value += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            size_t save = pos_;
            pos_ += 2;
            uint32_t low = 0;
            if (Hex4(&low) && low >= 0xDC00 && low < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  // a lone surrogate, as Go decodes it
          AppendUtf8(cp, value);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  // Any one JSON value.
  bool Skip() {
    Space();
    char c = Peek();
    if (c == '"') return String(nullptr);
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      Space();
      if (Eat(close)) return true;
      while (true) {
        Space();
        if (close == '}') {
          if (!String(nullptr)) return false;
          Space();
          if (!Eat(':')) return false;
        }
        if (!Skip()) return false;
        Space();
        if (Eat(',')) continue;
        return Eat(close);
      }
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::string_view(",}] \n\t\r").find(text_[pos_]) == std::string_view::npos) ++pos_;
    return pos_ > start;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// The validator: one per object; collects errors in order.

class SchedulingValidator {
 public:
  explicit SchedulingValidator(const FeatureGates& gates) : gates_(gates) {}

  FieldErrors Take() { return std::move(errs_); }

  // --- error constructors (field.Required, field.Invalid, ...)

  void Add(FieldErrorType type, const FieldPath& path, std::string bad, std::string detail) {
    errs_.push_back(FieldError{.type = type,
                               .field = path.String(),
                               .bad_value = std::move(bad),
                               .detail = std::move(detail),
                               .severity = Severity::kError});
  }
  void Append(FieldErrors errs) {
    for (FieldError& e : errs) errs_.push_back(std::move(e));
  }
  void Required(const FieldPath& path, std::string detail = "") {
    Add(FieldErrorType::kRequired, path, "", std::move(detail));
  }
  void Invalid(const FieldPath& path, std::string bad, std::string detail) {
    Add(FieldErrorType::kInvalid, path, std::move(bad), std::move(detail));
  }
  bool GateOff(Gate gate, const FieldPath& path) {
    if (gates_.enabled(gate)) return false;
    errs_.push_back(GateOffWarning(gate, path));
    return true;
  }

  // --- declarative formats (apimachinery validate/strfmt.go)

  // +k8s:format=k8s-short-name.
  void ShortName(std::string_view value, const FieldPath& path) {
    for (std::string& msg : IsDNS1123Label(value)) Invalid(path, Quote(value), std::move(msg));
  }
  // +k8s:format=k8s-long-name.
  void LongName(std::string_view value, const FieldPath& path) {
    for (std::string& msg : IsDNS1123Subdomain(value)) Invalid(path, Quote(value), std::move(msg));
  }
  // +k8s:format=k8s-label-key.
  void LabelKey(std::string_view value, const FieldPath& path) {
    for (std::string& msg : IsLabelName(value)) Invalid(path, Quote(value), std::move(msg));
  }
  // +k8s:format=k8s-path-segment-name (content.IsPathSegmentName).
  void PathSegmentName(std::string_view value, const FieldPath& path) {
    if (value == "." || value == "..") {
      Invalid(path, Quote(value), "may not be '" + std::string(value) + "'");
      return;
    }
    for (std::string_view bad : {"/", "%"}) {
      if (value.find(bad) != std::string_view::npos) {
        Invalid(path, Quote(value), "may not contain '" + std::string(bad) + "'");
      }
    }
  }
  // +k8s:required on a value field, then a format: "" is Required.
  template <typename Format>
  void RequiredThen(std::string_view value, const FieldPath& path, Format format) {
    if (value.empty()) {
      Required(path);
    } else {
      (this->*format)(value, path);
    }
  }

  // validate.Union: `set[i]` tells whether member `names[i]` is set.
  void Union(const FieldPath& path, std::initializer_list<std::string_view> names, std::initializer_list<bool> set) {
    std::string all, specified;
    size_t count = 0;
    auto name = names.begin();
    for (auto is_set = set.begin(); is_set != set.end(); ++is_set, ++name) {
      all += (all.empty() ? "`" : ", `") + std::string(*name) + "`";
      if (*is_set) {
        specified += (specified.empty() ? "" : ", ") + std::string(*name);
        ++count;
      }
    }
    if (count > 1) {
      Invalid(path, Quote("{" + specified + "}"), "must specify exactly one of: " + all);
    } else if (count == 0) {
      Invalid(path, Quote(""), "must specify one of: " + all);
    }
  }

  // +k8s:maxItems: TooMany, and the list is not looked into (short circuit).
  bool TooMany(const FieldPath& path, size_t size, size_t max) {
    if (size <= max) return false;
    Add(FieldErrorType::kTooMany, path, std::to_string(size), "must have at most " + std::to_string(max) + " items");
    return true;
  }

  // ValSliceUnique of a +listType=map: a Duplicate at each later entry whose
  // key an earlier one has, the entry shown as JSON.
  template <typename T, typename KeyFn, typename JsonFn>
  void UniqueKeys(const std::vector<T>& items, const FieldPath& path, KeyFn key, JsonFn json) {
    for (size_t j = 1; j < items.size(); ++j) {
      for (size_t i = 0; i < j; ++i) {
        if (key(items[i]) == key(items[j])) {
          Add(FieldErrorType::kDuplicate, path.Index(j), json(items[j]), "");
          break;
        }
      }
    }
  }

  // --- shared pieces

  // Validate_PodGroupSchedulingPolicy and Validate_GangSchedulingPolicy.
  void PolicyOf(const PodGroupSchedulingPolicy& policy, const FieldPath& path) {
    Union(path, {"basic", "gang"}, {policy.basic, policy.gang.has_value()});
    if (policy.gang) {
      FieldPath min_count = path.Child("gang").Child("minCount");
      if (policy.gang->min_count == 0) {
        Required(min_count);
      } else if (policy.gang->min_count < 1) {
        Invalid(min_count, std::to_string(policy.gang->min_count), "must be greater than or equal to 1");
      }
    }
  }

  // Validate_PodGroupSchedulingConstraints (the field is dropped while
  // TopologyAwareWorkloadScheduling is off).
  void ConstraintsOf(const std::optional<PodGroupSchedulingConstraints>& constraints, const FieldPath& path) {
    if (!constraints || GateOff(Gate::kTopologyAwareWorkloadScheduling, path)) return;
    FieldPath topology = path.Child("topology");
    if (TooMany(topology, constraints->topology.size(), kPodGroupMaxTopologyConstraints)) return;
    for (size_t i = 0; i < constraints->topology.size(); ++i) {
      RequiredThen(constraints->topology[i].key, topology.Index(i).Child("key"), &SchedulingValidator::LabelKey);
    }
  }

  // resourceClaims: dropped while DRAWorkloadResourceClaims is off; else at
  // most 4, unique names, Validate_PodGroupResourceClaim each.
  void ClaimsOf(const std::vector<PodGroupResourceClaim>& claims, const FieldPath& path) {
    if (claims.empty() || GateOff(Gate::kDRAWorkloadResourceClaims, path)) return;
    if (TooMany(path, claims.size(), kMaxPodGroupResourceClaims)) return;
    UniqueKeys(
        claims, path, [](const PodGroupResourceClaim& c) { return c.name; }, ClaimJson);
    for (size_t i = 0; i < claims.size(); ++i) {
      const PodGroupResourceClaim& c = claims[i];
      FieldPath item = path.Index(i);
      Union(item, {"resourceClaimName", "resourceClaimTemplateName"},
            {c.resource_claim_name.has_value(), c.resource_claim_template_name.has_value()});
      RequiredThen(c.name, item.Child("name"), &SchedulingValidator::ShortName);
      if (c.resource_claim_name) LongName(*c.resource_claim_name, item.Child("resourceClaimName"));
      if (c.resource_claim_template_name) {
        LongName(*c.resource_claim_template_name, item.Child("resourceClaimTemplateName"));
      }
    }
  }

  // The fields PodGroupSpec and PodGroupTemplate share, in Go field order;
  // `pod_group` adds what only a PodGroup has (parentCompositePodGroupName,
  // workloadRef, a required disruptionMode).
  void SpecOf(const PodGroupSpec& spec, const FieldPath& path, bool pod_group) {
    if (pod_group) {
      FieldPath parent = path.Child("parentCompositePodGroupName");
      if (spec.parent_composite_pod_group_name && !GateOff(Gate::kCompositePodGroup, parent)) {
        LongName(*spec.parent_composite_pod_group_name, parent);
      }
      if (spec.workload_ref) {
        FieldPath ref = path.Child("workloadRef");
        RequiredThen(spec.workload_ref->workload_name, ref.Child("workloadName"), &SchedulingValidator::LongName);
        RequiredThen(spec.workload_ref->template_name, ref.Child("templateName"), &SchedulingValidator::ShortName);
      }
    }
    PolicyOf(spec.scheduling_policy, path.Child("schedulingPolicy"));
    ConstraintsOf(spec.scheduling_constraints, path.Child("schedulingConstraints"));
    ClaimsOf(spec.resource_claims, path.Child("resourceClaims"));
    FieldPath disruption = path.Child("disruptionMode");
    if (spec.disruption_mode) {
      Union(disruption, {"single", "all"}, {spec.disruption_mode->single, spec.disruption_mode->all});
    } else if (pod_group) {
      // Optional with a default, so required after defaulting.
      Required(disruption);
    }
    if (!spec.priority_class_name.empty()) LongName(spec.priority_class_name, path.Child("priorityClassName"));
    if (spec.priority && *spec.priority > kHighestUserDefinablePriority) {
      Invalid(path.Child("priority"), std::to_string(*spec.priority),
              "must be less than or equal to " + std::to_string(kHighestUserDefinablePriority));
    }
    FieldPath preemption = path.Child("preemptionPolicy");
    if (spec.preemption_policy && !GateOff(Gate::kPodGroupPreemptionPolicy, preemption) &&
        *spec.preemption_policy != kPreemptLowerPriority && *spec.preemption_policy != kPreemptNever) {
      Add(FieldErrorType::kNotSupported, preemption, Quote(*spec.preemption_policy),
          "supported values: \"Never\", \"PreemptLowerPriority\"");
    }
  }

  // With GenericWorkload off the API server does not serve the kind at all.
  void Served(std::string_view kind) {
    if (gates_.enabled(Gate::kGenericWorkload)) return;
    std::string detail = std::string(kind) + " requires feature gate GenericWorkload, which is disabled";
    if (gates_.maturity(Gate::kGenericWorkload) == Maturity::kAbsent) {
      detail += " (Kubernetes " + gates_.version() + " does not have it; the API server does not serve this kind)";
    } else {
      detail += " (the API server does not serve this kind; enable with --feature-gates GenericWorkload=true)";
    }
    Add(FieldErrorType::kForbidden, FieldPath("kind"), "", std::move(detail));
  }

  // --- PodGroup

  void PodGroupOf(const PodGroup& group) {
    Served("PodGroup");
    // Hand-written ValidatePodGroup first: metadata (ValidatePodGroupName is
    // a DNS subdomain), then workloadRef required with a parent composite
    // group (which is only there with CompositePodGroup on).
    Append(ValidateObjectMeta(group.metadata, /*namespaced=*/true, FieldPath("metadata")));
    FieldPath spec("spec");
    if (group.spec.parent_composite_pod_group_name && gates_.enabled(Gate::kCompositePodGroup) &&
        !group.spec.workload_ref) {
      Required(spec.Child("workloadRef"), "must be set when parentCompositePodGroupName is set");
    }
    SpecOf(group.spec, spec, /*pod_group=*/true);
    StatusOf(group.status, group.spec, FieldPath("status"));
  }

  // As ValidatePodGroupStatusUpdate and Validate_PodGroupStatus: conditions,
  // then resourceClaimStatuses (dropped while DRAWorkloadResourceClaims is
  // off; at most 4, unique names, each naming a spec.resourceClaims entry).
  void StatusOf(const PodGroupStatus& status, const PodGroupSpec& spec, const FieldPath& path) {
    Append(ValidateConditions(status.conditions, path.Child("conditions")));
    const std::vector<PodGroupResourceClaimStatus>& statuses = status.resource_claim_statuses;
    FieldPath list = path.Child("resourceClaimStatuses");
    if (statuses.empty() || GateOff(Gate::kDRAWorkloadResourceClaims, list)) return;
    for (size_t i = 0; i < statuses.size(); ++i) {
      const std::string& name = statuses[i].name;
      if (std::none_of(spec.resource_claims.begin(), spec.resource_claims.end(),
                       [&](const PodGroupResourceClaim& c) { return c.name == name; })) {
        Invalid(list.Index(i).Child("name"), Quote(name), "must match the name of an entry in `spec.resourceClaims`");
      }
    }
    if (TooMany(list, statuses.size(), kMaxPodGroupResourceClaims)) return;
    UniqueKeys(
        statuses, list, [](const PodGroupResourceClaimStatus& s) { return s.name; }, ClaimStatusJson);
    for (size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i].resource_claim_name) {
        LongName(*statuses[i].resource_claim_name, list.Index(i).Child("resourceClaimName"));
      }
    }
  }

  // --- Workload

  void WorkloadOf(const SchedulingWorkload& workload) {
    Served("Workload");
    Append(ValidateObjectMeta(workload.metadata, /*namespaced=*/true, FieldPath("metadata")));
    FieldPath spec("spec");
    const std::vector<PodGroupTemplate>& templates = workload.spec.pod_group_templates;
    // Hand-written validateWorkloadPriority: one priorityClassName and one
    // priority (both unset, or equal) across the templates. (Its rules over
    // compositePodGroupTemplates are not checked: see below.)
    for (size_t i = 1; i < templates.size(); ++i) {
      if (templates[i].spec.priority_class_name != templates[0].spec.priority_class_name ||
          templates[i].spec.priority != templates[0].spec.priority) {
        // field.Invalid with a nil value: ErrorBody prints JSON null.
        Invalid(spec, "null", "detected multiple priority configurations");
        break;
      }
    }
    // compositePodGroupTemplates is dropped while CompositePodGroup is off.
    const RawJson* composite = workload.spec.extra.find("compositePodGroupTemplates");
    const bool has_composite = composite != nullptr && *composite != "[]" && *composite != "null" &&
                               !GateOff(Gate::kCompositePodGroup, spec.Child("compositePodGroupTemplates"));
    // Declarative Validate_WorkloadSpec.
    Union(spec, {"podGroupTemplates", "compositePodGroupTemplates"}, {!templates.empty(), has_composite});
    if (workload.spec.controller_ref) {
      const TypedLocalObjectReference& ref = *workload.spec.controller_ref;
      FieldPath path = spec.Child("controllerRef");
      if (!ref.api_group.empty()) LongName(ref.api_group, path.Child("apiGroup"));
      RequiredThen(ref.kind, path.Child("kind"), &SchedulingValidator::PathSegmentName);
      RequiredThen(ref.name, path.Child("name"), &SchedulingValidator::PathSegmentName);
    }
    FieldPath list = spec.Child("podGroupTemplates");
    if (!TooMany(list, templates.size(), kWorkloadMaxPodGroupTemplates)) {
      UniqueKeys(
          templates, list, [](const PodGroupTemplate& t) { return t.name; },
          [this](const PodGroupTemplate& t) { return TemplateJson(t, gates_); });
      for (size_t i = 0; i < templates.size(); ++i) {
        FieldPath item = list.Index(i);
        RequiredThen(templates[i].name, item.Child("name"), &SchedulingValidator::ShortName);
        SpecOf(templates[i].spec, item, /*pod_group=*/false);
      }
    }
    // With CompositePodGroup on, the composite templates (kept raw) are not
    // looked into: their names, depth, priorities and children are not checked.
  }

  // --- Pod

  // corevalidation validateSchedulingGroup; the field is dropped while
  // GenericWorkload is off (dropDisabledSchedulingGroup).
  void SchedulingGroupOf(const RawJson& raw, const FieldPath& path) {
    if (GateOff(Gate::kGenericWorkload, path)) return;
    FieldPath name_path = path.Child("podGroupName");
    std::string name;
    switch (SchedulingGroupReader(raw).Read(&name)) {
      case SchedulingGroupReader::Result::kNotObject:
        // The API server cannot decode it (PodSchedulingGroup is an object).
        Invalid(path, Quote(raw), "must be an object with a podGroupName");
        return;
      case SchedulingGroupReader::Result::kNameNotString: Invalid(name_path, "", "must be a string"); return;
      case SchedulingGroupReader::Result::kNoName:
        // A one-of with one member; the nil pointer prints as JSON null.
        Invalid(name_path, "null", "must specify one of: `podGroupName`");
        return;
      case SchedulingGroupReader::Result::kName:
        // ValidatePodGroupName (a DNS subdomain) with prefix = false.
        LongName(name, name_path);
        return;
    }
  }

 private:
  const FeatureGates& gates_;
  FieldErrors errs_;
};

}  // namespace

FieldErrors ValidatePodGroup(const PodGroup& group, const FeatureGates& gates) {
  SchedulingValidator v(gates);
  v.PodGroupOf(group);
  return v.Take();
}

FieldErrors ValidateSchedulingWorkload(const SchedulingWorkload& workload, const FeatureGates& gates) {
  SchedulingValidator v(gates);
  v.WorkloadOf(workload);
  return v.Take();
}

FieldErrors ValidatePodSchedulingGroup(const RawJson& scheduling_group, const FeatureGates& gates,
                                       const FieldPath& path) {
  SchedulingValidator v(gates);
  v.SchedulingGroupOf(scheduling_group, path);
  return v.Take();
}

}  // namespace dra::api
