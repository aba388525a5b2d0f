// YAML -> Node trees, with the scalar typing of Kubernetes' YAML-to-JSON step.
//
// Built on libyaml's event parser (no recursion in libyaml or here, so deep
// input cannot overflow the stack; depth is capped at kMaxDepth). Plain scalars
// resolve as go-yaml v2 (used by sigs.k8s.io/yaml) resolves them: null (~, null,
// empty), bool (true/false/yes/no/on/off/y/n in their three casings), int (decimal,
// 0x, 0o/leading-0 octal, 0b, '_' separators; text normalised to decimal), float
// (incl. .inf/.nan); quoted scalars and everything else are strings. Aliases are
// expanded (bounded by kMaxAliasExpansion), `<<` merge keys are applied, and a
// key repeated in one mapping is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

// Parses every document of `text`. Empty documents yield a null root.
// Errors are kInvalidArgument (or kResourceExhausted for limits) with a message
// "<file>:<line>:<col>: <what>".
StatusOr<std::vector<Document>> ParseYaml(std::string_view text, std::string_view file);

// Receives each document of a stream as soon as it is parsed (its tree may be
// moved out), with the byte offset in the text of the line it starts on,
// lines counted by '\n' alone (npos if there are fewer; for JSON, the offset
// of its first character); returns false to stop reading.
using DocumentFn = std::function<bool(Document& doc, size_t begin)>;

// ParseYaml one document at a time: the first problem ends the stream with
// the status ParseYaml would return, after the documents before it were
// handed over (a caller that must not act on part of an input undoes them).
Status ParseYamlStream(std::string_view text, std::string_view file, const DocumentFn& on_document);

// The first document of `text`, a part of a file that starts at the start of
// line `first_line` (a document's `begin` from ParseYamlStream): its marks
// are those of the whole file's parse (the document is read again to point a
// message at a line).
StatusOr<Document> ParseYamlDocumentAt(std::string_view text, std::string_view file, uint32_t first_line);

// Types one plain scalar as described above (used by the emitter to decide
// which strings need quotes).
Node ResolvePlainScalar(std::string text);

}  // namespace dra::manifest
