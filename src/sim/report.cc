// RenderReport: the page is built as one string, top to bottom. Plots are
// drawn in a fixed frame (kWidth x kHeight user units, drawn 1:1 so that
// 13px text is 13px on screen at 100% zoom): the plot area on the left, the
// legend in the right margin, so that neither labels nor legend can cover a
// line. Coordinates are printed with one decimal, numbers in tables with two,
// through fmt (locale-independent), so the bytes depend only on the input.
#include "sim/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "fmt/format.h"

namespace dra::sim {
namespace {

using ColumnArray = std::array<std::optional<double>, kColumns>;
using PublishedColumn = std::vector<std::optional<double>>;

struct Metric {
  const char* key;         // as in `simulate -o json`
  const char* axis_label;  // y axis label
  const char* file;        // the authors' file it is compared with
  ColumnArray Columns::*ours;
  PublishedColumn PublishedRun::*published;
};
constexpr Metric kAllocation{"allocation", "GPU allocation (% of GPU capacity)", "analysis_allo_discrete.csv",
                             &Columns::allocation, &PublishedRun::allocation};
constexpr Metric kFragAmount{"frag_amount", "fragmentation amount (% of GPU capacity)", "analysis_frag_discrete.csv",
                             &Columns::frag_amount, &PublishedRun::frag_amount};
constexpr Metric kFragRatio{"frag_ratio", "fragmentation ratio (% of idle GPU)", "analysis_frag_ratio_discrete.csv",
                            &Columns::frag_ratio, &PublishedRun::frag_ratio};

struct PlotDef {
  const char* id;
  const char* heading;
  const Metric* metric;
  int x_min;
  int x_max;
  int x_step;
  bool y_from_zero;  // else the y range hugs the data (the zoomed plot)
};
constexpr PlotDef kPlots[] = {
    {"allocation", "GPU allocation vs arrived workload", &kAllocation, 0, 130, 10, true},
    {"allocation-zoom", "GPU allocation, arrived 75–130% (the range of Fig. 9a)", &kAllocation, 75, 130, 5, false},
    {"frag-amount", "Fragmentation amount (frag_amount) vs arrived", &kFragAmount, 0, 130, 10, true},
    {"frag-ratio", "Fragmentation ratio (frag_ratio) vs arrived", &kFragRatio, 0, 130, 10, true},
};

constexpr int kReportAt[] = {100, 130};

// Okabe & Ito's colour-blind-safe palette without its yellow (too pale on
// white), in an order that keeps neighbouring policies apart.
constexpr const char* kPalette[] = {"#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#000000"};
const char* ColourOf(size_t policy_idx) { return kPalette[policy_idx % std::size(kPalette)]; }

// The frame of one plot, in SVG user units (= CSS px); two plots side by side
// fit a 1400 px wide window.
constexpr double kWidth = 650, kHeight = 400;
constexpr double kLeft = 62, kRight = 492, kTop = 30, kBottom = 340;
constexpr double kLegendX = 506;

MeanSd OursAt(const ReportPolicy& policy, const Metric& metric, int col) {
  std::vector<double> values;
  for (const Columns& run : policy.runs) {
    if (const std::optional<double>& v = (run.*metric.ours)[static_cast<size_t>(col)]) values.push_back(*v);
  }
  return Summarize(values);
}

std::optional<MeanSd> PublishedAt(const ReportPolicy& policy, const Metric& metric, int col) {
  std::vector<double> values;
  for (const PublishedRun& run : policy.published) {
    const PublishedColumn& column = run.*metric.published;
    if (static_cast<size_t>(col) < column.size() && column[static_cast<size_t>(col)]) {
      values.push_back(*column[static_cast<size_t>(col)]);
    }
  }
  if (values.empty()) return std::nullopt;
  return Summarize(values);
}

// One policy's values on the columns of one plot.
struct Series {
  std::vector<std::pair<int, MeanSd>> ours;
  std::vector<std::pair<int, double>> published;
};

Series SeriesOf(const ReportPolicy& policy, const PlotDef& plot) {
  Series s;
  for (int col = plot.x_min; col <= plot.x_max; ++col) {
    // A value that is not finite (never from BinRows) would break the scale: left out.
    MeanSd m = OursAt(policy, *plot.metric, col);
    if (m.n > 0 && std::isfinite(m.mean) && std::isfinite(m.sd)) s.ours.emplace_back(col, m);
    std::optional<MeanSd> p = PublishedAt(policy, *plot.metric, col);
    if (p && std::isfinite(p->mean)) s.published.emplace_back(col, p->mean);
  }
  return s;
}

// 1, 2, 2.5 or 5 times a power of ten, near span / target.
double NiceStep(double span, int target) {
  double raw = span / target;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

int DecimalsFor(double step) {
  int decimals = 0;
  while (decimals < 4 &&
         std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-9) {
    ++decimals;
  }
  return decimals;
}

struct Axis {
  double lo = 0, hi = 1, step = 1;
  double pixel_lo = 0, pixel_hi = 1;  // where lo and hi are drawn
  double Map(double v) const { return pixel_lo + (v - lo) / (hi - lo) * (pixel_hi - pixel_lo); }
  std::vector<double> Ticks() const {
    std::vector<double> ticks;
    const long first = std::lround(std::ceil(lo / step - 1e-9)), last = std::lround(std::floor(hi / step + 1e-9));
    for (long i = first; i <= last; ++i) ticks.push_back(static_cast<double>(i) * step);
    return ticks;
  }
};

Axis YAxisFor(const std::vector<Series>& series, bool from_zero) {
  double lo = from_zero ? 0 : INFINITY, hi = from_zero ? 0 : -INFINITY;
  bool any = false;
  for (const Series& s : series) {
    for (const auto& [col, m] : s.ours) {
      lo = std::min(lo, m.mean - m.sd);
      hi = std::max(hi, m.mean + m.sd);
      any = true;
    }
    for (const auto& [col, v] : s.published) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      any = true;
    }
  }
  if (!any) {
    lo = 0;
    hi = 100;
  }
  // Every metric is a percentage: a band of ±1 sd does not stretch the axis
  // past 0 or 100.
  lo = std::max(lo, 0.0);
  hi = std::min(hi, 100.0);
  if (hi - lo < 1e-6) {
    lo -= 1;
    hi += 1;
  }
  Axis a;
  a.step = NiceStep(hi - lo, 6);
  a.lo = std::floor(lo / a.step + 1e-9) * a.step;
  a.hi = std::ceil(hi / a.step - 1e-9) * a.step;
  if (a.hi - a.lo < a.step) a.hi = a.lo + a.step;
  if (a.lo < 0) a.lo = 0;
  if (a.hi > 100) a.hi = 100;
  a.pixel_lo = kBottom;
  a.pixel_hi = kTop;
  return a;
}

std::string Num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string Coord(double v) { return fmt::format("{:.1f}", v); }

std::string PointsOf(const std::vector<std::pair<double, double>>& xy) {
  std::string s;
  for (size_t i = 0; i < xy.size(); ++i) s += (i ? " " : "") + Coord(xy[i].first) + "," + Coord(xy[i].second);
  return s;
}

std::string RenderPlot(const ReportInput& input, const PlotDef& plot) {
  std::vector<Series> series;
  for (const ReportPolicy& p : input.policies) series.push_back(SeriesOf(p, plot));
  Axis x{.lo = static_cast<double>(plot.x_min),
         .hi = static_cast<double>(plot.x_max),
         .step = static_cast<double>(plot.x_step),
         .pixel_lo = kLeft,
         .pixel_hi = kRight};
  Axis y = YAxisFor(series, plot.y_from_zero);
  const int y_decimals = DecimalsFor(y.step);

  std::string s = fmt::format(
      "<svg data-plot=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      plot.id, kWidth, kHeight, kWidth, kHeight, HtmlEscape(plot.heading));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", kWidth, kHeight);

  // Gridlines and tick labels.
  s += "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  for (double t : x.Ticks()) {
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", Coord(x.Map(t)), Coord(kTop),
                     Coord(kBottom));
  }
  for (double t : y.Ticks()) {
    s += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>\n", Coord(y.Map(t)), Coord(kLeft),
                     Coord(kRight));
  }
  s += "</g>\n<g class=\"ticks\" font-size=\"13\" fill=\"#333333\">\n";
  for (double t : x.Ticks()) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Coord(x.Map(t)), Coord(kBottom + 19),
                     Num(t, 0));
  }
  for (double t : y.Ticks()) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Coord(kLeft - 8), Coord(y.Map(t) + 4.5),
                     Num(t, y_decimals));
  }
  s += "</g>\n";
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\" fill=\"#222222\">"
      "arrived workload (% of GPU capacity)</text>\n",
      Coord((kLeft + kRight) / 2), Coord(kBottom + 42));
  s += fmt::format(
      "<text transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\" font-size=\"14\" "
      "fill=\"#222222\">{}</text>\n",
      Coord((kTop + kBottom) / 2), HtmlEscape(plot.metric->axis_label));

  // x = 100: where the trace's own workload has fully arrived.
  if (plot.x_min <= 100 && 100 <= plot.x_max) {
    s += fmt::format(
        "<line class=\"x100\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555555\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>\n",
        Coord(x.Map(100)), Coord(kTop - 6), Coord(kBottom));
    s += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#333333\">"
        "100% arrived</text>\n",
        Coord(x.Map(100)), Coord(kTop - 11));
  }

  // Bands under the lines, published under ours.
  bool any_band = false;
  for (size_t pi = 0; pi < series.size(); ++pi) {
    const Series& ser = series[pi];
    if (input.policies[pi].runs.size() < 2 || ser.ours.empty()) continue;
    any_band = true;
    std::vector<std::pair<double, double>> band;
    // Clipped to the axis (a percentage stays within 0..100).
    auto clip = [&y](double v) { return std::clamp(v, y.lo, y.hi); };
    for (const auto& [col, m] : ser.ours) band.emplace_back(x.Map(col), y.Map(clip(m.mean + m.sd)));
    for (auto it = ser.ours.rbegin(); it != ser.ours.rend(); ++it) {
      band.emplace_back(x.Map(it->first), y.Map(clip(it->second.mean - it->second.sd)));
    }
    s += fmt::format(
        "<polygon class=\"band\" data-policy=\"{}\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\" "
        "points=\"{}\"/>\n",
        HtmlEscape(input.policies[pi].name), ColourOf(pi), PointsOf(band));
  }
  for (size_t pi = 0; pi < series.size(); ++pi) {
    if (series[pi].published.empty()) continue;
    std::vector<std::pair<double, double>> line;
    for (const auto& [col, v] : series[pi].published) line.emplace_back(x.Map(col), y.Map(v));
    s += fmt::format(
        "<polyline class=\"published\" data-policy=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"6 4\" points=\"{}\"/>\n",
        HtmlEscape(input.policies[pi].name), ColourOf(pi), PointsOf(line));
  }
  for (size_t pi = 0; pi < series.size(); ++pi) {
    std::vector<std::pair<double, double>> line;
    for (const auto& [col, m] : series[pi].ours) line.emplace_back(x.Map(col), y.Map(m.mean));
    s += fmt::format(
        "<polyline class=\"ours\" data-policy=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.2\" "
        "stroke-linejoin=\"round\" points=\"{}\"/>\n",
        HtmlEscape(input.policies[pi].name), ColourOf(pi), PointsOf(line));
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
                   Coord(kLeft), Coord(kTop), Coord(kRight - kLeft), Coord(kBottom - kTop));

  // Legend in the right margin: the policies, then what the line styles mean.
  bool any_published = false;
  for (const Series& ser : series) any_published = any_published || !ser.published.empty();
  s += "<g class=\"legend\" font-size=\"13\" fill=\"#222222\">\n";
  double ly = kTop + 10;
  for (size_t pi = 0; pi < series.size(); ++pi, ly += 22) {
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>\n",
                     Coord(kLegendX), Coord(ly), Coord(kLegendX + 24), Coord(ly), ColourOf(pi));
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", Coord(kLegendX + 31), Coord(ly + 4.5),
                     HtmlEscape(input.policies[pi].name));
  }
  ly += 14;
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444444\" stroke-width=\"2.2\"/>\n",
                   Coord(kLegendX), Coord(ly), Coord(kLegendX + 24), Coord(ly));
  s += fmt::format("<text x=\"{}\" y=\"{}\">ours: mean</text>\n", Coord(kLegendX + 31), Coord(ly + 4.5));
  if (any_band) {
    ly += 22;
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"12\" fill=\"#444444\" fill-opacity=\"0.18\"/>\n",
                     Coord(kLegendX), Coord(ly - 6));
    s += fmt::format("<text x=\"{}\" y=\"{}\">ours: ±1 sd</text>\n", Coord(kLegendX + 31), Coord(ly + 4.5));
  }
  if (any_published) {
    ly += 22;
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444444\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"6 4\"/>\n",
        Coord(kLegendX), Coord(ly), Coord(kLegendX + 24), Coord(ly));
    s += fmt::format("<text x=\"{}\" y=\"{}\">published mean</text>\n", Coord(kLegendX + 31), Coord(ly + 4.5));
  }
  s += "</g>\n</svg>\n";
  return s;
}

// "42-51, 60" for 42..51 and 60.
std::string SeedList(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (size_t i = 0; i < seeds.size();) {
    size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + (j > i ? fmt::format("{}-{}", seeds[i], seeds[j]) : fmt::format("{}", seeds[i]));
    i = j + 1;
  }
  return s;
}

constexpr const char* kDash = "—";

// "+1.23" / "-1.23", and "+0.00" for what rounds to zero from below.
std::string Diff(double d) {
  const std::string s = fmt::format("{:+.2f}", d);
  return s == "-0.00" ? "+0.00" : s;
}

// One run has no spread: its value alone.
std::string MeanSdText(const MeanSd& m) {
  if (m.n == 0) return kDash;
  return m.n == 1 ? fmt::format("{:.2f}", m.mean) : fmt::format("{:.2f} ± {:.2f}", m.mean, m.sd);
}

// For operators: the best policy at 130% arrived against each other one and
// against the best published mean, in points and in GPUs of this cluster.
std::string Headline(const ReportInput& input) {
  if (input.gpus <= 0 || input.policies.empty()) return "";
  constexpr int kAt = 130;
  std::vector<std::pair<std::string, double>> ours;  // policy -> mean allocation at 130%
  double best_published = -1;
  std::string best_published_policy;
  for (const ReportPolicy& p : input.policies) {
    const MeanSd m = OursAt(p, kAllocation, kAt);
    if (m.n > 0) ours.emplace_back(p.name, m.mean);
    if (std::optional<MeanSd> pub = PublishedAt(p, kAllocation, kAt); pub && pub->mean > best_published) {
      best_published = pub->mean;
      best_published_policy = p.name;
    }
  }
  if (ours.empty()) return "";
  std::stable_sort(ours.begin(), ours.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const auto& [best, best_value] = ours.front();
  auto gpus = [&](double points) {
    return static_cast<int64_t>(std::llround(points * static_cast<double>(input.gpus) / 100));
  };
  std::string s = fmt::format(
      "<p class=\"headline\"><b>{}</b> keeps {:.2f}% of the {} GPUs allocated when the workload offered is 130% of "
      "them (about {} GPUs busy)",
      HtmlEscape(best), best_value, input.gpus, gpus(best_value));
  std::vector<std::string> versus;
  for (size_t i = 1; i < ours.size(); ++i) {
    const double d = best_value - ours[i].second;
    versus.push_back(fmt::format("{:+.2f} points = about {} more GPUs than {}", d, gpus(d), HtmlEscape(ours[i].first)));
  }
  if (best_published >= 0) {
    const double d = best_value - best_published;
    versus.push_back(fmt::format("{:+.2f} points = about {} {} GPUs than the best published result ({})", d,
                                 gpus(std::abs(d)), d >= 0 ? "more" : "fewer", HtmlEscape(best_published_policy)));
  }
  for (const std::string& v : versus) s += "; " + v;
  return s + ".</p>\n";
}

std::string Swatch(size_t policy_idx) {
  return fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>", ColourOf(policy_idx));
}

std::string AllocationTable(const ReportInput& input) {
  std::string s =
      "<table id=\"allocation-table\">\n<thead>\n<tr><th rowspan=\"2\">policy</th><th rowspan=\"2\">tolerance</th>";
  for (int col : kReportAt) s += fmt::format("<th colspan=\"4\">arrived {}%</th>", col);
  s += "</tr>\n<tr>";
  for (size_t i = 0; i < std::size(kReportAt); ++i) {
    s += "<th>ours</th><th>published</th><th>diff</th><th>within</th>";
  }
  s += "</tr>\n</thead>\n<tbody>\n";
  for (size_t pi = 0; pi < input.policies.size(); ++pi) {
    const ReportPolicy& p = input.policies[pi];
    const std::string name = HtmlEscape(p.name);
    s += fmt::format("<tr data-policy=\"{}\"><td class=\"policy\">{}{}</td><td>{}</td>", name, Swatch(pi), name,
                     p.tolerance ? fmt::format("±{:.1f}", *p.tolerance) : kDash);
    for (int col : kReportAt) {
      MeanSd ours = OursAt(p, kAllocation, col);
      std::optional<MeanSd> pub = PublishedAt(p, kAllocation, col);
      s += fmt::format("<td>{}</td><td>{}</td>", MeanSdText(ours), pub ? MeanSdText(*pub) : kDash);
      if (ours.n > 0 && pub && p.tolerance) {
        double diff = ours.mean - pub->mean;
        bool within = std::abs(diff) <= *p.tolerance + 1e-9;
        s += fmt::format("<td>{}</td><td class=\"{}\">{}</td>", Diff(diff), within ? "yes" : "no",
                         within ? "yes" : "no");
      } else {
        s += fmt::format("<td>{}</td><td>{}</td>", kDash, kDash);
      }
    }
    s += "</tr>\n";
  }
  s += "</tbody>\n</table>\n";
  return s;
}

std::string FragmentationTable(const ReportInput& input) {
  std::string s =
      "<table id=\"fragmentation-table\">\n<thead>\n<tr><th rowspan=\"2\">policy</th>"
      "<th rowspan=\"2\">metric</th>";
  for (int col : kReportAt) s += fmt::format("<th colspan=\"3\">arrived {}%</th>", col);
  s += "</tr>\n<tr>";
  for (size_t i = 0; i < std::size(kReportAt); ++i) {
    s += "<th>ours</th><th>published</th><th>diff</th>";
  }
  s += "</tr>\n</thead>\n<tbody>\n";
  for (size_t pi = 0; pi < input.policies.size(); ++pi) {
    const ReportPolicy& p = input.policies[pi];
    const std::string name = HtmlEscape(p.name);
    for (const Metric* m : {&kFragAmount, &kFragRatio}) {
      s += fmt::format(
          "<tr data-policy=\"{}\" data-metric=\"{}\"><td class=\"policy\">{}{}</td><td class=\"policy\">"
          "{}</td>",
          name, m->key, Swatch(pi), name, m->key);
      for (int col : kReportAt) {
        MeanSd ours = OursAt(p, *m, col);
        std::optional<MeanSd> pub = PublishedAt(p, *m, col);
        s += fmt::format("<td>{}</td><td>{}</td><td>{}</td>", MeanSdText(ours), pub ? MeanSdText(*pub) : kDash,
                         ours.n > 0 && pub ? Diff(ours.mean - pub->mean) : kDash);
      }
      s += "</tr>\n";
    }
  }
  s += "</tbody>\n</table>\n";
  return s;
}

constexpr const char* kStyle = R"(body {
  font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
  color: #222222; margin: 20px; max-width: 1330px;
}
h1 { font-size: 24px; margin: 0 0 8px 0; }
h2 { font-size: 18px; margin: 26px 0 6px 0; }
figure h2 { font-size: 16px; margin: 14px 0 4px 0; }
p { font-size: 14px; line-height: 1.45; max-width: 1100px; }
code {
  font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px;
  background: #f3f3f3; padding: 1px 4px; overflow-wrap: anywhere;
}
.plots { display: flex; flex-wrap: wrap; gap: 0 24px; }
figure { margin: 0 0 12px 0; width: 650px; max-width: 100%; }
figcaption { font-size: 13px; color: #444444; }
svg { display: block; max-width: 100%; height: auto; font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin-top: 6px; }
th, td { border: 1px solid #c8c8c8; padding: 4px 8px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; text-align: center; }
td.policy { text-align: left; }
td.yes { background: #e3f1fb; text-align: center; }
td.no { background: #fbe5d6; font-weight: bold; text-align: center; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }
)";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderReport(const ReportInput& input) {
  const std::string trace = HtmlEscape(input.trace);
  bool any_published = false;
  for (const ReportPolicy& p : input.policies) any_published = any_published || !p.published.empty();

  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += fmt::format("<title>dractl simulate openb: {}</title>\n<style>\n{}</style>\n</head>\n<body>\n", trace, kStyle);
  s += fmt::format("<h1>FGD reproduction on the openb trace “{}”</h1>\n", trace);
  s += fmt::format("<p>Seeds {} ({} run{} per policy). Command: <code>{}</code></p>\n",
                   HtmlEscape(SeedList(input.seeds)), input.seeds.size(), input.seeds.size() == 1 ? "" : "s",
                   HtmlEscape(input.command_line));
  s += Headline(input);
  s += "<p>How to read this page. The simulator offers the cluster a workload of GPU pods one at a time, as the FGD "
       "paper (Weng et al., USENIX ATC'23) does; <b>arrived</b> is how much GPU the pods offered so far ask for, in % "
       "of the cluster's GPUs (past 100% more is asked than exists). <b>GPU allocation</b> is the share of the GPUs "
       "given to pods; what stays unallocated is idle. <b>Fragmentation</b> is the part of the idle GPU capacity that "
       "the typical pods of the workload cannot use (a sliver of GPU too small for any of them, or GPUs on a node "
       "without the CPU to feed them): frag_amount in % of all GPUs, frag_ratio in % of the idle GPUs. Columns "
       "0..130 as in the paper's analysis: every pod attempt is binned by the workload arrived so far. Solid lines: "
       "our mean over seeds";
  s += input.seeds.size() > 1 ? ", with a band of ±1 sample standard deviation." : " (one seed: no spread).";
  s += any_published ? " Dashed lines: the mean of the authors' published runs.</p>\n"
                     : " No published numbers were given (--expected).</p>\n";

  s += "<div class=\"plots\">\n";
  for (const PlotDef& plot : kPlots) {
    s += fmt::format("<figure>\n<h2>{}</h2>\n", HtmlEscape(plot.heading));
    s += RenderPlot(input, plot);
    s += fmt::format("<figcaption>y: <code>{}</code> of <code>dractl simulate</code>, {}.{}</figcaption>\n</figure>\n",
                     plot.metric->key, HtmlEscape(plot.metric->axis_label),
                     any_published ? fmt::format(" Published: expected/{}.", plot.metric->file) : "");
  }
  s += "</div>\n";

  s += "<h2>GPU allocation at 100% and 130% arrived</h2>\n";
  s += "<p>GPU allocation in % of GPU capacity. Ours: mean ± sample sd over our seeds; published: mean ± sample sd "
       "over the authors' runs; diff: ours − published, in percentage points; within: |diff| ≤ the policy's "
       "tolerance (as scripts/reproduce-fgd judges).</p>\n";
  s += AllocationTable(input);
  s += "<h2>Fragmentation at 100% and 130% arrived</h2>\n";
  s += "<p>frag_amount: fragmentation amount, % of GPU capacity; frag_ratio: fragmentation ratio, % of idle GPU. "
       "Mean ± sample sd as above.</p>\n";
  s += FragmentationTable(input);
  if (!input.generated.empty()) s += fmt::format("<p><small>Made by {}.</small></p>\n", HtmlEscape(input.generated));
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace dra::sim
