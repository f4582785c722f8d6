"""lax.linalg.ormqr (Q or Q^T times a matrix, from geqrf's reflectors) through lf.jit, against
jax.jit on the CPU, and the libraries whose QR solves call it: lineax's QR solver and
optimistix's Levenberg-Marquardt (a QR least-squares solve per step, inside a while loop).

JAX lowers ormqr to LAPACK's ?ormqr; loopfuse applies the reflectors one by one as LAPACK's
unblocked orm2r does (its blocked form starts past 32 reflectors), so results agree within the
float tolerances (the sums inside each reflector run in another order than OpenBLAS's).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.float32, np.float64]


def check(f, *args) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype == np.float64 for a in args)):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_close(actual, expected, what=getattr(f, "__name__", "f"))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(6, 4), (5, 5), (3, 6, 2), (9, 1)])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_modes(dtype, shape, left: bool, transpose: bool) -> None:
    rng = np.random.default_rng(sum(shape) + 2 * left + transpose)
    a = rng.standard_normal(shape).astype(dtype)
    *batch, m, _ = shape
    c = rng.standard_normal((*batch, m, 3) if left else (*batch, 4, m)).astype(dtype)

    def apply(a, c):
        ht, taus = jnp.linalg.qr(a, mode="raw")
        return jax.lax.linalg.ormqr(
            jnp.swapaxes(ht, -1, -2), taus, c, left=left, transpose=transpose
        )

    check(apply, a, c)


def test_vmap_of_ormqr() -> None:
    # (jax has no differentiation rule for ormqr; lineax differentiates its solves itself.)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 3)).astype(np.float32)
    c = rng.standard_normal((8, 5, 2)).astype(np.float32)

    def qtc(a, c):
        ht, taus = jnp.linalg.qr(a, mode="raw")
        return jax.lax.linalg.ormqr(ht.T, taus, c, left=True, transpose=True)

    check(jax.vmap(qtc, in_axes=(None, 0)), a, c)


def test_lineax_qr_solve() -> None:
    lx = pytest.importorskip("lineax")
    rng = np.random.default_rng(6)
    a = (rng.standard_normal((6, 6)) + 4 * np.eye(6)).astype(np.float32)
    tall = rng.standard_normal((8, 5)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)

    def solves(b):
        square = lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.QR()).value
        least_squares = lx.linear_solve(lx.MatrixLinearOperator(tall), jnp.pad(b, (0, 2)), lx.QR())
        return square, least_squares.value

    check(solves, b)


def test_optimistix_levenberg_marquardt() -> None:
    optx = pytest.importorskip("optimistix")
    t = np.linspace(0.0, 3.0, 12, dtype=np.float32)
    y = (2.0 * np.exp(-1.3 * t) + 0.5).astype(np.float32)

    def fit(y):
        def residuals(p, args):
            return p[0] * jnp.exp(-p[1] * t) + p[2] - args

        solver = optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6)
        return optx.least_squares(residuals, solver, jnp.array([1.0, 1.0, 0.0]), args=y).value

    check(fit, y)
