#include "kube/kubeconfig.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/base64.h"
#include "fmt/format.h"
#include "manifest/json_parser.h"
#include "manifest/node.h"
#include "manifest/yaml_parser.h"

namespace dra::kube {
namespace {

constexpr size_t kMaxKubeconfigBytes = 16u << 20;

StatusOr<std::string> ReadSmallFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return InvalidArgumentError(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxKubeconfigBytes) {
      return ResourceExhaustedError(fmt::format("{}: larger than {} bytes", path, kMaxKubeconfigBytes));
    }
  }
  if (in.bad()) return InvalidArgumentError(fmt::format("{}: read error", path));
  return text;
}

// One named entry (cluster, user or context) with the file that defined it.
struct Entry {
  const manifest::Node* body = nullptr;  // the `cluster:` / `user:` / `context:` mapping
  std::string file;
  std::string field;  // "users[2].user", for messages
};

struct Merged {
  std::vector<std::vector<manifest::Document>> documents;  // keeps the trees alive
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::string current_context_file;
};

std::string Where(const std::string& file, const manifest::Node& node, std::string_view field) {
  return fmt::format("{}:{}:{}: {}", file, node.mark.line, node.mark.column, field);
}

StatusOr<std::string> StringField(const std::string& file, const manifest::Node& map, std::string_view key,
                                  std::string_view field) {
  const manifest::Node* v = map.Find(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (v->kind != manifest::NodeKind::kString) {
    return InvalidArgumentError(
        fmt::format("{}.{}: must be a string, not {}", Where(file, *v, field), key, manifest::NodeKindName(v->kind)));
  }
  return v->text;
}

Status AddEntries(const std::string& file, const manifest::Node& root, std::string_view list, std::string_view body,
                  std::map<std::string, Entry>* out) {
  const manifest::Node* items = root.Find(list);
  if (items == nullptr || items->is_null()) return OkStatus();
  if (!items->is_sequence()) {
    return InvalidArgumentError(fmt::format("{}: must be a list", Where(file, *items, list)));
  }
  for (size_t i = 0; i < items->items.size(); ++i) {
    const manifest::Node& item = items->items[i];
    std::string field = fmt::format("{}[{}]", list, i);
    if (!item.is_mapping()) return InvalidArgumentError(fmt::format("{}: must be a mapping", Where(file, item, field)));
    StatusOr<std::string> name = StringField(file, item, "name", field);
    if (!name.ok()) return name.status();
    if (name->empty()) return InvalidArgumentError(fmt::format("{}.name: required", Where(file, item, field)));
    const manifest::Node* b = item.Find(body);
    if (b == nullptr || !b->is_mapping()) {
      return InvalidArgumentError(fmt::format("{}.{}: required, a mapping", Where(file, item, field), body));
    }
    out->emplace(*name, Entry{.body = b, .file = file, .field = fmt::format("{}.{}", field, body)});  // first wins
  }
  return OkStatus();
}

Status MergeFile(const std::string& path, Merged* merged) {
  StatusOr<std::string> text = ReadSmallFile(path);
  if (!text.ok()) return text.status().WithContext("kubeconfig");
  size_t first = text->find_first_not_of(" \t\r\n");
  StatusOr<std::vector<manifest::Document>> docs = first != std::string::npos && (*text)[first] == '{'
                                                       ? manifest::ParseJson(*text, path)
                                                       : manifest::ParseYaml(*text, path);
  if (!docs.ok()) return docs.status().WithContext("kubeconfig");
  merged->documents.push_back(std::move(*docs));
  const std::vector<manifest::Document>& documents = merged->documents.back();
  if (documents.size() > 1) return InvalidArgumentError(fmt::format("{}: a kubeconfig is one YAML document", path));
  if (documents.empty() || documents[0].root.is_null()) return OkStatus();  // an empty file adds nothing
  const manifest::Node& root = documents[0].root;
  if (!root.is_mapping())
    return InvalidArgumentError(fmt::format("{}: must be a mapping", Where(path, root, "(root)")));
  StatusOr<std::string> kind = StringField(path, root, "kind", "");
  if (!kind.ok()) return kind.status();
  if (!kind->empty() && *kind != "Config") {
    return InvalidArgumentError(fmt::format("{}: kind is {}, not Config: not a kubeconfig", path, *kind));
  }
  if (Status s = AddEntries(path, root, "clusters", "cluster", &merged->clusters); !s.ok()) return s;
  if (Status s = AddEntries(path, root, "users", "user", &merged->users); !s.ok()) return s;
  if (Status s = AddEntries(path, root, "contexts", "context", &merged->contexts); !s.ok()) return s;
  StatusOr<std::string> current = StringField(path, root, "current-context", "");
  if (!current.ok()) return current.status();
  if (merged->current_context.empty() && !current->empty()) {
    merged->current_context = *current;
    merged->current_context_file = path;
  }
  return OkStatus();
}

// A file named in `entry`, relative to the kubeconfig that holds the entry.
std::string ResolvePath(const Entry& entry, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  std::filesystem::path dir = std::filesystem::path(entry.file).parent_path();
  return (dir / path).string();
}

// Reads `key` (a file) and `key-data` (base64 PEM) of `entry` into file/pem.
Status FileOrData(const Entry& entry, std::string_view key, std::string* file, std::string* pem) {
  StatusOr<std::string> f = StringField(entry.file, *entry.body, key, entry.field);
  if (!f.ok()) return f.status();
  std::string data_key = fmt::format("{}-data", key);
  StatusOr<std::string> d = StringField(entry.file, *entry.body, data_key, entry.field);
  if (!d.ok()) return d.status();
  if (!d->empty()) {
    StatusOr<std::string> decoded = Base64Decode(*d);
    if (!decoded.ok()) {
      return InvalidArgumentError(fmt::format("{}.{}: {}", Where(entry.file, *entry.body->Find(data_key), entry.field),
                                              data_key, decoded.status().message()));
    }
    *pem = std::move(*decoded);  // data wins over the file, as in client-go
    return OkStatus();
  }
  *file = ResolvePath(entry, *f);
  return OkStatus();
}

Status ReadCluster(const Entry& e, RestConfig* config) {
  StatusOr<std::string> server = StringField(e.file, *e.body, "server", e.field);
  if (!server.ok()) return server.status();
  if (server->empty()) return InvalidArgumentError(fmt::format("{}.server: required", Where(e.file, *e.body, e.field)));
  std::string s = *server;
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (!s.starts_with("https://") && !s.starts_with("http://")) {
    return InvalidArgumentError(fmt::format("{}.server: \"{}\": must start with https:// or http://",
                                            Where(e.file, *e.body->Find("server"), e.field), *server));
  }
  config->server = s;
  if (Status st = FileOrData(e, "certificate-authority", &config->ca_file, &config->ca_pem); !st.ok()) return st;
  if (const manifest::Node* insecure = e.body->Find("insecure-skip-tls-verify"); insecure != nullptr) {
    if (insecure->kind != manifest::NodeKind::kBool) {
      return InvalidArgumentError(
          fmt::format("{}.insecure-skip-tls-verify: must be true or false", Where(e.file, *insecure, e.field)));
    }
    config->insecure = insecure->bool_value;
  }
  StatusOr<std::string> sni = StringField(e.file, *e.body, "tls-server-name", e.field);
  if (!sni.ok()) return sni.status();
  config->tls_server_name = *sni;
  for (std::string_view unsupported : {"proxy-url"}) {
    if (const manifest::Node* n = e.body->Find(unsupported); n != nullptr && !n->is_null()) {
      return UnimplementedError(fmt::format("{}.{}: not supported by dractl", Where(e.file, *n, e.field), unsupported));
    }
  }
  return OkStatus();
}

Status ReadUser(const Entry& e, RestConfig* config) {
  for (std::string_view unsupported : {"exec", "auth-provider", "username", "password", "as", "impersonate"}) {
    if (const manifest::Node* n = e.body->Find(unsupported); n != nullptr && !n->is_null()) {
      return UnimplementedError(
          fmt::format("{}.{}: not supported by dractl (use a client certificate, a token or tokenFile)",
                      Where(e.file, *n, e.field), unsupported));
    }
  }
  if (Status s = FileOrData(e, "client-certificate", &config->client_cert_file, &config->client_cert_pem); !s.ok()) {
    return s;
  }
  if (Status s = FileOrData(e, "client-key", &config->client_key_file, &config->client_key_pem); !s.ok()) return s;
  bool has_cert = !config->client_cert_file.empty() || !config->client_cert_pem.empty();
  bool has_key = !config->client_key_file.empty() || !config->client_key_pem.empty();
  if (has_cert != has_key) {
    return InvalidArgumentError(fmt::format("{}: client-certificate and client-key go together; only {} is set",
                                            Where(e.file, *e.body, e.field), has_cert ? "the certificate" : "the key"));
  }
  StatusOr<std::string> token = StringField(e.file, *e.body, "token", e.field);
  if (!token.ok()) return token.status();
  config->token = *token;
  StatusOr<std::string> token_file = StringField(e.file, *e.body, "tokenFile", e.field);
  if (!token_file.ok()) return token_file.status();
  config->token_file = ResolvePath(e, *token_file);
  return OkStatus();
}

}  // namespace

StatusOr<RestConfig> LoadKubeconfig(const std::vector<std::string>& paths, std::string_view context) {
  if (paths.empty()) return InvalidArgumentError("kubeconfig: no file given");
  Merged merged;
  for (const std::string& path : paths) {
    if (Status s = MergeFile(path, &merged); !s.ok()) return s;
  }
  std::string files;
  for (const std::string& p : paths) files += (files.empty() ? "" : ":") + p;
  std::string name(context);
  if (name.empty()) name = merged.current_context;
  if (name.empty()) {
    return InvalidArgumentError(fmt::format("kubeconfig {}: no current-context and no --context given", files));
  }
  auto ctx = merged.contexts.find(name);
  if (ctx == merged.contexts.end()) {
    std::string known;
    for (const auto& [n, e] : merged.contexts) known += (known.empty() ? "" : ", ") + n;
    return NotFoundError(fmt::format("kubeconfig {}: context \"{}\" is not defined (contexts: {})", files, name,
                                     known.empty() ? "none" : known));
  }
  const Entry& c = ctx->second;
  RestConfig config;
  config.source = fmt::format("kubeconfig {}, context {}", files, name);
  StatusOr<std::string> cluster = StringField(c.file, *c.body, "cluster", c.field);
  if (!cluster.ok()) return cluster.status();
  StatusOr<std::string> user = StringField(c.file, *c.body, "user", c.field);
  if (!user.ok()) return user.status();
  StatusOr<std::string> ns = StringField(c.file, *c.body, "namespace", c.field);
  if (!ns.ok()) return ns.status();
  config.namespace_ = ns->empty() ? "default" : *ns;
  auto cl = merged.clusters.find(*cluster);
  if (cluster->empty() || cl == merged.clusters.end()) {
    return NotFoundError(
        fmt::format("{}.cluster: \"{}\": no cluster of this name", Where(c.file, *c.body, c.field), *cluster));
  }
  if (Status s = ReadCluster(cl->second, &config); !s.ok()) return s;
  if (!user->empty()) {
    auto u = merged.users.find(*user);
    if (u == merged.users.end()) {
      return NotFoundError(
          fmt::format("{}.user: \"{}\": no user of this name", Where(c.file, *c.body, c.field), *user));
    }
    if (Status s = ReadUser(u->second, &config); !s.ok()) return s;
  }
  return config;
}

StatusOr<RestConfig> InClusterConfig(std::string_view sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return NotFoundError("not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }
  RestConfig config;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  config.server = fmt::format("https://{}:{}", h, port);
  std::string dir(sa_dir);
  config.token_file = dir + "/token";
  config.ca_file = dir + "/ca.crt";
  std::error_code ec;
  if (!std::filesystem::exists(config.token_file, ec)) {
    return NotFoundError(fmt::format("in-cluster configuration: {} does not exist", config.token_file));
  }
  StatusOr<std::string> ns = ReadSmallFile(dir + "/namespace");
  config.namespace_ = ns.ok() && !ns->empty() ? *ns : "default";
  while (!config.namespace_.empty() && std::isspace(static_cast<unsigned char>(config.namespace_.back()))) {
    config.namespace_.pop_back();
  }
  config.source = fmt::format("in-cluster service account ({})", dir);
  return config;
}

StatusOr<RestConfig> ResolveConfig(const std::string& explicit_path, std::string_view context) {
  if (!explicit_path.empty()) return LoadKubeconfig({explicit_path}, context);
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::vector<std::string> paths;
    std::stringstream list(env);
    std::string item;
    while (std::getline(list, item, ':')) {
      std::error_code ec;
      if (!item.empty() && std::filesystem::exists(item, ec)) paths.push_back(item);
    }
    if (paths.empty()) return NotFoundError(fmt::format("KUBECONFIG={}: none of its files exists", env));
    return LoadKubeconfig(paths, context);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    std::string path = std::string(home) + "/.kube/config";
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return LoadKubeconfig({path}, context);
  }
  StatusOr<RestConfig> in_cluster = InClusterConfig();
  if (!in_cluster.ok()) {
    return NotFoundError("no kubeconfig: --kubeconfig not given, KUBECONFIG not set, no ~/.kube/config, and " +
                         in_cluster.status().message());
  }
  return in_cluster;
}

}  // namespace dra::kube
