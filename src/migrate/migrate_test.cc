// One test per migration case: a small input and the output worked out by
// hand from the rules of migrate.h, labels.h and device_plugin.h.
#include "migrate/migrate.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "manifest/emit.h"
#include "manifest/yaml_parser.h"

namespace dra::migrate {
namespace {

struct Output {
  std::string yaml;
  std::vector<std::string> messages;
  std::vector<std::string> notes;
  size_t errors = 0;
};

Output RunMigrate(std::string_view input, MigrateOptions options) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseYaml(input, "in.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<SourceObject> objects;
  auto file = std::make_shared<const std::string>("in.yaml");
  for (manifest::Document& d : *docs) AppendObjects(std::move(d.root), file, &objects);
  MigrateResult r = Migrate(std::move(objects), options);
  Output out{
      .yaml = manifest::EmitYamlDocuments(r.objects), .messages = {}, .notes = r.notes, .errors = r.error_count()};
  for (const manifest::LoadMessage& m : r.messages) out.messages.push_back(m.ToString());
  return out;
}

// A cluster that has the NVIDIA chart's classes: no DeviceClass is emitted.
MigrateOptions NvidiaCluster() {
  return {.mode = Mode::kClaims,
          .existing_classes = {{"gpu.nvidia.com", "nvidia.com/gpu"}, {"mig.nvidia.com", ""}},
          .cluster_known = true};
}

TEST(MigrateTest, ProductSelectorReplacesNodeSelectorAndLimit) {
  Output out = RunMigrate(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
  replicas: 3
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
        kubernetes.io/arch: amd64
      containers:
      - name: main
        image: cuda
        resources:
          limits:
            nvidia.com/gpu: 2
            cpu: "4"
          requests:
            cpu: "2"
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: trainer-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          count: 2
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].productName.replace('
                ', '-') == 'NVIDIA-H100-80GB-HBM3'
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
  replicas: 3
  template:
    spec:
      nodeSelector:
        kubernetes.io/arch: amd64
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: trainer-gpu
      containers:
      - name: main
        image: cuda
        resources:
          limits:
            cpu: "4"
          requests:
            cpu: "2"
          claims:
          - name: gpu
)");
  EXPECT_TRUE(out.messages.empty());
  EXPECT_TRUE(out.notes.empty());
}

TEST(MigrateTest, FamilyAndMemoryAffinityBecomeSelectorsOtherExpressionsStay) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector:
    nvidia.com/gpu.family: ada-lovelace
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: nvidia.com/gpu.memory
            operator: Gt
            values: ["40959"]
          - key: kubernetes.io/arch
            operator: In
            values: [amd64]
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].architecture.lowerAscii().replace('
                ', '-') == 'ada-lovelace'
          - cel:
              expression: device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40959Mi'))
                > 0
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: kubernetes.io/arch
            operator: In
            values:
            - amd64
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: p-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
)");
  EXPECT_TRUE(out.messages.empty());
}

TEST(MigrateTest, MixedStrategyMigResourceAndMissingClassWithoutCluster) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: notebook
  namespace: lab
spec:
  nodeSelector:
    nvidia.com/mig.strategy: mixed
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
  containers:
  - name: jupyter
    resources:
      limits:
        nvidia.com/mig-1g.5gb: 1
)",
                          {});
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig.nvidia.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type
        == 'mig'
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: notebook-mig-1g-5gb
  namespace: lab
spec:
  spec:
    devices:
      requests:
      - name: mig
        exactly:
          deviceClassName: mig.nvidia.com
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].profile == '1g.5gb'
          - cel:
              expression: device.attributes['gpu.nvidia.com'].productName.replace('
                ', '-') == 'NVIDIA-A100-SXM4-40GB'
---
apiVersion: v1
kind: Pod
metadata:
  name: notebook
  namespace: lab
spec:
  resourceClaims:
  - name: mig-1g-5gb
    resourceClaimTemplateName: notebook-mig-1g-5gb
  containers:
  - name: jupyter
    resources:
      claims:
      - name: mig-1g-5gb
)");
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_EQ(out.notes[0],
            "no --cluster: the output includes the DeviceClasses it uses (mig.nvidia.com); leave out "
            "those your cluster has");
}

TEST(MigrateTest, SingleStrategyProductNamesTheMigProfile) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector:
    nvidia.com/mig.strategy: single
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.5gb
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-gpu
spec:
  spec:
    devices:
      requests:
      - name: mig
        exactly:
          deviceClassName: mig.nvidia.com
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].profile == '1g.5gb'
          - cel:
              expression: device.attributes['gpu.nvidia.com'].productName.replace('
                ', '-') == 'NVIDIA-A100-SXM4-40GB'
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: p-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
)");
  EXPECT_TRUE(out.messages.empty());
}

TEST(MigrateTest, SharedResourceBecomesTimeSlicingConfig) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu.shared: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-gpu-shared
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
      config:
      - requests:
        - gpu
        opaque:
          driver: gpu.nvidia.com
          parameters:
            apiVersion: resource.nvidia.com/v1beta1
            kind: GpuConfig
            sharing:
              strategy: TimeSlicing
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
  - name: gpu-shared
    resourceClaimTemplateName: p-gpu-shared
  containers:
  - name: c
    resources:
      claims:
      - name: gpu-shared
)");
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0],
            "in.yaml:10:9: warning: Pod p: spec.containers[0].resources.limits[nvidia.com/gpu.shared]: "
            "nvidia.com/gpu.shared is time-sliced: the claim's GPU gets the driver's GpuConfig sharing.strategy "
            "TimeSlicing, shared by the containers of one pod; pods no longer share a GPU with other pods (for that, "
            "make them reference one ResourceClaim)");
}

TEST(MigrateTest, ConfigMapWithoutRenameTimeSlicesNvidiaGpu) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: time-slicing-config
  namespace: gpu-operator
data:
  any: |
    version: v1
    sharing:
      timeSlicing:
        renameByDefault: false
        resources:
        - name: nvidia.com/gpu
          replicas: 4
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  // The ConfigMap stays as it was; the pod's nvidia.com/gpu is time-sliced.
  EXPECT_EQ(out.yaml, R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: time-slicing-config
  namespace: gpu-operator
data:
  any: |
    version: v1
    sharing:
      timeSlicing:
        renameByDefault: false
        resources:
        - name: nvidia.com/gpu
          replicas: 4
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
      config:
      - requests:
        - gpu
        opaque:
          driver: gpu.nvidia.com
          parameters:
            apiVersion: resource.nvidia.com/v1beta1
            kind: GpuConfig
            sharing:
              strategy: TimeSlicing
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: p-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
)");
  ASSERT_EQ(out.messages.size(), 1u);  // the time-slicing warning
  EXPECT_NE(out.messages[0].find("nvidia.com/gpu is time-sliced"), std::string::npos) << out.messages[0];
}

TEST(MigrateTest, TpuWithGkeLabels) {
  Output out = RunMigrate(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: tpu
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice
        cloud.google.com/gke-tpu-topology: 2x4
      containers:
      - name: jax
        resources:
          limits:
            google.com/tpu: 8
)",
                          {.mode = Mode::kClaims, .existing_classes = {{"tpu.google.com", ""}}, .cluster_known = true});
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: train-tpu
  namespace: tpu
spec:
  spec:
    devices:
      requests:
      - name: tpu
        exactly:
          deviceClassName: tpu.google.com
          count: 8
          selectors:
          - cel:
              expression: device.attributes['tpu.google.com'].accelerator == 'tpu-v5-lite-podslice'
          - cel:
              expression: device.attributes['tpu.google.com'].topology == '2x4'
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: tpu
spec:
  template:
    spec:
      resourceClaims:
      - name: tpu
        resourceClaimTemplateName: train-tpu
      containers:
      - name: jax
        resources:
          claims:
          - name: tpu
)");
}

TEST(MigrateTest, UnmappableLabelStaysWithWarningAtItsLine) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ml
spec:
  nodeSelector:
    nvidia.com/gpu.count: "8"
    nvidia.com/gpu.product: NVIDIA-H200
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].productName.replace('
                ', '-') == 'NVIDIA-H200'
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ml
spec:
  nodeSelector:
    nvidia.com/gpu.count: "8"
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: p-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
)");
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0],
            "in.yaml:8:5: warning: Pod ml/p: spec.nodeSelector[nvidia.com/gpu.count]: nvidia.com/gpu.count: not "
            "translated, kept as a node constraint (the nodes must keep the label): the number of GPUs on a node is "
            "not a device attribute (a claim's count asks for devices, not for nodes of a size)");
}

TEST(MigrateTest, UnknownDevicePluginResourceIsAnErrorAndStays) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/vgpu: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.errors, 1u);
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0],
            "in.yaml:10:9: Pod p: spec.containers[0].resources.limits[nvidia.com/vgpu]: cannot translate "
            "device-plugin resource nvidia.com/vgpu: dractl knows nvidia.com/gpu, nvidia.com/mig-<profile>, their "
            "time-sliced names (<name>.shared), google.com/tpu and amd.com/gpu; left as it is");
  EXPECT_EQ(out.yaml, R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/vgpu: 1
)");
}

TEST(MigrateTest, EqualRequestsShareATemplatePerNamespace) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: a
  namespace: x
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
---
apiVersion: v1
kind: Service
metadata:
  name: s
  namespace: x
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  namespace: x
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: c
  namespace: other
spec:
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: a-gpu
  namespace: x
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
---
apiVersion: v1
kind: Pod
metadata:
  name: a
  namespace: x
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: a-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
---
apiVersion: v1
kind: Service
metadata:
  name: s
  namespace: x
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  namespace: x
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: a-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: c-gpu
  namespace: other
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
---
apiVersion: v1
kind: Pod
metadata:
  name: c
  namespace: other
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: c-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: gpu
)");
}

TEST(MigrateTest, ContainersGetClaimsOfTheirOwnAndInitContainersReuseEqualOnes) {
  Output out = RunMigrate(R"(apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: 0 2 * * *
  jobTemplate:
    spec:
      template:
        spec:
          initContainers:
          - name: warmup
            resources:
              limits:
                nvidia.com/gpu: 1
          containers:
          - name: main
            resources:
              limits:
                nvidia.com/gpu: 1
          - name: side
            resources:
              limits:
                nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  // Three equal requests: main and side get claims of their own (from one
  // template), warmup uses main's; the claims go before initContainers.
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: nightly-main-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: 0 2 * * *
  jobTemplate:
    spec:
      template:
        spec:
          resourceClaims:
          - name: main-gpu
            resourceClaimTemplateName: nightly-main-gpu
          - name: side-gpu
            resourceClaimTemplateName: nightly-main-gpu
          initContainers:
          - name: warmup
            resources:
              claims:
              - name: main-gpu
          containers:
          - name: main
            resources:
              claims:
              - name: main-gpu
          - name: side
            resources:
              claims:
              - name: side-gpu
)");
}

TEST(MigrateTest, OredTermsAndPreferencesStayWithWarnings) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}
        - matchExpressions:
          - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H200]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        preference:
          matchExpressions:
          - {key: nvidia.com/gpu.family, operator: In, values: [hopper]}
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/gpu: 1
)",
                          NvidiaCluster());
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(out.messages[0],
            "in.yaml:11:13: warning: Pod p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            ".nodeSelectorTerms[0].matchExpressions[0]: nvidia.com/gpu.product: not translated, kept as a node "
            "constraint: the 2 nodeSelectorTerms are ORed, and dractl translates device labels of a single term only");
  EXPECT_EQ(out.messages[1].substr(0, 14), "in.yaml:13:13:");
  EXPECT_EQ(out.messages[2],
            "in.yaml:18:13: warning: Pod p: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
            "[0].preference.matchExpressions[0]: nvidia.com/gpu.family: not translated, kept as a node preference: "
            "DRA has no preferred device selectors (firstAvailable lists alternatives in order, which you write by "
            "hand)");
  // The request has no selector; the affinity is as it was.
  EXPECT_NE(out.yaml.find("          deviceClassName: gpu.nvidia.com\n---\n"), std::string::npos) << out.yaml;
  EXPECT_NE(out.yaml.find("            values:\n            - NVIDIA-H200\n"), std::string::npos) << out.yaml;
}

TEST(MigrateTest, AmdGpuAndItsLabels) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector:
    amd.com/gpu.family: MI300
  containers:
  - name: c
    resources:
      limits:
        amd.com/gpu: 1
)",
                          {.mode = Mode::kClaims, .existing_classes = {}, .cluster_known = true});
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.amd.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.amd.com'
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: p-amd-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.amd.com
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector:
    amd.com/gpu.family: MI300
  resourceClaims:
  - name: amd-gpu
    resourceClaimTemplateName: p-amd-gpu
  containers:
  - name: c
    resources:
      claims:
      - name: amd-gpu
)");
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_NE(out.messages[0].find("amd.com/gpu.family: not translated, kept as a node constraint"), std::string::npos);
  EXPECT_EQ(out.notes, std::vector<std::string>{"the cluster has no DeviceClass gpu.amd.com: added"});
}

TEST(MigrateTest, ExtendedResourceModeKeepsWorkloadsAndEmitsMappedClasses) {
  const std::string input = R"(apiVersion: v1
kind: Pod
metadata:
  name: a
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-L4
  containers:
  - name: c
    resources:
      limits:
        nvidia.com/mig-1g.5gb: 1
        nvidia.com/gpu: 1
)";
  Output out = RunMigrate(
      input, {.mode = Mode::kExtendedResource, .existing_classes = {{"gpu.nvidia.com", ""}}, .cluster_known = true});
  EXPECT_EQ(out.yaml, R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type
        == 'gpu'
  extendedResourceName: nvidia.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig-1g.5gb.nvidia.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type
        == 'mig' && device.attributes['gpu.nvidia.com'].profile == '1g.5gb'
  extendedResourceName: nvidia.com/mig-1g.5gb
---
)" + input);
  EXPECT_EQ(out.notes, (std::vector<std::string>{
                           "DeviceClass gpu.nvidia.com exists without extendedResourceName nvidia.com/gpu: the output "
                           "replaces it",
                           "the cluster has no DeviceClass mig-1g.5gb.nvidia.com: added"}));
  // A class that already maps the resource is used as it is.
  Output served = RunMigrate(
      input, {.mode = Mode::kExtendedResource,
              .existing_classes = {{"gpu.nvidia.com", "nvidia.com/gpu"}, {"mig-1g.5gb", "nvidia.com/mig-1g.5gb"}},
              .cluster_known = true});
  EXPECT_EQ(served.yaml, input);
  EXPECT_EQ(served.notes,
            (std::vector<std::string>{"nvidia.com/gpu is served by the existing DeviceClass gpu.nvidia.com",
                                      "nvidia.com/mig-1g.5gb is served by the existing DeviceClass "
                                      "mig-1g.5gb"}));
}

TEST(MigrateTest, ListsAreFlattenedAndOtherObjectsPassThrough) {
  Output out = RunMigrate(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: s
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
  spec:
    containers:
    - name: c
)",
                          NvidiaCluster());
  EXPECT_EQ(out.yaml, R"(apiVersion: v1
kind: Service
metadata:
  name: s
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
)");
}

}  // namespace
}  // namespace dra::migrate
