#include "cli/cluster_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/report.h"

namespace dra::cli {
namespace {

constexpr double kWidth = 760, kHeight = 220, kLeft = 50, kTop = 10, kBottom = 30;

struct Series {
  std::string name;
  std::string color;
  std::vector<double> values;  // one per sample
};

// A step plot of `series` over the samples' times, y from 0 to `top`.
std::string Plot(const std::string& id, const std::string& title, const std::string& unit,
                 const std::vector<sched::TimelineSample>& samples, const std::vector<Series>& series, double top,
                 const std::vector<sched::FaultEvent>& faults) {
  const int64_t t0 = samples.front().time, t1 = std::max(samples.back().time, t0 + 1);
  const double plot_w = kWidth - kLeft - 10, plot_h = kHeight - kTop - kBottom;
  const auto x = [&](int64_t t) { return kLeft + plot_w * static_cast<double>(t - t0) / static_cast<double>(t1 - t0); };
  const auto y = [&](double v) { return kTop + plot_h * (1 - (top > 0 ? std::clamp(v / top, 0.0, 1.0) : 0)); };
  std::string out =
      fmt::format("<h2>{}</h2>\n<svg data-plot=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n",
                  sim::HtmlEscape(title), id, kWidth, kHeight, kWidth, kHeight);
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"frame\"/>\n", kLeft, kTop,
                     plot_w, plot_h);
  for (int i = 0; i <= 4; ++i) {
    const double v = top * i / 4;
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"end\">{:g}{}</text>\n", kLeft - 4,
                       y(v) + 4, v, unit);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{}</text>\n", kLeft, kHeight - 8,
                     sched::FormatUtcSeconds(t0));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"end\">{}</text>\n", kWidth - 10, kHeight - 8,
                     sched::FormatUtcSeconds(t1));
  for (const sched::FaultEvent& f : faults) {
    out += fmt::format(
        "<line class=\"{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{:.1f}\"><title>{} {}: {}</title></line>\n",
        f.set ? "fault-set" : "fault-cleared", x(f.time), x(f.time), kTop, kTop + plot_h,
        sched::FormatUtcSeconds(f.time), sim::HtmlEscape(f.target), sim::HtmlEscape(f.taint));
  }
  for (const Series& s : series) {
    out += fmt::format("<polyline data-series=\"{}\" stroke=\"{}\" fill=\"none\" points=\"", s.name, s.color);
    for (size_t i = 0; i < samples.size(); ++i) {
      if (i > 0) out += fmt::format(" {:.1f},{:.1f}", x(samples[i].time), y(s.values[i - 1]));
      out += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x(samples[i].time), y(s.values[i]));
    }
    out += "\"/>\n";
  }
  out += "</svg>\n<p class=\"legend\">";
  for (const Series& s : series) {
    out += fmt::format("<span style=\"color:{}\">&#9632; {}</span> ", s.color, sim::HtmlEscape(s.name));
  }
  return out + "</p>\n";
}

}  // namespace

std::string RenderClusterReport(const sched::TimelineResult& r, const std::vector<sched::FaultEvent>& faults,
                                const std::string& command_line) {
  const sched::TimelineSummary& s = r.summary;
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dractl simulate cluster</title>\n<style>\n"
      "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}.frame{fill:none;stroke:#999}"
      ".axis{font-size:11px;fill:#555}.fault-set{stroke:#d33;stroke-dasharray:4 2}"
      ".fault-cleared{stroke:#3a3;stroke-dasharray:4 2}code{background:#f4f4f4}\n</style></head><body>\n";
  out += "<h1>dractl simulate cluster</h1>\n<p><code>" + sim::HtmlEscape(command_line) + "</code></p>\n";
  out += fmt::format(
      "<p>{} workload pods, {} started, {} pending at the end; {} evictions, {} running again, {} s from eviction to "
      "running again; {:.2f} tainted device-hours; {} fault events.</p>\n",
      s.pods, s.started, s.pending_at_end, s.evictions, s.restarts, s.seconds_lost, s.device_hours_tainted,
      faults.size());
  if (!r.samples.empty()) {
    Series allocated{"allocated", "#1f77b4", {}}, tainted{"tainted", "#d62728", {}};
    Series running{"running", "#2ca02c", {}}, pending{"pending", "#ff7f0e", {}};
    Series for_taints{"pending for taints", "#d62728", {}};
    double most_pods = 1;
    for (const sched::TimelineSample& x : r.samples) {
      allocated.values.push_back(x.device_allocation);
      tainted.values.push_back(x.tainted_devices);
      running.values.push_back(static_cast<double>(x.running));
      pending.values.push_back(static_cast<double>(x.pending));
      for_taints.values.push_back(static_cast<double>(x.pending_for_taints));
      most_pods = std::max(most_pods, static_cast<double>(std::max(x.running, x.pending)));
    }
    out += Plot("devices", "Devices allocated and tainted (% of the devices)", "%", r.samples, {allocated, tainted},
                100, faults);
    out += Plot("pods", "Workload pods running and pending", "", r.samples, {running, pending, for_taints}, most_pods,
                faults);
  }
  out +=
      "<h2>Pods evicted</h2>\n<table id=\"evictions\"><tr><th>pod</th><th>evictions</th><th>seconds lost</th>"
      "<th>first start</th><th>end</th><th>node</th></tr>\n";
  for (const sched::TimelinePod& p : r.pods) {
    if (p.evictions == 0) continue;
    out += fmt::format("<tr data-pod=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       sim::HtmlEscape(p.pod), sim::HtmlEscape(p.pod), p.evictions, p.seconds_lost,
                       p.start ? sched::FormatUtcSeconds(*p.start) : "—",
                       p.end ? sched::FormatUtcSeconds(*p.end) + (p.gone ? " (gone)" : "")
                             : (p.pending_at_end ? "pending" : "running"),
                       sim::HtmlEscape(p.node));
  }
  out +=
      "</table>\n<h2>Faults</h2>\n<table id=\"faults\"><tr><th>time</th><th>event</th><th>devices</th>"
      "<th>taint</th><th>from</th></tr>\n";
  for (const sched::FaultEvent& f : faults) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       sched::FormatUtcSeconds(f.time), f.set ? "set" : "cleared", sim::HtmlEscape(f.target),
                       sim::HtmlEscape(f.taint), sim::HtmlEscape(f.origin));
  }
  return out + "</table>\n</body></html>\n";
}

}  // namespace dra::cli
