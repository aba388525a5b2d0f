// The DeviceClasses the drivers' Helm charts install, for the pools discover
// published (`dractl discover --device-classes`), so that the output alone is
// enough for `dractl schedule`: gpu.nvidia.com (with extendedResourceName
// nvidia.com/gpu), mig.nvidia.com and vfio.gpu.nvidia.com for the NVIDIA
// chart's GPU resources; tpu.google.com; and, for dractl's own generic pool,
// pci.dractl.io. Selector texts are those of testdata/fixtures (from the charts).
#pragma once

#include <vector>

#include "api/resource.h"

namespace dra::discover {

std::vector<api::DeviceClass> DriverDeviceClasses(const std::vector<api::ResourceSlice>& slices);

}  // namespace dra::discover
