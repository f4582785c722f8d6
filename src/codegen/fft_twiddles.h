// The twiddle factors of an n-point transform, cos and sin of 2 pi k/n, as the kernels' tables
// hold them (emit_fft.cc): each within half an ulp of the true value, and exact where the true
// value is 0 or +-1, so that a transform of a quarter-period shift is exact too.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace lf::codegen {

// The angle 2 pi k/n is split into its quarter turns q and the rest, (pi/2) r/n with r < n, and the
// rest is reflected into the first eighth of a turn (cos and sin trade places beyond it): so every
// value comes from one long double cos or sin of an angle at most pi/4, and k and n - k (or any
// two points that mirror each other) get the same magnitudes to the bit.
inline void fftTwiddle(int64_t k, int64_t n, double& cosine, double& sine) {
  const int64_t q = (4 * k) / n % 4, r = (4 * k) % n;
  const bool reflected = 2 * r > n;
  const long double halfPi = 1.570796326794896619231321691639751442L;
  const long double angle =
      halfPi * static_cast<long double>(reflected ? n - r : r) / static_cast<long double>(n);
  const double near = r == 0 ? 1.0 : static_cast<double>(std::cos(angle));
  const double far = r == 0 ? 0.0 : static_cast<double>(std::sin(angle));
  const double c = reflected ? far : near;
  const double s = reflected ? near : far;
  switch (q) {
    case 0:
      cosine = c, sine = s;
      break;
    case 1:
      cosine = -s, sine = c;
      break;
    case 2:
      cosine = -c, sine = -s;
      break;
    default:
      cosine = s, sine = -c;
      break;
  }
}

// The table lf_fft_lanes (prelude/lf_fft.h) reads for an n-point transform: the twiddle of k at
// [k], k < n.
inline std::vector<double> fftTable(int64_t n, bool sine) {
  std::vector<double> table(n);
  double c = 0, s = 0;
  for (int64_t k = 0; k < n; ++k) {
    fftTwiddle(k, n, c, s);
    table[k] = sine ? s : c;
  }
  return table;
}

}  // namespace lf::codegen
