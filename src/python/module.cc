// dractl._core: the Python extension (built by `pip install .`, see
// pyproject.toml and python/dractl/__init__.py). It runs dractl's commands
// in-process, over the same code as the command line: run(argv, inputs)
// gives a command its arguments, manifests as text named like files
// (cli::SetInlineInputs), and returns what it wrote to stdout and stderr,
// its exit code and the input problems it reported (cli::SetMessageSink).
// The Python layer turns those into dicts and exceptions.
//
// Output is captured at the file-descriptor level (stdout and stderr are
// pointed at temporary files for the call), so everything a command prints
// is caught however it prints it; the GIL is held throughout, so no Python
// thread writes to the terminal meanwhile.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "base/version.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "manifest/loader.h"

namespace nb = nanobind;

namespace dra::python {
namespace {

// Points fd `fd` at a temporary file until destroyed, then restores it; the
// text written meanwhile is Text().
class Capture {
 public:
  explicit Capture(int fd) : fd_(fd) {
    Flush();
    file_ = std::tmpfile();
    saved_ = ::dup(fd_);
    if (file_ == nullptr || saved_ < 0 || ::dup2(::fileno(file_), fd_) < 0) {
      throw std::runtime_error("dractl: cannot capture the output of the command");
    }
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  ~Capture() {
    Restore();
    if (file_ != nullptr) std::fclose(file_);
  }

  // Restores the descriptor and returns what was written to it.
  std::string Text() {
    Restore();
    std::string text;
    std::rewind(file_);
    char buffer[1 << 14];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0) text.append(buffer, n);
    return text;
  }

 private:
  static void Flush() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  void Restore() {
    if (saved_ < 0) return;
    Flush();
    ::dup2(saved_, fd_);
    ::close(saved_);
    saved_ = -1;
  }

  int fd_;
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

nb::dict ProblemDict(const manifest::LoadMessage& m) {
  nb::dict d;
  d["severity"] = m.severity == api::Severity::kError ? "error" : "warning";
  d["file"] = m.file;
  d["line"] = m.mark.line;
  d["column"] = m.mark.column;
  d["object"] = m.object;
  d["field"] = m.field;
  d["message"] = m.message;
  return d;
}

// run(argv, inputs) -> (exit code, stdout, stderr, problems)
nb::tuple Run(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (argv.empty()) throw nb::value_error("dractl: no command (the first argument names it, e.g. \"schedule\")");
  const cli::CommandEntry* command = nullptr;
  for (const cli::CommandEntry& c : cli::Commands()) {
    if (c.name == argv[0]) command = &c;
  }
  if (command == nullptr) throw nb::value_error(("dractl: unknown command \"" + argv[0] + "\"").c_str());

  std::vector<cli::InlineInput> inline_inputs;
  for (const auto& [name, text] : inputs) inline_inputs.push_back({name, text});
  std::vector<manifest::LoadMessage> problems;
  std::vector<std::string_view> args(argv.begin() + 1, argv.end());

  int rc = cli::kExitInternalError;
  std::string out, err;
  {
    Capture capture_out(STDOUT_FILENO);
    Capture capture_err(STDERR_FILENO);
    cli::SetInlineInputs(&inline_inputs);
    cli::SetMessageSink(&problems);
    try {
      rc = command->run(std::span<const std::string_view>(args));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dractl: internal error: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "dractl: internal error (unknown exception)\n");
    }
    cli::SetInlineInputs(nullptr);
    cli::SetMessageSink(nullptr);
    out = capture_out.Text();
    err = capture_err.Text();
  }
  nb::list problem_list;
  for (const manifest::LoadMessage& m : problems) problem_list.append(ProblemDict(m));
  return nb::make_tuple(rc, nb::bytes(out.data(), out.size()), nb::bytes(err.data(), err.size()), problem_list);
}

}  // namespace
}  // namespace dra::python

NB_MODULE(_core, m) {
  m.doc() = "dractl's C++ engine (use the dractl package, not this module)";
  m.attr("__version__") = DRACTL_VERSION;
  m.def("run", &dra::python::Run, nb::arg("argv"), nb::arg("inputs"),
        "Runs one dractl command in-process: (exit code, stdout bytes, stderr bytes, problems).");
  m.def(
      "commands",
      [] {
        std::vector<std::string> names;
        for (const dra::cli::CommandEntry& c : dra::cli::Commands()) names.emplace_back(c.name);
        return names;
      },
      "The names of dractl's commands.");
}
