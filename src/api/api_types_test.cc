#include <gtest/gtest.h>

#include "api/box.h"
#include "api/enum_string.h"
#include "api/intern.h"
#include "api/object.h"

namespace dra::api {
namespace {

TEST(InternedStringTest, SameTextSamePointer) {
  InternedString a("gpu.nvidia.com/productName");
  InternedString b(std::string("gpu.nvidia.com/") + "productName");
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "gpu.nvidia.com/productName");
  EXPECT_NE(a, InternedString("other"));
  EXPECT_TRUE(InternedString().empty());
  EXPECT_EQ(InternedString(""), InternedString());
  EXPECT_LT(InternedString("a"), InternedString("b"));
  EXPECT_LT(InternedString("a"), std::string_view("b"));
  std::string_view view = a;
  EXPECT_EQ(view, "gpu.nvidia.com/productName");
}

TEST(FlatMapTest, InternedKeysFindByStringView) {
  AttributeMap attributes;
  attributes.insert_or_assign("model", DeviceAttribute::String("a100"));
  attributes.insert_or_assign("index", DeviceAttribute::Int(3));
  ASSERT_NE(attributes.find("model"), nullptr);
  EXPECT_EQ(*attributes.find("model")->string_value(), "a100");
  EXPECT_EQ(attributes.begin()->first, "index");  // sorted
  EXPECT_EQ(attributes.find("missing"), nullptr);
}

TEST(EnumStringTest, KeepsUnknownText) {
  EnumString<AllocationMode> mode("Sometimes");
  EXPECT_FALSE(mode.known());
  EXPECT_EQ(mode.text(), "Sometimes");
  EXPECT_FALSE(mode == AllocationMode::kAll);
  mode = AllocationMode::kAll;
  EXPECT_TRUE(mode == AllocationMode::kAll);
  EXPECT_EQ(mode.value(), AllocationMode::kAll);
  EXPECT_EQ(mode.text(), "All");
  EXPECT_TRUE(EnumString<AllocationMode>().empty());
  EXPECT_EQ(ParseEnum<NodeOperation>("*"), NodeOperation::kAll);
  EXPECT_EQ(EnumName(DeviceTaintEffect::kNoExecute), "NoExecute");
}

TEST(BoxTest, DeepCopyAndEquality) {
  Box<CapacityRequestPolicy> a;
  Box<CapacityRequestPolicy> b;
  EXPECT_EQ(a, b);
  b.emplace();
  EXPECT_NE(a, b);  // engaged with defaults != empty, as for std::optional
  a = b;
  EXPECT_EQ(a, b);
  a->valid_values.push_back(Quantity::FromInt(1));
  EXPECT_NE(a, b);  // a copy, not shared
}

TEST(LazyTest, UnallocatedReadsAsDefault) {
  Device d1;
  Device d2;
  EXPECT_TRUE(d1.rare->taints.empty());
  EXPECT_FALSE(d1.rare.allocated());
  d2.rare.mut();  // allocated but empty: still equal
  EXPECT_EQ(d1, d2);
  d2.rare.mut().taints.push_back({.key = "k", .effect = DeviceTaintEffect::kNoSchedule});
  EXPECT_NE(d1, d2);
  Device d3 = d2;
  EXPECT_EQ(d3, d2);
  d3.rare.mut().taints[0].value = "v";
  EXPECT_NE(d3, d2);
}

TEST(DeviceAttributeTest, TypedAccess) {
  DeviceAttribute none;
  EXPECT_EQ(none.type(), DeviceAttribute::Type::kNone);
  EXPECT_EQ(DeviceAttributeTypeName(none.type()), "");
  DeviceAttribute v = DeviceAttribute::VersionOf("1.2.3");
  EXPECT_EQ(v.type(), DeviceAttribute::Type::kVersion);
  EXPECT_EQ(v.string_value(), nullptr);
  EXPECT_EQ(*v.version_value(), "1.2.3");
  EXPECT_NE(v, DeviceAttribute::String("1.2.3"));
  DeviceAttribute list = DeviceAttribute::Strings({"a", "b"});
  EXPECT_TRUE(list.is_list());
  EXPECT_EQ(list.strings()->size(), 2u);
  EXPECT_EQ(list, DeviceAttribute::Strings({"a", "b"}));
  EXPECT_NE(list, DeviceAttribute::Strings({"a"}));
  EXPECT_EQ(DeviceAttributeTypeName(list.type()), "strings");
  EXPECT_EQ(*DeviceAttribute::Int(-5).int_value(), -5);
  EXPECT_EQ(*DeviceAttribute::Bools({true}).bools(), std::vector<bool>{true});
}

TEST(MetaTest, SourceIsNotPartOfEquality) {
  ObjectMeta a{.name = "x"};
  ObjectMeta b{.name = "x"};
  b.source = {std::make_shared<const std::string>("f.yaml"), 3, 4};
  EXPECT_EQ(a, b);
  b.extra.insert_or_assign("selfLink", "\"/x\"");
  EXPECT_NE(a, b);
}

TEST(ObjectTest, KindAndMeta) {
  Object object = ResourceClaim{.metadata = {.name = "c", .namespace_ = "ns"}};
  EXPECT_EQ(KindOf(object), Kind::kResourceClaim);
  EXPECT_EQ(KindName(object), "ResourceClaim");
  EXPECT_EQ(ObjectName(object), "ns/c");
  MetaOf(object).labels.insert_or_assign("a", "b");
  EXPECT_EQ(std::get<ResourceClaim>(object).metadata.labels.size(), 1u);
  EXPECT_EQ(ParseKind("Pod"), Kind::kPod);
  EXPECT_EQ(ParseKind("pod"), std::nullopt);
  EXPECT_EQ(ApiVersionFor(Kind::kNode), "v1");
  EXPECT_EQ(ApiVersionFor(Kind::kDeviceTaintRule), "resource.k8s.io/v1");
  Object slice = ResourceSlice{.metadata = {.name = "s"}};
  EXPECT_EQ(ObjectName(slice), "s");
  EXPECT_EQ(static_cast<size_t>(KindOf(Object(SchedulingWorkload{}))), std::variant_size_v<Object> - 1);
  // scheduling.k8s.io: namespaced, written as v1beta1; the Workload kind is
  // spelled "Workload" (the C++ name avoids api::Workload of workload.h).
  Object group = PodGroup{.metadata = {.name = "train", .namespace_ = "ml"}};
  EXPECT_EQ(KindOf(group), Kind::kPodGroup);
  EXPECT_EQ(ObjectName(group), "ml/train");
  EXPECT_EQ(KindName(Object(SchedulingWorkload{})), "Workload");
  EXPECT_EQ(ParseKind("Workload"), Kind::kSchedulingWorkload);
  EXPECT_EQ(ParseKind("PodGroup"), Kind::kPodGroup);
  EXPECT_TRUE(IsNamespaced(Kind::kPodGroup));
  EXPECT_TRUE(IsNamespaced(Kind::kSchedulingWorkload));
  EXPECT_EQ(ApiVersionFor(Kind::kPodGroup), "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(ApiVersionFor(Kind::kSchedulingWorkload), "scheduling.k8s.io/v1beta1");
}

TEST(SizeTest, DeviceStaysSmall) {
  // Recorded so that growth is a conscious decision (see resource.h).
  EXPECT_EQ(sizeof(InternedString), 8u);
  EXPECT_EQ(sizeof(DeviceAttribute), 16u);
  EXPECT_LE(sizeof(DeviceCapacity), 48u);
  EXPECT_LE(sizeof(Device), 96u);
  std::cout << "sizeof(Device)=" << sizeof(Device) << " sizeof(DeviceAttribute)=" << sizeof(DeviceAttribute)
            << " sizeof(DeviceCapacity)=" << sizeof(DeviceCapacity)
            << " sizeof(AttributeMap::value_type)=" << sizeof(AttributeMap::value_type)
            << " sizeof(CapacityMap::value_type)=" << sizeof(CapacityMap::value_type)
            << " sizeof(DeviceRareFields)=" << sizeof(DeviceRareFields)
            << " sizeof(ResourceSlice)=" << sizeof(ResourceSlice) << " sizeof(Pod)=" << sizeof(Pod) << "\n";
}

}  // namespace
}  // namespace dra::api
