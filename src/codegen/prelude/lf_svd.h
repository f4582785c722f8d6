// The singular-value decomposition behind jnp.linalg.svd (and so pinv, lstsq, matrix_rank,
// norm(ord=2), cond): LAPACK's gesdd, step for step, as jax's lapack_{s,d}gesdd_ffi runs it on the
// CPU. Its bidiagonal solver (bdsdc) runs lasdq, that is bdsqr's QR iteration, up to 25 rows and
// for the values alone, and divide and conquer (lf_svd_dc.h) for vectors past 25. Below 32
// reflectors LAPACK's blocked routines are their unblocked versions (gebrd is gebd2 below 128,
// geqrf geqr2, gelqf gelq2, orgqr org2r, orglq orgl2, ormqr orm2r, ormlq orml2), so those are what
// is ported; past that the blocked ones only sum in another order. Following gesdd's paths (a QR
// or LQ factorization first when one dimension is at least 11/6 of the other, the bidiagonal
// reduction, bdsdc, the back-transformations) is what gives LAPACK's signs of the singular
// vectors: a vector's sign is the algorithm's choice, not a property of the matrix.
//
// Row-major as lf_linalg.h (element (i, j) at p[i * ld + j]); only f32 and f64. The one
// difference from LAPACK: with no vectors wanted bdsqr runs its QR iteration without them where
// LAPACK runs dqds (dlasq1); the singular values agree to rounding.
#pragma once

#include "lf_svd_bdsqr.h"  // bdsqr, pasted in place by codegen::preludeText

// slarf('R'): C = C (I - tau v v^T) for the m x n block C (row stride ldc), v[j * incv] (v[0] as
// given). Row by row: w_i = sum_j C(i, j) v_j (gemv 'N', j ascending), then C(i, j) += w_i
// (-tau v_j) (ger).
template <class T>
LF_DEVICE void lf_la_larf_right(int64_t m, int64_t n, const T* v, int64_t incv, T tau, T* c,
                                int64_t ldc) {
  if (tau == (T)0) return;
  for (int64_t i = 0; i < m; ++i) {
    T w = 0;
    for (int64_t j = 0; j < n; ++j) w += v[j * incv] * c[i * ldc + j];
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += w * (-tau * v[j * incv]);
  }
}

// sgebd2: Q^T A P = B for the m x n matrix a (row stride ld), B upper bidiagonal when m >= n and
// lower otherwise, its diagonal in d[0..min) and off-diagonal in e[0..min-1). The reflectors of Q
// stay below the diagonal (m >= n) or the subdiagonal, those of P right of the superdiagonal or
// the diagonal, their scalars in tauq, taup.
template <class T>
LF_LINALG_SVD_FN void lf_la_gebd2(T* a, int64_t m, int64_t n, int64_t ld, T* d, T* e, T* tauq,
                                  T* taup) {
  if (m >= n) {
    for (int64_t i = 0; i < n; ++i) {
      T* aii = a + i * ld + i;
      tauq[i] = lf_la_larfg(m - i, aii, a + (i + 1 < m ? i + 1 : m - 1) * ld + i, ld);
      d[i] = *aii;
      *aii = (T)1;
      if (i < n - 1) lf_la_larf_left(m - i, n - i - 1, aii, ld, tauq[i], aii + 1, ld);
      *aii = d[i];
      if (i < n - 1) {
        T* right = aii + 1;
        taup[i] = lf_la_larfg(n - i - 1, right, a + i * ld + (i + 2 < n ? i + 2 : n - 1), 1);
        e[i] = *right;
        *right = (T)1;
        lf_la_larf_right(m - i - 1, n - i - 1, right, 1, taup[i], right + ld, ld);
        *right = e[i];
      } else {
        taup[i] = (T)0;
      }
    }
  } else {
    for (int64_t i = 0; i < m; ++i) {
      T* aii = a + i * ld + i;
      taup[i] = lf_la_larfg(n - i, aii, a + i * ld + (i + 1 < n ? i + 1 : n - 1), 1);
      d[i] = *aii;
      *aii = (T)1;
      if (i < m - 1) lf_la_larf_right(m - i - 1, n - i, aii, 1, taup[i], aii + ld, ld);
      *aii = d[i];
      if (i < m - 1) {
        T* below = aii + ld;
        tauq[i] = lf_la_larfg(m - i - 1, below, a + (i + 2 < m ? i + 2 : m - 1) * ld + i, ld);
        e[i] = *below;
        *below = (T)1;
        lf_la_larf_left(m - i - 1, n - i - 1, below, ld, tauq[i], below + 1, ld);
        *below = e[i];
      } else {
        tauq[i] = (T)0;
      }
    }
  }
}

// sgelq2: the m x n matrix a (row stride ld) becomes L on and below the diagonal and the row
// reflectors' tails right of it; tau[0..min(m, n)) their scalars.
template <class T>
LF_LINALG_SVD_FN void lf_la_gelq2(T* a, int64_t m, int64_t n, int64_t ld, T* tau) {
  const int64_t k = m < n ? m : n;
  for (int64_t i = 0; i < k; ++i) {
    T* aii = a + i * ld + i;
    tau[i] = lf_la_larfg(n - i, aii, a + i * ld + (i + 1 < n ? i + 1 : n - 1), 1);
    if (i < m - 1) {
      const T keep = *aii;
      *aii = (T)1;
      lf_la_larf_right(m - i - 1, n - i, aii, 1, tau[i], aii + ld, ld);
      *aii = keep;
    }
  }
}

// sorgl2: the m x n matrix a (n >= m >= k, row stride ld) holding k row reflectors as gelq2
// leaves them becomes the first m rows of Q = H(k-1) ... H(0).
template <class T>
LF_LINALG_SVD_FN void lf_la_orgl2(T* a, int64_t m, int64_t n, int64_t k, int64_t ld, const T* tau) {
  if (k < m) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t l = k; l < m; ++l) a[l * ld + j] = (T)0;
      if (j >= k && j < m) a[j * ld + j] = (T)1;
    }
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    T* aii = a + i * ld + i;
    if (i < n - 1) {
      if (i < m - 1) {
        *aii = (T)1;
        lf_la_larf_right(m - i - 1, n - i, aii, 1, tau[i], aii + ld, ld);
      }
      for (int64_t j = i + 1; j < n; ++j) a[i * ld + j] *= -tau[i];
    }
    *aii = (T)1 - tau[i];
    for (int64_t l = 0; l < i; ++l) a[i * ld + l] = (T)0;
  }
}

// sorm2r('L', 'N'): C = Q C, Q = H(0) ... H(k-1) from the column reflectors in a (row stride
// lda; reflector i in column i from row i down), C m x n (row stride ldc). The last first.
template <class T>
LF_DEVICE void lf_la_orm2r_left(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau,
                                T* c, int64_t ldc) {
  for (int64_t i = k - 1; i >= 0; --i) {
    T* aii = a + i * lda + i;
    const T keep = *aii;
    *aii = (T)1;
    lf_la_larf_left(m - i, n, aii, lda, tau[i], c + i * ldc, ldc);
    *aii = keep;
  }
}

// sorml2('R', 'N'), as ormbr('P', 'R', 'T') calls it: C = C H(k-1) ... H(0) with
// the row reflectors in a (reflector i in row i from column i right), C m x n. The last first.
template <class T>
LF_DEVICE void lf_la_orml2_right(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau,
                                 T* c, int64_t ldc) {
  for (int64_t i = k - 1; i >= 0; --i) {
    T* aii = a + i * lda + i;
    const T keep = *aii;
    *aii = (T)1;
    lf_la_larf_right(m, n - i, aii, 1, tau[i], c + i, ldc);
    *aii = keep;
  }
}

// sormbr('Q', 'L', 'N', m, n, k): C = Q C for the Q of gebd2 on a matrix with `nq` = m rows and
// k columns: with nq >= k the reflectors start on the diagonal, otherwise (a wide matrix, lower
// bidiagonal) below it and act on rows 1.. of C.
template <class T>
LF_DEVICE void lf_la_ormbr_q(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tauq,
                             T* c, int64_t ldc) {
  if (m >= k) {
    lf_la_orm2r_left(m, n, k, a, lda, tauq, c, ldc);
  } else if (m > 1) {
    lf_la_orm2r_left(m - 1, n, m - 1, a + lda, lda, tauq, c + ldc, ldc);
  }
}

// sormbr('P', 'R', 'T', m, n, k): C = C P^T for the P of gebd2 on a matrix with k rows and
// `nq` = n columns: with nq > k the reflectors start on the diagonal, otherwise right of it and
// act on columns 1.. of C.
template <class T>
LF_DEVICE void lf_la_ormbr_p(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* taup,
                             T* c, int64_t ldc) {
  if (n > k) {
    lf_la_orml2_right(m, n, k, a, lda, taup, c, ldc);
  } else if (n > 1) {
    lf_la_orml2_right(m, n - 1, n - 1, a + 1, lda, taup, c + 1, ldc);
  }
}

// sgemm('N', 'N') with beta 0: C = A B, A m x l, B l x n; each element summed over l ascending.
template <class T>
LF_DEVICE void lf_la_gemm(int64_t m, int64_t n, int64_t l, const T* a, int64_t lda, const T* b,
                          int64_t ldb, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < l; ++p) sum += b[p * ldb + j] * a[i * lda + p];
      c[i * ldc + j] = sum;
    }
  }
}

// The rows x cols block at p (row stride ld): zeros, and `diag` on the diagonal (slaset).
template <class T>
LF_DEVICE void lf_la_laset(int64_t rows, int64_t cols, T diag, T* p, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) p[i * ld + j] = i == j ? diag : (T)0;
  }
}

#include "lf_svd_dc.h"  // bdsdc's divide and conquer past 25 rows, pasted in place by preludeText

// The workspace lf_la_bdsdc and lf_gesdd need for min(m, n) = k, in elements, and in int32s (the
// divide and conquer's, for vectors past LF_BDSDC_SMLSIZ rows; lf_gesdd_values needs none).
#define LF_BDSDC_WORK(k) ((k) <= LF_BDSDC_SMLSIZ ? LF_BDSQR_WORK(k) + 2 * (k) : LF_BDSDC_DC_WORK(k))
#define LF_GESDD_WORK(k) ((k) * (k) + 4 * (k) + LF_BDSDC_WORK(k) + 1)
#define LF_GESDD_IWORK(k) ((k) <= LF_BDSDC_SMLSIZ ? 1 : LF_BDSDC_DC_IWORK(k))

// sbdsdc: the singular values of the n x n bidiagonal (d, e) (upper or lower) in d, descending,
// and with `vectors` the left ones in the columns of u (n x n, row stride ldu) and the right ones
// in the rows of vt (n x n, row stride ldvt). Up to 25 rows (SMLSIZ), and for the values alone at
// any size, it hands the problem to lasdq, that is bdsqr; past 25 with vectors to the divide and
// conquer (lf_svd_dc.h), which needs iwork (LF_GESDD_IWORK(n) int32s). A lower bidiagonal is
// first rotated to an upper one from the left, the rotations applied to u at the end. Returns
// info.
template <class T>
LF_LINALG_SVD_FN int32_t lf_la_bdsdc(bool upper, bool vectors, int64_t n, T* d, T* e, T* u,
                                     int64_t ldu, T* vt, int64_t ldvt, T* work,
                                     int32_t* iwork = (int32_t*)0) {
  if (n == 0) return 0;
  if (n == 1) {
    if (vectors) {
      u[0] = lf_la_sign((T)1, d[0]);
      vt[0] = (T)1;
    }
    d[0] = lf_la_fabs(d[0]);
    return 0;
  }
  T* cs = work;          // the rotations of a lower bidiagonal: cosines,
  T* sn = work + n - 1;  // and minus the sines (as slasr takes them)
  T* rest = work + 2 * n;
  if (!upper) {
    lf_la_bidiagonal_chase(n, d, e, cs, sn);
    for (int64_t i = 0; i < n - 1; ++i) sn[i] = -sn[i];
  }
  int32_t info;
  if (vectors && n > LF_BDSDC_SMLSIZ) {
    info = lf_la_bdsdc_dc(n, d, e, u, ldu, vt, ldvt, rest, iwork);
    if (info != 0) return info;
  } else {
    if (vectors) {
      lf_la_laset(n, n, (T)1, u, ldu);
      lf_la_laset(n, n, (T)1, vt, ldvt);
    }
    // lasdq: bdsqr, then the values sorted ascending (on bdsqr's descending output that sort and
    // the one below undo each other, but not always among ties).
    const int64_t nv = vectors ? n : 0;
    info = lf_la_lasdq_upper(0, n, nv, nv, d, e, vt, ldvt, u, ldu, rest);
  }
  // sbdsdc's selection sort, descending, one swap of vectors per place.
  for (int64_t i = 0; i < n - 1; ++i) {
    int64_t best = i;
    T v = d[i];
    for (int64_t j = i + 1; j < n; ++j) {
      if (d[j] > v) {
        best = j;
        v = d[j];
      }
    }
    if (best == i) continue;
    d[best] = d[i];
    d[i] = v;
    if (vectors) lf_la_swap_vectors(i, best, n, vt, ldvt, n, u, ldu);
  }
  // slasr('L', 'V', 'B'): U = R U with the rotations that made the bidiagonal upper, last first.
  if (!upper && vectors) lf_la_lasr_left(false, n, n, cs, sn, u, ldu);
  return info;
}

// gesdd's scaling (eps: slamch('P')): a matrix whose largest |element| anrm lies outside
// [smlnum, bignum] is scaled to the bound it passed (lascl(anrm, bound)) before the reduction, and
// its singular values back (lascl(bound, anrm)) after.
template <class T>
struct lf_la_gesdd_scaling {
  T anrm, bound;
  bool scaled;
  LF_DEVICE void scale(T* x, int64_t count) const {
    if (scaled) lf_la_lascl(anrm, bound, x, count, 1);
  }
  LF_DEVICE void unscale(T* values, int64_t count) const {
    if (scaled) lf_la_lascl(bound, anrm, values, count, 1);
  }
};
template <class T>
LF_DEVICE lf_la_gesdd_scaling<T> lf_la_gesdd_scaling_of(T anrm) {
  const T eps = (T)2 * lf_la_limits<T>::eps;
  const T smlnum = lf_la_sqrt(lf_la_limits<T>::safmin) / eps, bignum = (T)1 / smlnum;
  const bool small = anrm > (T)0 && anrm<smlnum, large = anrm> bignum;
  return {anrm, small ? smlnum : bignum, small || large};
}

// sgesdd: the m x n matrix a (row-major, destroyed as LAPACK destroys it)
// gives its singular values s[0..k) descending, k = min(m, n); with mode 1 ('S') the first k left
// singular vectors in the columns of u (m x k) and right ones in the rows of vt (k x n), with
// mode 2 ('A') all of them (u m x m, vt n x n), with mode 0 ('N') neither (u and vt untouched).
// work holds LF_GESDD_WORK(k) elements, iwork LF_GESDD_IWORK(k) int32s. Returns LAPACK's info: 0,
// -4 for a NaN in a, or > 0 when bdsqr or lasd4 did not converge.
template <class T>
LF_LINALG_SVD_FN int32_t lf_gesdd(T* a, int64_t m, int64_t n, int mode, T* s, T* u, T* vt, T* work,
                                  int32_t* iwork) {
  const int64_t k = m < n ? m : n;
  if (k == 0) return 0;
  const bool none = mode == 0, all = mode == 2;
  const int64_t ldu = all ? m : k;
  const int64_t mnthr = (int64_t)((double)k * 11.0 / 6.0);
  // Scale a into range if its largest element is outside [smlnum, bignum].
  T anrm = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    const T x = lf_la_fabs(a[i]);
    if (anrm < x || x != x) anrm = x;
  }
  if (anrm != anrm) return -4;
  const lf_la_gesdd_scaling<T> scaling = lf_la_gesdd_scaling_of(anrm);
  scaling.scale(a, m * n);
  T* e = work;
  T* tauq = e + k;
  T* taup = tauq + k;
  T* tau = taup + k;
  T* w1 = tau + k;  // k x k: R or L, or the bidiagonal's vectors
  T* bw = w1 + k * k;
  int32_t info = 0;
  if (m >= n && m >= mnthr) {
    // Paths 1, 3, 4: A = Q R first, then the SVD of R.
    lf_geqrf(a, m, n, tau);
    if (none) {
      for (int64_t i = 1; i < n; ++i) {
        for (int64_t j = 0; j < i; ++j) a[i * n + j] = (T)0;
      }
      lf_la_gebd2(a, n, n, n, s, e, tauq, taup);
      info = lf_la_bdsdc(true, false, n, s, e, u, 1, vt, 1, bw);
    } else if (!all) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) w1[i * n + j] = j >= i ? a[i * n + j] : (T)0;
      }
      lf_orgqr(a, m, n, n, tau);
      lf_la_gebd2(w1, n, n, n, s, e, tauq, taup);
      info = lf_la_bdsdc(true, true, n, s, e, u, n, vt, n, bw, iwork);
      lf_la_ormbr_q(n, n, n, w1, n, tauq, u, n);
      lf_la_ormbr_p(n, n, n, w1, n, taup, vt, n);
      for (int64_t i = 0; i < n * n; ++i) w1[i] = u[i];
      lf_la_gemm(m, n, n, a, n, w1, n, u, n);
    } else {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n && j <= i; ++j) u[i * m + j] = a[i * n + j];
      }
      lf_orgqr(u, m, m, n, tau);
      for (int64_t i = 1; i < n; ++i) {
        for (int64_t j = 0; j < i; ++j) a[i * n + j] = (T)0;
      }
      lf_la_gebd2(a, n, n, n, s, e, tauq, taup);
      info = lf_la_bdsdc(true, true, n, s, e, w1, n, vt, n, bw, iwork);
      lf_la_ormbr_q(n, n, n, a, n, tauq, w1, n);
      lf_la_ormbr_p(n, n, n, a, n, taup, vt, n);
      lf_la_gemm(m, n, n, u, m, w1, n, a, n);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) u[i * m + j] = a[i * n + j];
      }
    }
  } else if (m >= n) {
    // Path 5: the bidiagonal reduction of A itself (upper bidiagonal).
    lf_la_gebd2(a, m, n, n, s, e, tauq, taup);
    if (none) {
      info = lf_la_bdsdc(true, false, n, s, e, u, 1, vt, 1, bw);
    } else {
      lf_la_laset(m, ldu, (T)0, u, ldu);
      info = lf_la_bdsdc(true, true, n, s, e, u, ldu, vt, n, bw, iwork);
      if (all && m > n) lf_la_laset(m - n, m - n, (T)1, u + n * m + n, m);
      lf_la_ormbr_q(m, ldu, n, a, n, tauq, u, ldu);
      lf_la_ormbr_p(n, n, all ? m : n, a, n, taup, vt, n);
    }
  } else if (n >= mnthr) {
    // Paths 1t, 3t, 4t: A = L Q first, then the SVD of L.
    lf_la_gelq2(a, m, n, n, tau);
    if (none) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = i + 1; j < m; ++j) a[i * n + j] = (T)0;
      }
      lf_la_gebd2(a, m, m, n, s, e, tauq, taup);
      info = lf_la_bdsdc(true, false, m, s, e, u, 1, vt, 1, bw);
    } else if (!all) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) w1[i * m + j] = j <= i ? a[i * n + j] : (T)0;
      }
      lf_la_orgl2(a, m, n, m, n, tau);
      lf_la_gebd2(w1, m, m, m, s, e, tauq, taup);
      info = lf_la_bdsdc(true, true, m, s, e, u, m, vt, n, bw, iwork);
      lf_la_ormbr_q(m, m, m, w1, m, tauq, u, m);
      lf_la_ormbr_p(m, m, m, w1, m, taup, vt, n);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) w1[i * m + j] = vt[i * n + j];
      }
      lf_la_gemm(m, n, m, w1, m, a, n, vt, n);
    } else {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = i; j < n; ++j) vt[i * n + j] = a[i * n + j];
      }
      lf_la_orgl2(vt, n, n, m, n, tau);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = i + 1; j < m; ++j) a[i * n + j] = (T)0;
      }
      lf_la_gebd2(a, m, m, n, s, e, tauq, taup);
      info = lf_la_bdsdc(true, true, m, s, e, u, m, w1, m, bw, iwork);
      lf_la_ormbr_q(m, m, m, a, n, tauq, u, m);
      lf_la_ormbr_p(m, m, m, a, n, taup, w1, m);
      lf_la_gemm(m, n, m, w1, m, vt, n, a, n);
      for (int64_t i = 0; i < m * n; ++i) vt[i] = a[i];
    }
  } else {
    // Path 5t: the bidiagonal reduction of A itself (lower bidiagonal).
    lf_la_gebd2(a, m, n, n, s, e, tauq, taup);
    if (none) {
      info = lf_la_bdsdc(false, false, m, s, e, u, 1, vt, 1, bw);
    } else {
      const int64_t vrows = all ? n : m;
      lf_la_laset(vrows, n, (T)0, vt, n);
      info = lf_la_bdsdc(false, true, m, s, e, u, m, vt, n, bw, iwork);
      if (all && n > m) lf_la_laset(n - m, n - m, (T)1, vt + m * n + m, n);
      lf_la_ormbr_q(m, m, n, a, n, tauq, u, m);
      lf_la_ormbr_p(vrows, n, m, a, n, taup, vt, n);
    }
  }
  scaling.unscale(s, k);
  return info;
}

// The workspace lf_gesdd_values needs for min(m, n) = k, in elements.
#define LF_GESDD_VALUES_WORK(k) (3 * (k) + LF_BDSDC_WORK(k) + 1)

// sgesdd with jobz 'N' past min(m, n) = 25: the singular values s[0..k) of the m x n matrix a
// (destroyed), descending, by gesdd's scaling, gebd2 and bdsdc without vectors (which LAPACK's
// bdsdc runs at any size), with no QR or LQ factorization first: the values do not depend on the
// path, and agree with LAPACK's to rounding. Returns info as lf_gesdd.
template <class T>
LF_LINALG_SVD_FN int32_t lf_gesdd_values(T* a, int64_t m, int64_t n, T* s, T* work) {
  const int64_t k = m < n ? m : n;
  if (k == 0) return 0;
  T anrm = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    const T x = lf_la_fabs(a[i]);
    if (anrm < x || x != x) anrm = x;
  }
  if (anrm != anrm) return -4;
  const lf_la_gesdd_scaling<T> scaling = lf_la_gesdd_scaling_of(anrm);
  scaling.scale(a, m * n);
  T* e = work;
  T* tauq = e + k;
  T* taup = tauq + k;
  lf_la_gebd2(a, m, n, n, s, e, tauq, taup);
  const int32_t info = lf_la_bdsdc(m >= n, false, k, s, e, (T*)0, 1, (T*)0, 1, taup + k);
  scaling.unscale(s, k);
  return info;
}
