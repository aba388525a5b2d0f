#include "manifest/encode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "manifest/decode.h"
#include "manifest/internal/raw_json.h"

namespace dra::manifest {
namespace {

std::vector<std::string> Keys(const Node& n) {
  std::vector<std::string> keys;
  for (const auto& [k, mark] : n.keys) keys.push_back(k);
  return keys;
}

const Node& At(const Node& n, std::string_view key) {
  const Node* child = n.Find(key);
  EXPECT_NE(child, nullptr) << key;
  static const Node kNull;
  return child ? *child : kNull;
}

using ::testing::ElementsAre;

std::string Json(const Node& n) {
  std::string out;
  const Node* bad = nullptr;
  EXPECT_TRUE(internal::AppendCompactJson(n, &out, &bad));
  return out;
}

TEST(EncodeTest, EmptyObjectsLookLikeKubectlOutput) {
  Node claim = EncodeObject(api::ResourceClaim{.metadata = {.name = "c", .namespace_ = "ns"}});
  EXPECT_EQ(Json(claim), R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
                         R"("metadata":{"name":"c","namespace":"ns","creationTimestamp":null},)"
                         R"("spec":{"devices":{"requests":null}},"status":{}})");
  Node cls = EncodeObject(api::DeviceClass{.metadata = {.name = "x"}});
  EXPECT_EQ(Json(cls), R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",)"
                       R"("metadata":{"name":"x","creationTimestamp":null},"spec":{}})");
  Node rule = EncodeObject(api::DeviceTaintRule{});
  EXPECT_EQ(Json(At(rule, "spec")), R"({"taint":{"key":"","effect":""}})");
  Node tmpl = EncodeObject(api::ResourceClaimTemplate{});
  EXPECT_EQ(Json(At(tmpl, "spec")), R"({"metadata":{"creationTimestamp":null},"spec":{"devices":{"requests":null}}})");
}

TEST(EncodeTest, WritesFieldsInGoOrderAndOmitsEmptyOnes) {
  api::Device device;
  device.name = "gpu-0";
  device.allow_multiple_allocations = true;
  device.attributes.insert_or_assign("b", api::DeviceAttribute::Int(1));
  device.attributes.insert_or_assign("a", api::DeviceAttribute::VersionOf("1.0.0"));
  device.capacity.insert_or_assign("memory", api::DeviceCapacity{.value = *api::Quantity::Parse("1024Mi"),
                                                                 .request_policy = api::CapacityRequestPolicy{
                                                                     .valid_values = {*api::Quantity::Parse("1Gi")}}});
  device.rare.mut().taints.push_back({.key = "k", .effect = api::DeviceTaintEffect::kNone});
  device.rare.mut().binds_to_node = false;
  api::ResourceSlice slice;
  slice.metadata.name = "s";
  slice.spec.driver = "d";
  slice.spec.all_nodes = true;
  slice.spec.devices.push_back(device);
  Node n = EncodeObject(slice);
  EXPECT_THAT(Keys(n), ElementsAre("apiVersion", "kind", "metadata", "spec"));
  const Node& spec = At(n, "spec");
  EXPECT_THAT(Keys(spec), ElementsAre("driver", "pool", "allNodes", "devices"));
  EXPECT_EQ(Json(At(spec, "pool")), R"({"name":"","generation":0,"resourceSliceCount":0})");
  const Node& d = At(spec, "devices").items[0];
  EXPECT_THAT(Keys(d),
              ElementsAre("name", "attributes", "capacity", "taints", "bindsToNode", "allowMultipleAllocations"));
  EXPECT_EQ(Json(At(d, "attributes")), R"({"a":{"version":"1.0.0"},"b":{"int":1}})");
  // Quantities print canonically; a nil `default` is written as null (no omitempty).
  EXPECT_EQ(Json(At(d, "capacity")),
            R"({"memory":{"value":"1Gi","requestPolicy":{"default":null,"validValues":["1Gi"]}}})");
  EXPECT_EQ(Json(At(d, "taints")), R"([{"key":"k","effect":"None"}])");
}

TEST(EncodeTest, ExpandsRawJsonAndKeepsCoreExtrasInGoOrder) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.extra.insert_or_assign("managedFields", R"([{"manager":"m"}])");
  pod.metadata.extra.insert_or_assign("zzz", "1");  // not a Kubernetes field: goes last
  pod.spec.extra.insert_or_assign("volumes", R"([{"name":"v","emptyDir":{}}])");
  pod.spec.extra.insert_or_assign("restartPolicy", R"("Never")");
  pod.spec.containers.push_back(api::Container{.name = "c"});
  pod.spec.containers[0].extra.insert_or_assign("image", R"("nginx")");
  pod.spec.priority = 0;
  pod.spec.resource_claims.push_back({.name = "gpu", .resource_claim_name = "claim"});
  Node n = EncodeObject(pod);
  EXPECT_THAT(Keys(At(n, "metadata")), ElementsAre("name", "creationTimestamp", "managedFields", "zzz"));
  EXPECT_THAT(Keys(At(n, "spec")), ElementsAre("volumes", "containers", "restartPolicy", "priority", "resourceClaims"));
  EXPECT_EQ(Json(At(n, "spec")), R"({"volumes":[{"name":"v","emptyDir":{}}],"containers":[{"name":"c","image":"nginx",)"
                                 R"("resources":{}}],"restartPolicy":"Never","priority":0,)"
                                 R"("resourceClaims":[{"name":"gpu","resourceClaimName":"claim"}]})");
  EXPECT_EQ(Json(At(n, "status")), "{}");

  api::ResourceClaim claim;
  claim.spec.devices.config.push_back(
      {.opaque = api::OpaqueDeviceConfiguration{.driver = "d", .parameters = R"({"a":[1,2.5e3,"x\"y",null,true]})"}});
  Node c = EncodeObject(claim);
  const Node& params = At(At(At(At(c, "spec"), "devices"), "config").items[0], "opaque");
  EXPECT_EQ(Json(params), R"({"driver":"d","parameters":{"a":[1,2.5e3,"x\"y",null,true]}})");
}

TEST(EncodeTest, NodeStatusAndConditions) {
  api::Node node;
  node.metadata.name = "n";
  node.spec.taints.push_back({.key = "k", .effect = api::TaintEffect::kNoSchedule});
  node.status.allocatable.insert_or_assign("cpu", *api::Quantity::Parse("7.9"));
  node.status.extra.insert_or_assign("nodeInfo", R"({"kubeletVersion":"v1.36.0"})");
  Node n = EncodeObject(node);
  EXPECT_EQ(Json(At(n, "spec")), R"({"taints":[{"key":"k","effect":"NoSchedule"}]})");
  EXPECT_EQ(Json(At(n, "status")), R"({"allocatable":{"cpu":"7900m"},"nodeInfo":{"kubeletVersion":"v1.36.0"}})");

  api::ResourceClaim claim;
  claim.status.devices.push_back({.driver = "d", .pool = "p", .device = "x"});
  claim.status.devices[0].conditions.push_back({.type = "Ready", .status = api::ConditionStatus::kTrue});
  Node c = EncodeObject(claim);
  EXPECT_EQ(Json(At(c, "status")), R"({"devices":[{"driver":"d","pool":"p","device":"x","conditions":[{"type":"Ready",)"
                                   R"("status":"True","lastTransitionTime":null,"reason":"","message":""}]}]})");
}

TEST(EncodeTest, ListAttributesKeepTheirTypeWhenEmpty) {
  api::Device device{.name = "d"};
  device.attributes.insert_or_assign("l", api::DeviceAttribute::Ints({}));
  device.attributes.insert_or_assign("s", api::DeviceAttribute::Strings({"a", "b"}));
  device.attributes.insert_or_assign("bs", api::DeviceAttribute::Bools({true, false}));
  api::ResourceSlice slice;
  slice.spec.devices.push_back(device);
  Node n = EncodeObject(slice);
  EXPECT_EQ(Json(At(At(At(n, "spec"), "devices").items[0], "attributes")),
            R"({"bs":{"bools":[true,false]},"l":{"ints":[]},"s":{"strings":["a","b"]}})");
  StatusOr<api::Object> again = DecodeObject(n, {}, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(std::get<api::ResourceSlice>(*again) == slice);
}

}  // namespace
}  // namespace dra::manifest
