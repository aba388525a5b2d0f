// Object metadata shared by every kind (k8s.io/apimachinery meta/v1), plus the
// conventions all api structs follow.
//
// Conventions of the api structs (meta.h, core.h, resource.h):
//   1. Plain aggregates with `operator==` defaulted. Field names are the JSON
//      names in snake_case (`deviceClassName` -> `device_class_name`); names that
//      are C++ keywords get a trailing underscore, as protobuf does
//      (`namespace` -> `namespace_`, `operator` -> `operator_`, `default` -> `default_`).
//   2. Go pointer fields (`*bool`, `*int64`, `*string`, `*Struct`) are
//      std::optional (or Box<T> for large, rarely-set structs). Go value fields
//      are plain values whose zero value means unset, exactly as in Go
//      (`count` is an int64 with omitempty upstream, so 0 means "not given").
//   3. Lists are std::vector; string-keyed maps are FlatMap.
//   4. Quantities are quantity::Quantity; timestamps are the RFC 3339 text as
//      written (empty = unset); UIDs are strings.
//   5. Enum-typed strings are EnumString<E> (api/enum_string.h): the text as
//      written plus typed access, so unknown values survive.
//   6. Free-form JSON (opaque driver parameters, device status data) is a
//      RawJson: compact JSON text, keys in input order, no insignificant spaces.
//   7. core/v1 and meta/v1 structs keep the fields we do not model in
//      `RawFields extra` (JSON field name -> compact JSON) so that nothing a
//      user wrote is lost; the encoder writes them back in Go field order.
//      resource.k8s.io structs model every field, so they have no `extra`.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/enum_string.h"
#include "api/flat_map.h"

namespace dra::api {

// Compact JSON text of a free-form value (an object, list or scalar), e.g.
// `{"kind":"GpuConfig","sharing":{"strategy":"TimeSlicing"}}`. Empty = unset.
using RawJson = std::string;

// Unmodelled JSON fields of a core/meta struct: field name -> compact JSON.
using RawFields = FlatMap<RawJson>;

// Where an object came from, for messages ("nodes.yaml:12:3"). Provenance is not
// part of an object's value: operator== always returns true, so two objects
// decoded from different files (or built in code) compare equal when their
// fields do.
struct SourceRef {
  std::shared_ptr<const std::string> file{};  // may be null (built in code)
  uint32_t line = 0;                          // 1-based; 0 = unknown
  uint32_t column = 0;

  friend bool operator==(const SourceRef&, const SourceRef&) { return true; }
};

// meta/v1 OwnerReference.
struct OwnerReference {
  std::string api_version{};
  std::string kind{};
  std::string name{};
  std::string uid{};
  std::optional<bool> controller{};
  std::optional<bool> block_owner_deletion{};

  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

// meta/v1 ObjectMeta. Unmodelled fields (selfLink, deletionGracePeriodSeconds,
// managedFields, and any newer ones) are kept in `extra`.
struct ObjectMeta {
  std::string name{};
  std::string generate_name{};
  std::string namespace_{};
  std::string uid{};
  std::string resource_version{};
  int64_t generation = 0;
  std::string creation_timestamp{};  // RFC 3339; empty = unset
  std::string deletion_timestamp{};  // RFC 3339; empty = unset
  FlatMap<std::string> labels{};
  FlatMap<std::string> annotations{};
  std::vector<OwnerReference> owner_references{};
  std::vector<std::string> finalizers{};
  RawFields extra{};

  SourceRef source{};  // not part of equality (see SourceRef)

  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

enum class ConditionStatus { kTrue, kFalse, kUnknown };
template <>
struct EnumTraits<ConditionStatus> {
  static constexpr std::array<std::string_view, 3> kNames = {"True", "False", "Unknown"};
};

// meta/v1 Condition (claim device status, DeviceTaintRule status).
struct Condition {
  std::string type{};
  EnumString<ConditionStatus> status{};
  int64_t observed_generation = 0;
  std::string last_transition_time{};  // RFC 3339
  std::string reason{};
  std::string message{};

  friend bool operator==(const Condition&, const Condition&) = default;
};

}  // namespace dra::api
