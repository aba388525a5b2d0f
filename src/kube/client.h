// An HTTPS client for the Kubernetes API server (libcurl over OpenSSL).
//
// Plain requests (GET/PUT/POST/PATCH/DELETE) and streamed GETs for watches.
// Thread-safe: requests from several threads each take an idle connection
// from a small pool (TLS sessions are reused); a Stream has its own. Transport
// failures (refused, TLS, timeout) are kUnavailable Status values; HTTP answers,
// whatever their code, come back as a Response and ApiError() turns a non-2xx
// one into a Status carrying the API server's own message.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/kubeconfig.h"

namespace dra::kube {

struct Response {
  long code = 0;  // HTTP status
  std::string body;
};

class Client {
 public:
  // Checks that the files the configuration names can be read.
  static StatusOr<std::unique_ptr<Client>> New(RestConfig config, std::string user_agent);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const RestConfig& config() const { return config_; }

  // `path` starts with '/' and may carry a query string. `content_type`
  // defaults to application/json when there is a body.
  StatusOr<Response> Do(std::string_view method, std::string_view path, std::string_view body = {},
                        std::string_view content_type = {});

  // GET `path` and call `on_line` for every newline-terminated line of the
  // body as it arrives (a watch stream: one JSON event per line). Returns OK
  // when the server ends the response or `on_line` returns false; *code gets
  // the HTTP status, and for a non-2xx answer *error_body the body.
  // Cancel() (from any thread) ends every running Stream with kCancelled.
  Status Stream(std::string_view path, const std::function<bool(std::string_view line)>& on_line, long* code,
                std::string* error_body);
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  struct Handle;
  Client(RestConfig config, std::string user_agent);
  StatusOr<std::unique_ptr<Handle>> NewHandle();
  StatusOr<std::string> AuthorizationHeader();

  RestConfig config_;
  std::string user_agent_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::vector<std::unique_ptr<Handle>> idle_;  // guarded by mu_
  std::string token_;                          // guarded by mu_: from token_file
  std::chrono::steady_clock::time_point token_read_{};
};

// The Status for a non-2xx response: the API server's Status message (its
// `message`, else the body's start) with `what` as context. 404 kNotFound,
// 409 kAborted (a conflict) or kAlreadyExists (reason AlreadyExists), 410
// kOutOfRange (expired resource version), 401 kUnauthenticated, 403
// kPermissionDenied, 400/422 kInvalidArgument, 429 and 5xx kUnavailable.
Status ApiError(const Response& response, std::string_view what);

// Percent-encodes a query parameter value.
std::string QueryEscape(std::string_view value);

// A time as the API writes it: RFC 3339 in UTC, "…T10:00:00Z" (metav1.Time)
// or with microseconds, "…T10:00:00.123456Z" (metav1.MicroTime).
std::string Rfc3339(std::chrono::system_clock::time_point t, bool micro);
// The current time, likewise.
std::string NowRfc3339(bool micro);

}  // namespace dra::kube
