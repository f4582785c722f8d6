"""The complex functions JAX leaves as complex HLO ops (tanh, tan, expm1, rsqrt, power) through
lf.jit, against jax.jit on the CPU.

loopfuse computes them as real ops on the (real, imaginary) parts with the formulas of XLA's
elemental IR emitter (src/frontend/import_complex_math.cc), special cases included: tanh
saturating to +-1 with a signed zero imaginary part where the real part is large, zero and
infinite bases in power, NaN and inf parts. The grid plants all of those; the values must agree
within the float tolerances, NaN where jax gives NaN, and zeros with jax's sign.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core

DTYPES = [np.complex64, np.complex128]
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 40.0, -40.0, 400.0, -400.0, 1e-20, -1e-20]
PARTS += [np.inf, -np.inf, np.nan]

UNARY = {
    "tanh": jnp.tanh,
    "tan": jnp.tan,
    "expm1": jnp.expm1,
    "rsqrt": lax.rsqrt,
    "pow_real": lambda z: z**2.5,
    "pow_complex": lambda z: z ** (0.5 + 0.25j),
    "pow_negative": lambda z: z ** (-1.5 - 2j),
    "pow_int": lambda z: lax.pow(z, (jnp.arange(z.size) % 7 - 3).astype(jnp.int32)),
}


def grid(dtype) -> np.ndarray:
    """Every (real, imaginary) pair of PARTS, then random values of both signs."""
    rng = np.random.default_rng(7)
    edges = np.array([complex(r, i) for r in PARTS for i in PARTS], dtype)
    random = rng.standard_normal(40) * 3 + 1j * rng.standard_normal(40) * 3
    return np.concatenate([edges, random.astype(dtype)])


def check(f, *args) -> None:
    with jax.enable_x64(any(np.asarray(a).dtype == np.complex128 for a in args)):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        assert_close(actual, expected, what=getattr(f, "__name__", "f"))
        # Zeros with jax's sign (the tolerance compare cannot see it).
        for a, e in zip(jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected)):
            a, e = np.asarray(a), np.asarray(e)
            if a.dtype.kind != "c":
                continue
            for part in (np.real, np.imag):
                zero = part(e) == 0
                np.testing.assert_array_equal(np.signbit(part(a))[zero], np.signbit(part(e))[zero])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dtype):
    check(UNARY[name], grid(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_power_complex_exponents(dtype):
    # Every base against random exponents, and the zero base, 1 and inf against every exponent.
    z = grid(dtype)
    rng = np.random.default_rng(3)
    w = (rng.standard_normal(z.size) + 1j * rng.standard_normal(z.size)).astype(dtype)
    w[:3] = [0, 0.5, 2]
    check(lambda z, w: z**w, z, w)
    for base in [0, -0.0, 1, np.inf, complex(0, -0.0)]:
        check(lambda z, w: z**w, np.full(z.size, base, dtype), z)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_grad(dtype):
    rng = np.random.default_rng(11)
    z = (rng.standard_normal(12) + 1j * rng.standard_normal(12)).astype(dtype)
    w = (rng.standard_normal(12) * 0.5 + 1j * rng.standard_normal(12) * 0.5).astype(dtype)

    def loss(z, w):
        return (
            jnp.abs(jnp.tanh(z)).sum()
            + jnp.abs(jnp.tan(z * 0.5)).sum()
            + jnp.real(jnp.expm1(z)).sum()
            + jnp.imag(lax.rsqrt(z)).sum()
            + jnp.abs(z**w).sum()
        )

    check(jax.grad(loss, argnums=(0, 1)), z, w)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort(dtype):
    # jnp.sort compares real parts, then imaginary parts (NaN last, -0 equal to 0); loopfuse sorts
    # the parts as two operands with jax's comparator, so the order is jax's, ties stable.
    z = grid(dtype)
    z = z[np.random.default_rng(3).permutation(z.size)]

    def sorts(v):
        return (
            jnp.sort(v),
            jnp.argsort(v, stable=True),
            jnp.sort(v[: v.size // 10 * 10].reshape(10, -1), axis=0, descending=True),
            jnp.sort_complex(v.real.astype(v.dtype)),
            lax.sort((v, jnp.arange(v.size)), num_keys=1),
        )

    check(sorts, z)
    check(jax.vmap(sorts), z[:240].reshape(8, 30))
