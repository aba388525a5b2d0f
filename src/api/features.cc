// Gate table of src/api/README.md §8. Maturity decides the default: alpha
// off, beta on unless the table says otherwise (DRADeviceTaintRules,
// DRAWorkloadResourceClaims and GenericWorkload are beta but off by default),
// GA on.
#include "api/features.h"

#include <string>
#include <vector>

#include "base/release.h"

namespace dra::api {
namespace {

constexpr size_t kMinorCount = kNewestMinor - kOldestMinor + 1;

struct Release {
  Maturity maturity;
  bool on;
};

struct GateRow {
  Gate gate;
  std::string_view name;
  std::array<Release, kMinorCount> releases;  // 1.34, 1.35, 1.36, 1.37
};

constexpr Release kNone{Maturity::kAbsent, false};
constexpr Release kAlphaOff{Maturity::kAlpha, false};
constexpr Release kBetaOn{Maturity::kBeta, true};
constexpr Release kBetaOff{Maturity::kBeta, false};
constexpr Release kGAOn{Maturity::kGA, true};
constexpr Release kLocked{Maturity::kGALocked, true};

// Rows are in Gate order, so kGates[i].gate == Gate(i).
// clang-format off
constexpr std::array<GateRow, kGateCount> kGates = {{
    //                                                                   1.34       1.35       1.36       1.37
    {Gate::kDynamicResourceAllocation,    "DynamicResourceAllocation",    {kGAOn,     kLocked,   kLocked,   kLocked}},
    {Gate::kDRAAdminAccess,               "DRAAdminAccess",               {kBetaOn,   kBetaOn,   kLocked,   kLocked}},
    {Gate::kDRAPrioritizedList,           "DRAPrioritizedList",           {kBetaOn,   kBetaOn,   kGAOn,     kLocked}},
    {Gate::kDRAResourceClaimDeviceStatus, "DRAResourceClaimDeviceStatus", {kBetaOn,   kBetaOn,   kBetaOn,   kLocked}},
    {Gate::kDRASchedulerFilterTimeout,    "DRASchedulerFilterTimeout",    {kBetaOn,   kBetaOn,   kBetaOn,   kBetaOn}},
    {Gate::kDRAPartitionableDevices,      "DRAPartitionableDevices",      {kAlphaOff, kAlphaOff, kBetaOn,   kBetaOn}},
    {Gate::kDRADeviceTaints,              "DRADeviceTaints",              {kAlphaOff, kAlphaOff, kBetaOn,   kGAOn}},
    // In 1.34 taint rules were part of DRADeviceTaints and had no gate of their own.
    {Gate::kDRADeviceTaintRules,          "DRADeviceTaintRules",          {kNone,     kAlphaOff, kBetaOff,  kGAOn}},
    {Gate::kDRAConsumableCapacity,        "DRAConsumableCapacity",        {kAlphaOff, kAlphaOff, kBetaOn,   kBetaOn}},
    {Gate::kDRADeviceBindingConditions,   "DRADeviceBindingConditions",   {kAlphaOff, kAlphaOff, kBetaOn,   kBetaOn}},
    {Gate::kDRAExtendedResource,          "DRAExtendedResource",          {kAlphaOff, kAlphaOff, kBetaOn,   kLocked}},
    {Gate::kDRAListTypeAttributes,        "DRAListTypeAttributes",        {kNone,     kNone,     kAlphaOff, kAlphaOff}},
    {Gate::kDRANodeAllocatableResources,  "DRANodeAllocatableResources",  {kNone,     kNone,     kAlphaOff, kAlphaOff}},
    {Gate::kDRAWorkloadResourceClaims,    "DRAWorkloadResourceClaims",    {kNone,     kNone,     kAlphaOff, kBetaOff}},
    {Gate::kDRADerivedAttributes,         "DRADerivedAttributes",         {kNone,     kNone,     kNone,     kAlphaOff}},
    {Gate::kDRADeviceCompatibilityGroups, "DRADeviceCompatibilityGroups", {kNone,     kNone,     kNone,     kAlphaOff}},
    // Beta in 1.37, on only once the minimum compatibility version is 1.37.
    // A 1.37 binary's default minimum compatibility version is 1.36, so a
    // 1.37.2 kube-apiserver without flags runs with it off
    // (kubernetes_feature_enabled 0; tools/difftest --level validation).
    {Gate::kDRAFractionalCapacityRange,   "DRAFractionalCapacityRange",   {kNone,     kNone,     kNone,     kBetaOff}},
    {Gate::kDRAOptionalNodeOperations,    "DRAOptionalNodeOperations",    {kNone,     kNone,     kNone,     kAlphaOff}},
    {Gate::kDRAPartitionableDevicesType,  "DRAPartitionableDevicesType",  {kNone,     kNone,     kNone,     kAlphaOff}},
    // The Workload API (scheduling.k8s.io PodGroup, pod.spec.schedulingGroup, gang scheduling).
    {Gate::kGenericWorkload,              "GenericWorkload",              {kNone,     kAlphaOff, kAlphaOff, kBetaOff}},
    {Gate::kTopologyAwareWorkloadScheduling, "TopologyAwareWorkloadScheduling", {kNone, kNone,   kAlphaOff, kAlphaOff}},
    {Gate::kCompositePodGroup,            "CompositePodGroup",            {kNone,     kNone,     kNone,     kAlphaOff}},
    {Gate::kPodGroupPreemptionPolicy,     "PodGroupPreemptionPolicy",     {kNone,     kNone,     kNone,     kAlphaOff}},
    {Gate::kWorkloadWithJob,              "WorkloadWithJob",              {kNone,     kNone,     kAlphaOff, kAlphaOff}},
}};

// kube_features.go's dependencies of the Workload API gates, each list in
// name order as upstream sorts it (`count` entries of `on` are used).
struct Dependency {
  Gate gate;
  std::array<Gate, 2> on;
  size_t count;
};
constexpr Dependency kDependencies[] = {
    {Gate::kDRAWorkloadResourceClaims,       {Gate::kDynamicResourceAllocation, Gate::kGenericWorkload}, 2},
    {Gate::kTopologyAwareWorkloadScheduling, {Gate::kGenericWorkload, Gate::kGenericWorkload},           1},
    {Gate::kCompositePodGroup,               {Gate::kGenericWorkload, Gate::kTopologyAwareWorkloadScheduling}, 2},
    {Gate::kPodGroupPreemptionPolicy,        {Gate::kGenericWorkload, Gate::kGenericWorkload},           1},
    {Gate::kWorkloadWithJob,                 {Gate::kGenericWorkload, Gate::kGenericWorkload},           1},
};
// clang-format on

constexpr bool RowsInGateOrder() {
  for (size_t i = 0; i < kGates.size(); ++i) {
    if (static_cast<size_t>(kGates[i].gate) != i) return false;
  }
  return true;
}
static_assert(RowsInGateOrder(), "kGates must list the gates in enum order");

const GateRow& Row(Gate gate) { return kGates[static_cast<size_t>(gate)]; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return false;
  return std::nullopt;
}

// "1.36", "v1.36", "1.36.2" -> 36; anything else -> nullopt.
std::optional<int> ParseMinor(std::string_view version) {
  if (!version.empty() && version.front() == 'v') version.remove_prefix(1);
  if (!version.starts_with("1.")) return std::nullopt;
  version.remove_prefix(2);
  size_t dot = version.find('.');
  std::string_view minor = version.substr(0, dot);
  if (dot != std::string_view::npos) {
    std::string_view patch = version.substr(dot + 1);
    if (patch.empty()) return std::nullopt;
    for (char c : patch) {
      if (c < '0' || c > '9') return std::nullopt;
    }
  }
  if (minor.empty() || minor.size() > 3) return std::nullopt;
  int value = 0;
  for (char c : minor) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

FeatureGates FeatureGates::Defaults() {
  StatusOr<FeatureGates> gates = Defaults(kDefaultRelease);
  return *gates;
}

StatusOr<FeatureGates> FeatureGates::Defaults(std::string_view version) {
  std::optional<int> minor = ParseMinor(version);
  if (!minor || *minor < kOldestMinor || *minor > kNewestMinor) {
    return InvalidArgumentError("unsupported Kubernetes version \"" + std::string(version) +
                                "\": feature gate defaults are known for 1." + std::to_string(kOldestMinor) + " to 1." +
                                std::to_string(kNewestMinor));
  }
  FeatureGates gates;
  gates.minor_ = *minor;
  for (const GateRow& row : kGates) {
    gates.enabled_[static_cast<size_t>(row.gate)] = row.releases[static_cast<size_t>(*minor - kOldestMinor)].on;
  }
  return gates;
}

FeatureGates FeatureGates::AllOff() { return FeatureGates(); }

StatusOr<FeatureGates> FeatureGates::FromList(std::span<const std::string> names) {
  FeatureGates gates;
  gates.enabled_[static_cast<size_t>(Gate::kDynamicResourceAllocation)] = true;
  for (const std::string& name : names) DRA_RETURN_IF_ERROR(gates.Set(name, true));
  return gates;
}

StatusOr<FeatureGates> FeatureGates::FromList(std::initializer_list<std::string_view> names) {
  std::vector<std::string> copy(names.begin(), names.end());
  return FromList(std::span<const std::string>(copy));
}

std::string_view FeatureGates::Name(Gate gate) { return Row(gate).name; }

std::optional<Gate> FeatureGates::GateByName(std::string_view name) {
  for (const GateRow& row : kGates) {
    if (row.name == name) return row.gate;
  }
  return std::nullopt;
}

std::string FeatureGates::version() const {
  if (minor_ == 0) return "";
  return "1." + std::to_string(minor_);
}

Maturity FeatureGates::maturity(Gate gate) const {
  if (minor_ == 0) return Maturity::kAlpha;
  return Row(gate).releases[static_cast<size_t>(minor_ - kOldestMinor)].maturity;
}

Status FeatureGates::Set(std::string_view name, bool value) {
  std::optional<Gate> gate = GateByName(name);
  if (!gate) return InvalidArgumentError("unrecognized feature gate: " + std::string(name));
  return Set(*gate, value);
}

Status FeatureGates::Set(Gate gate, bool value) {
  std::string_view name = Name(gate);
  switch (maturity(gate)) {
    case Maturity::kAbsent:
      return InvalidArgumentError("unrecognized feature gate: " + std::string(name) + " (not part of Kubernetes " +
                                  version() + ")");
    case Maturity::kGALocked:
      if (!value) {
        return InvalidArgumentError("cannot set feature gate " + std::string(name) +
                                    " to false, feature is locked to true");
      }
      break;
    default: break;
  }
  enabled_[static_cast<size_t>(gate)] = value;
  return OkStatus();
}

Status FeatureGates::ParseFlag(std::string_view flag) {
  FeatureGates next = *this;
  std::string_view rest = flag;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError("missing bool value for " + std::string(item));
    }
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view text = Trim(item.substr(eq + 1));
    std::optional<bool> value = ParseBool(text);
    if (!value) {
      return InvalidArgumentError("invalid value of " + std::string(name) + "=" + std::string(text) +
                                  ": must be true or false");
    }
    DRA_RETURN_IF_ERROR(next.Set(name, *value));
  }
  DRA_RETURN_IF_ERROR(next.CheckDependencies());
  *this = next;
  return OkStatus();
}

std::span<const Gate> FeatureGates::Dependencies(Gate gate) {
  for (const Dependency& d : kDependencies) {
    if (d.gate == gate) return std::span<const Gate>(d.on.data(), d.count);
  }
  return {};
}

Status FeatureGates::CheckDependencies() const {
  std::string message;
  for (const GateRow& row : kGates) {
    if (!enabled(row.gate)) continue;
    std::string disabled;
    for (Gate dep : Dependencies(row.gate)) {
      if (enabled(dep)) continue;
      if (!disabled.empty()) disabled += ' ';
      disabled += Name(dep);
    }
    if (disabled.empty()) continue;
    if (!message.empty()) message += ", ";
    message += std::string(row.name) + " is enabled, but depends on features that are disabled: [" + disabled + "]";
  }
  if (message.empty()) return OkStatus();
  return InvalidArgumentError(message);
}

std::string FeatureGates::ToString() const {
  std::string out;
  for (const GateRow& row : kGates) {
    if (maturity(row.gate) == Maturity::kAbsent) continue;
    if (!out.empty()) out += ',';
    out += row.name;
    out += enabled(row.gate) ? "=true" : "=false";
  }
  return out;
}

}  // namespace dra::api
