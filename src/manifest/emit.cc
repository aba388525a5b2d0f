#include "manifest/emit.h"

#include <algorithm>
#include <numeric>

#include "base/json_escape.h"
#include "fmt/format.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

bool LooksTyped(std::string_view s);

void AppendDoubleQuoted(std::string_view s, std::string& out) {
  out.push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02X}", c);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

void AppendYamlScalarText(std::string_view s, std::string& out) {
  if (IsPlainSafe(s)) {
    out.append(s);
  } else {
    AppendDoubleQuoted(s, out);
  }
}

void AppendScalar(const Node& n, std::string& out) {
  switch (n.kind) {
    case NodeKind::kNull: out += "null"; break;
    case NodeKind::kBool: out += n.bool_value ? "true" : "false"; break;
    case NodeKind::kInt: out += n.text; break;
    case NodeKind::kFloat:
      if (n.text == "+Inf") {
        out += ".inf";
      } else if (n.text == "-Inf") {
        out += "-.inf";
      } else if (n.text == "NaN") {
        out += ".nan";
      } else {
        out += n.text;
      }
      break;
    case NodeKind::kString: AppendYamlScalarText(n.text, out); break;
    default: break;
  }
}

std::vector<size_t> KeyOrder(const Node& n, bool sort) {
  std::vector<size_t> order(n.keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (sort) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return n.keys[a].first < n.keys[b].first; });
  }
  return order;
}

bool IsEmptyContainer(const Node& n) {
  return (n.is_mapping() || n.is_sequence()) && n.items.empty();
}

void EmitYamlNode(const Node& n, int indent, const EmitOptions& opt, std::string& out);

// Writes the value that follows "key:" or "- ".
void EmitYamlValueAfterKey(const Node& v, int indent, const EmitOptions& opt, std::string& out) {
  if (v.is_scalar()) {
    out.push_back(' ');
    AppendScalar(v, out);
    out.push_back('\n');
  } else if (IsEmptyContainer(v)) {
    out += v.is_mapping() ? " {}\n" : " []\n";
  } else if (v.is_mapping()) {
    out.push_back('\n');
    EmitYamlNode(v, indent + 2, opt, out);
  } else {
    // Sequences under a key are not indented further (kubectl style).
    out.push_back('\n');
    EmitYamlNode(v, indent, opt, out);
  }
}

void EmitYamlNode(const Node& n, int indent, const EmitOptions& opt, std::string& out) {
  std::string pad(static_cast<size_t>(indent), ' ');
  if (n.is_mapping()) {
    for (size_t i : KeyOrder(n, opt.sort_keys)) {
      out += pad;
      AppendYamlScalarText(n.keys[i].first, out);
      out.push_back(':');
      EmitYamlValueAfterKey(n.items[i], indent, opt, out);
    }
  } else if (n.is_sequence()) {
    for (const Node& item : n.items) {
      out += pad;
      out.push_back('-');
      if (item.is_mapping() && !item.items.empty()) {
        // First key on the dash line, the rest aligned under it.
        std::string nested;
        EmitYamlNode(item, indent + 2, opt, nested);
        out.push_back(' ');
        out.append(nested, static_cast<size_t>(indent) + 2, std::string::npos);
      } else if (item.is_sequence() && !item.items.empty()) {
        std::string nested;
        EmitYamlNode(item, indent + 2, opt, nested);
        out.push_back(' ');
        out.append(nested, static_cast<size_t>(indent) + 2, std::string::npos);
      } else {
        EmitYamlValueAfterKey(item, indent + 2, opt, out);
      }
    }
  }
}

void EmitJsonNode(const Node& n, int indent, int level, std::string& out) {
  auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out.push_back('\n');
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  switch (n.kind) {
    case NodeKind::kNull: out += "null"; return;
    case NodeKind::kBool: out += n.bool_value ? "true" : "false"; return;
    case NodeKind::kInt: out += n.text; return;
    case NodeKind::kFloat:
      if (n.text == "+Inf" || n.text == "-Inf" || n.text == "NaN") {
        AppendJsonString(n.text, out);  // not representable as a JSON number
      } else if (!n.text.empty() && (n.text[0] == '+' || n.text[0] == '.')) {
        // YAML allows "+1.5" and ".5"; JSON does not.
        std::string_view t = n.text;
        if (t[0] == '+') t.remove_prefix(1);
        if (!t.empty() && t[0] == '.') out.push_back('0');
        out.append(t);
      } else {
        out += n.text;
      }
      return;
    case NodeKind::kString: AppendJsonString(n.text, out); return;
    case NodeKind::kSequence:
      if (n.items.empty()) {
        out += "[]";
        return;
      }
      out.push_back('[');
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i) out.push_back(',');
        newline(level + 1);
        EmitJsonNode(n.items[i], indent, level + 1, out);
      }
      newline(level);
      out.push_back(']');
      return;
    case NodeKind::kMapping:
      if (n.items.empty()) {
        out += "{}";
        return;
      }
      out.push_back('{');
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i) out.push_back(',');
        newline(level + 1);
        AppendJsonString(n.keys[i].first, out);
        out += indent > 0 ? ": " : ":";
        EmitJsonNode(n.items[i], indent, level + 1, out);
      }
      newline(level);
      out.push_back('}');
      return;
  }
}

// True if a plain scalar `s` would be read back as something other than a string.
bool LooksTyped(std::string_view s) {
  if (s == "<<" || s == "=") return true;
  return ResolvePlainScalar(std::string(s)).kind != NodeKind::kString;
}

}  // namespace

bool IsPlainSafe(std::string_view s) {
  if (s.empty()) return false;
  if (LooksTyped(s)) return false;
  unsigned char first = static_cast<unsigned char>(s.front());
  if (std::string_view("-?:,[]{}#&*!|>'\"%@` ").find(static_cast<char>(first)) != std::string_view::npos) {
    return false;
  }
  if (s.back() == ' ' || s.back() == ':') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return false;
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
    // Flow indicators are harmless in block context but confuse readers of
    // flow-style output; quote them.
    if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',') return false;
  }
  // Document markers.
  if (s.starts_with("---") || s.starts_with("...")) return false;
  return true;
}

std::string EmitYaml(const Node& root, const EmitOptions& options) {
  std::string out;
  if (root.is_scalar()) {
    AppendScalar(root, out);
    out.push_back('\n');
  } else if (IsEmptyContainer(root)) {
    out += root.is_mapping() ? "{}\n" : "[]\n";
  } else {
    EmitYamlNode(root, 0, options, out);
  }
  return out;
}

std::string EmitYamlDocuments(const std::vector<Node>& roots, const EmitOptions& options) {
  std::string out;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (i) out += "---\n";
    out += EmitYaml(roots[i], options);
  }
  return out;
}

std::string EmitJson(const Node& root, int indent) {
  std::string out;
  EmitJsonNode(root, indent, 0, out);
  out.push_back('\n');
  return out;
}

}  // namespace dra::manifest
