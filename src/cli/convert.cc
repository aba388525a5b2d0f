// dractl convert: re-prints objects as YAML or JSON, the way kubectl prints
// them. Useful to normalise a dump, to apply API-server defaulting
// (--defaults), or to check that dractl reads a file the way you expect.
#include <cstdio>
#include <string>
#include <vector>

#include "api/defaults.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/encode.h"

namespace dra::cli {
namespace {

// Removes from `out` the nulls and empty mappings that `in`, the tree the
// object was read from, does not have in the same place: Go's encoding of
// the typed object adds them (metadata.creationTimestamp: null, status: {},
// a container's resources: {}), kubectl prints the object as it was read.
void DropAddedEmpties(manifest::Node& out, const manifest::Node& in) {
  if (out.is_sequence() && in.is_sequence() && out.items.size() == in.items.size()) {
    for (size_t i = 0; i < out.items.size(); ++i) DropAddedEmpties(out.items[i], in.items[i]);
    return;
  }
  if (!out.is_mapping() || !in.is_mapping()) return;
  for (size_t i = 0; i < out.keys.size();) {
    const manifest::Node* read = in.Find(out.keys[i].first);
    manifest::Node& value = out.items[i];
    if (read == nullptr) {
      // Added: dropped if empty once what it holds is (a claim template's
      // spec.metadata: {creationTimestamp: null}).
      DropAddedEmpties(value, manifest::Node::Mapping());
      if (value.is_null() || (value.is_mapping() && value.items.empty())) {
        out.Erase(std::string(out.keys[i].first));
        continue;
      }
    } else {
      DropAddedEmpties(value, *read);
    }
    ++i;
  }
}

}  // namespace

int RunConvert(std::span<const std::string_view> args) {
  CLI::App app{
      "Reads objects and prints them again as YAML (multi-document) or JSON (a v1 List),\n"
      "as kubectl would print them. Objects of kinds dractl does not model are counted\n"
      "and left out (see stderr).",
      "dractl convert"};
  std::vector<std::string> files;
  std::string output = "yaml";
  bool defaults = false;
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_option("-o,--output", output, "yaml or json")->check(CLI::IsMember({"yaml", "json"}))->capture_default_str();
  app.add_flag("--defaults", defaults, "apply API-server defaulting first");
  GateFlags gate_flags;
  AddGateFlags(app, &gate_flags);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl convert", gate_flags.version, gate_flags.gates);
  if (!gates) return kExitUsageError;

  manifest::LoadResult result;
  LoadInputs(files, {.keep_trees = true}, &result);
  {
    // Validated as the API server would (on defaulted copies: the output
    // keeps the objects as written unless --defaults).
    manifest::LoadResult checked = result;
    if (int rc = DefaultAndValidate(&checked, *gates, "dractl convert"); rc >= 0) return rc;
  }
  std::vector<manifest::Node> roots;
  for (manifest::LoadedObject& loaded : result.objects) {
    if (defaults) api::SetDefaults(loaded.object, "1970-01-01T00:00:00Z", *gates);
    roots.push_back(manifest::EncodeObject(loaded.object));
    // With --defaults the additions are the point (a union's `single: {}`).
    if (!defaults && loaded.tree != nullptr) DropAddedEmpties(roots.back(), *loaded.tree);
  }
  PrintDocuments(std::move(roots), output);
  if (!result.skipped_kinds.empty()) std::fprintf(stderr, "%s\n", DescribeLoad(result).c_str());
  return kExitOk;
}

}  // namespace dra::cli
