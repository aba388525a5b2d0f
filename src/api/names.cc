// Hand-written scanners for the formats of names.h. Each mirrors one regular
// expression of k8s.io/apimachinery (pkg/util/validation and
// pkg/api/validate/content) or of pkg/apis/resource/validation; the comment on
// each scanner names the expression it implements.
#include "api/names.h"

#include "base/strings.h"

namespace dra::api {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }
bool IsHex(char c) { return IsLowerHex(c) || (c >= 'A' && c <= 'F'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesLabel(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// label(\.label)*
bool MatchesSubdomain(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!MatchesLabel(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesLabelName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// [A-Za-z_][A-Za-z0-9_]*
bool MatchesCIdentifier(std::string_view s) {
  if (s.empty() || !(IsAlpha(s.front()) || s.front() == '_')) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '_') return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string WithRegex(std::string_view what, std::string_view examples, std::string_view regex) {
  std::string msg(what);
  msg += " (e.g. ";
  msg += examples;
  msg += "; regex used for validation is '";
  msg += regex;
  msg += "')";
  return msg;
}

std::string LabelFormatMessage() {
  return WithRegex(
      "a lowercase RFC 1123 label may contain only lower case alphanumeric characters or '-', and "
      "must begin and end with an alphanumeric character",
      "'my-name' or '123-abc'", kDNS1123LabelRegex);
}

std::string SubdomainFormatMessage() {
  return WithRegex(
      "a lowercase RFC 1123 subdomain may contain only lower case alphanumeric characters, '-' or "
      "'.', and must begin and end with an alphanumeric character",
      "'example.com'", kDNS1123SubdomainRegex);
}

std::string CIdentifierFormatMessage() {
  return WithRegex(
      "a valid C identifier begins with an alphabetic character or '_', followed by alphanumeric "
      "characters or '_'",
      "'my_name', 'MY_NAME' or 'MyName'", kCIdentifierRegex);
}

std::string LabelNameFormatMessage() {
  return WithRegex(
      "may contain only alphanumeric characters, '-', '_' or '.', and must begin and end with an "
      "alphanumeric character",
      "'MyName', 'my.name' or '123-abc'", kLabelNameRegex);
}

void Append(NameErrors& out, const NameErrors& more, std::string_view prefix = {}) {
  for (const std::string& msg : more) out.push_back(std::string(prefix) + msg);
}

// QualifiedName checks shared by IsQualifiedName and IsFullyQualifiedName.
void CheckIdentifierPart(std::string_view id, NameErrors& errs) {
  if (id.size() > kDeviceMaxIDLength) errs.push_back(MaxLengthMessage(kDeviceMaxIDLength));
  Append(errs, IsCIdentifier(id));
}

// Numeric identifier of semver: 0|[1-9][0-9]*
bool IsSemverNumber(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return s.size() == 1 || s.front() != '0';
}

// Prerelease identifier: 0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*
bool IsPrereleaseIdentifier(std::string_view s) {
  if (s.empty()) return false;
  bool has_non_digit = false;
  for (char c : s) {
    if (IsAlpha(c) || c == '-') {
      has_non_digit = true;
    } else if (!IsDigit(c)) {
      return false;
    }
  }
  return has_non_digit || IsSemverNumber(s);
}

// Build identifier: [0-9a-zA-Z-]+
bool IsBuildIdentifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesSemver(std::string_view s) {
  size_t plus = s.find('+');
  std::string_view build;
  if (plus != std::string_view::npos) {
    build = s.substr(plus + 1);
    s = s.substr(0, plus);
    for (std::string_view id : Split(build, '.')) {
      if (!IsBuildIdentifier(id)) return false;
    }
  }
  size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    for (std::string_view id : Split(s.substr(dash + 1), '.')) {
      if (!IsPrereleaseIdentifier(id)) return false;
    }
    s = s.substr(0, dash);
  }
  std::vector<std::string_view> core = Split(s, '.');
  if (core.size() != 3) return false;
  for (std::string_view n : core) {
    if (!IsSemverNumber(n)) return false;
  }
  return true;
}

// 8-4-4-4-12 hex digits with dashes; `lower` demands lower-case digits.
bool IsDashedUUID(std::string_view s, bool lower) {
  if (s.size() != kUUIDLength) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (lower ? !IsLowerHex(s[i]) : !IsHex(s[i])) {
      return false;
    }
  }
  return true;
}

// The spellings github.com/google/uuid's Validate accepts besides the canonical one.
bool IsOtherUUIDSpelling(std::string_view s) {
  if (IsDashedUUID(s, /*lower=*/false)) return true;
  if (s.size() == 45 && (s.substr(0, 9) == "urn:uuid:" || s.substr(0, 9) == "URN:UUID:")) {
    return IsDashedUUID(s.substr(9), false);
  }
  if (s.size() == 38 && s.front() == '{' && s.back() == '}') return IsDashedUUID(s.substr(1, 36), false);
  if (s.size() == 32) {
    for (char c : s) {
      if (!IsHex(c)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

std::string MaxLengthMessage(size_t max_length) {
  return "must be no more than " + std::to_string(max_length) + " characters";
}

NameErrors IsDNS1123Label(std::string_view value) {
  NameErrors errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(MaxLengthMessage(kDNS1123LabelMaxLength));
  if (!MatchesLabel(value)) {
    // A valid subdomain that is not a valid label has dots; say so plainly.
    if (MatchesSubdomain(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(LabelFormatMessage());
    }
  }
  return errs;
}

NameErrors IsDNS1123Subdomain(std::string_view value) {
  NameErrors errs;
  if (value.size() > kDNS1123SubdomainMaxLength) {
    errs.push_back(MaxLengthMessage(kDNS1123SubdomainMaxLength));
  }
  if (!MatchesSubdomain(value)) errs.push_back(SubdomainFormatMessage());
  return errs;
}

NameErrors IsCIdentifier(std::string_view value) {
  if (MatchesCIdentifier(value)) return {};
  return {CIdentifierFormatMessage()};
}

NameErrors IsDriverName(std::string_view value) {
  NameErrors errs;
  if (value.empty()) {
    errs.push_back("must be non-empty");
    return errs;
  }
  if (value.size() > kDriverNameMaxLength) errs.push_back(MaxLengthMessage(kDriverNameMaxLength));
  Append(errs, IsDNS1123Subdomain(ToLower(value)));
  return errs;
}

NameErrors IsPoolName(std::string_view value) {
  NameErrors errs;
  if (value.empty()) {
    errs.push_back("must be non-empty");
    return errs;
  }
  if (value.size() > kPoolNameMaxLength) errs.push_back(MaxLengthMessage(kPoolNameMaxLength));
  for (std::string_view segment : Split(value, '/')) Append(errs, IsDNS1123Subdomain(segment));
  return errs;
}

NameErrors IsQualifiedName(std::string_view value) {
  NameErrors errs;
  std::vector<std::string_view> parts = Split(value, '/');
  switch (parts.size()) {
    case 1: CheckIdentifierPart(parts[0], errs); break;
    case 2:
      if (parts[0].empty()) {
        errs.push_back("the domain must not be empty");
      } else {
        Append(errs, IsDriverName(parts[0]), "domain: ");
      }
      if (parts[1].empty()) {
        errs.push_back("the name must not be empty");
      } else {
        CheckIdentifierPart(parts[1], errs);
      }
      break;
    default: errs.push_back("must not contain more than one slash"); break;
  }
  return errs;
}

NameErrors IsFullyQualifiedName(std::string_view value) {
  NameErrors errs = IsQualifiedName(value);
  if (value.find('/') == std::string_view::npos) {
    errs.push_back("a fully qualified name must be a domain and a name separated by a slash");
  }
  return errs;
}

NameErrors IsLabelName(std::string_view value) {
  NameErrors errs;
  std::vector<std::string_view> parts = Split(value, '/');
  std::string_view name;
  switch (parts.size()) {
    case 1: name = parts[0]; break;
    case 2:
      name = parts[1];
      if (parts[0].empty()) {
        errs.push_back("prefix part must be non-empty");
      } else {
        Append(errs, IsDNS1123Subdomain(parts[0]), "prefix part ");
      }
      break;
    default:
      errs.push_back(
          WithRegex("a valid label key is a name of alphanumeric characters, '-', '_' or '.' that begins and "
                    "ends with an alphanumeric character, with an optional DNS subdomain prefix and '/'",
                    "'MyName', 'my.name' or 'example.com/MyName'", kLabelNameRegex));
      return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kLabelNameMaxLength) {
    errs.push_back("name part " + MaxLengthMessage(kLabelNameMaxLength));
  }
  if (!MatchesLabelName(name)) errs.push_back("name part " + LabelNameFormatMessage());
  return errs;
}

NameErrors IsLabelValue(std::string_view value) {
  NameErrors errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLengthMessage(kLabelValueMaxLength));
  if (!value.empty() && !MatchesLabelName(value)) {
    errs.push_back(
        WithRegex("a valid label value is empty or contains only alphanumeric characters, '-', '_' or '.', "
                  "beginning and ending with an alphanumeric character",
                  "'MyValue', 'my_value' or '12345'", kLabelValueRegex));
  }
  return errs;
}

NameErrors IsUUID(std::string_view value) {
  if (IsDashedUUID(value, /*lower=*/true)) return {};
  if (IsOtherUUIDSpelling(value)) {
    return {
        "must be an RFC 4122 UUID in normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with "
        "lower-case hexadecimal digits"};
  }
  return {"is not a valid UUID: expected 32 hexadecimal digits grouped 8-4-4-4-12 by dashes"};
}

NameErrors IsSemver(std::string_view value) {
  NameErrors errs;
  if (!MatchesSemver(value)) errs.push_back("must be a string compatible with semver.org spec 2.0.0");
  if (value.size() > kDeviceAttributeMaxValueLength) {
    errs.push_back(MaxLengthMessage(kDeviceAttributeMaxValueLength));
  }
  return errs;
}

NameErrors IsExtendedResourceName(std::string_view value) {
  // Unprefixed names and names under kubernetes.io/ are native resources.
  if (value.find('/') == std::string_view::npos) {
    return {
        "must be domain-prefixed (e.g. 'example.com/gpu'); names without a domain are native "
        "resources"};
  }
  if (value.find("kubernetes.io/") != std::string_view::npos) {
    return {"must not be in the kubernetes.io namespace, which is reserved for native resources"};
  }
  if (value.starts_with("requests.")) {
    return {"must not start with 'requests.', the prefix resource quota uses"};
  }
  // Quota spells the name as `requests.<name>`, which must be a label key.
  NameErrors errs;
  Append(errs, IsLabelName("requests." + std::string(value)), "as 'requests.<name>': ");
  return errs;
}

bool IsNodeAllocatableResourceName(std::string_view value) {
  return value == "cpu" || value == "memory" || value == "ephemeral-storage" || value.starts_with("hugepages-");
}

NameErrors IsRequestReference(std::string_view value) {
  std::vector<std::string_view> segments = Split(value, '/');
  if (segments.size() > 2) {
    return {
        "must be the name of a request in the claim or the name of a request and a subrequest "
        "separated by '/'"};
  }
  NameErrors errs;
  for (std::string_view segment : segments) Append(errs, IsDNS1123Label(segment));
  return errs;
}

bool HasUpperCase(std::string_view value) {
  for (char c : value) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

}  // namespace dra::api
