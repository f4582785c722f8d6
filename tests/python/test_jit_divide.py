"""Divisions through lf.jit: XLA:CPU's reciprocal rewrites, bit for bit.

XLA's algebraic simplifier turns many divisions into multiplications before any code is
emitted (src/passes/divide.h): x / broadcast(s) is x * broadcast(1 / s), x / 3.0 is
x * (1 / 3.0), x / sqrt(y) is x * rsqrt(y), (a / b) / c is a / (b * c). Each changes the last
bit of a third or more of the results, so softmax, means and normalizations differ from
jax.jit unless loopfuse rewrites the same divisions. The oracle is jax.jit on the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_same_bits, requires_core

pytestmark = requires_core

CONSTANT = np.random.default_rng(7).uniform(0.5, 2.0, 20_000)


def rows(x: jax.Array) -> jax.Array:
    return x.reshape(100, 200)


def invariant_divisor(a: jax.Array, b: jax.Array) -> jax.Array:
    # The divisor is a loop-invariant carry: passed through the loop, it has a second use, so
    # XLA keeps the division.
    s = jnp.max(b)
    return jax.lax.fori_loop(0, 3, lambda i, x: x / s + 1.0, a)


CASES: dict[str, Callable[..., jax.Array]] = {
    "a/b": lambda a, b, c, d: a / b,
    "a/b[0]": lambda a, b, c, d: a / b[0],
    "a/max(b)+c": lambda a, b, c, d: a / jnp.max(b) + c,
    "a/3": lambda a, b, c, d: a / 3.0,
    "a/3+c": lambda a, b, c, d: a / 3.0 + c,
    "a/K": lambda a, b, c, d: a / jnp.asarray(CONSTANT, a.dtype),
    "mean(rows)": lambda a, b, c, d: jnp.mean(rows(a)[:, :7], axis=1),
    "a/max(b)": lambda a, b, c, d: a / jnp.max(b),
    "tanh(a)/max(b)": lambda a, b, c, d: jnp.tanh(a) / jnp.max(b),
    "rows/max(cols)": lambda a, b, c, d: rows(a) / jnp.max(rows(b), axis=0),
    "a/sqrt(max(b))": lambda a, b, c, d: a / jnp.sqrt(jnp.max(b)),
    "rows/sqrt(max(rows))": lambda a, b, c, d: rows(a)
    / jnp.sqrt(jnp.max(rows(b), axis=1, keepdims=True)),
    "a/sqrt(b)": lambda a, b, c, d: a / jnp.sqrt(b),
    "a/rsqrt(b)": lambda a, b, c, d: a / jax.lax.rsqrt(b),
    "a/b**c": lambda a, b, c, d: a / b**c,
    "(a/b)/c": lambda a, b, c, d: (a / b) / c,
    "a/(b/c)": lambda a, b, c, d: a / (b / c),
    "(a/b)/(c/d)": lambda a, b, c, d: (a / b) / (c / d),
    "(a>1)/max(b)": lambda a, b, c, d: (a > 1.0).astype(a.dtype) / jnp.max(b),
    "a/s+c/s": lambda a, b, c, d: (lambda s: a / s + c / s)(jnp.max(b)),
    "loop x/max(x)": lambda a, b, c, d: jax.lax.fori_loop(0, 3, lambda i, x: x / jnp.max(x), a),
    "loop x/s": lambda a, b, c, d: invariant_divisor(a, b),
    # A scalar divisor with another use stays a division; a vector's is rewritten anyway (JAX
    # broadcasts it through a reshape of its own: src/passes/divide.h).
    "a/s+s": lambda a, b, c, d: (lambda s: a / s + s)(jnp.max(b)),
    "rows/v+v": lambda a, b, c, d: (lambda v: rows(a) / v[:, None] + v[:, None])(b[:100]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_bits_equal_jax(name: str, dtype: type) -> None:
    rng = np.random.default_rng(13)
    args = [rng.uniform(0.5, 2.0, 20_000).astype(dtype) for _ in range(4)]
    with jax.enable_x64(dtype == np.float64):
        fun = CASES[name]
        expected = np.asarray(jax.jit(fun)(*args))
        actual = np.asarray(lf.jit(fun, fallback="error")(*args))
    assert_same_bits(actual, expected, name)


def test_vmapped_chains_divide_as_xla(monkeypatch: pytest.MonkeyPatch) -> None:
    # The batch stage compiles one group of chains as a program of its own and runs the passes
    # on it again, after CSE merged JAX's two broadcasts of s: the divisions keep the forms
    # that the whole program's run gave them (x / s and y / s stay divisions).
    monkeypatch.setenv("LOOPFUSE_BATCH", "on")

    def chain(x: jax.Array, s: jax.Array) -> jax.Array:
        return jax.lax.fori_loop(0, 5, lambda i, y: y / jnp.max(y) + y / s + x / s, x)

    rng = np.random.default_rng(17)
    x = rng.uniform(0.5, 2.0, (64, 200)).astype(np.float32)
    s = rng.uniform(0.5, 2.0, 64).astype(np.float32)
    fun = jax.vmap(chain)
    lowered = lf.jit(fun, fallback="error").lower(x, s)
    assert "group" in lowered.explain()
    expected = np.asarray(jax.jit(fun)(x, s))
    actual = np.asarray(lf.jit(fun, fallback="error")(x, s))
    assert_same_bits(actual, expected, "vmapped chains")
