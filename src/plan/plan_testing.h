// Test inputs shared by plan_test and autoscale_test: node groups, pods and
// claim templates as YAML text.
#pragma once

#include <string>

namespace dra::plan::plan_testing {

// A node group of `gpus` GPUs, `cpu` cores and `memory`, at `price`.
inline std::string Group(const std::string& name, int gpus, int cpu, const std::string& memory, double price,
                         int max_size) {
  std::string devices;
  for (int i = 0; i < gpus; ++i) devices += "        - name: gpu-" + std::to_string(i) + "\n";
  return "apiVersion: dractl.io/v1alpha1\n"
         "kind: NodeGroup\n"
         "metadata:\n"
         "  name: " +
         name +
         "\n"
         "spec:\n"
         "  maxSize: " +
         std::to_string(max_size) +
         "\n"
         "  price: " +
         std::to_string(price) +
         "\n"
         "  template:\n"
         "    node:\n"
         "      apiVersion: v1\n"
         "      kind: Node\n"
         "      metadata: {name: template, labels: {kubernetes.io/hostname: template}}\n"
         "      status:\n"
         "        allocatable: {cpu: \"" +
         std::to_string(cpu) + "\", memory: " + memory +
         ", pods: \"110\"}\n"
         "    resourceSlices:\n"
         "    - apiVersion: resource.k8s.io/v1\n"
         "      kind: ResourceSlice\n"
         "      metadata: {name: template-gpus}\n"
         "      spec:\n"
         "        driver: gpu.example.com\n"
         "        nodeName: template\n"
         "        pool: {name: template, generation: 1, resourceSliceCount: 1}\n"
         "        devices:\n" +
         devices;
}

// GPUs of one class; claim templates of 1, 4 and 8 GPUs; pods using them.
inline std::string Pod(const std::string& name, const std::string& tmpl, int cpu, const std::string& memory,
                       int minute) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  creationTimestamp: \"2026-12-01T08:" + (minute < 10 ? "0" : "") +
         std::to_string(minute) +
         ":00Z\"\nspec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: " + tmpl +
         "}\n  containers:\n  - name: main\n    image: x\n    resources:\n      requests: {cpu: \"" +
         std::to_string(cpu) + "\", memory: " + memory + "}\n      claims: [{name: gpu}]\n---\n";
}

inline std::string Template(const std::string& name, int count) {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: " + name +
         ", namespace: default}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly: "
         "{deviceClassName: gpu, count: " +
         std::to_string(count) + "}\n---\n";
}

inline constexpr char kClass[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n"
    "  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n---\n";

// A cluster node with `gpus` GPUs (8 cpu, 32Gi).
inline std::string NodeWithGpus(const std::string& name, int gpus) {
  std::string out = "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
                    "}\nstatus:\n  allocatable: {cpu: \"8\", "
                    "memory: 32Gi, pods: \"110\"}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                    "metadata: {name: " +
                    name + "-gpus}\nspec:\n  driver: gpu.example.com\n  nodeName: " + name +
                    "\n  pool: {name: " + name + ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
  for (int i = 0; i < gpus; ++i) out += "  - name: gpu-" + std::to_string(i) + "\n";
  return out + "---\n";
}

}  // namespace dra::plan::plan_testing
