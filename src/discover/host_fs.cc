// DirFs: HostFs over the real file system, with /sys, /dev and / re-rooted
// as DirFsRoots says. Stateless, so safe to share between threads.
#include "discover/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace dra::discover {
namespace {

// Longest file ReadFile returns: far above any sysfs attribute or config
// file, and a guard against reading a device such as /dev/zero forever.
constexpr size_t kMaxFileBytes = size_t{64} << 20;

bool IsUnder(std::string_view path, std::string_view dir) {
  return path == dir || (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

std::string StripTrailingSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// errno -> canonical code. A missing path (or a path through a non-directory)
// is kNotFound, as HostFs promises.
StatusCode CodeFor(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return StatusCode::kNotFound;
    case EACCES:
    case EPERM: return StatusCode::kPermissionDenied;
    case EISDIR:
    case ELOOP:
    case ENAMETOOLONG: return StatusCode::kInvalidArgument;
    default: return StatusCode::kUnavailable;
  }
}

class DirFs : public HostFs {
 public:
  explicit DirFs(DirFsRoots roots)
      : sysfs_root_(StripTrailingSlashes(std::move(roots.sysfs_root))),
        dev_root_(StripTrailingSlashes(std::move(roots.dev_root))),
        root_(StripTrailingSlashes(std::move(roots.root))) {}

  StatusOr<std::string> ReadFile(std::string_view path) override {
    DRA_ASSIGN_OR_RETURN(std::string real, Real(path));
    int fd = open(real.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Errno(path, real, errno);
    std::string contents;
    char buffer[8192];
    while (true) {
      ssize_t n = read(fd, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        close(fd);
        return Errno(path, real, err);
      }
      if (n == 0) break;
      contents.append(buffer, static_cast<size_t>(n));
      if (contents.size() > kMaxFileBytes) {
        close(fd);
        return Status(StatusCode::kResourceExhausted,
                      fmt::format("{}: longer than {} bytes", Name(path, real), kMaxFileBytes));
      }
    }
    close(fd);
    return contents;
  }

  StatusOr<std::string> ReadLink(std::string_view path) override {
    DRA_ASSIGN_OR_RETURN(std::string real, Real(path));
    // sysfs reports size 0 for its links, so grow the buffer until it fits.
    std::string target(256, '\0');
    while (true) {
      ssize_t n = readlink(real.c_str(), target.data(), target.size());
      if (n < 0) {
        int err = errno;
        if (err == EINVAL) {
          return InvalidArgumentError(fmt::format("{}: not a symbolic link", Name(path, real)));
        }
        return Errno(path, real, err);
      }
      if (static_cast<size_t>(n) < target.size()) {
        target.resize(static_cast<size_t>(n));
        return target;
      }
      target.resize(target.size() * 2);
    }
  }

  StatusOr<std::vector<std::string>> List(std::string_view dir) override {
    DRA_ASSIGN_OR_RETURN(std::string real, Real(dir));
    DIR* d = opendir(real.c_str());
    if (d == nullptr) {
      int err = errno;
      if (err == ENOTDIR) {
        return InvalidArgumentError(fmt::format("{}: not a directory", Name(dir, real)));
      }
      return Errno(dir, real, err);
    }
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* entry = readdir(d)) {
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
      errno = 0;
    }
    int err = errno;
    closedir(d);
    if (err != 0) return Errno(dir, real, err);
    std::sort(names.begin(), names.end());
    return names;
  }

  bool Exists(std::string_view path) override {
    StatusOr<std::string> real = Real(path);
    if (!real.ok()) return false;
    struct stat st {};
    return lstat(real->c_str(), &st) == 0;
  }

 private:
  // The real path for a host path: /sys/... under sysfs_root, /dev/... under
  // dev_root, everything else under root.
  StatusOr<std::string> Real(std::string_view path) const {
    if (path.empty() || path[0] != '/') {
      return InvalidArgumentError(fmt::format("{}: not an absolute path", path));
    }
    std::string real;
    if (IsUnder(path, "/sys")) {
      real = sysfs_root_ + std::string(path.substr(4));
    } else if (IsUnder(path, "/dev")) {
      real = dev_root_ + std::string(path.substr(4));
    } else {
      real = root_ + std::string(path);
    }
    if (real.empty()) real = "/";
    return real;
  }

  static std::string Name(std::string_view path, const std::string& real) {
    if (path == real) return std::string(path);
    return fmt::format("{} (read at {})", path, real);
  }

  static Status Errno(std::string_view path, const std::string& real, int err) {
    return Status(CodeFor(err), fmt::format("{}: {}", Name(path, real), std::strerror(err)));
  }

  std::string sysfs_root_;
  std::string dev_root_;
  std::string root_;
};

}  // namespace

std::unique_ptr<HostFs> NewDirFs(DirFsRoots roots) { return std::make_unique<DirFs>(std::move(roots)); }

}  // namespace dra::discover
