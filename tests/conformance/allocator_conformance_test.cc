// Runs every allocator scenario of testdata/conformance/allocator (and our own
// in tests/conformance/allocator, if present) through cli::RunScenario with
// the production CEL selector evaluator, and compares with the scenario's
// `expect:` as FORMAT.md §1 says: results within a claim as a multiset,
// quantities by value, shareID "*" matching any non-empty value, empty lists
// dropped; `error` passes on any error; `unsatisfiable` on no allocation and
// no error. The invalid-pool sentinel (src/alloc/README.md §13) is modelled:
// the Allocator reports reason.invalid_pools and the runner prints it as the
// error the vectors expect.
//
// tests/conformance/allocator_known_failures.txt lists scenarios known to
// fail, one a line: `name<TAB>reason`. An unlisted failure fails the test; a
// listed scenario that passes is reported (remove it from the list).
//
// Scenarios come from testdata/conformance/allocator, tests/conformance/allocator
// (our own) and tests/regressions (reproducers of differences from upstream
// found by tools/difftest, expecting upstream's outcome).
//
// A file in tests/conformance/corrections/ with the name of a shared scenario
// replaces it: the shared vector was found to disagree with the reference
// allocator (tools/oracle) and this is the corrected copy.
//
//   allocator conformance: N passed, M known failures, C corrections used
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/cel_selector.h"
#include "api/defaults.h"
#include "cli/allocate.h"
#include "manifest/scenario.h"

namespace dra {
namespace {

namespace fs = std::filesystem;
using cli::ScenarioOutcome;
using manifest::ScenarioExpectation;

std::map<std::string, std::string> ReadKnownFailures() {
  std::map<std::string, std::string> known;
  std::ifstream in(fs::path(DRA_SOURCE_DIR) / "tests/conformance/allocator_known_failures.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t tab = line.find('\t');
    known[line.substr(0, tab)] = tab == std::string::npos ? "" : line.substr(tab + 1);
  }
  return known;
}

api::DeviceRequestAllocationResult Normalise(api::DeviceRequestAllocationResult r) {
  for (auto& t : r.tolerations) api::SetDefaults(t);
  if (r.admin_access == false) r.admin_access.reset();
  return r;
}

bool ResultMatches(const api::DeviceRequestAllocationResult& want, const api::DeviceRequestAllocationResult& got) {
  api::DeviceRequestAllocationResult w = Normalise(want);
  api::DeviceRequestAllocationResult g = Normalise(got);
  if (w.share_id && *w.share_id == "*") {
    if (!g.share_id || g.share_id->empty()) return false;
    w.share_id = g.share_id;
  }
  return w == g;
}

std::string Describe(const api::DeviceRequestAllocationResult& r) {
  std::ostringstream out;
  out << "{" << r.request << " " << r.driver << "/" << r.pool << "/" << r.device;
  if (r.admin_access) out << " admin";
  if (r.share_id) out << " share=" << *r.share_id;
  for (const auto& [k, v] : r.consumed_capacity) out << " " << k << "=" << v.String();
  out << " tolerations=" << r.tolerations.size() << "}";
  return out.str();
}

// Empty string when `got` matches `want`, else what differs.
std::string Compare(const manifest::Scenario& s, const ScenarioOutcome& got) {
  const ScenarioExpectation& want = s.expect;
  auto kind_name = [](int k) { return k == 0 ? "allocations" : k == 1 ? "unsatisfiable" : "error"; };
  int want_kind = static_cast<int>(want.kind);
  int got_kind = static_cast<int>(got.kind);
  if (want_kind != got_kind) {
    std::string detail = got.kind == ScenarioOutcome::Kind::kError           ? got.error
                         : got.kind == ScenarioOutcome::Kind::kUnsatisfiable ? got.reason.ToString()
                                                                             : "";
    return std::string("want ") + kind_name(want_kind) + ", got " + kind_name(got_kind) + ": " + detail;
  }
  if (want.kind != ScenarioExpectation::Kind::kAllocations) return "";
  if (want.allocations.size() != got.allocations.size()) return "different number of allocations";
  for (size_t i = 0; i < want.allocations.size(); ++i) {
    const api::AllocationResult& w = want.allocations[i].result;
    const api::AllocationResult& g = got.allocations[i].second;
    std::string claim = want.allocations[i].claim;
    if (claim != got.allocations[i].first) return "claim order differs at " + claim;
    std::vector<bool> used(g.devices.results.size(), false);
    for (const auto& wr : w.devices.results) {
      bool found = false;
      for (size_t j = 0; j < g.devices.results.size() && !found; ++j) {
        if (!used[j] && ResultMatches(wr, g.devices.results[j])) used[j] = found = true;
      }
      if (!found) {
        std::string all;
        for (const auto& gr : g.devices.results) all += Describe(gr) + " ";
        return claim + ": missing result " + Describe(wr) + "; got " + all;
      }
    }
    if (w.devices.results.size() != g.devices.results.size()) return claim + ": extra results";
    if (w.devices.config != g.devices.config) return claim + ": config differs";
    if (w.node_selector != g.node_selector) return claim + ": nodeSelector differs";
  }
  return "";
}

// The scenario files to run; `corrections` counts the shared scenarios
// replaced by a file of tests/conformance/corrections.
std::vector<fs::path> ScenarioFiles(int& corrections) {
  const fs::path shared = fs::path(DRA_TESTDATA_DIR) / "conformance/allocator";
  const fs::path corrected = fs::path(DRA_SOURCE_DIR) / "tests/conformance/corrections";
  std::vector<fs::path> files;
  corrections = 0;
  for (const fs::path& dir : {shared, fs::path(DRA_SOURCE_DIR) / "tests/conformance/allocator",
                              fs::path(DRA_SOURCE_DIR) / "tests/regressions"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      fs::path correction = corrected / e.path().filename();
      if (dir == shared && fs::is_regular_file(correction)) {
        files.push_back(correction);
        ++corrections;
      } else {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every scenario; with `prepared_calls` > 0 through alloc::PreparedClaims,
// the outcome of the last of that many calls (cli::RunScenario).
void RunEveryScenario(int prepared_calls) {
  std::map<std::string, std::string> known = ReadKnownFailures();
  int corrections = 0;
  std::vector<fs::path> files = ScenarioFiles(corrections);
  ASSERT_FALSE(files.empty()) << "no scenarios under " << DRA_TESTDATA_DIR;
  int passed = 0, known_failed = 0;
  for (const fs::path& file : files) {
    StatusOr<manifest::Scenario> scenario = manifest::LoadScenarioFile(file.string());
    ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
    alloc::AllocatorOptions options;
    int next_share = 0;
    options.new_share_id = [&next_share] {
      char buf[40];
      std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012d", next_share++);
      return std::string(buf);
    };
    ScenarioOutcome outcome = cli::RunScenario(*scenario, options, prepared_calls);
    std::string diff = Compare(*scenario, outcome);
    if (diff.empty() && scenario->max_steps && outcome.steps > *scenario->max_steps) {
      diff = "took " + std::to_string(outcome.steps) + " search steps, more than maxSteps " +
             std::to_string(*scenario->max_steps);
    }
    auto it = known.find(scenario->name);
    if (diff.empty()) {
      ++passed;
      if (it != known.end()) std::printf("known failure now passes (remove it): %s\n", scenario->name.c_str());
    } else if (it != known.end()) {
      ++known_failed;
    } else {
      ADD_FAILURE() << scenario->name << " (" << file.filename().string() << "): " << diff;
    }
  }
  std::printf("allocator conformance%s: %d passed, %d known failures, %d corrections used\n",
              prepared_calls > 0 ? " (prepared claims)" : "", passed, known_failed, corrections);
}

TEST(AllocatorConformanceTest, EveryScenario) { RunEveryScenario(0); }

// The same claims prepared once and allocated three times: the second and
// third calls reuse the preparation (alloc::PreparedClaims) and must answer
// as a fresh call does.
TEST(AllocatorConformanceTest, EveryScenarioPreparedClaims) { RunEveryScenario(3); }

}  // namespace
}  // namespace dra
