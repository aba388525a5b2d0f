// End-to-end tests of the dractl binary: help, version, usage errors, exit
// codes, validate on the shared fixtures, summary numbers, convert round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kBin = DRACTL_BIN;
const std::string kShared = DRA_TESTDATA_DIR;
const std::string kSource = DRA_SOURCE_DIR;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CliTest, TopLevelHelpVersionAndUsageErrors) {
  CommandResult help = RunCommand(kBin + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "validate")) << help.output;
  EXPECT_TRUE(Contains(help.output, "Exit codes")) << help.output;

  CommandResult version = RunCommand(kBin + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(Contains(version.output, "dractl 0.")) << version.output;

  CommandResult none = RunCommand(kBin);
  EXPECT_EQ(none.exit_code, 2);

  CommandResult unknown = RunCommand(kBin + " frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.output, "unknown command \"frobnicate\"")) << unknown.output;
}

TEST(CliTest, EverySubcommandHasHelpAndRejectsBadFlags) {
  for (const char* cmd : {"validate", "summary", "convert"}) {
    CommandResult help = RunCommand(kBin + " " + cmd + " --help");
    EXPECT_EQ(help.exit_code, 0) << cmd;
    EXPECT_TRUE(Contains(help.output, "--filename")) << cmd << help.output;
    CommandResult missing = RunCommand(kBin + " " + cmd);
    EXPECT_EQ(missing.exit_code, 2) << cmd << missing.output;
    EXPECT_TRUE(Contains(missing.output, "--filename is required")) << cmd << missing.output;
    CommandResult bad = RunCommand(kBin + " " + cmd + " -f x --no-such-flag");
    EXPECT_EQ(bad.exit_code, 2) << cmd << bad.output;
  }
}

// Issue #32 item 11: `dractl help CMD`, `-f=FILE` as kubectl takes it, and
// help texts a user can read: no parser type labels, no paths into the
// source tree.
TEST(CliTest, HelpReadsAsAUsersHelp) {
  CommandResult via_help = RunCommand(kBin + " help schedule");
  CommandResult via_flag = RunCommand(kBin + " schedule --help");
  EXPECT_EQ(via_help.exit_code, 0);
  EXPECT_EQ(via_help.output, via_flag.output);
  for (const char* cmd :
       {"validate", "summary", "convert", "cel run", "eval", "allocate", "schedule", "explain", "import", "simulate",
        "simulate replay", "simulate cluster", "gen", "gen cluster", "gen mig-pods", "discover", "serve"}) {
    CommandResult help = RunCommand(kBin + " " + cmd + " --help");
    EXPECT_EQ(help.exit_code, 0) << cmd;
    for (const char* label : {" TEXT", " UINT", " INT", " FLOAT", ":POSITIVE", ":NONNEGATIVE", "src/", "shared/"}) {
      EXPECT_FALSE(Contains(help.output, label)) << cmd << ": " << label << "\n" << help.output;
    }
  }
  CommandResult short_eq = RunCommand(kBin + " validate -f=" + kSource + "/examples/packing");
  EXPECT_EQ(short_eq.exit_code, 0) << short_eq.output;
  EXPECT_TRUE(Contains(short_eq.output, "11 objects and 2 workloads from 2 files")) << short_eq.output;
}

// Issue #32 item 13: the README's recipes on the bundled examples run as
// written. Each line of every sh block after a "<!-- readme-test -->" is run
// from the source tree with `dractl` being this build's binary; a line whose
// comment says "exit N" must exit N, the others 0.
TEST(CliTest, ReadmeRecipesRunAsWritten) {
  std::ifstream in(kSource + "/README.md");
  ASSERT_TRUE(in.good());
  std::string line;
  bool marked = false, in_block = false;
  int run = 0;
  while (std::getline(in, line)) {
    if (line == "<!-- readme-test -->") marked = true;
    if (!marked) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) marked = false;  // the block ends; the next marker starts another
      in_block = !in_block;
      continue;
    }
    if (!in_block || line.empty()) continue;
    ASSERT_EQ(line.rfind("dractl ", 0), 0u) << line;
    int want = 0;
    if (size_t exit_at = line.find("# "); exit_at != std::string::npos) {
      const std::string comment = line.substr(exit_at);
      if (size_t e = comment.find("exit "); e != std::string::npos) want = std::stoi(comment.substr(e + 5));
    }
    CommandResult r = RunCommand("cd " + kSource + " && " + kBin + line.substr(6));
    EXPECT_EQ(r.exit_code, want) << line << "\n" << r.output;
    ++run;
  }
  EXPECT_GE(run, 9);  // the recipes and the plan examples
}

TEST(CliTest, ValidateAcceptsEverySharedFixture) {
  // nvidia/node-mixed-nic.yaml's dra.cpu slice publishes pcieRoot as a list
  // attribute, which needs the alpha gate DRAListTypeAttributes.
  CommandResult r =
      RunCommand(kBin + " validate -f " + kShared + "/fixtures --feature-gates DRAListTypeAttributes=true");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, " 0 errors")) << r.output;
  // With 1.37's defaults the API server drops the lists and rejects the slice
  // (as a real v1.37.2 kube-apiserver did): exactly those two attributes.
  CommandResult off = RunCommand(kBin + " validate -f " + kShared + "/fixtures");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_TRUE(Contains(off.output, " 2 errors")) << off.output;
  EXPECT_TRUE(Contains(off.output,
                       "node-mixed-nic.yaml:261:9: ResourceSlice 00000-dra.cpu-l40s-rdma-03-d5dkc: "
                       "spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]: Invalid value: \"\": "
                       "must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, "
                       "`strings`, `versions`"))
      << off.output;
}

TEST(CliTest, ValidateReadsStdinAndReportsJson) {
  CommandResult r =
      RunCommand("printf 'apiVersion: resource.k8s.io/v1\\nkind: DeviceClass\\nmetadata:\\n  name: Bad_Name\\n' | " +
                 kBin + " validate -f - -o json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "\"file\": \"<stdin>\"")) << r.output;
  EXPECT_TRUE(Contains(r.output, "\"line\": 4")) << r.output;
  EXPECT_TRUE(Contains(r.output, "\"field\": \"metadata.name\"")) << r.output;
  EXPECT_TRUE(Contains(r.output, "\"errors\": 1")) << r.output;
}

TEST(CliTest, ValidateFeatureGatesFlag) {
  fs::path dir = fs::temp_directory_path() / ("dractl-gates-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                                   "metadata: {name: s}\nspec:\n  driver: d.example.com\n"
                                   "  nodeName: n\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                                   "  devices:\n  - name: d0\n    allowMultipleAllocations: true\n";
  CommandResult on = RunCommand(kBin + " validate -f " + (dir / "s.yaml").string());
  EXPECT_EQ(on.exit_code, 0) << on.output;
  CommandResult off =
      RunCommand(kBin + " validate -f " + (dir / "s.yaml").string() + " --feature-gates DRAConsumableCapacity=false");
  // The API server accepts the object and drops the field: a warning, exit 0.
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(Contains(off.output,
                       "s.yaml:10:31: warning: ResourceSlice s: spec.devices[0].allowMultipleAllocations: "
                       "Forbidden: requires feature gate DRAConsumableCapacity, which is disabled"))
      << off.output;
  CommandResult bad =
      RunCommand(kBin + " validate -f " + (dir / "s.yaml").string() + " --feature-gates NoSuchGate=true");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  fs::remove_all(dir);
}

TEST(CliTest, SummaryCountsTheExampleCluster) {
  CommandResult r = RunCommand(kBin + " summary -f " + kSource + "/examples/cluster");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Counted from examples/cluster/*.yaml: 8 H100 + 8 H200 + 4 + 2 L4 + 2 x 92
  // A100 MIG node devices + 4 L40S + 8 SR-IOV VFs + 2 dra.cpu devices = 220,
  // in 9 pools (one per node and driver) of 3 drivers; 7 Node objects; the
  // claims in nodes.yaml and shared-claim.yaml; templates 1+2+2+3+1 in
  // cannot-fit, gpu-nic-aligned, mig-1g5gb, training-8gpu and vllm; the bare
  // pods in cannot-fit, gpu-nic-aligned, mig-1g5gb, nodes and shared-claim (2).
  EXPECT_TRUE(Contains(r.output, "Devices:  220 in 9 pools of 3 drivers")) << r.output;
  EXPECT_TRUE(Contains(r.output, "NVIDIA H100 80GB HBM3")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Nodes:    7 (7 Node objects, 7 named by ResourceSlices)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Claims:   2 (0 allocated, 2 pending); 9 templates; 0 device taint rules"))
      << r.output;
  // Issue #32 item 14, worked out from node-a100-40gb-mig.yaml's header: on
  // ip-10-0-42-17 GPUs 0-5 are split by counter sets (25 placements each) and
  // GPUs 6-7 are whole; on ip-10-0-42-88 all 8 GPUs carry 4 static MIG
  // devices each (parentUUID). Memory: 6 counter sets of 40192Mi, 2 whole
  // GPUs of 40Gi, 32 static MIG devices = 639488Mi = 624.5Gi (summed apart
  // with a script over the YAML). The workloads: vLLM 2 replicas, notebooks
  // 7, two Jobs of 1 pod.
  EXPECT_TRUE(Contains(r.output, "NVIDIA A100-SXM4-40GB      2     14         182    624.5Gi          0      2"))
      << r.output;
  EXPECT_TRUE(
      Contains(r.output, "Pods:     6 (0 bound, 6 pending); 4 workloads (2 Deployments, 2 Jobs) would create 11 pods"))
      << r.output;
}

// Issue #30 item 5: device health at a glance. node-h200.yaml's hgx-h200-07
// has gpu-3 with an XID 95 NoSchedule taint and gpu-6 with an XID 13 None
// taint; a DeviceTaintRule over that node's pool adds k=v:NoExecute to its 8
// GPUs, so 8 devices are tainted, 8 of them with the rule's key.
TEST(CliTest, SummaryShowsTaintedDevicesPerNodeAndKey) {
  const fs::path dir = fs::path(::testing::TempDir()) / "dractl-summary-taints";
  fs::create_directories(dir);
  std::ofstream(dir / "rule.yaml") << "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: drain}\n"
                                      "spec:\n  deviceSelector: {driver: gpu.nvidia.com, pool: hgx-h200-07}\n"
                                      "  taint: {key: k, value: v, effect: NoExecute}\n";
  CommandResult plain = RunCommand(kBin + " summary -f " + kSource + "/examples/cluster");
  EXPECT_TRUE(Contains(plain.output,
                       "Taints:   2 tainted devices\n"
                       "  NODE         KEY                 EFFECT      DEVICES\n"
                       "  hgx-h200-07  gpu.nvidia.com/xid  NoSchedule        1\n"
                       "  hgx-h200-07  gpu.nvidia.com/xid  None              1\n"))
      << plain.output;
  CommandResult r =
      RunCommand(kBin + " summary -f " + kSource + "/examples/cluster -f " + (dir / "rule.yaml").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "(8 tainted, 4 shareable")) << r.output;
  EXPECT_TRUE(Contains(r.output, "  hgx-h200-07  k                   NoExecute         8\n")) << r.output;
  CommandResult json =
      RunCommand(kBin + " summary -o json -f " + kSource + "/examples/cluster -f " + (dir / "rule.yaml").string());
  EXPECT_TRUE(Contains(json.output,
                       "\"node\": \"hgx-h200-07\",\n      \"key\": \"k\",\n      \"effect\": "
                       "\"NoExecute\",\n      \"devices\": 8"))
      << json.output;
  fs::remove_all(dir);
}

// Issue #30 item 1: schedule's view of running pods. p1's claim holds gpu-0,
// tainted xid=79:NoExecute at 10:00, and tolerates it for 600 s: the
// eviction controller deletes p1 from 10:10.
TEST(CliTest, ScheduleNamesRunningPodsTheTaintEvictionControllerDeletes) {
  const fs::path dir = fs::path(::testing::TempDir()) / "dractl-schedule-evict";
  fs::create_directories(dir);
  std::ofstream(dir / "c.yaml")
      << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n"
         "  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n---\n"
         "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"8\", memory: 32Gi, pods: "
         "\"110\"}\n"
         "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n1-gpus}\nspec:\n"
         "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
         "  devices:\n  - name: gpu-0\n"
         "    taints: [{key: xid, value: \"79\", effect: NoExecute, timeAdded: \"2026-12-01T10:00:00Z\"}]\n"
         "  - name: gpu-1\n---\n"
         "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1, namespace: default}\nspec:\n"
         "  devices:\n    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: gpu\n"
         "        tolerations: [{key: xid, operator: Exists, effect: NoExecute, tolerationSeconds: 600}]\n"
         "status:\n  allocation:\n    devices:\n      results:\n"
         "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0, tolerations: [{key: xid, "
         "operator: Exists, effect: NoExecute, tolerationSeconds: 600}]}\n"
         "    nodeSelector:\n      nodeSelectorTerms:\n"
         "      - matchFields: [{key: metadata.name, operator: In, values: [n1]}]\n"
         "  reservedFor: [{resource: pods, name: p1, uid: p1-uid}]\n---\n"
         "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default, uid: p1-uid}\nspec:\n  nodeName: n1\n"
         "  resourceClaims: [{name: gpu, resourceClaimName: c1}]\n"
         "  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]\n";
  CommandResult r = RunCommand(kBin + " schedule -f " + (dir / "c.yaml").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "note: pod default/p1 on n1 is evicted from 2026-12-01T10:10:00Z by the device-taint "
                       "eviction controller (untolerated xid=79:NoExecute on a device of its claims)"))
      << r.output;
  fs::remove_all(dir);
}

// Issue #32 item 12: every command that reads manifests takes them as the API
// server would under --kubernetes-version / --feature-gates: a list-type
// attribute with DRAListTypeAttributes off is refused by all alike, and
// the message names the gate.
TEST(CliTest, EveryCommandHandlesFeatureGatesAlike) {
  const std::string fixture = kShared + "/fixtures/nvidia/node-mixed-nic.yaml";
  for (const std::string cmd : {"validate", "summary", "convert", "eval true", "schedule"}) {
    CommandResult off = RunCommand(kBin + " " + cmd + " -f " + fixture);
    EXPECT_EQ(off.exit_code, 1) << cmd << ": " << off.output;
    EXPECT_TRUE(Contains(off.output,
                         "requires feature gate DRAListTypeAttributes, which is disabled: the API server "
                         "drops this field (enable with --feature-gates DRAListTypeAttributes=true)"))
        << cmd << ": " << off.output;
    CommandResult on = RunCommand(kBin + " " + cmd + " --feature-gates DRAListTypeAttributes=true -f " + fixture);
    EXPECT_EQ(on.exit_code, 0) << cmd << ": " << on.output;
  }
}

TEST(CliTest, ConvertRoundTripsFixturesThroughYamlAndJson) {
  fs::path dir = fs::temp_directory_path() / ("dractl-conv-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* fmt : {"yaml", "json"}) {
    std::string first = (dir / (std::string("a.") + fmt)).string();
    std::string second = (dir / (std::string("b.") + fmt)).string();
    // Braces keep stderr (the load summary) out of the files.
    // The fixtures use list-type attributes (gate DRAListTypeAttributes).
    const std::string gates = " --feature-gates DRAListTypeAttributes=true";
    CommandResult a =
        RunCommand("{ " + kBin + " convert" + gates + " -f " + kShared + "/fixtures -o " + fmt + " > " + first + "; }");
    ASSERT_EQ(a.exit_code, 0) << a.output;
    CommandResult b =
        RunCommand("{ " + kBin + " convert" + gates + " -f " + first + " -o " + fmt + " > " + second + "; }");
    ASSERT_EQ(b.exit_code, 0) << b.output;
    CommandResult diff = RunCommand("cmp " + first + " " + second);
    EXPECT_EQ(diff.exit_code, 0) << fmt << ": second conversion differs from the first";
    CommandResult valid = RunCommand(kBin + " validate -f " + first + " --feature-gates DRAListTypeAttributes=true");
    EXPECT_EQ(valid.exit_code, 0) << valid.output;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dra::testing

namespace dra::testing {
namespace {

// dractl eval: the high-memory-gpu class (>= 40Gi) selects exactly the GPUs
// that the header of fixtures/claims/vllm-high-memory-gpu.yaml lists (taints
// play no part in CEL, so hgx-h200-07 gpu-3 is included).
TEST(CliTest, EvalHighMemoryGpuClassSelectsTheFortyGibibyteGpus) {
  CommandResult r = RunCommand(kBin + " eval --class high-memory-gpu --feature-gates DRAListTypeAttributes=true -f " +
                               kShared + "/fixtures");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> got;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string node, device, result;
    if (cells >> node >> device >> result && result == "true") got.insert(device);
  }
  std::set<std::string> want;
  for (int i = 0; i < 8; ++i) {
    want.insert("gpu.nvidia.com/dgx-h100-01/gpu-" + std::to_string(i));
    want.insert("gpu.nvidia.com/hgx-h200-07/gpu-" + std::to_string(i));
  }
  for (int i = 0; i < 4; ++i) want.insert("gpu.nvidia.com/l40s-rdma-03/gpu-" + std::to_string(i));
  for (int i : {6, 7}) {
    want.insert("gpu.nvidia.com/ip-10-0-42-17.us-west-2.compute.internal/gpu-" + std::to_string(i));
  }
  EXPECT_EQ(got, want) << r.output;
  EXPECT_TRUE(Contains(r.output, "22 of 240 devices match; 0 evaluation errors")) << r.output;
}

TEST(CliTest, EvalExpressionOutputsAndExitCodes) {
  const std::string tpu = kShared + "/fixtures/tpu";
  CommandResult help = RunCommand(kBin + " eval --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "--class")) << help.output;
  EXPECT_EQ(RunCommand(kBin + " eval -f " + tpu).exit_code, 2);  // no expression, no class
  EXPECT_EQ(RunCommand(kBin + " eval 'true'").exit_code, 2);     // no -f

  // JSON lists every device with its result.
  CommandResult json = RunCommand(kBin + " eval \"device.driver == 'tpu.google.com'\" -o json -f " + tpu);
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"result\": true")) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"matched\": 8")) << json.output;

  // A selector that does not compile, an unknown class: input errors.
  CommandResult bad = RunCommand(kBin + " eval '1 +' -f " + tpu);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(Contains(bad.output, "compilation failed: ERROR: <input>:1:4: Syntax error")) << bad.output;
  EXPECT_EQ(RunCommand(kBin + " eval --class nope -f " + tpu).exit_code, 1);

  // A runtime error on some device: printed with the error, exit 1.
  CommandResult err = RunCommand(kBin + " eval \"device.attributes['tpu.google.com'].nope == 1\" -f " + tpu);
  EXPECT_EQ(err.exit_code, 1) << err.output;
  EXPECT_TRUE(Contains(err.output, "error: no such key: nope. consider using CEL optional chaining")) << err.output;
  EXPECT_TRUE(Contains(err.output, "0 of 8 devices match; 8 evaluation errors")) << err.output;

  // --all lists the devices that do not match.
  CommandResult none = RunCommand(kBin + " eval \"device.driver == 'x'\" --all -f " + tpu);
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_TRUE(Contains(none.output, "false")) << none.output;
}

// The expected devices below were worked out from the fixtures by hand (pools
// by driver/name, slices by name, devices in order: src/alloc/README.md §3.4),
// not taken from dractl's output.
TEST(CliTest, AllocateMigClaimOnTheA100Node) {
  const std::string f = kShared + "/fixtures";
  const std::string node = "ip-10-0-42-17.us-west-2.compute.internal";
  const std::string base = kBin + " allocate -f " + f + "/nvidia/deviceclasses.yaml -f " + f +
                           "/nvidia/node-a100-40gb-mig.yaml -f " + f + "/claims/mig-1g5gb.yaml --node " + node;
  // The first 1g.5gb MIG device is in slice 00001 (00000 holds the counters and full GPUs).
  CommandResult r = RunCommand(base + " --template mig-tenants/mig-1g-5gb");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "kind: ResourceClaim\n")) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "  allocation:\n    devices:\n      results:\n      - request: mig\n"
                       "        driver: gpu.nvidia.com\n        pool: " +
                           node + "\n        device: gpu-0-mig-1g5gb-19-0\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "values:\n          - " + node)) << r.output;

  CommandResult json = RunCommand(base + " --template mig-tenants/mig-1g-5gb -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"device\": \"gpu-0-mig-1g5gb-19-0\"")) << json.output;

  // That device in use by another claim, or tainted by a DeviceTaintRule: another 1g.5gb device.
  const fs::path dir = fs::path(::testing::TempDir()) / "dractl-allocate-test";
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "in-use.yaml");
    out << "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: taken\n  namespace: mig-tenants\n"
           "spec:\n  devices:\n    requests:\n    - name: mig\n      exactly:\n        deviceClassName: "
           "mig.nvidia.com\n"
           "status:\n  allocation:\n    devices:\n      results:\n      - request: mig\n        driver: "
           "gpu.nvidia.com\n"
           "        pool: "
        << node << "\n        device: gpu-0-mig-1g5gb-19-0\n";
    std::ofstream rule(dir / "rule.yaml");
    rule << "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata:\n  name: broken\nspec:\n"
            "  deviceSelector:\n    device: gpu-0-mig-1g5gb-19-0\n  taint:\n    key: broken\n    effect: NoSchedule\n";
  }
  for (const char* extra : {"/in-use.yaml", "/rule.yaml"}) {
    CommandResult other = RunCommand(base + " -f " + (dir.string() + extra) +
                                     " --template mig-tenants/mig-1g-5gb"
                                     " --feature-gates DRADeviceTaints=true,DRADeviceTaintRules=true");
    ASSERT_EQ(other.exit_code, 0) << other.output;
    EXPECT_FALSE(Contains(other.output, "device: gpu-0-mig-1g5gb-19-0")) << other.output;
    EXPECT_TRUE(Contains(other.output, "-mig-1g5gb-")) << other.output;
  }
  // Taints are ignored with DRADeviceTaints off; with DRADeviceTaintRules off
  // the API server does not serve the kind at all.
  CommandResult off = RunCommand(base + " -f " + (dir / "rule.yaml").string() +
                                 " --template mig-tenants/mig-1g-5gb --feature-gates DRADeviceTaints=false");
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(Contains(off.output, "device: gpu-0-mig-1g5gb-19-0")) << off.output;
  CommandResult unserved = RunCommand(base + " -f " + (dir / "rule.yaml").string() +
                                      " --template mig-tenants/mig-1g-5gb --feature-gates DRADeviceTaintRules=false");
  EXPECT_EQ(unserved.exit_code, 1) << unserved.output;
  EXPECT_TRUE(Contains(unserved.output, "rule.yaml:2:7: DeviceTaintRule broken: kind: Forbidden")) << unserved.output;
}

TEST(CliTest, AllocateGpuNicAlignedClaimOnTheNicNode) {
  const std::string f = kShared + "/fixtures";
  const std::string base = kBin + " allocate -f " + f + "/nvidia/deviceclasses.yaml -f " + f +
                           "/companion/deviceclasses.yaml -f " + f + "/nvidia/node-mixed-nic.yaml -f " + f +
                           "/claims/gpu-nic-aligned.yaml --node l40s-rdma-03";
  // gpu-0 sits on pcieRoot pci0000:15; the first RDMA VF there is 0000-17-00-2.
  // (The fixture's dra.cpu slice needs DRAListTypeAttributes to be valid.)
  CommandResult r =
      RunCommand(base + " --template rdma-inference/gpu-with-local-vf --feature-gates DRAListTypeAttributes=true");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "      - request: gpu\n        driver: gpu.nvidia.com\n        pool: l40s-rdma-03\n"
                       "        device: gpu-0\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "      - request: vf\n        driver: sriovnetwork.k8snetworkplumbingwg.io\n"
                       "        pool: l40s-rdma-03\n        device: 0000-17-00-2\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "      - source: FromClaim\n        requests:\n        - vf\n")) << r.output;

  // The CPU request matches on a list attribute. Without DRAListTypeAttributes
  // the API server drops the list and rejects the slice, as a real v1.37.2
  // kube-apiserver did; with the gate the claim fits.
  CommandResult off = RunCommand(base + " --template rdma-inference/gpu-vf-cpus-aligned");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_TRUE(Contains(off.output,
                       "spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]: Invalid value: \"\": "
                       "must specify one of: `int`, `bool`, `string`, `version`, `ints`"))
      << off.output;
  EXPECT_TRUE(Contains(off.output, "(`strings` was dropped: it requires feature gate DRAListTypeAttributes)"))
      << off.output;
  CommandResult on =
      RunCommand(base + " --template rdma-inference/gpu-vf-cpus-aligned --feature-gates DRAListTypeAttributes=true");
  ASSERT_EQ(on.exit_code, 0) << on.output;
  EXPECT_TRUE(Contains(on.output, "device: cpudevnuma000")) << on.output;
}

TEST(CliTest, AllocateUsageAndInputErrors) {
  const std::string tpu = kShared + "/fixtures/tpu";
  EXPECT_EQ(RunCommand(kBin + " allocate").exit_code, 2);
  EXPECT_EQ(RunCommand(kBin + " allocate -f " + tpu + " --claim x").exit_code, 2);  // no --node
  EXPECT_EQ(RunCommand(kBin + " allocate -f " + tpu + " --node n").exit_code, 2);   // no claim
  EXPECT_EQ(RunCommand(kBin + " allocate --scenario x.yaml -f " + tpu).exit_code, 2);
  CommandResult missing = RunCommand(kBin + " allocate -f " + tpu + " --node n --claim ns/nope");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(Contains(missing.output, "no ResourceClaim ns/nope in the input")) << missing.output;
  CommandResult tmpl = RunCommand(kBin + " allocate -f " + tpu + " --node n --template nope");
  EXPECT_EQ(tmpl.exit_code, 1);
  EXPECT_TRUE(Contains(tmpl.output, "no ResourceClaimTemplate default/nope in the input")) << tmpl.output;
  // An invalid object is reported at its line and nothing is allocated.
  const fs::path dir = fs::path(::testing::TempDir()) / "dractl-allocate-errors";
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "bad.yaml");
    out << "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: bad\nspec:\n  devices:\n"
           "    requests:\n    - name: Not_A_Name\n      exactly:\n        deviceClassName: x\n";
  }
  CommandResult bad = RunCommand(kBin + " allocate -f " + (dir / "bad.yaml").string() + " --node n --claim bad");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "bad.yaml:8:")) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "spec.devices.requests[0].name")) << bad.output;
}

}  // namespace
}  // namespace dra::testing
