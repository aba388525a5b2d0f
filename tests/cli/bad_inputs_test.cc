// The bad-input corpus: every file in tests/bad_inputs/ is run through
// `dractl validate` and must exit with the code, and print the line, that
// tests/bad_inputs/CASES lists for it. A file without a CASES line fails the
// suite, so the corpus and its expectations cannot drift apart.
//
// Generated cases (too big to commit: 100 MB, a million documents) are built
// in a temporary directory by the tests at the end of this file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(DRA_SOURCE_DIR) + "/tests/bad_inputs";

struct Case {
  std::string file;
  std::string args;
  int exit_code = 0;
  std::string expected;
  int line = 0;
};

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// CASES lines: `file [extra flags] | exit code | expected output substring`.
std::vector<Case> ReadCases() {
  std::ifstream in(kCorpus + "/CASES");
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (Trim(line).empty() || Trim(line)[0] == '#') continue;
    size_t a = line.find(" | ");
    size_t b = line.find(" | ", a + 3);
    if (a == std::string::npos || b == std::string::npos) {
      ADD_FAILURE() << "CASES:" << number << ": malformed line: " << line;
      continue;
    }
    Case c;
    std::string head = Trim(line.substr(0, a));
    size_t space = head.find(' ');
    c.file = head.substr(0, space);
    c.args = space == std::string::npos ? "" : head.substr(space + 1);
    c.exit_code = std::stoi(Trim(line.substr(a + 3, b - a - 3)));
    c.expected = Trim(line.substr(b + 3));
    c.line = number;
    cases.push_back(c);
  }
  return cases;
}

TEST(BadInputsTest, EveryCorpusFileHasAnExpectation) {
  std::set<std::string> listed;
  for (const Case& c : ReadCases()) listed.insert(c.file);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    std::string name = entry.path().filename().string();
    if (name == "CASES" || name == "README.md") continue;
    ++files;
    EXPECT_TRUE(listed.count(name)) << name << " has no line in tests/bad_inputs/CASES";
  }
  for (const std::string& name : listed) {
    EXPECT_TRUE(fs::exists(kCorpus + "/" + name)) << "CASES names missing file " << name;
  }
  EXPECT_GE(files, 50u);
}

TEST(BadInputsTest, EachGivesItsExpectedErrorAndExitCode) {
  std::vector<Case> cases = ReadCases();
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    CommandResult r = RunCommand("cd " + ShellQuote(kCorpus) + " && " + DRACTL_BIN +
                                 " validate -f " + ShellQuote(c.file) + " " + c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << "CASES:" << c.line << " " << c.file << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << "CASES:" << c.line << " " << c.file << ": expected to find\n  " << c.expected
        << "\nin output:\n" << r.output;
    // Never a crash, sanitizer report or internal error.
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << c.file;
    EXPECT_EQ(r.output.find("Sanitizer"), std::string::npos) << c.file;
  }
  std::printf("bad-input corpus: %zu cases\n", cases.size());
}

class GeneratedInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dractl-gen-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// 100 MB of valid slices with one mistake on the very last line: the error
// must name that line (nothing truncated, nothing skipped).
TEST_F(GeneratedInputTest, HundredMegabyteFileReportsErrorOnLastLine) {
  fs::path file = dir_ / "big.yaml";
  size_t lines = 0;
  {
    std::ofstream out(file);
    std::string device =
        "  - name: gpu-0\n    attributes:\n      productName: {string: NVIDIA H100 80GB HBM3}\n"
        "      uuid: {string: GPU-115bf844-9850-565d-a0df-7d7ad6ecc9ba}\n"
        "    capacity:\n      memory: {value: 81559Mi}\n";
    size_t written = 0;
    int slice = 0;
    while (written < 100u * 1000 * 1000) {
      std::ostringstream s;
      s << "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s" << slice
        << "}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: node-" << slice << "\n  pool: {name: node-"
        << slice << ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
      for (int d = 0; d < 8; ++d) {
        std::string dev = device;
        dev.replace(dev.find("gpu-0"), 5, "gpu-" + std::to_string(d));
        s << dev;
      }
      std::string text = s.str();
      written += text.size();
      for (char c : text) lines += c == '\n';
      out << text;
      ++slice;
    }
    out << "  - name: BAD_NAME\n";
    ++lines;
  }
  CommandResult r = RunCommand(std::string(DRACTL_BIN) + " validate -f " + file.string());
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  std::string want = "big.yaml:" + std::to_string(lines) + ":11: ResourceSlice ";
  EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("1 error"), std::string::npos) << r.output.substr(0, 2000);
}

// A million tiny documents, one of them broken in the middle.
TEST_F(GeneratedInputTest, MillionDocumentsOneBroken) {
  fs::path file = dir_ / "many.yaml";
  {
    std::ofstream out(file);
    for (int i = 0; i < 1'000'000; ++i) {
      if (i == 500'000) {
        out << "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: [}\n";
      } else {
        out << "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c" << i << "}\n";
      }
    }
  }
  CommandResult r = RunCommand(std::string(DRACTL_BIN) + " validate -f " + file.string());
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  // Document 500,001 starts at line 2,000,001; its metadata is 3 lines further.
  EXPECT_NE(r.output.find("many.yaml:2000004:"), std::string::npos) << r.output.substr(0, 2000);
}

// A million tiny valid documents of a kind dractl does not model: all counted.
TEST_F(GeneratedInputTest, MillionDocumentsAllCounted) {
  fs::path file = dir_ / "many.yaml";
  {
    std::ofstream out(file);
    for (int i = 0; i < 1'000'000; ++i) {
      out << "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c" << i << "}\n";
    }
  }
  CommandResult r = RunCommand(std::string(DRACTL_BIN) + " validate -f " + file.string());
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("1000000 skipped: 1000000 v1 ConfigMap"), std::string::npos)
      << r.output.substr(0, 2000);
}

TEST_F(GeneratedInputTest, UnreadableAndMissingFiles) {
  CommandResult missing = RunCommand(std::string(DRACTL_BIN) + " validate -f " + (dir_ / "nope.yaml").string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nope.yaml: no such file or directory"), std::string::npos) << missing.output;
  // A directory symlink loop is not followed.
  fs::create_directories(dir_ / "loop");
  fs::create_directory_symlink(dir_ / "loop", dir_ / "loop" / "again");
  std::ofstream(dir_ / "loop" / "n.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
  CommandResult loop = RunCommand(std::string(DRACTL_BIN) + " validate -f " + (dir_ / "loop").string());
  EXPECT_EQ(loop.exit_code, 0) << loop.output;
  EXPECT_NE(loop.output.find("1 object from 1 file"), std::string::npos) << loop.output;
}

}  // namespace
}  // namespace dra::testing
