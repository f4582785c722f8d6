"""Reduction and contraction programs: reduce, variadic reduce, reduce-window, cumulative ops, dot."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import dot_forms
from progs_elementwise import F32_EDGES
from registry import ints, normal, program, uniform


@program("reduce_sum_axes", args=lambda rng: (normal(rng, (3, 4, 5)),))
def reduce_sum_axes(x):
    return (
        x.sum(),
        x.sum(axis=0),
        x.sum(axis=(0, 2)),
        x.mean(axis=1),
        x.var(axis=2),
        jnp.linalg.norm(x, axis=-1),
    )


@program("reduce_max_min_prod", args=lambda rng: (normal(rng, (6, 7)), ints(rng, (6, 7), -50, 50)))
def reduce_max_min_prod(x, k):
    return (
        x.max(axis=1),
        x.min(axis=0),
        x.max(),
        jnp.prod(x[:, :3] + 1.0, axis=1),
        k.max(axis=0),
        k.min(axis=1),
        jnp.prod(k[:2] % 5 + 1, axis=0),
        k.sum(axis=1),
    )


@program("reduce_nan_edges", args=lambda rng: (F32_EDGES.reshape(4, 8),))
def reduce_nan_edges(x):
    # max/min propagate NaN; sums of infinities of both signs give NaN.
    return x.max(axis=1), x.min(axis=1), x.sum(axis=0), jnp.nanmax(x, axis=1), jnp.argmax(x, axis=1)


@program("reduce_any_all", args=lambda rng: (rng.random((5, 6)) < 0.8, normal(rng, (5, 6))))
def reduce_any_all(p, x):
    return (
        p.all(axis=1),
        p.any(axis=0),
        p.all(),
        (x > 1.5).any(axis=1),
        jnp.count_nonzero(p, axis=0),
    )


@program(
    "reduce_argmax_argmin",
    args=lambda rng: (normal(rng, (6, 9)), ints(rng, (6, 9), 0, 4, np.uint8)),
)
def reduce_argmax_argmin(x, k):
    # Variadic reduce over (value, index) pairs; ties pick the lowest index.
    return (
        jnp.argmax(x, axis=1),
        jnp.argmin(x, axis=0),
        jnp.argmax(k, axis=1),
        jnp.argmin(k, axis=0),
        jnp.argmax(x),
    )


@program("reduce_logsumexp_softmax", args=lambda rng: (normal(rng, (4, 10)) * 5,))
def reduce_logsumexp_softmax(x):
    return jax.nn.logsumexp(x, axis=1), jax.nn.softmax(x, axis=-1), jax.nn.log_softmax(x, axis=0)


@program("reduce_window_pool", args=lambda rng: (normal(rng, (1, 8, 8, 3)),))
def reduce_window_pool(x):
    max_pool = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    avg_pool = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0
    strided_min = lax.reduce_window(
        x, jnp.inf, lax.min, (1, 3, 2, 1), (1, 2, 3, 1), ((0, 0), (1, 1), (0, 1), (0, 0))
    )
    return max_pool, avg_pool, strided_min


def _pool_grad_input(rng: np.random.Generator) -> np.ndarray:
    # Quantized values, so that windows hold ties (select keeps the first maximum), and a NaN.
    x = np.round(normal(rng, (2, 9, 9, 3)) * 2.0).astype(np.float32)
    x[1, 4, 4, 0] = np.nan
    return x


@program(
    "reduce_window_pool_grad",
    args=lambda rng: (_pool_grad_input(rng), normal(rng, (2, 5, 5, 3)), normal(rng, (2, 4, 4, 3))),
)
def reduce_window_pool_grad(x, ct_overlap, ct_disjoint):
    # Max / min pooling's gradients are select-and-scatter: 3x3 windows with stride 2 overlap (an
    # element may take several cotangents, added in window order), 2x2 with stride 2 do not.
    def max_same(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

    def max_valid(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def min_padded(a):
        pads = ((0, 0), (1, 0), (0, 1), (0, 0))
        return lax.reduce_window(a, jnp.inf, lax.min, (1, 2, 3, 1), (1, 2, 2, 1), pads)

    return (
        jax.vjp(max_same, x)[1](ct_overlap)[0],
        jax.vjp(max_valid, x)[1](ct_disjoint)[0],
        jax.grad(lambda a: min_padded(a).sum())(x),
        jax.grad(lambda a: jnp.sum(max_valid(a[:, :8, :8]) ** 2))(x),
    )


@program("reduce_cumulative", args=lambda rng: (normal(rng, (5, 12)), ints(rng, (5, 12), -3, 4)))
def reduce_cumulative(x, k):
    # cumsum & co. lower to reduce-window on the CPU (and to an HLO `scan` on CUDA).
    return (
        jnp.cumsum(x, axis=1),
        jnp.cumprod(1 + 0.1 * x, axis=0),
        lax.cummax(x, axis=1),
        lax.cummin(x, axis=0, reverse=True),
        jnp.cumsum(k, axis=1),
        lax.cumlogsumexp(x, axis=1),
    )


@program(
    "dot_matmul", args=lambda rng: (normal(rng, (8, 16)), normal(rng, (16, 12)), normal(rng, (12,)))
)
def dot_matmul(a, b, v):
    return a @ b, (a @ b) @ v, jnp.dot(v, b.T), a @ b[:, :1]


@program(
    "dot_general_forms",
    args=lambda rng: (
        normal(rng, (4, 5, 6)),
        normal(rng, (4, 6, 3)),
        normal(rng, (7,)),
        normal(rng, (9,)),
        normal(rng, (6, 5)),
    ),
)
def dot_general_forms(a, b, u, w, m):
    return (
        jnp.einsum("bij,bjk->bik", a, b),  # batched matmul
        jnp.einsum("bij,bik->bjk", a, a),  # batch + contraction over a non-last dim
        jnp.dot(u, u),  # vector dot
        jnp.outer(u, w),  # outer product (no contraction)
        jnp.einsum("ij,kj->ik", m, m),  # contraction over the last dims of both
        jnp.einsum("bij,ji->b", a, m),  # two contracting dims
        jnp.tensordot(a, m, axes=[[1], [1]]),
    )


@program(
    "dot_mixed_precision",
    args=lambda rng: (
        normal(rng, (8, 8)).astype(jnp.bfloat16),
        normal(rng, (8, 8), np.float16),
        ints(rng, (8, 8), -9, 9),
    ),
)
def dot_mixed_precision(b, h, k):
    return (
        jnp.dot(b, b, preferred_element_type=jnp.float32),
        h @ h,
        k @ k,
        lax.dot(b, b),
        jnp.dot(k, k, preferred_element_type=jnp.float32),
    )


@program(
    "dot_f64",
    x64=True,
    args=lambda rng: (normal(rng, (6, 10), np.float64), normal(rng, (10, 4), np.float64)),
)
def dot_f64(a, b):
    return a @ b, jnp.linalg.norm(a @ b), jnp.einsum("ij,ij->j", a, a)


@program(
    "reduce_variance_layernorm",
    args=lambda rng: (
        normal(rng, (4, 16)) * 2 + 1,
        uniform(rng, (16,), 0.5, 1.5),
        normal(rng, (16,)),
    ),
)
def reduce_variance_layernorm(x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


@program(
    "reduce_custom_init",
    args=lambda rng: (normal(rng, (4, 6)), ints(rng, (4, 6), 0, 1000, np.uint32)),
)
def reduce_custom_init(x, u):
    # lax.reduce with a non-identity init value (counted once per output) and bitwise monoids.
    return (
        lax.reduce(x, np.float32(5.0), lax.add, (0,)),
        lax.reduce(x, np.float32(0.5), lax.max, (1,)),
        lax.reduce(u, np.uint32(0), lax.bitwise_or, (0,)),
        lax.reduce(u, np.uint32(0xFFFFFFFF), lax.bitwise_and, (1,)),
        lax.reduce(u, np.uint32(0), lax.bitwise_xor, (0, 1)),
    )


# Random dot_general forms (tests/programs/dot_forms.py; the float32 and int32 ones from seed 2000)
# in one program, so that the C++ tests run them on the CPU, the emulated CUDA kernel and NVRTC
# against jax.jit at the corpus tolerance (the pytest test_jit_dot_forms.py checks more forms, and
# float64 and bfloat16 ones, against float64 with an error bound).
def _register_dot_forms(name: str, first_seed: int, count: int) -> None:
    forms = []
    for seed in range(first_seed, first_seed + 100 * count):
        form = dot_forms.draw_form(seed)
        lhs, rhs, bias = dot_forms.inputs(form, seed)
        # The npz holds inputs and outputs: small forms only (the corpus' size limit).
        if form.dtype in ("float32", "int32") and lhs.size + rhs.size + 2 * bias.size <= 2400:
            forms.append((seed, form))
        if len(forms) == count:
            break

    def fn(*args):
        return tuple(
            dot_forms.function(form)(*args[3 * i : 3 * i + 3]) for i, (_, form) in enumerate(forms)
        )

    def make_args(rng):
        return tuple(a for seed, form in forms for a in dot_forms.inputs(form, seed))

    program(name, args=make_args)(fn)


_register_dot_forms("dot_random_forms", 2000, 16)
