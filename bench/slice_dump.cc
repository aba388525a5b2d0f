#include "bench/slice_dump.h"

#include "fmt/format.h"

namespace dra::bench {
namespace {

// A stable pseudo-random hex string (UUID-shaped fields must differ per GPU).
std::string Hex(uint64_t seed, int len) {
  std::string out;
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  for (int i = 0; i < len; ++i) {
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    out.push_back("0123456789abcdef"[x & 15]);
  }
  return out;
}

std::string Uuid(uint64_t seed) {
  std::string h = Hex(seed, 32);
  return fmt::format("GPU-{}-{}-{}-{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4), h.substr(16, 4),
                     h.substr(20, 12));
}

void AppendJsonSlice(int node, int gpus, bool last, std::string& out) {
  std::string name = fmt::format("dgx-h100-{:05d}", node);
  out += fmt::format(
      "        {{\n"
      "            \"apiVersion\": \"resource.k8s.io/v1\",\n"
      "            \"kind\": \"ResourceSlice\",\n"
      "            \"metadata\": {{\n"
      "                \"creationTimestamp\": \"2026-08-07T10:00:00Z\",\n"
      "                \"generateName\": \"{0}-gpu.nvidia.com-\",\n"
      "                \"generation\": 1,\n"
      "                \"name\": \"{0}-gpu.nvidia.com-{1}\",\n"
      "                \"ownerReferences\": [\n"
      "                    {{\n"
      "                        \"apiVersion\": \"v1\",\n"
      "                        \"controller\": true,\n"
      "                        \"kind\": \"Node\",\n"
      "                        \"name\": \"{0}\",\n"
      "                        \"uid\": \"{2}\"\n"
      "                    }}\n"
      "                ],\n"
      "                \"resourceVersion\": \"{3}\",\n"
      "                \"uid\": \"{4}\"\n"
      "            }},\n"
      "            \"spec\": {{\n"
      "                \"devices\": [\n",
      name, Hex(static_cast<uint64_t>(node), 5), Uuid(static_cast<uint64_t>(node) + 1000000).substr(4), 100000 + node,
      Uuid(static_cast<uint64_t>(node) + 2000000).substr(4));
  for (int g = 0; g < gpus; ++g) {
    uint64_t seed = static_cast<uint64_t>(node) * 64 + static_cast<uint64_t>(g);
    int numa = g < gpus / 2 ? 0 : 1;
    out += fmt::format(
        "                    {{\n"
        "                        \"attributes\": {{\n"
        "                            \"addressingMode\": {{\"string\": \"HMM\"}},\n"
        "                            \"architecture\": {{\"string\": \"Hopper\"}},\n"
        "                            \"brand\": {{\"string\": \"Nvidia\"}},\n"
        "                            \"cudaComputeCapability\": {{\"version\": \"9.0.0\"}},\n"
        "                            \"cudaDriverVersion\": {{\"version\": \"13.0.0\"}},\n"
        "                            \"driverVersion\": {{\"version\": \"580.95.5\"}},\n"
        "                            \"gpuModuleID\": {{\"int\": {0}}},\n"
        "                            \"partition1\": {{\"int\": {1}}},\n"
        "                            \"partition2\": {{\"int\": {2}}},\n"
        "                            \"partition4\": {{\"int\": {3}}},\n"
        "                            \"partition8\": {{\"int\": 0}},\n"
        "                            \"productName\": {{\"string\": \"NVIDIA H100 80GB HBM3\"}},\n"
        "                            \"resource.kubernetes.io/numaNode\": {{\"int\": {4}}},\n"
        "                            \"resource.kubernetes.io/pciBusID\": {{\"string\": \"0000:{5:02x}:00.0\"}},\n"
        "                            \"resource.kubernetes.io/pcieRoot\": {{\"string\": \"pci0000:{6:02x}\"}},\n"
        "                            \"type\": {{\"string\": \"gpu\"}},\n"
        "                            \"uuid\": {{\"string\": \"{7}\"}}\n"
        "                        }},\n"
        "                        \"capacity\": {{\n"
        "                            \"memory\": {{\"value\": \"81559Mi\"}}\n"
        "                        }},\n"
        "                        \"name\": \"gpu-{8}\"\n"
        "                    }}{9}\n",
        g + 1, 7 + g, 1 + g / 2, 1 + g / 4, numa, 0x1b + g * 0x28, 0x15 + g * 0x22, Uuid(seed), g,
        g + 1 < gpus ? "," : "");
  }
  out += fmt::format(
      "                ],\n"
      "                \"driver\": \"gpu.nvidia.com\",\n"
      "                \"nodeName\": \"{0}\",\n"
      "                \"pool\": {{\n"
      "                    \"generation\": 1,\n"
      "                    \"name\": \"{0}\",\n"
      "                    \"resourceSliceCount\": 1\n"
      "                }}\n"
      "            }}\n"
      "        }}{1}\n",
      name, last ? "" : ",");
}

void AppendYamlSlice(int node, int gpus, std::string& out) {
  std::string name = fmt::format("dgx-h100-{:05d}", node);
  out += fmt::format(
      "- apiVersion: resource.k8s.io/v1\n"
      "  kind: ResourceSlice\n"
      "  metadata:\n"
      "    creationTimestamp: \"2026-08-07T10:00:00Z\"\n"
      "    generation: 1\n"
      "    name: {0}-gpu.nvidia.com-{1}\n"
      "    resourceVersion: \"{2}\"\n"
      "  spec:\n"
      "    devices:\n",
      name, Hex(static_cast<uint64_t>(node), 5), 100000 + node);
  for (int g = 0; g < gpus; ++g) {
    uint64_t seed = static_cast<uint64_t>(node) * 64 + static_cast<uint64_t>(g);
    out += fmt::format(
        "    - attributes:\n"
        "        addressingMode:\n          string: HMM\n"
        "        architecture:\n          string: Hopper\n"
        "        brand:\n          string: Nvidia\n"
        "        cudaComputeCapability:\n          version: 9.0.0\n"
        "        cudaDriverVersion:\n          version: 13.0.0\n"
        "        driverVersion:\n          version: 580.95.5\n"
        "        gpuModuleID:\n          int: {0}\n"
        "        productName:\n          string: NVIDIA H100 80GB HBM3\n"
        "        resource.kubernetes.io/numaNode:\n          int: {1}\n"
        "        resource.kubernetes.io/pciBusID:\n          string: \"0000:{2:02x}:00.0\"\n"
        "        resource.kubernetes.io/pcieRoot:\n          string: pci0000:{3:02x}\n"
        "        type:\n          string: gpu\n"
        "        uuid:\n          string: {4}\n"
        "      capacity:\n        memory:\n          value: 81559Mi\n"
        "      name: gpu-{5}\n",
        g + 1, g < gpus / 2 ? 0 : 1, 0x1b + g * 0x28, 0x15 + g * 0x22, Uuid(seed), g);
  }
  out += fmt::format(
      "    driver: gpu.nvidia.com\n"
      "    nodeName: {0}\n"
      "    pool:\n      generation: 1\n      name: {0}\n      resourceSliceCount: 1\n",
      name);
}

}  // namespace

std::string GenerateSliceDump(int nodes, int gpus, DumpFormat format) {
  std::string out;
  if (format == DumpFormat::kJson) {
    out += "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n";
    for (int n = 0; n < nodes; ++n) AppendJsonSlice(n, gpus, n + 1 == nodes, out);
    out += "    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
  } else {
    out += "apiVersion: v1\nitems:\n";
    for (int n = 0; n < nodes; ++n) AppendYamlSlice(n, gpus, out);
    out += "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
  }
  return out;
}

}  // namespace dra::bench
