// JSON -> Node trees, with line and column for every value.
//
// Our own strict RFC 8259 parser rather than a library: the loader must report
// `file:line:col` for every field, which neither nlohmann-json nor simdjson keep.
// Iterative, so nesting is bounded only by kMaxDepth; strings are validated as
// UTF-8 (with \u escapes and surrogate pairs decoded); a duplicate key in one
// object is an error, as in Kubernetes' strict decoding. Accepts a stream of
// whitespace-separated values (as kubectl apply does); each is a Document.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

StatusOr<std::vector<Document>> ParseJson(std::string_view text, std::string_view file);

}  // namespace dra::manifest
