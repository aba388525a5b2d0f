// Synthetic clusters and workloads shaped like kube-scheduler's scheduler_perf
// DRA tests, for `dractl gen` and the scheduling benchmarks. The output is
// YAML exactly as `kubectl get -o yaml` would print the objects (one document
// per object), so it loads, validates and schedules like a real dump.
// Deterministic: the same shape gives the same bytes.
//
//   GenerateCluster  a DeviceClass, N Nodes and one ResourceSlice per node
//                    with K devices (node-local pool "<node>"), attributes
//                    as a GPU driver publishes them and a `memory` capacity;
//                    node i gets models[i % models.size()].
//   GeneratePods     per pod either a ResourceClaimTemplate reference (one
//                    shared template) or its own ResourceClaim, requesting
//                    `devices_per_pod` devices of the class, with an optional
//                    CEL selector; pods are created one second apart, so the
//                    queue order is the name order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace dra::sched {

struct GpuModel {
  std::string name;          // productName attribute, e.g. "H100-80GB"
  int64_t memory_mib = 0;    // capacity "memory"
};

struct ClusterShape {
  int64_t nodes = 500;
  int64_t devices_per_node = 8;
  std::vector<GpuModel> models = {{"H100-80GB", 81920}};
  std::string driver = "gpu.example.com";
  std::string device_class = "gpu.example.com";  // its selector: device.driver == driver
  std::string node_prefix = "node";
  int64_t node_cpu_milli = 128000;
  int64_t node_memory_mib = 1024 * 1024;
  int64_t node_pods = 110;
};

struct PodShape {
  int64_t pods = 1000;
  std::string namespace_ = "default";
  std::string name_prefix = "pod";
  std::string device_class = "gpu.example.com";
  int64_t devices_per_pod = 1;
  std::string selector;          // CEL request selector; empty: none
  bool claim_per_pod = false;    // false: one ResourceClaimTemplate for all pods
  int64_t cpu_milli = 100;
  int64_t memory_mib = 128;
};

// "H100-80GB:80Gi,L4:24Gi" -> models. Memory takes Mi, Gi or Ti suffixes.
StatusOr<std::vector<GpuModel>> ParseModels(std::string_view text);

// kInvalidArgument for out-of-range shapes (counts < 1, too many objects:
// more than 100,000 nodes, 128 devices per node or 1,000,000 pods).
StatusOr<std::string> GenerateCluster(const ClusterShape& shape);
StatusOr<std::string> GeneratePods(const PodShape& shape);

}  // namespace dra::sched
