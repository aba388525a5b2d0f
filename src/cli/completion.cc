// dractl completion bash|zsh|fish and dractl man DIR: shell completion and
// manual pages made from the commands' own parsers (ParseArgs in describe
// mode, common.h), so that they cannot drift from the flags and help texts.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace dra::cli {
namespace {

// Every command's parser, described: the table's commands, then the
// subcommands reached by hand-written dispatch (simulate replay, simulate
// cluster). CLI11 subcommands (cel run, gen cluster) come inside their parent.
std::vector<AppInfo> DescribeAll() {
  std::vector<AppInfo> apps;
  SetDescribeSink(&apps);
  for (const CommandEntry& c : Commands()) c.run({});
  for (std::string_view sub : {"replay", "cluster"}) {
    const std::string_view args[] = {sub};
    RunSimulate(args);
  }
  SetDescribeSink(nullptr);
  // Flatten CLI11 subcommands into the list, parents first.
  std::vector<AppInfo> flat;
  std::vector<AppInfo> todo(apps.rbegin(), apps.rend());
  while (!todo.empty()) {
    AppInfo app = std::move(todo.back());
    todo.pop_back();
    for (auto it = app.subcommands.rbegin(); it != app.subcommands.rend(); ++it) todo.push_back(*it);
    app.subcommands.clear();
    flat.push_back(std::move(app));
  }
  return flat;
}

// The words after "dractl" that name a command ("simulate replay").
std::string Words(const AppInfo& app) { return app.path.substr(std::string("dractl").size() + 1); }

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The command words that may follow `path` ("dractl" → validate, summary, …).
std::vector<std::string> ChildWords(const std::vector<AppInfo>& apps, const std::string& path) {
  std::vector<std::string> out;
  for (const AppInfo& a : apps) {
    if (a.path.size() > path.size() && a.path.starts_with(path + " ") &&
        a.path.find(' ', path.size() + 1) == std::string::npos) {
      out.push_back(a.path.substr(path.size() + 1));
    }
  }
  return out;
}

bool Named(const OptionInfo& o, std::string_view name) {
  return std::find(o.names.begin(), o.names.end(), name) != o.names.end();
}

// Values kubectl knows, completed where kubectl completes them: contexts,
// namespaces, pods as namespace/name (only when kubectl is installed).
constexpr const char* kBashKubectl = R"(_dractl_kubectl() {
  command -v kubectl >/dev/null 2>&1 || return 0
  case "$1" in
    contexts) kubectl config get-contexts -o name 2>/dev/null ;;
    namespaces) kubectl get namespaces -o 'jsonpath={.items[*].metadata.name}' 2>/dev/null ;;
    pods) kubectl get pods -A -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{" "}{end}' \
            2>/dev/null ;;
  esac
}
)";

std::string BashValueCase(const OptionInfo& o) {
  std::string pattern = Join(o.names, "|");
  if (!o.choices.empty()) {
    return "        " + pattern + ") COMPREPLY=($(compgen -W \"" + Join(o.choices, " ") +
           "\" -- \"$cur\")); return ;;\n";
  }
  if (Named(o, "--context")) {
    return "        " + pattern +
           ") COMPREPLY=($(compgen -W \"$(_dractl_kubectl contexts)\" -- \"$cur\")); return ;;\n";
  }
  if (Named(o, "--namespace")) {
    return "        " + pattern +
           ") COMPREPLY=($(compgen -W \"$(_dractl_kubectl namespaces)\" -- \"$cur\")); return ;;\n";
  }
  if (o.file)
    return "        " + pattern + ") compopt -o filenames; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  return "        " + pattern + ") return ;;\n";  // a free value
}

// `function` names the completion function: _dractl for bash; zsh autoloads
// _dractl from its file, so there the bash function is _dractl_bash.
std::string Bash(const std::vector<AppInfo>& apps, const std::string& function) {
  std::string out = "# bash completion for dractl and kubectl-dra (made by `dractl completion`; dractl " +
                    std::string(DRACTL_VERSION) + ")\n";
  out += kBashKubectl;
  out += function +
         "() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" path=dractl w i\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n    w=\"${COMP_WORDS[i]}\"\n    case \"$path $w\" in\n";
  std::vector<std::string> paths;
  paths.reserve(apps.size());
  for (const AppInfo& a : apps) paths.push_back("\"" + a.path + "\"");
  out += "      " + Join(paths, "|") + ") path=\"$path $w\" ;;\n    esac\n  done\n";
  out += "  case \"$path\" in\n";
  out += "    dractl)\n      COMPREPLY=($(compgen -W \"" + Join(ChildWords(apps, "dractl"), " ") +
         " help --help --version\" -- \"$cur\")) ;;\n";
  for (const AppInfo& a : apps) {
    out += "    \"" + a.path + "\")\n      case \"$prev\" in\n";
    std::vector<std::string> flags;
    const OptionInfo* positional = nullptr;
    for (const OptionInfo& o : a.options) {
      if (o.names.empty()) {
        if (positional == nullptr) positional = &o;
        continue;
      }
      flags.insert(flags.end(), o.names.begin(), o.names.end());
      if (o.takes_value) out += BashValueCase(o);
    }
    out += "      esac\n";
    out += "      if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"" + Join(flags, " ") +
           "\" -- \"$cur\")); return; fi\n";
    std::string words = Join(ChildWords(apps, a.path), " ");
    if (positional != nullptr && !positional->choices.empty())
      words += (words.empty() ? "" : " ") + Join(positional->choices, " ");
    if (positional != nullptr && positional->positional == "pod") words += "$(_dractl_kubectl pods)";
    if (!words.empty()) out += "      COMPREPLY=($(compgen -W \"" + words + "\" -- \"$cur\"))\n";
    out += "      ;;\n";
  }
  out += "  esac\n}\ncomplete -F " + function + " dractl kubectl-dra\n";
  return out;
}

// fish: one `complete` line per flag, guarded by the command words seen.
std::string FishQuote(std::string text) {
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (text.size() > 70) text = text.substr(0, 67) + "...";
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string Fish(const std::vector<AppInfo>& apps) {
  std::string out = "# fish completion for dractl (made by `dractl completion fish`; dractl " +
                    std::string(DRACTL_VERSION) + ")\ncomplete -c dractl -f\n";
  std::map<std::string, std::string> summaries;
  for (const CommandEntry& c : Commands()) summaries[std::string(c.name)] = std::string(c.summary);
  for (const AppInfo& a : apps) {
    const std::string words = Words(a);
    const size_t space = words.rfind(' ');
    const std::string parent = space == std::string::npos ? "" : words.substr(0, space);
    const std::string last = space == std::string::npos ? words : words.substr(space + 1);
    // This command's own word, offered after its parent's.
    const std::string parent_condition =
        parent.empty() ? "__fish_use_subcommand" : "__fish_seen_subcommand_from " + parent;
    const std::string summary = summaries.count(words) ? summaries[words] : a.description;
    out += "complete -c dractl -n '" + parent_condition + "' -a " + last + " -d " + FishQuote(summary) + "\n";
    // Flags: after every word of the path, and (for a parent such as
    // simulate) not after one of its own subcommands.
    std::string condition;
    size_t start = 0;
    while (start <= words.size()) {
      size_t end = words.find(' ', start);
      if (end == std::string::npos) end = words.size();
      condition += (condition.empty() ? "" : "; and ") + std::string("__fish_seen_subcommand_from ") +
                   words.substr(start, end - start);
      start = end + 1;
    }
    const std::vector<std::string> children = ChildWords(apps, a.path);
    if (!children.empty()) condition += "; and not __fish_seen_subcommand_from " + Join(children, " ");
    for (const OptionInfo& o : a.options) {
      if (o.names.empty()) {
        if (!o.choices.empty()) {
          out += "complete -c dractl -n '" + condition + "' -a " + FishQuote(Join(o.choices, " ")) + "\n";
        }
        continue;
      }
      std::string line = "complete -c dractl -n '" + condition + "'";
      for (const std::string& n : o.names) line += (n.starts_with("--") ? " -l " + n.substr(2) : " -s " + n.substr(1));
      if (o.takes_value) {
        if (!o.choices.empty()) {
          line += " -x -a " + FishQuote(Join(o.choices, " "));
        } else if (o.file) {
          line += " -r -F";
        } else if (Named(o, "--context")) {
          line += " -x -a '(kubectl config get-contexts -o name 2>/dev/null)'";
        } else if (Named(o, "--namespace")) {
          line += " -x -a '(kubectl get namespaces -o name 2>/dev/null | string replace namespace/ \"\")'";
        } else {
          line += " -x";
        }
      }
      out += line + " -d " + FishQuote(o.description) + "\n";
    }
  }
  return out;
}

// roff: backslashes doubled, hyphens as \-, and a line that would start with
// '.' or '\'' escaped.
std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string ManPage(const AppInfo& app, const std::vector<AppInfo>& apps) {
  std::string name = app.path;
  std::replace(name.begin(), name.end(), ' ', '-');
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; });
  std::string summary = app.description.substr(0, app.description.find('\n'));
  for (const CommandEntry& c : Commands()) {
    if (app.path == "dractl " + std::string(c.name)) summary = std::string(c.summary);
  }
  std::string out = ".TH " + upper + " 1 \"\" \"dractl " + std::string(DRACTL_VERSION) + "\" \"dractl manual\"\n";
  out += ".SH NAME\n" + Roff(name) + " \\- " + Roff(summary) + "\n";
  // Synopsis: the description's example lines ("  dractl explain ..."), else the bare form.
  std::vector<std::string> synopsis;
  std::string body;
  size_t start = 0;
  while (start < app.description.size()) {
    size_t end = app.description.find('\n', start);
    if (end == std::string::npos) end = app.description.size();
    const std::string line = app.description.substr(start, end - start);
    if (line.starts_with("  dractl ")) {
      synopsis.push_back(line.substr(2));
    } else {
      body += line + "\n";
    }
    start = end + 1;
  }
  if (synopsis.empty()) synopsis.push_back(app.path + " [flags]");
  out += ".SH SYNOPSIS\n";
  for (const std::string& s : synopsis) out += ".nf\n" + Roff(s) + "\n.fi\n";
  out += ".SH DESCRIPTION\n" + Roff(body);
  const std::vector<std::string> children = ChildWords(apps, app.path);
  if (!children.empty()) {
    out += ".SH COMMANDS\n";
    for (const std::string& c : children) {
      std::string page = app.path + " " + c;
      std::replace(page.begin(), page.end(), ' ', '-');
      out += ".TP\n\\fB" + Roff(c) + "\\fR\nsee \\fB" + Roff(page) + "\\fR(1)\n";
    }
  }
  out += ".SH OPTIONS\n";
  for (const OptionInfo& o : app.options) {
    std::string head;
    if (o.names.empty()) {
      head = "\\fI" + Roff(o.positional) + "\\fR";
    } else {
      for (const std::string& n : o.names) head += (head.empty() ? "" : ", ") + ("\\fB" + Roff(n) + "\\fR");
      if (o.takes_value) head += " \\fI" + Roff(o.placeholder) + "\\fR";
    }
    std::string text = o.description;
    if (!o.choices.empty()) text += " (one of: " + Join(o.choices, ", ") + ")";
    if (!o.default_value.empty()) text += " (default " + o.default_value + ")";
    out += ".TP\n" + head + "\n" + Roff(text) + "\n";
  }
  out += ".SH EXIT STATUS AND LIMITS\n" + Roff(kUsageNotes);
  if (app.path != "dractl") out += ".SH SEE ALSO\n\\fBdractl\\fR(1)\n";
  return out;
}

std::string TopManPage(const std::vector<AppInfo>& apps) {
  AppInfo top{.path = "dractl",
              .description =
                  "Kubernetes Dynamic Resource Allocation engine: validates DRA objects as the API "
                  "server does, allocates and schedules as kube-scheduler does, explains pending pods, "
                  "simulates clusters and traces, discovers devices and schedules live. Installed also "
                  "as kubectl-dra, a kubectl plugin: `kubectl dra CMD` reads the cluster of kubectl's "
                  "configuration when no -f gives files.",
              .options = {},
              .subcommands = {}};
  OptionInfo help;
  help.names = {"-h", "--help"};
  help.description = "print the usage and the command list";
  OptionInfo version;
  version.names = {"--version"};
  version.description = "print the version";
  top.options = {help, version};
  std::string page = ManPage(top, apps);
  return page;
}

// One line of a description: the first line, at most 60 characters.
std::string Short(std::string text) {
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// The words kubectl prints for `query` ("get namespaces ..."), with the
// --kubeconfig and --context given among `args`; none if kubectl fails. The
// plugin's completion runs under kubectl, so kubectl is on PATH.
std::vector<std::string> KubectlWords(std::span<const std::string_view> args, const std::string& query) {
  std::string command = "kubectl";
  for (size_t i = 0; i + 2 < args.size(); ++i) {  // the last word is the one being completed
    if (args[i] == "--kubeconfig" || args[i] == "--context") {
      std::string value(args[i + 1]);
      if (value.find('\'') != std::string::npos) continue;
      command += " " + std::string(args[i]) + " '" + value + "'";
    }
  }
  command += " " + query + " 2>/dev/null";
  std::vector<std::string> words;
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return words;
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) text.append(buffer, n);
  if (::pclose(p) != 0) return {};
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find_first_of(" \n", start);
    if (end != start) words.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return words;
}

// Cobra's ShellCompDirective values (github.com/spf13/cobra completions.go),
// which kubectl relays from a plugin's completion executable.
constexpr int kDirectiveDefault = 0;  // the shell may complete file names
constexpr int kDirectiveNoFileComp = 4;

}  // namespace

int RunPluginCompletion(std::span<const std::string_view> args) {
  // kubectl passes the plugin's arguments; the last is the word being
  // completed (empty for a new word).
  const std::vector<AppInfo> apps = DescribeAll();
  const std::string_view partial = args.empty() ? std::string_view() : args.back();
  std::string path = "dractl";
  std::string_view prev;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string next = path + " " + std::string(args[i]);
    if (std::any_of(apps.begin(), apps.end(), [&](const AppInfo& a) { return a.path == next; })) path = next;
    prev = args[i];
  }
  const AppInfo* app = nullptr;
  for (const AppInfo& a : apps) {
    if (a.path == path) app = &a;
  }
  std::vector<std::string> out;  // "word" or "word\tdescription"
  int directive = kDirectiveNoFileComp;
  auto offer = [&](const std::string& word, const std::string& description) {
    if (word.starts_with(partial)) out.push_back(description.empty() ? word : word + "\t" + Short(description));
  };
  const OptionInfo* value_of = nullptr;
  if (app != nullptr && prev.starts_with("-")) {
    for (const OptionInfo& o : app->options) {
      if (o.takes_value && Named(o, prev)) value_of = &o;
    }
  }
  if (value_of != nullptr) {
    for (const std::string& c : value_of->choices) offer(c, "");
    if (value_of->file) directive = kDirectiveDefault;
    if (Named(*value_of, "--context")) {
      for (const std::string& w : KubectlWords(args, "config get-contexts -o name")) offer(w, "");
    }
    if (Named(*value_of, "--namespace")) {
      for (const std::string& w : KubectlWords(args, "get namespaces -o 'jsonpath={.items[*].metadata.name}'")) {
        offer(w, "");
      }
    }
  } else if (app == nullptr) {  // the command itself
    for (const CommandEntry& c : Commands()) offer(std::string(c.name), std::string(c.summary));
  } else if (partial.starts_with("-")) {
    for (const OptionInfo& o : app->options) {
      for (const std::string& n : o.names) offer(n, o.description);
    }
  } else {
    std::map<std::string, std::string> summaries;
    for (const AppInfo& a : apps) summaries[a.path] = a.description;
    for (const std::string& w : ChildWords(apps, path)) offer(w, summaries[path + " " + w]);
    for (const OptionInfo& o : app->options) {
      if (!o.names.empty()) continue;
      for (const std::string& c : o.choices) offer(c, "");
      if (o.positional == "pod") {  // explain: pods as namespace/name
        for (const std::string& w : KubectlWords(
                 args, "get pods -A -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}'")) {
          offer(w, "");
        }
      }
    }
  }
  for (const std::string& line : out) std::printf("%s\n", line.c_str());
  std::printf(":%d\n", directive);
  return kExitOk;
}

int RunCompletion(std::span<const std::string_view> args) {
  CLI::App app{
      "Prints a shell completion script for dractl (and kubectl-dra): commands, flags, the values\n"
      "of flags with a fixed set, files, and where kubectl is installed, contexts, namespaces and\n"
      "pods (explain). Load it with:\n"
      "  dractl completion bash > /etc/bash_completion.d/dractl   (or: source <(dractl completion bash))\n"
      "  dractl completion zsh > \"${fpath[1]}/_dractl\"           (or: source <(dractl completion zsh))\n"
      "  dractl completion fish > ~/.config/fish/completions/dractl.fish",
      "dractl completion"};
  std::string shell;
  app.add_option("shell", shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  const std::vector<AppInfo> apps = DescribeAll();
  std::string script;
  if (shell == "bash") {
    script = Bash(apps, "_dractl");
  } else if (shell == "zsh") {
    // zsh runs the bash completion through its bashcompinit layer. Sourced,
    // the script registers it; autoloaded from fpath as _dractl (the first
    // completion of a session), it also completes the word at hand.
    script = "#compdef dractl kubectl-dra\nautoload -U +X bashcompinit && bashcompinit\n" + Bash(apps, "_dractl_bash") +
             "if [[ \"${funcstack[1]}\" == _dractl ]]; then _bash_complete -F _dractl_bash; fi\n";
  } else {
    script = Fish(apps);
  }
  std::fputs(script.c_str(), stdout);
  return kExitOk;
}

int RunMan(std::span<const std::string_view> args) {
  CLI::App app{
      "Writes the manual pages into DIR: dractl.1 and one page per command (dractl-explain.1,\n"
      "dractl-simulate-replay.1, ...), made from the same text as --help. Read one with\n"
      "  dractl man DIR && man DIR/dractl-explain.1",
      "dractl man"};
  std::string dir;
  app.add_option("dir", dir, "the folder to write into (created if missing)")->required();
  if (int rc = ParseArgs(app, args); rc >= 0) return rc;
  const std::vector<AppInfo> apps = DescribeAll();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "dractl man: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return kExitInputError;
  }
  std::vector<std::pair<std::string, std::string>> pages = {{"dractl", TopManPage(apps)}};
  for (const AppInfo& a : apps) {
    std::string name = a.path;
    std::replace(name.begin(), name.end(), ' ', '-');
    pages.emplace_back(name, ManPage(a, apps));
  }
  for (const auto& [name, text] : pages) {
    const std::string path = (std::filesystem::path(dir) / (name + ".1")).string();
    if (Status s = WriteTextFile(path, text); !s.ok()) {
      std::fprintf(stderr, "dractl man: %s\n", std::string(s.message()).c_str());
      return kExitInputError;
    }
  }
  std::printf("%zu manual pages in %s\n", pages.size(), dir.c_str());
  return kExitOk;
}

}  // namespace dra::cli
