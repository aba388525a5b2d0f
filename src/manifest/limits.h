// Input limits of the loader. Each is reported with a clear error, never a
// crash, when exceeded (see README "Limits").
#pragma once

#include <cstddef>
#include <cstdint>

namespace dra::manifest {

// Deepest nesting of mappings and sequences in one document. Kubernetes
// objects need about 15; opaque driver parameters a few more.
inline constexpr size_t kMaxDepth = 512;
// Largest single input (file or stdin).
inline constexpr size_t kMaxInputBytes = size_t{1} << 30;  // 1 GiB
// Nodes produced by expanding YAML aliases in one document (billion-laughs guard).
inline constexpr size_t kMaxAliasExpansion = 1'000'000;
// Documents in one input.
inline constexpr size_t kMaxDocuments = 10'000'000;

}  // namespace dra::manifest
