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
#include "api/scheduling.h"

namespace dra::api {

using Object = std::variant<DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate, DeviceTaintRule, Node,
                            Pod, PodGroup, SchedulingWorkload>;

// One enumerator per Object alternative, in the same order
// (static_cast<Kind>(object.index()) == KindOf(object)). The kind name of
// kSchedulingWorkload is "Workload" (scheduling.k8s.io); the decoder tells it
// from other kinds of that name by its apiVersion.
enum class Kind {
  kDeviceClass,
  kResourceSlice,
  kResourceClaim,
  kResourceClaimTemplate,
  kDeviceTaintRule,
  kNode,
  kPod,
  kPodGroup,
  kSchedulingWorkload
};
template <>
struct EnumTraits<Kind> {
  static constexpr std::array<std::string_view, 9> kNames = {
      "DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceTaintRule", "Node",
      "Pod",         "PodGroup",      "Workload"};
};

Kind KindOf(const Object& object);
// "ResourceSlice", "Pod", ...
std::string_view KindName(Kind kind);
inline std::string_view KindName(const Object& object) { return KindName(KindOf(object)); }
// The `kind` spelled `name` (case-sensitive), or nullopt.
std::optional<Kind> ParseKind(std::string_view name);

// True for the namespaced kinds (ResourceClaim, ResourceClaimTemplate, Pod,
// PodGroup, Workload).
bool IsNamespaced(Kind kind);

// The apiVersion dractl writes for `kind`: "resource.k8s.io/v1", "v1", or
// "scheduling.k8s.io/v1beta1" for PodGroup and Workload (also read from
// v1alpha3, which has the same schema; v1beta1 is the version 1.37 serves
// once GenericWorkload is beta).
std::string_view ApiVersionFor(Kind kind);

const ObjectMeta& MetaOf(const Object& object);
ObjectMeta& MetaOf(Object& object);

// "<namespace>/<name>" for namespaced objects, "<name>" otherwise.
std::string ObjectName(const Object& object);

}  // namespace dra::api
