#include "kube/events.h"

namespace dra::kube {

std::pair<EventSeries::Write, EventSeries::Event> EventSeries::Record(const Key& key, std::string_view name,
                                                                      std::string_view note, TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(key);
  if (it == events_.end()) {
    Event e{.key = key, .name = std::string(name), .note = std::string(note), .event_time = now, .last_observed = now};
    events_.emplace(key, e);
    return {Write::kCreate, std::move(e)};
  }
  Event& e = it->second;
  ++e.count;
  e.last_observed = now;
  return {e.count == 2 ? Write::kPatch : Write::kNone, e};
}

std::vector<EventSeries::Event> EventSeries::Finish(TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Event> ended;
  for (auto it = events_.begin(); it != events_.end();) {
    const Event& e = it->second;
    const TimePoint last = e.count > 1 ? e.last_observed : e.event_time;
    if (now - last < kFinishAfter) {
      ++it;
      continue;
    }
    if (e.count > 1) ended.push_back(e);
    it = events_.erase(it);
  }
  return ended;
}

std::vector<EventSeries::Event> EventSeries::Ongoing() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Event> out;
  for (const auto& [key, e] : events_) {
    if (e.count > 1) out.push_back(e);
  }
  return out;
}

size_t EventSeries::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

}  // namespace dra::kube
