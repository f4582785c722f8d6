// lf_convert and the f16/bf16 formats of the kernel prelude. Expected f16/bf16 bit patterns were
// computed once with numpy (float16) and ml_dtypes (bfloat16) and checked by hand against the
// formats; float->int saturation values are JAX 0.11 CPU outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codegen/prelude_test_util.h"

using namespace lf_prelude_test;

namespace {

struct HalfCase {
  uint32_t f32_bits;
  uint16_t f16_bits, bf16_bits;
};

// f32 -> f16 and f32 -> bf16, round to nearest even, overflow to inf, subnormals.
constexpr HalfCase kHalfCases[] = {
    {0x3f800000u, 0x3c00, 0x3f80},  // 1
    {0x80000000u, 0x8000, 0x8000},  // -0
    {0x477fe000u, 0x7bff, 0x4780},  // 65504: f16 max
    {0x477ff000u, 0x7c00, 0x4780},  // 65520: halfway to 65536, ties to even = inf
    {0x477fefffu, 0x7bff, 0x4780},  // just under halfway
    {0x47800000u, 0x7c00, 0x4780},  // 65536
    {0x3f801000u, 0x3c00, 0x3f80},  // 1 + 2^-11: f16 tie, to even (down)
    {0x3f803000u, 0x3c02, 0x3f80},  // 1 + 3*2^-11: f16 tie, to even (up)
    {0x3f801001u, 0x3c01, 0x3f80},  // just above the f16 tie
    {0x33800000u, 0x0001, 0x3380},  // 2^-24: smallest f16 subnormal
    {0x33000000u, 0x0000, 0x3300},  // 2^-25: tie between 0 and 2^-24, to even (0)
    {0x33000001u, 0x0001, 0x3300},  // just above
    {0x33c00000u, 0x0002, 0x33c0},  // 1.5 * 2^-24: tie, to even (2)
    {0x387fc000u, 0x03ff, 0x3880},  // largest f16 subnormal
    {0x38800000u, 0x0400, 0x3880},  // 2^-14: smallest f16 normal
    {0x7f800000u, 0x7c00, 0x7f80},  // inf
    {0xff800000u, 0xfc00, 0xff80},  // -inf
    {0x7fc00000u, 0x7e00, 0x7fc0},  // quiet NaN
    {0xffc00000u, 0xfe00, 0xffc0},  // negative quiet NaN keeps its sign
    {0x3f808000u, 0x3c04, 0x3f80},  // 1 + 2^-8: bf16 tie, to even (down)
    {0x3f818000u, 0x3c0c, 0x3f82},  // 1 + 3*2^-8: bf16 tie, to even (up)
    {0x3f808001u, 0x3c04, 0x3f81},  // just above the bf16 tie
    {0x7f7fffffu, 0x7c00, 0x7f80},  // f32 max: bf16 rounds up to inf
    {0x00000001u, 0x0000, 0x0000},  // f32 smallest subnormal
    {0x007fffffu, 0x0000, 0x0080},  // f32 largest subnormal: bf16 rounds up to the smallest normal
    {0xc0490fdbu, 0xc248, 0xc049},  // -pi
    {0x3eaaaaabu, 0x3555, 0x3eab},  // 1/3
};

TEST(PreludeHalf, F32ToF16AndBf16RoundToNearestEven) {
  for (const HalfCase& c : kHalfCases) {
    SCOPED_TRACE(testing::Message() << std::hex << "f32 bits 0x" << c.f32_bits);
    EXPECT_EQ(lf_convert<lf_f16>(f32(c.f32_bits)).bits, c.f16_bits);
    EXPECT_EQ(lf_convert<lf_bf16>(f32(c.f32_bits)).bits, c.bf16_bits);
  }
}

TEST(PreludeHalf, SignalingNanIsQuieted) {
  // 0x7f800001: a signaling NaN whose payload lies below the kept bits; hardware conversions
  // (F16C, CUDA cvt) return a quiet NaN.
  EXPECT_EQ(lf_convert<lf_f16>(f32(0x7f800001u)).bits, 0x7e00);
  EXPECT_EQ(lf_convert<lf_bf16>(f32(0x7f800001u)).bits, 0x7fc0);
  // The top payload bits survive: f32 mantissa 0x412000 -> f16 0x200 | 0x209.
  EXPECT_EQ(lf_convert<lf_f16>(f32(0x7fc12000u)).bits, 0x7e09);
}

// NaN payloads through a conversion, as jax 0.11's XLA:CPU gives them (measured on every float
// pair with random payloads; tests/python/test_jit_reduce_precision.py checks them against it).
TEST(PreludeHalf, NanPayloadsFollowXlaCpu) {
  // f32 -> f16 keeps the sign and the top payload bits; -> bf16 is the canonical quiet NaN.
  EXPECT_EQ(lf_convert<lf_f16>(f32(0xff812345u)).bits, 0xfe09);
  EXPECT_EQ(lf_convert<lf_bf16>(f32(0xff812345u)).bits, 0xffc0);
  EXPECT_EQ(lf_convert<lf_bf16>(f32(0x7fffffffu)).bits, 0x7fc0);
  // f64 -> f16 and f64 -> bf16: canonical, with the sign.
  EXPECT_EQ(lf_convert<lf_f16>(f64(0xfff4000000000000ull)).bits, 0xfe00);
  EXPECT_EQ(lf_convert<lf_bf16>(f64(0x7ff4000000000000ull)).bits, 0x7fc0);
  // f16 -> f32 sets the quiet bit and keeps the payload; bf16 -> f32 is the plain shift.
  EXPECT_EQ(lf_bitcast<uint32_t>(lf_convert<float>(h16(0x7c01))), 0x7fc02000u);
  EXPECT_EQ(lf_bitcast<uint32_t>(lf_convert<float>(b16(0x7f81))), 0x7f810000u);
  // f16 -> bf16 (through f32): canonical.
  EXPECT_EQ(lf_convert<lf_bf16>(h16(0xfe09)).bits, 0xffc0);
}

TEST(PreludeHalf, HalfToFloatIsExact) {
  // Every f16 and bf16 pattern widens and rounds back to itself (NaNs stay NaN).
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const float h = lf_convert<float>(h16((uint16_t)b));
    const float bf = lf_convert<float>(b16((uint16_t)b));
    const bool h_nan = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
    const bool bf_nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f);
    ASSERT_EQ(std::isnan(h), h_nan) << b;
    ASSERT_EQ(std::isnan(bf), bf_nan) << b;
    if (!h_nan) {
      ASSERT_EQ(lf_convert<lf_f16>(h).bits, b);
    }
    if (!bf_nan) {
      ASSERT_EQ(lf_convert<lf_bf16>(bf).bits, b);
    }
    ASSERT_EQ(bits32(bf), b << 16);
  }
  EXPECT_EQ(bits32(lf_convert<float>(h16(0x0001))), 0x33800000u);  // 2^-24
  EXPECT_EQ(bits32(lf_convert<float>(h16(0x03ff))), 0x387fc000u);
  EXPECT_EQ(bits32(lf_convert<float>(h16(0x8001))), 0xb3800000u);
  EXPECT_EQ(bits32(lf_convert<float>(h16(0x7c00))), 0x7f800000u);
  EXPECT_EQ(bits32(lf_convert<float>(h16(0x7e01))), 0x7fc02000u);  // payload kept
  EXPECT_EQ(lf_convert<double>(h16(0x3555)), 0x1.554p-2);
}

TEST(PreludeHalf, DoubleRoundsOnceNotThroughFloat) {
  // Through float these round to 0x3c00 and 0x0000 (two ties resolved downwards).
  EXPECT_EQ(lf_convert<lf_f16>(1.0 + 0x1p-11 + 0x1p-40).bits, 0x3c01);
  EXPECT_EQ(lf_convert<lf_f16>(0x1p-25 + 0x1p-60).bits, 0x0001);
  EXPECT_EQ(lf_convert<lf_f16>(0x1p-25).bits, 0x0000);
  EXPECT_EQ(lf_convert<lf_f16>(65520.0).bits, 0x7c00);
  EXPECT_EQ(lf_convert<lf_f16>(65519.99).bits, 0x7bff);
  EXPECT_EQ(lf_convert<lf_f16>(-1e300).bits, 0xfc00);
  EXPECT_EQ(lf_convert<lf_f16>(1e-300).bits, 0x0000);
  // bf16: 1 + 2^-8 + 2^-30 is above the tie (0x3f81); through float it would become the tie.
  EXPECT_EQ(lf_convert<lf_bf16>(1.0 + 0x1p-8 + 0x1p-30).bits, 0x3f81);
  EXPECT_EQ(lf_convert<lf_bf16>(std::numeric_limits<double>::quiet_NaN()).bits, 0x7fc0);
  EXPECT_EQ(lf_convert<lf_bf16>(0x1p-133).bits, 0x0001);  // the smallest bf16 subnormal
}

TEST(PreludeHalf, IntegersRoundOnce) {
  // 2^40 + 2^32 + 1 is just above a bf16 tie: 2^40 + 2^33 = 0x5381. (XLA's CPU emitter goes
  // through f32 and returns 0x5380; the exact result is the one documented for loopfuse.)
  EXPECT_EQ(lf_convert<lf_bf16>((int64_t)((1ll << 40) + (1ll << 32) + 1)).bits, 0x5381);
  EXPECT_EQ(lf_convert<lf_bf16>((int64_t) - ((1ll << 40) + (1ll << 32) + 1)).bits, 0xd381);
  EXPECT_EQ(lf_convert<lf_f16>(65519).bits, 0x7bff);
  EXPECT_EQ(lf_convert<lf_f16>(65520).bits, 0x7c00);
  EXPECT_EQ(lf_convert<lf_f16>((int8_t)-128).bits, 0xd800);  // -2^7
  EXPECT_EQ(lf_convert<lf_f16>(INT64_MIN).bits, 0xfc00);
  EXPECT_EQ(lf_convert<lf_bf16>(INT64_MIN).bits, 0xdf00);      // -2^63
  EXPECT_EQ(lf_convert<lf_bf16>(UINT64_MAX).bits, 0x5f80);     // rounds up to 2^64
  EXPECT_EQ(lf_convert<lf_f16>((uint16_t)2049).bits, 0x6800);  // tie 2048|2050, to even 2048
  EXPECT_EQ(lf_convert<lf_f16>((uint16_t)2051).bits, 0x6802);  // tie 2050|2052, to even 2052
  EXPECT_EQ(lf_convert<lf_f16>(0).bits, 0x0000);
}

TEST(PreludeConvert, FloatToSignedTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(lf_convert<int32_t>(nan), 0);
  EXPECT_EQ(lf_convert<int32_t>(3e9f), INT32_MAX);
  EXPECT_EQ(lf_convert<int32_t>(-3e9f), INT32_MIN);
  EXPECT_EQ(lf_convert<int32_t>(-2.9f), -2);
  EXPECT_EQ(lf_convert<int32_t>(2.9f), 2);
  EXPECT_EQ(lf_convert<int32_t>(2147483520.0f), 2147483520);
  EXPECT_EQ(lf_convert<int32_t>(-2147483648.0f), INT32_MIN);
  EXPECT_EQ(lf_convert<int32_t>(inf), INT32_MAX);
  EXPECT_EQ(lf_convert<int32_t>(-inf), INT32_MIN);
  EXPECT_EQ(lf_convert<int8_t>(nan), 0);
  EXPECT_EQ(lf_convert<int8_t>(300.0f), 127);
  EXPECT_EQ(lf_convert<int8_t>(-300.0f), -128);
  EXPECT_EQ(lf_convert<int8_t>(127.9f), 127);
  EXPECT_EQ(lf_convert<int8_t>(-128.9f), -128);
  EXPECT_EQ(lf_convert<int16_t>(-40000.0), INT16_MIN);
  EXPECT_EQ(lf_convert<int64_t>(std::nan("")), 0);
  EXPECT_EQ(lf_convert<int64_t>(1e19), INT64_MAX);
  EXPECT_EQ(lf_convert<int64_t>(-1e19), INT64_MIN);
  EXPECT_EQ(lf_convert<int64_t>(9223372036854774784.0), 9223372036854774784ll);
  EXPECT_EQ(lf_convert<int64_t>(1e19f), INT64_MAX);
  EXPECT_EQ(lf_convert<int32_t>(h16(0xfc00)), INT32_MIN);  // f16 -inf
  EXPECT_EQ(lf_convert<int32_t>(b16(0xc049)), -3);         // bf16 -3.140625
  EXPECT_EQ(lf_convert<int32_t>(h16(0x7e00)), 0);          // f16 NaN
}

TEST(PreludeConvert, FloatToUnsignedClampsAtZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(lf_convert<uint32_t>(nan), 0u);
  EXPECT_EQ(lf_convert<uint32_t>(-1.0f), 0u);
  EXPECT_EQ(lf_convert<uint32_t>(-0.5f), 0u);
  EXPECT_EQ(lf_convert<uint32_t>(4.5e9f), UINT32_MAX);
  EXPECT_EQ(lf_convert<uint32_t>(4294967040.0f), 4294967040u);
  EXPECT_EQ(lf_convert<uint32_t>(3.99f), 3u);
  EXPECT_EQ(lf_convert<uint8_t>(nan), 0);
  EXPECT_EQ(lf_convert<uint8_t>(300.0f), 255);
  EXPECT_EQ(lf_convert<uint8_t>(-3.0f), 0);
  EXPECT_EQ(lf_convert<uint8_t>(255.9f), 255);
  EXPECT_EQ(lf_convert<uint64_t>(std::nan("")), 0u);
  EXPECT_EQ(lf_convert<uint64_t>(2e19), UINT64_MAX);
  EXPECT_EQ(lf_convert<uint64_t>(-1.0), 0u);
  EXPECT_EQ(lf_convert<uint64_t>(18446744073709549568.0), 18446744073709549568ull);
  EXPECT_EQ(lf_convert<uint16_t>(h16(0x7c00)), UINT16_MAX);  // f16 inf
}

TEST(PreludeConvert, IntegerToFloatRoundsToNearestEven) {
  EXPECT_EQ(lf_convert<float>(UINT64_MAX), 0x1p64f);
  EXPECT_EQ(lf_convert<float>((uint64_t)(1 << 24) + 1), 16777216.0f);
  EXPECT_EQ(lf_convert<float>((uint64_t)(1 << 24) + 3), 16777220.0f);
  EXPECT_EQ(lf_convert<float>(INT32_MIN), -0x1p31f);
  EXPECT_EQ(lf_convert<double>(INT64_MAX), 0x1p63);
  EXPECT_EQ(lf_convert<double>((int8_t)-7), -7.0);
  EXPECT_EQ(bits32(lf_convert<float>(1e300)), 0x7f800000u);     // double -> float overflows
  EXPECT_EQ(bits32(lf_convert<float>(0x1p-150)), 0x00000000u);  // tie with 0, to even
}

TEST(PreludeConvert, PredConversions) {
  EXPECT_TRUE(lf_convert<bool>(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(lf_convert<bool>(-0.0f));
  EXPECT_TRUE(lf_convert<bool>(0x1p-149f));  // a subnormal is not zero
  EXPECT_TRUE(lf_convert<bool>(h16(0x7e00)));
  EXPECT_FALSE(lf_convert<bool>(b16(0x8000)));
  EXPECT_TRUE(lf_convert<bool>((int8_t)-128));
  EXPECT_TRUE(lf_convert<bool>((uint64_t)1 << 63));
  EXPECT_FALSE(lf_convert<bool>(0));
  EXPECT_EQ(lf_convert<int32_t>(true), 1);
  EXPECT_EQ(lf_convert<uint64_t>(true), 1u);
  EXPECT_EQ(lf_convert<float>(true), 1.0f);
  EXPECT_EQ(lf_convert<lf_f16>(true).bits, 0x3c00);
  EXPECT_EQ(lf_convert<lf_bf16>(false).bits, 0x0000);
  EXPECT_TRUE(lf_convert<bool>(true));
}

TEST(PreludeConvert, IntegerToIntegerBySourceSignedness) {
  EXPECT_EQ(lf_convert<int8_t>(-129), 127);
  EXPECT_EQ(lf_convert<int8_t>(255), -1);
  EXPECT_EQ(lf_convert<int8_t>(128), -128);
  EXPECT_EQ(lf_convert<uint32_t>((int8_t)-1), 0xffffffffu);  // sign-extends
  EXPECT_EQ(lf_convert<int32_t>((uint8_t)255), 255);         // zero-extends
  EXPECT_EQ(lf_convert<uint64_t>((int32_t)-2), 0xfffffffffffffffeull);
  EXPECT_EQ(lf_convert<int64_t>((uint32_t)0x80000000u), 0x80000000ll);
  EXPECT_EQ(lf_convert<int32_t>((uint32_t)0x80000000u), INT32_MIN);  // same width: same bits
  EXPECT_EQ(lf_convert<uint16_t>((int64_t)-65535), 1);               // truncates
}

TEST(PreludeConvert, HalfToHalfRoundsOnce) {
  EXPECT_EQ(lf_convert<lf_bf16>(h16(0x3c01)).bits, 0x3f80);  // 1 + 2^-10 -> bf16 1
  EXPECT_EQ(lf_convert<lf_f16>(b16(0x4780)).bits, 0x7c00);   // 65536 overflows f16
  EXPECT_EQ(lf_convert<lf_f16>(b16(0x3380)).bits, 0x0001);   // 2^-24 is an f16 subnormal
  EXPECT_EQ(lf_convert<lf_f16>(h16(0x1234)).bits, 0x1234);
}

TEST(PreludeBitcast, KeepsBits) {
  EXPECT_EQ(lf_bitcast<uint32_t>(1.0f), 0x3f800000u);
  EXPECT_EQ(lf_bitcast<int32_t>(-0.0f), INT32_MIN);
  EXPECT_EQ(lf_bitcast<double>((uint64_t)0x3ff0000000000000ull), 1.0);
  EXPECT_EQ(lf_bitcast<uint16_t>(h16(0xabcd)), 0xabcd);
  EXPECT_EQ(lf_bitcast<lf_bf16>((int16_t)-1).bits, 0xffff);
  EXPECT_EQ(lf_bitcast<lf_f16>(b16(0x3f80)).bits, 0x3f80);
}

}  // namespace

// reduce-precision, worked out by hand from the formats (f16 is E=5, M=10; bf16 is E=8, M=7).
TEST(PreludeReducePrecision, RoundsTheMantissaToNearestEven) {
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(f32(0x3f802000u))), 0x3f802000u);  // 1 + 2^-10
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(f32(0x3f801000u))), 0x3f800000u);  // tie, down
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(f32(0x3f803000u))), 0x3f804000u);  // tie, up
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(f32(0x3f801001u))), 0x3f802000u);  // above tie
  EXPECT_EQ(bits32(lf_reduce_precision<8, 7>(f32(0x3f808000u))), 0x3f800000u);   // bf16 tie
  // A carry out of the mantissa moves into the exponent: 2 - 2^-23 -> 2.
  EXPECT_EQ(bits32(lf_reduce_precision<8, 7>(f32(0x3fffffffu))), 0x40000000u);
  // No mantissa bits: the exponent field's lowest bit is the last one kept, so a tie goes to the
  // even field. 1.5 (field 127) -> 2 (128); 3 (field 128) -> 2, not 4; 1.25 -> 1.
  EXPECT_EQ((lf_reduce_precision<8, 0>(1.5f)), 2.0f);
  EXPECT_EQ((lf_reduce_precision<8, 0>(1.25f)), 1.0f);
  EXPECT_EQ((lf_reduce_precision<11, 0>(-3.0)), -2.0);
  EXPECT_EQ((lf_reduce_precision<11, 0>(-6.0)), -8.0);
}

TEST(PreludeReducePrecision, FlushesOutsideTheExponentRange) {
  EXPECT_EQ((lf_reduce_precision<5, 10>(65504.0f)), 65504.0f);           // f16 max
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(65520.0f)), 0x7f800000u);  // rounds to 2^16: inf
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(-1e6f)), 0xff800000u);
  EXPECT_EQ((lf_reduce_precision<5, 10>(0x1p-14f)), 0x1p-14f);  // f16's smallest normal
  // f16 subnormals flush to a zero of the same sign.
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(0x1p-15f)), 0x00000000u);
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(-0x1p-20f)), 0x80000000u);
  EXPECT_EQ(bits64(lf_reduce_precision<8, 23>(1e300)), bits64(INFINITY));
  EXPECT_EQ(bits64(lf_reduce_precision<8, 23>(-1e-300)), 0x8000000000000000ull);
  // In the source format's own widths nothing changes, its subnormals included.
  EXPECT_EQ(bits32(lf_reduce_precision<8, 23>(f32(0x00000001u))), 0x00000001u);
  EXPECT_EQ((lf_reduce_precision<5, 10>(h16(0x0001)).bits), 0x0001);
  EXPECT_EQ((lf_reduce_precision<64, 64>(0.1)), 0.1);
}

TEST(PreludeReducePrecision, NanPassesThrough) {
  EXPECT_EQ(bits32(lf_reduce_precision<5, 10>(f32(0xff812345u))), 0xff812345u);
  EXPECT_EQ(bits32(lf_reduce_precision<1, 0>(f32(0x7f800001u))), 0x7f800001u);
  EXPECT_EQ(bits32(lf_reduce_precision<1, 0>(INFINITY)), 0x7f800000u);
  EXPECT_EQ((lf_reduce_precision<3, 2>(h16(0x7c01)).bits), 0x7c01);
  // bf16 goes through f32 in XLA:CPU: the conversion back makes the canonical quiet NaN.
  EXPECT_EQ((lf_reduce_precision<8, 7>(b16(0xff81)).bits), 0xffc0);
}
