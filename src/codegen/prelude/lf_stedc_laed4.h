// slaed4 / dlaed4: the i-th root (0-based) of the secular equation 1 / rho + sum_j z[j]^2 /
// (d[j] - x) = 0 of diag(d) + rho z z^T (d strictly ascending, |z| = 1, rho > 0), by Li's
// middle-way method: rational interpolation of the two nearest poles (or three, through laed6,
// where that converges faster), kept inside the bracket the iterates prove. On return
// delta[j] = d[j] - lambda, which is what the eigenvector formula needs (computed from the nearer
// pole, so it keeps its relative accuracy). Returns 0, or 1 if 30 steps did not converge (dlam
// is then the last iterate). Part of lf_stedc.h (pasted in place by preludeText).
#pragma once

// psi (the poles below) and phi (above) of the secular function at the current iterate, their
// derivatives, and the running sum of |terms| that bounds their rounding error (erretm).
template <class T>
LF_DEVICE void lf_la_laed4_sums(int64_t n, int64_t ii, const T* z, const T* delta, T* psi, T* dpsi,
                                T* phi, T* dphi, T* erretm) {
  *psi = 0;
  *dpsi = 0;
  *erretm = 0;
  for (int64_t j = 0; j < ii; ++j) {
    const T temp = z[j] / delta[j];
    *psi += z[j] * temp;
    *dpsi += temp * temp;
    *erretm += *psi;
  }
  *erretm = lf_la_fabs(*erretm);
  *phi = 0;
  *dphi = 0;
  for (int64_t j = n - 1; j > ii; --j) {
    const T temp = z[j] / delta[j];
    *phi += z[j] * temp;
    *dphi += temp * temp;
    *erretm += *phi;
  }
}

// Whether the next step interpolates with three poles (swtch3's alternative, laed6) instead of
// two: decided after the first step from the secular function's sign, then flipped whenever a
// step leaves it with the same sign and more than a tenth of its size (laed4's and lasd4's SWTCH).
template <class T>
LF_DEVICE void lf_la_secular_switch(int64_t niter, bool orgati, T w, T prew, bool* swtch) {
  if (niter == 2) {
    *swtch = orgati ? -w > lf_la_fabs(prew) / (T)10 : w > lf_la_fabs(prew) / (T)10;
  } else if (w * prew > (T)0 && lf_la_fabs(w) > lf_la_fabs(prew) / (T)10) {
    *swtch = !*swtch;
  }
}

// The bracket [dltlb, dltub] around the root (as offsets from the origin pole) shrinks to the
// current iterate tau on the side the secular function's sign w says.
template <class T>
LF_DEVICE void lf_la_laed4_bracket(T w, T tau, T* dltlb, T* dltub) {
  if (w <= (T)0) {
    *dltlb = *dltlb < tau ? tau : *dltlb;
  } else {
    *dltub = *dltub > tau ? tau : *dltub;
  }
}

// A step eta that would leave the bracket becomes the bisection toward the side w points to.
template <class T>
LF_DEVICE T lf_la_laed4_inside(T w, T tau, T eta, T dltlb, T dltub) {
  const T next = tau + eta;
  if (next > dltub || next < dltlb) return w < (T)0 ? (dltub - tau) / (T)2 : (dltlb - tau) / (T)2;
  return eta;
}

// The largest root (i == n - 1): it lies in (d[n-1], d[n-1] + rho].
template <class T>
LF_DEVICE int32_t lf_la_laed4_last(int64_t n, const T* d, const T* z, T* delta, T rho, T* dlam) {
  const T eps = lf_la_limits<T>::eps, rhoinv = (T)1 / rho;
  const int64_t i = n - 1;
  const T midpt = rho / (T)2;
  for (int64_t j = 0; j < n; ++j) delta[j] = (d[j] - d[i]) - midpt;
  T psi = 0;
  for (int64_t j = 0; j < n - 2; ++j) psi += z[j] * z[j] / delta[j];
  T c = rhoinv + psi;
  T w = c + z[n - 2] * z[n - 2] / delta[n - 2] + z[n - 1] * z[n - 1] / delta[n - 1];
  const T del = d[n - 1] - d[n - 2];
  T tau, dltlb, dltub;
  auto guess = [&]() {
    const T a = -c * del + z[n - 2] * z[n - 2] + z[n - 1] * z[n - 1];
    const T b = z[n - 1] * z[n - 1] * del;
    return a < (T)0 ? (T)2 * b / (lf_la_sqrt(a * a + (T)4 * b * c) - a)
                    : (a + lf_la_sqrt(a * a + (T)4 * b * c)) / ((T)2 * c);
  };
  if (w <= (T)0) {
    const T temp = z[n - 2] * z[n - 2] / (d[n - 1] - d[n - 2] + rho) + z[n - 1] * z[n - 1] / rho;
    tau = c <= temp ? rho : guess();
    dltlb = midpt;  // d[n-1] + rho / 2 <= lambda < d[n-1] + tau <= d[n-1] + rho
    dltub = rho;
  } else {
    tau = guess();  // d[n-1] < d[n-1] + tau < lambda < d[n-1] + rho / 2
    dltlb = 0;
    dltub = midpt;
  }
  for (int64_t j = 0; j < n; ++j) delta[j] = (d[j] - d[i]) - tau;
  T dpsi, phi, dphi, erretm;
  auto evaluate = [&]() {
    lf_la_laed4_sums(n - 1, n - 1, z, delta, &psi, &dpsi, &phi, &dphi, &erretm);
    const T temp = z[n - 1] / delta[n - 1];
    phi = z[n - 1] * temp;
    dphi = temp * temp;
    erretm = (T)8 * (-phi - psi) + erretm - phi + rhoinv + lf_la_fabs(tau) * (dpsi + dphi);
    w = rhoinv + phi + psi;
  };
  evaluate();
  // One test and step, then 28 more (LAPACK's niter 2..30).
  for (int64_t step = 0; step < 29; ++step) {
    if (lf_la_fabs(w) <= eps * erretm) {
      *dlam = d[i] + tau;
      return 0;
    }
    lf_la_laed4_bracket(w, tau, &dltlb, &dltub);
    c = w - delta[n - 2] * dpsi - delta[n - 1] * dphi;
    const T a = (delta[n - 2] + delta[n - 1]) * w - delta[n - 2] * delta[n - 1] * (dpsi + dphi);
    const T b = delta[n - 2] * delta[n - 1] * w;
    T eta;
    if (step == 0 && c < (T)0) c = lf_la_fabs(c);
    if (step == 0 && c == (T)0) {
      eta = dltub - tau;
    } else if (a >= (T)0) {
      eta = (a + lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c))) / ((T)2 * c);
    } else {
      eta = (T)2 * b / (a - lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c)));
    }
    // eta must point against w; if rounding says otherwise, take a Newton step.
    if (w * eta > (T)0) eta = -w / (dpsi + dphi);
    eta = lf_la_laed4_inside(w, tau, eta, dltlb, dltub);
    for (int64_t j = 0; j < n; ++j) delta[j] -= eta;
    tau += eta;
    evaluate();
  }
  *dlam = d[i] + tau;
  return 1;
}

// A root strictly between d[i] and d[i+1] (i < n - 1).
template <class T>
LF_DEVICE int32_t lf_la_laed4_inner(int64_t n, int64_t i, const T* d, const T* z, T* delta, T rho,
                                    T* dlam) {
  const T eps = lf_la_limits<T>::eps, rhoinv = (T)1 / rho;
  const int64_t ip1 = i + 1;
  const T del = d[ip1] - d[i], midpt = del / (T)2;
  for (int64_t j = 0; j < n; ++j) delta[j] = (d[j] - d[i]) - midpt;
  T psi = 0, phi = 0;
  for (int64_t j = 0; j < i; ++j) psi += z[j] * z[j] / delta[j];
  for (int64_t j = n - 1; j > i + 1; --j) phi += z[j] * z[j] / delta[j];
  T c = rhoinv + psi + phi;
  T w = c + z[i] * z[i] / delta[i] + z[ip1] * z[ip1] / delta[ip1];
  // The origin is the nearer pole: d[i] if the root is below the midpoint, else d[i+1].
  const bool orgati = w > (T)0;
  T tau, dltlb, dltub;
  if (orgati) {
    const T a = c * del + z[i] * z[i] + z[ip1] * z[ip1], b = z[i] * z[i] * del;
    tau = a > (T)0 ? (T)2 * b / (a + lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c)))
                   : (a - lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c))) / ((T)2 * c);
    dltlb = 0;
    dltub = midpt;
  } else {
    const T a = c * del - z[i] * z[i] - z[ip1] * z[ip1], b = z[ip1] * z[ip1] * del;
    tau = a < (T)0 ? (T)2 * b / (a - lf_la_sqrt(lf_la_fabs(a * a + (T)4 * b * c)))
                   : -(a + lf_la_sqrt(lf_la_fabs(a * a + (T)4 * b * c))) / ((T)2 * c);
    dltlb = -midpt;
    dltub = 0;
  }
  const T origin = orgati ? d[i] : d[ip1];
  for (int64_t j = 0; j < n; ++j) delta[j] = (d[j] - origin) - tau;
  const int64_t ii = orgati ? i : i + 1, iim1 = ii - 1, iip1 = ii + 1;
  T dpsi, dphi, erretm, dw;
  lf_la_laed4_sums(n, ii, z, delta, &psi, &dpsi, &phi, &dphi, &erretm);
  w = rhoinv + phi + psi;  // the secular function without its ii-th term
  // Three poles interpolate better when the root is on the far side of the nearer one's term.
  bool swtch3 = orgati ? w < (T)0 : w > (T)0;
  if (ii == 0 || ii == n - 1) swtch3 = false;
  auto finish = [&](T absTau) {  // the ii-th term, w, its derivative and the error bound
    T temp = z[ii] / delta[ii];
    dw = dpsi + dphi + temp * temp;
    temp = z[ii] * temp;
    w = rhoinv + phi + psi + temp;
    erretm = (T)8 * (phi - psi) + erretm + (T)2 * rhoinv + (T)3 * lf_la_fabs(temp) + absTau * dw;
  };
  finish(lf_la_fabs(tau));
  bool swtch = false;
  T prew = w;
  // One test and step, then 28 more (LAPACK's niter 2..30); the first never switches.
  for (int64_t niter = 2; niter <= 30; ++niter) {
    if (lf_la_fabs(w) <= eps * erretm) {
      *dlam = origin + tau;
      return 0;
    }
    lf_la_laed4_bracket(w, tau, &dltlb, &dltub);
    T eta;
    if (!swtch3) {
      if (!swtch) {
        c = orgati ? w - delta[ip1] * dw - (d[i] - d[ip1]) * (z[i] / delta[i]) * (z[i] / delta[i])
                   : w - delta[i] * dw -
                         (d[ip1] - d[i]) * (z[ip1] / delta[ip1]) * (z[ip1] / delta[ip1]);
      } else {
        const T temp = z[ii] / delta[ii];
        if (orgati) {
          dpsi += temp * temp;
        } else {
          dphi += temp * temp;
        }
        c = w - delta[i] * dpsi - delta[ip1] * dphi;
      }
      T a = (delta[i] + delta[ip1]) * w - delta[i] * delta[ip1] * dw;
      const T b = delta[i] * delta[ip1] * w;
      if (c == (T)0) {
        if (a == (T)0) {
          if (!swtch) {
            a = orgati ? z[i] * z[i] + delta[ip1] * delta[ip1] * (dpsi + dphi)
                       : z[ip1] * z[ip1] + delta[i] * delta[i] * (dpsi + dphi);
          } else {
            a = delta[i] * delta[i] * dpsi + delta[ip1] * delta[ip1] * dphi;
          }
        }
        eta = b / a;
      } else {
        eta = lf_la_laed_root(a, b, c);
      }
    } else {
      const T temp = rhoinv + psi + phi;
      T zz[3];
      if (swtch) {
        c = temp - delta[iim1] * dpsi - delta[iip1] * dphi;
        zz[0] = delta[iim1] * delta[iim1] * dpsi;
        zz[2] = delta[iip1] * delta[iip1] * dphi;
      } else if (orgati) {
        const T t1 = (z[iim1] / delta[iim1]) * (z[iim1] / delta[iim1]);
        c = temp - delta[iip1] * (dpsi + dphi) - (d[iim1] - d[iip1]) * t1;
        zz[0] = z[iim1] * z[iim1];
        zz[2] = delta[iip1] * delta[iip1] * ((dpsi - t1) + dphi);
      } else {
        const T t1 = (z[iip1] / delta[iip1]) * (z[iip1] / delta[iip1]);
        c = temp - delta[iim1] * (dpsi + dphi) - (d[iip1] - d[iim1]) * t1;
        zz[0] = delta[iim1] * delta[iim1] * (dpsi + (dphi - t1));
        zz[2] = z[iip1] * z[iip1];
      }
      zz[1] = z[ii] * z[ii];
      if (lf_la_laed6(niter, orgati, c, delta + iim1, zz, w, &eta) != 0) return 1;
    }
    // eta must point against w; if rounding says otherwise, take a Newton step.
    if (w * eta >= (T)0) eta = -w / dw;
    eta = lf_la_laed4_inside(w, tau, eta, dltlb, dltub);
    prew = w;
    for (int64_t j = 0; j < n; ++j) delta[j] -= eta;
    tau += eta;
    lf_la_laed4_sums(n, ii, z, delta, &psi, &dpsi, &phi, &dphi, &erretm);
    finish(lf_la_fabs(tau));
    lf_la_secular_switch(niter, orgati, w, prew, &swtch);
  }
  *dlam = origin + tau;
  return 1;
}

template <class T>
LF_DEVICE int32_t lf_la_laed4(int64_t n, int64_t i, const T* d, const T* z, T* delta, T rho,
                              T* dlam) {
  if (n == 1) {
    *dlam = d[0] + rho * z[0] * z[0];
    delta[0] = (T)1;
    return 0;
  }
  if (n == 2) {
    lf_la_laed5(i, d, z, delta, rho, dlam);
    return 0;
  }
  return i == n - 1 ? lf_la_laed4_last(n, d, z, delta, rho, dlam)
                    : lf_la_laed4_inner(n, i, d, z, delta, rho, dlam);
}
