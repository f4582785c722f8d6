// The SVD of an upper-bidiagonal matrix, one per call, run by one thread: LAPACK 3.12's sbdsqr /
// dbdsqr (the Demmel-Kahan implicit zero-shift / shifted QR) with its 2 x 2 helpers slas2 and
// slasv2, step for step. As in lf_linalg.h, taking LAPACK's steps (the same shifts, the same
// choice of chasing the bulge down or up, the same convergence tests, the same final sort) is
// what gives LAPACK's signs for the singular vectors.
//
// Matrices are row-major with explicit row strides: LAPACK's VT(i, j) is vt[i * ldvt + j] and
// U(i, j) is u[i * ldu + j], so LAPACK's slasr('L') on rows of VT and slasr('R') on columns of U
// act on the same logical elements here. Only f32 and f64. Pasted after lf_linalg.h, whose
// helpers (lf_la_limits, lf_la_lartg, lf_la_lasr_right, lf_la_sign, ...) it uses.
#pragma once

// TOLMUL = max(10, min(100, eps^(-1/8))) of sbdsqr / dbdsqr, as a constant: eps is a power of two,
// so the f32 value is exactly 2^3 (giving 10) and the f64 value 2^(53/8) as libm's pow rounds it.
template <class T>
struct lf_la_bdsqr_consts;
template <>
struct lf_la_bdsqr_consts<float> {
  static constexpr float tolmul = 10.0f;
};
template <>
struct lf_la_bdsqr_consts<double> {
  static constexpr double tolmul = 98.70149282610821;
};

// slasr('L', 'V', direct): the rotations (c[j], s[j]) applied to the row pairs (j, j + 1) of the
// `rows` x `cols` block z (row stride ld), j ascending (forward) or descending; the left-side
// twin of lf_la_lasr_right.
template <class T>
LF_DEVICE void lf_la_lasr_left(bool forward, int64_t rows, int64_t cols, const T* c, const T* s,
                               T* z, int64_t ld) {
  for (int64_t step = 0; step + 1 < rows; ++step) {
    const int64_t j = forward ? step : rows - 2 - step;
    const T ct = c[j], st = s[j];
    if (ct == (T)1 && st == (T)0) continue;
    for (int64_t i = 0; i < cols; ++i) {
      const T t = z[(j + 1) * ld + i];
      z[(j + 1) * ld + i] = ct * t - st * z[j * ld + i];
      z[j * ld + i] = st * t + ct * z[j * ld + i];
    }
  }
}

// srot on x[k * incx], y[k * incy] (the reference BLAS order): x = c x + s y, y = c y - s x.
template <class T>
LF_DEVICE void lf_la_rot(int64_t n, T* x, int64_t incx, T* y, int64_t incy, T c, T s) {
  for (int64_t k = 0; k < n; ++k) {
    const T t = c * x[k * incx] + s * y[k * incy];
    y[k * incy] = c * y[k * incy] - s * x[k * incx];
    x[k * incx] = t;
  }
}

// slas2: the singular values ssmin <= ssmax of the upper-triangular [f g; 0 h].
template <class T>
LF_DEVICE void lf_la_las2(T f, T g, T h, T* ssmin, T* ssmax) {
  const T fa = lf_la_fabs(f), ga = lf_la_fabs(g), ha = lf_la_fabs(h);
  const T fhmn = fa < ha ? fa : ha, fhmx = fa > ha ? fa : ha;
  if (fhmn == (T)0) {
    *ssmin = (T)0;
    if (fhmx == (T)0) {
      *ssmax = ga;
    } else {
      const T mx = fhmx > ga ? fhmx : ga, mn = fhmx < ga ? fhmx : ga;
      *ssmax = mx * lf_la_sqrt((T)1 + (mn / mx) * (mn / mx));
    }
  } else if (ga < fhmx) {
    const T as = (T)1 + fhmn / fhmx, at = (fhmx - fhmn) / fhmx, au = (ga / fhmx) * (ga / fhmx);
    const T c = (T)2 / (lf_la_sqrt(as * as + au) + lf_la_sqrt(at * at + au));
    *ssmin = fhmn * c;
    *ssmax = fhmx / c;
  } else {
    const T au = fhmx / ga;
    if (au == (T)0) {  // the true ssmin may not underflow even if au does
      *ssmin = (fhmn * fhmx) / ga;
      *ssmax = ga;
    } else {
      const T as = (T)1 + fhmn / fhmx, at = (fhmx - fhmn) / fhmx;
      const T c = (T)1 / (lf_la_sqrt((T)1 + (as * au) * (as * au)) +
                          lf_la_sqrt((T)1 + (at * au) * (at * au)));
      *ssmin = (fhmn * c) * au;
      *ssmin = *ssmin + *ssmin;
      *ssmax = ga / (c + c);
    }
  }
}

// slasv2: the SVD of the upper-triangular [f g; 0 h]:
// [csl snl; -snl csl] [f g; 0 h] [csr -snr; snr csr] = [ssmax 0; 0 ssmin], |ssmax| >= |ssmin|,
// the singular values signed as LAPACK signs them.
template <class T>
LF_DEVICE void lf_la_lasv2(T f, T g, T h, T* ssmin, T* ssmax, T* snr, T* csr, T* snl, T* csl) {
  T ft = f, fa = lf_la_fabs(ft), ht = h, ha = lf_la_fabs(h);
  // pmax: which of f (1), g (2), h (3) is the largest in magnitude.
  int pmax = 1;
  const bool swap = ha > fa;
  if (swap) {  // make fa >= ha
    pmax = 3;
    T temp = ft;
    ft = ht;
    ht = temp;
    temp = fa;
    fa = ha;
    ha = temp;
  }
  const T gt = g, ga = lf_la_fabs(gt);
  T clt = 1, crt = 1, slt = 0, srt = 0;  // the rotations of the diagonal case
  if (ga == (T)0) {                      // diagonal
    *ssmin = ha;
    *ssmax = fa;
  } else {
    bool gasmal = true;
    if (ga > fa) {
      pmax = 2;
      if ((fa / ga) < lf_la_limits<T>::eps) {  // a very large ga
        gasmal = false;
        *ssmax = ga;
        *ssmin = ha > (T)1 ? fa / (ga / ha) : (fa / ga) * ha;
        clt = (T)1;
        slt = ht / gt;
        srt = (T)1;
        crt = ft / gt;
      }
    }
    if (gasmal) {  // the normal case
      const T d = fa - ha;
      T l = d == fa ? (T)1 : d / fa;  // d == fa copes with an infinite f or h; 0 <= l <= 1
      const T m = gt / ft;            // |m| <= 1 / eps
      T t = (T)2 - l;                 // t >= 1
      const T mm = m * m, tt = t * t;
      const T s = lf_la_sqrt(tt + mm);                                 // 1 <= s <= 1 + 1 / eps
      const T r = l == (T)0 ? lf_la_fabs(m) : lf_la_sqrt(l * l + mm);  // 0 <= r <= 1 + 1 / eps
      const T a = (T)0.5 * (s + r);                                    // 1 <= a <= 1 + |m|
      *ssmin = ha / a;
      *ssmax = fa * a;
      if (mm == (T)0) {  // m is very tiny
        t = l == (T)0 ? lf_la_sign((T)2, ft) * lf_la_sign((T)1, gt)
                      : gt / lf_la_sign(d, ft) + m / t;
      } else {
        t = (m / (s + t) + m / (r + l)) * ((T)1 + a);
      }
      l = lf_la_sqrt(t * t + (T)4);
      crt = (T)2 / l;
      srt = t / l;
      clt = (crt + srt * m) / a;
      slt = (ht / ft) * srt / a;
    }
  }
  if (swap) {
    *csl = srt;
    *snl = crt;
    *csr = slt;
    *snr = clt;
  } else {
    *csl = clt;
    *snl = slt;
    *csr = crt;
    *snr = srt;
  }
  // Correct the signs of ssmax and ssmin.
  T tsign;
  if (pmax == 1) {
    tsign = lf_la_sign((T)1, *csr) * lf_la_sign((T)1, *csl) * lf_la_sign((T)1, f);
  } else if (pmax == 2) {
    tsign = lf_la_sign((T)1, *snr) * lf_la_sign((T)1, *csl) * lf_la_sign((T)1, g);
  } else {
    tsign = lf_la_sign((T)1, *snr) * lf_la_sign((T)1, *snl) * lf_la_sign((T)1, h);
  }
  *ssmax = lf_la_sign(*ssmax, tsign);
  *ssmin = lf_la_sign(*ssmin, tsign * lf_la_sign((T)1, f) * lf_la_sign((T)1, h));
}

// The workspace lf_la_bdsqr_upper needs for order n, in elements (LAPACK's 4 (n - 1) suffice;
// this is also enough for n = 0).
#define LF_BDSQR_WORK(n) (4 * (n))

// The singular vectors of places i and j trade places: rows i and j of vt (their first ncvt
// elements) and columns i and j of u (their first nru), as the sorts of bdsqr, lasdq and bdsdc
// swap them (sswap).
template <class T>
LF_DEVICE void lf_la_swap_vectors(int64_t i, int64_t j, int64_t ncvt, T* vt, int64_t ldvt,
                                  int64_t nru, T* u, int64_t ldu) {
  for (int64_t c = 0; c < ncvt; ++c) {
    const T t = vt[i * ldvt + c];
    vt[i * ldvt + c] = vt[j * ldvt + c];
    vt[j * ldvt + c] = t;
  }
  for (int64_t r = 0; r < nru; ++r) {
    const T t = u[r * ldu + i];
    u[r * ldu + i] = u[r * ldu + j];
    u[r * ldu + j] = t;
  }
}

// sbdsqr / dbdsqr with uplo 'U' and ncc = 0: the SVD B = Q S P^T of the n x n upper-bidiagonal
// B (diagonal d[0..n), superdiagonal e[0..n-1)). On return d holds the singular values in
// decreasing order, vt (n x ncvt, row stride ldvt) is P^T vt and u (nru x n, row stride ldu) is
// u Q; e is destroyed. work holds LF_BDSQR_WORK(n) elements. Returns LAPACK's info: 0, or (after
// 6 n^2 inner steps without convergence) how many e[i] did not reach zero, d and e then holding
// a bidiagonal orthogonally equivalent to B, unsorted.
//
// Where LAPACK differs: with ncvt = nru = 0 it computes the values by dqds (slasq1) instead;
// here the same QR iteration runs without applying the rotations, which gives the same values to
// rounding (not bit for bit). TOL = TOLMUL eps is positive, so LAPACK's branches for TOL < 0
// (absolute accuracy, never taken) are left out.
template <class T>
LF_LINALG_SVD_FN int32_t lf_la_bdsqr_upper(int64_t n, int64_t ncvt, int64_t nru, T* d, T* e, T* vt,
                                           int64_t ldvt, T* u, int64_t ldu, T* work) {
  if (n <= 0) return 0;
  const int64_t maxitr = 6;
  const T eps = lf_la_limits<T>::eps, unfl = lf_la_limits<T>::safmin;
  const T tol = lf_la_bdsqr_consts<T>::tolmul * eps;
  const int64_t nm1 = n - 1, nm12 = nm1 + nm1, nm13 = nm12 + nm1;
  // Indices below are 0-based: ll and m are LAPACK's LL - 1 and M - 1, the first and last rows
  // of the unconverged block, and oldll / oldm start at LAPACK's -1 less one.
  if (n > 1) {
    // The threshold for the singular values' relative accuracy TOL: an estimate of the smallest
    // singular value (sminoa) times TOL, kept above an underflow-safe floor.
    T sminoa = lf_la_fabs(d[0]);
    if (sminoa != (T)0) {
      T mu = sminoa;
      for (int64_t i = 1; i < n; ++i) {
        mu = lf_la_fabs(d[i]) * (mu / (mu + lf_la_fabs(e[i - 1])));
        sminoa = sminoa < mu ? sminoa : mu;
        if (sminoa == (T)0) break;
      }
    }
    sminoa = sminoa / lf_la_sqrt((T)n);
    const T thresh_floor = (T)maxitr * ((T)n * ((T)n * unfl));
    const T thresh = tol * sminoa > thresh_floor ? tol * sminoa : thresh_floor;
    // The main iteration (LAPACK's label 60): at most 6 n passes of n inner steps each.
    const int64_t maxitdivn = maxitr * n;
    int64_t iterdivn = 0, iter = -1, oldll = -2, oldm = -2;
    int64_t m = n - 1;
    int idir = 0;
    T smin = 0;
    while (m > 0) {
      if (iter >= n) {
        iter -= n;
        ++iterdivn;
        if (iterdivn >= maxitdivn) {  // no convergence: count the e[i] left (label 200)
          int32_t info = 0;
          for (int64_t i = 0; i < n - 1; ++i) info += e[i] != (T)0;
          return info;
        }
      }
      // Find the diagonal block to work on: the last split above row m (an exact zero always
      // marks one, also when thresh is NaN).
      T smax = lf_la_fabs(d[m]);
      int64_t ll = 0;
      bool bottom = false;
      for (int64_t lll = 1; lll <= m; ++lll) {
        const int64_t k = m - lll;
        const T abss = lf_la_fabs(d[k]), abse = lf_la_fabs(e[k]);
        if (abse <= thresh || abse == (T)0) {
          e[k] = (T)0;
          if (k == m - 1) bottom = true;  // the bottom singular value converged
          ll = k + 1;
          break;
        }
        smax = smax > abss ? smax : abss;
        smax = smax > abse ? smax : abse;
      }
      if (bottom) {
        --m;
        continue;
      }
      // e[ll..m) are nonzero, e[ll - 1] is zero.
      if (ll == m - 1) {  // a 2 x 2 block: slasv2, and rotate the vectors by its rotations
        T sigmn, sigmx, sinr, cosr, sinl, cosl;
        lf_la_lasv2(d[m - 1], e[m - 1], d[m], &sigmn, &sigmx, &sinr, &cosr, &sinl, &cosl);
        d[m - 1] = sigmx;
        e[m - 1] = (T)0;
        d[m] = sigmn;
        if (ncvt > 0) lf_la_rot(ncvt, vt + (m - 1) * ldvt, 1, vt + m * ldvt, 1, cosr, sinr);
        if (nru > 0) lf_la_rot(nru, u + (m - 1), ldu, u + m, ldu, cosl, sinl);
        m -= 2;
        continue;
      }
      // On a new block, chase the bulge from the larger end diagonal element to the smaller.
      if (ll > oldm || m < oldll) {
        idir = lf_la_fabs(d[ll]) >= lf_la_fabs(d[m]) ? 1 : 2;
      }
      // The convergence tests: first the standard one at the far end of the chase, then the
      // relative-accuracy criterion along the chase direction, which also estimates smin.
      bool split = false;
      if (idir == 1) {
        if (lf_la_fabs(e[m - 1]) <= lf_la_fabs(tol) * lf_la_fabs(d[m])) {
          e[m - 1] = (T)0;
          continue;
        }
        T mu = lf_la_fabs(d[ll]);
        smin = mu;
        for (int64_t lll = ll; lll <= m - 1; ++lll) {
          if (lf_la_fabs(e[lll]) <= tol * mu) {
            e[lll] = (T)0;
            split = true;
            break;
          }
          mu = lf_la_fabs(d[lll + 1]) * (mu / (mu + lf_la_fabs(e[lll])));
          smin = smin < mu ? smin : mu;
        }
      } else {
        if (lf_la_fabs(e[ll]) <= lf_la_fabs(tol) * lf_la_fabs(d[ll])) {
          e[ll] = (T)0;
          continue;
        }
        T mu = lf_la_fabs(d[m]);
        smin = mu;
        for (int64_t lll = m - 1; lll >= ll; --lll) {
          if (lf_la_fabs(e[lll]) <= tol * mu) {
            e[lll] = (T)0;
            split = true;
            break;
          }
          mu = lf_la_fabs(d[lll]) * (mu / (mu + lf_la_fabs(e[lll])));
          smin = smin < mu ? smin : mu;
        }
      }
      if (split) continue;
      oldll = ll;
      oldm = m;
      // The shift: zero where shifting would ruin the relative accuracy, else the smaller
      // singular value of the 2 x 2 block at the end the chase goes to (zero if negligible).
      T shift;
      const T hndrth_tol = (T)0.01 * tol;
      if ((T)n * tol * (smin / smax) <= (eps > hndrth_tol ? eps : hndrth_tol)) {
        shift = (T)0;
      } else {
        T sll, r;
        if (idir == 1) {
          sll = lf_la_fabs(d[ll]);
          lf_la_las2(d[m - 1], e[m - 1], d[m], &shift, &r);
        } else {
          sll = lf_la_fabs(d[m]);
          lf_la_las2(d[ll], e[ll], d[ll + 1], &shift, &r);
        }
        if (sll > (T)0 && (shift / sll) * (shift / sll) < eps) shift = (T)0;
      }
      iter += m - ll;
      const int64_t len = m - ll + 1;
      // The sweep saves its rotations' cosines and sines in work (at 0 and nm1 the first of each
      // pair, at nm12 and nm13 the second) and then applies them to the rows of VT and the
      // columns of U, as LAPACK does: top to bottom VT takes the first of each pair and U the
      // second, bottom to top the other way round, the sines negated.
      if (shift == (T)0) {
        // The zero-shift QR sweep (Demmel-Kahan), which keeps high relative accuracy.
        T cs = 1, sn = 0, r = 0, oldcs = 1, oldsn = 0;
        if (idir == 1) {  // chase the bulge from top to bottom
          for (int64_t i = ll; i <= m - 1; ++i) {
            lf_la_lartg(d[i] * cs, e[i], &cs, &sn, &r);
            if (i > ll) e[i - 1] = oldsn * r;
            lf_la_lartg(oldcs * r, d[i + 1] * sn, &oldcs, &oldsn, &d[i]);
            work[i - ll] = cs;
            work[i - ll + nm1] = sn;
            work[i - ll + nm12] = oldcs;
            work[i - ll + nm13] = oldsn;
          }
          const T h = d[m] * cs;
          d[m] = h * oldcs;
          e[m - 1] = h * oldsn;
          if (ncvt > 0) lf_la_lasr_left(true, len, ncvt, work, work + nm1, vt + ll * ldvt, ldvt);
          if (nru > 0) lf_la_lasr_right(true, nru, len, work + nm12, work + nm13, u + ll, ldu);
          if (lf_la_fabs(e[m - 1]) <= thresh) e[m - 1] = (T)0;
        } else {  // chase the bulge from bottom to top
          for (int64_t i = m; i >= ll + 1; --i) {
            lf_la_lartg(d[i] * cs, e[i - 1], &cs, &sn, &r);
            if (i < m) e[i] = oldsn * r;
            lf_la_lartg(oldcs * r, d[i - 1] * sn, &oldcs, &oldsn, &d[i]);
            work[i - ll - 1] = cs;
            work[i - ll - 1 + nm1] = -sn;
            work[i - ll - 1 + nm12] = oldcs;
            work[i - ll - 1 + nm13] = -oldsn;
          }
          const T h = d[ll] * cs;
          d[ll] = h * oldcs;
          e[ll] = h * oldsn;
          if (ncvt > 0) {
            lf_la_lasr_left(false, len, ncvt, work + nm12, work + nm13, vt + ll * ldvt, ldvt);
          }
          if (nru > 0) lf_la_lasr_right(false, nru, len, work, work + nm1, u + ll, ldu);
          if (lf_la_fabs(e[ll]) <= thresh) e[ll] = (T)0;
        }
      } else {
        // The shifted QR sweep.
        T cosr = 0, sinr = 0, cosl = 0, sinl = 0, r = 0;
        if (idir == 1) {  // chase the bulge from top to bottom
          T f = (lf_la_fabs(d[ll]) - shift) * (lf_la_sign((T)1, d[ll]) + shift / d[ll]);
          T g = e[ll];
          for (int64_t i = ll; i <= m - 1; ++i) {
            lf_la_lartg(f, g, &cosr, &sinr, &r);
            if (i > ll) e[i - 1] = r;
            f = cosr * d[i] + sinr * e[i];
            e[i] = cosr * e[i] - sinr * d[i];
            g = sinr * d[i + 1];
            d[i + 1] = cosr * d[i + 1];
            lf_la_lartg(f, g, &cosl, &sinl, &r);
            d[i] = r;
            f = cosl * e[i] + sinl * d[i + 1];
            d[i + 1] = cosl * d[i + 1] - sinl * e[i];
            if (i < m - 1) {
              g = sinl * e[i + 1];
              e[i + 1] = cosl * e[i + 1];
            }
            work[i - ll] = cosr;
            work[i - ll + nm1] = sinr;
            work[i - ll + nm12] = cosl;
            work[i - ll + nm13] = sinl;
          }
          e[m - 1] = f;
          if (ncvt > 0) lf_la_lasr_left(true, len, ncvt, work, work + nm1, vt + ll * ldvt, ldvt);
          if (nru > 0) lf_la_lasr_right(true, nru, len, work + nm12, work + nm13, u + ll, ldu);
          if (lf_la_fabs(e[m - 1]) <= thresh) e[m - 1] = (T)0;
        } else {  // chase the bulge from bottom to top
          T f = (lf_la_fabs(d[m]) - shift) * (lf_la_sign((T)1, d[m]) + shift / d[m]);
          T g = e[m - 1];
          for (int64_t i = m; i >= ll + 1; --i) {
            lf_la_lartg(f, g, &cosr, &sinr, &r);
            if (i < m) e[i] = r;
            f = cosr * d[i] + sinr * e[i - 1];
            e[i - 1] = cosr * e[i - 1] - sinr * d[i];
            g = sinr * d[i - 1];
            d[i - 1] = cosr * d[i - 1];
            lf_la_lartg(f, g, &cosl, &sinl, &r);
            d[i] = r;
            f = cosl * e[i - 1] + sinl * d[i - 1];
            d[i - 1] = cosl * d[i - 1] - sinl * e[i - 1];
            if (i > ll + 1) {
              g = sinl * e[i - 2];
              e[i - 2] = cosl * e[i - 2];
            }
            work[i - ll - 1] = cosr;
            work[i - ll - 1 + nm1] = -sinr;
            work[i - ll - 1 + nm12] = cosl;
            work[i - ll - 1 + nm13] = -sinl;
          }
          e[ll] = f;
          if (lf_la_fabs(e[ll]) <= thresh) e[ll] = (T)0;
          if (ncvt > 0) {
            lf_la_lasr_left(false, len, ncvt, work + nm12, work + nm13, vt + ll * ldvt, ldvt);
          }
          if (nru > 0) lf_la_lasr_right(false, nru, len, work, work + nm1, u + ll, ldu);
        }
      }
    }
  }
  // All singular values converged (label 160): make them positive (no -0), negating the rows of
  // VT of the negative ones.
  for (int64_t i = 0; i < n; ++i) {
    if (d[i] == (T)0) d[i] = (T)0;
    if (d[i] < (T)0) {
      d[i] = -d[i];
      for (int64_t j = 0; j < ncvt; ++j) vt[i * ldvt + j] *= (T)-1;
    }
  }
  // Sort into decreasing order: move the smallest of d[0..last] to d[last], one swap (of the
  // values, the rows of VT and the columns of U) per position, as LAPACK does.
  for (int64_t i = 1; i < n; ++i) {
    const int64_t last = n - i;
    int64_t isub = 0;
    T smin = d[0];
    for (int64_t j = 1; j <= last; ++j) {
      if (d[j] <= smin) {
        isub = j;
        smin = d[j];
      }
    }
    if (isub != last) {
      d[isub] = d[last];
      d[last] = smin;
      lf_la_swap_vectors(isub, last, ncvt, vt, ldvt, nru, u, ldu);
    }
  }
  return 0;
}
