#include "cel/parser/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dra::cel {
namespace {

// "KIND text" for each token but the final EOF, joined by " | ".
std::string Describe(std::string_view source) {
  std::vector<Token> tokens = Tokenize(source);
  std::string out;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kEof) break;
    if (!out.empty()) out += " | ";
    out += TokenKindName(t.kind);
    if (t.kind == TokenKind::kError) {
      out += " " + t.error;
    } else {
      out += " ";
      out += t.Text(source);
    }
  }
  return out;
}

struct TokenCase {
  std::string name;
  std::string source;
  std::string want;
};

class TokenizeTest : public testing::TestWithParam<TokenCase> {};

TEST_P(TokenizeTest, Tokens) { EXPECT_EQ(Describe(GetParam().source), GetParam().want) << GetParam().source; }

INSTANTIATE_TEST_SUITE_P(
    Lexer, TokenizeTest,
    testing::Values(
        TokenCase{.name = "empty", .source = "", .want = ""},
        TokenCase{
            .name = "whitespace_and_comments", .source = " \t\r\n\f// comment\n x // trailing", .want = "IDENTIFIER x"},
        TokenCase{.name = "identifiers",
                  .source = "a _b c1 in inx true false null truex if",
                  .want = "IDENTIFIER a | IDENTIFIER _b | IDENTIFIER c1 | 'in' in | IDENTIFIER inx "
                          "| 'true' true | 'false' false | 'null' null | IDENTIFIER truex | "
                          "IDENTIFIER if"},
        TokenCase{.name = "operators",
                  .source = "== != < <= > >= && || [ ] { } ( ) . , - ! ? : + * / %",
                  .want = "'==' == | '!=' != | '<' < | '<=' <= | '>' > | '>=' >= | '&&' && | "
                          "'||' || | '[' [ | ']' ] | '{' { | '}' } | '(' ( | ')' ) | '.' . | "
                          "',' , | '-' - | '!' ! | '?' ? | ':' : | '+' + | '*' * | '/' / | '%' %"},
        TokenCase{.name = "adjacent_operators",
                  .source = "!!a<=-b",
                  .want = "'!' ! | '!' ! | IDENTIFIER a | '<=' <= | '-' - | IDENTIFIER b"},
        TokenCase{.name = "ints",
                  .source = "0 123 0x1F 0xabcdef 007",
                  .want = "NUM_INT 0 | NUM_INT 123 | NUM_INT 0x1F | NUM_INT 0xabcdef | NUM_INT 007"},
        TokenCase{.name = "uints", .source = "0u 123U 0x1Fu", .want = "NUM_UINT 0u | NUM_UINT 123U | NUM_UINT 0x1Fu"},
        TokenCase{.name = "doubles",
                  .source = "1.5 1e3 1E+3 1.5e-3 .5 .5e1 0.0",
                  .want = "NUM_FLOAT 1.5 | NUM_FLOAT 1e3 | NUM_FLOAT 1E+3 | NUM_FLOAT 1.5e-3 | "
                          "NUM_FLOAT .5 | NUM_FLOAT .5e1 | NUM_FLOAT 0.0"},
        // Maximal munch as ANTLR lexes: incomplete forms split.
        TokenCase{.name = "int_then_dot", .source = "1.", .want = "NUM_INT 1 | '.' ."},
        TokenCase{.name = "int_then_ident_e", .source = "1e", .want = "NUM_INT 1 | IDENTIFIER e"},
        TokenCase{.name = "hex_without_digits", .source = "0x", .want = "NUM_INT 0 | IDENTIFIER x"},
        TokenCase{.name = "upper_hex_prefix", .source = "0X1", .want = "NUM_INT 0 | IDENTIFIER X1"},
        TokenCase{.name = "ident_dot_digit", .source = "x.1", .want = "IDENTIFIER x | NUM_FLOAT .1"},
        TokenCase{.name = "double_then_u", .source = "1.5u", .want = "NUM_FLOAT 1.5 | IDENTIFIER u"},
        TokenCase{.name = "method_on_double",
                  .source = "1.0.size()",
                  .want = "NUM_FLOAT 1.0 | '.' . | IDENTIFIER size | '(' ( | ')' )"},
        TokenCase{.name = "strings",
                  .source = R"('a' "b" '''c''' """d""")",
                  .want = R"(STRING 'a' | STRING "b" | STRING '''c''' | STRING """d""")"},
        TokenCase{.name = "string_prefixes",
                  .source = R"(r'a' R"b" b'c' B"d" br'e' bR"f" Br'g' BR"h")",
                  .want = R"(STRING r'a' | STRING R"b" | BYTES b'c' | BYTES B"d" | BYTES br'e' | )"
                          R"(BYTES bR"f" | BYTES Br'g' | BYTES BR"h")"},
        TokenCase{.name = "rb_is_not_a_prefix", .source = "rb'x'", .want = "IDENTIFIER rb | STRING 'x'"},
        TokenCase{.name = "prefix_letters_as_identifiers",
                  .source = "r b br",
                  .want = "IDENTIFIER r | IDENTIFIER b | IDENTIFIER br"},
        TokenCase{.name = "quote_inside_other_quote",
                  .source = R"("it's" 'say "hi"')",
                  .want = R"(STRING "it's" | STRING 'say "hi"')"},
        TokenCase{.name = "escaped_quotes", .source = R"('a\'b' "a\"b")", .want = R"(STRING 'a\'b' | STRING "a\"b")"},
        TokenCase{
            .name = "triple_with_quotes_and_newline", .source = "'''a''b\n'c'''", .want = "STRING '''a''b\n'c'''"},
        TokenCase{.name = "triple_escaped_quote_before_end",
                  .source = R"('''a\''''x)",
                  .want = R"(STRING '''a\'''' | IDENTIFIER x)"},
        TokenCase{
            .name = "raw_backslash_does_not_escape", .source = R"(r"\" x)", .want = R"(STRING r"\" | IDENTIFIER x)"},
        TokenCase{.name = "raw_keeps_invalid_escapes", .source = R"(r'\q\z')", .want = R"(STRING r'\q\z')"},
        TokenCase{.name = "all_escapes",
                  .source = R"('\a\b\f\n\r\t\v\\\'\"\`\?\000\377\x4a\X4A\u00e9\U0001F600')",
                  .want = R"(STRING '\a\b\f\n\r\t\v\\\'\"\`\?\000\377\x4a\X4A\u00e9\U0001F600')"},
        TokenCase{.name = "quoted_identifier",
                  .source = "a.`b-c/d.e f_1`",
                  .want = "IDENTIFIER a | '.' . | ESC_IDENTIFIER `b-c/d.e f_1`"},
        TokenCase{.name = "unicode_in_string", .source = "'héllo 😀'", .want = "STRING 'héllo 😀'"},
        // Errors end the stream.
        TokenCase{.name = "bad_character",
                  .source = "a # b",
                  .want = "IDENTIFIER a | <error> token recognition error at: '#'"},
        TokenCase{.name = "single_equals",
                  .source = "a = b",
                  .want = "IDENTIFIER a | <error> token recognition error at: '='"},
        TokenCase{.name = "single_ampersand",
                  .source = "a & b",
                  .want = "IDENTIFIER a | <error> token recognition error at: '&'"},
        TokenCase{.name = "non_ascii_identifier", .source = "é", .want = "<error> token recognition error at: 'é'"},
        TokenCase{.name = "vertical_tab_is_not_whitespace",
                  .source = "a\vb",
                  .want = "IDENTIFIER a | <error> token recognition error at: '\v'"},
        TokenCase{.name = "invalid_escape", .source = R"('a\qb')", .want = R"(<error> invalid escape sequence '\q')"},
        TokenCase{
            .name = "invalid_escape_in_bytes", .source = R"(b'\c')", .want = R"(<error> invalid escape sequence '\c')"},
        TokenCase{.name = "short_hex_escape", .source = R"('\x4')", .want = R"(<error> invalid escape sequence '\x')"},
        TokenCase{
            .name = "short_unicode_escape", .source = R"('\u12')", .want = R"(<error> invalid escape sequence '\u')"},
        TokenCase{
            .name = "octal_out_of_range", .source = R"('\400')", .want = R"(<error> invalid escape sequence '\4')"},
        TokenCase{.name = "two_digit_octal", .source = R"('\12')", .want = R"(<error> invalid escape sequence '\1')"},
        TokenCase{.name = "unterminated", .source = "'abc", .want = "<error> unterminated string literal"},
        TokenCase{.name = "newline_in_single_quoted",
                  .source = "'a\nb'",
                  .want = "<error> unterminated string literal (a newline needs a "
                          "triple-quoted string)"},
        TokenCase{.name = "unterminated_triple", .source = "'''abc''", .want = "<error> unterminated string literal"},
        TokenCase{.name = "bad_quoted_identifier",
                  .source = "a.`b!`",
                  .want = "IDENTIFIER a | '.' . | <error> invalid quoted identifier: expected "
                          "`name` with letters, digits and _ . / - or space"},
        TokenCase{.name = "empty_quoted_identifier",
                  .source = "``",
                  .want = "<error> invalid quoted identifier: expected `name` with letters, "
                          "digits and _ . / - or space"},
        TokenCase{.name = "invalid_utf8", .source = "'a\xff'", .want = "<error> invalid UTF-8 in expression"}),
    [](const testing::TestParamInfo<TokenCase>& p) { return p.param.name; });

TEST(LexerTest, PositionsCountLinesAndCodePoints) {
  const std::string source = " + 'ü'\n  x // c\n\t'''a\nb''' y";
  std::vector<Token> tokens = Tokenize(source);
  struct Want {
    TokenKind kind;
    int32_t line;
    int32_t column;
    int32_t offset;
  };
  const std::vector<Want> want = {
      {TokenKind::kPlus, 1, 2, 1},    {TokenKind::kString, 1, 4, 3},      {TokenKind::kIdentifier, 2, 3, 10},
      {TokenKind::kString, 3, 2, 18}, {TokenKind::kIdentifier, 4, 6, 28}, {TokenKind::kEof, 4, 7, 29},
  };
  ASSERT_EQ(tokens.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(tokens[i].kind, want[i].kind);
    EXPECT_EQ(tokens[i].line, want[i].line);
    EXPECT_EQ(tokens[i].column, want[i].column);
    EXPECT_EQ(tokens[i].offset, want[i].offset);
  }
}

TEST(LexerTest, ColumnsCountCodePointsNotBytes) {
  const std::string source = "'日本語' == x";
  std::vector<Token> tokens = Tokenize(source);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[1].column, 7);  // 5 code points + space before '=='
  EXPECT_EQ(tokens[2].column, 10);
  EXPECT_EQ(tokens[2].offset, 15);  // bytes
}

TEST(LexerTest, ErrorPositionIsTheOffendingEscape) {
  std::vector<Token> tokens = Tokenize("x + 'ab\\q'");
  ASSERT_EQ(tokens.back().kind, TokenKind::kError);
  EXPECT_EQ(tokens.back().line, 1);
  EXPECT_EQ(tokens.back().column, 8);
}

TEST(LexerTest, InvalidUtf8PositionIsTheBadByte) {
  std::vector<Token> tokens = Tokenize("ab\n  'x\xc3('");
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kError);
  EXPECT_EQ(tokens[0].line, 2);
  EXPECT_EQ(tokens[0].column, 5);
}

struct DecodeCase {
  std::string name;
  std::string literal;
  std::string want;
};

class DecodeTest : public testing::TestWithParam<DecodeCase> {};

TEST_P(DecodeTest, Decodes) {
  auto got = DecodeQuotedLiteral(GetParam().literal);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Lexer, DecodeTest,
    testing::Values(
        DecodeCase{.name = "empty_single", .literal = "''", .want = ""},
        DecodeCase{.name = "empty_double", .literal = "\"\"", .want = ""},
        DecodeCase{.name = "empty_triple", .literal = "''''''", .want = ""},
        DecodeCase{.name = "empty_triple_double", .literal = "\"\"\"\"\"\"", .want = ""},
        DecodeCase{.name = "plain", .literal = "'hello'", .want = "hello"},
        DecodeCase{.name = "triple", .literal = "'''x''x'''", .want = "x''x"},
        DecodeCase{.name = "punctuation", .literal = R"(" \\ \? \" \' \` ")", .want = " \\ ? \" ' ` "},
        DecodeCase{.name = "controls", .literal = R"('\a\b\f\n\r\t\v')", .want = "\a\b\f\n\r\t\v"},
        DecodeCase{.name = "octal_is_code_point", .literal = R"("\303\277")", .want = "\u00c3\u00bf"},
        DecodeCase{.name = "octal_max", .literal = R"("\377")", .want = "\u00ff"},
        DecodeCase{.name = "octal_zero", .literal = R"('\000')", .want = std::string(1, '\0')},
        DecodeCase{.name = "hex_is_code_point", .literal = R"("\xFF\X41")", .want = "\u00ffA"},
        DecodeCase{.name = "u_escape", .literal = R"('\u00e9\uFFFB')", .want = "é\ufffb"},
        DecodeCase{.name = "big_u_escape", .literal = R"('\U0001F62C\U00088888')", .want = "\U0001F62C\U00088888"},
        DecodeCase{.name = "unescaped_unicode", .literal = "'😀 é'", .want = "😀 é"},
        DecodeCase{.name = "raw_keeps_backslashes", .literal = R"(r'\\ \n \u0000')", .want = R"(\\ \n \u0000)"},
        DecodeCase{.name = "raw_triple", .literal = R"(R"""a\"b""")", .want = R"(a\"b)"},
        DecodeCase{.name = "crlf_normalised", .literal = "'''a\r\nb\rc\n'''", .want = "a\nb\nc\n"},
        DecodeCase{.name = "raw_crlf_normalised", .literal = "r'''a\r\nb'''", .want = "a\nb"},
        DecodeCase{.name = "escaped_crlf_kept", .literal = R"('\r\n')", .want = "\r\n"},
        DecodeCase{.name = "bytes_plain", .literal = "b'abc'", .want = "abc"},
        DecodeCase{.name = "bytes_utf8_source", .literal = "b'ÿ'", .want = "\xc3\xbf"},
        DecodeCase{.name = "bytes_octal_is_octet", .literal = R"(b"\303\277\377")", .want = "\xc3\xbf\xff"},
        DecodeCase{.name = "bytes_hex_is_octet", .literal = R"(B'\xff\X00')", .want = std::string("\xff\0", 2)},
        DecodeCase{.name = "bytes_u_is_utf8", .literal = R"(b'\u00ff')", .want = "\xc3\xbf"},
        DecodeCase{.name = "bytes_raw", .literal = R"(br'\xff')", .want = R"(\xff)"}),
    [](const testing::TestParamInfo<DecodeCase>& p) { return p.param.name; });

TEST(LexerTest, DecodeRejectsSurrogatesAndOutOfRangeCodePoints) {
  for (std::string_view literal :
       {R"('\uD800')", R"('\udfff')", R"('\U0000D800')", R"('\U00110000')", R"(b'\uD800')", R"('\UFFFFFFFF')"}) {
    auto got = DecodeQuotedLiteral(literal);
    ASSERT_FALSE(got.ok()) << literal;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), "invalid unicode code point");
  }
}

TEST(LexerTest, DecodeRejectsNonLiterals) {
  for (std::string_view text : {"", "abc", "'", "b", "r'"}) {
    auto got = DecodeQuotedLiteral(text);
    EXPECT_FALSE(got.ok()) << text;
  }
}

TEST(LexerTest, EveryTokenKindHasAName) {
  for (int k = 0; k <= static_cast<int>(TokenKind::kPercent); ++k) {
    EXPECT_NE(TokenKindName(static_cast<TokenKind>(k)), "<unknown>") << k;
  }
}

}  // namespace
}  // namespace dra::cel
