"""lf.jit under jax.grad, jax.vmap and shard_map, against the same transformations of jax.jit.

The programs all have loops (fori_loop, scan, nested loops), so the backward pass and the batched
program are loops too, compiled by loopfuse as one kernel each.
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, PartitionSpec as P

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


def _normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# Each: (function of float arrays returning a scalar-or-array, argument builder). Gradients are
# taken of the sum of the outputs with respect to every argument.
def damped_sine(x):
    return jax.lax.fori_loop(0, 20, lambda i, v: v * 0.9 + 0.1 * jnp.sin(v), x)


def rnn(w, u, h0, xs):
    def cell(h, x):
        h = jnp.tanh(w @ h + u * x)
        return h, h.sum()

    h, ys = jax.lax.scan(cell, h0, xs)
    return h.sum() + (ys**2).sum()


def cumulative_products(a, xs):
    def step(c, x):
        c = c * (1.0 + 0.1 * jnp.tanh(a * x))
        return c, c

    _, ys = jax.lax.scan(step, jnp.ones_like(a), xs)
    return ys


def newton_sqrt(a):
    return jax.lax.fori_loop(0, 8, lambda i, y: 0.5 * (y + a / y), jnp.ones_like(a) + a)


def leapfrog(q, p, k):
    def step(state, _):
        q, p = state
        p = p - 0.05 * k * q
        q = q + 0.1 * p
        p = p - 0.05 * k * q
        return (q, p), q[0]

    (q, p), trace = jax.lax.scan(step, (q, p), None, length=25)
    return 0.5 * (p**2).sum() + 0.5 * (k * q**2).sum() + trace.sum()


def affine_iteration(m, b, x):
    return jax.lax.fori_loop(0, 6, lambda i, v: jnp.tanh(m @ v * 0.5 + b), x)


def reversed_scan(xs, c0):
    return jax.lax.scan(lambda c, x: (c * 0.8 + jnp.cos(x), c), c0, xs, reverse=True)


def counter_dependent(x):
    return jax.lax.fori_loop(0, 10, lambda i, v: v + jnp.cos(i.astype(v.dtype) * v) * 0.1, x)


def nested_loops(x, ws):
    def outer(c, w):
        inner = jax.lax.fori_loop(0, 3, lambda i, v: jnp.sin(v * w) + v, c)
        return inner, inner.mean()

    return jax.lax.scan(outer, x, ws)


def dict_carry(params, x):
    def step(carry, _):
        h = jnp.tanh(carry["h"] * params["a"] + params["b"])
        return {"h": h, "total": carry["total"] + h.sum()}, None

    out, _ = jax.lax.scan(step, {"h": x, "total": jnp.float32(0.0)}, None, length=12)
    return out["total"]


def softplus_chain(x, y):
    return jax.lax.fori_loop(0, 15, lambda i, v: jax.nn.softplus(v - y) - 0.5, x)


def gaussian_filter(noise, ys):
    # A filter's log-likelihood: each step factors the predictive covariance (Cholesky, a LAPACK
    # custom call) and whitens the observation by a triangular solve.
    def step(carry, y):
        cov, mean, total = carry
        s = cov + noise @ noise.T + jnp.eye(3)
        low = jnp.linalg.cholesky(s)
        z = jax.scipy.linalg.solve_triangular(low, y - mean, lower=True)
        total = total + 0.5 * z @ z + jnp.sum(jnp.log(jnp.diag(low)))
        return (0.5 * s, 0.9 * mean + 0.1 * y, total), z

    (_, _, total), zs = jax.lax.scan(step, (jnp.eye(3), jnp.zeros(3), jnp.float32(0.0)), ys)
    return total + 0.1 * zs.sum()


def conv_relaxation(x, k):
    # Ten steps of x <- x + 0.1 * tanh(conv(x, k)): a convolution (the `convolution` op) in a loop.
    def step(i, x):
        y = jax.lax.conv_general_dilated(x[None, None], k[None, None], (1,), "SAME")[0, 0]
        return x + 0.1 * jnp.tanh(y)

    return jax.lax.fori_loop(0, 10, step, x)


LOOP_PROGRAMS = {
    "damped_sine": (damped_sine, lambda r: (_normal(r, 8),)),
    "rnn": (rnn, lambda r: (_normal(r, 4, 4) * 0.5, _normal(r, 4), _normal(r, 4), _normal(r, 6))),
    "cumulative_products": (cumulative_products, lambda r: (_normal(r, 3), _normal(r, 7, 3))),
    "newton_sqrt": (newton_sqrt, lambda r: (np.abs(_normal(r, 5)) + 0.5,)),
    "leapfrog": (leapfrog, lambda r: (_normal(r, 3), _normal(r, 3), np.abs(_normal(r, 3)) + 0.5)),
    "affine_iteration": (
        affine_iteration,
        lambda r: (_normal(r, 4, 4), _normal(r, 4), _normal(r, 4)),
    ),
    "reversed_scan": (reversed_scan, lambda r: (_normal(r, 9, 2), _normal(r, 2))),
    "counter_dependent": (counter_dependent, lambda r: (_normal(r, 6),)),
    "nested_loops": (nested_loops, lambda r: (_normal(r, 3), _normal(r, 5, 3))),
    "dict_carry": (dict_carry, lambda r: ({"a": _normal(r, 4), "b": _normal(r, 4)}, _normal(r, 4))),
    "softplus_chain": (softplus_chain, lambda r: (_normal(r, 5), _normal(r, 5))),
    "gaussian_filter": (gaussian_filter, lambda r: (_normal(r, 3, 3) * 0.5, _normal(r, 6, 3))),
    "conv_relaxation": (conv_relaxation, lambda r: (_normal(r, 12), _normal(r, 3) * 0.5)),
}


def _loss(fun):
    def loss(*args):
        leaves = jax.tree_util.tree_leaves(fun(*args))
        return sum(jnp.sum(leaf) for leaf in leaves)

    return loss


@pytest.mark.parametrize("name", sorted(LOOP_PROGRAMS))
def test_grad_matches_jax(name: str) -> None:
    fun, make_args = LOOP_PROGRAMS[name]
    args = make_args(_rng(name))
    argnums = tuple(range(len(args)))
    expected = jax.jit(jax.grad(_loss(fun), argnums=argnums))(*args)
    compiled = lf.jit(fun, fallback="error")
    actual = jax.grad(_loss(compiled), argnums=argnums)(*args)
    # Gradients through 6-25 iterations accumulate more rounding than a forward pass.
    assert_close(actual, expected, what=f"grad {name}", scale=10.0)
    # value_and_grad under jax.jit, the usual training-step shape.
    value, grads = jax.jit(jax.value_and_grad(_loss(compiled), argnums=argnums))(*args)
    assert_close(grads, expected, what=f"jit(value_and_grad) {name}", scale=10.0)
    assert_close(value, jax.jit(_loss(fun))(*args), what=f"value {name}")


@pytest.mark.parametrize("name", sorted(LOOP_PROGRAMS))
def test_vmap_matches_jax(name: str) -> None:
    fun, make_args = LOOP_PROGRAMS[name]
    rng = _rng(name)
    batch = 5
    per_example = [make_args(rng) for _ in range(batch)]
    batched = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *per_example)
    # The first argument batched, the rest shared (in_axes None), and everything batched.
    shared = (0,) + (None,) * (len(batched) - 1)
    shared_args = (batched[0],) + tuple(per_example[0][1:])
    compiled = lf.jit(fun, fallback="error")
    for in_axes, args in ((0, batched), (shared, shared_args)):
        expected = jax.jit(jax.vmap(fun, in_axes=in_axes))(*args)
        actual = jax.vmap(compiled, in_axes=in_axes)(*args)
        assert_close(actual, expected, what=f"vmap {name} in_axes={in_axes}")


def test_vmap_compiles_one_batched_kernel_not_a_loop_over_the_batch() -> None:
    compiled = lf.jit(damped_sine, fallback="error")
    xs = np.linspace(-1, 1, 64 * 8, dtype=np.float32).reshape(64, 8)
    text = jax.jit(jax.vmap(compiled)).lower(xs).as_text()
    calls = [line for line in text.splitlines() if "loopfuse_cpu" in line]
    assert len(calls) == 1, calls
    assert "tensor<64x8xf32>" in calls[0]  # the kernel takes the whole batch
    assert "stablehlo.while" not in text  # and is not called once per example


def test_vmap_of_grad_and_grad_of_vmap() -> None:
    compiled = lf.jit(rnn, fallback="error")
    rng = _rng("vmap_grad")
    w, u, h0 = _normal(rng, 4, 4) * 0.5, _normal(rng, 4), _normal(rng, 4)
    xs = _normal(rng, 3, 6)
    per_xs = jax.vmap(jax.grad(rnn, argnums=0), in_axes=(None, None, None, 0))
    expected = jax.jit(per_xs)(w, u, h0, xs)
    actual = jax.vmap(jax.grad(compiled, argnums=0), in_axes=(None, None, None, 0))(w, u, h0, xs)
    assert_close(actual, expected, what="vmap(grad)", scale=10.0)

    def summed(f):
        return lambda w: jax.vmap(f, in_axes=(None, None, None, 0))(w, u, h0, xs).sum()

    assert_close(
        jax.grad(summed(compiled))(w),
        jax.jit(jax.grad(summed(rnn)))(w),
        what="grad(vmap)",
        scale=10.0,
    )


def test_second_order_grad() -> None:
    compiled = lf.jit(newton_sqrt, fallback="error")
    a = np.float32(2.5)
    expected = jax.grad(jax.grad(newton_sqrt))(a)
    assert_close(jax.grad(jax.grad(compiled))(a), expected, scale=10.0)


def test_grad_with_integer_inputs_and_outputs() -> None:
    def f(x, n):
        y = jax.lax.fori_loop(0, 5, lambda i, v: v * jnp.sin(v + n), x)
        return y, jnp.argmax(y)

    compiled = lf.jit(f, fallback="error")
    x, n = np.linspace(0.1, 1.0, 4, dtype=np.float32), np.int32(3)
    expected = jax.grad(lambda x: f(x, n)[0].sum())(x)
    assert_close(jax.grad(lambda x: compiled(x, n)[0].sum())(x), expected, scale=10.0)


def test_shard_map_over_four_cpu_devices() -> None:
    devices = jax.devices("cpu")
    assert len(devices) >= 4, "conftest asks for 4 host devices"
    mesh = Mesh(np.array(devices[:4]), ("i",))

    def per_shard(x):
        return jax.lax.fori_loop(0, 12, lambda i, v: v * 0.95 + jnp.sin(v), x)

    def sharded(f):
        return jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=P("i")))

    x = np.linspace(-3, 3, 4 * 16, dtype=np.float32).reshape(4 * 4, 4)
    compiled = lf.jit(per_shard, fallback="error")
    assert_close(sharded(compiled)(x), sharded(per_shard)(x))
    # Differentiated inside shard_map too.
    assert_close(
        jax.grad(lambda x: sharded(compiled)(x).sum())(x),
        jax.grad(lambda x: sharded(per_shard)(x).sum())(x),
        scale=10.0,
    )


def _sine_iteration(x, y, n):
    return jax.lax.fori_loop(0, n, lambda i, v: jnp.sin(v * y) + 1.0, x)


def test_function_closing_over_tracers_of_the_enclosing_trace() -> None:
    # An lf.jit function defined inside jax.jit / grad / vmap closes over that trace's values:
    # a float (the rate, differentiated and batched) and an integer (the trip count). They
    # become arguments of the kernel; before, the lowering's extra parameters made every call
    # fail with "the program takes 3 inputs ... the call has 1".
    x = np.linspace(0.1, 1.0, 4, dtype=np.float32)
    calls = []

    def through_lf(y, n):
        f = lf.jit(lambda a: _sine_iteration(a, y, n), fallback="error")
        calls.append(f)
        return f(x)

    def through_jax(y, n):
        return _sine_iteration(x, y, n)

    y, n = np.float32(0.7), np.int32(5)
    assert_close(jax.jit(through_lf)(y, n), through_jax(y, n), what="jit")
    assert_close(
        jax.grad(lambda y: through_lf(y, n).sum())(y),
        jax.grad(lambda y: through_jax(y, n).sum())(y),
        what="grad of the closed-over value",
        scale=10.0,
    )
    ys = np.linspace(0.2, 0.9, 3, dtype=np.float32)
    assert_close(
        jax.vmap(lambda y: through_lf(y, n))(ys),
        jax.vmap(lambda y: through_jax(y, n))(ys),
        what="vmap over the closed-over value",
    )
    ns = np.array([1, 3, 6], np.int32)
    assert_close(
        jax.jit(jax.vmap(lambda n: through_lf(y, n)))(ns),
        jax.vmap(lambda n: through_jax(y, n))(ns),
        what="vmap over the closed-over trip count",
    )
    assert all(f.fallback_count == 0 for f in calls)  # every one ran as a loopfuse kernel
