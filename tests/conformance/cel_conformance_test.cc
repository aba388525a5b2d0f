// Runs every vector of testdata/conformance/cel/*.jsonl through
// `dractl cel run FILE --profile P` (standard for the cel-spec files,
// kubernetes for k8s-* and dra-*) and compares each result with the vector's
// expectation (FORMAT.md §2): typed values must match exactly (int, uint and
// double are distinct; maps compare as sets of entries); an error
// expectation passes on any error, except one that says "not supported yet".
//
// tests/conformance/cel_known_failures.txt lists the vectors that are known
// to fail, one a line: `name<TAB>reason`. A failing vector that is not listed
// fails the test, and so does a listed vector that now passes (remove it from
// the list). Reasons that start with "not supported yet" count as not yet
// supported in the summary.
//
// A file in tests/conformance/corrections/ with the name of a shared vector
// file replaces it: some of the shared vectors were found to disagree with
// upstream (tools/oracle) and this is the corrected copy.
//
//   cel conformance: N passed, M known failures (K not yet supported), C corrections used
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/base64.h"
#include "cli/run_command.h"
#include "manifest/json_parser.h"

namespace dra {
namespace {

namespace fs = std::filesystem;
using manifest::Node;
using manifest::NodeKind;

constexpr std::string_view kNotSupported = "not supported yet";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<double> DoubleOf(const Node& n) {
  if (n.kind == NodeKind::kString) {
    if (n.text == "NaN") return std::nan("");
    if (n.text == "Infinity") return HUGE_VAL;
    if (n.text == "-Infinity") return -HUGE_VAL;
    return std::nullopt;
  }
  double d = 0;
  auto [p, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), d);
  if (ec != std::errc()) return std::nullopt;
  return d;
}

// Structural equality of two typed values (FORMAT.md §2).
bool TypedEqual(const Node& want, const Node& got) {
  if (!want.is_mapping() || !got.is_mapping() || want.keys.size() != 1 || got.keys.size() != 1) {
    return false;
  }
  const std::string& type = want.keys[0].first;
  if (type != got.keys[0].first) return false;
  const Node& w = want.items[0];
  const Node& g = got.items[0];
  if (type == "double") {
    std::optional<double> a = DoubleOf(w), b = DoubleOf(g);
    if (!a || !b) return false;
    if (std::isnan(*a) || std::isnan(*b)) return std::isnan(*a) && std::isnan(*b);
    return *a == *b && std::signbit(*a) == std::signbit(*b);
  }
  if (type == "bytes") {
    StatusOr<std::string> a = Base64Decode(w.text, Base64Syntax::kLenient);
    StatusOr<std::string> b = Base64Decode(g.text, Base64Syntax::kLenient);
    return a.ok() && b.ok() && *a == *b;
  }
  if (type == "bool") return w.kind == g.kind && w.bool_value == g.bool_value;
  if (type == "null") return w.is_null() && g.is_null();
  if (type == "list") {
    if (w.items.size() != g.items.size()) return false;
    for (size_t i = 0; i < w.items.size(); ++i) {
      if (!TypedEqual(w.items[i], g.items[i])) return false;
    }
    return true;
  }
  if (type == "map") {
    if (w.items.size() != g.items.size()) return false;
    for (const Node& wp : w.items) {
      bool found = false;
      for (const Node& gp : g.items) {
        if (wp.items.size() == 2 && gp.items.size() == 2 && TypedEqual(wp.items[0], gp.items[0])) {
          found = TypedEqual(wp.items[1], gp.items[1]);
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }
  return w.kind == g.kind && w.text == g.text;
}

std::string Render(const Node& n) {
  switch (n.kind) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBool: return n.bool_value ? "true" : "false";
    case NodeKind::kInt:
    case NodeKind::kFloat: return n.text;
    case NodeKind::kString: return "\"" + n.text + "\"";
    case NodeKind::kSequence: {
      std::string out = "[";
      for (size_t i = 0; i < n.items.size(); ++i) out += (i ? ", " : "") + Render(n.items[i]);
      return out + "]";
    }
    case NodeKind::kMapping: {
      std::string out = "{";
      for (size_t i = 0; i < n.items.size(); ++i) {
        out += (i ? ", " : "") + n.keys[i].first + ": " + Render(n.items[i]);
      }
      return out + "}";
    }
  }
  return "?";
}

struct KnownFailures {
  std::map<std::string, std::string> reasons;
};

KnownFailures LoadKnownFailures() {
  KnownFailures k;
  std::ifstream in(std::string(DRA_SOURCE_DIR) + "/tests/conformance/cel_known_failures.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      k.reasons[line] = "";
    } else {
      k.reasons[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  return k;
}

TEST(CelConformanceTest, EveryVector) {
  const fs::path dir = fs::path(DRA_TESTDATA_DIR) / "conformance" / "cel";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  const fs::path corrected = fs::path(DRA_SOURCE_DIR) / "tests/conformance/corrections";
  std::vector<fs::path> files;
  size_t corrections = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".jsonl") continue;
    const fs::path correction = corrected / entry.path().filename();
    if (fs::is_regular_file(correction)) {
      files.push_back(correction);
      ++corrections;
    } else {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  ASSERT_FALSE(files.empty());

  const KnownFailures known = LoadKnownFailures();
  size_t passed = 0, known_failed = 0, not_supported = 0;
  std::vector<std::string> unexpected_failures, unexpected_passes;
  std::map<std::string, bool> seen;

  for (const fs::path& file : files) {
    const std::string stem = file.stem().string();
    const bool kubernetes = stem.starts_with("k8s-") || stem.starts_with("dra-");
    const std::string input = ReadFile(file);
    StatusOr<std::vector<manifest::Document>> vectors = manifest::ParseJson(input, file.string());
    ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();

    testing::CommandResult r =
        testing::RunCommand(std::string(DRACTL_BIN) + " cel run " + testing::ShellQuote(file.string()) + " --profile " +
                            (kubernetes ? "kubernetes" : "standard"));
    ASSERT_EQ(r.exit_code, 0) << file << ": " << r.output.substr(0, 2000);
    StatusOr<std::vector<manifest::Document>> results = manifest::ParseJson(r.output, "output");
    ASSERT_TRUE(results.ok()) << file << ": " << results.status().ToString();
    ASSERT_EQ(results->size(), vectors->size()) << file;

    for (size_t i = 0; i < vectors->size(); ++i) {
      const Node& v = (*vectors)[i].root;
      const Node& got = (*results)[i].root;
      const Node* name = v.Find("name");
      ASSERT_NE(name, nullptr);
      const Node* got_name = got.Find("name");
      ASSERT_TRUE(got_name != nullptr && got_name->text == name->text) << name->text;
      seen[name->text] = true;
      const Node* expect = v.Find("expect");
      ASSERT_NE(expect, nullptr) << name->text;
      const Node* want_value = expect->Find("value");
      const Node* got_value = got.Find("value");
      const Node* got_error = got.Find("error");
      bool ok;
      if (want_value != nullptr) {
        ok = got_value != nullptr && TypedEqual(*want_value, *got_value);
      } else {
        ok = got_error != nullptr && !got_error->text.starts_with(kNotSupported);
      }
      auto it = known.reasons.find(name->text);
      const bool listed = it != known.reasons.end();
      if (ok) {
        ++passed;
        if (listed) unexpected_passes.push_back(name->text);
        continue;
      }
      if (listed) {
        ++known_failed;
        if (it->second.starts_with(kNotSupported)) ++not_supported;
        continue;
      }
      const Node* expr = v.Find("expr");
      unexpected_failures.push_back(name->text + "\n    expr: " + (expr ? expr->text : "") +
                                    "\n    want: " + Render(*expect) + "\n    got:  " +
                                    (got_value   ? "value " + Render(*got_value)
                                     : got_error ? "error " + got_error->text
                                                 : "?"));
    }
  }

  for (const auto& [name, reason] : known.reasons) {
    EXPECT_TRUE(seen.count(name) > 0) << "known failure names no vector: " << name;
  }
  for (const std::string& f : unexpected_failures) ADD_FAILURE() << "unexpected failure: " << f;
  for (const std::string& p : unexpected_passes) {
    ADD_FAILURE() << "now passes; remove it from tests/conformance/cel_known_failures.txt: " << p;
  }
  std::printf(
      "cel conformance: %zu passed, %zu known failures (%zu not yet supported), "
      "%zu corrections used\n",
      passed, known_failed, not_supported, corrections);
}

TEST(CelRunCommandTest, ExitCodesAndOutputShape) {
  const fs::path dir = fs::temp_directory_path() / "dra_cel_run_test";
  fs::create_directories(dir);
  const fs::path good = dir / "good.jsonl";
  std::ofstream(good) << R"({"name": "v", "expr": "x + 1u", "bindings": {"x": {"uint": "1"}}})"
                         "\n"
                      << R"({"name": "e", "expr": "1 / 0"})"
                         "\n"
                      << R"({"name": "s", "expr": "1 +"})"
                         "\n";
  testing::CommandResult r = testing::RunCommand(std::string(DRACTL_BIN) + " cel run " + good.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "{\"name\": \"v\", \"value\": {\"uint\": \"2\"}}\n"
            "{\"name\": \"e\", \"error\": \"division by zero\"}\n"
            "{\"name\": \"s\", \"error\": \"ERROR: <input>:1:4: Syntax error: mismatched input "
            "'<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
            "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\\n | 1 +\\n | ...^\"}\n");

  const fs::path bad = dir / "bad.jsonl";
  std::ofstream(bad) << "{\"name\": \"a\", \"expr\": \"1\"}\n[1]\n";
  EXPECT_EQ(testing::RunCommand(std::string(DRACTL_BIN) + " cel run " + bad.string()).exit_code, 1);
  EXPECT_EQ(testing::RunCommand(std::string(DRACTL_BIN) + " cel run " + (dir / "none").string()).exit_code, 1);
  EXPECT_EQ(testing::RunCommand(std::string(DRACTL_BIN) + " cel run").exit_code, 2);
  EXPECT_EQ(testing::RunCommand(std::string(DRACTL_BIN) + " cel run " + good.string() + " --profile nope").exit_code,
            2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dra
