// api::Object: any one API object dractl reads, and helpers over it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "api/core.h"
#include "api/meta.h"
#include "api/resource.h"

namespace dra::api {

using Object = std::variant<DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate,
                            DeviceTaintRule, Node, Pod>;

// One enumerator per Object alternative, in the same order
// (static_cast<Kind>(object.index()) == KindOf(object)).
enum class Kind { kDeviceClass, kResourceSlice, kResourceClaim, kResourceClaimTemplate,
                  kDeviceTaintRule, kNode, kPod };
template <>
struct EnumTraits<Kind> {
  static constexpr std::array<std::string_view, 7> kNames = {
      "DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate",
      "DeviceTaintRule", "Node", "Pod"};
};

Kind KindOf(const Object& object);
// "ResourceSlice", "Pod", ...
std::string_view KindName(Kind kind);
inline std::string_view KindName(const Object& object) { return KindName(KindOf(object)); }
// The `kind` spelled `name` (case-sensitive), or nullopt.
std::optional<Kind> ParseKind(std::string_view name);

// True for the namespaced kinds (ResourceClaim, ResourceClaimTemplate, Pod).
bool IsNamespaced(Kind kind);

// The apiVersion dractl writes for `kind`: "resource.k8s.io/v1" or "v1".
std::string_view ApiVersionFor(Kind kind);

const ObjectMeta& MetaOf(const Object& object);
ObjectMeta& MetaOf(Object& object);

// "<namespace>/<name>" for namespaced objects, "<name>" otherwise.
std::string ObjectName(const Object& object);

}  // namespace dra::api
