// The CUDA target of the kernel prelude, compiled by NVRTC. The emitter pastes this text, then
// lf_common.h, then the kernel. NVRTC has no standard headers, so the fixed-width integer types
// are defined here; the math functions (expf, log1p, ...) are NVRTC builtins.
//
// Execution modes (chosen by the planner, selected by a macro defined before this text):
//   LF_THREAD_MODE one thread: LF_TID is 0, LF_NTHREADS 1 and LF_BARRIER() nothing, as constants.
//   default        one block: LF_TID/LF_NTHREADS index the block's threads, LF_BARRIER() is
//                  __syncthreads().
//   LF_GRID_MODE   a cooperative launch over many blocks: LF_TID/LF_NTHREADS index every thread
//                  of the grid and LF_BARRIER() is a grid-wide barrier on args.barrier (two
//                  zeroed unsigned ints the runtime allocates per launch; the kernel's parameter
//                  must be named `args`, or LF_GRID_BARRIER_STATE defined to another pointer).
#pragma once

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define LF_TARGET_CUDA 1
#define LF_DEVICE __device__ __forceinline__
#define LF_RESTRICT __restrict__
#define LF_SHARED __shared__
// Before a loop that must not be unrolled. NVRTC 13.0's ptxas miscompiles a dynamic-update-slice
// whose element loop it unrolls: each position's "inside the window" test becomes an equality with
// the clamped start, and `clamp(s, 0, hi) == hi` is taken from the predicate output of one
// `VIMNMX.RELU`, which is wrong on an H200 (shapes_dynamic_update_slice wrote the last row; right
// at -Xptxas -O0; docs/gpu-runs/README.md).
#define LF_NO_UNROLL _Pragma("unroll 1")
#define LF_IVDEP  // (a CPU vectorizer's hint: lf_cpu.h)
#define LF_MAX_ARGS 64

// Passed by value to every kernel (well under the 4 KB parameter limit).
struct LfKernelArgs {
  const void* in[LF_MAX_ARGS];
  void* out[LF_MAX_ARGS];
  void* scratch;
  unsigned int* barrier;  // grid mode: {arrived count, generation}, zero before the launch
};

// A grid-wide barrier for a cooperative launch (every block resident). Thread 0 of each block
// arrives on state[0]; the last to arrive resets the count and bumps the generation state[1],
// which the others spin on. Resetting before releasing makes the barrier reusable at once.
__device__ __noinline__ void lf_grid_barrier(unsigned int* state) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    volatile unsigned int* generation = state + 1;
    const unsigned int nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int seen = *generation;  // cannot advance before this block arrives
    __threadfence();                        // publish this block's writes before arriving
    if (atomicAdd(state, 1u) == nblocks - 1) {
      atomicExch(state, 0u);
      __threadfence();
      atomicAdd(state + 1, 1u);
    } else {
      while (*generation == seen) {
      }
    }
    __threadfence();  // see the other blocks' writes after the release
  }
  __syncthreads();
}

// XLA:GPU keeps f32 denormals (xla_gpu_ftz is off), so the entry changes no mode.
#define LF_ENTRY_SCOPE() ((void)0)
LF_DEVICE float lf_target_denormal_input(float x) { return x; }
LF_DEVICE double lf_target_denormal_input(double x) { return x; }

#if defined(LF_THREAD_MODE)
// One thread: the SPMD loops become plain loops and barriers vanish at compile time.
#define LF_TID 0
#define LF_NTHREADS 1
#define LF_BARRIER() ((void)0)
#elif defined(LF_GRID_MODE)
#ifndef LF_GRID_BARRIER_STATE
#define LF_GRID_BARRIER_STATE args.barrier
#endif
#define LF_TID ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define LF_NTHREADS ((int)(gridDim.x * blockDim.x))
#define LF_BARRIER() lf_grid_barrier(LF_GRID_BARRIER_STATE)
#else
#define LF_TID ((int)threadIdx.x)
#define LF_NTHREADS ((int)blockDim.x)
#define LF_BARRIER() __syncthreads()
#endif

// Bit utilities lf_common.h builds on.
LF_DEVICE int lf_target_clz64(uint64_t x) { return __clzll((long long)x); }
LF_DEVICE int lf_target_popcount64(uint64_t x) { return __popcll(x); }
#define LF_MEMCPY(dst, src, n) memcpy((dst), (src), (n))
