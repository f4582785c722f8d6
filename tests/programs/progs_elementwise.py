"""Elementwise float programs: transcendental functions, rounding, binary ops, edge values."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import normal, program, uniform

NAN, INF = np.float32(np.nan), np.float32(np.inf)
F32_MAX, F32_TINY = np.finfo(np.float32).max, np.finfo(np.float32).tiny
F32_DENORM = np.float32(1e-45)

# Values where float semantics are subtle: signed zeros, infinities, NaN, extremes.
F32_EDGES = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        INF,
        -INF,
        NAN,
        F32_MAX,
        -F32_MAX,
        F32_TINY,
        -F32_TINY,
        F32_DENORM,
        88.7,
        89.0,
        -103.0,
        -88.0,
        1e-8,
        -1e-8,
        20.0,
        -20.0,
        9.5,
        4.0,
        1e30,
        -1e30,
        3.0,
        -7.0,
        0.25,
        2.5,
    ],
    np.float32,
)


def with_edges(rng, shape):
    """Random normal values with every F32_EDGES value planted at the front."""
    x = normal(rng, shape).reshape(-1)
    x[: F32_EDGES.size] = F32_EDGES
    return x.reshape(shape)


@program("elementwise_transcendental", args=lambda rng: (uniform(rng, (8, 16), 0.05, 4.0),))
def elementwise_transcendental(x):
    return (
        jnp.exp(x),
        jnp.expm1(x),
        jnp.log(x),
        jnp.log1p(x),
        jnp.sqrt(x),
        lax.rsqrt(x),
        jnp.cbrt(x),
        jnp.tanh(x),
        jnp.sin(x),
        jnp.cos(x),
        jnp.tan(x),
        lax.erf(x),
    )


@program("elementwise_signed_transcendental", args=lambda rng: (normal(rng, (8, 16)) * 3,))
def elementwise_signed_transcendental(x):
    # Negative arguments: cbrt, tanh, erf, sin are odd; expm1 and log1p near -1.
    return (
        jnp.cbrt(x),
        jnp.tanh(x),
        lax.erf(x),
        jnp.sin(x),
        jnp.cos(x),
        jnp.expm1(x),
        jnp.log1p(jnp.abs(x) - 0.9),
        jnp.arctan2(x, x[::-1]),
    )


@program("elementwise_edge_values", args=lambda rng: (with_edges(rng, (64,)),))
def elementwise_edge_values(x):
    # Large, small, infinite and NaN inputs to every transcendental function.
    return (
        jnp.exp(x),
        jnp.expm1(x),
        jnp.log(x),
        jnp.log1p(x),
        jnp.sqrt(x),
        lax.rsqrt(x),
        jnp.cbrt(x),
        jnp.tanh(x),
        lax.erf(x),
        jnp.sin(x),
        jnp.cos(x),
        jnp.tan(x),
        jnp.isfinite(x),
        jnp.sign(x),
        jnp.abs(x),
        -x,
    )


@program(
    "elementwise_rounding",
    args=lambda rng: (
        np.concatenate(
            [
                with_edges(rng, (32,)),
                np.arange(-4, 4, 0.25, dtype=np.float32),
                normal(rng, (32,)) * 10,
            ]
        ),
    ),
)
def elementwise_rounding(x):
    # Ties (+-0.5, 1.5, -2.5) separate round-half-away-from-zero from round-half-even.
    return (
        jnp.floor(x),
        jnp.ceil(x),
        lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
        jnp.round(x),
        jnp.sign(x),
        jnp.abs(x),
        jnp.trunc(x),
    )


@program(
    "elementwise_binary", args=lambda rng: (normal(rng, (6, 10)) * 4, normal(rng, (6, 10)) * 4)
)
def elementwise_binary(x, y):
    return (
        x + y,
        x - y,
        x * y,
        x / y,
        jnp.fmod(x, y),
        jnp.remainder(x, y),
        jnp.maximum(x, y),
        jnp.minimum(x, y),
        jnp.arctan2(x, y),
        jnp.power(jnp.abs(x), y),
        lax.clamp(-1.0, x, 2.0),
        jnp.where(x > y, x, y * 2),
    )


@program(
    "elementwise_binary_edges",
    args=lambda rng: (with_edges(rng, (32,)), np.roll(with_edges(rng, (32,)), 5)),
)
def elementwise_binary_edges(x, y):
    # NaN, inf and -0.0 in max/min/compare/divide/remainder/power/atan2.
    return (
        jnp.maximum(x, y),
        jnp.minimum(x, y),
        x / y,
        jnp.fmod(x, y),
        jnp.power(x, y),
        jnp.arctan2(x, y),
        x == y,
        x != y,
        x < y,
        x <= y,
        x > y,
        x >= y,
        lax.clamp(np.float32(-1.0), x, np.float32(1.0)),
    )


@program("elementwise_integer_pow", args=lambda rng: (normal(rng, (4, 8)),))
def elementwise_integer_pow(x):
    # x**3 becomes a chain of multiplies, x**-2 a divide; x**2.5 stays a power.
    return x**3, x**-2, jnp.abs(x) ** 2.5, jnp.square(x), jnp.reciprocal(x)


@program("elementwise_activations", args=lambda rng: (normal(rng, (16, 16)) * 3,))
def elementwise_activations(x):
    import jax

    return (
        jax.nn.sigmoid(x),
        jax.nn.softplus(x),
        jax.nn.relu(x),
        jax.nn.gelu(x),
        jax.nn.gelu(x, approximate=False),
        jax.nn.silu(x),
        jax.nn.elu(x),
        jax.nn.log_sigmoid(x),
    )


@program(
    "elementwise_f16",
    args=lambda rng: (normal(rng, (8, 8), np.float16), uniform(rng, (8, 8), 0.1, 3.0, np.float16)),
)
def elementwise_f16(x, y):
    return x * y + x, jnp.exp(x), jnp.sqrt(y), jnp.tanh(x), x / y, jnp.maximum(x, y), x < y


@program(
    "elementwise_bf16",
    args=lambda rng: (
        normal(rng, (8, 8)).astype(jnp.bfloat16),
        uniform(rng, (8, 8), 0.1, 3.0).astype(jnp.bfloat16),
    ),
)
def elementwise_bf16(x, y):
    return x * y + x, jnp.exp(x), jnp.log(y), lax.erf(x), x / y, jnp.minimum(x, y), x >= y


@program(
    "elementwise_f64",
    x64=True,
    args=lambda rng: (
        normal(rng, (8, 8), np.float64) * 3,
        uniform(rng, (8, 8), 0.1, 5.0, np.float64),
    ),
)
def elementwise_f64(x, y):
    return (
        jnp.exp(x),
        jnp.expm1(x),
        jnp.log(y),
        jnp.log1p(y),
        jnp.sqrt(y),
        lax.rsqrt(y),
        jnp.cbrt(x),
        jnp.tanh(x),
        lax.erf(x),
        jnp.sin(x),
        jnp.cos(x),
        jnp.tan(x),
        jnp.arctan2(x, y),
        jnp.power(y, x),
        jnp.fmod(x, y),
        jnp.round(x),
        jnp.floor(x),
    )


@program(
    "elementwise_f64_edges",
    x64=True,
    args=lambda rng: (
        np.concatenate(
            [
                with_edges(rng, (32,)).astype(np.float64),
                np.array([1e300, -1e300, 5e-324, 700.0, 710.0, -745.0, 0.5, -0.5]),
            ]
        ),
    ),
)
def elementwise_f64_edges(x):
    return (
        jnp.exp(x),
        jnp.log(x),
        jnp.tanh(x),
        lax.erf(x),
        jnp.isfinite(x),
        jnp.maximum(x, 0.0),
        jnp.minimum(x, -0.0),
        x.astype(jnp.float32),
    )


# Cross tables: every pair of special values (rows = x, columns = y).
TABLE_X = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -8.0, INF, -INF, NAN], np.float32)
TABLE_Y = np.array(
    [0.0, -0.0, 0.5, -0.5, 1.0, 2.0, 3.0, -1.0, -2.0, 1 / 3, INF, -INF, NAN], np.float32
)


def _tables(rng):
    # A random factor of exactly 1 keeps the table; inputs stay non-trivial.
    return TABLE_X[:, None] * np.ones((1, TABLE_Y.size), np.float32), TABLE_Y[None, :] * np.ones(
        (TABLE_X.size, 1), np.float32
    )


@program("elementwise_special_tables", args=_tables)
def elementwise_special_tables(x, y):
    # pow(0, -1) = inf, pow(-8, 1/3) = NaN, pow(NaN, 0) = 1, atan2(+-0, -0) = +-pi, ...
    return (
        jnp.power(x, y),
        jnp.arctan2(x, y),
        x / y,
        jnp.fmod(x, y),
        jnp.maximum(x, y),
        jnp.minimum(x, y),
        x * y,
        x - y,
        lax.clamp(np.float32(-1), x, np.float32(1)),
        x < y,
        x == y,
    )


def _half_edges(rng):
    values = np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            np.inf,
            -np.inf,
            np.nan,
            65504.0,
            -65504.0,
            6.1e-5,
            6e-8,
            1e-3,
            11.0,
            12.0,
            -12.0,
            88.0,
            -88.0,
        ],
        np.float32,
    )
    x = np.concatenate([values, normal(rng, (12,)) * 4])
    return x.astype(np.float16), x.astype(jnp.bfloat16)


@program("elementwise_half_edges", args=_half_edges)
def elementwise_half_edges(h, b):
    # f16/bf16 overflow, subnormals, NaN and ties, in arithmetic, transcendentals and sort.
    return (
        h * h,
        h + np.float16(65504),
        jnp.exp(h),
        jnp.log(h),
        jnp.tanh(h),
        jnp.round(h),
        jnp.isfinite(h),
        jnp.sort(h),
        b * b,
        jnp.exp(b),
        lax.erf(b),
        jnp.floor(b),
        jnp.sort(b),
        jnp.maximum(h, -h),
    )


# Real and imaginary parts for the complex functions' grid: zeros of both signs, the ordinary,
# large real parts (tanh saturates: e^80 fits in f32, e^800 overflows f64 too), tiny values
# (expm1's cancellation), infinities and NaN.
COMPLEX_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 40.0, -40.0, 400.0, -400.0]
COMPLEX_PARTS += [1e-20, -1e-20, np.inf, -np.inf, np.nan]


def _complex_math_args(rng, dtype):
    grid = np.array([complex(r, i) for r in COMPLEX_PARTS for i in COMPLEX_PARTS], dtype)
    z = np.concatenate([grid, (normal(rng, (32,)) * 2 + 1j * normal(rng, (32,)) * 2).astype(dtype)])
    w = (normal(rng, z.shape) + 1j * normal(rng, z.shape)).astype(dtype)
    w[:3] = [0, 0.5, 2 + 0j]  # the zero, a real and an integer exponent
    return z, w


def _complex_math(z, w):
    # tanh, tan, expm1, rsqrt and power (complex ** complex, ** a real scalar, ** integers: jax
    # converts the exponent and emits power for all three).
    return (
        jnp.tanh(z),
        jnp.tan(z),
        jnp.expm1(z),
        lax.rsqrt(z),
        z**w,
        z ** (0.5 + 0.25j),
        z**2.5,
        lax.pow(z, (jnp.arange(z.size) % 7 - 3).astype(jnp.int32)),
    )


@program("elementwise_complex_math", args=lambda rng: _complex_math_args(rng, np.complex64))
def elementwise_complex_math(z, w):
    return _complex_math(z, w)


@program(
    "elementwise_complex_math_c128",
    args=lambda rng: _complex_math_args(rng, np.complex128),
    x64=True,
)
def elementwise_complex_math_c128(z, w):
    return _complex_math(z, w)
