#include "migrate/check.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "manifest/emit.h"
#include "manifest/loader.h"
#include "manifest/yaml_parser.h"
#include "migrate/migrate.h"

namespace dra::migrate {
namespace {

manifest::LoadResult Load(std::string_view text) {
  manifest::LoadResult r;
  manifest::Loader({.keep_trees = false, .keep_workloads = true}).LoadText(text, "in.yaml", &r);
  EXPECT_EQ(r.error_count(), 0u) << (r.messages.empty() ? "" : r.messages[0].ToString());
  return r;
}

// n1 runs the device plugin and is labelled as an A10 node, but its driver
// publishes an L4 (a stale label); n2 has an L4 and no device plugin.
constexpr std::string_view kCluster = R"(apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1, nvidia.com/gpu.product: NVIDIA-A10}
status:
  allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {kubernetes.io/hostname: n2}
status:
  allocatable: {cpu: "8", memory: 64Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
  extendedResourceName: nvidia.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: NVIDIA L4}
      type: {string: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n2-gpus}
spec:
  driver: gpu.nvidia.com
  nodeName: n2
  pool: {name: n2, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: NVIDIA L4}
      type: {string: gpu}
)";

// p1 lands on n1 both times (A10 by label before, the L4 after); p2 wants n2,
// which had no device plugin: pending before, placed after.
constexpr std::string_view kWorkloads = R"(apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ml}
spec:
  nodeSelector: {kubernetes.io/hostname: n1}
  containers:
  - name: c
    resources:
      limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: ml}
spec:
  nodeSelector: {kubernetes.io/hostname: n2}
  containers:
  - name: c
    resources:
      limits: {nvidia.com/gpu: 1}
)";

TEST(CheckTest, DifferentKindAndNowFits) {
  CheckInputs in;
  for (manifest::LoadedObject& o : Load(kCluster).objects) in.cluster.push_back(std::move(o.object));
  for (manifest::LoadedObject& o : Load(kWorkloads).objects) in.before_objects.push_back(std::move(o.object));
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseYaml(kWorkloads, "in.yaml");
  ASSERT_TRUE(docs.ok());
  std::vector<SourceObject> objects;
  for (manifest::Document& d : *docs)
    AppendObjects(std::move(d.root), std::make_shared<const std::string>("in.yaml"), &objects);
  MigrateResult migrated = Migrate(
      std::move(objects),
      {.mode = Mode::kClaims, .existing_classes = {{"gpu.nvidia.com", "nvidia.com/gpu"}}, .cluster_known = true});
  ASSERT_EQ(migrated.error_count(), 0u);
  for (manifest::LoadedObject& o : Load(manifest::EmitYamlDocuments(migrated.objects)).objects) {
    in.after_objects.push_back(std::move(o.object));
  }
  StatusOr<CheckReport> report = Check(in, api::FeatureGates::Defaults());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(FormatCheck(*report),
            "POD    BEFORE           AFTER           CHANGE\n"
            "ml/p1  n1 (NVIDIA-A10)  n1 (NVIDIA-L4)  DIFFERENT KIND\n"
            "ml/p2  <pending>        n2 (NVIDIA-L4)  now fits\n"
            "2 pods: 0 on the same kind of device, 1 on a different kind, 0 no longer fit, 1 now fit, 0 pending "
            "before and after, 0 of unknown kind before\n");
}

// Without the device plugin's allocatable, p1 no longer fits after a
// migration whose claims ask for a device n1 does not have.
TEST(CheckTest, NoLongerFitsCarriesTheSchedulerReason) {
  CheckInputs in;
  for (manifest::LoadedObject& o : Load(kCluster).objects) in.cluster.push_back(std::move(o.object));
  manifest::LoadResult before = Load(kWorkloads);
  in.before_objects.push_back(before.objects[0].object);
  // The "migrated" pod asks for a class no node's devices match.
  for (manifest::LoadedObject& o : Load(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: h100, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel: {expression: "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ml}
spec:
  nodeSelector: {kubernetes.io/hostname: n1}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: h100}
  containers:
  - name: c
    resources:
      claims: [{name: gpu}]
)")
                                       .objects) {
    in.after_objects.push_back(std::move(o.object));
  }
  StatusOr<CheckReport> report = Check(in, api::FeatureGates::Defaults());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->pods.size(), 1u);
  EXPECT_EQ(report->pods[0].verdict, PodCheck::Verdict::kNoLongerFits);
  EXPECT_EQ(report->pods[0].before_kind, "NVIDIA-A10");
  EXPECT_EQ(report->pods[0].after_message,
            "0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node "
            "affinity/selector.");
}

}  // namespace
}  // namespace dra::migrate
