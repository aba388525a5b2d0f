// Devices already in use by claims that are not being allocated now
// (src/alloc/README.md §1.1, upstream's AllocatedState).
//
//   devices             "driver/pool/device" of every exclusive, non-admin result
//   shared_device_ids   "driver/pool/device/shareID" of every shared result
//                       (only with DRAConsumableCapacity)
//   aggregated_capacity per device ID, the sum of consumedCapacity of the
//                       shared results on it (only with DRAConsumableCapacity)
//   excluded            "driver/pool/device" of devices a caller keeps out of
//                       the search without counting them as usage (a gang
//                       search asking for another choice of devices): the
//                       allocator treats them as in use, but they take no
//                       counters and no capacity
//
// Admin-access results never count as usage. A plain value type; build it
// once per snapshot and share it read-only.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "alloc/features.h"
#include "api/resource.h"
#include "base/status.h"
#include "quantity/quantity.h"

namespace dra::alloc {

// "driver/pool/device": the key the allocator uses for devices.
std::string DeviceIdString(std::string_view driver, std::string_view pool, std::string_view device);

struct AllocatedState {
  std::set<std::string, std::less<>> devices;
  std::set<std::string, std::less<>> shared_device_ids;
  std::map<std::string, api::FlatMap<quantity::Quantity>, std::less<>> aggregated_capacity;
  std::set<std::string, std::less<>> excluded;

  // Records one result of an allocated claim, as the scheduler does.
  // kOutOfRange if summing capacities overflows.
  Status AddResult(const api::DeviceRequestAllocationResult& result, const Features& features);
  // The inverse of AddResult for a result recorded before (a reservation
  // undone): the device, or its share and consumed capacity, is free again.
  // kOutOfRange if subtracting capacities overflows.
  Status RemoveResult(const api::DeviceRequestAllocationResult& result, const Features& features);
  // Records every result of every claim that has status.allocation.
  Status AddClaims(std::span<const api::ResourceClaim* const> claims, const Features& features);
  // Records a share consumed by a claim the caller does not list
  // (a conformance scenario's `allocatedShares`).
  Status AddShare(std::string_view device_id, std::string_view share_id,
                  const api::FlatMap<quantity::Quantity>& consumed, const Features& features);

  // Whether a search may not take the device (exclusive use or excluded).
  bool Unavailable(std::string_view device_id) const {
    return devices.count(device_id) > 0 || (!excluded.empty() && excluded.count(device_id) > 0);
  }
  // Whether the device counts as in use for counter accounting (§8).
  bool InUseForCounters(std::string_view device_id) const;
};

}  // namespace dra::alloc
