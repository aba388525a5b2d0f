#include "cel/lib/url.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/testing/cases.h"

namespace dra::cel::lib {
namespace {

// ---------------------------------------------------------------------------
// url() on accepted text: the getters and Go's URL.String().

struct UrlCase {
  std::string_view name;
  std::string_view in;
  std::string_view scheme = {};
  std::string_view host = {};
  std::string_view hostname = {};
  std::string_view port = {};
  std::string_view escaped_path = {};
  std::vector<Url::QueryEntry> query = {};
  std::string_view string = {};  // String()
  std::string_view fragment = {};
};

void PrintTo(const UrlCase& c, std::ostream* os) { *os << c.name; }

std::vector<UrlCase> KubernetesCases() {
  return {
      // The Kubernetes library's documented examples and CRD validation tests.
      {.name = "absolute_path", .in = "/path", .escaped_path = "/path", .string = "/path"},
      {.name = "scheme_and_host",
       .in = "https://example.com/",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .string = "https://example.com/"},
      {.name = "port",
       .in = "https://example.com:80/",
       .scheme = "https",
       .host = "example.com:80",
       .hostname = "example.com",
       .port = "80",
       .escaped_path = "/",
       .string = "https://example.com:80/"},
      {.name = "ipv6_with_port",
       .in = "https://[::1]:80/",
       .scheme = "https",
       .host = "[::1]:80",
       .hostname = "::1",
       .port = "80",
       .escaped_path = "/",
       .string = "https://[::1]:80/"},
      {.name = "ipv6",
       .in = "https://[::1]/",
       .scheme = "https",
       .host = "[::1]",
       .hostname = "::1",
       .escaped_path = "/",
       .string = "https://[::1]/"},
      {.name = "ipv4",
       .in = "https://127.0.0.1/",
       .scheme = "https",
       .host = "127.0.0.1",
       .hostname = "127.0.0.1",
       .escaped_path = "/",
       .string = "https://127.0.0.1/"},
      {.name = "path",
       .in = "https://example.com/path",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/path",
       .string = "https://example.com/path"},
      {.name = "path_with_space",
       .in = "https://example.com/with space/",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/with%20space/",
       .string = "https://example.com/with%20space/"},
      {.name = "no_path",
       .in = "https://example.com",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .string = "https://example.com"},
      {.name = "repeated_query_key",
       .in = "https://example.com/path?k1=a&k2=b&k2=c",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/path",
       .query = {{"k1", {"a"}}, {"k2", {"b", "c"}}},
       .string = "https://example.com/path?k1=a&k2=b&k2=c"},
      {.name = "query_with_spaces",
       .in = "https://example.com/path?key with spaces=value with spaces",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/path",
       .query = {{"key with spaces", {"value with spaces"}}},
       .string = "https://example.com/path?key with spaces=value with spaces"},
      {.name = "empty_query",
       .in = "https://example.com/path?",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/path",
       .string = "https://example.com/path?"},
      {.name = "everything",
       .in = "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor",
       .scheme = "https",
       .host = "kubernetes.io:80",
       .hostname = "kubernetes.io",
       .port = "80",
       .escaped_path = "/docs/home",
       .query = {{"k1", {"a"}}, {"k2", {"b", "c"}}},
       .string = "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor",
       .fragment = "anchor"},
      // Kubernetes' cost test: accepted, as an opaque URI.
      {.name = "opaque_after_scheme",
       .in = "https:://kubernetes.io/",
       .scheme = "https",
       .string = "https:://kubernetes.io/"},
      {.name = "mailto", .in = "mailto:user@example.com", .scheme = "mailto", .string = "mailto:user@example.com"},
      {.name = "scheme_only", .in = "https:", .scheme = "https", .string = "https:"},
  };
}

std::vector<UrlCase> GoParserCases() {
  return {
      // Go's parser details.
      {.name = "scheme_lowercased_host_kept",
       .in = "HTTPS://Example.com",
       .scheme = "https",
       .host = "Example.com",
       .hostname = "Example.com",
       .string = "https://Example.com"},
      {.name = "escaped_slash_kept",
       .in = "https://example.com/a%2Fb",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/a%2Fb",
       .string = "https://example.com/a%2Fb"},
      {.name = "escaped_dots_kept",
       .in = "http://h/%2e%2E/",
       .scheme = "http",
       .host = "h",
       .hostname = "h",
       .escaped_path = "/%2e%2E/",
       .string = "http://h/%2e%2E/"},
      {.name = "path_sub_delims",
       .in = "http://h/a;b,c",
       .scheme = "http",
       .host = "h",
       .hostname = "h",
       .escaped_path = "/a;b,c",
       .string = "http://h/a;b,c"},
      {.name = "asterisk", .in = "*", .escaped_path = "*", .string = "*"},
      // ParseRequestURI takes "//host/path" as a path; Parse then finds a host.
      {.name = "network_path",
       .in = "//host/path",
       .host = "host",
       .hostname = "host",
       .escaped_path = "/path",
       .string = "//host/path"},
      {.name = "single_slash_after_scheme",
       .in = "https:/path",
       .scheme = "https",
       .escaped_path = "/path",
       .string = "https:/path"},
      {.name = "empty_authority",
       .in = "https:///path",
       .scheme = "https",
       .escaped_path = "/path",
       .string = "https:///path"},
      {.name = "fragment_unescaped",
       .in = "https://example.com/p#frag%20x",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/p",
       .string = "https://example.com/p#frag%20x",
       .fragment = "frag x"},
      {.name = "relative_with_query_and_fragment",
       .in = "/a b?c d#e f",
       .escaped_path = "/a%20b",
       .query = {{"c d", {""}}},
       .string = "/a%20b?c d#e%20f",
       .fragment = "e f"},
      {.name = "escaped_userinfo",
       .in = "https://us%20er:p%40ss@host/",
       .scheme = "https",
       .host = "host",
       .hostname = "host",
       .escaped_path = "/",
       .string = "https://us%20er:p%40ss@host/"},
      {.name = "ipv6_zone",
       .in = "http://[fe80::1%25en0]/",
       .scheme = "http",
       .host = "[fe80::1%en0]",
       .hostname = "fe80::1%en0",
       .escaped_path = "/",
       .string = "http://[fe80::1%25en0]/"},
      {.name = "bracketed_ipv4_mapped",
       .in = "http://[::ffff:1.2.3.4]/",
       .scheme = "http",
       .host = "[::ffff:1.2.3.4]",
       .hostname = "::ffff:1.2.3.4",
       .escaped_path = "/",
       .string = "http://[::ffff:1.2.3.4]/"},
      {.name = "empty_port",
       .in = "http://[::1]:/",
       .scheme = "http",
       .host = "[::1]:",
       .hostname = "::1",
       .escaped_path = "/",
       .string = "http://[::1]:/"},
      {.name = "non_ascii_host",
       .in = "https://b\xc3\xbc"
             "cher.example/",
       .scheme = "https",
       .host = "b\xc3\xbc"
               "cher.example",
       .hostname = "b\xc3\xbc"
                   "cher.example",
       .escaped_path = "/",
       .string = "https://b%C3%BCcher.example/"},
      {.name = "escaped_non_ascii_host",
       .in = "https://b%C3%BCcher.example/",
       .scheme = "https",
       .host = "b\xc3\xbc"
               "cher.example",
       .hostname = "b\xc3\xbc"
                   "cher.example",
       .escaped_path = "/",
       .string = "https://b%C3%BCcher.example/"},
  };
}

std::vector<UrlCase> PortAndQueryCases() {
  return {
      // Go 1.25 takes the last ':' as the port separator (see GoUrlRules).
      {.name = "colons_in_host",
       .in = "http://a:b:80/",
       .scheme = "http",
       .host = "a:b:80",
       .hostname = "a:b",
       .port = "80",
       .escaped_path = "/",
       .string = "http://a:b:80/"},
      // Query parsing.
      {.name = "query_key_without_value",
       .in = "https://example.com/?a=1&b",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"a", {"1"}}, {"b", {""}}},
       .string = "https://example.com/?a=1&b"},
      {.name = "query_semicolon_pair_dropped",
       .in = "https://example.com/?a=1;b=2&c=3",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"c", {"3"}}},
       .string = "https://example.com/?a=1;b=2&c=3"},
      {.name = "query_bad_escape_dropped",
       .in = "https://example.com/?a=%zz&b=2",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"b", {"2"}}},
       .string = "https://example.com/?a=%zz&b=2"},
      {.name = "query_plus_is_space",
       .in = "https://example.com/?a+b=c+d",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"a b", {"c d"}}},
       .string = "https://example.com/?a+b=c+d"},
      {.name = "query_empty_pairs_skipped",
       .in = "https://example.com/?a=1&&b=2",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"a", {"1"}}, {"b", {"2"}}},
       .string = "https://example.com/?a=1&&b=2"},
      {.name = "query_empty_key",
       .in = "https://example.com/?=x",
       .scheme = "https",
       .host = "example.com",
       .hostname = "example.com",
       .escaped_path = "/",
       .query = {{"", {"x"}}},
       .string = "https://example.com/?=x"},
      {.name = "query_values_in_order",
       .in = "http://x/?a=1&a=2&a=",
       .scheme = "http",
       .host = "x",
       .hostname = "x",
       .escaped_path = "/",
       .query = {{"a", {"1", "2", ""}}},
       .string = "http://x/?a=1&a=2&a="},
  };
}

const std::vector<UrlCase>& UrlCases() {
  static const std::vector<UrlCase> cases = JoinTestCases<UrlCase>({KubernetesCases, GoParserCases, PortAndQueryCases});
  return cases;
}

class UrlTest : public testing::TestWithParam<UrlCase> {};

TEST_P(UrlTest, ParsesLikeGo) {
  const UrlCase& c = GetParam();
  StatusOr<Url> u = Url::Parse(c.in);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_TRUE(Url::IsValid(c.in));
  EXPECT_EQ(u->scheme(), c.scheme);
  EXPECT_EQ(u->host(), c.host);
  EXPECT_EQ(u->Hostname(), c.hostname);
  EXPECT_EQ(u->Port(), c.port);
  EXPECT_EQ(u->EscapedPath(), c.escaped_path);
  EXPECT_EQ(u->Query(), c.query);
  EXPECT_EQ(u->String(), c.string);
  EXPECT_EQ(u->fragment(), c.fragment);
  // Go's String() reparses to an equal URL.
  StatusOr<Url> again = Url::Parse(u->String());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *u);
}

INSTANTIATE_TEST_SUITE_P(UrlTest, UrlTest, testing::ValuesIn(UrlCases()),
                         [](const testing::TestParamInfo<UrlCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// ---------------------------------------------------------------------------
// url() on rejected text, with the CEL error texts.

struct RejectCase {
  std::string_view name;
  std::string_view in;
  std::string_view want_error;  // after "URL parse error during conversion from string: "
  bool is_url = false;          // isURL still true (only the fragment is bad)
};

void PrintTo(const RejectCase& c, std::ostream* os) { *os << c.name; }

const std::vector<RejectCase>& RejectCases() {
  static const std::vector<RejectCase> cases = {
      // Kubernetes tests and documentation.
      {"colons_in_host", "https://a:b:c/", R"(parse "https://a:b:c/": invalid port ":c" after host)"},
      {"relative_path", "../relative-path", R"(parse "../relative-path": invalid URI for request)"},
      // net/url.
      {"empty", "", R"(parse "": empty url)"},
      {"space_in_host", "https://exa mple.com/",
       R"(parse "https://exa mple.com/": invalid character " " in host name)"},
      {"bad_escape", "https://example.com/%zz", R"(parse "https://example.com/%zz": invalid URL escape "%zz")"},
      {"short_escape", "https://example.com/%z", R"(parse "https://example.com/%z": invalid URL escape "%z")"},
      {"lone_percent", "https://example.com/%", R"(parse "https://example.com/%": invalid URL escape "%")"},
      {"control_character", "https://example.com/\x7f",
       R"(parse "https://example.com/\x7f": net/url: invalid control character in URL)"},
      {"nul", std::string_view("https://example.com/path\0", 25),
       R"(parse "https://example.com/path\x00": net/url: invalid control character in URL)"},
      {"missing_scheme", ":foo", R"(parse ":foo": missing protocol scheme)"},
      {"unclosed_bracket", "https://[::1/", R"(parse "https://[::1/": missing ']' in host)"},
      {"bracketed_ipv4", "https://[1.2.3.4]/", R"(parse "https://[1.2.3.4]/": invalid IP-literal)"},
      {"bracketed_not_an_ip", "https://[v1.x]/",
       R"(parse "https://[v1.x]/": invalid host: )"
       R"(ParseAddr("v1.x"): unexpected character (at "v1.x"))"},
      {"bracketed_empty", "http://[]/", R"(parse "http://[]/": invalid host: ParseAddr(""): unable to parse IP)"},
      {"bracket_inside_host", "https://a[::1]/", R"(parse "https://a[::1]/": invalid IP-literal)"},
      {"junk_after_bracket", "https://[::1]x/", R"(parse "https://[::1]x/": invalid port "x" after host)"},
      {"empty_zone", "http://[fe80::1%25]/",
       R"(parse "http://[fe80::1%25]/": invalid host: )"
       R"(ParseAddr("fe80::1%"): zone must be a non-empty string)"},
      {"control_escape_in_zone", "http://[::1%25eth0%0a]/",
       R"(parse "http://[::1%25eth0%0a]/": invalid URL escape "%0a")"},
      {"non_ascii_userinfo", "https://\xc3\xbc@example.com/",
       "parse \"https://\xc3\xbc@example.com/\": net/url: invalid userinfo"},
      {"non_numeric_port", "https://example.com:abc/x",
       R"(parse "https://example.com:abc/x": invalid port ":abc" after host)"},
      {"ascii_escape_in_host", "https://%41.com/", R"(parse "https://%41.com/": invalid URL escape "%41")"},
      {"bad_escape_in_host", "http://h%zz/", R"(parse "http://h%zz/": invalid URL escape "%zz")"},
      {"no_scheme_no_slash", "foo bar", R"(parse "foo bar": invalid URI for request)"},
      {"digit_first_scheme", "1a:b/x", R"(parse "1a:b/x": invalid URI for request)"},
      {"query_only", "?q", R"(parse "?q": invalid URI for request)"},
      // ParseRequestURI keeps "#x?%zz" as path and (unchecked) query; only the
      // second parse, which splits off the fragment, rejects it.
      {"bad_escape_in_fragment", "https://example.com/#x?%zz",
       R"(parse "https://example.com/#x?%zz": invalid URL escape "%zz")", /*is_url=*/true},
  };
  return cases;
}

class RejectTest : public testing::TestWithParam<RejectCase> {};

TEST_P(RejectTest, FailsWithKubernetesMessage) {
  const RejectCase& c = GetParam();
  StatusOr<Url> u = Url::Parse(c.in);
  ASSERT_FALSE(u.ok()) << "parsed as " << u->String();
  EXPECT_EQ(u.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(u.status().message(), "URL parse error during conversion from string: " + std::string(c.want_error));
  EXPECT_EQ(Url::IsValid(c.in), c.is_url);
}

INSTANTIATE_TEST_SUITE_P(UrlTest, RejectTest, testing::ValuesIn(RejectCases()),
                         [](const testing::TestParamInfo<RejectCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(UrlTest, IsURLExamples) {
  // The Kubernetes library documentation.
  EXPECT_TRUE(Url::IsValid("https://user:pass@example.com:80/path?query=val#fragment"));
  EXPECT_TRUE(Url::IsValid("/absolute-path"));
  EXPECT_FALSE(Url::IsValid("https://a:b:c/"));
  EXPECT_FALSE(Url::IsValid("../relative-path"));
}

TEST(UrlTest, Go126IsStrictAboutColonsInHttpHosts) {
  // Same result under both rule sets for the bracketed and other-scheme forms.
  for (GoUrlRules rules : {GoUrlRules::kGo125, GoUrlRules::kGo126}) {
    EXPECT_TRUE(Url::IsValid("foo://a:b:80/", rules));
    EXPECT_TRUE(Url::IsValid("http://[::1]:80/", rules));
  }
  EXPECT_TRUE(Url::IsValid("http://a:b:80/", GoUrlRules::kGo125));
  StatusOr<Url> u = Url::Parse("http://a:b:80/", GoUrlRules::kGo126);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), R"(URL parse error during conversion from string: )"
                                  R"(parse "http://a:b:80/": invalid port ":b:80" after host)");
  StatusOr<Url> v = Url::Parse("https://a:b:c/", GoUrlRules::kGo126);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), R"(URL parse error during conversion from string: )"
                                  R"(parse "https://a:b:c/": invalid port ":b:c" after host)");
}

TEST(UrlTest, ExposesRawFields) {
  Url u = *Url::Parse("https://us%20er:p%40ss@host/a%2Fb?x=1#f%20g");
  EXPECT_TRUE(u.has_user());
  EXPECT_EQ(u.username(), "us er");
  EXPECT_TRUE(u.has_password());
  EXPECT_EQ(u.password(), "p@ss");
  EXPECT_EQ(u.path(), "/a/b");
  EXPECT_EQ(u.raw_path(), "/a%2Fb");
  EXPECT_EQ(u.raw_query(), "x=1");
  EXPECT_EQ(u.fragment(), "f g");
  EXPECT_EQ(u.opaque(), "");
  EXPECT_FALSE(u.force_query());
  EXPECT_TRUE(Url::Parse("https://h/?")->force_query());
  EXPECT_TRUE(Url::Parse("https:/p")->omit_host());
  EXPECT_EQ(Url::Parse("mailto:a@b")->opaque(), "a@b");
}

TEST(UrlTest, EqualityComparesStringForms) {
  EXPECT_EQ(*Url::Parse("https://example.com"), *Url::Parse("https://example.com"));
  EXPECT_EQ(*Url::Parse("HTTPS://example.com/a b"), *Url::Parse("https://example.com/a%20b"));
  EXPECT_NE(*Url::Parse("https://example.com"), *Url::Parse("https://example.com/"));
  EXPECT_NE(*Url::Parse("https://Example.com"), *Url::Parse("https://example.com"));
}

TEST(UrlTest, QueryBeyondGoLimitIsEmpty) {
  std::string many = "https://h/?a=1";
  for (int i = 0; i < 10000; ++i) many += "&b=2";
  EXPECT_TRUE(Url::Parse(many)->Query().empty());
  std::string limit = "https://h/?a=1";
  for (int i = 0; i < 9999; ++i) limit += "&b=2";
  std::vector<Url::QueryEntry> q = Url::Parse(limit)->Query();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1].second.size(), 9999u);
}

}  // namespace
}  // namespace dra::cel::lib
