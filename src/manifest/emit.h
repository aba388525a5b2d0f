// Prints Node trees as YAML (the layout `kubectl get -o yaml` uses) or JSON
// (`kubectl get -o json`: 4-space indent). Output parses back to an equal tree
// with yaml_parser.h / json_parser.h.
#pragma once

#include <string>
#include <vector>

#include "manifest/node.h"

namespace dra::manifest {

struct EmitOptions {
  // YAML: sort mapping keys, as kubectl -o yaml does.
  bool sort_keys = false;
};

std::string EmitYaml(const Node& root, const EmitOptions& options = {});
// Several documents separated by "---".
std::string EmitYamlDocuments(const std::vector<Node>& roots, const EmitOptions& options = {});
std::string EmitJson(const Node& root, int indent = 4);

// True if `text` can be written as a plain YAML scalar and reads back as the
// same string.
bool IsPlainSafe(std::string_view text);

}  // namespace dra::manifest
