"""jnp.linalg.eigvals of general real matrices through lf.jit, against jax.jit on the CPU.

JAX lowers it to LAPACK's geev with no vectors; loopfuse runs geev's own steps in the kernel
(src/codegen/prelude/lf_geev.h: scaling, gebal's permutations and scaling, the Hessenberg
reduction, lahqr's double-shift QR iteration), so the eigenvalues come in LAPACK's order, which
is the order of the Schur form and not sorted. Outputs are compared element by element, order
included. Where eigenvalues are close the order can hang on the last bits of OpenBLAS's sums: for
random f32 matrices past about 40 rows it did (75 x 75 had one pair in another place), so the
shapes stop at 30.

Not done: the eigenvectors (jnp.linalg.eig, and so eigvals' gradient, which jax computes from
them) and complex matrices (cgeev) fall back to XLA with a message that names the call.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.float32, np.float64]


def _matrices(dtype: type) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    out = {f"random{n}": rng.standard_normal((n, n)) for n in (1, 2, 3, 5, 8, 13, 30)}
    a = rng.standard_normal((6, 6))
    out.update(
        batch=rng.standard_normal((2, 3, 4, 4)),
        upper=np.triu(a),
        lower=np.tril(a),
        blocks=np.kron(np.eye(2), a[:3, :3]),
        permutation=np.eye(6)[[3, 1, 5, 0, 2, 4]],
        masked=np.where(np.abs(a) > 0.9, a, 0.0),
        rotation=np.array([[0.0, -1.0], [1.0, 0.0]]),
        jordan=np.eye(4) + np.diag(np.ones(3), 1),
        zeros=np.zeros((3, 3)),
        graded=np.diag([1e-3, 1.0, 1e3]) @ a[:3, :3] @ np.diag([1e3, 1.0, 1e-3]),
        companion=np.vstack([-np.arange(1.0, 6.0)[None], np.eye(4, 5)]),
        tiny=a * 1e-30,
        huge=a * 1e30,
    )
    return {k: v.astype(dtype) for k, v in out.items()}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_eigvals_match_jax_in_lapacks_order(dtype: type) -> None:
    with jax.enable_x64(dtype == np.float64):
        f = jnp.linalg.eigvals
        g = lf.jit(f, fallback="error")
        for name, a in _matrices(dtype).items():
            assert_close(g(a), jax.jit(f)(a), what=name)


def test_eigvals_of_nonfinite_matrices_are_nan_as_in_jax() -> None:
    g = lf.jit(jnp.linalg.eigvals, fallback="error")
    for a in (
        np.array([[1.0, np.nan], [0.0, 2.0]], np.float32),
        np.full((3, 3), np.inf, np.float32),
    ):
        assert_close(g(a), jax.jit(jnp.linalg.eigvals)(a))


def test_eigvals_in_loops_under_vmap() -> None:
    # A scan that tracks the spectral abscissa of a drifting matrix, vmapped over a batch.
    def abscissa_path(a: jax.Array) -> jax.Array:
        def step(m: jax.Array, t: jax.Array) -> tuple[jax.Array, jax.Array]:
            m = m + 0.05 * t * jnp.tanh(m.T)
            return m, jnp.max(jnp.linalg.eigvals(m).real)

        return jax.lax.scan(step, a, jnp.linspace(0.0, 1.0, 10))[1]

    a = np.random.default_rng(3).standard_normal((4, 5, 5)).astype(np.float32)
    f = jax.vmap(abscissa_path)
    assert_close(jax.vmap(lf.jit(abscissa_path, fallback="error"))(a), jax.jit(f)(a))


def test_eigenvectors_fall_back_with_a_message() -> None:
    a = np.eye(3, dtype=np.float32)
    with pytest.raises(lf.CompileError, match=r"with eigenvectors \(jnp.linalg.eig\)"):
        lf.jit(jnp.linalg.eig, fallback="error")(a)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = lf.jit(jnp.linalg.eig)(a)
    assert any("eigenvectors" in str(c.message) for c in caught)
    assert_close(result, jax.jit(jnp.linalg.eig)(a))
