// Pod groups on a generated cluster (issue "Gang scheduling with DRA"): the
// time and search steps per group, for --gang upstream and --gang search,
// in one run. Not a Google Benchmark: each group is decided once, in queue
// order, and timed from the report of the entity before it to its own
// (ScheduleOptions::after_pod), so a group's time includes undoing it.
//
//   build/release/bench/gang_bench [--groups N] [--seed S] [--background B]
//
// Cluster (sched/generate.h): 400 nodes x 8 GPUs of three models
// (H100-80GB, A100-80GB, L40S-48GB; node i gets model i % 3) and 100 nodes
// x 8 A100-40GB partitioned on demand (MIG: counter sets, one device per
// profile placement): 500 nodes, 4,000 GPUs; and 50 nodes x 4 shared GPUs
// (DRAConsumableCapacity: allowMultipleAllocations, 80Gi of capacity
// `memory` each). Before the groups, B (default 1,200) one-GPU pods and 300
// one-MIG-device pods are placed (spread by kube's LeastAllocated): the
// groups meet a fragmented cluster.
//
// Groups (N, default 60; sizes 2, 4, 8, 16, 32, 64 in turn; devices per
// member 1, 2, 4 or 8 from the seed), of four kinds in turn:
//   any     every member takes D GPUs of any model
//   model   every member takes D GPUs of one model (productName)
//   leader  member 0 takes D GPUs of any model, the others D of one model:
//           one pod at a time, the leader may take what the others need
//   mig     every member takes one MIG device of 1g, 2g or 3g
//   partition  every member asks firstAvailable [7g, 3g] on the GPUs of
//           parentIndex 7 (one per MIG node, 100 in all): one pod at a time
//           the members take whole GPUs until none is left and the rest
//           fit nowhere (kubernetes#138765 at scale); halves fit them all
//   share   every member takes a share of 10, 20 or 40Gi of one shared GPU
// Kind and size both rotate (kind (g + g/6) % 6, size g % 6), so 36 groups
// hold every pair. minCount is the group's size, except every seventh group
// (half its size).
//
// Prints, per mode and size: groups, groups placed, mean and max time, mean
// and max search steps. Target: 64-member groups decided in under 100 ms.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "sched/generate.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::bench {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "gang_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Must(StatusOr<T> v, const char* what) {
  if (!v.ok()) Fail(std::string(what) + ": " + v.status().ToString());
  return *std::move(v);
}

const std::vector<std::string> kModels = {"H100-80GB", "A100-80GB", "L40S-48GB"};

// A template of one request: `count` devices of `device_class`, with
// `selector` if not empty.
api::ResourceClaimTemplate Template(std::string name, const std::string& device_class, int64_t count,
                                    const std::string& selector) {
  api::ResourceClaimTemplate t;
  t.metadata.namespace_ = "default";
  t.metadata.name = std::move(name);
  api::ExactDeviceRequest exactly{.device_class_name = device_class, .count = count};
  if (!selector.empty()) exactly.selectors.push_back({.cel = api::CelDeviceSelector{selector}});
  t.spec.spec.devices.requests.push_back({.name = "dev", .exactly = exactly});
  api::SetDefaults(t);
  return t;
}

// A template of one firstAvailable request: one MIG device of profile 7g,
// else 3g, on the GPUs of parentIndex 7.
api::ResourceClaimTemplate PartitionTemplate(std::string name) {
  api::ResourceClaimTemplate t;
  t.metadata.namespace_ = "default";
  t.metadata.name = std::move(name);
  api::DeviceRequest request{.name = "dev"};
  for (const char* profile : {"7g.40gb", "3g.20gb"}) {
    request.first_available.push_back(api::DeviceSubRequest{
        .name = profile[0] == '7' ? "whole" : "half",
        .device_class_name = "mig.nvidia.com",
        .selectors = {
            {.cel = api::CelDeviceSelector{fmt::format("device.attributes[\"gpu.nvidia.com\"].profile == \"{}\" && "
                                                       "device.attributes[\"gpu.nvidia.com\"].parentIndex == 7",
                                                       profile)}}}});
  }
  t.spec.spec.devices.requests.push_back(request);
  api::SetDefaults(t);
  return t;
}

// 50 nodes of 4 GPUs that consumable capacity shares (DRAConsumableCapacity),
// and their DeviceClass.
std::string SharedGpuCluster() {
  std::string text = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: share.example.com}
spec:
  selectors:
  - cel: {expression: device.driver == "share.example.com"}
)";
  for (int n = 0; n < 50; ++n) {
    text += fmt::format(R"(---
apiVersion: v1
kind: Node
metadata: {{name: sh-{0:03d}, labels: {{kubernetes.io/hostname: sh-{0:03d}}}}}
status: {{allocatable: {{cpu: "64", memory: 512Gi, pods: "110"}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: sh-{0:03d}-gpus}}
spec:
  driver: share.example.com
  nodeName: sh-{0:03d}
  pool: {{name: sh-{0:03d}, generation: 1, resourceSliceCount: 1}}
  devices:
)",
                        n);
    for (int d = 0; d < 4; ++d) {
      text += fmt::format(
          "  - {{name: gpu-{}, allowMultipleAllocations: true, capacity: {{memory: {{value: 80Gi}}}}}}\n", d);
    }
  }
  return text;
}

api::Pod Pod(std::string name, int64_t created, const std::string& tmpl, const std::string& group) {
  api::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = std::move(name);
  p.metadata.uid = "uid-" + p.metadata.name;
  p.metadata.creation_timestamp =
      fmt::format("2026-01-01T{:02d}:{:02d}:{:02d}Z", created / 3600 % 24, created / 60 % 60, created % 60);
  api::Container c;
  c.name = "main";
  c.resources.requests.insert_or_assign("cpu", *api::Quantity::Parse("1"));
  p.spec.containers.push_back(c);
  p.spec.resource_claims.push_back({.name = "dev", .resource_claim_template_name = tmpl});
  if (!group.empty())
    p.spec.extra.insert_or_assign("schedulingGroup", fmt::format(R"({{"podGroupName":"{}"}})", group));
  return p;
}

struct Group {
  std::string name;
  std::string kind;
  int64_t size = 0;
  int64_t devices = 0;
};

sched::Snapshot Build(int64_t groups, uint64_t seed, int64_t background, std::vector<Group>* out) {
  sched::ClusterShape gpus;
  gpus.nodes = 400;
  gpus.devices_per_node = 8;
  gpus.models.clear();
  for (const std::string& m : kModels) gpus.models.push_back({m, 81920});
  sched::MigClusterShape mig;
  mig.nodes = 100;
  mig.gpus_per_node = 8;
  std::string text = Must(sched::GenerateCluster(gpus), "cluster") + "---\n" +
                     Must(sched::GenerateMigCluster(mig), "mig") + "---\n" + SharedGpuCluster();
  manifest::LoadResult loaded;
  manifest::Loader({}).LoadText(text, "generated.yaml", &loaded);
  if (loaded.error_count() > 0) Fail("generated input does not load: " + loaded.messages[0].ToString());
  std::vector<const api::Object*> objects;
  for (manifest::LoadedObject& o : loaded.objects) {
    api::SetDefaults(o.object, "1970-01-01T00:00:00Z");
    objects.push_back(&o.object);
  }
  api::FeatureGates gates = api::FeatureGates::Defaults();
  if (!gates.Set(api::Gate::kGenericWorkload, true).ok()) Fail("GenericWorkload");
  if (!gates.Set(api::Gate::kDRAConsumableCapacity, true).ok()) Fail("DRAConsumableCapacity");
  sched::Snapshot s = sched::NewSnapshot(objects, gates);
  s.templates.push_back(Template("any-1", "gpu.example.com", 1, ""));
  s.templates.push_back(
      Template("mig-1g", "mig.nvidia.com", 1, "device.attributes[\"gpu.nvidia.com\"].profile == \"1g.5gb\""));
  int64_t t = 0;
  for (int64_t i = 0; i < background; ++i) s.pods.push_back(Pod(fmt::format("bg-{:04d}", i), t++, "any-1", ""));
  for (int64_t i = 0; i < 300; ++i) s.pods.push_back(Pod(fmt::format("bg-mig-{:03d}", i), t++, "mig-1g", ""));
  const int64_t sizes[] = {2, 4, 8, 16, 32, 64};
  const int64_t devices[] = {1, 1, 2, 2, 4, 8};
  const char* kinds[] = {"any", "model", "leader", "mig", "partition", "share"};
  const char* profiles[] = {"1g.5gb", "2g.10gb", "3g.20gb"};
  uint64_t x = seed;
  auto next = [&x] {  // splitmix64: the same numbers on every platform
    x += 0x9E3779B97F4A7C15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  for (int64_t g = 0; g < groups; ++g) {
    Group group{.name = fmt::format("g{:03d}", g),
                .kind = kinds[(g + g / 6) % 6],
                .size = sizes[g % 6],
                .devices = devices[next() % 6]};
    const std::string model = kModels[next() % kModels.size()];
    const std::string by_model = fmt::format("device.attributes[\"gpu.example.com\"].productName == \"{}\"", model);
    std::string member_tmpl = group.name + "-member", leader_tmpl = member_tmpl;
    if (group.kind == "any") {
      s.templates.push_back(Template(member_tmpl, "gpu.example.com", group.devices, ""));
    } else if (group.kind == "model") {
      s.templates.push_back(Template(member_tmpl, "gpu.example.com", group.devices, by_model));
    } else if (group.kind == "leader") {
      leader_tmpl = group.name + "-leader";
      s.templates.push_back(Template(leader_tmpl, "gpu.example.com", group.devices, ""));
      s.templates.push_back(Template(member_tmpl, "gpu.example.com", group.devices, by_model));
    } else if (group.kind == "partition") {
      group.devices = 1;
      s.templates.push_back(PartitionTemplate(member_tmpl));
    } else if (group.kind == "share") {
      group.devices = 1;
      api::ResourceClaimTemplate share = Template(member_tmpl, "share.example.com", 1, "");
      const char* amounts[] = {"10Gi", "20Gi", "40Gi"};
      share.spec.spec.devices.requests[0].exactly->capacity =
          api::CapacityRequirements{.requests = {{"memory", *api::Quantity::Parse(amounts[next() % 3])}}};
      s.templates.push_back(share);
    } else {
      group.devices = 1;
      s.templates.push_back(
          Template(member_tmpl, "mig.nvidia.com", 1,
                   fmt::format("device.attributes[\"gpu.nvidia.com\"].profile == \"{}\"", profiles[next() % 3])));
    }
    api::PodGroup pg;
    pg.metadata.namespace_ = "default";
    pg.metadata.name = group.name;
    pg.spec.scheduling_policy.gang =
        api::GangSchedulingPolicy{.min_count = static_cast<int32_t>(g % 7 == 6 ? group.size / 2 : group.size)};
    s.pod_groups.push_back(pg);
    for (int64_t m = 0; m < group.size; ++m) {
      s.pods.push_back(Pod(fmt::format("{}-{:02d}", group.name, m), t, m == 0 ? leader_tmpl : member_tmpl, group.name));
    }
    ++t;
    out->push_back(group);
  }
  return s;
}

struct Row {
  int64_t groups = 0, placed = 0;
  double total_ms = 0, max_ms = 0;
  uint64_t total_steps = 0, max_steps = 0;
};

int Main(int argc, char** argv) {
  int64_t groups = 60;
  uint64_t seed = 1;
  int64_t background = 1200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--groups") groups = std::atoll(argv[i + 1]);
    if (std::string(argv[i]) == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::string(argv[i]) == "--background") background = std::atoll(argv[i + 1]);
  }
  std::vector<Group> shape;
  const sched::Snapshot base = Build(groups, seed, background, &shape);
  std::unique_ptr<sched::ScorePolicy> policy = Must(sched::NewPolicy("kube"), "policy");
  std::printf(
      "gang_bench: %zu nodes, %zu pods before the groups, %lld groups (seed %llu)\n", base.nodes.size(),
      base.pods.size() -
          [&] {
            size_t n = 0;
            for (const Group& g : shape) n += static_cast<size_t>(g.size);
            return n;
          }(),
      static_cast<long long>(groups), static_cast<unsigned long long>(seed));
  std::printf("%-8s %4s %6s %6s %8s %8s %10s %9s\n", "mode", "size", "groups", "placed", "mean ms", "max ms",
              "mean steps", "max steps");
  for (sched::GangMode mode : {sched::GangMode::kUpstream, sched::GangMode::kSearch}) {
    sched::Snapshot s = base;
    using Clock = std::chrono::steady_clock;
    Clock::time_point last = Clock::now();
    std::map<std::string, double> ms;  // per group
    sched::ScheduleOptions options{.policy = policy.get(), .seed = 1};
    options.gang.mode = mode;
    options.after_pod = [&](size_t pod_idx, const sched::PodOutcome&) {
      const Clock::time_point now = Clock::now();
      const std::string name = s.pods[pod_idx].metadata.name;
      if (name.rfind("bg-", 0) != 0) {
        const std::string group = name.substr(0, name.find('-'));
        if (!ms.count(group)) ms[group] = std::chrono::duration<double, std::milli>(now - last).count();
      }
      last = now;
      return true;
    };
    const Clock::time_point start = Clock::now();
    sched::ScheduleResult r = Must(sched::Schedule(&s, options), "schedule");
    const double total = std::chrono::duration<double>(Clock::now() - start).count();
    std::map<int64_t, Row> rows;
    for (size_t i = 0; i < r.groups.size(); ++i) {
      const sched::GroupOutcome& g = r.groups[i];
      const std::string name = g.group.substr(g.group.find('/') + 1);
      int64_t size = 0;
      for (const Group& sg : shape) {
        if (sg.name == name) size = sg.size;
      }
      Row& row = rows[size];
      ++row.groups;
      row.placed += g.kind == sched::PodOutcome::Kind::kPlaced ? 1 : 0;
      row.total_ms += ms[name];
      row.max_ms = std::max(row.max_ms, ms[name]);
      row.total_steps += g.steps;
      row.max_steps = std::max(row.max_steps, g.steps);
    }
    const char* label = mode == sched::GangMode::kUpstream ? "upstream" : "search";
    if (std::getenv("GANG_BENCH_VERBOSE") != nullptr) {
      for (size_t i = 0; i < r.groups.size(); ++i) {
        std::printf("  %s %s %s: %s\n", label, r.groups[i].group.c_str(),
                    fmt::format("{}x{} {}", shape[i].size, shape[i].devices, shape[i].kind).c_str(),
                    r.groups[i].message.substr(0, 160).c_str());
      }
    }
    int64_t placed = 0, members = 0;
    for (const sched::GroupOutcome& g : r.groups) members += static_cast<int64_t>(g.placed);
    for (const auto& [size, row] : rows) {
      placed += row.placed;
      std::printf("%-8s %4lld %6lld %6lld %8.2f %8.2f %10.0f %9llu\n", label, static_cast<long long>(size),
                  static_cast<long long>(row.groups), static_cast<long long>(row.placed),
                  row.total_ms / static_cast<double>(row.groups), row.max_ms,
                  static_cast<double>(row.total_steps) / static_cast<double>(row.groups),
                  static_cast<unsigned long long>(row.max_steps));
    }
    std::printf("%-8s  all %6zu %6lld   (%lld member pods placed; whole run, background pods included: %.2f s)\n",
                label, r.groups.size(), static_cast<long long>(placed), static_cast<long long>(members), total);
  }
  return 0;
}

}  // namespace
}  // namespace dra::bench

int main(int argc, char** argv) { return dra::bench::Main(argc, argv); }
