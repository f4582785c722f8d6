#include "runtime/tolerance.h"

#include "runtime/report.h"

#include <cmath>
#include <cstring>

namespace lf::runtime {

Tolerance toleranceFor(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return {1e-12, 1e-14};
    case DType::F32:
      return {1e-5, 1e-6};
    case DType::F16:
      return {4e-3, 1e-3};
    case DType::BF16:
      return {3e-2, 1e-2};
    default:
      return {0, 0};  // integers and pred: exact
  }
}

namespace {

// Integers must agree bit for bit; pred compares as truth values.
bool integerElementsEqual(DType t, const uint8_t* a, const uint8_t* e, int64_t i) {
  if (t == DType::Pred) return (a[i] != 0) == (e[i] != 0);
  const int width = byteSize(t);
  return std::memcmp(a + i * width, e + i * width, width) == 0;
}

bool floatElementsMatch(double a, double e, Tolerance tol) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return a == e;
  return std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e);
}

// A complex pair (both parts finite) within the tolerance of its modulus.
bool complexPairMatches(double ar, double ai, double er, double ei, Tolerance tol) {
  if (!std::isfinite(ar) || !std::isfinite(ai) || !std::isfinite(er) || !std::isfinite(ei))
    return false;
  return std::hypot(ar - er, ai - ei) <= tol.atol + tol.rtol * std::hypot(er, ei);
}

}  // namespace

ArrayComparison compareArrays(const HostArray& actual, const HostArray& expected) {
  return compareArrays(actual, expected, toleranceFor(actual.type.dtype));
}

ArrayComparison compareArrays(const HostArray& actual, const HostArray& expected,
                              Tolerance tolerance) {
  ArrayComparison result;
  const DType t = actual.type.dtype;
  const bool bf16AsBits = t == DType::BF16 && expected.type.dtype == DType::U16;
  if (t != expected.type.dtype && !bf16AsBits) {
    result.error =
        "dtype differs: got " + actual.type.toString() + ", expected " + expected.type.toString();
    return result;
  }
  if (actual.type.dims != expected.type.dims) {
    result.error =
        "shape differs: got " + actual.type.toString() + ", expected " + expected.type.toString();
    return result;
  }
  const int64_t n = actual.type.numElements();
  if (static_cast<int64_t>(actual.data.size()) != n * byteSize(t) ||
      expected.data.size() != actual.data.size()) {
    result.error = "data size does not match the shape " + actual.type.toString();
    return result;
  }
  const uint8_t* a = actual.data.data();
  const uint8_t* e = expected.data.data();
  const bool pairs = expected.complexPairs && isFloat(t) && !actual.type.dims.empty() &&
                     actual.type.dims.back() == 2;
  for (int64_t i = 0; i < n; ++i) {
    const double av = elementAsDouble(t, a, i), ev = elementAsDouble(t, e, i);
    bool match =
        isFloat(t) ? floatElementsMatch(av, ev, tolerance) : integerElementsEqual(t, a, e, i);
    if (!match && pairs) {
      const int64_t re = i - i % 2;  // the pair's real part
      match =
          complexPairMatches(elementAsDouble(t, a, re), elementAsDouble(t, a, re + 1),
                             elementAsDouble(t, e, re), elementAsDouble(t, e, re + 1), tolerance);
    }
    if (std::isfinite(av) && std::isfinite(ev)) {
      const double absError = std::fabs(av - ev);
      result.maxAbsError = std::max(result.maxAbsError, absError);
      if (ev != 0) result.maxRelError = std::max(result.maxRelError, absError / std::fabs(ev));
    }
    if (!match) {
      if (result.mismatches++ == 0) {
        result.firstMismatch = i;
        result.firstActual = av;
        result.firstExpected = ev;
      }
    }
  }
  return result;
}

}  // namespace lf::runtime
