#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#ifdef LOOPFUSE_HAVE_CUDA_HEADERS
#include <cuda.h>
#endif

namespace lf::runtime::cuda {
namespace {

#ifdef LOOPFUSE_HAVE_CUDA_HEADERS
// The hand-written declarations must agree with the real header where it is installed.
static_assert(sizeof(DevicePtr) == sizeof(CUdeviceptr));
static_assert(sizeof(Device) == sizeof(CUdevice));
static_assert(int{kAttrMaxThreadsPerBlock} == int{CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK});
static_assert(int{kAttrMultiprocessorCount} == int{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT});
static_assert(int{kAttrComputeCapabilityMajor} ==
              int{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR});
static_assert(int{kAttrComputeCapabilityMinor} ==
              int{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR});
static_assert(int{kAttrCooperativeLaunch} == int{CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH});
static_assert(int{kFuncMaxThreadsPerBlock} == int{CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK});
static_assert(int{kFuncSharedSizeBytes} == int{CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES});
static_assert(int{kFuncLocalSizeBytes} == int{CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES});
static_assert(int{kFuncNumRegs} == int{CU_FUNC_ATTRIBUTE_NUM_REGS});
#endif

struct LoadedDriver {
  DriverApi api;
  void* handle = nullptr;
  std::string error;  // why the driver cannot be used; empty when it can
};

std::vector<std::string> candidatePaths() {
  const char* name = "libcuda.so.1";
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("LOOPFUSE_CUDA_DRIVER_PATH"); env && *env) {
    std::string path = env;
    if (path.find(".so") != std::string::npos)
      candidates.push_back(path);
    else
      candidates.push_back(path + (path.back() == '/' ? "" : "/") + name);
  }
  candidates.push_back(name);  // the loader's search path
  for (const char* folder :
       {"/usr/local/nvidia/lib64/", "/usr/lib/x86_64-linux-gnu/", "/usr/lib64/"})
    candidates.push_back(std::string(folder) + name);
  return candidates;
}

template <class F>
bool bind(void* handle, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  if (fn == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return fn != nullptr;
}

// Resolves every entry point; returns the names that are missing (empty when complete).
std::string bindAll(void* h, DriverApi& a) {
  std::string missing;
  bind(h, "cuInit", a.init, missing);
  bind(h, "cuDriverGetVersion", a.driverGetVersion, missing);
  bind(h, "cuGetErrorName", a.getErrorName, missing);
  bind(h, "cuGetErrorString", a.getErrorString, missing);
  bind(h, "cuDeviceGet", a.deviceGet, missing);
  bind(h, "cuDeviceGetCount", a.deviceGetCount, missing);
  bind(h, "cuDeviceGetName", a.deviceGetName, missing);
  bind(h, "cuDeviceGetAttribute", a.deviceGetAttribute, missing);
  bind(h, "cuDevicePrimaryCtxRetain", a.devicePrimaryCtxRetain, missing);
  bind(h, "cuCtxSetCurrent", a.ctxSetCurrent, missing);
  bind(h, "cuCtxGetCurrent", a.ctxGetCurrent, missing);
  bind(h, "cuCtxGetDevice", a.ctxGetDevice, missing);
  bind(h, "cuModuleLoadData", a.moduleLoadData, missing);
  bind(h, "cuModuleUnload", a.moduleUnload, missing);
  bind(h, "cuModuleGetFunction", a.moduleGetFunction, missing);
  bind(h, "cuFuncGetAttribute", a.funcGetAttribute, missing);
  bind(h, "cuLaunchKernel", a.launchKernel, missing);
  bind(h, "cuLaunchCooperativeKernel", a.launchCooperativeKernel, missing);
  bind(h, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
       a.occupancyMaxActiveBlocksPerMultiprocessor, missing);
  bind(h, "cuMemAlloc_v2", a.memAlloc, missing);
  bind(h, "cuMemFree_v2", a.memFree, missing);
  bind(h, "cuMemcpyHtoD_v2", a.memcpyHtoD, missing);
  bind(h, "cuMemcpyDtoH_v2", a.memcpyDtoH, missing);
  bind(h, "cuMemcpyHtoDAsync_v2", a.memcpyHtoDAsync, missing);
  bind(h, "cuMemcpyDtoHAsync_v2", a.memcpyDtoHAsync, missing);
  bind(h, "cuMemsetD8_v2", a.memsetD8, missing);
  bind(h, "cuStreamSynchronize", a.streamSynchronize, missing);
  return missing;
}

LoadedDriver load() {
  LoadedDriver loaded;
  std::string searched;
  for (const std::string& path : candidatePaths()) {
    searched += (searched.empty() ? "" : ", ") + path;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) continue;
    DriverApi api;
    std::string missing = bindAll(handle, api);
    if (!missing.empty()) {
      loaded.error = "the CUDA driver " + path + " lacks " + missing + " (too old a driver?)";
      dlclose(handle);
      return loaded;
    }
    loaded.api = api;
    loaded.handle = handle;
    break;
  }
  if (loaded.handle == nullptr) {
    loaded.error = "no CUDA driver found: could not open libcuda.so.1 (tried " + searched +
                   "); install the NVIDIA driver or set LOOPFUSE_CUDA_DRIVER_PATH";
    return loaded;
  }
  if (Result r = loaded.api.init(0); r != 0) {
    // Not errorText(): it reads the driver this function is still loading.
    const char* name = nullptr;
    const char* text = nullptr;
    loaded.api.getErrorName(r, &name);
    loaded.api.getErrorString(r, &text);
    loaded.error = "the CUDA driver could not start: cuInit failed: " +
                   std::string(name ? name : "CUDA error " + std::to_string(r)) +
                   (text ? " (" + std::string(text) + ")" : "");
  }
  return loaded;
}

// Opened once per process and kept open.
const LoadedDriver& loadedDriver() {
  static const LoadedDriver loaded = load();
  return loaded;
}

}  // namespace

bool driverAvailable() { return loadedDriver().error.empty(); }

const DriverApi& driver() {
  const LoadedDriver& loaded = loadedDriver();
  if (!loaded.error.empty()) throw CudaError(loaded.error);
  return loaded.api;
}

std::string errorText(Result result) {
  const LoadedDriver& loaded = loadedDriver();
  const char* name = nullptr;
  const char* text = nullptr;
  if (loaded.handle != nullptr) {
    loaded.api.getErrorName(result, &name);
    loaded.api.getErrorString(result, &text);
  }
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text) out += " (" + std::string(text) + ")";
  return out;
}

void check(Result result, const char* call, const std::string& what) {
  if (result != 0)
    throw CudaError(std::string(call) + " failed for " + what + ": " + errorText(result));
}

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
}

DeviceInfo currentDevice() {
  const DriverApi& api = driver();
  const std::string what = "the CUDA device";
  DeviceInfo info;
  check(api.ctxGetCurrent(&info.context), "cuCtxGetCurrent", what);
  if (info.context != nullptr) {
    check(api.ctxGetDevice(&info.device), "cuCtxGetDevice", what);
  } else {
    int count = 0;
    check(api.deviceGetCount(&count), "cuDeviceGetCount", what);
    if (count == 0) throw CudaError("no CUDA device found (the driver reports none)");
    check(api.deviceGet(&info.device, 0), "cuDeviceGet", what);
    check(api.devicePrimaryCtxRetain(&info.context, info.device), "cuDevicePrimaryCtxRetain", what);
    check(api.ctxSetCurrent(info.context), "cuCtxSetCurrent", what);
  }
  char name[256] = {};
  check(api.deviceGetName(name, sizeof name, info.device), "cuDeviceGetName", what);
  info.name = name;
  auto attribute = [&](int which) {
    int value = 0;
    check(api.deviceGetAttribute(&value, which, info.device), "cuDeviceGetAttribute", what);
    return value;
  };
  info.ccMajor = attribute(kAttrComputeCapabilityMajor);
  info.ccMinor = attribute(kAttrComputeCapabilityMinor);
  info.multiprocessors = attribute(kAttrMultiprocessorCount);
  info.maxThreadsPerBlock = attribute(kAttrMaxThreadsPerBlock);
  info.cooperativeLaunch = attribute(kAttrCooperativeLaunch) != 0;
  return info;
}

}  // namespace lf::runtime::cuda
