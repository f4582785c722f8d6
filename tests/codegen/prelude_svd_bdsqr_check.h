// The harness of the lf_la_bdsqr_upper (lf_svd_bdsqr.h) tests, prelude_svd_bdsqr_test.cc (matrices
// built to take particular paths) and prelude_svd_bdsqr_random_test.cc (random ones), which check
// it against LAPACK's own sbdsqr / dbdsqr: their expected values and vectors are what LAPACK 3.12.0
// returns (the OpenBLAS build bundled with scipy 1.18, its dbdsqr_ / sbdsqr_ called through
// ctypes, since scipy.linalg.lapack does not wrap bdsqr; uplo 'U', VT and U as given, ncc = 0),
// written row-major. The vectors must match element for element, signs included: a singular
// vector's sign is the algorithm's choice, so matching it checks that the port takes LAPACK's
// steps. The values-only path (ncvt = nru = 0, where LAPACK runs dqds instead) must give the same
// values to rounding.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "codegen/prelude_test_util.h"
// clang-format off
#include "codegen/prelude/lf_svd_bdsqr.h"
// clang-format on

namespace lf_svd_bdsqr_test {

template <class T>
struct Case {
  int64_t n, ncvt, nru;
  const T *d, *e;
  const T *vtIn, *uIn;  // nullptr: the identity
  const T *sv, *vt, *u;
};

// Runs the case with padded row strides (the padding must stay untouched) and compares with
// LAPACK: values within svUlps * eps * max(sv) (eps = 2^-53 or 2^-24), vectors within vecTol.
template <class T>
void check(const Case<T>& c, double svUlps, double vecTol) {
  const int64_t n = c.n, ncvt = c.ncvt, nru = c.nru, ldvt = ncvt + 2, ldu = n + 3;
  const T pad = (T)-777;
  std::vector<T> d(c.d, c.d + n), e(c.e, c.e + (n - 1));
  std::vector<T> vt(n * ldvt, pad), u(nru * ldu, pad);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < ncvt; ++j)
      vt[i * ldvt + j] = c.vtIn ? c.vtIn[i * ncvt + j] : (T)(i == j);
  }
  for (int64_t i = 0; i < nru; ++i) {
    for (int64_t j = 0; j < n; ++j) u[i * ldu + j] = c.uIn ? c.uIn[i * n + j] : (T)(i == j);
  }
  std::vector<T> work(LF_BDSQR_WORK(n) + 1, pad);
  e.push_back(pad);  // e[n - 1] is not LAPACK's to touch either
  ASSERT_EQ(lf_la_bdsqr_upper<T>(n, ncvt, nru, d.data(), e.data(), vt.data(), ldvt, u.data(), ldu,
                                 work.data()),
            0);
  EXPECT_EQ(e[n - 1], pad);
  EXPECT_EQ(work[LF_BDSQR_WORK(n)], pad);
  double smax = 0;
  for (int64_t i = 0; i < n; ++i) smax = std::fmax(smax, std::fabs((double)c.sv[i]));
  const double svTol = svUlps * (double)lf_la_limits<T>::eps * smax;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(d[i], c.sv[i], svTol) << "sv " << i;
    if (i > 0) {
      EXPECT_GE(d[i - 1], d[i]) << i;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < ldvt; ++j) {
      if (j < ncvt) {
        EXPECT_NEAR(vt[i * ldvt + j], c.vt[i * ncvt + j], vecTol) << "vt " << i << "," << j;
      } else {
        EXPECT_EQ(vt[i * ldvt + j], pad);
      }
    }
  }
  for (int64_t i = 0; i < nru; ++i) {
    for (int64_t j = 0; j < ldu; ++j) {
      if (j < n) {
        EXPECT_NEAR(u[i * ldu + j], c.u[i * n + j], vecTol) << "u " << i << "," << j;
      } else {
        EXPECT_EQ(u[i * ldu + j], pad);
      }
    }
  }
  // The values alone: the same sweeps without the rotations of the vectors.
  std::vector<T> d2(c.d, c.d + n), e2(c.e, c.e + (n - 1)), work2(LF_BDSQR_WORK(n));
  e2.push_back((T)0);
  ASSERT_EQ(
      lf_la_bdsqr_upper<T>(n, 0, 0, d2.data(), e2.data(), nullptr, 1, nullptr, 1, work2.data()), 0);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(d2[i], c.sv[i], svTol) << "values-only sv " << i;
    EXPECT_EQ(d2[i], d[i]) << "values-only sv " << i << " differs from the vectors run";
  }
}

}  // namespace lf_svd_bdsqr_test

// The case `name` of order n with VT and U starting as the identity: its arrays k<name>D, ...E,
// ...Sv, ...Vt and ...U.
#define LF_CASE(T, name, n)                                                                 \
  lf_svd_bdsqr_test::Case<T> {                                                              \
    n, n, n, k##name##D, k##name##E, nullptr, nullptr, k##name##Sv, k##name##Vt, k##name##U \
  }
