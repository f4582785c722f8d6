// The output comparison: per-dtype tolerances, NaN and infinity rules, error statistics. Expected
// numbers are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/tolerance.h"

namespace lf::runtime {
namespace {

template <class T>
HostArray array(DType dtype, std::vector<int64_t> dims, std::vector<T> values) {
  HostArray a;
  a.type.dtype = dtype;
  a.type.dims = std::move(dims);
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

HostArray f32(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return array(DType::F32, {n}, std::move(v));
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Tolerance, IntegersAndPredAreExactFloatsAreNot) {
  for (DType t : {DType::Pred, DType::S8, DType::S32, DType::S64, DType::U8, DType::U64})
    EXPECT_TRUE(toleranceFor(t).exact()) << dtypeName(t);
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64})
    EXPECT_FALSE(toleranceFor(t).exact()) << dtypeName(t);
  // Narrower types get looser tolerances.
  EXPECT_LT(toleranceFor(DType::F64).rtol, toleranceFor(DType::F32).rtol);
  EXPECT_LT(toleranceFor(DType::F32).rtol, toleranceFor(DType::F16).rtol);
  EXPECT_LE(toleranceFor(DType::F16).rtol, toleranceFor(DType::BF16).rtol);
}

TEST(Compare, F32WithinAndOutsideTolerance) {
  // f32: |a - e| <= 1e-6 + 1e-5 |e|. For e = 100 the bound is 1.001e-3.
  auto ok = compareArrays(f32({100.0005f, 1.0f}), f32({100.0f, 1.0f}));
  EXPECT_TRUE(ok.ok());
  EXPECT_NEAR(ok.maxAbsError, 5e-4, 1e-5);
  EXPECT_NEAR(ok.maxRelError, 5e-6, 1e-7);

  auto bad = compareArrays(f32({1.0f, 100.002f, 3.0f, -3.0f}), f32({1.0f, 100.0f, 3.0f, 3.0f}));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.mismatches, 2);
  EXPECT_EQ(bad.firstMismatch, 1);
  EXPECT_NEAR(bad.firstActual, 100.002, 1e-4);
  EXPECT_EQ(bad.firstExpected, 100.0);
  EXPECT_EQ(bad.maxAbsError, 6.0);  // -3 against 3
  EXPECT_EQ(bad.maxRelError, 2.0);
}

TEST(Compare, AbsoluteToleranceNearZero) {
  EXPECT_TRUE(compareArrays(f32({5e-7f}), f32({0.0f})).ok());
  EXPECT_FALSE(compareArrays(f32({2e-6f}), f32({0.0f})).ok());
}

TEST(Compare, NaNMatchesNaNOnly) {
  EXPECT_TRUE(compareArrays(f32({kNaN, -kNaN}), f32({kNaN, kNaN})).ok());
  EXPECT_FALSE(compareArrays(f32({kNaN}), f32({1.0f})).ok());
  EXPECT_FALSE(compareArrays(f32({1.0f}), f32({kNaN})).ok());
}

TEST(Compare, InfinityMustMatchExactly) {
  EXPECT_TRUE(compareArrays(f32({kInf, -kInf}), f32({kInf, -kInf})).ok());
  EXPECT_FALSE(compareArrays(f32({kInf}), f32({-kInf})).ok());
  EXPECT_FALSE(compareArrays(f32({kInf}), f32({3e38f})).ok());
  EXPECT_FALSE(compareArrays(f32({3e38f}), f32({kInf})).ok());
}

TEST(Compare, IntegersAreBitExact) {
  auto a = array<int32_t>(DType::S32, {3}, {1, 2, 3});
  EXPECT_TRUE(compareArrays(a, a).ok());
  auto off = compareArrays(array<int32_t>(DType::S32, {3}, {1, 2, 4}), a);
  EXPECT_EQ(off.mismatches, 1);
  EXPECT_EQ(off.firstMismatch, 2);
  EXPECT_EQ(off.maxAbsError, 1.0);
  // Values that differ below double precision still count as different.
  auto big = array<uint64_t>(DType::U64, {1}, {(uint64_t{1} << 60) + 1});
  auto big2 = array<uint64_t>(DType::U64, {1}, {uint64_t{1} << 60});
  EXPECT_FALSE(compareArrays(big, big2).ok());
}

TEST(Compare, PredComparesTruthValues) {
  auto t = array<uint8_t>(DType::Pred, {2}, {1, 0});
  EXPECT_TRUE(compareArrays(t, t).ok());
  EXPECT_FALSE(compareArrays(array<uint8_t>(DType::Pred, {2}, {1, 1}), t).ok());
}

TEST(Compare, HalfPrecisionDecodesBits) {
  // f16 0x3c00 = 1.0, 0x3c01 = 1 + 2^-10 (within 4e-3), 0x3c10 = 1 + 16 * 2^-10 (outside).
  auto one = array<uint16_t>(DType::F16, {1}, {0x3c00});
  EXPECT_TRUE(compareArrays(array<uint16_t>(DType::F16, {1}, {0x3c01}), one).ok());
  auto far = compareArrays(array<uint16_t>(DType::F16, {1}, {0x3c10}), one);
  EXPECT_FALSE(far.ok());
  EXPECT_DOUBLE_EQ(far.maxAbsError, 16.0 / 1024);
  // f16 infinity 0x7c00 and NaN 0x7e00.
  EXPECT_FALSE(compareArrays(array<uint16_t>(DType::F16, {1}, {0x7c00}), one).ok());
  auto nan = array<uint16_t>(DType::F16, {1}, {0x7e00});
  EXPECT_TRUE(compareArrays(nan, nan).ok());
}

TEST(Compare, Bfloat16AgainstU16BitsFromNpz) {
  // bf16 0x3fc0 = 1.5, 0x3fc1 = 1.5 + 2^-7 (0.5% off: within 3e-2), 0x4000 = 2.0 (outside).
  auto expected = array<uint16_t>(DType::U16, {1}, {0x3fc0});
  EXPECT_TRUE(compareArrays(array<uint16_t>(DType::BF16, {1}, {0x3fc1}), expected).ok());
  auto far = compareArrays(array<uint16_t>(DType::BF16, {1}, {0x4000}), expected);
  EXPECT_FALSE(far.ok());
  EXPECT_DOUBLE_EQ(far.maxAbsError, 0.5);
}

TEST(Compare, TypeAndShapeDifferencesAreErrors) {
  auto a = array<float>(DType::F32, {2, 1}, {1, 2});
  auto b = array<float>(DType::F32, {1, 2}, {1, 2});
  auto shape = compareArrays(a, b);
  EXPECT_FALSE(shape.ok());
  EXPECT_NE(shape.error.find("f32[2,1]"), std::string::npos) << shape.error;
  auto dtype = compareArrays(a, array<int32_t>(DType::S32, {2, 1}, {1, 2}));
  EXPECT_FALSE(dtype.ok());
  EXPECT_NE(dtype.error.find("s32[2,1]"), std::string::npos) << dtype.error;
}

TEST(Compare, F64IsTighterThanF32) {
  auto e = array<double>(DType::F64, {1}, {1.0});
  EXPECT_TRUE(compareArrays(array<double>(DType::F64, {1}, {1.0 + 1e-13}), e).ok());
  EXPECT_FALSE(compareArrays(array<double>(DType::F64, {1}, {1.0 + 1e-9}), e).ok());
}

// pow(-1e-20-40i, 1) in f32: XLA:CPU gave 3.02e-6-40i, the GPU's libdevice -1.75e-6-40i (40 *
// cos(fl(pi/2)) of either sign). Part by part the real parts are far apart (f32's atol is 1e-6);
// beside the modulus 40 the error 4.8e-6 is 1.2e-7 relative, inside f32's rtol 1e-5.
TEST(Compare, ComplexPairsAlsoMatchWithinTheirModulus) {
  auto c64 = [](std::vector<float> parts, bool complexPairs) {
    const int64_t n = static_cast<int64_t>(parts.size()) / 2;
    HostArray a = array(DType::F32, {n, 2}, std::move(parts));
    a.complexPairs = complexPairs;
    return a;
  };
  const HostArray gpu = c64({-1.74846e-6f, -40.0f, 1.0f, 2.0f}, false);
  EXPECT_TRUE(compareArrays(gpu, c64({3.019916e-6f, -40.0f, 1.0f, 2.0f}, true)).ok());
  // The same numbers as plain f32 pairs (not from a complex .npy): part by part, one mismatch.
  const ArrayComparison plain = compareArrays(gpu, c64({3.019916e-6f, -40.0f, 1.0f, 2.0f}, false));
  EXPECT_EQ(plain.mismatches, 1);
  EXPECT_EQ(plain.firstMismatch, 0);
  // An error large beside the modulus still fails: 1e-3 on a number of size 40 is 2.5e-5.
  const ArrayComparison far =
      compareArrays(c64({1e-3f, -40.0f, 1.0f, 2.0f}, false), c64({0.0f, -40.0f, 1.0f, 2.0f}, true));
  EXPECT_EQ(far.mismatches, 1);
  // Non-finite parts keep the part-by-part rule: inf matches only inf, NaN only NaN.
  EXPECT_EQ(compareArrays(c64({kInf, 1.0f}, false), c64({3e38f, 1.0f}, true)).mismatches, 1);
  EXPECT_TRUE(compareArrays(c64({kNaN, 1.0f}, false), c64({kNaN, 1.0f}, true)).ok());
}

}  // namespace
}  // namespace lf::runtime
