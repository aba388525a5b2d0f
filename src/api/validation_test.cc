// Table-driven tests of api::Validate*: a valid baseline object per kind, and
// one mutation per rule with the exact field path, error type and a substring
// of the detail that the mutation must produce.
#include "api/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "api/features.h"

namespace dra::api {
namespace {

using quantity::Quantity;
using T = FieldErrorType;

Quantity Q(std::string_view text) { return Quantity::Parse(text).value(); }

// prefix + i. (Spelled out: GCC 12 -O3 warns falsely on "literal" + std::string.)
std::string Numbered(std::string_view prefix, int i) {
  std::string out(prefix);
  out += std::to_string(i);
  return out;
}

FeatureGates AllOn() {
  FeatureGates gates = FeatureGates::AllOff();
  for (size_t i = 0; i < kGateCount; ++i) {
    Status s = gates.Set(static_cast<Gate>(i), true);
    EXPECT_TRUE(s.ok());
  }
  return gates;
}

FeatureGates Version(std::string_view version) { return FeatureGates::Defaults(version).value(); }

std::string Dump(const FieldErrors& errs) {
  std::string out;
  for (const FieldError& e : errs) {
    out += (e.severity == Severity::kWarning ? "  warning: " : "  error: ") + e.ToString() + "\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

template <typename Obj>
struct Case {
  std::string name = "";
  std::function<void(Obj&)> mutate = nullptr;
  std::string field = "";
  FieldErrorType type = T::kInvalid;
  std::string detail = "";  // substring of FieldError::detail
  Severity severity = Severity::kError;
  std::function<FeatureGates()> gates = nullptr;  // default: every gate on
};

template <typename Obj>
void RunCases(const Obj& base, FieldErrors (*validate)(const Obj&, const FeatureGates&),
              const std::vector<Case<Obj>>& cases) {
  for (const Case<Obj>& c : cases) {
    SCOPED_TRACE(c.name);
    Obj obj = base;
    c.mutate(obj);
    FeatureGates gates = c.gates ? c.gates() : AllOn();
    FieldErrors errs = validate(obj, gates);
    bool found = false;
    for (const FieldError& e : errs) {
      found = found || (e.field == c.field && e.type == c.type && e.severity == c.severity &&
                        e.detail.find(c.detail) != std::string::npos);
    }
    EXPECT_TRUE(found) << "want " << (c.severity == Severity::kWarning ? "warning" : "error") << " at \"" << c.field
                       << "\" containing \"" << c.detail << "\"; got:\n"
                       << Dump(errs);
  }
}

// ---------------------------------------------------------------------------
// Baselines

DeviceClass BaseClass() {
  DeviceClass c;
  c.metadata.name = "gpu.example.com";
  c.spec.selectors = {{.cel = CelDeviceSelector{.expression = "device.driver == 'gpu.example.com'"}}};
  c.spec.config = {{.opaque = OpaqueDeviceConfiguration{.driver = "gpu.example.com", .parameters = R"({"a":1})"}}};
  c.spec.extended_resource_name = "example.com/gpu";
  return c;
}

Device BaseDevice(std::string name) {
  Device d;
  d.name = std::move(name);
  d.attributes.insert_or_assign("model", DeviceAttribute::String("LATEST-GPU-MODEL"));
  d.attributes.insert_or_assign("driverVersion", DeviceAttribute::VersionOf("1.2.3"));
  d.attributes.insert_or_assign("index", DeviceAttribute::Int(0));
  d.attributes.insert_or_assign("resource.kubernetes.io/pcieRoot", DeviceAttribute::String("pci0000:00"));
  d.capacity.insert_or_assign("memory", DeviceCapacity{.value = Q("80Gi")});
  return d;
}

ResourceSlice BaseSlice() {
  ResourceSlice s;
  s.metadata.name = "node-1-gpu.example.com-abcde";
  s.spec.driver = "gpu.example.com";
  s.spec.pool = {.name = "node-1", .generation = 1, .resource_slice_count = 1};
  s.spec.node_name = "node-1";
  s.spec.devices = {BaseDevice("gpu-0"), BaseDevice("gpu-1")};
  return s;
}

NodeSelector OneTermSelector() {
  NodeSelector sel;
  sel.node_selector_terms = {
      {.match_expressions = {{.key = "kubernetes.io/hostname", .operator_ = "In", .values = {"node-1"}}}}};
  return sel;
}

// A slice with partitionable devices: per-device node selection and counters.
ResourceSlice BasePartitionableSlice() {
  ResourceSlice s = BaseSlice();
  s.spec.node_name.reset();
  s.spec.per_device_node_selection = true;
  for (Device& d : s.spec.devices) {
    d.rare.mut().node_name = "node-1";
    d.rare.mut().consumes_counters = {{.counter_set = "gpu-0-counters", .counters = {{"memory", Counter{Q("40Gi")}}}}};
    d.attributes.insert_or_assign("type", DeviceAttribute::String("mig-1g"));
  }
  s.spec.partition_type_attribute = "gpu.example.com/type";
  return s;
}

ResourceSlice BaseSharedCapacitySlice() {
  ResourceSlice s = BaseSlice();
  Device& d = s.spec.devices[0];
  d.allow_multiple_allocations = true;
  CapacityRequestPolicy policy;
  policy.default_ = Q("1Gi");
  policy.valid_range = CapacityRequestPolicyRange{.min = Q("1Gi"), .max = Q("80Gi"), .step = Q("1Gi")};
  d.capacity.find("memory")->request_policy = policy;
  return s;
}

CapacityRequestPolicy& Policy(ResourceSlice& s) { return *s.spec.devices[0].capacity.find("memory")->request_policy; }

ExactDeviceRequest Exact(std::string class_name = "gpu.example.com") {
  return ExactDeviceRequest{.device_class_name = std::move(class_name), .allocation_mode = "ExactCount", .count = 1};
}

DeviceSubRequest Sub(std::string name) {
  return DeviceSubRequest{
      .name = std::move(name), .device_class_name = "gpu.example.com", .allocation_mode = "ExactCount", .count = 1};
}

ResourceClaim BaseClaim() {
  ResourceClaim c;
  c.metadata.name = "claim-0";
  c.metadata.namespace_ = "default";
  DeviceClaim& d = c.spec.devices;
  d.requests = {{.name = "gpu", .exactly = Exact()},
                {.name = "multi", .first_available = {Sub("large"), Sub("small")}}};
  d.constraints = {{.requests = {"gpu", "multi/large"}, .match_attribute = "gpu.example.com/model"}};
  d.config = {
      {.requests = {"gpu"}, .opaque = OpaqueDeviceConfiguration{.driver = "gpu.example.com", .parameters = "{}"}}};
  AllocationResult a;
  a.devices.results = {
      {.request = "gpu", .driver = "gpu.example.com", .pool = "node-1", .device = "gpu-0"},
      {.request = "multi/large", .driver = "gpu.example.com", .pool = "node-1", .device = "gpu-1"},
  };
  a.devices.config = {{.source = "FromClaim",
                       .requests = {"gpu"},
                       .opaque = OpaqueDeviceConfiguration{.driver = "gpu.example.com", .parameters = "{}"}}};
  a.node_selector = OneTermSelector();
  c.status.allocation = a;
  c.status.reserved_for = {{.resource = "pods", .name = "pod-0", .uid = "a1b2"}};
  c.status.devices = {{.driver = "gpu.example.com",
                       .pool = "node-1",
                       .device = "gpu-0",
                       .conditions = {{.type = "Ready",
                                       .status = "True",
                                       .last_transition_time = "2026-07-24T10:00:00Z",
                                       .reason = "DeviceReady"}},
                       .data = R"({"k":"v"})",
                       .network_data = NetworkDeviceData{.interface_name = "eth1",
                                                         .ips = {"10.9.8.7/24", "2001:db8::1/64"},
                                                         .hardware_address = "ea:9f:d3:0a:1b:2c"}}};
  return c;
}

ResourceClaimTemplate BaseTemplate() {
  ResourceClaimTemplate t;
  t.metadata.name = "gpu-template";
  t.metadata.namespace_ = "default";
  t.spec.metadata.labels.insert_or_assign("app", "inference");
  t.spec.spec = BaseClaim().spec;
  return t;
}

DeviceTaintRule BaseRule() {
  DeviceTaintRule r;
  r.metadata.name = "rule-1";
  r.spec.device_selector = DeviceTaintSelector{.driver = "gpu.example.com", .pool = "node-1", .device = "gpu-0"};
  r.spec.taint = {.key = "example.com/unhealthy", .value = "xid-95", .effect = "NoSchedule"};
  return r;
}

Node BaseNode() {
  Node n;
  n.metadata.name = "node-1";
  n.metadata.labels.insert_or_assign("kubernetes.io/hostname", "node-1");
  n.spec.taints = {{.key = "example.com/dedicated", .value = "gpu", .effect = "NoSchedule"}};
  return n;
}

Pod BasePod() {
  Pod p;
  p.metadata.name = "pod-0";
  p.metadata.namespace_ = "default";
  p.spec.resource_claims = {{.name = "gpu", .resource_claim_template_name = "gpu-template"},
                            {.name = "shared", .resource_claim_name = "shared-claim"}};
  Container c;
  c.name = "main";
  c.resources.claims = {{.name = "gpu"}, {.name = "shared", .request = "gpu"}};
  p.spec.containers = {c};
  p.spec.tolerations = {{.key = "example.com/dedicated", .operator_ = "Equal", .value = "gpu", .effect = "NoSchedule"}};
  return p;
}

// ---------------------------------------------------------------------------
// Baselines are valid (no errors and no warnings) under every gate set that
// has the fields they use.

TEST(ValidationTest, BaselinesAreValid) {
  FeatureGates gates = AllOn();
  EXPECT_TRUE(ValidateDeviceClass(BaseClass(), gates).empty()) << Dump(ValidateDeviceClass(BaseClass(), gates));
  EXPECT_TRUE(ValidateResourceSlice(BaseSlice(), gates).empty()) << Dump(ValidateResourceSlice(BaseSlice(), gates));
  EXPECT_TRUE(ValidateResourceSlice(BasePartitionableSlice(), gates).empty())
      << Dump(ValidateResourceSlice(BasePartitionableSlice(), gates));
  EXPECT_TRUE(ValidateResourceSlice(BaseSharedCapacitySlice(), gates).empty())
      << Dump(ValidateResourceSlice(BaseSharedCapacitySlice(), gates));
  EXPECT_TRUE(ValidateResourceClaim(BaseClaim(), gates).empty()) << Dump(ValidateResourceClaim(BaseClaim(), gates));
  EXPECT_TRUE(ValidateResourceClaimTemplate(BaseTemplate(), gates).empty())
      << Dump(ValidateResourceClaimTemplate(BaseTemplate(), gates));
  EXPECT_TRUE(ValidateDeviceTaintRule(BaseRule(), gates).empty()) << Dump(ValidateDeviceTaintRule(BaseRule(), gates));
  EXPECT_TRUE(ValidateNode(BaseNode(), gates).empty()) << Dump(ValidateNode(BaseNode(), gates));
  EXPECT_TRUE(ValidatePod(BasePod(), gates).empty()) << Dump(ValidatePod(BasePod(), gates));
}

TEST(ValidationTest, BaselinesValidWithReleaseDefaults) {
  FeatureGates v137 = Version("1.37");
  EXPECT_FALSE(HasErrors(ValidateResourceSlice(BaseSlice(), v137)));
  EXPECT_FALSE(HasErrors(ValidateResourceSlice(BaseSharedCapacitySlice(), v137)));
  EXPECT_FALSE(HasErrors(ValidateResourceClaim(BaseClaim(), v137)));
  EXPECT_FALSE(HasErrors(ValidateDeviceClass(BaseClass(), v137)));
  FeatureGates v134 = Version("1.34");
  EXPECT_FALSE(HasErrors(ValidateResourceSlice(BaseSlice(), v134))) << Dump(ValidateResourceSlice(BaseSlice(), v134));
  EXPECT_FALSE(HasErrors(ValidateResourceClaim(BaseClaim(), v134))) << Dump(ValidateResourceClaim(BaseClaim(), v134));
}

TEST(ValidationTest, ValidateDispatchesOnKind) {
  FeatureGates gates = AllOn();
  Object slice = BaseSlice();
  EXPECT_TRUE(Validate(slice, gates).empty());
  std::get<ResourceSlice>(slice).spec.driver = "";
  FieldErrors errs = Validate(slice, gates);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.driver: Required value");
  Object pod = BasePod();
  EXPECT_TRUE(Validate(pod, gates).empty());
  Object node = BaseNode();
  EXPECT_TRUE(Validate(node, gates).empty());
}

TEST(ValidationTest, HasErrorsIgnoresWarnings) {
  FieldErrors errs = {
      {.type = T::kInvalid, .field = "spec.driver", .bad_value = "", .detail = "", .severity = Severity::kWarning}};
  EXPECT_FALSE(HasErrors(errs));
  errs.push_back({.type = T::kRequired, .field = "spec.driver", .bad_value = "", .detail = ""});
  EXPECT_TRUE(HasErrors(errs));
}

TEST(ValidationTest, MessagesReadLikeTheApiServer) {
  ResourceSlice s = BaseSlice();
  s.spec.devices[0].attributes.insert_or_assign("model", DeviceAttribute::String(std::string(65, 'x')));
  s.spec.pool.resource_slice_count = 0;
  FieldErrors errs = ValidateResourceSlice(s, AllOn());
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero");
  EXPECT_EQ(errs[1].ToString(), "spec.devices[0].attributes[model].string: Too long: may not be more than 64 bytes");
}

// ---------------------------------------------------------------------------
// DeviceClass

TEST(ValidationTest, DeviceClassRules) {
  using C = Case<DeviceClass>;
  RunCases<DeviceClass>(
      BaseClass(), ValidateDeviceClass,
      {
          C{.name = "bad name",
            .mutate = [](DeviceClass& c) { c.metadata.name = "Bad_Name"; },
            .field = "metadata.name",
            .type = T::kInvalid,
            .detail = "RFC 1123 subdomain"},
          C{.name = "no name",
            .mutate = [](DeviceClass& c) { c.metadata.name = ""; },
            .field = "metadata.name",
            .type = T::kRequired,
            .detail = "name or generateName is required"},
          C{.name = "namespace on cluster-scoped kind",
            .mutate = [](DeviceClass& c) { c.metadata.namespace_ = "ns"; },
            .field = "metadata.namespace",
            .type = T::kForbidden,
            .detail = "not allowed on this type"},
          C{.name = "bad label key",
            .mutate = [](DeviceClass& c) { c.metadata.labels.insert_or_assign("a/b/c", "v"); },
            .field = "metadata.labels",
            .type = T::kInvalid,
            .detail = "label key"},
          C{.name = "bad label value",
            .mutate = [](DeviceClass& c) { c.metadata.labels.insert_or_assign("k", "-v"); },
            .field = "metadata.labels",
            .type = T::kInvalid,
            .detail = "label value"},
          C{.name = "bad annotation key",
            .mutate = [](DeviceClass& c) { c.metadata.annotations.insert_or_assign("a b", "v"); },
            .field = "metadata.annotations",
            .type = T::kInvalid,
            .detail = "name part"},
          C{.name = "too many selectors",
            .mutate = [](DeviceClass& c) { c.spec.selectors.resize(33, c.spec.selectors[0]); },
            .field = "spec.selectors",
            .type = T::kTooMany,
            .detail = "must have at most 32 items"},
          C{.name = "selector without cel",
            .mutate = [](DeviceClass& c) { c.spec.selectors[0].cel.reset(); },
            .field = "spec.selectors[0].cel",
            .type = T::kRequired},
          C{.name = "cel too long",
            .mutate = [](DeviceClass& c) { c.spec.selectors[0].cel->expression = std::string(10241, 'a'); },
            .field = "spec.selectors[0].cel.expression",
            .type = T::kTooLong,
            .detail = "10240 bytes"},
          C{.name = "cel empty",
            .mutate = [](DeviceClass& c) { c.spec.selectors[0].cel->expression = ""; },
            .field = "spec.selectors[0].cel.expression",
            .type = T::kRequired},
          C{.name = "config without opaque",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque.reset(); },
            .field = "spec.config[0].opaque",
            .type = T::kRequired},
          C{.name = "config without driver",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->driver = ""; },
            .field = "spec.config[0].opaque.driver",
            .type = T::kRequired},
          C{.name = "config driver upper case",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->driver = "GPU.example.com"; },
            .field = "spec.config[0].opaque.driver",
            .type = T::kInvalid,
            .detail = "lower case",
            .severity = Severity::kWarning},
          C{.name = "parameters not an object",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->parameters = "[1,2]"; },
            .field = "spec.config[0].opaque.parameters",
            .type = T::kInvalid,
            .detail = "must be a valid JSON object"},
          C{.name = "parameters not JSON",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->parameters = R"({"a":)"; },
            .field = "spec.config[0].opaque.parameters",
            .type = T::kInvalid,
            .detail = "error parsing data as JSON"},
          C{.name = "parameters null",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->parameters = "null"; },
            .field = "spec.config[0].opaque.parameters",
            .type = T::kRequired},
          C{.name = "parameters empty",
            .mutate = [](DeviceClass& c) { c.spec.config[0].opaque->parameters = ""; },
            .field = "spec.config[0].opaque.parameters",
            .type = T::kRequired},
          C{.name = "parameters too long",
            .mutate =
                [](DeviceClass& c) {
                  c.spec.config[0].opaque->parameters = R"({"a":")" + std::string(10240, 'x') + R"("})";
                },
            .field = "spec.config[0].opaque.parameters",
            .type = T::kTooLong,
            .detail = "10240 bytes"},
          C{.name = "too many configs",
            .mutate = [](DeviceClass& c) { c.spec.config.resize(33, c.spec.config[0]); },
            .field = "spec.config",
            .type = T::kTooMany,
            .detail = "at most 32"},
          C{.name = "extended resource name without domain",
            .mutate = [](DeviceClass& c) { c.spec.extended_resource_name = "gpu"; },
            .field = "spec.extendedResourceName",
            .type = T::kInvalid,
            .detail = "must be a valid extended resource name"},
          C{.name = "extended resource name in kubernetes.io",
            .mutate = [](DeviceClass& c) { c.spec.extended_resource_name = "kubernetes.io/gpu"; },
            .field = "spec.extendedResourceName",
            .type = T::kInvalid,
            .detail = "kubernetes.io"},
          C{.name = "extended resource name gate off",
            .mutate = [](DeviceClass&) {},
            .field = "spec.extendedResourceName",
            .type = T::kForbidden,
            .detail = "DRAExtendedResource",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
      });
}

// ---------------------------------------------------------------------------
// ResourceSlice: slice-level rules

TEST(ValidationTest, ResourceSliceNameDriverAndPoolRules) {
  using C = Case<ResourceSlice>;
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "bad name",
            .mutate = [](ResourceSlice& s) { s.metadata.name = "a..b"; },
            .field = "metadata.name",
            .type = T::kInvalid},
          C{.name = "no driver",
            .mutate = [](ResourceSlice& s) { s.spec.driver = ""; },
            .field = "spec.driver",
            .type = T::kRequired},
          C{.name = "driver too long",
            .mutate = [](ResourceSlice& s) { s.spec.driver = std::string(64, 'a'); },
            .field = "spec.driver",
            .type = T::kTooLong,
            .detail = "63"},
          C{.name = "driver malformed",
            .mutate = [](ResourceSlice& s) { s.spec.driver = "gpu_example.com"; },
            .field = "spec.driver",
            .type = T::kInvalid,
            .detail = "RFC 1123 subdomain"},
          C{.name = "driver upper case",
            .mutate = [](ResourceSlice& s) { s.spec.driver = "GPU.Example.com"; },
            .field = "spec.driver",
            .type = T::kInvalid,
            .detail = "lower case",
            .severity = Severity::kWarning},
          C{.name = "pool empty segment",
            .mutate = [](ResourceSlice& s) { s.spec.pool.name = "a//b"; },
            .field = "spec.pool.name",
            .type = T::kInvalid,
            .detail = "RFC 1123 subdomain"},
          C{.name = "pool missing",
            .mutate = [](ResourceSlice& s) { s.spec.pool.name = ""; },
            .field = "spec.pool.name",
            .type = T::kRequired},
          C{.name = "pool too long",
            .mutate = [](ResourceSlice& s) { s.spec.pool.name = std::string(200, 'a') + "/" + std::string(60, 'b'); },
            .field = "spec.pool.name",
            .type = T::kTooLong,
            .detail = "253"},
          C{.name = "slice count zero",
            .mutate = [](ResourceSlice& s) { s.spec.pool.resource_slice_count = 0; },
            .field = "spec.pool.resourceSliceCount",
            .type = T::kInvalid,
            .detail = "must be greater than zero"},
          C{.name = "negative generation",
            .mutate = [](ResourceSlice& s) { s.spec.pool.generation = -1; },
            .field = "spec.pool.generation",
            .type = T::kInvalid,
            .detail = "greater than or equal to zero"},
      });
}

TEST(ValidationTest, ResourceSliceNodeSelectionRules) {
  using C = Case<ResourceSlice>;
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "no node selection",
            .mutate = [](ResourceSlice& s) { s.spec.node_name.reset(); },
            .field = "spec",
            .type = T::kRequired,
            .detail = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                      "`perDeviceNodeSelection` is required"},
          C{.name = "two node selections",
            .mutate = [](ResourceSlice& s) { s.spec.all_nodes = true; },
            .field = "spec",
            .type = T::kInvalid,
            .detail = "but multiple fields are set"},
          C{.name = "empty node name",
            .mutate = [](ResourceSlice& s) { s.spec.node_name = ""; },
            .field = "spec.nodeName",
            .type = T::kInvalid,
            .detail = "must be either unset or set to a non-empty string"},
          C{.name = "bad node name",
            .mutate = [](ResourceSlice& s) { s.spec.node_name = "Node_1"; },
            .field = "spec.nodeName",
            .type = T::kInvalid,
            .detail = "RFC 1123 subdomain"},
          C{.name = "allNodes false",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.all_nodes = false;
                },
            .field = "spec.allNodes",
            .type = T::kInvalid,
            .detail = "must be either unset or set to true"},
          C{.name = "node selector with two terms",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.node_selector = OneTermSelector();
                  s.spec.node_selector->node_selector_terms.push_back(s.spec.node_selector->node_selector_terms[0]);
                },
            .field = "spec.nodeSelector.nodeSelectorTerms",
            .type = T::kInvalid,
            .detail = "must have exactly one node selector term"},
          C{.name = "node selector bad operator",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.node_selector = OneTermSelector();
                  s.spec.node_selector->node_selector_terms[0].match_expressions[0].operator_ = "Matches";
                },
            .field = "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
            .type = T::kInvalid,
            .detail = "not a valid selector operator"},
          C{.name = "node selector In without values",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.node_selector = OneTermSelector();
                  s.spec.node_selector->node_selector_terms[0].match_expressions[0].values.clear();
                },
            .field = "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
            .type = T::kRequired,
            .detail = "must be specified when `operator` is 'In' or 'NotIn'"},
          C{.name = "node selector matchFields key",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.node_selector = OneTermSelector();
                  s.spec.node_selector->node_selector_terms[0].match_fields = {
                      {.key = "spec.nodeName", .operator_ = "In", .values = {"n"}}};
                },
            .field = "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
            .type = T::kInvalid,
            .detail = "not a valid field selector key"},
          C{.name = "perDeviceNodeSelection gate off",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.node_name.reset();
                  s.spec.per_device_node_selection = true;
                },
            .field = "spec.perDeviceNodeSelection",
            .type = T::kForbidden,
            .detail = "DRAPartitionableDevices",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "perDeviceNodeSelection false",
            .mutate = [](ResourceSlice& s) { s.spec.per_device_node_selection = false; },
            .field = "spec.perDeviceNodeSelection",
            .type = T::kInvalid,
            .detail = "must be either unset or set to true"},
      });
}

TEST(ValidationTest, ResourceSliceDeviceListAndCounterSetRules) {
  using C = Case<ResourceSlice>;
  auto devices = [](int n) {
    std::vector<Device> out;
    out.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) out.push_back(BaseDevice(Numbered("gpu-", i)));
    return out;
  };
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "devices and sharedCounters",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.shared_counters = {{.name = "set", .counters = {{"memory", Counter{Q("1")}}}}};
                },
            .field = "spec",
            .type = T::kInvalid,
            .detail = "only one of `sharedCounters` or `devices` is allowed"},
          C{.name = "129 devices",
            .mutate = [&](ResourceSlice& s) { s.spec.devices = devices(129); },
            .field = "spec.devices",
            .type = T::kTooMany,
            .detail = "at most 128 items"},
          C{.name = "65 devices with a taint",
            .mutate =
                [&](ResourceSlice& s) {
                  s.spec.devices = devices(65);
                  s.spec.devices[3].rare.mut().taints = {{.key = "k", .effect = "NoSchedule"}};
                },
            .field = "spec.devices",
            .type = T::kTooMany,
            .detail = "at most 64 items"},
          C{.name = "65 devices consuming counters",
            .mutate =
                [&](ResourceSlice& s) {
                  s.spec.devices = devices(65);
                  s.spec.devices[3].rare.mut().consumes_counters = {
                      {.counter_set = "c", .counters = {{"m", Counter{}}}}};
                },
            .field = "spec.devices",
            .type = T::kTooMany,
            .detail = "at most 64 items"},
          C{.name = "65 devices with a list attribute",
            .mutate =
                [&](ResourceSlice& s) {
                  s.spec.devices = devices(65);
                  s.spec.devices[0].attributes.insert_or_assign("numa", DeviceAttribute::Ints({0, 1}));
                },
            .field = "spec.devices",
            .type = T::kTooMany,
            .detail = "at most 64 items"},
          C{.name = "duplicate device names",
            .mutate = [](ResourceSlice& s) { s.spec.devices[1].name = "gpu-0"; },
            .field = "spec.devices[1]",
            .type = T::kDuplicate},
          C{.name = "nine counter sets",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  for (int i = 0; i < 9; ++i) {
                    s.spec.shared_counters.push_back(
                        {.name = Numbered("set-", i), .counters = {{"memory", Counter{Q("1")}}}});
                  }
                },
            .field = "spec.sharedCounters",
            .type = T::kTooMany,
            .detail = "at most 8 items"},
          C{.name = "duplicate counter sets",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "a", .counters = {{"m", Counter{}}}},
                                            {.name = "a", .counters = {{"m", Counter{}}}}};
                },
            .field = "spec.sharedCounters[1]",
            .type = T::kDuplicate},
          C{.name = "counter set bad name",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "A", .counters = {{"m", Counter{}}}}};
                },
            .field = "spec.sharedCounters[0].name",
            .type = T::kInvalid,
            .detail = "RFC 1123 label"},
          C{.name = "counter set without counters",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "a"}};
                },
            .field = "spec.sharedCounters[0].counters",
            .type = T::kRequired},
          C{.name = "counter set with 33 counters",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "a"}};
                  for (int i = 0; i < 33; ++i) {
                    s.spec.shared_counters[0].counters.insert_or_assign(Numbered("c", i), Counter{});
                  }
                },
            .field = "spec.sharedCounters[0].counters",
            .type = T::kTooMany,
            .detail = "at most 32 items"},
          C{.name = "counter bad name",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "a", .counters = {{"Mem", Counter{}}}}};
                },
            .field = "spec.sharedCounters[0].counters",
            .type = T::kInvalid,
            .detail = "RFC 1123 label"},
          C{.name = "sharedCounters gate off",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices.clear();
                  s.spec.shared_counters = {{.name = "a", .counters = {{"m", Counter{}}}}};
                },
            .field = "spec.sharedCounters",
            .type = T::kForbidden,
            .detail = "DRAPartitionableDevices",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.34"); }},
      });
}

TEST(ValidationTest, ResourceSliceSkipNodeOperationsRules) {
  using C = Case<ResourceSlice>;
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "skipNodeOperations prepare only",
            .mutate = [](ResourceSlice& s) { s.spec.skip_node_operations = {"NodePrepareResources"}; },
            .field = "spec.skipNodeOperations",
            .type = T::kInvalid,
            .detail = "NodePrepareResources cannot be skipped unless NodeUnprepareResources is "
                      "also skipped"},
          C{.name = "skipNodeOperations unknown",
            .mutate = [](ResourceSlice& s) { s.spec.skip_node_operations = {"NodeReboot"}; },
            .field = "spec.skipNodeOperations[0]",
            .type = T::kNotSupported,
            .detail = "\"NodeUnprepareResources\""},
          C{.name = "skipNodeOperations duplicate",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.skip_node_operations = {"*", "*"};
                },
            .field = "spec.skipNodeOperations[1]",
            .type = T::kDuplicate},
          C{.name = "skipNodeOperations gate off",
            .mutate = [](ResourceSlice& s) { s.spec.skip_node_operations = {"*"}; },
            .field = "spec.skipNodeOperations",
            .type = T::kForbidden,
            .detail = "DRAOptionalNodeOperations",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.37"); }},
      });
}

TEST(ValidationTest, ResourceSliceReleaseDifferences) {
  std::vector<Device> many;
  many.reserve(65);
  for (int i = 0; i < 65; ++i) many.push_back(BaseDevice(Numbered("gpu-", i)));
  many[0].rare.mut().taints = {{.key = "k", .effect = "NoSchedule"}};
  ResourceSlice s = BaseSlice();
  s.spec.devices = many;
  FeatureGates v134 = Version("1.34");
  ASSERT_TRUE(v134.Set("DRADeviceTaints", true).ok());
  EXPECT_FALSE(HasErrors(ValidateResourceSlice(s, v134))) << Dump(ValidateResourceSlice(s, v134));

  // 1.34: counter sets live in the slice of the devices consuming them.
  ResourceSlice both = BaseSlice();
  both.spec.shared_counters = {{.name = "set", .counters = {{"memory", Counter{Q("1")}}}}};
  ASSERT_TRUE(v134.Set("DRAPartitionableDevices", true).ok());
  EXPECT_FALSE(HasErrors(ValidateResourceSlice(both, v134))) << Dump(ValidateResourceSlice(both, v134));

  // 1.35: list attributes do not trigger the 64-device limit yet (and have no gate).
  ResourceSlice lists = BaseSlice();
  lists.spec.devices.clear();
  for (int i = 0; i < 65; ++i) lists.spec.devices.push_back(BaseDevice(Numbered("gpu-", i)));
  FieldErrors errs = ValidateResourceSlice(lists, Version("1.35"));
  EXPECT_FALSE(HasErrors(errs)) << Dump(errs);
}

// ---------------------------------------------------------------------------
// ResourceSlice: device rules

TEST(ValidationTest, DeviceNameAndAttributeRules) {
  using C = Case<ResourceSlice>;
  auto dev = [](ResourceSlice& s) -> Device& { return s.spec.devices[0]; };
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "bad device name",
            .mutate = [&](ResourceSlice& s) { dev(s).name = "gpu.0"; },
            .field = "spec.devices[0].name",
            .type = T::kInvalid,
            .detail = "must not contain dots"},
          C{.name = "no device name",
            .mutate = [&](ResourceSlice& s) { dev(s).name = ""; },
            .field = "spec.devices[0].name",
            .type = T::kRequired},
          C{.name = "33 attributes and capacities",
            .mutate =
                [&](ResourceSlice& s) {
                  for (int i = 0; i < 28; ++i) {
                    dev(s).attributes.insert_or_assign(Numbered("a", i), DeviceAttribute::Int(i));
                  }
                },
            .field = "spec.devices[0]",
            .type = T::kInvalid,
            .detail = "the total number of attributes and capacities must not exceed 32"},
          C{.name = "49 attribute values",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("many", DeviceAttribute::Ints(std::vector<int64_t>(45, 1)));
                },
            .field = "spec.devices[0]",
            .type = T::kInvalid,
            .detail = "the total number of attribute values must not exceed 48"},
          C{.name = "attribute key with two slashes",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("a/b/c", DeviceAttribute::Int(1)); },
            .field = "spec.devices[0].attributes",
            .type = T::kInvalid,
            .detail = "must not contain more than one slash"},
          C{.name = "attribute key too long",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("d.com/" + std::string(33, 'x'), DeviceAttribute::Int(1));
                },
            .field = "spec.devices[0].attributes",
            .type = T::kTooLong,
            .detail = "32 bytes"},
          C{.name = "attribute key empty domain",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("/x", DeviceAttribute::Int(1)); },
            .field = "spec.devices[0].attributes",
            .type = T::kInvalid,
            .detail = "the domain must not be empty"},
          C{.name = "attribute key not an identifier",
            .mutate =
                [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("pci-root", DeviceAttribute::Int(1)); },
            .field = "spec.devices[0].attributes",
            .type = T::kInvalid,
            .detail = "C identifier"},
          C{.name = "attribute without value",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("empty", DeviceAttribute{}); },
            .field = "spec.devices[0].attributes[empty]",
            .type = T::kInvalid,
            // The text a real v1.37.2 kube-apiserver answered for `empty: {}`.
            .detail = "must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, "
                      "`versions`"},
          C{.name = "attribute without value, 1.34",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("empty", DeviceAttribute{}); },
            .field = "spec.devices[0].attributes[empty]",
            .type = T::kInvalid,
            .detail = "exactly one value must be specified",
            .gates = [] { return Version("1.34"); }},
          C{.name = "string too long",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("model", DeviceAttribute::String(std::string(65, 'x')));
                },
            .field = "spec.devices[0].attributes[model].string",
            .type = T::kTooLong,
            .detail = "64 bytes"},
          C{.name = "bad version",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("driverVersion", DeviceAttribute::VersionOf("580.95.05"));
                },
            .field = "spec.devices[0].attributes[driverVersion].version",
            .type = T::kInvalid,
            .detail = "semver.org spec 2.0.0"},
          C{.name = "long attribute key truncated in path",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign(std::string(63, 'd') + "/" + std::string(32, 'n') + "x",
                                                     DeviceAttribute{});
                },
            .field = "spec.devices[0].attributes[" + std::string(47, 'd') + "..." + std::string(12, 'd') + "/" +
                     std::string(32, 'n') + "x]",
            .type = T::kInvalid,
            .detail = "must specify one of"},
          C{.name = "list attribute gate off",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("numa", DeviceAttribute::Ints({0})); },
            .field = "spec.devices[0].attributes[numa].ints",
            .type = T::kForbidden,
            .detail = "DRAListTypeAttributes",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.36"); }},
          // The API server drops the list and then finds no value (a real
          // v1.37.2 kube-apiserver rejected examples/cluster's dra.cpu slice so).
          C{.name = "list attribute gate off leaves no value",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("roots", DeviceAttribute::Strings({"pci0000:15"}));
                },
            .field = "spec.devices[0].attributes[roots]",
            .type = T::kInvalid,
            .detail = "must specify one of",
            .gates = [] { return Version("1.37"); }},
          C{.name = "empty list attribute",
            .mutate = [&](ResourceSlice& s) { dev(s).attributes.insert_or_assign("numa", DeviceAttribute::Ints({})); },
            .field = "spec.devices[0].attributes[numa].ints",
            .type = T::kInvalid,
            .detail = "must not be empty"},
          C{.name = "bad version in list",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("vs", DeviceAttribute::Versions({"1.0.0", "1.0"}));
                },
            .field = "spec.devices[0].attributes[vs].versions[1]",
            .type = T::kInvalid,
            .detail = "semver"},
          C{.name = "long string in list",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).attributes.insert_or_assign("ss", DeviceAttribute::Strings({std::string(65, 'x')}));
                },
            .field = "spec.devices[0].attributes[ss].strings[0]",
            .type = T::kTooLong},
      });
}

TEST(ValidationTest, DeviceCapacityAndTaintRules) {
  using C = Case<ResourceSlice>;
  auto dev = [](ResourceSlice& s) -> Device& { return s.spec.devices[0]; };
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "capacity key bad",
            .mutate = [&](ResourceSlice& s) { dev(s).capacity.insert_or_assign("mem ory", DeviceCapacity{}); },
            .field = "spec.devices[0].capacity",
            .type = T::kInvalid,
            .detail = "C identifier"},
          C{.name = "capacity domain upper case",
            .mutate = [&](ResourceSlice& s) { dev(s).capacity.insert_or_assign("Example.com/mem", DeviceCapacity{}); },
            .field = "spec.devices[0].capacity",
            .type = T::kInvalid,
            .detail = "lower case",
            .severity = Severity::kWarning},
          C{.name = "requestPolicy without allowMultipleAllocations",
            .mutate = [&](ResourceSlice& s) { dev(s).capacity.find("memory")->request_policy.emplace(); },
            .field = "spec.devices[0].capacity[memory].requestPolicy",
            .type = T::kForbidden,
            .detail = "allowMultipleAllocations must be true"},
          C{.name = "allowMultipleAllocations gate off",
            .mutate = [&](ResourceSlice& s) { dev(s).allow_multiple_allocations = true; },
            .field = "spec.devices[0].allowMultipleAllocations",
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "taints gate off",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().taints = {{.key = "k", .effect = "NoSchedule"}}; },
            .field = "spec.devices[0].taints",
            .type = T::kForbidden,
            .detail = "DRADeviceTaints",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "17 taints",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().taints = std::vector<DeviceTaint>(17, {.key = "k", .effect = "NoSchedule"});
                },
            .field = "spec.devices[0].taints",
            .type = T::kTooMany,
            .detail = "at most 16 items"},
          C{.name = "5 taints in 1.34",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().taints = std::vector<DeviceTaint>(5, {.key = "k", .effect = "NoSchedule"});
                },
            .field = "spec.devices[0].taints",
            .type = T::kTooMany,
            .detail = "at most 4 items",
            .gates =
                [] {
                  FeatureGates g = Version("1.34");
                  EXPECT_TRUE(g.Set("DRADeviceTaints", true).ok());
                  return g;
                }},
          C{.name = "taint without key",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().taints = {{.effect = "NoSchedule"}}; },
            .field = "spec.devices[0].taints[0].key",
            .type = T::kInvalid,
            .detail = "name part must be non-empty"},
          C{.name = "taint bad value",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().taints = {{.key = "k", .value = "a b", .effect = "NoSchedule"}};
                },
            .field = "spec.devices[0].taints[0].value",
            .type = T::kInvalid,
            .detail = "label value"},
          C{.name = "taint without effect",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().taints = {{.key = "k"}}; },
            .field = "spec.devices[0].taints[0].effect",
            .type = T::kRequired},
          C{.name = "taint unknown effect",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().taints = {{.key = "k", .effect = "Evict"}}; },
            .field = "spec.devices[0].taints[0].effect",
            .type = T::kNotSupported,
            .detail = R"(supported values: "NoExecute", "NoSchedule", "None")"},
          C{.name = "taint effect None in 1.34",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().taints = {{.key = "k", .effect = "None"}}; },
            .field = "spec.devices[0].taints[0].effect",
            .type = T::kNotSupported,
            .detail = R"(supported values: "NoExecute", "NoSchedule")",
            .gates =
                [] {
                  FeatureGates g = Version("1.34");
                  EXPECT_TRUE(g.Set("DRADeviceTaints", true).ok());
                  return g;
                }},
      });
}

TEST(ValidationTest, DeviceCounterConsumptionRules) {
  using C = Case<ResourceSlice>;
  auto dev = [](ResourceSlice& s) -> Device& { return s.spec.devices[0]; };
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "consumesCounters gate off",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().consumes_counters = {{.counter_set = "c", .counters = {{"m", Counter{}}}}};
                },
            .field = "spec.devices[0].consumesCounters",
            .type = T::kForbidden,
            .detail = "DRAPartitionableDevices",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "three counter consumptions",
            .mutate =
                [&](ResourceSlice& s) {
                  for (std::string name : {"a", "b", "c"}) {
                    dev(s).rare.mut().consumes_counters.push_back(
                        {.counter_set = name, .counters = {{"m", Counter{}}}});
                  }
                },
            .field = "spec.devices[0].consumesCounters",
            .type = T::kTooMany,
            .detail = "at most 2 items"},
          C{.name = "duplicate counter set consumption",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().consumes_counters = {{.counter_set = "a", .counters = {{"m", Counter{}}}},
                                                         {.counter_set = "a", .counters = {{"n", Counter{}}}}};
                },
            .field = "spec.devices[0].consumesCounters[1]",
            .type = T::kDuplicate},
          C{.name = "consumption without counter set",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().consumes_counters = {{.counters = {{"m", Counter{}}}}};
                },
            .field = "spec.devices[0].consumesCounters[0].counterSet",
            .type = T::kRequired},
          C{.name = "consumption without counters",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().consumes_counters = {{.counter_set = "a"}}; },
            .field = "spec.devices[0].consumesCounters[0].counters",
            .type = T::kRequired},
          C{.name = "consumption of 33 counters",
            .mutate =
                [&](ResourceSlice& s) {
                  DeviceCounterConsumption c{.counter_set = "a"};
                  for (int i = 0; i < 33; ++i) c.counters.insert_or_assign(Numbered("c", i), Counter{});
                  dev(s).rare.mut().consumes_counters = {c};
                },
            .field = "spec.devices[0].consumesCounters[0].counters",
            .type = T::kTooMany,
            .detail = "at most 32"},
          C{.name = "compatibilityGroups gate off",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().consumes_counters = {
                      {.counter_set = "a", .counters = {{"m", Counter{}}}, .compatibility_groups = {"g"}}};
                },
            .field = "spec.devices[0].consumesCounters[0].compatibilityGroups",
            .type = T::kForbidden,
            .detail = "DRADeviceCompatibilityGroups",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.37"); }},
      });
}

TEST(ValidationTest, DeviceNodeNameAndBindingConditionRules) {
  using C = Case<ResourceSlice>;
  auto dev = [](ResourceSlice& s) -> Device& { return s.spec.devices[0]; };
  RunCases<ResourceSlice>(
      BaseSlice(), ValidateResourceSlice,
      {
          C{.name = "device node name without perDeviceNodeSelection",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().node_name = "node-1"; },
            .field = "spec.devices[0]",
            .type = T::kInvalid,
            .detail = "can only be set if `perDeviceNodeSelection` is set to true"},
          C{.name = "device node selection gate off",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().all_nodes = true; },
            .field = "spec.devices[0].allNodes",
            .type = T::kForbidden,
            .detail = "DRAPartitionableDevices",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "bindsToNode gate off",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().binds_to_node = true; },
            .field = "spec.devices[0].bindsToNode",
            .type = T::kForbidden,
            .detail = "DRADeviceBindingConditions",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "binding conditions without device status gate",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"ready"};
                  dev(s).rare.mut().binding_failure_conditions = {"failed"};
                },
            .field = "spec.devices[0].bindingConditions",
            .type = T::kForbidden,
            .detail = "DRAResourceClaimDeviceStatus",
            .severity = Severity::kWarning,
            .gates =
                [] {
                  FeatureGates g = AllOn();
                  EXPECT_TRUE(g.Set("DRAResourceClaimDeviceStatus", false).ok());
                  return g;
                }},
          C{.name = "five binding conditions",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"a", "b", "c", "d", "e"};
                  dev(s).rare.mut().binding_failure_conditions = {"f"};
                },
            .field = "spec.devices[0].bindingConditions",
            .type = T::kTooMany,
            .detail = "at most 4 items"},
          C{.name = "five binding failure conditions",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"a"};
                  dev(s).rare.mut().binding_failure_conditions = {"b", "c", "d", "e", "f"};
                },
            .field = "spec.devices[0].bindingFailureConditions",
            .type = T::kTooMany,
            .detail = "at most 4 items"},
          C{.name = "duplicate binding condition",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"a", "a"};
                  dev(s).rare.mut().binding_failure_conditions = {"f"};
                },
            .field = "spec.devices[0].bindingConditions[1]",
            .type = T::kDuplicate},
          C{.name = "overlapping binding conditions",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"a"};
                  dev(s).rare.mut().binding_failure_conditions = {"a"};
                },
            .field = "spec.devices[0].bindingFailureConditions[0]",
            .type = T::kInvalid,
            .detail = "must not overlap with bindingConditions"},
          C{.name = "binding conditions without failure conditions",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().binding_conditions = {"a"}; },
            .field = "spec.devices[0].bindingFailureConditions",
            .type = T::kInvalid,
            .detail = "bindingFailureConditions are required to use bindingConditions"},
          C{.name = "failure conditions without binding conditions",
            .mutate = [&](ResourceSlice& s) { dev(s).rare.mut().binding_failure_conditions = {"a"}; },
            .field = "spec.devices[0].bindingConditions",
            .type = T::kInvalid,
            .detail = "bindingConditions are required to use bindingFailureConditions"},
          C{.name = "bad binding condition",
            .mutate =
                [&](ResourceSlice& s) {
                  dev(s).rare.mut().binding_conditions = {"-bad"};
                  dev(s).rare.mut().binding_failure_conditions = {"f"};
                },
            .field = "spec.devices[0].bindingConditions[0]",
            .type = T::kInvalid,
            .detail = "name part"},
      });
}

TEST(ValidationTest, PerDeviceNodeSelectionRules) {
  using C = Case<ResourceSlice>;
  auto rare = [](ResourceSlice& s) -> DeviceRareFields& { return s.spec.devices[0].rare.mut(); };
  RunCases<ResourceSlice>(
      BasePartitionableSlice(), ValidateResourceSlice,
      {
          C{.name = "no device node selection",
            .mutate = [&](ResourceSlice& s) { rare(s).node_name.reset(); },
            .field = "spec.devices[0]",
            .type = T::kRequired,
            .detail = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required"},
          C{.name = "two device node selections",
            .mutate = [&](ResourceSlice& s) { rare(s).all_nodes = true; },
            .field = "spec.devices[0]",
            .type = T::kInvalid,
            .detail = "exactly one of `nodeName`, `nodeSelector`"},
          C{.name = "empty device node name",
            .mutate = [&](ResourceSlice& s) { rare(s).node_name = ""; },
            .field = "spec.devices[0].nodeName",
            .type = T::kInvalid,
            .detail = "must not be empty"},
          C{.name = "device allNodes false",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_name.reset();
                  rare(s).all_nodes = false;
                },
            .field = "spec.devices[0].allNodes",
            .type = T::kInvalid,
            .detail = "must be either unset or set to true"},
          C{.name = "device node selector with two terms",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_name.reset();
                  rare(s).node_selector = OneTermSelector();
                  rare(s).node_selector->node_selector_terms.push_back(rare(s).node_selector->node_selector_terms[0]);
                },
            .field = "spec.devices[0].nodeSelector.nodeSelectorTerms",
            .type = T::kInvalid,
            .detail = "exactly one node selector term",
            .severity = Severity::kWarning},
          C{.name = "partitionTypeAttribute gate off",
            .mutate = [](ResourceSlice&) {},
            .field = "spec.partitionTypeAttribute",
            .type = T::kForbidden,
            .detail = "DRAPartitionableDevicesType",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.37"); }},
          C{.name = "partitionTypeAttribute without counters",
            .mutate =
                [](ResourceSlice& s) {
                  for (Device& d : s.spec.devices) d.rare.mut().consumes_counters.clear();
                },
            .field = "spec.partitionTypeAttribute",
            .type = T::kInvalid,
            .detail = "may only be set on a slice which declares devices that consume counters"},
          C{.name = "partitionTypeAttribute without domain",
            .mutate = [](ResourceSlice& s) { s.spec.partition_type_attribute = "type"; },
            .field = "spec.partitionTypeAttribute",
            .type = T::kInvalid,
            .detail = "a fully qualified name must be a domain and a name separated by a slash"},
          C{.name = "device lacks partition type attribute",
            .mutate = [](ResourceSlice& s) { s.spec.partition_type_attribute = "other.example.com/type"; },
            .field = "spec.devices[0].attributes[other.example.com/type]",
            .type = T::kRequired,
            .detail = "device consumes counters and `partitionTypeAttribute` names this attribute"},
          C{.name = "partition type attribute not a string",
            .mutate =
                [](ResourceSlice& s) {
                  s.spec.devices[1].attributes.insert_or_assign("type", DeviceAttribute::Int(1));
                },
            .field = "spec.devices[1].attributes[gpu.example.com/type]",
            .type = T::kInvalid,
            .detail = "must be a string value"},
      });
}

TEST(ValidationTest, NodeAllocatableResourceRules) {
  using C = Case<ResourceSlice>;
  auto rare = [](ResourceSlice& s) -> DeviceRareFields& { return s.spec.devices[0].rare.mut(); };
  RunCases<ResourceSlice>(
      BasePartitionableSlice(), ValidateResourceSlice,
      {
          C{.name = "node allocatable gate off",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "memory",
                      NodeAllocatableResource{.overhead = NodeAllocatableResourceOverhead{.per_pod = Q("1Mi")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources",
            .type = T::kForbidden,
            .detail = "DRANodeAllocatableResources",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.37"); }},
          C{.name = "node allocatable extended resource",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "example.com/gpu",
                      NodeAllocatableResource{.overhead = NodeAllocatableResourceOverhead{.per_pod = Q("1")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[example.com/gpu]",
            .type = T::kInvalid,
            .detail = "must be a node allocatable resource name"},
          C{.name = "node allocatable without mapping or overhead",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign("cpu", NodeAllocatableResource{});
                },
            .field = "spec.devices[0].nodeAllocatableResources[cpu]",
            .type = T::kRequired,
            .detail = "at least one of mapping or overhead must be set"},
          C{.name = "unknown capacity key",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "memory", NodeAllocatableResource{.mapping = NodeAllocatableResourceMapping{
                                                            .capacity_key = "hbm", .capacity_multiplier = Q("1")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityKey",
            .type = T::kNotFound},
          C{.name = "capacity key without multiplier",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "memory",
                      NodeAllocatableResource{.mapping = NodeAllocatableResourceMapping{.capacity_key = "memory"}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityMultiplier",
            .type = T::kRequired,
            .detail = "capacityMultiplier is required when capacityKey is set"},
          C{.name = "multiplier without capacity key",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "memory", NodeAllocatableResource{
                                    .mapping = NodeAllocatableResourceMapping{.capacity_multiplier = Q("1")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityKey",
            .type = T::kRequired,
            .detail = "capacityKey is required when capacityMultiplier is set"},
          C{.name = "zero capacity multiplier",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "memory", NodeAllocatableResource{.mapping = NodeAllocatableResourceMapping{
                                                            .capacity_key = "memory", .capacity_multiplier = Q("0")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityMultiplier",
            .type = T::kInvalid,
            .detail = "must be positive"},
          C{.name = "negative device multiplier",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "cpu",
                      NodeAllocatableResource{.mapping = NodeAllocatableResourceMapping{.device_multiplier = Q("-1")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier",
            .type = T::kInvalid,
            .detail = "must be positive"},
          C{.name = "empty overhead",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "cpu", NodeAllocatableResource{.overhead = NodeAllocatableResourceOverhead{}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[cpu].overhead",
            .type = T::kInvalid,
            .detail = "at least one of perPod or perContainer must be set"},
          C{.name = "negative overhead",
            .mutate =
                [&](ResourceSlice& s) {
                  rare(s).node_allocatable_resources.insert_or_assign(
                      "cpu",
                      NodeAllocatableResource{.overhead = NodeAllocatableResourceOverhead{.per_container = Q("-1m")}});
                },
            .field = "spec.devices[0].nodeAllocatableResources[cpu].overhead.perContainer",
            .type = T::kInvalid,
            .detail = "must be non-negative"},
      });
}

// ---------------------------------------------------------------------------
// ResourceSlice: capacity request policies (src/api/README.md §4.4)

TEST(ValidationTest, RequestPolicyValidValuesRules) {
  using C = Case<ResourceSlice>;
  const std::string p = "spec.devices[0].capacity[memory].requestPolicy";
  auto values = [](std::initializer_list<std::string_view> texts) {
    std::vector<Quantity> out;
    for (std::string_view t : texts) out.push_back(Q(t));
    return out;
  };
  auto discrete = [&](ResourceSlice& s, std::initializer_list<std::string_view> texts, std::string_view def) {
    Policy(s).valid_range.reset();
    Policy(s).valid_values = values(texts);
    Policy(s).default_ = Q(def);
  };
  RunCases<ResourceSlice>(
      BaseSharedCapacitySlice(), ValidateResourceSlice,
      {
          C{.name = "requestPolicy gate off",
            .mutate = [](ResourceSlice& s) { s.spec.devices[0].allow_multiple_allocations.reset(); },
            .field = p,
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "values and range",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_values = values({"1Gi"}); },
            .field = p,
            .type = T::kForbidden,
            .detail = "exactly one policy can be specified"},
          C{.name = "values without default",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"1Gi"}, "1Gi");
                  Policy(s).default_.reset();
                },
            .field = p + ".default",
            .type = T::kRequired,
            .detail = "required when validValues is defined"},
          C{.name = "range without default",
            .mutate = [&](ResourceSlice& s) { Policy(s).default_.reset(); },
            .field = p + ".default",
            .type = T::kRequired,
            .detail = "required when validRange is defined"},
          C{.name = "values unsorted",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"2Gi", "1Gi"}, "1Gi");
                },
            .field = p + ".validValues[1]",
            .type = T::kInvalid,
            .detail = "values must be sorted in ascending order"},
          C{.name = "value above capacity",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"1Gi", "81Gi"}, "1Gi");
                },
            .field = p + ".validValues[1]",
            .type = T::kInvalid,
            .detail = "option is larger than capacity value: 80Gi"},
          C{.name = "eleven values",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}, "1");
                },
            .field = p + ".validValues",
            .type = T::kTooMany,
            .detail = "at most 10 items"},
          C{.name = "duplicate values",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"1Gi", "1024Mi"}, "1Gi");
                },
            .field = p + ".validValues[1]",
            .type = T::kDuplicate},
          C{.name = "default not a value",
            .mutate =
                [&](ResourceSlice& s) {
                  discrete(s, {"1Gi", "2Gi"}, "3Gi");
                },
            .field = p + ".validValues",
            .type = T::kInvalid,
            .detail = "default value is not valid according to the requestPolicy"},
      });
}

TEST(ValidationTest, RequestPolicyValidRangeRules) {
  using C = Case<ResourceSlice>;
  const std::string p = "spec.devices[0].capacity[memory].requestPolicy";
  auto no_fraction = [] {
    FeatureGates g = AllOn();
    EXPECT_TRUE(g.Set("DRAFractionalCapacityRange", false).ok());
    return g;
  };
  RunCases<ResourceSlice>(
      BaseSharedCapacitySlice(), ValidateResourceSlice,
      {
          C{.name = "range without min",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->min.reset(); },
            .field = p + ".validRange.min",
            .type = T::kRequired,
            .detail = "required when validRange is defined"},
          C{.name = "min above capacity",
            .mutate =
                [&](ResourceSlice& s) {
                  Policy(s).valid_range->min = Q("81Gi");
                  Policy(s).valid_range->max.reset();
                  Policy(s).default_ = Q("81Gi");
                },
            .field = p + ".validRange.min",
            .type = T::kInvalid,
            .detail = "min is larger than capacity value: 80Gi"},
          C{.name = "default below min",
            .mutate = [&](ResourceSlice& s) { Policy(s).default_ = Q("512Mi"); },
            .field = p + ".validRange.default",
            .type = T::kInvalid,
            .detail = "default is less than min: 1Gi"},
          C{.name = "min above max",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->max = Q("512Mi"); },
            .field = p + ".validRange.max",
            .type = T::kInvalid,
            .detail = "min is larger than max: 512Mi"},
          C{.name = "max above capacity",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->max = Q("81Gi"); },
            .field = p + ".validRange.max",
            .type = T::kInvalid,
            .detail = "max is larger than capacity value"},
          C{.name = "default above max",
            .mutate =
                [&](ResourceSlice& s) {
                  Policy(s).valid_range->max = Q("2Gi");
                  Policy(s).default_ = Q("3Gi");
                },
            .field = p + ".validRange.default",
            .type = T::kInvalid,
            .detail = "default is more than max: 2Gi"},
          C{.name = "zero step",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->step = Q("0"); },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "must be greater than zero"},
          C{.name = "step beyond capacity",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->step = Q("80Gi"); },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "one step 81Gi is larger than capacity value"},
          C{.name = "default off step",
            .mutate = [&](ResourceSlice& s) { Policy(s).default_ = Q("1536Mi"); },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "value is not a multiple of a given step (1Gi) from (1Gi)"},
          C{.name = "max off step",
            .mutate = [&](ResourceSlice& s) { Policy(s).valid_range->max = Q("2560Mi"); },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "value is not a multiple of a given step"},
          C{.name = "fractional step, integer arithmetic without the gate",
            .mutate =
                [&](ResourceSlice& s) {
                  Policy(s).valid_range = CapacityRequestPolicyRange{.min = Q("0"), .step = Q("1.5")};
                  Policy(s).default_ = Q("3");
                },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "value is not a multiple of a given step",
            .gates = no_fraction},
          C{.name = "sub-milli step with the gate",
            .mutate =
                [&](ResourceSlice& s) {
                  Policy(s).valid_range = CapacityRequestPolicyRange{.min = Q("0"), .step = Q("0.0005")};
                  Policy(s).default_ = Q("0");
                },
            .field = p + ".validRange.step",
            .type = T::kInvalid,
            .detail = "value cannot be represented as a milli value"},
          C{.name = "negative min on the integer path",
            .mutate =
                [&](ResourceSlice& s) {
                  Policy(s).valid_range = CapacityRequestPolicyRange{.min = Q("-2"), .step = Q("2")};
                  Policy(s).default_ = Q("0");
                },
            .field = p + ".validRange.min",
            .type = T::kInvalid,
            .detail = "must be greater than or equal to 0"},
      });

  // The fractional range that the integer path rejects is exact in milli-units.
  ResourceSlice s = BaseSharedCapacitySlice();
  Policy(s).valid_range = CapacityRequestPolicyRange{.min = Q("0"), .step = Q("1.5")};
  Policy(s).default_ = Q("3");
  EXPECT_TRUE(ValidateResourceSlice(s, AllOn()).empty()) << Dump(ValidateResourceSlice(s, AllOn()));
}

// ---------------------------------------------------------------------------
// ResourceClaim spec

TEST(ValidationTest, ResourceClaimRequestRules) {
  using C = Case<ResourceClaim>;
  const std::string r = "spec.devices.requests";
  auto ex = [](ResourceClaim& c) -> ExactDeviceRequest& { return *c.spec.devices.requests[0].exactly; };
  auto sub = [](ResourceClaim& c) -> DeviceSubRequest& { return c.spec.devices.requests[1].first_available[0]; };
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "bad namespace",
            .mutate = [](ResourceClaim& c) { c.metadata.namespace_ = "a.b"; },
            .field = "metadata.namespace",
            .type = T::kInvalid,
            .detail = "must not contain dots"},
          C{.name = "33 requests",
            .mutate =
                [](ResourceClaim& c) {
                  c.spec.devices.requests.clear();
                  for (int i = 0; i < 33; ++i) {
                    c.spec.devices.requests.push_back({.name = Numbered("r", i), .exactly = Exact()});
                  }
                },
            .field = r,
            .type = T::kTooMany,
            .detail = "at most 32 items"},
          C{.name = "duplicate request names",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[1].name = "gpu"; },
            .field = r + "[1]",
            .type = T::kDuplicate},
          C{.name = "request without name",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[0].name = ""; },
            .field = r + "[0].name",
            .type = T::kRequired},
          C{.name = "bad request name",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[0].name = "GPU"; },
            .field = r + "[0].name",
            .type = T::kInvalid,
            .detail = "RFC 1123 label"},
          C{.name = "request without body",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[0].exactly.reset(); },
            .field = r + "[0]",
            .type = T::kRequired,
            .detail = "exactly one of `exactly` or `firstAvailable` is required"},
          C{.name = "request with both bodies",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[0].first_available = {Sub("a")}; },
            .field = r + "[0]",
            .type = T::kInvalid,
            .detail = "but multiple fields are set"},
          C{.name = "firstAvailable gate off",
            .mutate = [](ResourceClaim&) {},
            .field = r + "[1].firstAvailable",
            .type = T::kForbidden,
            .detail = "DRAPrioritizedList",
            .severity = Severity::kWarning,
            .gates =
                [] {
                  FeatureGates g = AllOn();
                  EXPECT_TRUE(g.Set("DRAPrioritizedList", false).ok());
                  return g;
                }},
          C{.name = "nine subrequests",
            .mutate =
                [](ResourceClaim& c) {
                  c.spec.devices.requests[1].first_available.clear();
                  for (int i = 0; i < 9; ++i)
                    c.spec.devices.requests[1].first_available.push_back(Sub(Numbered("s", i)));
                  c.spec.devices.constraints.clear();
                },
            .field = r + "[1].firstAvailable",
            .type = T::kTooMany,
            .detail = "at most 8 items"},
          C{.name = "duplicate subrequests",
            .mutate = [](ResourceClaim& c) { c.spec.devices.requests[1].first_available[1].name = "large"; },
            .field = r + "[1].firstAvailable[1]",
            .type = T::kDuplicate},
          C{.name = "bad subrequest name",
            .mutate = [&](ResourceClaim& c) { sub(c).name = "large_1"; },
            .field = r + "[1].firstAvailable[0].name",
            .type = T::kInvalid},
          C{.name = "subrequest without class",
            .mutate = [&](ResourceClaim& c) { sub(c).device_class_name = ""; },
            .field = r + "[1].firstAvailable[0].deviceClassName",
            .type = T::kRequired},
          C{.name = "no device class",
            .mutate = [&](ResourceClaim& c) { ex(c).device_class_name = ""; },
            .field = r + "[0].exactly.deviceClassName",
            .type = T::kRequired},
          C{.name = "bad device class",
            .mutate = [&](ResourceClaim& c) { ex(c).device_class_name = "GPU"; },
            .field = r + "[0].exactly.deviceClassName",
            .type = T::kInvalid,
            .detail = "RFC 1123 subdomain"},
          C{.name = "33 selectors",
            .mutate =
                [&](ResourceClaim& c) {
                  ex(c).selectors = std::vector<DeviceSelector>(33, {.cel = CelDeviceSelector{.expression = "true"}});
                },
            .field = r + "[0].exactly.selectors",
            .type = T::kTooMany,
            .detail = "at most 32"},
          C{.name = "selector too long",
            .mutate =
                [&](ResourceClaim& c) {
                  ex(c).selectors = {{.cel = CelDeviceSelector{.expression = std::string(10241, ' ')}}};
                },
            .field = r + "[0].exactly.selectors[0].cel.expression",
            .type = T::kTooLong},
          C{.name = "allocation mode unset (not defaulted)",
            .mutate = [&](ResourceClaim& c) { ex(c).allocation_mode = ""; },
            .field = r + "[0].exactly.allocationMode",
            .type = T::kNotSupported,
            .detail = R"(supported values: "All", "ExactCount")"},
          C{.name = "unknown allocation mode",
            .mutate = [&](ResourceClaim& c) { sub(c).allocation_mode = "Some"; },
            .field = r + "[1].firstAvailable[0].allocationMode",
            .type = T::kNotSupported},
          C{.name = "zero count",
            .mutate = [&](ResourceClaim& c) { ex(c).count = 0; },
            .field = r + "[0].exactly.count",
            .type = T::kInvalid,
            .detail = "must be greater than zero"},
          C{.name = "count with All",
            .mutate = [&](ResourceClaim& c) { ex(c).allocation_mode = "All"; },
            .field = r + "[0].exactly.count",
            .type = T::kInvalid,
            .detail = "must not be specified when allocationMode is 'All'"},
      });
}

TEST(ValidationTest, ResourceClaimAdminAccessTolerationAndCapacityRules) {
  using C = Case<ResourceClaim>;
  const std::string r = "spec.devices.requests";
  auto ex = [](ResourceClaim& c) -> ExactDeviceRequest& { return *c.spec.devices.requests[0].exactly; };
  auto sub = [](ResourceClaim& c) -> DeviceSubRequest& { return c.spec.devices.requests[1].first_available[0]; };
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "adminAccess gate off",
            .mutate = [&](ResourceClaim& c) { ex(c).admin_access = true; },
            .field = r + "[0].exactly.adminAccess",
            .type = T::kForbidden,
            .detail = "DRAAdminAccess",
            .severity = Severity::kWarning,
            .gates = [] { return FeatureGates::FromList({}).value(); }},
          C{.name = "tolerations gate off",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.operator_ = "Exists"}}; },
            .field = r + "[0].exactly.tolerations",
            .type = T::kForbidden,
            .detail = "DRADeviceTaints",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "toleration without operator",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.key = "k"}}; },
            .field = r + "[0].exactly.tolerations[0].operator",
            .type = T::kRequired},
          C{.name = "toleration unknown operator",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.key = "k", .operator_ = "Lt"}}; },
            .field = r + "[0].exactly.tolerations[0].operator",
            .type = T::kNotSupported,
            .detail = R"(supported values: "Equal", "Exists")"},
          C{.name = "toleration Exists with value",
            .mutate =
                [&](ResourceClaim& c) { ex(c).tolerations = {{.key = "k", .operator_ = "Exists", .value = "v"}}; },
            .field = r + "[0].exactly.tolerations[0].value",
            .type = T::kInvalid,
            .detail = "must be empty for operator `Exists`"},
          C{.name = "toleration bad value",
            .mutate =
                [&](ResourceClaim& c) { ex(c).tolerations = {{.key = "k", .operator_ = "Equal", .value = "a b"}}; },
            .field = r + "[0].exactly.tolerations[0].value",
            .type = T::kInvalid,
            .detail = "label value"},
          C{.name = "toleration bad key",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.key = "a/b/c", .operator_ = "Exists"}}; },
            .field = r + "[0].exactly.tolerations[0].key",
            .type = T::kInvalid},
          C{.name = "toleration unknown effect",
            .mutate =
                [&](ResourceClaim& c) { sub(c).tolerations = {{.operator_ = "Exists", .effect = "PreferNoSchedule"}}; },
            .field = r + "[1].firstAvailable[0].tolerations[0].effect",
            .type = T::kNotSupported},
          C{.name = "toleration effect None",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.operator_ = "Exists", .effect = "None"}}; },
            .field = r + "[0].exactly.tolerations[0].effect",
            .type = T::kNotSupported,
            .detail = "the documentation allows only",
            .severity = Severity::kWarning},
          C{.name = "toleration empty key with Equal",
            .mutate = [&](ResourceClaim& c) { ex(c).tolerations = {{.operator_ = "Equal", .value = "v"}}; },
            .field = r + "[0].exactly.tolerations[0].operator",
            .type = T::kInvalid,
            .detail = "requires operator `Exists` when `key` is empty",
            .severity = Severity::kWarning},
          C{.name = "17 tolerations",
            .mutate =
                [&](ResourceClaim& c) {
                  ex(c).tolerations = std::vector<DeviceToleration>(17, {.operator_ = "Exists"});
                },
            .field = r + "[0].exactly.tolerations",
            .type = T::kTooMany,
            .detail = "documented limit",
            .severity = Severity::kWarning},
          C{.name = "capacity gate off",
            .mutate =
                [&](ResourceClaim& c) {
                  ex(c).capacity = CapacityRequirements{.requests = {{"memory", Q("1Gi")}}};
                },
            .field = r + "[0].exactly.capacity",
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
      });
}

TEST(ValidationTest, ResourceClaimDerivedAttributeConstraintAndConfigRules) {
  using C = Case<ResourceClaim>;
  const std::string r = "spec.devices.requests";
  auto ex = [](ResourceClaim& c) -> ExactDeviceRequest& { return *c.spec.devices.requests[0].exactly; };
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "derivedAttributes gate off",
            .mutate = [&](ResourceClaim& c) { ex(c).derived_attributes = {{.name = "x", .expression = "1"}}; },
            .field = r + "[0].exactly.derivedAttributes",
            .type = T::kForbidden,
            .detail = "DRADerivedAttributes",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.37"); }},
          C{.name = "derived attribute not used by a constraint",
            .mutate = [&](ResourceClaim& c) { ex(c).derived_attributes = {{.name = "x", .expression = "1"}}; },
            .field = r + "[0].exactly.derivedAttributes[0].name",
            .type = T::kInvalid,
            .detail = "must be referenced by at least one matchAttribute or distinctAttribute "
                      "constraint"},
          C{.name = "derived attribute without name",
            .mutate = [&](ResourceClaim& c) { ex(c).derived_attributes = {{.expression = "1"}}; },
            .field = r + "[0].exactly.derivedAttributes[0].name",
            .type = T::kRequired},
          C{.name = "derived attribute without expression",
            .mutate = [&](ResourceClaim& c) { ex(c).derived_attributes = {{.name = "gpu.example.com/model"}}; },
            .field = r + "[0].exactly.derivedAttributes[0].expression",
            .type = T::kRequired},
          C{.name = "duplicate derived attributes",
            .mutate =
                [&](ResourceClaim& c) {
                  ex(c).derived_attributes = {{.name = "gpu.example.com/model", .expression = "1"},
                                              {.name = "gpu.example.com/model", .expression = "2"}};
                },
            .field = r + "[0].exactly.derivedAttributes[1]",
            .type = T::kDuplicate},
          C{.name = "33 constraints",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints.resize(33, c.spec.devices.constraints[0]); },
            .field = "spec.devices.constraints",
            .type = T::kTooMany,
            .detail = "at most 32"},
          C{.name = "constraint names unknown request",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].requests = {"cpu"}; },
            .field = "spec.devices.constraints[0].requests[0]",
            .type = T::kInvalid,
            .detail = "must be the name of a request in the claim or the name of a request and a "
                      "subrequest separated by '/'"},
          C{.name = "constraint names unknown subrequest",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].requests = {"multi/medium"}; },
            .field = "spec.devices.constraints[0].requests[0]",
            .type = T::kInvalid,
            .detail = "must be the name of a request"},
          C{.name = "constraint names subrequest of an exact request",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].requests = {"gpu/large"}; },
            .field = "spec.devices.constraints[0].requests[0]",
            .type = T::kInvalid,
            .detail = "must be the name of a request"},
          C{.name = "constraint reference with two slashes",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].requests = {"multi/large/x"}; },
            .field = "spec.devices.constraints[0].requests[0]",
            .type = T::kInvalid,
            .detail = "separated by '/'"},
          C{.name = "duplicate constraint references",
            .mutate =
                [](ResourceClaim& c) {
                  c.spec.devices.constraints[0].requests = {"gpu", "gpu"};
                },
            .field = "spec.devices.constraints[0].requests[1]",
            .type = T::kDuplicate},
          C{.name = "constraint without attribute",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].match_attribute.reset(); },
            .field = "spec.devices.constraints[0]",
            .type = T::kRequired,
            .detail = R"(exactly one of "matchAttribute" or "distinctAttribute" is required)"},
          C{.name = "constraint without attribute, no consumable capacity",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].match_attribute.reset(); },
            .field = "spec.devices.constraints[0].matchAttribute",
            .type = T::kRequired,
            .gates = [] { return Version("1.35"); }},
          C{.name = "matchAttribute without domain",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].match_attribute = "model"; },
            .field = "spec.devices.constraints[0].matchAttribute",
            .type = T::kInvalid,
            .detail = "a fully qualified name must be a domain and a name separated by a slash"},
          C{.name = "distinctAttribute gate off",
            .mutate =
                [](ResourceClaim& c) {
                  c.spec.devices.constraints[0].match_attribute.reset();
                  c.spec.devices.constraints[0].distinct_attribute = "gpu.example.com/model";
                },
            .field = "spec.devices.constraints[0].distinctAttribute",
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "distinctAttribute bad",
            .mutate =
                [](ResourceClaim& c) {
                  c.spec.devices.constraints[0].match_attribute.reset();
                  c.spec.devices.constraints[0].distinct_attribute = "gpu.example.com/";
                },
            .field = "spec.devices.constraints[0].distinctAttribute",
            .type = T::kInvalid,
            // kube-apiserver v1.37.2's text (declarative validation).
            .detail = "name must not be empty"},
          C{.name = "match and distinct",
            .mutate = [](ResourceClaim& c) { c.spec.devices.constraints[0].distinct_attribute = "gpu.example.com/x"; },
            .field = "spec.devices.constraints[0]",
            .type = T::kInvalid,
            .detail = "both `matchAttribute` and `distinctAttribute`",
            .severity = Severity::kWarning},
          C{.name = "33 configs",
            .mutate = [](ResourceClaim& c) { c.spec.devices.config.resize(33, c.spec.devices.config[0]); },
            .field = "spec.devices.config",
            .type = T::kTooMany,
            .detail = "at most 32"},
          C{.name = "config names unknown request",
            .mutate = [](ResourceClaim& c) { c.spec.devices.config[0].requests = {"nic"}; },
            .field = "spec.devices.config[0].requests[0]",
            .type = T::kInvalid,
            .detail = "must be the name of a request"},
          C{.name = "config without opaque",
            .mutate = [](ResourceClaim& c) { c.spec.devices.config[0].opaque.reset(); },
            .field = "spec.devices.config[0].opaque",
            .type = T::kRequired},
          C{.name = "config parameters not an object",
            .mutate = [](ResourceClaim& c) { c.spec.devices.config[0].opaque->parameters = R"("text")"; },
            .field = "spec.devices.config[0].opaque.parameters",
            .type = T::kInvalid,
            .detail = "must be a valid JSON object"},
      });

  // A derived attribute named by a constraint on the parent request is used.
  ResourceClaim c = BaseClaim();
  c.spec.devices.requests[1].first_available[0].derived_attributes = {
      {.name = "gpu.example.com/model", .expression = "device.attributes['x'].y"}};
  c.spec.devices.constraints[0].requests = {"gpu", "multi"};
  FieldErrors errs = ValidateResourceClaim(c, AllOn());
  EXPECT_TRUE(errs.empty()) << Dump(errs);
}

// ---------------------------------------------------------------------------
// ResourceClaim status

TEST(ValidationTest, ResourceClaimStatusReservedForRules) {
  using C = Case<ResourceClaim>;
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "reservedFor without allocation",
            .mutate =
                [](ResourceClaim& c) {
                  c.status.allocation.reset();
                  c.status.devices.clear();
                },
            .field = "status.reservedFor",
            .type = T::kForbidden,
            .detail = "may not be specified when `allocated` is not set"},
          C{.name = "reservedFor without uid",
            .mutate = [](ResourceClaim& c) { c.status.reserved_for[0].uid = ""; },
            .field = "status.reservedFor[0].uid",
            .type = T::kRequired},
          C{.name = "reservedFor without resource",
            .mutate = [](ResourceClaim& c) { c.status.reserved_for[0].resource = ""; },
            .field = "status.reservedFor[0].resource",
            .type = T::kRequired},
          C{.name = "reservedFor without name",
            .mutate = [](ResourceClaim& c) { c.status.reserved_for[0].name = ""; },
            .field = "status.reservedFor[0].name",
            .type = T::kRequired},
          C{.name = "reservedFor duplicate uid",
            .mutate = [](ResourceClaim& c) { c.status.reserved_for.push_back(c.status.reserved_for[0]); },
            .field = "status.reservedFor[1]",
            .type = T::kDuplicate},
          C{.name = "257 reservedFor",
            .mutate =
                [](ResourceClaim& c) {
                  c.status.reserved_for.clear();
                  for (int i = 0; i < 257; ++i) {
                    c.status.reserved_for.push_back({.resource = "pods", .name = "p", .uid = std::to_string(i)});
                  }
                },
            .field = "status.reservedFor",
            .type = T::kTooMany,
            .detail = "at most 256 items"},
      });
}

TEST(ValidationTest, ResourceClaimStatusAllocationRules) {
  using C = Case<ResourceClaim>;
  const std::string res = "status.allocation.devices.results";
  auto result = [](ResourceClaim& c) -> DeviceRequestAllocationResult& {
    return c.status.allocation->devices.results[0];
  };
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "result names unknown request",
            .mutate = [&](ResourceClaim& c) { result(c).request = "nic"; },
            .field = res + "[0].request",
            .type = T::kInvalid,
            .detail = "must be the name of a request"},
          C{.name = "result without driver",
            .mutate = [&](ResourceClaim& c) { result(c).driver = ""; },
            .field = res + "[0].driver",
            .type = T::kRequired},
          C{.name = "result bad pool",
            .mutate = [&](ResourceClaim& c) { result(c).pool = "a/"; },
            .field = res + "[0].pool",
            .type = T::kInvalid},
          C{.name = "result bad device",
            .mutate = [&](ResourceClaim& c) { result(c).device = "GPU-0"; },
            .field = res + "[0].device",
            .type = T::kInvalid},
          C{.name = "33 results",
            .mutate =
                [](ResourceClaim& c) {
                  c.status.allocation->devices.results.resize(33, c.status.allocation->devices.results[0]);
                },
            .field = res,
            .type = T::kTooMany,
            .detail = "at most 32 items"},
          C{.name = "shareID not a UUID",
            .mutate = [&](ResourceClaim& c) { result(c).share_id = "share-1"; },
            .field = res + "[0].shareID",
            .type = T::kInvalid,
            .detail = "not a valid UUID"},
          C{.name = "shareID upper case",
            .mutate = [&](ResourceClaim& c) { result(c).share_id = "123E4567-E89B-12D3-A456-426614174000"; },
            .field = res + "[0].shareID",
            .type = T::kInvalid,
            .detail = "normalized form"},
          C{.name = "shareID gate off",
            .mutate = [&](ResourceClaim& c) { result(c).share_id = "123e4567-e89b-12d3-a456-426614174000"; },
            .field = res + "[0].shareID",
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "consumedCapacity gate off",
            .mutate =
                [&](ResourceClaim& c) {
                  result(c).consumed_capacity = {{"memory", Q("1Gi")}};
                },
            .field = res + "[0].consumedCapacity",
            .type = T::kForbidden,
            .detail = "DRAConsumableCapacity",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "result adminAccess gate off",
            .mutate = [&](ResourceClaim& c) { result(c).admin_access = true; },
            .field = res + "[0].adminAccess",
            .type = T::kForbidden,
            .detail = "DRAAdminAccess",
            .severity = Severity::kWarning,
            .gates = [] { return FeatureGates::FromList({"DRAPrioritizedList"}).value(); }},
          C{.name = "result binding conditions gate off",
            .mutate =
                [&](ResourceClaim& c) {
                  result(c).binding_conditions = {"a"};
                  result(c).binding_failure_conditions = {"b"};
                },
            .field = res + "[0].bindingConditions",
            .type = T::kForbidden,
            .detail = "DRADeviceBindingConditions",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "result duplicate binding condition",
            .mutate =
                [&](ResourceClaim& c) {
                  result(c).binding_conditions = {"a", "a"};
                  result(c).binding_failure_conditions = {"b"};
                },
            .field = res + "[0].bindingConditions[1]",
            .type = T::kDuplicate},
          C{.name = "result toleration without operator",
            .mutate = [&](ResourceClaim& c) { result(c).tolerations = {{.key = "k"}}; },
            .field = res + "[0].tolerations[0].operator",
            .type = T::kRequired},
          C{.name = "result skipNodeOperations",
            .mutate = [&](ResourceClaim& c) { result(c).skip_node_operations = {"NodePrepareResources"}; },
            .field = res + "[0].skipNodeOperations",
            .type = T::kInvalid,
            .detail = "cannot be skipped unless"},
          C{.name = "config without source",
            .mutate = [](ResourceClaim& c) { c.status.allocation->devices.config[0].source = ""; },
            .field = "status.allocation.devices.config[0].source",
            .type = T::kRequired},
          C{.name = "config unknown source",
            .mutate = [](ResourceClaim& c) { c.status.allocation->devices.config[0].source = "FromNode"; },
            .field = "status.allocation.devices.config[0].source",
            .type = T::kNotSupported,
            .detail = R"(supported values: "FromClaim", "FromClass")"},
          C{.name = "config names unknown request",
            .mutate = [](ResourceClaim& c) { c.status.allocation->devices.config[0].requests = {"x"}; },
            .field = "status.allocation.devices.config[0].requests[0]",
            .type = T::kInvalid},
          C{.name = "65 configs",
            .mutate =
                [](ResourceClaim& c) {
                  c.status.allocation->devices.config.resize(65, c.status.allocation->devices.config[0]);
                },
            .field = "status.allocation.devices.config",
            .type = T::kTooMany,
            .detail = "at most 64 items"},
          C{.name = "node selector without terms",
            .mutate = [](ResourceClaim& c) { c.status.allocation->node_selector = NodeSelector{}; },
            .field = "status.allocation.nodeSelector.nodeSelectorTerms",
            .type = T::kRequired},
          C{.name = "allocationTimestamp gate off",
            .mutate = [](ResourceClaim& c) { c.status.allocation->allocation_timestamp = "2026-07-24T10:00:00Z"; },
            .field = "status.allocation.allocationTimestamp",
            .type = T::kForbidden,
            .detail = "DRADeviceBindingConditions",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
      });
}

TEST(ValidationTest, ResourceClaimStatusDeviceStatusRules) {
  using C = Case<ResourceClaim>;
  auto dstat = [](ResourceClaim& c) -> AllocatedDeviceStatus& { return c.status.devices[0]; };
  RunCases<ResourceClaim>(
      BaseClaim(), ValidateResourceClaim,
      {
          C{.name = "device status gate off",
            .mutate = [](ResourceClaim&) {},
            .field = "status.devices",
            .type = T::kForbidden,
            .detail = "DRAResourceClaimDeviceStatus",
            .severity = Severity::kWarning,
            .gates =
                [] {
                  FeatureGates g = Version("1.36");
                  EXPECT_TRUE(g.Set("DRAResourceClaimDeviceStatus", false).ok());
                  return g;
                }},
          C{.name = "status of an unallocated device",
            .mutate = [&](ResourceClaim& c) { dstat(c).device = "gpu-7"; },
            .field = "status.devices[0]",
            .type = T::kInvalid,
            .detail = "must be an allocated device in the claim"},
          C{.name = "status with another shareID",
            .mutate = [&](ResourceClaim& c) { dstat(c).share_id = "123e4567-e89b-12d3-a456-426614174000"; },
            .field = "status.devices[0]",
            .type = T::kInvalid,
            .detail = "must be an allocated device"},
          C{.name = "duplicate device status",
            .mutate = [](ResourceClaim& c) { c.status.devices.push_back(c.status.devices[0]); },
            .field = "status.devices[1]",
            .type = T::kDuplicate},
          C{.name = "nine conditions",
            .mutate =
                [&](ResourceClaim& c) {
                  dstat(c).conditions.clear();
                  for (int i = 0; i < 9; ++i) {
                    dstat(c).conditions.push_back({.type = Numbered("T", i),
                                                   .status = "True",
                                                   .last_transition_time = "2026-07-24T10:00:00Z",
                                                   .reason = "R"});
                  }
                },
            .field = "status.devices[0].conditions",
            .type = T::kTooMany,
            .detail = "at most 8 items"},
          C{.name = "condition unknown status",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions[0].status = "Yes"; },
            .field = "status.devices[0].conditions[0].status",
            .type = T::kNotSupported},
          C{.name = "condition without reason",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions[0].reason = ""; },
            .field = "status.devices[0].conditions[0].reason",
            .type = T::kRequired,
            .detail = "must be set"},
          C{.name = "condition bad reason",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions[0].reason = "1Bad"; },
            .field = "status.devices[0].conditions[0].reason",
            .type = T::kInvalid,
            .detail = "condition reason"},
          C{.name = "condition without time",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions[0].last_transition_time = ""; },
            .field = "status.devices[0].conditions[0].lastTransitionTime",
            .type = T::kRequired},
          C{.name = "condition bad type",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions[0].type = "a b"; },
            .field = "status.devices[0].conditions[0].type",
            .type = T::kInvalid},
          C{.name = "duplicate condition type",
            .mutate = [&](ResourceClaim& c) { dstat(c).conditions.push_back(dstat(c).conditions[0]); },
            .field = "status.devices[0].conditions[1].type",
            .type = T::kDuplicate},
          C{.name = "data not an object",
            .mutate = [&](ResourceClaim& c) { dstat(c).data = "[]"; },
            .field = "status.devices[0].data",
            .type = T::kInvalid,
            .detail = "must be a valid JSON object"},
          C{.name = "interface name too long",
            .mutate = [&](ResourceClaim& c) { dstat(c).network_data->interface_name = std::string(257, 'e'); },
            .field = "status.devices[0].networkData.interfaceName",
            .type = T::kTooLong,
            .detail = "256"},
          C{.name = "hardware address too long",
            .mutate = [&](ResourceClaim& c) { dstat(c).network_data->hardware_address = std::string(129, 'a'); },
            .field = "status.devices[0].networkData.hardwareAddress",
            .type = T::kTooLong,
            .detail = "128"},
          C{.name = "17 ips",
            .mutate =
                [&](ResourceClaim& c) {
                  dstat(c).network_data->ips.clear();
                  for (int i = 0; i < 17; ++i) dstat(c).network_data->ips.push_back(Numbered("10.0.0.", i) + "/24");
                },
            .field = "status.devices[0].networkData.ips",
            .type = T::kTooMany,
            .detail = "at most 16"},
          C{.name = "ip without prefix",
            .mutate = [&](ResourceClaim& c) { dstat(c).network_data->ips = {"10.0.0.1"}; },
            .field = "status.devices[0].networkData.ips[0]",
            .type = T::kInvalid,
            .detail = "must be a valid address in CIDR form"},
          C{.name = "ip not canonical",
            .mutate = [&](ResourceClaim& c) { dstat(c).network_data->ips = {"2001:DB8::1/64"}; },
            .field = "status.devices[0].networkData.ips[0]",
            .type = T::kInvalid,
            .detail = R"(must be in canonical form ("2001:db8::1/64"))"},
          C{.name = "duplicate ip",
            .mutate =
                [&](ResourceClaim& c) {
                  dstat(c).network_data->ips = {"10.0.0.1/24", "10.0.0.1/24"};
                },
            .field = "status.devices[0].networkData.ips[1]",
            .type = T::kDuplicate},
      });
}

// ---------------------------------------------------------------------------
// ResourceClaimTemplate, DeviceTaintRule, Node, Pod

TEST(ValidationTest, ResourceClaimTemplateRules) {
  using C = Case<ResourceClaimTemplate>;
  RunCases<ResourceClaimTemplate>(
      BaseTemplate(), ValidateResourceClaimTemplate,
      {
          C{.name = "template metadata name",
            .mutate = [](ResourceClaimTemplate& t) { t.spec.metadata.name = "x"; },
            .field = "spec.metadata.name",
            .type = T::kForbidden,
            .detail = "cannot be set for a template"},
          C{.name = "template metadata finalizers",
            .mutate = [](ResourceClaimTemplate& t) { t.spec.metadata.finalizers = {"f"}; },
            .field = "spec.metadata.finalizers",
            .type = T::kForbidden,
            .detail = "cannot be set for a template"},
          C{.name = "template metadata bad label",
            .mutate = [](ResourceClaimTemplate& t) { t.spec.metadata.labels.insert_or_assign("app", "-x"); },
            .field = "spec.metadata.labels",
            .type = T::kInvalid},
          C{.name = "template spec like a claim",
            .mutate = [](ResourceClaimTemplate& t) { t.spec.spec.devices.requests[0].exactly->device_class_name = ""; },
            .field = "spec.spec.devices.requests[0].exactly.deviceClassName",
            .type = T::kRequired},
          C{.name = "template constraint reference",
            .mutate = [](ResourceClaimTemplate& t) { t.spec.spec.devices.constraints[0].requests = {"x"}; },
            .field = "spec.spec.devices.constraints[0].requests[0]",
            .type = T::kInvalid},
          C{.name = "template bad name",
            .mutate = [](ResourceClaimTemplate& t) { t.metadata.name = "-x"; },
            .field = "metadata.name",
            .type = T::kInvalid},
      });
}

TEST(ValidationTest, DeviceTaintRuleRules) {
  using C = Case<DeviceTaintRule>;
  RunCases<DeviceTaintRule>(BaseRule(), ValidateDeviceTaintRule,
                            {
                                C{.name = "gate off",
                                  .mutate = [](DeviceTaintRule&) {},
                                  .field = "kind",
                                  .type = T::kForbidden,
                                  .detail = "DRADeviceTaintRules",
                                  .gates = [] { return Version("1.36"); }},
                                C{.name = "1.34 without DRADeviceTaints",
                                  .mutate = [](DeviceTaintRule&) {},
                                  .field = "kind",
                                  .type = T::kForbidden,
                                  .detail = "DRADeviceTaints,",
                                  .gates = [] { return Version("1.34"); }},
                                C{.name = "bad driver",
                                  .mutate = [](DeviceTaintRule& r) { r.spec.device_selector->driver = "a_b"; },
                                  .field = "spec.deviceSelector.driver",
                                  .type = T::kInvalid},
                                C{.name = "bad pool",
                                  .mutate = [](DeviceTaintRule& r) { r.spec.device_selector->pool = "/"; },
                                  .field = "spec.deviceSelector.pool",
                                  .type = T::kInvalid},
                                C{.name = "bad device",
                                  .mutate = [](DeviceTaintRule& r) { r.spec.device_selector->device = "a.b"; },
                                  .field = "spec.deviceSelector.device",
                                  .type = T::kInvalid},
                                C{.name = "taint without effect",
                                  .mutate = [](DeviceTaintRule& r) { r.spec.taint.effect = ""; },
                                  .field = "spec.taint.effect",
                                  .type = T::kRequired},
                                C{.name = "taint bad key",
                                  .mutate = [](DeviceTaintRule& r) { r.spec.taint.key = "x/"; },
                                  .field = "spec.taint.key",
                                  .type = T::kInvalid},
                                C{.name = "nine conditions",
                                  .mutate =
                                      [](DeviceTaintRule& r) {
                                        for (int i = 0; i < 9; ++i) {
                                          r.status.conditions.push_back({.type = Numbered("T", i),
                                                                         .status = "True",
                                                                         .last_transition_time = "2026-07-24T10:00:00Z",
                                                                         .reason = "R"});
                                        }
                                      },
                                  .field = "status.conditions",
                                  .type = T::kTooMany,
                                  .detail = "at most 8"},
                            });
}

TEST(ValidationTest, NodeRules) {
  using C = Case<Node>;
  RunCases<Node>(BaseNode(), ValidateNode,
                 {
                     C{.name = "bad name",
                       .mutate = [](Node& n) { n.metadata.name = "Node_1"; },
                       .field = "metadata.name",
                       .type = T::kInvalid},
                     C{.name = "taint without effect",
                       .mutate = [](Node& n) { n.spec.taints[0].effect = ""; },
                       .field = "spec.taints[0].effect",
                       .type = T::kRequired},
                     C{.name = "taint unknown effect",
                       .mutate = [](Node& n) { n.spec.taints[0].effect = "None"; },
                       .field = "spec.taints[0].effect",
                       .type = T::kNotSupported,
                       .detail = "PreferNoSchedule"},
                     C{.name = "taint bad key",
                       .mutate = [](Node& n) { n.spec.taints[0].key = ""; },
                       .field = "spec.taints[0].key",
                       .type = T::kInvalid},
                     C{.name = "duplicate taint",
                       .mutate = [](Node& n) { n.spec.taints.push_back(n.spec.taints[0]); },
                       .field = "spec.taints[1]",
                       .type = T::kDuplicate,
                       .detail = "taints must be unique by key and effect pair"},
                 });
}

TEST(ValidationTest, PodRules) {
  using C = Case<Pod>;
  const std::string rc = "spec.resourceClaims";
  const std::string cc = "spec.containers[0].resources.claims";
  RunCases<Pod>(
      BasePod(), ValidatePod,
      {
          C{.name = "no containers",
            .mutate = [](Pod& p) { p.spec.containers.clear(); },
            .field = "spec.containers",
            .type = T::kRequired},
          C{.name = "claim without name",
            .mutate = [](Pod& p) { p.spec.resource_claims[0].name = ""; },
            .field = rc + "[0].name",
            .type = T::kRequired},
          C{.name = "duplicate claim name",
            .mutate = [](Pod& p) { p.spec.resource_claims[1].name = "gpu"; },
            .field = rc + "[1].name",
            .type = T::kDuplicate},
          C{.name = "bad claim name",
            .mutate = [](Pod& p) { p.spec.resource_claims[0].name = "GPU"; },
            .field = rc + "[0].name",
            .type = T::kInvalid},
          C{.name = "both sources",
            .mutate = [](Pod& p) { p.spec.resource_claims[0].resource_claim_name = "c"; },
            .field = rc + "[0]",
            .type = T::kInvalid,
            .detail = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                      "specified"},
          C{.name = "no source",
            .mutate = [](Pod& p) { p.spec.resource_claims[0].resource_claim_template_name.reset(); },
            .field = rc + "[0]",
            .type = T::kInvalid,
            .detail = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"},
          C{.name = "bad claim name reference",
            .mutate = [](Pod& p) { p.spec.resource_claims[1].resource_claim_name = "Shared"; },
            .field = rc + "[1].resourceClaimName",
            .type = T::kInvalid},
          C{.name = "bad template name reference",
            .mutate = [](Pod& p) { p.spec.resource_claims[0].resource_claim_template_name = "t_1"; },
            .field = rc + "[0].resourceClaimTemplateName",
            .type = T::kInvalid},
          C{.name = "container names unknown claim",
            .mutate = [](Pod& p) { p.spec.containers[0].resources.claims[0].name = "nic"; },
            .field = cc + "[0]",
            .type = T::kNotFound,
            .detail = "must be one of the names in pod.spec.resourceClaims: gpu, shared"},
          C{.name = "container claim without pod claims",
            .mutate = [](Pod& p) { p.spec.resource_claims.clear(); },
            .field = cc + "[0]",
            .type = T::kNotFound,
            .detail = "must be one of the names in pod.spec.resourceClaims which is empty"},
          C{.name = "duplicate container claim",
            .mutate = [](Pod& p) { p.spec.containers[0].resources.claims.push_back({.name = "gpu"}); },
            .field = cc + "[2]",
            .type = T::kDuplicate},
          C{.name = "container claim without name",
            .mutate = [](Pod& p) { p.spec.containers[0].resources.claims[0].name = ""; },
            .field = cc + "[0]",
            .type = T::kRequired},
          C{.name = "container claim bad request",
            .mutate = [](Pod& p) { p.spec.containers[0].resources.claims[0].request = "Req"; },
            .field = cc + "[0].request",
            .type = T::kInvalid},
          C{.name = "init container names unknown claim",
            .mutate =
                [](Pod& p) {
                  Container init;
                  init.name = "init";
                  init.resources.claims = {{.name = "x"}};
                  p.spec.init_containers = {init};
                },
            .field = "spec.initContainers[0].resources.claims[0]",
            .type = T::kNotFound},
          C{.name = "toleration empty key with Equal",
            .mutate = [](Pod& p) { p.spec.tolerations[0].key = ""; },
            .field = "spec.tolerations[0].operator",
            .type = T::kInvalid,
            .detail = "operator must be Exists when `key` is empty"},
          C{.name = "tolerationSeconds without NoExecute",
            .mutate = [](Pod& p) { p.spec.tolerations[0].toleration_seconds = 10; },
            .field = "spec.tolerations[0].effect",
            .type = T::kInvalid,
            .detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"},
          C{.name = "toleration unknown effect",
            .mutate = [](Pod& p) { p.spec.tolerations[0].effect = "None"; },
            .field = "spec.tolerations[0].effect",
            .type = T::kNotSupported},
          C{.name = "toleration Exists with value",
            .mutate = [](Pod& p) { p.spec.tolerations[0].operator_ = "Exists"; },
            .field = "spec.tolerations[0].operator",
            .type = T::kInvalid,
            .detail = "value must be empty when `operator` is 'Exists'"},
          C{.name = "node affinity without terms",
            .mutate =
                [](Pod& p) {
                  p.spec.affinity =
                      Affinity{.node_affinity =
                                   NodeAffinity{.required_during_scheduling_ignored_during_execution = NodeSelector{}}};
                },
            .field = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                     "nodeSelectorTerms",
            .type = T::kRequired},
          C{.name = "extended resource claim status gate off",
            .mutate = [](Pod& p) { p.status.extended_resource_claim_status = PodExtendedResourceClaimStatus{}; },
            .field = "status.extendedResourceClaimStatus",
            .type = T::kForbidden,
            .detail = "DRAExtendedResource",
            .severity = Severity::kWarning,
            .gates = [] { return Version("1.35"); }},
          C{.name = "pod-level resource claims",
            .mutate =
                [](Pod& p) {
                  p.spec.extra.insert_or_assign("resources", R"({"limits":{"cpu":"1"},"claims":[{"name":"gpu"}]})");
                },
            .field = "spec.resources.claims",
            .type = T::kForbidden,
            .detail = "claims cannot be set for Resources at pod-level"},
          C{.name = "resource claims without DRA",
            .mutate = [](Pod&) {},
            .field = rc,
            .type = T::kForbidden,
            .detail = "DynamicResourceAllocation",
            .severity = Severity::kWarning,
            .gates = [] { return FeatureGates::AllOff(); }},
      });
}

// Cases where tools/difftest --level validation found dractl and a real
// kube-apiserver v1.37.2 (server-side dry run of a create) disagreeing. Each
// expectation is the error fields the API server reported for the same object.
std::vector<std::string> ErrorFields(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) {
    if (e.severity == Severity::kError) out.push_back(e.field);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ValidationTest, AgreesWithApiServerDryRun) {
  // capacity.requests keys are not checked: {"a/b/c": 1Gi, "Bad Key!": 1} is accepted.
  ResourceClaim claim = BaseClaim();
  claim.spec.devices.requests[0].exactly->capacity =
      CapacityRequirements{.requests = {{"a/b/c", Q("1Gi")}, {"Bad Key!", Q("1")}}};
  EXPECT_EQ(ErrorFields(ValidateResourceClaim(claim, Version("1.37"))), std::vector<std::string>{});

  // matchAttribute and distinctAttribute are validated declaratively in 1.37,
  // which does not check a second slash: "a/b/c" and "a.b/c/d" are accepted,
  // "a.b/1x" is not.
  for (const char* name : {"a/b/c", "a.b/c/d"}) {
    claim = BaseClaim();
    claim.spec.devices.constraints[0].match_attribute = name;
    EXPECT_EQ(ErrorFields(ValidateResourceClaim(claim, Version("1.37"))), std::vector<std::string>{}) << name;
    claim.spec.devices.constraints[0].match_attribute.reset();
    claim.spec.devices.constraints[0].distinct_attribute = name;
    EXPECT_EQ(ErrorFields(ValidateResourceClaim(claim, Version("1.37"))), std::vector<std::string>{}) << name;
  }
  // Rejected: a name that is not a C identifier, an upper-case domain (the
  // declarative check does not lower-case it first), a 64-character domain.
  for (const std::string& name :
       {std::string("a.b/1x"), std::string("RESOURCE.KUBERNETES.IO/NUMANODE"), std::string(64, 'd') + "/x"}) {
    claim = BaseClaim();
    claim.spec.devices.constraints[0].match_attribute = name;
    EXPECT_EQ(ErrorFields(ValidateResourceClaim(claim, Version("1.37"))),
              std::vector<std::string>{"spec.devices.constraints[0].matchAttribute"})
        << name;
  }

  // distinctAttribute with DRAConsumableCapacity off: dropped, then the
  // constraint has no attribute.
  claim = BaseClaim();
  claim.spec.devices.constraints[0].match_attribute.reset();
  claim.spec.devices.constraints[0].distinct_attribute = "gpu.example.com/model";
  FeatureGates off = Version("1.37");
  ASSERT_TRUE(off.Set(Gate::kDRAFractionalCapacityRange, false).ok());
  ASSERT_TRUE(off.Set(Gate::kDRAConsumableCapacity, false).ok());
  EXPECT_EQ(ErrorFields(ValidateResourceClaim(claim, off)),
            std::vector<std::string>{"spec.devices.constraints[0].matchAttribute"});

  // 17 taints, the fourth with effect "Bogus": too many, and the effect.
  ResourceSlice slice = BaseSlice();
  std::vector<DeviceTaint>& taints = slice.spec.devices[0].rare.mut().taints;
  for (int i = 0; i < 17; ++i) {
    taints.push_back({.key = "example.com/t" + std::to_string(i), .effect = i == 3 ? "Bogus" : "NoSchedule"});
  }
  EXPECT_EQ(ErrorFields(ValidateResourceSlice(slice, Version("1.37"))),
            (std::vector<std::string>{"spec.devices[0].taints", "spec.devices[0].taints[3].effect"}));

  // 49 list values with DRAListTypeAttributes off (1.37's default): the list
  // is dropped, so only the attribute without a value is an error.
  slice = BaseSlice();
  std::vector<InternedString> values;
  values.reserve(49);
  for (int i = 0; i < 49; ++i) values.emplace_back("v" + std::to_string(i));
  slice.spec.devices[0].attributes.insert_or_assign("x", DeviceAttribute::Strings(values));
  EXPECT_EQ(ErrorFields(ValidateResourceSlice(slice, Version("1.37"))),
            std::vector<std::string>{"spec.devices[0].attributes[x]"});

  // A 250-character pod name with a claim from a template: accepted (the
  // claim's generated name is the controller's business).
  Pod pod = BasePod();
  pod.metadata.name = std::string(250, 'p');
  EXPECT_EQ(ErrorFields(ValidatePod(pod, Version("1.37"))), std::vector<std::string>{});

  // An empty list with DRAListTypeAttributes on: empty, and no value either.
  slice = BaseSlice();
  slice.spec.devices[0].attributes.insert_or_assign("x", DeviceAttribute::Ints({}));
  FeatureGates lists = Version("1.37");
  ASSERT_TRUE(lists.Set(Gate::kDRAListTypeAttributes, true).ok());
  EXPECT_EQ(ErrorFields(ValidateResourceSlice(slice, lists)),
            (std::vector<std::string>{"spec.devices[0].attributes[x]", "spec.devices[0].attributes[x].ints"}));
}

TEST(ValidationTest, ValidateNodeSelectorStandalone) {
  NodeSelector sel = OneTermSelector();
  EXPECT_TRUE(ValidateNodeSelector(sel, FieldPath("x")).empty());
  sel.node_selector_terms[0].match_expressions[0].operator_ = "Exists";
  FieldErrors errs = ValidateNodeSelector(sel, FieldPath("x"));
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "x.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified "
            "when `operator` is "
            "'Exists' or 'DoesNotExist'");
}

}  // namespace
}  // namespace dra::api
