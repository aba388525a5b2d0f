// Consumable capacity (src/alloc/README.md §9) and taint toleration (§10):
// the per-device checks that do not depend on the search order.
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
// default, else the whole capacity. `fractional` is DRAFractionalCapacityRange
// (validRange rounding in milli units). kOutOfRange when the request or its
// rounding cannot be represented (upstream aborts the allocation then).
StatusOr<quantity::Quantity> ConsumedAmount(const api::DeviceCapacity& capacity, const quantity::Quantity* requested,
                                            bool fractional = false);

// Whether CheckCapacity would say "fits" with nothing to compute: no
// capacity requested, no requestPolicy on the device's capacities, none
// consumed already (`allocated` and `allocating` null) and no negative
// capacity, so that each capacity is consumed whole and fits. Callers that
// need only the verdict skip CheckCapacity then (it builds the consumption
// of every capacity: most of the per-device cost of counting).
bool CapacityFitsTrivially(const std::optional<api::CapacityRequirements>& requirements, const api::Device& device,
                           const CapacityAmounts* allocated, const CapacityAmounts* allocating);

// Capacity check for (request capacity `requirements`, `device`), as upstream
// 1.37's CmpRequestOverCapacity:
//   ok, value   -> fits; the value lists the consumption of every capacity
//   ok, nullopt -> skip the device: it lacks a requested capacity, a policy is
//                  violated, or not enough is left
//   error       -> a consumption cannot be represented, or is negative: the
//                  allocation must stop
// `allocated` is the capacity already used by other claims, `allocating` the
// capacity taken in the current search; either may be null.
StatusOr<std::optional<CapacityAmounts>> CheckCapacity(const std::optional<api::CapacityRequirements>& requirements,
                                                       const api::Device& device, const CapacityAmounts* allocated,
                                                       const CapacityAmounts* allocating, bool fractional = false);

// CheckCapacity's verdict alone (ok true: fits), without building the
// consumption: the search's checks that only need to know.
StatusOr<bool> CapacityFits(const std::optional<api::CapacityRequirements>& requirements, const api::Device& device,
                            const CapacityAmounts* allocated, const CapacityAmounts* allocating,
                            bool fractional = false);

// Whether `toleration` tolerates `taint` (§10).
bool Tolerates(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

// Whether the taints of `device` allow taking it for a request with
// `tolerations`: every NoSchedule/NoExecute taint must be tolerated.
bool TaintsAllow(const api::Device& device, std::span<const api::DeviceToleration> tolerations);

}  // namespace dra::alloc
