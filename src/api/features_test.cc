#include "api/features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace dra::api {
namespace {

using ::testing::HasSubstr;

struct DefaultCase {
  std::string version;
  Gate gate;
  bool want_on;
  Maturity want_maturity;
};

class FeatureDefaultsTest : public ::testing::TestWithParam<DefaultCase> {};

TEST_P(FeatureDefaultsTest, MatchesTheGateTable) {
  const DefaultCase& c = GetParam();
  StatusOr<FeatureGates> gates = FeatureGates::Defaults(c.version);
  ASSERT_TRUE(gates.ok()) << gates.status().ToString();
  EXPECT_EQ(gates->enabled(c.gate), c.want_on) << FeatureGates::Name(c.gate) << " in " << c.version;
  EXPECT_EQ(gates->maturity(c.gate), c.want_maturity) << FeatureGates::Name(c.gate) << " in " << c.version;
}

INSTANTIATE_TEST_SUITE_P(
    Table, FeatureDefaultsTest,
    ::testing::Values(DefaultCase{"1.34", Gate::kDynamicResourceAllocation, true, Maturity::kGA},
                      DefaultCase{"1.35", Gate::kDynamicResourceAllocation, true, Maturity::kGALocked},
                      DefaultCase{"1.34", Gate::kDRAAdminAccess, true, Maturity::kBeta},
                      DefaultCase{"1.36", Gate::kDRAAdminAccess, true, Maturity::kGALocked},
                      DefaultCase{"1.36", Gate::kDRAPrioritizedList, true, Maturity::kGA},
                      DefaultCase{"1.37", Gate::kDRAPrioritizedList, true, Maturity::kGALocked},
                      DefaultCase{"1.36", Gate::kDRAResourceClaimDeviceStatus, true, Maturity::kBeta},
                      DefaultCase{"1.37", Gate::kDRAResourceClaimDeviceStatus, true, Maturity::kGALocked},
                      DefaultCase{"1.37", Gate::kDRASchedulerFilterTimeout, true, Maturity::kBeta},
                      DefaultCase{"1.35", Gate::kDRAPartitionableDevices, false, Maturity::kAlpha},
                      DefaultCase{"1.36", Gate::kDRAPartitionableDevices, true, Maturity::kBeta},
                      DefaultCase{"1.34", Gate::kDRADeviceTaints, false, Maturity::kAlpha},
                      DefaultCase{"1.37", Gate::kDRADeviceTaints, true, Maturity::kGA},
                      DefaultCase{"1.34", Gate::kDRADeviceTaintRules, false, Maturity::kAbsent},
                      DefaultCase{"1.36", Gate::kDRADeviceTaintRules, false, Maturity::kBeta},
                      DefaultCase{"1.37", Gate::kDRADeviceTaintRules, true, Maturity::kGA},
                      DefaultCase{"1.35", Gate::kDRAConsumableCapacity, false, Maturity::kAlpha},
                      DefaultCase{"1.36", Gate::kDRAConsumableCapacity, true, Maturity::kBeta},
                      DefaultCase{"1.36", Gate::kDRADeviceBindingConditions, true, Maturity::kBeta},
                      DefaultCase{"1.36", Gate::kDRAExtendedResource, true, Maturity::kBeta},
                      DefaultCase{"1.37", Gate::kDRAExtendedResource, true, Maturity::kGALocked},
                      DefaultCase{"1.35", Gate::kDRAListTypeAttributes, false, Maturity::kAbsent},
                      DefaultCase{"1.36", Gate::kDRAListTypeAttributes, false, Maturity::kAlpha},
                      DefaultCase{"1.36", Gate::kDRANodeAllocatableResources, false, Maturity::kAlpha},
                      DefaultCase{"1.37", Gate::kDRAWorkloadResourceClaims, false, Maturity::kBeta},
                      DefaultCase{"1.36", Gate::kDRADerivedAttributes, false, Maturity::kAbsent},
                      DefaultCase{"1.37", Gate::kDRADerivedAttributes, false, Maturity::kAlpha},
                      DefaultCase{"1.37", Gate::kDRADeviceCompatibilityGroups, false, Maturity::kAlpha},
                      // Off: kube-apiserver v1.37.2 reports kubernetes_feature_enabled 0.
                      DefaultCase{"1.37", Gate::kDRAFractionalCapacityRange, false, Maturity::kBeta},
                      DefaultCase{"1.37", Gate::kDRAOptionalNodeOperations, false, Maturity::kAlpha},
                      DefaultCase{"1.37", Gate::kDRAPartitionableDevicesType, false, Maturity::kAlpha},
                      DefaultCase{"v1.36.4", Gate::kDRAConsumableCapacity, true, Maturity::kBeta}));

TEST(FeatureGatesTest, DefaultsWithoutVersionIs137) {
  StatusOr<FeatureGates> v137 = FeatureGates::Defaults("1.37");
  ASSERT_TRUE(v137.ok());
  EXPECT_EQ(FeatureGates::Defaults(), *v137);
  EXPECT_EQ(FeatureGates::Defaults().version(), "1.37");
}

TEST(FeatureGatesTest, RejectsUnknownVersions) {
  for (std::string_view v : {"1.33", "1.38", "2.0", "", "1.", "1.36.", "1.36.x", "one"}) {
    StatusOr<FeatureGates> gates = FeatureGates::Defaults(v);
    EXPECT_FALSE(gates.ok()) << v;
    if (!gates.ok()) {
      EXPECT_EQ(gates.status().code(), StatusCode::kInvalidArgument);
      EXPECT_THAT(gates.status().message(), HasSubstr("1.34 to 1.37"));
    }
  }
}

TEST(FeatureGatesTest, NamesRoundTrip) {
  for (size_t i = 0; i < kGateCount; ++i) {
    Gate gate = static_cast<Gate>(i);
    std::optional<Gate> back = FeatureGates::GateByName(FeatureGates::Name(gate));
    ASSERT_TRUE(back.has_value()) << FeatureGates::Name(gate);
    EXPECT_EQ(*back, gate);
  }
  EXPECT_EQ(FeatureGates::Name(Gate::kDRAPartitionableDevicesType), "DRAPartitionableDevicesType");
  EXPECT_FALSE(FeatureGates::GateByName("drAAdminAccess").has_value());
}

TEST(FeatureGatesTest, AllOffHasEverythingOffAndUnlocked) {
  FeatureGates gates = FeatureGates::AllOff();
  for (size_t i = 0; i < kGateCount; ++i) EXPECT_FALSE(gates.enabled(static_cast<Gate>(i)));
  EXPECT_EQ(gates.version(), "");
  EXPECT_TRUE(gates.Set("DRADerivedAttributes", true).ok());
  EXPECT_TRUE(gates.enabled(Gate::kDRADerivedAttributes));
  EXPECT_TRUE(gates.Set(Gate::kDRADerivedAttributes, false).ok());
  EXPECT_FALSE(gates.enabled(Gate::kDRADerivedAttributes));
}

TEST(FeatureGatesTest, SetRejectsUnknownName) {
  FeatureGates gates = FeatureGates::Defaults();
  Status s = gates.Set("DRANoSuchThing", true);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unrecognized feature gate: DRANoSuchThing"));
}

TEST(FeatureGatesTest, SetRefusesTurningOffLockedGate) {
  FeatureGates gates = FeatureGates::Defaults("1.36").value();
  Status s = gates.Set("DRAAdminAccess", false);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cannot set feature gate DRAAdminAccess to false, feature is locked to true"));
  EXPECT_TRUE(gates.enabled(Gate::kDRAAdminAccess));
  EXPECT_TRUE(gates.Set("DRAAdminAccess", true).ok());
  // GA but not locked may be turned off.
  EXPECT_TRUE(gates.Set("DRAPrioritizedList", false).ok());
  EXPECT_FALSE(gates.enabled(Gate::kDRAPrioritizedList));
}

TEST(FeatureGatesTest, SetRefusesGateMissingFromRelease) {
  FeatureGates gates = FeatureGates::Defaults("1.35").value();
  Status s = gates.Set("DRAListTypeAttributes", true);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not part of Kubernetes 1.35"));
  EXPECT_FALSE(gates.enabled(Gate::kDRAListTypeAttributes));
}

TEST(FeatureGatesTest, ParseFlagAppliesAll) {
  FeatureGates gates = FeatureGates::Defaults("1.36").value();
  Status s = gates.ParseFlag(" DRAListTypeAttributes=true, DRAConsumableCapacity = false ,,DRADeviceTaintRules=T");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(gates.enabled(Gate::kDRAListTypeAttributes));
  EXPECT_FALSE(gates.enabled(Gate::kDRAConsumableCapacity));
  EXPECT_TRUE(gates.enabled(Gate::kDRADeviceTaintRules));
  EXPECT_TRUE(gates.ParseFlag("").ok());
}

TEST(FeatureGatesTest, ParseFlagIsAllOrNothing) {
  const FeatureGates before = FeatureGates::Defaults("1.36").value();
  struct Case {
    std::string flag;
    std::string want;
  };
  for (const Case& c : std::vector<Case>{
           {"DRAListTypeAttributes=true,DRAConsumableCapacity", "missing bool value for DRAConsumableCapacity"},
           {"DRAListTypeAttributes=true,DRAConsumableCapacity=maybe", "invalid value of DRAConsumableCapacity=maybe"},
           {"DRAListTypeAttributes=true,Bogus=true", "unrecognized feature gate: Bogus"},
           {"DRAListTypeAttributes=true,DRAAdminAccess=false", "locked to true"},
       }) {
    FeatureGates gates = before;
    Status s = gates.ParseFlag(c.flag);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.flag;
    EXPECT_THAT(s.message(), HasSubstr(c.want)) << c.flag;
    EXPECT_EQ(gates, before) << c.flag;
  }
}

TEST(FeatureGatesTest, FromListTurnsOnListedOnly) {
  StatusOr<FeatureGates> gates = FeatureGates::FromList({"DRAPrioritizedList", "DRAConsumableCapacity"});
  ASSERT_TRUE(gates.ok()) << gates.status().ToString();
  EXPECT_TRUE(gates->enabled(Gate::kDRAPrioritizedList));
  EXPECT_TRUE(gates->enabled(Gate::kDRAConsumableCapacity));
  EXPECT_TRUE(gates->enabled(Gate::kDynamicResourceAllocation));
  EXPECT_FALSE(gates->enabled(Gate::kDRAAdminAccess));
  EXPECT_FALSE(gates->enabled(Gate::kDRADeviceTaints));

  std::vector<std::string> names = {"DRAListTypeAttributes"};
  StatusOr<FeatureGates> from_vector = FeatureGates::FromList(names);
  ASSERT_TRUE(from_vector.ok());
  EXPECT_TRUE(from_vector->enabled(Gate::kDRAListTypeAttributes));
  EXPECT_FALSE(from_vector->enabled(Gate::kDRAPrioritizedList));

  StatusOr<FeatureGates> empty = FeatureGates::FromList({});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->enabled(Gate::kDRAPrioritizedList));
}

TEST(FeatureGatesTest, FromListRejectsUnknownGate) {
  StatusOr<FeatureGates> gates = FeatureGates::FromList({"DRAPrioritizedList", "DRANope"});
  ASSERT_FALSE(gates.ok());
  EXPECT_EQ(gates.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(gates.status().message(), HasSubstr("DRANope"));
}

TEST(FeatureGatesTest, ToStringListsGatesOfTheRelease) {
  FeatureGates gates = FeatureGates::Defaults("1.34").value();
  std::string s = gates.ToString();
  EXPECT_THAT(s, HasSubstr("DynamicResourceAllocation=true,DRAAdminAccess=true"));
  EXPECT_THAT(s, HasSubstr("DRADeviceTaints=false"));
  EXPECT_EQ(s.find("DRADeviceTaintRules"), std::string::npos);
  EXPECT_EQ(s.find("DRAListTypeAttributes"), std::string::npos);
}

// The Workload API gates as kube_features.go declares them: GenericWorkload
// alpha in 1.35 and 1.36, beta (still off) in 1.37;
// TopologyAwareWorkloadScheduling and WorkloadWithJob alpha since 1.36;
// CompositePodGroup and PodGroupPreemptionPolicy alpha since 1.37.
TEST(FeatureGatesTest, WorkloadApiGates) {
  struct Row {
    Gate gate;
    std::array<Maturity, 4> maturity;  // 1.34 .. 1.37
  };
  const Maturity n = Maturity::kAbsent, a = Maturity::kAlpha, b = Maturity::kBeta;
  for (const Row& row :
       {Row{Gate::kGenericWorkload, {n, a, a, b}}, Row{Gate::kTopologyAwareWorkloadScheduling, {n, n, a, a}},
        Row{Gate::kCompositePodGroup, {n, n, n, a}}, Row{Gate::kPodGroupPreemptionPolicy, {n, n, n, a}},
        Row{Gate::kWorkloadWithJob, {n, n, a, a}}}) {
    for (int minor = 34; minor <= 37; ++minor) {
      FeatureGates gates = FeatureGates::Defaults("1." + std::to_string(minor)).value();
      EXPECT_EQ(gates.maturity(row.gate), row.maturity[static_cast<size_t>(minor - 34)])
          << FeatureGates::Name(row.gate) << " in 1." << minor;
      EXPECT_FALSE(gates.enabled(row.gate)) << FeatureGates::Name(row.gate) << " in 1." << minor;
    }
  }
  EXPECT_EQ(FeatureGates::GateByName("GenericWorkload"), Gate::kGenericWorkload);
  EXPECT_EQ(FeatureGates::GateByName("TopologyAwareWorkloadScheduling"), Gate::kTopologyAwareWorkloadScheduling);
  EXPECT_EQ(FeatureGates::GateByName("CompositePodGroup"), Gate::kCompositePodGroup);
  EXPECT_EQ(FeatureGates::GateByName("PodGroupPreemptionPolicy"), Gate::kPodGroupPreemptionPolicy);
  EXPECT_EQ(FeatureGates::GateByName("WorkloadWithJob"), Gate::kWorkloadWithJob);
}

// defaultKubernetesFeatureGateDependencies, checked as featuregate's
// SetFromMap does: "<gate> is enabled, but depends on features that are
// disabled: [<deps>]" (the disabled ones, in name order, space-separated as
// Go prints a slice).
TEST(FeatureGatesTest, WorkloadApiGateDependencies) {
  EXPECT_THAT(FeatureGates::Dependencies(Gate::kCompositePodGroup),
              ::testing::ElementsAre(Gate::kGenericWorkload, Gate::kTopologyAwareWorkloadScheduling));
  EXPECT_THAT(FeatureGates::Dependencies(Gate::kDRAWorkloadResourceClaims),
              ::testing::ElementsAre(Gate::kDynamicResourceAllocation, Gate::kGenericWorkload));
  EXPECT_THAT(FeatureGates::Dependencies(Gate::kWorkloadWithJob), ::testing::ElementsAre(Gate::kGenericWorkload));
  EXPECT_TRUE(FeatureGates::Dependencies(Gate::kGenericWorkload).empty());
  EXPECT_TRUE(FeatureGates::Dependencies(Gate::kDRAAdminAccess).empty());  // not recorded

  FeatureGates gates = FeatureGates::Defaults("1.37").value();
  const FeatureGates before = gates;
  Status s = gates.ParseFlag("TopologyAwareWorkloadScheduling=true");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "TopologyAwareWorkloadScheduling is enabled, but depends on features that are disabled: "
            "[GenericWorkload]");
  EXPECT_EQ(gates, before);  // all or nothing
  s = gates.ParseFlag("CompositePodGroup=true,DRAWorkloadResourceClaims=true");
  EXPECT_EQ(s.message(),
            "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload], "
            "CompositePodGroup is enabled, but depends on features that are disabled: [GenericWorkload "
            "TopologyAwareWorkloadScheduling]");
  s = gates.ParseFlag("GenericWorkload=true,CompositePodGroup=true");
  EXPECT_THAT(s.message(), HasSubstr("CompositePodGroup is enabled, but depends on features that are disabled: "
                                     "[TopologyAwareWorkloadScheduling]"));
  s = gates.ParseFlag(
      "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true,PodGroupPreemptionPolicy=true,"
      "WorkloadWithJob=true,DRAWorkloadResourceClaims=true");
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(gates.enabled(Gate::kCompositePodGroup));
  // Turning the base gate off again while dependents stay on is refused too.
  EXPECT_FALSE(gates.ParseFlag("GenericWorkload=false").ok());
  // Set() and FromList() do not check (tests turn gates on one by one).
  FeatureGates one = FeatureGates::AllOff();
  EXPECT_TRUE(one.Set(Gate::kCompositePodGroup, true).ok());
  EXPECT_EQ(one.CheckDependencies().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(FeatureGates::FromList({"PodGroupPreemptionPolicy"}).ok());
  // 1.36 has TopologyAwareWorkloadScheduling but not CompositePodGroup.
  FeatureGates v136 = FeatureGates::Defaults("1.36").value();
  EXPECT_TRUE(v136.ParseFlag("GenericWorkload=true,TopologyAwareWorkloadScheduling=true").ok());
  EXPECT_THAT(v136.ParseFlag("CompositePodGroup=true").message(), HasSubstr("not part of Kubernetes 1.36"));
}

}  // namespace
}  // namespace dra::api
