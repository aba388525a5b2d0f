#include "kube/metrics.h"

#include <cmath>
#include <utility>

#include "fmt/format.h"

namespace dra::kube {
namespace {

std::string Number(double v) {
  if (std::isinf(v)) return "+Inf";
  return fmt::format("{}", v);
}

std::string Escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

void Header(std::string* out, std::string_view name, std::string_view type, std::string_view help) {
  *out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

Histogram Histogram::Exponential(double start, double factor, int count) {
  std::vector<double> b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return Histogram(std::move(b));
}

void Histogram::Observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::Render(std::string_view name, std::string_view labels, std::string* out) const {
  std::string sep = labels.empty() ? "" : ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    std::string le = i < bounds_.size() ? Number(bounds_[i]) : "+Inf";
    *out += fmt::format("{}_bucket{{{}{}le=\"{}\"}} {}\n", name, labels, sep, le, cumulative);
  }
  std::string braces = labels.empty() ? "" : fmt::format("{{{}}}", labels);
  *out += fmt::format("{}_sum{} {}\n{}_count{} {}\n", name, braces, Number(sum_), name, braces, count_);
}

Metrics::Metrics(std::string profile)
    : profile_(std::move(profile)),
      algorithm_duration_(Histogram::Exponential(0.001, 2, 15)),
      sli_duration_(Histogram::Exponential(0.01, 2, 20)),
      pod_attempts_(Histogram({1, 2, 4, 8, 16})),
      api_latency_(Histogram::Exponential(0.0005, 2, 14)) {}

void Metrics::Attempt(std::string_view result, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++attempts_[std::string(result)];
  auto it = attempt_duration_.find(std::string(result));
  if (it == attempt_duration_.end()) {
    it = attempt_duration_.emplace(std::string(result), Histogram::Exponential(0.001, 2, 15)).first;
  }
  it->second.Observe(seconds);
}

void Metrics::PodScheduled(int attempts, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  pod_attempts_.Observe(attempts);
  sli_duration_.Observe(seconds);
}

void Metrics::Algorithm(double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  algorithm_duration_.Observe(seconds);
}

void Metrics::SetPending(std::string_view queue, int64_t pods) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_[std::string(queue)] = pods;
}

void Metrics::ApiRequest(std::string_view verb, std::string_view resource, long code, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++api_requests_[fmt::format("{}|{}|{}", verb, resource, code)];
  api_latency_.Observe(seconds);
}

void Metrics::Conflict() {
  std::lock_guard<std::mutex> lock(mu_);
  ++conflicts_;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  std::string profile = fmt::format("profile=\"{}\"", Escape(profile_));
  Header(&out, "scheduler_schedule_attempts_total", "counter",
         "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be "
         "scheduled, while 'error' means an internal scheduler problem.");
  for (const char* result : {"scheduled", "unschedulable", "error"}) {
    auto it = attempts_.find(result);
    out += fmt::format("scheduler_schedule_attempts_total{{{},result=\"{}\"}} {}\n", profile, result,
                       it == attempts_.end() ? 0 : it->second);
  }
  Header(&out, "scheduler_scheduling_attempt_duration_seconds", "histogram",
         "[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + binding)");
  for (const auto& [result, h] : attempt_duration_) {
    h.Render("scheduler_scheduling_attempt_duration_seconds", fmt::format("{},result=\"{}\"", profile, result), &out);
  }
  Header(&out, "scheduler_scheduling_algorithm_duration_seconds", "histogram",
         "[BETA] Scheduling algorithm latency in seconds (one dractl planning round)");
  algorithm_duration_.Render("scheduler_scheduling_algorithm_duration_seconds", "", &out);
  Header(&out, "scheduler_pod_scheduling_sli_duration_seconds", "histogram",
         "[BETA] E2e latency for a pod being scheduled, from the time the pod was first seen until bound");
  sli_duration_.Render("scheduler_pod_scheduling_sli_duration_seconds", "", &out);
  Header(&out, "scheduler_pod_scheduling_attempts", "histogram",
         "[STABLE] Number of attempts to successfully schedule a pod.");
  pod_attempts_.Render("scheduler_pod_scheduling_attempts", "", &out);
  Header(&out, "scheduler_pending_pods", "gauge",
         "[STABLE] Number of pending pods, by the queue type. 'unschedulable' means pods that did not fit in the "
         "last round; 'gated' pods waiting for their claims to be created.");
  for (const char* queue : {"active", "unschedulable", "gated"}) {
    auto it = pending_.find(queue);
    out += fmt::format("scheduler_pending_pods{{queue=\"{}\"}} {}\n", queue, it == pending_.end() ? 0 : it->second);
  }
  Header(&out, "dractl_api_requests_total", "counter",
         "API server requests made by dractl, by verb, resource and code");
  for (const auto& [key, n] : api_requests_) {
    size_t a = key.find('|');
    size_t b = key.rfind('|');
    out += fmt::format("dractl_api_requests_total{{verb=\"{}\",resource=\"{}\",code=\"{}\"}} {}\n", key.substr(0, a),
                       Escape(key.substr(a + 1, b - a - 1)), key.substr(b + 1), n);
  }
  Header(&out, "dractl_api_request_duration_seconds", "histogram", "API server request latency seen by dractl");
  api_latency_.Render("dractl_api_request_duration_seconds", "", &out);
  Header(&out, "dractl_api_conflicts_total", "counter", "409 Conflict answers retried (optimistic concurrency)");
  out += fmt::format("dractl_api_conflicts_total {}\n", conflicts_);
  return out;
}

}  // namespace dra::kube
