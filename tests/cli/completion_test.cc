// dractl completion bash|zsh|fish and dractl man (issue #27 item 3), as the
// build installs them (build/share). The expected words are the flags and
// values the commands define (explain's -o is text|yaml|json, gen has four
// subcommands, import one format), run through bash's own completion
// machinery, zsh's completion system in a pseudo-terminal and fish's
// `complete -C` (zsh and fish where installed; scripts/setup installs them),
// and kubectl_complete-dra's Cobra protocol.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/run_command.h"

namespace dra::testing {
namespace {

namespace fs = std::filesystem;

const std::string kBin = DRACTL_BIN;
const std::string kShare = DRA_SHARE_DIR;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What bash completes for the words `line` (the last one being completed).
std::string BashComplete(const std::string& line) {
  // No kubectl on PATH: only what dractl's own flags define is offered.
  const std::string script = "PATH=/nonexistent; source " + ShellQuote(kShare + "/completions/dractl.bash") +
                             "; COMP_WORDS=(" + line +
                             "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); "
                             "COMPREPLY=(); _dractl; echo \"${COMPREPLY[*]}\"";
  CommandResult r = RunCommand("bash -c " + ShellQuote(script));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
  return r.output;
}

TEST(CompletionTest, BashCompletesCommandsFlagsAndValues) {
  EXPECT_EQ(BashComplete("dractl ex"), "explain");
  EXPECT_EQ(BashComplete("dractl explain -o ''"), "text yaml json");
  EXPECT_EQ(BashComplete("dractl explain --pol"), "--policy");
  EXPECT_EQ(BashComplete("dractl explain --policy d"), "dra-pack");
  EXPECT_EQ(BashComplete("dractl schedule --workloads ''"), "expand ignore");
  EXPECT_EQ(BashComplete("dractl simulate re"), "replay");
  EXPECT_EQ(BashComplete("dractl simulate replay --po"), "--pods --policy");
  EXPECT_EQ(BashComplete("dractl gen ''"), "cluster pods mig-cluster mig-pods");
  EXPECT_EQ(BashComplete("dractl import ''"), "openb");
  EXPECT_EQ(BashComplete("dractl completion ''"), "bash zsh fish");
  // A flag that takes a free value completes nothing after it.
  EXPECT_EQ(BashComplete("dractl schedule --seed ''"), "");
  // kubectl-dra completes as dractl; without kubectl no pod names are offered.
  EXPECT_EQ(BashComplete("kubectl-dra schedule --device-choice b"), "best-fit");
  EXPECT_EQ(BashComplete("dractl explain ''"), "");
}

TEST(CompletionTest, EveryCommandOfTheHelpIsCompletedAndHasAManPage) {
  CommandResult help = RunCommand(kBin + " --help");
  ASSERT_EQ(help.exit_code, 0);
  const std::string top = BashComplete("dractl ''");
  std::istringstream lines(help.output.substr(help.output.find("Commands:\n") + 10));
  std::string line;
  int commands = 0;
  while (std::getline(lines, line) && !line.empty()) {
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    EXPECT_TRUE(Contains(" " + top + " ", " " + name + " ")) << name << " not in: " << top;
    EXPECT_TRUE(fs::exists(kShare + "/man/dractl-" + name + ".1")) << name;
    ++commands;
  }
  EXPECT_EQ(commands, 18);
  for (const char* sub : {"simulate-replay", "simulate-cluster", "gen-cluster", "cel-run"}) {
    EXPECT_TRUE(fs::exists(kShare + "/man/dractl-" + std::string(sub) + ".1")) << sub;
  }
}

TEST(CompletionTest, ManPagesCarryTheHelpText) {
  const std::string page = Read(kShare + "/man/dractl-explain.1");
  EXPECT_TRUE(page.starts_with(".TH DRACTL-EXPLAIN 1")) << page.substr(0, 80);
  EXPECT_TRUE(Contains(page, ".SH NAME\ndractl\\-explain \\- why a pending pod does not schedule")) << page;
  EXPECT_TRUE(Contains(page, ".SH SYNOPSIS\n.nf\ndractl explain \\-f cluster/ NAMESPACE/POD")) << page;
  // The flag's help text, as `dractl explain --help` prints it.
  EXPECT_TRUE(Contains(RunCommand(kBin + " explain --help").output, "explain every pending pod that stays pending"));
  EXPECT_TRUE(Contains(page, ".TP\n\\fB\\-\\-all\\-pending\\fR\nexplain every pending pod that stays pending\n"))
      << page;
  EXPECT_TRUE(Contains(page, "\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIVALUE\\fR\n")) << page;
  EXPECT_TRUE(Contains(page, "(one of: text, yaml, json)")) << page;
  EXPECT_TRUE(Contains(page, ".SH SEE ALSO\n\\fBdractl\\fR(1)")) << page;
  const std::string top = Read(kShare + "/man/dractl.1");
  EXPECT_TRUE(Contains(top, "kubectl\\-dra")) << top;
  EXPECT_TRUE(Contains(top, "Exit codes: 0 ok; 1 the input has errors")) << top;
  // man renders it, where man is installed.
  if (RunCommand("command -v man").exit_code == 0) {
    CommandResult shown = RunCommand("MANWIDTH=80 man -l " + ShellQuote(kShare + "/man/dractl-explain.1") + " | cat");
    EXPECT_EQ(shown.exit_code, 0) << shown.output;
    EXPECT_TRUE(Contains(shown.output, "--all-pending")) << shown.output;
  }
}

// kubectl_complete-dra speaks Cobra's protocol (kubectl's plugin_completion.go
// relays it): candidates one a line, "word<TAB>description" allowed, then
// ":<directive>" (4: no file names; 0: the shell completes files).
std::string PluginComplete(const std::string& words) {
  const std::string link = fs::path(kBin).parent_path().string() + "/kubectl_complete-dra";
  CommandResult r = RunCommand(ShellQuote(link) + " " + words + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string out;  // the words alone, without descriptions
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) out += line.substr(0, line.find('\t')) + " ";
  if (!out.empty()) out.pop_back();
  return out;
}

TEST(CompletionTest, KubectlPluginCompletion) {
  EXPECT_EQ(PluginComplete("ex"), "explain :4");
  EXPECT_EQ(PluginComplete("''"), PluginComplete(""));
  EXPECT_EQ(PluginComplete("explain -o ''"), "text yaml json :4");
  EXPECT_EQ(PluginComplete("explain --pol"), "--policy :4");
  EXPECT_EQ(PluginComplete("schedule --policy d"), "dra-pack :4");
  EXPECT_EQ(PluginComplete("simulate re"), "replay :4");
  EXPECT_EQ(PluginComplete("gen ''"), "cluster pods mig-cluster mig-pods :4");
  // -f takes a file: nothing offered, the shell completes file names.
  EXPECT_EQ(PluginComplete("schedule -f ''"), ":0");
  EXPECT_EQ(PluginComplete("schedule --seed ''"), ":4");
  // Commands come with their summary after a tab.
  CommandResult r = RunCommand(ShellQuote(fs::path(kBin).parent_path().string() + "/kubectl_complete-dra") + " sched");
  EXPECT_TRUE(r.output.starts_with("schedule\t")) << r.output;
}

// What zsh's completion system offers for `line` (a TAB after it), through
// tests/cli/zsh_complete.zsh: an interactive zsh in a pseudo-terminal with
// _dractl on fpath, as a user's zsh loads it.
std::string ZshComplete(const std::string& line) {
  const std::string out = (fs::temp_directory_path() / ("dractl-zsh-" + std::to_string(::getpid()))).string();
  CommandResult r = RunCommand("PATH=" + ShellQuote(fs::path(kBin).parent_path().string()) + ":/usr/bin:/bin zsh " +
                               ShellQuote(std::string(DRA_SOURCE_DIR) + "/tests/cli/zsh_complete.zsh") + " " +
                               ShellQuote(line) + " " + ShellQuote(kShare + "/completions") + " " + ShellQuote(out));
  fs::remove(out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string words;
  std::istringstream lines(r.output);
  for (std::string w; std::getline(lines, w);) words += (words.empty() ? "" : " ") + w;
  return words;
}

TEST(CompletionTest, ZshAndFishScripts) {
  const std::string zsh = Read(kShare + "/completions/_dractl");
  EXPECT_TRUE(zsh.starts_with("#compdef dractl kubectl-dra\n")) << zsh.substr(0, 80);
  EXPECT_TRUE(Contains(zsh, "complete -F _dractl_bash dractl kubectl-dra")) << zsh;
  if (RunCommand("command -v zsh").exit_code == 0) {
    CommandResult syntax = RunCommand("zsh -n " + ShellQuote(kShare + "/completions/_dractl"));
    EXPECT_EQ(syntax.exit_code, 0) << syntax.output;
    // zsh's completion system itself, autoloading _dractl from fpath.
    EXPECT_EQ(ZshComplete("dractl ex"), "explain");
    EXPECT_EQ(ZshComplete("dractl explain -o "), "text yaml json");
    EXPECT_EQ(ZshComplete("kubectl-dra schedule --policy d"), "dra-pack");
  }
  if (RunCommand("command -v fish").exit_code != 0) {
    GTEST_SKIP() << "fish is not installed: its completions are not exercised";
  }
  CommandResult fish = RunCommand("fish -c " + ShellQuote("source " + kShare +
                                                          "/completions/dractl.fish; complete -C 'dractl explain -o '; "
                                                          "complete -C 'dractl gen '"));
  EXPECT_EQ(fish.exit_code, 0) << fish.output;
  for (const char* word : {"text\t", "yaml\t", "json\t", "cluster\t", "mig-pods\t"}) {
    EXPECT_TRUE(Contains(fish.output, word)) << word << "\n" << fish.output;
  }
}

}  // namespace
}  // namespace dra::testing
