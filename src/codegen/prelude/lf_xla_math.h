// XLA's own approximations of f64 exp, tanh, log1p and f32 exp, log, log1p, erf. All but f64 log1p
// are straight-line code: no calls and no branches (every choice is a select), so on the CPU a
// stage's loop over them vectorizes. The results are XLA:CPU's to the bit (checked against JAX
// 0.11.2 on 200,000 to 700,000 inputs per function, and in tests/codegen/prelude_float_test.cc).
// Pasted into lf_common.h where it includes this file, after lf_bitcast; needs the C math functions
// (fma, floor, fabs, log) and LF_DEVICE.
//
// Which target uses which (see LF_FLOAT_UNARY's uses in lf_common.h):
//   - f32 tanh and erf: these on every target (XLA:CPU and XLA:GPU both emit them).
//   - f64 exp, tanh, log1p and f32 log, log1p: these on the CPU and in the CUDA emulator, whose
//     expected values are XLA:CPU's; on a GPU the CUDA math library's, as XLA:GPU calls them.
//   - f32 exp: on the CPU and in the CUDA emulator a copy of XLA:CPU's Cephes polynomial that
//     differs from it in one ulp on about 1 input in 1,000 (glibc's expf, used before, differed on
//     about 1 in 10), and vectorizes: the vmapped seed over 1,024 chains went from 36 to 27 ms. It
//     is slower than glibc's expf where a loop does not vectorize (the GRU benchmark's sigmoid
//     over a sliced bias: 43 -> 51 ms). On a GPU, the CUDA math library's expf.
//
// XLA builds these with LLVM's contraction allowed, so on a CPU with FMA (x86-64 since Haswell,
// every aarch64: where JAX's expected values come from) a multiply feeding an add is one fused
// multiply-add. LF_MADD always fuses, so the bits are those everywhere (a CPU without the
// instruction gets the C library's exact fma, slowly).
#define LF_MADD(a, b, c) fma((a), (b), (c))
#define LF_MADDF(a, b, c) fmaf((a), (b), (c))

// XLA's f64 exp (xla/codegen/intrinsic/exp.cc, from Cephes via Eigen): n = floor(x log2(e) + 1/2),
// g = x - n ln2 with ln2 split in two, exp(g) = 1 + 2 P(g^2) g / (Q(g^2) - P(g^2) g) on
// [-ln2/2, ln2/2], then exp(x) = exp(g) 2^n. Below -708.396 (the last normal result) it is 0;
// above 709.78 it is +inf.
LF_DEVICE double lf_xla_exp_f64(double x) {
  const double hi = 709.782712893384, lo = -708.3964185322641;
  double clamped = x > hi ? hi : x;  // a NaN stays a NaN through both clamps
  clamped = clamped < lo ? lo : clamped;
  double n = floor(LF_MADD(clamped, 1.4426950408889634073599, 0.5));
  double g = LF_MADD(-n, 0.693145751953125, clamped);
  g = LF_MADD(-n, 1.42860682030941723212e-6, g);
  const double g2 = g * g;
  double p = LF_MADD(1.26177193074810590878e-4, g2, 3.02994407707441961300e-2);
  p = LF_MADD(p, g2, 9.99999999999999999910e-1);
  p = p * g;
  double q = LF_MADD(3.00198505138664455042e-6, g2, 2.52448340349684104192e-3);
  q = LF_MADD(q, g2, 2.27265548208155028766e-1);
  q = LF_MADD(q, g2, 2.00000000000000000009e0);
  const double expg = LF_MADD(p / (q - p), 2.0, 1.0);
  const int32_t e = n == n ? (int32_t)n : 0;  // converting a NaN is undefined; the result is NaN
  // XLA scales by 2^e with its ldexp (after Eigen's pldexp: four power-of-two multiplies, so that
  // no factor overflows for |e| up to 2099). Here e is within [-1022, 1024] and expg within
  // [0.7, 1.5], so two factors suffice, 2^(e/2) and the rest: every step is exact until the
  // result itself overflows, so the bits are the same, after half the chain of multiplies (that
  // chain is the latency of a loop of exps that does not vectorize).
  const int32_t half = e >> 1;
  const double result = expg * lf_bitcast<double>((uint64_t)(half + 1023) << 52) *
                        lf_bitcast<double>((uint64_t)(e - half + 1023) << 52);
  const double inf = lf_bitcast<double>(0x7ff0000000000000ull);  // NVRTC has no INFINITY
  return x < lo ? 0.0 : x > hi ? inf : result;
}

// LF_MADD or LF_MADDF by type, for the code below that is written once for f32 and f64.
template <class T>
LF_DEVICE T lf_xla_madd(T a, T b, T c) {
  if constexpr (sizeof(T) == 4)
    return LF_MADDF(a, b, c);
  else
    return LF_MADD(a, b, c);
}

// The Cephes rational function behind XLA's log1p: x - x^2/2 + x^3 P(x) / Q(x), each polynomial by
// Horner's rule from its highest coefficient, in T (XLA evaluates the f32 one in f32).
template <class T>
LF_DEVICE T lf_xla_log1p_rational(T x) {
  const T x2 = x * x;
  T p = T(4.5270000862445199635215E-5);
  p = lf_xla_madd(p, x, T(4.9854102823193375972212E-1));
  p = lf_xla_madd(p, x, T(6.5787325942061044846969E0));
  p = lf_xla_madd(p, x, T(2.9911919328553073277375E1));
  p = lf_xla_madd(p, x, T(6.0949667980987787057556E1));
  p = lf_xla_madd(p, x, T(5.7112963590585538103336E1));
  p = lf_xla_madd(p, x, T(2.0039553499201281259648E1));
  T q = T(1.0);
  q = lf_xla_madd(q, x, T(1.5062909083469192043167E1));
  q = lf_xla_madd(q, x, T(8.3047565967967209469434E1));
  q = lf_xla_madd(q, x, T(2.2176239823732856465394E2));
  q = lf_xla_madd(q, x, T(3.0909872225312059774938E2));
  q = lf_xla_madd(q, x, T(2.1642788614495947685003E2));
  q = lf_xla_madd(q, x, T(6.0118660497603843919306E1));
  return x + lf_xla_madd(T(-0.5), x2, x * x2 * (p / q));
}

// XLA:CPU's f64 log1p: the rational function on (sqrt(1/2) - 1, sqrt(2) - 1), Cephes' interval,
// and log(1 + x) outside it with the C library's log, which XLA:CPU calls too (the same bits as
// JAX on 500,000 inputs; glibc's log1p differs from it on 12% of them by up to 2 ulp). A branch,
// not a select: log is a call, so a loop over log1p is scalar anyway, and the branch saves the
// call for small x.
LF_DEVICE double lf_xla_log1p_f64(double x) {
  if (x > -0.29289321881345247560 && x < 0.41421356237309504880) return lf_xla_log1p_rational(x);
  return log(x + 1.0);  // a NaN x lands here
}

// XLA:CPU's f32 log (the Cephes logf polynomial, as XLA:CPU's vectorized log emits it): x = m 2^e
// with m in [sqrt(1/2), sqrt(2)), log(m) = t - t^2/2 + t^3 P(t) for t = m - 1, plus e ln2 with ln2
// split in two. Straight-line, so a loop over it vectorizes; the same bits as JAX on 500,000
// inputs (glibc's logf differs on a fifth of them).
LF_DEVICE float lf_xla_log_f32(float x) {
  const float min_normal = lf_bitcast<float>(0x00800000u);
  const uint32_t bits = lf_bitcast<uint32_t>(x > min_normal ? x : min_normal);
  float e = (float)((int32_t)(bits >> 23) - 0x7f) + 1.0f;
  float m = lf_bitcast<float>((bits & ~0x7f800000u) | 0x3f000000u);  // in [0.5, 1)
  const bool low = m < 0.707106781186547524f;  // then 2m - 1, and one less in e
  const float low_m = low ? m : 0.0f;
  m = m - 1.0f;
  e = e - (low ? 1.0f : 0.0f);
  m = m + low_m;
  const float m2 = m * m;
  const float m3 = m2 * m;
  float y = LF_MADDF(m, 7.0376836292E-2f, -1.1514610310E-1f);
  float y1 = LF_MADDF(m, -1.2420140846E-1f, 1.4249322787E-1f);
  float y2 = LF_MADDF(m, 2.0000714765E-1f, -2.4999993993E-1f);
  y = LF_MADDF(y, m, 1.1676998740E-1f);
  y1 = LF_MADDF(y1, m, -1.6668057665E-1f);
  y2 = LF_MADDF(y2, m, 3.3333331174E-1f);
  y = LF_MADDF(y, m3, y1);
  y = LF_MADDF(y, m3, y2);
  y = LF_MADDF(y, m3, -2.12194440e-4f * e);  // e is a small integer: the product is exact
  const float result = LF_MADDF(0.693359375f, e, LF_MADDF(-0.5f, m2, m) + y);
  const float inf = lf_bitcast<float>(0x7f800000u);
  const float nan = lf_bitcast<float>(0x7fc00000u);
  return x == 0.0f ? -inf : x == inf ? inf : x > 0.0f ? result : nan;  // NaN and x < 0: NaN
}

// XLA's f32 log1p: the rational function for |x| < sqrt(2) - 1, XLA's f32 log of 1 + x from there.
// Both arms are straight-line, so this is a select and vectorizes.
LF_DEVICE float lf_xla_log1p_f32(float x) {
  const float small = lf_xla_log1p_rational(x);
  const float large = lf_xla_log_f32(x + 1.0f);
  return fabsf(x) < 0.41421356237309504880f ? small : large;
}

// XLA:CPU's vectorized f32 exp (Cephes expf): clamp x to [-87.8, 88.8], n = floor(x log2(e) + 1/2),
// a degree-5 polynomial for exp(r) on [-ln2/2, ln2/2], then exp(r) 2^n. Not quite XLA's bits:
// about 1 input in 1,000 differs by one ulp (tests/python/test_jit_math_bits.py checks the rate).
// 2^n is applied as two exact halves so that n = 128 (x just below 88.72) stays finite; n = -127
// gives 0, as XLA's flushed denormal.
LF_DEVICE float lf_xla_exp_f32(float x) {
  float clamped = x < -87.8f ? -87.8f : x;
  clamped = clamped > 88.8f ? 88.8f : clamped;
  float n = floorf(LF_MADDF(clamped, 1.44269504088896341f, 0.5f));
  n = n < -127.0f ? -127.0f : n;
  n = n > 128.0f ? 128.0f : n;
  float r = LF_MADDF(-n, 0.693359375f, clamped);
  r = LF_MADDF(-n, -2.12194440e-4f, r);
  float z = LF_MADDF(r, 1.9875691500e-4f, 1.3981999507e-3f);
  z = LF_MADDF(z, r, 8.3334519073e-3f);
  z = LF_MADDF(z, r, 4.1665795894e-2f);
  z = LF_MADDF(z, r, 1.6666665459e-1f);
  z = LF_MADDF(z, r, 5.0000001201e-1f);
  z = LF_MADDF(z, r * r, r);
  z = 1.0f + z;
  const int32_t e = n == n ? (int32_t)n : 0;  // NaN: see lf_xla_exp_f64
  const int32_t half = e / 2;
  const float scaled = z * lf_bitcast<float>((uint32_t)(half + 127) << 23) *
                       lf_bitcast<float>((uint32_t)(e - half + 127) << 23);
  return e < -126 ? 0.0f : scaled;
}

// XLA's f32 tanh (Eigen's rational approximation; the clamp is the FMA variant's): x itself below
// |x| = 0.0004, +-1 from |x| = 20, p(x^2) x / q(x^2) between.
LF_DEVICE float lf_xla_tanh_f32(float x) {
  const float ax = fabsf(x);
  float c = x < -7.99881172180175781f ? -7.99881172180175781f : x;
  c = c > 7.99881172180175781f ? 7.99881172180175781f : c;
  const float x2 = c * c;
  float p = -2.76076847742355e-16f;
  p = LF_MADDF(x2, p, 2.00018790482477e-13f);
  p = LF_MADDF(x2, p, -8.60467152213735e-11f);
  p = LF_MADDF(x2, p, 5.12229709037114e-08f);
  p = LF_MADDF(x2, p, 1.48572235717979e-05f);
  p = LF_MADDF(x2, p, 6.37261928875436e-04f);
  p = LF_MADDF(x2, p, 4.89352455891786e-03f);
  float q = 1.19825839466702e-06f;
  q = LF_MADDF(x2, q, 1.18534705686654e-04f);
  q = LF_MADDF(x2, q, 2.26843463243900e-03f);
  q = LF_MADDF(x2, q, 4.89352518554385e-03f);
  const float ratio = ax < 0.0004f ? x : c * p / q;  // a NaN x takes this branch's division
  return ax >= 20.0f ? copysignf(1.0f, x) : ratio;
}

// XLA:CPU's f64 tanh (xla/codegen/intrinsic/tanh.cc, after Eigen's ptanh_double): a degree-19/18
// rational function of x on [-17.714, 17.714], +-1 from |x| = 20.
LF_DEVICE double lf_xla_tanh_f64(double x) {
  double c = x < -17.714196154005176 ? -17.714196154005176 : x;
  c = c > 17.714196154005176 ? 17.714196154005176 : c;
  const double x2 = c * c;
  double p = 2.6158007860482230e-23;
  p = LF_MADD(x2, p, 7.6534862268749319e-19);
  p = LF_MADD(x2, p, 3.1309488231386680e-15);
  p = LF_MADD(x2, p, 4.2303918148209176e-12);
  p = LF_MADD(x2, p, 2.4618379131293676e-09);
  p = LF_MADD(x2, p, 6.8644367682497074e-07);
  p = LF_MADD(x2, p, 9.3839087674268880e-05);
  p = LF_MADD(x2, p, 5.9809711724441161e-03);
  p = LF_MADD(x2, p, 1.5184719640284322e-01);
  p = LF_MADD(x2, p, 1.0);
  double q = 6.463747022670968018e-21;
  q = LF_MADD(x2, q, 5.782506856739003571e-17);
  q = LF_MADD(x2, q, 1.293019623712687916e-13);
  q = LF_MADD(x2, q, 1.123643448069621992e-10);
  q = LF_MADD(x2, q, 4.492975677839633985e-08);
  q = LF_MADD(x2, q, 8.785185266237658698e-06);
  q = LF_MADD(x2, q, 8.295161192716231542e-04);
  q = LF_MADD(x2, q, 3.437448108450402717e-02);
  q = LF_MADD(x2, q, 4.851805297361760360e-01);
  q = LF_MADD(x2, q, 1.0);
  const double ratio = c * p / q;
  return fabs(x) >= 20.0 ? copysign(1.0, x) : ratio;
}

// XLA's f32 erf (EmitErfF32, Eigen's rational approximation): +-1 once |x| >= 3.8325...
LF_DEVICE float lf_xla_erf_f32(float x) {
  const float x2 = x * x;
  float p = LF_MADDF(x2, 0.00022905065861350646f, 0.0034082910107109506f);
  p = LF_MADDF(x2, p, 0.050955695062380861f);
  p = LF_MADDF(x2, p, 0.18520832239976145f);
  p = LF_MADDF(x2, p, 1.128379143519084f);
  p = x * p;
  float q = LF_MADDF(x2, -1.1791602954361697e-7f, 0.000023547966471313185f);
  q = LF_MADDF(x2, q, 0.0010179625278914885f);
  q = LF_MADDF(x2, q, 0.014070470171167667f);
  q = LF_MADDF(x2, q, 0.11098505178285362f);
  q = LF_MADDF(x2, q, 0.49746925110067538f);
  q = LF_MADDF(x2, q, 1.0f);
  return fabsf(x) >= 3.832506856900711f ? copysignf(1.0f, x) : p / q;
}

// XLA:CPU's rsqrt (xla/codegen/intrinsic/rsqrt.cc): the CPU's approximate reciprocal square root,
// refined by Newton-Raphson steps h = x y y - 1, y = y - (y / 2) h, each a pair of fmas. f32 with
// AVX: rsqrtss's 12-bit estimate (XLA's 8-wide loops use rsqrtps, whose lanes are rsqrtss's), one
// step on AMD (LF_X86_AMD, set by the host compiler from the CPU) and two on Intel; f64 with
// AVX-512: rsqrt14's estimate and two steps. Below the smallest normal (zero, negative: inf, NaN)
// and at +inf the estimate is the result. Elsewhere XLA, and this, compute 1 / sqrt(x). Checked
// against JAX 0.11.2 on an AMD EPYC (tests/python/test_jit_divide.py): every bit of 20,000
// values in each type. The estimate is the CPU's own (Intel's and AMD's rsqrtss differ), which is
// why the kernel calls the instruction rather than a copy of it.
#if defined(__x86_64__) && defined(__AVX__) && (defined(LF_TARGET_CPU) || defined(LF_CUDA_EMULATED))
#include <immintrin.h>
#define LF_XLA_RSQRT_F32 1
LF_DEVICE float lf_xla_rsqrt_f32(float x) {
  const float estimate = _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)));
#if defined(LF_X86_AMD)
  const int steps = 1;
#else
  const int steps = 2;
#endif
  float y = estimate;
  for (int i = 0; i < steps; ++i) {
    const float h = LF_MADDF(x * y, y, -1.0f);
    y = LF_MADDF(y * -0.5f, h, y);
  }
  const float inf = lf_bitcast<float>(0x7f800000u);
  return x < 1.17549435e-38f || x == inf ? estimate : y;
}
#if defined(__AVX512F__)
#define LF_XLA_RSQRT_F64 1
LF_DEVICE double lf_xla_rsqrt_f64(double x) {
  const __m128d v = _mm_set_sd(x);
  const double estimate = _mm_cvtsd_f64(_mm_rsqrt14_sd(v, v));
  double y = estimate;
  for (int i = 0; i < 2; ++i) {
    const double h = LF_MADD(x * y, y, -1.0);
    y = LF_MADD(y * -0.5, h, y);
  }
  const double inf = lf_bitcast<double>(0x7ff0000000000000ull);
  return x < 2.2250738585072014e-308 || x == inf ? estimate : y;
}
#endif
#endif
