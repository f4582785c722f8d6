"""jnp.linalg.qr and jnp.linalg.eigh through lf.jit, against jax.jit on the CPU.

JAX lowers them to LAPACK's geqrf + orgqr and syevd custom calls; loopfuse runs LAPACK's unblocked
algorithms in the kernel (src/codegen/prelude/lf_linalg.h, and above 25 rows the divide and
conquer of lf_stedc.h), so the Householder vectors' and the eigenvectors' signs are LAPACK's, and
the values agree within the float tolerances.

Eigenvectors are compared directly (a sign that differs from jax's fails) where LAPACK's own
choice of sign is stable: f64, and f32 matrices whose eigenvalues are one apart. Elsewhere
(f32 past a few rows, an eigenvalue at 0) LAPACK's sign hangs on the last bits of its BLAS
kernels' sums: scipy's LAPACK flips an eigenvector of 5% of random 25 x 25 f32 matrices when one
element moves by one ulp. There the eigenvalues are compared, the eigenvectors up to sign, and
V diag(w) V^T must give back the matrix.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import TOLERANCES, assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.float32, np.float64]


def symmetric(rng: np.random.Generator, n: int, dtype, batch: tuple[int, ...] = ()) -> np.ndarray:
    """Q diag(1, ..., n) Q^T - (n/2 + 0.3) I: eigenvalues one apart, so each eigenvector is unique
    up to the sign that LAPACK's algorithm chooses, and none at 0 (see test_eigh_zero_eigenvalue)."""
    q, _ = np.linalg.qr(rng.standard_normal(batch + (n, n)))
    d = np.arange(1, n + 1, dtype=np.float64) - n / 2 - 0.3
    return (q @ (d[:, None] * np.swapaxes(q, -1, -2))).astype(dtype)


def check(f, *args, scale: float = 1.0) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype == np.float64 for a in args)):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_close(actual, expected, what=getattr(f, "__name__", "f"), scale=scale)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize(
    "shape", [(4, 3), (3, 4), (5, 5), (1, 1), (7, 1), (1, 6), (2, 6, 4), (3, 2, 4), (40, 24)]
)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_jax(dtype, shape, mode) -> None:
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    check(lambda a: jnp.linalg.qr(a, mode=mode), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_qr_degenerate_columns(dtype) -> None:
    # A zero column (geqrf's tau = 0: no reflector), a column already in R's shape, rank one.
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 4)).astype(dtype)
    zero = a.copy()
    zero[:, 2] = 0
    upper = np.triu(a)
    for m in (zero, upper, np.zeros((3, 3), dtype)):
        check(jnp.linalg.qr, m)
    # Past the first column a rank-one matrix leaves rounding noise, so the later reflectors (and
    # Q's later columns) are the noise's; R and Q's first column are determined.
    rank_one = np.outer(a[:, 0], a[0]).astype(dtype)
    check(lambda m: (jnp.linalg.qr(m)[0][:, 0], jnp.linalg.qr(m)[1]), rank_one)


def check_eigh_up_to_signs(a: np.ndarray, scale: float = 1.0) -> None:
    """Eigenvalues as jax's, eigenvectors as jax's up to sign, and V diag(w) V^T = sym(A).

    An eigenvector is determined to about eps ||A|| / gap, its eigenvalue's distance to the next
    (Davis-Kahan): two LAPACKs that round differently (OpenBLAS picks its kernels by host CPU, so
    jax's own results move between an Intel and an AMD host) differ by that much, and a random
    matrix can have two eigenvalues 0.01 apart. Each eigenvector's tolerance is scaled by
    max(1, ||A|| / gap)."""
    with jax.enable_x64(a.dtype == np.float64):
        w, v = lf.jit(jnp.linalg.eigh, fallback="error")(a)
        w_jax, v_jax = jax.jit(jnp.linalg.eigh)(a)
        assert_close(w, w_jax, what="eigenvalues", scale=scale)
        w64 = np.asarray(w_jax, np.float64)
        gaps = np.full(w64.shape, np.inf)
        if w64.shape[-1] > 1:
            d = np.diff(w64, axis=-1)
            gaps[..., 1:] = d
            gaps[..., :-1] = np.minimum(gaps[..., :-1], d)
        norm = np.max(np.abs(w64), axis=-1, keepdims=True)
        conditioning = np.maximum(1.0, norm / np.maximum(gaps, np.finfo(np.float64).tiny))
        rtol, atol = TOLERANCES[a.dtype.name]
        difference = np.abs(
            np.abs(np.asarray(v, np.float64)) - np.abs(np.asarray(v_jax, np.float64))
        )
        allowed = (atol + rtol * np.abs(np.asarray(v_jax, np.float64))) * scale
        allowed = allowed * conditioning[..., None, :]  # column j: eigenvector j
        worst = np.unravel_index(np.argmax(difference - allowed), difference.shape)
        assert np.all(difference <= allowed), (
            f"|eigenvectors| differ at {worst}: {difference[worst]:.3g} > {allowed[worst]:.3g}"
        )
        n = a.shape[-1]
        rebuilt = np.einsum("...ij,...j,...kj->...ik", np.asarray(v, np.float64), w, v)
        sym = (a.astype(np.float64) + np.swapaxes(a, -1, -2)) / 2
        tol = TOLERANCES[a.dtype.name][0] * n * max(1.0, float(np.max(np.abs(sym))))
        np.testing.assert_allclose(rebuilt, sym, atol=tol, err_msg="V diag(w) V^T")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 12, 16])
def test_eigh_matches_jax(dtype, n) -> None:
    check(jnp.linalg.eigh, symmetric(np.random.default_rng(n), n, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_eigh_largest_size(dtype) -> None:
    # 25 x 25 is the largest matrix LAPACK's syevd solves by QL/QR iteration (sstedc's SMLSIZ).
    # Eigenvectors carry LAPACK's own forward error, about n eps ||A|| / gap: 25 * 6e-8 * 12 for
    # f32, over the corpus' 1e-6, hence the scale. f32 signs at this size are LAPACK's noise.
    a = symmetric(np.random.default_rng(25), 25, dtype)
    if dtype == np.float64:
        check(jnp.linalg.eigh, a)
    else:
        check_eigh_up_to_signs(a, scale=4.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_eigh_batched_and_random_matrices(dtype) -> None:
    rng = np.random.default_rng(2)
    check(jnp.linalg.eigh, symmetric(rng, 5, dtype, batch=(2, 3)))
    # General matrices: jnp.linalg.eigh symmetrizes them first; their eigenvalues are closer
    # together, and f32 signs become LAPACK's noise.
    general = rng.standard_normal((16, 8, 8)).astype(dtype)
    if dtype == np.float64:
        check(jnp.linalg.eigh, general)
    else:
        check_eigh_up_to_signs(general, scale=4.0)
    check(jnp.linalg.eigvalsh, rng.standard_normal((4, 9, 9)).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_eigh_structured_matrices(dtype) -> None:
    # Diagonal (the tridiagonal problem splits at once, then the selection sort reorders the
    # identity's columns), repeated eigenvalues, a 2 x 2 block (slaev2), tridiagonal, zero.
    d = np.diag(np.array([3.0, -1.0, 2.0, 0.5, -1.0], dtype))
    block = np.kron(np.eye(2), np.array([[2.0, 1.0], [1.0, 2.0]])).astype(dtype)
    tri = (
        np.diag(np.arange(1.0, 7.0)) + np.diag(np.full(5, 0.5), 1) + np.diag(np.full(5, 0.5), -1)
    ).astype(dtype)
    for m in (d, np.eye(4, dtype=dtype), block, tri, np.zeros((3, 3), dtype)):
        check(jnp.linalg.eigh, m)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("magnitude", [1e-30, 1e-6, 1e6, 1e30])
def test_eigh_scaled_matrices(dtype, magnitude) -> None:
    # Far from 1, syevd scales the matrix into range and steqr each unreduced block; the
    # eigenvalues are compared relative to their size.
    a = symmetric(np.random.default_rng(3), 6, np.float64) * magnitude
    check(jnp.linalg.eigh, a.astype(dtype))


def test_eigh_zero_eigenvalue() -> None:
    # An eigenvalue at 0 (to rounding) is where LAPACK's own choice of signs hangs on the last
    # bits: scipy's LAPACK flips an eigenvector of this matrix when its tridiagonal form moves by
    # an ulp. The values agree, and the vectors up to their signs.
    q, _ = np.linalg.qr(np.random.default_rng(10).standard_normal((8, 4, 4)))
    a = (q @ (np.array([-1.0, 0.0, 1.0, 2.0])[:, None] * np.swapaxes(q, -1, -2))).astype(np.float32)
    check_eigh_up_to_signs(a)


def test_eigh_of_nan_is_nan_as_in_jax() -> None:
    # The iteration does not converge (info > 0) and JAX's lowering turns the results to NaN.
    a = symmetric(np.random.default_rng(4), 4, np.float32)
    a[1, 2] = a[2, 1] = np.nan
    check(jnp.linalg.eigh, a)


def test_qr_and_eigh_gradients() -> None:
    rng = np.random.default_rng(5)
    a = symmetric(rng, 4, np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)

    def spectral(m):
        w, v = jnp.linalg.eigh(m)
        return jnp.sum(jnp.tanh(w)) + jnp.sum(v[:, 0] ** 2 * jnp.arange(4.0))

    def orth(m):
        q, r = jnp.linalg.qr(m)
        return jnp.sum(q * q[::-1]) + jnp.sum(jnp.diag(r))

    assert_close(lf.jit(jax.grad(spectral))(a), jax.jit(jax.grad(spectral))(a), scale=10.0)
    assert_close(jax.grad(lf.jit(spectral))(a), jax.grad(spectral)(a), scale=10.0)
    assert_close(jax.grad(lf.jit(orth))(x), jax.grad(orth)(x), scale=10.0)


def test_vmap_of_lf_jit_compiles_the_batched_decomposition() -> None:
    rng = np.random.default_rng(6)
    a = symmetric(rng, 4, np.float32, batch=(8,))
    x = rng.standard_normal((8, 4, 3)).astype(np.float32)
    assert_close(jax.vmap(lf.jit(jnp.linalg.eigh))(a), jax.vmap(jnp.linalg.eigh)(a))
    assert_close(jax.vmap(lf.jit(jnp.linalg.qr))(x), jax.vmap(jnp.linalg.qr)(x))
    # orgqr with only one of its operands batched: the other is shared by every matrix.
    taus = rng.uniform(1.0, 1.5, (2, 3)).astype(np.float32)

    def orgqr(a, t):
        return jax.lax.linalg.householder_product(a, t)

    for axes, args in (((0, None), (x[:, :4], taus[0])), ((None, 0), (x[0], taus))):
        assert_close(
            jax.vmap(lf.jit(orgqr, fallback="error"), in_axes=axes)(*args),
            jax.vmap(orgqr, in_axes=axes)(*args),
        )


def test_eigh_in_a_vmapped_while_loop_with_per_chain_trip_counts() -> None:
    rng = np.random.default_rng(11)
    ms = symmetric(rng, 3, np.float32, batch=(8,)) * rng.uniform(0.5, 3.0, (8, 1, 1))

    def shrink(m):
        def cond(c):
            return (c[1] < 6) & (jnp.linalg.eigvalsh(c[0])[0] > -3.0)

        def body(c):
            w, v = jnp.linalg.eigh(c[0])
            return (v @ jnp.diag(w - 0.4) @ v.T, c[1] + 1)

        return jax.lax.while_loop(cond, body, (m, 0))

    check(jax.vmap(shrink), ms.astype(np.float32))


def test_decompositions_inside_loops() -> None:
    # Subspace iteration with a QR each step, and an eigh per scan step of a changing matrix.
    rng = np.random.default_rng(7)
    a = symmetric(rng, 6, np.float32)
    q0 = rng.standard_normal((6, 2)).astype(np.float32)

    def subspace(a, q0):
        q = jax.lax.fori_loop(0, 40, lambda i, q: jnp.linalg.qr(a @ q)[0], jnp.linalg.qr(q0)[0])
        return jnp.abs(q), jnp.linalg.eigvalsh(q.T @ a @ q)

    def flow(a, q0):
        def step(m, x):
            w, v = jnp.linalg.eigh(m + jnp.outer(x, x))
            return m + 0.1 * v @ jnp.diag(jnp.tanh(w)) @ v.T, w

        return jax.lax.scan(step, a, q0.T)

    check(subspace, a, q0)
    check(flow, a, q0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("n", [26, 33, 48, 64])
def test_eigh_divide_and_conquer_matches_jax_signs_included(dtype, n) -> None:
    # Above 25 rows syevd solves the tridiagonal problem by divide and conquer (stedc), whose
    # eigenvector signs come from its merges' formulas: stable enough that f32's agree too. The
    # eigenvectors' own forward error grows as n eps ||A|| / gap (here ||A|| = n / 2, gap 1).
    a = symmetric(np.random.default_rng(n), n, dtype)
    check(jnp.linalg.eigh, a, scale=1.0 if dtype == np.float64 else n / 4)


def check_eigh_of_repeated_eigenvalues(a: np.ndarray, expected_values: np.ndarray) -> None:
    """Where eigenvalues repeat, the eigenvectors are any basis of their space (LAPACK's too):
    the values are compared (with jax's and the known ones), and V must be orthonormal with
    V diag(w) V^T = A."""
    with jax.enable_x64(a.dtype == np.float64):
        w, v = lf.jit(jnp.linalg.eigh, fallback="error")(a)
        w_jax, _ = jax.jit(jnp.linalg.eigh)(a)
    assert_close(w, w_jax, what="eigenvalues", scale=4.0)
    tol = TOLERANCES[a.dtype.name][0] * a.shape[-1] * 4
    np.testing.assert_allclose(np.asarray(w, np.float64), expected_values, atol=tol)
    v = np.asarray(v, np.float64)
    np.testing.assert_allclose(v.T @ v, np.eye(a.shape[-1]), atol=tol, err_msg="V^T V")
    np.testing.assert_allclose(v @ np.diag(np.asarray(w, np.float64)) @ v.T, a, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_eigh_divide_and_conquer_deflates_repeated_eigenvalues(dtype) -> None:
    # The cycle graph's Laplacian on 40 nodes: eigenvalues 2 - 2 cos(2 pi k / 40), each but two
    # of them twice; three copies of a 16 x 16 matrix (every eigenvalue three times) and the
    # 30 x 30 identity plus a rank-one term: the merges deflate by rotation and by small z.
    n = 40
    ring = 2 * np.eye(n) - np.roll(np.eye(n), 1, axis=1) - np.roll(np.eye(n), -1, axis=1)
    ring_values = np.sort(2 - 2 * np.cos(2 * np.pi * np.arange(n) / n))
    block = symmetric(np.random.default_rng(16), 16, np.float64)
    copies = np.kron(np.eye(3), block)
    copies_values = np.sort(np.repeat(np.linalg.eigvalsh(block), 3))
    u = np.random.default_rng(30).standard_normal(30)
    u /= np.linalg.norm(u)
    rank_one = np.eye(30) + 5 * np.outer(u, u)
    rank_one_values = np.concatenate([np.ones(29), [6.0]])
    for m, values in ((ring, ring_values), (copies, copies_values), (rank_one, rank_one_values)):
        check_eigh_of_repeated_eigenvalues(m.astype(dtype), values)


def test_eigh_divide_and_conquer_batched_in_a_loop() -> None:
    # An isospectral flow on a batch of 32 x 32 matrices: each step takes eigh of every matrix in
    # the batch inside a fori_loop, so the kernel runs the divide and conquer per iteration.
    rng = np.random.default_rng(32)
    a = np.stack([symmetric(rng, 32, np.float64) for _ in range(3)])

    def flow(m):
        def step(i, m):
            w, v = jnp.linalg.eigh(m)
            return m + 0.05 * (v * jnp.tanh(w)[..., None, :]) @ jnp.swapaxes(v, -1, -2)

        return jax.lax.fori_loop(0, 4, step, m)

    check(flow, a)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_eigh_above_64_rows_works_in_scratch(dtype) -> None:
    # Above 64 rows the workspace is the kernel's scratch memory (one per matrix), not the
    # thread's stack: a batch of two 100 x 100 matrices and one of 300 rows, signs included.
    rng = np.random.default_rng(100)
    check(
        jnp.linalg.eigh,
        symmetric(rng, 100, dtype, batch=(2,)),
        scale=1.0 if dtype == np.float64 else 25,
    )
    if dtype == np.float64:
        check(jnp.linalg.eigh, symmetric(rng, 300, dtype))


def test_eigh_past_1024_rows_falls_back() -> None:
    # One thread decomposes each matrix: past 1,024 rows (the SVD's values' limit too) the
    # function runs with XLA (a warning), or raises with fallback="error".
    a = symmetric(np.random.default_rng(8), 1025, np.float32)
    with pytest.raises(lf.CompileError, match="up to 1024 rows"):
        lf.jit(jnp.linalg.eigvalsh, fallback="error")(a)
    f = lf.jit(jnp.linalg.eigvalsh)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = f(a)
    assert any("1024 rows" in str(w.message) for w in caught)
    assert_close(result, jax.jit(jnp.linalg.eigvalsh)(a), scale=4.0)


def test_eigh_of_the_upper_triangle_falls_back() -> None:
    a = symmetric(np.random.default_rng(9), 4, np.float32)
    with pytest.raises(lf.CompileError, match="upper triangle"):
        lf.jit(lambda m: jax.lax.linalg.eigh(m, lower=False), fallback="error")(a)
