#include "sched/timeline.h"

#include <gtest/gtest.h>

namespace dra::sched {
namespace {

TEST(TimelineTest, ParsesApiServerTimes) {
  EXPECT_EQ(ParseUtcSeconds("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseUtcSeconds("2026-01-01T00:00:10Z"), 1767225610);
  EXPECT_EQ(ParseUtcSeconds("2024-02-29T23:59:59Z"), 1709251199);  // leap day
  EXPECT_EQ(ParseUtcSeconds("2026-01-01T00:00:10.123456Z"), 1767225610);
  for (const char* bad :
       {"", "2026-01-01", "2026-01-01T00:00:10", "2026-01-01T00:00:10+02:00", "2026-13-01T00:00:00Z",
        "2026-01-01T24:00:00Z", "2026-01-01T00:00:10.Z", "2026-01-01 00:00:10Z", "2026-01-01T00:00:1xZ"}) {
    EXPECT_FALSE(ParseUtcSeconds(bad).has_value()) << bad;
  }
}

TEST(TimelineTest, FormatsWhatItParses) {
  for (int64_t t : {int64_t{0}, int64_t{1767225610}, int64_t{1709251199}, int64_t{951782400}, int64_t{-1}}) {
    EXPECT_EQ(ParseUtcSeconds(FormatUtcSeconds(t)), t) << FormatUtcSeconds(t);
  }
  EXPECT_EQ(FormatUtcSeconds(1767225610), "2026-01-01T00:00:10Z");
  EXPECT_EQ(FormatUtcSeconds(-1), "1969-12-31T23:59:59Z");
}

TEST(TimelineTest, RejectsWorkloadPodsWithoutTimesOrBound) {
  Snapshot s;
  auto policy = NewPolicy("kube");
  ASSERT_TRUE(policy.ok());
  ScheduleOptions options{.policy = policy->get()};
  api::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = "p";
  StatusOr<TimelineResult> r = ReplayWorkload(s, {p}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "workload pod default/p: metadata.creationTimestamp is missing: an arrival time (RFC 3339, UTC) is "
            "required");
  p.metadata.creation_timestamp = "2026-01-01T00:00:10Z";
  p.metadata.deletion_timestamp = "2026-01-01T00:00:10Z";
  r = ReplayWorkload(s, {p}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must be an RFC 3339 UTC time after its creationTimestamp"), std::string::npos);
  p.metadata.deletion_timestamp.clear();
  p.spec.node_name = "n1";
  EXPECT_FALSE(ReplayWorkload(s, {p}, options).ok());
  p.spec.node_name.clear();
  EXPECT_FALSE(ReplayWorkload(s, {p, p}, options).ok());  // twice
  r = ReplayWorkload(s, {p}, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // No nodes: it waits to the end.
  EXPECT_EQ(r->summary.pending_at_end, 1);
  EXPECT_EQ(r->summary.started, 0);
}

}  // namespace
}  // namespace dra::sched
