#include "api/cross_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dra::api {
namespace {

using ::testing::HasSubstr;

DeviceClass Class(std::string name, std::optional<std::string> extended = std::nullopt) {
  DeviceClass c;
  c.metadata.name = std::move(name);
  c.spec.extended_resource_name = std::move(extended);
  return c;
}

DeviceClaim ClaimSpec(std::string class_name) {
  DeviceClaim d;
  d.requests = {
      {.name = "gpu",
       .exactly = ExactDeviceRequest{.device_class_name = class_name, .allocation_mode = "ExactCount", .count = 1}},
      {.name = "multi",
       .first_available = {
           {.name = "a", .device_class_name = class_name, .allocation_mode = "ExactCount", .count = 1}}}};
  return d;
}

ResourceClaim Claim(std::string name, std::string ns, std::string class_name) {
  ResourceClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = std::move(ns);
  c.spec.devices = ClaimSpec(std::move(class_name));
  return c;
}

ResourceClaimTemplate Template(std::string name, std::string ns, std::string class_name) {
  ResourceClaimTemplate t;
  t.metadata.name = std::move(name);
  t.metadata.namespace_ = std::move(ns);
  t.spec.spec.devices = ClaimSpec(std::move(class_name));
  return t;
}

Pod PodWith(std::string ns, std::vector<PodResourceClaim> claims, std::vector<ContainerClaim> container_claims) {
  Pod p;
  p.metadata.name = "pod-0";
  p.metadata.namespace_ = std::move(ns);
  p.spec.resource_claims = std::move(claims);
  Container c;
  c.name = "main";
  c.resources.claims = std::move(container_claims);
  p.spec.containers = {c};
  return p;
}

ResourceSlice Slice(std::string name, std::string pool, int64_t generation, int64_t count,
                    std::vector<std::string> devices) {
  ResourceSlice s;
  s.metadata.name = std::move(name);
  s.spec.driver = "gpu.example.com";
  s.spec.pool = {.name = std::move(pool), .generation = generation, .resource_slice_count = count};
  s.spec.node_name = "node-1";
  for (std::string& d : devices) s.spec.devices.push_back(Device{.name = std::move(d)});
  return s;
}

std::string Dump(const std::vector<ObjectFieldError>& errs) {
  std::string out;
  for (const ObjectFieldError& e : errs)
    out += "  [" + std::to_string(e.object_index) + "] " + e.error.ToString() + "\n";
  return out.empty() ? "  (none)\n" : out;
}

struct Want {
  size_t index;
  std::string field;
  FieldErrorType type;
  std::string detail;
};

void ExpectExactly(const std::vector<Object>& objects, const std::vector<Want>& wants) {
  std::vector<ObjectFieldError> errs = ValidateCrossObject(objects);
  ASSERT_EQ(errs.size(), wants.size()) << Dump(errs);
  for (size_t i = 0; i < wants.size(); ++i) {
    EXPECT_EQ(errs[i].object_index, wants[i].index) << Dump(errs);
    EXPECT_EQ(errs[i].error.field, wants[i].field) << Dump(errs);
    EXPECT_EQ(errs[i].error.type, wants[i].type) << Dump(errs);
    EXPECT_EQ(errs[i].error.severity, Severity::kWarning);
    EXPECT_THAT(errs[i].error.detail, HasSubstr(wants[i].detail)) << Dump(errs);
  }
}

TEST(CrossValidationTest, ConsistentSetHasNoFindings) {
  std::vector<Object> objects = {
      Class("gpu.example.com", "example.com/gpu"),
      Claim("shared", "default", "gpu.example.com"),
      Template("tmpl", "", "gpu.example.com"),  // "" is the default namespace
      PodWith("default",
              {{.name = "a", .resource_claim_name = "shared"}, {.name = "b", .resource_claim_template_name = "tmpl"}},
              {{.name = "a", .request = "gpu"}, {.name = "b"}}),
      Slice("s0", "node-1", 2, 2, {"gpu-0", "gpu-1"}),
      Slice("s1", "node-1", 2, 2, {"gpu-2"}),
  };
  EXPECT_TRUE(ValidateCrossObject(objects).empty()) << Dump(ValidateCrossObject(objects));
}

TEST(CrossValidationTest, MissingDeviceClass) {
  ExpectExactly(
      {Class("other"), Claim("c", "default", "gpu.example.com"), Template("t", "ns", "gpu.example.com")},
      {{1, "spec.devices.requests[0].exactly.deviceClassName", FieldErrorType::kNotFound, "no DeviceClass"},
       {1, "spec.devices.requests[1].firstAvailable[0].deviceClassName", FieldErrorType::kNotFound, "no DeviceClass"},
       {2, "spec.spec.devices.requests[0].exactly.deviceClassName", FieldErrorType::kNotFound, "no DeviceClass"},
       {2, "spec.spec.devices.requests[1].firstAvailable[0].deviceClassName", FieldErrorType::kNotFound,
        "no DeviceClass"}});
}

TEST(CrossValidationTest, PodReferences) {
  ExpectExactly(
      {Class("gpu.example.com"), Claim("shared", "other-ns", "gpu.example.com"),
       Template("tmpl", "default", "gpu.example.com"),
       PodWith("default",
               {{.name = "a", .resource_claim_name = "shared"},
                {.name = "b", .resource_claim_template_name = "missing"},
                {.name = "c", .resource_claim_template_name = "tmpl"}},
               {{.name = "c", .request = "nic"}, {.name = "c", .request = "gpu"}, {.name = "a", .request = "x"}})},
      {{3, "spec.resourceClaims[0].resourceClaimName", FieldErrorType::kNotFound, "namespace \"default\""},
       {3, "spec.resourceClaims[1].resourceClaimTemplateName", FieldErrorType::kNotFound, "no ResourceClaimTemplate"},
       {3, "spec.containers[0].resources.claims[0].request", FieldErrorType::kNotFound,
        "has no request of this name"}});
}

TEST(CrossValidationTest, SliceCountMismatch) {
  ExpectExactly({Slice("s0", "p", 1, 2, {"a"}), Slice("s1", "p", 1, 3, {"b"})},
                {{1, "spec.pool.resourceSliceCount", FieldErrorType::kInvalid, "disagree on resourceSliceCount"}});
}

TEST(CrossValidationTest, MoreSlicesThanCount) {
  ExpectExactly(
      {Slice("s0", "p", 1, 1, {"a"}), Slice("s1", "p", 1, 1, {"b"})},
      {{1, "spec.pool", FieldErrorType::kInvalid, "more slices at generation 1 than its resourceSliceCount of 1"}});
}

TEST(CrossValidationTest, OlderGenerationSlicesAreStale) {
  ExpectExactly({Slice("old", "p", 1, 1, {"a"}), Slice("new", "p", 2, 1, {"a"})},
                {{0, "spec.pool.generation", FieldErrorType::kInvalid,
                  "also has slices at generation 2; this older slice is ignored"}});
}

TEST(CrossValidationTest, IncompletePool) {
  ExpectExactly({Slice("s0", "p", 4, 3, {"a"}), Slice("s1", "p", 4, 3, {"b"})},
                {{0, "spec.pool.resourceSliceCount", FieldErrorType::kInvalid,
                  "has only 2 of its 3 slices among the objects given"}});
}

TEST(CrossValidationTest, DuplicateDeviceInPool) {
  ExpectExactly(
      {Slice("s0", "p", 3, 2, {"a", "b"}), Slice("s1", "p", 3, 2, {"c", "a"}), Slice("other-pool", "q", 3, 1, {"a"})},
      {{1, "spec.devices[1]", FieldErrorType::kDuplicate, "the allocator treats the pool as invalid"}});
}

TEST(CrossValidationTest, DuplicateCounterSetInPool) {
  ResourceSlice s0 = Slice("s0", "p", 1, 2, {});
  s0.spec.shared_counters = {{.name = "set"}};
  ResourceSlice s1 = Slice("s1", "p", 1, 2, {});
  s1.spec.shared_counters = {{.name = "set"}};
  ExpectExactly({s0, s1}, {{1, "spec.sharedCounters[0]", FieldErrorType::kDuplicate, "counter set name"}});
}

TEST(CrossValidationTest, DuplicateExtendedResourceName) {
  ExpectExactly({Class("a", "example.com/gpu"), Class("b", "example.com/gpu"), Class("c", "example.com/tpu")},
                {{1, "spec.extendedResourceName", FieldErrorType::kDuplicate, "also served by DeviceClass \"a\""}});
}

TEST(CrossValidationTest, DuplicateObjects) {
  ExpectExactly({Class("a"), Class("a"), Claim("c", "", "a"), Claim("c", "default", "a"), Claim("c", "ns2", "a")},
                {{1, "metadata.name", FieldErrorType::kDuplicate, "appears more than once (first as object 0)"},
                 {3, "metadata.name", FieldErrorType::kDuplicate, "first as object 2"}});
}

TEST(FindDuplicateObjects, KindNamespaceAndName) {
  DeviceClass namespaced_class = Class("a");
  namespaced_class.metadata.namespace_ = "ignored";  // cluster-scoped: namespace ignored
  std::vector<Object> objects = {Class("a"),
                                 Claim("c", "", "a"),
                                 namespaced_class,
                                 Claim("c", "default", "a"),
                                 Claim("c", "ns2", "a"),
                                 Template("c", "", "a"),
                                 Class(""),
                                 Class("")};
  std::vector<DuplicateObject> found =
      FindDuplicateObjects(objects.size(), [&](size_t i) -> const Object& { return objects[i]; });
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 2u);
  EXPECT_EQ(found[0].first_index, 0u);
  EXPECT_EQ(found[1].index, 3u);
  EXPECT_EQ(found[1].first_index, 1u);
}

}  // namespace
}  // namespace dra::api
