#include "alloc/taint_rules.h"

#include <map>
#include <set>
#include <tuple>

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

std::vector<TaintCount> CountTaints(std::span<const api::ResourceSlice* const> slices,
                                    std::span<const api::DeviceTaintRule* const> rules,
                                    const api::FeatureGates& gates) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> counts;
  for (const api::ResourceSlice& slice : ApplyDeviceTaintRules(slices, rules, gates)) {
    const std::string where = slice.spec.node_name                   ? *slice.spec.node_name
                              : slice.spec.all_nodes.value_or(false) ? "(all nodes)"
                                                                     : "(node selector)";
    for (const api::Device& d : slice.spec.devices) {
      std::set<std::pair<std::string, std::string>> seen;
      for (const api::DeviceTaint& t : d.rare->taints) {
        if (seen.emplace(t.key, t.effect.text()).second) ++counts[{where, t.key, t.effect.text()}];
      }
    }
  }
  std::vector<TaintCount> out;
  for (const auto& [k, n] : counts) out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), n});
  return out;
}

}  // namespace dra::alloc
