// How the NVIDIA plugin turns NVML's raw answers into attribute values
// (README.md §1.4, §1.5.2): semver coercion, CUDA versions, bus IDs,
// enum names, MIG profile names, canonical device-name parts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dra::discover {

// Masterminds semver with CoerceNewVersion: "v?" + 1-3 dot-separated decimal
// components (leading zeros dropped, missing ones 0) + optional -pre / +build.
// "580.105.08" -> "580.105.8", "13.0" -> "13.0.0". kInvalidArgument otherwise.
StatusOr<std::string> CoerceSemver(std::string_view text);

// nvmlSystemGetCudaDriverVersion's int as the plugin prints it before
// coercion: "<v/1000>.<(v%1000)/10>" (13000 -> "13.0", 12040 -> "12.4").
std::string CudaDriverVersionString(int version);

// go-nvlib GetPCIBusID: NUL-terminated busId, lower-cased, a "0000" + 4-hex
// + ":" domain shortened to 4 digits ("00000000:18:00.0" -> "0000:18:00.0").
// kInvalidArgument (quoting it) when the result is not dddd:bb:dd.f.
StatusOr<std::string> NormalizeBusId(std::string_view nvml_bus_id);

// Enum tables of go-nvlib (README §1.4.6). nullopt for a value the table lacks.
std::optional<std::string_view> ArchitectureName(unsigned int arch);
std::optional<std::string_view> BrandName(int brand);
std::optional<std::string_view> AddressingModeName(unsigned int mode);

// GI profile index (0 .. 0x11) -> GPU slice count G and name suffix
// ("+me", "+me.all", "+gfx", "-me", ""). nullopt for an index go-nvlib does
// not know (0x11 and above).
struct GiProfileShape {
  int slices = 0;
  std::string_view suffix;
};
std::optional<GiProfileShape> GiProfileShapeOf(unsigned int gi_profile_index);

// The CI profile indices whose compute-slice count equals `slices`, in
// index order, without 0x7 (1_SLICE_REV1, dropped by the plugin).
std::string_view CiProfileIndicesFor(int slices);  // e.g. "\x04\x08" for 7

// The memory part of a MIG profile name (README §1.5.2): the fraction of
// `total_bytes` rounded up to eighths, times ceil(total / GiB), rounded half
// away from zero. H200 (143771 MiB): 71168 MiB -> 71. -1 for a memory size of
// 2^40 MiB or more (not a real answer).
int64_t MigProfileGigabytes(uint64_t memory_size_mib, uint64_t total_bytes);

// "<G>g.<GB>gb<suffix>" ("3g.71gb", "1g.5gb+me").
std::string MigProfileName(int slices, int64_t gigabytes, std::string_view suffix);

// Device-name form of a profile: dots removed, lower-cased, every character
// outside [a-z0-9.-] replaced by '-', '-' trimmed ("1g.18gb+me" -> "1g18gb-me").
std::string CanonicalMigProfile(std::string_view profile);

// Capacity name -> counter name: camelCase to a DNS label ("copyEngines" ->
// "copy-engines").
std::string CamelToDnsLabel(std::string_view name);

}  // namespace dra::discover
