#include "manifest/loader.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <system_error>

#include "fmt/format.h"
#include "manifest/decode.h"
#include "manifest/json_parser.h"
#include "manifest/limits.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

namespace fs = std::filesystem;

std::string ScalarText(const Node* n) {
  if (n == nullptr || n->kind != NodeKind::kString) return "";
  return n->text;
}

// "Kind ns/name" from a raw tree (used before/without decoding).
std::string TreeDisplayName(const Node& root) {
  std::string kind = ScalarText(root.Find("kind"));
  const Node* meta = root.Find("metadata");
  std::string name = meta ? ScalarText(meta->Find("name")) : "";
  std::string ns = meta ? ScalarText(meta->Find("namespace")) : "";
  if (kind.empty() && name.empty()) return "";
  std::string out = kind.empty() ? "object" : kind;
  if (!name.empty()) {
    out += ' ';
    if (!ns.empty()) out += ns + "/";
    out += name;
  }
  return out;
}

bool HasManifestExtension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

}  // namespace

std::string LoadMessage::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (mark.line > 0) out += fmt::format(":{}:{}", mark.line, mark.column);
    out += ": ";
  }
  if (severity == api::Severity::kWarning) out += "warning: ";
  if (!object.empty()) out += object + ": ";
  if (!field.empty()) out += field + ": ";
  out += message;
  // Input text quoted in a message may hold control bytes (a NUL escaped in
  // JSON, an ESC): print them as \xNN so that one message stays one line of
  // plain text. Newlines and tabs are kept (a CEL error's caret lines).
  std::string escaped;
  for (char c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      escaped += fmt::format("\\x{:02x}", u);
    } else {
      escaped += c;
    }
  }
  return escaped;
}

size_t LoadResult::error_count() const {
  return static_cast<size_t>(std::count_if(messages.begin(), messages.end(),
                                           [](const LoadMessage& m) { return m.severity == api::Severity::kError; }));
}

size_t LoadResult::warning_count() const { return messages.size() - error_count(); }

size_t LoadResult::skipped_count() const {
  size_t n = 0;
  for (const auto& [kind, count] : skipped_kinds) n += count;
  return n;
}

std::string ObjectDisplayName(const api::Object& object) {
  const api::ObjectMeta& meta = api::MetaOf(object);
  std::string out(api::KindName(object));
  out += ' ';
  if (!meta.namespace_.empty()) out += meta.namespace_ + "/";
  out += meta.name.empty() ? "<unnamed>" : meta.name;
  return out;
}

namespace {

// A file's text handed to `on_text`, or a message (cannot open, over the
// limit, a read error).
void ReadFileText(const std::string& path, std::vector<LoadMessage>* messages, const ManifestTextFn& on_text) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = fmt::format("cannot open: {}", std::strerror(errno))});
    return;
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  bool too_big = false;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxInputBytes) {
      too_big = true;
      break;
    }
  }
  bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (too_big) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = fmt::format("file is over the limit of {} bytes", kMaxInputBytes)});
    return;
  }
  if (read_error) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "read error"});
    return;
  }
  on_text(text, path);
}

}  // namespace

void ReadManifestTexts(const std::string& path, std::vector<LoadMessage>* messages, const ManifestTextFn& on_text) {
  if (path == "-") {
    std::string text;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
      text.append(buf, n);
      if (text.size() > kMaxInputBytes) {
        messages->push_back({.severity = api::Severity::kError,
                             .file = "<stdin>",
                             .mark = {},
                             .object = "",
                             .field = "",
                             .message = fmt::format("input is over the limit of {} bytes", kMaxInputBytes)});
        return;
      }
    }
    on_text(text, "<stdin>");
    return;
  }
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    // A link loop (ELOOP), a path through a file (ENOTDIR), no permission.
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "cannot open: " + ec.message()});
    return;
  }
  if (ec || !fs::exists(st)) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "no such file or directory"});
    return;
  }
  if (!fs::is_directory(st)) {
    ReadFileText(path, messages, on_text);
    return;
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(path, fs::directory_options::none, ec);
  if (ec) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "cannot read directory: " + ec.message()});
    return;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      messages->push_back({.severity = api::Severity::kError,
                           .file = path,
                           .mark = {},
                           .object = "",
                           .field = "",
                           .message = "cannot read directory: " + ec.message()});
      ec.clear();
      break;
    }
    std::error_code type_ec;
    if (it->is_symlink(type_ec)) {
      // Links to directories are not followed (no loops); say so. A link that
      // cannot be resolved (a loop, a dangling target) is reported by ReadFileText.
      fs::file_status target = fs::status(it->path(), type_ec);
      if (!type_ec && fs::is_directory(target)) {
        messages->push_back({.severity = api::Severity::kWarning,
                             .file = it->path().string(),
                             .mark = {},
                             .object = "",
                             .field = "",
                             .message = "symbolic link to a directory, not followed"});
        continue;
      }
      if (type_ec && HasManifestExtension(it->path())) {
        files.push_back(it->path().string());
        continue;
      }
    }
    if (it->is_regular_file(type_ec) && HasManifestExtension(it->path())) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) ReadFileText(f, messages, on_text);
}

void Loader::LoadPath(const std::string& path, LoadResult* out) const {
  ReadManifestTexts(path, &out->messages, [&](std::string_view text, const std::string& file) {
    ++out->files;
    LoadText(text, file, out);
  });
}

StatusOr<std::vector<Document>> ParseManifestText(std::string_view text, const std::string& file) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool json =
      (first != std::string_view::npos && text[first] == '{') || (file.size() > 5 && file.ends_with(".json"));
  return json ? ParseJson(text, file) : ParseYaml(text, file);
}

void Loader::LoadText(std::string_view text, const std::string& file_name, LoadResult* out) const {
  auto file = std::make_shared<const std::string>(file_name);
  StatusOr<std::vector<Document>> docs = ParseManifestText(text, file_name);
  if (!docs.ok()) {
    LoadMessage m = MessageFromParseError(docs.status(), file_name);
    if (options_.skip_unknown && text.find("{{") != std::string_view::npos) {
      m.severity = api::Severity::kWarning;
      m.message = "skipped (--skip-unknown): a template (it holds \"{{\"), not a manifest: " + m.message;
      ++out->skipped_kinds[std::string(kNotObjects)];
    }
    out->messages.push_back(std::move(m));
    return;
  }
  for (Document& doc : *docs) {
    ++out->documents;
    LoadDocument(std::move(doc.root), file, doc.mark, out);
  }
}

void Loader::LoadDocument(Node root, const std::shared_ptr<const std::string>& file, Mark mark, LoadResult* out) const {
  if (root.is_null()) return;  // empty document, as kubectl skips them
  if (!root.is_mapping()) {
    out->messages.push_back(
        {.severity = options_.skip_unknown ? api::Severity::kWarning : api::Severity::kError,
         .file = *file,
         .mark = root.mark.line ? root.mark : mark,
         .object = "",
         .field = "",
         .message = fmt::format("{}document is a {}, not a Kubernetes object",
                                options_.skip_unknown ? "skipped (--skip-unknown): " : "", NodeKindName(root.kind))});
    if (options_.skip_unknown) ++out->skipped_kinds[std::string(kNotObjects)];
    return;
  }
  std::string kind = ScalarText(root.Find("kind"));
  const Node* items = root.Find("items");
  if ((kind == "List" || (kind.size() > 4 && kind.ends_with("List"))) && items != nullptr) {
    if (!items->is_sequence() && !items->is_null()) {
      out->messages.push_back({.severity = api::Severity::kError,
                               .file = *file,
                               .mark = items->mark,
                               .object = kind,
                               .field = "items",
                               .message = fmt::format("must be a list, not {}", NodeKindName(items->kind))});
      return;
    }
    std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    std::string list_api_version = ScalarText(root.Find("apiVersion"));
    Node list_items = std::move(*const_cast<Node*>(items));
    for (size_t i = 0; i < list_items.items.size(); ++i) {
      Node& item = list_items.items[i];
      if (item.is_mapping() && !item_kind.empty()) {
        // Typed lists from the API omit kind and apiVersion on their items.
        if (item.Find("kind") == nullptr) item.Add("kind", Node::String(item_kind));
        if (item.Find("apiVersion") == nullptr && !list_api_version.empty()) {
          item.Add("apiVersion", Node::String(list_api_version));
        }
      }
      if (!item.is_mapping()) {
        out->messages.push_back({.severity = api::Severity::kError,
                                 .file = *file,
                                 .mark = item.mark,
                                 .object = kind,
                                 .field = fmt::format("items[{}]", i),
                                 .message = fmt::format("must be an object, not {}", NodeKindName(item.kind))});
        continue;
      }
      // A List inside a List is flattened, as kubectl's FlattenListVisitor
      // does (the depth is bounded by the parser's nesting limit).
      LoadDocument(std::move(item), file, mark, out);
    }
    return;
  }
  DecodeOne(std::move(root), file, out);
}

void DropManagedFields(Node* object) {
  if (Node* meta = object->Find("metadata")) meta->Erase("managedFields");
}

void Loader::DecodeNamespace(const Node& root, const std::shared_ptr<const std::string>& file,
                             const std::string& display_name, LoadResult* out) const {
  auto error = [&](const Node* at, std::string field, std::string message) {
    out->messages.push_back({.severity = api::Severity::kError,
                             .file = *file,
                             .mark = at->mark,
                             .object = display_name,
                             .field = std::move(field),
                             .message = std::move(message)});
  };
  LoadedNamespace ns{.name = {}, .labels = {}, .file = file, .mark = root.mark};
  const Node* meta = root.Find("metadata");
  const Node* name = meta != nullptr && meta->is_mapping() ? meta->Find("name") : nullptr;
  if (name == nullptr || name->kind != NodeKind::kString || name->text.empty()) {
    return error(name != nullptr ? name : &root, "metadata.name", "Required value: name or generateName is required");
  }
  ns.name = name->text;
  if (const Node* labels = meta->Find("labels"); labels != nullptr && !labels->is_null()) {
    if (!labels->is_mapping()) return error(labels, "metadata.labels", "must be a map of strings");
    for (size_t i = 0; i < labels->items.size(); ++i) {
      const Node& value = labels->items[i];
      if (value.kind != NodeKind::kString && !value.is_null()) {
        return error(&value, "metadata.labels[" + labels->keys[i].first + "]", "must be a string");
      }
      ns.labels.emplace(labels->keys[i].first, value.text);
    }
  }
  out->namespaces.push_back(std::move(ns));
}

void Loader::DecodeOne(Node root, const std::shared_ptr<const std::string>& file, LoadResult* out) const {
  if (options_.drop_managed_fields) DropManagedFields(&root);
  const Node* kind_node = root.Find("kind");
  const Node* api_node = root.Find("apiVersion");
  std::string name = TreeDisplayName(root);
  if (options_.skip_unknown && (kind_node == nullptr || api_node == nullptr)) {
    out->messages.push_back({.severity = api::Severity::kWarning,
                             .file = *file,
                             .mark = root.mark,
                             .object = name,
                             .field = "",
                             .message = fmt::format("skipped (--skip-unknown): not a Kubernetes object (no {})",
                                                    kind_node == nullptr ? "kind" : "apiVersion")});
    ++out->skipped_kinds[std::string(kNotObjects)];
    return;
  }
  if (kind_node == nullptr || kind_node->kind != NodeKind::kString || kind_node->text.empty()) {
    out->messages.push_back(
        {.severity = api::Severity::kError,
         .file = *file,
         .mark = kind_node ? kind_node->mark : root.mark,
         .object = name,
         .field = "kind",
         .message = kind_node ? "must be a non-empty string" : "Required value: every object needs a kind"});
    return;
  }
  if (api_node == nullptr || api_node->kind != NodeKind::kString || api_node->text.empty()) {
    out->messages.push_back(
        {.severity = api::Severity::kError,
         .file = *file,
         .mark = api_node ? api_node->mark : root.mark,
         .object = name,
         .field = "apiVersion",
         .message = api_node ? "must be a non-empty string" : "Required value: every object needs an apiVersion"});
    return;
  }
  if (options_.keep_namespaces && kind_node->text == "Namespace" && api_node->text == "v1") {
    DecodeNamespace(root, file, name, out);
    return;
  }
  std::vector<Diagnostic> diagnostics;
  DecodeOptions decode_options;
  decode_options.strict = options_.strict;
  StatusOr<api::Object> object = DecodeObject(root, decode_options, &diagnostics);
  if (!object.ok() && object.status().code() == StatusCode::kNotFound) {
    if (options_.keep_workloads) {
      StatusOr<api::Workload> workload = DecodeWorkload(root, decode_options, &diagnostics);
      if (workload.status().code() != StatusCode::kNotFound) {
        for (Diagnostic& d : diagnostics) {
          out->messages.push_back({.severity = d.severity,
                                   .file = *file,
                                   .mark = d.mark.line ? d.mark : root.mark,
                                   .object = name,
                                   .field = std::move(d.field),
                                   .message = std::move(d.message)});
        }
        if (!workload.ok()) return;  // the decoder reported at least one error
        LoadedWorkload loaded{.workload = std::move(workload).value(), .file = file, .mark = root.mark, .tree = {}};
        loaded.workload.metadata.source.file = file;
        if (options_.keep_trees) loaded.tree = std::make_shared<const Node>(root);
        out->workloads.push_back(std::move(loaded));
        return;
      }
    }
    ++out->skipped_kinds[api_node->text + " " + kind_node->text];
    return;
  }
  for (Diagnostic& d : diagnostics) {
    out->messages.push_back({.severity = d.severity,
                             .file = *file,
                             .mark = d.mark.line ? d.mark : root.mark,
                             .object = name,
                             .field = std::move(d.field),
                             .message = std::move(d.message)});
  }
  if (!object.ok()) {
    bool reported = std::any_of(diagnostics.begin(), diagnostics.end(),
                                [](const Diagnostic& d) { return d.severity == api::Severity::kError; });
    if (!reported) {
      out->messages.push_back({.severity = api::Severity::kError,
                               .file = *file,
                               .mark = root.mark,
                               .object = name,
                               .field = "",
                               .message = object.status().message()});
    }
    return;
  }
  LoadedObject loaded;
  loaded.object = std::move(object).value();
  loaded.file = file;
  loaded.mark = root.mark;
  api::ObjectMeta& meta = api::MetaOf(loaded.object);
  meta.source.file = file;
  meta.source.line = root.mark.line;
  meta.source.column = root.mark.column;
  if (options_.keep_trees) loaded.tree = std::make_shared<const Node>(std::move(root));
  out->objects.push_back(std::move(loaded));
}

Mark FindFieldMark(const Node& root, std::string_view path) {
  const Node* cur = &root;
  size_t i = 0;
  while (i < path.size() && cur != nullptr) {
    std::string_view segment;
    bool bracket = false;
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) break;
      segment = path.substr(i + 1, close - i - 1);
      bracket = true;
      i = close + 1;
    } else {
      size_t end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      segment = path.substr(i, end - i);
      i = end;
    }
    const Node* next = nullptr;
    if (bracket && cur->is_sequence()) {
      size_t index = 0;
      bool numeric = !segment.empty();
      for (char c : segment) {
        if (c < '0' || c > '9')
          numeric = false;
        else
          index = index * 10 + static_cast<size_t>(c - '0');
      }
      if (numeric && index < cur->items.size()) next = &cur->items[index];
    } else if (cur->is_mapping()) {
      next = cur->Find(segment);
    }
    if (next == nullptr) break;
    cur = next;
  }
  return cur->mark;
}

LoadMessage MessageFromParseError(const Status& s, const std::string& file) {
  LoadMessage m;
  m.file = file;
  std::string_view text = s.message();
  if (text.starts_with(file) && text.size() > file.size() && text[file.size()] == ':') {
    std::string_view rest = text.substr(file.size() + 1);
    unsigned line = 0, col = 0;
    int consumed = 0;
    std::string tmp(rest);
    if (std::sscanf(tmp.c_str(), "%u:%u: %n", &line, &col, &consumed) == 2 && consumed > 0) {
      m.mark = Mark{line, col};
      m.message = tmp.substr(static_cast<size_t>(consumed));
      return m;
    }
  }
  m.message = std::string(text);
  return m;
}

}  // namespace dra::manifest
