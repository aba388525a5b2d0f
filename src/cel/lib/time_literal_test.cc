// Go's time.ParseDuration and time.Parse(time.RFC3339, ...) (plus CEL's
// timestamp range) accept exactly these. Every expectation was worked out
// from Go's time package source and confirmed with Go 1.26 itself (a
// throwaway program calling time.ParseDuration / time.Parse on the same
// strings, 2026-12-03).
#include "cel/lib/time_literal.h"

#include <gtest/gtest.h>

#include <string_view>

namespace dra::cel::lib {
namespace {

struct Case {
  std::string_view text;
  bool ok;
};

TEST(TimeLiteralTest, Durations) {
  constexpr Case kCases[] = {
      {"0", true},
      {"-0", true},
      {"+0", true},
      {"1s", true},
      {"1.5h", true},
      {"300ms", true},
      {"-1.5h", true},
      {"2h45m", true},
      {"1\xC2\xB5s", true},
      {"1\xCE\xBCs", true},
      {"1us", true},
      {".5s", true},
      {"5.s", true},
      {"1h1h", true},
      {"9223372036854775807ns", true},
      {"9223372036854775808ns", false},
      {"-9223372036854775808ns", true},
      {"2562047h", true},
      {"2562048h", false},
      {"", false},
      {"1", false},
      {"1x", false},
      {"s", false},
      {".s", false},
      {"-.s", false},
      {"1.2.3s", false},
      {"1s ", false},
      {" 1s", false},
      {"1S", false},
      {"+-1s", false},
      {"1h-1m", false},
      {"0.000000000001ns", true},
      {"1e3s", false},
  };
  for (const Case& c : kCases) EXPECT_EQ(IsGoDuration(c.text), c.ok) << '"' << c.text << '"';
}

TEST(TimeLiteralTest, Rfc3339TimestampsInCelRange) {
  constexpr Case kCases[] = {
      {"2020-01-01T00:00:00Z", true},       {"2020-02-29T23:59:59.999999999Z", true},
      {"2020-01-01T1:00:00Z", true},  // Go takes a one-digit hour
      {"2020-01-01T00:00:00,5Z", true},     {"2020-01-01T00:00:00+24:00", true},
      {"0001-01-01T00:00:00Z", true},       {"9999-12-31T23:59:59Z", true},
      {"9999-12-31T23:59:59.999Z", true},   {"bad", false},
      {"2019-02-29T00:00:00Z", false},      {"2020-13-01T00:00:00Z", false},
      {"2020-01-01T24:00:00Z", false},      {"2020-01-01T00:60:00Z", false},
      {"2020-01-01T00:00:60Z", false},      {"2020-01-01 00:00:00Z", false},
      {"2020-01-01t00:00:00Z", false},      {"2020-01-01T00:00:00", false},
      {"2020-01-01T00:00:00+0100", false},  {"0000-12-31T23:59:59Z", false},  // before CEL's range
      {"9999-12-31T23:59:59-00:01", false},                                   // after it, in UTC
      {"0001-01-01T00:00:00+00:01", false},                                   // before it, in UTC
      {"2020-01-01T00:00:00Zjunk", false},  {"2020-1-01T00:00:00Z", false},
      {"2020-01-01T00:00:00+25:00", false}, {"2020-01-01T00:00:00+01:61", false},
      {"2020-01-01T00:00:00.Z", false},     {"2020-01-01T00:00:00z", false},
  };
  for (const Case& c : kCases) EXPECT_EQ(IsCelTimestamp(c.text), c.ok) << '"' << c.text << '"';
}

TEST(TimeLiteralTest, UnixSecondsInCelRange) {
  EXPECT_TRUE(IsCelTimestampSeconds(0));
  EXPECT_TRUE(IsCelTimestampSeconds(-62135596800));  // 0001-01-01T00:00:00Z
  EXPECT_FALSE(IsCelTimestampSeconds(-62135596801));
  EXPECT_TRUE(IsCelTimestampSeconds(253402300799));  // 9999-12-31T23:59:59Z
  EXPECT_FALSE(IsCelTimestampSeconds(253402300800));
}

}  // namespace
}  // namespace dra::cel::lib
