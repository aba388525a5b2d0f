// IPAddress and Cidr: the values behind the Kubernetes CEL ip and cidr
// libraries (k8s.io/apiserver pkg/cel/library/ip.go and cidr.go, CEL types
// net.IP and net.CIDR), which wrap Go's net/netip Addr and Prefix.
//
// CEL surface and how it maps here:
//   ip(s)                      IPAddress::Parse(s)
//   isIP(s)                    IPAddress::IsValid(s)
//   ip.isCanonical(s)          IPAddress::IsCanonical(s) (an error if s is not an IP)
//   string(ip)                 IPAddress::String()
//   ip.family()                family(): 4 or 6
//   ip.isUnspecified() ...     IsUnspecified(), IsLoopback(), IsLinkLocalMulticast(),
//                              IsLinkLocalUnicast(), IsGlobalUnicast()
//   ip == ip2                  operator==
//   cidr(s)                    Cidr::Parse(s)
//   isCIDR(s)                  Cidr::IsValid(s)
//   string(cidr)               Cidr::String() (the address as written, not masked)
//   c.containsIP(ip | s)       ContainsIP(IPAddress) / ContainsIP(string_view)
//   c.containsCIDR(c2 | s)     ContainsCidr(Cidr) / ContainsCidr(string_view)
//   c.ip()                     ip() (the address as written, not masked)
//   c.masked()                 Masked()
//   c.prefixLength()           prefix_length()
//   c == c2                    operator== (address as written and length)
//
// Accepted text is netip's: dotted-quad IPv4 without leading zeros, IPv6 with
// at most 4 hex digits per group and an optional trailing dotted quad.
// Kubernetes additionally rejects zones ("fe80::1%eth0") and IPv4-mapped IPv6
// addresses ("::ffff:1.2.3.4"), in addresses and in prefixes. A prefix may
// have host bits set ("192.168.0.1/24"); Masked() clears them.
//
// All errors are kInvalidArgument with the exact text Kubernetes returns as
// the CEL error, e.g.
//   IP Address "1.2.3" parse error during conversion from string:
//       ParseAddr("1.2.3"): IPv4 address too short
//   network address parse error during conversion from string: network address
//       parse error during conversion from string: netip.ParsePrefix("1.2.3.4/"):
//       bad bits after slash: ""
// (each on one line).
//
// Thread-safety: both are immutable value types.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "cel/lib/internal/netip.h"

namespace dra::cel::lib {

class IPAddress {
 public:
  // Kubernetes' parseIPAddr: netip.ParseAddr, then no zone, then not
  // IPv4-mapped. Errors (in this order):
  //   IP Address "<s>" parse error during conversion from string: <netip error>
  //   IP address "<s>" with zone value is not allowed
  //   IPv4-mapped IPv6 address "<s>" is not allowed
  static StatusOr<IPAddress> Parse(std::string_view text);
  static bool IsValid(std::string_view text) { return Parse(text).ok(); }

  // ip.isCanonical: whether `text` equals String() of the address it parses
  // to ("2001:db8::68" yes, "2001:DB8::68" no). Fails with Parse's error if
  // `text` is not a valid address.
  static StatusOr<bool> IsCanonical(std::string_view text);

  // 4 or 6.
  int family() const { return addr_.is4 ? 4 : 6; }
  // Network-order bytes: 4 for IPv4, 16 for IPv6.
  std::string bytes() const;

  // netip's predicates (see Addr.IsUnspecified etc.):
  //   unspecified: 0.0.0.0 or ::
  //   loopback: 127.0.0.0/8 or ::1
  //   link-local multicast: 224.0.0.0/24 or ff02::/16 (any ffX2 scope-2 group)
  //   link-local unicast: 169.254.0.0/16 or fe80::/10
  //   global unicast: none of unspecified, 255.255.255.255, loopback,
  //     multicast, link-local unicast (private ranges count as global)
  bool IsUnspecified() const { return addr_.IsUnspecified(); }
  bool IsLoopback() const { return addr_.IsLoopback(); }
  bool IsLinkLocalMulticast() const { return addr_.IsLinkLocalMulticast(); }
  bool IsLinkLocalUnicast() const { return addr_.IsLinkLocalUnicast(); }
  bool IsGlobalUnicast() const { return addr_.IsGlobalUnicast(); }

  // Canonical text: dotted quad, or RFC 5952 IPv6 ("2001:db8::68").
  std::string String() const { return addr_.String(); }

  friend bool operator==(const IPAddress&, const IPAddress&) = default;

 private:
  friend class Cidr;
  explicit IPAddress(internal::NetAddr addr) : addr_(std::move(addr)) {}

  internal::NetAddr addr_;
};

class Cidr {
 public:
  // Kubernetes' parseCIDR: netip.ParsePrefix, then not IPv4-mapped. Errors:
  //   network address parse error during conversion from string: network
  //     address parse error during conversion from string: <netip error>
  //   network address parse error during conversion from string: IPv4-mapped
  //     IPv6 address "<s>" is not allowed
  static StatusOr<Cidr> Parse(std::string_view text);
  static bool IsValid(std::string_view text) { return Parse(text).ok(); }

  // The address as written (host bits kept) and the prefix length.
  IPAddress ip() const { return IPAddress(prefix_.addr); }
  int prefix_length() const { return prefix_.bits; }

  // The network: host bits cleared ("192.168.0.1/24" -> "192.168.0.0/24").
  Cidr Masked() const { return Cidr(prefix_.Masked()); }

  // Whether the network contains `ip`; false across address families.
  bool ContainsIP(const IPAddress& ip) const { return prefix_.Contains(ip.addr_); }
  // containsIP(string). Upstream passes the parse result on as an argument
  // and reports a failed parse as the CEL error "no such overload", not the
  // parse error; so does this.
  StatusOr<bool> ContainsIP(std::string_view ip) const;

  // Whether `other`'s network lies within this one: same family,
  // other.prefix_length() >= prefix_length(), and equal network bits
  // (Kubernetes >= 1.33 semantics, host bits of either side ignored).
  bool ContainsCidr(const Cidr& other) const;
  // containsCIDR(string): fails with Parse(other)'s error.
  StatusOr<bool> ContainsCidr(std::string_view other) const;

  // "<address as written>/<length>", the address in canonical form.
  std::string String() const { return prefix_.String(); }

  friend bool operator==(const Cidr&, const Cidr&) = default;

 private:
  explicit Cidr(internal::NetPrefix prefix) : prefix_(std::move(prefix)) {}

  internal::NetPrefix prefix_;
};

}  // namespace dra::cel::lib
