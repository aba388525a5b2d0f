#include "manifest/json_parser.h"

#include <gtest/gtest.h>

namespace dra::manifest {
namespace {

TEST(JsonParserTest, ParsesValuesWithMarks) {
  auto docs = ParseJson(
      "{\n  \"a\": [1, -2.5e3, \"x\\u00e9\\ud83d\\ude00\"],\n  \"b\": {\"c\": null, \"d\": true}\n}\n", "t.json");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 1u);
  const Node& root = (*docs)[0].root;
  const Node* a = root.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 3u);
  EXPECT_EQ(a->items[0].kind, NodeKind::kInt);
  EXPECT_EQ(a->items[1].kind, NodeKind::kFloat);
  EXPECT_EQ(a->items[1].text, "-2.5e3");
  EXPECT_EQ(a->items[2].text, "x\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(a->items[1].mark, (Mark{2, 12}));
  EXPECT_TRUE(root.Find("b")->Find("c")->is_null());
  EXPECT_TRUE(root.Find("b")->Find("d")->bool_value);
  EXPECT_EQ(root.keys[1].second, (Mark{3, 3}));
}

TEST(JsonParserTest, AcceptsAStreamOfValues) {
  auto docs = ParseJson("{\"a\":1}\n{\"b\":2} []", "t.json");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(docs->size(), 3u);
}

TEST(JsonParserTest, HandlesDeepButAllowedNesting) {
  std::string s(500, '[');
  s += std::string(500, ']');
  auto docs = ParseJson(s, "t.json");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
}

struct ErrorCase {
  std::string name;
  std::string json;
  std::string want;
};

TEST(JsonParserTest, RejectsBadInputWithLocation) {
  const ErrorCase cases[] = {
      {.name = "empty", .json = "  \n", .want = "no JSON value"},
      {.name = "trailing_comma", .json = "{\"a\": 1,}", .want = "t.json:1:9: JSON: expected a string key, found '}'"},
      {.name = "missing_colon", .json = "{\"a\" 1}", .want = "expected ':' after key"},
      {.name = "duplicate",
       .json = "{\"a\": 1,\n \"a\": 2}",
       .want = "t.json:2:2: JSON: duplicate key \"a\" (first at line 1:2)"},
      {.name = "leading_zero", .json = "[01]", .want = "leading zero"},
      {.name = "bad_escape", .json = "[\"\\q\"]", .want = "invalid escape"},
      {.name = "control_char", .json = "[\"a\tb\"]", .want = "must be escaped"},
      {.name = "invalid_utf8", .json = "[\"a\xC0\xAF\"]", .want = "invalid UTF-8"},
      {.name = "unterminated", .json = "[\"abc", .want = "unterminated string"},
      {.name = "truncated", .json = "{\"a\": [1, 2", .want = "unexpected end of input"},
      {.name = "bare_word", .json = "[nul]", .want = "unexpected 'n'"},
      {.name = "too_deep", .json = std::string(600, '['), .want = "nesting deeper than 512"},
      {.name = "single_quotes", .json = "{'a': 1}", .want = "expected a string key"},
      {.name = "nan", .json = "[NaN]", .want = "unexpected 'N'"},
  };
  for (const auto& c : cases) {
    auto docs = ParseJson(c.json, "t.json");
    ASSERT_FALSE(docs.ok()) << c.name;
    EXPECT_NE(docs.status().message().find(c.want), std::string::npos) << c.name << ": " << docs.status().message();
  }
}

}  // namespace
}  // namespace dra::manifest
