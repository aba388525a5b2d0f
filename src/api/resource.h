// resource.k8s.io/v1 (DRA) objects: DeviceClass, ResourceSlice, ResourceClaim,
// ResourceClaimTemplate and DeviceTaintRule, with every field of
// k8s.io/api/resource/v1/types.go including the gated 1.34-1.37 ones
// (src/api/README.md §1).
//
// Conventions: see api/meta.h. Every field is modelled, so an unknown field in
// a DRA object is a user error (manifest/decode.h warns about it).
//
// Memory layout of Device (the bulk of a large cluster: 5,000 nodes x 8 GPUs):
//
//   field                       bytes  notes
//   name                          32   std::string (SSO up to 15 chars)
//   attributes                    24   FlatMap; 24 bytes per entry (InternedString
//                                      key + 16-byte DeviceAttribute)
//   capacity                      24   FlatMap; 64 bytes per entry
//   allow_multiple_allocations     2   read by CEL for every device
//   rare                           8   Lazy<DeviceRareFields>: node selection,
//                                      taints, counters, binding conditions,
//                                      node-allocatable resources; allocated only
//                                      when one of them is set
//
// Attribute/capacity/counter names and string/version attribute values are
// InternedStrings (api/intern.h): each distinct text is stored once per process.
// device_memory_test.cc measures the heap cost of a typical GPU device.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/box.h"
#include "api/core.h"
#include "api/enum_string.h"
#include "api/flat_map.h"
#include "api/intern.h"
#include "api/meta.h"
#include "quantity/quantity.h"

namespace dra::api {

// ---------------------------------------------------------------------------
// Enums

enum class AllocationMode { kExactCount, kAll };
template <>
struct EnumTraits<AllocationMode> {
  static constexpr std::array<std::string_view, 2> kNames = {"ExactCount", "All"};
};

// Consumers treat unknown effects like None.
enum class DeviceTaintEffect { kNone, kNoSchedule, kNoExecute };
template <>
struct EnumTraits<DeviceTaintEffect> {
  static constexpr std::array<std::string_view, 3> kNames = {"None", "NoSchedule", "NoExecute"};
};

enum class DeviceTolerationOperator { kExists, kEqual };
template <>
struct EnumTraits<DeviceTolerationOperator> {
  static constexpr std::array<std::string_view, 2> kNames = {"Exists", "Equal"};
};

enum class AllocationConfigSource { kFromClass, kFromClaim };
template <>
struct EnumTraits<AllocationConfigSource> {
  static constexpr std::array<std::string_view, 2> kNames = {"FromClass", "FromClaim"};
};

// [1.37] skipNodeOperations entries; kAll is "*".
enum class NodeOperation { kNodePrepareResources, kNodeUnprepareResources, kAll };
template <>
struct EnumTraits<NodeOperation> {
  static constexpr std::array<std::string_view, 3> kNames = {"NodePrepareResources", "NodeUnprepareResources", "*"};
};

// ---------------------------------------------------------------------------
// Shared pieces

struct CelDeviceSelector {
  std::string expression{};

  friend bool operator==(const CelDeviceSelector&, const CelDeviceSelector&) = default;
};

// Exactly one field today.
struct DeviceSelector {
  std::optional<CelDeviceSelector> cel{};

  friend bool operator==(const DeviceSelector&, const DeviceSelector&) = default;
};

struct OpaqueDeviceConfiguration {
  std::string driver{};
  RawJson parameters{};  // compact JSON; must be an object (validation checks)

  friend bool operator==(const OpaqueDeviceConfiguration&, const OpaqueDeviceConfiguration&) = default;
};

// Upstream embeds DeviceConfiguration{opaque} inline; here `opaque` sits
// directly on each configuration struct.

struct DeviceTaint {
  std::string key{};
  std::string value{};
  EnumString<DeviceTaintEffect> effect{};
  std::string time_added{};  // RFC 3339; empty = unset (defaulted to "now")

  friend bool operator==(const DeviceTaint&, const DeviceTaint&) = default;
};

// An empty operator means Equal (defaulting sets it); an empty key with Exists
// matches every taint; an empty effect matches all effects.
struct DeviceToleration {
  std::string key{};
  EnumString<DeviceTolerationOperator> operator_{};
  std::string value{};
  EnumString<DeviceTaintEffect> effect{};
  std::optional<int64_t> toleration_seconds{};

  friend bool operator==(const DeviceToleration&, const DeviceToleration&) = default;
};

// ---------------------------------------------------------------------------
// DeviceClass

struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque{};

  friend bool operator==(const DeviceClassConfiguration&, const DeviceClassConfiguration&) = default;
};

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors{};
  std::vector<DeviceClassConfiguration> config{};
  std::optional<std::string> extended_resource_name{};  // gate DRAExtendedResource

  friend bool operator==(const DeviceClassSpec&, const DeviceClassSpec&) = default;
};

struct DeviceClass {
  ObjectMeta metadata{};
  DeviceClassSpec spec{};

  friend bool operator==(const DeviceClass&, const DeviceClass&) = default;
};

// ---------------------------------------------------------------------------
// ResourceSlice

// Exactly one of the eight JSON fields `int`, `bool`, `string`, `version`,
// `ints`, `bools`, `strings`, `versions`. kNone (no field set) can be decoded
// and is reported by validation ("exactly one value must be specified").
struct DeviceAttribute {
  enum class Type : uint8_t { kNone, kInt, kBool, kString, kVersion, kInts, kBools, kStrings, kVersions };

  struct Version {
    InternedString text{};  // semver text as written
    friend bool operator==(const Version&, const Version&) = default;
  };
  struct IntList {
    std::vector<int64_t> values{};
    friend bool operator==(const IntList&, const IntList&) = default;
  };
  struct BoolList {
    std::vector<bool> values{};
    friend bool operator==(const BoolList&, const BoolList&) = default;
  };
  struct StringList {
    std::vector<InternedString> values{};
    friend bool operator==(const StringList&, const StringList&) = default;
  };
  struct VersionList {
    std::vector<InternedString> values{};
    friend bool operator==(const VersionList&, const VersionList&) = default;
  };

  // Alternative index == static_cast<size_t>(Type). 16 bytes: lists are boxed.
  using Value = std::variant<std::monostate, int64_t, bool, InternedString, Version, Box<IntList>, Box<BoolList>,
                             Box<StringList>, Box<VersionList>>;
  Value value{};

  static DeviceAttribute Int(int64_t v) { return {Value(std::in_place_index<1>, v)}; }
  static DeviceAttribute Bool(bool v) { return {Value(std::in_place_index<2>, v)}; }
  static DeviceAttribute String(std::string_view v) { return {Value(std::in_place_index<3>, InternedString(v))}; }
  static DeviceAttribute VersionOf(std::string_view v) {
    return {Value(std::in_place_index<4>, Version{InternedString(v)})};
  }
  static DeviceAttribute Ints(std::vector<int64_t> v) {
    return {Value(std::in_place_index<5>, Box<IntList>(IntList{std::move(v)}))};
  }
  static DeviceAttribute Bools(std::vector<bool> v) {
    return {Value(std::in_place_index<6>, Box<BoolList>(BoolList{std::move(v)}))};
  }
  static DeviceAttribute Strings(std::vector<InternedString> v) {
    return {Value(std::in_place_index<7>, Box<StringList>(StringList{std::move(v)}))};
  }
  static DeviceAttribute Versions(std::vector<InternedString> v) {
    return {Value(std::in_place_index<8>, Box<VersionList>(VersionList{std::move(v)}))};
  }

  Type type() const { return static_cast<Type>(value.index()); }
  bool is_list() const { return type() >= Type::kInts; }

  // Typed access: nullptr when the attribute has another type.
  const int64_t* int_value() const { return std::get_if<1>(&value); }
  const bool* bool_value() const { return std::get_if<2>(&value); }
  const InternedString* string_value() const { return std::get_if<3>(&value); }
  const InternedString* version_value() const {
    const Version* v = std::get_if<4>(&value);
    return v ? &v->text : nullptr;
  }
  const std::vector<int64_t>* ints() const {
    const auto* b = std::get_if<5>(&value);
    return b ? &(*b)->values : nullptr;
  }
  const std::vector<bool>* bools() const {
    const auto* b = std::get_if<6>(&value);
    return b ? &(*b)->values : nullptr;
  }
  const std::vector<InternedString>* strings() const {
    const auto* b = std::get_if<7>(&value);
    return b ? &(*b)->values : nullptr;
  }
  const std::vector<InternedString>* versions() const {
    const auto* b = std::get_if<8>(&value);
    return b ? &(*b)->values : nullptr;
  }

  friend bool operator==(const DeviceAttribute&, const DeviceAttribute&) = default;
};

// The JSON field name of `type` ("int", "strings", ...); "" for kNone.
std::string_view DeviceAttributeTypeName(DeviceAttribute::Type type);

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min{};
  std::optional<Quantity> max{};
  std::optional<Quantity> step{};

  friend bool operator==(const CapacityRequestPolicyRange&, const CapacityRequestPolicyRange&) = default;
};

// At most one of valid_values / valid_range (validation checks).
struct CapacityRequestPolicy {
  std::optional<Quantity> default_{};
  std::vector<Quantity> valid_values{};
  std::optional<CapacityRequestPolicyRange> valid_range{};

  friend bool operator==(const CapacityRequestPolicy&, const CapacityRequestPolicy&) = default;
};

struct DeviceCapacity {
  Quantity value{};
  Box<CapacityRequestPolicy> request_policy{};  // gate DRAConsumableCapacity

  friend bool operator==(const DeviceCapacity&, const DeviceCapacity&) = default;
};

struct Counter {
  Quantity value{};

  friend bool operator==(const Counter&, const Counter&) = default;
};

// Maps keyed by QualifiedName / counter name: keys interned (see top of file).
using AttributeMap = FlatMap<DeviceAttribute, InternedString>;
using CapacityMap = FlatMap<DeviceCapacity, InternedString>;
using CounterMap = FlatMap<Counter, InternedString>;

struct CounterSet {
  std::string name{};
  CounterMap counters{};

  friend bool operator==(const CounterSet&, const CounterSet&) = default;
};

struct DeviceCounterConsumption {
  std::string counter_set{};
  CounterMap counters{};
  // [1.37] gate DRADeviceCompatibilityGroups; opaque group names (field
  // `compatibilityGroups` of k8s.io/api/resource/v1/types.go, v0.37.2).
  std::vector<std::string> compatibility_groups{};

  friend bool operator==(const DeviceCounterConsumption&, const DeviceCounterConsumption&) = default;
};

// [1.37] nodeAllocatableResources[...].mapping: either capacity_key +
// capacity_multiplier, or device_multiplier.
struct NodeAllocatableResourceMapping {
  std::optional<std::string> capacity_key{};
  std::optional<Quantity> capacity_multiplier{};
  std::optional<Quantity> device_multiplier{};

  friend bool operator==(const NodeAllocatableResourceMapping&, const NodeAllocatableResourceMapping&) = default;
};

struct NodeAllocatableResourceOverhead {
  std::optional<Quantity> per_pod{};
  std::optional<Quantity> per_container{};

  friend bool operator==(const NodeAllocatableResourceOverhead&, const NodeAllocatableResourceOverhead&) = default;
};

struct NodeAllocatableResource {
  std::optional<NodeAllocatableResourceMapping> mapping{};
  std::optional<NodeAllocatableResourceOverhead> overhead{};

  friend bool operator==(const NodeAllocatableResource&, const NodeAllocatableResource&) = default;
};

// The Device fields that most devices leave unset, boxed together (see the
// layout table at the top of this file).
struct DeviceRareFields {
  std::vector<DeviceCounterConsumption> consumes_counters{};  // gate DRAPartitionableDevices
  std::optional<std::string> node_name{};                     // only with perDeviceNodeSelection
  std::optional<NodeSelector> node_selector{};
  std::optional<bool> all_nodes{};
  std::vector<DeviceTaint> taints{};  // gate DRADeviceTaints
  // gates DRADeviceBindingConditions + DRAResourceClaimDeviceStatus
  std::optional<bool> binds_to_node{};
  std::vector<std::string> binding_conditions{};
  std::vector<std::string> binding_failure_conditions{};
  // [1.37] core resource name (cpu, memory, hugepages-*) -> accounting.
  FlatMap<NodeAllocatableResource> node_allocatable_resources{};

  friend bool operator==(const DeviceRareFields&, const DeviceRareFields&) = default;
};

struct Device {
  std::string name{};
  AttributeMap attributes{};
  CapacityMap capacity{};
  std::optional<bool> allow_multiple_allocations{};  // gate DRAConsumableCapacity
  // Read with `device.rare->taints` (an unset box reads as empty); write with
  // `device.rare.mut().taints`.
  Lazy<DeviceRareFields> rare{};

  friend bool operator==(const Device&, const Device&) = default;
};

struct ResourcePool {
  std::string name{};
  int64_t generation = 0;
  int64_t resource_slice_count = 0;

  friend bool operator==(const ResourcePool&, const ResourcePool&) = default;
};

struct ResourceSliceSpec {
  std::string driver{};
  ResourcePool pool{};
  // Node selection: exactly one of these four (validation checks).
  std::optional<std::string> node_name{};
  std::optional<NodeSelector> node_selector{};
  std::optional<bool> all_nodes{};
  std::vector<Device> devices{};
  std::optional<bool> per_device_node_selection{};  // gate DRAPartitionableDevices
  std::vector<CounterSet> shared_counters{};        // gate DRAPartitionableDevices
  // [1.37] gate DRAPartitionableDevicesType
  std::optional<std::string> partition_type_attribute{};
  // [1.37] gate DRAOptionalNodeOperations
  std::vector<EnumString<NodeOperation>> skip_node_operations{};

  friend bool operator==(const ResourceSliceSpec&, const ResourceSliceSpec&) = default;
};

struct ResourceSlice {
  ObjectMeta metadata{};
  ResourceSliceSpec spec{};

  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};

// ---------------------------------------------------------------------------
// ResourceClaim

struct CapacityRequirements {
  FlatMap<Quantity> requests{};  // QualifiedName -> amount per device

  friend bool operator==(const CapacityRequirements&, const CapacityRequirements&) = default;
};

// [1.37] gate DRADerivedAttributes: a CEL-computed attribute for constraints.
struct DerivedAttribute {
  std::string name{};
  std::string expression{};

  friend bool operator==(const DerivedAttribute&, const DerivedAttribute&) = default;
};

struct ExactDeviceRequest {
  std::string device_class_name{};
  std::vector<DeviceSelector> selectors{};
  EnumString<AllocationMode> allocation_mode{};  // empty until defaulted to ExactCount
  int64_t count = 0;                             // 0 = unset (defaulted to 1 for ExactCount)
  std::optional<bool> admin_access{};
  std::vector<DeviceToleration> tolerations{};
  std::optional<CapacityRequirements> capacity{};
  std::vector<DerivedAttribute> derived_attributes{};

  friend bool operator==(const ExactDeviceRequest&, const ExactDeviceRequest&) = default;
};

// Like ExactDeviceRequest, plus a name and without admin_access.
struct DeviceSubRequest {
  std::string name{};
  std::string device_class_name{};
  std::vector<DeviceSelector> selectors{};
  EnumString<AllocationMode> allocation_mode{};
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations{};
  std::optional<CapacityRequirements> capacity{};
  std::vector<DerivedAttribute> derived_attributes{};

  friend bool operator==(const DeviceSubRequest&, const DeviceSubRequest&) = default;
};

// Exactly one of `exactly` / `first_available` (validation checks).
struct DeviceRequest {
  std::string name{};
  std::optional<ExactDeviceRequest> exactly{};
  std::vector<DeviceSubRequest> first_available{};

  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};

// `requests` empty = all requests; exactly one of match/distinct.
struct DeviceConstraint {
  std::vector<std::string> requests{};
  std::optional<std::string> match_attribute{};
  std::optional<std::string> distinct_attribute{};

  friend bool operator==(const DeviceConstraint&, const DeviceConstraint&) = default;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests{};
  std::optional<OpaqueDeviceConfiguration> opaque{};

  friend bool operator==(const DeviceClaimConfiguration&, const DeviceClaimConfiguration&) = default;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests{};
  std::vector<DeviceConstraint> constraints{};
  std::vector<DeviceClaimConfiguration> config{};

  friend bool operator==(const DeviceClaim&, const DeviceClaim&) = default;
};

struct ResourceClaimSpec {
  DeviceClaim devices{};

  friend bool operator==(const ResourceClaimSpec&, const ResourceClaimSpec&) = default;
};

struct DeviceRequestAllocationResult {
  std::string request{};  // "<request>" or "<request>/<subrequest>"
  std::string driver{};
  std::string pool{};
  std::string device{};
  std::optional<bool> admin_access{};
  std::vector<DeviceToleration> tolerations{};
  std::vector<std::string> binding_conditions{};
  std::vector<std::string> binding_failure_conditions{};
  std::optional<std::string> share_id{};
  FlatMap<Quantity> consumed_capacity{};
  std::vector<EnumString<NodeOperation>> skip_node_operations{};  // [1.37]

  friend bool operator==(const DeviceRequestAllocationResult&, const DeviceRequestAllocationResult&) = default;
};

struct DeviceAllocationConfiguration {
  EnumString<AllocationConfigSource> source{};
  std::vector<std::string> requests{};
  std::optional<OpaqueDeviceConfiguration> opaque{};

  friend bool operator==(const DeviceAllocationConfiguration&, const DeviceAllocationConfiguration&) = default;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results{};
  std::vector<DeviceAllocationConfiguration> config{};

  friend bool operator==(const DeviceAllocationResult&, const DeviceAllocationResult&) = default;
};

struct AllocationResult {
  DeviceAllocationResult devices{};
  std::optional<NodeSelector> node_selector{};  // unset = usable everywhere
  std::string allocation_timestamp{};           // RFC 3339; empty = unset

  friend bool operator==(const AllocationResult&, const AllocationResult&) = default;
};

struct ResourceClaimConsumerReference {
  std::string api_group{};  // empty for core
  std::string resource{};   // "pods"
  std::string name{};
  std::string uid{};

  friend bool operator==(const ResourceClaimConsumerReference&, const ResourceClaimConsumerReference&) = default;
};

struct NetworkDeviceData {
  std::string interface_name{};
  std::vector<std::string> ips{};
  std::string hardware_address{};

  friend bool operator==(const NetworkDeviceData&, const NetworkDeviceData&) = default;
};

struct AllocatedDeviceStatus {
  std::string driver{};
  std::string pool{};
  std::string device{};
  std::optional<std::string> share_id{};
  std::vector<Condition> conditions{};
  RawJson data{};  // compact JSON; empty = unset
  std::optional<NetworkDeviceData> network_data{};

  friend bool operator==(const AllocatedDeviceStatus&, const AllocatedDeviceStatus&) = default;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation{};
  std::vector<ResourceClaimConsumerReference> reserved_for{};
  std::vector<AllocatedDeviceStatus> devices{};

  friend bool operator==(const ResourceClaimStatus&, const ResourceClaimStatus&) = default;
};

struct ResourceClaim {
  ObjectMeta metadata{};
  ResourceClaimSpec spec{};
  ResourceClaimStatus status{};

  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};

// ---------------------------------------------------------------------------
// ResourceClaimTemplate

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata{};  // only labels and annotations are allowed
  ResourceClaimSpec spec{};

  friend bool operator==(const ResourceClaimTemplateSpec&, const ResourceClaimTemplateSpec&) = default;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata{};
  ResourceClaimTemplateSpec spec{};

  friend bool operator==(const ResourceClaimTemplate&, const ResourceClaimTemplate&) = default;
};

// ---------------------------------------------------------------------------
// DeviceTaintRule

// Empty selector = every device; each set field narrows it.
struct DeviceTaintSelector {
  std::optional<std::string> driver{};
  std::optional<std::string> pool{};
  std::optional<std::string> device{};

  friend bool operator==(const DeviceTaintSelector&, const DeviceTaintSelector&) = default;
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector{};  // unset = matches nothing
  DeviceTaint taint{};

  friend bool operator==(const DeviceTaintRuleSpec&, const DeviceTaintRuleSpec&) = default;
};

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions{};

  friend bool operator==(const DeviceTaintRuleStatus&, const DeviceTaintRuleStatus&) = default;
};

struct DeviceTaintRule {
  ObjectMeta metadata{};
  DeviceTaintRuleSpec spec{};
  DeviceTaintRuleStatus status{};

  friend bool operator==(const DeviceTaintRule&, const DeviceTaintRule&) = default;
};

}  // namespace dra::api
