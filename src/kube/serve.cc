#include "kube/serve.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <set>
#include <utility>

#include "alloc/features.h"
#include "base/json_escape.h"
#include "fmt/format.h"
#include "kube/list.h"
#include "kube/podgroup_claims.h"
#include "kube/request_bodies.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/json_parser.h"
#include "manifest/loader.h"
#include "sched/extended.h"
#include "sched/gang.h"
#include "sched/pod_claims.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"
#include "sched/timeline.h"

namespace dra::kube {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxWriteAttempts = 5;  // client-go RetryOnConflict's default
constexpr size_t kMaxEventNote = 1024;
// Pods whose writes run at once (each a few API requests in sequence). On a
// saturated API server dractl's writes compete with everyone else's: with 16,
// pods created as fast as 8 writers could outran it (create->bound p50 25 s,
// 500 nodes x 10 devices, 5,000 pods); with 64 it keeps up (p50 2.3 s).
// bench/RESULTS.md, "Live scheduling".
constexpr size_t kMaxParallelWrites = 64;
// After a round that placed nothing but left pods unschedulable, wait at
// least this long before the next (the cache changes all the time in a busy
// cluster; each round retries every unschedulable pod).
constexpr auto kIdleRoundInterval = std::chrono::milliseconds(200);

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

std::string Json(const api::Object& object) { return manifest::EmitJson(manifest::EncodeObject(object), 0); }

StatusOr<api::Object> DecodeBody(const std::string& body) {
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(body, "response");
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1) return InvalidArgumentError("response: not one JSON object");
  manifest::DropManagedFields(&(*docs)[0].root);
  return DecodeApiObject((*docs)[0].root);
}

std::string ClaimPath(std::string_view ns, std::string_view name) {
  return fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims/{}", ns, name);
}

std::string PodPath(const api::Pod& pod) {
  return fmt::format("/api/v1/namespaces/{}/pods/{}", pod.metadata.namespace_, pod.metadata.name);
}

bool HasFinalizer(const api::ResourceClaim& claim) {
  return std::find(claim.metadata.finalizers.begin(), claim.metadata.finalizers.end(),
                   sched::kDeleteProtectionFinalizer) != claim.metadata.finalizers.end();
}

bool ReservedFor(const api::ResourceClaim& claim, const api::Pod& pod) {
  for (const api::ResourceClaimConsumerReference& r : claim.status.reserved_for) {
    if (r.resource == "pods" && r.uid == pod.metadata.uid) return true;
  }
  return false;
}

// A template entry whose claim the resource-claim controller has not recorded yet.
bool WaitingForClaims(const api::Pod& pod) {
  for (const api::PodResourceClaim& c : pod.spec.resource_claims) {
    if (!c.resource_claim_template_name) continue;
    bool recorded = false;
    for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) recorded |= s.name == c.name;
    if (!recorded) return true;
  }
  return false;
}

// Claims the round created, by pod: from templates (--manage-claims), and
// the special claims of extended resources backed by DRA (created only for
// placed pods, at bind time, as upstream's PreBind does).
std::map<std::string, std::vector<size_t>> CreatedClaimsByPod(const sched::Snapshot& snapshot,
                                                              const std::vector<size_t>& created_claims) {
  std::map<std::string, std::vector<size_t>> created;
  for (size_t c : created_claims) {
    const api::ResourceClaim& claim = snapshot.claims[c];
    for (const api::OwnerReference& o : claim.metadata.owner_references) {
      if (o.controller.value_or(false) && o.kind == "Pod")
        created[claim.metadata.namespace_ + "/" + o.name].push_back(c);
    }
  }
  return created;
}

// The PodScheduled condition's status and message, from status.conditions.
std::pair<std::string, std::string> PodScheduledCondition(const api::Pod& pod) {
  const api::RawJson* raw = pod.status.extra.find("conditions");
  if (raw == nullptr) return {};
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseJson(*raw, "conditions");
  if (!docs.ok() || docs->size() != 1 || !(*docs)[0].root.is_sequence()) return {};
  for (const manifest::Node& c : (*docs)[0].root.items) {
    const manifest::Node* type = c.Find("type");
    if (type == nullptr || type->text != "PodScheduled") continue;
    const manifest::Node* status = c.Find("status");
    const manifest::Node* message = c.Find("message");
    return {status ? status->text : "", message ? message->text : ""};
  }
  return {};
}

}  // namespace

Server::Server(Client* client, ServeOptions options)
    : client_(client), options_(std::move(options)), metrics_(options_.scheduler_name) {}

Server::~Server() {
  Stop();
  client_->Cancel();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Server::Log(std::string_view line) {
  if (options_.log) options_.log(line);
}

void Server::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  wake_.notify_all();
}

void Server::Enqueue(ReflectorBatch batch) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(batch));
  wake_.notify_all();
}

void Server::Run() {
  std::vector<std::pair<Collection, std::string>> watched;
  for (const Collection& c : SnapshotCollections()) {
    // Finished pods hold nothing; they leave the watch as deletions.
    std::string query =
        c.path == "/api/v1/pods" ? "fieldSelector=" + QueryEscape("status.phase!=Succeeded,status.phase!=Failed") : "";
    watched.emplace_back(c, query);
  }
  for (const auto& [collection, query] : watched) {
    auto r = std::make_unique<Reflector>(
        client_, collection, query, [this](ReflectorBatch b) { Enqueue(std::move(b)); },
        [this](std::string_view line) { Log(line); });
    r->set_watch_timeout_seconds(options_.watch_timeout_seconds);
    reflectors_.push_back(std::move(r));
  }
  for (auto& r : reflectors_) threads_.emplace_back([r = r.get()] { r->Run(); });

  Clock::time_point last_round{};
  bool idle = false;  // the last round placed nothing and left pods unschedulable
  while (true) {
    std::deque<ReflectorBatch> batches;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      batches.swap(queue_);
    }
    for (const ReflectorBatch& b : batches) {
      for (const std::string& p : b.problems) Log(fmt::format("skipped an object that cannot be read: {}", p));
      cache_.Apply(b);
    }
    if (!cache_.synced(reflectors_.size())) continue;
    if (!ready_.exchange(true)) Log(fmt::format("caches synced: {} objects", cache_.size()));
    if (!leading_.load()) {
      planned_generation_ = UINT64_MAX;  // plan at once when leading
      continue;
    }
    MaintainEvents();
    if (!binding_waits_.empty()) CheckBindingWaits();
    if (cache_.generation() == planned_generation_ && !PodGroupClaimRetryDue()) continue;
    if (idle && Clock::now() - last_round < kIdleRoundInterval) continue;
    last_round = Clock::now();
    // The resource-claim controller's part for PodGroups comes first: the
    // round plans on what it recorded (src/kube/README.md §2.3).
    if (options_.manage_claims) ManagePodGroupClaims();
    Round round = Plan();
    idle = round.placed == 0 && round.deferred == 0 && round.unschedulable > 0;
    // Rounds run again when anything changed after this one (an echo of our
    // own write that only repeats what was assumed is no change), and at once
    // when pods were deferred: the writes they waited for are in the cache.
    planned_generation_ = round.deferred > 0 ? UINT64_MAX : cache_.generation();
  }
  client_->Cancel();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

std::vector<const api::Object*> Server::RoundObjects(int64_t* gated) const {
  std::vector<const api::Object*> all = cache_.Objects([](const api::Pod&) { return true; });
  std::vector<const api::Object*> objects;
  for (const api::Object* o : all) {
    const auto* p = std::get_if<api::Pod>(o);
    if (p == nullptr || !p->spec.node_name.empty()) {
      objects.push_back(o);
      continue;
    }
    if (p->spec.scheduler_name != options_.scheduler_name) continue;  // another scheduler's
    if (!p->metadata.deletion_timestamp.empty()) continue;
    // Placed already, waiting for binding conditions: its claims hold its devices.
    if (binding_waits_.count(sched::ObjectKey(p->metadata)) > 0) continue;
    if (options_.manage_claims ? WaitingForGroupClaims(*p) : WaitingForClaims(*p)) {
      ++*gated;
      continue;
    }
    objects.push_back(o);
  }
  return objects;
}

const sched::WorkloadProfile* Server::ObservePending(const sched::Snapshot& snapshot, sched::WorkloadProfile* profile) {
  if (options_.policy->packing() == sched::Packing::kNone) return nullptr;
  if (!profile_window_) {
    profile_start_ = Clock::now();
    profile_window_.emplace(options_.profile_window_seconds, options_.profile_half_life_seconds,
                            options_.workload_profile, 0);
  }
  const double now = Seconds(profile_start_);
  const std::vector<size_t> pending = sched::PendingQueue(snapshot);
  const std::vector<sched::WorkloadShape> shapes = sched::ShapesOfPods(snapshot, pending);
  for (size_t i = 0; i < pending.size(); ++i) {
    profile_window_->Observe(snapshot.pods[pending[i]].metadata.uid, shapes[i], now);
  }
  *profile = profile_window_->Profile(now);
  return profile;
}

Server::PodWrite Server::PrepareWrite(const sched::PodOutcome& outcome, const api::Pod& pod,
                                      const sched::Snapshot& snapshot, const std::vector<size_t>& created,
                                      std::set<std::string>* allocated_now) const {
  PodWrite w;
  w.pod_key = outcome.pod;
  w.node = outcome.node;
  w.pod = pod;
  if (const api::Object* cached = cache_.Find(api::Kind::kPod, outcome.pod); cached != nullptr) {
    w.cached_pod = std::get<api::Pod>(*cached);
  }
  for (size_t c : created) w.create.push_back(snapshot.claims[c]);
  for (const sched::ClaimPlacement& cp : outcome.claims) {
    size_t slash = cp.claim.find('/');
    std::optional<size_t> idx = snapshot.FindClaim(cp.claim.substr(0, slash), cp.claim.substr(slash + 1));
    if (!idx) continue;
    PodWrite::Claim c{
        .key = cp.claim, .planned = snapshot.claims[*idx], .cached = std::nullopt, .allocate = cp.allocated_now};
    if (const api::Object* cached = cache_.Find(api::Kind::kResourceClaim, cp.claim); cached != nullptr) {
      c.cached = std::get<api::ResourceClaim>(*cached);
    }
    if (cp.allocated_now) allocated_now->insert(cp.claim);
    for (const api::DeviceRequestAllocationResult& r : cp.results) {
      w.devices += fmt::format("{}{}/{}/{}", w.devices.empty() ? "" : ",", r.driver, r.pool, r.device);
    }
    w.claims.push_back(std::move(c));
  }
  return w;
}

void Server::ReportUnplaced(const sched::PodOutcome& outcome, const api::Pod& pod, const sched::Snapshot& snapshot,
                            const std::vector<size_t>& created) {
  std::vector<api::Object> assumed;
  // The resource-claim controller's part happens whether or not the pod fits.
  if (!created.empty()) {
    Status st = OkStatus();
    for (size_t i : created) {
      if (st.ok()) st = CreateClaim(snapshot.claims[i], &assumed);
    }
    if (st.ok()) st = RecordPodClaims(pod, &assumed);
    if (!st.ok()) Log(fmt::format("pod {}: {}", outcome.pod, st.message()));
  }
  std::string message = outcome.message;
  // The allocator's reason for the first node DRA rejected: dractl's detail
  // after the kube-scheduler text (`dractl explain` has the full story).
  for (const sched::NodeRejection& r : outcome.rejections) {
    if (std::string detail = r.Detail(); !detail.empty()) {
      message += fmt::format(" dractl: node {}: {}", r.node, detail);
      break;
    }
  }
  if (reported_[outcome.pod] != message) {
    Clock::time_point attempt_start = Clock::now();
    ++attempts_[outcome.pod];
    const bool error = outcome.kind == sched::PodOutcome::Kind::kError;
    ReportUnschedulable(pod, message, error, &assumed);
    metrics_.Attempt(error ? "error" : "unschedulable", Seconds(attempt_start));
    reported_[outcome.pod] = message;
  }
  for (api::Object& a : assumed) cache_.Assume(std::move(a));
}

void Server::ExecuteWrites(std::vector<PodWrite>* writes) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < writes->size();) Execute(&(*writes)[i]);
  };
  const size_t workers = std::min(writes->size(), kMaxParallelWrites);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

int64_t Server::FinishWrites(std::vector<PodWrite>* writes, Clock::time_point start) {
  int64_t placed = 0;
  for (PodWrite& w : *writes) {
    for (api::Object& a : w.assumed) cache_.Assume(std::move(a));
    if (w.wait_binding) {
      BindingWait wait{.pod = w.pod,
                       .node = w.node,
                       .claims = {},
                       .allocated = {},
                       .devices = w.devices,
                       .start = start,
                       .deadline = std::chrono::system_clock::now() + options_.binding_timeout};
      for (const PodWrite::Claim& c : w.claims) {
        wait.claims.push_back(c.key);
        if (c.allocate) wait.allocated.push_back(c.key);
      }
      binding_waits_.emplace(w.pod_key, std::move(wait));
      continue;
    }
    ++attempts_[w.pod_key];
    if (!w.ok) continue;
    ++placed;
    metrics_.PodScheduled(attempts_[w.pod_key], Seconds(first_seen_[w.pod_key]));
    attempts_.erase(w.pod_key);
    first_seen_.erase(w.pod_key);
    reported_.erase(w.pod_key);
  }
  return placed;
}

void Server::ForgetGone(const std::map<std::string, size_t>& pod_index) {
  auto forget_gone = [&](auto& by_pod) {
    for (auto it = by_pod.begin(); it != by_pod.end();) {
      const bool keep = pod_index.count(it->first) > 0 || binding_waits_.count(it->first) > 0;
      it = keep ? std::next(it) : by_pod.erase(it);
    }
  };
  forget_gone(reported_);
  forget_gone(first_seen_);
  forget_gone(attempts_);
}

Server::Round Server::Plan() {
  Clock::time_point start = Clock::now();
  int64_t gated = 0;
  sched::Snapshot snapshot = sched::NewSnapshot(RoundObjects(&gated), options_.gates);
  // A pod the API server kept spec.schedulingGroup on comes from a server
  // with GenericWorkload on, whatever --feature-gates says here: its group
  // is honoured, never bound member by member.
  (void)snapshot.gates.Set(api::Gate::kGenericWorkload, true);
  sched::ScheduleOptions so{.policy = options_.policy,
                            .seed = options_.seed,
                            .scheduler_name = options_.scheduler_name,
                            .create_template_claims = options_.manage_claims,
                            .device_choice = options_.device_choice,
                            .gang = options_.gang};
  sched::WorkloadProfile profile;
  if (const sched::WorkloadProfile* p = ObservePending(snapshot, &profile); p != nullptr) so.workload_profile = p;
  StatusOr<sched::ScheduleResult> result = sched::Schedule(&snapshot, so);
  metrics_.Algorithm(Seconds(start));
  metrics_.SetPending("gated", gated);
  if (!result.ok()) {
    Log(fmt::format("internal error: scheduling round: {}", result.status().ToString()));
    return {};
  }
  const std::map<std::string, std::vector<size_t>> created = CreatedClaimsByPod(snapshot, result->created_claims);
  std::map<std::string, size_t> pod_index;
  for (size_t i = 0; i < snapshot.pods.size(); ++i) pod_index[sched::ObjectKey(snapshot.pods[i].metadata)] = i;

  // The placed pods' writes. A pod that reserves a claim another pod of this
  // round allocates waits for the next round (its writes depend on theirs).
  std::vector<PodWrite> writes;
  std::set<std::string> allocated_now;
  int64_t unschedulable = 0;
  int64_t deferred = 0;
  const std::vector<size_t> none;
  for (const sched::PodOutcome& o : result->pods) {
    auto pi = pod_index.find(o.pod);
    if (pi == pod_index.end()) continue;
    const api::Pod& pod = snapshot.pods[pi->second];
    first_seen_.emplace(o.pod, start);
    auto c = created.find(o.pod);
    const std::vector<size_t>& pod_created = c != created.end() ? c->second : none;
    if (o.kind != sched::PodOutcome::Kind::kPlaced) {
      ++unschedulable;
      ReportUnplaced(o, pod, snapshot, pod_created);
      continue;
    }
    bool depends = false;
    for (const sched::ClaimPlacement& cp : o.claims) depends |= !cp.allocated_now && allocated_now.count(cp.claim);
    if (depends) {
      ++deferred;
      continue;
    }
    writes.push_back(PrepareWrite(o, pod, snapshot, pod_created, &allocated_now));
  }

  // The writes of different pods touch different claims: they run in
  // parallel, and their answers go into the cache here, on this thread.
  ExecuteWrites(&writes);
  for (const sched::GroupOutcome& g : result->groups) {
    if (g.tried) UpdatePodGroupCondition(g);
  }
  Round round{.placed = FinishWrites(&writes, start), .unschedulable = unschedulable, .deferred = deferred};
  metrics_.SetPending("unschedulable", unschedulable);
  // Forget pods that are gone (deleted, or bound by someone else); pods
  // waiting for binding conditions are not in this round but still ours.
  ForgetGone(pod_index);
  return round;
}

void Server::Execute(PodWrite* w) {
  Clock::time_point start = Clock::now();
  auto fail = [&](const std::string& why) {
    Log(fmt::format("pod {}: {}", w->pod_key, why));
    metrics_.Attempt("error", Seconds(start));
  };
  // Special claims of extended resources created so far: an attempt that
  // fails deletes them (template claims stay: the controller's part).
  std::vector<const api::ResourceClaim*> created_extended;
  auto fail_and_clean = [&](const std::string& why) {
    for (const api::ResourceClaim* c : created_extended) DeleteCreatedClaim(*c);
    fail(why);
  };
  for (const api::ResourceClaim& c : w->create) {
    if (Status s = CreateClaim(c, &w->assumed); !s.ok()) return fail_and_clean(s.message());
    if (c.metadata.annotations.find(sched::kExtendedResourceClaimAnnotation) != nullptr) created_extended.push_back(&c);
  }
  if (!w->create.empty()) {
    if (Status s = RecordPodClaims(w->pod, &w->assumed); !s.ok()) return fail_and_clean(s.message());
    // The claims were just created: write on top of what the server answered.
    for (PodWrite::Claim& c : w->claims) {
      for (const api::Object& a : w->assumed) {
        const auto* rc = std::get_if<api::ResourceClaim>(&a);
        if (rc != nullptr && sched::HasObjectKey(rc->metadata, c.key)) {
          c.cached = *rc;
        }
      }
    }
  }
  if (options_.write_delay.count() > 0) {
    Log(fmt::format("planned {} on {}; writing in {} ms (--debug-write-delay)", w->pod_key, w->node,
                    options_.write_delay.count()));
    std::this_thread::sleep_for(options_.write_delay);
  }
  std::vector<std::string> reserved_uids;  // claims reserved for the pod so far
  std::vector<const PodWrite::Claim*> reserved;
  auto unreserve_all = [&] {
    for (size_t k = 0; k < reserved.size(); ++k) Unreserve(*reserved[k], reserved_uids[k], w->pod, &w->assumed);
  };
  for (const PodWrite::Claim& c : w->claims) {
    StatusOr<api::ResourceClaim> written = WriteClaim(c, w->pod, &w->assumed);
    if (!written.ok()) {
      unreserve_all();
      return fail_and_clean(
          fmt::format("claim {}: {}; unreserving and planning again", c.key, written.status().message()));
    }
    reserved.push_back(&c);
    reserved_uids.push_back(written->metadata.uid);
  }
  if (BindingConditionsEnabled()) {
    for (const PodWrite::Claim& c : w->claims) {
      if (!c.planned.status.allocation) continue;
      for (const api::DeviceRequestAllocationResult& r : c.planned.status.allocation->devices.results) {
        w->wait_binding |= !r.binding_conditions.empty();
      }
    }
    if (w->wait_binding) {
      PostEvent(w->pod, "Normal", "BindingConditionsPending", "Scheduling",
                fmt::format("waiting for binding conditions for device on node {}", w->node));
      Log(fmt::format("pod {}: claims written for {}; waiting for binding conditions{}{}", w->pod_key, w->node,
                      w->devices.empty() ? "" : ": ", w->devices));
      return;
    }
  }
  if (Status s = Bind(w->pod, w->node); !s.ok()) {
    unreserve_all();
    return fail_and_clean(fmt::format("binding to {}: {}; unreserving", w->node, s.message()));
  }
  // The answer is a Status; the bound pod arrives by the watch. Until then the
  // cache holds it as bound, so the next round counts its requests on the node.
  if (!w->cached_pod.metadata.name.empty()) {
    api::Pod bound = w->cached_pod;
    for (const api::Object& a : w->assumed) {
      if (const auto* p = std::get_if<api::Pod>(&a); p != nullptr) bound = *p;  // with resourceClaimStatuses
    }
    bound.spec.node_name = w->node;
    w->assumed.emplace_back(std::move(bound));
  }
  PostEvent(w->pod, "Normal", "Scheduled", "Binding",
            fmt::format("Successfully assigned {} to {}", w->pod_key, w->node));
  Log(fmt::format("bound {} to {}{}{}", w->pod_key, w->node, w->devices.empty() ? "" : ": ", w->devices));
  metrics_.Attempt("scheduled", Seconds(start));
  w->ok = true;
}

Status Server::CreateClaim(const api::ResourceClaim& claim, std::vector<api::Object>* assumed) {
  api::ResourceClaim fresh = claim;
  fresh.status = {};
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do(
      "POST", fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims", claim.metadata.namespace_),
      Json(api::Object(fresh)));
  if (!r.ok()) return r.status();
  metrics_.ApiRequest("create", "resourceclaims", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) return ApiError(*r, "create claim " + sched::ObjectKey(claim.metadata));
  StatusOr<api::Object> created = DecodeBody(r->body);
  if (!created.ok()) return created.status();
  assumed->push_back(std::move(*created));
  return OkStatus();
}

void Server::DeleteCreatedClaim(const api::ResourceClaim& claim) {
  const std::string key = sched::ObjectKey(claim.metadata);
  const std::string path = ClaimPath(claim.metadata.namespace_, claim.metadata.name);
  auto request = [&](const char* method, const char* verb, const std::string& body) -> StatusOr<Response> {
    Clock::time_point start = Clock::now();
    StatusOr<Response> r = client_->Do(method, path, body);
    if (r.ok()) metrics_.ApiRequest(verb, "resourceclaims", r->code, Seconds(start));
    return r;
  };
  StatusOr<Response> got = request("GET", "get", "");
  if (!got.ok() || got->code != 200) {
    Log(fmt::format("deleting claim {}: {}", key, got.ok() ? ApiError(*got, "get").message() : got.status().message()));
    return;
  }
  StatusOr<api::Object> current = DecodeBody(got->body);
  if (!current.ok()) return Log(fmt::format("deleting claim {}: {}", key, current.status().message()));
  auto& cur = std::get<api::ResourceClaim>(*current);
  auto& finalizers = cur.metadata.finalizers;
  if (auto it = std::find(finalizers.begin(), finalizers.end(), sched::kDeleteProtectionFinalizer);
      it != finalizers.end()) {
    finalizers.erase(it);
    StatusOr<Response> put = request("PUT", "update", Json(api::Object(cur)));
    if (!put.ok() || put->code != 200) {
      Log(fmt::format("deleting claim {}: {}", key,
                      put.ok() ? ApiError(*put, "drop finalizer").message() : put.status().message()));
      return;
    }
  }
  StatusOr<Response> del = request("DELETE", "delete", "");
  if (!del.ok() || (del->code >= 300 && del->code != 404)) {
    Log(fmt::format("deleting claim {}: {}", key,
                    del.ok() ? ApiError(*del, "delete").message() : del.status().message()));
    return;
  }
  // The DELETED event takes it out of the cache.
  Log(fmt::format("deleted claim {} (created for this attempt)", key));
}

Status Server::RecordPodClaims(const api::Pod& pod, std::vector<api::Object>* assumed) {
  const std::string body = RequestJson(PodClaimStatusPatch(pod));
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do("PATCH", PodPath(pod) + "/status", body, "application/strategic-merge-patch+json");
  if (!r.ok()) return r.status();
  metrics_.ApiRequest("patch", "pods/status", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) return ApiError(*r, "record claims in pod status");
  StatusOr<api::Object> updated = DecodeBody(r->body);
  if (!updated.ok()) return updated.status();
  assumed->push_back(std::move(*updated));
  return OkStatus();
}

StatusOr<api::ResourceClaim> Server::WriteClaim(const PodWrite::Claim& claim, const api::Pod& pod,
                                                std::vector<api::Object>* assumed) {
  const api::ResourceClaim& planned = claim.planned;
  const bool allocate = claim.allocate;
  const std::string path = ClaimPath(planned.metadata.namespace_, planned.metadata.name);
  api::ResourceClaim cur = claim.cached.value_or(api::ResourceClaim{});
  for (int attempt = 0; attempt < kMaxWriteAttempts; ++attempt) {
    if (attempt > 0 || cur.metadata.uid.empty()) {
      Clock::time_point start = Clock::now();
      StatusOr<Response> r = client_->Do("GET", path);
      if (!r.ok()) return r.status();
      metrics_.ApiRequest("get", "resourceclaims", r->code, Seconds(start));
      if (r->code != 200) return ApiError(*r, "get claim");
      StatusOr<api::Object> o = DecodeBody(r->body);
      if (!o.ok()) return o.status();
      cur = std::get<api::ResourceClaim>(*o);
    }
    if (!cur.metadata.deletion_timestamp.empty()) return FailedPreconditionError("the claim is being deleted");
    if (ReservedFor(cur, pod)) return cur;  // an earlier write landed
    if (allocate && cur.status.allocation) {
      return Status(StatusCode::kAborted, "allocated elsewhere in the meantime");
    }
    if (!allocate && !cur.status.allocation) {
      return FailedPreconditionError("not allocated any more");
    }
    if (allocate && !HasFinalizer(cur)) {
      api::ResourceClaim with = cur;
      with.metadata.finalizers.push_back(sched::kDeleteProtectionFinalizer);
      Clock::time_point start = Clock::now();
      StatusOr<Response> r = client_->Do("PUT", path, Json(api::Object(with)));
      if (!r.ok()) return r.status();
      metrics_.ApiRequest("update", "resourceclaims", r->code, Seconds(start));
      if (r->code == 409) {
        metrics_.Conflict();
        continue;
      }
      if (r->code < 200 || r->code >= 300) return ApiError(*r, "add the finalizer");
      StatusOr<api::Object> o = DecodeBody(r->body);
      if (!o.ok()) return o.status();
      cur = std::get<api::ResourceClaim>(*o);
      assumed->push_back(std::move(*o));
    }
    api::ResourceClaim next = cur;
    if (allocate) {
      next.status.allocation = planned.status.allocation;
      // Binding conditions time out from here (upstream sets it whenever
      // the feature is on).
      if (BindingConditionsEnabled() && next.status.allocation->allocation_timestamp.empty()) {
        next.status.allocation->allocation_timestamp = NowRfc3339(false);
      }
    }
    // The pod, or for a PodGroup's claim the group, as the round planned it.
    api::ResourceClaimConsumerReference consumer{
        .api_group = "", .resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid};
    for (const api::ResourceClaimConsumerReference& r : planned.status.reserved_for) {
      if (r.api_group == "scheduling.k8s.io" && r.resource == "podgroups") consumer = r;
    }
    if (std::none_of(next.status.reserved_for.begin(), next.status.reserved_for.end(),
                     [&](const auto& r) { return r.uid == consumer.uid; })) {
      next.status.reserved_for.push_back(std::move(consumer));
    }
    Clock::time_point start = Clock::now();
    StatusOr<Response> r = client_->Do("PUT", path + "/status", Json(api::Object(next)));
    if (!r.ok()) return r.status();
    metrics_.ApiRequest("update", "resourceclaims/status", r->code, Seconds(start));
    if (r->code == 409) {
      metrics_.Conflict();
      continue;
    }
    if (r->code < 200 || r->code >= 300) return ApiError(*r, allocate ? "write the allocation" : "reserve");
    StatusOr<api::Object> o = DecodeBody(r->body);
    if (!o.ok()) return o.status();
    api::ResourceClaim written = std::get<api::ResourceClaim>(*o);
    assumed->push_back(std::move(*o));
    return written;
  }
  return Status(StatusCode::kAborted, fmt::format("still conflicting after {} attempts", kMaxWriteAttempts));
}

// kube-scheduler's PodGroupInitiallyScheduled condition (updatePodGroupCondition):
// written when it changes; a conflict or error is logged and the next round
// writes it again.
void Server::UpdatePodGroupCondition(const sched::GroupOutcome& outcome) {
  const api::Object* cached = cache_.Find(api::Kind::kPodGroup, outcome.group);
  if (cached == nullptr) return;
  api::PodGroup next = std::get<api::PodGroup>(*cached);
  if (!sched::SetInitiallyScheduled(outcome, NowRfc3339(false), &next)) return;
  const std::string path = fmt::format("/apis/scheduling.k8s.io/v1beta1/namespaces/{}/podgroups/{}/status",
                                       next.metadata.namespace_, next.metadata.name);
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do("PUT", path, Json(api::Object(next)));
  if (!r.ok()) {
    Log(fmt::format("pod group {}: condition: {}", outcome.group, r.status().message()));
    return;
  }
  metrics_.ApiRequest("update", "podgroups/status", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) {
    Log(fmt::format("pod group {}: condition: {}", outcome.group, ApiError(*r, "update").message()));
    return;
  }
  Log(fmt::format("pod group {}: {} {}", outcome.group, api::kPodGroupInitiallyScheduled,
                  outcome.kind == sched::PodOutcome::Kind::kPlaced ? "True" : "False: " + outcome.message));
  if (StatusOr<api::Object> o = DecodeBody(r->body); o.ok()) cache_.Assume(std::move(*o));
}

void Server::ManagePodGroupClaims() {
  if (!options_.gates.enabled(api::Gate::kDRAWorkloadResourceClaims)) return;
  // Our pods (not being deleted) by their PodGroup, "ns/group" -> pod keys.
  std::map<std::string, std::vector<std::string>> members;
  for (const api::Object* o : cache_.Objects([&](const api::Pod& p) {
         return p.spec.scheduler_name == options_.scheduler_name && p.metadata.deletion_timestamp.empty();
       })) {
    const auto* p = std::get_if<api::Pod>(o);
    if (p == nullptr) continue;
    if (std::optional<std::string> group = sched::PodGroupName(*p); group && !group->empty()) {
      members[p->metadata.namespace_ + "/" + *group].push_back(sched::ObjectKey(p->metadata));
    }
  }
  const Clock::time_point now = Clock::now();
  std::set<std::string> backing_off;
  for (const auto& [group_key, pod_keys] : members) {
    const api::Object* o = cache_.Find(api::Kind::kPodGroup, group_key);
    if (o == nullptr || std::get<api::PodGroup>(*o).spec.resource_claims.empty()) continue;
    auto backoff = podgroup_claims_backoff_.find(group_key);
    if (backoff != podgroup_claims_backoff_.end() && now < backoff->second.next) {
      backing_off.insert(group_key);
      continue;
    }
    const api::PodGroup group = std::get<api::PodGroup>(*o);  // the writes below replace the cached one
    if (Status st = EnsurePodGroupClaims(group, pod_keys); !st.ok()) {
      const std::chrono::seconds delay =
          backoff == podgroup_claims_backoff_.end()
              ? std::chrono::seconds(1)
              : std::min<std::chrono::seconds>(backoff->second.delay * 2, std::chrono::seconds(60));
      podgroup_claims_backoff_[group_key] = Backoff{.next = Clock::now() + delay, .delay = delay};
      backing_off.insert(group_key);
      Log(fmt::format("pod group {}: {}; trying again in {} s", group_key, st.message(), delay.count()));
    }
  }
  // Groups that succeeded, or have no pods of ours any more, are forgotten.
  std::erase_if(podgroup_claims_backoff_, [&](const auto& b) { return backing_off.count(b.first) == 0; });
}

Status Server::EnsurePodGroupClaims(const api::PodGroup& group, const std::vector<std::string>& member_keys) {
  const std::string group_key = sched::ObjectKey(group.metadata);
  PodGroupClaimsPlan plan = PlanPodGroupClaims(group, cache_, IndexClaimsByController(cache_));
  if (!plan.error.empty()) return FailedPreconditionError(plan.error);
  // Upstream's order: the claims, then the group's status, then the members'.
  std::vector<api::Object> assumed;
  Status st = OkStatus();
  for (const api::ResourceClaim& c : plan.create) {
    if (st = CreateClaim(c, &assumed); !st.ok()) break;
    Log(fmt::format("pod group {}: created claim {}", group_key, sched::ObjectKey(c.metadata)));
  }
  if (st.ok() && !plan.record.empty()) {
    const std::string path = fmt::format("/apis/scheduling.k8s.io/v1beta1/namespaces/{}/podgroups/{}/status",
                                         group.metadata.namespace_, group.metadata.name);
    Clock::time_point start = Clock::now();
    StatusOr<Response> r =
        client_->Do("PATCH", path, RequestJson(PodGroupClaimStatusPatch(group.metadata.uid, plan.record)),
                    "application/strategic-merge-patch+json");
    if (!r.ok()) {
      st = r.status();
    } else {
      metrics_.ApiRequest("patch", "podgroups/status", r->code, Seconds(start));
      if (r->code < 200 || r->code >= 300) {
        st = ApiError(*r, "record claims in pod group status");
      } else if (StatusOr<api::Object> o = DecodeBody(r->body); o.ok()) {
        assumed.push_back(std::move(*o));
      }
    }
    if (st.ok()) {
      std::string recorded;
      for (const api::PodGroupResourceClaimStatus& e : plan.record) {
        recorded += fmt::format("{}{}={}", recorded.empty() ? "" : ", ", e.name, e.resource_claim_name.value_or(""));
      }
      Log(fmt::format("pod group {}: recorded claims {}", group_key, recorded));
    }
  }
  for (api::Object& a : assumed) cache_.Assume(std::move(a));
  if (!st.ok()) return st;
  // The members: once the group's claims exist (upstream's syncPod finds
  // them by owner and annotation, whether or not the group recorded them).
  const api::Object* current = cache_.Find(api::Kind::kPodGroup, group_key);
  const api::PodGroup& g = current != nullptr ? std::get<api::PodGroup>(*current) : group;
  const ClaimsByController controlled = IndexClaimsByController(cache_);
  for (const std::string& key : member_keys) {
    const api::Object* o = cache_.Find(api::Kind::kPod, key);
    if (o == nullptr) continue;
    const api::Pod& pod = std::get<api::Pod>(*o);
    std::optional<std::vector<api::PodResourceClaimStatus>> statuses =
        PlanMemberClaimStatuses(pod, g, cache_, controlled);
    if (!statuses) continue;
    api::Pod record;
    record.metadata = pod.metadata;
    record.status.resource_claim_statuses = std::move(*statuses);
    std::vector<api::Object> pod_assumed;
    if (st = RecordPodClaims(record, &pod_assumed); !st.ok())
      return Status(st.code(), fmt::format("pod {}: {}", key, st.message()));
    for (api::Object& a : pod_assumed) cache_.Assume(std::move(a));
  }
  return OkStatus();
}

bool Server::WaitingForGroupClaims(const api::Pod& pod) const {
  if (!options_.gates.enabled(api::Gate::kDRAWorkloadResourceClaims)) return false;
  std::optional<std::string> name = sched::PodGroupName(pod);
  if (!name) return false;
  const api::Object* o = cache_.Find(api::Kind::kPodGroup, pod.metadata.namespace_ + "/" + *name);
  return o != nullptr && WaitingForPodGroupClaims(pod, std::get<api::PodGroup>(*o));
}

bool Server::PodGroupClaimRetryDue() const {
  const Clock::time_point now = Clock::now();
  return std::any_of(podgroup_claims_backoff_.begin(), podgroup_claims_backoff_.end(),
                     [&](const auto& b) { return b.second.next <= now; });
}

void Server::Unreserve(const PodWrite::Claim& claim, const std::string& uid, const api::Pod& pod,
                       std::vector<api::Object>* assumed) {
  const std::string body = RequestJson(UnreservePatch(uid, pod.metadata.uid));
  std::string path = ClaimPath(claim.planned.metadata.namespace_, claim.planned.metadata.name) + "/status";
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do("PATCH", path, body, "application/strategic-merge-patch+json");
  if (!r.ok()) {
    Log(fmt::format("unreserve {}: {}", claim.key, r.status().message()));
    return;
  }
  metrics_.ApiRequest("patch", "resourceclaims/status", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) {
    Log(fmt::format("unreserve {}: {}", claim.key, ApiError(*r, "patch").message()));
    return;
  }
  if (StatusOr<api::Object> o = DecodeBody(r->body); o.ok()) assumed->push_back(std::move(*o));
}

Status Server::Bind(const api::Pod& pod, const std::string& node) {
  const std::string body = RequestJson(BindingBody(pod, node));
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do("POST", PodPath(pod) + "/binding", body);
  if (!r.ok()) return r.status();
  metrics_.ApiRequest("create", "pods/binding", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) return ApiError(*r, "bind");
  return OkStatus();
}

void Server::ReportUnschedulable(const api::Pod& pod, const std::string& message, bool error,
                                 std::vector<api::Object>* assumed) {
  auto [status, old_message] = PodScheduledCondition(pod);
  if (status != "False" || old_message != message) {
    // A strategic merge patch; conditions merge by type. The transition time
    // changes only when the status does.
    const std::string transition = status == "False" ? "" : NowRfc3339(false);
    const std::string body =
        RequestJson(PodScheduledPatch(error ? "SchedulerError" : "Unschedulable", message, transition));
    Clock::time_point start = Clock::now();
    StatusOr<Response> r =
        client_->Do("PATCH", PodPath(pod) + "/status", body, "application/strategic-merge-patch+json");
    if (!r.ok()) {
      Log(fmt::format("pod {}: PodScheduled condition: {}", sched::ObjectKey(pod.metadata), r.status().message()));
    } else {
      metrics_.ApiRequest("patch", "pods/status", r->code, Seconds(start));
      if (r->code >= 200 && r->code < 300) {
        if (StatusOr<api::Object> o = DecodeBody(r->body); o.ok()) assumed->push_back(std::move(*o));
      } else {
        Log(fmt::format("pod {}: {}", sched::ObjectKey(pod.metadata),
                        ApiError(*r, "PodScheduled condition").message()));
      }
    }
  }
  PostEvent(pod, "Warning", "FailedScheduling", "Scheduling", message);
  Log(fmt::format("pod {}: {}", sched::ObjectKey(pod.metadata), message));
}

bool Server::BindingConditionsEnabled() const {
  return alloc::Features::FromGates(options_.gates).device_binding_and_status;
}

void Server::CheckBindingWaits() {
  const auto now = std::chrono::system_clock::now();
  for (auto it = binding_waits_.begin(); it != binding_waits_.end();) {
    const std::string& pod_key = it->first;
    BindingWait& wait = it->second;
    const api::Object* cached_pod = cache_.Find(api::Kind::kPod, pod_key);
    if (cached_pod == nullptr || std::get<api::Pod>(*cached_pod).metadata.uid != wait.pod.metadata.uid ||
        !std::get<api::Pod>(*cached_pod).spec.node_name.empty()) {
      it = binding_waits_.erase(it);  // gone, replaced or bound by someone else
      continue;
    }
    // Upstream's isPodReadyForBinding: per result with binding conditions,
    // its device's status entry; a failure condition True fails at once.
    bool ready = true;
    std::string failure;
    // Claims with binding conditions: on failure they are taken back whoever
    // allocated them (upstream's next Filter marks them for reallocation).
    std::vector<std::string> to_deallocate = wait.allocated;
    for (const std::string& key : wait.claims) {
      const api::Object* o = cache_.Find(api::Kind::kResourceClaim, key);
      const auto* claim = o != nullptr ? std::get_if<api::ResourceClaim>(o) : nullptr;
      if (claim == nullptr || !claim->status.allocation || !ReservedFor(*claim, wait.pod)) {
        failure = fmt::format("claim {} is not allocated and reserved for the pod any more", key);
        break;
      }
      bool claim_ready = true;
      for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
        if (r.binding_conditions.empty()) continue;
        if (std::find(to_deallocate.begin(), to_deallocate.end(), key) == to_deallocate.end()) {
          to_deallocate.push_back(key);
        }
        const api::AllocatedDeviceStatus* status = nullptr;
        for (const api::AllocatedDeviceStatus& d : claim->status.devices) {
          if (d.driver == r.driver && d.pool == r.pool && d.device == r.device) status = &d;
        }
        if (status == nullptr) {
          claim_ready = false;
          continue;
        }
        auto is_true = [&](const std::string& type) -> const api::Condition* {
          for (const api::Condition& c : status->conditions) {
            if (c.type == type && c.status == api::ConditionStatus::kTrue) return &c;
          }
          return nullptr;
        };
        for (const std::string& f : r.binding_failure_conditions) {
          if (const api::Condition* c = is_true(f); c != nullptr && failure.empty()) {
            failure =
                fmt::format("claim {} binding failed: reason={}, message={}", key, c->reason, JsonString(c->message));
          }
        }
        for (const std::string& b : r.binding_conditions) claim_ready &= is_true(b) != nullptr;
      }
      if (!failure.empty()) break;
      ready &= claim_ready;
      // Each claim times out on its own, from its allocationTimestamp.
      if (!claim_ready) {
        std::optional<int64_t> allocated_at = sched::ParseUtcSeconds(claim->status.allocation->allocation_timestamp);
        const auto since_epoch = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
        if (allocated_at && since_epoch >= *allocated_at + options_.binding_timeout.count()) {
          failure = fmt::format("claim {} binding timeout", key);
          break;
        }
      }
    }
    // The wait itself has a limit too (upstream's poll), for a claim without
    // a timestamp.
    if (failure.empty() && !ready && now >= wait.deadline) failure = "device binding timeout";
    if (failure.empty() && !ready) {
      ++it;
      continue;
    }
    std::vector<api::Object> assumed;
    if (failure.empty()) {
      if (Status st = Bind(wait.pod, wait.node); !st.ok()) {
        failure = fmt::format("binding to {}: {}", wait.node, st.message());
      } else {
        api::Pod bound = std::get<api::Pod>(*cached_pod);
        bound.spec.node_name = wait.node;
        assumed.emplace_back(std::move(bound));
        PostEvent(wait.pod, "Normal", "Scheduled", "Binding",
                  fmt::format("Successfully assigned {} to {}", pod_key, wait.node));
        Log(fmt::format("bound {} to {} (binding conditions met){}{}", pod_key, wait.node,
                        wait.devices.empty() ? "" : ": ", wait.devices));
        metrics_.Attempt("scheduled", Seconds(wait.start));
        auto seen = first_seen_.find(pod_key);
        metrics_.PodScheduled(++attempts_[pod_key], Seconds(seen != first_seen_.end() ? seen->second : wait.start));
        attempts_.erase(pod_key);
        first_seen_.erase(pod_key);
        reported_.erase(pod_key);
      }
    }
    if (!failure.empty()) {
      // The next attempt starts from free devices: what this attempt
      // allocated is taken back, as upstream's next Filter does.
      for (const std::string& key : to_deallocate) Deallocate(key, wait.pod, &assumed);
      ++attempts_[pod_key];
      metrics_.Attempt("error", Seconds(wait.start));
      std::string message = fmt::format("running PreBind plugin \"{}\": {}", sched::kDynamicResourcesPlugin, failure);
      ReportUnschedulable(std::get<api::Pod>(*cached_pod), message, /*error=*/true, &assumed);
      reported_[pod_key] = message;
    }
    for (api::Object& a : assumed) cache_.Assume(std::move(a));
    it = binding_waits_.erase(it);
  }
}

void Server::Deallocate(const std::string& claim_key, const api::Pod& pod, std::vector<api::Object>* assumed) {
  const size_t slash = claim_key.find('/');
  const std::string path = ClaimPath(claim_key.substr(0, slash), claim_key.substr(slash + 1));
  for (int attempt = 0; attempt < kMaxWriteAttempts; ++attempt) {
    Clock::time_point start = Clock::now();
    StatusOr<Response> got = client_->Do("GET", path);
    if (!got.ok()) return Log(fmt::format("deallocating claim {}: {}", claim_key, got.status().message()));
    metrics_.ApiRequest("get", "resourceclaims", got->code, Seconds(start));
    if (got->code != 200) {
      return Log(fmt::format("deallocating claim {}: {}", claim_key, ApiError(*got, "get").message()));
    }
    StatusOr<api::Object> o = DecodeBody(got->body);
    if (!o.ok()) return Log(fmt::format("deallocating claim {}: {}", claim_key, o.status().message()));
    api::ResourceClaim claim = std::get<api::ResourceClaim>(*o);
    auto& reserved = claim.status.reserved_for;
    const bool was_reserved = std::erase_if(reserved, [&](const api::ResourceClaimConsumerReference& r) {
                                return r.uid == pod.metadata.uid;
                              }) > 0;
    // Reserved for others too: only the pod's reservation goes (as upstream's
    // Unreserve); the last one to give the claim up takes the allocation back.
    const bool shared = !reserved.empty();
    if (shared && !was_reserved) return Log(fmt::format("claim {}: reserved for others; allocation kept", claim_key));
    if (!shared) {
      claim.status.allocation.reset();
      claim.status.devices.clear();
    }
    start = Clock::now();
    StatusOr<Response> put = client_->Do("PUT", path + "/status", Json(api::Object(claim)));
    if (!put.ok()) return Log(fmt::format("deallocating claim {}: {}", claim_key, put.status().message()));
    metrics_.ApiRequest("update", "resourceclaims/status", put->code, Seconds(start));
    if (put->code == 409) {
      metrics_.Conflict();
      continue;
    }
    if (put->code < 200 || put->code >= 300) {
      return Log(fmt::format("deallocating claim {}: {}", claim_key, ApiError(*put, "update").message()));
    }
    if (StatusOr<api::Object> written = DecodeBody(put->body); written.ok()) assumed->push_back(std::move(*written));
    if (shared) {
      return Log(fmt::format("claim {}: pod {} no longer reserves it; reserved for others, allocation kept", claim_key,
                             sched::ObjectKey(pod.metadata)));
    }
    return Log(fmt::format("deallocated claim {} (binding failed)", claim_key));
  }
  Log(fmt::format("deallocating claim {}: still conflicting after {} attempts", claim_key, kMaxWriteAttempts));
}

void Server::PostEvent(const api::Pod& pod, std::string_view type, std::string_view reason, std::string_view action,
                       std::string_view note) {
  std::string text(note);
  if (text.size() > kMaxEventNote) text = text.substr(0, kMaxEventNote - 4) + " ...";
  const auto now = std::chrono::system_clock::now();
  const EventSeries::Key key{.type = std::string(type),
                             .reason = std::string(reason),
                             .action = std::string(action),
                             .regarding_namespace = pod.metadata.namespace_,
                             .regarding_name = pod.metadata.name,
                             .regarding_uid = pod.metadata.uid};
  const std::string name = fmt::format("{}.{:x}", pod.metadata.name, now.time_since_epoch().count());
  auto [write, event] = events_.Record(key, name, text, now);
  switch (write) {
    case EventSeries::Write::kCreate: WriteEvent(event, /*series=*/false); break;
    case EventSeries::Write::kPatch: WriteEvent(event, /*series=*/true); break;
    case EventSeries::Write::kNone: break;
  }
}

void Server::WriteEvent(const EventSeries::Event& e, bool series) {
  const std::string last_observed = Rfc3339(e.last_observed, true);
  const std::string events = fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events", e.key.regarding_namespace);
  if (series) {
    // A series adds itself to the Event (client-go's strategic-merge patch
    // of the Event without and with it); a gone Event is created again.
    Clock::time_point start = Clock::now();
    StatusOr<Response> r =
        client_->Do("PATCH", events + "/" + e.name, RequestJson(EventSeriesPatch(e.count, last_observed)),
                    "application/strategic-merge-patch+json");
    if (!r.ok()) {
      Log(fmt::format("event {} for {}/{}: {}", e.name, e.key.regarding_namespace, e.key.regarding_name,
                      r.status().message()));
      return;
    }
    metrics_.ApiRequest("patch", "events", r->code, Seconds(start));
    if (r->code >= 200 && r->code < 300) return;
    if (r->code != 404) {
      Log(fmt::format("event {} for {}/{}: {}", e.name, e.key.regarding_namespace, e.key.regarding_name,
                      ApiError(*r, "patch").message()));
      return;
    }
  }
  const std::string event_time = Rfc3339(e.event_time, true);
  const std::string body =
      RequestJson(EventBody({.name = e.name,
                             .namespace_ = e.key.regarding_namespace,
                             .event_time = event_time,
                             .reporting_controller = options_.scheduler_name,
                             .reporting_instance = options_.instance,
                             .action = e.key.action,
                             .reason = e.key.reason,
                             .type = e.key.type,
                             .note = e.note,
                             .pod_name = e.key.regarding_name,
                             .pod_uid = e.key.regarding_uid},
                            series ? EventSeriesNode(e.count, last_observed) : manifest::Node::Null()));
  Clock::time_point start = Clock::now();
  StatusOr<Response> r = client_->Do("POST", events, body);
  if (!r.ok()) {
    Log(fmt::format("event for {}/{}: {}", e.key.regarding_namespace, e.key.regarding_name, r.status().message()));
    return;
  }
  metrics_.ApiRequest("create", "events", r->code, Seconds(start));
  if (r->code < 200 || r->code >= 300) {
    Log(fmt::format("event for {}/{}: {}", e.key.regarding_namespace, e.key.regarding_name,
                    ApiError(*r, "create").message()));
  }
}

void Server::MaintainEvents() {
  const auto now = std::chrono::system_clock::now();
  if (now - last_events_finish_ >= std::chrono::minutes(1)) {
    last_events_finish_ = now;
    for (const EventSeries::Event& e : events_.Finish(now)) WriteEvent(e, /*series=*/true);
  }
  if (now - last_events_refresh_ >= EventSeries::kRefreshEvery) {
    last_events_refresh_ = now;
    for (const EventSeries::Event& e : events_.Ongoing()) WriteEvent(e, /*series=*/true);
  }
}

}  // namespace dra::kube
