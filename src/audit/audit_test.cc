// One small cluster per finding ID; what each must report is worked out by
// hand from the objects (comments say how).
#include "audit/audit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/defaults.h"
#include "api/features.h"
#include "manifest/loader.h"

namespace dra::audit {
namespace {

using ::testing::HasSubstr;

class AuditTest : public ::testing::Test {
 protected:
  // Loads `yaml` (defaulted, as the CLI does) and audits it.
  std::vector<Finding> Run(const std::string& yaml) {
    manifest::Loader loader(manifest::LoadOptions{});
    loaded_ = manifest::LoadResult{};
    loader.LoadText(yaml, "t.yaml", &loaded_);
    for (const manifest::LoadMessage& m : loaded_.messages) ADD_FAILURE() << m.ToString();
    std::vector<const api::Object*> objects;
    for (manifest::LoadedObject& o : loaded_.objects) {
      api::SetDefaults(o.object, "1970-01-01T00:00:00Z");
      objects.push_back(&o.object);
    }
    const sched::Snapshot s = sched::NewSnapshot(objects, api::FeatureGates::Defaults());
    StatusOr<std::vector<Finding>> f = Audit(s, options_);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? *f : std::vector<Finding>{};
  }

  // The findings of one ID.
  static std::vector<Finding> Of(const std::vector<Finding>& all, const std::string& id) {
    std::vector<Finding> out;
    for (const Finding& f : all) {
      if (f.id == id) out.push_back(f);
    }
    return out;
  }

  AuditOptions options_;
  manifest::LoadResult loaded_;
};

std::string Class(const std::string& name, const std::string& expression) {
  return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name +
         "}\nspec:\n  selectors:\n  - cel: {expression: '" + expression + "'}\n---\n";
}

constexpr char kGpuClass[] = "device.driver == \"gpu.example.com\"";

// A Node of 8 cpu, 32Gi and `pods` slots.
std::string NodeObject(const std::string& name, int pods = 110) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         "}\nstatus:\n  allocatable: {cpu: \"8\", memory: "
         "32Gi, pods: \"" +
         std::to_string(pods) + "\"}\n---\n";
}

// A slice of `driver` on `node` with `devices` (each a YAML flow mapping,
// e.g. "{name: gpu-0}"), named <node>-<driver>.
std::string Slice(const std::string& node, const std::vector<std::string>& devices,
                  const std::string& driver = "gpu.example.com") {
  std::string out = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node + "-" + driver +
                    "}\nspec:\n  driver: " + driver + "\n  nodeName: " + node + "\n  pool: {name: " + node +
                    ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
  for (const std::string& d : devices) out += "  - " + d + "\n";
  return out + "---\n";
}

std::string Node(const std::string& name, const std::vector<std::string>& devices,
                 const std::string& driver = "gpu.example.com", int pods = 110) {
  return NodeObject(name, pods) + Slice(name, devices, driver);
}

std::string Gpu(int i, const std::string& memory = "80Gi") {
  return "{name: gpu-" + std::to_string(i) + ", capacity: {memory: {value: " + memory + "}}}";
}

// tpu's selector names a driver no slice has: it passes none of the 2 GPUs.
TEST_F(AuditTest, ClassMatchesNothing) {
  const auto f = Of(Run(Class("gpu", kGpuClass) + Class("tpu", "device.driver == \"tpu.example.com\"") +
                        Node("n1", {Gpu(0), Gpu(1)})),
                    "class-matches-nothing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].kind, "DeviceClass");
  EXPECT_EQ(f[0].object, "tpu");
  EXPECT_EQ(f[0].field, "spec.selectors");
  EXPECT_EQ(f[0].message, "no device passes its selectors (2 devices in the cluster)");
}

// The NIC of n1 is of a driver no class selects; the GPUs are covered.
TEST_F(AuditTest, DeviceInNoClassPerDriver) {
  const auto f = Of(Run(Class("gpu", kGpuClass) + Node("n1", {Gpu(0)}) +
                        Slice("n1", {"{name: eth0}", "{name: eth1}"}, "nic.example.com")),
                    "device-in-no-class");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].object, "n1-nic.example.com");
  EXPECT_EQ(f[0].message,
            "2 devices of driver nic.example.com on 1 node pass no DeviceClass's selectors, so no claim can ask for "
            "them: nic.example.com/n1/eth0, nic.example.com/n1/eth1");
}

// gpu passes 3 devices; gpu-copy the same 3 (warning); big only the two
// 80Gi ones, a subset of gpu's and of gpu-copy's (info each).
TEST_F(AuditTest, ClassesOverlap) {
  const auto f = Of(Run(Class("gpu", kGpuClass) + Class("gpu-copy", kGpuClass) +
                        Class("big", "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0") +
                        Node("n1", {Gpu(0), Gpu(1), Gpu(2, "24Gi")})),
                    "classes-overlap");
  ASSERT_EQ(f.size(), 3u);
  // Sorted by severity, then object (then as found: gpu's pairs before gpu-copy's).
  EXPECT_EQ(f[0].object, "gpu-copy");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(
      f[0].message,
      "passes exactly the devices DeviceClass gpu passes (3 devices): the two are the same class under two names");
  EXPECT_EQ(f[1].object, "big");
  EXPECT_EQ(f[1].severity, Severity::kInfo);
  EXPECT_EQ(f[1].message,
            "every device it passes (2 devices) DeviceClass gpu passes too (3): claims of either compete for those "
            "devices");
  EXPECT_EQ(f[2].object, "big");
  EXPECT_THAT(f[2].message, HasSubstr("DeviceClass gpu-copy passes too (3)"));
}

// The class reads an attribute gpu-1 lacks: CEL's "no such key" on gpu-1
// alone (gpu-0 has it); the class still passes gpu-0.
TEST_F(AuditTest, SelectorRuntimeErrorNamesTheDevices) {
  const auto all = Run(Class("a100", "device.attributes[\"gpu.example.com\"].model == \"a100\"") +
                       Node("n1", {"{name: gpu-0, attributes: {model: {string: a100}}}", "{name: gpu-1}"}));
  const auto f = Of(all, "selector-runtime-error");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].object, "a100");
  EXPECT_EQ(f[0].field, "spec.selectors[0].cel.expression");
  EXPECT_THAT(f[0].message, HasSubstr("fails on 1 device (gpu.example.com/n1/gpu-1): no such key: model"));
  EXPECT_THAT(f[0].fix, HasSubstr("has("));
  EXPECT_TRUE(Of(all, "class-matches-nothing").empty());
}

// A request selector is evaluated only on the devices its class passes:
// `nic` selects eth0, which has no `memory` capacity, but the claim's class
// is gpu, whose devices all have it; the template's selector reads
// `model`, which gpu-1 lacks: one finding, on the template's field.
TEST_F(AuditTest, RequestSelectorsRunOnTheirClassesDevices) {
  const std::string tmpl =
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ml}\nspec:\n"
      "  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu\n"
      "          selectors:\n          - cel: {expression: 'device.capacity[\"gpu.example.com\"].memory.compareTo("
      "quantity(\"40Gi\")) >= 0'}\n          - cel: {expression: 'device.attributes[\"gpu.example.com\"].model == "
      "\"x\"'}\n---\n";
  const auto f = Of(
      Run(Class("gpu", kGpuClass) + Class("nic", "device.driver == \"nic.example.com\"") + tmpl +
          Node("n1", {"{name: gpu-0, capacity: {memory: {value: 80Gi}}, attributes: {model: {string: x}}}", Gpu(1)})),
      "selector-runtime-error");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "ResourceClaimTemplate");
  EXPECT_EQ(f[0].object, "ml/t");
  EXPECT_EQ(f[0].field, "spec.spec.devices.requests[0].exactly.selectors[1].cel.expression");
  EXPECT_THAT(f[0].message, HasSubstr("fails on 1 device its class passes (gpu.example.com/n1/gpu-1)"));
}

// A comprehension of 200 x 200 steps costs far more than a compare; with the
// warning at 10,000 it is reported and the plain compare (a few units) is not.
TEST_F(AuditTest, SelectorCostHigh) {
  options_.cost_warning = 10'000;
  std::string list = "[";
  for (int i = 0; i < 200; ++i) list += (i ? "," : "") + std::to_string(i);
  list += "]";
  const auto f =
      Of(Run(Class("gpu", kGpuClass) +
             Class("slow", kGpuClass + std::string(" && ") + list + ".all(x, " + list + ".all(y, x + y >= 0))") +
             Node("n1", {Gpu(0)})),
         "selector-cost-high");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].object, "slow");
  EXPECT_EQ(f[0].field, "spec.selectors[0].cel.expression");
  EXPECT_THAT(f[0].message, HasSubstr("on device gpu.example.com/n1/gpu-0"));
}

// 4 GPUs wanted; n1 has 2, n2 has 3: nowhere, n2 nearest (3 of 4). The
// 2-GPU template fits n1 and is not reported.
TEST_F(AuditTest, ClaimFitsNoNodeWithTheNearest) {
  auto tmpl = [](const std::string& name, int count) {
    return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: " + name +
           ", namespace: ml}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly: "
           "{deviceClassName: gpu, count: " +
           std::to_string(count) + "}\n---\n";
  };
  const auto f = Of(Run(Class("gpu", kGpuClass) + tmpl("four", 4) + tmpl("two", 2) + Node("n1", {Gpu(0), Gpu(1)}) +
                        Node("n2", {Gpu(0), Gpu(1), Gpu(2)})),
                    "claim-fits-no-node");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].kind, "ResourceClaimTemplate");
  EXPECT_EQ(f[0].object, "ml/four");
  EXPECT_THAT(f[0].message, HasSubstr("no node can hold it, even with every device free (2 nodes); nearest: node n2"));
  EXPECT_THAT(f[0].message, HasSubstr("needs 4 devices, 3 usable"));
}

// Admin access in ops (no label: error) and in mon (labelled: nothing); in
// an input without Namespaces, a warning per namespace.
TEST_F(AuditTest, AdminAccessNeedsTheNamespaceLabel) {
  auto claim = [](const std::string& ns) {
    return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: watch, namespace: " + ns +
           "}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu, "
           "allocationMode: All, adminAccess: true}\n---\n";
  };
  const std::string cluster = Class("gpu", kGpuClass) + claim("ops") + claim("mon") + Node("n1", {Gpu(0)});
  options_.namespaces = {{.name = "ops", .labels = {}},
                         {.name = "mon", .labels = {{"resource.kubernetes.io/admin-access", "true"}}}};
  options_.namespaces_known = true;
  auto f = Of(Run(cluster), "admin-access-namespace");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].object, "ops/watch");
  EXPECT_EQ(f[0].field, "spec.devices.requests[0].exactly.adminAccess");
  options_ = AuditOptions{};
  f = Of(Run(cluster), "admin-access-namespace");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_THAT(f[0].message, HasSubstr("the input holds no Namespace objects"));
}

// Pool p announces 2 slices and has 1 of generation 2 (the generation-1
// slice is older and ignored); pool q's two slices disagree (2 and 3).
TEST_F(AuditTest, PoolIncomplete) {
  auto slice = [](const std::string& name, const std::string& pool, int gen, int count) {
    return "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + name +
           "}\nspec:\n  driver: gpu.example.com\n  allNodes: true\n  pool: {name: " + pool +
           ", generation: " + std::to_string(gen) + ", resourceSliceCount: " + std::to_string(count) +
           "}\n  devices:\n  - {name: " + name + "-d}\n---\n";
  };
  const auto f = Of(Run(Class("gpu", kGpuClass) + slice("p-old", "p", 1, 1) + slice("p-a", "p", 2, 2) +
                        slice("q-a", "q", 1, 2) + slice("q-b", "q", 1, 3)),
                    "pool-incomplete");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].object, "p-a");
  EXPECT_THAT(f[0].message, HasSubstr("pool gpu.example.com/p (generation 2) has 1 of the 2 slices it announces"));
  EXPECT_EQ(f[1].object, "q-a");
  EXPECT_THAT(f[1].message, HasSubstr("disagree on resourceSliceCount (2, 3)"));
}

// Two GPUs tainted NoSchedule with one key on two nodes, one NoExecute with
// another: two findings; a PreferNoSchedule-less "None" effect is not one.
TEST_F(AuditTest, DeviceTaintedPerKey) {
  const std::string bad = "taints: [{key: example.com/unhealthy, effect: NoSchedule}]";
  const auto f = Of(Run(Class("gpu", kGpuClass) + Node("n1", {"{name: gpu-0, " + bad + "}", Gpu(1)}) +
                        Node("n2", {"{name: gpu-0, " + bad + "}",
                                    "{name: gpu-1, taints: [{key: example.com/xid, effect: NoExecute}]}"})),
                    "device-tainted");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].object, "taint example.com/unhealthy");
  EXPECT_EQ(f[0].message,
            "2 devices on 2 nodes carry the taint example.com/unhealthy (NoSchedule): n1, n2; new claims cannot get "
            "them");
  EXPECT_EQ(f[1].object, "taint example.com/xid");
  EXPECT_THAT(f[1].message, HasSubstr("1 device on 1 node carries the taint example.com/xid (NoExecute): n2; pods "
                                      "using them are evicted"));
}

// n1 has 2 pod slots, both taken by CPU pods, and 2 free GPUs: stranded.
// n2 has room: not reported.
TEST_F(AuditTest, StrandedDevices) {
  auto pod = [](const std::string& name, const std::string& node) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  nodeName: " + node +
           "\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: \"1\"}}}\n---\n";
  };
  const auto f = Of(Run(Class("gpu", kGpuClass) + Node("n1", {Gpu(0), Gpu(1)}, "gpu.example.com", 2) +
                        Node("n2", {Gpu(0)}) + pod("a", "n1") + pod("b", "n1") + pod("c", "n2")),
                    "stranded-devices");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].object, "n1");
  EXPECT_EQ(f[0].message, "2 of its 2 devices are free, but no pod slot left (2 of 2 pods): no pod can use them");
}

// 116 devices is 90% of 128 (116 * 10 >= 1152); 115 is not.
TEST_F(AuditTest, SliceNearLimit) {
  std::vector<std::string> many, fewer;
  for (int i = 0; i < 116; ++i) many.push_back("{name: d" + std::to_string(i) + "}");
  for (int i = 0; i < 115; ++i) fewer.push_back("{name: d" + std::to_string(i) + "}");
  const auto f = Of(Run(Class("gpu", kGpuClass) + Node("n1", many) + Node("n2", fewer)), "slice-near-limit");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].object, "n1-gpu.example.com");
  EXPECT_EQ(f[0].message, "116 of the 128 devices a slice may hold");
}

// pcieRoot (the driver's own domain) without the standard name: reported;
// a device with both, and one with only the standard name: not.
TEST_F(AuditTest, AttributeNonstandard) {
  const auto f =
      Of(Run(Class("gpu", kGpuClass) +
             Node("n1", {"{name: gpu-0, attributes: {pcieRoot: {string: pci0000:00}}}",
                         "{name: gpu-1, attributes: {pcieRoot: {string: pci0000:00}, "
                         "resource.kubernetes.io/pcieRoot: {string: pci0000:00}}}",
                         "{name: gpu-2, attributes: {resource.kubernetes.io/pcieRoot: {string: pci0000:00}}}"})),
         "attribute-nonstandard");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_THAT(f[0].message, HasSubstr("1 device of driver gpu.example.com carries pcieRoot but not "
                                      "resource.kubernetes.io/pcieRoot"));
  EXPECT_THAT(f[0].message, HasSubstr("(gpu.example.com/n1/gpu-0)"));
}

// Errors first, then warnings, then info.
TEST_F(AuditTest, SortedBySeverity) {
  const auto f = Run(Class("gpu", kGpuClass) + Class("gpu-copy", kGpuClass) +
                     Class("bad", "device.attributes[\"gpu.example.com\"].model == \"x\"") + Node("n1", {Gpu(0)}));
  ASSERT_GE(f.size(), 2u);
  for (size_t i = 1; i < f.size(); ++i) EXPECT_GE(f[i - 1].severity, f[i].severity) << i;
  EXPECT_EQ(f[0].id, "selector-runtime-error");
}

}  // namespace
}  // namespace dra::audit
