"""jnp.linalg.svd with vectors past min(m, n) = 25 through lf.jit, against jax.jit on the CPU.

There LAPACK's gesdd hands the bidiagonal to bdsdc's divide and conquer (lasd0..lasd4), which
loopfuse runs step for step (src/codegen/prelude/lf_svd_dc.h). Its vectors' signs are chosen by
the merges and do not hang on the last bits of the sums (unlike bdsqr's below 26 rows), so the
vectors of random f32 matrices are compared directly too, signs included. Where a singular value
is repeated or zero its vectors are any basis of their space: there the values and the product
U diag(s) V^T are what is compared. The harness and the paths below 26 rows: test_jit_svd.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import TOLERANCES, assert_close, requires_core
from test_jit_svd import MODES, check, separated

pytestmark = requires_core

DTYPES = [np.float32, np.float64]
# Each of gesdd's paths past 25: the matrix's own bidiagonal (square, tall: upper; wide: lower), a
# QR first (rows >= 11/6 of the columns), an LQ first; a batch; sizes that make lasd0's tree one,
# two and three levels deep (26 rows: two leaves; 64: four; 120: eight).
SHAPES = [(26, 26), (40, 33), (33, 40), (64, 64), (100, 40), (30, 64), (2, 30, 28), (120, 120)]


def product_and_values(a: np.ndarray, scale: float) -> None:
    """Values as jax's; U orthonormal and U diag(s) V^T == a (vectors of repeated values are any
    basis of their space)."""
    f = MODES["full"]
    with jax.enable_x64(a.dtype == np.float64):
        u, s, vt = (np.asarray(x) for x in lf.jit(f, fallback="error")(a))
        js = np.asarray(jax.jit(MODES["values"])(a))
    rtol, _ = TOLERANCES[a.dtype.name]
    assert_close(s, js, what="singular values", scale=scale)
    k = s.shape[-1]
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]
    tol = scale * rtol * max(1.0, float(np.max(np.abs(a))))
    assert np.allclose(rebuilt, a, rtol=0, atol=tol)
    assert np.allclose(u.T @ u, np.eye(u.shape[-1]), rtol=0, atol=tol)
    assert np.allclose(vt @ vt.T, np.eye(vt.shape[-1]), rtol=0, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("mode", ["reduced", "full"])
def test_divide_and_conquer_matches_jax(dtype, shape, mode) -> None:
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    # A vector's error is about eps ||a|| over its value's distance to the next one: random
    # matrices have close values, and more of them the larger they are.
    check(MODES[mode], a, scale=max(8.0, min(shape[-2:]) / 2))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_divide_and_conquer_of_well_separated_values(dtype) -> None:
    # Values one apart: every vector is defined to the sign, and close to jax's bit for bit.
    for shape in [(48, 48), (70, 50), (50, 90)]:
        check(MODES["full"], separated(np.random.default_rng(1), shape, dtype), scale=30.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_divide_and_conquer_deflation(dtype) -> None:
    rng = np.random.default_rng(2)
    # Rank 10 of 40: thirty zero singular values, deflated by their small z components (lasd2).
    low_rank = rng.standard_normal((40, 10)) @ rng.standard_normal((10, 40))
    # Values that repeat: deflated by a rotation of the two vectors (lasd2's column type 3).
    q1, _ = np.linalg.qr(rng.standard_normal((36, 36)))
    q2, _ = np.linalg.qr(rng.standard_normal((36, 36)))
    repeated = (q1 * np.repeat([4.0, 3.0, 2.0, 1.0], 9)) @ q2.T
    # Two 30 x 30 blocks: the bidiagonal splits where its off-diagonal is negligible (bdsdc).
    blocks = np.zeros((60, 60))
    blocks[:30, :30] = rng.standard_normal((30, 30))
    blocks[30:, 30:] = rng.standard_normal((30, 30))
    # The identity and zeros: every value deflates, or the bidiagonal is all zero.
    for a in (low_rank, repeated, blocks, np.eye(32), np.zeros((27, 29))):
        product_and_values(a.astype(dtype), scale=50.0)
    # With distinct values the split blocks' vectors are defined, and have LAPACK's signs.
    check(MODES["full"], blocks.astype(dtype), scale=30.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_divide_and_conquer_scaled_matrices(dtype) -> None:
    # gesdd's scaling into range around the whole decomposition, bdsdc's and lasd1's own inside.
    base = separated(np.random.default_rng(3), (30, 28), np.float64)
    for magnitude in (1e-20, 1e20) if dtype == np.float32 else (1e-150, 1e150):
        check(MODES["reduced"], (base * magnitude).astype(dtype), scale=8.0)


def test_what_jnp_builds_on_the_svd_past_25() -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((60, 40)).astype(np.float32)
    b = rng.standard_normal(60).astype(np.float32)
    check(jnp.linalg.pinv, a, scale=20.0)
    check(lambda a, b: jnp.linalg.lstsq(a, b)[0], a, b, scale=20.0)
    check(jnp.linalg.pinv, a.T.astype(np.float64), scale=20.0)


def test_svd_inside_a_loop_past_25() -> None:
    # A nuclear-norm proximal step per scan step, on a 32 x 30 matrix.
    rng = np.random.default_rng(5)

    def shrink(m, xs):
        def step(m, x):
            u, s, vt = jnp.linalg.svd(m + 0.1 * jnp.outer(x, x[:30]), full_matrices=False)
            return (u * jnp.maximum(s - 0.05, 0.0)) @ vt, s

        return jax.lax.scan(step, m, xs)

    m = separated(rng, (32, 30), np.float64)
    check(shrink, m, rng.standard_normal((4, 32)), scale=20.0)


def test_svd_past_1024_falls_back() -> None:
    # One thread decomposes each matrix; past min(m, n) = 1,024 the function runs with XLA (a
    # warning), or raises.
    a = np.zeros((1025, 1030), np.float32)
    with pytest.raises(lf.CompileError, match=r"up to min\(m, n\) = 1024"):
        lf.jit(jnp.linalg.svd, fallback="error")(a)
