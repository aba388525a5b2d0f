#include "alloc/best_fit.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace dra::alloc {

using quantity::Quantity;

std::string_view DeviceChoiceName(DeviceChoice choice) {
  return choice == DeviceChoice::kBestFit ? "best-fit" : "first-fit";
}

void DeviceSizer::Add(const api::Device& device) {
  for (const auto& [name, capacity] : device.capacity) {
    const double value = capacity.value.AsApproximateFloat64();
    auto it = largest_.find(name.view());
    if (it == largest_.end()) {
      largest_.emplace(std::string(name.view()), value);
    } else {
      it->second = std::max(it->second, value);
    }
  }
}

double DeviceSizer::Size(const api::Device& device) const {
  double sum = 0;
  int n = 0;
  for (const auto& [name, capacity] : device.capacity) {
    auto it = largest_.find(name.view());
    if (it == largest_.end() || !(it->second > 0)) continue;
    sum += capacity.value.AsApproximateFloat64() / it->second;
    ++n;
  }
  return n == 0 ? 0 : sum / n;
}

double FreeFraction(const CounterAmounts& total, const CounterAmounts& left) {
  double sum = 0;
  int n = 0;
  for (const auto& [name, amount] : total) {
    if (amount.Sign() <= 0) continue;
    auto it = left.find(name);
    const double l = it == left.end() ? 0 : std::max(0.0, it->second.AsApproximateFloat64());
    sum += l / amount.AsApproximateFloat64();
    ++n;
  }
  return n == 0 ? 1 : sum / n;
}

int64_t LongestFreeSlotRuns(const CounterAmounts& left) {
  // stem -> (number, free), from the names that end in digits.
  std::map<std::string_view, std::vector<std::pair<uint64_t, bool>>, std::less<>> stems;
  for (const auto& [name, amount] : left) {
    const size_t digits = name.find_last_not_of("0123456789") + 1;  // npos + 1 == 0
    if (digits == 0 || digits == name.size()) continue;             // all digits, or none
    uint64_t number = 0;
    auto [end, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), number);
    if (ec != std::errc() || end != name.data() + name.size()) continue;  // overflow
    stems[std::string_view(name).substr(0, digits)].emplace_back(number, amount.Sign() > 0);
  }
  int64_t total = 0;
  for (auto& [stem, slots] : stems) {
    if (slots.size() < 2) continue;
    std::sort(slots.begin(), slots.end());
    int64_t longest = 0, run = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      const bool continues = i > 0 && slots[i - 1].first + 1 == slots[i].first;
      if (!slots[i].second) {
        run = 0;
      } else {
        run = continues ? run + 1 : 1;
      }
      longest = std::max(longest, run);
    }
    total += longest;
  }
  return total;
}

}  // namespace dra::alloc
