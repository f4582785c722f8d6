// The emulated CUDA Executable (cuda_emulator.h): rewrite the prelude, append a launcher, build it
// like a CPU kernel, and launch it with the GPU's geometry.
#include "runtime/cuda_emulator.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "codegen/prelude_sources.h"
#include "runtime/compile_cache.h"
#include "runtime/host_compiler.h"
#include "runtime/launch_geometry.h"
#include "support/environment.h"

namespace lf::runtime {
namespace {

using LaunchFn = const char* (*)(const KernelArgs*, unsigned, unsigned, int);
constexpr const char* kLauncher = "lf_emu_launch";

class CudaEmulatedExecutable : public Executable {
 public:
  CudaEmulatedExecutable(codegen::EmittedKernel kernel, CompileStats stats,
                         const CudaEmulation& emulation)
      : kernel_(std::move(kernel)), stats_(std::move(stats)) {
    const std::string what = "program " + kernel_.entryName + " (emulated)";
    // The GPU's limits do not apply on the host; the CUDA maximum does.
    geometry_ = chooseLaunchGeometry(
        kernel_, blockThreadsOverride(), BlockLimit{1024, ""},
        [&](unsigned) { return emulation.gridBlocks; }, what);
    flags_ = (geometry_.threadMode ? 1 : 0) | (geometry_.cooperative ? 2 : 0) |
             (emulation.reverse ? 4 : 0);
    handle_ = dlopen(stats_.objectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr)
      throw std::runtime_error("cannot load the emulated kernel " + stats_.objectPath + ": " +
                               dlerror());
    launch_ = reinterpret_cast<LaunchFn>(dlsym(handle_, kLauncher));
    if (launch_ == nullptr) {
      dlclose(handle_);
      throw std::runtime_error("the emulated kernel " + stats_.objectPath + " has no " + kLauncher);
    }
  }

  ~CudaEmulatedExecutable() override { dlclose(handle_); }

  const codegen::EmittedKernel& kernel() const override { return kernel_; }
  const CompileStats& stats() const override { return stats_; }

  void runRaw(const void* const* inputs, void* const* outputs) const override {
    // Zeroed like the GPU runtime's arena (the grid barrier's counters follow it there).
    std::vector<uint64_t> scratch(static_cast<size_t>(kernel_.scratchBytes + 7) / 8 + 8, 0);
    KernelArgs args{};
    std::copy_n(inputs, kernel_.inputs.size(), args.in);
    std::copy_n(outputs, kernel_.outputs.size(), args.out);
    args.scratch = scratch.data();
    // Launches share the launcher's thread-local state only within one host thread.
    const char* error = launch_(&args, geometry_.gridBlocks, geometry_.blockThreads, flags_);
    if (error != nullptr)
      throw std::runtime_error("the emulated launch of " + kernel_.entryName + " (" +
                               std::to_string(geometry_.gridBlocks) + " blocks of " +
                               std::to_string(geometry_.blockThreads) +
                               " threads) failed: " + error);
  }

 private:
  codegen::EmittedKernel kernel_;
  CompileStats stats_;
  LaunchGeometry geometry_;
  int flags_ = 0;
  void* handle_ = nullptr;
  LaunchFn launch_ = nullptr;
};

}  // namespace

std::string cudaEmulatorSource(const codegen::EmittedKernel& kernel) {
  const std::string cudaPrelude = codegen::preludeText("lf_cuda.h");
  std::string source = kernel.source;
  const size_t at = source.find(cudaPrelude);
  if (at == std::string::npos)
    throw std::logic_error("the kernel's source does not hold the CUDA prelude lf_cuda.h");
  source.replace(at, cudaPrelude.size(), codegen::preludeText("lf_cuda_emu.h"));
  source += "\nextern \"C\" const char* " + std::string(kLauncher) +
            "(const LfKernelArgs* args, unsigned grid, unsigned block, int flags) {\n"
            "  return lf_emu::launchKernel(" +
            kernel.entryName + ", args, grid, block, flags);\n}\n";
  return source;
}

CudaEmulation cudaEmulationFromEnvironment() {
  CudaEmulation e;
  if (const char* order = std::getenv("LOOPFUSE_CUDA_EMU_ORDER"); order && *order) {
    const std::string o(order);
    if (o != "forward" && o != "reverse")
      throw std::invalid_argument("LOOPFUSE_CUDA_EMU_ORDER must be forward or reverse, got '" + o +
                                  "'");
    e.reverse = o == "reverse";
  }
  e.gridBlocks = static_cast<unsigned>(
      integerFromEnvironment("LOOPFUSE_CUDA_EMU_GRID_BLOCKS", 1, 64).value_or(e.gridBlocks));
  return e;
}

std::unique_ptr<Executable> compileCudaEmulated(const codegen::EmittedKernel& kernel,
                                                const CudaEmulation& emulation,
                                                const CompileOptions& options) {
  checkKernelArgs(kernel, "compileCudaEmulated");
  CompileOptions compile = options;
  compile.optLevel = hostOptimizationLevel(options.optLevel, "-O1");
  CompileStats stats = compileCached(cudaEmulatorSource(kernel), compile);
  return std::make_unique<CudaEmulatedExecutable>(kernel, std::move(stats), emulation);
}

}  // namespace lf::runtime
