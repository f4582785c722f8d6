// Bit-level helpers for scalar element values: the 16-bit float formats (which C++ lacks) and the
// text form of one element. Shared by the printer and the frontend's constant conversion.
#pragma once

#include <cstdint>
#include <string>

#include "support/dtype.h"

namespace lf::ir {

// Rounds a double to the nearest f16 / bf16 (ties to even), directly from the double so that
// there is no double rounding through f32. Overflow gives inf; NaN gives the quiet NaN of the sign.
uint16_t doubleToF16Bits(double d);
uint16_t doubleToBF16Bits(double d);
double f16BitsToDouble(uint16_t bits);
double bf16BitsToDouble(uint16_t bits);

// The text of one little-endian element of `dtype` stored at `p`: "true", "-3", "0.1", "inf",
// "-nan", and "nan(0x<mantissa>)" for a NaN whose payload is not the default quiet one.
std::string formatScalar(DType dtype, const uint8_t* p);

}  // namespace lf::ir
