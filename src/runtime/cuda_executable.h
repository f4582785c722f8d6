// The CUDA target's Executable: the kernel compiled by NVRTC to a CUBIN for the device's own
// architecture (through the on-disk compile cache), loaded with cuModuleLoadData and launched with
// the driver API. Executable::compileCuda returns one; the XLA FFI handler dynamic_casts to
// CudaExecutable to launch on XLA's stream with device pointers.
//
// Launch geometry comes from the planner's CUDA mode (EmittedKernel::cudaMode, blockThreads,
// cooperative): thread mode runs one thread (the source defines LF_THREAD_MODE), block mode one
// block of blockThreads, grid mode a cooperative launch of blockThreads-thread blocks filling every
// multiprocessor (blocks per SM from the occupancy calculator).
// $LOOPFUSE_CUDA_BLOCK_THREADS overrides the threads per block of block and grid mode (to test the
// barriers); with $LOOPFUSE_CUDA_MODE=block a program the planner would run in one thread runs as
// one block.
#pragma once

#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

// What the runtime decided and the compiler reported, for tests and `explain`-style output.
struct CudaKernelInfo {
  std::string deviceName;  // "NVIDIA H200"
  std::string arch;        // "sm_90"
  unsigned gridBlocks = 1;
  unsigned blockThreads = 1;
  bool cooperative = false;
  int registers = 0;           // per thread
  int localBytes = 0;          // per thread (spills and local arrays)
  int staticSharedBytes = 0;   // per block
  int maxThreadsPerBlock = 0;  // the most this kernel can be launched with
};

class CudaExecutable : public Executable {
 public:
  // Launches on `stream` (a CUstream; nullptr: the legacy default stream) with DEVICE pointers to
  // dense buffers of the signature's types and returns without waiting. Launches on one stream
  // run in order; launches on different streams get their own scratch, so they may overlap.
  virtual void runOnStream(void* stream, const void* const* inputs, void* const* outputs) const = 0;
  virtual const CudaKernelInfo& info() const = 0;
};

// The compiled machine code and how it was obtained.
struct CudaBinary {
  std::string cubin;
  CompileStats stats;  // objectPath: the cached .cubin
};

// NVRTC to CUBIN for `arch` (a real architecture such as "sm_90") through the compile cache; the
// key holds the source, NVRTC's options, the arch and NVRTC's version. Needs no driver (tests run
// it on machines without a GPU). Throws std::runtime_error with NVRTC's log when it fails.
CudaBinary compileCubinCached(const std::string& source, const std::string& arch,
                              const CompileOptions& options = {});

}  // namespace lf::runtime
