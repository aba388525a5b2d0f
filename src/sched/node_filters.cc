// Upstream: pkg/scheduler/framework/plugins/{nodeunschedulable,nodename,
// tainttoleration,nodeaffinity,noderesources} (Filter of each).
#include "sched/node_filters.h"

#include <string_view>

#include "api/node_selector.h"

namespace dra::sched {

bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_.empty() || toleration.operator_ == api::TolerationOperator::kEqual) {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == api::TolerationOperator::kExists;
}

namespace {

bool Tolerated(const api::Pod& pod, const api::Taint& taint) {
  for (const api::Toleration& t : pod.spec.tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

}  // namespace

bool FilterUnschedulable(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons) {
  if (!node.spec.unschedulable) return true;
  api::Taint taint{.key = kUnschedulableTaintKey, .effect = api::TaintEffect::kNoSchedule};
  if (Tolerated(pod, taint)) return true;
  if (reasons != nullptr) reasons->emplace_back(kReasonUnschedulable);
  return false;
}

bool FilterNodeName(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons) {
  if (pod.spec.node_name.empty() || pod.spec.node_name == node.metadata.name) return true;
  if (reasons != nullptr) reasons->emplace_back(kReasonNodeName);
  return false;
}

const api::Taint* FirstUntoleratedTaint(const api::Pod& pod, const api::Node& node) {
  for (const api::Taint& taint : node.spec.taints) {
    // Only NoSchedule and NoExecute keep pods off (PreferNoSchedule scores).
    if (taint.effect != api::TaintEffect::kNoSchedule && taint.effect != api::TaintEffect::kNoExecute) continue;
    if (!Tolerated(pod, taint)) return &taint;
  }
  return nullptr;
}

bool FilterTaints(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons) {
  if (FirstUntoleratedTaint(pod, node) == nullptr) return true;
  if (reasons != nullptr) reasons->emplace_back(kReasonUntoleratedTaint);
  return false;
}

StatusOr<bool> FilterNodeAffinity(const api::Pod& pod, const api::Node& node, std::vector<std::string>* reasons) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    const std::string* have = node.metadata.labels.find(key);
    if (have == nullptr || *have != value) {
      if (reasons != nullptr) reasons->emplace_back(kReasonNodeAffinity);
      return false;
    }
  }
  if (pod.spec.affinity && pod.spec.affinity->node_affinity &&
      pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution) {
    StatusOr<bool> match =
        api::MatchesNodeSelector(*pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution,
                                 node.metadata.name, node.metadata.labels);
    if (!match.ok()) {
      return Status(match.status().code(), "spec.affinity.nodeAffinity: " + std::string(match.status().message()));
    }
    if (!*match) {
      if (reasons != nullptr) reasons->emplace_back(kReasonNodeAffinity);
      return false;
    }
  }
  return true;
}

bool HasNodeAffinity(const api::Pod& pod) {
  return !pod.spec.node_selector.empty() ||
         (pod.spec.affinity && pod.spec.affinity->node_affinity &&
          pod.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution);
}

bool FilterResources(const Resources& pod, const Resources& requested, const Resources& allocatable,
                     const ExtendedResourceClasses* dra_classes, std::vector<std::string>* reasons) {
  bool fits = true;
  auto short_of = [&](std::string_view text) {
    fits = false;
    if (reasons != nullptr) reasons->emplace_back(text);
  };
  if (requested.pods + 1 > allocatable.pods) short_of(kReasonTooManyPods);
  if (pod.milli_cpu > 0 && pod.milli_cpu > allocatable.milli_cpu - requested.milli_cpu) {
    short_of("Insufficient cpu");
  }
  if (pod.memory > 0 && pod.memory > allocatable.memory - requested.memory) {
    short_of("Insufficient memory");
  }
  // Without texts to write, the first shortfall decides.
  if (!fits && reasons == nullptr) return false;
  // Upstream checks ephemeral-storage next and then the scalar resources in
  // map order (random in Go); we check all of them by name.
  for (const auto& [name, amount] : pod.scalar) {
    if (amount > 0 && amount > allocatable.Get(name) - requested.Get(name)) {
      if (dra_classes != nullptr && allocatable.Get(name) == 0 && dra_classes->Find(name) != nullptr) continue;
      if (reasons == nullptr) return false;
      reasons->push_back("Insufficient " + name);
      fits = false;
    }
  }
  return fits;
}

}  // namespace dra::sched
