"""Tridiagonal solves (jax.lax.linalg.tridiagonal_solve: LAPACK's gtsv on the CPU, cuSPARSE's
gtsv2 on CUDA), alone and as implicit time steppers use them."""

import jax
import jax.numpy as jnp
import numpy as np

from registry import normal, program


def diagonals(rng: np.random.Generator, shape: tuple[int, ...], dtype=np.float32):
    """Random diagonals, dl[..., 0] = du[..., -1] = 0 as jax documents them; about half the steps
    pivot (|dl| > |d|)."""
    dl, d, du = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    dl[..., 0] = 0
    du[..., -1] = 0
    return dl, d, du


@program(
    "linalg_tridiagonal_solve",
    args=lambda rng: (*diagonals(rng, (3, 9)), normal(rng, (3, 9, 4)), normal(rng, (9, 1))),
)
def linalg_tridiagonal_solve(dl, d, du, b, v):
    # A batch of systems with four right-hand sides each, pivoting where |dl| > |d|; one system
    # whose first pivot is zero (gtsv's info 1: jax gives NaN), one of two rows, one of one row,
    # and one that pivots on every step.
    solve = jax.lax.linalg.tridiagonal_solve
    zero_pivot = solve(dl[0].at[1].set(0.0), d[0].at[0].set(0.0), du[0], b[0])
    always_swap = solve(jnp.full(9, 4.0).at[0].set(0.0), jnp.ones(9), du[1], v)
    return (
        solve(dl, d, du, b),
        zero_pivot,
        solve(dl[1, :2], d[1, :2], du[1, :2], b[1, :2]),
        solve(dl[2, :1], d[2, :1], du[2, :1], b[2, :1]),
        always_swap,
    )


@program(
    "linalg_tridiagonal_heat",
    args=lambda rng: (np.abs(normal(rng, (48,), np.float64)), np.float64(0.4)),
    x64=True,
)
def linalg_tridiagonal_heat(u0, kappa):
    # Crank-Nicolson for the heat equation on a periodic-ish rod: every step solves the implicit
    # half with the same tridiagonal matrix (its factorization is loop-invariant) and a source
    # term that depends on the state, for a trip count given at run time by a tolerance.
    n = u0.shape[0]
    r = kappa
    dl = jnp.full(n, -r / 2).at[0].set(0.0)
    du = jnp.full(n, -r / 2).at[-1].set(0.0)
    d = jnp.full(n, 1.0 + r)

    def step(carry):
        u, t = carry
        rhs = (1 - r) * u + r / 2 * (jnp.roll(u, 1) + jnp.roll(u, -1)) + 0.01 * jnp.tanh(u)
        return jax.lax.linalg.tridiagonal_solve(dl, d, du, rhs[:, None])[:, 0], t + 1

    def not_done(carry):
        u, t = carry
        return (jnp.max(u) - jnp.min(u) > 0.05) & (t < 2000)

    return jax.lax.while_loop(not_done, step, (u0, 0))


def implicit_steps(u0, kappa, steps: int = 30):
    """Backward Euler for u' = kappa u'' + sin(u): one tridiagonal solve per step."""
    n = u0.shape[-1]
    dl = jnp.full(n, -kappa).at[0].set(0.0)
    du = jnp.full(n, -kappa).at[-1].set(0.0)
    d = jnp.full(n, 1.0 + 2.0 * kappa)

    def step(_, u):
        rhs = u + 0.05 * jnp.sin(u)
        return jax.lax.linalg.tridiagonal_solve(dl, d, du, rhs[:, None])[:, 0]

    return jax.lax.fori_loop(0, steps, step, u0)


@program(
    "linalg_tridiagonal_vmap_rhs",
    args=lambda rng: (normal(rng, (6, 16)), np.float32(0.7)),
)
def linalg_tridiagonal_vmap_rhs(u0, kappa):
    # vmap over the initial states only: the diagonals are shared, so jax solves the chains as
    # the columns of one right-hand side (batch-mapped by columns).
    return jax.vmap(implicit_steps, in_axes=(0, None))(u0, kappa)


@program(
    "linalg_tridiagonal_vmap_diagonals",
    args=lambda rng: (normal(rng, (16,)), np.abs(normal(rng, (6,))) + 0.1),
)
def linalg_tridiagonal_vmap_diagonals(u0, kappa):
    # vmap over the diffusion coefficient: each chain has its own diagonals (a batch of systems).
    return jax.vmap(implicit_steps, in_axes=(None, 0))(u0, kappa)


@program(
    "linalg_tridiagonal_schrodinger",
    args=lambda rng: (np.array([2.0, -1.0, 4.0], np.float32), np.float32(0.02)),
)
def linalg_tridiagonal_schrodinger(k0, dt):
    # Crank-Nicolson for i psi_t = -psi_xx / 2 + V psi (complex64: cgtsv), three Gaussian
    # wavepackets of momenta k0 vmapped (the chains are columns of one complex right-hand side),
    # against a barrier; the norm stays 1 (the scheme is unitary).
    n = 64
    x = jnp.linspace(-8.0, 8.0, n)
    h = x[1] - x[0]
    v = 2.0 * jnp.exp(-4.0 * x**2)
    off = jnp.full(n, -0.5 / h**2).astype(jnp.complex64)
    diag = (1.0 / h**2 + v).astype(jnp.complex64)
    a = 0.5j * dt
    dl, du = (a * off).at[0].set(0.0), (a * off).at[-1].set(0.0)

    def evolve(k):
        psi0 = (jnp.exp(-((x + 3.0) ** 2) + 1j * k * x) / jnp.pi**0.25).astype(jnp.complex64)

        def step(_, psi):
            h_psi = diag * psi + off * (jnp.roll(psi, 1) + jnp.roll(psi, -1))
            return jax.lax.linalg.tridiagonal_solve(
                dl, 1.0 + a * diag, du, (psi - a * h_psi)[:, None]
            )[:, 0]

        psi = jax.lax.fori_loop(0, 40, step, psi0)
        return psi, jnp.sum(jnp.abs(psi) ** 2) * h

    return jax.vmap(evolve)(k0)


@program(
    "linalg_eigh_tridiagonal",
    args=lambda rng: (normal(rng, (10,), np.float64), normal(rng, (9,), np.float64)),
    x64=True,
)
def linalg_eigh_tridiagonal(d, e):
    # jax.scipy.linalg.eigh_tridiagonal: the values by bisection (a while loop), the vectors by
    # inverse iteration (tridiagonal_solve(perturb_singular=True), jax's own kernel, in a while
    # loop) and QR within clusters; and a matrix with a repeated eigenvalue (its shifted systems
    # are exactly singular).
    w, v = jax.scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=False)
    w2, v2 = jax.scipy.linalg.eigh_tridiagonal(jnp.ones(6), jnp.zeros(5), eigvals_only=False)
    return w, jnp.abs(v), w2, jnp.abs(v2)
