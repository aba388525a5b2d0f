// The bad-input corpus: tests/bad_inputs/CASES lists, one a line, a dractl
// command line over the files in tests/bad_inputs/, the exit code it must
// return and a line it must print (see the top of CASES for the format). Two
// kinds of line:
//   FILE [flags] | code | text          runs `dractl validate -f FILE [flags]`
//   $ ARGS | code | text                runs `dractl ARGS` through the shell
// Both run in tests/bad_inputs/, so `<` redirects and quoting work in ARGS.
// Every file of the folder must be named by some line, and every file a line
// names must exist, so the corpus and its expectations cannot drift apart.
// No case may crash or report a bug: exit code 3 (internal error) or >= 128
// (a signal), "internal error", "Sanitizer" or a sanitizer's "runtime error"
// in the output fail it whatever CASES says.
//
// Generated cases (too big to commit: 100 MB, a million documents, a 20 MB
// string) and those that need file modes or symbolic links are built in a
// temporary directory by the tests at the end of this file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(DRA_SOURCE_DIR) + "/tests/bad_inputs";

struct Case {
  std::string command;             // the dractl arguments, as the shell reads them
  std::vector<std::string> files;  // corpus files the command names
  int exit_code = 0;
  std::string expected;
  int line = 0;
};

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The words of `args` that name files: split at blanks, quotes and shell
// punctuation, the ones ending in a manifest, vector, text or CSV extension.
std::vector<std::string> NamedFiles(const std::string& args) {
  std::vector<std::string> files;
  std::string word;
  auto flush = [&] {
    for (std::string_view ext : {".yaml", ".yml", ".json", ".jsonl", ".txt", ".csv"}) {
      if (word.size() > ext.size() && word.ends_with(ext)) {
        files.push_back(word);
        break;
      }
    }
    word.clear();
  };
  for (char c : args) {
    if (std::string_view(" \t'\"<>|;()$=,`").find(c) != std::string_view::npos) {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return files;
}

// CASES lines: `file [extra flags] | exit code | expected output substring`
// (dractl validate -f file [extra flags]) or `$ dractl arguments | exit code |
// expected output substring`.
std::vector<Case> ReadCases() {
  std::ifstream in(kCorpus + "/CASES");
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (Trim(line).empty() || Trim(line)[0] == '#') continue;
    // The exit code is the first field of digits alone between " | ": the
    // expected text may hold " | " (a CEL caret line), the command a pipe.
    size_t a = line.find(" | ");
    while (a != std::string::npos) {
      size_t digits = line.find_first_not_of("0123456789", a + 3);
      if (digits != std::string::npos && digits > a + 3 && line.compare(digits, 3, " | ") == 0) break;
      a = line.find(" | ", a + 3);
    }
    size_t b = a == std::string::npos ? std::string::npos : line.find(" | ", a + 3);
    if (a == std::string::npos || b == std::string::npos) {
      ADD_FAILURE() << "CASES:" << number << ": malformed line: " << line;
      continue;
    }
    Case c;
    std::string head = Trim(line.substr(0, a));
    if (head.starts_with("$ ")) {
      c.command = Trim(head.substr(2));
      c.files = NamedFiles(c.command);
    } else {
      size_t space = head.find(' ');
      std::string file = head.substr(0, space);
      c.command = "validate -f " + ShellQuote(file) + (space == std::string::npos ? "" : head.substr(space));
      c.files = {file};
    }
    c.exit_code = std::stoi(Trim(line.substr(a + 3, b - a - 3)));
    c.expected = Trim(line.substr(b + 3));
    c.line = number;
    cases.push_back(c);
  }
  return cases;
}

// A sanitizer's "runtime error:" report (not a CEL runtime error, which is
// part of a message about the input).
bool HasSanitizerRuntimeError(const std::string& output) {
  for (size_t at = output.find("runtime error"); at != std::string::npos; at = output.find("runtime error", at + 1)) {
    if (at < 4 || output.compare(at - 4, 4, "CEL ") != 0) return true;
  }
  return false;
}

// What every dractl run must satisfy, whatever its input: no crash, no
// sanitizer report, no internal error.
void ExpectNoBug(const CommandResult& r, const std::string& what) {
  EXPECT_NE(r.exit_code, 3) << what << ": internal error\n" << r.output.substr(0, 4000);
  EXPECT_LT(r.exit_code, 124) << what << ": killed by a signal or timed out\n" << r.output.substr(0, 4000);
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << what << "\n" << r.output.substr(0, 4000);
  EXPECT_EQ(r.output.find("Sanitizer"), std::string::npos) << what << "\n" << r.output.substr(0, 4000);
  EXPECT_FALSE(HasSanitizerRuntimeError(r.output)) << what << "\n" << r.output.substr(0, 4000);
}

// Runs dractl with `args` (shell syntax) in `dir`, killed after 60 seconds.
CommandResult RunDractl(const std::string& dir, const std::string& args) {
  return RunCommand("cd " + ShellQuote(dir) + " && timeout -k 5 60 " + DRACTL_BIN + " " + args);
}

TEST(BadInputsTest, EveryCorpusFileHasAnExpectation) {
  std::set<std::string> named;
  for (const Case& c : ReadCases()) {
    for (const std::string& f : c.files) {
      named.insert(f);
      // A line may name a file that must not exist, to test that error.
      if (!fs::path(f).filename().string().starts_with("no-such-")) {
        EXPECT_TRUE(fs::exists(kCorpus + "/" + f)) << "CASES:" << c.line << " names missing file " << f;
      }
    }
  }
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    std::string name = entry.path().filename().string();
    if (name == "CASES" || name == "README.md") continue;
    ++files;
    EXPECT_TRUE(named.count(name)) << name << " is named by no line of tests/bad_inputs/CASES";
  }
  EXPECT_GE(files, 50u);
}

TEST(BadInputsTest, EachGivesItsExpectedErrorAndExitCode) {
  std::vector<Case> cases = ReadCases();
  ASSERT_FALSE(cases.empty());
  std::map<std::string, size_t> per_command;
  for (const Case& c : cases) {
    CommandResult r = RunDractl(kCorpus, c.command);
    const std::string what = "CASES:" + std::to_string(c.line) + ": dractl " + c.command;
    EXPECT_EQ(r.exit_code, c.exit_code) << what << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << what << ": expected to find\n  " << c.expected << "\nin output:\n"
        << r.output;
    ExpectNoBug(r, what);
    std::string command = c.command.substr(0, c.command.find(' '));
    if (command == "cel") command = "cel run";
    ++per_command[command];
  }
  std::printf("bad-input corpus: %zu cases (", cases.size());
  const char* sep = "";
  for (const auto& [command, n] : per_command) {
    std::printf("%s%s %zu", sep, command.c_str(), n);
    sep = ", ";
  }
  std::printf(")\n");
  // Every entry point has its share of hostile inputs.
  for (const char* command : {"eval", "allocate", "schedule", "explain", "cel run"}) {
    EXPECT_GE(per_command[command], 15u) << command;
  }
  EXPECT_GE(cases.size(), 210u);
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
        << "}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: node-" << slice << "\n  pool: {name: node-" << slice
        << ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
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
  EXPECT_NE(r.output.find("1000000 skipped: 1000000 v1 ConfigMap"), std::string::npos) << r.output.substr(0, 2000);
}

TEST_F(GeneratedInputTest, UnreadableAndMissingFiles) {
  CommandResult missing = RunDractl(dir_.string(), "validate -f nope.yaml");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nope.yaml: no such file or directory"), std::string::npos) << missing.output;
  ExpectNoBug(missing, "missing file");
}

// A directory symlink loop is not followed, and the link is named.
TEST_F(GeneratedInputTest, SymlinkLoopInDirectory) {
  fs::create_directories(dir_ / "loop");
  fs::create_directory_symlink(dir_ / "loop", dir_ / "loop" / "again");
  fs::create_symlink("self.yaml", dir_ / "loop" / "self.yaml");  // a file link to itself
  std::ofstream(dir_ / "loop" / "n.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
  CommandResult loop = RunDractl(dir_.string(), "validate -f loop");
  EXPECT_EQ(loop.exit_code, 1) << loop.output;
  EXPECT_NE(loop.output.find("1 object from 1 file"), std::string::npos) << loop.output;
  EXPECT_NE(loop.output.find("loop/again: warning: symbolic link to a directory, not followed"), std::string::npos)
      << loop.output;
  EXPECT_NE(loop.output.find("loop/self.yaml: cannot open: Too many levels of symbolic links"), std::string::npos)
      << loop.output;
  ExpectNoBug(loop, "symlink loop");
  // Named directly, a looping link is an error that says so.
  CommandResult direct = RunDractl(dir_.string(), "schedule -f loop/self.yaml");
  EXPECT_EQ(direct.exit_code, 1) << direct.output;
  EXPECT_NE(direct.output.find("loop/self.yaml: cannot open: Too many levels of symbolic links"), std::string::npos)
      << direct.output;
  ExpectNoBug(direct, "symlink loop named directly");
}

// An unreadable file in a directory is an error naming it; the others load.
TEST_F(GeneratedInputTest, UnreadableFileInDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  fs::create_directories(dir_ / "in");
  std::ofstream(dir_ / "in" / "a.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
  std::ofstream(dir_ / "in" / "b.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n";
  fs::permissions(dir_ / "in" / "a.yaml", fs::perms::none);
  CommandResult r = RunDractl(dir_.string(), "validate -f in");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("in/a.yaml: cannot open: Permission denied"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 object from 1 file"), std::string::npos) << r.output;
  ExpectNoBug(r, "unreadable file");
}

// A 20 MB string value: one error naming the field, without the value.
TEST_F(GeneratedInputTest, TwentyMegabyteString) {
  {
    std::ofstream out(dir_ / "long.yaml");
    out << "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec:\n"
           "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n"
           "  devices:\n  - name: gpu-0\n    attributes:\n      model: {string: "
        << std::string(20u << 20, 'x') << "}\n";
  }
  CommandResult r = RunDractl(dir_.string(), "validate -f long.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("long.yaml:11:23: ResourceSlice s1: spec.devices[0].attributes[model].string: Too long: "
                          "may not be more than 64 bytes"),
            std::string::npos)
      << r.output.substr(0, 2000);
  EXPECT_LT(r.output.size(), 4096u) << "the value is printed";
  ExpectNoBug(r, "20 MB string");
}

// A million selectors in one class and a million devices in one slice.
TEST_F(GeneratedInputTest, MillionItemLists) {
  {
    std::ofstream out(dir_ / "selectors.yaml");
    out << "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n  selectors:\n";
    for (int i = 0; i < 1'000'000; ++i) out << "  - cel: {expression: 'true'}\n";
  }
  CommandResult r = RunDractl(dir_.string(), "validate -f selectors.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("selectors.yaml:6:3: DeviceClass gpu: spec.selectors: Too many: 1000000: must have at "
                          "most 32 items"),
            std::string::npos)
      << r.output.substr(0, 2000);
  ExpectNoBug(r, "million selectors");
  {
    std::ofstream out(dir_ / "devices.json");
    out << R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s1"},)"
        << R"( "spec": {"driver": "gpu.example.com", "nodeName": "n1",)"
        << R"( "pool": {"name": "p1", "generation": 1, "resourceSliceCount": 1}, "devices": [)"
        << "\n";
    for (int i = 0; i < 1'000'000; ++i) out << (i ? ",\n" : "") << R"({"name": "gpu-)" << i << R"("})";
    out << "]}}\n";
  }
  CommandResult d = RunDractl(dir_.string(), "schedule -f devices.json");
  EXPECT_EQ(d.exit_code, 1) << d.output.substr(0, 2000);
  EXPECT_NE(d.output.find("devices.json:1:224: ResourceSlice s1: spec.devices: Too many: 1000000: must have at "
                          "most 128 items"),
            std::string::npos)
      << d.output.substr(0, 2000);
  ExpectNoBug(d, "million devices");
}

// A CEL expression 1,000 parentheses deep: an error, not a stack overflow.
TEST_F(GeneratedInputTest, ThousandParenthesesDeep) {
  const std::string expr = std::string(1000, '(') + "true" + std::string(1000, ')');
  std::ofstream(dir_ / "deep.jsonl") << R"({"name": "deep", "expr": ")" << expr << "\"}\n";
  CommandResult r = RunDractl(dir_.string(), "cel run deep.jsonl --profile kubernetes");
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(R"({"name": "deep", "error": ")"), std::string::npos) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("recursion"), std::string::npos) << r.output.substr(0, 2000);
  ExpectNoBug(r, "1000 parentheses, cel run");
  std::ofstream(dir_ / "s.yaml") << "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
                                    "spec: {driver: d.example.com, nodeName: n1, pool: {name: p1, generation: 1, "
                                    "resourceSliceCount: 1}, devices: [{name: d0}]}\n";
  CommandResult e = RunDractl(dir_.string(), "eval " + ShellQuote(expr) + " -f s.yaml");
  EXPECT_EQ(e.exit_code, 1) << e.output.substr(0, 2000);
  EXPECT_NE(e.output.find("dractl eval: expression: compilation failed: ERROR: <input>:1:"), std::string::npos)
      << e.output.substr(0, 2000);
  ExpectNoBug(e, "1000 parentheses, eval");
}

// A quantity of 10,000 digits: the loader and the scheduler's arithmetic
// must neither crash nor take long.
TEST_F(GeneratedInputTest, TenThousandDigitQuantity) {
  const std::string digits(10'000, '9');
  std::ofstream(dir_ / "q.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \""
                                 << digits << "\", memory: 1Gi, pods: \"110\"}\n---\n"
                                 << "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec:\n"
                                    "  containers:\n  - name: c\n    image: x\n    resources:\n      requests: {cpu: \""
                                 << digits << "\"}\n";
  CommandResult r = RunDractl(dir_.string(), "schedule -f q.yaml");
  ExpectNoBug(r, "10,000 digit quantity");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("default/p1"), std::string::npos) << r.output.substr(0, 2000);
  std::ofstream(dir_ / "c.yaml") << "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
                                    "spec:\n  driver: d.example.com\n  nodeName: n1\n"
                                    "  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n  devices:\n"
                                    "  - name: d0\n    capacity:\n      memory: {value: \""
                                 << digits << "Ki\"}\n";
  CommandResult v = RunDractl(dir_.string(), "validate -f c.yaml");
  ExpectNoBug(v, "10,000 digit capacity");
  EXPECT_TRUE(v.exit_code == 0 || v.exit_code == 1) << v.output.substr(0, 2000);
}

}  // namespace
}  // namespace dra::testing
