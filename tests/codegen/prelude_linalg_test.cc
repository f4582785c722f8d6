// The LAPACK ports of lf_linalg.h on matrices small enough to work out by hand (each step below is
// the LAPACK routine's arithmetic), and the properties every result must have: Q orthonormal,
// Q R = A, V diag(w) V^T = A, eigenvalues ascending.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "codegen/prelude_test_util.h"

namespace {

const double kR = std::sqrt(0.5);

TEST(PreludeLinalg, LartgFollowsLapack310Signs) {
  // c >= 0 always and r has f's sign (LAPACK 3.10's la_xlartg; older versions differed).
  double c = 0, s = 0, r = 0;
  lf_la_lartg(3.0, 4.0, &c, &s, &r);
  EXPECT_DOUBLE_EQ(c, 0.6);
  EXPECT_DOUBLE_EQ(s, 0.8);
  EXPECT_DOUBLE_EQ(r, 5.0);
  lf_la_lartg(-3.0, 4.0, &c, &s, &r);
  EXPECT_DOUBLE_EQ(c, 0.6);
  EXPECT_DOUBLE_EQ(s, -0.8);
  EXPECT_DOUBLE_EQ(r, -5.0);
  lf_la_lartg(0.0, -2.0, &c, &s, &r);
  EXPECT_EQ(c, 0.0);
  EXPECT_EQ(s, -1.0);
  EXPECT_EQ(r, 2.0);
  lf_la_lartg(1e-300, 1e-300, &c, &s, &r);  // the scaled branch
  EXPECT_NEAR(c, kR, 1e-15);
  EXPECT_NEAR(r, 1e-300 * std::sqrt(2.0), 1e-314);
}

TEST(PreludeLinalg, Laev2OfATwoByTwo) {
  // [2 1; 1 2]: rt1 = 3, rt2 = 1; cs = df + rt = 2 is not > |2b| = 2, so tn = -cs / 2b = -1,
  // (cs1, sn1) = (r, -r), then swapped (sgn1 = sgn2 = 1) to (r, r).
  double rt1 = 0, rt2 = 0, cs = 0, sn = 0;
  lf_la_laev2(2.0, 1.0, 2.0, &rt1, &rt2, &cs, &sn);
  EXPECT_DOUBLE_EQ(rt1, 3.0);
  EXPECT_DOUBLE_EQ(rt2, 1.0);
  EXPECT_NEAR(cs, kR, 2e-16);  // 1 / sqrt(2) rounds below sqrt(0.5)
  EXPECT_NEAR(sn, kR, 2e-16);
}

TEST(PreludeLinalg, GeqrfAndOrgqrOfOneColumn) {
  // larfg(2, alpha = 3, x = 4): beta = -sign(5, 3) = -5, tau = (beta - alpha) / beta = 1.6,
  // v = (1, 4 / (alpha - beta)) = (1, 0.5). Q = I - 1.6 v v^T = [-0.6 -0.8; -0.8 0.6].
  double a[2] = {3.0, 4.0};
  double tau[1] = {0};
  lf_geqrf(a, 2, 1, tau);
  EXPECT_DOUBLE_EQ(a[0], -5.0);
  EXPECT_DOUBLE_EQ(a[1], 0.5);
  EXPECT_DOUBLE_EQ(tau[0], 1.6);
  double q[4] = {a[0], 0.0, a[1], 0.0};  // the complete Q: the reflectors padded to 2 x 2
  lf_orgqr(q, 2, 2, 1, tau);
  const double expected[4] = {-0.6, -0.8, -0.8, 0.6};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(q[i], expected[i], 1e-15) << i;
}

TEST(PreludeLinalg, GeqrfOfAZeroColumnHasNoReflector) {
  double a[4] = {0.0, 1.0, 0.0, 2.0};  // [0 1; 0 2]
  double tau[2] = {-1, -1};
  lf_geqrf(a, 2, 2, tau);
  EXPECT_EQ(tau[0], 0.0);  // x = 0: H = I, R's first column stays (0, 0)
  EXPECT_EQ(a[0], 0.0);
  EXPECT_EQ(tau[1], 0.0);  // one row left: no reflector either
}

// Q R = A and Q^T Q = I for a 4 x 3 matrix, f32 and f64.
template <class T>
void checkQr(double tol) {
  const int m = 4, n = 3;
  const double src[m * n] = {2, -1, 0.5, 1, 3, -2, -1, 0.25, 4, 0.5, 1, 1};
  std::vector<T> a(src, src + m * n), tau(n);
  lf_geqrf(a.data(), m, n, tau.data());
  std::vector<T> q = a;
  lf_orgqr(q.data(), m, n, n, tau.data());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double qr = 0;
      for (int k = 0; k <= j; ++k) qr += double(q[i * n + k]) * double(a[k * n + j]);
      EXPECT_NEAR(qr, src[i * n + j], tol) << i << "," << j;
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double dot = 0;
      for (int k = 0; k < m; ++k) dot += double(q[k * n + i]) * double(q[k * n + j]);
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol) << i << "," << j;
    }
  }
}

TEST(PreludeLinalg, QrReconstructsF32) { checkQr<float>(1e-5); }
TEST(PreludeLinalg, QrReconstructsF64) { checkQr<double>(1e-13); }

TEST(PreludeLinalg, SyevdOfATwoByTwoHasLapacksSigns) {
  // sytd2 leaves [2 1; 1 2] as it is (tau = 0); steqr's 2 x 2 block rotates the identity by
  // laev2's (r, r): Z = [r -r; r r] for (3, 1); the sort swaps to w = (1, 3), Z = [-r r; r r]
  // (what jnp.linalg.eigh gives).
  double a[4] = {2.0, 1.0, 1.0, 2.0};
  double w[2] = {0, 0};
  double work[LF_SYEVD_WORK(2)];
  int32_t iwork[LF_SYEVD_IWORK(2)];
  EXPECT_EQ(lf_syevd_lower(a, 2, w, work, iwork), 0);
  EXPECT_DOUBLE_EQ(w[0], 1.0);
  EXPECT_DOUBLE_EQ(w[1], 3.0);
  const double expected[4] = {-kR, kR, kR, kR};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(a[i], expected[i], 1e-15) << i;
}

TEST(PreludeLinalg, SyevdOfOneElementAndOfADiagonal) {
  double one[1] = {-4.0}, w1[1] = {0};
  double work[LF_SYEVD_WORK(3)];
  int32_t iwork[LF_SYEVD_IWORK(3)];
  EXPECT_EQ(lf_syevd_lower(one, 1, w1, work, iwork), 0);
  EXPECT_EQ(w1[0], -4.0);
  EXPECT_EQ(one[0], 1.0);
  // diag(3, -1, 2): every e is 0, so each value is its own block; the selection sort swaps
  // columns 0 and 1, then 1 and 2: w = (-1, 2, 3), V = the matching unit vectors.
  double d[9] = {3, 0, 0, 0, -1, 0, 0, 0, 2}, w[3] = {0, 0, 0};
  EXPECT_EQ(lf_syevd_lower(d, 3, w, work, iwork), 0);
  EXPECT_EQ(w[0], -1.0);
  EXPECT_EQ(w[1], 2.0);
  EXPECT_EQ(w[2], 3.0);
  const double expected[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(d[i], expected[i]) << i;
}

// V diag(w) V^T = A, V orthonormal and w ascending for a 5 x 5 symmetric matrix of which only
// the lower triangle is passed (the upper one holds garbage that must not be read).
template <class T>
void checkSyevd(double tol) {
  const int n = 5;
  const double lower[n * n] = {4, 0, 0,  0,   0, 1, -2, 0, 0,  0,   0.5, 3, 1,
                               0, 0, -1, 0.2, 2, 5, 0,  2, -3, 0.7, 1,   -1};
  std::vector<T> a(lower, lower + n * n), w(n), work(LF_SYEVD_WORK(n));
  std::vector<int32_t> iwork(LF_SYEVD_IWORK(n));
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) a[i * n + j] = T(1e3);
  }
  EXPECT_EQ(lf_syevd_lower(a.data(), n, w.data(), work.data(), iwork.data()), 0);
  for (int i = 0; i + 1 < n; ++i) EXPECT_LE(w[i], w[i + 1]);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double rebuilt = 0, dot = 0;
      for (int k = 0; k < n; ++k) {
        rebuilt += double(a[i * n + k]) * double(w[k]) * double(a[j * n + k]);
        dot += double(a[k * n + i]) * double(a[k * n + j]);
      }
      EXPECT_NEAR(rebuilt, lower[i * n + j], tol * 10) << i << "," << j;
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol) << i << "," << j;
    }
  }
}

TEST(PreludeLinalg, SyevdReconstructsF32) { checkSyevd<float>(1e-5); }
TEST(PreludeLinalg, SyevdReconstructsF64) { checkSyevd<double>(1e-13); }

TEST(PreludeLinalg, SyevdScalesTinyAndHugeMatrices) {
  // Far outside [rmin, rmax] syevd scales the matrix and its eigenvalues back: diag(1, 2) times
  // 1e-200 and 1e200 keeps its eigenvalues to the last bits.
  for (double scale : {1e-200, 1e200}) {
    double a[4] = {2 * scale, 0, 0, 1 * scale}, w[2] = {0, 0};
    double work[LF_SYEVD_WORK(2)];
    int32_t iwork[LF_SYEVD_IWORK(2)];
    EXPECT_EQ(lf_syevd_lower(a, 2, w, work, iwork), 0);
    EXPECT_NEAR(w[0] / scale, 1.0, 1e-15);
    EXPECT_NEAR(w[1] / scale, 2.0, 1e-15);
  }
}

TEST(PreludeLinalg, SteqrReportsNoConvergenceOnNaN) {
  // A NaN never passes the splitting tests, so the iteration runs out (30 n sweeps) and info
  // counts the off-diagonal elements left: LAPACK's answer, which JAX turns into NaN results.
  double d[3] = {1.0, NAN, 2.0}, e[2] = {0.5, 0.5}, z[9], work[4];
  EXPECT_GT(lf_la_steqr(3, d, e, z, work), 0);
}

}  // namespace
