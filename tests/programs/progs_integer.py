"""Integer and bit programs: division edge cases, shifts past the width, bit counting, every int type."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import bits, ints, program

I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def division_operands(rng, dtype):
    """Pairs including x/0, INT_MIN/-1, negative/positive mixes, plus random values."""
    info = np.iinfo(dtype)
    specials = [
        (7, 0),
        (-7, 0),
        (0, 0),
        (info.min, -1),
        (info.min, 1),
        (info.max, -1),
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (info.min, 0),
        (info.max, 0),
        (1, info.min),
        (5, 5),
    ]
    if info.min == 0:  # unsigned: keep the non-negative pairs, add the top of the range
        specials = [(a, b) for a, b in specials if a >= 0 and b >= 0] + [
            (info.max, 3),
            (info.max, info.max),
        ]
    x = ints(rng, (32,), info.min // 2 if info.min else 0, info.max // 2, dtype)
    y = ints(rng, (32,), -9 if info.min else 0, 10, dtype)
    x[: len(specials)] = [a for a, _ in specials]
    y[: len(specials)] = [b for _, b in specials]
    return x, y


@program("int_division_s32", args=lambda rng: division_operands(rng, np.int32))
def int_division_s32(x, y):
    # lax.div/lax.rem are HLO's divide/remainder (x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN);
    # jnp's floor_divide/remainder wrap them in sign fix-ups.
    return lax.div(x, y), lax.rem(x, y), jnp.floor_divide(x, y), jnp.remainder(x, y)


@program("int_division_u32", args=lambda rng: division_operands(rng, np.uint32))
def int_division_u32(x, y):
    return lax.div(x, y), lax.rem(x, y), jnp.floor_divide(x, y), x // (y | 1)


@program("int_division_s64", x64=True, args=lambda rng: division_operands(rng, np.int64))
def int_division_s64(x, y):
    return lax.div(x, y), lax.rem(x, y), jnp.floor_divide(x, y), jnp.remainder(x, y)


@program(
    "int_division_small",
    args=lambda rng: division_operands(rng, np.int8) + division_operands(rng, np.uint16),
)
def int_division_small(a, b, c, d):
    return lax.div(a, b), lax.rem(a, b), lax.div(c, d), lax.rem(c, d)


def shift_operands(rng, dtype, width):
    x = bits(rng, (48,), dtype)
    info = np.iinfo(dtype)
    x[:4] = [1, info.max, info.min, -1 if info.min < 0 else info.max - 1]
    amounts = np.arange(-3, 45, dtype=np.int64)  # negative, in range, == width, past it
    amounts = np.where(amounts > width + 8, amounts % width, amounts)
    return x, amounts.astype(dtype)


@program("int_shifts_s32", args=lambda rng: shift_operands(rng, np.int32, 32))
def int_shifts_s32(x, s):
    # HLO: shifts by >= width (or by a negative amount as unsigned) give 0, or -1/0 for
    # an arithmetic right shift of a negative/non-negative value.
    return (
        lax.shift_left(x, s),
        lax.shift_right_logical(x, s),
        lax.shift_right_arithmetic(x, s),
        x >> 3,
        x << 2,
    )


@program("int_shifts_u32", args=lambda rng: shift_operands(rng, np.uint32, 32))
def int_shifts_u32(x, s):
    return (
        lax.shift_left(x, s),
        lax.shift_right_logical(x, s),
        lax.shift_right_arithmetic(x, s),
        x >> 5,
    )


@program("int_shifts_u64", x64=True, args=lambda rng: shift_operands(rng, np.uint64, 64))
def int_shifts_u64(x, s):
    return lax.shift_left(x, s), lax.shift_right_logical(x, s), lax.shift_right_arithmetic(x, s)


@program(
    "int_shifts_small",
    args=lambda rng: shift_operands(rng, np.int8, 8) + shift_operands(rng, np.uint16, 16),
)
def int_shifts_small(a, sa, b, sb):
    return (
        lax.shift_left(a, sa),
        lax.shift_right_arithmetic(a, sa),
        lax.shift_right_logical(a, sa),
        lax.shift_left(b, sb),
        lax.shift_right_logical(b, sb),
        lax.shift_right_arithmetic(b, sb),
    )


@program(
    "int_bit_counting", args=lambda rng: (bits(rng, (64,), np.uint32), bits(rng, (64,), np.int32))
)
def int_bit_counting(u, s):
    u = u.at[:3].set(np.array([0, 1, 0xFFFFFFFF], np.uint32))
    s = s.at[:3].set(np.array([0, -1, I32_MIN], np.int32))
    return (
        lax.population_count(u),
        lax.clz(u),
        ~u,
        u & (u >> 1),
        u | 7,
        u ^ (u << 3),
        lax.population_count(s),
        lax.clz(s),
        ~s,
    )


@program(
    "int_small_types",
    args=lambda rng: (
        bits(rng, (32,), np.int8),
        bits(rng, (32,), np.uint8),
        bits(rng, (32,), np.int16),
        bits(rng, (32,), np.uint16),
    ),
)
def int_small_types(a, b, c, d):
    # Wrap-around arithmetic and bit ops in 8- and 16-bit types.
    return (
        a + a,
        a * 3,
        -a,
        jnp.abs(a),
        a & 0x3C,
        lax.clz(a),
        lax.population_count(b),
        b - 200,
        b * b,
        b >> 3,
        c * c,
        c - 30000,
        ~c,
        jnp.sign(c),
        d + 60000,
        d ^ (d << 4),
        lax.clz(d),
        jnp.maximum(a, -5),
        jnp.minimum(b, 100),
    )


@program(
    "int_abs_sign_minmax",
    args=lambda rng: (
        np.concatenate(
            [np.array([I32_MIN, I32_MAX, 0, -1, 1], np.int32), ints(rng, (27,), -1000, 1000)]
        ),
    ),
)
def int_abs_sign_minmax(x):
    # abs(INT_MIN) wraps to INT_MIN.
    return (
        jnp.abs(x),
        jnp.sign(x),
        -x,
        jnp.maximum(x, x[::-1]),
        jnp.minimum(x, 3),
        jnp.clip(x, -10, 10),
    )


@program(
    "int_64bit",
    x64=True,
    args=lambda rng: (bits(rng, (32,), np.int64), bits(rng, (32,), np.uint64)),
)
def int_64bit(s, u):
    return (
        s + s,
        s * 7,
        s ^ (s >> 13),
        lax.population_count(s),
        lax.clz(u),
        u * u,
        u >> 60,
        u > (u[::-1]),
        s <= s[::-1],
        s.astype(jnp.float64),
        u.astype(jnp.float64),
        (u & 0xFFFF).astype(jnp.int64),
    )


@program(
    "int_compare_all", args=lambda rng: (ints(rng, (40,), -5, 5), bits(rng, (40,), np.uint32) % 7)
)
def int_compare_all(s, u):
    # Every direction, for signed and for unsigned operands.
    t, v = s[::-1], u[::-1]
    return (
        s == t,
        s != t,
        s < t,
        s <= t,
        s > t,
        s >= t,
        u == v,
        u != v,
        u < v,
        u <= v,
        u > v,
        u >= v,
        u > np.uint32(0x80000000),
    )


@program("pred_logic", args=lambda rng: (rng.random((4, 16)) < 0.5, rng.random((4, 16)) < 0.3))
def pred_logic(p, q):
    return (
        p & q,
        p | q,
        p ^ q,
        ~p,
        jnp.logical_not(q),
        p == q,
        p != q,
        p < q,
        p >= q,
        jnp.where(p, q, ~q),
        p.astype(jnp.int32) + q,
    )


@program(
    "int_power", args=lambda rng: (ints(rng, (16,), -4, 5), np.arange(16, dtype=np.int32) % 9 - 1)
)
def int_power(x, n):
    # An integer power with a traced exponent is a square-and-multiply loop; x**3 is unrolled.
    return jnp.power(x, jnp.maximum(n, 0)), x**3, lax.integer_pow(x, 5)
