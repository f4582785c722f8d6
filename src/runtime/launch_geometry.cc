// The launch geometry of a CUDA-target kernel (see launch_geometry.h).
#include "runtime/launch_geometry.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "runtime/cuda_driver.h"
#include "support/diagnostic.h"
#include "support/environment.h"

namespace lf::runtime {
namespace {

cuda::CudaError tooManyThreads(const BlockLimit& limit, unsigned asked, const std::string& what) {
  return cuda::CudaError(what + " can run at most " + std::to_string(limit.maxThreads) +
                         " threads per block" + limit.why + "; asked for " + std::to_string(asked));
}

// A batch-mapped kernel: one thread per chain (blocks of the planned size, enough of them for
// every chain) or one block per chain. Chains never wait for each other: a plain launch.
LaunchGeometry batchGeometry(const codegen::EmittedKernel& kernel, unsigned requested,
                             const BlockLimit& limit, const std::string& what) {
  LaunchGeometry g;
  const bool perBlock = kernel.cudaMode == "batch-block";
  g.threadMode = !perBlock;
  if (!perBlock && requested != 0) {
    throw cuda::CudaError(what + " runs one chain per thread, each in thread mode; " +
                          "LOOPFUSE_CUDA_BLOCK_THREADS does not apply (LOOPFUSE_BATCH=off runs " +
                          "it as one kernel over the whole batch)");
  }
  g.blockThreads = requested != 0 ? requested : std::max(1u, kernel.blockThreads);
  if (g.blockThreads > limit.maxThreads) {
    if (perBlock) throw tooManyThreads(limit, g.blockThreads, what);
    // One thread per chain: smaller blocks, more of them.
    g.blockThreads = std::max(1u, limit.maxThreads / 32 * 32);
  }
  const auto chains = static_cast<unsigned long long>(kernel.chains);
  g.gridBlocks =
      static_cast<unsigned>(perBlock ? chains : (chains + g.blockThreads - 1) / g.blockThreads);
  return g;
}

}  // namespace

void checkKernelArgs(const codegen::EmittedKernel& kernel, const std::string& caller) {
  if (kernel.target != codegen::Target::Cuda)
    throw std::invalid_argument(caller + " needs a kernel emitted for the CUDA target");
  if (kernel.source.find("#define LF_MAX_ARGS " + std::to_string(kMaxKernelArgs)) ==
      std::string::npos)
    throw std::logic_error("the CUDA prelude's LF_MAX_ARGS differs from the runtime's " +
                           std::to_string(kMaxKernelArgs));
  if (kernel.inputs.size() > kMaxKernelArgs || kernel.outputs.size() > kMaxKernelArgs)
    throw CompileError(SourceLoc{}, "the program has " + std::to_string(kernel.inputs.size()) +
                                        " inputs and " + std::to_string(kernel.outputs.size()) +
                                        " outputs; the CUDA target passes at most " +
                                        std::to_string(kMaxKernelArgs) + " of each");
}

unsigned blockThreadsOverride() {
  return static_cast<unsigned>(
      integerFromEnvironment("LOOPFUSE_CUDA_BLOCK_THREADS", 1, 1024).value_or(0));
}

LaunchGeometry chooseLaunchGeometry(const codegen::EmittedKernel& kernel, unsigned requested,
                                    const BlockLimit& limit,
                                    const std::function<unsigned(unsigned)>& cooperativeBlocks,
                                    const std::string& what) {
  if (kernel.chains > 0) return batchGeometry(kernel, requested, limit, what);
  LaunchGeometry g;
  g.cooperative =
      kernel.cooperative || kernel.source.find("#define LF_GRID_MODE") != std::string::npos;
  g.threadMode = kernel.source.find("#define LF_THREAD_MODE") != std::string::npos;
  if (g.threadMode && requested > 1)
    throw cuda::CudaError(what + " was planned for one thread (thread mode); set " +
                          "LOOPFUSE_CUDA_MODE=block to run it on LOOPFUSE_CUDA_BLOCK_THREADS=" +
                          std::to_string(requested) + " threads");
  g.blockThreads =
      requested != 0 ? requested : std::max(1u, g.threadMode ? 1u : kernel.blockThreads);
  if (g.blockThreads > limit.maxThreads) throw tooManyThreads(limit, g.blockThreads, what);
  if (g.cooperative) g.gridBlocks = cooperativeBlocks(g.blockThreads);
  return g;
}

}  // namespace lf::runtime
