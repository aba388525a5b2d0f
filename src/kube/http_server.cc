#include "kube/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "fmt/format.h"

namespace dra::kube {
namespace {

constexpr size_t kMaxRequestBytes = 16384;

const char* Reason(int code) {
  switch (code) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start(const std::string& address, Handler handler) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return InvalidArgumentError(fmt::format("{}: want host:port", address));
  std::string host = address.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (...) {
    return InvalidArgumentError(fmt::format("{}: bad port", address));
  }
  if (port < 0 || port > 65535) return InvalidArgumentError(fmt::format("{}: bad port", address));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return InvalidArgumentError(fmt::format("{}: the host must be an IPv4 address", address));
  }
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status(StatusCode::kInternal, fmt::format("socket: {}", std::strerror(errno)));
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 64) != 0) {
    Status s(StatusCode::kUnavailable, fmt::format("listen on {}: {}", address, std::strerror(errno)));
    ::close(fd_);
    fd_ = -1;
    return s;
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  handler_ = std::move(handler);
  thread_ = std::thread([this] { Loop(); });
  return OkStatus();
}

void HttpServer::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void HttpServer::Loop() {
  while (!stop_.load()) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    timeval timeout{.tv_sec = 2, .tv_usec = 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequestBytes) {
      ssize_t n = ::recv(client, buf, sizeof buf, 0);
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    HttpAnswer answer;
    size_t sp1 = request.find(' ');
    size_t sp2 = sp1 == std::string::npos ? std::string::npos : request.find(' ', sp1 + 1);
    if (sp2 == std::string::npos) {
      ::close(client);
      continue;
    }
    std::string method = request.substr(0, sp1);
    std::string path = request.substr(sp1 + 1, sp2 - sp1 - 1);
    if (size_t q = path.find('?'); q != std::string::npos) path.resize(q);
    if (method != "GET") {
      answer = {.code = 405, .content_type = "text/plain; charset=utf-8", .body = "only GET\n"};
    } else {
      answer = handler_(path);
    }
    WriteAll(client,
             fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                         answer.code, Reason(answer.code), answer.content_type, answer.body.size(), answer.body));
    ::close(client);
  }
}

}  // namespace dra::kube
