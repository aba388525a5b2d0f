// Allocator conformance scenarios (testdata/conformance/FORMAT.md §1): one call
// of the allocator for one node, with the objects it sees, the devices and
// capacity already in use, the claims to allocate and the expected outcome.
//
// The objects are decoded by the same decoder as user manifests; `node` and
// the expected AllocationResults are decoded through the Node and
// ResourceClaim-status decoders, so every field is checked the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/object.h"
#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

// driver/pool/device.
struct ScenarioDeviceId {
  std::string driver;
  std::string pool;
  std::string device;
  friend bool operator==(const ScenarioDeviceId&, const ScenarioDeviceId&) = default;
};

// Consumable capacity already used on a device by a claim not in the scenario.
struct ScenarioShare {
  ScenarioDeviceId device;
  std::string share_id;
  api::FlatMap<quantity::Quantity> consumed_capacity;
};

struct ExpectedAllocation {
  std::string claim;  // "namespace/name"
  api::AllocationResult result;
};

struct ScenarioExpectation {
  enum class Kind { kAllocations, kUnsatisfiable, kError };
  Kind kind = Kind::kAllocations;
  std::vector<ExpectedAllocation> allocations;  // kAllocations, one per `allocate` entry
  std::string error;                            // kError: what is wrong (descriptive)
  std::string upstream_error;                   // informative only
};

struct Scenario {
  std::string name;
  std::string source;
  std::vector<std::string> features;  // gates that are ON; all others off
  api::Node node;                     // name and labels
  std::vector<api::Object> objects;
  std::vector<ScenarioDeviceId> allocated_devices;
  std::vector<ScenarioShare> allocated_shares;
  std::vector<std::string> allocate;  // "namespace/name", in order
  ScenarioExpectation expect;
  // dractl extension (not in FORMAT.md, used by tests/conformance/allocator):
  // the allocator must decide within this many search steps.
  std::optional<uint64_t> max_steps;
};

// Parses "driver/pool/device" (pool names may contain '/': the first segment
// is the driver, the last the device). kInvalidArgument if malformed.
StatusOr<ScenarioDeviceId> ParseScenarioDeviceId(std::string_view text);

// Reads one scenario from `text` (YAML). Errors name file:line:col.
StatusOr<Scenario> ParseScenario(std::string_view text, const std::string& file);

// Reads the scenario file at `path`.
StatusOr<Scenario> LoadScenarioFile(const std::string& path);

}  // namespace dra::manifest
