// The divide and conquer of lf_stedc.h (LAPACK's stedc above 25 rows) on tridiagonals chosen to
// take each of its paths: no deflation, deflation of small z components (blocks that barely
// couple), of equal eigenvalues (identical blocks: laed2's rotations and its column types 2 and
// 4), splits at zero off-diagonals into blocks above and below 25 rows. The oracle is the
// definition: T Z = Z diag(w) with Z orthonormal and w ascending, and w equal to the eigenvalues
// that QL/QR iteration (steqr, an independent algorithm) finds for the same matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "codegen/prelude_test_util.h"
#include "plan/plan.h"

namespace {

template <class T>
struct Tridiagonal {
  std::vector<T> d, e;
};

// max |T Z - Z diag(w)| and max |Z^T Z - I|, in double.
template <class T>
void expectEigensystem(const Tridiagonal<T>& t, const std::vector<T>& w, const std::vector<T>& z,
                       double tol, const char* what) {
  const int64_t n = static_cast<int64_t>(t.d.size());
  double scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::fabs(double(t.d[i])));
    if (i + 1 < n) scale = std::max(scale, std::fabs(double(t.e[i])));
  }
  for (int64_t i = 0; i + 1 < n; ++i) EXPECT_LE(w[i], w[i + 1]) << what << " at " << i;
  double residual = 0, orthogonality = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < n; ++i) {
      double tz = double(t.d[i]) * double(z[i * n + j]);
      if (i > 0) tz += double(t.e[i - 1]) * double(z[(i - 1) * n + j]);
      if (i + 1 < n) tz += double(t.e[i]) * double(z[(i + 1) * n + j]);
      residual = std::max(residual, std::fabs(tz - double(w[j]) * double(z[i * n + j])));
    }
    for (int64_t k = 0; k <= j; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += double(z[i * n + j]) * double(z[i * n + k]);
      orthogonality = std::max(orthogonality, std::fabs(dot - (j == k ? 1.0 : 0.0)));
    }
  }
  EXPECT_LE(residual, tol * std::max(scale, 1e-300)) << what << " (n = " << n << ")";
  EXPECT_LE(orthogonality, tol) << what << " (n = " << n << ")";
}

// stedc's eigensystem, checked against the definition and against steqr's eigenvalues.
template <class T>
void checkStedc(const Tridiagonal<T>& t, double tol, const char* what) {
  const int64_t n = static_cast<int64_t>(t.d.size());
  std::vector<T> d = t.d, e = t.e, z(n * n), work(LF_STEDC_WORK(n));
  std::vector<int32_t> iwork(LF_STEDC_IWORK(n));
  e.push_back(T(0));
  ASSERT_EQ(lf_la_stedc(n, d.data(), e.data(), z.data(), work.data(), iwork.data()), 0) << what;
  expectEigensystem(t, d, z, tol, what);
  std::vector<T> qd = t.d, qe = t.e, qz(n * n), qwork(2 * n);
  qe.push_back(T(0));
  ASSERT_EQ(lf_la_steqr(n, qd.data(), qe.data(), qz.data(), qwork.data()), 0) << what;
  double scale = 1e-300;
  for (const T& x : qd) scale = std::max(scale, std::fabs(double(x)));
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(double(d[i]), double(qd[i]), tol * scale) << what << ": eigenvalue " << i;
  }
}

template <class T>
Tridiagonal<T> randomTridiagonal(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Tridiagonal<T> t;
  for (int64_t i = 0; i < n; ++i) t.d.push_back(T(normal(rng)));
  for (int64_t i = 0; i + 1 < n; ++i) t.e.push_back(T(normal(rng)));
  return t;
}

TEST(PreludeStedc, RandomTridiagonalsF64) {
  for (int64_t n : {26, 27, 40, 51, 64, 100, 160}) {
    checkStedc(randomTridiagonal<double>(n, static_cast<unsigned>(n)), 4e-14 * std::sqrt(n),
               "random");
  }
}

TEST(PreludeStedc, RandomTridiagonalsF32) {
  for (int64_t n : {26, 33, 64, 100}) {
    checkStedc(randomTridiagonal<float>(n, static_cast<unsigned>(n) + 7), 2e-6 * std::sqrt(n),
               "random f32");
  }
}

TEST(PreludeStedc, IdenticalBlocksDeflateEqualEigenvalues) {
  // Three copies of one 20-row block joined by off-diagonals of 1e-9 (not small enough for
  // stedc to split there): every eigenvalue is (nearly) triple, and the merges deflate them by
  // rotation (laed2's close-eigenvalue test) or by small z components.
  const Tridiagonal<double> block = randomTridiagonal<double>(20, 3);
  Tridiagonal<double> t;
  for (int copy = 0; copy < 3; ++copy) {
    t.d.insert(t.d.end(), block.d.begin(), block.d.end());
    t.e.insert(t.e.end(), block.e.begin(), block.e.end());
    if (copy < 2) t.e.push_back(1e-9);
  }
  checkStedc(t, 1e-13, "identical blocks");
}

TEST(PreludeStedc, WilkinsonMatrixHasCloseEigenvaluePairs) {
  // W+ of 61 rows: d = |i - 30|, e = 1; its largest eigenvalues come in pairs that agree to
  // many digits, the classic test of the deflation by rotation.
  Tridiagonal<double> t;
  for (int i = 0; i < 61; ++i) t.d.push_back(std::fabs(i - 30.0));
  t.e.assign(60, 1.0);
  checkStedc(t, 1e-13, "Wilkinson W+61");
}

TEST(PreludeStedc, SplitsAtZeroOffDiagonals) {
  // Zero off-diagonals split the matrix: blocks of 30 and 40 rows (divide and conquer, each
  // scaled to norm 1 and back), one of 10 (steqr) and a 1 x 1; then the global sort.
  Tridiagonal<double> t = randomTridiagonal<double>(81, 11);
  t.e[29] = 0;
  t.e[69] = 0;
  t.e[79] = 0;
  for (double& x : t.d) x *= 1e3;
  checkStedc(t, 1e-13, "split");
}

TEST(PreludeStedc, ConstantDiagonalAndTinyCoupling) {
  // d all 2, e all 1: the eigenvalues 2 + 2 cos(k pi / (n + 1)), known in closed form.
  const int64_t n = 50;
  Tridiagonal<double> t;
  t.d.assign(n, 2.0);
  t.e.assign(n - 1, 1.0);
  checkStedc(t, 1e-13, "toeplitz");
  std::vector<double> d = t.d, e = t.e, z(n * n), work(LF_STEDC_WORK(n));
  std::vector<int32_t> iwork(LF_STEDC_IWORK(n));
  e.push_back(0);
  ASSERT_EQ(lf_la_stedc(n, d.data(), e.data(), z.data(), work.data(), iwork.data()), 0);
  const double pi = std::acos(-1.0);
  for (int64_t k = 1; k <= n; ++k) {
    EXPECT_NEAR(d[k - 1], 2.0 + 2.0 * std::cos(double(n + 1 - k) * pi / double(n + 1)), 1e-13);
  }
  // Two halves coupled at the cut (after row 20) by 4e-16: above stedc's splitting threshold
  // (eps |d19 d20|^(1/2) = 1.1e-16), below laed2's deflation tolerance (8 eps max |d|), so the
  // merge only sorts (laed2's early exit).
  Tridiagonal<double> halves = randomTridiagonal<double>(40, 5);
  halves.d[19] = halves.d[20] = 1.0;
  halves.e[19] = 4e-16;
  checkStedc(halves, 1e-14, "barely coupled halves");
}

TEST(PreludeStedc, ZeroMatrixGivesTheIdentity) {
  const int64_t n = 30;
  std::vector<double> d(n, 0.0), e(n, 0.0), z(n * n, 7.0), work(LF_STEDC_WORK(n));
  std::vector<int32_t> iwork(LF_STEDC_IWORK(n));
  ASSERT_EQ(lf_la_stedc(n, d.data(), e.data(), z.data(), work.data(), iwork.data()), 0);
  for (int64_t i = 0; i < n * n; ++i) EXPECT_EQ(z[i], i % (n + 1) == 0 ? 1.0 : 0.0) << i;
}

TEST(PreludeStedc, SyevdAboveTwentyFiveRowsReconstructs) {
  // The whole syevd (sytd2, stedc's divide and conquer, orm2r) on a dense 48 x 48 matrix.
  const int64_t n = 48;
  std::mt19937 rng(48);
  std::normal_distribution<double> normal;
  std::vector<double> a(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = normal(rng);
  }
  std::vector<double> v = a, w(n), work(LF_SYEVD_WORK(n));
  std::vector<int32_t> iwork(LF_SYEVD_IWORK(n));
  ASSERT_EQ(lf_syevd_lower(v.data(), n, w.data(), work.data(), iwork.data()), 0);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double rebuilt = 0;
      for (int64_t k = 0; k < n; ++k) rebuilt += v[i * n + k] * w[k] * v[j * n + k];
      worst = std::max(worst, std::fabs(rebuilt - a[i * n + j]));
    }
  }
  EXPECT_LE(worst, 1e-12);
}

TEST(PreludeStedc, SecularEquationRootsOfATwoByTwoAndOfTheLastPole) {
  // diag(0, 1) + 1 * z z^T with z = (0.6, 0.8) is [0.36 0.48; 0.48 1.64]: trace 2, determinant
  // 0.36, so its eigenvalues are 1 -+ sqrt(1 - 0.36) = 0.2 and 1.8.
  const double d[2] = {0.0, 1.0}, z[2] = {0.6, 0.8};
  double delta[2], lambda = 0;
  lf_la_laed5(0, d, z, delta, 1.0, &lambda);
  EXPECT_NEAR(lambda, 0.2, 1e-15);
  lf_la_laed5(1, d, z, delta, 1.0, &lambda);
  EXPECT_NEAR(lambda, 1.8, 1e-15);
  // Three poles: each root of 1 + sum z_j^2 / (d_j - x) = 0 is found and makes it vanish.
  const double d3[3] = {-1.0, 0.5, 2.0}, z3[3] = {0.48, 0.6, 0.64};
  for (int64_t i = 0; i < 3; ++i) {
    double delta3[3], root = 0;
    ASSERT_EQ(lf_la_laed4(3, i, d3, z3, delta3, 1.0, &root), 0);
    double f = 1.0;
    for (int j = 0; j < 3; ++j) f += z3[j] * z3[j] / (d3[j] - root);
    EXPECT_NEAR(f, 0.0, 1e-12) << i;
    EXPECT_GT(root, d3[i]);
    if (i < 2) {
      EXPECT_LT(root, d3[i + 1]);
    }
  }
}

TEST(PreludeStedc, ThePlanSizesTheWorkspaceAsThePreludeDeclaresIt) {
  // plan::eighWorkElements allocates the scratch workspace that LF_SYEVD_WORK / LF_HEEVD_WORK
  // describe to the prelude: the two must agree at every size, both sides of 25 rows.
  for (int64_t n : {1, 2, 3, 24, 25, 26, 27, 64, 65, 100, 1024}) {
    EXPECT_EQ(lf::plan::eighWorkElements(n, false), LF_SYEVD_WORK(n)) << n;
    EXPECT_EQ(lf::plan::eighWorkElements(n, true), LF_HEEVD_WORK(n)) << n;
    EXPECT_EQ(lf::plan::eighIntWorkElements(n), LF_SYEVD_IWORK(n)) << n;
    EXPECT_EQ(lf::plan::eighIntWorkElements(n), LF_HEEVD_IWORK(n)) << n;
  }
}

}  // namespace
