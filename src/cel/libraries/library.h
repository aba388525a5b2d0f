// The function libraries: cel-spec's standard definitions and the cel-go
// extensions Kubernetes enables (src/cel/README.md §2-§3).
//
// Each Register* adds its overloads to a FunctionRegistry (see
// cel/runtime/function_registry.h for the conventions). NewRegistry builds the registry
// of a whole environment; build it once and share it.
#pragma once

#include <memory>

#include "base/status.h"
#include "cel/runtime/function_registry.h"

namespace dra::cel {

// cel-spec standard definitions: arithmetic (checked int/uint, IEEE double),
// comparisons (cross-type numeric ordering), size, string predicates,
// matches (RE2, unanchored; a constant pattern is compiled at plan time and
// an invalid one is a compile issue), conversions (int, uint, double,
// string, bytes, bool, dyn, type).
// Timestamps and durations come from RegisterTimeLibrary, which this calls.
Status RegisterStandardLibrary(FunctionRegistry& registry);

// cel-spec timestamps and durations (time_lib.cc): duration(), timestamp(),
// their string/int conversions, ordering, arithmetic and getters.
Status RegisterTimeLibrary(FunctionRegistry& registry);

// How the strings extension formats `format()`.
enum class FormatFlavor : uint8_t {
  kCurrent,   // cel-spec's string_ext vectors (cel-go's current formatter)
  kLegacy,    // cel-go's legacy formatter used by ext.Strings v2 (Kubernetes)
  kExternal,  // format() is not registered here: another library brings its own
              // (the Kubernetes environment's, over cel/lib/format.h; k8s_lib.h)
};

// ext.Strings at `version`: v0 charAt, indexOf, lastIndexOf, lowerAscii,
// upperAscii, replace, split, substring, trim, join; v1 adds format and
// strings.quote; v3 adds string reverse.
Status RegisterStringsLibrary(FunctionRegistry& registry, int version, FormatFlavor flavor);

// ext.Lists v3: lists.range, slice, flatten, distinct, reverse, sort, the
// sortBy macro's @sortByAssociatedKeys, first, last.
Status RegisterListsLibrary(FunctionRegistry& registry);

// ext.Sets: sets.contains, sets.equivalent, sets.intersects.
Status RegisterSetsLibrary(FunctionRegistry& registry);

// The optional library: optional.of, optional.ofNonZeroValue, optional.none,
// hasValue, value, or, orValue, optional.unwrap, unwrapOpt. (optMap and
// optFlatMap are macros; `or` and `orValue` short-circuit in the planner.)
Status RegisterOptionalLibrary(FunctionRegistry& registry);

struct LibraryOptions {
  int strings_version = 3;
  FormatFlavor format_flavor = FormatFlavor::kCurrent;
  bool lists = true;
  bool sets = true;
  bool optional = true;

  // Standard CEL as the cel-spec conformance files assume it.
  static LibraryOptions Standard() { return {}; }
  // The plain-CEL part of the Kubernetes DRA selector environment
  // (strings v2 with the legacy formatter, lists v3, sets, optional); the
  // Kubernetes libraries proper (quantity, semver, ...) come from dra_env.
  static LibraryOptions Kubernetes() {
    LibraryOptions o;
    o.strings_version = 2;
    o.format_flavor = FormatFlavor::kLegacy;
    return o;
  }
};

// A registry with the standard library and the libraries `options` enables.
StatusOr<std::shared_ptr<FunctionRegistry>> NewRegistry(const LibraryOptions& options);

}  // namespace dra::cel
