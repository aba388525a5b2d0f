#include "alloc/allocated_state.h"

namespace dra::alloc {

std::string DeviceIdString(std::string_view driver, std::string_view pool, std::string_view device) {
  std::string id;
  id.reserve(driver.size() + pool.size() + device.size() + 2);
  id.append(driver).append(1, '/').append(pool).append(1, '/').append(device);
  return id;
}

Status AllocatedState::AddShare(std::string_view device_id, std::string_view share_id,
                                const api::FlatMap<quantity::Quantity>& consumed, const Features& features) {
  if (!features.consumable_capacity) {
    devices.emplace(device_id);
    return OkStatus();
  }
  std::string shared(device_id);
  shared.append(1, '/').append(share_id);
  shared_device_ids.insert(std::move(shared));
  auto [it, inserted] = aggregated_capacity.try_emplace(std::string(device_id));
  for (const auto& [name, amount] : consumed) {
    quantity::Quantity* sum = it->second.find(name);
    if (sum == nullptr) {
      it->second.insert_or_assign(name, amount);
      continue;
    }
    DRA_ASSIGN_OR_RETURN(*sum, sum->Add(amount));
  }
  return OkStatus();
}

Status AllocatedState::AddResult(const api::DeviceRequestAllocationResult& result, const Features& features) {
  if (result.admin_access.value_or(false)) return OkStatus();  // admin access is never usage
  std::string id = DeviceIdString(result.driver, result.pool, result.device);
  if (features.consumable_capacity && result.share_id && !result.share_id->empty()) {
    return AddShare(id, *result.share_id, result.consumed_capacity, features);
  }
  devices.insert(std::move(id));
  return OkStatus();
}

Status AllocatedState::RemoveResult(const api::DeviceRequestAllocationResult& result, const Features& features) {
  if (result.admin_access.value_or(false)) return OkStatus();
  std::string id = DeviceIdString(result.driver, result.pool, result.device);
  if (!features.consumable_capacity || !result.share_id || result.share_id->empty()) {
    devices.erase(id);
    return OkStatus();
  }
  std::string shared = id;
  shared.append(1, '/').append(*result.share_id);
  shared_device_ids.erase(shared);
  auto it = aggregated_capacity.find(id);
  if (it == aggregated_capacity.end()) return OkStatus();
  // The device's last share gone: no aggregate left (InUseForCounters).
  id.push_back('/');
  auto next = shared_device_ids.lower_bound(id);
  if (next == shared_device_ids.end() || std::string_view(*next).substr(0, id.size()) != id) {
    aggregated_capacity.erase(it);
    return OkStatus();
  }
  for (const auto& [name, amount] : result.consumed_capacity) {
    if (quantity::Quantity* sum = it->second.find(name); sum != nullptr) {
      DRA_ASSIGN_OR_RETURN(*sum, sum->Sub(amount));
    }
  }
  return OkStatus();
}

Status AllocatedState::AddClaims(std::span<const api::ResourceClaim* const> claims, const Features& features) {
  for (const api::ResourceClaim* claim : claims) {
    if (!claim->status.allocation) continue;
    for (const auto& result : claim->status.allocation->devices.results) {
      DRA_RETURN_IF_ERROR(AddResult(result, features));
    }
  }
  return OkStatus();
}

bool AllocatedState::InUseForCounters(std::string_view device_id) const {
  if (devices.count(device_id)) return true;
  if (aggregated_capacity.count(device_id)) return true;
  // A share ID is "device_id/<uuid>": look for the first key with that prefix.
  std::string prefix(device_id);
  prefix.push_back('/');
  auto it = shared_device_ids.lower_bound(prefix);
  return it != shared_device_ids.end() && std::string_view(*it).substr(0, prefix.size()) == prefix;
}

}  // namespace dra::alloc
