// HostFs: the files discover reads outside NVML (sysfs, /dev, /etc/tpu), behind
// one interface so tests and --replay read a recording instead of the host.
//   - DirFs: the real tree; /sys, /dev and / can each be re-rooted
//     (--sysfs-root, --dev-root, --driver-root) so a test can point it at a
//     fake tree made in a temporary directory.
//   - RecordedFs: answers from the "sysfs", "dev" and "files" sections of a
//     recording (nvml/RECORDING.md).
//   - RecordingFs: forwards to another HostFs and writes what it read into
//     a recording.
// Paths are absolute host paths ("/sys/bus/pci/devices/0000:18:00.0/numa_node").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dra::discover {

class HostFs {
 public:
  virtual ~HostFs() = default;

  // Contents of a regular file. kNotFound if it does not exist; other codes
  // for other failures (the message names the path and errno text).
  virtual StatusOr<std::string> ReadFile(std::string_view path) = 0;
  // The target of a symbolic link, as readlink(2) returns it (not resolved).
  // kNotFound if absent, kInvalidArgument if not a link.
  virtual StatusOr<std::string> ReadLink(std::string_view path) = 0;
  // Names in a directory (no "." or ".."), sorted bytewise. kNotFound if absent.
  virtual StatusOr<std::vector<std::string>> List(std::string_view dir) = 0;
  // True if something (file, link, directory, device node) is at `path`.
  virtual bool Exists(std::string_view path) = 0;
};

struct DirFsRoots {
  std::string sysfs_root = "/sys";  // where /sys/... is read
  std::string dev_root = "/dev";    // where /dev/... is read
  std::string root = "/";           // everything else (/etc/tpu/tpu-env)
};

std::unique_ptr<HostFs> NewDirFs(DirFsRoots roots);

}  // namespace dra::discover
