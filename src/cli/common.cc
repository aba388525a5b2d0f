#include "cli/common.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "api/defaults.h"
#include "api/validation.h"
#include "cel/dra/api_checker.h"
#include "fmt/format.h"
#include "manifest/emit.h"
#include "sched/workloads.h"

namespace dra::cli {

Status WriteTextFile(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = errno;
  if (f != nullptr && std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok) return Status::OK();
  return Status(StatusCode::kInvalidArgument, fmt::format("cannot write {}: {}", path, std::strerror(err)));
}

namespace {

// Help without the parser's type labels (TEXT, UINT, FLOAT:POSITIVE): a
// placeholder a reader understands (FILE, N, VALUE), then the default.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out;
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() != 0 && !opt->get_type_name().empty()) {
      out += " " + Placeholder(opt);
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
      if (!opt->get_default_str().empty()) out += " (default " + opt->get_default_str() + ")";
      if (opt->get_required()) out += " (required)";
    }
    return out;
  }

 private:
  static std::string Placeholder(const CLI::Option* opt) {
    const std::string type = opt->get_type_name();
    for (const std::string& name : opt->get_lnames()) {
      for (const char* file : {"filename", "workload-profile", "kubeconfig", "csv", "report", "out", "nodes", "pods",
                               "workload", "expected", "scenario"}) {
        if (name == file && type.rfind("TEXT", 0) == 0) return "FILE";
      }
    }
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0) return "N";
    return "VALUE";
  }
};

void UseHelpFormatter(CLI::App& app, const std::shared_ptr<CLI::Formatter>& formatter) {
  app.formatter(formatter);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) UseHelpFormatter(*sub, formatter);
}

// --skip-unknown of the command being run (ParseArgs adds it to every
// command that reads -f); LoadInputs reads it.
bool g_skip_unknown = false;

const std::vector<InlineInput>* g_inline_inputs = nullptr;
std::vector<manifest::LoadMessage>* g_message_sink = nullptr;

std::vector<AppInfo>* g_describe_sink = nullptr;

// The values of a CLI::IsMember check, from the type name CLI11 composes
// ("TEXT:{text,yaml,json}").
std::vector<std::string> Choices(const std::string& type_name) {
  const size_t open = type_name.find(":{");
  if (open == std::string::npos || type_name.back() != '}') return {};
  std::vector<std::string> out;
  std::string_view list(type_name);
  list = list.substr(open + 2, list.size() - open - 3);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

AppInfo Describe(const CLI::App& app, const std::string& path) {
  AppInfo info{.path = path, .description = app.get_description(), .options = {}, .subcommands = {}};
  for (const CLI::Option* opt : app.get_options()) {
    OptionInfo o;
    for (const std::string& s : opt->get_snames()) o.names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) o.names.push_back("--" + l);
    if (o.names.empty()) o.positional = opt->get_name();
    o.takes_value = opt->get_type_size() != 0 && !opt->get_type_name().empty();  // as the help shows it
    o.choices = Choices(opt->get_type_name());
    if (o.takes_value) {
      std::string opts = HelpFormatter().make_option_opts(opt);
      o.placeholder = opts.empty() ? "" : opts.substr(1, opts.find(' ', 1) - 1);
      o.file = o.placeholder == "FILE";
    }
    o.description = opt->get_description();
    o.default_value = opt->get_default_str();
    info.options.push_back(std::move(o));
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    info.subcommands.push_back(Describe(*sub, path + " " + sub->get_name()));
  }
  return info;
}

}  // namespace

void SetDescribeSink(std::vector<AppInfo>* sink) { g_describe_sink = sink; }

int ParseArgs(CLI::App& app, std::span<const std::string_view> args) {
  UseHelpFormatter(app, std::make_shared<HelpFormatter>());
  g_skip_unknown = false;
  if (app.get_option_no_throw("--filename") != nullptr && app.get_option_no_throw("--skip-unknown") == nullptr) {
    app.add_flag("--skip-unknown", g_skip_unknown,
                 "-f folders that hold more than manifests (values.yaml, Chart.yaml, Helm templates): skip, with a "
                 "warning each, documents that are not Kubernetes objects and templates that do not parse");
  }
  if (g_describe_sink != nullptr) {
    g_describe_sink->push_back(Describe(app, app.get_name()));
    return kExitOk;
  }
  std::vector<std::string> reversed;
  reversed.reserve(args.size());
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    // "-f=FILE" as kubectl takes it: the value after the '='.
    if (it->size() > 3 && (*it)[0] == '-' && (*it)[1] != '-' && (*it)[2] == '=') {
      reversed.emplace_back(it->substr(3));
      reversed.emplace_back(it->substr(0, 2));
      continue;
    }
    reversed.emplace_back(*it);
  }
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for usage.\n", app.get_name().c_str(), e.what(),
                 app.get_name().c_str());
    return kExitUsageError;
  }
  return -1;
}

CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
          return "must be a non-negative decimal integer below 2^64, not \"" + text + "\"";
        }
        text = std::to_string(value);  // without leading zeros, which CLI11 reads as octal
        return "";
      },
      "UINT");
}

void LoadInputs(const std::vector<std::string>& paths, const manifest::LoadOptions& options,
                manifest::LoadResult* result) {
  manifest::LoadOptions with_flags = options;
  with_flags.skip_unknown = options.skip_unknown || g_skip_unknown;
  const manifest::Loader loader(with_flags);
  auto load = [&](const std::string& path, manifest::LoadResult* out) {
    if (const std::string* text = FindInlineInput(path)) {
      ++out->files;
      loader.LoadText(*text, path, out);
    } else {
      loader.LoadPath(path, out);
    }
  };
  // Standard input is read once, by one thread (a second `-` reads nothing).
  if (paths.size() < 2 || std::find(paths.begin(), paths.end(), "-") != paths.end()) {
    for (const std::string& path : paths) load(path, result);
    return;
  }
  // The paths are independent: each into its own result, two at a time,
  // then joined in the order of the paths (as one pass would give them).
  std::vector<manifest::LoadResult> parts(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) load(paths[i], &parts[i]);
  };
  {
    std::jthread second(work);
    work();
  }
  for (manifest::LoadResult& part : parts) {
    // The objects of a large part are moved whole, not into a second vector.
    if (result->objects.empty()) {
      result->objects = std::move(part.objects);
    } else {
      for (manifest::LoadedObject& o : part.objects) result->objects.push_back(std::move(o));
    }
    std::vector<manifest::LoadedObject>().swap(part.objects);
    for (manifest::LoadMessage& m : part.messages) result->messages.push_back(std::move(m));
    for (manifest::LoadedWorkload& w : part.workloads) result->workloads.push_back(std::move(w));
    for (manifest::LoadedNamespace& n : part.namespaces) result->namespaces.push_back(std::move(n));
    for (const auto& [kind, n] : part.skipped_kinds) result->skipped_kinds[kind] += n;
    result->files += part.files;
    result->documents += part.documents;
  }
}

void SetInlineInputs(const std::vector<InlineInput>* inputs) { g_inline_inputs = inputs; }

const std::string* FindInlineInput(const std::string& path) {
  if (g_inline_inputs == nullptr) return nullptr;
  for (const InlineInput& in : *g_inline_inputs) {
    if (in.name == path) return &in.text;
  }
  return nullptr;
}
void SetMessageSink(std::vector<manifest::LoadMessage>* sink) { g_message_sink = sink; }

void PrintMessages(const manifest::LoadResult& result) {
  for (const manifest::LoadMessage& m : result.messages) {
    std::fprintf(stderr, "%s\n", m.ToString().c_str());
    if (g_message_sink != nullptr) g_message_sink->push_back(m);
  }
}

int ReadOwnFormat(const char* command, const char* flag, const std::vector<std::string>& paths,
                  const ParseOwnFormat& parse) {
  manifest::LoadResult messages;
  const auto each = [&](std::string_view text, const std::string& file) { parse(text, file, &messages.messages); };
  for (const std::string& path : paths) {
    if (const std::string* text = FindInlineInput(path)) {
      each(*text, path);
    } else {
      manifest::ReadManifestTexts(path, &messages.messages, each);
    }
  }
  PrintMessages(messages);
  if (messages.error_count() == 0) return -1;
  std::fprintf(stderr, "%s: %zu error%s in %s (see above)\n", command, messages.error_count(),
               messages.error_count() == 1 ? "" : "s", flag);
  return kExitInputError;
}

std::string CommandLine(std::string_view command, std::span<const std::string_view> args) {
  std::string s(command);
  for (std::string_view a : args) {
    bool plain = !a.empty();
    for (char c : a) {
      const bool safe_punct = c != '\0' && std::strchr("_-+=.,/:@%", c) != nullptr;
      plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || safe_punct);
    }
    s += ' ';
    if (plain) {
      s += a;
      continue;
    }
    s += '\'';
    for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

std::string DescribeLoad(const manifest::LoadResult& result) {
  std::string out = fmt::format("{} object{}", result.objects.size(), result.objects.size() == 1 ? "" : "s");
  if (!result.workloads.empty()) {
    out += fmt::format(" and {} workload{}", result.workloads.size(), result.workloads.size() == 1 ? "" : "s");
  }
  out += fmt::format(" from {} file{}", result.files, result.files == 1 ? "" : "s");
  if (!result.skipped_kinds.empty()) {
    out += fmt::format(" ({} skipped:", result.skipped_count());
    bool first = true;
    for (const auto& [kind, count] : result.skipped_kinds) {
      out += fmt::format("{} {} {}{}", first ? "" : ",", count, kind,
                         kind == manifest::kNotObjects && count != 1 ? "s" : "");
      first = false;
    }
    out += ")";
  }
  return out;
}

manifest::LoadMessage ToMessage(const manifest::LoadedObject& loaded, const api::FieldError& error) {
  manifest::LoadMessage m;
  m.severity = error.severity;
  m.file = loaded.file ? *loaded.file : "";
  m.mark = loaded.tree ? manifest::FindFieldMark(*loaded.tree, error.field) : loaded.mark;
  m.object = manifest::ObjectDisplayName(loaded.object);
  m.field = error.field;
  api::FieldError copy = error;
  copy.field.clear();
  m.message = copy.ToString();
  return m;
}

std::optional<api::FeatureGates> GatesFromFlags(std::string_view command, const std::string& version,
                                                const std::string& overrides) {
  StatusOr<api::FeatureGates> gates = api::FeatureGates::Defaults(version);
  if (!gates.ok()) {
    std::fprintf(stderr, "%.*s: --kubernetes-version: %s\n", static_cast<int>(command.size()), command.data(),
                 gates.status().message().c_str());
    return std::nullopt;
  }
  if (!overrides.empty()) {
    if (Status s = gates->ParseFlag(overrides); !s.ok()) {
      std::fprintf(stderr, "%.*s: --feature-gates: %s\n", static_cast<int>(command.size()), command.data(),
                   s.message().c_str());
      return std::nullopt;
    }
  }
  return *std::move(gates);
}

void AddGateFlags(CLI::App& app, GateFlags* flags) {
  app.add_option("--kubernetes-version", flags->version, "feature-gate defaults of this release (1.34-1.37)")
      ->capture_default_str();
  app.add_option("--feature-gates", flags->gates, "gate overrides, e.g. DRAConsumableCapacity=true");
}

// A problem of a pod made from a workload is a problem of the workload's pod
// template: "Deployment ml/vllm: spec.template.spec.tolerations[0]: ...", at
// the template's line, said once however many pods the workload makes.
manifest::LoadMessage WorkloadTemplateMessage(const manifest::LoadedWorkload& w, const api::FieldError& e) {
  std::string field = e.field;
  if (field.starts_with("spec") || field.starts_with("metadata")) {
    field = std::string(api::PodTemplatePath(w.workload.kind)) + "." + field;
  }
  manifest::Mark mark = w.mark;
  if (w.tree) mark = manifest::FindFieldMark(*w.tree, field);
  api::FieldError copy = e;
  copy.field.clear();
  return {.severity = e.severity,
          .file = w.file ? *w.file : "",
          .mark = mark,
          .object = sched::WorkloadDisplayName(w.workload),
          .field = field,
          .message = copy.ToString()};
}

TemplatePod ValidateWorkloadTemplate(const api::Workload& workload, const api::FeatureGates& gates) {
  api::Pod pod;
  pod.metadata = workload.template_.metadata;
  pod.metadata.namespace_ = workload.metadata.namespace_;
  pod.metadata.name = workload.metadata.name + "-template";
  pod.spec = workload.template_.spec;
  TemplatePod out{.pod = api::Object(std::move(pod)), .errors = {}};
  api::SetDefaults(out.pod, "1970-01-01T00:00:00Z");
  for (api::FieldError& e : api::Validate(out.pod, gates)) {
    if (!e.field.starts_with("metadata.name")) out.errors.push_back(std::move(e));
  }
  return out;
}

int DefaultAndValidate(manifest::LoadResult* result, const api::FeatureGates& gates, std::string_view command) {
  const std::unique_ptr<api::CelExpressionChecker> cel = cel::NewApiServerChecker(gates);
  for (manifest::LoadedObject& o : result->objects) {
    api::SetDefaults(o.object, "1970-01-01T00:00:00Z", gates);
    for (const api::FieldError& e : api::Validate(o.object, gates, cel.get())) {
      result->messages.push_back(ToMessage(o, e));
    }
  }
  for (const manifest::LoadedWorkload& w : result->workloads) {
    for (const api::FieldError& e : ValidateWorkloadTemplate(w.workload, gates).errors) {
      result->messages.push_back(WorkloadTemplateMessage(w, e));
    }
  }
  PrintMessages(*result);
  if (result->error_count() == 0) return -1;
  std::fprintf(stderr, "%.*s: %zu input error%s (see above)\n", static_cast<int>(command.size()), command.data(),
               result->error_count(), result->error_count() == 1 ? "" : "s");
  return kExitInputError;
}

void PrintDocuments(std::vector<manifest::Node> roots, std::string_view format) {
  if (format == "json") {
    manifest::Node list = manifest::Node::Mapping();
    list.Add("apiVersion", manifest::Node::String("v1"));
    manifest::Node items = manifest::Node::Sequence();
    for (auto& r : roots) items.Push(std::move(r));
    list.Add("items", std::move(items));
    list.Add("kind", manifest::Node::String("List"));
    // As kubectl prints a list of objects (`kubectl get -o json`).
    manifest::Node meta = manifest::Node::Mapping();
    meta.Add("resourceVersion", manifest::Node::String(""));
    list.Add("metadata", std::move(meta));
    std::fputs(manifest::EmitJson(list, 4, {.sort_keys = true}).c_str(), stdout);
  } else {
    std::fputs(manifest::EmitYamlDocuments(roots, {.sort_keys = true}).c_str(), stdout);
  }
}

}  // namespace dra::cli
