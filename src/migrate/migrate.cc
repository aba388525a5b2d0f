// The rewrite of `dractl migrate` (migrate.h): pod specs found in each
// object's tree, their device-plugin requests and device labels translated,
// claims added and the old constraints removed in place, so that everything
// else of the tree is printed as it was read.
#include "migrate/migrate.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "manifest/emit.h"
#include "migrate/labels.h"
#include "quantity/quantity.h"

namespace dra::migrate {
namespace {

using manifest::Node;

// ------------------------------------------------------------------ trees

// Removes `key` when its value is an empty mapping or sequence (or null).
void RemoveIfEmpty(Node& map, std::string_view key) {
  const Node* v = map.Find(key);
  if (v != nullptr && (v->is_null() || ((v->is_mapping() || v->is_sequence()) && v->items.empty()))) {
    map.Erase(key);
  }
}

// Inserts `key: value` before the first of `before` present, else at the end.
Node& InsertBefore(Node& map, std::initializer_list<std::string_view> before, std::string key, Node value) {
  size_t at = map.keys.size();
  for (size_t i = 0; i < map.keys.size() && at == map.keys.size(); ++i) {
    for (std::string_view b : before) {
      if (map.keys[i].first == b) {
        at = i;
        break;
      }
    }
  }
  map.keys.insert(map.keys.begin() + static_cast<std::ptrdiff_t>(at), {std::move(key), manifest::Mark{}});
  map.items.insert(map.items.begin() + static_cast<std::ptrdiff_t>(at), std::move(value));
  return map.items[at];
}

const std::string& Text(const Node* n) {
  static const std::string kEmpty;
  return n != nullptr && n->is_scalar() ? n->text : kEmpty;
}

Node Str(std::string s) { return Node::String(std::move(s)); }

// --------------------------------------------------------------- pod specs

// Where a kind keeps its pod spec.
std::optional<std::vector<std::string_view>> PodSpecPath(std::string_view kind) {
  if (kind == "Pod") return std::vector<std::string_view>{"spec"};
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "Job") {
    return std::vector<std::string_view>{"spec", "template", "spec"};
  }
  if (kind == "CronJob") return std::vector<std::string_view>{"spec", "jobTemplate", "spec", "template", "spec"};
  return std::nullopt;
}

// One device-plugin request of one container.
struct ContainerRequest {
  std::string list{};  // "containers" or "initContainers"
  size_t index = 0;
  std::string container{};
  bool plain_init = false;  // an init container that is not a sidecar
  std::string resource{};
  int64_t count = 0;
  DeviceKind kind{};
  std::string field{};  // ...resources.limits[nvidia.com/gpu]
  manifest::Mark mark{};
  std::vector<std::string> selectors{};
  std::string claim{};      // pod claim name
  std::string spec_json{};  // the claim spec, as the key of its template
  Node claim_spec{};
};

// One node-label requirement and where it came from.
struct RequirementSite {
  Requirement req{};
  bool from_node_selector = false;
  size_t expr_index = 0;  // in the single required term
  std::string field{};
  manifest::Mark mark{};
  bool translated = false;
};

std::string RequestName(const DeviceKind& kind) {
  if (kind.class_name == "mig.nvidia.com") return "mig";
  if (kind.vendor == Vendor::kTpu) return "tpu";
  return "gpu";
}

std::string ClassSelector(std::string_view class_name) {
  if (class_name == "gpu.nvidia.com" || class_name == "mig.nvidia.com") {
    return fmt::format("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == '{}'",
                       class_name == "gpu.nvidia.com" ? "gpu" : "mig");
  }
  return fmt::format("device.driver == '{}'", class_name);
}

Node CelSelector(std::string expression) {
  Node cel = Node::Mapping();
  cel.Add("expression", Str(std::move(expression)));
  Node s = Node::Mapping();
  s.Add("cel", std::move(cel));
  return s;
}

// The NVIDIA driver's opaque sharing config (resource.nvidia.com/v1beta1 GpuConfig).
Node TimeSlicingConfig(std::vector<std::string> requests) {
  Node sharing = Node::Mapping();
  sharing.Add("strategy", Str("TimeSlicing"));
  Node parameters = Node::Mapping();
  parameters.Add("apiVersion", Str("resource.nvidia.com/v1beta1"));
  parameters.Add("kind", Str("GpuConfig"));
  parameters.Add("sharing", std::move(sharing));
  Node opaque = Node::Mapping();
  opaque.Add("driver", Str("gpu.nvidia.com"));
  opaque.Add("parameters", std::move(parameters));
  Node config = Node::Mapping();
  if (!requests.empty()) {
    Node names = Node::Sequence();
    for (std::string& r : requests) names.Push(Str(std::move(r)));
    config.Add("requests", std::move(names));
  }
  config.Add("opaque", std::move(opaque));
  return config;
}

Node DeviceClassTree(const std::string& name, const std::string& selector, const std::string& extended_resource,
                     bool time_sliced) {
  Node meta = Node::Mapping();
  meta.Add("name", Str(name));
  Node selectors = Node::Sequence();
  selectors.Push(CelSelector(selector));
  Node spec = Node::Mapping();
  spec.Add("selectors", std::move(selectors));
  if (time_sliced) {
    Node config = Node::Sequence();
    config.Push(TimeSlicingConfig({}));
    spec.Add("config", std::move(config));
  }
  if (!extended_resource.empty()) spec.Add("extendedResourceName", Str(extended_resource));
  Node c = Node::Mapping();
  c.Add("apiVersion", Str("resource.k8s.io/v1"));
  c.Add("kind", Str("DeviceClass"));
  c.Add("metadata", std::move(meta));
  c.Add("spec", std::move(spec));
  return c;
}

// The claim spec (ResourceClaimSpec) of one request.
Node ClaimSpec(const ContainerRequest& r) {
  Node exactly = Node::Mapping();
  exactly.Add("deviceClassName", Str(r.kind.class_name));
  if (r.count != 1) exactly.Add("count", Node::Int(r.count));
  if (!r.selectors.empty()) {
    Node selectors = Node::Sequence();
    for (const std::string& s : r.selectors) selectors.Push(CelSelector(s));
    exactly.Add("selectors", std::move(selectors));
  }
  Node request = Node::Mapping();
  request.Add("name", Str(RequestName(r.kind)));
  request.Add("exactly", std::move(exactly));
  Node requests = Node::Sequence();
  requests.Push(std::move(request));
  Node devices = Node::Mapping();
  devices.Add("requests", std::move(requests));
  if (r.kind.time_sliced && r.kind.class_name == "gpu.nvidia.com") {
    Node config = Node::Sequence();
    config.Push(TimeSlicingConfig({RequestName(r.kind)}));
    devices.Add("config", std::move(config));
  }
  Node spec = Node::Mapping();
  spec.Add("devices", std::move(devices));
  return spec;
}

// A positive integer count of an extended resource, or nullopt.
std::optional<int64_t> ParseCount(const Node& value) {
  if (!value.is_scalar() || value.is_null() || value.kind == manifest::NodeKind::kBool) return std::nullopt;
  StatusOr<quantity::Quantity> q = quantity::Quantity::Parse(value.text);
  if (!q.ok()) return std::nullopt;
  std::optional<int64_t> n = q->AsInt64();
  if (!n || *n < 0) return std::nullopt;
  return n;
}

class Migrator {
 public:
  Migrator(const MigrateOptions& options, MigrateResult* result) : options_(options), result_(*result) {}

  void Run(std::vector<SourceObject> objects);

 private:
  struct Object {
    std::string file;
    std::string display;  // "Deployment ml/vllm"
    std::string name;
    std::string ns;
  };

  void Message(api::Severity severity, const Object& o, std::string field, manifest::Mark mark, std::string text) {
    result_.messages.push_back({.severity = severity,
                                .file = o.file,
                                .mark = mark,
                                .object = o.display,
                                .field = std::move(field),
                                .message = std::move(text)});
  }

  std::vector<ContainerRequest> CollectRequests(Node& spec, const std::string& path, const Object& o);
  std::vector<RequirementSite> CollectRequirements(Node& spec, const std::string& path, const Object& o,
                                                   const std::set<Vendor>& vendors);
  void ApplyHints(std::vector<RequirementSite>& sites, std::vector<ContainerRequest>& requests, const Object& o);
  void Translate(std::vector<RequirementSite>& sites, std::vector<ContainerRequest>& requests, const Object& o);
  // Rewrites one pod spec; the templates it needs join `pending`.
  bool RewritePodSpec(Node& spec, const std::string& path, const Object& o, std::vector<Node>* pending);
  std::string TemplateFor(const ContainerRequest& r, const Object& o, std::vector<Node>* pending);
  void EmitClasses();

  const MigrateOptions& options_;
  MigrateResult& result_;
  SharingConfig sharing_;
  std::map<std::string, std::string, std::less<>> classes_;  // existing: name -> extendedResourceName
  std::set<std::string> template_names_;                     // "ns/name" taken
  std::map<std::string, std::string> templates_;             // "ns\n<spec json>" -> name
  std::map<std::string, DeviceKind> used_;                   // resource name -> kind (extended-resource mode)
  std::set<std::string> used_classes_;                       // claims mode
};

std::vector<ContainerRequest> Migrator::CollectRequests(Node& spec, const std::string& path, const Object& o) {
  std::vector<ContainerRequest> out;
  for (std::string_view list : {"containers", "initContainers"}) {
    Node* containers = spec.Find(list);
    if (containers == nullptr || !containers->is_sequence()) continue;
    for (size_t ci = 0; ci < containers->items.size(); ++ci) {
      Node& c = containers->items[ci];
      Node* resources = c.Find("resources");
      if (resources == nullptr) continue;
      std::set<std::string> seen;
      for (std::string_view part : {"limits", "requests"}) {
        Node* map = resources->Find(part);
        if (map == nullptr || !map->is_mapping()) continue;
        for (size_t ki = 0; ki < map->keys.size(); ++ki) {
          const std::string& name = map->keys[ki].first;
          const std::string field = fmt::format("{}.{}[{}].resources.{}[{}]", path, list, ci, part, name);
          DeviceKind kind;
          ResourceClass rc = ClassifyResource(name, sharing_, &kind);
          if (rc == ResourceClass::kOther || !seen.insert(name).second) continue;
          if (rc == ResourceClass::kUnknownDevice) {
            Message(api::Severity::kError, o, field, map->keys[ki].second,
                    fmt::format("cannot translate device-plugin resource {}: dractl knows nvidia.com/gpu, "
                                "nvidia.com/mig-<profile>, their time-sliced names (<name>.shared), google.com/tpu "
                                "and amd.com/gpu; left as it is",
                                name));
            continue;
          }
          std::optional<int64_t> count = ParseCount(map->items[ki]);
          if (!count) {
            Message(api::Severity::kError, o, field, map->items[ki].mark,
                    fmt::format("{} must be a whole number of devices, not \"{}\"", name, map->items[ki].text));
            continue;
          }
          if (*count == 0) continue;  // asks for nothing; fits without a device plugin too
          const Node* restart = c.Find("restartPolicy");
          out.push_back({.list = std::string(list),
                         .index = ci,
                         .container = Text(c.Find("name")),
                         .plain_init = list == "initContainers" && Text(restart) != "Always",
                         .resource = name,
                         .count = *count,
                         .kind = kind,
                         .field = field,
                         .mark = map->keys[ki].second,
                         .selectors = {},
                         .claim = {},
                         .spec_json = {},
                         .claim_spec = {}});
        }
      }
    }
  }
  return out;
}

std::vector<RequirementSite> Migrator::CollectRequirements(Node& spec, const std::string& path, const Object& o,
                                                           const std::set<Vendor>& vendors) {
  std::vector<RequirementSite> out;
  auto concerns = [&](std::string_view key) {
    std::optional<Vendor> v = LabelVendor(key);
    return v && vendors.contains(*v);
  };
  if (Node* ns = spec.Find("nodeSelector"); ns != nullptr && ns->is_mapping()) {
    for (size_t i = 0; i < ns->keys.size(); ++i) {
      if (!concerns(ns->keys[i].first)) continue;
      out.push_back({.req = {.key = ns->keys[i].first, .op = "In", .values = {ns->items[i].text}},
                     .from_node_selector = true,
                     .expr_index = 0,
                     .field = fmt::format("{}.nodeSelector[{}]", path, ns->keys[i].first),
                     .mark = ns->keys[i].second,
                     .translated = false});
    }
  }
  Node* affinity = spec.Find("affinity");
  Node* node_affinity = affinity != nullptr ? affinity->Find("nodeAffinity") : nullptr;
  if (node_affinity == nullptr) return out;
  const std::string na_path = path + ".affinity.nodeAffinity";
  // Expressions of a term, as requirements (`term_path` names the term).
  auto read_term = [&](const Node& term, const std::string& term_path, std::vector<RequirementSite>* into) {
    const Node* exprs = term.Find("matchExpressions");
    if (exprs == nullptr || !exprs->is_sequence()) return;
    for (size_t j = 0; j < exprs->items.size(); ++j) {
      const Node& e = exprs->items[j];
      const std::string& key = Text(e.Find("key"));
      if (!concerns(key)) continue;
      Requirement r{.key = key, .op = Text(e.Find("operator")), .values = {}};
      if (const Node* values = e.Find("values"); values != nullptr && values->is_sequence()) {
        for (const Node& v : values->items) r.values.push_back(v.text);
      }
      into->push_back({.req = std::move(r),
                       .from_node_selector = false,
                       .expr_index = j,
                       .field = fmt::format("{}.matchExpressions[{}]", term_path, j),
                       .mark = e.mark,
                       .translated = false});
    }
  };
  const std::string required_path = na_path + ".requiredDuringSchedulingIgnoredDuringExecution";
  if (Node* required = node_affinity->Find("requiredDuringSchedulingIgnoredDuringExecution")) {
    const Node* terms = required->Find("nodeSelectorTerms");
    if (terms != nullptr && terms->is_sequence() && terms->items.size() == 1) {
      read_term(terms->items[0], required_path + ".nodeSelectorTerms[0]", &out);
    } else if (terms != nullptr && terms->is_sequence()) {
      std::vector<RequirementSite> ored;
      for (size_t t = 0; t < terms->items.size(); ++t) {
        read_term(terms->items[t], fmt::format("{}.nodeSelectorTerms[{}]", required_path, t), &ored);
      }
      for (const RequirementSite& s : ored) {
        Message(api::Severity::kWarning, o, s.field, s.mark,
                fmt::format("{}: not translated, kept as a node constraint: the {} nodeSelectorTerms are ORed, and "
                            "dractl translates device labels of a single term only",
                            s.req.key, terms->items.size()));
      }
    }
  }
  if (Node* preferred = node_affinity->Find("preferredDuringSchedulingIgnoredDuringExecution");
      preferred != nullptr && preferred->is_sequence()) {
    std::vector<RequirementSite> soft;
    for (size_t t = 0; t < preferred->items.size(); ++t) {
      if (const Node* pref = preferred->items[t].Find("preference")) {
        read_term(*pref, fmt::format("{}.preferredDuringSchedulingIgnoredDuringExecution[{}].preference", na_path, t),
                  &soft);
      }
    }
    for (const RequirementSite& s : soft) {
      Message(api::Severity::kWarning, o, s.field, s.mark,
              fmt::format("{}: not translated, kept as a node preference: DRA has no preferred device selectors "
                          "(firstAvailable lists alternatives in order, which you write by hand)",
                          s.req.key));
    }
  }
  return out;
}

void Migrator::ApplyHints(std::vector<RequirementSite>& sites, std::vector<ContainerRequest>& requests,
                          const Object& o) {
  RequestHints hints;
  const RequirementSite* strategy = nullptr;
  for (const RequirementSite& s : sites) {
    if (LabelVendor(s.req.key) != Vendor::kNvidia) continue;
    ReadHints(s.req, &hints);
    if (s.req.key == "nvidia.com/mig.strategy") strategy = &s;
  }
  for (ContainerRequest& r : requests) {
    if (r.kind.class_name != "gpu.nvidia.com" || r.resource.starts_with("nvidia.com/mig-")) continue;
    if (!hints.mig_profile.empty()) {
      r.kind.class_name = "mig.nvidia.com";
      r.kind.mig_profile = hints.mig_profile;
    } else if (hints.single_strategy) {
      r.kind.class_name = "mig.nvidia.com";
      Message(api::Severity::kWarning, o, strategy->field, strategy->mark,
              fmt::format("with the single MIG strategy {} is a MIG device of the profile the node was partitioned "
                          "with, which no label of the pod names: the request takes a MIG device of any profile",
                          r.resource));
    }
    if (hints.time_sliced) r.kind.time_sliced = true;
  }
}

void Migrator::Translate(std::vector<RequirementSite>& sites, std::vector<ContainerRequest>& requests,
                         const Object& o) {
  for (RequirementSite& s : sites) {
    const Vendor vendor = *LabelVendor(s.req.key);
    std::vector<std::pair<ContainerRequest*, LabelTranslation>> per_request;
    std::optional<std::string> kept;
    for (ContainerRequest& r : requests) {
      if (r.kind.vendor != vendor) continue;
      LabelTranslation t = TranslateLabel(s.req, r.kind);
      if (t.kind == LabelTranslation::Kind::kKept && !kept) kept = t.reason;
      per_request.emplace_back(&r, std::move(t));
    }
    if (kept) {
      Message(api::Severity::kWarning, o, s.field, s.mark,
              fmt::format("{}: not translated, kept as a node constraint (the nodes must keep the label): {}",
                          s.req.key, *kept));
      continue;
    }
    s.translated = true;
    for (auto& [r, t] : per_request) {
      if (t.kind == LabelTranslation::Kind::kSelector &&
          std::find(r->selectors.begin(), r->selectors.end(), t.cel) == r->selectors.end()) {
        r->selectors.push_back(t.cel);
      }
    }
  }
}

std::string Migrator::TemplateFor(const ContainerRequest& r, const Object& o, std::vector<Node>* pending) {
  const std::string key = o.ns + "\n" + r.spec_json;
  if (auto it = templates_.find(key); it != templates_.end()) return it->second;
  std::string name = fmt::format("{}-{}", o.name, r.claim);
  for (int n = 2; template_names_.contains(o.ns + "/" + name); ++n) name = fmt::format("{}-{}-{}", o.name, r.claim, n);
  template_names_.insert(o.ns + "/" + name);
  templates_.emplace(key, name);
  Node meta = Node::Mapping();
  meta.Add("name", Str(name));
  if (!o.ns.empty()) meta.Add("namespace", Str(o.ns));
  Node spec = Node::Mapping();
  spec.Add("spec", r.claim_spec);
  Node t = Node::Mapping();
  t.Add("apiVersion", Str("resource.k8s.io/v1"));
  t.Add("kind", Str("ResourceClaimTemplate"));
  t.Add("metadata", std::move(meta));
  t.Add("spec", std::move(spec));
  pending->push_back(std::move(t));
  ++result_.templates;
  return name;
}

bool Migrator::RewritePodSpec(Node& spec, const std::string& path, const Object& o, std::vector<Node>* pending) {
  std::vector<ContainerRequest> requests = CollectRequests(spec, path, o);
  if (requests.empty()) return false;
  if (options_.mode == Mode::kExtendedResource) {
    for (const ContainerRequest& r : requests) used_.emplace(r.resource, r.kind);
    return false;
  }
  std::set<Vendor> vendors;
  for (const ContainerRequest& r : requests) vendors.insert(r.kind.vendor);
  std::vector<RequirementSite> sites = CollectRequirements(spec, path, o, vendors);
  ApplyHints(sites, requests, o);
  Translate(sites, requests, o);

  // Claim specs, then pod claim names: the short name when one request of
  // the pod has it, else prefixed by the container's name.
  std::set<std::string> taken;
  if (const Node* claims = spec.Find("resourceClaims"); claims != nullptr && claims->is_sequence()) {
    for (const Node& c : claims->items) taken.insert(Text(c.Find("name")));
  }
  std::map<std::string, int> short_uses;
  for (ContainerRequest& r : requests) {
    if (!r.kind.mig_profile.empty()) {
      r.selectors.insert(r.selectors.begin(),
                         fmt::format("device.attributes['gpu.nvidia.com'].profile == '{}'", r.kind.mig_profile));
    }
    if (r.kind.time_sliced) {
      Message(api::Severity::kWarning, o, r.field, r.mark,
              r.kind.class_name == "gpu.nvidia.com"
                  ? fmt::format("{} is time-sliced: the claim's GPU gets the driver's GpuConfig sharing.strategy "
                                "TimeSlicing, shared by the containers of one pod; pods no longer share a GPU with "
                                "other pods (for that, make them reference one ResourceClaim)",
                                r.resource)
                  : fmt::format("{} is time-sliced, which the driver does not do for MIG devices: the claim gets a "
                                "MIG device of its own",
                                r.resource));
    }
    r.claim_spec = ClaimSpec(r);
    r.spec_json = manifest::EmitJson(r.claim_spec, 0);
    ++short_uses[r.kind.short_name];
  }
  // Plain init containers share the claim of an app container that asks for
  // the same (the device plugin reuses the later containers' devices).
  std::vector<const ContainerRequest*> owner(requests.size(), nullptr);
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].plain_init) continue;
    for (const ContainerRequest& app : requests) {
      if (app.list == "containers" && app.spec_json == requests[i].spec_json) {
        owner[i] = &app;
        --short_uses[requests[i].kind.short_name];
        break;
      }
    }
  }
  Node new_claims = Node::Sequence();
  for (size_t i = 0; i < requests.size(); ++i) {
    ContainerRequest& r = requests[i];
    if (owner[i] != nullptr) continue;
    std::string base =
        short_uses[r.kind.short_name] > 1 ? fmt::format("{}-{}", r.container, r.kind.short_name) : r.kind.short_name;
    r.claim = base;
    for (int n = 2; taken.contains(r.claim); ++n) r.claim = fmt::format("{}-{}", base, n);
    taken.insert(r.claim);
    Node entry = Node::Mapping();
    entry.Add("name", Str(r.claim));
    entry.Add("resourceClaimTemplateName", Str(TemplateFor(r, o, pending)));
    new_claims.Push(std::move(entry));
    used_classes_.insert(r.kind.class_name);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (owner[i] != nullptr) requests[i].claim = owner[i]->claim;
  }

  // The tree: limits and requests out, claims in.
  for (const ContainerRequest& r : requests) {
    Node& c = spec.Find(r.list)->items[r.index];
    Node& resources = *c.Find("resources");
    for (std::string_view part : {"limits", "requests"}) {
      if (Node* m = resources.Find(part)) {
        m->Erase(r.resource);
        RemoveIfEmpty(resources, part);
      }
    }
    Node* claims = resources.Find("claims");
    if (claims == nullptr || !claims->is_sequence()) {
      resources.Erase("claims");
      resources.Add("claims", Node::Sequence());
      claims = &resources.items.back();
    }
    bool listed = false;
    for (const Node& e : claims->items)
      listed = listed || (Text(e.Find("name")) == r.claim && e.Find("request") == nullptr);
    if (!listed) {
      Node entry = Node::Mapping();
      entry.Add("name", Str(r.claim));
      claims->Push(std::move(entry));
    }
  }
  if (Node* existing = spec.Find("resourceClaims"); existing != nullptr && existing->is_sequence()) {
    for (Node& e : new_claims.items) existing->Push(std::move(e));
  } else {
    spec.Erase("resourceClaims");
    InsertBefore(spec, {"initContainers", "containers"}, "resourceClaims", std::move(new_claims));
  }

  // The translated label constraints out (expressions from the last, so
  // that indices stay valid), and what they leave empty.
  std::vector<size_t> exprs;
  for (const RequirementSite& s : sites) {
    if (!s.translated) continue;
    if (s.from_node_selector) {
      spec.Find("nodeSelector")->Erase(s.req.key);
    } else {
      exprs.push_back(s.expr_index);
    }
  }
  RemoveIfEmpty(spec, "nodeSelector");
  if (!exprs.empty()) {
    Node& na = *spec.Find("affinity")->Find("nodeAffinity");
    Node& required = *na.Find("requiredDuringSchedulingIgnoredDuringExecution");
    Node& terms = *required.Find("nodeSelectorTerms");
    Node& term = terms.items[0];
    Node& list = *term.Find("matchExpressions");
    std::sort(exprs.rbegin(), exprs.rend());
    for (size_t j : exprs) list.items.erase(list.items.begin() + static_cast<std::ptrdiff_t>(j));
    RemoveIfEmpty(term, "matchExpressions");
    if (term.items.empty()) terms.items.clear();
    RemoveIfEmpty(required, "nodeSelectorTerms");
    RemoveIfEmpty(na, "requiredDuringSchedulingIgnoredDuringExecution");
    RemoveIfEmpty(*spec.Find("affinity"), "nodeAffinity");
    RemoveIfEmpty(spec, "affinity");
  }
  return true;
}

void Migrator::EmitClasses() {
  std::vector<Node> classes;
  auto emit = [&](const std::string& name, const std::string& selector, const std::string& extended, bool sliced) {
    classes.push_back(DeviceClassTree(name, selector, extended, sliced));
    result_.classes.push_back(name);
    if (options_.cluster_known && !classes_.contains(name)) {
      result_.notes.push_back(fmt::format("the cluster has no DeviceClass {}: added", name));
    }
  };
  if (options_.mode == Mode::kClaims) {
    for (const std::string& name : used_classes_) {
      if (!classes_.contains(name)) emit(name, ClassSelector(name), "", false);
    }
  } else {
    for (const auto& [resource, kind] : used_) {
      std::string served_by;
      for (const auto& [name, extended] : classes_) {
        if (extended == resource) served_by = name;
      }
      if (!served_by.empty()) {
        result_.notes.push_back(fmt::format("{} is served by the existing DeviceClass {}", resource, served_by));
        continue;
      }
      std::string selector = ClassSelector(kind.class_name);
      if (!kind.mig_profile.empty()) {
        selector += fmt::format(" && device.attributes['gpu.nvidia.com'].profile == '{}'", kind.mig_profile);
      }
      if (classes_.contains(kind.extended_class_name)) {
        result_.notes.push_back(
            fmt::format("DeviceClass {} exists without extendedResourceName {}: the output "
                        "replaces it",
                        kind.extended_class_name, resource));
      }
      emit(kind.extended_class_name, selector, resource, kind.time_sliced && kind.class_name == "gpu.nvidia.com");
    }
  }
  if (!options_.cluster_known && !result_.classes.empty()) {
    result_.notes.push_back(
        fmt::format("no --cluster: the output includes the DeviceClasses it uses ({}); leave out "
                    "those your cluster has",
                    fmt::join(result_.classes, ", ")));
  }
  result_.objects.insert(result_.objects.begin(), std::make_move_iterator(classes.begin()),
                         std::make_move_iterator(classes.end()));
}

void Migrator::Run(std::vector<SourceObject> objects) {
  sharing_ = ReadSharing(objects, &result_.messages);
  classes_ = options_.existing_classes;
  for (const SourceObject& s : objects) {
    const std::string& kind = Text(s.root.Find("kind"));
    const Node* meta = s.root.Find("metadata");
    const std::string& name = meta != nullptr ? Text(meta->Find("name")) : Text(nullptr);
    if (kind == "DeviceClass") {
      const Node* spec = s.root.Find("spec");
      classes_.emplace(name, spec != nullptr ? Text(spec->Find("extendedResourceName")) : Text(nullptr));
    } else if (kind == "ResourceClaimTemplate") {
      template_names_.insert(Text(meta != nullptr ? meta->Find("namespace") : nullptr) + "/" + name);
    }
  }
  for (SourceObject& s : objects) {
    const std::string kind = Text(s.root.Find("kind"));
    std::optional<std::vector<std::string_view>> path = PodSpecPath(kind);
    Node* spec = path ? &s.root : nullptr;
    for (size_t i = 0; path && i < path->size() && spec != nullptr; ++i) spec = spec->Find((*path)[i]);
    if (spec == nullptr || !spec->is_mapping()) {
      result_.objects.push_back(std::move(s.root));
      continue;
    }
    const Node* meta = s.root.Find("metadata");
    Object o{.file = s.file ? *s.file : "",
             .display = {},
             .name = Text(meta != nullptr ? meta->Find("name") : nullptr),
             .ns = Text(meta != nullptr ? meta->Find("namespace") : nullptr)};
    o.display = fmt::format("{} {}{}", kind, o.ns.empty() ? "" : o.ns + "/", o.name);
    std::string path_text;
    for (std::string_view p : *path) path_text += (path_text.empty() ? "" : ".") + std::string(p);
    std::vector<Node> pending;
    if (RewritePodSpec(*spec, path_text, o, &pending)) ++result_.rewritten;
    for (Node& t : pending) result_.objects.push_back(std::move(t));
    result_.objects.push_back(std::move(s.root));
  }
  EmitClasses();
}

}  // namespace

size_t MigrateResult::error_count() const {
  return static_cast<size_t>(std::count_if(messages.begin(), messages.end(), [](const manifest::LoadMessage& m) {
    return m.severity == api::Severity::kError;
  }));
}

void AppendObjects(Node root, const std::shared_ptr<const std::string>& file, std::vector<SourceObject>* out) {
  const std::string& kind = Text(root.Find("kind"));
  if (root.is_mapping() && kind.ends_with("List")) {
    if (Node* items = root.Find("items"); items != nullptr && items->is_sequence()) {
      for (Node& item : items->items) AppendObjects(std::move(item), file, out);
      return;
    }
  }
  out->push_back({.root = std::move(root), .file = file});
}

SharingConfig ReadSharing(const std::vector<SourceObject>& objects, std::vector<manifest::LoadMessage>* messages) {
  SharingConfig sharing;
  for (const SourceObject& s : objects) {
    if (!IsDevicePluginConfigMap(s.root)) continue;
    const Node* meta = s.root.Find("metadata");
    const std::string& ns = Text(meta != nullptr ? meta->Find("namespace") : nullptr);
    std::string display =
        fmt::format("ConfigMap {}{}", ns.empty() ? "" : ns + "/", Text(meta != nullptr ? meta->Find("name") : nullptr));
    ReadSharingConfigMap(s.root, s.file ? *s.file : "", display, &sharing, messages);
  }
  return sharing;
}

MigrateResult Migrate(std::vector<SourceObject> objects, const MigrateOptions& options) {
  MigrateResult result;
  Migrator(options, &result).Run(std::move(objects));
  return result;
}

}  // namespace dra::migrate
