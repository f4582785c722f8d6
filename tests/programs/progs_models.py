"""Small real models: an ODE integrator, an HMC sampler, a GRU, training steps, attention."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import normal, program, prng_key, uniform


def _lotka_volterra(state, params):
    prey, predator = state[0], state[1]
    alpha, beta, delta, gamma = params[0], params[1], params[2], params[3]
    return jnp.stack(
        [alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator]
    )


@program(
    "model_rk4_lotka_volterra",
    args=lambda rng: (
        uniform(rng, (2,), 5.0, 15.0),
        np.array([1.1, 0.4, 0.1, 0.4], np.float32),
        np.float32(0.05),
    ),
)
def model_rk4_lotka_volterra(y0, params, dt):
    # 100 classic Runge-Kutta steps; returns the final state and the trajectory.
    def step(y, _):
        k1 = _lotka_volterra(y, params)
        k2 = _lotka_volterra(y + 0.5 * dt * k1, params)
        k3 = _lotka_volterra(y + 0.5 * dt * k2, params)
        k4 = _lotka_volterra(y + dt * k3, params)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y, y

    return lax.scan(step, y0, None, length=100)


def _gaussian_log_density(x, precision):
    return -0.5 * x @ precision @ x


@program(
    "model_hmc_gaussian",
    args=lambda rng: (
        prng_key(1),
        normal(rng, (2,)),
        np.array([[2.0, 0.6], [0.6, 1.0]], np.float32),
    ),
)
def model_hmc_gaussian(key, x0, precision):
    # Hamiltonian Monte Carlo on a 2-D Gaussian: 10 transitions of 20 leapfrog steps,
    # each with a Metropolis accept/reject drawn with jax.random.
    step_size = 0.1
    grad_log_p = jax.grad(_gaussian_log_density)

    def leapfrog(_, state):
        x, p = state
        p = p + 0.5 * step_size * grad_log_p(x, precision)
        x = x + step_size * p
        p = p + 0.5 * step_size * grad_log_p(x, precision)
        return x, p

    def transition(state, _):
        x, key, accepted = state
        key, k_momentum, k_accept = jax.random.split(key, 3)
        p0 = jax.random.normal(k_momentum, x.shape)
        x1, p1 = lax.fori_loop(0, 20, leapfrog, (x, p0))
        h0 = -_gaussian_log_density(x, precision) + 0.5 * p0 @ p0
        h1 = -_gaussian_log_density(x1, precision) + 0.5 * p1 @ p1
        accept = jnp.log(jax.random.uniform(k_accept)) < h0 - h1
        x = jnp.where(accept, x1, x)
        return (x, key, accepted + accept.astype(jnp.int32)), x

    return lax.scan(transition, (x0, key, 0), None, length=10)


@program(
    "model_gru_scan",
    args=lambda rng: (
        normal(rng, (3, 8, 16)) * 0.3,
        normal(rng, (3, 16, 16)) * 0.3,
        normal(rng, (3, 16)) * 0.1,
        normal(rng, (10, 8)),
        normal(rng, (16,)) * 0.1,
    ),
)
def model_gru_scan(w_in, w_hidden, bias, xs, h0):
    # A GRU cell (hidden 16) over 10 steps of 8 features.
    def cell(h, x):
        z = jax.nn.sigmoid(x @ w_in[0] + h @ w_hidden[0] + bias[0])
        r = jax.nn.sigmoid(x @ w_in[1] + h @ w_hidden[1] + bias[1])
        candidate = jnp.tanh(x @ w_in[2] + (r * h) @ w_hidden[2] + bias[2])
        h = (1 - z) * h + z * candidate
        return h, h

    return lax.scan(cell, h0, xs)


@program(
    "model_logistic_regression_gd",
    args=lambda rng: (
        normal(rng, (32, 5)),
        (rng.random(32) < 0.5).astype(np.float32),
        normal(rng, (5,)) * 0.1,
    ),
)
def model_logistic_regression_gd(features, labels, w0):
    # 50 steps of gradient descent on the logistic loss.
    def loss(w):
        logits = features @ w
        return jnp.mean(jax.nn.softplus(logits) - labels * logits)

    def step(w, _):
        value, grad = jax.value_and_grad(loss)(w)
        return w - 0.5 * grad, value

    return lax.scan(step, w0, None, length=50)


@program(
    "model_mlp_train_step",
    args=lambda rng: (
        {
            "w1": normal(rng, (6, 16)) * 0.4,
            "b1": normal(rng, (16,)) * 0.1,
            "w2": normal(rng, (16, 3)) * 0.4,
            "b2": normal(rng, (3,)) * 0.1,
        },
        normal(rng, (8, 6)),
        normal(rng, (8, 3)),
    ),
)
def model_mlp_train_step(params, x, y):
    # One SGD step of a 2-layer MLP; params is a dict pytree (leaves in sorted key order).
    def loss(p):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value


@program(
    "model_attention",
    args=lambda rng: (
        normal(rng, (2, 6, 8)),
        normal(rng, (8, 8)) * 0.3,
        normal(rng, (8, 8)) * 0.3,
        normal(rng, (8, 8)) * 0.3,
    ),
)
def model_attention(x, wq, wk, wv):
    # Causal single-head self-attention over a batch of 2 sequences of 6 tokens.
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(8.0)
    mask = jnp.tril(jnp.ones((6, 6), bool))
    scores = jnp.where(mask, scores, -jnp.inf)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(scores, axis=-1), v)


@program("model_conv1d_pool", args=lambda rng: (normal(rng, (2, 16)), normal(rng, (5,))))
def model_conv1d_pool(signal, kernel):
    # A 'same' convolution written as shifted slices (jnp.convolve, which lowers to the
    # `convolution` op, is in progs_conv.py).
    padded = jnp.pad(signal, ((0, 0), (2, 2)))
    smoothed = sum(kernel[4 - k] * padded[:, k : k + signal.shape[1]] for k in range(5))
    return smoothed, lax.reduce_window(smoothed, -jnp.inf, lax.max, (1, 4), (1, 4), "VALID")


@program(
    "model_vmap_langevin",
    args=lambda rng: (jax.random.split(jax.random.PRNGKey(4), 64), normal(rng, (64, 2))),
)
def model_vmap_langevin(keys, x0):
    # 64 independent Langevin chains (vmap over keys), 30 steps each, on a banana density.
    def log_p(x):
        return -0.5 * (x[0] ** 2 + (x[1] - x[0] ** 2) ** 2 * 4.0)

    def chain(key, x):
        def step(state, _):
            key, x = state
            key, sub = jax.random.split(key)
            x = x + 0.01 * jax.grad(log_p)(x) + jnp.sqrt(0.02) * jax.random.normal(sub, (2,))
            return (key, x), None

        return lax.scan(step, (key, x), None, length=30)[0][1]

    return jax.vmap(chain)(keys, x0)


@program(
    "model_vjp_fixed_point",
    args=lambda rng: (
        normal(rng, (4, 8)) * 0.4,
        normal(rng, (8, 2)) * 0.4,
        normal(rng, (2,)),
        normal(rng, (4,)),
    ),
)
def model_vjp_fixed_point(w1, w2, z, x0):
    # The seed thread's inner loop: x <- x + k * f_bwd(z - f(x)), with f a small MLP and
    # f_bwd its vector-Jacobian product, 25 steps of a scan.
    def f(x):
        return jax.nn.sigmoid(jax.nn.softplus(x @ w1) @ w2)

    def step(x, _):
        fx, f_bwd = jax.vjp(f, x)
        (update,) = f_bwd(z - fx)
        x = x + 0.5 * update
        return x, jnp.sum((z - fx) ** 2)

    return lax.scan(step, x0, None, length=25)


@program("model_diffrax_vdp", args=lambda rng: (uniform(rng, (2,), 0.5, 2.0), np.float32(1.5)))
def model_diffrax_vdp(y0, mu):
    # diffrax as its users call it: a Tsit5 solve of the Van der Pol oscillator, saved at 6 times
    # (dense interpolation between steps). throw=True (the default) checks the solve with
    # equinox's error_if: host callbacks in branches that only a failed solve takes. Constant
    # steps: with an adaptive controller the step sizes come from error estimates that cancel
    # almost all their bits, so a last-bit difference in Tsit5's stage dot (XLA:CPU's GEMV order
    # is not loopfuse's) moves the solution by up to the controller's tolerance, beyond f32's
    # (tests/python/test_jit_host_callbacks.py checks an adaptive solve against that tolerance).
    import diffrax

    def vector_field(t, y, mu):
        return jnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])

    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(vector_field),
        diffrax.Tsit5(),
        t0=0.0,
        t1=1.0,
        dt0=0.1,
        y0=y0,
        args=mu,
        saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, 1.0, 6)),
        max_steps=64,
    )
    return solution.ys, solution.stats["num_steps"]


@program("model_blackjax_nuts_vmap", args=lambda rng: (jax.random.split(jax.random.PRNGKey(7), 8),))
def model_blackjax_nuts_vmap(keys):
    # blackjax's NUTS as its users run several chains: jax.vmap over keys of a lax.scan of
    # nuts.step (12 steps) on a correlated Gaussian. Each step builds a trajectory with while
    # loops whose chains stop at different times (the U-turn test per chain).
    import blackjax

    precision = jnp.array([[2.0, 0.9, 0.0], [0.9, 1.5, 0.3], [0.0, 0.3, 1.0]])

    def logdensity(x):
        return -0.5 * x["z"] @ precision @ x["z"] - 0.5 * jnp.sum(x["w"] ** 2)

    nuts = blackjax.nuts(logdensity, step_size=0.4, inverse_mass_matrix=jnp.ones(5))

    def chain(key):
        state = nuts.init({"z": jnp.ones(3), "w": jnp.zeros(2)})

        def step(state, key):
            state, info = nuts.step(key, state)
            return state, (state.position["z"], info.num_integration_steps)

        return lax.scan(step, state, jax.random.split(key, 12))[1]

    return jax.vmap(chain)(keys)


def _cnn_logits(params, images):
    w1, w2 = params
    h = lax.conv_general_dilated(
        images, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    h = lax.reduce_window(jax.nn.relu(h), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return h.reshape(h.shape[0], -1) @ w2


@program(
    "model_cnn_maxpool_sgd",
    args=lambda rng: (
        normal(rng, (3, 3, 1, 4)) * np.float32(0.3),
        normal(rng, (64, 3)) * np.float32(0.1),
        normal(rng, (8, 8, 8, 1)),
        np.arange(8, dtype=np.int32) % 3,
    ),
)
def model_cnn_maxpool_sgd(w1, w2, images, labels):
    # 20 SGD steps of a convolution, relu, 2x2 max pool and a dense layer on 8 images: the
    # pooling's gradient is select-and-scatter inside the loop.
    def loss(params):
        logp = jax.nn.log_softmax(_cnn_logits(params, images))
        return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()

    def step(params, _):
        value, grads = jax.value_and_grad(loss)(params)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value

    return lax.scan(step, (w1, w2), None, length=20)
