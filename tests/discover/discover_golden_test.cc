// Golden tests of `dractl discover`: every recording listed in
// tests/discover/recordings/CASES is replayed through the real binary, and the
// slices it prints must equal the fixture node's slices in testdata/fixtures
// (slice-name suffixes and taint timeAdded aside, which the API server
// assigns). The recordings are inputs written from the fixture nodes'
// identities and hardware tables (make_recordings.py), never from dractl's
// output. The same recordings also drive the real dlopen path through the
// test-only libfake_nvml.so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/object.h"
#include "cli/run_command.h"
#include "discover/nvml/recording.h"
#include "discover/recorded_fs.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/loader.h"

namespace dra {
namespace {

namespace fs = std::filesystem;
using testing::RunCommand;
using testing::ShellQuote;

const std::string kRecordings = std::string(DRA_SOURCE_DIR) + "/tests/discover/recordings";

struct Case {
  std::string recording;
  std::string flags;
  std::string fixture;
  std::string driver;
  std::string node;
  std::set<std::string> ignored_attributes;
  int line = 0;
};

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  std::ifstream in(kRecordings + "/CASES");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (Trim(line).empty() || Trim(line)[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '|')) cols.push_back(Trim(col));
    EXPECT_GE(cols.size(), 5u) << "CASES:" << number << ": " << line;
    if (cols.size() < 5) continue;
    Case c{cols[0], cols[1], cols[2], cols[3], cols[4], {}, number};
    if (cols.size() > 5) {
      std::stringstream attrs(cols[5]);
      std::string a;
      while (std::getline(attrs, a, ',')) {
        if (!Trim(a).empty()) c.ignored_attributes.insert(Trim(a));
      }
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// The slices of `driver` on `node` in `text`, normalised for comparison.
std::vector<api::ResourceSlice> Slices(const std::string& text, const std::string& file, const Case& c,
                                       std::string* errors) {
  manifest::Loader loader(manifest::LoadOptions{});
  manifest::LoadResult result;
  loader.LoadText(text, file, &result);
  for (const manifest::LoadMessage& m : result.messages) *errors += m.ToString() + "\n";
  std::vector<api::ResourceSlice> out;
  for (const manifest::LoadedObject& o : result.objects) {
    const auto* slice = std::get_if<api::ResourceSlice>(&o.object);
    if (slice == nullptr || slice->spec.driver != c.driver || slice->spec.pool.name != c.node) {
      continue;
    }
    api::ResourceSlice s = *slice;
    // "<index>-<driver>-<pool>-<5 random characters>": the suffix is the API server's.
    if (s.metadata.name.size() > 6) s.metadata.name.resize(s.metadata.name.size() - 6);
    for (api::Device& d : s.spec.devices) {
      for (const std::string& a : c.ignored_attributes) {
        api::AttributeMap kept;
        for (auto& [key, value] : d.attributes) {
          if (key.view() != a) kept.insert_or_assign(key, value);
        }
        d.attributes = std::move(kept);
      }
      if (!d.rare->taints.empty()) {
        for (api::DeviceTaint& t : d.rare.mut().taints) t.time_added.clear();
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string AsYaml(const std::vector<api::ResourceSlice>& slices) {
  std::vector<manifest::Node> roots;
  for (const auto& s : slices) roots.push_back(manifest::EncodeObject(api::Object(s)));
  return manifest::EmitYamlDocuments(roots, {.sort_keys = true});
}

// Runs dractl discover with `args` and compares its slices with the fixture's.
void ExpectMatchesFixture(const Case& c, const std::string& args, const std::string& env = "") {
  fs::path out = fs::path(::testing::TempDir()) / ("discover-" + c.node + ".yaml");
  std::string command = env + ShellQuote(DRACTL_BIN) + " discover " + args + " --out " + ShellQuote(out.string());
  testing::CommandResult r = RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  std::string errors;
  std::vector<api::ResourceSlice> got = Slices(ReadFile(out.string()), out.string(), c, &errors);
  EXPECT_EQ(errors, "") << "dractl's output does not load cleanly";
  std::string fixture_path = std::string(DRA_TESTDATA_DIR) + "/fixtures/" + c.fixture;
  std::string fixture_errors;
  std::vector<api::ResourceSlice> want = Slices(ReadFile(fixture_path), fixture_path, c, &fixture_errors);
  ASSERT_FALSE(want.empty()) << fixture_path << " has no " << c.driver << " slice for " << c.node;
  EXPECT_EQ(AsYaml(got), AsYaml(want)) << "CASES line " << c.line << ": " << command;
}

TEST(DiscoverGolden, EveryRecordingReplaysToItsFixture) {
  std::vector<Case> cases = ReadCases();
  ASSERT_GE(cases.size(), 8u) << "CASES lists too few recordings";
  for (const Case& c : cases) {
    SCOPED_TRACE("CASES line " + std::to_string(c.line) + ": " + c.recording);
    ExpectMatchesFixture(c, "--replay " + ShellQuote(kRecordings + "/" + c.recording) + " " + c.flags);
  }
}

// The real dlopen path: the same recordings answered by libfake_nvml.so (the
// NVML C symbols over a replay) and the recording's sysfs written out as a
// real tree read through --sysfs-root / --dev-root.
TEST(DiscoverGolden, FakeLibnvidiaMlGivesTheSameSlices) {
  std::vector<Case> cases = ReadCases();
  size_t nvidia_cases = 0;
  for (const Case& c : cases) {
    if (c.driver != "gpu.nvidia.com") continue;
    ++nvidia_cases;
    SCOPED_TRACE("CASES line " + std::to_string(c.line) + ": " + c.recording);
    std::string path = kRecordings + "/" + c.recording;
    StatusOr<discover::nvml::Recording> rec = discover::nvml::ReadRecording(ReadFile(path), path);
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    fs::path root = fs::path(::testing::TempDir()) / ("fake-root-" + c.node);
    fs::remove_all(root);
    ASSERT_TRUE(discover::MaterializeRecordedFs(*rec, root.string()).ok());
    std::string env = "DRACTL_FAKE_NVML_RECORDING=" + ShellQuote(path) + " ";
    ExpectMatchesFixture(
        c,
        "--nvml-lib " + ShellQuote(FAKE_NVML_LIB) + " --sysfs-root " + ShellQuote((root / "sys").string()) +
            " --dev-root " + ShellQuote((root / "dev").string()) + " --tpu-env-file " +
            ShellQuote((root / "etc/tpu/tpu-env").string()) + " --node-name " + ShellQuote(c.node) + " " + c.flags,
        env);
  }
  EXPECT_GE(nvidia_cases, 6u);
}

}  // namespace
}  // namespace dra
