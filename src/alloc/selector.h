// The allocator's view of CEL: one call that evaluates a device selector
// expression on one device (src/alloc/README.md §6). The production
// implementation (alloc/cel_selector.h) sits on cel/dra_env.h; tests use small
// doubles.
//
// Error channels, which the allocator turns into the §6.5 messages:
//   kInvalidArgument  the expression does not compile ("CEL compile error")
//   any other code    evaluating it on this device failed ("CEL runtime error"),
//                     including a result that is not a bool
#pragma once

#include <string_view>

#include "api/resource.h"
#include "base/status.h"

namespace dra::alloc {

class SelectorEvaluator {
 public:
  virtual ~SelectorEvaluator() = default;

  // Whether `expression` is true for `device` of a slice of `driver`.
  // Implementations must be thread-safe when one Allocator is used by several
  // threads at once; compiled expressions may be cached.
  virtual StatusOr<bool> Evaluate(std::string_view expression, const api::Device& device,
                                  std::string_view driver) = 0;
};

}  // namespace dra::alloc
