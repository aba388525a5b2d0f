// End-to-end tests of `dractl schedule` on tests/sched/data: the A100 MIG
// nodes and the GPU+NIC node of testdata/fixtures plus hand-written Nodes and
// Pods (see data/nodes.yaml and data/pods.yaml for the reasoning behind each
// expected placement), and a cross-check against `dractl allocate`. The data's
// mig-1g5gb.yaml holds the `notebooks` Deployment, which pods.yaml stands in
// for by hand, so these runs pass `--workloads ignore` (workload expansion is
// tested in examples_cli_test.cc and src/sched/workloads_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/run_command.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/loader.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kBin = DRACTL_BIN;
const std::string kData = std::string(DRA_SOURCE_DIR) + "/tests/sched/data";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The table line of `pod` with the column padding squeezed: "NODE  DEVICES
// OR REASON" (the pod name left out), or "" if the pod is not listed.
std::string LineOf(const std::string& table, const std::string& pod) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(pod + " ", 0) != 0) continue;
    std::string rest = line.substr(pod.size());
    rest.erase(0, rest.find_first_not_of(' '));
    size_t node_end = rest.find(' ');
    if (node_end == std::string::npos) return rest;
    std::string tail = rest.substr(node_end);
    tail.erase(0, tail.find_first_not_of(' '));
    return rest.substr(0, node_end) + "  " + tail;
  }
  return "";
}

TEST(ScheduleCliTest, PlacesPodsAsWorkedOutByHand) {
  CommandResult r = RunCommand(kBin + " schedule --workloads ignore -f " + ShellQuote(kData));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& t = r.output;
  // web: priority 1000, first in the queue; the only node without the GPU taint.
  EXPECT_EQ(LineOf(t, "default/web"), "cpu-01  -") << t;
  // The two fixture pods come next (no creationTimestamp).
  // ocr-pipeline: 1g.5gb + 2g.10gb on one GPU; ip-10-0-42-88 is less loaded
  // (the trainer holds 48 CPUs of ip-10-0-42-17); its first GPU has both.
  EXPECT_TRUE(Contains(LineOf(t, "mig-tenants/ocr-pipeline"),
                       "ip-10-0-42-88.us-west-2.compute.internal  migs: "
                       "gpu.nvidia.com/ip-10-0-42-88.us-west-2.compute.internal/gpu-0-mig-1g5gb-19-2,"
                       "gpu.nvidia.com/ip-10-0-42-88.us-west-2.compute.internal/gpu-0-mig-2g10gb-14-0"))
      << t;
  // nccl-tests-rdma: only l40s-rdma-03 has VFs; gpu-0 with the first VF of
  // ens1f0np0 (same root pci0000:15) comes first in search order.
  EXPECT_TRUE(Contains(LineOf(t, "rdma-inference/nccl-tests-rdma"),
                       "l40s-rdma-03  devices: gpu.nvidia.com/l40s-rdma-03/gpu-0,"
                       "sriovnetwork.k8snetworkplumbingwg.io/l40s-rdma-03/0000-17-00-2"))
      << t;
  // notebooks: the next free 1g.5gb devices on ip-10-0-42-88.
  EXPECT_TRUE(Contains(LineOf(t, "mig-tenants/notebook-0"),
                       "ip-10-0-42-88.us-west-2.compute.internal  mig: "
                       "gpu.nvidia.com/ip-10-0-42-88.us-west-2.compute.internal/gpu-0-mig-1g5gb-19-3"))
      << t;
  EXPECT_TRUE(Contains(LineOf(t, "mig-tenants/notebook-1"),
                       "ip-10-0-42-88.us-west-2.compute.internal  mig: "
                       "gpu.nvidia.com/ip-10-0-42-88.us-west-2.compute.internal/gpu-1-mig-1g5gb-19-2"))
      << t;
  // notebook-pinned: nodeSelector picks the DynamicMIG node.
  EXPECT_TRUE(Contains(LineOf(t, "mig-tenants/notebook-pinned"),
                       "ip-10-0-42-17.us-west-2.compute.internal  mig: "
                       "gpu.nvidia.com/ip-10-0-42-17.us-west-2.compute.internal/gpu-0-mig-1g5gb-19-0"))
      << t;
  // nccl-1 takes the other aligned pair; nccl-2 finds none anywhere.
  EXPECT_TRUE(Contains(LineOf(t, "rdma-inference/nccl-1"),
                       "l40s-rdma-03  devices: gpu.nvidia.com/l40s-rdma-03/gpu-2,"
                       "sriovnetwork.k8snetworkplumbingwg.io/l40s-rdma-03/0000-99-00-2"))
      << t;
  EXPECT_TRUE(
      Contains(LineOf(t, "rdma-inference/nccl-2"), "<pending>  0/4 nodes are available: 4 cannot allocate all claims."))
      << t;
  // huge: no toleration for the GPU taint, and cpu-01 has 16 CPUs.
  EXPECT_TRUE(Contains(LineOf(t, "default/huge"),
                       "<pending>  0/4 nodes are available: 1 Insufficient cpu, 3 node(s) had untolerated taint(s)."))
      << t;
  EXPECT_TRUE(Contains(t, "7 placed, 2 pending")) << t;
  // The running trainer is not listed.
  EXPECT_EQ(LineOf(t, "mig-tenants/trainer"), "");
}

TEST(ScheduleCliTest, HelpAndUsage) {
  CommandResult help = RunCommand(kBin + " schedule --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "--policy")) << help.output;
  EXPECT_TRUE(Contains(help.output, "--seed")) << help.output;
  EXPECT_EQ(RunCommand(kBin + " schedule --workloads ignore -f " + ShellQuote(kData) + " --policy spread").exit_code,
            2);
  EXPECT_EQ(RunCommand(kBin + " schedule").exit_code, 2);
  fs::path bad = fs::temp_directory_path() / "dractl_sched_bad.yaml";
  std::ofstream(bad) << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Bad_Name}\n";
  EXPECT_EQ(RunCommand(kBin + " schedule --workloads ignore -f " + ShellQuote(bad.string())).exit_code, 1);
}

TEST(ScheduleCliTest, BinpackIsDeterministicAndFillsNodes) {
  CommandResult a = RunCommand(kBin + " schedule --workloads ignore --policy binpack --seed 7 -f " + ShellQuote(kData));
  CommandResult b = RunCommand(kBin + " schedule --workloads ignore --policy binpack --seed 7 -f " + ShellQuote(kData));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  // MostAllocated: the busier DynamicMIG node (trainer) attracts the MIG pods.
  EXPECT_TRUE(Contains(LineOf(a.output, "mig-tenants/notebook-0"), "ip-10-0-42-17.us-west-2.compute.internal"))
      << a.output;
}

manifest::LoadResult LoadFile(const std::string& path) {
  manifest::LoadResult out;
  manifest::Loader(manifest::LoadOptions{}).LoadPath(path, &out);
  return out;
}

// `-o yaml` output validates, loads back, and every placed pod's claims get
// the same devices from `dractl allocate` on its node with the earlier
// placements in use.
TEST(ScheduleCliTest, YamlOutputValidatesAndMatchesAllocate) {
  fs::path dir = fs::temp_directory_path() / "dractl_sched_test";
  fs::create_directories(dir);
  const std::string out_yaml = (dir / "out.yaml").string();
  CommandResult r = RunCommand("(" + kBin + " schedule --workloads ignore -o yaml -f " + ShellQuote(kData) +
                               " 2>/dev/null) > " + ShellQuote(out_yaml));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  CommandResult v = RunCommand(kBin + " validate -f " + ShellQuote(kData) + " -f " + ShellQuote(out_yaml));
  // The output repeats the input pods (updated), so validate may warn about duplicates, but no errors.
  EXPECT_EQ(v.exit_code, 0) << v.output;
  CommandResult json = RunCommand("(" + kBin + " schedule --workloads ignore -o json -f " + ShellQuote(kData) +
                                  " 2>/dev/null) > " + ShellQuote((dir / "out.json").string()));
  ASSERT_EQ(json.exit_code, 0);
  EXPECT_EQ(RunCommand(kBin + " validate -f " + ShellQuote((dir / "out.json").string())).exit_code, 0);

  manifest::LoadResult loaded = LoadFile(out_yaml);
  ASSERT_EQ(loaded.error_count(), 0u);
  std::map<std::string, api::ResourceClaim> claims;  // "ns/name"
  std::vector<api::Pod> pods;
  for (const manifest::LoadedObject& o : loaded.objects) {
    if (const auto* c = std::get_if<api::ResourceClaim>(&o.object)) {
      claims[c->metadata.namespace_ + "/" + c->metadata.name] = *c;
    }
    if (const auto* p = std::get_if<api::Pod>(&o.object); p != nullptr && !p->spec.node_name.empty()) {
      pods.push_back(*p);
    }
  }
  // Queue order = table order.
  CommandResult table = RunCommand(kBin + " schedule --workloads ignore -f " + ShellQuote(kData));
  std::vector<api::Pod> ordered;
  std::istringstream in(table.output);
  std::string line;
  while (std::getline(in, line)) {
    for (const api::Pod& p : pods) {
      if (line.rfind(p.metadata.namespace_ + "/" + p.metadata.name + " ", 0) == 0) ordered.push_back(p);
    }
  }
  ASSERT_EQ(ordered.size(), 7u) << table.output;
  std::vector<manifest::Node> earlier;  // claims allocated by earlier pods
  int checked = 0;
  for (const api::Pod& pod : ordered) {
    std::vector<std::string> keys;
    for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
      if (s.resource_claim_name) keys.push_back(pod.metadata.namespace_ + "/" + *s.resource_claim_name);
    }
    if (keys.empty()) continue;
    std::vector<manifest::Node> docs = earlier;
    std::string flags;
    for (const std::string& k : keys) {
      ASSERT_EQ(claims.count(k), 1u) << k;
      docs.push_back(manifest::EncodeObject(api::Object(claims[k])));
      flags += " --claim " + k;
    }
    const std::string in_path = (dir / "in.yaml").string();
    std::ofstream(in_path) << manifest::EmitYamlDocuments(docs);
    const std::string got_path = (dir / "got.yaml").string();
    CommandResult a = RunCommand("(" + kBin + " allocate -f " + ShellQuote(kData) + " -f " + ShellQuote(in_path) +
                                 " --node " + pod.spec.node_name + flags + " 2>/dev/null) > " + ShellQuote(got_path));
    ASSERT_EQ(a.exit_code, 0) << pod.metadata.name << ": " << a.output;
    manifest::LoadResult got = LoadFile(got_path);
    ASSERT_EQ(got.error_count(), 0u);
    for (const manifest::LoadedObject& o : got.objects) {
      const auto* c = std::get_if<api::ResourceClaim>(&o.object);
      ASSERT_NE(c, nullptr);
      const api::ResourceClaim& want = claims[c->metadata.namespace_ + "/" + c->metadata.name];
      ASSERT_TRUE(c->status.allocation && want.status.allocation);
      EXPECT_EQ(c->status.allocation->devices.results, want.status.allocation->devices.results) << pod.metadata.name;
      ++checked;
    }
    for (const std::string& k : keys) earlier.push_back(manifest::EncodeObject(api::Object(claims[k])));
  }
  EXPECT_EQ(checked, 6);  // every placed pod except web has one claim
}

// dractl gen: 2 nodes x 1 device and 3 pods of one device each: two are
// placed, one on each node, the third stays pending for want of a device.
// `dractl gen cluster` and `gen pods` written into a fresh folder `dir`;
// the files' paths, or empty strings if either command failed (the failure is
// recorded).
struct GenInputs {
  std::string cluster;
  std::string pods;
};
GenInputs Generate(const fs::path& dir, const std::string& cluster_args, const std::string& pod_args) {
  fs::create_directories(dir);
  const std::string cluster = (dir / "cluster.yaml").string();
  const std::string pods = (dir / "pods.yaml").string();
  CommandResult r = RunCommand(kBin + " gen cluster " + cluster_args + " --out " + ShellQuote(cluster));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return {};
  r = RunCommand(kBin + " gen pods " + pod_args + " --out " + ShellQuote(pods));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return {};
  return {cluster, pods};
}

TEST(GenCliTest, GeneratedInputsSchedule) {
  const fs::path dir = fs::temp_directory_path() / ("dractl-gen-" + std::to_string(::getpid()));
  const auto [cluster, pods] = Generate(dir, "--nodes 2 --devices-per-node 1", "--pods 3");
  ASSERT_FALSE(cluster.empty());
  CommandResult r = RunCommand(kBin + " schedule -f " + ShellQuote(cluster) + " -f " + ShellQuote(pods));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "2 placed, 1 pending")) << r.output;
  EXPECT_TRUE(Contains(LineOf(r.output, "default/pod-00002"), "0/2 nodes are available: 2 cannot allocate all claims."))
      << r.output;
  EXPECT_NE(LineOf(r.output, "default/pod-00000").substr(0, 9), LineOf(r.output, "default/pod-00001").substr(0, 9))
      << r.output;
  r = RunCommand(kBin + " gen cluster --nodes 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "nodes must be between 1 and 100000, got 0")) << r.output;
  r = RunCommand(kBin + " gen cluster --models H100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--models: model \"H100\": want NAME:MEMORY")) << r.output;
  fs::remove_all(dir);
}

// explain --all-pending sees each pod's turn exactly as `schedule` plays it,
// also where Filter samples nodes (over 100 nodes, the search starts where
// the previous pod's stopped): the claims explain names as holding a node's
// devices are those of the pods schedule put there. (An earlier explain
// scheduled each pod in a run of its own and disagreed.)
TEST(GenCliTest, ExplainAllPendingAgreesWithScheduleWhenNodesAreSampled) {
  const fs::path dir = fs::temp_directory_path() / ("dractl-explain-" + std::to_string(::getpid()));
  const GenInputs in = Generate(dir, "--nodes 120 --devices-per-node 2", "--pods 250");
  ASSERT_FALSE(in.cluster.empty());
  const std::string inputs = " -f " + ShellQuote(in.cluster) + " -f " + ShellQuote(in.pods);
  CommandResult s = RunCommand(kBin + " schedule" + inputs);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  ASSERT_TRUE(Contains(s.output, "240 placed, 10 pending")) << s.output;
  CommandResult e = RunCommand(kBin + " explain --all-pending" + inputs);
  ASSERT_EQ(e.exit_code, 0) << e.output;
  for (const std::string node : {"node-0000", "node-0061", "node-0119"}) {
    std::vector<std::string> placed;  // pod names, in table (queue) order
    std::istringstream table(s.output);
    for (std::string line; std::getline(table, line);) {
      std::istringstream fields(line);
      std::string pod, on;
      fields >> pod >> on;
      if (on == node) placed.push_back(pod);
    }
    ASSERT_EQ(placed.size(), 2u) << node << "\n" << s.output;
    // "  node node-0000: claim ... (2 in use by default/pod-00004-gpu-xxxxx, default/pod-00133-gpu-yyyyy)"
    const size_t at = e.output.find("  node " + node + ":");
    ASSERT_NE(at, std::string::npos) << e.output.substr(0, 2000);
    const std::string line = e.output.substr(at, e.output.find('\n', at) - at);
    for (const std::string& pod : placed) EXPECT_TRUE(Contains(line, pod + "-gpu-")) << pod << " not in: " << line;
  }
  fs::remove_all(dir);
}

// --policy best-fit fills the node with the fewest free devices; kube's
// LeastAllocated spreads the same pods (3 nodes x 4 devices, 4 one-device
// pods).
TEST(GenCliTest, BestFitPacksWhereKubeSpreads) {
  const fs::path dir = fs::temp_directory_path() / ("dractl-bestfit-" + std::to_string(::getpid()));
  // Not a structured binding: the lambda below captures the paths.
  // Pods of an eighth of a node's cpu and memory: LeastAllocated spreads
  // them. (Tiny pods would not spread: 1.37's BalancedAllocation scores a
  // node that already runs one 1 point higher, by truncation, and
  // kube-scheduler 1.37.2 packs them too, as tools/oracle `schedule` shows.)
  const GenInputs in =
      Generate(dir, "--nodes 3 --devices-per-node 4", "--pods 4 --cpu-milli 16000 --memory-mib 131072");
  const std::string& cluster = in.cluster;
  const std::string& pods = in.pods;
  ASSERT_FALSE(cluster.empty());
  auto nodes_used = [&](const std::string& policy) {
    CommandResult s =
        RunCommand(kBin + " schedule --policy " + policy + " -f " + ShellQuote(cluster) + " -f " + ShellQuote(pods));
    EXPECT_EQ(s.exit_code, 0) << s.output;
    EXPECT_TRUE(Contains(s.output, "4 placed, 0 pending")) << s.output;
    std::set<std::string> nodes;
    for (int i = 0; i < 4; ++i) {
      std::string line = LineOf(s.output, "default/pod-0000" + std::to_string(i));
      nodes.insert(line.substr(0, line.find(' ')));
    }
    return nodes;
  };
  EXPECT_EQ(nodes_used("best-fit").size(), 1u);
  EXPECT_EQ(nodes_used("kube").size(), 3u);
  CommandResult r = RunCommand(kBin + " schedule --policy worst-fit -f " + ShellQuote(cluster));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "best-fit")) << r.output;
  fs::remove_all(dir);
}

// --device-choice on tests/sched/best-fit/mig-alternating.yaml (its header
// works the placements out): first fit strands the sixth 4g.20gb, best fit
// places all twelve pods. --policy best-fit picks best fit by default.
TEST(ScheduleCliTest, BestFitDeviceChoiceKeepsMigPlacementsOpen) {
  const std::string inputs = " -f " + ShellQuote(kData + "/node-a100-40gb-mig.yaml") + " -f " +
                             ShellQuote(kData + "/nvidia-deviceclasses.yaml") + " -f " +
                             ShellQuote(std::string(DRA_SOURCE_DIR) + "/tests/sched/best-fit/mig-alternating.yaml");
  const std::string node = "ip-10-0-42-17.us-west-2.compute.internal";
  const std::string pool = "gpu.nvidia.com/" + node + "/";
  CommandResult first = RunCommand(kBin + " schedule --device-choice first-fit" + inputs);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(Contains(first.output, "11 placed, 1 pending")) << first.output;
  EXPECT_EQ(LineOf(first.output, "mig/small-1"), node + "  gpu: " + pool + "gpu-0-mig-1g5gb-19-0") << first.output;
  EXPECT_EQ(LineOf(first.output, "mig/large-1"), node + "  gpu: " + pool + "gpu-1-mig-4g20gb-5-0") << first.output;
  EXPECT_EQ(LineOf(first.output, "mig/large-6"), "<pending>  0/1 nodes are available: 1 cannot allocate all claims.")
      << first.output;

  for (const std::string flags : {" --device-choice best-fit", " --policy best-fit", " --policy binpack"}) {
    CommandResult best = RunCommand(kBin + " schedule" + flags + inputs);
    ASSERT_EQ(best.exit_code, 0) << flags << "\n" << best.output;
    EXPECT_TRUE(Contains(best.output, "12 placed, 0 pending")) << flags << "\n" << best.output;
    EXPECT_EQ(LineOf(best.output, "mig/small-1"), node + "  gpu: " + pool + "gpu-0-mig-1g5gb-19-6") << best.output;
    EXPECT_EQ(LineOf(best.output, "mig/large-1"), node + "  gpu: " + pool + "gpu-0-mig-4g20gb-5-0") << best.output;
    EXPECT_EQ(LineOf(best.output, "mig/large-6"), node + "  gpu: " + pool + "gpu-5-mig-4g20gb-5-0") << best.output;
  }
  CommandResult kube = RunCommand(kBin + " schedule --policy kube" + inputs);
  EXPECT_TRUE(Contains(kube.output, "11 placed, 1 pending")) << kube.output;
  CommandResult bad = RunCommand(kBin + " schedule --device-choice worst-fit" + inputs);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "--device-choice")) << bad.output;
}

// Extended resources backed by DRA on tests/sched/extended/cluster.yaml (its
// header works each outcome out), with the shared NVIDIA fixtures.
TEST(ScheduleCliTest, ExtendedResourcesBackedByDra) {
  const std::string fixtures = std::string(DRA_TESTDATA_DIR) + "/fixtures/nvidia/";
  const std::string inputs = " -f " + ShellQuote(fixtures + "node-l4.yaml") + " -f " +
                             ShellQuote(fixtures + "deviceclasses.yaml") + " -f " +
                             ShellQuote(std::string(DRA_SOURCE_DIR) + "/tests/sched/extended/cluster.yaml");
  const std::string node = "gke-inference-l4-pool-3f9a1c2e-k8xq";
  const std::string gpu = "gpu.nvidia.com/" + node + "/gpu-";
  CommandResult r = RunCommand(kBin + " schedule" + inputs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/a-one-gpu"), node + "  <extended-resources>: " + gpu + "0") << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/b-init"), node + "  <extended-resources>: " + gpu + "1," + gpu + "2") << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/c-implicit"), node + "  <extended-resources>: " + gpu + "3") << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/d-plugin"), "dp-node  -") << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/e-no-gpu-left"),
            "<pending>  0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node "
            "affinity/selector.")
      << r.output;
  EXPECT_EQ(LineOf(r.output, "ml/f-fpga"), "<pending>  0/2 nodes are available: 2 Insufficient example.com/fpga.")
      << r.output;

  // -o yaml: the claims as PreBind creates them and the pods' status.
  CommandResult y = RunCommand("(" + kBin + " schedule -o yaml" + inputs + " 2>/dev/null)");
  ASSERT_EQ(y.exit_code, 0) << y.output;
  manifest::LoadResult loaded;
  manifest::Loader(manifest::LoadOptions{}).LoadText(y.output, "out.yaml", &loaded);
  ASSERT_EQ(loaded.error_count(), 0u) << y.output;
  int claims = 0;
  for (const manifest::LoadedObject& o : loaded.objects) {
    if (const auto* c = std::get_if<api::ResourceClaim>(&o.object)) {
      ++claims;
      EXPECT_EQ(*c->metadata.annotations.find("resource.kubernetes.io/extended-resource-claim"), "true");
      ASSERT_TRUE(c->status.allocation.has_value()) << c->metadata.name;
      if (c->metadata.name.rfind("b-init-", 0) == 0) {
        ASSERT_EQ(c->spec.devices.requests.size(), 2u);
        EXPECT_EQ(c->spec.devices.requests[0].name, "container-0-request-0");
        EXPECT_EQ(c->spec.devices.requests[1].name, "container-1-request-1");
      }
    }
    if (const auto* p = std::get_if<api::Pod>(&o.object); p != nullptr && p->metadata.name == "b-init") {
      ASSERT_TRUE(p->status.extended_resource_claim_status.has_value());
      const auto& st = *p->status.extended_resource_claim_status;
      EXPECT_EQ(st.resource_claim_name.rfind("b-init-extended-resources-", 0), 0u);
      ASSERT_EQ(st.request_mappings.size(), 3u);
      EXPECT_EQ(st.request_mappings[0].container_name, "main");
      EXPECT_EQ(st.request_mappings[2].container_name, "prep");
      EXPECT_EQ(st.request_mappings[2].request_name, "container-0-request-0");
    }
  }
  EXPECT_EQ(claims, 3);

  // explain names the special claim and who holds the GPUs.
  CommandResult e = RunCommand(kBin + " explain" + inputs + " ml/e-no-gpu-left");
  EXPECT_EQ(e.exit_code, 0) << e.output;
  EXPECT_TRUE(Contains(e.output,
                       "claim ml/<extended-resources> request container-0-request-0: 1 wanted, 4 match "
                       "class gpu.nvidia.com (4 in use by ml/a-one-gpu-extended-resources-"))
      << e.output;
}

}  // namespace
}  // namespace dra::testing
