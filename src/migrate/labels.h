// Node labels of GPU feature discovery (GFD) and GKE, and what they say about
// devices in CEL: the second step of `dractl migrate` (migrate.h). A pod that
// asked for `nvidia.com/gpu` on nodes labelled `nvidia.com/gpu.product:
// NVIDIA-H100-80GB-HBM3` asks, after migration, for a device whose
// productName is that product.
//
// A = device.attributes['gpu.nvidia.com'], C = device.capacity['gpu.nvidia.com']
//
//   label                                  request            CEL (In; NotIn negates)
//   nvidia.com/gpu.product                 GPU, MIG           A.productName.replace(' ', '-') == 'V'
//                                                             (GFD writes the name with '-' for ' ';
//                                                             "-SHARED" and "-MIG-<profile>" suffixes
//                                                             are hints, below)
//   nvidia.com/gpu.memory (MiB)            GPU                C.memory.compareTo(quantity('VMi')) == 0
//                                                             (Gt: > 0, Lt: < 0)
//   nvidia.com/gpu.family                  GPU, MIG           A.architecture.lowerAscii().replace(' ', '-') == 'V'
//   nvidia.com/mig.strategy                GPU, MIG           none: redundant in DRA
//   nvidia.com/gpu.present (true)          GPU, MIG           none: redundant
//   cloud.google.com/gke-accelerator       GPU, MIG           A.productName == '<NVML name>' (table in labels.cc)
//   cloud.google.com/gke-gpu-partition-size MIG               none: the request's profile (hint)
//   cloud.google.com/gke-gpu-sharing-strategy (time-sharing)  none: TimeSlicing (hint)
//   cloud.google.com/gke-tpu-accelerator   TPU                device.attributes['tpu.google.com'].accelerator == 'V'
//   cloud.google.com/gke-tpu-topology      TPU                device.attributes['tpu.google.com'].topology == 'V'
//
// Exists on a mapped label is redundant (every such device has it). Every
// other label of these domains (nvidia.com/gpu.count, nvidia.com/cuda.*,
// amd.com/*, ...), DoesNotExist, and an operator the label cannot take are
// kept as node constraints, with the reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/device_plugin.h"

namespace dra::migrate {

// One node-label requirement of a pod: a nodeSelector entry (operator In,
// one value) or a nodeSelectorTerm's matchExpression.
struct Requirement {
  std::string key{};
  std::string op{};  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values{};
};

// The vendor whose devices label `key` describes; nullopt for other labels
// (kubernetes.io/arch, a node pool's label), which migrate never touches.
std::optional<Vendor> LabelVendor(std::string_view key);

// What labels say about the kind of an NVIDIA request, read before the
// requests are translated: the device plugin's single MIG strategy and GKE's
// partition size make `nvidia.com/gpu` a MIG device; a "-SHARED" product and
// GKE's time-sharing make it time-sliced.
struct RequestHints {
  std::string mig_profile{};     // nvidia.com/gpu stands for a MIG device of this profile
  bool single_strategy = false;  // nvidia.com/mig.strategy: single
  bool time_sliced = false;
};
void ReadHints(const Requirement& requirement, RequestHints* hints);

struct LabelTranslation {
  enum class Kind {
    kSelector,   // `cel` says it
    kRedundant,  // every device of the request's class satisfies it, or the request's kind says it
    kKept,       // cannot be said of a device: stays a node constraint; `reason` says why
  };
  Kind kind = Kind::kKept;
  std::string cel{};
  std::string reason{};
};

// What `requirement` (of a label whose vendor is `request.vendor`) says of a
// device for `request`.
LabelTranslation TranslateLabel(const Requirement& requirement, const DeviceKind& request);

// NVML's product name (as the driver's productName) for a GKE accelerator
// label value ("nvidia-l4" -> "NVIDIA L4"), or nullopt when dractl does not
// know it.
std::optional<std::string_view> GkeAcceleratorProduct(std::string_view label_value);

}  // namespace dra::migrate
