#include "plan/plan.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <queue>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "alloc/allocated_state.h"
#include "base/fnv.h"
#include "sched/explain.h"
#include "sched/resources.h"
#include "sched/scheduler.h"

namespace dra::plan {

std::optional<Expander> ParseExpander(std::string_view name) {
  for (Expander e : {Expander::kOptimal, Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods,
                     Expander::kRandom}) {
    if (ExpanderName(e) == name) return e;
  }
  return std::nullopt;
}

std::string_view ExpanderName(Expander expander) {
  switch (expander) {
    case Expander::kOptimal: return "optimal";
    case Expander::kLeastWaste: return "least-waste";
    case Expander::kPrice: return "price";
    case Expander::kMostPods: return "most-pods";
    case Expander::kRandom: return "random";
  }
  return "";
}

namespace {

using Counts = std::vector<int64_t>;

// The scheduler's options for every run a plan makes.
sched::ScheduleOptions ScheduleOptionsFor(const PlanOptions& options) {
  return {.policy = options.policy,
          .seed = options.seed,
          .max_steps = options.max_steps,
          .device_choice = options.device_choice};
}

// Every group at its maxSize.
Counts AllAtMax(std::span<const NodeGroup> groups) {
  Counts all(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) all[g] = groups[g].max_size;
  return all;
}

// One scheduler run of the cluster with `counts` nodes added per group.
struct Evaluation {
  size_t placed = 0;
  double cost = 0;
  std::vector<Placement> placements{};
  std::vector<Unschedulable> unplaced{};
  // Per node the pods went to: requested cpu (millicores) and memory.
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> requested{};
};

class Planner {
 public:
  // `cluster` has been scheduled (what fits is bound): its pending pods fit
  // none of its nodes, and no candidate plan places one there (plans only add
  // capacity elsewhere; the scheduler has no inter-pod affinity or spreading
  // that a pod on a new node could satisfy). So candidate plans are scheduled
  // on `pending_`: the pending pods, the claims, and the slices of no node of
  // the cluster (network-attached devices they may share) with only the new
  // nodes; the plan chosen is scheduled on the whole cluster at the end.
  Planner(const sched::Snapshot& cluster, std::span<const NodeGroup> groups, const PlanOptions& options)
      : cluster_(cluster), groups_(groups), options_(options) {
    pending_.gates = cluster.gates;
    pending_.templates = cluster.templates;
    pending_.classes = cluster.classes;
    pending_.rules = cluster.rules;
    std::set<std::string, std::less<>> uids, claim_keys;  // of the pending pods and the claims they name
    for (const api::Pod& p : cluster.pods) {
      if (!p.spec.node_name.empty()) continue;
      pending_.pods.push_back(p);
      uids.insert(p.metadata.uid);
      for (const api::PodResourceClaim& c : p.spec.resource_claims) {
        if (c.resource_claim_name) claim_keys.insert(p.metadata.namespace_ + "/" + *c.resource_claim_name);
      }
    }
    std::set<std::pair<std::string, std::string>> pools;  // (driver, pool) of the slices of no node
    for (const api::ResourceSlice& sl : cluster.slices) {
      if (sl.spec.node_name) continue;
      pending_.slices.push_back(sl);
      pools.emplace(sl.spec.driver, sl.spec.pool.name);
    }
    // The claims that matter there: the pending pods' own and named ones, and
    // those holding devices of those slices.
    for (const api::ResourceClaim& c : cluster.claims) {
      bool keep = claim_keys.contains(sched::ObjectKey(c.metadata)) ||
                  std::any_of(c.metadata.owner_references.begin(), c.metadata.owner_references.end(),
                              [&](const api::OwnerReference& o) { return uids.contains(o.uid); });
      if (!keep && c.status.allocation) {
        for (const api::DeviceRequestAllocationResult& r : c.status.allocation->devices.results) {
          keep = keep || pools.contains({r.driver, r.pool});
        }
      }
      if (keep) pending_.claims.push_back(c);
    }
  }

  // The instance index of group g's k-th new node.
  size_t Index(size_t g, int64_t k) const {
    return static_cast<size_t>((g < options_.first_index.size() ? options_.first_index[g] : 0) + k);
  }

  double Cost(const Counts& c) const {
    double cost = 0;
    for (size_t g = 0; g < c.size(); ++g) cost += static_cast<double>(c[g]) * groups_[g].price;
    return cost;
  }

  // The cluster (or with `full` false, its pending part) with `counts` nodes
  // of each group added; their names join `added`.
  sched::Snapshot WithNodes(const Counts& counts, std::set<std::string, std::less<>>* added, bool full = true) const {
    sched::Snapshot s = full ? cluster_ : pending_;
    for (size_t g = 0; g < counts.size(); ++g) {
      for (int64_t k = 0; k < counts[g]; ++k) {
        NodeInstance inst = Instantiate(groups_[g], Index(g, k));
        added->insert(inst.node.metadata.name);
        s.nodes.push_back(std::move(inst.node));
        for (api::ResourceSlice& slice : inst.slices) s.slices.push_back(std::move(slice));
      }
    }
    return s;
  }

  // One scheduler run with `counts` nodes added, on the pending part of the
  // cluster (or with `full`, all of it). Memoized: the same counts give the
  // same run.
  StatusOr<const Evaluation*> Eval(const Counts& counts, bool full = false) {
    std::map<Counts, Evaluation>& memo = full ? full_memo_ : memo_;
    if (auto it = memo.find(counts); it != memo.end()) return &it->second;
    std::set<std::string, std::less<>> added;
    sched::Snapshot s = WithNodes(counts, &added, full);
    StatusOr<sched::ScheduleResult> r = sched::Schedule(&s, ScheduleOptionsFor(options_));
    if (!r.ok()) return r.status();
    ++evaluations_;
    Evaluation e{.cost = Cost(counts)};
    std::map<std::string, const api::Pod*, std::less<>> pods;
    for (const api::Pod& p : s.pods) pods[sched::ObjectKey(p.metadata)] = &p;
    for (const sched::PodOutcome& o2 : r->pods) {
      if (o2.kind != sched::PodOutcome::Kind::kPlaced) {
        e.unplaced.push_back({o2.pod, o2.message});
        continue;
      }
      ++e.placed;
      e.placements.push_back({o2.pod, o2.node, added.contains(o2.node)});
      if (auto it = pods.find(o2.pod); it != pods.end()) {
        const sched::Resources req = sched::PodRequests(*it->second);
        auto& [cpu, memory] = e.requested[o2.node];
        cpu += req.milli_cpu;
        memory += req.memory;
      }
    }
    return &memo.emplace(counts, std::move(e)).first->second;
  }

  // The autoscaler's waste of the nodes group g gains from `before` to
  // `after`: per node (1 - cpu requested / allocatable) + (1 - memory
  // requested / allocatable), summed.
  double Waste(size_t g, const Counts& before, const Counts& after, const Evaluation& e) const {
    const sched::Resources alloc = sched::NodeAllocatable(groups_[g].node);
    double waste = 0;
    for (int64_t k = before[g]; k < after[g]; ++k) {
      const std::string name = NodeName(groups_[g], Index(g, k));
      std::pair<int64_t, int64_t> used{0, 0};
      if (auto it = e.requested.find(name); it != e.requested.end()) used = it->second;
      if (alloc.milli_cpu > 0) waste += 1 - static_cast<double>(used.first) / static_cast<double>(alloc.milli_cpu);
      if (alloc.memory > 0) waste += 1 - static_cast<double>(used.second) / static_cast<double>(alloc.memory);
    }
    return waste;
  }

  // The cluster autoscaler's loop with one expander: per loop, each group's
  // option (its nodes added one at a time while that places more pods), one
  // option chosen, until no option places more.
  StatusOr<Counts> Expand(Expander expander) {
    Counts counts(groups_.size(), 0);
    DRA_ASSIGN_OR_RETURN(const Evaluation* current, Eval(counts));
    for (uint64_t loop = 0;; ++loop) {
      struct Option {
        size_t group;
        Counts counts;
        const Evaluation* eval;
        double score;
      };
      std::vector<Option> options;
      for (size_t g = 0; g < groups_.size(); ++g) {
        // The group's option: the fewest of its nodes that place as many
        // pods as its maxSize does (a binary search; the pods placed grow
        // with the nodes).
        if (counts[g] >= groups_[g].max_size) continue;
        Counts c = counts;
        c[g] = groups_[g].max_size;
        DRA_ASSIGN_OR_RETURN(const Evaluation* best, Eval(c));
        if (best->placed <= current->placed) continue;
        int64_t low = counts[g] + 1, high = groups_[g].max_size;  // high places best->placed
        while (low < high) {
          const int64_t mid = low + (high - low) / 2;
          c[g] = mid;
          DRA_ASSIGN_OR_RETURN(const Evaluation* e, Eval(c));
          if (e->placed >= best->placed) {
            high = mid;
          } else {
            low = mid + 1;
          }
        }
        c[g] = high;
        DRA_ASSIGN_OR_RETURN(best, Eval(c));
        const double gain = static_cast<double>(best->placed - current->placed);
        const double nodes = static_cast<double>(c[g] - counts[g]);
        double score = 0;  // lower is better
        switch (expander) {
          case Expander::kMostPods: score = -gain; break;
          case Expander::kLeastWaste: score = Waste(g, counts, c, *best); break;
          case Expander::kPrice: score = nodes * groups_[g].price / gain; break;
          case Expander::kRandom:
            score = static_cast<double>(
                Fnv1a64(std::to_string(options_.seed) + "/" + std::to_string(loop) + "/" + groups_[g].name));
            break;
          case Expander::kOptimal: break;
        }
        options.push_back({g, std::move(c), best, score});
      }
      if (options.empty()) return counts;
      // Ties: more pods, then fewer nodes' price, then input order.
      const Option* chosen = &*std::min_element(options.begin(), options.end(), [&](const Option& a, const Option& b) {
        if (a.score != b.score) return a.score < b.score;
        if (a.eval->placed != b.eval->placed) return a.eval->placed > b.eval->placed;
        return a.eval->cost < b.eval->cost;
      });
      counts = chosen->counts;
      current = chosen->eval;
    }
  }

  // True if `a` is the better plan: more pods, then cheaper.
  static bool Better(const Evaluation& a, const Evaluation& b) {
    if (a.placed != b.placed) return a.placed > b.placed;
    return a.cost < b.cost - 1e-9;
  }

  // Local moves from `counts` while they keep the pods placed and lower the price.
  StatusOr<Counts> Improve(Counts counts, size_t target, std::chrono::steady_clock::time_point deadline) {
    for (bool improved = true; improved && std::chrono::steady_clock::now() < deadline;) {
      improved = false;
      DRA_ASSIGN_OR_RETURN(const Evaluation* base, Eval(counts));
      std::vector<Counts> moves;
      for (size_t a = 0; a < groups_.size(); ++a) {
        if (counts[a] == 0) continue;
        Counts drop = counts;
        --drop[a];
        moves.push_back(drop);
        for (size_t b = 0; b < groups_.size(); ++b) {
          if (b == a || counts[b] >= groups_[b].max_size) continue;
          Counts trade = drop;
          ++trade[b];
          moves.push_back(trade);
          if (trade[a] > 0) {
            --trade[a];
            moves.push_back(trade);
          }
        }
      }
      for (const Counts& m : moves) {
        if (Cost(m) >= base->cost - 1e-9) continue;
        DRA_ASSIGN_OR_RETURN(const Evaluation* e, Eval(m));
        if (e->placed >= target) {
          counts = m;
          improved = true;
          break;
        }
      }
    }
    return counts;
  }

  // Best-first over count vectors by price, from the empty plan: the first
  // one placing `target` pods is optimal. Stops below `incumbent_cost` or at
  // the deadline; returns the optimum found (or nullopt) and the lower bound.
  StatusOr<std::pair<std::optional<Counts>, double>> Search(size_t target, double incumbent_cost,
                                                            std::chrono::steady_clock::time_point deadline,
                                                            bool* stopped_early) {
    using Entry = std::pair<double, Counts>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    std::set<Counts> seen;
    Counts zero(groups_.size(), 0);
    queue.push({0, zero});
    seen.insert(zero);
    while (!queue.empty()) {
      auto [cost, counts] = queue.top();
      if (cost >= incumbent_cost - 1e-9) return std::pair{std::optional<Counts>(), incumbent_cost};
      if (std::chrono::steady_clock::now() >= deadline) {
        *stopped_early = true;
        return std::pair{std::optional<Counts>(), cost};
      }
      queue.pop();
      DRA_ASSIGN_OR_RETURN(const Evaluation* e, Eval(counts));
      if (e->placed >= target) return std::pair{std::optional<Counts>(counts), cost};
      for (size_t g = 0; g < groups_.size(); ++g) {
        if (counts[g] >= groups_[g].max_size) continue;
        Counts next = counts;
        ++next[g];
        if (seen.insert(next).second) queue.push({Cost(next), next});
      }
    }
    return std::pair{std::optional<Counts>(), incumbent_cost};
  }

  size_t evaluations() const { return evaluations_; }
  NodeInstance Instance(size_t g, int64_t k) const { return Instantiate(groups_[g], Index(g, k)); }

 private:
  const sched::Snapshot& cluster_;
  sched::Snapshot pending_{};
  std::span<const NodeGroup> groups_{};
  const PlanOptions& options_;
  std::map<Counts, Evaluation> memo_{};
  std::map<Counts, Evaluation> full_memo_{};
  size_t evaluations_ = 0;
};

}  // namespace

StatusOr<PlanResult> PlanScaleUp(const sched::Snapshot& cluster, std::span<const NodeGroup> groups,
                                 const PlanOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(options.max_seconds * 1000));
  // The cluster as the autoscaler finds it: kube-scheduler has bound what
  // fits (those placements stay); the pods still pending are the demand.
  sched::Snapshot bound = cluster;
  DRA_ASSIGN_OR_RETURN(sched::ScheduleResult as_is, sched::Schedule(&bound, ScheduleOptionsFor(options)));
  Planner planner(bound, groups, options);
  PlanResult result{.expander = options.expander};
  for (const sched::PodOutcome& o : as_is.pods) result.pending += o.kind == sched::PodOutcome::Kind::kPlaced ? 0 : 1;

  const Counts all = AllAtMax(groups);
  Counts chosen;
  if (options.expander != Expander::kOptimal) {
    DRA_ASSIGN_OR_RETURN(chosen, planner.Expand(options.expander));
  } else {
    // The incumbent: the expanders' best plan.
    DRA_ASSIGN_OR_RETURN(chosen, planner.Expand(Expander::kLeastWaste));
    for (Expander e : {Expander::kPrice, Expander::kMostPods, Expander::kRandom}) {
      DRA_ASSIGN_OR_RETURN(Counts c, planner.Expand(e));
      DRA_ASSIGN_OR_RETURN(const Evaluation* a, planner.Eval(c));
      DRA_ASSIGN_OR_RETURN(const Evaluation* b, planner.Eval(chosen));
      if (Planner::Better(*a, *b)) chosen = c;
    }
    // The target: as many pods as any plan places.
    DRA_ASSIGN_OR_RETURN(const Evaluation* full, planner.Eval(all));
    DRA_ASSIGN_OR_RETURN(const Evaluation* incumbent, planner.Eval(chosen));
    if (full->placed > incumbent->placed) chosen = all;
    DRA_ASSIGN_OR_RETURN(incumbent, planner.Eval(chosen));
    const size_t target = incumbent->placed;
    DRA_ASSIGN_OR_RETURN(chosen, planner.Improve(chosen, target, deadline));
    DRA_ASSIGN_OR_RETURN(incumbent, planner.Eval(chosen));
    DRA_ASSIGN_OR_RETURN(auto found, planner.Search(target, incumbent->cost, deadline, &result.stopped_early));
    if (found.first) chosen = *found.first;
    result.lower_bound = found.second;
  }
  DRA_ASSIGN_OR_RETURN(const Evaluation* best, planner.Eval(chosen, /*full=*/true));
  for (size_t g = 0; g < groups.size(); ++g) {
    if (chosen[g] == 0) continue;
    result.scale_up.push_back({groups[g].name, chosen[g], static_cast<double>(chosen[g]) * groups[g].price});
    for (int64_t k = 0; k < chosen[g]; ++k) result.added.push_back(planner.Instance(g, k));
  }
  result.cost = best->cost;
  if (options.expander == Expander::kOptimal && !result.stopped_early) result.lower_bound = result.cost;
  result.placements = best->placements;
  // Pods the plan leaves pending: with the scheduler's reason when every
  // group is at its maxSize (where it has one), else the plan's.
  std::set<std::string, std::less<>> placed;
  for (const Placement& p : best->placements) placed.insert(p.pod);
  if (!best->unplaced.empty()) {
    DRA_ASSIGN_OR_RETURN(const Evaluation* full, planner.Eval(all, /*full=*/true));
    for (const Unschedulable& u : full->unplaced) {
      if (placed.insert(u.pod).second) result.unschedulable.push_back(u);
    }
  }
  for (const Unschedulable& u : best->unplaced) {
    if (placed.insert(u.pod).second) result.unschedulable.push_back(u);
  }
  // Why: explain's analysis with every group at its maxSize.
  if (!result.unschedulable.empty()) {
    std::set<std::string, std::less<>> added;
    sched::Snapshot s = planner.WithNodes(all, &added);
    std::vector<std::string> pods;
    for (const Unschedulable& u : result.unschedulable) pods.push_back(u.pod);
    StatusOr<std::vector<sched::PodExplanation>> why =
        sched::Explain(&s, sched::ExplainOptions{.schedule = ScheduleOptionsFor(options)}, pods);
    if (why.ok()) {
      for (const sched::PodExplanation& e : *why) {
        for (Unschedulable& u : result.unschedulable) {
          if (u.pod != e.pod) continue;
          if (!e.never_fits.empty()) {
            u.detail = "it can never fit: " + e.never_fits;
          } else {
            for (const sched::CauseSummary& c : e.summary) {
              u.detail += (u.detail.empty() ? "" : "; ") + std::to_string(c.nodes) + " " + c.text;
            }
          }
        }
      }
    }
  }
  result.evaluations = planner.evaluations();
  return result;
}

namespace {

bool Running(const api::Pod& pod) {
  return !pod.spec.node_name.empty() &&
         !(pod.status.phase == api::PodPhase::kSucceeded || pod.status.phase == api::PodPhase::kFailed);
}

}  // namespace

// The cluster autoscaler's utilization of each node: the largest of cpu and
// memory requested over allocatable and the share of its devices allocated
// (each device once, admin access not counted). One pass over the cluster.
std::vector<double> NodeUtilizations(const sched::Snapshot& s) {
  const sched::NodeIndex index(s.nodes);
  std::vector<sched::Resources> requested(s.nodes.size());
  for (const api::Pod& pod : s.pods) {
    if (!Running(pod)) continue;
    if (std::optional<size_t> n = index.Find(pod.spec.node_name)) requested[*n].Add(sched::PodRequests(pod));
  }
  std::vector<size_t> devices(s.nodes.size(), 0);
  std::map<std::pair<std::string_view, std::string_view>, size_t> pool_node;  // (driver, pool) -> node
  for (const api::ResourceSlice& slice : s.slices) {
    if (!slice.spec.node_name) continue;
    std::optional<size_t> n = index.Find(*slice.spec.node_name);
    if (!n) continue;
    devices[*n] += slice.spec.devices.size();
    pool_node[{slice.spec.driver, slice.spec.pool.name}] = *n;
  }
  std::vector<std::set<std::string>> used(s.nodes.size());
  for (const api::ResourceClaim& c : s.claims) {
    if (!c.status.allocation) continue;
    for (const api::DeviceRequestAllocationResult& r : c.status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;
      auto it = pool_node.find({r.driver, r.pool});
      if (it != pool_node.end()) used[it->second].insert(alloc::DeviceIdString(r.driver, r.pool, r.device));
    }
  }
  std::vector<double> out(s.nodes.size(), 0);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const sched::Resources alloc = sched::NodeAllocatable(s.nodes[i]);
    double u = 0;
    if (alloc.milli_cpu > 0) u = std::max(u, static_cast<double>(requested[i].milli_cpu) / static_cast<double>(alloc.milli_cpu));
    if (alloc.memory > 0) u = std::max(u, static_cast<double>(requested[i].memory) / static_cast<double>(alloc.memory));
    if (devices[i] > 0) u = std::max(u, static_cast<double>(used[i].size()) / static_cast<double>(devices[i]));
    out[i] = u;
  }
  return out;
}

StatusOr<ScaleDownNode> SimulateDrain(sched::Snapshot* s, size_t node, double utilization,
                                      const PlanOptions& options) {
  const std::string name = s->nodes[node].metadata.name;
  ScaleDownNode entry{.node = name, .utilization = utilization};
  std::vector<size_t> moved;  // indices into s->pods
  std::set<std::string, std::less<>> moved_keys, moved_uids;
  for (size_t i = 0; i < s->pods.size(); ++i) {
    const api::Pod& pod = s->pods[i];
    if (pod.spec.node_name != name || !Running(pod)) continue;
    moved.push_back(i);
    moved_keys.insert(sched::ObjectKey(pod.metadata));
    moved_uids.insert(pod.metadata.uid);
  }
  if (moved.empty()) {
    entry.removable = true;
    return entry;
  }
  // What the drain changes, kept to be put back: the node, its slices (at
  // their places), its pods and every claim they reserve.
  const api::Node saved_node = s->nodes[node];
  std::vector<std::pair<size_t, api::ResourceSlice>> saved_slices;
  for (size_t i = 0; i < s->slices.size(); ++i) {
    if (s->slices[i].spec.node_name == name) saved_slices.emplace_back(i, std::move(s->slices[i]));
  }
  std::vector<api::Pod> saved_pods;
  for (size_t i : moved) saved_pods.push_back(s->pods[i]);
  std::vector<std::pair<size_t, api::ResourceClaim>> saved_claims;
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const auto& reserved = s->claims[i].status.reserved_for;
    if (std::any_of(reserved.begin(), reserved.end(),
                    [&](const api::ResourceClaimConsumerReference& r) { return moved_uids.contains(r.uid); })) {
      saved_claims.emplace_back(i, s->claims[i]);
    }
  }
  const size_t claims_before = s->claims.size();

  // The drain: the node and its slices go; its pods are pending again and
  // the claims only they reserve are deallocated.
  s->nodes.erase(s->nodes.begin() + static_cast<std::ptrdiff_t>(node));
  std::erase_if(s->slices, [&](const api::ResourceSlice& sl) { return sl.spec.node_name == name; });
  for (size_t i : moved) s->pods[i].spec.node_name.clear();
  for (const auto& [i, claim] : saved_claims) {
    api::ResourceClaim& c = s->claims[i];
    const bool only_moved = std::all_of(c.status.reserved_for.begin(), c.status.reserved_for.end(),
                                        [&](const api::ResourceClaimConsumerReference& r) {
                                          return moved_uids.contains(r.uid);
                                        });
    if (only_moved) {
      c.status.allocation.reset();
      c.status.reserved_for.clear();
    }
  }
  StatusOr<sched::ScheduleResult> r = sched::Schedule(s, ScheduleOptionsFor(options));

  // Put back what was there.
  for (size_t k = 0; k < moved.size(); ++k) s->pods[moved[k]] = std::move(saved_pods[k]);
  for (auto& [i, claim] : saved_claims) s->claims[i] = std::move(claim);
  s->nodes.insert(s->nodes.begin() + static_cast<std::ptrdiff_t>(node), saved_node);
  for (auto& [i, slice] : saved_slices) s->slices.insert(s->slices.begin() + static_cast<std::ptrdiff_t>(i), std::move(slice));
  if (!r.ok()) return r.status();
  if (s->claims.size() != claims_before) {
    return InternalError(fmt::format("draining {}: the scheduler made claims", name));
  }
  for (const sched::PodOutcome& o : r->pods) {
    if (!moved_keys.contains(o.pod)) continue;
    if (o.kind == sched::PodOutcome::Kind::kPlaced) {
      entry.moves.push_back({o.pod, o.node, false});
    } else {
      entry.blockers.push_back({o.pod, o.message});
    }
  }
  entry.removable = entry.blockers.empty();
  return entry;
}

sched::Snapshot WithoutPendingPods(sched::Snapshot s) {
  std::erase_if(s.pods, [](const api::Pod& pod) { return pod.spec.node_name.empty(); });
  return s;
}

StatusOr<std::vector<ScaleDownNode>> PlanScaleDown(const sched::Snapshot& cluster, const PlanOptions& options,
                                                   double utilization_threshold) {
  sched::Snapshot bound = cluster;  // what fits is bound first, as for scale-up
  DRA_RETURN_IF_ERROR(sched::Schedule(&bound, ScheduleOptionsFor(options)).status());
  bound = WithoutPendingPods(std::move(bound));
  const std::vector<double> utilization = NodeUtilizations(bound);
  std::vector<ScaleDownNode> out;
  for (size_t i = 0; i < bound.nodes.size(); ++i) {
    if (utilization[i] >= utilization_threshold) continue;
    DRA_ASSIGN_OR_RETURN(ScaleDownNode entry, SimulateDrain(&bound, i, utilization[i], options));
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(), [](const ScaleDownNode& a, const ScaleDownNode& b) {
    return a.utilization != b.utilization ? a.utilization < b.utilization : a.node < b.node;
  });
  return out;
}

}  // namespace dra::plan
