// How a CUDA-target kernel is launched: its one parameter, and threads per block, blocks,
// cooperative or not. Shared by the GPU runtime (cuda_executable.cc) and the host emulator
// (cuda_emulator.cc), so that the emulator runs the launch the GPU would get, barring the grid's
// size.
#pragma once

#include <functional>
#include <string>

#include "codegen/emit.h"

namespace lf::runtime {

// Mirrors LfKernelArgs of the CUDA preludes (lf_cuda.h, lf_cuda_emu.h), passed by value as the
// kernel's one parameter. compileCuda checks that the prelude's LF_MAX_ARGS is this one.
constexpr int kMaxKernelArgs = 64;
struct KernelArgs {
  const void* in[kMaxKernelArgs];
  void* out[kMaxKernelArgs];
  void* scratch;
  unsigned int* barrier;  // grid mode: the grid barrier's two counters, zeroed
};

// Checks that `kernel` was emitted for the CUDA target (std::invalid_argument naming `caller`),
// that its prelude agrees on LF_MAX_ARGS (std::logic_error), and that its inputs and outputs fit in
// KernelArgs (CompileError).
void checkKernelArgs(const codegen::EmittedKernel& kernel, const std::string& caller);

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
