// Floating-point semantics of the kernel prelude (xla-op-semantics.md section 3). tanh and erf
// are compared with JAX 0.11 CPU outputs (bit patterns pasted below); the rest is worked out by
// hand from IEEE 754 and XLA's rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "codegen/prelude_test_util.h"

using namespace lf_prelude_test;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Distance in units in the last place between two finite floats of the same sign.
int64_t ulpDistance(float a, float b) {
  return std::llabs((int64_t)(int32_t)bits32(a) - (int64_t)(int32_t)bits32(b));
}

TEST(PreludeFloat, MaxMinPropagateNanAndOrderZeros) {
  EXPECT_TRUE(std::isnan(lf_maximum(kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(lf_maximum(1.0f, kNan)));
  EXPECT_TRUE(std::isnan(lf_minimum(kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(lf_minimum(-kInf, kNan)));
  // JAX CPU: maximum(-0, +0) = maximum(+0, -0) = +0; minimum gives -0 both ways.
  EXPECT_EQ(bits32(lf_maximum(-0.0f, 0.0f)), 0x00000000u);
  EXPECT_EQ(bits32(lf_maximum(0.0f, -0.0f)), 0x00000000u);
  EXPECT_EQ(bits32(lf_minimum(-0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(bits32(lf_minimum(0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(lf_maximum(-2.0, 3.0), 3.0);
  EXPECT_EQ(lf_minimum(-2.0, 3.0), -2.0);
  EXPECT_EQ(lf_maximum(h16(0x3c00), h16(0xc000)).bits, 0x3c00);  // max(1, -2)
  EXPECT_EQ(lf_minimum(b16(0x7fc0), b16(0x3f80)).bits, 0x7fc0);  // NaN
  EXPECT_TRUE(std::isnan(lf_clamp(0.0f, kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(lf_clamp(kNan, 0.5f, 1.0f)));
  EXPECT_EQ(lf_clamp(0.0f, 2.0f, 1.0f), 1.0f);
}

TEST(PreludeFloat, Sign) {
  EXPECT_TRUE(std::isnan(lf_sign(kNan)));
  EXPECT_EQ(bits32(lf_sign(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits32(lf_sign(0.0f)), 0u);
  EXPECT_EQ(lf_sign(-3.5f), -1.0f);
  EXPECT_EQ(lf_sign(1e-45f), 1.0f);
  EXPECT_EQ(lf_sign(-kInf), -1.0f);
  EXPECT_EQ(lf_sign(-1e300), -1.0);
  EXPECT_EQ(lf_sign(h16(0x8001)).bits, 0xbc00);  // -subnormal -> -1
}

TEST(PreludeFloat, Rounding) {
  EXPECT_EQ(lf_round_nearest_afz(2.5f), 3.0f);
  EXPECT_EQ(lf_round_nearest_afz(-2.5f), -3.0f);
  EXPECT_EQ(lf_round_nearest_afz(0.49999997f), 0.0f);
  EXPECT_EQ(lf_round_nearest_even(2.5f), 2.0f);
  EXPECT_EQ(lf_round_nearest_even(3.5f), 4.0f);
  EXPECT_EQ(lf_round_nearest_even(-2.5), -2.0);
  EXPECT_EQ(bits32(lf_round_nearest_even(-0.5f)), 0x80000000u);
  EXPECT_EQ(lf_floor(-1.5f), -2.0f);
  EXPECT_EQ(lf_ceil(-1.5f), -1.0f);
  EXPECT_EQ(lf_round_nearest_even(b16(0x4020)).bits, 0x4000);  // bf16 2.5 -> 2
  EXPECT_EQ(lf_round_nearest_afz(h16(0x4100)).bits, 0x4200);   // f16 2.5 -> 3
}

TEST(PreludeFloat, RemainderPowerAtan2) {
  EXPECT_EQ(lf_remainder(5.5f, 2.0f), 1.5f);
  EXPECT_EQ(lf_remainder(-5.5f, 2.0f), -1.5f);  // sign of the dividend
  EXPECT_TRUE(std::isnan(lf_remainder(1.0f, 0.0f)));
  EXPECT_EQ(lf_remainder(3.0f, kInf), 3.0f);
  EXPECT_EQ(lf_power(1.0f, kNan), 1.0f);
  EXPECT_EQ(lf_power(kNan, 0.0f), 1.0f);
  EXPECT_EQ(lf_power(2.0f, 10.0f), 1024.0f);
  EXPECT_TRUE(std::isnan(lf_power(-8.0, 1.0 / 3.0)));
  EXPECT_EQ(lf_power(h16(0x4000), h16(0x4800)).bits, 0x5c00);  // 2^8 = 256
  EXPECT_EQ(lf_atan2(0.0f, -1.0f), (float)M_PI);
  EXPECT_EQ(lf_atan2(1.0, 0.0), M_PI / 2);
}

// pow(x, 0.5) by a constant exponent, as XLA:CPU's LLVM rewrites it: the correctly rounded sqrt
// (glibc's powf(2.5810324e38f, 0.5f) is one ulp above it), with pow's -0 and -inf cases.
TEST(PreludeFloat, PowerOneHalfIsSqrtWithPowsSpecialCases) {
  EXPECT_EQ(bits32(lf_power_one_half(f32(0x7f422ce0u))), bits32(std::sqrt(f32(0x7f422ce0u))));
  EXPECT_EQ(bits32(lf_power_one_half(-0.0f)), 0u);  // +0, where sqrt(-0) is -0
  EXPECT_EQ(lf_power_one_half(-kInf), kInf);        // where sqrt(-inf) is NaN
  EXPECT_EQ(lf_power_one_half(kInf), kInf);
  EXPECT_TRUE(std::isnan(lf_power_one_half(-1.0)));
  EXPECT_EQ(lf_power_one_half(2.25), 1.5);
  EXPECT_EQ(lf_power_one_half(h16(0x4400)).bits, 0x4000);  // f16 sqrt(4) = 2, in f32
}

TEST(PreludeFloat, HalfArithmeticRoundsOnce) {
  // f16: 1 + 2^-11 is a tie, rounds to even (1); 1 + 3*2^-11 rounds up to 1 + 2^-9.
  EXPECT_EQ(lf_add(h16(0x3c00), h16(0x1000)).bits, 0x3c00);  // 1 + 2^-11
  EXPECT_EQ(lf_add(h16(0x3c01), h16(0x1000)).bits, 0x3c02);  // (1 + 2^-10) + 2^-11
  EXPECT_EQ(lf_multiply(h16(0x5bff), h16(0x4000)).bits, 0x5fff);
  EXPECT_EQ(lf_multiply(h16(0x7bff), h16(0x4000)).bits, 0x7c00);  // overflows to inf
  EXPECT_EQ(lf_subtract(b16(0x3f80), b16(0x3f80)).bits, 0x0000);
  EXPECT_EQ(lf_divide(b16(0x3f80), b16(0x4040)).bits, 0x3eab);  // 1/3
  EXPECT_EQ(lf_sqrt(h16(0x4000)).bits, 0x3da8);                 // sqrt(2) = 1 + 424/1024 in f16
  EXPECT_EQ(lf_negate(h16(0x0000)).bits, 0x8000);
  EXPECT_EQ(lf_abs(b16(0xffc1)).bits, 0x7fc1);  // abs keeps a NaN's payload
  EXPECT_EQ(lf_negate(-0.0), 0.0);
  EXPECT_FALSE(lf_signbit(lf_negate(-0.0f)));
}

TEST(PreludeFloat, CompareFloatDirection) {
  EXPECT_FALSE(lf_compare_eq(kNan, kNan));
  EXPECT_TRUE(lf_compare_ne(kNan, kNan));
  EXPECT_FALSE(lf_compare_lt(kNan, 1.0f));
  EXPECT_FALSE(lf_compare_ge(kNan, 1.0f));
  EXPECT_TRUE(lf_compare_eq(-0.0f, 0.0f));
  EXPECT_TRUE(lf_compare_lt(h16(0xbc00), h16(0x0001)));
  EXPECT_TRUE(lf_compare_ne(b16(0x7fc0), b16(0x7fc0)));
  EXPECT_FALSE(lf_compare_le(b16(0x7fc0), b16(0x7fc0)));
}

TEST(PreludeFloat, CompareTotalOrder) {
  const float negNan = f32(0xffc00000u), posNan = f32(0x7fc00000u);
  // -NaN < -inf < -1 < -0 < +0 < 1e-45 < +inf < +NaN
  const float order[] = {negNan, -kInf, -1.0f, -0.0f, 0.0f, 1e-45f, kInf, posNan};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(lf_compare_totalorder_lt(order[i], order[j]), i < j) << i << " " << j;
      EXPECT_EQ(lf_compare_totalorder_le(order[i], order[j]), i <= j) << i << " " << j;
      EXPECT_EQ(lf_compare_totalorder_gt(order[i], order[j]), i > j) << i << " " << j;
      EXPECT_EQ(lf_compare_totalorder_ge(order[i], order[j]), i >= j) << i << " " << j;
      EXPECT_EQ(lf_compare_totalorder_eq(order[i], order[j]), i == j) << i << " " << j;
      EXPECT_EQ(lf_compare_totalorder_ne(order[i], order[j]), i != j) << i << " " << j;
    }
  }
  EXPECT_TRUE(lf_compare_totalorder_lt(f32(0x7fc00000u), f32(0x7fc00001u)));  // payloads
  EXPECT_TRUE(lf_compare_totalorder_lt(f32(0xffc00001u), f32(0xffc00000u)));
  EXPECT_TRUE(lf_compare_totalorder_lt(-0.0, 0.0));
  EXPECT_TRUE(lf_compare_totalorder_lt(f64(0xfff8000000000000ull), -1e308));
  EXPECT_TRUE(lf_compare_totalorder_lt(h16(0x8000), h16(0x0000)));
  EXPECT_TRUE(lf_compare_totalorder_gt(b16(0x7fc0), b16(0x7f80)));
  EXPECT_TRUE(lf_compare_totalorder_lt(b16(0xbf80), b16(0xbf00)));  // -1 < -0.5
}

TEST(PreludeFloat, IsFinite) {
  EXPECT_TRUE(lf_is_finite(3.0f));
  EXPECT_TRUE(lf_is_finite(std::numeric_limits<float>::max()));
  EXPECT_TRUE(lf_is_finite(1e-45f));
  EXPECT_FALSE(lf_is_finite(kInf));
  EXPECT_FALSE(lf_is_finite(-kInf));
  EXPECT_FALSE(lf_is_finite(kNan));
  EXPECT_FALSE(lf_is_finite(std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(lf_is_finite(1e308));
  EXPECT_FALSE(lf_is_finite(h16(0x7c00)));
  EXPECT_TRUE(lf_is_finite(h16(0x7bff)));
  EXPECT_FALSE(lf_is_finite(b16(0xff81)));
}

// jnp.tanh and jax.scipy.special.erf on these inputs, JAX 0.11.2 CPU.
constexpr float kTranscendentalInputs[] = {-25.0f, -8.5f, -3.0f, -1.0f, -0.3f, -1e-4f, 0.0f,
                                           1e-5f,  3e-4f, 5e-4f, 0.1f,  0.5f,  0.77f,  1.5f,
                                           4.0f,   7.9f,  8.2f,  19.9f, 21.0f};
constexpr uint32_t kJaxTanh[] = {0xbf800000, 0xbf800000, 0xbf7ebbe8, 0xbf42f7d6, 0xbe9526ed,
                                 0xb8d1b717, 0x0,        0x3727c5ac, 0x399d4952, 0x3a03126d,
                                 0x3dcc1ebb, 0x3eec9a9f, 0x3f259d2c, 0x3f67b7cb, 0x3f7fd40a,
                                 0x3f7ffffc, 0x3f800000, 0x3f800000, 0x3f800000};
constexpr uint32_t kJaxErf[] = {0xbf800000, 0xbf800000, 0xbf7ffe8e, 0xbf57bb3e, 0xbea841c6,
                                0xb8eca364, 0x0,        0x373d4f83, 0x39b17a8c, 0x3a13e61e,
                                0x3de652f5, 0x3f053f7b, 0x3f394c5f, 0x3f7752a9, 0x3f800000,
                                0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000};

TEST(PreludeFloat, TanhAndErfMatchXla) {
  for (size_t i = 0; i < sizeof(kTranscendentalInputs) / sizeof(float); ++i) {
    const float x = kTranscendentalInputs[i];
    // Same algorithm and coefficients as XLA's emitters, so the same bits.
    EXPECT_EQ(bits32(lf_tanh(x)), kJaxTanh[i]) << "tanh(" << x << ")";
    EXPECT_EQ(bits32(lf_erf(x)), kJaxErf[i]) << "erf(" << x << ")";
  }
  EXPECT_TRUE(std::isnan(lf_tanh(kNan)));
  EXPECT_TRUE(std::isnan(lf_erf(kNan)));
  EXPECT_EQ(lf_tanh(-kInf), -1.0f);
  EXPECT_EQ(lf_erf(kInf), 1.0f);
  EXPECT_EQ(bits32(lf_tanh(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits32(lf_erf(-0.0f)), 0x80000000u);
  EXPECT_DOUBLE_EQ(lf_erf(0.5), std::erf(0.5));
  EXPECT_EQ(lf_tanh(h16(0x3800)).bits, 0x3765);  // tanh(0.5) = 0.46212 -> f16 0.4621582
}

// jnp.exp and jnp.tanh (f64; tanh on the inputs / 40), JAX 0.11.2 CPU: XLA's own approximations,
// so the same bits (lf_xla_math.h; 200,000 inputs each in test_jit_math_bits.py).
constexpr double kExp64Inputs[] = {
    -745.5, -708.5, -622.7576750876301, -44.694691685622274, -1.0, -1e-3, 0.0, 0.5, 1.0, 2.5, 100.0,
    709.7,  709.8};
constexpr uint64_t kJaxExp64[] = {0x0,
                                  0x0,
                                  0x07c76f59970882a1,
                                  0x3be6ee2f0afaf9e4,
                                  0x3fd78b56362cef37,
                                  0x3feff7cfe56f1a9e,
                                  0x3ff0000000000000,
                                  0x3ffa61298e1e069c,
                                  0x4005bf0a8b14576a,
                                  0x40285d6fd931e0bb,
                                  0x48f3494a9b171bf5,
                                  0x7fed75ae7a50ee14,
                                  0x7ff0000000000000};
constexpr uint64_t kJaxTanh64[] = {0xbfeffffffffffff9,
                                   0xbfeffffffffffff7,
                                   0xbfeffffffffffde3,
                                   0xbfe9d0163b9448f8,
                                   0xbf99983c297a8788,
                                   0xbefa36e2eb04ce60,
                                   0x0,
                                   0x3f89994239606e13,
                                   0x3f99983c297a8788,
                                   0x3faff55997e030d8,
                                   0x3fef9258260a71c1,
                                   0x3feffffffffffff9,
                                   0x3feffffffffffff9};
TEST(PreludeFloat, ExpAndTanhMatchXla) {
  for (size_t i = 0; i < sizeof(kExp64Inputs) / sizeof(double); ++i) {
    const double x = kExp64Inputs[i];
    EXPECT_EQ(bits64(lf_exponential(x)), kJaxExp64[i]) << "exp(" << x << ")";
    EXPECT_EQ(bits64(lf_tanh(x / 40)), kJaxTanh64[i]) << "tanh(" << x / 40 << ")";
  }
  EXPECT_TRUE(std::isnan(lf_exponential(std::nan(""))));
  EXPECT_TRUE(std::isnan(lf_exponential(kNan)));
  EXPECT_EQ(lf_exponential(-kInf), 0.0f);
  EXPECT_EQ(lf_exponential((double)kInf), (double)kInf);
  EXPECT_EQ(lf_tanh(-1e300), -1.0);
  EXPECT_TRUE(std::isnan(lf_tanh(std::nan(""))));
  EXPECT_EQ(bits32(lf_tanh(f32(0x00000005))), 0x00000005u);  // a denormal passes through
}

// jnp.log1p (f64), JAX 0.11.2 CPU: XLA's Cephes rational on (sqrt(1/2) - 1, sqrt(2) - 1), log(1 +
// x) outside; glibc's log1p gives another last bit for 2.0 (500,000 inputs in
// test_jit_math_bits.py).
TEST(PreludeFloat, Log1pMatchesXla) {
  const double inputs[] = {-0.9, -0.35, -0.2928, -0.2, -1e-5, 1e-12, 0.3, 0.4142, 0.5, 2.0, 1e10};
  const uint64_t jax[] = {0xc0026bb1bbb55516, 0xbfdb91f28212ba02, 0xbfd62c1a17840102,
                          0xbfcc8ff7c79a9a22, 0xbee4f8bc681e6006, 0x3d719799812de065,
                          0x3fd0ca937be1b9dc, 0x3fd62e1ac5b1d182, 0x3fd9f323ecbf984c,
                          0x3ff193ea7aad030b, 0x4037069e2aa3184e};
  for (size_t i = 0; i < sizeof(inputs) / sizeof(double); ++i)
    EXPECT_EQ(bits64(lf_log_plus_one(inputs[i])), jax[i]) << "log1p(" << inputs[i] << ")";
  EXPECT_EQ(lf_log_plus_one(-1.0), -(double)kInf);
  EXPECT_TRUE(std::isnan(lf_log_plus_one(-2.0)));
  EXPECT_TRUE(std::isnan(lf_log_plus_one(std::nan(""))));
  EXPECT_EQ(lf_log_plus_one((double)kInf), (double)kInf);
}

TEST(PreludeFloat, OtherTranscendentals) {
  // Within an ulp or two of the correctly rounded values (worked out in double).
  EXPECT_LE(ulpDistance(lf_exponential(1.0f), (float)M_E), 1);
  EXPECT_LE(ulpDistance(lf_log(10.0f), (float)M_LN10), 1);
  EXPECT_EQ(lf_exponential_minus_one(1e-10f), 1e-10f);
  EXPECT_EQ(lf_log_plus_one(1e-10f), 1e-10f);
  EXPECT_EQ(lf_rsqrt(4.0f), 0.5f);
  EXPECT_FLOAT_EQ(lf_cbrt(-27.0f), -3.0f);  // libm cbrt is within an ulp, not exact
  EXPECT_DOUBLE_EQ(lf_cbrt(-27.0), -3.0);
  EXPECT_EQ(lf_logistic(0.0f), 0.5f);
  EXPECT_EQ(lf_logistic(-200.0f), 0.0f);
  EXPECT_EQ(lf_logistic(200.0f), 1.0f);
  EXPECT_LE(ulpDistance(lf_logistic(1.0f), (float)(1.0 / (1.0 + std::exp(-1.0)))), 2);
  EXPECT_LE(ulpDistance(lf_sine(1.0f), (float)std::sin(1.0)), 1);
  EXPECT_LE(ulpDistance(lf_cosine(1.0f), (float)std::cos(1.0)), 1);
  EXPECT_LE(ulpDistance(lf_tan(1.0f), (float)std::tan(1.0)), 1);
  EXPECT_EQ(lf_sqrt(2.0), std::sqrt(2.0));
  EXPECT_TRUE(std::isnan(lf_sqrt(-1.0f)));
  EXPECT_EQ(lf_log(0.0f), -kInf);
  EXPECT_EQ(lf_exponential(b16(0x0000)).bits, 0x3f80);  // bf16 exp(0) = 1
}

}  // namespace
