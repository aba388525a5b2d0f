// A minimal HTTP/1.1 server for /metrics, /healthz, /livez and /readyz:
// GET only, one request per connection, answered from one thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "base/status.h"

namespace dra::kube {

struct HttpAnswer {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpAnswer(const std::string& path)>;
  HttpServer() = default;
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on `address` ("host:port"; port 0 picks a free one) and serves
  // from a thread until Stop().
  Status Start(const std::string& address, Handler handler);
  void Stop();
  int port() const { return port_; }

 private:
  void Loop();
  int fd_ = -1;
  int port_ = 0;
  Handler handler_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace dra::kube
