#include "cel/lib/semver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace dra::cel::lib {
namespace {

// ---------------------------------------------------------------------------
// Parsing: the upstream Kubernetes TestSemver table, blang/semver's format and
// wrong-format tables, and Kubernetes' normalizeAndParse.

struct ParseCase {
  std::string_view name;
  std::string_view in;
  bool normalize = false;
  std::string_view want = {};        // String(), when the parse succeeds
  std::string_view want_error = {};  // exact message, when it fails
};

const std::vector<ParseCase>& ParseCases() {
  static const std::vector<ParseCase> cases = {
      // Kubernetes TestSemver.
      {.name = "parse", .in = "1.2.3", .want = "1.2.3"},
      {.name = "parse_invalid_version", .in = "v1.0", .want_error = "No Major.Minor.Patch elements found"},
      {.name = "prerelease_and_build", .in = "1.2.3-beta.1+build.1", .want = "1.2.3-beta.1+build.1"},
      {.name = "empty", .in = "", .want_error = "Version string empty"},
      {.name = "v_prefix", .in = "v1.0.0", .want_error = "Invalid character(s) found in major number \"v1\""},
      {.name = "leading_whitespace", .in = " 1.0.0", .want_error = "Invalid character(s) found in major number \" 1\""},
      {.name = "inner_whitespace", .in = "1. 0.0", .want_error = "Invalid character(s) found in minor number \" 0\""},
      {.name = "trailing_whitespace",
       .in = "1.0.0 ",
       .want_error = "Invalid character(s) found in patch number \"0 \""},
      {.name = "leading_zeros", .in = "01.01.01", .want_error = "Major number must not contain leading zeroes \"01\""},
      {.name = "major_only", .in = "1", .want_error = "No Major.Minor.Patch elements found"},
      {.name = "major_minor_only", .in = "1.1", .want_error = "No Major.Minor.Patch elements found"},
      // blang formatTests.
      {.name = "zero_patch", .in = "0.0.1", .want = "0.0.1"},
      {.name = "alpha_preview_build", .in = "0.0.1-alpha.preview+123.456", .want = "0.0.1-alpha.preview+123.456"},
      {.name = "numeric_prerelease", .in = "1.2.3-alpha.1+123.456", .want = "1.2.3-alpha.1+123.456"},
      {.name = "hyphens_in_identifiers", .in = "1.2.3-alpha.b-eta+123.b-uild", .want = "1.2.3-alpha.b-eta+123.b-uild"},
      {.name = "build_only", .in = "1.2.3+123.b-uild", .want = "1.2.3+123.b-uild"},
      // '+' is found first, then '-' before it.
      {.name = "hyphen_after_plus_is_build", .in = "1.2.3-a+b-c", .want = "1.2.3-a+b-c"},
      {.name = "hyphen_in_prerelease", .in = "1.2.3-a-b", .want = "1.2.3-a-b"},
      {.name = "prerelease_zero", .in = "1.0.0-0", .want = "1.0.0-0"},
      {.name = "prerelease_zero_alnum", .in = "1.0.0-0a", .want = "1.0.0-0a"},
      {.name = "max_uint64", .in = "18446744073709551615.0.0", .want = "18446744073709551615.0.0"},
      // blang wrongformatTests, with blang's messages.
      {.name = "dot", .in = ".", .want_error = "No Major.Minor.Patch elements found"},
      {.name = "one_dot", .in = "1.", .want_error = "No Major.Minor.Patch elements found"},
      {.name = "dot_one", .in = ".1", .want_error = "No Major.Minor.Patch elements found"},
      {.name = "letters", .in = "a.b.c", .want_error = "Invalid character(s) found in major number \"a\""},
      {.name = "letter_minor", .in = "1.a.b", .want_error = "Invalid character(s) found in minor number \"a\""},
      {.name = "letter_patch", .in = "1.1.a", .want_error = "Invalid character(s) found in patch number \"a\""},
      {.name = "empty_major", .in = "..", .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "empty_minor", .in = "1..1", .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "empty_patch", .in = "1.1.", .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "build_without_patch",
       .in = "1.1.+123",
       .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "prerelease_without_patch",
       .in = "1.1.-beta",
       .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "negative_major", .in = "-1.1.1", .want_error = "Invalid character(s) found in major number \"-1\""},
      {.name = "negative_minor", .in = "1.-1.1", .want_error = "Invalid character(s) found in minor number \"-1\""},
      {.name = "giant_major",
       .in = "20000000000000000000.1.1",
       .want_error = "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"},
      {.name = "giant_patch",
       .in = "1.1.20000000000000000000",
       .want_error = "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"},
      {.name = "giant_prerelease",
       .in = "1.1.1-20000000000000000000",
       .want_error = "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"},
      {.name = "leading_zero_minor",
       .in = "1.01.1",
       .want_error = "Minor number must not contain leading zeroes \"01\""},
      {.name = "leading_zero_patch",
       .in = "1.1.001",
       .want_error = "Patch number must not contain leading zeroes \"001\""},
      {.name = "leading_zero_prerelease",
       .in = "1.1.1-beta.01",
       .want_error = "Numeric PreRelease version must not contain leading zeroes \"01\""},
      {.name = "bad_prerelease_char", .in = "0.0.0-!", .want_error = "Invalid character(s) found in prerelease \"!\""},
      {.name = "bad_build_char", .in = "0.0.0+!", .want_error = "Invalid character(s) found in build meta data \"!\""},
      {.name = "non_ascii_build",
       .in = "1.0.0+\xc3\xa9",
       .want_error = "Invalid character(s) found in build meta data \"\xc3\xa9\""},
      {.name = "empty_prerelease", .in = "0.0.0-.alpha", .want_error = "Prerelease is empty"},
      {.name = "empty_build", .in = "0.0.0-alpha+", .want_error = "Build meta data is empty"},
      {.name = "empty_last_build", .in = "0.0.0-alpha+test.", .want_error = "Build meta data is empty"},
      {.name = "four_parts", .in = "1.2.3.4", .want_error = "Invalid character(s) found in patch number \"3.4\""},
      // Kubernetes normalizeAndParse (semver(s, true)).
      {.name = "normalize_plain", .in = "1.2.3", .normalize = true, .want = "1.2.3"},
      {.name = "normalize_v_prefix", .in = "v1.0.0", .normalize = true, .want = "1.0.0"},
      {.name = "normalize_leading_zeros", .in = "01.01.01", .normalize = true, .want = "1.1.1"},
      {.name = "normalize_major_only", .in = "1", .normalize = true, .want = "1.0.0"},
      {.name = "normalize_major_minor", .in = "1.1", .normalize = true, .want = "1.1.0"},
      {.name = "normalize_v_and_short", .in = "v01.01", .normalize = true, .want = "1.1.0"},
      {.name = "normalize_patch_zeros", .in = "1.2.00", .normalize = true, .want = "1.2.0"},
      {.name = "normalize_all_zeros", .in = "000.0.03", .normalize = true, .want = "0.0.3"},
      {.name = "normalize_keeps_prerelease", .in = "1.2.0-alpha", .normalize = true, .want = "1.2.0-alpha"},
      {.name = "normalize_zero_patch_with_prerelease", .in = "1.2.03-beta", .normalize = true, .want = "1.2.3-beta"},
      // Only one lowercase 'v' goes; what is left gets a "0" put in front,
      // since it does not start with a digit.
      {.name = "normalize_only_one_v",
       .in = "vv1.0.0",
       .normalize = true,
       .want_error = "Invalid character(s) found in major number \"0v1\""},
      {.name = "normalize_capital_v",
       .in = "V1.0.0",
       .normalize = true,
       .want_error = "Invalid character(s) found in major number \"0V1\""},
      {.name = "normalize_empty",
       .in = "",
       .normalize = true,
       .want_error = "strconv.ParseUint: parsing \"\": invalid syntax"},
      {.name = "normalize_short_with_build",
       .in = "1.0+abc",
       .normalize = true,
       .want_error = "short version cannot contain PreRelease/Build meta data"},
      {.name = "normalize_short_with_prerelease",
       .in = "1-beta",
       .normalize = true,
       .want_error = "short version cannot contain PreRelease/Build meta data"},
      {.name = "normalize_prerelease_in_minor",
       .in = "1.0-rc.1",
       .normalize = true,
       .want_error = "Invalid character(s) found in minor number \"0-rc\""},
      // Unlike blang's ParseTolerant, whitespace is never trimmed.
      {.name = "normalize_leading_whitespace",
       .in = " 1.0.0",
       .normalize = true,
       .want_error = "Invalid character(s) found in major number \"0 1\""},
      {.name = "normalize_inner_whitespace",
       .in = "1. 0.0",
       .normalize = true,
       .want_error = "Invalid character(s) found in minor number \"0 0\""},
      {.name = "normalize_trailing_whitespace",
       .in = "1.0.0 ",
       .normalize = true,
       .want_error = "Invalid character(s) found in patch number \"0 \""},
      {.name = "normalize_tab",
       .in = "\t1.2.3 ",
       .normalize = true,
       .want_error = "Invalid character(s) found in major number \"0\\t1\""},
  };
  return cases;
}

void PrintTo(const ParseCase& c, std::ostream* os) { *os << c.name; }

class ParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(ParseTest, ParsesOrFailsWithBlangMessage) {
  const ParseCase& c = GetParam();
  StatusOr<SemVer> v = SemVer::Parse(c.in, c.normalize);
  if (c.want_error.empty()) {
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->String(), c.want);
    EXPECT_TRUE(SemVer::IsValid(c.in, c.normalize));
  } else {
    ASSERT_FALSE(v.ok()) << "parsed as " << v->String();
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(v.status().message(), c.want_error);
    EXPECT_FALSE(SemVer::IsValid(c.in, c.normalize));
  }
}

INSTANTIATE_TEST_SUITE_P(SemVerTest, ParseTest, testing::ValuesIn(ParseCases()),
                         [](const testing::TestParamInfo<ParseCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(SemVerTest, ExposesParts) {
  StatusOr<SemVer> v = SemVer::Parse("1.2.3-alpha.7+build.5");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->major(), 1u);
  EXPECT_EQ(v->minor(), 2u);
  EXPECT_EQ(v->patch(), 3u);
  ASSERT_EQ(v->pre_release().size(), 2u);
  EXPECT_EQ(v->pre_release()[0], (PreReleaseId{.is_numeric = false, .number = 0, .text = "alpha"}));
  EXPECT_EQ(v->pre_release()[1], (PreReleaseId{.is_numeric = true, .number = 7, .text = ""}));
  EXPECT_EQ(v->build(), (std::vector<std::string>{"build", "5"}));
  EXPECT_EQ(v->CelMajor(), 1);
  EXPECT_EQ(v->CelMinor(), 2);
  EXPECT_EQ(v->CelPatch(), 3);
}

TEST(SemVerTest, CelAccessorsWrapLikeGoIntConversion) {
  StatusOr<SemVer> v = SemVer::Parse("18446744073709551615.9223372036854775808.0");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->CelMajor(), -1);
  EXPECT_EQ(v->CelMinor(), INT64_MIN);
}

// ---------------------------------------------------------------------------
// Ordering: SemVer 2.0 precedence as blang implements it.

TEST(SemVerTest, OrdersBySemVerPrecedence) {
  // Each strictly precedes the next (semver.org section 11 plus blang's cases).
  const std::vector<std::string_view> ascending = {"1.0.0-1",       "1.0.0-A",
                                                   "1.0.0-a-b",     "1.0.0-alpha",
                                                   "1.0.0-alpha.1", "1.0.0-alpha.beta",
                                                   "1.0.0-beta",    "1.0.0-beta.2",
                                                   "1.0.0-beta.11", "1.0.0-rc.1",
                                                   "1.0.0",         "1.2.3",
                                                   "2.0.0",         "2.1.0",
                                                   "2.1.1",         "18446744073709551615.0.0"};
  for (size_t i = 0; i < ascending.size(); ++i) {
    for (size_t j = 0; j < ascending.size(); ++j) {
      SemVer a = *SemVer::Parse(ascending[i]);
      SemVer b = *SemVer::Parse(ascending[j]);
      int want = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(a.Compare(b), want) << ascending[i] << " vs " << ascending[j];
      EXPECT_EQ(a.IsLessThan(b), want < 0) << ascending[i] << " vs " << ascending[j];
      EXPECT_EQ(a.IsGreaterThan(b), want > 0) << ascending[i] << " vs " << ascending[j];
      EXPECT_EQ(a == b, want == 0) << ascending[i] << " vs " << ascending[j];
    }
  }
}

TEST(SemVerTest, EqualityIgnoresBuildMetadata) {
  SemVer a = *SemVer::Parse("1.0.0+a");
  SemVer b = *SemVer::Parse("1.0.0+b");
  SemVer c = *SemVer::Parse("1.0.0");
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == c);
  EXPECT_EQ(a.Compare(b), 0);
  EXPECT_FALSE(a.IdenticalTo(b));
  EXPECT_TRUE(a.IdenticalTo(*SemVer::Parse("1.0.0+a")));
}

TEST(SemVerTest, NormalizedAndStrictFormsCompareEqual) {
  // Kubernetes: semver("v01.01", true) == semver("1.1.0").
  EXPECT_TRUE(*SemVer::Parse("v01.01", true) == *SemVer::Parse("1.1.0"));
  EXPECT_EQ(SemVer::Parse("1.0.0")->Compare(*SemVer::Parse("1.2.3")), -1);
  EXPECT_EQ(SemVer::Parse("1.2.3")->Compare(*SemVer::Parse("1.0.0")), 1);
  EXPECT_EQ(SemVer::Parse("1.2.3")->Compare(*SemVer::Parse("1.2.3")), 0);
}

TEST(SemVerTest, DefaultIsZero) {
  EXPECT_EQ(SemVer().String(), "0.0.0");
  EXPECT_TRUE(SemVer() == *SemVer::Parse("0.0.0"));
}

}  // namespace
}  // namespace dra::cel::lib
