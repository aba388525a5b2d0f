// Where the API server is and who we are to it: kubeconfig files and the
// in-cluster service-account configuration (src/kube/README.md §7.2).
//
// A kubeconfig is read as kubectl reads it: `current-context` (or the context
// asked for) names a cluster and a user; files named by the cluster and user
// (certificate-authority, client-certificate, client-key, tokenFile) resolve
// against the directory of the kubeconfig file that holds that entry. With
// several files (the KUBECONFIG list), the first file that defines a named
// cluster, user or context wins, and so does the first `current-context`.
// Credential plugins (`exec`, `auth-provider`) and basic auth are not supported:
// they are errors that name the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::kube {

struct RestConfig {
  std::string server;  // "https://host:port" (no trailing slash)
  // Trust: a CA file, or PEM text (from certificate-authority-data); neither
  // means the system's trust store. insecure skips verification altogether.
  std::string ca_file;
  std::string ca_pem;
  bool insecure = false;
  std::string tls_server_name;  // SNI and the name the certificate must carry
  // Client certificate: files or PEM text.
  std::string client_cert_file;
  std::string client_cert_pem;
  std::string client_key_file;
  std::string client_key_pem;
  // Bearer token: literal, or a file re-read as it changes (service-account
  // tokens are rotated by the kubelet).
  std::string token;
  std::string token_file;
  std::string namespace_;  // the context's namespace ("default" when unset)
  // Where this came from, for messages: "kubeconfig a.yaml, context kind-x".
  std::string source;
};

// Reads the kubeconfig files `paths` (merged as described above) and returns
// the configuration of `context`, or of the current context when empty.
// Errors name the file, line, column and field.
StatusOr<RestConfig> LoadKubeconfig(const std::vector<std::string>& paths, std::string_view context);

// The configuration of a pod: KUBERNETES_SERVICE_HOST/PORT and the
// service-account files under `sa_dir` (normally
// /var/run/secrets/kubernetes.io/serviceaccount).
StatusOr<RestConfig> InClusterConfig(std::string_view sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// As kubectl decides: `explicit_path` if given; else the $KUBECONFIG list
// (':'-separated); else ~/.kube/config if it exists; else the in-cluster
// configuration.
StatusOr<RestConfig> ResolveConfig(const std::string& explicit_path, std::string_view context);

}  // namespace dra::kube
