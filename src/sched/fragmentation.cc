// The device model behind fragmentation.h. Everything the hot loops read is
// dense: devices, capacities, counters and units are flat arrays indexed by
// number, a node's devices and units are contiguous, and a request's verdict
// per device (class and request selectors, taints, the capacity it would
// consume) is computed once and kept in a table per distinct request.
//
// Layout (members of DeviceModel::Impl):
//   devs[d]         node, unit, multi (consumable capacity), allocated
//                   (exclusive), caps[cap_begin, +cap_count) in the device's
//                   capacity order, uses[use_begin, +use_count) (counter
//                   index, amount)
//   units[u]        node, counter set or single device, relevant, free milli
//   ctr_total/ctr_left[c]  one entry per counter of every counter set
//   tables[t]       one per distinct ShapeRequest: per device state
//                   (-1 unknown, 0 no, 1 yes) and need[cap] (what it
//                   consumes of each capacity of a multi device)
// The hypothetical placements of Score and Choose change these arrays and
// undo the changes from a log (every Add has its Remove).
#include "sched/fragmentation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "alloc/capacity.h"

namespace dra::sched {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

int64_t FgdStepScore(double frag_now, double frag_after) {
  return static_cast<int64_t>(100 * Sigmoid((frag_now - frag_after) / 1000));
}

double StrandedMilli(int64_t cpu_free_milli, int64_t free_milli, double rho) {
  return std::max(0.0, static_cast<double>(free_milli) - rho * static_cast<double>(cpu_free_milli));
}

namespace {

constexpr int64_t kUnitMilli = 1000;

// floor(1000 x left / total), exact for integral amounts (openb's milli).
int64_t MilliShare(double left, double total) {
  if (total <= 0) return kUnitMilli;
  if (left <= 0) return 0;
  if (left >= total) return kUnitMilli;
  constexpr double kExact = 9.0e12;  // 1000 x kExact < 2^63 and both are exact doubles
  if (left == std::floor(left) && total == std::floor(total) && total < kExact) {
    return static_cast<int64_t>(left) * kUnitMilli / static_cast<int64_t>(total);
  }
  return static_cast<int64_t>(std::floor(static_cast<double>(kUnitMilli) * left / total + 1e-9));
}

}  // namespace

struct DeviceModel::Impl {
  struct Cap {
    double total = 0;
    double used = 0;
  };
  struct Use {
    uint32_t counter = 0;
    double amount = 0;
  };
  struct Dev {
    uint32_t node = 0;
    uint32_t unit = 0;
    uint32_t equiv = 0;  // devices of a node with equal equiv are interchangeable for F
    const api::Device* device = nullptr;
    const api::ResourceSlice* slice = nullptr;
    std::string id;  // "driver/pool/device"
    bool multi = false;
    bool allocated = false;
    uint32_t cap_begin = 0, cap_count = 0;
    uint32_t use_begin = 0, use_count = 0;
  };
  struct Unit {
    uint32_t node = 0;
    bool counter_set = false;
    bool relevant = false;
    uint32_t ctr_begin = 0, ctr_count = 0;
    uint32_t dev = 0;  // the device of a single-device unit
    int64_t free = kUnitMilli;
  };
  struct Node {
    uint32_t dev_begin = 0, dev_end = 0;
    uint32_t unit_begin = 0, unit_end = 0;
    Resources allocatable;
    int64_t cpu_req = 0, mem_req = 0, pods_req = 0;
    int64_t free_milli = 0;  // G: free of the relevant units
    bool frag_valid = false;
    double frag = 0;
    double idle = 0;  // sum over the typical shapes of p_m x G, in list order
    // Score cache: a direct-mapped table of (key + 1, value), made on first
    // use and cleared when the node changes.
    std::vector<std::pair<uint64_t, int64_t>> cache;
  };
  struct Table {
    ShapeRequest request;
    std::vector<int8_t> state;  // per device
    std::vector<double> need;   // per entry of caps_
  };
  // A typical shape compiled: per request, per alternative (table, count).
  struct TypicalShape {
    double weight = 0;
    int64_t milli_cpu = 0, memory = 0;
    bool cpu_only = true;
    std::vector<std::vector<std::pair<uint32_t, int64_t>>> requests;
  };
  // The undo log of hypothetical placements.
  struct Undo {
    enum Kind : uint8_t { kCapUsed, kAllocated, kCounter, kUnitFree, kNodeFree, kNodeCpu, kNodeMem, kNodePods };
    Kind kind;
    uint32_t index;
    double value;
  };

  alloc::SelectorEvaluator* selectors = nullptr;
  alloc::Features features;
  std::vector<Dev> devs;
  std::vector<Cap> caps;
  std::vector<Use> uses;
  std::vector<double> ctr_total, ctr_left;
  std::vector<Unit> units;
  std::vector<Node> nodes;
  std::unordered_map<std::string, uint32_t> dev_by_id;
  std::map<std::string, const api::DeviceClass*, std::less<>> class_by_name;
  std::map<std::string, std::vector<int8_t>, std::less<>> expr_verdicts;  // per device
  std::vector<Table> tables;
  std::unordered_map<std::string, uint32_t> table_by_key;
  std::vector<TypicalShape> typical;
  std::unordered_map<std::string, uint32_t> demand_keys;
  std::vector<Undo> log;
  // Marks of ServeAlternative and ComputeFrag (per unit).
  std::vector<uint32_t> unit_mark, unit_req_mark;
  uint32_t mark = 0, req_mark = 0;

  // --- selectors and tables

  bool ExprTrue(const std::string& expr, uint32_t d) {
    auto it = expr_verdicts.find(expr);
    if (it == expr_verdicts.end()) it = expr_verdicts.emplace(expr, std::vector<int8_t>(devs.size(), -1)).first;
    int8_t& v = it->second[d];
    if (v < 0) {
      StatusOr<bool> r = selectors->Evaluate(expr, *devs[d].device, devs[d].slice->spec.driver);
      v = r.ok() && *r ? 1 : 0;
    }
    return v == 1;
  }

  bool ClassMatches(std::string_view class_name, uint32_t d) {
    auto it = class_by_name.find(class_name);
    if (it == class_by_name.end()) return false;
    for (const api::DeviceSelector& s : it->second->spec.selectors) {
      if (!s.cel || !ExprTrue(s.cel->expression, d)) return false;
    }
    return true;
  }

  uint32_t TableFor(const ShapeRequest& request) {
    std::string key = request.Key();
    auto [it, inserted] = table_by_key.emplace(std::move(key), static_cast<uint32_t>(tables.size()));
    if (inserted) {
      Table t;
      t.request = request;
      t.state.assign(devs.size(), -1);
      t.need.assign(caps.size(), 0);
      tables.push_back(std::move(t));
    }
    return it->second;
  }

  // Whether device d matches the table's request (class, selectors, taints,
  // capacity policy); fills the table's need for d on first use.
  bool Matches(uint32_t t, uint32_t d) {
    const int8_t st = tables[t].state[d];
    if (st >= 0) return st == 1;
    return ComputeMatch(t, d);
  }
  [[gnu::noinline]] bool ComputeMatch(uint32_t t, uint32_t d) {
    Table& table = tables[t];
    int8_t& st = table.state[d];
    st = 0;
    const Dev& dev = devs[d];
    const ShapeRequest& r = table.request;
    if (!ClassMatches(r.device_class, d)) return false;
    for (const std::string& s : r.selectors) {
      if (!ExprTrue(s, d)) return false;
    }
    if (features.device_taints && !alloc::TaintsAllow(*dev.device, r.tolerations)) return false;
    if (dev.multi) {
      StatusOr<std::optional<alloc::CapacityAmounts>> need =
          alloc::CheckCapacity(r.capacity, *dev.device, nullptr, nullptr, features.fractional_capacity_range);
      if (!need.ok() || !need->has_value()) return false;
      uint32_t k = 0;
      for (const auto& [name, capacity] : dev.device->capacity) {
        const quantity::Quantity* q = (*need)->find(name.view());
        table.need[dev.cap_begin + k] =
            q != nullptr ? q->AsApproximateFloat64() : capacity.value.AsApproximateFloat64();
        ++k;
      }
    } else if (r.capacity && !r.capacity->requests.empty()) {
      // Capacity requests on a device allocated whole: it must define them.
      for (const auto& [name, amount] : r.capacity->requests) {
        if (!dev.device->capacity.contains(name)) return false;
      }
    }
    st = 1;
    return true;
  }

  bool CountersFit(const Dev& dev) const {
    for (uint32_t i = 0; i < dev.use_count; ++i) {
      const Use& u = uses[dev.use_begin + i];
      if (ctr_left[u.counter] < u.amount) return false;
    }
    return true;
  }

  bool MultiUnused(const Dev& dev) const {
    for (uint32_t k = 0; k < dev.cap_count; ++k) {
      if (caps[dev.cap_begin + k].used > 0) return false;
    }
    return true;
  }

  // Room for one more allocation of table t's request on device d now.
  bool Available(uint32_t t, uint32_t d) {
    if (!Matches(t, d)) return false;
    const Dev& dev = devs[d];
    if (dev.multi) {
      const std::vector<double>& need = tables[t].need;
      for (uint32_t k = 0; k < dev.cap_count; ++k) {
        const Cap& c = caps[dev.cap_begin + k];
        if (c.used + need[dev.cap_begin + k] > c.total) return false;
      }
      if (dev.use_count > 0 && MultiUnused(dev) && !CountersFit(dev)) return false;
      return true;
    }
    return !dev.allocated && CountersFit(dev);
  }

  // --- state changes (logged when `logged`)

  void Set(Undo::Kind kind, uint32_t index, double& field, double value, bool logged) {
    if (logged) log.push_back(Undo{kind, index, field});
    field = value;
  }

  void RefreshUnit(uint32_t u, bool logged) {
    Unit& unit = units[u];
    int64_t free = kUnitMilli;
    if (unit.counter_set) {
      double sum = 0;
      int n = 0;
      for (uint32_t i = 0; i < unit.ctr_count; ++i) {
        const double total = ctr_total[unit.ctr_begin + i];
        if (total <= 0) continue;
        sum += std::max(0.0, ctr_left[unit.ctr_begin + i]) / total;
        ++n;
      }
      if (n > 0) free = static_cast<int64_t>(std::floor(static_cast<double>(kUnitMilli) * sum / n + 1e-9));
    } else {
      const Dev& dev = devs[unit.dev];
      if (dev.multi) {
        for (uint32_t k = 0; k < dev.cap_count; ++k) {
          const Cap& c = caps[dev.cap_begin + k];
          if (c.total > 0) free = std::min(free, MilliShare(c.total - c.used, c.total));
        }
      } else if (dev.allocated) {
        free = 0;
      }
    }
    if (free == unit.free) return;
    Node& node = nodes[unit.node];
    if (logged) {
      log.push_back(Undo{Undo::kUnitFree, u, static_cast<double>(unit.free)});
      log.push_back(Undo{Undo::kNodeFree, unit.node, static_cast<double>(node.free_milli)});
    }
    if (unit.relevant) node.free_milli += free - unit.free;
    unit.free = free;
  }

  // Takes device d for one allocation with consumption `need` (per capacity
  // of a multi device; null: the whole capacity).
  void Take(uint32_t d, const double* need, bool logged) {
    Dev& dev = devs[d];
    bool counters = !dev.multi;
    if (dev.multi) {
      counters = dev.use_count > 0 && MultiUnused(dev);
      for (uint32_t k = 0; k < dev.cap_count; ++k) {
        Cap& c = caps[dev.cap_begin + k];
        Set(Undo::kCapUsed, dev.cap_begin + k, c.used, c.used + (need != nullptr ? need[k] : c.total), logged);
      }
    } else {
      if (logged) log.push_back(Undo{Undo::kAllocated, d, dev.allocated ? 1.0 : 0.0});
      dev.allocated = true;
    }
    if (counters) {
      for (uint32_t i = 0; i < dev.use_count; ++i) {
        const Use& u = uses[dev.use_begin + i];
        Set(Undo::kCounter, u.counter, ctr_left[u.counter], ctr_left[u.counter] - u.amount, logged);
      }
    }
    RefreshUnit(dev.unit, logged);
  }

  // The inverse of Take (unlogged): device d gives back `need` (a multi
  // device) or its exclusive allocation, and its counters once unused.
  void Give(uint32_t d, const double* need) {
    Dev& dev = devs[d];
    bool counters = !dev.multi;
    if (dev.multi) {
      for (uint32_t k = 0; k < dev.cap_count; ++k) {
        Cap& c = caps[dev.cap_begin + k];
        c.used = std::max(0.0, c.used - (need != nullptr ? need[k] : c.total));
      }
      counters = dev.use_count > 0 && MultiUnused(dev);
    } else {
      if (!dev.allocated) return;
      dev.allocated = false;
    }
    if (counters) {
      for (uint32_t i = 0; i < dev.use_count; ++i) {
        const Use& u = uses[dev.use_begin + i];
        ctr_left[u.counter] += u.amount;
      }
    }
    RefreshUnit(dev.unit, false);
  }

  void AddPodResources(uint32_t n, int64_t cpu, int64_t mem, bool logged) {
    Node& node = nodes[n];
    if (logged) {
      log.push_back(Undo{Undo::kNodeCpu, n, static_cast<double>(node.cpu_req)});
      log.push_back(Undo{Undo::kNodeMem, n, static_cast<double>(node.mem_req)});
      log.push_back(Undo{Undo::kNodePods, n, static_cast<double>(node.pods_req)});
    }
    node.cpu_req += cpu;
    node.mem_req += mem;
    node.pods_req += 1;
  }

  void UndoTo(size_t size) {
    while (log.size() > size) {
      const Undo u = log.back();
      log.pop_back();
      switch (u.kind) {
        case Undo::kCapUsed: caps[u.index].used = u.value; break;
        case Undo::kAllocated: devs[u.index].allocated = u.value != 0; break;
        case Undo::kCounter: ctr_left[u.index] = u.value; break;
        case Undo::kUnitFree: units[u.index].free = static_cast<int64_t>(u.value); break;
        case Undo::kNodeFree: nodes[u.index].free_milli = static_cast<int64_t>(u.value); break;
        case Undo::kNodeCpu: nodes[u.index].cpu_req = static_cast<int64_t>(u.value); break;
        case Undo::kNodeMem: nodes[u.index].mem_req = static_cast<int64_t>(u.value); break;
        case Undo::kNodePods: nodes[u.index].pods_req = static_cast<int64_t>(u.value); break;
      }
    }
  }

  void Changed(uint32_t n) {
    nodes[n].frag_valid = false;
    for (auto& e : nodes[n].cache) e = {0, 0};
  }

  static constexpr size_t kCacheSlots = 256;
  std::pair<uint64_t, int64_t>& CacheSlot(uint32_t n, uint64_t key) {
    std::vector<std::pair<uint64_t, int64_t>>& cache = nodes[n].cache;
    if (cache.empty()) cache.resize(kCacheSlots);
    return cache[key % kCacheSlots];
  }

  // --- fragmentation

  // Marks (unit_mark == mark) the units that can serve the alternative
  // (table t, count) and returns whether it is served.
  bool ServeAlternative(const Node& node, uint32_t t, int64_t count) {
    ++req_mark;
    int64_t units_found = 0;
    if (count == 0) {  // All: every matching device, at least one
      bool any = false;
      for (uint32_t d = node.dev_begin; d < node.dev_end; ++d) {
        if (!Matches(t, d)) continue;
        if (!Available(t, d)) return false;
        any = true;
      }
      if (!any) return false;
    }
    for (uint32_t d = node.dev_begin; d < node.dev_end; ++d) {
      if (!Available(t, d)) continue;
      uint32_t& m = unit_req_mark[devs[d].unit];
      if (m != req_mark) {
        m = req_mark;
        ++units_found;
      }
    }
    if (count > 0 && units_found < count) return false;
    for (uint32_t d = node.dev_begin; d < node.dev_end; ++d) {
      if (unit_req_mark[devs[d].unit] == req_mark) unit_mark[devs[d].unit] = mark;
    }
    return true;
  }

  double ComputeFrag(uint32_t n) {
    const Node& node = nodes[n];
    const int64_t g = node.free_milli;
    const int64_t cpu_free = node.allocatable.milli_cpu - node.cpu_req;
    const int64_t mem_free = node.allocatable.memory - node.mem_req;
    const int64_t pods_free = node.allocatable.pods - node.pods_req;
    double f = 0;
    for (const TypicalShape& m : typical) {
      double frag = static_cast<double>(g);
      if (!m.cpu_only && cpu_free >= m.milli_cpu && mem_free >= m.memory && pods_free >= 1) {
        ++mark;
        bool served = true;
        for (const auto& alternatives : m.requests) {
          bool one = false;
          for (const auto& [t, count] : alternatives) {
            if (ServeAlternative(node, t, count)) {
              one = true;
              break;
            }
          }
          if (!one) {
            served = false;
            break;
          }
        }
        if (served) {
          int64_t unusable = 0;
          for (uint32_t u = node.unit_begin; u < node.unit_end; ++u) {
            if (units[u].relevant && unit_mark[u] != mark) unusable += units[u].free;
          }
          frag = static_cast<double>(unusable);
        }
      }
      f += m.weight * frag;
    }
    return f;
  }

  double Measure(uint32_t n, Packing packing, double rho) {
    double f = ComputeFrag(n);
    if (packing == Packing::kDraPack) {
      const Node& node = nodes[n];
      f += StrandedMilli(node.allocatable.milli_cpu - node.cpu_req, node.free_milli, rho);
    }
    return f;
  }

  // --- hypothetical placement

  struct Choice {
    bool ok = true;
    int64_t score = 0;
    alloc::DevicePreference preference;
  };

  // Places the demand on node n (logged, so the caller undoes it), choosing
  // devices as `packing` does; with `now` the step score is computed.
  Choice Place(uint32_t n, const PodDemand& demand, Packing packing, double rho, double now, bool want_score,
               bool want_preference, bool leave_partitions = false) {
    Choice out;
    Node& node = nodes[n];
    AddPodResources(n, demand.milli_cpu, demand.memory, true);
    // The score of the state after the last device chosen by score, while
    // nothing has changed since (a pod of one such request: most pods); -1
    // otherwise.
    int64_t last_score = -1;
    std::vector<uint32_t> candidates;
    for (const PodDemand::Request& request : demand.requests) {
      bool placed = false;
      for (size_t alt = 0; alt < request.tables.size() && !placed; ++alt) {
        const uint32_t t = request.tables[alt];
        const int64_t count = request.counts[alt];
        candidates.clear();
        bool all_ok = true;
        for (uint32_t d = node.dev_begin; d < node.dev_end; ++d) {
          if (Available(t, d)) {
            candidates.push_back(d);
          } else if (count == 0 && Matches(t, d)) {
            all_ok = false;
          }
        }
        if (count == 0 ? (!all_ok || candidates.empty()) : static_cast<int64_t>(candidates.size()) < count) continue;
        std::vector<uint32_t> taken;
        bool scored = false;
        if (count == 1 && packing != Packing::kNone) {
          // FGD's choice: the device whose taking scores best; the first
          // among equals. Equivalent devices in the same state give the same
          // score: each is evaluated once.
          int64_t best_score = -1;
          uint32_t best = candidates.front();
          std::vector<std::pair<uint32_t, int64_t>> seen;  // (device, score)
          for (uint32_t d : candidates) {
            int64_t s = -1;
            for (const auto& [other, score] : seen) {
              if (Equivalent(t, other, d)) s = score;
            }
            if (s < 0) {
              const size_t mark_log = log.size();
              Take(d, tables[t].need.data() + devs[d].cap_begin, true);
              s = FgdStepScore(now, Measure(n, packing, rho));
              UndoTo(mark_log);
              seen.emplace_back(d, s);
            }
            if (s > best_score) {
              best_score = s;
              best = d;
            }
          }
          taken.push_back(best);
          Take(best, tables[t].need.data() + devs[best].cap_begin, true);
          last_score = best_score;
          scored = true;
        } else if (count == 0) {
          taken = candidates;
        } else {
          if (packing == Packing::kNone) {
            // The tightest first: the least free unit that has room.
            std::stable_sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) {
              return units[devs[a].unit].free < units[devs[b].unit].free;
            });
          }
          taken.assign(candidates.begin(), candidates.begin() + count);
        }
        if (!scored) {
          for (uint32_t d : taken) Take(d, tables[t].need.data() + devs[d].cap_begin, true);
          last_score = -1;
        }
        if (want_preference && !(leave_partitions && units[devs[taken.front()].unit].counter_set)) {
          alloc::DevicePreference::Entry e{.claim = request.claim, .request = request.names[alt], .devices = {}};
          for (uint32_t d : taken) e.devices.push_back(devs[d].id);
          out.preference.entries.push_back(std::move(e));
        }
        placed = true;
      }
      if (!placed) out.ok = false;
    }
    if (out.ok && want_score) out.score = last_score >= 0 ? last_score : FgdStepScore(now, Measure(n, packing, rho));
    return out;
  }

  // Whether taking device a or device b (both with room for table t) leaves
  // states that F cannot tell apart.
  bool Equivalent(uint32_t t, uint32_t a, uint32_t b) const {
    const Dev& x = devs[a];
    const Dev& y = devs[b];
    if (x.equiv != y.equiv || x.allocated != y.allocated) return false;
    for (uint32_t k = 0; k < x.cap_count; ++k) {
      if (caps[x.cap_begin + k].used != caps[y.cap_begin + k].used) return false;
      if (tables[t].need[x.cap_begin + k] != tables[t].need[y.cap_begin + k]) return false;
    }
    return true;
  }

  // --- building (DeviceModel::New)

  // Node n's units and devices, from its usable slices: a unit per counter
  // set of its pools, then the devices (a unit each outside a counter set).
  void AddNode(size_t n, const api::Node& api_node, const std::vector<const api::ResourceSlice*>& slices) {
    Node& node = nodes[n];
    node.allocatable = NodeAllocatable(api_node);
    node.dev_begin = static_cast<uint32_t>(devs.size());
    node.unit_begin = static_cast<uint32_t>(units.size());
    std::map<std::string, uint32_t> set_unit = AddCounterSetUnits(n, slices);
    for (const api::ResourceSlice* s : slices) {
      for (const api::Device& device : s->spec.devices) AddDevice(n, s, device, slices, set_unit);
    }
    node.dev_end = static_cast<uint32_t>(devs.size());
    node.unit_end = static_cast<uint32_t>(units.size());
  }

  // Counter sets of node n's pools: one unit each. Returns "driver/pool/set"
  // -> unit.
  std::map<std::string, uint32_t> AddCounterSetUnits(size_t n, const std::vector<const api::ResourceSlice*>& slices) {
    std::map<std::string, uint32_t> set_unit;  // "driver/pool/set" -> unit
    if (features.partitionable_devices) {
      for (const api::ResourceSlice* s : slices) {
        for (const api::CounterSet& cs : s->spec.shared_counters) {
          std::string key = fmt::format("{}/{}/{}", s->spec.driver, s->spec.pool.name, cs.name);
          if (set_unit.contains(key)) continue;
          Unit u;
          u.node = static_cast<uint32_t>(n);
          u.counter_set = true;
          u.ctr_begin = static_cast<uint32_t>(ctr_total.size());
          for (const auto& [name, counter] : cs.counters) {
            ctr_total.push_back(counter.value.AsApproximateFloat64());
            ctr_left.push_back(counter.value.AsApproximateFloat64());
          }
          u.ctr_count = static_cast<uint32_t>(ctr_total.size()) - u.ctr_begin;
          set_unit.emplace(std::move(key), static_cast<uint32_t>(units.size()));
          units.push_back(u);
        }
      }
    }
    return set_unit;
  }

  // A device of node n: its capacities, counter uses and unit.
  void AddDevice(size_t n, const api::ResourceSlice* s, const api::Device& device,
                 const std::vector<const api::ResourceSlice*>& slices,
                 const std::map<std::string, uint32_t>& set_unit) {
    Dev d;
    d.node = static_cast<uint32_t>(n);
    d.device = &device;
    d.slice = s;
    d.id = alloc::DeviceIdString(s->spec.driver, s->spec.pool.name, device.name);
    d.multi = features.consumable_capacity && device.allow_multiple_allocations.value_or(false);
    d.cap_begin = static_cast<uint32_t>(caps.size());
    if (d.multi) {
      for (const auto& [name, capacity] : device.capacity) {
        caps.push_back(Cap{.total = capacity.value.AsApproximateFloat64(), .used = 0});
      }
    }
    d.cap_count = static_cast<uint32_t>(caps.size()) - d.cap_begin;
    d.use_begin = static_cast<uint32_t>(uses.size());
    std::optional<uint32_t> unit;
    if (features.partitionable_devices) {
      for (const api::DeviceCounterConsumption& use : device.rare->consumes_counters) {
        auto it = set_unit.find(fmt::format("{}/{}/{}", s->spec.driver, s->spec.pool.name, use.counter_set));
        if (it == set_unit.end()) continue;
        const Unit& u = units[it->second];
        if (!unit) unit = it->second;
        // Counters in the set's order (the counter map is sorted by name).
        const api::CounterSet* set = nullptr;
        for (const api::ResourceSlice* cs : slices) {
          if (cs->spec.driver != s->spec.driver || cs->spec.pool.name != s->spec.pool.name) continue;
          for (const api::CounterSet& c : cs->spec.shared_counters) {
            if (c.name == use.counter_set) set = &c;
          }
        }
        if (set == nullptr) continue;
        uint32_t i = 0;
        for (const auto& [name, counter] : set->counters) {
          if (const api::Counter* amount = use.counters.find(name.view())) {
            uses.push_back(Use{.counter = u.ctr_begin + i, .amount = amount->value.AsApproximateFloat64()});
          }
          ++i;
        }
      }
    }
    d.use_count = static_cast<uint32_t>(uses.size()) - d.use_begin;
    if (!unit) {
      Unit u;
      u.node = static_cast<uint32_t>(n);
      u.dev = static_cast<uint32_t>(devs.size());
      unit = static_cast<uint32_t>(units.size());
      units.push_back(u);
    }
    d.unit = *unit;
    dev_by_id.emplace(d.id, static_cast<uint32_t>(devs.size()));
    devs.push_back(std::move(d));
  }

  // The typical shapes compiled; units are relevant when one of their
  // devices matches the class of some typical request.
  void CompileTypical(const WorkloadProfile* profile) {
    std::vector<std::string> typical_classes;
    if (profile != nullptr) {
      for (const WorkloadShape& shape : profile->shapes) {
        TypicalShape t;
        t.weight = shape.weight;
        t.milli_cpu = shape.milli_cpu;
        t.memory = shape.memory;
        t.cpu_only = shape.cpu_only();
        for (const ShapeClaimRequest& r : shape.requests) {
          std::vector<std::pair<uint32_t, int64_t>> alternatives;
          for (const ShapeRequest& alt : r.alternatives) {
            alternatives.emplace_back(TableFor(alt), alt.all ? 0 : alt.count);
            if (std::find(typical_classes.begin(), typical_classes.end(), alt.device_class) == typical_classes.end()) {
              typical_classes.push_back(alt.device_class);
            }
          }
          t.requests.push_back(std::move(alternatives));
        }
        typical.push_back(std::move(t));
      }
    }
    for (uint32_t d = 0; d < devs.size(); ++d) {
      for (const std::string& c : typical_classes) {
        if (ClassMatches(c, d)) {
          units[devs[d].unit].relevant = true;
          break;
        }
      }
    }
  }

  // Equivalence classes per node: equal verdicts and needs for every typical
  // request, equal capacities, and not part of a counter set.
  void AssignEquivalence() {
    for (Node& node : nodes) {
      std::map<std::string, uint32_t> classes;
      for (uint32_t d = node.dev_begin; d < node.dev_end; ++d) {
        Dev& dev = devs[d];
        if (units[dev.unit].counter_set) {
          dev.equiv = static_cast<uint32_t>(classes.size() + 1);
          classes.emplace(fmt::format("#{}", d), dev.equiv);
          continue;
        }
        std::string sig = dev.multi ? "m" : "x";
        for (uint32_t k = 0; k < dev.cap_count; ++k) sig += fmt::format(",{}", caps[dev.cap_begin + k].total);
        for (uint32_t t = 0; t < tables.size(); ++t) {
          sig += Matches(t, d) ? '1' : '0';
          for (uint32_t k = 0; k < dev.cap_count; ++k) sig += fmt::format(",{}", tables[t].need[dev.cap_begin + k]);
        }
        auto [it, inserted] = classes.emplace(std::move(sig), static_cast<uint32_t>(classes.size() + 1));
        dev.equiv = it->second;
      }
    }
  }

  // Every unit free, then G per node: the free of its relevant units.
  void ResetFree() {
    for (uint32_t u = 0; u < units.size(); ++u) {
      units[u].free = kUnitMilli;
      RefreshUnit(u, false);
    }
    for (Node& node : nodes) {
      node.free_milli = 0;
      for (uint32_t u = node.unit_begin; u < node.unit_end; ++u) {
        if (units[u].relevant) node.free_milli += units[u].free;
      }
    }
  }

  // rho: milli-devices per millicore of the typical device-using shapes; a
  // request's milli-devices are measured on the first device that matches it.
  double TypicalRho() {
    double gpu = 0, cpu = 0;
    for (size_t i = 0; i < typical.size(); ++i) {
      const TypicalShape& t = typical[i];
      if (t.cpu_only) continue;
      double milli = 0;
      for (const auto& alternatives : t.requests) {
        const auto [table, count] = alternatives.front();
        for (uint32_t d = 0; d < devs.size(); ++d) {
          if (!Matches(table, d)) continue;
          const Dev& dev = devs[d];
          double share = kUnitMilli;
          if (dev.multi) {
            share = 0;
            for (uint32_t k = 0; k < dev.cap_count; ++k) {
              const double total = caps[dev.cap_begin + k].total;
              if (total > 0) share = std::max(share, kUnitMilli * tables[table].need[dev.cap_begin + k] / total);
            }
          } else if (units[dev.unit].counter_set) {
            // What taking it removes from its set's free share (RefreshUnit):
            // the mean over the set's counters of used / total.
            const Unit& u = units[dev.unit];
            double sum = 0;
            int n = 0;
            for (uint32_t j = 0; j < u.ctr_count; ++j) n += ctr_total[u.ctr_begin + j] > 0 ? 1 : 0;
            for (uint32_t j = 0; j < dev.use_count; ++j) {
              const Use& use = uses[dev.use_begin + j];
              if (ctr_total[use.counter] > 0) sum += use.amount / ctr_total[use.counter];
            }
            share = n > 0 ? kUnitMilli * sum / n : kUnitMilli;
          }
          milli += share * static_cast<double>(count == 0 ? 1 : count);
          break;
        }
      }
      gpu += t.weight * milli;
      cpu += t.weight * static_cast<double>(t.milli_cpu);
    }
    return cpu > 0 ? gpu / cpu : 0;
  }
};

DeviceModel::DeviceModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceModel::~DeviceModel() = default;

namespace {

// The slices of each node (by index) that the allocator would use: of the
// newest generation of a pool whose slices are all there.
std::vector<std::vector<const api::ResourceSlice*>> UsableSlicesByNode(const Snapshot& snapshot,
                                                                       const NodeIndex& node_index) {
  // The newest generation of each pool, and whether all its slices are there.
  struct PoolInfo {
    int64_t generation = 0;
    int64_t expected = 0;
    int64_t seen = 0;
  };
  std::map<std::pair<std::string_view, std::string_view>, PoolInfo> pools;
  for (const api::ResourceSlice& s : snapshot.slices) {
    PoolInfo& p = pools[{s.spec.driver, s.spec.pool.name}];
    p.generation = std::max(p.generation, s.spec.pool.generation);
  }
  for (const api::ResourceSlice& s : snapshot.slices) {
    PoolInfo& p = pools[{s.spec.driver, s.spec.pool.name}];
    if (s.spec.pool.generation != p.generation) continue;
    ++p.seen;
    p.expected = s.spec.pool.resource_slice_count;
  }
  auto usable = [&](const api::ResourceSlice& s) {
    const PoolInfo& p = pools[{s.spec.driver, s.spec.pool.name}];
    return s.spec.pool.generation == p.generation && p.seen >= p.expected;
  };

  std::vector<std::vector<const api::ResourceSlice*>> slices_of(snapshot.nodes.size());
  for (const api::ResourceSlice& s : snapshot.slices) {
    if (!s.spec.node_name || !usable(s)) continue;
    if (std::optional<size_t> n = node_index.Find(*s.spec.node_name)) slices_of[*n].push_back(&s);
  }
  return slices_of;
}

}  // namespace

std::unique_ptr<DeviceModel> DeviceModel::New(const Snapshot& snapshot, const WorkloadProfile* profile,
                                              alloc::SelectorEvaluator* selectors, const alloc::Features& features) {
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.selectors = selectors;
  m.features = features;
  for (const api::DeviceClass& c : snapshot.classes) m.class_by_name.emplace(c.metadata.name, &c);

  NodeIndex node_index(snapshot.nodes);
  const std::vector<std::vector<const api::ResourceSlice*>> slices_of = UsableSlicesByNode(snapshot, node_index);
  m.nodes.resize(snapshot.nodes.size());
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) m.AddNode(n, snapshot.nodes[n], slices_of[n]);
  m.unit_mark.assign(m.units.size(), 0);
  m.unit_req_mark.assign(m.units.size(), 0);
  m.CompileTypical(profile);
  m.AssignEquivalence();
  m.ResetFree();

  auto model = std::unique_ptr<DeviceModel>(new DeviceModel(std::move(impl)));
  // What is bound and allocated already.
  for (const api::Pod& pod : snapshot.pods) {
    if (pod.spec.node_name.empty() || pod.status.phase == api::PodPhase::kSucceeded ||
        pod.status.phase == api::PodPhase::kFailed) {
      continue;
    }
    if (std::optional<size_t> n = node_index.Find(pod.spec.node_name)) model->AddPod(*n, PodRequests(pod));
  }
  for (const api::ResourceClaim& c : snapshot.claims) {
    if (c.status.allocation) model->AddAllocation(*c.status.allocation);
  }
  model->rho_ = m.TypicalRho();
  return model;
}

void DeviceModel::AddPod(size_t node, const Resources& requests) {
  impl_->AddPodResources(static_cast<uint32_t>(node), requests.milli_cpu, requests.memory, false);
  impl_->Changed(static_cast<uint32_t>(node));
}

void DeviceModel::RemovePod(size_t node, const Resources& requests) {
  impl_->AddPodResources(static_cast<uint32_t>(node), -requests.milli_cpu, -requests.memory, false);
  impl_->nodes[node].pods_req -= 2;  // AddPodResources counted one more pod
  impl_->Changed(static_cast<uint32_t>(node));
}

void DeviceModel::AddAllocation(const api::AllocationResult& allocation) { Apply(allocation, true); }

void DeviceModel::ReleaseAllocation(const api::AllocationResult& allocation) { Apply(allocation, false); }

void DeviceModel::Apply(const api::AllocationResult& allocation, bool take) {
  Impl& m = *impl_;
  for (const api::DeviceRequestAllocationResult& r : allocation.devices.results) {
    if (r.admin_access.value_or(false)) continue;
    auto it = m.dev_by_id.find(alloc::DeviceIdString(r.driver, r.pool, r.device));
    if (it == m.dev_by_id.end()) continue;
    const uint32_t d = it->second;
    const Impl::Dev& dev = m.devs[d];
    std::vector<double> need(dev.cap_count, 0);
    if (dev.multi) {
      uint32_t k = 0;
      for (const auto& [name, capacity] : dev.device->capacity) {
        const quantity::Quantity* q = r.consumed_capacity.find(name.view());
        need[k++] = q != nullptr ? q->AsApproximateFloat64() : 0;
      }
    }
    if (take) {
      m.Take(d, dev.multi ? need.data() : nullptr, false);
    } else {
      m.Give(d, dev.multi ? need.data() : nullptr);
    }
    m.Changed(dev.node);
  }
}

size_t DeviceModel::num_nodes() const { return impl_->nodes.size(); }

int64_t DeviceModel::FreeMilli(size_t node) const { return impl_->nodes[node].free_milli; }

int64_t DeviceModel::FreeMilliCpu(size_t node) const {
  const Impl::Node& n = impl_->nodes[node];
  return n.allocatable.milli_cpu - n.cpu_req;
}

double DeviceModel::Frag(size_t node) {
  Impl::Node& n = impl_->nodes[node];
  if (!n.frag_valid) {
    n.frag = impl_->ComputeFrag(static_cast<uint32_t>(node));
    // sum_m p_m x G in list order, as the authors total it.
    n.idle = 0;
    for (const Impl::TypicalShape& t : impl_->typical) n.idle += t.weight * static_cast<double>(n.free_milli);
    n.frag_valid = true;
  }
  return n.frag;
}

double DeviceModel::Pack(size_t node) {
  const Impl::Node& n = impl_->nodes[node];
  return Frag(node) + StrandedMilli(n.allocatable.milli_cpu - n.cpu_req, n.free_milli, rho_);
}

double DeviceModel::FragTotal() {
  double s = 0;
  for (size_t n = 0; n < impl_->nodes.size(); ++n) s += Frag(n);
  return s;
}

double DeviceModel::IdleTotal() {
  double s = 0;
  for (size_t n = 0; n < impl_->nodes.size(); ++n) {
    (void)Frag(n);
    s += impl_->nodes[n].idle;
  }
  return s;
}

PodDemand DeviceModel::Demand(const Resources& requests, std::span<const api::ResourceClaimSpec* const> claims) {
  Impl& m = *impl_;
  PodDemand out;
  out.milli_cpu = requests.milli_cpu;
  out.memory = requests.memory;
  std::string key = fmt::format("{}/{}", requests.milli_cpu, requests.memory);
  for (size_t c = 0; c < claims.size(); ++c) {
    const api::ResourceClaimSpec* one[] = {claims[c]};
    const WorkloadShape shape = ShapeOf(0, 0, one);
    // ShapeOf drops admin-access requests; map the rest back to their names.
    size_t shape_idx = 0;
    for (const api::DeviceRequest& request : claims[c]->devices.requests) {
      if (request.exactly && request.exactly->admin_access.value_or(false)) continue;
      if (shape_idx >= shape.requests.size()) break;
      const ShapeClaimRequest& cr = shape.requests[shape_idx++];
      PodDemand::Request r;
      r.claim = c;
      for (size_t a = 0; a < cr.alternatives.size(); ++a) {
        r.names.push_back(request.exactly ? request.name
                                          : fmt::format("{}/{}", request.name, request.first_available[a].name));
        r.tables.push_back(m.TableFor(cr.alternatives[a]));
        r.counts.push_back(cr.alternatives[a].all ? 0 : cr.alternatives[a].count);
        key += fmt::format(" {}:{}:{}", c, r.tables.back(), r.counts.back());
      }
      out.requests.push_back(std::move(r));
    }
  }
  auto [it, inserted] = m.demand_keys.emplace(std::move(key), static_cast<uint32_t>(m.demand_keys.size() + 1));
  out.key = it->second;
  return out;
}

int64_t DeviceModel::Score(size_t node, const PodDemand& demand, Packing packing) {
  Impl& m = *impl_;
  const uint64_t key = (uint64_t{demand.key} << 2) | static_cast<uint64_t>(packing);
  std::pair<uint64_t, int64_t>& slot = m.CacheSlot(static_cast<uint32_t>(node), key);
  if (slot.first == key + 1) return slot.second;
  const double now = packing == Packing::kDraPack ? Pack(node) : Frag(node);
  const size_t mark = m.log.size();
  Impl::Choice c = m.Place(static_cast<uint32_t>(node), demand, packing, rho_, now, true, false);
  m.UndoTo(mark);
  slot = {key + 1, c.score};
  return c.score;
}

alloc::DevicePreference DeviceModel::Choose(size_t node, const PodDemand& demand, Packing packing,
                                            bool leave_partitions) {
  Impl& m = *impl_;
  const double now = packing == Packing::kDraPack ? Pack(node) : Frag(node);
  const size_t mark = m.log.size();
  Impl::Choice c = m.Place(static_cast<uint32_t>(node), demand, packing, rho_, now, false, true, leave_partitions);
  m.UndoTo(mark);
  return std::move(c.preference);
}

int64_t DeviceModel::DemandMilli(size_t node, const PodDemand& demand) {
  Impl& m = *impl_;
  Impl::Node& n = m.nodes[node];
  const uint64_t key = (uint64_t{demand.key} << 2) | 3;
  std::pair<uint64_t, int64_t>& slot = m.CacheSlot(static_cast<uint32_t>(node), key);
  if (slot.first == key + 1) return slot.second;
  const int64_t before = n.free_milli;
  const size_t mark = m.log.size();
  (void)m.Place(static_cast<uint32_t>(node), demand, Packing::kNone, rho_, 0, false, false);
  const int64_t after = n.free_milli;
  m.UndoTo(mark);
  slot = {key + 1, before - after};
  return before - after;
}

}  // namespace dra::sched
