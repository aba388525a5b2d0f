// Builds the DRA objects of `dractl import openb`. Quantities are written in
// the units the trace uses: cpu in milli-cores ("3152m", canonicalised by the
// Quantity type), memory in Mi.
#include "sim/import.h"

#include "fmt/format.h"
#include "quantity/quantity.h"

namespace dra::sim {
namespace {

using quantity::Quantity;

Quantity Cpu(int64_t milli) { return Quantity::FromMilli(milli); }
Quantity MemoryMib(int64_t mib) { return Quantity::FromInt(mib * 1024 * 1024, quantity::Format::kBinarySI); }

// A CEL string literal (model names are plain identifiers, but quote safely).
std::string CelString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace

api::DeviceClass MakeDeviceClass() {
  api::DeviceClass c;
  c.metadata.name = kDeviceClass;
  c.spec.selectors.push_back(api::DeviceSelector{
      .cel = api::CelDeviceSelector{.expression = fmt::format("device.driver == \"{}\"", kDriver)}});
  return c;
}

api::Node MakeNode(const OpenbNode& node) {
  api::Node n;
  n.metadata.name = node.name;
  if (!node.model.empty()) n.metadata.labels.insert_or_assign(fmt::format("{}/model", kDriver), node.model);
  for (api::FlatMap<Quantity>* m : {&n.status.capacity, &n.status.allocatable}) {
    m->insert_or_assign("cpu", Cpu(node.cpu_milli));
    m->insert_or_assign("memory", MemoryMib(node.memory_mib));
    m->insert_or_assign("pods", Quantity::FromInt(kPodsPerNode));
  }
  return n;
}

api::ResourceSlice MakeSlice(const OpenbNode& node) {
  api::ResourceSlice s;
  s.metadata.name = fmt::format("{}-{}", node.name, kDriver);
  s.spec.driver = kDriver;
  s.spec.pool.name = node.name;
  s.spec.pool.generation = 1;
  s.spec.pool.resource_slice_count = 1;
  s.spec.node_name = node.name;
  for (int64_t i = 0; i < node.gpus; ++i) {
    api::Device d;
    d.name = fmt::format("gpu-{}", i);
    d.attributes.insert_or_assign("model", api::DeviceAttribute::String(node.model));
    d.attributes.insert_or_assign("index", api::DeviceAttribute::Int(i));
    d.capacity.insert_or_assign(kCapacityName,
                                api::DeviceCapacity{.value = Quantity::FromInt(kMilliPerGpu), .request_policy = {}});
    d.allow_multiple_allocations = true;
    s.spec.devices.push_back(std::move(d));
  }
  return s;
}

api::ResourceClaimSpec MakeClaimSpec(const OpenbPod& pod) {
  api::ExactDeviceRequest req;
  req.device_class_name = kDeviceClass;
  req.allocation_mode = api::AllocationMode::kExactCount;
  req.count = pod.num_gpu;
  std::vector<std::string> models = pod.SpecModels();
  if (!models.empty()) {
    std::string expr = fmt::format("device.attributes[\"{}\"].model", kDriver);
    if (models.size() == 1) {
      expr += " == " + CelString(models[0]);
    } else {
      expr += " in [";
      for (size_t i = 0; i < models.size(); ++i) expr += (i ? ", " : "") + CelString(models[i]);
      expr += "]";
    }
    req.selectors.push_back(api::DeviceSelector{.cel = api::CelDeviceSelector{.expression = std::move(expr)}});
  }
  if (pod.gpu_milli < kMilliPerGpu) {
    api::CapacityRequirements cap;
    cap.requests.insert_or_assign(kCapacityName, Quantity::FromInt(pod.gpu_milli));
    req.capacity = std::move(cap);
  }
  api::ResourceClaimSpec spec;
  spec.devices.requests.push_back(
      api::DeviceRequest{.name = kClaimName, .exactly = std::move(req), .first_available = {}});
  return spec;
}

std::string TemplateName(const OpenbPod& pod) { return pod.name + "-gpu"; }

api::ResourceClaimTemplate MakeClaimTemplate(const OpenbPod& pod) {
  api::ResourceClaimTemplate t;
  t.metadata.name = TemplateName(pod);
  t.metadata.namespace_ = kNamespace;
  t.spec.spec = MakeClaimSpec(pod);
  return t;
}

api::Pod MakePod(const OpenbPod& pod) {
  api::Pod p;
  p.metadata.name = pod.name;
  p.metadata.namespace_ = kNamespace;
  api::Container c;
  c.name = "main";
  c.resources.requests.insert_or_assign("cpu", Cpu(pod.cpu_milli));
  c.resources.requests.insert_or_assign("memory", MemoryMib(pod.memory_mib));
  c.resources.limits = c.resources.requests;
  if (pod.uses_gpu()) {
    c.resources.claims.push_back(api::ContainerClaim{.name = kClaimName});
    p.spec.resource_claims.push_back(api::PodResourceClaim{
        .name = kClaimName, .resource_claim_name = std::nullopt, .resource_claim_template_name = TemplateName(pod)});
  }
  p.spec.containers.push_back(std::move(c));
  return p;
}

std::vector<api::Object> ImportOpenb(std::span<const OpenbNode> nodes, std::span<const OpenbPod> pods) {
  std::vector<api::Object> out;
  out.emplace_back(MakeDeviceClass());
  for (const OpenbNode& n : nodes) {
    out.emplace_back(MakeNode(n));
    if (n.gpus > 0) out.emplace_back(MakeSlice(n));
  }
  for (const OpenbPod& p : pods) {
    if (p.uses_gpu()) out.emplace_back(MakeClaimTemplate(p));
    out.emplace_back(MakePod(p));
  }
  return out;
}

}  // namespace dra::sim
