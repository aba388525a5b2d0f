// Before/after scheduling of `dractl migrate --check` (check.h).
#include "migrate/check.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "api/defaults.h"
#include "api/intern.h"
#include "migrate/labels.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"
#include "sched/workloads.h"

namespace dra::migrate {
namespace {

// "NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3", GFD's spelling.
std::string GfdName(std::string_view product) {
  std::string out(product);
  std::replace(out.begin(), out.end(), ' ', '-');
  return out;
}

// The device-plugin resources the pod's containers ask for.
std::vector<std::pair<std::string, DeviceKind>> PodDeviceRequests(const api::Pod& pod, const SharingConfig& sharing) {
  std::vector<std::pair<std::string, DeviceKind>> out;
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *list) {
      for (const auto* map : {&c.resources.limits, &c.resources.requests}) {
        for (const auto& entry : *map) {
          const std::string& name = entry.first;
          DeviceKind kind;
          if (entry.second.IsZero() || ClassifyResource(name, sharing, &kind) != ResourceClass::kDevice) continue;
          if (std::none_of(out.begin(), out.end(), [&](const auto& r) { return r.first == name; })) {
            out.emplace_back(name, kind);
          }
        }
      }
    }
  }
  return out;
}

// The kind of device the device plugin gave `pod` on `node` (check.h).
std::string KindBefore(const api::Node& node, const std::vector<std::pair<std::string, DeviceKind>>& requests) {
  const api::FlatMap<std::string>& labels = node.metadata.labels;
  std::set<std::string> kinds;
  for (const auto& [name, kind] : requests) {
    if (kind.vendor == Vendor::kTpu) {
      if (const std::string* acc = labels.find("cloud.google.com/gke-tpu-accelerator")) kinds.insert(*acc);
      continue;
    }
    if (kind.vendor != Vendor::kNvidia) continue;
    std::string product;
    if (const std::string* p = labels.find("nvidia.com/gpu.product")) {
      product = *p;
      if (product.ends_with("-SHARED")) product.resize(product.size() - 7);
    } else if (const std::string* acc = labels.find("cloud.google.com/gke-accelerator")) {
      if (std::optional<std::string_view> nvml = GkeAcceleratorProduct(*acc)) product = GfdName(*nvml);
    }
    if (product.empty()) continue;
    std::string profile = kind.mig_profile;
    if (size_t mig = product.find("-MIG-"); mig != std::string::npos) {
      if (profile.empty()) profile = product.substr(mig + 5);
      product.resize(mig);
    } else if (profile.empty() && name == "nvidia.com/gpu") {
      if (const std::string* size = labels.find("cloud.google.com/gke-gpu-partition-size")) profile = *size;
    }
    kinds.insert(profile.empty() ? product : fmt::format("{} MIG {}", product, profile));
  }
  return fmt::format("{}", fmt::join(kinds, ", "));
}

const api::DeviceAttribute* FindAttribute(const api::Device& d, std::string_view driver, std::string_view name) {
  if (const api::DeviceAttribute* a = d.attributes.find(name)) return a;
  return d.attributes.find(fmt::format("{}/{}", driver, name));
}

std::string StringAttribute(const api::Device& d, std::string_view driver, std::string_view name) {
  const api::DeviceAttribute* a = FindAttribute(d, driver, name);
  const api::InternedString* s = a != nullptr ? a->string_value() : nullptr;
  return s != nullptr ? s->str() : "";
}

// The kinds of the devices allocated to a placed pod (check.h).
std::string KindAfter(const sched::Snapshot& snapshot, const sched::PodOutcome& outcome) {
  std::set<std::string> kinds;
  for (const sched::ClaimPlacement& c : outcome.claims) {
    for (const api::DeviceRequestAllocationResult& r : c.results) {
      for (const api::ResourceSlice& s : snapshot.slices) {
        if (s.spec.driver != r.driver || s.spec.pool.name != r.pool) continue;
        for (const api::Device& d : s.spec.devices) {
          if (d.name != r.device) continue;
          if (r.driver == "tpu.google.com") {
            kinds.insert(StringAttribute(d, r.driver, "accelerator"));
          } else if (r.driver == "gpu.nvidia.com") {
            std::string product = GfdName(StringAttribute(d, r.driver, "productName"));
            kinds.insert(StringAttribute(d, r.driver, "type") == "mig"
                             ? fmt::format("{} MIG {}", product, StringAttribute(d, r.driver, "profile"))
                             : product);
          } else if (r.driver == "gpu.amd.com") {
            kinds.insert(GfdName(StringAttribute(d, r.driver, "productName")));
          }
        }
      }
    }
  }
  return fmt::format("{}", fmt::join(kinds, ", "));
}

// One scheduling run: objects defaulted, workloads expanded, the kube policy.
struct Run {
  sched::Snapshot snapshot;
  sched::ScheduleResult result;
};

StatusOr<Run> Schedule(std::vector<api::Object> objects, const std::vector<api::Workload>& workloads,
                       const api::FeatureGates& gates) {
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  for (const api::Object& o : objects) {
    if (const auto* p = std::get_if<api::Pod>(&o)) pods.push_back(*p);
    if (const auto* n = std::get_if<api::Node>(&o)) nodes.push_back(*n);
  }
  sched::ExpandedWorkloads expanded = sched::ExpandWorkloads(workloads, pods, nodes);
  for (api::Pod& p : expanded.pods) objects.emplace_back(std::move(p));
  std::vector<const api::Object*> ptrs;
  for (api::Object& o : objects) {
    api::SetDefaults(o, "1970-01-01T00:00:00Z");
    ptrs.push_back(&o);
  }
  Run run{.snapshot = sched::NewSnapshot(ptrs, gates), .result = {}};
  StatusOr<std::unique_ptr<sched::ScorePolicy>> policy = sched::NewPolicy("kube");
  if (!policy.ok()) return policy.status();
  StatusOr<sched::ScheduleResult> result = sched::Schedule(&run.snapshot, {.policy = policy->get()});
  if (!result.ok()) return result.status();
  run.result = std::move(*result);
  return run;
}

const api::Pod* FindPod(const sched::Snapshot& s, std::string_view key) {
  for (const api::Pod& p : s.pods) {
    if (sched::HasObjectKey(p.metadata, key)) return &p;
  }
  return nullptr;
}

const api::Node* FindNode(const sched::Snapshot& s, std::string_view name) {
  for (const api::Node& n : s.nodes) {
    if (n.metadata.name == name) return &n;
  }
  return nullptr;
}

api::FlatMap<quantity::Quantity> WithoutDevices(const api::FlatMap<quantity::Quantity>& in,
                                                const SharingConfig& sharing) {
  api::FlatMap<quantity::Quantity> out;
  for (const auto& [name, q] : in) {
    DeviceKind kind;
    if (ClassifyResource(name, sharing, &kind) == ResourceClass::kOther) out.insert_or_assign(name, q);
  }
  return out;
}

}  // namespace

size_t CheckReport::Count(PodCheck::Verdict verdict) const {
  return static_cast<size_t>(
      std::count_if(pods.begin(), pods.end(), [&](const PodCheck& p) { return p.verdict == verdict; }));
}

StatusOr<CheckReport> Check(const CheckInputs& in, const api::FeatureGates& gates) {
  std::vector<api::Object> before = in.cluster;
  std::vector<api::Object> after = in.cluster;
  for (api::Object& o : before) {
    if (auto* c = std::get_if<api::DeviceClass>(&o)) c->spec.extended_resource_name.reset();
  }
  for (api::Object& o : after) {
    if (auto* n = std::get_if<api::Node>(&o)) {
      n->status.allocatable = WithoutDevices(n->status.allocatable, in.sharing);
      n->status.capacity = WithoutDevices(n->status.capacity, in.sharing);
    }
  }
  before.insert(before.end(), in.before_objects.begin(), in.before_objects.end());
  after.insert(after.end(), in.after_objects.begin(), in.after_objects.end());
  StatusOr<Run> b = Schedule(std::move(before), in.before_workloads, gates);
  if (!b.ok()) return b.status();
  StatusOr<Run> a = Schedule(std::move(after), in.after_workloads, gates);
  if (!a.ok()) return a.status();

  std::map<std::string, const sched::PodOutcome*, std::less<>> after_outcomes;
  for (const sched::PodOutcome& o : a->result.pods) after_outcomes.emplace(o.pod, &o);
  CheckReport report;
  for (const sched::PodOutcome& bo : b->result.pods) {
    const api::Pod* pod = FindPod(b->snapshot, bo.pod);
    auto requests =
        pod != nullptr ? PodDeviceRequests(*pod, in.sharing) : std::vector<std::pair<std::string, DeviceKind>>{};
    auto it = after_outcomes.find(bo.pod);
    const sched::PodOutcome* ao = it != after_outcomes.end() ? it->second : nullptr;
    const bool placed_before = bo.kind == sched::PodOutcome::Kind::kPlaced;
    const bool placed_after = ao != nullptr && ao->kind == sched::PodOutcome::Kind::kPlaced;
    if (requests.empty() && !(placed_before && !placed_after)) continue;
    PodCheck c{.pod = bo.pod};
    if (placed_before) {
      c.before_node = bo.node;
      if (const api::Node* node = FindNode(b->snapshot, bo.node)) c.before_kind = KindBefore(*node, requests);
    }
    if (placed_after) {
      c.after_node = ao->node;
      c.after_kind = KindAfter(a->snapshot, *ao);
    } else {
      c.after_message = ao != nullptr ? ao->message : "not in the migrated output";
    }
    using V = PodCheck::Verdict;
    if (placed_before && placed_after) {
      c.verdict = c.before_kind.empty()           ? V::kKindUnknown
                  : c.before_kind == c.after_kind ? V::kSame
                                                  : V::kDifferentKind;
    } else if (placed_before) {
      c.verdict = V::kNoLongerFits;
    } else {
      c.verdict = placed_after ? V::kNowFits : V::kPendingBoth;
    }
    report.pods.push_back(std::move(c));
  }
  return report;
}

std::string FormatCheck(const CheckReport& report) {
  auto side = [](const std::string& node, const std::string& kind) {
    if (node.empty()) return std::string("<pending>");
    return kind.empty() ? node : fmt::format("{} ({})", node, kind);
  };
  auto verdict = [](PodCheck::Verdict v) -> std::string_view {
    switch (v) {
      case PodCheck::Verdict::kSame: return "same kind";
      case PodCheck::Verdict::kDifferentKind: return "DIFFERENT KIND";
      case PodCheck::Verdict::kNoLongerFits: return "NO LONGER FITS";
      case PodCheck::Verdict::kNowFits: return "now fits";
      case PodCheck::Verdict::kPendingBoth: return "pending before and after";
      case PodCheck::Verdict::kKindUnknown: return "placed (kind unknown before: no product label)";
    }
    return "";
  };
  size_t pod_w = 3, before_w = 6, after_w = 5;
  for (const PodCheck& p : report.pods) {
    pod_w = std::max(pod_w, p.pod.size());
    before_w = std::max(before_w, side(p.before_node, p.before_kind).size());
    after_w = std::max(after_w, side(p.after_node, p.after_kind).size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "POD", pod_w, "BEFORE", before_w, "AFTER", after_w, "CHANGE");
  for (const PodCheck& p : report.pods) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", p.pod, pod_w, side(p.before_node, p.before_kind), before_w,
                       side(p.after_node, p.after_kind), after_w, verdict(p.verdict));
  }
  for (const PodCheck& p : report.pods) {
    if (p.verdict == PodCheck::Verdict::kNoLongerFits) out += fmt::format("{}: {}\n", p.pod, p.after_message);
  }
  using V = PodCheck::Verdict;
  out += fmt::format(
      "{} pods: {} on the same kind of device, {} on a different kind, {} no longer fit, {} now fit, "
      "{} pending before and after, {} of unknown kind before\n",
      report.pods.size(), report.Count(V::kSame), report.Count(V::kDifferentKind), report.Count(V::kNoLongerFits),
      report.Count(V::kNowFits), report.Count(V::kPendingBoth), report.Count(V::kKindUnknown));
  return out;
}

}  // namespace dra::migrate
