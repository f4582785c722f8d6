// The CPU target of the kernel prelude. The emitter pastes this text, then lf_common.h, then the
// kernel; so this file names only standard headers and defines every target hook lf_common.h uses.
// The CPU runs the kernel as one thread of the SPMD group (LF_TID is 0, LF_NTHREADS is 1 and a
// barrier has nothing to wait for) or, when the emitter defines LF_CPU_THREADS, as an OpenMP team
// whose threads split every stage like a CUDA block's (LF_BARRIER() is an OpenMP barrier; the
// entry declares lf_tid and lf_nthreads inside its parallel region). A batch-mapped kernel with
// LF_CPU_BATCH_THREADS shares its chains out over an OpenMP team; each chain's code is one
// thread's.
#pragma once

#include <math.h>  // the C names (expf, log1p, ...) in the global namespace, as CUDA has them
#include <stdint.h>
#include <string.h>

#define LF_TARGET_CPU 1
#define LF_DEVICE inline
#define LF_RESTRICT __restrict__
#if defined(LF_CPU_THREADS) || defined(LF_CPU_BATCH_THREADS)
#include <omp.h>
#endif
#ifdef LF_CPU_THREADS
#define LF_TID lf_tid
#define LF_NTHREADS lf_nthreads
#define LF_BARRIER() _Pragma("omp barrier")
#else
#define LF_TID 0
#define LF_NTHREADS 1
#define LF_BARRIER() ((void)0)
#endif
// Block-shared storage: on the CPU the one thread's locals are already "shared".
#define LF_SHARED

// Bit utilities lf_common.h builds on (the GCC/Clang builtins are undefined for 0, so guard).
LF_DEVICE int lf_target_clz64(uint64_t x) { return x == 0 ? 64 : __builtin_clzll(x); }
LF_DEVICE int lf_target_popcount64(uint64_t x) { return __builtin_popcountll(x); }
#define LF_MEMCPY(dst, src, n) memcpy((dst), (src), (n))

// XLA:CPU runs every computation with denormals flushed to zero and read as zero
// (tsl::port::ScopedFlushDenormal), so there log(1e-45f) is -inf and 1e-45f != 0 is false. The
// kernel's entry does the same for its duration and restores the caller's mode on return.
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
struct LfDenormalScope {
  unsigned int saved;
  LfDenormalScope() : saved(_mm_getcsr()) { _mm_setcsr(saved | 0x8040u); }  // FTZ | DAZ
  ~LfDenormalScope() { _mm_setcsr(saved); }
};
#elif defined(__aarch64__)
struct LfDenormalScope {
  uint64_t saved;
  LfDenormalScope() {
    __asm__ volatile("mrs %0, fpcr" : "=r"(saved));
    uint64_t flushing = saved | (1ull << 24);  // FPCR.FZ
    __asm__ volatile("msr fpcr, %0" : : "r"(flushing));
  }
  ~LfDenormalScope() { __asm__ volatile("msr fpcr, %0" : : "r"(saved)); }
};
#else
struct LfDenormalScope {};
#endif
#define LF_ENTRY_SCOPE() LfDenormalScope lf_denormal_scope

// The C library's logf, expf, ... look at the bits of a denormal input, which DAZ does not change,
// while XLA:CPU's own implementations see it as zero: flush it before calling them.
LF_DEVICE float lf_target_denormal_input(float x) {
  return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}
LF_DEVICE double lf_target_denormal_input(double x) {
  return fabs(x) < 2.2250738585072014e-308 ? copysign(0.0, x) : x;
}
