// api::ValidatePodGroup, ValidateSchedulingWorkload and the pod's
// spec.schedulingGroup, rule by rule. Each expectation is worked out from the
// upstream rule named in its comment (k8s.io/api scheduling/v1beta1 +k8s
// tags, as zz_generated.validations.go applies them with apimachinery's
// validate package; pkg/apis/scheduling/validation; the registry strategies'
// dropDisabled*; core validation's validateSchedulingGroup), with the message
// texts of those packages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"

namespace dra::api {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// "field: Invalid value: ...", with "warning: " before warnings.
std::vector<std::string> Lines(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) out.push_back((e.severity == Severity::kWarning ? "warning: " : "") + e.ToString());
  return out;
}

// The Workload API gate alone, or with others (FromList: no dependency check,
// DynamicResourceAllocation on).
FeatureGates Gates(std::initializer_list<std::string_view> names) { return FeatureGates::FromList(names).value(); }
FeatureGates Generic() { return Gates({"GenericWorkload"}); }
FeatureGates AllWorkloadGates() {
  return Gates({"GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup", "PodGroupPreemptionPolicy",
                "DRAWorkloadResourceClaims"});
}

PodGroup BaseGroup() {
  PodGroup g;
  g.metadata.name = "train";
  g.metadata.namespace_ = "ml";
  g.spec.scheduling_policy.gang = GangSchedulingPolicy{.min_count = 4};
  g.spec.disruption_mode = DisruptionMode{.single = true, .all = false};
  return g;
}

PodGroupTemplate Template(std::string name) {
  PodGroupTemplate t;
  t.name = std::move(name);
  t.spec.scheduling_policy.basic = true;
  return t;
}

SchedulingWorkload BaseWorkload() {
  SchedulingWorkload w;
  w.metadata.name = "job";
  w.metadata.namespace_ = "ml";
  w.spec.pod_group_templates = {Template("workers"), Template("driver")};
  w.spec.pod_group_templates[0].spec.scheduling_policy = {.basic = false, .gang = GangSchedulingPolicy{.min_count = 2}};
  return w;
}

// ---------------------------------------------------------------------------
// The kinds are served only with GenericWorkload.

TEST(SchedulingValidationTest, BaselinesAreValid) {
  EXPECT_THAT(Lines(ValidatePodGroup(BaseGroup(), Generic())), IsEmpty());
  EXPECT_THAT(Lines(ValidatePodGroup(BaseGroup(), AllWorkloadGates())), IsEmpty());
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(BaseWorkload(), Generic())), IsEmpty());
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(BaseWorkload(), AllWorkloadGates())), IsEmpty());
  // The dispatch reaches the same functions.
  EXPECT_THAT(Lines(Validate(Object(BaseGroup()), Generic())), IsEmpty());
  EXPECT_THAT(Lines(Validate(Object(BaseWorkload()), Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, GenericWorkloadOffMeansTheKindIsNotServed) {
  // 1.37 defaults: GenericWorkload is beta but off; the storage for podgroups
  // and workloads is not installed. Reported at `kind`, as a DeviceTaintRule
  // without its gate is, and the object is still checked.
  FeatureGates v137 = FeatureGates::Defaults("1.37").value();
  EXPECT_THAT(Lines(ValidatePodGroup(BaseGroup(), v137)),
              ElementsAre("kind: Forbidden: PodGroup requires feature gate GenericWorkload, which is disabled (the API "
                          "server does not serve this kind; enable with --feature-gates GenericWorkload=true)"));
  SchedulingWorkload w = BaseWorkload();
  w.metadata.name = "Bad";
  std::vector<std::string> lines = Lines(ValidateSchedulingWorkload(w, v137));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("kind: Forbidden: Workload requires feature gate GenericWorkload"));
  EXPECT_THAT(lines[1], HasSubstr("metadata.name: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain"));
  // 1.34 has no such gate at all.
  EXPECT_THAT(Lines(ValidatePodGroup(BaseGroup(), FeatureGates::Defaults("1.34").value())),
              ElementsAre(HasSubstr("(Kubernetes 1.34 does not have it; the API server does not serve this kind)")));
  // --feature-gates GenericWorkload=true turns it on.
  Status s = v137.ParseFlag("GenericWorkload=true");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(Lines(ValidatePodGroup(BaseGroup(), v137)), IsEmpty());
}

// ---------------------------------------------------------------------------
// PodGroup

TEST(SchedulingValidationTest, PodGroupMetadata) {
  // ValidatePodGroup: ValidateObjectMeta with ValidatePodGroupName (a DNS
  // subdomain), namespaced.
  PodGroup g = BaseGroup();
  g.metadata.name = "Train";
  g.metadata.namespace_ = "a.b";
  std::vector<std::string> lines = Lines(ValidatePodGroup(g, Generic()));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("metadata.name: Invalid value: \"Train\": a lowercase RFC 1123 subdomain"));
  EXPECT_THAT(lines[1], HasSubstr("metadata.namespace: Invalid value: \"a.b\": must not contain dots"));
  g = BaseGroup();
  g.metadata.name.clear();
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("metadata.name: Required value: name or generateName is required"));
}

TEST(SchedulingValidationTest, SchedulingPolicyIsAUnionOfBasicAndGang) {
  // +union over basic and gang (validate.Union): none set -> Invalid "" with
  // the members in backquotes; both -> Invalid "{basic, gang}".
  PodGroup g = BaseGroup();
  g.spec.scheduling_policy = {};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"));
  g.spec.scheduling_policy = {.basic = true, .gang = GangSchedulingPolicy{.min_count = 1}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.schedulingPolicy: Invalid value: \"{basic, gang}\": must specify exactly one of: "
                          "`basic`, `gang`"));
  g.spec.scheduling_policy = {.basic = true, .gang = std::nullopt};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, GangMinCountIsRequiredAndAtLeastOne) {
  // minCount: +k8s:required (RequiredValue: 0 is the zero value, so
  // "Required value") then +k8s:minimum=1 ("must be greater than or equal to 1").
  PodGroup g = BaseGroup();
  g.spec.scheduling_policy.gang->min_count = 0;
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.schedulingPolicy.gang.minCount: Required value"));
  g.spec.scheduling_policy.gang->min_count = -3;
  EXPECT_THAT(
      Lines(ValidatePodGroup(g, Generic())),
      ElementsAre("spec.schedulingPolicy.gang.minCount: Invalid value: -3: must be greater than or equal to 1"));
  g.spec.scheduling_policy.gang->min_count = 1;
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, SchedulingConstraints) {
  PodGroup g = BaseGroup();
  g.spec.scheduling_constraints = PodGroupSchedulingConstraints{.topology = {{.key = "topology.kubernetes.io/rack"}}};
  // Gate off: dropDisabledSchedulingConstraintsFields removes it on create.
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("warning: spec.schedulingConstraints: Forbidden: requires feature gate "
                          "TopologyAwareWorkloadScheduling, which is disabled: the API server drops this field "
                          "(enable with --feature-gates TopologyAwareWorkloadScheduling=true)"));
  FeatureGates on = Gates({"GenericWorkload", "TopologyAwareWorkloadScheduling"});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
  // topology: +k8s:maxItems=1 (TooMany, and the items are not looked into).
  g.spec.scheduling_constraints->topology.push_back({.key = ""});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.schedulingConstraints.topology: Too many: 2: must have at most 1 items"));
  // key: +k8s:required, +k8s:format=k8s-label-key.
  g.spec.scheduling_constraints->topology = {{.key = ""}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.schedulingConstraints.topology[0].key: Required value"));
  g.spec.scheduling_constraints->topology = {{.key = "rack/zone/x"}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre(HasSubstr("spec.schedulingConstraints.topology[0].key: Invalid value: \"rack/zone/x\": a "
                                    "valid label key")));
  // An empty constraints object is valid (topology is optional).
  g.spec.scheduling_constraints->topology.clear();
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
}

TEST(SchedulingValidationTest, ResourceClaims) {
  PodGroup g = BaseGroup();
  g.spec.resource_claims = {{.name = "shared", .resource_claim_name = "c1", .resource_claim_template_name = {}}};
  // Gate off: dropDisabledDRAWorkloadResourceClaimsFields.
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre(HasSubstr("warning: spec.resourceClaims: Forbidden: requires feature gate "
                                    "DRAWorkloadResourceClaims, which is disabled")));
  FeatureGates on = Gates({"GenericWorkload", "DRAWorkloadResourceClaims"});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());

  // +k8s:maxItems=4 (MaxPodGroupResourceClaims): 4 are fine, 5 are too many.
  g.spec.resource_claims.clear();
  for (const char* name : {"a", "b", "c", "d"}) {
    g.spec.resource_claims.push_back({.name = name, .resource_claim_name = {}, .resource_claim_template_name = "t"});
  }
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
  g.spec.resource_claims.push_back({.name = "e", .resource_claim_name = {}, .resource_claim_template_name = "t"});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.resourceClaims: Too many: 5: must have at most 4 items"));

  // +listMapKey=name: a later entry with a taken name is a Duplicate, shown
  // as the JSON of the whole entry (field.Error marshals struct values).
  g.spec.resource_claims = {{.name = "a", .resource_claim_name = "x", .resource_claim_template_name = {}},
                            {.name = "a", .resource_claim_name = {}, .resource_claim_template_name = "t"}};
  EXPECT_THAT(
      Lines(ValidatePodGroup(g, on)),
      ElementsAre("spec.resourceClaims[1]: Duplicate value: {\"name\":\"a\",\"resourceClaimTemplateName\":\"t\"}"));

  // +union of resourceClaimName and resourceClaimTemplateName: exactly one.
  g.spec.resource_claims = {{.name = "a", .resource_claim_name = {}, .resource_claim_template_name = {}}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.resourceClaims[0]: Invalid value: \"\": must specify one of: `resourceClaimName`, "
                          "`resourceClaimTemplateName`"));
  g.spec.resource_claims = {{.name = "a", .resource_claim_name = "x", .resource_claim_template_name = "t"}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.resourceClaims[0]: Invalid value: \"{resourceClaimName, resourceClaimTemplateName}\": "
                          "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`"));

  // name: +k8s:required, k8s-short-name; the two names: k8s-long-name.
  g.spec.resource_claims = {{.name = "", .resource_claim_name = "x", .resource_claim_template_name = {}}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), ElementsAre("spec.resourceClaims[0].name: Required value"));
  g.spec.resource_claims = {{.name = "a.b", .resource_claim_name = "X_1", .resource_claim_template_name = {}},
                            {.name = "c", .resource_claim_name = {}, .resource_claim_template_name = "-t"}};
  std::vector<std::string> lines = Lines(ValidatePodGroup(g, on));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "spec.resourceClaims[0].name: Invalid value: \"a.b\": must not contain dots");
  EXPECT_THAT(lines[1], HasSubstr("spec.resourceClaims[0].resourceClaimName: Invalid value: \"X_1\": a lowercase "
                                  "RFC 1123 subdomain"));
  EXPECT_THAT(lines[2], HasSubstr("spec.resourceClaims[1].resourceClaimTemplateName: Invalid value: \"-t\": a "
                                  "lowercase RFC 1123 subdomain"));
}

TEST(SchedulingValidationTest, DisruptionModeIsRequiredAfterDefaultingAndAUnion) {
  // disruptionMode has a +default, so it is required (RequiredPointer); the
  // default is {single: {}} (SetObjectDefaults_PodGroup).
  PodGroup g = BaseGroup();
  g.spec.disruption_mode.reset();
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), ElementsAre("spec.disruptionMode: Required value"));
  SetDefaults(g, Generic());
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
  // +union of single and all.
  g.spec.disruption_mode = DisruptionMode{.single = true, .all = true};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.disruptionMode: Invalid value: \"{single, all}\": must specify exactly one of: "
                          "`single`, `all`"));
  g.spec.disruption_mode = DisruptionMode{};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.disruptionMode: Invalid value: \"\": must specify one of: `single`, `all`"));
  g.spec.disruption_mode = DisruptionMode{.single = false, .all = true};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, PriorityClassNameAndPriority) {
  // priorityClassName: k8s-long-name; priority: +k8s:maximum=1000000000
  // (HighestUserDefinablePriority).
  PodGroup g = BaseGroup();
  g.spec.priority_class_name = "High_Priority";
  g.spec.priority = 1000000001;
  std::vector<std::string> lines = Lines(ValidatePodGroup(g, Generic()));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("spec.priorityClassName: Invalid value: \"High_Priority\": a lowercase RFC 1123 "
                                  "subdomain"));
  EXPECT_EQ(lines[1], "spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000");
  g.spec.priority_class_name = "high-priority";
  g.spec.priority = 1000000000;
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
  g.spec.priority = -5;  // no minimum
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, PreemptionPolicy) {
  PodGroup g = BaseGroup();
  g.spec.preemption_policy = "Sometimes";
  // Gate off: dropDisabledPreemptionPolicyField.
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre(HasSubstr("warning: spec.preemptionPolicy: Forbidden: requires feature gate "
                                    "PodGroupPreemptionPolicy")));
  // On: the enum {PreemptLowerPriority, Never}, listed sorted.
  FeatureGates on = Gates({"GenericWorkload", "PodGroupPreemptionPolicy"});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              ElementsAre("spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"Never\", "
                          "\"PreemptLowerPriority\""));
  g.spec.preemption_policy = "Never";
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
}

TEST(SchedulingValidationTest, WorkloadRefAndParentCompositePodGroup) {
  // workloadRef: workloadName +k8s:required k8s-long-name; templateName
  // +k8s:required k8s-short-name.
  PodGroup g = BaseGroup();
  g.spec.workload_ref = WorkloadReference{.workload_name = "", .template_name = "a.b"};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("spec.workloadRef.workloadName: Required value",
                          "spec.workloadRef.templateName: Invalid value: \"a.b\": must not contain dots"));
  g.spec.workload_ref = WorkloadReference{.workload_name = "job", .template_name = "workers"};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());

  // parentCompositePodGroupName: dropped while CompositePodGroup is off.
  g.spec.workload_ref.reset();
  g.spec.parent_composite_pod_group_name = "Parent";
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre(HasSubstr("warning: spec.parentCompositePodGroupName: Forbidden: requires feature gate "
                                    "CompositePodGroup")));
  // On: ValidatePodGroup's hand-written rule (workloadRef required with a
  // parent) comes first, then the long-name format.
  FeatureGates on = Gates({"GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup"});
  std::vector<std::string> lines = Lines(ValidatePodGroup(g, on));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set");
  EXPECT_THAT(lines[1], HasSubstr("spec.parentCompositePodGroupName: Invalid value: \"Parent\": a lowercase RFC 1123"));
  g.spec.parent_composite_pod_group_name = "parent";
  g.spec.workload_ref = WorkloadReference{.workload_name = "job", .template_name = "workers"};
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
}

TEST(SchedulingValidationTest, PodGroupStatus) {
  // As ValidatePodGroupStatusUpdate: metav1 conditions; every
  // resourceClaimStatuses name must be a spec.resourceClaims name; and the
  // declarative maxItems=4, unique names, long-name claim names.
  PodGroup g = BaseGroup();
  g.status.conditions = {{.type = kPodGroupInitiallyScheduled,
                          .status = ConditionStatus::kTrue,
                          .observed_generation = 0,
                          .last_transition_time = "2026-01-01T00:00:00Z",
                          .reason = "",
                          .message = ""}};
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())),
              ElementsAre("status.conditions[0].reason: Required value: must be set"));
  g.status.conditions[0].reason = kPodGroupReasonScheduled;
  EXPECT_THAT(Lines(ValidatePodGroup(g, Generic())), IsEmpty());

  g.spec.resource_claims = {{.name = "shared", .resource_claim_name = {}, .resource_claim_template_name = "t"}};
  g.status.resource_claim_statuses = {{.name = "shared", .resource_claim_name = "train-shared-abcde"}};
  // Dropped on a status update while DRAWorkloadResourceClaims is off.
  std::vector<std::string> lines = Lines(ValidatePodGroup(g, Generic()));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[1], HasSubstr("warning: status.resourceClaimStatuses: Forbidden: requires feature gate "
                                  "DRAWorkloadResourceClaims"));
  FeatureGates on = Gates({"GenericWorkload", "DRAWorkloadResourceClaims"});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)), IsEmpty());
  g.status.resource_claim_statuses = {{.name = "other", .resource_claim_name = {}},
                                      {.name = "other", .resource_claim_name = "Bad"}};
  lines = Lines(ValidatePodGroup(g, on));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "status.resourceClaimStatuses[0].name: Invalid value: \"other\": must match the name of an entry in "
            "`spec.resourceClaims`");
  EXPECT_EQ(lines[1],
            "status.resourceClaimStatuses[1].name: Invalid value: \"other\": must match the name of an entry in "
            "`spec.resourceClaims`");
  EXPECT_EQ(lines[2],
            "status.resourceClaimStatuses[1]: Duplicate value: {\"name\":\"other\",\"resourceClaimName\":\"Bad\"}");
  EXPECT_THAT(lines[3], HasSubstr("status.resourceClaimStatuses[1].resourceClaimName: Invalid value: \"Bad\""));
  g.status.resource_claim_statuses.clear();
  for (int i = 0; i < 5; ++i) g.status.resource_claim_statuses.push_back({.name = "shared", .resource_claim_name = {}});
  EXPECT_THAT(Lines(ValidatePodGroup(g, on)),
              Contains("status.resourceClaimStatuses: Too many: 5: must have at most 4 items"));
}

// ---------------------------------------------------------------------------
// Workload

TEST(SchedulingValidationTest, WorkloadTemplatesOrCompositeTemplates) {
  // +union of podGroupTemplates and compositePodGroupTemplates (a list is
  // "set" when not empty).
  SchedulingWorkload w = BaseWorkload();
  w.spec.pod_group_templates.clear();
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec: Invalid value: \"\": must specify one of: `podGroupTemplates`, "
                          "`compositePodGroupTemplates`"));
  // compositePodGroupTemplates is dropped while CompositePodGroup is off, so
  // the union still misses a member.
  w.spec.extra.insert_or_assign("compositePodGroupTemplates", R"([{"name":"c"}])");
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre(HasSubstr("warning: spec.compositePodGroupTemplates: Forbidden: requires feature gate "
                                    "CompositePodGroup"),
                          HasSubstr("spec: Invalid value: \"\": must specify one of")));
  FeatureGates on = Gates({"GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup"});
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, on)), IsEmpty());
  w.spec.pod_group_templates = {Template("a")};
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, on)),
              ElementsAre("spec: Invalid value: \"{podGroupTemplates, compositePodGroupTemplates}\": must specify "
                          "exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`"));
}

TEST(SchedulingValidationTest, AtMostEightTemplatesWithUniqueNames) {
  // +k8s:maxItems=8 (WorkloadMaxPodGroupTemplates).
  SchedulingWorkload w = BaseWorkload();
  w.spec.pod_group_templates.clear();
  for (int i = 0; i < 8; ++i) w.spec.pod_group_templates.push_back(Template("t" + std::to_string(i)));
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())), IsEmpty());
  w.spec.pod_group_templates.push_back(Template("t8"));
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.podGroupTemplates: Too many: 9: must have at most 8 items"));
  // +listMapKey=name: the later one is a Duplicate, shown as the JSON of the
  // v1beta1 template (schedulingConstraints has no omitempty: null).
  w.spec.pod_group_templates = {Template("a"), Template("a")};
  w.spec.pod_group_templates[1].spec.priority_class_name = "";
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.podGroupTemplates[1]: Duplicate value: "
                          "{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"schedulingConstraints\":null}"));
  w.spec.pod_group_templates[1].spec.disruption_mode = DisruptionMode{.single = false, .all = true};
  w.spec.pod_group_templates[1].spec.scheduling_policy = {.basic = false, .gang = GangSchedulingPolicy{.min_count = 3}};
  w.spec.pod_group_templates[1].spec.resource_claims = {
      {.name = "x", .resource_claim_name = "c", .resource_claim_template_name = {}}};  // gate off: dropped, not shown
  EXPECT_THAT(
      Lines(ValidateSchedulingWorkload(w, Generic())),
      Contains("spec.podGroupTemplates[1]: Duplicate value: "
               "{\"name\":\"a\",\"schedulingPolicy\":{\"gang\":{\"minCount\":3}},\"schedulingConstraints\":null,"
               "\"disruptionMode\":{\"all\":{}}}"));
}

TEST(SchedulingValidationTest, TemplateFields) {
  SchedulingWorkload w = BaseWorkload();
  PodGroupTemplate& t = w.spec.pod_group_templates[0];
  // name: +k8s:required, k8s-short-name.
  t.name = "";
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.podGroupTemplates[0].name: Required value"));
  t.name = "Workers";
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre(HasSubstr("spec.podGroupTemplates[0].name: Invalid value: \"Workers\": a lowercase RFC 1123 "
                                    "label")));
  t.name = "workers";
  // The policy as in a PodGroup; a template's disruptionMode is optional.
  t.spec.scheduling_policy.gang->min_count = 0;
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value"));
  t.spec.scheduling_policy.gang->min_count = 2;
  t.spec.disruption_mode = DisruptionMode{};
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.podGroupTemplates[0].disruptionMode: Invalid value: \"\": must specify one of: "
                          "`single`, `all`"));
  t.spec.disruption_mode.reset();
  // The gated fields are dropped per template.
  t.spec.resource_claims = {{.name = "a", .resource_claim_name = {}, .resource_claim_template_name = {}}};
  t.spec.scheduling_constraints = PodGroupSchedulingConstraints{};
  t.spec.preemption_policy = kPreemptNever;
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre(HasSubstr("warning: spec.podGroupTemplates[0].schedulingConstraints: Forbidden"),
                          HasSubstr("warning: spec.podGroupTemplates[0].resourceClaims: Forbidden"),
                          HasSubstr("warning: spec.podGroupTemplates[0].preemptionPolicy: Forbidden")));
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, AllWorkloadGates())),
              ElementsAre("spec.podGroupTemplates[0].resourceClaims[0]: Invalid value: \"\": must specify one of: "
                          "`resourceClaimName`, `resourceClaimTemplateName`"));
}

TEST(SchedulingValidationTest, OnePriorityForAllTemplates) {
  // validateWorkloadPriority: the first template's priorityClassName and
  // priority (both, set or unset alike) must be every template's; one error
  // at spec with a nil value.
  SchedulingWorkload w = BaseWorkload();
  w.spec.pod_group_templates[0].spec.priority_class_name = "high";
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec: Invalid value: null: detected multiple priority configurations"));
  w.spec.pod_group_templates[1].spec.priority_class_name = "high";
  w.spec.pod_group_templates[1].spec.priority = 100;
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec: Invalid value: null: detected multiple priority configurations"));
  w.spec.pod_group_templates[0].spec.priority = 100;
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())), IsEmpty());
}

TEST(SchedulingValidationTest, ControllerRef) {
  // TypedLocalObjectReference: apiGroup optional k8s-long-name; kind and name
  // +k8s:required, k8s-path-segment-name (not "." or "..", no "/" or "%").
  SchedulingWorkload w = BaseWorkload();
  w.spec.controller_ref = TypedLocalObjectReference{.api_group = "batch", .kind = "Job", .name = "job"};
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())), IsEmpty());
  w.spec.controller_ref = TypedLocalObjectReference{.api_group = "Batch", .kind = "", .name = "a/b%c"};
  std::vector<std::string> lines = Lines(ValidateSchedulingWorkload(w, Generic()));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr("spec.controllerRef.apiGroup: Invalid value: \"Batch\""));
  EXPECT_EQ(lines[1], "spec.controllerRef.kind: Required value");
  EXPECT_EQ(lines[2], "spec.controllerRef.name: Invalid value: \"a/b%c\": may not contain '/'");
  EXPECT_EQ(lines[3], "spec.controllerRef.name: Invalid value: \"a/b%c\": may not contain '%'");
  w.spec.controller_ref = TypedLocalObjectReference{.api_group = "", .kind = "Pod", .name = ".."};
  EXPECT_THAT(Lines(ValidateSchedulingWorkload(w, Generic())),
              ElementsAre("spec.controllerRef.name: Invalid value: \"..\": may not be '..'"));
}

// ---------------------------------------------------------------------------
// pod.spec.schedulingGroup (kept raw in PodSpec::extra)

Pod GroupMember(std::string scheduling_group) {
  Pod pod;
  pod.metadata.name = "w0";
  pod.metadata.namespace_ = "ml";
  pod.spec.containers.push_back(Container{.name = "c"});
  pod.spec.extra.insert_or_assign("schedulingGroup", std::move(scheduling_group));
  return pod;
}

TEST(SchedulingValidationTest, PodSchedulingGroup) {
  // dropDisabledSchedulingGroup: dropped while GenericWorkload is off.
  EXPECT_THAT(
      Lines(ValidatePod(GroupMember(R"({"podGroupName":"train"})"), FeatureGates::Defaults("1.37").value())),
      ElementsAre(HasSubstr("warning: spec.schedulingGroup: Forbidden: requires feature gate GenericWorkload")));
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"({"podGroupName":"train"})"), Generic())), IsEmpty());
  // validateSchedulingGroup: podGroupName required (a one-of with one
  // member, Invalid with the nil value) and ValidatePodGroupName (a DNS
  // subdomain).
  EXPECT_THAT(
      Lines(ValidatePod(GroupMember("{}"), Generic())),
      ElementsAre("spec.schedulingGroup.podGroupName: Invalid value: null: must specify one of: `podGroupName`"));
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"({"podGroupName":null})"), Generic())),
              ElementsAre(HasSubstr("must specify one of: `podGroupName`")));
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"({"podGroupName":"Train_1"})"), Generic())),
              ElementsAre(HasSubstr("spec.schedulingGroup.podGroupName: Invalid value: \"Train_1\": a lowercase RFC "
                                    "1123 subdomain")));
  // JSON escapes are read: "tr\u0061in" is "train".
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"({"other":[1,{"a":"}"}],"podGroupName":"tr\u0061in"})"), Generic())),
              IsEmpty());
  // Shapes the API server could not decode.
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"("train")"), Generic())),
              ElementsAre(HasSubstr("spec.schedulingGroup: Invalid value:")));
  EXPECT_THAT(Lines(ValidatePod(GroupMember(R"({"podGroupName":5})"), Generic())),
              ElementsAre("spec.schedulingGroup.podGroupName: Invalid value: must be a string"));
  // No schedulingGroup: nothing to say, gate or not.
  Pod plain = GroupMember("");
  plain.spec.extra = {};
  EXPECT_THAT(Lines(ValidatePod(plain, FeatureGates::Defaults("1.37").value())),
              Not(Contains(HasSubstr("schedulingGroup"))));
}

// ---------------------------------------------------------------------------
// Defaulting (pkg/apis/scheduling/v1beta1 defaults.go, zz_generated.defaults.go)

TEST(SchedulingDefaultsTest, PodGroupDisruptionModeAndGatedPreemptionPolicy) {
  PodGroup g = BaseGroup();
  g.spec.disruption_mode.reset();
  SetDefaults(g, Generic());
  ASSERT_TRUE(g.spec.disruption_mode.has_value());
  EXPECT_EQ(*g.spec.disruption_mode, (DisruptionMode{.single = true, .all = false}));
  EXPECT_FALSE(g.spec.preemption_policy.has_value());  // PodGroupPreemptionPolicy off
  SetDefaults(g, Gates({"GenericWorkload", "PodGroupPreemptionPolicy"}));
  EXPECT_EQ(g.spec.preemption_policy, std::optional<std::string>(kPreemptLowerPriority));
  // Values given are kept.
  PodGroup given = BaseGroup();
  given.spec.disruption_mode = DisruptionMode{.single = false, .all = true};
  given.spec.preemption_policy = kPreemptNever;
  PodGroup before = given;
  SetDefaults(given, AllWorkloadGates());
  EXPECT_EQ(given, before);
  // Through the Object dispatch; a Workload's templates are not defaulted.
  Object object = BaseGroup();
  std::get<PodGroup>(object).spec.disruption_mode.reset();
  SetDefaults(object, "", AllWorkloadGates());
  EXPECT_EQ(std::get<PodGroup>(object).spec.preemption_policy, std::optional<std::string>(kPreemptLowerPriority));
  Object workload = BaseWorkload();
  SetDefaults(workload, "", AllWorkloadGates());
  EXPECT_EQ(std::get<SchedulingWorkload>(workload), BaseWorkload());
  // Without gates: 1.37's defaults (PodGroupPreemptionPolicy off).
  Object plain = BaseGroup();
  std::get<PodGroup>(plain).spec.disruption_mode.reset();
  SetDefaults(plain, "");
  EXPECT_TRUE(std::get<PodGroup>(plain).spec.disruption_mode.has_value());
  EXPECT_FALSE(std::get<PodGroup>(plain).spec.preemption_policy.has_value());
}

}  // namespace
}  // namespace dra::api
