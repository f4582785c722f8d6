// How a CUDA-target kernel is launched: threads per block, blocks, cooperative or not. One
// function for the GPU runtime (cuda_executable.cc) and the host emulator (cuda_emulator.cc), so
// that the emulator runs the geometry the GPU would get, barring the grid's size.
#pragma once

#include <functional>
#include <string>

#include "codegen/emit.h"

namespace lf::runtime {

struct LaunchGeometry {
  unsigned gridBlocks = 1;
  unsigned blockThreads = 1;
  bool cooperative = false;  // grid mode: every block resident, grid barriers
  bool threadMode = false;   // each thread runs alone (thread mode, or one chain per thread)
};

// $LOOPFUSE_CUDA_BLOCK_THREADS (1 to 1024), or 0 when unset. Throws std::invalid_argument.
unsigned blockThreadsOverride();

// The most threads a block of the compiled kernel can have, and why (for the error message).
struct BlockLimit {
  unsigned maxThreads = 1024;
  std::string why;  // " (it uses 64 registers per thread)"
};

// The launch of `kernel` (emitted for the CUDA target) by its mode: thread mode one thread, block
// mode one block of the planned threads (or `requested`), grid mode `cooperativeBlocks(threads)`
// blocks, a batch-mapped kernel one thread or one block per chain. `what` names the program in
// errors (cuda::CudaError).
LaunchGeometry chooseLaunchGeometry(const codegen::EmittedKernel& kernel, unsigned requested,
                                    const BlockLimit& limit,
                                    const std::function<unsigned(unsigned)>& cooperativeBlocks,
                                    const std::string& what);

}  // namespace lf::runtime
