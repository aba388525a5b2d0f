// Node labels -> CEL (labels.h). GPU feature discovery (NVIDIA/k8s-device-plugin,
// gpu-feature-discovery's labelers) writes the product as NVML's name with
// spaces replaced by '-', appends "-SHARED" when time-slicing does not rename
// the resource, and "-MIG-<profile>" under the single MIG strategy; the memory
// in MiB; the family as the lower-case architecture ("ada-lovelace"). The
// driver publishes NVML's name and architecture ("Ada Lovelace") as they are,
// so the selectors transform the attribute rather than guess the spaces.
#include "migrate/labels.h"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace dra::migrate {
namespace {

constexpr std::string_view kNvidiaAttrs = "device.attributes['gpu.nvidia.com']";
constexpr std::string_view kTpuAttrs = "device.attributes['tpu.google.com']";

// GKE's accelerator label values and NVML's product names for them (as the
// driver publishes productName). Values not listed are kept as node
// constraints.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kGkeAccelerators = {{
    {"nvidia-b200", "NVIDIA B200"},
    {"nvidia-h200-141gb", "NVIDIA H200"},
    {"nvidia-h100-80gb", "NVIDIA H100 80GB HBM3"},
    {"nvidia-h100-mega-80gb", "NVIDIA H100 80GB HBM3"},
    {"nvidia-a100-80gb", "NVIDIA A100-SXM4-80GB"},
    {"nvidia-tesla-a100", "NVIDIA A100-SXM4-40GB"},
    {"nvidia-l4", "NVIDIA L4"},
    {"nvidia-tesla-t4", "Tesla T4"},
    {"nvidia-tesla-v100", "Tesla V100-SXM2-16GB"},
    {"nvidia-tesla-p100", "Tesla P100-PCIE-16GB"},
    {"nvidia-tesla-p4", "Tesla P4"},
}};

// Label values are [A-Za-z0-9_.-]: safe inside a single-quoted CEL string.
bool IsLabelValue(std::string_view v) {
  if (v.size() > 63) return false;
  for (char c : v) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool IsDigits(std::string_view s) {
  if (s.empty() || s.size() > 12) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

LabelTranslation Kept(std::string reason) {
  return {.kind = LabelTranslation::Kind::kKept, .cel = {}, .reason = std::move(reason)};
}
LabelTranslation Redundant() { return {.kind = LabelTranslation::Kind::kRedundant, .cel = {}, .reason = {}}; }
LabelTranslation Selector(std::string cel) {
  return {.kind = LabelTranslation::Kind::kSelector, .cel = std::move(cel), .reason = {}};
}

// `lhs == 'v'`, `lhs in ['a', 'b']`, and their negations for NotIn.
LabelTranslation StringMatch(const Requirement& r, std::string_view lhs, const std::vector<std::string>& values) {
  if (r.op == "Exists") return Redundant();
  if (r.op != "In" && r.op != "NotIn") {
    return Kept(fmt::format("operator {} on {} has no device equivalent", r.op, r.key));
  }
  if (values.empty()) return Kept(fmt::format("operator {} without values", r.op));
  bool in = r.op == "In";
  if (values.size() == 1) return Selector(fmt::format("{} {} '{}'", lhs, in ? "==" : "!=", values[0]));
  std::string list;
  for (const std::string& v : values) list += fmt::format("{}'{}'", list.empty() ? "" : ", ", v);
  return Selector(in ? fmt::format("{} in [{}]", lhs, list) : fmt::format("!({} in [{}])", lhs, list));
}

// GFD's product value without its "-SHARED" and "-MIG-<profile>" suffixes;
// the profile into `mig_profile` when given.
std::string PlainProduct(std::string_view v, std::string* mig_profile = nullptr) {
  if (v.ends_with("-SHARED")) v.remove_suffix(7);
  if (size_t mig = v.find("-MIG-"); mig != std::string_view::npos) {
    if (mig_profile != nullptr) *mig_profile = std::string(v.substr(mig + 5));
    v = v.substr(0, mig);
  }
  return std::string(v);
}

LabelTranslation TranslateProduct(const Requirement& r) {
  std::vector<std::string> values;
  size_t with_mig = 0;
  for (const std::string& v : r.values) {
    std::string profile;
    values.push_back(PlainProduct(v, &profile));
    if (!profile.empty()) ++with_mig;
  }
  if (with_mig > 0 && values.size() > 1) {
    return Kept(
        "several products of which some name a MIG profile (single strategy): one request cannot be "
        "both a MIG device and a whole GPU");
  }
  return StringMatch(r, fmt::format("{}.productName.replace(' ', '-')", kNvidiaAttrs), values);
}

LabelTranslation TranslateMemory(const Requirement& r, const DeviceKind& request) {
  if (request.class_name != "gpu.nvidia.com") {
    return Kept("nvidia.com/gpu.memory is the whole GPU's memory; a MIG device publishes only its own slice's");
  }
  if (r.op == "Exists") return Redundant();
  for (const std::string& v : r.values) {
    if (!IsDigits(v)) return Kept(fmt::format("value \"{}\" is not a number of MiB", v));
  }
  const std::string lhs = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('";
  if ((r.op == "Gt" || r.op == "Lt") && r.values.size() == 1) {
    return Selector(fmt::format("{}{}Mi')) {} 0", lhs, r.values[0], r.op == "Gt" ? ">" : "<"));
  }
  if ((r.op != "In" && r.op != "NotIn") || r.values.empty()) {
    return Kept(fmt::format("operator {} on nvidia.com/gpu.memory has no device equivalent", r.op));
  }
  const bool in = r.op == "In";
  std::string cel;
  for (const std::string& v : r.values) {
    if (!cel.empty()) cel += in ? " || " : " && ";
    cel += fmt::format("{}{}Mi')) {} 0", lhs, v, in ? "==" : "!=");
  }
  return Selector(r.values.size() > 1 && in ? "(" + cel + ")" : cel);
}

LabelTranslation TranslateGkeAccelerator(const Requirement& r) {
  std::vector<std::string> products;
  for (const std::string& v : r.values) {
    std::optional<std::string_view> found = GkeAcceleratorProduct(v);
    if (!found) return Kept(fmt::format("dractl does not know the product of GKE accelerator \"{}\"", v));
    products.emplace_back(*found);
  }
  return StringMatch(r, fmt::format("{}.productName", kNvidiaAttrs), products);
}

// A label that says something only of the request's kind (a MIG profile,
// time-slicing), which the request already carries after ReadHints.
LabelTranslation ByKind(const Requirement& r, bool holds) {
  if (r.op == "In" && r.values.size() == 1 && holds) return Redundant();
  return Kept(fmt::format("{} {} does not match what the request asks for", r.key, r.op));
}

LabelTranslation TranslateNvidia(const Requirement& r, const DeviceKind& request) {
  const std::string_view key = r.key;
  if (r.op == "DoesNotExist") {
    return Kept(fmt::format("DoesNotExist on {} asks for nodes without the label, which DRA devices cannot say", key));
  }
  if (key == "nvidia.com/gpu.product") return TranslateProduct(r);
  if (key == "nvidia.com/gpu.memory") return TranslateMemory(r, request);
  if (key == "nvidia.com/gpu.family") {
    return StringMatch(r, fmt::format("{}.architecture.lowerAscii().replace(' ', '-')", kNvidiaAttrs), r.values);
  }
  if (key == "nvidia.com/mig.strategy") return Redundant();
  if (key == "nvidia.com/gpu.present") {
    if (r.op == "Exists" || (r.op == "In" && r.values == std::vector<std::string>{"true"})) return Redundant();
    return Kept("only nvidia.com/gpu.present=true is implied by a GPU request");
  }
  if (key == "nvidia.com/gpu.count") {
    return Kept(
        "the number of GPUs on a node is not a device attribute (a claim's count asks for devices, "
        "not for nodes of a size)");
  }
  if (key == "cloud.google.com/gke-accelerator") return TranslateGkeAccelerator(r);
  if (key == "cloud.google.com/gke-gpu-partition-size") {
    return ByKind(r, !r.values.empty() && request.mig_profile == r.values[0]);
  }
  if (key == "cloud.google.com/gke-gpu-sharing-strategy") {
    return ByKind(r, request.time_sliced && !r.values.empty() && r.values[0] == "time-sharing");
  }
  return Kept(fmt::format("dractl cannot map label {} to a device attribute", key));
}

LabelTranslation TranslateTpu(const Requirement& r) {
  if (r.op == "DoesNotExist") {
    return Kept(
        fmt::format("DoesNotExist on {} asks for nodes without the label, which DRA devices cannot say", r.key));
  }
  if (r.key == "cloud.google.com/gke-tpu-accelerator") {
    return StringMatch(r, fmt::format("{}.accelerator", kTpuAttrs), r.values);
  }
  if (r.key == "cloud.google.com/gke-tpu-topology") {
    return StringMatch(r, fmt::format("{}.topology", kTpuAttrs), r.values);
  }
  return Kept(fmt::format("dractl cannot map label {} to a device attribute", r.key));
}

}  // namespace

std::optional<std::string_view> GkeAcceleratorProduct(std::string_view label_value) {
  for (const auto& [label, product] : kGkeAccelerators) {
    if (label == label_value) return product;
  }
  return std::nullopt;
}

std::optional<Vendor> LabelVendor(std::string_view key) {
  if (key.starts_with("nvidia.com/") || key.starts_with("cloud.google.com/gke-accelerator") ||
      key.starts_with("cloud.google.com/gke-gpu")) {
    return Vendor::kNvidia;
  }
  if (key.starts_with("cloud.google.com/gke-tpu")) return Vendor::kTpu;
  if (key.starts_with("amd.com/") || key.starts_with("beta.amd.com/")) return Vendor::kAmd;
  return std::nullopt;
}

void ReadHints(const Requirement& r, RequestHints* hints) {
  if (r.op != "In" || r.values.size() != 1) return;
  const std::string& v = r.values[0];
  if (r.key == "nvidia.com/gpu.product") {
    std::string profile;
    PlainProduct(v, &profile);
    if (!profile.empty()) hints->mig_profile = profile;
    if (v.ends_with("-SHARED")) hints->time_sliced = true;
  } else if (r.key == "cloud.google.com/gke-gpu-partition-size") {
    hints->mig_profile = v;
  } else if (r.key == "cloud.google.com/gke-gpu-sharing-strategy" && v == "time-sharing") {
    hints->time_sliced = true;
  } else if (r.key == "nvidia.com/mig.strategy" && v == "single") {
    hints->single_strategy = true;
  }
}

LabelTranslation TranslateLabel(const Requirement& r, const DeviceKind& request) {
  for (const std::string& v : r.values) {
    if (!IsLabelValue(v)) return Kept(fmt::format("\"{}\" is not a label value", v));
  }
  switch (request.vendor) {
    case Vendor::kNvidia: return TranslateNvidia(r, request);
    case Vendor::kTpu: return TranslateTpu(r);
    case Vendor::kAmd: break;
  }
  return Kept(fmt::format("dractl cannot map label {} to a device attribute", r.key));
}

}  // namespace dra::migrate
