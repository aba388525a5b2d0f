#include "api/resource.h"

namespace dra::api {

std::string_view DeviceAttributeTypeName(DeviceAttribute::Type type) {
  switch (type) {
    case DeviceAttribute::Type::kNone: return "";
    case DeviceAttribute::Type::kInt: return "int";
    case DeviceAttribute::Type::kBool: return "bool";
    case DeviceAttribute::Type::kString: return "string";
    case DeviceAttribute::Type::kVersion: return "version";
    case DeviceAttribute::Type::kInts: return "ints";
    case DeviceAttribute::Type::kBools: return "bools";
    case DeviceAttribute::Type::kStrings: return "strings";
    case DeviceAttribute::Type::kVersions: return "versions";
  }
  return "";
}

}  // namespace dra::api
