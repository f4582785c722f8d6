// The eigenvalues of a general real matrix, behind jnp.linalg.eigvals (and eig with no vectors):
// LAPACK 3.12's dgeev with jobvl = jobvr = 'N', step for step, as jax's lapack_{s,d}geev_ffi runs
// it on the CPU (and jax's cuhybrid_eig_real on a GPU, which calls the same LAPACK on the host).
// dgeev scales the matrix into range, balances it (gebal 'B': permutations that isolate
// eigenvalues, then powers of 2 that even out row and column norms), reduces it to Hessenberg form
// (gehrd, which is gehd2 below 128 rows), and hseqr finds the eigenvalues: up to 75 rows that is
// lahqr's double-shift QR iteration, ported here. The order of the eigenvalues is where they
// appear on the diagonal of the Schur form, the algorithm's choice: taking the same steps gives
// the same order, and a complex pair comes with its positive imaginary part first.
//
// Row-major as lf_linalg.h (element (i, j) at a[i * n + j]), indices 0-based; only f32 and f64.
// Not ported: hseqr's retry with laqr0 where lahqr does not converge (LAPACK's "rare failure";
// loopfuse returns lahqr's info > 0, and jax then gives NaNs).
#pragma once

// The largest matrix whose eigenvalues hseqr finds with lahqr (its NMIN, from iparmq): larger
// ones go to laqr0's aggressive early deflation, which finds them in another order.
#define LF_GEEV_MAX_ROWS 75

template <class T>
LF_DEVICE T lf_la_max3(T a, T b, T c) {
  const T ab = a > b ? a : b;
  return ab > c ? ab : c;
}
template <class T>
LF_DEVICE T lf_la_min3(T a, T b, T c) {
  const T ab = a < b ? a : b;
  return ab < c ? ab : c;
}

// gebal('B'): permutes a to isolate eigenvalues (rows and columns outside [*ilo, *ihi] hold
// upper-triangular, already-final parts), then scales rows and columns ilo..ihi by powers of 2.
// Returns false where the norms are NaN (LAPACK's info -3, from which it returns early).
template <class T>
LF_DEVICE bool lf_la_gebal(T* a, int64_t n, int64_t* ilo, int64_t* ihi) {
  auto swapCols = [&](int64_t rows, int64_t c1, int64_t c2) {
    for (int64_t r = 0; r < rows; ++r) {
      const T t = a[r * n + c1];
      a[r * n + c1] = a[r * n + c2];
      a[r * n + c2] = t;
    }
  };
  auto swapRows = [&](int64_t from, int64_t r1, int64_t r2) {
    for (int64_t c = from; c < n; ++c) {
      const T t = a[r1 * n + c];
      a[r1 * n + c] = a[r2 * n + c];
      a[r2 * n + c] = t;
    }
  };
  int64_t k = 0, l = n - 1;
  // Rows isolating an eigenvalue (zero off the diagonal in columns 0..l) go to the bottom. As in
  // 3.12, the sweep goes on downwards after a swap (3.11 restarted it from the new l).
  for (bool noconv = true; noconv;) {
    noconv = false;
    for (int64_t i = l; i >= 0; --i) {
      bool canSwap = true;
      for (int64_t j = 0; j <= l; ++j) {
        if (i != j && a[i * n + j] != (T)0) {
          canSwap = false;
          break;
        }
      }
      if (!canSwap) continue;
      if (i != l) {
        swapCols(l + 1, i, l);
        swapRows(k, i, l);
      }
      noconv = true;
      if (l == 0) {
        *ilo = 0;
        *ihi = 0;
        return true;
      }
      --l;
    }
  }
  // Columns isolating an eigenvalue (zero off the diagonal in rows k..l) go to the left.
  for (bool noconv = true; noconv;) {
    noconv = false;
    for (int64_t j = k; j <= l; ++j) {
      bool canSwap = true;
      for (int64_t i = k; i <= l; ++i) {
        if (i != j && a[i * n + j] != (T)0) {
          canSwap = false;
          break;
        }
      }
      if (!canSwap) continue;
      if (j != k) {
        swapCols(l + 1, j, k);
        swapRows(k, j, k);
      }
      noconv = true;
      ++k;
    }
  }
  // Balance rows and columns k..l. The scale factors are kept only to bound their growth (the
  // back-transformation of eigenvectors, which would use them, is not ported).
  T scale[LF_GEEV_MAX_ROWS];
  for (int64_t i = k; i <= l; ++i) scale[i] = (T)1;
  const T sclfac = 2, factor = (T)0.95;
  const T sfmin1 = lf_la_limits<T>::safmin / ((T)2 * lf_la_limits<T>::eps);
  const T sfmax1 = (T)1 / sfmin1, sfmin2 = sfmin1 * sclfac, sfmax2 = (T)1 / sfmin2;
  auto maxAbs = [&](int64_t count, const T* x, int64_t inc) {  // |x[idamax]|, the first largest
    T best = lf_la_fabs(x[0]);
    for (int64_t e = 1; e < count; ++e) {
      if (lf_la_fabs(x[e * inc]) > best) best = lf_la_fabs(x[e * inc]);
    }
    return best;
  };
  for (bool noconv = true; noconv;) {
    noconv = false;
    for (int64_t i = k; i <= l; ++i) {
      T c = lf_la_nrm2(l - k + 1, a + k * n + i, n);
      T r = lf_la_nrm2(l - k + 1, a + i * n + k, 1);
      T ca = maxAbs(l + 1, a + i, n);
      T ra = maxAbs(n - k, a + i * n + k, 1);
      if (c == (T)0 || r == (T)0) continue;
      const T sum = c + ca + r + ra;
      if (sum != sum) return false;
      T g = r / sclfac, f = 1;
      const T s = c + r;
      while (c < g && lf_la_max3(f, c, ca) < sfmax2 && lf_la_min3(r, g, ra) > sfmin2) {
        f *= sclfac;
        c *= sclfac;
        ca *= sclfac;
        r /= sclfac;
        g /= sclfac;
        ra /= sclfac;
      }
      g = c / sclfac;
      while (g >= r && (r > ra ? r : ra) < sfmax2 && lf_la_min3(f, c, g) > sfmin2 && ca > sfmin2) {
        f /= sclfac;
        c /= sclfac;
        g /= sclfac;
        ca /= sclfac;
        r *= sclfac;
        ra *= sclfac;
      }
      if (c + r >= factor * s) continue;
      if (f < (T)1 && scale[i] < (T)1 && f * scale[i] <= sfmin1) continue;
      if (f > (T)1 && scale[i] > (T)1 && scale[i] >= sfmax1 / f) continue;
      g = (T)1 / f;
      scale[i] *= f;
      noconv = true;
      for (int64_t j = k; j < n; ++j) a[i * n + j] *= g;
      for (int64_t j = 0; j <= l; ++j) a[j * n + i] *= f;
    }
  }
  *ilo = k;
  *ihi = l;
  return true;
}

// gehd2: Q^T A Q = H, upper Hessenberg in rows and columns ilo..ihi (the reflectors' tails stay
// below the subdiagonal, where lahqr does not read them).
template <class T>
LF_DEVICE void lf_la_gehd2(T* a, int64_t n, int64_t ilo, int64_t ihi) {
  for (int64_t i = ilo; i < ihi; ++i) {
    T* v = a + (i + 1) * n + i;  // A(i+1, i), the reflector's head
    const T tau = lf_la_larfg(ihi - i, v, a + (i + 2 < n ? i + 2 : n - 1) * n + i, n);
    const T aii = *v;
    *v = (T)1;
    lf_la_larf_right(ihi + 1, ihi - i, v, n, tau, a + i + 1, n);
    lf_la_larf_left(ihi - i, n - i - 1, v, n, tau, a + (i + 1) * n + i + 1, n);
    *v = aii;
  }
}

// lanv2: the standardised Schur factorization of the 2 x 2 block [a b; c d]; its eigenvalues
// (rt1r, rt1i), (rt2r, rt2i), rt1i > 0 for a complex pair. The rotation itself is not needed.
template <class T>
LF_DEVICE void lf_la_lanv2(T a, T b, T c, T d, T* rt1r, T* rt1i, T* rt2r, T* rt2i) {
  const T eps = (T)2 * lf_la_limits<T>::eps, multpl = 4;
  // radix^int(log2(safmin / eps) / 2): 2^-485 (f64), 2^-51 (f32).
  T safmn2;
  if constexpr (sizeof(T) == 8) {
    safmn2 = (T)0x1p-485;
  } else {
    safmn2 = (T)0x1p-51f;
  }
  const T safmx2 = (T)1 / safmn2;
  if (c == (T)0) {
  } else if (b == (T)0) {  // swap rows and columns
    const T temp = d;
    d = a;
    a = temp;
    b = -c;
    c = 0;
  } else if ((a - d) == (T)0 && lf_la_sign((T)1, b) != lf_la_sign((T)1, c)) {
  } else {
    T temp = a - d;
    T p = (T)0.5 * temp;
    const T bcmax = lf_la_fabs(b) > lf_la_fabs(c) ? lf_la_fabs(b) : lf_la_fabs(c);
    const T bcmis = (lf_la_fabs(b) < lf_la_fabs(c) ? lf_la_fabs(b) : lf_la_fabs(c)) *
                    lf_la_sign((T)1, b) * lf_la_sign((T)1, c);
    T scale = lf_la_fabs(p) > bcmax ? lf_la_fabs(p) : bcmax;
    T z = (p / scale) * p + (bcmax / scale) * bcmis;
    if (z >= multpl * eps) {  // real eigenvalues
      z = p + lf_la_sign(lf_la_sqrt(scale) * lf_la_sqrt(z), p);
      a = d + z;
      d = d - (bcmax / z) * bcmis;
      b = b - c;
      c = 0;
    } else {  // complex or almost equal real eigenvalues: make the diagonal equal
      T sigma = b + c;
      for (int count = 1;; ++count) {
        scale = lf_la_fabs(temp) > lf_la_fabs(sigma) ? lf_la_fabs(temp) : lf_la_fabs(sigma);
        if (scale >= safmx2) {
          sigma *= safmn2;
          temp *= safmn2;
          if (count <= 20) continue;
        }
        if (scale <= safmn2) {
          sigma *= safmx2;
          temp *= safmx2;
          if (count <= 20) continue;
        }
        break;
      }
      p = (T)0.5 * temp;
      T tau = lf_la_lapy2(sigma, temp);
      T cs = lf_la_sqrt((T)0.5 * ((T)1 + lf_la_fabs(sigma) / tau));
      T sn = -(p / (tau * cs)) * lf_la_sign((T)1, sigma);
      const T aa = a * cs + b * sn, bb = -a * sn + b * cs;
      const T cc = c * cs + d * sn, dd = -c * sn + d * cs;
      a = aa * cs + cc * sn;
      b = bb * cs + dd * sn;
      c = -aa * sn + cc * cs;
      d = -bb * sn + dd * cs;
      temp = (T)0.5 * (a + d);
      a = temp;
      d = temp;
      if (c != (T)0) {
        if (b != (T)0) {
          if (lf_la_sign((T)1, b) == lf_la_sign((T)1, c)) {  // real: upper triangular
            const T sab = lf_la_sqrt(lf_la_fabs(b)), sac = lf_la_sqrt(lf_la_fabs(c));
            p = lf_la_sign(sab * sac, c);
            a = temp + p;
            d = temp - p;
            b = b - c;
            c = 0;
          }
        } else {
          b = -c;
          c = 0;
        }
      }
    }
  }
  *rt1r = a;
  *rt2r = d;
  if (c == (T)0) {
    *rt1i = 0;
    *rt2i = 0;
  } else {
    *rt1i = lf_la_sqrt(lf_la_fabs(b)) * lf_la_sqrt(lf_la_fabs(c));
    *rt2i = -*rt1i;
  }
}

// lahqr with wantt = wantz = false: the eigenvalues of the Hessenberg rows and columns ilo..ihi
// of h into wr, wi. Returns 0, or (1-based, as LAPACK) the row whose eigenvalues did not converge.
template <class T>
LF_DEVICE int32_t lf_la_lahqr_values(T* h, int64_t n, int64_t ilo, int64_t ihi, T* wr, T* wi) {
  auto H = [&](int64_t r, int64_t c) -> T& { return h[r * n + c]; };
  if (ilo == ihi) {
    wr[ilo] = H(ilo, ilo);
    wi[ilo] = 0;
    return 0;
  }
  for (int64_t j = ilo; j + 3 <= ihi; ++j) {  // clear out the trash
    H(j + 2, j) = 0;
    H(j + 3, j) = 0;
  }
  if (ilo + 2 <= ihi) H(ihi, ihi - 2) = 0;
  const int64_t nh = ihi - ilo + 1;
  const T safmin = lf_la_limits<T>::safmin, ulp = (T)2 * lf_la_limits<T>::eps;
  const T smlnum = safmin * ((T)nh / ulp);
  const T dat1 = (T)0.75, dat2 = (T)-0.4375;
  constexpr int kexsh = 10;
  const int64_t itmax = 30 * (nh > 10 ? nh : 10);
  int64_t kdefl = 0;
  for (int64_t i = ihi; i >= ilo;) {
    int64_t l = ilo;
    bool converged = false;
    for (int64_t its = 0; its <= itmax; ++its) {
      // A single small subdiagonal element (Ahues and Tisseur's criterion).
      int64_t k = i;
      for (; k > l; --k) {
        if (lf_la_fabs(H(k, k - 1)) <= smlnum) break;
        T tst = lf_la_fabs(H(k - 1, k - 1)) + lf_la_fabs(H(k, k));
        if (tst == (T)0) {
          if (k - 2 >= ilo) tst += lf_la_fabs(H(k - 1, k - 2));
          if (k + 1 <= ihi) tst += lf_la_fabs(H(k + 1, k));
        }
        if (lf_la_fabs(H(k, k - 1)) <= ulp * tst) {
          const T hkk1 = lf_la_fabs(H(k, k - 1)), hk1k = lf_la_fabs(H(k - 1, k));
          const T ab = hkk1 > hk1k ? hkk1 : hk1k, ba = hkk1 > hk1k ? hk1k : hkk1;
          const T hkk = lf_la_fabs(H(k, k)), diff = lf_la_fabs(H(k - 1, k - 1) - H(k, k));
          const T aa = hkk > diff ? hkk : diff, bb = hkk > diff ? diff : hkk;
          const T s = aa + ab;
          const T rhs = ulp * (bb * (aa / s));
          if (ba * (ab / s) <= (smlnum > rhs ? smlnum : rhs)) break;
        }
      }
      l = k;
      if (l > ilo) H(l, l - 1) = 0;  // negligible
      if (l >= i - 1) {
        converged = true;
        break;
      }
      ++kdefl;
      const int64_t i1 = l, i2 = i;  // eigenvalues only: just the active block
      T h11, h12, h21, h22;
      if (kdefl % (2 * kexsh) == 0) {  // exceptional shifts
        const T s = lf_la_fabs(H(i, i - 1)) + lf_la_fabs(H(i - 1, i - 2));
        h11 = dat1 * s + H(i, i);
        h12 = dat2 * s;
        h21 = s;
        h22 = h11;
      } else if (kdefl % kexsh == 0) {
        const T s = lf_la_fabs(H(l + 1, l)) + lf_la_fabs(H(l + 2, l + 1));
        h11 = dat1 * s + H(l, l);
        h12 = dat2 * s;
        h21 = s;
        h22 = h11;
      } else {  // Francis' double shift
        h11 = H(i - 1, i - 1);
        h21 = H(i, i - 1);
        h12 = H(i - 1, i);
        h22 = H(i, i);
      }
      T rt1r = 0, rt1i = 0, rt2r = 0, rt2i = 0;
      const T s = lf_la_fabs(h11) + lf_la_fabs(h12) + lf_la_fabs(h21) + lf_la_fabs(h22);
      if (s != (T)0) {
        h11 /= s;
        h21 /= s;
        h12 /= s;
        h22 /= s;
        const T tr = (h11 + h22) / (T)2;
        const T det = (h11 - tr) * (h22 - tr) - h12 * h21;
        const T rtdisc = lf_la_sqrt(lf_la_fabs(det));
        if (det >= (T)0) {  // complex conjugate shifts
          rt1r = tr * s;
          rt2r = rt1r;
          rt1i = rtdisc * s;
          rt2i = -rt1i;
        } else {  // real shifts: the one nearer h22, twice
          rt1r = tr + rtdisc;
          rt2r = tr - rtdisc;
          if (lf_la_fabs(rt1r - h22) <= lf_la_fabs(rt2r - h22)) {
            rt1r *= s;
            rt2r = rt1r;
          } else {
            rt2r *= s;
            rt1r = rt2r;
          }
          rt1i = 0;
          rt2i = 0;
        }
      }
      // Two consecutive small subdiagonal elements: where the double-shift step starts.
      int64_t m = i - 2;
      T v[3];
      for (;; --m) {
        T h21s = H(m + 1, m);
        T sc = lf_la_fabs(H(m, m) - rt2r) + lf_la_fabs(rt2i) + lf_la_fabs(h21s);
        h21s = H(m + 1, m) / sc;
        v[0] = h21s * H(m, m + 1) + (H(m, m) - rt1r) * ((H(m, m) - rt2r) / sc) - rt1i * (rt2i / sc);
        v[1] = h21s * (H(m, m) + H(m + 1, m + 1) - rt1r - rt2r);
        v[2] = h21s * H(m + 2, m + 1);
        sc = lf_la_fabs(v[0]) + lf_la_fabs(v[1]) + lf_la_fabs(v[2]);
        v[0] /= sc;
        v[1] /= sc;
        v[2] /= sc;
        if (m == l) break;
        const T h00 =
            lf_la_fabs(H(m - 1, m - 1)) + lf_la_fabs(H(m, m)) + lf_la_fabs(H(m + 1, m + 1));
        if (lf_la_fabs(H(m, m - 1)) * (lf_la_fabs(v[1]) + lf_la_fabs(v[2])) <=
            ulp * lf_la_fabs(v[0]) * h00)
          break;
      }
      // The double-shift QR step: chase the bulge down the active block.
      for (int64_t kk = m; kk <= i - 1; ++kk) {
        const int64_t nr = i - kk + 1 < 3 ? i - kk + 1 : 3;
        if (kk > m) {
          for (int64_t e = 0; e < nr; ++e) v[e] = H(kk + e, kk - 1);
        }
        const T t1 = lf_la_larfg(nr, &v[0], &v[1], 1);
        if (kk > m) {
          H(kk, kk - 1) = v[0];
          H(kk + 1, kk - 1) = 0;
          if (kk < i - 1) H(kk + 2, kk - 1) = 0;
        } else if (m > l) {
          // Not -H(k, k-1): that has a bug where v[1] and v[2] underflow.
          H(kk, kk - 1) = H(kk, kk - 1) * ((T)1 - t1);
        }
        const T v2 = v[1], t2 = t1 * v2;
        if (nr == 3) {
          const T v3 = v[2], t3 = t1 * v3;
          for (int64_t j = kk; j <= i2; ++j) {
            const T sum = H(kk, j) + v2 * H(kk + 1, j) + v3 * H(kk + 2, j);
            H(kk, j) = H(kk, j) - sum * t1;
            H(kk + 1, j) = H(kk + 1, j) - sum * t2;
            H(kk + 2, j) = H(kk + 2, j) - sum * t3;
          }
          const int64_t last = kk + 3 < i ? kk + 3 : i;
          for (int64_t j = i1; j <= last; ++j) {
            const T sum = H(j, kk) + v2 * H(j, kk + 1) + v3 * H(j, kk + 2);
            H(j, kk) = H(j, kk) - sum * t1;
            H(j, kk + 1) = H(j, kk + 1) - sum * t2;
            H(j, kk + 2) = H(j, kk + 2) - sum * t3;
          }
        } else if (nr == 2) {
          for (int64_t j = kk; j <= i2; ++j) {
            const T sum = H(kk, j) + v2 * H(kk + 1, j);
            H(kk, j) = H(kk, j) - sum * t1;
            H(kk + 1, j) = H(kk + 1, j) - sum * t2;
          }
          for (int64_t j = i1; j <= i; ++j) {
            const T sum = H(j, kk) + v2 * H(j, kk + 1);
            H(j, kk) = H(j, kk) - sum * t1;
            H(j, kk + 1) = H(j, kk + 1) - sum * t2;
          }
        }
      }
    }
    if (!converged) return (int32_t)(i + 1);
    if (l == i) {  // one eigenvalue has converged
      wr[i] = H(i, i);
      wi[i] = 0;
    } else {  // a 2 x 2 block: a pair
      lf_la_lanv2(H(i - 1, i - 1), H(i - 1, i), H(i, i - 1), H(i, i), &wr[i - 1], &wi[i - 1],
                  &wr[i], &wi[i]);
    }
    kdefl = 0;
    i = l - 1;
  }
  return 0;
}

// dgeev('N', 'N'): the eigenvalues of the n x n matrix a (destroyed) into wr (real parts) and wi
// (imaginary parts), n <= LF_GEEV_MAX_ROWS. Returns 0, or > 0 where the QR iteration did not
// converge (or a is not finite; the values are then unspecified).
template <class T>
LF_LINALG_FN int32_t lf_geev_values(T* a, int64_t n, T* wr, T* wi) {
  if (n == 0) return 0;
  // Scale into [smlnum, bignum] (eps is slamch('P'), twice slamch('E')).
  const T eps = (T)2 * lf_la_limits<T>::eps;
  const T smlnum = lf_la_sqrt(lf_la_limits<T>::safmin) / eps, bignum = (T)1 / smlnum;
  T anrm = 0;
  for (int64_t e = 0; e < n * n; ++e) {
    const T x = lf_la_fabs(a[e]);
    if (anrm < x || x != x) anrm = x;
  }
  if (anrm != anrm || anrm > lf_la_limits<T>::huge) return (int32_t)n;  // NaN or infinite
  T cscale = 0;
  if (anrm > (T)0 && anrm < smlnum) cscale = smlnum;
  if (anrm > bignum) cscale = bignum;
  if (cscale != (T)0) lf_la_lascl(anrm, cscale, a, n * n, 1);
  int64_t ilo = 0, ihi = n - 1;
  if (!lf_la_gebal(a, n, &ilo, &ihi)) return (int32_t)n;
  lf_la_gehd2(a, n, ilo, ihi);
  // hseqr: the eigenvalues gebal isolated are on the diagonal.
  for (int64_t i = 0; i < n; ++i) {
    if (i < ilo || i > ihi) {
      wr[i] = a[i * n + i];
      wi[i] = 0;
    }
  }
  const int32_t info = lf_la_lahqr_values(a, n, ilo, ihi, wr, wi);
  if (info != 0) return info;
  if (cscale != (T)0) {
    lf_la_lascl(cscale, anrm, wr, n, 1);
    lf_la_lascl(cscale, anrm, wi, n, 1);
  }
  return 0;
}
