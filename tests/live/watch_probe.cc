// Runs one kube::Reflector against a real API server and prints what it
// delivers, one line each, for tests/live/run.sh to check:
//   replace <count> <resourceVersion>
//   ADDED|MODIFIED|DELETED <Kind> <namespace/name>
//   problem <message>
// Usage: watch_probe KUBECONFIG COLLECTION_PATH SECONDS [WATCH_TIMEOUT_SECONDS]
// Stops after SECONDS or on SIGTERM/SIGINT, then prints
// "stats lists=N watches=N expired=N errors=N".
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "api/object.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/reflector.h"
#include "manifest/loader.h"

namespace {
std::atomic<bool> stop_requested{false};
void RequestStop(int) { stop_requested.store(true); }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s KUBECONFIG COLLECTION_PATH SECONDS [WATCH_TIMEOUT_SECONDS]\n", argv[0]);
    return 2;
  }
  dra::StatusOr<dra::kube::RestConfig> config = dra::kube::LoadKubeconfig({argv[1]}, "");
  if (!config.ok()) {
    std::fprintf(stderr, "watch_probe: %s\n", config.status().message().c_str());
    return 1;
  }
  dra::StatusOr<std::unique_ptr<dra::kube::Client>> client = dra::kube::Client::New(*config, "dractl-watch-probe");
  if (!client.ok()) {
    std::fprintf(stderr, "watch_probe: %s\n", client.status().message().c_str());
    return 1;
  }
  std::mutex mu;
  auto sink = [&](dra::kube::ReflectorBatch batch) {
    std::lock_guard<std::mutex> lock(mu);
    if (batch.replace) std::printf("replace %zu %s\n", batch.events.size(), batch.resource_version.c_str());
    for (const dra::kube::ObjectEvent& e : batch.events) {
      if (batch.replace) continue;
      const char* type = e.type == dra::kube::EventType::kAdded      ? "ADDED"
                         : e.type == dra::kube::EventType::kModified ? "MODIFIED"
                                                                     : "DELETED";
      std::printf("%s %s\n", type, dra::manifest::ObjectDisplayName(e.object).c_str());
    }
    for (const std::string& p : batch.problems) std::printf("problem %s\n", p.c_str());
    std::fflush(stdout);
  };
  auto log = [&](std::string_view line) {
    std::lock_guard<std::mutex> lock(mu);
    std::fprintf(stderr, "watch_probe: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  dra::kube::Reflector reflector(client->get(), {.path = argv[2]}, "", sink, log);
  if (argc > 4) reflector.set_watch_timeout_seconds(std::atoi(argv[4]));
  std::signal(SIGTERM, RequestStop);
  std::signal(SIGINT, RequestStop);
  std::thread runner([&] { reflector.Run(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(argv[3]));
  while (!stop_requested.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (*client)->Cancel();
  runner.join();
  const dra::kube::ReflectorStats& s = reflector.stats();
  std::printf("stats lists=%llu watches=%llu expired=%llu errors=%llu\n",
              static_cast<unsigned long long>(s.lists.load()), static_cast<unsigned long long>(s.watches.load()),
              static_cast<unsigned long long>(s.expired.load()), static_cast<unsigned long long>(s.errors.load()));
  return 0;
}
