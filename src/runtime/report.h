// Reading the elements of a HostArray as numbers, for comparisons and for printing results.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

// Element i (row-major) of `data` read as `dtype`, as a double: exact for every float type
// (f16 and bf16 decoded from their bits) and for integers up to 2^53; pred is 0 or 1.
double elementAsDouble(DType dtype, const uint8_t* data, int64_t i);

// "f32[2,3] [1.5, -2, 3.25, 0, 0.001, -7]": at most `maxElements` values from row-major index
// `start` on, with "..." for the elements left out before and after.
std::string formatArray(const HostArray& array, int64_t maxElements = 8, int64_t start = 0);

}  // namespace lf::runtime
