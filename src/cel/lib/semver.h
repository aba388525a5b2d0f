// SemVer: the value behind the Kubernetes CEL semver library
// (k8s.io/apiserver pkg/cel/library/semverlib.go, CEL type kubernetes.Semver),
// which parses with github.com/blang/semver/v4.
//
// CEL surface and how it maps here:
//   semver(s)                  SemVer::Parse(s, /*normalize=*/false)
//   semver(s, normalize)       SemVer::Parse(s, normalize)
//   isSemver(s[, normalize])   SemVer::IsValid(s, normalize)
//   v.major()/minor()/patch()  CelMajor()/CelMinor()/CelPatch() (int64, see below)
//   v.compareTo(o)             Compare(o): -1, 0 or 1
//   v.isGreaterThan(o)         IsGreaterThan(o)
//   v.isLessThan(o)            IsLessThan(o)
//   v == o                     operator== (SemVer precedence: build metadata ignored)
//   string form (e.g. errors)  String()
//
// Parse errors are kInvalidArgument and carry blang/semver's message verbatim,
// which is what CEL surfaces as the error of semver(...), e.g.
//   "No Major.Minor.Patch elements found"
//   "Invalid character(s) found in major number \"v1\""
//   "short version cannot contain PreRelease/Build meta data" (normalize only)
//
// Thread-safety: SemVer is an immutable value type; copies are independent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::cel::lib {

// One dot-separated identifier of a pre-release ("alpha", "1").
struct PreReleaseId {
  bool is_numeric = false;
  uint64_t number = 0;  // valid when is_numeric
  std::string text;     // valid when !is_numeric

  // SemVer 2.0 precedence: numeric < alphanumeric; numbers numerically; text
  // by byte order. Returns -1, 0 or 1.
  int Compare(const PreReleaseId& other) const;
  std::string String() const;
  friend bool operator==(const PreReleaseId&, const PreReleaseId&) = default;
};

class SemVer {
 public:
  // 0.0.0.
  SemVer() = default;

  // Parses `text` as blang/semver's Parse does (strict SemVer 2.0.0: exactly
  // MAJOR.MINOR.PATCH, no leading zeros, no "v", no whitespace, numbers that
  // fit uint64, optional -PRERELEASE and +BUILD of [0-9A-Za-z-] identifiers).
  //
  // With `normalize`, first applies Kubernetes' normalizeAndParse: drop one
  // leading "v", strip leading zeros from each of the first three
  // dot-separated parts, and pad a missing minor/patch with ".0"; a short
  // version whose last part contains '-' or '+' is an error. Whitespace is
  // never trimmed.
  static StatusOr<SemVer> Parse(std::string_view text, bool normalize = false);

  // isSemver: true iff Parse(text, normalize) would succeed.
  static bool IsValid(std::string_view text, bool normalize = false);

  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  const std::vector<PreReleaseId>& pre_release() const { return pre_; }
  const std::vector<std::string>& build() const { return build_; }

  // The CEL results of major()/minor()/patch(): Go's types.Int(v.Major), i.e.
  // the uint64 reinterpreted as int64 (values above 2^63-1 wrap negative).
  int64_t CelMajor() const { return static_cast<int64_t>(major_); }
  int64_t CelMinor() const { return static_cast<int64_t>(minor_); }
  int64_t CelPatch() const { return static_cast<int64_t>(patch_); }

  // SemVer 2.0 precedence (blang Version.Compare): major, minor, patch
  // numerically; a version with a pre-release is lower than one without;
  // pre-releases compare identifier by identifier, a shorter prefix being
  // lower; build metadata is ignored. Returns -1, 0 or 1.
  int Compare(const SemVer& other) const;
  bool IsGreaterThan(const SemVer& other) const { return Compare(other) > 0; }
  bool IsLessThan(const SemVer& other) const { return Compare(other) < 0; }

  // CEL equality of kubernetes.Semver: Compare(...) == 0, so
  // 1.0.0+a == 1.0.0+b. Use IdenticalTo() to include build metadata.
  friend bool operator==(const SemVer& a, const SemVer& b) { return a.Compare(b) == 0; }
  bool IdenticalTo(const SemVer& other) const;

  // "MAJOR.MINOR.PATCH[-PRE][+BUILD]" as blang prints it (numbers without
  // leading zeros, so a normalized version prints normalized).
  std::string String() const;

 private:
  // blang's Parse.
  static StatusOr<SemVer> ParseStrict(std::string_view text);

  uint64_t major_ = 0;
  uint64_t minor_ = 0;
  uint64_t patch_ = 0;
  std::vector<PreReleaseId> pre_;
  std::vector<std::string> build_;
};

}  // namespace dra::cel::lib
