// Synthetic clusters and workloads shaped like kube-scheduler's scheduler_perf
// DRA tests, for `dractl gen` and the scheduling benchmarks. The output is
// YAML laid out as `kubectl get -o yaml` prints objects (one document per
// object; built as manifest::Node trees and printed by manifest/emit.h, with
// some strings double-quoted and MIG counters and attributes in flow style),
// so it loads, validates and schedules like a real dump. Deterministic: the
// same shape gives the same bytes.
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
//   GenerateMigCluster  nodes whose GPUs are partitioned when claimed
//                    (DRAPartitionableDevices), as the NVIDIA DRA driver
//                    publishes them on 1.35+ (examples/cluster/
//                    node-a100-40gb-mig.yaml): per GPU a counter set
//                    (memory-slice-0..7, multiprocessors) in the pool's
//                    first slice, and one device per valid placement of each
//                    MIG profile (1g at memory slices 0-6, 2g at 0/2/4, 3g
//                    at 0/4, 4g at 0, 7g at 0) consuming its memory slices
//                    and SMs; attributes profile, computeSlices, parentIndex.
//   GenerateMigPods  pods asking for one MIG device of a profile size, drawn
//                    from a weighted mix with a seed, arriving one interval
//                    apart (creationTimestamp), with deletionTimestamp
//                    lifetimes when asked (for `simulate cluster`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace dra::sched {

struct GpuModel {
  std::string name;        // productName attribute, e.g. "H100-80GB"
  int64_t memory_mib = 0;  // capacity "memory"
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
  std::string selector;        // CEL request selector; empty: none
  bool claim_per_pod = false;  // false: one ResourceClaimTemplate for all pods
  int64_t cpu_milli = 100;
  int64_t memory_mib = 128;
};

struct MigClusterShape {
  int64_t nodes = 8;
  int64_t gpus_per_node = 8;
  std::string model = "A100-40GB";  // or H100-80GB
  std::string node_prefix = "mig-node";
  int64_t node_cpu_milli = 96000;
  int64_t node_memory_mib = 1024 * 1024;
  int64_t node_pods = 110;
};

struct MigPodShape {
  int64_t pods = 1000;
  std::string model = "A100-40GB";  // profile names of this model
  // Compute slices per profile (1, 2, 3, 4, 7) and their weights.
  std::vector<std::pair<int64_t, int64_t>> mix = {{1, 40}, {2, 25}, {3, 20}, {4, 10}, {7, 5}};
  uint64_t seed = 1;
  int64_t interval_seconds = 10;
  int64_t lifetime_seconds = 0;  // mean lifetime (uniform 0.5x-1.5x); 0: pods never end
  std::string namespace_ = "default";
  std::string name_prefix = "mig";
  int64_t cpu_milli = 2000;
  int64_t memory_mib = 8192;
};

// "1:40,2:25,3:20,4:10,7:5" -> MigPodShape::mix.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseMigMix(std::string_view text);
// kInvalidArgument for an unknown model, counts out of range or a mix of
// sizes other than 1, 2, 3, 4, 7.
StatusOr<std::string> GenerateMigCluster(const MigClusterShape& shape);
StatusOr<std::string> GenerateMigPods(const MigPodShape& shape);

// "H100-80GB:80Gi,L4:24Gi" -> models. Memory takes Mi, Gi or Ti suffixes.
StatusOr<std::vector<GpuModel>> ParseModels(std::string_view text);

// kInvalidArgument for out-of-range shapes (counts < 1, too many objects:
// more than 100,000 nodes, 128 devices per node or 1,000,000 pods).
StatusOr<std::string> GenerateCluster(const ClusterShape& shape);
StatusOr<std::string> GeneratePods(const PodShape& shape);

}  // namespace dra::sched
