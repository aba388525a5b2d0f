// dractl serve: a secondary scheduler on a live API server (kube/serve.h).
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "kube/client.h"
#include "kube/http_server.h"
#include "kube/kubeconfig.h"
#include "kube/serve.h"
#include "sched/policy.h"

namespace dra::cli {
namespace {

struct ServeFlags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "dractl";
  std::string policy = "kube";
  uint64_t seed = 0;
  std::string version = "1.37";
  std::string gates;
  bool manage_claims = false;
  std::string metrics_address = "127.0.0.1:10260";
  int watch_timeout = 300;
};

std::mutex log_mu;

void LogLine(std::string_view line) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::lock_guard<std::mutex> lock(log_mu);
  std::fprintf(stderr, "%s dractl serve: %.*s\n", stamp, static_cast<int>(line.size()), line.data());
  std::fflush(stderr);
}

int Run(const ServeFlags& flags) {
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl serve", flags.version, flags.gates);
  if (!gates) return kExitUsageError;
  StatusOr<std::unique_ptr<sched::ScorePolicy>> policy = sched::NewPolicy(flags.policy);
  if (!policy.ok()) {
    std::fprintf(stderr, "dractl serve: --policy: %s\n", policy.status().message().c_str());
    return kExitUsageError;
  }
  StatusOr<kube::RestConfig> config = kube::ResolveConfig(flags.kubeconfig, flags.context);
  if (!config.ok()) {
    std::fprintf(stderr, "dractl serve: %s\n", config.status().message().c_str());
    return kExitInputError;
  }
  StatusOr<std::unique_ptr<kube::Client>> client = kube::Client::New(*config, "dractl/" DRACTL_VERSION);
  if (!client.ok()) {
    std::fprintf(stderr, "dractl serve: %s\n", client.status().message().c_str());
    return kExitInputError;
  }
  char host[256] = "dractl";
  ::gethostname(host, sizeof host - 1);

  // SIGINT and SIGTERM stop the loop gracefully: blocked here, before any
  // thread starts, and taken by sigwait in one thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  kube::Server server(client->get(), {.scheduler_name = flags.scheduler_name,
                                      .gates = *gates,
                                      .policy = policy->get(),
                                      .seed = flags.seed,
                                      .manage_claims = flags.manage_claims,
                                      .instance = fmt::format("{}-{}", flags.scheduler_name, host),
                                      .watch_timeout_seconds = flags.watch_timeout,
                                      .log = LogLine});
  kube::HttpServer http;
  if (!flags.metrics_address.empty()) {
    Status s = http.Start(flags.metrics_address, [&server](const std::string& path) -> kube::HttpAnswer {
      if (path == "/metrics") {
        return {.code = 200, .content_type = "text/plain; version=0.0.4; charset=utf-8", .body = server.metrics().Render()};
      }
      if (path == "/healthz" || path == "/livez") return {.code = 200, .body = "ok\n"};
      if (path == "/readyz") {
        return server.ready() ? kube::HttpAnswer{.code = 200, .body = "ok\n"}
                              : kube::HttpAnswer{.code = 503, .body = "caches not synced\n"};
      }
      return {.code = 404, .body = "not found\n"};
    });
    if (!s.ok()) {
      std::fprintf(stderr, "dractl serve: --metrics-address: %s\n", s.message().c_str());
      return kExitUsageError;
    }
  }
  LogLine(fmt::format("scheduling pods with schedulerName {} on {} ({}){}", flags.scheduler_name, config->server,
                      config->source,
                      flags.metrics_address.empty()
                          ? ""
                          : fmt::format("; /metrics, /healthz, /readyz on port {}", http.port())));
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != 0) LogLine(fmt::format("signal {}: stopping", sig));
    server.Stop();
  });
  server.Run();
  // Wake the waiter if Run returned on its own (it does not today).
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  http.Stop();
  LogLine("stopped");
  return kExitOk;
}

}  // namespace

int RunServe(std::span<const std::string_view> args) {
  CLI::App app{"Runs as a secondary scheduler against a live API server: pods with\n"
               "spec.schedulerName == --scheduler-name get their ResourceClaims allocated (as\n"
               "kube-scheduler 1.37's DynamicResources plugin would: finalizer, status.allocation and\n"
               "reservedFor, optimistic concurrency) and are bound. Pods that do not fit get\n"
               "PodScheduled=False with \"0/N nodes are available: ...\" and dractl's reason, and a\n"
               "FailedScheduling event. Claims from templates are created by kube-controller-manager;\n"
               "--manage-claims does it where it does not run. Runs until SIGINT or SIGTERM.\n"
               "\n"
               "  dractl serve [--kubeconfig FILE] [--context NAME] [--scheduler-name dractl]\n"
               "\n"
               "The API server is found as kubectl finds it: --kubeconfig, $KUBECONFIG,\n"
               "~/.kube/config, else the pod's service account. RBAC: deploy/rbac.yaml.\n"
               "Exit 0 after a signal; 1 when the kubeconfig cannot be used; 2 for usage errors.",
               "dractl serve"};
  ServeFlags flags;
  app.add_option("--kubeconfig", flags.kubeconfig, "kubeconfig file");
  app.add_option("--context", flags.context, "kubeconfig context (default: current-context)");
  app.add_option("--scheduler-name", flags.scheduler_name, "the spec.schedulerName this scheduler serves")
      ->capture_default_str();
  app.add_option("--policy", flags.policy, "node scoring: kube, binpack or best-fit (see `dractl schedule --help`)")
      ->check(CLI::IsMember({"kube", "binpack", "best-fit"}))
      ->capture_default_str();
  app.add_option("--seed", flags.seed, "breaks ties between equally scored nodes")->capture_default_str();
  app.add_option("--kubernetes-version", flags.version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", flags.gates, "gate overrides, as the API server's, e.g. DRAConsumableCapacity=true");
  app.add_flag("--manage-claims", flags.manage_claims,
               "create claims from templates and record them in the pod status (the resource-claim controller's "
               "job), for clusters without kube-controller-manager; never together with it");
  app.add_option("--metrics-address", flags.metrics_address,
                 "host:port for /metrics, /healthz, /livez, /readyz (port 0: any free port; empty: none)")
      ->capture_default_str();
  app.add_option("--watch-timeout", flags.watch_timeout, "seconds a watch request lasts before it is renewed")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  return Run(flags);
}

}  // namespace dra::cli
