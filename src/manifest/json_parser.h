// JSON -> Node trees, with line and column for every value.
//
// Our own strict RFC 8259 parser rather than a library: the loader must report
// `file:line:col` for every field, which neither nlohmann-json nor simdjson keep.
// Iterative, so nesting is bounded only by kMaxDepth; strings are validated as
// UTF-8 (with \u escapes and surrogate pairs decoded); a duplicate key in one
// object is an error, as in Kubernetes' strict decoding. Accepts a stream of
// whitespace-separated values (as kubectl apply does); each is a Document.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

StatusOr<std::vector<Document>> ParseJson(std::string_view text, std::string_view file);

// As in yaml_parser.h: each document as soon as it is parsed, with the byte
// offset of its first character; returns false to stop reading.
using DocumentFn = std::function<bool(Document& doc, size_t begin)>;

// ParseJson one value at a time; the first problem ends the stream with the
// status ParseJson would return, after the values before it were handed over.
Status ParseJsonStream(std::string_view text, std::string_view file, const DocumentFn& on_document);

// The value at byte `offset` of `text`, a part of a file that starts at the
// start of line `first_line`, with the marks of the whole file's parse.
StatusOr<Node> ParseJsonValueAt(std::string_view text, std::string_view file, size_t offset, uint32_t first_line);

}  // namespace dra::manifest
