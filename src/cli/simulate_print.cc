#include "cli/simulate_print.h"

#include <cstdio>
#include <utility>

#include "fmt/format.h"
#include "manifest/emit.h"

namespace dra::cli {

void PrintRunCounts(const RunCounts& c) {
  std::printf("  started %lld (%lld on arrival), pending at the end %lld, finished %lld, peak pending %lld\n",
              static_cast<long long>(c.started), static_cast<long long>(c.started_on_arrival),
              static_cast<long long>(c.pending_at_end), static_cast<long long>(c.finished),
              static_cast<long long>(c.peak_pending));
  std::printf("  wait from arrival to start (s): mean %.1f, p50 %lld, p95 %lld, max %lld\n", c.wait_mean,
              static_cast<long long>(c.wait_p50), static_cast<long long>(c.wait_p95),
              static_cast<long long>(c.wait_max));
}

void AddRunCounts(const RunCounts& c, manifest::Node* summary) {
  summary->Add("started", Integer(c.started));
  summary->Add("started_on_arrival", Integer(c.started_on_arrival));
  summary->Add("pending_at_end", Integer(c.pending_at_end));
  summary->Add("finished", Integer(c.finished));
  summary->Add("peak_pending", Integer(c.peak_pending));
}

manifest::Node WaitNode(const RunCounts& c) {
  return Object({{"mean", Fixed(c.wait_mean, 3)},
                 {"p50", Integer(c.wait_p50)},
                 {"p95", Integer(c.wait_p95)},
                 {"max", Integer(c.wait_max)}});
}

manifest::Node Fixed(double value, int decimals) {
  return manifest::Node::Number(fmt::format("{:.{}f}", value, decimals), manifest::NodeKind::kFloat);
}

std::string ReportJson(const manifest::Node& report) {
  return manifest::EmitJson(report, 0, {.spaced_separators = true});
}

manifest::Node Object(std::initializer_list<std::pair<std::string_view, manifest::Node>> fields) {
  manifest::Node n = manifest::Node::Mapping();
  for (const auto& [key, value] : fields) n.Add(std::string(key), value);
  return n;
}

std::string SeriesCsv(std::string_view first, std::string_view last, std::span<const SeriesRow> rows) {
  std::string s = fmt::format("time,{},cpu_allocation,running,pending,{}\n", first, last);
  for (const SeriesRow& x : rows) {
    s += fmt::format("{},{:.4f},{:.4f},{},{},{:.4f}\n", x.time_csv, x.first, x.cpu_allocation, x.running, x.pending,
                     x.last);
  }
  return s;
}

manifest::Node SeriesNode(std::string_view first, std::string_view last, std::span<const SeriesRow> rows) {
  manifest::Node series = manifest::Node::Sequence();
  for (const SeriesRow& x : rows) {
    series.Push(Object({{"time", x.time_json},
                        {first, Fixed(x.first, 4)},
                        {"cpu_allocation", Fixed(x.cpu_allocation, 4)},
                        {"running", Integer(x.running)},
                        {"pending", Integer(x.pending)},
                        {last, Fixed(x.last, 4)}}));
  }
  return series;
}

}  // namespace dra::cli
