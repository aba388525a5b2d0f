#include "manifest/emit.h"

#include <gtest/gtest.h>

#include "manifest/json_parser.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

Node Sample() {
  Node root = Node::Mapping();
  root.Add("apiVersion", Node::String("resource.k8s.io/v1"));
  Node meta = Node::Mapping();
  meta.Add("name", Node::String("slice-1"));
  meta.Add("labels", Node::Mapping());
  root.Add("metadata", meta);
  Node devices = Node::Sequence();
  Node dev = Node::Mapping();
  dev.Add("name", Node::String("gpu-0"));
  Node attrs = Node::Mapping();
  Node v = Node::Mapping();
  v.Add("string", Node::String("true"));
  attrs.Add("gpu.nvidia.com/model", v);
  Node w = Node::Mapping();
  w.Add("int", Node::Int(-3));
  attrs.Add("numa", w);
  dev.Add("attributes", attrs);
  dev.Add("tags", Node::Sequence());
  devices.Push(dev);
  Node nested = Node::Sequence();
  nested.Push(Node::String("a: b"));
  nested.Push(Node::String(""));
  nested.Push(Node::String("line\nbreak"));
  nested.Push(Node::String("0755"));
  nested.Push(Node::String("yes"));
  nested.Push(Node::Null());
  nested.Push(Node::Number("1.5", NodeKind::kFloat));
  devices.Push(nested);
  root.Add("devices", devices);
  return root;
}

// Node's mutable Find and Erase, which the emitter's callers use to edit a
// tree in place: the other keys keep their order.
TEST(EmitTest, EditedMappingPrintsWithoutTheErasedKey) {
  Node m = Node::Mapping();
  m.Add("a", Node::Int(1));
  m.Add("b", Node::Int(2));
  m.Add("c", Node::Int(3));
  ASSERT_NE(m.Find("b"), nullptr);
  *m.Find("c") = Node::String("x");
  EXPECT_TRUE(m.Erase("b"));
  EXPECT_FALSE(m.Erase("b"));
  EXPECT_FALSE(Node::Int(1).Erase("a"));
  EXPECT_EQ(EmitYaml(m), "a: 1\nc: x\n");
}

TEST(EmitTest, YamlRoundTripsThroughParser) {
  Node root = Sample();
  std::string yaml = EmitYaml(root);
  auto docs = ParseYaml(yaml, "out.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << yaml;
  EXPECT_EQ((*docs)[0].root, root) << yaml;
}

TEST(EmitTest, JsonRoundTripsThroughParser) {
  Node root = Sample();
  std::string json = EmitJson(root);
  auto docs = ParseJson(json, "out.json");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << json;
  EXPECT_EQ((*docs)[0].root, root) << json;
}

TEST(EmitTest, YamlLooksLikeKubectl) {
  Node root = Node::Mapping();
  Node spec = Node::Mapping();
  Node devices = Node::Sequence();
  Node d = Node::Mapping();
  d.Add("name", Node::String("gpu-0"));
  d.Add("count", Node::Int(2));
  devices.Push(d);
  spec.Add("devices", devices);
  root.Add("spec", spec);
  root.Add("kind", Node::String("ResourceSlice"));
  EXPECT_EQ(EmitYaml(root), "spec:\n  devices:\n  - name: gpu-0\n    count: 2\nkind: ResourceSlice\n");
  EXPECT_EQ(EmitYaml(root, {.sort_keys = true}),
            "kind: ResourceSlice\nspec:\n  devices:\n  - count: 2\n    name: gpu-0\n");
}

TEST(EmitTest, QuotesStringsThatWouldChangeType) {
  for (const char* s : {"true", "no", "1", "0x10", "1e3", "~", "", " lead", "a: b", "#x", "- x", ".5"}) {
    EXPECT_FALSE(IsPlainSafe(s)) << s;
  }
  for (const char* s : {"gpu-0", "80Gi", "1.2.3", "NVIDIA H100 80GB HBM3", "a:b", "pci0000:15"}) {
    EXPECT_TRUE(IsPlainSafe(s)) << s;
  }
}

}  // namespace
}  // namespace dra::manifest
