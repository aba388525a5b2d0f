#include "manifest/internal/raw_json.h"

#include <vector>

#include "base/json_escape.h"
#include "manifest/json_parser.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <system_error>

namespace dra::manifest::internal {
namespace {

bool IsDigitIn(char c, int base) {
  if (base == 16) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  return c >= '0' && c < static_cast<char>('0' + base);
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&]() {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

}  // namespace

std::optional<int64_t> ParseIntegerText(std::string_view text) {
  std::string digits;
  bool negative = false;
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  int base = 10;
  if (text.size() - i > 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
    base = 16;
    i += 2;
  } else if (text.size() - i > 2 && text[i] == '0' && (text[i + 1] == 'o' || text[i + 1] == 'O')) {
    base = 8;
    i += 2;
  } else if (text.size() - i > 2 && text[i] == '0' && (text[i + 1] == 'b' || text[i + 1] == 'B')) {
    base = 2;
    i += 2;
  } else if (text.size() - i > 1 && text[i] == '0') {
    base = 8;  // YAML 1.1 octal: 017
    i += 1;
  }
  for (; i < text.size(); ++i) {
    if (text[i] == '_') continue;
    if (!IsDigitIn(text[i], base)) return std::nullopt;
    digits.push_back(text[i]);
  }
  if (digits.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMaxPositive + 1) return std::nullopt;
    if (magnitude == kMaxPositive + 1) return std::numeric_limits<int64_t>::min();
    return -static_cast<int64_t>(magnitude);
  }
  if (magnitude > kMaxPositive) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

std::optional<std::string> JsonNumberText(const Node& node) {
  if (IsJsonNumber(node.text)) return node.text;
  if (node.kind == NodeKind::kInt) {
    if (std::optional<int64_t> v = ParseIntegerText(node.text)) return std::to_string(*v);
  }
  // A float JSON cannot spell as written (".5", "1.", "+1.5", "1_000.5"):
  // reformat the value, as the YAML-to-JSON step of kubectl does.
  std::string cleaned;
  for (char c : node.text) {
    if (c != '_') cleaned.push_back(c);
  }
  if (cleaned.empty() || cleaned.find_first_not_of("+-.eE0123456789") != std::string::npos) {
    return std::nullopt;
  }
  char* end = nullptr;
  double v = std::strtod(cleaned.c_str(), &end);
  if (end != cleaned.c_str() + cleaned.size() || !std::isfinite(v)) return std::nullopt;
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return std::nullopt;
  std::string out(buf, ptr);
  if (!IsJsonNumber(out)) return std::nullopt;  // e.g. "1e+20": to_chars writes "1e+20", valid
  return out;
}

bool AppendCompactJson(const Node& node, std::string* out, const Node** bad) {
  switch (node.kind) {
    case NodeKind::kNull: out->append("null"); return true;
    case NodeKind::kBool: out->append(node.bool_value ? "true" : "false"); return true;
    case NodeKind::kInt:
    case NodeKind::kFloat: {
      std::optional<std::string> number = JsonNumberText(node);
      if (!number) {
        *bad = &node;
        return false;
      }
      out->append(*number);
      return true;
    }
    case NodeKind::kString: AppendJsonString(node.text, *out); return true;
    case NodeKind::kSequence: {
      out->push_back('[');
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        if (!AppendCompactJson(node.items[i], out, bad)) return false;
      }
      out->push_back(']');
      return true;
    }
    case NodeKind::kMapping: {
      out->push_back('{');
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(node.keys[i].first, *out);
        out->push_back(':');
        if (!AppendCompactJson(node.items[i], out, bad)) return false;
      }
      out->push_back('}');
      return true;
    }
  }
  return true;
}

StatusOr<Node> ParseJsonText(std::string_view text) {
  DRA_ASSIGN_OR_RETURN(std::vector<Document> docs, ParseJson(text, "<json>"));
  if (docs.size() != 1) return InvalidArgumentError("expected exactly one JSON value");
  return std::move(docs[0].root);
}

}  // namespace dra::manifest::internal
