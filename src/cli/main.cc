// dractl: dispatches to one subcommand; each lives in its own file.
#include <cstdio>
#include <exception>
#include <span>
#include <string_view>
#include <vector>

#include "base/suggest.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace {

constexpr const char* kUsage = R"(dractl - Kubernetes Dynamic Resource Allocation engine

Usage: dractl <command> [flags]

Commands:
  validate   check objects as the API server would (plus cross-object checks)
  summary    what a cluster dump holds: nodes, devices per model, classes, claims
  convert    re-print objects as YAML or JSON (normalised, defaulted on request)
  cel        evaluate CEL expressions: `cel run FILE.jsonl` runs conformance vectors
  eval       which devices a CEL selector or a DeviceClass selects
  allocate   allocate claims on a node as kube-scheduler would, and say why not
  schedule   place pending pods on nodes (filters, DRA allocation, scoring)
  explain    why a pending pod does not schedule: causes per node, near misses
  import     convert a trace into DRA objects: `import openb --nodes CSV --pods CSV`
  simulate   replay a trace (the FGD paper's openb experiment) with a policy
  gen        generate synthetic clusters and pods (scheduler_perf shapes)
  discover   the ResourceSlices the DRA drivers would publish on this node (NVML, sysfs)
  serve      schedule live: a secondary scheduler for pods with schedulerName dractl

Inputs (-f) are files, directories (recursive: .yaml .yml .json) or - (stdin),
exactly as `kubectl get ... -o yaml|json` prints them (List objects included).

Exit codes: 0 ok; 1 the input has errors; 2 usage error; 3 internal error (a bug:
please report it with the input); 4 allocate: the claims do not fit the node;
5 discover: partial output (something was skipped, named on stderr); 6 schedule
--fail-on-pending: some pod stays pending.
Limits (each a clear error when exceeded): input 1 GiB per file; 10,000,000
documents per input; nesting 512 levels; YAML alias expansion 1,000,000 nodes per
document; 1,000,000 pods from workloads per input; CEL selectors 10,240 bytes,
estimated cost 1,000,000 (validate), runtime cost 1,000,000 per evaluation, nesting
250 levels; allocator search 50,000,000 steps per node (--max-steps).

Run 'dractl <command> --help' (or 'dractl help <command>') for a command's flags; 'dractl --version' for the version.
)";

struct Command {
  std::string_view name;
  int (*run)(std::span<const std::string_view>);
};

constexpr Command kCommands[] = {
    {"validate", dra::cli::RunValidate},
    {"summary", dra::cli::RunSummary},
    {"convert", dra::cli::RunConvert},
    {"cel", dra::cli::RunCel},
    {"eval", dra::cli::RunEval},
    {"allocate", dra::cli::RunAllocate},
    {"schedule", dra::cli::RunSchedule},
    {"explain", dra::cli::RunExplain},
    {"import", dra::cli::RunImport},
    {"simulate", dra::cli::RunSimulate},
    {"gen", dra::cli::RunGen},
    {"discover", dra::cli::RunDiscover},
    {"serve", dra::cli::RunServe},
};

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return dra::cli::kExitUsageError;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || (command == "help" && argc == 2)) {
    std::fputs(kUsage, stdout);
    return dra::cli::kExitOk;
  }
  if (command == "--version" || command == "version") {
    std::printf("dractl %s (resource.k8s.io/v1, Kubernetes 1.37 semantics)\n", DRACTL_VERSION);
    return dra::cli::kExitOk;
  }
  std::vector<std::string_view> args;
  for (int i = 2; i < argc; ++i) args.emplace_back(argv[i]);
  // `dractl help CMD ...` is `dractl CMD ... --help`.
  if (command == "help") {
    command = args[0];
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  for (const Command& c : kCommands) {
    if (c.name == command) return c.run(args);
  }
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  std::fprintf(stderr, "dractl: unknown command \"%.*s\"%s\nRun 'dractl --help' for usage.\n",
               static_cast<int>(command.size()), command.data(), dra::DidYouMean(dra::Suggest(command, names)).c_str());
  return dra::cli::kExitUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "dractl: internal error: %s\nThis is a bug in dractl; please report it with the "
                 "command line and input.\n",
                 e.what());
  } catch (...) {
    std::fprintf(stderr, "dractl: internal error (unknown exception); please report it.\n");
  }
  return dra::cli::kExitInternalError;
}
