"""numpyro and flax (linen) programs as their users write them: a NUTS sampler on a numpyro model,
SVI with an autoguide, numpyro's distributions drawn in a scan, and flax RNNs, a transformer block
and a training loop with optax. The libraries are imported inside the functions, so that loading
this module needs neither (the GPU image has no numpyro)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import host_independent, normal, program, prng_key


def _logistic_regression_model(x, y):
    import numpyro
    import numpyro.distributions as dist

    w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


def _logistic_data(rng):
    x = host_independent(normal(rng, (40, 3)), bits=12)
    y = (x[:, 0] - 0.5 * x[:, 1] > 0).astype(np.float32)
    return x, y


@program("model_numpyro_nuts", args=lambda rng: (*_logistic_data(rng), prng_key(3)))
def model_numpyro_nuts(x, y, key):
    # numpyro's NUTS (the functional `hmc(potential_fn, algo="NUTS")` kernel that MCMC runs) on a
    # Bayesian logistic regression, 12 transitions with a fixed step size: each builds its tree in
    # while loops that stop at a U-turn. Returns the positions, tree sizes and accept rates.
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    init_params, potential_fn, *_ = initialize_model(
        key, _logistic_regression_model, model_args=(x, y)
    )
    init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")
    state = init_kernel(init_params, num_warmup=0, step_size=0.2, rng_key=key)

    def step(state, _):
        state = sample_kernel(state)
        return state, (state.z["w"], state.num_steps, state.accept_prob)

    return lax.scan(step, state, None, length=12)[1]


@program(
    "model_numpyro_nuts_vmap",
    args=lambda rng: (*_logistic_data(rng), jax.random.split(jax.random.PRNGKey(6), 6)),
)
def model_numpyro_nuts_vmap(x, y, keys):
    # Several NUTS chains as numpyro's chain_method="vectorized" runs them: the kernel vmapped
    # over the chains' keys, each chain's trees stopping at its own U-turns (8 transitions).
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import initialize_model

    init_params, potential_fn, *_ = initialize_model(
        keys[0], _logistic_regression_model, model_args=(x, y)
    )
    init_kernel, sample_kernel = hmc(potential_fn, algo="NUTS")

    def chain(key):
        state = init_kernel(init_params, num_warmup=0, step_size=0.2, rng_key=key)

        def step(state, _):
            state = sample_kernel(state)
            return state, (state.z["b"], state.num_steps)

        return lax.scan(step, state, None, length=8)[1]

    return jax.vmap(chain)(keys)


@program("model_numpyro_svi", args=lambda rng: _logistic_data(rng))
def model_numpyro_svi(x, y):
    # numpyro's SVI as its users loop it: AutoNormal guide, Trace_ELBO, numpyro.optim.Adam,
    # 60 svi.update steps in a scan (the ELBO estimate draws from the guide every step).
    import numpyro
    from numpyro.infer import SVI, Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal

    svi = SVI(
        _logistic_regression_model,
        AutoNormal(_logistic_regression_model),
        numpyro.optim.Adam(0.02),
        Trace_ELBO(),
    )
    state = svi.init(jax.random.PRNGKey(4), x, y)

    def step(state, _):
        return svi.update(state, x, y)

    state, losses = lax.scan(step, state, None, length=60)
    return svi.get_params(state), losses


@program("model_numpyro_distributions", args=lambda rng: (prng_key(5),))
def model_numpyro_distributions(key):
    # numpyro's samplers drawn in a scan: gamma, Dirichlet, beta (rejection samplers in while
    # loops), Poisson (integers), Student t, LKJ Cholesky factors, multivariate normal.
    import numpyro.distributions as dist

    def step(key, _):
        key, *keys = jax.random.split(key, 8)
        draws = (
            dist.Gamma(2.0, 3.0).sample(keys[0], (8,)),
            dist.Dirichlet(jnp.array([0.5, 1.0, 2.0, 4.0])).sample(keys[1]),
            dist.Beta(2.0, 5.0).sample(keys[2], (4,)),
            dist.Poisson(3.0).sample(keys[3], (4,)),
            dist.StudentT(4.0).sample(keys[4], (4,)),
            dist.LKJCholesky(3, 2.0).sample(keys[5]),
            dist.MultivariateNormal(jnp.zeros(3), jnp.eye(3) + 0.5).sample(keys[6]),
        )
        return key, draws

    return lax.scan(step, key, None, length=10)[1]


def _jittered(rng, tree, scale=0.1):
    """flax's initial parameters with noise added: its zero biases (and BatchNorm's zero means and
    unit variances) made random, as after some training, so that every input is checked."""
    return jax.tree.map(lambda p: np.asarray(p) + scale * normal(rng, np.shape(p)), tree)


def _redrawn(rng, tree):
    """Parameters of flax's shapes drawn here: normal / sqrt(fan-in) for matrices, 0.1 * normal
    for vectors. flax's recurrent kernels are orthogonal (a QR in XLA:CPU), whose bits differ
    between host CPUs by up to ~1700 ulp (AVX2 vs AVX-512 LAPACK), and a corpus input must be
    the same on every host (generate.py --check)."""

    def draw(p):
        shape = np.shape(p)
        scale = 1.0 / np.sqrt(shape[0]) if len(shape) == 2 else 0.1
        return (scale * normal(rng, shape)).astype(np.asarray(p).dtype)

    return jax.tree.map(draw, tree)


def _lstm_scan():
    import flax.linen as nn

    class LSTM(nn.Module):
        @nn.compact
        def __call__(self, xs):
            cell = nn.scan(
                nn.LSTMCell,
                variable_broadcast="params",
                split_rngs={"params": False},
                in_axes=1,
                out_axes=1,
            )(features=16)
            carry = cell.initialize_carry(jax.random.key(0), xs[:, 0].shape)
            return cell(carry, xs)

    return LSTM()


def _lstm_args(rng):
    xs = normal(rng, (2, 24, 4))
    return _redrawn(rng, _lstm_scan().init(jax.random.key(1), xs)), xs


@program("model_flax_lstm_scan", args=_lstm_args)
def model_flax_lstm_scan(params, xs):
    # flax.linen's LSTMCell lifted by nn.scan over 24 time steps of a batch of 2: the final
    # carry and every hidden state.
    return _lstm_scan().apply(params, xs)


def _gru():
    import flax.linen as nn

    return nn.RNN(nn.GRUCell(features=8))


def _gru_args(rng):
    xs = normal(rng, (2, 16, 3))
    return _redrawn(rng, _gru().init(jax.random.key(2), xs)), xs


@program("model_flax_gru_grad", args=_gru_args)
def model_flax_gru_grad(params, xs):
    # The gradient of a loss through flax's nn.RNN(GRUCell) over 16 steps: the scan's reverse
    # pass, with the parameters' cotangents summed over time.
    def loss(params):
        return jnp.sum(jnp.tanh(_gru().apply(params, xs)) ** 2)

    return jax.value_and_grad(loss)(params)


def _transformer_block():
    import flax.linen as nn

    class Block(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.LayerNorm()(x)
            mask = nn.make_causal_mask(x[..., 0])
            h = nn.MultiHeadDotProductAttention(num_heads=2, qkv_features=16)(h, h, mask=mask)
            x = x + h
            h = nn.gelu(nn.Dense(32)(nn.LayerNorm()(x)))
            return x + nn.Dense(16)(h)

    return Block()


def _block_args(rng):
    tokens = normal(rng, (2, 8, 16))
    return _jittered(rng, _transformer_block().init(jax.random.key(3), tokens)), tokens


@program("model_flax_transformer_loop", args=_block_args)
def model_flax_transformer_loop(params, tokens):
    # A pre-LayerNorm transformer block (causal multi-head attention, gelu MLP) applied 6 times
    # in a fori_loop, as an iterative refinement / denoising loop does.
    block = _transformer_block()
    return lax.fori_loop(0, 6, lambda i, t: t - 0.1 * block.apply(params, t), tokens)


def _cnn():
    import flax.linen as nn

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x, train: bool):
            x = nn.Conv(4, (3, 3))(x)
            x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
            x = nn.avg_pool(nn.relu(x), (2, 2), (2, 2))
            x = x.reshape(x.shape[0], -1)
            return nn.Dense(5)(x)

    return CNN()


def _cnn_args(rng):
    images = normal(rng, (4, 8, 8, 1))
    labels = np.array([0, 3, 1, 4], np.int32)
    variables = _cnn().init(jax.random.key(4), images, train=False)
    # Jittered running statistics: variances stay near 1, so positive.
    return (
        _jittered(rng, variables["params"]),
        _jittered(rng, variables["batch_stats"]),
        images,
        labels,
    )


@program("model_flax_batchnorm_train", args=_cnn_args)
def model_flax_batchnorm_train(params, batch_stats, images, labels):
    # A flax training loop: a convolution, BatchNorm in training mode (its running statistics a
    # mutable collection carried by the loop), average pooling and a dense layer; softmax
    # cross-entropy, optax SGD with momentum, 8 steps in a scan.
    import optax

    cnn = _cnn()
    opt = optax.sgd(0.05, momentum=0.9)

    def step(carry, _):
        params, batch_stats, opt_state = carry

        def loss(params):
            logits, updates = cnn.apply(
                {"params": params, "batch_stats": batch_stats},
                images,
                train=True,
                mutable=["batch_stats"],
            )
            ce = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
            return ce, updates["batch_stats"]

        (value, batch_stats), grads = jax.value_and_grad(loss, has_aux=True)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), batch_stats, opt_state), value

    carry, losses = lax.scan(step, (params, batch_stats, opt.init(params)), None, length=8)
    return carry[0], carry[1], losses
