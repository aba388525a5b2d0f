// The loader reads one document at a time: what a stream's later documents
// do (a parse error, a List) must give the messages and marks that parsing
// the whole input first gave, and trees kept with keep_trees are read again
// from the input with the marks of the first parse.
#include "manifest/loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

constexpr std::string_view kClass = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
)";

std::vector<std::string> Messages(const LoadResult& r) {
  std::vector<std::string> out;
  for (const LoadMessage& m : r.messages) out.push_back(m.ToString());
  return out;
}

std::vector<std::string> Names(const LoadResult& r) {
  std::vector<std::string> out;
  for (const LoadedObject& o : r.objects) {
    out.push_back(ObjectDisplayName(o.object) + fmt::format(" @{}:{}", o.mark.line, o.mark.column));
  }
  return out;
}

TEST(LoaderStreamTest, ParseErrorInThirdDocumentKeepsItsLineAndTakesBackTheOthers) {
  // Documents 1 and 2 decode (the second with an error of its own, an
  // unknown field under --strict); the third has a YAML syntax error
  // (line 21 opens a flow sequence that never closes).
  const std::string text = std::string(kClass) +
                           "---\n"                             // 9
                           "apiVersion: resource.k8s.io/v1\n"  // 10
                           "kind: DeviceClass\n"               // 11
                           "metadata:\n"                       // 12
                           "  name: gpu2\n"                    // 13
                           "  bogus: 1\n"                      // 14: unknown field
                           "---\n"                             // 15
                           "apiVersion: resource.k8s.io/v1\n"  // 16
                           "kind: DeviceClass\n"               // 17
                           "metadata:\n"                       // 18
                           "  name: gpu3\n"                    // 19
                           "spec:\n"                           // 20
                           "  selectors: [a, b\n"              // 21: unclosed flow sequence
                           "other: 1\n";
  LoadResult streamed;
  Loader({.strict = true}).LoadText(text, "s.yaml", &streamed);
  // As before streaming: the parse error alone, where ParseYaml puts it.
  StatusOr<std::vector<Document>> whole = ParseYaml(text, "s.yaml");
  ASSERT_FALSE(whole.ok());
  ASSERT_EQ(Messages(streamed).size(), 1u) << testing::PrintToString(Messages(streamed));
  EXPECT_EQ(Messages(streamed)[0], whole.status().message());
  EXPECT_TRUE(streamed.objects.empty());
  EXPECT_EQ(streamed.documents, 0u);
  EXPECT_EQ(streamed.error_count(), 1u);
}

TEST(LoaderStreamTest, DecodeErrorInThirdDocumentPointsAtItsLine) {
  const std::string text = std::string(kClass) + "---\n" + std::string(kClass) +  // lines 1-8, 9, 10-17
                           "---\n"                                                // 18
                           "apiVersion: resource.k8s.io/v1\n"                     // 19
                           "kind: DeviceClass\n"                                  // 20
                           "metadata:\n"                                          // 21
                           "  name: gpu3\n"                                       // 22
                           "spec:\n"                                              // 23
                           "  selectors: 7\n";                                    // 24
  LoadResult r;
  Loader({}).LoadText(text, "s.yaml", &r);
  ASSERT_EQ(r.error_count(), 1u) << testing::PrintToString(Messages(r));
  EXPECT_TRUE(Messages(r)[0].starts_with("s.yaml:24:14: DeviceClass gpu3: spec.selectors: ")) << Messages(r)[0];
  EXPECT_EQ(r.documents, 3u);
  EXPECT_EQ(Names(r), (std::vector<std::string>{"DeviceClass gpu @1:1", "DeviceClass gpu @10:1"}));
}

TEST(LoaderStreamTest, ListInsideAStream) {
  const std::string text =
      "apiVersion: v1\n"                                       // 1
      "kind: Node\n"                                           // 2
      "metadata: {name: n0}\n"                                 // 3
      "---\n"                                                  // 4
      "apiVersion: v1\n"                                       // 5
      "kind: List\n"                                           // 6
      "items:\n"                                               // 7
      "- apiVersion: v1\n"                                     // 8
      "  kind: Node\n"                                         // 9
      "  metadata: {name: n1}\n"                               // 10
      "- apiVersion: v1\n"                                     // 11
      "  kind: NodeList\n"                                     // 12: a typed list inside: flattened
      "  items:\n"                                             // 13
      "  - metadata: {name: n2}\n"                             // 14
      "  - 7\n"                                                // 15: not an object
      "---\n"                                                  // 16
      "{apiVersion: v1, kind: Node, metadata: {name: n3}}\n";  // 17
  LoadResult r;
  Loader({}).LoadText(text, "l.yaml", &r);
  EXPECT_EQ(Names(r), (std::vector<std::string>{"Node n0 @1:1", "Node n1 @8:3", "Node n2 @14:5", "Node n3 @17:1"}));
  EXPECT_EQ(Messages(r), (std::vector<std::string>{"l.yaml:15:5: NodeList: items[1]: must be an object, not integer"}));
  EXPECT_EQ(r.documents, 3u);
}

TEST(LoaderStreamTest, JsonStreamErrorInThirdValue) {
  const std::string text =
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n"
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"b\"}}\n"
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"c\", \"name\": \"d\"}}\n";
  LoadResult r;
  Loader({}).LoadText(text, "s.json", &r);
  EXPECT_EQ(Messages(r), (std::vector<std::string>{
                             "s.json:3:64: JSON: duplicate key \"name\" (first at line 3:51)",
                         }));
  EXPECT_TRUE(r.objects.empty());
  EXPECT_EQ(r.documents, 0u);
}

TEST(LoaderStreamTest, SkippedKindsAreTakenBackWithTheRest) {
  const std::string text =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\n"
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
      "a: [\n";
  LoadResult r;
  Loader({}).LoadText(text, "t.yaml", &r);
  EXPECT_TRUE(r.skipped_kinds.empty());
  EXPECT_TRUE(r.objects.empty());
  StatusOr<std::vector<Document>> whole = ParseYaml(text, "t.yaml");
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(Messages(r), (std::vector<std::string>{whole.status().message()}));
}

// The marks FindFieldMark gives on the trees of the whole input's parse,
// walked here by hand (a List's items get kind and apiVersion as the loader
// adds them), against those on the trees the loader reads again.
struct FieldCase {
  std::string field;
  Mark mark;
};

class TempFile {
 public:
  explicit TempFile(std::string_view text, std::string_view suffix) {
    path_ =
        (std::filesystem::temp_directory_path() / fmt::format("loader_test_{}_{}{}", ::getpid(), ++counter_, suffix))
            .string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

TEST(LoaderTreesTest, TreesOfAStreamAreReadAgainWithTheirMarks) {
  const std::string text =
      "# a comment\n"                                              // 1
      "apiVersion: v1\n"                                           // 2
      "kind: Node\n"                                               // 3
      "metadata:\n"                                                // 4
      "  name: n0\n"                                               // 5
      "  labels: {a: b}\n"                                         // 6
      "---\n"                                                      // 7
      "apiVersion: v1\n"                                           // 8
      "kind: NodeList\n"                                           // 9
      "items:\n"                                                   // 10
      "- metadata:\n"                                              // 11
      "    name: n1\n"                                             // 12
      "- metadata:\n"                                              // 13
      "    name: n2\n"                                             // 14
      "    labels:\n"                                              // 15
      "      x: y\n"                                               // 16
      "--- {apiVersion: v1, kind: Node, metadata: {name: n3}}\n";  // 17
  TempFile file(text, ".yaml");
  for (bool from_file : {true, false}) {
    SCOPED_TRACE(from_file ? "file" : "text");
    LoadResult r;
    Loader loader({.keep_trees = true});
    if (from_file) {
      loader.LoadPath(file.path(), &r);
    } else {
      loader.LoadText(text, file.path(), &r);
    }
    ASSERT_EQ(r.objects.size(), 4u) << testing::PrintToString(Messages(r));
    for (const LoadedObject& o : r.objects) ASSERT_TRUE(o.tree);
    EXPECT_EQ(FindFieldMark(*r.objects[0].tree, "metadata.labels[a]"), (Mark{6, 15}));
    EXPECT_EQ(FindFieldMark(*r.objects[0].tree, "spec.taints[0]"), (Mark{2, 1}));
    EXPECT_EQ(FindFieldMark(*r.objects[1].tree, "metadata.name"), (Mark{12, 11}));
    // kind comes from the typed list: no line of its own.
    EXPECT_EQ(FindFieldMark(*r.objects[1].tree, "kind"), (Mark{0, 0}));
    EXPECT_EQ(FindFieldMark(*r.objects[2].tree, "metadata.labels[x]"), (Mark{16, 10}));
    EXPECT_EQ(FindFieldMark(*r.objects[3].tree, "metadata.name"), (Mark{17, 51}));
    EXPECT_EQ(r.objects[3].tree->mark, (Mark{17, 5}));
  }
}

TEST(LoaderTreesTest, JsonValuesOnOneLineAndListsOfJson) {
  const std::string text =
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}} "
      "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n"
      "  {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"b\"}}]}\n";
  TempFile file(text, ".json");
  LoadResult r;
  Loader({.keep_trees = true}).LoadPath(file.path(), &r);
  ASSERT_EQ(r.objects.size(), 2u) << testing::PrintToString(Messages(r));
  EXPECT_EQ(FindFieldMark(*r.objects[0].tree, "metadata.name"), (Mark{1, 59}));
  EXPECT_EQ(FindFieldMark(*r.objects[1].tree, "metadata.name"), (Mark{2, 61}));
  EXPECT_EQ(r.objects[1].tree->mark, (Mark{2, 3}));
}

TEST(LoaderTreesTest, OddLineBreaksFallBackToTheWholeInput) {
  // libyaml counts a lone \r as a line break, the quick re-read does not:
  // the tree is still the first parse's.
  const std::string text =
      "apiVersion: v1\rkind: Node\rmetadata: {name: a}\r---\r"
      "apiVersion: v1\rkind: Node\rmetadata:\r  name: b\r";
  TempFile file(text, ".yaml");
  LoadResult r;
  Loader({.keep_trees = true}).LoadPath(file.path(), &r);
  ASSERT_EQ(r.objects.size(), 2u) << testing::PrintToString(Messages(r));
  EXPECT_EQ(FindFieldMark(*r.objects[1].tree, "metadata.name"), (Mark{8, 9}));
}

TEST(LoaderTreesTest, ManagedFieldsDroppedAsWhenLoaded) {
  const std::string text =
      "apiVersion: v1\n"
      "kind: Node\n"
      "metadata:\n"
      "  name: a\n"
      "  managedFields:\n"
      "  - manager: x\n";
  LoadResult r;
  Loader({.keep_trees = true, .drop_managed_fields = true}).LoadText(text, "m.yaml", &r);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(FindFieldMark(*r.objects[0].tree, "metadata.managedFields[0]"), (Mark{4, 3}));
}

TEST(LoaderTreesTest, AChangedFileGivesTheObjectsMark) {
  const std::string text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n";
  TempFile file(text, ".yaml");
  LoadResult r;
  Loader({.keep_trees = true}).LoadPath(file.path(), &r);
  ASSERT_EQ(r.objects.size(), 1u);
  std::ofstream(file.path(), std::ios::binary) << "apiVersion: v1\nkind: Node\nmetadata:\n  name: b  \n";
  EXPECT_EQ(FindFieldMark(*r.objects[0].tree, "metadata.name"), (Mark{1, 1}));
}

TEST(LoaderTreesTest, NoTreesUnlessAsked) {
  LoadResult r;
  Loader({}).LoadText(kClass, "c.yaml", &r);
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_FALSE(r.objects[0].tree);
  EXPECT_TRUE(r.objects[0].tree == nullptr);
}

}  // namespace
}  // namespace dra::manifest
