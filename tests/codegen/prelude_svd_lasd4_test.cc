// lf_la_lasd4 (lf_svd_lasd4.h) against Reference LAPACK's own dlasd4 / slasd4 (the Fortran
// routine of the liblapack linked in, 3.11 on Debian 12), bit for bit: sigma, and every delta[j]
// and work[j], for every root i of random secular equations as dlasd3 poses them after dlasd2's
// deflation (d ascending, d[0] >= 0 and often 0, poles and |z[j]| not below dlasd2's tolerance,
// |z| = 1, rho > 0). The problems take the zero finder's paths: n = 1 and 2 (dlasd5), the largest
// root, roots nearer the lower or the upper pole, two- and three-pole (laed6) interpolation,
// clustered poles, tiny z components and the geometric bisection (GEOMAVG: tiny d[i] and z[i]
// next to a large d[i+1]). The port repeats LAPACK's floating-point operations in LAPACK's order
// and neither build contracts into FMAs (x86-64 without -march), so not one ulp may differ. This
// holds only while lf_la_laed6 (lf_stedc.h) is the DLAED6 of the same LAPACK.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codegen/prelude_test_util.h"

#include "codegen/prelude/lf_svd_lasd4.h"

extern "C" void dlasd4_(const int* n, const int* i, const double* d, const double* z, double* delta,
                        const double* rho, double* sigma, double* work, int* info);
extern "C" void slasd4_(const int* n, const int* i, const float* d, const float* z, float* delta,
                        const float* rho, float* sigma, float* work, int* info);

namespace {

void referenceLasd4(int n, int i, const double* d, const double* z, double* delta, double rho,
                    double* sigma, double* work, int* info) {
  dlasd4_(&n, &i, d, z, delta, &rho, sigma, work, info);
}
void referenceLasd4(int n, int i, const float* d, const float* z, float* delta, float rho,
                    float* sigma, float* work, int* info) {
  slasd4_(&n, &i, d, z, delta, &rho, sigma, work, info);
}

template <class T>
bool sameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A secular equation in double, before rounding to T.
struct Problem {
  std::vector<double> d, z;
  double rho;
};

enum class Kind { kUniform, kZeroFirst, kClustered, kTinyZ, kGraded, kGeomavg };

// Random in LAPACK's domain for T (eps its epsilon): what dlasd2 leaves after deflation, poles at
// least 16 eps max d apart and no |z[j]| under 16 eps (dlasd2 deflates below 8 eps).
Problem makeProblem(Kind kind, int n, double eps, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  // 10^-lo .. 10^-hi, log-uniform.
  auto decades = [&](double lo, double hi) { return std::pow(10.0, -lo - (hi - lo) * unit(rng)); };
  const double tinyDecade = -std::log10(100 * eps);  // 13.9 in f64, 5.2 in f32
  Problem p;
  p.rho = std::exp(std::log(100.0) * (unit(rng) - 0.5));  // 0.1 .. 10
  for (int j = 0; j < n; ++j) {
    switch (kind) {
      case Kind::kClustered:  // 4 cluster centres, members 1e-3 .. 100 eps apart
        p.d.push_back(double(rng() % 4) + decades(3, tinyDecade) * unit(rng));
        break;
      case Kind::kGraded:  // 1e-8 .. 1e3, evenly on a log scale
        p.d.push_back(std::pow(10.0, -8.0 + 11.0 * unit(rng)));
        break;
      default:
        p.d.push_back(unit(rng));
    }
    p.z.push_back(normal(rng));
  }
  std::sort(p.d.begin(), p.d.end());
  if (kind == Kind::kZeroFirst || kind == Kind::kClustered) p.d[0] = 0;  // as dlasd2 leaves it
  if (kind == Kind::kTinyZ) {
    for (int j = 0; j < n; ++j) {
      if (rng() % 3 == 0) p.z[j] *= decades(4, tinyDecade);
    }
  }
  if (kind == Kind::kGeomavg && n >= 3) {
    // Roots i with d[i] <= sqrt(eps) d[i+1], |z[i]| <= sqrt(eps) and d[i] > 0 start at 10 d[i]
    // and bisect geometrically: d[1..i] squeezed under 0.1 sqrt(eps) d[i+1], z[i] that small.
    const int i = 1 + int(rng() % std::min(n - 2, 5));
    p.d[0] = 0;
    for (int j = 1; j <= i; ++j) p.d[j] = p.d[i + 1] * 0.1 * std::sqrt(eps) * j / i;
    p.z[i] = 0.1 * std::sqrt(eps) * (0.5 + unit(rng));
  }
  const double dmax = p.d[n - 1], gap = 16 * eps * (dmax > 0 ? dmax : 1);
  for (int j = 0; j < n; ++j) {
    if (j > 0 && p.d[j] < p.d[j - 1] + gap) p.d[j] = p.d[j - 1] + gap;
    if (std::fabs(p.z[j]) < 16 * eps) p.z[j] = std::copysign(16 * eps, p.z[j]);
  }
  return p;
}

// Rounds the problem to T, |z| = 1 as far as T can.
template <class T>
void roundProblem(const Problem& p, std::vector<T>& d, std::vector<T>& z, T& rho) {
  const size_t n = p.d.size();
  d.assign(n, T(0));
  z.assign(n, T(0));
  T norm = 0;
  for (size_t j = 0; j < n; ++j) {
    d[j] = T(p.d[j]);
    z[j] = T(p.z[j]);
    norm += z[j] * z[j];
  }
  norm = std::sqrt(norm);
  for (T& x : z) x /= norm;
  rho = T(p.rho);
}

struct Tally {
  int roots = 0, exact = 0;
};

// Every root of the problem, ours against LAPACK's.
template <class T>
void compareAllRoots(const Problem& p, const std::string& what, Tally& tally) {
  std::vector<T> d, z;
  T rho;
  roundProblem(p, d, z, rho);
  const int n = int(d.size());
  for (int i = 0; i < n; ++i) {
    std::vector<T> delta(n, T(-7)), work(n, T(-7)), refDelta(n, T(-9)), refWork(n, T(-9));
    T sigma = T(-7), refSigma = T(-9);
    int refInfo = -1;
    referenceLasd4(n, i + 1, d.data(), z.data(), refDelta.data(), rho, &refSigma, refWork.data(),
                   &refInfo);
    const int32_t info =
        lf_la_lasd4<T>(n, i, d.data(), z.data(), delta.data(), rho, &sigma, work.data());
    const std::string where = what + " n=" + std::to_string(n) + " i=" + std::to_string(i);
    EXPECT_EQ(refInfo, 0) << where;
    EXPECT_EQ(info, 0) << where;
    bool exact = sameBits(sigma, refSigma);
    EXPECT_TRUE(sameBits(sigma, refSigma)) << where << ": sigma " << sigma << " vs " << refSigma;
    for (int j = 0; j < n; ++j) {
      exact = exact && sameBits(delta[j], refDelta[j]) && sameBits(work[j], refWork[j]);
      EXPECT_TRUE(sameBits(delta[j], refDelta[j]))
          << where << ": delta[" << j << "] " << delta[j] << " vs " << refDelta[j];
      EXPECT_TRUE(sameBits(work[j], refWork[j]))
          << where << ": work[" << j << "] " << work[j] << " vs " << refWork[j];
    }
    ++tally.roots;
    tally.exact += exact ? 1 : 0;
  }
}

template <class T>
void compareRandomProblems(unsigned seeds, const std::vector<int>& sizes, const char* type) {
  const Kind kinds[] = {Kind::kUniform, Kind::kZeroFirst, Kind::kClustered,
                        Kind::kTinyZ,   Kind::kGraded,    Kind::kGeomavg};
  const char* names[] = {"uniform", "zero first", "clustered", "tiny z", "graded", "geomavg"};
  Tally tally;
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    for (int n : sizes) {
      for (int k = 0; k < 6; ++k) {
        std::mt19937 rng(seed * 1000u + unsigned(n) * 10u + unsigned(k));
        const Problem p = makeProblem(kinds[k], n, double(lf_la_limits<T>::eps), rng);
        compareAllRoots<T>(p, std::string(type) + " " + names[k] + " seed " + std::to_string(seed),
                           tally);
      }
    }
  }
  EXPECT_EQ(tally.exact, tally.roots);
  std::printf("[ lasd4 %s ] %d of %d roots bit-identical to LAPACK\n", type, tally.exact,
              tally.roots);
}

const std::vector<int> kSizes = {1, 2, 3, 4, 5, 7, 10, 16, 25, 33, 47, 60};

TEST(PreludeSvdLasd4, MatchesDlasd4BitForBit) { compareRandomProblems<double>(8, kSizes, "f64"); }

TEST(PreludeSvdLasd4, MatchesSlasd4BitForBit) { compareRandomProblems<float>(8, kSizes, "f32"); }

TEST(PreludeSvdLasd4, SmallAndHandPickedProblems) {
  Tally tally;
  // n = 2 (dlasd5) both sides of the midpoint test, d[0] = 0 and not; n = 1.
  compareAllRoots<double>({{0.0, 1.0}, {0.6, 0.8}, 1.0}, "2x2 a", tally);
  compareAllRoots<double>({{0.5, 0.5000001}, {0.99, std::sqrt(1 - 0.99 * 0.99)}, 3.0}, "2x2 b",
                          tally);
  compareAllRoots<double>({{0.0, 2.0}, {1e-9, 1.0}, 0.25}, "2x2 c", tally);
  compareAllRoots<float>({{0.25, 4.0}, {0.8, -0.6}, 7.0}, "2x2 f32", tally);
  compareAllRoots<double>({{0.3}, {1.0}, 2.0}, "1x1", tally);
  // The geometric bisection: d[1] = 1e-13, z[1] = 1e-12, next pole at 1.
  compareAllRoots<double>({{0.0, 1e-13, 1.0, 2.0}, {0.5, 1e-12, 0.5, 0.70710678118654757}, 1.0},
                          "geomavg", tally);
  compareAllRoots<float>({{0.0, 1e-5, 1.0, 2.0}, {0.5, 1e-5, 0.5, 0.70710678}, 1.0}, "geomavg f32",
                         tally);
  // Many more n = 2 (dlasd5's closed forms) and n = 3 (the smallest iterated problems).
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const Kind kind = seed % 2 ? Kind::kUniform : Kind::kZeroFirst;
    const int n = 2 + int(seed % 3 == 0);
    compareAllRoots<double>(makeProblem(kind, n, 0x1p-53, rng), "small f64", tally);
    compareAllRoots<float>(makeProblem(kind, n, 0x1p-24, rng), "small f32", tally);
  }
  EXPECT_EQ(tally.exact, tally.roots);
}

}  // namespace
