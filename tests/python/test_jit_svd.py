"""jnp.linalg.svd and what jnp builds on it (pinv, lstsq, matrix_rank, norm, cond) through lf.jit,
against jax.jit on the CPU.

JAX lowers the SVD to LAPACK's gesdd; loopfuse runs gesdd's own steps in the kernel
(src/codegen/prelude/lf_svd.h: the QR or LQ factorization gesdd starts with when one dimension is
at least 11/6 of the other, the bidiagonal reduction, bdsqr's QR iteration, the
back-transformations), so the singular vectors have LAPACK's signs and the values agree within
the float tolerances.

Vectors are compared directly (a sign that differs from jax's fails) where LAPACK's own choice is
stable: f64 matrices, and f32 ones whose singular values are well apart. For random f32 matrices
past about 10 rows the sign hangs on the last bits of OpenBLAS's sums, as with eigh
(tests/python/test_jit_qr_eigh.py): there the values are compared, the vectors up to the sign of
each (u, v) pair, and U diag(s) V^T must give back the matrix.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import TOLERANCES, assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.float32, np.float64]
# Shapes that take each of gesdd's paths: the bidiagonal reduction of the matrix itself (square,
# tall: upper bidiagonal; wide: lower), a QR first (rows >= 11/6 of the columns) or an LQ first
# (columns >= 11/6 of the rows); one row or column; a batch; the largest size (min(m, n) = 25).
SHAPES = [(5, 5), (6, 4), (12, 3), (4, 6), (3, 12), (1, 1), (7, 1), (1, 6), (2, 5, 3), (25, 25)]
MODES = {
    "reduced": lambda a: jnp.linalg.svd(a, full_matrices=False),
    "full": lambda a: jnp.linalg.svd(a),
    "values": lambda a: jnp.linalg.svd(a, compute_uv=False),
}


def separated(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    """U diag(k, ..., 2, 1) V^T with random orthogonal U and V: singular values one apart, so each
    (u, v) pair is unique up to the sign that LAPACK's algorithm chooses."""
    *batch, m, n = shape
    k = min(m, n)
    u, _ = np.linalg.qr(rng.standard_normal((*batch, m, k)))
    v, _ = np.linalg.qr(rng.standard_normal((*batch, n, k)))
    s = np.arange(k, 0, -1, dtype=np.float64)
    return ((u * s[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(dtype)


def check(f, *args, scale: float = 1.0) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype == np.float64 for a in args)):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_close(actual, expected, what=getattr(f, "__name__", "f"), scale=scale)


def check_up_to_signs(a: np.ndarray, scale: float = 1.0) -> None:
    """Values as jax's; each (u_j, v_j) pair jax's or both negated; U diag(s) V^T == a."""
    f = MODES["reduced"]
    with jax.enable_x64(a.dtype == np.float64):
        u, s, vt = (np.asarray(x) for x in lf.jit(f, fallback="error")(a))
        ju, js, jvt = (np.asarray(x) for x in jax.jit(f)(a))
    rtol, _ = TOLERANCES[a.dtype.name]
    assert_close(s, js, what="singular values", scale=scale)
    sign = np.sign(np.sum(u * ju, axis=-2))  # one sign per pair
    # A vector's error is about eps ||a|| over its value's distance to the next one: random
    # matrices have close values, so the vectors get a wider tolerance than the values.
    assert_close(u * sign[..., None, :], ju, what="u up to signs", scale=100 * scale)
    assert_close(vt * sign[..., :, None], jvt, what="vt up to signs", scale=100 * scale)
    rebuilt = (u * s[..., None, :]) @ vt
    assert np.allclose(rebuilt, a, rtol=0, atol=50 * scale * rtol * np.max(np.abs(a)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("mode", list(MODES))
def test_svd_matches_jax(dtype, shape, mode) -> None:
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape) if dtype == np.float64 else separated(rng, shape, dtype)
    # A vector's error grows with the size (each element sums over min(m, n) rotations).
    check(MODES[mode], a.astype(dtype), scale=max(4.0, min(shape[-2:]) / 2))


@pytest.mark.parametrize("shape", [(25, 25), (30, 25), (25, 40), (12, 12)])
def test_svd_of_random_f32_matrices(shape) -> None:
    check_up_to_signs(np.random.default_rng(3).standard_normal((16, *shape)).astype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_svd_structured_matrices(dtype) -> None:
    # Zero and identity matrices, a diagonal with negative entries (bdsqr's sign flips), matrices
    # already upper and lower bidiagonal, a rank-two 5 x 4 (zero singular values: bdsqr's
    # zero-shift sweeps and deflation), a repeated singular value (values and the product only).
    eye = np.eye(4, dtype=dtype)
    diag = np.diag(np.array([3.0, -1.0, 2.0, -0.5])).astype(dtype)
    upper = (np.diag(np.arange(1.0, 6.0)) + np.diag(np.full(4, 0.5), 1)).astype(dtype)
    rank2 = (
        np.outer(np.arange(1.0, 6.0), [1.0, -2.0, 0.5, 1.0]) + np.outer(np.ones(5), [0, 1, 1, 0])
    ).astype(dtype)
    for a in (np.zeros((3, 4), dtype), eye, diag, upper, upper.T):
        for mode in MODES.values():
            check(mode, a, scale=4.0)
    # With a repeated or zero singular value the vectors that belong to it are any orthonormal
    # basis of their space: the values, and the product, are what is defined.
    repeated = np.diag(np.array([2.0, 2.0, 1.0])).astype(dtype) @ np.array(
        [[0.0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype
    )
    for a in (rank2, repeated):
        check(MODES["values"], a, scale=4.0)
        u, s, vt = lf.jit(MODES["reduced"], fallback="error")(a)
        rebuilt = (np.asarray(u) * np.asarray(s)) @ np.asarray(vt)
        assert np.allclose(rebuilt, a, atol=1e-5 * np.max(np.abs(a)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("magnitude", [1e-30, 1e-6, 1e6, 1e30])
def test_svd_scaled_matrices(dtype, magnitude) -> None:
    # Outside [sqrt(safmin) / eps, its inverse] gesdd scales the matrix into range first and the
    # values back after; far beyond f32's range for f64 too.
    if dtype == np.float64:
        magnitude = magnitude**6
    a = separated(np.random.default_rng(2), (6, 4), np.float64) * magnitude
    check(MODES["reduced"], a.astype(dtype), scale=4.0)
    check(MODES["values"], a.T.astype(dtype), scale=4.0)


def test_svd_of_nan_is_nan_as_in_jax() -> None:
    # gesdd returns info = -4 for a NaN element, and JAX's lowering turns the results to NaN.
    a = separated(np.random.default_rng(4), (5, 3), np.float32)
    a[1, 2] = np.nan
    check(MODES["reduced"], a)
    check(MODES["values"], a)


def test_what_jnp_builds_on_the_svd() -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    deficient = np.outer(np.arange(1.0, 6.0), [1.0, -2.0, 0.5]).astype(np.float32)
    check(jnp.linalg.pinv, a)
    check(lambda a, b: jnp.linalg.lstsq(a, b), a, b, scale=4.0)
    check(jnp.linalg.matrix_rank, deficient)
    check(lambda a: jnp.linalg.norm(a, ord=2), a)
    check(lambda a: jnp.linalg.norm(a, ord="nuc"), a)
    check(jnp.linalg.cond, a[:4], scale=4.0)
    check(jnp.linalg.pinv, a.T.astype(np.float64))


def test_svd_gradients() -> None:
    rng = np.random.default_rng(6)
    a = separated(rng, (5, 3), np.float64).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)

    def nuclear(m):
        return jnp.sum(jnp.linalg.svd(m, compute_uv=False))

    def fit(m):
        x = jnp.linalg.lstsq(m, b)[0]
        return jnp.sum((m @ x - b) ** 2) + jnp.sum(x**2)

    def vectors(m):
        u, s, vt = jnp.linalg.svd(m, full_matrices=False)
        return jnp.sum(s * jnp.abs(u[0])) + jnp.sum(vt[:, 0] ** 2 * jnp.arange(3.0))

    for f in (nuclear, fit, vectors):
        assert_close(jax.grad(lf.jit(f))(a), jax.grad(f)(a), what=f.__name__, scale=10.0)
    assert_close(lf.jit(jax.grad(nuclear))(a), jax.jit(jax.grad(nuclear))(a), scale=10.0)


def test_vmap_of_lf_jit_compiles_the_batched_svd() -> None:
    a = separated(np.random.default_rng(7), (8, 6, 4), np.float32)
    for f in MODES.values():
        assert_close(jax.vmap(lf.jit(f, fallback="error"))(a), jax.vmap(f)(a), scale=4.0)


def test_svd_inside_loops() -> None:
    # Iteratively reweighted least squares (an lstsq per fori_loop step), a nuclear-norm proximal
    # step per scan step, and a vmapped while_loop whose chains stop after different counts.
    rng = np.random.default_rng(8)
    x = rng.standard_normal((12, 3)).astype(np.float64)
    y = x @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(12)

    def irls(x, y):
        def step(i, beta):
            w = 1.0 / jnp.sqrt(1e-6 + (y - x @ beta) ** 2)
            return jnp.linalg.lstsq(x * jnp.sqrt(w)[:, None], y * jnp.sqrt(w))[0]

        return jax.lax.fori_loop(0, 10, step, jnp.zeros(3))

    def shrink(m, xs):
        def step(m, x):
            u, s, vt = jnp.linalg.svd(m + 0.1 * jnp.outer(x, x[:3]), full_matrices=False)
            return (u * jnp.maximum(s - 0.05, 0.0)) @ vt, s

        return jax.lax.scan(step, m, xs)

    def until_small(m):
        def cond(c):
            return (jnp.linalg.norm(c[0], ord=2) > 0.5) & (c[1] < 20)

        return jax.lax.while_loop(cond, lambda c: (0.8 * c[0], c[1] + 1), (m, 0))

    check(irls, x, y, scale=4.0)
    m = separated(rng, (5, 3), np.float32)
    check(shrink, m, rng.standard_normal((6, 5)).astype(np.float32), scale=4.0)
    check(jax.vmap(until_small), m[None] * rng.uniform(0.5, 4.0, (8, 1, 1)).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", [(26, 30), (64, 64), (100, 40), (3, 48, 33)])
def test_singular_values_of_large_matrices(dtype, shape) -> None:
    # Values alone go to bdsdc's lasdq at any size in LAPACK too; past 25 loopfuse skips gesdd's
    # QR-first path (the values are the matrix's, not the path's): spectral norms, nuclear norms,
    # condition numbers of weight-sized matrices.
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)

    def values(a):
        return (
            jnp.linalg.svd(a, compute_uv=False),
            jnp.linalg.norm(a, ord=2, axis=(-2, -1)),
            jnp.linalg.norm(a, ord="nuc", axis=(-2, -1)),
            jnp.linalg.cond(a[..., :20, :20]),
        )

    check(values, a, scale=4.0)
