// Google TPU discovery: what kubernetes-sigs/dra-driver-google-tpu
// (cmd/tpu-dra-kubeletplugin: probeTPUHardware, getTPUNodeLabels,
// AcceleratorGen, the health checker) would publish, rebuilt from the host's
// files only. The plugin also asks the GCE metadata server and the Node's
// labels for the accelerator type; discover has neither (no network, no API
// server), so only --tpu-accelerator and the tpu-env file are consulted.
//
// Invariants of the result:
//   1. Devices follow the /dev listing order (bytewise: "10" before "2");
//      `index` is a chip's position among all chips found, so a chip dropped
//      for a missing device node leaves a gap rather than renumbering the rest.
//   2. `chipCount` counts every chip found, dropped ones included. Our reading
//      of README §3.3: the plugin probes the chips once at start-up, and its
//      health checker later only hides a chip whose device file vanished.
//   3. Every chip carries the same `uuid` (the plugin seeds it from the node
//      name alone).
#include "discover/tpu.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "discover/sysfs.h"

namespace dra::discover {
namespace {

constexpr uint32_t kGoogleVendorId = 0x1ae0;
// Google functions that are not TPUs (README §4.2): 0x001f NVMe, 0x0042 gVNIC,
// and 0xabcd, which the plugin's list excludes as well.
constexpr std::array<uint32_t, 3> kNonTpuGoogleDevices = {0x001f, 0x0042, 0xabcd};

// dractl's namespace for name-based UUIDs. The plugin's uuid is "tpu-" plus 16
// bytes from Go's math/rand seeded with a 31-multiplier hash of the node name;
// reproducing it needs Go's generator tables, so we publish a documented
// deterministic substitute instead: UUIDv5(this namespace, "<node>/tpu").
// The namespace and name are those testdata/fixtures/gen_dra_fixtures.py uses,
// so replaying the fixture node reproduces the fixture's uuid. Nothing may key
// on the value.
constexpr std::array<uint8_t, 16> kDractlUuidNamespace = {0x6b, 0x1f, 0x3c, 0x2e, 0x8d, 0x4a, 0x4f, 0x0e,
                                                          0x9a, 0x57, 0x0c, 0x2d, 0x9e, 0x1b, 0x7a, 0x11};

struct Chip {
  std::string name;        // "accel0" or the IOMMU group "3"
  std::string dev_path;    // "/dev/accel0" or "/dev/vfio/3"
  std::string generation;  // from the PCI IDs; "" when unknown
  std::optional<std::string> bdf;
};

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsAccelName(std::string_view name) { return name.starts_with("accel") && IsDigits(name.substr(5)); }

std::string_view Trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Consumes `prefix` from the front of `*s` if it is there.
bool Consume(std::string_view* s, std::string_view prefix) {
  if (!s->starts_with(prefix)) return false;
  s->remove_prefix(prefix.size());
  return true;
}

bool ConsumeDigits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && (*s)[n] >= '0' && (*s)[n] <= '9') ++n;
  s->remove_prefix(n);
  return n > 0;
}

// New-style accelerator names, ^tpu[0-9]+[a-z]?$ ("tpu7x"): their own generation.
bool IsNewStyleAccelerator(std::string_view s) {
  if (!Consume(&s, "tpu") || !ConsumeDigits(&s)) return false;
  if (!s.empty() && s.front() >= 'a' && s.front() <= 'z') s.remove_prefix(1);
  return s.empty();
}

// Label-style names, ^tpu-v[0-9]+([ep]?-slice)?((-lite)?-(device|podslice))?$,
// matched by hand: std::regex trips g++ 12's -Wmaybe-uninitialized when
// optimising. The optional parts cannot overlap, so taking each greedily and
// restoring on failure matches what the regular expression matches.
bool IsLabelStyleAccelerator(std::string_view s) {
  if (!Consume(&s, "tpu-v") || !ConsumeDigits(&s)) return false;
  std::string_view before_slice = s;
  if (!s.empty() && (s.front() == 'e' || s.front() == 'p')) s.remove_prefix(1);
  if (!Consume(&s, "-slice")) s = before_slice;
  std::string_view before_kind = s;
  Consume(&s, "-lite");
  if (!Consume(&s, "-device") && !Consume(&s, "-podslice")) s = before_kind;
  return s.empty();
}

bool IsTpuFunction(const PciFunction& f) {
  return f.vendor == kGoogleVendorId &&
         std::find(kNonTpuGoogleDevices.begin(), kNonTpuGoogleDevices.end(), f.device) == kNonTpuGoogleDevices.end();
}

// Generation from the PCI IDs (README §4.2); "" when the IDs are not known.
std::string GenerationFromIds(const PciFunction& f) {
  switch (f.device) {
    case 0x0027: return f.subsystem_device == 0x004f ? "v3" : "";
    case 0x005e: return "v4";
    case 0x0063: return "v5lite";
    case 0x0062: return "v5p";
    case 0x006f: return "v6e";
    default: return "";
  }
}

// Chips behind /dev/accel<N> (v2-v4). The PCI function is looked up through
// the class device's `device` link, best effort: it only feeds the generation
// in diagnostics and TpuPciFunctions().
std::vector<Chip> AccelChips(HostFs& fs, const std::vector<std::string>& dev_names) {
  std::vector<Chip> chips;
  for (const std::string& name : dev_names) {
    if (!IsAccelName(name)) continue;
    Chip chip{.name = name, .dev_path = "/dev/" + name, .generation = "", .bdf = std::nullopt};
    StatusOr<std::string> link = fs.ReadLink(fmt::format("/sys/class/accel/{}/device", name));
    if (link.ok() && IsPciBdf(Basename(*link))) {
      std::string bdf(Basename(*link));
      if (StatusOr<PciFunction> f = ReadPciFunction(fs, bdf); f.ok()) {
        chip.generation = GenerationFromIds(*f);
      }
      chip.bdf = std::move(bdf);
    }
    chips.push_back(std::move(chip));
  }
  return chips;
}

// Chips bound to vfio-pci: a group /dev/vfio/<n> is a chip when one of its
// functions is a Google function that is not a known non-TPU device.
StatusOr<std::vector<Chip>> VfioChips(HostFs& fs) {
  StatusOr<std::vector<std::string>> groups = fs.List("/dev/vfio");
  if (!groups.ok()) {
    if (groups.status().code() == StatusCode::kNotFound) return std::vector<Chip>();
    return groups.status().WithContext("tpu: listing /dev/vfio");
  }
  std::vector<Chip> chips;
  for (const std::string& group : *groups) {
    if (!IsDigits(group)) continue;  // "vfio", the container node
    StatusOr<std::vector<std::string>> functions = fs.List(fmt::format("/sys/kernel/iommu_groups/{}/devices", group));
    if (!functions.ok()) continue;
    for (const std::string& bdf : *functions) {
      StatusOr<PciFunction> f = ReadPciFunction(fs, bdf);
      if (!f.ok() || !IsTpuFunction(*f)) continue;
      chips.push_back(
          Chip{.name = group, .dev_path = "/dev/vfio/" + group, .generation = GenerationFromIds(*f), .bdf = bdf});
      break;
    }
  }
  return chips;
}

// probeTPUHardware: accel nodes win; VFIO groups only when there are none.
StatusOr<std::vector<Chip>> ProbeChips(HostFs& fs) {
  StatusOr<std::vector<std::string>> dev = fs.List("/dev");
  if (!dev.ok()) {
    if (dev.status().code() == StatusCode::kNotFound) return std::vector<Chip>();
    return dev.status().WithContext("tpu: listing /dev");
  }
  std::vector<Chip> chips = AccelChips(fs, *dev);
  if (!chips.empty()) return chips;
  return VfioChips(fs);
}

// The generation shared by all chips, "unknown" when any is unknown or they
// differ (mixed generations void the generation, as in the plugin).
std::string CommonGeneration(const std::vector<Chip>& chips) {
  std::string common;
  for (const Chip& chip : chips) {
    if (chip.generation.empty()) return "unknown";
    if (common.empty()) {
      common = chip.generation;
    } else if (common != chip.generation) {
      return "unknown";
    }
  }
  return common.empty() ? "unknown" : common;
}

// CHIPS_PER_HOST_BOUNDS "2,4,1" -> "2x4"; a trailing third bound of 1 is the
// 2-D form the single-host table uses. nullopt if malformed.
std::optional<std::string> TopologyFromBounds(std::string_view bounds) {
  std::vector<std::string_view> dims;
  size_t pos = 0;
  while (true) {
    size_t comma = bounds.find(',', pos);
    std::string_view dim =
        Trim(bounds.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (!IsDigits(dim)) return std::nullopt;
    dims.push_back(dim);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (dims.size() == 3 && dims[2] == "1") dims.pop_back();
  if (dims.size() < 2 || dims.size() > 3) return std::nullopt;
  std::string out;
  for (size_t dim_idx = 0; dim_idx < dims.size(); ++dim_idx) {
    if (dim_idx > 0) out += 'x';
    out += dims[dim_idx];
  }
  return out;
}

// Single-host topology for a host's chip count (the plugin's chips-per-host
// bounds 1,1,1 / 1,2,1 / 2,2,1 / 2,4,1 in topology form).
std::optional<std::string> SingleHostTopology(size_t chip_count) {
  switch (chip_count) {
    case 1: return "1x1";
    case 2: return "1x2";
    case 4: return "2x2";
    case 8: return "2x4";
    default: return std::nullopt;
  }
}

struct AcceleratorInfo {
  std::string accelerator;  // "" when unknown
  std::optional<std::string> topology;
};

// getTPUNodeLabels, restricted to the sources discover has: the flag, else
// the tpu-env file. The flag was validated by the caller.
AcceleratorInfo ReadAcceleratorInfo(HostFs& fs, const TpuOptions& options, const std::string& flag_accelerator,
                                    Diagnostics& diag) {
  if (!flag_accelerator.empty()) return {.accelerator = flag_accelerator, .topology = {}};
  StatusOr<std::string> text = fs.ReadFile(options.env_file);
  if (!text.ok()) {
    if (text.status().code() != StatusCode::kNotFound) {
      diag.Warn(fmt::format("tpu: reading {}: {}", options.env_file, text.status().message()));
    }
    return {};
  }
  tpu_internal::TpuEnv env = tpu_internal::ParseTpuEnv(*text);
  AcceleratorInfo info;
  if (env.accelerator_type) {
    if (std::optional<std::string> acc = tpu_internal::NormalizeAccelerator(*env.accelerator_type)) {
      info.accelerator = *acc;
    } else {
      diag.Warn(fmt::format("tpu: {}: accelerator type \"{}\" is not a known TPU type", options.env_file,
                            *env.accelerator_type));
    }
  }
  if (env.topology) {
    info.topology = env.topology;
  } else if (env.chips_per_host_bounds) {
    info.topology = TopologyFromBounds(*env.chips_per_host_bounds);
    if (!info.topology) {
      diag.Warn(fmt::format("tpu: {}: CHIPS_PER_HOST_BOUNDS \"{}\" is not a list of bounds", options.env_file,
                            *env.chips_per_host_bounds));
    }
  }
  return info;
}

// SHA-1 (FIPS 180-4), only for name-based UUIDs; the project links no crypto
// library.
class Sha1 {
 public:
  void Update(std::string_view data) {
    for (char c : data) {
      block_[block_len_++] = static_cast<uint8_t>(c);
      length_bits_ += 8;
      if (block_len_ == 64) ProcessBlock();
    }
  }
  std::array<uint8_t, 20> Finish() {
    uint64_t length_bits = length_bits_;
    block_[block_len_++] = 0x80;
    if (block_len_ > 56) {
      while (block_len_ < 64) block_[block_len_++] = 0;
      ProcessBlock();
    }
    while (block_len_ < 56) block_[block_len_++] = 0;
    for (int shift = 56; shift >= 0; shift -= 8) {
      block_[block_len_++] = static_cast<uint8_t>(length_bits >> shift);
    }
    ProcessBlock();
    std::array<uint8_t, 20> digest{};
    for (size_t word_idx = 0; word_idx < 5; ++word_idx) {
      for (size_t byte_idx = 0; byte_idx < 4; ++byte_idx) {
        digest[word_idx * 4 + byte_idx] = static_cast<uint8_t>(h_[word_idx] >> (24 - 8 * byte_idx));
      }
    }
    return digest;
  }

 private:
  static uint32_t Rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

  void ProcessBlock() {
    std::array<uint32_t, 80> w{};
    for (size_t i = 0; i < 16; ++i) {
      w[i] = (uint32_t{block_[4 * i]} << 24) | (uint32_t{block_[4 * i + 1]} << 16) |
             (uint32_t{block_[4 * i + 2]} << 8) | uint32_t{block_[4 * i + 3]};
    }
    for (size_t i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (size_t i = 0; i < 80; ++i) {
      uint32_t f;
      uint32_t k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      uint32_t t = Rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = Rotl(b, 30);
      b = a;
      a = t;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    block_len_ = 0;
  }

  std::array<uint32_t, 5> h_ = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  std::array<uint8_t, 64> block_{};
  size_t block_len_ = 0;
  uint64_t length_bits_ = 0;
};

}  // namespace

namespace tpu_internal {

TpuEnv ParseTpuEnv(std::string_view text) {
  TpuEnv env;
  std::optional<std::string> type;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = Trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty() || line.front() == '#') continue;
    // The separator is the first ':' or '=' (values such as "2,4,1" hold neither).
    size_t sep = line.find_first_of(":=");
    if (sep == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, sep));
    std::string_view value = Trim(line.substr(sep + 1));
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    if (value.empty()) continue;
    if (key == "ACCELERATOR_TYPE") {
      env.accelerator_type = std::string(value);
    } else if (key == "TYPE") {
      type = std::string(value);
    } else if (key == "TOPOLOGY") {
      env.topology = std::string(value);
    } else if (key == "CHIPS_PER_HOST_BOUNDS") {
      env.chips_per_host_bounds = std::string(value);
    }
  }
  if (!env.accelerator_type) env.accelerator_type = std::move(type);
  return env;
}

std::optional<std::string> NormalizeAccelerator(std::string_view value) {
  value = Trim(value);
  if (TpuGeneration(value)) return std::string(value);
  // tpu-env types ("v5litepod-8"; GCE's TYPE reads "V5LITE_POD"): compare
  // lower-cased with '_' dropped.
  std::string key;
  for (char c : value) {
    if (c == '_') continue;
    key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  // Longest prefix first: "v5litepod" before "v5lite".
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kTypes = {{
      {"v5litepod", "tpu-v5-lite-podslice"},
      {"v5lite", "tpu-v5-lite-device"},
      {"v5p", "tpu-v5p-slice"},
      {"v6e", "tpu-v6e-slice"},
      {"v4", "tpu-v4-podslice"},
      {"v3", "tpu-v3-device"},
  }};
  for (const auto& [prefix, accelerator] : kTypes) {
    if (std::string_view(key).starts_with(prefix)) return std::string(accelerator);
  }
  return std::nullopt;
}

std::optional<std::string> TpuGeneration(std::string_view accelerator) {
  std::string text(accelerator);
  if (IsNewStyleAccelerator(text)) return text;
  if (!IsLabelStyleAccelerator(text)) return std::nullopt;
  // Shapes the pattern admits but GKE does not sell.
  if (text == "tpu-v4-device" || text == "tpu-v4-lite-podslice") return std::nullopt;
  std::string_view rest = std::string_view(text).substr(4);  // after "tpu-"
  std::string gen(rest.substr(0, rest.find('-')));
  if (text.find("lite") != std::string::npos) gen += "lite";
  if (gen.starts_with("v5") && text.find("podslice") != std::string::npos) gen += "pod";
  static const std::set<std::string, std::less<>> kKnown = {"v3", "v4", "v4lite", "v5lite", "v5litepod", "v5p", "v6e"};
  if (!kKnown.contains(gen)) return std::nullopt;
  return gen;
}

std::string UuidV5(const std::array<uint8_t, 16>& ns, std::string_view name) {
  Sha1 sha;
  sha.Update(std::string_view(reinterpret_cast<const char*>(ns.data()), ns.size()));
  sha.Update(name);
  std::array<uint8_t, 20> digest = sha.Finish();
  digest[6] = static_cast<uint8_t>((digest[6] & 0x0f) | 0x50);  // version 5
  digest[8] = static_cast<uint8_t>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string out;
  for (size_t byte_idx = 0; byte_idx < 16; ++byte_idx) {
    if (byte_idx == 4 || byte_idx == 6 || byte_idx == 8 || byte_idx == 10) out += '-';
    out += fmt::format("{:02x}", digest[byte_idx]);
  }
  return out;
}

}  // namespace tpu_internal

StatusOr<std::vector<api::Device>> DiscoverTpu(HostFs& fs, const TpuOptions& options, Diagnostics& diag) {
  // A bad flag is an error whether or not the host has chips.
  std::string flag_accelerator;
  if (!options.accelerator.empty()) {
    std::optional<std::string> acc = tpu_internal::NormalizeAccelerator(options.accelerator);
    if (!acc) {
      return InvalidArgumentError(
          fmt::format("--tpu-accelerator \"{}\" is not a TPU accelerator type (for example "
                      "tpu-v5-lite-podslice, tpu-v6e-slice or v5litepod-8)",
                      options.accelerator));
    }
    flag_accelerator = *std::move(acc);
  }

  DRA_ASSIGN_OR_RETURN(std::vector<Chip> chips, ProbeChips(fs));
  if (chips.empty()) {
    diag.Note("no TPU chips found");
    return std::vector<api::Device>();
  }

  AcceleratorInfo info = ReadAcceleratorInfo(fs, options, flag_accelerator, diag);
  if (info.accelerator.empty()) {
    diag.Note(
        fmt::format("{} TPU chip{} of generation {} found, accelerator type unknown; nothing published "
                    "(pass --tpu-accelerator or provide ACCELERATOR_TYPE in {})",
                    chips.size(), chips.size() == 1 ? "" : "s", CommonGeneration(chips), options.env_file));
    return std::vector<api::Device>();
  }
  if (options.node_name.empty()) {
    return InvalidArgumentError("tpu: a node name is needed for the uuid attribute");
  }
  // NormalizeAccelerator only accepts names with a generation.
  std::string tpu_gen = tpu_internal::TpuGeneration(info.accelerator).value_or("");
  std::optional<std::string> topology = info.topology ? info.topology : SingleHostTopology(chips.size());
  const std::string uuid = "tpu-" + tpu_internal::UuidV5(kDractlUuidNamespace, options.node_name + "/tpu");
  const auto chip_count = static_cast<int64_t>(chips.size());

  std::vector<api::Device> devices;
  for (size_t chip_idx = 0; chip_idx < chips.size(); ++chip_idx) {
    const Chip& chip = chips[chip_idx];
    // README §3.3: the plugin's health checker stats each chip's device file
    // and republishes the slice without a chip whose file is gone (no taint).
    if (!fs.Exists(chip.dev_path)) {
      diag.Warn(fmt::format("tpu: chip {}: device node {} is missing; not published", chip.name, chip.dev_path));
      continue;
    }
    api::Device device;
    device.name = chip.name;
    device.attributes.insert_or_assign("index", api::DeviceAttribute::Int(static_cast<int64_t>(chip_idx)));
    device.attributes.insert_or_assign("uuid", api::DeviceAttribute::String(uuid));
    device.attributes.insert_or_assign("tpuGen", api::DeviceAttribute::String(tpu_gen));
    device.attributes.insert_or_assign("brand", api::DeviceAttribute::String("Google"));
    device.attributes.insert_or_assign("accelerator", api::DeviceAttribute::String(info.accelerator));
    device.attributes.insert_or_assign("chipCount", api::DeviceAttribute::Int(chip_count));
    if (topology) {
      device.attributes.insert_or_assign("topology", api::DeviceAttribute::String(*topology));
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

std::vector<std::string> TpuPciFunctions(HostFs& fs) {
  std::vector<std::string> bdfs;
  StatusOr<std::vector<Chip>> chips = ProbeChips(fs);
  if (!chips.ok()) return bdfs;
  for (const Chip& chip : *chips) {
    if (chip.bdf) bdfs.push_back(*chip.bdf);
  }
  std::sort(bdfs.begin(), bdfs.end());
  return bdfs;
}

}  // namespace dra::discover
