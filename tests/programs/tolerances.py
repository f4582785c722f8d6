"""How close two float results must be: the per-dtype tolerances of src/runtime/tolerance.h
(numpy.allclose's rule, NaN matching NaN), used by the pytest suite and by the corpus generator's
freshness check. Integers, pred and jax.random's bits are compared exactly."""

from __future__ import annotations

import numpy as np

# dtype name -> (rtol, atol); the C++ tests' values, one place for Python.
TOLERANCES = {
    "float64": (1e-12, 1e-14),
    "float32": (1e-5, 1e-6),
    "float16": (4e-3, 1e-3),
    "bfloat16": (3e-2, 1e-2),
}


def within_tolerance(actual: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> bool:
    """Whether float arrays of one dtype and shape agree within the dtype's tolerance."""
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
