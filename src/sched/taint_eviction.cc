#include "sched/taint_eviction.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "alloc/capacity.h"
#include "alloc/taint_rules.h"
#include "sched/pod_claims.h"

namespace dra::sched {
namespace {

std::string TaintText(const api::DeviceTaint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect.text();
}

// The NoExecute taints on device (driver, pool, device): the pool's slices of
// its highest generation (which carry the rules' taints, as NewSnapshot
// applies them), then the rules (which count even where the slice is gone).
std::vector<const api::DeviceTaint*> NoExecuteTaints(const Snapshot& s, const api::DeviceRequestAllocationResult& r) {
  std::vector<const api::DeviceTaint*> out;
  int64_t generation = std::numeric_limits<int64_t>::min();
  for (const api::ResourceSlice& sl : s.slices) {
    if (sl.spec.driver == r.driver && sl.spec.pool.name == r.pool)
      generation = std::max(generation, sl.spec.pool.generation);
  }
  for (const api::ResourceSlice& sl : s.slices) {
    if (sl.spec.driver != r.driver || sl.spec.pool.name != r.pool || sl.spec.pool.generation != generation) continue;
    for (const api::Device& d : sl.spec.devices) {
      if (d.name != r.device) continue;
      for (const api::DeviceTaint& t : d.rare->taints) {
        if (t.effect == api::DeviceTaintEffect::kNoExecute) out.push_back(&t);
      }
    }
  }
  for (const api::DeviceTaintRule& rule : s.rules) {
    if (rule.spec.taint.effect == api::DeviceTaintEffect::kNoExecute &&
        alloc::TaintRuleMatches(rule.spec, r.driver, r.pool, r.device)) {
      out.push_back(&rule.spec.taint);
    }
  }
  return out;
}

std::optional<EvictionTime> ClaimEvictionTime(const Snapshot& s, const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return std::nullopt;
  std::optional<EvictionTime> out;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
    for (const api::DeviceTaint* taint : NoExecuteTaints(s, r)) {
      std::optional<int64_t> seconds;  // the smallest of the matching tolerations'
      bool forever = false;
      for (const api::DeviceToleration& tol : r.tolerations) {
        if (tol.effect != api::DeviceTaintEffect::kNoExecute || !alloc::Tolerates(tol, *taint)) continue;
        if (!tol.toleration_seconds) {
          forever = true;
          break;
        }
        const int64_t v = std::max<int64_t>(*tol.toleration_seconds, 0);
        seconds = seconds ? std::min(*seconds, v) : v;
      }
      if (forever) continue;
      const int64_t added = ParseUtcSeconds(taint->time_added).value_or(0);
      const int64_t t = added + seconds.value_or(0);
      if (!out || t < out->time) out = EvictionTime{.time = t};
      if (t == out->time) out->taints.push_back(TaintText(*taint));
    }
  }
  if (out) {
    std::sort(out->taints.begin(), out->taints.end());
    out->taints.erase(std::unique(out->taints.begin(), out->taints.end()), out->taints.end());
  }
  return out;
}

}  // namespace

std::optional<EvictionTime> PodEvictionTime(const Snapshot& s, const api::Pod& pod) {
  if (pod.spec.node_name.empty()) return std::nullopt;
  StatusOr<std::vector<PodClaimRef>> claims = ResolvePodClaims(s, pod);
  if (!claims.ok()) return std::nullopt;
  std::optional<EvictionTime> out;
  for (const PodClaimRef& ref : *claims) {
    const api::ResourceClaim& c = s.claims[ref.claim];
    const auto& reserved = c.status.reserved_for;
    if (std::none_of(reserved.begin(), reserved.end(),
                     [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod.metadata.uid; })) {
      continue;
    }
    std::optional<EvictionTime> t = ClaimEvictionTime(s, c);
    if (t && (!out || t->time < out->time)) out = std::move(t);
  }
  return out;
}

Status TaintEvictionController::AfterRun(TimelineControl& control) {
  const Snapshot& s = control.cluster();
  // Decide first, then evict (evicting changes the snapshot).
  std::vector<std::pair<std::string, bool>> due;  // pod, has a controller
  for (const api::Pod& pod : s.pods) {
    if (pod.spec.node_name.empty() || pod.status.phase == api::PodPhase::kSucceeded ||
        pod.status.phase == api::PodPhase::kFailed) {
      continue;
    }
    const std::string key = ObjectKey(pod.metadata);
    if (control.Evicting(key)) continue;
    std::optional<EvictionTime> t = PodEvictionTime(s, pod);
    if (!t) continue;
    if (t->time > control.now()) {
      control.WakeAt(t->time);
      continue;
    }
    const bool controlled = std::any_of(pod.metadata.owner_references.begin(), pod.metadata.owner_references.end(),
                                        [](const api::OwnerReference& o) { return o.controller.value_or(false); });
    due.emplace_back(key, controlled);
  }
  for (const auto& [pod, controlled] : due) DRA_RETURN_IF_ERROR(control.EvictPod(pod, grace_, controlled));
  return OkStatus();
}

}  // namespace dra::sched
