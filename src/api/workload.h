// The workload controllers' objects dractl reads so that it can expand them
// into the pods their controllers would create (sched/workloads.h): apps/v1
// Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1 Job.
//
// They are not alternatives of api::Object: no command validates, converts or
// re-prints them, and only `schedule` asks the loader to keep them
// (manifest::LoadOptions::keep_workloads). Only the fields that decide which
// pods exist are modelled; every other spec field is kept verbatim in
// `spec_extra` and the whole `status` in `status_raw` (conventions: api/meta.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/core.h"
#include "api/enum_string.h"
#include "api/meta.h"

namespace dra::api {

enum class WorkloadKind { kDeployment, kReplicaSet, kStatefulSet, kDaemonSet, kJob };
template <>
struct EnumTraits<WorkloadKind> {
  static constexpr std::array<std::string_view, 5> kNames = {"Deployment", "ReplicaSet", "StatefulSet",
                                                             "DaemonSet", "Job"};
};

// "apps/v1" for all kinds but Job ("batch/v1").
inline std::string_view WorkloadApiVersion(WorkloadKind kind) {
  return kind == WorkloadKind::kJob ? "batch/v1" : "apps/v1";
}

// core/v1 PodTemplateSpec.
struct PodTemplateSpec {
  ObjectMeta metadata{};
  PodSpec spec{};

  friend bool operator==(const PodTemplateSpec&, const PodTemplateSpec&) = default;
};

// One workload object. Fields a kind does not have stay unset.
//
//   field        Deployment  ReplicaSet  StatefulSet  DaemonSet  Job
//   replicas         x           x           x
//   parallelism                                                   x
//   completions                                                   x
//   suspend                                                       x
//   completion_mode                                               x  ("Indexed" or "NonIndexed")
struct Workload {
  WorkloadKind kind = WorkloadKind::kDeployment;
  ObjectMeta metadata{};
  std::optional<int32_t> replicas{};     // unset: 1
  std::optional<int32_t> parallelism{};  // unset: 1
  std::optional<int32_t> completions{};  // unset: as many as parallelism
  bool suspend = false;
  std::string completion_mode{};  // empty: NonIndexed
  PodTemplateSpec template_{};
  RawFields spec_extra{};  // selector, strategy, serviceName, ordinals, backoffLimit, ...
  RawJson status_raw{};    // the whole status, verbatim; empty = absent

  friend bool operator==(const Workload&, const Workload&) = default;
};

}  // namespace dra::api
