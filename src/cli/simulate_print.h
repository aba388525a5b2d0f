// What `simulate replay` (sim/replay.h) and `simulate cluster`
// (sched/timeline.h) print alike: the pod counts and waits of a run over
// time, and its series as CSV and JSON. Both summaries have the same fields
// for these (pods, started, ..., wait_max); their series differ only in the
// names of three columns and in how time is written.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "manifest/node.h"

namespace dra::cli {

struct RunCounts {
  int64_t pods = 0;
  int64_t started = 0;
  int64_t started_on_arrival = 0;
  int64_t pending_at_end = 0;
  int64_t finished = 0;
  int64_t peak_pending = 0;
  double wait_mean = 0;
  int64_t wait_p50 = 0;
  int64_t wait_p95 = 0;
  int64_t wait_max = 0;
};

// From either summary type.
template <typename Summary>
RunCounts CountsOf(const Summary& s) {
  return RunCounts{.pods = s.pods,
                   .started = s.started,
                   .started_on_arrival = s.started_on_arrival,
                   .pending_at_end = s.pending_at_end,
                   .finished = s.finished,
                   .peak_pending = s.peak_pending,
                   .wait_mean = s.wait_mean,
                   .wait_p50 = s.wait_p50,
                   .wait_p95 = s.wait_p95,
                   .wait_max = s.wait_max};
}

// The two text lines "  started ..." and "  wait from arrival ...".
void PrintRunCounts(const RunCounts& c);
// Adds "started", "started_on_arrival", "pending_at_end", "finished" and
// "peak_pending" to the mapping `summary` (no pods, no wait).
void AddRunCounts(const RunCounts& c, manifest::Node* summary);
// {"mean": 0.000, "p50": N, "p95": N, "max": N}: the wait, in seconds.
manifest::Node WaitNode(const RunCounts& c);

// The JSON reports of the simulate commands are manifest::Node trees printed
// on one line by ReportJson, ", " and ": " between items (their format since
// they were written by hand), ending in a newline. A number keeps the text it
// is built with: `Fixed(0.5, 4)` prints 0.5000.
manifest::Node Fixed(double value, int decimals);
template <std::integral T>
manifest::Node Integer(T value) {
  return manifest::Node::Number(std::to_string(value), manifest::NodeKind::kInt);
}
std::string ReportJson(const manifest::Node& report);
// A mapping of `fields`, in their order.
manifest::Node Object(std::initializer_list<std::pair<std::string_view, manifest::Node>> fields);

// One sample: time (as the caller writes it in CSV and in JSON), two
// percentages, running and pending pods, a third percentage.
struct SeriesRow {
  std::string time_csv;
  manifest::Node time_json;
  double first = 0;
  double cpu_allocation = 0;
  int64_t running = 0;
  int64_t pending = 0;
  double last = 0;
};

// Header "time,FIRST,cpu_allocation,running,pending,LAST", a row a line.
std::string SeriesCsv(std::string_view first, std::string_view last, std::span<const SeriesRow> rows);
// The rows as a sequence of JSON objects, with the same names.
manifest::Node SeriesNode(std::string_view first, std::string_view last, std::span<const SeriesRow> rows);

}  // namespace dra::cli
