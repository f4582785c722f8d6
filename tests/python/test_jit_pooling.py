"""Max and min pooling's gradients through lf.jit, against jax.jit on the CPU, bit for bit.

JAX differentiates `lax.reduce_window` with max or min (flax's and haiku's max_pool) into XLA's
select-and-scatter: in each window the first maximum (ties keep the earlier element, a NaN wins)
receives the window's cotangent, added in window order where windows overlap. loopfuse follows
XLA's CPU emitter in that order, so the results are the same bits, also for NaN, ties, padding and
the cotangents several overlapping windows add into one element.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import loopfuse as lf
from conftest import assert_close, assert_same_bits, requires_core

pytestmark = requires_core

# (window, strides, padding) over NHWC images: disjoint windows, overlapping ones, 'SAME' padding
# (which jax writes as a pad before select-and-scatter), explicit uneven padding, a window larger
# than the stride in one dimension only, a 1x1 window.
WINDOWS = [
    ((1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
    ((1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
    ((1, 3, 3, 1), (1, 1, 1, 1), "VALID"),
    ((1, 2, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 0), (0, 1), (0, 0))),
    ((1, 3, 1, 1), (1, 2, 1, 1), "SAME"),
    ((1, 1, 1, 1), (1, 1, 1, 1), "VALID"),
]
DTYPES = [np.float32, np.float64, jnp.bfloat16, np.float16]


def images(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    """Quantized values (windows hold ties), a NaN and both infinities."""
    x = np.round(rng.standard_normal(shape) * 2.0)
    x.flat[7] = np.nan
    x.flat[11] = np.inf
    x.flat[20] = -np.inf
    return x.astype(dtype)


def pool(kind: str, window, strides, padding):
    init, op = (-jnp.inf, lax.max) if kind == "max" else (jnp.inf, lax.min)
    return lambda a: lax.reduce_window(a, init, op, window, strides, padding)


def same_as_jax(f, *args) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype == np.float64 for a in args)):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_same_bits(actual, expected, what=getattr(f, "__name__", "f"))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("window,strides,padding", WINDOWS)
def test_vjp_with_random_cotangents(window, strides, padding, kind: str, dtype) -> None:
    rng = np.random.default_rng(len(str(window)) + 7 * len(str(padding)))
    x = images(rng, (2, 7, 6, 3), dtype)
    f = pool(kind, window, strides, padding)
    with jax.enable_x64(dtype == np.float64):
        out_shape = jax.eval_shape(f, x).shape
    ct = rng.standard_normal(out_shape).astype(dtype)

    def vjp(a, c):
        return jax.vjp(f, a)[1](c)[0]

    same_as_jax(vjp, x, ct)


def test_grad_of_a_pooled_loss_inside_a_scan() -> None:
    # The backward pass of a loop over pooling, compiled by loopfuse through lf.jit's custom_vjp.
    rng = np.random.default_rng(3)
    x = images(rng, (1, 8, 8, 2), np.float32)
    x = np.nan_to_num(x, nan=0.5, posinf=3.0, neginf=-3.0)
    f = pool("max", (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

    def loss(a):
        def step(c, _):
            return c * 0.9 + jnp.tanh(jnp.repeat(jnp.repeat(f(c), 2, 1), 2, 2)), None

        return jnp.sum(lax.scan(step, a, None, length=4)[0] ** 2)

    # tanh and the sum of squares round within the float tolerances, not to XLA's bits.
    expected = jax.jit(jax.grad(loss))(x)
    assert_close(jax.grad(lf.jit(loss, fallback="error"))(x), expected, what="grad")
    assert_close(lf.jit(jax.grad(loss), fallback="error")(x), expected, what="jit(grad)")


def test_vmap_of_the_pooling_gradient() -> None:
    # lf.jit's batching rule compiles the vmapped function: the batch is one more dimension of
    # select-and-scatter's operand and source, with a window of 1 along it.
    rng = np.random.default_rng(5)
    x = images(rng, (4, 1, 6, 6, 2), np.float32)
    f = pool("max", (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def g(a):
        return jax.grad(lambda b: jnp.sum(f(b) * jnp.arange(18.0).reshape(1, 3, 3, 2)))(a)

    expected = jax.jit(jax.vmap(g))(x)
    assert_same_bits(jax.vmap(lf.jit(g, fallback="error"))(x), expected, what="vmap(lf.jit)")


def test_cnn_training_steps() -> None:
    # Convolution, relu, max pool, dense, softmax cross-entropy: ten SGD steps in one kernel.
    rng = np.random.default_rng(9)
    w1 = (rng.standard_normal((3, 3, 1, 4)) * 0.3).astype(np.float32)
    w2 = (rng.standard_normal((64, 3)) * 0.1).astype(np.float32)
    xs = rng.standard_normal((8, 8, 8, 1)).astype(np.float32)
    labels = np.arange(8, dtype=np.int32) % 3

    def train(w1, w2, xs, labels):
        def loss(params):
            a, b = params
            h = lax.conv_general_dilated(
                xs, a, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
            h = pool("max", (1, 2, 2, 1), (1, 2, 2, 1), "VALID")(jax.nn.relu(h))
            logp = jax.nn.log_softmax(h.reshape(8, -1) @ b)
            return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()

        def step(params, _):
            value, grads = jax.value_and_grad(loss)(params)
            return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value

        return lax.scan(step, (w1, w2), None, length=10)

    expected = jax.jit(train)(w1, w2, xs, labels)
    actual = lf.jit(train, fallback="error")(w1, w2, xs, labels)
    # The convolutions' and the dense layer's sums run in another order than XLA's: not bits.
    assert_close(actual, expected, what="train")
