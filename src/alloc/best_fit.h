// `--device-choice best-fit`: the measures the allocator sorts a node's
// devices by before its search, when AllocatorOptions::device_choice is
// DeviceChoice::kBestFit (allocator.cc, Search::OrderForBestFit). The search
// itself is unchanged, so whether claims fit is decided exactly as with
// upstream's first fit; only which of the fitting devices are taken differs.
//
// The order, best first, for one request of one claim:
//   1. affinity: a device on the same resource.kubernetes.io/pcieRoot as a
//      device this claim already took in this call, then one on the same
//      resource.kubernetes.io/numaNode, then the rest;
//   2. size (DeviceSizer): the smallest device first ("the smallest adequate
//      device": the selectors decide what is adequate, the search skips the
//      rest);
//   3. for a partition (a device that consumes shared counters): the parent
//      with the least left free first (FreeFraction), so whole GPUs stay
//      whole;
//   4. the placement that leaves the most other devices of its counter set
//      still fitting (a MIG driver publishes every valid placement of every
//      profile as a device, so this keeps room for the larger profiles);
//   5. the placement that leaves the longest runs of free slots
//      (LongestFreeSlotRuns: MIG memory slices stay contiguous);
//   6. the driver's order (upstream's).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "quantity/quantity.h"

namespace dra::alloc {

enum class DeviceChoice : uint8_t {
  kFirstFit,  // upstream: the first fitting devices in the driver's order
  kBestFit,   // see above
};

// "first-fit" / "best-fit".
std::string_view DeviceChoiceName(DeviceChoice choice);

// How big a device is next to the other devices of a node: the mean, over the
// device's capacities, of value / the largest value of that capacity on the
// node (capacities that are zero on every device are left out). 0 for a
// device without capacities.
class DeviceSizer {
 public:
  void Add(const api::Device& device);
  double Size(const api::Device& device) const;

 private:
  std::map<std::string, double, std::less<>> largest_;
};

// One counter set: the amounts it started with and the amounts left.
using CounterAmounts = std::map<std::string, quantity::Quantity, std::less<>>;

// The mean, over the counters of `total` with a positive amount, of left /
// total (a missing `left` entry counts as nothing left). 1 when no counter has
// a positive amount.
double FreeFraction(const CounterAmounts& total, const CounterAmounts& left);

// Slots are counters named STEM + decimal number (memory-slice-0 …
// memory-slice-7), at least two of one stem; a slot is free while `left` has
// a positive amount of it. Returns, summed over the stems, the longest run of
// consecutive numbers whose slots are all free.
int64_t LongestFreeSlotRuns(const CounterAmounts& left);

}  // namespace dra::alloc
