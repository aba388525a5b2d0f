#include "api/names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace dra::api {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct NameCase {
  std::string name;
  std::function<NameErrors(std::string_view)> check;
  std::string value;
  bool valid = true;
  std::string want_substr = "";  // a substring of one message when !valid
};

class NameFormatTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(NameFormatTest, Checks) {
  const NameCase& c = GetParam();
  NameErrors errs = c.check(c.value);
  if (c.valid) {
    EXPECT_THAT(errs, IsEmpty()) << c.value;
    return;
  }
  ASSERT_FALSE(errs.empty()) << c.value;
  bool found = false;
  for (const std::string& msg : errs) found = found || msg.find(c.want_substr) != std::string::npos;
  EXPECT_TRUE(found) << "no message contains \"" << c.want_substr << "\"; first: " << errs[0];
}

const std::string k63(63, 'a');
const std::string k64(64, 'a');

INSTANTIATE_TEST_SUITE_P(
    All, NameFormatTest,
    ::testing::Values(
        // DNS label
        NameCase{.name = "label_ok", .check = IsDNS1123Label, .value = "my-name"},
        NameCase{.name = "label_digits", .check = IsDNS1123Label, .value = "123-abc"},
        NameCase{.name = "label_63", .check = IsDNS1123Label, .value = k63},
        NameCase{.name = "label_64",
                 .check = IsDNS1123Label,
                 .value = k64,
                 .valid = false,
                 .want_substr = "must be no more than 63 characters"},
        NameCase{.name = "label_empty",
                 .check = IsDNS1123Label,
                 .value = "",
                 .valid = false,
                 .want_substr = "RFC 1123 label"},
        NameCase{.name = "label_upper",
                 .check = IsDNS1123Label,
                 .value = "Gpu",
                 .valid = false,
                 .want_substr = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"},
        NameCase{.name = "label_trailing_dash",
                 .check = IsDNS1123Label,
                 .value = "gpu-",
                 .valid = false,
                 .want_substr = "RFC 1123 label"},
        NameCase{.name = "label_dots",
                 .check = IsDNS1123Label,
                 .value = "a.b",
                 .valid = false,
                 .want_substr = "must not contain dots"},
        NameCase{.name = "label_underscore",
                 .check = IsDNS1123Label,
                 .value = "gpu_0",
                 .valid = false,
                 .want_substr = "'my-name'"},
        // DNS subdomain
        NameCase{.name = "subdomain_ok", .check = IsDNS1123Subdomain, .value = "gpu.example.com"},
        NameCase{.name = "subdomain_single", .check = IsDNS1123Subdomain, .value = "a"},
        NameCase{.name = "subdomain_double_dot",
                 .check = IsDNS1123Subdomain,
                 .value = "a..b",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        NameCase{.name = "subdomain_leading_dot",
                 .check = IsDNS1123Subdomain,
                 .value = ".a",
                 .valid = false,
                 .want_substr = "'example.com'"},
        NameCase{.name = "subdomain_label_dash",
                 .check = IsDNS1123Subdomain,
                 .value = "a-.b",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        NameCase{.name = "subdomain_254",
                 .check = IsDNS1123Subdomain,
                 .value = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                          std::string(62, 'd'),
                 .valid = false,
                 .want_substr = "must be no more than 253 characters"},
        NameCase{.name = "node_name", .check = IsNodeName, .value = "worker-1.example"},
        NameCase{.name = "node_name_bad",
                 .check = IsNodeName,
                 .value = "Worker_1",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        // C identifier
        NameCase{.name = "cid_ok", .check = IsCIdentifier, .value = "_Model9"},
        NameCase{.name = "cid_digit_first",
                 .check = IsCIdentifier,
                 .value = "9model",
                 .valid = false,
                 .want_substr = "C identifier"},
        NameCase{.name = "cid_dash",
                 .check = IsCIdentifier,
                 .value = "my-model",
                 .valid = false,
                 .want_substr = "[A-Za-z_][A-Za-z0-9_]*"},
        // Driver name
        NameCase{.name = "driver_ok", .check = IsDriverName, .value = "gpu.nvidia.com"},
        NameCase{.name = "driver_upper_tolerated", .check = IsDriverName, .value = "GPU.Example.com"},
        NameCase{.name = "driver_63", .check = IsDriverName, .value = k63},
        NameCase{
            .name = "driver_64", .check = IsDriverName, .value = k64, .valid = false, .want_substr = "no more than 63"},
        NameCase{
            .name = "driver_empty", .check = IsDriverName, .value = "", .valid = false, .want_substr = "non-empty"},
        NameCase{.name = "driver_underscore",
                 .check = IsDriverName,
                 .value = "gpu_x.com",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        // Pool name
        NameCase{.name = "pool_ok", .check = IsPoolName, .value = "node-1"},
        NameCase{.name = "pool_segments", .check = IsPoolName, .value = "a/b.c"},
        NameCase{.name = "pool_double_slash",
                 .check = IsPoolName,
                 .value = "a//b",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        NameCase{.name = "pool_trailing_slash",
                 .check = IsPoolName,
                 .value = "a/",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        NameCase{.name = "pool_empty", .check = IsPoolName, .value = "", .valid = false, .want_substr = "non-empty"},
        NameCase{.name = "pool_too_long",
                 .check = IsPoolName,
                 .value = std::string(63, 'a') + "/" + std::string(63, 'b') + "/" + std::string(63, 'c') + "/" +
                          std::string(63, 'd'),
                 .valid = false,
                 .want_substr = "no more than 253"},
        // DRA QualifiedName
        NameCase{.name = "qn_bare", .check = IsQualifiedName, .value = "model"},
        NameCase{.name = "qn_domain", .check = IsQualifiedName, .value = "gpu.nvidia.com/productName"},
        NameCase{.name = "qn_id_32", .check = IsQualifiedName, .value = std::string(32, 'x')},
        NameCase{.name = "qn_id_33",
                 .check = IsQualifiedName,
                 .value = "d.com/" + std::string(33, 'x'),
                 .valid = false,
                 .want_substr = "no more than 32"},
        NameCase{.name = "qn_empty_domain",
                 .check = IsQualifiedName,
                 .value = "/model",
                 .valid = false,
                 .want_substr = "the domain must not be empty"},
        NameCase{.name = "qn_empty_name",
                 .check = IsQualifiedName,
                 .value = "d.com/",
                 .valid = false,
                 .want_substr = "the name must not be empty"},
        NameCase{.name = "qn_two_slashes",
                 .check = IsQualifiedName,
                 .value = "a/b/c",
                 .valid = false,
                 .want_substr = "more than one slash"},
        NameCase{.name = "qn_bad_domain",
                 .check = IsQualifiedName,
                 .value = "a_b/c",
                 .valid = false,
                 .want_substr = "RFC 1123 subdomain"},
        NameCase{.name = "qn_long_domain",
                 .check = IsQualifiedName,
                 .value = k64 + "/c",
                 .valid = false,
                 .want_substr = "no more than 63"},
        NameCase{.name = "qn_dash_id",
                 .check = IsQualifiedName,
                 .value = "product-name",
                 .valid = false,
                 .want_substr = "C identifier"},
        NameCase{.name = "fqn_ok", .check = IsFullyQualifiedName, .value = "dra.example.com/numa"},
        NameCase{.name = "fqn_bare",
                 .check = IsFullyQualifiedName,
                 .value = "numa",
                 .valid = false,
                 .want_substr = "domain and a name separated by a slash"},
        // Label names and values
        NameCase{.name = "labelname_plain", .check = IsLabelName, .value = "MyName"},
        NameCase{.name = "labelname_prefixed", .check = IsLabelName, .value = "example.com/my.name_1"},
        NameCase{.name = "labelname_empty",
                 .check = IsLabelName,
                 .value = "",
                 .valid = false,
                 .want_substr = "name part must be non-empty"},
        NameCase{.name = "labelname_empty_prefix",
                 .check = IsLabelName,
                 .value = "/a",
                 .valid = false,
                 .want_substr = "prefix part must be non-empty"},
        NameCase{.name = "labelname_bad_prefix",
                 .check = IsLabelName,
                 .value = "Example.com/a",
                 .valid = false,
                 .want_substr = "prefix part a lowercase RFC 1123 subdomain"},
        NameCase{.name = "labelname_two_slashes",
                 .check = IsLabelName,
                 .value = "a/b/c",
                 .valid = false,
                 .want_substr = "optional DNS subdomain prefix"},
        NameCase{.name = "labelname_64",
                 .check = IsLabelName,
                 .value = k64,
                 .valid = false,
                 .want_substr = "name part must be no more than 63"},
        NameCase{.name = "labelname_dash_end",
                 .check = IsLabelName,
                 .value = "a-",
                 .valid = false,
                 .want_substr = "name part may contain only"},
        NameCase{.name = "taint_key", .check = IsTaintKey, .value = "example.com/unhealthy"},
        NameCase{.name = "labelvalue_empty", .check = IsLabelValue, .value = ""},
        NameCase{.name = "labelvalue_ok", .check = IsLabelValue, .value = "my_value-1.0"},
        NameCase{.name = "labelvalue_64",
                 .check = IsLabelValue,
                 .value = k64,
                 .valid = false,
                 .want_substr = "no more than 63"},
        NameCase{.name = "labelvalue_slash",
                 .check = IsLabelValue,
                 .value = "a/b",
                 .valid = false,
                 .want_substr = "valid label value"},
        // UUID
        NameCase{.name = "uuid_ok", .check = IsUUID, .value = "123e4567-e89b-12d3-a456-426614174000"},
        NameCase{.name = "uuid_upper",
                 .check = IsUUID,
                 .value = "123E4567-E89B-12D3-A456-426614174000",
                 .valid = false,
                 .want_substr = "normalized form"},
        NameCase{.name = "uuid_braces",
                 .check = IsUUID,
                 .value = "{123e4567-e89b-12d3-a456-426614174000}",
                 .valid = false,
                 .want_substr = "normalized form"},
        NameCase{.name = "uuid_no_dashes",
                 .check = IsUUID,
                 .value = "123e4567e89b12d3a456426614174000",
                 .valid = false,
                 .want_substr = "normalized form"},
        NameCase{.name = "uuid_short",
                 .check = IsUUID,
                 .value = "123e4567-e89b-12d3-a456",
                 .valid = false,
                 .want_substr = "not a valid UUID"},
        NameCase{.name = "uuid_bad_hex",
                 .check = IsUUID,
                 .value = "123e4567-e89b-12d3-a456-42661417400g",
                 .valid = false,
                 .want_substr = "not a valid UUID"},
        // Semver
        NameCase{.name = "semver_plain", .check = IsSemver, .value = "1.2.3"},
        NameCase{.name = "semver_zero", .check = IsSemver, .value = "0.0.0"},
        NameCase{.name = "semver_pre_build", .check = IsSemver, .value = "1.0.0-alpha.1+build.20240305"},
        NameCase{.name = "semver_pre_alnum", .check = IsSemver, .value = "1.0.0-0alpha.x-y"},
        NameCase{.name = "semver_build_leading_zero", .check = IsSemver, .value = "1.0.0+001"},
        NameCase{.name = "semver_two_parts",
                 .check = IsSemver,
                 .value = "1.2",
                 .valid = false,
                 .want_substr = "semver.org spec 2.0.0"},
        NameCase{.name = "semver_leading_zero",
                 .check = IsSemver,
                 .value = "01.2.3",
                 .valid = false,
                 .want_substr = "semver"},
        NameCase{
            .name = "semver_v_prefix", .check = IsSemver, .value = "v1.2.3", .valid = false, .want_substr = "semver"},
        NameCase{.name = "semver_pre_leading_zero",
                 .check = IsSemver,
                 .value = "1.2.3-01",
                 .valid = false,
                 .want_substr = "semver"},
        NameCase{
            .name = "semver_empty_pre", .check = IsSemver, .value = "1.2.3-", .valid = false, .want_substr = "semver"},
        NameCase{.name = "semver_empty_build_part",
                 .check = IsSemver,
                 .value = "1.2.3+a..b",
                 .valid = false,
                 .want_substr = "semver"},
        NameCase{.name = "semver_too_long",
                 .check = IsSemver,
                 .value = "1.2.3-" + std::string(59, 'a'),
                 .valid = false,
                 .want_substr = "no more than 64"},
        // Extended resource names
        NameCase{.name = "ext_ok", .check = IsExtendedResourceName, .value = "example.com/gpu"},
        NameCase{.name = "ext_no_domain",
                 .check = IsExtendedResourceName,
                 .value = "gpu",
                 .valid = false,
                 .want_substr = "domain-prefixed"},
        NameCase{.name = "ext_kubernetes_io",
                 .check = IsExtendedResourceName,
                 .value = "kubernetes.io/gpu",
                 .valid = false,
                 .want_substr = "kubernetes.io"},
        NameCase{.name = "ext_sub_kubernetes_io",
                 .check = IsExtendedResourceName,
                 .value = "deviceclass.resource.kubernetes.io/gpu",
                 .valid = false,
                 .want_substr = "kubernetes.io"},
        NameCase{.name = "ext_requests",
                 .check = IsExtendedResourceName,
                 .value = "requests.example.com/gpu",
                 .valid = false,
                 .want_substr = "requests."},
        NameCase{.name = "ext_bad_name",
                 .check = IsExtendedResourceName,
                 .value = "example.com/gpu!",
                 .valid = false,
                 .want_substr = "as 'requests.<name>'"},
        // Request references
        NameCase{.name = "ref_request", .check = IsRequestReference, .value = "gpu"},
        NameCase{.name = "ref_subrequest", .check = IsRequestReference, .value = "gpu/large"},
        NameCase{.name = "ref_three",
                 .check = IsRequestReference,
                 .value = "a/b/c",
                 .valid = false,
                 .want_substr = "separated by '/'"},
        NameCase{.name = "ref_bad_segment",
                 .check = IsRequestReference,
                 .value = "gpu/Large",
                 .valid = false,
                 .want_substr = "RFC 1123 label"},
        NameCase{.name = "ref_empty_sub",
                 .check = IsRequestReference,
                 .value = "gpu/",
                 .valid = false,
                 .want_substr = "RFC 1123 label"}),
    [](const ::testing::TestParamInfo<NameCase>& tp) { return tp.param.name; });

TEST(NamesTest, MessagesQuoteRegexAndExamples) {
  NameErrors errs = IsDNS1123Label("Bad");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0], HasSubstr("'my-name' or '123-abc'"));
  EXPECT_THAT(errs[0], HasSubstr("regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'"));
}

TEST(NamesTest, TooLongAndMalformedReportBoth) {
  NameErrors errs = IsDNS1123Label(std::string(64, 'A'));
  EXPECT_EQ(errs.size(), 2u);
}

TEST(NamesTest, NodeAllocatableResourceNames) {
  EXPECT_TRUE(IsNodeAllocatableResourceName("cpu"));
  EXPECT_TRUE(IsNodeAllocatableResourceName("memory"));
  EXPECT_TRUE(IsNodeAllocatableResourceName("ephemeral-storage"));
  EXPECT_TRUE(IsNodeAllocatableResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsNodeAllocatableResourceName("example.com/gpu"));
  EXPECT_FALSE(IsNodeAllocatableResourceName("pods"));
}

TEST(NamesTest, HasUpperCase) {
  EXPECT_TRUE(HasUpperCase("Gpu.example.com"));
  EXPECT_FALSE(HasUpperCase("gpu.example.com"));
}

}  // namespace
}  // namespace dra::api
