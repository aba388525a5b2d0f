// Pod groups (gang.h, Scheduler::RunGroup): kube-scheduler 1.37.2's group
// cycle (GangScheduling's PreEnqueue and PlacementFeasible texts, members
// one at a time, all undone when minCount is missed) and the search of
// GangMode::kSearch. Expectations are worked out by hand from upstream's
// schedule_one_podgroup.go and gangscheduling.go, as each test says; the
// texts of failed groups and their members are kube-scheduler 1.37.2's own
// (tools/oracle `schedule` on the same cluster as a JSON List, gate
// GenericWorkload: scheduler.New and its pod-group cycle, DefaultPreemption
// included). Their composition: a PlacementFeasible failure after a member
// is the plugin's text as it is; PodGroupPostFilter (DynamicResources, then
// DefaultPreemption) appends ", pod group preemption: No preemption victims
// found for incoming preemptor" to the group's status; a member that fit
// gets "pod group is unschedulable, " and that status, a member not reached
// the status from before PodGroupPostFilter, a member that did not fit its
// own FitError.
#include "sched/gang.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "sched/scheduler_testing.h"

namespace dra::sched {
namespace {

class GangTest : public SchedulerTest {
 protected:
  GangTest() { EXPECT_TRUE(snap_.gates.Set(api::Gate::kGenericWorkload, true).ok()); }

  api::PodGroup& AddGroup(std::string name, std::optional<int32_t> min_count) {
    api::PodGroup g;
    g.metadata.namespace_ = "default";
    g.metadata.name = std::move(name);
    if (min_count) {
      g.spec.scheduling_policy.gang = api::GangSchedulingPolicy{.min_count = *min_count};
    } else {
      g.spec.scheduling_policy.basic = true;
    }
    snap_.pod_groups.push_back(g);
    return snap_.pod_groups.back();
  }
  // A member that takes one device through template `tmpl`.
  api::Pod& AddMember(std::string name, const std::string& group, const std::string& tmpl = "any") {
    api::Pod& p = AddPod(std::move(name));
    p.spec.extra.insert_or_assign("schedulingGroup", fmt::format(R"({{"podGroupName":"{}"}})", group));
    p.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = tmpl});
    return p;
  }
  // A template of one device of class gpu with `selector` (none if empty).
  void AddSelectingTemplate(const std::string& name, std::string selector) {
    AddTemplate(name);
    if (!selector.empty()) {
      snap_.templates.back().spec.spec.devices.requests[0].exactly->selectors.push_back(
          {.cel = api::CelDeviceSelector{std::move(selector)}});
    }
  }
  // One node, two GPUs: gpu-0 of model X, gpu-1 of model Y.
  void TwoModels() {
    AddNode("n1");
    AddGpus("n1", 2);
    snap_.slices.back().spec.devices[0].attributes.insert_or_assign("model", api::DeviceAttribute::String("x"));
    snap_.slices.back().spec.devices[1].attributes.insert_or_assign("model", api::DeviceAttribute::String("y"));
    AddSelectingTemplate("any", "");
    AddSelectingTemplate("model-x", "device.attributes['gpu.example.com'].model == 'x'");
  }
  ScheduleResult RunGang(GangMode mode, uint64_t max_steps = GangOptions{}.max_steps) {
    auto p = NewPolicy("kube");
    EXPECT_TRUE(p.ok());
    policy_ = std::move(*p);
    ScheduleOptions options{.policy = policy_.get()};
    options.gang.mode = mode;
    options.gang.max_steps = max_steps;
    StatusOr<ScheduleResult> r = Schedule(&snap_, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(*r);
  }
  static std::map<std::string, PodOutcome> ByPod(const ScheduleResult& r) {
    std::map<std::string, PodOutcome> out;
    for (const PodOutcome& o : r.pods) out[o.pod] = o;
    return out;
  }
  // The device a placed pod's claim got.
  static std::string Device(const PodOutcome& o) {
    return o.claims.size() == 1 && o.claims[0].results.size() == 1 ? o.claims[0].results[0].device : "";
  }
};

// The issue's target. Pod a takes any GPU, pod b needs model X; a comes
// first (same priority and creation time, name order). Upstream: a takes
// gpu-0 (the first that fits), b fits nowhere: after a, PlacementFeasible
// says 1 scheduled + 1 remaining >= 2 (wait); after b, 1 scheduled + 0
// remaining < 2: "minCount (2) cannot be satisfied: 1 scheduled, 0
// remaining", and a's reservation is undone. a gets the group's text, b its
// own FitError, and the group's condition the PodGroupPostFilter text after
// its status (oracle, as the file header says).
TEST_F(GangTest, UpstreamPlacesNeitherWhereOnePodAtATimeTakesTheWrongGpu) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any");
  AddMember("b", "train", "model-x");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  ASSERT_EQ(by.size(), 2u);
  EXPECT_EQ(by["default/a"].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(by["default/a"].message,
            "pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group "
            "preemption: No preemption victims found for incoming preemptor");
  EXPECT_EQ(by["default/b"].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(by["default/b"].message, "0/1 nodes are available: 1 cannot allocate all claims.");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].group, "default/train");
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.groups[0].message,
            "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: No preemption victims "
            "found for incoming preemptor");
  EXPECT_EQ(r.groups[0].placed, 0u);
  EXPECT_FALSE(r.groups[0].searched);
  // Nothing of a's placement is left: no node, no allocation, no reservation.
  for (const api::Pod& p : snap_.pods) EXPECT_TRUE(p.spec.node_name.empty()) << p.metadata.name;
  ASSERT_EQ(snap_.claims.size(), 2u);  // the controller's claims stay
  for (const api::ResourceClaim& c : snap_.claims) {
    EXPECT_FALSE(c.status.allocation.has_value()) << c.metadata.name;
    EXPECT_TRUE(c.status.reserved_for.empty()) << c.metadata.name;
    EXPECT_TRUE(c.metadata.finalizers.empty()) << c.metadata.name;
  }
  EXPECT_TRUE(r.changed_claims.size() == r.created_claims.size());
}

TEST_F(GangTest, SearchPlacesBothByGivingTheFirstPodTheOtherGpu) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any");
  AddMember("b", "train", "model-x");
  ScheduleResult r = RunGang(GangMode::kSearch);
  std::map<std::string, PodOutcome> by = ByPod(r);
  ASSERT_EQ(by["default/a"].kind, PodOutcome::Kind::kPlaced) << by["default/a"].message;
  ASSERT_EQ(by["default/b"].kind, PodOutcome::Kind::kPlaced) << by["default/b"].message;
  EXPECT_EQ(Device(by["default/a"]), "gpu-1");
  EXPECT_EQ(Device(by["default/b"]), "gpu-0");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.groups[0].placed, 2u);
  EXPECT_TRUE(r.groups[0].searched);
  EXPECT_GT(r.groups[0].steps, 0u);
  for (const api::Pod& p : snap_.pods) EXPECT_EQ(p.spec.node_name, "n1");
  for (const api::ResourceClaim& c : snap_.claims) {
    ASSERT_TRUE(c.status.allocation.has_value());
    EXPECT_EQ(c.status.reserved_for.size(), 1u);
  }
}

// The same with four: gpu-0 and gpu-1 of model X, gpu-2 and gpu-3 of Y;
// members 0 and 1 take any GPU, 2 and 3 need X. One at a time, 0 and 1 take
// both X GPUs; then 2 fails (1 remaining + 2 scheduled < 4). The search
// must see that taking Y is another choice even though two GPUs share each
// shape (both X GPUs are kept out to find it).
TEST_F(GangTest, SearchPlacesFourWhereTheFirstTwoTakeTheOthersModel) {
  AddNode("n1");
  AddGpus("n1", 4);
  for (int d = 0; d < 4; ++d) {
    snap_.slices.back().spec.devices[static_cast<size_t>(d)].attributes.insert_or_assign(
        "model", api::DeviceAttribute::String(d < 2 ? "x" : "y"));
  }
  AddSelectingTemplate("any", "");
  AddSelectingTemplate("model-x", "device.attributes['gpu.example.com'].model == 'x'");
  AddGroup("quad", 4);
  AddMember("m0", "quad", "any");
  AddMember("m1", "quad", "any");
  AddMember("m2", "quad", "model-x");
  AddMember("m3", "quad", "model-x");
  const Snapshot before = snap_;
  ScheduleResult upstream = RunGang(GangMode::kUpstream);
  EXPECT_EQ(upstream.groups[0].message,
            "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims "
            "found for incoming preemptor");
  // Members: m0 and m1 fit (the group's status after "pod group is
  // unschedulable, "), m2 did not (its FitError), m3 was not reached (the
  // status from before PodGroupPostFilter). Oracle, as the file header says.
  std::map<std::string, PodOutcome> up = ByPod(upstream);
  EXPECT_EQ(up["default/m0"].message, "pod group is unschedulable, " + upstream.groups[0].message);
  EXPECT_EQ(up["default/m1"].message, "pod group is unschedulable, " + upstream.groups[0].message);
  EXPECT_EQ(up["default/m2"].message, "0/1 nodes are available: 1 cannot allocate all claims.");
  EXPECT_EQ(up["default/m3"].message, "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining");
  snap_ = before;
  ScheduleResult search = RunGang(GangMode::kSearch);
  ASSERT_EQ(search.groups[0].kind, PodOutcome::Kind::kPlaced) << search.groups[0].message;
  std::map<std::string, PodOutcome> by = ByPod(search);
  EXPECT_EQ(Device(by["default/m0"]), "gpu-2");
  EXPECT_EQ(Device(by["default/m1"]), "gpu-3");
  EXPECT_EQ(Device(by["default/m2"]), "gpu-0");
  EXPECT_EQ(Device(by["default/m3"]), "gpu-1");
}

// Where upstream succeeds, the search is not run and changes nothing.
TEST_F(GangTest, SearchEqualsUpstreamWhereUpstreamSucceeds) {
  AddNode("n1");
  AddGpus("n1", 2);
  AddTemplate("any");
  AddGroup("train", 2);
  AddMember("a", "train");
  AddMember("b", "train");
  const Snapshot before = snap_;
  for (GangMode mode : {GangMode::kUpstream, GangMode::kSearch}) {
    snap_ = before;
    ScheduleResult r = RunGang(mode);
    std::map<std::string, PodOutcome> by = ByPod(r);
    EXPECT_EQ(Device(by["default/a"]), "gpu-0");
    EXPECT_EQ(Device(by["default/b"]), "gpu-1");
    ASSERT_EQ(r.groups.size(), 1u);
    EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
    EXPECT_EQ(r.groups[0].message, "");
    EXPECT_FALSE(r.groups[0].searched);
  }
}

// GangScheduling PreEnqueue: the PodGroup must exist, and a gang needs
// minCount pods (scheduled or not) before it is tried.
TEST_F(GangTest, PreEnqueueWaitsForTheGroupAndForMinCountPods) {
  AddNode("n1");
  AddGpus("n1", 4);
  AddTemplate("any");
  AddMember("x-0", "missing");
  AddGroup("big", 3);
  AddMember("big-0", "big");
  AddMember("big-1", "big");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  EXPECT_EQ(by["default/x-0"].message, "waiting for pods's pod group \"missing\" to appear in scheduling queue");
  EXPECT_EQ(by["default/big-0"].message, "waiting for minCount pods from a gang to appear in scheduling queue");
  EXPECT_EQ(by["default/big-1"].message, "waiting for minCount pods from a gang to appear in scheduling queue");
  for (const api::Pod& p : snap_.pods) EXPECT_TRUE(p.spec.node_name.empty());
}

// A pod bound before counts towards minCount (PodGroupState.ScheduledPods):
// with 1 of 3 bound, the two pending members are enough, and the third is
// tried once the second fits (scheduled 2 < 3 → wait, then 3 → success).
TEST_F(GangTest, MembersBoundBeforeCountTowardsMinCount) {
  AddNode("n1");
  AddGpus("n1", 4);
  AddTemplate("any");
  AddGroup("train", 3);
  AddMember("a", "train").spec.node_name = "n1";
  AddMember("b", "train");
  AddMember("c", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].scheduled_before, 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.groups[0].placed, 2u);
}

// minCount below the group's size: the members that fit are placed, the one
// that does not keeps its own FitError, and the group succeeds (upstream:
// after b, 2 scheduled >= 2; c's failure leaves it at 2).
TEST_F(GangTest, MinCountBelowSizePlacesWhatFits) {
  AddNode("n1");
  AddGpus("n1", 2);
  AddTemplate("any");
  AddGroup("train", 2);
  AddMember("a", "train");
  AddMember("b", "train");
  AddMember("c", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  EXPECT_EQ(by["default/a"].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(by["default/b"].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(by["default/c"].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(by["default/c"].message, "0/1 nodes are available: 1 cannot allocate all claims.");
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.groups[0].placed, 2u);
}

// A basic group has minCount 1: each member is tried; with nothing placed
// the last PlacementFeasible says "minCount (1) cannot be satisfied: 0
// scheduled, 0 remaining".
TEST_F(GangTest, BasicGroupNeedsOneMember) {
  AddNode("n1");
  AddTemplate("any");
  AddGroup("svc", std::nullopt);
  AddMember("a", "svc");
  AddMember("b", "svc");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].min_count, 1);
  EXPECT_EQ(r.groups[0].message,
            "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, pod group preemption: No preemption victims "
            "found for incoming preemptor");
  for (const PodOutcome& o : r.pods) {
    EXPECT_EQ(o.message, "0/1 nodes are available: 1 cannot allocate all claims.") << o.pod;
  }
}

// validatePodGroup: the pods must have the group's priority (unset = 0).
TEST_F(GangTest, PodsWithAnotherPriorityThanTheGroupAreAnError) {
  AddNode("n1");
  AddGpus("n1", 2);
  AddTemplate("any");
  AddGroup("train", 2).spec.priority = 10;
  AddMember("a", "train").spec.priority = 10;
  AddMember("b", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  for (const PodOutcome& o : r.pods) {
    EXPECT_EQ(o.kind, PodOutcome::Kind::kError);
    EXPECT_EQ(o.message,
              "all pods in a single pod group should have the same priority as the pod group's priority, got 0 and 10");
  }
}

// A failed group leaves the cluster as it was: a later single pod gets the
// device a member had tentatively taken.
TEST_F(GangTest, AFailedGroupLeavesNothingBehindForLaterPods) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any").metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  AddMember("b", "train", "model-x").metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  api::Pod& later = AddPod("later");
  later.metadata.creation_timestamp = "2026-01-01T00:00:01Z";
  later.spec.resource_claims.push_back({.name = "gpu", .resource_claim_template_name = "any"});
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  ASSERT_EQ(by["default/later"].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(Device(by["default/later"]), "gpu-0");
}

// The search's budget: one step is not enough to try anything; the group
// says so and stays unplaced.
TEST_F(GangTest, SearchBudgetExhaustedIsReported) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any");
  AddMember("b", "train", "model-x");
  ScheduleResult r = RunGang(GangMode::kSearch, /*max_steps=*/1);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_TRUE(r.groups[0].searched);
  EXPECT_THAT(r.groups[0].message,
              ::testing::StartsWith("minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group "
                                    "preemption: No preemption victims found for incoming preemptor; gang search: no "
                                    "placement of minCount members found before its budget of 1 steps ran out"));
  for (const api::Pod& p : snap_.pods) EXPECT_TRUE(p.spec.node_name.empty());
}

// kubernetes/kubernetes#138765: one GPU published whole or as two halves
// that share its counter; each of two members asks firstAvailable [whole,
// half]. Upstream: the first takes the whole GPU, the second finds no
// counter left. The search gives both a half.
TEST_F(GangTest, SearchSolvesPartitionsThatOnePodAtATimeWastes) {
  AddNode("n1");
  api::ResourceSlice s;
  s.metadata.name = "n1-gpu";
  s.spec.driver = "gpu.example.com";
  s.spec.pool = {.name = "n1", .generation = 1, .resource_slice_count = 2};
  s.spec.node_name = "n1";
  // The counters in a slice of their own (1.35 on), in the same pool.
  api::ResourceSlice counters = s;
  counters.metadata.name = "n1-counters";
  counters.spec.shared_counters.push_back({.name = "gpu-0", .counters = {}});
  counters.spec.shared_counters[0].counters.insert_or_assign("mem", api::Counter{api::Quantity::FromInt(2)});
  api::SetDefaults(counters, "1970-01-01T00:00:00Z");
  snap_.slices.push_back(counters);
  auto part = [](std::string name, const std::string& size, int64_t mem) {
    api::Device d{.name = std::move(name)};
    d.attributes.insert_or_assign("size", api::DeviceAttribute::String(size));
    api::DeviceCounterConsumption use{.counter_set = "gpu-0", .counters = {}, .compatibility_groups = {}};
    use.counters.insert_or_assign("mem", api::Counter{api::Quantity::FromInt(mem)});
    d.rare.mut().consumes_counters.push_back(std::move(use));
    return d;
  };
  s.spec.devices = {part("whole", "whole", 2), part("half-0", "half", 1), part("half-1", "half", 1)};
  api::SetDefaults(s, "1970-01-01T00:00:00Z");
  snap_.slices.push_back(s);
  api::ResourceClaimTemplate t;
  t.metadata.namespace_ = "default";
  t.metadata.name = "whole-or-half";
  api::DeviceRequest request{.name = "gpu"};
  for (const char* size : {"whole", "half"}) {
    request.first_available.push_back(api::DeviceSubRequest{
        .name = size,
        .device_class_name = "gpu",
        .selectors = {
            {.cel = api::CelDeviceSelector{fmt::format("device.attributes['gpu.example.com'].size == '{}'", size)}}}});
  }
  t.spec.spec.devices.requests.push_back(request);
  api::SetDefaults(t);
  snap_.templates.push_back(t);
  AddGroup("train", 2);
  AddMember("a", "train", "whole-or-half");
  AddMember("b", "train", "whole-or-half");

  Snapshot before = snap_;
  ScheduleResult upstream = RunGang(GangMode::kUpstream);
  EXPECT_EQ(upstream.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(upstream.groups[0].message,
            "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: No preemption victims "
            "found for incoming preemptor");

  snap_ = before;
  ScheduleResult search = RunGang(GangMode::kSearch);
  std::map<std::string, PodOutcome> by = ByPod(search);
  ASSERT_EQ(search.groups[0].kind, PodOutcome::Kind::kPlaced) << search.groups[0].message;
  EXPECT_EQ(Device(by["default/a"]), "half-0");
  EXPECT_EQ(Device(by["default/b"]), "half-1");
  EXPECT_EQ(by["default/a"].claims[0].results[0].request, "gpu/half");
}

// PodGroupPostFilter's text (gang.h RunPodGroupPostFilter), each case's
// texts from the oracle on the same cluster (the file header). Members with
// preemptionPolicy Never: DefaultPreemption's status is Unschedulable, so
// DynamicResources' reason before it stays.
TEST_F(GangTest, PreemptionPolicyNeverKeepsTheDynamicResourcesReason) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any").spec.extra.insert_or_assign("preemptionPolicy", R"("Never")");
  AddMember("b", "train", "model-x").spec.extra.insert_or_assign("preemptionPolicy", R"("Never")");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  const std::string group_message =
      "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, deallocation and deletion of ResourceClaims "
      "completed, pod group preemption: not eligible due to preemptionPolicy=Never.";
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].message, group_message);
  std::map<std::string, PodOutcome> by = ByPod(r);
  EXPECT_EQ(by["default/a"].message, "pod group is unschedulable, " + group_message);
  EXPECT_EQ(by["default/b"].message, "0/1 nodes are available: 1 cannot allocate all claims.");
}

// A pod of lower priority than the group's on a node: upstream looks for
// victims and runs the group's cycle again without them (the oracle here:
// "..., deallocation and deletion of ResourceClaims completed, pod group
// preemption: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining").
// dractl models no preemption and appends nothing (gang.h).
TEST_F(GangTest, PreemptionIsNotModelledWhereThereAreVictims) {
  TwoModels();
  AddGroup("train", 2);
  AddMember("a", "train", "any");
  AddMember("b", "train", "model-x");
  api::Pod& low = AddPod("low");
  low.spec.node_name = "n1";
  low.spec.priority = -5;
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].message, "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining");
}

// minCount met by a member bound before and the pending one fits nowhere:
// the pass succeeds with no member placed now, which
// runRootSchedulingAlgorithm turns into errPodGroupUnschedulable alone.
TEST_F(GangTest, NoMemberPlacedNowIsUnschedulable) {
  AddNode("n1");
  AddTemplate("any");
  AddGroup("solo", 1);
  api::Pod& bound = AddPod("a");
  bound.spec.extra.insert_or_assign("schedulingGroup", R"({"podGroupName":"solo"})");
  bound.spec.node_name = "n1";
  AddMember("b", "solo");
  for (api::Pod& p : snap_.pods) p.spec.scheduler_name = "default-scheduler";
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.groups[0].message,
            "pod group is unschedulable, pod group preemption: No preemption victims found for incoming preemptor");
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message, "0/1 nodes are available: 1 cannot allocate all claims.");
}

// A PodGroup claim (DRAWorkloadResourceClaims): the controller makes one
// claim for the group from the template, owned by the PodGroup and named
// "<group>-<claim>-<suffix>"; every member records it; the first member
// allocates it, the second follows it to its node; reservedFor names the
// PodGroup once (upstream's BindTo and bindClaim).
TEST_F(GangTest, APodGroupClaimIsSharedByTheGroupAndReservedForIt) {
  ASSERT_TRUE(snap_.gates.Set(api::Gate::kDRAWorkloadResourceClaims, true).ok());
  AddNode("n1");
  AddGpus("n1", 1);
  AddNode("n2");
  AddGpus("n2", 1);
  AddTemplate("any");
  api::PodGroup& g = AddGroup("train", 2);
  g.metadata.uid = "uid-train";
  g.spec.resource_claims.push_back({.name = "shared", .resource_claim_template_name = "any"});
  for (const char* name : {"a", "b"}) {
    api::Pod& p = AddMember(name, "train");
    p.spec.resource_claims[0].name = "shared";
  }
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  ASSERT_EQ(by["default/a"].kind, PodOutcome::Kind::kPlaced) << by["default/a"].message;
  ASSERT_EQ(by["default/b"].kind, PodOutcome::Kind::kPlaced) << by["default/b"].message;
  EXPECT_EQ(by["default/b"].node, by["default/a"].node);
  ASSERT_EQ(snap_.claims.size(), 1u);
  const api::ResourceClaim& claim = snap_.claims[0];
  EXPECT_EQ(claim.metadata.name.rfind("train-shared-", 0), 0u) << claim.metadata.name;
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  EXPECT_EQ(claim.metadata.owner_references[0].kind, "PodGroup");
  EXPECT_EQ(claim.metadata.owner_references[0].uid, "uid-train");
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0],
            (api::ResourceClaimConsumerReference{
                .api_group = "scheduling.k8s.io", .resource = "podgroups", .name = "train", .uid = "uid-train"}));
  ASSERT_EQ(snap_.pod_groups[0].status.resource_claim_statuses.size(), 1u);
  EXPECT_EQ(snap_.pod_groups[0].status.resource_claim_statuses[0].resource_claim_name, claim.metadata.name);
  for (const api::Pod& p : snap_.pods) {
    ASSERT_EQ(p.status.resource_claim_statuses.size(), 1u);
    EXPECT_EQ(p.status.resource_claim_statuses[0].resource_claim_name, claim.metadata.name);
  }
  EXPECT_THAT(by["default/a"].claims[0].claim, ::testing::StartsWith("default/train-shared-"));
  EXPECT_TRUE(by["default/b"].claims[0].allocated_now == false);
}

// A member's PreBind runs in its binding cycle, after the group is decided
// (submitPodGroupAlgorithmResult, then runBindingCycle). Member a asks for
// the DRA-backed extended resource example.com/gpu, which node "plugin"'s
// device plugin serves, and has a claim of its own: its PreBind fails
// (ExtendedResourceFromTheDevicePluginWithAUserClaimFailsAtPreBind in
// scheduler_test.cc). In the group's cycle it was assumed and reserved, so
// it counts towards minCount: the group is placed, b is bound, a keeps
// PreBind's error, and pod c (after the group; the node's 2 CPUs hold only
// b and c) fits because the failed binding cycle forgot a. Pods and the
// condition: oracle on this cluster (requests and limits of 1
// example.com/gpu for a). The claims, by hand from DynamicResources'
// PreBind and Unreserve: bindClaim wrote a's allocation and reservation,
// Unreserve took a out of reservedFor; the allocation stays.
TEST_F(GangTest, AMembersPreBindFailsInItsBindingCycleAfterTheGroupIsPlaced) {
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("plugin", "2").status.allocatable.insert_or_assign("example.com/gpu", Q("1"));
  AddGpus("plugin", 2);
  AddTemplate("any");
  AddGroup("train", 2);
  api::Pod& a = AddMember("a", "train");
  a.spec.containers[0].resources.requests.insert_or_assign("example.com/gpu", Q("1"));
  a.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  AddMember("b", "train");
  AddPod("c");
  for (GangMode mode : {GangMode::kUpstream, GangMode::kSearch}) {
    SCOPED_TRACE(mode == GangMode::kUpstream ? "upstream" : "search");
    Snapshot before = snap_;
    ScheduleResult r = RunGang(mode);
    std::map<std::string, PodOutcome> by = ByPod(r);
    EXPECT_EQ(by["default/a"].kind, PodOutcome::Kind::kError);
    EXPECT_EQ(by["default/a"].message,
              "running PreBind plugin \"DynamicResources\": nil or empty request mappings, no update of pod "
              "default/a ExtendedResourceClaimStatus");
    EXPECT_EQ(by["default/b"].node, "plugin") << by["default/b"].message;
    EXPECT_EQ(by["default/c"].node, "plugin") << by["default/c"].message;
    ASSERT_EQ(r.groups.size(), 1u);
    EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
    EXPECT_EQ(r.groups[0].message, "");
    EXPECT_EQ(r.groups[0].placed, 1u);
    EXPECT_FALSE(r.groups[0].searched);
    // The pass as upstream's group cycle went: a fit too.
    ASSERT_EQ(r.groups[0].upstream_pass.size(), 2u);
    EXPECT_EQ(r.groups[0].upstream_pass[0].node, "plugin");
    EXPECT_TRUE(snap_.pods[0].spec.node_name.empty());
    ASSERT_EQ(snap_.claims.size(), 2u);
    for (const api::ResourceClaim& claim : snap_.claims) {
      ASSERT_TRUE(claim.status.allocation.has_value()) << claim.metadata.name;
      EXPECT_THAT(claim.metadata.finalizers, ::testing::ElementsAre("resource.kubernetes.io/delete-protection"));
      const bool of_a = claim.metadata.name.rfind("a-gpu-", 0) == 0;
      EXPECT_EQ(claim.status.reserved_for.size(), of_a ? 0u : 1u) << claim.metadata.name;
    }
    snap_ = std::move(before);
  }
}

// The same member in a group that misses minCount: nothing reaches a
// binding cycle, so a takes the group's status like b (oracle).
TEST_F(GangTest, AMembersPreBindDoesNotRunWhenItsGroupFails) {
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("plugin").status.allocatable.insert_or_assign("example.com/gpu", Q("1"));
  AddGpus("plugin", 2);
  AddTemplate("any");
  AddGroup("train", 3);
  api::Pod& a = AddMember("a", "train");
  a.spec.containers[0].resources.requests.insert_or_assign("example.com/gpu", Q("1"));
  a.spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  AddMember("b", "train");
  AddMember("c", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  const std::string status =
      "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found "
      "for incoming preemptor";
  EXPECT_EQ(by["default/a"].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(by["default/a"].message, "pod group is unschedulable, " + status);
  EXPECT_EQ(by["default/b"].message, "pod group is unschedulable, " + status);
  EXPECT_EQ(by["default/c"].message, "0/1 nodes are available: 1 cannot allocate all claims.");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.groups[0].message, status);
  for (const api::ResourceClaim& claim : snap_.claims) EXPECT_FALSE(claim.status.allocation.has_value());
}

// With a PodGroup claim (DRAWorkloadResourceClaims) shared by a and b:
// pods and condition as above (oracle). The claim, by hand: whichever
// member's bindClaim comes first writes the allocation and the PodGroup's
// reservation; Unreserve leaves reservations for the PodGroup alone
// (IsReservedForPod without acceptPodGroupReservation), so it stays.
TEST_F(GangTest, AFailedMembersPodGroupClaimStaysReservedForTheGroup) {
  ASSERT_TRUE(snap_.gates.Set(api::Gate::kDRAWorkloadResourceClaims, true).ok());
  snap_.classes[0].spec.extended_resource_name = "example.com/gpu";
  AddNode("plugin", "2").status.allocatable.insert_or_assign("example.com/gpu", Q("1"));
  AddGpus("plugin", 1);
  AddTemplate("any");
  api::PodGroup& g = AddGroup("train", 2);
  g.metadata.uid = "uid-train";
  g.spec.resource_claims.push_back({.name = "shared", .resource_claim_template_name = "any"});
  for (const char* name : {"a", "b"}) AddMember(name, "train").spec.resource_claims[0].name = "shared";
  snap_.pods[0].spec.containers[0].resources.requests.insert_or_assign("example.com/gpu", Q("1"));
  snap_.pods[0].spec.containers[0].resources.limits.insert_or_assign("example.com/gpu", Q("1"));
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  EXPECT_EQ(by["default/a"].kind, PodOutcome::Kind::kError) << by["default/a"].message;
  EXPECT_EQ(by["default/b"].node, "plugin") << by["default/b"].message;
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
  ASSERT_EQ(snap_.claims.size(), 1u);
  ASSERT_TRUE(snap_.claims[0].status.allocation.has_value());
  ASSERT_EQ(snap_.claims[0].status.reserved_for.size(), 1u);
  EXPECT_EQ(snap_.claims[0].status.reserved_for[0].uid, "uid-train");
}

// The controller's handlePodGroupClaim uses a claim recorded in the
// PodGroup's status only if the group controls it (IsForPodGroup); one it
// does not control (here: made by someone else under that name) is left
// alone and a new one is made from the template and recorded. By hand from
// upstream's resourceclaim controller.
TEST_F(GangTest, ARecordedPodGroupClaimTheGroupDoesNotControlIsReplaced) {
  ASSERT_TRUE(snap_.gates.Set(api::Gate::kDRAWorkloadResourceClaims, true).ok());
  AddNode("n1");
  AddGpus("n1", 2);
  AddTemplate("any");
  api::PodGroup& g = AddGroup("train", 1);
  g.metadata.uid = "uid-train";
  g.spec.resource_claims.push_back({.name = "shared", .resource_claim_template_name = "any"});
  g.status.resource_claim_statuses.push_back({.name = "shared", .resource_claim_name = "train-shared-other"});
  api::ResourceClaim& foreign = AddClaim("train-shared-other");
  foreign.metadata.annotations.insert_or_assign("resource.kubernetes.io/pod-claim-name", "shared");
  foreign.metadata.owner_references.push_back(
      {.api_version = "scheduling.k8s.io/v1beta1", .kind = "PodGroup", .name = "train", .uid = "uid-old-train"});
  foreign.metadata.owner_references.back().controller = true;
  AddMember("a", "train").spec.resource_claims[0].name = "shared";
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.pods.size(), 1u);
  ASSERT_EQ(r.pods[0].kind, PodOutcome::Kind::kPlaced) << r.pods[0].message;
  ASSERT_EQ(snap_.claims.size(), 2u);
  const std::string made = snap_.claims[1].metadata.name;
  EXPECT_NE(made, "train-shared-other");
  EXPECT_EQ(made.rfind("train-shared-", 0), 0u) << made;
  ASSERT_EQ(snap_.claims[1].metadata.owner_references.size(), 1u);
  EXPECT_EQ(snap_.claims[1].metadata.owner_references[0].uid, "uid-train");
  EXPECT_EQ(snap_.pod_groups[0].status.resource_claim_statuses[0].resource_claim_name, made);
  EXPECT_EQ(r.pods[0].claims[0].claim, "default/" + made);
  EXPECT_FALSE(snap_.claims[0].status.allocation.has_value());  // the foreign claim is left alone
  // A recorded claim the group controls is used as it is.
  snap_.pods[0].spec.node_name.clear();
  snap_.pods[0].status.resource_claim_statuses.clear();
  snap_.claims[1].status = {};
  r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(snap_.claims.size(), 2u);
  EXPECT_EQ(r.pods[0].claims[0].claim, "default/" + made);
}

// Queue: a group's members are tried together, at the place of the first.
TEST(GroupQueueTest, MembersAreCollectedAtTheFirstMembersPlace) {
  Snapshot s;
  ASSERT_TRUE(s.gates.Set(api::Gate::kGenericWorkload, true).ok());
  for (const char* name : {"solo-0", "g-0", "solo-1", "g-1", "h-0"}) {
    api::Pod p;
    p.metadata.namespace_ = "default";
    p.metadata.name = name;
    if (name[0] != 's') {
      p.spec.extra.insert_or_assign("schedulingGroup", fmt::format(R"({{"podGroupName":"{}"}})", name[0]));
    }
    s.pods.push_back(p);
  }
  api::PodGroup g;
  g.metadata.namespace_ = "default";
  g.metadata.name = "g";
  s.pod_groups.push_back(g);
  const std::vector<size_t> queue = {0, 1, 2, 3, 4};
  std::vector<GroupEntity> entities = GroupQueue(s, queue);
  ASSERT_EQ(entities.size(), 4u);
  EXPECT_THAT(entities[0].pods, ::testing::ElementsAre(0u));
  EXPECT_THAT(entities[1].pods, ::testing::ElementsAre(1u, 3u));
  EXPECT_EQ(entities[1].group, std::optional<size_t>(0));
  EXPECT_THAT(entities[2].pods, ::testing::ElementsAre(2u));
  EXPECT_EQ(entities[3].group_name, "h");
  EXPECT_FALSE(entities[3].group.has_value());
  // Gate off: every pod is its own entity.
  s.gates = api::FeatureGates::Defaults();
  EXPECT_EQ(GroupQueue(s, queue).size(), 5u);
}

// Topology (TopologyAwareWorkloadScheduling, KEP-5732): expectations worked
// out by hand from kube-scheduler 1.37.2's TopologyPlacement
// (topology_placement.go), podGroupSchedulingPlacementAlgorithm and
// findBestPlacement (schedule_one_podgroup.go), PodGroupPodsCount and
// NodeResourcesFit's ScorePlacement (MostAllocated, resource_allocation.go).
class GangTopologyTest : public GangTest {
 protected:
  GangTopologyTest() { EXPECT_TRUE(snap_.gates.Set(api::Gate::kTopologyAwareWorkloadScheduling, true).ok()); }
  void AddRackNode(const std::string& name, const std::string& rack, int gpus, std::string cpu = "8") {
    AddNode(name, std::move(cpu)).metadata.labels.insert_or_assign("example.com/rack", rack);
    AddGpus(name, gpus);
  }
  api::PodGroup& AddTopologyGroup(const std::string& name, int32_t min_count, const std::string& key) {
    api::PodGroup& g = AddGroup(name, min_count);
    g.spec.scheduling_constraints = api::PodGroupSchedulingConstraints{.topology = {{.key = key}}};
    return g;
  }
};

// Racks a (n1, n2) and b (n3, n4), one GPU per node; three members of one
// GPU each, minCount 3. Placement a (first by name): two members fit, the
// third fits neither node of the placement ("0/2 nodes"), so minCount (3)
// cannot be satisfied: 2 scheduled, 0 remaining; the same in b. No
// placement: upstream's "0/2 placements are available, first placement
// status: ...", wrapped in errPodGroupUnschedulable (so "pod group is
// unschedulable, " first, and twice for m0 and m1, which fit in the first
// placement); texts from the oracle (gates GenericWorkload and
// TopologyAwareWorkloadScheduling; both racks fail alike, so upstream's
// random first placement does not matter). Without the topology constraint
// they spread over both racks.
TEST_F(GangTopologyTest, NoRackHoldsTheGroup) {
  AddRackNode("n1", "a", 1);
  AddRackNode("n2", "a", 1);
  AddRackNode("n3", "b", 1);
  AddRackNode("n4", "b", 1);
  AddSelectingTemplate("any", "");
  AddTopologyGroup("train", 3, "example.com/rack");
  AddMember("m0", "train");
  AddMember("m1", "train");
  AddMember("m2", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  const std::string group_message =
      "pod group is unschedulable, 0/2 placements are available, first placement status: minCount (3) cannot be "
      "satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming "
      "preemptor";
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  EXPECT_EQ(r.groups[0].message, group_message);
  EXPECT_EQ(r.groups[0].placements, 2u);
  EXPECT_EQ(by["default/m0"].message, "pod group is unschedulable, " + group_message);
  EXPECT_EQ(by["default/m1"].message, "pod group is unschedulable, " + group_message);
  EXPECT_EQ(by["default/m2"].message, "0/2 nodes are available: 2 cannot allocate all claims.");
  for (const api::Pod& p : snap_.pods) EXPECT_TRUE(p.spec.node_name.empty()) << p.metadata.name;
  // The same group without the constraint: one placement of all four nodes.
  snap_.pod_groups[0].spec.scheduling_constraints.reset();
  ScheduleResult spread = RunGang(GangMode::kUpstream);
  EXPECT_EQ(spread.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(spread.groups[0].placements, 1u);
}

// Both racks hold the two members; PodGroupPodsCount gives both 100. Fit's
// placement score, MostAllocated over the sums: rack a (two nodes, 16 cpu,
// 64Gi) takes 2 cpu and 2 x 200Mi (the non-zero default): cpu 2000*100/16000
// = 12, memory 400Mi*100/64Gi = 0, (12+0)/2 = 6; rack b (one node, 8 cpu,
// 32Gi): 25 and 1, 13. Rack b wins although a comes first by name.
TEST_F(GangTopologyTest, TheFullerRackWins) {
  AddRackNode("n1", "a", 1);
  AddRackNode("n2", "a", 1);
  AddRackNode("n3", "b", 2);
  AddSelectingTemplate("any", "");
  AddTopologyGroup("train", 2, "example.com/rack");
  AddMember("m0", "train");
  AddMember("m1", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  std::map<std::string, PodOutcome> by = ByPod(r);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(r.groups[0].placement, "b");
  EXPECT_EQ(by["default/m0"].node, "n3");
  EXPECT_EQ(by["default/m1"].node, "n3");
}

// Members already bound in racks a and b: TopologyPlacement's error, the
// group's pending member fails with it (kError, no placement tried).
TEST_F(GangTopologyTest, ScheduledMembersInTwoRacksAreAnError) {
  AddRackNode("n1", "a", 1);
  AddRackNode("n3", "b", 1);
  AddSelectingTemplate("any", "");
  AddTopologyGroup("train", 3, "example.com/rack");
  for (const auto& [name, node] : {std::pair{"m0", "n1"}, std::pair{"m1", "n3"}}) {
    api::Pod& p = AddPod(name);
    p.spec.extra.insert_or_assign("schedulingGroup", R"({"podGroupName":"train"})");
    p.spec.node_name = node;
  }
  AddMember("m2", "train");
  ScheduleResult r = RunGang(GangMode::kUpstream);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].kind, PodOutcome::Kind::kError);
  EXPECT_EQ(r.groups[0].message,
            "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: a, b");
  EXPECT_EQ(ByPod(r)["default/m2"].kind, PodOutcome::Kind::kError);
}

// dractl's extension for --gang search: a key no node carries but devices
// do. One node, clique x = {gpu-0}, y = {gpu-1, gpu-2}. Upstream has no
// placement at all ("no feasible placements found"); the search tries x
// (one member fits) and y (both), and places both members in y.
TEST_F(GangTopologyTest, SearchKeepsTheMembersInOneDeviceClique) {
  AddNode("n1");
  AddGpus("n1", 3);
  const char* cliques[] = {"x", "y", "y"};
  for (size_t i = 0; i < 3; ++i) {
    snap_.slices.back().spec.devices[i].attributes.insert_or_assign("clique", api::DeviceAttribute::String(cliques[i]));
  }
  AddSelectingTemplate("any", "");
  AddTopologyGroup("train", 2, "gpu.example.com/clique");
  AddMember("m0", "train");
  AddMember("m1", "train");
  ScheduleResult upstream = RunGang(GangMode::kUpstream);
  ASSERT_EQ(upstream.groups.size(), 1u);
  EXPECT_EQ(upstream.groups[0].kind, PodOutcome::Kind::kUnschedulable);
  // The oracle: the group's condition gets DefaultPreemption's text (the
  // DynamicResources PodGroupPostFilter steps aside for a topology
  // constraint), the members keep the status from before it.
  EXPECT_EQ(upstream.groups[0].message,
            "no feasible placements found, pod group preemption: No preemption victims found for incoming preemptor");
  EXPECT_EQ(ByPod(upstream)["default/m0"].message, "no feasible placements found");

  ScheduleResult search = RunGang(GangMode::kSearch);
  std::map<std::string, PodOutcome> by = ByPod(search);
  ASSERT_EQ(search.groups.size(), 1u);
  EXPECT_EQ(search.groups[0].kind, PodOutcome::Kind::kPlaced);
  EXPECT_EQ(search.groups[0].placement, "y");
  EXPECT_EQ(search.groups[0].placements, 2u);
  std::vector<std::string> devices = {Device(by["default/m0"]), Device(by["default/m1"])};
  std::sort(devices.begin(), devices.end());
  EXPECT_EQ(devices, (std::vector<std::string>{"gpu-1", "gpu-2"}));
}

}  // namespace
}  // namespace dra::sched
