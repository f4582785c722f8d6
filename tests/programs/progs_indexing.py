"""Indexing programs: gather, scatter (with duplicate indices) and sort."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from progs_elementwise import F32_EDGES
from registry import ints, normal, program


@program("gather_take", args=lambda rng: (normal(rng, (10, 4)), ints(rng, (6,), 0, 10)))
def gather_take(x, idx):
    return x[idx], jnp.take(x, idx, axis=0), jnp.take(x[:, 0], idx), x[idx, 2], x[:, idx[:3]]


@program(
    "gather_out_of_bounds",
    args=lambda rng: (normal(rng, (8,)), np.array([0, 7, 8, 12, -1, -9, 3], np.int32)),
)
def gather_out_of_bounds(x, idx):
    # jnp indexing: negative indices wrap once, then clamp; mode="fill" gives NaN out of bounds.
    return (
        x[idx],
        jnp.take(x, idx, mode="clip"),
        jnp.take(x, idx, mode="fill"),
        x.at[idx].get(mode="fill", fill_value=-1.0),
    )


@program("gather_take_along_axis", args=lambda rng: (normal(rng, (5, 7)), ints(rng, (5, 3), 0, 7)))
def gather_take_along_axis(x, idx):
    return jnp.take_along_axis(x, idx, axis=1), jnp.take_along_axis(
        x, jnp.argsort(x, axis=0), axis=0
    )


@program(
    "gather_fancy_2d",
    args=lambda rng: (
        normal(rng, (6, 8)),
        ints(rng, (4,), 0, 6),
        ints(rng, (4,), 0, 8),
        ints(rng, (3, 2), 0, 6),
    ),
)
def gather_fancy_2d(x, rows, cols, block):
    return x[rows, cols], x[rows[:, None], cols[None, :]], x[block], x[1:4][rows % 3, 2:5]


@program(
    "scatter_add_duplicates",
    args=lambda rng: (
        normal(rng, (8,)),
        np.array([0, 3, 3, 7, 3, 0, 5], np.int32),
        normal(rng, (7,)),
    ),
)
def scatter_add_duplicates(x, idx, v):
    # Duplicate indices accumulate with .add; `segment_sum` is the same scatter.
    return (
        x.at[idx].add(v),
        jax.ops.segment_sum(v, idx, num_segments=8),
        jnp.zeros(8, jnp.int32).at[idx].add(1),
    )


@program(
    "scatter_set_max_mul",
    args=lambda rng: (
        normal(rng, (6, 5)),
        ints(rng, (4,), 0, 6),
        normal(rng, (4, 5)),
        np.array([1, 9, -1, 2], np.int32),
    ),
)
def scatter_set_max_mul(x, idx, v, oob):
    # Unique indices for .set (duplicates pick an unspecified update); out-of-bounds updates are dropped.
    unique = jnp.array([0, 2, 5, 3])
    return (
        x.at[unique].set(v),
        x.at[idx].max(v),
        x.at[idx].mul(1.5),
        x.at[idx, 1].min(-1.0),
        x[0].at[oob].set(100.0, mode="drop"),
        x.at[2:4, 1:3].set(0.0),
    )


@program("scatter_2d_points", args=lambda rng: (ints(rng, (12, 2), 0, 5), normal(rng, (12,))))
def scatter_2d_points(points, weights):
    grid = jnp.zeros((5, 5), jnp.float32).at[points[:, 0], points[:, 1]].add(weights)
    counts = jnp.zeros((5, 5), jnp.int32).at[points[:, 0], points[:, 1]].add(1)
    return grid, counts


@program(
    "sort_values",
    args=lambda rng: (
        np.concatenate([F32_EDGES, normal(rng, (32,))]).reshape(4, 16),
        ints(rng, (4, 16), -5, 5),
    ),
)
def sort_values(x, k):
    # NaN sorts last and -0.0 before 0.0 (total order); descending via flip.
    return (
        jnp.sort(x, axis=1),
        jnp.sort(x, axis=0),
        jnp.sort(k, axis=1),
        jnp.sort(x, axis=1, descending=True),
        jnp.sort(k.astype(jnp.uint16), axis=0),
    )


def _complex_keys(rng: np.random.Generator) -> np.ndarray:
    # Repeated real parts (the imaginary part decides), NaN and infinite parts, both zeros.
    re = np.round(normal(rng, (4, 12)) * 1.5)
    im = np.round(normal(rng, (4, 12)) * 1.5)
    re[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
    im[1, :4] = [np.nan, -0.0, 0.0, np.inf]
    z = np.empty(re.shape, np.complex64)  # not re + 1j * im: 1j * inf has a NaN real part
    z.real, z.imag = re, im
    return z


@program("sort_complex", args=lambda rng: (_complex_keys(rng), normal(rng, (4, 12))))
def sort_complex(z, x):
    # jnp.sort of complex numbers: real parts, then imaginary parts, in total order with NaN
    # last and -0 equal to 0; argsort and a complex key carrying a real payload.
    return (
        jnp.sort(z, axis=1),
        jnp.sort(z, axis=0, descending=True),
        jnp.argsort(z.ravel(), stable=True),
        lax.sort((z, x), dimension=1, num_keys=1),
    )


@program("sort_argsort", args=lambda rng: (normal(rng, (3, 10)), ints(rng, (20,), 0, 4)))
def sort_argsort(x, k):
    # argsort is a variadic sort over (keys, iota); stable, so ties keep their order.
    return (
        jnp.argsort(x, axis=1),
        jnp.argsort(k, stable=True),
        jnp.argsort(k, descending=True, stable=True),
        jnp.argsort(-x, axis=0),
    )


@program(
    "sort_multi_operand",
    args=lambda rng: (
        ints(rng, (16,), 0, 4),
        normal(rng, (16,)),
        ints(rng, (16,), 0, 100, np.uint32),
    ),
)
def sort_multi_operand(k, x, u):
    # lax.sort with several operands sorts them all by the first num_keys.
    by_k = lax.sort((k, x, u), num_keys=1)
    by_kx = lax.sort((k, x, u), num_keys=2)
    return by_k, by_kx, lax.sort(u)


@program("sort_topk_median", args=lambda rng: (normal(rng, (4, 9)),))
def sort_topk_median(x):
    return jnp.median(x, axis=1), jnp.quantile(x, 0.25, axis=0), jnp.sort(x, axis=1)[:, -3:]


@program(
    "sort_lax_top_k",
    args=lambda rng: (
        np.concatenate([F32_EDGES, normal(rng, (32,))]).reshape(4, 16),
        ints(rng, (3, 12), -4, 4),
        ints(rng, (20,), 0, 6, np.uint8),
        normal(rng, (2, 3, 7), np.float64),
    ),
    x64=True,
)
def sort_lax_top_k(x, k, u, d):
    # lax.top_k (HLO topk): the K largest along the last axis in total order (NaN first, -0.0
    # after 0.0), ties in index order; integers signed or unsigned; k = n and k = 0.
    return (
        lax.top_k(x, 5),
        lax.top_k(k, 4),
        lax.top_k(u, 20),
        lax.top_k(d, 1),
        lax.top_k(x[0], 0),
        lax.top_k(-x, 3),
    )
