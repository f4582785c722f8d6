// lf_fft_line (lf_fft.h) against the definition: the DFT summed directly in long double, for
// every length to 64 and longer ones with each of the mixed-radix passes (4, 2, 3, 5, 7 and the
// direct sum of a larger prime), forward and inverse, f32 and f64. A line's error is measured
// relative to the line's largest output, as any FFT's error grows with the sum's terms, not with
// the point's own size: it stays within a few eps.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "codegen/fft_twiddles.h"
#include "codegen/prelude_test_util.h"

namespace {

// The kernel's tables (codegen/fft_twiddles.h).
struct Twiddles {
  std::vector<double> cos, sin;
  explicit Twiddles(int64_t n)
      : cos(lf::codegen::fftTable(n, false)), sin(lf::codegen::fftTable(n, true)) {}
};

// Every twiddle of k, in k's order.
struct TwiddlesByK {
  std::vector<double> cos, sin;
  explicit TwiddlesByK(int64_t n) : cos(n), sin(n) {
    for (int64_t k = 0; k < n; ++k) lf::codegen::fftTwiddle(k, n, cos[k], sin[k]);
  }
};

// The largest error of lf_fft_line<T> over one random line of n points, relative to the largest
// magnitude of the exact transform.
template <class T>
double relativeError(int64_t n, bool inverse, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<T> re(n), im(n), wre(n), wim(n);
  for (int64_t j = 0; j < n; ++j) {
    re[j] = static_cast<T>(normal(gen));
    im[j] = static_cast<T>(normal(gen));
  }
  const std::vector<T> xr = re, xi = im;
  Twiddles tw(n);
  lf_fft_line<T>(re.data(), im.data(), n, inverse, tw.cos.data(), tw.sin.data(), wre.data(),
                 wim.data());
  const long double sign = inverse ? 1.0L : -1.0L;
  const long double twoPi = 6.283185307179586476925286766559005768L;
  double worst = 0, largest = 0;
  for (int64_t k = 0; k < n; ++k) {
    long double sr = 0, si = 0;
    for (int64_t j = 0; j < n; ++j) {
      const long double angle = sign * twoPi * static_cast<long double>((j * k) % n) / n;
      sr += xr[j] * std::cos(angle) - xi[j] * std::sin(angle);
      si += xr[j] * std::sin(angle) + xi[j] * std::cos(angle);
    }
    if (inverse) {
      sr /= n;
      si /= n;
    }
    largest = std::max(largest, static_cast<double>(std::hypot(sr, si)));
    worst = std::max(worst, static_cast<double>(std::hypot(re[k] - sr, im[k] - si)));
  }
  return worst / largest;
}

TEST(PreludeFft, MatchesTheDefinitionForEveryLengthUpTo64) {
  for (int64_t n = 1; n <= 64; ++n) {
    for (bool inverse : {false, true}) {
      EXPECT_LT(relativeError<float>(n, inverse, 7 * n + inverse), 8e-7) << "f32 n=" << n;
      EXPECT_LT(relativeError<double>(n, inverse, 7 * n + inverse), 2e-15) << "f64 n=" << n;
    }
  }
}

TEST(PreludeFft, LongLinesStayWithinAFewUlpOfTheLargestPoint) {
  // 2^8, 2^3 5^3, 2^10, 7 11 13 (the direct sums of 11 and 13), 3^5 5, 2 509 (a prime).
  for (int64_t n : {256, 1000, 1024, 1001, 1215, 1018}) {
    EXPECT_LT(relativeError<float>(n, false, 3), 4e-7) << "f32 n=" << n;
    EXPECT_LT(relativeError<double>(n, true, 4), 2e-15) << "f64 n=" << n;
  }
}

TEST(PreludeFft, TwiddlesAreExactAtQuarterTurnsAndSymmetric) {
  for (int64_t n : {4, 8, 12, 100, 1024}) {
    TwiddlesByK tw(n);
    for (int64_t k = 0; k < n; k += n / 4) {
      EXPECT_EQ(std::fabs(tw.cos[k]) + std::fabs(tw.sin[k]), 1.0) << n << " " << k;
    }
    for (int64_t k = 1; k < n; ++k) {  // e^(-i t) is the conjugate of e^(i t)
      EXPECT_EQ(tw.cos[n - k], tw.cos[k]) << n << " " << k;
      EXPECT_EQ(tw.sin[n - k], -tw.sin[k]) << n << " " << k;
    }
  }
}

// Lanes are independent lines: W lines at once give each line's own transform, to the bit.
template <int W>
void expectLanesAreLines(int64_t n) {
  std::mt19937 gen(static_cast<unsigned>(n));
  std::normal_distribution<float> normal;
  std::vector<float> re(n * W), im(n * W), wre(n * W), wim(n * W);
  for (float& v : re) v = normal(gen);
  for (float& v : im) v = normal(gen);
  Twiddles tw(n);
  std::vector<float> lanesRe = re, lanesIm = im;
  lf_fft_lanes<float, W>(lanesRe.data(), lanesIm.data(), n, false, tw.cos.data(), tw.sin.data(),
                         wre.data(), wim.data());
  for (int w = 0; w < W; ++w) {
    std::vector<float> lr(n), li(n), wr(n), wi(n);
    for (int64_t k = 0; k < n; ++k) lr[k] = re[k * W + w], li[k] = im[k * W + w];
    lf_fft_line<float>(lr.data(), li.data(), n, false, tw.cos.data(), tw.sin.data(), wr.data(),
                       wi.data());
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_EQ(lanesRe[k * W + w], lr[k]) << "n=" << n << " lane " << w << " point " << k;
      ASSERT_EQ(lanesIm[k * W + w], li[k]) << "n=" << n << " lane " << w << " point " << k;
    }
  }
}

TEST(PreludeFft, LanesAreIndependentLines) {
  for (int64_t n : {1, 2, 8, 12, 64, 105, 143}) {
    expectLanesAreLines<4>(n);
    expectLanesAreLines<16>(n);
  }
}

TEST(PreludeFft, HandWorkedFourPoints) {
  // x = (1, 2, 3, 4): X = (10, -2 + 2i, -2, -2 - 2i), exactly.
  std::vector<float> re{1, 2, 3, 4}, im(4, 0.0f), wre(4), wim(4);
  Twiddles tw(4);
  lf_fft_line<float>(re.data(), im.data(), 4, false, tw.cos.data(), tw.sin.data(), wre.data(),
                     wim.data());
  EXPECT_EQ(re, (std::vector<float>{10, -2, -2, -2}));
  EXPECT_EQ(im, (std::vector<float>{0, 2, 0, -2}));
  // And back, scaled by 1/4.
  lf_fft_line<float>(re.data(), im.data(), 4, true, tw.cos.data(), tw.sin.data(), wre.data(),
                     wim.data());
  EXPECT_EQ(re, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(im, (std::vector<float>{0, 0, 0, 0}));
}

}  // namespace
