#include "sched/workloads.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sched/pod_claims.h"
#include "sched/snapshot.h"

namespace dra::sched {
namespace {

api::Workload MakeWorkload(api::WorkloadKind kind, std::string name) {
  api::Workload w;
  w.kind = kind;
  w.metadata.name = std::move(name);
  w.metadata.namespace_ = "ml";
  w.metadata.creation_timestamp = "2025-06-01T00:00:00Z";
  w.template_.metadata.labels.insert_or_assign("app", "x");
  api::Container c;
  c.name = "main";
  c.resources.claims.push_back({.name = "gpu", .request = ""});
  w.template_.spec.containers.push_back(c);
  w.template_.spec.resource_claims.push_back(
      {.name = "gpu", .resource_claim_name = std::nullopt, .resource_claim_template_name = "one-gpu"});
  return w;
}

api::Node MakeNode(std::string name) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels.insert_or_assign("kubernetes.io/hostname", n.metadata.name);
  return n;
}

std::vector<std::string> Names(const ExpandedWorkloads& e) {
  std::vector<std::string> out;
  for (const api::Pod& p : e.pods) out.push_back(p.metadata.name);
  return out;
}

bool IsSuffix(std::string_view s) {
  if (s.size() != 5) return false;
  for (char c : s) {
    if (kNameSuffixAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

TEST(WorkloadsTest, DeploymentMakesReplicasThroughOneReplicaSet) {
  api::Workload d = MakeWorkload(api::WorkloadKind::kDeployment, "vllm");
  d.replicas = 3;
  ExpandedWorkloads e = ExpandWorkloads(std::vector{d}, {}, {});
  ASSERT_EQ(e.pods.size(), 3u);
  const std::string* hash = e.pods[0].metadata.labels.find("pod-template-hash");
  ASSERT_NE(hash, nullptr);
  const std::string rs = "vllm-" + *hash;
  std::vector<std::string> names = Names(e);
  for (size_t i = 0; i < names.size(); ++i) {
    const api::Pod& p = e.pods[i];
    ASSERT_TRUE(names[i].starts_with(rs + "-")) << names[i];
    EXPECT_TRUE(IsSuffix(names[i].substr(rs.size() + 1))) << names[i];
    EXPECT_EQ(p.metadata.namespace_, "ml");
    EXPECT_EQ(p.metadata.generate_name, rs + "-");
    EXPECT_EQ(p.metadata.creation_timestamp, "2025-06-01T00:00:00Z");
    EXPECT_EQ(*p.metadata.labels.find("app"), "x");
    EXPECT_EQ(*p.metadata.labels.find("pod-template-hash"), *hash);
    ASSERT_EQ(p.metadata.owner_references.size(), 1u);
    EXPECT_EQ(p.metadata.owner_references[0].kind, "ReplicaSet");
    EXPECT_EQ(p.metadata.owner_references[0].name, rs);
    EXPECT_EQ(p.metadata.owner_references[0].controller, true);
    ASSERT_EQ(p.spec.resource_claims.size(), 1u);
    EXPECT_EQ(p.spec.resource_claims[0].resource_claim_template_name, "one-gpu");
    EXPECT_EQ(e.workload[i], 0u);
  }
  EXPECT_NE(names[0], names[1]);
  EXPECT_NE(names[1], names[2]);
  // Deterministic.
  EXPECT_EQ(Names(ExpandWorkloads(std::vector{d}, {}, {})), names);
}

TEST(WorkloadsTest, DefaultsAndZeroReplicas) {
  api::Workload d = MakeWorkload(api::WorkloadKind::kDeployment, "one");
  EXPECT_EQ(ExpandWorkloads(std::vector{d}, {}, {}).pods.size(), 1u);
  d.replicas = 0;
  ExpandedWorkloads e = ExpandWorkloads(std::vector{d}, {}, {});
  EXPECT_TRUE(e.pods.empty());
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0], "Deployment ml/one: no pods (0 replicas)");
}

TEST(WorkloadsTest, PodsOverTheLimitAreNotCreated) {
  api::Workload small = MakeWorkload(api::WorkloadKind::kStatefulSet, "small");
  small.replicas = 2;
  api::Workload huge = MakeWorkload(api::WorkloadKind::kDeployment, "huge");
  huge.replicas = 2147483647;
  api::Workload job = MakeWorkload(api::WorkloadKind::kJob, "job");
  job.parallelism = static_cast<int32_t>(kMaxWorkloadPods - 1);  // 2 + this is one too many
  ExpandedWorkloads e = ExpandWorkloads(std::vector{small, huge, job}, {}, {});
  EXPECT_EQ(e.pods.size(), 2u);
  ASSERT_EQ(e.over_limit.size(), 2u);
  EXPECT_EQ(e.over_limit[0], (std::pair<size_t, int64_t>{1, 2147483647}));
  EXPECT_EQ(e.over_limit[1], (std::pair<size_t, int64_t>{2, kMaxWorkloadPods - 1}));
}

TEST(WorkloadsTest, ReplicaSetPodsAreNamedAfterIt) {
  api::Workload rs = MakeWorkload(api::WorkloadKind::kReplicaSet, "web-5d9c");
  rs.replicas = 2;
  ExpandedWorkloads e = ExpandWorkloads(std::vector{rs}, {}, {});
  ASSERT_EQ(e.pods.size(), 2u);
  for (const api::Pod& p : e.pods) {
    EXPECT_TRUE(p.metadata.name.starts_with("web-5d9c-")) << p.metadata.name;
    EXPECT_EQ(p.metadata.owner_references[0].kind, "ReplicaSet");
    EXPECT_EQ(p.metadata.owner_references[0].name, "web-5d9c");
    EXPECT_EQ(p.metadata.labels.find("pod-template-hash"), nullptr);
  }
}

TEST(WorkloadsTest, StatefulSetPodsHaveOrdinals) {
  api::Workload s = MakeWorkload(api::WorkloadKind::kStatefulSet, "db");
  s.replicas = 3;
  s.metadata.uid = "11111111-2222-4333-8444-555555555555";
  ExpandedWorkloads e = ExpandWorkloads(std::vector{s}, {}, {});
  EXPECT_EQ(Names(e), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
  EXPECT_EQ(*e.pods[2].metadata.labels.find("statefulset.kubernetes.io/pod-name"), "db-2");
  EXPECT_EQ(*e.pods[2].metadata.labels.find("apps.kubernetes.io/pod-index"), "2");
  EXPECT_EQ(e.pods[0].metadata.owner_references[0].uid, "11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(e.pods[0].metadata.owner_references[0].api_version, "apps/v1");
  EXPECT_EQ(e.pods[0].metadata.owner_references[0].kind, "StatefulSet");
}

TEST(WorkloadsTest, JobRunsMinOfParallelismAndCompletions) {
  struct Case {
    std::string name;
    std::optional<int32_t> parallelism;
    std::optional<int32_t> completions;
    bool suspend;
    size_t want;
  };
  std::vector<Case> cases = {
      {.name = "defaults", .parallelism = std::nullopt, .completions = std::nullopt, .suspend = false, .want = 1},
      {.name = "parallel_4_of_10", .parallelism = 4, .completions = 10, .suspend = false, .want = 4},
      {.name = "parallel_4_of_2", .parallelism = 4, .completions = 2, .suspend = false, .want = 2},
      {.name = "work_queue", .parallelism = 3, .completions = std::nullopt, .suspend = false, .want = 3},
      {.name = "completions_only", .parallelism = std::nullopt, .completions = 5, .suspend = false, .want = 1},
      {.name = "suspended", .parallelism = 4, .completions = 4, .suspend = true, .want = 0},
  };
  for (const Case& c : cases) {
    api::Workload j = MakeWorkload(api::WorkloadKind::kJob, "train");
    j.parallelism = c.parallelism;
    j.completions = c.completions;
    j.suspend = c.suspend;
    ExpandedWorkloads e = ExpandWorkloads(std::vector{j}, {}, {});
    ASSERT_EQ(e.pods.size(), c.want) << c.name;
    for (const api::Pod& p : e.pods) {
      EXPECT_TRUE(p.metadata.name.starts_with("train-")) << c.name;
      EXPECT_TRUE(IsSuffix(p.metadata.name.substr(6))) << p.metadata.name;
      EXPECT_EQ(*p.metadata.labels.find("batch.kubernetes.io/job-name"), "train");
      EXPECT_EQ(*p.metadata.labels.find("job-name"), "train");
      EXPECT_EQ(p.metadata.owner_references[0].api_version, "batch/v1");
      EXPECT_EQ(p.metadata.owner_references[0].kind, "Job");
      EXPECT_EQ(p.metadata.owner_references[0].uid, StableUid("Job/ml/train"));
      EXPECT_EQ(*p.metadata.labels.find("controller-uid"), StableUid("Job/ml/train"));
    }
  }
}

TEST(WorkloadsTest, IndexedJobPodsCarryTheirIndex) {
  api::Workload j = MakeWorkload(api::WorkloadKind::kJob, "shard");
  j.parallelism = 2;
  j.completions = 2;
  j.completion_mode = "Indexed";
  ExpandedWorkloads e = ExpandWorkloads(std::vector{j}, {}, {});
  ASSERT_EQ(e.pods.size(), 2u);
  EXPECT_TRUE(e.pods[1].metadata.name.starts_with("shard-1-")) << e.pods[1].metadata.name;
  EXPECT_EQ(*e.pods[1].metadata.labels.find("batch.kubernetes.io/job-completion-index"), "1");
  EXPECT_EQ(*e.pods[1].metadata.annotations.find("batch.kubernetes.io/job-completion-index"), "1");
}

TEST(WorkloadsTest, DaemonSetRunsOnEligibleNodes) {
  api::Workload ds = MakeWorkload(api::WorkloadKind::kDaemonSet, "dcgm");
  ds.template_.spec.node_selector.insert_or_assign("gpu", "true");
  ds.template_.spec.tolerations.push_back({.key = "nvidia.com/gpu",
                                           .operator_ = api::TolerationOperator::kExists,
                                           .value = "",
                                           .effect = {},
                                           .toleration_seconds = std::nullopt});
  std::vector<api::Node> nodes;
  nodes.push_back(MakeNode("gpu-b"));  // GPU taint, tolerated
  nodes.back().metadata.labels.insert_or_assign("gpu", "true");
  nodes.back().spec.taints.push_back(
      {.key = "nvidia.com/gpu", .value = "present", .effect = api::TaintEffect::kNoSchedule, .time_added = ""});
  nodes.push_back(MakeNode("gpu-a"));  // unschedulable and not ready: default tolerations
  nodes.back().metadata.labels.insert_or_assign("gpu", "true");
  nodes.back().spec.unschedulable = true;
  nodes.back().spec.taints.push_back(
      {.key = "node.kubernetes.io/not-ready", .value = "", .effect = api::TaintEffect::kNoExecute, .time_added = ""});
  nodes.push_back(MakeNode("gpu-c"));  // untolerated taint
  nodes.back().metadata.labels.insert_or_assign("gpu", "true");
  nodes.back().spec.taints.push_back(
      {.key = "dedicated", .value = "infra", .effect = api::TaintEffect::kNoSchedule, .time_added = ""});
  nodes.push_back(MakeNode("cpu-1"));  // no label
  ExpandedWorkloads e = ExpandWorkloads(std::vector{ds}, {}, nodes);
  ASSERT_EQ(e.pods.size(), 2u);
  // Node name order; each pod pinned with matchFields.
  const char* want_nodes[] = {"gpu-a", "gpu-b"};
  for (size_t i = 0; i < 2; ++i) {
    const api::Pod& p = e.pods[i];
    EXPECT_TRUE(p.metadata.name.starts_with("dcgm-")) << p.metadata.name;
    EXPECT_TRUE(p.spec.node_name.empty());
    ASSERT_TRUE(p.spec.affinity && p.spec.affinity->node_affinity &&
                p.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution);
    const auto& terms =
        p.spec.affinity->node_affinity->required_during_scheduling_ignored_during_execution->node_selector_terms;
    ASSERT_EQ(terms.size(), 1u);
    ASSERT_EQ(terms[0].match_fields.size(), 1u);
    EXPECT_EQ(terms[0].match_fields[0].key, "metadata.name");
    EXPECT_EQ(terms[0].match_fields[0].values, std::vector<std::string>{want_nodes[i]});
    EXPECT_EQ(p.metadata.owner_references[0].kind, "DaemonSet");
    // The template's toleration plus the 6 defaults.
    EXPECT_EQ(p.spec.tolerations.size(), 7u);
  }
  EXPECT_NE(e.pods[0].metadata.name, e.pods[1].metadata.name);
}

TEST(WorkloadsTest, DaemonSetWithoutNodesMakesNoPods) {
  api::Workload ds = MakeWorkload(api::WorkloadKind::kDaemonSet, "agent");
  ExpandedWorkloads e = ExpandWorkloads(std::vector{ds}, {}, {});
  EXPECT_TRUE(e.pods.empty());
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0], "DaemonSet ml/agent: no pods (no Node passes its nodeName, nodeSelector, affinity and taints)");
}

// A CronJob starts its Jobs on its schedule: nothing now, whatever its
// jobTemplate's parallelism, and a note that says why.
TEST(WorkloadsTest, CronJobMakesNoPodsNow) {
  api::Workload cj = MakeWorkload(api::WorkloadKind::kCronJob, "nightly");
  cj.schedule = "0 2 * * *";
  cj.parallelism = 4;
  api::Node node = MakeNode("n1");
  ExpandedWorkloads e = ExpandWorkloads(std::vector{cj}, {}, std::vector{node});
  EXPECT_TRUE(e.pods.empty());
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0], "CronJob ml/nightly: no pods (a CronJob starts Jobs on its schedule \"0 2 * * *\", not now)");
}

api::Pod OwnedPod(std::string name, std::string owner_kind, std::string owner_name) {
  api::Pod p;
  p.metadata.namespace_ = "ml";
  p.metadata.name = std::move(name);
  p.metadata.owner_references.push_back({.api_version = "apps/v1",
                                         .kind = std::move(owner_kind),
                                         .name = std::move(owner_name),
                                         .uid = "",
                                         .controller = true,
                                         .block_owner_deletion = true});
  return p;
}

TEST(WorkloadsTest, InputPodsOwnedByAWorkloadAreNotDuplicated) {
  api::Workload sts = MakeWorkload(api::WorkloadKind::kStatefulSet, "db");
  sts.replicas = 3;
  api::Workload deploy = MakeWorkload(api::WorkloadKind::kDeployment, "web");
  api::Workload job = MakeWorkload(api::WorkloadKind::kJob, "train");
  job.metadata.uid = "job-uid";
  api::Workload other = MakeWorkload(api::WorkloadKind::kDeployment, "api");

  std::vector<api::Pod> pods;
  pods.push_back(OwnedPod("db-0", "StatefulSet", "db"));
  pods.push_back(OwnedPod("web-7c4b-zq2x9", "ReplicaSet", "web-7c4b"));
  pods.back().metadata.labels.insert_or_assign("pod-template-hash", "7c4b");
  pods.push_back(OwnedPod("train-abcde", "Job", "renamed"));  // matched by uid
  pods.back().metadata.owner_references[0].uid = "job-uid";
  // Same name, other namespace: does not count.
  pods.push_back(OwnedPod("api-xyz-abcde", "ReplicaSet", "api-xyz"));
  pods.back().metadata.namespace_ = "other";
  pods.back().metadata.labels.insert_or_assign("pod-template-hash", "xyz");

  ExpandedWorkloads e = ExpandWorkloads(std::vector{sts, deploy, job, other}, pods, {});
  ASSERT_EQ(e.pods.size(), 1u);
  EXPECT_EQ(e.workload[0], 3u);
  ASSERT_EQ(e.notes.size(), 3u);
  EXPECT_EQ(e.notes[0], "StatefulSet ml/db: not expanded: input pod ml/db-0 is owned by it");
  EXPECT_EQ(e.notes[1],
            "Deployment ml/web: not expanded: input pod ml/web-7c4b-zq2x9 is owned by its ReplicaSet web-7c4b");
  EXPECT_EQ(e.notes[2], "Job ml/train: not expanded: input pod ml/train-abcde is owned by it");
}

TEST(WorkloadsTest, ReplicaSetOfAnInputDeploymentIsExpandedInsteadOfIt) {
  api::Workload deploy = MakeWorkload(api::WorkloadKind::kDeployment, "web");
  deploy.replicas = 2;
  api::Workload rs = MakeWorkload(api::WorkloadKind::kReplicaSet, "web-6f8d");
  rs.replicas = 2;
  rs.metadata.owner_references.push_back({.api_version = "apps/v1",
                                          .kind = "Deployment",
                                          .name = "web",
                                          .uid = "",
                                          .controller = true,
                                          .block_owner_deletion = true});
  ExpandedWorkloads e = ExpandWorkloads(std::vector{deploy, rs}, {}, {});
  ASSERT_EQ(e.pods.size(), 2u);
  EXPECT_EQ(e.workload[0], 1u);
  EXPECT_TRUE(e.pods[0].metadata.name.starts_with("web-6f8d-"));
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0], "Deployment ml/web: not expanded: input ReplicaSet ml/web-6f8d is owned by it");
}

TEST(WorkloadsTest, GeneratedNamesAvoidInputPods) {
  api::Workload rs = MakeWorkload(api::WorkloadKind::kReplicaSet, "web");
  ExpandedWorkloads first = ExpandWorkloads(std::vector{rs}, {}, {});
  ASSERT_EQ(first.pods.size(), 1u);
  // An unrelated input pod that happens to have the name the hash gives.
  api::Pod clash;
  clash.metadata.namespace_ = "ml";
  clash.metadata.name = first.pods[0].metadata.name;
  ExpandedWorkloads second = ExpandWorkloads(std::vector{rs}, std::vector{clash}, {});
  ASSERT_EQ(second.pods.size(), 1u);
  EXPECT_NE(second.pods[0].metadata.name, clash.metadata.name);
  EXPECT_TRUE(second.pods[0].metadata.name.starts_with("web-"));
}

}  // namespace
}  // namespace dra::sched
