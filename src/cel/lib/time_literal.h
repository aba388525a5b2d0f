// The literal checks behind cel-go's ValidateDurationLiterals and
// ValidateTimestampLiterals (cel-go v0.29 cel/validator.go), which
// Kubernetes' CEL environments run after type-checking (k8s.io/apiserver
// pkg/cel/environment/base.go, from 1.29): `duration('1x')` and
// `timestamp('bad')` with a constant argument are compile errors ("invalid
// duration argument"), so the API server refuses the object.
//
// cel-go evaluates the call; the conversions it runs are Go's:
//   duration(string)   time.ParseDuration
//   timestamp(string)  time.Parse(time.RFC3339, s), then the CEL range
//                      0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z (in UTC)
//   timestamp(int)     Unix seconds within that range
// The predicates say whether the conversion succeeds; the parsers return
// the value (cel/lib/cel_time.h formats and takes apart what they return).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dra::cel::lib {

// Go's time.ParseDuration accepts `s`: [-+]?([0-9]*(\.[0-9]*)?unit)+ or "0",
// units ns, us, µs, μs, ms, s, m, h, within ±(2^63 - 1) ns (-2^63 too).
bool IsGoDuration(std::string_view s);

// Go's time.ParseDuration(s) in nanoseconds, or std::nullopt where it fails.
std::optional<int64_t> ParseGoDuration(std::string_view s);

// A CEL timestamp: an instant (Unix seconds and nanoseconds, nanos in
// [0, 1e9)) and the zone Go's time.Time carries: UTC (offset 0, named
// "UTC") or an unnamed fixed offset east of UTC in seconds.
struct CelTime {
  int64_t seconds = 0;
  int32_t nanos = 0;
  int32_t offset = 0;
  bool utc = true;
};

enum class TimestampParse : uint8_t { kOk, kInvalid, kOutOfRange };

// Go's time.Parse(time.RFC3339, s) and cel-go's range check (kOutOfRange:
// "timestamp overflow"). Sets *out only on kOk.
TimestampParse ParseCelTimestamp(std::string_view s, CelTime* out);

// Go's time.Parse(time.RFC3339, s) accepts `s` and the instant is within
// CEL's timestamp range. Go's parser takes a one-digit hour, a fraction of a
// second of any length after "." or ",", "Z" or a ±hh:mm offset (hours up
// to 24, minutes up to 60), and checks the day against the month.
bool IsCelTimestamp(std::string_view s);

// Unix seconds within CEL's timestamp range.
bool IsCelTimestampSeconds(int64_t seconds);

}  // namespace dra::cel::lib
