// The CUDA target's prelude for running a CUDA kernel on the HOST (runtime/cuda_emulator.h): it
// replaces lf_cuda.h, so that the very source NVRTC would compile (the same plan, storage, launch
// geometry and SPMD splits) builds with the host compiler and runs without a GPU. Each CUDA thread
// is a fiber (ucontext) with its own stack; a scheduler on the calling thread runs every fiber of a
// barrier group (a block, or the whole grid in grid mode) until it reaches the next barrier, in a
// chosen order. Running the fibers first to last and then last to first gives different values
// wherever a thread reads what another writes between the same two barriers: a missing barrier
// shows up as a wrong value, without a GPU.
//
// What it does not model: the GPU's math library (expf, log1pf, ... are the C library's), its
// memory model beyond barriers, and resource limits (registers, shared memory).
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define LF_TARGET_CUDA 1
#define LF_CUDA_EMULATED 1
#define LF_DEVICE inline
#define LF_RESTRICT __restrict__
#define LF_NO_UNROLL  // (a GPU code generator's workaround: lf_cuda.h)
#define LF_IVDEP      // (a CPU vectorizer's hint: lf_cpu.h)
#define LF_SHARED
#define LF_MAX_ARGS 64
#define __device__
#define __global__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline

// The float environment is XLA:CPU's, not the GPU's (denormals flushed and read as zero), so that
// the corpus's expected values, made by JAX on the CPU, hold for the emulator too: the emulator
// checks a kernel's parallel structure, the GPU run its numerics. The launch sets the mode once
// for all its fibers (they run on the launching thread and inherit its mode).
#include "lf_host_float.h"  // pasted in place by codegen::preludeText
#define LF_ENTRY_SCOPE() ((void)0)

struct LfKernelArgs {
  const void* in[LF_MAX_ARGS];
  void* out[LF_MAX_ARGS];
  void* scratch;
  unsigned int* barrier;
};

struct LfDim3 {
  unsigned int x, y, z;
};

namespace lf_emu {

enum class FiberState { Running, AtBarrier, Done };

struct Fiber {
  ucontext_t context;
  LfDim3 thread;
  LfDim3 block;
  FiberState state;
};

// One launch on the calling host thread.
struct Launch {
  LfDim3 grid;
  LfDim3 block;
  void (*kernel)(LfKernelArgs);
  const LfKernelArgs* args;
  bool useFibers;  // false in thread mode: each thread is a plain call and has no barrier
  Fiber* current;
  ucontext_t scheduler;
  const char* error;  // set when the launch went wrong; the kernel's values are then meaningless
};

static thread_local Launch* active = nullptr;

}  // namespace lf_emu

#define threadIdx (lf_emu::active->current->thread)
#define blockIdx (lf_emu::active->current->block)
#define blockDim (lf_emu::active->block)
#define gridDim (lf_emu::active->grid)

namespace lf_emu {

// A barrier: hand control back to the scheduler, which resumes this fiber once every fiber of the
// group has arrived.
inline void barrier() {
  Launch* launch = active;
  if (!launch->useFibers) {
    launch->error = "a barrier in a kernel launched as single threads (thread mode)";
    return;
  }
  Fiber* self = launch->current;
  self->state = FiberState::AtBarrier;
  swapcontext(&self->context, &launch->scheduler);
}

inline void fiberMain() {
  Launch* launch = active;
  launch->kernel(*launch->args);
  launch->current->state = FiberState::Done;
  // Returning resumes uc_link: the scheduler.
}

constexpr size_t kStackBytes = size_t{512} << 10;
constexpr size_t kGuardBytes = size_t{4} << 10;

// Runs `count` threads as fibers until all are done; `reverse` runs them last to first between
// barriers. Returns false (with launch->error) when a thread ends while others wait at a barrier,
// which on a GPU is undefined (a hang or wrong values).
inline bool runGroup(Launch* launch, Fiber* fibers, unsigned count, bool reverse) {
  const size_t slot = kStackBytes + kGuardBytes;
  char* stacks = static_cast<char*>(mmap(nullptr, slot * count, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  if (stacks == MAP_FAILED) {
    launch->error = "cannot map the fibers' stacks";
    return false;
  }
  for (unsigned i = 0; i < count; ++i) {
    char* base = stacks + slot * i;
    mprotect(base, kGuardBytes, PROT_NONE);  // an overflow faults instead of corrupting a neighbour
    Fiber& f = fibers[i];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = base + kGuardBytes;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &launch->scheduler;
    makecontext(&f.context, fiberMain, 0);
    f.state = FiberState::Running;
  }
  bool ok = true;
  for (;;) {
    unsigned done = 0;
    for (unsigned k = 0; k < count; ++k) {
      Fiber& f = fibers[reverse ? count - 1 - k : k];
      if (f.state == FiberState::Done) continue;
      f.state = FiberState::Running;
      launch->current = &f;
      swapcontext(&launch->scheduler, &f.context);
    }
    for (unsigned k = 0; k < count; ++k) done += fibers[k].state == FiberState::Done ? 1 : 0;
    if (done == count) break;
    if (done != 0) {
      launch->error = "some threads ended while others wait at a barrier";
      ok = false;
      break;
    }
  }
  munmap(stacks, slot * count);
  return ok;
}

// The launch: flags bit 0 runs each thread as a plain call (thread mode: no barriers), bit 1 makes
// the whole grid one barrier group (a cooperative launch), bit 2 runs threads last to first.
// Returns nullptr, or what went wrong.
inline const char* launchKernel(void (*kernel)(LfKernelArgs), const LfKernelArgs* args,
                                unsigned gridBlocks, unsigned blockThreads, int flags) {
  Launch launch{};
  launch.grid = {gridBlocks, 1, 1};
  launch.block = {blockThreads, 1, 1};
  launch.kernel = kernel;
  launch.args = args;
  launch.useFibers = (flags & 1) == 0;
  const bool wholeGrid = (flags & 2) != 0;
  const bool reverse = (flags & 4) != 0;
  Launch* saved = active;
  active = &launch;
  LfDenormalScope denormals;  // fibers run on this thread, in its floating-point mode
  if (!launch.useFibers) {
    Fiber single{};
    launch.current = &single;
    for (unsigned k = 0; k < gridBlocks * blockThreads && launch.error == nullptr; ++k) {
      const unsigned i = reverse ? gridBlocks * blockThreads - 1 - k : k;
      single.block = {i / blockThreads, 0, 0};
      single.thread = {i % blockThreads, 0, 0};
      kernel(*args);
    }
  } else {
    const unsigned groupBlocks = wholeGrid ? gridBlocks : 1;
    Fiber* fibers = new Fiber[groupBlocks * blockThreads];
    for (unsigned first = 0; first < gridBlocks && launch.error == nullptr; first += groupBlocks) {
      const unsigned firstBlock = reverse && !wholeGrid ? gridBlocks - 1 - first : first;
      for (unsigned i = 0; i < groupBlocks * blockThreads; ++i) {
        fibers[i].block = {firstBlock + i / blockThreads, 0, 0};
        fibers[i].thread = {i % blockThreads, 0, 0};
      }
      runGroup(&launch, fibers, groupBlocks * blockThreads, reverse);
    }
    delete[] fibers;
  }
  active = saved;
  return launch.error;
}

}  // namespace lf_emu

// The grid barrier of a cooperative launch: in the emulator the whole grid is one barrier group.
inline void lf_grid_barrier(unsigned int*) { lf_emu::barrier(); }
#define __syncthreads() lf_emu::barrier()

#if defined(LF_THREAD_MODE)
#define LF_TID 0
#define LF_NTHREADS 1
#define LF_BARRIER() ((void)0)
#elif defined(LF_GRID_MODE)
#define LF_TID ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define LF_NTHREADS ((int)(gridDim.x * blockDim.x))
#define LF_BARRIER() lf_grid_barrier(nullptr)
#else
#define LF_TID ((int)threadIdx.x)
#define LF_NTHREADS ((int)blockDim.x)
#define LF_BARRIER() __syncthreads()
#endif

LF_DEVICE int lf_target_clz64(uint64_t x) { return x == 0 ? 64 : __builtin_clzll(x); }
LF_DEVICE int lf_target_popcount64(uint64_t x) { return __builtin_popcountll(x); }
#define LF_MEMCPY(dst, src, n) memcpy((dst), (src), (n))
