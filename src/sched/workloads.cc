#include "sched/workloads.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/fnv.h"
#include "sched/node_filters.h"
#include "sched/pod_claims.h"
#include "sched/snapshot.h"

namespace dra::sched {
namespace {

using api::WorkloadKind;

// Upstream rand.SafeEncodeString(fmt.Sprint(hash)): each decimal digit mapped
// to the name alphabet, so the hash cannot spell words.
std::string TemplateHash(std::string_view kind, const api::ObjectMeta& meta) {
  std::string digits = std::to_string(Fnv1a32(fmt::format("{}/{}/{}", kind, meta.namespace_, meta.name)));
  std::string out;
  for (char c : digits) out += kNameSuffixAlphabet[static_cast<size_t>(c) % kNameSuffixAlphabet.size()];
  return out;
}

std::string Namespace(const api::Workload& w) {
  return w.metadata.namespace_.empty() ? "default" : w.metadata.namespace_;
}

std::string UidOf(std::string_view kind, std::string_view ns, const api::ObjectMeta& meta) {
  if (!meta.uid.empty()) return meta.uid;
  return StableUid(fmt::format("{}/{}/{}", kind, ns, meta.name));
}

api::OwnerReference ControllerRef(std::string_view api_version, std::string_view kind, std::string name,
                                  std::string uid) {
  return api::OwnerReference{.api_version = std::string(api_version),
                             .kind = std::string(kind),
                             .name = std::move(name),
                             .uid = std::move(uid),
                             .controller = true,
                             .block_owner_deletion = true};
}

bool RefersTo(const api::OwnerReference& ref, std::string_view kind, std::string_view name, std::string_view uid) {
  if (!uid.empty() && ref.uid == uid) return true;
  return ref.kind == kind && ref.name == name;
}

// Builds the pods of one workload, keeping names unique across the input.
class Builder {
 public:
  Builder(std::span<const api::Pod> input, ExpandedWorkloads* out) : out_(out) {
    for (const api::Pod& p : input) taken_.insert(p.metadata.namespace_ + "/" + p.metadata.name);
  }

  // A pod from `w`'s template in namespace `ns`, named `name` (or, if empty,
  // `generate_name` + 5 characters hashed from `key`).
  api::Pod& Add(size_t workload_idx, const api::Workload& w, const std::string& ns, std::string name,
                std::string_view generate_name, std::string_view key, api::OwnerReference owner) {
    api::Pod pod;
    pod.metadata.labels = w.template_.metadata.labels;
    pod.metadata.annotations = w.template_.metadata.annotations;
    pod.metadata.namespace_ = ns;
    pod.metadata.creation_timestamp = w.metadata.creation_timestamp;
    pod.metadata.source = w.metadata.source;
    pod.spec = w.template_.spec;
    if (name.empty()) {
      // The API server's generateName: the base cut to 58 characters.
      std::string base(generate_name.substr(0, std::min(generate_name.size(), kMaxGeneratedNameBase)));
      for (int attempt = 0;; ++attempt) {
        name = base + StableNameSuffix(ns, generate_name, key, attempt);
        if (!taken_.contains(ns + "/" + name)) break;
      }
      pod.metadata.generate_name = base;
    }
    taken_.insert(ns + "/" + name);
    pod.metadata.name = std::move(name);
    pod.metadata.owner_references.push_back(std::move(owner));
    out_->pods.push_back(std::move(pod));
    out_->workload.push_back(workload_idx);
    return out_->pods.back();
  }

 private:
  ExpandedWorkloads* out_;
  std::set<std::string> taken_;
};

void SetLabel(api::Pod& pod, std::string_view key, std::string value) {
  pod.metadata.labels.insert_or_assign(std::string(key), std::move(value));
}

// Upstream daemon/util AddOrUpdateDaemonPodTolerations: tolerations every
// DaemonSet pod gets unless it already has one for the key and effect.
void AddDaemonTolerations(api::PodSpec* spec) {
  std::vector<std::pair<std::string_view, api::TaintEffect>> wanted = {
      {"node.kubernetes.io/not-ready", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/unreachable", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/disk-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/memory-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/pid-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/unschedulable", api::TaintEffect::kNoSchedule},
  };
  const api::RawJson* host_network = spec->extra.find("hostNetwork");
  if (host_network != nullptr && *host_network == "true") {
    wanted.emplace_back("node.kubernetes.io/network-unavailable", api::TaintEffect::kNoSchedule);
  }
  // Not a structured binding: clang 14 cannot capture one in the lambda.
  for (const auto& want : wanted) {
    const auto& key = want.first;
    const auto effect = want.second;
    bool present = std::any_of(spec->tolerations.begin(), spec->tolerations.end(),
                               [&](const api::Toleration& t) { return t.key == key && t.effect.value() == effect; });
    if (!present) {
      spec->tolerations.push_back(api::Toleration{.key = std::string(key),
                                                  .operator_ = api::TolerationOperator::kExists,
                                                  .value = "",
                                                  .effect = effect,
                                                  .toleration_seconds = std::nullopt});
    }
  }
}

// Upstream daemon/util ReplaceDaemonSetPodNodeNameNodeAffinity: every required
// term gets matchFields metadata.name In [node] (a single term if there were none).
void PinToNode(api::PodSpec* spec, const std::string& node) {
  api::NodeSelectorRequirement req{
      .key = "metadata.name", .operator_ = api::NodeSelectorOperator::kIn, .values = {node}};
  if (!spec->affinity) spec->affinity = api::Affinity{};
  if (!spec->affinity->node_affinity) spec->affinity->node_affinity = api::NodeAffinity{};
  auto& required = spec->affinity->node_affinity->required_during_scheduling_ignored_during_execution;
  if (!required || required->node_selector_terms.empty()) {
    required = api::NodeSelector{
        .node_selector_terms = {api::NodeSelectorTerm{.match_expressions = {}, .match_fields = {req}}}};
    return;
  }
  for (api::NodeSelectorTerm& term : required->node_selector_terms) term.match_fields = {req};
}

// Upstream daemon controller NodeShouldRunDaemonPod's predicates: nodeName,
// required node affinity / nodeSelector, NoSchedule and NoExecute taints.
bool ShouldRunOn(const api::Pod& pod, const api::Node& node) {
  if (!pod.spec.node_name.empty() && pod.spec.node_name != node.metadata.name) return false;
  StatusOr<std::vector<std::string>> affinity = FilterNodeAffinity(pod, node);
  if (!affinity.ok() || !affinity->empty()) return false;
  return FilterTaints(pod, node).empty();
}

// Why `w` must not be expanded, or "" (see "Pods already in the input").
std::string AlreadyRunning(const api::Workload& w, std::span<const api::Workload> workloads,
                           std::span<const api::Pod> pods) {
  std::string ns = Namespace(w);
  std::string_view kind = api::EnumName(w.kind);
  for (const api::Pod& p : pods) {
    if (p.metadata.namespace_ != ns) continue;
    for (const api::OwnerReference& ref : p.metadata.owner_references) {
      if (RefersTo(ref, kind, w.metadata.name, w.metadata.uid)) {
        return fmt::format("input pod {}/{} is owned by it", ns, p.metadata.name);
      }
      if (w.kind != WorkloadKind::kDeployment || ref.kind != "ReplicaSet") continue;
      const std::string* hash = p.metadata.labels.find("pod-template-hash");
      if (hash != nullptr && ref.name == w.metadata.name + "-" + *hash) {
        return fmt::format("input pod {}/{} is owned by its ReplicaSet {}", ns, p.metadata.name, ref.name);
      }
    }
  }
  if (w.kind == WorkloadKind::kDeployment) {
    for (const api::Workload& rs : workloads) {
      if (rs.kind != WorkloadKind::kReplicaSet || Namespace(rs) != ns) continue;
      for (const api::OwnerReference& ref : rs.metadata.owner_references) {
        if (RefersTo(ref, "Deployment", w.metadata.name, w.metadata.uid)) {
          return fmt::format("input ReplicaSet {}/{} is owned by it", ns, rs.metadata.name);
        }
      }
    }
  }
  return "";
}

}  // namespace

std::string WorkloadDisplayName(const api::Workload& workload) {
  std::string out(api::EnumName(workload.kind));
  out += ' ';
  if (!workload.metadata.namespace_.empty()) out += workload.metadata.namespace_ + "/";
  return out + workload.metadata.name;
}

ExpandedWorkloads ExpandWorkloads(std::span<const api::Workload> workloads, std::span<const api::Pod> pods,
                                  std::span<const api::Node> nodes) {
  ExpandedWorkloads out;
  Builder builder(pods, &out);
  std::vector<const api::Node*> sorted_nodes;
  for (const api::Node& n : nodes) sorted_nodes.push_back(&n);
  std::stable_sort(sorted_nodes.begin(), sorted_nodes.end(),
                   [](const api::Node* a, const api::Node* b) { return a->metadata.name < b->metadata.name; });

  for (size_t w_idx = 0; w_idx < workloads.size(); ++w_idx) {
    const api::Workload& w = workloads[w_idx];
    const std::string ns = Namespace(w);
    const std::string& name = w.metadata.name;
    std::string_view kind = api::EnumName(w.kind);
    std::string_view api_version = api::WorkloadApiVersion(w.kind);
    if (std::string why = AlreadyRunning(w, workloads, pods); !why.empty()) {
      out.notes.push_back(fmt::format("{}: not expanded: {}", WorkloadDisplayName(w), why));
      continue;
    }
    // Pods a Deployment, ReplicaSet, StatefulSet or Job asks for (a DaemonSet's
    // are bounded by the nodes).
    int64_t wanted = 0;
    if (w.kind == WorkloadKind::kJob) {
      if (!w.suspend) {
        int32_t parallelism = w.parallelism.value_or(1);
        wanted = w.completions ? std::min(parallelism, *w.completions) : parallelism;
      }
    } else if (w.kind != WorkloadKind::kDaemonSet && w.kind != WorkloadKind::kCronJob) {
      wanted = w.replicas.value_or(1);
    }
    if (static_cast<int64_t>(out.pods.size()) + wanted > kMaxWorkloadPods) {
      out.over_limit.emplace_back(w_idx, wanted);
      continue;
    }
    const std::string uid = UidOf(kind, ns, w.metadata);
    const size_t before = out.pods.size();
    switch (w.kind) {
      case WorkloadKind::kDeployment:
      case WorkloadKind::kReplicaSet: {
        std::string rs_name = name;
        std::string rs_uid = uid;
        std::string hash;
        if (w.kind == WorkloadKind::kDeployment) {
          hash = TemplateHash(kind, api::ObjectMeta{.name = name, .namespace_ = ns});
          rs_name = name + "-" + hash;
          rs_uid = StableUid(fmt::format("ReplicaSet/{}/{}", ns, rs_name));
        }
        int32_t replicas = w.replicas.value_or(1);
        for (int32_t i = 0; i < replicas; ++i) {
          api::Pod& pod = builder.Add(w_idx, w, ns, "", rs_name + "-", std::to_string(i),
                                      ControllerRef("apps/v1", "ReplicaSet", rs_name, rs_uid));
          if (!hash.empty()) SetLabel(pod, "pod-template-hash", hash);
        }
        break;
      }
      case WorkloadKind::kStatefulSet: {
        std::string revision = name + "-" + TemplateHash(kind, api::ObjectMeta{.name = name, .namespace_ = ns});
        int32_t replicas = w.replicas.value_or(1);
        for (int32_t i = 0; i < replicas; ++i) {
          std::string pod_name = fmt::format("{}-{}", name, i);
          api::Pod& pod = builder.Add(w_idx, w, ns, pod_name, "", "", ControllerRef(api_version, kind, name, uid));
          SetLabel(pod, "controller-revision-hash", revision);
          SetLabel(pod, "statefulset.kubernetes.io/pod-name", pod_name);
          SetLabel(pod, "apps.kubernetes.io/pod-index", std::to_string(i));
        }
        break;
      }
      case WorkloadKind::kJob: {
        if (w.suspend) break;
        int32_t parallelism = w.parallelism.value_or(1);
        int32_t count = w.completions ? std::min(parallelism, *w.completions) : parallelism;
        bool indexed = w.completion_mode == "Indexed";
        for (int32_t i = 0; i < count; ++i) {
          std::string generate_name = indexed ? fmt::format("{}-{}-", name, i) : name + "-";
          api::Pod& pod = builder.Add(w_idx, w, ns, "", generate_name, std::to_string(i),
                                      ControllerRef(api_version, kind, name, uid));
          SetLabel(pod, "batch.kubernetes.io/controller-uid", uid);
          SetLabel(pod, "batch.kubernetes.io/job-name", name);
          SetLabel(pod, "controller-uid", uid);
          SetLabel(pod, "job-name", name);
          if (indexed) {
            SetLabel(pod, "batch.kubernetes.io/job-completion-index", std::to_string(i));
            pod.metadata.annotations.insert_or_assign("batch.kubernetes.io/job-completion-index", std::to_string(i));
          }
        }
        break;
      }
      case WorkloadKind::kCronJob:
        // Its Jobs start on its schedule, not now.
        break;
      case WorkloadKind::kDaemonSet: {
        api::Pod probe;
        probe.spec = w.template_.spec;
        AddDaemonTolerations(&probe.spec);
        std::string revision = TemplateHash(kind, api::ObjectMeta{.name = name, .namespace_ = ns});
        std::string generation = std::to_string(w.metadata.generation > 0 ? w.metadata.generation : 1);
        for (const api::Node* node : sorted_nodes) {
          if (!ShouldRunOn(probe, *node)) continue;
          api::Pod& pod = builder.Add(w_idx, w, ns, "", name + "-", node->metadata.name,
                                      ControllerRef(api_version, kind, name, uid));
          pod.spec = probe.spec;
          PinToNode(&pod.spec, node->metadata.name);
          SetLabel(pod, "controller-revision-hash", revision);
          SetLabel(pod, "pod-template-generation", generation);
        }
        break;
      }
    }
    if (out.pods.size() == before) {
      out.notes.push_back(fmt::format(
          "{}: no pods ({})", WorkloadDisplayName(w),
          w.kind == WorkloadKind::kDaemonSet ? "no Node passes its nodeName, nodeSelector, affinity and taints"
          : w.kind == WorkloadKind::kJob     ? "suspended or parallelism 0"
          : w.kind == WorkloadKind::kCronJob
              ? fmt::format("a CronJob starts Jobs on its schedule \"{}\", not now", w.schedule)
              : "0 replicas"));
    }
  }
  return out;
}

}  // namespace dra::sched
