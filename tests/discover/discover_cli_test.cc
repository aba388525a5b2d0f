// dractl discover's error paths and the record -> replay round trip, through
// the real binary: a missing library, a missing sysfs, NVML errors taken from
// edited copies of the fixture recordings (NOT_SUPPORTED, NO_PERMISSION for a
// non-root MIG query, a lost GPU, failed event registration), --strict, bad
// recordings and bad flags. Each gives a clear message and, where anything
// could be read, partial output — never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/run_command.h"
#include "discover/nvml/recording.h"
#include "discover/recorded_fs.h"
#include "manifest/emit.h"
#include "manifest/json_parser.h"

namespace dra {
namespace {

namespace fs = std::filesystem;
using manifest::Node;
using testing::CommandResult;
using testing::RunCommand;
using testing::ShellQuote;

const std::string kBin = ShellQuote(DRACTL_BIN);
const std::string kRecordings = std::string(DRA_SOURCE_DIR) + "/tests/discover/recordings";

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Temp(const std::string& name) { return (fs::path(::testing::TempDir()) / name).string(); }

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

Node LoadJson(const std::string& path) {
  auto docs = manifest::ParseJson(ReadFile(path), path);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  return docs.ok() ? (*docs)[0].root : Node();
}

// The value at `key` of a mapping (added as null when missing).
Node& At(Node& node, const std::string& key) {
  for (size_t i = 0; i < node.keys.size(); ++i) {
    if (node.keys[i].first == key) return node.items[i];
  }
  node.Add(key, Node::Null());
  return node.items.back();
}

Node& Device(Node& rec, size_t index) { return At(rec, "devices").items.at(index); }

// Saves an edited recording and returns its path.
std::string Save(const Node& rec, const std::string& name) {
  std::string path = Temp(name);
  WriteFile(path, manifest::EmitJson(rec));
  return path;
}

CommandResult Discover(const std::string& args) { return RunCommand(kBin + " discover " + args); }

TEST(DiscoverCli, HelpNamesTheFlags) {
  CommandResult r = Discover("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag :
       {"--replay", "--record", "--dynamic-mig", "--health", "--nvml-lib", "--sysfs-root", "--strict", "Exit codes"}) {
    EXPECT_TRUE(Contains(r.output, flag)) << flag << "\n" << r.output;
  }
}

TEST(DiscoverCli, BadFlagsAreUsageErrors) {
  EXPECT_EQ(Discover("--drivers nvidia,gpu").exit_code, 2);
  EXPECT_EQ(Discover("--health-wait soon").exit_code, 2);
  EXPECT_EQ(Discover("--health-wait 1.2.3s").exit_code, 2);
  EXPECT_EQ(Discover("--health-wait 10").exit_code, 2);  // Go needs a unit
  EXPECT_EQ(Discover("--consumable-shares 0").exit_code, 2);
  EXPECT_EQ(Discover("--slice-layout diagonal").exit_code, 2);
  EXPECT_EQ(Discover("--anonymize").exit_code, 2);
  CommandResult both = Discover("--record a.json --replay b.json");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_TRUE(Contains(both.output, "cannot be combined")) << both.output;
}

TEST(DiscoverCli, MissingLibraryWithGpusInSysfsIsPartial) {
  // A host tree with one NVIDIA GPU in sysfs but no libnvidia-ml.
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  auto parsed = discover::nvml::ReadRecording(manifest::EmitJson(rec), "h200");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string root = Temp("nolib-root");
  fs::remove_all(root);
  ASSERT_TRUE(discover::MaterializeRecordedFs(*parsed, root).ok());
  CommandResult r = Discover("--nvml-lib /nonexistent/libnvidia-ml.so.1 --sysfs-root " + ShellQuote(root + "/sys") +
                             " --dev-root " + ShellQuote(root + "/dev") + " --node-name n1 --drivers nvidia");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "present but not discoverable")) << r.output;
  EXPECT_TRUE(Contains(r.output, "0000:18:00.0")) << r.output;
  EXPECT_TRUE(Contains(r.output, "/nonexistent/libnvidia-ml.so.1")) << r.output;
}

TEST(DiscoverCli, NothingReadableIsExitOne) {
  std::string empty = Temp("empty-root");
  fs::create_directories(empty);
  CommandResult r = Discover("--nvml-lib /nonexistent/libnvidia-ml.so.1 --sysfs-root " + ShellQuote(empty) +
                             " --dev-root " + ShellQuote(empty) + " --node-name n1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "nothing usable")) << r.output;
}

TEST(DiscoverCli, MalformedRecordings) {
  std::string bad = Temp("bad.json");
  WriteFile(bad, "{\"format\": \"dractl.nvml-recording\",\n \"version\": 1,\n \"devices\": [}\n");
  CommandResult r = Discover("--replay " + ShellQuote(bad));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, bad + ":3")) << r.output;  // file:line

  std::string other = Temp("other.json");
  WriteFile(other, "{\"format\": \"something-else\", \"version\": 1}");
  r = Discover("--replay " + ShellQuote(other));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "format")) << r.output;

  r = Discover("--replay " + ShellQuote(Temp("does-not-exist.json")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "does-not-exist.json")) << r.output;
}

TEST(DiscoverCli, NonRootWithoutMigPlacementsKeepsTheFullGpus) {
  // As a non-root user the placements query answers NO_PERMISSION: the GPU
  // is still published as a full GPU, DynamicMIG partitions are not.
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  for (Node& answer : At(Device(rec, 0), "nvmlDeviceGetGpuInstancePossiblePlacements_v2").items) {
    answer = Node::Mapping();
    answer.Add("ret", Node::Int(4));
  }
  std::string path = Save(rec, "h200-noperm.json");
  CommandResult r = Discover("--replay " + ShellQuote(path) + " --dynamic-mig");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "NVML_ERROR_NO_PERMISSION")) << r.output;
  EXPECT_TRUE(Contains(r.output, "run as root")) << r.output;
  EXPECT_TRUE(Contains(r.output, "name: gpu-0\n")) << r.output;          // still published
  EXPECT_FALSE(Contains(r.output, "gpu-0-mig-")) << r.output;            // no partitions
  EXPECT_TRUE(Contains(r.output, "gpu-1-mig-1g18gb-19-0")) << r.output;  // other GPUs intact
  // --strict: the plugin would not start.
  CommandResult strict = Discover("--replay " + ShellQuote(path) + " --dynamic-mig --strict");
  EXPECT_EQ(strict.exit_code, 1) << strict.output;
  EXPECT_TRUE(Contains(strict.output, "NVML_ERROR_NO_PERMISSION")) << strict.output;
}

TEST(DiscoverCli, NotSupportedMemoryDropsOnlyTheCapacity) {
  Node rec = LoadJson(kRecordings + "/gke-inference-l4-pool-3f9a1c2e-k8xq.json");
  Node& memory = At(Device(rec, 2), "nvmlDeviceGetMemoryInfo");
  memory = Node::Mapping();
  memory.Add("ret", Node::Int(3));
  CommandResult r = Discover("--replay " + ShellQuote(Save(rec, "l4-nomem.json")));
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "GPU 2 (0000:00:05.0): memory capacity left out")) << r.output;
  EXPECT_TRUE(Contains(r.output, "NVML_ERROR_NOT_SUPPORTED")) << r.output;
  EXPECT_TRUE(Contains(r.output, "name: gpu-2\n")) << r.output;
}

TEST(DiscoverCli, BadBusIdSkipsThatGpu) {
  Node rec = LoadJson(kRecordings + "/gke-inference-l4-pool-3f9a1c2e-k8xq.json");
  At(At(Device(rec, 1), "nvmlDeviceGetPciInfo_v3"), "busId") = Node::String("00010000:00:04.0");
  CommandResult r = Discover("--replay " + ShellQuote(Save(rec, "l4-badbus.json")));
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "GPU 1 skipped")) << r.output;
  EXPECT_TRUE(Contains(r.output, "00010000:00:04.0")) << r.output;
  EXPECT_FALSE(Contains(r.output, "name: gpu-1\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "name: gpu-3\n")) << r.output;
}

TEST(DiscoverCli, InitFailureIsExplained) {
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  At(At(rec, "init"), "ret") = Node::Int(4);
  CommandResult r = Discover("--replay " + ShellQuote(Save(rec, "h200-init.json")));
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "present but not discoverable")) << r.output;
  EXPECT_TRUE(Contains(r.output, "run as root or with access to /dev/nvidia*")) << r.output;
}

TEST(DiscoverCli, LostGpuTaintsEveryDevice) {
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  Node lost = Node::Mapping();
  lost.Add("atMs", Node::Int(100));
  lost.Add("ret", Node::Int(15));
  At(rec, "events").items.insert(At(rec, "events").items.begin(), lost);
  CommandResult r =
      Discover("--replay " + ShellQuote(Save(rec, "h200-lost.json")) + " --health events --health-wait 10s");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  size_t lost_taints = 0;
  for (size_t pos = 0; (pos = r.output.find("key: gpu.nvidia.com/gpu-lost", pos)) != std::string::npos; ++pos) {
    ++lost_taints;
  }
  EXPECT_EQ(lost_taints, 8u) << r.output;
  // The XIDs that came later still taint their GPUs.
  EXPECT_TRUE(Contains(r.output, "value: \"95\"")) << r.output;
}

TEST(DiscoverCli, FailedRegistrationIsUnmonitored) {
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  At(At(Device(rec, 5), "nvmlDeviceRegisterEvents"), "ret") = Node::Int(3);
  CommandResult r =
      Discover("--replay " + ShellQuote(Save(rec, "h200-unmon.json")) + " --health events --health-wait 1s");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(Contains(r.output, "is unmonitored")) << r.output;
  EXPECT_TRUE(Contains(r.output, "key: gpu.nvidia.com/unmonitored")) << r.output;
  // 1 s is over before the first XID (1.2 s) arrives.
  EXPECT_FALSE(Contains(r.output, "gpu.nvidia.com/xid")) << r.output;
}

TEST(DiscoverCli, IgnoredXidsHaveEffectNone) {
  CommandResult r = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") +
                             " --health events --additional-xids-to-ignore 95,x");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "\"x\" is not a number")) << r.output;
  EXPECT_FALSE(Contains(r.output, "NoSchedule")) << r.output;
}

// --record through the real dlopen path (libfake_nvml.so over a fixture
// recording and a real file tree), then --replay of what was written: the same
// slices, taints included.
TEST(DiscoverCli, RecordThenReplayIsIdentical) {
  for (const std::string node : {"hgx-h200-07", "ip-10-0-42-88", "ip-10-0-42-17"}) {
    SCOPED_TRACE(node);
    std::string source = kRecordings + "/" + node + ".json";
    auto parsed = discover::nvml::ReadRecording(ReadFile(source), source);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    std::string root = Temp("rr-root-" + node);
    fs::remove_all(root);
    ASSERT_TRUE(discover::MaterializeRecordedFs(*parsed, root).ok());
    // (The fake library's event wait takes real time: 7 s covers the H200's
    // two XIDs at 1.2 s and 6.3 s.)
    std::string flags = node == "ip-10-0-42-17" ? " --dynamic-mig"
                        : node == "hgx-h200-07" ? " --health events --health-wait 7s"
                                                : "";
    std::string recorded = Temp("rr-" + node + ".json");
    std::string live_out = Temp("rr-live-" + node + ".yaml");
    CommandResult live =
        RunCommand("DRACTL_FAKE_NVML_RECORDING=" + ShellQuote(source) + " " + kBin + " discover --nvml-lib " +
                   ShellQuote(FAKE_NVML_LIB) + " --sysfs-root " + ShellQuote(root + "/sys") + " --dev-root " +
                   ShellQuote(root + "/dev") + " --node-name rr-node --record " + ShellQuote(recorded) + " --out " +
                   ShellQuote(live_out) + flags);
    EXPECT_EQ(live.exit_code, 0) << live.output;
    std::string replay_out = Temp("rr-replay-" + node + ".yaml");
    CommandResult replay = Discover("--replay " + ShellQuote(recorded) + " --out " + ShellQuote(replay_out) + flags);
    EXPECT_EQ(replay.exit_code, 0) << replay.output;
    std::string a = ReadFile(live_out);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, ReadFile(replay_out));
    EXPECT_TRUE(Contains(a, "nodeName: rr-node")) << a;  // the recording's meta.nodeName
  }
}

TEST(DiscoverCli, AnonymizedRecordingHidesUuidsAndNodeName) {
  std::string source = kRecordings + "/hgx-h200-07.json";
  auto parsed = discover::nvml::ReadRecording(ReadFile(source), source);
  ASSERT_TRUE(parsed.ok());
  std::string root = Temp("anon-root");
  fs::remove_all(root);
  ASSERT_TRUE(discover::MaterializeRecordedFs(*parsed, root).ok());
  std::string recorded = Temp("anon.json");
  CommandResult r = RunCommand("DRACTL_FAKE_NVML_RECORDING=" + ShellQuote(source) + " " + kBin +
                               " discover --nvml-lib " + ShellQuote(FAKE_NVML_LIB) + " --sysfs-root " +
                               ShellQuote(root + "/sys") + " --dev-root " + ShellQuote(root + "/dev") +
                               " --node-name secret-node-7 --record " + ShellQuote(recorded) + " --anonymize");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string text = ReadFile(recorded);
  EXPECT_FALSE(Contains(text, "secret-node-7"));
  EXPECT_FALSE(Contains(text, "GPU-ba5e6264-eef2-57f7-a7e8-3aa87a6df396"));
  EXPECT_TRUE(Contains(text, "\"anonymized\": true")) << text.substr(0, 400);
  EXPECT_TRUE(Contains(text, "0000:18:00.0"));  // topology stays
  // And the anonymised recording still replays.
  CommandResult replay = Discover("--replay " + ShellQuote(recorded));
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
}

}  // namespace
}  // namespace dra

namespace dra {
namespace {

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find(part, pos)) != std::string::npos; pos += part.size()) ++n;
  return n;
}

TEST(DiscoverCli, EventsThatTaintNothingAndTheLatestXidWins) {
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  Node& events = At(rec, "events");
  auto event = [](int64_t at, int64_t device, int64_t type, int64_t data, int64_t gi) {
    Node e = Node::Mapping();
    e.Add("atMs", Node::Int(at));
    e.Add("ret", Node::Int(0));
    e.Add("device", Node::Int(device));
    e.Add("eventType", Node::Int(type));
    e.Add("eventData", Node::Int(data));
    e.Add("gpuInstanceId", Node::Int(gi));
    e.Add("computeInstanceId", Node::Int(gi));
    return e;
  };
  events.items.clear();
  events.Push(event(100, 1, 2, 0, 4294967295));   // double-bit ECC: registered, never acted on
  events.Push(event(200, 2, 8, 79, 3));           // XID on GPU instance 3: no such device
  events.Push(event(300, 4, 8, 31, 4294967295));  // gpu-4: XID 31 (None) ...
  events.Push(event(400, 4, 8, 48, 4294967295));  // ... then 48 replaces it (NoSchedule)
  CommandResult r =
      Discover("--replay " + ShellQuote(Save(rec, "h200-events.json")) + " --health events --health-wait 1s");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Count(r.output, "key: gpu.nvidia.com/xid"), 1u) << r.output;
  EXPECT_TRUE(Contains(r.output, "value: \"48\"")) << r.output;
  EXPECT_FALSE(Contains(r.output, "value: \"31\"")) << r.output;
  EXPECT_EQ(Count(r.output, "effect: NoSchedule"), 1u) << r.output;
  EXPECT_TRUE(Contains(r.output, "XID 79")) << r.output;  // named as ignored
}

// DynamicMIG on Hopper (src/discover/README.md §5.6): per GPU the full GPU and
// 25 partitions, a counter set of 15 counters that the full GPU consumes
// entirely.
TEST(DiscoverCli, H200DynamicMigShape) {
  std::string json = Temp("h200-dyn.json");
  CommandResult r = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") +
                             " --dynamic-mig -o json --out " + ShellQuote(json));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Node list = LoadJson(json);
  Node& items = At(list, "items");
  ASSERT_EQ(items.items.size(), 9u);  // the counters slice + one per GPU
  Node& counters = At(At(items.items[0], "spec"), "sharedCounters");
  ASSERT_EQ(counters.items.size(), 8u);
  EXPECT_EQ(At(counters.items[0], "name").text, "gpu-0-counter-set");
  EXPECT_EQ(At(counters.items[0], "counters").items.size(), 15u);
  EXPECT_EQ(At(At(At(counters.items[0], "counters"), "memory"), "value").text, "140Gi");
  Node& devices = At(At(items.items[1], "spec"), "devices");
  ASSERT_EQ(devices.items.size(), 26u);
  Node& full = devices.items[0];
  EXPECT_EQ(At(full, "name").text, "gpu-0");
  EXPECT_EQ(At(At(At(full, "capacity"), "memory"), "value").text, "140Gi");
  EXPECT_EQ(At(At(full, "consumesCounters").items[0], "counters").items.size(), 15u);
  EXPECT_EQ(At(devices.items[1], "name").text, "gpu-0-mig-1g18gb-19-0");
  std::set<std::string> names;
  for (Node& d : devices.items) names.insert(At(d, "name").text);
  for (const char* n : {"gpu-0-mig-1g18gb-me-20-6", "gpu-0-mig-1g35gb-15-6", "gpu-0-mig-2g35gb-14-4",
                        "gpu-0-mig-3g71gb-9-4", "gpu-0-mig-4g71gb-5-0", "gpu-0-mig-7g141gb-0-0"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  // combined (Kubernetes 1.34): one slice per GPU with its own counter set.
  CommandResult combined = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") +
                                    " --dynamic-mig --slice-layout combined -o json --out " + ShellQuote(json));
  EXPECT_EQ(combined.exit_code, 0) << combined.output;
  Node list2 = LoadJson(json);
  ASSERT_EQ(At(list2, "items").items.size(), 8u);
  Node& spec = At(At(list2, "items").items[0], "spec");
  EXPECT_EQ(At(spec, "sharedCounters").items.size(), 1u);
  EXPECT_EQ(At(spec, "devices").items.size(), 26u);
}

TEST(DiscoverCli, VgpuGuestGetsNoPartitions) {
  Node rec = LoadJson(kRecordings + "/hgx-h200-07.json");
  At(At(Device(rec, 2), "nvmlDeviceGetVirtualizationMode"), "mode") = Node::Int(2);
  CommandResult r = Discover("--replay " + ShellQuote(Save(rec, "h200-vgpu.json")) + " --dynamic-mig");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "gpu-1-mig-7g141gb-0-0")) << r.output;
  EXPECT_FALSE(Contains(r.output, "gpu-2-mig-")) << r.output;
  EXPECT_FALSE(Contains(r.output, "gpu-2-counter-set")) << r.output;
  EXPECT_TRUE(Contains(r.output, "name: gpu-2\n")) << r.output;
}

TEST(DiscoverCli, ListAttributesPublishesNumaAsAList) {
  CommandResult r = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") + " --list-attributes");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "resource.kubernetes.io/numaNode:\n        ints:\n        - 1")) << r.output;
}

// What discover prints is what validate accepts and schedule places pods on:
// the vLLM Deployment's one-GPU >= 40Gi claims land on H200s, never on the
// NoSchedule-tainted gpu-3.
TEST(DiscoverCli, OutputFeedsValidateAndSchedule) {
  std::string out = Temp("h200-cluster.yaml");
  CommandResult r = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") +
                             " --health events --device-classes --out " + ShellQuote(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  CommandResult v = RunCommand(kBin + " validate -f " + ShellQuote(out));
  EXPECT_EQ(v.exit_code, 0) << v.output;
  std::string claims = std::string(DRA_TESTDATA_DIR) + "/fixtures/claims/vllm-high-memory-gpu.yaml";
  CommandResult s = RunCommand(kBin + " schedule -f " + ShellQuote(out) + " -f " + ShellQuote(claims));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(Contains(s.output, "hgx-h200-07")) << s.output;
  EXPECT_FALSE(Contains(s.output, "gpu-3")) << s.output;
}

}  // namespace
}  // namespace dra

namespace dra {
namespace {

TEST(DiscoverCli, ConsumableSharesVariants) {
  std::string rec = ShellQuote(kRecordings + "/gke-inference-l4-pool-3f9a1c2e-k8xq.json");
  std::string json = Temp("shares.json");
  CommandResult r = Discover("--replay " + rec + " --consumable-shares 4 -o json --out " + ShellQuote(json));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Node list = LoadJson(json);
  Node& device = At(At(At(list, "items").items[0], "spec"), "devices").items[0];
  EXPECT_TRUE(At(device, "allowMultipleAllocations").bool_value);
  Node& memory = At(At(device, "capacity"), "memory");
  EXPECT_EQ(At(memory, "value").text, "23034Mi");
  EXPECT_EQ(At(At(memory, "requestPolicy"), "default").text, "0");
  EXPECT_EQ(At(At(At(memory, "requestPolicy"), "validRange"), "min").text, "0");
  EXPECT_EQ(At(At(At(memory, "requestPolicy"), "validRange"), "max").text, "23034Mi");
  EXPECT_EQ(At(At(At(memory, "requestPolicy"), "validRange"), "step").text, "1Mi");
  Node& shares = At(At(device, "capacity"), "shares");
  EXPECT_EQ(At(shares, "value").text, "4");
  EXPECT_EQ(At(At(shares, "requestPolicy"), "default").text, "1");
  EXPECT_EQ(At(At(At(shares, "requestPolicy"), "validRange"), "max").text, "4");

  r = Discover("--replay " + rec + " --consumable-shares unlimited -o json --out " + ShellQuote(json));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Node list2 = LoadJson(json);
  Node& device2 = At(At(At(list2, "items").items[0], "spec"), "devices").items[0];
  EXPECT_EQ(At(At(At(At(device2, "capacity"), "memory"), "requestPolicy"), "default").text, "0");
  EXPECT_EQ(At(device2, "capacity").Find("shares"), nullptr);
}

}  // namespace
}  // namespace dra

namespace dra {
namespace {

TEST(DiscoverCli, XidLogExtension) {
  std::string log = Temp("kern.log");
  WriteFile(log,
            "Aug 18 03:12:44 hgx-h200-07 kernel: NVRM: Xid (PCI:0000:5d:00): 79, pid=1234, GPU has "
            "fallen off the bus.\n"
            "Aug 18 03:13:00 hgx-h200-07 kernel: NVRM: Xid (PCI:0000:9A:00): 13, pid=77, Graphics "
            "Exception\n"
            "Aug 18 03:14:00 hgx-h200-07 kernel: NVRM: Xid (PCI:0000:ee:00): 48, pid=1, DBE\n"
            "Aug 18 03:15:00 hgx-h200-07 kernel: unrelated line\n");
  CommandResult r =
      Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") + " --xid-log " + ShellQuote(log));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "names no GPU of this node")) << r.output;  // 0000:ee:00
  EXPECT_EQ(Count(r.output, "key: gpu.nvidia.com/xid"), 2u) << r.output;
  EXPECT_TRUE(Contains(r.output, "value: \"79\"")) << r.output;  // gpu-3 (0000:5d:00.0)
  EXPECT_TRUE(Contains(r.output, "effect: None")) << r.output;   // 13 on gpu-4 (0000:9a:00.0)
  // With live events too: gpu-3's event XID 95 is newer than the log's 79.
  CommandResult both = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") + " --xid-log " +
                                ShellQuote(log) + " --health events");
  EXPECT_EQ(both.exit_code, 0) << both.output;
  EXPECT_FALSE(Contains(both.output, "value: \"79\"")) << both.output;
  EXPECT_TRUE(Contains(both.output, "value: \"95\"")) << both.output;
  EXPECT_EQ(Count(both.output, "key: gpu.nvidia.com/xid"), 3u) << both.output;  // gpu-3, 4, 6
  CommandResult missing = Discover("--replay " + ShellQuote(kRecordings + "/hgx-h200-07.json") + " --xid-log " +
                                   ShellQuote(Temp("no-such.log")));
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "--xid-log")) << missing.output;
}

}  // namespace
}  // namespace dra
