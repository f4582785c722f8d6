"""jax.lax.reduce_precision and NaNs through float conversions, bit for bit with jax.jit on CPU.

Inputs are random bit patterns of each float type (so NaNs with payloads, infinities, subnormals
and both zeros all occur), and the oracle is jax.jit on the same inputs. reduce-precision rounds
the mantissa to nearest-even and flushes outside the narrower exponent range; NaN keeps its bits
(a bf16 one is canonicalized, since XLA:CPU computes bf16 in f32 and converts back).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, assert_same_bits, requires_core

pytestmark = requires_core

BITS = {
    jnp.float16: np.uint16,
    jnp.bfloat16: np.uint16,
    jnp.float32: np.uint32,
    jnp.float64: np.uint64,
}

# (exponent_bits, mantissa_bits): bf16 and f16 as JAX's mixed-precision code uses them, small
# formats (fp8-like), no mantissa at all, and widths at or past the source type's (no change).
WIDTHS = [
    (8, 7),
    (5, 10),
    (4, 3),
    (5, 2),
    (1, 0),
    (2, 0),
    (3, 1),
    (8, 23),
    (11, 10),
    (6, 30),
    (11, 52),
]


def random_bits(dtype: type, n: int, seed: int) -> jax.Array:
    """n values of `dtype` with uniformly random bit patterns."""
    ut = BITS[dtype]
    width = np.dtype(ut).itemsize * 8
    rng = np.random.default_rng(seed)
    low = rng.integers(0, 2 ** min(width, 63), size=n, dtype=np.uint64).astype(ut)
    sign = rng.integers(0, 2, size=n).astype(ut) << ut(width - 1)
    return jax.lax.bitcast_convert_type(jnp.asarray(low | sign), dtype)


@pytest.mark.parametrize("widths", WIDTHS, ids=[f"e{e}m{m}" for e, m in WIDTHS])
@pytest.mark.parametrize("dtype", list(BITS), ids=lambda t: np.dtype(t).name)
def test_reduce_precision_bits_equal_jax(dtype: type, widths: tuple[int, int]) -> None:
    exponent_bits, mantissa_bits = widths
    with jax.enable_x64(dtype == jnp.float64):
        x = random_bits(dtype, 20000, seed=exponent_bits * 100 + mantissa_bits)

        def fun(v: jax.Array) -> jax.Array:
            return jax.lax.reduce_precision(v, exponent_bits, mantissa_bits)

        expected = np.asarray(jax.jit(fun)(x))
        actual = np.asarray(lf.jit(fun, fallback="error")(x))
    assert_same_bits(actual, expected, f"reduce_precision{widths} of {np.dtype(dtype).name}")


CONVERSIONS = [(src, dst) for src in BITS for dst in BITS if src != dst]


@pytest.mark.parametrize("n", [1, 5, 4096])  # the scalar tail and the vector body of XLA's loop
@pytest.mark.parametrize(
    "src,dst", CONVERSIONS, ids=[f"{np.dtype(a).name}-{np.dtype(b).name}" for a, b in CONVERSIONS]
)
def test_nan_payloads_through_converts_equal_jax(src: type, dst: type, n: int) -> None:
    with jax.enable_x64(jnp.float64 in (src, dst)):
        x = random_bits(src, n, seed=7)
        # Every element a NaN: all-ones exponent, the random payload made non-zero.
        info = jnp.finfo(src)
        ut = BITS[src]
        exp_mask = ((1 << int(info.nexp)) - 1) << int(info.nmant)
        bits = np.asarray(jax.lax.bitcast_convert_type(x, ut))
        bits = bits | ut(exp_mask) | ut(1)
        nans = jax.lax.bitcast_convert_type(jnp.asarray(bits), src)

        def fun(v: jax.Array) -> jax.Array:
            return v.astype(dst)

        expected = np.asarray(jax.jit(fun)(nans))
        actual = np.asarray(lf.jit(fun, fallback="error")(nans))
    assert_same_bits(actual, expected, f"NaN {np.dtype(src).name} -> {np.dtype(dst).name}")


def simulated_f16_sum(xs: jax.Array) -> jax.Array:
    """A running sum kept in f32 but rounded to f16's precision each step (a mixed-precision
    emulation, as used to study low-precision training)."""

    def step(acc: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        acc = jax.lax.reduce_precision(acc + x, exponent_bits=5, mantissa_bits=10)
        return acc, acc

    return jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)


PROGRAMS: dict[str, Callable[[jax.Array], object]] = {
    "scan": simulated_f16_sum,
    "vmap": jax.vmap(simulated_f16_sum, in_axes=1),
    "while": lambda xs: jax.lax.while_loop(
        lambda c: c[0] < 50,
        lambda c: (c[0] + 1, jax.lax.reduce_precision(c[1] * 1.37 + xs[0], 4, 3)),
        (0, xs[1]),
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_reduce_precision_in_loops_equals_jax(name: str) -> None:
    xs = np.random.default_rng(3).standard_normal((300, 16)).astype(np.float32) * 50
    expected = jax.jit(PROGRAMS[name])(xs)
    actual = lf.jit(PROGRAMS[name], fallback="error")(xs)
    for a, e in zip(jax.tree.leaves(actual), jax.tree.leaves(expected), strict=True):
        assert_same_bits(a, e, name)


def test_grad_through_reduce_precision_equals_jax() -> None:
    # reduce_precision's tangent is reduce_precision of the tangent: grad of a scan of it. The loss
    # sums, and reductions are not bit-exact (README, numerics), so the float tolerance applies.
    def loss(w: jax.Array, xs: jax.Array) -> jax.Array:
        return jnp.sum(simulated_f16_sum(xs * w)[1] ** 2)

    xs = np.random.default_rng(5).standard_normal((64, 8)).astype(np.float32)
    w = np.float32(0.7)
    expected = jax.jit(jax.grad(loss))(w, xs)
    actual = jax.grad(lf.jit(loss, fallback="error"))(w, xs)
    assert_close(actual, expected, what="grad")
