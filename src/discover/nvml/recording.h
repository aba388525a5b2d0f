// Recording: one node's NVML answers, host files and health events as the
// JSON tree RECORDING.md defines (`dractl.nvml-recording`, version 1).
// RecordingApi and RecordingFs write it; ReplayApi, RecordedFs and
// tests/discover/fake_nvml read it. This file reads, checks and writes the
// whole document and holds the few tree helpers the backends share.
//
// The tree is kept as a manifest::Node (the JSON as parsed) rather than as
// typed structs: the backends look answers up by the C function name the
// recording uses as key, so a new NVML call needs no new struct here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::discover::nvml {

inline constexpr std::string_view kRecordingFormat = "dractl.nvml-recording";
inline constexpr int kRecordingVersion = 1;

// The informational "meta" section. Only node_name is used by a replay (the
// default --node-name).
struct RecordingMeta {
  std::string dractl_version{};  // "" = this build's DRACTL_VERSION
  std::string recorded_at{};     // RFC 3339 UTC, "" = left out
  std::string node_name{};
  int64_t euid = 0;
  bool anonymized = false;
  std::string library{};       // path of the NVML library that answered
  std::string nvml_version{};  // nvmlSystemGetNVMLVersion, "" = left out
};

struct Recording {
  manifest::Node root;  // a mapping: the whole JSON document
};

// A fresh recording: format, version, meta and empty sections
// ("missingSymbols": [], "devices": [], "events": [], "sysfs": {}, "dev": [],
// "files": {}), to which RecordingApi and RecordingFs add answers.
Recording NewRecording(const RecordingMeta& meta);

// Parses and checks a recording. `file_name` prefixes every message.
// Errors (all kInvalidArgument), as "<file>:<line>:<col>: <where>: <what>":
//   - not JSON, or not exactly one JSON object;
//   - "format" is not "dractl.nvml-recording", or "version" is not 1;
//   - a section of the wrong shape (ValidateRecording).
StatusOr<Recording> ReadRecording(std::string_view text, std::string_view file_name);

// Checks the shape RECORDING.md defines, so the backends can trust it:
//   - every answer is an object with an integer "ret"; when "ret" is 0 its
//     output fields are present with the right type (unsigned ints in range,
//     strings without NUL that fit NVML's buffers where NVML's are fixed);
//   - keyed answers have decimal keys ("<profile>/<engProfile>" for compute
//     instance profiles); GPU indices, MIG indices, GI and CI ids are below
//     65536 (the replay encodes them in handles);
//   - devices[i].index == i; events are in non-decreasing atMs order and an
//     event with ret 0 names device, eventType, eventData, gpuInstanceId,
//     computeInstanceId;
//   - sysfs keys are relative paths without "." or ".." elements and each
//     value an object of {link, files, links}; dev names are relative paths;
//     files keys are absolute paths outside /sys and /dev; file contents and
//     link targets are strings.
// Keys this version does not know are ignored (a call the replay cannot
// answer shows up in ReplayApi::unrecorded() instead).
Status ValidateRecording(const Recording& recording, std::string_view file_name);

// The recording as JSON (2-space indent), ending in a newline. Top-level
// sections come in RECORDING.md's order (format, version, meta,
// missingSymbols, init, system calls, devices, events, host files; unknown
// keys last), other keys in insertion order. ReadRecording(WriteRecording(r))
// gives back r up to that reordering.
std::string WriteRecording(const Recording& recording);

// meta.nodeName, or "" when absent.
std::string RecordingNodeName(const Recording& recording);

// The C symbols behind an Api method that has fallbacks, in the order
// DlopenApi tries them. A method answers kErrorFunctionNotFound only when all
// of them are missing; every other method is backed by the one symbol named
// after it ("nvml" + method name).
inline constexpr std::array<std::string_view, 3> kInitSymbols = {"nvmlInitWithFlags", "nvmlInit_v2", "nvmlInit"};
inline constexpr std::array<std::string_view, 2> kDeviceGetCountSymbols = {"nvmlDeviceGetCount_v2",
                                                                           "nvmlDeviceGetCount"};
inline constexpr std::array<std::string_view, 2> kDeviceGetHandleByIndexSymbols = {"nvmlDeviceGetHandleByIndex_v2",
                                                                                   "nvmlDeviceGetHandleByIndex"};
inline constexpr std::array<std::string_view, 3> kDeviceGetPciInfoSymbols = {
    "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"};
inline constexpr std::array<std::string_view, 2> kPossiblePlacementsSymbols = {
    "nvmlDeviceGetGpuInstancePossiblePlacements_v2", "nvmlDeviceGetGpuInstancePossiblePlacements"};
inline constexpr std::array<std::string_view, 2> kComputeInstanceGetInfoSymbols = {"nvmlComputeInstanceGetInfo_v2",
                                                                                   "nvmlComputeInstanceGetInfo"};
inline constexpr std::array<std::string_view, 2> kEventSetWaitSymbols = {"nvmlEventSetWait_v2", "nvmlEventSetWait"};

// Tree helpers shared by the backends. References into a tree stay valid only
// until the next change to the mapping or sequence that holds them.
namespace tree {

// The value of `key` in mapping `map`, or nullptr (also when `map` is not a
// mapping).
manifest::Node* Find(manifest::Node& map, std::string_view key);
// The value of `key`, added as `init` if absent. REQUIRES: map is a mapping.
manifest::Node& Child(manifest::Node& map, std::string_view key, manifest::Node init = manifest::Node::Mapping());
// Sets `key` to `value`, replacing an existing value in place (so key order
// stays that of first insertion). REQUIRES: map is a mapping.
void Set(manifest::Node& map, std::string_view key, manifest::Node value);
// An integer node for an unsigned value (full 64-bit range).
manifest::Node Uint(uint64_t value);
// The value of an integer node within [0, max], or nullopt.
std::optional<uint64_t> ToUint(const manifest::Node& node, uint64_t max = UINT64_MAX);
// The value of an integer node within [min, max], or nullopt.
std::optional<int64_t> ToInt(const manifest::Node& node, int64_t min = INT64_MIN, int64_t max = INT64_MAX);

}  // namespace tree

}  // namespace dra::discover::nvml
