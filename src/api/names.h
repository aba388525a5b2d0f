// Format checks for the names and strings of the Kubernetes API
// (src/api/README.md §2).
//
// Every Is*() function returns the list of problems with its argument as human
// messages; an empty list means valid. The messages are phrased in the manner
// of k8s.io/apimachinery's validation helpers (what is wrong, then an example
// and the regular expression that decides), so a user who knows the API
// server's answers recognises them. api/validation.h turns them into
// FieldErrors with the right path and error type; these functions know
// nothing of field paths.
//
// Two meanings of "qualified name" meet here:
//   * IsLabelName() is what Kubernetes core calls a qualified name: a label key
//     (`example.com/My_name`), also used for taint keys and binding conditions.
//   * IsQualifiedName() / IsFullyQualifiedName() are the DRA attribute and
//     capacity keys: a C identifier with an optional driver-name-like domain.
//
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dra::api {

inline constexpr size_t kDNS1123LabelMaxLength = 63;
inline constexpr size_t kDNS1123SubdomainMaxLength = 253;
inline constexpr size_t kLabelNameMaxLength = 63;  // the name part of a label key
inline constexpr size_t kLabelValueMaxLength = 63;
inline constexpr size_t kDriverNameMaxLength = 63;            // DriverNameMaxLength
inline constexpr size_t kPoolNameMaxLength = 253;             // PoolNameMaxLength
inline constexpr size_t kDeviceMaxIDLength = 32;              // DeviceMaxIDLength
inline constexpr size_t kDeviceMaxDomainLength = 63;          // DeviceMaxDomainLength
inline constexpr size_t kDeviceAttributeMaxValueLength = 64;  // also the semver limit
inline constexpr size_t kUUIDLength = 36;

// The regular expressions the messages quote. They document the rule; the
// checks themselves are hand-written scanners, not std::regex.
inline constexpr std::string_view kDNS1123LabelRegex = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
inline constexpr std::string_view kDNS1123SubdomainRegex =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
inline constexpr std::string_view kCIdentifierRegex = "[A-Za-z_][A-Za-z0-9_]*";
inline constexpr std::string_view kLabelNameRegex = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
inline constexpr std::string_view kLabelValueRegex = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

using NameErrors = std::vector<std::string>;

// "must be no more than N characters".
std::string MaxLengthMessage(size_t max_length);

// RFC 1123 label: at most 63 characters of [a-z0-9-], alphanumeric at both ends.
// Device, request, subrequest, counter-set and counter names; namespaces.
NameErrors IsDNS1123Label(std::string_view value);

// RFC 1123 subdomain: at most 253 characters, dot-separated RFC 1123 labels.
// Object names (DeviceClass, ResourceClaim, ...), node names, pool-name segments.
NameErrors IsDNS1123Subdomain(std::string_view value);

// Node names are DNS subdomains.
inline NameErrors IsNodeName(std::string_view value) { return IsDNS1123Subdomain(value); }

// C identifier `[A-Za-z_][A-Za-z0-9_]*`. Checks the format only, not the length.
NameErrors IsCIdentifier(std::string_view value);

// Driver name: non-empty, at most 63 characters, and a DNS subdomain once
// lower-cased (the CSI driver-name rule). Upper case passes; see
// HasUpperCase() for the warning the docs call for.
NameErrors IsDriverName(std::string_view value);

// Pool name: non-empty, at most 253 characters, split on '/', each segment a
// DNS subdomain ("a/b.c" is fine, "a//b" and "a/" are not).
NameErrors IsPoolName(std::string_view value);

// DRA QualifiedName (attribute or capacity key): `<C identifier>` or
// `<domain>/<C identifier>`; the identifier is at most 32 characters, the
// domain follows the driver-name rule; more than one '/' is an error.
NameErrors IsQualifiedName(std::string_view value);

// DRA FullyQualifiedName (matchAttribute, distinctAttribute,
// partitionTypeAttribute): a QualifiedName that has the domain part.
NameErrors IsFullyQualifiedName(std::string_view value);

// Kubernetes label key ("qualified name" in apimachinery): an optional DNS
// subdomain prefix and '/', then a name of at most 63 characters matching
// kLabelNameRegex. Taint and toleration keys, binding conditions.
NameErrors IsLabelName(std::string_view value);
inline NameErrors IsTaintKey(std::string_view value) { return IsLabelName(value); }

// Kubernetes label value: empty, or at most 63 characters matching kLabelNameRegex.
NameErrors IsLabelValue(std::string_view value);

// RFC 4122 UUID in its normalized form: 36 characters
// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lower-case hex digits. A UUID in
// another accepted spelling (upper case, braces, `urn:uuid:`, no dashes) gets
// a message saying it must be normalized.
NameErrors IsUUID(std::string_view value);

// Strict semantic version 2.0.0: MAJOR.MINOR.PATCH without leading zeros,
// optional `-prerelease` (dot-separated; numeric identifiers without leading
// zeros), optional `+build` (dot-separated, non-empty); at most 64 characters.
NameErrors IsSemver(std::string_view value);

// Extended resource name, as core/v1 helper IsExtendedResourceName decides:
// domain-prefixed (contains '/'), not in the `kubernetes.io/` namespace, not
// starting with `requests.`, and `requests.<name>` is a valid label key.
NameErrors IsExtendedResourceName(std::string_view value);

// Node-allocatable resource names: cpu, memory, ephemeral-storage, hugepages-*.
bool IsNodeAllocatableResourceName(std::string_view value);

// Request reference in constraints, configs and results: `<request>` or
// `<request>/<subrequest>`, each segment a DNS label. Checks the shape only;
// whether the request exists is for the claim validator.
NameErrors IsRequestReference(std::string_view value);

// True if `value` has an ASCII upper-case letter.
bool HasUpperCase(std::string_view value);

}  // namespace dra::api
