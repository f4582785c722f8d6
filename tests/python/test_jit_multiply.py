"""Multiplies by constants through lf.jit: XLA's constant reassociation, bit for bit with jax.jit.

XLA's simplifier folds (A * K1) * K2 into A * (K1 * K2) and (A * K1) * broadcast(B) into
A * broadcast(B * K1) (src/passes/multiply.h), so `0.3 * (1.7 * x)` is x * 0.51000005 under
jax.jit: 38% of f32 results differ from the two roundings. The oracle is jax.jit on the same
inputs; the "stays" cases are the products XLA leaves alone, which must stay too.
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

Fun = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]

PATTERNS: dict[str, Fun] = {
    "c*(c*x)": lambda x, y, s: 0.3 * (1.7 * x),
    "(x*c)*c": lambda x, y, s: (x * 1.7) * 0.3,
    "three constants": lambda x, y, s: 0.3 * (1.7 * (2.9 * x)),
    "c*(c*sin)": lambda x, y, s: 0.3 * (1.7 * jnp.sin(x)),
    "(x*c)*s": lambda x, y, s: (x * 1.7) * s,
    "(X*c)*row": lambda x, y, s: (x.reshape(100, 100) * 1.7) * y[:100][None, :],
    "(X*c)*column": lambda x, y, s: (x.reshape(100, 100) * 1.7) * y[:100][:, None],
    "c*(x/3)": lambda x, y, s: 1.7 * (x / 3.0),
    "(x*c)/3": lambda x, y, s: (x * 1.7) / 3.0,
    "(x*c)/s": lambda x, y, s: (x * 1.7) / s,
    "other use": lambda x, y, s: (0.3 * (1.7 * x)) + 1.7 * x,
    "in a loop": lambda x, y, s: jax.lax.fori_loop(0, 3, lambda i, v: 0.3 * (1.7 * v), x),
    "scaled uniform": lambda x, y, s: 0.7 * (1.3 * jax.random.uniform(jax.random.key(0), x.shape)),
    # Left alone by XLA:
    "stays (x*c)*(y*c)": lambda x, y, s: (x * 1.7) * (y * 0.3),
    "stays (x*s)*c": lambda x, y, s: (x * s) * 1.7,
    "stays (x*c)*y": lambda x, y, s: (x * 1.7) * y,
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64], ids=lambda t: np.dtype(t).name
)
def test_constant_multiplies_equal_jax_bits(name: str, dtype: type) -> None:
    if name == "scaled uniform" and dtype != np.float32:
        pytest.skip("the uniform is drawn in f32")
    with jax.enable_x64(dtype == np.float64):
        rng = np.random.default_rng(3)
        x, y = (rng.standard_normal(10_000).astype(dtype) for _ in range(2))
        s = dtype(1.37)
        expected = np.asarray(jax.jit(PATTERNS[name])(x, y, s))
        actual = np.asarray(lf.jit(PATTERNS[name], fallback="error")(x, y, s))
    assert_same_bits(actual, expected, name)


def test_bf16_products_are_left_alone_as_in_xla() -> None:
    def fun(x: jax.Array) -> jax.Array:
        return (0.3 * (1.7 * x.astype(jnp.bfloat16))).astype(jnp.float32)

    x = np.random.default_rng(4).standard_normal(10_000).astype(np.float32)
    assert_same_bits(lf.jit(fun, fallback="error")(x), jax.jit(fun)(x), "bf16")
