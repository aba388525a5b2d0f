// End-to-end tests of `dractl migrate` (issue #25) with the built binary:
// the migrated NVIDIA workloads of data/nvidia-workloads.yaml validate and
// schedule on the NVIDIA fixtures onto the kind of device their labels and
// resource names asked for; --check on data/cluster-nodes.yaml; -o json; the
// README's example (examples/device-plugin); errors and usage.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/run_command.h"
#include "manifest/json_parser.h"
#include "manifest/yaml_parser.h"

namespace dra::testing {
namespace {

const std::string kBin = DRACTL_BIN;
const std::string kSource = DRA_SOURCE_DIR;
const std::string kData = kSource + "/tests/migrate/data";
const std::string kNvidia = kSource + "/testdata/fixtures/nvidia";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> LinesStartingWith(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

// `line` with runs of spaces squeezed to one.
std::string Squeeze(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

class MigrateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "migrate_cli_" + std::to_string(::getpid());
    RunCommand("mkdir -p " + dir_);
  }
  void TearDown() override { RunCommand("rm -rf " + dir_); }
  std::string dir_;
};

// Migrated, the workloads validate, and `dractl schedule` on the NVIDIA
// fixtures puts each on the kind of device the device-plugin labels and
// names asked for: the H100 trainer on dgx-h100-01 (2 GPUs); big-memory on
// a GPU with more than 40959 MiB: an H100 (81559Mi) or an H200 (143771Mi),
// not an A100 of the DynamicMIG node (40192Mi), an L4 or an A10; the
// notebook on a 1g.5gb MIG device; the five L4 pods on five L4s (the pool
// node has 4, the shared node 2).
TEST_F(MigrateCliTest, NvidiaFixturesValidateAndScheduleOnTheKindTheLabelsAskedFor) {
  const std::string out = dir_ + "/migrated.yaml";
  // RunCommand captures stderr; stdout goes to the file.
  CommandResult m = RunCommand("(" + kBin + " migrate -f " + kData + "/nvidia-workloads.yaml --cluster " + kNvidia +
                               "/deviceclasses.yaml > " + out + ")");
  ASSERT_EQ(m.exit_code, 0) << m.output;
  EXPECT_TRUE(Contains(m.output,
                       "dractl migrate: 4 workloads rewritten, 4 ResourceClaimTemplates, 0 DeviceClasses "
                       "added"))
      << m.output;

  CommandResult v = RunCommand(kBin + " validate -f " + kNvidia + "/deviceclasses.yaml -f " + out);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_TRUE(Contains(v.output, ": 0 errors, 0 warnings")) << v.output;

  std::string cluster;
  for (const char* f : {"deviceclasses", "node-dgx-h100", "node-h200", "node-a100-40gb-mig", "node-l4", "node-a10"}) {
    cluster += " -f " + kNvidia + "/" + f + ".yaml";
  }
  CommandResult s = RunCommand(kBin + " schedule" + cluster + " -f " + out);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(Contains(s.output, "8 placed, 0 pending")) << s.output;

  std::vector<std::string> h100 = LinesStartingWith(s.output, "ml/h100-trainer-");
  ASSERT_EQ(h100.size(), 1u) << s.output;
  EXPECT_TRUE(
      Contains(Squeeze(h100[0]), " dgx-h100-01 gpu: gpu.nvidia.com/dgx-h100-01/gpu-0,gpu.nvidia.com/dgx-h100-01/gpu-1"))
      << h100[0];

  std::vector<std::string> big = LinesStartingWith(s.output, "ml/big-memory-");
  ASSERT_EQ(big.size(), 1u) << s.output;
  EXPECT_TRUE(Contains(big[0], "gpu: gpu.nvidia.com/dgx-h100-01/gpu-") ||
              Contains(big[0], "gpu: gpu.nvidia.com/hgx-h200-07/gpu-"))
      << big[0];

  std::vector<std::string> notebook = LinesStartingWith(s.output, "ml/notebook ");
  ASSERT_EQ(notebook.size(), 1u) << s.output;
  EXPECT_TRUE(Contains(notebook[0], "mig-1g-5gb: gpu.nvidia.com/ip-10-0-42-") &&
              Contains(notebook[0], "-mig-1g5gb-19-"))
      << notebook[0];

  std::vector<std::string> l4 = LinesStartingWith(s.output, "ml/l4-inference-");
  ASSERT_EQ(l4.size(), 5u) << s.output;
  std::set<std::string> devices;
  for (const std::string& line : l4) {
    const size_t at = line.find("gpu-shared: gpu.nvidia.com/gke-inference-l4-");
    ASSERT_NE(at, std::string::npos) << line;
    devices.insert(line.substr(at));
  }
  EXPECT_EQ(devices.size(), 5u) << s.output;  // an L4 each
}

// --check on data/cluster-nodes.yaml (its header explains the nodes): every
// pod stays on its kind of device (H100, H200 by cpu, the A100's 1g.5gb,
// L4), but only 4 of the 5 time-sliced L4 pods fit once each has an L4 of
// its own: the pool node has 4 (the shared node has no Node object here).
TEST_F(MigrateCliTest, CheckListsThePodThatNoLongerFits) {
  std::string cluster = " --cluster " + kData + "/cluster-nodes.yaml";
  for (const char* f : {"deviceclasses", "node-dgx-h100", "node-h200", "node-a100-40gb-mig", "node-l4"}) {
    cluster += " --cluster " + kNvidia + "/" + f + ".yaml";
  }
  CommandResult c = RunCommand(kBin + " migrate -f " + kData + "/nvidia-workloads.yaml" + cluster + " --check");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  std::vector<std::string> big = LinesStartingWith(c.output, "ml/big-memory-");
  ASSERT_EQ(big.size(), 1u) << c.output;
  EXPECT_TRUE(Contains(Squeeze(big[0]), " hgx-h200-07 (NVIDIA-H200) hgx-h200-07 (NVIDIA-H200) same kind")) << big[0];
  std::vector<std::string> h100 = LinesStartingWith(c.output, "ml/h100-trainer-");
  ASSERT_EQ(h100.size(), 1u) << c.output;
  EXPECT_TRUE(
      Contains(Squeeze(h100[0]), " dgx-h100-01 (NVIDIA-H100-80GB-HBM3) dgx-h100-01 (NVIDIA-H100-80GB-HBM3) same kind"))
      << h100[0];
  std::vector<std::string> notebook = LinesStartingWith(c.output, "ml/notebook ");
  ASSERT_EQ(notebook.size(), 1u) << c.output;
  EXPECT_EQ(Squeeze(notebook[0]),
            "ml/notebook ip-10-0-42-88.us-west-2.compute.internal (NVIDIA-A100-SXM4-40GB MIG 1g.5gb) "
            "ip-10-0-42-88.us-west-2.compute.internal (NVIDIA-A100-SXM4-40GB MIG 1g.5gb) same kind");
  size_t same = 0, gone = 0;
  for (const std::string& line : LinesStartingWith(c.output, "ml/l4-inference-")) {
    std::string l = Squeeze(line);
    if (Contains(l,
                 " gke-inference-l4-pool-3f9a1c2e-k8xq (NVIDIA-L4) gke-inference-l4-pool-3f9a1c2e-k8xq "
                 "(NVIDIA-L4) same kind")) {
      ++same;
    }
    if (Contains(l, " gke-inference-l4-pool-3f9a1c2e-k8xq (NVIDIA-L4) <pending> NO LONGER FITS")) ++gone;
    if (Contains(l, ": 0/4 nodes are available: 4 cannot allocate all claims.")) ++gone;  // its reason line
  }
  EXPECT_EQ(same, 4u) << c.output;
  EXPECT_EQ(gone, 2u) << c.output;
  EXPECT_TRUE(Contains(c.output,
                       "8 pods: 7 on the same kind of device, 0 on a different kind, 1 no longer fit, 0 now "
                       "fit, 0 pending before and after, 0 of unknown kind before\n"))
      << c.output;
}

std::vector<manifest::Node> YamlDocs(const std::string& text) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseYaml(text, "out.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<manifest::Node> out;
  if (!docs.ok()) return out;
  for (manifest::Document& d : *docs) {
    if (!d.root.is_null()) out.push_back(std::move(d.root));
  }
  return out;
}

TEST_F(MigrateCliTest, JsonIsTheYamlOutputAsAList) {
  const std::string base = "(" + kBin + " migrate -f " + kData + "/nvidia-workloads.yaml 2>/dev/null";
  CommandResult yaml = RunCommand(base + ")");
  CommandResult json = RunCommand(base + " -o json)");
  ASSERT_EQ(yaml.exit_code, 0) << yaml.output;
  ASSERT_EQ(json.exit_code, 0) << json.output;
  StatusOr<std::vector<manifest::Document>> list = manifest::ParseJson(json.output, "out.json");
  ASSERT_TRUE(list.ok()) << list.status().ToString() << json.output;
  const manifest::Node* items = (*list)[0].root.Find("items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(Contains(json.output, "\"kind\": \"List\""), true);
  std::vector<manifest::Node> docs = YamlDocs(yaml.output);
  ASSERT_EQ(items->items.size(), docs.size());
  for (size_t i = 0; i < docs.size(); ++i) EXPECT_TRUE(items->items[i] == docs[i]) << i;
}

// The README's example: before.yaml migrated is after.yaml (written by
// hand; compared as objects, so comments and quoting do not matter).
TEST_F(MigrateCliTest, ExampleBeforeBecomesAfter) {
  const std::string ex = kSource + "/examples/device-plugin";
  CommandResult m =
      RunCommand("(" + kBin + " migrate -f " + ex + "/before.yaml --cluster " + ex + "/nodes.yaml --cluster " +
                 kSource + "/examples/cluster/deviceclasses.yaml 2>/dev/null)");
  ASSERT_EQ(m.exit_code, 0) << m.output;
  std::ifstream in(ex + "/after.yaml");
  std::stringstream want;
  want << in.rdbuf();
  std::vector<manifest::Node> got = YamlDocs(m.output);
  std::vector<manifest::Node> expected = YamlDocs(want.str());
  ASSERT_EQ(got.size(), expected.size()) << m.output;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i] == expected[i]) << "object " << i << "\n" << m.output;
}

TEST_F(MigrateCliTest, ErrorsNameTheLineAndUsageErrorsExit2) {
  const std::string bad = dir_ + "/bad.yaml";
  std::ofstream(bad) << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
                        "    resources:\n      limits:\n        nvidia.com/gpu: 1\n        amd.com/xgmi: 2\n";
  CommandResult r = RunCommand(kBin + " migrate -f " + bad);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, bad + ":11:9: Pod p: spec.containers[0].resources.limits[amd.com/xgmi]: cannot "
                                       "translate device-plugin resource amd.com/xgmi"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "dractl migrate: 1 error (see above): nothing printed")) << r.output;
  EXPECT_FALSE(Contains(r.output, "kind: ResourceClaimTemplate")) << r.output;

  CommandResult help = RunCommand(kBin + " migrate --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "dractl migrate -f workloads/")) << help.output;
  EXPECT_TRUE(Contains(help.output, "--check")) << help.output;
  EXPECT_EQ(RunCommand(kBin + " migrate").exit_code, 2);
  EXPECT_EQ(RunCommand(kBin + " migrate -f " + bad + " --mode plugins").exit_code, 2);
  CommandResult check = RunCommand(kBin + " migrate -f " + bad + " --check");
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_TRUE(Contains(check.output, "--check needs --cluster")) << check.output;
}

}  // namespace
}  // namespace dra::testing
