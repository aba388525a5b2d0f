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
#pragma once

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

struct LoadedObject {
  api::Object object;
  std::shared_ptr<const std::string> file;
  Mark mark;                         // where the object starts
  std::shared_ptr<const Node> tree;  // set if LoadOptions::keep_trees
};

// A workload kept with LoadOptions::keep_workloads.
struct LoadedWorkload {
  api::Workload workload;
  std::shared_ptr<const std::string> file;
  Mark mark;                         // where the object starts
  std::shared_ptr<const Node> tree;  // set if LoadOptions::keep_trees
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
  void LoadDocument(Node root, const std::shared_ptr<const std::string>& file, Mark mark, LoadResult* out) const;
  void DecodeOne(Node root, const std::shared_ptr<const std::string>& file, LoadResult* out) const;
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
