// dractl eval: which devices a CEL selector (or a DeviceClass's selectors)
// matches, evaluated as kube-scheduler evaluates them (Kubernetes 1.37,
// StoredExpressions; cel/dra/dra_env.h).
//
//   dractl eval 'EXPR' -f slices/            devices for which EXPR is true
//   dractl eval --class NAME -f cluster/     devices the class NAME selects
//   dractl eval --class NAME 'EXPR' -f ...   both: the class's selectors first,
//                                            then EXPR (as for a claim request)
//
// For each device of every ResourceSlice read: the selectors in order, the
// first false or error deciding (later selectors are not evaluated, so
// their errors do not show), as the allocator does (src/alloc/README.md
// §5.2). Every device of every slice is evaluated; pools, generations and
// taints play no part.
//
// Output: a table of the matching devices and of those whose evaluation
// failed (--all adds the others):
//
//   NODE          DEVICE                                 RESULT
//   dgx-h100-01   gpu.nvidia.com/dgx-h100-01/gpu-0       true
//
// -o wide adds the selector that decided and the evaluation cost; -o yaml and
// -o json print every device with its result (true/false) or error. A
// summary goes to stderr.
//
// Exit codes: 0 when every device evaluated to true or false (whether or not
// any matched); 1 when the input has errors, the class is unknown, a
// selector does not compile, or the evaluation failed on some device (those
// devices are still printed, with their error); 2 on usage errors.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "alloc/features.h"
#include "api/object.h"
#include "base/release.h"
#include "cel/dra/dra_env.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "fmt/format.h"
#include "manifest/emit.h"

namespace dra::cli {
namespace {

struct Selector {
  std::string label;  // "class gpu.nvidia.com selector 1", "expression"
  std::shared_ptr<const cel::CompiledSelector> compiled;
  // For a class's selector: where it is, for compile errors
  // ("file:line:col: DeviceClass gpu: spec.selectors[1].cel.expression: ").
  std::string where;
};

struct Row {
  std::string node;
  std::string driver;
  std::string pool;
  std::string device;
  bool ok = true;       // evaluated without error
  bool match = false;   // when ok
  std::string error;    // when !ok
  int decided_by = -1;  // index of the selector that returned false or failed; -1: all true
  uint64_t cost = 0;
};

// Where the slice's (or device's) devices are available.
std::string NodeOf(const api::ResourceSliceSpec& spec, const api::Device& device) {
  if (spec.node_name) return *spec.node_name;
  if (spec.per_device_node_selection.value_or(false)) {
    if (device.rare->node_name) return *device.rare->node_name;
    if (device.rare->all_nodes.value_or(false)) return "<all nodes>";
    if (device.rare->node_selector) return "<node selector>";
  }
  if (spec.all_nodes.value_or(false)) return "<all nodes>";
  if (spec.node_selector) return "<node selector>";
  return "<none>";
}

std::string ResultText(const Row& r) {
  if (!r.ok) return "error: " + r.error;
  return r.match ? "true" : "false";
}

void PrintTable(const std::vector<const Row*>& rows, bool wide, const std::vector<Selector>& selectors) {
  std::vector<std::vector<std::string>> cells;
  if (wide) {
    cells.push_back({"NODE", "DRIVER", "POOL", "DEVICE", "SELECTOR", "COST", "RESULT"});
  } else {
    cells.push_back({"NODE", "DEVICE", "RESULT"});
  }
  for (const Row* r : rows) {
    if (wide) {
      const std::string decided = r->decided_by < 0 ? "-" : selectors[static_cast<size_t>(r->decided_by)].label;
      cells.push_back({r->node, r->driver, r->pool, r->device, decided, std::to_string(r->cost), ResultText(*r)});
    } else {
      cells.push_back({r->node, r->driver + "/" + r->pool + "/" + r->device, ResultText(*r)});
    }
  }
  std::vector<size_t> widths(cells[0].size(), 0);
  for (const auto& row : cells) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : cells) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out.append(widths[i] - row[i].size() + 3, ' ');
    }
    out += '\n';
  }
  std::fputs(out.c_str(), stdout);
}

manifest::Node RowNode(const Row& r, const std::vector<Selector>& selectors) {
  using manifest::Node;
  Node n = Node::Mapping();
  n.Add("node", Node::String(r.node));
  n.Add("driver", Node::String(r.driver));
  n.Add("pool", Node::String(r.pool));
  n.Add("device", Node::String(r.device));
  if (r.ok) {
    n.Add("result", Node::Bool(r.match));
  } else {
    n.Add("error", Node::String(r.error));
  }
  if (r.decided_by >= 0) {
    n.Add("decidedBy", Node::String(selectors[static_cast<size_t>(r.decided_by)].label));
  }
  n.Add("cost", Node::Int(static_cast<int64_t>(r.cost)));
  return n;
}

// The selectors evaluated, in order: the class's (--class), then EXPR. Prints
// what fails and returns its exit code (a class not in the input, a selector
// that does not compile), or -1 to go on.
int CompileSelectors(const manifest::LoadResult& loaded, const std::string& class_name, const std::string& expression,
                     const cel::DraEnvironment& env, std::vector<Selector>* selectors) {
  if (!class_name.empty()) {
    const api::DeviceClass* found = nullptr;
    const manifest::LoadedObject* found_object = nullptr;
    for (const manifest::LoadedObject& o : loaded.objects) {
      if (const auto* c = std::get_if<api::DeviceClass>(&o.object); c != nullptr && c->metadata.name == class_name) {
        found = c;
        found_object = &o;
      }
    }
    if (found == nullptr) {
      std::fprintf(stderr, "dractl eval: DeviceClass \"%s\" not found in the input\n", class_name.c_str());
      return kExitInputError;
    }
    for (size_t i = 0; i < found->spec.selectors.size(); ++i) {
      const api::DeviceSelector& s = found->spec.selectors[i];
      if (!s.cel) continue;
      api::FieldError field;
      field.field = fmt::format("spec.selectors[{}].cel.expression", i);
      manifest::LoadMessage where = ToMessage(*found_object, field);
      where.message.clear();
      selectors->push_back(
          {fmt::format("class {} selector {}", class_name, i), env.Compile(s.cel->expression), where.ToString()});
    }
  }
  if (!expression.empty()) selectors->push_back({"expression", env.Compile(expression), ""});
  bool compile_errors = false;
  for (const Selector& s : *selectors) {
    if (!s.compiled->ok()) {
      if (!s.where.empty()) {
        std::fprintf(stderr, "%s%s\n", s.where.c_str(), s.compiled->error().c_str());
      } else {
        std::fprintf(stderr, "dractl eval: %s: %s\n", s.label.c_str(), s.compiled->error().c_str());
      }
      compile_errors = true;
    }
  }
  return compile_errors ? kExitInputError : -1;
}

// One row per device of every slice read: the selectors in order, the first
// false or error deciding.
std::vector<Row> EvaluateDevices(const manifest::LoadResult& loaded, const cel::DraEnvironment& env,
                                 const std::vector<Selector>& selectors) {
  std::vector<Row> rows;
  cel::EvalScratch scratch;
  for (const manifest::LoadedObject& o : loaded.objects) {
    const auto* slice = std::get_if<api::ResourceSlice>(&o.object);
    if (slice == nullptr) continue;
    const api::ResourceSliceSpec& spec = slice->spec;
    for (const api::Device& device : spec.devices) {
      Row r;
      r.node = NodeOf(spec, device);
      r.driver = spec.driver;
      r.pool = spec.pool.name;
      r.device = device.name;
      r.match = true;
      // The device's attributes are checked once, not once per selector.
      if (Status check = env.CheckDevice(device, scratch); !check.ok()) {
        r.ok = false;
        r.match = false;
        r.error = check.message();
        r.decided_by = 0;
        rows.push_back(std::move(r));
        continue;
      }
      for (size_t i = 0; i < selectors.size(); ++i) {
        StatusOr<bool> m = env.Matches(*selectors[i].compiled, device, spec.driver, scratch, cel::DeviceCheck::kDone);
        r.cost += scratch.cost();
        if (!m.ok()) {
          r.ok = false;
          r.match = false;
          r.error = m.status().message();
          r.decided_by = static_cast<int>(i);
          break;
        }
        if (!*m) {
          r.match = false;
          r.decided_by = static_cast<int>(i);
          break;
        }
      }
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

// -o yaml and -o json: the selectors, every device with its result, and the
// counts.
void PrintStructured(const std::vector<Row>& rows, const std::vector<Selector>& selectors, size_t matched,
                     size_t errors, const std::string& output) {
  using manifest::Node;
  Node root = Node::Mapping();
  Node sel = Node::Sequence();
  for (const Selector& s : selectors) {
    Node n = Node::Mapping();
    n.Add("name", Node::String(s.label));
    n.Add("expression", Node::String(s.compiled->expression()));
    sel.Push(n);
  }
  root.Add("selectors", sel);
  Node devices = Node::Sequence();
  for (const Row& r : rows) devices.Push(RowNode(r, selectors));
  root.Add("devices", devices);
  Node summary = Node::Mapping();
  summary.Add("devices", Node::Int(static_cast<int64_t>(rows.size())));
  summary.Add("matched", Node::Int(static_cast<int64_t>(matched)));
  summary.Add("errors", Node::Int(static_cast<int64_t>(errors)));
  root.Add("summary", summary);
  std::fputs(output == "json" ? (manifest::EmitJson(root, 2) + "\n").c_str() : manifest::EmitYaml(root).c_str(),
             stdout);
}

}  // namespace

int RunEval(std::span<const std::string_view> args) {
  CLI::App app{
      "Evaluates a CEL device selector, or the selectors of a DeviceClass, on "
      "every device of\n"
      "the ResourceSlices read, as kube-scheduler does (Kubernetes 1.37 "
      "StoredExpressions), and\n"
      "lists the devices that match and those whose evaluation failed.\n\n"
      "Exit codes: 0 every device evaluated (matching or not); 1 input errors, "
      "an unknown class,\n"
      "a selector that does not compile, or a device on which evaluation "
      "failed; 2 usage errors.",
      "dractl eval"};
  std::string expression;
  std::string class_name;
  std::vector<std::string> files;
  std::string output = "table";
  bool all = false;
  app.add_option("EXPR", expression,
                 "CEL selector expression, e.g. "
                 "\"device.capacity['gpu.nvidia.com'].memory.compareTo("
                 "quantity('40Gi')) >= 0\"");
  app.add_option("--class", class_name,
                 "use the selectors of this DeviceClass (read from -f); with "
                 "EXPR, EXPR is "
                 "evaluated after them");
  app.add_option("-f,--filename", files, "file, directory or - (stdin); repeatable")->required();
  app.add_option("-o,--output", output, "table, wide, yaml or json")
      ->check(CLI::IsMember({"table", "wide", "yaml", "json"}))
      ->capture_default_str();
  app.add_flag("-a,--all", all, "table output: list the devices that do not match too");
  GateFlags gate_flags;
  AddGateFlags(app, &gate_flags);
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  std::optional<api::FeatureGates> gates = GatesFromFlags("dractl eval", gate_flags.version, gate_flags.gates);
  if (!gates) return kExitUsageError;
  if (expression.empty() && class_name.empty()) {
    std::fprintf(stderr,
                 "dractl eval: error: give a selector expression, "
                 "--class NAME, or both\n"
                 "Run 'dractl eval --help' for usage.\n");
    return kExitUsageError;
  }

  manifest::LoadResult loaded;
  LoadInputs(files, {.keep_trees = true}, &loaded);
  if (int rc = DefaultAndValidate(&loaded, *gates, "dractl eval"); rc >= 0) return rc;

  // The scheduler's environment (alloc/cel_selector.h) with the gates given.
  const alloc::Features features = alloc::Features::FromGates(*gates);
  StatusOr<std::unique_ptr<cel::DraEnvironment>> env =
      cel::DraEnvironment::New({.minor = kDefaultMinor,
                                .new_expressions = false,
                                .consumable_capacity = features.consumable_capacity,
                                .list_type_attributes = features.list_type_attributes});
  if (!env.ok()) {
    std::fprintf(stderr, "dractl eval: internal error: %s\n", env.status().message().c_str());
    return kExitInternalError;
  }

  std::vector<Selector> selectors;
  if (int rc = CompileSelectors(loaded, class_name, expression, **env, &selectors); rc >= 0) return rc;

  std::vector<Row> rows = EvaluateDevices(loaded, **env, selectors);

  size_t matched = 0, errors = 0;
  for (const Row& r : rows) {
    matched += r.ok && r.match;
    errors += !r.ok;
  }
  if (output == "yaml" || output == "json") {
    PrintStructured(rows, selectors, matched, errors, output);
  } else {
    std::vector<const Row*> shown;
    for (const Row& r : rows) {
      if (all || !r.ok || r.match) shown.push_back(&r);
    }
    PrintTable(shown, output == "wide", selectors);
  }
  std::fprintf(stderr, "%zu of %zu devices match; %zu evaluation error%s\n", matched, rows.size(), errors,
               errors == 1 ? "" : "s");
  return errors > 0 ? kExitInputError : kExitOk;
}

}  // namespace dra::cli
