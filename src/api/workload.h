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

enum class WorkloadKind { kDeployment, kReplicaSet, kStatefulSet, kDaemonSet, kJob, kCronJob };
template <>
struct EnumTraits<WorkloadKind> {
  static constexpr std::array<std::string_view, 6> kNames = {"Deployment", "ReplicaSet", "StatefulSet",
                                                             "DaemonSet",  "Job",        "CronJob"};
};

// "apps/v1" for all kinds but Job and CronJob ("batch/v1").
inline std::string_view WorkloadApiVersion(WorkloadKind kind) {
  return kind == WorkloadKind::kJob || kind == WorkloadKind::kCronJob ? "batch/v1" : "apps/v1";
}

// Where the pod template sits in the object: "spec.template", or
// "spec.jobTemplate.spec.template" in a CronJob.
inline std::string_view PodTemplatePath(WorkloadKind kind) {
  return kind == WorkloadKind::kCronJob ? "spec.jobTemplate.spec.template" : "spec.template";
}

// core/v1 PodTemplateSpec.
struct PodTemplateSpec {
  ObjectMeta metadata{};
  PodSpec spec{};

  friend bool operator==(const PodTemplateSpec&, const PodTemplateSpec&) = default;
};

// One workload object. Fields a kind does not have stay unset.
//
//   field        Deployment  ReplicaSet  StatefulSet  DaemonSet  Job  CronJob
//   replicas         x           x           x
//   parallelism                                                   x    x (of its jobTemplate)
//   completions                                                   x    x (of its jobTemplate)
//   suspend                                                       x    x (the CronJob's)
//   completion_mode                                               x    x (of its jobTemplate)
//   schedule                                                            x
// A CronJob's template_ is its jobTemplate's pod template; it makes Jobs on
// its schedule, so no pods now (sched/workloads.h).
struct Workload {
  WorkloadKind kind = WorkloadKind::kDeployment;
  ObjectMeta metadata{};
  std::optional<int32_t> replicas{};     // unset: 1
  std::optional<int32_t> parallelism{};  // unset: 1
  std::optional<int32_t> completions{};  // unset: as many as parallelism
  bool suspend = false;
  std::string completion_mode{};  // empty: NonIndexed
  std::string schedule{};         // CronJob: spec.schedule
  PodTemplateSpec template_{};
  RawFields spec_extra{};  // selector, strategy, serviceName, ordinals, backoffLimit, ...
  RawJson status_raw{};    // the whole status, verbatim; empty = absent

  friend bool operator==(const Workload&, const Workload&) = default;
};

}  // namespace dra::api
