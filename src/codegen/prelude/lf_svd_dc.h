// The divide and conquer of LAPACK's bdsdc (compq 'I'), which gesdd runs for the singular vectors
// of a bidiagonal past SMLSIZ = 25 rows: lasd0 splits the bidiagonal into a tree of blocks of at
// most 25 rows, solves the leaves by lasdq (bdsqr's QR iteration), and merges them bottom-up
// (lasd1): deflation of small z components and close singular values (lasd2), then the secular
// equation's roots (lasd4, lf_svd_lasd4.h) and the singular vectors built from them (lasd3).
// Porting it step for step is what gives LAPACK's signs of the vectors past 25 rows: the merges
// choose them, and they do not hang on the last bits the way bdsqr's do.
//
// 0-based, and row-major as the rest of lf_svd.h: U(i, j) is u[i * ldu + j], the same matrix as
// LAPACK's column-major U; LAPACK's 1-based row and column numbers are one more than the indices
// here (LAPACK's NLP1, the merge's middle row, is row nl). The index arrays (idxq, idx, idxc,
// idxp) hold 0-based positions where LAPACK's hold 1-based ones. Where LAPACK keeps lasd4's
// delta and work in the columns of U and VT until the last products overwrite them, they are
// kept here in two k x k arrays of their own, one contiguous column per root. Part of lf_svd.h
// (pasted in place by preludeText).
#pragma once

#include "lf_svd_lasd4.h"  // the secular equation's zero finder, pasted in place by preludeText

#define LF_BDSDC_SMLSIZ 25

// The workspace of the divide and conquer for an n x n bidiagonal (lf_la_bdsdc past
// LF_BDSDC_SMLSIZ): the rotations of a lower bidiagonal (2 n), then lasd1's arrays for the
// largest merge (z, dsigma, U2, VT2, Q and the two k x k arrays of lasd4's results, m <= n + 1),
// which also covers lasdq's 4 n at the leaves; and in int32s, lasd0's tree and permutation (4 n)
// and lasd1's (4 n).
#define LF_BDSDC_DC_WORK(n) (2 * (n) + 5 * ((n) + 1) * ((n) + 1) + 8 * ((n) + 1))
#define LF_BDSDC_DC_IWORK(n) (8 * (n) + 8)

// sgemm('N', 'N') with beta 0 or 1: C = A B, or C += A B, for A m x l and B l x n; each element
// summed over l ascending onto 0 or C's own value (the reference BLAS's order).
template <class T>
LF_DEVICE void lf_la_gemm_onto(bool accumulate, int64_t m, int64_t n, int64_t l, const T* a,
                               int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = accumulate ? c[i * ldc + j] : (T)0;
      for (int64_t p = 0; p < l; ++p) sum += b[p * ldb + j] * a[i * lda + p];
      c[i * ldc + j] = sum;
    }
  }
}

// The n - 1 rotations that move each e[i] onto the diagonal (d[i] = r of lartg(d[i], e[i])) and
// leave s d[i + 1] in e[i]: from the left they make a lower bidiagonal upper, from the right an
// upper one lower. Their cosines and sines go to c[i] and s[i] unless c is null.
template <class T>
LF_DEVICE void lf_la_bidiagonal_chase(int64_t n, T* d, T* e, T* c, T* s) {
  for (int64_t i = 0; i < n - 1; ++i) {
    T cs, sn, r;
    lf_la_lartg(d[i], e[i], &cs, &sn, &r);
    d[i] = r;
    e[i] = sn * d[i + 1];
    d[i + 1] = cs * d[i + 1];
    if (c) {
      c[i] = cs;
      s[i] = sn;
    }
  }
}

// slasdq with uplo 'U' and ncc = 0: the SVD of the n x (n + sqre) upper bidiagonal (d, e), e
// holding n - 1 + sqre elements. A non-square one is first rotated from the right into a lower
// bidiagonal (the rotations applied to the n + 1 rows of vt), every lower one from the left into
// an upper one (applied to the columns of u); then bdsqr, and the values sorted ascending with one
// swap of vectors per place. work holds 4 n elements. Returns bdsqr's info.
template <class T>
LF_DEVICE int32_t lf_la_lasdq_upper(int sqre, int64_t n, int64_t ncvt, int64_t nru, T* d, T* e,
                                    T* vt, int64_t ldvt, T* u, int64_t ldu, T* work) {
  if (n == 0) return 0;
  const bool rotate = ncvt > 0 || nru > 0;
  T cs, sn, r;
  if (sqre == 1) {
    lf_la_bidiagonal_chase(n, d, e, rotate ? work : (T*)0, work + n);
    lf_la_lartg(d[n - 1], e[n - 1], &cs, &sn, &r);
    d[n - 1] = r;
    e[n - 1] = (T)0;
    if (rotate) {
      work[n - 1] = cs;
      work[2 * n - 1] = sn;
    }
    if (ncvt > 0) lf_la_lasr_left(true, n + 1, ncvt, work, work + n, vt, ldvt);
    // Now lower bidiagonal and square: rotate it to an upper one from the left.
    lf_la_bidiagonal_chase(n, d, e, rotate ? work : (T*)0, work + n);
    if (nru > 0) lf_la_lasr_right(true, nru, n, work, work + n, u, ldu);
  }
  const int32_t info = lf_la_bdsqr_upper(n, ncvt, nru, d, e, vt, ldvt, u, ldu, work);
  for (int64_t i = 0; i < n; ++i) {
    int64_t isub = i;
    T smin = d[i];
    for (int64_t j = i + 1; j < n; ++j) {
      if (d[j] < smin) {
        isub = j;
        smin = d[j];
      }
    }
    if (isub != i) {
      d[isub] = d[i];
      d[i] = smin;
      lf_la_swap_vectors(i, isub, ncvt, vt, ldvt, nru, u, ldu);
    }
  }
  return info;
}

// slasdt: the tree of subproblems of an n-row bidiagonal, leaves of at most msub rows. Node i
// (0-based, level by level from the root) is centred on row inode[i] with ndiml[i] rows to its
// left and ndimr[i] to its right. Sets the number of levels and of nodes.
LF_DEVICE void lf_la_lasdt(int64_t n, int64_t* lvl, int64_t* nd, int32_t* inode, int32_t* ndiml,
                           int32_t* ndimr, int64_t msub) {
  const int64_t maxn = n > 1 ? n : 1;
  // In double, as LAPACK computes it (its truncation decides the depth at powers of two).
  const double temp = log((double)maxn / (double)(msub + 1)) / log(2.0);
  *lvl = (int64_t)temp + 1;
  const int64_t half = n / 2;
  inode[0] = (int32_t)half;
  ndiml[0] = (int32_t)half;
  ndimr[0] = (int32_t)(n - half - 1);
  int64_t il = -1, ir = 0, llst = 1;
  for (int64_t level = 1; level <= *lvl - 1; ++level) {
    for (int64_t i = 0; i <= llst - 1; ++i) {
      il += 2;
      ir += 2;
      const int64_t ncrnt = llst + i - 1;
      ndiml[il] = ndiml[ncrnt] / 2;
      ndimr[il] = ndiml[ncrnt] - ndiml[il] - 1;
      inode[il] = inode[ncrnt] - ndimr[il] - 1;
      ndiml[ir] = ndimr[ncrnt] / 2;
      ndimr[ir] = ndimr[ncrnt] - ndiml[ir] - 1;
      inode[ir] = inode[ncrnt] + ndiml[ir] + 1;
    }
    llst *= 2;
  }
  *nd = llst * 2 - 1;
}

// slasd2: the deflation of a merge. The (n + sqre) x n upper bidiagonal's middle row nl (its
// value alpha, beta to its right) joins the left block's SVD (rows and columns 0..nl-1, values
// d[0..nl) ascending by idxq) and the right one's (from row nl + 1, by idxq likewise): z is that
// row in the blocks' right singular bases. Values whose z component is below tol, or that lie
// within tol of another (which a rotation of the two vectors then zeroes), deflate: they go to the
// back of d, their vectors into U's columns and VT's rows from k on. The k others, sorted, are
// dsigma[0..k) (dsigma[0] = 0) and z[0..k), their vectors gathered into U2's columns and VT2's
// rows by column type (1: left block only, 2: right only, 3: both; 4: deflated), which idxc
// lists and coltyp[0..4) counts on return. Returns k.
template <class T>
LF_DEVICE int64_t lf_la_lasd2(int64_t nl, int64_t nr, int sqre, T* d, T* z, T alpha, T beta, T* u,
                              int64_t ldu, T* vt, int64_t ldvt, T* dsigma, T* u2, int64_t ldu2,
                              T* vt2, int64_t ldvt2, int32_t* idxp, int32_t* idx, int32_t* idxc,
                              int32_t* idxq, int32_t* coltyp) {
  const int64_t n = nl + nr + 1, m = n + sqre;
  const T z1 = alpha * vt[nl * ldvt + nl];
  z[0] = z1;
  for (int64_t i = nl - 1; i >= 0; --i) {
    z[i + 1] = alpha * vt[i * ldvt + nl];
    d[i + 1] = d[i];
    idxq[i + 1] = idxq[i] + 1;
  }
  for (int64_t i = nl + 1; i < m; ++i) z[i] = beta * vt[i * ldvt + nl + 1];
  for (int64_t i = 1; i <= nl; ++i) coltyp[i] = 1;
  for (int64_t i = nl + 1; i < n; ++i) coltyp[i] = 2;
  for (int64_t i = nl + 1; i < n; ++i) idxq[i] += (int32_t)(nl + 1);
  // dsigma, idxc and U2's first column hold the values, types and z in idxq's order while
  // lamrg merges the two sorted blocks.
  for (int64_t i = 1; i < n; ++i) {
    dsigma[i] = d[idxq[i]];
    u2[i * ldu2] = z[idxq[i]];
    idxc[i] = coltyp[idxq[i]];
  }
  lf_la_lamrg(nl, nr, dsigma + 1, 1, 1, idx + 1);
  for (int64_t i = 1; i < n; ++i) {
    const int64_t idxi = 1 + idx[i];
    d[i] = dsigma[idxi];
    z[i] = u2[idxi * ldu2];
    coltyp[i] = idxc[idxi];
  }
  const T eps = lf_la_limits<T>::eps;
  T tol = lf_la_fabs(alpha) > lf_la_fabs(beta) ? lf_la_fabs(alpha) : lf_la_fabs(beta);
  tol = (T)8 * eps * (lf_la_fabs(d[n - 1]) > tol ? lf_la_fabs(d[n - 1]) : tol);
  // k counts the values kept (the first, dsigma[0], always is), k2 - 1 is where the next
  // deflated one goes (from the back), as LAPACK's K and K2.
  int64_t k = 1, k2 = n + 1, jprev = -1;
  bool allDeflated = false;
  for (int64_t j = 1; j < n; ++j) {
    if (lf_la_fabs(z[j]) <= tol) {
      --k2;
      idxp[k2 - 1] = (int32_t)j;
      coltyp[j] = 4;
      if (j == n - 1) allDeflated = true;
    } else {
      jprev = j;
      break;
    }
  }
  if (!allDeflated) {
    for (int64_t j = jprev + 1; j < n; ++j) {
      if (lf_la_fabs(z[j]) <= tol) {
        --k2;
        idxp[k2 - 1] = (int32_t)j;
        coltyp[j] = 4;
      } else if (lf_la_fabs(d[j] - d[jprev]) <= tol) {
        // Close values: rotate z[jprev] into z[j], and the two vectors alike.
        T s = z[jprev], c = z[j];
        const T tau = lf_la_lapy2(c, s);
        c = c / tau;
        s = -s / tau;
        z[j] = tau;
        z[jprev] = (T)0;
        int64_t idxjp = idxq[idx[jprev] + 1], idxj = idxq[idx[j] + 1];
        if (idxjp <= nl) --idxjp;
        if (idxj <= nl) --idxj;
        lf_la_rot(n, u + idxjp, ldu, u + idxj, ldu, c, s);
        lf_la_rot(m, vt + idxjp * ldvt, 1, vt + idxj * ldvt, 1, c, s);
        if (coltyp[j] != coltyp[jprev]) coltyp[j] = 3;
        coltyp[jprev] = 4;
        --k2;
        idxp[k2 - 1] = (int32_t)jprev;
        jprev = j;
      } else {
        ++k;
        u2[(k - 1) * ldu2] = z[jprev];
        dsigma[k - 1] = d[jprev];
        idxp[k - 1] = (int32_t)jprev;
        jprev = j;
      }
    }
    ++k;
    u2[(k - 1) * ldu2] = z[jprev];
    dsigma[k - 1] = d[jprev];
    idxp[k - 1] = (int32_t)jprev;
  }
  // Group the columns by type: idxc lists positions 1..n-1 type 1 first, then 2, 3 and 4.
  int32_t ctot[4] = {0, 0, 0, 0}, psm[4];
  for (int64_t j = 1; j < n; ++j) ++ctot[coltyp[j] - 1];
  psm[0] = 1;
  psm[1] = 1 + ctot[0];
  psm[2] = psm[1] + ctot[1];
  psm[3] = psm[2] + ctot[2];
  for (int64_t j = 1; j < n; ++j) {
    const int32_t ct = coltyp[idxp[j]];
    idxc[psm[ct - 1]] = (int32_t)j;
    ++psm[ct - 1];
  }
  for (int64_t j = 1; j < n; ++j) {
    dsigma[j] = d[idxp[j]];
    int64_t idxj = idxq[idx[idxp[idxc[j]]] + 1];
    if (idxj <= nl) --idxj;
    for (int64_t i = 0; i < n; ++i) u2[i * ldu2 + j] = u[i * ldu + idxj];
    for (int64_t i = 0; i < m; ++i) vt2[j * ldvt2 + i] = vt[idxj * ldvt + i];
  }
  dsigma[0] = (T)0;
  const T hlftol = tol / (T)2;
  if (lf_la_fabs(dsigma[1]) <= hlftol) dsigma[1] = hlftol;
  T c = (T)1, s = (T)0;
  if (m > n) {
    z[0] = lf_la_lapy2(z1, z[m - 1]);
    if (z[0] <= tol) {
      c = (T)1;
      s = (T)0;
      z[0] = tol;
    } else {
      c = z1 / z[0];
      s = z[m - 1] / z[0];
    }
  } else {
    z[0] = lf_la_fabs(z1) <= tol ? tol : z1;
  }
  for (int64_t i = 1; i < k; ++i) z[i] = u2[i * ldu2];
  // U2's first column is e_nl; VT2's first row (and VT's last, for a non-square merge) the
  // middle row rotated with the extra column.
  for (int64_t i = 0; i < n; ++i) u2[i * ldu2] = (T)0;
  u2[nl * ldu2] = (T)1;
  if (m > n) {
    for (int64_t i = 0; i <= nl; ++i) {
      vt[(m - 1) * ldvt + i] = -s * vt[nl * ldvt + i];
      vt2[i] = c * vt[nl * ldvt + i];
    }
    for (int64_t i = nl + 1; i < m; ++i) {
      vt2[i] = s * vt[(m - 1) * ldvt + i];
      vt[(m - 1) * ldvt + i] = c * vt[(m - 1) * ldvt + i];
    }
  } else {
    for (int64_t i = 0; i < m; ++i) vt2[i] = vt[nl * ldvt + i];
  }
  if (m > n) {
    for (int64_t i = 0; i < m; ++i) vt2[(m - 1) * ldvt2 + i] = vt[(m - 1) * ldvt + i];
  }
  // The deflated values and their vectors go to the back of d, U and VT.
  if (n > k) {
    for (int64_t j = k; j < n; ++j) d[j] = dsigma[j];
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = k; j < n; ++j) u[i * ldu + j] = u2[i * ldu2 + j];
    }
    for (int64_t j = k; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) vt[j * ldvt + i] = vt2[j * ldvt2 + i];
    }
  }
  for (int j = 0; j < 4; ++j) coltyp[j] = ctot[j];
  return k;
}

// slasd3: the merge's k undeflated singular values (the secular equation's roots, by lasd4 with
// rho = |z|^2 after z is normalised) into d[0..k), and their vectors: z recomputed from the roots
// (Gu and Eisenstat's formula, which keeps the vectors orthogonal), then U = U2 Q and VT = Q' VT2
// over the column types that are not zero in each block. ctot counts the types (lasd2's coltyp).
// q (k x k), delta and work (k x k each, lasd4's results for root j in [j * k, j * k + k)) are
// scratch. Returns lasd4's info.
template <class T>
LF_DEVICE int32_t lf_la_lasd3(int64_t nl, int64_t nr, int sqre, int64_t k, T* d, T* q, T* dsigma,
                              T* u, int64_t ldu, T* u2, int64_t ldu2, T* vt, int64_t ldvt, T* vt2,
                              int64_t ldvt2, const int32_t* idxc, const int32_t* ctot, T* z,
                              T* delta, T* work) {
  const int64_t n = nl + nr + 1, m = n + sqre, ldq = k;
  if (k == 1) {
    d[0] = lf_la_fabs(z[0]);
    for (int64_t i = 0; i < m; ++i) vt[i] = vt2[i];
    for (int64_t i = 0; i < n; ++i) u[i * ldu] = z[0] > (T)0 ? u2[i * ldu2] : -u2[i * ldu2];
    return 0;
  }
  // (LAPACK first replaces dsigma[i] by 2 dsigma[i] - dsigma[i], which changes nothing in binary
  // arithmetic with a guard digit.)
  for (int64_t i = 0; i < k; ++i) q[i * ldq] = z[i];
  T rho = lf_la_nrm2(k, z, 1);
  lf_la_lascl(rho, (T)1, z, k, 1);
  rho = rho * rho;
  for (int64_t j = 0; j < k; ++j) {
    const int32_t info = lf_la_lasd4(k, j, dsigma, z, delta + j * k, rho, &d[j], work + j * k);
    if (info != 0) return info;
  }
  // U(i, j) and VT(i, j) of LAPACK's loops are delta[j * k + i] and work[j * k + i].
  for (int64_t i = 0; i < k; ++i) {
    z[i] = delta[(k - 1) * k + i] * work[(k - 1) * k + i];
    for (int64_t j = 0; j < i; ++j) {
      z[i] = z[i] * (delta[j * k + i] * work[j * k + i] / (dsigma[i] - dsigma[j]) /
                     (dsigma[i] + dsigma[j]));
    }
    for (int64_t j = i; j < k - 1; ++j) {
      z[i] = z[i] * (delta[j * k + i] * work[j * k + i] / (dsigma[i] - dsigma[j + 1]) /
                     (dsigma[i] + dsigma[j + 1]));
    }
    z[i] = lf_la_sign(lf_la_sqrt(lf_la_fabs(z[i])), q[i * ldq]);
  }
  // The left singular vectors of the modified diagonal problem (in delta), and what the right
  // ones need (in work); Q's columns are the left ones normalised, in idxc's row order.
  for (int64_t i = 0; i < k; ++i) {
    T* ui = delta + i * k;
    T* vi = work + i * k;
    vi[0] = z[0] / ui[0] / vi[0];
    ui[0] = (T)-1;
    for (int64_t j = 1; j < k; ++j) {
      vi[j] = z[j] / ui[j] / vi[j];
      ui[j] = dsigma[j] * vi[j];
    }
    const T temp = lf_la_nrm2(k, ui, 1);
    q[i] = ui[0] / temp;
    for (int64_t j = 1; j < k; ++j) q[j * ldq + i] = ui[idxc[j]] / temp;
  }
  // U = U2 Q: the left block's rows from the columns of types 1 and 3, the middle row Q's first,
  // the right block's rows from types 2 and 3.
  if (k == 2) {
    lf_la_gemm_onto(false, n, k, k, u2, ldu2, q, ldq, u, ldu);
  } else {
    const int64_t k3 = 1 + ctot[0] + ctot[1];
    if (ctot[0] > 0) {
      lf_la_gemm_onto(false, nl, k, ctot[0], u2 + 1, ldu2, q + ldq, ldq, u, ldu);
      if (ctot[2] > 0) {
        lf_la_gemm_onto(true, nl, k, ctot[2], u2 + k3, ldu2, q + k3 * ldq, ldq, u, ldu);
      }
    } else if (ctot[2] > 0) {
      lf_la_gemm_onto(false, nl, k, ctot[2], u2 + k3, ldu2, q + k3 * ldq, ldq, u, ldu);
    } else {
      for (int64_t i = 0; i < nl; ++i) {
        for (int64_t j = 0; j < k; ++j) u[i * ldu + j] = u2[i * ldu2 + j];
      }
    }
    for (int64_t j = 0; j < k; ++j) u[nl * ldu + j] = q[j];
    const int64_t k2 = 1 + ctot[0], c23 = ctot[1] + ctot[2];
    lf_la_gemm_onto(false, nr, k, c23, u2 + (nl + 1) * ldu2 + k2, ldu2, q + k2 * ldq, ldq,
                    u + (nl + 1) * ldu, ldu);
  }
  // The right singular vectors: Q's rows from work, normalised, then VT = Q VT2 over the types
  // present in each block (the middle column goes with the right block's when type 1 exists).
  for (int64_t i = 0; i < k; ++i) {
    const T* vi = work + i * k;
    const T temp = lf_la_nrm2(k, vi, 1);
    q[i * ldq] = vi[0] / temp;
    for (int64_t j = 1; j < k; ++j) q[i * ldq + j] = vi[idxc[j]] / temp;
  }
  if (k == 2) {
    lf_la_gemm_onto(false, k, m, k, q, ldq, vt2, ldvt2, vt, ldvt);
    return 0;
  }
  lf_la_gemm_onto(false, k, nl + 1, 1 + ctot[0], q, ldq, vt2, ldvt2, vt, ldvt);
  const int64_t k3 = 1 + ctot[0] + ctot[1];
  if (k3 + 1 <= ldvt2) {
    lf_la_gemm_onto(true, k, nl + 1, ctot[2], q + k3, ldq, vt2 + k3 * ldvt2, ldvt2, vt, ldvt);
  }
  const int64_t kq = ctot[0];
  if (kq > 0) {
    for (int64_t i = 0; i < k; ++i) q[i * ldq + kq] = q[i * ldq];
    for (int64_t i = nl + 1; i < m; ++i) vt2[kq * ldvt2 + i] = vt2[i];
  }
  const int64_t c23 = 1 + ctot[1] + ctot[2];
  lf_la_gemm_onto(false, k, nr + sqre, c23, q + kq, ldq, vt2 + kq * ldvt2 + nl + 1, ldvt2,
                  vt + nl + 1, ldvt);
  return 0;
}

// slasd1: merges the SVDs of the blocks left (nl rows, d[0..nl)) and right (nr rows, from
// d[nl + 1]) of row nl (value alpha, beta right of it) into the SVD of the (nl + nr + 1) x
// (nl + nr + 1 + sqre) upper bidiagonal, in d, u (its n x n) and vt (its m x m); scaled to a
// largest value of 1 while solving. idxq (in: each block's ascending order) becomes the
// permutation that sorts d ascending. work: LF_BDSDC_DC_WORK's lasd1 part; iwork 4 n int32s.
template <class T>
LF_DEVICE int32_t lf_la_lasd1(int64_t nl, int64_t nr, int sqre, T* d, T alpha, T beta, T* u,
                              int64_t ldu, T* vt, int64_t ldvt, int32_t* idxq, int32_t* iwork,
                              T* work) {
  const int64_t n = nl + nr + 1, m = n + sqre, ldu2 = n, ldvt2 = m;
  T* z = work;
  T* dsigma = z + m;
  T* u2 = dsigma + n;
  T* vt2 = u2 + ldu2 * n;
  T* q = vt2 + ldvt2 * m;
  T* delta = q + n * n;
  T* roots = delta + n * n;
  int32_t* idx = iwork;
  int32_t* idxc = idx + n;
  int32_t* coltyp = idxc + n;
  int32_t* idxp = coltyp + n;
  T orgnrm = lf_la_fabs(alpha) > lf_la_fabs(beta) ? lf_la_fabs(alpha) : lf_la_fabs(beta);
  d[nl] = (T)0;
  for (int64_t i = 0; i < n; ++i) {
    if (lf_la_fabs(d[i]) > orgnrm) orgnrm = lf_la_fabs(d[i]);
  }
  lf_la_lascl(orgnrm, (T)1, d, n, 1);
  alpha = alpha / orgnrm;
  beta = beta / orgnrm;
  const int64_t k = lf_la_lasd2(nl, nr, sqre, d, z, alpha, beta, u, ldu, vt, ldvt, dsigma, u2, ldu2,
                                vt2, ldvt2, idxp, idx, idxc, idxq, coltyp);
  const int32_t info = lf_la_lasd3(nl, nr, sqre, k, d, q, dsigma, u, ldu, u2, ldu2, vt, ldvt, vt2,
                                   ldvt2, idxc, coltyp, z, delta, roots);
  if (info != 0) return info;
  lf_la_lascl((T)1, orgnrm, d, n, 1);
  lf_la_lamrg(k, n - k, d, 1, -1, idxq);
  return 0;
}

// slasd0: the SVD of the n x (n + sqre) upper bidiagonal (d, e) by divide and conquer: u (n x n)
// and vt (m x m) start as the identity, d ends ascending... as LAPACK leaves it (bdsdc sorts).
template <class T>
LF_DEVICE int32_t lf_la_lasd0(int64_t n, int sqre, T* d, T* e, T* u, int64_t ldu, T* vt,
                              int64_t ldvt, int32_t* iwork, T* work) {
  const int64_t m = n + sqre;
  if (n <= LF_BDSDC_SMLSIZ) return lf_la_lasdq_upper(sqre, n, m, n, d, e, vt, ldvt, u, ldu, work);
  int32_t* inode = iwork;
  int32_t* ndiml = inode + n;
  int32_t* ndimr = ndiml + n;
  int32_t* idxq = ndimr + n;
  int32_t* iwk = idxq + n;
  int64_t nlvl, nd;
  lf_la_lasdt(n, &nlvl, &nd, inode, ndiml, ndimr, LF_BDSDC_SMLSIZ);
  // The leaves, each node's left and right blocks (the left always with the extra column).
  const int64_t ndb1 = (nd + 1) / 2;
  for (int64_t i = ndb1 - 1; i < nd; ++i) {
    const int64_t ic = inode[i], nl = ndiml[i], nr = ndimr[i], nlf = ic - nl, nrf = ic + 1;
    int32_t info = lf_la_lasdq_upper(1, nl, nl + 1, nl, d + nlf, e + nlf, vt + nlf * ldvt + nlf,
                                     ldvt, u + nlf * ldu + nlf, ldu, work);
    if (info != 0) return info;
    for (int64_t j = 0; j < nl; ++j) idxq[nlf + j] = (int32_t)j;
    const int sqrei = i == nd - 1 ? sqre : 1;
    info = lf_la_lasdq_upper(sqrei, nr, nr + sqrei, nr, d + nrf, e + nrf, vt + nrf * ldvt + nrf,
                             ldvt, u + nrf * ldu + nrf, ldu, work);
    if (info != 0) return info;
    for (int64_t j = 0; j < nr; ++j) idxq[ic + 1 + j] = (int32_t)j;
  }
  // Then the merges, bottom-up, level by level.
  for (int64_t lvl = nlvl; lvl >= 1; --lvl) {
    const int64_t lf = lvl == 1 ? 1 : (int64_t)1 << (lvl - 1), ll = lvl == 1 ? 1 : 2 * lf - 1;
    for (int64_t i = lf - 1; i < ll; ++i) {
      const int64_t ic = inode[i], nl = ndiml[i], nr = ndimr[i], nlf = ic - nl;
      const int sqrei = sqre == 0 && i == ll - 1 ? sqre : 1;
      const int32_t info = lf_la_lasd1(nl, nr, sqrei, d + nlf, d[ic], e[ic], u + nlf * ldu + nlf,
                                       ldu, vt + nlf * ldvt + nlf, ldvt, idxq + nlf, iwk, work);
      if (info != 0) return info;
    }
  }
  return 0;
}

// sbdsdc's divide and conquer (compq 'I', n > SMLSIZ) of the upper bidiagonal (d, e) after
// bdsdc's rotation of a lower one: u and vt set to the identity and then to the vectors, the
// bidiagonal scaled to a largest element of 1, values below 0.9 eps raised to it, split where an
// off-diagonal is below it, each part by lasd0; d scaled back. (lf_la_bdsdc sorts and applies a
// lower bidiagonal's rotations.) work: LF_BDSDC_DC_WORK(n) - 2 n; iwork LF_BDSDC_DC_IWORK(n).
template <class T>
LF_DEVICE int32_t lf_la_bdsdc_dc(int64_t n, T* d, T* e, T* u, int64_t ldu, T* vt, int64_t ldvt,
                                 T* work, int32_t* iwork) {
  lf_la_laset(n, n, (T)1, u, ldu);
  lf_la_laset(n, n, (T)1, vt, ldvt);
  const T orgnrm = lf_la_lanst(n, d, e);
  if (orgnrm == (T)0) return 0;
  lf_la_lascl(orgnrm, (T)1, d, n, 1);
  lf_la_lascl(orgnrm, (T)1, e, n - 1, 1);
  const T eps = (T)0.9 * lf_la_limits<T>::eps;
  for (int64_t i = 0; i < n; ++i) {
    if (lf_la_fabs(d[i]) < eps) d[i] = lf_la_sign(eps, d[i]);
  }
  int64_t start = 0;
  for (int64_t i = 0; i < n - 1; ++i) {
    if (!(lf_la_fabs(e[i]) < eps) && i != n - 2) continue;
    int64_t nsize;
    if (i < n - 2) {
      nsize = i - start + 1;
    } else if (lf_la_fabs(e[i]) >= eps) {
      nsize = n - start;
    } else {
      // The last off-diagonal is negligible: d[n - 1] is a 1 x 1 problem of its own.
      nsize = i - start + 1;
      u[(n - 1) * ldu + n - 1] = lf_la_sign((T)1, d[n - 1]);
      vt[(n - 1) * ldvt + n - 1] = (T)1;
      d[n - 1] = lf_la_fabs(d[n - 1]);
    }
    const int32_t info = lf_la_lasd0(nsize, 0, d + start, e + start, u + start * ldu + start, ldu,
                                     vt + start * ldvt + start, ldvt, iwork, work);
    if (info != 0) return info;
    start = i + 1;
  }
  lf_la_lascl((T)1, orgnrm, d, n, 1);
  return 0;
}
