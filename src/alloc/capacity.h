// Consumable capacity (allocator.md §9) and taint toleration (§10): the
// per-device checks that do not depend on the search order.
#pragma once

#include <optional>
#include <span>

#include "api/resource.h"
#include "base/status.h"
#include "quantity/quantity.h"

namespace dra::alloc {

using CapacityAmounts = api::FlatMap<quantity::Quantity>;

// The amount a request consumes of one capacity of a device: the request
// adjusted by the capacity's requestPolicy, or (not requested) the policy's
// default, else the whole capacity.
StatusOr<quantity::Quantity> ConsumedAmount(const api::DeviceCapacity& capacity,
                                            const quantity::Quantity* requested);

// Capacity check for (request capacity `requirements`, `device`):
//   ok, value  -> fits; the value lists the consumption of every capacity
//   ok, nullopt -> does not fit (policy violated or not enough left)
//   error      -> the request names a capacity the device lacks
//                 ("some requested capacity has not been defined") or the
//                 arithmetic overflowed; callers skip the device.
// `allocated` is the capacity already used by other claims, `allocating` the
// capacity taken in the current search; either may be null.
StatusOr<std::optional<CapacityAmounts>> CheckCapacity(const std::optional<api::CapacityRequirements>& requirements,
                                                       const api::Device& device, const CapacityAmounts* allocated,
                                                       const CapacityAmounts* allocating);

// Whether `toleration` tolerates `taint` (§10).
bool Tolerates(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

// Whether the taints of `device` allow taking it for a request with
// `tolerations`: every NoSchedule/NoExecute taint must be tolerated.
bool TaintsAllow(const api::Device& device, std::span<const api::DeviceToleration> tolerations);

}  // namespace dra::alloc
