// dractl's YAML and JSON printing (manifest/emit.h) against kubectl's own
// printing code: tools/yamlprint, a Go program built on sigs.k8s.io/yaml
// v1.6.0, go.yaml.in/yaml/v2 v2.4.4 and encoding/json as kubectl v1.37.2
// links them (scripts/oracle-build builds it into build/yamlprint-go/).
// Every document is read by dractl's JSON parser and printed by both,
// compared byte for byte: a corpus of tricky strings (as values, as keys,
// nested in sequences), keys to sort, numbers, and a few thousand random
// strings from a fixed seed. Without the Go program the test is SKIPPED.
//
// The one deliberate difference: a string that go-yaml writes plain but a
// YAML 1.1 or 1.2 reader would not read as a string (manifest::
// ReadsAsNonString: `=`, `<<`, 1.0e+400, 2001-02-30, ...) is double-quoted
// by dractl; each such case is printed and counted, and must be exactly
// kubectl's line with the value in double quotes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/json_escape.h"
#include "manifest/emit.h"
#include "manifest/json_parser.h"

namespace dra::manifest {
namespace {

std::string YamlprintPath() {
  if (const char* env = std::getenv("DRACTL_YAMLPRINT"); env != nullptr && *env != '\0') return env;
  return std::string(DRA_SOURCE_DIR) + "/build/yamlprint-go/yamlprint";
}

// Runs yamlprint -o FORMAT on `input`; its standard output.
std::string RunYamlprint(const std::string& format, const std::string& input) {
  char dir[] = "/tmp/kubectl_print_test.XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  std::string in = std::string(dir) + "/in.json";
  std::string out = std::string(dir) + "/out";
  std::ofstream(in, std::ios::binary) << input;
  std::string cmd = "'" + YamlprintPath() + "' -o " + format + " < '" + in + "' > '" + out + "'";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  std::ifstream f(out, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::remove(in.c_str());
  std::remove(out.c_str());
  ::rmdir(dir);
  return ss.str();
}

// Splits a stream of documents at lines equal to `separator` (YAML: "---"),
// or after lines equal to `end` (JSON: "}", and "]").
std::vector<std::string> SplitDocuments(const std::string& text, const std::string& separator, const std::string& end) {
  std::vector<std::string> docs(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!separator.empty() && line == separator) {
      docs.emplace_back();
      continue;
    }
    docs.back() += line + "\n";
    if (!end.empty() && (line == end || line == "]")) docs.emplace_back();
  }
  if (docs.back().empty()) docs.pop_back();
  return docs;
}

std::string Json(std::string_view s) { return JsonString(s); }

std::vector<std::string> Corpus() {
  // clang-format off
  std::vector<std::string> c = {
      // issue #26: the PCI address (base 60 in YAML 1.1), booleans, nulls, numbers
      "0000:43:00.0", "0000:15:00.1", "yes", "No", "on", "~", "null", "1e3", "0x1F", "0o17", "012", "1_000",
      ".inf", "-.Inf", ".NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "1:20", "190:20:30.15", "",
      " leading", "a: b", "#x", "- x", "0.", "+1", "-", "true", "True", "TRUE", "y", "Y", "n", "off", "=", "<<",
      // more of the same families
      "N", "YES", "Yes", "yEs", "On", "ON", "oN", "Off", "OFF", "false", "False", "FALSE", "no", "NO", "Null",
      "NULL", "nULL", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NAN", "inf", "nan", "NaN", "Infinity",
      "0b101", "0b-1", "0b_", "0x_", "0x", "0o", "0o8", "08", "09.5", "1e400", "1.0e+400", "-1e400", ".5e999",
      "._5", ".5_0", "._", "1__0", "0xFFFFFFFFFFFFFFFFFF", "0o7777777777777777777777777",
      "18446744073709551615", "18446744073709551616", "9223372036854775808", "+9223372036854775808",
      "-9223372036854775809", "1:60", "1:2:3.4", "+1:20", "1_000:20", "0:0", "12:34", "00:1B:44:11:3A:B7",
      "fe80::1", "::1", "2001:db8::1", "1E3", "1e+3", "+", ".", "..", "-0", "+0", "00", "0", "1__", "_1", "1_",
      "1.2.3", "v1.2", "80Gi", "100m", "1.5", "-1.5e-3", "+.5", "-.5",
      // timestamps
      "2001-02-30", "2001-02-29", "2000-02-29", "1900-02-29", "2001-1-2", "2001-12-14T21:59:43Z",
      "2001-12-14 21:59:43.10 -5", "2001-12-14  21:59:43", "2001-12-14\t21:59:43", "2001-12-14T25:00:00Z",
      "2001-12-14T21:59:43+24:00", "2001-12-14T21:59:43+25:00", "2001-12-14T21:59:43,5Z", "12001-12-14",
      "2001-12-14x", "2001-12-14T21:59:43", "2001-12-14 21:59:43", "2001-12-14T21:59:43.123456789012Z",
      "2024-01-01T00:00:00Z", "2001-13-01", "2001-12-14t1:2:3Z",
      // indicators and punctuation
      "---", "--- x", "...", "-x", "- ", "?", "? x", "?x", ":", ": x", ":x", "a:b", "a :b", "a:", "a #b", "a#b",
      "#", "@x", "`x", "%x", "!x", "&x", "*x", "|", "|x", ">", "'", "'x'", "\"", "\"x\"", "[x", "{x", "x]", "x,y",
      "x}", "a: b: c", "a - b", "<", ">=", "&&", "<&>", "==", "a=b",
      // whitespace and control characters
      " ", "  ", "a  b", "a\tb", "\t", "a\rb", "\r\n", "x\x01y", "x\x7fy", "x\x1by", "a ", " a ", "\ta",
      // multi-line
      "a\n", "a\n\n", "\n", "\na", " \na", "a\n ", "a \nb", "a\n b", "\n\n", "a\r\nb", "line1\nline2",
      "line1\nline2\n", "  indented\nnext", "a\n\n\nb\n", "a\tb\nc", "\xe2\x80\xa8", "a\xc2\x85" "b", "a\nb\x01",
      // unicode
      "\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xf0\x9f\x98\x80", "a\xc2\xa0" "b",
      "\xef\xbb\xbf" "bom", "x\xef\xbb\xbf", "\xef\xbf\xbe", "a\xe2\x80\xa9" "b", "\xc2\x80",
      // long strings: folded at 80 columns, in every style
      std::string(100, 'x'),
      "The quick brown fox jumps over the lazy dog and keeps running far beyond the eighty column limit of go-yaml",
      "'quoted' start, then a long run of words that goes past the eighty column limit so that it has to fold",
      "a long string with a colon: in the middle that runs past the eighty column limit of the emitter for sure",
      "a long string with\ttabs that forces double quotes and runs past the eighty column limit of the emitter",
      "double  spaces  everywhere  in  a  long  string  with\ttab  that  runs  past  the  eighty  columns  limit",
      "long string with trailing space that runs past the eighty column limit of the emitter for sure yes ",
      "first line\nand a second line that is much longer than eighty columns and does not fold in literal style",
      "word " + std::string(90, 'y') + " word",
      "\xc3\xa9\xc3\xa9 unicode words \xc3\xa9\xc3\xa9 counted as characters not bytes \xc3\xa9\xc3\xa9\xc3\xa9 "
      "for the eighty column limit",
  };
  // clang-format on
  return c;
}

// Random strings over characters that matter to YAML readers.
std::vector<std::string> RandomStrings(size_t count) {
  static const std::vector<std::string> kAlphabet = {
      "0", "1", "2", "5", "6", "9", "0", "1", ":",  ":",  ".",  ".", "_",        "-",  "-", "+", " ", "e", "E",
      "x", "b", "o", "T", "t", "Z", "#", "'", "\"", "\n", "\t", "y", "n",        "N",  "~", "<", "=", "|", ">",
      "@", "%", "&", "*", "!", "?", ",", "[", "]",  "{",  "}",  "a", "\xc3\xa9", "\\", "i", "f", "I", "l"};
  static const std::vector<std::string> kNumeric = {"0", "1", "2", "3", "5", "9", ".", "_", ":", "-", "+",
                                                    "e", "x", "b", "o", "T", "Z", " ", "0", "1", "2", "4"};
  uint64_t state = 20260101;
  auto next = [&]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    const auto& alphabet = i % 2 == 0 ? kAlphabet : kNumeric;
    size_t len = 1 + next() % 12;
    std::string s;
    for (size_t k = 0; k < len; ++k) s += alphabet[next() % alphabet.size()];
    out.push_back(s);
  }
  // Date-like strings.
  for (size_t i = 0; i < count / 4; ++i) {
    std::string s =
        std::to_string(1990 + next() % 40) + "-" + std::to_string(next() % 14) + "-" + std::to_string(next() % 33);
    switch (next() % 4) {
      case 0: break;
      case 1:
        s += (next() % 2 ? "T" : " ") + std::to_string(next() % 26) + ":" + std::to_string(next() % 61) + ":" +
             std::to_string(next() % 61);
        break;
      case 2:
        s += "T01:02:03" + std::string(next() % 2 ? ".5" : "") +
             (next() % 2 ? "Z" : "+0" + std::to_string(next() % 10) + ":00");
        break;
      default: s += " 21:59:43.10 -" + std::to_string(next() % 30); break;
    }
    out.push_back(s);
  }
  return out;
}

class KubectlPrintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(YamlprintPath().c_str(), X_OK) != 0) {
      GTEST_SKIP() << "SKIPPED: no " << YamlprintPath()
                   << " (kubectl's printing, tools/yamlprint; scripts/oracle-build builds it with Go)";
    }
  }

  // Prints each JSON document with dractl and with yamlprint, both formats,
  // and compares. value_of[i]: the string of a {"k": s} document (known
  // differences are allowed only there), or nullptr.
  void Compare(const std::vector<std::string>& json_docs, const std::vector<const std::string*>& value_of) {
    std::string input;
    std::vector<Node> nodes;
    for (const std::string& j : json_docs) {
      input += j + "\n";
      auto docs = ParseJson(j, "doc.json");
      ASSERT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << j;
      ASSERT_EQ(docs->size(), 1u);
      nodes.push_back((*docs)[0].root);
    }
    std::vector<std::string> yaml = SplitDocuments(RunYamlprint("yaml", input), "---", "");
    std::vector<std::string> json = SplitDocuments(RunYamlprint("json", input), "", "}");
    ASSERT_EQ(yaml.size(), nodes.size());
    ASSERT_EQ(json.size(), nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::string ours = EmitYaml(nodes[i], {.sort_keys = true});
      if (ours != yaml[i]) {
        const std::string* s = value_of[i];
        if (json_docs[i].find("\xc2\x85") != std::string::npos) {
          // encoding/json leaves NEL (U+0085) unescaped; go-yaml, reading
          // that JSON, folds the raw line break into a space: kubectl
          // prints "a b" for "a\u0085b". dractl keeps the string.
          ++kubectl_fails_;
          Note("kubectl changes the string", yaml[i], ours);
        } else if (yaml[i].starts_with("# yamlprint: error: ")) {
          // go-yaml's reader refuses DEL, U+0080-U+009F but NEL, U+FFFE and
          // U+FFFF, which encoding/json leaves unescaped: kubectl fails
          // ("error converting JSON to YAML"); dractl escapes them.
          ++kubectl_fails_;
          Note("kubectl cannot print it", yaml[i], ours);
        } else if (s != nullptr && ReadsAsNonString(*s) && ours == "k: \"" + *s + "\"\n" &&
                   (yaml[i] == "k: " + *s + "\n" || yaml[i] == "k: '" + *s + "'\n")) {
          // kubectl's `k: s` or `k: 's'`, dractl's `k: "s"`.
          ++known_differences_;
          Note("a YAML 1.1/1.2 reader would not read it as a string", yaml[i], ours);
        } else {
          ADD_FAILURE() << "YAML differs for " << json_docs[i] << "\nkubectl:\n" << yaml[i] << "dractl:\n" << ours;
        }
      }
      EXPECT_EQ(EmitJson(nodes[i], 4, {.sort_keys = true}), json[i]) << "JSON differs for " << json_docs[i];
    }
  }

  // Prints the first few known differences of a test.
  void Note(const char* why, const std::string& kubectl, const std::string& ours) {
    if (++notes_ > 12 && std::getenv("KUBECTL_PRINT_ALL") == nullptr) return;
    std::printf("known difference (%s):\n  kubectl: %s  dractl:  %s", why, kubectl.c_str(), ours.c_str());
  }

  int known_differences_ = 0;
  int kubectl_fails_ = 0;
  int notes_ = 0;
};

TEST_F(KubectlPrintTest, CorpusAsValuesKeysAndNested) {
  std::vector<std::string> corpus = Corpus();
  std::vector<std::string> docs;
  std::vector<const std::string*> value_of;
  for (const std::string& s : corpus) {
    docs.push_back("{\"k\": " + Json(s) + "}");
    value_of.push_back(&s);
    if (ReadsAsNonString(s) && !s.empty()) continue;  // compared as a value only (see above)
    docs.push_back("{" + Json(s) + ": 1, \"z\": 2}");
    value_of.push_back(nullptr);
    docs.push_back("{\"a\": {\"b\": [" + Json(s) + ", {\"c\": " + Json(s) + ", \"d\": [[" + Json(s) +
                   "]]}], \"e\": {\"f\": {\"g\": " + Json(s) + "}}}}");
    value_of.push_back(nullptr);
  }
  Compare(docs, value_of);
  std::printf("%zu strings: %d known differences, %d strings kubectl cannot print as YAML\n", corpus.size(),
              known_differences_, kubectl_fails_);
  // The deliberate differences of the corpus: =, <<, numbers beyond range
  // or with misplaced underscores, and timestamps go-yaml cannot parse
  // (PyYAML reads them, or fails on them).
  EXPECT_EQ(known_differences_, 20);
  // DEL, U+0080, U+FFFE (value, key, nested: 9) and NEL (3).
  EXPECT_EQ(kubectl_fails_, 12);
}

TEST_F(KubectlPrintTest, KeyOrderNumbersAndContainers) {
  std::vector<std::string> docs = {
      // Keys on which go-yaml's order is a total order. On some sets it is
      // not ("a10" < "a1b2" < "a2" < "a10", and "v1beta1", "v2", "v10"):
      // Go's sort then depends on the map's random iteration order, and
      // kubectl prints such keys in a different order from run to run;
      // dractl's stable sort gives one fixed order.
      R"({"": 35, "-x": 9, "_x": 8, "0": 10, "0.5": 20, "00": 21, "1": 11, "9": 13, "10": 12, "010": 22,
          "A": 24, "B": 7, "a": 25, "a b": 27, "aa": 26, "b": 6, "a1": 3, "a2": 2, "a10": 1, "x-y": 15,
          "x.y": 14, "x_y": 16, "z": 17, "\u00e9": 23, "gpu0": 1, "gpu1": 1, "gpu10": 1, "gpu2": 1,
          "node-1": 1, "node-10": 1, "node-2": 1, "0001": 1, "1.5": 1, "1.10": 1, "v1": 32, "v1beta1": 31,
          "v1beta2": 1, "\ufeffbom": 1, "a01": 1, "a001": 1, "a0": 1, "a00": 1, "b07": 1, "b7": 1})",
      R"({"ints": [0, -1, 1, 9223372036854775807, -9223372036854775808, 18446744073709551615, 99999999999999999999],
          "floats": [1.0, 1.5, -0.5, 1e3, 1E3, 1e21, 1e20, 1e-7, 1e-6, 0.0001, 100000000.0, 1234567.5, 123456.5,
                     1.7976931348623157e308, 5e-324, 0.1, 2.5e-5, 3.0e10],
          "other": [true, false, null], "empty": {"m": {}, "s": [], "ss": [[], {}]}})",
      R"([[1, [2, [3, {"a": [4]}]]], {"x": {"y": []}}, [{}], "end"])",
      R"({"s": [{"a": 1, "b": [1, 2]}, [{"c": 3}], {"d": {"e": [{"f": "g"}]}}]})",
      R"({"html": "<a href=\"x\">&amp;</a>", "ls": "a\u2028b\u2029c", "ctl": "\u0000\u0001\u001f\b\f\u001b"})",
      R"({")" + std::string(130, 'k') + R"(": "long key", "k\nk": "multi-line key", "short": 1})",
  };
  Compare(docs, std::vector<const std::string*>(docs.size(), nullptr));
}

TEST_F(KubectlPrintTest, RandomStrings) {
  std::vector<std::string> strings = RandomStrings(4000);
  std::vector<std::string> docs;
  std::vector<const std::string*> value_of;
  for (const std::string& s : strings) {
    docs.push_back("{\"k\": " + Json(s) + "}");
    value_of.push_back(&s);
  }
  Compare(docs, value_of);
  std::printf("%zu random strings: %d known differences\n", strings.size(), known_differences_);
  EXPECT_EQ(kubectl_fails_, 0);
}

}  // namespace
}  // namespace dra::manifest
