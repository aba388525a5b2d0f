// deploy/monitoring: the Grafana dashboard and the Prometheus alert rules use
// only metrics that `dractl serve` exports (issue #27 item 6). The exported
// names are read from Metrics::Render's own `# TYPE` lines; the used ones from
// every PromQL `expr` of the two files, with label matchers, range selectors,
// grouping clauses, strings and numbers taken out and the PromQL functions
// and keywords set aside.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kube/metrics.h"
#include "manifest/json_parser.h"
#include "manifest/yaml_parser.h"

namespace dra::kube {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every string under a key named "expr", anywhere in the tree.
void CollectExprs(const manifest::Node& node, std::vector<std::string>* out) {
  if (node.is_mapping()) {
    for (size_t i = 0; i < node.items.size(); ++i) {
      if (node.keys[i].first == "expr" && node.items[i].kind == manifest::NodeKind::kString) {
        out->push_back(node.items[i].text);
      }
      CollectExprs(node.items[i], out);
    }
  } else if (node.is_sequence()) {
    for (const manifest::Node& item : node.items) CollectExprs(item, out);
  }
}

// The metric names a PromQL expression reads.
std::set<std::string> MetricsUsed(std::string expr) {
  static const std::set<std::string> kPromQL = {
      "sum", "max",       "min",      "avg",      "count", "rate", "irate",  "increase", "histogram_quantile",
      "by",  "without",   "on",       "ignoring", "and",   "or",   "unless", "bool",     "label_values",
      "abs", "clamp_min", "clamp_max"};
  for (const char* pattern : {R"("[^"]*")", R"(\{[^}]*\})", R"(\[[^\]]*\])", R"(\b(by|without)\s*\([^)]*\))"}) {
    expr = std::regex_replace(expr, std::regex(pattern), " ");
  }
  std::set<std::string> used;
  const std::regex ident(R"([A-Za-z_:][A-Za-z0-9_:]*)");
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), ident); it != std::sregex_iterator(); ++it) {
    const std::string word = it->str();
    if (!kPromQL.count(word)) used.insert(word);
  }
  return used;
}

std::set<std::string> Exported() {
  Metrics m("dractl");
  std::set<std::string> names = {"up"};  // Prometheus' own, per scrape target
  std::istringstream lines(m.Render());
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, std::regex(R"(# TYPE (\S+) (\S+))"))) continue;
    names.insert(match[1]);
    if (match[2] == "histogram") {
      for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(match[1].str() + suffix);
    }
  }
  return names;
}

TEST(MonitoringTest, MetricsUsedAreFoundByTheExtraction) {
  EXPECT_EQ(MetricsUsed("histogram_quantile(0.99, sum by (job, le) (rate(a_bucket{job=~\"x\"}[5m]))) > 5"),
            (std::set<std::string>{"a_bucket"}));
  EXPECT_EQ(MetricsUsed("sum(rate(b_sum[1m])) / sum(rate(c_count[1m]))"), (std::set<std::string>{"b_sum", "c_count"}));
  EXPECT_TRUE(Exported().count("scheduler_pending_pods"));
  EXPECT_TRUE(Exported().count("dractl_api_request_duration_seconds_bucket"));
  EXPECT_FALSE(Exported().count("scheduler_pending_pods_bucket"));
}

TEST(MonitoringTest, DashboardAndAlertsUseOnlyExportedMetrics) {
  const std::string dir = std::string(DRA_SOURCE_DIR) + "/deploy/monitoring/";
  std::vector<std::string> exprs;
  StatusOr<std::vector<manifest::Document>> dashboard =
      manifest::ParseJson(Read(dir + "grafana-dashboard.json"), "grafana-dashboard.json");
  ASSERT_TRUE(dashboard.ok()) << dashboard.status().message();
  for (const manifest::Document& d : *dashboard) CollectExprs(d.root, &exprs);
  const size_t dashboard_exprs = exprs.size();
  EXPECT_GE(dashboard_exprs, 10u);
  StatusOr<std::vector<manifest::Document>> alerts = manifest::ParseYaml(Read(dir + "alerts.yaml"), "alerts.yaml");
  ASSERT_TRUE(alerts.ok()) << alerts.status().message();
  for (const manifest::Document& d : *alerts) CollectExprs(d.root, &exprs);
  EXPECT_GE(exprs.size() - dashboard_exprs, 7u);

  const std::set<std::string> exported = Exported();
  std::set<std::string> all_used;
  for (const std::string& e : exprs) {
    for (const std::string& name : MetricsUsed(e)) {
      EXPECT_TRUE(exported.count(name)) << name << " (in: " << e << ") is not a metric dractl exports";
      all_used.insert(name);
    }
  }
  // The issue's four signals are all watched: pending pods, scheduling
  // latency, allocation failures (attempts by result), conflicts.
  for (const char* name : {"scheduler_pending_pods", "scheduler_scheduling_attempt_duration_seconds_bucket",
                           "scheduler_schedule_attempts_total", "dractl_api_conflicts_total"}) {
    EXPECT_TRUE(all_used.count(name)) << name;
  }
}

}  // namespace
}  // namespace dra::kube
