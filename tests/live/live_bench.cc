// The live scheduling benchmark of issue #9 (run by bench/live-compare): on a
// real API server, create NODES nodes with a ResourceSlice of DEVICES devices
// each, then PODS pods (namespace bench) with a claim from a one-device
// template and spec.schedulerName SCHEDULER, as fast as THREADS writers can,
// and measure for every pod the time from sending its create request to
// seeing it bound in a watch. Prints one JSON object:
//   {"scheduler", "pods", "bound", "create_seconds", "seconds", "pods_per_second",
//    "latency_ms": {"p50", "p90", "p99", "max"}, "first_bound_seconds",
//    "steady_pods_per_second" (first binding to last), "devices_allocated", "devices_twice"}
// The scheduler is the command after "--", started by live_bench:
//   stream   before the pods are created: latency_ms is create sent -> bound
//            seen; pods_per_second = bound / (last bound - first create);
//   backlog  after every pod exists and has its claim (kube-controller-manager
//            made them): latency_ms is scheduler start -> bound seen;
//            pods_per_second = bound / (last bound - scheduler start): the
//            scheduler's own throughput, not the API server's create rate.
// Usage: live_bench KUBECONFIG SCHEDULER NODES DEVICES PODS THREADS TIMEOUT_SECONDS
//                   stream|backlog -- COMMAND...
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/json_escape.h"
#include "fmt/format.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "manifest/json_parser.h"

namespace {

using Clock = std::chrono::steady_clock;
using dra::JsonString;
using dra::kube::Client;

void Die(const std::string& what) {
  std::fprintf(stderr, "live_bench: %s\n", what.c_str());
  std::exit(1);
}

void Create(Client& client, const std::string& path, const std::string& body) {
  for (int attempt = 0;; ++attempt) {
    dra::StatusOr<dra::kube::Response> r = client.Do("POST", path, body);
    if (r.ok() && r->code >= 200 && r->code < 300) return;
    if (r.ok() && r->code == 409) return;  // exists already
    if (attempt == 5) {
      Die(r.ok() ? dra::kube::ApiError(*r, "create " + path).message() : r.status().message());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
  }
}

// Runs f(i) for i in [0, n) on `threads` threads.
template <typename F>
void Parallel(int n, int threads, F f) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(std::max(threads, 0)));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i; (i = next.fetch_add(1)) < n;) f(i);
    });
  }
  for (std::thread& t : pool) t.join();
}

const dra::manifest::Node* Path(const dra::manifest::Node& root, std::initializer_list<const char*> keys) {
  const dra::manifest::Node* n = &root;
  for (const char* k : keys) {
    if (n == nullptr || !n->is_mapping()) return nullptr;
    n = n->Find(k);
  }
  return n;
}

// The cluster: a class, a template, and `nodes` nodes with a slice of
// `devices` devices each.
void CreateCluster(Client& client, int nodes, int devices, int threads) {
  Create(client, "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})");
  Create(client, "/apis/resource.k8s.io/v1/deviceclasses",
         R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"bench.dractl.dev"},)"
         R"("spec":{"selectors":[{"cel":{"expression":"device.driver == \"bench.dractl.dev\""}}]}})");
  Create(client, "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaimtemplates",
         R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"one-device",)"
         R"("namespace":"bench"},"spec":{"spec":{"devices":{"requests":[{"name":"dev","exactly":)"
         R"({"deviceClassName":"bench.dractl.dev"}}]}}}})");
  Parallel(nodes, threads, [&](int i) {
    std::string node = fmt::format("bench-node-{:04d}", i);
    Create(client, "/api/v1/nodes",
           fmt::format(R"({{"apiVersion":"v1","kind":"Node","metadata":{{"name":"{0}","labels":)"
                       R"({{"kubernetes.io/hostname":"{0}"}}}},"status":{{"allocatable":{{"cpu":"64",)"
                       R"("memory":"256Gi","pods":"110"}},"capacity":{{"cpu":"64","memory":"256Gi","pods":"110"}}}}}})",
                       node));
    std::string devs;
    for (int d = 0; d < devices; ++d) {
      devs += fmt::format(R"({}{{"name":"dev-{}","attributes":{{"model":{{"string":"bench"}}}}}})", d ? "," : "", d);
    }
    Create(client, "/apis/resource.k8s.io/v1/resourceslices",
           fmt::format(R"({{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{{"name":"{0}"}},)"
                       R"("spec":{{"driver":"bench.dractl.dev","nodeName":"{0}","pool":{{"name":"{0}",)"
                       R"("generation":1,"resourceSliceCount":1}},"devices":[{1}]}}}})",
                       node, devs));
  });
}

// The resourceVersion of the bench pods now, where a watch starts.
std::string PodsResourceVersion(Client& client) {
  dra::StatusOr<dra::kube::Response> list = client.Do("GET", "/api/v1/namespaces/bench/pods?limit=1");
  if (!list.ok() || list->code != 200) Die("cannot list pods");
  std::string rv;
  auto docs = dra::manifest::ParseJson(list->body, "list");
  if (docs.ok() && docs->size() == 1) {
    if (const auto* r = Path((*docs)[0].root, {"metadata", "resourceVersion"}); r != nullptr) rv = r->text;
  }
  return rv;
}

// Watches the bench pods from `rv` until the client is cancelled, noting in
// `bound` when each is first seen bound.
void WatchBindings(Client& client, std::string& rv, std::mutex& mu, std::map<std::string, Clock::time_point>& bound,
                   std::atomic<int>& bound_count) {
  while (!client.cancelled()) {
    long code = 0;
    dra::Status s = client.Stream(
        fmt::format("/api/v1/namespaces/bench/pods?watch=1&resourceVersion={}&timeoutSeconds=3600", rv),
        [&](std::string_view line) {
          auto docs = dra::manifest::ParseJson(line, "event");
          if (!docs.ok() || docs->size() != 1) return true;
          const auto* name = Path((*docs)[0].root, {"object", "metadata", "name"});
          const auto* node = Path((*docs)[0].root, {"object", "spec", "nodeName"});
          if (const auto* r = Path((*docs)[0].root, {"object", "metadata", "resourceVersion"}); r != nullptr) {
            rv = r->text;
          }
          if (name == nullptr || node == nullptr || node->text.empty()) return true;
          std::lock_guard<std::mutex> lock(mu);
          if (bound.emplace(name->text, Clock::now()).second) ++bound_count;
          return true;
        },
        &code, nullptr);
    if (!s.ok() && s.code() != dra::StatusCode::kCancelled)
      std::fprintf(stderr, "live_bench: watch: %s\n", s.message().c_str());
  }
}

// Creates the pods, noting in `sent` when each create request goes out.
void CreatePods(Client& client, int pods, int threads, const std::string& scheduler_name, std::mutex& mu,
                std::map<std::string, Clock::time_point>& sent) {
  Parallel(pods, threads, [&](int i) {
    std::string name = fmt::format("pod-{:05d}", i);
    {
      std::lock_guard<std::mutex> lock(mu);
      sent[name] = Clock::now();
    }
    Create(client, "/api/v1/namespaces/bench/pods",
           fmt::format(R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{}","namespace":"bench"}},)"
                       R"("spec":{{"schedulerName":{},"resourceClaims":[{{"name":"dev","resourceClaimTemplateName":)"
                       R"("one-device"}}],"containers":[{{"name":"c","image":"registry.k8s.io/pause:3.10",)"
                       R"("resources":{{"claims":[{{"name":"dev"}}]}}}}]}}}})",
                       name, JsonString(scheduler_name)));
  });
}

// Waits for the claims kube-controller-manager creates for the `pods` pods.
void WaitForClaims(Client& client, int pods) {
  for (int waited = 0;; ++waited) {
    dra::StatusOr<dra::kube::Response> r =
        client.Do("GET", "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims?limit=1");
    size_t claims = 0;
    if (r.ok() && r->code == 200) {
      auto docs = dra::manifest::ParseJson(r->body, "claims");
      const auto* remaining = docs.ok() ? Path((*docs)[0].root, {"metadata", "remainingItemCount"}) : nullptr;
      const auto* items = docs.ok() ? (*docs)[0].root.Find("items") : nullptr;
      claims = (items ? items->items.size() : 0) + (remaining ? std::stoul(remaining->text) : 0);
    }
    if (claims >= static_cast<size_t>(pods)) break;
    if (waited > 6000) Die("the claims were not all created in 10 minutes");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

struct Allocations {
  int allocated = 0;
  int twice = 0;  // devices in more than one claim
};

// Allocations: every device in at most one claim.
Allocations CountAllocations(const dra::kube::RestConfig& config) {
  dra::StatusOr<std::unique_ptr<Client>> fresh = Client::New(config, "dractl-live-bench");
  Allocations out;
  std::set<std::string> seen;
  std::string next;
  do {
    std::string path = "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims?limit=1000";
    if (!next.empty()) path += "&continue=" + dra::kube::QueryEscape(next);
    dra::StatusOr<dra::kube::Response> r = (*fresh)->Do("GET", path);
    if (!r.ok() || r->code != 200) Die("cannot list claims");
    auto docs = dra::manifest::ParseJson(r->body, "claims");
    if (!docs.ok()) Die("claims: bad JSON");
    const auto* items = (*docs)[0].root.Find("items");
    for (const auto& item : items ? items->items : std::vector<dra::manifest::Node>{}) {
      const auto* results = Path(item, {"status", "allocation", "devices", "results"});
      if (results == nullptr || !results->is_sequence()) continue;
      for (const auto& res : results->items) {
        std::string key =
            fmt::format("{}/{}/{}", res.Find("driver")->text, res.Find("pool")->text, res.Find("device")->text);
        ++out.allocated;
        if (!seen.insert(key).second) ++out.twice;
      }
    }
    const auto* c = Path((*docs)[0].root, {"metadata", "continue"});
    next = c != nullptr ? c->text : "";
  } while (!next.empty());
  return out;
}

}  // namespace

pid_t Spawn(char** argv) {
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[0], argv);
    std::perror("live_bench: exec");
    _exit(127);
  }
  return pid;
}

// An exception (a thread that cannot start, a malformed count in a reply) ends
// the benchmark, as any failure here does.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  if (argc < 11 || std::string(argv[9]) != "--" ||
      (std::string(argv[8]) != "stream" && std::string(argv[8]) != "backlog")) {
    std::fprintf(stderr,
                 "usage: %s KUBECONFIG SCHEDULER NODES DEVICES PODS THREADS TIMEOUT_SECONDS stream|backlog -- "
                 "COMMAND...\n",
                 argv[0]);
    return 2;
  }
  const bool backlog = std::string(argv[8]) == "backlog";
  char** command = argv + 10;
  const std::string scheduler_name = argv[2];
  const int nodes = std::atoi(argv[3]);
  const int devices = std::atoi(argv[4]);
  const int pods = std::atoi(argv[5]);
  const int threads = std::atoi(argv[6]);
  const int timeout = std::atoi(argv[7]);
  dra::StatusOr<dra::kube::RestConfig> config = dra::kube::LoadKubeconfig({argv[1]}, "");
  if (!config.ok()) Die(config.status().message());
  dra::StatusOr<std::unique_ptr<Client>> made = Client::New(*config, "dractl-live-bench");
  if (!made.ok()) Die(made.status().message());
  Client& client = **made;

  // The cluster: a class, a template, nodes and their slices.
  CreateCluster(client, nodes, devices, threads);
  std::fprintf(stderr, "live_bench: %d nodes with %d devices each created\n", nodes, devices);

  // Watch the bench pods from now on.
  std::string rv = PodsResourceVersion(client);
  std::mutex mu;
  std::map<std::string, Clock::time_point> sent, bound;
  std::atomic<int> bound_count{0};
  std::thread watcher([&] { WatchBindings(client, rv, mu, bound, bound_count); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  pid_t scheduler = 0;
  if (!backlog) {
    scheduler = Spawn(command);
    std::this_thread::sleep_for(std::chrono::seconds(3));  // its caches sync
  }
  Clock::time_point start = Clock::now();
  CreatePods(client, pods, threads, scheduler_name, mu, sent);
  const double create_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fprintf(stderr, "live_bench: %d pods created in %.1f s\n", pods, create_seconds);
  if (backlog) {
    // Wait for the claims kube-controller-manager creates, then start.
    WaitForClaims(client, pods);
    // Pod status updates (resourceClaimStatuses) trail the claims a little.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    std::fprintf(stderr, "live_bench: every claim created; starting the scheduler\n");
    scheduler = Spawn(command);
    start = Clock::now();
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [name, t] : sent) t = start;
  }
  const Clock::time_point deadline = start + std::chrono::seconds(timeout);
  while (bound_count.load() < pods && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  client.Cancel();
  watcher.join();
  kill(scheduler, SIGTERM);
  waitpid(scheduler, nullptr, 0);

  std::vector<double> latencies;
  Clock::time_point last = start;
  Clock::time_point first = Clock::time_point::max();
  for (const auto& [name, t] : bound) {
    auto s = sent.find(name);
    if (s == sent.end()) continue;
    latencies.push_back(std::chrono::duration<double, std::milli>(t - s->second).count());
    last = std::max(last, t);
    first = std::min(first, t);
  }
  // From the first binding seen to the last: the rate once the scheduler
  // runs, without its start-up (cache sync).
  const double steady_seconds = latencies.size() > 1 ? std::chrono::duration<double>(last - first).count() : 0.0;
  const double first_bound_seconds = latencies.empty() ? 0.0 : std::chrono::duration<double>(first - start).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    if (latencies.empty()) return 0.0;
    size_t i = std::min(latencies.size() - 1, static_cast<size_t>(p * static_cast<double>(latencies.size())));
    return latencies[i];
  };
  const double seconds = std::chrono::duration<double>(last - start).count();

  const Allocations allocations = CountAllocations(*config);

  std::printf(
      "{\"scheduler\": \"%s\", \"mode\": \"%s\", \"pods\": %d, \"bound\": %zu, \"create_seconds\": %.2f, \"seconds\": "
      "%.2f, "
      "\"pods_per_second\": %.1f, \"latency_ms\": {\"p50\": %.0f, \"p90\": %.0f, \"p99\": %.0f, \"max\": %.0f}, "
      "\"first_bound_seconds\": %.2f, \"steady_pods_per_second\": %.1f, "
      "\"devices_allocated\": %d, \"devices_twice\": %d}\n",
      scheduler_name.c_str(), backlog ? "backlog" : "stream", pods, latencies.size(), create_seconds, seconds,
      seconds > 0 ? static_cast<double>(latencies.size()) / seconds : 0.0, pct(0.5), pct(0.9), pct(0.99),
      latencies.empty() ? 0.0 : latencies.back(), first_bound_seconds,
      steady_seconds > 0 ? static_cast<double>(latencies.size() - 1) / steady_seconds : 0.0, allocations.allocated,
      allocations.twice);
  return latencies.size() == static_cast<size_t>(pods) && allocations.twice == 0 ? 0 : 1;
}
