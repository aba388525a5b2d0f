// Search tests with a test double for CEL: `FakeSelectors` understands only
// the literal expressions "true", "false", "compile-error", "runtime-error",
// "fails-on-b" (an error on device "b", else true) and `model == "X"` (the
// device's string attribute "model").
#include "alloc/allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <tuple>

namespace dra::alloc {
namespace {

class FakeSelectors final : public SelectorEvaluator {
 public:
  StatusOr<bool> Evaluate(std::string_view expr, const api::Device& device, std::string_view) override {
    evaluations.fetch_add(1, std::memory_order_relaxed);
    if (expr == "true") return true;
    if (expr == "false") return false;
    if (expr == "compile-error") return InvalidArgumentError("compilation failed: nope");
    if (expr == "runtime-error") return FailedPreconditionError("no such key: x");
    if (expr == "fails-on-b") {
      if (device.name == "b") return FailedPreconditionError("no such key: x");
      return true;
    }
    constexpr std::string_view kModel = "model == \"";
    if (expr.substr(0, kModel.size()) == kModel) {
      std::string_view want = expr.substr(kModel.size(), expr.size() - kModel.size() - 1);
      const api::DeviceAttribute* a = device.attributes.find("model");
      return a != nullptr && a->string_value() != nullptr && a->string_value()->view() == want;
    }
    return InvalidArgumentError("fake: unknown expression");
  }
  // Derived attributes: "const" is the string "same" on every device;
  // "index" the device's int attribute "index" (an error without it).
  StatusOr<api::DeviceAttribute> EvaluateAttribute(std::string_view expr, const api::Device& device,
                                                   std::string_view) override {
    derived_evaluations.fetch_add(1, std::memory_order_relaxed);
    if (expr == "const") return api::DeviceAttribute::String("same");
    if (expr == "index") {
      const api::DeviceAttribute* a = device.attributes.find("index");
      if (a == nullptr) return FailedPreconditionError("no such key: index");
      return *a;
    }
    return InvalidArgumentError("fake: unknown expression");
  }
  std::atomic<int> evaluations{0};
  std::atomic<int> derived_evaluations{0};
};

struct Fixture {
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  api::Node node;
  FakeSelectors selectors;
  Features features{.admin_access = true,
                    .consumable_capacity = true,
                    .device_taints = true,
                    .partitionable_devices = true,
                    .prioritized_list = true};
  AllocatedState state;
  DeviceChoice device_choice = DeviceChoice::kFirstFit;

  Fixture() {
    node.metadata.name = "node-1";
    api::DeviceClass c;
    c.metadata.name = "gpu";
    c.spec.selectors.push_back({.cel = api::CelDeviceSelector{"true"}});
    classes.push_back(c);
  }
  api::ResourceSlice& Slice(const std::vector<std::string>& devices) {
    api::ResourceSlice s;
    s.metadata.name = "slice-" + std::to_string(slices.size());
    s.spec.driver = "drv";
    s.spec.pool = {.name = "pool", .generation = 1, .resource_slice_count = 1};
    s.spec.node_name = "node-1";
    for (auto& d : devices) s.spec.devices.push_back(api::Device{.name = d});
    slices.push_back(std::move(s));
    return slices.back();
  }
  StatusOr<NodeFit> Allocate(const std::vector<api::ResourceClaim>& claims, uint64_t max_steps = 0,
                             const DevicePreference* preference = nullptr) {
    std::vector<const api::ResourceSlice*> ptrs;
    for (auto& s : slices) ptrs.push_back(&s);
    SliceIndex index(ptrs);
    std::vector<const api::DeviceClass*> cls;
    for (auto& c : classes) cls.push_back(&c);
    int n = 0;
    AllocatorOptions options{.max_steps = max_steps,
                             .new_share_id = [&n] { return "share-" + std::to_string(n++); },
                             .device_choice = device_choice};
    Allocator allocator(features, state, cls, &index, &selectors, options);
    std::vector<const api::ResourceClaim*> ptr_claims;
    ptr_claims.reserve(claims.size());
    for (auto& c : claims) ptr_claims.push_back(&c);
    if (preference != nullptr) {
      return allocator.Allocate(allocator.Handle(node), ptr_claims, Allocator::ResultDetail::kFull, preference);
    }
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

api::DeviceRequest Request(std::string name, int64_t count = 1, const std::vector<std::string>& selectors = {}) {
  api::ExactDeviceRequest ex{
      .device_class_name = "gpu", .allocation_mode = api::AllocationMode::kExactCount, .count = count};
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

// A DevicePreference puts its devices first for the request it names; a
// device that cannot be taken is skipped as in the driver's order, and what
// fits is decided as without it.
TEST(AllocatorTest, PreferenceOrdersTheSearchOnly) {
  Fixture f;
  f.Slice({"a", "b", "c", "d"});
  f.state.devices.insert("drv/pool/c");  // in use
  DevicePreference prefer{
      .entries = {{.claim = 0, .request = "r", .devices = {"drv/pool/c", "drv/pool/d", "drv/pool/b"}}}};
  auto fit = f.Allocate({Claim("c0", {Request("r", 2)})}, 0, &prefer);
  ASSERT_TRUE(fit.ok() && fit->fits) << fit.status().ToString();
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:d", "r:b"}));
  // Then the rest in the driver's order.
  fit = f.Allocate({Claim("c0", {Request("r", 3)})}, 0, &prefer);
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:d", "r:b", "r:a"}));
  // A preference for another claim or request changes nothing.
  DevicePreference other{.entries = {{.claim = 1, .request = "r", .devices = {"drv/pool/d"}},
                                     {.claim = 0, .request = "s", .devices = {"drv/pool/d"}}}};
  fit = f.Allocate({Claim("c0", {Request("r", 2)})}, 0, &other);
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:a", "r:b"}));
  // Four with one in use do not fit, preferred or not.
  fit = f.Allocate({Claim("c0", {Request("r", 4)})}, 0, &prefer);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
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
  r.first_available.push_back(
      {.name = "two", .device_class_name = "gpu", .allocation_mode = api::AllocationMode::kExactCount, .count = 2});
  r.first_available.push_back(
      {.name = "one", .device_class_name = "gpu", .allocation_mode = api::AllocationMode::kExactCount, .count = 1});
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

// A gang search's tools: RemoveAllocation undoes AddAllocation exactly, and
// a device kept out with SetExcluded is not taken but uses none of its
// counters (worked by hand: the counter set holds 2; whole takes 2, each
// half 1).
TEST(AllocatorTest, RemovedAllocationsAndExcludedDevicesAreFreeAgain) {
  Fixture f;
  api::ResourceSlice& counters = f.Slice({});
  counters.spec.node_name.reset();
  counters.spec.all_nodes = true;
  counters.spec.shared_counters.push_back({.name = "set"});
  counters.spec.shared_counters[0].counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse("2")});
  api::ResourceSlice& devs = f.Slice({"whole", "half-0", "half-1"});
  for (auto& d : devs.spec.devices) {
    api::DeviceCounterConsumption use{.counter_set = "set"};
    use.counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse(d.name == "whole" ? "2" : "1")});
    d.rare.mut().consumes_counters.push_back(use);
  }
  for (auto& s : f.slices) s.spec.pool.resource_slice_count = 2;
  std::vector<const api::ResourceSlice*> ptrs;
  for (auto& s : f.slices) ptrs.push_back(&s);
  SliceIndex index(ptrs);
  std::vector<const api::DeviceClass*> cls;
  for (auto& c : f.classes) cls.push_back(&c);
  // Alike on an Allocator of its own and on one of a SnapshotState (whose
  // first change detaches it, counters included).
  for (bool on_snapshot : {false, true}) {
    SCOPED_TRACE(on_snapshot ? "on a SnapshotState" : "own state");
    std::unique_ptr<Allocator> own =
        on_snapshot ? std::make_unique<Allocator>(std::make_shared<SnapshotState>(f.features, f.state, &index), cls,
                                                  &f.selectors)
                    : std::make_unique<Allocator>(f.features, f.state, cls, &index, &f.selectors);
    Allocator& allocator = *own;
    api::ResourceClaim one = Claim("c0", {Request("r", 1)});
    api::ResourceClaim two = Claim("c1", {Request("r", 2)});
    auto devices = [&](const api::ResourceClaim& claim) {
      std::vector<const api::ResourceClaim*> claims = {&claim};
      StatusOr<NodeFit> fit = allocator.Allocate(f.node, claims);
      EXPECT_TRUE(fit.ok()) << fit.status().ToString();
      std::vector<std::string> names;
      if (fit.ok() && fit->fits) {
        for (const auto& r : fit->results[0].devices.results) names.push_back(r.device);
      }
      return names;
    };
    ASSERT_THAT(devices(one), ::testing::ElementsAre("whole"));
    std::vector<const api::ResourceClaim*> claims = {&one};
    api::AllocationResult whole = allocator.Allocate(f.node, claims)->results[0];
    ASSERT_TRUE(allocator.AddAllocation(whole).ok());
    EXPECT_THAT(devices(one), ::testing::IsEmpty());  // the set's 2 are used
    std::vector<std::string> changed;
    ASSERT_TRUE(allocator.RemoveAllocation(whole, &changed).ok());
    EXPECT_THAT(changed, ::testing::ElementsAre("node-1"));
    EXPECT_THAT(devices(one), ::testing::ElementsAre("whole"));
    EXPECT_TRUE(allocator.allocated().devices.empty());
    allocator.SetExcluded("drv", "pool", "whole", true);
    EXPECT_THAT(devices(one), ::testing::ElementsAre("half-0"));
    EXPECT_THAT(devices(two), ::testing::ElementsAre("half-0", "half-1"));
    allocator.SetExcluded("drv", "pool", "whole", false);
    EXPECT_THAT(devices(one), ::testing::ElementsAre("whole"));
  }
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

// Counters are kept as integers at a common power of ten where every
// quantity of the pool is one ("1500m" and "500m" at 10^-3), and as
// Quantities where none is (1e30 exceeds 2^62 at every scale): both ways
// decide alike. Worked out by hand: three 500m partitions fill 1500m; two of
// 4e29 fit in 1e30, a third (1.2e30) does not.
TEST(AllocatorTest, SharedCountersAtAnyScale) {
  for (const auto& [have, each, fit, too_many] :
       std::vector<std::tuple<std::string, std::string, int, int>>{{"1500m", "500m", 3, 4}, {"1e30", "4e29", 2, 3}}) {
    SCOPED_TRACE(have + " / " + each);
    Fixture f;
    api::ResourceSlice& counters = f.Slice({});
    counters.spec.node_name.reset();
    counters.spec.all_nodes = true;
    counters.spec.shared_counters.push_back({.name = "set"});
    counters.spec.shared_counters[0].counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse(have)});
    api::ResourceSlice& devs = f.Slice({"p0", "p1", "p2", "p3"});
    for (auto& d : devs.spec.devices) {
      api::DeviceCounterConsumption use{.counter_set = "set"};
      use.counters.insert_or_assign("mem", api::Counter{*quantity::Quantity::Parse(each)});
      d.rare.mut().consumes_counters.push_back(use);
    }
    for (auto& s : f.slices) s.spec.pool.resource_slice_count = 2;
    auto fit_ok = f.Allocate({Claim("c0", {Request("r", fit)})});
    ASSERT_TRUE(fit_ok.ok()) << fit_ok.status().ToString();
    EXPECT_TRUE(fit_ok->fits);
    auto no_fit = f.Allocate({Claim("c0", {Request("r", too_many)})});
    ASSERT_TRUE(no_fit.ok());
    EXPECT_FALSE(no_fit->fits);
    EXPECT_GT(no_fit->reason.counters, 0);
    // With p0 allocated, one fewer fits.
    f.state.devices.insert("drv/pool/p0");
    auto fewer = f.Allocate({Claim("c0", {Request("r", fit)})});
    ASSERT_TRUE(fewer.ok());
    EXPECT_FALSE(fewer->fits);
    fewer = f.Allocate({Claim("c0", {Request("r", fit - 1)})});
    ASSERT_TRUE(fewer.ok());
    EXPECT_TRUE(fewer->fits);
  }
}

TEST(AllocatorTest, MultiAllocatableDeviceIsSharedWithShareIds) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a"});
  s.spec.devices[0].allow_multiple_allocations = true;
  s.spec.devices[0].capacity.insert_or_assign("memory",
                                              api::DeviceCapacity{.value = *quantity::Quantity::Parse("4Gi")});
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

// The caches of one Allocator (allocator.h, "Caches"): one Allocator used for
// many calls, nodes, claims and threads answers exactly as a fresh Allocator
// per call.
struct Cluster {
  std::vector<api::DeviceClass> classes;
  std::vector<api::ResourceSlice> slices;
  std::vector<api::Node> nodes;
  FakeSelectors selectors;
  Features features{.admin_access = true,
                    .consumable_capacity = true,
                    .device_taints = true,
                    .partitionable_devices = true,
                    .prioritized_list = true};
  AllocatedState state;
  std::unique_ptr<SliceIndex> index;

  // `node_count` nodes with devices a, b, c (model x, y, y) each; node i has
  // min(i, 3) of them allocated; plus a pool of two devices on every node
  // (allNodes) and one selected by node label "zone=z1".
  explicit Cluster(int node_count) {
    api::DeviceClass c;
    c.metadata.name = "gpu";
    c.spec.selectors.push_back({.cel = api::CelDeviceSelector{"true"}});
    classes.push_back(c);
    for (int node_idx = 0; node_idx < node_count; ++node_idx) {
      api::Node& n = nodes.emplace_back();
      n.metadata.name = "node-" + std::to_string(node_idx);
      if (node_idx % 2 == 0) n.metadata.labels.insert_or_assign("zone", "z1");
      api::ResourceSlice s;
      s.metadata.name = "slice-" + n.metadata.name;
      s.spec.driver = "drv";
      s.spec.pool = {.name = n.metadata.name, .generation = 1, .resource_slice_count = 1};
      s.spec.node_name = n.metadata.name;
      const char* models[] = {"x", "y", "y"};
      for (int device_idx = 0; device_idx < 3; ++device_idx) {
        api::Device d{.name = std::string(1, static_cast<char>('a' + device_idx))};
        d.attributes.insert_or_assign("model", api::DeviceAttribute::String(models[device_idx]));
        s.spec.devices.push_back(std::move(d));
        if (device_idx < node_idx) state.devices.insert("drv/" + n.metadata.name + "/" + s.spec.devices.back().name);
      }
      slices.push_back(std::move(s));
    }
    api::ResourceSlice everywhere;
    everywhere.metadata.name = "everywhere";
    everywhere.spec.driver = "drv";
    everywhere.spec.pool = {.name = "everywhere", .generation = 1, .resource_slice_count = 1};
    everywhere.spec.all_nodes = true;
    for (const char* name : {"s0", "s1"}) {
      api::Device d{.name = name};
      d.attributes.insert_or_assign("model", api::DeviceAttribute::String("z"));
      everywhere.spec.devices.push_back(std::move(d));
    }
    slices.push_back(everywhere);
    api::ResourceSlice zoned = everywhere;
    zoned.metadata.name = "zoned";
    zoned.spec.pool.name = "zoned";
    zoned.spec.all_nodes.reset();
    api::NodeSelector selector;
    selector.node_selector_terms.push_back(
        {.match_expressions = {{.key = "zone", .operator_ = api::NodeSelectorOperator::kIn, .values = {"z1"}}}});
    zoned.spec.node_selector = selector;
    for (auto& d : zoned.spec.devices) d.name = "q" + d.name.substr(1);
    slices.push_back(zoned);
    std::vector<const api::ResourceSlice*> ptrs;
    for (auto& s : slices) ptrs.push_back(&s);
    index = std::make_unique<SliceIndex>(ptrs);
  }
  std::vector<const api::DeviceClass*> ClassPointers() const {
    std::vector<const api::DeviceClass*> cls;
    for (auto& c : classes) cls.push_back(&c);
    return cls;
  }
  static AllocatorOptions Options(uint64_t max_steps) {
    auto n = std::make_shared<std::atomic<int>>(0);
    return {.max_steps = max_steps, .new_share_id = [n] { return "share-" + std::to_string(n->fetch_add(1)); }};
  }
  std::unique_ptr<Allocator> NewAllocator(uint64_t max_steps = 0) {
    return std::make_unique<Allocator>(features, state, ClassPointers(), index.get(), &selectors, Options(max_steps));
  }
  // On a SnapshotState of this cluster (shared caches).
  std::unique_ptr<Allocator> NewAllocatorOn(std::shared_ptr<const SnapshotState> snapshot) {
    return std::make_unique<Allocator>(std::move(snapshot), ClassPointers(), &selectors, Options(0));
  }
  std::shared_ptr<const SnapshotState> NewSnapshot() const {
    return std::make_shared<SnapshotState>(features, state, index.get());
  }
};

// Everything a call answers, as one comparable string.
std::string Describe(const StatusOr<NodeFit>& fit) {
  if (!fit.ok()) return "error: " + fit.status().ToString();
  std::string out = fit->fits ? "fits" : "no fit: " + fit->reason.ToString();
  out += " steps=" + std::to_string(fit->steps) + " invalid=" + std::to_string(fit->reason.invalid_pools) +
         " claim=" + fit->reason.claim + " request=" + fit->reason.request;
  for (const api::AllocationResult& r : fit->results) {
    for (const auto& d : r.devices.results) out += " " + d.request + ":" + d.pool + "/" + d.device;
    out += r.node_selector ? " pinned" : " anywhere";
  }
  return out;
}

std::vector<std::vector<api::ResourceClaim>> CacheTestClaims() {
  std::vector<std::vector<api::ResourceClaim>> sets;
  sets.push_back({Claim("one", {Request("r")})});
  sets.push_back({Claim("two-y", {Request("r", 2, {"model == \"y\""})})});
  sets.push_back(
      {Claim("z", {Request("r", 2, {"model == \"z\""})}), Claim("x", {Request("r", 1, {"model == \"x\""})})});
  sets.push_back({Claim("too-many", {Request("r", 8)})});
  api::ResourceClaim matched = Claim("match", {Request("r", 3)});
  matched.spec.devices.constraints.push_back({.match_attribute = "drv/model"});
  sets.push_back({matched});
  sets.push_back({Claim("broken", {Request("r", 1, {"model == \"y\"", "runtime-error"})})});
  return sets;
}

StatusOr<NodeFit> AllocateWith(const Allocator& allocator, const api::Node& node,
                               const std::vector<api::ResourceClaim>& claims) {
  std::vector<const api::ResourceClaim*> ptrs;
  ptrs.reserve(claims.size());
  for (const auto& c : claims) ptrs.push_back(&c);
  return allocator.Allocate(node, ptrs);
}

// Describe() of every (node, claim set), each on an Allocator of its own.
std::vector<std::string> AnswersOfOwnAllocators(Cluster& cluster,
                                                const std::vector<std::vector<api::ResourceClaim>>& claim_sets) {
  std::vector<std::string> want;
  for (const api::Node& node : cluster.nodes) {
    for (const auto& claims : claim_sets) want.push_back(Describe(AllocateWith(*cluster.NewAllocator(), node, claims)));
  }
  return want;
}

TEST(AllocatorCacheTest, OneAllocatorAnswersAsFreshOnes) {
  Cluster cluster(6);
  const auto claim_sets = CacheTestClaims();
  const std::vector<std::string> want = AnswersOfOwnAllocators(cluster, claim_sets);
  auto shared = cluster.NewAllocator();
  for (int round = 0; round < 3; ++round) {  // every node twice more, warm
    size_t i = 0;
    for (const api::Node& node : cluster.nodes) {
      for (const auto& claims : claim_sets) {
        EXPECT_EQ(Describe(AllocateWith(*shared, node, claims)), want[i])
            << "round " << round << " " << node.metadata.name;
        ++i;
      }
    }
  }
  // Spot checks that the table above covers what it should.
  EXPECT_EQ(want[0].substr(0, 4), "fits");
  EXPECT_NE(want[5].find("error: "), std::string::npos);
  EXPECT_NE(want[5].find("CEL runtime error"), std::string::npos);
}

// A new Allocator per claim set on one SnapshotState (as kube-scheduler makes
// one per pod): every answer is that of an Allocator of its own, and the
// later Allocators reuse the first ones' work (no selector is evaluated
// again).
TEST(SnapshotStateTest, AllocatorsOnOneSnapshotAnswerAsOwnOnesAndShareTheWork) {
  Cluster cluster(6);
  const auto claim_sets = CacheTestClaims();
  const std::vector<std::string> want = AnswersOfOwnAllocators(cluster, claim_sets);
  const auto snapshot = cluster.NewSnapshot();
  int evaluations_after_first_round = 0;
  for (int round = 0; round < 2; ++round) {
    size_t i = 0;
    for (const api::Node& node : cluster.nodes) {
      for (const auto& claims : claim_sets) {
        EXPECT_EQ(Describe(AllocateWith(*cluster.NewAllocatorOn(snapshot), node, claims)), want[i])
            << "round " << round << " " << node.metadata.name;
        ++i;
      }
    }
    if (round == 0) evaluations_after_first_round = cluster.selectors.evaluations.load();
  }
  // Only the failing selector ("runtime-error": errors are never kept) is
  // evaluated again in the second round: once per node, on the first device
  // of model y that the "broken" claim reaches.
  EXPECT_EQ(cluster.selectors.evaluations.load() - evaluations_after_first_round, 6);
}

// The claim sets above and more whose preparation has parts a reused one
// must redo or reset: All mode (the node's devices), firstAvailable (the
// subrequest chosen), a class that does not exist (an error every time).
std::vector<std::vector<api::ResourceClaim>> PreparedTestClaims() {
  std::vector<std::vector<api::ResourceClaim>> sets = CacheTestClaims();
  api::DeviceRequest all = Request("all");
  all.exactly->allocation_mode = api::AllocationMode::kAll;
  all.exactly->count = 0;
  sets.push_back({Claim("all", {all})});
  api::DeviceRequest first{.name = "r"};
  for (const char* model : {"x", "z"}) {
    api::DeviceSubRequest sub{
        .name = model, .device_class_name = "gpu", .allocation_mode = api::AllocationMode::kExactCount, .count = 1};
    sub.selectors.push_back({.cel = api::CelDeviceSelector{std::string("model == \"") + model + "\""}});
    first.first_available.push_back(std::move(sub));
  }
  api::ResourceClaim both = Claim("first", {first});
  both.spec.devices.constraints.push_back({.match_attribute = "drv/model"});
  sets.push_back({both, Claim("one", {Request("r")})});
  api::ResourceClaim missing = Claim("missing", {Request("r")});
  missing.spec.devices.requests[0].exactly->device_class_name = "no-such-class";
  sets.push_back({missing});
  return sets;
}

// A pod's claims prepared once (PreparedClaims) and tried on every node, as
// the scheduler's Filter does, then the same with the claim sets
// interleaved (each call on another PreparedClaims than the last): every
// answer is that of an Allocator of its own given the claims as they are.
TEST(PreparedClaimsTest, AnswersAsUnpreparedClaimsOnEveryNode) {
  Cluster cluster(6);
  const auto claim_sets = PreparedTestClaims();
  const std::vector<std::string> want = AnswersOfOwnAllocators(cluster, claim_sets);
  const size_t sets = claim_sets.size();
  auto pointers = [](const std::vector<api::ResourceClaim>& claims) {
    std::vector<const api::ResourceClaim*> ptrs;
    ptrs.reserve(claims.size());
    for (const auto& c : claims) ptrs.push_back(&c);
    return ptrs;
  };
  std::vector<PreparedClaims> prepared;
  prepared.reserve(claim_sets.size());
  for (const auto& claims : claim_sets) prepared.emplace_back(pointers(claims));
  auto allocator = cluster.NewAllocator();
  for (int round = 0; round < 2; ++round) {
    for (size_t set = 0; set < sets; ++set) {
      for (size_t node = 0; node < cluster.nodes.size(); ++node) {
        const StatusOr<NodeFit> fit =
            allocator->Allocate(allocator->Handle(cluster.nodes[node]), prepared[set], Allocator::ResultDetail::kFull);
        EXPECT_EQ(Describe(fit), want[node * sets + set]) << "round " << round << " node " << node << " set " << set;
      }
    }
  }
  for (size_t node = 0; node < cluster.nodes.size(); ++node) {
    for (size_t set = 0; set < sets; ++set) {
      const StatusOr<NodeFit> fit =
          allocator->Allocate(allocator->Handle(cluster.nodes[node]), prepared[set], Allocator::ResultDetail::kFull);
      EXPECT_EQ(Describe(fit), want[node * sets + set]) << "interleaved, node " << node << " set " << set;
    }
  }
  // Spot checks that the sets reach what they should (worked out from the
  // cluster: node-0 has a, b, c (x, y, y) free, s0, s1 (z), q0, q1 (z)).
  const std::string& all_on_node0 = want[0 * sets + 6];
  EXPECT_EQ(all_on_node0.substr(0, 4), "fits");
  for (const char* device :
       {"node-0/a", "node-0/b", "node-0/c", "everywhere/s0", "everywhere/s1", "zoned/q0", "zoned/q1"}) {
    EXPECT_NE(all_on_node0.find(std::string("all:") + device), std::string::npos) << device;
  }
  EXPECT_EQ(want[1 * sets + 6].substr(0, 6), "no fit");  // node-1: a is allocated, All takes every device
  EXPECT_NE(want[0 * sets + 7].find("r/x:node-0/a"), std::string::npos) << want[0 * sets + 7];
  EXPECT_NE(want[3 * sets + 7].find("r/z:everywhere/s0"), std::string::npos) << want[3 * sets + 7];
  EXPECT_NE(want[0 * sets + 8].find("error: "), std::string::npos);
}

// Everything two outcomes hold, compared field by field (results whole).
void ExpectSameFit(const StatusOr<NodeFit>& want, const Status& got_status, const NodeFit& got,
                   const std::string& where) {
  ASSERT_EQ(want.ok(), got_status.ok()) << where << ": " << got_status.ToString();
  if (!want.ok()) {
    EXPECT_EQ(want.status().ToString(), got_status.ToString()) << where;
    return;
  }
  EXPECT_EQ(want->fits, got.fits) << where;
  EXPECT_EQ(want->steps, got.steps) << where;
  EXPECT_TRUE(want->results == got.results) << where;
  const Reason& a = want->reason;
  const Reason& b = got.reason;
  EXPECT_EQ(std::tie(a.claim, a.request, a.invalid_pools, a.message, a.needed, a.usable),
            std::tie(b.claim, b.request, b.invalid_pools, b.message, b.needed, b.usable))
      << where;
  EXPECT_EQ(a.ToString(), b.ToString()) << where;
}

// One NodeFit for every call (AllocateInto): whatever an earlier call left
// in it (full results, a summary, a reason), each outcome equals a fresh
// Allocate's. Nodes and claim sets in turn, summary and full alternating.
TEST(PreparedClaimsTest, AReusedNodeFitHoldsWhatAFreshOneWould) {
  Cluster cluster(6);
  const auto claim_sets = PreparedTestClaims();
  auto allocator = cluster.NewAllocator();
  std::vector<std::vector<const api::ResourceClaim*>> pointers;
  for (const auto& claims : claim_sets) {
    auto& ptrs = pointers.emplace_back();
    for (const auto& c : claims) ptrs.push_back(&c);
  }
  std::vector<PreparedClaims> prepared;
  prepared.reserve(pointers.size());
  for (const auto& ptrs : pointers) prepared.emplace_back(ptrs);
  NodeFit reused;
  int call = 0;
  for (int round = 0; round < 2; ++round) {
    for (size_t node = 0; node < cluster.nodes.size(); ++node) {
      for (size_t set = 0; set < claim_sets.size(); ++set, ++call) {
        const auto detail = call % 3 == 1 ? Allocator::ResultDetail::kSummary : Allocator::ResultDetail::kFull;
        const Allocator::NodeHandle handle = allocator->Handle(cluster.nodes[node]);
        const StatusOr<NodeFit> want = cluster.NewAllocator()->Allocate(cluster.nodes[node], pointers[set], detail);
        const Status got = allocator->AllocateInto(handle, prepared[set], detail, reused);
        ExpectSameFit(want, got, reused,
                      "round " + std::to_string(round) + " node " + std::to_string(node) + " set " +
                          std::to_string(set) + (detail == Allocator::ResultDetail::kSummary ? " summary" : " full"));
      }
    }
  }
}

// On another Allocator (other classes), a PreparedClaims used before is
// prepared again: the classes are that Allocator's, also when the new
// Allocator (and its cache) take the memory of the first one.
TEST(PreparedClaimsTest, AnotherAllocatorPreparesAgain) {
  Cluster cluster(1);
  const std::vector<api::ResourceClaim> claims = {Claim("one", {Request("r")})};
  const PreparedClaims prepared(std::vector<const api::ResourceClaim*>{&claims[0]});
  auto first = cluster.NewAllocator();
  const api::Node& node = cluster.nodes[0];
  ASSERT_TRUE(first->Allocate(first->Handle(node), prepared, Allocator::ResultDetail::kFull)->fits);
  first.reset();
  cluster.classes[0].spec.selectors[0].cel->expression = "false";
  auto second = cluster.NewAllocator();
  const StatusOr<NodeFit> fit = second->Allocate(second->Handle(node), prepared, Allocator::ResultDetail::kFull);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->reason.class_selector, 7);  // a, b, c, s0, s1, q0, q1
}

// AddAllocation, RemoveAllocation and SetExcluded on an Allocator built on a
// SnapshotState change only that Allocator: the snapshot and the other
// Allocators on it answer as before. Handles taken before stay usable.
TEST(SnapshotStateTest, AChangeStaysWithTheAllocatorThatMadeIt) {
  Cluster cluster(2);  // node-0: a, b, c free; node-1: a allocated
  const auto snapshot = cluster.NewSnapshot();
  auto changing = cluster.NewAllocatorOn(snapshot);
  auto other = cluster.NewAllocatorOn(snapshot);
  const api::Node& node0 = cluster.nodes[0];
  const std::vector<api::ResourceClaim> one = {Claim("one", {Request("r", 1, {"model == \"y\""})})};
  auto device = [&](const Allocator& a, Allocator::NodeHandle h) {
    std::vector<const api::ResourceClaim*> ptrs = {&one[0]};
    StatusOr<NodeFit> fit = a.Allocate(h, ptrs, Allocator::ResultDetail::kFull);
    EXPECT_TRUE(fit.ok()) << fit.status().ToString();
    if (!fit.ok() || !fit->fits) return std::string("none");
    return fit->results[0].devices.results[0].pool + "/" + fit->results[0].devices.results[0].device;
  };
  const Allocator::NodeHandle handle = changing->Handle(node0);
  const uint64_t generation = changing->NodeGeneration(handle);
  StatusOr<NodeFit> fit = AllocateWith(*changing, node0, one);
  ASSERT_TRUE(fit.ok() && fit->fits);
  ASSERT_EQ(device(*changing, handle), "node-0/b");  // the first device of model y
  std::vector<std::string> changed;
  ASSERT_TRUE(changing->AddAllocation(fit->results[0], &changed).ok());
  EXPECT_THAT(changed, ::testing::Contains("node-0"));
  EXPECT_EQ(device(*changing, handle), "node-0/c");  // b is taken now
  EXPECT_NE(changing->NodeGeneration(handle), generation);
  EXPECT_EQ(changing->CountDevices(handle).in_use, 1);
  EXPECT_EQ(device(*other, other->Handle(node0)), "node-0/b");
  EXPECT_EQ(device(*cluster.NewAllocatorOn(snapshot), cluster.NewAllocatorOn(snapshot)->Handle(node0)), "node-0/b");
  EXPECT_TRUE(snapshot->allocated().devices.count("drv/node-0/b") == 0);

  other->SetExcluded("drv", "node-0", "b", true);
  EXPECT_EQ(device(*other, other->Handle(node0)), "node-0/c");
  auto fresh = cluster.NewAllocatorOn(snapshot);
  EXPECT_EQ(device(*fresh, fresh->Handle(node0)), "node-0/b");

  ASSERT_TRUE(changing->RemoveAllocation(fit->results[0]).ok());
  EXPECT_EQ(device(*changing, handle), "node-0/b");
  EXPECT_EQ(changing->CountDevices(handle).in_use, 0);
}

TEST(AllocatorCacheTest, VerdictsAreEvaluatedOncePerDeviceButErrorsEveryTime) {
  Cluster cluster(2);
  auto allocator = cluster.NewAllocator();
  const std::vector<api::ResourceClaim> claims = {Claim("c", {Request("r", 2, {"model == \"y\""})})};
  ASSERT_TRUE(AllocateWith(*allocator, cluster.nodes[0], claims).ok());
  const int evaluations = cluster.selectors.evaluations.load();
  EXPECT_GT(evaluations, 0);
  for (int i = 0; i < 3; ++i) {
    StatusOr<NodeFit> fit = AllocateWith(*allocator, cluster.nodes[0], claims);
    ASSERT_TRUE(fit.ok() && fit->fits);
  }
  EXPECT_EQ(cluster.selectors.evaluations.load(), evaluations);

  const std::vector<api::ResourceClaim> broken = {Claim("c", {Request("r", 1, {"runtime-error"})})};
  for (int i = 0; i < 2; ++i) {
    StatusOr<NodeFit> fit = AllocateWith(*allocator, cluster.nodes[0], broken);
    ASSERT_FALSE(fit.ok());
    EXPECT_NE(
        fit.status().message().find("claim default/c: selector #0 on device drv/everywhere/s0: CEL runtime error"),
        std::string::npos)
        << fit.status().ToString();
  }
}

TEST(AllocatorCacheTest, NodesWithTheSameNameAndOtherLabelsAreNotConfused) {
  Cluster cluster(1);
  auto allocator = cluster.NewAllocator();
  const std::vector<api::ResourceClaim> zoned = {Claim("c", {Request("r", 2, {"model == \"z\""}), Request("q", 4)})};
  api::Node in_zone = cluster.nodes[0];  // zone=z1: the zoned pool is usable
  api::Node elsewhere = in_zone;
  elsewhere.metadata.labels = {};
  const std::string want_in_zone = Describe(AllocateWith(*cluster.NewAllocator(), in_zone, zoned));
  const std::string want_elsewhere = Describe(AllocateWith(*cluster.NewAllocator(), elsewhere, zoned));
  ASSERT_NE(want_in_zone, want_elsewhere);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(Describe(AllocateWith(*allocator, in_zone, zoned)), want_in_zone);
    EXPECT_EQ(Describe(AllocateWith(*allocator, elsewhere, zoned)), want_elsewhere);
  }
  // The same object, changed in place, is looked at again.
  api::Node changing = in_zone;
  EXPECT_EQ(Describe(AllocateWith(*allocator, changing, zoned)), want_in_zone);
  changing.metadata.labels = {};
  EXPECT_EQ(Describe(AllocateWith(*allocator, changing, zoned)), want_elsewhere);
}

TEST(AllocatorCacheTest, ConcurrentCallsAnswerAsSequentialOnes) {
  Cluster cluster(16);
  const auto claim_sets = CacheTestClaims();
  const std::vector<std::string> want = AnswersOfOwnAllocators(cluster, claim_sets);
  auto shared = cluster.NewAllocator();
  // Also a new Allocator per round on one SnapshotState, in every thread.
  const auto snapshot = cluster.NewSnapshot();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int thread_idx = 0; thread_idx < 4; ++thread_idx) {
    threads.emplace_back([&, thread_idx] {
      for (int round = 0; round < 20; ++round) {
        const std::unique_ptr<Allocator> on_snapshot = cluster.NewAllocatorOn(snapshot);
        // Each thread walks the nodes from its own starting point.
        for (size_t k = 0; k < cluster.nodes.size(); ++k) {
          const size_t node_idx = (k + static_cast<size_t>(thread_idx) * 5) % cluster.nodes.size();
          for (size_t set_idx = 0; set_idx < claim_sets.size(); ++set_idx) {
            const std::string& expected = want[node_idx * claim_sets.size() + set_idx];
            std::string got = Describe(AllocateWith(*shared, cluster.nodes[node_idx], claim_sets[set_idx]));
            if (got != expected) mismatches.fetch_add(1);
            got = Describe(AllocateWith(*on_snapshot, cluster.nodes[node_idx], claim_sets[set_idx]));
            if (got != expected) mismatches.fetch_add(1);
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// The claims of `fit` added to the allocator (and to `state`, for fresh
// allocators to compare with), as the scheduler does after binding.
void Commit(Allocator& allocator, AllocatedState& state, const NodeFit& fit, const Features& features,
            std::vector<std::string>* changed = nullptr) {
  for (const api::AllocationResult& r : fit.results) {
    ASSERT_TRUE(allocator.AddAllocation(r, changed).ok());
    for (const auto& d : r.devices.results) ASSERT_TRUE(state.AddResult(d, features).ok());
  }
}

TEST(AllocatorAddAllocationTest, AnswersAsAFreshAllocatorWithTheAllocationInItsState) {
  Cluster cluster(6);
  const auto claim_sets = CacheTestClaims();
  auto shared = cluster.NewAllocator();
  AllocatedState state = cluster.state;
  // Allocate one claim set after another on the nodes in turn, committing
  // what fits; after each commit every node and claim set must answer as an
  // Allocator built from scratch with the state so far.
  int commits = 0;
  for (int step = 0; step < 12; ++step) {
    const api::Node& node = cluster.nodes[static_cast<size_t>(step) % cluster.nodes.size()];
    const auto& claims = claim_sets[static_cast<size_t>(step) % 3];  // sets that can fit
    StatusOr<NodeFit> fit = AllocateWith(*shared, node, claims);
    ASSERT_TRUE(fit.ok()) << fit.status().ToString();
    if (!fit->fits) continue;
    Commit(*shared, state, *fit, cluster.features);
    ++commits;
    cluster.state = state;
    for (const api::Node& n : cluster.nodes) {
      for (const auto& probe : claim_sets) {
        EXPECT_EQ(Describe(AllocateWith(*shared, n, probe)), Describe(AllocateWith(*cluster.NewAllocator(), n, probe)))
            << "after commit " << commits << " on " << n.metadata.name;
      }
    }
  }
  EXPECT_GE(commits, 3);  // the comparison above ran on a changing state
}

TEST(AllocatorAddAllocationTest, NamesTheChangedNodesAndRaisesTheirGeneration) {
  Cluster cluster(3);
  auto allocator = cluster.NewAllocator();
  AllocatedState state = cluster.state;
  std::vector<uint64_t> before;
  for (const api::Node& n : cluster.nodes) before.push_back(allocator->NodeGeneration(n));
  // node-0's own pool: only node-0 changes.
  StatusOr<NodeFit> fit =
      AllocateWith(*allocator, cluster.nodes[0], {Claim("one", {Request("r", 1, {"model == \"x\""})})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(fit->results[0].devices.results[0].pool, cluster.nodes[0].metadata.name);
  std::vector<std::string> changed;
  Commit(*allocator, state, *fit, cluster.features, &changed);
  EXPECT_EQ(changed, std::vector<std::string>({cluster.nodes[0].metadata.name}));
  EXPECT_NE(allocator->NodeGeneration(cluster.nodes[0]), before[0]);
  EXPECT_EQ(allocator->NodeGeneration(cluster.nodes[1]), before[1]);
  // A device of the allNodes pool: every node seen so far changes.
  fit = AllocateWith(*allocator, cluster.nodes[1], {Claim("z", {Request("r", 1, {"model == \"z\""})})});
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(fit->results[0].devices.results[0].pool, "everywhere");
  changed.clear();
  Commit(*allocator, state, *fit, cluster.features, &changed);
  std::sort(changed.begin(), changed.end());
  std::vector<std::string> all;
  for (const api::Node& n : cluster.nodes) all.push_back(n.metadata.name);
  EXPECT_EQ(changed, all);
}

TEST(AllocatorAddAllocationTest, CountersAndSharedCapacityAreGivenOutOnce) {
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
    d.attributes.insert_or_assign("model", api::DeviceAttribute::String("part"));
  }
  api::ResourceSlice& shared_slice = f.Slice({"a"});
  shared_slice.spec.pool.name = "shared";
  shared_slice.spec.devices[0].allow_multiple_allocations = true;
  shared_slice.spec.devices[0].attributes.insert_or_assign("model", api::DeviceAttribute::String("big"));
  shared_slice.spec.devices[0].capacity.insert_or_assign(
      "memory", api::DeviceCapacity{.value = *quantity::Quantity::Parse("4Gi")});
  for (auto& s : f.slices) {
    if (s.spec.pool.name == "pool") s.spec.pool.resource_slice_count = 2;
  }
  std::vector<const api::ResourceSlice*> ptrs;
  for (auto& s : f.slices) ptrs.push_back(&s);
  SliceIndex index(ptrs);
  std::vector<const api::DeviceClass*> cls;
  for (auto& c : f.classes) cls.push_back(&c);
  int n = 0;
  Allocator allocator(
      f.features, f.state, cls, &index, &f.selectors,
      AllocatorOptions{.max_steps = 0, .new_share_id = [&n] { return "share-" + std::to_string(n++); }});
  AllocatedState state;
  auto run = [&](const api::ResourceClaim& claim) {
    std::vector<const api::ResourceClaim*> claims = {&claim};
    return allocator.Allocate(f.node, claims);
  };
  // Two partitions use up the counter set (mem 2): the third partition is
  // free but cannot be had.
  const api::ResourceClaim two = Claim("two", {Request("r", 2, {"model == \"part\""})});
  StatusOr<NodeFit> fit = run(two);
  ASSERT_TRUE(fit.ok() && fit->fits);
  Commit(allocator, state, *fit, f.features);
  fit = run(Claim("one", {Request("r", 1, {"model == \"part\""})}));
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->reason.counters, 1) << fit->reason.ToString();
  // 2Gi shares of a 4Gi device: two fit, one after the other; the third not.
  api::DeviceRequest r = Request("r", 1, {"model == \"big\""});
  r.exactly->capacity = api::CapacityRequirements{};
  r.exactly->capacity->requests.insert_or_assign("memory", *quantity::Quantity::Parse("2Gi"));
  for (int i = 0; i < 2; ++i) {
    fit = run(Claim("share-" + std::to_string(i), {r}));
    ASSERT_TRUE(fit.ok() && fit->fits) << i << ": " << (fit.ok() ? fit->reason.ToString() : fit.status().ToString());
    Commit(allocator, state, *fit, f.features);
  }
  fit = run(Claim("share-2", {r}));
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  EXPECT_EQ(fit->reason.capacity, 1) << fit->reason.ToString();
}

TEST(AllocatorSummaryTest, DecidesAsTheFullResultWithoutTheDetails) {
  Cluster cluster(6);
  auto allocator = cluster.NewAllocator();
  for (const api::Node& node : cluster.nodes) {
    for (const auto& claims : CacheTestClaims()) {
      std::vector<const api::ResourceClaim*> ptrs;
      ptrs.reserve(claims.size());
      for (const auto& c : claims) ptrs.push_back(&c);
      StatusOr<NodeFit> full = allocator->Allocate(node, ptrs, Allocator::ResultDetail::kFull);
      StatusOr<NodeFit> summary = allocator->Allocate(node, ptrs, Allocator::ResultDetail::kSummary);
      ASSERT_EQ(full.ok(), summary.ok());
      if (!full.ok()) {
        EXPECT_EQ(full.status().ToString(), summary.status().ToString());
        continue;
      }
      ASSERT_EQ(full->fits, summary->fits) << node.metadata.name;
      EXPECT_EQ(full->reason.ToString(), summary->reason.ToString());
      ASSERT_EQ(full->results.size(), summary->results.size());
      for (size_t i = 0; i < full->results.size(); ++i) {
        const auto& want = full->results[i].devices.results;
        const auto& got = summary->results[i].devices.results;
        ASSERT_EQ(want.size(), got.size());
        for (size_t j = 0; j < want.size(); ++j) {
          EXPECT_EQ(got[j].request, want[j].request);
          EXPECT_EQ(got[j].admin_access, want[j].admin_access);
          EXPECT_TRUE(got[j].device.empty());  // the details are left out
        }
        EXPECT_FALSE(summary->results[i].node_selector.has_value());
      }
    }
  }
}

// --- DeviceChoice::kBestFit (best_fit.h) ---

api::DeviceAttribute Str(std::string_view v) { return api::DeviceAttribute::String(v); }

// Runs the same claims with first fit and best fit: both must fit; returns
// the devices of claim 0 (first fit, best fit).
std::pair<std::vector<std::string>, std::vector<std::string>> BothChoices(
    Fixture& f, const std::vector<api::ResourceClaim>& claims) {
  std::pair<std::vector<std::string>, std::vector<std::string>> out;
  for (DeviceChoice choice : {DeviceChoice::kFirstFit, DeviceChoice::kBestFit}) {
    f.device_choice = choice;
    auto fit = f.Allocate(claims);
    EXPECT_TRUE(fit.ok() && fit->fits) << (fit.ok() ? fit->reason.ToString() : fit.status().ToString());
    if (!fit.ok() || !fit->fits) return out;
    (choice == DeviceChoice::kFirstFit ? out.first : out.second) = Devices(*fit);
  }
  return out;
}

TEST(AllocatorBestFitTest, TakesTheSmallestAdequateDevice) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"gpu-80g", "gpu-40g", "gpu-24g"});
  const char* memory[] = {"80Gi", "40Gi", "24Gi"};
  const char* model[] = {"ok", "ok", "small"};  // the selector: >= 40Gi
  for (size_t i = 0; i < 3; ++i) {
    s.spec.devices[i].capacity.insert_or_assign("memory",
                                                api::DeviceCapacity{.value = *quantity::Quantity::Parse(memory[i])});
    s.spec.devices[i].attributes.insert_or_assign("model", Str(model[i]));
  }
  auto [first, best] = BothChoices(f, {Claim("c", {Request("r", 1, {"model == \"ok\""})})});
  EXPECT_EQ(first, (std::vector<std::string>{"r:gpu-80g"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:gpu-40g"}));
}

// Counter sets of four slots s0..s3 each, and partitions (name, slots they
// take); a partition's memory capacity is 10 per slot.
void SlotPartitions(Fixture& f, std::vector<std::pair<std::string, std::vector<int>>> partitions,
                    std::vector<std::string> sets = {"gpu-0"}) {
  api::ResourceSlice& counters = f.Slice({});
  counters.spec.node_name = "node-1";
  for (const std::string& set : sets) {
    api::CounterSet& cs = counters.spec.shared_counters.emplace_back(api::CounterSet{.name = set});
    for (int slot = 0; slot < 4; ++slot) {
      cs.counters.insert_or_assign("s" + std::to_string(slot), api::Counter{*quantity::Quantity::Parse("1")});
    }
  }
  std::vector<std::string> names;
  names.reserve(partitions.size());
  for (auto& p : partitions) names.push_back(p.first);
  api::ResourceSlice& devs = f.Slice(names);
  for (size_t i = 0; i < partitions.size(); ++i) {
    api::Device& d = devs.spec.devices[i];
    // The set is the name's part before '/' ("gpu-1/a"), else the only set.
    const size_t slash = d.name.find('/');
    api::DeviceCounterConsumption use{.counter_set = slash == std::string::npos ? sets[0] : d.name.substr(0, slash)};
    for (int slot : partitions[i].second) {
      use.counters.insert_or_assign("s" + std::to_string(slot), api::Counter{*quantity::Quantity::Parse("1")});
    }
    d.rare.mut().consumes_counters.push_back(use);
    d.capacity.insert_or_assign(
        "memory", api::DeviceCapacity{
                      .value = quantity::Quantity::FromInt(static_cast<int64_t>(partitions[i].second.size()) * 10)});
    d.attributes.insert_or_assign("model", Str(partitions[i].second.size() == 1 ? "small" : "big"));
  }
  for (auto& s : f.slices) s.spec.pool.resource_slice_count = 2;
}

TEST(AllocatorBestFitTest, KeepsFreeSlotsContiguous) {
  Fixture f;
  SlotPartitions(f, {{"p1-1", {1}}, {"p1-2", {2}}, {"p1-0", {0}}, {"p1-3", {3}}});
  // p1-1 or p1-2 would leave runs of 1 and 2; p1-0 and p1-3 leave 3.
  auto [first, best] = BothChoices(f, {Claim("c", {Request("r", 1, {"model == \"small\""})})});
  EXPECT_EQ(first, (std::vector<std::string>{"r:p1-1"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:p1-0"}));
}

TEST(AllocatorBestFitTest, KeepsRoomForLargerPlacements) {
  Fixture f;
  SlotPartitions(f, {{"p1-3", {3}}, {"p1-2", {2}}, {"p1-1", {1}}, {"p1-0", {0}}, {"p2-0", {0, 1}}, {"p2-2", {2, 3}}});
  f.state.devices.insert("drv/pool/p1-0");  // s0 is taken
  // p1-3 and p1-2 would leave no two-slot partition; p1-1 leaves p2-2.
  auto [first, best] = BothChoices(f, {Claim("c", {Request("r", 1, {"model == \"small\""})})});
  EXPECT_EQ(first, (std::vector<std::string>{"r:p1-3"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:p1-1"}));
}

TEST(AllocatorBestFitTest, PrefersTheFullestParent) {
  Fixture f;
  SlotPartitions(f, {{"gpu-0/a", {0}}, {"gpu-0/b", {1}}, {"gpu-1/a", {0}}, {"gpu-1/b", {1}}}, {"gpu-0", "gpu-1"});
  f.state.devices.insert("drv/pool/gpu-1/a");
  auto [first, best] = BothChoices(f, {Claim("c", {Request("r", 1, {"model == \"small\""})})});
  EXPECT_EQ(first, (std::vector<std::string>{"r:gpu-0/a"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:gpu-1/b"}));
}

TEST(AllocatorBestFitTest, PrefersThePcieRootOfTheClaimsOtherDevices) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"gpu-a", "gpu-b", "nic-a", "nic-b"});
  const char* root[] = {"pci0000:a", "pci0000:b", "pci0000:a", "pci0000:b"};
  const char* model[] = {"gpu", "gpu", "nic", "nic"};
  for (size_t i = 0; i < 4; ++i) {
    s.spec.devices[i].attributes.insert_or_assign("resource.kubernetes.io/pcieRoot", Str(root[i]));
    s.spec.devices[i].attributes.insert_or_assign("model", Str(model[i]));
  }
  f.state.devices.insert("drv/pool/gpu-a");
  auto [first, best] =
      BothChoices(f, {Claim("c", {Request("gpu", 1, {"model == \"gpu\""}), Request("nic", 1, {"model == \"nic\""})})});
  EXPECT_EQ(first, (std::vector<std::string>{"gpu:gpu-b", "nic:nic-a"}));
  EXPECT_EQ(best, (std::vector<std::string>{"gpu:gpu-b", "nic:nic-b"}));
}

TEST(AllocatorBestFitTest, AnErrorOnlyBestFitMeetsFallsBackToFirstFit) {
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a", "b"});
  s.spec.devices[0].capacity.insert_or_assign("memory",
                                              api::DeviceCapacity{.value = *quantity::Quantity::Parse("80Gi")});
  s.spec.devices[1].capacity.insert_or_assign("memory",
                                              api::DeviceCapacity{.value = *quantity::Quantity::Parse("8Gi")});
  // First fit takes "a" and never evaluates the selector on "b"; best fit
  // tries the smaller "b" first, meets the error, and searches again.
  auto [first, best] = BothChoices(f, {Claim("c", {Request("r", 1, {"fails-on-b"})})});
  EXPECT_EQ(first, (std::vector<std::string>{"r:a"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:a"}));
  // Where first fit meets the error too, both report it.
  for (DeviceChoice choice : {DeviceChoice::kFirstFit, DeviceChoice::kBestFit}) {
    f.device_choice = choice;
    auto fit = f.Allocate({Claim("c", {Request("r", 2, {"fails-on-b"})})});
    ASSERT_FALSE(fit.ok()) << DeviceChoiceName(choice);
    EXPECT_TRUE(fit.status().message().find("no such key: x") != std::string_view::npos) << fit.status().ToString();
  }
}

TEST(AllocatorBestFitTest, DecidesFitLikeFirstFit) {
  // Best fit only reorders the search: a scenario that needs backtracking
  // (matchAttribute) fits, and one that cannot fit fails, either way.
  Fixture f;
  api::ResourceSlice& s = f.Slice({"a", "b", "c", "d"});
  const char* zone[] = {"x", "y", "x", "z"};
  for (size_t i = 0; i < 4; ++i) s.spec.devices[i].attributes.insert_or_assign("zone", Str(zone[i]));
  api::ResourceClaim claim = Claim("c", {Request("r", 2)});
  claim.spec.devices.constraints.push_back({.match_attribute = "drv/zone"});
  auto [first, best] = BothChoices(f, {claim});
  EXPECT_EQ(first, (std::vector<std::string>{"r:a", "r:c"}));
  EXPECT_EQ(best, (std::vector<std::string>{"r:a", "r:c"}));
  api::ResourceClaim three = Claim("c", {Request("r", 3)});
  three.spec.devices.constraints.push_back({.match_attribute = "drv/zone"});
  for (DeviceChoice choice : {DeviceChoice::kFirstFit, DeviceChoice::kBestFit}) {
    f.device_choice = choice;
    auto fit = f.Allocate({three});
    ASSERT_TRUE(fit.ok());
    EXPECT_FALSE(fit->fits) << DeviceChoiceName(choice);
  }
}

// --- 1.37 alpha: compatibility groups (README.md §8.1) ----------------------
// Expectations from upstream's rules (compatibility_groups.go): a device
// joins a counter set only if its groups meet the intersection of the groups
// of the devices already on it; no groups only joins no groups.

// A counter set "set" (10 slots) and one device slice whose devices each
// consume one slot and declare `groups` (per device; empty: none).
void GroupedPartitions(Fixture& f, const std::vector<std::pair<std::string, std::vector<std::string>>>& devices) {
  f.features.compatibility_groups = true;
  api::ResourceSlice& counters = f.Slice({});
  counters.spec.shared_counters.push_back({.name = "set"});
  counters.spec.shared_counters[0].counters.insert_or_assign("slots", api::Counter{*quantity::Quantity::Parse("10")});
  std::vector<std::string> names;
  names.reserve(devices.size());
  for (const auto& d : devices) names.push_back(d.first);
  api::ResourceSlice& devs = f.Slice(names);
  for (size_t i = 0; i < devices.size(); ++i) {
    api::DeviceCounterConsumption use{.counter_set = "set", .compatibility_groups = devices[i].second};
    use.counters.insert_or_assign("slots", api::Counter{*quantity::Quantity::Parse("1")});
    devs.spec.devices[i].rare.mut().consumes_counters.push_back(use);
  }
  for (auto& s : f.slices) s.spec.pool.resource_slice_count = 2;
}

// The devices one claim with one request "r" for `count` devices gets;
// empty when it does not fit (`incompatible`: the reason's count then).
std::vector<std::string> TakeCount(Fixture& f, int64_t count, int64_t* incompatible = nullptr) {
  auto fit = f.Allocate({Claim("c0", {Request("r", count)})});
  EXPECT_TRUE(fit.ok()) << fit.status().ToString();
  if (!fit.ok() || !fit->fits) {
    if (fit.ok() && incompatible != nullptr) *incompatible = fit->reason.incompatible;
    return {};
  }
  return Devices(*fit);
}

TEST(AllocatorCompatibilityGroupsTest, DisjointGroupsDoNotShareACounterSet) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {"a"}}, {"p1", {"b"}}, {"p2", {"a", "b"}}, {"p3", {}}});
  // p1 ({b}) is refused after p0 ({a}); p2 shares a.
  EXPECT_EQ(TakeCount(f, 2), (std::vector<std::string>{"r:p0", "r:p2"}));
  // Three never fit together: {p0, p2}, {p1, p2} are the only compatible
  // pairs and p3 (no groups) joins none of them.
  int64_t incompatible = 0;
  EXPECT_TRUE(TakeCount(f, 3, &incompatible).empty());
  EXPECT_GT(incompatible, 0);
}

TEST(AllocatorCompatibilityGroupsTest, DevicesWithoutGroupsShareOnlyWithEachOther) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {}}, {"p1", {"a"}}, {"p2", {}}});
  EXPECT_EQ(TakeCount(f, 2), (std::vector<std::string>{"r:p0", "r:p2"}));
}

TEST(AllocatorCompatibilityGroupsTest, AllocatedDevicesCount) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {"a"}}, {"p1", {"b"}}, {"p2", {"b", "a"}}});
  f.state.devices.insert("drv/pool/p0");
  EXPECT_EQ(TakeCount(f, 1), (std::vector<std::string>{"r:p2"}));
  // Counting before the search already knows p1 can never join.
  int64_t incompatible = 0;
  EXPECT_TRUE(TakeCount(f, 2, &incompatible).empty());
  EXPECT_EQ(incompatible, 1);
}

// AddAllocation (the scheduler's path) updates the allocated devices' groups
// as it updates their counters.
TEST(AllocatorCompatibilityGroupsTest, AddAllocationUpdatesTheGroups) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {"a"}}, {"p1", {"b"}}, {"p2", {"b", "a"}}});
  std::vector<const api::ResourceSlice*> ptrs;
  for (auto& s : f.slices) ptrs.push_back(&s);
  SliceIndex index(ptrs);
  std::vector<const api::DeviceClass*> cls;
  for (auto& c : f.classes) cls.push_back(&c);
  Allocator allocator(f.features, f.state, cls, &index, &f.selectors, AllocatorOptions{});
  AllocatedState state;
  const api::ResourceClaim one = Claim("c0", {Request("r")});
  std::vector<const api::ResourceClaim*> claims = {&one};
  StatusOr<NodeFit> fit = allocator.Allocate(f.node, claims);
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:p0"}));
  Commit(allocator, state, *fit, f.features);
  // p0 ({a}) is allocated now: p1 ({b}) cannot join it, p2 can.
  fit = allocator.Allocate(f.node, claims);
  ASSERT_TRUE(fit.ok() && fit->fits);
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:p2"}));
}

TEST(AllocatorCompatibilityGroupsTest, UndoneOnBacktrack) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {"a"}}, {"p1", {"b"}}, {"p2", {"b", "c"}}});
  f.slices[1].spec.devices[0].attributes.insert_or_assign("model", api::DeviceAttribute::String("x"));
  f.slices[1].spec.devices[1].attributes.insert_or_assign("model", api::DeviceAttribute::String("y"));
  f.slices[1].spec.devices[2].attributes.insert_or_assign("model", api::DeviceAttribute::String("x"));
  // r0: p0 first, then p1 for r1 is refused; p0 must be undone completely
  // for p2 and then p1 to fit.
  auto fit = f.Allocate({Claim("c0", {Request("r0", 1, {"model == \"x\""}), Request("r1", 1, {"model == \"y\""})})});
  ASSERT_TRUE(fit.ok() && fit->fits) << fit.status().ToString();
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r0:p2", "r1:p1"}));
}

TEST(AllocatorCompatibilityGroupsTest, GateOffIgnoresTheSliceAndItsPool) {
  Fixture f;
  GroupedPartitions(f, {{"p0", {"a"}}, {"p1", {}}});
  f.features.compatibility_groups = false;
  auto fit = f.Allocate({Claim("c0", {Request("r")})});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_FALSE(fit->fits);  // the pool is incomplete: 1 of its 2 slices
}

// --- 1.37 alpha: derived attributes (README.md §7.4) ------------------------

api::DeviceRequest Derived(api::DeviceRequest r, std::string name, std::string expression) {
  r.exactly->derived_attributes.push_back({.name = std::move(name), .expression = std::move(expression)});
  return r;
}

api::ResourceClaim WithConstraint(api::ResourceClaim c, api::DeviceConstraint constraint) {
  c.spec.devices.constraints.push_back(std::move(constraint));
  return c;
}

TEST(AllocatorDerivedAttributesTest, ConstraintsSeeTheDerivedValue) {
  Fixture f;
  f.features.derived_attributes = true;
  f.Slice({"a", "b"});
  f.slices[0].spec.devices[0].attributes.insert_or_assign("model", api::DeviceAttribute::String("x"));
  f.slices[0].spec.devices[1].attributes.insert_or_assign("model", api::DeviceAttribute::String("y"));
  // The device's own drv/model differs; the derived one (same name) shadows it.
  auto fit = f.Allocate({WithConstraint(Claim("c0", {Derived(Request("r", 2), "drv/model", "const")}),
                                        {.match_attribute = "drv/model"})});
  ASSERT_TRUE(fit.ok() && fit->fits) << fit.status().ToString();
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:a", "r:b"}));
  // Without the derived attribute the models differ.
  fit = f.Allocate({WithConstraint(Claim("c0", {Request("r", 2)}), {.match_attribute = "drv/model"})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
  // Only the requests that define it see it: s has no derived/x.
  fit = f.Allocate({WithConstraint(Claim("c0", {Derived(Request("r"), "derived/x", "const"), Request("s")}),
                                   {.match_attribute = "derived/x"})});
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->fits);
}

TEST(AllocatorDerivedAttributesTest, DistinctOnDerivedValuesAndCache) {
  Fixture f;
  f.features.derived_attributes = true;
  f.Slice({"a", "b", "c"});
  const int64_t index[] = {1, 1, 2};
  for (size_t i = 0; i < 3; ++i) {
    f.slices[0].spec.devices[i].attributes.insert_or_assign("index", api::DeviceAttribute::Int(index[i]));
  }
  auto fit = f.Allocate({WithConstraint(Claim("c0", {Derived(Request("r", 2), "derived/i", "index")}),
                                        {.distinct_attribute = "derived/i"})});
  ASSERT_TRUE(fit.ok() && fit->fits) << fit.status().ToString();
  EXPECT_EQ(Devices(*fit), (std::vector<std::string>{"r:a", "r:c"}));
  // Evaluated once per device and expression in the call: a, b, c.
  EXPECT_EQ(f.selectors.derived_evaluations.load(), 3);
}

TEST(AllocatorDerivedAttributesTest, EvaluationErrorStopsTheAllocation) {
  Fixture f;
  f.features.derived_attributes = true;
  f.Slice({"a", "b"});
  f.slices[0].spec.devices[1].attributes.insert_or_assign("index", api::DeviceAttribute::Int(1));
  // a has no index: the error comes before b is tried, and before counting
  // could tell that 3 devices never fit.
  for (int64_t count : {1, 3}) {
    auto fit = f.Allocate({WithConstraint(Claim("c0", {Derived(Request("r", count), "derived/i", "index")}),
                                          {.match_attribute = "derived/i"})});
    ASSERT_FALSE(fit.ok());
    EXPECT_THAT(fit.status().message(),
                ::testing::HasSubstr("evaluate derived attribute derived/i on device drv/pool/a failed: no such key"));
  }
}

TEST(AllocatorDerivedAttributesTest, GateOffIsAnError) {
  Fixture f;
  f.Slice({"a"});
  auto fit = f.Allocate(
      {WithConstraint(Claim("c0", {Derived(Request("r"), "derived/x", "const")}), {.match_attribute = "derived/x"})});
  ASSERT_FALSE(fit.ok());
  EXPECT_THAT(fit.status().message(),
              ::testing::HasSubstr("cannot handle request with derived attributes, the feature is disabled"));
}

}  // namespace
}  // namespace dra::alloc
