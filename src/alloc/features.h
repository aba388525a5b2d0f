// The allocator's feature set (src/alloc/README.md §2): which DRA features are
// on, derived from the scheduler's feature gates.
#pragma once

#include "api/features.h"

namespace dra::alloc {

struct Features {
  bool admin_access = false;
  bool compatibility_groups = false;  // DRADeviceCompatibilityGroups (1.37 alpha, §8.1)
  bool consumable_capacity = false;
  bool derived_attributes = false;         // DRADerivedAttributes (1.37 alpha, §7.4)
  bool device_binding_and_status = false;  // DRADeviceBindingConditions AND DRAResourceClaimDeviceStatus
  bool device_taints = false;
  bool fractional_capacity_range = false;  // DRAFractionalCapacityRange
  bool list_type_attributes = false;
  bool partitionable_devices = false;
  bool prioritized_list = false;
  // DRAPartitionableDevicesType has no allocator feature: upstream's allocator
  // never reads ResourceSlice.spec.partitionTypeAttribute (§3.5).

  static Features FromGates(const api::FeatureGates& gates) {
    using api::Gate;
    Features f;
    f.admin_access = gates.enabled(Gate::kDRAAdminAccess);
    f.compatibility_groups = gates.enabled(Gate::kDRADeviceCompatibilityGroups);
    f.consumable_capacity = gates.enabled(Gate::kDRAConsumableCapacity);
    f.derived_attributes = gates.enabled(Gate::kDRADerivedAttributes);
    f.device_binding_and_status =
        gates.enabled(Gate::kDRADeviceBindingConditions) && gates.enabled(Gate::kDRAResourceClaimDeviceStatus);
    f.device_taints = gates.enabled(Gate::kDRADeviceTaints);
    f.fractional_capacity_range = gates.enabled(Gate::kDRAFractionalCapacityRange);
    f.list_type_attributes = gates.enabled(Gate::kDRAListTypeAttributes);
    f.partitionable_devices = gates.enabled(Gate::kDRAPartitionableDevices);
    f.prioritized_list = gates.enabled(Gate::kDRAPrioritizedList);
    return f;
  }

  friend bool operator==(const Features&, const Features&) = default;
};

}  // namespace dra::alloc
