#include "cli/simulate_print.h"

#include <cstdio>

#include "fmt/format.h"

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

std::string RunCountsJson(const RunCounts& c) {
  return fmt::format(
      "\"started\": {}, \"started_on_arrival\": {}, \"pending_at_end\": {}, \"finished\": {}, \"peak_pending\": {}",
      c.started, c.started_on_arrival, c.pending_at_end, c.finished, c.peak_pending);
}

std::string WaitJson(const RunCounts& c) {
  return fmt::format("\"wait\": {{\"mean\": {:.3f}, \"p50\": {}, \"p95\": {}, \"max\": {}}}", c.wait_mean, c.wait_p50,
                     c.wait_p95, c.wait_max);
}

std::string SeriesCsv(std::string_view first, std::string_view last, std::span<const SeriesRow> rows) {
  std::string s = fmt::format("time,{},cpu_allocation,running,pending,{}\n", first, last);
  for (const SeriesRow& x : rows) {
    s += fmt::format("{},{:.4f},{:.4f},{},{},{:.4f}\n", x.time_csv, x.first, x.cpu_allocation, x.running, x.pending,
                     x.last);
  }
  return s;
}

std::string SeriesJson(std::string_view first, std::string_view last, std::span<const SeriesRow> rows) {
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const SeriesRow& x = rows[i];
    out += fmt::format(
        "{}{{\"time\": {}, \"{}\": {:.4f}, \"cpu_allocation\": {:.4f}, \"running\": {}, \"pending\": {}, "
        "\"{}\": {:.4f}}}",
        i ? ", " : "", x.time_json, first, x.first, x.cpu_allocation, x.running, x.pending, last, x.last);
  }
  return out;
}

}  // namespace dra::cli
