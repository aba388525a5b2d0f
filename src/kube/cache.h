// The live scheduler's view of the cluster (src/kube/README.md §1.3): the
// objects the reflectors delivered, with an assume layer for the objects
// dractl itself wrote (kept until the watch delivers a newer version), as
// kube-scheduler's assume cache does it
// (k8s.io/kubernetes/pkg/scheduler/util/assumecache/assume_cache.go).
//
// Not thread-safe: one thread (the scheduling loop) owns it; reflector
// threads hand their batches over through a queue (serve.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "kube/reflector.h"

namespace dra::kube {

// "namespace/name" or "name".
std::string ObjectKey(const api::Object& object);

// Compares resource versions as etcd revisions (integers). nullopt when
// either is not an integer (then the informer's object wins).
std::optional<int> CompareResourceVersions(std::string_view a, std::string_view b);

class ClusterCache {
 public:
  // Applies one reflector batch (replace, or add/modify/delete). A
  // delivered object replaces the one held when its resourceVersion is not
  // older — except that an assumed object (our own write) gives way only to a
  // strictly newer one, so that neither the echo of our write nor an older
  // event in flight undoes it (upstream's assume cache). Deletions always
  // apply.
  void Apply(const ReflectorBatch& batch);

  // Records an object dractl wrote (the API server's answer, or for a
  // binding the pod with spec.nodeName set), so that the next snapshot sees it
  // before the watch delivers it. Replaces the held object unless that one is
  // newer.
  void Assume(api::Object object);

  // Every object, for sched::NewSnapshot. Pods are filtered by `keep_pod`.
  template <typename KeepPod>
  std::vector<const api::Object*> Objects(KeepPod keep_pod) const {
    std::vector<const api::Object*> out;
    for (const auto& [kind, entries] : objects_) {
      for (const auto& [key, entry] : entries) {
        if (const auto* pod = std::get_if<api::Pod>(&entry.object); pod != nullptr && !keep_pod(*pod)) continue;
        out.push_back(&entry.object);
      }
    }
    return out;
  }

  const api::Object* Find(api::Kind kind, const std::string& key) const;
  size_t size() const;
  // Incremented by every change; the loop re-plans when it moved.
  uint64_t generation() const { return generation_; }
  // Whether every collection was listed at least once.
  bool synced(size_t collections) const { return listed_.size() >= collections; }

 private:
  struct Entry {
    api::Object object;
    bool assumed = false;  // written by us, not yet delivered by the watch
  };
  void Put(api::Object object, bool from_watch);

  std::map<api::Kind, std::map<std::string, Entry>> objects_;
  std::map<std::string, bool> listed_;  // collection path -> listed
  uint64_t generation_ = 0;
};

}  // namespace dra::kube
