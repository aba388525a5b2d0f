#include "kube/leader.h"

#include <ctime>
#include <thread>
#include <utility>

#include "fmt/format.h"
#include "kube/request_bodies.h"
#include "manifest/emit.h"
#include "manifest/json_parser.h"

namespace dra::kube {
namespace {

using Clock = std::chrono::steady_clock;

std::string Text(const manifest::Node* n) {
  return n != nullptr && (n->kind == manifest::NodeKind::kString || n->kind == manifest::NodeKind::kInt)
             ? n->text
             : std::string();
}

// metadata.resourceVersion of a Lease answer ("" if unreadable).
std::string ResourceVersionOf(const std::string& body) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(body, "lease");
  if (!docs.ok() || docs->size() != 1 || !(*docs)[0].root.is_mapping()) return "";
  const manifest::Node* meta = (*docs)[0].root.Find("metadata");
  return meta != nullptr && meta->is_mapping() ? Text(meta->Find("resourceVersion")) : "";
}

void SleepUnless(const std::atomic<bool>& stop, std::chrono::milliseconds d) {
  auto until = Clock::now() + d;
  while (!stop.load() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace

LeaderElector::LeaderElector(Client* client, LeaderOptions options) : client_(client), options_(std::move(options)) {}

void LeaderElector::Log(std::string_view line) {
  if (options_.log) options_.log(line);
}

std::string LeaderElector::LeasePath() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", options_.lease_namespace,
                     options_.lease_name);
}

bool LeaderElector::TryAcquireOrRenew() {
  const std::string now = NowRfc3339(true);
  const int64_t duration_s = std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count();
  StatusOr<Response> got = client_->Do("GET", LeasePath());
  if (!got.ok()) {
    Log(fmt::format("leader election: {}", got.status().message()));
    return false;
  }
  if (got->code == 404) {
    const std::string body = RequestJson(LeaseBody({.name = options_.lease_name,
                                                    .namespace_ = options_.lease_namespace,
                                                    .holder_identity = options_.identity,
                                                    .lease_duration_seconds = duration_s,
                                                    .acquire_time = now,
                                                    .renew_time = now,
                                                    .lease_transitions = 0}));
    StatusOr<Response> created = client_->Do(
        "POST", fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", options_.lease_namespace), body);
    if (!created.ok() || created->code < 200 || created->code >= 300) {
      if (created.ok() && created->code != 409) Log(ApiError(*created, "leader election: create the lease").message());
      return false;
    }
    observed_holder_ = options_.identity;
    observed_renew_time_ = now;
    observed_rv_ = ResourceVersionOf(created->body);
    observed_at_ = Clock::now();
    return true;
  }
  if (got->code != 200) {
    Log(ApiError(*got, "leader election: get the lease").message());
    return false;
  }
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(got->body, "lease");
  if (!docs.ok() || docs->size() != 1 || !(*docs)[0].root.is_mapping()) {
    Log("leader election: the lease is not a JSON object");
    return false;
  }
  const manifest::Node& lease = (*docs)[0].root;
  const manifest::Node* meta = lease.Find("metadata");
  const manifest::Node* spec = lease.Find("spec");
  std::string rv = meta != nullptr ? Text(meta->Find("resourceVersion")) : "";
  std::string holder = spec != nullptr ? Text(spec->Find("holderIdentity")) : "";
  std::string renew = spec != nullptr ? Text(spec->Find("renewTime")) : "";
  std::string acquire = spec != nullptr ? Text(spec->Find("acquireTime")) : "";
  int64_t transitions = 0;
  if (spec != nullptr) {
    std::string t = Text(spec->Find("leaseTransitions"));
    if (!t.empty()) transitions = std::stoll(t);
  }
  // A record that changed since we last looked restarts its expiry clock.
  if (holder != observed_holder_ || renew != observed_renew_time_ || observed_at_ == Clock::time_point{}) {
    observed_holder_ = holder;
    observed_renew_time_ = renew;
    observed_at_ = Clock::now();
  }
  observed_rv_ = rv;
  const bool mine = holder == options_.identity;
  if (!holder.empty() && !mine && Clock::now() < observed_at_ + options_.lease_duration) {
    return false;  // held by someone else, and not expired
  }
  if (!mine) {
    acquire = now;
    ++transitions;
  }
  const std::string body =
      RequestJson(LeaseBody({.name = options_.lease_name,
                             .namespace_ = options_.lease_namespace,
                             .resource_version = rv,
                             .holder_identity = options_.identity,
                             .lease_duration_seconds = duration_s,
                             .acquire_time = acquire.empty() ? std::nullopt : std::optional<std::string_view>(acquire),
                             .renew_time = now,
                             .lease_transitions = transitions}));
  StatusOr<Response> put = client_->Do("PUT", LeasePath(), body);
  if (!put.ok()) {
    Log(fmt::format("leader election: {}", put.status().message()));
    return false;
  }
  if (put->code < 200 || put->code >= 300) {
    if (put->code != 409) Log(ApiError(*put, "leader election: update the lease").message());
    return false;  // 409: someone else wrote first
  }
  if (!mine) {
    Log(fmt::format("leader election: took over the lease {}/{}{}", options_.lease_namespace, options_.lease_name,
                    holder.empty() ? "" : fmt::format(" from {}", holder)));
  }
  observed_holder_ = options_.identity;
  observed_renew_time_ = now;
  observed_rv_ = ResourceVersionOf(put->body);
  observed_at_ = Clock::now();
  return true;
}

bool LeaderElector::Acquire(const std::atomic<bool>& stop) {
  Log(fmt::format("leader election: waiting for the lease {}/{} as {}", options_.lease_namespace, options_.lease_name,
                  options_.identity));
  while (!stop.load()) {
    if (TryAcquireOrRenew()) {
      leading_ = true;
      Log(fmt::format("leader election: leading as {}", options_.identity));
      return true;
    }
    SleepUnless(stop, options_.retry_period);
  }
  return false;
}

bool LeaderElector::KeepRenewing(const std::atomic<bool>& stop) {
  Clock::time_point last_renewal = Clock::now();
  while (!stop.load()) {
    SleepUnless(stop, options_.retry_period);
    if (stop.load()) break;
    if (TryAcquireOrRenew()) {
      last_renewal = Clock::now();
      continue;
    }
    if (Clock::now() - last_renewal >= options_.renew_deadline) {
      leading_ = false;
      Log(fmt::format("leader election: lost the lease {}/{} (not renewed for {} ms)", options_.lease_namespace,
                      options_.lease_name, options_.renew_deadline.count()));
      return false;
    }
  }
  Release();
  return true;
}

void LeaderElector::Release() {
  if (!leading_) return;
  leading_ = false;
  // Clearing the holder lets another replica take over at once.
  const int64_t duration_s = std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count();
  // A PUT replaces the spec: acquireTime and leaseTransitions go (null, as
  // when left out).
  const std::string now = NowRfc3339(true);
  const std::string body = RequestJson(LeaseBody({.name = options_.lease_name,
                                                  .namespace_ = options_.lease_namespace,
                                                  .resource_version = observed_rv_,
                                                  .holder_identity = std::nullopt,
                                                  .lease_duration_seconds = duration_s,
                                                  .acquire_time = std::nullopt,
                                                  .renew_time = now,
                                                  .lease_transitions = std::nullopt}));
  StatusOr<Response> r = client_->Do("PUT", LeasePath(), body);
  if (r.ok() && r->code >= 200 && r->code < 300) {
    Log("leader election: released the lease");
  } else {
    Log("leader election: could not release the lease (it expires by itself)");
  }
}

}  // namespace dra::kube
