// Measures the heap cost of devices as the benchmark loads them: 5,000 nodes
// with 8 GPUs each, every GPU published with the attribute set of the NVIDIA
// driver (testdata/fixtures/nvidia/node-dgx-h100.yaml). Target: < 1 KiB per
// device, slice and pool overhead included.
//
// Counts bytes through a replaced global operator new, so this test is its own
// binary.
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/resource.h"

namespace {
std::atomic<int64_t> g_heap_bytes{0};
}  // namespace

void* operator new(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  g_heap_bytes += static_cast<int64_t>(malloc_usable_size(p));
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_heap_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace dra::api {
namespace {

std::string Hex(unsigned v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*x", width, v);
  return buf;
}

Device MakeGpu(int node, int gpu) {
  Device d;
  d.name = "gpu-" + std::to_string(gpu);
  unsigned id = static_cast<unsigned>(node * 8 + gpu);
  AttributeMap& a = d.attributes;
  a.Append("addressingMode", DeviceAttribute::String("HMM"));
  a.Append("architecture", DeviceAttribute::String("Hopper"));
  a.Append("brand", DeviceAttribute::String("Nvidia"));
  a.Append("cudaComputeCapability", DeviceAttribute::VersionOf("9.0.0"));
  a.Append("cudaDriverVersion", DeviceAttribute::VersionOf("13.0.0"));
  a.Append("driverVersion", DeviceAttribute::VersionOf("580.95.5"));
  a.Append("gpuModuleID", DeviceAttribute::Int(gpu + 1));
  a.Append("partition1", DeviceAttribute::Int(7 + gpu));
  a.Append("partition2", DeviceAttribute::Int(3 + gpu / 2));
  a.Append("partition4", DeviceAttribute::Int(1 + gpu / 4));
  a.Append("partition8", DeviceAttribute::Int(0));
  a.Append("productName", DeviceAttribute::String("NVIDIA H100 80GB HBM3"));
  a.Append("resource.kubernetes.io/numaNode", DeviceAttribute::Int(gpu / 4));
  a.Append("resource.kubernetes.io/pciBusID",
           DeviceAttribute::String("0000:" + Hex(static_cast<unsigned>(0x1b + gpu * 0x28), 2) + ":00.0"));
  a.Append("resource.kubernetes.io/pcieRoot",
           DeviceAttribute::String("pci0000:" + Hex(static_cast<unsigned>(0x15 + gpu * 0x22), 2)));
  a.Append("type", DeviceAttribute::String("gpu"));
  a.Append("uuid", DeviceAttribute::String("GPU-" + Hex(id, 8) + "-9850-565d-a0df-7d7ad6ecc9ba"));
  EXPECT_TRUE(a.Finish());
  d.capacity.Append("memory", DeviceCapacity{.value = Quantity::FromInt(81559LL << 20)});
  EXPECT_TRUE(d.capacity.Finish());
  return d;
}

TEST(DeviceMemoryTest, GpuNodesStayUnderOneKiBPerDevice) {
  constexpr int kNodes = 5000;
  constexpr int kGpus = 8;
  int64_t before = g_heap_bytes.load();
  std::vector<ResourceSlice> slices;
  slices.reserve(kNodes);
  for (int node = 0; node < kNodes; ++node) {
    ResourceSlice slice;
    std::string node_name = "gpu-node-" + std::to_string(node);
    slice.metadata.name = "00000-gpu.nvidia.com-" + node_name + "-zs6nd";
    slice.spec.driver = "gpu.nvidia.com";
    slice.spec.node_name = node_name;
    slice.spec.pool = {.name = node_name, .generation = 1, .resource_slice_count = 1};
    slice.spec.devices.reserve(kGpus);
    for (int gpu = 0; gpu < kGpus; ++gpu) slice.spec.devices.push_back(MakeGpu(node, gpu));
    slices.push_back(std::move(slice));
  }
  int64_t per_device = (g_heap_bytes.load() - before) / (kNodes * kGpus);
  std::cout << "heap bytes per device (incl. slice, pool, interned strings): " << per_device
            << "; sizeof(Device)=" << sizeof(Device) << "\n";
  EXPECT_LT(per_device, 1024);
}

}  // namespace
}  // namespace dra::api
