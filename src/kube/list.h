// Reading a cluster's state from the API server: paged lists of the
// collections `schedule` and `explain` load from files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "base/status.h"
#include "kube/client.h"
#include "manifest/node.h"

namespace dra::kube {

struct Collection {
  std::string path;       // "/api/v1/pods"
  bool optional = false;  // a 404 means "not served by this API server" (e.g. DeviceTaintRules)
};

// The kind a collection path lists ("/api/v1/pods" -> Pod), or nullopt.
std::optional<api::Kind> CollectionKind(std::string_view path);

// Nodes, Pods, ResourceClaims, ResourceClaimTemplates, ResourceSlices,
// DeviceClasses (resource.k8s.io/v1) and, where served, DeviceTaintRules and
// PodGroups (scheduling.k8s.io/v1beta1).
std::vector<Collection> SnapshotCollections();

struct ListPage {
  std::string name;     // "https://host:6443/api/v1/pods" (+ " page 2" ...), for messages
  std::string body;     // the <Kind>List JSON as the server sent it
  manifest::Node tree;  // the same, parsed (ListAll parses it for `continue`)
};

struct ListResult {
  std::vector<ListPage> pages;
  std::string resource_version;  // of the list: where a watch would start
  bool served = true;            // false: an optional collection answered 404
};

// Lists `collection` in pages of `page_size` objects (following `continue`;
// an expired continue token restarts the list once). `query` is appended
// to every request (e.g. "fieldSelector=...").
StatusOr<ListResult> ListAll(Client& client, const Collection& collection, std::string_view query = {},
                             int page_size = 500);

}  // namespace dra::kube
