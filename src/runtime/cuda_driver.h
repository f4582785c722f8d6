// The CUDA driver API, opened at run time (dlopen of libcuda.so.1), never linked: a CPU-only
// install needs no CUDA. Only the entry points the CUDA executable uses are resolved; their types
// are declared here by hand so that no CUDA header is needed to build (cuda_driver.cc checks them
// against cuda.h where it is installed).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace lf::runtime::cuda {

// The driver's handle types, spelled without cuda.h.
using Result = int;                    // CUresult; 0 is CUDA_SUCCESS
using Device = int;                    // CUdevice
using DevicePtr = unsigned long long;  // CUdeviceptr
using Context = struct ContextOpaque*;
using Module = struct ModuleOpaque*;
using Function = struct FunctionOpaque*;
using Stream = struct StreamOpaque*;  // nullptr: the legacy default stream

// The few enum values used (CUdevice_attribute, CUfunction_attribute, CUlimit).
enum DeviceAttribute : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMultiprocessorCount = 16,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrCooperativeLaunch = 95,
};
enum FunctionAttribute : int {
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
};

// A failed driver call: the message names the call, the CUDA error (name and text) and what was
// being done (usually the program).
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The resolved entry points. Names follow cuda.h's macros (cuMemAlloc is cuMemAlloc_v2, ...), the
// legacy-default-stream variants (not _ptds/_ptsz).
struct DriverApi {
  Result (*init)(unsigned) = nullptr;
  Result (*driverGetVersion)(int*) = nullptr;
  Result (*getErrorName)(Result, const char**) = nullptr;
  Result (*getErrorString)(Result, const char**) = nullptr;
  Result (*deviceGet)(Device*, int) = nullptr;
  Result (*deviceGetCount)(int*) = nullptr;
  Result (*deviceGetName)(char*, int, Device) = nullptr;
  Result (*deviceGetAttribute)(int*, int, Device) = nullptr;
  Result (*devicePrimaryCtxRetain)(Context*, Device) = nullptr;
  Result (*ctxSetCurrent)(Context) = nullptr;
  Result (*ctxGetCurrent)(Context*) = nullptr;
  Result (*ctxGetDevice)(Device*) = nullptr;
  Result (*moduleLoadData)(Module*, const void*) = nullptr;
  Result (*moduleUnload)(Module) = nullptr;
  Result (*moduleGetFunction)(Function*, Module, const char*) = nullptr;
  Result (*funcGetAttribute)(int*, int, Function) = nullptr;
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, Stream, void**, void**) = nullptr;
  Result (*launchCooperativeKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, Stream, void**) = nullptr;
  Result (*occupancyMaxActiveBlocksPerMultiprocessor)(int*, Function, int, size_t) = nullptr;
  Result (*memAlloc)(DevicePtr*, size_t) = nullptr;
  Result (*memFree)(DevicePtr) = nullptr;
  Result (*memcpyHtoD)(DevicePtr, const void*, size_t) = nullptr;
  Result (*memcpyDtoH)(void*, DevicePtr, size_t) = nullptr;
  Result (*memcpyHtoDAsync)(DevicePtr, const void*, size_t, Stream) = nullptr;
  Result (*memcpyDtoHAsync)(void*, DevicePtr, size_t, Stream) = nullptr;
  Result (*memsetD8)(DevicePtr, unsigned char, size_t) = nullptr;
  Result (*streamSynchronize)(Stream) = nullptr;
};

// True when libcuda could be opened, every entry point resolved and cuInit succeeded. Never throws.
bool driverAvailable();

// The driver, opened and initialised once per process. Throws CudaError when it is absent
// ("no CUDA driver found: ..." with every place searched) or cuInit fails (no device, ...).
// Searched: $LOOPFUSE_CUDA_DRIVER_PATH (the library or its folder), the loader's path,
// /usr/local/nvidia/lib64, /usr/lib/x86_64-linux-gnu, /usr/lib64.
const DriverApi& driver();

// "CUDA_ERROR_X (text)" for a result code.
std::string errorText(Result result);

// Throws CudaError "<call> failed for <what>: CUDA_ERROR_X (text)" unless result is 0.
void check(Result result, const char* call, const std::string& what);

// One device's facts, read once.
struct DeviceInfo {
  Device device = 0;
  Context context = nullptr;  // the context launches run in (made current before each call)
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0;
  bool cooperativeLaunch = false;
  std::string arch() const;  // "sm_90"
};

// The context to use: the calling thread's current context if it has one (inside an XLA FFI call,
// the framework's), else device 0's primary context, retained for the life of the process.
DeviceInfo currentDevice();

}  // namespace lf::runtime::cuda
