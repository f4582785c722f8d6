"""The benchmark programs other than the seed: plain JAX functions and the inputs they take.

Each `*_case` function returns a `Case`: the function, its arguments and its static argument
numbers, exactly what both `jax.jit` and `lf.jit` are given. Data are made with `jax.random` from
fixed keys, so every run measures the same numbers. Large data are arguments, never closed-over
constants, so the HLO both compilers read holds no multi-megabyte literals.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax import lax


@dataclasses.dataclass(frozen=True)
class Case:
    """What one benchmark runs: `fun(*args)`, with `static_argnums` as jax.jit takes them."""

    fun: Callable[..., Any]
    args: tuple[Any, ...]
    static_argnums: tuple[int, ...] = ()
    note: str = ""  # recorded with the result: anything that differs from the program


# --- lax.scan of sqrt(x @ x) (seeds/001_3d5c85d30cc26d2d.txt) ---------------------------------

SCAN_REPEAT = 16  # the loop length


def _sqrt_matmul(x: jax.Array, _: Any) -> tuple[jax.Array, None]:
    return jnp.sqrt(jnp.matmul(x, x)), None


def scan_matmul_case(shape: tuple[int, ...], variant: str) -> Case:
    """`variant`: "scan" (rolled), "unrolled" (a Python loop) or "unrollK" (scan's unroll=K)."""
    x = jax.random.uniform(jax.random.PRNGKey(0), shape)
    if variant == "unrolled":

        def mat_loop(x: jax.Array) -> jax.Array:
            for _ in range(SCAN_REPEAT):
                x, _ = _sqrt_matmul(x, None)
            return x

        return Case(mat_loop, (x,))
    unroll = 1 if variant == "scan" else int(variant.removeprefix("unroll"))

    def mat_scan(x: jax.Array) -> jax.Array:
        return lax.scan(_sqrt_matmul, x, xs=None, length=SCAN_REPEAT, unroll=unroll)[0]

    return Case(mat_scan, (x,))


# --- RK4 on the Van der Pol oscillator -----------------------------------------------------------
# A stable limit cycle: rounding differences between the two compilers do not grow exponentially
# over 10,000 steps, as they would on a chaotic system, so the results stay comparable.


def _van_der_pol(y: jax.Array, mu: jax.Array) -> jax.Array:
    return jnp.stack([y[1], mu * (1.0 - y[0] ** 2) * y[1] - y[0]])


def rk4_case(steps: int) -> Case:
    def rk4_van_der_pol(y0: jax.Array, mu: jax.Array, dt: jax.Array) -> jax.Array:
        def step(_: Any, y: jax.Array) -> jax.Array:
            k1 = _van_der_pol(y, mu)
            k2 = _van_der_pol(y + 0.5 * dt * k1, mu)
            k3 = _van_der_pol(y + 0.5 * dt * k2, mu)
            k4 = _van_der_pol(y + dt * k3, mu)
            return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

        return lax.fori_loop(0, steps, step, y0)

    return Case(rk4_van_der_pol, (jnp.array([2.0, 0.0]), jnp.asarray(1.0), jnp.asarray(0.01)))


# --- HMC on a logistic-regression posterior, vmapped over chains ---------------------------------


def hmc_case(chains: int, transitions: int, leapfrog_steps: int, n: int = 64, d: int = 4) -> Case:
    """`transitions` Metropolis-adjusted HMC moves of `leapfrog_steps` leapfrog steps each."""
    k_x, k_beta, k_y, k_init, k_chain = jax.random.split(jax.random.PRNGKey(7), 5)
    features = jax.random.normal(k_x, (n, d))
    true_beta = jax.random.normal(k_beta, (d,))
    labels = jax.random.bernoulli(k_y, jax.nn.sigmoid(features @ true_beta)).astype(features.dtype)
    q0 = 0.1 * jax.random.normal(k_init, (chains, d))
    keys = jax.random.split(k_chain, chains)

    def hmc_logistic(
        q0: jax.Array, keys: jax.Array, features: jax.Array, labels: jax.Array, eps: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        def log_density(beta: jax.Array) -> jax.Array:
            z = features @ beta
            return jnp.sum(labels * z - jax.nn.softplus(z)) - 0.5 * jnp.sum(beta**2)

        grad_log_density = jax.grad(log_density)

        def transition(q: jax.Array, key: jax.Array) -> tuple[jax.Array, jax.Array]:
            k_momentum, k_accept = jax.random.split(key)
            p = jax.random.normal(k_momentum, q.shape, q.dtype)

            def leapfrog(_: Any, qp: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
                q, p = qp
                p = p + 0.5 * eps * grad_log_density(q)
                q = q + eps * p
                p = p + 0.5 * eps * grad_log_density(q)
                return q, p

            q1, p1 = lax.fori_loop(0, leapfrog_steps, leapfrog, (q, p))
            h0 = -log_density(q) + 0.5 * jnp.sum(p**2)
            h1 = -log_density(q1) + 0.5 * jnp.sum(p1**2)
            accept = jnp.log(jax.random.uniform(k_accept, dtype=q.dtype)) < h0 - h1
            return jnp.where(accept, q1, q), accept

        def chain(q: jax.Array, key: jax.Array) -> tuple[jax.Array, jax.Array]:
            q, accepted = lax.scan(transition, q, jax.random.split(key, transitions))
            return q, jnp.mean(accepted.astype(q.dtype))

        return jax.vmap(chain)(q0, keys)

    return Case(hmc_logistic, (q0, keys, features, labels, jnp.asarray(0.1)))


# --- a GRU over a sequence -----------------------------------------------------------------------


def gru_case(steps: int, hidden: int, batch: int, inputs: int = 32) -> Case:
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    scale = (inputs + hidden) ** -0.5
    params = {
        gate: scale * jax.random.normal(k, (inputs + hidden, hidden))
        for gate, k in zip(("z", "r", "h"), keys[:3])
    }
    params |= {f"b{gate}": jnp.zeros((hidden,)) for gate in ("z", "r", "h")}
    xs = jax.random.normal(keys[3], (steps, batch, inputs))
    h0 = jnp.zeros((batch, hidden))

    def gru(params: dict[str, jax.Array], xs: jax.Array, h0: jax.Array) -> jax.Array:
        def cell(h: jax.Array, x: jax.Array) -> tuple[jax.Array, None]:
            xh = jnp.concatenate([x, h], axis=-1)
            z = jax.nn.sigmoid(xh @ params["z"] + params["bz"])
            r = jax.nn.sigmoid(xh @ params["r"] + params["br"])
            candidate = jnp.tanh(jnp.concatenate([x, r * h], axis=-1) @ params["h"] + params["bh"])
            return (1.0 - z) * h + z * candidate, None

        return lax.scan(cell, h0, xs)[0]

    return Case(gru, (params, xs, h0))


# --- a diffusion-style sampler: a convolutional denoiser in a loop ----------------------------


def conv_sampler_case(steps: int, batch: int, size: int, channels: int, hidden: int) -> Case:
    """`steps` updates x <- x - 0.05 eps(x, t) + 0.02 noise, eps two 3x3 convolutions (NHWC)."""
    k_x, k_1, k_2 = jax.random.split(jax.random.PRNGKey(11), 3)
    x = jax.random.normal(k_x, (batch, size, size, channels))
    # Weights scaled by 1/sqrt(fan-in), as a trained denoiser's are, so that x stays of order 1
    # (with larger ones the iteration diverges and measures f32 rounding, not the convolutions).
    w1 = (9 * channels) ** -0.5 * jax.random.normal(k_1, (3, 3, channels, hidden))
    w2 = (9 * hidden) ** -0.5 * jax.random.normal(k_2, (3, 3, hidden, channels))
    dn = ("NHWC", "HWIO", "NHWC")

    def sampler(x: jax.Array, w1: jax.Array, w2: jax.Array) -> jax.Array:
        def eps(x: jax.Array, t: jax.Array) -> jax.Array:
            h = jax.nn.gelu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
            return lax.conv_general_dilated(h * (1.0 + t), w2, (1, 1), "SAME", dimension_numbers=dn)

        def step(i: jax.Array, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            x, key = carry
            key, sub = jax.random.split(key)
            t = 1.0 - i.astype(jnp.float32) / steps
            return x - 0.05 * eps(x, t) + 0.02 * jax.random.normal(sub, x.shape), key

        return lax.fori_loop(0, steps, step, (x, jax.random.key(0)))[0]

    return Case(sampler, (x, w1, w2))


# --- decompositions in a loop: eigh and QR each step ---------------------------------------------


def spectral_flow_case(steps: int, batch: int, n: int) -> Case:
    """`steps` updates of `batch` symmetric n x n matrices, M <- V tanh(W) V^T + 0.05 (G + G^T)
    with (W, V) = eigh(M) and fresh normal noise G, and of an orthonormal basis Q <- qr(M Q).Q
    (subspace iteration). The outputs (M and Q^T M Q's eigenvalues) do not depend on the signs of
    the eigenvectors or of Q's columns."""

    def flow(m0: jax.Array, q0: jax.Array, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        def step(i: jax.Array, carry: tuple[jax.Array, jax.Array, jax.Array]) -> Any:
            m, q, key = carry
            key, sub = jax.random.split(key)
            w, v = jnp.linalg.eigh(m)
            g = jax.random.normal(sub, m.shape)
            m = (v * jnp.tanh(w)[..., None, :]) @ jnp.swapaxes(v, -1, -2)
            m = m + 0.05 * (g + jnp.swapaxes(g, -1, -2))
            return m, jnp.linalg.qr(m @ q)[0], key

        m, q, _ = lax.fori_loop(0, steps, step, (m0, q0, key))
        return m, jnp.linalg.eigvalsh(jnp.swapaxes(q, -1, -2) @ m @ q)

    k_m, k_q = jax.random.split(jax.random.PRNGKey(13))
    g = jax.random.normal(k_m, (batch, n, n))
    q0 = jnp.linalg.qr(jax.random.normal(k_q, (batch, n, 2)))[0]
    return Case(flow, (0.5 * (g + jnp.swapaxes(g, -1, -2)), q0, jax.random.PRNGKey(3)))


# --- an implicit PDE stepper: Crank-Nicolson, a tridiagonal solve per step ---------------------


def allen_cahn_case(steps: int, batch: int, n: int) -> Case:
    """`steps` Crank-Nicolson steps of the Allen-Cahn equation u_t = eps u_xx + u - u^3 on
    [0, 1] with zero-flux ends, for `batch` initial states (vmapped): each step solves
    (I - r/2 L) u' = (I + r/2 L) u + dt (u - u^3), L the [1, -2, 1] stencil, with
    lax.linalg.tridiagonal_solve. The matrix is the same every step and for every state: jax's
    vmap makes the states columns of one right-hand side."""
    dt, eps = 0.05, 0.02
    r = eps * dt * (n - 1) ** 2

    def stepper(u0: jax.Array) -> jax.Array:
        lower = jnp.full(n, -r / 2).at[0].set(0.0)
        upper = jnp.full(n, -r / 2).at[-1].set(0.0)
        diag = jnp.full(n, 1.0 + r).at[0].set(1.0 + r / 2).at[-1].set(1.0 + r / 2)

        def step(i: jax.Array, u: jax.Array) -> jax.Array:
            left = jnp.concatenate([u[:1], u[:-1]])
            right = jnp.concatenate([u[1:], u[-1:]])
            rhs = u + r / 2 * (left - 2.0 * u + right) + dt * (u - u**3)
            return lax.linalg.tridiagonal_solve(lower, diag, upper, rhs[:, None])[:, 0]

        return lax.fori_loop(0, steps, step, u0)

    u0 = 0.1 * jax.random.normal(jax.random.PRNGKey(19), (batch, n))
    return Case(jax.vmap(stepper), (u0,))


# --- least squares in a loop: Gauss-Newton curve fits, an SVD per step --------------------------


def curve_fit_case(steps: int, batch: int, points: int) -> Case:
    """`batch` independent fits of y = a exp(-b t) + c to `points` noisy samples, each `steps`
    Gauss-Newton steps p <- p + lstsq(J(p), y - f(p)) (jnp.linalg.lstsq: an SVD of the
    points x 3 Jacobian per step), vmapped over the fits."""
    ts = jnp.linspace(0.0, 3.0, points)

    def model(p: jax.Array) -> jax.Array:
        return p[0] * jnp.exp(-p[1] * ts) + p[2]

    def fit(y: jax.Array, p0: jax.Array) -> jax.Array:
        def step(i: jax.Array, p: jax.Array) -> jax.Array:
            jac = jax.jacfwd(model)(p)
            return p + jnp.linalg.lstsq(jac, y - model(p))[0]

        return lax.fori_loop(0, steps, step, p0)

    k_p, k_noise, k_start = jax.random.split(jax.random.PRNGKey(17), 3)
    truth = jnp.array([2.0, 1.3, 0.5]) * jax.random.uniform(k_p, (batch, 3), minval=0.7, maxval=1.3)
    ys = jax.vmap(model)(truth) + 0.01 * jax.random.normal(k_noise, (batch, points))
    p0 = truth * jax.random.uniform(k_start, (batch, 3), minval=0.8, maxval=1.2)
    return Case(jax.vmap(fit), (ys, p0))


# --- a pseudo-spectral PDE: Kuramoto-Sivashinsky by ETDRK4 ---------------------------------------


def kuramoto_sivashinsky_case(steps: int, batch: int, n: int) -> Case:
    """`steps` ETDRK4 steps (Kassam and Trefethen 2005) of u_t = -u u_x - u_xx - u_xxxx on a
    periodic domain of length 32 pi, n Fourier modes, for `batch` initial conditions at once: per
    step four rfft / irfft pairs and complex multiplies, the stiff linear part exact in Fourier
    space. The coefficients are computed once, outside the loop, by the paper's contour means."""
    h = 0.25
    k = jnp.fft.rfftfreq(n, 32 * jnp.pi / (2 * jnp.pi * n))
    lin = k**2 - k**4
    e, e2 = jnp.exp(h * lin), jnp.exp(h * lin / 2)
    roots = jnp.exp(1j * jnp.pi * (jnp.arange(1, 17) - 0.5) / 16)
    lr = h * lin[:, None] + roots[None, :]
    q = h * jnp.real(jnp.mean((jnp.exp(lr / 2) - 1) / lr, axis=1))
    f1 = h * jnp.real(jnp.mean((-4 - lr + jnp.exp(lr) * (4 - 3 * lr + lr**2)) / lr**3, axis=1))
    f2 = h * jnp.real(jnp.mean((2 + lr + jnp.exp(lr) * (-2 + lr)) / lr**3, axis=1))
    f3 = h * jnp.real(jnp.mean((-4 - 3 * lr - lr**2 + jnp.exp(lr) * (4 - lr)) / lr**3, axis=1))
    g = -0.5j * k

    def solve(u0: jax.Array) -> jax.Array:
        def nonlinear(v: jax.Array) -> jax.Array:
            return g * jnp.fft.rfft(jnp.fft.irfft(v, n) ** 2)

        def step(_: jax.Array, v: jax.Array) -> jax.Array:
            nv = nonlinear(v)
            a = e2 * v + q * nv
            na = nonlinear(a)
            b = e2 * v + q * na
            nb = nonlinear(b)
            c = e2 * a + q * (2 * nb - nv)
            nc = nonlinear(c)
            return e * v + nv * f1 + 2 * (na + nb) * f2 + nc * f3

        return jnp.fft.irfft(lax.fori_loop(0, steps, step, jnp.fft.rfft(u0)), n)

    x = 32 * jnp.pi * jnp.arange(n) / n
    phases = jnp.linspace(0.0, 1.0, batch)[:, None]
    u0 = jnp.cos(x / 16 + phases) * (1 + jnp.sin(x / 16 - phases))
    return Case(jax.vmap(solve), (u0,))


# --- the gradient of a scan ----------------------------------------------------------------------


def grad_scan_case(steps: int, hidden: int) -> Case:
    k_w, k_x = jax.random.split(jax.random.PRNGKey(5))
    w = hidden**-0.5 * jax.random.normal(k_w, (hidden, hidden))
    xs = jax.random.normal(k_x, (steps, hidden))
    h0 = jnp.zeros((hidden,))

    def rnn_loss(w: jax.Array, xs: jax.Array, h0: jax.Array) -> jax.Array:
        def step(h: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            h = jnp.tanh(h @ w + x)
            return h, jnp.sum(h**2)

        return jnp.sum(lax.scan(step, h0, xs)[1])

    def grad_rnn(w: jax.Array, xs: jax.Array, h0: jax.Array) -> jax.Array:
        return jax.grad(rnn_loss)(w, xs, h0)

    return Case(grad_rnn, (w, xs, h0))


# --- libraries as their users call them (imported only when these benchmarks run) ---------------


def nuts_case(chains: int, steps: int, split_inside: bool = False) -> Case:
    """blackjax's NUTS on a correlated 5-d Gaussian, `steps` transitions per chain, vmapped over
    `chains` chains (one key each): multi-chain NUTS as blackjax documents it. Each transition
    builds a trajectory with while loops that every chain ends at its own U-turn. With
    `split_inside`, the function takes one key and splits it into the chains' keys itself."""
    import blackjax

    k = jax.random.split(jax.random.PRNGKey(11), 2)
    a = jax.random.normal(k[0], (5, 5))
    precision = a @ a.T / 5.0 + jnp.eye(5)
    nuts = blackjax.nuts(
        lambda x: -0.5 * x @ precision @ x, step_size=0.5, inverse_mass_matrix=jnp.ones(5)
    )

    def nuts_chains(keys: jax.Array) -> tuple[jax.Array, jax.Array]:
        def chain(key: jax.Array) -> tuple[jax.Array, jax.Array]:
            def step(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
                state, info = nuts.step(key, state)
                return state, info.num_integration_steps

            state, n = lax.scan(step, nuts.init(jnp.ones(5)), jax.random.split(key, steps))
            return state.position, jnp.sum(n)

        return jax.vmap(chain)(keys)

    if split_inside:

        def nuts_from_one_key(key: jax.Array) -> tuple[jax.Array, jax.Array]:
            return nuts_chains(jax.random.split(key, chains))

        return Case(nuts_from_one_key, (k[1],))
    return Case(nuts_chains, (jax.random.split(k[1], chains),))


def diffrax_case(t1: float) -> Case:
    """diffrax's adaptive Tsit5 (PID controller, rtol 1e-6) on the Van der Pol oscillator, dense
    output at 100 times, throw=True (the default): equinox's runtime checks are host callbacks."""
    import diffrax

    def vector_field(t: Any, y: jax.Array, mu: jax.Array) -> jax.Array:
        return _van_der_pol(y, mu)

    def diffrax_vdp(y0: jax.Array, mu: jax.Array) -> jax.Array:
        solution = diffrax.diffeqsolve(
            diffrax.ODETerm(vector_field),
            diffrax.Tsit5(),
            t0=0.0,
            t1=t1,
            dt0=0.01,
            y0=y0,
            args=mu,
            saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, t1, 100)),
            stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-8),
            max_steps=100_000,
        )
        return solution.ys

    return Case(diffrax_vdp, (jnp.array([2.0, 0.0]), jnp.asarray(1.0)))


def _logistic_model(x: jax.Array, y: jax.Array) -> None:
    import numpyro
    import numpyro.distributions as dist

    w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


def _logistic_data(n: int = 100, d: int = 4) -> tuple[jax.Array, jax.Array]:
    k = jax.random.split(jax.random.PRNGKey(21), 2)
    x = jax.random.normal(k[0], (n, d))
    logits = x @ jnp.linspace(1.0, -1.0, d) + 0.3 * jax.random.normal(k[1], (n,))
    return x, (logits > 0).astype(jnp.float32)


def numpyro_nuts_case(chains: int, steps: int) -> Case:
    """numpyro's NUTS kernel (`hmc(potential_fn, algo="NUTS")`, what `MCMC` runs) on a Bayesian
    logistic regression (100 points, 4 features), a fixed step size, `steps` transitions per
    chain in a scan, vmapped over `chains` keys as `chain_method="vectorized"` does."""
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    x, y = _logistic_data()
    init_params, potential_fn, *_ = initialize_model(
        jax.random.PRNGKey(0), _logistic_model, model_args=(x, y)
    )
    init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")

    def numpyro_chains(keys: jax.Array) -> tuple[jax.Array, jax.Array]:
        def chain(key: jax.Array) -> tuple[jax.Array, jax.Array]:
            state = init_kernel(init_params, num_warmup=0, step_size=0.1, rng_key=key)

            def step(state: Any, _: Any) -> tuple[Any, jax.Array]:
                state = sample_kernel(state)
                return state, state.num_steps

            state, n = lax.scan(step, state, None, length=steps)
            return state.z["w"], jnp.sum(n)

        return jax.vmap(chain)(keys)

    return Case(numpyro_chains, (jax.random.split(jax.random.PRNGKey(22), chains),))


def numpyro_svi_case(steps: int) -> Case:
    """numpyro's SVI on the same logistic regression: an AutoNormal guide, Trace_ELBO, Adam,
    `steps` `svi.update` calls in a scan (each draws from the guide)."""
    import numpyro
    from numpyro.infer import SVI, Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal

    x, y = _logistic_data()

    def fit(x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
        # A new guide per trace: an autoguide keeps the values of its first `init` (tracers when
        # traced), and a second trace of the same guide fails with jax's UnexpectedTracerError.
        guide = AutoNormal(_logistic_model)
        svi = SVI(_logistic_model, guide, numpyro.optim.Adam(0.01), Trace_ELBO())
        state = svi.init(jax.random.PRNGKey(23), x, y)
        state, losses = lax.scan(lambda s, _: svi.update(s, x, y), state, None, length=steps)
        return svi.get_params(state), losses

    return Case(fit, (x, y))


def flax_lstm_case(steps: int, hidden: int, batch: int, inputs: int = 16) -> Case:
    """flax.linen's LSTMCell lifted by `nn.scan` over `steps` time steps: every hidden state."""
    import flax.linen as nn

    class LSTM(nn.Module):
        @nn.compact
        def __call__(self, xs: jax.Array) -> Any:
            cell = nn.scan(
                nn.LSTMCell,
                variable_broadcast="params",
                split_rngs={"params": False},
                in_axes=1,
                out_axes=1,
            )(features=hidden)
            return cell(cell.initialize_carry(jax.random.key(0), xs[:, 0].shape), xs)

    xs = jax.random.normal(jax.random.PRNGKey(24), (batch, steps, inputs))
    params = LSTM().init(jax.random.key(1), xs)

    def lstm(params: Any, xs: jax.Array) -> Any:
        return LSTM().apply(params, xs)[1]

    return Case(lstm, (params, xs))


def flax_mlp_train_case(steps: int, batch: int, width: int = 64) -> Case:
    """A flax.linen MLP (Dense, LayerNorm, gelu) fit by optax's adamw for `steps` steps in a
    scan: a whole training run on one batch as one call."""
    import flax.linen as nn
    import optax

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            for _ in range(2):
                x = nn.gelu(nn.LayerNorm()(nn.Dense(width)(x)))
            return nn.Dense(1)(x)[:, 0]

    k = jax.random.split(jax.random.PRNGKey(25), 2)
    x = jax.random.normal(k[0], (batch, 8))
    y = jnp.sin(x @ jnp.linspace(-1.0, 1.0, 8)) + 0.1 * jax.random.normal(k[1], (batch,))
    params = MLP().init(jax.random.key(2), x)
    opt = optax.adamw(3e-3)

    def train(params: Any, x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
        def step(carry: Any, _: Any) -> tuple[Any, jax.Array]:
            params, opt_state = carry
            loss, grads = jax.value_and_grad(lambda p: jnp.mean((MLP().apply(p, x) - y) ** 2))(
                params
            )
            updates, opt_state = opt.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), loss

        (params, _), losses = lax.scan(step, (params, opt.init(params)), None, length=steps)
        return params, losses

    return Case(train, (params, x, y))
