// The production SelectorEvaluator: CEL device selectors through the DRA CEL
// environment (cel/dra/dra_env.h) as kube-scheduler compiles them
// (StoredExpressions of the newest release, src/alloc/README.md §6.1), with
// compiled expressions cached by the environment and, in front of that, by a
// small per-thread cache (a few entries per thread stay alive until replaced).
#pragma once

#include <memory>

#include "alloc/features.h"
#include "alloc/selector.h"
#include "base/status.h"

namespace dra::alloc {

// A new evaluator for `features` (DRAConsumableCapacity and
// DRAListTypeAttributes shape the environment). Thread-safe: each thread
// uses its own evaluation scratch. Errors only if the environment cannot be
// built (a bug).
StatusOr<std::unique_ptr<SelectorEvaluator>> NewCelSelectorEvaluator(const Features& features);

}  // namespace dra::alloc
