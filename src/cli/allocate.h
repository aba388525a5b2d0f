// Running one allocator conformance scenario (testdata/conformance/FORMAT.md §1)
// and printing its outcome (§3). Used by `dractl allocate --scenario` and by
// tests/conformance/allocator_conformance_test.cc.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/selector.h"
#include "api/resource.h"
#include "manifest/scenario.h"

namespace dra::cli {

struct ScenarioOutcome {
  enum class Kind { kAllocations, kUnsatisfiable, kError };
  Kind kind = Kind::kError;
  std::vector<std::pair<std::string, api::AllocationResult>> allocations;  // claim "ns/name", result
  std::string error;                                                       // kError
  alloc::Reason reason;                                                    // kUnsatisfiable
  uint64_t steps = 0;
};

// Builds the allocator inputs from `scenario` (features, classes, slices,
// allocated state from allocated claims, allocatedDevices and
// allocatedShares; claims defaulted) and allocates the `allocate` claims on
// the scenario's node. The invalid-pool outcome (reason.invalid_pools) is
// reported as an error, as upstream's sentinel error and the vectors have it.
// `prepared_calls` > 0: the claims go through one alloc::PreparedClaims,
// allocated that many times on the node into one NodeFit (AllocateInto; the
// first of several calls a kSummary one); the outcome is the last call's
// (tests: a call reusing the preparation and the NodeFit must answer as a
// fresh one).
ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::SelectorEvaluator& selectors,
                            alloc::AllocatorOptions options = {}, int prepared_calls = 0);
// The same with the production CEL evaluator for the scenario's features.
ScenarioOutcome RunScenario(const manifest::Scenario& scenario, alloc::AllocatorOptions options = {},
                            int prepared_calls = 0);

// The outcome as YAML of the shape of a scenario's `expect:` block.
std::string OutcomeYaml(const ScenarioOutcome& outcome);

}  // namespace dra::cli
