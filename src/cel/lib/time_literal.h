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
// These functions say whether the conversion succeeds; dractl's CEL runtime
// has no duration or timestamp values yet.
#pragma once

#include <cstdint>
#include <string_view>

namespace dra::cel::lib {

// Go's time.ParseDuration accepts `s`: [-+]?([0-9]*(\.[0-9]*)?unit)+ or "0",
// units ns, us, µs, μs, ms, s, m, h, within ±(2^63 - 1) ns (-2^63 too).
bool IsGoDuration(std::string_view s);

// Go's time.Parse(time.RFC3339, s) accepts `s` and the instant is within
// CEL's timestamp range. Go's parser takes a one-digit hour, a fraction of a
// second of any length after "." or ",", "Z" or a ±hh:mm offset (hours up
// to 24, minutes up to 60), and checks the day against the month.
bool IsCelTimestamp(std::string_view s);

// Unix seconds within CEL's timestamp range.
bool IsCelTimestampSeconds(int64_t seconds);

}  // namespace dra::cel::lib
