#include "migrate/device_plugin.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "manifest/yaml_parser.h"

namespace dra::migrate {
namespace {

struct Case {
  std::string name{};
  ResourceClass want{};
  std::string class_name{};
  std::string profile{};
  bool time_sliced = false;
  std::string short_name{};
  std::string extended_class{};
};

TEST(DevicePluginTest, ClassifiesResourceNames) {
  const std::vector<Case> cases = {
      {.name = "nvidia.com/gpu",
       .want = ResourceClass::kDevice,
       .class_name = "gpu.nvidia.com",
       .profile = "",
       .time_sliced = false,
       .short_name = "gpu",
       .extended_class = "gpu.nvidia.com"},
      {.name = "nvidia.com/gpu.shared",
       .want = ResourceClass::kDevice,
       .class_name = "gpu.nvidia.com",
       .profile = "",
       .time_sliced = true,
       .short_name = "gpu-shared",
       .extended_class = "gpu.shared.nvidia.com"},
      {.name = "nvidia.com/mig-1g.5gb",
       .want = ResourceClass::kDevice,
       .class_name = "mig.nvidia.com",
       .profile = "1g.5gb",
       .time_sliced = false,
       .short_name = "mig-1g-5gb",
       .extended_class = "mig-1g.5gb.nvidia.com"},
      {.name = "nvidia.com/mig-1g.5gb.me",
       .want = ResourceClass::kDevice,
       .class_name = "mig.nvidia.com",
       .profile = "1g.5gb+me",
       .time_sliced = false,
       .short_name = "mig-1g-5gb-me",
       .extended_class = "mig-1g.5gb.me.nvidia.com"},
      {.name = "nvidia.com/mig-3g.40gb.shared",
       .want = ResourceClass::kDevice,
       .class_name = "mig.nvidia.com",
       .profile = "3g.40gb",
       .time_sliced = true,
       .short_name = "mig-3g-40gb-shared",
       .extended_class = "mig-3g.40gb.shared.nvidia.com"},
      {.name = "google.com/tpu",
       .want = ResourceClass::kDevice,
       .class_name = "tpu.google.com",
       .profile = "",
       .time_sliced = false,
       .short_name = "tpu",
       .extended_class = "tpu.google.com"},
      {.name = "amd.com/gpu",
       .want = ResourceClass::kDevice,
       .class_name = "gpu.amd.com",
       .profile = "",
       .time_sliced = false,
       .short_name = "amd-gpu",
       .extended_class = "gpu.amd.com"},
      {.name = "nvidia.com/mig-big", .want = ResourceClass::kUnknownDevice},
      {.name = "nvidia.com/vgpu", .want = ResourceClass::kUnknownDevice},
      {.name = "amd.com/xgmi", .want = ResourceClass::kUnknownDevice},
      {.name = "cpu", .want = ResourceClass::kOther},
      {.name = "hugepages-2Mi", .want = ResourceClass::kOther},
      {.name = "example.com/foo.shared", .want = ResourceClass::kOther},
  };
  for (const Case& c : cases) {
    DeviceKind kind;
    EXPECT_EQ(ClassifyResource(c.name, {}, &kind), c.want) << c.name;
    if (c.want != ResourceClass::kDevice) continue;
    EXPECT_EQ(kind.class_name, c.class_name) << c.name;
    EXPECT_EQ(kind.mig_profile, c.profile) << c.name;
    EXPECT_EQ(kind.time_sliced, c.time_sliced) << c.name;
    EXPECT_EQ(kind.short_name, c.short_name) << c.name;
    EXPECT_EQ(kind.extended_class_name, c.extended_class) << c.name;
  }
}

manifest::Node Parse(std::string_view text) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseYaml(text, "cm.yaml");
  EXPECT_TRUE(docs.ok());
  return std::move((*docs)[0].root);
}

TEST(DevicePluginTest, ReadsTheTimeSlicingConfigMap) {
  // Two configs: "a100" renames (renameByDefault) and shares a MIG profile
  // under a name of its own; "t4" shares nvidia.com/gpu without renaming and
  // asks for MPS, which is not translated.
  manifest::Node cm = Parse(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: plugin-config
data:
  a100: |
    version: v1
    sharing:
      timeSlicing:
        renameByDefault: true
        resources:
        - name: nvidia.com/gpu
          replicas: 2
        - name: nvidia.com/mig-1g.5gb
          rename: nvidia.com/mig-1g.5gb-ts
          replicas: 2
  t4: |
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 4
      mps:
        resources:
        - name: nvidia.com/gpu
          replicas: 2
)");
  ASSERT_TRUE(IsDevicePluginConfigMap(cm));
  SharingConfig sharing;
  std::vector<manifest::LoadMessage> messages;
  ReadSharingConfigMap(cm, "cm.yaml", "ConfigMap plugin-config", &sharing, &messages);
  EXPECT_EQ(sharing.shared,
            (std::map<std::string, std::string, std::less<>>{{"nvidia.com/gpu", "nvidia.com/gpu"},
                                                             {"nvidia.com/gpu.shared", "nvidia.com/gpu"},
                                                             {"nvidia.com/mig-1g.5gb-ts", "nvidia.com/mig-1g.5gb"}}));
  std::vector<std::string> texts;
  for (const manifest::LoadMessage& m : messages) texts.push_back(m.ToString());
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "cm.yaml:1:1: warning: ConfigMap plugin-config: data[t4]: sharing.mps is not translated: "
                       "dractl expresses only time-slicing (the driver's MPS sharing needs GpuConfig sharing.strategy "
                       "MPS and mpsConfig, which you write by hand)",
                       "cm.yaml:1:1: warning: ConfigMap plugin-config: data: nvidia.com/gpu is time-sliced by config "
                       "t4 but not by a100 (nodes choose a config by their nvidia.com/device-plugin.config label): "
                       "dractl time-slices it in every workload",
                       "cm.yaml:1:1: warning: ConfigMap plugin-config: data: nvidia.com/gpu.shared is time-sliced by "
                       "config a100 but not by t4 (nodes choose a config by their nvidia.com/device-plugin.config "
                       "label): dractl time-slices it in every workload",
                       "cm.yaml:1:1: warning: ConfigMap plugin-config: data: nvidia.com/mig-1g.5gb-ts is time-sliced "
                       "by config a100 but not by t4 (nodes choose a config by their nvidia.com/device-plugin.config "
                       "label): dractl time-slices it in every workload"}));
  DeviceKind kind;
  ASSERT_EQ(ClassifyResource("nvidia.com/gpu", sharing, &kind), ResourceClass::kDevice);
  EXPECT_TRUE(kind.time_sliced);
  ASSERT_EQ(ClassifyResource("nvidia.com/mig-1g.5gb-ts", sharing, &kind), ResourceClass::kDevice);
  EXPECT_EQ(kind.mig_profile, "1g.5gb");
  EXPECT_TRUE(kind.time_sliced);

  EXPECT_FALSE(IsDevicePluginConfigMap(Parse("apiVersion: v1\nkind: ConfigMap\ndata:\n  x: hello\n")));
}

}  // namespace
}  // namespace dra::migrate
