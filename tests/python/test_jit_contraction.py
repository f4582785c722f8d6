"""Multiply-add contraction through lf.jit: XLA:CPU's fma, bit for bit.

XLA's LLVM backend fuses a multiply into the add or subtract that is its only use
(src/passes/contract.h); f16 only where the CPU has f16 arithmetic. The oracle is jax.jit on the same inputs; every case below differs
from the unfused result on thousands of the 20,000 inputs, so a missing (or extra, or
differently ordered) fma fails it. The jax.random samplers built on such arithmetic
(normal's scaling of uniform bits into (-1, 1), erf_inv's Horner steps) follow.
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


def first(x: jax.Array) -> jax.Array:
    return jnp.broadcast_to(x[0], x.shape)


CONSTANT = np.random.default_rng(5).standard_normal(20_000)

CASES: dict[str, Callable[..., jax.Array]] = {
    "a*b+c": lambda a, b, c, d: a * b + c,
    "c+a*b": lambda a, b, c, d: c + a * b,
    "a*b-c": lambda a, b, c, d: a * b - c,
    "c-a*b": lambda a, b, c, d: c - a * b,
    "a*b+c*d": lambda a, b, c, d: a * b + c * d,
    "a*b-c*d": lambda a, b, c, d: a * b - c * d,
    "-(a*b)+c": lambda a, b, c, d: -(a * b) + c,
    "-(a*b)-c": lambda a, b, c, d: -(a * b) - c,
    "c-(-(a*b))": lambda a, b, c, d: c - (-(a * b)),
    "(a*b)*c+d": lambda a, b, c, d: (a * b) * c + d,
    "a*b+c+d": lambda a, b, c, d: a * b + c + d,
    "a*3+c": lambda a, b, c, d: a * 3.0 + c,
    "a*b[0]+c": lambda a, b, c, d: a * b[0] + c,
    # tanh, not exp: f32 exp matches XLA's only to one ulp (README, numerics); tanh is exact.
    "tanh(a*b+c)": lambda a, b, c, d: jnp.tanh(a * b + c),
    "sqrt(a*a+b*b)": lambda a, b, c, d: jnp.sqrt(a * a + b * b),
    # Not fused by XLA: a shared multiply, and a product of two broadcast scalars.
    "(m+c)*(m+d)": lambda a, b, c, d: (lambda m: (m + c) * (m + d))(a * b),
    "(m+c)*m": lambda a, b, c, d: (lambda m: (m + c) * m)(a * b),
    "b0*b1+c": lambda a, b, c, d: first(a) * first(b) + c,
    "b0*b1+c*d": lambda a, b, c, d: first(a) * first(b) + c * d,
    # XLA constant-folds a product of constants before it could fuse.
    "K*1.7+a": lambda a, b, c, d: jnp.asarray(CONSTANT, a.dtype) * 1.7 + a,
    "K*K+a": lambda a, b, c, d: jnp.asarray(CONSTANT, a.dtype) * jnp.asarray(CONSTANT[::-1]) + a,
}


@pytest.mark.parametrize("name", sorted(CASES))
# f16: fused where the CPU has f16 arithmetic (AVX512-FP16), two roundings elsewhere, as XLA's.
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_multiply_add_bits_equal_jax(name: str, dtype: type) -> None:
    rng = np.random.default_rng(11)
    args = [rng.standard_normal(20_000).astype(dtype) for _ in range(4)]
    with jax.enable_x64(dtype == np.float64):
        fun = CASES[name]
        expected = np.asarray(jax.jit(fun)(*args))
        actual = np.asarray(lf.jit(fun, fallback="error")(*args))
    assert_same_bits(actual, expected, name)


# f64 exp ends in a select (its overflow and underflow results) in XLA's LLVM IR, and LLVM moves
# a multiply by a constant (and an add, divide, ... with a constant) into the select's arms: these
# adds read a select and do not fuse; a factor that is not a constant still fuses.
F64_EXP_CASES: dict[str, Callable[..., jax.Array]] = {
    "0.01*exp(a)+b": lambda a, b, c: 0.01 * jnp.exp(a) + b,
    "b-0.5*exp(-a)": lambda a, b, c: b - 0.5 * jnp.exp(-a),
    "0.3/(1+exp(-a))+b": lambda a, b, c: 0.3 / (1.0 + jnp.exp(-a)) + b,
    "0.3*sigmoid(a)+b": lambda a, b, c: 0.3 * jax.nn.sigmoid(a) + b,
    "(exp(a)+1)*0.3+b": lambda a, b, c: (jnp.exp(a) + 1.0) * 0.3 + b,
    "2*exp(0.5*a)+b": lambda a, b, c: 2.0 * jnp.exp(0.5 * a) + b,
    "exp(a)*c+b": lambda a, b, c: jnp.exp(a) * c + b,
    "0.01*exp(a)*c+b": lambda a, b, c: 0.01 * jnp.exp(a) * c + b,
}


@pytest.mark.parametrize("name", sorted(F64_EXP_CASES))
def test_f64_exp_times_a_constant_bits_equal_jax(name: str) -> None:
    rng = np.random.default_rng(12)
    args = [rng.standard_normal(20_000) for _ in range(3)]
    with jax.enable_x64(True):
        fun = F64_EXP_CASES[name]
        expected = np.asarray(jax.jit(fun)(*args))
        actual = np.asarray(lf.jit(fun, fallback="error")(*args))
    assert_same_bits(actual, expected, name)


# f32 exp ends in a multiply by 2^k, which LLVM fuses into an add whose left operand the exp is
# (exact, a power of two): the right operand's product then rounds on its own.
F32_EXP_CASES: dict[str, Callable[..., jax.Array]] = {
    "exp(a)+0.3*b": lambda a, b, c: jnp.exp(a) + 0.3 * b,
    "exp(a)-c*b": lambda a, b, c: jnp.exp(a) - c * b,
    "exp(a)+c*b": lambda a, b, c: jnp.exp(a) + c * b,
    "0.3*b+exp(a)": lambda a, b, c: 0.3 * b + jnp.exp(a),
}


@pytest.mark.parametrize("name", sorted(F32_EXP_CASES))
def test_f32_exp_plus_a_product_bits_equal_jax(name: str) -> None:
    rng = np.random.default_rng(13)
    a, b, c = (rng.standard_normal(20_000).astype(np.float32) for _ in range(3))
    # Only where loopfuse's exp itself has XLA's bits (it differs in one ulp on 1 value in 1,000).
    same_exp = np.asarray(lf.jit(jnp.exp)(a)) == np.asarray(jax.jit(jnp.exp)(a))
    fun = F32_EXP_CASES[name]
    expected = np.asarray(jax.jit(fun)(a, b, c))[same_exp]
    actual = np.asarray(lf.jit(fun, fallback="error")(a, b, c))[same_exp]
    assert same_exp.mean() > 0.99
    assert_same_bits(actual, expected, name)


def test_a_scan_carry_update_is_fused_every_step() -> None:
    def body(x: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        y = x * 1.1 + 0.3
        return y, y

    x = np.random.default_rng(1).standard_normal(4096).astype(np.float32)
    fun = jax.jit(lambda x: jax.lax.scan(body, x, None, length=7))
    expected = fun(x)
    actual = lf.jit(lambda x: jax.lax.scan(body, x, None, length=7), fallback="error")(x)
    for e, a in zip(jax.tree.leaves(expected), jax.tree.leaves(actual), strict=True):
        np.testing.assert_array_equal(np.asarray(a).view(np.uint32), np.asarray(e).view(np.uint32))


SAMPLERS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "normal": lambda k: jax.random.normal(k, (50_000,)),
    "uniform(-3, 5)": lambda k: jax.random.uniform(k, (50_000,), minval=-3.0, maxval=5.0),
    "gamma": lambda k: jax.random.gamma(k, 2.5, (20_000,)),
    "t": lambda k: jax.random.t(k, 4.0, (20_000,)),
    "rayleigh": lambda k: jax.random.rayleigh(k, 1.5, (20_000,)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
@pytest.mark.parametrize("x64", [False, True])
def test_samplers_equal_jax_random_bits(name: str, x64: bool) -> None:
    with jax.enable_x64(x64):
        key = jax.random.key(3)
        expected = np.asarray(jax.jit(SAMPLERS[name])(key))
        actual = np.asarray(lf.jit(SAMPLERS[name], fallback="error")(key))
    assert_same_bits(actual, expected, name)
