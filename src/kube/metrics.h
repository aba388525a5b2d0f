// The metrics `dractl serve` exposes on /metrics, in the Prometheus text
// format, under kube-scheduler's names where one applies
// (k8s.io/kubernetes/pkg/scheduler/metrics/metrics.go; the list:
// src/kube/README.md §8; label profile = the scheduler name).
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace dra::kube {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  // Exponential buckets: start, start*factor, ... (count of them).
  static Histogram Exponential(double start, double factor, int count);
  void Observe(double value);
  // `name`_bucket{labels,le=...} ... _sum, _count; `labels` is "a=\"b\"" or "".
  void Render(std::string_view name, std::string_view labels, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative
  double sum_ = 0;
  uint64_t count_ = 0;
};

class Metrics {
 public:
  explicit Metrics(std::string profile);

  // One scheduling attempt of one pod: result scheduled|unschedulable|error.
  void Attempt(std::string_view result, double seconds);
  // A pod bound after `attempts` attempts, `seconds` after it was first seen.
  void PodScheduled(int attempts, double seconds);
  // One planning round (snapshot + sched::Schedule) took `seconds`.
  void Algorithm(double seconds);
  void SetPending(std::string_view queue, int64_t pods);
  // One API request: verb, resource ("resourceclaims/status"), HTTP code.
  void ApiRequest(std::string_view verb, std::string_view resource, long code, double seconds);
  void Conflict();

  std::string Render() const;

 private:
  mutable std::mutex mu_;
  std::string profile_;
  std::map<std::string, uint64_t> attempts_;  // result ->
  std::map<std::string, Histogram> attempt_duration_;
  Histogram algorithm_duration_;
  Histogram sli_duration_;
  Histogram pod_attempts_;
  std::map<std::string, int64_t> pending_;        // queue ->
  std::map<std::string, uint64_t> api_requests_;  // "verb|resource|code" ->
  Histogram api_latency_;
  uint64_t conflicts_ = 0;
};

}  // namespace dra::kube
