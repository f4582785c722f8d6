// How close loopfuse's outputs must be to JAX's: the per-dtype tolerances, in this ONE place, and
// the comparison that `loopfuse run --check` and the corpus test both use.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

// An element matches when |actual - expected| <= atol + rtol * |expected| (numpy.allclose's rule),
// NaN matches NaN (any payload), and an infinity matches only the same infinity.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact() const { return rtol == 0 && atol == 0; }
};

// Integers and pred: exact (bit-exact with XLA is a design goal: jax.random must give the same
// bits). Floats: a few ulp of the type, since transcendental functions may differ from XLA's by a
// few ulp and XLA may keep f16/bf16 intermediates in f32:
//   f64 rtol 1e-12 atol 1e-14   (eps 2.2e-16; loops can accumulate rounding differences)
//   f32 rtol 1e-5  atol 1e-6    (eps 1.2e-7: about 80 ulp, room for error growth in loops)
//   f16 rtol 4e-3  atol 1e-3    (eps 9.8e-4: about 4 ulp)
//   bf16 rtol 3e-2 atol 1e-2    (eps 7.8e-3: about 4 ulp)
// A complex output is its f32 / f64 (real, imaginary) pairs, compared with the parts' tolerance;
// when the expected array came from a complex .npy (HostArray::complexPairs), a pair also matches
// when |a - e| <= atol + rtol * |e| in complex moduli (numpy.isclose's rule for complex): a part
// that cancels to near zero beside a large other part (pow(-1e-20-40i, 1) has a real part of
// 40 * cos(fl(pi/2)), a few 1e-6 of either sign) is judged against the number's size, as
// libraries state complex accuracy.
// Fourier transforms: the pytest suite scales the tolerance by the output's largest magnitude
// (tests/programs/tolerances.py, fft_scale); the corpus's fft programs normalize instead.
Tolerance toleranceFor(DType dtype);

struct ArrayComparison {
  std::string error;           // non-empty when the arrays cannot be compared (type or shape)
  double maxAbsError = 0;      // over elements where both are finite
  double maxRelError = 0;      // |a - e| / |e| over elements with a finite, non-zero expected value
  int64_t mismatches = 0;      // elements outside the tolerance
  int64_t firstMismatch = -1;  // row-major index of the first one; -1 when none
  double firstActual = 0, firstExpected = 0;  // the values there
  bool ok() const { return error.empty() && mismatches == 0; }
};

// Compares one output with its expected value. An expected u16 array stands for bf16 bits when
// the actual array is bf16 (that is how .npz files carry bf16).
ArrayComparison compareArrays(const HostArray& actual, const HostArray& expected);
ArrayComparison compareArrays(const HostArray& actual, const HostArray& expected,
                              Tolerance tolerance);

}  // namespace lf::runtime
