// openb trace rows -> DRA objects (`dractl import openb`).
//
//   each node   a core/v1 Node (cpu, memory, pods 1001 as capacity and
//               allocatable) and, if it has GPUs, one ResourceSlice (pool =
//               node name) with one device per GPU: `gpu-<i>`, attributes
//               `model` (string) and `index` (int), a consumable capacity
//               `milli` of 1000 and allowMultipleAllocations, so that several
//               GPU-sharing claims can share one GPU while their milli sum
//               fits and a whole-GPU claim takes the whole device
//   one class   DeviceClass kDeviceClass selecting the driver's devices
//   each pod    a Pod (namespace kNamespace; one container requesting
//               cpu_milli and memory_mib, limits = requests) and, if it uses
//               GPUs, a ResourceClaimTemplate `<pod>-gpu` with one request
//               `gpu`: count num_gpu, a capacity request of gpu_milli for
//               sharing pods (gpu_milli < 1000) and gpu_spec as a CEL
//               selector on `model`; the pod references it as claim `gpu`
//
// The simulator (openb_sim.h) uses the same objects to check its decisions
// with the allocator (dra_check.h).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "api/object.h"
#include "sim/openb.h"

namespace dra::sim {

inline constexpr char kDriver[] = "gpu.openb.dractl.dev";
inline constexpr char kDeviceClass[] = "openb-gpu";
inline constexpr char kNamespace[] = "paib-gpu";
inline constexpr char kCapacityName[] = "milli";
inline constexpr char kClaimName[] = "gpu";
inline constexpr int64_t kMilliPerGpu = 1000;
inline constexpr int64_t kPodsPerNode = 1001;

api::DeviceClass MakeDeviceClass();
api::Node MakeNode(const OpenbNode& node);
// Only for nodes with GPUs.
api::ResourceSlice MakeSlice(const OpenbNode& node);
// The claim spec of a GPU pod (REQUIRES: pod.uses_gpu()).
api::ResourceClaimSpec MakeClaimSpec(const OpenbPod& pod);
// "<pod>-gpu".
std::string TemplateName(const OpenbPod& pod);
api::ResourceClaimTemplate MakeClaimTemplate(const OpenbPod& pod);
api::Pod MakePod(const OpenbPod& pod);

// Every object, in this order: the DeviceClass, per node its Node and slice,
// per pod its template (if any) and Pod.
std::vector<api::Object> ImportOpenb(std::span<const OpenbNode> nodes, std::span<const OpenbPod> pods);

}  // namespace dra::sim
