// Conversions between double and the 16-bit float formats, and the text of one scalar element.
#include "ir/scalar_bits.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace lf::ir {
namespace {

// Round-to-nearest-even of |d| (finite, nonzero) into an IEEE-like format with the given widths.
uint16_t roundToSmallFloat(double d, int expBits, int mantBits) {
  const uint32_t signBit = std::signbit(d) ? 1u << (expBits + mantBits) : 0u;
  const uint32_t expMask = ((1u << expBits) - 1) << mantBits;
  if (std::isnan(d)) return static_cast<uint16_t>(signBit | expMask | (1u << (mantBits - 1)));
  double a = std::fabs(d);
  if (std::isinf(a)) return static_cast<uint16_t>(signBit | expMask);
  if (a == 0) return static_cast<uint16_t>(signBit);
  const int bias = (1 << (expBits - 1)) - 1;
  const int minNormalExp = 1 - bias;
  int e = 0;
  std::frexp(a, &e);
  int exp = e - 1;  // a = 1.f * 2^exp
  if (exp < minNormalExp) {
    // Subnormal: a multiple of 2^(minNormalExp - mantBits). Rounding up to 2^mantBits yields the
    // smallest normal, whose bit pattern is exactly that integer.
    double q = std::rint(std::ldexp(a, mantBits - minNormalExp));
    return static_cast<uint16_t>(signBit | static_cast<uint32_t>(q));
  }
  double q = std::rint(std::ldexp(a, mantBits - exp));  // in [2^mantBits, 2^(mantBits+1)]
  if (q >= std::ldexp(1.0, mantBits + 1)) {
    q /= 2;
    ++exp;
  }
  if (exp > bias) return static_cast<uint16_t>(signBit | expMask);
  uint32_t mant = static_cast<uint32_t>(q) - (1u << mantBits);
  return static_cast<uint16_t>(signBit | (static_cast<uint32_t>(exp + bias) << mantBits) | mant);
}

double smallFloatToDouble(uint16_t bits, int expBits, int mantBits) {
  const bool neg = (bits >> (expBits + mantBits)) & 1;
  const uint32_t expField = (bits >> mantBits) & ((1u << expBits) - 1);
  const uint32_t mant = bits & ((1u << mantBits) - 1);
  const int bias = (1 << (expBits - 1)) - 1;
  double v;
  if (expField == (1u << expBits) - 1) {
    v = mant ? std::nan("") : INFINITY;
  } else if (expField == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias - mantBits);
  } else {
    v = std::ldexp(static_cast<double>(mant | (1u << mantBits)),
                   static_cast<int>(expField) - bias - mantBits);
  }
  return neg ? -v : v;
}

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
std::string shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hexOf(uint64_t v) {
  char buf[20];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  return std::string(buf, r.ptr);
}

// NaN text as XLA prints it: "nan" / "-nan" for the default quiet NaN, else nan(0x<mantissa>).
std::string formatNaN(bool negative, uint64_t mantissa, int mantBits) {
  std::string s = negative ? "-nan" : "nan";
  if (mantissa != (uint64_t{1} << (mantBits - 1))) s += "(0x" + hexOf(mantissa) + ")";
  return s;
}

// Formats a float of any width given its bit pattern and the value it denotes.
std::string formatFloat(double value, uint64_t bits, int expBits, int mantBits,
                        const std::string& finiteText) {
  if (std::isnan(value)) {
    bool neg = (bits >> (expBits + mantBits)) & 1;
    return formatNaN(neg, bits & ((uint64_t{1} << mantBits) - 1), mantBits);
  }
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return finiteText;
}

}  // namespace

uint16_t doubleToF16Bits(double d) { return roundToSmallFloat(d, 5, 10); }
uint16_t doubleToBF16Bits(double d) { return roundToSmallFloat(d, 8, 7); }
double f16BitsToDouble(uint16_t bits) { return smallFloatToDouble(bits, 5, 10); }
double bf16BitsToDouble(uint16_t bits) { return smallFloatToDouble(bits, 8, 7); }

std::string formatScalar(DType dtype, const uint8_t* p) {
  switch (dtype) {
    case DType::Pred:
      return p[0] ? "true" : "false";
    case DType::S8:
      return std::to_string(load<int8_t>(p));
    case DType::S16:
      return std::to_string(load<int16_t>(p));
    case DType::S32:
      return std::to_string(load<int32_t>(p));
    case DType::S64:
      return std::to_string(load<int64_t>(p));
    case DType::U8:
      return std::to_string(load<uint8_t>(p));
    case DType::U16:
      return std::to_string(load<uint16_t>(p));
    case DType::U32:
      return std::to_string(load<uint32_t>(p));
    case DType::U64:
      return std::to_string(load<uint64_t>(p));
    case DType::F16: {
      uint16_t b = load<uint16_t>(p);
      double v = f16BitsToDouble(b);
      return formatFloat(v, b, 5, 10, shortest(static_cast<float>(v)));
    }
    case DType::BF16: {
      uint16_t b = load<uint16_t>(p);
      double v = bf16BitsToDouble(b);
      return formatFloat(v, b, 8, 7, shortest(static_cast<float>(v)));
    }
    case DType::F32: {
      float f = load<float>(p);
      return formatFloat(f, load<uint32_t>(p), 8, 23, shortest(f));
    }
    case DType::F64: {
      double f = load<double>(p);
      return formatFloat(f, load<uint64_t>(p), 11, 52, shortest(f));
    }
  }
  return "?";
}

}  // namespace lf::ir
