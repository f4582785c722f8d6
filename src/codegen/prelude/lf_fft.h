// The discrete Fourier transform of one line of n complex points, in place on separate real and
// imaginary arrays (loopfuse splits every complex array into its two parts), behind XLA's fft op
// (jnp.fft.*). Forward: X[k] = sum_j x[j] e^(-2 pi i jk/n); inverse: x[j] = 1/n sum_k X[k]
// e^(+2 pi i jk/n), as XLA's FFT and IFFT define them.
//
// Every length runs as the self-sorting (Stockham) mixed-radix transform: a pass per factor of n
// (4, 2, 3, 5 and 7 with butterflies of their own, any other prime as its direct sum), back and
// forth between the line and a work space of the same size, so no bit-reversal or other
// permutation. Each pass's inner loop runs over consecutive values that share their twiddles, and
// a CPU vectorizes it. The twiddles come from the kernel's tables (codegen/emit_fft.cc,
// codegen/fft_twiddles.h), computed by the compiler in long double and rounded once to double, so
// that no error grows from a recurrence. XLA:CPU runs DUCC's FFT and cuFFT runs on the GPU: their
// sums are in other orders, so results agree to the float tolerances relative to the line's
// magnitude, not to the bit. Included by lf_common.h (pasted in place by preludeText).
#pragma once

#if defined(LF_TARGET_CUDA) && !defined(LF_CUDA_EMULATED)
#define LF_FFT_FN __device__ __noinline__
#else
#define LF_FFT_FN LF_DEVICE
#endif

// How many lines one call transforms: on the CPU a vector register of them, so that every pass's
// loops vectorize even where a pass's DFTs are one point apart (the first pass), while the
// thread's arrays stay at most 4096 values each (longer lines are transformed in scratch, one at a
// time: plan::fftLinesInScratch); on a GPU one, the threads being the lanes there.
#if defined(LF_TARGET_CPU) && defined(LF_CPU_VECTOR_BYTES)
#define LF_FFT_LANES(T, n)                                  \
  ((n) * (LF_CPU_VECTOR_BYTES / (int64_t)sizeof(T)) <= 4096 \
       ? LF_CPU_VECTOR_BYTES / (int64_t)sizeof(T)           \
       : 1)
#else
#define LF_FFT_LANES(T, n) 1
#endif

// The radix of the next mixed-radix pass over lines of n points: 4 while 4 divides n, then 2, then
// n's odd prime factors, smallest first (a prime n is one pass: the direct sum).
LF_DEVICE int64_t lf_fft_radix(int64_t n) {
  if (n % 4 == 0) return 4;
  if (n % 2 == 0) return 2;
  for (int64_t p = 3; p * p <= n; p += 2) {
    if (n % p == 0) return p;
  }
  return n;
}

// The r-point DFTs of one step of a Stockham pass (lf_fft_stockham_pass): for each of the sw
// consecutive e, the DFT of the r points a[e + j jump] (j < r), output k multiplied by the twiddle
// (wr[k], wi[k]) where Twiddled (k > 0; not at p = 0, whose twiddles are 1: skipped rather than
// multiplied, so that an infinite point stays one) and stored at b[e + k sw]. `sign` is -1 forward,
// +1 inverse. An odd R pairs outputs k and R - k: with t_j = a_j + a_(R-j) and d_j = a_j - a_(R-j)
// (j <= H = (R - 1) / 2), y_k = a_0 + sum_j cos(2 pi jk/R) t_j + sign i sum_j sin(2 pi jk/R) d_j,
// and y_(R-k) the same with -i: half the products of the plain sum. cs/sn hold cos and sin of
// 2 pi jk/R at [(j - 1) H + k - 1], from the kernel's table.
template <class T, int R, bool Twiddled>
LF_DEVICE void lf_fft_butterflies(const T* LF_RESTRICT ar, const T* LF_RESTRICT ai,
                                  T* LF_RESTRICT br, T* LF_RESTRICT bi, int64_t sw, int64_t jump,
                                  T sign, const T* cs, const T* sn, const T* wr, const T* wi) {
  // Output k of the DFT, (yr, yi), twiddled and stored.
  auto store = [&](int64_t e, int k, T yr, T yi) {
    if (Twiddled && k > 0) {
      br[e + k * sw] = yr * wr[k] - yi * wi[k];
      bi[e + k * sw] = yr * wi[k] + yi * wr[k];
    } else {
      br[e + k * sw] = yr;
      bi[e + k * sw] = yi;
    }
  };
  LF_IVDEP
  for (int64_t e = 0; e < sw; ++e) {
    if constexpr (R == 2) {
      const T ur = ar[e], ui = ai[e], vr = ar[e + jump], vi = ai[e + jump];
      store(e, 0, ur + vr, ui + vi);
      store(e, 1, ur - vr, ui - vi);
    } else if constexpr (R == 4) {
      const T x0r = ar[e], x0i = ai[e], x1r = ar[e + jump], x1i = ai[e + jump];
      const T x2r = ar[e + 2 * jump], x2i = ai[e + 2 * jump];
      const T x3r = ar[e + 3 * jump], x3i = ai[e + 3 * jump];
      const T sr = x0r + x2r, si = x0i + x2i, dr = x0r - x2r, di = x0i - x2i;
      const T tr = x1r + x3r, ti = x1i + x3i, ur = x1r - x3r, ui = x1i - x3i;
      store(e, 0, sr + tr, si + ti);
      store(e, 1, dr - sign * ui, di + sign * ur);  // w_4 = sign i
      store(e, 2, sr - tr, si - ti);
      store(e, 3, dr + sign * ui, di - sign * ur);
    } else {
      constexpr int H = (R - 1) / 2;
      const T x0r = ar[e], x0i = ai[e];
      T tr[H], ti[H], dr[H], di[H];
      T y0r = x0r, y0i = x0i;
      for (int j = 1; j <= H; ++j) {
        const T ur = ar[e + j * jump], ui = ai[e + j * jump];
        const T vr = ar[e + (R - j) * jump], vi = ai[e + (R - j) * jump];
        tr[j - 1] = ur + vr, ti[j - 1] = ui + vi;
        dr[j - 1] = ur - vr, di[j - 1] = ui - vi;
        y0r = y0r + tr[j - 1], y0i = y0i + ti[j - 1];
      }
      store(e, 0, y0r, y0i);
      for (int k = 1; k <= H; ++k) {
        T pr = x0r, pi = x0i, qr = 0, qi = 0;
        for (int j = 1; j <= H; ++j) {
          const T c = cs[(j - 1) * H + k - 1], n = sn[(j - 1) * H + k - 1];
          pr = pr + c * tr[j - 1], pi = pi + c * ti[j - 1];
          qr = qr + n * dr[j - 1], qi = qi + n * di[j - 1];
        }
        store(e, k, pr - sign * qi, pi + sign * qr);  // p + sign i q
        store(e, R - k, pr + sign * qi, pi - sign * qr);
      }
    }
  }
}

// One pass of the self-sorting (Stockham) mixed-radix transform of N = s * r * m points, from x to
// y: for every p < m, the r points x[q + s (p + j m)] (j < r) of each q < s go through an r-point
// DFT, and output k is multiplied by the twiddle w_N^(s p k) and stored at y[q + s (r p + k)].
// After the passes of all of N's factors the transform is in natural order: no permutation. With W
// lanes point-major, q and the lane together run over sw = s W consecutive values that share
// their twiddles, so each inner loop is contiguous (a vector loop on the CPU whenever s W > 1).
// R is the radix where the prelude has its butterflies (2, 3, 4, 5, 7), else 0 and `r` says it: a
// general radix sums its DFT directly, w_r^(jk) being the table's twiddle at (N / r) (jk mod r),
// accumulated in double as the direct sum of a prime length is.
template <class T, int R>
LF_DEVICE void lf_fft_stockham_pass(const T* LF_RESTRICT xr, const T* LF_RESTRICT xi,
                                    T* LF_RESTRICT yr, T* LF_RESTRICT yi, int64_t bigN, int64_t s,
                                    int64_t sw, int64_t r, bool inverse, const double* twc,
                                    const double* tws) {
  const int64_t m = bigN / (s * r);
  const int64_t jump = m * sw;  // from x's point j to j + 1 of the same DFT
  const T sign = inverse ? (T)1 : (T)-1;
  if constexpr (R > 0) {
    constexpr int H = R % 2 == 1 ? (R - 1) / 2 : 1;
    T cs[H * H] = {}, sn[H * H] = {};  // only an odd radix reads them
    for (int j = 1; j <= H && R % 2 == 1; ++j) {
      for (int k = 1; k <= H; ++k) {
        cs[(j - 1) * H + k - 1] = (T)twc[(bigN / R) * ((j * k) % R)];
        sn[(j - 1) * H + k - 1] = (T)tws[(bigN / R) * ((j * k) % R)];
      }
    }
    lf_fft_butterflies<T, R, false>(xr, xi, yr, yi, sw, jump, sign, cs, sn, nullptr, nullptr);
    for (int64_t p = 1; p < m; ++p) {
      T wr[R], wi[R];
      for (int k = 1; k < R; ++k) {
        wr[k] = (T)twc[s * p * k];
        wi[k] = sign * (T)tws[s * p * k];
      }
      lf_fft_butterflies<T, R, true>(xr + p * sw, xi + p * sw, yr + r * p * sw, yi + r * p * sw, sw,
                                     jump, sign, cs, sn, wr, wi);
    }
  } else {
    const int64_t step = bigN / r;
    for (int64_t p = 0; p < m; ++p) {
      const T* ar = xr + p * sw;
      const T* ai = xi + p * sw;
      T* br = yr + r * p * sw;
      T* bi = yi + r * p * sw;
      for (int64_t k = 0; k < r; ++k) {
        const T wr = (T)twc[s * p * k], wi = sign * (T)tws[s * p * k];
        LF_IVDEP
        for (int64_t e = 0; e < sw; ++e) {
          double sr = 0, si = 0;
          int64_t jk = 0;  // j k mod r
          for (int64_t j = 0; j < r; ++j) {
            const double c = twc[jk * step], t = (double)sign * tws[jk * step];
            const double vr = (double)ar[e + j * jump], vi = (double)ai[e + j * jump];
            sr += vr * c - vi * t;
            si += vr * t + vi * c;
            jk += k;
            if (jk >= r) jk -= r;
          }
          const T tr = (T)sr, ti = (T)si;
          br[e + k * sw] = k == 0 || p == 0 ? tr : tr * wr - ti * wi;
          bi[e + k * sw] = k == 0 || p == 0 ? ti : tr * wi + ti * wr;
        }
      }
    }
  }
}

// The transform of W lines of n points: a Stockham pass per factor of n (lf_fft_radix), back and
// forth between (re, im) and the work space (wre, wim), and a copy back when the last pass wrote
// the work space. A pass of radix p costs about p/2 complex multiply-adds per point (p for a
// prime past 7), so a length with a large prime factor is slow still (n = 2 * 4099: 4099).
template <class T, int W>
LF_DEVICE void lf_fft_mixed_radix(T* re, T* im, int64_t n, bool inverse, const double* twc,
                                  const double* tws, T* wre, T* wim) {
  T *xr = re, *xi = im, *yr = wre, *yi = wim;
  for (int64_t s = 1; s < n;) {
    const int64_t r = lf_fft_radix(n / s);
    const int64_t sw = s * W;
    switch (r) {
      case 2:
        lf_fft_stockham_pass<T, 2>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
      case 3:
        lf_fft_stockham_pass<T, 3>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
      case 4:
        lf_fft_stockham_pass<T, 4>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
      case 5:
        lf_fft_stockham_pass<T, 5>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
      case 7:
        lf_fft_stockham_pass<T, 7>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
      default:
        lf_fft_stockham_pass<T, 0>(xr, xi, yr, yi, n, s, sw, r, inverse, twc, tws);
        break;
    }
    T* t = xr;
    xr = yr, yr = t;
    t = xi;
    xi = yi, yi = t;
    s *= r;
  }
  if (xr != re) {
    for (int64_t e = 0; e < n * W; ++e) {
      re[e] = xr[e];
      im[e] = xi[e];
    }
  }
}

// W lines at once, in place, point-major: point k of lane w at re/im[k * W + w]. `wre`/`wim` are
// n * W values of work space. The twiddle tables hold cos and sin of 2 pi k/n at [k], k < n.
template <class T, int W>
LF_FFT_FN void lf_fft_lanes(T* re, T* im, int64_t n, bool inverse, const double* twc,
                            const double* tws, T* wre, T* wim) {
  lf_fft_mixed_radix<T, W>(re, im, n, inverse, twc, tws, wre, wim);
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
