// Every scalar function of the CPU prelude, instantiated for every element type it takes and run
// on edge values (the extremes, zero, -1, NaN, shifts past the width). This pins that the prelude
// compiles warning-free under the project's flags for all types, and, in the sanitizer build,
// that no op has undefined behaviour (signed overflow, oversized shifts, bad float->int casts).
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "codegen/prelude_test_util.h"

namespace {

template <class... Ts>
struct TypeList {};
using AllTypes = TypeList<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t, lf_f16, lf_bf16, float, double>;

// Edge values of T, as the bits of the type (so f16/bf16 get their extremes too).
template <class T>
std::vector<T> edgeValues() {
  if constexpr (lf_traits<T>::kind == LF_KIND_BOOL) {
    return {false, true};
  } else if constexpr (lf_is_int<T>) {
    return {std::numeric_limits<T>::min(),
            (T)(std::numeric_limits<T>::min() + 1),
            (T)-1,
            0,
            1,
            2,
            7,
            (T)(lf_traits<T>::bits - 1),
            (T)lf_traits<T>::bits,
            std::numeric_limits<T>::max()};
  } else {
    typedef typename lf_traits<T>::U U;
    constexpr int n = lf_traits<T>::bits;
    const U sign = (U)((U)1 << (n - 1));
    std::vector<U> bits = {0, sign, 1, (U)(sign | 1), (U)(sign - 1), (U) ~(U)0};
    // 1, -2.5 and infinities converted from float keep the list meaningful for every width.
    std::vector<T> v;
    for (U b : bits) v.push_back(lf_bitcast<T>(b));
    for (float f : {1.0f, -2.5f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), 65504.0f, 3e-8f}) {
      v.push_back(lf_convert<T>(f));
    }
    return v;
  }
}

// Folds every result into one checksum so that nothing is optimised away.
struct Sink {
  uint64_t sum = 0;
  template <class T>
  void take(T x) {
    if constexpr (lf_traits<T>::kind == LF_KIND_BOOL) {
      sum = sum * 31 + (x ? 1 : 0);
    } else {
      sum = sum * 31 + (uint64_t)lf_bitcast<typename lf_traits<T>::U>(x);
    }
  }
};

template <class From, class... Tos>
void convertToAll(From x, Sink& sink, TypeList<Tos...>) {
  (sink.take(lf_convert<Tos>(x)), ...);
}

template <class T>
void useEveryOp(T a, T b, T c, Sink& sink) {
  if constexpr (lf_traits<T>::kind != LF_KIND_BOOL) {
    sink.take(lf_abs(a));
    sink.take(lf_negate(a));
    sink.take(lf_sign(a));
    sink.take(lf_add(a, b));
    sink.take(lf_subtract(a, b));
    sink.take(lf_multiply(a, b));
    sink.take(lf_divide(a, b));
    sink.take(lf_remainder(a, b));
    sink.take(lf_power(a, b));
    sink.take(lf_maximum(a, b));
    sink.take(lf_minimum(a, b));
    sink.take(lf_clamp(a, b, c));
  }
  if constexpr (lf_is_floating<T>) {
    for (T r : {lf_floor(a),
                lf_ceil(a),
                lf_round_nearest_afz(a),
                lf_round_nearest_even(a),
                lf_exponential(a),
                lf_exponential_minus_one(a),
                lf_log(a),
                lf_log_plus_one(a),
                lf_sqrt(a),
                lf_rsqrt(a),
                lf_cbrt(a),
                lf_tanh(a),
                lf_logistic(a),
                lf_sine(a),
                lf_cosine(a),
                lf_tan(a),
                lf_erf(a),
                lf_atan2(a, b),
                lf_reduce_precision<5, 10>(a),
                lf_reduce_precision<1, 0>(a),
                lf_reduce_precision<64, 64>(a)}) {
      sink.take(r);
    }
    sink.take(lf_is_finite(a));
    for (bool r : {lf_compare_totalorder_eq(a, b), lf_compare_totalorder_ne(a, b),
                   lf_compare_totalorder_lt(a, b), lf_compare_totalorder_le(a, b),
                   lf_compare_totalorder_gt(a, b), lf_compare_totalorder_ge(a, b)}) {
      sink.take(r);
    }
  } else {
    sink.take(lf_not(a));
    sink.take(lf_and(a, b));
    sink.take(lf_or(a, b));
    sink.take(lf_xor(a, b));
  }
  if constexpr (lf_is_int<T>) {
    sink.take(lf_popcnt(a));
    sink.take(lf_count_leading_zeros(a));
    sink.take(lf_shift_left(a, b));
    sink.take(lf_shift_right_logical(a, b));
    sink.take(lf_shift_right_arithmetic(a, b));
  }
  for (bool r : {lf_compare_eq(a, b), lf_compare_ne(a, b), lf_compare_lt(a, b), lf_compare_le(a, b),
                 lf_compare_gt(a, b), lf_compare_ge(a, b)}) {
    sink.take(r);
  }
  sink.take(lf_select(lf_compare_lt(a, b), a, c));
  convertToAll(a, sink, AllTypes{});
}

template <class T>
size_t runType(Sink& sink) {
  const std::vector<T> values = edgeValues<T>();
  for (T a : values) {
    for (T b : values) useEveryOp(a, b, values[0], sink);
  }
  return values.size();
}

template <class... Ts>
size_t runAll(Sink& sink, TypeList<Ts...>) {
  return (runType<Ts>(sink) + ...);
}

TEST(PreludeInstantiate, EveryOpRunsOnEdgeValuesOfEveryType) {
  Sink sink;
  EXPECT_GT(runAll(sink, AllTypes{}), 13u * 2);
  uint32_t out0 = 0, out1 = 0;
  lf_threefry2x32(0xffffffffu, 0, 0xffffffffu, 0, &out0, &out1);
  sink.take(out0 ^ out1);
  EXPECT_NE(sink.sum, 0u);
}

}  // namespace
