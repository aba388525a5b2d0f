// Kubernetes' parseIPAddr / parseCIDR and the CEL functions around them
// (ip.go, cidr.go), on top of the netip emulation in internal/netip.
#include "cel/lib/ip.h"

#include <utility>

#include "cel/lib/internal/go_strconv.h"

namespace dra::cel::lib {

using internal::GoQuote;

StatusOr<IPAddress> IPAddress::Parse(std::string_view text) {
  StatusOr<internal::NetAddr> addr = internal::ParseNetAddr(text);
  if (!addr.ok()) {
    return InvalidArgumentError("IP Address " + GoQuote(text) +
                                " parse error during conversion from string: " + addr.status().message());
  }
  if (!addr->zone.empty()) {
    return InvalidArgumentError("IP address " + GoQuote(text) + " with zone value is not allowed");
  }
  if (addr->Is4In6()) {
    return InvalidArgumentError("IPv4-mapped IPv6 address " + GoQuote(text) + " is not allowed");
  }
  return IPAddress(*std::move(addr));
}

StatusOr<bool> IPAddress::IsCanonical(std::string_view text) {
  DRA_ASSIGN_OR_RETURN(IPAddress ip, Parse(text));
  return ip.String() == text;
}

std::string IPAddress::bytes() const {
  size_t first = addr_.is4 ? 12 : 0;
  return std::string(reinterpret_cast<const char*>(addr_.bytes.data()) + first, 16 - first);
}

StatusOr<Cidr> Cidr::Parse(std::string_view text) {
  static constexpr std::string_view kPrefix = "network address parse error during conversion from string: ";
  StatusOr<internal::NetPrefix> prefix = internal::ParseNetPrefix(text);
  // stringToCIDR adds its prefix to parseCIDR's error, which already has it.
  if (!prefix.ok()) {
    return InvalidArgumentError(std::string(kPrefix) + std::string(kPrefix) + prefix.status().message());
  }
  if (prefix->addr.Is4In6()) {
    return InvalidArgumentError(std::string(kPrefix) + "IPv4-mapped IPv6 address " + GoQuote(text) + " is not allowed");
  }
  return Cidr(*std::move(prefix));
}

StatusOr<bool> Cidr::ContainsIP(std::string_view ip) const {
  StatusOr<IPAddress> parsed = IPAddress::Parse(ip);
  // cidrContainsIP gets the parse error as its argument and answers with
  // MaybeNoSuchOverloadErr(receiver), i.e. a fresh "no such overload".
  if (!parsed.ok()) return InvalidArgumentError("no such overload");
  return ContainsIP(*parsed);
}

bool Cidr::ContainsCidr(const Cidr& other) const {
  if (other.prefix_.addr.is4 != prefix_.addr.is4) return false;
  if (other.prefix_.bits < prefix_.bits) return false;
  return other.prefix_.addr.Masked(prefix_.bits) == prefix_.addr.Masked(prefix_.bits);
}

StatusOr<bool> Cidr::ContainsCidr(std::string_view other) const {
  DRA_ASSIGN_OR_RETURN(Cidr parsed, Parse(other));
  return ContainsCidr(parsed);
}

}  // namespace dra::cel::lib
