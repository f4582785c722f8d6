"""Complex LU, Cholesky and triangular solves through lf.jit, against jax.jit on the CPU: what
jnp.linalg.solve / inv / det / slogdet, jax.scipy.linalg's lu_factor, lu_solve, cholesky,
cho_solve, solve_triangular and expm do on c64 and c128 matrices, and the loops quantum and
signal-processing users write around them (a Crank-Nicolson propagator, a Hermitian
preconditioned iteration).

JAX lowers these to LAPACK's ?getrf, ?potrf and ?trsm (c and z); loopfuse runs the unblocked
algorithms (getf2, potf2, the reference trsm) with LAPACK's conjugations and its pivot measure
|re| + |im|, so pivots agree exactly and values within the float tolerances.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.complex64, np.complex128]


def check(f, *args, scale: float = 1.0) -> None:
    wide = any(np.asarray(a).dtype in (np.complex128, np.float64) for a in args)
    with jax.enable_x64(wide):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_close(actual, expected, what=getattr(f, "__name__", "f"), scale=scale)


def cnormal(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def well_conditioned(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    # Diagonally dominant, its rows shuffled so that LU has to pivot.
    n = shape[-1]
    a = cnormal(rng, shape, dtype) + 2 * n * np.eye(n)
    return a[..., rng.permutation(n), :].astype(dtype)


def triangular_factor(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    # Small entries beside a unit diagonal: each triangle is well conditioned, unit or not.
    n = shape[-1]
    return (cnormal(rng, shape, dtype) / (2 * n) + np.eye(n)).astype(dtype)


def hermitian_positive(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    a = cnormal(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (7, 7), (3, 5, 5)])
def test_solve_inv_det_slogdet(dtype, shape) -> None:
    rng = np.random.default_rng(shape[-1])
    a = well_conditioned(rng, shape, dtype)
    b = cnormal(rng, (*shape[:-1], 2), dtype)

    def linalg(a, b):
        sign, logdet = jnp.linalg.slogdet(a)
        return jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), sign, logdet

    check(linalg, a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(5, 5), (6, 3), (3, 6)])
def test_lu_factor_pivots_exactly(dtype, shape) -> None:
    # The pivots are integers: LAPACK's, bit for bit. A matrix whose columns' largest |z| and
    # largest |re| + |im| are in different rows checks the measure.
    rng = np.random.default_rng(sum(shape))
    a = cnormal(rng, shape, dtype)
    a[0, 0], a[1, 0] = 0.9 + 0.9j, 1.2 + 0.0j  # |1.2| > |0.9 + 0.9i| but 1.8 > 1.2
    check(lambda a: jax.lax.linalg.lu(a), a)


def test_lu_of_singular_and_zero_matrices() -> None:
    singular = np.array([[1 + 1j, 2 + 2j], [2 + 2j, 4 + 4j]], np.complex64)
    zero = np.zeros((3, 3), np.complex64)

    def factor(s, z):
        return jsl.lu_factor(s), jsl.lu_factor(z), jnp.linalg.det(s), jnp.linalg.slogdet(z)

    check(factor, singular, zero)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_lu_solve_all_transposes(dtype) -> None:
    rng = np.random.default_rng(7)
    a = well_conditioned(rng, (5, 5), dtype)
    b = cnormal(rng, (5, 3), dtype)

    def solves(a, b):
        lu = jsl.lu_factor(a)
        return tuple(jsl.lu_solve(lu, b, trans=t) for t in (0, 1, 2))

    check(solves, a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular(dtype, lower: bool, trans: int, unit_diagonal: bool) -> None:
    rng = np.random.default_rng(3 * trans + 2 * lower + unit_diagonal)
    a = triangular_factor(rng, (2, 6, 6), dtype)
    b = cnormal(rng, (2, 6, 3), dtype)

    def solve(a, b):
        return jsl.solve_triangular(a, b, lower=lower, trans=trans, unit_diagonal=unit_diagonal)

    check(solve, a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("conjugate_a", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_triangular_solve_on_the_right(dtype, conjugate_a: bool, transpose_a: bool) -> None:
    rng = np.random.default_rng(11 + 2 * conjugate_a + transpose_a)
    a = triangular_factor(rng, (4, 4), dtype)
    b = cnormal(rng, (3, 4), dtype)

    def solve(a, b):
        return jax.lax.linalg.triangular_solve(
            a,
            b,
            left_side=False,
            lower=True,
            transpose_a=transpose_a,
            conjugate_a=conjugate_a,
        )

    check(solve, a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 4, 4)])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_and_cho_solve(dtype, shape, lower: bool) -> None:
    rng = np.random.default_rng(shape[-1] + lower)
    a = hermitian_positive(rng, shape, dtype)
    b = cnormal(rng, (*shape[:-1], 2), dtype)

    def factor(a, b):
        c = jsl.cholesky(a, lower=lower)
        return c, jsl.cho_solve((c, lower), b), jnp.linalg.cholesky(a)

    check(factor, a, b)


def test_cholesky_of_an_indefinite_matrix_is_nan() -> None:
    a = np.array([[1, 2j], [-2j, 1]], np.complex64)  # eigenvalues -1 and 3
    check(lambda a: jnp.linalg.cholesky(a), a)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_expm_of_an_anti_hermitian_generator(dtype) -> None:
    # exp(-i H t): jax's Pade approximant solves with getrf / trsm.
    rng = np.random.default_rng(5)
    h = hermitian_positive(rng, (6, 6), dtype) / 6
    check(lambda h: jsl.expm(-1j * h * 0.7), h)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_crank_nicolson_propagator_in_a_loop(dtype) -> None:
    # A Schrodinger equation on a grid, step after step: (I + i H dt / 2) psi' = (I - i H dt / 2)
    # psi, one complex LU solve per step inside fori_loop; the norm stays 1.
    n = 16
    x = np.linspace(-4, 4, n)
    lap = (np.diag(np.full(n - 1, 1.0), -1) - 2 * np.eye(n) + np.diag(np.full(n - 1, 1.0), 1)) / (
        x[1] - x[0]
    ) ** 2
    h = (-0.5 * lap + np.diag(0.5 * x**2)).astype(dtype)
    psi0 = (np.exp(-((x - 1) ** 2)) * np.exp(1j * x)).astype(dtype)
    psi0 = psi0 / np.linalg.norm(psi0)

    def evolve(h, psi):
        dt = 0.01
        eye = jnp.eye(n, dtype=h.dtype)
        lhs = eye + 0.5j * dt * h
        rhs = eye - 0.5j * dt * h
        lu = jsl.lu_factor(lhs)
        psi = jax.lax.fori_loop(0, 50, lambda _, p: jsl.lu_solve(lu, rhs @ p), psi)
        return psi, jnp.vdot(psi, psi).real

    check(evolve, h, psi0, scale=10)


def test_grad_and_vmap_through_complex_solves() -> None:
    rng = np.random.default_rng(9)
    a = well_conditioned(rng, (4, 4), np.complex64)
    b = cnormal(rng, (4,), np.complex64)

    def loss(a, b):
        x = jnp.linalg.solve(a, b)
        c = jnp.linalg.cholesky(a @ a.conj().T)
        return jnp.sum(jnp.abs(x) ** 2) + jnp.sum(jnp.abs(c))

    check(jax.grad(loss, argnums=(0, 1)), a, b, scale=10)
    batch = cnormal(rng, (6, 4, 4), np.complex64) + 8 * np.eye(4, dtype=np.complex64)
    check(jax.vmap(lambda a: jnp.linalg.solve(a, b)), batch)


def hermitian(rng: np.random.Generator, n: int, dtype, batch: tuple[int, ...] = ()) -> np.ndarray:
    """U diag(1, ..., n) U^H - (n/2 + 0.3) I for a random unitary U: eigenvalues one apart, so each
    eigenvector is unique up to the phase LAPACK's algorithm chooses, and none at 0."""
    u, _ = np.linalg.qr(
        rng.standard_normal(batch + (n, n)) + 1j * rng.standard_normal(batch + (n, n))
    )
    d = np.arange(1, n + 1, dtype=np.float64) - n / 2 - 0.3
    return (u @ (d[:, None] * np.conj(np.swapaxes(u, -1, -2)))).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 16])
def test_hermitian_eigh_matches_jax_phases_included(dtype, n: int) -> None:
    # The eigenvectors' phases are heevd's choice; following its steps gives the same ones.
    check(jnp.linalg.eigh, hermitian(np.random.default_rng(n), n, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_hermitian_eigh_batched_structured_and_scaled(dtype) -> None:
    rng = np.random.default_rng(12)
    check(jnp.linalg.eigh, hermitian(rng, 4, dtype, batch=(2, 3)))
    check(jnp.linalg.eigvalsh, cnormal(rng, (3, 6, 6), dtype))
    pauli_y = np.array([[0, -1j], [1j, 0]], dtype)  # a purely imaginary off-diagonal
    diagonal = np.diag(np.array([2.0, -1.0, 0.5], dtype))  # no reflector at all (tau = 0)
    for m in (pauli_y, diagonal, np.zeros((3, 3), dtype), hermitian(rng, 5, dtype) * 1e20):
        check(jnp.linalg.eigh, m)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [26, 40, 64, 100])
def test_hermitian_eigh_divide_and_conquer_phases_included(dtype, n: int) -> None:
    # Above 25 rows heevd's real tridiagonal problem is stedc's divide and conquer; its phases
    # are jax's too. The eigenvectors' forward error grows as n eps ||A|| / gap (||A|| = n / 2).
    a = hermitian(np.random.default_rng(n), n, dtype)
    check(jnp.linalg.eigh, a, scale=1.0 if dtype == np.complex128 else n / 4)


def test_hermitian_eigh_largest_size_up_to_phases() -> None:
    # 25 x 25 is heevd's largest QL/QR size. Compared up to each eigenvector's phase: |v| and
    # V diag(w) V^H = A.
    a = hermitian(np.random.default_rng(25), 25, np.complex128)
    with jax.enable_x64(True):
        w, v = lf.jit(jnp.linalg.eigh, fallback="error")(a)
        w_jax, v_jax = jax.jit(jnp.linalg.eigh)(a)
        assert_close(w, w_jax, what="eigenvalues")
        assert_close(jnp.abs(v), jnp.abs(v_jax), what="|eigenvectors|", scale=4)
        rebuilt = np.asarray(v) @ np.diag(np.asarray(w)) @ np.conj(np.asarray(v)).T
        np.testing.assert_allclose(rebuilt, a, atol=1e-12)


def test_quantum_spectral_propagation_and_ground_state_gradient() -> None:
    # A spin chain's Hamiltonian (Pauli matrices, complex couplings): the time evolution
    # exp(-i H t) psi through eigh, in a loop over time steps, and the gradient of the ground-state
    # energy with respect to the couplings.
    sx = np.array([[0, 1], [1, 0]], np.complex64)
    sy = np.array([[0, -1j], [1j, 0]], np.complex64)
    sz = np.array([[1, 0], [0, -1]], np.complex64)

    def site(op, i, n=3):
        out = np.eye(1, dtype=np.complex64)
        for k in range(n):
            out = np.kron(out, op if k == i else np.eye(2, dtype=np.complex64))
        return out

    terms = np.stack(
        [site(p, i) @ site(p, i + 1) for p in (sx, sy, sz) for i in range(2)]
        + [site(sz, i) for i in range(3)]
    )
    couplings = np.linspace(0.5, 1.5, len(terms)).astype(np.float32)
    psi0 = np.zeros(8, np.complex64)
    psi0[3] = 1

    def evolve(c, psi):
        h = jnp.einsum("k,kij->ij", c.astype(jnp.complex64), terms)
        w, v = jnp.linalg.eigh(h)
        step = (v * jnp.exp(-0.1j * w)) @ v.conj().T
        psi = jax.lax.fori_loop(0, 30, lambda _, p: step @ p, psi)
        return psi, jnp.abs(psi) ** 2

    def ground_energy(c):
        return jnp.linalg.eigvalsh(jnp.einsum("k,kij->ij", c.astype(jnp.complex64), terms))[0]

    check(evolve, couplings, psi0, scale=10)
    check(jax.grad(ground_energy), couplings, scale=10)
    check(jax.vmap(ground_energy), np.stack([couplings, couplings[::-1], 2 * couplings]))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (5, 5), (1, 1), (6, 1), (2, 6, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_complex_qr_matches_jax(dtype, shape, mode: str) -> None:
    # geqrf's complex reflectors make every diagonal element of R real, the last one included
    # (a one-element reflector still rotates its phase), and Q's columns follow from them.
    a = cnormal(np.random.default_rng(sum(shape)), shape, dtype)
    check(lambda a: jnp.linalg.qr(a, mode=mode), a)


def test_complex_qr_degenerate_and_in_a_loop() -> None:
    rng = np.random.default_rng(13)
    a = cnormal(rng, (5, 4), np.complex64)
    zero = a.copy()
    zero[:, 1] = 0
    real = a.real.astype(np.complex64)  # imaginary parts all zero: real reflectors
    for m in (zero, real, np.zeros((3, 3), np.complex64), np.triu(a)):
        check(jnp.linalg.qr, m)

    # Orthonormalizing a block of vectors after every step, as a subspace iteration does: Q of
    # H Q, twenty times, for the lowest eigenvectors of a Hermitian H (Q's phases are geqrf's).
    h = hermitian(rng, 8, np.complex64)

    def subspace(h, q):
        q = jax.lax.fori_loop(0, 20, lambda _, q: jnp.linalg.qr(h @ q)[0], q)
        return q, jnp.diagonal(q.conj().T @ h @ q).real

    check(subspace, h, cnormal(rng, (8, 3), np.complex64), scale=10)
    check(jax.vmap(lambda a: jnp.linalg.qr(a)[1]), cnormal(rng, (4, 5, 3), np.complex64))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 1), (4, 3), (3, 4), (6, 6), (2, 9, 4), (32, 32), (40, 64)])
def test_complex_singular_values(dtype, shape) -> None:
    # Values only (compute_uv=False): gesdd's scaling and bidiagonal reduction with complex
    # reflectors, then the real bdsqr; any size, since the values are the matrix's, not the
    # path's.
    a = cnormal(np.random.default_rng(sum(shape)), shape, dtype)

    def values(a):
        return (
            jnp.linalg.svd(a, compute_uv=False),
            jnp.linalg.norm(a, ord=2, axis=(-2, -1)),
            jnp.linalg.norm(a, ord="nuc", axis=(-2, -1)),
        )

    check(values, a, scale=4)


def test_complex_singular_values_rank_cond_and_scale() -> None:
    rng = np.random.default_rng(21)
    low_rank = (cnormal(rng, (6, 2), np.complex64) @ cnormal(rng, (2, 5), np.complex64)).astype(
        np.complex64
    )
    a = cnormal(rng, (5, 5), np.complex64)
    check(lambda m: jnp.linalg.matrix_rank(m), low_rank)
    check(jnp.linalg.cond, a, scale=4)
    for magnitude in (1e-30, 1e30):  # gesdd scales the matrix into range and back
        check(lambda m: jnp.linalg.svd(m, compute_uv=False), (a * magnitude).astype(np.complex64))
    check(lambda m: jnp.linalg.svd(m, compute_uv=False), np.zeros((3, 4), np.complex64))


def test_entanglement_entropy_along_a_quantum_circuit() -> None:
    # Six qubits: a layer of random two-qubit unitaries per step, and after each step the
    # entanglement entropy of the half-chain cut from the Schmidt values (the singular values of
    # the state reshaped to 8 x 8), collected by scan.
    rng = np.random.default_rng(22)
    gates, _ = np.linalg.qr(cnormal(rng, (3, 4, 4), np.complex64))
    gates = gates.astype(np.complex64)
    psi0 = np.zeros(64, np.complex64)
    psi0[0] = 1

    def apply(psi, gate, first):
        t = jnp.moveaxis(psi.reshape((2,) * 6), (first, first + 1), (0, 1)).reshape(4, -1)
        t = jnp.moveaxis((gate @ t).reshape((2,) * 6), (0, 1), (first, first + 1))
        return t.reshape(64)

    def step(psi, _):
        for q, gate in zip((0, 2, 4), gates):
            psi = apply(psi, gate, q)
        for q, gate in zip((1, 3), gates[1:]):
            psi = apply(psi, gate, q)
        s = jnp.linalg.svd(psi.reshape(8, 8), compute_uv=False)
        p = s**2
        return psi, -jnp.sum(p * jnp.log(jnp.maximum(p, 1e-30)))

    check(lambda psi: jax.lax.scan(step, psi, None, length=12), psi0, scale=10)


def test_complex_svd_with_vectors_falls_back_by_name() -> None:
    a = cnormal(np.random.default_rng(23), (4, 3), np.complex64)
    with pytest.raises(
        Exception, match="lapack_cgesdd_ffi of complex matrices with their singular"
    ):
        lf.jit(jnp.linalg.svd, fallback="error")(a)
