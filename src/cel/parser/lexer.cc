// Hand-written scanner following the lexer rules of cel-go's CEL.g4 (maximal
// munch, as ANTLR lexes): e.g. `1.` is the int 1 followed by '.', `x.1` is an
// identifier followed by the double .1, and `0x` without hex digits is the int
// 0 followed by the identifier `x`.
#include "cel/parser/lexer.h"

#include <limits>

#include "base/utf8.h"

namespace dra::cel {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }
bool IsIdentChar(char c) { return IsLetter(c) || IsDigit(c) || c == '_'; }
bool IsQuotedIdentChar(char c) { return IsIdentChar(c) || c == '.' || c == '-' || c == '/' || c == ' '; }
bool IsQuote(char c) { return c == '\'' || c == '"'; }
bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// The ANTLR display form of a piece of input: newlines and tabs escaped.
std::string Display(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// Length in bytes of the escape sequence starting at the backslash `s[0]`, or
// 0 if it is not one that CEL's grammar allows.
size_t EscapeLength(std::string_view s) {
  if (s.size() < 2) return 0;
  const char c = s[1];
  switch (c) {
    case 'a':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
    case 'v':
    case '\\':
    case '\'':
    case '"':
    case '`':
    case '?': return 2;
    default: break;
  }
  auto hex_run = [&](size_t start, size_t count) {
    if (s.size() < start + count) return false;
    for (size_t i = start; i < start + count; ++i) {
      if (!IsHexDigit(s[i])) return false;
    }
    return true;
  };
  if (c >= '0' && c <= '3') {
    return s.size() >= 4 && IsOctalDigit(s[2]) && IsOctalDigit(s[3]) ? 4 : 0;
  }
  if (c == 'x' || c == 'X') return hex_run(2, 2) ? 4 : 0;
  if (c == 'u') return hex_run(2, 4) ? 6 : 0;
  if (c == 'U') return hex_run(2, 8) ? 10 : 0;
  return 0;
}

class Scanner {
 public:
  explicit Scanner(std::string_view source) : src_(source) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    if (src_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      tokens.push_back(ErrorAtCurrent("expression is too large"));
      return tokens;
    }
    if (auto bad = FindInvalidUtf8(src_)) {
      // Report at the first bad byte: advance the position counters there.
      Advance(*bad);
      tokens.push_back(ErrorAtCurrent("invalid UTF-8 in expression"));
      return tokens;
    }
    while (true) {
      Token t = Next();
      const TokenKind kind = t.kind;
      tokens.push_back(std::move(t));
      if (kind == TokenKind::kEof || kind == TokenKind::kError) break;
    }
    return tokens;
  }

 private:
  char Peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  bool Has(size_t k = 0) const { return pos_ + k < src_.size(); }

  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < src_.size(); ++i, ++pos_) {
      const char c = src_[pos_];
      if (c == '\n') {
        ++line_;
        column_ = 0;
      } else if (!IsContinuationByte(c)) {
        ++column_;
      }
    }
  }

  // Advances over one whole code point.
  void AdvanceCodePoint() {
    Advance(1);
    while (Has() && IsContinuationByte(Peek())) Advance(1);
  }

  void StartToken() {
    start_ = pos_;
    start_line_ = line_;
    start_column_ = column_;
  }

  Token Make(TokenKind kind) const {
    Token t;
    t.kind = kind;
    t.offset = static_cast<int32_t>(start_);
    t.length = static_cast<int32_t>(pos_ - start_);
    t.line = start_line_;
    t.column = start_column_ + 1;
    return t;
  }

  Token ErrorAtCurrent(std::string message) const {
    Token t;
    t.kind = TokenKind::kError;
    t.offset = static_cast<int32_t>(pos_);
    t.line = line_;
    t.column = column_ + 1;
    t.error = std::move(message);
    return t;
  }

  Token ErrorAtStart(std::string message) const {
    Token t = Make(TokenKind::kError);
    t.length = 0;
    t.error = std::move(message);
    return t;
  }

  void SkipWhitespaceAndComments() {
    while (Has()) {
      const char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        Advance(1);
      } else if (c == '/' && Peek(1) == '/') {
        while (Has() && Peek() != '\n') Advance(1);
      } else {
        break;
      }
    }
  }

  Token Next() {
    SkipWhitespaceAndComments();
    StartToken();
    if (!Has()) return Make(TokenKind::kEof);
    const char c = Peek();

    if (IsLetter(c) || c == '_') {
      // String and bytes prefixes: r"", b"", br"" (any case).
      if ((c == 'r' || c == 'R') && IsQuote(Peek(1))) {
        Advance(1);
        return ScanQuoted(TokenKind::kString, /*raw=*/true);
      }
      if (c == 'b' || c == 'B') {
        if (IsQuote(Peek(1))) {
          Advance(1);
          return ScanQuoted(TokenKind::kBytes, /*raw=*/false);
        }
        if ((Peek(1) == 'r' || Peek(1) == 'R') && IsQuote(Peek(2))) {
          Advance(2);
          return ScanQuoted(TokenKind::kBytes, /*raw=*/true);
        }
      }
      return ScanIdentifier();
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return ScanNumber();
    if (IsQuote(c)) return ScanQuoted(TokenKind::kString, /*raw=*/false);
    if (c == '`') return ScanQuotedIdentifier();

    auto one = [&](TokenKind kind) {
      Advance(1);
      return Make(kind);
    };
    auto two = [&](TokenKind kind) {
      Advance(2);
      return Make(kind);
    };
    const char n = Peek(1);
    switch (c) {
      case '=':
        if (n == '=') return two(TokenKind::kEqualEqual);
        break;
      case '!': return n == '=' ? two(TokenKind::kBangEqual) : one(TokenKind::kBang);
      case '<': return n == '=' ? two(TokenKind::kLessEqual) : one(TokenKind::kLess);
      case '>': return n == '=' ? two(TokenKind::kGreaterEqual) : one(TokenKind::kGreater);
      case '&':
        if (n == '&') return two(TokenKind::kAndAnd);
        break;
      case '|':
        if (n == '|') return two(TokenKind::kOrOr);
        break;
      case '[': return one(TokenKind::kLeftBracket);
      case ']': return one(TokenKind::kRightBracket);
      case '{': return one(TokenKind::kLeftBrace);
      case '}': return one(TokenKind::kRightBrace);
      case '(': return one(TokenKind::kLeftParen);
      case ')': return one(TokenKind::kRightParen);
      case '.': return one(TokenKind::kDot);
      case ',': return one(TokenKind::kComma);
      case '-': return one(TokenKind::kMinus);
      case '?': return one(TokenKind::kQuestion);
      case ':': return one(TokenKind::kColon);
      case '+': return one(TokenKind::kPlus);
      case '*': return one(TokenKind::kStar);
      case '/': return one(TokenKind::kSlash);
      case '%': return one(TokenKind::kPercent);
      default: break;
    }
    // Not the start of any token: ANTLR's "token recognition error".
    size_t len = 1;
    while (pos_ + len < src_.size() && IsContinuationByte(src_[pos_ + len])) ++len;
    return ErrorAtStart("token recognition error at: '" + Display(src_.substr(pos_, len)) + "'");
  }

  Token ScanIdentifier() {
    while (Has() && IsIdentChar(Peek())) Advance(1);
    const std::string_view text = src_.substr(start_, pos_ - start_);
    TokenKind kind = TokenKind::kIdentifier;
    if (text == "true") {
      kind = TokenKind::kTrue;
    } else if (text == "false") {
      kind = TokenKind::kFalse;
    } else if (text == "null") {
      kind = TokenKind::kNull;
    } else if (text == "in") {
      kind = TokenKind::kIn;
    }
    return Make(kind);
  }

  // Digits and optional exponent of a decimal number; at IsDigit or '.'.
  Token ScanNumber() {
    if (Peek() == '0' && Peek(1) == 'x' && IsHexDigit(Peek(2))) {
      Advance(2);
      while (IsHexDigit(Peek())) Advance(1);
      if (Peek() == 'u' || Peek() == 'U') {
        Advance(1);
        return Make(TokenKind::kUint);
      }
      return Make(TokenKind::kInt);
    }
    bool is_double = false;
    if (Peek() == '.') {
      // ".5": the caller checked the digit.
      Advance(1);
      is_double = true;
    }
    while (IsDigit(Peek())) Advance(1);
    if (!is_double && Peek() == '.' && IsDigit(Peek(1))) {
      Advance(1);
      while (IsDigit(Peek())) Advance(1);
      is_double = true;
    }
    // Exponent, only if complete: "1e" is the int 1 and the identifier e.
    if (Peek() == 'e' || Peek() == 'E') {
      size_t k = 1;
      if (Peek(k) == '+' || Peek(k) == '-') ++k;
      if (IsDigit(Peek(k))) {
        Advance(k);
        while (IsDigit(Peek())) Advance(1);
        is_double = true;
      }
    }
    if (is_double) return Make(TokenKind::kDouble);
    if (Peek() == 'u' || Peek() == 'U') {
      Advance(1);
      return Make(TokenKind::kUint);
    }
    return Make(TokenKind::kInt);
  }

  // At the opening quote of a string or bytes literal (the prefix, if any, is
  // already consumed and belongs to the token).
  Token ScanQuoted(TokenKind kind, bool raw) {
    const char quote = Peek();
    const bool triple = Peek(1) == quote && Peek(2) == quote;
    Advance(triple ? 3 : 1);
    while (true) {
      if (!Has()) return ErrorAtStart("unterminated string literal");
      const char c = Peek();
      if (c == quote && (!triple || (Peek(1) == quote && Peek(2) == quote))) {
        Advance(triple ? 3 : 1);
        return Make(kind);
      }
      if (!triple && (c == '\n' || c == '\r')) {
        return ErrorAtStart("unterminated string literal (a newline needs a triple-quoted string)");
      }
      if (c == '\\' && !raw) {
        const size_t len = EscapeLength(src_.substr(pos_));
        if (len == 0) {
          size_t shown = 1;
          if (Has(1)) {
            shown = 2;
            while (pos_ + shown < src_.size() && IsContinuationByte(src_[pos_ + shown])) ++shown;
          }
          return ErrorAtCurrent("invalid escape sequence '" + Display(src_.substr(pos_, shown)) + "'");
        }
        Advance(len);
        continue;
      }
      AdvanceCodePoint();
    }
  }

  Token ScanQuotedIdentifier() {
    Advance(1);
    while (Has() && IsQuotedIdentChar(Peek())) Advance(1);
    if (Peek() != '`' || pos_ - start_ < 2) {
      return ErrorAtStart("invalid quoted identifier: expected `name` with letters, digits and _ . / - or space");
    }
    Advance(1);
    return Make(TokenKind::kQuotedIdentifier);
  }

  std::string_view src_;
  size_t pos_ = 0;
  int32_t line_ = 1;
  int32_t column_ = 0;  // 0-based while scanning
  size_t start_ = 0;
  int32_t start_line_ = 1;
  int32_t start_column_ = 0;
};

}  // namespace

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof: return "<EOF>";
    case TokenKind::kError: return "<error>";
    case TokenKind::kIdentifier: return "IDENTIFIER";
    case TokenKind::kQuotedIdentifier: return "ESC_IDENTIFIER";
    case TokenKind::kInt: return "NUM_INT";
    case TokenKind::kUint: return "NUM_UINT";
    case TokenKind::kDouble: return "NUM_FLOAT";
    case TokenKind::kString: return "STRING";
    case TokenKind::kBytes: return "BYTES";
    case TokenKind::kTrue: return "'true'";
    case TokenKind::kFalse: return "'false'";
    case TokenKind::kNull: return "'null'";
    case TokenKind::kIn: return "'in'";
    case TokenKind::kEqualEqual: return "'=='";
    case TokenKind::kBangEqual: return "'!='";
    case TokenKind::kLess: return "'<'";
    case TokenKind::kLessEqual: return "'<='";
    case TokenKind::kGreater: return "'>'";
    case TokenKind::kGreaterEqual: return "'>='";
    case TokenKind::kAndAnd: return "'&&'";
    case TokenKind::kOrOr: return "'||'";
    case TokenKind::kLeftBracket: return "'['";
    case TokenKind::kRightBracket: return "']'";
    case TokenKind::kLeftBrace: return "'{'";
    case TokenKind::kRightBrace: return "'}'";
    case TokenKind::kLeftParen: return "'('";
    case TokenKind::kRightParen: return "')'";
    case TokenKind::kDot: return "'.'";
    case TokenKind::kComma: return "','";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kBang: return "'!'";
    case TokenKind::kQuestion: return "'?'";
    case TokenKind::kColon: return "':'";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kPercent: return "'%'";
  }
  return "<unknown>";
}

std::vector<Token> Tokenize(std::string_view source) { return Scanner(source).Run(); }

StatusOr<std::string> DecodeQuotedLiteral(std::string_view text) {
  size_t i = 0;
  bool bytes = false;
  bool raw = false;
  if (i < text.size() && (text[i] == 'b' || text[i] == 'B')) {
    bytes = true;
    ++i;
  }
  if (i < text.size() && (text[i] == 'r' || text[i] == 'R')) {
    raw = true;
    ++i;
  }
  if (i >= text.size() || !IsQuote(text[i])) {
    return InvalidArgumentError("not a quoted literal: " + std::string(text));
  }
  const char quote = text[i];
  const size_t quote_len = text.size() - i >= 6 && text[i + 1] == quote && text[i + 2] == quote ? 3 : 1;
  if (text.size() < i + 2 * quote_len) {
    return InvalidArgumentError("not a quoted literal: " + std::string(text));
  }
  const std::string_view body = text.substr(i + quote_len, text.size() - i - 2 * quote_len);

  std::string out;
  out.reserve(body.size());
  for (size_t k = 0; k < body.size();) {
    const char c = body[k];
    if (c == '\r') {
      // cel-go normalises newlines in the text of every literal.
      out.push_back('\n');
      k += (k + 1 < body.size() && body[k + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (raw || c != '\\') {
      out.push_back(c);
      ++k;
      continue;
    }
    const size_t len = EscapeLength(body.substr(k));
    if (len == 0) return InvalidArgumentError("invalid escape sequence in literal");
    const char e = body[k + 1];
    uint32_t value = 0;
    bool code_point = false;  // true: encode as UTF-8; false: append as one byte
    switch (e) {
      case 'a': value = 0x07; break;
      case 'b': value = 0x08; break;
      case 'f': value = 0x0C; break;
      case 'n': value = 0x0A; break;
      case 'r': value = 0x0D; break;
      case 't': value = 0x09; break;
      case 'v': value = 0x0B; break;
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?': value = static_cast<unsigned char>(e); break;
      case 'x':
      case 'X':
        value = static_cast<uint32_t>(HexValue(body[k + 2]) * 16 + HexValue(body[k + 3]));
        code_point = !bytes;
        break;
      case 'u':
      case 'U':
        for (size_t h = k + 2; h < k + len; ++h) value = value * 16 + static_cast<uint32_t>(HexValue(body[h]));
        if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
          return InvalidArgumentError("invalid unicode code point");
        }
        code_point = true;
        break;
      default:  // octal \[0-3][0-7][0-7]
        value = static_cast<uint32_t>((e - '0') * 64 + (body[k + 2] - '0') * 8 + (body[k + 3] - '0'));
        code_point = !bytes;
        break;
    }
    if (code_point) {
      AppendUtf8(value, out);
    } else {
      out.push_back(static_cast<char>(value));
    }
    k += len;
  }
  return out;
}

}  // namespace dra::cel
