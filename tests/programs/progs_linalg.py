"""Linear-algebra programs: Cholesky and triangular solves (LAPACK custom calls on the CPU,
cuSOLVER and the triangular-solve op on CUDA), as samplers and filters use them."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from registry import host_independent, normal, program


def spd(rng: np.random.Generator, shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:
    """Symmetric positive definite matrices: A A^T + n I."""
    a = rng.standard_normal(shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


@program(
    "linalg_cholesky_solve",
    args=lambda rng: (
        spd(rng, (5, 5)),
        normal(rng, (5, 3)),
        spd(rng, (4, 3, 3)),
        normal(rng, (5,)),
    ),
)
def linalg_cholesky_solve(a, b, batch, v):
    # Lower and upper factors, a batch, every triangular-solve form (left/right side, transposed,
    # unit diagonal), cho_solve, and a matrix that is not positive definite (JAX gives NaN).
    low = jnp.linalg.cholesky(a)
    up = jsl.cholesky(a, lower=False)
    not_pd = jnp.linalg.cholesky(a - 100.0 * jnp.eye(5))
    return (
        low,
        up,
        jnp.linalg.cholesky(batch),
        not_pd,
        jsl.solve_triangular(low, b, lower=True),
        jsl.solve_triangular(low, b, lower=True, trans=1),
        jsl.solve_triangular(up, b, lower=False),
        jsl.solve_triangular(low, v, lower=True, unit_diagonal=True),
        jsl.solve_triangular(low.T, b.T.T, lower=False, trans=1),
        jax.lax.linalg.triangular_solve(low, b.T, left_side=False, lower=True),
        jax.lax.linalg.triangular_solve(low, b.T, left_side=False, lower=True, transpose_a=True),
        jsl.cho_solve((low, True), b),
    )


@program(
    "linalg_mvn_sampler",
    args=lambda rng: (spd(rng, (3, 3)), normal(rng, (3,))),
)
def linalg_mvn_sampler(cov, mean):
    # A Gibbs-like loop: each step factors a covariance that depends on the state and draws
    # from the multivariate normal it defines (jax.random.multivariate_normal uses Cholesky); the
    # log-determinant comes from the factor's diagonal.
    def step(carry, key):
        x, c = carry
        c = c + 0.1 * jnp.outer(x, x) / (1.0 + x @ x)
        y = jax.random.multivariate_normal(key, mean, c, method="cholesky")
        return (y, c), 2.0 * jnp.sum(jnp.log(jnp.diag(jnp.linalg.cholesky(c))))

    keys = jax.random.split(jax.random.key(7), 6)
    (x, c), logdets = jax.lax.scan(step, (mean, cov), keys)
    return x, c, logdets


@program(
    "linalg_f64_vmap",
    args=lambda rng: (spd(rng, (6, 4, 4), np.float64), normal(rng, (6, 4), np.float64)),
    x64=True,
)
def linalg_f64_vmap(a, y):
    # f64 (dpotrf, dtrsm), vmapped: the batch becomes the custom calls' batch dimension.
    def whiten(a, y):
        low = jnp.linalg.cholesky(a)
        z = jsl.solve_triangular(low, y, lower=True)
        return z, z @ z

    return jax.vmap(whiten)(a, y)


@program(
    "linalg_lu_solve",
    args=lambda rng: (
        normal(rng, (4, 4)) + 3.0 * np.eye(4, dtype=np.float32),
        normal(rng, (4, 2)),
        normal(rng, (3, 3, 3)),
        normal(rng, (5, 3)),
    ),
)
def linalg_lu_solve(a, b, batch, tall):
    # jnp.linalg.solve / inv / slogdet / det and lu_factor all go through LAPACK's getrf (partial
    # pivoting); a singular matrix gives getrf's info and JAX's inf/nan; a tall matrix's LU.
    singular = jnp.array([[1.0, 2.0], [2.0, 4.0]], jnp.float32)
    lu, piv = jsl.lu_factor(a)
    sign, logdet = jnp.linalg.slogdet(batch)
    return (
        jnp.linalg.solve(a, b),
        jnp.linalg.inv(a),
        sign,
        logdet,
        lu,
        piv,
        jsl.lu_solve((lu, piv), b[:, 0]),
        jnp.linalg.det(singular + a[:2, :2] * 0),
        jsl.lu(tall),
        jsl.lu_factor(batch[0])[1],  # pivots that do move rows
    )


def symmetric(rng: np.random.Generator, shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:
    """Symmetric matrices with well-separated eigenvalues, none at 0 (so each eigenvector is unique
    up to its sign, which LAPACK's algorithm fixes): Q diag(1, ..., n) Q^T - (n/2 + 0.3) I. f64
    ones are made host-independent (f32's rounding already drops the host's last bits)."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    d = np.arange(1, n + 1, dtype=np.float64) - n / 2 - 0.3
    a = q @ (d[:, None] * np.swapaxes(q, -1, -2))
    return (host_independent(a) if dtype == np.float64 else a).astype(dtype)


@program(
    "linalg_qr_forms",
    args=lambda rng: (
        normal(rng, (5, 3)),
        normal(rng, (3, 5)),
        normal(rng, (4, 4)),
        normal(rng, (2, 6, 2)),
    ),
)
def linalg_qr_forms(tall, wide, square, batch):
    # LAPACK's geqrf then orgqr (householder_product): reduced, complete and R-only modes, tall,
    # wide, square and batched matrices, a zero column (geqrf's tau = 0) and a rank-one matrix.
    zero_col = square.at[:, 1].set(0.0)
    rank_one = jnp.outer(tall[:, 0], wide[0, :3])
    return (
        jnp.linalg.qr(tall),
        jnp.linalg.qr(tall, mode="complete"),
        jnp.linalg.qr(wide),
        jnp.linalg.qr(square, mode="r"),
        jnp.linalg.qr(batch),
        jnp.linalg.qr(zero_col),
        jnp.linalg.qr(rank_one)[1],
        jax.lax.linalg.qr(tall, full_matrices=False),
    )


@program(
    "linalg_eigh_forms",
    args=lambda rng: (
        symmetric(rng, (6, 6)),
        symmetric(rng, (3, 4, 4)),
        normal(rng, (5, 5)),
        symmetric(rng, (16, 16)),
    ),
)
def linalg_eigh_forms(a, batch, general, big):
    # LAPACK's syevd (tridiagonal reduction, implicit QL/QR, back-transformation): eigenvalues
    # ascending and eigenvectors with LAPACK's signs; a batch; eigvalsh; a non-symmetric input
    # (jnp.linalg.eigh symmetrizes it); a diagonal and an already-tridiagonal matrix; 2 x 2 and
    # 1 x 1; a matrix scaled far down (syevd's and steqr's scaling); 16 x 16 (25 x 25, the largest
    # size, is in tests/python/test_jit_qr_eigh.py with a tolerance for its eigenvectors).
    diag = jnp.diag(jnp.array([3.0, -1.0, 2.0, 0.5]))
    tri = (
        jnp.diag(jnp.arange(1.0, 6.0))
        + jnp.diag(jnp.full(4, 0.5), 1)
        + jnp.diag(jnp.full(4, 0.5), -1)
    )
    return (
        jnp.linalg.eigh(a),
        jnp.linalg.eigh(batch),
        jnp.linalg.eigvalsh(a),
        jnp.linalg.eigh(general),
        jnp.linalg.eigh(diag),
        jnp.linalg.eigh(tri),
        jnp.linalg.eigh(a[:2, :2]),
        jnp.linalg.eigh(a[:1, :1]),
        jnp.linalg.eigh(a * 1e-6)[0],
        jnp.linalg.eigh(big),
    )


@program(
    "linalg_qr_eigh_loop",
    args=lambda rng: (symmetric(rng, (5, 5)), normal(rng, (5, 2))),
)
def linalg_qr_eigh_loop(a, q0):
    # Subspace iteration (Q <- qr(A Q).Q, the Rayleigh quotient's eigh each step) in a fori_loop,
    # and a scan whose every step decomposes a state-dependent matrix.
    def orth(i, q):
        return jnp.linalg.qr(a @ q)[0]

    q = jax.lax.fori_loop(0, 30, orth, jnp.linalg.qr(q0)[0])
    ritz = jnp.linalg.eigvalsh(q.T @ a @ q)

    def step(m, x):
        w, v = jnp.linalg.eigh(m + jnp.outer(x, x))
        return m + 0.1 * v @ jnp.diag(jnp.tanh(w)) @ v.T, w

    m, ws = jax.lax.scan(step, a, q0.T)
    return jnp.abs(q), ritz, m, ws


@program(
    "linalg_svd_forms",
    args=lambda rng: (
        normal(rng, (6, 4)),
        normal(rng, (3, 5)),
        normal(rng, (2, 4, 4)),
        normal(rng, (12, 3)),
        normal(rng, (2, 9)),
    ),
)
def linalg_svd_forms(tall, wide, batch, skinny, short):
    # LAPACK's gesdd on each of its paths: bidiagonal reduction of the matrix itself (tall, wide:
    # an upper and a lower bidiagonal), a QR or an LQ factorization first (skinny, short: one
    # dimension at least 11/6 of the other), each with the first min(m, n) vectors ('S'), all of
    # them ('A') and the values alone ('N'); a batch; a rank-deficient matrix (a zero singular
    # value); and what jnp builds on the SVD: pinv, lstsq, matrix_rank, norm(ord=2), cond.
    deficient = jnp.outer(jnp.arange(1.0, 5.0), jnp.array([1.0, -2.0, 0.5]))
    b = jnp.arange(6.0)
    return (
        jnp.linalg.svd(tall, full_matrices=False),
        jnp.linalg.svd(tall),
        jnp.linalg.svd(wide, full_matrices=False),
        jnp.linalg.svd(wide),
        jnp.linalg.svd(wide, compute_uv=False),
        jnp.linalg.svd(batch),
        jnp.linalg.svd(skinny, full_matrices=False),
        jnp.linalg.svd(skinny),
        jnp.linalg.svd(skinny, compute_uv=False),
        jnp.linalg.svd(short, full_matrices=False),
        jnp.linalg.svd(short),
        jnp.linalg.svd(deficient, compute_uv=False),
        jnp.linalg.pinv(tall),
        jnp.linalg.lstsq(tall, b)[0],
        jnp.linalg.matrix_rank(deficient),
        jnp.linalg.norm(tall, ord=2),
        jnp.linalg.cond(batch),
    )


@program(
    "linalg_svd_gauss_newton",
    args=lambda rng: (normal(rng, (20,)), normal(rng, (3,))),
    x64=True,
)
def linalg_svd_gauss_newton(t, p0):
    # Gauss-Newton fitting of y = a exp(-b t) + c in a while_loop, each step a least-squares solve
    # of the Jacobian (lstsq: an SVD of a 20 x 3 matrix) until the step is small; and a scan that
    # tracks the nuclear norm of a state-dependent matrix.
    ts = jnp.linspace(0.0, 3.0, 20)
    y = 2.0 * jnp.exp(-1.3 * ts) + 0.5 + 0.01 * t

    def model(p):
        return p[0] * jnp.exp(-p[1] * ts) + p[2]

    def cond(state):
        p, step, i = state
        return (jnp.linalg.norm(step) > 1e-12) & (i < 50)

    def body(state):
        p, _, i = state
        jac = jax.jacfwd(model)(p)
        step = jnp.linalg.lstsq(jac, y - model(p))[0]
        return p + step, step, i + 1

    p0 = jnp.array([1.0, 1.0, 0.0]) + 0.1 * p0
    p, _, iters = jax.lax.while_loop(cond, body, (p0, jnp.ones(3), 0))

    def track(m, x):
        m = m + 0.1 * jnp.outer(x, x[:3])
        return m, jnp.sum(jnp.linalg.svd(m, compute_uv=False))

    _, nuclear = jax.lax.scan(track, jnp.eye(20, 3), jnp.reshape(t, (5, 4)) @ jnp.ones((4, 20)))
    return p, iters, nuclear


@program(
    "linalg_svd_divide_conquer",
    args=lambda rng: tuple(normal(rng, s, np.float64) for s in [(30, 30), (40, 40), (40,)]),
    x64=True,
)
def linalg_svd_divide_conquer(g1, g2, b):
    # Past min(m, n) = 25 gesdd's bidiagonal solver (bdsdc) is divide and conquer: lasd0's tree of
    # lasdq leaves, merged by lasd1..lasd4. A 30 x 28 matrix with singular values 28, 27, ..., 1
    # (each vector defined up to the sign LAPACK's merges choose): all its vectors (an upper
    # bidiagonal), the first 28 of its transpose (a lower one); and a least-squares solve of a
    # 40 x 28 system built on it (a QR first).
    q1 = jnp.linalg.qr(g1)[0]
    q2 = jnp.linalg.qr(g2[:28, :28])[0]
    a = (q1[:, :28] * jnp.arange(28.0, 0.0, -1.0)) @ q2.T
    tall = jnp.concatenate([a, 0.5 * a[:10]], axis=0)
    return jnp.linalg.svd(a), jnp.linalg.svd(a.T, full_matrices=False), jnp.linalg.lstsq(tall, b)[0]


@program(
    "linalg_eigvals",
    args=lambda rng: (
        normal(rng, (5, 5)),
        normal(rng, (3, 4, 4)),
        normal(rng, (12, 12)),
        normal(rng, (6, 6)),
    ),
)
def linalg_eigvals(a, batch, big, sparse):
    # LAPACK's geev with no vectors (jnp.linalg.eigvals): the eigenvalues in the order of its Schur
    # form, a complex pair with its positive imaginary part first. A general matrix; a batch; a
    # 12 x 12 one (several QR sweeps, exceptional shifts unlikely); matrices that gebal permutes
    # (triangular blocks, a permutation, zeros in rows and columns) and scales (entries 1e-4 to
    # 1e4 apart); a rotation (a pair on the imaginary axis), a Jordan block and the zero matrix.
    rotation = jnp.array([[0.0, -1.0], [1.0, 0.0]])
    jordan = jnp.eye(4) + jnp.diag(jnp.ones(3), 1)
    perm = jnp.eye(6)[jnp.array([3, 1, 5, 0, 2, 4])]
    masked = jnp.where(jnp.abs(sparse) > 0.8, sparse, 0.0)
    graded = (
        jnp.diag(jnp.array([1e-2, 1.0, 1e2])) @ a[:3, :3] @ jnp.diag(jnp.array([1e2, 1.0, 1e-2]))
    )
    return (
        jnp.linalg.eigvals(a),
        jnp.linalg.eigvals(batch),
        jnp.linalg.eigvals(big),
        jnp.linalg.eigvals(jnp.triu(a)),
        jnp.linalg.eigvals(masked),
        jnp.linalg.eigvals(perm),
        jnp.linalg.eigvals(graded),
        jnp.linalg.eigvals(rotation),
        jnp.linalg.eigvals(jordan),
        jnp.linalg.eigvals(jnp.zeros((3, 3))),
    )


@program(
    "loop_eigvals_spectral_abscissa",
    args=lambda rng: (normal(rng, (6, 6), np.float64), normal(rng, (40, 6), np.float64)),
    x64=True,
)
def loop_eigvals_spectral_abscissa(a0, kicks):
    # A linearised system tracked along a trajectory: each step perturbs the Jacobian, and the
    # scan records its spectral abscissa (the largest real part of an eigenvalue) and spectral
    # radius; a while_loop then damps the matrix until it is stable (abscissa below zero).
    def step(a, k):
        a = a + 0.05 * jnp.outer(jnp.tanh(k), k[::-1])
        w = jnp.linalg.eigvals(a)
        return a, (jnp.max(w.real), jnp.max(jnp.abs(w)))

    a, (abscissa, radius) = jax.lax.scan(step, 0.4 * a0, kicks)

    def unstable(state):
        m, i = state
        return (jnp.max(jnp.linalg.eigvals(m).real) >= 0.0) & (i < 100)

    def damp(state):
        m, i = state
        return m - 0.1 * jnp.eye(6), i + 1

    stable, iters = jax.lax.while_loop(unstable, damp, (a, 0))
    return abscissa, radius, stable, iters


@program(
    "linalg_ormqr",
    args=lambda rng: (
        normal(rng, (2, 6, 4)),
        normal(rng, (2, 6, 3)),
        normal(rng, (2, 5, 6)),
        normal(rng, (7, 5)),
        normal(rng, (5,)),
    ),
)
def linalg_ormqr(a, c_left, c_right, tall, b):
    # lax.linalg.ormqr in its four modes on geqrf's reflectors (a batch of tall matrices), and the
    # least-squares solve lineax's QR solver builds on it: x = R^-1 (Q^T b)[:n], in a loop.
    # jnp.linalg.qr's "raw" mode gives geqrf's reflectors, transposed (as numpy does).
    ht, taus = jnp.linalg.qr(a, mode="raw")
    h = jnp.swapaxes(ht, -1, -2)
    modes = [
        jax.lax.linalg.ormqr(h, taus, c_left, left=True, transpose=False),
        jax.lax.linalg.ormqr(h, taus, c_left, left=True, transpose=True),
        jax.lax.linalg.ormqr(h, taus, c_right, left=False, transpose=False),
        jax.lax.linalg.ormqr(h, taus, c_right, left=False, transpose=True),
    ]

    def refine(x, _):
        hqt, tq = jnp.linalg.qr(tall + 0.1 * jnp.outer(jnp.arange(7.0), x), mode="raw")
        hq = hqt.T
        qtb = jax.lax.linalg.ormqr(hq, tq, jnp.pad(b, (0, 2))[:, None], left=True, transpose=True)
        r = jnp.triu(hq[:5, :5])
        return jax.scipy.linalg.solve_triangular(r, qtb[:5, 0]), x.sum()

    return modes, jax.lax.scan(refine, jnp.zeros(5), None, length=4)


def _complex_linalg_args(rng, dtype):
    def c(shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    a = c((5, 5)) + 4 * np.eye(5, dtype=dtype)
    h = c((4, 4))
    # The product in complex128 whatever dtype is: OpenBLAS's complex64 cgemm differs between
    # hosts by more than host_independent's grid (an AVX-512 host moved input_2 by 5e-7).
    h128 = h.astype(np.complex128)
    hpd = host_independent(h128 @ h128.conj().T + 4 * np.eye(4)).astype(dtype)
    a[0, 0], a[1, 0] = 0.9 + 0.9j, 1.2  # the pivot is the largest |re| + |im|, not |z|
    return a, c((5, 2)), hpd, c((3, 4, 4)), c((4,))


def _complex_linalg(a, b, hpd, batch, v):
    # jnp.linalg.solve / inv / slogdet / det and lu_factor (getrf with complex pivots), Cholesky
    # of a Hermitian matrix (both triangles, cho_solve), every triangular-solve form with its
    # conjugate transposes, QR (geqrf and ungqr: complex reflectors, R's diagonal real), singular
    # values (gesdd 'N': a complex bidiagonal reduction, then bdsqr), and a Crank-Nicolson step in
    # a loop (psi' = (I + iH/2)^-1 (I - iH/2) psi).
    lu, piv = jsl.lu_factor(a)
    sign, logdet = jnp.linalg.slogdet(batch)
    low = jnp.linalg.cholesky(hpd)
    up = jsl.cholesky(hpd, lower=False)
    eye = jnp.eye(4, dtype=hpd.dtype)
    step = jsl.lu_factor(eye + 0.05j * hpd)

    def propagate(_, psi):
        return jsl.lu_solve(step, (eye - 0.05j * hpd) @ psi)

    return (
        jnp.linalg.solve(a, b),
        jnp.linalg.inv(a),
        jnp.linalg.det(batch),
        sign,
        logdet,
        lu,
        piv,
        jsl.lu_solve((lu, piv), b, trans=2),
        low,
        up,
        jsl.cho_solve((up, False), v),
        jsl.solve_triangular(low, v, lower=True, trans="C"),
        jsl.solve_triangular(up, v, lower=False, trans="T", unit_diagonal=True),
        jax.lax.linalg.triangular_solve(
            low, b[:4].T, left_side=False, lower=True, conjugate_a=True
        ),
        jax.lax.fori_loop(0, 20, propagate, v),
        jnp.linalg.qr(a),
        jnp.linalg.qr(batch[:, :, :3], mode="complete"),
        jnp.linalg.svd(a, compute_uv=False),
        jnp.linalg.norm(batch[:, :3, :], ord=2, axis=(-2, -1)),
    )


@program("linalg_complex", args=lambda rng: _complex_linalg_args(rng, np.complex64))
def linalg_complex(a, b, hpd, batch, v):
    return _complex_linalg(a, b, hpd, batch, v)


@program("linalg_complex_c128", args=lambda rng: _complex_linalg_args(rng, np.complex128), x64=True)
def linalg_complex_c128(a, b, hpd, batch, v):
    return _complex_linalg(a, b, hpd, batch, v)


def _hermitian_eigh_args(rng, dtype):
    n = 6
    u, _ = np.linalg.qr(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
    h = u @ np.diag(np.arange(n) - 2.3) @ u.conj().T  # eigenvalues one apart: unique phases
    batch = rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))
    psi = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    psi = host_independent(psi / np.linalg.norm(psi))
    return host_independent(h).astype(dtype), batch.astype(dtype), psi.astype(dtype)


def _hermitian_eigh(h, batch, psi):
    # jnp.linalg.eigh of a Hermitian matrix (LAPACK's heevd: complex reflectors to a real
    # tridiagonal, QL/QR, the reflectors applied back), eigvalsh of a batch of general complex
    # matrices (symmetrized first), and exp(-i H t) psi by the spectral decomposition, in a loop.
    w, v = jnp.linalg.eigh(h)
    step = (v * jnp.exp(-0.2j * w)) @ v.conj().T
    return w, v, jnp.linalg.eigvalsh(batch), jax.lax.fori_loop(0, 6, lambda _, p: step @ p, psi)


@program("linalg_hermitian_eigh", args=lambda rng: _hermitian_eigh_args(rng, np.complex64))
def linalg_hermitian_eigh(h, batch, psi):
    return _hermitian_eigh(h, batch, psi)


@program(
    "linalg_hermitian_eigh_c128",
    args=lambda rng: _hermitian_eigh_args(rng, np.complex128),
    x64=True,
)
def linalg_hermitian_eigh_c128(h, batch, psi):
    return _hermitian_eigh(h, batch, psi)


def _hermitian(rng: np.random.Generator, n: int) -> np.ndarray:
    u, _ = np.linalg.qr(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
    return host_independent(u @ np.diag(np.arange(n) - n / 2 + 0.3) @ u.conj().T)


@program(
    "linalg_eigh_divide_and_conquer",
    args=lambda rng: (
        symmetric(rng, (40, 40), np.float64),
        symmetric(rng, (2, 30, 30), np.float64),
        _hermitian(rng, 32),
        symmetric(rng, (27, 27), np.float64),
    ),
    x64=True,
)
def linalg_eigh_divide_and_conquer(a, batch, h, m0):
    # Above 25 rows syevd and heevd solve the tridiagonal problem by divide and conquer (two
    # levels of merges at 40 rows, one at 27 and 30); the eigenvectors' signs and phases are
    # LAPACK's. The cycle graph's Laplacian repeats its eigenvalues (the merges deflate them;
    # only the values are returned, its vectors being any basis). Then a flow whose every step
    # decomposes the state.
    n = 36
    ring = 2 * jnp.eye(n) - jnp.roll(jnp.eye(n), 1, axis=1) - jnp.roll(jnp.eye(n), -1, axis=1)

    def step(m, _):
        w, v = jnp.linalg.eigh(m)
        return m + 0.05 * (v * jnp.tanh(w)) @ v.T, w[0]

    m, lowest = jax.lax.scan(step, m0, None, length=3)
    return (
        jnp.linalg.eigh(a),
        jnp.linalg.eigh(batch),
        jnp.linalg.eigh(h),
        jnp.linalg.eigvalsh(ring),
        m,
        lowest,
    )
