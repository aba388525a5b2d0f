// dractl: dispatches to one subcommand; each lives in its own file.
// Installed also as kubectl-dra (a link to the same binary), a kubectl plugin:
// `kubectl dra CMD` is `dractl CMD`, reading the cluster of kubectl's
// kubeconfig and context when no -f is given. As kubectl_complete-dra (another
// link) it completes `kubectl dra ...` for kubectl (completion.cc).
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/suggest.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace {

// `dractl --help`: the command list comes from the table in commands.cc.
std::string Usage() {
  std::string out =
      "dractl - Kubernetes Dynamic Resource Allocation engine\n\nUsage: dractl <command> [flags]\n\nCommands:\n";
  for (const dra::cli::CommandEntry& c : dra::cli::Commands()) {
    out += "  " + std::string(c.name) + std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ') +
           std::string(c.summary) + "\n";
  }
  out += "\n";
  out += dra::cli::kUsageNotes;
  out +=
      "\nRun 'dractl <command> --help' (or 'dractl help <command>') for a command's flags; 'dractl --version' "
      "for the version.\n";
  return out;
}

constexpr const char* kPluginUsage = R"(kubectl dra - Kubernetes Dynamic Resource Allocation engine, as a kubectl plugin

Usage: kubectl dra <command> [flags]

The commands and flags are those of dractl (below). schedule, explain and
simulate cluster read the cluster of kubectl's configuration ($KUBECONFIG or
~/.kube/config, --kubeconfig FILE, --context NAME) unless -f alone gives files:

  kubectl dra explain -n ml trainer-0
  kubectl dra schedule --context staging -f new-pods.yaml   (the cluster plus new pods)
  kubectl dra explain -f dump.yaml ml/trainer-0             (a dump only)
  kubectl dra validate -f manifests/

)";

// The binary's name without its directory.
std::string_view BaseName(const char* argv0) {
  std::string_view name = argv0 == nullptr ? "" : argv0;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name;
}

// kubectl-dra: the commands that read a cluster read the live one unless the
// arguments give only files (-f without --context); --context alone means the
// API server, as it does for kubectl.
void AddPluginDefaults(std::string_view command, std::vector<std::string_view>& args) {
  const bool cluster_command =
      command == "schedule" || command == "explain" || (command == "simulate" && !args.empty() && args[0] == "cluster");
  if (!cluster_command) return;
  const auto given = [&](std::initializer_list<std::string_view> flags) {
    return std::any_of(args.begin(), args.end(), [&](std::string_view a) {
      for (std::string_view flag : flags) {
        if (a == flag || (a.size() > flag.size() && a.starts_with(flag) && a[flag.size()] == '=')) return true;
        if (flag == "-f" && a.size() > 2 && a.starts_with("-f")) return true;  // -fFILE
      }
      return false;
    });
  };
  if (given({"--live", "--kubeconfig", "-h", "--help"})) return;
  if (given({"-f", "--filename"}) && !given({"--context"})) return;
  args.emplace_back("--live");
}

int Main(int argc, char** argv) {
  // kubectl_complete-dra: kubectl's completion of `kubectl dra ...`.
  if (BaseName(argc > 0 ? argv[0] : nullptr) == "kubectl_complete-dra") {
    std::vector<std::string_view> words(argv + 1, argv + argc);
    return dra::cli::RunPluginCompletion(words);
  }
  const bool plugin = BaseName(argc > 0 ? argv[0] : nullptr) == "kubectl-dra";
  if (argc < 2) {
    if (plugin) std::fputs(kPluginUsage, stderr);
    std::fputs(Usage().c_str(), stderr);
    return dra::cli::kExitUsageError;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || (command == "help" && argc == 2)) {
    if (plugin) std::fputs(kPluginUsage, stdout);
    std::fputs(Usage().c_str(), stdout);
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
  if (plugin) AddPluginDefaults(command, args);
  for (const dra::cli::CommandEntry& c : dra::cli::Commands()) {
    if (c.name == command) return c.run(args);
  }
  std::vector<std::string> names;
  for (const dra::cli::CommandEntry& c : dra::cli::Commands()) names.emplace_back(c.name);
  std::fprintf(stderr, "dractl: unknown command \"%.*s\"%s\nRun 'dractl --help' for usage.\n",
               static_cast<int>(command.size()), command.data(), dra::DidYouMean(dra::Suggest(command, names)).c_str());
  return dra::cli::kExitUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  // Where dractl is built without mimalloc (DRA_MIMALLOC, the sanitizer
  // builds), glibc's malloc: the commands copy large snapshots and free them
  // again (plan schedules whole clusters several times), and its defaults
  // map and unmap every block over 128 KiB and give the heap's top back past
  // 128 KiB, so each copy pays page faults anew (10% of `dractl plan` at
  // 10,000 pods). With mimalloc linked, this tunes an allocator not in use.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
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
