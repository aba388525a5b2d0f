// The subcommand table and the notes of `dractl --help` (commands.h).
#include "cli/commands.h"

namespace dra::cli {
namespace {

constexpr CommandEntry kCommands[] = {
    {"validate", "check objects as the API server would (plus cross-object checks)", RunValidate},
    {"summary", "what a cluster dump holds: nodes, devices per model, classes, claims", RunSummary},
    {"convert", "re-print objects as YAML or JSON (normalised, defaulted on request)", RunConvert},
    {"cel", "evaluate CEL expressions: `cel run FILE.jsonl` runs conformance vectors", RunCel},
    {"eval", "which devices a CEL selector or a DeviceClass selects", RunEval},
    {"allocate", "allocate claims on a node as kube-scheduler would, and say why not", RunAllocate},
    {"schedule", "place pending pods on nodes (filters, DRA allocation, scoring)", RunSchedule},
    {"explain", "why a pending pod does not schedule: causes per node, near misses", RunExplain},
    {"audit", "what in a cluster's DRA setup makes pods fail: classes, selectors, claims, pools", RunAudit},
    {"plan", "which nodes of which node groups to add so that the pending pods fit", RunPlan},
    {"migrate", "rewrite device-plugin workloads (nvidia.com/gpu + GFD labels) for DRA; --check", RunMigrate},
    {"import", "convert a trace into DRA objects: `import openb --nodes CSV --pods CSV`", RunImport},
    {"simulate", "replay a trace (the FGD paper's openb experiment) with a policy", RunSimulate},
    {"gen", "generate synthetic clusters and pods (scheduler_perf shapes)", RunGen},
    {"discover", "the ResourceSlices the DRA drivers would publish on this node (NVML, sysfs)", RunDiscover},
    {"serve", "schedule live: a secondary scheduler for pods with schedulerName dractl", RunServe},
    {"completion", "print a shell completion script: `completion bash|zsh|fish`", RunCompletion},
    {"man", "write the manual pages (dractl.1 and one per command) into a folder", RunMan},
};

}  // namespace

std::span<const CommandEntry> Commands() { return kCommands; }

const char* const kUsageNotes = R"(Inputs (-f) are files, directories (recursive: .yaml .yml .json) or - (stdin),
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
)";

}  // namespace dra::cli
