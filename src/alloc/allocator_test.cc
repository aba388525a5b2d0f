// Search tests with a test double for CEL: `FakeSelectors` understands only
// the literal expressions "true", "false", "compile-error", "runtime-error"
// and `model == "X"` (the device's string attribute "model").
#include "alloc/allocator.h"

#include <gtest/gtest.h>

namespace dra::alloc {
namespace {

class FakeSelectors final : public SelectorEvaluator {
 public:
  StatusOr<bool> Evaluate(std::string_view expr, const api::Device& device, std::string_view) override {
    ++evaluations;
    if (expr == "true") return true;
    if (expr == "false") return false;
    if (expr == "compile-error") return InvalidArgumentError("compilation failed: nope");
    if (expr == "runtime-error") return FailedPreconditionError("no such key: x");
    constexpr std::string_view kModel = "model == \"";
    if (expr.substr(0, kModel.size()) == kModel) {
      std::string_view want = expr.substr(kModel.size(), expr.size() - kModel.size() - 1);
      const api::DeviceAttribute* a = device.attributes.find("model");
      return a != nullptr && a->string_value() != nullptr && a->string_value()->view() == want;
    }
    return InvalidArgumentError("fake: unknown expression");
  }
  int evaluations = 0;
};

struct Fixture {
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  api::Node node;
  FakeSelectors selectors;
  Features features{.admin_access = true, .consumable_capacity = true, .device_taints = true,
                    .partitionable_devices = true, .prioritized_list = true};
  AllocatedState state;

  Fixture() {
    node.metadata.name = "node-1";
    api::DeviceClass c;
    c.metadata.name = "gpu";
    c.spec.selectors.push_back({.cel = api::CelDeviceSelector{"true"}});
    classes.push_back(c);
  }
  api::ResourceSlice& Slice(std::vector<std::string> devices) {
    api::ResourceSlice s;
    s.metadata.name = "slice-" + std::to_string(slices.size());
    s.spec.driver = "drv";
    s.spec.pool = {.name = "pool", .generation = 1, .resource_slice_count = 1};
    s.spec.node_name = "node-1";
    for (auto& d : devices) s.spec.devices.push_back(api::Device{.name = d});
    slices.push_back(std::move(s));
    return slices.back();
  }
  StatusOr<NodeFit> Allocate(std::vector<api::ResourceClaim> claims, uint64_t max_steps = 0) {
    std::vector<const api::ResourceSlice*> ptrs;
    for (auto& s : slices) ptrs.push_back(&s);
    SliceIndex index(ptrs);
    std::vector<const api::DeviceClass*> cls;
    for (auto& c : classes) cls.push_back(&c);
    int n = 0;
    AllocatorOptions options{.max_steps = max_steps, .new_share_id = [&n] { return "share-" + std::to_string(n++); }};
    Allocator allocator(features, state, cls, &index, &selectors, options);
    std::vector<const api::ResourceClaim*> ptr_claims;
    for (auto& c : claims) ptr_claims.push_back(&c);
    return allocator.Allocate(node, ptr_claims);
  }
};

api::ResourceClaim Claim(std::string name, std::vector<api::DeviceRequest> requests) {
  api::ResourceClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "default";
  c.spec.devices.requests = std::move(requests);
  return c;
}

api::DeviceRequest Request(std::string name, int64_t count = 1, std::vector<std::string> selectors = {}) {
  api::ExactDeviceRequest ex{.device_class_name = "gpu", .allocation_mode = api::AllocationMode::kExactCount,
                             .count = count};
  for (auto& s : selectors) ex.selectors.push_back({.cel = api::CelDeviceSelector{s}});
  return {.name = std::move(name), .exactly = std::move(ex)};
}

std::vector<std::string> Devices(const NodeFit& fit, size_t claim = 0) {
  std::vector<std::string> out;
  for (const auto& r : fit.results[claim].devices.results) out.push_back(r.request + ":" + r.device);
  return out;
}

TEST(AllocatorTest, TakesDevicesInOrderAcrossClaims) {
  Fixture f;
  f.Slice({"a", "b", "c"});
  auto fit = f.Allocate({Claim("c0", {Request("r", 2)}), Claim("c1", {Request("r")})});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  ASSERT_TRUE(fit->fits);
  EXPECT_EQ(Devices(*fit, 0), (std::vector<std::string>{"r:a", "r:b"}));
  EXPECT_EQ(Devices(*fit, 1), (std::vector<std::string>{"r:c"}));
  ASSERT_TRUE(fit->results[0].node_selector.has_value());
}

TEST(AllocatorTest, InUseDevicesAreSkippedAndCounted) {
  Fixture f;
  f.Slice({"a", "b"});
  f.state.devices.insert("drv/pool/a");
  f.state.devices.insert("drv/pool/b");
  auto fit = f.Allocate({Claim("c0", {Request("r")})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->reason.in_use, 2);
  EXPECT_EQ(fit->reason.request, "r");
}

TEST(AllocatorTest, BacktracksForMatchAttribute) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a", "b", "c"});
  s.spec.devices[0].attributes.insert_or_assign("model", api::DeviceAttribute::String("x"));
  s.spec.devices[1].attributes.insert_or_assign("model", api::DeviceAttribute::String("y"));
  s.spec.devices[2].attributes.insert_or_assign("model", api::DeviceAttribute::String("y"));
  api::ResourceClaim c = Claim("c0", {Request("r", 2)});
  c.spec.devices.constraints.push_back({.match_attribute = "drv/model"});
  auto fit = f.Allocate({c});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:b", "r:c"}));
  EXPECT_GT(fit->reason.constraint + 0, -1);
}

TEST(AllocatorTest, FirstAvailableFallsBackToNextSubrequest) {
  Fixture f;
  f.Slice({"a"});
  api::DeviceRequest r{.name = "r"};
  r.first_available.push_back({.name = "two", .device_class_name = "gpu",
                               .allocation_mode = api::AllocationMode::kExactCount, .count = 2});
  r.first_available.push_back({.name = "one", .device_class_name = "gpu",
                               .allocation_mode = api::AllocationMode::kExactCount, .count = 1});
  auto fit = f.Allocate({Claim("c0", {r})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r/one:a"}));
}

TEST(AllocatorTest, SelectorErrorsAreFatalAndWrapped) {
  Fixture f;
  f.Slice({"a"});
  auto fit = f.Allocate({Claim("c0", {Request("r", 1, {"runtime-error"})})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("claim default/c0: selector #0 on device drv/pool/a: CEL runtime error"),
            std::string::npos);
  fit = f.Allocate({Claim("c0", {Request("r", 1, {"compile-error"})})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("CEL compile error"), std::string::npos);
}

TEST(AllocatorTest, SelectorErrorOnUnvisitedDeviceIsNoError) {
  Fixture f;
  f.Slice({"a"});
  f.state.devices.insert("drv/pool/a");
  auto fit = f.Allocate({Claim("c0", {Request("r", 1, {"runtime-error"})})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
}

TEST(AllocatorTest, UnknownClassAndMissingModeAreErrors) {
  Fixture f;
  f.Slice({"a"});
  api::DeviceRequest r = Request("r");
  r.exactly->device_class_name = "nope";
  auto fit = f.Allocate({Claim("c0", {r})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("could not retrieve device class nope"), std::string::npos);
  r = Request("r");
  r.exactly->allocation_mode = api::EnumString<api::AllocationMode>();
  fit = f.Allocate({Claim("c0", {r})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("unsupported count mode"), std::string::npos);
}

TEST(AllocatorTest, ClaimLimitOf32) {
  Fixture f;
  f.Slice({"a"});
  auto fit = f.Allocate({Claim("c0", {Request("r", 33)})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("exceeds the claim limit of 32"), std::string::npos);
}

TEST(AllocatorTest, AllModeTakesEveryMatchingDevice) {
  Fixture f;
  f.Slice({"a", "b"});
  api::DeviceRequest r = Request("r");
  r.exactly->allocation_mode = api::AllocationMode::kAll;
  auto fit = f.Allocate({Claim("c0", {r})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:a", "r:b"}));
  f.state.devices.insert("drv/pool/b");  // in use: the whole request fails
  fit = f.Allocate({Claim("c0", {r})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
}

TEST(AllocatorTest, TaintsNeedTolerations) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a"});
  s.spec.devices[0].rare.mut().taints.push_back({.key = "k", .effect = api::DeviceTaintEffect::kNoSchedule});
  auto fit = f.Allocate({Claim("c0", {Request("r")})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->reason.taint, 1);
  api::DeviceRequest r = Request("r");
  r.exactly->tolerations.push_back({.key = "k", .operator_ = api::DeviceTolerationOperator::kExists});
  fit = f.Allocate({Claim("c0", {r})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(fit->results[0].devices.results[0].tolerations.size(), 1u);
}

TEST(AllocatorTest, SharedCountersLimitPartitions) {
  Fixture f;
  api::ResourceSlice& counters = f.Slice({});
  counters.spec.node_name.reset();
  counters.spec.all_nodes = true;
  counters.spec.shared_counters.push_back({.name = "set"});
  counters.spec.shared_counters[0].counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse("2")});
  api::ResourceSlice& devs = f.Slice({"p0", "p1", "p2"});
  for (auto& d : devs.spec.devices) {
    api::DeviceCounterConsumption use{.counter_set = "set"};
    use.counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse("1")});
    d.rare.mut().consumes_counters.push_back(use);
  }
  for (auto& s : f.slices) s.spec.pool.resource_slice_count = 2;
  auto fit = f.Allocate({Claim("c0", {Request("r", 2)})});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  ASSERT_TRUE(fit->fits);
  fit = f.Allocate({Claim("c0", {Request("r", 3)})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_GT(fit->reason.counters, 0);
}

TEST(AllocatorTest, MultiAllocatableDeviceIsSharedWithShareIds) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a"});
  s.spec.devices[0].allow_multiple_allocations = true;
  s.spec.devices[0].capacity.insert_or_assign("memory", api::DeviceCapacity{.value = *quantity::Quantity::Parse("4Gi")});
  api::DeviceRequest r = Request("r");
  r.exactly->capacity = api::CapacityRequirements{};
  r.exactly->capacity->requests.insert_or_assign("memory", *quantity::Quantity::Parse("2Gi"));
  auto fit = f.Allocate({Claim("c0", {r}), Claim("c1", {r})});
  ASSERT_TRUE(fit.ok() && fit->fits) << (fit.ok() ? fit->reason.ToString() : fit.status().ToString());
  EXPECT_EQ(fit->results[0].devices.results[0].share_id, "share-0");
  EXPECT_EQ(fit->results[1].devices.results[0].share_id, "share-1");
  fit = f.Allocate({Claim("c0", {r}), Claim("c1", {r}), Claim("c2", {r})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
}

TEST(AllocatorTest, StepLimitIsADistinctError) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a", "b", "c", "d", "e", "f"});
  for (auto& d : s.spec.devices) d.attributes.insert_or_assign("model", api::DeviceAttribute::String(d.name));
  api::ResourceClaim c = Claim("c0", {Request("r", 4)});
  c.spec.devices.constraints.push_back({.match_attribute = "drv/model"});  // all differ: exhaustive
  auto fit = f.Allocate({c}, 5);
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.status().code(), StatusCode::kResourceExhausted);
}

TEST(AllocatorTest, CountingRejectsAShortRequestWithoutSearch) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a", "b", "c", "d", "e", "f"});
  s.spec.devices[5].attributes.insert_or_assign("model", api::DeviceAttribute::String("nic"));
  f.state.devices.insert("drv/pool/a");
  // Second request: 5 devices, but b..e are 4 (a in use, f rejected by the
  // request selector). The first request can take any of them.
  auto fit = f.Allocate({Claim("c0", {Request("first", 1), Request("second", 5, {"model == \"\""})})});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->steps, 0u);
  EXPECT_EQ(fit->reason.request, "second");
  EXPECT_EQ(fit->reason.needed, 5);
  EXPECT_EQ(fit->reason.usable, 0);  // the fake `model == ""` matches nothing
  EXPECT_EQ(fit->reason.in_use, 1);
  EXPECT_EQ(fit->reason.request_selector, 5);
  EXPECT_NE(fit->reason.ToString().find("needs 5 devices, 0 usable"), std::string::npos) << fit->reason.ToString();

  // The same shortfall with a selector that fails on some device the search
  // would try: the search decides, and reports the error as upstream does.
  fit = f.Allocate({Claim("c0", {Request("first", 1, {"runtime-error"}), Request("second", 9)})});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("CEL runtime error"), std::string::npos);

  // Enough devices: counting does not get in the way.
  fit = f.Allocate({Claim("c0", {Request("first", 1), Request("second", 4)})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"first:b", "second:c", "second:d", "second:e", "second:f"}));
}

}  // namespace
}  // namespace dra::alloc
