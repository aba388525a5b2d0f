// Mirrors k8s.io/component-helpers/resource.PodRequests and the framework's
// Resource type (pkg/scheduler/framework/types.go).
#include "sched/resources.h"

#include <algorithm>

namespace dra::sched {
namespace {

int64_t Units(std::string_view name, const api::Quantity& q) { return name == "cpu" ? q.MilliValue() : q.Value(); }

void AddTo(Resources& r, std::string_view name, int64_t amount) {
  if (name == "cpu") {
    r.milli_cpu += amount;
  } else if (name == "memory") {
    r.memory += amount;
  } else if (name == "pods") {
    r.pods += amount;
  } else {
    auto it = r.scalar.find(name);
    if (it == r.scalar.end()) {
      r.scalar.emplace(std::string(name), amount);
    } else {
      it->second += amount;
    }
  }
}

// One container's requests: requests, else limits (API defaulting), and the
// scoring defaults when `non_zero`.
Resources ContainerRequests(const api::Container& c, bool non_zero) {
  Resources r;
  for (const auto& [name, q] : c.resources.requests) AddTo(r, name, Units(name, q));
  for (const auto& [name, q] : c.resources.limits) {
    if (!c.resources.requests.contains(name)) AddTo(r, name, Units(name, q));
  }
  if (non_zero) {
    auto has = [&](std::string_view name) {
      return c.resources.requests.contains(name) || c.resources.limits.contains(name);
    };
    if (!has("cpu")) r.milli_cpu = kDefaultMilliCpuRequest;
    if (!has("memory")) r.memory = kDefaultMemoryRequest;
  }
  return r;
}

}  // namespace

int64_t Resources::Get(std::string_view name) const {
  if (name == "cpu") return milli_cpu;
  if (name == "memory") return memory;
  if (name == "pods") return pods;
  auto it = scalar.find(name);
  return it == scalar.end() ? 0 : it->second;
}

void Resources::Add(const Resources& other) {
  milli_cpu += other.milli_cpu;
  memory += other.memory;
  pods += other.pods;
  for (const auto& [name, v] : other.scalar) AddTo(*this, name, v);
}

void Resources::Max(const Resources& other) {
  milli_cpu = std::max(milli_cpu, other.milli_cpu);
  memory = std::max(memory, other.memory);
  pods = std::max(pods, other.pods);
  for (const auto& [name, v] : other.scalar) {
    int64_t& mine = scalar[name];
    mine = std::max(mine, v);
  }
}

Resources ToResources(const api::FlatMap<api::Quantity>& list) {
  Resources r;
  for (const auto& [name, q] : list) AddTo(r, name, Units(name, q));
  return r;
}

Resources PodRequests(const api::Pod& pod, bool non_zero) {
  Resources reqs;
  for (const api::Container& c : pod.spec.containers) reqs.Add(ContainerRequests(c, non_zero));
  Resources sidecars;
  Resources init_max;
  for (const api::Container& c : pod.spec.init_containers) {
    Resources cr = ContainerRequests(c, non_zero);
    if (c.restart_policy == api::ContainerRestartPolicy::kAlways) {
      reqs.Add(cr);
      sidecars.Add(cr);
      cr = sidecars;
    } else {
      cr.Add(sidecars);
    }
    init_max.Max(cr);
  }
  reqs.Max(init_max);
  reqs.Add(ToResources(pod.spec.overhead));
  reqs.pods = 1;
  return reqs;
}

Resources NodeAllocatable(const api::Node& node) { return ToResources(node.status.allocatable); }

}  // namespace dra::sched
