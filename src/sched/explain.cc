// Explains pending pods: runs the queue one pod at a time with Schedule (so a
// pod sees exactly the placements `dractl schedule` makes before its turn),
// then turns each node's rejection into a NodeCause. For DynamicResources the
// allocator is asked again on the node (Allocator::Allocate gives the request
// that failed) and the node's devices are counted for that request with the
// same CEL evaluator the allocator uses.
#include "sched/explain.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <re2/re2.h>

#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "alloc/pools.h"
#include "base/suggest.h"
#include "quantity/quantity.h"
#include "sched/extended.h"
#include "sched/fragmentation.h"
#include "sched/gang.h"
#include "sched/node_filters.h"
#include "sched/pod_claims.h"
#include "sched/resources.h"

namespace dra::sched {
namespace {

bool IsPending(const api::Pod& pod) {
  if (!pod.spec.node_name.empty() || !pod.metadata.deletion_timestamp.empty()) return false;
  return !(pod.status.phase == api::PodPhase::kSucceeded || pod.status.phase == api::PodPhase::kFailed);
}

// One device of a node's usable pools.
struct NodeDevice {
  const api::Device* device = nullptr;
  std::string driver;
  std::string id;  // "driver/pool/device"
};

std::vector<NodeDevice> DevicesOn(const alloc::SliceIndex& index, const api::Node& node,
                                  const alloc::Features& features) {
  std::vector<NodeDevice> out;
  StatusOr<std::vector<alloc::Pool>> pools = alloc::GatherPools(index, node, features);
  if (!pools.ok()) return out;
  for (const alloc::Pool& pool : *pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const api::ResourceSlice* slice : pool.slices) {
      for (const api::Device& d : slice->spec.devices) {
        out.push_back({&d, slice->spec.driver, alloc::DeviceIdString(slice->spec.driver, pool.name, d.name)});
      }
    }
  }
  return out;
}

// The part of a claim's request the allocator names in Reason::request.
struct RequestSpec {
  std::string base;  // the request's name
  std::string device_class;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  int64_t count = 1;
  bool all = false;
  size_t request_index = 0;
  std::optional<size_t> sub_index;  // firstAvailable

  // The field path of the request's selectors, relative to the claim spec.
  std::string Path() const {
    return sub_index ? fmt::format("devices.requests[{}].firstAvailable[{}].selectors", request_index, *sub_index)
                     : fmt::format("devices.requests[{}].exactly.selectors", request_index);
  }
};

std::optional<RequestSpec> FindRequest(const api::ResourceClaim& claim, std::string_view name) {
  const auto& requests = claim.spec.devices.requests;
  std::string_view base = name.substr(0, name.find('/'));
  std::string_view sub = name.size() > base.size() ? name.substr(base.size() + 1) : std::string_view();
  for (size_t ri = 0; ri < requests.size(); ++ri) {
    const api::DeviceRequest& r = requests[ri];
    if (r.name != base) continue;
    if (r.exactly) {
      return RequestSpec{.base = r.name,
                         .device_class = r.exactly->device_class_name,
                         .selectors = &r.exactly->selectors,
                         .count = r.exactly->count == 0 ? 1 : r.exactly->count,
                         .all = r.exactly->allocation_mode == api::AllocationMode::kAll,
                         .request_index = ri};
    }
    for (size_t si = 0; si < r.first_available.size(); ++si) {
      const api::DeviceSubRequest& s = r.first_available[si];
      if (!sub.empty() && s.name != sub) continue;
      return RequestSpec{.base = r.name,
                         .device_class = s.device_class_name,
                         .selectors = &s.selectors,
                         .count = s.count == 0 ? 1 : s.count,
                         .all = s.allocation_mode == api::AllocationMode::kAll,
                         .request_index = ri,
                         .sub_index = si};
    }
  }
  return std::nullopt;
}

bool Passes(alloc::SelectorEvaluator& eval, const std::vector<api::DeviceSelector>& selectors,
            const api::Device& device, std::string_view driver) {
  for (const api::DeviceSelector& s : selectors) {
    if (!s.cel) continue;
    StatusOr<bool> ok = eval.Evaluate(s.cel->expression, device, driver);
    if (!ok.ok() || !*ok) return false;
  }
  return true;
}

const api::DeviceAttribute* FindAttribute(const api::Device& device, std::string_view driver,
                                          std::string_view qualified) {
  if (const api::DeviceAttribute* a = device.attributes.find(qualified)) return a;
  if (qualified.size() > driver.size() + 1 && qualified.substr(0, driver.size()) == driver &&
      qualified[driver.size()] == '/') {
    return device.attributes.find(qualified.substr(driver.size() + 1));
  }
  return nullptr;
}

std::string AttributeText(const api::DeviceAttribute& a) {
  struct V {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const api::InternedString& v) const { return v.str(); }
    std::string operator()(const api::DeviceAttribute::Version& v) const { return v.text.str(); }
    std::string operator()(const api::Box<api::DeviceAttribute::IntList>& v) const {
      return fmt::format("[{}]", fmt::join(v->values, ","));
    }
    std::string operator()(const api::Box<api::DeviceAttribute::BoolList>& v) const {
      std::vector<std::string> parts;
      for (bool b : v->values) parts.push_back(b ? "true" : "false");
      return fmt::format("[{}]", fmt::join(parts, ","));
    }
    std::string operator()(const api::Box<api::DeviceAttribute::StringList>& v) const {
      std::vector<std::string> parts;
      for (const auto& s : v->values) parts.push_back(s.str());
      return fmt::format("[{}]", fmt::join(parts, ","));
    }
    std::string operator()(const api::Box<api::DeviceAttribute::VersionList>& v) const {
      std::vector<std::string> parts;
      for (const auto& s : v->values) parts.push_back(s.str());
      return fmt::format("[{}]", fmt::join(parts, ","));
    }
  };
  return std::visit(V{}, a.value);
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// One buffer per line: a pod that fits nowhere has a line per node.
std::string RenderNodeCause(const NodeCause& c) {
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, FMT_COMPILE("node {}: "), c.node);
  switch (c.kind) {
    case CauseKind::kNodeFilter:
    case CauseKind::kClaimNotAvailable:
    case CauseKind::kInvalidPools:
      fmt::format_to(it, FMT_COMPILE("{}: {}"), c.plugin, fmt::join(c.reasons, "; "));
      for (size_t i = 0; i < c.shortages.size(); ++i) {
        const ResourceShortage& r = c.shortages[i];
        fmt::format_to(it, FMT_COMPILE("{}{}: requested {}, free {} of {}"), i == 0 ? " (" : "; ", r.resource,
                       r.requested, r.free, r.allocatable);
      }
      if (!c.shortages.empty()) out.push_back(')');
      return fmt::to_string(out);
    default: break;
  }
  fmt::format_to(it, FMT_COMPILE("claim {} request {}: "), c.claim, c.request);
  // Devices the request's own selectors turn down are counted apart: "0
  // match" would blame the class.
  if (c.all_mode) {
    fmt::format_to(it, FMT_COMPILE("all {} matching class {} wanted"), c.matching, c.device_class);
  } else if (c.class_matching != c.matching) {
    fmt::format_to(it, FMT_COMPILE("{} wanted, {} match class {}, {} of them pass the request's selectors"), c.wanted,
                   c.class_matching, c.device_class, c.matching);
  } else {
    fmt::format_to(it, FMT_COMPILE("{} wanted, {} match class {}"), c.wanted, c.matching, c.device_class);
  }
  // What keeps matching devices from use, in parentheses.
  bool open = false;
  auto next = [&] {
    out.append(std::string_view(open ? ", " : " ("));
    open = true;
  };
  if (c.in_use > 0) {
    next();
    fmt::format_to(it, FMT_COMPILE("{} in use by "), c.in_use);
    for (size_t i = 0; i < c.holders.size(); ++i) {
      if (i > 0) out.append(std::string_view(", "));
      out.append(c.holders[i].claim);
    }
  }
  if (c.tainted > 0) {
    next();
    fmt::format_to(it, FMT_COMPILE("{} tainted"), c.tainted);
  }
  if (c.no_counters > 0) {
    next();
    fmt::format_to(it, FMT_COMPILE("{} without counters left"), c.no_counters);
  }
  if (c.incompatible > 0) {
    next();
    fmt::format_to(it, FMT_COMPILE("{} incompatible with devices sharing their counter set"), c.incompatible);
  }
  if (c.no_capacity > 0) {
    next();
    fmt::format_to(it, FMT_COMPILE("{} without capacity left"), c.no_capacity);
  }
  if (open) out.push_back(')');
  switch (c.kind) {
    case CauseKind::kDevicesUnusable: fmt::format_to(it, FMT_COMPILE(", {} usable"), c.usable); break;
    case CauseKind::kConstraint:
      fmt::format_to(it, FMT_COMPILE(", {} leaves at most {}"), c.constraint, c.constraint_at_most);
      break;
    case CauseKind::kNoCombination:
      fmt::format_to(it, FMT_COMPILE(", {} usable, but no combination of devices satisfies the claim"), c.usable);
      break;
    default: break;
  }
  return fmt::to_string(out);
}

// The fields of a NodeCause its summary texts are made of: nodes with equal
// keys share their texts, so a run of like nodes renders them once.
struct SummaryKey {
  CauseKind kind = CauseKind::kNodeFilter;
  const std::vector<std::string>* reasons = nullptr;  // the kinds up to kInvalidPools
  bool all_mode = false;
  int64_t wanted = 0;
  std::string_view device_class, claim, request, constraint;

  static SummaryKey Of(const NodeCause& c) {
    return {.kind = c.kind,
            .reasons = &c.reasons,
            .all_mode = c.all_mode,
            .wanted = c.wanted,
            .device_class = c.device_class,
            .claim = c.claim,
            .request = c.request,
            .constraint = c.constraint};
  }
  bool operator==(const SummaryKey& o) const {
    return kind == o.kind && *reasons == *o.reasons && all_mode == o.all_mode && wanted == o.wanted &&
           device_class == o.device_class && claim == o.claim && request == o.request && constraint == o.constraint;
  }
};

// A resource amount as the API writes it: cpu in cores or millicores,
// memory and storage in binary units, counts as they are.
std::string ResourceText(std::string_view resource, int64_t amount) {
  if (resource == "cpu") return quantity::Quantity::FromMilli(amount).String();
  if (resource == "memory" || resource == "ephemeral-storage" || resource.starts_with("hugepages-")) {
    return quantity::Quantity::FromInt(amount, quantity::Format::kBinarySI).String();
  }
  return fmt::format("{}", amount);
}

// The numbers behind NodeResourcesFit's texts ("Insufficient cpu", "Too
// many pods", "Insufficient <resource>") on a node.
std::vector<ResourceShortage> Shortages(const std::vector<std::string>& reasons, const Resources& pod,
                                        const Resources& used, const Resources& allocatable) {
  std::vector<ResourceShortage> out;
  for (const std::string& reason : reasons) {
    std::string resource;
    if (reason == kReasonTooManyPods) {
      resource = "pods";
    } else if (reason.starts_with("Insufficient ")) {
      resource = reason.substr(13);
    } else {
      continue;
    }
    const int64_t a = allocatable.Get(resource);
    out.push_back(ResourceShortage{.resource = resource,
                                   .requested = ResourceText(resource, resource == "pods" ? 1 : pod.Get(resource)),
                                   .free = ResourceText(resource, a - used.Get(resource)),
                                   .allocatable = ResourceText(resource, a)});
  }
  return out;
}

// The summary texts of a cause ("have fewer than 2 free devices matching class X").
std::vector<std::string> SummaryTexts(const SummaryKey& c) {
  switch (c.kind) {
    case CauseKind::kNodeFilter:
    case CauseKind::kClaimNotAvailable:
    case CauseKind::kInvalidPools: return *c.reasons;
    case CauseKind::kTooFewDevices:
      if (c.all_mode) {
        return {fmt::format("have devices of class {} in use (claim {} request {} wants all)", c.device_class, c.claim,
                            c.request)};
      }
      return {fmt::format("have fewer than {} free {} matching class {} (claim {} request {})", c.wanted,
                          c.wanted == 1 ? "device" : "devices", c.device_class, c.claim, c.request)};
    case CauseKind::kDevicesUnusable:
      return {
          fmt::format("have fewer than {} usable devices matching class {} (tainted, counters or capacity; "
                      "claim {} request {})",
                      c.wanted, c.device_class, c.claim, c.request)};
    case CauseKind::kConstraint:
      return {fmt::format("fail {} (claim {} request {})", c.constraint, c.claim, c.request)};
    case CauseKind::kNoCombination: return {fmt::format("have no combination of devices for claim {}", c.claim)};
  }
  return {};
}

// Nodes per (node, claim) holding devices: claim key -> devices.
using HolderIndex = std::map<std::string, std::string, std::less<>>;  // device id -> claim

class Explainer {
 public:
  Explainer(Snapshot& s, const ExplainOptions& options, alloc::SelectorEvaluator& eval, const alloc::Features& features,
            const alloc::SliceIndex& index, const NodeIndex& node_index)
      : s_(s), options_(options), eval_(eval), features_(features), index_(index), node_index_(node_index) {}

  PodExplanation Analyze(size_t pod_idx, const PodOutcome& outcome);

 private:
  // An Allocator over the snapshot with the devices of the allocated claims
  // `allocated` in use (nullptr: every allocated claim).
  std::unique_ptr<alloc::Allocator> NewAllocator(const std::vector<const api::ResourceClaim*>* allocated) const;
  void ExplainDevices(const api::Node& node, const alloc::Reason& reason, const api::ResourceClaim& claim,
                      const alloc::AllocatedState& state, NodeCause* cause);
  int64_t ConstraintAtMost(const api::ResourceClaim& claim, const api::DeviceConstraint& constraint,
                           const RequestSpec& failing, const std::vector<NodeDevice>& devices,
                           const alloc::AllocatedState& state);
  std::optional<NearMiss> FindNearMiss(const api::Node& node, const std::vector<const api::ResourceClaim*>& claims,
                                       const std::set<std::string, std::less<>>& own);
  void FindUnmatched(const api::Pod& pod, const std::vector<PodClaimRef>& refs, const std::string& claim_key,
                     const std::string& request, PodExplanation* ex);

  // What Analyze works out once per pod, for each node that rejected it.
  struct PodWork {
    const api::Pod& pod;
    const Resources& requests;                                  // the pod's
    const std::vector<const api::ResourceClaim*>& to_allocate;  // its unallocated claims
    const std::set<std::string, std::less<>>& own;              // keys of all its claims
    const alloc::AllocatedState& state;                         // devices of the allocated claims
    ClaimsPerNode& claims_per_node;
    // Made on first use: an Allocator, asked only for a rejection that does
    // not carry the scheduler's Reason, and the bound pods' requests by node.
    std::unique_ptr<alloc::Allocator> allocator = nullptr;
    bool allocator_built = false;
    std::optional<std::map<std::string, Resources, std::less<>>> usage = std::nullopt;
    std::set<std::pair<std::string, std::string>> failing = {};  // (claim, request) the allocator reported
  };
  // Fills holders_ and users_ from the allocated claims and returns them.
  std::vector<const api::ResourceClaim*> IndexAllocated();
  // One node's rejection: the cause, explained by kind; near misses go to `ex`.
  NodeCause ExplainRejection(const NodeRejection& rej, PodWork* work, PodExplanation* ex);
  // A node filter's rejection; NodeResourcesFit's with its shortages.
  void ExplainNodeFilter(const NodeRejection& rej, PodWork* work, NodeCause* c);
  // DRA found no combination of devices: the allocator's reason, the devices
  // behind it and a near miss.
  void ExplainNoCombination(const NodeRejection& rej, PodWork* work, NodeCause* c, PodExplanation* ex);

  Snapshot& s_;
  const ExplainOptions& options_;
  alloc::SelectorEvaluator& eval_;
  const alloc::Features& features_;
  // The run's (ScheduleOptions::slice_index, node_index).
  const alloc::SliceIndex& index_;
  const NodeIndex& node_index_;
  HolderIndex holders_;
  // Device id -> every allocated claim with a non-admin result on it.
  std::map<std::string, std::vector<const api::ResourceClaim*>, std::less<>> users_;

 public:
  // The packing policies' profile for near-miss scores (fragmentation.h).
  const WorkloadProfile* profile = nullptr;

 private:
  void ScoreNearMisses(const api::Pod& pod, const std::vector<const api::ResourceClaim*>& to_allocate,
                       PodExplanation* ex);
};

void Explainer::ScoreNearMisses(const api::Pod& pod, const std::vector<const api::ResourceClaim*>& to_allocate,
                                PodExplanation* ex) {
  const Packing packing = options_.schedule.policy->packing();
  if (packing == Packing::kNone || ex->near_misses.empty() || profile == nullptr) return;
  std::unique_ptr<DeviceModel> model = DeviceModel::New(s_, profile, &eval_, features_);
  std::vector<const api::ResourceClaimSpec*> specs;
  specs.reserve(to_allocate.size());
  for (const api::ResourceClaim* c : to_allocate) specs.push_back(&c->spec);
  const PodDemand demand = model->Demand(PodRequests(pod), specs);
  for (NearMiss& m : ex->near_misses) {
    std::optional<size_t> node = node_index_.Find(m.node);
    if (!node) continue;
    std::vector<const api::AllocationResult*> released;
    for (const DeviceHolder& h : m.release) {
      const size_t slash = h.claim.find('/');
      std::optional<size_t> c = s_.FindClaim(h.claim.substr(0, slash), h.claim.substr(slash + 1));
      if (c && s_.claims[*c].status.allocation) released.push_back(&*s_.claims[*c].status.allocation);
    }
    for (const api::AllocationResult* a : released) model->ReleaseAllocation(*a);
    m.score = model->Score(*node, demand, packing);
    for (const api::AllocationResult* a : released) model->AddAllocation(*a);
    m.text += fmt::format(" (--policy {} would then score the node {})", options_.schedule.policy->name(), m.score);
  }
}

std::unique_ptr<alloc::Allocator> Explainer::NewAllocator(
    const std::vector<const api::ResourceClaim*>* allocated) const {
  std::vector<const api::ResourceClaim*> all;
  if (allocated == nullptr) {
    for (const api::ResourceClaim& c : s_.claims) {
      if (c.status.allocation) all.push_back(&c);
    }
    allocated = &all;
  }
  alloc::AllocatedState state;
  if (!state.AddClaims(*allocated, features_).ok()) return nullptr;
  std::vector<const api::DeviceClass*> classes;
  for (const api::DeviceClass& c : s_.classes) classes.push_back(&c);
  alloc::AllocatorOptions o;
  if (options_.schedule.max_steps != 0) o.max_steps = options_.schedule.max_steps;
  o.new_share_id = [n = uint64_t{0}]() mutable { return StableUid(fmt::format("explain/{}", n++)); };
  return std::make_unique<alloc::Allocator>(features_, std::move(state), std::move(classes), &index_, &eval_,
                                            std::move(o));
}

int64_t Explainer::ConstraintAtMost(const api::ResourceClaim& claim, const api::DeviceConstraint& constraint,
                                    const RequestSpec& failing, const std::vector<NodeDevice>& devices,
                                    const alloc::AllocatedState& state) {
  const std::string attr = constraint.match_attribute.value_or(constraint.distinct_attribute.value_or(""));
  auto values_of = [&](const RequestSpec& spec) {
    std::map<std::string, int64_t> counts;
    const api::DeviceClass* cls = nullptr;
    for (const api::DeviceClass& c : s_.classes) {
      if (c.metadata.name == spec.device_class) cls = &c;
    }
    for (const NodeDevice& d : devices) {
      if (state.devices.count(d.id) > 0) continue;
      if (cls != nullptr && !Passes(eval_, cls->spec.selectors, *d.device, d.driver)) continue;
      if (cls == nullptr || !Passes(eval_, *spec.selectors, *d.device, d.driver)) continue;
      const api::DeviceAttribute* a = FindAttribute(*d.device, d.driver, attr);
      if (a != nullptr) ++counts[AttributeText(*a)];
    }
    return counts;
  };
  std::map<std::string, int64_t> mine = values_of(failing);
  if (constraint.distinct_attribute) return static_cast<int64_t>(mine.size());
  std::vector<std::pair<RequestSpec, std::map<std::string, int64_t>>> others;
  for (const api::DeviceRequest& r : claim.spec.devices.requests) {
    if (r.name == failing.base) continue;
    if (!constraint.requests.empty() &&
        std::find(constraint.requests.begin(), constraint.requests.end(), r.name) == constraint.requests.end()) {
      continue;
    }
    std::optional<RequestSpec> spec = FindRequest(claim, r.name);
    if (spec) others.emplace_back(*spec, values_of(*spec));
  }
  int64_t best = 0;
  for (const auto& [value, n] : mine) {
    bool ok = true;
    for (const auto& [spec, counts] : others) {
      auto it = counts.find(value);
      if (it == counts.end() || (!spec.all && it->second < spec.count)) ok = false;
    }
    if (ok) best = std::max(best, n);
  }
  return best;
}

void Explainer::ExplainDevices(const api::Node& node, const alloc::Reason& reason, const api::ResourceClaim& claim,
                               const alloc::AllocatedState& state, NodeCause* c) {
  c->claim = reason.claim;
  c->request = reason.request;
  std::optional<RequestSpec> spec = FindRequest(claim, reason.request);
  if (!spec) {
    c->kind = CauseKind::kNoCombination;
    return;
  }
  c->device_class = spec->device_class;
  c->all_mode = spec->all;
  if (reason.needed > 0 && reason.in_use == 0) {
    // The allocator rejected the request by counting (alloc::Reason): its
    // counts name each device of the node once, by the first check that
    // refused it, in-use devices first and then the selectors. With none in
    // use, the devices matching the selectors are exactly those that passed
    // the selectors: usable, or refused later for capacity, counters or
    // taints. No need to walk the node's devices or run a selector again.
    c->devices = reason.usable + reason.class_selector + reason.request_selector + reason.node_selection +
                 reason.binding_conditions + reason.capacity + reason.counters + reason.incompatible + reason.taint +
                 reason.constraint;
    c->matching = reason.usable + reason.capacity + reason.counters + reason.incompatible + reason.taint;
    // The allocator counts a device by the first check that refuses it: the
    // class's selectors, then the request's.
    c->class_matching = c->matching + reason.request_selector;
    c->in_use = 0;
    c->wanted = spec->all ? c->matching : spec->count;
    c->usable = reason.usable;
    c->tainted = reason.taint;
    c->no_counters = reason.counters;
    c->incompatible = reason.incompatible;
    c->no_capacity = reason.capacity;
    c->kind = c->matching < c->wanted || c->matching == 0 ? CauseKind::kTooFewDevices : CauseKind::kDevicesUnusable;
    return;
  }
  const api::DeviceClass* cls = nullptr;
  for (const api::DeviceClass& dc : s_.classes) {
    if (dc.metadata.name == spec->device_class) cls = &dc;
  }
  std::vector<NodeDevice> devices = DevicesOn(index_, node, features_);
  c->devices = static_cast<int64_t>(devices.size());
  std::map<std::string, std::vector<std::string>> holders;
  for (const NodeDevice& d : devices) {
    if (cls == nullptr || !Passes(eval_, cls->spec.selectors, *d.device, d.driver)) continue;
    ++c->class_matching;
    if (!Passes(eval_, *spec->selectors, *d.device, d.driver)) continue;
    ++c->matching;
    if (state.devices.count(d.id) > 0) {
      ++c->in_use;
      auto it = holders_.find(d.id);
      holders[it != holders_.end() ? it->second : "?"].push_back(d.id);
    }
  }
  for (auto& [claim_key, ids] : holders) c->holders.push_back({claim_key, std::move(ids)});
  c->wanted = spec->all ? c->matching : spec->count;
  const int64_t free = c->matching - c->in_use;
  if (reason.needed > 0) {
    c->usable = reason.usable;
    c->tainted = reason.taint;
    c->no_counters = reason.counters;
    c->incompatible = reason.incompatible;
    c->no_capacity = reason.capacity;
  } else {
    c->usable = free;
  }
  if (free < c->wanted || (spec->all && c->in_use > 0) || c->matching == 0) {
    c->kind = CauseKind::kTooFewDevices;
    return;
  }
  if (reason.needed > 0) {
    c->kind = CauseKind::kDevicesUnusable;
    return;
  }
  // Enough devices: a constraint that covers the request is the likely cause.
  std::optional<std::pair<std::string, int64_t>> first;
  for (const api::DeviceConstraint& k : claim.spec.devices.constraints) {
    if (!k.requests.empty() && std::find(k.requests.begin(), k.requests.end(), spec->base) == k.requests.end() &&
        std::find(k.requests.begin(), k.requests.end(), reason.request) == k.requests.end()) {
      continue;
    }
    std::string name = k.match_attribute ? "matchAttribute " + *k.match_attribute
                                         : "distinctAttribute " + k.distinct_attribute.value_or("");
    int64_t at_most = ConstraintAtMost(claim, k, *spec, devices, state);
    if (at_most < c->wanted) {
      c->kind = CauseKind::kConstraint;
      c->constraint = std::move(name);
      c->constraint_at_most = at_most;
      return;
    }
    if (!first) first.emplace(std::move(name), at_most);
  }
  if (first && reason.constraint > 0) {
    c->kind = CauseKind::kConstraint;
    c->constraint = first->first;
    c->constraint_at_most = first->second;
    return;
  }
  c->kind = CauseKind::kNoCombination;
}

std::optional<NearMiss> Explainer::FindNearMiss(const api::Node& node,
                                                const std::vector<const api::ResourceClaim*>& claims,
                                                const std::set<std::string, std::less<>>& own) {
  // Claims holding devices on the node, in name order.
  std::map<std::string, std::vector<std::string>> on_node;
  // Only the devices the node can see decide whether claims fit on it: the
  // allocated state of each try needs just the claims using one of them (all
  // their results, shares and counters included).
  std::vector<const api::ResourceClaim*> holding;
  for (const NodeDevice& d : DevicesOn(index_, node, features_)) {
    auto it = holders_.find(d.id);
    if (it != holders_.end() && own.count(it->second) == 0) on_node[it->second].push_back(d.id);
    if (auto u = users_.find(d.id); u != users_.end())
      holding.insert(holding.end(), u->second.begin(), u->second.end());
  }
  std::sort(holding.begin(), holding.end());
  holding.erase(std::unique(holding.begin(), holding.end()), holding.end());
  std::vector<std::string> candidates;
  for (const auto& [claim, ids] : on_node) {
    if (candidates.size() < options_.max_release_candidates) candidates.push_back(claim);
  }
  std::vector<const api::ResourceClaim*> kept;
  auto fits_without = [&](const std::set<std::string, std::less<>>& without) {
    kept.clear();
    for (const api::ResourceClaim* c : holding) {
      if (without.count(ObjectKey(c->metadata)) == 0) kept.push_back(c);
    }
    std::unique_ptr<alloc::Allocator> a = NewAllocator(&kept);
    if (a == nullptr) return false;
    StatusOr<alloc::NodeFit> fit = a->Allocate(node, claims);
    return fit.ok() && fit->fits;
  };
  auto miss = [&](const std::vector<std::string>& release) {
    NearMiss m{.node = node.metadata.name};
    std::vector<std::string> parts;
    for (const std::string& claim : release) {
      m.release.push_back({claim, on_node[claim]});
      parts.push_back(fmt::format("{} released {}", claim, fmt::join(on_node[claim], ", ")));
    }
    m.text = fmt::format("would fit on {} if {}", node.metadata.name, fmt::join(parts, " and "));
    return m;
  };
  for (const std::string& a : candidates) {
    if (fits_without({a})) return miss({a});
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      if (fits_without({candidates[i], candidates[j]})) return miss({candidates[i], candidates[j]});
    }
  }
  return std::nullopt;
}

// Selectors read attributes and capacities as device.attributes["d"].name /
// device.capacity["d"].name (or with single quotes).
std::vector<std::tuple<bool, std::string, std::string>> ReadFields(const std::string& expression) {
  static const RE2 re(R"re(device\.(attributes|capacity)\[\s*["']([^"']+)["']\s*\]\.([A-Za-z_][A-Za-z0-9_]*))re");
  std::vector<std::tuple<bool, std::string, std::string>> out;
  re2::StringPiece input(expression);
  std::string kind, domain, name;
  while (RE2::FindAndConsume(&input, re, &kind, &domain, &name)) {
    std::tuple<bool, std::string, std::string> f{kind == "capacity", domain, name};
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(std::move(f));
  }
  return out;
}

ValueRange Closest(const Snapshot& s, bool capacity, const std::string& domain, const std::string& name) {
  ValueRange r{.name = fmt::format("device.{}[\"{}\"].{}", capacity ? "capacity" : "attributes", domain, name),
               .capacity = capacity};
  const std::string qualified = domain + "/" + name;
  // Numeric values: quantity or int, with the nodes and devices that have them.
  struct Num {
    std::optional<quantity::Quantity> q;
    std::optional<int64_t> i;
    std::string text;
    std::string node;
  };
  std::vector<Num> nums;
  std::map<std::string, int64_t> texts;
  for (const api::ResourceSlice& slice : s.slices) {
    const std::string node = slice.spec.node_name.value_or("");
    for (const api::Device& d : slice.spec.devices) {
      if (capacity) {
        const api::DeviceCapacity* c = d.capacity.find(qualified);
        if (c == nullptr && domain == slice.spec.driver) c = d.capacity.find(name);
        if (c == nullptr) continue;
        nums.push_back({c->value, std::nullopt, c->value.String(), node});
      } else {
        const api::DeviceAttribute* a = FindAttribute(d, slice.spec.driver, qualified);
        if (a == nullptr) continue;
        if (const int64_t* i = std::get_if<int64_t>(&a->value)) {
          nums.push_back({std::nullopt, *i, std::to_string(*i), node});
        } else {
          ++texts[AttributeText(*a)];
        }
      }
      ++r.devices;
    }
  }
  if (r.devices == 0) {
    r.text = fmt::format("{}: no device has it", r.name);
    return r;
  }
  if (!nums.empty()) {
    auto less = [](const Num& a, const Num& b) { return a.q ? *a.q < *b.q : *a.i < *b.i; };
    auto eq = [&](const Num& a, const Num& b) { return !less(a, b) && !less(b, a); };
    const Num mx = *std::max_element(nums.begin(), nums.end(), less);
    const Num mn = *std::min_element(nums.begin(), nums.end(), less);
    std::set<std::string> max_nodes, min_nodes;
    for (const Num& n : nums) {
      if (eq(n, mx)) {
        ++r.max_devices;
        max_nodes.insert(n.node);
      }
      if (eq(n, mn)) {
        ++r.min_devices;
        min_nodes.insert(n.node);
      }
    }
    r.max = mx.text;
    r.min = mn.text;
    r.max_nodes = static_cast<int64_t>(max_nodes.size());
    r.min_nodes = static_cast<int64_t>(min_nodes.size());
    r.text = fmt::format("largest {} is {} ({} on {}), smallest {} ({} on {})", r.name, r.max,
                         Plural(r.max_devices, "device", "devices"), Plural(r.max_nodes, "node", "nodes"), r.min,
                         Plural(r.min_devices, "device", "devices"), Plural(r.min_nodes, "node", "nodes"));
  }
  if (!texts.empty()) {
    std::vector<std::string> parts;
    for (const auto& [v, n] : texts) {
      r.values.emplace_back(v, n);
      if (parts.size() < 10) parts.push_back(fmt::format("\"{}\" ({})", v, n));
    }
    if (texts.size() > 10) parts.push_back(fmt::format("and {} more", texts.size() - 10));
    std::string t = fmt::format("{} values: {}", r.name, fmt::join(parts, ", "));
    r.text = r.text.empty() ? t : r.text + "; " + t;
  }
  return r;
}

void Explainer::FindUnmatched(const api::Pod& pod, const std::vector<PodClaimRef>& refs, const std::string& claim_key,
                              const std::string& request, PodExplanation* ex) {
  const api::ResourceClaim* claim = nullptr;
  std::string pod_claim;
  for (const PodClaimRef& ref : refs) {
    if (HasObjectKey(s_.claims[ref.claim].metadata, claim_key)) {
      claim = &s_.claims[ref.claim];
      pod_claim = ref.pod_claim;
    }
  }
  if (claim == nullptr) return;
  std::optional<RequestSpec> spec = FindRequest(*claim, request);
  if (!spec) return;
  // Where the claim's spec is written: its template, if the pod names one.
  std::string kind = "ResourceClaim", object = claim_key, prefix = "spec.";
  for (const api::PodResourceClaim& prc : pod.spec.resource_claims) {
    if (prc.name == pod_claim && prc.resource_claim_template_name) {
      kind = "ResourceClaimTemplate";
      object = pod.metadata.namespace_ + "/" + *prc.resource_claim_template_name;
      prefix = "spec.spec.";
    }
  }
  auto check = [&](const std::vector<api::DeviceSelector>& selectors, const std::string& obj_kind,
                   const std::string& obj, const std::string& path) {
    for (size_t i = 0; i < selectors.size(); ++i) {
      if (!selectors[i].cel) continue;
      const std::string& expr = selectors[i].cel->expression;
      bool any = false;
      for (const api::ResourceSlice& slice : s_.slices) {
        for (const api::Device& d : slice.spec.devices) {
          StatusOr<bool> ok = eval_.Evaluate(expr, d, slice.spec.driver);
          if (ok.ok() && *ok) {
            any = true;
            break;
          }
        }
        if (any) break;
      }
      if (any) continue;
      UnmatchedSelector u{.claim = claim_key,
                          .request = request,
                          .expression = expr,
                          .object_kind = obj_kind,
                          .object = obj,
                          .field_path = fmt::format("{}[{}].cel.expression", path, i)};
      for (const auto& [cap, domain, name] : ReadFields(expr)) u.closest.push_back(Closest(s_, cap, domain, name));
      bool seen = std::any_of(ex->unmatched.begin(), ex->unmatched.end(), [&](const UnmatchedSelector& o) {
        return o.object == u.object && o.field_path == u.field_path;
      });
      if (!seen) ex->unmatched.push_back(std::move(u));
    }
  };
  for (const api::DeviceClass& dc : s_.classes) {
    if (dc.metadata.name == spec->device_class)
      check(dc.spec.selectors, "DeviceClass", dc.metadata.name, "spec.selectors");
  }
  check(*spec->selectors, kind, object, prefix + spec->Path());
}

std::vector<const api::ResourceClaim*> Explainer::IndexAllocated() {
  holders_.clear();
  users_.clear();
  std::vector<const api::ResourceClaim*> allocated;
  for (const api::ResourceClaim& c : s_.claims) {
    if (!c.status.allocation) continue;
    allocated.push_back(&c);
    for (const api::DeviceRequestAllocationResult& r : c.status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;
      std::string id = alloc::DeviceIdString(r.driver, r.pool, r.device);
      holders_.emplace(id, ObjectKey(c.metadata));
      std::vector<const api::ResourceClaim*>& users = users_[std::move(id)];
      if (users.empty() || users.back() != &c) users.push_back(&c);
    }
  }
  return allocated;
}

void Explainer::ExplainNodeFilter(const NodeRejection& rej, PodWork* work, NodeCause* c) {
  c->kind = CauseKind::kNodeFilter;
  if (rej.plugin != "NodeResourcesFit") return;
  if (!work->usage) {
    // What the pods bound now request, per node (once per pod explained).
    work->usage.emplace();
    for (const api::Pod& p : s_.pods) {
      if (p.spec.node_name.empty() || p.status.phase == api::PodPhase::kSucceeded ||
          p.status.phase == api::PodPhase::kFailed) {
        continue;
      }
      (*work->usage)[p.spec.node_name].Add(PodRequests(p));
    }
  }
  if (std::optional<size_t> node_idx = node_index_.Find(rej.node)) {
    c->shortages =
        Shortages(rej.reasons, work->requests, (*work->usage)[rej.node], NodeAllocatable(s_.nodes[*node_idx]));
  }
}

void Explainer::ExplainNoCombination(const NodeRejection& rej, PodWork* work, NodeCause* c, PodExplanation* ex) {
  c->kind = CauseKind::kNoCombination;
  std::optional<size_t> node_idx = node_index_.Find(rej.node);
  const api::Node* node = node_idx ? &s_.nodes[*node_idx] : nullptr;
  const std::vector<const api::ResourceClaim*>& node_claims = node != nullptr && work->claims_per_node.extended()
                                                                  ? work->claims_per_node.For(NodeAllocatable(*node))
                                                                  : work->to_allocate;
  std::optional<alloc::Reason> reason = rej.dra_reason;
  if (!reason && node != nullptr) {
    if (!work->allocator_built) {
      work->allocator = NewAllocator(nullptr);
      work->allocator_built = true;
    }
    StatusOr<alloc::NodeFit> fit =
        work->allocator ? work->allocator->Allocate(*node, node_claims) : StatusOr<alloc::NodeFit>(alloc::NodeFit{});
    if (fit.ok() && !fit->fits) reason = std::move(fit->reason);
  }
  if (reason && node != nullptr) {
    const api::ResourceClaim* claim = nullptr;
    for (const api::ResourceClaim* t : node_claims) {
      if (HasObjectKey(t->metadata, reason->claim)) claim = t;
    }
    if (claim != nullptr) {
      ExplainDevices(*node, *reason, *claim, work->state, c);
      work->failing.emplace(c->claim, c->request);
    }
  }
  // Freeing devices can only help where some are in use.
  if (node != nullptr && (c->in_use > 0 || c->kind == CauseKind::kConstraint || c->kind == CauseKind::kNoCombination)) {
    if (std::optional<NearMiss> m = FindNearMiss(*node, node_claims, work->own)) ex->near_misses.push_back(*m);
  }
}

NodeCause Explainer::ExplainRejection(const NodeRejection& rej, PodWork* work, PodExplanation* ex) {
  NodeCause c{.node = rej.node, .plugin = rej.plugin, .reasons = rej.reasons};
  if (rej.plugin == "TaintToleration") {
    // kube-scheduler does not say which taint; explain does.
    if (std::optional<size_t> node_idx = node_index_.Find(rej.node)) {
      if (const api::Taint* taint = FirstUntoleratedTaint(work->pod, s_.nodes[*node_idx])) {
        c.reasons = {fmt::format("node(s) had untolerated taint {{{}: {}}}", taint->key, taint->value)};
      }
    }
  }
  const bool dra = rej.plugin == kDynamicResourcesPlugin;
  const std::string first = rej.reasons.empty() ? "" : rej.reasons[0];
  if (!dra) {
    ExplainNodeFilter(rej, work, &c);
  } else if (first == "resourceclaim not available on the node") {
    c.kind = CauseKind::kClaimNotAvailable;
  } else if (first != "cannot allocate all claims") {
    c.kind = CauseKind::kInvalidPools;
  } else {
    ExplainNoCombination(rej, work, &c, ex);
  }
  c.text = RenderNodeCause(c);
  return c;
}

// Summary: nodes per cause text, most nodes first. Like nodes usually
// come in runs; each run's texts are rendered and counted once.
void Summarize(PodExplanation* ex) {
  std::map<std::string, int64_t> counts;
  for (size_t i = 0; i < ex->nodes.size();) {
    const SummaryKey key = SummaryKey::Of(ex->nodes[i]);
    size_t j = i + 1;
    while (j < ex->nodes.size() && SummaryKey::Of(ex->nodes[j]) == key) ++j;
    for (const std::string& t : SummaryTexts(key)) counts[t] += static_cast<int64_t>(j - i);
    i = j;
  }
  for (const auto& [text, n] : counts) ex->summary.push_back({n, text});
  std::stable_sort(ex->summary.begin(), ex->summary.end(),
                   [](const CauseSummary& a, const CauseSummary& b) { return a.nodes > b.nodes; });
}

// A request no node could ever serve: the same request failed on every
// node (`num_nodes` of them), and it wants more devices than the best node
// has, free or not. Empty if not so.
std::string NeverFits(const PodExplanation& ex, size_t num_nodes) {
  if (ex.nodes.empty() || ex.nodes.size() != num_nodes || ex.nodes[0].all_mode) return "";
  const NodeCause& first = ex.nodes[0];
  const NodeCause* largest = nullptr;
  bool filtered = false;
  for (const NodeCause& c : ex.nodes) {
    if (c.claim.empty() || c.claim != first.claim || c.request != first.request || c.all_mode) return "";
    if (largest == nullptr || c.matching > largest->matching) largest = &c;
    filtered = filtered || c.class_matching != c.matching;
  }
  if (largest == nullptr || largest->matching >= first.wanted) return "";
  return fmt::format(
      "no node has more than {} device{} matching class {}{} (largest: {}, {}); the "
      "request asks for {}",
      largest->matching, largest->matching == 1 ? "" : "s", first.device_class,
      filtered ? " and the request's selectors" : "", largest->node, largest->matching, first.wanted);
}

PodExplanation Explainer::Analyze(size_t pod_idx, const PodOutcome& outcome) {
  const api::Pod& pod = s_.pods[pod_idx];
  PodExplanation ex{.pod = outcome.pod,
                    .kind = outcome.kind,
                    .message = outcome.message,
                    .num_nodes = static_cast<int64_t>(s_.nodes.size())};
  for (const api::OwnerReference& ref : pod.metadata.owner_references) {
    if (ref.controller.value_or(false)) ex.owner = fmt::format("{} {}/{}", ref.kind, pod.metadata.namespace_, ref.name);
  }
  if (outcome.rejections.empty()) {
    if (!outcome.message.empty()) ex.summary.push_back({ex.num_nodes, outcome.message});
    return ex;
  }
  alloc::AllocatedState state;
  (void)state.AddClaims(IndexAllocated(), features_);  // Schedule succeeded with the same claims
  std::vector<PodClaimRef> refs;
  if (StatusOr<std::vector<PodClaimRef>> r = ResolvePodClaims(s_, pod); r.ok()) refs = std::move(*r);
  std::vector<const api::ResourceClaim*> to_allocate;
  std::set<std::string, std::less<>> own;
  for (const PodClaimRef& ref : refs) {
    own.insert(ObjectKey(s_.claims[ref.claim].metadata));
    if (!s_.claims[ref.claim].status.allocation) to_allocate.push_back(&s_.claims[ref.claim]);
  }
  // Extended resources backed by DRA (README.md §6): the node's special claim joins
  // the claims to allocate, as in the scheduler's Filter.
  const ExtendedResourceClasses extended_classes(s_.classes, s_.gates.enabled(api::Gate::kDRAExtendedResource));
  const Resources requests = PodRequests(pod);
  ClaimsPerNode claims_per_node(pod, requests, extended_classes, to_allocate);
  PodWork work{.pod = pod,
               .requests = requests,
               .to_allocate = to_allocate,
               .own = own,
               .state = state,
               .claims_per_node = claims_per_node};
  ex.nodes.reserve(outcome.rejections.size());
  for (const NodeRejection& rej : outcome.rejections) ex.nodes.push_back(ExplainRejection(rej, &work, &ex));
  Summarize(&ex);
  ex.never_fits = NeverFits(ex, s_.nodes.size());
  for (const auto& [claim, request] : work.failing) FindUnmatched(pod, refs, claim, request, &ex);
  ScoreNearMisses(pod, to_allocate, &ex);
  return ex;
}

}  // namespace

std::string_view CauseKindName(CauseKind kind) {
  switch (kind) {
    case CauseKind::kNodeFilter: return "NodeFilter";
    case CauseKind::kClaimNotAvailable: return "ClaimNotAvailable";
    case CauseKind::kInvalidPools: return "InvalidPools";
    case CauseKind::kTooFewDevices: return "TooFewDevices";
    case CauseKind::kDevicesUnusable: return "DevicesUnusable";
    case CauseKind::kConstraint: return "Constraint";
    case CauseKind::kNoCombination: return "NoCombination";
  }
  return "";
}

namespace {

std::string TryText(const GroupOutcome::MemberTry& t) {
  if (t.node.empty()) return fmt::format("{} fits nowhere", t.pod);
  return t.devices.empty() ? fmt::format("{} on {}", t.pod, t.node)
                           : fmt::format("{} on {} ({})", t.pod, t.node, fmt::join(t.devices, ", "));
}

// The group of `g` explained: its cycle, and where it failed, what the
// search does with it on `original` (the snapshot before the run).
GroupExplanation ExplainGroup(const GroupOutcome& g, const Snapshot& original, const ScheduleOptions& options) {
  GroupExplanation x{.group = g.group,
                     .min_count = g.min_count,
                     .scheduled_before = g.scheduled_before,
                     .members = g.members,
                     .kind = g.kind,
                     .message = g.message,
                     .upstream_pass = g.upstream_pass};
  ScheduleOptions again = options;
  again.after_pod = {};
  again.slice_index = nullptr;
  again.node_index = nullptr;
  again.gang.mode = GangMode::kSearch;
  // The outcome of `g`'s group in a run over a copy of `original`.
  auto run = [&](Snapshot copy, std::vector<GroupOutcome::MemberTry>* placed, std::vector<std::string>* left_out) {
    StatusOr<ScheduleResult> r = Schedule(&copy, again);
    std::optional<GroupOutcome> found;
    if (!r.ok()) return found;
    for (const GroupOutcome& other : r->groups) {
      if (other.group == g.group) found = other;
    }
    if (!found) return found;
    for (const GroupOutcome::MemberTry& t : g.upstream_pass) {
      for (const PodOutcome& o : r->pods) {
        if (o.pod != t.pod) continue;
        if (o.kind == PodOutcome::Kind::kPlaced) {
          GroupOutcome::MemberTry& p = placed->emplace_back();
          p.pod = o.pod;
          p.node = o.node;
          for (const ClaimPlacement& c : o.claims) {
            for (const api::DeviceRequestAllocationResult& d : c.results) {
              p.devices.push_back(d.driver + "/" + d.pool + "/" + d.device);
            }
          }
        } else if (left_out != nullptr) {
          left_out->push_back(fmt::format("{}: {}", o.pod, o.message));
        }
      }
    }
    return found;
  };
  // Topology placements (gang.h): none at all, or none that held the group.
  // (Upstream's status may wrap errPodGroupUnschedulable, and gets
  // PodGroupPostFilter's text after it.)
  std::string_view core = g.message;
  if (core.starts_with(kPodGroupUnschedulable) &&
      core.substr(std::string_view(kPodGroupUnschedulable).size()).starts_with(", ")) {
    core.remove_prefix(std::string_view(kPodGroupUnschedulable).size() + 2);
  }
  const bool none_at_all = core.starts_with("no feasible placements found");
  const bool no_placement =
      none_at_all || (core.starts_with("0/") && core.find(" placements are available") != std::string_view::npos);
  const bool tried = std::any_of(g.upstream_pass.begin(), g.upstream_pass.end(),
                                 [](const GroupOutcome::MemberTry& t) { return !t.node.empty(); }) ||
                     core.starts_with("minCount (") || no_placement;
  std::string head = fmt::format("pod group {} (minCount {}, {} pending, {} bound before): ", g.group, g.min_count,
                                 g.members, g.scheduled_before);
  if (g.kind == PodOutcome::Kind::kPlaced) {
    x.text.push_back(head + "placed");
    return x;
  }
  x.text.push_back(head + "not placed: " + g.message);
  if (!tried) return x;
  std::vector<std::string> pass;
  for (const GroupOutcome::MemberTry& t : g.upstream_pass) pass.push_back(TryText(t));
  if (!none_at_all) {
    x.text.push_back(fmt::format("  one pod at a time, as kube-scheduler (then undone{}): {}",
                                 g.placements > 1 ? ", in the first topology placement" : "", fmt::join(pass, "; ")));
  }
  if (options.gang.mode == GangMode::kUpstream) {
    x.search_run = true;
    std::optional<GroupOutcome> searched = run(original, &x.search_placement, nullptr);
    x.search_places = searched && searched->kind == PodOutcome::Kind::kPlaced;
    if (x.search_places) {
      std::vector<std::string> parts;
      for (const GroupOutcome::MemberTry& t : x.search_placement) parts.push_back(TryText(t));
      x.text.push_back(fmt::format("  with --gang search the group is placed{}: {}",
                                   searched->placement.empty() ? "" : " in topology domain " + searched->placement,
                                   fmt::join(parts, "; ")));
      return x;
    }
    x.search_placement.clear();
    if (searched) x.text.push_back("  with --gang search it is not placed either: " + searched->message);
  }
  // The nearest miss for the group as a whole: the most members that fit
  // together, found by the same search with minCount 1.
  std::optional<size_t> idx;
  for (size_t i = 0; i < original.pod_groups.size(); ++i) {
    if (ObjectKey(original.pod_groups[i].metadata) == g.group) idx = i;
  }
  if (!idx) return x;
  Snapshot relaxed = original;
  relaxed.pod_groups[*idx].spec.scheduling_policy = api::PodGroupSchedulingPolicy{.basic = true, .gang = std::nullopt};
  std::vector<GroupOutcome::MemberTry> together;
  if (run(std::move(relaxed), &together, &x.left_out)) {
    x.most_together = static_cast<int64_t>(together.size());
    std::vector<std::string> parts;
    parts.reserve(together.size());
    for (const GroupOutcome::MemberTry& t : together) parts.push_back(TryText(t));
    x.text.push_back(
        fmt::format("  nearest miss: at most {} of the {} pending members fit together ({} more "
                    "needed){}{}",
                    together.size(), g.members,
                    static_cast<int64_t>(g.min_count) - static_cast<int64_t>(g.scheduled_before) -
                        static_cast<int64_t>(together.size()),
                    parts.empty() ? "" : ": ", fmt::join(parts, "; ")));
    for (const std::string& l : x.left_out) x.text.push_back("    left out: " + l);
  }
  return x;
}

}  // namespace

StatusOr<std::vector<PodExplanation>> Explain(Snapshot* snapshot, const ExplainOptions& options,
                                              const std::vector<std::string>& pods) {
  Snapshot& s = *snapshot;
  // Pod groups are explained against the cluster before the run.
  std::optional<Snapshot> original;
  if (!s.pod_groups.empty() && s.gates.enabled(api::Gate::kGenericWorkload)) original = s;
  std::vector<PodExplanation> out;
  std::set<size_t> targets;
  for (const std::string& name : pods) {
    std::optional<size_t> found;
    for (size_t i = 0; i < s.pods.size(); ++i) {
      if (HasObjectKey(s.pods[i].metadata, name)) found = i;
    }
    if (!found) {
      // A name close to the pods', or a workload's name: its pods.
      std::vector<std::string> keys;
      for (const api::Pod& p : s.pods) keys.push_back(ObjectKey(p.metadata));
      return NotFoundError(fmt::format("pod {} not found{}", name, DidYouMean(Suggest(name, keys, 5))));
    }
    if (IsPending(s.pods[*found])) {
      targets.insert(*found);
      continue;
    }
    const api::Pod& p = s.pods[*found];
    PodExplanation ex{.pod = name, .kind = PodOutcome::Kind::kPlaced, .bound = true, .node = p.spec.node_name};
    if (p.spec.node_name.empty()) {
      ex.kind = PodOutcome::Kind::kUnschedulable;
      ex.message = !p.metadata.deletion_timestamp.empty()
                       ? "the pod is being deleted"
                       : fmt::format("the pod has finished ({})", p.status.phase.text());
    }
    out.push_back(std::move(ex));
  }
  alloc::Features features = alloc::Features::FromGates(s.gates);
  StatusOr<std::unique_ptr<alloc::SelectorEvaluator>> eval = alloc::NewCelSelectorEvaluator(features);
  if (!eval.ok()) return eval.status();
  if (!pods.empty() && targets.empty()) return out;
  // Slices and nodes stay as they are during the run: one index of each
  // serves the scheduler and the analysis.
  std::vector<const api::ResourceSlice*> slices;
  for (const api::ResourceSlice& sl : s.slices) slices.push_back(&sl);
  const alloc::SliceIndex slice_index(std::move(slices));
  const NodeIndex node_index(s.nodes);
  Explainer explainer(s, options, **eval, features, slice_index, node_index);
  // The packing policies' profile, the same the run uses.
  WorkloadProfile own_profile;
  ScheduleOptions schedule = options.schedule;
  if (schedule.policy != nullptr && schedule.policy->packing() != Packing::kNone) {
    if (schedule.workload_profile == nullptr) {
      own_profile = BuildProfile(ShapesOfPods(s, PendingQueue(s)), "pending pods");
      schedule.workload_profile = &own_profile;
    }
    explainer.profile = schedule.workload_profile;
  }
  // One scheduling run over the queue, as `dractl schedule` does; each
  // wanted pod is analysed right after its attempt, on the state it saw
  // (the pods before it placed, the ones after it not yet). The run stops
  // after the last pod asked for.
  size_t left = targets.size();
  schedule.slice_index = &slice_index;
  schedule.node_index = &node_index;
  schedule.after_pod = [&](size_t pod_idx, const PodOutcome& outcome) {
    const bool wanted = pods.empty() ? outcome.kind != PodOutcome::Kind::kPlaced : targets.count(pod_idx) > 0;
    if (wanted) {
      if (outcome.kind == PodOutcome::Kind::kPlaced) {
        out.push_back(PodExplanation{.pod = outcome.pod, .kind = outcome.kind, .node = outcome.node});
      } else {
        out.push_back(explainer.Analyze(pod_idx, outcome));
      }
      if (!pods.empty()) --left;
    }
    return pods.empty() || left > 0;
  };
  StatusOr<ScheduleResult> result = Schedule(&s, schedule);
  if (!result.ok()) return result.status();
  if (original) {
    std::map<std::string, GroupExplanation> done;  // by group
    for (PodExplanation& e : out) {
      if (e.kind == PodOutcome::Kind::kPlaced) continue;
      for (const GroupOutcome& g : result->groups) {
        const bool member = std::any_of(g.upstream_pass.begin(), g.upstream_pass.end(),
                                        [&](const GroupOutcome::MemberTry& t) { return t.pod == e.pod; });
        if (!member) continue;
        auto it = done.find(g.group);
        if (it == done.end()) it = done.emplace(g.group, ExplainGroup(g, *original, options.schedule)).first;
        e.group = it->second;
      }
    }
  }
  return out;
}

}  // namespace dra::sched
