// The API server's compilation of DRA CEL expressions, for api::Validate:
// upstream pkg/apis/resource/validation validateCELExpression with
// dynamic-resource-allocation's CompileCELExpression, in the NewExpressions
// environment of the gates' release (src/cel/README.md §1):
//
//   parse and type check   Invalid "compilation failed: ERROR: <input>:1:5: ..."
//   result type            Invalid "must evaluate to bool or the unknown type, not int"
//                          (selectors); "must evaluate to a primitive scalar
//                          (string, integer, boolean, semver)[ or a list of
//                          these scalars], not double" (derived attributes)
//   estimated cost         Forbidden "too complex, exceeds cost limit"
//
// plus what the server does not say but the scheduler will hit: a warning for
// each conversion call with constant arguments (`quantity('40GiB')`) whose
// every evaluation fails, and a hint under "undefined field" errors of
// `device.capacity.memory`-style access (maps keyed by the driver's domain).
#pragma once

#include <memory>

#include "api/features.h"
#include "api/validation.h"

namespace dra::cel {

// A checker for `gates` (its release, DRAConsumableCapacity,
// DRAListTypeAttributes); each distinct expression and kind is compiled once.
std::unique_ptr<api::CelExpressionChecker> NewApiServerChecker(const api::FeatureGates& gates);

}  // namespace dra::cel
