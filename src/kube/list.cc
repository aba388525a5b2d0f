#include "kube/list.h"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "manifest/json_parser.h"

namespace dra::kube {
namespace {

// Parses a list body into *tree and reads its metadata.continue and
// metadata.resourceVersion.
Status ReadListMeta(const std::string& body, const std::string& name, manifest::Node* tree, std::string* next,
                    std::string* rv) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(body, name);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1 || !(*docs)[0].root.is_mapping()) {
    return InvalidArgumentError(name + ": the answer is not one JSON object");
  }
  *tree = std::move((*docs)[0].root);
  const manifest::Node* meta = tree->Find("metadata");
  next->clear();
  if (meta == nullptr || !meta->is_mapping()) return OkStatus();
  if (const manifest::Node* c = meta->Find("continue"); c != nullptr && c->kind == manifest::NodeKind::kString) {
    *next = c->text;
  }
  if (const manifest::Node* r = meta->Find("resourceVersion"); r != nullptr && r->kind == manifest::NodeKind::kString) {
    *rv = r->text;
  }
  return OkStatus();
}

}  // namespace

std::optional<api::Kind> CollectionKind(std::string_view path) {
  std::string_view last = path.substr(path.rfind('/') + 1);
  if (last == "nodes") return api::Kind::kNode;
  if (last == "pods") return api::Kind::kPod;
  if (last == "deviceclasses") return api::Kind::kDeviceClass;
  if (last == "resourceslices") return api::Kind::kResourceSlice;
  if (last == "resourceclaims") return api::Kind::kResourceClaim;
  if (last == "resourceclaimtemplates") return api::Kind::kResourceClaimTemplate;
  if (last == "devicetaintrules") return api::Kind::kDeviceTaintRule;
  if (last == "podgroups") return api::Kind::kPodGroup;
  return std::nullopt;
}

std::vector<Collection> SnapshotCollections() {
  return {
      {.path = "/api/v1/nodes"},
      {.path = "/api/v1/pods"},
      {.path = "/apis/resource.k8s.io/v1/deviceclasses"},
      {.path = "/apis/resource.k8s.io/v1/resourceslices"},
      {.path = "/apis/resource.k8s.io/v1/resourceclaims"},
      {.path = "/apis/resource.k8s.io/v1/resourceclaimtemplates"},
      {.path = "/apis/resource.k8s.io/v1/devicetaintrules", .optional = true},
      // Served with GenericWorkload and scheduling.k8s.io/v1beta1 enabled.
      {.path = "/apis/scheduling.k8s.io/v1beta1/podgroups", .optional = true},
  };
}

StatusOr<ListResult> ListAll(Client& client, const Collection& collection, std::string_view query, int page_size) {
  ListResult result;
  std::string next;
  bool restarted = false;
  for (int page = 1;; ++page) {
    std::string path = fmt::format("{}?limit={}", collection.path, page_size);
    if (!query.empty()) path += fmt::format("&{}", query);
    if (!next.empty()) path += "&continue=" + QueryEscape(next);
    StatusOr<Response> r = client.Do("GET", path);
    if (!r.ok()) return r.status();
    if (r->code == 404 && collection.optional && page == 1) {
      result.served = false;
      return result;
    }
    if (r->code == 410 && !next.empty() && !restarted) {  // the continue token expired: start again
      restarted = true;
      result.pages.clear();
      next.clear();
      page = 0;
      continue;
    }
    if (r->code < 200 || r->code >= 300) return ApiError(*r, "list " + collection.path);
    ListPage p;
    p.name = client.config().server + collection.path + (page > 1 ? fmt::format(" page {}", page) : "");
    p.body = std::move(r->body);
    if (Status s = ReadListMeta(p.body, p.name, &p.tree, &next, &result.resource_version); !s.ok()) return s;
    result.pages.push_back(std::move(p));
    if (next.empty()) break;
  }
  return result;
}

}  // namespace dra::kube
