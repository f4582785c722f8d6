#include "runtime/report.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace lf::runtime {

namespace {

double halfToDouble(uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);  // zero or subnormal
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -magnitude : magnitude;
}

double bf16ToDouble(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;  // bf16 is the top half of an f32
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

double elementAsDouble(DType dtype, const uint8_t* data, int64_t i) {
  const uint8_t* p = data + i * byteSize(dtype);
  switch (dtype) {
    case DType::Pred:
      return *p != 0;
    case DType::S8:
      return load<int8_t>(p);
    case DType::S16:
      return load<int16_t>(p);
    case DType::S32:
      return load<int32_t>(p);
    case DType::S64:
      return static_cast<double>(load<int64_t>(p));
    case DType::U8:
      return load<uint8_t>(p);
    case DType::U16:
      return load<uint16_t>(p);
    case DType::U32:
      return load<uint32_t>(p);
    case DType::U64:
      return static_cast<double>(load<uint64_t>(p));
    case DType::F16:
      return halfToDouble(load<uint16_t>(p));
    case DType::BF16:
      return bf16ToDouble(load<uint16_t>(p));
    case DType::F32:
      return load<float>(p);
    case DType::F64:
      return load<double>(p);
  }
  return 0;
}

std::string formatArray(const HostArray& array, int64_t maxElements, int64_t start) {
  std::ostringstream out;
  out.precision(9);
  out << array.type.toString() << " [";
  const int64_t n = array.type.numElements();
  const bool sizeOk = static_cast<int64_t>(array.data.size()) == array.type.byteSize();
  start = std::clamp<int64_t>(start, 0, n);
  if (start > 0) out << "..., ";
  for (int64_t i = start; sizeOk && i < n && i < start + maxElements; ++i) {
    if (i > start) out << ", ";
    const DType t = array.type.dtype;
    if (t == DType::Pred)
      out << (array.data[i] ? "true" : "false");
    else if (t == DType::S64)
      out << load<int64_t>(array.data.data() + 8 * i);  // exact beyond 2^53
    else if (t == DType::U64)
      out << load<uint64_t>(array.data.data() + 8 * i);
    else
      out << elementAsDouble(t, array.data.data(), i);
  }
  if (n > start + maxElements) out << ", ...";
  out << "]";
  return out.str();
}

}  // namespace lf::runtime
