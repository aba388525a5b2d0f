// The CEL lexer: source text -> tokens (cel-spec langdef.md "Syntax", with
// cel-go's lexical rules where the two differ).
//
// Tokens:
//   identifiers    [_a-zA-Z][_a-zA-Z0-9]*; `true` `false` `null` `in` are
//                  keywords. Other reserved words (`if`, `var`, ...) lex as
//                  identifiers: they are legal field and method names, and
//                  the parser rejects them only as variables and functions.
//   `quoted`       a quoted field name: backticks around [a-zA-Z0-9_./ -]+
//   numbers        int 123 / 0x1F; uint 123u / 0x1Fu; double 1.5, 1e3,
//                  1.5e-3, .5 (no sign: `-` is its own token, and the parser
//                  folds it into a literal where cel-go does)
//   strings        '...' "..." '''...''' """...""", optionally prefixed by
//                  r/R (raw); bytes are the same prefixed by b/B (br"" too)
//   operators      == != < <= > >= && || [ ] { } ( ) . , - ! ? : + * / %
// Whitespace is [ \t\r\n\f]; comments run from // to the end of the line.
//
// Escapes, in non-raw strings and bytes: \a \b \f \n \r \t \v \\ \' \" \` \?,
// \ooo (octal, 000-377), \xHH and \XHH, \uHHHH, \UHHHHHHHH. Any other
// backslash sequence is a lexical error, as in cel-go's grammar. Whether an
// escape's *value* is allowed (no surrogates, nothing above U+10FFFF) is
// decided by DecodeQuotedLiteral, so the parser can report it as cel-go does.
//
// Positions: lines are separated by '\n'; columns count Unicode code points.
// The source must be valid UTF-8; other bytes end the token stream with an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::cel {

enum class TokenKind : uint8_t {
  kEof,
  kError,  // a lexical error; Token::error says what
  kIdentifier,
  kQuotedIdentifier,  // `a.b-c`; text includes the backticks
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTrue,
  kFalse,
  kNull,
  kIn,
  kEqualEqual,
  kBangEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kAndAnd,
  kOrOr,
  kLeftBracket,
  kRightBracket,
  kLeftBrace,
  kRightBrace,
  kLeftParen,
  kRightParen,
  kDot,
  kComma,
  kMinus,
  kBang,
  kQuestion,
  kColon,
  kPlus,
  kStar,
  kSlash,
  kPercent,
};

// The name cel-go's (ANTLR) messages use for a token kind: "'=='", "IDENTIFIER",
// "NUM_INT", "STRING", "<EOF>", ...
std::string_view TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEof;
  int32_t offset = 0;  // byte offset of the first character
  int32_t length = 0;  // in bytes
  int32_t line = 1;    // 1-based
  int32_t column = 1;  // 1-based, in code points
  std::string error;   // kError only: what is wrong

  std::string_view Text(std::string_view source) const {
    return source.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }
};

// Splits `source` into tokens, dropping whitespace and comments. The last
// token is kEof, or kError at the first lexical error (nothing follows it).
// A source of 2^31 bytes or more yields a single kError token.
std::vector<Token> Tokenize(std::string_view source);

// Decodes the text of a kString or kBytes token: drops the prefix and quotes,
// turns "\r\n" and "\r" in the text into "\n" (as cel-go does), and, unless
// raw, resolves escapes. In strings, \x, \ooo, \u and \U denote code points
// (UTF-8 encoded); in bytes, \x and \ooo denote octets and \u, \U the UTF-8 of
// a code point. Returns kInvalidArgument if an escape denotes a surrogate or a
// value above U+10FFFF ("invalid unicode code point"), or if `text` is not a
// quoted literal.
StatusOr<std::string> DecodeQuotedLiteral(std::string_view text);

}  // namespace dra::cel
