// The CUDA Executable: CUBIN from the cache, one module per executable, device scratch per stream.
#include "runtime/cuda_executable.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/compile_cache.h"
#include "runtime/cuda_driver.h"
#include "runtime/launch_geometry.h"
#include "runtime/nvrtc.h"

namespace lf::runtime {
namespace {

using namespace cuda;

// Device memory, freed with the executable (in the context it was allocated in).
struct DeviceBuffer {
  DevicePtr ptr = 0;
  size_t bytes = 0;
};

DeviceBuffer allocate(size_t bytes, const std::string& what) {
  DeviceBuffer b;
  b.bytes = bytes;
  // cuMemAlloc refuses 0 bytes; a zero-size array still gets a valid pointer.
  check(driver().memAlloc(&b.ptr, std::max<size_t>(bytes, 256)), "cuMemAlloc", what);
  return b;
}

std::string readBinaryFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof())
    throw std::runtime_error("cannot read the cached kernel " + path);
  if (bytes.empty()) throw std::runtime_error("the cached kernel " + path + " is empty");
  return bytes;
}

size_t roundUp64(int64_t bytes) { return static_cast<size_t>((bytes + 63) / 64 * 64); }

class CudaExecutableImpl : public CudaExecutable {
 public:
  CudaExecutableImpl(codegen::EmittedKernel kernel, CudaBinary binary, DeviceInfo device)
      : kernel_(std::move(kernel)), stats_(std::move(binary.stats)), device_(std::move(device)) {
    what_ = "program " + kernel_.entryName;
    const DriverApi& api = driver();
    makeCurrent();
    check(api.moduleLoadData(&module_, binary.cubin.data()), "cuModuleLoadData", what_);
    try {
      check(api.moduleGetFunction(&function_, module_, kernel_.entryName.c_str()),
            "cuModuleGetFunction", what_);
      readInfo();
    } catch (...) {
      api.moduleUnload(module_);
      throw;
    }
  }

  ~CudaExecutableImpl() override {
    // Errors are ignored here: a destructor cannot report them, and a broken context frees all.
    const DriverApi& api = driver();
    api.ctxSetCurrent(device_.context);
    for (auto& [stream, buffer] : scratch_) api.memFree(buffer.ptr);
    for (const DeviceBuffer& b : hostInputs_) api.memFree(b.ptr);
    for (const DeviceBuffer& b : hostOutputs_) api.memFree(b.ptr);
    api.moduleUnload(module_);
  }

  const codegen::EmittedKernel& kernel() const override { return kernel_; }
  const CompileStats& stats() const override { return stats_; }
  const CudaKernelInfo& info() const override { return info_; }

  // Host pointers: copy in, launch on the default stream, wait, copy out. One host run at a time
  // per executable (they share the device copies of the inputs and outputs).
  void runRaw(const void* const* inputs, void* const* outputs) const override {
    const DriverApi& api = driver();
    std::lock_guard<std::mutex> lock(hostMutex_);
    makeCurrent();
    if (hostInputs_.empty() && hostOutputs_.empty()) allocateHostRunBuffers();
    std::vector<const void*> deviceIn;
    std::vector<void*> deviceOut;
    for (size_t i = 0; i < hostInputs_.size(); ++i) {
      if (hostInputs_[i].bytes > 0)
        check(api.memcpyHtoD(hostInputs_[i].ptr, inputs[i], hostInputs_[i].bytes), "cuMemcpyHtoD",
              what_ + " (input " + std::to_string(i) + ")");
      deviceIn.push_back(reinterpret_cast<const void*>(hostInputs_[i].ptr));
    }
    for (const DeviceBuffer& b : hostOutputs_) deviceOut.push_back(reinterpret_cast<void*>(b.ptr));
    launch(nullptr, deviceIn.data(), deviceOut.data());
    // Faults inside the kernel (illegal address, ...) surface here.
    check(api.streamSynchronize(nullptr), "the kernel run (cuStreamSynchronize)", what_);
    for (size_t i = 0; i < hostOutputs_.size(); ++i) {
      if (hostOutputs_[i].bytes > 0)
        check(api.memcpyDtoH(outputs[i], hostOutputs_[i].ptr, hostOutputs_[i].bytes),
              "cuMemcpyDtoH", what_ + " (output " + std::to_string(i) + ")");
    }
  }

  void runOnStream(void* stream, const void* const* inputs, void* const* outputs) const override {
    makeCurrent();
    launch(static_cast<Stream>(stream), inputs, outputs);
  }

 private:
  void makeCurrent() const {
    check(driver().ctxSetCurrent(device_.context), "cuCtxSetCurrent", what_);
  }

  void readInfo() {
    const DriverApi& api = driver();
    auto attribute = [&](int which) {
      int value = 0;
      check(api.funcGetAttribute(&value, which, function_), "cuFuncGetAttribute", what_);
      return value;
    };
    info_.deviceName = device_.name;
    info_.arch = device_.arch();
    info_.registers = attribute(kFuncNumRegs);
    info_.localBytes = attribute(kFuncLocalSizeBytes);
    info_.staticSharedBytes = attribute(kFuncSharedSizeBytes);
    info_.maxThreadsPerBlock = attribute(kFuncMaxThreadsPerBlock);

    BlockLimit limit;
    limit.maxThreads = static_cast<unsigned>(info_.maxThreadsPerBlock);
    limit.why = " (it uses " + std::to_string(info_.registers) + " registers per thread)";
    auto cooperativeBlocks = [&](unsigned blockThreads) {
      if (!device_.cooperativeLaunch)
        throw CudaError(what_ + " needs a cooperative launch, which " + device_.name +
                        " does not support");
      int perSm = 0;
      check(api.occupancyMaxActiveBlocksPerMultiprocessor(&perSm, function_,
                                                          static_cast<int>(blockThreads), 0),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor", what_);
      if (perSm < 1)
        throw CudaError(what_ + ": not one block of " + std::to_string(blockThreads) +
                        " threads fits on a multiprocessor");
      return static_cast<unsigned>(perSm * device_.multiprocessors);
    };
    const LaunchGeometry g =
        chooseLaunchGeometry(kernel_, blockThreadsOverride(), limit, cooperativeBlocks, what_);
    info_.gridBlocks = g.gridBlocks;
    info_.blockThreads = g.blockThreads;
    info_.cooperative = g.cooperative;
  }

  void allocateHostRunBuffers() const {
    for (size_t i = 0; i < kernel_.inputs.size(); ++i)
      hostInputs_.push_back(allocate(static_cast<size_t>(kernel_.inputs[i].byteSize()),
                                     what_ + " (input " + std::to_string(i) + ")"));
    for (size_t i = 0; i < kernel_.outputs.size(); ++i)
      hostOutputs_.push_back(allocate(static_cast<size_t>(kernel_.outputs[i].byteSize()),
                                      what_ + " (output " + std::to_string(i) + ")"));
  }

  // The scratch arena and, after it, the grid barrier's two counters, zeroed once: the barrier
  // leaves its count at zero after every use, so it needs no reset between launches.
  const DeviceBuffer& scratchFor(Stream stream) const {
    std::lock_guard<std::mutex> lock(scratchMutex_);
    auto it = scratch_.find(stream);
    if (it != scratch_.end()) return it->second;
    const size_t bytes = roundUp64(kernel_.scratchBytes) + 64;
    DeviceBuffer b = allocate(bytes, what_ + " (scratch)");
    if (Result r = driver().memsetD8(b.ptr, 0, bytes); r != 0) {
      driver().memFree(b.ptr);
      check(r, "cuMemsetD8", what_ + " (scratch)");
    }
    return scratch_.emplace(stream, b).first->second;
  }

  void launch(Stream stream, const void* const* inputs, void* const* outputs) const {
    const DeviceBuffer& scratch = scratchFor(stream);
    KernelArgs args{};
    std::copy_n(inputs, kernel_.inputs.size(), args.in);
    std::copy_n(outputs, kernel_.outputs.size(), args.out);
    args.scratch = reinterpret_cast<void*>(scratch.ptr);
    args.barrier = reinterpret_cast<unsigned int*>(scratch.ptr + roundUp64(kernel_.scratchBytes));
    void* params[] = {&args};
    const DriverApi& api = driver();
    if (info_.cooperative) {
      check(api.launchCooperativeKernel(function_, info_.gridBlocks, 1, 1, info_.blockThreads, 1, 1,
                                        0, stream, params),
            "cuLaunchCooperativeKernel", what_);
    } else {
      check(api.launchKernel(function_, info_.gridBlocks, 1, 1, info_.blockThreads, 1, 1, 0, stream,
                             params, nullptr),
            "cuLaunchKernel", what_);
    }
  }

  codegen::EmittedKernel kernel_;
  CompileStats stats_;
  DeviceInfo device_;
  std::string what_;
  CudaKernelInfo info_;
  Module module_ = nullptr;
  Function function_ = nullptr;
  mutable std::mutex scratchMutex_;
  mutable std::unordered_map<Stream, DeviceBuffer> scratch_;
  mutable std::mutex hostMutex_;
  mutable std::vector<DeviceBuffer> hostInputs_, hostOutputs_;
};

}  // namespace

CudaBinary compileCubinCached(const std::string& source, const std::string& arch,
                              const CompileOptions& options) {
  const std::string version = nvrtcVersion();
  if (version.empty())
    throw std::runtime_error(compileCudaToCubin("", arch).log);  // says where it searched
  std::string material = source;
  material += '\0';
  for (const std::string& option : nvrtcDefaultOptions(arch)) material += option + " ";
  material += '\0';
  material += "nvrtc " + version;
  CudaBinary binary;
  binary.stats = cachedArtifact(material, ".cubin", options, [&] {
    NvrtcOutput out = compileCudaToCubin(source, arch);
    if (!out.ok)
      throw std::runtime_error("NVRTC could not compile the kernel for " + arch + ":\n" + out.log);
    binary.cubin = out.cubin;
    return out.cubin;
  });
  if (binary.stats.cacheHit) binary.cubin = readBinaryFile(binary.stats.objectPath);
  return binary;
}

std::unique_ptr<Executable> Executable::compileCuda(const codegen::EmittedKernel& kernel,
                                                    const CompileOptions& options) {
  checkKernelArgs(kernel, "Executable::compileCuda");
  DeviceInfo device = currentDevice();  // throws "no CUDA driver found" first, before NVRTC runs
  CudaBinary binary = compileCubinCached(kernel.source, device.arch(), options);
  return std::make_unique<CudaExecutableImpl>(kernel, std::move(binary), std::move(device));
}

}  // namespace lf::runtime
