// HostFs backends over a recording's "sysfs", "dev" and "files" sections
// (nvml/RECORDING.md, "Host files"): RecordedFs answers from one (--replay),
// RecordingFs writes what another HostFs read into one (--record), and
// MaterializeRecordedFs turns one into a real directory tree for tests.
//
// The recording as a file tree (one namespace of absolute paths):
//   sysfs key K          -> directory /sys/K; if the entry has "link", /sys/K
//                           is also a symbolic link (readlink gives it) through
//                           which its files are read, as in the real sysfs;
//   sysfs K files[n]     -> regular file /sys/K/n with those contents;
//   sysfs K links[n]     -> symbolic link /sys/K/n (not a directory);
//   dev name N           -> /dev/N exists; it reads as "" (like the empty file
//                           MaterializeRecordedFs writes);
//   files[P]             -> regular file P.
// Every ancestor of these is a directory, so listing /sys/bus/pci gives
// "devices" when a key below it exists; listings are sorted bytewise.
// A path not in that tree does not exist (kNotFound). Paths are normalised
// lexically ("//" and "." removed, trailing "/" dropped; ".." is not resolved
// and so is never found).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "discover/host_fs.h"
#include "discover/nvml/recording.h"

namespace dra::discover {

// A HostFs answering from `recording` (copied; the recording need not
// outlive it). Errors: kNotFound for a path not held; kInvalidArgument for
// ReadLink of a non-link, List of a non-directory, ReadFile of a directory.
// ReadFile of a link the recording holds only as a link is kNotFound (its
// target's contents were not recorded). Thread-compatible (const after
// construction).
std::unique_ptr<HostFs> NewRecordedFs(const nvml::Recording& recording);

// A HostFs that forwards to `inner` and records each successful answer into
// `out` (both borrowed; they must outlive it), so that NewRecordedFs over
// `out` gives the same answers for the same calls:
//   ReadFile /sys/D/n -> sysfs[D].files[n]; /dev/N -> dev N; other P -> files[P];
//   ReadLink /sys/P   -> sysfs[P].link if P is a key, else sysfs[parent].links[n]
//                        if the parent is a key, else a new key P with "link";
//   List /sys/D       -> key D, and each name not yet recorded is classified by
//                        asking `inner` (a directory: a key, with its link if it
//                        is one; else a link; else a readable file: its contents;
//                        a name that is none of these, such as a write-only
//                        attribute, is left out);
//   List /dev/D       -> each entry as a dev name; a subdirectory through its
//                        entries one level down (an empty one is left out);
//   List other D      -> each readable regular file in it, with its contents;
//   Exists P          -> as one listed name (above).
// Failed calls record nothing (a path the recording lacks does not exist).
// ReadLink under /dev and outside /sys cannot be represented and is not
// recorded. Not thread-safe.
std::unique_ptr<HostFs> NewRecordingFs(HostFs& inner, nvml::Recording* out);

// Writes the recording's host files as a real tree for tests: /sys/... under
// dir/sys, /dev/... under dir/dev (entries as empty regular files) and other
// paths under dir, so NewDirFs({dir + "/sys", dir + "/dev", dir}) reads what
// NewRecordedFs reads. Symbolic links are written verbatim. A sysfs key with
// a link gets its target directory (the link resolved inside the tree; an
// absolute target is taken as a path inside the tree too) holding its files.
// Nothing is ever written outside `dir`: paths are resolved through the
// recording's own links, never through the file system's. Differences that
// remain: listing an ancestor of a link target (dir/sys/devices) shows the
// target directories, which NewRecordedFs does not, and an absolute link
// read through DirFs leads to the host path.
// Errors name the path and the system's error text.
Status MaterializeRecordedFs(const nvml::Recording& recording, const std::string& dir);

}  // namespace dra::discover
