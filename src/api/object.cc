#include "api/object.h"

namespace dra::api {

Kind KindOf(const Object& object) { return static_cast<Kind>(object.index()); }

std::string_view KindName(Kind kind) { return EnumName(kind); }

std::optional<Kind> ParseKind(std::string_view name) { return ParseEnum<Kind>(name); }

bool IsNamespaced(Kind kind) {
  return kind == Kind::kResourceClaim || kind == Kind::kResourceClaimTemplate || kind == Kind::kPod ||
         kind == Kind::kPodGroup || kind == Kind::kSchedulingWorkload;
}

std::string_view ApiVersionFor(Kind kind) {
  switch (kind) {
    case Kind::kNode:
    case Kind::kPod: return "v1";
    case Kind::kPodGroup:
    case Kind::kSchedulingWorkload:
      // dractl writes the Workload API's beta version (v1alpha3 is read too).
      return "scheduling.k8s.io/v1beta1";
    default: return "resource.k8s.io/v1";
  }
}

const ObjectMeta& MetaOf(const Object& object) {
  return std::visit([](const auto& o) -> const ObjectMeta& { return o.metadata; }, object);
}

ObjectMeta& MetaOf(Object& object) {
  return std::visit([](auto& o) -> ObjectMeta& { return o.metadata; }, object);
}

std::string ObjectName(const Object& object) {
  const ObjectMeta& meta = MetaOf(object);
  if (!IsNamespaced(KindOf(object))) return meta.name;
  return meta.namespace_ + "/" + meta.name;
}

}  // namespace dra::api
