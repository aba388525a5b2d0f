// The Kubernetes CEL libraries (k8s.io/apiserver pkg/cel/library) as the DRA
// selector environment of Kubernetes 1.34-1.37 has them (src/cel/README.md
// §3, §5, §6). Plain CEL: nothing here knows about devices; cel/dra/dra_env.h adds
// the `device` variable on top.
//
//   library              functions                                        CEL types
//   -------------------  -----------------------------------------------  ---------------------
//   quantity             quantity(s), isQuantity(s), sign(q),             kubernetes.Quantity
//                        q.isGreaterThan/isLessThan/compareTo(q2),
//                        q.add/sub(q2 | int), q.asInteger(),
//                        q.isInteger(), q.asApproximateFloat(), ==
//   semver (v1)          semver(s[, normalize]), isSemver(s[, normalize]), kubernetes.Semver
//                        v.isGreaterThan/isLessThan/compareTo(v2),
//                        v.major()/minor()/patch(), ==
//   lists (v0, v1)       l.isSorted(), l.sum(), l.min(), l.max(),
//                        l.indexOf(x), l.lastIndexOf(x); v1 and DRA:
//                        x.includes(y)
//   regex                s.find(re), s.findAll(re[, n])
//   url                  url(s), isURL(s), u.getScheme()/getHost()/        kubernetes.URL
//                        getHostname()/getPort()/getEscapedPath()/
//                        getQuery(), ==
//   ip, cidr             ip(s), isIP(s), ip.isCanonical(s), string(ip),   net.IP, net.CIDR
//                        ip.family()/isUnspecified()/isLoopback()/
//                        isLinkLocalMulticast()/isLinkLocalUnicast()/
//                        isGlobalUnicast(); cidr(s), isCIDR(s),
//                        string(cidr), c.containsIP(ip | s),
//                        c.containsCIDR(c2 | s), c.ip(), c.masked(),
//                        c.prefixLength(), ==
//   format               format.named(s) (optional), format.dns1123Label()  kubernetes.NamedFormat
//                        and the other named formats, f.validate(s)
//   strings v2 format    '<fmt>'.format([args]) (cel/lib/format.h, the
//                        legacy formatter of ext.Strings v2)
//
// The value types wrap the exact C++ implementations of cel/lib/ (semver,
// ip, url, format) and quantity/quantity.h. Errors are CEL error values with
// Kubernetes' texts (e.g. `quantity("10Mo")` is "quantities must match the
// regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'").
// Equality of two values of a custom type compares them (quantities by
// value, semvers by precedence); against a value of another type it is the
// error "no such overload", as upstream, so `semverAttr == "1.2.3"` fails
// while `"1.2.3" == semverAttr` is false (src/cel/README.md §6).
//
// Known differences from upstream, all in corners:
//   1. Quantity arithmetic is exact up to 38 significant digits
//      (quantity.h); beyond that add/sub return an error instead of a
//      result. Upstream release-1.34..1.36 also mutate the receiver of add/sub
//      for such quantities (fixed upstream on the 1.37 line); we never do.
//   2. sum() picks its zero from the first element (int, uint, double or
//      duration) because there is no static type to pick the overload by; an
//      empty list sums to the int 0 whatever its declared element type.
//   3. The named formats' messages (format.dns1123Label() etc.) use the
//      wording of api/names.h, not apimachinery's exact sentences; which
//      strings are valid is the same. `datetime` accepts RFC 3339 date-times.
//   4. A regular expression RE2 accepts but Go's regexp rejects (or the
//      reverse) behaves as RE2 decides; the error text of an invalid one is
//      RE2's.
// The names `net.IP`/`net.CIDR` as type denotations (`type(x) == net.IP`)
// are not declared.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/release.h"
#include "base/status.h"
#include "cel/lib/ip.h"
#include "cel/lib/semver.h"
#include "cel/lib/url.h"
#include "cel/parser/ast.h"
#include "cel/parser/issue.h"
#include "cel/parser/parser.h"
#include "cel/runtime/function_registry.h"
#include "cel/runtime/value.h"
#include "quantity/quantity.h"

namespace dra::cel {

inline constexpr std::string_view kQuantityTypeName = "kubernetes.Quantity";
inline constexpr std::string_view kSemverTypeName = "kubernetes.Semver";
inline constexpr std::string_view kURLTypeName = "kubernetes.URL";
inline constexpr std::string_view kIPTypeName = "net.IP";
inline constexpr std::string_view kCIDRTypeName = "net.CIDR";
inline constexpr std::string_view kNamedFormatTypeName = "kubernetes.NamedFormat";

// --- Value types --------------------------------------------------------------

// kubernetes.Quantity: owns its quantity, or views one that outlives every
// use of the object (an api::DeviceCapacity value; see cel/dra/dra_env.cc).
class QuantityValue final : public OpaqueObject {
 public:
  explicit QuantityValue(const quantity::Quantity& q) : own_(q), q_(&own_) {}
  // A view of `*q`. REQUIRES: `*q` outlives every use of this object.
  explicit QuantityValue(const quantity::Quantity* q) : q_(q) {}
  ~QuantityValue() override = default;

  const quantity::Quantity& quantity() const { return *q_; }
  // Re-points a view (object pools). Only while no Value refers to it.
  void set_view(const quantity::Quantity* q) { q_ = q; }

  std::string_view type_name() const override { return kQuantityTypeName; }
  Value Equals(const Value& other) const override;
  std::string DebugString() const override { return q_->String(); }

 private:
  quantity::Quantity own_;
  const quantity::Quantity* q_;
};

// kubernetes.Semver.
class SemverValue final : public OpaqueObject {
 public:
  explicit SemverValue(lib::SemVer v) : v_(std::move(v)) {}
  ~SemverValue() override = default;
  const lib::SemVer& semver() const { return v_; }
  std::string_view type_name() const override { return kSemverTypeName; }
  Value Equals(const Value& other) const override;
  std::string DebugString() const override { return v_.String(); }

 private:
  lib::SemVer v_;
};

// kubernetes.URL.
class URLValue final : public OpaqueObject {
 public:
  explicit URLValue(lib::Url u) : u_(std::move(u)) {}
  ~URLValue() override = default;
  const lib::Url& url() const { return u_; }
  std::string_view type_name() const override { return kURLTypeName; }
  Value Equals(const Value& other) const override;
  std::string DebugString() const override { return u_.String(); }

 private:
  lib::Url u_;
};

// net.IP.
class IPValue final : public OpaqueObject {
 public:
  explicit IPValue(lib::IPAddress ip) : ip_(std::move(ip)) {}
  ~IPValue() override = default;
  const lib::IPAddress& ip() const { return ip_; }
  std::string_view type_name() const override { return kIPTypeName; }
  Value Equals(const Value& other) const override;
  std::string DebugString() const override { return ip_.String(); }

 private:
  lib::IPAddress ip_;
};

// net.CIDR.
class CIDRValue final : public OpaqueObject {
 public:
  explicit CIDRValue(lib::Cidr cidr) : cidr_(std::move(cidr)) {}
  ~CIDRValue() override = default;
  const lib::Cidr& cidr() const { return cidr_; }
  std::string_view type_name() const override { return kCIDRTypeName; }
  Value Equals(const Value& other) const override;
  std::string DebugString() const override { return cidr_.String(); }

 private:
  lib::Cidr cidr_;
};

// New counted values of the types above.
Value NewQuantityValue(const quantity::Quantity& q);
Value NewSemverValue(lib::SemVer v);

// The CEL error text of a string quantity() rejects, as
// resource.ParseQuantity words it ("quantities must match the regular
// expression '...'", "unable to parse quantity's suffix", "unable to parse
// numeric part of quantity"). `status` is what quantity::Quantity::Parse
// returned for `text`.
std::string QuantityParseErrorText(std::string_view text, const Status& status);

// --- Environment ----------------------------------------------------------------

// Which Kubernetes environment the libraries are built for
// (src/cel/README.md §1, §3).
struct KubernetesLibraryOptions {
  // The Kubernetes minor release of the component, 34 to 37.
  int minor = kDefaultMinor;
  // StoredExpressions (everything the binary knows; what kube-scheduler
  // uses) or NewExpressions (API validation of new or changed expressions:
  // only what the compatibility version minor-1 had).
  bool new_expressions = false;
  // Register `<dyn>.includes(<dyn>)`: Kubernetes lists v1 (1.37
  // StoredExpressions) or the DRA function (gate DRAListTypeAttributes; see
  // cel/dra/dra_env.h, which decides).
  bool includes = false;
  // For includes(): an error past this many list elements (the DRA
  // function's 48); 0 = no limit (lists v1).
  size_t includes_max_list_length = 0;
  // Which Go release's net/url rules url() and isURL() follow.
  lib::GoUrlRules url_rules = lib::GoUrlRules::kGo125;

  // StoredExpressions of release 1.<minor> (lists v1 `includes` from 1.37).
  static KubernetesLibraryOptions Stored(int minor = kDefaultMinor);
  // NewExpressions of release 1.<minor>.
  static KubernetesLibraryOptions New(int minor = kDefaultMinor);

  // The compatibility version whose libraries the environment has: minor
  // for StoredExpressions, minor-1 for NewExpressions.
  int library_minor() const { return new_expressions ? minor - 1 : minor; }
  // ext.Lists v3 (slice, flatten, sort, sortBy, ...): from 1.34 on, so not in
  // the NewExpressions of 1.34 (src/cel/README.md §3).
  bool ext_lists() const { return library_minor() >= 34; }
};

// Registers the Kubernetes libraries listed at the top of this file into
// `registry`, which must already hold the standard library and ext.Strings
// registered with FormatFlavor::kExternal (NewKubernetesRegistry does both).
// kAlreadyExists if one of them is there already.
Status RegisterKubernetesLibraries(FunctionRegistry& registry, const KubernetesLibraryOptions& options);

// A registry with everything a Kubernetes CEL environment of `options` has:
// the standard library, ext.Strings v2, ext.Lists v3 (if ext_lists()),
// ext.Sets, the optional library and the Kubernetes libraries. Build it
// once and share it.
StatusOr<std::shared_ptr<FunctionRegistry>> NewKubernetesRegistry(const KubernetesLibraryOptions& options);

// Parser options of the environment: all macro libraries, sortBy only with
// ext.Lists.
ParseOptions KubernetesLibraryParseOptions(const KubernetesLibraryOptions& options);

// The AST validators Kubernetes runs after type checking, as far as they can
// be decided without one: list and map literals whose elements (keys,
// values) are literals, `dyn(...)` calls or such literals nested, must be of
// one type ("expected type 'int' but found 'string'", at the offending
// element), except inside a format() call; and a constant
// '<fmt>'.format([literal list]) must pass the formatter's compile-time check
// (lib::CheckFormatCall), counting non-literal elements as dyn. Elements whose
// type needs a type checker are not judged. Returns the issues found (empty
// if none).
std::vector<Issue> ValidateKubernetesLiterals(const ParsedExpr& parsed);

}  // namespace dra::cel
