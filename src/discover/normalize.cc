#include "discover/normalize.h"

#include <fmt/format.h>

#include "discover/sysfs.h"

namespace dra::discover {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A pre-release or build identifier list: dot-separated, non-empty,
// [0-9A-Za-z-].
bool ValidIdentifiers(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) return false;
    for (char c : part) {
      if (!(IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-')) {
        return false;
      }
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

StatusOr<std::string> CoerceSemver(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) s.remove_prefix(1);
  std::string_view build;
  std::string_view pre;
  if (size_t plus = s.find('+'); plus != std::string_view::npos) {
    build = s.substr(plus + 1);
    s = s.substr(0, plus);
    if (!ValidIdentifiers(build)) {
      return InvalidArgumentError(fmt::format("\"{}\" is not a version: bad build metadata", text));
    }
  }
  if (size_t dash = s.find('-'); dash != std::string_view::npos) {
    pre = s.substr(dash + 1);
    s = s.substr(0, dash);
    if (!ValidIdentifiers(pre)) {
      return InvalidArgumentError(fmt::format("\"{}\" is not a version: bad pre-release", text));
    }
    // SemVer: numeric pre-release identifiers have no leading zeros.
    size_t start = 0;
    while (start <= pre.size()) {
      size_t dot = pre.find('.', start);
      std::string_view part = pre.substr(start, dot == std::string_view::npos ? dot : dot - start);
      bool numeric = !part.empty();
      for (char c : part) numeric = numeric && IsDigit(c);
      if (numeric && part.size() > 1 && part.front() == '0') {
        return InvalidArgumentError(
            fmt::format("\"{}\" is not a version: pre-release \"{}\" has a leading zero", text, part));
      }
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
  }
  uint64_t parts[3] = {0, 0, 0};
  int count = 0;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (count == 3 || part.empty() || part.size() > 19) {
      return InvalidArgumentError(fmt::format("\"{}\" is not a version", text));
    }
    uint64_t v = 0;
    for (char c : part) {
      if (!IsDigit(c)) return InvalidArgumentError(fmt::format("\"{}\" is not a version", text));
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    parts[count++] = v;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  std::string out = fmt::format("{}.{}.{}", parts[0], parts[1], parts[2]);
  if (!pre.empty()) out += fmt::format("-{}", pre);
  if (!build.empty()) out += fmt::format("+{}", build);
  return out;
}

std::string CudaDriverVersionString(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

StatusOr<std::string> NormalizeBusId(std::string_view nvml_bus_id) {
  std::string id(nvml_bus_id.substr(0, nvml_bus_id.find('\0')));
  for (char& c : id) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  auto hex = [](char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); };
  if (id.size() > 9 && id.compare(0, 4, "0000") == 0 && hex(id[4]) && hex(id[5]) && hex(id[6]) && hex(id[7]) &&
      id[8] == ':') {
    id.erase(0, 4);
  }
  if (!IsPciBdf(id)) {
    return InvalidArgumentError(
        fmt::format("PCI bus ID \"{}\" from NVML does not normalise to the form dddd:bb:dd.f (got \"{}\")",
                    nvml_bus_id.substr(0, nvml_bus_id.find('\0')), id));
  }
  return id;
}

std::optional<std::string_view> ArchitectureName(unsigned int arch) {
  switch (arch) {
    case 2: return "Kepler";
    case 3: return "Maxwell";
    case 4: return "Pascal";
    case 5: return "Volta";
    case 6: return "Turing";
    case 7: return "Ampere";
    case 8: return "Ada Lovelace";
    case 9: return "Hopper";
    case 10: return "Blackwell";
    case 13: return "Rubin";
    case 0xffffffffu: return "Unknown";
    default: return std::nullopt;
  }
}

std::optional<std::string_view> BrandName(int brand) {
  static constexpr std::string_view kNames[] = {
      "Unknown",   "Quadro",      "Tesla",     "NVS",        "Grid",      "GeForce",
      "Titan",     "NvidiaVApps", "NvidiaVPC", "NvidiaVCS",  "NvidiaVWS", "NvidiaCloudGaming",
      "QuadroRTX", "NvidiaRTX",   "Nvidia",    "GeForceRTX", "TitanRTX"};
  if (brand < 0 || brand >= static_cast<int>(std::size(kNames))) return std::nullopt;
  return kNames[brand];
}

std::optional<std::string_view> AddressingModeName(unsigned int mode) {
  switch (mode) {
    case 0: return "None";
    case 1: return "HMM";
    case 2: return "ATS";
    default: return std::nullopt;
  }
}

std::optional<GiProfileShape> GiProfileShapeOf(unsigned int index) {
  switch (index) {
    case 0x0: return GiProfileShape{1, ""};
    case 0x1: return GiProfileShape{2, ""};
    case 0x2: return GiProfileShape{3, ""};
    case 0x3: return GiProfileShape{4, ""};
    case 0x4: return GiProfileShape{7, ""};
    case 0x5: return GiProfileShape{8, ""};
    case 0x6: return GiProfileShape{6, ""};
    case 0x7: return GiProfileShape{1, "+me"};
    case 0x8: return GiProfileShape{2, "+me"};
    case 0x9: return GiProfileShape{1, ""};
    case 0xA: return GiProfileShape{1, "+gfx"};
    case 0xB: return GiProfileShape{2, "+gfx"};
    case 0xC: return GiProfileShape{4, "+gfx"};
    case 0xD: return GiProfileShape{1, "-me"};
    case 0xE: return GiProfileShape{2, "-me"};
    case 0xF: return GiProfileShape{1, "+me.all"};
    case 0x10: return GiProfileShape{2, "+me.all"};
    default: return std::nullopt;
  }
}

std::string_view CiProfileIndicesFor(int slices) {
  // CI profile index j -> compute slices: 0:1 1:2 2:3 3:4 4:7 5:8 6:6 7:1 (dropped) 8:7.
  switch (slices) {
    case 1: return std::string_view("\x00", 1);
    case 2: return "\x01";
    case 3: return "\x02";
    case 4: return "\x03";
    case 7: return "\x04\x08";
    case 8: return "\x05";
    case 6: return "\x06";
    default: return "";
  }
}

int64_t MigProfileGigabytes(uint64_t memory_size_mib, uint64_t total_bytes) {
  if (total_bytes == 0) return 0;
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  // eighths = ceil(mib * 2^20 * 8 / total), exact in 64 bits for any memory
  // size below 2^40 MiB (larger answers are garbage: -1).
  if (memory_size_mib >= (uint64_t{1} << 40)) return -1;
  uint64_t num = memory_size_mib << 23;
  uint64_t eighths = num / total_bytes + (num % total_bytes != 0 ? 1 : 0);
  uint64_t total_gb = total_bytes / kGiB + (total_bytes % kGiB != 0 ? 1 : 0);
  // round(eighths * total_gb / 8), half away from zero (values are >= 0).
  uint64_t gb = (eighths * total_gb + 4) / 8;
  return static_cast<int64_t>(gb);
}

std::string MigProfileName(int slices, int64_t gigabytes, std::string_view suffix) {
  return fmt::format("{}g.{}gb{}", slices, gigabytes, suffix);
}

std::string CanonicalMigProfile(std::string_view profile) {
  std::string out;
  for (char c : profile) {
    if (c == '.') continue;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool ok = IsDigit(c) || (c >= 'a' && c <= 'z') || c == '-';
    out += ok ? c : '-';
  }
  size_t b = out.find_first_not_of('-');
  if (b == std::string::npos) return "";
  size_t e = out.find_last_not_of('-');
  return out.substr(b, e - b + 1);
}

std::string CamelToDnsLabel(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '-';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace dra::discover
