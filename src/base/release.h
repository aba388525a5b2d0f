// The Kubernetes releases whose behaviour dractl reproduces, 1.34 to 1.37, and
// the default one. The default is the newest: it is what every flag, option
// struct and call means when no release is given (--kubernetes-version,
// cel::DraEnvOptions::minor, api::FeatureGates::Defaults(), ...).
//
// Not here: the release where a behaviour starts or ends (`minor >= 37` in the
// CEL and validation code), which stays written where that behaviour is.
#pragma once

#include <string_view>

namespace dra {

// The oldest and newest minor releases of Kubernetes 1.x we know.
inline constexpr int kOldestMinor = 34;
inline constexpr int kNewestMinor = 37;

// The default release: its minor number and its "1.<minor>" spelling.
inline constexpr int kDefaultMinor = kNewestMinor;
inline constexpr std::string_view kDefaultRelease = "1.37";

static_assert(kDefaultRelease.size() == 4 && kDefaultRelease.substr(0, 2) == "1." &&
                  (kDefaultRelease[2] - '0') * 10 + (kDefaultRelease[3] - '0') == kDefaultMinor,
              "kDefaultRelease must spell 1.<kDefaultMinor>");

}  // namespace dra
