#include "kube/reflector.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "api/defaults.h"
#include "fmt/format.h"
#include "manifest/decode.h"
#include "manifest/json_parser.h"
#include "manifest/loader.h"

namespace dra::kube {
namespace {

constexpr int64_t kInitialBackoffMillis = 500;
constexpr int64_t kMaxBackoffMillis = 30000;
constexpr int64_t kNotServedRelistMillis = 60000;

std::string StringAt(const manifest::Node& node, std::string_view a, std::string_view b = {}) {
  const manifest::Node* n = node.Find(a);
  if (n != nullptr && !b.empty()) n = n->is_mapping() ? n->Find(b) : nullptr;
  return n != nullptr && n->kind == manifest::NodeKind::kString ? n->text : std::string();
}

std::string Describe(const manifest::Node& node) {
  std::string kind = StringAt(node, "kind");
  std::string ns = StringAt(node, "metadata", "namespace");
  std::string name = StringAt(node, "metadata", "name");
  return fmt::format("{} {}{}", kind.empty() ? "object" : kind, ns.empty() ? "" : ns + "/", name);
}

}  // namespace

StatusOr<api::Object> DecodeApiObject(const manifest::Node& node) {
  std::vector<manifest::Diagnostic> diagnostics;
  StatusOr<api::Object> object = manifest::DecodeObject(node, {}, &diagnostics);
  if (!object.ok()) {
    std::string detail = object.status().message();
    for (const manifest::Diagnostic& d : diagnostics) {
      if (d.severity == api::Severity::kError) {
        detail = d.field.empty() ? d.message : d.field + ": " + d.message;
        break;
      }
    }
    return Status(object.status().code(), fmt::format("{}: {}", Describe(node), detail));
  }
  api::SetDefaults(*object, "1970-01-01T00:00:00Z");
  return object;
}

StatusOr<std::string> DecodeList(std::string_view body, std::string_view name, std::vector<ObjectEvent>* events,
                                 std::vector<std::string>* problems) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(body, name);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1 || !(*docs)[0].root.is_mapping()) {
    return InvalidArgumentError(fmt::format("{}: the answer is not one JSON object", name));
  }
  return DecodeList(std::move((*docs)[0].root), name, events, problems);
}

StatusOr<std::string> DecodeList(manifest::Node root, std::string_view name, std::vector<ObjectEvent>* events,
                                 std::vector<std::string>* problems) {
  std::string kind = StringAt(root, "kind");
  std::string api_version = StringAt(root, "apiVersion");
  if (!kind.ends_with("List")) return InvalidArgumentError(fmt::format("{}: kind {} is not a list", name, kind));
  std::string item_kind = kind.substr(0, kind.size() - 4);
  for (size_t i = 0; i < root.keys.size(); ++i) {
    if (root.keys[i].first != "items" || !root.items[i].is_sequence()) continue;
    for (manifest::Node& item : root.items[i].items) {
      if (!item.is_mapping()) {
        problems->push_back(fmt::format("{}: an item is not an object", name));
        continue;
      }
      if (item.Find("kind") == nullptr) item.Add("kind", manifest::Node::String(item_kind));
      if (item.Find("apiVersion") == nullptr) item.Add("apiVersion", manifest::Node::String(api_version));
      manifest::DropManagedFields(&item);
      StatusOr<api::Object> object = DecodeApiObject(item);
      if (!object.ok()) {
        problems->push_back(object.status().message());
        continue;
      }
      events->push_back({.type = EventType::kAdded, .object = std::move(*object)});
    }
  }
  return StringAt(root, "metadata", "resourceVersion");
}

Reflector::Reflector(Client* client, Collection collection, std::string query, Sink sink,
                     std::function<void(std::string_view)> log)
    : client_(client),
      collection_(std::move(collection)),
      query_(std::move(query)),
      sink_(std::move(sink)),
      log_(std::move(log)) {}

void Reflector::Sleep(int64_t millis) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(millis);
  while (!client_->cancelled() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(millis, 50)));
  }
}

Status Reflector::ListOnce(std::string* resource_version) {
  StatusOr<ListResult> list = ListAll(*client_, collection_, query_);
  if (!list.ok()) return list.status();
  ++stats_.lists;
  served_ = list->served;
  ReflectorBatch batch;
  batch.collection = collection_.path;
  batch.replace = true;
  for (ListPage& page : list->pages) {
    StatusOr<std::string> rv = DecodeList(std::move(page.tree), page.name, &batch.events, &batch.problems);
    if (!rv.ok()) return rv.status();
  }
  *resource_version = list->resource_version;
  batch.resource_version = *resource_version;
  stats_.events += batch.events.size();
  sink_(std::move(batch));
  return OkStatus();
}

Status Reflector::WatchOnce(std::string* resource_version) {
  std::string path = fmt::format("{}?watch=1&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                                 collection_.path, QueryEscape(*resource_version), watch_timeout_seconds_);
  if (!query_.empty()) path += "&" + query_;
  ++stats_.watches;
  Status failure;
  bool expired = false;
  auto on_line = [&](std::string_view line) -> bool {
    StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(line, collection_.path + " watch");
    if (!docs.ok() || docs->size() != 1 || !(*docs)[0].root.is_mapping()) {
      failure = InvalidArgumentError(fmt::format("watch {}: an event is not a JSON object", collection_.path));
      return false;
    }
    manifest::Node& root = (*docs)[0].root;
    std::string type = StringAt(root, "type");
    manifest::Node* object = nullptr;
    for (size_t i = 0; i < root.keys.size(); ++i) {
      if (root.keys[i].first == "object") object = &root.items[i];
    }
    if (object == nullptr || !object->is_mapping()) {
      failure = InvalidArgumentError(fmt::format("watch {}: a {} event without an object", collection_.path, type));
      return false;
    }
    if (type == "ERROR") {
      const manifest::Node* code = object->Find("code");
      if (code != nullptr && code->text == "410") {
        expired = true;
      } else {
        failure = Status(StatusCode::kUnavailable,
                         fmt::format("watch {}: {}", collection_.path, StringAt(*object, "message")));
      }
      return false;
    }
    std::string rv = StringAt(*object, "metadata", "resourceVersion");
    if (type == "BOOKMARK") {
      if (!rv.empty()) *resource_version = rv;
      return true;
    }
    EventType event_type;
    if (type == "ADDED") {
      event_type = EventType::kAdded;
    } else if (type == "MODIFIED") {
      event_type = EventType::kModified;
    } else if (type == "DELETED") {
      event_type = EventType::kDeleted;
    } else {
      failure = InvalidArgumentError(fmt::format("watch {}: unknown event type \"{}\"", collection_.path, type));
      return false;
    }
    manifest::DropManagedFields(object);
    ReflectorBatch batch;
    batch.collection = collection_.path;
    StatusOr<api::Object> decoded = DecodeApiObject(*object);
    if (decoded.ok()) {
      batch.events.push_back({.type = event_type, .object = std::move(*decoded)});
    } else {
      batch.problems.push_back(decoded.status().message());
    }
    if (!rv.empty()) *resource_version = rv;
    batch.resource_version = *resource_version;
    ++stats_.events;
    sink_(std::move(batch));
    return true;
  };
  long code = 0;
  std::string error_body;
  Status s = client_->Stream(path, on_line, &code, &error_body);
  if (expired || code == 410) return OutOfRangeError("watch " + collection_.path + ": resource version expired");
  if (!failure.ok()) return failure;
  if (!s.ok()) return s;
  if (code < 200 || code >= 300) return ApiError({.code = code, .body = error_body}, "watch " + collection_.path);
  return OkStatus();
}

void Reflector::Run() {
  int64_t backoff = kInitialBackoffMillis;
  std::string rv;
  bool listed = false;
  while (!client_->cancelled()) {
    Status s = listed ? WatchOnce(&rv) : ListOnce(&rv);
    if (client_->cancelled()) break;
    if (s.ok() && !served_) {
      // An optional collection this API server does not serve (an empty
      // list was delivered): look again now and then, never watch it.
      Sleep(kNotServedRelistMillis);
      continue;
    }
    if (s.ok()) {
      listed = true;
      backoff = kInitialBackoffMillis;
      continue;
    }
    if (s.code() == StatusCode::kOutOfRange) {
      ++stats_.expired;
      log_(fmt::format("{}: re-listing", s.message()));
      listed = false;
      continue;
    }
    ++stats_.errors;
    log_(fmt::format("{} (retrying in {} ms)", s.message(), backoff));
    Sleep(backoff);
    backoff = std::min(backoff * 2, kMaxBackoffMillis);
  }
}

}  // namespace dra::kube
