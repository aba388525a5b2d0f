#include "discover/nvml/types.h"

namespace dra::discover::nvml {

const char* ReturnName(Return ret) {
  switch (ret) {
    case kSuccess: return "NVML_SUCCESS";
    case kErrorUninitialized: return "NVML_ERROR_UNINITIALIZED";
    case kErrorInvalidArgument: return "NVML_ERROR_INVALID_ARGUMENT";
    case kErrorNotSupported: return "NVML_ERROR_NOT_SUPPORTED";
    case kErrorNoPermission: return "NVML_ERROR_NO_PERMISSION";
    case kErrorAlreadyInitialized: return "NVML_ERROR_ALREADY_INITIALIZED";
    case kErrorNotFound: return "NVML_ERROR_NOT_FOUND";
    case kErrorInsufficientSize: return "NVML_ERROR_INSUFFICIENT_SIZE";
    case kErrorInsufficientPower: return "NVML_ERROR_INSUFFICIENT_POWER";
    case kErrorDriverNotLoaded: return "NVML_ERROR_DRIVER_NOT_LOADED";
    case kErrorTimeout: return "NVML_ERROR_TIMEOUT";
    case kErrorIrqIssue: return "NVML_ERROR_IRQ_ISSUE";
    case kErrorLibraryNotFound: return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case kErrorFunctionNotFound: return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case kErrorCorruptedInforom: return "NVML_ERROR_CORRUPTED_INFOROM";
    case kErrorGpuIsLost: return "NVML_ERROR_GPU_IS_LOST";
    case kErrorResetRequired: return "NVML_ERROR_RESET_REQUIRED";
    case kErrorOperatingSystem: return "NVML_ERROR_OPERATING_SYSTEM";
    case kErrorLibRmVersionMismatch: return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case kErrorInUse: return "NVML_ERROR_IN_USE";
    case kErrorMemory: return "NVML_ERROR_MEMORY";
    case kErrorNoData: return "NVML_ERROR_NO_DATA";
    case kErrorUnknown: return "NVML_ERROR_UNKNOWN";
    default: return "NVML_ERROR_UNRECOGNISED";
  }
}

}  // namespace dra::discover::nvml
