// Score arithmetic on small hand-computed cases (docs/fgd.md §4-§5). Every
// expected number is worked out by hand in the comment beside it.
#include "sim/policies.h"

#include "gtest/gtest.h"
#include "sim/frag.h"
#include "sim/rng.h"

namespace dra::sim {
namespace {

SimNode MakeNode(int64_t cpu_free, std::initializer_list<int32_t> gpu_free, uint32_t classes = 0) {
  SimNode n;
  n.cpu_free = cpu_free;
  n.memory_free = 1 << 20;
  n.model = 0;
  for (int32_t f : gpu_free) {
    n.gpu_free[static_cast<size_t>(n.gpus++)] = f;
    n.gpu_free_total += f;
  }
  n.classes = classes;
  return n;
}

PodShape Pod(int64_t cpu, int32_t milli, int32_t count) {
  PodShape p;
  p.cpu = cpu;
  p.milli = milli;
  p.count = milli == 0 ? 0 : count;
  return p;
}

TEST(PoliciesTest, DotProd) {
  // (64000/128000)(8000/128000) = 0.5 * 0.0625 = 0.03125
  // (2000/8000)(500/8000)       = 0.25 * 0.0625 = 0.015625
  // 100 * (1 - 0.046875 / 2) = 97.65625 -> 97
  EXPECT_EQ(DotProdScore(MakeNode(64000, {1000, 1000}), Pod(8000, 500, 1)), 97);
  // CPU-only pod on an 8-GPU node: (96000/128000)(32000/128000) = 0.75 * 0.25 = 0.1875;
  // GPU term 0; 100 * (1 - 0.09375) = 90.625 -> 90
  EXPECT_EQ(DotProdScore(MakeNode(96000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), Pod(32000, 0, 0)), 90);
}

TEST(PoliciesTest, GpuClustering) {
  const uint32_t share = 1u, one = 2u;
  // 8 GPUs, 600 milli used by sharing pods: G = 7400.
  SimNode n = MakeNode(96000, {400, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, share);
  // same class only: 75 + (25 * 600) div 8000 = 75 + 1 = 76
  EXPECT_EQ(GpuClusteringScore(n, Pod(1000, 200, 1)), 76);
  // only another class: 0 + 1 = 1
  EXPECT_EQ(GpuClusteringScore(n, Pod(1000, 1000, 1)), 1);
  // both classes on the node, sharing pod: 50 + 1 = 51
  n.classes = share | one;
  EXPECT_EQ(GpuClusteringScore(n, Pod(1000, 200, 1)), 51);
  // idle 2-GPU node: 25 + (25 * 6000) div 8000 = 25 + 18 = 43 (docs/fgd.md §4.3's example)
  EXPECT_EQ(GpuClusteringScore(MakeNode(16000, {1000, 1000}), Pod(1000, 1000, 1)), 43);
  // CPU-only pods: 0 everywhere
  EXPECT_EQ(GpuClusteringScore(n, Pod(1000, 0, 0)), 0);
}

TEST(PoliciesTest, GpuPacking) {
  // idle nodes: max(33 - N, N) = 32, 31, 29, 25 for 1, 2, 4, 8 GPUs
  EXPECT_EQ(GpuPackingScore(MakeNode(8000, {1000}), Pod(1000, 500, 1)), 32);
  EXPECT_EQ(GpuPackingScore(MakeNode(8000, {1000, 1000}), Pod(1000, 500, 1)), 31);
  EXPECT_EQ(GpuPackingScore(MakeNode(8000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), Pod(1000, 500, 1)), 25);
  SimNode n = MakeNode(32000, {1000, 300, 1000, 600});
  // milli 200: best fit is GPU 1 (free 300, partly used): S = 300*100 div 1000 = 30,
  // 100 - 30 div 10 = 97
  EXPECT_EQ(GpuPackingScore(n, Pod(1000, 200, 1)), 97);
  // milli 700: only fully free GPUs fit; one taken: max(50 - 1, 33) = 49
  EXPECT_EQ(GpuPackingScore(n, Pod(1000, 700, 1)), 49);
  // two whole GPUs: GPUs 0 and 2, both fully free: 50 - 2 = 48
  EXPECT_EQ(GpuPackingScore(n, Pod(1000, 1000, 2)), 48);
  // milli 550: GPU 3 (free 600): S = 60, 100 - 6 = 94
  EXPECT_EQ(GpuPackingScore(n, Pod(1000, 550, 1)), 94);
  EXPECT_EQ(GpuPackingScore(n, Pod(1000, 0, 0)), 0);
}

TEST(PoliciesTest, BestFit) {
  // 0.5 * (96000 - 16000) / 128000 = 0.3125; 0.5 * (8000 - 1000) / 8000 = 0.4375;
  // 100 * (1 - 0.75) = 25
  SimNode n = MakeNode(96000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000});
  EXPECT_EQ(BestFitRaw(n, Pod(16000, 1000, 1)), 25);
  // CPU-only pod, free GPUs still count: 0.5 * 80000/128000 = 0.3125, 0.5 * 8000/8000 = 0.5;
  // 100 * 0.1875 = 18.75 -> 18
  EXPECT_EQ(BestFitRaw(n, Pod(16000, 0, 0)), 18);
  // min-max: (25 - 10) * 100 div (40 - 10) = 1500 div 30 = 50; (11 - 10) * 100 div 30 = 3
  EXPECT_EQ(MinMaxNormalize(25, 10, 40), 50);
  EXPECT_EQ(MinMaxNormalize(11, 10, 40), 3);
  EXPECT_EQ(MinMaxNormalize(40, 10, 40), 100);
  EXPECT_EQ(MinMaxNormalize(7, 7, 7), 0);
}

// Two typical shapes, weight 1/2 each: A = CPU-only (cpu 4000), B = sharing
// (cpu 8000, milli 500).
TypicalPods TwoShapes() {
  TypicalPods t;
  t.list.push_back(TypicalPod{.shape = Pod(4000, 0, 0), .spec = "", .pods = 1, .weight = 0.5});
  t.list.push_back(TypicalPod{.shape = Pod(8000, 500, 1), .spec = "", .pods = 1, .weight = 0.5});
  return t;
}

TEST(FragTest, NodeFragAgainstTypicalPods) {
  TypicalPods t = TwoShapes();
  // [1000, 1000], C 16000: A -> G = 2000; B fits (2 GPUs >= 500, C >= 8000), no GPU
  // below 500 -> 0. F = 0.5 * 2000 + 0.5 * 0 = 1000
  EXPECT_DOUBLE_EQ(NodeFrag(t, MakeNode(16000, {1000, 1000})), 1000);
  // [400, 1000], C 12000: A -> 1400; B fits, GPU 0 (400 < 500) is fragment -> 400.
  // F = 700 + 200 = 900
  EXPECT_DOUBLE_EQ(NodeFrag(t, MakeNode(12000, {400, 1000})), 900);
  // same GPUs, C 7000 < 8000: B lacks CPU -> G = 1400. F = 700 + 700 = 1400
  EXPECT_DOUBLE_EQ(NodeFrag(t, MakeNode(7000, {400, 1000})), 1400);
  // B's spec excludes the node's model (model bit 0 cleared): -> G
  t.list[1].shape.models = ~uint64_t{1};
  EXPECT_DOUBLE_EQ(NodeFrag(t, MakeNode(12000, {400, 1000})), 1400);
}

TEST(FragTest, TypicalPodsOrderAndCutoff) {
  // 10 x X (cpu 1000, 500), 5 x Y (cpu 2000, CPU-only), 4 x Z (cpu 3000, 1000 x 1),
  // 1 x W (cpu 500, 200). Counts 10, 15 (75%), 19 (95%): stop; W is left out.
  std::vector<PodShape> shapes;
  std::vector<std::string> specs;
  auto add = [&](int n, PodShape s) {
    for (int i = 0; i < n; ++i) {
      shapes.push_back(s);
      specs.emplace_back();
    }
  };
  add(1, Pod(500, 200, 1));
  add(4, Pod(3000, 1000, 1));
  add(10, Pod(1000, 500, 1));
  add(5, Pod(2000, 0, 0));
  TypicalPods t = BuildTypicalPods(shapes, specs);
  ASSERT_EQ(t.list.size(), 3u);
  EXPECT_EQ(t.list[0].shape.cpu, 1000);
  EXPECT_EQ(t.list[1].shape.cpu, 2000);
  EXPECT_EQ(t.list[2].shape.cpu, 3000);
  EXPECT_DOUBLE_EQ(t.list[0].weight, 10.0 / 19);
  EXPECT_DOUBLE_EQ(t.list[2].weight, 4.0 / 19);
  EXPECT_EQ(t.distinct_shapes, 4);
  // Equal counts: the larger cpu first.
  TypicalPods tie =
      BuildTypicalPods(std::vector<PodShape>{Pod(100, 0, 0), Pod(200, 0, 0)}, std::vector<std::string>{"", ""});
  ASSERT_EQ(tie.list.size(), 2u);
  EXPECT_EQ(tie.list[0].shape.cpu, 200);
}

TEST(PoliciesTest, FgdSharingPodPicksTheGpu) {
  TypicalPods t = TwoShapes();
  // Node [1000, 1000], C 16000, F_now = 1000 (above). Pod cpu 4000, milli 600 on GPU 0:
  // [400, 1000], C 12000 -> F = 900; ΔF = 100; 100 * sigmoid(0.1) = 100 / (1 + e^-0.1)
  // = 100 / 1.904837 = 52.498 -> 52. GPU 1 gives the same; the first index wins.
  SimNode n = MakeNode(16000, {1000, 1000});
  FgdScore s = ScoreFgd(t, n, Pod(4000, 600, 1), NodeFrag(t, n));
  EXPECT_EQ(s.score, 52);
  EXPECT_EQ(s.gpu, 0);
  // Node [400, 1000], C 12000 (F_now 900), pod cpu 4000, milli 300:
  //   GPU 0 -> [100, 1000], C 8000: A 1100 -> 550; B fits, fragment 100 -> 50; F 600,
  //            ΔF 300: 100 / (1 + e^-0.3) = 100 / 1.740818 = 57.44 -> 57
  //   GPU 1 -> [400, 700]: A 550; B fits (GPU 1), fragment 400 -> 200; F 750,
  //            ΔF 150: 100 / (1 + e^-0.15) = 100 / 1.860708 = 53.74 -> 53
  SimNode m = MakeNode(12000, {400, 1000});
  FgdScore s2 = ScoreFgd(t, m, Pod(4000, 300, 1), NodeFrag(t, m));
  EXPECT_EQ(s2.score, 57);
  EXPECT_EQ(s2.gpu, 0);
  // No change scores 50 (sigmoid(0) = 0.5): a CPU-only pod of cpu 1000 on [400, 1000],
  // C 12000 -> C 11000 leaves F at 900.
  EXPECT_EQ(ScoreFgd(t, m, Pod(1000, 0, 0), NodeFrag(t, m)).score, 50);
}

// dra-pack's workload: G = a GPU pod (cpu 4000, 1000 x 1), C = CPU-only (cpu 12000),
// weight 1/2 each.
TypicalPods GpuAndCpuShapes() {
  TypicalPods t;
  t.list.push_back(TypicalPod{.shape = Pod(4000, 1000, 1), .spec = "", .pods = 1, .weight = 0.5});
  t.list.push_back(TypicalPod{.shape = Pod(12000, 0, 0), .spec = "", .pods = 1, .weight = 0.5});
  return t;
}

TEST(PoliciesTest, DraPackStrandedGpu) {
  // GPU pods only: rho = (0.5 * 1000) / (0.5 * 4000) = 0.25; the CPU-only shape is left out.
  EXPECT_DOUBLE_EQ(WorkloadGpuPerCpu(GpuAndCpuShapes()), 0.25);
  // TwoShapes: only B is a GPU shape: 500 / 8000 = 0.0625.
  EXPECT_DOUBLE_EQ(WorkloadGpuPerCpu(TwoShapes()), 0.0625);
  EXPECT_DOUBLE_EQ(WorkloadGpuPerCpu(TypicalPods{}), 0);
  // S = max(0, G - rho C): 8000 - 0.0625 * 96000 = 2000; 2000 - 0.0625 * 104000 < 0 -> 0.
  EXPECT_DOUBLE_EQ(StrandedGpu(96000, 8000, 0.0625), 2000);
  EXPECT_DOUBLE_EQ(StrandedGpu(104000, 2000, 0.0625), 0);
  // P = F + S. TwoShapes on [400, 1000], C 12000: F = 900 (FragTest above);
  // S = 1400 - 0.0625 * 12000 = 650 -> 1550.
  EXPECT_DOUBLE_EQ(PackFrag(TwoShapes(), 0.0625, MakeNode(12000, {400, 1000})), 1550);
}

TEST(PoliciesTest, DraPackKeepsCpuWhereGpusNeedIt) {
  // Workload GpuAndCpuShapes (rho 0.25), a CPU-only pod of cpu 40000, two idle nodes:
  //   A: 8 GPUs, C 40000. F now: G's shape fits, no GPU below 1000 -> 0; CPU-only -> 8000;
  //      F = 4000. After (C 0): G's shape lacks CPU -> 8000; F = 8000. FGD: ΔF = -4000:
  //      100 / (1 + e^4) = 1.798 -> 1. S now 8000 - 0.25 * 40000 < 0 -> 0, after 8000:
  //      P 4000 -> 16000, ΔP = -12000: 100 / (1 + e^12) = 0.0006 -> 0.
  //   B: 2 GPUs, C 104000: F = 1000 before and after (C 64000 still fits G); S = 0 both:
  //      FGD and dra-pack 50.
  const TypicalPods t = GpuAndCpuShapes();
  const double rho = WorkloadGpuPerCpu(t);
  const PodShape pod = Pod(40000, 0, 0);
  SimNode a = MakeNode(40000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000});
  SimNode b = MakeNode(104000, {1000, 1000});
  EXPECT_EQ(ScoreFgd(t, a, pod, NodeFrag(t, a)).score, 1);
  EXPECT_EQ(ScoreDraPack(t, rho, a, pod, PackFrag(t, rho, a)).score, 0);
  EXPECT_EQ(ScoreFgd(t, b, pod, NodeFrag(t, b)).score, 50);
  EXPECT_EQ(ScoreDraPack(t, rho, b, pod, PackFrag(t, rho, b)).score, 50);
  // Where FGD sees no change, dra-pack still does: a CPU-only pod of cpu 10000 on A
  // with C 40000 -> 30000: F stays 4000 (G's shape fits), FGD 50; S goes from 0 to
  // 8000 - 7500 = 500: ΔP = -500: 100 / (1 + e^0.5) = 37.75 -> 37. On B it is 50, so
  // dra-pack sends the pod to B while FGD leaves it to the node rank.
  EXPECT_EQ(ScoreFgd(t, a, Pod(10000, 0, 0), NodeFrag(t, a)).score, 50);
  EXPECT_EQ(ScoreDraPack(t, rho, a, Pod(10000, 0, 0), PackFrag(t, rho, a)).score, 37);
  EXPECT_EQ(ScoreDraPack(t, rho, b, Pod(10000, 0, 0), PackFrag(t, rho, b)).score, 50);
  // A sharing pod takes the GPU as FGD does, on P: TwoShapes, rho 0.0625, node
  // [400, 1000], C 12000 (P 1550), pod cpu 4000, milli 300:
  //   GPU 0 -> [100, 1000], C 8000: F 600 (FgdSharingPodPicksTheGpu), S 1100 - 500 = 600:
  //            P 1200, ΔP 350: 100 / (1 + e^-0.35) = 58.66 -> 58
  //   GPU 1 -> [400, 700]: F 750, S 600: P 1350, ΔP 200: 100 / (1 + e^-0.2) = 54.98 -> 54
  SimNode m = MakeNode(12000, {400, 1000});
  FgdScore s = ScoreDraPack(TwoShapes(), 0.0625, m, Pod(4000, 300, 1), PackFrag(TwoShapes(), 0.0625, m));
  EXPECT_EQ(s.score, 58);
  EXPECT_EQ(s.gpu, 0);
}

TEST(PoliciesTest, ParsesNames) {
  EXPECT_EQ(*ParsePolicy("fgd"), Policy::kFgd);
  EXPECT_EQ(*ParsePolicy("06-FGD"), Policy::kFgd);
  EXPECT_EQ(*ParsePolicy("BestFit"), Policy::kBestFit);
  EXPECT_EQ(PaperPolicyName(Policy::kGpuPacking), "04-GpuPacking");
  EXPECT_EQ(*ParsePolicy("DRA-Pack"), Policy::kDraPack);
  EXPECT_EQ(PolicyName(Policy::kDraPack), "dra-pack");
  EXPECT_EQ(PaperPolicyName(Policy::kDraPack), "");
  StatusOr<Policy> bad = ParsePolicy("tetris");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(RngTest, SplitMix64ReferenceSequence) {
  // The published SplitMix64 outputs for seed 1234567 (Vigna's reference
  // splitmix64.c, as quoted by PRNG test suites).
  Rng r(1234567);
  EXPECT_EQ(r.Next(), 6457827717110365317ULL);
  EXPECT_EQ(r.Next(), 3203168211198807973ULL);
  EXPECT_EQ(r.Next(), 9817491932198370423ULL);
  EXPECT_EQ(r.Next(), 4593380528125082431ULL);
  EXPECT_EQ(r.Next(), 16408922859458223821ULL);
}

TEST(RngTest, PermIsAPermutationAndBelowStaysInRange) {
  Rng r(42);
  std::vector<uint32_t> p = r.Perm(1213);
  std::vector<bool> seen(1213);
  for (uint32_t v : p) {
    ASSERT_LT(v, 1213u);
    EXPECT_FALSE(seen[v]);
    seen[v] = true;
  }
  std::array<int, 3> counts{};
  for (int i = 0; i < 3000; ++i) ++counts[static_cast<size_t>(r.Below(3))];
  for (int c : counts) EXPECT_GT(c, 800);  // 1000 expected each
}

}  // namespace
}  // namespace dra::sim
