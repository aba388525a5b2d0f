// scheduling.k8s.io PodGroup and Workload through the decoder, the encoder
// and the loader: both served versions (v1alpha3 and v1beta1, one schema),
// unknown and mistyped fields with their paths, the Go JSON field order and
// omitempty of k8s.io/api/scheduling/v1beta1/types.go, and round trips.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "manifest/decode.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/internal/raw_json.h"
#include "manifest/loader.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Node Yaml(std::string_view text) {
  StatusOr<std::vector<Document>> docs = ParseYaml(text, "test.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  if (!docs.ok() || docs->empty()) return Node();
  return std::move(docs->front().root);
}

std::string Json(const Node& n) {
  std::string out;
  const Node* bad = nullptr;
  EXPECT_TRUE(internal::AppendCompactJson(n, &out, &bad));
  return out;
}

// "field: message" of every diagnostic, "warning: " before warnings.
std::vector<std::string> Lines(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics) {
    out.push_back((d.severity == api::Severity::kWarning ? "warning: " : "") + d.field + ": " + d.message);
  }
  return out;
}

template <typename T>
T DecodeAs(std::string_view yaml) {
  std::vector<Diagnostic> diagnostics;
  StatusOr<api::Object> object = DecodeObject(Yaml(yaml), {.strict = true}, &diagnostics);
  EXPECT_TRUE(object.ok()) << object.status().ToString();
  EXPECT_THAT(Lines(diagnostics), IsEmpty());
  if (!object.ok()) return T{};
  return std::get<T>(*std::move(object));
}

// decode(encode(x)) == x, also through emitted YAML.
void ExpectRoundTrip(const api::Object& object) {
  Node encoded = EncodeObject(object);
  std::vector<Diagnostic> diagnostics;
  StatusOr<api::Object> again = DecodeObject(encoded, {.strict = true}, &diagnostics);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_THAT(Lines(diagnostics), IsEmpty());
  EXPECT_TRUE(*again == object) << Json(encoded);
  std::string yaml = EmitYaml(encoded);
  StatusOr<api::Object> parsed = DecodeObject(Yaml(yaml), {.strict = true}, &diagnostics);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << yaml;
  EXPECT_TRUE(*parsed == object) << yaml;
}

constexpr std::string_view kPodGroupBody = R"(
kind: PodGroup
metadata: {name: train-workers, namespace: ml}
spec:
  parentCompositePodGroupName: train
  workloadRef: {workloadName: train, templateName: workers}
  schedulingPolicy:
    gang: {minCount: 4}
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/rack
  resourceClaims:
  - name: shared
    resourceClaimTemplateName: shared-tmpl
  - name: direct
    resourceClaimName: c1
  disruptionMode: {all: {}}
  priorityClassName: high
  priority: 1000
  preemptionPolicy: Never
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "False"
    lastTransitionTime: "2026-07-01T10:00:00Z"
    reason: Unschedulable
    message: "minCount (4) cannot be satisfied"
  resourceClaimStatuses:
  - name: shared
    resourceClaimName: train-workers-shared-x7k2p
)";

std::string WithVersion(std::string_view version, std::string_view body) {
  return "apiVersion: " + std::string(version) + std::string(body);
}

TEST(SchedulingDecodeTest, PodGroupEveryFieldInBothVersions) {
  api::PodGroup beta = DecodeAs<api::PodGroup>(WithVersion("scheduling.k8s.io/v1beta1", kPodGroupBody));
  EXPECT_EQ(beta.metadata.name, "train-workers");
  EXPECT_EQ(beta.metadata.namespace_, "ml");
  const api::PodGroupSpec& s = beta.spec;
  EXPECT_EQ(s.parent_composite_pod_group_name, std::optional<std::string>("train"));
  ASSERT_TRUE(s.workload_ref.has_value());
  EXPECT_EQ(s.workload_ref->workload_name, "train");
  EXPECT_EQ(s.workload_ref->template_name, "workers");
  EXPECT_FALSE(s.scheduling_policy.basic);
  ASSERT_TRUE(s.scheduling_policy.gang.has_value());
  EXPECT_EQ(s.scheduling_policy.gang->min_count, 4);
  ASSERT_TRUE(s.scheduling_constraints.has_value());
  ASSERT_EQ(s.scheduling_constraints->topology.size(), 1u);
  EXPECT_EQ(s.scheduling_constraints->topology[0].key, "topology.kubernetes.io/rack");
  ASSERT_EQ(s.resource_claims.size(), 2u);
  EXPECT_EQ(s.resource_claims[0].name, "shared");
  EXPECT_EQ(s.resource_claims[0].resource_claim_template_name, std::optional<std::string>("shared-tmpl"));
  EXPECT_FALSE(s.resource_claims[0].resource_claim_name.has_value());
  EXPECT_EQ(s.resource_claims[1].resource_claim_name, std::optional<std::string>("c1"));
  EXPECT_EQ(s.disruption_mode, (std::optional<api::DisruptionMode>(api::DisruptionMode{.single = false, .all = true})));
  EXPECT_EQ(s.priority_class_name, "high");
  EXPECT_EQ(s.priority, std::optional<int32_t>(1000));
  EXPECT_EQ(s.preemption_policy, std::optional<std::string>("Never"));
  EXPECT_TRUE(s.extra.empty());
  ASSERT_EQ(beta.status.conditions.size(), 1u);
  EXPECT_EQ(beta.status.conditions[0].type, api::kPodGroupInitiallyScheduled);
  EXPECT_EQ(beta.status.conditions[0].reason, api::kPodGroupReasonUnschedulable);
  ASSERT_EQ(beta.status.resource_claim_statuses.size(), 1u);
  EXPECT_EQ(beta.status.resource_claim_statuses[0].resource_claim_name,
            std::optional<std::string>("train-workers-shared-x7k2p"));

  // v1alpha3 has the same schema and gives the same object.
  api::PodGroup alpha = DecodeAs<api::PodGroup>(WithVersion("scheduling.k8s.io/v1alpha3", kPodGroupBody));
  EXPECT_EQ(alpha, beta);
  ExpectRoundTrip(beta);
}

TEST(SchedulingDecodeTest, WorkloadInBothVersions) {
  constexpr std::string_view kBody = R"(
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: train}
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 4}}
    schedulingConstraints: null
    resourceClaims:
    - {name: shared, resourceClaimTemplateName: shared-tmpl}
    disruptionMode: {single: {}}
    priorityClassName: high
    priority: 7
    preemptionPolicy: PreemptLowerPriority
  - name: driver
    schedulingPolicy: {basic: {}}
  compositePodGroupTemplates:
  - {name: all, schedulingPolicy: {gang: {minGroupCount: 2}}}
)";
  for (std::string_view version : {"scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"}) {
    SCOPED_TRACE(version);
    api::SchedulingWorkload w = DecodeAs<api::SchedulingWorkload>(WithVersion(version, kBody));
    ASSERT_TRUE(w.spec.controller_ref.has_value());
    EXPECT_EQ(w.spec.controller_ref->api_group, "batch");
    EXPECT_EQ(w.spec.controller_ref->kind, "Job");
    EXPECT_EQ(w.spec.controller_ref->name, "train");
    ASSERT_EQ(w.spec.pod_group_templates.size(), 2u);
    const api::PodGroupTemplate& workers = w.spec.pod_group_templates[0];
    EXPECT_EQ(workers.name, "workers");
    EXPECT_EQ(workers.spec.scheduling_policy.gang->min_count, 4);
    EXPECT_FALSE(workers.spec.scheduling_constraints.has_value());  // null is unset
    ASSERT_EQ(workers.spec.resource_claims.size(), 1u);
    EXPECT_EQ(workers.spec.disruption_mode,
              (std::optional<api::DisruptionMode>(api::DisruptionMode{.single = true, .all = false})));
    EXPECT_EQ(workers.spec.priority, std::optional<int32_t>(7));
    EXPECT_EQ(workers.spec.preemption_policy, std::optional<std::string>("PreemptLowerPriority"));
    EXPECT_TRUE(w.spec.pod_group_templates[1].spec.scheduling_policy.basic);
    // compositePodGroupTemplates (gate CompositePodGroup) is kept verbatim.
    const api::RawJson* composite = w.spec.extra.find("compositePodGroupTemplates");
    ASSERT_NE(composite, nullptr);
    EXPECT_EQ(*composite, R"([{"name":"all","schedulingPolicy":{"gang":{"minGroupCount":2}}}])");
    ExpectRoundTrip(w);
  }
}

TEST(SchedulingDecodeTest, OnlyTheSchedulingGroupsVersionsAreThisKind) {
  // `kind: Workload` is ours only in scheduling.k8s.io/v1alpha3 and v1beta1;
  // any other group or version is a kind dractl does not read (kNotFound,
  // nothing reported; the loader counts it as skipped, as for other kinds).
  for (std::string_view version : {"scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha2",
                                   "apps/v1", "example.com/v1"}) {
    for (std::string_view kind : {"Workload", "PodGroup"}) {
      std::vector<Diagnostic> diagnostics;
      StatusOr<api::Object> object = DecodeObject(
          Yaml("apiVersion: " + std::string(version) + "\nkind: " + std::string(kind) + "\nmetadata: {name: x}\n"), {},
          &diagnostics);
      EXPECT_EQ(object.status().code(), StatusCode::kNotFound) << version << " " << kind;
      EXPECT_THAT(Lines(diagnostics), IsEmpty());
    }
  }
  // Nor is a scheduling.k8s.io Workload an apps/batch workload.
  std::vector<Diagnostic> diagnostics;
  StatusOr<api::Workload> workload = DecodeWorkload(
      Yaml("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: x}\n"), {}, &diagnostics);
  EXPECT_EQ(workload.status().code(), StatusCode::kNotFound);

  Loader loader({.keep_workloads = true});
  LoadResult result;
  loader.LoadText(R"(apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: a, namespace: ml}
spec:
  podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: b, namespace: ml}
spec: {schedulingPolicy: {basic: {}}}
---
apiVersion: scheduling.k8s.io/v1
kind: Workload
metadata: {name: c}
)",
                  "in.yaml", &result);
  EXPECT_THAT(result.messages, IsEmpty());
  ASSERT_EQ(result.objects.size(), 2u);
  EXPECT_EQ(ObjectDisplayName(result.objects[0].object), "Workload ml/a");
  EXPECT_EQ(ObjectDisplayName(result.objects[1].object), "PodGroup ml/b");
  EXPECT_TRUE(result.workloads.empty());
  EXPECT_EQ(result.skipped_kinds, (std::map<std::string, size_t>{{"scheduling.k8s.io/v1 Workload", 1}}));
}

TEST(SchedulingDecodeTest, UnknownAndMistypedFieldsWithTheirPaths) {
  std::vector<Diagnostic> diagnostics;
  StatusOr<api::Object> object = DecodeObject(Yaml(R"(
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec:
  schedulingPolicy:
    gang: {minCont: 2}
    basic: {strict: true}
  disruptionMode: {singel: {}}
  workloadRef: {workloadName: w, template: t}
  priorty: 3
status:
  resourceClaimStatus: []
)"),
                                              {}, &diagnostics);
  ASSERT_TRUE(object.ok()) << object.status().ToString();  // warnings only
  EXPECT_THAT(Lines(diagnostics),
              ElementsAre("warning: spec.schedulingPolicy.gang.minCont: unknown field \"minCont\"; did you mean "
                          "\"minCount\"?",
                          "warning: spec.schedulingPolicy.basic.strict: unknown field \"strict\"",
                          "warning: spec.disruptionMode.singel: unknown field \"singel\"; did you mean \"single\"?",
                          "warning: spec.workloadRef.template: unknown field \"template\"; did you mean "
                          "\"templateName\"?",
                          "warning: spec.priorty: unknown field \"priorty\"; did you mean \"priority\"?",
                          "warning: status.resourceClaimStatus: unknown field \"resourceClaimStatus\"; did you "
                          "mean \"resourceClaimStatuses\"?"));
  // Unknown fields are dropped.
  EXPECT_EQ(std::get<api::PodGroup>(*object).spec.scheduling_policy.gang->min_count, 0);

  // With --strict they are errors; so are values of the wrong type.
  diagnostics.clear();
  object = DecodeObject(Yaml(R"(
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {name: w}
spec:
  podGroupTemplates:
  - name: t
    schedulingPolicy: {gang: {minCount: "4"}, basic: 1}
    priority: 1.5
    resourceClaims: {name: x}
  compositePodGroupTemplates: {name: c}
  controllerRef: {kind: Job, name: j, uid: u}
)"),
                        {.strict = true}, &diagnostics);
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Lines(diagnostics),
              ElementsAre("spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: expected integer, got string",
                          "spec.podGroupTemplates[0].schedulingPolicy.basic: expected object, got integer",
                          "spec.podGroupTemplates[0].priority: expected integer, got number 1.5",
                          "spec.podGroupTemplates[0].resourceClaims: expected list, got object",
                          "spec.compositePodGroupTemplates: expected list, got object",
                          "spec.controllerRef.uid: unknown field \"uid\""));
}

TEST(SchedulingDecodeTest, EncodesInGoFieldOrderAsV1beta1) {
  // PodGroupSpec's JSON order: parentCompositePodGroupName, workloadRef,
  // schedulingPolicy, schedulingConstraints, resourceClaims, disruptionMode,
  // priorityClassName, priority, preemptionPolicy; omitempty everywhere but
  // schedulingPolicy (a struct) and the required strings and minCount.
  api::PodGroup g = DecodeAs<api::PodGroup>(WithVersion("scheduling.k8s.io/v1alpha3", kPodGroupBody));
  Node encoded = EncodeObject(g);
  EXPECT_EQ(Json(encoded),
            R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup",)"
            R"("metadata":{"name":"train-workers","namespace":"ml","creationTimestamp":null},)"
            R"("spec":{"parentCompositePodGroupName":"train",)"
            R"("workloadRef":{"workloadName":"train","templateName":"workers"},)"
            R"("schedulingPolicy":{"gang":{"minCount":4}},)"
            R"("schedulingConstraints":{"topology":[{"key":"topology.kubernetes.io/rack"}]},)"
            R"("resourceClaims":[{"name":"shared","resourceClaimTemplateName":"shared-tmpl"},)"
            R"({"name":"direct","resourceClaimName":"c1"}],)"
            R"("disruptionMode":{"all":{}},"priorityClassName":"high","priority":1000,"preemptionPolicy":"Never"},)"
            R"("status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"False",)"
            R"("lastTransitionTime":"2026-07-01T10:00:00Z","reason":"Unschedulable",)"
            R"("message":"minCount (4) cannot be satisfied"}],)"
            R"("resourceClaimStatuses":[{"name":"shared","resourceClaimName":"train-workers-shared-x7k2p"}]}})");

  // Empty objects: spec.schedulingPolicy is a struct ({}); status has no
  // omitempty effect on a struct ({}); gang's minCount is always written.
  EXPECT_EQ(Json(EncodeObject(api::PodGroup{.metadata = {.name = "g"}})),
            R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup",)"
            R"("metadata":{"name":"g","creationTimestamp":null},"spec":{"schedulingPolicy":{}},"status":{}})");
  api::PodGroup zero;
  zero.spec.scheduling_policy.gang = api::GangSchedulingPolicy{};
  EXPECT_THAT(Json(EncodeObject(zero)), HasSubstr(R"("schedulingPolicy":{"gang":{"minCount":0}})"));

  // Workload: podGroupTemplates has no omitempty (null when empty), nor has
  // a template's schedulingConstraints; compositePodGroupTemplates after it.
  EXPECT_EQ(Json(EncodeObject(api::SchedulingWorkload{.metadata = {.name = "w"}})),
            R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"Workload",)"
            R"("metadata":{"name":"w","creationTimestamp":null},"spec":{"podGroupTemplates":null}})");
  api::SchedulingWorkload w;
  w.metadata.name = "w";
  w.spec.controller_ref = api::TypedLocalObjectReference{.api_group = "", .kind = "Job", .name = "j"};
  api::PodGroupTemplate t;
  t.name = "t";
  t.spec.scheduling_policy.basic = true;
  t.spec.priority = 0;
  w.spec.pod_group_templates.push_back(t);
  w.spec.extra.insert_or_assign("compositePodGroupTemplates", "[]");
  EXPECT_EQ(Json(EncodeObject(w)),
            R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"Workload",)"
            R"("metadata":{"name":"w","creationTimestamp":null},)"
            R"("spec":{"controllerRef":{"kind":"Job","name":"j"},)"
            R"("podGroupTemplates":[{"name":"t","schedulingPolicy":{"basic":{}},"schedulingConstraints":null,)"
            R"("priority":0}],"compositePodGroupTemplates":[]}})");
  ExpectRoundTrip(w);
  ExpectRoundTrip(zero);
}

}  // namespace
}  // namespace dra::manifest
