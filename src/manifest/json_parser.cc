#include "manifest/json_parser.h"

#include <cstring>
#include <iterator>
#include <string>
#include <unordered_map>

#include "base/utf8.h"
#include "fmt/format.h"
#include "manifest/limits.h"

namespace dra::manifest {
namespace {

class JsonParser {
 public:
  JsonParser(std::string_view text, std::string_view file) : s_(text), file_(file) {}

  Status Run(const DocumentFn& on_document) {
    if (s_.size() > kMaxInputBytes) {
      return Error(fmt::format("input is {} bytes, over the limit of {} bytes", s_.size(), kMaxInputBytes),
                   StatusCode::kResourceExhausted);
    }
    size_t documents = 0;
    // A UTF-8 byte order mark is allowed at the very start.
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    SkipSpace();
    if (pos_ >= s_.size()) return Error("no JSON value in input");
    while (pos_ < s_.size()) {
      Document doc;
      doc.mark = MarkHere();
      const size_t begin = pos_;
      DRA_RETURN_IF_ERROR(ParseValue(&doc.root));
      ++documents;
      if (!on_document(doc, begin)) return OkStatus();
      SkipSpace();
      if (documents >= kMaxDocuments && pos_ < s_.size()) {
        return Error(fmt::format("more than {} documents", kMaxDocuments), StatusCode::kResourceExhausted);
      }
    }
    return OkStatus();
  }

  // The one value at `offset`; lines count from `first_line`.
  StatusOr<Node> RunAt(size_t offset, uint32_t first_line) {
    pos_ = offset;
    line_ = first_line;
    Node root;
    DRA_RETURN_IF_ERROR(ParseValue(&root));
    return root;
  }

 private:
  // An open container. Its children wait in the shared scratch stacks
  // (values_, keys_) from index values_start / keys_start on, and are moved
  // into an exactly-sized vector when the container closes: two allocations
  // per container instead of a growth series per child vector.
  struct Frame {
    Node node;  // kind and mark only while open
    size_t values_start = 0;
    size_t keys_start = 0;
    std::string key;  // objects: key of the value being parsed
    Mark key_mark;
    std::unique_ptr<std::unordered_map<std::string, Mark>> key_index;
  };

  Mark MarkHere() const { return Mark{line_, static_cast<uint32_t>(pos_ - line_start_ + 1)}; }

  Status Error(std::string_view what, StatusCode code = StatusCode::kInvalidArgument) const {
    // Columns count characters, not bytes.
    uint32_t column = 1;
    for (size_t i = line_start_; i < pos_ && i < s_.size(); ++i) {
      if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) ++column;
    }
    return Status(code, fmt::format("{}:{}:{}: JSON: {}", file_, line_, column, what));
  }

  std::string Describe() const {
    if (pos_ >= s_.size()) return "end of input";
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c >= 0x20 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02X}", c);
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
  }

  // Iterative value parser: containers push frames instead of recursing.
  Status ParseValue(Node* out) {
    std::vector<Frame> stack;
    while (true) {
      SkipSpace();
      Node value;
      bool have_value = false;
      if (pos_ >= s_.size()) return Error("unexpected end of input");
      char c = s_[pos_];
      Mark mark = MarkHere();
      if (c == '{' || c == '[') {
        if (stack.size() >= kMaxDepth) {
          return Error(fmt::format("nesting deeper than {} levels", kMaxDepth), StatusCode::kResourceExhausted);
        }
        ++pos_;
        Frame f;
        f.node = c == '{' ? Node::Mapping() : Node::Sequence();
        f.node.mark = mark;
        f.values_start = values_.size();
        f.keys_start = keys_.size();
        SkipSpace();
        char close = c == '{' ? '}' : ']';
        if (pos_ < s_.size() && s_[pos_] == close) {
          ++pos_;
          value = std::move(f.node);
          have_value = true;
        } else {
          if (c == '{') DRA_RETURN_IF_ERROR(ParseKey(&f));
          stack.push_back(std::move(f));
          continue;
        }
      } else {
        DRA_RETURN_IF_ERROR(ParseScalar(&value));
        value.mark = mark;
        have_value = true;
      }
      // Attach `value` and close every container that ends here.
      while (have_value) {
        if (stack.empty()) {
          *out = std::move(value);
          return OkStatus();
        }
        Frame& top = stack.back();
        if (top.node.is_mapping()) {
          DRA_RETURN_IF_ERROR(CheckDuplicate(top));
          keys_.emplace_back(std::move(top.key), top.key_mark);
        }
        values_.push_back(std::move(value));
        have_value = false;
        SkipSpace();
        if (pos_ >= s_.size()) return Error("unexpected end of input");
        char next = s_[pos_];
        char close = top.node.is_mapping() ? '}' : ']';
        if (next == ',') {
          ++pos_;
          if (top.node.is_mapping()) DRA_RETURN_IF_ERROR(ParseKey(&top));
        } else if (next == close) {
          ++pos_;
          auto first_value = values_.begin() + static_cast<std::ptrdiff_t>(top.values_start);
          top.node.items.assign(std::make_move_iterator(first_value), std::make_move_iterator(values_.end()));
          values_.erase(first_value, values_.end());
          auto first_key = keys_.begin() + static_cast<std::ptrdiff_t>(top.keys_start);
          top.node.keys.assign(std::make_move_iterator(first_key), std::make_move_iterator(keys_.end()));
          keys_.erase(first_key, keys_.end());
          value = std::move(top.node);
          stack.pop_back();
          have_value = true;
        } else {
          return Error(fmt::format("expected ',' or '{}', found {}", close, Describe()));
        }
      }
    }
  }

  Status ParseKey(Frame* f) {
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '"') {
      return Error(fmt::format("expected a string key, found {}", Describe()));
    }
    f->key_mark = MarkHere();
    f->key.clear();
    DRA_RETURN_IF_ERROR(ParseString(&f->key));
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != ':') {
      return Error(fmt::format("expected ':' after key, found {}", Describe()));
    }
    ++pos_;
    return OkStatus();
  }

  Status CheckDuplicate(Frame& f) {
    const size_t count = keys_.size() - f.keys_start;
    const Mark* first = nullptr;
    if (count < 16) {
      for (size_t i = f.keys_start; i < keys_.size(); ++i) {
        if (keys_[i].first == f.key) first = &keys_[i].second;
      }
    } else {
      if (!f.key_index) {
        f.key_index = std::make_unique<std::unordered_map<std::string, Mark>>();
        for (size_t i = f.keys_start; i < keys_.size(); ++i) f.key_index->emplace(keys_[i].first, keys_[i].second);
      }
      auto [it, inserted] = f.key_index->emplace(f.key, f.key_mark);
      if (!inserted) first = &it->second;
    }
    if (first == nullptr) return OkStatus();
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("{}:{}:{}: JSON: duplicate key \"{}\" (first at line {}:{})", file_, f.key_mark.line,
                              f.key_mark.column, f.key, first->line, first->column));
  }

  Status ParseScalar(Node* out) {
    char c = s_[pos_];
    if (c == '"') {
      std::string text;
      DRA_RETURN_IF_ERROR(ParseString(&text));
      *out = Node::String(std::move(text));
      return OkStatus();
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    auto literal = [&](std::string_view word) { return s_.compare(pos_, word.size(), word) == 0; };
    if (literal("true")) {
      pos_ += 4;
      *out = Node::Bool(true);
      return OkStatus();
    }
    if (literal("false")) {
      pos_ += 5;
      *out = Node::Bool(false);
      return OkStatus();
    }
    if (literal("null")) {
      pos_ += 4;
      *out = Node::Null();
      return OkStatus();
    }
    return Error(fmt::format("unexpected {}", Describe()));
  }

  Status ParseNumber(Node* out) {
    size_t start = pos_;
    bool is_int = true;
    if (s_[pos_] == '-') ++pos_;
    auto digit = [&]() { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; };
    if (!digit()) return Error("invalid number: expected a digit");
    if (s_[pos_] == '0') {
      ++pos_;
      if (digit()) return Error("invalid number: leading zero");
    } else {
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_int = false;
      ++pos_;
      if (!digit()) return Error("invalid number: expected a digit after '.'");
      while (digit()) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_int = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digit()) return Error("invalid number: expected a digit in the exponent");
      while (digit()) ++pos_;
    }
    *out = Node::Number(std::string(s_.substr(start, pos_ - start)), is_int ? NodeKind::kInt : NodeKind::kFloat);
    return OkStatus();
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  Status ParseHex4(uint32_t* out) {
    if (pos_ + 4 > s_.size()) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = HexValue(s_[pos_ + static_cast<size_t>(i)]);
      if (h < 0) return Error("invalid \\u escape");
      v = (v << 4) | static_cast<uint32_t>(h);
    }
    pos_ += 4;
    *out = v;
    return OkStatus();
  }

  // REQUIRES: s_[pos_] == '"'. Appends the unescaped string to *out.
  Status ParseString(std::string* out) {
    ++pos_;
    while (true) {
      // Copy the run of ordinary bytes in one go.
      size_t run = pos_;
      while (run < s_.size()) {
        unsigned char c = static_cast<unsigned char>(s_[run]);
        if (c == '"' || c == '\\' || c < 0x20) break;
        ++run;
      }
      if (run > pos_) {
        std::string_view chunk = s_.substr(pos_, run - pos_);
        if (auto bad = FindInvalidUtf8(chunk)) {
          pos_ += *bad;
          return Error(fmt::format("invalid UTF-8 in string ({})", Describe()));
        }
        out->append(chunk);
        pos_ = run;
      }
      if (pos_ >= s_.size()) return Error("unterminated string");
      char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return OkStatus();
      }
      if (c != '\\') {
        return Error(fmt::format("control character {} in string must be escaped", Describe()));
      }
      ++pos_;
      if (pos_ >= s_.size()) return Error("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          DRA_RETURN_IF_ERROR(ParseHex4(&cp));
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (s_.compare(pos_, 2, "\\u") != 0) {
              cp = 0xFFFD;  // lone high surrogate: replaced, as Go's decoder does
            } else {
              pos_ += 2;
              DRA_RETURN_IF_ERROR(ParseHex4(&low));
              if (low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              } else {
                AppendUtf8(0xFFFD, *out);
                cp = (low >= 0xD800 && low <= 0xDFFF) ? 0xFFFD : low;
              }
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
          }
          AppendUtf8(cp, *out);
          break;
        }
        default: --pos_; return Error(fmt::format("invalid escape '\\{}' in string", e));
      }
    }
  }

  std::string_view s_;
  std::string_view file_;
  std::vector<Node> values_;                        // children of open containers
  std::vector<std::pair<std::string, Mark>> keys_;  // keys of open objects
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

StatusOr<std::vector<Document>> ParseJson(std::string_view text, std::string_view file) {
  std::vector<Document> docs;
  JsonParser parser(text, file);
  DRA_RETURN_IF_ERROR(parser.Run([&](Document& doc, size_t) {
    docs.push_back(std::move(doc));
    return true;
  }));
  return docs;
}

Status ParseJsonStream(std::string_view text, std::string_view file, const DocumentFn& on_document) {
  JsonParser parser(text, file);
  return parser.Run(on_document);
}

StatusOr<Node> ParseJsonValueAt(std::string_view text, std::string_view file, size_t offset, uint32_t first_line) {
  JsonParser parser(text, file);
  return parser.RunAt(offset, first_line);
}

}  // namespace dra::manifest
