// f16 and bf16 to and from wider types, exactly, with integer operations: part of the kernel
// prelude, pasted into lf_common.h after the element types (codegen::preludeText), so it uses
// them and LF_DEVICE without including anything.
#pragma once

// ---- f16/bf16 <-> wider types, exactly, with integer operations ----------------------------

LF_DEVICE float lf_to_f32(lf_bf16 h) { return lf_bitcast<float>((uint32_t)h.bits << 16); }

LF_DEVICE float lf_to_f32(lf_f16 h) {
  const uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1fu, mant = h.bits & 0x3ffu;
  if (exp == 0x1f) {  // inf, or NaN with the quiet bit set (as vcvtph2ps)
    return lf_bitcast<float>(sign | 0x7f800000u | (mant != 0 ? 0x400000u : 0u) | (mant << 13));
  }
  if (exp != 0) return lf_bitcast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24, exact in float.
  const float magnitude = (float)mant * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

// The bits of (-1)^neg * m * 2^e (m != 0) rounded to nearest-even in a format with `ebits`
// exponent and `mbits` mantissa bits: subnormals and overflow to infinity included.
LF_DEVICE uint32_t lf_round_bits(bool neg, uint64_t m, int e, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, max_field = (1 << ebits) - 1;
  const uint32_t sign = (uint32_t)neg << (ebits + mbits);
  const uint32_t inf = sign | ((uint32_t)max_field << mbits);
  const int top = 63 - lf_target_clz64(m);
  const int exponent = top + e;  // the value lies in [2^exponent, 2^(exponent+1))
  if (exponent > bias) return inf;
  const int quantum = (exponent < emin ? emin : exponent) - mbits;  // weight of the last bit kept
  const int shift = quantum - e;
  uint64_t r;
  if (shift <= 0) {
    r = m << -shift;
  } else if (shift > 64) {
    r = 0;
  } else if (shift == 64) {
    r = m > (1ull << 63) ? 1 : 0;  // exactly half rounds to even, i.e. 0
  } else {
    r = m >> shift;
    const uint64_t rest = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (r & 1))) ++r;
  }
  // A normal r includes the implicit bit, which adds 1 to the exponent field; a carry out of the
  // mantissa moves into the exponent the same way. A subnormal r that rounds up to 2^mbits is
  // the smallest normal, whose encoding is r too.
  const uint32_t magnitude =
      exponent < emin ? (uint32_t)r : ((uint32_t)(exponent + bias - 1) << mbits) + (uint32_t)r;
  if ((magnitude >> mbits) >= (uint32_t)max_field) return inf;
  return sign | magnitude;
}

// NaN: keep the sign and the top payload bits, set the quiet bit (0 keeps only the sign: the
// canonical quiet NaN).
template <class H>
LF_DEVICE H lf_half_nan(bool neg, uint64_t top_payload) {
  constexpr int eb = lf_half_format<H>::ebits, mb = lf_half_format<H>::mbits;
  const uint32_t bits = ((uint32_t)neg << 15) | (((1u << eb) - 1) << mb) | (1u << (mb - 1)) |
                        (uint32_t)(top_payload & ((1u << mb) - 1));
  return H{(uint16_t)bits};
}

template <class H>
LF_DEVICE H lf_round_to_half(float x) {
  constexpr int eb = lf_half_format<H>::ebits, mb = lf_half_format<H>::mbits;
  const uint32_t bits = lf_bitcast<uint32_t>(x);
  const bool neg = (bits >> 31) != 0;
  const uint32_t exp = (bits >> 23) & 0xffu, mant = bits & 0x7fffffu;
  if (exp == 0xff) {
    if (mant != 0) return lf_half_nan<H>(neg, lf_is_bf16<H> ? 0 : mant >> (23 - mb));
    return H{(uint16_t)(((uint32_t)neg << 15) | (((1u << eb) - 1) << mb))};
  }
  if (exp == 0 && mant == 0) return H{(uint16_t)((uint32_t)neg << 15)};
  const uint64_t m = exp ? (mant | 0x800000u) : mant;
  return H{(uint16_t)lf_round_bits(neg, m, exp ? (int)exp - 150 : -149, eb, mb)};
}

// From double directly (through float could round twice). A NaN: the canonical one, as XLA's
// software conversion gives, except to f16 on a CPU with f16 arithmetic, whose vcvtsd2sh keeps
// the payload's top bits as the f32 conversion does.
template <class H>
LF_DEVICE H lf_round_to_half(double x) {
  constexpr int eb = lf_half_format<H>::ebits, mb = lf_half_format<H>::mbits;
  const uint64_t bits = lf_bitcast<uint64_t>(x);
  const bool neg = (bits >> 63) != 0;
  const uint32_t exp = (uint32_t)(bits >> 52) & 0x7ffu;
  const uint64_t mant = bits & 0xfffffffffffffull;
  if (exp == 0x7ff) {
#if defined(__AVX512FP16__)
    if (mant != 0) return lf_half_nan<H>(neg, lf_is_bf16<H> ? 0 : mant >> (52 - mb));
#else
    if (mant != 0) return lf_half_nan<H>(neg, 0);
#endif
    return H{(uint16_t)(((uint32_t)neg << 15) | (((1u << eb) - 1) << mb))};
  }
  if (exp == 0 && mant == 0) return H{(uint16_t)((uint32_t)neg << 15)};
  const uint64_t m = exp ? (mant | (1ull << 52)) : mant;
  return H{(uint16_t)lf_round_bits(neg, m, exp ? (int)exp - 1075 : -1074, eb, mb)};
}

// From an integer magnitude, exactly (an int64 through float or double could round twice).
template <class H>
LF_DEVICE H lf_round_to_half(bool neg, uint64_t magnitude) {
  if (magnitude == 0) return H{0};
  return H{(uint16_t)lf_round_bits(neg, magnitude, 0, lf_half_format<H>::ebits,
                                   lf_half_format<H>::mbits)};
}
