// Create-time validation of the DRA kinds and of the DRA parts of Node and Pod.
//
// The code follows the order and the error texts of upstream
// pkg/apis/resource/validation/validation.go (validateResourceSliceSpec,
// validateDevice, validateDeviceClaim, validateResourceClaimStatusUpdate, ...)
// and of pkg/apis/core/validation (ValidateNodeSelector, validatePodResourceClaim,
// validateResourceClaimNames, ValidateTolerations), so that a user sees the
// messages the API server would print. Where upstream reports a problem only
// through declarative validation (+k8s tags: required names, skipNodeOperations
// values, partitionTypeAttribute format), we report it the way the
// declarative validator does. Functions name their upstream counterpart when
// the mapping is not obvious.
//
// Bad values are rendered as Go's field.Error renders them: strings quoted
// (%q), integers and booleans plain, nil as "null".
#include "api/validation.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/names.h"
#include "base/release.h"
#include "base/strings.h"

namespace dra::api {
namespace {

using quantity::Quantity;

// ---------------------------------------------------------------------------
// Rendering of bad values.

std::string Quote(std::string_view s) { return GoQuote(s); }

std::string Int(int64_t v) { return std::to_string(v); }
std::string Size(size_t v) { return std::to_string(v); }
std::string Bool(bool v) { return v ? "true" : "false"; }
const std::string kNilValue = "\"null\"";  // Go renders a nil bad value as the string "null"

std::string JoinQuoted(std::initializer_list<std::string_view> values) {
  std::string out;
  for (std::string_view v : values) {
    if (!out.empty()) out += ", ";
    out += Quote(v);
  }
  return out;
}

// A list of strings as Go's %#v would show it, shortened to JSON.
std::string StringList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (const std::string& v : values) {
    if (out.size() > 1) out += ",";
    out += Quote(v);
  }
  return out + "]";
}

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Upstream truncateIfTooLong: map keys in paths are shortened in the middle.
std::string TruncateKey(std::string_view key, size_t max_len) {
  max_len = std::max<size_t>(max_len, 16);
  if (key.size() <= max_len) return std::string(key);
  constexpr std::string_view kEllipsis = "...";
  size_t remaining = max_len - kEllipsis.size();
  std::string out(key.substr(0, (remaining + 1) / 2));
  out += kEllipsis;
  out += key.substr(key.size() - remaining / 2);
  return out;
}

// Attribute and capacity keys: domain (63) + '/' + identifier (32).
constexpr size_t kAttributeKeyMaxLength = kDeviceMaxDomainLength + 1 + kDeviceMaxIDLength;

// ---------------------------------------------------------------------------
// A small JSON syntax check for RawJson fields (opaque parameters, device
// status data). The api library may not depend on manifest/, whose parser the
// decoder uses, and these fields only need "is this a JSON object".

class JsonChecker {
 public:
  enum class Kind { kInvalid, kObject, kJsonNull, kOther };

  explicit JsonChecker(std::string_view text) : text_(text) {}

  // The kind of the single top-level value; kInvalid with error() set otherwise.
  Kind Check() {
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("unexpected end of JSON input");
    char first = text_[pos_];
    if (!Value(0)) return Kind::kInvalid;
    SkipSpace();
    if (pos_ != text_.size()) return Fail("invalid character after top-level value");
    if (first == '{') return Kind::kObject;
    if (first == 'n') return Kind::kJsonNull;
    return Kind::kOther;
  }
  const std::string& error() const { return error_; }

 private:
  static constexpr int kMaxDepth = 10000;

  Kind Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return Kind::kInvalid;
  }
  bool FailB(std::string message) {
    Fail(std::move(message));
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return FailB("invalid literal");
    pos_ += word.size();
    return true;
  }
  bool String() {
    ++pos_;  // opening quote
    while (pos_ < text_.size()) {
      auto c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return true;
      if (c < 0x20) return FailB("invalid character in string literal");
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        char e = text_[pos_++];
        if (e == 'u') {
          for (int i = 0; i < 4; ++i, ++pos_) {
            if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
              return FailB("invalid \\u escape in string literal");
            }
          }
        } else if (std::strchr("\"\\/bfnrt", e) == nullptr || e == '\0') {
          return FailB("invalid escape in string literal");
        }
      }
    }
    return FailB("unexpected end of JSON input");
  }
  bool Digits() {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }
  bool Number() {
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (!Digits()) {
      return FailB("invalid number literal");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!Digits()) return FailB("invalid number literal");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!Digits()) return FailB("invalid number literal");
    }
    return true;
  }
  bool Value(int depth) {
    if (depth > kMaxDepth) return FailB("exceeded max depth");
    SkipSpace();
    if (pos_ >= text_.size()) return FailB("unexpected end of JSON input");
    char c = text_[pos_];
    switch (c) {
      case '{': {
        ++pos_;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return true;
        }
        while (true) {
          SkipSpace();
          if (pos_ >= text_.size() || text_[pos_] != '"') return FailB("expected object key");
          if (!String()) return false;
          SkipSpace();
          if (pos_ >= text_.size() || text_[pos_] != ':') return FailB("expected ':' after object key");
          ++pos_;
          if (!Value(depth + 1)) return false;
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            continue;
          }
          if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return true;
          }
          return FailB("expected ',' or '}' in object");
        }
      }
      case '[': {
        ++pos_;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return true;
        }
        while (true) {
          if (!Value(depth + 1)) return false;
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            continue;
          }
          if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return true;
          }
          return FailB("expected ',' or ']' in array");
        }
      }
      case '"': return String();
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number();
        return FailB(std::string("invalid character ") + Quote(std::string_view(&c, 1)) +
                     " looking for beginning of value");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------
// Interface addresses (networkData.ips): upstream IsValidInterfaceAddress, an
// IP address with a prefix length, in canonical form.

std::optional<std::string> CanonicalInterfaceAddress(std::string_view value) {
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string ip(value.substr(0, slash));
  std::string_view prefix = value.substr(slash + 1);
  if (prefix.empty() || prefix.size() > 3) return std::nullopt;
  int bits = 0;
  for (char c : prefix) {
    if (c < '0' || c > '9') return std::nullopt;
    bits = bits * 10 + (c - '0');
  }
  unsigned char buf[16];
  char text[INET6_ADDRSTRLEN];
  if (ip.find(':') == std::string::npos) {
    if (bits > 32 || inet_pton(AF_INET, ip.c_str(), buf) != 1) return std::nullopt;
    if (inet_ntop(AF_INET, buf, text, sizeof(text)) == nullptr) return std::nullopt;
  } else {
    if (bits > 128 || inet_pton(AF_INET6, ip.c_str(), buf) != 1) return std::nullopt;
    if (inet_ntop(AF_INET6, buf, text, sizeof(text)) == nullptr) return std::nullopt;
  }
  return std::string(text) + "/" + std::to_string(bits);
}

// ---------------------------------------------------------------------------
// Quantity helpers for the requestPolicy arithmetic (upstream
// validateRequestPolicyRange and friends).

const Quantity& MaxInt64Quantity() {
  static const Quantity q = Quantity::FromInt(std::numeric_limits<int64_t>::max());
  return q;
}
const Quantity& MinInt64Quantity() {
  static const Quantity q = Quantity::FromInt(std::numeric_limits<int64_t>::min());
  return q;
}

// Upstream isFractionalQuantity. Values outside int64 are treated as whole:
// the integer path rejects them anyway.
bool IsFractional(const Quantity& q) {
  if (q.AsInt64().has_value()) return false;
  return q.Compare(MaxInt64Quantity()) <= 0 && q.Compare(MinInt64Quantity()) >= 0;
}

// (value - min) with Go's wrapping int64 arithmetic.
int64_t WrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

// ---------------------------------------------------------------------------
// Request names of a claim, for references in constraints, configs and results
// (upstream requestNames).

class RequestNames {
 public:
  explicit RequestNames(const DeviceClaim& claim) {
    for (const DeviceRequest& request : claim.requests) {
      std::set<std::string>& subs = names_[request.name];
      for (const DeviceSubRequest& sub : request.first_available) subs.insert(sub.name);
    }
  }
  // "<request>" or "<request>/<subrequest>" naming an existing (sub)request.
  bool Has(std::string_view reference) const {
    std::vector<std::string_view> segments = Split(reference, '/');
    if (segments.size() > 2) return false;
    auto it = names_.find(std::string(segments[0]));
    if (it == names_.end()) return false;
    if (segments.size() == 1) return true;
    return it->second.count(std::string(segments[1])) > 0;
  }

 private:
  std::map<std::string, std::set<std::string>> names_;
};

// "driver/pool/device" or "driver/pool/device/shareID" (structured.SharedDeviceID).
std::string SharedDeviceId(std::string_view driver, std::string_view pool, std::string_view device,
                           const std::optional<std::string>& share_id) {
  std::string id = std::string(driver) + "/" + std::string(pool) + "/" + std::string(device);
  if (share_id) id += "/" + *share_id;
  return id;
}

int MinorOf(const FeatureGates& gates) {
  std::string version = gates.version();  // "" or "1.NN"
  if (version.size() < 3) return kDefaultMinor;
  return std::stoi(version.substr(2));
}

// ---------------------------------------------------------------------------
// The validator: one per call; collects errors in order.

class Validator {
 public:
  explicit Validator(const FeatureGates& gates, CelExpressionChecker* cel = nullptr)
      : gates_(gates), minor_(MinorOf(gates)), cel_(cel) {}

  FieldErrors Take() { return std::move(errs_); }

  // --- error constructors (field.Required, field.Invalid, ...)

  void Add(FieldErrorType type, const FieldPath& path, std::string bad, std::string detail,
           Severity severity = Severity::kError) {
    errs_.push_back(FieldError{.type = type,
                               .field = path.String(),
                               .bad_value = std::move(bad),
                               .detail = std::move(detail),
                               .severity = severity});
  }
  void Required(const FieldPath& path, std::string detail = "") {
    Add(FieldErrorType::kRequired, path, "", std::move(detail));
  }
  void Invalid(const FieldPath& path, std::string bad, std::string detail) {
    Add(FieldErrorType::kInvalid, path, std::move(bad), std::move(detail));
  }
  void Duplicate(const FieldPath& path, std::string bad) { Add(FieldErrorType::kDuplicate, path, std::move(bad), ""); }
  void NotSupported(const FieldPath& path, std::string bad, std::initializer_list<std::string_view> supported) {
    Add(FieldErrorType::kNotSupported, path, std::move(bad), "supported values: " + JoinQuoted(supported));
  }
  void Forbidden(const FieldPath& path, std::string detail) {
    Add(FieldErrorType::kForbidden, path, "", std::move(detail));
  }
  void TooLong(const FieldPath& path, size_t max) {
    Add(FieldErrorType::kTooLong, path, "", "may not be more than " + Size(max) + " bytes");
  }
  void TooMany(const FieldPath& path, size_t actual, size_t max) {
    Add(FieldErrorType::kTooMany, path, Size(actual), "must have at most " + Size(max) + " items");
  }
  void NotFound(const FieldPath& path, std::string bad, std::string detail = "") {
    Add(FieldErrorType::kNotFound, path, std::move(bad), std::move(detail));
  }
  void Warn(FieldErrorType type, const FieldPath& path, std::string bad, std::string detail) {
    Add(type, path, std::move(bad), std::move(detail), Severity::kWarning);
  }

  // Reports a gated field set while its gate is off. Returns true if off.
  // A warning, not an error: the API server accepts the object and silently
  // drops the field, which is exactly what a user needs to be told.
  bool GateOff(Gate gate, const FieldPath& path) {
    if (gates_.enabled(gate)) return false;
    errs_.push_back(GateOffWarning(gate, path));
    return true;
  }
  // Binding-condition fields need both gates.
  bool BindingGatesOff(const FieldPath& path) {
    if (GateOff(Gate::kDRADeviceBindingConditions, path)) return true;
    return GateOff(Gate::kDRAResourceClaimDeviceStatus, path);
  }

  // --- names

  // Upstream ValidateDNS1123Label / ValidateDNS1123Subdomain; an empty
  // required name is "Required" as declarative validation reports it.
  void DNSLabel(std::string_view value, const FieldPath& path, bool required = true) {
    if (value.empty() && required) {
      Required(path);
      return;
    }
    for (std::string& msg : IsDNS1123Label(value)) Invalid(path, Quote(value), std::move(msg));
  }
  void DNSSubdomain(std::string_view value, const FieldPath& path, bool required = true) {
    if (value.empty() && required) {
      Required(path);
      return;
    }
    for (std::string& msg : IsDNS1123Subdomain(value)) Invalid(path, Quote(value), std::move(msg));
  }

  // Upstream ValidateCSIDriverName, plus the documented lower-case rule as a warning.
  void DriverName(std::string_view name, const FieldPath& path) {
    if (name.empty()) {
      Required(path);
      return;
    }
    size_t before = errs_.size();
    if (name.size() > kDriverNameMaxLength) TooLong(path, kDriverNameMaxLength);
    for (std::string& msg : IsDNS1123Subdomain(ToLowerAscii(name))) Invalid(path, Quote(name), std::move(msg));
    if (errs_.size() == before && HasUpperCase(name)) {
      Warn(FieldErrorType::kInvalid, path, Quote(name),
           "driver names should be lower case (the API server accepts upper case, the documentation "
           "asks for a lower-case DNS subdomain)");
    }
  }

  // Upstream validatePoolName: bad values are the offending segments.
  void PoolName(std::string_view name, const FieldPath& path) {
    if (name.empty()) {
      Required(path);
      return;
    }
    if (name.size() > kPoolNameMaxLength) TooLong(path, kPoolNameMaxLength);
    for (std::string_view part : Split(name, '/')) {
      for (std::string& msg : IsDNS1123Subdomain(part)) Invalid(path, Quote(part), std::move(msg));
    }
  }

  void NodeName(std::string_view name, const FieldPath& path) {
    for (std::string& msg : IsNodeName(name)) Invalid(path, Quote(name), std::move(msg));
  }

  void LabelName(std::string_view name, const FieldPath& path) {
    for (std::string& msg : IsLabelName(name)) Invalid(path, Quote(name), std::move(msg));
  }
  void LabelValue(std::string_view value, const FieldPath& path) {
    for (std::string& msg : IsLabelValue(value)) Invalid(path, Quote(value), std::move(msg));
  }

  void CIdentifier(std::string_view id, const FieldPath& path) {
    if (id.size() > kDeviceMaxIDLength) TooLong(path, kDeviceMaxIDLength);
    for (std::string& msg : IsCIdentifier(id)) Invalid(path, Quote(id), std::move(msg));
  }

  // Upstream validateQualifiedName: errors are reported at `path` (for map
  // keys, the path of the map).
  void QualifiedName(std::string_view name, const FieldPath& path) {
    std::vector<std::string_view> parts = Split(name, '/');
    switch (parts.size()) {
      case 1: CIdentifier(parts[0], path); break;
      case 2:
        if (parts[0].empty()) {
          Invalid(path, Quote(""), "the domain must not be empty");
        } else {
          DriverName(parts[0], path);
        }
        if (parts[1].empty()) {
          Invalid(path, Quote(""), "the name must not be empty");
        } else {
          CIdentifier(parts[1], path);
        }
        break;
      default: Invalid(path, Quote(name), "must not contain more than one slash"); break;
    }
  }

  // Upstream validateFullyQualifiedName.
  void FullyQualifiedName(std::string_view name, const FieldPath& path) {
    QualifiedName(name, path);
    FullyQualifiedNameSlash(name, path);
  }
  // Where 1.37 validates the name declaratively (constraints' matchAttribute
  // and distinctAttribute: the handwritten check is covered), the API server
  // reports what apimachinery's ResourceFullyQualifiedName (strfmt.go) does:
  // the domain is a lower-case DNS subdomain of at most 63 characters (no
  // lower-casing first, as the handwritten driver-name check does), and a
  // second slash is not checked ("a/b/c" is accepted; a TODO there).
  // tools/difftest --level validation found both.
  void DeclarativeFullyQualifiedName(std::string_view name, const FieldPath& path) {
    std::vector<std::string_view> parts = Split(name, '/');
    if (minor_ < 37) {
      QualifiedName(name, path);
    } else if (parts.size() == 1) {
      CIdentifier(parts[0], path);
    } else if (parts.size() == 2) {
      if (parts[0].empty()) {
        Invalid(path, Quote(""), "prefix must not be empty");
      } else {
        if (parts[0].size() > kDriverNameMaxLength) TooLong(path, kDriverNameMaxLength);
        for (std::string& msg : IsDNS1123Subdomain(parts[0])) {
          Invalid(path, Quote(parts[0]), "prefix: " + msg);
        }
      }
      if (parts[1].empty()) {
        Invalid(path, Quote(""), "name must not be empty");
      } else {
        CIdentifier(parts[1], path);
      }
    }
    FullyQualifiedNameSlash(name, path);
  }
  void FullyQualifiedNameSlash(std::string_view name, const FieldPath& path) {
    if (name.find('/') == std::string_view::npos) {
      Invalid(path, Quote(name), "a fully qualified name must be a domain and a name separated by a slash");
    }
  }

  void UUID(std::string_view id, const FieldPath& path) {
    for (std::string& msg : IsUUID(id)) Invalid(path, Quote(id), std::move(msg));
  }

  // --- shared pieces

  void ObjectMetaOf(const ObjectMeta& meta, bool namespaced, const FieldPath& path) {
    if (meta.name.empty()) {
      if (meta.generate_name.empty()) Required(path.Child("name"), "name or generateName is required");
    } else {
      DNSSubdomain(meta.name, path.Child("name"));
    }
    // An empty namespace is accepted: manifests leave it to kubectl's default.
    if (namespaced) {
      if (!meta.namespace_.empty()) DNSLabel(meta.namespace_, path.Child("namespace"));
    } else if (!meta.namespace_.empty()) {
      Forbidden(path.Child("namespace"), "not allowed on this type");
    }
    Labels(meta.labels, path.Child("labels"));
    Annotations(meta.annotations, path.Child("annotations"));
  }

  // metav1validation.ValidateLabels.
  void Labels(const FlatMap<std::string>& labels, const FieldPath& path) {
    for (const auto& [key, value] : labels) {
      LabelName(key, path);
      LabelValue(value, path);
    }
  }

  // apimachineryvalidation.ValidateAnnotations.
  void Annotations(const FlatMap<std::string>& annotations, const FieldPath& path) {
    constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;
    size_t total = 0;
    for (const auto& [key, value] : annotations) {
      for (std::string& msg : IsLabelName(ToLowerAscii(key))) Invalid(path, Quote(key), std::move(msg));
      total += key.size() + value.size();
    }
    if (total > kTotalAnnotationSizeLimit) TooLong(path, kTotalAnnotationSizeLimit);
  }

  // upstream validateRawExtension (stored = false).
  void RawJsonObject(const RawJson& raw, const FieldPath& path, size_t max_length) {
    if (raw.empty()) {
      Required(path);
      return;
    }
    if (raw.size() > max_length) {
      TooLong(path, max_length);
      return;
    }
    JsonChecker checker(raw);
    switch (checker.Check()) {
      case JsonChecker::Kind::kInvalid:
        Invalid(path, Quote("<value omitted>"), "error parsing data as JSON: " + checker.error());
        break;
      case JsonChecker::Kind::kJsonNull: Required(path); break;
      case JsonChecker::Kind::kOther: Invalid(path, Quote("<value omitted>"), "must be a valid JSON object"); break;
      case JsonChecker::Kind::kObject: break;
    }
  }

  void Opaque(const OpaqueDeviceConfiguration& opaque, const FieldPath& path) {
    DriverName(opaque.driver, path.Child("driver"));
    RawJsonObject(opaque.parameters, path.Child("parameters"), kOpaqueParametersMaxLength);
  }

  // upstream validateDeviceConfiguration.
  void Configuration(const std::optional<OpaqueDeviceConfiguration>& opaque, const FieldPath& path) {
    if (!opaque) {
      Required(path.Child("opaque"));
    } else {
      Opaque(*opaque, path.Child("opaque"));
    }
  }

  // upstream validateCELExpression: the compiler's problems (through cel_)
  // at `path`; a derived attribute's cost counts towards the claim's total.
  void CelExpression(std::string_view expression, const FieldPath& path,
                     CelExpressionKind kind = CelExpressionKind::kSelector) {
    if (expression.size() > kCELSelectorExpressionMaxLength) {
      TooLong(path, kCELSelectorExpressionMaxLength);
      return;  // upstream does not compile too long expressions
    }
    if (expression.empty()) {
      Required(path, "expression must not be empty");
      return;
    }
    if (cel_ == nullptr) return;
    const CelExpressionCheck& check = cel_->Check(expression, kind);
    for (const CelExpressionProblem& problem : check.problems) {
      Add(problem.type, path, problem.type == FieldErrorType::kInvalid ? Quote(expression) : "", problem.detail,
          problem.severity);
    }
    if (kind == CelExpressionKind::kDerivedAttribute && check.compiled) derived_attribute_cost_ += check.max_cost;
  }

  void Selectors(const std::vector<DeviceSelector>& selectors, const FieldPath& path) {
    if (selectors.size() > kDeviceSelectorsMaxSize) {
      TooMany(path, selectors.size(), kDeviceSelectorsMaxSize);
      return;
    }
    for (size_t i = 0; i < selectors.size(); ++i) {
      FieldPath item = path.Index(i);
      if (!selectors[i].cel) {
        Required(item.Child("cel"));
      } else {
        CelExpression(selectors[i].cel->expression, item.Child("cel").Child("expression"));
      }
    }
  }

  static bool KnownTaintEffect(std::string_view effect, int minor) {
    return effect == "NoSchedule" || effect == "NoExecute" || (effect == "None" && minor >= 35);
  }
  void UnsupportedTaintEffect(const FieldPath& path, std::string_view effect) {
    if (minor_ >= 35) {
      NotSupported(path, Quote(effect), {"NoExecute", "NoSchedule", "None"});
    } else {
      NotSupported(path, Quote(effect), {"NoExecute", "NoSchedule"});
    }
  }

  // upstream validateDeviceTaint (create: the effect is always checked).
  void TaintOf(const DeviceTaint& taint, const FieldPath& path) {
    LabelName(taint.key, path.Child("key"));
    if (!taint.value.empty()) LabelValue(taint.value, path.Child("value"));
    TaintEffect(taint, path.Child("effect"));
  }
  void TaintEffect(const DeviceTaint& taint, const FieldPath& path) {
    if (taint.effect.empty()) {
      Required(path);
    } else if (!KnownTaintEffect(taint.effect.text(), minor_)) {
      UnsupportedTaintEffect(path, taint.effect.text());
    }
  }

  // upstream validateDeviceToleration, plus the documented rules as warnings.
  void TolerationOf(const DeviceToleration& toleration, const FieldPath& path) {
    if (!toleration.key.empty()) LabelName(toleration.key, path.Child("key"));
    const std::string& op = toleration.operator_.text();
    if (op == "Exists") {
      if (!toleration.value.empty()) {
        Invalid(path.Child("value"), Quote(toleration.value), "must be empty for operator `Exists`");
      }
    } else if (op == "Equal") {
      LabelValue(toleration.value, path.Child("value"));
      if (toleration.key.empty()) {
        Warn(FieldErrorType::kInvalid, path.Child("operator"), Quote(op),
             "the documentation requires operator `Exists` when `key` is empty; with `Equal` this "
             "toleration matches every taint whose value equals `value`, whatever its key");
      }
    } else if (op.empty()) {
      Required(path.Child("operator"));
    } else {
      NotSupported(path.Child("operator"), Quote(op), {"Equal", "Exists"});
    }
    const std::string& effect = toleration.effect.text();
    if (!effect.empty()) {
      if (!KnownTaintEffect(effect, minor_)) {
        UnsupportedTaintEffect(path.Child("effect"), effect);
      } else if (effect == "None") {
        Warn(FieldErrorType::kNotSupported, path.Child("effect"), Quote(effect),
             "the documentation allows only \"NoSchedule\" and \"NoExecute\" in a toleration (an "
             "empty effect matches all effects)");
      }
    }
  }

  void Tolerations(const std::vector<DeviceToleration>& tolerations, const FieldPath& path) {
    for (size_t i = 0; i < tolerations.size(); ++i) TolerationOf(tolerations[i], path.Index(i));
    if (tolerations.size() > kDeviceTolerationsMaxLength) {
      Warn(FieldErrorType::kTooMany, path, Size(tolerations.size()),
           "must have at most " + Size(kDeviceTolerationsMaxLength) +
               " items (documented limit; the API server does not enforce it)");
    }
  }

  // upstream validateDeviceBindingParameters.
  void BindingParameters(const std::vector<std::string>& conditions, const std::vector<std::string>& failure_conditions,
                         const FieldPath& path) {
    FieldPath cond_path = path.Child("bindingConditions");
    FieldPath fail_path = path.Child("bindingFailureConditions");
    if (conditions.size() > kBindingConditionsMaxSize) {
      TooMany(cond_path, conditions.size(), kBindingConditionsMaxSize);
    } else {
      for (size_t i = 0; i < conditions.size(); ++i) LabelName(conditions[i], cond_path.Index(i));
    }
    if (failure_conditions.size() > kBindingFailureConditionsMaxSize) {
      TooMany(fail_path, failure_conditions.size(), kBindingFailureConditionsMaxSize);
    } else {
      for (size_t i = 0; i < failure_conditions.size(); ++i) {
        LabelName(failure_conditions[i], fail_path.Index(i));
      }
    }
    std::set<std::string_view> seen;
    for (size_t i = 0; i < conditions.size(); ++i) {
      if (!seen.insert(conditions[i]).second) Duplicate(cond_path.Index(i), Quote(conditions[i]));
    }
    std::set<std::string_view> seen_failure;
    for (size_t i = 0; i < failure_conditions.size(); ++i) {
      if (!seen_failure.insert(failure_conditions[i]).second) {
        Duplicate(fail_path.Index(i), Quote(failure_conditions[i]));
      }
      if (seen.count(failure_conditions[i]) > 0) {
        Invalid(fail_path.Index(i), Quote(failure_conditions[i]),
                "bindingFailureConditions must not overlap with bindingConditions");
      }
    }
    if (conditions.empty() && !failure_conditions.empty()) {
      Invalid(cond_path, kNilValue, "bindingConditions are required to use bindingFailureConditions");
    }
    if (failure_conditions.empty() && !conditions.empty()) {
      Invalid(fail_path, kNilValue, "bindingFailureConditions are required to use bindingConditions");
    }
  }

  // upstream validateSkipNodeOperations plus the declarative enum and set checks.
  void SkipNodeOperations(const std::vector<EnumString<NodeOperation>>& ops, const FieldPath& path) {
    std::set<std::string_view> seen;
    std::vector<std::string> texts;
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string& text = ops[i].text();
      texts.push_back(text);
      if (!ops[i].known()) {
        NotSupported(path.Index(i), Quote(text), {"*", "NodePrepareResources", "NodeUnprepareResources"});
      }
      if (!seen.insert(text).second) Duplicate(path.Index(i), Quote(text));
    }
    if (seen.count("NodePrepareResources") > 0 && seen.count("NodeUnprepareResources") == 0 && seen.count("*") == 0) {
      Invalid(path, StringList(texts),
              "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped");
    }
  }

  // metav1validation.ValidateConditions.
  void Conditions(const std::vector<Condition>& conditions, const FieldPath& path) {
    constexpr size_t kMaxReasonLength = 1024;
    constexpr size_t kMaxMessageLength = 32 * 1024;
    std::set<std::string_view> types;
    for (size_t i = 0; i < conditions.size(); ++i) {
      const Condition& c = conditions[i];
      FieldPath item = path.Index(i);
      LabelName(c.type, item.Child("type"));
      if (!c.status.known()) NotSupported(item.Child("status"), Quote(c.status.text()), {"False", "True", "Unknown"});
      if (c.observed_generation < 0) {
        Invalid(item.Child("observedGeneration"), Int(c.observed_generation), "must be greater than or equal to zero");
      }
      if (c.last_transition_time.empty()) Required(item.Child("lastTransitionTime"), "must be set");
      if (c.reason.empty()) {
        Required(item.Child("reason"), "must be set");
      } else {
        if (!IsConditionReason(c.reason)) {
          Invalid(item.Child("reason"), Quote(c.reason),
                  "a condition reason begins with an alphabetic character, continues with "
                  "alphanumeric characters, '_', ',' or ':', and ends with an alphanumeric character "
                  "or '_' (e.g. 'MyReason' or 'ReasonA,ReasonB'; regex used for validation is "
                  "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')");
        }
        if (c.reason.size() > kMaxReasonLength) TooLong(item.Child("reason"), kMaxReasonLength);
      }
      if (c.message.size() > kMaxMessageLength) TooLong(item.Child("message"), kMaxMessageLength);
      if (!types.insert(c.type).second) Duplicate(item.Child("type"), Quote(c.type));
    }
  }

  static bool IsConditionReason(std::string_view s) {
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    auto tail = [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_'; };
    if (s.empty() || !alpha(s.front()) || !tail(s.back())) return false;
    for (char c : s) {
      if (!tail(c) && c != ',' && c != ':') return false;
    }
    return true;
  }

  // corevalidation.ValidateNodeSelector (allowInvalidLabelValueInRequiredNodeAffinity = false).
  void NodeSelectorOf(const NodeSelector& selector, const FieldPath& path) {
    FieldPath terms = path.Child("nodeSelectorTerms");
    if (selector.node_selector_terms.empty()) {
      Required(terms, "must have at least one node selector term");
      return;
    }
    for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
      const NodeSelectorTerm& term = selector.node_selector_terms[i];
      FieldPath term_path = terms.Index(i);
      for (size_t j = 0; j < term.match_expressions.size(); ++j) {
        NodeSelectorRequirementOf(term.match_expressions[j], term_path.Child("matchExpressions").Index(j));
      }
      for (size_t j = 0; j < term.match_fields.size(); ++j) {
        NodeFieldSelectorRequirement(term.match_fields[j], term_path.Child("matchFields").Index(j));
      }
    }
  }

  void NodeSelectorRequirementOf(const NodeSelectorRequirement& req, const FieldPath& path) {
    const std::string& op = req.operator_.text();
    if (op == "In" || op == "NotIn") {
      if (req.values.empty()) Required(path.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!req.values.empty()) {
        Forbidden(path.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
    } else if (op == "Gt" || op == "Lt") {
      if (req.values.size() != 1) {
        Required(path.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'");
      }
    } else {
      Invalid(path.Child("operator"), Quote(op), "not a valid selector operator");
    }
    LabelName(req.key, path.Child("key"));
    for (size_t i = 0; i < req.values.size(); ++i) LabelValue(req.values[i], path.Child("values").Index(i));
  }

  void NodeFieldSelectorRequirement(const NodeSelectorRequirement& req, const FieldPath& path) {
    const std::string& op = req.operator_.text();
    if (op == "In" || op == "NotIn") {
      if (req.values.size() != 1) {
        Required(path.Child("values"),
                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
      }
    } else {
      Invalid(path.Child("operator"), Quote(op), "not a valid selector operator");
    }
    if (req.key != "metadata.name") {
      Invalid(path.Child("key"), Quote(req.key), "not a valid field selector key");
    } else {
      for (size_t i = 0; i < req.values.size(); ++i) NodeName(req.values[i], path.Child("values").Index(i));
    }
  }

  // --- DeviceClass

  void DeviceClassOf(const DeviceClass& device_class) {
    ObjectMetaOf(device_class.metadata, /*namespaced=*/false, FieldPath("metadata"));
    FieldPath spec("spec");
    const DeviceClassSpec& s = device_class.spec;
    Selectors(s.selectors, spec.Child("selectors"));
    FieldPath config = spec.Child("config");
    if (s.config.size() > kDeviceConfigMaxSize) {
      TooMany(config, s.config.size(), kDeviceConfigMaxSize);
    } else {
      for (size_t i = 0; i < s.config.size(); ++i) Configuration(s.config[i].opaque, config.Index(i));
    }
    if (s.extended_resource_name) {
      FieldPath path = spec.Child("extendedResourceName");
      if (!GateOff(Gate::kDRAExtendedResource, path)) {
        NameErrors errs = IsExtendedResourceName(*s.extended_resource_name);
        if (!errs.empty()) {
          Invalid(path, Quote(*s.extended_resource_name), "must be a valid extended resource name: " + errs[0]);
        }
      }
    }
  }

  // --- ResourceSlice

  void ResourceSliceOf(const ResourceSlice& slice) {
    ObjectMetaOf(slice.metadata, /*namespaced=*/false, FieldPath("metadata"));
    const ResourceSliceSpec& spec = slice.spec;
    FieldPath path("spec");
    DriverName(spec.driver, path.Child("driver"));
    FieldPath pool = path.Child("pool");
    PoolName(spec.pool.name, pool.Child("name"));
    if (spec.pool.resource_slice_count <= 0) {
      Invalid(pool.Child("resourceSliceCount"), Int(spec.pool.resource_slice_count), "must be greater than zero");
    }
    if (spec.pool.generation < 0) {
      Invalid(pool.Child("generation"), Int(spec.pool.generation), "must be greater than or equal to zero");
    }

    // Node selection: exactly one of four.
    std::vector<std::string> set_fields;
    if (spec.node_name) {
      if (!spec.node_name->empty()) {
        set_fields.push_back("`nodeName`");
        NodeName(*spec.node_name, path.Child("nodeName"));
      } else {
        Invalid(path.Child("nodeName"), Quote(""), "must be either unset or set to a non-empty string");
      }
    }
    if (spec.node_selector) {
      set_fields.push_back("`nodeSelector`");
      NodeSelectorOf(*spec.node_selector, path.Child("nodeSelector"));
      if (spec.node_selector->node_selector_terms.size() != 1) {
        // Simplifies merging selectors of devices from different slices.
        Invalid(path.Child("nodeSelector").Child("nodeSelectorTerms"),
                Size(spec.node_selector->node_selector_terms.size()) + " terms",
                "must have exactly one node selector term");
      }
    }
    if (spec.all_nodes) {
      if (*spec.all_nodes) {
        set_fields.push_back("`allNodes`");
      } else {
        Invalid(path.Child("allNodes"), Bool(false), "must be either unset or set to true");
      }
    }
    bool per_device = false;
    if (spec.per_device_node_selection &&
        !GateOff(Gate::kDRAPartitionableDevices, path.Child("perDeviceNodeSelection"))) {
      if (*spec.per_device_node_selection) {
        set_fields.push_back("`perDeviceNodeSelection`");
        per_device = true;
      } else {
        Invalid(path.Child("perDeviceNodeSelection"), Bool(false), "must be either unset or set to true");
      }
    }
    if (set_fields.empty()) {
      Required(path,
               "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
               "required");
    } else if (set_fields.size() > 1) {
      std::string joined;
      for (const std::string& f : set_fields) joined += (joined.empty() ? "" : ", ") + f;
      Invalid(path, Quote("{" + joined + "}"),
              "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
              "required, but multiple fields are set");
    }

    bool have_counter_sets =
        !spec.shared_counters.empty() && !GateOff(Gate::kDRAPartitionableDevices, path.Child("sharedCounters"));
    // 1.34 kept counter sets in the slices of the devices consuming them.
    if (minor_ >= 35 && have_counter_sets && !spec.devices.empty()) {
      Invalid(path, Quote(""), "only one of `sharedCounters` or `devices` is allowed");
    }

    size_t max_devices = kResourceSliceMaxDevices;
    if (HasAdvancedFeatures(spec)) max_devices = kResourceSliceMaxDevicesWithAdvancedFeatures;
    FieldPath devices = path.Child("devices");
    if (spec.devices.size() > max_devices) {
      TooMany(devices, spec.devices.size(), max_devices);
    } else {
      std::set<std::string_view> names;
      for (size_t i = 0; i < spec.devices.size(); ++i) DeviceOf(spec.devices[i], devices.Index(i), per_device);
      for (size_t i = 0; i < spec.devices.size(); ++i) {
        if (!names.insert(spec.devices[i].name).second) Duplicate(devices.Index(i), Quote(spec.devices[i].name));
      }
    }

    if (have_counter_sets) {
      FieldPath sets = path.Child("sharedCounters");
      if (spec.shared_counters.size() > kResourceSliceMaxCounterSets) {
        TooMany(sets, spec.shared_counters.size(), kResourceSliceMaxCounterSets);
      } else {
        std::set<std::string_view> names;
        for (size_t i = 0; i < spec.shared_counters.size(); ++i) CounterSetOf(spec.shared_counters[i], sets.Index(i));
        for (size_t i = 0; i < spec.shared_counters.size(); ++i) {
          if (!names.insert(spec.shared_counters[i].name).second) {
            Duplicate(sets.Index(i), Quote(spec.shared_counters[i].name));
          }
        }
      }
    }

    if (spec.partition_type_attribute &&
        !GateOff(Gate::kDRAPartitionableDevicesType, path.Child("partitionTypeAttribute"))) {
      PartitionTypeAttribute(spec, path);
    }
    if (!spec.skip_node_operations.empty() &&
        !GateOff(Gate::kDRAOptionalNodeOperations, path.Child("skipNodeOperations"))) {
      SkipNodeOperations(spec.skip_node_operations, path.Child("skipNodeOperations"));
    }
  }

  // The 64-device limit applies when a device has taints or consumes counters
  // (1.35+) or has a list-typed attribute (1.36+); fields dropped by a disabled
  // gate do not count.
  bool HasAdvancedFeatures(const ResourceSliceSpec& spec) const {
    if (minor_ < 35) return false;
    for (const Device& device : spec.devices) {
      if (!device.rare->taints.empty() && gates_.enabled(Gate::kDRADeviceTaints)) return true;
      if (!device.rare->consumes_counters.empty() && gates_.enabled(Gate::kDRAPartitionableDevices)) return true;
      if (minor_ >= 36 && gates_.enabled(Gate::kDRAListTypeAttributes)) {
        for (const auto& [key, attribute] : device.attributes) {
          if (attribute.is_list()) return true;
        }
      }
    }
    return false;
  }

  static bool ConsumesCounters(const ResourceSliceSpec& spec) {
    for (const Device& device : spec.devices) {
      if (!device.rare->consumes_counters.empty()) return true;
    }
    return false;
  }

  // upstream validatePartitionTypeAttribute, after the declarative format check.
  void PartitionTypeAttribute(const ResourceSliceSpec& spec, const FieldPath& path) {
    const std::string& name = *spec.partition_type_attribute;
    FieldPath attr_path = path.Child("partitionTypeAttribute");
    size_t before = errs_.size();
    FullyQualifiedName(name, attr_path);
    bool malformed = errs_.size() != before;
    if (!ConsumesCounters(spec)) {
      Invalid(attr_path, Quote(name), "may only be set on a slice which declares devices that consume counters");
      return;
    }
    if (malformed) return;  // no device can carry a malformed name
    // An attribute in the driver's own domain may also be declared bare.
    std::string_view bare;
    std::string prefix = spec.driver + "/";
    if (std::string_view(name).starts_with(prefix)) bare = std::string_view(name).substr(prefix.size());
    for (size_t i = 0; i < spec.devices.size(); ++i) {
      const Device& device = spec.devices[i];
      if (device.rare->consumes_counters.empty()) continue;
      FieldPath device_attr = path.Child("devices").Index(i).Child("attributes").Key(name);
      const DeviceAttribute* attribute = device.attributes.find(name);
      if (attribute == nullptr && !bare.empty()) attribute = device.attributes.find(bare);
      if (attribute == nullptr) {
        Required(device_attr,
                 "device consumes counters and `partitionTypeAttribute` names this attribute, so "
                 "it must be set");
      } else if (attribute->string_value() == nullptr) {
        Invalid(device_attr, Quote(DeviceAttributeTypeName(attribute->type())),
                "must be a string value because `partitionTypeAttribute` names this attribute");
      }
    }
  }

  void CounterSetOf(const CounterSet& set, const FieldPath& path) {
    DNSLabel(set.name, path.Child("name"));
    Counters(set.counters, kResourceSliceMaxCountersPerCounterSet, path.Child("counters"));
  }

  void Counters(const CounterMap& counters, size_t max, const FieldPath& path) {
    if (counters.empty()) {
      Required(path);
      return;
    }
    if (counters.size() > max) {
      TooMany(path, counters.size(), max);
      return;
    }
    // Any parsed quantity is a valid counter value.
    for (const auto& [name, counter] : counters) DNSLabel(name.view(), path, /*required=*/false);
  }

  // upstream validateDevice.
  void DeviceOf(const Device& device, const FieldPath& path, bool per_device_node_selection) {
    DNSLabel(device.name, path.Child("name"));
    const DeviceRareFields& rare = *device.rare;

    size_t entries = device.attributes.size() + device.capacity.size();
    if (entries > kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
      Invalid(path, Size(entries),
              "the total number of attributes and capacities must not exceed " +
                  Size(kResourceSliceMaxAttributesAndCapacitiesPerDevice));
    }
    size_t values = 0;
    for (const auto& [key, attribute] : device.attributes) {
      // With DRAListTypeAttributes off the API server drops list values
      // before it counts (tools/difftest --level validation).
      if (attribute.is_list() && !gates_.enabled(Gate::kDRAListTypeAttributes)) continue;
      values += AttributeValueCount(attribute);
    }
    if (values > kResourceSliceMaxAttributeValuesPerDevice) {
      Invalid(
          path, Size(values),
          "the total number of attribute values must not exceed " + Size(kResourceSliceMaxAttributeValuesPerDevice));
    }

    FieldPath attributes = path.Child("attributes");
    for (const auto& [key, attribute] : device.attributes) {
      QualifiedName(key.view(), attributes);
      Attribute(attribute, attributes.Key(TruncateKey(key.view(), kAttributeKeyMaxLength)));
    }

    bool multiple_allocations = false;
    if (device.allow_multiple_allocations &&
        !GateOff(Gate::kDRAConsumableCapacity, path.Child("allowMultipleAllocations"))) {
      multiple_allocations = *device.allow_multiple_allocations;
    }
    FieldPath capacity = path.Child("capacity");
    for (const auto& [key, cap] : device.capacity) {
      QualifiedName(key.view(), capacity);
      if (!cap.request_policy) continue;
      FieldPath policy_path = capacity.Key(TruncateKey(key.view(), kAttributeKeyMaxLength)).Child("requestPolicy");
      if (GateOff(Gate::kDRAConsumableCapacity, policy_path)) continue;
      if (multiple_allocations) {
        RequestPolicy(cap.value, *cap.request_policy, policy_path);
      } else {
        Forbidden(policy_path, "allowMultipleAllocations must be true");
      }
    }

    if (!rare.taints.empty() && !GateOff(Gate::kDRADeviceTaints, path.Child("taints"))) {
      size_t max = minor_ == 34 ? kDeviceTaintsMaxLength134 : kDeviceTaintsMaxLength;
      FieldPath taints = path.Child("taints");
      if (rare.taints.size() > max) {
        TooMany(taints, rare.taints.size(), max);
        // Upstream's declarative validation still checks every effect.
        for (size_t i = 0; i < rare.taints.size(); ++i) {
          TaintEffect(rare.taints[i], taints.Index(i).Child("effect"));
        }
      } else {
        for (size_t i = 0; i < rare.taints.size(); ++i) TaintOf(rare.taints[i], taints.Index(i));
      }
    }

    if (!rare.consumes_counters.empty() && !GateOff(Gate::kDRAPartitionableDevices, path.Child("consumesCounters"))) {
      FieldPath consumes = path.Child("consumesCounters");
      if (rare.consumes_counters.size() > kResourceSliceMaxDeviceCounterConsumptionsPerDevice) {
        TooMany(consumes, rare.consumes_counters.size(), kResourceSliceMaxDeviceCounterConsumptionsPerDevice);
      } else {
        std::set<std::string_view> sets;
        for (size_t i = 0; i < rare.consumes_counters.size(); ++i) {
          const DeviceCounterConsumption& c = rare.consumes_counters[i];
          FieldPath item = consumes.Index(i);
          DNSLabel(c.counter_set, item.Child("counterSet"));
          Counters(c.counters, kResourceSliceMaxCountersPerDeviceCounterConsumption, item.Child("counters"));
          if (!c.compatibility_groups.empty()) {
            GateOff(Gate::kDRADeviceCompatibilityGroups, item.Child("compatibilityGroups"));
          }
        }
        for (size_t i = 0; i < rare.consumes_counters.size(); ++i) {
          if (!sets.insert(rare.consumes_counters[i].counter_set).second) {
            Duplicate(consumes.Index(i), Quote(rare.consumes_counters[i].counter_set));
          }
        }
      }
    }

    DeviceNodeSelection(rare, path, per_device_node_selection);

    if (rare.binds_to_node || !rare.binding_conditions.empty() || !rare.binding_failure_conditions.empty()) {
      FieldPath first = rare.binds_to_node                 ? path.Child("bindsToNode")
                        : !rare.binding_conditions.empty() ? path.Child("bindingConditions")
                                                           : path.Child("bindingFailureConditions");
      if (!BindingGatesOff(first)) {
        BindingParameters(rare.binding_conditions, rare.binding_failure_conditions, path);
      }
    }

    if (!rare.node_allocatable_resources.empty() &&
        !GateOff(Gate::kDRANodeAllocatableResources, path.Child("nodeAllocatableResources"))) {
      NodeAllocatableResources(rare.node_allocatable_resources, device.capacity,
                               path.Child("nodeAllocatableResources"));
    }
  }

  static size_t AttributeValueCount(const DeviceAttribute& attribute) {
    switch (attribute.type()) {
      case DeviceAttribute::Type::kInts: return attribute.ints()->size();
      case DeviceAttribute::Type::kBools: return attribute.bools()->size();
      case DeviceAttribute::Type::kStrings: return attribute.strings()->size();
      case DeviceAttribute::Type::kVersions: return attribute.versions()->size();
      default: return 1;
    }
  }

  void VersionValue(std::string_view value, const FieldPath& path) {
    for (std::string& msg : IsSemver(value)) {
      if (msg == MaxLengthMessage(kDeviceAttributeMaxValueLength)) {
        TooLong(path, kDeviceAttributeMaxValueLength);
      } else {
        Invalid(path, Quote(value), std::move(msg));
      }
    }
  }

  // An attribute with no value. 1.37's API server reports the declarative
  // union rule (seen from a real v1.37.2 kube-apiserver); older releases the
  // handwritten text.
  // `dropped`: the list field the API server dropped first (named after the
  // upstream text, which does not say why the attribute is empty).
  void NoAttributeValue(const FieldPath& path, std::string_view dropped = {}) {
    std::string detail = minor_ >= 37 ? "must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, "
                                        "`strings`, `versions`"
                                      : "exactly one value must be specified";
    if (!dropped.empty()) {
      detail += " (`" + std::string(dropped) + "` was dropped: it requires feature gate DRAListTypeAttributes)";
    }
    Invalid(path, Quote(""), detail);
  }

  // upstream validateDeviceAttribute.
  void Attribute(const DeviceAttribute& attribute, const FieldPath& path) {
    DeviceAttribute::Type type = attribute.type();
    if (type == DeviceAttribute::Type::kNone) {
      NoAttributeValue(path);
      return;
    }
    if (attribute.is_list()) {
      FieldPath list = path.Child(DeviceAttributeTypeName(type));
      if (GateOff(Gate::kDRAListTypeAttributes, list)) {
        // The API server drops the list before validating: the attribute is
        // then left without a value, which it rejects.
        if (minor_ >= 36) NoAttributeValue(path, DeviceAttributeTypeName(type));
        return;
      }
      if (AttributeValueCount(attribute) == 0) {
        Invalid(list, "[]", "must not be empty if specified");
        // 1.37's declarative union check counts an empty list as no value.
        if (minor_ >= 37) NoAttributeValue(path);
        return;
      }
    }
    switch (type) {
      case DeviceAttribute::Type::kString:
        if (attribute.string_value()->size() > kDeviceAttributeMaxValueLength) {
          TooLong(path.Child("string"), kDeviceAttributeMaxValueLength);
        }
        break;
      case DeviceAttribute::Type::kVersion: VersionValue(*attribute.version_value(), path.Child("version")); break;
      case DeviceAttribute::Type::kStrings: {
        const std::vector<InternedString>& values = *attribute.strings();
        for (size_t i = 0; i < values.size(); ++i) {
          if (values[i].size() > kDeviceAttributeMaxValueLength) {
            TooLong(path.Child("strings").Index(i), kDeviceAttributeMaxValueLength);
          }
        }
        break;
      }
      case DeviceAttribute::Type::kVersions: {
        const std::vector<InternedString>& values = *attribute.versions();
        for (size_t i = 0; i < values.size(); ++i) VersionValue(values[i].view(), path.Child("versions").Index(i));
        break;
      }
      default: break;
    }
  }

  // upstream validateRequestPolicy / validateValidRequestValues.
  void RequestPolicy(const Quantity& capacity, const CapacityRequestPolicy& policy, const FieldPath& path) {
    if (!policy.valid_values.empty() && policy.valid_range) {
      Forbidden(path,
                "exactly one policy can be specified, cannot specify \"validValues\" and "
                "\"validRange\" at the same time");
      return;
    }
    if (!policy.valid_values.empty()) {
      if (!policy.default_) {
        Required(path.Child("default"), "required when validValues is defined");
      } else {
        ValidValues(*policy.default_, capacity, policy.valid_values, path.Child("validValues"));
      }
    } else if (policy.valid_range) {
      if (!policy.default_) {
        Required(path.Child("default"), "required when validRange is defined");
      } else {
        ValidRange(*policy.default_, capacity, *policy.valid_range, path.Child("validRange"));
      }
    }
  }

  // upstream validateRequestPolicyValidValues.
  void ValidValues(const Quantity& default_value, const Quantity& capacity, const std::vector<Quantity>& values,
                   const FieldPath& path) {
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      if (values[i].Compare(values[i + 1]) > 0) {
        Invalid(path.Index(i + 1), Quote(values[i + 1].String()), "values must be sorted in ascending order");
      }
    }
    bool found_default = false;
    if (values.size() > kCapacityRequestPolicyDiscreteMaxOptions) {
      TooMany(path, values.size(), kCapacityRequestPolicyDiscreteMaxOptions);
    } else {
      // Duplicates compare exact values with DRAFractionalCapacityRange and
      // values rounded up to integers without it (upstream quantityKeyAsDec /
      // quantityKeyInt).
      bool exact = gates_.enabled(Gate::kDRAFractionalCapacityRange);
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i].Compare(capacity) > 0) {
          Invalid(path.Index(i), Quote(values[i].String()),
                  "option is larger than capacity value: " + capacity.String());
        }
        if (values[i].Compare(default_value) == 0) found_default = true;
      }
      for (size_t i = 0; i < values.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          bool same = exact ? values[i].Compare(values[j]) == 0 : values[i].Value() == values[j].Value();
          if (same) {
            Duplicate(path.Index(i), Quote(exact ? values[i].String() : Int(values[i].Value())));
            break;
          }
        }
      }
    }
    if (!found_default) {
      Invalid(path, Quote(default_value.String()), "default value is not valid according to the requestPolicy");
    }
  }

  // upstream validateRequestPolicyRange.
  void ValidRange(const Quantity& default_value, const Quantity& capacity, const CapacityRequestPolicyRange& range,
                  const FieldPath& path) {
    if (!range.min) {
      Required(path.Child("min"), "required when validRange is defined");
      return;
    }
    const Quantity& min = *range.min;
    if (min.Compare(capacity) > 0) {
      Invalid(path.Child("min"), Quote(min.String()), "min is larger than capacity value: " + capacity.String());
    }
    if (default_value.Compare(min) < 0) {
      Invalid(path.Child("default"), Quote(default_value.String()), "default is less than min: " + min.String());
    }
    if (range.max) {
      const Quantity& max = *range.max;
      if (min.Compare(max) > 0) {
        Invalid(path.Child("max"), Quote(min.String()), "min is larger than max: " + max.String());
      }
      if (max.Compare(capacity) > 0) {
        Invalid(path.Child("max"), Quote(max.String()), "max is larger than capacity value: " + capacity.String());
      }
      if (default_value.Compare(max) > 0) {
        Invalid(path.Child("default"), Quote(default_value.String()), "default is more than max: " + max.String());
      }
    }

    struct Bound {
      const Quantity* q;
      std::string_view name;
    };
    const std::array<Bound, 4> bounds = {{{&default_value, "default"},
                                          {&min, "min"},
                                          {range.max ? &*range.max : nullptr, "max"},
                                          {range.step ? &*range.step : nullptr, "step"}}};

    // With DRAFractionalCapacityRange and any fractional value (the default
    // included), the arithmetic uses milli-units, which every value must
    // represent exactly.
    bool use_milli = false;
    if (gates_.enabled(Gate::kDRAFractionalCapacityRange)) {
      for (const Bound& b : bounds) use_milli = use_milli || (b.q != nullptr && IsFractional(*b.q));
      if (use_milli) {
        bool unsafe = false;
        for (const Bound& b : bounds) {
          if (b.q == nullptr) continue;
          if (b.q->Compare(Quantity::FromMilli(b.q->MilliValue(), b.q->format())) != 0) {
            Invalid(path.Child(b.name), Quote(b.q->String()), "value cannot be represented as a milli value");
            unsafe = true;
          }
        }
        if (unsafe) return;
      }
    }

    if (!range.step) return;
    const Quantity& step = *range.step;
    if (step.Sign() <= 0) {
      Invalid(path.Child("step"), Quote(step.String()), "must be greater than zero");
      return;
    }
    StatusOr<Quantity> added = min.Add(step);
    if (!added.ok() || added->Compare(capacity) > 0) {
      std::string sum = added.ok() ? added->String() : "(" + min.String() + " + " + step.String() + ")";
      Invalid(path.Child("step"), Quote(step.String()),
              "one step " + sum + " is larger than capacity value: " + capacity.String());
    }
    // The integer path reads values with Value(), usable only in [0, MaxInt64].
    if (!use_milli) {
      bool unsafe = false;
      for (const Bound& b : bounds) {
        if (b.q == nullptr) continue;
        if (b.q->Sign() < 0) {
          Invalid(path.Child(b.name), Quote(b.q->String()), "must be greater than or equal to 0");
          unsafe = true;
        } else if (b.q->Compare(MaxInt64Quantity()) > 0) {
          Invalid(path.Child(b.name), Quote(b.q->String()), "must not be larger than 9223372036854775807");
          unsafe = true;
        }
      }
      if (unsafe) return;
    }
    RangeStep(default_value, min, step, use_milli, path.Child("step"));
    if (range.max) RangeStep(*range.max, min, step, use_milli, path.Child("step"));
  }

  // upstream validateRequestPolicyRangeStep: (value - min) % step == 0.
  void RangeStep(const Quantity& value, const Quantity& min, const Quantity& step, bool use_milli,
                 const FieldPath& path) {
    int64_t step_v = use_milli ? step.MilliValue() : step.Value();
    int64_t min_v = use_milli ? min.MilliValue() : min.Value();
    int64_t val = use_milli ? value.MilliValue() : value.Value();
    if (step_v <= 0) return;  // guarded by the caller; keeps % well defined
    if (WrappingSub(val, min_v) % step_v != 0) {
      Invalid(path, Quote(value.String()),
              "value is not a multiple of a given step (" + step.String() + ") from (" + min.String() + ")");
    }
  }

  void DeviceNodeSelection(const DeviceRareFields& rare, const FieldPath& path, bool per_device_node_selection) {
    bool any = rare.node_name || rare.node_selector || rare.all_nodes;
    if (!any) {
      if (per_device_node_selection) {
        Required(path,
                 "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                 "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
      }
      return;
    }
    FieldPath first = rare.node_name       ? path.Child("nodeName")
                      : rare.node_selector ? path.Child("nodeSelector")
                                           : path.Child("allNodes");
    if (GateOff(Gate::kDRAPartitionableDevices, first)) return;
    if (!per_device_node_selection) {
      Invalid(path, kNilValue,
              "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
              "`perDeviceNodeSelection` is set "
              "to true in the ResourceSlice spec");
      return;
    }
    std::vector<std::string> set_fields;
    if (rare.node_name) {
      if (!rare.node_name->empty()) {
        set_fields.push_back("`nodeName`");
        NodeName(*rare.node_name, path.Child("nodeName"));
      } else {
        Invalid(path.Child("nodeName"), Quote(""), "must not be empty");
      }
    }
    if (rare.node_selector) {
      set_fields.push_back("`nodeSelector`");
      NodeSelectorOf(*rare.node_selector, path.Child("nodeSelector"));
      if (rare.node_selector->node_selector_terms.size() > 1) {
        Warn(FieldErrorType::kInvalid, path.Child("nodeSelector").Child("nodeSelectorTerms"),
             Size(rare.node_selector->node_selector_terms.size()) + " terms",
             "should have exactly one node selector term: the documentation asks for it, and the "
             "allocator fails when it builds the node selector of an allocation from such a device");
      }
    }
    if (rare.all_nodes) {
      if (*rare.all_nodes) {
        set_fields.push_back("`allNodes`");
      } else {
        Invalid(path.Child("allNodes"), Bool(false), "must be either unset or set to true");
      }
    }
    constexpr std::string_view kOneOf =
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` "
        "is set to true in the ResourceSlice spec";
    if (set_fields.empty()) {
      Required(path, std::string(kOneOf));
    } else if (set_fields.size() > 1) {
      std::string joined;
      for (const std::string& f : set_fields) joined += (joined.empty() ? "" : ", ") + f;
      Invalid(path, Quote("{" + joined + "}"), std::string(kOneOf));
    }
  }

  // upstream validateNodeAllocatableResources.
  void NodeAllocatableResources(const FlatMap<NodeAllocatableResource>& resources, const CapacityMap& capacity,
                                const FieldPath& path) {
    for (const auto& [name, resource] : resources) {
      FieldPath key = path.Key(name);
      if (!IsNodeAllocatableResourceName(name)) Invalid(key, Quote(name), "must be a node allocatable resource name");
      if (!resource.mapping && !resource.overhead) Required(key, "at least one of mapping or overhead must be set");
      if (resource.mapping) {
        const NodeAllocatableResourceMapping& m = *resource.mapping;
        FieldPath mp = key.Child("mapping");
        if (m.capacity_key) {
          if (m.capacity_key->empty()) {
            Invalid(mp.Child("capacityKey"), Quote(""), "capacityKey must not be an empty string");
          } else if (!capacity.contains(*m.capacity_key)) {
            NotFound(mp.Child("capacityKey"), Quote(*m.capacity_key));
          }
          if (!m.capacity_multiplier) {
            Required(mp.Child("capacityMultiplier"), "capacityMultiplier is required when capacityKey is set");
          } else if (m.capacity_multiplier->Sign() <= 0) {
            Invalid(mp.Child("capacityMultiplier"), Quote(m.capacity_multiplier->String()), "must be positive");
          }
        }
        if (m.device_multiplier && m.device_multiplier->Sign() <= 0) {
          Invalid(mp.Child("deviceMultiplier"), Quote(m.device_multiplier->String()), "must be positive");
        }
        if (m.capacity_multiplier && !m.capacity_key) {
          Required(mp.Child("capacityKey"), "capacityKey is required when capacityMultiplier is set");
        }
      }
      if (resource.overhead) {
        const NodeAllocatableResourceOverhead& o = *resource.overhead;
        FieldPath op = key.Child("overhead");
        if (!o.per_pod && !o.per_container) {
          Invalid(op, Quote(""), "at least one of perPod or perContainer must be set");
          continue;
        }
        if (o.per_pod && o.per_pod->Sign() < 0)
          Invalid(op.Child("perPod"), Quote(o.per_pod->String()), "must be non-negative");
        if (o.per_container && o.per_container->Sign() < 0) {
          Invalid(op.Child("perContainer"), Quote(o.per_container->String()), "must be non-negative");
        }
      }
    }
  }

  // --- ResourceClaim spec

  void DeviceClaimOf(const DeviceClaim& claim, const FieldPath& path) {
    RequestNames names(claim);
    constraint_attributes_.clear();
    derived_attribute_cost_ = 0;
    for (const DeviceConstraint& c : claim.constraints) {
      const std::optional<std::string>& attr = c.match_attribute ? c.match_attribute : c.distinct_attribute;
      if (!attr) continue;
      if (c.requests.empty()) {
        constraint_attributes_[""].insert(*attr);
      } else {
        for (const std::string& r : c.requests) constraint_attributes_[r].insert(*attr);
      }
    }

    FieldPath requests = path.Child("requests");
    if (claim.requests.size() > kDeviceRequestsMaxSize) {
      TooMany(requests, claim.requests.size(), kDeviceRequestsMaxSize);
    } else {
      for (size_t i = 0; i < claim.requests.size(); ++i) Request(claim.requests[i], requests.Index(i));
      std::set<std::string_view> seen;
      for (size_t i = 0; i < claim.requests.size(); ++i) {
        if (!seen.insert(claim.requests[i].name).second) Duplicate(requests.Index(i), Quote(claim.requests[i].name));
      }
    }

    FieldPath constraints = path.Child("constraints");
    if (claim.constraints.size() > kDeviceConstraintsMaxSize) {
      TooMany(constraints, claim.constraints.size(), kDeviceConstraintsMaxSize);
    } else {
      for (size_t i = 0; i < claim.constraints.size(); ++i)
        Constraint(claim.constraints[i], constraints.Index(i), names);
    }

    FieldPath config = path.Child("config");
    if (claim.config.size() > kDeviceConfigMaxSize) {
      TooMany(config, claim.config.size(), kDeviceConfigMaxSize);
    } else {
      for (size_t i = 0; i < claim.config.size(); ++i) {
        RequestReferences(claim.config[i].requests, config.Index(i).Child("requests"), names);
        Configuration(claim.config[i].opaque, config.Index(i));
      }
    }
    if (derived_attribute_cost_ > kDeviceClaimDerivedAttributeCELMaxCost) {
      Add(FieldErrorType::kForbidden, path, "",
          "too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit");
    }
  }

  // upstream validateRequestNameRef.
  void RequestReference(std::string_view reference, const FieldPath& path, const RequestNames& names) {
    constexpr std::string_view kMessage =
        "must be the name of a request in the claim or the name of a request and a subrequest "
        "separated by '/'";
    std::vector<std::string_view> segments = Split(reference, '/');
    if (segments.size() > 2) {
      Invalid(path, Quote(reference), std::string(kMessage));
      return;
    }
    for (std::string_view segment : segments) DNSLabel(segment, path, /*required=*/false);
    if (!names.Has(reference)) Invalid(path, Quote(reference), std::string(kMessage));
  }

  void RequestReferences(const std::vector<std::string>& references, const FieldPath& path, const RequestNames& names) {
    if (references.size() > kDeviceRequestsMaxSize) {
      TooMany(path, references.size(), kDeviceRequestsMaxSize);
      return;
    }
    std::set<std::string_view> seen;
    for (size_t i = 0; i < references.size(); ++i) RequestReference(references[i], path.Index(i), names);
    for (size_t i = 0; i < references.size(); ++i) {
      if (!seen.insert(references[i]).second) Duplicate(path.Index(i), Quote(references[i]));
    }
  }

  void Request(const DeviceRequest& request, const FieldPath& path) {
    DNSLabel(request.name, path.Child("name"));
    bool has_first_available = !request.first_available.empty();
    bool has_exactly = request.exactly.has_value();
    bool first_available_dropped =
        has_first_available && GateOff(Gate::kDRAPrioritizedList, path.Child("firstAvailable"));
    int kinds = (has_first_available ? 1 : 0) + (has_exactly ? 1 : 0);
    if (kinds == 0) {
      Required(path, "exactly one of `exactly` or `firstAvailable` is required");
    } else if (kinds > 1) {
      Invalid(path, kNilValue, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set");
    } else if (has_first_available) {
      if (first_available_dropped) return;
      FieldPath subs = path.Child("firstAvailable");
      if (request.first_available.size() > kFirstAvailableDeviceRequestMaxSize) {
        TooMany(subs, request.first_available.size(), kFirstAvailableDeviceRequestMaxSize);
        return;
      }
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        SubRequest(request.first_available[i], subs.Index(i), request.name);
      }
      std::set<std::string_view> seen;
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        if (!seen.insert(request.first_available[i].name).second) {
          Duplicate(subs.Index(i), Quote(request.first_available[i].name));
        }
      }
    } else {
      ExactRequest(*request.exactly, path.Child("exactly"), request.name);
    }
  }

  // The fields ExactDeviceRequest and DeviceSubRequest share.
  template <typename R>
  void RequestBody(const R& request, const FieldPath& path, const std::string& reference) {
    DNSSubdomain(request.device_class_name, path.Child("deviceClassName"));
    Selectors(request.selectors, path.Child("selectors"));
    if (!request.derived_attributes.empty() && !GateOff(Gate::kDRADerivedAttributes, path.Child("derivedAttributes"))) {
      DerivedAttributes(request.derived_attributes, path.Child("derivedAttributes"), reference);
    }
    AllocationModeOf(request.allocation_mode, request.count, path.Child("allocationMode"), path.Child("count"));
    if (!request.tolerations.empty() && !GateOff(Gate::kDRADeviceTaints, path.Child("tolerations"))) {
      Tolerations(request.tolerations, path.Child("tolerations"));
    }
    // Upstream does not check the keys of capacity.requests (1.37.2).
    if (request.capacity) GateOff(Gate::kDRAConsumableCapacity, path.Child("capacity"));
  }

  void ExactRequest(const ExactDeviceRequest& request, const FieldPath& path, const std::string& name) {
    RequestBody(request, path, name);
    if (request.admin_access) GateOff(Gate::kDRAAdminAccess, path.Child("adminAccess"));
  }

  void SubRequest(const DeviceSubRequest& request, const FieldPath& path, const std::string& parent) {
    DNSLabel(request.name, path.Child("name"));
    RequestBody(request, path, parent + "/" + request.name);
  }

  // upstream validateDeviceAllocationMode.
  void AllocationModeOf(const EnumString<AllocationMode>& mode, int64_t count, const FieldPath& mode_path,
                        const FieldPath& count_path) {
    if (mode == AllocationMode::kAll) {
      if (count != 0) Invalid(count_path, Int(count), "must not be specified when allocationMode is 'All'");
    } else if (mode == AllocationMode::kExactCount) {
      if (count <= 0) Invalid(count_path, Int(count), "must be greater than zero");
    } else {
      NotSupported(mode_path, Quote(mode.text()), {"All", "ExactCount"});
    }
  }

  // upstream validateDeviceDerivedAttributes; `reference` is "req" or "req/sub".
  void DerivedAttributes(const std::vector<DerivedAttribute>& attributes, const FieldPath& path,
                         const std::string& reference) {
    std::set<std::string_view> seen;
    for (size_t i = 0; i < attributes.size(); ++i) {
      const DerivedAttribute& attr = attributes[i];
      FieldPath item = path.Index(i);
      if (attr.name.empty()) {
        Required(item.Child("name"));
      } else if (!UsedByConstraint(attr.name, reference)) {
        Invalid(item.Child("name"), Quote(attr.name),
                "must be referenced by at least one matchAttribute or distinctAttribute constraint "
                "targeting this request");
      }
      if (attr.expression.empty()) {
        Required(item.Child("expression"));
      } else {
        CelExpression(attr.expression, item.Child("expression"), CelExpressionKind::kDerivedAttribute);
      }
    }
    for (size_t i = 0; i < attributes.size(); ++i) {
      if (!seen.insert(attributes[i].name).second) Duplicate(path.Index(i), Quote(attributes[i].name));
    }
  }

  bool UsedByConstraint(const std::string& attr, const std::string& reference) const {
    auto has = [&](const std::string& key) {
      auto it = constraint_attributes_.find(key);
      return it != constraint_attributes_.end() && it->second.count(attr) > 0;
    };
    if (has("") || has(reference)) return true;
    size_t slash = reference.find('/');
    return slash != std::string::npos && has(reference.substr(0, slash));
  }

  // upstream validateDeviceConstraint.
  void Constraint(const DeviceConstraint& constraint, const FieldPath& path, const RequestNames& names) {
    RequestReferences(constraint.requests, path.Child("requests"), names);
    if (constraint.match_attribute) {
      DeclarativeFullyQualifiedName(*constraint.match_attribute, path.Child("matchAttribute"));
      if (constraint.distinct_attribute) {
        Warn(FieldErrorType::kInvalid, path, kNilValue,
             "both `matchAttribute` and `distinctAttribute` are set; the API server accepts this "
             "but "
             "validates only `matchAttribute`, and the two constraints contradict each other for "
             "equal values");
      }
    } else if (constraint.distinct_attribute &&
               !GateOff(Gate::kDRAConsumableCapacity, path.Child("distinctAttribute"))) {
      DeclarativeFullyQualifiedName(*constraint.distinct_attribute, path.Child("distinctAttribute"));
    } else if (gates_.enabled(Gate::kDRAConsumableCapacity)) {
      // Upstream's text, misleading as it is (src/api/README.md §5.3).
      Required(path,
               "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but "
               "multiple fields are set");
    } else {
      Required(path.Child("matchAttribute"));
    }
  }

  // --- ResourceClaim status

  void ClaimStatus(const ResourceClaimStatus& status, const RequestNames& names, const FieldPath& path) {
    FieldPath reserved = path.Child("reservedFor");
    if (status.reserved_for.size() > kResourceClaimReservedForMaxSize) {
      TooMany(reserved, status.reserved_for.size(), kResourceClaimReservedForMaxSize);
    } else {
      std::set<std::string_view> uids;
      for (size_t i = 0; i < status.reserved_for.size(); ++i) {
        const ResourceClaimConsumerReference& ref = status.reserved_for[i];
        FieldPath item = reserved.Index(i);
        if (ref.resource.empty()) Required(item.Child("resource"));
        if (ref.name.empty()) Required(item.Child("name"));
        if (ref.uid.empty()) Required(item.Child("uid"));
      }
      for (size_t i = 0; i < status.reserved_for.size(); ++i) {
        if (!uids.insert(status.reserved_for[i].uid).second) {
          Duplicate(reserved.Index(i), Quote(status.reserved_for[i].uid));
        }
      }
    }

    std::set<std::string> allocated;
    if (status.allocation) {
      for (const DeviceRequestAllocationResult& r : status.allocation->devices.results) {
        allocated.insert(SharedDeviceId(r.driver, r.pool, r.device, r.share_id));
      }
    }
    if (!status.devices.empty() && !GateOff(Gate::kDRAResourceClaimDeviceStatus, path.Child("devices"))) {
      FieldPath devices = path.Child("devices");
      std::set<std::string> seen;
      for (size_t i = 0; i < status.devices.size(); ++i) DeviceStatus(status.devices[i], devices.Index(i), allocated);
      for (size_t i = 0; i < status.devices.size(); ++i) {
        const AllocatedDeviceStatus& d = status.devices[i];
        std::string id = SharedDeviceId(d.driver, d.pool, d.device, d.share_id);
        if (!seen.insert(id).second) Duplicate(devices.Index(i), Quote(id));
      }
    }

    if (!status.reserved_for.empty() && !status.allocation) {
      Forbidden(reserved, "may not be specified when `allocated` is not set");
    }
    if (status.allocation) AllocationResultOf(*status.allocation, path.Child("allocation"), names);
  }

  // upstream validateAllocationResult (for a new allocation).
  void AllocationResultOf(const AllocationResult& allocation, const FieldPath& path, const RequestNames& names) {
    FieldPath devices = path.Child("devices");
    FieldPath results = devices.Child("results");
    if (allocation.devices.results.size() > kAllocationResultsMaxSize) {
      TooMany(results, allocation.devices.results.size(), kAllocationResultsMaxSize);
    } else {
      for (size_t i = 0; i < allocation.devices.results.size(); ++i) {
        RequestAllocationResult(allocation.devices.results[i], results.Index(i), names);
      }
    }
    FieldPath config = devices.Child("config");
    const size_t max_config = 2 * kDeviceConfigMaxSize;  // class + claim
    if (allocation.devices.config.size() > max_config) {
      TooMany(config, allocation.devices.config.size(), max_config);
    } else {
      for (size_t i = 0; i < allocation.devices.config.size(); ++i) {
        const DeviceAllocationConfiguration& c = allocation.devices.config[i];
        FieldPath item = config.Index(i);
        if (c.source.empty()) {
          Required(item.Child("source"));
        } else if (!c.source.known()) {
          NotSupported(item.Child("source"), Quote(c.source.text()), {"FromClaim", "FromClass"});
        }
        RequestReferences(c.requests, item.Child("requests"), names);
        Configuration(c.opaque, item);
      }
    }
    if (allocation.node_selector) NodeSelectorOf(*allocation.node_selector, path.Child("nodeSelector"));
    if (!allocation.allocation_timestamp.empty()) BindingGatesOff(path.Child("allocationTimestamp"));
  }

  void RequestAllocationResult(const DeviceRequestAllocationResult& result, const FieldPath& path,
                               const RequestNames& names) {
    RequestReference(result.request, path.Child("request"), names);
    DriverName(result.driver, path.Child("driver"));
    PoolName(result.pool, path.Child("pool"));
    DNSLabel(result.device, path.Child("device"));
    if (!result.binding_conditions.empty() || !result.binding_failure_conditions.empty()) {
      FieldPath first =
          !result.binding_conditions.empty() ? path.Child("bindingConditions") : path.Child("bindingFailureConditions");
      if (!BindingGatesOff(first)) {
        BindingParameters(result.binding_conditions, result.binding_failure_conditions, path);
      }
    }
    if (result.admin_access) GateOff(Gate::kDRAAdminAccess, path.Child("adminAccess"));
    if (!result.tolerations.empty() && !GateOff(Gate::kDRADeviceTaints, path.Child("tolerations"))) {
      for (size_t i = 0; i < result.tolerations.size(); ++i) {
        TolerationOf(result.tolerations[i], path.Child("tolerations").Index(i));
      }
    }
    if (result.share_id && !GateOff(Gate::kDRAConsumableCapacity, path.Child("shareID"))) {
      UUID(*result.share_id, path.Child("shareID"));
    }
    if (!result.consumed_capacity.empty() && !GateOff(Gate::kDRAConsumableCapacity, path.Child("consumedCapacity"))) {
      for (const auto& [key, amount] : result.consumed_capacity) QualifiedName(key, path.Child("consumedCapacity"));
    }
    if (!result.skip_node_operations.empty() &&
        !GateOff(Gate::kDRAOptionalNodeOperations, path.Child("skipNodeOperations"))) {
      SkipNodeOperations(result.skip_node_operations, path.Child("skipNodeOperations"));
    }
  }

  // upstream validateDeviceStatus.
  void DeviceStatus(const AllocatedDeviceStatus& device, const FieldPath& path,
                    const std::set<std::string>& allocated) {
    DriverName(device.driver, path.Child("driver"));
    PoolName(device.pool, path.Child("pool"));
    DNSLabel(device.device, path.Child("device"));
    if (device.share_id && !GateOff(Gate::kDRAConsumableCapacity, path.Child("shareID"))) {
      UUID(*device.share_id, path.Child("shareID"));
    }
    std::string id = SharedDeviceId(device.driver, device.pool, device.device, device.share_id);
    if (allocated.count(id) == 0) Invalid(path, Quote(id), "must be an allocated device in the claim");
    if (device.conditions.size() > kAllocatedDeviceStatusMaxConditions) {
      TooMany(path.Child("conditions"), device.conditions.size(), kAllocatedDeviceStatusMaxConditions);
    }
    Conditions(device.conditions, path.Child("conditions"));
    if (!device.data.empty()) RawJsonObject(device.data, path.Child("data"), kAllocatedDeviceStatusDataMaxLength);
    if (device.network_data) {
      const NetworkDeviceData& net = *device.network_data;
      FieldPath np = path.Child("networkData");
      if (net.interface_name.size() > kNetworkDeviceDataInterfaceNameMaxLength) {
        TooLong(np.Child("interfaceName"), kNetworkDeviceDataInterfaceNameMaxLength);
      }
      if (net.hardware_address.size() > kNetworkDeviceDataHardwareAddressMaxLength) {
        TooLong(np.Child("hardwareAddress"), kNetworkDeviceDataHardwareAddressMaxLength);
      }
      FieldPath ips = np.Child("ips");
      if (net.ips.size() > kNetworkDeviceDataMaxIPs) {
        TooMany(ips, net.ips.size(), kNetworkDeviceDataMaxIPs);
      } else {
        std::set<std::string_view> seen;
        for (size_t i = 0; i < net.ips.size(); ++i) {
          std::optional<std::string> canonical = CanonicalInterfaceAddress(net.ips[i]);
          if (!canonical) {
            Invalid(ips.Index(i), Quote(net.ips[i]),
                    "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)");
          } else if (*canonical != net.ips[i]) {
            Invalid(ips.Index(i), Quote(net.ips[i]), "must be in canonical form (" + Quote(*canonical) + ")");
          }
        }
        for (size_t i = 0; i < net.ips.size(); ++i) {
          if (!seen.insert(net.ips[i]).second) Duplicate(ips.Index(i), Quote(net.ips[i]));
        }
      }
    }
  }

  void ResourceClaimOf(const ResourceClaim& claim) {
    ObjectMetaOf(claim.metadata, /*namespaced=*/true, FieldPath("metadata"));
    DeviceClaimOf(claim.spec.devices, FieldPath("spec").Child("devices"));
    ClaimStatus(claim.status, RequestNames(claim.spec.devices), FieldPath("status"));
  }

  // --- ResourceClaimTemplate

  // corevalidation.ValidateTemplateObjectMeta: only labels and annotations.
  void TemplateObjectMeta(const ObjectMeta& meta, const FieldPath& path) {
    Annotations(meta.annotations, path.Child("annotations"));
    Labels(meta.labels, path.Child("labels"));
    constexpr std::string_view kDetail = "cannot be set for a template";
    auto forbid = [&](bool set, std::string_view field) {
      if (set) Forbidden(path.Child(field), std::string(kDetail));
    };
    forbid(!meta.name.empty(), "name");
    forbid(!meta.generate_name.empty(), "generateName");
    forbid(!meta.namespace_.empty(), "namespace");
    forbid(!meta.uid.empty(), "uid");
    forbid(!meta.resource_version.empty(), "resourceVersion");
    forbid(meta.generation != 0, "generation");
    forbid(!meta.creation_timestamp.empty(), "creationTimestamp");
    forbid(!meta.deletion_timestamp.empty(), "deletionTimestamp");
    forbid(!meta.owner_references.empty(), "ownerReferences");
    forbid(!meta.finalizers.empty(), "finalizers");
    for (const auto& [field, value] : meta.extra) forbid(true, field);
  }

  void ResourceClaimTemplateOf(const ResourceClaimTemplate& claim_template) {
    ObjectMetaOf(claim_template.metadata, /*namespaced=*/true, FieldPath("metadata"));
    FieldPath spec("spec");
    TemplateObjectMeta(claim_template.spec.metadata, spec.Child("metadata"));
    DeviceClaimOf(claim_template.spec.spec.devices, spec.Child("spec").Child("devices"));
  }

  // --- DeviceTaintRule

  void DeviceTaintRuleOf(const DeviceTaintRule& rule) {
    // 1.34 had no gate of its own: taint rules came with DRADeviceTaints.
    Gate gate = gates_.maturity(Gate::kDRADeviceTaintRules) == Maturity::kAbsent ? Gate::kDRADeviceTaints
                                                                                 : Gate::kDRADeviceTaintRules;
    if (!gates_.enabled(gate)) {
      Forbidden(FieldPath("kind"), "DeviceTaintRule requires feature gate " + std::string(FeatureGates::Name(gate)) +
                                       ", which is disabled (the API server does not serve this kind)");
    }
    ObjectMetaOf(rule.metadata, /*namespaced=*/false, FieldPath("metadata"));
    FieldPath spec("spec");
    if (rule.spec.device_selector) {
      const DeviceTaintSelector& sel = *rule.spec.device_selector;
      FieldPath sp = spec.Child("deviceSelector");
      if (sel.driver) DriverName(*sel.driver, sp.Child("driver"));
      if (sel.pool) PoolName(*sel.pool, sp.Child("pool"));
      if (sel.device) DNSLabel(*sel.device, sp.Child("device"));
    }
    TaintOf(rule.spec.taint, spec.Child("taint"));
    FieldPath conditions = FieldPath("status").Child("conditions");
    Conditions(rule.status.conditions, conditions);
    if (rule.status.conditions.size() > kDeviceTaintRuleStatusMaxConditions) {
      TooMany(conditions, rule.status.conditions.size(), kDeviceTaintRuleStatusMaxConditions);
    }
  }

  // --- Node

  static bool KnownNodeTaintEffect(std::string_view effect) {
    return effect == "NoSchedule" || effect == "PreferNoSchedule" || effect == "NoExecute";
  }

  void NodeOf(const Node& node) {
    ObjectMetaOf(node.metadata, /*namespaced=*/false, FieldPath("metadata"));
    FieldPath taints = FieldPath("spec").Child("taints");
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (size_t i = 0; i < node.spec.taints.size(); ++i) {
      const api::Taint& taint = node.spec.taints[i];
      FieldPath item = taints.Index(i);
      LabelName(taint.key, item.Child("key"));
      NameErrors value_errs = IsLabelValue(taint.value);
      if (!value_errs.empty()) {
        std::string joined;
        for (const std::string& m : value_errs) joined += (joined.empty() ? "" : ";") + m;
        Invalid(item.Child("value"), Quote(taint.value), joined);
      }
      const std::string& effect = taint.effect.text();
      if (effect.empty()) {
        Required(item.Child("effect"));
      } else if (!KnownNodeTaintEffect(effect)) {
        NotSupported(item.Child("effect"), Quote(effect), {"NoExecute", "NoSchedule", "PreferNoSchedule"});
      }
      if (!seen.insert({taint.key, effect}).second) {
        Add(FieldErrorType::kDuplicate, item, Quote(taint.key + ":" + effect),
            "taints must be unique by key and effect pair");
      }
    }
  }

  // --- Pod

  void PodOf(const Pod& pod) {
    ObjectMetaOf(pod.metadata, /*namespaced=*/true, FieldPath("metadata"));
    FieldPath spec("spec");
    FieldPath claims = spec.Child("resourceClaims");
    std::set<std::string> pod_claim_names;
    if (!pod.spec.resource_claims.empty()) GateOff(Gate::kDynamicResourceAllocation, claims);
    for (size_t i = 0; i < pod.spec.resource_claims.size(); ++i) {
      PodResourceClaimOf(pod.metadata, pod.spec.resource_claims[i], claims.Index(i), pod_claim_names);
    }
    for (size_t i = 0; i < pod.spec.init_containers.size(); ++i) {
      ContainerClaims(pod.spec.init_containers[i].resources.claims, pod_claim_names,
                      spec.Child("initContainers").Index(i).Child("resources").Child("claims"));
    }
    // validateContainers: a pod runs at least one container.
    if (pod.spec.containers.empty()) Required(spec.Child("containers"));
    for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
      ContainerClaims(pod.spec.containers[i].resources.claims, pod_claim_names,
                      spec.Child("containers").Index(i).Child("resources").Child("claims"));
    }
    // Pod-level resources (kept raw in `extra`) do not support claims.
    if (const RawJson* resources = pod.spec.extra.find("resources");
        resources != nullptr && resources->find("\"claims\":") != std::string::npos) {
      Forbidden(spec.Child("resources").Child("claims"), "claims cannot be set for Resources at pod-level");
    }
    CoreTolerations(pod.spec.tolerations, spec.Child("tolerations"));
    if (pod.spec.affinity && pod.spec.affinity->node_affinity &&
        pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution) {
      NodeSelectorOf(
          *pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution,
          spec.Child("affinity").Child("nodeAffinity").Child("requiredDuringSchedulingIgnoredDuringExecution"));
    }
    // validateSchedulingGroup (scheduling_validation.cc), where PodSpec keeps it raw.
    if (const RawJson* group = pod.spec.extra.find("schedulingGroup"); group != nullptr) {
      for (FieldError& e : ValidatePodSchedulingGroup(*group, gates_, spec.Child("schedulingGroup"))) {
        errs_.push_back(std::move(e));
      }
    }
    if (pod.status.extended_resource_claim_status) {
      GateOff(Gate::kDRAExtendedResource, FieldPath("status").Child("extendedResourceClaimStatus"));
    }
  }

  // corevalidation validatePodResourceClaim.
  void PodResourceClaimOf(const ObjectMeta& /*pod_meta*/, const PodResourceClaim& claim, const FieldPath& path,
                          std::set<std::string>& names) {
    if (claim.name.empty()) {
      Required(path.Child("name"));
    } else if (names.count(claim.name) > 0) {
      Duplicate(path.Child("name"), Quote(claim.name));
    } else {
      // The name of a claim made from a template is not checked: the
      // resource-claim controller truncates "<pod>-<claim>-" to fit, and the
      // API server accepts any pod name with it (tools/difftest --level validation).
      DNSLabel(claim.name, path.Child("name"));
      names.insert(claim.name);
    }
    if (claim.resource_claim_name && claim.resource_claim_template_name) {
      Invalid(path, Quote(claim.name),
              "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified");
    }
    if (!claim.resource_claim_name && !claim.resource_claim_template_name) {
      Invalid(path, Quote(claim.name), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    }
    if (claim.resource_claim_name) {
      for (std::string& msg : IsDNS1123Subdomain(*claim.resource_claim_name)) {
        Invalid(path.Child("resourceClaimName"), Quote(*claim.resource_claim_name), std::move(msg));
      }
    }
    if (claim.resource_claim_template_name) {
      for (std::string& msg : IsDNS1123Subdomain(*claim.resource_claim_template_name)) {
        Invalid(path.Child("resourceClaimTemplateName"), Quote(*claim.resource_claim_template_name), std::move(msg));
      }
    }
  }

  // corevalidation validateResourceClaimNames.
  void ContainerClaims(const std::vector<ContainerClaim>& claims, const std::set<std::string>& pod_claim_names,
                       const FieldPath& path) {
    std::set<std::string> seen;
    for (size_t i = 0; i < claims.size(); ++i) {
      const ContainerClaim& claim = claims[i];
      FieldPath item = path.Index(i);
      if (claim.name.empty()) {
        Required(item);
        continue;
      }
      std::string key = claim.name;
      if (!claim.request.empty()) {
        DNSLabel(claim.request, item.Child("request"), /*required=*/false);
        key += "/" + claim.request;
      }
      if (!seen.insert(key).second) Duplicate(item, Quote(key));
      if (pod_claim_names.count(claim.name) == 0) {
        std::string detail = "must be one of the names in pod.spec.resourceClaims";
        if (pod_claim_names.empty()) {
          detail += " which is empty";
        } else {
          std::string joined;
          for (const std::string& n : pod_claim_names) joined += (joined.empty() ? "" : ", ") + n;
          detail += ": " + joined;
        }
        NotFound(item, Quote(claim.name), detail);
      }
    }
  }

  // corevalidation ValidateTolerations (core/v1 tolerations of a pod).
  void CoreTolerations(const std::vector<api::Toleration>& tolerations, const FieldPath& path) {
    for (size_t i = 0; i < tolerations.size(); ++i) {
      const api::Toleration& t = tolerations[i];
      FieldPath item = path.Index(i);
      const std::string& op = t.operator_.text();
      if (!t.key.empty()) LabelName(t.key, item.Child("key"));
      if (t.key.empty() && op != "Exists") {
        Invalid(item.Child("operator"), Quote(op),
                "operator must be Exists when `key` is empty, which means \"match all values and "
                "all keys\"");
      }
      if (t.toleration_seconds && t.effect.text() != "NoExecute") {
        Invalid(item.Child("effect"), Quote(t.effect.text()),
                "effect must be 'NoExecute' when `tolerationSeconds` is set");
      }
      if (op == "Equal" || op.empty()) {
        NameErrors errs = IsLabelValue(t.value);
        if (!errs.empty()) {
          std::string joined;
          for (const std::string& m : errs) joined += (joined.empty() ? "" : ";") + m;
          // Upstream reports the value under `operator`.
          Invalid(item.Child("operator"), Quote(t.value), joined);
        }
      } else if (op == "Exists") {
        if (!t.value.empty())
          Invalid(item.Child("operator"), Quote(t.value), "value must be empty when `operator` is 'Exists'");
      } else {
        NotSupported(item.Child("operator"), Quote(op), {"Equal", "Exists"});
      }
      if (!t.effect.empty() && !KnownNodeTaintEffect(t.effect.text())) {
        NotSupported(item.Child("effect"), Quote(t.effect.text()), {"NoExecute", "NoSchedule", "PreferNoSchedule"});
      }
    }
  }

 private:
  const FeatureGates& gates_;
  int minor_;
  CelExpressionChecker* cel_;            // may be null
  uint64_t derived_attribute_cost_ = 0;  // of the claim being validated
  FieldErrors errs_;
  // Constraint attribute names by target, for derivedAttributes (upstream
  // gatherConstraintAttributes): "" = all requests.
  std::map<std::string, std::set<std::string>> constraint_attributes_;
};

}  // namespace

FieldErrors ValidateDeviceClass(const DeviceClass& device_class, const FeatureGates& gates, CelExpressionChecker* cel) {
  Validator v(gates, cel);
  v.DeviceClassOf(device_class);
  return v.Take();
}

FieldErrors ValidateDeviceClass(const DeviceClass& device_class, const FeatureGates& gates) {
  return ValidateDeviceClass(device_class, gates, nullptr);
}

FieldErrors ValidateResourceClaim(const ResourceClaim& claim, const FeatureGates& gates) {
  return ValidateResourceClaim(claim, gates, nullptr);
}

FieldErrors ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template, const FeatureGates& gates) {
  return ValidateResourceClaimTemplate(claim_template, gates, nullptr);
}

FieldErrors ValidateResourceSlice(const ResourceSlice& slice, const FeatureGates& gates) {
  Validator v(gates);
  v.ResourceSliceOf(slice);
  return v.Take();
}

FieldErrors ValidateResourceClaim(const ResourceClaim& claim, const FeatureGates& gates, CelExpressionChecker* cel) {
  Validator v(gates, cel);
  v.ResourceClaimOf(claim);
  return v.Take();
}

FieldErrors ValidateResourceClaimTemplate(const ResourceClaimTemplate& claim_template, const FeatureGates& gates,
                                          CelExpressionChecker* cel) {
  Validator v(gates, cel);
  v.ResourceClaimTemplateOf(claim_template);
  return v.Take();
}

FieldErrors ValidateDeviceTaintRule(const DeviceTaintRule& rule, const FeatureGates& gates) {
  Validator v(gates);
  v.DeviceTaintRuleOf(rule);
  return v.Take();
}

FieldErrors ValidateNode(const Node& node, const FeatureGates& gates) {
  Validator v(gates);
  v.NodeOf(node);
  return v.Take();
}

FieldErrors ValidatePod(const Pod& pod, const FeatureGates& gates) {
  Validator v(gates);
  v.PodOf(pod);
  return v.Take();
}

FieldErrors Validate(const Object& object, const FeatureGates& gates, CelExpressionChecker* cel) {
  struct Dispatch {
    const FeatureGates& gates;
    CelExpressionChecker* cel;
    FieldErrors operator()(const DeviceClass& o) const { return ValidateDeviceClass(o, gates, cel); }
    FieldErrors operator()(const ResourceSlice& o) const { return ValidateResourceSlice(o, gates); }
    FieldErrors operator()(const ResourceClaim& o) const { return ValidateResourceClaim(o, gates, cel); }
    FieldErrors operator()(const ResourceClaimTemplate& o) const {
      return ValidateResourceClaimTemplate(o, gates, cel);
    }
    FieldErrors operator()(const DeviceTaintRule& o) const { return ValidateDeviceTaintRule(o, gates); }
    FieldErrors operator()(const Node& o) const { return ValidateNode(o, gates); }
    FieldErrors operator()(const Pod& o) const { return ValidatePod(o, gates); }
    FieldErrors operator()(const PodGroup& o) const { return ValidatePodGroup(o, gates); }
    FieldErrors operator()(const SchedulingWorkload& o) const { return ValidateSchedulingWorkload(o, gates); }
  };
  return std::visit(Dispatch{gates, cel}, object);
}

FieldErrors ValidateNodeSelector(const NodeSelector& selector, const FieldPath& path) {
  FeatureGates gates = FeatureGates::Defaults();
  Validator v(gates);
  v.NodeSelectorOf(selector, path);
  return v.Take();
}

FieldErrors ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, const FieldPath& path) {
  FeatureGates gates = FeatureGates::Defaults();
  Validator v(gates);
  v.ObjectMetaOf(meta, namespaced, path);
  return v.Take();
}

FieldErrors ValidateConditions(const std::vector<Condition>& conditions, const FieldPath& path) {
  FeatureGates gates = FeatureGates::Defaults();
  Validator v(gates);
  v.Conditions(conditions, path);
  return v.Take();
}

FieldError GateOffWarning(Gate gate, const FieldPath& path) {
  std::string name(FeatureGates::Name(gate));
  return FieldError{.type = FieldErrorType::kForbidden,
                    .field = path.String(),
                    .bad_value = "",
                    .detail = "requires feature gate " + name +
                              ", which is disabled: the API server drops this field (enable with --feature-gates " +
                              name + "=true)",
                    .severity = Severity::kWarning};
}

bool HasErrors(const FieldErrors& errors) {
  return std::any_of(errors.begin(), errors.end(), [](const FieldError& e) { return e.severity == Severity::kError; });
}

}  // namespace dra::api
