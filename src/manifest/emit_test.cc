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

TEST(EmitTest, JsonSpacedSeparatorsOnOneLine) {
  Node root = Node::Mapping();
  Node items = Node::Sequence();
  items.Push(Node::Int(1));
  items.Push(Node::Number("2.5000", NodeKind::kFloat));
  root.Add("b", items);
  root.Add("a", Node::Mapping());
  root.Add("c", Node::Null());
  // As Python's json.dumps(..., sort_keys=False) writes it, by hand.
  EXPECT_EQ(EmitJson(root, 0, {.spaced_separators = true}), "{\"b\": [1, 2.5000], \"a\": {}, \"c\": null}\n");
  EXPECT_EQ(EmitJson(root, 0), "{\"b\":[1,2.5000],\"a\":{},\"c\":null}\n");
  // With an indent the layout is MarshalIndent's either way.
  EXPECT_EQ(EmitJson(root, 2, {.spaced_separators = true}), EmitJson(root, 2));
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

std::string Value(std::string_view s) {
  Node m = Node::Mapping();
  m.Add("k", Node::String(std::string(s)));
  return EmitYaml(m, {.sort_keys = true});
}

// Strings a YAML 1.1 reader (PyYAML, Ansible, older go-yaml) would read as
// something else, written by hand: each must come out quoted. go-yaml (and
// so kubectl) quotes all of them too, except where noted.
TEST(EmitTest, QuotesWhatYaml11ReadersReadAsOtherTypes) {
  struct Case {
    const char* in;
    const char* out;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"0000:43:00.0", "k: \"0000:43:00.0\"\n"},  // base 60: PyYAML reads 2580.0 (issue #26)
           {"1:20", "k: \"1:20\"\n"},                  // base-60 int 80
           {"190:20:30.15", "k: \"190:20:30.15\"\n"},  // base-60 float
           {"yes", "k: \"yes\"\n"},
           {"No", "k: \"No\"\n"},
           {"on", "k: \"on\"\n"},
           {"off", "k: \"off\"\n"},
           {"OFF", "k: \"OFF\"\n"},
           {"y", "k: \"y\"\n"},  // not a bool in PyYAML, but in go-yaml v2
           {"Y", "k: \"Y\"\n"},
           {"n", "k: \"n\"\n"},
           {"true", "k: \"true\"\n"},
           {"True", "k: \"True\"\n"},
           {"TRUE", "k: \"TRUE\"\n"},
           {"~", "k: \"~\"\n"},
           {"null", "k: \"null\"\n"},
           {"", "k: \"\"\n"},
           {"1e3", "k: \"1e3\"\n"},
           {"0x1F", "k: \"0x1F\"\n"},
           {"0o17", "k: \"0o17\"\n"},
           {"012", "k: \"012\"\n"},  // octal 10
           {"1_000", "k: \"1_000\"\n"},
           {"0b101", "k: \"0b101\"\n"},
           {".inf", "k: \".inf\"\n"},
           {"-.Inf", "k: \"-.Inf\"\n"},
           {".NaN", "k: \".NaN\"\n"},
           {"0.", "k: \"0.\"\n"},
           {"+1", "k: \"+1\"\n"},
           {"2001-12-14", "k: \"2001-12-14\"\n"},
           {"2001-12-14t21:59:43.10-05:00", "k: \"2001-12-14t21:59:43.10-05:00\"\n"},
           // kubectl leaves these plain; PyYAML would not read a string:
           {"=", "k: \"=\"\n"},                                                  // the value key
           {"<<", "k: \"<<\"\n"},                                                // the merge key
           {"2001-12-14 21:59:43.10 -5", "k: \"2001-12-14 21:59:43.10 -5\"\n"},  // a timestamp
           {"2001-02-30", "k: \"2001-02-30\"\n"},                                // a timestamp, then an error
           {"1.0e+400", "k: \"1.0e+400\"\n"},                                    // a float (infinite)
           {"0b_", "k: \"0b_\"\n"},                                              // an int, then an error
           // Indicators: single quotes, as go-yaml writes them.
           {" leading", "k: ' leading'\n"},
           {"a: b", "k: 'a: b'\n"},
           {"#x", "k: '#x'\n"},
           {"- x", "k: '- x'\n"},
           {"-", "k: '-'\n"},
           {"it's: x", "k: 'it''s: x'\n"},
           {"a\tb", "k: \"a\\tb\"\n"},
           {"a\rb", "k: \"a\\rb\"\n"},
       }) {
    EXPECT_EQ(Value(c.in), c.out) << c.in;
    EXPECT_TRUE(ReadsAsNonString(c.in) || c.out[3] == '\'' ||
                std::string_view(c.in).find_first_of("\t\r") != std::string_view::npos)
        << c.in;
  }
  // Plain: every reader reads these back as strings.
  for (const char* s : {"gpu-0", "80Gi", "1.2.3", "v1.2", "a:b", "pci0000:15", "fe80::1", "2001-12-14x",
                        "0000:43:00.0x", "yess", "nil", "a=b", "1:2:3x"}) {
    EXPECT_EQ(Value(s), std::string("k: ") + s + "\n") << s;
    EXPECT_FALSE(ReadsAsNonString(s)) << s;
  }
}

TEST(EmitTest, MultiLineStringsAsLiteralBlocks) {
  EXPECT_EQ(Value("line1\nline2"), "k: |-\n  line1\n  line2\n");
  EXPECT_EQ(Value("line1\nline2\n"), "k: |\n  line1\n  line2\n");
  EXPECT_EQ(Value("a\n\n"), "k: |+\n  a\n\n");
  EXPECT_EQ(Value("  indented\nnext"), "k: |2-\n    indented\n  next\n");
  // Trailing spaces before a break: no block style.
  EXPECT_EQ(Value("a \nb"), "k: \"a \\nb\"\n");
  Node seq = Node::Sequence();
  seq.Push(Node::String("x\ny\n"));
  Node m = Node::Mapping();
  m.Add("s", seq);
  EXPECT_EQ(EmitYaml(m), "s:\n- |\n  x\n  y\n");
}

TEST(EmitTest, LongLinesFoldAtEightyColumns) {
  std::string words;
  for (int i = 0; i < 13; ++i) words += "word" + std::to_string(i) + " ";
  words += "end";
  // Plain: folded at the first space past column 80, continued at indent 2.
  EXPECT_EQ(Value(words),
            "k: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n"
            "  end\n");
  // Quoted: the same, inside the quotes.
  EXPECT_EQ(Value("'" + words),
            "k: '''word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n"
            "  end'\n");
  // One long word is not broken.
  std::string word(100, 'x');
  EXPECT_EQ(Value(word), "k: " + word + "\n");
}

TEST(EmitTest, SortedKeysCompareDigitRunsAsNumbers) {
  Node m = Node::Mapping();
  for (const char* k : {"gpu10", "gpu2", "gpu1", "b", "A", "_x", "0"}) m.Add(k, Node::Int(1));
  // Non-letters before letters; "_x" before "0": no digits reads as 0, and
  // the shorter run of digits comes first.
  EXPECT_EQ(EmitYaml(m, {.sort_keys = true}), "_x: 1\n\"0\": 1\nA: 1\nb: 1\ngpu1: 1\ngpu2: 1\ngpu10: 1\n");
  // JSON: byte order, as encoding/json sorts map keys.
  EXPECT_EQ(EmitJson(m, 0, {.sort_keys = true}),
            "{\"0\":1,\"A\":1,\"_x\":1,\"b\":1,\"gpu1\":1,\"gpu10\":1,\"gpu2\":1}\n");
  // Without sorting, the tree's order.
  EXPECT_EQ(EmitJson(m, 0), "{\"gpu10\":1,\"gpu2\":1,\"gpu1\":1,\"b\":1,\"A\":1,\"_x\":1,\"0\":1}\n");
}

TEST(EmitTest, JsonEscapesAsEncodingJson) {
  Node m = Node::Mapping();
  m.Add("s", Node::String("a<b>&c\u2028\x01\x7f\xff"));
  // Objects: <, >, & escaped (kubectl -o json); U+2028 and invalid UTF-8
  // (as U+FFFD) always.
  EXPECT_EQ(EmitJson(m, 0, {.sort_keys = true}), "{\"s\":\"a\\u003cb\\u003e\\u0026c\\u2028\\u0001\x7f\\ufffd\"}\n");
  EXPECT_EQ(EmitJson(m, 0), "{\"s\":\"a<b>&c\\u2028\\u0001\x7f\\ufffd\"}\n");
}

TEST(EmitTest, NumbersAsGoPrintsThem) {
  Node m = Node::Mapping();
  m.Add("a", Node::Number("1.0", NodeKind::kFloat));
  m.Add("b", Node::Number("1e3", NodeKind::kFloat));
  m.Add("c", Node::Number("1234567.5", NodeKind::kFloat));
  m.Add("d", Node::Number("0.00000001", NodeKind::kFloat));
  EXPECT_EQ(EmitYaml(m, {.sort_keys = true}), "a: 1\nb: 1000\nc: 1.2345675e+06\nd: 1e-08\n");
  EXPECT_EQ(EmitJson(m, 0, {.sort_keys = true}), "{\"a\":1,\"b\":1000,\"c\":1234567.5,\"d\":1e-8}\n");
  // Reports keep the text.
  EXPECT_EQ(EmitYaml(m), "a: 1.0\nb: 1e3\nc: 1234567.5\nd: 0.00000001\n");
}

// NodeStyle::kDoubleQuoted: a JSON string literal on one line, whatever
// kubectl's printing would choose; other kinds ignore it.
TEST(EmitTest, DoubleQuotedStringsAsJsonLiterals) {
  auto quoted = [](std::string s) {
    Node m = Node::Mapping();
    m.Add("k", Node::QuotedString(std::move(s)));
    return EmitYaml(m);
  };
  EXPECT_EQ(quoted("plain"), "k: \"plain\"\n");
  EXPECT_EQ(quoted("110"), "k: \"110\"\n");
  EXPECT_EQ(quoted(""), "k: \"\"\n");
  // '"' and '\' escaped, a newline as \n, a tab as \t, DEL and other
  // controls as \u00XX.
  EXPECT_EQ(quoted("say \"hi\" \\ back\nslash\tx\x7f\x01"),
            "k: \"say \\\"hi\\\" \\\\ back\\nslash\\tx\\u007f\\u0001\"\n");
  // Non-ASCII as it is, except what YAML reads as a break or rejects (NEL,
  // U+2028, BOM) and invalid UTF-8 (as U+FFFD).
  EXPECT_EQ(quoted("\xC3\xA9-\xC2\x85-\xE2\x80\xA8-\xEF\xBB\xBF-\xFF"),
            "k: \"\xC3\xA9-\\u0085-\\u2028-\\ufeff-\xEF\xBF\xBD\"\n");
  // Past 80 columns: not folded (a plain or auto-quoted string would be).
  std::string words;
  for (int i = 0; i < 20; ++i) words += "word" + std::to_string(i) + " ";
  EXPECT_EQ(quoted(words), "k: \"" + words + "\"\n");
  // Other kinds print as always.
  Node n = Node::Int(5);
  n.style = NodeStyle::kDoubleQuoted;
  Node m = Node::Mapping();
  m.Add("i", n);
  m.Add("s", Node::QuotedString("x"));
  EXPECT_EQ(EmitYaml(m), "i: 5\ns: \"x\"\n");
  // In a sequence.
  Node seq = Node::Sequence();
  seq.Push(Node::QuotedString("a'b"));
  EXPECT_EQ(EmitYaml(seq), "- \"a'b\"\n");
  // JSON ignores the style; equality too.
  EXPECT_EQ(EmitJson(m, 0), "{\"i\":5,\"s\":\"x\"}\n");
  EXPECT_EQ(Node::QuotedString("x"), Node::String("x"));
}

// NodeStyle::kFlow: `{k: v, ...}` / `[a, b]` on one line, in a block
// sequence or as a block mapping's value; what it holds is flow too.
TEST(EmitTest, FlowCollectionsOnOneLine) {
  Node counters = Node::Mapping();
  Node mp = Node::FlowMapping();
  mp.Add("value", Node::QuotedString("98"));
  counters.Add("multiprocessors", mp);
  Node e = Node::FlowMapping();  // empty: {} as always
  counters.Add("empty", e);
  EXPECT_EQ(EmitYaml(counters), "multiprocessors: {value: \"98\"}\nempty: {}\n");

  Node item = Node::FlowMapping();
  item.Add("n", Node::Int(1));  // YAML 1.1's "no": quoted, as in block
  item.Add("s", Node::String("plain"));
  item.Add("c", Node::String("a, b"));  // a flow indicator: quoted
  item.Add("t", Node::String("true"));  // would read as a bool: quoted
  item.Add("u", Node::String("x:y"));   // ':' is an indicator in flow
  item.Add("e", Node::Mapping());
  Node list = Node::Sequence();  // inside flow: flow whatever its style
  list.Push(Node::String("x"));
  list.Push(Node::String("y: z"));
  list.Push(Node::Null());
  list.Push(Node::Bool(true));
  list.Push(Node::Number("1.5", NodeKind::kFloat));
  item.Add("l", list);
  item.Add("key, with comma", Node::String("line\nbreak"));
  Node block = Node::Mapping();
  block.Add("name", Node::String("x"));
  Node seq = Node::Sequence();
  seq.Push(item);
  seq.Push(block);
  Node root = Node::Mapping();
  root.Add("items", seq);
  const std::string yaml = EmitYaml(root);
  EXPECT_EQ(yaml,
            "items:\n"
            "- {\"n\": 1, s: plain, c: \"a, b\", t: \"true\", u: \"x:y\", e: {}, l: [x, \"y: z\", null, true, 1.5], "
            "\"key, with comma\": \"line\\nbreak\"}\n"
            "- name: x\n");
  // A flow sequence at the root; flow at the top of a document.
  Node fs = Node::Sequence();
  fs.style = NodeStyle::kFlow;
  fs.Push(Node::Int(1));
  fs.Push(Node::String("two"));
  EXPECT_EQ(EmitYaml(fs), "[1, two]\n");
  // Past 80 columns: not folded.
  Node wide = Node::FlowMapping();
  for (int i = 0; i < 12; ++i) wide.Add("key" + std::to_string(i), Node::String("value" + std::to_string(i)));
  std::string want = "{";
  for (int i = 0; i < 12; ++i) want += (i ? ", key" : "key") + std::to_string(i) + ": value" + std::to_string(i);
  EXPECT_EQ(EmitYaml(wide), want + "}\n");
  // JSON ignores the style.
  Node plain = item;
  plain.style = NodeStyle::kAuto;
  EXPECT_EQ(EmitJson(item), EmitJson(plain));
}

// Styled trees read back as the trees printed.
TEST(EmitTest, StyledYamlRoundTripsThroughParser) {
  Node root = Node::Mapping();
  root.Add("expression", Node::QuotedString("device.driver == \"a\\b\"\nnext\x7f\xC2\x85\xE2\x80\xA9 end   "));
  std::string long_text;
  for (int i = 0; i < 30; ++i) long_text += "w" + std::to_string(i) + " ";
  root.Add("long", Node::QuotedString(long_text));
  Node seq = Node::Sequence();
  Node flow = Node::FlowMapping();
  flow.Add("value", Node::QuotedString("1"));
  flow.Add("int", Node::Int(7));
  flow.Add("odd: key", Node::String("{not a map}"));
  flow.Add("empty", Node::String(""));
  flow.Add("dash", Node::String("- x"));
  flow.Add("hash", Node::String("a #b"));
  Node inner = Node::Sequence();
  inner.Push(Node::String("[x]"));
  inner.Push(Node::Sequence());
  inner.Push(Node::String("yes"));
  flow.Add("inner", inner);
  seq.Push(flow);
  seq.Push(Node::QuotedString("010"));
  root.Add("seq", seq);
  root.Add("docs", Sample());
  std::string yaml = EmitYaml(root);
  auto docs = ParseYaml(yaml, "out.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].root, root) << yaml;
}

// Reports (no sort_keys) keep a number's text, with YAML's spellings of
// NaN and the infinities.
TEST(EmitTest, ReportNumbersKeepTheirText) {
  Node m = Node::Mapping();
  m.Add("a", Node::Number("NaN", NodeKind::kFloat));
  m.Add("b", Node::Number("+Inf", NodeKind::kFloat));
  m.Add("c", Node::Number("-Inf", NodeKind::kFloat));
  m.Add("d", Node::Number("12", NodeKind::kInt));
  m.Add("e", Node::Number("1.50", NodeKind::kFloat));
  EXPECT_EQ(EmitYaml(m), "a: .nan\nb: .inf\nc: -.inf\nd: 12\ne: 1.50\n");
}

TEST(EmitTest, AppendYamlAppends) {
  Node m = Node::Mapping();
  m.Add("a", Node::Int(1));
  std::string out = "---\n";
  AppendYaml(m, out);
  AppendYaml(m, out);
  EXPECT_EQ(out, "---\na: 1\na: 1\n");
}

}  // namespace
}  // namespace dra::manifest
