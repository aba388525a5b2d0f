// Follows Go's net/netip (ParseAddr, parseIPv4Fields, parseIPv6, ParsePrefix,
// Addr.String and the Is* predicates) closely enough that the same inputs
// fail with the same messages, since Kubernetes puts those messages into the
// CEL errors of ip() and cidr().
#include "cel/lib/internal/netip.h"

#include <limits>
#include <optional>

#include "cel/lib/internal/go_strconv.h"

namespace dra::cel::lib::internal {
namespace {

Status AddrError(std::string_view in, std::string_view msg, std::string_view at = {}) {
  std::string m = "ParseAddr(" + GoQuote(in) + "): " + std::string(msg);
  if (!at.empty()) m += " (at " + GoQuote(at) + ")";
  return InvalidArgumentError(std::move(m));
}

// parseIPv4Fields: parses in[off:end] into four octets. Errors name the whole
// input `in`, and "at" is relative to the IPv4 part.
Status ParseIPv4Fields(std::string_view in, size_t off, size_t end, uint8_t* fields) {
  std::string_view s = in.substr(off, end - off);
  int val = 0, pos = 0, dig_len = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      if (dig_len == 1 && val == 0) return AddrError(in, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - '0');
      ++dig_len;
      if (val > 255) return AddrError(in, "IPv4 field has value >255");
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        return AddrError(in, "IPv4 field must have at least one digit", s.substr(i));
      }
      if (pos == 3) return AddrError(in, "IPv4 address too long");
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      dig_len = 0;
    } else {
      return AddrError(in, "unexpected character", s.substr(i));
    }
  }
  if (pos < 3) return AddrError(in, "IPv4 address too short");
  fields[3] = static_cast<uint8_t>(val);
  return OkStatus();
}

NetAddr FromV4(const uint8_t* f) {
  NetAddr a;
  a.is4 = true;
  a.bytes[10] = a.bytes[11] = 0xff;
  for (size_t k = 0; k < 4; ++k) a.bytes[12 + k] = f[k];
  return a;
}

StatusOr<NetAddr> ParseIPv4(std::string_view s) {
  uint8_t fields[4] = {};
  DRA_RETURN_IF_ERROR(ParseIPv4Fields(s, 0, s.size(), fields));
  return FromV4(fields);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

StatusOr<NetAddr> ParseIPv6(std::string_view in) {
  std::string_view s = in;
  std::string_view zone;
  if (size_t p = s.find('%'); p != std::string_view::npos) {
    zone = s.substr(p + 1);
    s = s.substr(0, p);
    if (zone.empty()) return AddrError(in, "zone must be a non-empty string");
  }
  NetAddr addr;
  addr.zone = std::string(zone);
  std::array<uint8_t, 16>& ip = addr.bytes;
  int ellipsis = -1;  // position of "::" in ip

  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return addr;  // "::"
  }

  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      int h = HexValue(s[off]);
      if (h < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(h);
      if (off > 3) return AddrError(in, "each group must have 4 or less digits", s);
      if (acc > 0xFFFF) return AddrError(in, "IPv6 field has value >=2^16", s);
    }
    if (off == 0) return AddrError(in, "each colon-separated field must have at least one digit", s);

    // A dot after the hex digits starts a trailing IPv4 address.
    if (off < s.size() && s[off] == '.') {
      if (ellipsis < 0 && i != 12) {
        return AddrError(in, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16) {
        return AddrError(in, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      }
      size_t end = in.size();
      if (!zone.empty()) end -= zone.size() + 1;
      DRA_RETURN_IF_ERROR(ParseIPv4Fields(in, end - s.size(), end, &ip[static_cast<size_t>(i)]));
      s = {};
      i += 4;
      break;
    }

    ip[static_cast<size_t>(i)] = static_cast<uint8_t>(acc >> 8);
    ip[static_cast<size_t>(i) + 1] = static_cast<uint8_t>(acc);
    i += 2;

    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') return AddrError(in, "unexpected character, want colon", s);
    if (s.size() == 1) return AddrError(in, "colon must be followed by more characters", s);
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return AddrError(in, "multiple :: in address", s);
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }

  if (!s.empty()) return AddrError(in, "trailing garbage after address", s);

  if (i < 16) {
    if (ellipsis < 0) return AddrError(in, "address string too short");
    int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[static_cast<size_t>(j + n)] = ip[static_cast<size_t>(j)];
    for (int j = ellipsis; j < ellipsis + n; ++j) ip[static_cast<size_t>(j)] = 0;
  } else if (ellipsis >= 0) {
    return AddrError(in, "the :: must expand to at least one field of zeros");
  }
  return addr;
}

uint16_t Group(const NetAddr& a, int g) {
  return static_cast<uint16_t>((a.bytes[static_cast<size_t>(2 * g)] << 8) | a.bytes[static_cast<size_t>(2 * g + 1)]);
}

void AppendV4(const NetAddr& a, std::string& out) {
  for (int k = 0; k < 4; ++k) {
    if (k > 0) out.push_back('.');
    out += std::to_string(a.bytes[static_cast<size_t>(12 + k)]);
  }
}

void AppendHex16(uint16_t x, std::string& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    int d = (x >> shift) & 0xF;
    if (d != 0 || started || shift == 0) {
      out.push_back(kDigits[d]);
      started = true;
    }
  }
}

// The same address as an IPv4 one if it is IPv4-mapped (Addr.Unmap).
NetAddr Unmap(const NetAddr& a) {
  if (!a.Is4In6()) return a;
  NetAddr u = a;
  u.is4 = true;
  u.zone.clear();
  return u;
}

bool HighBytesZero(const NetAddr& a, int n) {
  for (int k = 0; k < n; ++k) {
    if (a.bytes[static_cast<size_t>(k)] != 0) return false;
  }
  return true;
}

}  // namespace

bool NetAddr::Is4In6() const { return !is4 && HighBytesZero(*this, 10) && bytes[10] == 0xff && bytes[11] == 0xff; }

std::string NetAddr::String() const {
  std::string out;
  if (is4) {
    AppendV4(*this, out);
    return out;
  }
  if (Is4In6()) {
    out = "::ffff:";
    AppendV4(*this, out);
  } else {
    // Longest run of at least two zero groups; the first one wins a tie.
    int zero_start = -1, zero_end = -1;
    for (int g = 0; g < 8; ++g) {
      int j = g;
      while (j < 8 && Group(*this, j) == 0) ++j;
      if (j - g >= 2 && j - g > zero_end - zero_start) {
        zero_start = g;
        zero_end = j;
      }
    }
    for (int g = 0; g < 8; ++g) {
      if (g == zero_start) {
        out += "::";
        g = zero_end;
        if (g >= 8) break;
      } else if (g > 0) {
        out.push_back(':');
      }
      AppendHex16(Group(*this, g), out);
    }
  }
  if (!zone.empty()) out += "%" + zone;
  return out;
}

bool NetAddr::IsUnspecified() const {
  // Only 0.0.0.0 and :: (without zone): netip compares whole Addr values.
  if (is4) return bytes[12] == 0 && bytes[13] == 0 && bytes[14] == 0 && bytes[15] == 0;
  return zone.empty() && HighBytesZero(*this, 16);
}

bool NetAddr::IsLoopback() const {
  NetAddr a = Unmap(*this);
  if (a.is4) return a.bytes[12] == 127;
  return HighBytesZero(a, 15) && a.bytes[15] == 1;
}

bool NetAddr::IsMulticast() const {
  NetAddr a = Unmap(*this);
  if (a.is4) return (a.bytes[12] & 0xF0) == 0xE0;
  return a.bytes[0] == 0xff;
}

bool NetAddr::IsLinkLocalMulticast() const {
  NetAddr a = Unmap(*this);
  if (a.is4) return a.bytes[12] == 224 && a.bytes[13] == 0 && a.bytes[14] == 0;
  return (Group(a, 0) & 0xff0f) == 0xff02;
}

bool NetAddr::IsLinkLocalUnicast() const {
  NetAddr a = Unmap(*this);
  if (a.is4) return a.bytes[12] == 169 && a.bytes[13] == 254;
  return (Group(a, 0) & 0xffc0) == 0xfe80;
}

bool NetAddr::IsGlobalUnicast() const {
  NetAddr a = Unmap(*this);
  if (a.is4) {
    bool all_zero = a.bytes[12] == 0 && a.bytes[13] == 0 && a.bytes[14] == 0 && a.bytes[15] == 0;
    bool all_ones = a.bytes[12] == 255 && a.bytes[13] == 255 && a.bytes[14] == 255 && a.bytes[15] == 255;
    if (all_zero || all_ones) return false;
  } else if (a.zone.empty() && HighBytesZero(a, 16)) {
    return false;  // ::
  }
  return !a.IsLoopback() && !a.IsMulticast() && !a.IsLinkLocalUnicast();
}

NetAddr NetAddr::Masked(int bits) const {
  NetAddr m = *this;
  m.zone.clear();
  int effective = is4 ? bits + 96 : bits;
  for (int k = 0; k < 16; ++k) {
    int keep = effective - 8 * k;  // bits of this byte to keep
    if (keep >= 8) continue;
    uint8_t mask = keep <= 0 ? uint8_t{0} : static_cast<uint8_t>(0xFF << (8 - keep));
    m.bytes[static_cast<size_t>(k)] = static_cast<uint8_t>(m.bytes[static_cast<size_t>(k)] & mask);
  }
  return m;
}

bool NetPrefix::Contains(const NetAddr& ip) const {
  if (!ip.zone.empty() || ip.is4 != addr.is4) return false;
  return ip.Masked(bits).bytes == addr.Masked(bits).bytes;
}

StatusOr<NetAddr> ParseNetAddr(std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '.': return ParseIPv4(s);
      case ':': return ParseIPv6(s);
      case '%':
        // Taken to be an IPv6 address with a zone but no address.
        return AddrError(s, "missing IPv6 address");
      default: break;
    }
  }
  return AddrError(s, "unable to parse IP");
}

StatusOr<NetPrefix> ParseNetPrefix(std::string_view s) {
  auto fail = [&](std::string_view msg) {
    return InvalidArgumentError("netip.ParsePrefix(" + GoQuote(s) + "): " + std::string(msg));
  };
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) return fail("no '/'");
  StatusOr<NetAddr> ip = ParseNetAddr(s.substr(0, slash));
  if (!ip.ok()) return fail(ip.status().message());
  if (!ip->is4 && !ip->zone.empty()) return fail("IPv6 zones cannot be present in a prefix");

  std::string_view bits_str = s.substr(slash + 1);
  std::string bad = "bad bits after slash: " + GoQuote(bits_str);
  // strconv.Atoi would take a sign or leading zeros; ParsePrefix does not.
  if (bits_str.size() > 1 && (bits_str[0] < '1' || bits_str[0] > '9')) return fail(bad);
  if (bits_str.empty()) return fail(bad);
  int64_t bits = 0;
  for (char c : bits_str) {
    if (c < '0' || c > '9') return fail(bad);
    int64_t digit = c - '0';
    // Atoi's range error is reported as bad bits too.
    if (bits > (std::numeric_limits<int64_t>::max() - digit) / 10) return fail(bad);
    bits = bits * 10 + digit;
  }
  if (bits > ip->BitLen()) return fail("prefix length out of range");
  return NetPrefix{*std::move(ip), static_cast<int>(bits)};
}

}  // namespace dra::cel::lib::internal
