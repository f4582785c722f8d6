// bdsdc's divide and conquer (lf_svd_dc.h, through lf_la_bdsdc past 25 rows) against LAPACK's own
// dbdsdc_ / sbdsdc_ (reference LAPACK, linked into this test) on the same bidiagonals: random ones
// of sizes that make lasd0's tree one to four levels deep, upper and lower, graded ones, ones that
// split at negligible off-diagonals, with negligible diagonal elements, with clustered values (the
// merges' deflation), and zero. The values must agree to a few ulps of the largest; the vectors
// element by element, signs included (a vector's sign is the algorithm's choice, so agreeing
// checks that the port takes LAPACK's steps), within a tolerance for the BLAS the two sum with
// (the reference BLAS's dnrm2 is Blue's algorithm, the port's the scaled sum of squares). Where
// values cluster, vectors are any basis of their space: there U diag(s) V^T must give back the
// bidiagonal and U, V be orthonormal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "codegen/prelude_test_util.h"

extern "C" {
void dbdsdc_(const char* uplo, const char* compq, const int* n, double* d, double* e, double* u,
             const int* ldu, double* vt, const int* ldvt, double* q, int* iq, double* work,
             int* iwork, int* info, size_t uploLen, size_t compqLen);
void sbdsdc_(const char* uplo, const char* compq, const int* n, float* d, float* e, float* u,
             const int* ldu, float* vt, const int* ldvt, float* q, int* iq, float* work, int* iwork,
             int* info, size_t uploLen, size_t compqLen);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void dgebrd_(const int* m, const int* n, double* a, const int* lda, double* d, double* e,
             double* tauq, double* taup, double* work, const int* lwork, int* info);
}

namespace {

void lapackBdsdc(bool upper, int n, double* d, double* e, double* u, double* vt, int* info) {
  std::vector<double> work(3 * n * n + 4 * n);
  std::vector<int> iwork(8 * n);
  dbdsdc_(upper ? "U" : "L", "I", &n, d, e, u, &n, vt, &n, nullptr, nullptr, work.data(),
          iwork.data(), info, 1, 1);
}
void lapackBdsdc(bool upper, int n, float* d, float* e, float* u, float* vt, int* info) {
  std::vector<float> work(3 * n * n + 4 * n);
  std::vector<int> iwork(8 * n);
  sbdsdc_(upper ? "U" : "L", "I", &n, d, e, u, &n, vt, &n, nullptr, nullptr, work.data(),
          iwork.data(), info, 1, 1);
}

struct Bidiagonal {
  std::vector<double> d, e;
};

// Runs both on (d, e); `vectorsDefined`: compare the vectors element by element, else check that
// they decompose the bidiagonal.
template <class T>
void check(const Bidiagonal& b, bool upper, bool vectorsDefined, const std::string& what) {
  const int n = static_cast<int>(b.d.size());
  std::vector<T> d(b.d.begin(), b.d.end()), e(b.e.begin(), b.e.end());
  std::vector<T> ld = d, le = e, lu(n * n), lvt(n * n);
  int info = -1;
  lapackBdsdc(upper, n, ld.data(), le.data(), lu.data(), lvt.data(), &info);
  ASSERT_EQ(info, 0) << what;
  const int ldu = n + 2, ldvt = n + 1;  // padded row strides: the padding stays untouched
  const T pad = (T)-777;
  std::vector<T> u(n * ldu, pad), vt(n * ldvt, pad), work(LF_BDSDC_WORK(n) + 1, pad);
  std::vector<int32_t> iwork(LF_GESDD_IWORK(n) + 1, -777);
  ASSERT_EQ(lf_la_bdsdc<T>(upper, true, n, d.data(), e.data(), u.data(), ldu, vt.data(), ldvt,
                           work.data(), iwork.data()),
            0)
      << what;
  EXPECT_EQ(work[LF_BDSDC_WORK(n)], pad) << what;
  EXPECT_EQ(iwork[LF_GESDD_IWORK(n)], -777) << what;
  const double eps = (double)lf_la_limits<T>::eps;
  const double smax = std::fabs((double)ld[0]);
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(d[i], ld[i], 8 * n * eps * smax + 1e-300) << what << ": value " << i;
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(u[i * ldu + n], pad);
    EXPECT_EQ(vt[i * ldvt + n], pad);
  }
  if (vectorsDefined) {
    const double tol = sizeof(T) == 8 ? 1e-9 : 2e-3;
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        // LAPACK's column-major U(i, j) is lu[i + j * n]; the port's row-major u[i * ldu + j].
        worst = std::fmax(worst, std::fabs((double)u[i * ldu + j] - (double)lu[i + j * n]));
        worst = std::fmax(worst, std::fabs((double)vt[i * ldvt + j] - (double)lvt[i + j * n]));
      }
    }
    EXPECT_LE(worst, tol) << what << ": vectors";
    return;
  }
  // B = U diag(s) V^T, and U, V orthonormal.
  const double tol = 50 * n * eps * std::fmax(smax, 1e-300);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double b_ij = 0, uu = 0, vv = 0;
      for (int k = 0; k < n; ++k) {
        b_ij += (double)u[i * ldu + k] * (double)d[k] * (double)vt[k * ldvt + j];
        uu += (double)u[k * ldu + i] * (double)u[k * ldu + j];
        vv += (double)vt[i * ldvt + k] * (double)vt[j * ldvt + k];
      }
      double expected = 0;
      if (i == j) expected = b.d[i];
      if (upper && j == i + 1) expected = b.e[i];
      if (!upper && i == j + 1) expected = b.e[j];
      EXPECT_NEAR(b_ij, expected, tol) << what << ": B(" << i << ", " << j << ")";
      EXPECT_NEAR(uu, i == j ? 1.0 : 0.0, 50 * n * eps) << what << ": U'U";
      EXPECT_NEAR(vv, i == j ? 1.0 : 0.0, 50 * n * eps) << what << ": VV'";
    }
  }
}

Bidiagonal randomBidiagonal(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Bidiagonal b{std::vector<double>(n), std::vector<double>(n - 1)};
  for (double& x : b.d) x = normal(rng);
  for (double& x : b.e) x = normal(rng);
  return b;
}

// The upper bidiagonal (LAPACK's dgebrd) of Q1 diag(s) Q2^T for random orthogonal Q1, Q2 (dgeqrf
// and dorgqr of random matrices) and s = 4, 4, ... (n / 4 times), 3, 3, ..., 1, 1, ...
Bidiagonal repeatedValues(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  auto orthogonal = [&]() {
    std::vector<double> q(n * n), tau(n), work(64 * n);
    for (double& x : q) x = normal(rng);
    int info = 0, lwork = 64 * n;
    dgeqrf_(&n, &n, q.data(), &n, tau.data(), work.data(), &lwork, &info);
    dorgqr_(&n, &n, &n, q.data(), &n, tau.data(), work.data(), &lwork, &info);
    return q;  // column-major
  };
  const std::vector<double> q1 = orthogonal(), q2 = orthogonal();
  std::vector<double> a(n * n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) a[i + j * n] += q1[i + k * n] * (4 - (4 * k) / n) * q2[j + k * n];
    }
  }
  Bidiagonal b{std::vector<double>(n), std::vector<double>(n - 1)};
  std::vector<double> tauq(n), taup(n), work(64 * n);
  int info = 0, lwork = 64 * n;
  dgebrd_(&n, &n, a.data(), &n, b.d.data(), b.e.data(), tauq.data(), taup.data(), work.data(),
          &lwork, &info);
  return b;
}

template <class T>
void checkAll() {
  // 26: two leaves; 51 and 52: lasdt's depth changes where n / 26 reaches 2; 100, 130: deeper.
  for (int n : {26, 27, 40, 51, 52, 64, 100, 130}) {
    for (bool upper : {true, false}) {
      const std::string what = "random n=" + std::to_string(n) + (upper ? " upper" : " lower");
      check<T>(randomBidiagonal(n, 17 * n + upper), upper, true, what);
    }
  }
  // Graded: values from 1 down to 2^-40 (f64) or 2^-20 (f32), well apart.
  {
    Bidiagonal b = randomBidiagonal(48, 5);
    for (int i = 0; i < 48; ++i) b.d[i] = std::ldexp(1.0 + 0.1 * i, -(sizeof(T) == 8 ? i : i / 2));
    for (double& x : b.e) x *= 0.01;
    check<T>(b, true, true, "graded");
  }
  // Negligible off-diagonals: bdsdc splits into parts of 30, 10 and 19 rows and a last 1 x 1.
  {
    Bidiagonal b = randomBidiagonal(60, 6);
    b.e[29] = 0;
    b.e[39] = 1e-30;
    b.e[58] = -1e-30;
    check<T>(b, true, true, "split");
  }
  // Negligible diagonal elements (raised to 0.9 eps with their sign).
  {
    Bidiagonal b = randomBidiagonal(40, 7);
    b.d[3] = 1e-30;
    b.d[20] = -0.0;
    b.d[39] = 1e-300;
    check<T>(b, false, false, "tiny diagonal");
  }
  // Clustered values: a diagonal of ones, barely coupled (lasd2 deflates by rotations).
  {
    Bidiagonal b = randomBidiagonal(45, 8);
    for (double& x : b.d) x = 1.0 + 1e-3 * x;
    for (double& x : b.e) x = 1e-9 * x;
    check<T>(b, true, false, "clustered");
  }
  // Values repeated 8 times (the bidiagonal of Q1 diag(4, 4, ..., 1) Q2^T): lasd2 deflates the
  // equal values of the two halves by rotations of their vectors (column type 3, for which lasd3's
  // products must span both blocks).
  check<T>(repeatedValues(48, 10), true, false, "repeated values");
  // Zero: bdsdc returns the identities at once.
  check<T>(Bidiagonal{std::vector<double>(30, 0.0), std::vector<double>(29, 0.0)}, true, true,
           "zero");
}

TEST(PreludeSvdDivideConquer, MatchesLapackF64) { checkAll<double>(); }
TEST(PreludeSvdDivideConquer, MatchesLapackF32) { checkAll<float>(); }

}  // namespace
