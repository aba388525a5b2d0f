// The allocator's view of CEL: one call that evaluates a device selector
// expression on one device (src/alloc/README.md §6). The production
// implementation (alloc/cel_selector.h) sits on cel/dra/dra_env.h; tests use small
// doubles.
//
// Error channels, which the allocator turns into the §6.5 messages:
//   kInvalidArgument  the expression does not compile ("CEL compile error")
//   any other code    evaluating it on this device failed ("CEL runtime error"),
//                     including a result that is not a bool
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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
  virtual StatusOr<bool> Evaluate(std::string_view expression, const api::Device& device, std::string_view driver) = 0;

  // Evaluate for every device of one slice of `driver` at once, where the
  // implementation has a faster way (cel/dra/columnar.h): out[i] becomes 2 (true)
  // or 1 (false) where Evaluate(expression, devices[i], driver) would return
  // that bool, else 0 (call Evaluate for that device). Returns false, leaving
  // `out` alone, when it has no such way for `expression`.
  virtual bool EvaluateSlice(std::string_view /*expression*/, std::span<const api::Device> /*devices*/,
                             std::string_view /*driver*/, std::span<uint8_t> /*out*/) {
    return false;
  }

  // What an evaluator may keep per slice between EvaluateSlice calls (the CEL
  // evaluator: the columns of the values its selectors read). Made by
  // NewSliceState for one slice's devices and owned by the caller, which
  // keeps it while that slice is unchanged (the allocator: per snapshot) and
  // passes it back with those devices. nullptr: nothing to keep.
  class SliceState {
   public:
    virtual ~SliceState() = default;
  };
  virtual std::unique_ptr<SliceState> NewSliceState(std::span<const api::Device> /*devices*/,
                                                    std::string_view /*driver*/) {
    return nullptr;
  }
  // EvaluateSlice with the state NewSliceState made for `devices` (or null,
  // or a state another evaluator made: then as EvaluateSlice).
  virtual bool EvaluateSliceWith(std::string_view expression, SliceState* /*state*/,
                                 std::span<const api::Device> devices, std::string_view driver,
                                 std::span<uint8_t> out) {
    return EvaluateSlice(expression, devices, driver, out);
  }

  // The value of the derived attribute `expression` (gate DRADerivedAttributes,
  // src/alloc/README.md §7.4) on `device`: a scalar (int, bool, string,
  // semver) or a list of one of those, as upstream's valToDeviceAttribute
  // converts it. Error channels as Evaluate's (any other result type is a
  // runtime error). The default, for evaluators that only know selectors,
  // says so (kUnimplemented).
  virtual StatusOr<api::DeviceAttribute> EvaluateAttribute(std::string_view expression, const api::Device& device,
                                                           std::string_view driver);
};

}  // namespace dra::alloc
