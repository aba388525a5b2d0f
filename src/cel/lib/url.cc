// Go's net/url parse (ParseRequestURI and Parse), escaping, Hostname/Port,
// EscapedPath, Query and String, as the Kubernetes URL library exposes them.
// Function names follow net/url so the two can be read side by side.
#include "cel/lib/url.h"

#include <algorithm>

#include "cel/lib/internal/go_strconv.h"
#include "cel/lib/internal/netip.h"

namespace dra::cel::lib {
namespace {

using internal::GoQuote;

// net/url's encoding modes.
enum class Mode { kPath, kPathSegment, kHost, kZone, kUserPassword, kQueryComponent, kFragment };

constexpr char kUpperHex[] = "0123456789ABCDEF";

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
uint8_t Unhex(char c) {
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
  return static_cast<uint8_t>(c - 'A' + 10);
}

// shouldEscape: whether byte c must be %-escaped in the given part of a URL.
bool ShouldEscape(uint8_t c, Mode mode) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;
  if (mode == Mode::kHost || mode == Mode::kZone) {
    switch (c) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '[':
      case ']':
      case '<':
      case '>':
      case '"': return false;
      default: break;
    }
  }
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '~': return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      switch (mode) {
        case Mode::kPath: return c == '?';
        case Mode::kPathSegment: return c == '/' || c == ';' || c == ',' || c == '?';
        case Mode::kUserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
        case Mode::kQueryComponent: return true;
        case Mode::kFragment: return false;
        default: break;
      }
      break;
    default: break;
  }
  if (mode == Mode::kFragment) {
    switch (c) {
      case '!':
      case '(':
      case ')':
      case '*': return false;
      default: break;
    }
  }
  return true;
}

Status EscapeError(std::string_view s) { return InvalidArgumentError("invalid URL escape " + GoQuote(s)); }

// unescape(s, mode).
StatusOr<std::string> Unescape(std::string_view s, Mode mode) {
  size_t n = 0;
  bool has_plus = false;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '%') {
      ++n;
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        return EscapeError(s.substr(i, std::min<size_t>(3, s.size() - i)));
      }
      std::string_view esc = s.substr(i, 3);
      // A host may %-encode only non-ASCII bytes, except RFC 6874's "%25".
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && esc != "%25") return EscapeError(esc);
      if (mode == Mode::kZone) {
        uint8_t v = static_cast<uint8_t>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
        if (esc != "%25" && v != ' ' && ShouldEscape(v, Mode::kHost)) return EscapeError(esc);
      }
      i += 3;
    } else if (c == '+') {
      has_plus = mode == Mode::kQueryComponent;
      ++i;
    } else {
      uint8_t b = static_cast<uint8_t>(c);
      if ((mode == Mode::kHost || mode == Mode::kZone) && b < 0x80 && ShouldEscape(b, mode)) {
        return InvalidArgumentError("invalid character " + GoQuote(s.substr(i, 1)) + " in host name");
      }
      ++i;
    }
  }
  if (n == 0 && !has_plus) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out.push_back(static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(mode == Mode::kQueryComponent ? ' ' : '+');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// escape(s, mode).
std::string Escape(std::string_view s, Mode mode) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    uint8_t c = static_cast<uint8_t>(ch);
    if (c == ' ' && mode == Mode::kQueryComponent) {
      out.push_back('+');
    } else if (ShouldEscape(c, mode)) {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

// validEncoded: s needs no escaping beyond what it has.
bool ValidEncoded(std::string_view s, Mode mode) {
  for (char ch : s) {
    switch (ch) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '@':
      case '[':
      case ']':
      case '%': break;
      default:
        if (ShouldEscape(static_cast<uint8_t>(ch), mode)) return false;
    }
  }
  return true;
}

// validOptionalPort: "" or ":" followed by digits only.
bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return std::all_of(port.begin() + 1, port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// validUserinfo: RFC 3986 userinfo characters (escapes checked later). Any
// non-ASCII byte fails, as Go's rune loop does for any non-ASCII rune.
bool ValidUserinfo(std::string_view s) {
  for (char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) continue;
    switch (c) {
      case '-':
      case '.':
      case '_':
      case ':':
      case '~':
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case '%':
      case '@': continue;
      default: return false;
    }
  }
  return true;
}

bool ContainsCtlByte(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    uint8_t b = static_cast<uint8_t>(c);
    return b < ' ' || b == 0x7f;
  });
}

// splitHostPort (URL.Hostname / URL.Port): a valid ":digits" suffix is the
// port; then brackets around the host are removed.
std::pair<std::string, std::string> SplitHostPort(std::string_view host_port) {
  std::string_view host = host_port, port;
  size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {std::string(host), std::string(port)};
}

Status UrlError(std::string_view url, const Status& cause) {
  return InvalidArgumentError("parse " + GoQuote(url) + ": " + cause.message());
}

}  // namespace

// Befriended by Url to fill in its fields.
class UrlParser {
 public:
  // parse(rawURL, viaRequest) without the "parse %q:" wrapping.
  static StatusOr<Url> ParseRaw(std::string_view raw, bool via_request, GoUrlRules rules) {
    if (ContainsCtlByte(raw)) return InvalidArgumentError("net/url: invalid control character in URL");
    if (raw.empty() && via_request) return InvalidArgumentError("empty url");
    Url url;
    if (raw == "*") {
      url.path_ = "*";
      return url;
    }
    // getScheme: [a-zA-Z][a-zA-Z0-9+.-]* followed by ':'.
    std::string_view rest = raw;
    for (size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
      if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
        if (i == 0) break;
        continue;
      }
      if (c == ':') {
        if (i == 0) return InvalidArgumentError("missing protocol scheme");
        url.scheme_ = std::string(raw.substr(0, i));
        rest = raw.substr(i + 1);
      }
      break;
    }
    std::transform(url.scheme_.begin(), url.scheme_.end(), url.scheme_.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });

    if (!rest.empty() && rest.back() == '?' && std::count(rest.begin(), rest.end(), '?') == 1) {
      url.force_query_ = true;
      rest.remove_suffix(1);
    } else if (size_t q = rest.find('?'); q != std::string_view::npos) {
      url.raw_query_ = std::string(rest.substr(q + 1));
      rest = rest.substr(0, q);
    }

    if (rest.empty() || rest[0] != '/') {
      if (!url.scheme_.empty()) {
        // A rootless path after a scheme is opaque (RFC 3986).
        url.opaque_ = std::string(rest);
        return url;
      }
      if (via_request) return InvalidArgumentError("invalid URI for request");
      // Avoid confusion with malformed schemes, like cache_object:foo/bar.
      std::string_view segment = rest.substr(0, rest.find('/'));
      if (segment.find(':') != std::string_view::npos) {
        return InvalidArgumentError("first path segment in URL cannot contain colon");
      }
    }

    bool starts_with_2 = rest.substr(0, 2) == "//";
    bool starts_with_3 = rest.substr(0, 3) == "///";
    if ((!url.scheme_.empty() || (!via_request && !starts_with_3)) && starts_with_2) {
      std::string_view authority = rest.substr(2);
      rest = {};
      if (size_t slash = authority.find('/'); slash != std::string_view::npos) {
        rest = authority.substr(slash);
        authority = authority.substr(0, slash);
      }
      DRA_RETURN_IF_ERROR(ParseAuthority(url, authority, rules));
    } else if (!url.scheme_.empty() && !rest.empty() && rest[0] == '/') {
      url.omit_host_ = true;
    }
    DRA_RETURN_IF_ERROR(SetPath(url, rest));
    return url;
  }

  static Status SetFragment(Url& url, std::string_view f) {
    DRA_ASSIGN_OR_RETURN(url.fragment_, Unescape(f, Mode::kFragment));
    url.raw_fragment_ = Escape(url.fragment_, Mode::kFragment) == f ? "" : std::string(f);
    return OkStatus();
  }

 private:
  static Status ParseAuthority(Url& url, std::string_view authority, GoUrlRules rules) {
    size_t at = authority.rfind('@');
    std::string_view host_part = at == std::string_view::npos ? authority : authority.substr(at + 1);
    DRA_ASSIGN_OR_RETURN(url.host_, ParseHost(url.scheme_, host_part, rules));
    if (at == std::string_view::npos) return OkStatus();
    std::string_view userinfo = authority.substr(0, at);
    if (!ValidUserinfo(userinfo)) return InvalidArgumentError("net/url: invalid userinfo");
    url.has_user_ = true;
    if (size_t colon = userinfo.find(':'); colon == std::string_view::npos) {
      DRA_ASSIGN_OR_RETURN(url.username_, Unescape(userinfo, Mode::kUserPassword));
    } else {
      DRA_ASSIGN_OR_RETURN(url.username_, Unescape(userinfo.substr(0, colon), Mode::kUserPassword));
      DRA_ASSIGN_OR_RETURN(url.password_, Unescape(userinfo.substr(colon + 1), Mode::kUserPassword));
      url.has_password_ = true;
    }
    return OkStatus();
  }

  // parseHost: host[:port], or [IPv6 literal[%25zone]][:port].
  static StatusOr<std::string> ParseHost(std::string_view scheme, std::string_view host, GoUrlRules rules) {
    size_t open = host.rfind('[');
    if (open != std::string_view::npos && open > 0) {
      return InvalidArgumentError("invalid IP-literal");
    }
    if (open == 0) {
      size_t close = host.rfind(']');
      if (close == std::string_view::npos) return InvalidArgumentError("missing ']' in host");
      std::string_view colon_port = host.substr(close + 1);
      if (!ValidOptionalPort(colon_port)) {
        return InvalidArgumentError("invalid port " + GoQuote(colon_port) + " after host");
      }
      DRA_ASSIGN_OR_RETURN(std::string port, Unescape(colon_port, Mode::kHost));
      std::string_view hostname = host.substr(1, close - 1);
      // RFC 6874: "%25" starts a zone, which may use more escapes than a host.
      std::string unescaped;
      if (size_t zone = hostname.find("%25"); zone != std::string_view::npos) {
        DRA_ASSIGN_OR_RETURN(std::string h, Unescape(hostname.substr(0, zone), Mode::kHost));
        DRA_ASSIGN_OR_RETURN(std::string z, Unescape(hostname.substr(zone), Mode::kZone));
        unescaped = h + z;
      } else {
        DRA_ASSIGN_OR_RETURN(unescaped, Unescape(hostname, Mode::kHost));
      }
      // Only an IPv6 address may be bracketed (an IPv4-mapped one is fine).
      StatusOr<internal::NetAddr> addr = internal::ParseNetAddr(unescaped);
      if (!addr.ok()) return InvalidArgumentError("invalid host: " + addr.status().message());
      if (addr->is4) return InvalidArgumentError("invalid IP-literal");
      return "[" + unescaped + "]" + port;
    }
    // RFC 3986 allows no ':' in a host besides the port's; Go 1.26 enforces
    // that for http(s) only, since other schemes carry "h1:p1,h2:p2" lists.
    if (size_t colon = host.find(':'); colon != std::string_view::npos) {
      bool strict = rules == GoUrlRules::kGo126 && (scheme == "http" || scheme == "https");
      if (!strict) colon = host.rfind(':');
      std::string_view colon_port = host.substr(colon);
      if (!ValidOptionalPort(colon_port)) {
        return InvalidArgumentError("invalid port " + GoQuote(colon_port) + " after host");
      }
    }
    return Unescape(host, Mode::kHost);
  }

  // setPath: Path is the unescaped form; RawPath keeps the original only when
  // re-escaping Path would not reproduce it.
  static Status SetPath(Url& url, std::string_view p) {
    DRA_ASSIGN_OR_RETURN(url.path_, Unescape(p, Mode::kPath));
    url.raw_path_ = Escape(url.path_, Mode::kPath) == p ? "" : std::string(p);
    return OkStatus();
  }
};

StatusOr<Url> Url::Parse(std::string_view text, GoUrlRules rules) {
  static constexpr std::string_view kPrefix = "URL parse error during conversion from string: ";
  // url.ParseRequestURI decides what is a URL ...
  if (StatusOr<Url> checked = UrlParser::ParseRaw(text, /*via_request=*/true, rules); !checked.ok()) {
    return InvalidArgumentError(std::string(kPrefix) + UrlError(text, checked.status()).message());
  }
  // ... and url.Parse builds the value, splitting off the fragment.
  size_t hash = text.find('#');
  std::string_view before = text.substr(0, hash);
  StatusOr<Url> url = UrlParser::ParseRaw(before, /*via_request=*/false, rules);
  if (!url.ok()) {
    return InvalidArgumentError(std::string(kPrefix) + UrlError(before, url.status()).message());
  }
  if (hash != std::string_view::npos && hash + 1 < text.size()) {
    if (Status s = UrlParser::SetFragment(*url, text.substr(hash + 1)); !s.ok()) {
      return InvalidArgumentError(std::string(kPrefix) + UrlError(text, s).message());
    }
  }
  return url;
}

bool Url::IsValid(std::string_view text, GoUrlRules rules) {
  return UrlParser::ParseRaw(text, /*via_request=*/true, rules).ok();
}

std::string Url::Hostname() const { return SplitHostPort(host_).first; }

std::string Url::Port() const { return SplitHostPort(host_).second; }

std::string Url::EscapedPath() const {
  if (!raw_path_.empty() && ValidEncoded(raw_path_, Mode::kPath)) {
    StatusOr<std::string> p = Unescape(raw_path_, Mode::kPath);
    if (p.ok() && *p == path_) return raw_path_;
  }
  if (path_ == "*") return "*";
  return Escape(path_, Mode::kPath);
}

std::vector<Url::QueryEntry> Url::Query() const {
  std::vector<QueryEntry> out;
  std::string_view query = raw_query_;
  if (std::count(query.begin(), query.end(), '&') + 1 > 10000) return out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos || pair.empty()) continue;
    size_t eq = pair.find('=');
    StatusOr<std::string> key = Unescape(pair.substr(0, eq), Mode::kQueryComponent);
    if (!key.ok()) continue;
    StatusOr<std::string> value =
        Unescape(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), Mode::kQueryComponent);
    if (!value.ok()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const QueryEntry& e) { return e.first == *key; });
    if (it == out.end()) {
      out.push_back({*std::move(key), {}});
      it = out.end() - 1;
    }
    it->second.push_back(*std::move(value));
  }
  return out;
}

std::string Url::String() const {
  std::string out;
  if (!scheme_.empty()) out += scheme_ + ":";
  if (!opaque_.empty()) {
    out += opaque_;
  } else {
    if (!scheme_.empty() || !host_.empty() || has_user_) {
      if (!(omit_host_ && host_.empty() && !has_user_)) {
        if (!host_.empty() || !path_.empty() || has_user_) out += "//";
        if (has_user_) {
          out += Escape(username_, Mode::kUserPassword);
          if (has_password_) {
            out.push_back(':');
            out += Escape(password_, Mode::kUserPassword);
          }
          out += "@";
        }
        if (!host_.empty()) out += Escape(host_, Mode::kHost);
      }
    }
    std::string path = EscapedPath();
    if (!path.empty() && path[0] != '/' && !host_.empty()) out += "/";
    if (out.empty()) {
      // A first segment with ':' would read as a scheme (RFC 3986 4.2).
      std::string_view segment = std::string_view(path).substr(0, path.find('/'));
      if (segment.find(':') != std::string_view::npos) out += "./";
    }
    out += path;
  }
  if (force_query_ || !raw_query_.empty()) out += "?" + raw_query_;
  if (!fragment_.empty()) {
    std::string frag = Escape(fragment_, Mode::kFragment);
    if (!raw_fragment_.empty() && ValidEncoded(raw_fragment_, Mode::kFragment)) {
      StatusOr<std::string> f = Unescape(raw_fragment_, Mode::kFragment);
      if (f.ok() && *f == fragment_) frag = raw_fragment_;
    }
    out += "#" + frag;
  }
  return out;
}

}  // namespace dra::cel::lib
