// The folder's scalar rules against the kernel prelude's (src/codegen/prelude/lf_common.h), which
// is what the generated code runs: folding an op must give the bits that running it gives. 8-bit
// types are checked exhaustively, wider ones on edge values (0, +-1, the extremes, the shift
// widths) and a pseudo-random sample.
// clang-format off
#include "codegen/prelude/lf_cpu.h"
#include "codegen/prelude/lf_common.h"
// clang-format on

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "ir/clone.h"
#include "passes/fold.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

template <class T>
constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, bool>) return DType::Pred;
  if constexpr (std::is_same_v<T, int8_t>) return DType::S8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::S16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::S32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::S64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::U8;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::U16;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::U32;
  return DType::U64;
}

template <class T>
uint64_t bitsOf(T x) {
  return static_cast<uint64_t>(static_cast<typename lf_traits<T>::U>(x));
}

template <class T>
std::vector<T> samples() {
  std::vector<T> out;
  if constexpr (std::is_same_v<T, bool>) {
    out = {false, true};
  } else if constexpr (sizeof(T) == 1) {
    for (int v = 0; v < 256; ++v) out.push_back(static_cast<T>(v));
  } else {
    using L = std::numeric_limits<T>;
    const int w = lf_traits<T>::bits;
    for (int64_t v : {0, 1, 2, 3, 7, -1, -2, -3, -7, w - 1, w, w + 1, 2 * w, 100, -100}) {
      out.push_back(static_cast<T>(v));
    }
    for (T v : {L::min(), L::max(), static_cast<T>(L::min() + 1), static_cast<T>(L::max() - 1)}) {
      out.push_back(v);
    }
    std::mt19937_64 rng(42);
    for (int i = 0; i < 24; ++i) out.push_back(static_cast<T>(rng()));
  }
  return out;
}

std::unique_ptr<ir::Op> opOf(K kind, DType result, ir::Attrs attrs = ir::NoAttrs{}) {
  return ir::makeOp(kind, {}, {ir::Type{result, {}}}, std::move(attrs));
}

template <class T, class R, class F>
void checkUnary(K kind, F reference) {
  auto op = opOf(kind, dtypeOf<R>());
  for (T a : samples<T>()) {
    std::optional<uint64_t> got = evalElement(*op, dtypeOf<T>(), {bitsOf(a)});
    ASSERT_TRUE(got) << ir::opKindName(kind);
    EXPECT_EQ(*got, bitsOf<R>(reference(a))) << ir::opKindName(kind) << " of " << bitsOf(a);
  }
}

template <class T, class R, class F>
void checkBinary(const ir::Op& op, F reference) {
  for (T a : samples<T>()) {
    for (T b : samples<T>()) {
      std::optional<uint64_t> got = evalElement(op, dtypeOf<T>(), {bitsOf(a), bitsOf(b)});
      ASSERT_TRUE(got) << ir::opKindName(op.kind);
      ASSERT_EQ(*got, bitsOf<R>(reference(a, b)))
          << ir::opKindName(op.kind) << "(" << bitsOf(a) << ", " << bitsOf(b) << ")";
    }
  }
}

template <class T, class F>
void checkBinary(K kind, F reference) {
  checkBinary<T, T>(*opOf(kind, dtypeOf<T>()), reference);
}

template <class T>
void checkCompare() {
  using D = ir::CompareDirection;
  const ir::CompareType type =
      std::is_signed_v<T> ? ir::CompareType::Signed : ir::CompareType::Unsigned;
  auto op = [&](D d) { return opOf(K::Compare, DType::Pred, ir::CompareAttrs{d, type}); };
  checkBinary<T, bool>(*op(D::EQ), [](T a, T b) { return lf_compare_eq(a, b); });
  checkBinary<T, bool>(*op(D::NE), [](T a, T b) { return lf_compare_ne(a, b); });
  checkBinary<T, bool>(*op(D::LT), [](T a, T b) { return lf_compare_lt(a, b); });
  checkBinary<T, bool>(*op(D::LE), [](T a, T b) { return lf_compare_le(a, b); });
  checkBinary<T, bool>(*op(D::GT), [](T a, T b) { return lf_compare_gt(a, b); });
  checkBinary<T, bool>(*op(D::GE), [](T a, T b) { return lf_compare_ge(a, b); });
}

template <class T>
void checkInteger() {
  checkBinary<T>(K::Add, [](T a, T b) { return lf_add(a, b); });
  checkBinary<T>(K::Subtract, [](T a, T b) { return lf_subtract(a, b); });
  checkBinary<T>(K::Multiply, [](T a, T b) { return lf_multiply(a, b); });
  checkBinary<T>(K::Divide, [](T a, T b) { return lf_divide(a, b); });
  checkBinary<T>(K::Remainder, [](T a, T b) { return lf_remainder(a, b); });
  checkBinary<T>(K::Maximum, [](T a, T b) { return lf_maximum(a, b); });
  checkBinary<T>(K::Minimum, [](T a, T b) { return lf_minimum(a, b); });
  checkBinary<T>(K::And, [](T a, T b) { return lf_and(a, b); });
  checkBinary<T>(K::Or, [](T a, T b) { return lf_or(a, b); });
  checkBinary<T>(K::Xor, [](T a, T b) { return lf_xor(a, b); });
  checkBinary<T>(K::ShiftLeft, [](T a, T b) { return lf_shift_left(a, b); });
  checkBinary<T>(K::ShiftRightLogical, [](T a, T b) { return lf_shift_right_logical(a, b); });
  checkBinary<T>(K::ShiftRightArithmetic, [](T a, T b) { return lf_shift_right_arithmetic(a, b); });
  checkUnary<T, T>(K::Negate, [](T a) { return lf_negate(a); });
  checkUnary<T, T>(K::Abs, [](T a) { return lf_abs(a); });
  checkUnary<T, T>(K::Sign, [](T a) { return lf_sign(a); });
  checkUnary<T, T>(K::Not, [](T a) { return lf_not(a); });
  checkUnary<T, T>(K::Popcnt, [](T a) { return lf_popcnt(a); });
  checkUnary<T, T>(K::Clz, [](T a) { return lf_count_leading_zeros(a); });
  checkCompare<T>();
}

TEST(Fold, SignedIntegersMatchThePrelude) {
  checkInteger<int8_t>();
  checkInteger<int16_t>();
  checkInteger<int32_t>();
  checkInteger<int64_t>();
}

TEST(Fold, UnsignedIntegersMatchThePrelude) {
  checkInteger<uint8_t>();
  checkInteger<uint16_t>();
  checkInteger<uint32_t>();
  checkInteger<uint64_t>();
}

TEST(Fold, PredMatchesThePrelude) {
  checkBinary<bool>(K::And, [](bool a, bool b) { return lf_and(a, b); });
  checkBinary<bool>(K::Or, [](bool a, bool b) { return lf_or(a, b); });
  checkBinary<bool>(K::Xor, [](bool a, bool b) { return lf_xor(a, b); });
  checkBinary<bool>(K::Maximum, [](bool a, bool b) { return lf_maximum(a, b); });
  checkBinary<bool>(K::Minimum, [](bool a, bool b) { return lf_minimum(a, b); });
  checkUnary<bool, bool>(K::Not, [](bool a) { return lf_not(a); });
  checkCompare<bool>();
}

template <class From, class To>
void checkConvert() {
  checkUnary<From, To>(K::Convert, [](From a) { return lf_convert<To>(a); });
}

template <class From>
void checkConvertsFrom() {
  checkConvert<From, bool>();
  checkConvert<From, int8_t>();
  checkConvert<From, int16_t>();
  checkConvert<From, int32_t>();
  checkConvert<From, int64_t>();
  checkConvert<From, uint8_t>();
  checkConvert<From, uint16_t>();
  checkConvert<From, uint32_t>();
  checkConvert<From, uint64_t>();
}

TEST(Fold, IntegerAndPredConvertsMatchThePrelude) {
  checkConvertsFrom<bool>();
  checkConvertsFrom<int8_t>();
  checkConvertsFrom<int16_t>();
  checkConvertsFrom<int32_t>();
  checkConvertsFrom<int64_t>();
  checkConvertsFrom<uint8_t>();
  checkConvertsFrom<uint16_t>();
  checkConvertsFrom<uint32_t>();
  checkConvertsFrom<uint64_t>();
}

// What is never evaluated: float arithmetic, converts that involve a float, integer power, and
// pred arithmetic.
TEST(Fold, RefusesFloatsPowerAndPredArithmetic) {
  EXPECT_FALSE(evalElement(*opOf(K::Add, DType::F32), DType::F32, {0, 0}));
  EXPECT_FALSE(evalElement(*opOf(K::Maximum, DType::F64), DType::F64, {0, 0}));
  EXPECT_FALSE(evalElement(*opOf(K::Convert, DType::F32), DType::S32, {1}));
  EXPECT_FALSE(evalElement(*opOf(K::Convert, DType::S32), DType::F16, {0}));
  EXPECT_FALSE(evalElement(*opOf(K::Power, DType::S32), DType::S32, {3, 2}));
  EXPECT_FALSE(evalElement(*opOf(K::Add, DType::Pred), DType::Pred, {1, 1}));
  EXPECT_FALSE(evalElement(*opOf(K::Divide, DType::Pred), DType::Pred, {1, 1}));
}

}  // namespace
}  // namespace lf::passes
