// Go's time printing and arithmetic as cel-go uses them. Expectations are
// worked out by hand from Go's time package (format.go, time.go) and cel-go's
// common/types/overflow.go; the Duration.String example is the one in Go's
// documentation.
#include "cel/lib/cel_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

namespace dra::cel::lib {
namespace {

constexpr int64_t kSecond = 1000000000;

TEST(CelTimeTest, DurationString) {
  EXPECT_EQ(FormatGoDuration(0), "0s");
  EXPECT_EQ(FormatGoDuration(1), "1ns");
  EXPECT_EQ(FormatGoDuration(1100), "1.1\xC2\xB5s");
  EXPECT_EQ(FormatGoDuration(2200000), "2.2ms");
  EXPECT_EQ(FormatGoDuration(-1500000000), "-1.5s");
  EXPECT_EQ(FormatGoDuration(4530918273645), "1h15m30.918273645s");
  EXPECT_EQ(FormatGoDuration(3600 * kSecond), "1h0m0s");
  EXPECT_EQ(FormatGoDuration(INT64_MIN), "-2562047h47m16.854775808s");
}

TEST(CelTimeTest, DurationSeconds) {
  EXPECT_EQ(FormatDurationSeconds(0), "0s");
  EXPECT_EQ(FormatDurationSeconds(1), "0.000000001s");
  EXPECT_EQ(FormatDurationSeconds(1500000000), "1.5s");
  EXPECT_EQ(FormatDurationSeconds(-5400 * kSecond), "-5400s");
  EXPECT_EQ(DurationHours(-90 * 60 * kSecond), -1);
  EXPECT_EQ(DurationMinutes(-90500 * 1000000LL), -1);
  EXPECT_EQ(DurationSeconds(-90500 * 1000000LL), -90);
  EXPECT_EQ(DurationMilliseconds(-90500 * 1000000LL), -90500);
}

TEST(CelTimeTest, TimeString) {
  CelTime t{.seconds = 1704067200, .nanos = 0, .offset = 0, .utc = true};  // 2024-01-01T00:00:00Z
  EXPECT_EQ(FormatGoTime(t), "2024-01-01 00:00:00 +0000 UTC");
  EXPECT_EQ(FormatRfc3339Nano(t), "2024-01-01T00:00:00Z");
  CelTime o{.seconds = 1704067200 - 3600, .nanos = 123000000, .offset = 3600, .utc = false};
  EXPECT_EQ(FormatGoTime(o), "2024-01-01 00:00:00.123 +0100 +0100");
  EXPECT_EQ(FormatRfc3339Nano(o), "2024-01-01T00:00:00.123+01:00");
  CelTime w{.seconds = 0, .nanos = 0, .offset = -(7 * 3600 + 30 * 60), .utc = false};
  EXPECT_EQ(FormatGoTime(w), "1969-12-31 16:30:00 -0730 -0730");
}

TEST(CelTimeTest, Parse) {
  CelTime t;
  ASSERT_EQ(ParseCelTimestamp("2024-01-01T00:00:00.123+01:00", &t), TimestampParse::kOk);
  EXPECT_EQ(t.seconds, 1704067200 - 3600);
  EXPECT_EQ(t.nanos, 123000000);
  EXPECT_EQ(t.offset, 3600);
  EXPECT_FALSE(t.utc);
  ASSERT_EQ(ParseCelTimestamp("2024-01-01T00:00:00.1234567891Z", &t), TimestampParse::kOk);
  EXPECT_EQ(t.nanos, 123456789);
  EXPECT_EQ(ParseCelTimestamp("10000-01-01T00:00:00Z", &t), TimestampParse::kInvalid);
  EXPECT_EQ(ParseCelTimestamp("0001-01-01T00:00:00+01:00", &t), TimestampParse::kOutOfRange);
  EXPECT_EQ(ParseGoDuration("1h1.5s"), 3601500000000);
  EXPECT_EQ(ParseGoDuration("-2562047h47m16.854775808s"), INT64_MIN);
  EXPECT_EQ(ParseGoDuration("2562047h47m16.854775808s"), std::nullopt);
}

TEST(CelTimeTest, Civil) {
  const CivilTime epoch = ToCivil(TimeFromUnix(0), 0);
  EXPECT_EQ(epoch.year, 1970);
  EXPECT_EQ(epoch.weekday, 4);  // Thursday
  EXPECT_EQ(epoch.yday, 1);
  const CivilTime before = ToCivil(TimeFromUnix(-1), 0);
  EXPECT_EQ(before.year, 1969);
  EXPECT_EQ(before.month, 12);
  EXPECT_EQ(before.day, 31);
  EXPECT_EQ(before.yday, 365);
  EXPECT_EQ(before.weekday, 3);
  EXPECT_EQ(before.hour, 23);
  EXPECT_EQ(before.second, 59);
  const CivilTime leap = ToCivil(TimeFromUnix(1709208000), 0);  // 2024-02-29T12:00:00Z
  EXPECT_EQ(leap.month, 2);
  EXPECT_EQ(leap.day, 29);
  EXPECT_EQ(leap.yday, 60);
}

TEST(CelTimeTest, Arithmetic) {
  const CelTime max = TimeFromUnix(253402300799);
  EXPECT_EQ(AddTimeDuration(max, kSecond).status().message(), "timestamp overflow");
  StatusOr<CelTime> back = AddTimeDuration(max, -kSecond / 2);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->seconds, 253402300798);
  EXPECT_EQ(back->nanos, 500000000);
  EXPECT_EQ(SubtractTimeDuration(TimeFromUnix(0), INT64_MIN).status().message(), "integer overflow");
  EXPECT_EQ(SubtractTimes(max, TimeFromUnix(-62135596800)).status().message(), "integer overflow");
  EXPECT_EQ(AddDurations(INT64_MAX, 1).status().message(), "integer overflow");
  StatusOr<int64_t> d = SubtractTimes(*back, max);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, -kSecond / 2);
}

TEST(CelTimeTest, Zones) {
  const CelTime t = TimeFromUnix(1704067200);
  EXPECT_EQ(*ZoneOffsetAt("+05:30", t), 19800);
  EXPECT_EQ(*ZoneOffsetAt("-05:30", t), -19800);
  EXPECT_EQ(*ZoneOffsetAt("UTC", t), 0);
  EXPECT_EQ(*ZoneOffsetAt("", t), 0);
  EXPECT_EQ(ZoneOffsetAt("+x:00", t).status().message(), "strconv.Atoi: parsing \"+x\": invalid syntax");
  EXPECT_EQ(ZoneOffsetAt("../etc/passwd", t).status().message(), "time: invalid location name");
  EXPECT_EQ(ZoneOffsetAt("Mars/Olympus_Mons", t).status().message(), "unknown time zone Mars/Olympus_Mons");
  if (!std::filesystem::exists("/usr/share/zoneinfo/America/New_York")) GTEST_SKIP() << "no tzdata";
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", t), -5 * 3600);
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", TimeFromUnix(1719792000)), -4 * 3600);  // 2024-07-01
  // 2100-07-01, after the file's last transition: the POSIX rule in its footer.
  EXPECT_EQ(*ZoneOffsetAt("America/New_York", TimeFromUnix(4118083200)), -4 * 3600);
}

}  // namespace
}  // namespace dra::cel::lib
