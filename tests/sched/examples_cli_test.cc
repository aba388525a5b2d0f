// End-to-end test of `dractl schedule` on the bundled example cluster
// (examples/cluster, the README's first command): workloads expanded into
// pods, mixed GPU generations, MIG, a GPU+NIC claim, a shared claim and a pod
// that cannot fit. The placements below were worked out by hand:
//
//   - Queue: pods without creationTimestamp first (every workload pod and the
//     two fixture pods), by namespace/name, then the timestamped ones.
//   - nccl-tests-rdma: only l40s-rdma-03 has VFs, and only gpu-0 (+ a VF of
//     ens1f0np0, root pci0000:15) or gpu-2 (+ ens5f0np0, pci0000:97) share a
//     PCIe root; gpu-0 and the first VF come first in search order.
//   - embedder/reranker: one hand-made claim for an L4; the untainted L4 node
//     is the only L4 node they tolerate; allocated once, for embedder.
//   - llama-405b-fp16: 16 GPUs of CC >= 9.0 in one claim; no node has more
//     than 8, and it tolerates the GPU taint, so all 7 nodes fail on DRA.
//   - The vLLM Deployment (2 replicas), the notebooks Deployment (7) and the
//     two Jobs (1 pod each) become 11 pods; the 8-GPU pretraining Job's pod
//     stays pending because a vLLM replica and the 4-GPU fine-tune (queued
//     first by namespace) already hold GPUs of the only NVSwitch H100 node.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;
const std::string kExample = std::string(DRA_SOURCE_DIR) + "/examples/cluster";
const std::string kPacking = std::string(DRA_SOURCE_DIR) + "/examples/packing";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The table line of `pod` (or of the first pod whose name starts with it),
// with the column padding squeezed: "NODE  DEVICES OR REASON"; "" if absent.
std::string LineOf(const std::string& table, const std::string& pod_prefix) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(pod_prefix, 0) != 0) continue;
    size_t pod_end = line.find(' ');
    std::string rest = line.substr(pod_end);
    rest.erase(0, rest.find_first_not_of(' '));
    size_t node_end = rest.find(' ');
    if (node_end == std::string::npos) return rest;
    std::string tail = rest.substr(node_end);
    tail.erase(0, tail.find_first_not_of(' '));
    return rest.substr(0, node_end) + "  " + tail;
  }
  return "";
}

int CountLines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

TEST(ExamplesCliTest, ValidateHasNoErrors) {
  CommandResult r = RunCommand(kBin + " validate -f " + ShellQuote(kExample));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ExamplesCliTest, SchedulePlacesTheExampleCluster) {
  CommandResult r = RunCommand(kBin + " schedule -f " + ShellQuote(kExample) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& t = r.output;
  // The pod that cannot fit, with kube-scheduler's reason.
  EXPECT_EQ(LineOf(t, "ml-training/llama-405b-fp16 "),
            "<pending>  0/7 nodes are available: 7 cannot allocate all claims.")
      << t;
  // The NIC-aligned pod: a GPU and a VF on the same PCIe root (pci0000:15).
  EXPECT_EQ(LineOf(t, "rdma-inference/nccl-tests-rdma "),
            "l40s-rdma-03  devices: gpu.nvidia.com/l40s-rdma-03/gpu-0,"
            "sriovnetwork.k8snetworkplumbingwg.io/l40s-rdma-03/0000-17-00-2")
      << t;
  // The shared claim: both pods on the node of its one L4.
  const std::string l4 = "gke-inference-l4-pool-3f9a1c2e-k8xq";
  EXPECT_EQ(LineOf(t, "search/embedder "), l4 + "  gpu: gpu.nvidia.com/" + l4 + "/gpu-0") << t;
  EXPECT_EQ(LineOf(t, "search/reranker "), l4 + "  gpu: gpu.nvidia.com/" + l4 + "/gpu-0") << t;
  // Workloads: 7 notebooks (each one 1g.5gb MIG slice on an A100 node), 2 vLLM
  // replicas, one pod per Job.
  EXPECT_EQ(CountLines(t, "mig-tenants/notebooks-"), 7) << t;
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("mig-tenants/notebooks-", 0) != 0) continue;
    EXPECT_TRUE(Contains(line, "-mig-1g5gb-19-")) << line;
    EXPECT_TRUE(Contains(line, "ip-10-0-42-17.") || Contains(line, "ip-10-0-42-88.")) << line;
  }
  EXPECT_EQ(CountLines(t, "ml-serving/vllm-llama-3-1-8b-"), 2) << t;
  EXPECT_EQ(CountLines(t, "ml-training/finetune-4gpu-numa-"), 1) << t;
  EXPECT_TRUE(Contains(LineOf(t, "ml-training/finetune-4gpu-numa-"), "dgx-h100-01  gpus: ")) << t;
  EXPECT_TRUE(Contains(LineOf(t, "ml-training/llama-pretrain-8xh100-0-"), "<pending>")) << t;
  EXPECT_TRUE(Contains(t, "15 placed, 2 pending")) << t;
}

// Issue #32 item 5: the 16-GPU pod can never fit: the largest H100/H200
// nodes have 8 GPUs each (cannot-fit.yaml); the first in node order is named.
TEST(ExamplesCliTest, ExplainSaysWhenARequestCanNeverFit) {
  CommandResult r =
      RunCommand(kBin + " explain -f " + ShellQuote(kExample) + " ml-training/llama-405b-fp16 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "it can never fit: no node has more than 8 devices matching class h100-or-newer "
                       "(largest: dgx-h100-01, 8); the request asks for 16\n"))
      << r.output;
  // -o yaml: the fields of -o json (issue #32 item 11).
  r = RunCommand(kBin + " explain -o yaml -f " + ShellQuote(kExample) + " ml-training/llama-405b-fp16 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "pods:\n- pod: ml-training/llama-405b-fp16\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "neverFits: 'no node has more than 8 devices matching class h100-or-newer"))
      << r.output;
  // A pod that waits for devices in use gets no such line.
  r = RunCommand(kBin + " explain --all-pending -f " + ShellQuote(kPacking) + " 2>/dev/null");
  EXPECT_FALSE(Contains(r.output, "can never fit")) << r.output;
}

TEST(ExamplesCliTest, SharedClaimIsAllocatedOnceForBothPods) {
  CommandResult r = RunCommand(kBin + " schedule -o yaml -f " + ShellQuote(kExample) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& y = r.output;
  size_t claim = y.find("  name: shared-l4\n");
  ASSERT_NE(claim, std::string::npos) << y;
  EXPECT_EQ(y.find("  name: shared-l4\n", claim + 1), std::string::npos) << "listed twice";
  size_t next = y.find("- apiVersion:", claim);
  std::string obj = y.substr(claim, next == std::string::npos ? std::string::npos : next - claim);
  EXPECT_TRUE(Contains(obj, "allocation:")) << obj;
  EXPECT_EQ(CountLines(obj, "          device: "), 1) << obj;
  EXPECT_TRUE(Contains(obj, "    reservedFor:\n    - resource: pods\n      name: embedder\n")) << obj;
  EXPECT_TRUE(Contains(obj, "    - resource: pods\n      name: reranker\n")) << obj;
}

TEST(ExamplesCliTest, WorkloadsCanBeIgnored) {
  CommandResult r = RunCommand(kBin + " schedule --workloads ignore -f " + ShellQuote(kExample) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountLines(r.output, "mig-tenants/notebooks-"), 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "5 placed, 1 pending")) << r.output;
}

// A Deployment whose pods are in the input (a dump of a running cluster) is
// not expanded again; stderr says why.
TEST(ExamplesCliTest, RunningDeploymentIsNotDuplicated) {
  const std::string dump =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
      "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n"
      "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx}]\n"
      "---\napiVersion: v1\nkind: Pod\n"
      "metadata:\n  name: web-7d9c-abcde\n  namespace: default\n  labels: {app: web, pod-template-hash: 7d9c}\n"
      "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9c, uid: u1, controller: true}]\n"
      "spec:\n  nodeName: n1\n  containers: [{name: c, image: nginx}]\n"
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: "
      "'110'}}\n";
  CommandResult r = RunCommand("printf '%s' " + ShellQuote(dump) + " | " + kBin + " schedule -f - 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "Deployment default/web: not expanded: input pod default/web-7d9c-abcde is owned "
                       "by its ReplicaSet web-7d9c"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "0 placed, 0 pending")) << r.output;
  // Without the running pod, the two replicas are created and placed.
  std::string fresh = dump.substr(0, dump.find("---\napiVersion: v1\nkind: Pod")) +
                      dump.substr(dump.find("---\napiVersion: v1\nkind: Node"));
  CommandResult f = RunCommand("printf '%s' " + ShellQuote(fresh) + " | " + kBin + " schedule -f - 2>&1");
  EXPECT_EQ(CountLines(f.output, "default/web-"), 2) << f.output;
  EXPECT_TRUE(Contains(f.output, "2 placed, 0 pending")) << f.output;
}

}  // namespace
}  // namespace dra::testing

namespace dra::testing {
namespace {

// Writes `text` to DIR/NAME under the test's temporary folder; returns the path.
std::string WriteTemp(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string folder = ::testing::TempDir() + "/" + dir;
  std::system(("mkdir -p " + ShellQuote(folder)).c_str());
  const std::string path = folder + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f != nullptr) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  return path;
}

// examples/packing (issue #23): 8 one-GPU inference pods, then 3 eight-GPU
// training pods, on 4 nodes of 8 GPUs. Worked out by hand (see
// sched/scheduler_test.cc, PackingExampleTest): kube-scheduler's spreading
// leaves 6 free GPUs on every node and the training pods pending; dra-pack
// and fgd put the inference pods on one node and give each training pod a
// whole node.
TEST(ExamplesCliTest, PackingExampleKubeSpreadsAndStrandsTheTrainingPods) {
  CommandResult r = RunCommand(kBin + " schedule -f " + ShellQuote(kPacking));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "8 placed, 3 pending")) << r.output;
  // Two inference pods on each node.
  std::istringstream in(r.output);
  std::map<std::string, int> per_node;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ml/inference-", 0) == 0) ++per_node[LineOf(line, "ml/").substr(0, 11)];
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{
                          {"h100-node-1", 2}, {"h100-node-2", 2}, {"h100-node-3", 2}, {"h100-node-4", 2}}))
      << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/train-"), "<pending>  0/4 nodes are available: 4 cannot allocate all claims.")
      << r.output;
  EXPECT_FALSE(Contains(r.output, "measures fragmentation")) << r.output;
}

TEST(ExamplesCliTest, PackingExampleDraPackPlacesEveryPod) {
  for (const char* policy : {"dra-pack", "fgd"}) {
    CommandResult r = RunCommand(kBin + " schedule --policy " + policy + " -f " + ShellQuote(kPacking));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "11 placed, 0 pending")) << r.output;
    EXPECT_TRUE(Contains(r.output, std::string("dractl schedule: --policy ") + policy +
                                       " measures fragmentation against pending pods: 11 pods, 2 shapes, 2 "
                                       "typical covering 100.0%"))
        << r.output;
    // The inference pods share one node; each training pod has a node of its own.
    std::istringstream in(r.output);
    std::map<std::string, int> inference, train;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("ml/inference-", 0) == 0) ++inference[LineOf(line, "ml/").substr(0, 11)];
      if (line.rfind("ml/train-", 0) == 0) ++train[LineOf(line, "ml/").substr(0, 11)];
    }
    EXPECT_EQ(inference.size(), 1u) << r.output;
    EXPECT_EQ(train.size(), 3u) << r.output;
    for (const auto& [node, n] : train) EXPECT_EQ(inference.count(node), 0u) << node;
  }
}

// Issue #32 item 9: schedule as a CI gate. kube leaves the three training
// pods pending: exit 6 with --fail-on-pending, and in -o yaml each pending
// pod carries kube-scheduler's condition; dra-pack places all: exit 0.
TEST(ExamplesCliTest, FailOnPendingAndThePodScheduledCondition) {
  CommandResult r = RunCommand(kBin + " schedule --fail-on-pending -f " + ShellQuote(kPacking));
  EXPECT_EQ(r.exit_code, 6) << r.output;
  EXPECT_TRUE(Contains(r.output, "8 placed, 3 pending")) << r.output;
  r = RunCommand(kBin + " schedule --fail-on-pending --policy dra-pack -f " + ShellQuote(kPacking));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = RunCommand(kBin + " schedule -o yaml -f " + ShellQuote(kPacking) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string condition =
      "  status:\n    conditions:\n    - type: PodScheduled\n      status: \"False\"\n      reason: Unschedulable\n"
      "      message: '0/4 nodes are available: 4 cannot allocate all claims.'\n";
  size_t n = 0;
  for (size_t at = r.output.find(condition); at != std::string::npos; at = r.output.find(condition, at + 1)) ++n;
  EXPECT_EQ(n, 3u) << r.output;
  // The output loads and validates.
  const std::string out = WriteTemp("packing-scheduled", "out.yaml", r.output);
  r = RunCommand(kBin + " validate -f " + ShellQuote(out));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// Issue #32 item 7: replicas with the same verdict are explained once. The
// Job's three training pods fail alike; so do the two replicas of a
// Deployment asking for 16 GPUs (its ReplicaSet is named by the Deployment).
TEST(ExamplesCliTest, ReplicasWithTheSameVerdictAreExplainedOnce) {
  const std::string huge = WriteTemp(
      "replicas", "huge.yaml",
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {namespace: ml, name: sixteen}\n"
      "spec:\n  spec:\n    devices:\n      requests:\n      - name: gpus\n"
      "        exactly: {deviceClassName: gpu.nvidia.com, count: 16}\n"
      "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {namespace: ml, name: huge}\nspec:\n  replicas: 2\n"
      "  selector: {matchLabels: {app: huge}}\n  template:\n    metadata: {labels: {app: huge}}\n    spec:\n"
      "      resourceClaims: [{name: gpus, resourceClaimTemplateName: sixteen}]\n"
      "      containers: [{name: c, image: x, resources: {claims: [{name: gpus}]}}]\n");
  CommandResult r = RunCommand(kBin + " explain --all-pending -f " + ShellQuote(kPacking) + " -f " + ShellQuote(huge) +
                               " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(CountLines(r.output, "3 pods of Job ml/train (ml/train-"), 1) << r.output;
  EXPECT_EQ(CountLines(r.output, "2 pods of Deployment ml/huge (ml/huge-"), 1) << r.output;
  EXPECT_EQ(CountLines(r.output, "pod ml/train-"), 0) << r.output;
  // -o json still lists every pod.
  r = RunCommand(kBin + " explain --all-pending -o json -f " + ShellQuote(kPacking) + " -f " + ShellQuote(huge) +
                 " 2>/dev/null");
  size_t pods = 0;
  for (size_t at = r.output.find("\"pod\": \"ml/"); at != std::string::npos;
       at = r.output.find("\"pod\": \"ml/", at + 1)) {
    ++pods;
  }
  EXPECT_EQ(pods, 5u) << r.output;
}

TEST(ExamplesCliTest, PackingExampleProfileFromAFile) {
  // A profile of the inference Deployment alone: every GPU serves it, nothing
  // keeps whole nodes free, and the note names the file.
  const std::string profile =
      WriteTemp("packing-profile", "profile.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: sample}\nspec:\n"
                "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
                "  containers:\n  - name: c\n    image: x\n    resources:\n      requests: {cpu: \"4\"}\n"
                "      claims: [{name: gpu}]\n");
  CommandResult r = RunCommand(kBin + " schedule --policy dra-pack --workload-profile " + ShellQuote(profile) + " -f " +
                               ShellQuote(kPacking));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "measures fragmentation against --workload-profile " + profile +
                                     ": 1 pod, 1 shape, 1 typical covering 100.0%"))
      << r.output;
  // A profile file with an error is an input error with file:line.
  WriteTemp("packing-profile", "profile.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: sample}\nspec:\n  containers: 3\n");
  r = RunCommand(kBin + " schedule --policy dra-pack --workload-profile " + ShellQuote(profile) + " -f " +
                 ShellQuote(kPacking));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, profile + ":5:")) << r.output;
  // With a policy that does not use it, a note says so.
  r = RunCommand(kBin + " schedule --workload-profile " + ShellQuote(profile) + " -f " + ShellQuote(kPacking));
  EXPECT_TRUE(Contains(r.output, "--workload-profile is for --policy fgd and dra-pack")) << r.output;
}

// dractl plan on the example cluster with examples/node-groups (dgx-h100 at
// 98.32 a node, at most 4; hgx-h200 at 112, at most 2), worked out by hand:
// what fits is bound first (the table above), leaving two pods pending.
//   - llama-pretrain-8xh100: its claim wants 8 GPUs of CC >= 9.0 sharing
//     gpu.nvidia.com/productName and gpu.nvidia.com/partition8. Only the DGX
//     H100 template's GPUs carry partition8, and one such node (224 cpu,
//     2003Gi) holds the pod's 96 cpu and 1000Gi: one dgx-h100, 98.32.
//   - llama-405b-fp16: 16 GPUs in one claim; no template has more than 8.
TEST(ExamplesCliTest, PlanAddsOneDgxH100) {
  const std::string groups = std::string(DRA_SOURCE_DIR) + "/examples/node-groups";
  CommandResult r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-groups " + ShellQuote(groups) +
                               " -o json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {R"("nodeGroup": "dgx-h100")", R"("count": 1)", R"("cost": 98.32)", R"("lowerBound": 98.32)",
                           R"("pending": 2)", R"("pod": "ml-training/llama-405b-fp16")", R"("node": "dgx-h100-0")"}) {
    EXPECT_TRUE(Contains(r.output, want)) << want << "\n" << r.output;
  }
  EXPECT_FALSE(Contains(r.output, "hgx-h200")) << r.output;
  // explain's analysis says why the 405B pod can never fit.
  EXPECT_TRUE(Contains(r.output, "no node has more than 8 devices matching class") &&
              Contains(r.output, "the request asks for 16"))
      << r.output;
  // With the H200 group alone nothing helps: both pods stay unschedulable.
  r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-groups " + ShellQuote(groups + "/hgx-h200.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "with the plan 0 placed on new nodes, 2 unschedulable")) << r.output;
  // The same from the cluster's own node as the template (--node-group-from).
  r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-group-from dgx-h100-01=dgx:2:98.32 -o json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, R"("nodeGroup": "dgx")") && Contains(r.output, R"("cost": 98.32)")) << r.output;
  r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-group-from nope=dgx:2:1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "no node nope in the cluster")) << r.output;
  r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-group-from dgx-h100-01=dgx:0:1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // A node group with maxSize below minSize is an input error at its line.
  const std::string bad = WriteTemp("plan-groups", "bad.yaml",
                                    "apiVersion: dractl.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: g}\nspec:\n"
                                    "  minSize: 3\n  maxSize: 2\n  price: 1\n  template:\n    node: {apiVersion: v1, "
                                    "kind: Node, metadata: {name: t}}\n");
  r = RunCommand(kBin + " plan -f " + ShellQuote(kExample) + " --node-groups " + ShellQuote(bad));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, bad + ":6:12: NodeGroup g: spec.maxSize: Invalid value: 2: must be greater than or "
                                       "equal to minSize (3)"))
      << r.output;
}

}  // namespace
}  // namespace dra::testing
