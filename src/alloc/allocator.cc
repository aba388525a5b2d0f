// The search behind Allocator::Allocate: preparation (allocator.md §4), the
// depth-first search over device slots (§5), taking and undoing devices
// (§5.3) and shared counters (§8). One `Search` object holds all per-call
// state; it is created on the stack of Allocate and never shared.
//
// Invariants of the search:
//   1. claims_[i].records holds the devices taken for claim i, in slot order;
//      every successful Take appends one record and Undo removes the last.
//   2. taking_[c] lists the claims that took candidate c exclusively.
//   3. Devices are identified by their index in candidates_, which lists the
//      devices of complete, valid pools in search order (§3.4); the index
//      order is the enumeration order, so "start after the previous pick"
//      (combinations, not permutations) is "start at index + 1".
#include "alloc/allocator.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "alloc/capacity.h"
#include "alloc/constraints.h"
#include "alloc/result.h"
#include "fmt/format.h"

namespace dra::alloc {

using quantity::Quantity;

std::string NewRandomShareId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff, lo >> 48,
                     lo & 0xffffffffffffULL);
}

std::string Reason::ToString() const {
  std::string out;
  if (!claim.empty()) out = fmt::format("claim {}, request {}: ", claim, request);
  out += message.empty() ? "cannot allocate all claims" : message;
  std::vector<std::string> parts;
  auto add = [&](int64_t n, const char* what) {
    if (n > 0) parts.push_back(fmt::format("{} {}", n, what));
  };
  add(class_selector, "rejected by class selector");
  add(request_selector, "rejected by request selector");
  add(node_selection, "not on this node");
  add(binding_conditions, "with binding conditions");
  add(in_use, "in use");
  add(taint, "tainted");
  add(counters, "without counters left");
  add(capacity, "without capacity left");
  add(constraint, "violating a constraint");
  if (needed > 0) {
    parts.insert(parts.begin(), fmt::format("needs {} device{}, {} usable", needed, needed == 1 ? "" : "s", usable));
  }
  if (!parts.empty()) out += " (" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
  return out;
}

Allocator::Allocator(Features features, AllocatedState allocated, std::vector<const api::DeviceClass*> classes,
                     const SliceIndex* slices, SelectorEvaluator* selectors, AllocatorOptions options)
    : features_(features),
      allocated_(std::move(allocated)),
      slices_(slices),
      selectors_(selectors),
      options_(std::move(options)) {
  for (const api::DeviceClass* c : classes) classes_.emplace(c->metadata.name, c);
  if (!options_.new_share_id) options_.new_share_id = NewRandomShareId;
}

const api::DeviceClass* Allocator::FindClass(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

namespace {

using CounterSets = std::map<std::string, std::map<std::string, Quantity, std::less<>>, std::less<>>;

struct Candidate {
  int pool = 0;
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  bool allocated = false;  // in AllocatedState::devices
};

// A request, or one subrequest of a firstAvailable request.
struct Entry {
  std::string name;             // "req" or "req/sub"
  std::string_view request;     // "req"
  std::string_view subrequest;  // "sub" or ""
  const api::DeviceClass* device_class = nullptr;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const std::optional<api::CapacityRequirements>* capacity = nullptr;
  bool admin_access = false;
  bool all = false;
  int64_t num_devices = 0;
  std::vector<int> all_devices;  // All mode: candidate indices
  int verdict_slot = 0;          // row of Search::verdicts_ (unique per entry of the call)
};

struct PreparedRequest {
  bool has_subrequests = false;
  std::vector<Entry> entries;
  int selected = 0;
};

struct Record {
  int request = 0;
  int entry = 0;
  int candidate = 0;
  bool multi = false;
  bool counters_added = false;
  std::optional<std::string> share_id;
  CapacityAmounts consumed;
};

struct PreparedClaim {
  const api::ResourceClaim* claim = nullptr;
  std::string name;  // namespace/name
  std::vector<PreparedRequest> requests;
  std::vector<std::unique_ptr<Constraint>> constraints;
  std::vector<Record> records;
};

enum class Outcome { kSuccess, kFail, kMaxSize, kError };
enum class Verdict : uint8_t { kYes, kClass, kRequest, kNode, kBinding };
enum class TakeResult { kTaken, kInUse, kCounters, kTaint, kConstraint, kCapacity, kError };

class Search {
 public:
  Search(const Allocator& allocator, const api::Node& node) : a_(allocator), f_(allocator.features()), node_(node) {}

  StatusOr<NodeFit> Run(std::span<const api::ResourceClaim* const> claims);

 private:
  Status BuildCandidates();
  Status Prepare(std::span<const api::ResourceClaim* const> claims);
  Status PrepareEntry(PreparedClaim& claim, int request_idx, int entry_idx, Entry& entry,
                      const std::string& device_class_name, const std::vector<api::DeviceSelector>& selectors,
                      const std::optional<bool>& admin_access, const api::EnumString<api::AllocationMode>& mode,
                      int64_t count);

  // Counting before searching: true (and reason_ set) when some request
  // cannot get enough devices even if it had the node to itself, so the
  // search would fail; false when the search must decide.
  bool ShortfallWithoutSearch();
  // Devices `entry` could take in the best case (nothing else taken in this
  // call), stopping at `enough`; `stats` (optional) counts the others by
  // cause. Not OK when a selector fails on a device the search could try.
  StatusOr<int64_t> CountUsable(int claim_idx, int request_idx, int entry_idx, int64_t enough, Reason* stats);

  Outcome Step(int claim_idx, int request_idx, int entry_idx, int64_t device_idx, bool in_subrequest);
  StatusOr<Verdict> Selectable(int candidate, int claim_idx, int request_idx, int entry_idx);
  TakeResult Take(int claim_idx, int request_idx, int entry_idx, int candidate, bool must);
  void Undo(int claim_idx);
  void CountRejection(TakeResult r);
  void NoteFailure(int claim_idx, const Entry& entry);

  const CounterSets& Available(int pool);
  CounterSets& Consumed(int pool);
  bool CountersFit(int candidate);
  void GiveBackCounters(int candidate);

  StatusOr<api::AllocationResult> BuildResult(const PreparedClaim& claim);

  // "driver/pool/device" of a candidate. Built on demand: most calls never
  // need it (errors, and lookups in maps that are usually empty).
  std::string Id(int candidate) const {
    const Candidate& c = candidates_[static_cast<size_t>(candidate)];
    const Pool& pool = pools_[static_cast<size_t>(c.pool)];
    return DeviceIdString(pool.driver, pool.name, c.device->name);
  }

  const CapacityAmounts* Aggregated(int candidate) const {
    const auto& aggregated = a_.allocated().aggregated_capacity;
    if (aggregated.empty()) return nullptr;
    auto it = aggregated.find(Id(candidate));
    return it == aggregated.end() ? nullptr : &it->second;
  }

  const Allocator& a_;
  const Features& f_;
  const api::Node& node_;
  std::vector<Pool> pools_;
  std::vector<Candidate> candidates_;
  std::vector<PreparedClaim> claims_;

  std::vector<std::vector<int>> taking_;               // per candidate
  std::vector<std::optional<CapacityAmounts>> allocating_capacity_;  // per candidate
  std::map<std::string, CounterSets, std::less<>> available_;  // keyed by pool name only (§8 quirk)
  std::map<std::string, CounterSets, std::less<>> consumed_;   // keyed by pool name only (§8 quirk)
  // Per pool index, the entries of available_ / consumed_ for its name, found
  // once per call (map nodes do not move) instead of once per device tried.
  std::vector<const CounterSets*> available_by_pool_;
  std::vector<CounterSets*> consumed_by_pool_;
  // Selectable's verdicts: verdicts_[entry.verdict_slot * candidates + candidate],
  // kUnknownVerdict until computed.
  std::vector<uint8_t> verdicts_;
  int next_verdict_slot_ = 0;

  uint64_t steps_ = 0;
  Status error_;
  Reason reason_;
  std::pair<int, int> deepest_failure_{-1, -1};
};

constexpr uint8_t kUnknownVerdict = 0xff;

Status Search::BuildCandidates() {
  DRA_ASSIGN_OR_RETURN(pools_, GatherPools(a_.slices(), node_, f_));
  size_t total = 0;
  for (const Pool& pool : pools_) {
    if (pool.incomplete || pool.invalid) continue;
    for (const api::ResourceSlice* slice : pool.slices) total += slice->spec.devices.size();
  }
  candidates_.reserve(total);
  // The allocated devices of a pool are the keys of AllocatedState::devices
  // that start with "driver/pool/": one sorted range of the set, so its device
  // names (the rest of each key) come out sorted. Looking devices up there
  // instead of building "driver/pool/device" per device saves an allocation
  // and a search of the whole set per device; `id == prefix + name` holds
  // exactly when the key is in the range and its rest equals `name`.
  const auto& allocated = a_.allocated().devices;
  std::string prefix;
  std::vector<std::string_view> allocated_names;
  for (size_t pool_idx = 0; pool_idx < pools_.size(); ++pool_idx) {
    const Pool& pool = pools_[pool_idx];
    if (pool.incomplete || pool.invalid) continue;
    allocated_names.clear();
    if (!allocated.empty()) {
      prefix.assign(pool.driver).append(1, '/').append(pool.name).append(1, '/');
      for (auto it = allocated.lower_bound(std::string_view(prefix));
           it != allocated.end() && std::string_view(*it).substr(0, prefix.size()) == prefix; ++it) {
        allocated_names.push_back(std::string_view(*it).substr(prefix.size()));
      }
    }
    for (const api::ResourceSlice* slice : pool.slices) {
      for (const api::Device& device : slice->spec.devices) {
        Candidate c{.pool = static_cast<int>(pool_idx), .slice = slice, .device = &device, .allocated = false};
        c.allocated = !allocated_names.empty() && std::binary_search(allocated_names.begin(), allocated_names.end(),
                                                                     std::string_view(device.name));
        candidates_.push_back(c);
      }
    }
  }
  taking_.resize(candidates_.size());
  allocating_capacity_.resize(candidates_.size());
  return OkStatus();
}

Status Search::PrepareEntry(PreparedClaim& claim, int request_idx, int entry_idx, Entry& entry,
                            const std::string& device_class_name, const std::vector<api::DeviceSelector>& selectors,
                            const std::optional<bool>& admin_access,
                            const api::EnumString<api::AllocationMode>& mode, int64_t count) {
  auto where = [&] { return fmt::format("claim {}, request {}", claim.name, entry.name); };
  for (size_t i = 0; i < selectors.size(); ++i) {
    if (!selectors[i].cel) {
      return InvalidArgumentError(
          fmt::format("{}: selector #{}: CEL expression empty (unsupported selector type?)", where(), i));
    }
  }
  if (admin_access.has_value() && !f_.admin_access) {
    return InvalidArgumentError(fmt::format("{}: admin access is requested, but the feature is disabled", where()));
  }
  if (device_class_name.empty()) {
    return InvalidArgumentError(fmt::format("{}: missing device class name (unsupported request type?)", where()));
  }
  entry.device_class = a_.FindClass(device_class_name);
  if (entry.device_class == nullptr) {
    return NotFoundError(fmt::format(
        "{}: could not retrieve device class {}: deviceclass.resource.k8s.io \"{}\" not found", where(),
        device_class_name, device_class_name));
  }
  entry.selectors = &selectors;
  entry.admin_access = admin_access.value_or(false);
  if (mode == api::AllocationMode::kExactCount) {
    entry.num_devices = count;
    return OkStatus();
  }
  if (!(mode == api::AllocationMode::kAll)) {
    return InvalidArgumentError(fmt::format("{}: unsupported count mode {}", where(), mode.text()));
  }
  entry.all = true;
  int claim_idx = static_cast<int>(&claim - claims_.data());
  for (size_t pool_idx = 0; pool_idx < pools_.size(); ++pool_idx) {
    const Pool& pool = pools_[pool_idx];
    if (pool.incomplete) {
      return FailedPreconditionError(fmt::format(
          "{}: asks for all devices, but resource pool {}/{} is currently being updated", where(), pool.driver,
          pool.name));
    }
    if (pool.invalid) {
      return FailedPreconditionError(fmt::format("{}: asks for all devices, but resource pool {}/{} is currently invalid",
                                                 where(), pool.driver, pool.name));
    }
  }
  for (size_t c = 0; c < candidates_.size(); ++c) {
    int candidate = static_cast<int>(c);
    DRA_ASSIGN_OR_RETURN(Verdict v, Selectable(candidate, claim_idx, request_idx, entry_idx));
    if (v != Verdict::kYes) continue;
    if (f_.consumable_capacity) {
      StatusOr<std::optional<CapacityAmounts>> fit =
          CheckCapacity(*entry.capacity, *candidates_[c].device, Aggregated(candidate), nullptr);
      if (!fit.ok() || !fit->has_value()) continue;
    }
    entry.all_devices.push_back(candidate);
  }
  entry.num_devices = static_cast<int64_t>(entry.all_devices.size());
  return OkStatus();
}

Status Search::Prepare(std::span<const api::ResourceClaim* const> claims) {
  claims_.resize(claims.size());
  for (size_t claim_idx = 0; claim_idx < claims.size(); ++claim_idx) {
    const api::ResourceClaim& claim = *claims[claim_idx];
    PreparedClaim& prepared = claims_[claim_idx];
    prepared.claim = &claim;
    prepared.name = fmt::format("{}/{}", claim.metadata.namespace_, claim.metadata.name);
    const auto& requests = claim.spec.devices.requests;
    prepared.requests.resize(requests.size());
    int64_t min_devices = 0;
    for (size_t request_idx = 0; request_idx < requests.size(); ++request_idx) {
      const api::DeviceRequest& request = requests[request_idx];
      PreparedRequest& pr = prepared.requests[request_idx];
      auto where = [&] { return fmt::format("claim {}, request {}", prepared.name, request.name); };
      if (!request.first_available.empty() && !f_.prioritized_list) {
        return InvalidArgumentError(
            fmt::format("{}: has subrequests, but the DRAPrioritizedList feature is disabled", where()));
      }
      if (!f_.consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return InvalidArgumentError(
              fmt::format("{}: has capacity requests, but the DRAConsumableCapacity feature is disabled", where()));
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (sub.capacity) {
            return InvalidArgumentError(fmt::format(
                "claim {}, subrequest {}: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                prepared.name, sub.name));
          }
        }
      }
      if (request.exactly) {
        const api::ExactDeviceRequest& ex = *request.exactly;
        Entry& e = pr.entries.emplace_back();
        e.verdict_slot = next_verdict_slot_++;
        e.name = request.name;
        e.request = request.name;
        e.tolerations = &ex.tolerations;
        e.capacity = &ex.capacity;
        DRA_RETURN_IF_ERROR(PrepareEntry(prepared, static_cast<int>(request_idx), 0, e, ex.device_class_name,
                                         ex.selectors, ex.admin_access, ex.allocation_mode, ex.count));
        min_devices += e.num_devices;
      } else if (!request.first_available.empty()) {
        pr.has_subrequests = true;
        pr.entries.resize(request.first_available.size());
        int64_t min_sub = -1;
        for (size_t sub_idx = 0; sub_idx < request.first_available.size(); ++sub_idx) {
          const api::DeviceSubRequest& sub = request.first_available[sub_idx];
          Entry& e = pr.entries[sub_idx];
          e.verdict_slot = next_verdict_slot_++;
          e.name = fmt::format("{}/{}", request.name, sub.name);
          e.request = request.name;
          e.subrequest = sub.name;
          e.tolerations = &sub.tolerations;
          e.capacity = &sub.capacity;
          DRA_RETURN_IF_ERROR(PrepareEntry(prepared, static_cast<int>(request_idx), static_cast<int>(sub_idx), e,
                                           sub.device_class_name, sub.selectors, std::nullopt, sub.allocation_mode,
                                           sub.count));
          if (min_sub < 0 || e.num_devices < min_sub) min_sub = e.num_devices;
        }
        min_devices += std::max<int64_t>(min_sub, 0);
      } else {
        return InvalidArgumentError(
            fmt::format("{}: missing device class name (unsupported request type?)", where()));
      }
    }
    if (min_devices > kMaxDevicesPerClaim) {
      return InvalidArgumentError(fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}",
                                              prepared.name, min_devices, kMaxDevicesPerClaim));
    }
    const auto& constraints = claim.spec.devices.constraints;
    for (size_t i = 0; i < constraints.size(); ++i) {
      std::unique_ptr<Constraint> c = NewConstraint(constraints[i], f_.list_type_attributes);
      if (c == nullptr) {
        return InvalidArgumentError(
            fmt::format("claim {}, constraint #{}: empty constraint (unsupported constraint type?)", prepared.name, i));
      }
      prepared.constraints.push_back(std::move(c));
    }
  }
  return OkStatus();
}

StatusOr<Verdict> Search::Selectable(int candidate, int claim_idx, int request_idx, int entry_idx) {
  const Candidate& c = candidates_[static_cast<size_t>(candidate)];
  const api::Device& device = *c.device;
  if (!f_.device_binding_and_status && !device.rare->binding_conditions.empty()) return Verdict::kBinding;
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];
  // One byte per (entry, candidate) of this call, instead of a hash map.
  const size_t slot = static_cast<size_t>(entry.verdict_slot) * candidates_.size() + static_cast<size_t>(candidate);
  if (slot >= verdicts_.size()) {
    verdicts_.resize(static_cast<size_t>(entry.verdict_slot + 1) * candidates_.size(), kUnknownVerdict);
  }
  if (verdicts_[slot] != kUnknownVerdict) return static_cast<Verdict>(verdicts_[slot]);

  const std::string& driver = c.slice->spec.driver;
  // `is_class`: the owner in messages is the class, else the claim (built
  // only for an error).
  auto evaluate = [&](const std::vector<api::DeviceSelector>& selectors, bool is_class) -> StatusOr<bool> {
    for (size_t i = 0; i < selectors.size(); ++i) {
      if (!selectors[i].cel) continue;  // rejected during preparation
      StatusOr<bool> match = a_.selectors().Evaluate(selectors[i].cel->expression, device, driver);
      if (!match.ok()) {
        std::string owner = is_class ? "class " + entry.device_class->metadata.name : "claim " + claim.name;
        if (match.status().code() == StatusCode::kInvalidArgument) {
          return InvalidArgumentError(
              fmt::format("{}: selector #{}: CEL compile error: {}", owner, i, match.status().message()));
        }
        return FailedPreconditionError(fmt::format("{}: selector #{} on device {}: CEL runtime error: {}", owner, i,
                                                   Id(candidate), match.status().message()));
      }
      if (!*match) return false;
    }
    return true;
  };
  Verdict verdict = Verdict::kYes;
  DRA_ASSIGN_OR_RETURN(bool class_ok, evaluate(entry.device_class->spec.selectors, true));
  if (!class_ok) {
    verdict = Verdict::kClass;
  } else {
    DRA_ASSIGN_OR_RETURN(bool request_ok, evaluate(*entry.selectors, false));
    if (!request_ok) {
      verdict = Verdict::kRequest;
    } else if (c.slice->spec.per_device_node_selection.value_or(false)) {
      const api::DeviceRareFields& rare = device.rare.get();
      DRA_ASSIGN_OR_RETURN(bool on_node, ScopeMatches(rare.node_name, rare.all_nodes, rare.node_selector, node_,
                                                      "device " + Id(candidate)));
      if (!on_node) verdict = Verdict::kNode;
    }
  }
  verdicts_[slot] = static_cast<uint8_t>(verdict);
  return verdict;
}

CounterSets& Search::Consumed(int pool_idx) {
  if (consumed_by_pool_.empty()) consumed_by_pool_.resize(pools_.size(), nullptr);
  CounterSets*& cached = consumed_by_pool_[static_cast<size_t>(pool_idx)];
  if (cached == nullptr) cached = &consumed_[pools_[static_cast<size_t>(pool_idx)].name];
  return *cached;
}

const CounterSets& Search::Available(int pool_idx) {
  if (available_by_pool_.empty()) available_by_pool_.resize(pools_.size(), nullptr);
  const CounterSets*& cached = available_by_pool_[static_cast<size_t>(pool_idx)];
  if (cached != nullptr) return *cached;
  const Pool& pool = pools_[static_cast<size_t>(pool_idx)];
  auto it = available_.find(pool.name);
  if (it != available_.end()) {
    cached = &it->second;
    return *cached;
  }
  CounterSets sets;
  for (const api::ResourceSlice* s : pool.counter_slices) {
    for (const api::CounterSet& set : s->spec.shared_counters) {
      auto& counters = sets[set.name];
      for (const auto& [name, counter] : set.counters) counters.insert_or_assign(std::string(name.view()), counter.value);
    }
  }
  const AllocatedState& state = a_.allocated();
  const bool nothing_allocated =
      state.devices.empty() && state.shared_device_ids.empty() && state.aggregated_capacity.empty();
  auto subtract = [&](const std::vector<const api::ResourceSlice*>& slices) {
    for (const api::ResourceSlice* s : slices) {
      for (const api::Device& d : s->spec.devices) {
        if (d.rare->consumes_counters.empty()) continue;
        if (nothing_allocated || !a_.allocated().InUseForCounters(DeviceIdString(pool.driver, pool.name, d.name))) {
          continue;
        }
        for (const api::DeviceCounterConsumption& use : d.rare->consumes_counters) {
          auto set = sets.find(use.counter_set);
          if (set == sets.end()) continue;
          for (const auto& [name, counter] : use.counters) {
            auto have = set->second.find(name.view());
            if (have == set->second.end()) continue;
            StatusOr<Quantity> left = have->second.Sub(counter.value);
            if (left.ok()) have->second = *left;
          }
        }
      }
    }
  };
  subtract(pool.slices);
  subtract(pool.other_slices);
  cached = &available_.emplace(pool.name, std::move(sets)).first->second;
  return *cached;
}

bool Search::CountersFit(int candidate) {
  const Candidate& c = candidates_[static_cast<size_t>(candidate)];
  const CounterSets& available = Available(c.pool);
  CounterSets& consumed = Consumed(c.pool);
  for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
    auto& set = consumed[use.counter_set];
    for (const auto& [name, counter] : use.counters) {
      auto it = set.find(name.view());
      if (it == set.end()) {
        set.emplace(std::string(name.view()), counter.value);
        continue;
      }
      StatusOr<Quantity> sum = it->second.Add(counter.value);
      if (sum.ok()) it->second = *sum;
    }
  }
  // Every counter of every set of the pool is checked, not only D's (§8).
  for (const auto& [set_name, counters] : available) {
    auto used_set = consumed.find(set_name);
    for (const auto& [name, have] : counters) {
      Quantity used;
      if (used_set != consumed.end()) {
        auto u = used_set->second.find(name);
        if (u != used_set->second.end()) used = u->second;
      }
      if (have.Compare(used) < 0) {
        GiveBackCounters(candidate);
        return false;
      }
    }
  }
  return true;
}

void Search::GiveBackCounters(int candidate) {
  const Candidate& c = candidates_[static_cast<size_t>(candidate)];
  CounterSets& consumed = Consumed(c.pool);
  for (const api::DeviceCounterConsumption& use : c.device->rare->consumes_counters) {
    auto& set = consumed[use.counter_set];
    for (const auto& [name, counter] : use.counters) {
      auto it = set.find(name.view());
      if (it == set.end()) continue;
      StatusOr<Quantity> left = it->second.Sub(counter.value);
      if (left.ok()) it->second = *left;
    }
  }
}

TakeResult Search::Take(int claim_idx, int request_idx, int entry_idx, int candidate, bool must) {
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];
  const Candidate& c = candidates_[static_cast<size_t>(candidate)];
  const api::Device& device = *c.device;
  std::vector<int>& takers = taking_[static_cast<size_t>(candidate)];
  const bool multi = f_.consumable_capacity && device.allow_multiple_allocations.value_or(false);
  const bool taken_by_this = std::find(takers.begin(), takers.end(), claim_idx) != takers.end();

  if (!multi && entry.admin_access && taken_by_this) return TakeResult::kInUse;
  if (!entry.admin_access && (c.allocated || !takers.empty())) return TakeResult::kInUse;
  const auto& consumes = device.rare->consumes_counters;
  if (!f_.partitionable_devices && !consumes.empty()) return TakeResult::kCounters;

  bool counters_added = false;
  const CapacityAmounts* aggregated = Aggregated(candidate);
  const bool capacity_in_use = multi && (aggregated != nullptr || allocating_capacity_[static_cast<size_t>(candidate)]);
  if (!capacity_in_use && !consumes.empty()) {
    if (!CountersFit(candidate)) return TakeResult::kCounters;
    counters_added = true;
  }
  // From here on a refusal leaves the counters consumed (§5.3 quirk).
  if (f_.device_taints && !TaintsAllow(device, *entry.tolerations)) return TakeResult::kTaint;

  for (size_t i = 0; i < claim.constraints.size(); ++i) {
    if (claim.constraints[i]->Add(entry.request, entry.subrequest, device, c.slice->spec.driver)) continue;
    for (size_t j = 0; j < i; ++j) {
      claim.constraints[j]->Remove(entry.request, entry.subrequest, device, c.slice->spec.driver);
    }
    if (must) {
      error_ = FailedPreconditionError(fmt::format(
          "claim {}, request {}: cannot add device {} because a claim constraint would not be satisfied", claim.name,
          entry.name, Id(candidate)));
      return TakeResult::kError;
    }
    return TakeResult::kConstraint;
  }
  if (!multi) takers.push_back(claim_idx);

  Record record{.request = request_idx, .entry = entry_idx, .candidate = candidate, .multi = multi,
                .counters_added = counters_added && !multi, .share_id = std::nullopt, .consumed = {}};
  if (f_.consumable_capacity) {
    auto& allocating = allocating_capacity_[static_cast<size_t>(candidate)];
    StatusOr<std::optional<CapacityAmounts>> fit =
        CheckCapacity(*entry.capacity, device, aggregated, allocating ? &*allocating : nullptr);
    // Not undone: constraints and the taken mark stay (§5.3 step 8 quirk).
    if (!fit.ok() || !fit->has_value()) return TakeResult::kCapacity;
    if (multi) {
      record.consumed = std::move(**fit);
      record.share_id = a_.options().new_share_id();
      if (!allocating) allocating.emplace();
      for (const auto& [name, amount] : record.consumed) {
        Quantity* sum = allocating->find(name);
        if (sum == nullptr) {
          allocating->insert_or_assign(name, amount);
        } else if (StatusOr<Quantity> s = sum->Add(amount); s.ok()) {
          *sum = *s;
        }
      }
    }
  }
  claim.records.push_back(std::move(record));
  return TakeResult::kTaken;
}

void Search::Undo(int claim_idx) {
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  Record record = std::move(claim.records.back());
  claim.records.pop_back();
  const Entry& entry = claim.requests[static_cast<size_t>(record.request)].entries[static_cast<size_t>(record.entry)];
  const Candidate& c = candidates_[static_cast<size_t>(record.candidate)];
  for (auto& constraint : claim.constraints) {
    constraint->Remove(entry.request, entry.subrequest, *c.device, c.slice->spec.driver);
  }
  if (record.multi) {
    auto& allocating = allocating_capacity_[static_cast<size_t>(record.candidate)];
    if (allocating) {
      for (const auto& [name, amount] : record.consumed) {
        Quantity* sum = allocating->find(name);
        if (sum == nullptr) continue;
        if (StatusOr<Quantity> s = sum->Sub(amount); s.ok()) *sum = *s;
      }
    }
    return;  // counters of shared devices are never given back (§5.3 quirk)
  }
  std::vector<int>& takers = taking_[static_cast<size_t>(record.candidate)];
  auto it = std::find(takers.rbegin(), takers.rend(), claim_idx);
  if (it != takers.rend()) takers.erase(std::next(it).base());
  if (record.counters_added) GiveBackCounters(record.candidate);
}

void Search::CountRejection(TakeResult r) {
  switch (r) {
    case TakeResult::kInUse: ++reason_.in_use; break;
    case TakeResult::kCounters: ++reason_.counters; break;
    case TakeResult::kTaint: ++reason_.taint; break;
    case TakeResult::kConstraint: ++reason_.constraint; break;
    case TakeResult::kCapacity: ++reason_.capacity; break;
    case TakeResult::kTaken:
    case TakeResult::kError: break;
  }
}

void Search::NoteFailure(int claim_idx, const Entry& entry) {
  std::pair<int, int> here{claim_idx, 0};
  // Find the request index of `entry` (small loops; only on failure).
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  for (size_t j = 0; j < claim.requests.size(); ++j) {
    for (const Entry& e : claim.requests[j].entries) {
      if (&e == &entry) here.second = static_cast<int>(j);
    }
  }
  if (here >= deepest_failure_) {
    deepest_failure_ = here;
    reason_.claim = claim.name;
    reason_.request = entry.name;
  }
}

StatusOr<int64_t> Search::CountUsable(int claim_idx, int request_idx, int entry_idx, int64_t enough, Reason* stats) {
  const PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  const Entry& entry = claim.requests[static_cast<size_t>(request_idx)].entries[static_cast<size_t>(entry_idx)];
  Reason ignored;
  Reason& count = stats != nullptr ? *stats : ignored;
  int64_t usable = 0;
  // Every check below only gets stricter as the search takes devices, so
  // `usable` bounds what the search can ever take for this entry.
  for (size_t c = 0; c < candidates_.size() && usable < enough; ++c) {
    const int candidate = static_cast<int>(c);
    const Candidate& cand = candidates_[c];
    // Checked before any selector runs, as in Step: the search never
    // evaluates selectors on devices allocated to other claims.
    if (cand.allocated && !entry.admin_access) {
      ++count.in_use;
      continue;
    }
    DRA_ASSIGN_OR_RETURN(Verdict verdict, Selectable(candidate, claim_idx, request_idx, entry_idx));
    switch (verdict) {
      case Verdict::kYes: break;
      case Verdict::kClass: ++count.class_selector; continue;
      case Verdict::kRequest: ++count.request_selector; continue;
      case Verdict::kNode: ++count.node_selection; continue;
      case Verdict::kBinding: ++count.binding_conditions; continue;
    }
    const api::Device& device = *cand.device;
    const bool multi = f_.consumable_capacity && device.allow_multiple_allocations.value_or(false);
    const CapacityAmounts* aggregated = Aggregated(candidate);
    if (f_.consumable_capacity) {
      StatusOr<std::optional<CapacityAmounts>> fit = CheckCapacity(*entry.capacity, device, aggregated, nullptr);
      if (!fit.ok() || !fit->has_value()) {
        ++count.capacity;
        continue;
      }
    }
    const auto& consumes = device.rare->consumes_counters;
    if (!consumes.empty() && !(multi && aggregated != nullptr)) {
      // Nothing is consumed in this call yet: the most the counters allow.
      if (!f_.partitionable_devices || !CountersFit(candidate)) {
        ++count.counters;
        continue;
      }
      GiveBackCounters(candidate);
    }
    if (f_.device_taints && !TaintsAllow(device, *entry.tolerations)) {
      ++count.taint;
      continue;
    }
    ++usable;
  }
  return usable;
}

bool Search::ShortfallWithoutSearch() {
  // Find the first request (in search order) without enough usable devices;
  // every subrequest of a firstAvailable request must fall short.
  int short_claim = -1, short_request = -1;
  for (size_t ci = 0; ci < claims_.size() && short_claim < 0; ++ci) {
    const PreparedClaim& claim = claims_[ci];
    for (size_t ri = 0; ri < claim.requests.size() && short_claim < 0; ++ri) {
      bool all_short = true;
      const auto& entries = claim.requests[ri].entries;
      for (size_t ei = 0; ei < entries.size() && all_short; ++ei) {
        const Entry& e = entries[ei];
        if (e.all) {
          if (!e.all_devices.empty()) all_short = false;
          continue;
        }
        StatusOr<int64_t> usable =
            CountUsable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(ei), e.num_devices, nullptr);
        if (!usable.ok()) return false;  // the search reports it, or not, as upstream does
        if (*usable >= e.num_devices) all_short = false;
      }
      if (all_short) {
        short_claim = static_cast<int>(ci);
        short_request = static_cast<int>(ri);
      }
    }
  }
  if (short_claim < 0) return false;

  // The search would fail, but upstream's search could meet an error first
  // (a selector failing on some device it tries, an All-mode constraint
  // violation). Answer without searching only when no such error is possible.
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const PreparedClaim& claim = claims_[ci];
    for (size_t ri = 0; ri < claim.requests.size(); ++ri) {
      const auto& entries = claim.requests[ri].entries;
      for (size_t ei = 0; ei < entries.size(); ++ei) {
        const Entry& e = entries[ei];
        if (e.all) {
          if (!e.all_devices.empty() && !claim.constraints.empty()) return false;
          continue;
        }
        StatusOr<int64_t> usable = CountUsable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(ei),
                                               std::numeric_limits<int64_t>::max(), nullptr);
        if (!usable.ok()) return false;
      }
    }
  }

  // Why: the devices of the short request by cause (each device once).
  const PreparedClaim& claim = claims_[static_cast<size_t>(short_claim)];
  const PreparedRequest& request = claim.requests[static_cast<size_t>(short_request)];
  const Entry& last = request.entries.back();
  reason_ = Reason{};
  reason_.claim = claim.name;
  reason_.request = request.has_subrequests ? std::string(last.request) : last.name;
  if (!last.all) {
    StatusOr<int64_t> usable = CountUsable(short_claim, short_request, static_cast<int>(request.entries.size() - 1),
                                           std::numeric_limits<int64_t>::max(), &reason_);
    if (usable.ok()) {
      reason_.needed = last.num_devices;
      reason_.usable = *usable;
    }
  }
  return true;
}

Outcome Search::Step(int claim_idx, int request_idx, int entry_idx, int64_t device_idx, bool in_subrequest) {
  ++steps_;
  if (a_.options().max_steps != 0 && steps_ > a_.options().max_steps) {
    error_ = ResourceExhaustedError(
        fmt::format("allocation search exceeded {} steps; giving up", a_.options().max_steps));
    return Outcome::kError;
  }
  if (claim_idx == static_cast<int>(claims_.size())) return Outcome::kSuccess;
  PreparedClaim& claim = claims_[static_cast<size_t>(claim_idx)];
  if (request_idx == static_cast<int>(claim.requests.size())) {
    Outcome o = Step(claim_idx + 1, 0, 0, 0, false);
    return o == Outcome::kMaxSize ? Outcome::kFail : o;
  }
  PreparedRequest& request = claim.requests[static_cast<size_t>(request_idx)];
  if (request.has_subrequests && !in_subrequest) {
    bool all_max_size = true;
    for (size_t sub = 0; sub < request.entries.size(); ++sub) {
      Outcome o = Step(claim_idx, request_idx, static_cast<int>(sub), 0, true);
      if (o == Outcome::kSuccess) {
        request.selected = static_cast<int>(sub);
        return o;
      }
      if (o == Outcome::kError) return o;
      if (o != Outcome::kMaxSize) all_max_size = false;
    }
    return all_max_size ? Outcome::kMaxSize : Outcome::kFail;
  }
  const Entry& entry = request.entries[static_cast<size_t>(entry_idx)];
  if (entry.all && entry.all_devices.empty()) {
    NoteFailure(claim_idx, entry);
    return Outcome::kFail;
  }
  if (device_idx == entry.num_devices) return Step(claim_idx, request_idx + 1, 0, 0, false);
  if (static_cast<int64_t>(claim.records.size()) + entry.num_devices - device_idx > kMaxDevicesPerClaim) {
    return Outcome::kMaxSize;
  }

  if (entry.all) {
    int candidate = entry.all_devices[static_cast<size_t>(device_idx)];
    TakeResult t = Take(claim_idx, request_idx, entry_idx, candidate, true);
    if (t == TakeResult::kError) return Outcome::kError;
    if (t != TakeResult::kTaken) {
      CountRejection(t);
      NoteFailure(claim_idx, entry);
      return Outcome::kFail;
    }
    Outcome o = Step(claim_idx, request_idx, entry_idx, device_idx + 1, in_subrequest);
    if (o != Outcome::kSuccess) Undo(claim_idx);
    return o;
  }

  size_t start = device_idx > 0 ? static_cast<size_t>(claim.records.back().candidate) + 1 : 0;
  for (size_t c = start; c < candidates_.size(); ++c) {
    int candidate = static_cast<int>(c);
    const Candidate& cand = candidates_[c];
    const std::vector<int>& takers = taking_[c];
    if (entry.admin_access) {
      if (std::find(takers.begin(), takers.end(), claim_idx) != takers.end()) {
        ++reason_.in_use;
        continue;
      }
    } else if (cand.allocated || !takers.empty()) {
      ++reason_.in_use;
      continue;
    }
    StatusOr<Verdict> verdict = Selectable(candidate, claim_idx, request_idx, entry_idx);
    if (!verdict.ok()) {
      error_ = verdict.status();
      return Outcome::kError;
    }
    switch (*verdict) {
      case Verdict::kYes: break;
      case Verdict::kClass: ++reason_.class_selector; continue;
      case Verdict::kRequest: ++reason_.request_selector; continue;
      case Verdict::kNode: ++reason_.node_selection; continue;
      case Verdict::kBinding: ++reason_.binding_conditions; continue;
    }
    if (f_.consumable_capacity) {
      const auto& allocating = allocating_capacity_[c];
      StatusOr<std::optional<CapacityAmounts>> fit =
          CheckCapacity(*entry.capacity, *cand.device, Aggregated(candidate), allocating ? &*allocating : nullptr);
      if (!fit.ok() || !fit->has_value()) {
        ++reason_.capacity;
        continue;
      }
    }
    TakeResult t = Take(claim_idx, request_idx, entry_idx, candidate, false);
    if (t == TakeResult::kError) return Outcome::kError;
    if (t != TakeResult::kTaken) {
      CountRejection(t);
      continue;
    }
    Outcome o = Step(claim_idx, request_idx, entry_idx, device_idx + 1, in_subrequest);
    if (o == Outcome::kSuccess) return o;
    Undo(claim_idx);
    if (o == Outcome::kError || o == Outcome::kMaxSize) return o;
  }
  NoteFailure(claim_idx, entry);
  return Outcome::kFail;
}

StatusOr<api::AllocationResult> Search::BuildResult(const PreparedClaim& claim) {
  api::AllocationResult result;
  std::vector<TakenDevice> taken;
  for (const Record& record : claim.records) {
    const Entry& entry = claim.requests[static_cast<size_t>(record.request)].entries[static_cast<size_t>(record.entry)];
    const Candidate& c = candidates_[static_cast<size_t>(record.candidate)];
    const Pool& pool = pools_[static_cast<size_t>(c.pool)];
    api::DeviceRequestAllocationResult r;
    r.request = entry.name;
    r.driver = pool.driver;
    r.pool = pool.name;
    r.device = c.device->name;
    if (entry.admin_access) r.admin_access = true;
    r.tolerations = *entry.tolerations;
    if (f_.device_binding_and_status) {
      r.binding_conditions = c.device->rare->binding_conditions;
      r.binding_failure_conditions = c.device->rare->binding_failure_conditions;
    }
    if (record.multi) {
      r.share_id = record.share_id;
      r.consumed_capacity = record.consumed;
    }
    result.devices.results.push_back(std::move(r));
    taken.push_back({.slice = c.slice, .device = c.device});
  }
  std::vector<AllocatedRequest> requests;
  for (const PreparedRequest& request : claim.requests) {
    const Entry& e = request.entries[static_cast<size_t>(request.selected)];
    requests.push_back({.request = e.request, .subrequest = e.subrequest, .device_class = e.device_class});
  }
  result.devices.config = BuildConfig(*claim.claim, requests);
  DRA_ASSIGN_OR_RETURN(result.node_selector, BuildNodeSelector(taken, node_.metadata.name, claim.claim->metadata.name));
  return result;
}

StatusOr<NodeFit> Search::Run(std::span<const api::ResourceClaim* const> claims) {
  DRA_RETURN_IF_ERROR(BuildCandidates());
  DRA_RETURN_IF_ERROR(Prepare(claims));
  Outcome o = ShortfallWithoutSearch() ? Outcome::kFail : Step(0, 0, 0, 0, false);
  NodeFit fit;
  fit.steps = steps_;
  if (o == Outcome::kError) return error_;
  if (o == Outcome::kSuccess) {
    fit.fits = true;
    for (const PreparedClaim& claim : claims_) {
      DRA_ASSIGN_OR_RETURN(api::AllocationResult r, BuildResult(claim));
      fit.results.push_back(std::move(r));
    }
    return fit;
  }
  fit.reason = std::move(reason_);
  std::vector<std::string> invalid;
  for (const Pool& pool : pools_) {
    if (pool.invalid) invalid.push_back(fmt::format("{}/{}: {}", pool.driver, pool.name, pool.invalid_reason));
  }
  if (!invalid.empty()) {
    fit.reason.invalid_pools = true;
    fit.reason.message = fmt::format("invalid resource pools were encountered: {}", fmt::join(invalid, "; "));
  } else {
    fit.reason.message = "cannot allocate all claims";
  }
  return fit;
}

}  // namespace

StatusOr<NodeFit> Allocator::Allocate(const api::Node& node, std::span<const api::ResourceClaim* const> claims) const {
  Search search(*this, node);
  return search.Run(claims);
}

}  // namespace dra::alloc
