// sstedc / dstedc with compz 'I': the symmetric tridiagonal eigenproblem by Cuppen's divide and
// conquer, as LAPACK's syevd and heevd solve it above SMLSIZ (25) rows. The tridiagonal splits
// where an off-diagonal element is negligible; each block of more than 25 rows is cut in halves
// recursively down to blocks of at most 25 (solved by steqr), and adjacent halves are merged by
// solving the secular equation of a rank-one update (laed1..laed6: deflation, the zero finder,
// and the eigenvectors by Gu and Eisenstat's formula, which keeps them orthogonal). The steps,
// deflation tolerances and orderings are LAPACK's, so the eigenvectors' signs are the ones jax's
// LAPACK call picks (its matrix products sum in another order: the last bits may differ).
//
// Matrices are row-major as in lf_linalg.h (element (i, j) at z[i * ld + j]); the merge step's
// own scratch (laed2's Q2, laed3's k x k eigenvectors) is column-major and private. Index arrays
// are int32 and 0-based. Included by lf_linalg.h (pasted in place by preludeText).
#pragma once

// LAPACK's SMLSIZ (ilaenv 9): the largest block stedc hands to steqr, so the largest eigh that
// never divides.
#define LF_STEDC_SMLSIZ 25

// Workspace of lf_la_stedc for an n x n problem, in elements of T and in int32s (steqr's alone up
// to SMLSIZ rows).
#define LF_STEDC_WORK(n) ((n) <= LF_STEDC_SMLSIZ ? 2 * (n) + 1 : 2 * (n) * (n) + 4 * (n) + 1)
#define LF_STEDC_IWORK(n) ((n) <= LF_STEDC_SMLSIZ ? 1 : 6 * (n) + 1)

// Past this many rows syevd and heevd reduce the lower triangle transposed (its columns, which
// symv and syr2 walk, become rows); smaller matrices fit the cache and the copy costs more.
#define LF_EIGH_TRANSPOSE_ABOVE 32

// slamrg: the permutation `index` that merges a's first n1 entries (sorted ascending when s1 is
// 1, descending when -1) with the next n2 (likewise s2) into ascending order.
template <class T>
LF_DEVICE void lf_la_lamrg(int64_t n1, int64_t n2, const T* a, int s1, int s2, int32_t* index) {
  int64_t ind1 = s1 > 0 ? 0 : n1 - 1, ind2 = s2 > 0 ? n1 : n1 + n2 - 1, i = 0;
  while (n1 > 0 && n2 > 0) {
    if (a[ind1] <= a[ind2]) {
      index[i++] = (int32_t)ind1;
      ind1 += s1;
      --n1;
    } else {
      index[i++] = (int32_t)ind2;
      ind2 += s2;
      --n2;
    }
  }
  for (; n2 > 0; --n2, ind2 += s2) index[i++] = (int32_t)ind2;
  for (; n1 > 0; --n1, ind1 += s1) index[i++] = (int32_t)ind1;
}

// slaed5: eigenvalue i (0 or 1) of diag(d) + rho z z^T for 2 x 2, and its eigenvector in delta
// (d ascending, |z| = 1, rho > 0).
template <class T>
LF_DEVICE void lf_la_laed5(int64_t i, const T* d, const T* z, T* delta, T rho, T* dlam) {
  const T del = d[1] - d[0];
  T tau;
  if (i == 0) {
    const T w = (T)1 + (T)2 * rho * (z[1] * z[1] - z[0] * z[0]) / del;
    if (w > (T)0) {
      const T b = del + rho * (z[0] * z[0] + z[1] * z[1]);
      const T c = rho * z[0] * z[0] * del;
      tau = (T)2 * c / (b + lf_la_sqrt(lf_la_fabs(b * b - (T)4 * c)));
      *dlam = d[0] + tau;
      delta[0] = -z[0] / tau;
      delta[1] = z[1] / (del - tau);
    } else {
      const T b = -del + rho * (z[0] * z[0] + z[1] * z[1]);
      const T c = rho * z[1] * z[1] * del;
      tau = b > (T)0 ? -(T)2 * c / (b + lf_la_sqrt(b * b + (T)4 * c))
                     : (b - lf_la_sqrt(b * b + (T)4 * c)) / (T)2;
      *dlam = d[1] + tau;
      delta[0] = -z[0] / (del + tau);
      delta[1] = -z[1] / tau;
    }
  } else {
    const T b = -del + rho * (z[0] * z[0] + z[1] * z[1]);
    const T c = rho * z[1] * z[1] * del;
    tau = b > (T)0 ? (b + lf_la_sqrt(b * b + (T)4 * c)) / (T)2
                   : (T)2 * c / (-b + lf_la_sqrt(b * b + (T)4 * c));
    *dlam = d[1] + tau;
    delta[0] = -z[0] / (del + tau);
    delta[1] = -z[1] / tau;
  }
  const T temp = lf_la_sqrt(delta[0] * delta[0] + delta[1] * delta[1]);
  delta[0] /= temp;
  delta[1] /= temp;
}

// The root of a + b / c's quadratic that LAPACK's zero finders take (c == 0: b / a), in the form
// that does not cancel: (a - sqrt|a^2 - 4bc|) / 2c when a <= 0, else 2b / (a + sqrt|a^2 - 4bc|).
template <class T>
LF_DEVICE T lf_la_laed_root(T a, T b, T c) {
  if (c == (T)0) return b / a;
  const T r = lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c));
  return a <= (T)0 ? (a - r) / ((T)2 * c) : (T)2 * b / (a + r);
}

// slaed6: the root tau of f(x) = rho + sum_i z[i] / (d[i] - x) (three poles) nearest the origin
// in the interval orgati picks, by Gragg, Thornton and Warner's cubically convergent scheme
// (kniter == 2 asks for its own initial guess). Returns 0, or 1 if 40 steps did not converge.
template <class T>
LF_DEVICE int32_t lf_la_laed6(int64_t kniter, bool orgati, T rho, const T* d, const T* z, T finit,
                              T* tauOut) {
  T lbd = orgati ? d[1] : d[0], ubd = orgati ? d[2] : d[1];
  if (finit < (T)0) {
    lbd = (T)0;
  } else {
    ubd = (T)0;
  }
  T tau = 0;
  if (kniter == 2) {
    T a, b, c;
    if (orgati) {
      const T temp = (d[2] - d[1]) / (T)2;
      c = rho + z[0] / ((d[0] - d[1]) - temp);
      a = c * (d[1] + d[2]) + z[1] + z[2];
      b = c * d[1] * d[2] + z[1] * d[2] + z[2] * d[1];
    } else {
      const T temp = (d[0] - d[1]) / (T)2;
      c = rho + z[2] / ((d[2] - d[1]) - temp);
      a = c * (d[0] + d[1]) + z[0] + z[1];
      b = c * d[0] * d[1] + z[0] * d[1] + z[1] * d[0];
    }
    T temp = lf_la_fabs(a);
    if (temp < lf_la_fabs(b)) temp = lf_la_fabs(b);
    if (temp < lf_la_fabs(c)) temp = lf_la_fabs(c);
    tau = lf_la_laed_root(a / temp, b / temp, c / temp);
    if (tau < lbd || tau > ubd) tau = (lbd + ubd) / (T)2;
    if (d[0] == tau || d[1] == tau || d[2] == tau) {
      tau = (T)0;
    } else {
      const T f = finit + tau * z[0] / (d[0] * (d[0] - tau)) + tau * z[1] / (d[1] * (d[1] - tau)) +
                  tau * z[2] / (d[2] * (d[2] - tau));
      if (f <= (T)0) {
        lbd = tau;
      } else {
        ubd = tau;
      }
      if (lf_la_fabs(finit) <= lf_la_fabs(f)) tau = (T)0;
    }
  }
  // Scale up when a pole is within safmin^(1/3) of tau (1 / temp^3 would overflow).
  const T eps = lf_la_limits<T>::eps, small1 = lf_la_limits<T>::cbrtSafmin;
  const T sminv1 = (T)1 / small1, small2 = small1 * small1, sminv2 = sminv1 * sminv1;
  T temp = orgati ? lf_la_fabs(d[1] - tau) : lf_la_fabs(d[0] - tau);
  const T other = orgati ? lf_la_fabs(d[2] - tau) : lf_la_fabs(d[1] - tau);
  if (other < temp) temp = other;
  T dscale[3], zscale[3];
  bool scale = false;
  T sclinv = 1;
  if (temp <= small1) {
    scale = true;
    const T sclfac = temp <= small2 ? sminv2 : sminv1;
    sclinv = temp <= small2 ? small2 : small1;
    for (int i = 0; i < 3; ++i) {
      dscale[i] = d[i] * sclfac;
      zscale[i] = z[i] * sclfac;
    }
    tau *= sclfac;
    lbd *= sclfac;
    ubd *= sclfac;
  } else {
    for (int i = 0; i < 3; ++i) {
      dscale[i] = d[i];
      zscale[i] = z[i];
    }
  }
  T fc = 0, df = 0, ddf = 0;
  for (int i = 0; i < 3; ++i) {
    const T t = (T)1 / (dscale[i] - tau);
    const T t1 = zscale[i] * t, t2 = t1 * t, t3 = t2 * t;
    fc += t1 / dscale[i];
    df += t2;
    ddf += t3;
  }
  T f = finit + tau * fc;
  int32_t info = 0;
  if (lf_la_fabs(f) > (T)0) {
    if (f <= (T)0) {
      lbd = tau;
    } else {
      ubd = tau;
    }
    info = 1;
    for (int niter = 2; niter <= 40; ++niter) {
      const T t1 = orgati ? dscale[1] - tau : dscale[0] - tau;
      const T t2 = orgati ? dscale[2] - tau : dscale[1] - tau;
      T a = (t1 + t2) * f - t1 * t2 * df;
      T b = t1 * t2 * f;
      T c = f - (t1 + t2) * df + t1 * t2 * ddf;
      T big = lf_la_fabs(a);
      if (big < lf_la_fabs(b)) big = lf_la_fabs(b);
      if (big < lf_la_fabs(c)) big = lf_la_fabs(c);
      T eta = lf_la_laed_root(a / big, b / big, c / big);
      if (f * eta >= (T)0) eta = -f / df;
      tau += eta;
      if (tau < lbd || tau > ubd) tau = (lbd + ubd) / (T)2;
      fc = 0;
      df = 0;
      ddf = 0;
      T erretm = 0;
      bool pole = false;
      for (int i = 0; i < 3; ++i) {
        if (dscale[i] - tau == (T)0) {  // tau hit a pole exactly: LAPACK stops there
          pole = true;
          break;
        }
        const T t = (T)1 / (dscale[i] - tau);
        const T u1 = zscale[i] * t, u2 = u1 * t, u3 = u2 * t, u4 = u1 / dscale[i];
        fc += u4;
        erretm += lf_la_fabs(u4);
        df += u2;
        ddf += u3;
      }
      if (pole) {
        info = 0;
        break;
      }
      f = finit + tau * fc;
      erretm = (T)8 * (lf_la_fabs(finit) + lf_la_fabs(tau) * erretm) + lf_la_fabs(tau) * df;
      if (lf_la_fabs(f) <= (T)4 * eps * erretm || ubd - lbd <= (T)4 * eps * lf_la_fabs(tau)) {
        info = 0;
        break;
      }
      if (f <= (T)0) {
        lbd = tau;
      } else {
        ubd = tau;
      }
    }
  }
  *tauOut = scale ? tau * sclinv : tau;
  return info;
}

#include "lf_stedc_laed4.h"  // the secular equation's zero finder, pasted in place by preludeText

// out = a b for the rows x depth column-major a, and b's columns j (depth elements from
// b + j * ldb), out row-major (row stride ld), each element summed over depth ascending in the
// rows-element column accumulator acc.
template <class T>
LF_DEVICE void lf_la_laed3_product(int64_t rows, int64_t cols, int64_t depth, const T* a,
                                   const T* b, int64_t ldb, T* out, int64_t ld, T* acc) {
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t r = 0; r < rows; ++r) acc[r] = (T)0;
    for (int64_t l = 0; l < depth; ++l) {
      const T blj = b[j * ldb + l];
      const T* col = a + l * rows;
      for (int64_t r = 0; r < rows; ++r) acc[r] += col[r] * blj;
    }
    for (int64_t r = 0; r < rows; ++r) out[r * ld + j] = acc[r];
  }
}

// slaed3: the k eigenvalues d[0..k) of the deflated rank-one problem (poles dlamda, weights w,
// rho) and the updated eigenvectors: q's first k columns become Q2's columns (laed2's groups)
// times the rank-one problem's eigenvectors (computed in qk, k x k column-major, rows permuted
// to the groups' order by indx). ctot holds laed2's four column counts; s holds k elements.
template <class T>
LF_DEVICE int32_t lf_la_laed3(int64_t k, int64_t n, int64_t n1, T* d, T* q, int64_t ld, T rho,
                              const T* dlamda, const T* q2, const int32_t* indx,
                              const int32_t* ctot, T* w, T* qk, T* s) {
  if (k == 0) return 0;
  for (int64_t j = 0; j < k; ++j) {
    const int32_t info = lf_la_laed4(k, j, dlamda, w, qk + j * k, rho, d + j);
    if (info != 0) return info;
  }
  if (k == 2) {
    for (int64_t j = 0; j < 2; ++j) {
      w[0] = qk[j * k];
      w[1] = qk[j * k + 1];
      qk[j * k] = w[indx[0]];
      qk[j * k + 1] = w[indx[1]];
    }
  } else if (k > 2) {
    // The weights w that make the computed eigenvalues exact (Gu and Eisenstat), then each
    // eigenvector from them, normalized.
    for (int64_t i = 0; i < k; ++i) s[i] = w[i];
    for (int64_t i = 0; i < k; ++i) w[i] = qk[i * k + i];
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < k; ++i) {
        if (i != j) w[i] = w[i] * (qk[j * k + i] / (dlamda[i] - dlamda[j]));
      }
    }
    for (int64_t i = 0; i < k; ++i) w[i] = lf_la_sign(lf_la_sqrt(-w[i]), s[i]);
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < k; ++i) s[i] = w[i] / qk[j * k + i];
      const T temp = lf_la_nrm2(k, s, 1);
      for (int64_t i = 0; i < k; ++i) qk[j * k + i] = s[indx[i]] / temp;
    }
  }
  // Back to the merged problem's basis: the top n1 rows from Q2's groups 1 and 2 (n1 rows each),
  // the bottom n - n1 from groups 2 and 3 (n - n1 rows each, after the first block of Q2).
  // Each result column is summed in s (l ascending for every element) over Q2's contiguous
  // columns, then stored: reading Q2 along its rows would stride through memory.
  const int64_t n2 = n - n1, n12 = ctot[0] + ctot[1], n23 = ctot[1] + ctot[2];
  lf_la_laed3_product(n2, k, n23, q2 + n1 * n12, qk + ctot[0], k, q + n1 * ld, ld, s);
  lf_la_laed3_product(n1, k, n12, q2, qk, k, q, ld, s);
  return 0;
}

// slaed2: deflation of the merge of two halves (n1 and n - n1 rows, each with its eigenvalues
// d ascending under the permutation indxq and eigenvectors in q's diagonal blocks) joined by
// rho z z^T. Components of z below tol, and pairs of nearly equal eigenvalues (rotated so that
// one component vanishes), deflate: their eigenpairs are final and go to d[k..n), q's columns
// [k, n). The k others become the rank-one problem (poles dlamda, weights w, rho) and their
// vectors are packed in q2 by type (1: top half only, 2: both, 3: bottom half only; column-major,
// n1 rows for types 1-2, then n - n1 rows for types 2-3, then deflated columns of n rows).
// indxc maps the grouped order to dlamda's; coltyp's first 4 entries become the counts.
template <class T>
LF_DEVICE int64_t lf_la_laed2(int64_t n, int64_t n1, T* d, T* q, int64_t ld, int32_t* indxq, T* rho,
                              T* z, T* dlamda, T* w, T* q2, int32_t* indx, int32_t* indxc,
                              int32_t* indxp, int32_t* coltyp) {
  const int64_t n2 = n - n1;
  if (*rho < (T)0) {
    for (int64_t i = n1; i < n; ++i) z[i] = -z[i];
  }
  // z is two unit vectors end to end: normalize it (|z|^2 = 2) and fold the 2 into rho.
  const T t = (T)1 / lf_la_sqrt((T)2);
  for (int64_t i = 0; i < n; ++i) z[i] *= t;
  *rho = lf_la_fabs((T)2 * *rho);
  for (int64_t i = n1; i < n; ++i) indxq[i] += (int32_t)n1;
  for (int64_t i = 0; i < n; ++i) dlamda[i] = d[indxq[i]];
  lf_la_lamrg(n1, n2, dlamda, 1, 1, indxc);
  for (int64_t i = 0; i < n; ++i) indx[i] = indxq[indxc[i]];
  int64_t imax = 0, jmax = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (lf_la_fabs(z[i]) > lf_la_fabs(z[imax])) imax = i;
    if (lf_la_fabs(d[i]) > lf_la_fabs(d[jmax])) jmax = i;
  }
  const T eps = lf_la_limits<T>::eps;
  T tol = lf_la_fabs(d[jmax]);
  if (tol < lf_la_fabs(z[imax])) tol = lf_la_fabs(z[imax]);
  tol = (T)8 * eps * tol;
  if (*rho * lf_la_fabs(z[imax]) <= tol) {
    // The update is negligible: only sort the columns into ascending order.
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = indx[j];
      for (int64_t r = 0; r < n; ++r) q2[j * n + r] = q[r * ld + i];
      dlamda[j] = d[i];
    }
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t r = 0; r < n; ++r) q[r * ld + j] = q2[j * n + r];
      d[j] = dlamda[j];
    }
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) coltyp[i] = i < n1 ? 1 : 3;
  int64_t k = 0, k2 = n, pj = -1, j = 0;
  for (; j < n; ++j) {  // the first component that does not deflate
    const int64_t nj = indx[j];
    if (*rho * lf_la_fabs(z[nj]) > tol) {
      pj = nj;
      break;
    }
    coltyp[nj] = 4;
    indxp[--k2] = (int32_t)nj;
  }
  for (++j; j < n; ++j) {
    const int64_t nj = indx[j];
    if (*rho * lf_la_fabs(z[nj]) <= tol) {  // a small component
      coltyp[nj] = 4;
      indxp[--k2] = (int32_t)nj;
      continue;
    }
    T s = z[pj], c = z[nj];
    const T tau = lf_la_lapy2(c, s), gap = d[nj] - d[pj];
    c /= tau;
    s = -s / tau;
    if (lf_la_fabs(gap * c * s) <= tol) {  // close eigenvalues: rotate pj's component away
      z[nj] = tau;
      z[pj] = (T)0;
      if (coltyp[nj] != coltyp[pj]) coltyp[nj] = 2;
      coltyp[pj] = 4;
      for (int64_t r = 0; r < n; ++r) {
        const T x = q[r * ld + pj], y = q[r * ld + nj];
        q[r * ld + pj] = c * x + s * y;
        q[r * ld + nj] = c * y - s * x;
      }
      const T dp = d[pj] * c * c + d[nj] * s * s;
      d[nj] = d[pj] * s * s + d[nj] * c * c;
      d[pj] = dp;
      // Insert pj among the deflated ones, keeping them sorted.
      --k2;
      int64_t i = 1;
      while (k2 + i < n && d[pj] < d[indxp[k2 + i]]) {
        indxp[k2 + i - 1] = indxp[k2 + i];
        indxp[k2 + i] = (int32_t)pj;
        ++i;
      }
      indxp[k2 + i - 1] = (int32_t)pj;
    } else {
      dlamda[k] = d[pj];
      w[k] = z[pj];
      indxp[k++] = (int32_t)pj;
    }
    pj = nj;
  }
  dlamda[k] = d[pj];
  w[k] = z[pj];
  indxp[k++] = (int32_t)pj;
  // Group the columns by type (1, 2, 3, then the deflated 4) and pack them into q2.
  int32_t ctot[4] = {0, 0, 0, 0}, psm[4];
  for (int64_t i = 0; i < n; ++i) ++ctot[coltyp[i] - 1];
  psm[0] = 0;
  psm[1] = ctot[0];
  psm[2] = psm[1] + ctot[1];
  psm[3] = psm[2] + ctot[2];
  k = n - ctot[3];
  for (int64_t i = 0; i < n; ++i) {
    const int32_t js = indxp[i];
    const int ct = coltyp[js] - 1;
    indx[psm[ct]] = js;
    indxc[psm[ct]] = (int32_t)i;
    ++psm[ct];
  }
  int64_t i = 0, iq1 = 0, iq2 = (int64_t)(ctot[0] + ctot[1]) * n1;
  for (int32_t c = 0; c < ctot[0]; ++c, ++i, iq1 += n1) {
    const int64_t js = indx[i];
    for (int64_t r = 0; r < n1; ++r) q2[iq1 + r] = q[r * ld + js];
    z[i] = d[js];
  }
  for (int32_t c = 0; c < ctot[1]; ++c, ++i, iq1 += n1, iq2 += n2) {
    const int64_t js = indx[i];
    for (int64_t r = 0; r < n1; ++r) q2[iq1 + r] = q[r * ld + js];
    for (int64_t r = 0; r < n2; ++r) q2[iq2 + r] = q[(n1 + r) * ld + js];
    z[i] = d[js];
  }
  for (int32_t c = 0; c < ctot[2]; ++c, ++i, iq2 += n2) {
    const int64_t js = indx[i];
    for (int64_t r = 0; r < n2; ++r) q2[iq2 + r] = q[(n1 + r) * ld + js];
    z[i] = d[js];
  }
  iq1 = iq2;
  for (int32_t c = 0; c < ctot[3]; ++c, ++i, iq2 += n) {
    const int64_t js = indx[i];
    for (int64_t r = 0; r < n; ++r) q2[iq2 + r] = q[r * ld + js];
    z[i] = d[js];
  }
  // The deflated eigenpairs are final: back into d[k..n) and q's last columns.
  for (int64_t c = 0; c < ctot[3]; ++c) {
    for (int64_t r = 0; r < n; ++r) q[r * ld + k + c] = q2[iq1 + c * n + r];
  }
  for (int64_t c = k; c < n; ++c) d[c] = z[c];
  for (int c = 0; c < 4; ++c) coltyp[c] = ctot[c];
  return k;
}

// slaed1: merge two adjacent solved halves (cut after row cutpnt, coupled by rho) into the
// eigensystem of the n x n block: deflate (laed2), solve the secular equation and update the
// vectors (laed3), and leave in indxq the permutation that sorts d. work holds 4n + 2n^2
// elements, iwork 4n.
template <class T>
LF_DEVICE int32_t lf_la_laed1(int64_t n, T* d, T* q, int64_t ld, int32_t* indxq, T rho,
                              int64_t cutpnt, T* work, int32_t* iwork) {
  T* z = work;
  T* dlamda = z + n;
  T* w = dlamda + n;
  T* s = w + n;
  T* q2 = s + n;
  T* qk = q2 + n * n;
  int32_t* indx = iwork;
  int32_t* indxc = indx + n;
  int32_t* coltyp = indxc + n;
  int32_t* indxp = coltyp + n;
  // z: the last row of the top half's eigenvectors, then the first row of the bottom half's.
  for (int64_t j = 0; j < cutpnt; ++j) z[j] = q[(cutpnt - 1) * ld + j];
  for (int64_t j = cutpnt; j < n; ++j) z[j] = q[cutpnt * ld + j];
  const int64_t k =
      lf_la_laed2(n, cutpnt, d, q, ld, indxq, &rho, z, dlamda, w, q2, indx, indxc, indxp, coltyp);
  if (k == 0) {
    for (int64_t i = 0; i < n; ++i) indxq[i] = (int32_t)i;
    return 0;
  }
  const int32_t info =
      lf_la_laed3(k, n, cutpnt, d, q, ld, rho, dlamda, q2, indxc, coltyp, w, qk, s);
  if (info != 0) return info;
  lf_la_lamrg(k, n - k, d, 1, -1, indxq);
  return 0;
}

// slaed0 with icompq 2: the eigensystem of the unreduced n x n tridiagonal (d, e) into d and
// q's n x n block (row stride ld, identity on entry): cut into halves down to blocks of at most
// 25 rows (each cut subtracts |e| from the two diagonal entries it separates), solve those by
// steqr, then merge pairs level by level. work holds LF_STEDC_WORK(n), iwork LF_STEDC_IWORK(n).
template <class T>
LF_LINALG_FN int32_t lf_la_laed0(int64_t n, T* d, T* e, T* q, int64_t ld, T* work, int32_t* iwork) {
  int32_t* part = iwork;  // the blocks' ends (exclusive), after the prefix sum
  int32_t* indxq = iwork + n;
  int32_t* scratch = iwork + 2 * n;
  part[0] = (int32_t)n;
  int64_t subpbs = 1;
  while (part[subpbs - 1] > LF_STEDC_SMLSIZ) {
    for (int64_t j = subpbs; j >= 1; --j) {
      part[2 * j - 1] = (part[j - 1] + 1) / 2;
      part[2 * j - 2] = part[j - 1] / 2;
    }
    subpbs *= 2;
  }
  for (int64_t j = 1; j < subpbs; ++j) part[j] += part[j - 1];
  for (int64_t i = 0; i + 1 < subpbs; ++i) {
    const int64_t submat = part[i];
    d[submat - 1] -= lf_la_fabs(e[submat - 1]);
    d[submat] -= lf_la_fabs(e[submat - 1]);
  }
  for (int64_t i = 0; i < subpbs; ++i) {
    const int64_t submat = i == 0 ? 0 : part[i - 1];
    const int64_t matsiz = part[i] - submat;
    if (lf_la_steqr(matsiz, d + submat, e + submat, q + submat * ld + submat, work, ld) != 0) {
      return (int32_t)((submat + 1) * (n + 1) + submat + matsiz);
    }
    for (int64_t j = submat; j < part[i]; ++j) indxq[j] = (int32_t)(j - submat);
  }
  while (subpbs > 1) {
    for (int64_t i = 0; i + 1 < subpbs; i += 2) {
      const int64_t submat = i == 0 ? 0 : part[i - 1];
      const int64_t matsiz = part[i + 1] - submat;
      const int64_t msd2 = i == 0 ? part[0] : matsiz / 2;
      const int32_t info = lf_la_laed1(matsiz, d + submat, q + submat * ld + submat, ld,
                                       indxq + submat, e[submat + msd2 - 1], msd2, work, scratch);
      if (info != 0) return (int32_t)((submat + 1) * (n + 1) + submat + matsiz);
      part[i / 2] = part[i + 1];
    }
    subpbs /= 2;
  }
  // The last merge left its deflated pairs unsorted: apply indxq.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = indxq[i];
    work[i] = d[j];
    for (int64_t r = 0; r < n; ++r) work[n + i * n + r] = q[r * ld + j];
  }
  for (int64_t i = 0; i < n; ++i) {
    d[i] = work[i];
    for (int64_t r = 0; r < n; ++r) q[r * ld + i] = work[n + i * n + r];
  }
  return 0;
}

// sstedc with compz 'I': eigenvalues ascending in d and eigenvectors in the columns of the n x n
// matrix z. Up to 25 rows it is steqr; above, the matrix splits where |e[i]| is negligible, and
// each block of more than 25 rows is scaled to norm 1 and solved by divide and conquer, the
// smaller ones by steqr. Returns LAPACK's info (0 on success).
template <class T>
LF_LINALG_FN int32_t lf_la_stedc(int64_t n, T* d, T* e, T* z, T* work, int32_t* iwork) {
  if (n <= LF_STEDC_SMLSIZ) return lf_la_steqr(n, d, e, z, work);
  for (int64_t i = 0; i < n * n; ++i) z[i] = (T)0;
  for (int64_t i = 0; i < n; ++i) z[i * n + i] = (T)1;
  if (lf_la_lanst(n, d, e) == (T)0) return 0;
  const T eps = lf_la_limits<T>::eps;
  for (int64_t start = 0; start < n;) {
    int64_t finish = start;
    while (finish < n - 1) {
      const T tiny =
          eps * lf_la_sqrt(lf_la_fabs(d[finish])) * lf_la_sqrt(lf_la_fabs(d[finish + 1]));
      if (!(lf_la_fabs(e[finish]) > tiny)) break;
      ++finish;
    }
    const int64_t m = finish - start + 1;
    if (m > LF_STEDC_SMLSIZ) {
      const T orgnrm = lf_la_lanst(m, d + start, e + start);
      lf_la_lascl(orgnrm, (T)1, d + start, m, 1);
      lf_la_lascl(orgnrm, (T)1, e + start, m - 1, 1);
      const int32_t info =
          lf_la_laed0(m, d + start, e + start, z + start * n + start, n, work, iwork);
      if (info != 0) {
        return (int32_t)((info / (m + 1) + start) * (n + 1) + info % (m + 1) + start);
      }
      lf_la_lascl((T)1, orgnrm, d + start, m, 1);
    } else if (m > 1) {
      if (lf_la_steqr(m, d + start, e + start, z + start * n + start, work, n) != 0) {
        return (int32_t)((start + 1) * (n + 1) + finish + 1);
      }
    }
    start = finish + 1;
  }
  lf_la_sort_eigenpairs(n, d, z, n);
  return 0;
}
