// Synthetic cluster dumps for benchmarks: `kubectl get resourceslices -o json`
// (or -o yaml) of `nodes` DGX-H100-like nodes with `gpus` GPUs each, carrying
// the attribute set the NVIDIA DRA driver publishes (see
// testdata/fixtures/nvidia/node-dgx-h100.yaml). Deterministic.
#pragma once

#include <string>

namespace dra::bench {

enum class DumpFormat { kJson, kYaml };

std::string GenerateSliceDump(int nodes, int gpus, DumpFormat format);

}  // namespace dra::bench
