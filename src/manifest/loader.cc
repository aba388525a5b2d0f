#include "manifest/loader.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <mutex>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt/format.h"
#include "manifest/decode.h"
#include "manifest/json_parser.h"
#include "manifest/limits.h"
#include "manifest/yaml_parser.h"

namespace dra::manifest {
namespace {

namespace fs = std::filesystem;

std::string ScalarText(const Node* n) {
  if (n == nullptr || n->kind != NodeKind::kString) return "";
  return n->text;
}

// "Kind ns/name" from a raw tree (used before/without decoding).
std::string TreeDisplayName(const Node& root) {
  std::string kind = ScalarText(root.Find("kind"));
  const Node* meta = root.Find("metadata");
  std::string name = meta ? ScalarText(meta->Find("name")) : "";
  std::string ns = meta ? ScalarText(meta->Find("namespace")) : "";
  if (kind.empty() && name.empty()) return "";
  std::string out = kind.empty() ? "object" : kind;
  if (!name.empty()) {
    out += ' ';
    if (!ns.empty()) out += ns + "/";
    out += name;
  }
  return out;
}

bool HasManifestExtension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

}  // namespace

std::string LoadMessage::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (mark.line > 0) out += fmt::format(":{}:{}", mark.line, mark.column);
    out += ": ";
  }
  if (severity == api::Severity::kWarning) out += "warning: ";
  if (!object.empty()) out += object + ": ";
  if (!field.empty()) out += field + ": ";
  out += message;
  // Input text quoted in a message may hold control bytes (a NUL escaped in
  // JSON, an ESC): print them as \xNN so that one message stays one line of
  // plain text. Newlines and tabs are kept (a CEL error's caret lines).
  std::string escaped;
  for (char c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      escaped += fmt::format("\\x{:02x}", u);
    } else {
      escaped += c;
    }
  }
  return escaped;
}

size_t LoadResult::error_count() const {
  return static_cast<size_t>(std::count_if(messages.begin(), messages.end(),
                                           [](const LoadMessage& m) { return m.severity == api::Severity::kError; }));
}

size_t LoadResult::warning_count() const { return messages.size() - error_count(); }

size_t LoadResult::skipped_count() const {
  size_t n = 0;
  for (const auto& [kind, count] : skipped_kinds) n += count;
  return n;
}

std::string ObjectDisplayName(const api::Object& object) {
  const api::ObjectMeta& meta = api::MetaOf(object);
  std::string out(api::KindName(object));
  out += ' ';
  if (!meta.namespace_.empty()) out += meta.namespace_ + "/";
  out += meta.name.empty() ? "<unnamed>" : meta.name;
  return out;
}

namespace internal {

// The text of one input, to read a document of it again (TreeRef): kept in
// memory, or, for a regular file, read again from the file if it is still the
// one loaded (same device, inode, size and modification time).
struct InputText {
  std::shared_ptr<const std::string> text;  // kept; else `path` is read
  std::string path;
  struct stat identity {};
  size_t size = 0;
  std::shared_ptr<const std::string> file;  // its name, for messages
  bool json = false;
  bool drop_managed_fields = false;
  std::mutex mu;  // guards its documents' reading again

  // Bytes [begin, end) of the text; nullopt if the file changed or cannot be read.
  std::optional<std::string> Read(size_t begin, size_t end) const {
    end = std::min(end, size);
    if (begin > end) return std::nullopt;
    if (text != nullptr) return text->substr(begin, end - begin);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::optional<std::string> out;
    struct stat now {};
    if (::fstat(fd, &now) == 0 && now.st_dev == identity.st_dev && now.st_ino == identity.st_ino &&
        now.st_size == identity.st_size && now.st_mtim.tv_sec == identity.st_mtim.tv_sec &&
        now.st_mtim.tv_nsec == identity.st_mtim.tv_nsec) {
      std::string bytes(end - begin, '\0');
      size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(begin + done));
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      if (done == bytes.size()) out = std::move(bytes);
    }
    ::close(fd);
    return out;
  }
};

// One document of an input, as TreeRef reads it again (one per document of
// a large input: kept small; offsets fit 32 bits, as inputs are at most
// kMaxInputBytes).
struct DocumentSource {
  static constexpr uint32_t kUnknown = UINT32_MAX;

  std::shared_ptr<InputText> input;
  uint32_t index = 0;                // among the input's documents
  uint32_t line_begin = 0;           // byte offset of the line it starts on (kUnknown: read the input whole)
  uint32_t offset = 0;               // JSON: byte offset of its first character
  uint32_t end = 0;                  // byte offset of the next document (or the input's end)
  uint32_t line = 0;                 // the line it starts on
  Mark root_mark;                    // its root's mark, to check the parse again
  bool read = false;                 // under input->mu
  std::shared_ptr<const Node> root;  // once read; null if the input changed
};

}  // namespace internal

namespace {

using internal::DocumentSource;
using internal::InputText;

// A regular file's bytes, mapped rather than read (manifests of a large
// cluster are hundreds of megabytes): the pages the parser has passed are
// given back as it goes (Release), so the text is not held whole while the
// objects decoded from it grow.
class MappedFile {
 public:
  MappedFile(const void* data, size_t size) : data_(data), size_(size) {}
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { ::munmap(const_cast<void*>(data_), size_); }

  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }

  // The parser is at byte `at`: every 16 MiB, the mapping's resident pages are
  // dropped (a page read again comes back from the page cache).
  void Release(size_t at) {
    constexpr size_t kStep = size_t{16} << 20;
    if (released_ != 0 && at < released_ + kStep) return;
    released_ = std::max<size_t>(at, 1);
    ::madvise(const_cast<void*>(data_), size_, MADV_DONTNEED);
  }

 private:
  const void* data_;
  size_t size_;
  size_t released_ = 0;
};

// One input's bytes as ReadOwnedTexts hands them over: `text` views `owned`
// (which the callee may take) or a mapped regular file.
struct InputBytes {
  std::string_view text;
  std::string owned;
  const struct stat* regular = nullptr;  // the file's identity, if regular
  MappedFile* mapped = nullptr;
};

// A file's bytes handed to `on_text`; or a message (cannot open, over the
// limit, a read error).
using OwnedTextFn = std::function<void(InputBytes& bytes, const std::string& file)>;

void ReadFileText(const std::string& path, std::vector<LoadMessage>* messages, const OwnedTextFn& on_text) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = fmt::format("cannot open: {}", std::strerror(errno))});
    return;
  }
  auto over_limit = [&] {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = fmt::format("file is over the limit of {} bytes", kMaxInputBytes)});
  };
  struct stat identity {};
  if (::fstat(fileno(f), &identity) == 0 && S_ISREG(identity.st_mode) && identity.st_size > 0) {
    const auto size = static_cast<size_t>(identity.st_size);
    if (size > kMaxInputBytes) {
      std::fclose(f);
      return over_limit();
    }
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    std::fclose(f);
    if (data != MAP_FAILED) {
      MappedFile mapped(data, size);
      InputBytes bytes{.text = mapped.text(), .owned = {}, .regular = &identity, .mapped = &mapped};
      on_text(bytes, path);
      return;
    }
    f = std::fopen(path.c_str(), "rb");  // not mappable: read
    if (f == nullptr) {
      messages->push_back({.severity = api::Severity::kError,
                           .file = path,
                           .mark = {},
                           .object = "",
                           .field = "",
                           .message = fmt::format("cannot open: {}", std::strerror(errno))});
      return;
    }
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  bool too_big = false;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxInputBytes) {
      too_big = true;
      break;
    }
  }
  bool read_error = std::ferror(f) != 0;
  const bool regular = ::fstat(fileno(f), &identity) == 0 && S_ISREG(identity.st_mode) &&
                       static_cast<uintmax_t>(identity.st_size) == text.size();
  std::fclose(f);
  if (too_big) return over_limit();
  if (read_error) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "read error"});
    return;
  }
  InputBytes bytes{.text = {}, .owned = std::move(text), .regular = regular ? &identity : nullptr, .mapped = nullptr};
  bytes.text = bytes.owned;
  on_text(bytes, path);
}

// ReadManifestTexts, handing each text over to be taken.
void ReadOwnedTexts(const std::string& path, std::vector<LoadMessage>* messages, const OwnedTextFn& on_text) {
  if (path == "-") {
    std::string text;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
      text.append(buf, n);
      if (text.size() > kMaxInputBytes) {
        messages->push_back({.severity = api::Severity::kError,
                             .file = "<stdin>",
                             .mark = {},
                             .object = "",
                             .field = "",
                             .message = fmt::format("input is over the limit of {} bytes", kMaxInputBytes)});
        return;
      }
    }
    InputBytes bytes{.text = {}, .owned = std::move(text), .regular = nullptr, .mapped = nullptr};
    bytes.text = bytes.owned;
    on_text(bytes, "<stdin>");
    return;
  }
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    // A link loop (ELOOP), a path through a file (ENOTDIR), no permission.
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "cannot open: " + ec.message()});
    return;
  }
  if (ec || !fs::exists(st)) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "no such file or directory"});
    return;
  }
  if (!fs::is_directory(st)) {
    ReadFileText(path, messages, on_text);
    return;
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(path, fs::directory_options::none, ec);
  if (ec) {
    messages->push_back({.severity = api::Severity::kError,
                         .file = path,
                         .mark = {},
                         .object = "",
                         .field = "",
                         .message = "cannot read directory: " + ec.message()});
    return;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      messages->push_back({.severity = api::Severity::kError,
                           .file = path,
                           .mark = {},
                           .object = "",
                           .field = "",
                           .message = "cannot read directory: " + ec.message()});
      ec.clear();
      break;
    }
    std::error_code type_ec;
    if (it->is_symlink(type_ec)) {
      // Links to directories are not followed (no loops); say so. A link that
      // cannot be resolved (a loop, a dangling target) is reported by ReadFileText.
      fs::file_status target = fs::status(it->path(), type_ec);
      if (!type_ec && fs::is_directory(target)) {
        messages->push_back({.severity = api::Severity::kWarning,
                             .file = it->path().string(),
                             .mark = {},
                             .object = "",
                             .field = "",
                             .message = "symbolic link to a directory, not followed"});
        continue;
      }
      if (type_ec && HasManifestExtension(it->path())) {
        files.push_back(it->path().string());
        continue;
      }
    }
    if (it->is_regular_file(type_ec) && HasManifestExtension(it->path())) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) ReadFileText(f, messages, on_text);
}

// Whether a document of the YAML `text` can only be read again with the text
// before it: a line break of YAML's other than \n and \r\n (a lone \r, NEL,
// LINE SEPARATOR, PARAGRAPH SEPARATOR), which libyaml counts in its line
// numbers, or a directive (%TAG) that applies to the document after it.
bool NeedsTextBefore(std::string_view text) {
  if (text.starts_with('%') || text.find("\n%") != std::string_view::npos) return true;
  for (size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
    if (at + 1 >= text.size() || text[at + 1] != '\n') return true;
  }
  return text.find("\xC2\x85") != std::string_view::npos || text.find("\xE2\x80\xA8") != std::string_view::npos ||
         text.find("\xE2\x80\xA9") != std::string_view::npos;
}

bool IsJsonText(std::string_view text, const std::string& file) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return (first != std::string_view::npos && text[first] == '{') || (file.size() > 5 && file.ends_with(".json"));
}

// What LoadDocument does to a document's tree before its objects are decoded:
// the items of typed Lists get the list's kind and apiVersion where they omit
// them, and managedFields are dropped if asked.
void Normalize(Node& node, bool drop_managed_fields) {
  if (!node.is_mapping()) return;
  const std::string kind = ScalarText(node.Find("kind"));
  Node* items = node.Find("items");
  if ((kind == "List" || (kind.size() > 4 && kind.ends_with("List"))) && items != nullptr) {
    if (!items->is_sequence()) return;
    const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    const std::string list_api_version = ScalarText(node.Find("apiVersion"));
    for (Node& item : items->items) {
      if (item.is_mapping() && !item_kind.empty()) {
        if (item.Find("kind") == nullptr) item.Add("kind", Node::String(item_kind));
        if (item.Find("apiVersion") == nullptr && !list_api_version.empty()) {
          item.Add("apiVersion", Node::String(list_api_version));
        }
      }
      Normalize(item, drop_managed_fields);
    }
    return;
  }
  if (drop_managed_fields) DropManagedFields(&node);
}

Status ParseStream(std::string_view text, const std::string& file, bool json, const DocumentFn& on_document) {
  return json ? ParseJsonStream(text, file, on_document) : ParseYamlStream(text, file, on_document);
}

// A document's tree read again: its own bytes first; if they do not give the
// same root (a line break other than \n in the text, a YAML directive before
// the document), the whole input up to it. Null if the input changed.
std::shared_ptr<const Node> ReadAgain(const DocumentSource& s) {
  const InputText& input = *s.input;
  std::optional<Node> root;
  std::optional<std::string> bytes;
  if (s.line_begin != DocumentSource::kUnknown) bytes = input.Read(s.line_begin, s.end);
  if (bytes) {
    if (input.json) {
      StatusOr<Node> r = ParseJsonValueAt(*bytes, *input.file, s.offset - s.line_begin, s.line);
      if (r.ok() && r->mark == s.root_mark) root = *std::move(r);
    } else {
      StatusOr<Document> r = ParseYamlDocumentAt(*bytes, *input.file, s.line);
      if (r.ok() && r->root.mark == s.root_mark) root = std::move(r->root);
    }
  }
  if (!root) {
    std::optional<std::string> all = input.Read(0, input.size);
    if (!all) return nullptr;
    size_t index = 0;
    Status st = ParseStream(*all, *input.file, input.json, [&](Document& doc, size_t) {
      if (index++ < s.index) return true;
      root = std::move(doc.root);
      return false;
    });
    if (!root || root->mark != s.root_mark) return nullptr;
  }
  auto tree = std::make_shared<Node>(*std::move(root));
  Normalize(*tree, input.drop_managed_fields);
  return tree;
}

}  // namespace

struct TreeRef::Item {
  std::shared_ptr<const Node> tree;  // once found
  std::vector<uint32_t> path;        // indices into `items` of the Lists around the object, outermost first
  Mark mark;                         // the object's root
};

TreeRef::TreeRef(std::shared_ptr<const Node> tree)
    : item_(tree != nullptr ? std::make_shared<Item>(Item{.tree = std::move(tree), .path = {}, .mark = {}}) : nullptr) {
}

TreeRef::TreeRef(std::shared_ptr<internal::DocumentSource> source, std::vector<uint32_t> path, Mark mark)
    : source_(std::move(source)),
      item_(path.empty() ? nullptr : std::make_shared<Item>(Item{.tree = {}, .path = std::move(path), .mark = mark})) {}

const Node* TreeRef::Get() const {
  if (item_ != nullptr && item_->tree != nullptr) return item_->tree.get();
  if (source_ == nullptr) return nullptr;
  DocumentSource& source = *source_;
  std::lock_guard<std::mutex> lock(source.input->mu);
  if (!source.read) {
    source.root = ReadAgain(source);
    if (source.root == nullptr) {
      // The input changed: the document's mark alone.
      auto only_mark = std::make_shared<Node>();
      only_mark->mark = source.root_mark;
      source.root = std::move(only_mark);
    }
    source.read = true;
  }
  if (item_ == nullptr) return source.root.get();  // the document's root object
  const Node* node = source.root.get();
  for (uint32_t i : item_->path) {
    const Node* items = node != nullptr ? node->Find("items") : nullptr;
    node = items != nullptr && i < items->items.size() ? &items->items[i] : nullptr;
  }
  if (node != nullptr && node->mark == item_->mark) {
    item_->tree = std::shared_ptr<const Node>(source.root, node);
  } else {
    // The input changed: the item's mark alone.
    auto only_mark = std::make_shared<Node>();
    only_mark->mark = item_->mark;
    item_->tree = std::move(only_mark);
  }
  return item_->tree.get();
}

void ReadManifestTexts(const std::string& path, std::vector<LoadMessage>* messages, const ManifestTextFn& on_text) {
  ReadOwnedTexts(path, messages, [&](InputBytes& bytes, const std::string& file) { on_text(bytes.text, file); });
}

// The input being loaded: where its documents can be read again (with
// keep_trees) and the document being decoded.
struct Loader::Input {
  std::shared_ptr<InputText> text;  // null unless keep_trees
  std::shared_ptr<DocumentSource> document;
  std::vector<uint32_t> path;    // List items around the object being decoded
  MappedFile* mapped = nullptr;  // the text, if a mapped file
};

void Loader::LoadPath(const std::string& path, LoadResult* out) const {
  ReadOwnedTexts(path, &out->messages, [&](InputBytes& bytes, const std::string& file) {
    ++out->files;
    Input input;
    input.mapped = bytes.mapped;
    std::shared_ptr<const std::string> owned;
    if (options_.keep_trees) {
      // Trees are read again from a regular file; other inputs (stdin, a
      // pipe) are kept.
      auto kept = std::make_shared<InputText>();
      kept->size = bytes.text.size();
      if (bytes.regular != nullptr) {
        std::error_code ec;
        const fs::path absolute = fs::absolute(file, ec);  // as it was named, should the directory change
        kept->path = ec ? file : absolute.string();
        kept->identity = *bytes.regular;
      } else {
        owned = std::make_shared<const std::string>(std::move(bytes.owned));
        kept->text = owned;
      }
      input.text = std::move(kept);
    }
    LoadInput(owned != nullptr ? std::string_view(*owned) : bytes.text, std::make_shared<const std::string>(file),
              &input, out);
  });
}

StatusOr<std::vector<Document>> ParseManifestText(std::string_view text, const std::string& file) {
  return IsJsonText(text, file) ? ParseJson(text, file) : ParseYaml(text, file);
}

void Loader::LoadText(std::string_view text, const std::string& file_name, LoadResult* out) const {
  Input input;
  if (options_.keep_trees) {
    auto kept = std::make_shared<InputText>();
    kept->size = text.size();
    kept->text = std::make_shared<const std::string>(text);
    input.text = std::move(kept);
  }
  LoadInput(text, std::make_shared<const std::string>(file_name), &input, out);
}

void Loader::LoadInput(std::string_view text, const std::shared_ptr<const std::string>& file, Input* input,
                       LoadResult* out) const {
  // What this input adds, taken back if it does not parse.
  const size_t objects = out->objects.size();
  const size_t messages = out->messages.size();
  const size_t workloads = out->workloads.size();
  const size_t namespaces = out->namespaces.size();
  const size_t documents = out->documents;
  const std::map<std::string, size_t> skipped_kinds = out->skipped_kinds;

  const bool json = IsJsonText(text, *file);
  const bool odd_breaks = input->text != nullptr && !json && NeedsTextBefore(text);
  if (input->text != nullptr) {
    input->text->file = file;
    input->text->json = json;
    input->text->drop_managed_fields = options_.drop_managed_fields;
  }
  size_t index = 0;
  size_t scanned = 0;     // JSON: text[0, scanned) was searched for line starts
  size_t line_start = 0;  // JSON: the last line start before `scanned`
  std::shared_ptr<DocumentSource> previous;
  Status status = ParseStream(text, *file, json, [&](Document& doc, size_t begin) {
    ++out->documents;
    if (input->text != nullptr) {
      auto source = std::make_shared<DocumentSource>();
      source->input = input->text;
      source->index = static_cast<uint32_t>(index);
      if (json) {
        const size_t nl = text.substr(scanned, begin - scanned).rfind('\n');
        if (nl != std::string_view::npos) line_start = scanned + nl + 1;
        scanned = begin;
      }
      // Some YAML texts are read again whole (NeedsTextBefore).
      const size_t line_begin = json ? line_start : odd_breaks ? std::string_view::npos : begin;
      source->line_begin =
          line_begin == std::string_view::npos ? DocumentSource::kUnknown : static_cast<uint32_t>(line_begin);
      source->offset = static_cast<uint32_t>(begin == std::string_view::npos ? 0 : begin);
      source->end = static_cast<uint32_t>(text.size());
      source->line = doc.mark.line;
      source->root_mark = doc.root.mark;
      if (previous != nullptr && begin != std::string_view::npos) previous->end = static_cast<uint32_t>(begin);
      previous = source;
      input->document = std::move(source);
    }
    ++index;
    if (input->mapped != nullptr && begin != std::string_view::npos) input->mapped->Release(begin);
    LoadDocument(std::move(doc.root), file, doc.mark, input, out);
    return true;
  });
  input->document = nullptr;
  if (status.ok()) return;
  out->objects.erase(out->objects.begin() + static_cast<std::ptrdiff_t>(objects), out->objects.end());
  out->messages.erase(out->messages.begin() + static_cast<std::ptrdiff_t>(messages), out->messages.end());
  out->workloads.erase(out->workloads.begin() + static_cast<std::ptrdiff_t>(workloads), out->workloads.end());
  out->namespaces.erase(out->namespaces.begin() + static_cast<std::ptrdiff_t>(namespaces), out->namespaces.end());
  out->documents = documents;
  out->skipped_kinds = skipped_kinds;
  LoadMessage m = MessageFromParseError(status, *file);
  if (options_.skip_unknown && text.find("{{") != std::string_view::npos) {
    m.severity = api::Severity::kWarning;
    m.message = "skipped (--skip-unknown): a template (it holds \"{{\"), not a manifest: " + m.message;
    ++out->skipped_kinds[std::string(kNotObjects)];
  }
  out->messages.push_back(std::move(m));
}

void Loader::LoadDocument(Node root, const std::shared_ptr<const std::string>& file, Mark mark, Input* input,
                          LoadResult* out) const {
  if (root.is_null()) return;  // empty document, as kubectl skips them
  if (!root.is_mapping()) {
    out->messages.push_back(
        {.severity = options_.skip_unknown ? api::Severity::kWarning : api::Severity::kError,
         .file = *file,
         .mark = root.mark.line ? root.mark : mark,
         .object = "",
         .field = "",
         .message = fmt::format("{}document is a {}, not a Kubernetes object",
                                options_.skip_unknown ? "skipped (--skip-unknown): " : "", NodeKindName(root.kind))});
    if (options_.skip_unknown) ++out->skipped_kinds[std::string(kNotObjects)];
    return;
  }
  std::string kind = ScalarText(root.Find("kind"));
  const Node* items = root.Find("items");
  if ((kind == "List" || (kind.size() > 4 && kind.ends_with("List"))) && items != nullptr) {
    if (!items->is_sequence() && !items->is_null()) {
      out->messages.push_back({.severity = api::Severity::kError,
                               .file = *file,
                               .mark = items->mark,
                               .object = kind,
                               .field = "items",
                               .message = fmt::format("must be a list, not {}", NodeKindName(items->kind))});
      return;
    }
    std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    std::string list_api_version = ScalarText(root.Find("apiVersion"));
    Node list_items = std::move(*const_cast<Node*>(items));
    for (size_t i = 0; i < list_items.items.size(); ++i) {
      Node& item = list_items.items[i];
      if (item.is_mapping() && !item_kind.empty()) {
        // Typed lists from the API omit kind and apiVersion on their items.
        if (item.Find("kind") == nullptr) item.Add("kind", Node::String(item_kind));
        if (item.Find("apiVersion") == nullptr && !list_api_version.empty()) {
          item.Add("apiVersion", Node::String(list_api_version));
        }
      }
      if (!item.is_mapping()) {
        out->messages.push_back({.severity = api::Severity::kError,
                                 .file = *file,
                                 .mark = item.mark,
                                 .object = kind,
                                 .field = fmt::format("items[{}]", i),
                                 .message = fmt::format("must be an object, not {}", NodeKindName(item.kind))});
        continue;
      }
      // A List inside a List is flattened, as kubectl's FlattenListVisitor
      // does (the depth is bounded by the parser's nesting limit).
      input->path.push_back(static_cast<uint32_t>(i));
      LoadDocument(std::move(item), file, mark, input, out);
      input->path.pop_back();
    }
    return;
  }
  DecodeOne(std::move(root), file, input, out);
}

TreeRef Loader::TreeOf(const Input& input, Mark mark) {
  return input.document != nullptr ? TreeRef(input.document, input.path, mark) : TreeRef();
}

void DropManagedFields(Node* object) {
  if (Node* meta = object->Find("metadata")) meta->Erase("managedFields");
}

void Loader::DecodeNamespace(const Node& root, const std::shared_ptr<const std::string>& file,
                             const std::string& display_name, LoadResult* out) const {
  auto error = [&](const Node* at, std::string field, std::string message) {
    out->messages.push_back({.severity = api::Severity::kError,
                             .file = *file,
                             .mark = at->mark,
                             .object = display_name,
                             .field = std::move(field),
                             .message = std::move(message)});
  };
  LoadedNamespace ns{.name = {}, .labels = {}, .file = file, .mark = root.mark};
  const Node* meta = root.Find("metadata");
  const Node* name = meta != nullptr && meta->is_mapping() ? meta->Find("name") : nullptr;
  if (name == nullptr || name->kind != NodeKind::kString || name->text.empty()) {
    return error(name != nullptr ? name : &root, "metadata.name", "Required value: name or generateName is required");
  }
  ns.name = name->text;
  if (const Node* labels = meta->Find("labels"); labels != nullptr && !labels->is_null()) {
    if (!labels->is_mapping()) return error(labels, "metadata.labels", "must be a map of strings");
    for (size_t i = 0; i < labels->items.size(); ++i) {
      const Node& value = labels->items[i];
      if (value.kind != NodeKind::kString && !value.is_null()) {
        return error(&value, "metadata.labels[" + labels->keys[i].first + "]", "must be a string");
      }
      ns.labels.emplace(labels->keys[i].first, value.text);
    }
  }
  out->namespaces.push_back(std::move(ns));
}

void Loader::DecodeOne(Node root, const std::shared_ptr<const std::string>& file, Input* input, LoadResult* out) const {
  if (options_.drop_managed_fields) DropManagedFields(&root);
  const Node* kind_node = root.Find("kind");
  const Node* api_node = root.Find("apiVersion");
  std::string name = TreeDisplayName(root);
  if (options_.skip_unknown && (kind_node == nullptr || api_node == nullptr)) {
    out->messages.push_back({.severity = api::Severity::kWarning,
                             .file = *file,
                             .mark = root.mark,
                             .object = name,
                             .field = "",
                             .message = fmt::format("skipped (--skip-unknown): not a Kubernetes object (no {})",
                                                    kind_node == nullptr ? "kind" : "apiVersion")});
    ++out->skipped_kinds[std::string(kNotObjects)];
    return;
  }
  if (kind_node == nullptr || kind_node->kind != NodeKind::kString || kind_node->text.empty()) {
    out->messages.push_back(
        {.severity = api::Severity::kError,
         .file = *file,
         .mark = kind_node ? kind_node->mark : root.mark,
         .object = name,
         .field = "kind",
         .message = kind_node ? "must be a non-empty string" : "Required value: every object needs a kind"});
    return;
  }
  if (api_node == nullptr || api_node->kind != NodeKind::kString || api_node->text.empty()) {
    out->messages.push_back(
        {.severity = api::Severity::kError,
         .file = *file,
         .mark = api_node ? api_node->mark : root.mark,
         .object = name,
         .field = "apiVersion",
         .message = api_node ? "must be a non-empty string" : "Required value: every object needs an apiVersion"});
    return;
  }
  if (options_.keep_namespaces && kind_node->text == "Namespace" && api_node->text == "v1") {
    DecodeNamespace(root, file, name, out);
    return;
  }
  std::vector<Diagnostic> diagnostics;
  DecodeOptions decode_options;
  decode_options.strict = options_.strict;
  StatusOr<api::Object> object = DecodeObject(root, decode_options, &diagnostics);
  if (!object.ok() && object.status().code() == StatusCode::kNotFound) {
    if (options_.keep_workloads) {
      StatusOr<api::Workload> workload = DecodeWorkload(root, decode_options, &diagnostics);
      if (workload.status().code() != StatusCode::kNotFound) {
        for (Diagnostic& d : diagnostics) {
          out->messages.push_back({.severity = d.severity,
                                   .file = *file,
                                   .mark = d.mark.line ? d.mark : root.mark,
                                   .object = name,
                                   .field = std::move(d.field),
                                   .message = std::move(d.message)});
        }
        if (!workload.ok()) return;  // the decoder reported at least one error
        LoadedWorkload loaded{.workload = std::move(workload).value(), .file = file, .mark = root.mark, .tree = {}};
        loaded.workload.metadata.source.file = file;
        if (options_.keep_trees) loaded.tree = TreeOf(*input, root.mark);
        out->workloads.push_back(std::move(loaded));
        return;
      }
    }
    ++out->skipped_kinds[api_node->text + " " + kind_node->text];
    return;
  }
  for (Diagnostic& d : diagnostics) {
    out->messages.push_back({.severity = d.severity,
                             .file = *file,
                             .mark = d.mark.line ? d.mark : root.mark,
                             .object = name,
                             .field = std::move(d.field),
                             .message = std::move(d.message)});
  }
  if (!object.ok()) {
    bool reported = std::any_of(diagnostics.begin(), diagnostics.end(),
                                [](const Diagnostic& d) { return d.severity == api::Severity::kError; });
    if (!reported) {
      out->messages.push_back({.severity = api::Severity::kError,
                               .file = *file,
                               .mark = root.mark,
                               .object = name,
                               .field = "",
                               .message = object.status().message()});
    }
    return;
  }
  LoadedObject loaded;
  loaded.object = std::move(object).value();
  loaded.file = file;
  loaded.mark = root.mark;
  api::ObjectMeta& meta = api::MetaOf(loaded.object);
  meta.source.file = file;
  meta.source.line = root.mark.line;
  meta.source.column = root.mark.column;
  if (options_.keep_trees) loaded.tree = TreeOf(*input, root.mark);
  out->objects.push_back(std::move(loaded));
}

Mark FindFieldMark(const Node& root, std::string_view path) {
  const Node* cur = &root;
  size_t i = 0;
  while (i < path.size() && cur != nullptr) {
    std::string_view segment;
    bool bracket = false;
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) break;
      segment = path.substr(i + 1, close - i - 1);
      bracket = true;
      i = close + 1;
    } else {
      size_t end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      segment = path.substr(i, end - i);
      i = end;
    }
    const Node* next = nullptr;
    if (bracket && cur->is_sequence()) {
      size_t index = 0;
      bool numeric = !segment.empty();
      for (char c : segment) {
        if (c < '0' || c > '9')
          numeric = false;
        else
          index = index * 10 + static_cast<size_t>(c - '0');
      }
      if (numeric && index < cur->items.size()) next = &cur->items[index];
    } else if (cur->is_mapping()) {
      next = cur->Find(segment);
    }
    if (next == nullptr) break;
    cur = next;
  }
  return cur->mark;
}

LoadMessage MessageFromParseError(const Status& s, const std::string& file) {
  LoadMessage m;
  m.file = file;
  std::string_view text = s.message();
  if (text.starts_with(file) && text.size() > file.size() && text[file.size()] == ':') {
    std::string_view rest = text.substr(file.size() + 1);
    unsigned line = 0, col = 0;
    int consumed = 0;
    std::string tmp(rest);
    if (std::sscanf(tmp.c_str(), "%u:%u: %n", &line, &col, &consumed) == 2 && consumed > 0) {
      m.mark = Mark{line, col};
      m.message = tmp.substr(static_cast<size_t>(consumed));
      return m;
    }
  }
  m.message = std::string(text);
  return m;
}

}  // namespace dra::manifest
