"""numpyro and flax (linen) through lf.jit as their users call them, against jax.jit: NUTS with
warmup adaptation, vectorized chains, SVI with a full-rank guide, a flax training loop, and flax
models under grad, vmap and an enclosing jax.jit. Every call uses fallback="error", so a program
that would fall back to XLA fails the test instead of passing on XLA's own result.

The corpus (tests/programs/progs_numpyro_flax.py) holds the f32 programs; the samplers here run
in x64 because NUTS with step-size adaptation amplifies a last-bit difference (a reduction that
XLA sums in another order) into a different chain within ~40 f32 iterations, as any chaotic
iteration does (README, Limits); in f64 the two chains stay within 1e-9 for 150 iterations."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, requires_core

numpyro = pytest.importorskip("numpyro")
nn = pytest.importorskip("flax.linen")
optax = pytest.importorskip("optax")

import numpyro.distributions as dist  # noqa: E402
from numpyro.infer import SVI, Trace_ELBO  # noqa: E402
from numpyro.infer.autoguide import AutoMultivariateNormal  # noqa: E402
from numpyro.infer.hmc import hmc  # noqa: E402
from numpyro.infer.util import initialize_model  # noqa: E402
from numpyro.util import fori_collect  # noqa: E402

pytestmark = requires_core


def _both(f, *args):
    """f's result under jax.jit and under lf.jit (no fallback)."""
    expected = jax.jit(f)(*args)
    actual = lf.jit(f, fallback="error")(*args)
    return actual, expected


def _logistic_regression(x, y):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


def _logistic_data(dtype):
    x = jax.random.normal(jax.random.PRNGKey(0), (60, 4), dtype)
    return x, (x[:, 0] - x[:, 2] > 0).astype(dtype)


def _eight_schools(sigma, y=None):
    mu = numpyro.sample("mu", dist.Normal(0.0, 5.0))
    tau = numpyro.sample("tau", dist.HalfCauchy(5.0))
    with numpyro.plate("J", sigma.shape[0]):
        theta = numpyro.sample("theta", dist.Normal(mu, tau))
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


def test_nuts_with_warmup_adaptation_matches_jax():
    # MCMC's own loop: dual-averaging step size and a windowed diagonal mass matrix during 40
    # warmup transitions, then 30 samples, collected by numpyro's fori_collect (a scan).
    with jax.enable_x64(True):
        x, y = _logistic_data(jnp.float64)
        params, potential_fn, *_ = initialize_model(
            jax.random.PRNGKey(1), _logistic_regression, model_args=(x, y)
        )
        init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")
        state = init_kernel(params, num_warmup=40, step_size=0.1)

        def run(state):
            def record(s):
                return s.z, s.num_steps, s.adapt_state.step_size, s.adapt_state.inverse_mass_matrix

            return fori_collect(0, 70, sample_kernel, state, transform=record, progbar=False)

        actual, expected = _both(run, state)
        np.testing.assert_array_equal(actual[1], expected[1])  # every tree's size
        assert_close(actual, expected, what="NUTS with adaptation", scale=1e4)
        assert float(jnp.min(expected[2][40:])) == float(jnp.max(expected[2][40:]))  # adapted


def test_vectorized_nuts_chains_on_eight_schools():
    # chain_method="vectorized" as numpyro runs it: the kernel vmapped over the chains' keys; the
    # funnel of the centered eight-schools model gives the chains very different tree sizes.
    with jax.enable_x64(True):
        y = jnp.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
        sigma = jnp.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
        params, potential_fn, *_ = initialize_model(
            jax.random.PRNGKey(2), _eight_schools, model_args=(sigma, y)
        )
        init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")

        def chains(keys):
            def chain(key):
                state = init_kernel(params, num_warmup=0, step_size=0.2, rng_key=key)

                def step(state, _):
                    state = sample_kernel(state)
                    return state, (state.z["mu"], state.z["tau"], state.num_steps)

                return jax.lax.scan(step, state, None, length=15)[1]

            return jax.vmap(chain)(keys)

        actual, expected = _both(chains, jax.random.split(jax.random.PRNGKey(3), 8))
        np.testing.assert_array_equal(actual[2], expected[2])
        assert len(np.unique(np.asarray(expected[2]))) > 2  # the chains' trees differ
        assert_close(actual, expected, what="eight schools", scale=1e3)


def test_svi_with_a_full_rank_guide():
    # AutoMultivariateNormal: a Cholesky-factor parameterized guide (triangular products in every
    # ELBO draw), 150 Adam steps of svi.update in a scan.
    x, y = _logistic_data(jnp.float32)
    guide = AutoMultivariateNormal(_logistic_regression)
    svi = SVI(_logistic_regression, guide, numpyro.optim.Adam(0.02), Trace_ELBO())
    state = svi.init(jax.random.PRNGKey(4), x, y)

    def run(state):
        state, losses = jax.lax.scan(lambda s, _: svi.update(s, x, y), state, None, length=150)
        return svi.get_params(state), losses

    actual, expected = _both(run, state)
    assert_close(actual, expected, what="SVI", scale=10.0)


class _MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.gelu(nn.LayerNorm()(nn.Dense(32)(x)))
        x = nn.relu(nn.Dense(32)(x))
        return nn.Dense(1)(x)


def test_flax_training_loop_with_adamw():
    mlp = _MLP()
    x = jax.random.normal(jax.random.PRNGKey(5), (64, 3))
    target = jnp.sin(x.sum(-1, keepdims=True))
    params = mlp.init(jax.random.PRNGKey(6), x)
    opt = optax.adamw(3e-3)

    def train(params):
        def step(carry, _):
            params, opt_state = carry
            loss, grads = jax.value_and_grad(lambda p: jnp.mean((mlp.apply(p, x) - target) ** 2))(
                params
            )
            updates, opt_state = opt.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), loss

        return jax.lax.scan(step, (params, opt.init(params)), None, length=60)

    actual, expected = _both(train, params)
    assert_close(actual, expected, what="adamw training", scale=10.0)
    assert float(expected[1][-1]) < 0.5 * float(expected[1][0])  # it trains


def test_flax_model_under_vmap_grad_and_an_enclosing_jit():
    # An lf.jit LSTM, vmapped over sequences, differentiated, inside a jax.jit: the gradient of
    # an lf.jit function is its custom_vjp's kernel; the vmap batch-maps it.
    cell = nn.RNN(nn.LSTMCell(features=8))
    xs = jax.random.normal(jax.random.PRNGKey(7), (5, 20, 3))
    params = cell.init(jax.random.PRNGKey(8), xs[:1])

    def last_hidden(params, seq):
        return cell.apply(params, seq[None])[0, -1]

    def loss(run, params):
        return jnp.sum(jax.vmap(run, in_axes=(None, 0))(params, xs) ** 2)

    fast = lf.jit(last_hidden, fallback="error")
    actual = jax.jit(jax.value_and_grad(lambda p: loss(fast, p)))(params)
    expected = jax.jit(jax.value_and_grad(lambda p: loss(last_hidden, p)))(params)
    assert_close(actual, expected, what="LSTM value and grad", scale=10.0)
