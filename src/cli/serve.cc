// dractl serve: a secondary scheduler on a live API server (kube/serve.h).
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "base/release.h"
#include "cli/cluster_inputs.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "kube/client.h"
#include "kube/http_server.h"
#include "kube/kubeconfig.h"
#include "kube/leader.h"
#include "kube/serve.h"
#include "sched/policy.h"

namespace dra::cli {
namespace {

struct ServeFlags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "dractl";
  std::string policy = "kube";
  std::string device_choice;
  std::string gang;
  uint64_t gang_search_steps = sched::GangOptions{}.max_steps;
  std::vector<std::string> workload_profile;
  double profile_window = 3600;
  double profile_half_life = 600;
  uint64_t seed = 0;
  std::string version{kDefaultRelease};
  std::string gates;
  bool manage_claims = false;
  std::string metrics_address = "127.0.0.1:10260";
  int watch_timeout = 300;
  int binding_timeout = 600;
  int debug_write_delay_ms = 0;
  bool leader_elect = true;
  std::string lease_namespace = "dractl-system";
  std::string lease_name = "dractl";
  double lease_duration = 15;
  double renew_deadline = 10;
  double retry_period = 2;
};

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

std::string RandomSuffix() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

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
  const std::unique_ptr<sched::ScorePolicy> policy = PolicyFromFlag("dractl serve", flags.policy);
  if (!policy) return kExitUsageError;
  kube::RestConfig config;
  const std::unique_ptr<kube::Client> client =
      ConnectToApiServer("dractl serve", flags.kubeconfig, flags.context, &config);
  if (client == nullptr) return kExitInputError;
  std::optional<sched::WorkloadProfile> profile;
  if (flags.policy == "fgd" || flags.policy == "dra-pack") {
    if (!flags.workload_profile.empty()) {
      sched::WorkloadProfile p;
      if (int rc = LoadWorkloadProfile(flags.workload_profile, *gates, sched::Snapshot{}, "dractl serve", &p);
          rc >= 0) {
        return rc;
      }
      LogLine(
          fmt::format("--policy {} measures fragmentation against the pods seen pending in the last {:g} s "
                      "(half-life {:g} s), seeded with {}",
                      flags.policy, flags.profile_window, flags.profile_half_life, p.Describe()));
      profile = std::move(p);
    } else {
      LogLine(
          fmt::format("--policy {} measures fragmentation against the pods seen pending in the last {:g} s "
                      "(half-life {:g} s)",
                      flags.policy, flags.profile_window, flags.profile_half_life));
    }
  } else if (!flags.workload_profile.empty()) {
    LogLine(
        fmt::format("note: --workload-profile is for --policy fgd and dra-pack; --policy {} ignores it", flags.policy));
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

  kube::Server server(client.get(), {.scheduler_name = flags.scheduler_name,
                                     .gates = *gates,
                                     .policy = policy.get(),
                                     .device_choice = DeviceChoiceFor(flags.device_choice, flags.policy),
                                     .seed = flags.seed,
                                     .gang = GangOptionsFor(flags.gang, flags.policy, flags.gang_search_steps),
                                     .workload_profile = profile ? &*profile : nullptr,
                                     .profile_window_seconds = flags.profile_window,
                                     .profile_half_life_seconds = flags.profile_half_life,
                                     .manage_claims = flags.manage_claims,
                                     .instance = fmt::format("{}-{}", flags.scheduler_name, host),
                                     .watch_timeout_seconds = flags.watch_timeout,
                                     .binding_timeout = std::chrono::seconds(flags.binding_timeout),
                                     .write_delay = std::chrono::milliseconds(flags.debug_write_delay_ms),
                                     .log = LogLine});
  kube::HttpServer http;
  if (!flags.metrics_address.empty()) {
    Status s = http.Start(flags.metrics_address, [&server](const std::string& path) -> kube::HttpAnswer {
      if (path == "/metrics") {
        return {
            .code = 200, .content_type = "text/plain; version=0.0.4; charset=utf-8", .body = server.metrics().Render()};
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
  LogLine(fmt::format(
      "scheduling pods with schedulerName {} on {} ({}){}", flags.scheduler_name, config.server, config.source,
      flags.metrics_address.empty() ? "" : fmt::format("; /metrics, /healthz, /readyz on port {}", http.port())));
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (!done.load()) LogLine(fmt::format("signal {}: stopping", sig));
    stop.store(true);
    server.Stop();
  });
  auto finish = [&](int rc) {
    done.store(true);
    pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter if no signal came
    waiter.join();
    http.Stop();
    LogLine(rc == kExitOk ? "stopped" : "stopped: lost the lease");
    return rc;
  };
  std::atomic<bool> lost{false};
  std::thread renewer;
  std::optional<kube::LeaderElector> elector;
  if (flags.leader_elect) {
    elector.emplace(client.get(), kube::LeaderOptions{.lease_namespace = flags.lease_namespace,
                                                      .lease_name = flags.lease_name,
                                                      .identity = fmt::format("{}_{}", host, RandomSuffix()),
                                                      .lease_duration = Millis(flags.lease_duration),
                                                      .renew_deadline = Millis(flags.renew_deadline),
                                                      .retry_period = Millis(flags.retry_period),
                                                      .log = LogLine});
  }
  // Non-leaders keep their caches warm (the loop runs, writing nothing), so
  // that a takeover schedules at once.
  server.SetLeading(!flags.leader_elect);
  std::thread runner([&] { server.Run(); });
  if (elector) {
    if (!elector->Acquire(stop)) {
      server.Stop();
      runner.join();
      return finish(kExitOk);
    }
    server.SetLeading(true);
    renewer = std::thread([&] {
      if (!elector->KeepRenewing(stop)) {
        lost.store(true);
        server.Stop();  // a leader that cannot renew must stop writing at once
      }
    });
  }
  runner.join();
  stop.store(true);
  if (renewer.joinable()) renewer.join();  // releases the lease after a clean stop
  return finish(lost.load() ? kExitInputError : kExitOk);
}

}  // namespace

int RunServe(std::span<const std::string_view> args) {
  CLI::App app{
      "Runs as a secondary scheduler against a live API server: pods with\n"
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
      "With --leader-elect (the default) only the holder of the Lease\n"
      "dractl-system/dractl schedules; the others wait to take over.\n"
      "Exit 0 after a signal; 1 when the kubeconfig cannot be used or the lease was lost;\n"
      "2 for usage errors.",
      "dractl serve"};
  ServeFlags flags;
  app.add_option("--kubeconfig", flags.kubeconfig, "kubeconfig file");
  app.add_option("--context", flags.context, "kubeconfig context (default: current-context)");
  app.add_option("--scheduler-name", flags.scheduler_name, "the spec.schedulerName this scheduler serves")
      ->capture_default_str();
  app.add_option("--device-choice", flags.device_choice, kDeviceChoiceHelp)
      ->check(CLI::IsMember({"first-fit", "best-fit"}));
  AddGangFlags(app, &flags.gang, &flags.gang_search_steps);
  app.add_option("--policy", flags.policy, kPolicyHelp)
      ->check(CLI::IsMember({"kube", "binpack", "best-fit", "fgd", "dra-pack"}))
      ->capture_default_str();
  app.add_option("--workload-profile", flags.workload_profile,
                 "fgd, dra-pack: the typical pods fragmentation is measured against: pods, workloads and claim "
                 "templates (files, folders) or an openb pod CSV, weighted by count; seeds the profile of the pods "
                 "seen pending lately, which it fades into")
      ->expected(1, -1);
  app.add_option("--profile-window", flags.profile_window,
                 "fgd, dra-pack: seconds a pod seen pending counts in the workload profile")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--profile-half-life", flags.profile_half_life,
                 "fgd, dra-pack: a pod seen this many seconds ago counts half")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--seed", flags.seed, "breaks ties between equally scored nodes")->capture_default_str();
  app.add_option("--kubernetes-version", flags.version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", flags.gates,
                 "gate overrides, as the API server's, e.g. DRAConsumableCapacity=true");
  app.add_flag("--manage-claims", flags.manage_claims,
               "create claims from templates and record them in the pod status (the resource-claim controller's "
               "job; with DRAWorkloadResourceClaims also a PodGroup's claims, recorded in the group's and its "
               "members' status), for clusters without kube-controller-manager; never together with it");
  app.add_option("--metrics-address", flags.metrics_address,
                 "host:port for /metrics, /healthz, /livez, /readyz (port 0: any free port; empty: none)")
      ->capture_default_str();
  app.add_option("--watch-timeout", flags.watch_timeout, "seconds a watch request lasts before it is renewed")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--binding-timeout", flags.binding_timeout,
                 "seconds a pod waits for its devices' binding conditions, from each claim's allocationTimestamp "
                 "(kube-scheduler's DynamicResources bindingTimeout)")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_flag("--leader-elect,!--no-leader-elect", flags.leader_elect,
               "on by default: only the holder of a coordination.k8s.io Lease schedules (run several replicas for "
               "high availability); --no-leader-elect: schedule at once, alone");
  app.add_option("--leader-elect-resource-namespace", flags.lease_namespace, "namespace of the Lease")
      ->capture_default_str();
  app.add_option("--leader-elect-resource-name", flags.lease_name, "name of the Lease (deploy/rbac.yaml allows dractl)")
      ->capture_default_str();
  app.add_option("--leader-elect-lease-duration", flags.lease_duration,
                 "seconds a non-leader waits after the last renewal it saw before taking over")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  app.add_option("--leader-elect-renew-deadline", flags.renew_deadline,
                 "seconds the leader keeps trying to renew before it stops scheduling (and exits 1)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  app.add_option("--leader-elect-retry-period", flags.retry_period, "seconds between attempts to acquire or renew")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  app.add_option("--debug-write-delay", flags.debug_write_delay_ms,
                 "tests only: milliseconds to wait between planning a pod and writing its claims (logged), so that "
                 "a test can race it")
      ->check(CLI::Range(0, 60000));
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  return Run(flags);
}

}  // namespace dra::cli
