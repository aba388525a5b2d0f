#include "manifest/yaml_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace dra::manifest {
namespace {

Node ParseOne(std::string_view text) {
  auto docs = ParseYaml(text, "t.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  if (!docs.ok() || docs->empty()) return Node{};
  return (*docs)[0].root;
}

struct ScalarCase {
  std::string name;
  std::string yaml;
  NodeKind kind;
  std::string text;
  bool bool_value = false;
};

TEST(YamlParserTest, TypesScalarsAsGoYamlV2) {
  const ScalarCase cases[] = {
      {.name = "plain_string", .yaml = "v: hello", .kind = NodeKind::kString, .text = "hello"},
      {.name = "quoted_number", .yaml = "v: \"12\"", .kind = NodeKind::kString, .text = "12"},
      {.name = "single_quoted", .yaml = "v: 'it''s'", .kind = NodeKind::kString, .text = "it's"},
      {.name = "int", .yaml = "v: 42", .kind = NodeKind::kInt, .text = "42"},
      {.name = "negative_int", .yaml = "v: -7", .kind = NodeKind::kInt, .text = "-7"},
      {.name = "plus_int", .yaml = "v: +7", .kind = NodeKind::kInt, .text = "7"},
      {.name = "hex_int", .yaml = "v: 0x1F", .kind = NodeKind::kInt, .text = "31"},
      {.name = "octal_int", .yaml = "v: 0755", .kind = NodeKind::kInt, .text = "493"},
      {.name = "underscore_int", .yaml = "v: 1_000", .kind = NodeKind::kInt, .text = "1000"},
      {.name = "float", .yaml = "v: 1.5", .kind = NodeKind::kFloat, .text = "1.5"},
      {.name = "exp_float", .yaml = "v: 1e3", .kind = NodeKind::kFloat, .text = "1e3"},
      {.name = "inf", .yaml = "v: .inf", .kind = NodeKind::kFloat, .text = "+Inf"},
      {.name = "huge_int_is_float",
       .yaml = "v: 99999999999999999999",
       .kind = NodeKind::kFloat,
       .text = "99999999999999999999"},
      {.name = "quantity_stays_string", .yaml = "v: 80Gi", .kind = NodeKind::kString, .text = "80Gi"},
      {.name = "version_stays_string", .yaml = "v: 1.2.3", .kind = NodeKind::kString, .text = "1.2.3"},
      {.name = "true", .yaml = "v: true", .kind = NodeKind::kBool, .text = "true", .bool_value = true},
      {.name = "yes", .yaml = "v: yes", .kind = NodeKind::kBool, .text = "yes", .bool_value = true},
      {.name = "Off", .yaml = "v: Off", .kind = NodeKind::kBool, .text = "Off", .bool_value = false},
      {.name = "y", .yaml = "v: y", .kind = NodeKind::kBool, .text = "y", .bool_value = true},
      {.name = "tilde_null", .yaml = "v: ~", .kind = NodeKind::kNull, .text = ""},
      {.name = "empty_null", .yaml = "v:", .kind = NodeKind::kNull, .text = ""},
      {.name = "str_tag", .yaml = "v: !!str 12", .kind = NodeKind::kString, .text = "12"},
      {.name = "literal_block", .yaml = "v: |\n  a\n  b\n", .kind = NodeKind::kString, .text = "a\nb\n"},
      {.name = "escapes", .yaml = "v: \"a\\tb\\u00fc\"", .kind = NodeKind::kString, .text = "a\tb\xC3\xBC"},
  };
  for (const auto& c : cases) {
    Node root = ParseOne(c.yaml);
    const Node* v = root.Find("v");
    ASSERT_NE(v, nullptr) << c.name;
    EXPECT_EQ(v->kind, c.kind) << c.name;
    EXPECT_EQ(v->text, c.text) << c.name;
    if (c.kind == NodeKind::kBool) {
      EXPECT_EQ(v->bool_value, c.bool_value) << c.name;
    }
  }
}

TEST(YamlParserTest, RecordsLineAndColumn) {
  Node root = ParseOne("a: 1\nb:\n  - x\n  - {c: d}\n");
  const Node* b = root.Find("b");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->items.size(), 2u);
  EXPECT_EQ(b->items[0].mark, (Mark{3, 5}));
  EXPECT_EQ(b->items[1].Find("c")->mark, (Mark{4, 9}));
  EXPECT_EQ(root.keys[1].second, (Mark{2, 1}));
}

TEST(YamlParserTest, SplitsDocuments) {
  auto docs = ParseYaml("a: 1\n---\nb: 2\n---\n", "t.yaml");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[1].mark.line, 2u);
  EXPECT_TRUE((*docs)[2].root.is_null());
}

TEST(YamlParserTest, ExpandsAliasesAndMergeKeys) {
  Node root = ParseOne("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\ncopy: *b\n");
  const Node* d = root.Find("d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->Find("x")->text, "1");
  EXPECT_EQ(d->Find("y")->text, "3");
  EXPECT_EQ(root.Find("copy")->Find("y")->text, "2");
}

struct ErrorCase {
  std::string name;
  std::string yaml;
  std::string want;  // substring
  StatusCode code = StatusCode::kInvalidArgument;
};

TEST(YamlParserTest, RejectsBadInputWithLocation) {
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += "[";
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    bomb += std::string(1, c) + ": &" + std::string(1, c) + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  const ErrorCase cases[] = {
      {.name = "duplicate_key",
       .yaml = "a: 1\nb: 2\na: 3\n",
       .want = "t.yaml:3:1: duplicate key \"a\" (first at line 1:1)"},
      {.name = "bad_indent", .yaml = "a:\n  b: 1\n c: 2\n", .want = "t.yaml:3:"},
      {.name = "unclosed_flow", .yaml = "a: [1, 2\n", .want = "t.yaml:"},
      {.name = "invalid_utf8", .yaml = "a: \"x\xFFy\"\n", .want = "t.yaml:1:6: invalid UTF-8 (byte 0xFF)"},
      {.name = "nul_byte", .yaml = std::string("a: x\0y\n", 7), .want = "NUL byte"},
      {.name = "unknown_alias", .yaml = "a: *nope\n", .want = "unknown anchor 'nope'"},
      {.name = "complex_key", .yaml = "? [a, b]\n: c\n", .want = "mapping key must be a string"},
      {.name = "too_deep",
       .yaml = deep,
       .want = "nesting deeper than 512 levels",
       .code = StatusCode::kResourceExhausted},
      {.name = "alias_bomb",
       .yaml = bomb,
       .want = "aliases expand to more than",
       .code = StatusCode::kResourceExhausted},
      {.name = "tab_indent", .yaml = "a:\n\tb: 1\n", .want = "t.yaml:2:"},
  };
  for (const auto& c : cases) {
    auto docs = ParseYaml(c.yaml, "t.yaml");
    ASSERT_FALSE(docs.ok()) << c.name;
    EXPECT_EQ(docs.status().code(), c.code) << c.name;
    EXPECT_NE(docs.status().message().find(c.want), std::string::npos) << c.name << ": " << docs.status().message();
  }
}

}  // namespace
}  // namespace dra::manifest
