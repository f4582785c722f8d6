"""Everyday programs of the JAX libraries users run through lf.jit(fallback="error") beside jax.jit:
whether each compiles, whether the results agree (rtol 1e-4), and the median time of 5 calls each.
A survey, not a benchmark (bench/ measures properly); it shows what falls back and why.

    .venv/bin/python scripts/library_survey.py                 # every library that is installed
    .venv/bin/python scripts/library_survey.py blackjax diffrax
    .venv/bin/python scripts/library_survey.py jax     # ~120 everyday jnp/lax/scipy/random calls

Libraries that are not installed are skipped (python/requirements.txt pins all six).
"""

import importlib.util
import sys
import time
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

import loopfuse as lf

# One row per program: (name, "ok" / "MISMATCH" / "ERROR", detail, timings or the error).
results: list[tuple[str, str, str, str]] = []


def compare(
    name: str, f: Callable[..., Any], *args: Any, static_argnums: tuple[int, ...] = ()
) -> None:
    """Runs f with jax.jit and lf.jit(fallback="error"), records agreement and median times."""
    try:
        jf = jax.jit(f, static_argnums=static_argnums)
        lfj = lf.jit(f, static_argnums=static_argnums, fallback="error")
        t0 = time.perf_counter()
        ref = jax.block_until_ready(jf(*args))
        tj0 = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = jax.block_until_ready(lfj(*args))
        tl0 = time.perf_counter() - t0
        rl, ol = jax.tree.leaves(ref), jax.tree.leaves(out)
        worst = 0.0
        ok = True
        for a, b in zip(rl, ol):
            if jnp.issubdtype(a.dtype, jax.dtypes.prng_key):
                a, b = jax.random.key_data(a), jax.random.key_data(b)
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind in "iub":
                ok &= np.array_equal(a, b)
            else:
                ok &= np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
                if a.size:
                    worst = max(
                        worst, float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
                    )

        def tm(g):
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                jax.block_until_ready(g(*args))
                ts.append(time.perf_counter() - t0)
            return np.median(ts)

        tj, tl = tm(jf), tm(lfj)
        results.append(
            (
                name,
                "ok" if ok else "MISMATCH",
                f"maxabs {worst:.3g}",
                f"jax {tj * 1e3:.2f} ms lf {tl * 1e3:.2f} ms ({tj / tl:.2f}x) first-call jax {tj0:.2f}s lf {tl0:.2f}s",
            )
        )
    except Exception as e:
        msg = str(e).strip().splitlines()
        results.append((name, "ERROR", type(e).__name__, " | ".join(msg[:6])[:900]))
    print(results[-1], flush=True)


which = sys.argv[1:] or ["jax", "numpyro", "blackjax", "diffrax", "optax", "flax", "equinox"]
which = [w for w in which if importlib.util.find_spec(w) is not None]

if "numpyro" in which:
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    def model(x, y):
        w = numpyro.sample("w", dist.Normal(0, 1).expand([x.shape[1]]))
        b = numpyro.sample("b", dist.Normal(0, 1))
        numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)

    x = jax.random.normal(jax.random.key(0), (100, 5))
    y = (x[:, 0] > 0).astype(jnp.float32)
    init_params, potential_fn, *_ = initialize_model(
        jax.random.PRNGKey(1), model, model_args=(x, y)
    )
    init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")
    hmc_state = init_kernel(init_params, num_warmup=0, step_size=0.1)

    def run_nuts(state, n):
        def body(i, s):
            return sample_kernel(s)

        return jax.lax.fori_loop(0, n, body, state)

    compare("numpyro NUTS x100", run_nuts, hmc_state, 100, static_argnums=(1,))
    hmc_k = hmc(potential_fn, algo="HMC")
    st = hmc_k[0](init_params, num_warmup=0, step_size=0.05, num_steps=10)
    compare(
        "numpyro HMC x100", lambda s: jax.lax.fori_loop(0, 100, lambda i, s: hmc_k[1](s), s), st
    )

if "blackjax" in which:
    import blackjax

    def logdensity(p):
        return -0.5 * jnp.sum((p["a"] - 1.0) ** 2) - 0.5 * jnp.sum(p["b"] ** 2 / 4.0)

    init = {"a": jnp.zeros(3), "b": jnp.ones(2)}
    nuts = blackjax.nuts(logdensity, step_size=0.3, inverse_mass_matrix=jnp.ones(5))

    def inference_loop(key, n):
        state = nuts.init(init)

        def step(s, k):
            s, info = nuts.step(k, s)
            return s, s.position

        keys = jax.random.split(key, n)
        _, pos = jax.lax.scan(step, state, keys)
        return pos

    compare("blackjax NUTS scan 200", inference_loop, jax.random.key(3), 200, static_argnums=(1,))
    mala = blackjax.mala(logdensity, step_size=0.1)

    def mala_loop(key):
        s = mala.init(init)

        def step(s, k):
            s, _ = mala.step(k, s)
            return s, s.position["a"]

        return jax.lax.scan(step, s, jax.random.split(key, 500))[1]

    compare("blackjax MALA scan 500", mala_loop, jax.random.key(4))

    def vmapped_nuts(key):
        return jax.vmap(lambda k: inference_loop(k, 50))(jax.random.split(key, 16))

    compare("blackjax NUTS vmap16 x50", vmapped_nuts, jax.random.key(5))

if "diffrax" in which:
    import diffrax

    def vf(t, y, args):
        mu = args
        return jnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])

    def tsit5_pid(y0, mu, **options):
        return diffrax.diffeqsolve(
            diffrax.ODETerm(vf),
            diffrax.Tsit5(),
            0.0,
            10.0,
            0.01,
            y0,
            args=mu,
            stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-8),
            max_steps=10000,
            **options,
        )

    def solve(y0, mu):
        return tsit5_pid(y0, mu, saveat=diffrax.SaveAt(ts=jnp.linspace(0, 10, 11))).ys

    compare("diffrax Tsit5 PID vdp", solve, jnp.array([2.0, 0.0]), 1.0)

    def solve_nothrow(y0, mu):
        sol = tsit5_pid(y0, mu, saveat=diffrax.SaveAt(t1=True), throw=False)
        return sol.ys, sol.stats["num_steps"]

    compare("diffrax Tsit5 PID throw=False", solve_nothrow, jnp.array([2.0, 0.0]), 1.0)

    def solve_const(y0):
        return diffrax.diffeqsolve(
            diffrax.ODETerm(vf), diffrax.Dopri5(), 0.0, 5.0, 0.01, y0, args=1.0, throw=False
        ).ys

    compare("diffrax Dopri5 const step", solve_const, jnp.array([2.0, 0.0]))

    def grad_solve(y0):
        return jax.grad(lambda y: jnp.sum(solve_const(y)))(y0)

    compare("diffrax grad Dopri5", grad_solve, jnp.array([2.0, 0.0]))

    def sde(key):
        bm = diffrax.VirtualBrownianTree(0.0, 1.0, tol=1e-3, shape=(), key=key)
        terms = diffrax.MultiTerm(
            diffrax.ODETerm(lambda t, y, a: -y), diffrax.ControlTerm(lambda t, y, a: 0.1, bm)
        )
        return diffrax.diffeqsolve(terms, diffrax.Euler(), 0.0, 1.0, 0.01, 1.0, throw=False).ys

    compare("diffrax SDE Euler VBT", sde, jax.random.key(0))

if "optax" in which:
    import optax

    def train(params, x, y):
        opt = optax.adam(1e-2)

        def loss(p):
            h = jnp.tanh(x @ p["w1"] + p["b1"])
            return jnp.mean((h @ p["w2"] - y) ** 2)

        def step(carry, _):
            p, s = carry
            value, g = jax.value_and_grad(loss)(p)
            u, s = opt.update(g, s, p)
            return (optax.apply_updates(p, u), s), value

        (p, s), ls = jax.lax.scan(step, (params, opt.init(params)), None, length=300)
        return p, ls

    k = jax.random.split(jax.random.key(0), 4)
    params = {
        "w1": jax.random.normal(k[0], (4, 16)) * 0.5,
        "b1": jnp.zeros(16),
        "w2": jax.random.normal(k[1], (16, 1)) * 0.5,
    }
    x = jax.random.normal(k[2], (64, 4))
    y = jnp.sin(x[:, :1])
    compare("optax adam MLP scan 300", train, params, x, y)

    def train2(params, x, y):
        opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-2))

        def loss(p):
            h = jax.nn.gelu(x @ p["w1"] + p["b1"])
            return jnp.mean((h @ p["w2"] - y) ** 2)

        def step(carry, _):
            p, s = carry
            g = jax.grad(loss)(p)
            u, s = opt.update(g, s, p)
            return (optax.apply_updates(p, u), s), None

        return jax.lax.scan(step, (params, opt.init(params)), None, length=300)[0][0]

    compare("optax adamw+clip gelu scan 300", train2, params, x, y)

if "jax" in which:
    from survey_jax_cases import everyday_cases

    for case, (fn, arg) in everyday_cases().items():
        compare(f"jax {case}", fn, arg)

if "flax" in which:
    import flax.linen as nn

    class RNN(nn.Module):
        @nn.compact
        def __call__(self, xs):
            cell = nn.scan(
                nn.LSTMCell,
                variable_broadcast="params",
                split_rngs={"params": False},
                in_axes=1,
                out_axes=1,
            )(features=32)
            carry = cell.initialize_carry(jax.random.key(0), xs[:, 0].shape)
            return cell(carry, xs)[1]

    m = RNN()
    xs = jax.random.normal(jax.random.key(1), (4, 100, 8))
    p = m.init(jax.random.key(2), xs)
    compare("flax linen LSTM scan 100", lambda p, xs: m.apply(p, xs), p, xs)

if "equinox" in which:
    import equinox as eqx

    cell = eqx.nn.GRUCell(8, 32, key=jax.random.key(0))

    def run(cell, xs):
        def f(h, x):
            h = cell(x, h)
            return h, h

        return jax.lax.scan(f, jnp.zeros(32), xs)[1]

    xs = jax.random.normal(jax.random.key(1), (200, 8))
    compare("equinox GRU scan 200", lambda xs: run(cell, xs), xs)
    mlp = eqx.nn.MLP(2, 2, 32, 2, key=jax.random.key(3))

    def fixed_point(x):
        return jax.lax.while_loop(
            lambda c: (c[1] < 1000) & (jnp.linalg.norm(c[0] - 0.5 * jnp.tanh(mlp(c[0]))) > 1e-6),
            lambda c: (0.5 * jnp.tanh(mlp(c[0])), c[1] + 1),
            (x, 0),
        )

    compare("equinox MLP fixed point while", fixed_point, jnp.array([0.3, -0.2]))

print("\n==== summary")
for r in results:
    print(" | ".join(r))
