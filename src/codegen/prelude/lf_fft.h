// The discrete Fourier transform of one line of n complex points, in place on separate real and
// imaginary arrays (loopfuse splits every complex array into its two parts), behind XLA's fft op
// (jnp.fft.*). Forward: X[k] = sum_j x[j] e^(-2 pi i jk/n); inverse: x[j] = 1/n sum_k X[k]
// e^(+2 pi i jk/n), as XLA's FFT and IFFT define them.
//
// A power of two runs as the iterative radix-2 Cooley-Tukey transform (bit-reversed order, then
// log2 n passes of butterflies); any other length as the direct sum, accumulated in double. The
// twiddles come from the kernel's tables (codegen/emit_fft.cc, codegen/fft_twiddles.h), computed by
// the compiler in long double and rounded once to double, so that no error grows from a recurrence.
// XLA:CPU runs DUCC's FFT and cuFFT runs on the GPU: their sums are in other orders, so results
// agree to the float tolerances relative to the line's magnitude, not to the bit. Included by
// lf_common.h (pasted in place by preludeText).
#pragma once

#if defined(LF_TARGET_CUDA) && !defined(LF_CUDA_EMULATED)
#define LF_FFT_FN __device__ __noinline__
#else
#define LF_FFT_FN LF_DEVICE
#endif

LF_DEVICE bool lf_fft_is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// How many lines one call transforms: on the CPU a vector register of them, so that every step's
// loop over the lines vectorizes (the same butterfly in each lane), while the thread's arrays stay
// at most 4096 values each (longer lines are transformed in scratch, one at a time:
// plan::fftLinesInScratch); on a GPU one, the threads being the lanes there.
#if defined(LF_TARGET_CPU) && defined(LF_CPU_VECTOR_BYTES)
#define LF_FFT_LANES(T, n)                                  \
  ((n) * (LF_CPU_VECTOR_BYTES / (int64_t)sizeof(T)) <= 4096 \
       ? LF_CPU_VECTOR_BYTES / (int64_t)sizeof(T)           \
       : 1)
#else
#define LF_FFT_LANES(T, n) 1
#endif

// The twiddle tables (codegen/emit_fft.cc): for a power of two, by butterfly pass, the factor of
// butterfly j of the pass that combines halves of `half` points at [half + j] (j < half, so the
// pass reads them in order); for any other n, cos and sin of 2 pi k/n at [k].

#if defined(LF_TARGET_CPU)
// L butterflies as GCC vectors of the L values at ar, ai, br, bi (the twiddle `Tw` one scalar for
// all of them, or a vector of L), rounded as lf_fft_butterfly rounds each.
template <class T, int L, class Tw>
LF_DEVICE void lf_fft_butterfly_vector(T* ar, T* ai, T* br, T* bi, const Tw& wr, const Tw& wi) {
  typedef T V __attribute__((vector_size(L * sizeof(T))));
  V xr, xi, yr, yi;
  LF_MEMCPY(&xr, ar, sizeof(V));
  LF_MEMCPY(&xi, ai, sizeof(V));
  LF_MEMCPY(&yr, br, sizeof(V));
  LF_MEMCPY(&yi, bi, sizeof(V));
  const V vr = yr * wr - yi * wi;
  const V vi = yr * wi + yi * wr;
  yr = xr - vr;
  yi = xi - vi;
  xr = xr + vr;
  xi = xi + vi;
  LF_MEMCPY(ar, &xr, sizeof(V));
  LF_MEMCPY(ai, &xi, sizeof(V));
  LF_MEMCPY(br, &yr, sizeof(V));
  LF_MEMCPY(bi, &yi, sizeof(V));
}
#endif

// One butterfly in each of W lanes: (a, b) <- (a + w b, a - w b), complex, rounded as written
// (the kernels compile with contraction off). On the CPU, W > 1 lanes are one GCC vector (GCC does
// not vectorize the lane loop as well on its own: 5x slower at W = 8, measured on AVX-512).
template <class T, int W>
LF_DEVICE void lf_fft_butterfly(T* ar, T* ai, T* br, T* bi, T wr, T wi) {
#if defined(LF_TARGET_CPU)
  if constexpr (W > 1) {
    lf_fft_butterfly_vector<T, W>(ar, ai, br, bi, wr, wi);
    return;
  }
#endif
  for (int w = 0; w < W; ++w) {
    const T vr = br[w] * wr - bi[w] * wi;
    const T vi = br[w] * wi + bi[w] * wr;
    br[w] = ar[w] - vr;
    bi[w] = ai[w] - vi;
    ar[w] = ar[w] + vr;
    ai[w] = ai[w] + vi;
  }
}

#if defined(LF_TARGET_CPU)
// One radix-2 pass over one line, L consecutive butterflies (and their twiddles, which the table
// holds in the pass's order) per step; half is a multiple of L.
template <class T, int L>
LF_DEVICE void lf_fft_pass_vectors(T* re, T* im, int64_t n, int64_t half, bool inverse,
                                   const double* twc, const double* tws) {
  typedef T V __attribute__((vector_size(L * sizeof(T))));
  typedef double D __attribute__((vector_size(L * sizeof(double))));
  for (int64_t i = 0; i < n; i += 2 * half) {
    for (int64_t j = 0; j < half; j += L) {
      D c, s;
      LF_MEMCPY(&c, twc + half + j, sizeof(D));
      LF_MEMCPY(&s, tws + half + j, sizeof(D));
      const V wr = __builtin_convertvector(c, V);
      const V wi = __builtin_convertvector(inverse ? s : -s, V);
      lf_fft_butterfly_vector<T, L>(re + i + j, im + i + j, re + i + j + half, im + i + j + half,
                                    wr, wi);
    }
  }
}
#endif

// W lines at once, in place, point-major: point k of lane w at re/im[k * W + w]. `wre`/`wim` are
// n * W values of work space, used only where n is not a power of two. With `bitReversed`, the
// caller has stored a power of two's points in bit-reversed order already (point k at the
// reverse of k's log2 n bits), as the kernels do while they copy a line in.
template <class T, int W>
LF_FFT_FN void lf_fft_lanes(T* re, T* im, int64_t n, bool inverse, const double* twc,
                            const double* tws, T* wre, T* wim, bool bitReversed = false) {
  if (lf_fft_is_power_of_two(n)) {
    for (int64_t i = 1, j = 0; i < n && !bitReversed; ++i) {  // bit-reversal permutation
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        for (int w = 0; w < W; ++w) {
          const T r = re[i * W + w], m = im[i * W + w];
          re[i * W + w] = re[j * W + w];
          im[i * W + w] = im[j * W + w];
          re[j * W + w] = r;
          im[j * W + w] = m;
        }
      }
    }
    for (int64_t half = 1; half < n; half <<= 1) {
#if defined(LF_TARGET_CPU)
      // One line: the passes over halves of at least a vector's points run a vector of
      // butterflies at once instead (the same arithmetic in each, so the same bits).
      constexpr int L = 32 / (int)sizeof(T);
      if (W == 1 && half >= L) {
        lf_fft_pass_vectors<T, L>(re, im, n, half, inverse, twc, tws);
        continue;
      }
#endif
      for (int64_t i = 0; i < n; i += 2 * half) {
        for (int64_t j = 0; j < half; ++j) {
          const T wr = (T)twc[half + j];
          const T wi = inverse ? (T)tws[half + j] : (T)-tws[half + j];
          lf_fft_butterfly<T, W>(re + (i + j) * W, im + (i + j) * W, re + (i + j + half) * W,
                                 im + (i + j + half) * W, wr, wi);
        }
      }
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      double sr[W], si[W];
      for (int w = 0; w < W; ++w) sr[w] = si[w] = 0;
      int64_t jk = 0;  // j * k mod n
      for (int64_t j = 0; j < n; ++j) {
        const double c = twc[jk], s = inverse ? tws[jk] : -tws[jk];
        for (int w = 0; w < W; ++w) {
          sr[w] += (double)re[j * W + w] * c - (double)im[j * W + w] * s;
          si[w] += (double)re[j * W + w] * s + (double)im[j * W + w] * c;
        }
        jk += k;
        if (jk >= n) jk -= n;
      }
      for (int w = 0; w < W; ++w) {
        wre[k * W + w] = (T)sr[w];
        wim[k * W + w] = (T)si[w];
      }
    }
    for (int64_t e = 0; e < n * W; ++e) {
      re[e] = wre[e];
      im[e] = wim[e];
    }
  }
  if (inverse) {
    const T scale = (T)(1.0 / (double)n);
    for (int64_t e = 0; e < n * W; ++e) {
      re[e] = re[e] * scale;
      im[e] = im[e] * scale;
    }
  }
}

// One line (re/im[k] is point k).
template <class T>
LF_FFT_FN void lf_fft_line(T* re, T* im, int64_t n, bool inverse, const double* twc,
                           const double* tws, T* wre, T* wim) {
  lf_fft_lanes<T, 1>(re, im, n, inverse, twc, tws, wre, wim);
}
