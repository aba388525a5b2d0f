// Pieces every dractl subcommand shares: exit codes, loading -f inputs, and
// printing messages.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "api/features.h"
#include "api/validation.h"
#include "base/release.h"
#include "base/status.h"
#include "manifest/loader.h"

namespace dra::cli {

// Exit codes of every subcommand (documented in `dractl --help` and the README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;     // the input has errors
inline constexpr int kExitUsageError = 2;     // bad flags or arguments
inline constexpr int kExitInternalError = 3;  // a bug in dractl
inline constexpr int kExitUnsatisfiable = 4;  // allocate: the claims do not fit the node
// 5 is discover's partial output (discover.cc).
inline constexpr int kExitPending = 6;  // schedule --fail-on-pending: some pod stays pending

// Parses `args` (without the program and subcommand names) into `app`.
// Returns -1 when the command should run, else the exit code to return now
// (0 after --help, kExitUsageError after a usage error, which it prints).
int ParseArgs(CLI::App& app, std::span<const std::string_view> args);

// What a command's parser accepts, for shell completion and man pages
// (completion.cc): ParseArgs fills it instead of parsing while a sink is set.
struct OptionInfo {
  std::vector<std::string> names;  // "-f", "--filename"; empty for a positional
  std::string positional;          // the positional's name ("pod")
  bool takes_value = false;
  bool file = false;                 // the value is a path
  std::vector<std::string> choices;  // the values CLI::IsMember allows
  std::string placeholder;           // FILE, N, VALUE
  std::string description;
  std::string default_value;
};
struct AppInfo {
  std::string path;  // "dractl simulate replay"
  std::string description;
  std::vector<OptionInfo> options;
  std::vector<AppInfo> subcommands;
};
// While `sink` is not null, ParseArgs appends the description of each app it
// is given to it and returns kExitOk without parsing or running anything.
void SetDescribeSink(std::vector<AppInfo>* sink);

// Writes `text` to `path` (created or truncated). On failure: "cannot write
// PATH: <strerror>", the file possibly cut short.
Status WriteTextFile(const std::string& path, std::string_view text);

// A validator for unsigned integer flags (--seed, --max-steps): a decimal
// integer below 2^64. CLI11 alone reads "-1" as 2^64-1, "1e99" as an error
// only sometimes and "010" as octal.
CLI::Validator NonNegativeInteger();

// Loads every path in `paths` (files, directories, "-") into `result`.
void LoadInputs(const std::vector<std::string>& paths, const manifest::LoadOptions& options,
                manifest::LoadResult* result);

// Prints each message of `result` to stderr, one a line.
void PrintMessages(const manifest::LoadResult& result);

// For callers that run commands in-process (the Python module, src/python):
// manifests given as text instead of files. While `inputs` is set, a path
// given to LoadInputs that equals an input's name is loaded from its text,
// and messages name it as their file.
struct InlineInput {
  std::string name;  // "<input 1>"
  std::string text;  // YAML or JSON
};
void SetInlineInputs(const std::vector<InlineInput>* inputs);
// The text of the inline input named `path`, or null (also when none are set).
const std::string* FindInlineInput(const std::string& path);
// While `sink` is set, PrintMessages also appends each message it prints to
// it (the structured form of the lines on stderr).
void SetMessageSink(std::vector<manifest::LoadMessage>* sink);

// Reads the files of one of our own formats (--node-groups, --faults): each
// path (a file, a folder, "-", or an inline input) is read as -f reads
// manifests and its text handed to `parse`, which adds its problems to the
// messages; they are printed. Returns -1, or kExitInputError after
// "COMMAND: N errors in FLAG (see above)".
using ParseOwnFormat =
    std::function<void(std::string_view text, const std::string& file, std::vector<manifest::LoadMessage>* messages)>;
int ReadOwnFormat(const char* command, const char* flag, const std::vector<std::string>& paths,
                  const ParseOwnFormat& parse);

// `command` and `args` as a shell would take them back: words of safe
// characters as they are, others in single quotes.
std::string CommandLine(std::string_view command, std::span<const std::string_view> args);

// Prints `roots` as kubectl prints several objects: YAML documents, or for
// "json" one v1 List (keys sorted, as kubectl's JSON).
void PrintDocuments(std::vector<manifest::Node> roots, std::string_view format);

// "12 objects from 3 files (2 skipped: 1 apps/v1 Deployment, 1 v1 Service)".
std::string DescribeLoad(const manifest::LoadResult& result);

// A validation error of `loaded` as a message at the field's line (when the
// object was loaded with keep_trees) or the object's.
manifest::LoadMessage ToMessage(const manifest::LoadedObject& loaded, const api::FieldError& error);

// The feature gates of release `version` ("1.37") with `overrides` (the
// --feature-gates flag, "A=true,B=false") applied. On a bad value prints
// "COMMAND: --flag: message" to stderr and returns nullopt (a usage error).
std::optional<api::FeatureGates> GatesFromFlags(std::string_view command, const std::string& version,
                                                const std::string& overrides);

// --kubernetes-version and --feature-gates, the same on every command that
// reads manifests.
struct GateFlags {
  std::string version{kDefaultRelease};
  std::string gates;
};
void AddGateFlags(CLI::App& app, GateFlags* flags);

// A problem of a pod made from a workload is a problem of the workload's pod
// template: "Deployment ml/vllm: spec.template.spec.tolerations[0]: ...", at
// the template's line.
manifest::LoadMessage WorkloadTemplateMessage(const manifest::LoadedWorkload& w, const api::FieldError& e);

// A workload's pod template as the pod its controller would create (named
// "<workload>-template", defaulted), and what the API server's validation
// says of it (it validates the template as a PodTemplateSpec; problems with
// the pod's own name are left out: the controller names its pods).
struct TemplatePod {
  api::Object pod;
  std::vector<api::FieldError> errors;
};
TemplatePod ValidateWorkloadTemplate(const api::Workload& workload, const api::FeatureGates& gates);

// What the API server does to every loaded object before anyone sees it:
// defaults, then validation with `gates`; workloads' pod templates too.
// Errors and warnings (a gated field the server would drop, naming the gate)
// join result->messages; all messages are printed. Returns -1 when there is no error, else
// kExitInputError ("COMMAND: N input errors (see above)" printed).
int DefaultAndValidate(manifest::LoadResult* result, const api::FeatureGates& gates, std::string_view command);

}  // namespace dra::cli
