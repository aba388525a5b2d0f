#include "migrate/labels.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dra::migrate {
namespace {

const DeviceKind kGpu{.vendor = Vendor::kNvidia,
                      .class_name = "gpu.nvidia.com",
                      .mig_profile = "",
                      .time_sliced = false,
                      .short_name = "gpu",
                      .extended_class_name = "gpu.nvidia.com"};
const DeviceKind kMig{.vendor = Vendor::kNvidia,
                      .class_name = "mig.nvidia.com",
                      .mig_profile = "1g.5gb",
                      .time_sliced = false,
                      .short_name = "mig-1g-5gb",
                      .extended_class_name = "mig-1g.5gb.nvidia.com"};
const DeviceKind kTpu{.vendor = Vendor::kTpu,
                      .class_name = "tpu.google.com",
                      .mig_profile = "",
                      .time_sliced = false,
                      .short_name = "tpu",
                      .extended_class_name = "tpu.google.com"};

struct Case {
  std::string name;
  Requirement req;
  DeviceKind request;
  LabelTranslation::Kind want_kind;
  std::string want;  // the CEL (kSelector) or a part of the reason (kKept)
};

TEST(LabelsTest, TranslatesEachLabelAsTheTableSays) {
  using K = LabelTranslation::Kind;
  const std::string a = "device.attributes['gpu.nvidia.com']";
  const std::string mem = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity(";
  const std::vector<Case> cases = {
      {.name = "product_in_one",
       .req = {.key = "nvidia.com/gpu.product", .op = "In", .values = {"NVIDIA-L4"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = a + ".productName.replace(' ', '-') == 'NVIDIA-L4'"},
      {.name = "product_in_two",
       .req = {.key = "nvidia.com/gpu.product", .op = "In", .values = {"NVIDIA-L4", "NVIDIA-H200"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = a + ".productName.replace(' ', '-') in ['NVIDIA-L4', 'NVIDIA-H200']"},
      {.name = "product_not_in",
       .req = {.key = "nvidia.com/gpu.product", .op = "NotIn", .values = {"Tesla-T4"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = a + ".productName.replace(' ', '-') != 'Tesla-T4'"},
      {.name = "product_shared_suffix",
       .req = {.key = "nvidia.com/gpu.product", .op = "In", .values = {"NVIDIA-L4-SHARED"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = a + ".productName.replace(' ', '-') == 'NVIDIA-L4'"},
      {.name = "product_exists",
       .req = {.key = "nvidia.com/gpu.product", .op = "Exists", .values = {}},
       .request = kGpu,
       .want_kind = K::kRedundant,
       .want = ""},
      {.name = "product_does_not_exist",
       .req = {.key = "nvidia.com/gpu.product", .op = "DoesNotExist", .values = {}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "DoesNotExist"},
      {.name = "memory_equal",
       .req = {.key = "nvidia.com/gpu.memory", .op = "In", .values = {"23034"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = mem + "'23034Mi')) == 0"},
      {.name = "memory_in_two",
       .req = {.key = "nvidia.com/gpu.memory", .op = "In", .values = {"1", "2"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = "(" + mem + "'1Mi')) == 0 || " + mem + "'2Mi')) == 0)"},
      {.name = "memory_lt",
       .req = {.key = "nvidia.com/gpu.memory", .op = "Lt", .values = {"30000"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = mem + "'30000Mi')) < 0"},
      {.name = "memory_of_mig",
       .req = {.key = "nvidia.com/gpu.memory", .op = "Gt", .values = {"30000"}},
       .request = kMig,
       .want_kind = K::kKept,
       .want = "a MIG device publishes only its own slice's"},
      {.name = "memory_not_a_number",
       .req = {.key = "nvidia.com/gpu.memory", .op = "In", .values = {"80G"}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "not a number of MiB"},
      {.name = "family",
       .req = {.key = "nvidia.com/gpu.family", .op = "In", .values = {"hopper"}},
       .request = kMig,
       .want_kind = K::kSelector,
       .want = a + ".architecture.lowerAscii().replace(' ', '-') == 'hopper'"},
      {.name = "count",
       .req = {.key = "nvidia.com/gpu.count", .op = "In", .values = {"8"}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "not a device attribute"},
      {.name = "strategy",
       .req = {.key = "nvidia.com/mig.strategy", .op = "In", .values = {"mixed"}},
       .request = kMig,
       .want_kind = K::kRedundant,
       .want = ""},
      {.name = "present",
       .req = {.key = "nvidia.com/gpu.present", .op = "In", .values = {"true"}},
       .request = kGpu,
       .want_kind = K::kRedundant,
       .want = ""},
      {.name = "other_nvidia_label",
       .req = {.key = "nvidia.com/cuda.driver.major", .op = "In", .values = {"580"}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "cannot map label nvidia.com/cuda.driver.major"},
      {.name = "gke_accelerator",
       .req = {.key = "cloud.google.com/gke-accelerator", .op = "In", .values = {"nvidia-h100-80gb"}},
       .request = kGpu,
       .want_kind = K::kSelector,
       .want = a + ".productName == 'NVIDIA H100 80GB HBM3'"},
      {.name = "gke_accelerator_unknown",
       .req = {.key = "cloud.google.com/gke-accelerator", .op = "In", .values = {"nvidia-x1"}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "GKE accelerator \"nvidia-x1\""},
      {.name = "gke_partition_size",
       .req = {.key = "cloud.google.com/gke-gpu-partition-size", .op = "In", .values = {"1g.5gb"}},
       .request = kMig,
       .want_kind = K::kRedundant,
       .want = ""},
      {.name = "tpu_accelerator",
       .req = {.key = "cloud.google.com/gke-tpu-accelerator", .op = "In", .values = {"tpu-v6e-slice"}},
       .request = kTpu,
       .want_kind = K::kSelector,
       .want = "device.attributes['tpu.google.com'].accelerator == 'tpu-v6e-slice'"},
      {.name = "bad_value",
       .req = {.key = "nvidia.com/gpu.product", .op = "In", .values = {"a'b"}},
       .request = kGpu,
       .want_kind = K::kKept,
       .want = "is not a label value"},
  };
  for (const Case& c : cases) {
    LabelTranslation t = TranslateLabel(c.req, c.request);
    EXPECT_EQ(t.kind, c.want_kind) << c.name << ": " << t.cel << t.reason;
    if (c.want_kind == K::kSelector) {
      EXPECT_EQ(t.cel, c.want) << c.name;
    }
    if (c.want_kind == K::kKept) {
      EXPECT_NE(t.reason.find(c.want), std::string::npos) << c.name << ": " << t.reason;
    }
  }
}

TEST(LabelsTest, VendorsOfLabels) {
  EXPECT_EQ(LabelVendor("nvidia.com/gpu.product"), Vendor::kNvidia);
  EXPECT_EQ(LabelVendor("cloud.google.com/gke-accelerator"), Vendor::kNvidia);
  EXPECT_EQ(LabelVendor("cloud.google.com/gke-tpu-topology"), Vendor::kTpu);
  EXPECT_EQ(LabelVendor("amd.com/gpu.family"), Vendor::kAmd);
  EXPECT_EQ(LabelVendor("cloud.google.com/gke-nodepool"), std::nullopt);
  EXPECT_EQ(LabelVendor("kubernetes.io/arch"), std::nullopt);
}

TEST(LabelsTest, HintsFromSingleStrategyGkeAndSharedProducts) {
  RequestHints h;
  ReadHints({.key = "nvidia.com/gpu.product", .op = "In", .values = {"NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"}}, &h);
  EXPECT_EQ(h.mig_profile, "3g.20gb");
  ReadHints({.key = "nvidia.com/mig.strategy", .op = "In", .values = {"single"}}, &h);
  EXPECT_TRUE(h.single_strategy);
  EXPECT_FALSE(h.time_sliced);
  ReadHints({.key = "cloud.google.com/gke-gpu-sharing-strategy", .op = "In", .values = {"time-sharing"}}, &h);
  EXPECT_TRUE(h.time_sliced);
  RequestHints gke;
  ReadHints({.key = "cloud.google.com/gke-gpu-partition-size", .op = "In", .values = {"1g.5gb"}}, &gke);
  EXPECT_EQ(gke.mig_profile, "1g.5gb");
  RequestHints shared;
  ReadHints({.key = "nvidia.com/gpu.product", .op = "In", .values = {"Tesla-T4-SHARED"}}, &shared);
  EXPECT_TRUE(shared.time_sliced);
  EXPECT_EQ(shared.mig_profile, "");
}

}  // namespace
}  // namespace dra::migrate
