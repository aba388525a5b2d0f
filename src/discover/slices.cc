#include "discover/slices.h"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "api/features.h"
#include "api/validation.h"
#include "base/fnv.h"

namespace dra::discover {
namespace {

// The alphabet the API server draws generateName suffixes from.
constexpr std::string_view kSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string Suffix(std::string_view driver, std::string_view node, size_t index) {
  // FNV-1a 64 from a non-standard basis (kept: pool names depend on it),
  // each string followed by a 0xff byte.
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::string_view s) { h = Fnv1a64("\xff", Fnv1a64(s, h)); };
  mix(driver);
  mix(node);
  mix(std::to_string(index));
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kSuffixAlphabet[h % kSuffixAlphabet.size()];
    h /= kSuffixAlphabet.size();
  }
  return out;
}

}  // namespace

std::vector<api::ResourceSlice> MakePool(std::string_view driver, std::string_view node_name,
                                         std::vector<SliceContent> contents, const PoolOptions& options) {
  std::vector<api::ResourceSlice> out;
  out.reserve(contents.size());
  for (size_t i = 0; i < contents.size(); ++i) {
    api::ResourceSlice slice;
    std::string prefix = fmt::format("{:05x}-{}-{}-", i, driver, node_name);
    if (options.generate_name) {
      slice.metadata.generate_name = prefix;
    } else {
      slice.metadata.name = prefix + Suffix(driver, node_name, i);
    }
    slice.spec.driver = std::string(driver);
    slice.spec.node_name = std::string(node_name);
    slice.spec.pool.name = std::string(node_name);
    slice.spec.pool.generation = 1;
    slice.spec.pool.resource_slice_count = static_cast<int64_t>(contents.size());
    slice.spec.shared_counters = std::move(contents[i].shared_counters);
    slice.spec.devices = std::move(contents[i].devices);
    out.push_back(std::move(slice));
  }
  return out;
}

Status CheckSlices(const std::vector<api::ResourceSlice>& slices, std::string_view kubernetes_version) {
  // Every gate a driver's slice may use, with the rules of the release the
  // layout is for (newest when none is named).
  constexpr std::string_view kGates[] = {"DRAPartitionableDevices", "DRADeviceTaints", "DRAConsumableCapacity",
                                         "DRAListTypeAttributes"};
  StatusOr<api::FeatureGates> gates =
      api::FeatureGates::FromList({"DynamicResourceAllocation", "DRAPartitionableDevices", "DRADeviceTaints",
                                   "DRAConsumableCapacity", "DRAListTypeAttributes"});
  if (!kubernetes_version.empty()) {
    gates = api::FeatureGates::Defaults(kubernetes_version);
    if (!gates.ok()) return gates.status();
    for (std::string_view gate : kGates) {
      gates->Set(gate, true).IgnoreError();  // a gate the release lacks stays off
    }
  }
  if (!gates.ok()) return gates.status();
  std::string problems;
  size_t count = 0;
  for (const api::ResourceSlice& given : slices) {
    api::ResourceSlice slice = given;
    // The API server names a generateName object before validating it.
    if (slice.metadata.name.empty()) slice.metadata.name = slice.metadata.generate_name + "bcdfg";
    for (const api::FieldError& e : api::ValidateResourceSlice(slice, *gates)) {
      if (e.severity != api::Severity::kError) continue;
      ++count;
      std::string name = given.metadata.name.empty() ? given.metadata.generate_name : given.metadata.name;
      problems += fmt::format("\n  ResourceSlice {}: {}", name, e.ToString());
    }
  }
  // Across the slices of one pool (what the allocator needs; no single
  // object's validation sees it): device and counter-set names unique.
  // Repeats inside one slice were reported above.
  using PoolKey = std::pair<std::string, std::string>;
  std::map<PoolKey, std::map<std::string, size_t>> devices;
  std::map<PoolKey, std::map<std::string, size_t>> counter_sets;
  for (size_t i = 0; i < slices.size(); ++i) {
    const api::ResourceSlice& slice = slices[i];
    PoolKey pool{slice.spec.driver, slice.spec.pool.name};
    std::string name = slice.metadata.name.empty() ? slice.metadata.generate_name : slice.metadata.name;
    auto check = [&](std::map<std::string, size_t>& seen, const std::string& item, std::string_view what) {
      auto [it, inserted] = seen.emplace(item, i);
      if (inserted || it->second == i) return;
      ++count;
      problems += fmt::format("\n  ResourceSlice {}: {} \"{}\" is also in another slice of pool {}/{}", name, what,
                              item, pool.first, pool.second);
    };
    for (const api::Device& d : slice.spec.devices) check(devices[pool], d.name, "device");
    for (const api::CounterSet& c : slice.spec.shared_counters) {
      check(counter_sets[pool], c.name, "counter set");
    }
  }
  if (count == 0) return OkStatus();
  return InvalidArgumentError(
      fmt::format("the API server (or, across slices, the scheduler) would reject what this node publishes ({} "
                  "problem{}); nothing printed:{}",
                  count, count == 1 ? "" : "s", problems));
}

}  // namespace dra::discover
