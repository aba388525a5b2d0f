#include "manifest/node.h"

#include <utility>

namespace dra::manifest {

std::string_view NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBool: return "boolean";
    case NodeKind::kInt: return "integer";
    case NodeKind::kFloat: return "number";
    case NodeKind::kString: return "string";
    case NodeKind::kSequence: return "list";
    case NodeKind::kMapping: return "object";
  }
  return "unknown";
}

const Node* Node::Find(std::string_view key) const {
  if (kind != NodeKind::kMapping) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].first == key) return &items[i];
  }
  return nullptr;
}

Node* Node::Find(std::string_view key) { return const_cast<Node*>(std::as_const(*this).Find(key)); }

bool Node::Erase(std::string_view key) {
  if (kind != NodeKind::kMapping) return false;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].first != key) continue;
    keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

Node Node::Bool(bool v) {
  Node n;
  n.kind = NodeKind::kBool;
  n.bool_value = v;
  return n;
}

Node Node::Int(int64_t v) {
  Node n;
  n.kind = NodeKind::kInt;
  n.text = std::to_string(v);
  return n;
}

Node Node::Number(std::string text, NodeKind kind) {
  Node n;
  n.kind = kind;
  n.text = std::move(text);
  return n;
}

Node Node::String(std::string v) {
  Node n;
  n.kind = NodeKind::kString;
  n.text = std::move(v);
  return n;
}

Node Node::QuotedString(std::string v) {
  Node n = String(std::move(v));
  n.style = NodeStyle::kDoubleQuoted;
  return n;
}

Node Node::Sequence() {
  Node n;
  n.kind = NodeKind::kSequence;
  return n;
}

Node Node::Mapping() {
  Node n;
  n.kind = NodeKind::kMapping;
  return n;
}

Node Node::FlowMapping() {
  Node n = Mapping();
  n.style = NodeStyle::kFlow;
  return n;
}

void Node::Add(std::string key, Node value) {
  keys.emplace_back(std::move(key), Mark{});
  items.push_back(std::move(value));
}

void Node::Push(Node value) { items.push_back(std::move(value)); }

bool operator==(const Node& a, const Node& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case NodeKind::kNull: return true;
    case NodeKind::kBool: return a.bool_value == b.bool_value;
    case NodeKind::kInt:
    case NodeKind::kFloat:
    case NodeKind::kString: return a.text == b.text;
    case NodeKind::kSequence: return a.items == b.items;
    case NodeKind::kMapping:
      if (a.keys.size() != b.keys.size()) return false;
      for (size_t i = 0; i < a.keys.size(); ++i) {
        if (a.keys[i].first != b.keys[i].first) return false;
      }
      return a.items == b.items;
  }
  return false;
}

}  // namespace dra::manifest
