// The Alibaba openb trace files (testdata/traces/alibaba-openb): the GPU node
// list and the pod lists, read from CSV into plain rows, as the FGD authors'
// input preparation reads them (docs/fgd.md §1).
//
//   node list  sn, cpu_milli, memory_mib, gpu, model
//   pod list   name, cpu_milli, memory_mib, num_gpu, gpu_milli[, gpu_spec, ...]
//              (extra columns such as qos or times are ignored; the multigpu
//              lists have only the first five)
//
// Columns are found by header name, so their order does not matter. Every
// problem is kInvalidArgument with "file:line:column: message" (1-based; the
// column of the offending field).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::sim {

struct OpenbNode {
  std::string name;  // sn
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;   // number of GPUs, each 1000 milli
  std::string model;  // empty for CPU-only nodes
};

struct OpenbPod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t num_gpu = 0;  // 0: CPU-only (no GPU fields at all)
  // Milli-GPU per GPU, clamped to 0..1000 as pod_csv_to_yaml does; 0 when
  // num_gpu is 0.
  int64_t gpu_milli = 0;
  // gpu_spec split on '|', empty parts dropped, re-joined with '|' (order and
  // duplicates kept); "" = any model. Always "" when num_gpu is 0.
  std::string gpu_spec;
  // Seconds from the trace start (columns creation_time, deletion_time; the
  // FGD protocol ignores them, `simulate replay` runs on them). 0 without
  // the column; deletion_time -1 without the column or when empty (never
  // deleted).
  int64_t creation_time = 0;
  int64_t deletion_time = -1;

  // The models gpu_spec allows, in order ("" gives none = any model).
  std::vector<std::string> SpecModels() const;
  bool uses_gpu() const { return num_gpu > 0 && gpu_milli > 0; }
  int64_t total_gpu_milli() const { return uses_gpu() ? num_gpu * gpu_milli : 0; }
};

// Parses a node list. `file` names the source in messages.
StatusOr<std::vector<OpenbNode>> ParseOpenbNodes(std::string_view text, std::string_view file);
// Parses a pod list.
StatusOr<std::vector<OpenbPod>> ParseOpenbPods(std::string_view text, std::string_view file);

// Reads and parses a file (kNotFound if it cannot be read).
StatusOr<std::vector<OpenbNode>> ReadOpenbNodes(const std::string& path);
StatusOr<std::vector<OpenbPod>> ReadOpenbPods(const std::string& path);

// A node list and a pod list, read as above; the first error of either.
struct OpenbTrace {
  std::vector<OpenbNode> nodes;
  std::vector<OpenbPod> pods;
};
StatusOr<OpenbTrace> ReadOpenbTrace(const std::string& nodes_path, const std::string& pods_path);

}  // namespace dra::sim
