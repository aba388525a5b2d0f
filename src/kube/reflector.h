// List-then-watch of one collection, as client-go's reflector does it
// (Reflector.ListAndWatch in k8s.io/client-go/tools/cache/reflector.go;
// src/kube/README.md §1.2): list (paged), deliver the complete set, watch
// from the list's resourceVersion with bookmarks, re-watch from the last
// version seen when a watch ends, re-list when the version has expired (410),
// and back off (0.5 s doubling to 30 s) after errors. Runs until the client is
// cancelled.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "kube/client.h"
#include "kube/list.h"
#include "manifest/node.h"

namespace dra::kube {

enum class EventType { kAdded, kModified, kDeleted };

struct ObjectEvent {
  EventType type = EventType::kAdded;
  api::Object object;  // decoded as from a file; metadata.managedFields dropped
};

// What a reflector hands its sink, in order.
struct ReflectorBatch {
  std::string collection;  // Collection::path
  // true: `events` (all kAdded) is every object of the collection now; any
  // object the sink holds that is not among them is gone (deleted while we
  // were not watching).
  bool replace = false;
  std::vector<ObjectEvent> events;
  // Objects that could not be decoded ("Pod ml/x: spec.containers: ..."):
  // skipped, and said here so that nothing disappears silently.
  std::vector<std::string> problems;
  std::string resource_version;  // after this batch
};

struct ReflectorStats {
  std::atomic<uint64_t> lists{0};
  std::atomic<uint64_t> watches{0};
  std::atomic<uint64_t> expired{0};  // 410: re-listed
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> events{0};
};

class Reflector {
 public:
  using Sink = std::function<void(ReflectorBatch batch)>;
  // `query` (e.g. "fieldSelector=spec.nodeName%3D") goes on lists and
  // watches. `log` gets one line per error or re-list.
  Reflector(Client* client, Collection collection, std::string query, Sink sink,
            std::function<void(std::string_view)> log);

  // Blocks until the client is cancelled.
  void Run();

  const ReflectorStats& stats() const { return stats_; }

  // Server-side watch timeout asked for (seconds); the reflector re-watches
  // after it. Tests shorten it.
  void set_watch_timeout_seconds(int seconds) { watch_timeout_seconds_ = seconds; }

 private:
  Status ListOnce(std::string* resource_version);
  // Returns OK when the watch ended normally (re-watch), kOutOfRange when the
  // version expired (re-list), else the error.
  Status WatchOnce(std::string* resource_version);
  void Sleep(int64_t millis);

  Client* client_;
  Collection collection_;
  std::string query_;
  Sink sink_;
  std::function<void(std::string_view)> log_;
  int watch_timeout_seconds_ = 300;
  bool served_ = true;  // the last list found the collection (optional ones may 404)
  ReflectorStats stats_;
};

// Decodes the items of one <Kind>List JSON body (items inherit the list's
// kind and apiVersion) into `events` as kAdded; undecodable items go to
// `problems`. Returns the list's metadata.resourceVersion, or an error if
// `body` is not a list.
StatusOr<std::string> DecodeList(std::string_view body, std::string_view name, std::vector<ObjectEvent>* events,
                                 std::vector<std::string>* problems);
// The same on an already parsed list (ListPage::tree).
StatusOr<std::string> DecodeList(manifest::Node root, std::string_view name, std::vector<ObjectEvent>* events,
                                 std::vector<std::string>* problems);

// Decodes one object node (kind and apiVersion present) as the loader would,
// then applies API defaults. Problems are described in the returned Status.
StatusOr<api::Object> DecodeApiObject(const manifest::Node& node);

}  // namespace dra::kube
