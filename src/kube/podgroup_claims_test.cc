// Expectations from upstream's code, read by hand (k8s.io/kubernetes v1.37.2
// pkg/controller/resourceclaim/controller.go: syncPodGroup,
// handlePodGroupClaim, findPodGroupResourceClaim, claimExists; syncPod and
// handleClaim for the members; k8s.io/dynamic-resource-allocation v0.37.2
// resourceclaim/resourceclaim.go: NameFromPodGroup, IsForPodGroup, IsForPod,
// BindTo). The 5 characters after the generateName are dractl's
// (src/sched/pod_claims.h), not upstream's random ones.
#include "kube/podgroup_claims.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/reflector.h"
#include "kube/request_bodies.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/yaml_parser.h"
#include "sched/pod_claims.h"

namespace dra::kube {
namespace {

api::Object Decode(const std::string& yaml) {
  auto docs = manifest::ParseYaml(yaml, "test.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  StatusOr<api::Object> o = DecodeApiObject((*docs)[0].root);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return *o;
}

constexpr char kTemplate[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml, uid: t-uid}
spec:
  metadata:
    labels: {app: train}
    annotations: {team: vision}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
)";

// A PodGroup `name` (uid "<name>-uid") with one template claim "gpu" from
// one-gpu, plus `more` entries, and `status` as its status.
std::string GroupYaml(const std::string& name, const std::string& more = "", const std::string& status = "") {
  return "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: " + name +
         ", namespace: ml, uid: " + name +
         "-uid}\nspec:\n  schedulingPolicy: {gang: {minCount: 2}}\n  resourceClaims:\n"
         "  - {name: gpu, resourceClaimTemplateName: one-gpu}\n" +
         more + (status.empty() ? "" : "status:\n" + status);
}

// A claim `name` in ml controlled by `owner_kind` `owner` (uid `owner_uid`),
// annotated with pod claim `entry` (none when empty).
std::string ClaimYaml(const std::string& name, const std::string& owner_kind, const std::string& owner,
                      const std::string& owner_uid, const std::string& entry) {
  std::string api_version = owner_kind == "Pod" ? "v1" : "scheduling.k8s.io/v1beta1";
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: " + name +
                  "\n  namespace: ml\n  uid: " + name + "-uid\n";
  if (!entry.empty()) y += "  annotations: {resource.kubernetes.io/pod-claim-name: " + entry + "}\n";
  if (!owner.empty()) {
    y += "  ownerReferences: [{apiVersion: " + api_version + ", kind: " + owner_kind + ", name: " + owner +
         ", uid: " + owner_uid + ", controller: true}]\n";
  }
  y += "spec:\n  devices:\n    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]\n";
  return y;
}

ClusterCache Cache(const std::vector<std::string>& yamls) {
  ClusterCache cache;
  ReflectorBatch b;
  b.collection = "test";
  b.replace = true;
  for (const std::string& y : yamls) b.events.push_back({.type = EventType::kAdded, .object = Decode(y)});
  cache.Apply(b);
  return cache;
}

api::PodGroup Group(const ClusterCache& cache, const std::string& name) {
  return std::get<api::PodGroup>(*cache.Find(api::Kind::kPodGroup, "ml/" + name));
}

PodGroupClaimsPlan Plan(const ClusterCache& cache, const std::string& group) {
  return PlanPodGroupClaims(Group(cache, group), cache, IndexClaimsByController(cache));
}

std::string Suffix(const std::string& group, const std::string& entry, int attempt = 0) {
  return sched::StableNameSuffix("ml", group, entry, attempt);
}

TEST(PlanPodGroupClaims, CreatesTheClaimAsHandlePodGroupClaimDoes) {
  ClusterCache cache = Cache({kTemplate, GroupYaml("train")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  ASSERT_EQ(plan.error, "");
  ASSERT_EQ(plan.create.size(), 1u);
  const api::ResourceClaim& c = plan.create[0];
  // generateName <podgroup>-<claim>-; the server appends 5 characters.
  EXPECT_EQ(c.metadata.generate_name, "train-gpu-");
  EXPECT_EQ(c.metadata.name, "train-gpu-" + Suffix("train", "gpu"));
  EXPECT_EQ(c.metadata.namespace_, "ml");
  // The template's labels and annotations, plus resource.kubernetes.io/pod-claim-name.
  ASSERT_NE(c.metadata.labels.find("app"), nullptr);
  EXPECT_EQ(*c.metadata.labels.find("app"), "train");
  EXPECT_EQ(c.metadata.labels.size(), 1u);
  ASSERT_NE(c.metadata.annotations.find("team"), nullptr);
  EXPECT_EQ(*c.metadata.annotations.find("team"), "vision");
  ASSERT_NE(c.metadata.annotations.find("resource.kubernetes.io/pod-claim-name"), nullptr);
  EXPECT_EQ(*c.metadata.annotations.find("resource.kubernetes.io/pod-claim-name"), "gpu");
  EXPECT_EQ(c.metadata.annotations.size(), 2u);
  // Owner: the PodGroup, schedulingapi.SchemeGroupVersion (v1beta1), controller
  // true, no blockOwnerDeletion.
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0], (api::OwnerReference{.api_version = "scheduling.k8s.io/v1beta1",
                                                                 .kind = "PodGroup",
                                                                 .name = "train",
                                                                 .uid = "train-uid",
                                                                 .controller = true,
                                                                 .block_owner_deletion = std::nullopt}));
  EXPECT_TRUE(c.metadata.finalizers.empty());
  const auto& tmpl = std::get<api::ResourceClaimTemplate>(*cache.Find(api::Kind::kResourceClaimTemplate, "ml/one-gpu"));
  EXPECT_EQ(c.spec, tmpl.spec.spec);
  // Recorded in the group's status under the entry's name.
  ASSERT_EQ(plan.record.size(), 1u);
  EXPECT_EQ(plan.record[0].name, "gpu");
  EXPECT_EQ(plan.record[0].resource_claim_name, c.metadata.name);
  // The POST body: no uid, no status, the owner reference without blockOwnerDeletion.
  const std::string json = manifest::EmitJson(manifest::EncodeObject(api::Object(c)), 0);
  EXPECT_EQ(json.find("blockOwnerDeletion"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"uid\":\"train-uid\""), json.rfind("\"uid\"")) << json;  // the owner's only
}

TEST(PlanPodGroupClaims, LongNamesAreCutProportionally) {
  // 40 + 30 characters: generateName would be 72 > 57, so both are cut:
  // group[:40*57/72] = 31 characters, claim[:30*57/72] = 23, joined by "-"
  // and without the trailing "-".
  const std::string group(40, 'g');
  const std::string entry(30, 'c');
  const std::string y = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: " + group +
                        ", namespace: ml, uid: long-uid}\nspec:\n  schedulingPolicy: {basic: {}}\n"
                        "  resourceClaims: [{name: " +
                        entry + ", resourceClaimTemplateName: one-gpu}]\n";
  ClusterCache cache = Cache({kTemplate, y});
  PodGroupClaimsPlan plan = Plan(cache, group);
  ASSERT_EQ(plan.create.size(), 1u);
  EXPECT_EQ(plan.create[0].metadata.generate_name, std::string(31, 'g') + "-" + std::string(23, 'c'));
  EXPECT_EQ(plan.create[0].metadata.name, plan.create[0].metadata.generate_name + Suffix(group, entry));
  EXPECT_EQ(plan.create[0].metadata.name.size(), 60u);
}

TEST(PlanPodGroupClaims, RecordedAndOwnedIsDone) {
  ClusterCache cache =
      Cache({kTemplate, GroupYaml("train", "", "  resourceClaimStatuses: [{name: gpu, resourceClaimName: made}]\n"),
             ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  EXPECT_EQ(plan.error, "");
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.record.empty());  // no status write
}

TEST(PlanPodGroupClaims, RecordedButGoneIsCreatedAgain) {
  // claimExists is false: "perhaps it was deleted accidentally. In that case
  // we re-create it" (no orphan: a new claim from the template).
  ClusterCache cache =
      Cache({kTemplate, GroupYaml("train", "", "  resourceClaimStatuses: [{name: gpu, resourceClaimName: gone}]\n")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  ASSERT_EQ(plan.create.size(), 1u);
  ASSERT_EQ(plan.record.size(), 1u);
  EXPECT_EQ(plan.record[0].resource_claim_name, "train-gpu-" + Suffix("train", "gpu"));
}

TEST(PlanPodGroupClaims, RecordedButSomeoneElsesIsReplaced) {
  // IsForPodGroup compares the controller's UID: a claim of that name owned
  // by another object is not the group's ("creating a new one").
  ClusterCache cache =
      Cache({kTemplate, GroupYaml("train", "", "  resourceClaimStatuses: [{name: gpu, resourceClaimName: other}]\n"),
             ClaimYaml("other", "PodGroup", "train", "old-train-uid", "gpu")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  ASSERT_EQ(plan.create.size(), 1u);
  EXPECT_EQ(plan.create[0].metadata.name, "train-gpu-" + Suffix("train", "gpu"));
  ASSERT_EQ(plan.record.size(), 1u);
}

TEST(PlanPodGroupClaims, AnOrphanIsRecordedNotCreatedAgain) {
  // findPodGroupResourceClaim: controlled by the group (UID) and annotated
  // with the entry's name. A claim of the group for another entry, and one of
  // another owner for this entry, do not count.
  ClusterCache cache =
      Cache({kTemplate, GroupYaml("train"), ClaimYaml("a-other", "PodGroup", "train", "train-uid", "nic"),
             ClaimYaml("b-pods", "Pod", "p", "train-uid-not", "gpu"),
             ClaimYaml("c-mine", "PodGroup", "train", "train-uid", "gpu")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  EXPECT_TRUE(plan.create.empty());
  ASSERT_EQ(plan.record.size(), 1u);
  EXPECT_EQ(plan.record[0].name, "gpu");
  EXPECT_EQ(plan.record[0].resource_claim_name, "c-mine");
}

TEST(PlanPodGroupClaims, ATakenNameGetsTheNextSuffix) {
  const std::string first = "train-gpu-" + Suffix("train", "gpu");
  ClusterCache cache = Cache({kTemplate, GroupYaml("train"), ClaimYaml(first, "", "", "", "")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  ASSERT_EQ(plan.create.size(), 1u);
  EXPECT_EQ(plan.create[0].metadata.name, "train-gpu-" + Suffix("train", "gpu", 1));
}

TEST(PlanPodGroupClaims, AMissingTemplateWritesNothingForTheGroup) {
  // syncPodGroup returns at the first entry that fails, before its status
  // write: the entry that could be created is not created either.
  ClusterCache cache =
      Cache({kTemplate, GroupYaml("train", "  - {name: nic, resourceClaimTemplateName: no-such-template}\n")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  EXPECT_EQ(plan.error, "PodGroupResourceClaim nic: resource claim template \"no-such-template\": not found");
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.record.empty());
}

TEST(PlanPodGroupClaims, EntriesThatNeedNothing) {
  // A resourceClaimName is used as it is; a status entry without a claim
  // name means no claim is needed; only the unrecorded template entry gets
  // one, and only it is written (a strategic merge keeps the others).
  ClusterCache cache = Cache({kTemplate,
                              GroupYaml("train",
                                        "  - {name: shared, resourceClaimName: existing}\n"
                                        "  - {name: skip, resourceClaimTemplateName: one-gpu}\n"
                                        "  - {name: nic, resourceClaimTemplateName: one-gpu}\n",
                                        "  resourceClaimStatuses: [{name: gpu, resourceClaimName: made}, "
                                        "{name: skip}]\n"),
                              ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu")});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  ASSERT_EQ(plan.create.size(), 1u);
  EXPECT_EQ(plan.create[0].metadata.name, "train-nic-" + Suffix("train", "nic"));
  ASSERT_EQ(plan.record.size(), 1u);
  EXPECT_EQ(plan.record[0].name, "nic");
}

TEST(PlanPodGroupClaims, AGroupBeingDeletedGetsNothing) {
  std::string y = GroupYaml("train");
  y.replace(y.find("uid: train-uid"), 14, "uid: train-uid, deletionTimestamp: \"2026-01-01T00:00:00Z\"");
  ClusterCache cache = Cache({kTemplate, y});
  PodGroupClaimsPlan plan = Plan(cache, "train");
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.record.empty());
}

// A member of `group` with the given spec.resourceClaims and status entries.
std::string PodYaml(const std::string& name, const std::string& group, const std::string& claims,
                    const std::string& statuses = "") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml, uid: " + name +
                  "-uid}\nspec:\n  schedulerName: dractl\n  schedulingGroup: {podGroupName: " + group +
                  "}\n  resourceClaims: " + claims + "\n  containers: [{name: c, image: i}]\n";
  if (!statuses.empty()) y += "status:\n  resourceClaimStatuses: " + statuses + "\n";
  return y;
}

api::Pod PodOf(const ClusterCache& cache, const std::string& name) {
  return std::get<api::Pod>(*cache.Find(api::Kind::kPod, "ml/" + name));
}

std::string Statuses(const std::optional<std::vector<api::PodResourceClaimStatus>>& s) {
  if (!s) return "<nothing>";
  std::string out;
  for (const api::PodResourceClaimStatus& e : *s) out += e.name + "=" + e.resource_claim_name.value_or("<null>") + " ";
  return out;
}

TEST(PlanMemberClaimStatuses, TheGroupsClaimMergedWithThePodsOwnSortedByName) {
  // syncPod: mergedStatuses (what the pod had, plus the new ones), applied
  // sorted by name. The entry "gpu" is the group's (same name and template,
  // BindTo); "zz" is the pod's own and already recorded; "aa" is the pod's
  // own, not recorded (the snapshot's part, not this one's).
  ClusterCache cache = Cache(
      {kTemplate, GroupYaml("train"), ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu"),
       ClaimYaml("own", "Pod", "m0", "m0-uid", "zz"),
       PodYaml("m0", "train",
               "[{name: zz, resourceClaimTemplateName: one-gpu}, {name: gpu, resourceClaimTemplateName: one-gpu}, "
               "{name: aa, resourceClaimTemplateName: one-gpu}]",
               "[{name: zz, resourceClaimName: own}]")});
  auto s = PlanMemberClaimStatuses(PodOf(cache, "m0"), Group(cache, "train"), cache, IndexClaimsByController(cache));
  EXPECT_EQ(Statuses(s), "gpu=made zz=own ");
}

TEST(PlanMemberClaimStatuses, NothingUntilTheGroupsClaimExists) {
  // handleClaim finds no claim of the group (findPodGroupResourceClaim nil):
  // nothing to record yet.
  ClusterCache cache = Cache(
      {kTemplate, GroupYaml("train"), PodYaml("m0", "train", "[{name: gpu, resourceClaimTemplateName: one-gpu}]")});
  EXPECT_EQ(Statuses(PlanMemberClaimStatuses(PodOf(cache, "m0"), Group(cache, "train"), cache,
                                             IndexClaimsByController(cache))),
            "<nothing>");
  EXPECT_TRUE(WaitingForPodGroupClaims(PodOf(cache, "m0"), Group(cache, "train")));
}

TEST(PlanMemberClaimStatuses, AnEntryWithAnotherTemplateIsThePodsOwn) {
  // BindTo needs name, resourceClaimName and resourceClaimTemplateName
  // equal; "gpu" from another template is the pod's own claim.
  ClusterCache cache = Cache({kTemplate, GroupYaml("train"), ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu"),
                              PodYaml("m0", "train", "[{name: gpu, resourceClaimTemplateName: other-template}]")});
  EXPECT_EQ(Statuses(PlanMemberClaimStatuses(PodOf(cache, "m0"), Group(cache, "train"), cache,
                                             IndexClaimsByController(cache))),
            "<nothing>");
  EXPECT_FALSE(WaitingForPodGroupClaims(PodOf(cache, "m0"), Group(cache, "train")));
  // A pod of another group is not a member either.
  ClusterCache other = Cache({kTemplate, GroupYaml("train"), ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu"),
                              PodYaml("m1", "eval", "[{name: gpu, resourceClaimTemplateName: one-gpu}]")});
  EXPECT_EQ(Statuses(PlanMemberClaimStatuses(PodOf(other, "m1"), Group(other, "train"), other,
                                             IndexClaimsByController(other))),
            "<nothing>");
}

TEST(PlanMemberClaimStatuses, RecordedAndThereIsDoneGoneIsRecordedAgain) {
  ClusterCache done = Cache({kTemplate, GroupYaml("train"), ClaimYaml("made", "PodGroup", "train", "train-uid", "gpu"),
                             PodYaml("m0", "train", "[{name: gpu, resourceClaimTemplateName: one-gpu}]",
                                     "[{name: gpu, resourceClaimName: made}]")});
  EXPECT_EQ(
      Statuses(PlanMemberClaimStatuses(PodOf(done, "m0"), Group(done, "train"), done, IndexClaimsByController(done))),
      "<nothing>");
  EXPECT_FALSE(WaitingForPodGroupClaims(PodOf(done, "m0"), Group(done, "train")));
  // The recorded claim is gone and the group has a new one: claimExists is
  // false, so handleClaim records the group's current claim.
  ClusterCache gone =
      Cache({kTemplate, GroupYaml("train"), ClaimYaml("made-again", "PodGroup", "train", "train-uid", "gpu"),
             PodYaml("m0", "train", "[{name: gpu, resourceClaimTemplateName: one-gpu}]",
                     "[{name: gpu, resourceClaimName: made}]")});
  EXPECT_EQ(
      Statuses(PlanMemberClaimStatuses(PodOf(gone, "m0"), Group(gone, "train"), gone, IndexClaimsByController(gone))),
      "gpu=made-again ");
}

TEST(PodGroupClaimStatusPatch, MergesByNameWithTheUidAsPrecondition) {
  // PodGroupStatus.resourceClaimStatuses: patchStrategy merge, patchMergeKey
  // name (k8s.io/api scheduling/v1beta1 types.go).
  EXPECT_EQ(RequestJson(PodGroupClaimStatusPatch("g-uid", {{.name = "gpu", .resource_claim_name = "train-gpu-x"},
                                                           {.name = "skip", .resource_claim_name = std::nullopt}})),
            R"({"metadata":{"uid":"g-uid"},"status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":)"
            R"("train-gpu-x"},{"name":"skip"}]}})");
}

}  // namespace
}  // namespace dra::kube
