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
#define LF_NO_UNROLL  // (a GPU code generator's workaround: lf_cuda.h)
// Before a loop whose stores never overlap its loads (FFT passes between two arrays): GCC
// otherwise checks at run time that each pair of them does not, and past ten pairs gives up
// vectorizing.
#define LF_IVDEP _Pragma("GCC ivdep")
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

#include "lf_cpu_vector.h"  // likewise
#include "lf_host_float.h"  // pasted in place by the emitter (codegen::preludeText)
#define LF_ENTRY_SCOPE() LfDenormalScope lf_denormal_scope
