"""rng-bit-generator through lf.jit: jax.random's "rbg" and "unsafe_rbg" keys and
lax.rng_bit_generator, bit for bit with jax.jit on CPU.

The frontend expands the op as XLA's RngBitGeneratorExpander does (Philox4x32-10 for the default
algorithm, ThreeFry on request), so every output word and the returned state must equal XLA's,
across output widths, shapes (ThreeFry splits the output along one dimension) and a counter that
carries into its high half.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import loopfuse as lf
from conftest import assert_close, assert_same_bits, requires_core

pytestmark = requires_core

ALGORITHMS = {
    "default": lax.RandomAlgorithm.RNG_DEFAULT,
    "philox": lax.RandomAlgorithm.RNG_PHILOX,
    "three_fry": lax.RandomAlgorithm.RNG_THREE_FRY,
}
SHAPES = [(), (1,), (3,), (4,), (7,), (33,), (3, 5), (4, 2), (3, 3), (1, 5), (2, 3, 4), (3, 5, 5)]


def random_key(seed: int, *, wrap: bool = False) -> np.ndarray:
    key = np.random.default_rng(seed).integers(0, 2**32, size=4, dtype=np.uint64).astype(np.uint32)
    if wrap:  # the counter's low 64 bits all ones: the next block carries into the high half
        key[2] = key[3] = 0xFFFFFFFF
    return key


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize(
    "dtype", [jnp.uint8, jnp.uint16, jnp.uint32, jnp.uint64], ids=lambda t: np.dtype(t).name
)
@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_bits_and_state_equal_jax(algorithm: str, dtype: type, shape: tuple[int, ...]) -> None:
    with jax.enable_x64(dtype == jnp.uint64):

        def fun(key: jax.Array) -> tuple[jax.Array, jax.Array]:
            return lax.rng_bit_generator(key, shape, dtype=dtype, algorithm=ALGORITHMS[algorithm])

        for wrap in (False, True):
            key = random_key(len(shape) * 7 + np.dtype(dtype).itemsize, wrap=wrap)
            expected = jax.jit(fun)(key)
            actual = lf.jit(fun, fallback="error")(key)
            for name, a, e in zip(("state", "bits"), actual, expected, strict=True):
                assert_same_bits(a, e, f"{algorithm} {np.dtype(dtype).name}{shape} {name}")


def draws(impl: str) -> Callable[[int], tuple[jax.Array, ...]]:
    """What a user does with a key of this implementation: split, fold_in, and draw."""

    def fun(seed: int) -> tuple[jax.Array, ...]:
        key = jax.random.key(seed, impl=impl)
        k1, k2, k3 = jax.random.split(key, 3)
        return (
            jax.random.normal(k1, (5, 3)),
            jax.random.uniform(jax.random.fold_in(k2, 11), (7,)),
            jax.random.bits(k3, (4,), dtype=jnp.uint32),
            jax.random.randint(k1, (6,), 0, 100),
            jax.random.key_data(jax.random.split(k2, 2)),
        )

    return fun


@pytest.mark.parametrize("impl", ["rbg", "unsafe_rbg"])
def test_rbg_keys_equal_jax(impl: str) -> None:
    expected = jax.jit(draws(impl))(3)
    actual = lf.jit(draws(impl), fallback="error")(3)
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert_same_bits(a, e, f"{impl} output {i}")


def langevin(impl: str) -> Callable[[jax.Array, int], tuple[jax.Array, jax.Array]]:
    """Unadjusted Langevin on a Gaussian, the key carried through a scan: one draw per step.
    Returns the final state and every step's noise."""

    def fun(x0: jax.Array, seed: int) -> tuple[jax.Array, jax.Array]:
        def step(
            carry: tuple[jax.Array, jax.Array], _: None
        ) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
            x, key = carry
            key, sub = jax.random.split(key)
            noise = jax.random.normal(sub, x.shape)
            return (x - 0.05 * x + jnp.sqrt(0.1) * noise, key), noise

        (x, _), trace = lax.scan(step, (x0, jax.random.key(seed, impl=impl)), None, length=200)
        return x, trace

    return fun


@pytest.mark.parametrize("impl", ["rbg", "unsafe_rbg"])
def test_rbg_sampler_in_scan_equals_jax(impl: str) -> None:
    x0 = np.linspace(-1, 1, 8, dtype=np.float32)
    expected = jax.jit(langevin(impl))(x0, 5)
    actual = lf.jit(langevin(impl), fallback="error")(x0, 5)
    # The draws are bits; the state's float arithmetic is within the float tolerance (the same
    # program with threefry keys differs from XLA:CPU in last bits too: multiply-add order).
    assert_same_bits(actual[1], expected[1], f"{impl} noise")
    assert_close(actual[0], expected[0], what=f"{impl} state")


def test_rbg_vmapped_over_keys_equals_jax() -> None:
    def chain(key_data: jax.Array) -> jax.Array:
        key = jax.random.wrap_key_data(key_data, impl="rbg")
        return jax.random.normal(key, (16,))

    keys = jax.random.key_data(jax.random.split(jax.random.key(0, impl="rbg"), 32))
    expected = jax.jit(jax.vmap(chain))(keys)
    actual = lf.jit(jax.vmap(chain), fallback="error")(keys)
    assert_same_bits(actual, expected, "vmap")
