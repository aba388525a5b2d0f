// `dractl schedule` and `dractl explain` on pod groups: the gang issue's
// target case (examples/gang/two-models.yaml) and a gang that cannot fit
// (tests/sched/gang/trio.yaml). Expectations worked out by hand in each file's header and
// below, from kube-scheduler 1.37.2's GangScheduling texts; the texts of a failed group and
// its members are kube-scheduler's own: tools/oracle `schedule` (scheduler.New, its pod-group
// cycle and DefaultPreemption) on the same files as JSON Lists, gate GenericWorkload (and
// TopologyAwareWorkloadScheduling for clique.yaml), with the API server's request defaults
// (allocationMode ExactCount, count 1) written out.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;
const std::string kData = std::string(DRA_SOURCE_DIR) + "/tests/sched/gang";
const std::string kTwoModels = std::string(DRA_SOURCE_DIR) + "/examples/gang/two-models.yaml";
const std::string kGate = " --feature-gates GenericWorkload=true";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// One pod at a time: a takes gpu-0, b fits nowhere, the group is undone.
TEST(GangCliTest, UpstreamPlacesNeitherMember) {
  CommandResult r = RunCommand(kBin + " schedule" + kGate + " --gang upstream -f " + ShellQuote(kTwoModels));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "default/a  <pending>  pod group is unschedulable, minCount (2) cannot be satisfied: 1 "
                       "scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming "
                       "preemptor\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "default/b  <pending>  0/1 nodes are available: 1 cannot allocate all claims.\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "0 placed, 2 pending\n")) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "pod group default/pair: not placed: minCount (2) cannot be satisfied: 1 scheduled, 0 "
                       "remaining, pod group preemption: No preemption victims found for incoming preemptor\n"))
      << r.output;
  // -o yaml: the PodGroup with kube-scheduler's condition; nothing bound.
  CommandResult y = RunCommand(kBin + " schedule" + kGate + " -o yaml -f " + ShellQuote(kTwoModels));
  ASSERT_EQ(y.exit_code, 0) << y.output;
  EXPECT_TRUE(Contains(y.output,
                       "    - type: PodGroupInitiallyScheduled\n      status: \"False\"\n"
                       "      lastTransitionTime: \"1970-01-01T00:00:00Z\"\n      reason: Unschedulable\n"
                       "      message: 'minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group\n"
                       "        preemption: No preemption victims found for incoming preemptor'\n"))
      << y.output;
  EXPECT_FALSE(Contains(y.output, "nodeName:")) << y.output;
  // --policy kube's default is upstream.
  CommandResult d = RunCommand(kBin + " schedule" + kGate + " -f " + ShellQuote(kTwoModels));
  EXPECT_EQ(d.output, r.output);
}

// The search gives a the other GPU. dra-pack (whose default is --gang
// search) already gives a gpu-1 one pod at a time: taking the GPU that no
// other pending pod's shape needs leaves less stranded.
TEST(GangCliTest, SearchPlacesBothMembers) {
  for (const std::string flags : {" --gang search", " --policy dra-pack"}) {
    CommandResult r = RunCommand(kBin + " schedule" + kGate + flags + " -f " + ShellQuote(kTwoModels));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "default/a  n1    gpu: gpu.example.com/n1/gpu-1\n")) << flags << r.output;
    EXPECT_TRUE(Contains(r.output, "default/b  n1    gpu: gpu.example.com/n1/gpu-0\n")) << flags << r.output;
    EXPECT_TRUE(Contains(r.output, "pod group default/pair: 2 of 2 pending members placed (0 bound before, minCount 2"))
        << flags << r.output;
  }
  CommandResult s = RunCommand(kBin + " schedule" + kGate + " --gang search -f " + ShellQuote(kTwoModels));
  EXPECT_TRUE(Contains(s.output, "minCount 2; gang search: ")) << s.output;
  // -o yaml: both pods bound, both claims allocated and reserved.
  CommandResult y = RunCommand(kBin + " schedule" + kGate + " --gang search -o yaml -f " + ShellQuote(kTwoModels));
  ASSERT_EQ(y.exit_code, 0) << y.output;
  EXPECT_TRUE(Contains(y.output, "nodeName: n1")) << y.output;
  EXPECT_TRUE(Contains(y.output, "device: gpu-1")) << y.output;
  EXPECT_TRUE(Contains(y.output, "device: gpu-0")) << y.output;
}

// Without the gate the API server refuses PodGroups: an input error.
TEST(GangCliTest, PodGroupsNeedGenericWorkload) {
  CommandResult r = RunCommand(kBin + " schedule -f " + ShellQuote(kTwoModels));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "PodGroup requires feature gate GenericWorkload")) << r.output;
}

// explain on a member: the group's pass (a held gpu-0 when b was tried),
// and that the search would place the group.
TEST(GangCliTest, ExplainTellsTheGroupsPassAndTheSearchsPlacement) {
  CommandResult r = RunCommand(kBin + " explain" + kGate + " -f " + ShellQuote(kTwoModels) + " default/b");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "pod group default/pair (minCount 2, 2 pending, 0 bound before): not placed: minCount "
                       "(2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: No preemption "
                       "victims found for incoming preemptor\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  one pod at a time, as kube-scheduler (then undone): default/a on n1 "
                       "(gpu.example.com/n1/gpu-0); default/b fits nowhere\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  with --gang search the group is placed: default/a on n1 (gpu.example.com/n1/gpu-1); "
                       "default/b on n1 (gpu.example.com/n1/gpu-0)\n"))
      << r.output;
  // b's node: the model-X GPU is held by a's claim in the group's cycle.
  EXPECT_TRUE(Contains(r.output, "1 of them pass the request's selectors (1 in use by default/a-gpu-")) << r.output;
}

// A gang of three on two GPUs: no placement; the nearest miss is two.
TEST(GangCliTest, ExplainGivesTheGroupsNearestMiss) {
  CommandResult r = RunCommand(kBin + " explain" + kGate + " -f " + ShellQuote(kData + "/trio.yaml") + " default/t-2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "not placed: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group "
                       "preemption: No preemption victims found for incoming preemptor\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  with --gang search it is not placed either: minCount (3) cannot be satisfied: 2 "
                       "scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming "
                       "preemptor; gang search: no placement of minCount members exists"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  nearest miss: at most 2 of the 3 pending members fit together (1 more needed): "
                       "default/t-0 on n1 (gpu.example.com/n1/gpu-0); default/t-1 on n1 "
                       "(gpu.example.com/n1/gpu-1)\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "    left out: default/t-2: 0/1 nodes are available: 1 cannot allocate all claims.\n"))
      << r.output;
  CommandResult j =
      RunCommand(kBin + " explain" + kGate + " -o json -f " + ShellQuote(kData + "/trio.yaml") + " default/t-2");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  EXPECT_TRUE(Contains(j.output, "\"mostTogether\": 2")) << j.output;
  EXPECT_TRUE(Contains(j.output, "\"searchPlaces\": false")) << j.output;
}

// A topology key that names a device attribute (tests/sched/gang/clique.yaml,
// worked out in its header): upstream has no placement, the search keeps
// both members in domain nvl-b; explain says so.
TEST(GangCliTest, TopologyByDeviceAttribute) {
  const std::string gates = " --feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true";
  const std::string file = " -f " + ShellQuote(kData + "/clique.yaml");
  CommandResult v = RunCommand(kBin + " validate" + gates + file);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_TRUE(Contains(v.output, "0 errors, 0 warnings")) << v.output;
  CommandResult up = RunCommand(kBin + " schedule" + gates + " --gang upstream" + file);
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_TRUE(Contains(up.output, "default/w-0  <pending>  no feasible placements found\n")) << up.output;
  EXPECT_TRUE(Contains(up.output,
                       "pod group default/pair: not placed: no feasible placements found, pod group preemption: No "
                       "preemption victims found for incoming preemptor\n"))
      << up.output;
  CommandResult search = RunCommand(kBin + " schedule" + gates + " --gang search" + file);
  ASSERT_EQ(search.exit_code, 0) << search.output;
  EXPECT_TRUE(Contains(search.output, "default/w-0  n1    gpu: gpu.example.com/n1/gpu-1\n")) << search.output;
  EXPECT_TRUE(Contains(search.output, "default/w-1  n1    gpu: gpu.example.com/n1/gpu-2\n")) << search.output;
  EXPECT_TRUE(Contains(search.output, "; topology domain nvl-b of 2)\n")) << search.output;
  CommandResult explain = RunCommand(kBin + " explain" + gates + " --gang upstream --all-pending" + file);
  EXPECT_TRUE(Contains(explain.output,
                       "  with --gang search the group is placed in topology domain nvl-b: default/w-0 "
                       "on n1 (gpu.example.com/n1/gpu-1); default/w-1 on n1 "
                       "(gpu.example.com/n1/gpu-2)\n"))
      << explain.output;
}

}  // namespace
}  // namespace dra::testing
