"""bf16 arithmetic through lf.jit: XLA:CPU's excess precision, bit for bit.

XLA:CPU computes bf16 ops in f32 and, where the program converts a bf16 result to f32, uses the
f32 result before its rounding to bf16 (src/passes/excess_precision.h). So an f32 output of a
bf16 computation is not a bf16 value, and a softmax computed in bf16 then converted differs
from the bf16 rounding of itself by up to 2^-9 relative: past the f32 tolerance. The oracle is
jax.jit on the same inputs.
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

OPS: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "exp": lambda a, b: jnp.exp(a),
    "log": lambda a, b: jnp.log(a),
    "tanh": lambda a, b: jnp.tanh(a),
    "sqrt": lambda a, b: jnp.sqrt(a),
    "logistic": lambda a, b: jax.nn.sigmoid(a),
    "max": lambda a, b: jnp.maximum(a, b),
    "mul-add": lambda a, b: a * b + a,
}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("half", [jnp.bfloat16, jnp.float16])
def test_half_op_converted_to_f32_bits_equal_jax(name: str, half: type) -> None:
    rng = np.random.default_rng(2)
    x, y = (rng.uniform(0.5, 2.0, 4096).astype(np.float32) for _ in range(2))
    op = OPS[name]

    def fun(a: jax.Array, b: jax.Array) -> jax.Array:
        return op(a.astype(half), b.astype(half)).astype(jnp.float32)

    expected = np.asarray(jax.jit(fun)(x, y))
    actual = np.asarray(lf.jit(fun, fallback="error")(x, y))
    assert_same_bits(actual, expected, name)


CHAINS: dict[str, Callable[[jax.Array], jax.Array]] = {
    # The inner exp feeds a bf16 op, so it is rounded; the outer one is converted, so it is not.
    "exp(exp)": lambda a: jnp.exp(jnp.exp(a.astype(jnp.bfloat16))).astype(jnp.float32),
    "to f64": lambda a: jnp.exp(a.astype(jnp.bfloat16)).astype(jnp.float64),
    "scan": lambda a: jax.lax.scan(
        lambda c, _: ((c * 0.9).astype(jnp.bfloat16).astype(jnp.float32) * 1.01, None),
        jnp.tanh(a.astype(jnp.bfloat16)).astype(jnp.float32),
        None,
        length=4,
    )[0],
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_bf16_chains_equal_jax_bits(name: str) -> None:
    with jax.enable_x64(name == "to f64"):
        x = np.random.default_rng(4).standard_normal(4096).astype(np.float32)
        expected = np.asarray(jax.jit(CHAINS[name])(x))
        actual = np.asarray(lf.jit(CHAINS[name], fallback="error")(x))
    assert_same_bits(actual, expected, name)
