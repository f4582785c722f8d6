// Short vectors for the CPU's register-tiled dot (codegen/emit_dot_tiles.cc): GCC vector types of
// 32 and 64 bytes, loads and stores of all or the first n lanes, and a lane-wise fused
// multiply-add. The emitter writes a dot's tiles twice, for 64-byte vectors (AVX-512) and 32-byte
// ones, and LF_CPU_VECTOR_BYTES picks one when the kernel is compiled for the host
// (-march=native). Every form computes each lane as fmaf / fma would: the bits never depend on
// which one runs.
#pragma once

#include <math.h>
#include <string.h>

#if defined(__AVX512F__)
#define LF_CPU_VECTOR_BYTES 64
#else
#define LF_CPU_VECTOR_BYTES 32
#endif
#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#endif

// Compiled without AVX (the tests that compile the prelude as host code), GCC warns that passing
// these types changes the ABI; every function here is inline in the one translation unit of a
// kernel, so no call crosses an ABI boundary.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float lf_vf32x8 __attribute__((vector_size(32)));
typedef float lf_vf32x16 __attribute__((vector_size(64)));
typedef double lf_vf64x4 __attribute__((vector_size(32)));
typedef double lf_vf64x8 __attribute__((vector_size(64)));

// Loads and stores of whole vectors go through memcpy (no alignment is assumed). Those of the
// first n lanes (the last columns of a dot's row) never touch a lane past n: a masked load or
// store where the ISA has one (one instruction; a memcpy into a vector would go through the stack
// and stall on store forwarding), lane by lane elsewhere.
template <class V, class T>
inline V lf_vload(const T* p) {
  V v;
  memcpy(&v, p, sizeof v);
  return v;
}
template <class V, class T>
inline void lf_vstore(T* p, V v) {
  memcpy(p, &v, sizeof v);
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
#define LF_CPU_MASKED_VECTORS 1
#endif

template <class V, class T>
inline V lf_vload_first(const T* p, int n) {
#ifdef LF_CPU_MASKED_VECTORS
  const unsigned mask = (1u << n) - 1u;
  if constexpr (sizeof(V) == 64 && sizeof(T) == 4) {
    return (V)_mm512_maskz_loadu_ps((__mmask16)mask, p);
  } else if constexpr (sizeof(V) == 32 && sizeof(T) == 4) {
    return (V)_mm256_maskz_loadu_ps((__mmask8)mask, p);
  } else if constexpr (sizeof(V) == 64 && sizeof(T) == 8) {
    return (V)_mm512_maskz_loadu_pd((__mmask8)mask, p);
  } else {
    return (V)_mm256_maskz_loadu_pd((__mmask8)mask, p);
  }
#else
  V v = {};
  for (int i = 0; i < n; ++i) v[i] = p[i];
  return v;
#endif
}
template <class V, class T>
inline void lf_vstore_first(T* p, V v, int n) {
#ifdef LF_CPU_MASKED_VECTORS
  const unsigned mask = (1u << n) - 1u;
  if constexpr (sizeof(V) == 64 && sizeof(T) == 4) {
    _mm512_mask_storeu_ps(p, (__mmask16)mask, (__m512)v);
  } else if constexpr (sizeof(V) == 32 && sizeof(T) == 4) {
    _mm256_mask_storeu_ps(p, (__mmask8)mask, (__m256)v);
  } else if constexpr (sizeof(V) == 64 && sizeof(T) == 8) {
    _mm512_mask_storeu_pd(p, (__mmask8)mask, (__m512d)v);
  } else {
    _mm256_mask_storeu_pd(p, (__mmask8)mask, (__m256d)v);
  }
#else
  for (int i = 0; i < n; ++i) p[i] = v[i];
#endif
}

// acc + l * b in each lane, rounded once. The kernel is compiled with -ffp-contract=off, so a
// vector multiply and add would never fuse: the intrinsics (or fmaf per lane) say it.
inline lf_vf32x16 lf_vfma(float l, lf_vf32x16 b, lf_vf32x16 acc) {
#if defined(__AVX512F__)
  return (lf_vf32x16)_mm512_fmadd_ps(_mm512_set1_ps(l), (__m512)b, (__m512)acc);
#else
  for (int i = 0; i < 16; ++i) acc[i] = fmaf(l, b[i], acc[i]);
  return acc;
#endif
}
inline lf_vf32x8 lf_vfma(float l, lf_vf32x8 b, lf_vf32x8 acc) {
#if defined(__FMA__)
  return (lf_vf32x8)_mm256_fmadd_ps(_mm256_set1_ps(l), (__m256)b, (__m256)acc);
#else
  for (int i = 0; i < 8; ++i) acc[i] = fmaf(l, b[i], acc[i]);
  return acc;
#endif
}
inline lf_vf64x8 lf_vfma(double l, lf_vf64x8 b, lf_vf64x8 acc) {
#if defined(__AVX512F__)
  return (lf_vf64x8)_mm512_fmadd_pd(_mm512_set1_pd(l), (__m512d)b, (__m512d)acc);
#else
  for (int i = 0; i < 8; ++i) acc[i] = fma(l, b[i], acc[i]);
  return acc;
#endif
}
inline lf_vf64x4 lf_vfma(double l, lf_vf64x4 b, lf_vf64x4 acc) {
#if defined(__FMA__)
  return (lf_vf64x4)_mm256_fmadd_pd(_mm256_set1_pd(l), (__m256d)b, (__m256d)acc);
#else
  for (int i = 0; i < 4; ++i) acc[i] = fma(l, b[i], acc[i]);
  return acc;
#endif
}

#pragma GCC diagnostic pop
