#include "sim/import.h"

#include "api/defaults.h"
#include "api/validation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/loader.h"

namespace dra::sim {
namespace {

std::vector<OpenbNode> Nodes() {
  return {
      OpenbNode{.name = "openb-node-0000", .cpu_milli = 64000, .memory_mib = 262144, .gpus = 2, .model = "P100"},
      OpenbNode{.name = "openb-node-0001", .cpu_milli = 96000, .memory_mib = 393216, .gpus = 8, .model = "G2"},
      OpenbNode{.name = "openb-node-0002", .cpu_milli = 32000, .memory_mib = 262144, .gpus = 0, .model = ""},
  };
}

std::vector<OpenbPod> Pods() {
  return {
      OpenbPod{
          .name = "p-share", .cpu_milli = 3152, .memory_mib = 1024, .num_gpu = 1, .gpu_milli = 470, .gpu_spec = ""},
      OpenbPod{.name = "p-whole",
               .cpu_milli = 11300,
               .memory_mib = 2048,
               .num_gpu = 2,
               .gpu_milli = 1000,
               .gpu_spec = "V100M16|G2"},
      OpenbPod{.name = "p-cpu", .cpu_milli = 500, .memory_mib = 100, .num_gpu = 0, .gpu_milli = 0, .gpu_spec = ""},
      OpenbPod{.name = "p-t4", .cpu_milli = 500, .memory_mib = 100, .num_gpu = 1, .gpu_milli = 1000, .gpu_spec = "T4"},
  };
}

TEST(ImportTest, ObjectsAsTheIssueDescribes) {
  std::vector<api::Object> objects = ImportOpenb(Nodes(), Pods());
  // class + 3 nodes + 2 slices + 3 templates + 4 pods
  ASSERT_EQ(objects.size(), 13u);
  const auto& slice = std::get<api::ResourceSlice>(objects[4]);
  ASSERT_EQ(slice.spec.devices.size(), 8u);
  const api::Device& d = slice.spec.devices[3];
  EXPECT_EQ(d.name, "gpu-3");
  EXPECT_EQ(d.allow_multiple_allocations, true);
  EXPECT_EQ(d.attributes.find("model")->string_value()->str(), "G2");
  EXPECT_EQ(d.capacity.find("milli")->value.MilliValue(), 1000'000);
  const auto& share = std::get<api::ResourceClaimTemplate>(objects[6]);
  const api::ExactDeviceRequest& req = *share.spec.spec.devices.requests[0].exactly;
  EXPECT_EQ(req.count, 1);
  ASSERT_TRUE(req.capacity.has_value());
  EXPECT_EQ(req.capacity->requests.find("milli")->MilliValue(), 470'000);
  EXPECT_TRUE(req.selectors.empty());
  const auto& whole = std::get<api::ResourceClaimTemplate>(objects[8]);
  const api::ExactDeviceRequest& wreq = *whole.spec.spec.devices.requests[0].exactly;
  EXPECT_EQ(wreq.count, 2);
  EXPECT_FALSE(wreq.capacity.has_value());
  ASSERT_EQ(wreq.selectors.size(), 1u);
  EXPECT_EQ(wreq.selectors[0].cel->expression,
            "device.attributes[\"gpu.openb.dractl.dev\"].model in [\"V100M16\", \"G2\"]");
  const auto& pod = std::get<api::Pod>(objects[9]);
  ASSERT_EQ(pod.spec.resource_claims.size(), 1u);
  EXPECT_EQ(pod.spec.resource_claims[0].resource_claim_template_name, "p-whole-gpu");
  EXPECT_EQ(pod.spec.containers[0].resources.requests.find("cpu")->MilliValue(), 11300);
}

// What `dractl import openb` prints loads back through the manifest loader
// and passes API validation.
TEST(ImportTest, OutputLoadsAndValidates) {
  std::vector<manifest::Node> roots;
  for (const api::Object& o : ImportOpenb(Nodes(), Pods())) roots.push_back(manifest::EncodeObject(o));
  std::string yaml = manifest::EmitYamlDocuments(roots, {.sort_keys = true});
  manifest::LoadResult loaded;
  manifest::Loader({.strict = true, .keep_trees = false, .keep_workloads = false})
      .LoadText(yaml, "import.yaml", &loaded);
  for (const manifest::LoadMessage& m : loaded.messages) ADD_FAILURE() << m.ToString();
  ASSERT_EQ(loaded.objects.size(), 13u);
  api::FeatureGates gates = api::FeatureGates::Defaults();
  for (manifest::LoadedObject& o : loaded.objects) {
    api::SetDefaults(o.object, "2026-01-01T00:00:00Z");
    for (const api::FieldError& e : api::Validate(o.object, gates)) {
      if (e.severity == api::Severity::kError) ADD_FAILURE() << api::ObjectName(o.object) << ": " << e.ToString();
    }
  }
}

}  // namespace
}  // namespace dra::sim
