// Integer semantics of the kernel prelude: XLA's rules for division by zero, overflow, shifts past
// the width, power, sign, popcount and clz (xla-op-semantics.md sections 1-2). Every expected
// value is worked out by hand from those rules.
#include <gtest/gtest.h>

#include "codegen/prelude_test_util.h"

namespace {

TEST(PreludeInteger, DivideByZeroIsAllOnes) {
  EXPECT_EQ(lf_divide(7, 0), -1);
  EXPECT_EQ(lf_divide(-7, 0), -1);
  EXPECT_EQ(lf_divide(7u, 0u), 0xffffffffu);
  EXPECT_EQ(lf_divide((uint8_t)7, (uint8_t)0), 255);
  EXPECT_EQ(lf_divide((int64_t)5, (int64_t)0), -1);
  EXPECT_EQ(lf_divide(INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(lf_divide((int8_t)-128, (int8_t)-1), -128);
  EXPECT_EQ(lf_divide(INT64_MIN, (int64_t)-1), INT64_MIN);
  EXPECT_EQ(lf_divide(-7, 2), -3);  // truncates toward zero
  EXPECT_EQ(lf_divide(7, -2), -3);
  EXPECT_EQ(lf_divide(9, -1), -9);
  EXPECT_EQ(lf_divide(0xfffffffeu, 0xffffffffu), 0u);  // unsigned: -1 is just a big number
}

TEST(PreludeInteger, RemainderByZeroIsDividend) {
  EXPECT_EQ(lf_remainder(7, 0), 7);
  EXPECT_EQ(lf_remainder(-7, 0), -7);
  EXPECT_EQ(lf_remainder(7u, 0u), 7u);
  EXPECT_EQ(lf_remainder(INT32_MIN, -1), 0);
  EXPECT_EQ(lf_remainder((int16_t)-32768, (int16_t)-1), 0);
  EXPECT_EQ(lf_remainder(-7, 2), -1);  // sign of the dividend
  EXPECT_EQ(lf_remainder(7, -2), 1);
  EXPECT_EQ(lf_remainder((uint8_t)200, (uint8_t)7), 4);
}

TEST(PreludeInteger, ArithmeticWraps) {
  EXPECT_EQ(lf_add(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(lf_subtract(INT32_MIN, 1), INT32_MAX);
  EXPECT_EQ(lf_multiply(65536, 65536), 0);
  EXPECT_EQ(lf_multiply((uint16_t)65535, (uint16_t)65535), 1);  // no promotion to signed int
  EXPECT_EQ(lf_multiply((int8_t)16, (int8_t)16), 0);
  EXPECT_EQ(lf_multiply((int8_t)-128, (int8_t)-1), -128);
  EXPECT_EQ(lf_add((uint8_t)250, (uint8_t)10), 4);
  EXPECT_EQ(lf_subtract((uint32_t)0, (uint32_t)1), 0xffffffffu);
  EXPECT_EQ(lf_multiply(INT64_MAX, (int64_t)2), (int64_t)-2);
  EXPECT_EQ(lf_negate(INT32_MIN), INT32_MIN);
  EXPECT_EQ(lf_negate((int8_t)5), -5);
  EXPECT_EQ(lf_negate((uint32_t)1), 0xffffffffu);
  EXPECT_EQ(lf_abs(INT32_MIN), INT32_MIN);
  EXPECT_EQ(lf_abs((int8_t)-128), -128);
  EXPECT_EQ(lf_abs((int16_t)-300), 300);
  EXPECT_EQ(lf_abs((uint8_t)200), 200);
}

TEST(PreludeInteger, ShiftsPastTheWidth) {
  EXPECT_EQ(lf_shift_left(1, 31), INT32_MIN);
  EXPECT_EQ(lf_shift_left(1, 32), 0);
  EXPECT_EQ(lf_shift_left(1, -1), 0);  // negative amounts compare as huge unsigned
  EXPECT_EQ(lf_shift_left((uint8_t)0x81, (uint8_t)1), 0x02);
  EXPECT_EQ(lf_shift_left((int8_t)1, (int8_t)8), 0);
  EXPECT_EQ(lf_shift_left((uint64_t)1, (uint64_t)63), (uint64_t)1 << 63);
  EXPECT_EQ(lf_shift_right_logical(-1, 28), 0xf);
  EXPECT_EQ(lf_shift_right_logical(-1, 32), 0);
  EXPECT_EQ(lf_shift_right_logical(-1, -5), 0);
  EXPECT_EQ(lf_shift_right_logical((int8_t)-128, (int8_t)7), 1);
  EXPECT_EQ(lf_shift_right_logical(0xffffffffu, 32u), 0u);  // JAX's seed uses x >> 32 = 0
  EXPECT_EQ(lf_shift_right_arithmetic(-8, 1), -4);
  EXPECT_EQ(lf_shift_right_arithmetic(-8, 32), -1);
  EXPECT_EQ(lf_shift_right_arithmetic(-8, -1), -1);
  EXPECT_EQ(lf_shift_right_arithmetic(8, 40), 0);
  EXPECT_EQ(lf_shift_right_arithmetic(0x80000000u, 4u), 0xf8000000u);  // unsigned: sign bit fills
  EXPECT_EQ(lf_shift_right_arithmetic(0x80000000u, 99u), 0xffffffffu);
  EXPECT_EQ(lf_shift_right_arithmetic((int16_t)-2, (int16_t)16), -1);
}

TEST(PreludeInteger, PowerUsesSixExponentBits) {
  EXPECT_EQ(lf_power(2, 10), 1024);
  EXPECT_EQ(lf_power(0, 0), 1);
  EXPECT_EQ(lf_power(-3, 3), -27);
  EXPECT_EQ(lf_power(2, 31), INT32_MIN);  // wraps
  EXPECT_EQ(lf_power(3, 64), 1);          // low 6 bits of 64 are 0: 3^0
  EXPECT_EQ(lf_power(3, 65), 3);          // 3^1
  EXPECT_EQ(lf_power((int64_t)3, (int64_t)40), (int64_t)12157665459056928801ull);
  EXPECT_EQ(lf_power(1, -5), 1);
  EXPECT_EQ(lf_power(-1, -3), -1);
  EXPECT_EQ(lf_power(-1, -2), 1);
  EXPECT_EQ(lf_power(2, -1), 0);
  EXPECT_EQ(lf_power(0, -1), 0);
  EXPECT_EQ(lf_power((uint8_t)3, (uint8_t)5), 243);
  EXPECT_EQ(lf_power((uint32_t)2, 0x80000001u), 2u);  // unsigned: never negative; 6 bits -> 2^1
}

TEST(PreludeInteger, SignNotPopcountClz) {
  EXPECT_EQ(lf_sign(-5), -1);
  EXPECT_EQ(lf_sign(0), 0);
  EXPECT_EQ(lf_sign(INT32_MIN), -1);
  EXPECT_EQ(lf_sign((int64_t)7), 1);
  EXPECT_EQ(lf_sign(0xffffffffu), 1u);
  EXPECT_EQ(lf_sign((uint8_t)0), 0);
  EXPECT_EQ(lf_not(true), false);
  EXPECT_EQ(lf_not(false), true);
  EXPECT_EQ(lf_not(0), -1);
  EXPECT_EQ(lf_not((uint8_t)0x0f), 0xf0);
  EXPECT_EQ(lf_popcnt(-1), 32);
  EXPECT_EQ(lf_popcnt((int8_t)-1), 8);
  EXPECT_EQ(lf_popcnt((uint64_t)0xf0f0), (uint64_t)8);
  EXPECT_EQ(lf_count_leading_zeros(0), 32);
  EXPECT_EQ(lf_count_leading_zeros(1), 31);
  EXPECT_EQ(lf_count_leading_zeros(-1), 0);
  EXPECT_EQ(lf_count_leading_zeros((uint8_t)1), 7);
  EXPECT_EQ(lf_count_leading_zeros((int16_t)0), 16);
  EXPECT_EQ(lf_count_leading_zeros((uint64_t)0), (uint64_t)64);
}

TEST(PreludeInteger, LogicalAndBitwise) {
  EXPECT_EQ(lf_and(true, false), false);
  EXPECT_EQ(lf_or(true, false), true);
  EXPECT_EQ(lf_xor(true, true), false);
  EXPECT_EQ(lf_and(0xf0, 0x3c), 0x30);
  EXPECT_EQ(lf_or((uint8_t)0xf0, (uint8_t)0x0f), 0xff);
  EXPECT_EQ(lf_xor((int8_t)-1, (int8_t)1), -2);
  EXPECT_EQ(lf_maximum(-3, 2), 2);
  EXPECT_EQ(lf_minimum(0xffffffffu, 1u), 1u);  // unsigned order
  EXPECT_EQ(lf_clamp(0, 17, 10), 10);
  EXPECT_EQ(lf_clamp(0, -4, 10), 0);
  EXPECT_EQ(lf_select(true, 1, 2), 1);
  EXPECT_EQ(lf_select(false, 1, 2), 2);
}

TEST(PreludeInteger, ComparesBySignedness) {
  EXPECT_TRUE(lf_compare_lt(-1, 0));
  EXPECT_FALSE(lf_compare_lt(0xffffffffu, 0u));
  EXPECT_TRUE(lf_compare_gt((uint8_t)200, (uint8_t)100));
  EXPECT_TRUE(lf_compare_lt((int8_t)-56, (int8_t)100));
  EXPECT_TRUE(lf_compare_lt(false, true));  // pred compares as unsigned
  EXPECT_TRUE(lf_compare_ge(true, true));
  EXPECT_TRUE(lf_compare_ne(INT64_MIN, INT64_MAX));
  EXPECT_TRUE(lf_compare_eq((uint16_t)7, (uint16_t)7));
  EXPECT_TRUE(lf_compare_le(-5, -5));
}

}  // namespace
