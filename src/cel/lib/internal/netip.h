// Go's net/netip Addr and Prefix, as far as the Kubernetes CEL ip/cidr
// libraries and Go's net/url (bracketed hosts) depend on them: parsing with
// Go's exact error messages, RFC 5952 printing, the address-class
// predicates, masking and containment.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dra::cel::lib::internal {

// A valid netip.Addr (never the zero Addr).
struct NetAddr {
  bool is4 = false;
  // 16 bytes, big-endian. An IPv4 address is kept in IPv4-mapped layout
  // (::ffff:a.b.c.d) with is4 set, as Go does, so masks apply uniformly.
  std::array<uint8_t, 16> bytes{};
  std::string zone;  // IPv6 only; empty when absent

  int BitLen() const { return is4 ? 32 : 128; }
  // Addr.Is4In6: an IPv6 address in ::ffff:0:0/96.
  bool Is4In6() const;
  // Addr.String: dotted quad, RFC 5952 IPv6 (lowercase, longest run of >= 2
  // zero groups compressed, first run on ties), "::ffff:a.b.c.d" for
  // IPv4-mapped, then "%zone" if any.
  std::string String() const;

  bool IsUnspecified() const;
  bool IsLoopback() const;
  bool IsMulticast() const;
  bool IsLinkLocalMulticast() const;
  bool IsLinkLocalUnicast() const;
  bool IsGlobalUnicast() const;

  // Keeps the top `bits` bits (of BitLen()) and clears the rest and the zone.
  // REQUIRES: 0 <= bits <= BitLen().
  NetAddr Masked(int bits) const;

  friend bool operator==(const NetAddr&, const NetAddr&) = default;
};

// netip.ParseAddr. On failure returns kInvalidArgument whose message is Go's
// error text, e.g. `ParseAddr("1.2.3"): IPv4 address too short`.
StatusOr<NetAddr> ParseNetAddr(std::string_view s);

// A valid netip.Prefix: an address without zone and 0 <= bits <= BitLen().
struct NetPrefix {
  NetAddr addr;  // not masked
  int bits = 0;

  NetPrefix Masked() const { return {addr.Masked(bits), bits}; }
  // Prefix.Contains: false across families and for zoned addresses.
  bool Contains(const NetAddr& ip) const;
  std::string String() const { return addr.String() + "/" + std::to_string(bits); }

  friend bool operator==(const NetPrefix&, const NetPrefix&) = default;
};

// netip.ParsePrefix. Errors read `netip.ParsePrefix("10.0.0.0/33"): prefix
// length out of range`.
StatusOr<NetPrefix> ParseNetPrefix(std::string_view s);

}  // namespace dra::cel::lib::internal
