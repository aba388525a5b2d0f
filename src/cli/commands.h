// One entry point per subcommand, each defined in cli/<name>.cc. `args` are
// the arguments after the subcommand name. Each returns the process exit code.
#pragma once

#include <span>
#include <string_view>

namespace dra::cli {

int RunValidate(std::span<const std::string_view> args);
int RunSummary(std::span<const std::string_view> args);
int RunConvert(std::span<const std::string_view> args);
int RunCel(std::span<const std::string_view> args);
int RunEval(std::span<const std::string_view> args);
int RunAllocate(std::span<const std::string_view> args);
int RunSchedule(std::span<const std::string_view> args);
int RunExplain(std::span<const std::string_view> args);
int RunAudit(std::span<const std::string_view> args);
int RunPlan(std::span<const std::string_view> args);
int RunMigrate(std::span<const std::string_view> args);
int RunImport(std::span<const std::string_view> args);
int RunSimulate(std::span<const std::string_view> args);
// `dractl simulate replay ...`, reached through RunSimulate.
int RunSimulateReplay(std::span<const std::string_view> args);
int RunSimulateCluster(std::span<const std::string_view> args);
int RunGen(std::span<const std::string_view> args);
int RunDiscover(std::span<const std::string_view> args);
int RunServe(std::span<const std::string_view> args);
// `dractl completion bash|zsh|fish` and `dractl man DIR` (completion.cc).
int RunCompletion(std::span<const std::string_view> args);
int RunMan(std::span<const std::string_view> args);
// kubectl's completion of the plugin: run as kubectl_complete-dra (a link to
// dractl) with the words after `kubectl dra`, the last one being completed;
// prints the candidates, one a line, then Cobra's ":<directive>".
int RunPluginCompletion(std::span<const std::string_view> args);

// The subcommands, in the order `dractl --help` lists them.
struct CommandEntry {
  std::string_view name;
  std::string_view summary;  // one line for `dractl --help`
  int (*run)(std::span<const std::string_view> args);
};
std::span<const CommandEntry> Commands();

// The paragraphs of `dractl --help` after the command list: inputs, exit
// codes, limits (also the man page's).
extern const char* const kUsageNotes;

}  // namespace dra::cli
