// Mirrors blang/semver v4's Parse/Compare/String and Kubernetes'
// normalizeAndParse (semverlib.go). Error texts are blang's, because CEL
// returns them unchanged as the error of semver(...).
#include "cel/lib/semver.h"

#include <optional>
#include <utility>

#include "base/strings.h"
#include "cel/lib/internal/go_strconv.h"

namespace dra::cel::lib {
namespace {

using internal::GoParseUint64;
using internal::GoQuote;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnumOrHyphen(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'; }

// blang's containsOnly: true for the empty string.
bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}
bool AllAlnumOrHyphen(std::string_view s) {
  for (char c : s) {
    if (!IsAlnumOrHyphen(c)) return false;
  }
  return true;
}

bool HasLeadingZeroes(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

// Parses a MAJOR or MINOR (or PATCH) number with blang's checks, in blang's
// order: characters, leading zeroes, then range.
StatusOr<uint64_t> ParseNumber(std::string_view s, std::string_view what_lower, std::string_view what_upper) {
  if (!AllDigits(s)) {
    return InvalidArgumentError("Invalid character(s) found in " + std::string(what_lower) + " number " + GoQuote(s));
  }
  if (HasLeadingZeroes(s)) {
    return InvalidArgumentError(std::string(what_upper) + " number must not contain leading zeroes " + GoQuote(s));
  }
  std::string error;
  std::optional<uint64_t> v = GoParseUint64(s, error);
  if (!v) return InvalidArgumentError(std::move(error));
  return *v;
}

// blang's NewPRVersion.
StatusOr<PreReleaseId> ParsePreRelease(std::string_view s) {
  if (s.empty()) return InvalidArgumentError("Prerelease is empty");
  PreReleaseId id;
  if (AllDigits(s)) {
    if (HasLeadingZeroes(s)) {
      return InvalidArgumentError("Numeric PreRelease version must not contain leading zeroes " + GoQuote(s));
    }
    std::string error;
    std::optional<uint64_t> v = GoParseUint64(s, error);
    if (!v) return InvalidArgumentError(std::move(error));
    id.is_numeric = true;
    id.number = *v;
  } else if (AllAlnumOrHyphen(s)) {
    id.text = std::string(s);
  } else {
    return InvalidArgumentError("Invalid character(s) found in prerelease " + GoQuote(s));
  }
  return id;
}

// Kubernetes' normalizeAndParse rewrite step (semverlib.go), which is
// blang's ParseTolerant without the whitespace trimming.
StatusOr<std::string> Normalize(std::string_view s) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string_view> views = SplitN(s, '.', 3);
  std::vector<std::string> parts;
  for (std::string_view p : views) {
    if (p.size() > 1) {
      size_t first = p.find_first_not_of('0');
      p = first == std::string_view::npos ? std::string_view() : p.substr(first);
      if (p.empty() || !IsDigit(p[0])) {
        std::string padded = "0";
        padded += p;
        parts.push_back(std::move(padded));
        continue;
      }
    }
    parts.emplace_back(p);
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return InvalidArgumentError("short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parts[0] + "." + parts[1] + "." + parts[2];
}

}  // namespace

int PreReleaseId::Compare(const PreReleaseId& other) const {
  if (is_numeric != other.is_numeric) return is_numeric ? -1 : 1;
  if (is_numeric) {
    if (number == other.number) return 0;
    return number > other.number ? 1 : -1;
  }
  int c = text.compare(other.text);
  return c == 0 ? 0 : (c > 0 ? 1 : -1);
}

std::string PreReleaseId::String() const { return is_numeric ? std::to_string(number) : text; }

StatusOr<SemVer> SemVer::Parse(std::string_view text, bool normalize) {
  if (!normalize) return ParseStrict(text);
  DRA_ASSIGN_OR_RETURN(std::string normalized, Normalize(text));
  return ParseStrict(normalized);
}

bool SemVer::IsValid(std::string_view text, bool normalize) { return Parse(text, normalize).ok(); }

StatusOr<SemVer> SemVer::ParseStrict(std::string_view s) {
  if (s.empty()) return InvalidArgumentError("Version string empty");
  std::vector<std::string_view> parts = SplitN(s, '.', 3);
  if (parts.size() != 3) return InvalidArgumentError("No Major.Minor.Patch elements found");

  DRA_ASSIGN_OR_RETURN(uint64_t major, ParseNumber(parts[0], "major", "Major"));
  DRA_ASSIGN_OR_RETURN(uint64_t minor, ParseNumber(parts[1], "minor", "Minor"));

  // The first '+' starts the build metadata, then the first '-' before it
  // starts the pre-release; so "1.2.3-a+b-c" has pre-release "a", build "b-c".
  std::string_view patch_str = parts[2];
  std::vector<std::string_view> build, pre;
  bool has_build = false, has_pre = false;
  if (size_t i = patch_str.find('+'); i != std::string_view::npos) {
    build = Split(patch_str.substr(i + 1), '.');
    has_build = true;
    patch_str = patch_str.substr(0, i);
  }
  if (size_t i = patch_str.find('-'); i != std::string_view::npos) {
    pre = Split(patch_str.substr(i + 1), '.');
    has_pre = true;
    patch_str = patch_str.substr(0, i);
  }
  DRA_ASSIGN_OR_RETURN(uint64_t patch, ParseNumber(patch_str, "patch", "Patch"));

  std::vector<PreReleaseId> pre_ids;
  if (has_pre) {
    for (std::string_view p : pre) {
      DRA_ASSIGN_OR_RETURN(PreReleaseId id, ParsePreRelease(p));
      pre_ids.push_back(std::move(id));
    }
  }
  std::vector<std::string> build_ids;
  if (has_build) {
    for (std::string_view b : build) {
      if (b.empty()) return InvalidArgumentError("Build meta data is empty");
      if (!AllAlnumOrHyphen(b)) {
        return InvalidArgumentError("Invalid character(s) found in build meta data " + GoQuote(b));
      }
      build_ids.emplace_back(b);
    }
  }
  SemVer v;
  v.major_ = major;
  v.minor_ = minor;
  v.patch_ = patch;
  v.pre_ = std::move(pre_ids);
  v.build_ = std::move(build_ids);
  return v;
}

int SemVer::Compare(const SemVer& o) const {
  auto cmp = [](uint64_t a, uint64_t b) { return a == b ? 0 : (a > b ? 1 : -1); };
  if (int c = cmp(major_, o.major_); c != 0) return c;
  if (int c = cmp(minor_, o.minor_); c != 0) return c;
  if (int c = cmp(patch_, o.patch_); c != 0) return c;
  if (pre_.empty() && o.pre_.empty()) return 0;
  if (pre_.empty()) return 1;
  if (o.pre_.empty()) return -1;
  size_t i = 0;
  for (; i < pre_.size() && i < o.pre_.size(); ++i) {
    if (int c = pre_[i].Compare(o.pre_[i]); c != 0) return c;
  }
  if (i == pre_.size() && i == o.pre_.size()) return 0;
  return i == pre_.size() ? -1 : 1;
}

bool SemVer::IdenticalTo(const SemVer& o) const {
  return major_ == o.major_ && minor_ == o.minor_ && patch_ == o.patch_ && pre_ == o.pre_ && build_ == o.build_;
}

std::string SemVer::String() const {
  std::string out = std::to_string(major_) + "." + std::to_string(minor_) + "." + std::to_string(patch_);
  for (size_t i = 0; i < pre_.size(); ++i) {
    out.push_back(i == 0 ? '-' : '.');
    out += pre_[i].String();
  }
  for (size_t i = 0; i < build_.size(); ++i) {
    out.push_back(i == 0 ? '+' : '.');
    out += build_[i];
  }
  return out;
}

}  // namespace dra::cel::lib
