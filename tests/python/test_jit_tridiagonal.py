"""jax.lax.linalg.tridiagonal_solve through lf.jit, against jax.jit on the CPU.

JAX lowers it to LAPACK's ?gtsv (Gaussian elimination with partial pivoting between neighbouring
rows, then back substitution; cgtsv/zgtsv pivot by |re| + |im| and skip a zero sub-diagonal).
loopfuse runs gtsv's own operations in its order, so the solutions are jax's to the bit (checked with array_equal here), singular systems included (NaN, as jax
makes them). Inside loops, differentiated (jax's rules solve the transposed system) and vmapped
(over the right-hand sides: columns of one system; over the diagonals: a batch of systems).
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

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
solve = jax.lax.linalg.tridiagonal_solve


def random(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def diagonals(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> tuple[np.ndarray, ...]:
    dl, d, du = (random(rng, shape, dtype) for _ in range(3))
    dl[..., 0] = 0
    du[..., -1] = 0
    return dl, d, du


def same_bits(f, *args) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype in (np.float64, np.complex128) for a in args)):
        expected = np.asarray(jax.jit(f)(*args))
        actual = np.asarray(lf.jit(f, fallback="error")(*args))
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,k,batch", [(1, 1, ()), (2, 3, ()), (3, 1, (2,)), (17, 5, (2, 3))])
def test_solutions_are_gtsvs_bits(dtype, n: int, k: int, batch: tuple[int, ...]) -> None:
    rng = np.random.default_rng(n + 10 * k + len(batch))
    dl, d, du = diagonals(rng, (*batch, n), dtype)
    b = random(rng, (*batch, n, k), dtype)
    same_bits(solve, dl, d, du, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pivoting_and_singular_systems(dtype) -> None:
    n = 7
    rng = np.random.default_rng(5)
    b = random(rng, (7, n, 2), dtype)
    dl, d, du = diagonals(rng, (7, n), dtype)
    dl[0] = 10.0  # every step swaps rows (|dl| > |d|)
    dl[0, 0] = 0
    d[1, 0] = dl[1, 1] = 0  # the first pivot is zero: gtsv's info 1
    d[2, :] = dl[2, :] = 0  # all zeros
    d[3, -1] = 0  # the last pivot can be zero, or not: as gtsv finds it
    du[3, -2] = dl[3, -1] = 0
    d[4, 2] = np.nan  # NaN takes gtsv's swap branch (the comparison is false)
    dl[5] = 1e30  # huge multipliers: inf and NaN on the way, as in gtsv
    dl[5, 0] = 0
    dl[6, 2:5] = 0  # nothing to eliminate: cgtsv skips the step, gtsv eliminates with 0
    with jax.enable_x64(dtype in (np.float64, np.complex128)):
        assert np.isnan(np.asarray(jax.jit(solve)(dl, d, du, b))[1:3]).all()  # the oracle's NaNs
    same_bits(solve, dl, d, du, b)


def test_complex_crank_nicolson_schrodinger_vmapped() -> None:
    # i psi_t = -psi_xx / 2: (1 + i dt/2 H) psi' = (1 - i dt/2 H) psi, complex128, three packets.
    n, dt = 48, 0.01
    x = np.linspace(-6.0, 6.0, n)
    h = x[1] - x[0]

    def evolve(k0):
        a = 0.5j * dt
        off = jnp.full(n, -0.5 / h**2, jnp.complex128)
        diag = jnp.full(n, 1.0 / h**2, jnp.complex128)
        psi0 = jnp.exp(-((x + 2.0) ** 2) + 1j * k0 * x)

        def step(_, psi):
            h_psi = diag * psi + off * (jnp.roll(psi, 1) + jnp.roll(psi, -1))
            rhs = (psi - a * h_psi)[:, None]
            return solve((a * off).at[0].set(0), 1 + a * diag, (a * off).at[-1].set(0), rhs)[:, 0]

        return jax.lax.fori_loop(0, 30, step, psi0)

    with jax.enable_x64(True):
        k0 = np.array([1.0, -2.0, 3.0])
        expected = jax.jit(jax.vmap(evolve))(k0)
        actual = lf.jit(jax.vmap(evolve), fallback="error")(k0)
        explain = lf.jit(jax.vmap(evolve)).lower(k0).explain()
    assert_close(actual, expected, what="schrodinger")
    assert "batch mapping: 3 independent chains" in explain, explain.splitlines()[-1]


def implicit_heat(u0, kappa, steps: int = 40):
    n = u0.shape[-1]
    dl = jnp.full(n, -kappa / 2).at[0].set(0.0)
    du = jnp.full(n, -kappa / 2).at[-1].set(0.0)
    d = jnp.full(n, 1.0 + kappa)

    def step(_, u):
        rhs = (1 - kappa) * u + kappa / 2 * (jnp.roll(u, 1) + jnp.roll(u, -1))
        return solve(dl, d, du, rhs[:, None])[:, 0]

    return jax.lax.fori_loop(0, steps, step, u0)


def test_crank_nicolson_loop_and_its_hoisted_factorization() -> None:
    u0 = np.sin(np.linspace(0, 3, 32)) ** 2
    with jax.enable_x64(True):
        same_bits(implicit_heat, u0, 0.3)
        explain = lf.jit(implicit_heat).lower(u0, 0.3).explain()
    # The diagonals do not change in the loop: their factorization runs once, before it.
    factor = [line for line in explain.splitlines() if "(tridiagonal-factor)" in line]
    assert len(factor) == 1 and "hoisted out of while" in factor[0], explain


def test_grad_through_the_loop() -> None:
    u0 = np.sin(np.linspace(0, 3, 24)) ** 2

    def loss(u0, kappa):
        return jnp.sum(implicit_heat(u0, kappa) ** 2)

    with jax.enable_x64(True):
        expected = jax.grad(loss, argnums=(0, 1))(u0, 0.3)
        inside = lf.jit(jax.grad(loss, argnums=(0, 1)), fallback="error")(u0, 0.3)
        outside = jax.grad(lambda u, k: jnp.sum(lf.jit(implicit_heat)(u, k) ** 2), (0, 1))(u0, 0.3)
    assert_close(inside, expected, what="lf.jit(grad)", scale=4.0)
    assert_close(outside, expected, what="grad(lf.jit)", scale=4.0)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)], ids=["rhs", "diag", "both"])
def test_vmap_batch_maps(in_axes) -> None:
    u0 = np.sin(np.linspace(0, 3, 16)) ** 2
    us = np.stack([u0 * s for s in (1.0, 0.5, 2.0, 3.0)])
    kappas = np.array([0.1, 0.2, 0.3, 0.4])
    args = (us if in_axes[0] == 0 else u0, kappas if in_axes[1] == 0 else 0.3)
    f = jax.vmap(implicit_heat, in_axes=in_axes)
    with jax.enable_x64(True):
        same_bits(f, *args)
        explain = lf.jit(f).lower(*args).explain()
        outside = jax.vmap(lf.jit(implicit_heat), in_axes=in_axes)(*args)
        assert_close(outside, jax.jit(f)(*args), what="vmap(lf.jit)")
    assert "batch mapping: 4 independent chains" in explain, explain.splitlines()[-1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,k", [(1, 2), (2, 1), (11, 3)])
def test_perturb_singular_is_jaxlibs_kernel_bit_for_bit(dtype, n: int, k: int) -> None:
    # jax's own kernel for singular systems (inverse iteration): pivots below eps max|U| are
    # perturbed, or the row scaled, so that the solution stays finite.
    rng = np.random.default_rng(n + k)
    dl, d, du = diagonals(rng, (5, n), dtype)
    b = random(rng, (5, n, k), dtype)
    d[1], dl[1] = 0, 0  # the zero matrix
    d[2, 0] = 0
    d[3] = 1e-30  # tiny pivots: the rows are scaled or the pivots perturbed
    du[4, -1] = 5.0  # jax's padding, read by the kernel where it does not count
    if n > 3:
        dl[0, 3] = 0

    def perturbed(dl, d, du, b):
        return solve(dl, d, du, b, perturb_singular=True)

    with jax.enable_x64(dtype == np.float64):
        assert np.isfinite(np.asarray(jax.jit(perturbed)(dl, d, du, b))).all()
    same_bits(perturbed, dl, d, du, b)


def test_eigh_tridiagonal_eigenvectors_by_inverse_iteration() -> None:
    # jax.scipy.linalg.eigh_tridiagonal: bisection for the values, then inverse iteration with
    # the perturbed solve in a while loop, and QR within clusters.
    rng = np.random.default_rng(8)
    d, e = rng.standard_normal(14), rng.standard_normal(13)

    def eig(d, e):
        return jax.scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=False)

    with jax.enable_x64(True):
        expected = jax.jit(eig)(d, e)
        actual = lf.jit(eig, fallback="error")(d, e)
    np.testing.assert_array_equal(actual[0], expected[0])  # the values by bisection: same bits
    assert_close(actual, expected, what="eigh_tridiagonal")


def test_perturbed_solve_of_too_large_systems_falls_back_naming_the_call() -> None:
    n = 6000  # 3 n + k over the 16,384 elements one thread keeps
    dl, d, du = diagonals(np.random.default_rng(2), (n,), np.float32)
    b = np.ones((n, 1), np.float32)

    def perturbed(dl, d, du, b):
        return solve(dl, d, du, b, perturb_singular=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lf.jit(perturbed)(dl, d, du, b)
    messages = [str(w.message) for w in caught if "loopfuse" in str(w.message)]
    assert len(messages) == 1 and "tridiagonal_solve_perturbed_ffi" in messages[0], messages
    assert "3 n + k <= 16384" in messages[0], messages
    assert_close(out, jax.jit(perturbed)(dl, d, du, b))
    with pytest.raises(lf.CompileError, match="tridiagonal_solve_perturbed_ffi"):
        lf.jit(perturbed, fallback="error")(dl, d, du, b)
