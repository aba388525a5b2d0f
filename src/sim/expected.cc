// Reader for the authors' merged result CSVs: key columns workload,
// sc_policy, tune, seed (and total_gpus in the allocation file), then "0".."130".
#include "sim/expected.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace dra::sim {
namespace {

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, ',')) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

enum class Metric { kAllocation, kFragAmount, kFragRatio };

Status ReadOne(const std::string& path, Metric metric, Published* out) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::kNotFound, fmt::format("{}: cannot open file", path));
  std::string line;
  if (!std::getline(in, line)) return Status(StatusCode::kInvalidArgument, fmt::format("{}:1:1: empty file", path));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> header = Split(line);
  int workload = -1, policy = -1, seed = -1, first = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "workload") workload = static_cast<int>(i);
    if (header[i] == "sc_policy") policy = static_cast<int>(i);
    if (header[i] == "seed") seed = static_cast<int>(i);
    if (header[i] == "0" && first < 0) first = static_cast<int>(i);
  }
  if (workload < 0 || policy < 0 || seed < 0 || first < 0) {
    return Status(StatusCode::kInvalidArgument, fmt::format("{}:1:1: missing key columns", path));
  }
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f = Split(line);
    if (f.size() < header.size()) {
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("{}:{}:1: {} fields, header has {}", path, line_no, f.size(), header.size()));
    }
    std::string trace = f[static_cast<size_t>(workload)];
    const std::string prefix = "openb_pod_list_";
    if (trace.starts_with(prefix)) trace = trace.substr(prefix.size());
    std::vector<PublishedRun>& runs = out->runs[trace + "/" + f[static_cast<size_t>(policy)]];
    int64_t s = std::atoll(f[static_cast<size_t>(seed)].c_str());
    PublishedRun* run = nullptr;
    for (PublishedRun& r : runs) {
      if (r.seed == s) run = &r;
    }
    if (run == nullptr) {
      runs.push_back(PublishedRun{.seed = s, .allocation = {}, .frag_amount = {}, .frag_ratio = {}});
      run = &runs.back();
    }
    std::vector<std::optional<double>>& dst = metric == Metric::kAllocation   ? run->allocation
                                              : metric == Metric::kFragAmount ? run->frag_amount
                                                                              : run->frag_ratio;
    dst.clear();
    for (size_t i = static_cast<size_t>(first); i < header.size(); ++i) {
      const std::string& v = f[i];
      if (v.empty() || v == "nan" || v == "NaN") {
        dst.emplace_back();
        continue;
      }
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end != v.c_str() + v.size()) {
        return Status(StatusCode::kInvalidArgument,
                      fmt::format("{}:{}: column {}: \"{}\" is not a number", path, line_no, header[i], v));
      }
      dst.emplace_back(d);
    }
  }
  return Status::OK();
}

}  // namespace

const std::vector<PublishedRun>* Published::Find(const std::string& trace, const std::string& paper_policy) const {
  auto it = runs.find(trace + "/" + paper_policy);
  return it == runs.end() ? nullptr : &it->second;
}

StatusOr<Published> ReadPublished(const std::string& dir) {
  Published p;
  DRA_RETURN_IF_ERROR(ReadOne(dir + "/analysis_allo_discrete.csv", Metric::kAllocation, &p));
  DRA_RETURN_IF_ERROR(ReadOne(dir + "/analysis_frag_discrete.csv", Metric::kFragAmount, &p));
  DRA_RETURN_IF_ERROR(ReadOne(dir + "/analysis_frag_ratio_discrete.csv", Metric::kFragRatio, &p));
  return p;
}

MeanSd Summarize(const std::vector<double>& values) {
  MeanSd m;
  m.n = static_cast<int64_t>(values.size());
  if (values.empty()) return m;
  double sum = 0;
  for (double v : values) sum += v;
  m.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double ss = 0;
    for (double v : values) ss += (v - m.mean) * (v - m.mean);
    m.sd = std::sqrt(ss / static_cast<double>(values.size() - 1));
  }
  return m;
}

}  // namespace dra::sim
