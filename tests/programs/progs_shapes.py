"""Shape programs: reshape, transpose, broadcast, slices, concatenation, padding, iota, barriers, calls."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import index_chains
from registry import ints, normal, program


@program("shapes_transpose_reshape", args=lambda rng: (normal(rng, (2, 3, 4, 5)),))
def shapes_transpose_reshape(x):
    return (
        jnp.transpose(x, (3, 1, 0, 2)),
        x.reshape(6, 20),
        x.reshape(-1)[::7],
        jnp.swapaxes(x, 0, 2).reshape(4, 30),
        x.T.sum(axis=0),
        jnp.moveaxis(x, 1, -1),
    )


@program(
    "shapes_broadcast", args=lambda rng: (normal(rng, (3,)), normal(rng, (4, 1)), normal(rng, ()))
)
def shapes_broadcast(a, b, s):
    return (
        a + b,
        b * s,
        jnp.broadcast_to(a, (2, 4, 3)),
        jnp.outer(a, b[:, 0]),
        a[None, :, None] * b[:, :, None],
    )


@program("shapes_iota", args=lambda rng: (normal(rng, (4, 6)),))
def shapes_iota(x):
    rows = lax.broadcasted_iota(jnp.int32, (4, 6), 0)
    cols = lax.broadcasted_iota(jnp.int32, (4, 6), 1)
    return (
        jnp.arange(10, dtype=jnp.float32) * 0.5 + x[0, 0],
        jnp.where(rows >= cols, x, 0.0),
        jnp.triu(x, 1),
        jnp.eye(4, 6) * x,
        jnp.arange(3, 17, 2, dtype=jnp.uint8),
        jnp.linspace(0, 1, 7),
    )


@program("shapes_slice", args=lambda rng: (normal(rng, (8, 10)),))
def shapes_slice(x):
    return (
        x[1:5, 2:9],
        x[::2, 1::3],
        x[-3:, :-4],
        x[5],
        x[:, 7],
        lax.slice(x, (1, 0), (8, 10), (3, 4)),
    )


@program("shapes_concatenate_pad", args=lambda rng: (normal(rng, (3, 4)), normal(rng, (2, 4))))
def shapes_concatenate_pad(a, b):
    return (
        jnp.concatenate([a, b, a], axis=0),
        jnp.concatenate([a, a * 2], axis=1),
        jnp.stack([a, a + 1]),
        jnp.pad(a, ((1, 2), (0, 3))),
        jnp.pad(a, 1, mode="edge"),
        jnp.pad(b, ((0, 0), (2, 2)), mode="reflect"),
        # Negative low/high padding trims; interior padding interleaves.
        lax.pad(a, np.float32(-1), ((-1, 2, 1), (1, -2, 2))),
    )


@program("shapes_reverse", args=lambda rng: (normal(rng, (4, 5, 3)),))
def shapes_reverse(x):
    return jnp.flip(x, 0), jnp.flip(x, (1, 2)), x[::-1, ::-2], jnp.rot90(x[:, :, 0])


# Index maps composed through fused values: a reverse whose consumer is a slice (jnp.roll of a
# flip), with a start, a stride and a dynamic start; and slices of a reverse of a slice.
@program(
    "shapes_reverse_composed",
    args=lambda rng: (normal(rng, (16,)), normal(rng, (6, 8)), ints(rng, (), -3, 9)),
)
def shapes_reverse_composed(v, m, k):
    return (
        jnp.roll(jnp.flip(v), 3),
        jnp.flip(v)[3:14:2],
        jnp.flip(jnp.flip(v)[2:12]),
        lax.dynamic_slice(jnp.flip(v), (k,), (5,)),
        jnp.flip(lax.dynamic_slice(v, (k,), (5,))),
        jnp.roll(jnp.flip(m, 1), (2, -3), (0, 1)),
        jnp.flip(m[1:5, ::3], (0, 1))[::-1, 1:] * 2.0,
    )


@program(
    "shapes_dynamic_slice",
    args=lambda rng: (normal(rng, (8, 8)), np.int32(3), np.int32(6), np.int32(-2)),
)
def shapes_dynamic_slice(x, i, j, k):
    # Start indices are clamped so that the slice stays in bounds (j=6 with size 4, k<0).
    return (
        lax.dynamic_slice(x, (i, j), (3, 4)),
        lax.dynamic_slice(x, (k, i), (2, 2)),
        lax.dynamic_index_in_dim(x, i, axis=1, keepdims=False),
        x[i],
        lax.dynamic_slice_in_dim(x, j, 5, 0),
    )


@program(
    "shapes_dynamic_update_slice",
    args=lambda rng: (
        normal(rng, (6, 6)),
        normal(rng, (2, 3)),
        np.int32(1),
        np.int32(5),
        np.int32(-3),
    ),
)
def shapes_dynamic_update_slice(x, u, i, j, k):
    return (
        lax.dynamic_update_slice(x, u, (i, i)),
        lax.dynamic_update_slice(x, u, (j, j)),
        lax.dynamic_update_slice(x, u, (k, j)),
        lax.dynamic_update_index_in_dim(x, u[0, 0] * jnp.ones(6), i, 0),
    )


@program("shapes_optimization_barrier", args=lambda rng: (normal(rng, (4, 4)), np.int32(7)))
def shapes_optimization_barrier(x, n):
    y, m = lax.optimization_barrier((jnp.sin(x), n + 1))
    return y * 2, m


@jax.jit
def _shared_block(x, w):
    return jnp.tanh(x @ w)


@program(
    "shapes_nested_jit_call", args=lambda rng: (normal(rng, (4, 8)), normal(rng, (8, 8)) * 0.3)
)
def shapes_nested_jit_call(x, w):
    # Each call of a nested jit becomes an HLO `call` of one shared computation.
    return _shared_block(_shared_block(x, w), w) + _shared_block(x * 2, w)


@program("shapes_tile_repeat", args=lambda rng: (normal(rng, (2, 3)),))
def shapes_tile_repeat(x):
    return jnp.tile(x, (2, 2)), jnp.repeat(x, 2, axis=1), jnp.kron(x, jnp.ones((2, 1), jnp.float32))


@program(
    "shapes_select_where",
    args=lambda rng: (normal(rng, (5, 6)), normal(rng, (5, 6)), ints(rng, (5, 6), 0, 3)),
)
def shapes_select_where(x, y, k):
    return (
        jnp.where(k == 1, x, y),
        lax.select(x > y, x, y),
        jnp.select([k == 0, k == 1], [x, y], 0.5),
        lax.select_n(k, x, y, x * y),
    )


@program(
    "shapes_dynamic_index_types",
    x64=True,
    args=lambda rng: (normal(rng, (6, 5), np.float64), np.int64(4), np.uint32(1), np.int8(-1)),
)
def shapes_dynamic_index_types(x, i, j, k):
    # Start indices of type s64, u32 and s8 (all indices of one op share a type).
    return (
        lax.dynamic_slice(x, (i, i - 3), (2, 3)),
        lax.dynamic_slice(x, (j, j + np.uint32(1)), (4, 2)),
        lax.dynamic_update_slice(x, x[:1, :2] * 10, (k, k + np.int8(3))),
    )


# Forty random chains of data-movement ops and loops (tests/programs/index_chains.py, seeds 1000-1039) in two
# programs (the CUDA target passes at most 64 outputs), so that the C++ tests run them on the CPU,
# the emulated CUDA kernel and NVRTC; k = -2 clamps some dynamic starts (jax.jit agrees with JAX op
# by op on all forty at this k).
def _register_index_chains(name: str, seeds: range) -> None:
    chains = [index_chains.draw_chain(seed) for seed in seeds]

    def fn(*args):
        *xs, k = args
        outs = []
        for x, (_, steps) in zip(xs, chains):
            outs.extend(index_chains.chain_fn(steps)(x, k))
        return tuple(outs)

    program(name, args=lambda rng: (*(x for x, _ in chains), np.int32(-2)))(fn)


_register_index_chains("shapes_index_chains_a", range(1000, 1020))
_register_index_chains("shapes_index_chains_b", range(1020, 1040))
