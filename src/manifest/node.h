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

struct Node {
  NodeKind kind = NodeKind::kNull;
  bool bool_value = false;  // kBool
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
  static Node Sequence();
  static Node Mapping();
  // kMapping: appends `key: value`.
  void Add(std::string key, Node value);
  // kSequence: appends `value`.
  void Push(Node value);

  friend bool operator==(const Node& a, const Node& b);  // ignores marks
};

// One document of a source file.
struct Document {
  Node root;
  Mark mark;  // where the document starts
};

}  // namespace dra::manifest
