// LoadNvml: the real NVML library, loaded at run time with dlopen
// (discover/README.md §2.1), behind nvml::Api. Nothing from the CUDA toolkit is
// needed at build time: the C signatures are declared from types.h.
//
// Search order (the first that applies wins; no fallback after it fails):
//   1. DlopenOptions::library_path (--nvml-lib), as given;
//   2. the first regular file (symlinks followed) among
//        R/libnvidia-ml.so.1, R/usr/lib64/..., R/usr/lib/x86_64-linux-gnu/...,
//        R/usr/lib/aarch64-linux-gnu/..., R/lib64/..., R/lib/x86_64-linux-gnu/...,
//        R/lib/aarch64-linux-gnu/...
//      with R = driver_root (--driver-root, default "/"), loaded by its
//      resolved path (the plugin's root.go does the same);
//   3. the bare soname "libnvidia-ml.so.1" through the dynamic loader.
// The library is opened with RTLD_LAZY | RTLD_GLOBAL (go-nvml's flags) and
// every symbol is resolved once, versioned names first:
//   nvmlInitWithFlags; nvmlInit_v2, else nvmlInit (used when flags are 0 or
//   nvmlInitWithFlags is missing); nvmlDeviceGetPciInfo_v3, else _v2, else
//   nvmlDeviceGetPciInfo; nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
//   nvmlEventSetWait_v2, nvmlComputeInstanceGetInfo_v2,
//   nvmlDeviceGetGpuInstancePossiblePlacements_v2, each else its unversioned
//   name (as go-nvml's updateVersionedSymbols falls back).
// A method whose symbols are all missing answers kErrorFunctionNotFound; the
// caller decides whether that symbol was required (README §2.1).
//
// The returned Api owns the library handle and dlcloses it when destroyed:
// call Shutdown() before destroying it. NowMs is the monotonic clock.
// Not thread-safe (one Api per thread; NVML itself is thread-safe).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "discover/nvml/api.h"

namespace dra::discover::nvml {

struct DlopenOptions {
  std::string library_path{};     // --nvml-lib; "" = search (above)
  std::string driver_root = "/";  // --driver-root
};

// Loads NVML. On success *loaded_path (if not null) is the path the library
// was loaded from (the loader's path for the bare soname), and
// *missing_symbols (if not null) lists, in lookup order, every C name looked
// up and not found (a fallback that was found ends its chain), for a
// recording's missingSymbols.
// Errors:
//   kNotFound           no library: the message lists every path tried with
//                       its reason, and dlerror() of the last dlopen;
//   kFailedPrecondition a library file was found but dlopen refused it
//                       (wrong architecture, missing dependency): path and
//                       dlerror().
StatusOr<std::unique_ptr<Api>> LoadNvml(const DlopenOptions& options, std::string* loaded_path,
                                        std::vector<std::string>* missing_symbols = nullptr);

// The paths step 2 above tries for `driver_root`, in order.
std::vector<std::string> NvmlSearchPaths(const std::string& driver_root);

}  // namespace dra::discover::nvml
