// The authors' published results (testdata/traces/alibaba-openb/expected): per
// run (trace, policy, seed) the columns 0..130 of allocation, fragmentation
// amount and fragmentation ratio (docs/fgd.md §6.3).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace dra::sim {

struct PublishedRun {
  int64_t seed = 0;
  std::vector<std::optional<double>> allocation;  // index = column
  std::vector<std::optional<double>> frag_amount;
  std::vector<std::optional<double>> frag_ratio;
};

struct Published {
  // Key: trace ("default") + '/' + paper policy name ("06-FGD").
  std::map<std::string, std::vector<PublishedRun>> runs;

  // The runs of one trace and policy, or nullptr.
  const std::vector<PublishedRun>* Find(const std::string& trace, const std::string& paper_policy) const;
};

// Reads analysis_{allo,frag,frag_ratio}_discrete.csv from `dir`.
// kNotFound if a file is missing; kInvalidArgument with file:line:column for
// malformed rows.
StatusOr<Published> ReadPublished(const std::string& dir);

struct MeanSd {
  double mean = 0;
  double sd = 0;  // sample standard deviation (n - 1); 0 for one value
  int64_t n = 0;
};
MeanSd Summarize(const std::vector<double>& values);

}  // namespace dra::sim
