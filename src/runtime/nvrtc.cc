#include "runtime/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace lf::runtime {
namespace {
const char* const kLibraryNames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
}  // namespace

std::vector<std::string> nvrtcCandidatePaths() {
  std::vector<std::string> candidates;
  auto addFolder = [&](std::string folder) {
    if (folder.empty()) return;
    if (folder.back() != '/') folder += '/';
    for (const char* name : kLibraryNames) candidates.push_back(folder + name);
  };
  // A variable naming the library itself or the folder that holds it.
  auto addFromEnv = [&](const char* variable) {
    const char* env = std::getenv(variable);
    if (!env || !*env) return;
    const std::string path = env;
    if (path.find(".so") != std::string::npos)
      candidates.push_back(path);
    else
      addFolder(path);
  };
  addFromEnv("LOOPFUSE_NVRTC_PATH");
  for (const char* name : kLibraryNames) candidates.push_back(name);  // the loader's search path
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    addFolder(std::string(home) + "/lib64");
  }
  addFolder("/usr/local/cuda/lib64");
  // Last: a pip-installed CUDA's copy (python/loopfuse/_backend.py sets it), so an installed
  // toolkit keeps precedence.
  addFromEnv("LOOPFUSE_NVRTC_FALLBACK_PATH");
  return candidates;
}

namespace {

// The few NVRTC entry points used, declared by hand so that no CUDA header is needed to build.
typedef int NvrtcStatus;  // nvrtcResult; 0 is NVRTC_SUCCESS
typedef struct NvrtcProgramOpaque* NvrtcProgram;

struct NvrtcApi {
  void* handle = nullptr;
  std::string path;
  std::string searched;  // every place tried, for the error message
  NvrtcStatus (*version)(int*, int*) = nullptr;
  const char* (*errorString)(NvrtcStatus) = nullptr;
  NvrtcStatus (*createProgram)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  NvrtcStatus (*compileProgram)(NvrtcProgram, int, const char* const*) = nullptr;
  NvrtcStatus (*destroyProgram)(NvrtcProgram*) = nullptr;
  NvrtcStatus (*getProgramLogSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcStatus (*getProgramLog)(NvrtcProgram, char*) = nullptr;
  NvrtcStatus (*getPtxSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcStatus (*getPtx)(NvrtcProgram, char*) = nullptr;
  // Optional (NVRTC 11.1+): a library without them still compiles PTX.
  NvrtcStatus (*getCubinSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcStatus (*getCubin)(NvrtcProgram, char*) = nullptr;
};

template <class F>
bool bind(void* handle, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  return fn != nullptr;
}

NvrtcApi loadApi() {
  NvrtcApi api;
  for (const std::string& path : nvrtcCandidatePaths()) {
    api.searched += (api.searched.empty() ? "" : ", ") + path;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    bool complete = bind(handle, "nvrtcVersion", api.version) &&
                    bind(handle, "nvrtcGetErrorString", api.errorString) &&
                    bind(handle, "nvrtcCreateProgram", api.createProgram) &&
                    bind(handle, "nvrtcCompileProgram", api.compileProgram) &&
                    bind(handle, "nvrtcDestroyProgram", api.destroyProgram) &&
                    bind(handle, "nvrtcGetProgramLogSize", api.getProgramLogSize) &&
                    bind(handle, "nvrtcGetProgramLog", api.getProgramLog) &&
                    bind(handle, "nvrtcGetPTXSize", api.getPtxSize) &&
                    bind(handle, "nvrtcGetPTX", api.getPtx);
    if (!complete) {
      dlclose(handle);
      continue;
    }
    bind(handle, "nvrtcGetCUBINSize", api.getCubinSize);
    bind(handle, "nvrtcGetCUBIN", api.getCubin);
    api.handle = handle;
    api.path = path;
    return api;
  }
  return api;
}

// Opened once per process and kept open: a program's lifetime is short, the library's is not.
const NvrtcApi& api() {
  static const NvrtcApi loaded = loadApi();
  return loaded;
}

std::string statusText(const NvrtcApi& nvrtc, NvrtcStatus status) {
  const char* text = nvrtc.errorString ? nvrtc.errorString(status) : nullptr;
  return text ? text : "NVRTC error " + std::to_string(status);
}

// The program's log without NVRTC's trailing NUL.
std::string programLog(const NvrtcApi& nvrtc, NvrtcProgram program) {
  size_t size = 0;
  if (nvrtc.getProgramLogSize(program, &size) != 0 || size == 0) return "";
  std::string log(size, '\0');
  if (nvrtc.getProgramLog(program, log.data()) != 0) return "";
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

}  // namespace

bool nvrtcAvailable() { return api().handle != nullptr; }

std::string nvrtcVersion() {
  const NvrtcApi& nvrtc = api();
  int major = 0, minor = 0;
  if (!nvrtc.handle || nvrtc.version(&major, &minor) != 0) return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtcDefaultOptions(const std::string& arch) {
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++17", "--fmad=false"};
  // $LOOPFUSE_NVRTC_OPTIONS: more options, separated by white space (e.g.
  // "--ptxas-options=-O1" to rule out a code generator problem). They are part of the cache key.
  if (const char* extra = std::getenv("LOOPFUSE_NVRTC_OPTIONS"); extra != nullptr) {
    std::istringstream words(extra);
    for (std::string word; words >> word;) options.push_back(word);
  }
  return options;
}

namespace {

// Reads the compiled program's PTX or CUBIN into `out`.
bool fetchResult(const NvrtcApi& nvrtc, NvrtcProgram program, bool cubin, NvrtcOutput& out) {
  auto getSize = cubin ? nvrtc.getCubinSize : nvrtc.getPtxSize;
  auto get = cubin ? nvrtc.getCubin : nvrtc.getPtx;
  std::string& text = cubin ? out.cubin : out.ptx;
  if (getSize == nullptr || get == nullptr) return false;
  size_t size = 0;
  if (getSize(program, &size) != 0 || size == 0) return false;
  text.assign(size, '\0');
  if (get(program, text.data()) != 0) return false;
  if (!cubin)
    while (!text.empty() && text.back() == '\0') text.pop_back();
  return true;
}

NvrtcOutput compile(const std::string& source, const std::string& arch,
                    const std::vector<std::string>& extraOptions, bool cubin) {
  NvrtcOutput out;
  const NvrtcApi& nvrtc = api();
  if (!nvrtc.handle) {
    out.log = "libnvrtc not found (tried " + nvrtc.searched +
              "); set LOOPFUSE_NVRTC_PATH to the library or its folder";
    return out;
  }
  NvrtcProgram program = nullptr;
  NvrtcStatus status =
      nvrtc.createProgram(&program, source.c_str(), "loopfuse_kernel.cu", 0, nullptr, nullptr);
  if (status != 0) {
    out.log = "nvrtcCreateProgram: " + statusText(nvrtc, status);
    return out;
  }
  std::vector<std::string> options = nvrtcDefaultOptions(arch);
  options.insert(options.end(), extraOptions.begin(), extraOptions.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  status = nvrtc.compileProgram(program, (int)argv.size(), argv.data());
  out.log = programLog(nvrtc, program);
  if (status == 0) {
    out.ok = fetchResult(nvrtc, program, cubin, out);
    if (!out.ok)
      out.log += cubin ? "\nNVRTC compiled the program but returned no CUBIN (is " + arch +
                             " a real architecture such as sm_90?)"
                       : "\nNVRTC compiled the program but returned no PTX";
  } else if (out.log.empty()) {
    out.log = "nvrtcCompileProgram: " + statusText(nvrtc, status);
  }
  nvrtc.destroyProgram(&program);
  return out;
}

}  // namespace

NvrtcOutput compileCudaToPtx(const std::string& source, const std::string& arch,
                             const std::vector<std::string>& extraOptions) {
  return compile(source, arch, extraOptions, /*cubin=*/false);
}

NvrtcOutput compileCudaToCubin(const std::string& source, const std::string& arch,
                               const std::vector<std::string>& extraOptions) {
  return compile(source, arch, extraOptions, /*cubin=*/true);
}

}  // namespace lf::runtime
