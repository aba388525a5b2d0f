// MapFs: an in-memory HostFs for unit tests: files, symbolic links (possibly
// dangling) and directories, by absolute path. Directories are implied by the
// paths below them. Links are not followed when reading; Exists() is false
// for a dangling link, as stat(2) is.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "discover/host_fs.h"

namespace dra::discover::testing {

class MapFs : public HostFs {
 public:
  void File(const std::string& path, std::string contents) { files_[path] = std::move(contents); }
  void Link(const std::string& path, std::string target) { links_[path] = std::move(target); }
  // An empty directory.
  void Dir(const std::string& path) { dirs_.insert(path); }
  // Replaces whatever is at `path` by a link whose target does not exist.
  void DanglingLink(const std::string& path, std::string target) {
    files_.erase(path);
    links_[path] = std::move(target);
    dangling_.insert(path);
  }

  StatusOr<std::string> ReadFile(std::string_view path) override {
    auto it = files_.find(std::string(path));
    if (it == files_.end()) return NotFoundError(std::string(path) + ": no such file");
    return it->second;
  }
  StatusOr<std::string> ReadLink(std::string_view path) override {
    auto it = links_.find(std::string(path));
    if (it != links_.end()) return it->second;
    if (Exists(path)) return InvalidArgumentError(std::string(path) + ": not a link");
    return NotFoundError(std::string(path) + ": no such link");
  }
  StatusOr<std::vector<std::string>> List(std::string_view dir) override {
    std::string prefix = std::string(dir) + "/";
    std::set<std::string> names;
    auto collect = [&](const std::string& path) {
      if (path.compare(0, prefix.size(), prefix) != 0) return;
      std::string rest = path.substr(prefix.size());
      names.insert(rest.substr(0, rest.find('/')));
    };
    for (const auto& [path, contents] : files_) collect(path);
    for (const auto& [path, target] : links_) collect(path);
    for (const std::string& path : dirs_) collect(path);
    if (names.empty() && !dirs_.contains(std::string(dir))) {
      return NotFoundError(std::string(dir) + ": no such directory");
    }
    return std::vector<std::string>(names.begin(), names.end());
  }
  bool Exists(std::string_view path) override {
    std::string p(path);
    if (files_.contains(p) || dirs_.contains(p)) return true;
    if (links_.contains(p)) return !dangling_.contains(p);
    return List(path).ok();
  }

 private:
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> links_;
  std::set<std::string> dirs_;
  std::set<std::string> dangling_;
};

}  // namespace dra::discover::testing
