// CEL timestamps and durations as cel-go keeps them (a Go time.Time and
// time.Duration, common/types/timestamp.go and duration.go): arithmetic with
// cel-go's overflow checks, Go's printing, and the calendar fields the
// timestamp getters return, in UTC, a fixed offset or an IANA zone read from
// the system's TZif files. Parsing is in time_literal.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "cel/lib/time_literal.h"

namespace dra::cel::lib {

// Go's Time.String(): "2024-01-01 00:00:00 +0000 UTC",
// "2024-01-01 00:00:00.123 +0100 +0100" (fraction without trailing zeros).
std::string FormatGoTime(const CelTime& t);
// Go's t.Format(time.RFC3339Nano), cel-go's string(timestamp):
// "2024-01-01T00:00:00.123+01:00", "...Z" for a zero offset.
std::string FormatRfc3339Nano(const CelTime& t);
// Go's Duration.String(): "1h0m1.5s", "1.5ms", "0s".
std::string FormatGoDuration(int64_t nanos);
// cel-go's string(duration): strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s".
std::string FormatDurationSeconds(int64_t nanos);

// Go's d.Hours(), d.Minutes(), d.Seconds() truncated to int (as cel-go's
// getters do), and d.Milliseconds().
int64_t DurationHours(int64_t nanos);
int64_t DurationMinutes(int64_t nanos);
int64_t DurationSeconds(int64_t nanos);
int64_t DurationMilliseconds(int64_t nanos);

// cel-go's checked arithmetic. Errors: "integer overflow" (int64 overflow of
// seconds or nanoseconds), "timestamp overflow" (a result outside CEL's
// range).
StatusOr<int64_t> AddDurations(int64_t a, int64_t b);
StatusOr<int64_t> SubtractDurations(int64_t a, int64_t b);
StatusOr<CelTime> AddTimeDuration(const CelTime& t, int64_t nanos);
StatusOr<CelTime> SubtractTimeDuration(const CelTime& t, int64_t nanos);
StatusOr<int64_t> SubtractTimes(const CelTime& a, const CelTime& b);
// -1, 0, 1 by instant.
int CompareTimes(const CelTime& a, const CelTime& b);

// Unix seconds in UTC: cel-go's timestamp(int). REQUIRES: within range.
CelTime TimeFromUnix(int64_t seconds);

// The calendar fields of an instant at a given offset (Go's Year, Month,
// Day, YearDay, Weekday, Hour, Minute, Second, Nanosecond).
struct CivilTime {
  int64_t year = 0;
  int month = 0;    // 1-12
  int day = 0;      // 1-31
  int yday = 0;     // 1-366
  int weekday = 0;  // Sunday = 0
  int hour = 0, minute = 0, second = 0;
  int32_t nanos = 0;
};
CivilTime ToCivil(const CelTime& t, int32_t offset);

// The offset east of UTC, in seconds, that zone `tz` has at the instant `t`
// (cel-go's inTimeZone): "" and "UTC" are UTC; a string with ':' is
// "[+-]hh:mm" read with Go's strconv.Atoi; anything else is an IANA name
// looked up in the TZif files under /usr/share/zoneinfo (Go's
// time.LoadLocation). Errors carry Go's messages ("unknown time zone X",
// `strconv.Atoi: parsing "x": invalid syntax`).
StatusOr<int32_t> ZoneOffsetAt(std::string_view tz, const CelTime& t);

}  // namespace dra::cel::lib
