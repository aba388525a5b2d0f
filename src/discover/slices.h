// Slices of one pool as the kubelet-plugin helper publishes them
// (README.md §1.7): names, pool generation and count, node name, and the API
// limits checked before anything is printed.
#pragma once

#include <string_view>
#include <vector>

#include "api/resource.h"
#include "base/status.h"

namespace dra::discover {

enum class SliceLayout { kSplit, kCombined };

// What one slice holds (a slice holds counters or devices; both only in the
// 1.34 "combined" layout).
struct SliceContent {
  std::vector<api::CounterSet> shared_counters;
  std::vector<api::Device> devices;
};

struct PoolOptions {
  // metadata.generateName only, as the helper sends it, instead of a name
  // with a deterministic 5-character suffix.
  bool generate_name = false;
};

// One ResourceSlice per content, in order: spec.driver, spec.nodeName,
// pool {node, generation 1, count}; metadata.name
// "<index as lower-case hex, 5 digits>-<driver>-<node>-<suffix>" where suffix
// is 5 characters of the API server's alphabet derived from a hash of
// (driver, node, index) — deterministic, unlike the server's random one.
std::vector<api::ResourceSlice> MakePool(std::string_view driver, std::string_view node_name,
                                         std::vector<SliceContent> contents, const PoolOptions& options);

// Every slice validated as the API server of `kubernetes_version` ("1.34";
// "" = the newest) would, with the gates drivers use turned on (the limits of
// README §1.7 included); kInvalidArgument listing the problems, naming the
// slice.
Status CheckSlices(const std::vector<api::ResourceSlice>& slices, std::string_view kubernetes_version = "");

}  // namespace dra::discover
