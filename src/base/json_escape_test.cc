#include "base/json_escape.h"

#include <gtest/gtest.h>

namespace dra {
namespace {

constexpr JsonEscapeOptions kCelTyped{.short_backspace_formfeed = false, .escape_del = true};

TEST(JsonEscapeTest, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString("gpu.nvidia.com/a100"), "\"gpu.nvidia.com/a100\"");                          // '/' as is
  EXPECT_EQ(JsonString("gr\xC3\xBC\xC3\x9F \xE2\x82\xAC"), "\"gr\xC3\xBC\xC3\x9F \xE2\x82\xAC\"");  // UTF-8 as is
  EXPECT_EQ(JsonString("\xFF"), "\"\xFF\"");  // not checked for UTF-8
}

TEST(JsonEscapeTest, QuoteBackslashAndShortEscapes) {
  EXPECT_EQ(JsonString("say \"hi\""), R"("say \"hi\"")");
  EXPECT_EQ(JsonString("a\\b"), R"("a\\b")");
  EXPECT_EQ(JsonString("1\n2\r3\t4"), R"("1\n2\r3\t4")");
  EXPECT_EQ(JsonString("\b\f"), R"("\b\f")");
}

TEST(JsonEscapeTest, OtherControlBytesAsLowercaseU00XX) {
  EXPECT_EQ(JsonString(std::string_view("\0", 1)), R"("\u0000")");
  EXPECT_EQ(JsonString("\x01\x1b\x1f"), R"("\u0001\u001b\u001f")");
  EXPECT_EQ(JsonString("\x7f"), "\"\x7f\"");  // DEL as is by default
  EXPECT_EQ(JsonString(" ~"), "\" ~\"");
}

TEST(JsonEscapeTest, OptionsOfTypedCelValues) {
  EXPECT_EQ(JsonString("\b\f", kCelTyped), R"("\u0008\u000c")");
  EXPECT_EQ(JsonString("\x7f", kCelTyped), R"("\u007f")");
  EXPECT_EQ(JsonString("\"\\\n\r\t\x1f", kCelTyped), R"("\"\\\n\r\t\u001f")");
}

TEST(JsonEscapeTest, AppendsToWhatIsThere) {
  std::string out = "{\"k\": ";
  AppendJsonString("v\n", out);
  EXPECT_EQ(out, "{\"k\": \"v\\n\"");
}

}  // namespace
}  // namespace dra
