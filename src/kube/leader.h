// Leader election with a coordination.k8s.io/v1 Lease, as client-go's
// k8s.io/client-go/tools/leaderelection/leaderelection.go does it
// (src/kube/README.md §6): only the holder schedules; others wait and take
// over once the holder has not renewed for the lease duration, judged by the
// time *this* process last saw the lease change (never by comparing clocks).
// Updates carry the observed resourceVersion, so two candidates cannot both
// win.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/client.h"

namespace dra::kube {

struct LeaderOptions {
  std::string lease_namespace = "dractl-system";
  std::string lease_name = "dractl";
  std::string identity;  // "<hostname>_<random>": unique per process
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::function<void(std::string_view)> log;
};

class LeaderElector {
 public:
  LeaderElector(Client* client, LeaderOptions options);

  // Tries every retry period until this process holds the lease (true) or
  // `stop` becomes true (false).
  bool Acquire(const std::atomic<bool>& stop);

  // Renews every retry period until `stop` becomes true (then releases the
  // lease: holderIdentity cleared) or a renewal has not succeeded for the
  // renew deadline (then returns false at once: the caller must stop
  // scheduling). Blocks.
  bool KeepRenewing(const std::atomic<bool>& stop);

  const std::string& identity() const { return options_.identity; }

 private:
  // One attempt: creates or takes over (when free or expired) or renews.
  // Returns true if we hold the lease afterwards.
  bool TryAcquireOrRenew();
  void Release();
  void Log(std::string_view line);
  std::string LeasePath() const;

  Client* client_;
  LeaderOptions options_;
  // What we last saw of the lease, and when (local clock).
  std::string observed_holder_;
  std::string observed_renew_time_;
  std::string observed_rv_;
  std::chrono::steady_clock::time_point observed_at_{};
  bool leading_ = false;
};

}  // namespace dra::kube
