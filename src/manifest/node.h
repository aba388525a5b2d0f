// A parsed YAML or JSON document as a tree of nodes, each with its source
// location. Both parsers (yaml_parser.h, json_parser.h) produce it; decode.h
// turns it into api objects and encode.h builds it from them; emit.h prints it.
//
// Scalars are typed the way Kubernetes' YAML-to-JSON step types them (plain
// YAML scalars resolved as YAML 1.1 / go-yaml v2 does: `true`, `yes`, `~`, `12`,
// `1.5`; quoted scalars are always strings), so a decoder sees the same types
// whether the input was YAML or JSON. Numbers keep their source text so that
// quantities and int64s are read exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dra::manifest {

// 1-based line and column of a node's first character (0 = unknown).
struct Mark {
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const Mark&, const Mark&) = default;
};

enum class NodeKind : uint8_t {
  kNull,
  kBool,
  kInt,    // integer literal; `text` holds it (e.g. "-12", "0x1F" is a string in JSON)
  kFloat,  // other number; `text` holds it (e.g. "1.5", "1e3", ".inf")
  kString,
  kSequence,
  kMapping,
};

std::string_view NodeKindName(NodeKind kind);

// How emit.h's YAML emitter prints a node; the JSON emitter ignores it. The
// parsers and encode.h leave it kAuto (kubectl's printing); a writer that
// must keep a layout of its own (`dractl gen`) asks for the others.
enum class NodeStyle : uint8_t {
  kAuto,
  // A string in double quotes, escaped as a JSON string literal
  // (base/json_escape.h, DEL as \u007f; invalid UTF-8 as U+FFFD, and the
  // characters YAML forbids or reads as line breaks, U+0080-U+009F, U+2028,
  // U+2029, U+FEFF, U+FFFE and U+FFFF, as \uXXXX), on one line, never
  // folded. Ignored on other kinds.
  kDoubleQuoted,
  // A mapping or sequence in flow style on one line: `{a: 1, b: "x"}`,
  // `[a, b]`; what it holds is in flow style too, strings plain where that
  // reads back as the same string, else as kDoubleQuoted. Ignored on a scalar.
  kFlow,
};

struct Node {
  NodeKind kind = NodeKind::kNull;
  bool bool_value = false;             // kBool
  NodeStyle style = NodeStyle::kAuto;  // in the padding before `mark`
  Mark mark;
  std::string text;                                // kInt, kFloat, kString: value text (unescaped for strings);
                                                   // kBool from YAML: the source spelling ("Y", "on"), else empty
  std::vector<Node> items;                         // kSequence: elements; kMapping: values
  std::vector<std::pair<std::string, Mark>> keys;  // kMapping: keys, parallel to items

  bool is_null() const { return kind == NodeKind::kNull; }
  bool is_scalar() const { return kind != NodeKind::kSequence && kind != NodeKind::kMapping; }
  bool is_mapping() const { return kind == NodeKind::kMapping; }
  bool is_sequence() const { return kind == NodeKind::kSequence; }

  // kMapping: the value for `key`, or nullptr. Linear scan (maps are small);
  // the parsers reject duplicate keys, so the first match is the only one.
  const Node* Find(std::string_view key) const;
  Node* Find(std::string_view key);
  // kMapping: removes `key` and its value, keeping the order of the others;
  // false if there is no such key (or this is not a mapping).
  bool Erase(std::string_view key);

  // Builders, used by encode and tests.
  static Node Null() { return Node{}; }
  static Node Bool(bool v);
  static Node Int(int64_t v);
  static Node Number(std::string text, NodeKind kind);  // kInt or kFloat
  static Node String(std::string v);
  static Node QuotedString(std::string v);  // kString, NodeStyle::kDoubleQuoted
  static Node Sequence();
  static Node Mapping();
  static Node FlowMapping();  // kMapping, NodeStyle::kFlow
  // kMapping: appends `key: value`.
  void Add(std::string key, Node value);
  // kSequence: appends `value`.
  void Push(Node value);

  friend bool operator==(const Node& a, const Node& b);  // ignores marks and styles
};

// A style costs no memory (a cluster of 500k devices holds millions of
// nodes): kind, bool_value and style share the word before `mark`.
static_assert(sizeof(Node) ==
              16 + sizeof(std::string) + sizeof(std::vector<Node>) + sizeof(std::vector<std::pair<std::string, Mark>>));

// One document of a source file.
struct Document {
  Node root;
  Mark mark;  // where the document starts
};

}  // namespace dra::manifest
