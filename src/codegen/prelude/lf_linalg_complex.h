// The complex QR and Hermitian eigen-decompositions behind jnp.linalg.qr and jnp.linalg.eigh of
// complex matrices, as lf_linalg.h's are the real ones. QR: LAPACK's cgeqrf and cungqr below 128
// columns (geqr2, ung2r), with the complex reflectors of clarfg, applied as H^H while factoring.
// eigh: cheevd / zheevd, step for step as lf_syevd_lower takes ssyevd's: the unblocked
// reduction to a real tridiagonal matrix (hetd2, complex reflectors from larfg, whose beta is
// real), the real tridiagonal QL/QR iteration (steqr with compz 'I', or above 25 rows stedc's
// divide and conquer, shared with the real eigh), then the complex reflectors applied to its real
// eigenvectors (unm2r). Following the same steps gives the same phase to each eigenvector, which is
// the algorithm's choice, not the matrix's. The matrix is two row-major arrays, its real and
// imaginary parts (loopfuse splits every complex array). Included by lf_common.h (pasted in place
// by preludeText).
#pragma once

// dlapy3: sqrt(x^2 + y^2 + z^2) without needless overflow.
template <class T>
LF_DEVICE T lf_la_lapy3(T x, T y, T z) {
  const T xa = lf_la_fabs(x), ya = lf_la_fabs(y), za = lf_la_fabs(z);
  T w = xa > ya ? xa : ya;
  w = w > za ? w : za;
  if (w == (T)0 || w > lf_la_limits<T>::huge) return xa + ya + za;
  return w * lf_la_sqrt((xa / w) * (xa / w) + (ya / w) * (ya / w) + (za / w) * (za / w));
}

// scnrm2 / dznrm2 of the n complex values (xr[i * inc], xi[i * inc]): as lf_la_nrm2, over the
// parts in memory order (real, then imaginary, element by element).
template <class T>
LF_DEVICE T lf_la_cnrm2(int64_t n, const T* xr, const T* xi, int64_t inc) {
  if constexpr (sizeof(T) == 4) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      sum += (double)xr[i * inc] * (double)xr[i * inc];
      sum += (double)xi[i * inc] * (double)xi[i * inc];
    }
    return (T)sqrt(sum);
  } else {
    T scale = 0, ssq = 1;
    for (int64_t i = 0; i < n; ++i) {
      lf_la_ssq_add(xr[i * inc], scale, ssq);
      lf_la_ssq_add(xi[i * inc], scale, ssq);
    }
    return scale * lf_la_sqrt(ssq);
  }
}

// clarfg: the reflector H = I - tau v v^H with H^H (alpha, x) = (beta, 0), beta real. On return
// alpha is beta and x holds v's tail (v[0] = 1 is implied); tau is returned. Unlike the real
// larfg, a one-element reflector (n = 1) still makes a complex alpha real.
template <class T>
LF_DEVICE lf_cx<T> lf_la_clarfg(int64_t n, T* alphar, T* alphai, T* xr, T* xi, int64_t inc) {
  const lf_cx<T> zero{(T)0, (T)0};
  if (n <= 0) return zero;
  T xnorm = lf_la_cnrm2(n - 1, xr, xi, inc);
  T ar = *alphar, ai = *alphai;
  if (xnorm == (T)0 && ai == (T)0) return zero;
  T beta = -lf_la_sign(lf_la_lapy3(ar, ai, xnorm), ar);
  const T safmin = lf_la_limits<T>::safmin / lf_la_limits<T>::eps;
  int knt = 0;
  if (lf_la_fabs(beta) < safmin) {  // beta may be inaccurate: scale x up and recompute
    const T rsafmn = (T)1 / safmin;
    do {
      ++knt;
      for (int64_t i = 0; i < n - 1; ++i) {
        xr[i * inc] *= rsafmn;
        xi[i * inc] *= rsafmn;
      }
      beta *= rsafmn;
      ai *= rsafmn;
      ar *= rsafmn;
    } while (lf_la_fabs(beta) < safmin && knt < 20);
    xnorm = lf_la_cnrm2(n - 1, xr, xi, inc);
    beta = -lf_la_sign(lf_la_lapy3(ar, ai, xnorm), ar);
  }
  const lf_cx<T> tau{(beta - ar) / beta, -ai / beta};
  const lf_cx<T> scale = lf_cx_div(lf_cx<T>{(T)1, (T)0}, lf_cx<T>{ar - beta, ai});
  for (int64_t i = 0; i < n - 1; ++i) {
    const lf_cx<T> v = lf_cx_mul(scale, lf_cx<T>{xr[i * inc], xi[i * inc]});
    xr[i * inc] = v.re;
    xi[i * inc] = v.im;
  }
  for (int j = 0; j < knt; ++j) beta *= safmin;
  *alphar = beta;
  *alphai = (T)0;
  return tau;
}

// chetd2 with uplo 'L': Q^H A Q = T for the Hermitian n x n matrix (ar, ai) (its lower triangle
// read), T real tridiagonal with diagonal d[0..n) and off-diagonal e[0..n-1); the reflectors of Q
// stay below the subdiagonal, their scalars in (taur, taui)[0..n-1). hemv and her2 in the
// reference order; the imaginary parts of the diagonal are not read. Element (r, c) is at
// [r * rs + c * cs], as in lf_la_sytd2_lower ((1, n) reads the lower triangle's columns
// contiguously).
template <class T>
LF_LINALG_FN void lf_la_hetd2_lower(T* ar, T* ai, int64_t n, T* d, T* e, T* taur, T* taui,
                                    int64_t rs, int64_t cs) {
  ai[0] = (T)0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t head = (i + 1) * rs + i * cs;  // A(i+1, i), the reflector's head
    const int64_t below = (i + 2 < n ? i + 2 : n - 1) * rs + i * cs;
    const lf_cx<T> t = lf_la_clarfg(n - i - 1, ar + head, ai + head, ar + below, ai + below, rs);
    e[i] = ar[head];
    const int64_t len = n - i - 1;
    const int64_t sub = (i + 1) * rs + (i + 1) * cs;  // A(i+1:, i+1:)
    if (!lf_cx_is_zero(t)) {
      ar[head] = (T)1;
      ai[head] = (T)0;
      auto v = [&](int64_t r) { return lf_cx<T>{ar[head + r * rs], ai[head + r * rs]}; };
      auto A = [&](int64_t r, int64_t c) {
        return lf_cx<T>{ar[sub + r * rs + c * cs], ai[sub + r * rs + c * cs]};
      };
      T* xr = taur + i;  // x = t A v (hemv, lower), in tau[i..n-1)
      T* xi = taui + i;
      for (int64_t r = 0; r < len; ++r) xr[r] = xi[r] = (T)0;
      for (int64_t j = 0; j < len; ++j) {
        const lf_cx<T> t1 = lf_cx_mul(t, v(j));
        lf_cx<T> t2{(T)0, (T)0};
        const T diag = ar[sub + j * (rs + cs)];
        xr[j] += t1.re * diag;
        xi[j] += t1.im * diag;
        for (int64_t r = j + 1; r < len; ++r) {
          const lf_cx<T> p = lf_cx_mul(t1, A(r, j));
          xr[r] += p.re;
          xi[r] += p.im;
          const lf_cx<T> q = lf_cx_mul(lf_cx_conj(A(r, j)), v(r));
          t2.re += q.re;
          t2.im += q.im;
        }
        const lf_cx<T> s = lf_cx_mul(t, t2);
        xr[j] += s.re;
        xi[j] += s.im;
      }
      // x += alpha v with alpha = -1/2 t (x^H v)
      lf_cx<T> dot{(T)0, (T)0};
      for (int64_t r = 0; r < len; ++r) {
        const lf_cx<T> q = lf_cx_mul(lf_cx<T>{xr[r], -xi[r]}, v(r));
        dot.re += q.re;
        dot.im += q.im;
      }
      const lf_cx<T> alpha = lf_cx_mul(lf_cx<T>{(T)-0.5 * t.re, (T)-0.5 * t.im}, dot);
      for (int64_t r = 0; r < len; ++r) {
        const lf_cx<T> q = lf_cx_mul(alpha, v(r));
        xr[r] += q.re;
        xi[r] += q.im;
      }
      // A -= v x^H + x v^H (her2, lower)
      for (int64_t j = 0; j < len; ++j) {
        const lf_cx<T> vj = v(j), xj{xr[j], xi[j]};
        if (lf_cx_is_zero(vj) && lf_cx_is_zero(xj)) {
          ai[sub + j * (rs + cs)] = (T)0;
          continue;
        }
        const lf_cx<T> t1{-xj.re, xj.im};  // -conj(x_j)
        const lf_cx<T> t2{-vj.re, vj.im};  // conj(-v_j)
        const lf_cx<T> dj = lf_cx_mul(vj, t1), dk = lf_cx_mul(xj, t2);
        ar[sub + j * (rs + cs)] += dj.re + dk.re;
        ai[sub + j * (rs + cs)] = (T)0;
        for (int64_t r = j + 1; r < len; ++r) {
          const lf_cx<T> p = lf_cx_mul(v(r), t1), q = lf_cx_mul(lf_cx<T>{xr[r], xi[r]}, t2);
          ar[sub + r * rs + j * cs] = (ar[sub + r * rs + j * cs] + p.re) + q.re;
          ai[sub + r * rs + j * cs] = (ai[sub + r * rs + j * cs] + p.im) + q.im;
        }
      }
    } else {
      ai[sub] = (T)0;
    }
    ar[head] = e[i];
    ai[head] = (T)0;
    d[i] = ar[i * (rs + cs)];
    taur[i] = t.re;
    taui[i] = t.im;
  }
  d[n - 1] = ar[(n - 1) * (rs + cs)];
}

// clarf('L'): C = (I - tau v v^H) C for the m x n complex block C (cr, ci; row stride ldc), v at
// (vr, vi)[i * incv] (v[0] as given): w = C^H v (gemv 'C'), then C -= v (tau conj(w))^T (gerc),
// each in the reference order.
template <class T>
LF_DEVICE void lf_la_clarf_left(int64_t m, int64_t n, const T* vr, const T* vi, int64_t incv,
                                lf_cx<T> tau, T* cr, T* ci, int64_t ldc) {
  if (lf_cx_is_zero(tau)) return;
  constexpr int64_t kBlock = 32;  // columns per pass, as in lf_la_larf_left
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t nb = n - j0 < kBlock ? n - j0 : kBlock;
    T wr[kBlock], wi[kBlock];
    for (int64_t j = 0; j < nb; ++j) wr[j] = wi[j] = (T)0;
    for (int64_t i = 0; i < m; ++i) {
      const lf_cx<T> vv{vr[i * incv], vi[i * incv]};
      for (int64_t j = 0; j < nb; ++j) {
        const int64_t at = i * ldc + j0 + j;
        const lf_cx<T> q = lf_cx_mul(lf_cx<T>{cr[at], -ci[at]}, vv);
        wr[j] += q.re;
        wi[j] += q.im;
      }
    }
    for (int64_t j = 0; j < nb; ++j) {
      const lf_cx<T> t = lf_cx_mul(lf_cx<T>{-tau.re, -tau.im}, lf_cx<T>{wr[j], -wi[j]});
      wr[j] = t.re;
      wi[j] = t.im;
    }
    for (int64_t i = 0; i < m; ++i) {
      const lf_cx<T> vv{vr[i * incv], vi[i * incv]};
      for (int64_t j = 0; j < nb; ++j) {
        const int64_t at = i * ldc + j0 + j;
        const lf_cx<T> q = lf_cx_mul(vv, lf_cx<T>{wr[j], wi[j]});
        cr[at] += q.re;
        ci[at] += q.im;
      }
    }
  }
}

// cgeqrf (geqr2): the m x n complex matrix (ar, ai) becomes R on and above the diagonal and the
// reflectors' tails below it; (taur, taui)[0..min(m, n)) their scalars. H(i)^H = I - conj(tau) v
// v^H is what reduces the trailing columns.
template <class T>
LF_LINALG_FN void lf_cgeqrf(T* ar, T* ai, int64_t m, int64_t n, T* taur, T* taui) {
  const int64_t k = m < n ? m : n;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t ii = i * n + i;
    const int64_t below = (i + 1 < m ? i + 1 : m - 1) * n + i;
    const lf_cx<T> tau = lf_la_clarfg(m - i, ar + ii, ai + ii, ar + below, ai + below, n);
    taur[i] = tau.re;
    taui[i] = tau.im;
    if (i < n - 1) {
      const T keepr = ar[ii], keepi = ai[ii];
      ar[ii] = (T)1;
      ai[ii] = (T)0;
      lf_la_clarf_left(m - i, n - i - 1, ar + ii, ai + ii, n, lf_cx_conj(tau), ar + ii + 1,
                       ai + ii + 1, n);
      ar[ii] = keepr;
      ai[ii] = keepi;
    }
  }
}

// cungqr (ung2r): the m x n complex matrix (ar, ai) (m >= n >= k) holding k reflectors as
// lf_cgeqrf leaves them becomes the first n columns of Q = H(0) H(1) ... H(k-1).
template <class T>
LF_LINALG_FN void lf_cungqr(T* ar, T* ai, int64_t m, int64_t n, int64_t k, const T* taur,
                            const T* taui) {
  for (int64_t j = k; j < n; ++j) {
    for (int64_t l = 0; l < m; ++l) ar[l * n + j] = ai[l * n + j] = (T)0;
    ar[j * n + j] = (T)1;
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    const int64_t ii = i * n + i;
    const lf_cx<T> tau{taur[i], taui[i]};
    if (i < n - 1) {
      ar[ii] = (T)1;
      ai[ii] = (T)0;
      lf_la_clarf_left(m - i, n - i - 1, ar + ii, ai + ii, n, tau, ar + ii + 1, ai + ii + 1, n);
    }
    const lf_cx<T> minus{-tau.re, -tau.im};
    for (int64_t l = i + 1; l < m; ++l) {
      const lf_cx<T> v = lf_cx_mul(minus, lf_cx<T>{ar[l * n + i], ai[l * n + i]});
      ar[l * n + i] = v.re;
      ai[l * n + i] = v.im;
    }
    ar[ii] = (T)1 - tau.re;
    ai[ii] = -tau.im;
    for (int64_t l = 0; l < i; ++l) ar[l * n + i] = ai[l * n + i] = (T)0;
  }
}

// The workspace lf_heevd_lower needs for an n x n matrix: in elements, and in int32s.
#define LF_HEEVD_WORK(n) (2 * (n) * (n) + 3 * (n) + LF_STEDC_WORK(n))
#define LF_HEEVD_IWORK(n) LF_STEDC_IWORK(n)

// cheevd with jobz 'V' and uplo 'L': the n x n Hermitian matrix (ar, ai) (its lower triangle
// read) becomes its eigenvectors (column j for w[j]), w the eigenvalues ascending. The real
// tridiagonal problem is steqr's up to 25 rows and stedc's above (cstedc with compz 'I' calls
// sstedc). work holds LF_HEEVD_WORK(n) elements, iwork LF_HEEVD_IWORK(n). Returns info.
template <class T>
LF_LINALG_FN int32_t lf_heevd_lower(T* ar, T* ai, int64_t n, T* w, T* work, int32_t* iwork) {
  if (n == 0) return 0;
  if (n == 1) {
    w[0] = ar[0];
    ar[0] = (T)1;
    ai[0] = (T)0;
    return 0;
  }
  T* e = work;
  T* taur = e + n;
  T* taui = taur + n;
  T* zr = taui + n;
  T* zi = zr + n * n;
  T* rot = zi + n * n;
  // Scale the matrix into range (clanhe('M'): |re| on the diagonal, |z| below it).
  const T safmin = lf_la_limits<T>::safmin, eps = (T)2 * lf_la_limits<T>::eps;
  const T smlnum = safmin / eps, bignum = (T)1 / smlnum;
  const T rmin = lf_la_sqrt(smlnum), rmax = lf_la_sqrt(bignum);
  T anrm = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j; i < n; ++i) {
      const T x = i == j ? lf_la_fabs(ar[i * n + j]) : lf_la_lapy2(ar[i * n + j], ai[i * n + j]);
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
  if (scaled) {
    lf_la_lascl((T)1, sigma, ar, n, 1, n);
    lf_la_lascl((T)1, sigma, ai, n, 1, n);
  }
  // Past LF_EIGH_TRANSPOSE_ABOVE rows the lower triangle is transposed first, as in
  // lf_syevd_lower.
  const bool transposed = n > LF_EIGH_TRANSPOSE_ABOVE;
  if (transposed) {
    for (int64_t r = 1; r < n; ++r) {
      for (int64_t c = 0; c < r; ++c) {
        ar[c * n + r] = ar[r * n + c];
        ai[c * n + r] = ai[r * n + c];
      }
    }
  }
  const int64_t rs = transposed ? 1 : n, cs = transposed ? n : 1;
  lf_la_hetd2_lower(ar, ai, n, w, e, taur, taui, rs, cs);
  const int32_t info = lf_la_stedc(n, w, e, zr, rot, iwork);
  for (int64_t i = 0; i < n * n; ++i) zi[i] = (T)0;
  // Z = Q Z (cunmtr 'L', 'L', 'N': unm2r with the reflectors below the subdiagonal, last first).
  for (int64_t i = n - 2; i >= 0; --i) {
    const int64_t head = (i + 1) * rs + i * cs;
    const T keepr = ar[head], keepi = ai[head];
    ar[head] = (T)1;
    ai[head] = (T)0;
    lf_la_clarf_left(n - i - 1, n, ar + head, ai + head, rs, lf_cx<T>{taur[i], taui[i]},
                     zr + (i + 1) * n, zi + (i + 1) * n, n);
    ar[head] = keepr;
    ai[head] = keepi;
  }
  for (int64_t i = 0; i < n * n; ++i) {
    ar[i] = zr[i];
    ai[i] = zi[i];
  }
  if (scaled) {
    const T inv = (T)1 / sigma;
    for (int64_t i = 0; i < n; ++i) w[i] *= inv;
  }
  return info;
}

// clarf('R'): C = C (I - tau v v^H) for the m x n complex block C (cr, ci; row stride ldc), v at
// (vr, vi)[j * incv]. Row by row: w_i = sum_j C(i, j) v_j (gemv 'N'), then C(i, j) += w_i (-tau
// conj(v_j)) (gerc).
template <class T>
LF_DEVICE void lf_la_clarf_right(int64_t m, int64_t n, const T* vr, const T* vi, int64_t incv,
                                 lf_cx<T> tau, T* cr, T* ci, int64_t ldc) {
  if (lf_cx_is_zero(tau)) return;
  const lf_cx<T> minus{-tau.re, -tau.im};
  for (int64_t i = 0; i < m; ++i) {
    lf_cx<T> w{(T)0, (T)0};
    for (int64_t j = 0; j < n; ++j) {
      const lf_cx<T> q = lf_cx_mul(lf_cx<T>{cr[i * ldc + j], ci[i * ldc + j]},
                                   lf_cx<T>{vr[j * incv], vi[j * incv]});
      w.re += q.re;
      w.im += q.im;
    }
    for (int64_t j = 0; j < n; ++j) {
      const lf_cx<T> t = lf_cx_mul(minus, lf_cx<T>{vr[j * incv], -vi[j * incv]});
      const lf_cx<T> q = lf_cx_mul(w, t);
      cr[i * ldc + j] += q.re;
      ci[i * ldc + j] += q.im;
    }
  }
}

// cgebd2 without the reflectors kept: Q^H A P = B for the m x n complex matrix (ar, ai), B real
// bidiagonal (clarfg's betas are real), upper when m >= n and lower otherwise, its diagonal in
// d[0..min) and off-diagonal in e[0..min-1). Row reflectors act on the conjugated row (clacgv).
template <class T>
LF_LINALG_SVD_FN void lf_la_cgebd2(T* ar, T* ai, int64_t m, int64_t n, T* d, T* e) {
  auto conjugateRow = [&](int64_t i, int64_t from) {
    for (int64_t j = from; j < n; ++j) ai[i * n + j] = -ai[i * n + j];
  };
  if (m >= n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ii = i * n + i;
      const int64_t below = (i + 1 < m ? i + 1 : m - 1) * n + i;
      const lf_cx<T> tauq = lf_la_clarfg(m - i, ar + ii, ai + ii, ar + below, ai + below, n);
      d[i] = ar[ii];
      ar[ii] = (T)1;
      ai[ii] = (T)0;
      if (i < n - 1) {
        lf_la_clarf_left(m - i, n - i - 1, ar + ii, ai + ii, n, lf_cx_conj(tauq), ar + ii + 1,
                         ai + ii + 1, n);
      }
      ar[ii] = d[i];
      if (i < n - 1) {
        const int64_t r = ii + 1;
        const int64_t right = i * n + (i + 2 < n ? i + 2 : n - 1);
        conjugateRow(i, i + 1);
        const lf_cx<T> taup = lf_la_clarfg(n - i - 1, ar + r, ai + r, ar + right, ai + right, 1);
        e[i] = ar[r];
        ar[r] = (T)1;
        ai[r] = (T)0;
        lf_la_clarf_right(m - i - 1, n - i - 1, ar + r, ai + r, 1, taup, ar + r + n, ai + r + n, n);
        conjugateRow(i, i + 1);
        ar[r] = e[i];
        ai[r] = (T)0;
      }
    }
  } else {
    for (int64_t i = 0; i < m; ++i) {
      const int64_t ii = i * n + i;
      const int64_t right = i * n + (i + 1 < n ? i + 1 : n - 1);
      conjugateRow(i, i);
      const lf_cx<T> taup = lf_la_clarfg(n - i, ar + ii, ai + ii, ar + right, ai + right, 1);
      d[i] = ar[ii];
      ar[ii] = (T)1;
      ai[ii] = (T)0;
      if (i < m - 1) {
        lf_la_clarf_right(m - i - 1, n - i, ar + ii, ai + ii, 1, taup, ar + ii + n, ai + ii + n, n);
      }
      conjugateRow(i, i);
      ar[ii] = d[i];
      ai[ii] = (T)0;
      if (i < m - 1) {
        const int64_t b = ii + n;
        const int64_t below = (i + 2 < m ? i + 2 : m - 1) * n + i;
        const lf_cx<T> tauq = lf_la_clarfg(m - i - 1, ar + b, ai + b, ar + below, ai + below, n);
        e[i] = ar[b];
        ar[b] = (T)1;
        ai[b] = (T)0;
        lf_la_clarf_left(m - i - 1, n - i - 1, ar + b, ai + b, n, lf_cx_conj(tauq), ar + b + 1,
                         ai + b + 1, n);
        ar[b] = e[i];
      }
    }
  }
}

// The workspace lf_cgesdd_values needs for min(m, n) = k, in elements.
#define LF_CGESDD_VALUES_WORK(k) ((k) + LF_BDSDC_WORK(k) + 1)

// cgesdd with jobz 'N': the singular values s[0..k) of the m x n complex matrix (ar, ai)
// (destroyed), descending: the scaling into range, the bidiagonal reduction, then bdsdc without
// vectors (for any size: LAPACK's bdsdc hands a values-only problem to lasdq whatever its order).
// Values do not depend on the path taken, so the QR or LQ factorization gesdd runs first for a
// far from square matrix is skipped; they agree to rounding. Returns info: 0, -4 for a NaN, or
// > 0 when bdsqr did not converge.
template <class T>
LF_LINALG_SVD_FN int32_t lf_cgesdd_values(T* ar, T* ai, int64_t m, int64_t n, T* s, T* work) {
  const int64_t k = m < n ? m : n;
  if (k == 0) return 0;
  T anrm = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    const T x = lf_la_lapy2(ar[i], ai[i]);
    if (anrm < x || x != x) anrm = x;
  }
  if (anrm != anrm) return -4;
  const lf_la_gesdd_scaling<T> scaling = lf_la_gesdd_scaling_of(anrm);
  scaling.scale(ar, m * n);
  scaling.scale(ai, m * n);
  T* e = work;
  lf_la_cgebd2(ar, ai, m, n, s, e);
  const int32_t info = lf_la_bdsdc(m >= n, false, k, s, e, (T*)0, 1, (T*)0, 1, work + k);
  scaling.unscale(s, k);
  return info;
}
