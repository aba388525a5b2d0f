// Shapes and the typical list. The key is built field by field with
// separators that cannot occur inside the fields' own texts at those places
// (CEL texts are length-prefixed), so equal keys mean equal requests.
#include "sched/profile.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "sched/resources.h"

namespace dra::sched {
namespace {

void AppendText(std::string& out, std::string_view text) {
  fmt::format_to(std::back_inserter(out), "{}:{}", text.size(), text);
}

ShapeRequest FromExact(const std::string& device_class, const std::vector<api::DeviceSelector>& selectors,
                       const api::EnumString<api::AllocationMode>& mode, int64_t count,
                       const std::optional<api::CapacityRequirements>& capacity,
                       const std::vector<api::DeviceToleration>& tolerations) {
  ShapeRequest r;
  r.device_class = device_class;
  for (const api::DeviceSelector& s : selectors) r.selectors.push_back(s.cel ? s.cel->expression : std::string());
  r.all = mode == api::AllocationMode::kAll;
  r.count = r.all ? 0 : std::max<int64_t>(count, 1);
  r.capacity = capacity;
  r.tolerations = tolerations;
  return r;
}

}  // namespace

std::string ShapeRequest::Key() const {
  std::string k;
  AppendText(k, device_class);
  k += all ? "all" : fmt::format("n{}", count);
  for (const std::string& s : selectors) {
    k += 's';
    AppendText(k, s);
  }
  if (capacity) {
    for (const auto& [name, q] : capacity->requests) {
      k += 'c';
      AppendText(k, name);
      AppendText(k, q.String());
    }
  }
  for (const api::DeviceToleration& t : tolerations) {
    k += 't';
    AppendText(k, t.key);
    AppendText(k, t.operator_.text());
    AppendText(k, t.value);
    AppendText(k, t.effect.text());
  }
  return k;
}

WorkloadShape ShapeOf(int64_t milli_cpu, int64_t memory, std::span<const api::ResourceClaimSpec* const> claims) {
  WorkloadShape shape;
  shape.milli_cpu = milli_cpu;
  shape.memory = memory;
  shape.pods = 1;
  shape.key = fmt::format("cpu={} mem={}", milli_cpu, memory);
  for (const api::ResourceClaimSpec* spec : claims) {
    for (const api::DeviceRequest& request : spec->devices.requests) {
      ShapeClaimRequest cr;
      if (request.exactly) {
        const api::ExactDeviceRequest& ex = *request.exactly;
        if (ex.admin_access.value_or(false)) continue;
        cr.alternatives.push_back(
            FromExact(ex.device_class_name, ex.selectors, ex.allocation_mode, ex.count, ex.capacity, ex.tolerations));
      } else {
        for (const api::DeviceSubRequest& sub : request.first_available) {
          cr.alternatives.push_back(FromExact(sub.device_class_name, sub.selectors, sub.allocation_mode, sub.count,
                                              sub.capacity, sub.tolerations));
        }
      }
      if (cr.alternatives.empty()) continue;
      shape.key += " [";
      for (const ShapeRequest& r : cr.alternatives) shape.key += r.Key() + "|";
      shape.key += "]";
      shape.requests.push_back(std::move(cr));
    }
  }
  return shape;
}

std::string WorkloadProfile::Describe() const {
  const double cover = total_pods > 0 ? 100.0 * static_cast<double>(covered_pods) / static_cast<double>(total_pods) : 0;
  return fmt::format("{}: {} pod{}, {} shape{}, {} typical covering {:.1f}%", source, total_pods,
                     total_pods == 1 ? "" : "s", distinct_shapes, distinct_shapes == 1 ? "" : "s", shapes.size(),
                     cover);
}

WorkloadProfile BuildProfile(std::span<const WorkloadShape> pods, std::string source, int64_t cover_percent) {
  std::map<std::string, WorkloadShape> by_key;
  for (const WorkloadShape& p : pods) {
    auto [it, inserted] = by_key.try_emplace(p.key, p);
    if (inserted) {
      it->second.pods = 1;
    } else {
      ++it->second.pods;
    }
  }
  std::vector<WorkloadShape> all;
  all.reserve(by_key.size());
  for (auto& [key, shape] : by_key) all.push_back(std::move(shape));
  std::sort(all.begin(), all.end(), [](const WorkloadShape& a, const WorkloadShape& b) {
    return std::tie(b.pods, b.milli_cpu, b.memory, b.key) < std::tie(a.pods, a.milli_cpu, a.memory, a.key);
  });
  WorkloadProfile out;
  out.source = std::move(source);
  out.distinct_shapes = static_cast<int64_t>(all.size());
  out.total_pods = static_cast<int64_t>(pods.size());
  out.covered_pods = TakeTypical(all, out.total_pods, cover_percent, &out.shapes);
  return out;
}

WorkloadProfile ProfileFromTypical(std::vector<WorkloadShape> typical, int64_t distinct_shapes, int64_t total_pods,
                                   std::string source) {
  WorkloadProfile out;
  out.source = std::move(source);
  out.distinct_shapes = distinct_shapes;
  out.total_pods = total_pods;
  int64_t cum = 0;
  for (const WorkloadShape& s : typical) cum += s.pods;
  out.covered_pods = cum;
  out.shapes = std::move(typical);
  for (WorkloadShape& s : out.shapes) s.weight = cum > 0 ? static_cast<double>(s.pods) / static_cast<double>(cum) : 0;
  return out;
}

std::vector<WorkloadShape> ShapesOfPods(const Snapshot& snapshot, std::span<const size_t> pod_indices) {
  std::vector<WorkloadShape> out;
  out.reserve(pod_indices.size());
  std::vector<const api::ResourceClaimSpec*> specs;
  for (size_t idx : pod_indices) {
    const api::Pod& pod = snapshot.pods[idx];
    specs.clear();
    for (const api::PodResourceClaim& prc : pod.spec.resource_claims) {
      if (prc.resource_claim_name) {
        if (std::optional<size_t> c = snapshot.FindClaim(pod.metadata.namespace_, *prc.resource_claim_name)) {
          const api::ResourceClaim& claim = snapshot.claims[*c];
          if (!claim.status.allocation) specs.push_back(&claim.spec);
        }
      } else if (prc.resource_claim_template_name) {
        if (const api::ResourceClaimTemplate* t =
                snapshot.FindTemplate(pod.metadata.namespace_, *prc.resource_claim_template_name)) {
          specs.push_back(&t->spec.spec);
        }
      }
    }
    const Resources requests = PodRequests(pod);
    out.push_back(ShapeOf(requests.milli_cpu, requests.memory, specs));
  }
  return out;
}

ProfileWindow::ProfileWindow(double window_seconds, double half_life_seconds, const WorkloadProfile* seed, double start)
    : window_(window_seconds), half_life_(half_life_seconds) {
  if (seed == nullptr) return;
  for (const WorkloadShape& s : seed->shapes) {
    seen_.push_back(Seen{.time = start, .pods = static_cast<double>(std::max<int64_t>(s.pods, 1)), .shape = Intern(s)});
  }
}

size_t ProfileWindow::Intern(const WorkloadShape& shape) {
  auto [it, inserted] = shape_index_.try_emplace(shape.key, shapes_.size());
  if (inserted) shapes_.push_back(shape);
  return it->second;
}

void ProfileWindow::Observe(const std::string& uid, const WorkloadShape& shape, double now) {
  if (!uids_.try_emplace(uid, now).second) return;
  seen_.push_back(Seen{.time = now, .pods = 1, .shape = Intern(shape)});
}

WorkloadProfile ProfileWindow::Profile(double now) {
  // Forget what left the window (entries are in time order, the seed first).
  size_t keep = 0;
  while (keep < seen_.size() && now - seen_[keep].time > window_) ++keep;
  seen_.erase(seen_.begin(), seen_.begin() + static_cast<std::ptrdiff_t>(keep));
  for (auto it = uids_.begin(); it != uids_.end();) it = now - it->second > window_ ? uids_.erase(it) : std::next(it);

  std::vector<double> weight(shapes_.size(), 0);
  std::vector<int64_t> pods(shapes_.size(), 0);
  double total = 0;
  for (const Seen& s : seen_) {
    const double w = s.pods * std::exp2(-(now - s.time) / half_life_);
    weight[s.shape] += w;
    pods[s.shape] += static_cast<int64_t>(s.pods);
    total += w;
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < shapes_.size(); ++i) {
    if (pods[i] > 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (weight[a] != weight[b]) return weight[a] > weight[b];
    return shapes_[a].key > shapes_[b].key;
  });
  WorkloadProfile out;
  out.source = fmt::format("the pods seen in the last {:g} s (half-life {:g} s)", window_, half_life_);
  out.distinct_shapes = static_cast<int64_t>(order.size());
  double cum = 0;
  for (size_t i : order) {
    out.total_pods += pods[i];
    if (total > 0 && cum >= 0.95 * total) continue;
    cum += weight[i];
    WorkloadShape s = shapes_[i];
    s.pods = pods[i];
    s.weight = weight[i];
    out.covered_pods += pods[i];
    out.shapes.push_back(std::move(s));
  }
  for (WorkloadShape& s : out.shapes) s.weight = cum > 0 ? s.weight / cum : 0;
  return out;
}

}  // namespace dra::sched
