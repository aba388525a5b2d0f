// Url: the value behind the Kubernetes CEL url library
// (k8s.io/apiserver pkg/cel/library/urls.go, CEL type kubernetes.URL), which
// wraps Go's net/url.URL.
//
// CEL surface and how it maps here:
//   url(s)              Url::Parse(s)
//   isURL(s)            Url::IsValid(s)
//   u.getScheme()       scheme()         lowercased, "" if absent
//   u.getHost()         host()           host[:port], IPv6 in brackets, "" if absent
//   u.getHostname()     Hostname()       host without port and brackets
//   u.getPort()         Port()           digits after the last ':' of the host, or ""
//   u.getEscapedPath()  EscapedPath()    e.g. "/with%20space/", "" if absent
//   u.getQuery()        Query()          map(string, list(string)), unescaped
//   u == u2             operator==       compares String()
//
// Acceptance follows Go 1.25 (with the October 2025 security release):
// url(s) and isURL(s) require what url.ParseRequestURI accepts, i.e. an
// absolute URI ("https://host/p", "mailto:x") or an absolute path ("/p");
// relative references, control characters, bad %-escapes, non-numeric ports,
// invalid host characters and bracketed hosts that are not IPv6 addresses are
// errors. url(s) then re-parses with url.Parse so a "#fragment" is split off
// (ParseRequestURI keeps it in the path or query), and that second parse can
// itself reject a bad escape in the fragment.
//
// Errors are kInvalidArgument with the CEL error text, e.g.
//   URL parse error during conversion from string: parse "https://a:b:c/":
//   invalid port ":c" after host
// (on one line).
//
// Thread-safety: immutable value type.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace dra::cel::lib {

// Where Go releases differ in what net/url accepts, which one to follow.
enum class GoUrlRules {
  // Go 1.24 / 1.25 (Kubernetes 1.34, 1.35): the last ':' of a host starts
  // the port, so "http://a:b:80/" has host "a:b:80".
  kGo125,
  // Go 1.26 with a go >= 1.26 main module (GODEBUG urlstrictcolons=1): for
  // http and https the first ':' does, so "http://a:b:80/" is an error
  // (invalid port ":b:80" after host); other schemes as kGo125.
  kGo126,
};

class Url {
 public:
  // One query key with its values, in order of appearance.
  using QueryEntry = std::pair<std::string, std::vector<std::string>>;

  static StatusOr<Url> Parse(std::string_view text, GoUrlRules rules = GoUrlRules::kGo125);
  // isURL: ParseRequestURI(text) succeeds (a fragment is not re-checked).
  static bool IsValid(std::string_view text, GoUrlRules rules = GoUrlRules::kGo125);

  const std::string& scheme() const { return scheme_; }
  const std::string& host() const { return host_; }
  std::string Hostname() const;
  std::string Port() const;
  std::string EscapedPath() const;

  // url.URL.Query(): the raw query split at '&'; a pair containing ';', an
  // empty pair or one with a bad %-escape is dropped; "k" alone is k -> [""];
  // '+' means space. Keys appear in the order first seen; values keep order.
  // More than 10000 pairs give no entries at all (Go's urlmaxqueryparams).
  std::vector<QueryEntry> Query() const;

  // Go's URL.String() (what upstream compares for ==).
  std::string String() const;

  // The remaining url.URL fields, for completeness and tests.
  const std::string& opaque() const { return opaque_; }
  const std::string& path() const { return path_; }          // unescaped
  const std::string& raw_path() const { return raw_path_; }  // escaping hint or ""
  const std::string& raw_query() const { return raw_query_; }
  const std::string& fragment() const { return fragment_; }  // unescaped
  bool has_user() const { return has_user_; }
  const std::string& username() const { return username_; }
  const std::string& password() const { return password_; }
  bool has_password() const { return has_password_; }
  bool force_query() const { return force_query_; }
  bool omit_host() const { return omit_host_; }

  friend bool operator==(const Url& a, const Url& b) { return a.String() == b.String(); }

 private:
  friend class UrlParser;

  std::string scheme_;
  std::string opaque_;
  bool has_user_ = false;
  std::string username_;
  std::string password_;
  bool has_password_ = false;
  std::string host_;
  std::string path_;
  std::string raw_path_;
  bool omit_host_ = false;
  bool force_query_ = false;
  std::string raw_query_;
  std::string fragment_;
  std::string raw_fragment_;
};

}  // namespace dra::cel::lib
