// Prints Node trees as YAML or JSON, byte for byte as kubectl v1.37 prints
// objects (`kubectl get -o yaml|json`):
//
// - YAML as sigs.k8s.io/yaml v1.6.0 writes it (go.yaml.in/yaml/v2 v2.4.4's
//   emitter): two-space indentation, sequences under a key not indented,
//   strings plain where go-yaml's resolver reads them back as strings, else
//   'single' or "double" quoted, multi-line strings as literal blocks (|),
//   lines folded at 80 columns, keys over 128 bytes as `? key`.
// - JSON as Go's encoding/json MarshalIndent writes it (four-space indent by
//   default; invalid UTF-8 as \ufffd, U+2028/U+2029 escaped).
//
// On top of go-yaml, a string that any YAML 1.1 or 1.2 reader (PyYAML,
// YAML 1.2's core schema) would read as a non-string (`=`, `<<`, timestamps
// go-yaml cannot parse, out-of-range numbers) is quoted too; see emit.cc.
// Output parses back to an equal tree with yaml_parser.h / json_parser.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "manifest/node.h"

namespace dra::manifest {

struct EmitOptions {
  // Print as kubectl prints an API object: mapping keys sorted as kubectl
  // sorts them (YAML: go-yaml's order, runs of digits compared as numbers,
  // "a2" before "a10"; JSON: byte order, as encoding/json sorts map keys);
  // numbers as Go writes them once decoded into int64 or float64 (1.0 -> 1,
  // 1e3 -> 1000, 1234567.5 -> 1.2345675e+06 in YAML); in JSON, <, > and & as
  // \u003c, \u003e, \u0026. Without it keys keep their order and numbers
  // their text (reports).
  bool sort_keys = false;
  // JSON with indent 0 only: ", " between items and ": " after keys, all on
  // one line, as Python's json.dumps writes (dractl's own reports, such as
  // `simulate -o json`); otherwise "," and ":", as json.Marshal writes.
  bool spaced_separators = false;
};

// YAML honours Node::style (NodeStyle: double-quoted strings and flow
// collections on one line, for writers with a layout of their own); the
// parsers and encode.h leave it kAuto, which prints as kubectl does. JSON
// ignores it.
std::string EmitYaml(const Node& root, const EmitOptions& options = {});
// EmitYaml appended to `out` (a stream written one document at a time).
void AppendYaml(const Node& root, std::string& out, const EmitOptions& options = {});
// Several documents separated by "---" (as kubectl's YAML printer separates
// the objects it prints).
std::string EmitYamlDocuments(const std::vector<Node>& roots, const EmitOptions& options = {});
// indent 0: compact, as json.Marshal writes.
std::string EmitJson(const Node& root, int indent = 4, const EmitOptions& options = {});

// True if the string `text`, as a mapping value, is printed as a plain
// (unquoted) scalar: it reads back as the same string in every YAML reader.
bool IsPlainSafe(std::string_view text);

// True if a plain scalar `text` would be read as something other than a
// string by go-yaml v2 (kubectl's reader and writer; base-60 numbers
// included), by a YAML 1.1 reader (PyYAML: y/n are strings there, but
// 2001-12-14 21:59:43.10 -5 is a timestamp) or under YAML 1.2's core schema.
bool ReadsAsNonString(std::string_view text);

}  // namespace dra::manifest
