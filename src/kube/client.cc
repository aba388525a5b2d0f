#include "kube/client.h"

#include <curl/curl.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "manifest/json_parser.h"

namespace dra::kube {
namespace {

// Idle handles kept for reuse, each with its open connection: as many as
// `dractl serve` writes at once (serve.cc), so a round does not reconnect.
constexpr size_t kMaxIdleHandles = 64;
// A response body larger than this is an error, not an allocation without end.
constexpr size_t kMaxResponseBytes = size_t{1} << 30;
// A watch line (one event) larger than this ends the stream with an error.
constexpr size_t kMaxLineBytes = size_t{256} << 20;
constexpr auto kTokenReread = std::chrono::seconds(60);

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  void Add(const std::string& h) { list = curl_slist_append(list, h.c_str()); }
};

size_t CollectBody(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<std::string*>(user);
  size_t bytes = size * n;
  if (out->size() + bytes > kMaxResponseBytes) return 0;  // aborts the transfer
  out->append(data, bytes);
  return bytes;
}

struct StreamState {
  const std::function<bool(std::string_view)>* on_line = nullptr;
  std::string pending;
  bool stopped = false;  // on_line returned false
  bool too_long = false;
  CURL* curl = nullptr;
  std::string error_body;  // non-2xx: the body
};

size_t StreamBody(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<StreamState*>(user);
  size_t bytes = size * n;
  long code = 0;
  curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code >= 300) {
    if (st->error_body.size() + bytes > (1u << 20)) return bytes;  // keep the start
    st->error_body.append(data, bytes);
    return bytes;
  }
  st->pending.append(data, bytes);
  size_t start = 0;
  for (size_t nl; (nl = st->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(st->pending.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!(*st->on_line)(line)) {
      st->stopped = true;
      return 0;
    }
  }
  st->pending.erase(0, start);
  if (st->pending.size() > kMaxLineBytes) {
    st->too_long = true;
    return 0;
  }
  return bytes;
}

int Progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;  // non-zero aborts
}

void SetBlob(CURL* curl, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, option, &blob);
}

Status CheckReadable(const std::string& path, std::string_view what) {
  if (path.empty()) return OkStatus();
  std::ifstream in(path);
  if (!in) return NotFoundError(fmt::format("{} {}: cannot be read", what, path));
  return OkStatus();
}

Status TransportError(CURLcode rc, const char* detail, std::string_view method, std::string_view url) {
  std::string text = detail[0] != '\0' ? detail : curl_easy_strerror(rc);
  StatusCode code = rc == CURLE_ABORTED_BY_CALLBACK ? StatusCode::kCancelled : StatusCode::kUnavailable;
  return Status(code, fmt::format("{} {}: {}", method, url, text));
}

}  // namespace

struct Client::Handle {
  CURL* curl = nullptr;
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

Client::Client(RestConfig config, std::string user_agent)
    : config_(std::move(config)), user_agent_(std::move(user_agent)) {}

Client::~Client() = default;

StatusOr<std::unique_ptr<Client>> Client::New(RestConfig config, std::string user_agent) {
  GlobalInit();
  if (config.server.empty()) return InvalidArgumentError("no API server address");
  for (const auto& [path, what] :
       {std::pair{config.ca_file, "certificate-authority"}, std::pair{config.client_cert_file, "client-certificate"},
        std::pair{config.client_key_file, "client-key"}, std::pair{config.token_file, "tokenFile"}}) {
    if (Status s = CheckReadable(path, what); !s.ok()) return s.WithContext(config.source);
  }
  return std::unique_ptr<Client>(new Client(std::move(config), std::move(user_agent)));
}

StatusOr<std::unique_ptr<Client::Handle>> Client::NewHandle() {
  auto h = std::make_unique<Handle>();
  h->curl = curl_easy_init();
  if (h->curl == nullptr) return Status(StatusCode::kInternal, "curl_easy_init failed");
  CURL* c = h->curl;
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, user_agent_.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
  if (config_.insecure) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!config_.ca_pem.empty()) {
    SetBlob(c, CURLOPT_CAINFO_BLOB, config_.ca_pem);
  } else if (!config_.ca_file.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  }
  if (!config_.client_cert_pem.empty()) {
    SetBlob(c, CURLOPT_SSLCERT_BLOB, config_.client_cert_pem);
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
  } else if (!config_.client_cert_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLCERT, config_.client_cert_file.c_str());
  }
  if (!config_.client_key_pem.empty()) {
    SetBlob(c, CURLOPT_SSLKEY_BLOB, config_.client_key_pem);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  } else if (!config_.client_key_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLKEY, config_.client_key_file.c_str());
  }
  return h;
}

StatusOr<std::string> Client::AuthorizationHeader() {
  if (!config_.token.empty()) return "Authorization: Bearer " + config_.token;
  if (config_.token_file.empty()) return std::string();
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (token_.empty() || now - token_read_ >= kTokenReread) {
    std::ifstream in(config_.token_file, std::ios::binary);
    if (!in) return Status(StatusCode::kUnauthenticated, "tokenFile " + config_.token_file + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    std::string t = text.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    token_ = t;
    token_read_ = now;
  }
  return "Authorization: Bearer " + token_;
}

StatusOr<Response> Client::Do(std::string_view method, std::string_view path, std::string_view body,
                              std::string_view content_type) {
  StatusOr<std::string> auth = AuthorizationHeader();
  if (!auth.ok()) return auth.status();
  std::unique_ptr<Handle> h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      h = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (h == nullptr) {
    StatusOr<std::unique_ptr<Handle>> fresh = NewHandle();
    if (!fresh.ok()) return fresh.status();
    h = std::move(*fresh);
  }
  CURL* c = h->curl;
  std::string url = config_.server + std::string(path);
  std::string method_text(method);
  std::string body_text(body);
  Response response;
  HeaderList headers;
  headers.Add("Accept: application/json");
  if (!auth->empty()) headers.Add(*auth);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    headers.Add(fmt::format("Content-Type: {}", content_type.empty() ? "application/json" : content_type));
  }
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);  // resets what an earlier request on this handle set
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, nullptr);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body_text.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_text.size()));
  }
  if (method != "GET") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method_text.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 60000L);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.code);
  // The handle keeps pointers to locals: clear them before it goes back to the pool.
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, nullptr);
  if (rc != CURLE_OK) return TransportError(rc, error, method, url);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < kMaxIdleHandles) idle_.push_back(std::move(h));
  }
  return response;
}

Status Client::Stream(std::string_view path, const std::function<bool(std::string_view)>& on_line, long* code,
                      std::string* error_body) {
  StatusOr<std::string> auth = AuthorizationHeader();
  if (!auth.ok()) return auth.status();
  StatusOr<std::unique_ptr<Handle>> h = NewHandle();
  if (!h.ok()) return h.status();
  CURL* c = (*h)->curl;
  std::string url = config_.server + std::string(path);
  HeaderList headers;
  headers.Add("Accept: application/json");
  if (!auth->empty()) headers.Add(*auth);
  StreamState state;
  state.on_line = &on_line;
  state.curl = c;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, StreamBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, Progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &cancelled_);
  CURLcode rc = curl_easy_perform(c);
  *code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, code);
  if (error_body != nullptr) *error_body = std::move(state.error_body);
  if (state.stopped) return OkStatus();
  if (state.too_long) {
    return ResourceExhaustedError(fmt::format("GET {}: one event is longer than {} bytes", url, kMaxLineBytes));
  }
  if (rc == CURLE_ABORTED_BY_CALLBACK || cancelled_.load()) {
    return Status(StatusCode::kCancelled, "GET " + url + ": cancelled");
  }
  if (rc != CURLE_OK) return TransportError(rc, error, "GET", url);
  if (!state.pending.empty()) {
    std::string_view rest = state.pending;
    on_line(rest);  // a last line without its newline
  }
  return OkStatus();
}

Status ApiError(const Response& response, std::string_view what) {
  std::string message;
  std::string reason;
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(response.body, "response");
  if (docs.ok() && docs->size() == 1 && (*docs)[0].root.is_mapping()) {
    const manifest::Node& root = (*docs)[0].root;
    if (const manifest::Node* m = root.Find("message"); m != nullptr && m->kind == manifest::NodeKind::kString) {
      message = m->text;
    }
    if (const manifest::Node* r = root.Find("reason"); r != nullptr && r->kind == manifest::NodeKind::kString) {
      reason = r->text;
    }
  }
  if (message.empty()) {
    message = response.body.substr(0, 200);
    if (response.body.size() > 200) message += "...";
    if (message.empty()) message = "(empty body)";
  }
  StatusCode code = StatusCode::kUnknown;
  switch (response.code) {
    case 400:
    case 422: code = StatusCode::kInvalidArgument; break;
    case 401: code = StatusCode::kUnauthenticated; break;
    case 403: code = StatusCode::kPermissionDenied; break;
    case 404: code = StatusCode::kNotFound; break;
    case 409: code = reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kAborted; break;
    case 410: code = StatusCode::kOutOfRange; break;
    case 429: code = StatusCode::kUnavailable; break;
    default:
      if (response.code >= 500) code = StatusCode::kUnavailable;
      break;
  }
  return Status(code,
                fmt::format("{}: HTTP {}{}: {}", what, response.code, reason.empty() ? "" : " " + reason, message));
}

std::string QueryEscape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string NowRfc3339(bool micro) { return Rfc3339(std::chrono::system_clock::now(), micro); }

std::string Rfc3339(std::chrono::system_clock::time_point now, bool micro) {
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!micro) return std::string(buf) + "Z";
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  return fmt::format("{}.{:06d}Z", buf, us);
}

}  // namespace dra::kube
