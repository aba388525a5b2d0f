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

#include <string_view>
#include <vector>

#include "base/status.h"
#include "manifest/node.h"

namespace dra::manifest {

// Parses every document of `text`. Empty documents yield a null root.
// Errors are kInvalidArgument (or kResourceExhausted for limits) with a message
// "<file>:<line>:<col>: <what>".
StatusOr<std::vector<Document>> ParseYaml(std::string_view text, std::string_view file);

// Types one plain scalar as described above (used by the emitter to decide
// which strings need quotes).
Node ResolvePlainScalar(std::string text);

}  // namespace dra::manifest
