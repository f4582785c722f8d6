// The QR and symmetric eigen-decompositions behind jnp.linalg.qr and jnp.linalg.eigh, one matrix
// per call, run by one thread: LAPACK's unblocked algorithms, step for step, as jax's LAPACK
// calls run them on the CPU (geqrf and orgqr below 128 columns are geqr2 and org2r; syevd for
// n <= 25 is sytd2, then steqr, then orm2r; above, stedc's divide and conquer of lf_stedc.h
// replaces steqr). Taking the same steps is what gives the same signs:
// a Householder reflector's and an eigenvector's sign are a choice the algorithm makes, not a
// property of the matrix. The vector kernels (nrm2, dot, symv, ...) sum in the reference BLAS
// order, so the last bits can differ from OpenBLAS's; results are within the float tolerances.
//
// Matrices are row-major: element (i, j) of a matrix with row stride `ld` is p[i * ld + j], the
// logical index that loopfuse uses for every array (LAPACK's column-major buffers hold the same
// logical matrix). Only f32 and f64. Included by lf_common.h (pasted in place by preludeText).
#pragma once

// The decompositions are large and each op calls one once: on a GPU they stay functions (a
// __forceinline__ copy per call site multiplies NVRTC's work), elsewhere they are LF_DEVICE.
// The SVD's (lf_svd.h) are, under GCC on the CPU, one body for every shape (noipa: not inlined,
// not cloned for the call's constants): GCC 12.2 at -O3 -march=native (AVX-512) miscompiled gesdd
// inlined into a kernel that fixed its shape (4 x 6, mode 'S': the left vectors of the
// lower-bidiagonal path came out not orthogonal; right with -O2, with AVX2, with clang, with any
// one of its functions kept out of line, and valgrind and the sanitizers found nothing to blame
// in the source). QR and eigh stay inlined: out of line they cost 10% on the spectral_flow
// benchmark, and no shape has shown the problem there.
#if defined(LF_TARGET_CUDA) && !defined(LF_CUDA_EMULATED)
#define LF_LINALG_FN __device__ __noinline__
#define LF_LINALG_SVD_FN __device__ __noinline__
#elif defined(__GNUC__) && !defined(__clang__)
#define LF_LINALG_FN LF_DEVICE
#define LF_LINALG_SVD_FN LF_DEVICE __attribute__((noipa))
#else
#define LF_LINALG_FN LF_DEVICE
#define LF_LINALG_SVD_FN LF_DEVICE
#endif

template <class T>
struct lf_la_limits;
template <>
struct lf_la_limits<float> {
  static constexpr float eps = 5.9604644775390625e-08f;     // slamch('E'): 2^-24
  static constexpr float safmin = 1.1754943508222875e-38f;  // slamch('S'): 2^-126
  static constexpr float huge = 3.4028234663852886e+38f;    // slamch('O')
  static constexpr float cbrtSafmin = 0x1p-42f;             // slaed6's 2^int(log2(safmin) / 3)
};
template <>
struct lf_la_limits<double> {
  static constexpr double eps = 1.1102230246251565e-16;      // 2^-53
  static constexpr double safmin = 2.2250738585072014e-308;  // 2^-1022
  static constexpr double huge = 1.7976931348623157e+308;
  static constexpr double cbrtSafmin = 0x1p-340;
};

LF_DEVICE float lf_la_sqrt(float x) { return sqrtf(x); }
LF_DEVICE double lf_la_sqrt(double x) { return sqrt(x); }
LF_DEVICE float lf_la_fabs(float x) { return fabsf(x); }
LF_DEVICE double lf_la_fabs(double x) { return fabs(x); }
// Fortran's SIGN(a, b): |a| with b's sign (a -0 b gives -|a|, as gfortran does).
LF_DEVICE float lf_la_sign(float a, float b) { return copysignf(a, b); }
LF_DEVICE double lf_la_sign(double a, double b) { return copysign(a, b); }

// slapy2: sqrt(x^2 + y^2) without needless overflow; a NaN operand is the result.
template <class T>
LF_DEVICE T lf_la_lapy2(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  const T xa = lf_la_fabs(x), ya = lf_la_fabs(y);
  const T w = xa > ya ? xa : ya, z = xa > ya ? ya : xa;
  if (z == (T)0 || w > lf_la_limits<T>::huge) return w;
  return w * lf_la_sqrt((T)1 + (z / w) * (z / w));
}

// One value v into the reference BLAS's scaled sum of squares: scale^2 * ssq is the sum so far,
// scale the largest |value| (start from scale 0, ssq 1).
template <class T>
LF_DEVICE void lf_la_ssq_add(T v, T& scale, T& ssq) {
  if (v == (T)0) return;
  const T a = lf_la_fabs(v);
  if (scale < a) {
    ssq = (T)1 + ssq * (scale / a) * (scale / a);
    scale = a;
  } else {
    ssq += (a / scale) * (a / scale);
  }
}

// The 2-norm of x[0], x[inc], ..., n elements: f32 sums squares in f64 (no overflow, one
// rounding), f64 by the scaled sum of squares of the reference BLAS.
template <class T>
LF_DEVICE T lf_la_nrm2(int64_t n, const T* x, int64_t inc) {
  if constexpr (sizeof(T) == 4) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += (double)x[i * inc] * (double)x[i * inc];
    return (T)sqrt(sum);
  } else {
    T scale = 0, ssq = 1;
    for (int64_t i = 0; i < n; ++i) lf_la_ssq_add(x[i * inc], scale, ssq);
    return scale * lf_la_sqrt(ssq);
  }
}

// slascl('G'): x[0..n) (stride inc) times cto / cfrom, in steps that neither overflow nor
// underflow. With `lowerOf` > 0 the n x n lower triangle of the row-major matrix at x instead
// (slascl('L')).
template <class T>
LF_DEVICE void lf_la_lascl(T cfrom, T cto, T* x, int64_t n, int64_t inc, int64_t lowerOf = 0) {
  const T smlnum = lf_la_limits<T>::safmin, bignum = (T)1 / smlnum;
  bool done = false;
  while (!done) {
    const T cfrom1 = cfrom * smlnum;
    T mul;
    if (cfrom1 == cfrom) {  // cfrom is infinite: a NaN unless cto is too
      mul = cto / cfrom;
      done = true;
    } else {
      const T cto1 = cto / bignum;
      if (cto1 == cto) {  // cto is 0 or infinite
        mul = cto;
        done = true;
        cfrom = (T)1;
      } else if (lf_la_fabs(cfrom1) > lf_la_fabs(cto) && cto != (T)0) {
        mul = smlnum;
        cfrom = cfrom1;
      } else if (lf_la_fabs(cto1) > lf_la_fabs(cfrom)) {
        mul = bignum;
        cto = cto1;
      } else {
        mul = cto / cfrom;
        done = true;
        if (mul == (T)1) return;
      }
    }
    if (lowerOf > 0) {
      for (int64_t j = 0; j < lowerOf; ++j) {
        for (int64_t i = j; i < lowerOf; ++i) x[i * lowerOf + j] *= mul;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) x[i * inc] *= mul;
    }
  }
}

// slarfg: the reflector H = I - tau v v^T with H (alpha, x) = (beta, 0). On return *alpha is
// beta and x holds v's tail (v[0] = 1 is implied); tau is returned (0 when x is already 0).
template <class T>
LF_DEVICE T lf_la_larfg(int64_t n, T* alpha, T* x, int64_t inc) {
  if (n <= 1) return (T)0;
  T xnorm = lf_la_nrm2(n - 1, x, inc);
  if (xnorm == (T)0) return (T)0;
  T beta = -lf_la_sign(lf_la_lapy2(*alpha, xnorm), *alpha);
  const T safmin = lf_la_limits<T>::safmin / lf_la_limits<T>::eps;
  int knt = 0;
  if (lf_la_fabs(beta) < safmin) {  // beta may be inaccurate: scale x up and recompute
    const T rsafmn = (T)1 / safmin;
    do {
      ++knt;
      for (int64_t i = 0; i < n - 1; ++i) x[i * inc] *= rsafmn;
      beta *= rsafmn;
      *alpha *= rsafmn;
    } while (lf_la_fabs(beta) < safmin && knt < 20);
    xnorm = lf_la_nrm2(n - 1, x, inc);
    beta = -lf_la_sign(lf_la_lapy2(*alpha, xnorm), *alpha);
  }
  const T tau = (beta - *alpha) / beta;
  const T scale = (T)1 / (*alpha - beta);
  for (int64_t i = 0; i < n - 1; ++i) x[i * inc] *= scale;
  for (int j = 0; j < knt; ++j) beta *= safmin;
  *alpha = beta;
  return tau;
}

// slarf('L'): C = (I - tau v v^T) C for the m x n block C (row stride ldc), v[i * incv] (v[0] as
// given, the callers set it to 1): w = C^T v (gemv), then C += v (-tau w)^T (ger), each in the
// reference order.
// The columns go in blocks of 32 so that each pass reads C's rows contiguously (row-major; a
// column at a time strides through memory); every w[j] still sums over i ascending.
template <class T>
LF_DEVICE void lf_la_larf_left(int64_t m, int64_t n, const T* v, int64_t incv, T tau, T* c,
                               int64_t ldc) {
  if (tau == (T)0) return;
  constexpr int64_t kBlock = 32;
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t nb = n - j0 < kBlock ? n - j0 : kBlock;
    T w[kBlock];
    for (int64_t j = 0; j < nb; ++j) w[j] = (T)0;
    for (int64_t i = 0; i < m; ++i) {
      const T vi = v[i * incv];
      const T* row = c + i * ldc + j0;
      for (int64_t j = 0; j < nb; ++j) w[j] += row[j] * vi;
    }
    for (int64_t j = 0; j < nb; ++j) w[j] = -tau * w[j];
    for (int64_t i = 0; i < m; ++i) {
      const T vi = v[i * incv];
      T* row = c + i * ldc + j0;
      for (int64_t j = 0; j < nb; ++j) row[j] += vi * w[j];
    }
  }
}

// sgeqrf (geqr2): the m x n matrix a becomes R on and above the diagonal and the reflectors'
// tails below it; tau[0..min(m, n)) their scalars.
template <class T>
LF_LINALG_FN void lf_geqrf(T* a, int64_t m, int64_t n, T* tau) {
  const int64_t k = m < n ? m : n;
  for (int64_t i = 0; i < k; ++i) {
    T* aii = a + i * n + i;
    const int64_t below = i + 1 < m ? i + 1 : m - 1;
    tau[i] = lf_la_larfg(m - i, aii, a + below * n + i, n);
    if (i < n - 1) {
      const T keep = *aii;
      *aii = (T)1;
      lf_la_larf_left(m - i, n - i - 1, aii, n, tau[i], aii + 1, n);
      *aii = keep;
    }
  }
}

// sorgqr (org2r): the m x n matrix a (m >= n >= k) holding k reflectors as geqrf leaves them
// becomes the first n columns of Q = H(0) H(1) ... H(k-1).
template <class T>
LF_LINALG_FN void lf_orgqr(T* a, int64_t m, int64_t n, int64_t k, const T* tau) {
  for (int64_t j = k; j < n; ++j) {
    for (int64_t l = 0; l < m; ++l) a[l * n + j] = (T)0;
    a[j * n + j] = (T)1;
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    T* aii = a + i * n + i;
    if (i < n - 1) {
      *aii = (T)1;
      lf_la_larf_left(m - i, n - i - 1, aii, n, tau[i], aii + 1, n);
    }
    for (int64_t l = i + 1; l < m; ++l) a[l * n + i] *= -tau[i];
    *aii = (T)1 - tau[i];
    for (int64_t l = 0; l < i; ++l) a[l * n + i] = (T)0;
  }
}

// sormqr as orm2r (LAPACK blocks only past 32 reflectors): Q = H(0) ... H(k-1) from the k column
// reflectors in a (nq rows, row stride lda; reflector i in column i from row i down, its head 1)
// applied to the m x n matrix c: Q c / Q^T c (left, nq = m) or c Q / c Q^T (right, nq = n). Each
// H(i) as dlarf: w = C^T v (left) or C v (right), then C += v (-tau w^T) or w (-tau v^T), as dger.
template <class T>
LF_LINALG_FN void lf_ormqr(const T* a, int64_t nq, int64_t lda, int64_t k, const T* tau, T* c,
                           int64_t m, int64_t n, bool left, bool transpose) {
  // Q c and c Q^T take the last reflector first; Q^T c and c Q the first.
  const bool lastFirst = left != transpose;
  for (int64_t step = 0; step < k; ++step) {
    const int64_t i = lastFirst ? k - 1 - step : step;
    const T t = tau[i];
    if (t == (T)0) continue;  // H(i) = I
    const T* v = a + i * lda + i;
    const int64_t len = nq - i;
    if (left) {
      for (int64_t j = 0; j < n; ++j) {
        T* cj = c + i * n + j;  // C(i.., j)
        T w = cj[0];
        for (int64_t r = 1; r < len; ++r) w += v[r * lda] * cj[r * n];
        const T scaled = -t * w;
        cj[0] += scaled;
        for (int64_t r = 1; r < len; ++r) cj[r * n] += v[r * lda] * scaled;
      }
    } else {
      // Row by row: w[r] reads only row r, which dger then updates element by element.
      for (int64_t r = 0; r < m; ++r) {
        T* cr = c + r * n + i;  // C(r, i..)
        T w = cr[0];
        for (int64_t s = 1; s < len; ++s) w += cr[s] * v[s * lda];
        cr[0] += w * -t;
        for (int64_t s = 1; s < len; ++s) cr[s] += w * (-t * v[s * lda]);
      }
    }
  }
}

// ssytd2 with uplo 'L': Q^T A Q = T for the symmetric n x n matrix a (its lower triangle read),
// T tridiagonal with diagonal d[0..n) and off-diagonal e[0..n-1); the reflectors of Q stay below
// the subdiagonal of a, their scalars in tau[0..n-1). Element (r, c) of the matrix is
// a[r * rs + c * cs]: (n, 1) is row-major; (1, n) walks the lower triangle's columns, which are
// what symv and syr2 read, contiguously (the same arithmetic in the same order either way).
template <class T>
LF_LINALG_FN void lf_la_sytd2_lower(T* a, int64_t n, T* d, T* e, T* tau, int64_t rs, int64_t cs) {
  for (int64_t i = 0; i + 1 < n; ++i) {
    T* v = a + (i + 1) * rs + i * cs;  // A(i+1, i), the reflector's head
    const int64_t below = i + 2 < n ? i + 2 : n - 1;
    const T taui = lf_la_larfg(n - i - 1, v, a + below * rs + i * cs, rs);
    e[i] = *v;
    if (taui != (T)0) {
      *v = (T)1;
      const int64_t len = n - i - 1;
      T* sub = a + (i + 1) * rs + (i + 1) * cs;  // A(i+1:, i+1:)
      T* x = tau + i;                            // x = taui A v (symv, lower), in tau[i..n-1)
      for (int64_t r = 0; r < len; ++r) x[r] = (T)0;
      for (int64_t j = 0; j < len; ++j) {
        const T t1 = taui * v[j * rs];
        T t2 = 0;
        x[j] += t1 * sub[j * rs + j * cs];
        for (int64_t r = j + 1; r < len; ++r) {
          x[r] += t1 * sub[r * rs + j * cs];
          t2 += sub[r * rs + j * cs] * v[r * rs];
        }
        x[j] += taui * t2;
      }
      T dot = 0;
      for (int64_t r = 0; r < len; ++r) dot += x[r] * v[r * rs];
      const T alpha = (T)-0.5 * taui * dot;
      for (int64_t r = 0; r < len; ++r) x[r] += alpha * v[r * rs];
      // A -= v x^T + x v^T (syr2, lower)
      for (int64_t j = 0; j < len; ++j) {
        if (v[j * rs] == (T)0 && x[j] == (T)0) continue;
        const T t1 = -x[j], t2 = -v[j * rs];
        for (int64_t r = j; r < len; ++r) sub[r * rs + j * cs] += v[r * rs] * t1 + x[r] * t2;
      }
      *v = e[i];
    }
    d[i] = a[i * (rs + cs)];
    tau[i] = taui;
  }
  d[n - 1] = a[(n - 1) * (rs + cs)];
}

// slartg (LAPACK 3.10 and later): c, s, r with [c s; -s c] (f, g) = (r, 0), c >= 0 and r with
// f's sign.
template <class T>
LF_DEVICE void lf_la_lartg(T f, T g, T* c, T* s, T* r) {
  const T safmin = lf_la_limits<T>::safmin, safmax = (T)1 / safmin;
  const T rtmin = lf_la_sqrt(safmin), rtmax = lf_la_sqrt(safmax / 2);
  const T f1 = lf_la_fabs(f), g1 = lf_la_fabs(g);
  if (g == (T)0) {
    *c = (T)1;
    *s = (T)0;
    *r = f;
  } else if (f == (T)0) {
    *c = (T)0;
    *s = lf_la_sign((T)1, g);
    *r = g1;
  } else if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
    const T d = lf_la_sqrt(f * f + g * g);
    *c = f1 / d;
    *r = lf_la_sign(d, f);
    *s = g / *r;
  } else {
    T u = f1 > g1 ? f1 : g1;
    u = u > safmin ? u : safmin;
    u = u < safmax ? u : safmax;
    const T fs = f / u, gs = g / u;
    const T d = lf_la_sqrt(fs * fs + gs * gs);
    *c = lf_la_fabs(fs) / d;
    *r = lf_la_sign(d, f);
    *s = gs / *r;
    *r *= u;
  }
}

// slaev2: the eigen-decomposition of [a b; b c]: rt1 (the larger in magnitude), rt2, and the
// rotation (cs1, sn1) whose first column is rt1's eigenvector.
template <class T>
LF_DEVICE void lf_la_laev2(T a, T b, T c, T* rt1, T* rt2, T* cs1, T* sn1) {
  const T sm = a + c, df = a - c, adf = lf_la_fabs(df), tb = b + b, ab = lf_la_fabs(tb);
  T acmx = c, acmn = a;
  if (lf_la_fabs(a) > lf_la_fabs(c)) {
    acmx = a;
    acmn = c;
  }
  T rt;
  if (adf > ab) {
    rt = adf * lf_la_sqrt((T)1 + (ab / adf) * (ab / adf));
  } else if (adf < ab) {
    rt = ab * lf_la_sqrt((T)1 + (adf / ab) * (adf / ab));
  } else {
    rt = ab * lf_la_sqrt((T)2);
  }
  int sgn1;
  if (sm < (T)0) {
    *rt1 = (T)0.5 * (sm - rt);
    sgn1 = -1;
    *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
  } else if (sm > (T)0) {
    *rt1 = (T)0.5 * (sm + rt);
    sgn1 = 1;
    *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
  } else {
    *rt1 = (T)0.5 * rt;
    *rt2 = (T)-0.5 * rt;
    sgn1 = 1;
  }
  T cs;
  int sgn2;
  if (df >= (T)0) {
    cs = df + rt;
    sgn2 = 1;
  } else {
    cs = df - rt;
    sgn2 = -1;
  }
  if (lf_la_fabs(cs) > ab) {
    const T ct = -tb / cs;
    *sn1 = (T)1 / lf_la_sqrt((T)1 + ct * ct);
    *cs1 = ct * *sn1;
  } else if (ab == (T)0) {
    *cs1 = (T)1;
    *sn1 = (T)0;
  } else {
    const T tn = -cs / tb;
    *cs1 = (T)1 / lf_la_sqrt((T)1 + tn * tn);
    *sn1 = tn * *cs1;
  }
  if (sgn1 == sgn2) {
    const T tn = *cs1;
    *cs1 = -*sn1;
    *sn1 = tn;
  }
}

// lf_la_lasr_right on R rows at once: each row's rotations in order, the pair's moving element
// kept in a register from one rotation to the next, the R rows' chains interleaved.
template <int R, class T>
LF_DEVICE void lf_la_lasr_right_rows(bool forward, int64_t cols, const T* c, const T* s, T* z,
                                     int64_t ld) {
  T x[R];
  if (forward) {
    for (int r = 0; r < R; ++r) x[r] = z[r * ld];
    for (int64_t j = 0; j + 1 < cols; ++j) {
      const T ct = c[j], st = s[j];
      const bool identity = ct == (T)1 && st == (T)0;
      for (int r = 0; r < R; ++r) {
        const T t = z[r * ld + j + 1];
        z[r * ld + j] = identity ? x[r] : st * t + ct * x[r];
        x[r] = identity ? t : ct * t - st * x[r];
      }
    }
    for (int r = 0; r < R; ++r) z[r * ld + cols - 1] = x[r];
  } else {
    for (int r = 0; r < R; ++r) x[r] = z[r * ld + cols - 1];
    for (int64_t j = cols - 2; j >= 0; --j) {
      const T ct = c[j], st = s[j];
      const bool identity = ct == (T)1 && st == (T)0;
      for (int r = 0; r < R; ++r) {
        const T zj = z[r * ld + j];
        z[r * ld + j + 1] = identity ? x[r] : ct * x[r] - st * zj;
        x[r] = identity ? zj : st * x[r] + ct * zj;
      }
    }
    for (int r = 0; r < R; ++r) z[r * ld] = x[r];
  }
}

// slasr('R', 'V', direct): the rotations (c[j], s[j]) applied to the column pairs (j, j + 1) of
// the `rows` x `cols` block z (row stride ld), j ascending (forward) or descending. z is row-major,
// so LAPACK's loop (a rotation over all rows, then the next) would read every row at a stride;
// rows are independent, so each row takes all its rotations in turn instead: the same operations
// on each element in the same order, so the same bits.
template <class T>
LF_DEVICE void lf_la_lasr_right(bool forward, int64_t rows, int64_t cols, const T* c, const T* s,
                                T* z, int64_t ld) {
  if (cols < 2) return;
  constexpr int kRows = 4;
  int64_t i = 0;
  for (; i + kRows <= rows; i += kRows)
    lf_la_lasr_right_rows<kRows>(forward, cols, c, s, z + i * ld, ld);
  for (; i < rows; ++i) lf_la_lasr_right_rows<1>(forward, cols, c, s, z + i * ld, ld);
}

// slanst('M'): the largest |element| of the tridiagonal (d[0..n), e[0..n-1)); NaN wins.
template <class T>
LF_DEVICE T lf_la_lanst(int64_t n, const T* d, const T* e) {
  T norm = lf_la_fabs(d[n - 1]);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const T x = lf_la_fabs(d[i]), y = lf_la_fabs(e[i]);
    if (norm < x || x != x) norm = x;
    if (norm < y || y != y) norm = y;
  }
  return norm;
}

// steqr's and stedc's final order: the eigenvalues d ascending by selection sort, each swap
// swapping the columns of z (row stride ld) along, as few swaps as can be.
template <class T>
LF_DEVICE void lf_la_sort_eigenpairs(int64_t n, T* d, T* z, int64_t ld) {
  for (int64_t i = 0; i + 1 < n; ++i) {
    int64_t k = i;
    T p = d[i];
    for (int64_t j = i + 1; j < n; ++j) {
      if (d[j] < p) {
        k = j;
        p = d[j];
      }
    }
    if (k != i) {
      d[k] = d[i];
      d[i] = p;
      for (int64_t r = 0; r < n; ++r) {
        const T t = z[r * ld + i];
        z[r * ld + i] = z[r * ld + k];
        z[r * ld + k] = t;
      }
    }
  }
}

// ssteqr with compz 'I': the eigenvalues (ascending, in d) and the eigenvectors (the columns of
// the n x n matrix z) of the tridiagonal (d, e), by implicit QL or QR with Wilkinson shifts,
// whichever the ends of each unreduced block ask for. work holds 2 (n - 1) elements. Returns
// LAPACK's info: 0, or how many off-diagonal elements did not reach zero in 30 n iterations
// (the values are then unordered, as LAPACK leaves them). z may be a block of a larger matrix:
// its row stride is ldz (0: n).
template <class T>
LF_LINALG_FN int32_t lf_la_steqr(int64_t n, T* d, T* e, T* z, T* work, int64_t ldz = 0) {
  const int64_t ld = ldz > 0 ? ldz : n;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) z[i * ld + j] = i == j ? (T)1 : (T)0;
  }
  if (n <= 1) return 0;
  const T eps = lf_la_limits<T>::eps, eps2 = eps * eps;
  const T safmin = lf_la_limits<T>::safmin, safmax = (T)1 / safmin;
  const T ssfmax = lf_la_sqrt(safmax) / (T)3, ssfmin = lf_la_sqrt(safmin) / eps2;
  const int64_t nmaxit = n * 30;
  int64_t jtot = 0;
  T* ws = work + (n - 1);  // the rotations' sines; their cosines are work[0..n-1)
  int64_t l1 = 0;
  while (l1 < n) {
    if (l1 > 0) e[l1 - 1] = (T)0;
    int64_t m = l1;
    for (; m < n - 1; ++m) {  // where the matrix splits
      const T tst = lf_la_fabs(e[m]);
      if (tst == (T)0) break;
      if (tst <= (lf_la_sqrt(lf_la_fabs(d[m])) * lf_la_sqrt(lf_la_fabs(d[m + 1]))) * eps) {
        e[m] = (T)0;
        break;
      }
    }
    int64_t l = l1, lend = m;
    const int64_t lsv = l, lendsv = lend;
    l1 = m + 1;
    if (lend == l) continue;
    // Scale the block to a safe range.
    const T anorm = lf_la_lanst(lend - l + 1, d + l, e + l);
    int iscale = 0;
    if (anorm == (T)0) continue;
    if (anorm > ssfmax) {
      iscale = 1;
      lf_la_lascl(anorm, ssfmax, d + l, lend - l + 1, 1);
      lf_la_lascl(anorm, ssfmax, e + l, lend - l, 1);
    } else if (anorm < ssfmin) {
      iscale = 2;
      lf_la_lascl(anorm, ssfmin, d + l, lend - l + 1, 1);
      lf_la_lascl(anorm, ssfmin, e + l, lend - l, 1);
    }
    if (lf_la_fabs(d[lend]) < lf_la_fabs(d[l])) {  // QR instead of QL: start from the bottom
      lend = lsv;
      l = lendsv;
    }
    if (lend > l) {  // QL iteration
      while (true) {
        m = lend;
        for (int64_t k = l; k < lend; ++k) {
          const T tst = lf_la_fabs(e[k]) * lf_la_fabs(e[k]);
          if (tst <= (eps2 * lf_la_fabs(d[k])) * lf_la_fabs(d[k + 1]) + safmin) {
            m = k;
            break;
          }
        }
        if (m < lend) e[m] = (T)0;
        T p = d[l];
        if (m == l) {  // an eigenvalue
          d[l] = p;
          if (++l <= lend) continue;
          break;
        }
        if (m == l + 1) {  // a 2 x 2 block
          T rt1, rt2, c, s;
          lf_la_laev2(d[l], e[l], d[l + 1], &rt1, &rt2, &c, &s);
          work[l] = c;
          ws[l] = s;
          lf_la_lasr_right(false, n, 2, work + l, ws + l, z + l, ld);
          d[l] = rt1;
          d[l + 1] = rt2;
          e[l] = (T)0;
          l += 2;
          if (l <= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        T g = (d[l + 1] - p) / ((T)2 * e[l]);
        T r = lf_la_lapy2(g, (T)1);
        g = d[m] - p + (e[l] / (g + lf_la_sign(r, g)));
        T s = 1, c = 1;
        p = 0;
        for (int64_t i = m - 1; i >= l; --i) {
          const T f = s * e[i], b = c * e[i];
          lf_la_lartg(g, f, &c, &s, &r);
          if (i != m - 1) e[i + 1] = r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + (T)2 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
          work[i] = c;
          ws[i] = -s;
        }
        lf_la_lasr_right(false, n, m - l + 1, work + l, ws + l, z + l, ld);
        d[l] -= p;
        e[l] = g;
      }
    } else {  // QR iteration
      while (true) {
        m = lend;
        for (int64_t k = l; k > lend; --k) {
          const T tst = lf_la_fabs(e[k - 1]) * lf_la_fabs(e[k - 1]);
          if (tst <= (eps2 * lf_la_fabs(d[k])) * lf_la_fabs(d[k - 1]) + safmin) {
            m = k;
            break;
          }
        }
        if (m > lend) e[m - 1] = (T)0;
        T p = d[l];
        if (m == l) {
          d[l] = p;
          if (--l >= lend) continue;
          break;
        }
        if (m == l - 1) {
          T rt1, rt2, c, s;
          lf_la_laev2(d[l - 1], e[l - 1], d[l], &rt1, &rt2, &c, &s);
          work[m] = c;
          ws[m] = s;
          lf_la_lasr_right(true, n, 2, work + m, ws + m, z + (l - 1), ld);
          d[l - 1] = rt1;
          d[l] = rt2;
          e[l - 1] = (T)0;
          l -= 2;
          if (l >= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        T g = (d[l - 1] - p) / ((T)2 * e[l - 1]);
        T r = lf_la_lapy2(g, (T)1);
        g = d[m] - p + (e[l - 1] / (g + lf_la_sign(r, g)));
        T s = 1, c = 1;
        p = 0;
        for (int64_t i = m; i <= l - 1; ++i) {
          const T f = s * e[i], b = c * e[i];
          lf_la_lartg(g, f, &c, &s, &r);
          if (i != m) e[i - 1] = r;
          g = d[i] - p;
          r = (d[i + 1] - g) * s + (T)2 * c * b;
          p = s * r;
          d[i] = g + p;
          g = c * r - b;
          work[i] = c;
          ws[i] = s;
        }
        lf_la_lasr_right(true, n, l - m + 1, work + m, ws + m, z + m, ld);
        d[l] -= p;
        e[l - 1] = g;
      }
    }
    // Undo the scaling.
    if (iscale == 1) {
      lf_la_lascl(ssfmax, anorm, d + lsv, lendsv - lsv + 1, 1);
      lf_la_lascl(ssfmax, anorm, e + lsv, lendsv - lsv, 1);
    } else if (iscale == 2) {
      lf_la_lascl(ssfmin, anorm, d + lsv, lendsv - lsv + 1, 1);
      lf_la_lascl(ssfmin, anorm, e + lsv, lendsv - lsv, 1);
    }
    if (jtot >= nmaxit) {
      int32_t info = 0;
      for (int64_t i = 0; i + 1 < n; ++i) info += e[i] != (T)0;
      return info;
    }
  }
  lf_la_sort_eigenpairs(n, d, z, ld);
  return 0;
}

#include "lf_stedc.h"  // the divide and conquer above 25 rows, pasted in place by preludeText

// The workspace lf_syevd_lower needs for an n x n matrix: in elements, and in int32s.
#define LF_SYEVD_WORK(n) ((n) * (n) + 2 * (n) + LF_STEDC_WORK(n))
#define LF_SYEVD_IWORK(n) LF_STEDC_IWORK(n)

// ssyevd with jobz 'V' and uplo 'L': the n x n matrix a (its lower triangle read) becomes its
// eigenvectors (column j for w[j]), w the eigenvalues ascending. The tridiagonal problem is
// steqr's up to 25 rows, stedc's divide and conquer above (sytrd's blocked reduction above 32
// rows is the same reduction, summed in another order). work holds LF_SYEVD_WORK(n) elements,
// iwork LF_SYEVD_IWORK(n). Returns info.
template <class T>
LF_LINALG_FN int32_t lf_syevd_lower(T* a, int64_t n, T* w, T* work, int32_t* iwork) {
  if (n == 0) return 0;
  if (n == 1) {
    w[0] = a[0];
    a[0] = (T)1;
    return 0;
  }
  T* e = work;
  T* tau = e + n;
  T* z = tau + n;
  T* rot = z + n * n;
  // Scale the matrix into range (eps is slamch('P') here, twice slamch('E')).
  const T safmin = lf_la_limits<T>::safmin, eps = (T)2 * lf_la_limits<T>::eps;
  const T smlnum = safmin / eps, bignum = (T)1 / smlnum;
  const T rmin = lf_la_sqrt(smlnum), rmax = lf_la_sqrt(bignum);
  T anrm = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j; i < n; ++i) {
      const T x = lf_la_fabs(a[i * n + j]);
      if (anrm < x || x != x) anrm = x;
    }
  }
  T sigma = 1;
  bool scaled = false;
  if (anrm > (T)0 && anrm < rmin) {
    scaled = true;
    sigma = rmin / anrm;
  } else if (anrm > rmax) {
    scaled = true;
    sigma = rmax / anrm;
  }
  if (scaled) lf_la_lascl((T)1, sigma, a, n, 1, n);
  // Past LF_EIGH_TRANSPOSE_ABOVE rows the lower triangle is transposed into the upper first: the
  // reduction then reads its columns as rows (a is overwritten by the eigenvectors at the end).
  const bool transposed = n > LF_EIGH_TRANSPOSE_ABOVE;
  if (transposed) {
    for (int64_t r = 1; r < n; ++r) {
      for (int64_t c = 0; c < r; ++c) a[c * n + r] = a[r * n + c];
    }
  }
  const int64_t rs = transposed ? 1 : n, cs = transposed ? n : 1;
  lf_la_sytd2_lower(a, n, w, e, tau, rs, cs);
  const int32_t info = lf_la_stedc(n, w, e, z, rot, iwork);
  // Z = Q Z (sormtr 'L', 'L', 'N': orm2r with the reflectors below the subdiagonal, last first).
  for (int64_t i = n - 2; i >= 0; --i) {
    T* v = a + (i + 1) * rs + i * cs;
    const T keep = *v;
    *v = (T)1;
    lf_la_larf_left(n - i - 1, n, v, rs, tau[i], z + (i + 1) * n, n);
    *v = keep;
  }
  for (int64_t i = 0; i < n * n; ++i) a[i] = z[i];
  if (scaled) {
    const T inv = (T)1 / sigma;
    for (int64_t i = 0; i < n; ++i) w[i] *= inv;
  }
  return info;
}
