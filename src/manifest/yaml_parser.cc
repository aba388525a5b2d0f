#include "manifest/yaml_parser.h"

#include <yaml.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/utf8.h"
#include "fmt/format.h"
#include "manifest/limits.h"

namespace dra::manifest {
namespace {

// Line and column (1-based) of byte `offset` in `text`.
Mark MarkAtOffset(std::string_view text, size_t offset) {
  Mark m{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++m.line;
      m.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++m.column;
    }
  }
  return m;
}

Status ErrorAt(std::string_view file, Mark mark, std::string_view what,
               StatusCode code = StatusCode::kInvalidArgument) {
  return Status(code, fmt::format("{}:{}:{}: {}", file, mark.line, mark.column, what));
}

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (s == o) return true;
  }
  return false;
}

// Parses an integer the way Go's strconv.ParseInt(s, 0, 64) does after go-yaml
// removed underscores. Returns false if `s` is not such an integer.
bool ParseGoInt(std::string_view s, int64_t* out) {
  std::string digits;
  digits.reserve(s.size());
  for (char c : s) {
    if (c != '_') digits.push_back(c);
  }
  std::string_view d = digits;
  bool negative = false;
  if (!d.empty() && (d[0] == '+' || d[0] == '-')) {
    negative = d[0] == '-';
    d.remove_prefix(1);
  }
  if (d.empty()) return false;
  int base = 10;
  if (d.size() > 1 && d[0] == '0') {
    char p = d[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      d.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      d.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      d.remove_prefix(2);
    } else {
      base = 8;
      d.remove_prefix(1);
    }
    if (d.empty()) return false;
  }
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), magnitude, base);
  if (ec != std::errc() || ptr != d.data() + d.size()) return false;
  if (negative) {
    if (magnitude > uint64_t{1} << 63) return false;
    *out = magnitude == (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

// go-yaml v2's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsYamlFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  auto digits = [&]() {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Types a plain (unquoted, untagged) scalar as go-yaml v2 does.
Node ResolvePlain(std::string text) {
  std::string_view s = text;
  if (IsOneOf(s, {"", "~", "null", "Null", "NULL"})) return Node::Null();
  // Booleans keep their source text, so a decoder that finds one where a
  // string belongs (`{string: Y}`) can read the intended string and warn.
  if (IsOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) {
    Node n = Node::Bool(true);
    n.text = std::move(text);
    return n;
  }
  if (IsOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
    Node n = Node::Bool(false);
    n.text = std::move(text);
    return n;
  }
  if (IsOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    return Node::Number("+Inf", NodeKind::kFloat);
  }
  if (IsOneOf(s, {"-.inf", "-.Inf", "-.INF"})) return Node::Number("-Inf", NodeKind::kFloat);
  if (IsOneOf(s, {".nan", ".NaN", ".NAN"})) return Node::Number("NaN", NodeKind::kFloat);
  char c = s.front();
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    int64_t v = 0;
    if (ParseGoInt(s, &v)) return Node::Int(v);
    std::string plain;
    for (char ch : s) {
      if (ch != '_') plain.push_back(ch);
    }
    if (IsYamlFloat(plain)) return Node::Number(std::move(plain), NodeKind::kFloat);
  }
  return Node::String(std::move(text));
}

struct Frame {
  Node node;
  // Mapping frames: the key read, waiting for its value.
  bool has_key = false;
  bool key_is_merge = false;
  std::string key;
  Mark key_mark;
  std::string anchor;
  std::vector<Node> merges;  // values of `<<` keys, applied at the end
  std::unique_ptr<std::unordered_map<std::string, Mark>> key_index;
};

class YamlBuilder {
 public:
  // `first_line`: the line of `text`'s first byte in its file (a document
  // parsed again from the middle of its file).
  YamlBuilder(std::string_view text, std::string_view file, uint32_t first_line = 1)
      : text_(text), file_(file), line_offset_(first_line - 1) {}
  ~YamlBuilder() {
    if (initialized_) yaml_parser_delete(&parser_);
  }

  Status Run(const DocumentFn& on_document) {
    if (text_.size() > kMaxInputBytes) {
      return ErrorAt(file_, Mark{1, 1},
                     fmt::format("input is {} bytes, over the limit of {} bytes", text_.size(), kMaxInputBytes),
                     StatusCode::kResourceExhausted);
    }
    if (auto bad = FindInvalidUtf8(text_)) {
      return ErrorAt(file_, MarkAtOffset(text_, *bad),
                     fmt::format("invalid UTF-8 (byte 0x{:02X})", static_cast<unsigned char>(text_[*bad])));
    }
    if (text_.find('\0') != std::string_view::npos) {
      return ErrorAt(file_, MarkAtOffset(text_, text_.find('\0')), "NUL byte in YAML input");
    }
    if (!yaml_parser_initialize(&parser_)) return InternalError("cannot initialise libyaml");
    initialized_ = true;
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text_.data()), text_.size());
    size_t documents = 0;
    size_t begin = 0;
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return ParserError();
      EventGuard guard{&event};
      switch (event.type) {
        case YAML_STREAM_END_EVENT: return OkStatus();
        case YAML_DOCUMENT_START_EVENT:
          if (documents >= kMaxDocuments) {
            return ErrorAt(file_, ToMark(event.start_mark), fmt::format("more than {} documents", kMaxDocuments),
                           StatusCode::kResourceExhausted);
          }
          doc_ = Document{};
          doc_.mark = ToMark(event.start_mark);
          begin = LineStart(doc_.mark.line);
          anchors_.clear();
          expanded_ = 0;
          have_root_ = false;
          break;
        case YAML_DOCUMENT_END_EVENT:
          ++documents;
          anchors_.clear();
          if (!on_document(doc_, begin)) return OkStatus();
          doc_ = Document{};
          break;
        case YAML_SCALAR_EVENT: {
          DRA_RETURN_IF_ERROR(OnScalar(event));
          break;
        }
        case YAML_ALIAS_EVENT: {
          DRA_RETURN_IF_ERROR(OnAlias(event));
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
          DRA_RETURN_IF_ERROR(OnStart(event));
          break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
          DRA_RETURN_IF_ERROR(OnEnd());
          break;
        }
        default: break;
      }
    }
  }

 private:
  struct EventGuard {
    yaml_event_t* event;
    ~EventGuard() { yaml_event_delete(event); }
  };

  Mark ToMark(const yaml_mark_t& m) const {
    return Mark{static_cast<uint32_t>(m.line + 1 + line_offset_), static_cast<uint32_t>(m.column + 1)};
  }

  // Byte offset of the start of line `line` (1-based, counting '\n' as
  // MarkAtOffset does; documents come in line order, so the scan goes on
  // from where the last one stopped); npos past the last line.
  size_t LineStart(uint32_t line) {
    while (scan_line_ < line) {
      const size_t nl = text_.find('\n', scan_offset_);
      if (nl == std::string_view::npos) return std::string_view::npos;
      scan_offset_ = nl + 1;
      ++scan_line_;
    }
    return scan_offset_;
  }

  Status ParserError() {
    Mark mark = ToMark(parser_.problem_mark);
    std::string what = parser_.problem ? parser_.problem : "syntax error";
    if (parser_.context) {
      what += fmt::format(" ({} at line {})", parser_.context, parser_.context_mark.line + 1 + line_offset_);
    }
    return ErrorAt(file_, mark, "YAML: " + what);
  }

  static std::string AnchorOf(const unsigned char* anchor) {
    return anchor ? std::string(reinterpret_cast<const char*>(anchor)) : std::string();
  }

  Status OnScalar(const yaml_event_t& event) {
    const auto& sc = event.data.scalar;
    std::string value(reinterpret_cast<const char*>(sc.value), sc.length);
    Mark mark = ToMark(event.start_mark);
    std::string_view tag = sc.tag ? reinterpret_cast<const char*>(sc.tag) : "";
    bool plain = sc.style == YAML_PLAIN_SCALAR_STYLE;
    if (!stack_.empty() && stack_.back().node.is_mapping() && !stack_.back().has_key) {
      Frame& f = stack_.back();
      f.has_key = true;
      f.key_is_merge = plain && tag.empty() && value == "<<";
      f.key = std::move(value);
      f.key_mark = mark;
      return OkStatus();
    }
    Node node;
    if (tag == "tag:yaml.org,2002:str") {
      node = Node::String(std::move(value));
    } else if (tag == "tag:yaml.org,2002:null") {
      node = Node::Null();
    } else if (!tag.empty() && tag != "!") {
      // !!int, !!bool, !!float and unknown tags: type by content, as go-yaml does.
      node = ResolvePlain(std::move(value));
    } else if (plain && tag.empty()) {
      node = ResolvePlain(std::move(value));
    } else {
      node = Node::String(std::move(value));
    }
    node.mark = mark;
    return Attach(std::move(node), AnchorOf(sc.anchor));
  }

  Status OnAlias(const yaml_event_t& event) {
    std::string name = AnchorOf(event.data.alias.anchor);
    Mark mark = ToMark(event.start_mark);
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      return ErrorAt(file_, mark, fmt::format("YAML: unknown anchor '{}' referenced", name));
    }
    size_t size = CountNodes(it->second);
    expanded_ += size;
    if (expanded_ > kMaxAliasExpansion) {
      return ErrorAt(file_, mark, fmt::format("YAML: aliases expand to more than {} nodes", kMaxAliasExpansion),
                     StatusCode::kResourceExhausted);
    }
    if (!stack_.empty() && stack_.back().node.is_mapping() && !stack_.back().has_key) {
      if (!it->second.is_scalar() || it->second.is_null()) {
        return ErrorAt(file_, mark, "YAML: mapping key must be a string");
      }
      Frame& f = stack_.back();
      f.has_key = true;
      f.key_is_merge = false;
      f.key = it->second.kind == NodeKind::kBool ? (it->second.bool_value ? "true" : "false") : it->second.text;
      f.key_mark = mark;
      return OkStatus();
    }
    Node copy = it->second;
    return Attach(std::move(copy), std::string());
  }

  Status OnStart(const yaml_event_t& event) {
    Mark mark = ToMark(event.start_mark);
    if (!stack_.empty() && stack_.back().node.is_mapping() && !stack_.back().has_key) {
      return ErrorAt(file_, mark, "YAML: mapping key must be a string, not a list or mapping");
    }
    if (stack_.size() >= kMaxDepth) {
      return ErrorAt(file_, mark, fmt::format("nesting deeper than {} levels", kMaxDepth),
                     StatusCode::kResourceExhausted);
    }
    Frame f;
    bool mapping = event.type == YAML_MAPPING_START_EVENT;
    f.node = mapping ? Node::Mapping() : Node::Sequence();
    f.node.mark = mark;
    f.anchor = AnchorOf(mapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor);
    stack_.push_back(std::move(f));
    return OkStatus();
  }

  Status OnEnd() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.node.is_mapping()) {
      // Merge keys: explicit keys win; earlier merge sources win over later ones.
      for (const Node& source : f.merges) {
        std::vector<const Node*> maps;
        if (source.is_mapping()) {
          maps.push_back(&source);
        } else {
          for (const Node& item : source.items) maps.push_back(&item);
        }
        for (const Node* m : maps) {
          for (size_t i = 0; i < m->keys.size(); ++i) {
            if (f.node.Find(m->keys[i].first) == nullptr) {
              f.node.keys.push_back(m->keys[i]);
              f.node.items.push_back(m->items[i]);
            }
          }
        }
      }
    }
    return Attach(std::move(f.node), std::move(f.anchor));
  }

  static size_t CountNodes(const Node& n) {
    size_t count = 1;
    std::vector<const Node*> todo{&n};
    while (!todo.empty()) {
      const Node* cur = todo.back();
      todo.pop_back();
      count += cur->items.size();
      for (const Node& child : cur->items) {
        if (!child.items.empty()) todo.push_back(&child);
      }
    }
    return count;
  }

  // Adds a finished node to its parent (or makes it the document root).
  Status Attach(Node node, std::string anchor) {
    if (!anchor.empty()) anchors_[anchor] = node;
    if (stack_.empty()) {
      doc_.root = std::move(node);
      have_root_ = true;
      return OkStatus();
    }
    Frame& parent = stack_.back();
    if (parent.node.is_sequence()) {
      parent.node.items.push_back(std::move(node));
      return OkStatus();
    }
    // Mapping value.
    parent.has_key = false;
    if (parent.key_is_merge) {
      bool ok = node.is_mapping();
      if (node.is_sequence()) {
        ok = true;
        for (const Node& item : node.items) ok = ok && item.is_mapping();
      }
      if (!ok) return ErrorAt(file_, node.mark, "YAML: map merge requires a mapping or a list of mappings");
      parent.merges.push_back(std::move(node));
      return OkStatus();
    }
    DRA_RETURN_IF_ERROR(CheckDuplicate(parent));
    parent.node.keys.emplace_back(std::move(parent.key), parent.key_mark);
    parent.node.items.push_back(std::move(node));
    return OkStatus();
  }

  Status CheckDuplicate(Frame& f) {
    auto& keys = f.node.keys;
    if (keys.size() < 16) {
      for (const auto& [k, m] : keys) {
        if (k == f.key) return DuplicateError(f, m);
      }
      return OkStatus();
    }
    if (!f.key_index) {
      f.key_index = std::make_unique<std::unordered_map<std::string, Mark>>();
      for (const auto& [k, m] : keys) f.key_index->emplace(k, m);
    }
    auto [it, inserted] = f.key_index->emplace(f.key, f.key_mark);
    if (!inserted) return DuplicateError(f, it->second);
    return OkStatus();
  }

  Status DuplicateError(const Frame& f, Mark first) {
    return ErrorAt(file_, f.key_mark,
                   fmt::format("duplicate key \"{}\" (first at line {}:{})", f.key, first.line, first.column));
  }

  std::string_view text_;
  std::string_view file_;
  uint32_t line_offset_ = 0;
  uint32_t scan_line_ = 1;  // LineStart's position: line scan_line_ starts at scan_offset_
  size_t scan_offset_ = 0;
  yaml_parser_t parser_{};
  bool initialized_ = false;
  std::vector<Frame> stack_;
  Document doc_;
  bool have_root_ = false;
  std::unordered_map<std::string, Node> anchors_;
  size_t expanded_ = 0;
};

}  // namespace

Node ResolvePlainScalar(std::string text) { return ResolvePlain(std::move(text)); }

StatusOr<std::vector<Document>> ParseYaml(std::string_view text, std::string_view file) {
  std::vector<Document> docs;
  YamlBuilder builder(text, file);
  DRA_RETURN_IF_ERROR(builder.Run([&](Document& doc, size_t) {
    docs.push_back(std::move(doc));
    return true;
  }));
  return docs;
}

Status ParseYamlStream(std::string_view text, std::string_view file, const DocumentFn& on_document) {
  YamlBuilder builder(text, file);
  return builder.Run(on_document);
}

StatusOr<Document> ParseYamlDocumentAt(std::string_view text, std::string_view file, uint32_t first_line) {
  std::optional<Document> first;
  YamlBuilder builder(text, file, first_line);
  DRA_RETURN_IF_ERROR(builder.Run([&](Document& doc, size_t) {
    first = std::move(doc);
    return false;
  }));
  if (!first) return Status(StatusCode::kNotFound, fmt::format("{}:{}: no YAML document", file, first_line));
  return *std::move(first);
}

}  // namespace dra::manifest
