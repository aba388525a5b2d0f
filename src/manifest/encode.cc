#include "manifest/encode.h"

#include <span>
#include <string>
#include <string_view>

#include "manifest/internal/core_fields.h"
#include "manifest/internal/raw_json.h"

namespace dra::manifest {
namespace {

using quantity::Quantity;

// How an empty value is written, after the field's Go json tag.
enum class Empty {
  kOmit,   // omitempty (or a nil pointer): left out
  kWrite,  // no omitempty: "" / 0 / false as they are
  kNull,   // no omitempty, nil slice/map/pointer/Time: null
};

Node RawToNode(const api::RawJson& raw) {
  StatusOr<Node> node = internal::ParseJsonText(raw);
  // Only text that bypassed the decoder can fail; keep it visible as a string.
  return node.ok() ? *std::move(node) : Node::String(raw);
}

Node Enc(const std::string& s) { return Node::String(s); }
Node Enc(api::InternedString s) { return Node::String(s.str()); }
Node Enc(int64_t v) { return Node::Int(v); }
Node Enc(int32_t v) { return Node::Int(v); }
Node Enc(bool v) { return Node::Bool(v); }
Node Enc(const Quantity& q) { return Node::String(q.String()); }
template <typename E>
Node Enc(const api::EnumString<E>& e) {
  return Node::String(e.text());
}

// Forward declarations: the templates below find these by ordinary lookup.
Node Enc(const api::OwnerReference&);
Node Enc(const api::ObjectMeta&);
Node Enc(const api::Condition&);
Node Enc(const api::NodeSelectorRequirement&);
Node Enc(const api::NodeSelectorTerm&);
Node Enc(const api::NodeSelector&);
Node Enc(const api::PreferredSchedulingTerm&);
Node Enc(const api::NodeAffinity&);
Node Enc(const api::Affinity&);
Node Enc(const api::Taint&);
Node Enc(const api::Toleration&);
Node Enc(const api::NodeSpec&);
Node Enc(const api::NodeStatus&);
Node Enc(const api::ContainerClaim&);
Node Enc(const api::ResourceRequirements&);
Node Enc(const api::Container&);
Node Enc(const api::PodResourceClaim&);
Node Enc(const api::PodSpec&);
Node Enc(const api::PodResourceClaimStatus&);
Node Enc(const api::ContainerExtendedResourceRequest&);
Node Enc(const api::PodExtendedResourceClaimStatus&);
Node Enc(const api::PodStatus&);
Node Enc(const api::CelDeviceSelector&);
Node Enc(const api::DeviceSelector&);
Node Enc(const api::OpaqueDeviceConfiguration&);
Node Enc(const api::DeviceTaint&);
Node Enc(const api::DeviceToleration&);
Node Enc(const api::DeviceClassConfiguration&);
Node Enc(const api::DeviceClassSpec&);
Node Enc(const api::DeviceAttribute&);
Node Enc(const api::CapacityRequestPolicyRange&);
Node Enc(const api::CapacityRequestPolicy&);
Node Enc(const api::DeviceCapacity&);
Node Enc(const api::Counter&);
Node Enc(const api::CounterSet&);
Node Enc(const api::DeviceCounterConsumption&);
Node Enc(const api::NodeAllocatableResourceMapping&);
Node Enc(const api::NodeAllocatableResourceOverhead&);
Node Enc(const api::NodeAllocatableResource&);
Node Enc(const api::Device&);
Node Enc(const api::ResourcePool&);
Node Enc(const api::ResourceSliceSpec&);
Node Enc(const api::CapacityRequirements&);
Node Enc(const api::DerivedAttribute&);
Node Enc(const api::ExactDeviceRequest&);
Node Enc(const api::DeviceSubRequest&);
Node Enc(const api::DeviceRequest&);
Node Enc(const api::DeviceConstraint&);
Node Enc(const api::DeviceClaimConfiguration&);
Node Enc(const api::DeviceClaim&);
Node Enc(const api::ResourceClaimSpec&);
Node Enc(const api::DeviceRequestAllocationResult&);
Node Enc(const api::DeviceAllocationConfiguration&);
Node Enc(const api::DeviceAllocationResult&);
Node Enc(const api::AllocationResult&);
Node Enc(const api::ResourceClaimConsumerReference&);
Node Enc(const api::NetworkDeviceData&);
Node Enc(const api::AllocatedDeviceStatus&);
Node Enc(const api::ResourceClaimStatus&);
Node Enc(const api::ResourceClaimTemplateSpec&);
Node Enc(const api::DeviceTaintSelector&);
Node Enc(const api::DeviceTaintRuleSpec&);
Node Enc(const api::DeviceTaintRuleStatus&);
Node Enc(const api::GangSchedulingPolicy&);
Node Enc(const api::PodGroupSchedulingPolicy&);
Node Enc(const api::TopologyConstraint&);
Node Enc(const api::PodGroupSchedulingConstraints&);
Node Enc(const api::PodGroupResourceClaim&);
Node Enc(const api::DisruptionMode&);
Node Enc(const api::WorkloadReference&);
Node Enc(const api::PodGroupSpec&);
Node Enc(const api::PodGroupResourceClaimStatus&);
Node Enc(const api::PodGroupStatus&);
Node Enc(const api::PodGroupTemplate&);
Node Enc(const api::TypedLocalObjectReference&);
Node Enc(const api::WorkloadSpec&);

// Builds one mapping node, field by field.
class Obj {
 public:
  Obj() : node_(Node::Mapping()) {}
  Node Done() { return std::move(node_); }

  Obj& Add(std::string_view key, Node value) {
    node_.Add(std::string(key), std::move(value));
    return *this;
  }
  Obj& Str(std::string_view key, const std::string& v, Empty empty = Empty::kOmit) {
    if (v.empty() && empty == Empty::kOmit) return *this;
    return Add(key, Node::String(v));
  }
  template <typename E>
  Obj& Enum(std::string_view key, const api::EnumString<E>& v, Empty empty = Empty::kOmit) {
    return Str(key, v.text(), empty);
  }
  // metav1.Time: a value Time prints null when zero; a *Time is omitted.
  Obj& Time(std::string_view key, const std::string& v, Empty empty) {
    if (!v.empty()) return Add(key, Node::String(v));
    if (empty == Empty::kOmit) return *this;
    return Add(key, Node::Null());
  }
  Obj& Int(std::string_view key, int64_t v, Empty empty = Empty::kOmit) {
    if (v == 0 && empty == Empty::kOmit) return *this;
    return Add(key, Node::Int(v));
  }
  Obj& Bool(std::string_view key, bool v, Empty empty = Empty::kOmit) {
    if (!v && empty == Empty::kOmit) return *this;
    return Add(key, Node::Bool(v));
  }
  Obj& Qty(std::string_view key, const Quantity& q) { return Add(key, Enc(q)); }
  // A Go pointer field: omitted when unset (or null when the tag lacks omitempty).
  template <typename T>
  Obj& Opt(std::string_view key, const std::optional<T>& v, Empty empty = Empty::kOmit) {
    if (v) return Add(key, Enc(*v));
    if (empty == Empty::kNull) return Add(key, Node::Null());
    return *this;
  }
  template <typename T>
  Obj& List(std::string_view key, const std::vector<T>& v, Empty empty = Empty::kOmit) {
    if (v.empty()) {
      if (empty == Empty::kOmit) return *this;
      if (empty == Empty::kNull) return Add(key, Node::Null());
    }
    Node seq = Node::Sequence();
    for (const T& e : v) seq.Push(Enc(e));
    return Add(key, std::move(seq));
  }
  template <typename V, typename K>
  Obj& Map(std::string_view key, const api::FlatMap<V, K>& m, Empty empty = Empty::kOmit) {
    if (m.empty()) {
      if (empty == Empty::kOmit) return *this;
      if (empty == Empty::kNull) return Add(key, Node::Null());
    }
    Node map = Node::Mapping();
    for (const auto& [k, v] : m) map.Add(std::string(std::string_view(k)), Enc(v));
    return Add(key, std::move(map));
  }
  Obj& Raw(std::string_view key, const api::RawJson& raw, Empty empty = Empty::kOmit) {
    if (!raw.empty()) return Add(key, RawToNode(raw));
    if (empty == Empty::kOmit) return *this;
    return Add(key, Node::Null());
  }

 private:
  Node node_;
};

// A core/meta struct modelled in part: walks the Go field order, letting
// `modeled(name, obj)` write the fields it models (it returns false for the
// others, which come from `extra`), then appends extra fields Kubernetes does
// not know.
template <typename F>
Node CoreStruct(std::span<const std::string_view> order, const api::RawFields& extra, F&& modeled) {
  Obj obj;
  for (std::string_view name : order) {
    if (modeled(name, obj)) continue;
    if (const api::RawJson* raw = extra.find(name)) obj.Raw(name, *raw, Empty::kWrite);
  }
  for (const auto& [name, raw] : extra) {
    if (!internal::IsListed(order, name)) obj.Raw(name, raw, Empty::kWrite);
  }
  return obj.Done();
}

// ---------------------------------------------------------------------------
// meta/v1

Node Enc(const api::OwnerReference& r) {
  return Obj()
      .Str("apiVersion", r.api_version, Empty::kWrite)
      .Str("kind", r.kind, Empty::kWrite)
      .Str("name", r.name, Empty::kWrite)
      .Str("uid", r.uid, Empty::kWrite)
      .Opt("controller", r.controller)
      .Opt("blockOwnerDeletion", r.block_owner_deletion)
      .Done();
}

Node Enc(const api::ObjectMeta& m) {
  return CoreStruct(internal::kObjectMetaFields, m.extra, [&](std::string_view name, Obj& o) {
    if (name == "name") return o.Str(name, m.name), true;
    if (name == "generateName") return o.Str(name, m.generate_name), true;
    if (name == "namespace") return o.Str(name, m.namespace_), true;
    if (name == "uid") return o.Str(name, m.uid), true;
    if (name == "resourceVersion") return o.Str(name, m.resource_version), true;
    if (name == "generation") return o.Int(name, m.generation), true;
    if (name == "creationTimestamp") return o.Time(name, m.creation_timestamp, Empty::kNull), true;
    if (name == "deletionTimestamp") return o.Time(name, m.deletion_timestamp, Empty::kOmit), true;
    if (name == "labels") return o.Map(name, m.labels), true;
    if (name == "annotations") return o.Map(name, m.annotations), true;
    if (name == "ownerReferences") return o.List(name, m.owner_references), true;
    if (name == "finalizers") return o.List(name, m.finalizers), true;
    return false;
  });
}

Node Enc(const api::Condition& c) {
  return Obj()
      .Str("type", c.type, Empty::kWrite)
      .Enum("status", c.status, Empty::kWrite)
      .Int("observedGeneration", c.observed_generation)
      .Time("lastTransitionTime", c.last_transition_time, Empty::kNull)
      .Str("reason", c.reason, Empty::kWrite)
      .Str("message", c.message, Empty::kWrite)
      .Done();
}

// ---------------------------------------------------------------------------
// core/v1

Node Enc(const api::NodeSelectorRequirement& r) {
  return Obj()
      .Str("key", r.key, Empty::kWrite)
      .Enum("operator", r.operator_, Empty::kWrite)
      .List("values", r.values)
      .Done();
}
Node Enc(const api::NodeSelectorTerm& t) {
  return Obj().List("matchExpressions", t.match_expressions).List("matchFields", t.match_fields).Done();
}
Node Enc(const api::NodeSelector& s) {
  return Obj().List("nodeSelectorTerms", s.node_selector_terms, Empty::kNull).Done();
}
Node Enc(const api::PreferredSchedulingTerm& t) {
  return Obj().Int("weight", t.weight, Empty::kWrite).Add("preference", Enc(t.preference)).Done();
}
Node Enc(const api::NodeAffinity& a) {
  return Obj()
      .Opt("requiredDuringSchedulingIgnoredDuringExecution", a.required_during_scheduling_ignored_during_execution)
      .List("preferredDuringSchedulingIgnoredDuringExecution", a.preferred_during_scheduling_ignored_during_execution)
      .Done();
}
Node Enc(const api::Affinity& a) {
  return CoreStruct(internal::kAffinityFields, a.extra, [&](std::string_view name, Obj& o) {
    if (name == "nodeAffinity") return o.Opt(name, a.node_affinity), true;
    return false;
  });
}
Node Enc(const api::Taint& t) {
  return Obj()
      .Str("key", t.key, Empty::kWrite)
      .Str("value", t.value)
      .Enum("effect", t.effect, Empty::kWrite)
      .Time("timeAdded", t.time_added, Empty::kOmit)
      .Done();
}
Node Enc(const api::Toleration& t) {
  return Obj()
      .Str("key", t.key)
      .Enum("operator", t.operator_)
      .Str("value", t.value)
      .Enum("effect", t.effect)
      .Opt("tolerationSeconds", t.toleration_seconds)
      .Done();
}
Node Enc(const api::NodeSpec& s) {
  return CoreStruct(internal::kNodeSpecFields, s.extra, [&](std::string_view name, Obj& o) {
    if (name == "unschedulable") return o.Bool(name, s.unschedulable), true;
    if (name == "taints") return o.List(name, s.taints), true;
    return false;
  });
}
Node Enc(const api::NodeStatus& s) {
  return CoreStruct(internal::kNodeStatusFields, s.extra, [&](std::string_view name, Obj& o) {
    if (name == "capacity") return o.Map(name, s.capacity), true;
    if (name == "allocatable") return o.Map(name, s.allocatable), true;
    return false;
  });
}
Node Enc(const api::ContainerClaim& c) {
  return Obj().Str("name", c.name, Empty::kWrite).Str("request", c.request).Done();
}
Node Enc(const api::ResourceRequirements& r) {
  return Obj().Map("limits", r.limits).Map("requests", r.requests).List("claims", r.claims).Done();
}
Node Enc(const api::Container& c) {
  return CoreStruct(internal::kContainerFields, c.extra, [&](std::string_view name, Obj& o) {
    if (name == "name") return o.Str(name, c.name, Empty::kWrite), true;
    if (name == "resources") return o.Add(name, Enc(c.resources)), true;
    if (name == "restartPolicy") return o.Enum(name, c.restart_policy), true;
    return false;
  });
}
Node Enc(const api::PodResourceClaim& c) {
  return Obj()
      .Str("name", c.name, Empty::kWrite)
      .Opt("resourceClaimName", c.resource_claim_name)
      .Opt("resourceClaimTemplateName", c.resource_claim_template_name)
      .Done();
}
Node Enc(const api::PodSpec& s) {
  return CoreStruct(internal::kPodSpecFields, s.extra, [&](std::string_view name, Obj& o) {
    if (name == "initContainers") return o.List(name, s.init_containers), true;
    if (name == "containers") return o.List(name, s.containers, Empty::kNull), true;
    if (name == "nodeSelector") return o.Map(name, s.node_selector), true;
    if (name == "nodeName") return o.Str(name, s.node_name), true;
    if (name == "affinity") return o.Opt(name, s.affinity), true;
    if (name == "schedulerName") return o.Str(name, s.scheduler_name), true;
    if (name == "tolerations") return o.List(name, s.tolerations), true;
    if (name == "priorityClassName") return o.Str(name, s.priority_class_name), true;
    if (name == "priority") return o.Opt(name, s.priority), true;
    if (name == "overhead") return o.Map(name, s.overhead), true;
    if (name == "resourceClaims") return o.List(name, s.resource_claims), true;
    return false;
  });
}
Node Enc(const api::PodResourceClaimStatus& s) {
  return Obj().Str("name", s.name, Empty::kWrite).Opt("resourceClaimName", s.resource_claim_name).Done();
}
Node Enc(const api::ContainerExtendedResourceRequest& r) {
  return Obj()
      .Str("containerName", r.container_name, Empty::kWrite)
      .Str("resourceName", r.resource_name, Empty::kWrite)
      .Str("requestName", r.request_name, Empty::kWrite)
      .Done();
}
Node Enc(const api::PodExtendedResourceClaimStatus& s) {
  return Obj()
      .List("requestMappings", s.request_mappings, Empty::kNull)
      .Str("resourceClaimName", s.resource_claim_name, Empty::kWrite)
      .Done();
}
Node Enc(const api::PodStatus& s) {
  return CoreStruct(internal::kPodStatusFields, s.extra, [&](std::string_view name, Obj& o) {
    if (name == "phase") return o.Enum(name, s.phase), true;
    if (name == "nominatedNodeName") return o.Str(name, s.nominated_node_name), true;
    if (name == "resourceClaimStatuses") return o.List(name, s.resource_claim_statuses), true;
    if (name == "extendedResourceClaimStatus") {
      return o.Opt(name, s.extended_resource_claim_status), true;
    }
    return false;
  });
}

// ---------------------------------------------------------------------------
// resource.k8s.io

Node Enc(const api::CelDeviceSelector& s) { return Obj().Str("expression", s.expression, Empty::kWrite).Done(); }
Node Enc(const api::DeviceSelector& s) { return Obj().Opt("cel", s.cel).Done(); }
Node Enc(const api::OpaqueDeviceConfiguration& c) {
  return Obj().Str("driver", c.driver, Empty::kWrite).Raw("parameters", c.parameters, Empty::kNull).Done();
}
Node Enc(const api::DeviceTaint& t) {
  return Obj()
      .Str("key", t.key, Empty::kWrite)
      .Str("value", t.value)
      .Enum("effect", t.effect, Empty::kWrite)
      .Time("timeAdded", t.time_added, Empty::kOmit)
      .Done();
}
Node Enc(const api::DeviceToleration& t) {
  return Obj()
      .Str("key", t.key)
      .Enum("operator", t.operator_)
      .Str("value", t.value)
      .Enum("effect", t.effect)
      .Opt("tolerationSeconds", t.toleration_seconds)
      .Done();
}
Node Enc(const api::DeviceClassConfiguration& c) { return Obj().Opt("opaque", c.opaque).Done(); }
Node Enc(const api::DeviceClassSpec& s) {
  return Obj()
      .List("selectors", s.selectors)
      .List("config", s.config)
      .Opt("extendedResourceName", s.extended_resource_name)
      .Done();
}

Node Enc(const api::DeviceAttribute& a) {
  using Type = api::DeviceAttribute::Type;
  Obj o;
  std::string_view name = api::DeviceAttributeTypeName(a.type());
  switch (a.type()) {
    case Type::kNone: break;
    case Type::kInt: o.Add(name, Node::Int(*a.int_value())); break;
    case Type::kBool: o.Add(name, Node::Bool(*a.bool_value())); break;
    case Type::kString: o.Add(name, Enc(*a.string_value())); break;
    case Type::kVersion: o.Add(name, Enc(*a.version_value())); break;
    case Type::kInts: o.List(name, *a.ints(), Empty::kWrite); break;
    case Type::kBools: {
      Node seq = Node::Sequence();
      for (bool b : *a.bools()) seq.Push(Node::Bool(b));
      o.Add(name, std::move(seq));
      break;
    }
    case Type::kStrings: o.List(name, *a.strings(), Empty::kWrite); break;
    case Type::kVersions: o.List(name, *a.versions(), Empty::kWrite); break;
  }
  return o.Done();
}
Node Enc(const api::CapacityRequestPolicyRange& r) {
  return Obj().Opt("min", r.min).Opt("max", r.max).Opt("step", r.step).Done();
}
Node Enc(const api::CapacityRequestPolicy& p) {
  return Obj()
      .Opt("default", p.default_, Empty::kNull)
      .List("validValues", p.valid_values)
      .Opt("validRange", p.valid_range)
      .Done();
}
Node Enc(const api::DeviceCapacity& c) {
  Obj o;
  o.Qty("value", c.value);
  if (c.request_policy) o.Add("requestPolicy", Enc(*c.request_policy));
  return o.Done();
}
Node Enc(const api::Counter& c) { return Obj().Qty("value", c.value).Done(); }
Node Enc(const api::CounterSet& s) {
  return Obj().Str("name", s.name, Empty::kWrite).Map("counters", s.counters).Done();
}
Node Enc(const api::DeviceCounterConsumption& c) {
  return Obj()
      .Str("counterSet", c.counter_set, Empty::kWrite)
      .Map("counters", c.counters)
      .List("compatibilityGroups", c.compatibility_groups)
      .Done();
}
Node Enc(const api::NodeAllocatableResourceMapping& m) {
  return Obj()
      .Opt("capacityKey", m.capacity_key)
      .Opt("capacityMultiplier", m.capacity_multiplier)
      .Opt("deviceMultiplier", m.device_multiplier)
      .Done();
}
Node Enc(const api::NodeAllocatableResourceOverhead& o) {
  return Obj().Opt("perPod", o.per_pod).Opt("perContainer", o.per_container).Done();
}
Node Enc(const api::NodeAllocatableResource& r) {
  return Obj().Opt("mapping", r.mapping).Opt("overhead", r.overhead).Done();
}
Node Enc(const api::Device& d) {
  const api::DeviceRareFields& rare = *d.rare;
  return Obj()
      .Str("name", d.name, Empty::kWrite)
      .Map("attributes", d.attributes)
      .Map("capacity", d.capacity)
      .List("consumesCounters", rare.consumes_counters)
      .Opt("nodeName", rare.node_name)
      .Opt("nodeSelector", rare.node_selector)
      .Opt("allNodes", rare.all_nodes)
      .List("taints", rare.taints)
      .Opt("bindsToNode", rare.binds_to_node)
      .List("bindingConditions", rare.binding_conditions)
      .List("bindingFailureConditions", rare.binding_failure_conditions)
      .Opt("allowMultipleAllocations", d.allow_multiple_allocations)
      .Map("nodeAllocatableResources", rare.node_allocatable_resources)
      .Done();
}
Node Enc(const api::ResourcePool& p) {
  return Obj()
      .Str("name", p.name, Empty::kWrite)
      .Int("generation", p.generation, Empty::kWrite)
      .Int("resourceSliceCount", p.resource_slice_count, Empty::kWrite)
      .Done();
}
Node Enc(const api::ResourceSliceSpec& s) {
  return Obj()
      .Str("driver", s.driver, Empty::kWrite)
      .Add("pool", Enc(s.pool))
      .Opt("nodeName", s.node_name)
      .Opt("nodeSelector", s.node_selector)
      .Opt("allNodes", s.all_nodes)
      .List("devices", s.devices)
      .Opt("perDeviceNodeSelection", s.per_device_node_selection)
      .List("sharedCounters", s.shared_counters)
      .Opt("partitionTypeAttribute", s.partition_type_attribute)
      .List("skipNodeOperations", s.skip_node_operations)
      .Done();
}
Node Enc(const api::CapacityRequirements& c) { return Obj().Map("requests", c.requests).Done(); }
Node Enc(const api::DerivedAttribute& a) {
  return Obj().Str("name", a.name, Empty::kWrite).Str("expression", a.expression, Empty::kWrite).Done();
}
Node Enc(const api::ExactDeviceRequest& r) {
  return Obj()
      .Str("deviceClassName", r.device_class_name, Empty::kWrite)
      .List("selectors", r.selectors)
      .Enum("allocationMode", r.allocation_mode)
      .Int("count", r.count)
      .Opt("adminAccess", r.admin_access)
      .List("tolerations", r.tolerations)
      .Opt("capacity", r.capacity)
      .List("derivedAttributes", r.derived_attributes)
      .Done();
}
Node Enc(const api::DeviceSubRequest& r) {
  return Obj()
      .Str("name", r.name, Empty::kWrite)
      .Str("deviceClassName", r.device_class_name, Empty::kWrite)
      .List("selectors", r.selectors)
      .Enum("allocationMode", r.allocation_mode)
      .Int("count", r.count)
      .List("tolerations", r.tolerations)
      .Opt("capacity", r.capacity)
      .List("derivedAttributes", r.derived_attributes)
      .Done();
}
Node Enc(const api::DeviceRequest& r) {
  return Obj()
      .Str("name", r.name, Empty::kWrite)
      .Opt("exactly", r.exactly)
      .List("firstAvailable", r.first_available)
      .Done();
}
Node Enc(const api::DeviceConstraint& c) {
  return Obj()
      .List("requests", c.requests)
      .Opt("matchAttribute", c.match_attribute)
      .Opt("distinctAttribute", c.distinct_attribute)
      .Done();
}
Node Enc(const api::DeviceClaimConfiguration& c) {
  return Obj().List("requests", c.requests).Opt("opaque", c.opaque).Done();
}
Node Enc(const api::DeviceClaim& c) {
  return Obj()
      .List("requests", c.requests, Empty::kNull)
      .List("constraints", c.constraints)
      .List("config", c.config)
      .Done();
}
Node Enc(const api::ResourceClaimSpec& s) { return Obj().Add("devices", Enc(s.devices)).Done(); }
Node Enc(const api::DeviceRequestAllocationResult& r) {
  return Obj()
      .Str("request", r.request, Empty::kWrite)
      .Str("driver", r.driver, Empty::kWrite)
      .Str("pool", r.pool, Empty::kWrite)
      .Str("device", r.device, Empty::kWrite)
      .Opt("adminAccess", r.admin_access)
      .List("tolerations", r.tolerations)
      .List("bindingConditions", r.binding_conditions)
      .List("bindingFailureConditions", r.binding_failure_conditions)
      .Opt("shareID", r.share_id)
      .Map("consumedCapacity", r.consumed_capacity)
      .List("skipNodeOperations", r.skip_node_operations)
      .Done();
}
Node Enc(const api::DeviceAllocationConfiguration& c) {
  return Obj().Enum("source", c.source, Empty::kWrite).List("requests", c.requests).Opt("opaque", c.opaque).Done();
}
Node Enc(const api::DeviceAllocationResult& r) {
  return Obj().List("results", r.results).List("config", r.config).Done();
}
Node Enc(const api::AllocationResult& r) {
  return Obj()
      .Add("devices", Enc(r.devices))
      .Opt("nodeSelector", r.node_selector)
      .Time("allocationTimestamp", r.allocation_timestamp, Empty::kOmit)
      .Done();
}
Node Enc(const api::ResourceClaimConsumerReference& r) {
  return Obj()
      .Str("apiGroup", r.api_group)
      .Str("resource", r.resource, Empty::kWrite)
      .Str("name", r.name, Empty::kWrite)
      .Str("uid", r.uid, Empty::kWrite)
      .Done();
}
Node Enc(const api::NetworkDeviceData& d) {
  return Obj()
      .Str("interfaceName", d.interface_name)
      .List("ips", d.ips)
      .Str("hardwareAddress", d.hardware_address)
      .Done();
}
Node Enc(const api::AllocatedDeviceStatus& s) {
  return Obj()
      .Str("driver", s.driver, Empty::kWrite)
      .Str("pool", s.pool, Empty::kWrite)
      .Str("device", s.device, Empty::kWrite)
      .Opt("shareID", s.share_id)
      .List("conditions", s.conditions, Empty::kNull)
      .Raw("data", s.data)
      .Opt("networkData", s.network_data)
      .Done();
}
Node Enc(const api::ResourceClaimStatus& s) {
  return Obj().Opt("allocation", s.allocation).List("reservedFor", s.reserved_for).List("devices", s.devices).Done();
}
Node Enc(const api::ResourceClaimTemplateSpec& s) {
  return Obj().Add("metadata", Enc(s.metadata)).Add("spec", Enc(s.spec)).Done();
}
Node Enc(const api::DeviceTaintSelector& s) {
  return Obj().Opt("driver", s.driver).Opt("pool", s.pool).Opt("device", s.device).Done();
}
Node Enc(const api::DeviceTaintRuleSpec& s) {
  return Obj().Opt("deviceSelector", s.device_selector).Add("taint", Enc(s.taint)).Done();
}
Node Enc(const api::DeviceTaintRuleStatus& s) { return Obj().List("conditions", s.conditions).Done(); }

// ---------------------------------------------------------------------------
// scheduling.k8s.io (v1beta1 field order)

Node Enc(const api::GangSchedulingPolicy& g) { return Obj().Int("minCount", g.min_count, Empty::kWrite).Done(); }
Node Enc(const api::PodGroupSchedulingPolicy& p) {
  Obj o;
  if (p.basic) o.Add("basic", Node::Mapping());
  return o.Opt("gang", p.gang).Done();
}
Node Enc(const api::TopologyConstraint& t) { return Obj().Str("key", t.key, Empty::kWrite).Done(); }
Node Enc(const api::PodGroupSchedulingConstraints& c) { return Obj().List("topology", c.topology).Done(); }
Node Enc(const api::PodGroupResourceClaim& c) {
  return Obj()
      .Str("name", c.name, Empty::kWrite)
      .Opt("resourceClaimName", c.resource_claim_name)
      .Opt("resourceClaimTemplateName", c.resource_claim_template_name)
      .Done();
}
Node Enc(const api::DisruptionMode& m) {
  Obj o;
  if (m.single) o.Add("single", Node::Mapping());
  if (m.all) o.Add("all", Node::Mapping());
  return o.Done();
}
Node Enc(const api::WorkloadReference& r) {
  return Obj()
      .Str("workloadName", r.workload_name, Empty::kWrite)
      .Str("templateName", r.template_name, Empty::kWrite)
      .Done();
}
// The fields PodGroupSpec and PodGroupTemplate share, from schedulingPolicy
// on; `constraints` is how an unset schedulingConstraints is written
// (PodGroupTemplate's tag has no omitempty). Then `extra`.
void PodGroupSpecFields(const api::PodGroupSpec& s, Empty constraints, Obj& o) {
  o.Add("schedulingPolicy", Enc(s.scheduling_policy))
      .Opt("schedulingConstraints", s.scheduling_constraints, constraints)
      .List("resourceClaims", s.resource_claims)
      .Opt("disruptionMode", s.disruption_mode)
      .Str("priorityClassName", s.priority_class_name)
      .Opt("priority", s.priority)
      .Opt("preemptionPolicy", s.preemption_policy);
  for (const auto& [name, raw] : s.extra) o.Raw(name, raw, Empty::kWrite);
}
Node Enc(const api::PodGroupSpec& s) {
  Obj o;
  o.Opt("parentCompositePodGroupName", s.parent_composite_pod_group_name).Opt("workloadRef", s.workload_ref);
  PodGroupSpecFields(s, Empty::kOmit, o);
  return o.Done();
}
Node Enc(const api::PodGroupResourceClaimStatus& s) {
  return Obj().Str("name", s.name, Empty::kWrite).Opt("resourceClaimName", s.resource_claim_name).Done();
}
Node Enc(const api::PodGroupStatus& s) {
  return Obj().List("conditions", s.conditions).List("resourceClaimStatuses", s.resource_claim_statuses).Done();
}
Node Enc(const api::PodGroupTemplate& t) {
  Obj o;
  o.Str("name", t.name, Empty::kWrite);
  PodGroupSpecFields(t.spec, Empty::kNull, o);
  return o.Done();
}
Node Enc(const api::TypedLocalObjectReference& r) {
  return Obj()
      .Str("apiGroup", r.api_group)
      .Str("kind", r.kind, Empty::kWrite)
      .Str("name", r.name, Empty::kWrite)
      .Done();
}
Node Enc(const api::WorkloadSpec& s) {
  Obj o;
  o.Opt("controllerRef", s.controller_ref).List("podGroupTemplates", s.pod_group_templates, Empty::kNull);
  if (const api::RawJson* raw = s.extra.find("compositePodGroupTemplates")) o.Raw("compositePodGroupTemplates", *raw);
  for (const auto& [name, raw] : s.extra) {
    if (name != "compositePodGroupTemplates") o.Raw(name, raw, Empty::kWrite);
  }
  return o.Done();
}

}  // namespace

Node EncodeObject(const api::Object& object) {
  api::Kind kind = api::KindOf(object);
  Obj o;
  o.Add("apiVersion", Node::String(std::string(api::ApiVersionFor(kind))));
  o.Add("kind", Node::String(std::string(api::KindName(kind))));
  std::visit(
      [&o](const auto& typed) {
        o.Add("metadata", Enc(typed.metadata));
        o.Add("spec", Enc(typed.spec));
        if constexpr (requires { typed.status; }) o.Add("status", Enc(typed.status));
      },
      object);
  return o.Done();
}

}  // namespace dra::manifest
