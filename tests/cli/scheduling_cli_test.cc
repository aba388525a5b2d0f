// dractl on scheduling.k8s.io PodGroups and Workloads (the Workload API,
// gate GenericWorkload): examples/gang validates with the gate and is
// refused without it, as the API server refuses a kind it does not serve;
// convert prints them as v1beta1 and reads its own output back; the gate
// dependencies of --feature-gates.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;
const std::string kGang = std::string(DRA_SOURCE_DIR) + "/examples/gang";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(SchedulingCliTest, GangExampleValidatesWithGenericWorkload) {
  // 1 PodGroup, 1 ResourceClaimTemplate and 4 Pods (training-job.yaml), 1
  // DeviceClass, 2 Nodes and 2 ResourceSlices (cluster.yaml).
  const std::string files =
      " -f " + ShellQuote(kGang + "/training-job.yaml") + " -f " + ShellQuote(kGang + "/cluster.yaml");
  CommandResult r = RunCommand(kBin + " validate --feature-gates GenericWorkload=true" + files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "11 objects from 2 files: 0 errors, 0 warnings")) << r.output;
  // The whole folder (other examples may join these two) is valid as well.
  CommandResult folder =
      RunCommand(kBin + " validate --feature-gates GenericWorkload=true -f " + ShellQuote(kGang + "/"));
  EXPECT_EQ(folder.exit_code, 0) << folder.output;
  EXPECT_TRUE(Contains(folder.output, ": 0 errors, 0 warnings")) << folder.output;
}

TEST(SchedulingCliTest, GangExampleWithoutTheGateIsNotServed) {
  // 1.37's defaults: GenericWorkload is beta and off, so the API server does
  // not serve PodGroups (an error on the object) and drops the pods'
  // schedulingGroup (a warning on each pod).
  const std::string files =
      " -f " + ShellQuote(kGang + "/training-job.yaml") + " -f " + ShellQuote(kGang + "/cluster.yaml");
  CommandResult r = RunCommand(kBin + " validate" + files);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "training-job.yaml:7:7: PodGroup ml/train: kind: Forbidden: PodGroup requires "
                       "feature gate GenericWorkload, which is disabled"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "warning: Pod ml/train-worker-0: spec.schedulingGroup: Forbidden: requires feature "
                       "gate GenericWorkload"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "11 objects from 2 files: 1 error, 4 warnings")) << r.output;
  // -o json says the same.
  CommandResult json = RunCommand(kBin + " validate -o json" + files);
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_TRUE(Contains(json.output, "\"object\": \"PodGroup ml/train\"")) << json.output;
}

TEST(SchedulingCliTest, ConvertRoundTripsPodGroupsAndWorkloads) {
  // A v1alpha3 Workload and a v1beta1 PodGroup are printed as v1beta1, with
  // --defaults the PodGroup gets disruptionMode single; the JSON printed
  // reads back to the same YAML.
  const std::string input =
      "apiVersion: scheduling.k8s.io/v1alpha3\n"
      "kind: Workload\n"
      "metadata: {name: train, namespace: ml}\n"
      "spec:\n"
      "  podGroupTemplates:\n"
      "  - {name: workers, schedulingPolicy: {gang: {minCount: 4}}}\n"
      "---\n"
      "apiVersion: scheduling.k8s.io/v1beta1\n"
      "kind: PodGroup\n"
      "metadata: {name: train-workers, namespace: ml}\n"
      "spec:\n"
      "  workloadRef: {workloadName: train, templateName: workers}\n"
      "  schedulingPolicy: {gang: {minCount: 4}}\n";
  const std::string convert = kBin + " convert --feature-gates GenericWorkload=true";
  CommandResult yaml =
      RunCommand("printf '%s' " + ShellQuote(input) + " | (" + convert + " --defaults -f - 2>/dev/null)");
  ASSERT_EQ(yaml.exit_code, 0) << yaml.output;
  EXPECT_TRUE(Contains(yaml.output, "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n")) << yaml.output;
  EXPECT_TRUE(Contains(yaml.output, "  disruptionMode:\n    single: {}\n")) << yaml.output;
  EXPECT_TRUE(Contains(yaml.output, "    schedulingConstraints: null\n")) << yaml.output;
  EXPECT_FALSE(Contains(yaml.output, "v1alpha3")) << yaml.output;
  CommandResult json =
      RunCommand("printf '%s' " + ShellQuote(yaml.output) + " | (" + convert + " -o json -f - 2>/dev/null)");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  CommandResult again = RunCommand("printf '%s' " + ShellQuote(json.output) + " | (" + convert + " -f - 2>/dev/null)");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output, yaml.output);
  // Without the gate, convert refuses the kinds as validate does.
  CommandResult off = RunCommand("printf '%s' " + ShellQuote(input) + " | " + kBin + " convert -f -");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_TRUE(Contains(off.output, "Workload ml/train: kind: Forbidden")) << off.output;
}

TEST(SchedulingCliTest, FeatureGateDependencies) {
  // kube_features.go: TopologyAwareWorkloadScheduling depends on
  // GenericWorkload; --feature-gates refuses one without the other (usage
  // error, exit 2).
  CommandResult r =
      RunCommand(kBin + " validate --feature-gates TopologyAwareWorkloadScheduling=true -f " + ShellQuote(kGang));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "TopologyAwareWorkloadScheduling is enabled, but depends on features that are "
                       "disabled: [GenericWorkload]"))
      << r.output;
  CommandResult ok =
      RunCommand(kBin + " validate --feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true -f " +
                 ShellQuote(kGang));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
}  // namespace dra::testing
