#include "kube/events.h"

#include <gtest/gtest.h>

namespace dra::kube {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using Write = EventSeries::Write;

EventSeries::Key FailedScheduling(std::string pod) {
  return {.type = "Warning",
          .reason = "FailedScheduling",
          .action = "Scheduling",
          .regarding_namespace = "ml",
          .regarding_name = pod,
          .regarding_uid = "uid-" + pod};
}

TEST(EventSeriesTest, SecondOccurrencePatchesLaterOnesOnlyCount) {
  EventSeries series;
  const EventSeries::TimePoint t0{seconds(1'000'000)};
  auto [w1, e1] = series.Record(FailedScheduling("a"), "a.1", "0/2 nodes are available: first", t0);
  EXPECT_EQ(w1, Write::kCreate);
  EXPECT_EQ(e1.name, "a.1");
  EXPECT_EQ(e1.count, 1);
  // Another note, same key: the same Event, whose note stays the first.
  auto [w2, e2] = series.Record(FailedScheduling("a"), "a.2", "0/3 nodes are available: second", t0 + seconds(5));
  EXPECT_EQ(w2, Write::kPatch);
  EXPECT_EQ(e2.name, "a.1");
  EXPECT_EQ(e2.note, "0/2 nodes are available: first");
  EXPECT_EQ(e2.count, 2);
  EXPECT_EQ(e2.last_observed, t0 + seconds(5));
  auto [w3, e3] = series.Record(FailedScheduling("a"), "a.3", "third", t0 + seconds(9));
  EXPECT_EQ(w3, Write::kNone);
  EXPECT_EQ(e3.count, 3);
  // Another pod, or another reason for the same pod, is another Event.
  EXPECT_EQ(series.Record(FailedScheduling("b"), "b.1", "x", t0).first, Write::kCreate);
  EventSeries::Key scheduled = FailedScheduling("a");
  scheduled.type = "Normal";
  scheduled.reason = "Scheduled";
  scheduled.action = "Binding";
  EXPECT_EQ(series.Record(scheduled, "a.4", "Successfully assigned ml/a to n1", t0).first, Write::kCreate);
  EXPECT_EQ(series.size(), 3u);
  ASSERT_EQ(series.Ongoing().size(), 1u);
  EXPECT_EQ(series.Ongoing()[0].count, 3);
}

TEST(EventSeriesTest, FinishEndsQuietSeriesAndForgetsOldSingles) {
  EventSeries series;
  const EventSeries::TimePoint t0{seconds(1'000'000)};
  series.Record(FailedScheduling("a"), "a.1", "n", t0);
  series.Record(FailedScheduling("a"), "a.2", "n", t0 + minutes(1));
  series.Record(FailedScheduling("a"), "a.3", "n", t0 + minutes(2));  // last seen at t0+2m
  series.Record(FailedScheduling("b"), "b.1", "n", t0 + minutes(3));  // a single event

  // Within 6 minutes of the last occurrence nothing ends.
  EXPECT_TRUE(series.Finish(t0 + minutes(7)).empty());
  EXPECT_EQ(series.size(), 2u);
  // a's series ended: its final count is to be written; b is still young.
  std::vector<EventSeries::Event> ended = series.Finish(t0 + minutes(8));
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].name, "a.1");
  EXPECT_EQ(ended[0].count, 3);
  EXPECT_EQ(series.size(), 1u);
  // b is forgotten without a write once 6 minutes old.
  EXPECT_TRUE(series.Finish(t0 + minutes(9)).empty());
  EXPECT_EQ(series.size(), 0u);
  // The next occurrence starts anew.
  EXPECT_EQ(series.Record(FailedScheduling("a"), "a.9", "n", t0 + minutes(10)).first, Write::kCreate);
}

}  // namespace
}  // namespace dra::kube
