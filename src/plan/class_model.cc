#include "plan/class_model.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "base/fnv.h"

namespace dra::plan {

namespace {

// Appends `n` pods of class `c` to `content`.
NodeContent With(NodeContent content, uint32_t c, int64_t n) {
  if (!content.empty() && content.back().first == c) {
    content.back().second += n;
  } else {
    content.emplace_back(c, n);
  }
  return content;
}

}  // namespace

std::optional<ClassModel> ClassModel::Make(const sched::Snapshot& pending, std::span<const NodeGroup> groups,
                                           const sched::ScheduleOptions& options) {
  if (!pending.slices.empty()) return std::nullopt;
  for (const api::ResourceClaim& c : pending.claims) {
    if (c.status.allocation || !c.status.reserved_for.empty()) return std::nullopt;
  }
  ClassModel m(pending, groups, options);
  m.options_.unschedulable_texts = false;
  m.options_.create_template_claims = true;
  m.options_.after_pod = nullptr;
  m.options_.slice_index = nullptr;
  m.options_.node_index = nullptr;
  m.options_.workload_profile = nullptr;
  m.options_.node_rank = {};
  std::unordered_map<uint64_t, std::vector<uint32_t>> buckets;  // by namespace, requests and templates
  for (size_t i = 0; i < pending.pods.size(); ++i) {
    const api::Pod& pod = pending.pods[i];
    if (!pod.spec.node_name.empty() || pod.status.extended_resource_claim_status) return std::nullopt;
    uint64_t key = Fnv1a64(pod.metadata.namespace_);
    key = Fnv1a64(pod.metadata.deletion_timestamp.empty() ? "-" : "deleted", key);
    for (const api::PodResourceClaim& rc : pod.spec.resource_claims) {
      if (!rc.resource_claim_template_name) return std::nullopt;  // a claim of its own name: shared
      key = Fnv1a64(rc.name + "=" + *rc.resource_claim_template_name, key);
    }
    const sched::Resources requests = sched::PodRequests(pod);
    key = Fnv1a64(std::to_string(requests.milli_cpu) + "/" + std::to_string(requests.memory), key);
    std::vector<uint32_t>& bucket = buckets[key];
    auto same = std::find_if(bucket.begin(), bucket.end(), [&](uint32_t c) {
      const api::Pod& other = m.exemplars_[c];
      return other.metadata.namespace_ == pod.metadata.namespace_ &&
             other.metadata.deletion_timestamp.empty() == pod.metadata.deletion_timestamp.empty() &&
             other.spec == pod.spec;
    });
    if (same != bucket.end()) {
      m.classes_[*same].pods.push_back(i);
      continue;
    }
    bucket.push_back(static_cast<uint32_t>(m.classes_.size()));
    m.classes_.push_back(PodClass{.pods = {i}, .requests = requests});
    api::Pod fresh = pod;  // as the resource-claim controller has not seen it
    fresh.status.resource_claim_statuses.clear();
    fresh.status.nominated_node_name.clear();
    m.exemplars_.push_back(std::move(fresh));
  }
  // The estimator's order per group (decreasing_pod_orderer.go): the first
  // pod's cpu and memory over the template's allocatable, summed, highest
  // first; the order of the pending queue among equals.
  for (const NodeGroup& group : groups) {
    const sched::Resources alloc = sched::NodeAllocatable(group.node);
    std::vector<double> score(m.classes_.size(), 0);
    for (size_t c = 0; c < m.classes_.size(); ++c) {
      const sched::Resources& r = m.classes_[c].requests;
      if (alloc.milli_cpu > 0) score[c] += static_cast<double>(r.milli_cpu) / static_cast<double>(alloc.milli_cpu);
      if (alloc.memory > 0) score[c] += static_cast<double>(r.memory) / static_cast<double>(alloc.memory);
    }
    std::vector<uint32_t> order(m.classes_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return score[a] > score[b]; });
    m.order_.push_back(std::move(order));
  }
  return m;
}

StatusOr<int64_t> ClassModel::Fill(size_t g, const NodeContent& content, uint32_t c) {
  auto key = std::make_tuple(g, content, c);
  if (auto it = fills_.find(key); it != fills_.end()) return it->second;
  sched::Snapshot s = base_;
  NodeInstance inst = Instantiate(groups_[g], 0);
  const int64_t capacity = sched::NodeAllocatable(inst.node).pods;
  s.nodes.push_back(std::move(inst.node));
  for (api::ResourceSlice& slice : inst.slices) s.slices.push_back(std::move(slice));
  int64_t held = 0;
  for (const auto& [cls, n] : content) held += n;
  const int64_t room = std::min(capacity > 0 ? capacity - held : kMaxFill, kMaxFill);
  if (room <= 0) return fills_[key] = 0;
  // Copies of the classes' first pods, in the order the node took them.
  auto add = [&](uint32_t cls, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      api::Pod pod = exemplars_[cls];
      const std::string id = "plan-model-" + std::to_string(s.pods.size());
      pod.metadata.name = id;
      pod.metadata.uid = id;
      pod.metadata.generate_name.clear();
      s.pods.push_back(std::move(pod));
    }
  };
  for (const auto& [cls, n] : content) add(cls, n);
  add(c, room);
  std::vector<size_t> queue(s.pods.size());
  std::iota(queue.begin(), queue.end(), size_t{0});
  sched::ScheduleOptions options = options_;
  options.queue = queue;
  DRA_ASSIGN_OR_RETURN(sched::ScheduleResult r, sched::Schedule(&s, options));
  ++simulations_;
  int64_t placed = 0;  // the content's pods (all of them: they were placed so before) and the class's
  for (const sched::PodOutcome& o : r.pods) placed += o.kind == sched::PodOutcome::Kind::kPlaced ? 1 : 0;
  if (content.empty()) {
    int64_t devices = 0;
    if (!r.pods.empty() && r.pods[0].kind == sched::PodOutcome::Kind::kPlaced) {
      for (const sched::ClaimPlacement& claim : r.pods[0].claims) {
        for (const api::DeviceRequestAllocationResult& d : claim.results) {
          devices += d.admin_access.value_or(false) || d.share_id ? 0 : 1;
        }
      }
    }
    devices_per_pod_[{g, c}] = devices;
  }
  return fills_[key] = std::max<int64_t>(0, placed - held);
}

StatusOr<int64_t> ClassModel::DevicesPerPod(size_t g, uint32_t c) {
  DRA_RETURN_IF_ERROR(Fill(g, {}, c).status());
  return devices_per_pod_[{g, c}];
}

int64_t ClassModel::DevicesPerNode(size_t g) const {
  int64_t devices = 0;
  for (const api::ResourceSlice& slice : groups_[g].slices) devices += static_cast<int64_t>(slice.spec.devices.size());
  return devices;
}

StatusOr<int64_t> ClassModel::FirstFit(size_t g, uint32_t c, int64_t* count, std::vector<NodeRun>* runs) {
  int64_t placed = 0;
  for (size_t i = 0; i < runs->size() && *count > 0; ++i) {
    DRA_ASSIGN_OR_RETURN(const int64_t q, Fill(g, (*runs)[i].content, c));
    if (q == 0) continue;
    NodeRun& run = (*runs)[i];
    if (*count >= run.nodes * q) {
      run.content = With(std::move(run.content), c, q);
      placed += run.nodes * q;
      *count -= run.nodes * q;
      continue;
    }
    // Only some of the run's nodes take pods: it splits into the full ones,
    // the one partly filled, and the untouched rest.
    const int64_t full = *count / q, rest = *count % q;
    std::vector<NodeRun> split;
    if (full > 0) split.push_back({With(run.content, c, q), full});
    if (rest > 0) split.push_back({With(run.content, c, rest), 1});
    if (const int64_t untouched = run.nodes - full - (rest > 0 ? 1 : 0); untouched > 0) {
      split.push_back({run.content, untouched});
    }
    runs->erase(runs->begin() + static_cast<std::ptrdiff_t>(i));
    runs->insert(runs->begin() + static_cast<std::ptrdiff_t>(i), split.begin(), split.end());
    placed += *count;
    *count = 0;
  }
  return placed;
}

StatusOr<ClassModel::Estimate> ClassModel::EstimateGroup(size_t g, std::span<const int64_t> remaining, int64_t limit) {
  Estimate e;
  e.placed.assign(classes_.size(), 0);
  int64_t added = 0;
  bool adding = true;
  for (uint32_t c : order_[g]) {
    int64_t r = remaining[c];
    if (r <= 0) continue;
    DRA_ASSIGN_OR_RETURN(const int64_t on_added, FirstFit(g, c, &r, &e.runs));
    e.placed[c] += on_added;
    while (r > 0 && adding) {
      // No node after an empty one, nor past the limit.
      if ((!e.runs.empty() && e.runs.back().content.empty()) || added >= limit) {
        adding = false;
        break;
      }
      DRA_ASSIGN_OR_RETURN(const int64_t q, Fill(g, {}, c));
      if (q == 0) {  // the node stays, empty; the next class
        e.runs.push_back({{}, 1});
        ++added;
        break;
      }
      const int64_t full = std::min(r / q, limit - added);
      const int64_t take = full > 0 ? full * q : r;
      e.runs.push_back({NodeContent{{c, full > 0 ? q : r}}, full > 0 ? full : 1});
      added += full > 0 ? full : 1;
      e.placed[c] += take;
      r -= take;
    }
  }
  std::erase_if(e.runs, [](const NodeRun& run) { return run.content.empty(); });
  for (const NodeRun& run : e.runs) e.nodes += run.nodes;
  return e;
}

StatusOr<std::vector<int64_t>> ClassModel::Pack(std::span<const int64_t> counts, std::span<const int64_t> remaining) {
  std::vector<std::vector<NodeRun>> runs(counts.size());
  for (size_t g = 0; g < counts.size(); ++g) {
    if (counts[g] > 0) runs[g].push_back({{}, counts[g]});
  }
  // First fit decreasing: per class, the groups it fits and its fewest pods
  // on a fresh node of one.
  if (pack_order_.size() != classes_.size()) {
    std::vector<std::pair<int64_t, int64_t>> hardness(classes_.size(), {0, kMaxFill});
    for (uint32_t c = 0; c < classes_.size(); ++c) {
      for (size_t g = 0; g < groups_.size(); ++g) {
        DRA_ASSIGN_OR_RETURN(const int64_t k, Fill(g, {}, c));
        if (k == 0) continue;
        ++hardness[c].first;
        hardness[c].second = std::min(hardness[c].second, k);
      }
    }
    pack_order_.resize(classes_.size());
    std::iota(pack_order_.begin(), pack_order_.end(), 0u);
    std::stable_sort(pack_order_.begin(), pack_order_.end(),
                     [&](uint32_t a, uint32_t b) { return hardness[a] < hardness[b]; });
  }
  std::vector<int64_t> placed(classes_.size(), 0);
  for (uint32_t c : pack_order_) {
    int64_t r = remaining[c];
    for (size_t g = 0; g < counts.size() && r > 0; ++g) {
      DRA_ASSIGN_OR_RETURN(const int64_t p, FirstFit(g, c, &r, &runs[g]));
      placed[c] += p;
    }
  }
  return placed;
}

}  // namespace dra::plan
