// dractl gen's inputs load, validate and schedule as the shapes say.
#include "sched/generate.h"

#include <gtest/gtest.h>

#include <map>

#include "api/defaults.h"
#include "api/validation.h"
#include "manifest/loader.h"
#include "sched/policy.h"
#include "sched/scheduler.h"
#include "sched/snapshot.h"

namespace dra::sched {
namespace {

manifest::LoadResult Load(const std::string& text) {
  manifest::LoadResult loaded;
  manifest::Loader({.strict = true}).LoadText(text, "gen.yaml", &loaded);
  for (const auto& m : loaded.messages) ADD_FAILURE() << m.ToString();
  for (manifest::LoadedObject& o : loaded.objects) {
    api::SetDefaults(o.object, "1970-01-01T00:00:00Z");
    for (const api::FieldError& e : api::Validate(o.object, api::FeatureGates::Defaults())) {
      if (e.severity == api::Severity::kError) ADD_FAILURE() << e.ToString();
    }
  }
  return loaded;
}

std::map<std::string, int> Kinds(const manifest::LoadResult& loaded) {
  std::map<std::string, int> kinds;
  for (const manifest::LoadedObject& o : loaded.objects) {
    ++kinds[std::string(api::KindName(o.object))];
  }
  return kinds;
}

TEST(GenerateTest, ParseModels) {
  StatusOr<std::vector<GpuModel>> m = ParseModels("H100-80GB:80Gi,L4:24576Mi,big:1Ti");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].name, "H100-80GB");
  EXPECT_EQ((*m)[0].memory_mib, 81920);
  EXPECT_EQ((*m)[1].memory_mib, 24576);
  EXPECT_EQ((*m)[2].memory_mib, 1024 * 1024);
  for (const char* bad : {"", "H100", ":80Gi", "H100:80", "H100:80GB", "H100:Gi", "H100:-1Gi", "H 100:1Gi", "a:1Gi,"}) {
    EXPECT_FALSE(ParseModels(bad).ok()) << bad;
  }
}

TEST(GenerateTest, ShapesOutOfRangeAreErrors) {
  ClusterShape c;
  c.nodes = 0;
  EXPECT_EQ(GenerateCluster(c).status().code(), StatusCode::kInvalidArgument);
  c.nodes = 1;
  c.devices_per_node = 129;
  EXPECT_EQ(GenerateCluster(c).status().code(), StatusCode::kInvalidArgument);
  PodShape p;
  p.devices_per_pod = 33;
  EXPECT_EQ(GeneratePods(p).status().code(), StatusCode::kInvalidArgument);
}

// The CEL selector of the first request of the first claim or template.
std::string SelectorOf(const manifest::LoadResult& loaded) {
  for (const manifest::LoadedObject& o : loaded.objects) {
    const api::DeviceClaim* devices = nullptr;
    if (const auto* c = std::get_if<api::ResourceClaim>(&o.object)) devices = &c->spec.devices;
    if (const auto* t = std::get_if<api::ResourceClaimTemplate>(&o.object)) devices = &t->spec.spec.devices;
    if (devices == nullptr || devices->requests.empty() || !devices->requests[0].exactly ||
        devices->requests[0].exactly->selectors.empty() || !devices->requests[0].exactly->selectors[0].cel) {
      continue;
    }
    return devices->requests[0].exactly->selectors[0].cel->expression;
  }
  return "<none>";
}

// 3 nodes x 2 devices, models H100 (80Gi) on node-0000 and node-0002, L4
// (24Gi) on node-0001; 4 pods whose claims want >= 40Gi: exactly the 4 H100
// devices, so every pod is placed and none on node-0001.
TEST(GenerateTest, ClusterAndPodsLoadValidateAndSchedule) {
  ClusterShape c;
  c.nodes = 3;
  c.devices_per_node = 2;
  c.models = {{"H100", 81920}, {"L4", 24576}};
  PodShape p;
  p.pods = 4;
  // The second clause is always true; its quotes, backslashes, newline and
  // tab must read back as given (a raw newline in a double-quoted scalar
  // would be read as a space).
  p.selector = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0 &&\n\t\"a\\\\b\" != \"c\"";
  for (bool claim_per_pod : {false, true}) {
    p.claim_per_pod = claim_per_pod;
    StatusOr<std::string> cluster = GenerateCluster(c);
    StatusOr<std::string> pods = GeneratePods(p);
    ASSERT_TRUE(cluster.ok() && pods.ok());
    EXPECT_EQ(*cluster, *GenerateCluster(c));  // deterministic
    manifest::LoadResult loaded = Load(*cluster + "---\n" + *pods);
    EXPECT_EQ(SelectorOf(loaded), p.selector);
    std::map<std::string, int> want = {{"DeviceClass", 1}, {"Node", 3}, {"ResourceSlice", 3}, {"Pod", 4}};
    want[claim_per_pod ? "ResourceClaim" : "ResourceClaimTemplate"] = claim_per_pod ? 4 : 1;
    EXPECT_EQ(Kinds(loaded), want);
    std::vector<const api::Object*> objects;
    for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
    Snapshot snap = NewSnapshot(objects, api::FeatureGates::Defaults());
    ASSERT_EQ(snap.slices.size(), 3u);
    EXPECT_EQ(snap.slices[1].spec.devices.size(), 2u);
    EXPECT_EQ(snap.slices[1].spec.devices[0].capacity.find("memory")->value.String(), "24Gi");
    auto policy = NewPolicy("kube");
    ASSERT_TRUE(policy.ok());
    StatusOr<ScheduleResult> r =
        Schedule(&snap, {.policy = policy->get(), .seed = 0, .max_steps = 0, .percentage_of_nodes_to_score = 0});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->pods.size(), 4u);
    std::map<std::string, int> per_node;
    for (const PodOutcome& o : r->pods) {
      ASSERT_EQ(o.kind, PodOutcome::Kind::kPlaced) << o.pod << ": " << o.message;
      ++per_node[o.node];
    }
    EXPECT_EQ(per_node, (std::map<std::string, int>{{"node-0000", 2}, {"node-0002", 2}}));
  }
}

// The layout gen has always written, by hand (kubectl's, but for the
// double-quoted productName, model label, pods and selector): the emitter
// must keep it byte for byte.
TEST(GenerateTest, ClusterLayout) {
  StatusOr<std::string> text = GenerateCluster({.nodes = 1, .devices_per_node = 1});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  std::string want =
      "apiVersion: resource.k8s.io/v1\n"
      "kind: DeviceClass\n"
      "metadata:\n"
      "  name: gpu.example.com\n"
      "spec:\n"
      "  selectors:\n"
      "  - cel:\n"
      "      expression: \"device.driver == \\\"gpu.example.com\\\"\"\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: Node\n"
      "metadata:\n"
      "  name: node-0000\n"
      "  uid: NODE_UID\n"
      "  labels:\n"
      "    kubernetes.io/hostname: node-0000\n"
      "    kubernetes.io/os: linux\n"
      "    gpu.example.com/model: \"H100-80GB\"\n"
      "status:\n"
      "  allocatable:\n"
      "    cpu: 128000m\n"
      "    memory: 1048576Mi\n"
      "    pods: \"110\"\n"
      "  capacity:\n"
      "    cpu: 128000m\n"
      "    memory: 1048576Mi\n"
      "    pods: \"110\"\n"
      "---\n"
      "apiVersion: resource.k8s.io/v1\n"
      "kind: ResourceSlice\n"
      "metadata:\n"
      "  name: node-0000-gpu.example.com\n"
      "spec:\n"
      "  driver: gpu.example.com\n"
      "  nodeName: node-0000\n"
      "  pool:\n"
      "    name: node-0000\n"
      "    generation: 1\n"
      "    resourceSliceCount: 1\n"
      "  devices:\n"
      "  - name: gpu-0\n"
      "    attributes:\n"
      "      index:\n"
      "        int: 0\n"
      "      productName:\n"
      "        string: \"H100-80GB\"\n"
      "      architecture:\n"
      "        string: Generic\n"
      "      driverVersion:\n"
      "        version: 1.2.3\n"
      "      uuid:\n"
      "        string: GPU-DEVICE_UID\n"
      "      resource.kubernetes.io/pcieRoot:\n"
      "        string: pci0000:00\n"
      "    capacity:\n"
      "      memory:\n"
      "        value: 81920Mi\n";
  // The uids are hashes of the names (StableUid).
  want.replace(want.find("NODE_UID"), 8, StableUid("Node/node-0000"));
  want.replace(want.find("DEVICE_UID"), 10, StableUid("node-0000/gpu-0"));
  EXPECT_EQ(*text, want);
  // A selector past 80 columns stays on one line, JSON-escaped.
  PodShape p{.pods = 1, .selector = std::string(70, 'x') + " == \"a\\b\"\n && true"};
  StatusOr<std::string> pods = GeneratePods(p);
  ASSERT_TRUE(pods.ok());
  EXPECT_NE(pods->find("          expression: \"" + std::string(70, 'x') + " == \\\"a\\\\b\\\"\\n && true\"\n"),
            std::string::npos)
      << *pods;
  EXPECT_NE(pods->find("  creationTimestamp: \"2026-01-01T00:00:00Z\"\n"), std::string::npos);
}

}  // namespace
}  // namespace dra::sched

namespace dra::sched {
namespace {

TEST(GenerateMigTest, ParseMix) {
  StatusOr<std::vector<std::pair<int64_t, int64_t>>> m = ParseMigMix("1:40,7:5");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*m, (std::vector<std::pair<int64_t, int64_t>>{{1, 40}, {7, 5}}));
  for (const char* bad : {"", "5:1", "1", "1:0", "1:x", "1:2,", "0:1"}) EXPECT_FALSE(ParseMigMix(bad).ok()) << bad;
}

// One A100 node of two GPUs: per GPU 7 + 3 + 2 + 1 + 1 = 14 placements; a
// counter slice and one device slice per GPU (pool of 3 slices).
TEST(GenerateMigTest, ClusterHasEveryPlacementOfEveryProfile) {
  StatusOr<std::string> text = GenerateMigCluster({.nodes = 1, .gpus_per_node = 2});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  manifest::LoadResult loaded = Load(*text);
  EXPECT_EQ(Kinds(loaded), (std::map<std::string, int>{{"DeviceClass", 1}, {"Node", 1}, {"ResourceSlice", 3}}));
  size_t devices = 0, counter_sets = 0;
  for (const manifest::LoadedObject& o : loaded.objects) {
    if (const auto* s = std::get_if<api::ResourceSlice>(&o.object)) {
      devices += s->spec.devices.size();
      counter_sets += s->spec.shared_counters.size();
      EXPECT_EQ(s->spec.pool.resource_slice_count, 3);
    }
  }
  EXPECT_EQ(devices, 28u);
  EXPECT_EQ(counter_sets, 2u);
  EXPECT_NE(text->find("name: gpu-1-mig-3g20gb-4\n"), std::string::npos);
  // Counters and attributes as flow mappings, strings double-quoted.
  EXPECT_NE(text->find("  - name: gpu-0-counter-set\n"
                       "    counters:\n"
                       "      multiprocessors: {value: \"98\"}\n"
                       "      memory-slice-0: {value: \"1\"}\n"),
            std::string::npos);
  EXPECT_NE(text->find("  - name: gpu-1-mig-2g10gb-2\n"
                       "    attributes:\n"
                       "      profile: {string: \"2g.10gb\"}\n"
                       "      computeSlices: {int: 2}\n"
                       "      parentIndex: {int: 1}\n"
                       "      placementStart: {int: 2}\n"
                       "    consumesCounters:\n"
                       "    - counterSet: gpu-1-counter-set\n"
                       "      counters:\n"
                       "        multiprocessors: {value: \"28\"}\n"
                       "        memory-slice-2: {value: \"1\"}\n"
                       "        memory-slice-3: {value: \"1\"}\n"),
            std::string::npos)
      << *text;
  EXPECT_FALSE(GenerateMigCluster({.model = "V100"}).ok());
}

// Seven 1g pods fill one GPU's compute (7 x 14 of 98 SMs); an eighth does
// not fit.
TEST(GenerateMigTest, PodsScheduleWithinTheCounters) {
  StatusOr<std::string> cluster = GenerateMigCluster({.nodes = 1, .gpus_per_node = 1});
  StatusOr<std::string> pods = GenerateMigPods({.pods = 8, .mix = {{1, 1}}});
  ASSERT_TRUE(cluster.ok() && pods.ok());
  manifest::LoadResult loaded = Load(*cluster + "---\n" + *pods);
  std::vector<const api::Object*> objects;
  for (const manifest::LoadedObject& o : loaded.objects) objects.push_back(&o.object);
  Snapshot snapshot = NewSnapshot(objects, api::FeatureGates::Defaults());
  auto policy = NewPolicy("kube");
  ASSERT_TRUE(policy.ok());
  StatusOr<ScheduleResult> r = Schedule(&snapshot, {.policy = policy->get()});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int placed = 0;
  for (const PodOutcome& o : r->pods) placed += o.kind == PodOutcome::Kind::kPlaced;
  EXPECT_EQ(placed, 7);
  // Deterministic draws; lifetimes between 0.5x and 1.5x.
  StatusOr<std::string> a = GenerateMigPods({.pods = 50, .seed = 3, .lifetime_seconds = 100});
  StatusOr<std::string> b = GenerateMigPods({.pods = 50, .seed = 3, .lifetime_seconds = 100});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find("deletionTimestamp"), std::string::npos);
  EXPECT_FALSE(GenerateMigPods({.mix = {{5, 1}}}).ok());
}

}  // namespace
}  // namespace dra::sched
