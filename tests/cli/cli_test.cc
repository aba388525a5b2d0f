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
const std::string kShared = DRA_SHARED_DIR;
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

TEST(CliTest, ValidateAcceptsEverySharedFixture) {
  CommandResult r = RunCommand(kBin + " validate -f " + kShared + "/fixtures");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, " 0 errors")) << r.output;
}

TEST(CliTest, ValidateReadsStdinAndReportsJson) {
  CommandResult r = RunCommand(
      "printf 'apiVersion: resource.k8s.io/v1\\nkind: DeviceClass\\nmetadata:\\n  name: Bad_Name\\n' | " +
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
  CommandResult off = RunCommand(kBin + " validate -f " + (dir / "s.yaml").string() +
                                 " --feature-gates DRAConsumableCapacity=false");
  // The API server accepts the object and drops the field: a warning, exit 0.
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(Contains(off.output,
                       "s.yaml:10:31: warning: ResourceSlice s: spec.devices[0].allowMultipleAllocations: "
                       "Forbidden: requires feature gate DRAConsumableCapacity, which is disabled"))
      << off.output;
  CommandResult bad = RunCommand(kBin + " validate -f " + (dir / "s.yaml").string() +
                                 " --feature-gates NoSuchGate=true");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  fs::remove_all(dir);
}

TEST(CliTest, SummaryCountsTheExampleCluster) {
  CommandResult r = RunCommand(kBin + " summary -f " + kSource + "/examples/cluster");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // 8 H100 + 8 H200 + 4 + 2 L4 (see examples/cluster/*.yaml).
  EXPECT_TRUE(Contains(r.output, "Devices:  22 in 4 pools of 1 drivers")) << r.output;
  EXPECT_TRUE(Contains(r.output, "NVIDIA H100 80GB HBM3")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Nodes:    4 (4 Node objects, 4 named by ResourceSlices)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Claims:   1 (0 allocated, 1 pending); 4 templates")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Pods:     1 (0 bound, 1 pending)")) << r.output;
}

TEST(CliTest, ConvertRoundTripsFixturesThroughYamlAndJson) {
  fs::path dir = fs::temp_directory_path() / ("dractl-conv-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* fmt : {"yaml", "json"}) {
    std::string first = (dir / (std::string("a.") + fmt)).string();
    std::string second = (dir / (std::string("b.") + fmt)).string();
    // Braces keep stderr (the load summary) out of the files.
    CommandResult a = RunCommand("{ " + kBin + " convert -f " + kShared + "/fixtures -o " + fmt + " > " + first + "; }");
    ASSERT_EQ(a.exit_code, 0) << a.output;
    CommandResult b = RunCommand("{ " + kBin + " convert -f " + first + " -o " + fmt + " > " + second + "; }");
    ASSERT_EQ(b.exit_code, 0) << b.output;
    CommandResult diff = RunCommand("cmp " + first + " " + second);
    EXPECT_EQ(diff.exit_code, 0) << fmt << ": second conversion differs from the first";
    CommandResult valid = RunCommand(kBin + " validate -f " + first);
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
  CommandResult r = RunCommand(kBin + " eval --class high-memory-gpu -f " + kShared + "/fixtures");
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
  EXPECT_TRUE(Contains(bad.output, "compilation failed: ERROR: <input>:1:4: Syntax error"))
      << bad.output;
  EXPECT_EQ(RunCommand(kBin + " eval --class nope -f " + tpu).exit_code, 1);

  // A runtime error on some device: printed with the error, exit 1.
  CommandResult err = RunCommand(kBin + " eval \"device.attributes['tpu.google.com'].nope == 1\" -f " + tpu);
  EXPECT_EQ(err.exit_code, 1) << err.output;
  EXPECT_TRUE(Contains(err.output, "error: no such key: nope. consider using CEL optional chaining"))
      << err.output;
  EXPECT_TRUE(Contains(err.output, "0 of 8 devices match; 8 evaluation errors")) << err.output;

  // --all lists the devices that do not match.
  CommandResult none = RunCommand(kBin + " eval \"device.driver == 'x'\" --all -f " + tpu);
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_TRUE(Contains(none.output, "false")) << none.output;
}

}  // namespace
}  // namespace dra::testing
