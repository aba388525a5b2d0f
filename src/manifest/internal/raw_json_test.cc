#include "manifest/internal/raw_json.h"

#include <gtest/gtest.h>

namespace dra::manifest::internal {
namespace {

TEST(RawJsonTest, ParsesIntegerTextAsYamlAndJsonWriteIt) {
  struct Case {
    std::string text;
    std::optional<int64_t> want;
  };
  std::vector<Case> cases = {
      {"0", 0},
      {"-0", 0},
      {"42", 42},
      {"+42", 42},
      {"-17", -17},
      {"0x1F", 31},
      {"0o17", 15},
      {"017", 15},
      {"0b101", 5},
      {"1_000", 1000},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"9223372036854775808", std::nullopt},
      {"1.5", std::nullopt},
      {"08", std::nullopt},
      {"", std::nullopt},
      {"-", std::nullopt},
      {"0x", std::nullopt},
      {"12a", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseIntegerText(c.text), c.want) << c.text;
}

TEST(RawJsonTest, NumbersBecomeJsonNumbers) {
  struct Case {
    std::string text;
    NodeKind kind;
    std::optional<std::string> want;
  };
  std::vector<Case> cases = {
      {"12", NodeKind::kInt, "12"},
      {"-1.5e3", NodeKind::kFloat, "-1.5e3"},
      {"0x1F", NodeKind::kInt, "31"},
      {"+5", NodeKind::kInt, "5"},
      {".5", NodeKind::kFloat, "0.5"},
      {"1.", NodeKind::kFloat, "1"},
      {"+1.5", NodeKind::kFloat, "1.5"},
      {"1_000.5", NodeKind::kFloat, "1000.5"},
      {"+Inf", NodeKind::kFloat, std::nullopt},
      {".nan", NodeKind::kFloat, std::nullopt},
      {"NaN", NodeKind::kFloat, std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(JsonNumberText(Node::Number(c.text, c.kind)), c.want) << c.text;
}

TEST(RawJsonTest, CompactJsonRoundTrips) {
  Node n = Node::Mapping();
  n.Add("s", Node::String("a\"b\\c\n\t\x01é"));
  n.Add("i", Node::Int(-3));
  n.Add("f", Node::Number("2.5", NodeKind::kFloat));
  n.Add("b", Node::Bool(false));
  n.Add("z", Node::Null());
  Node list = Node::Sequence();
  list.Push(Node::Mapping());
  list.Push(Node::Sequence());
  n.Add("l", list);
  std::string json;
  const Node* bad = nullptr;
  ASSERT_TRUE(AppendCompactJson(n, &json, &bad));
  EXPECT_EQ(json, R"({"s":"a\"b\\c\n\t\u0001é","i":-3,"f":2.5,"b":false,"z":null,"l":[{},[]]})");
  StatusOr<Node> back = ParseJsonText(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, n);
  std::string again;
  ASSERT_TRUE(AppendCompactJson(*back, &again, &bad));
  EXPECT_EQ(again, json);
}

TEST(RawJsonTest, ReportsNumbersJsonCannotHold) {
  Node n = Node::Sequence();
  n.Push(Node::Int(1));
  n.Push(Node::Number("+Inf", NodeKind::kFloat));
  std::string json;
  const Node* bad = nullptr;
  EXPECT_FALSE(AppendCompactJson(n, &json, &bad));
  EXPECT_EQ(bad, &n.items[1]);
}

TEST(RawJsonTest, ParsesJsonEscapesAndRejectsGarbage) {
  StatusOr<Node> n = ParseJsonText(R"( {"a" : ["\u00e9\ud83d\ude00\/", 1e2, -0.5] } )");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->Find("a")->items[0].text, "é😀/");
  EXPECT_EQ(n->Find("a")->items[1].kind, NodeKind::kFloat);
  for (std::string_view bad : {"", "{", "[1,]", "{\"a\"}", "01", "\"x", "nul", "[1] 2", "\"\t\""}) {
    EXPECT_EQ(ParseJsonText(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace dra::manifest::internal
