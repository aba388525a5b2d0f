// RecordedFs, RecordingFs and MaterializeRecordedFs: the host-file half of a
// recording (recorded_fs.h has the mapping between the JSON and the tree).
#include "discover/recorded_fs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dra::discover {
namespace {

using manifest::Node;
using manifest::NodeKind;
namespace tree = nvml::tree;

// ---- Paths: absolute, '/'-separated, no trailing '/' except the root. ----

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    if (!part.empty() && part != ".") parts.push_back(part);
    pos = slash + 1;
  }
  return parts;
}

std::string JoinParts(const std::vector<std::string_view>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

// "//a/./b/" -> "/a/b"; nullopt for a relative path. ".." is kept.
std::optional<std::string> Normalize(std::string_view path) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  return JoinParts(Split(path));
}

// Like Normalize, but ".." removes the element before it (Go's path.Clean).
std::string CleanAbsolute(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view part : Split(path)) {
    if (part == "..") {
      if (!out.empty()) out.pop_back();
    } else {
      out.push_back(part);
    }
  }
  return JoinParts(out);
}

bool HasDotDot(std::string_view path) {
  std::vector<std::string_view> parts = Split(path);
  return std::find(parts.begin(), parts.end(), "..") != parts.end();
}

std::string Parent(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string Base(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string Join(std::string_view dir, std::string_view name) {
  if (dir.empty() || dir == "/") return fmt::format("/{}", name);
  return fmt::format("{}/{}", dir, name);
}

bool IsUnder(std::string_view path, std::string_view dir) {
  return path == dir || (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

// "/sys/bus/pci" -> "bus/pci"; "/sys" -> "".
std::string RelativeTo(std::string_view path, std::string_view dir) {
  if (path.size() <= dir.size()) return "";
  return std::string(path.substr(dir.size() + 1));
}

const Node* StringNode(const Node* n) { return n != nullptr && n->kind == NodeKind::kString ? n : nullptr; }

// ---- RecordedFs ----

class RecordedFs : public HostFs {
 public:
  explicit RecordedFs(const nvml::Recording& recording) {
    entries_["/"].dir = true;
    const Node& root = recording.root;
    if (const Node* sysfs = root.Find("sysfs"); sysfs != nullptr && sysfs->is_mapping()) {
      for (size_t i = 0; i < sysfs->items.size(); ++i) {
        std::string path = *Normalize("/sys/" + sysfs->keys[i].first);
        const Node& value = sysfs->items[i];
        Entry& entry = Add(path);
        entry.dir = true;  // a key is a directory, perhaps reached through its link
        if (const Node* link = StringNode(value.Find("link"))) entry.link = link->text;
        if (const Node* files = value.Find("files"); files != nullptr && files->is_mapping()) {
          for (size_t f = 0; f < files->items.size(); ++f) {
            if (const Node* text = StringNode(&files->items[f])) {
              Add(Join(path, files->keys[f].first)).file = text->text;
            }
          }
        }
        if (const Node* links = value.Find("links"); links != nullptr && links->is_mapping()) {
          for (size_t l = 0; l < links->items.size(); ++l) {
            if (const Node* text = StringNode(&links->items[l])) {
              Add(Join(path, links->keys[l].first)).link = text->text;
            }
          }
        }
      }
    }
    if (const Node* dev = root.Find("dev"); dev != nullptr && dev->is_sequence()) {
      for (const Node& name : dev->items) {
        if (name.kind == NodeKind::kString) Add(*Normalize("/dev/" + name.text)).dev = true;
      }
    }
    if (const Node* files = root.Find("files"); files != nullptr && files->is_mapping()) {
      for (size_t i = 0; i < files->items.size(); ++i) {
        std::optional<std::string> path = Normalize(files->keys[i].first);
        const Node* text = StringNode(&files->items[i]);
        if (path && text != nullptr) Add(*path).file = text->text;
      }
    }
  }

  StatusOr<std::string> ReadFile(std::string_view path) override {
    DRA_ASSIGN_OR_RETURN(const Entry* entry, Get(path));
    if (entry->file) return *entry->file;
    if (entry->dir) return InvalidArgumentError(fmt::format("{}: is a directory", path));
    if (entry->dev) return std::string();
    return NotFoundError(fmt::format("{}: a link whose target's contents the recording does not hold", path));
  }

  StatusOr<std::string> ReadLink(std::string_view path) override {
    DRA_ASSIGN_OR_RETURN(const Entry* entry, Get(path));
    if (!entry->link) return InvalidArgumentError(fmt::format("{}: not a symbolic link", path));
    return *entry->link;
  }

  StatusOr<std::vector<std::string>> List(std::string_view dir) override {
    DRA_ASSIGN_OR_RETURN(const Entry* entry, Get(dir));
    if (!entry->dir) return InvalidArgumentError(fmt::format("{}: not a directory", dir));
    return std::vector<std::string>(entry->children.begin(), entry->children.end());
  }

  bool Exists(std::string_view path) override {
    std::optional<std::string> key = Normalize(path);
    return key && entries_.contains(*key);
  }

 private:
  struct Entry {
    bool dir = false;
    bool dev = false;
    std::optional<std::string> file;
    std::optional<std::string> link;
    std::set<std::string> children;  // sorted bytewise
  };

  // The entry for `path`, making every ancestor a directory that lists it.
  Entry& Add(const std::string& path) {
    std::string current = "/";
    for (std::string_view part : Split(path)) {
      Entry& parent = entries_[current];
      parent.dir = true;
      parent.children.emplace(part);
      current = Join(current, part);
    }
    return entries_[current];
  }

  StatusOr<const Entry*> Get(std::string_view path) const {
    std::optional<std::string> key = Normalize(path);
    if (!key) return InvalidArgumentError(fmt::format("{}: not an absolute path", path));
    auto it = entries_.find(*key);
    if (it == entries_.end()) {
      return NotFoundError(fmt::format("{}: not in the recording", path));
    }
    return &it->second;
  }

  std::map<std::string, Entry> entries_;
};

// ---- RecordingFs ----

class RecordingFs : public HostFs {
 public:
  RecordingFs(HostFs& inner, nvml::Recording* out) : inner_(inner), out_(out) {
    if (!out_->root.is_mapping()) out_->root = nvml::NewRecording({}).root;
  }

  StatusOr<std::string> ReadFile(std::string_view path) override {
    StatusOr<std::string> contents = inner_.ReadFile(path);
    if (!contents.ok()) return contents;
    std::optional<std::string> p = Normalize(path);
    if (!p || HasDotDot(*p)) return contents;
    if (IsUnder(*p, "/sys")) {
      std::string rel = RelativeTo(*p, "/sys");
      if (rel.find('/') != std::string::npos) SysFile(rel, *contents);
    } else if (IsUnder(*p, "/dev")) {
      if (*p != "/dev") AddDev(RelativeTo(*p, "/dev"));
    } else {
      tree::Set(Files(), *p, Node::String(*contents));
    }
    return contents;
  }

  StatusOr<std::string> ReadLink(std::string_view path) override {
    StatusOr<std::string> target = inner_.ReadLink(path);
    if (!target.ok()) return target;
    std::optional<std::string> p = Normalize(path);
    if (!p || HasDotDot(*p)) return target;
    if (IsUnder(*p, "/sys") && *p != "/sys") {
      SysLink(RelativeTo(*p, "/sys"), *target);
    } else if (IsUnder(*p, "/dev") && *p != "/dev") {
      AddDev(RelativeTo(*p, "/dev"));  // only its existence can be kept
    }
    return target;
  }

  StatusOr<std::vector<std::string>> List(std::string_view dir) override {
    StatusOr<std::vector<std::string>> names = inner_.List(dir);
    if (!names.ok()) return names;
    std::optional<std::string> p = Normalize(dir);
    if (!p || HasDotDot(*p)) return names;
    if (IsUnder(*p, "/sys")) {
      std::string rel = RelativeTo(*p, "/sys");
      if (!rel.empty()) SysKey(rel);
      for (const std::string& name : *names) SysChild(rel, name);
    } else if (IsUnder(*p, "/dev")) {
      std::string rel = RelativeTo(*p, "/dev");
      for (const std::string& name : *names) DevChild(rel.empty() ? name : Join(rel, name));
    } else {
      for (const std::string& name : *names) {
        std::string child = Join(*p, name);
        if (IsUnder(child, "/sys") || IsUnder(child, "/dev")) continue;
        StatusOr<std::string> contents = inner_.ReadFile(child);
        if (contents.ok()) tree::Set(Files(), child, Node::String(*contents));
      }
    }
    return names;
  }

  bool Exists(std::string_view path) override {
    bool exists = inner_.Exists(path);
    if (!exists) return false;
    std::optional<std::string> p = Normalize(path);
    if (!p || HasDotDot(*p)) return true;
    if (IsUnder(*p, "/sys")) {
      if (*p != "/sys") {
        std::string rel = RelativeTo(*p, "/sys");
        size_t slash = rel.rfind('/');
        SysChild(slash == std::string::npos ? "" : rel.substr(0, slash), Base(rel));
      }
    } else if (IsUnder(*p, "/dev")) {
      if (*p != "/dev") DevChild(RelativeTo(*p, "/dev"));
    } else {
      StatusOr<std::string> contents = inner_.ReadFile(*p);
      if (contents.ok()) tree::Set(Files(), *p, Node::String(*contents));
    }
    return true;
  }

 private:
  Node& Sysfs() { return tree::Child(out_->root, "sysfs"); }
  Node& Dev() { return tree::Child(out_->root, "dev", Node::Sequence()); }
  Node& Files() { return tree::Child(out_->root, "files"); }

  Node* FindSysKey(const std::string& rel) { return tree::Find(Sysfs(), rel); }
  Node& SysKey(const std::string& rel) { return tree::Child(Sysfs(), rel); }

  // True if sysfs already says what `name` in directory `parent_rel` is.
  bool SysKnown(const std::string& parent_rel, const std::string& name) {
    if (FindSysKey(parent_rel.empty() ? name : Join(parent_rel, name)) != nullptr) return true;
    if (parent_rel.empty()) return false;
    Node* parent = FindSysKey(parent_rel);
    if (parent == nullptr) return false;
    Node* files = tree::Find(*parent, "files");
    Node* links = tree::Find(*parent, "links");
    return (files != nullptr && tree::Find(*files, name) != nullptr) ||
           (links != nullptr && tree::Find(*links, name) != nullptr);
  }

  // rel has a parent (a file directly in /sys has no place in the format).
  void SysFile(const std::string& rel, const std::string& contents) {
    size_t slash = rel.rfind('/');
    Node& key = SysKey(rel.substr(0, slash));
    tree::Set(tree::Child(key, "files"), rel.substr(slash + 1), Node::String(contents));
  }

  void SysLink(const std::string& rel, const std::string& target) {
    if (Node* key = FindSysKey(rel)) {
      tree::Set(*key, "link", Node::String(target));
      return;
    }
    size_t slash = rel.rfind('/');
    if (slash != std::string::npos) {
      if (Node* parent = FindSysKey(rel.substr(0, slash))) {
        tree::Set(tree::Child(*parent, "links"), rel.substr(slash + 1), Node::String(target));
        return;
      }
    }
    tree::Set(SysKey(rel), "link", Node::String(target));
  }

  // Records what `name` in /sys/<parent_rel> is, asking the inner HostFs.
  void SysChild(const std::string& parent_rel, const std::string& name) {
    if (SysKnown(parent_rel, name)) return;
    std::string rel = parent_rel.empty() ? name : Join(parent_rel, name);
    std::string host = Join("/sys", rel);
    StatusOr<std::string> link = inner_.ReadLink(host);
    if (inner_.List(host).ok()) {
      Node& key = SysKey(rel);
      if (link.ok()) tree::Set(key, "link", Node::String(*link));
      return;
    }
    if (link.ok()) {
      SysLink(rel, *link);
      return;
    }
    if (parent_rel.empty()) return;
    StatusOr<std::string> contents = inner_.ReadFile(host);
    if (contents.ok()) SysFile(rel, *contents);
  }

  void AddDev(const std::string& rel) {
    Node& dev = Dev();
    for (const Node& name : dev.items) {
      if (name.text == rel) return;
    }
    dev.Push(Node::String(rel));
  }

  // A name under /dev: a directory is kept through its entries, one level.
  void DevChild(const std::string& rel) {
    std::string host = Join("/dev", rel);
    StatusOr<std::vector<std::string>> names = inner_.List(host);
    if (!names.ok()) {
      AddDev(rel);
      return;
    }
    for (const std::string& name : *names) {
      if (!inner_.List(Join(host, name)).ok()) AddDev(Join(rel, name));
    }
  }

  HostFs& inner_;
  nvml::Recording* out_;
};

// ---- MaterializeRecordedFs ----

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  StatusCode code = err == EACCES || err == EPERM ? StatusCode::kPermissionDenied
                    : err == ENOENT               ? StatusCode::kNotFound
                                                  : StatusCode::kUnavailable;
  return Status(code, fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

// mkdir -p. Below `trusted` (a prefix of `path` that may hold symlinks, such
// as a temporary directory), an existing symlink is an error rather than
// something to follow, so nothing is created outside the tree.
Status MakeDirs(const std::string& path, const std::string& trusted = "") {
  std::string current;
  for (std::string_view part : Split(path)) {
    current += '/';
    current += part;
    if (mkdir(current.c_str(), 0755) == 0) continue;
    if (errno != EEXIST) return ErrnoError("cannot create directory", current, errno);
    if (current.size() <= trusted.size()) continue;
    struct stat st {};
    if (lstat(current.c_str(), &st) != 0) return ErrnoError("cannot stat", current, errno);
    if (S_ISLNK(st.st_mode)) {
      return InvalidArgumentError(fmt::format("{}: a link the recording does not describe is in the way", current));
    }
    if (!S_ISDIR(st.st_mode)) return ErrnoError("cannot create directory", current, ENOTDIR);
  }
  return OkStatus();
}

Status WriteFile(const std::string& path, std::string_view contents) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return ErrnoError("cannot create", path, errno);
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return ErrnoError("cannot write", path, err);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return ErrnoError("cannot write", path, errno);
  return OkStatus();
}

// Builds the tree. Every path is first resolved through the recording's own
// links (Physical), so creating a directory or file never follows a symlink
// on disk, and nothing lands outside the root.
class Materializer {
 public:
  Materializer(const Node& root, std::string dir) : root_(root), dir_(std::move(dir)) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    if (const Node* sysfs = root_.Find("sysfs"); sysfs != nullptr && sysfs->is_mapping()) {
      for (size_t i = 0; i < sysfs->items.size(); ++i) {
        std::string path = CleanAbsolute("/sys/" + sysfs->keys[i].first);
        if (const Node* link = StringNode(sysfs->items[i].Find("link"))) links_[path] = link->text;
        if (const Node* links = sysfs->items[i].Find("links"); links != nullptr && links->is_mapping()) {
          for (size_t l = 0; l < links->items.size(); ++l) {
            if (const Node* text = StringNode(&links->items[l])) {
              links_[Join(path, links->keys[l].first)] = text->text;
            }
          }
        }
      }
    }
  }

  Status Run() {
    DRA_RETURN_IF_ERROR(MakeDirs(dir_));
    DRA_RETURN_IF_ERROR(Sysfs());
    DRA_RETURN_IF_ERROR(Dev());
    return Files();
  }

 private:
  // The path `path` reaches inside the tree once the recording's links on
  // the way are followed (the last element too when follow_last is set).
  StatusOr<std::string> Physical(const std::string& path, bool follow_last, int depth = 0) {
    if (depth > 40) return InvalidArgumentError(fmt::format("{}: too many levels of links", path));
    std::vector<std::string_view> parts = Split(path);
    std::string current = "/";
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string next = Join(current, parts[i]);
      auto link = links_.find(next);
      bool last = i + 1 == parts.size();
      if (link != links_.end() && (!last || follow_last)) {
        std::string target =
            link->second.starts_with('/') ? CleanAbsolute(link->second) : CleanAbsolute(Join(current, link->second));
        DRA_ASSIGN_OR_RETURN(current, Physical(target, true, depth + 1));
      } else {
        current = std::move(next);
      }
    }
    return current;
  }

  std::string OnDisk(const std::string& physical) const { return physical == "/" ? dir_ : dir_ + physical; }

  Status Symlink(const std::string& path, const std::string& target) {
    DRA_ASSIGN_OR_RETURN(std::string parent, Physical(Parent(path), true));
    DRA_RETURN_IF_ERROR(MakeDirs(OnDisk(parent), dir_));
    std::string at = OnDisk(Join(parent, Base(path)));
    if (symlink(target.c_str(), at.c_str()) != 0) {
      return ErrnoError(fmt::format("cannot create link to {} at", target), at, errno);
    }
    return OkStatus();
  }

  Status Sysfs() {
    const Node* sysfs = root_.Find("sysfs");
    if (sysfs == nullptr || !sysfs->is_mapping()) return OkStatus();
    // Parents before children.
    std::vector<size_t> order(sysfs->items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return sysfs->keys[a].first < sysfs->keys[b].first; });
    for (size_t i : order) {
      std::string path = CleanAbsolute("/sys/" + sysfs->keys[i].first);
      const Node& value = sysfs->items[i];
      if (const Node* link = StringNode(value.Find("link"))) {
        DRA_RETURN_IF_ERROR(Symlink(path, link->text));
      }
      // The key's directory: the link's target, or the path itself.
      DRA_ASSIGN_OR_RETURN(std::string physical, Physical(path, true));
      DRA_RETURN_IF_ERROR(MakeDirs(OnDisk(physical), dir_));
      if (const Node* files = value.Find("files"); files != nullptr && files->is_mapping()) {
        for (size_t f = 0; f < files->items.size(); ++f) {
          if (const Node* text = StringNode(&files->items[f])) {
            DRA_RETURN_IF_ERROR(WriteFile(OnDisk(Join(physical, files->keys[f].first)), text->text));
          }
        }
      }
      if (const Node* links = value.Find("links"); links != nullptr && links->is_mapping()) {
        for (size_t l = 0; l < links->items.size(); ++l) {
          if (const Node* text = StringNode(&links->items[l])) {
            DRA_RETURN_IF_ERROR(Symlink(Join(path, links->keys[l].first), text->text));
          }
        }
      }
    }
    return OkStatus();
  }

  Status Dev() {
    DRA_RETURN_IF_ERROR(MakeDirs(dir_ + "/dev", dir_));
    const Node* dev = root_.Find("dev");
    if (dev == nullptr || !dev->is_sequence()) return OkStatus();
    std::set<std::string> names;
    for (const Node& name : dev->items) {
      if (name.kind == NodeKind::kString) names.insert(CleanAbsolute("/dev/" + name.text));
    }
    for (const std::string& path : names) {
      // A name that is also the parent of another is a directory.
      auto next = names.upper_bound(path);
      bool is_parent = next != names.end() && IsUnder(*next, path);
      if (is_parent) {
        DRA_RETURN_IF_ERROR(MakeDirs(OnDisk(path), dir_));
      } else {
        DRA_RETURN_IF_ERROR(MakeDirs(OnDisk(Parent(path)), dir_));
        DRA_RETURN_IF_ERROR(WriteFile(OnDisk(path), ""));
      }
    }
    return OkStatus();
  }

  Status Files() {
    const Node* files = root_.Find("files");
    if (files == nullptr || !files->is_mapping()) return OkStatus();
    for (size_t i = 0; i < files->items.size(); ++i) {
      const Node* text = StringNode(&files->items[i]);
      if (text == nullptr) continue;
      std::string path = CleanAbsolute(files->keys[i].first);
      DRA_RETURN_IF_ERROR(MakeDirs(OnDisk(Parent(path)), dir_));
      DRA_RETURN_IF_ERROR(WriteFile(OnDisk(path), text->text));
    }
    return OkStatus();
  }

  const Node& root_;
  std::string dir_;
  std::map<std::string, std::string> links_;  // link path -> target, as recorded
};

}  // namespace

std::unique_ptr<HostFs> NewRecordedFs(const nvml::Recording& recording) {
  return std::make_unique<RecordedFs>(recording);
}

std::unique_ptr<HostFs> NewRecordingFs(HostFs& inner, nvml::Recording* out) {
  return std::make_unique<RecordingFs>(inner, out);
}

Status MaterializeRecordedFs(const nvml::Recording& recording, const std::string& dir) {
  if (dir.empty()) return InvalidArgumentError("MaterializeRecordedFs: empty directory");
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(dir, error);
  if (error) {
    return InvalidArgumentError(fmt::format("{}: {}", dir, error.message()));
  }
  return Materializer(recording.root, absolute.string()).Run();
}

}  // namespace dra::discover
