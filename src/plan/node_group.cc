#include "plan/node_group.h"

#include <charconv>
#include <cstdlib>
#include <utility>

#include "api/defaults.h"
#include "api/names.h"
#include "api/validation.h"
#include "manifest/decode.h"

namespace dra::plan {
namespace {

// Collects a group's problems, each at its line and with its field path.
class Problems {
 public:
  Problems(const std::string& file, std::vector<manifest::LoadMessage>* out) : file_(file), out_(out) {}

  void Add(manifest::Mark mark, std::string field, std::string message,
           api::Severity severity = api::Severity::kError) {
    if (severity == api::Severity::kError) ++errors_;
    out_->push_back(manifest::LoadMessage{.severity = severity,
                                          .file = file_,
                                          .mark = mark,
                                          .object = object_,
                                          .field = std::move(field),
                                          .message = std::move(message)});
  }
  void SetObject(std::string object) { object_ = std::move(object); }
  size_t errors() const { return errors_; }

 private:
  const std::string& file_;
  std::vector<manifest::LoadMessage>* out_;
  std::string object_;
  size_t errors_ = 0;
};

std::string Join(std::string_view prefix, std::string_view field) {
  if (field.empty()) return std::string(prefix);
  return std::string(prefix) + (field.starts_with('[') ? "" : ".") + std::string(field);
}

// An integer field: absent gives `fallback`; not an integer is an error.
std::optional<int64_t> IntField(const manifest::Node& spec, std::string_view key, std::string_view path,
                                std::optional<int64_t> fallback, Problems* problems) {
  const manifest::Node* n = spec.Find(key);
  if (n == nullptr || n->is_null()) {
    if (!fallback) problems->Add(spec.mark, std::string(path), "Required value");
    return fallback;
  }
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(n->text.data(), n->text.data() + n->text.size(), v);
  if (n->kind != manifest::NodeKind::kInt || ec != std::errc() || end != n->text.data() + n->text.size()) {
    problems->Add(n->mark, std::string(path), "Invalid value: \"" + n->text + "\": must be an integer");
    return std::nullopt;
  }
  return v;
}

// Decodes `root` (the template node or one slice) as an object of `kind`,
// defaulted and validated; problems at `path` inside the group.
template <typename T>
std::optional<T> TemplateObject(const manifest::Node& root, api::Kind kind, std::string_view path,
                                const api::FeatureGates& gates, Problems* problems) {
  std::vector<manifest::Diagnostic> diagnostics;
  StatusOr<api::Object> decoded = manifest::DecodeObject(root, {}, &diagnostics);
  for (const manifest::Diagnostic& d : diagnostics) problems->Add(d.mark, Join(path, d.field), d.message, d.severity);
  if (!decoded.ok()) {
    if (diagnostics.empty()) {
      problems->Add(root.mark, std::string(path),
                    "must be a " + std::string(api::ApiVersionFor(kind)) + " " + std::string(api::KindName(kind)));
    }
    return std::nullopt;
  }
  if (api::KindOf(*decoded) != kind) {
    problems->Add(root.mark, std::string(path),
                  "must be a " + std::string(api::KindName(kind)) + ", not a " + std::string(api::KindName(*decoded)));
    return std::nullopt;
  }
  api::SetDefaults(*decoded, "");
  for (const api::FieldError& e : api::Validate(*decoded, gates)) {
    api::FieldError copy = e;
    copy.field.clear();
    problems->Add(manifest::FindFieldMark(root, e.field), Join(path, e.field), copy.ToString(), e.severity);
  }
  return std::get<T>(std::move(*decoded));
}

void ParseOne(const manifest::Node& root, const std::string& file, const api::FeatureGates& gates,
              std::vector<NodeGroup>* groups, Problems* problems) {
  const size_t errors_before = problems->errors();
  if (!root.is_mapping()) {
    problems->Add(root.mark, "", "not a NodeGroup: expected a mapping");
    return;
  }
  const manifest::Node* api_version = root.Find("apiVersion");
  const manifest::Node* kind = root.Find("kind");
  if (api_version == nullptr || api_version->text != kNodeGroupApiVersion || kind == nullptr ||
      kind->text != "NodeGroup") {
    problems->Add(root.mark, "",
                  "not a NodeGroup: want apiVersion " + std::string(kNodeGroupApiVersion) + " and kind NodeGroup");
    return;
  }
  NodeGroup group{.file = file, .mark = root.mark};
  const manifest::Node* meta = root.Find("metadata");
  const manifest::Node* name = meta != nullptr ? meta->Find("name") : nullptr;
  if (name == nullptr || name->text.empty()) {
    problems->Add(meta != nullptr ? meta->mark : root.mark, "metadata.name", "Required value: name is required");
    return;
  }
  group.name = name->text;
  problems->SetObject("NodeGroup " + group.name);
  // Its nodes are named <name>-<n>: a DNS label leaves room for that.
  for (const std::string& e : api::IsDNS1123Label(group.name)) {
    problems->Add(name->mark, "metadata.name", "Invalid value: \"" + group.name + "\": " + e);
  }
  const manifest::Node* spec = root.Find("spec");
  if (spec == nullptr || !spec->is_mapping()) {
    problems->Add(root.mark, "spec", "Required value");
    return;
  }
  for (size_t i = 0; i < spec->keys.size(); ++i) {
    const std::string& key = spec->keys[i].first;
    if (key != "minSize" && key != "maxSize" && key != "price" && key != "template") {
      problems->Add(spec->keys[i].second, "spec." + key, "unknown field \"" + key + "\"");
    }
  }
  const std::optional<int64_t> min_size = IntField(*spec, "minSize", "spec.minSize", 0, problems);
  const std::optional<int64_t> max_size = IntField(*spec, "maxSize", "spec.maxSize", std::nullopt, problems);
  if (min_size && *min_size < 0) {
    problems->Add(spec->Find("minSize")->mark, "spec.minSize",
                  "Invalid value: " + std::to_string(*min_size) + ": must be greater than or equal to 0");
  }
  if (max_size && *max_size < 1) {
    problems->Add(spec->Find("maxSize")->mark, "spec.maxSize",
                  "Invalid value: " + std::to_string(*max_size) + ": must be greater than or equal to 1");
  } else if (max_size && min_size && *max_size < *min_size) {
    problems->Add(spec->Find("maxSize")->mark, "spec.maxSize",
                  "Invalid value: " + std::to_string(*max_size) + ": must be greater than or equal to minSize (" +
                      std::to_string(*min_size) + ")");
  }
  group.min_size = min_size.value_or(0);
  group.max_size = max_size.value_or(0);
  const manifest::Node* price = spec->Find("price");
  if (price == nullptr || price->is_null()) {
    problems->Add(spec->mark, "spec.price", "Required value: the price of one node (per hour, any currency)");
  } else {
    char* end = nullptr;
    const double v = std::strtod(price->text.c_str(), &end);
    if ((price->kind != manifest::NodeKind::kInt && price->kind != manifest::NodeKind::kFloat) ||
        end != price->text.c_str() + price->text.size() || !(v >= 0) || v > 1e15) {
      problems->Add(price->mark, "spec.price", "Invalid value: \"" + price->text + "\": must be a number >= 0");
    }
    group.price = v;
  }
  const manifest::Node* tmpl = spec->Find("template");
  const manifest::Node* node = tmpl != nullptr ? tmpl->Find("node") : nullptr;
  if (node == nullptr || node->is_null()) {
    problems->Add(tmpl != nullptr ? tmpl->mark : spec->mark, "spec.template.node", "Required value: a v1 Node");
    return;
  }
  std::optional<api::Node> template_node =
      TemplateObject<api::Node>(*node, api::Kind::kNode, "spec.template.node", gates, problems);
  if (template_node) group.node = std::move(*template_node);
  if (const manifest::Node* slices = tmpl->Find("resourceSlices"); slices != nullptr && !slices->is_null()) {
    if (!slices->is_sequence()) {
      problems->Add(slices->mark, "spec.template.resourceSlices", "must be a list of ResourceSlices");
    } else {
      for (size_t i = 0; i < slices->items.size(); ++i) {
        const std::string path = "spec.template.resourceSlices[" + std::to_string(i) + "]";
        std::optional<api::ResourceSlice> slice =
            TemplateObject<api::ResourceSlice>(slices->items[i], api::Kind::kResourceSlice, path, gates, problems);
        if (!slice) continue;
        if (template_node && slice->spec.node_name != group.node.metadata.name) {
          problems->Add(manifest::FindFieldMark(slices->items[i], "spec.nodeName"), path + ".spec.nodeName",
                        "Invalid value: \"" + slice->spec.node_name.value_or("") +
                            "\": must be the template node's name (\"" + group.node.metadata.name + "\")");
        }
        group.slices.push_back(std::move(*slice));
      }
    }
  }
  for (const NodeGroup& other : *groups) {
    if (other.name == group.name) {
      problems->Add(name->mark, "metadata.name",
                    "Duplicate value: \"" + group.name + "\" (also at " + other.file + ":" +
                        std::to_string(other.mark.line) + ")");
    }
  }
  if (problems->errors() == errors_before) groups->push_back(std::move(group));
}

}  // namespace

void ParseNodeGroups(std::string_view text, const std::string& file, const api::FeatureGates& gates,
                     std::vector<NodeGroup>* groups, std::vector<manifest::LoadMessage>* messages) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseManifestText(text, file);
  if (!docs.ok()) {
    messages->push_back(manifest::MessageFromParseError(docs.status(), file));
    return;
  }
  for (const manifest::Document& doc : *docs) {
    if (doc.root.is_null()) continue;  // an empty document
    Problems problems(file, messages);
    ParseOne(doc.root, file, gates, groups, &problems);
  }
}

std::string NodeName(const NodeGroup& group, size_t index) { return group.name + "-" + std::to_string(index); }

NodeInstance Instantiate(const NodeGroup& group, size_t index) {
  NodeInstance out{.node = group.node, .slices = group.slices};
  const std::string& template_name = group.node.metadata.name;
  const std::string name = NodeName(group, index);
  out.node.metadata.name = name;
  out.node.metadata.uid.clear();
  if (out.node.metadata.labels.find("kubernetes.io/hostname") != nullptr) {
    out.node.metadata.labels.insert_or_assign("kubernetes.io/hostname", name);
  }
  for (size_t i = 0; i < out.slices.size(); ++i) {
    api::ResourceSlice& slice = out.slices[i];
    slice.spec.node_name = name;
    slice.metadata.name = name + "-" + std::to_string(i);
    slice.metadata.uid.clear();
    std::string& pool = slice.spec.pool.name;
    if (const size_t at = pool.find(template_name); at != std::string::npos) {
      pool.replace(at, template_name.size(), name);
    } else {
      pool += "-" + name;
    }
  }
  return out;
}

}  // namespace dra::plan
