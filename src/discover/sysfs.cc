#include "discover/sysfs.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace dra::discover {
namespace {

constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Lexical path cleaning (Go's path.Clean for a relative path): drops "." and
// empty elements and resolves ".." against the previous element.
std::string CleanRelative(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view elem = path.substr(pos, slash - pos);
    if (elem == "..") {
      if (!out.empty() && out.back() != "..") {
        out.pop_back();
      } else {
        out.push_back(elem);
      }
    } else if (!elem.empty() && elem != ".") {
      out.push_back(elem);
    }
    pos = slash + 1;
  }
  std::string result;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result += '/';
    result += out[i];
  }
  return result;
}

// Parses "0x10de\n" (hex with or without 0x).
std::optional<uint32_t> ParseHexId(std::string_view text) {
  text = Trim(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 8) return std::nullopt;
  uint32_t v = 0;
  for (char c : text) {
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    v = v * 16 + d;
  }
  return v;
}

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Numeric sort key of a BDF with ':' and '.' removed, read as hex.
uint64_t BdfKey(std::string_view bdf) {
  uint64_t key = 0;
  for (char c : bdf) {
    if (c == ':' || c == '.') continue;
    uint64_t d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    }
    key = key * 16 + d;
  }
  return key;
}

}  // namespace

bool IsPciBdf(std::string_view bdf) {
  // dddd:bb:dd.f
  if (bdf.size() != 12) return false;
  for (size_t i = 0; i < bdf.size(); ++i) {
    char c = bdf[i];
    if (i == 4 || i == 7) {
      if (c != ':') return false;
    } else if (i == 10) {
      if (c != '.') return false;
    } else if (!IsLowerHex(c)) {
      return false;
    }
  }
  return true;
}

StatusOr<std::string> PcieRootFromLink(std::string_view link, std::string_view bdf) {
  std::string path;
  if (!link.empty() && link.front() == '/') {
    // Absolute: make it relative to /sys.
    std::string cleaned = CleanRelative(link.substr(1));
    std::string_view v = cleaned;
    if (v.substr(0, 4) != "sys/") {
      return InvalidArgumentError(fmt::format("sysfs link of {} is \"{}\", not under /sys/devices/pci...", bdf, link));
    }
    path = std::string(v.substr(4));
  } else {
    path = CleanRelative(fmt::format("bus/pci/devices/{}", link));
  }
  std::string_view p = path;
  if (p.substr(0, 11) != "devices/pci" || Basename(p) != bdf) {
    return InvalidArgumentError(
        fmt::format("sysfs link of {} is \"{}\", which is not a PCI device path ending in {} under "
                    "/sys/devices/pci...",
                    bdf, link, bdf));
  }
  p.remove_prefix(8);  // "devices/"
  size_t slash = p.find('/');
  return std::string(p.substr(0, slash));
}

StatusOr<std::string> PcieRoot(HostFs& fs, std::string_view bdf) {
  StatusOr<std::string> link = fs.ReadLink(fmt::format("{}/{}", kPciDevices, bdf));
  if (!link.ok()) return link.status();
  return PcieRootFromLink(*link, bdf);
}

StatusOr<std::optional<int64_t>> NumaNode(HostFs& fs, std::string_view bdf) {
  std::string path = fmt::format("{}/{}/numa_node", kPciDevices, bdf);
  StatusOr<std::string> text = fs.ReadFile(path);
  if (!text.ok()) return text.status();
  std::string value(Trim(*text));
  // strconv.ParseInt(s, 0, 64): optional sign, 0x / 0o / 0b / leading-0 octal prefixes.
  std::string_view v = value;
  bool negative = false;
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) {
    negative = v.front() == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) {
    base = 8;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) {
    base = 2;
    v.remove_prefix(2);
  } else if (v.size() > 1 && v[0] == '0') {
    base = 8;
    v.remove_prefix(1);
  }
  if (v.empty() || v.size() > 18) {
    return InvalidArgumentError(fmt::format("{}: \"{}\" is not an integer", path, value));
  }
  int64_t n = 0;
  for (char c : v) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      d = 99;
    }
    if (d >= base) {
      return InvalidArgumentError(fmt::format("{}: \"{}\" is not an integer", path, value));
    }
    n = n * base + d;
  }
  if (negative) n = -n;
  if (n < 0) return std::optional<int64_t>();
  return std::optional<int64_t>(n);
}

StatusOr<PciFunction> ReadPciFunction(HostFs& fs, std::string_view bdf) {
  std::string dir = fmt::format("{}/{}", kPciDevices, bdf);
  if (!fs.Exists(dir)) return NotFoundError(fmt::format("{}: no such PCI function", dir));
  PciFunction f;
  f.bdf = std::string(bdf);
  auto read_id = [&](std::string_view name, uint32_t* out) {
    StatusOr<std::string> text = fs.ReadFile(fmt::format("{}/{}", dir, name));
    if (!text.ok()) return;
    if (std::optional<uint32_t> v = ParseHexId(*text)) *out = *v;
  };
  read_id("vendor", &f.vendor);
  read_id("device", &f.device);
  read_id("subsystem_vendor", &f.subsystem_vendor);
  read_id("subsystem_device", &f.subsystem_device);
  read_id("class", &f.class_code);
  if (StatusOr<std::string> l = fs.ReadLink(dir + "/driver"); l.ok()) {
    f.driver = std::string(Basename(*l));
  }
  if (StatusOr<std::string> l = fs.ReadLink(dir + "/iommu_group"); l.ok()) {
    f.iommu_group = std::string(Basename(*l));
  }
  if (StatusOr<std::string> l = fs.ReadLink(dir + "/physfn"); l.ok()) {
    f.physfn = std::string(Basename(*l));
  }
  return f;
}

StatusOr<std::vector<PciFunction>> ListPciFunctions(HostFs& fs) {
  StatusOr<std::vector<std::string>> names = fs.List(kPciDevices);
  if (!names.ok()) return names.status();
  std::vector<std::string> sorted = *names;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const std::string& a, const std::string& b) { return BdfKey(a) < BdfKey(b); });
  std::vector<PciFunction> out;
  out.reserve(sorted.size());
  for (const std::string& name : sorted) {
    StatusOr<PciFunction> f = ReadPciFunction(fs, name);
    if (f.ok()) out.push_back(*std::move(f));
  }
  return out;
}

}  // namespace dra::discover
