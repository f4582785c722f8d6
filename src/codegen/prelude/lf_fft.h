// The discrete Fourier transform of one line of n complex points, in place on separate real and
// imaginary arrays (loopfuse splits every complex array into its two parts), behind XLA's fft op
// (jnp.fft.*). Forward: X[k] = sum_j x[j] e^(-2 pi i jk/n); inverse: x[j] = 1/n sum_k X[k]
// e^(+2 pi i jk/n), as XLA's FFT and IFFT define them.
//
// A power of two runs as the iterative radix-2 Cooley-Tukey transform (bit-reversed order, then
// log2 n passes of butterflies); any other length as the direct sum, accumulated in double. The
// twiddles come from the kernel's tables (codegen/emit_fft.cc): cos and sin of 2 pi k/n for k in
// [0, n), computed by the compiler in long double and rounded once to double, so that no error
// grows from a recurrence. XLA:CPU runs DUCC's FFT and cuFFT runs on the GPU: their sums are in
// other orders, so results agree to the float tolerances relative to the line's magnitude, not to
// the bit. Included by lf_common.h (pasted in place by preludeText).
#pragma once

#if defined(LF_TARGET_CUDA) && !defined(LF_CUDA_EMULATED)
#define LF_FFT_FN __device__ __noinline__
#else
#define LF_FFT_FN LF_DEVICE
#endif

LF_DEVICE bool lf_fft_is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// In place: re/im hold the line on entry and its transform on return. `wre`/`wim` are n points of
// work space, used only where n is not a power of two.
template <class T>
LF_FFT_FN void lf_fft_line(T* re, T* im, int64_t n, bool inverse, const double* twc,
                           const double* tws, T* wre, T* wim) {
  if (lf_fft_is_power_of_two(n)) {
    for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        const T r = re[i], m = im[i];
        re[i] = re[j];
        im[i] = im[j];
        re[j] = r;
        im[j] = m;
      }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len >> 1, step = n / len;
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t j = 0; j < half; ++j) {
          const T wr = (T)twc[j * step];
          const T wi = inverse ? (T)tws[j * step] : (T)-tws[j * step];
          const int64_t a = i + j, b = i + j + half;
          const T vr = re[b] * wr - im[b] * wi;
          const T vi = re[b] * wi + im[b] * wr;
          re[b] = re[a] - vr;
          im[b] = im[a] - vi;
          re[a] = re[a] + vr;
          im[a] = im[a] + vi;
        }
      }
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      double sr = 0, si = 0;
      int64_t jk = 0;  // j * k mod n
      for (int64_t j = 0; j < n; ++j) {
        const double c = twc[jk], s = inverse ? tws[jk] : -tws[jk];
        sr += (double)re[j] * c - (double)im[j] * s;
        si += (double)re[j] * s + (double)im[j] * c;
        jk += k;
        if (jk >= n) jk -= n;
      }
      wre[k] = (T)sr;
      wim[k] = (T)si;
    }
    for (int64_t k = 0; k < n; ++k) {
      re[k] = wre[k];
      im[k] = wim[k];
    }
  }
  if (inverse) {
    const T scale = (T)(1.0 / (double)n);
    for (int64_t k = 0; k < n; ++k) {
      re[k] = re[k] * scale;
      im[k] = im[k] * scale;
    }
  }
}
