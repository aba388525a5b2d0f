// DeviceTaintRules (src/api/README.md §4.7): the scheduler adds each rule's
// taint to every device its selector matches before allocating, exactly as if
// the driver had published it (upstream's slice tracker does this,
// k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go; the
// allocator itself only sees device taints, src/alloc/README.md §1.1 item 4).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "api/features.h"
#include "api/resource.h"

namespace dra::alloc {

// True if `selector` matches the device `device` of pool `pool` of `driver`
// (an unset selector matches nothing; unset fields match everything).
bool TaintRuleMatches(const api::DeviceTaintRuleSpec& rule, std::string_view driver, std::string_view pool,
                      std::string_view device);

// Copies of `slices` with the taints of `rules` appended to the matching
// devices, in rule order. With DRADeviceTaints or DRADeviceTaintRules off the
// rules are ignored (the copies equal the input). Slices no rule touches are
// copied unchanged.
std::vector<api::ResourceSlice> ApplyDeviceTaintRules(std::span<const api::ResourceSlice* const> slices,
                                                      std::span<const api::DeviceTaintRule* const> rules,
                                                      const api::FeatureGates& gates);

// Tainted devices per node, taint key and effect, with the rules' taints
// (each device counted once per (key, effect) it carries): `dractl summary`'s
// health table and the audit's device-tainted finding. `where` is the node
// name, "(all nodes)" or "(node selector)". Sorted by where, key, effect.
struct TaintCount {
  std::string where{};
  std::string key{};
  std::string effect{};
  size_t devices = 0;
};
std::vector<TaintCount> CountTaints(std::span<const api::ResourceSlice* const> slices,
                                    std::span<const api::DeviceTaintRule* const> rules, const api::FeatureGates& gates);

}  // namespace dra::alloc
