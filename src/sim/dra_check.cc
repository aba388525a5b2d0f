// Allocator checks of the simulator's placements. The pin selector names the
// devices by their `index` attribute, so the allocator must find exactly the
// policy's choice among the node's devices (the allocator itself would take
// the first devices that fit, which is not what the policies choose).
#include "sim/dra_check.h"

#include <algorithm>

#include "alloc/cel_selector.h"
#include "api/defaults.h"
#include "base/release.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "sim/import.h"

namespace dra::sim {

struct DraChecker::NodeObjects {
  api::Node node;
  api::ResourceSlice slice;
  std::unique_ptr<alloc::SliceIndex> index;
  alloc::AllocatedState state;
  std::unique_ptr<alloc::Allocator> allocator;  // null until used; reset on Commit
};

DraChecker::~DraChecker() = default;

StatusOr<std::unique_ptr<DraChecker>> DraChecker::New(std::span<const OpenbNode> nodes,
                                                      std::span<const OpenbPod> pods) {
  std::unique_ptr<DraChecker> c(new DraChecker());
  DRA_ASSIGN_OR_RETURN(api::FeatureGates gates, api::FeatureGates::Defaults(kDefaultRelease));
  c->features_ = alloc::Features::FromGates(gates);
  if (!c->features_.consumable_capacity) {
    return Status(StatusCode::kInternal, "DRAConsumableCapacity is off in the default gates");
  }
  c->class_ = MakeDeviceClass();
  DRA_ASSIGN_OR_RETURN(c->selectors_, alloc::NewCelSelectorEvaluator(c->features_));
  for (const OpenbNode& n : nodes) {
    auto o = std::make_unique<NodeObjects>();
    o->node = MakeNode(n);
    o->slice = MakeSlice(n);
    o->index = std::make_unique<alloc::SliceIndex>(std::vector<const api::ResourceSlice*>{&o->slice});
    c->nodes_.push_back(std::move(o));
  }
  c->pods_ = pods;
  c->claims_.resize(pods.size());
  return c;
}

const api::ResourceClaim& DraChecker::ClaimFor(size_t pod) {
  std::unique_ptr<api::ResourceClaim>& claim = claims_[pod];
  if (!claim) {
    claim = std::make_unique<api::ResourceClaim>();
    claim->metadata.namespace_ = kNamespace;
    claim->metadata.name = TemplateName(pods_[pod]);
    claim->spec = MakeClaimSpec(pods_[pod]);
    api::SetDefaults(*claim);
  }
  return *claim;
}

StatusOr<const alloc::Allocator*> DraChecker::AllocatorFor(size_t node) {
  NodeObjects& o = *nodes_[node];
  if (!o.allocator) {
    alloc::AllocatorOptions options;
    uint64_t* counter = &share_ids_;
    options.new_share_id = [counter] { return fmt::format("00000000-0000-4000-8000-{:012x}", (*counter)++); };
    o.allocator = std::make_unique<alloc::Allocator>(features_, o.state, std::vector<const api::DeviceClass*>{&class_},
                                                     o.index.get(), selectors_.get(), std::move(options));
  }
  return o.allocator.get();
}

StatusOr<bool> DraChecker::Fits(size_t node, size_t pod) {
  if (!pods_[pod].uses_gpu()) return true;
  DRA_ASSIGN_OR_RETURN(const alloc::Allocator* a, AllocatorFor(node));
  const api::ResourceClaim* claims[] = {&ClaimFor(pod)};
  DRA_ASSIGN_OR_RETURN(alloc::NodeFit fit, a->Allocate(nodes_[node]->node, claims));
  ++allocations_;
  return fit.fits;
}

Status DraChecker::Commit(size_t node, size_t pod, std::span<const int8_t> gpus) {
  const OpenbPod& p = pods_[pod];
  if (!p.uses_gpu()) return Status::OK();
  NodeObjects& o = *nodes_[node];
  api::ResourceClaim claim = ClaimFor(pod);
  std::string pin = fmt::format("device.attributes[\"{}\"].index in [", kDriver);
  for (size_t i = 0; i < gpus.size(); ++i) pin += fmt::format("{}{}", i ? ", " : "", gpus[i]);
  pin += "]";
  claim.spec.devices.requests[0].exactly->selectors.push_back(
      api::DeviceSelector{.cel = api::CelDeviceSelector{.expression = std::move(pin)}});
  DRA_ASSIGN_OR_RETURN(const alloc::Allocator* a, AllocatorFor(node));
  const api::ResourceClaim* claims[] = {&claim};
  DRA_ASSIGN_OR_RETURN(alloc::NodeFit fit, a->Allocate(o.node, claims));
  ++allocations_;
  std::string where = fmt::format("pod {} on node {} GPUs [{}]", p.name, o.node.metadata.name, fmt::join(gpus, ","));
  if (!fit.fits) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("{}: the allocator does not fit it: {}", where, fit.reason.ToString()));
  }
  const auto& results = fit.results[0].devices.results;
  if (results.size() != gpus.size()) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("{}: the allocator took {} devices", where, results.size()));
  }
  std::vector<std::string> want, got;
  for (int8_t g : gpus) want.push_back(fmt::format("gpu-{}", g));
  for (const api::DeviceRequestAllocationResult& r : results) got.push_back(r.device);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  if (want != got) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("{}: the allocator took [{}]", where, fmt::join(got, ",")));
  }
  for (const api::DeviceRequestAllocationResult& r : results) {
    DRA_RETURN_IF_ERROR(o.state.AddResult(r, features_));
  }
  o.allocator.reset();
  return Status::OK();
}

}  // namespace dra::sim
