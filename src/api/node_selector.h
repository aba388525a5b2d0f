// Matching nodes against core/v1 NodeSelectors, as kube-scheduler's
// component-helpers nodeaffinity package does: terms are ORed, requirements in
// a term ANDed; matchExpressions test labels with In, NotIn, Exists,
// DoesNotExist, Gt, Lt; matchFields supports only `metadata.name` with In or
// NotIn and exactly one value.
//
// A selector that upstream cannot parse (unknown operator, values where none
// are allowed or none where some are required, Gt/Lt with a non-integer, an
// unsupported field) is an error, not a non-match: the DRA allocator turns it
// into a fatal error for the slice (src/alloc/README.md §3.1).
#pragma once

#include <string_view>

#include "api/core.h"
#include "api/flat_map.h"
#include "base/status.h"

namespace dra::api {

// Whether the node named `node_name` with `labels` matches `selector`.
// A selector with no terms matches nothing (as upstream's NodeSelector does).
StatusOr<bool> MatchesNodeSelector(const NodeSelector& selector, std::string_view node_name,
                                   const FlatMap<std::string>& labels);

// One term (all requirements must hold). A term with no requirements matches
// nothing, as in upstream.
StatusOr<bool> MatchesNodeSelectorTerm(const NodeSelectorTerm& term, std::string_view node_name,
                                       const FlatMap<std::string>& labels);

}  // namespace dra::api
