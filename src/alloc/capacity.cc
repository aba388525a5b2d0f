#include "alloc/capacity.h"

#include <limits>
#include <string>
#include <vector>

namespace dra::alloc {

using quantity::Quantity;

namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// q in milli units if that is exact (upstream safeMilliValue).
std::optional<int64_t> ExactMilli(const Quantity& q) {
  const int64_t milli = q.MilliValue();
  if (Quantity::FromMilli(milli, q.format()).Compare(q) != 0) return std::nullopt;
  return milli;
}

// Milli arithmetic for a range (upstream useMilli): with
// DRAFractionalCapacityRange, when min, max and step are exact in milli
// units and the step is at least 1m.
bool UseMilli(const api::CapacityRequestPolicyRange& range, bool fractional) {
  if (!fractional) return false;
  for (const std::optional<Quantity>* q : {&range.min, &range.max, &range.step}) {
    if (!q->has_value()) continue;
    if (!ExactMilli(**q)) return false;
  }
  if (range.step) {
    std::optional<int64_t> step = ExactMilli(*range.step);
    if (step && *step < 1) return false;
  }
  return true;
}

// Whether `consumed` violates `policy` (src/alloc/README.md §9 step 2, "policy check").
bool ViolatesPolicy(const api::CapacityRequestPolicy& policy, const Quantity& consumed, bool fractional) {
  if (policy.valid_range) {
    const api::CapacityRequestPolicyRange& range = *policy.valid_range;
    if (range.max && consumed.Compare(*range.max) > 0) return true;
    if (range.step) {
      int64_t requested = 0, step = 0, min = 0;
      if (UseMilli(range, fractional)) {
        std::optional<int64_t> milli = ExactMilli(consumed);
        if (!milli) return true;
        requested = *milli;
        step = range.step->MilliValue();
        min = range.min ? range.min->MilliValue() : 0;
      } else {
        requested = consumed.Value();
        step = range.step->Value();
        min = range.min ? range.min->Value() : 0;
      }
      if (step != 0 && (requested - min) % step != 0) return true;
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

Status NotRepresentable(const Quantity& requested, std::string_view why) {
  return OutOfRangeError("the capacity request is not representable: request " + requested.String() + " " +
                         std::string(why));
}

// Rounds `requested` up into `range` (upstream roundUpRange).
StatusOr<Quantity> RoundUpRange(const Quantity& requested, const api::CapacityRequestPolicyRange& range,
                                bool fractional) {
  if (requested.Compare(*range.min) < 0) return *range.min;
  if (!range.step) return requested;
  const quantity::Format format = range.step->format();
  if (UseMilli(range, fractional)) {
    std::optional<int64_t> req = ExactMilli(requested);
    if (!req) return NotRepresentable(requested, "is not a representable milli value");
    const int64_t step = range.step->MilliValue();
    const int64_t min = range.min->MilliValue();
    const int64_t added = *req - min;
    int64_t n = added / step;
    if (added % step != 0) ++n;
    if (n > (kMaxInt64 - min) / step) {
      return NotRepresentable(requested, "rounded up to the next step passes the milli-value range");
    }
    const int64_t value = min + step * n;
    if (value % 1000 == 0) return Quantity::FromInt(value / 1000, format);
    return Quantity::FromMilli(value, format);
  }
  if (requested.Compare(Quantity::FromInt(kMaxInt64)) > 0) return NotRepresentable(requested, "exceeds MaxInt64");
  const int64_t req = requested.Value();
  const int64_t step = range.step->Value();
  const int64_t min = range.min->Value();
  if (step <= 0) return requested;  // rejected by validation; do not divide by zero
  const int64_t added = req - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  if (min >= 0 && n > (kMaxInt64 - min) / step) {
    return NotRepresentable(requested, "rounded up to the next step passes MaxInt64");
  }
  return Quantity::FromInt(min + step * n, format);
}

}  // namespace

StatusOr<Quantity> ConsumedAmount(const api::DeviceCapacity& capacity, const Quantity* requested, bool fractional) {
  const api::CapacityRequestPolicy* policy = capacity.request_policy.get();
  if (requested == nullptr) {
    if (policy != nullptr && policy->default_) return *policy->default_;
    return capacity.value;
  }
  if (policy == nullptr) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    return RoundUpRange(*requested, *policy->valid_range, fractional);
  }
  if (!policy->valid_values.empty()) {
    for (const Quantity& v : policy->valid_values) {
      if (v.Compare(*requested) >= 0) return v;
    }
    return *requested;
  }
  return *requested;
}

bool CapacityFitsTrivially(const std::optional<api::CapacityRequirements>& requirements, const api::Device& device,
                           const CapacityAmounts* allocated, const CapacityAmounts* allocating) {
  if (allocated != nullptr || allocating != nullptr) return false;
  if (requirements && !requirements->requests.empty()) return false;
  for (const auto& [name, capacity] : device.capacity) {
    if (capacity.request_policy.get() != nullptr || capacity.value.Sign() < 0) return false;
  }
  return true;
}

namespace {

// CheckCapacity's work; with `out`, the consumption of every capacity is
// written there. The consumptions sit in a per-thread scratch vector in the
// device's capacity order, so that a verdict alone allocates nothing.
StatusOr<bool> CheckCapacityInto(const std::optional<api::CapacityRequirements>& requirements,
                                 const api::Device& device, const CapacityAmounts* allocated,
                                 const CapacityAmounts* allocating, bool fractional, CapacityAmounts* out) {
  if (requirements) {
    for (const auto& [name, amount] : requirements->requests) {
      // Another device may define it: skip this one.
      if (!device.capacity.contains(name)) return false;
    }
  }
  // Every consumption first: one that cannot be represented is an error
  // whatever the order of the capacities (upstream 1.37).
  thread_local std::vector<Quantity> consumed_all;
  consumed_all.clear();
  for (const auto& [name, capacity] : device.capacity) {
    const Quantity* requested = requirements ? requirements->requests.find(name) : nullptr;
    StatusOr<Quantity> consumed = ConsumedAmount(capacity, requested, fractional);
    if (!consumed.ok()) {
      return Status(consumed.status().code(),
                    "capacity \"" + std::string(name.view()) + "\": " + std::string(consumed.status().message()));
    }
    if (consumed->Sign() < 0) {
      return OutOfRangeError("capacity \"" + std::string(name.view()) + "\": negative capacity");
    }
    consumed_all.push_back(*consumed);
  }
  size_t i = 0;
  for (const auto& [name, capacity] : device.capacity) {
    const Quantity& consumed = consumed_all[i++];
    const api::CapacityRequestPolicy* policy = capacity.request_policy.get();
    if (policy != nullptr) {
      bool is_default = policy->default_ && policy->default_->String() == consumed.String() &&
                        policy->default_->format() == consumed.format();
      if (!is_default && ViolatesPolicy(*policy, consumed, fractional)) return false;
    }
    Quantity total = consumed;
    if (allocated != nullptr) {
      if (const Quantity* q = allocated->find(name)) {
        DRA_ASSIGN_OR_RETURN(total, total.Add(*q));
      }
    }
    if (allocating != nullptr) {
      if (const Quantity* q = allocating->find(name)) {
        DRA_ASSIGN_OR_RETURN(total, total.Add(*q));
      }
    }
    if (total.Compare(capacity.value) > 0) return false;
  }
  if (out != nullptr) {
    i = 0;
    for (const auto& [name, capacity] : device.capacity)
      out->insert_or_assign(std::string(name.view()), consumed_all[i++]);
  }
  return true;
}

}  // namespace

StatusOr<std::optional<CapacityAmounts>> CheckCapacity(const std::optional<api::CapacityRequirements>& requirements,
                                                       const api::Device& device, const CapacityAmounts* allocated,
                                                       const CapacityAmounts* allocating, bool fractional) {
  CapacityAmounts consumed;
  DRA_ASSIGN_OR_RETURN(bool fits,
                       CheckCapacityInto(requirements, device, allocated, allocating, fractional, &consumed));
  if (!fits) return std::optional<CapacityAmounts>();
  return std::optional<CapacityAmounts>(std::move(consumed));
}

StatusOr<bool> CapacityFits(const std::optional<api::CapacityRequirements>& requirements, const api::Device& device,
                            const CapacityAmounts* allocated, const CapacityAmounts* allocating, bool fractional) {
  return CheckCapacityInto(requirements, device, allocated, allocating, fractional, nullptr);
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
