// Node-group files and the scale-up planner, on plans worked out by hand.
#include "plan/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "base/testing/sanitizers.h"
#include "manifest/loader.h"
#include "plan/node_group.h"
#include "plan/plan_testing.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::plan {
namespace {

using plan_testing::Group;
using plan_testing::kClass;
using plan_testing::NodeWithGpus;
using plan_testing::Pod;
using plan_testing::Template;

class PlanTest : public ::testing::Test {
 protected:
  void Load(const std::string& cluster, const std::string& groups) {
    manifest::LoadResult loaded;
    manifest::Loader(manifest::LoadOptions{}).LoadText(cluster, "cluster.yaml", &loaded);
    ASSERT_EQ(loaded.error_count(), 0u) << (loaded.messages.empty() ? "" : loaded.messages[0].ToString());
    std::vector<const api::Object*> objects;
    for (manifest::LoadedObject& o : loaded.objects) {
      api::SetDefaults(o.object, "2026-12-01T08:00:00Z");
      objects.push_back(&o.object);
    }
    snapshot_ = sched::NewSnapshot(objects, gates_);
    std::vector<manifest::LoadMessage> messages;
    groups_.clear();
    ParseNodeGroups(groups, "groups.yaml", gates_, &groups_, &messages);
    ASSERT_TRUE(messages.empty()) << messages[0].ToString();
  }

  PlanResult Plan(Expander expander, double max_seconds = 10) {
    auto policy = sched::NewPolicy("kube");
    EXPECT_TRUE(policy.ok());
    policy_ = std::move(*policy);
    PlanOptions options{
        .policy = policy_.get(), .expander = expander, .max_seconds = max_seconds, .valuation = valuation_};
    StatusOr<PlanResult> r = PlanScaleUp(snapshot_, groups_, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : PlanResult{};
  }

  // The closed loop: the cluster with the plan's nodes added, scheduled,
  // places exactly the pods the plan placed (`c`: the case, for messages).
  void ExpectClosedLoop(const PlanResult& plan, int c) {
    sched::Snapshot s = snapshot_;
    for (const NodeInstance& n : plan.added) {
      s.nodes.push_back(n.node);
      for (const api::ResourceSlice& slice : n.slices) s.slices.push_back(slice);
    }
    StatusOr<sched::ScheduleResult> r = sched::Schedule(&s, sched::ScheduleOptions{.policy = policy_.get()});
    ASSERT_TRUE(r.ok());
    std::set<std::string> placed;
    for (const sched::PodOutcome& p : r->pods) {
      if (p.kind == sched::PodOutcome::Kind::kPlaced) placed.insert(p.pod);
    }
    for (const Placement& p : plan.placements) EXPECT_TRUE(placed.contains(p.pod)) << "case " << c << " " << p.pod;
    EXPECT_EQ(placed.size(), plan.placements.size()) << "case " << c;
  }

  // The queue of the first two tests below, with its two groups.
  void LoadMixedQueue() {
    std::string cluster = std::string(kClass) + Template("one", 1) + Template("four", 4) + Template("eight", 8);
    cluster += Pod("big", "four", 8, "32Gi", 1);
    for (int i = 0; i < 4; ++i) cluster += Pod("small-" + std::to_string(i), "one", 1, "4Gi", 2 + i);
    cluster += Pod("huge", "eight", 1, "1Gi", 9);
    Load(cluster, Group("gpu1", 1, 8, "32Gi", 1, 10) + "---\n" + Group("gpu4", 4, 32, "128Gi", 3, 10));
  }

  static std::string Counts(const PlanResult& r) {
    std::string out;
    for (const GroupCount& g : r.scale_up) out += (out.empty() ? "" : " ") + g.group + "=" + std::to_string(g.count);
    return out;
  }

  api::FeatureGates gates_ = api::FeatureGates::Defaults();
  Valuation valuation_ = Valuation::kRuns;
  sched::Snapshot snapshot_;
  std::vector<NodeGroup> groups_;
  std::unique_ptr<sched::ScorePolicy> policy_;
};

// One 4-GPU pod (8 cpu, 32Gi), then four 1-GPU pods (1 cpu, 4Gi), then one
// 8-GPU pod. Groups: gpu1 (1 GPU, 8 cpu, 32Gi, price 1) and gpu4 (4 GPUs,
// 32 cpu, 128Gi, price 3), at most 10 nodes each.
//   - The 8-GPU pod fits no template: unschedulable.
//   - The 4-GPU pod needs a gpu4 node; placed first, it fills it, so the
//     1-GPU pods need 4 more GPUs: a second gpu4 (3) or four gpu1 (4).
//     Every cheaper plan fails: with one gpu4 and at most two gpu1 (price
//     < 6), two 1-GPU pods stay pending. Optimal: gpu4=2, price 6.
//   - price (cost per pod of each group's option): gpu1's option is four
//     nodes for four pods (1.0 a pod), gpu4's two nodes for five (1.2): gpu1
//     first, then one gpu4 for the 4-GPU pod: gpu1=4 gpu4=1, price 7.
//   - least-waste: gpu1's four nodes waste (1 - 1/8) + (1 - 4/32) = 1.75
//     each, 7 in all; gpu4's two waste 1.5 (the 4-GPU pod's node) + 1.75:
//     gpu4=2. most-pods: five pods against four: gpu4=2.
TEST_F(PlanTest, OptimalBeatsThePriceExpanderOnAMixedQueue) {
  LoadMixedQueue();

  PlanResult optimal = Plan(Expander::kOptimal);
  EXPECT_EQ(Counts(optimal), "gpu4=2");
  EXPECT_DOUBLE_EQ(optimal.cost, 6);
  EXPECT_DOUBLE_EQ(optimal.lower_bound, 6);
  EXPECT_FALSE(optimal.stopped_early);
  EXPECT_EQ(optimal.pending, 6u);
  size_t on_new = 0;
  for (const Placement& p : optimal.placements) on_new += p.new_node ? 1 : 0;
  EXPECT_EQ(on_new, 5u);
  ASSERT_EQ(optimal.unschedulable.size(), 1u);
  EXPECT_EQ(optimal.unschedulable[0].pod, "default/huge");
  EXPECT_NE(optimal.unschedulable[0].reason.find("cannot allocate all claims"), std::string::npos)
      << optimal.unschedulable[0].reason;
  ASSERT_EQ(optimal.added.size(), 2u);
  EXPECT_EQ(optimal.added[1].node.metadata.name, "gpu4-1");
  EXPECT_EQ(optimal.added[1].slices[0].spec.node_name, "gpu4-1");
  EXPECT_EQ(optimal.added[1].slices[0].spec.pool.name, "gpu4-1");

  PlanResult price = Plan(Expander::kPrice);
  EXPECT_EQ(Counts(price), "gpu1=4 gpu4=1");
  EXPECT_DOUBLE_EQ(price.cost, 7);
  EXPECT_EQ(Counts(Plan(Expander::kLeastWaste)), "gpu4=2");
  EXPECT_EQ(Counts(Plan(Expander::kMostPods)), "gpu4=2");
}

// The same queue planned on the class model (class_model.h), worked out as
// the cluster autoscaler's estimator does it. Classes: big (8 cpu, 32Gi, 4
// GPUs), small x4 (1 cpu, 4Gi, 1 GPU), huge (1 cpu, 1Gi, 8 GPUs).
//   - gpu1's estimate, classes by cpu/8 + memory/32Gi (big 2, small 0.25,
//     huge 0.16): big fits no gpu1 node, which stays empty; the smalls take
//     it and three more; huge fits none: 4 nodes, 4 pods.
//   - gpu4's (big 0.5, small 0.06, huge 0.04): big fills a node (its 4
//     GPUs); the smalls fit not there but all on a second: 2 nodes, 5 pods.
//   - price: 4 x 1 / 4 = 1.0 a pod against 2 x 3 / 5 = 1.2: gpu1=4; next
//     loop big alone: gpu4=1. least-waste: 4 x 1.75 = 7 against 1.5 + 1.75:
//     gpu4=2. most-pods: gpu4=2.
//   - optimal: the expanders' best on the model is gpu4=2 (5 pods, 6); the
//     linear bound for 5 pods: big needs a gpu4 node's 4 GPUs, so x4 >= 1 +
//     y_s4 / 4 and x1 >= y_s1 with y_s1 + y_s4 = 4: at least 6 (all smalls
//     on gpu4). Proven: lower bound 6.
TEST_F(PlanTest, TheClassModelPlansTheMixedQueueAsTheEstimatorDoes) {
  LoadMixedQueue();
  valuation_ = Valuation::kClasses;

  PlanResult optimal = Plan(Expander::kOptimal);
  EXPECT_TRUE(optimal.class_model);
  EXPECT_EQ(Counts(optimal), "gpu4=2");
  EXPECT_DOUBLE_EQ(optimal.cost, 6);
  EXPECT_DOUBLE_EQ(optimal.lower_bound, 6);
  EXPECT_FALSE(optimal.stopped_early);
  ASSERT_EQ(optimal.unschedulable.size(), 1u);
  EXPECT_EQ(optimal.unschedulable[0].pod, "default/huge");
  EXPECT_EQ(optimal.placements.size(), 5u);

  PlanResult price = Plan(Expander::kPrice);
  EXPECT_TRUE(price.class_model);
  EXPECT_EQ(Counts(price), "gpu1=4 gpu4=1");
  EXPECT_DOUBLE_EQ(price.cost, 7);
  EXPECT_EQ(Counts(Plan(Expander::kLeastWaste)), "gpu4=2");
  EXPECT_EQ(Counts(Plan(Expander::kMostPods)), "gpu4=2");
}

// maxSize binds: two 4-GPU pods and gpu4 limited to one node; gpu1 cannot
// hold them. One pod is placed (price 3); the other is unschedulable.
TEST_F(PlanTest, MaxSizeLimitsThePlan) {
  std::string cluster =
      std::string(kClass) + Template("four", 4) + Pod("a", "four", 1, "1Gi", 1) + Pod("b", "four", 1, "1Gi", 2);
  Load(cluster, Group("gpu1", 1, 8, "32Gi", 1, 10) + "---\n" + Group("gpu4", 4, 32, "128Gi", 3, 1));
  PlanResult r = Plan(Expander::kOptimal);
  EXPECT_EQ(Counts(r), "gpu4=1");
  EXPECT_DOUBLE_EQ(r.cost, 3);
  ASSERT_EQ(r.unschedulable.size(), 1u);
  EXPECT_EQ(r.unschedulable[0].pod, "default/b");
}

// Nothing pending: nothing to add.
TEST_F(PlanTest, NothingPendingAddsNothing) {
  Load(std::string(kClass), Group("gpu1", 1, 8, "32Gi", 1, 10));
  PlanResult r = Plan(Expander::kOptimal);
  EXPECT_TRUE(r.scale_up.empty());
  EXPECT_DOUBLE_EQ(r.cost, 0);
  EXPECT_EQ(r.pending, 0u);
}

// Node a has 2 GPUs, node b 1; two 1-GPU pods (1 cpu, 1Gi each). Whichever
// node the first pod goes to, LeastAllocated sends the second to the other
// (emptier in cpu and memory), so a is at 1/2 of its GPUs and b at 1/1.
//   - threshold 0.6: only a is a candidate (0.5; cpu 1/8, memory 1/32);
//     drained, its pod needs a GPU and b has none free: kept, with the pod
//     as the blocker.
//   - Then nodes of 2 GPUs each and one pod: the node holding it is at 0.5,
//     the other at 0. Both are candidates: the empty one is removable with
//     nothing to move, the other moves its pod to the empty one.
TEST_F(PlanTest, ScaleDownDrainsThroughTheScheduler) {
  std::string cluster = std::string(kClass) + Template("one", 1) + NodeWithGpus("a", 2) + NodeWithGpus("b", 1) +
                        Pod("p1", "one", 1, "1Gi", 1) + Pod("p2", "one", 1, "1Gi", 2);
  Load(cluster, Group("unused", 1, 8, "32Gi", 1, 1));
  auto policy = sched::NewPolicy("kube");
  ASSERT_TRUE(policy.ok());
  PlanOptions options{.policy = policy->get()};
  StatusOr<std::vector<ScaleDownNode>> r = PlanScaleDown(snapshot_, options, 0.6);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].node, "a");
  EXPECT_DOUBLE_EQ((*r)[0].utilization, 0.5);
  EXPECT_FALSE((*r)[0].removable);
  ASSERT_EQ((*r)[0].blockers.size(), 1u);
  EXPECT_NE((*r)[0].blockers[0].reason.find("cannot allocate all claims"), std::string::npos)
      << (*r)[0].blockers[0].reason;

  Load(std::string(kClass) + Template("one", 1) + NodeWithGpus("a", 2) + NodeWithGpus("b", 2) +
           Pod("p1", "one", 1, "1Gi", 1),
       Group("unused", 1, 8, "32Gi", 1, 1));
  r = PlanScaleDown(snapshot_, options, 0.6);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  for (const ScaleDownNode& n : *r) {
    EXPECT_TRUE(n.removable) << n.node;
    EXPECT_TRUE(n.blockers.empty()) << n.node;
  }
  EXPECT_DOUBLE_EQ((*r)[0].utilization, 0);
  EXPECT_TRUE((*r)[0].moves.empty());
  ASSERT_EQ((*r)[1].moves.size(), 1u);
  EXPECT_EQ((*r)[1].moves[0].pod, "default/p1");
  EXPECT_EQ((*r)[1].moves[0].node, (*r)[0].node);
}

// The generated suite's inputs (fixed seed). Node groups of five kinds:
//   h100   4 or 8 whole GPUs (model h100), 2.5-4 a GPU;
//   l4     1, 2 or 4 whole GPUs (model l4), 0.5-1 a GPU;
//   mig    1 or 2 A100s, each either whole or seven 1g partitions (a counter
//          set of 7 slices per GPU: the whole GPU takes 7, a partition 1),
//          1.5-2.5 a GPU;
//   share  1, 2 or 4 GPUs of 24Gi shared by capacity (allowMultipleAllocations,
//          memory requested 1Gi at a time), 0.6-1.2 a GPU;
//   cpu    no devices, 32 cores, 0.3-0.8.
// Pods: whole GPUs of any model but the shared (1, 2, 4 or 8), of h100 (1, 2,
// 4 or 8), one or two MIG partitions, a share of 4-16Gi, or CPU only.
class MixedSuite {
 public:
  explicit MixedSuite(uint64_t seed) : state_(seed) {}

  // The next case: 2-5 groups and 5-19 pods, as the node-group file's text
  // and the cluster's.
  std::pair<std::string, std::string> Case() {
    std::string groups;
    const uint64_t num_groups = 2 + Next(4);
    for (uint64_t g = 0; g < num_groups; ++g) groups += Group("g" + std::to_string(g));
    ResetTemplates();
    std::string cluster = Classes();
    const uint64_t num_pods = 5 + Next(15);
    for (uint64_t i = 0; i < num_pods; ++i) cluster += Pod("p" + std::to_string(i), static_cast<int>(i));
    return {groups, cluster};
  }

  uint64_t Next(uint64_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state_ >> 33) % n;
  }
  double Price(double low, double high) { return low + (high - low) * static_cast<double>(Next(101)) / 100.0; }

  // One group of a random kind.
  std::string Group(const std::string& name) {
    const uint64_t kind = Next(5);
    const int max_size = static_cast<int>(1 + Next(6));
    if (kind == 4) return GroupYaml(name, 32, max_size, Price(0.3, 0.8), "");
    static constexpr int kWholeH100[] = {4, 8}, kL4[] = {1, 2, 4}, kMig[] = {1, 2}, kShare[] = {1, 2, 4};
    int gpus = 0;
    double per_gpu = 0;
    std::string slices;
    const std::string pool = "        pool: {name: template, generation: 1, resourceSliceCount: ";
    const std::string head = "    - apiVersion: resource.k8s.io/v1\n      kind: ResourceSlice\n";
    if (kind == 0 || kind == 1) {
      gpus = kind == 0 ? kWholeH100[Next(2)] : kL4[Next(3)];
      per_gpu = kind == 0 ? Price(2.5, 4) : Price(0.5, 1);
      slices = head +
               "      metadata: {name: template-gpus}\n      spec:\n        driver: gpu.example.com\n"
               "        nodeName: template\n" +
               pool + "1}\n        devices:\n";
      for (int i = 0; i < gpus; ++i) {
        slices += "        - name: gpu-" + std::to_string(i) +
                  "\n          attributes: {model: {string: " + (kind == 0 ? "h100" : "l4") +
                  "}, type: {string: gpu}}\n";
      }
    } else if (kind == 2) {
      gpus = kMig[Next(2)];
      per_gpu = Price(1.5, 2.5);
      slices = head +
               "      metadata: {name: template-counters}\n      spec:\n        driver: gpu.example.com\n"
               "        nodeName: template\n" +
               pool + "2}\n        sharedCounters:\n";
      for (int i = 0; i < gpus; ++i) {
        slices += "        - name: gpu-" + std::to_string(i) + "\n          counters: {slices: {value: \"7\"}}\n";
      }
      slices += head +
                "      metadata: {name: template-gpus}\n      spec:\n        driver: gpu.example.com\n"
                "        nodeName: template\n" +
                pool + "2}\n        devices:\n";
      for (int i = 0; i < gpus; ++i) {
        const std::string set = "gpu-" + std::to_string(i);
        slices += "        - name: " + set +
                  "\n          attributes: {model: {string: a100}, type: {string: gpu}}\n"
                  "          consumesCounters: [{counterSet: " +
                  set + ", counters: {slices: {value: \"7\"}}}]\n";
        for (int j = 0; j < 7; ++j) {
          slices += "        - name: " + set + "-mig-" + std::to_string(j) +
                    "\n          attributes: {model: {string: a100}, type: {string: mig}}\n"
                    "          consumesCounters: [{counterSet: " +
                    set + ", counters: {slices: {value: \"1\"}}}]\n";
        }
      }
    } else {
      gpus = kShare[Next(3)];
      per_gpu = Price(0.6, 1.2);
      slices = head +
               "      metadata: {name: template-gpus}\n      spec:\n        driver: gpu.example.com\n"
               "        nodeName: template\n" +
               pool + "1}\n        devices:\n";
      for (int i = 0; i < gpus; ++i) {
        slices += "        - name: gpu-" + std::to_string(i) +
                  "\n          allowMultipleAllocations: true\n"
                  "          attributes: {model: {string: l4s}, type: {string: shared}}\n"
                  "          capacity:\n            memory:\n              value: 24Gi\n"
                  "              requestPolicy: {default: 24Gi, validRange: {min: 1Gi, max: 24Gi, step: 1Gi}}\n";
      }
    }
    return GroupYaml(name, 8 * gpus + 8, max_size, per_gpu * gpus, slices);
  }

  // One pending pod of a random kind, with the claim template it uses.
  std::string Pod(const std::string& name, int minute) {
    static constexpr int kCounts[] = {1, 2, 4, 8};
    const uint64_t kind = Next(20);
    std::string tmpl, request;
    int gpus = 0;
    if (kind < 7) {  // whole GPUs, any model
      gpus = kCounts[Next(4)];
      tmpl = "gpu-" + std::to_string(gpus);
      request = "{deviceClassName: gpu, count: " + std::to_string(gpus) + "}";
    } else if (kind < 10) {  // whole H100s
      gpus = kCounts[Next(4)];
      tmpl = "h100-" + std::to_string(gpus);
      request = "{deviceClassName: h100, count: " + std::to_string(gpus) + "}";
    } else if (kind < 14) {  // MIG partitions
      const int n = static_cast<int>(1 + Next(2));
      tmpl = "mig-" + std::to_string(n);
      request = "{deviceClassName: mig-1g, count: " + std::to_string(n) + "}";
      gpus = 1;
    } else if (kind < 17) {  // a share by capacity
      const std::string memory = std::to_string(4 * (1 + Next(4))) + "Gi";
      tmpl = "share-" + memory;
      request = "{deviceClassName: share, capacity: {requests: {memory: " + memory + "}}}";
      gpus = 1;
    }
    std::string out;
    if (!tmpl.empty() && templates_.insert(tmpl).second) {
      out +=
          "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: " + tmpl +
          ", namespace: default}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly: " +
          request + "\n---\n";
    }
    const int cpu = static_cast<int>(1 + Next(static_cast<uint64_t>(gpus > 0 ? 4 * gpus : 16)));
    out += "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  creationTimestamp: \"2026-12-01T08:" + (minute < 10 ? "0" : "") +
           std::to_string(minute) + ":00Z\"\nspec:\n";
    if (!tmpl.empty()) out += "  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: " + tmpl + "}\n";
    out += "  containers:\n  - name: main\n    image: x\n    resources:\n      requests: {cpu: \"" +
           std::to_string(cpu) + "\", memory: " + std::to_string(1 + Next(8)) + "Gi}\n";
    if (!tmpl.empty()) out += "      claims: [{name: gpu}]\n";
    return out + "---\n";
  }

  static std::string Classes() {
    std::string out;
    for (const auto& [name, cel] : {std::pair{"gpu", "device.attributes['gpu.example.com'].type == 'gpu'"},
                                    std::pair{"h100", "device.attributes['gpu.example.com'].model == 'h100'"},
                                    std::pair{"mig-1g", "device.attributes['gpu.example.com'].type == 'mig'"},
                                    std::pair{"share", "device.attributes['gpu.example.com'].type == 'shared'"}}) {
      out += std::string("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: ") + name +
             "}\nspec:\n  selectors:\n  - cel: {expression: \"device.driver == 'gpu.example.com' && " + cel +
             "\"}\n---\n";
    }
    return out;
  }

  void ResetTemplates() { templates_.clear(); }

 private:
  static std::string GroupYaml(const std::string& name, int cpu, int max_size, double price,
                               const std::string& slices) {
    std::string out = "apiVersion: dractl.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: " + name +
                      "}\nspec:\n  maxSize: " + std::to_string(max_size) + "\n  price: " + std::to_string(price) +
                      "\n  template:\n    node:\n      apiVersion: v1\n      kind: Node\n"
                      "      metadata: {name: template, labels: {kubernetes.io/hostname: template}}\n"
                      "      status:\n        allocatable: {cpu: \"" +
                      std::to_string(cpu) + "\", memory: " + std::to_string(8 * cpu) + "Gi, pods: \"110\"}\n";
    if (!slices.empty()) out += "    resourceSlices:\n" + slices;
    return out + "---\n";
  }

  uint64_t state_;
  std::set<std::string> templates_;
};

// The suite: 100 cases (20 under the sanitizers) of 2-5 groups and 5-19 pending pods; in a third of
// them the cluster already has one node of a group (and holds the pods that
// fit it, bound first as kube-scheduler would). On every case: optimal
// places at least as many pods as each expander and, when it places as
// many, costs no more; its lower bound is at most its cost; and the closed
// loop: the bound cluster with the plan's nodes added, scheduled, places
// exactly the pods the plan placed.
TEST_F(PlanTest, GeneratedSuiteOptimalNeverLosesAndClosesTheLoop) {
  MixedSuite gen(20261203);
  double ratio_lw = 0, ratio_price = 0, min_lw = 1, min_price = 1;
  int with_lw = 0, with_price = 0, stopped = 0, fewer = 0;
  const int cases = dra::testing::kSanitized ? 20 : 100;
  for (int c = 0; c < cases; ++c) {
    const auto [groups, cluster] = gen.Case();
    Load(cluster, groups);
    ASSERT_FALSE(HasFailure()) << "case " << c << "\n" << groups << cluster;
    if (gen.Next(3) == 0) {
      NodeInstance existing = Instantiate(groups_[gen.Next(groups_.size())], 99);
      snapshot_.nodes.push_back(existing.node);
      for (api::ResourceSlice& slice : existing.slices) snapshot_.slices.push_back(std::move(slice));
      auto policy = sched::NewPolicy("kube");
      ASSERT_TRUE(policy.ok());
      ASSERT_TRUE(sched::Schedule(&snapshot_, sched::ScheduleOptions{.policy = policy->get()}).ok());
    }
    const PlanResult optimal = Plan(Expander::kOptimal, 2);
    EXPECT_LE(optimal.lower_bound, optimal.cost + 1e-9) << "case " << c;
    stopped += optimal.stopped_early ? 1 : 0;
    for (Expander e : {Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods, Expander::kRandom}) {
      const PlanResult other = Plan(e);
      EXPECT_GE(optimal.placements.size(), other.placements.size()) << "case " << c << " " << ExpanderName(e);
      if (optimal.placements.size() == other.placements.size()) {
        EXPECT_LE(optimal.cost, other.cost + 1e-9) << "case " << c << " " << ExpanderName(e);
        if (other.cost > 0 && e == Expander::kLeastWaste) {
          ratio_lw += optimal.cost / other.cost, ++with_lw;
          min_lw = std::min(min_lw, optimal.cost / other.cost);
        }
        if (other.cost > 0 && e == Expander::kPrice) {
          ratio_price += optimal.cost / other.cost, ++with_price;
          min_price = std::min(min_price, optimal.cost / other.cost);
        }
      } else if (e == Expander::kLeastWaste || e == Expander::kPrice) {
        ++fewer;
      }
    }
    // The closed loop.
    ExpectClosedLoop(optimal, c);
  }
  // For the record (bench/RESULTS.md): the mean price of optimal over the
  // expanders' where they place as many pods.
  ASSERT_GT(with_lw, 0);
  ASSERT_GT(with_price, 0);
  std::printf(
      "plan suite: %d cases; optimal / least-waste %.3f (mean over %d cases, lowest %.3f), optimal / price "
      "%.3f (%d cases, lowest %.3f); least-waste or price placed fewer pods in %d; optimal stopped at its time "
      "limit in %d\n",
      cases, ratio_lw / with_lw, with_lw, min_lw, ratio_price / with_price, with_price, min_price, fewer, stopped);
}

// The suite's cases planned on the class model. Its plans are scheduled in
// full, so the closed loop holds as above; the model's lower bound is at
// most the cost of every plan (optimal's, each expander's) that places as
// many pods. Optimal takes the expanders' best plan on the model, or a
// cheaper one where the scheduler places as many pods with it; the
// scheduler may place the pods of another expander's plan better than the
// model says: how often optimal loses to least-waste or price is printed.
TEST_F(PlanTest, GeneratedSuiteOnTheClassModelNeverLosesAndClosesTheLoopUnderItsBound) {
  MixedSuite gen(20261203);
  valuation_ = Valuation::kClasses;
  double ratio_lw = 0, ratio_price = 0;
  int with_lw = 0, with_price = 0, modelled = 0, proven = 0, lost = 0;
  // Each one-node run of the model builds a scheduler (its CEL environment
  // included), so the first 30 cases only (0.6 s each).
  const int cases = dra::testing::kSanitized ? 6 : 30;
  for (int c = 0; c < cases; ++c) {
    const auto [groups, cluster] = gen.Case();
    Load(cluster, groups);
    ASSERT_FALSE(HasFailure()) << "case " << c << "\n" << groups << cluster;
    const PlanResult optimal = Plan(Expander::kOptimal, 2);
    modelled += optimal.class_model ? 1 : 0;
    proven += optimal.stopped_early ? 0 : 1;
    EXPECT_LE(optimal.lower_bound, optimal.cost + 1e-9) << "case " << c;
    for (Expander e : {Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods, Expander::kRandom}) {
      const PlanResult other = Plan(e);
      if (other.placements.size() >= optimal.placements.size()) {
        EXPECT_LE(optimal.lower_bound, other.cost + 1e-9) << "case " << c << " " << ExpanderName(e);
      }
      if (e != Expander::kLeastWaste && e != Expander::kPrice) continue;
      if (other.placements.size() > optimal.placements.size() ||
          (other.placements.size() == optimal.placements.size() && other.cost < optimal.cost - 1e-9)) {
        ++lost;
        ADD_FAILURE() << "case " << c << ": " << ExpanderName(e) << " places " << other.placements.size()
                      << " pods for " << other.cost << ", optimal " << optimal.placements.size() << " for "
                      << optimal.cost;
      } else if (other.placements.size() == optimal.placements.size() && other.cost > 0) {
        (e == Expander::kLeastWaste ? ratio_lw : ratio_price) += optimal.cost / other.cost;
        ++(e == Expander::kLeastWaste ? with_lw : with_price);
      }
    }
    ExpectClosedLoop(optimal, c);
  }
  // The suite's pods use no named claims and no network devices: the model
  // applies to every case.
  EXPECT_EQ(modelled, cases);
  ASSERT_GT(with_lw, 0);
  ASSERT_GT(with_price, 0);
  std::printf(
      "plan suite on the class model: %d cases; optimal / least-waste %.3f (%d cases), optimal / price %.3f "
      "(%d cases); proven optimal in %d; least-waste or price better than optimal in %d comparisons\n",
      cases, ratio_lw / with_lw, with_lw, ratio_price / with_price, with_price, proven, lost);
}

std::vector<std::string> Problems(const std::string& text) {
  std::vector<NodeGroup> groups;
  std::vector<manifest::LoadMessage> messages;
  ParseNodeGroups(text, "g.yaml", api::FeatureGates::Defaults(), &groups, &messages);
  std::vector<std::string> out;
  for (const manifest::LoadMessage& m : messages) out.push_back(m.ToString());
  return out;
}

TEST(NodeGroupTest, BadInputIsAnErrorAtItsLineAndField) {
  const std::string good = Group("gpu1", 1, 8, "32Gi", 1, 10);
  EXPECT_TRUE(Problems(good).empty());
  // maxSize below minSize: line 6 is "  maxSize: 10"; minSize added at line 6 pushes it to 7.
  std::string min_over_max = good;
  min_over_max.replace(min_over_max.find("  maxSize: 10\n"), 14, "  minSize: 11\n  maxSize: 10\n");
  EXPECT_EQ(Problems(min_over_max),
            std::vector<std::string>{"g.yaml:7:12: NodeGroup gpu1: spec.maxSize: Invalid value: 10: must be greater "
                                     "than or equal to minSize (11)"});
  // No price.
  std::string no_price = good;
  no_price.erase(no_price.find("  price: "),
                 no_price.find('\n', no_price.find("  price: ")) - no_price.find("  price: ") + 1);
  ASSERT_EQ(Problems(no_price).size(), 1u);
  EXPECT_NE(Problems(no_price)[0].find("g.yaml:6:3: NodeGroup gpu1: spec.price: Required value"), std::string::npos)
      << Problems(no_price)[0];
  // A slice on another node than the template's (line 21: "        nodeName: other").
  std::string other_node = good;
  other_node.replace(other_node.find("nodeName: template"), 18, "nodeName: other");
  EXPECT_EQ(Problems(other_node),
            std::vector<std::string>{"g.yaml:21:19: NodeGroup gpu1: spec.template.resourceSlices[0].spec.nodeName: "
                                     "Invalid value: \"other\": must be the template node's name (\"template\")"});
  // A slice the API server would reject: a device name that is not a DNS label.
  std::string bad_device = good;
  bad_device.replace(bad_device.find("gpu-0"), 5, "GPU_0");
  const std::vector<std::string> p = Problems(bad_device);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("g.yaml:24:17: NodeGroup gpu1: spec.template.resourceSlices[0].spec.devices[0].name: "
                      "Invalid value: \"GPU_0\""),
            std::string::npos)
      << p[0];
  // Not a NodeGroup at all.
  EXPECT_EQ(
      Problems("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"),
      std::vector<std::string>{"g.yaml:1:1: not a NodeGroup: want apiVersion dractl.io/v1alpha1 and kind NodeGroup"});
}

TEST(NodeGroupTest, InstancesAreUniquePerNode) {
  std::vector<NodeGroup> groups;
  std::vector<manifest::LoadMessage> messages;
  ParseNodeGroups(Group("a100", 2, 8, "32Gi", 1, 3), "g.yaml", api::FeatureGates::Defaults(), &groups, &messages);
  ASSERT_EQ(groups.size(), 1u);
  NodeInstance two = Instantiate(groups[0], 2);
  EXPECT_EQ(two.node.metadata.name, "a100-2");
  EXPECT_EQ(*two.node.metadata.labels.find("kubernetes.io/hostname"), "a100-2");
  ASSERT_EQ(two.slices.size(), 1u);
  EXPECT_EQ(two.slices[0].metadata.name, "a100-2-0");
  EXPECT_EQ(two.slices[0].spec.pool.name, "a100-2");
  EXPECT_EQ(two.slices[0].spec.devices.size(), 2u);
}

}  // namespace
}  // namespace dra::plan
