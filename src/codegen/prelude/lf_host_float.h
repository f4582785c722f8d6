// XLA:CPU's float environment for code run on the host: the CPU target (lf_cpu.h) and the host
// emulation of the CUDA target (lf_cuda_emu.h). Pasted where they include it; needs LF_DEVICE,
// <math.h> and <stdint.h> first.
#pragma once

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

// The C library's logf, expf, ... look at the bits of a denormal input, which DAZ does not change,
// while XLA:CPU's own implementations see it as zero: flush it before calling them.
LF_DEVICE float lf_target_denormal_input(float x) {
  return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}
LF_DEVICE double lf_target_denormal_input(double x) {
  return fabs(x) < 2.2250738585072014e-308 ? copysign(0.0, x) : x;
}
