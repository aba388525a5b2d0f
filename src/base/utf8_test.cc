#include "base/utf8.h"

#include <gtest/gtest.h>

namespace dra {
namespace {

TEST(Utf8Test, AcceptsValidText) {
  EXPECT_EQ(FindInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("plain ascii text, longer than eight bytes"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);
}

TEST(Utf8Test, ReportsOffsetOfFirstBadSequence) {
  EXPECT_EQ(FindInvalidUtf8("abc\xFFxyz"), 3u);
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0u);             // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("ok\xED\xA0\x80"), 2u);       // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0u);     // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("abcdefghij\xE2\x82"), 10u);  // truncated at end
  EXPECT_EQ(FindInvalidUtf8("\xE0\x80\x80"), 0u);         // overlong 3-byte
}

TEST(Utf8Test, EncodesAndCounts) {
  std::string out;
  AppendUtf8(0x41, out);
  AppendUtf8(0xFC, out);
  AppendUtf8(0x20AC, out);
  AppendUtf8(0x1F600, out);
  EXPECT_EQ(out, "A\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(CountCodePoints(out), 4u);
}

}  // namespace
}  // namespace dra
