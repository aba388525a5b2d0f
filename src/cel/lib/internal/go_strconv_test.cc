#include "cel/lib/internal/go_strconv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace dra::cel::lib::internal {
namespace {

TEST(GoStrconvTest, QuotesLikeStrconvQuote) {
  struct Case {
    std::string_view in;
    std::string_view want;
  };
  const std::vector<Case> cases = {
      {"", R"("")"},
      {"abc", R"("abc")"},
      {"a\"b\\c", R"("a\"b\\c")"},
      {std::string_view("\n\t\a\0\x7f", 5), R"("\n\t\a\x00\x7f")"},
      {"\x01\x1b", R"("\x01\x1b")"},
      {"h\u00e9llo \u65e5\u672c \U0001F600", "\"h\u00e9llo \u65e5\u672c \U0001F600\""},
      // Not printable for Go: spaces other than U+0020, format characters,
      // private use, unassigned code points.
      {"\u00a0\u00ad\u2028\ufeff\u200b", R"("\u00a0\u00ad\u2028\ufeff\u200b")"},
      {"\u0085", R"("\u0085")"},
      {"\ue000", R"("\ue000")"},
      {"\u0378", R"("\u0378")"},
      {"\U000E0001", R"("\U000e0001")"},
      {"\U0010FFFF", R"("\U0010ffff")"},
      // Invalid UTF-8: each bad byte as \x.
      {"\xff", R"("\xff")"},
      {"a\xe2\x82", R"("a\xe2\x82")"},
      {"\xed\xa0\x80", R"("\xed\xa0\x80")"},          // a surrogate
      {"\xc0\xaf", R"("\xc0\xaf")"},                  // overlong
      {"\xf4\x90\x80\x80", R"("\xf4\x90\x80\x80")"},  // above U+10FFFF
  };
  for (const Case& c : cases) EXPECT_EQ(GoQuote(c.in), c.want) << c.want;
}

TEST(GoStrconvTest, IsPrintFollowsUnicode15) {
  EXPECT_TRUE(GoIsPrint(' '));
  EXPECT_FALSE(GoIsPrint('\t'));
  EXPECT_FALSE(GoIsPrint(0x7f));
  EXPECT_TRUE(GoIsPrint(0xe9));     // é
  EXPECT_FALSE(GoIsPrint(0xa0));    // no-break space
  EXPECT_FALSE(GoIsPrint(0x378));   // unassigned
  EXPECT_TRUE(GoIsPrint(0x37a));    // ͺ
  EXPECT_TRUE(GoIsPrint(0x1f600));  // 😀
  EXPECT_TRUE(GoIsPrint(0xe0100));  // variation selector 17 (Mn)
  EXPECT_FALSE(GoIsPrint(0xe01f0));
  EXPECT_FALSE(GoIsPrint(0x10ffff));
  EXPECT_FALSE(GoIsPrint(0x110000));
}

TEST(GoStrconvTest, DecodesRunesLikeUtf8DecodeRune) {
  DecodedRune r = DecodeRune("\xc3\xa9x", 0);
  EXPECT_EQ(r.rune, 0xe9u);
  EXPECT_EQ(r.width, 2u);
  EXPECT_TRUE(r.valid);
  r = DecodeRune("\xc3", 0);
  EXPECT_EQ(r.rune, 0xfffdu);
  EXPECT_EQ(r.width, 1u);
  EXPECT_FALSE(r.valid);
  r = DecodeRune("\xef\xbf\xbd", 0);  // a real U+FFFD is valid
  EXPECT_EQ(r.rune, 0xfffdu);
  EXPECT_EQ(r.width, 3u);
  EXPECT_TRUE(r.valid);
}

TEST(GoStrconvTest, AppendsRunes) {
  std::string out;
  AppendRune(0xc3, out);
  AppendRune(0x1f600, out);
  AppendRune(0xd800, out);  // surrogate -> U+FFFD
  EXPECT_EQ(out, "\u00c3\U0001F600\ufffd");
}

TEST(GoStrconvTest, FormatsFloatsLikeStrconvG) {
  struct Case {
    double in;
    std::string_view want;
  };
  const std::vector<Case> cases = {
      {0.0, "0"},
      {-0.0, "-0"},
      {1.0, "1"},
      {0.1, "0.1"},
      {100.0, "100"},
      {123456.7, "123456.7"},
      {1e6, "1e+06"},
      {1234567.0, "1.234567e+06"},
      {1e21, "1e+21"},
      {1e-4, "0.0001"},
      {1e-5, "1e-05"},
      {0.00012345, "0.00012345"},
      {-3.25, "-3.25"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
  };
  for (const Case& c : cases) EXPECT_EQ(GoFormatFloatShortest(c.in), c.want) << c.want;
}

TEST(GoStrconvTest, FormatsFixedLikeSprintfF) {
  EXPECT_EQ(GoFormatFloatFixed(3.14, 6), "3.140000");
  EXPECT_EQ(GoFormatFloatFixed(-2.5, 0), "-2");
  EXPECT_EQ(GoFormatFloatFixed(0.125, 2), "0.12");  // exact binary value, ties to even
  EXPECT_EQ(GoFormatFloatFixed(std::numeric_limits<double>::quiet_NaN(), 6), "NaN");
  EXPECT_EQ(GoFormatFloatFixed(std::numeric_limits<double>::infinity(), 6), "+Inf");
  EXPECT_EQ(GoFormatFloatFixed(-std::numeric_limits<double>::infinity(), 6), "-Inf");
}

TEST(GoStrconvTest, ProducesNormalizedDigits) {
  FloatDigits d = GoFloatDigits(1234.5, DigitsMode::kFixed, 2);
  EXPECT_EQ(d.digits, "12345");
  EXPECT_EQ(d.point, 4);
  d = GoFloatDigits(0.05, DigitsMode::kFixed, 1);  // "0.1"
  EXPECT_EQ(d.digits, "1");
  EXPECT_EQ(d.point, 0);
  d = GoFloatDigits(-1052.032911275, DigitsMode::kSignificant, 7);
  EXPECT_EQ(d.digits, "1052033");
  EXPECT_EQ(d.point, 4);
  d = GoFloatDigits(0.0, DigitsMode::kShortest, 0);
  EXPECT_EQ(d.digits, "");
  EXPECT_EQ(d.point, 0);
  d = GoFloatDigits(0.00012, DigitsMode::kShortest, 0);
  EXPECT_EQ(d.digits, "12");
  EXPECT_EQ(d.point, -3);
}

TEST(GoStrconvTest, ParsesUintWithGoErrors) {
  std::string error;
  EXPECT_EQ(GoParseUint64("18446744073709551615", error), UINT64_MAX);
  EXPECT_FALSE(GoParseUint64("18446744073709551616", error).has_value());
  EXPECT_EQ(error, R"(strconv.ParseUint: parsing "18446744073709551616": value out of range)");
  EXPECT_FALSE(GoParseUint64("", error).has_value());
  EXPECT_EQ(error, R"(strconv.ParseUint: parsing "": invalid syntax)");
  EXPECT_FALSE(GoParseUint64("1x", error).has_value());
  EXPECT_EQ(error, R"(strconv.ParseUint: parsing "1x": invalid syntax)");
}

}  // namespace
}  // namespace dra::cel::lib::internal
