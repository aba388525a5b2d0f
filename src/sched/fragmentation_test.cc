// The fragmentation measure on small clusters built in code, with the real
// CEL evaluator. Every expected number is worked out by hand in the comment
// beside it from the definition in fragmentation.h.
#include "sched/fragmentation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "alloc/cel_selector.h"
#include "api/defaults.h"

namespace dra::sched {
namespace {

api::Quantity Q(std::string_view text) { return *api::Quantity::Parse(text); }

constexpr char kDriver[] = "gpu.example.com";

class FragmentationTest : public ::testing::Test {
 protected:
  FragmentationTest() {
    for (const char* name : {"gpu", "nic"}) {
      api::DeviceClass c;
      c.metadata.name = name;
      c.spec.selectors.push_back(
          {.cel = api::CelDeviceSelector{
               fmt::format("device.driver == '{}'", name == std::string("gpu") ? kDriver : "nic.example.com")}});
      snap_.classes.push_back(c);
    }
    features_.consumable_capacity = true;
    features_.partitionable_devices = true;
    cel_ = std::move(*alloc::NewCelSelectorEvaluator(features_));
  }

  void AddNode(std::string name, std::string cpu = "64") {
    api::Node n;
    n.metadata.name = std::move(name);
    n.status.allocatable.insert_or_assign("cpu", Q(cpu));
    n.status.allocatable.insert_or_assign("memory", Q("512Gi"));
    n.status.allocatable.insert_or_assign("pods", Q("110"));
    snap_.nodes.push_back(n);
  }
  api::ResourceSlice& AddSlice(const std::string& node, std::vector<api::Device> devices,
                               std::string driver = kDriver) {
    api::ResourceSlice s;
    s.metadata.name = node + "-" + driver;
    s.spec.driver = std::move(driver);
    s.spec.pool = {.name = node, .generation = 1, .resource_slice_count = 1};
    s.spec.node_name = node;
    s.spec.devices = std::move(devices);
    snap_.slices.push_back(std::move(s));
    return snap_.slices.back();
  }
  static api::Device Whole(std::string name) { return api::Device{.name = std::move(name)}; }
  // A device shared by capacity: `memory` units.
  static api::Device Shared(std::string name, int64_t memory) {
    api::Device d{.name = std::move(name)};
    d.capacity.insert_or_assign("memory",
                                api::DeviceCapacity{.value = api::Quantity::FromInt(memory), .request_policy = {}});
    d.allow_multiple_allocations = true;
    return d;
  }
  // One request of class `cls`: `count` devices, `memory` capacity each when > 0.
  static api::ResourceClaimSpec Spec(int64_t count, int64_t memory = 0, std::vector<std::string> selectors = {},
                                     std::string cls = "gpu") {
    api::ExactDeviceRequest ex{.device_class_name = std::move(cls), .count = count};
    for (std::string& s : selectors) ex.selectors.push_back({.cel = api::CelDeviceSelector{std::move(s)}});
    if (memory > 0) {
      api::CapacityRequirements cap;
      cap.requests.insert_or_assign("memory", api::Quantity::FromInt(memory));
      ex.capacity = std::move(cap);
    }
    api::ResourceClaimSpec spec;
    spec.devices.requests.push_back({.name = "r", .exactly = std::move(ex)});
    api::SetDefaults(spec);
    return spec;
  }
  // `pods` pods of one shape: cpu in millicores, one claim with `spec`.
  void AddShape(int64_t milli_cpu, const api::ResourceClaimSpec* spec, int pods) {
    std::vector<const api::ResourceClaimSpec*> specs;
    if (spec != nullptr) specs.push_back(spec);
    for (int i = 0; i < pods; ++i) shapes_.push_back(ShapeOf(milli_cpu, 0, specs));
  }
  DeviceModel& Model() {
    profile_ = BuildProfile(shapes_, "test");
    model_ = DeviceModel::New(snap_, &profile_, cel_.get(), features_);
    return *model_;
  }
  // An allocation of `device` on node n1's GPU pool, consuming `memory`.
  static api::AllocationResult Allocation(std::string device, int64_t memory = 0, std::string pool = "n1") {
    api::DeviceRequestAllocationResult r{
        .request = "r", .driver = kDriver, .pool = std::move(pool), .device = std::move(device)};
    if (memory > 0) r.consumed_capacity.insert_or_assign("memory", api::Quantity::FromInt(memory));
    api::AllocationResult a;
    a.devices.results.push_back(std::move(r));
    return a;
  }
  // Node n1 with two devices of 80 memory shared by capacity, and a profile
  // of one shape asking for `share`.
  DeviceModel& TwoSharedDevices(const api::ResourceClaimSpec& share) {
    AddNode("n1");
    AddSlice("n1", {Shared("d0", 80), Shared("d1", 80)});
    AddShape(1000, &share, 1);
    return Model();
  }
  PodDemand Demand(int64_t milli_cpu, const api::ResourceClaimSpec& spec) {
    const api::ResourceClaimSpec* specs[] = {&spec};
    Resources requests;
    requests.milli_cpu = milli_cpu;
    return model_->Demand(requests, specs);
  }

  Snapshot snap_;
  alloc::Features features_;
  std::unique_ptr<alloc::SelectorEvaluator> cel_;
  std::vector<WorkloadShape> shapes_;
  WorkloadProfile profile_;
  std::unique_ptr<DeviceModel> model_;
};

TEST(FgdArithmeticTest, StepScore) {
  EXPECT_EQ(FgdStepScore(0, 0), 50);                       // sigmoid(0) = 0.5
  EXPECT_EQ(FgdStepScore(1000, 0), 73);                    // 100 / (1 + e^-1) = 73.1
  EXPECT_EQ(FgdStepScore(0, 1000), 26);                    // 26.9
  EXPECT_EQ(StrandedMilli(16'000, 8'000, 0.25), 4'000.0);  // 8000 - 0.25 x 16000
  EXPECT_EQ(StrandedMilli(64'000, 8'000, 0.25), 0.0);
}

TEST(ProfileTest, TypicalShapesCoverNinetyFivePercent) {
  // 20 pods: 12 of shape a, 7 of b, 1 of c. a covers 60%, a+b 95%: c is left out.
  std::vector<WorkloadShape> pods;
  api::ResourceClaimSpec one;
  one.devices.requests.push_back(
      {.name = "r", .exactly = api::ExactDeviceRequest{.device_class_name = "gpu", .count = 1}});
  const api::ResourceClaimSpec* specs[] = {&one};
  for (int i = 0; i < 12; ++i) pods.push_back(ShapeOf(1000, 0, specs));
  for (int i = 0; i < 7; ++i) pods.push_back(ShapeOf(2000, 0, {}));
  pods.push_back(ShapeOf(3000, 0, {}));
  WorkloadProfile p = BuildProfile(pods, "pods");
  ASSERT_EQ(p.shapes.size(), 2u);
  EXPECT_EQ(p.shapes[0].pods, 12);
  EXPECT_EQ(p.shapes[0].milli_cpu, 1000);
  EXPECT_FALSE(p.shapes[0].cpu_only());
  EXPECT_DOUBLE_EQ(p.shapes[0].weight, 12.0 / 19);
  EXPECT_TRUE(p.shapes[1].cpu_only());
  EXPECT_EQ(p.distinct_shapes, 3);
  EXPECT_EQ(p.Describe(), "pods: 20 pods, 3 shapes, 2 typical covering 95.0%");
}

TEST_F(FragmentationTest, WholeDevicesAgainstTwoShapes) {
  AddNode("n1");
  AddSlice("n1", {Whole("g0"), Whole("g1"), Whole("g2"), Whole("g3")});
  api::ResourceClaimSpec one = Spec(1), two = Spec(2);
  AddShape(1000, &one, 3);  // weight 3/4
  AddShape(1000, &two, 1);  // weight 1/4
  DeviceModel& m = Model();
  // Four free GPUs: both shapes fit and every GPU serves them.
  EXPECT_EQ(m.FreeMilli(0), 4000);
  EXPECT_DOUBLE_EQ(m.Frag(0), 0);
  // Three taken: the last GPU serves the 1-GPU shape; the 2-GPU shape does
  // not fit, so all 1000 free are its fragment: F = 1/4 x 1000.
  for (const char* d : {"g0", "g1", "g2"}) m.AddAllocation(Allocation(d));
  EXPECT_EQ(m.FreeMilli(0), 1000);
  EXPECT_DOUBLE_EQ(m.Frag(0), 250);
  EXPECT_DOUBLE_EQ(m.FragTotal(), 250);
  // Idle: sum of p_m x G = 1000.
  EXPECT_DOUBLE_EQ(m.IdleTotal(), 1000);
}

TEST_F(FragmentationTest, CpuShortageMakesEveryFreeDeviceAFragment) {
  AddNode("n1", "1");
  AddSlice("n1", {Whole("g0"), Whole("g1")});
  api::ResourceClaimSpec one = Spec(1);
  AddShape(2000, &one, 1);
  // The shape asks 2 cores of a 1-core node: both free GPUs are lost to it.
  EXPECT_DOUBLE_EQ(Model().Frag(0), 2000);
  // dra-pack adds G - rho C: rho = 1000 milli-GPU / 2000 millicores = 0.5;
  // 2000 - 0.5 x 1000 = 1500; P = 3500.
  EXPECT_DOUBLE_EQ(model_->rho(), 0.5);
  EXPECT_DOUBLE_EQ(model_->Pack(0), 3500);
}

TEST_F(FragmentationTest, DevicesOfOtherClassesAreNotCapacity) {
  AddNode("n1");
  AddSlice("n1", {Whole("g0")});
  AddSlice("n1", {Whole("nic0"), Whole("nic1")}, "nic.example.com");
  api::ResourceClaimSpec one = Spec(1);
  AddShape(1000, &one, 1);
  // The NICs match no typical request's class: G counts the GPU alone.
  EXPECT_EQ(Model().FreeMilli(0), 1000);
  EXPECT_DOUBLE_EQ(model_->Frag(0), 0);
}

TEST_F(FragmentationTest, SharedDevicesCountTheirCapacityLeft) {
  api::ResourceClaimSpec share = Spec(1, 30);
  DeviceModel& m = TwoSharedDevices(share);
  m.AddAllocation(Allocation("d0", 60));
  // d0 has 20 of 80 left: 250 milli, too little for 30; d1 is whole: 1000.
  // The shape fits on d1, so d0's 250 is the fragment.
  EXPECT_EQ(m.FreeMilli(0), 1250);
  EXPECT_DOUBLE_EQ(m.Frag(0), 250);
  m.AddAllocation(Allocation("d1", 30));
  // d1: 50 left = 625, still serves 30.
  EXPECT_EQ(m.FreeMilli(0), 875);
  EXPECT_DOUBLE_EQ(m.Frag(0), 250);
  // Placing one more share: only d1 has room; after it d1 has 20 left (250)
  // and no device serves the shape: F after = G = 500. Score =
  // trunc(100 sigmoid((250 - 500) / 1000)) = trunc(43.78) = 43.
  PodDemand demand = Demand(1000, share);
  EXPECT_EQ(m.Score(0, demand, Packing::kFgd), 43);
  alloc::DevicePreference choice = m.Choose(0, demand, Packing::kFgd);
  ASSERT_EQ(choice.entries.size(), 1u);
  EXPECT_EQ(choice.entries[0].request, "r");
  EXPECT_THAT(choice.entries[0].devices, ::testing::ElementsAre("gpu.example.com/n1/d1"));
  // The model is unchanged by scoring.
  EXPECT_DOUBLE_EQ(m.Frag(0), 250);
  EXPECT_EQ(m.FreeMilli(0), 875);
  // Releasing d1's share: 80 left again; the score is the first one's.
  m.ReleaseAllocation(Allocation("d1", 30));
  EXPECT_EQ(m.FreeMilli(0), 1250);
  EXPECT_DOUBLE_EQ(m.Frag(0), 250);
}

TEST_F(FragmentationTest, FgdChoosesTheShareThatKeepsBothDevicesUsable) {
  api::ResourceClaimSpec share = Spec(1, 30);
  DeviceModel& m = TwoSharedDevices(share);
  m.AddAllocation(Allocation("d0", 40));
  // Now: d0 40 left (500), d1 80 (1000); both serve 30: F = 0.
  EXPECT_DOUBLE_EQ(m.Frag(0), 0);
  PodDemand demand = Demand(1000, share);
  // On d0: 10 left (125) cannot serve: F after 125, score trunc(100 sigmoid(-0.125)) = 46.
  // On d1: 50 left (625) and d0's 40 both serve: F after 0, score 50. d1 wins.
  EXPECT_EQ(m.Score(0, demand, Packing::kFgd), 50);
  EXPECT_THAT(m.Choose(0, demand, Packing::kFgd).entries[0].devices, ::testing::ElementsAre("gpu.example.com/n1/d1"));
  // Without a packing policy the tightest device with room: d0; it takes 30
  // of 80 = 375 milli.
  EXPECT_THAT(m.Choose(0, demand, Packing::kNone).entries[0].devices, ::testing::ElementsAre("gpu.example.com/n1/d0"));
  EXPECT_EQ(m.DemandMilli(0, demand), 375);
}

TEST_F(FragmentationTest, PartitionsShareTheirGpusCounters) {
  // One GPU of 7 compute slices published as seven 1g and two 3g placements.
  AddNode("n1");
  std::vector<api::Device> devices;
  auto partition = [](std::string name, std::string profile, int64_t slices) {
    api::Device d{.name = std::move(name)};
    d.attributes.insert_or_assign("profile", api::DeviceAttribute::String(std::move(profile)));
    api::DeviceCounterConsumption use{.counter_set = "gpu-0", .counters = {}, .compatibility_groups = {}};
    use.counters.insert_or_assign("slices", api::Counter{api::Quantity::FromInt(slices)});
    d.rare.mut().consumes_counters.push_back(std::move(use));
    return d;
  };
  for (int i = 0; i < 7; ++i) devices.push_back(partition(fmt::format("1g-{}", i), "1g", 1));
  for (int i = 0; i < 2; ++i) devices.push_back(partition(fmt::format("3g-{}", i), "3g", 3));
  api::ResourceSlice& s = AddSlice("n1", devices);
  s.spec.shared_counters.push_back({.name = "gpu-0", .counters = {}});
  s.spec.shared_counters[0].counters.insert_or_assign("slices", api::Counter{api::Quantity::FromInt(7)});
  api::ResourceClaimSpec g1 = Spec(1, 0, {"device.attributes['gpu.example.com'].profile == '1g'"});
  api::ResourceClaimSpec g3 = Spec(1, 0, {"device.attributes['gpu.example.com'].profile == '3g'"});
  AddShape(1000, &g1, 1);
  AddShape(1000, &g3, 1);
  DeviceModel& m = Model();
  // rho: a 1g takes 1/7 of its set (143 milli), a 3g 3/7 (429); each shape
  // weighs 1/2 and asks 1000 millicores: (143 + 429) / 2 / 1000 = 2/7 / 1.
  EXPECT_NEAR(m.rho(), 2.0 / 7, 1e-12);
  // One unit (the counter set): 7 of 7 left = 1000; both profiles fit.
  EXPECT_EQ(m.FreeMilli(0), 1000);
  EXPECT_DOUBLE_EQ(m.Frag(0), 0);
  // Five 1g taken: 2 of 7 left = floor(1000 x 2 / 7) = 285. A 1g still fits;
  // a 3g does not: its fragment is all 285. F = 1/2 x 285.
  for (int i = 0; i < 5; ++i) m.AddAllocation(Allocation(fmt::format("1g-{}", i)));
  EXPECT_EQ(m.FreeMilli(0), 285);
  EXPECT_DOUBLE_EQ(m.Frag(0), 142.5);
  // Taking the sixth 1g leaves 1 of 7 (142): both pieces of the shape list
  // then see 142 free; 1g fits, 3g does not: F after = 71, before 142.5.
  // Score = trunc(100 sigmoid(71.5 / 1000)) = trunc(51.78) = 51, and the
  // device is the first 1g placement left.
  PodDemand demand = Demand(1000, g1);
  EXPECT_EQ(m.Score(0, demand, Packing::kFgd), 51);
  EXPECT_THAT(m.Choose(0, demand, Packing::kFgd).entries[0].devices, ::testing::ElementsAre("gpu.example.com/n1/1g-5"));
  // --device-choice best-fit: partitions are left to the allocator's order.
  EXPECT_TRUE(m.Choose(0, demand, Packing::kFgd, /*leave_partitions=*/true).empty());
  // Released again, one by one: 3 of 7 left (428), then all back (1000).
  m.ReleaseAllocation(Allocation("1g-0"));
  EXPECT_EQ(m.FreeMilli(0), 428);
  for (int i = 1; i < 5; ++i) m.ReleaseAllocation(Allocation(fmt::format("1g-{}", i)));
  EXPECT_EQ(m.FreeMilli(0), 1000);
  EXPECT_DOUBLE_EQ(m.Frag(0), 0);
}

TEST_F(FragmentationTest, FirstAvailableTakesTheFirstSubrequestThatFits) {
  AddNode("n1");
  AddSlice("n1", {Whole("g0"), Whole("g1")});
  api::ResourceClaimSpec spec;
  api::DeviceRequest r{.name = "r", .exactly = std::nullopt, .first_available = {}};
  r.first_available.push_back(api::DeviceSubRequest{.name = "two", .device_class_name = "gpu", .count = 2});
  r.first_available.push_back(api::DeviceSubRequest{.name = "one", .device_class_name = "gpu", .count = 1});
  spec.devices.requests.push_back(r);
  api::SetDefaults(spec);
  AddShape(1000, &spec, 1);
  DeviceModel& m = Model();
  m.AddAllocation(Allocation("g0"));
  // "two" cannot be served by the one free GPU, "one" can: no fragment.
  EXPECT_DOUBLE_EQ(m.Frag(0), 0);
  PodDemand demand = Demand(1000, spec);
  alloc::DevicePreference choice = m.Choose(0, demand, Packing::kFgd);
  ASSERT_EQ(choice.entries.size(), 1u);
  EXPECT_EQ(choice.entries[0].request, "r/one");
  EXPECT_THAT(choice.entries[0].devices, ::testing::ElementsAre("gpu.example.com/n1/g1"));
}

}  // namespace
}  // namespace dra::sched

namespace dra::sched {
namespace {

// Worked by hand: window 100 s, half-life 10 s. A pod of shape a at t=0 and
// two of shape b at t=10; at t=10: a weighs 2^-1 = 0.5, b 2 x 1 = 2, total
// 2.5: b first (0.8), a (0.2). At t=105 a is out of the window (age 105):
// only b. A UID seen twice counts once.
TEST(ProfileWindowTest, DecaysAndForgets) {
  ProfileWindow w(100, 10, nullptr, 0);
  EXPECT_TRUE(w.Profile(0).empty());
  WorkloadShape a = ShapeOf(1000, 0, {}), b = ShapeOf(2000, 0, {});
  w.Observe("uid-a", a, 0);
  w.Observe("uid-b1", b, 10);
  w.Observe("uid-b2", b, 10);
  w.Observe("uid-b2", b, 10);
  WorkloadProfile p = w.Profile(10);
  ASSERT_EQ(p.shapes.size(), 2u);
  EXPECT_EQ(p.shapes[0].milli_cpu, 2000);
  EXPECT_DOUBLE_EQ(p.shapes[0].weight, 0.8);
  EXPECT_DOUBLE_EQ(p.shapes[1].weight, 0.2);
  EXPECT_EQ(p.total_pods, 3);
  p = w.Profile(105);
  ASSERT_EQ(p.shapes.size(), 1u);
  EXPECT_EQ(p.shapes[0].milli_cpu, 2000);
  EXPECT_DOUBLE_EQ(p.shapes[0].weight, 1);
}

// A seed counts its pods at the start and fades: 3 seed pods of a at t=0 and
// one pod of b at t=20 (half-life 10): a weighs 3/4, b 1: b 4/7, a 3/7.
TEST(ProfileWindowTest, SeedFades) {
  WorkloadShape a = ShapeOf(1000, 0, {}), b = ShapeOf(2000, 0, {});
  a.pods = 3;
  WorkloadProfile seed = ProfileFromTypical({a}, 1, 3, "seed");
  ProfileWindow w(3600, 10, &seed, 0);
  w.Observe("uid-b", b, 20);
  WorkloadProfile p = w.Profile(20);
  ASSERT_EQ(p.shapes.size(), 2u);
  EXPECT_EQ(p.shapes[0].milli_cpu, 2000);
  EXPECT_DOUBLE_EQ(p.shapes[0].weight, 4.0 / 7);
  EXPECT_DOUBLE_EQ(p.shapes[1].weight, 3.0 / 7);
}

}  // namespace
}  // namespace dra::sched
