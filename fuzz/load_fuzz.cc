// libFuzzer target for the loader and validation: one input is one file as
// `dractl validate -f` or `dractl convert -f` would read it (YAML or JSON,
// sniffed from the content as kubectl does), decoded, validated per object
// (api::Validate under the feature gates of one release) and across objects
// (api::ValidateCrossObject), every problem located with FindFieldMark.
//
// The first byte picks the options; the rest is the file:
//   bits 0-1  the release whose default gates apply: 1.34 + n
//   bit 2     strict decoding (unknown fields are errors)
//   bit 3     apply API-server defaulting before validation and re-printing
//
// Besides crashes, leaks and undefined behaviour, the target checks that
// nothing is lost or changed by a round trip, which `dractl convert` promises:
// when the file loads without errors, its objects printed as YAML (as convert
// prints them) load again without errors into the same number of objects, and
// printing those gives the same text. The same holds for the JSON form. A
// difference aborts with both texts on stderr. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "api/cross_validation.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/validation.h"
#include "manifest/emit.h"
#include "manifest/encode.h"
#include "manifest/loader.h"

namespace dra::manifest {
namespace {

constexpr const char* kVersions[] = {"1.34", "1.35", "1.36", "1.37"};

[[noreturn]] void Fail(const char* what, const std::string& first, const std::string& second) {
  std::fprintf(stderr, "load_fuzz: %s\n--- first ---\n%s\n--- second ---\n%s\n", what, first.c_str(), second.c_str());
  std::abort();
}

// The objects printed as `dractl convert -o yaml` prints them, and as one
// JSON List.
std::string PrintYaml(const LoadResult& result) {
  std::vector<Node> roots;
  for (const LoadedObject& loaded : result.objects) roots.push_back(EncodeObject(loaded.object));
  return EmitYamlDocuments(roots, {.sort_keys = true});
}

std::string PrintJson(const LoadResult& result) {
  Node list = Node::Mapping();
  list.Add("apiVersion", Node::String("v1"));
  Node items = Node::Sequence();
  for (const LoadedObject& loaded : result.objects) items.Push(EncodeObject(loaded.object));
  list.Add("items", std::move(items));
  list.Add("kind", Node::String("List"));
  return EmitJson(list);
}

std::string Messages(const LoadResult& result) {
  std::string out;
  for (const LoadMessage& m : result.messages) out += m.ToString() + "\n";
  return out;
}

// Loads `text` again and checks that it gives `objects` objects without
// errors and prints as `expected`.
void CheckReload(const Loader& loader, const std::string& text, const char* name, size_t objects,
                 const std::string& expected, bool json) {
  LoadResult again;
  loader.LoadText(text, name, &again);
  if (again.error_count() > 0) Fail("the printed objects do not load again", text, Messages(again));
  if (again.objects.size() != objects) {
    Fail("the printed objects load as a different number of objects", text, std::to_string(again.objects.size()));
  }
  std::string reprinted = json ? PrintJson(again) : PrintYaml(again);
  if (reprinted != expected) Fail("printing the reloaded objects gives different text", expected, reprinted);
}

void Run(uint8_t flags, std::string_view text) {
  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults(kVersions[flags & 3]);
  if (!gates.ok()) std::abort();
  const bool strict = (flags & 4) != 0;
  const bool defaults = (flags & 8) != 0;

  Loader loader({.strict = strict, .keep_trees = true, .keep_workloads = true});
  LoadResult result;
  loader.LoadText(text, "fuzz.yaml", &result);

  std::vector<api::Object> objects;
  for (LoadedObject& loaded : result.objects) {
    if (defaults) api::SetDefaults(loaded.object, "1970-01-01T00:00:00Z");
    for (const api::FieldError& e : api::Validate(loaded.object, *gates)) {
      if (loaded.tree) (void)FindFieldMark(*loaded.tree, e.field);
      (void)e.ToString();
    }
    objects.push_back(loaded.object);
  }
  for (const api::ObjectFieldError& e : api::ValidateCrossObject(objects)) (void)e.error.ToString();
  for (const LoadMessage& m : result.messages) (void)m.ToString();

  if (result.error_count() > 0) return;
  // Round trips. Lax loading for the reload: the printer never writes unknown
  // fields, and a strict first load has already refused them.
  Loader reload({.keep_trees = false, .keep_workloads = true});
  const std::string yaml = PrintYaml(result);
  CheckReload(reload, yaml, "roundtrip.yaml", result.objects.size(), yaml, /*json=*/false);
  const std::string json = PrintJson(result);
  CheckReload(reload, json, "roundtrip.json", result.objects.size(), json, /*json=*/true);
}

}  // namespace
}  // namespace dra::manifest

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  dra::manifest::Run(data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  return 0;
}
