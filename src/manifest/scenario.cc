#include "manifest/scenario.h"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "manifest/decode.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

class ScenarioReader {
 public:
  explicit ScenarioReader(std::string file) : file_(std::move(file)) {}

  StatusOr<Scenario> Read(const Node& root) {
    if (!root.is_mapping()) return Error(root.mark, "", "a scenario must be a mapping");
    Scenario s;
    bool has_expect = false;
    for (size_t i = 0; i < root.keys.size(); ++i) {
      const std::string& key = root.keys[i].first;
      const Node& v = root.items[i];
      if (key == "name") {
        DRA_RETURN_IF_ERROR(String(v, key, &s.name));
      } else if (key == "source") {
        DRA_RETURN_IF_ERROR(String(v, key, &s.source));
      } else if (key == "features") {
        DRA_RETURN_IF_ERROR(Strings(v, key, &s.features));
      } else if (key == "node") {
        DRA_RETURN_IF_ERROR(ReadNode(v, &s.node));
      } else if (key == "objects") {
        DRA_RETURN_IF_ERROR(ReadObjects(v, &s.objects));
      } else if (key == "allocatedDevices") {
        std::vector<std::string> ids;
        DRA_RETURN_IF_ERROR(Strings(v, key, &ids));
        for (size_t k = 0; k < ids.size(); ++k) {
          StatusOr<ScenarioDeviceId> id = ParseScenarioDeviceId(ids[k]);
          if (!id.ok()) return Error(v.items[k].mark, fmt::format("{}[{}]", key, k), id.status().message());
          s.allocated_devices.push_back(*id);
        }
      } else if (key == "allocatedShares") {
        DRA_RETURN_IF_ERROR(ReadShares(v, &s.allocated_shares));
      } else if (key == "allocate") {
        DRA_RETURN_IF_ERROR(Strings(v, key, &s.allocate));
      } else if (key == "expect") {
        DRA_RETURN_IF_ERROR(ReadExpect(v, &s.expect));
        has_expect = true;
      } else if (key == "maxSteps") {
        uint64_t steps = 0;
        if (v.kind != NodeKind::kInt || v.text.empty() || v.text[0] == '-' ||
            std::from_chars(v.text.data(), v.text.data() + v.text.size(), steps).ptr != v.text.data() + v.text.size()) {
          return Error(v.mark, key, "must be a non-negative integer");
        }
        s.max_steps = steps;
      } else {
        return Error(root.keys[i].second, key, "unknown scenario field");
      }
    }
    if (s.name.empty()) return Error(root.mark, "name", "Required value");
    if (s.node.metadata.name.empty()) return Error(root.mark, "node", "Required value: node.name");
    // `expect` is for the conformance tests; `dractl allocate --scenario`
    // runs a scenario without one.
    if (has_expect && s.expect.kind == ScenarioExpectation::Kind::kAllocations &&
        s.expect.allocations.size() != s.allocate.size()) {
      return Error(
          root.mark, "expect.allocations",
          fmt::format("has {} entries but allocate names {} claims", s.expect.allocations.size(), s.allocate.size()));
    }
    return s;
  }

 private:
  Status Error(Mark mark, std::string_view field, std::string_view message) const {
    if (field.empty()) {
      return InvalidArgumentError(fmt::format("{}:{}:{}: {}", file_, mark.line, mark.column, message));
    }
    return InvalidArgumentError(fmt::format("{}:{}:{}: {}: {}", file_, mark.line, mark.column, field, message));
  }

  Status String(const Node& n, std::string_view field, std::string* out) const {
    if (n.kind != NodeKind::kString) {
      return Error(n.mark, field, fmt::format("expected string, got {}", NodeKindName(n.kind)));
    }
    *out = n.text;
    return OkStatus();
  }

  Status Strings(const Node& n, std::string_view field, std::vector<std::string>* out) const {
    if (n.is_null()) return OkStatus();
    if (!n.is_sequence()) return Error(n.mark, field, fmt::format("expected list, got {}", NodeKindName(n.kind)));
    for (size_t i = 0; i < n.items.size(); ++i) {
      std::string s;
      DRA_RETURN_IF_ERROR(String(n.items[i], fmt::format("{}[{}]", field, i), &s));
      out->push_back(std::move(s));
    }
    return OkStatus();
  }

  // Decodes `tree` and reports its first error with the scenario's file.
  StatusOr<api::Object> Decode(const Node& tree, std::string_view field) const {
    std::vector<Diagnostic> diagnostics;
    StatusOr<api::Object> object = DecodeObject(tree, DecodeOptions{.strict = true}, &diagnostics);
    for (const Diagnostic& d : diagnostics) {
      if (d.severity == api::Severity::kError) {
        std::string where = d.field.empty() ? std::string(field) : fmt::format("{}: {}", field, d.field);
        return Error(d.mark, where, d.message);
      }
    }
    if (!object.ok()) return Error(tree.mark, field, object.status().message());
    return object;
  }

  Status ReadNode(const Node& n, api::Node* out) const {
    if (!n.is_mapping()) return Error(n.mark, "node", "expected a mapping with name and labels");
    Node tree = Node::Mapping();
    tree.mark = n.mark;
    tree.Add("apiVersion", Node::String("v1"));
    tree.Add("kind", Node::String("Node"));
    tree.Add("metadata", n);
    DRA_ASSIGN_OR_RETURN(api::Object object, Decode(tree, "node"));
    *out = std::get<api::Node>(std::move(object));
    return OkStatus();
  }

  Status ReadObjects(const Node& n, std::vector<api::Object>* out) const {
    if (n.is_null()) return OkStatus();
    if (!n.is_sequence()) return Error(n.mark, "objects", "expected list");
    for (size_t i = 0; i < n.items.size(); ++i) {
      std::string field = fmt::format("objects[{}]", i);
      StatusOr<api::Object> object = Decode(n.items[i], field);
      if (!object.ok()) return object.status();
      out->push_back(std::move(object).value());
    }
    return OkStatus();
  }

  Status ReadShares(const Node& n, std::vector<ScenarioShare>* out) const {
    if (n.is_null()) return OkStatus();
    if (!n.is_sequence()) return Error(n.mark, "allocatedShares", "expected list");
    for (size_t i = 0; i < n.items.size(); ++i) {
      const Node& item = n.items[i];
      std::string field = fmt::format("allocatedShares[{}]", i);
      if (!item.is_mapping()) return Error(item.mark, field, "expected a mapping");
      ScenarioShare share;
      for (size_t k = 0; k < item.keys.size(); ++k) {
        const std::string& key = item.keys[k].first;
        const Node& v = item.items[k];
        if (key == "device") {
          std::string text;
          DRA_RETURN_IF_ERROR(String(v, field + ".device", &text));
          StatusOr<ScenarioDeviceId> id = ParseScenarioDeviceId(text);
          if (!id.ok()) return Error(v.mark, field + ".device", id.status().message());
          share.device = *id;
        } else if (key == "shareID") {
          DRA_RETURN_IF_ERROR(String(v, field + ".shareID", &share.share_id));
        } else if (key == "consumedCapacity") {
          if (!v.is_mapping()) return Error(v.mark, field + ".consumedCapacity", "expected a mapping");
          for (size_t c = 0; c < v.keys.size(); ++c) {
            const Node& q = v.items[c];
            std::string qfield = fmt::format("{}.consumedCapacity[{}]", field, v.keys[c].first);
            if (q.kind != NodeKind::kString && q.kind != NodeKind::kInt && q.kind != NodeKind::kFloat) {
              return Error(q.mark, qfield, "expected a quantity");
            }
            StatusOr<quantity::Quantity> parsed = quantity::Quantity::Parse(q.text);
            if (!parsed.ok()) return Error(q.mark, qfield, parsed.status().message());
            share.consumed_capacity.insert_or_assign(v.keys[c].first, *parsed);
          }
        } else {
          return Error(item.keys[k].second, field, fmt::format("unknown field \"{}\"", key));
        }
      }
      out->push_back(std::move(share));
    }
    return OkStatus();
  }

  Status ReadExpect(const Node& n, ScenarioExpectation* out) const {
    if (!n.is_mapping()) return Error(n.mark, "expect", "expected a mapping");
    int outcomes = 0;
    for (size_t i = 0; i < n.keys.size(); ++i) {
      const std::string& key = n.keys[i].first;
      const Node& v = n.items[i];
      if (key == "allocations") {
        ++outcomes;
        out->kind = ScenarioExpectation::Kind::kAllocations;
        DRA_RETURN_IF_ERROR(ReadAllocations(v, &out->allocations));
      } else if (key == "unsatisfiable") {
        ++outcomes;
        if (v.kind != NodeKind::kBool || !v.bool_value) return Error(v.mark, "expect.unsatisfiable", "must be true");
        out->kind = ScenarioExpectation::Kind::kUnsatisfiable;
      } else if (key == "error") {
        ++outcomes;
        out->kind = ScenarioExpectation::Kind::kError;
        DRA_RETURN_IF_ERROR(String(v, "expect.error", &out->error));
      } else if (key == "upstreamError") {
        DRA_RETURN_IF_ERROR(String(v, "expect.upstreamError", &out->upstream_error));
      } else {
        return Error(n.keys[i].second, "expect", fmt::format("unknown field \"{}\"", key));
      }
    }
    if (outcomes != 1) {
      return Error(n.mark, "expect", "exactly one of allocations, unsatisfiable or error is required");
    }
    return OkStatus();
  }

  Status ReadAllocations(const Node& n, std::vector<ExpectedAllocation>* out) const {
    if (n.is_null()) return OkStatus();
    if (!n.is_sequence()) return Error(n.mark, "expect.allocations", "expected list");
    for (size_t i = 0; i < n.items.size(); ++i) {
      const Node& item = n.items[i];
      std::string field = fmt::format("expect.allocations[{}]", i);
      if (!item.is_mapping()) return Error(item.mark, field, "expected a mapping");
      ExpectedAllocation alloc;
      Node allocation = Node::Mapping();
      allocation.mark = item.mark;
      for (size_t k = 0; k < item.keys.size(); ++k) {
        const std::string& key = item.keys[k].first;
        if (key == "claim") {
          DRA_RETURN_IF_ERROR(String(item.items[k], field + ".claim", &alloc.claim));
        } else {
          allocation.keys.push_back(item.keys[k]);
          allocation.items.push_back(item.items[k]);
        }
      }
      // Decode the result as the status of a claim, so it is read exactly as
      // a ResourceClaim's status.allocation would be.
      Node meta = Node::Mapping();
      meta.Add("name", Node::String("expected"));
      Node status = Node::Mapping();
      status.Add("allocation", std::move(allocation));
      Node tree = Node::Mapping();
      tree.mark = item.mark;
      tree.Add("apiVersion", Node::String("resource.k8s.io/v1"));
      tree.Add("kind", Node::String("ResourceClaim"));
      tree.Add("metadata", std::move(meta));
      tree.Add("status", std::move(status));
      DRA_ASSIGN_OR_RETURN(api::Object object, Decode(tree, field));
      auto& claim = std::get<api::ResourceClaim>(object);
      if (claim.status.allocation) alloc.result = std::move(*claim.status.allocation);
      out->push_back(std::move(alloc));
    }
    return OkStatus();
  }

  std::string file_;
};

}  // namespace

StatusOr<ScenarioDeviceId> ParseScenarioDeviceId(std::string_view text) {
  size_t first = text.find('/');
  size_t last = text.rfind('/');
  if (first == std::string_view::npos || first == last || first == 0 || last + 1 == text.size() || last == first + 1) {
    return InvalidArgumentError(fmt::format("\"{}\" is not driver/pool/device", text));
  }
  return ScenarioDeviceId{std::string(text.substr(0, first)), std::string(text.substr(first + 1, last - first - 1)),
                          std::string(text.substr(last + 1))};
}

StatusOr<Scenario> ParseScenario(std::string_view text, const std::string& file) {
  DRA_ASSIGN_OR_RETURN(std::vector<Document> docs, ParseYaml(text, file));
  if (docs.size() != 1) {
    return InvalidArgumentError(
        fmt::format("{}: a scenario file holds exactly one document, found {}", file, docs.size()));
  }
  ScenarioReader reader(file);
  return reader.Read(docs[0].root);
}

StatusOr<Scenario> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return InvalidArgumentError(fmt::format("{}: is a directory", path));
  if (!in) return NotFoundError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseScenario(buffer.str(), path);
}

}  // namespace dra::manifest
