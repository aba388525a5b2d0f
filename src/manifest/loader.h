// The loader: files, directories and stdin -> api objects, with every problem
// reported against its file, line and column.
//
// Flow: read bytes -> ParseYaml/ParseJson (by sniffing, as kubectl does: a
// document starting with '{' is JSON) -> for each document: skip empty ones,
// unwrap `kind: List` and `<Kind>List` (items inherit kind/apiVersion where a
// typed list omits them; a List inside a List is flattened, as kubectl does)
// -> DecodeObject. Objects of kinds we do not model are
// skipped and counted per kind. Nothing is dropped silently: a document that
// cannot be decoded is an error message, and LoadResult::error_count() > 0.
//
// One document at a time: each is parsed, decoded and its tree dropped before
// the next is read, so a large input costs its decoded objects, not its trees.
// An input that does not parse adds its parse error alone (what the documents
// before the error added is taken back, as if it had been parsed whole first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_path.h"
#include "api/object.h"
#include "api/workload.h"
#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

struct LoadOptions {
  // Unknown fields in resource.k8s.io objects are errors instead of warnings.
  bool strict = false;
  // Keep each object's parsed tree (LoadedObject::tree), so that later
  // messages about a field path can be pointed at a line (see FindFieldMark).
  bool keep_trees = false;
  // Keep apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1
  // Job and CronJob in LoadResult::workloads (for `schedule`, which expands
  // them into pods, and `validate`, which checks their pod templates)
  // instead of skipping them.
  bool keep_workloads = false;
  // For folders that hold more than manifests (a GitOps repository's
  // values.yaml, Helm templates): a document that is not a Kubernetes object
  // (no kind or apiVersion, not a mapping) and a file that does not parse
  // but holds a template ("{{") are skipped with a warning each, instead of
  // being errors. Objects of kinds we do not model are skipped either way.
  bool skip_unknown = false;
  // Keep v1 Namespaces (their names and labels) in LoadResult::namespaces
  // (for `audit`, which checks the admin-access label) instead of skipping
  // them.
  bool keep_namespaces = false;
  // Drop metadata.managedFields (as `kubectl get` hides them and
  // kube-scheduler's informers discard them): for objects read from an API
  // server.
  bool drop_managed_fields = false;
};

namespace internal {
struct DocumentSource;
}  // namespace internal

// An object's parsed tree, as LoadOptions::keep_trees keeps it: not held in
// memory but read again from its input (the file, or the text kept where the
// input cannot be read twice: stdin, a pipe, LoadText) the first time it is
// used, then kept; one parse per document, shared by the items of a List.
// The tree is the one the object was decoded from (List items with the kind
// and apiVersion of a typed list, managedFields dropped if asked). If a file
// changed since it was loaded, the tree is only the object's root node (its
// mark), so FindFieldMark points at the object. Used as a pointer:
// `if (tree) FindFieldMark(*tree, ...)`. Not for concurrent first use.
class TreeRef {
 public:
  TreeRef() = default;
  TreeRef(std::shared_ptr<const Node> tree);  // NOLINT: a tree at hand
  TreeRef(std::shared_ptr<internal::DocumentSource> source, std::vector<uint32_t> path, Mark mark);

  explicit operator bool() const { return source_ != nullptr || item_ != nullptr; }
  const Node& operator*() const { return *Get(); }
  const Node* operator->() const { return Get(); }
  friend bool operator==(const TreeRef& t, std::nullptr_t) { return !t; }

 private:
  struct Item;
  const Node* Get() const;

  // A document's root object holds its document alone; a List's item also
  // an Item (its place in the List); a tree at hand, only an Item.
  std::shared_ptr<internal::DocumentSource> source_;
  std::shared_ptr<Item> item_;
};

struct LoadedObject {
  api::Object object;
  std::shared_ptr<const std::string> file;
  Mark mark;     // where the object starts
  TreeRef tree;  // set if LoadOptions::keep_trees
};

// A workload kept with LoadOptions::keep_workloads.
struct LoadedWorkload {
  api::Workload workload;
  std::shared_ptr<const std::string> file;
  Mark mark;     // where the object starts
  TreeRef tree;  // set if LoadOptions::keep_trees
};

// A Namespace kept with LoadOptions::keep_namespaces.
struct LoadedNamespace {
  std::string name;
  std::map<std::string, std::string, std::less<>> labels;
  std::shared_ptr<const std::string> file;
  Mark mark;  // where the object starts
};

struct LoadMessage {
  api::Severity severity = api::Severity::kError;
  std::string file;
  Mark mark;
  std::string object;  // "ResourceSlice name" / "ResourceClaim ns/name"; may be empty
  std::string field;   // field path; may be empty
  std::string message;

  // "file:line:col: Kind ns/name: field.path: message" (parts that are empty
  // are left out; "warning: " precedes warnings).
  std::string ToString() const;
};

// LoadResult::skipped_kinds' key for what LoadOptions::skip_unknown skipped
// (a noun, as the kinds are: "2 non-Kubernetes document(s)" to print).
inline constexpr std::string_view kNotObjects = "non-Kubernetes document";

struct LoadResult {
  std::vector<LoadedObject> objects;
  std::vector<LoadMessage> messages;
  std::vector<LoadedWorkload> workloads;    // only with LoadOptions::keep_workloads
  std::vector<LoadedNamespace> namespaces;  // only with LoadOptions::keep_namespaces
  // "apps/v1 Deployment" -> how many were skipped.
  std::map<std::string, size_t> skipped_kinds;
  size_t files = 0;
  size_t documents = 0;

  size_t error_count() const;
  size_t warning_count() const;
  size_t skipped_count() const;
};

class Loader {
 public:
  explicit Loader(LoadOptions options) : options_(options) {}

  // `path` is a file, a directory (walked recursively for *.yaml, *.yml and
  // *.json in sorted order; symbolic links to directories are not followed, so
  // link loops cannot hang it, and each is named in a warning; a link that
  // cannot be resolved is an error naming it) or "-" for standard input.
  // Problems are added to out->messages; objects to out->objects.
  void LoadPath(const std::string& path, LoadResult* out) const;

  // Loads `text` as if read from `file_name`.
  void LoadText(std::string_view text, const std::string& file_name, LoadResult* out) const;

 private:
  struct Input;  // the file being loaded (loader.cc)

  void LoadInput(std::string_view text, const std::shared_ptr<const std::string>& file, Input* input,
                 LoadResult* out) const;
  void LoadDocument(Node root, const std::shared_ptr<const std::string>& file, Mark mark, Input* input,
                    LoadResult* out) const;
  void DecodeOne(Node root, const std::shared_ptr<const std::string>& file, Input* input, LoadResult* out) const;
  static TreeRef TreeOf(const Input& input, Mark mark);
  void DecodeNamespace(const Node& root, const std::shared_ptr<const std::string>& file,
                       const std::string& display_name, LoadResult* out) const;

  LoadOptions options_;
};

// For inputs of other kinds of document (dractl plan's NodeGroup files):
// reads `path` as Loader::LoadPath does (a file; a folder's *.yaml, *.yml and
// *.json files, recursively, in sorted order; "-" for stdin) and hands each
// file's text to `on_text`; problems (no such file, unreadable, over the size
// limit) join `messages`.
using ManifestTextFn = std::function<void(std::string_view text, const std::string& file)>;
void ReadManifestTexts(const std::string& path, std::vector<LoadMessage>* messages, const ManifestTextFn& on_text);

// Parses `text` as LoadText does: JSON when it starts with '{' or `file`
// ends in .json, else YAML.
StatusOr<std::vector<Document>> ParseManifestText(std::string_view text, const std::string& file);

// A parser's error (ParseYaml/ParseJson: "file:line:col: message") as a
// message with its parts.
LoadMessage MessageFromParseError(const Status& status, const std::string& file);

// Removes metadata.managedFields from an object's tree, if present.
void DropManagedFields(Node* object);

// Display name of an object for messages: "Kind ns/name" or "Kind name".
std::string ObjectDisplayName(const api::Object& object);

// The mark of the node that `field_path` (FieldPath syntax: `spec.devices[2].
// attributes[gpu.nvidia.com/model]`) names inside `root`. If the path leads to a
// field that is absent, the mark of the deepest node that exists (the object
// that should hold the field).
Mark FindFieldMark(const Node& root, std::string_view field_path);

}  // namespace dra::manifest
