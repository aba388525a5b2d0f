// Parses the `expr` of every vector in testdata/conformance/cel/*.jsonl.
//
// Every vector that expects a value must parse without issues. Vectors that
// expect an error may fail to parse only when their error is a syntax error;
// the test lists those it finds, and fails on any other parse failure.
// Parsed trees are checked for the invariants of ast.h, and where the whole
// expression is a literal, its constant is compared with the expected value
// (which checks escapes and number forms against cel-spec).
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/base64.h"
#include "cel/parser/parser.h"
#include "manifest/json_parser.h"

namespace dra::cel {
namespace {

namespace fs = std::filesystem;

struct Vector {
  std::string file;
  std::string name;
  std::string expr;
  bool expects_error = false;
  std::string error;                      // the expected error text, if any
  const manifest::Node* value = nullptr;  // the expected typed value, if any
};

// If `value` is a scalar typed value (FORMAT.md §2), whether `c` equals it;
// std::nullopt when there is nothing to compare.
std::optional<bool> ConstantMatches(const Constant& c, const manifest::Node& value) {
  if (!value.is_mapping() || value.keys.size() != 1) return std::nullopt;
  const std::string& type = value.keys[0].first;
  const manifest::Node& v = value.items[0];
  if (type == "int" && c.kind() == Constant::Kind::kInt) {
    return std::to_string(c.int_value()) == v.text;
  }
  if (type == "uint" && c.kind() == Constant::Kind::kUint) {
    return std::to_string(c.uint_value()) == v.text;
  }
  if (type == "double" && c.kind() == Constant::Kind::kDouble && !v.text.empty()) {
    double want = 0;
    auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), want);
    if (ec != std::errc()) return std::nullopt;
    return want == c.double_value();
  }
  if (type == "string" && c.kind() == Constant::Kind::kString) return v.text == c.string_value();
  if (type == "bytes" && c.kind() == Constant::Kind::kBytes) {
    StatusOr<std::string> bytes = Base64Decode(v.text, Base64Syntax::kLenient);
    return bytes.ok() && *bytes == c.bytes_value();
  }
  if (type == "bool" && c.kind() == Constant::Kind::kBool) return v.bool_value == c.bool_value();
  if (type == "null" && c.kind() == Constant::Kind::kNull) return true;
  return false;  // a literal of another type than expected
}

// Invariants 1-3 of ast.h.
void CheckInvariants(const ParsedExpr& parsed, const std::string& name) {
  std::set<int64_t> seen;
  auto id_ok = [&](int64_t id) {
    EXPECT_TRUE(id > 0 && id < parsed.next_id && seen.insert(id).second &&
                parsed.source_info.GetPosition(id).has_value())
        << name << ": bad id " << id;
  };
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    id_ok(e.id());
    switch (e.kind()) {
      case ExprKind::kUnspecified: ADD_FAILURE() << name << ": unspecified node"; break;
      case ExprKind::kSelect: walk(*e.select().operand); break;
      case ExprKind::kCall:
        if (e.call().has_target()) walk(*e.call().target);
        for (const Expr& a : e.call().args) walk(a);
        break;
      case ExprKind::kList:
        for (const Expr& a : e.list().elements) walk(a);
        break;
      case ExprKind::kStruct:
        for (const StructField& f : e.struct_expr().fields) {
          id_ok(f.id);
          walk(*f.value);
        }
        break;
      case ExprKind::kMap:
        for (const MapEntry& m : e.map().entries) {
          id_ok(m.id);
          walk(*m.key);
          walk(*m.value);
        }
        break;
      case ExprKind::kComprehension: {
        const ComprehensionExpr& c = e.comprehension();
        for (const Box<Expr>* b : {&c.iter_range, &c.accu_init, &c.loop_condition, &c.loop_step, &c.result}) {
          walk(**b);
        }
        break;
      }
      default: break;
    }
  };
  walk(parsed.expr);
}

// Reads every vector. `storage` keeps the parsed documents, which the
// returned vectors point into (Vector::value).
std::vector<Vector> LoadVectors(std::vector<manifest::Document>& storage) {
  const fs::path dir = fs::path(DRA_TESTDATA_DIR) / "conformance" / "cel";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> file_of_document;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto docs = manifest::ParseJson(buffer.str(), path.filename().string());
    EXPECT_TRUE(docs.ok()) << path << ": " << docs.status().ToString();
    if (!docs.ok()) continue;
    for (manifest::Document& d : *docs) {
      storage.push_back(std::move(d));
      file_of_document.push_back(path.filename().string());
    }
  }
  std::vector<Vector> vectors;
  for (size_t i = 0; i < storage.size(); ++i) {
    const manifest::Node& root = storage[i].root;
    const manifest::Node* name = root.Find("name");
    const manifest::Node* expr = root.Find("expr");
    const manifest::Node* expect = root.Find("expect");
    if (name == nullptr || expr == nullptr || expect == nullptr) {
      ADD_FAILURE() << file_of_document[i] << ":" << storage[i].mark.line << ": vector without name/expr/expect";
      continue;
    }
    Vector v;
    v.file = file_of_document[i];
    v.name = name->text;
    v.expr = expr->text;
    if (const manifest::Node* error = expect->Find("error")) {
      v.expects_error = true;
      v.error = error->text;
    }
    v.value = expect->Find("value");
    vectors.push_back(std::move(v));
  }
  return vectors;
}

TEST(ParseConformanceTest, EveryExpressionParses) {
  std::vector<manifest::Document> documents;
  const std::vector<Vector> vectors = LoadVectors(documents);
  ASSERT_GT(vectors.size(), 1000u);

  int parsed = 0;
  int literals = 0;
  std::vector<std::string> expected_failures;
  for (const Vector& v : vectors) {
    auto result = Parse(v.expr);
    ASSERT_TRUE(result.ok()) << v.name;
    if (result->issues.empty()) {
      ++parsed;
      CheckInvariants(*result->expr, v.name);
      const Expr& root = result->expr->expr;
      if (root.Is<Constant>() && v.value != nullptr) {
        if (auto match = ConstantMatches(root.constant(), *v.value)) {
          ++literals;
          EXPECT_TRUE(*match) << v.name << ": " << v.expr << " parsed as " << DebugString(root);
        }
      }
      continue;
    }
    const std::string issues = FormatIssues(v.expr, result->issues);
    const bool syntax_error_expected = v.expects_error && v.error.find("Syntax error") != std::string::npos;
    if (syntax_error_expected) {
      expected_failures.push_back(v.name + " (" + v.file + ", expects \"" + v.error + "\"):\n" + issues);
    } else {
      ADD_FAILURE() << v.name << " (" << v.file << ") does not parse:\n" << issues;
    }
  }
  std::printf("parsed %d of %zu conformance expressions (%d literals checked)\n", parsed, vectors.size(), literals);
  std::printf("%zu fail to parse as their vectors expect:\n", expected_failures.size());
  for (const std::string& f : expected_failures) std::printf("  %s\n", f.c_str());

  // The one syntax-error vector of the suite.
  const bool found = std::any_of(expected_failures.begin(), expected_failures.end(),
                                 [](const std::string& f) { return f.rfind("dra-compile/syntax-error ", 0) == 0; });
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace dra::cel
