// The CUDA target's kernel, run on the host: the source NVRTC would compile, with the emulation
// prelude (codegen/prelude/lf_cuda_emu.h) in place of lf_cuda.h, built by the host compiler through
// the compile cache. Every CUDA thread is a fiber; the launch geometry is the GPU's
// (launch_geometry.h) except that a cooperative grid has `gridBlocks` blocks. It checks, on a
// machine without a GPU, everything of a CUDA kernel but the GPU's math library and memory model:
// the plan's storage and the mode's splits, barriers and indexing.
#pragma once

#include <memory>
#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

struct CudaEmulation {
  // Between two barriers, run the threads last to first instead of first to last. A value one
  // thread writes and another reads without a barrier between differs between the two orders.
  bool reverse = false;
  unsigned gridBlocks = 3;  // blocks of a cooperative (grid mode) launch
};

// $LOOPFUSE_CUDA_EMU_ORDER (forward or reverse) and $LOOPFUSE_CUDA_EMU_GRID_BLOCKS (1 to 64).
CudaEmulation cudaEmulationFromEnvironment();

// The host C++ the emulator builds from a CUDA-target `kernel`: the source NVRTC would compile with
// lf_cuda_emu.h in place of lf_cuda.h, and an entry `lf_emu_launch` that launches it
// (`loopfuse emit --target cuda --emulate` prints it).
std::string cudaEmulatorSource(const codegen::EmittedKernel& kernel);

// `kernel` must be emitted for the CUDA target. runRaw takes host pointers and throws
// std::runtime_error when the launch went wrong (a thread ended while others wait at a barrier).
std::unique_ptr<Executable> compileCudaEmulated(const codegen::EmittedKernel& kernel,
                                                const CudaEmulation& emulation,
                                                const CompileOptions& options = {});

}  // namespace lf::runtime
