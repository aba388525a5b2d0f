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
int RunImport(std::span<const std::string_view> args);
int RunSimulate(std::span<const std::string_view> args);
// `dractl simulate replay ...`, reached through RunSimulate.
int RunSimulateReplay(std::span<const std::string_view> args);
int RunSimulateCluster(std::span<const std::string_view> args);
int RunGen(std::span<const std::string_view> args);
int RunDiscover(std::span<const std::string_view> args);
int RunServe(std::span<const std::string_view> args);

}  // namespace dra::cli
