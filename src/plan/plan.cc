#include "plan/plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "alloc/allocated_state.h"
#include "base/fnv.h"
#include "plan/class_model.h"
#include "plan/lp.h"
#include "sched/explain.h"
#include "sched/resources.h"
#include "sched/scheduler.h"

namespace dra::plan {

std::optional<Expander> ParseExpander(std::string_view name) {
  for (Expander e :
       {Expander::kOptimal, Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods, Expander::kRandom}) {
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

// The scheduler's options for every run a plan makes; with `texts` false, a
// pod placed nowhere gets no reasons (runs that only count the pods placed).
sched::ScheduleOptions ScheduleOptionsFor(const PlanOptions& options, bool texts = true) {
  return {.policy = options.policy,
          .seed = options.seed,
          .max_steps = options.max_steps,
          .device_choice = options.device_choice,
          .unschedulable_texts = texts,
          .gang = options.gang};
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
  // With `full`, `texts` false leaves the pods placed nowhere without the
  // scheduler's reasons (a run that only counts them; reasons of a pending
  // pod on thousands of nodes cost more than the run); such a run stands
  // for one with texts where every pod was placed.
  StatusOr<const Evaluation*> Eval(const Counts& counts, bool full = false, bool texts = true) {
    texts = texts && full;
    if (const Evaluation* known = Known(counts, full, texts)) return known;
    DRA_ASSIGN_OR_RETURN(Evaluation e, Compute(counts, full, texts));
    ++evaluations_;
    return &Memo(full, texts).emplace(counts, std::move(e)).first->second;
  }

  // Eval of each of `plans` not known yet, two at a time (the runs share
  // nothing but the immutable cluster; the allocator's caches are per run).
  Status EvalEach(std::span<const Counts> plans, bool full, bool texts) {
    texts = texts && full;
    std::vector<Counts> todo;
    for (const Counts& c : plans) {
      if (Known(c, full, texts) == nullptr && std::find(todo.begin(), todo.end(), c) == todo.end()) todo.push_back(c);
    }
    std::vector<std::optional<StatusOr<Evaluation>>> done(todo.size());
    auto work = [&](size_t first) {
      for (size_t i = first; i < todo.size(); i += 2) done[i] = Compute(todo[i], full, texts);
    };
    {
      std::optional<std::jthread> second;
      if (todo.size() > 1) second.emplace(work, 1);
      work(0);
    }
    for (size_t i = 0; i < todo.size(); ++i) {
      if (!done[i]->ok()) return done[i]->status();
      ++evaluations_;
      Memo(full, texts).emplace(todo[i], std::move(**done[i]));
    }
    return OkStatus();
  }

  // The memo of runs of a kind (see Eval).
  std::map<Counts, Evaluation>& Memo(bool full, bool texts) {
    return full ? (texts ? full_memo_ : quiet_memo_) : memo_;
  }
  const Evaluation* Known(const Counts& counts, bool full, bool texts) {
    std::map<Counts, Evaluation>& memo = Memo(full, texts);
    if (auto it = memo.find(counts); it != memo.end()) return &it->second;
    if (texts) {
      if (auto it = quiet_memo_.find(counts); it != quiet_memo_.end() && it->second.unplaced.empty()) {
        return &it->second;
      }
    }
    return nullptr;
  }

  // Eval's run itself. Thread-safe: it reads the cluster and the groups only.
  StatusOr<Evaluation> Compute(const Counts& counts, bool full, bool texts) const {
    std::set<std::string, std::less<>> added;
    sched::Snapshot s = WithNodes(counts, &added, full);
    StatusOr<sched::ScheduleResult> r = sched::Schedule(&s, ScheduleOptionsFor(options_, texts));
    if (!r.ok()) return r.status();
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
    return e;
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

  // The class model of the pending part (class_model.h), or null where it
  // does not apply.
  ClassModel* Model() {
    if (!model_tried_) {
      model_ = ClassModel::Make(pending_, groups_, ScheduleOptionsFor(options_, /*texts=*/false));
      model_tried_ = true;
    }
    return model_ ? &*model_ : nullptr;
  }

  // The pending pods per class.
  std::vector<int64_t> ClassSizes() {
    std::vector<int64_t> sizes;
    for (const PodClass& c : Model()->classes()) sizes.push_back(static_cast<int64_t>(c.pods.size()));
    return sizes;
  }

  // The cluster autoscaler's loop with one expander, on the class model:
  // per loop, the pods still pending go to the nodes added before where they
  // fit (as kube-scheduler binds them there); each group's option is the
  // binpacking estimate for the rest (ClassModel::EstimateGroup); the
  // expander picks one; until no option places a pod. Starts from `counts`
  // nodes (taken to be full) and the `remaining` pods per class.
  StatusOr<Counts> ModelExpand(Expander expander, Counts counts, std::vector<int64_t> remaining) {
    ClassModel& m = *Model();
    const std::vector<int64_t> start = remaining;
    const bool from_none = std::all_of(counts.begin(), counts.end(), [](int64_t n) { return n == 0; });
    std::vector<std::vector<NodeRun>> runs(groups_.size());
    for (uint64_t loop = 0;; ++loop) {
      for (uint32_t c = 0; c < remaining.size(); ++c) {
        for (size_t g = 0; g < groups_.size() && remaining[c] > 0; ++g) {
          DRA_RETURN_IF_ERROR(m.FirstFit(g, c, &remaining[c], &runs[g]).status());
        }
      }
      struct Option {
        size_t group;
        ClassModel::Estimate estimate;
        int64_t pods;
        double cost;
        double score;
      };
      std::vector<Option> options;
      for (size_t g = 0; g < groups_.size(); ++g) {
        if (counts[g] >= groups_[g].max_size) continue;
        DRA_ASSIGN_OR_RETURN(ClassModel::Estimate e, m.EstimateGroup(g, remaining, groups_[g].max_size - counts[g]));
        int64_t pods = 0;
        for (int64_t p : e.placed) pods += p;
        if (pods == 0) continue;
        const double nodes = static_cast<double>(e.nodes);
        double score = 0;  // lower is better
        switch (expander) {
          case Expander::kMostPods: score = -static_cast<double>(pods); break;
          case Expander::kLeastWaste: score = ModelWaste(g, e.runs); break;
          case Expander::kPrice: score = nodes * groups_[g].price / static_cast<double>(pods); break;
          case Expander::kRandom:
            score = static_cast<double>(
                Fnv1a64(std::to_string(options_.seed) + "/" + std::to_string(loop) + "/" + groups_[g].name));
            break;
          case Expander::kOptimal: break;
        }
        options.push_back({g, std::move(e), pods, nodes * groups_[g].price, score});
      }
      if (options.empty()) {
        // What this loop placed is one packing of `counts`: ModelPlaced
        // takes it where it beats ClassModel::Pack's.
        int64_t placed = 0;
        for (size_t c = 0; c < remaining.size(); ++c) placed += start[c] - remaining[c];
        if (from_none) {
          int64_t& known = known_[counts];
          known = std::max(known, placed);
        }
        return counts;
      }
      // Ties: more pods, then fewer nodes' price, then input order.
      Option& chosen = *std::min_element(options.begin(), options.end(), [&](const Option& a, const Option& b) {
        if (a.score != b.score) return a.score < b.score;
        if (a.pods != b.pods) return a.pods > b.pods;
        return a.cost < b.cost;
      });
      counts[chosen.group] += chosen.estimate.nodes;
      for (size_t c = 0; c < remaining.size(); ++c) remaining[c] -= chosen.estimate.placed[c];
      for (NodeRun& run : chosen.estimate.runs) runs[chosen.group].push_back(std::move(run));
    }
  }

  // Waste (as Waste) of new nodes of group g holding `runs`.
  double ModelWaste(size_t g, std::span<const NodeRun> runs) {
    const sched::Resources alloc = sched::NodeAllocatable(groups_[g].node);
    const std::span<const PodClass> classes = Model()->classes();
    double waste = 0;
    for (const NodeRun& run : runs) {
      int64_t cpu = 0, memory = 0;
      for (const auto& [c, n] : run.content) {
        cpu += n * classes[c].requests.milli_cpu;
        memory += n * classes[c].requests.memory;
      }
      double per_node = 0;
      if (alloc.milli_cpu > 0) per_node += 1 - static_cast<double>(cpu) / static_cast<double>(alloc.milli_cpu);
      if (alloc.memory > 0) per_node += 1 - static_cast<double>(memory) / static_cast<double>(alloc.memory);
      waste += per_node * static_cast<double>(run.nodes);
    }
    return waste;
  }

  // The pods the class model places with `counts` new nodes (ClassModel::Pack).
  StatusOr<int64_t> ModelPlaced(const Counts& counts) {
    auto it = packed_.find(counts);
    if (it == packed_.end()) {
      DRA_ASSIGN_OR_RETURN(std::vector<int64_t> placed, Model()->Pack(counts, ClassSizes()));
      int64_t total = 0;
      for (int64_t p : placed) total += p;
      it = packed_.emplace(counts, total).first;
    }
    auto known = known_.find(counts);
    return known == known_.end() ? it->second : std::max(it->second, known->second);
  }

  // Improve on the class model: per group, the most nodes that can go
  // (a binary search), then trades of one node (or two) of a group for one
  // of another, cheaper, while the pods placed stay at `target` or more.
  StatusOr<Counts> ModelImprove(Counts counts, int64_t target, std::chrono::steady_clock::time_point deadline) {
    for (bool improved = true; improved && std::chrono::steady_clock::now() < deadline;) {
      improved = false;
      for (size_t a = 0; a < groups_.size(); ++a) {
        int64_t low = 0, high = counts[a];  // the most nodes of `a` that can go: in [low, high]
        while (low < high) {
          const int64_t mid = low + (high - low + 1) / 2;
          Counts fewer = counts;
          fewer[a] -= mid;
          DRA_ASSIGN_OR_RETURN(const int64_t placed, ModelPlaced(fewer));
          if (placed >= target) {
            low = mid;
          } else {
            high = mid - 1;
          }
        }
        if (low > 0) {
          counts[a] -= low;
          improved = true;
        }
      }
      const double cost = Cost(counts);
      for (size_t a = 0; a < groups_.size() && !improved; ++a) {
        if (std::chrono::steady_clock::now() >= deadline) break;
        if (counts[a] == 0) continue;
        for (size_t b = 0; b < groups_.size() && !improved; ++b) {
          if (b == a || counts[b] >= groups_[b].max_size) continue;
          for (int64_t give : {int64_t{1}, int64_t{2}}) {
            if (counts[a] < give) break;
            Counts trade = counts;
            trade[a] -= give;
            ++trade[b];
            if (Cost(trade) >= cost - 1e-9) continue;
            DRA_ASSIGN_OR_RETURN(const int64_t placed, ModelPlaced(trade));
            if (placed >= target) {
              counts = std::move(trade);
              improved = true;
              break;
            }
          }
        }
      }
    }
    return counts;
  }

  // The pods per class that `e` left pending.
  std::vector<int64_t> Unplaced(const Evaluation& e) {
    std::set<std::string, std::less<>> unplaced;
    for (const Unschedulable& u : e.unplaced) unplaced.insert(u.pod);
    std::vector<int64_t> out;
    for (const PodClass& c : Model()->classes()) {
      int64_t n = 0;
      for (size_t i : c.pods) n += unplaced.contains(sched::ObjectKey(pending_.pods[i].metadata)) ? 1 : 0;
      out.push_back(n);
    }
    return out;
  }

  // ModelLowerBound's bound, and its nodes per group rounded up (a plan to try).
  struct ModelBound {
    double bound = 0;
    Counts rounded{};
  };
  StatusOr<ModelBound> ModelLowerBound(int64_t target);

  size_t evaluations() const { return evaluations_; }
  NodeInstance Instance(size_t g, int64_t k) const { return Instantiate(groups_[g], Index(g, k)); }

 private:
  const sched::Snapshot& cluster_;
  sched::Snapshot pending_{};
  std::span<const NodeGroup> groups_{};
  const PlanOptions& options_;
  std::map<Counts, Evaluation> memo_{};
  std::map<Counts, Evaluation> full_memo_{};
  std::map<Counts, Evaluation> quiet_memo_{};  // full, without texts
  size_t evaluations_ = 0;
  std::optional<ClassModel> model_{};
  bool model_tried_ = false;
  std::map<Counts, int64_t> packed_{};  // ModelPlaced's memo
  std::map<Counts, int64_t> known_{};   // pods placed by ModelExpand's loops from no nodes
};

// A price below which no set of new nodes holds `target` of the pending pods
// on the class model: the linear relaxation of choosing x_g nodes per group
// and y_cg pods of class c on group g's nodes, minimising Σ price_g x_g with
// Σ y >= target, Σ_g y_cg <= the pods of class c, y_cg <= k_cg x_g (k_cg:
// class c alone on a fresh node of g, ClassModel::Fill), and cpu, memory
// and pods of the pods on g within x_g nodes' allocatable; x_g <= maxSize.
// Less a margin for the solver's rounding.
StatusOr<Planner::ModelBound> Planner::ModelLowerBound(int64_t target) {
  ClassModel& m = *Model();
  const std::vector<int64_t> sizes = ClassSizes();
  const size_t num_groups = groups_.size();
  LinearProgram lp;
  lp.cost.assign(num_groups, 0);
  for (size_t g = 0; g < num_groups; ++g) lp.cost[g] = groups_[g].price;
  struct Pair {
    size_t c, g;
    int64_t k;
  };
  std::vector<Pair> pairs;  // y variables: columns num_groups + i
  for (size_t g = 0; g < num_groups; ++g) {
    for (uint32_t c = 0; c < sizes.size(); ++c) {
      if (sizes[c] == 0) continue;
      DRA_ASSIGN_OR_RETURN(const int64_t k, m.Fill(g, {}, c));
      if (k > 0) pairs.push_back({c, g, k});
    }
  }
  const size_t columns = num_groups + pairs.size();
  lp.cost.resize(columns, 0);
  auto row = [&](double bound) -> std::vector<double>& {
    lp.rows.emplace_back(columns, 0);
    lp.bounds.push_back(bound);
    return lp.rows.back();
  };
  {
    std::vector<double>& r = row(-static_cast<double>(target));
    for (size_t i = 0; i < pairs.size(); ++i) r[num_groups + i] = -1;
  }
  for (uint32_t c = 0; c < sizes.size(); ++c) {
    std::vector<double>& r = row(static_cast<double>(sizes[c]));
    for (size_t i = 0; i < pairs.size(); ++i) r[num_groups + i] = pairs[i].c == c ? 1 : 0;
  }
  for (size_t g = 0; g < num_groups; ++g) {
    row(static_cast<double>(groups_[g].max_size))[g] = 1;
    const sched::Resources alloc = sched::NodeAllocatable(groups_[g].node);
    for (auto [per_node, get] :
         {std::pair{alloc.milli_cpu, &sched::Resources::milli_cpu}, std::pair{alloc.memory, &sched::Resources::memory},
          std::pair{alloc.pods, &sched::Resources::pods}}) {
      if (per_node <= 0) continue;
      std::vector<double>& r = row(0);
      r[g] = -1;
      for (size_t i = 0; i < pairs.size(); ++i) {
        if (pairs[i].g != g) continue;
        r[num_groups + i] = static_cast<double>(m.classes()[pairs[i].c].requests.*get) / static_cast<double>(per_node);
      }
    }
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::vector<double>& r = row(0);
    r[num_groups + i] = 1;
    r[pairs[i].g] = -static_cast<double>(pairs[i].k);
  }
  // Exclusive devices: no two pods hold one.
  for (size_t g = 0; g < num_groups; ++g) {
    const int64_t per_node = m.DevicesPerNode(g);
    if (per_node <= 0) continue;
    std::vector<double>& r = row(0);
    r[g] = -1;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (pairs[i].g != g) continue;
      DRA_ASSIGN_OR_RETURN(const int64_t d, m.DevicesPerPod(g, static_cast<uint32_t>(pairs[i].c)));
      r[num_groups + i] = static_cast<double>(d) / static_cast<double>(per_node);
    }
  }
  const LpSolution sol = SolveLinearProgram(lp);
  if (sol.status != LpStatus::kOptimal) return ModelBound{};  // no bound beyond the trivial one
  ModelBound out{.bound = std::max(0.0, sol.value - 1e-7 * (1 + std::fabs(sol.value)))};
  for (size_t g = 0; g < num_groups; ++g) {
    out.rounded.push_back(std::min(groups_[g].max_size, static_cast<int64_t>(std::ceil(sol.x[g] - 1e-6))));
  }
  return out;
}

// A plan of the model scheduled in full: pods the model placed but the
// scheduler did not (it spreads pods where the model fills nodes one by one)
// get more nodes, as the autoscaler's next loops would add them (at most three
// times; none without `more`).
StatusOr<Counts> Realize(Planner& planner, Counts counts, std::optional<Expander> more) {
  for (int round = 0; more && round < 3; ++round) {
    DRA_ASSIGN_OR_RETURN(const Evaluation* e, planner.Eval(counts, /*full=*/true, /*texts=*/false));
    if (e->unplaced.empty()) break;
    DRA_ASSIGN_OR_RETURN(Counts next, planner.ModelExpand(*more, counts, planner.Unplaced(*e)));
    if (next == counts) break;
    counts = std::move(next);
  }
  return counts;
}

// --expander optimal on the class model: the incumbent, a cheaper plan from
// the model's bound and local moves, each scheduled in full. Sets the
// result's lower bound and whether the search stopped early.
StatusOr<Counts> ChooseOptimalOnModel(Planner& planner, const Counts& all,
                                      std::chrono::steady_clock::time_point deadline, PlanResult& result) {
  const Counts none(all.size(), 0);
  Counts chosen;
  // The incumbent: the expanders' best plan on the model, or every
  // group at its maxSize if that places more.
  std::map<Expander, Counts> plans;
  int64_t best_placed = -1;
  for (Expander e : {Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods, Expander::kRandom}) {
    DRA_ASSIGN_OR_RETURN(Counts c, planner.ModelExpand(e, none, planner.ClassSizes()));
    DRA_ASSIGN_OR_RETURN(const int64_t placed, planner.ModelPlaced(c));
    if (placed > best_placed || (placed == best_placed && planner.Cost(c) < planner.Cost(chosen) - 1e-9)) {
      chosen = c;
      best_placed = placed;
    }
    plans[e] = std::move(c);
  }
  DRA_ASSIGN_OR_RETURN(const int64_t at_max, planner.ModelPlaced(all));
  if (at_max > best_placed) {
    chosen = all;
    best_placed = at_max;
  }
  // Cheaper on the model: the bound's nodes rounded up, where that
  // places as many pods, then local moves.
  Counts improved = chosen;
  DRA_ASSIGN_OR_RETURN(Planner::ModelBound lp, planner.ModelLowerBound(best_placed));
  if (!lp.rounded.empty() && planner.Cost(lp.rounded) < planner.Cost(improved) - 1e-9) {
    DRA_ASSIGN_OR_RETURN(const int64_t placed, planner.ModelPlaced(lp.rounded));
    if (placed >= best_placed) improved = lp.rounded;
  }
  DRA_ASSIGN_OR_RETURN(improved, planner.ModelImprove(std::move(improved), best_placed, deadline));
  // Scheduled in full (two runs at a time), as the expanders realise
  // them: least-waste's and price's plans (so that optimal never costs
  // more than either), the incumbent, and the improved plan as it is
  // (the scheduler may not realise the model's tighter packing: it
  // spreads pods by score; more nodes for what it leaves pending cost
  // more than the incumbent did in every case tried). The best of them:
  // the most pods, then the cheapest.
  std::vector<std::pair<Counts, std::optional<Expander>>> candidates = {
      {plans[Expander::kLeastWaste], Expander::kLeastWaste},
      {plans[Expander::kPrice], Expander::kPrice},
      {chosen, Expander::kPrice},
      {improved, std::nullopt}};
  std::vector<Counts> first_runs;
  first_runs.reserve(candidates.size());
  for (const auto& [c, e] : candidates) first_runs.push_back(c);
  DRA_RETURN_IF_ERROR(planner.EvalEach(first_runs, /*full=*/true, /*texts=*/false));
  const Evaluation* best = nullptr;
  for (auto& [c, e] : candidates) {
    DRA_ASSIGN_OR_RETURN(Counts realized, Realize(planner, std::move(c), e));
    DRA_ASSIGN_OR_RETURN(const Evaluation* r, planner.Eval(realized, /*full=*/true, /*texts=*/false));
    if (best == nullptr || Planner::Better(*r, *best)) {
      best = r;
      chosen = std::move(realized);
    }
  }
  result.lower_bound = lp.bound;
  result.stopped_early = result.lower_bound < planner.Cost(chosen) - 1e-6 * (1 + planner.Cost(chosen));
  return chosen;
}

// --expander optimal without the class model: the expanders' best plan,
// improved, then a search for the cheapest plan that places as many pods.
// Sets the result's lower bound and whether the search stopped early.
StatusOr<Counts> ChooseOptimalByRuns(Planner& planner, const Counts& all,
                                     std::chrono::steady_clock::time_point deadline, PlanResult& result) {
  Counts chosen;
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
  return chosen;
}

// The plan: the expander's, or the optimal one, found on the class model
// where that is used.
StatusOr<Counts> ChoosePlan(Planner& planner, std::span<const NodeGroup> groups, const Counts& all,
                            const PlanOptions& options, std::chrono::steady_clock::time_point deadline,
                            PlanResult& result) {
  const bool use_model = options.valuation != Valuation::kRuns && planner.Model() != nullptr &&
                         (options.valuation == Valuation::kClasses || result.pending > kClassesFromPods ||
                          groups.size() > kClassesFromGroups);
  if (use_model) {
    result.class_model = true;
    if (options.expander == Expander::kOptimal) return ChooseOptimalOnModel(planner, all, deadline, result);
    const Counts none(groups.size(), 0);
    DRA_ASSIGN_OR_RETURN(Counts chosen, planner.ModelExpand(options.expander, none, planner.ClassSizes()));
    return Realize(planner, std::move(chosen), options.expander);
  }
  if (options.expander != Expander::kOptimal) return planner.Expand(options.expander);
  return ChooseOptimalByRuns(planner, all, deadline, result);
}

// Pods the plan leaves pending: with the scheduler's reason when every group
// is at its maxSize (where it has one), else the plan's.
Status ListUnschedulable(Planner& planner, const Counts& all, const Evaluation& best, PlanResult& result) {
  std::set<std::string, std::less<>> placed;
  for (const Placement& p : best.placements) placed.insert(p.pod);
  if (!best.unplaced.empty()) {
    DRA_ASSIGN_OR_RETURN(const Evaluation* full, planner.Eval(all, /*full=*/true));
    for (const Unschedulable& u : full->unplaced) {
      if (placed.insert(u.pod).second) result.unschedulable.push_back(u);
    }
  }
  for (const Unschedulable& u : best.unplaced) {
    if (placed.insert(u.pod).second) result.unschedulable.push_back(u);
  }
  return OkStatus();
}

// Why the pods stay pending: explain's analysis with every group at its
// maxSize.
void ExplainUnschedulable(Planner& planner, const Counts& all, const PlanOptions& options, PlanResult& result) {
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

}  // namespace

StatusOr<PlanResult> PlanScaleUp(const sched::Snapshot& cluster, std::span<const NodeGroup> groups,
                                 const PlanOptions& options) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(options.max_seconds * 1000));
  // The cluster as the autoscaler finds it: kube-scheduler has bound what
  // fits (those placements stay); the pods still pending are the demand.
  sched::Snapshot bound = cluster;
  DRA_ASSIGN_OR_RETURN(sched::ScheduleResult as_is,
                       sched::Schedule(&bound, ScheduleOptionsFor(options, /*texts=*/false)));
  Planner planner(bound, groups, options);
  PlanResult result{.expander = options.expander};
  for (const sched::PodOutcome& o : as_is.pods) result.pending += o.kind == sched::PodOutcome::Kind::kPlaced ? 0 : 1;

  const Counts all = AllAtMax(groups);
  DRA_ASSIGN_OR_RETURN(Counts chosen, ChoosePlan(planner, groups, all, options, deadline, result));
  DRA_ASSIGN_OR_RETURN(const Evaluation* best, planner.Eval(chosen, /*full=*/true));
  for (size_t g = 0; g < groups.size(); ++g) {
    if (chosen[g] == 0) continue;
    result.scale_up.push_back({groups[g].name, chosen[g], static_cast<double>(chosen[g]) * groups[g].price});
    for (int64_t k = 0; k < chosen[g]; ++k) result.added.push_back(planner.Instance(g, k));
  }
  result.cost = best->cost;
  if (options.expander == Expander::kOptimal && !result.stopped_early) result.lower_bound = result.cost;
  result.lower_bound = std::min(result.lower_bound, result.cost);
  result.placements = best->placements;
  DRA_RETURN_IF_ERROR(ListUnschedulable(planner, all, *best, result));
  if (!result.unschedulable.empty()) ExplainUnschedulable(planner, all, options, result);
  result.evaluations = planner.evaluations();
  if (ClassModel* m = result.class_model ? planner.Model() : nullptr) result.simulations = m->simulations();
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
    if (alloc.milli_cpu > 0)
      u = std::max(u, static_cast<double>(requested[i].milli_cpu) / static_cast<double>(alloc.milli_cpu));
    if (alloc.memory > 0) u = std::max(u, static_cast<double>(requested[i].memory) / static_cast<double>(alloc.memory));
    if (devices[i] > 0) u = std::max(u, static_cast<double>(used[i].size()) / static_cast<double>(devices[i]));
    out[i] = u;
  }
  return out;
}

StatusOr<ScaleDownNode> SimulateDrain(sched::Snapshot* s, size_t node, double utilization, const PlanOptions& options) {
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
  saved_pods.reserve(moved.size());
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
    const bool only_moved =
        std::all_of(c.status.reserved_for.begin(), c.status.reserved_for.end(),
                    [&](const api::ResourceClaimConsumerReference& r) { return moved_uids.contains(r.uid); });
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
  for (auto& [i, slice] : saved_slices)
    s->slices.insert(s->slices.begin() + static_cast<std::ptrdiff_t>(i), std::move(slice));
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
  DRA_RETURN_IF_ERROR(sched::Schedule(&bound, ScheduleOptionsFor(options, /*texts=*/false)).status());
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
