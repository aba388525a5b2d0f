#include "alloc/capacity.h"

namespace dra::alloc {

using quantity::Quantity;

namespace {

// Whether `consumed` violates `policy` (§9 step 2, "policy check").
bool ViolatesPolicy(const api::CapacityRequestPolicy& policy, const Quantity& consumed) {
  if (policy.valid_range) {
    const api::CapacityRequestPolicyRange& range = *policy.valid_range;
    if (range.max && consumed.Compare(*range.max) > 0) return true;
    if (range.step && !range.step->IsZero()) {
      int64_t min = range.min ? range.min->Value() : 0;
      int64_t step = range.step->Value();
      if (step != 0 && (consumed.Value() - min) % step != 0) return true;
    }
    return false;
  }
  if (!policy.valid_values.empty()) {
    for (const Quantity& v : policy.valid_values) {
      if (v.Compare(consumed) == 0) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

StatusOr<Quantity> ConsumedAmount(const api::DeviceCapacity& capacity, const Quantity* requested) {
  const api::CapacityRequestPolicy* policy = capacity.request_policy.get();
  if (requested == nullptr) {
    if (policy != nullptr && policy->default_) return *policy->default_;
    return capacity.value;
  }
  if (policy == nullptr) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    const api::CapacityRequestPolicyRange& range = *policy->valid_range;
    if (requested->Compare(*range.min) < 0) return *range.min;
    if (!range.step) return *requested;
    // Integer arithmetic on whole values, as upstream does, in binary SI.
    int64_t min = range.min->Value();
    int64_t step = range.step->Value();
    int64_t req = requested->Value();
    if (step <= 0) return *requested;
    int64_t diff = req - min;
    int64_t steps = diff / step + (diff % step != 0 ? 1 : 0);
    return Quantity::FromInt(min + step * steps, quantity::Format::kBinarySI);
  }
  if (!policy->valid_values.empty()) {
    for (const Quantity& v : policy->valid_values) {
      if (v.Compare(*requested) >= 0) return v;
    }
    return *requested;
  }
  return *requested;
}

StatusOr<std::optional<CapacityAmounts>> CheckCapacity(const std::optional<api::CapacityRequirements>& requirements,
                                                       const api::Device& device, const CapacityAmounts* allocated,
                                                       const CapacityAmounts* allocating) {
  if (requirements) {
    for (const auto& [name, amount] : requirements->requests) {
      if (!device.capacity.contains(name)) {
        return FailedPreconditionError("some requested capacity has not been defined");
      }
    }
  }
  CapacityAmounts consumed_all;
  for (const auto& [name, capacity] : device.capacity) {
    const Quantity* requested = requirements ? requirements->requests.find(name) : nullptr;
    DRA_ASSIGN_OR_RETURN(Quantity consumed, ConsumedAmount(capacity, requested));
    const api::CapacityRequestPolicy* policy = capacity.request_policy.get();
    if (policy != nullptr) {
      bool is_default = policy->default_ && policy->default_->String() == consumed.String() &&
                        policy->default_->format() == consumed.format();
      if (!is_default && ViolatesPolicy(*policy, consumed)) return std::optional<CapacityAmounts>();
    }
    Quantity total = consumed;
    if (allocated != nullptr) {
      if (const Quantity* q = allocated->find(name)) { DRA_ASSIGN_OR_RETURN(total, total.Add(*q)); }
    }
    if (allocating != nullptr) {
      if (const Quantity* q = allocating->find(name)) { DRA_ASSIGN_OR_RETURN(total, total.Add(*q)); }
    }
    if (total.Compare(capacity.value) > 0) return std::optional<CapacityAmounts>();
    consumed_all.insert_or_assign(std::string(name.view()), consumed);
  }
  return std::optional<CapacityAmounts>(std::move(consumed_all));
}

bool Tolerates(const api::DeviceToleration& toleration, const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_.empty() || toleration.operator_ == api::DeviceTolerationOperator::kEqual) {
    return toleration.value == taint.value;
  }
  return toleration.operator_ == api::DeviceTolerationOperator::kExists;
}

bool TaintsAllow(const api::Device& device, std::span<const api::DeviceToleration> tolerations) {
  for (const api::DeviceTaint& taint : device.rare->taints) {
    if (taint.effect != api::DeviceTaintEffect::kNoSchedule && taint.effect != api::DeviceTaintEffect::kNoExecute) {
      continue;
    }
    bool tolerated = false;
    for (const api::DeviceToleration& t : tolerations) {
      if (Tolerates(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return false;
  }
  return true;
}

}  // namespace dra::alloc
