// The target-neutral part of the kernel prelude: the element types and the scalar semantics of
// every HLO op, in one place. It follows the target part (lf_cpu.h or lf_cuda.h), which supplies
// LF_DEVICE, LF_MEMCPY, lf_target_clz64, lf_target_popcount64, lf_target_denormal_input and the
// fixed-width integers. It includes only other prelude files (lf_xla_math.h), which
// codegen::preludeText pastes in place, so a kernel's source stands alone.
//
// Every op is a function template over the C++ element type (bool, int8_t..uint64_t, lf_f16,
// lf_bf16, float, double). f16/bf16 ops compute in float and round once; for + - * / sqrt that is
// the IEEE result in the narrow type. The rules are XLA's (the project's xla-op-semantics
// reference sheet). Where XLA versions or backends differ, the choice made here:
//   - f64 exp, tanh, log1p and f32 erf (f16/bf16 through f32): XLA's own approximations
//     (lf_xla_math.h), the same bits as JAX on CPU; on a GPU f64 exp, tanh and log1p are the CUDA
//     math library's, as XLA:GPU's. f32 log and log1p: XLA:CPU's on the CPU.
//     Other transcendentals are the C functions.
//   - maximum/minimum: NaN propagates; max(-0, +0) = +0 and min(-0, +0) = -0 (llvm.maximum).
//   - integer power with a negative exponent: the MHLO rule ((-1)^y = +-1 by parity).
//   - int -> f16/bf16 rounds once, exactly (XLA CPU goes through f32 and can round twice).
//   - NaN through a conversion, as XLA:CPU (measured against jax 0.11): f32 -> f16 keeps the sign
//     and top payload bits and sets the quiet bit (the hardware conversion); f64 -> f16 and
//     anything -> bf16 give the canonical quiet NaN with the sign (f64 -> f16 is f32's rule where
//     the CPU has f16 arithmetic, AVX512-FP16); f16 -> f32 sets the quiet bit;
//     bf16 -> f32 is the exact shift, a signaling NaN included.
#pragma once

// ---- Element types -----------------------------------------------------------------------

// IEEE binary16 and bfloat16 as raw bits, so a buffer of them has the HLO layout.
struct lf_f16 {
  uint16_t bits;
};
struct lf_bf16 {
  uint16_t bits;
};

enum { LF_KIND_BOOL, LF_KIND_SINT, LF_KIND_UINT, LF_KIND_HALF, LF_KIND_FLOAT };

// kind; bits; U/S: the unsigned/signed integer of the same width; W: an unsigned type of at
// least 32 bits holding U (so wrapping arithmetic never promotes to a signed int).
template <class T>
struct lf_traits;
#define LF_DEFINE_TRAITS(T, K, B, UT, ST, WT) \
  template <>                                 \
  struct lf_traits<T> {                       \
    static constexpr int kind = K;            \
    static constexpr int bits = B;            \
    typedef UT U;                             \
    typedef ST S;                             \
    typedef WT W;                             \
  };
LF_DEFINE_TRAITS(bool, LF_KIND_BOOL, 8, uint8_t, int8_t, uint32_t)
LF_DEFINE_TRAITS(int8_t, LF_KIND_SINT, 8, uint8_t, int8_t, uint32_t)
LF_DEFINE_TRAITS(int16_t, LF_KIND_SINT, 16, uint16_t, int16_t, uint32_t)
LF_DEFINE_TRAITS(int32_t, LF_KIND_SINT, 32, uint32_t, int32_t, uint32_t)
LF_DEFINE_TRAITS(int64_t, LF_KIND_SINT, 64, uint64_t, int64_t, uint64_t)
LF_DEFINE_TRAITS(uint8_t, LF_KIND_UINT, 8, uint8_t, int8_t, uint32_t)
LF_DEFINE_TRAITS(uint16_t, LF_KIND_UINT, 16, uint16_t, int16_t, uint32_t)
LF_DEFINE_TRAITS(uint32_t, LF_KIND_UINT, 32, uint32_t, int32_t, uint32_t)
LF_DEFINE_TRAITS(uint64_t, LF_KIND_UINT, 64, uint64_t, int64_t, uint64_t)
LF_DEFINE_TRAITS(lf_f16, LF_KIND_HALF, 16, uint16_t, int16_t, uint32_t)
LF_DEFINE_TRAITS(lf_bf16, LF_KIND_HALF, 16, uint16_t, int16_t, uint32_t)
LF_DEFINE_TRAITS(float, LF_KIND_FLOAT, 32, uint32_t, int32_t, uint32_t)
LF_DEFINE_TRAITS(double, LF_KIND_FLOAT, 64, uint64_t, int64_t, uint64_t)
#undef LF_DEFINE_TRAITS

template <class T>
constexpr bool lf_is_int = lf_traits<T>::kind == LF_KIND_SINT || lf_traits<T>::kind == LF_KIND_UINT;
template <class T>
constexpr bool lf_is_half = lf_traits<T>::kind == LF_KIND_HALF;
template <class T>
constexpr bool lf_is_floating = lf_traits<T>::kind >= LF_KIND_HALF;

// Exponent and mantissa widths of the two 16-bit formats.
template <class H>
struct lf_half_format;
template <>
struct lf_half_format<lf_f16> {
  static constexpr int ebits = 5, mbits = 10;
};
template <>
struct lf_half_format<lf_bf16> {
  static constexpr int ebits = 8, mbits = 7;
};

template <class T>
constexpr bool lf_is_bf16 = false;
template <>
constexpr bool lf_is_bf16<lf_bf16> = true;

// Stored mantissa bits of a floating-point type.
template <class T>
LF_DEVICE constexpr int lf_mantissa_bits() {
  if constexpr (lf_is_half<T>) {
    return lf_half_format<T>::mbits;
  } else {
    return sizeof(T) == 4 ? 23 : 52;
  }
}

template <class To, class From>
LF_DEVICE To lf_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs equal widths");
  To r;
  LF_MEMCPY(&r, &x, sizeof(To));
  return r;
}

#include "lf_half.h"  // f16/bf16 <-> wider types, pasted in place by codegen::preludeText

// ---- convert: every pair of element types, with XLA's rules --------------------------------

// float/double -> integer: truncate toward zero and saturate; NaN -> 0.
template <class To, class F>
LF_DEVICE To lf_float_to_int(F x) {
  typedef typename lf_traits<To>::U U;
  constexpr int n = lf_traits<To>::bits;
  if (x != x) return 0;
  if constexpr (lf_traits<To>::kind == LF_KIND_SINT) {
    const F limit = (F)((uint64_t)1 << (n - 1));  // 2^(n-1), exact
    if (x <= -limit) return (To)((U)1 << (n - 1));
    if (x >= limit) return (To)(((U)1 << (n - 1)) - 1);
  } else {
    const F limit = (F)2 * (F)((uint64_t)1 << (n - 1));  // 2^n, exact
    if (x <= (F)0) return 0;
    if (x >= limit) return (To) ~(U)0;
  }
  return (To)x;
}

template <class To, class From>
LF_DEVICE To lf_convert(From x) {
  constexpr int to = lf_traits<To>::kind, from = lf_traits<From>::kind;
  if constexpr (to == LF_KIND_BOOL) {
    if constexpr (from == LF_KIND_HALF) {
      return lf_to_f32(x) != 0.0f;  // NaN -> true
    } else {
      return x != 0;
    }
  } else if constexpr (from == LF_KIND_BOOL) {
    return lf_convert<To>((uint8_t)(x ? 1 : 0));
  } else if constexpr (from == LF_KIND_HALF) {
    if constexpr (sizeof(To) == sizeof(From) && to == LF_KIND_HALF) {
      if constexpr (lf_half_format<To>::mbits == lf_half_format<From>::mbits)
        return x;
      else
        return lf_round_to_half<To>(lf_to_f32(x));
    } else {
      return lf_convert<To>(lf_to_f32(x));  // exact widening, then one rounding
    }
  } else if constexpr (to == LF_KIND_HALF) {
    if constexpr (from == LF_KIND_FLOAT) {
      return lf_round_to_half<To>(x);
    } else if constexpr (from == LF_KIND_SINT) {
      typedef typename lf_traits<From>::U U;
      return lf_round_to_half<To>(x < 0, x < 0 ? (uint64_t)(U)(0 - (U)x) : (uint64_t)x);
    } else {
      return lf_round_to_half<To>(false, (uint64_t)x);
    }
  } else if constexpr (to == LF_KIND_FLOAT) {
    return (To)x;  // int -> float rounds to nearest even; double -> float overflows to inf
  } else if constexpr (from == LF_KIND_FLOAT) {
    return lf_float_to_int<To>(x);
  } else {
    return (To)x;  // int <-> int: extends by the source's signedness, truncates when narrowing
  }
}

// ---- helpers shared by the ops --------------------------------------------------------------

template <class H>
LF_DEVICE H lf_from_f32(float x) {
  return lf_round_to_half<H>(x);
}

template <class T>
LF_DEVICE bool lf_signbit(T x) {
  typedef typename lf_traits<T>::U U;
  return (lf_bitcast<U>(x) >> (lf_traits<T>::bits - 1)) != 0;
}

// A float-only unary op: f16/bf16 go through float; f32 and f64 call the named C functions, on
// inputs that the target's denormal mode has been applied to (lf_target_denormal_input).
#define LF_FLOAT_UNARY(name, f32_expr, f64_expr)                            \
  template <class T>                                                        \
  LF_DEVICE T name(T x) {                                                   \
    static_assert(lf_is_floating<T>, #name " takes a floating-point type"); \
    if constexpr (lf_is_half<T>) {                                          \
      return lf_from_f32<T>(name(lf_to_f32(x)));                            \
    } else {                                                                \
      x = lf_target_denormal_input(x);                                      \
      if constexpr (sizeof(T) == 4)                                         \
        return f32_expr;                                                    \
      else                                                                  \
        return f64_expr;                                                    \
    }                                                                       \
  }
#define LF_FLOAT_BINARY(name, f32_expr, f64_expr)                           \
  template <class T>                                                        \
  LF_DEVICE T name(T x, T y) {                                              \
    static_assert(lf_is_floating<T>, #name " takes a floating-point type"); \
    if constexpr (lf_is_half<T>) {                                          \
      return lf_from_f32<T>(name(lf_to_f32(x), lf_to_f32(y)));              \
    } else {                                                                \
      x = lf_target_denormal_input(x);                                      \
      y = lf_target_denormal_input(y);                                      \
      if constexpr (sizeof(T) == 4)                                         \
        return f32_expr;                                                    \
      else                                                                  \
        return f64_expr;                                                    \
    }                                                                       \
  }

// ---- unary ops ---------------------------------------------------------------------------------

// Integer abs and negate wrap (abs(INT_MIN) = INT_MIN); computed unsigned, so no UB.
template <class T>
LF_DEVICE T lf_abs(T x) {
  typedef typename lf_traits<T>::U U;
  typedef typename lf_traits<T>::W W;
  if constexpr (lf_is_floating<T>) {
    return lf_bitcast<T>((U)(lf_bitcast<U>(x) & ~((U)1 << (lf_traits<T>::bits - 1))));
  } else if constexpr (lf_traits<T>::kind == LF_KIND_SINT) {
    return x < 0 ? (T)(W)(0 - (W)(U)x) : x;
  } else {
    return x;
  }
}

template <class T>
LF_DEVICE T lf_negate(T x) {
  typedef typename lf_traits<T>::U U;
  typedef typename lf_traits<T>::W W;
  if constexpr (lf_is_floating<T>) {
    return lf_bitcast<T>((U)(lf_bitcast<U>(x) ^ ((U)1 << (lf_traits<T>::bits - 1))));
  } else {
    return (T)(W)(0 - (W)(U)x);
  }
}

// Floats: NaN -> NaN, +-0 -> +-0, else +-1. Ints: -1/0/1 (unsigned: 0/1).
template <class T>
LF_DEVICE T lf_sign(T x) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_sign(lf_to_f32(x)));
  } else if constexpr (lf_is_floating<T>) {
    if (x != x || x == (T)0) return x;
    return x < (T)0 ? (T)-1 : (T)1;
  } else if constexpr (lf_traits<T>::kind == LF_KIND_SINT) {
    return x == 0 ? (T)0 : x < 0 ? (T)-1 : (T)1;
  } else {
    return x == 0 ? (T)0 : (T)1;
  }
}

LF_FLOAT_UNARY(lf_floor, floorf(x), floor(x))
LF_FLOAT_UNARY(lf_ceil, ceilf(x), ceil(x))
LF_FLOAT_UNARY(lf_round_nearest_afz, roundf(x), round(x))
LF_FLOAT_UNARY(lf_round_nearest_even, rintf(x), rint(x))  // default rounding mode: ties to even
#include "lf_xla_math.h"                                  // pasted in place by codegen::preludeText
// f64 exp, tanh and log1p, f32 log and log1p: XLA:CPU's approximations where the expected values
// are XLA:CPU's (the CPU and the CUDA emulator); the CUDA math library's on a GPU, as XLA:GPU.
// f32 exp: XLA's polynomial to one ulp (lf_xla_math.h).
#if defined(LF_TARGET_CPU) || defined(LF_CUDA_EMULATED)
#define LF_EXP_F32(x) lf_xla_exp_f32(x)
#define LF_EXP_F64(x) lf_xla_exp_f64(x)
#define LF_TANH_F64(x) lf_xla_tanh_f64(x)
#define LF_LOG_F32(x) lf_xla_log_f32(x)
#define LF_LOG1P_F32(x) lf_xla_log1p_f32(x)
#define LF_LOG1P_F64(x) lf_xla_log1p_f64(x)
#else
#define LF_LOG_F32(x) logf(x)
#define LF_EXP_F32(x) expf(x)
#define LF_EXP_F64(x) exp(x)
#define LF_TANH_F64(x) tanh(x)
#define LF_LOG1P_F32(x) log1pf(x)
#define LF_LOG1P_F64(x) log1p(x)
#endif
LF_FLOAT_UNARY(lf_exponential, LF_EXP_F32(x), LF_EXP_F64(x))
LF_FLOAT_UNARY(lf_exponential_minus_one, expm1f(x), expm1(x))
LF_FLOAT_UNARY(lf_log, LF_LOG_F32(x), log(x))
LF_FLOAT_UNARY(lf_log_plus_one, LF_LOG1P_F32(x), LF_LOG1P_F64(x))
LF_FLOAT_UNARY(lf_sqrt, sqrtf(x), sqrt(x))
#if defined(LF_XLA_RSQRT_F32)
#define LF_RSQRT_F32(x) lf_xla_rsqrt_f32(x)
#else
#define LF_RSQRT_F32(x) (1.0f / sqrtf(x))
#endif
#if defined(LF_XLA_RSQRT_F64)
#define LF_RSQRT_F64(x) lf_xla_rsqrt_f64(x)
#else
#define LF_RSQRT_F64(x) (1.0 / sqrt(x))
#endif
LF_FLOAT_UNARY(lf_rsqrt, LF_RSQRT_F32(x), LF_RSQRT_F64(x))
LF_FLOAT_UNARY(lf_cbrt, cbrtf(x), cbrt(x))
LF_FLOAT_UNARY(lf_logistic, 1.0f / (1.0f + LF_EXP_F32(-x)), 1.0 / (1.0 + LF_EXP_F64(-x)))
LF_FLOAT_UNARY(lf_sine, sinf(x), sin(x))
LF_FLOAT_UNARY(lf_cosine, cosf(x), cos(x))
LF_FLOAT_UNARY(lf_tan, tanf(x), tan(x))

// tanh reads an f32 input unflushed: XLA's small-|x| case returns the input itself, so a denormal
// comes back as it went in, even where denormals are flushed (its comparison flushes, not the
// select).
template <class T>
LF_DEVICE T lf_tanh(T x) {
  static_assert(lf_is_floating<T>, "lf_tanh takes a floating-point type");
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_tanh(lf_to_f32(x)));
  } else if constexpr (sizeof(T) == 4) {
    return lf_xla_tanh_f32(x);
  } else {
    return LF_TANH_F64(lf_target_denormal_input(x));
  }
}
LF_FLOAT_UNARY(lf_erf, lf_xla_erf_f32(x), erf(x))

// False for +-inf and NaN: the exponent field is not all ones.
template <class T>
LF_DEVICE bool lf_is_finite(T x) {
  static_assert(lf_is_floating<T>, "lf_is_finite takes a floating-point type");
  if constexpr (lf_is_half<T>) {
    return lf_is_finite(lf_to_f32(x));  // the widening keeps inf and NaN
  } else if constexpr (sizeof(T) == 4) {
    return (lf_bitcast<uint32_t>(x) & 0x7f800000u) != 0x7f800000u;
  } else {
    return (lf_bitcast<uint64_t>(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
  }
}

// bool: logical not; integers: bitwise.
template <class T>
LF_DEVICE T lf_not(T x) {
  if constexpr (lf_traits<T>::kind == LF_KIND_BOOL) {
    return !x;
  } else {
    static_assert(lf_is_int<T>, "lf_not takes bool or an integer type");
    return (T) ~(typename lf_traits<T>::U)x;
  }
}

template <class T>
LF_DEVICE T lf_popcnt(T x) {
  static_assert(lf_is_int<T>, "lf_popcnt takes an integer type");
  return (T)lf_target_popcount64((uint64_t)(typename lf_traits<T>::U)x);
}

template <class T>
LF_DEVICE T lf_count_leading_zeros(T x) {
  static_assert(lf_is_int<T>, "lf_count_leading_zeros takes an integer type");
  return (T)(lf_target_clz64((uint64_t)(typename lf_traits<T>::U)x) - (64 - lf_traits<T>::bits));
}

// XLA's reduce-precision (elemental_ir_emitter's EmitReducePrecisionIR), on the bits: the mantissa
// rounds to M bits, nearest-even (a carry moves into the exponent); then an exponent outside the
// normal range of an E-bit format becomes +-inf above it and +-0 below it (that format's
// subnormals flush to zero). NaN passes unchanged, payload and sign included, even when M is 0
// (a bf16 one becomes the canonical quiet NaN).
template <int E, int M, class T>
LF_DEVICE T lf_reduce_precision(T x) {
  static_assert(lf_is_floating<T>, "lf_reduce_precision takes a floating-point type");
  static_assert(E >= 1 && M >= 0, "reduce-precision needs exponent_bits >= 1, mantissa_bits >= 0");
  typedef typename lf_traits<T>::U U;
  constexpr int bits = lf_traits<T>::bits;
  constexpr int src_m = lf_mantissa_bits<T>();
  constexpr int src_e = bits - 1 - src_m;
  constexpr U sign = (U)((U)1 << (bits - 1));
  constexpr U exp_mask = (U)((((U)1 << src_e) - 1) << src_m);
  const U in = lf_bitcast<U>(x);
  if ((U)(in & (U)~sign) > exp_mask) {
    // XLA:CPU computes a bf16 op in f32: the conversion back canonicalizes a NaN (f16 keeps it).
    if constexpr (lf_is_bf16<T>) return lf_from_f32<T>(lf_to_f32(x));
    return x;
  }
  U r = in;
  if constexpr (M < src_m) {
    constexpr U last = (U)((U)1 << (src_m - M));  // the lowest mantissa bit kept
    const U bias = (U)((U)(last >> 1) - 1 + ((r & last) >> (src_m - M)));
    r = (U)((U)(r + bias) & (U) ~(U)(last - 1));
  }
  if constexpr (E < src_e) {
    constexpr U exp_bias = (U)(((U)1 << (src_e - 1)) - 1);
    constexpr U reduced_bias = (U)(((U)1 << (E - 1)) - 1);
    const U exponent = (U)(r & exp_mask);
    if (exponent > (U)((U)(exp_bias + reduced_bias) << src_m)) {
      r = (U)((r & sign) | exp_mask);
    } else if (exponent <= (U)((U)(exp_bias - reduced_bias) << src_m)) {
      r = (U)(r & sign);
    }
  }
  return lf_bitcast<T>(r);
}

// ---- binary ops --------------------------------------------------------------------------------

// Integer add, subtract and multiply wrap in two's complement (computed in an unsigned type of at
// least 32 bits, so no signed overflow and no promotion to int). On bool they are or/xor/and.
template <class T>
LF_DEVICE T lf_add(T a, T b) {
  typedef typename lf_traits<T>::W W;
  typedef typename lf_traits<T>::U U;
  if constexpr (lf_is_half<T>)
    return lf_from_f32<T>(lf_to_f32(a) + lf_to_f32(b));
  else if constexpr (lf_is_floating<T>)
    return a + b;
  else if constexpr (lf_traits<T>::kind == LF_KIND_BOOL)
    return a || b;
  else
    return (T)(W)((W)(U)a + (W)(U)b);
}

template <class T>
LF_DEVICE T lf_subtract(T a, T b) {
  typedef typename lf_traits<T>::W W;
  typedef typename lf_traits<T>::U U;
  if constexpr (lf_is_half<T>)
    return lf_from_f32<T>(lf_to_f32(a) - lf_to_f32(b));
  else if constexpr (lf_is_floating<T>)
    return a - b;
  else if constexpr (lf_traits<T>::kind == LF_KIND_BOOL)
    return a != b;
  else
    return (T)(W)((W)(U)a - (W)(U)b);
}

template <class T>
LF_DEVICE T lf_multiply(T a, T b) {
  typedef typename lf_traits<T>::W W;
  typedef typename lf_traits<T>::U U;
  if constexpr (lf_is_half<T>)
    return lf_from_f32<T>(lf_to_f32(a) * lf_to_f32(b));
  else if constexpr (lf_is_floating<T>)
    return a * b;
  else if constexpr (lf_traits<T>::kind == LF_KIND_BOOL)
    return a && b;
  else
    return (T)(W)((W)(U)a * (W)(U)b);
}

// Integers: x / 0 = -1 (all bits set, signed or not); INT_MIN / -1 = INT_MIN; truncates to zero.
template <class T>
LF_DEVICE T lf_divide(T a, T b) {
  typedef typename lf_traits<T>::U U;
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_to_f32(a) / lf_to_f32(b));
  } else if constexpr (lf_is_floating<T>) {
    return a / b;
  } else {
    static_assert(lf_is_int<T>, "lf_divide takes a number type");
    if (b == 0) return (T) ~(U)0;
    if constexpr (lf_traits<T>::kind == LF_KIND_SINT) {
      if (b == (T)-1) return lf_negate(a);  // wraps: INT_MIN / -1 = INT_MIN
    }
    return (T)(a / b);
  }
}

// Integers: x % 0 = x; INT_MIN % -1 = 0; the sign follows the dividend. Floats: C fmod.
template <class T>
LF_DEVICE T lf_remainder(T a, T b) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_remainder(lf_to_f32(a), lf_to_f32(b)));
  } else if constexpr (lf_is_floating<T>) {
    if constexpr (sizeof(T) == 4)
      return fmodf(a, b);
    else
      return fmod(a, b);
  } else {
    static_assert(lf_is_int<T>, "lf_remainder takes a number type");
    if (b == 0) return a;
    if constexpr (lf_traits<T>::kind == LF_KIND_SINT) {
      if (b == (T)-1) return 0;
    }
    return (T)(a % b);
  }
}

// pow(a, 0.5) with the exponent a constant: XLA:CPU's LLVM rewrites it to sqrt (LibCallSimplifier's
// replacePowWithSqrt, exact since sqrt is correctly rounded), keeping pow's special cases: +0 for
// -0 (fabs), +inf for -inf. A computed exponent that is 0.5 stays pow (lf_power). Half types are
// computed in f32, as XLA computes them.
template <class T>
LF_DEVICE T lf_power_one_half(T a) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_power_one_half(lf_to_f32(a)));
  } else {
    const T inf = (T)lf_bitcast<double>(0x7ff0000000000000ull);  // NVRTC has no INFINITY
    if (a == -inf) return inf;
    return lf_abs(lf_sqrt(a));
  }
}

// Integers: XLA's square-and-multiply over the low 6 bits of the exponent (0^0 = 1), and for a
// negative exponent the current MHLO rule: 1^y = 1, (-1)^y = +-1 by parity, anything else 0.
// (Older XLA emitters give (-1)^y = 0 there.) Unsigned exponents are never negative. Floats: pow.
template <class T>
LF_DEVICE T lf_power(T a, T b) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_power(lf_to_f32(a), lf_to_f32(b)));
  } else if constexpr (lf_is_floating<T>) {
    if constexpr (sizeof(T) == 4)
      return powf(a, b);
    else
      return pow(a, b);
  } else {
    static_assert(lf_is_int<T>, "lf_power takes a number type");
    typedef typename lf_traits<T>::U U;
    T acc = 1, base = a;
    U e = (U)b;
    for (int i = 0; i < 6; ++i) {
      if (e & 1u) acc = lf_multiply(acc, base);
      base = lf_multiply(base, base);
      e = (U)(e >> 1);
    }
    if constexpr (lf_traits<T>::kind == LF_KIND_SINT) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == (T)-1) return (b & 1) ? (T)-1 : (T)1;
        return 0;
      }
    }
    return acc;
  }
}

// Floats: NaN if either side is NaN (XLA's default, not the "fast" min/max), and the IEEE 2019
// maximum/minimum on zeros: max(-0, +0) = +0, min(-0, +0) = -0, as llvm.maximum/minimum do.
template <class T>
LF_DEVICE T lf_maximum(T a, T b) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_maximum(lf_to_f32(a), lf_to_f32(b)));
  } else if constexpr (lf_is_floating<T>) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return lf_signbit(a) ? b : a;
    return a > b ? a : b;
  } else {
    return a > b ? a : b;
  }
}

template <class T>
LF_DEVICE T lf_minimum(T a, T b) {
  if constexpr (lf_is_half<T>) {
    return lf_from_f32<T>(lf_minimum(lf_to_f32(a), lf_to_f32(b)));
  } else if constexpr (lf_is_floating<T>) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return lf_signbit(a) ? a : b;
    return a < b ? a : b;
  } else {
    return a < b ? a : b;
  }
}

// bool: logical; integers: bitwise.
template <class T>
LF_DEVICE T lf_and(T a, T b) {
  static_assert(!lf_is_floating<T>, "lf_and takes bool or an integer type");
  return (T)(a & b);
}
template <class T>
LF_DEVICE T lf_or(T a, T b) {
  static_assert(!lf_is_floating<T>, "lf_or takes bool or an integer type");
  return (T)(a | b);
}
template <class T>
LF_DEVICE T lf_xor(T a, T b) {
  static_assert(!lf_is_floating<T>, "lf_xor takes bool or an integer type");
  return (T)(a ^ b);
}

// Shifts compare the amount UNSIGNED with the width, so a negative amount is out of range too;
// out of range gives 0 (left, logical right) or the sign fill (arithmetic right).
template <class T>
LF_DEVICE bool lf_shift_in_range(T amount) {
  return (typename lf_traits<T>::U)amount < (typename lf_traits<T>::U)lf_traits<T>::bits;
}

template <class T>
LF_DEVICE T lf_shift_left(T a, T b) {
  static_assert(lf_is_int<T>, "lf_shift_left takes an integer type");
  typedef typename lf_traits<T>::W W;
  if (!lf_shift_in_range(b)) return 0;
  return (T)(W)((W)(typename lf_traits<T>::U)a << (int)b);
}

template <class T>
LF_DEVICE T lf_shift_right_logical(T a, T b) {
  static_assert(lf_is_int<T>, "lf_shift_right_logical takes an integer type");
  typedef typename lf_traits<T>::U U;
  if (!lf_shift_in_range(b)) return 0;
  return (T)(U)((U)a >> (int)b);
}

template <class T>
LF_DEVICE T lf_shift_right_arithmetic(T a, T b) {
  static_assert(lf_is_int<T>, "lf_shift_right_arithmetic takes an integer type");
  typedef typename lf_traits<T>::S S;
  const S s = (S)a;
  if (!lf_shift_in_range(b)) return (T)(s < 0 ? (S)-1 : (S)0);
  return (T)(S)(s >> (int)b);  // >> of a negative value is arithmetic on every target we use
}

LF_FLOAT_BINARY(lf_atan2, atan2f(x, y), atan2(x, y))

// ---- comparisons
// ---------------------------------------------------------------------------------

// FLOAT direction: EQ/LT/LE/GT/GE are ordered (false with a NaN), NE is unordered (true with a
// NaN), which is what C++ operators do. Integers compare by their C++ type's signedness.
#define LF_COMPARE(name, op)               \
  template <class T>                       \
  LF_DEVICE bool name(T a, T b) {          \
    if constexpr (lf_is_half<T>)           \
      return lf_to_f32(a) op lf_to_f32(b); \
    else                                   \
      return a op b;                       \
  }
LF_COMPARE(lf_compare_eq, ==)
LF_COMPARE(lf_compare_ne, !=)
LF_COMPARE(lf_compare_lt, <)
LF_COMPARE(lf_compare_le, <=)
LF_COMPARE(lf_compare_gt, >)
LF_COMPARE(lf_compare_ge, >=)
#undef LF_COMPARE

// TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, comparing NaN payloads too. The
// sign-magnitude bits become a two's-complement key: negative patterns get their magnitude bits
// flipped (XLA's ComparisonExpander).
template <class T>
LF_DEVICE typename lf_traits<T>::S lf_total_order_key(T x) {
  static_assert(lf_is_floating<T>, "total order compares floating-point types");
  typedef typename lf_traits<T>::S S;
  typedef typename lf_traits<T>::U U;
  const S bits = (S)lf_bitcast<U>(x);
  const S magnitude_mask = (S)(((U)1 << (lf_traits<T>::bits - 1)) - 1);
  return bits < 0 ? (S)(bits ^ magnitude_mask) : bits;
}
#define LF_COMPARE_TOTALORDER(name, op)                    \
  template <class T>                                       \
  LF_DEVICE bool name(T a, T b) {                          \
    return lf_total_order_key(a) op lf_total_order_key(b); \
  }
LF_COMPARE_TOTALORDER(lf_compare_totalorder_eq, ==)
LF_COMPARE_TOTALORDER(lf_compare_totalorder_ne, !=)
LF_COMPARE_TOTALORDER(lf_compare_totalorder_lt, <)
LF_COMPARE_TOTALORDER(lf_compare_totalorder_le, <=)
LF_COMPARE_TOTALORDER(lf_compare_totalorder_gt, >)
LF_COMPARE_TOTALORDER(lf_compare_totalorder_ge, >=)
#undef LF_COMPARE_TOTALORDER

#undef LF_FLOAT_UNARY
#undef LF_FLOAT_BINARY

// ---- select, clamp, fma ------------------------------------------------------------------------

template <class T>
LF_DEVICE T lf_select(bool p, T a, T b) {
  return p ? a : b;
}

// clamp(lo, x, hi) = min(max(lo, x), hi), so a NaN anywhere propagates.
template <class T>
LF_DEVICE T lf_clamp(T lo, T x, T hi) {
  return lf_minimum(lf_maximum(lo, x), hi);
}

// x*y + z rounded once: the contraction XLA's LLVM backends make (passes/contract.h says where).
// An explicit call, because the C++ compilers here run with contraction off (-ffp-contract=off,
// NVRTC --fmad=false), so that no other multiply-add fuses. f16: one rounding where the CPU has
// f16 arithmetic, as XLA's fused f16 multiply-add is there (the f64 fma of f16 operands is exact
// for every result in f16's range, so rounding it to f16 rounds once); elsewhere XLA does not
// fuse, and the product and the sum are each rounded to f16.
template <class T>
LF_DEVICE T lf_fma(T x, T y, T z) {
  static_assert(lf_is_floating<T> && !lf_is_bf16<T>, "lf_fma takes f16, f32 or f64");
  if constexpr (lf_is_half<T>) {
#if defined(__AVX512FP16__)
    return lf_round_to_half<T>(
        fma((double)lf_to_f32(x), (double)lf_to_f32(y), (double)lf_to_f32(z)));
#else
    return lf_add(lf_multiply(x, y), z);
#endif
  } else if constexpr (sizeof(T) == 4) {
    return fmaf(x, y, z);
  } else {
    return fma(x, y, z);
  }
}

// ---- random bits -------------------------------------------------------------------------------

LF_DEVICE uint32_t lf_rotl32(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

// JAX's threefry2x32 hash (jax/_src/prng.py): 20 rounds in 5 groups of 4, the key schedule
// injected after each group. Bit-exact with jax.random. Written out round by round: the rotations
// must be constants for a batch's loop to vectorize, and the limits on loop peeling that large
// kernels compile with (host_compiler.cc) would leave a loop over a rotation table rolled.
#define LF_THREEFRY_ROUND(r) \
  x0 += x1;                  \
  x1 = lf_rotl32(x1, r);     \
  x1 ^= x0;
#define LF_THREEFRY_GROUP(r0, r1, r2, r3, ka, kb, g) \
  LF_THREEFRY_ROUND(r0)                              \
  LF_THREEFRY_ROUND(r1)                              \
  LF_THREEFRY_ROUND(r2)                              \
  LF_THREEFRY_ROUND(r3)                              \
  x0 += ka;                                          \
  x1 += kb + g##u;
LF_DEVICE void lf_threefry2x32(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1, uint32_t* out0,
                               uint32_t* out1) {
  const uint32_t k2 = k0 ^ k1 ^ 0x1BD11BDAu;
  x0 += k0;
  x1 += k1;
  LF_THREEFRY_GROUP(13, 15, 26, 6, k1, k2, 1)
  LF_THREEFRY_GROUP(17, 29, 16, 24, k2, k0, 2)
  LF_THREEFRY_GROUP(13, 15, 26, 6, k0, k1, 3)
  LF_THREEFRY_GROUP(17, 29, 16, 24, k1, k2, 4)
  LF_THREEFRY_GROUP(13, 15, 26, 6, k2, k0, 5)
  *out0 = x0;
  *out1 = x1;
}
#undef LF_THREEFRY_GROUP
#undef LF_THREEFRY_ROUND
#include "lf_complex.h"  // complex scalars (linear algebra), pasted in place by preludeText
#include "lf_fft.h"      // one line's Fourier transform, pasted in place by codegen::preludeText
#include "lf_linalg.h"   // QR and eigh (LAPACK ports), pasted in place by codegen::preludeText
#include "lf_svd.h"      // the SVD (LAPACK port), pasted in place by codegen::preludeText

// After lf_linalg.h, whose helpers (lf_la_steqr, ...) it calls.
#include "lf_linalg_complex.h"  // complex QR, Hermitian eigh: pasted in place by preludeText

// After lf_linalg.h, whose helpers (lf_la_larfg, lf_la_nrm2, ...) it calls.
#include "lf_geev.h"  // general eigenvalues (LAPACK port), pasted in place by preludeText
