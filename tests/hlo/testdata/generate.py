"""Writes real JAX HLO text into this folder, for the parser tests (run with the project venv)."""

import pathlib

import jax
import jax.numpy as jnp
from jax import lax

HERE = pathlib.Path(__file__).parent


def scan_cumsum(xs):
    def step(c, x):
        c = c + jnp.sin(x)
        return c, c * 2.0

    return lax.scan(step, jnp.zeros(xs.shape[1:]), xs)


def while_newton(x):
    def cond(s):
        i, v = s
        return (i < 20) & (jnp.abs(v * v - x) > 1e-6)

    def body(s):
        i, v = s
        return i + 1, 0.5 * (v + x / v)

    return lax.while_loop(cond, body, (0, x))


def random_normal(key):
    return jax.random.normal(key, (4, 3))


def conv_and_reduce(x, w):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.max(y, axis=(1, 2)), jnp.argmax(y.reshape(-1))


def gather_cond(x, i):
    g = x[i, 1:3]
    return lax.cond(g.sum() > 0, lambda v: v * 2, lambda v: v - 1, g)


def constants(x):
    c = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 2, 2)
    b = jnp.array([True, False, True])
    return x + c, b, jnp.array([-1, 2**31 - 1], dtype=jnp.int32)


CASES = {
    "scan_cumsum": (scan_cumsum, (jnp.ones((5, 3), jnp.float32),)),
    "while_newton": (while_newton, (jnp.float32(2.0),)),
    "random_normal": (random_normal, (jax.random.key(0),)),
    "conv_reduce": (conv_and_reduce, (jnp.ones((1, 4, 4, 2)), jnp.ones((3, 3, 2, 3)))),
    "gather_cond": (gather_cond, (jnp.ones((4, 5)), jnp.int32(2))),
    "constants": (constants, (jnp.ones((2, 3, 2, 2)),)),
}

for name, (fn, args) in CASES.items():
    lowered = jax.jit(fn).lower(*args)
    (HERE / f"jax_{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
    (HERE / f"xla_compiled_{name}.hlo").write_text(lowered.compile().as_text())
