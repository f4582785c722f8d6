"""How close two float results must be: the per-dtype tolerances of src/runtime/tolerance.h
(numpy.allclose's rule, NaN matching NaN), used by the pytest suite and by the corpus generator's
freshness check. Integers, pred and jax.random's bits are compared exactly. A complex array is
compared as its (real, imaginary) pairs, with its parts' dtype's tolerance; a pair whose parts
differ more also matches when |a - e| <= atol + rtol * |e| in complex moduli (numpy.isclose's rule
for complex numbers; src/runtime/tolerance.h says why).

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


def close_mask(actual: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Per element of as_real(expected): within the dtype's tolerance (a complex pair: its parts,
    or the pair within the tolerance of its modulus)."""
    real_actual, real_expected = as_real(actual), as_real(expected)
    rtol, atol = (t * scale for t in TOLERANCES[real_expected.dtype.name])
    mask = np.isclose(
        real_actual.astype(np.float64),
        real_expected.astype(np.float64),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
    )
    if expected.dtype.kind == "c":
        a, e = actual.astype(np.complex128), expected.astype(np.complex128)
        finite = np.isfinite(a) & np.isfinite(e)
        with np.errstate(invalid="ignore"):
            modulus = finite & (np.abs(a - e) <= atol + rtol * np.abs(e))
        mask |= modulus[..., None]
    return mask


def within_tolerance(actual: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> bool:
    """Whether float (or complex) arrays of one dtype and shape agree within the dtype's tolerance."""
    return bool(close_mask(actual, expected, scale).all())
