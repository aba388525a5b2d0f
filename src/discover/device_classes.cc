#include "discover/device_classes.h"

#include <set>
#include <string>

namespace dra::discover {
namespace {

api::DeviceClass Class(std::string name, std::string expression,
                       std::optional<std::string> extended_resource_name = std::nullopt) {
  api::DeviceClass c;
  c.metadata.name = std::move(name);
  api::DeviceSelector selector;
  selector.cel = api::CelDeviceSelector{std::move(expression)};
  c.spec.selectors.push_back(std::move(selector));
  c.spec.extended_resource_name = std::move(extended_resource_name);
  return c;
}

}  // namespace

std::vector<api::DeviceClass> DriverDeviceClasses(const std::vector<api::ResourceSlice>& slices) {
  std::set<std::string> drivers;
  for (const api::ResourceSlice& s : slices) drivers.insert(s.spec.driver);
  std::vector<api::DeviceClass> out;
  if (drivers.count("gpu.nvidia.com")) {
    for (const char* type : {"gpu", "mig", "vfio"}) {
      std::string name = std::string(type) == "gpu"   ? "gpu.nvidia.com"
                         : std::string(type) == "mig" ? "mig.nvidia.com"
                                                      : "vfio.gpu.nvidia.com";
      out.push_back(Class(name,
                          "device.driver == 'gpu.nvidia.com' && "
                          "device.attributes['gpu.nvidia.com'].type == '" +
                              std::string(type) + "'",
                          std::string(type) == "gpu" ? std::optional<std::string>("nvidia.com/gpu") : std::nullopt));
    }
  }
  if (drivers.count("tpu.google.com")) {
    out.push_back(Class("tpu.google.com", "device.driver == \"tpu.google.com\""));
  }
  if (drivers.count("pci.dractl.io")) {
    out.push_back(Class("pci.dractl.io", "device.driver == 'pci.dractl.io'"));
  }
  return out;
}

}  // namespace dra::discover
