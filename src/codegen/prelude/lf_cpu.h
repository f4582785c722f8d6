// The CPU target of the kernel prelude. The emitter pastes this text, then lf_common.h, then the
// kernel; so this file names only standard headers and defines every target hook lf_common.h uses.
// The CPU runs the kernel as one thread of the SPMD group: LF_TID is 0, LF_NTHREADS is 1 and a
// barrier has nothing to wait for.
#pragma once

#include <math.h>  // the C names (expf, log1p, ...) in the global namespace, as CUDA has them
#include <stdint.h>
#include <string.h>

#define LF_TARGET_CPU 1
#define LF_DEVICE inline
#define LF_RESTRICT __restrict__
#define LF_TID 0
#define LF_NTHREADS 1
#define LF_BARRIER() ((void)0)
// Block-shared storage: on the CPU the one thread's locals are already "shared".
#define LF_SHARED

// Bit utilities lf_common.h builds on (the GCC/Clang builtins are undefined for 0, so guard).
LF_DEVICE int lf_target_clz64(uint64_t x) { return x == 0 ? 64 : __builtin_clzll(x); }
LF_DEVICE int lf_target_popcount64(uint64_t x) { return __builtin_popcountll(x); }
#define LF_MEMCPY(dst, src, n) memcpy((dst), (src), (n))
