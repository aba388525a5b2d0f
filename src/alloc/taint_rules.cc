#include "alloc/taint_rules.h"

namespace dra::alloc {

bool TaintRuleMatches(const api::DeviceTaintRuleSpec& rule, std::string_view driver, std::string_view pool,
                      std::string_view device) {
  if (!rule.device_selector) return false;
  const api::DeviceTaintSelector& s = *rule.device_selector;
  if (s.driver && *s.driver != driver) return false;
  if (s.pool && *s.pool != pool) return false;
  if (s.device && *s.device != device) return false;
  return true;
}

std::vector<api::ResourceSlice> ApplyDeviceTaintRules(std::span<const api::ResourceSlice* const> slices,
                                                      std::span<const api::DeviceTaintRule* const> rules,
                                                      const api::FeatureGates& gates) {
  std::vector<api::ResourceSlice> out;
  out.reserve(slices.size());
  const bool apply = gates.enabled(api::Gate::kDRADeviceTaints) && gates.enabled(api::Gate::kDRADeviceTaintRules);
  for (const api::ResourceSlice* slice : slices) {
    out.push_back(*slice);
    if (!apply) continue;
    api::ResourceSlice& copy = out.back();
    for (api::Device& device : copy.spec.devices) {
      for (const api::DeviceTaintRule* rule : rules) {
        if (TaintRuleMatches(rule->spec, copy.spec.driver, copy.spec.pool.name, device.name)) {
          device.rare.mut().taints.push_back(rule->spec.taint);
        }
      }
    }
  }
  return out;
}

}  // namespace dra::alloc
