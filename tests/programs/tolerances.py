"""How close two float results must be: the per-dtype tolerances of src/runtime/tolerance.h
(numpy.allclose's rule, NaN matching NaN), used by the pytest suite and by the corpus generator's
freshness check. Integers, pred and jax.random's bits are compared exactly. A complex array is
compared as its (real, imaginary) pairs, with its parts' dtype's tolerance.

Fourier transforms (jnp.fft) are compared with the tolerance scaled by the largest magnitude of the
output (`fft_scale`): every point of a transform is a sum over the whole line, so its rounding error
is of the size of the line's largest values, not of the point's own (a point that cancels to 1e-3
in a line of values near 10 carries an error near 1e-6, whichever FFT computes it)."""

from __future__ import annotations

import numpy as np

# dtype name -> (rtol, atol); the C++ tests' values, one place for Python.
TOLERANCES = {
    "float64": (1e-12, 1e-14),
    "float32": (1e-5, 1e-6),
    "float16": (4e-3, 1e-3),
    "bfloat16": (3e-2, 1e-2),
}


def as_real(x: np.ndarray) -> np.ndarray:
    """A complex array as its (real, imaginary) pairs (a trailing dimension of 2); others as is."""
    if x.dtype.kind != "c":
        return x
    return np.ascontiguousarray(x).view(x.real.dtype).reshape(x.shape + (2,))


def fft_scale(expected: np.ndarray) -> float:
    """The tolerance scale for a Fourier transform's output: its largest magnitude, at least 1."""
    finite = np.abs(expected[np.isfinite(expected)])
    return max(1.0, float(finite.max())) if finite.size else 1.0


def within_tolerance(actual: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> bool:
    """Whether float (or complex) arrays of one dtype and shape agree within the dtype's tolerance."""
    actual, expected = as_real(actual), as_real(expected)
    rtol, atol = TOLERANCES[expected.dtype.name]
    return bool(
        np.allclose(
            actual.astype(np.float64),
            expected.astype(np.float64),
            rtol=rtol * scale,
            atol=atol * scale,
            equal_nan=True,
        )
    )
