"""Conversion programs: float->int saturation, unsigned<->float, narrowing roundings, bitcasts."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from progs_elementwise import F32_EDGES
from registry import bits, normal, program


def float_to_int_inputs(rng):
    big = np.array(
        [
            2.0**31,
            -(2.0**31),
            2.0**31 - 128,
            2.0**32,
            4294967040.0,
            -1.0,
            -0.99,
            0.99,
            127.5,
            128.0,
            -128.5,
            -129.0,
            255.5,
            256.0,
            32767.6,
            32768.0,
            65535.4,
            65536.0,
            1e10,
            -1e10,
        ],
        np.float32,
    )
    return (np.concatenate([F32_EDGES, big, normal(rng, (12,)) * 1000]),)


@program("convert_float_to_int", args=float_to_int_inputs)
def convert_float_to_int(x):
    # NaN, inf and out-of-range values: XLA's convert saturates (NaN -> 0).
    return (
        x.astype(jnp.int32),
        x.astype(jnp.uint32),
        x.astype(jnp.int8),
        x.astype(jnp.uint8),
        x.astype(jnp.int16),
        x.astype(jnp.uint16),
        x.astype(jnp.bool_),
    )


@program("convert_float_to_int64", x64=True, args=float_to_int_inputs)
def convert_float_to_int64(x):
    wide = x.astype(jnp.float64) * 1e9
    return (
        x.astype(jnp.int64),
        x.astype(jnp.uint64),
        wide.astype(jnp.int64),
        wide.astype(jnp.uint64),
    )


def u32_inputs(rng):
    u = bits(rng, (48,), np.uint32)
    u[:8] = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFF80, 16777217, 0x80000001]
    return u, np.abs(normal(rng, (48,))) * np.float32(3e9)


@program("convert_u32_f32", args=u32_inputs)
def convert_u32_f32(u, f):
    # u32 -> f32 rounds above 2^24; f32 -> u32 saturates at 2^32-1.
    return u.astype(jnp.float32), f.astype(jnp.uint32), u.astype(jnp.int32).astype(jnp.float32)


def narrowing_inputs(rng):
    # Exact ties between two f16 / bf16 values, plus values that overflow f16.
    ties = np.array(
        [
            1.0 + 2.0**-11,
            1.0 + 3 * 2.0**-11,
            1.0 + 2.0**-8,
            1.0 + 3 * 2.0**-8,
            65504.0,
            65520.0,
            65519.99,
            1e5,
            -1e5,
            6e-8,
            2.0**-25,
            3e-5,
            1e-40,
            3.0e38,
            -0.0,
            np.nan,
            np.inf,
            -np.inf,
        ],
        np.float32,
    )
    return (np.concatenate([ties, normal(rng, (46,)) * 100]),)


@program("convert_narrowing", args=narrowing_inputs)
def convert_narrowing(x):
    f16, bf16 = x.astype(jnp.float16), x.astype(jnp.bfloat16)
    return f16, bf16, f16.astype(jnp.float32), bf16.astype(jnp.float32), f16.astype(jnp.bfloat16)


@program(
    "convert_narrowing_f64",
    x64=True,
    args=lambda rng: (
        np.concatenate(
            [
                narrowing_inputs(rng)[0].astype(np.float64),
                np.array([1.0 + 2.0**-24, 1.0 + 3 * 2.0**-24, 1e300, 1e-300]),
            ]
        ),
    ),
)
def convert_narrowing_f64(x):
    return x.astype(jnp.float32), x.astype(jnp.float16), x.astype(jnp.bfloat16)


@program("convert_int_widths", args=lambda rng: (bits(rng, (32,), np.int32),))
def convert_int_widths(x):
    # Integer narrowing truncates; widening sign- or zero-extends.
    s8, u8, s16, u16 = (
        x.astype(jnp.int8),
        x.astype(jnp.uint8),
        x.astype(jnp.int16),
        x.astype(jnp.uint16),
    )
    return (
        s8,
        u8,
        s16,
        u16,
        s8.astype(jnp.int32),
        u8.astype(jnp.int32),
        s8.astype(jnp.uint32),
        s16.astype(jnp.float32),
        u16.astype(jnp.float16),
        x.astype(jnp.bool_),
        x.astype(jnp.float32),
    )


@program(
    "bitcast_convert",
    args=lambda rng: (
        normal(rng, (16,)),
        bits(rng, (16,), np.uint32),
        normal(rng, (8, 2), np.float16),
    ),
)
def bitcast_convert(f, u, h):
    return (
        lax.bitcast_convert_type(f, jnp.int32),
        lax.bitcast_convert_type(f, jnp.uint32),
        lax.bitcast_convert_type(u & 0x3FFFFFFF, jnp.float32),
        lax.bitcast_convert_type(h, jnp.uint16),
        lax.bitcast_convert_type(h, jnp.uint32),
        lax.bitcast_convert_type(f, jnp.uint8),
    )


@program(
    "bitcast_convert_64",
    x64=True,
    args=lambda rng: (normal(rng, (8,), np.float64), bits(rng, (8, 2), np.uint32)),
)
def bitcast_convert_64(d, pairs):
    return (
        lax.bitcast_convert_type(d, jnp.uint64),
        lax.bitcast_convert_type(d, jnp.int32),
        lax.bitcast_convert_type(pairs, jnp.float64),
    )


@program(
    "convert_reduce_precision",
    args=lambda rng: (
        np.concatenate([narrowing_inputs(rng)[0], F32_EDGES, normal(rng, (32,)) * 1e-5]),
        bits(rng, (64,), np.uint32),
    ),
)
def convert_reduce_precision(x, raw):
    # Outputs are bit patterns, so the corpus compares them exactly: f16's and bf16's widths, an
    # fp8-like format and a zero-bit mantissa; NaNs with payloads (passed unchanged) and their
    # conversion to bf16 (canonicalized).
    widths = ((5, 10), (8, 7), (4, 3), (1, 0))
    rounded = [lax.reduce_precision(x, e, m) for e, m in widths]
    nans = lax.bitcast_convert_type(raw | 0x7F800001, jnp.float32)
    return (
        *(lax.bitcast_convert_type(r, jnp.uint32) for r in rounded),
        lax.bitcast_convert_type(lax.reduce_precision(nans, 5, 10), jnp.uint32),
        lax.bitcast_convert_type(nans.astype(jnp.bfloat16), jnp.uint16),
    )
