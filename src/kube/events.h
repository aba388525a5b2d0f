// Aggregation of events.k8s.io/v1 Events as client-go's event broadcaster
// (k8s.io/client-go/tools/events) does it for kube-scheduler.
//
// Isomorphic events (same type, reason, action and regarding object; the
// reporting controller and instance are this process's) become one Event
// with a series:
//   - the first occurrence creates the Event;
//   - the second adds `series: {count: 2, lastObservedTime}` to it (a
//     PATCH; if the Event is gone, it is created again with the series);
//   - later ones only count here. The count reaches the API server when the
//     series ends (no occurrence for 6 minutes: a final PATCH, and the series
//     is forgotten) and every 30 minutes while it goes on.
// A single event is forgotten 6 minutes after it was created, so the next
// occurrence creates a new Event. The note stays the first occurrence's, as
// upstream's (the pod's PodScheduled condition carries the current message).
#ifndef DRA_KUBE_EVENTS_H_
#define DRA_KUBE_EVENTS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace dra::kube {

class EventSeries {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  static constexpr std::chrono::minutes kFinishAfter{6};
  static constexpr std::chrono::minutes kRefreshEvery{30};

  // What makes events isomorphic.
  struct Key {
    std::string type, reason, action;
    std::string regarding_namespace, regarding_name, regarding_uid;
    auto operator<=>(const Key&) const = default;
  };
  // One Event as the API server should hold it.
  struct Event {
    Key key;
    std::string name;  // metadata.name, in the regarding object's namespace
    std::string note;  // the first occurrence's
    TimePoint event_time;
    int32_t count = 1;  // > 1: a series
    TimePoint last_observed;
  };
  enum class Write {
    kCreate,  // create `event` (count 1)
    kPatch,   // add its series (count 2); create it with the series if gone
    kNone,    // counted here only
  };

  // One occurrence at `now`; `name` and `note` are used when it starts a new
  // Event. Thread-safe.
  std::pair<Write, Event> Record(const Key& key, std::string_view name, std::string_view note, TimePoint now);
  // The series that ended by `now` (to patch with their final counts); they
  // and the single events older than kFinishAfter are forgotten.
  std::vector<Event> Finish(TimePoint now);
  // Every series going on (to patch: the 30-minute refresh).
  std::vector<Event> Ongoing() const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<Key, Event> events_;
};

}  // namespace dra::kube

#endif  // DRA_KUBE_EVENTS_H_
