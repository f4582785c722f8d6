// slasd4 / dlasd4 and slasd5 / dlasd5: the i-th root (0-based) sigma of the secular equation
// 1 / rho + sum_j z[j]^2 / ((d[j] - sigma) (d[j] + sigma)) = 0, that is the i-th singular value
// of the rank-one update diag(d)^2 + rho z z^T (0 <= d[0] < d[1] < ..., |z| = 1, rho > 0), the
// zero finder of the bidiagonal SVD's divide and conquer (lasd3 calls it once per root). Ren-Cang
// Li's middle-way method as in laed4 (lf_stedc_laed4.h), but iterating on sigma itself: each
// step solves for a change of sigma^2 (by rational interpolation of the two nearest poles, or of
// three through laed6) and turns it into the change of sigma, so sigma keeps its relative
// accuracy. On return delta[j] = d[j] - sigma and work[j] = d[j] + sigma, updated step by step
// from the nearer pole (the singular vectors' formula needs both products to full accuracy).
//
// A statement-for-statement port of dlasd4 as Reference LAPACK 3.11 has it (Debian's liblapack3,
// the test's oracle, and still the repository's SRC/dlasd4.f): MAXIT 400, the error bound without
// the |tau2| dw term (commented out in LAPACK), and the GEOMAVG fallback (geometric rather than
// arithmetic bisection when d[i] and z[i] are tiny next to d[i+1]). The order of the floating
// point operations is LAPACK's, so the roots, and the singular vectors' signs, are LAPACK's, to
// the bit as long as lf_la_laed6 is the same LAPACK's dlaed6 (its stopping test decides the
// three-pole steps). Uses lf_la_laed6 and lf_la_laed_root (lf_stedc.h), included before this
// (pasted in place by preludeText).
#pragma once

// slasd5: root i (0 or 1) for n = 2, in closed form; delta and work as lf_la_lasd4's.
template <class T>
LF_DEVICE void lf_la_lasd5(int64_t i, const T* d, const T* z, T* delta, T rho, T* dsigma, T* work) {
  const T del = d[1] - d[0];
  const T delsq = del * (d[1] + d[0]);
  T b, c, tau;
  if (i == 0) {
    const T w =
        (T)1 + (T)4 * rho *
                   (z[1] * z[1] / (d[0] + (T)3 * d[1]) - z[0] * z[0] / ((T)3 * d[0] + d[1])) / del;
    if (w > (T)0) {
      // The root is below the midpoint: from d[0], where tau (sigma^2 - d[0]^2) is positive.
      b = delsq + rho * (z[0] * z[0] + z[1] * z[1]);
      c = rho * z[0] * z[0] * delsq;
      tau = (T)2 * c / (b + lf_la_sqrt(lf_la_fabs(b * b - (T)4 * c)));
      tau = tau / (d[0] + lf_la_sqrt(d[0] * d[0] + tau));  // now sigma - d[0]
      *dsigma = d[0] + tau;
      delta[0] = -tau;
      delta[1] = del - tau;
      work[0] = (T)2 * d[0] + tau;
      work[1] = (d[0] + tau) + d[1];
      return;
    }
    // Above the midpoint: from d[1], tau negative.
    b = -delsq + rho * (z[0] * z[0] + z[1] * z[1]);
    c = rho * z[1] * z[1] * delsq;
    tau = b > (T)0 ? -(T)2 * c / (b + lf_la_sqrt(b * b + (T)4 * c))
                   : (b - lf_la_sqrt(b * b + (T)4 * c)) / (T)2;
    tau = tau / (d[1] + lf_la_sqrt(lf_la_fabs(d[1] * d[1] + tau)));
  } else {
    // The larger root, above d[1].
    b = -delsq + rho * (z[0] * z[0] + z[1] * z[1]);
    c = rho * z[1] * z[1] * delsq;
    tau = b > (T)0 ? (b + lf_la_sqrt(b * b + (T)4 * c)) / (T)2
                   : (T)2 * c / (-b + lf_la_sqrt(b * b + (T)4 * c));
    tau = tau / (d[1] + lf_la_sqrt(d[1] * d[1] + tau));
  }
  *dsigma = d[1] + tau;
  delta[0] = -(del + tau);
  delta[1] = -tau;
  work[0] = d[0] + tau + d[1];
  work[1] = (T)2 * d[1] + tau;
}

// psi (the poles below ii) and phi (those above) of the secular function at the current sigma,
// their derivatives (in sigma^2), and the running sum of the partial sums that bounds their
// rounding error (erretm). The ii-th term is left out: the caller adds it.
template <class T>
LF_DEVICE void lf_la_lasd4_sums(int64_t n, int64_t ii, const T* z, const T* delta, const T* work,
                                T* psi, T* dpsi, T* phi, T* dphi, T* erretm) {
  *psi = 0;
  *dpsi = 0;
  *erretm = 0;
  for (int64_t j = 0; j < ii; ++j) {
    const T temp = z[j] / (work[j] * delta[j]);
    *psi += z[j] * temp;
    *dpsi += temp * temp;
    *erretm += *psi;
  }
  *erretm = lf_la_fabs(*erretm);
  *phi = 0;
  *dphi = 0;
  for (int64_t j = n - 1; j > ii; --j) {
    const T temp = z[j] / (work[j] * delta[j]);
    *phi += z[j] * temp;
    *dphi += temp * temp;
    *erretm += *phi;
  }
}

// sigma, delta and work move by eta (sigma's change), tau (sigma - origin) with them.
template <class T>
LF_DEVICE void lf_la_lasd4_move(int64_t n, T eta, T* tau, T* sigma, T* delta, T* work) {
  *tau += eta;
  *sigma += eta;
  for (int64_t j = 0; j < n; ++j) {
    delta[j] -= eta;
    work[j] += eta;
  }
}

// The largest root (i == n - 1): sigma^2 lies in (d[n-1]^2, d[n-1]^2 + rho].
template <class T>
LF_DEVICE int32_t lf_la_lasd4_last(int64_t n, const T* d, const T* z, T* delta, T rho, T* sigma,
                                   T* work) {
  const T eps = lf_la_limits<T>::eps, rhoinv = (T)1 / rho;
  const int64_t i = n - 1, im1 = n - 2;
  // The initial guess: the secular function at sigma^2 = d[n-1]^2 + rho / 2 says which half.
  T temp = rho / (T)2;
  T temp1 = temp / (d[i] + lf_la_sqrt(d[i] * d[i] + temp));
  for (int64_t j = 0; j < n; ++j) {
    work[j] = d[j] + d[i] + temp1;
    delta[j] = (d[j] - d[i]) - temp1;
  }
  T psi = 0;
  for (int64_t j = 0; j < n - 2; ++j) psi += z[j] * z[j] / (delta[j] * work[j]);
  T c = rhoinv + psi;
  T w = c + z[im1] * z[im1] / (delta[im1] * work[im1]) + z[i] * z[i] / (delta[i] * work[i]);
  // tau2 approximates sigma^2 - d[n-1]^2 by the two last poles' rational interpolation.
  auto guess = [&]() {
    const T delsq = (d[i] - d[im1]) * (d[i] + d[im1]);
    const T a = -c * delsq + z[im1] * z[im1] + z[i] * z[i];
    const T b = z[i] * z[i] * delsq;
    const T tau2 = a < (T)0 ? (T)2 * b / (lf_la_sqrt(a * a + (T)4 * b * c) - a)
                            : (a + lf_la_sqrt(a * a + (T)4 * b * c)) / ((T)2 * c);
    return tau2 / (d[i] + lf_la_sqrt(d[i] * d[i] + tau2));  // sigma - d[n-1]
  };
  T tau;
  if (w <= (T)0) {
    temp1 = lf_la_sqrt(d[i] * d[i] + rho);
    temp = z[im1] * z[im1] / ((d[im1] + temp1) * (d[i] - d[im1] + rho / (d[i] + temp1))) +
           z[i] * z[i] / rho;
    // d[n-1]^2 + rho / 2 <= sigma^2 < d[n-1]^2 + tau2 <= d[n-1]^2 + rho. (LAPACK takes tau = rho
    // here, a change of sigma^2 where one of sigma is meant: kept, for the same iterates.)
    tau = c <= temp ? rho : guess();
  } else {
    tau = guess();  // d[n-1]^2 < d[n-1]^2 + tau2 < sigma^2 < d[n-1]^2 + rho / 2
  }
  *sigma = d[i] + tau;
  for (int64_t j = 0; j < n; ++j) {
    delta[j] = (d[j] - d[i]) - tau;
    work[j] = d[j] + d[i] + tau;
  }
  T dpsi, phi, dphi, erretm;
  auto evaluate = [&]() {
    lf_la_lasd4_sums(n, i, z, delta, work, &psi, &dpsi, &phi, &dphi, &erretm);
    temp = z[i] / (work[i] * delta[i]);
    phi = z[i] * temp;
    dphi = temp * temp;
    erretm = (T)8 * (-phi - psi) + erretm - phi + rhoinv;
    w = rhoinv + phi + psi;
  };
  evaluate();
  // One test and step per LAPACK niter 2..MAXIT (400); the first step differs in its guards.
  for (int64_t niter = 2; niter <= 400; ++niter) {
    if (lf_la_fabs(w) <= eps * erretm) return 0;
    const T dtnsq1 = work[im1] * delta[im1], dtnsq = work[i] * delta[i];
    c = w - dtnsq1 * dpsi - dtnsq * dphi;
    const T a = (dtnsq + dtnsq1) * w - dtnsq * dtnsq1 * (dpsi + dphi);
    const T b = dtnsq * dtnsq1 * w;
    const bool first = niter == 2;
    if (first && c < (T)0) c = lf_la_fabs(c);
    T eta;
    if (first && c == (T)0) {
      eta = rho - *sigma * *sigma;
    } else if (a >= (T)0) {
      eta = (a + lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c))) / ((T)2 * c);
    } else {
      eta = (T)2 * b / (a - lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c)));
    }
    // eta must point against w; if rounding says otherwise, take a Newton step.
    if (w * eta > (T)0) eta = -w / (dpsi + dphi);
    // Keep sigma^2 within d[n-1]^2 + rho (first step), else above d[n-1]^2.
    temp = eta - dtnsq;
    if (first && temp > rho) eta = rho + dtnsq;
    if (!first && temp <= (T)0) eta = eta / (T)2;
    eta = eta / (*sigma + lf_la_sqrt(eta + *sigma * *sigma));  // the change of sigma
    lf_la_lasd4_move(n, eta, &tau, sigma, delta, work);
    evaluate();
  }
  return 1;
}

// One step of the two-pole interpolation (poles i and i + 1) for the change of sigma^2; swtch
// interpolates psi and phi separately (folding the ii-th term's derivative into the origin's
// side, as LAPACK does in place).
template <class T>
LF_DEVICE T lf_la_lasd4_two(int64_t i, int64_t ii, bool orgati, bool swtch, const T* z,
                            const T* delta, const T* work, T delsq, T w, T dw, T* dpsi, T* dphi) {
  const int64_t ip1 = i + 1;
  const T dtipsq = work[ip1] * delta[ip1], dtisq = work[i] * delta[i];
  T c;
  if (!swtch) {
    c = orgati ? w - dtipsq * dw + delsq * ((z[i] / dtisq) * (z[i] / dtisq))
               : w - dtisq * dw - delsq * ((z[ip1] / dtipsq) * (z[ip1] / dtipsq));
  } else {
    const T temp = z[ii] / (work[ii] * delta[ii]);
    if (orgati) {
      *dpsi += temp * temp;
    } else {
      *dphi += temp * temp;
    }
    c = w - dtisq * *dpsi - dtipsq * *dphi;
  }
  T a = (dtipsq + dtisq) * w - dtipsq * dtisq * dw;
  const T b = dtipsq * dtisq * w;
  if (c == (T)0 && a == (T)0) {
    if (!swtch) {
      a = orgati ? z[i] * z[i] + dtipsq * dtipsq * (*dpsi + *dphi)
                 : z[ip1] * z[ip1] + dtisq * dtisq * (*dpsi + *dphi);
    } else {
      a = dtisq * dtisq * *dpsi + dtipsq * dtipsq * *dphi;
    }
  }
  return lf_la_laed_root(a, b, c);  // b / a when c == 0
}

// A root strictly between d[i] and d[i+1] (i < n - 1).
template <class T>
LF_DEVICE int32_t lf_la_lasd4_inner(int64_t n, int64_t i, const T* d, const T* z, T* delta, T rho,
                                    T* sigma, T* work) {
  const T eps = lf_la_limits<T>::eps, rhoinv = (T)1 / rho;
  const int64_t ip1 = i + 1;
  // The initial guess: the secular function at the midpoint of d[i]^2 and d[i+1]^2.
  const T delsq = (d[ip1] - d[i]) * (d[ip1] + d[i]);
  const T delsq2 = delsq / (T)2;
  const T sq2 = lf_la_sqrt((d[i] * d[i] + d[ip1] * d[ip1]) / (T)2);
  T temp = delsq2 / (d[i] + sq2);
  for (int64_t j = 0; j < n; ++j) {
    work[j] = d[j] + d[i] + temp;
    delta[j] = (d[j] - d[i]) - temp;
  }
  T psi = 0, phi = 0;
  for (int64_t j = 0; j < i; ++j) psi += z[j] * z[j] / (work[j] * delta[j]);
  for (int64_t j = n - 1; j > i + 1; --j) phi += z[j] * z[j] / (work[j] * delta[j]);
  T c = rhoinv + psi + phi;
  T w = c + z[i] * z[i] / (work[i] * delta[i]) + z[ip1] * z[ip1] / (work[ip1] * delta[ip1]);
  // The origin is the nearer pole: d[i] if the root is below the midpoint, else d[i+1]. The
  // bracket [sglb, sgub] and tau are offsets of sigma from it.
  const bool orgati = w > (T)0;
  bool geomavg = false;
  T sglb, sgub, tau;
  if (orgati) {
    sglb = 0;
    sgub = delsq2 / (d[i] + sq2);
    const T a = c * delsq + z[i] * z[i] + z[ip1] * z[ip1], b = z[i] * z[i] * delsq;
    const T tau2 = a > (T)0 ? (T)2 * b / (a + lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c)))
                            : (a - lf_la_sqrt(lf_la_fabs(a * a - (T)4 * b * c))) / ((T)2 * c);
    tau = tau2 / (d[i] + lf_la_sqrt(d[i] * d[i] + tau2));
    // A tiny d[i] with a tiny z[i]: the root may be many orders of magnitude above d[i], where
    // halving the bracket crawls; start at 10 d[i] and bisect geometrically.
    temp = lf_la_sqrt(eps);
    if (d[i] <= temp * d[ip1] && lf_la_fabs(z[i]) <= temp && d[i] > (T)0) {
      tau = (T)10 * d[i] < sgub ? (T)10 * d[i] : sgub;
      geomavg = true;
    }
  } else {
    sglb = -delsq2 / (d[ip1] + sq2);
    sgub = 0;
    const T a = c * delsq - z[i] * z[i] - z[ip1] * z[ip1], b = z[ip1] * z[ip1] * delsq;
    const T tau2 = a < (T)0 ? (T)2 * b / (a - lf_la_sqrt(lf_la_fabs(a * a + (T)4 * b * c)))
                            : -(a + lf_la_sqrt(lf_la_fabs(a * a + (T)4 * b * c))) / ((T)2 * c);
    tau = tau2 / (d[ip1] + lf_la_sqrt(lf_la_fabs(d[ip1] * d[ip1] + tau2)));
  }
  const int64_t ii = orgati ? i : ip1, iim1 = ii - 1, iip1 = ii + 1;
  *sigma = d[ii] + tau;
  for (int64_t j = 0; j < n; ++j) {
    work[j] = d[j] + d[ii] + tau;
    delta[j] = (d[j] - d[ii]) - tau;
  }
  T dpsi, dphi, erretm, dw;
  lf_la_lasd4_sums(n, ii, z, delta, work, &psi, &dpsi, &phi, &dphi, &erretm);
  w = rhoinv + phi + psi;  // the secular function without its ii-th term
  // Three poles interpolate better when the root is on the far side of the nearer one's term.
  bool swtch3 = orgati ? w < (T)0 : w > (T)0;
  if (ii == 0 || ii == n - 1) swtch3 = false;
  temp = z[ii] / (work[ii] * delta[ii]);
  dw = dpsi + dphi + temp * temp;
  temp = z[ii] * temp;
  w = w + temp;
  erretm = (T)8 * (phi - psi) + erretm + (T)2 * rhoinv + (T)3 * lf_la_fabs(temp);
  bool swtch = false;
  T prew = w;
  // One test and step per LAPACK niter 2..MAXIT (400); the first step never switches.
  for (int64_t niter = 2; niter <= 400; ++niter) {
    if (lf_la_fabs(w) <= eps * erretm) return 0;
    if (w <= (T)0) {
      sglb = sglb > tau ? sglb : tau;
    } else {
      sgub = sgub < tau ? sgub : tau;
    }
    T eta = 0;
    if (swtch3) {
      const T dtiim = work[iim1] * delta[iim1], dtiip = work[iip1] * delta[iip1];
      temp = rhoinv + psi + phi;
      T zz[3], dd[3];
      if (swtch) {
        c = temp - dtiim * dpsi - dtiip * dphi;
        zz[0] = dtiim * dtiim * dpsi;
        zz[2] = dtiip * dtiip * dphi;
      } else if (orgati) {
        const T temp1 = (z[iim1] / dtiim) * (z[iim1] / dtiim);
        const T temp2 = (d[iim1] - d[iip1]) * (d[iim1] + d[iip1]) * temp1;
        c = temp - dtiip * (dpsi + dphi) - temp2;
        zz[0] = z[iim1] * z[iim1];
        zz[2] = dpsi < temp1 ? dtiip * dtiip * dphi : dtiip * dtiip * ((dpsi - temp1) + dphi);
      } else {
        const T temp1 = (z[iip1] / dtiip) * (z[iip1] / dtiip);
        const T temp2 = (d[iip1] - d[iim1]) * (d[iim1] + d[iip1]) * temp1;
        c = temp - dtiim * (dpsi + dphi) - temp2;
        zz[0] = dphi < temp1 ? dtiim * dtiim * dpsi : dtiim * dtiim * (dpsi + (dphi - temp1));
        zz[2] = z[iip1] * z[iip1];
      }
      zz[1] = z[ii] * z[ii];
      dd[0] = dtiim;
      dd[1] = delta[ii] * work[ii];
      dd[2] = dtiip;
      // laed6 failing sends this and every later step back to two poles.
      if (lf_la_laed6(niter, orgati, c, dd, zz, w, &eta) != 0) swtch3 = false;
    }
    if (!swtch3)
      eta = lf_la_lasd4_two(i, ii, orgati, swtch, z, delta, work, delsq, w, dw, &dpsi, &dphi);
    // eta must point against w; if rounding says otherwise, take a Newton step.
    if (w * eta >= (T)0) eta = -w / dw;
    eta = eta / (*sigma + lf_la_sqrt(*sigma * *sigma + eta));  // the change of sigma
    // A step out of the bracket becomes a bisection toward the side w points to (geometric for
    // geomavg, when the bound it keeps is positive).
    temp = tau + eta;
    if (temp > sgub || temp < sglb) {
      eta = w < (T)0 ? (sgub - tau) / (T)2 : (sglb - tau) / (T)2;
      if (geomavg) {
        if (w < (T)0) {
          if (tau > (T)0) eta = lf_la_sqrt(sgub * tau) - tau;
        } else {
          if (sglb > (T)0) eta = lf_la_sqrt(sglb * tau) - tau;
        }
      }
    }
    prew = w;
    lf_la_lasd4_move(n, eta, &tau, sigma, delta, work);
    lf_la_lasd4_sums(n, ii, z, delta, work, &psi, &dpsi, &phi, &dphi, &erretm);
    const T tau2 = work[ii] * delta[ii];
    temp = z[ii] / tau2;
    dw = dpsi + dphi + temp * temp;
    temp = z[ii] * temp;
    w = rhoinv + phi + psi + temp;
    erretm = (T)8 * (phi - psi) + erretm + (T)2 * rhoinv + (T)3 * lf_la_fabs(temp);
    lf_la_secular_switch(niter, orgati, w, prew, &swtch);
  }
  return 1;
}

// slasd4 / dlasd4 (i 0-based). Returns 0, or 1 if MAXIT steps did not converge (sigma, delta
// and work are then the last iterate's).
template <class T>
LF_DEVICE int32_t lf_la_lasd4(int64_t n, int64_t i, const T* d, const T* z, T* delta, T rho,
                              T* sigma, T* work) {
  if (n == 1) {
    *sigma = lf_la_sqrt(d[0] * d[0] + rho * z[0] * z[0]);
    delta[0] = (T)1;
    work[0] = (T)1;
    return 0;
  }
  if (n == 2) {
    lf_la_lasd5(i, d, z, delta, rho, sigma, work);
    return 0;
  }
  return i == n - 1 ? lf_la_lasd4_last(n, d, z, delta, rho, sigma, work)
                    : lf_la_lasd4_inner(n, i, d, z, delta, rho, sigma, work);
}
