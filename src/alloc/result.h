// Building a claim's AllocationResult once the search found devices
// (src/alloc/README.md §11): the node selector and the configuration list.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "base/status.h"

namespace dra::alloc {

struct TakenDevice {
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
};

// The node selector for devices taken in this order on node `node_name`
// (§11.3): a nodeName (or bindsToNode) device pins the node outright; single-
// term selectors are merged; allNodes adds nothing. nullopt = usable anywhere.
// kInvalidArgument for a selector with more than one term.
StatusOr<std::optional<api::NodeSelector>> BuildNodeSelector(std::span<const TakenDevice> devices,
                                                             std::string_view node_name, std::string_view claim_name);
// BuildNodeSelector's error, without building the selector.
Status CheckNodeSelector(std::span<const TakenDevice> devices, std::string_view claim_name);

// One request of the claim as allocated: its name, the selected subrequest
// ("" for a plain request) and the class used.
struct AllocatedRequest {
  std::string_view request;
  std::string_view subrequest;
  const api::DeviceClass* device_class = nullptr;
};

// devices.config for the claim (§11.2, as 1.37): class configs first (one
// entry per class config, naming every request using the class), then the
// claim configs that match an allocated request; entries covering every
// request get `requests` cleared.
std::vector<api::DeviceAllocationConfiguration> BuildConfig(const api::ResourceClaim& claim,
                                                            std::span<const AllocatedRequest> requests);

}  // namespace dra::alloc
