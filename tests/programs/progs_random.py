"""jax.random programs (threefry2x32). Keys are passed as raw uint32[2] arrays, as PRNGKey makes them.

On the CPU threefry lowers to a 5-trip while loop; on CUDA to an unrolled out-of-line
`call`, or with jax_threefry_gpu_kernel_lowering to the custom call cu_threefry2x32_ffi.
"""

import jax
import jax.numpy as jnp
import numpy as np

from jax import lax
from registry import normal, program, prng_key


@program("random_split_fold_in", args=lambda rng: (prng_key(42), np.uint32(7)))
def random_split_fold_in(key, data):
    a, b = jax.random.split(key)
    many = jax.random.split(b, 5)
    return a, many, jax.random.fold_in(key, data), jax.random.fold_in(many[3], 12345)


@program("random_normal_uniform", args=lambda rng: (prng_key(1234),))
def random_normal_uniform(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return (
        jax.random.normal(k1, (4, 8)),
        jax.random.uniform(k2, (16,)),
        jax.random.uniform(k3, (3, 5), minval=-2.0, maxval=5.0),
    )


@program("random_bernoulli_categorical", args=lambda rng: (prng_key(3), normal(rng, (4, 6))))
def random_bernoulli_categorical(key, logits):
    k1, k2, k3 = jax.random.split(key, 3)
    return (
        jax.random.bernoulli(k1, 0.3, (20,)),
        jax.random.categorical(k2, logits, axis=-1),
        jax.random.categorical(k3, logits, axis=0, shape=(5, 6)),
    )


@program("random_bits_dtypes", args=lambda rng: (prng_key(99),))
def random_bits_dtypes(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return (
        jax.random.bits(k1, (8,), jnp.uint32),
        jax.random.bits(k2, (8,), jnp.uint8),
        jax.random.bits(k3, (8,), jnp.uint16),
        jax.random.randint(k1, (10,), -5, 17),
        jax.random.permutation(k2, 10),
    )


@program("random_bits_x64", x64=True, args=lambda rng: (prng_key(5),))
def random_bits_x64(key):
    k1, k2 = jax.random.split(key)
    return (
        jax.random.bits(k1, (6,), jnp.uint64),
        jax.random.normal(k2, (6,), jnp.float64),
        jax.random.uniform(k1, (3,)),
    )


@program("random_key_data_typed", args=lambda rng: (prng_key(2024),))
def random_key_data_typed(raw):
    # New-style typed keys: wrap the raw bits, split, and unwrap with key_data.
    key = jax.random.wrap_key_data(raw)
    k1, k2 = jax.random.split(key)
    return (
        jax.random.key_data(k1),
        jax.random.key_data(jax.random.fold_in(k2, 3)),
        jax.random.normal(k2, (5,)),
    )


@program("random_in_loop", args=lambda rng: (prng_key(17), normal(rng, (4,))))
def random_in_loop(key, x):
    # A random walk: split the key every step of a fori_loop.
    def body(i, state):
        key, x = state
        key, sub = jax.random.split(key)
        return key, x + 0.1 * jax.random.normal(sub, x.shape)

    return jax.lax.fori_loop(0, 20, body, (key, x))


@program(
    "random_threefry_gpu_kernel",
    args=lambda rng: (prng_key(7),),
    config={"jax_threefry_gpu_kernel_lowering": True},
)
def random_threefry_gpu_kernel(key):
    # With jax_threefry_gpu_kernel_lowering the CUDA HLO calls the cu_threefry2x32_ffi kernel.
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (3, 4)), jax.random.bits(k2, (5,))


@program("random_bf16_f16", args=lambda rng: (prng_key(11),))
def random_bf16_f16(key):
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (8,), jnp.bfloat16), jax.random.uniform(k2, (8,), jnp.float16)


@program("random_vmap_split_inside", args=lambda rng: (prng_key(11), np.float32(0.7)))
def random_vmap_split_inside(key, step):
    # Chains the way a user writes them inside one jitted function: jax.vmap of a Metropolis
    # random walk over jax.random.split(key, 8). No input has the batch: it is made from the iota
    # that split hashes, which batch mapping takes as its start.
    def chain(k):
        def body(_, carry):
            x, k = carry
            k, k_prop, k_accept = jax.random.split(k, 3)
            proposal = x + step * jax.random.normal(k_prop, x.shape)
            log_ratio = -0.5 * (jnp.sum(proposal**2) - jnp.sum(x**2))
            accept = jnp.log(jax.random.uniform(k_accept)) < log_ratio
            return jnp.where(accept, proposal, x), k

        return lax.fori_loop(0, 40, body, (jnp.zeros(3), k))[0]

    return jax.vmap(chain)(jax.random.split(key, 8))


@program("random_rbg_keys", args=lambda rng: (np.int32(31),))
def random_rbg_keys(seed):
    # jax.random with the "rbg" and "unsafe_rbg" implementations: rng-bit-generator (XLA's Philox)
    # for the draws, and for unsafe_rbg's split and fold_in too.
    out = []
    for impl in ("rbg", "unsafe_rbg"):
        key = jax.random.key(seed, impl=impl)
        k1, k2 = jax.random.split(key)
        out += [
            jax.random.bits(k1, (9,), dtype=jnp.uint32),
            jax.random.bits(jax.random.fold_in(k2, 5), (2, 3), dtype=jnp.uint8),
            jax.random.normal(k2, (6,)),
            jax.random.key_data(k2),
        ]
    return tuple(out)


@program(
    "random_rng_bit_generator_three_fry", args=lambda rng: (np.arange(4, dtype=np.uint32) * 977,)
)
def random_rng_bit_generator_three_fry(key):
    # ThreeFry splits a 32-bit output along its first even dimension, else its first largest one.
    algorithm = lax.RandomAlgorithm.RNG_THREE_FRY
    state, a = lax.rng_bit_generator(key, (3, 5), dtype=jnp.uint32, algorithm=algorithm)
    state, b = lax.rng_bit_generator(state, (2, 3, 4), dtype=jnp.uint16, algorithm=algorithm)
    return state, a, b
