"""Random chains of data-movement ops, drawn from a seed: for tests/python/test_jit_index_chains.py
(bit for bit against JAX op by op) and the corpus program shapes_index_chains (which the C++ tests
run on the CPU, the emulated CUDA kernel and NVRTC).

Elements are int32 so that every result is exact; integer arithmetic between the moves makes the
chain a fused one, not stored op by op; starts of dynamic slices come from a traced k, so some are
clamped. Some steps are loops (fori_loop, or a while_loop whose trip count depends on k) whose
bodies move the carry by the loop counter: rolls, windows and updates at i. Others consume the moved
values: reductions (sum, max, min, prod, argmax), cumulative ops, reduce-window, sort and an integer
dot, each reading its operand through the fused index maps.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

Array = jax.Array
Step = tuple[str, Callable[[Array, Array], Array]]

MAX_DIM = 9
MAX_ELEMENTS = 2048


def axes_of(rng: np.random.Generator, rank: int) -> tuple[int, ...]:
    count = int(rng.integers(1, rank + 1))
    return tuple(sorted(int(a) for a in rng.choice(rank, size=count, replace=False)))


def draw_loop_op(rng: np.random.Generator, shape: tuple[int, ...]) -> Step:
    """A shape-preserving op of a loop body: its second argument is the loop's counter i."""
    rank = len(shape)
    d = int(rng.integers(rank))
    n = shape[d]
    kind = str(
        rng.choice(["flip", "roll", "dynamic_update_slice", "arith", "scatter", "where", "window"])
    )
    if kind == "flip":
        axes = axes_of(rng, rank)
        return f"flip{axes}", lambda c, i: jnp.flip(c, axes)
    if kind == "roll":  # a traced shift: a dynamic slice of a concatenation
        return f"roll(i, {d})", lambda c, i: jnp.roll(c, i, d)
    if kind == "dynamic_update_slice":
        sizes = tuple(int(rng.integers(1, m + 1)) for m in shape)
        offsets = tuple(int(rng.integers(-2, 3)) for _ in shape)
        corner = tuple(slice(0, m) for m in sizes)
        return (
            f"dynamic_update_slice(flip(c)[{sizes}], i+{offsets})",
            lambda c, i: lax.dynamic_update_slice(
                c, jnp.flip(c)[corner] * 2 + 1, tuple(i + o for o in offsets)
            ),
        )
    if kind == "arith":
        a = int(rng.integers(-3, 4))
        return f"c*{a}+i", lambda c, i: c * a + i
    if kind == "scatter":
        index = (slice(None),) * d
        return f"c.at[(3i) % {n} on {d}].add(i)", lambda c, i: c.at[(*index, (3 * i) % n)].add(i)
    if kind == "where":
        return (
            f"where(iota_{d} < i, c, flip(c, {d}))",
            lambda c, i: jnp.where(
                lax.broadcasted_iota(jnp.int32, shape, d) < i, c, jnp.flip(c, d)
            ),
        )
    # A window of the array and its reverse, sliding with i (clamped once i > n).
    return (
        f"dynamic_slice_in_dim(concat(c, flip(c)), i, {n}, {d})",
        lambda c, i: lax.dynamic_slice_in_dim(jnp.concatenate([c, jnp.flip(c, d)], d), i, n, d),
    )


def draw_loop(rng: np.random.Generator, shape: tuple[int, ...]) -> Step:
    """A fori_loop with a static trip count, or a while_loop whose trip count is k + 3 (dynamic,
    none when k < -2), over a body of one to three shape-preserving ops."""
    body = [draw_loop_op(rng, shape) for _ in range(int(rng.integers(1, 4)))]
    inner = "; ".join(name for name, _ in body)

    def apply(c: Array, i: Array) -> Array:
        for _, fn in body:
            c = fn(c, i)
        return c

    if rng.random() < 0.5:
        trips = int(rng.integers(0, 5))
        return (
            f"fori_loop(0, {trips}, {{{inner}}})",
            lambda x, k: lax.fori_loop(0, trips, lambda i, c: apply(c, i), x),
        )

    def while_fn(x: Array, k: Array) -> Array:
        return lax.while_loop(
            lambda c: c[1] < k + 3, lambda c: (apply(c[0], c[1]), c[1] + 1), (x, jnp.int32(0))
        )[0]

    return f"while(i < k + 3, {{{inner}}})", while_fn


def draw_step(rng: np.random.Generator, shape: tuple[int, ...]) -> Step | None:
    """One op that maps `shape` to a shape within the limits, or None to draw again."""
    rank = len(shape)
    kind = str(
        rng.choice(
            [
                "flip",
                "slice",
                "dynamic_slice",
                "transpose",
                "reshape",
                "broadcast",
                "pad",
                "concatenate",
                "roll",
                "take",
                "arith",
                "squeeze_expand",
                "dynamic_update_slice",
                "scatter_add",
                "loop",
                "reduce",
                "cumulative",
                "reduce_window",
                "sort",
                "dot",
                "convert",
                "bits",
            ]
        )
    )
    if kind == "flip" and rank > 0:
        axes = axes_of(rng, rank)
        return f"flip{axes}", lambda x, k: jnp.flip(x, axes)
    if kind == "slice" and rank > 0:
        d = int(rng.integers(rank))
        n = shape[d]
        start = int(rng.integers(0, n))
        stop = int(rng.integers(start + 1, n + 1))
        stride = int(rng.integers(1, 4))
        if rng.random() < 0.4:  # a negative stride: JAX lowers it as reverse + slice
            sl = slice(stop - 1, start - 1 if start > 0 else None, -stride)
        else:
            sl = slice(start, stop, stride)
        index = tuple(sl if a == d else slice(None) for a in range(rank))
        return f"x[{index}]", lambda x, k: x[index]
    if kind == "dynamic_slice" and rank > 0:
        sizes = tuple(int(rng.integers(1, n + 1)) for n in shape)
        offsets = tuple(int(rng.integers(-3, 4)) for _ in shape)
        # Starts from the traced k: some in range, some clamped at either end.
        return (
            f"dynamic_slice(k+{offsets}, {sizes})",
            lambda x, k: lax.dynamic_slice(x, tuple(k + o for o in offsets), sizes),
        )
    if kind == "transpose" and rank > 1:
        perm = tuple(int(p) for p in rng.permutation(rank))
        return f"transpose{perm}", lambda x, k: jnp.transpose(x, perm)
    if kind == "reshape" and rank > 0:
        total = int(np.prod(shape))
        divisors = [q for q in range(2, MAX_DIM + 1) if total % q == 0 and total // q <= MAX_DIM]
        if rank > 1 and rng.random() < 0.5:
            target: tuple[int, ...] = (total,) if total <= 4 * MAX_DIM else shape[::-1]
        elif divisors:
            q = int(rng.choice(divisors))
            target = (q, total // q)
        else:
            target = (total,)
        return f"reshape{target}", lambda x, k: x.reshape(target)
    if kind == "broadcast" and rank < 3:
        n = int(rng.integers(1, 4))
        where = int(rng.integers(0, rank + 1))
        target = shape[:where] + (n,) + shape[where:]
        dims = tuple(a if a < where else a + 1 for a in range(rank))
        return (
            f"broadcast_in_dim({target}, {dims})",
            lambda x, k: lax.broadcast_in_dim(x, target, dims),
        )
    if kind == "pad" and rank > 0:
        config = []
        for n in shape:
            low, high = int(rng.integers(-1, 3)), int(rng.integers(-1, 3))
            interior = int(rng.integers(0, 2))
            if n + (n - 1) * interior + low + high < 1:
                low = high = 0
            config.append((low, high, interior))
        cfg = tuple(config)
        return f"pad{cfg}", lambda x, k: lax.pad(x, jnp.int32(-7), cfg)
    if kind == "concatenate" and rank > 0:
        d = int(rng.integers(rank))
        return (
            f"concatenate([x, flip(x)[..]], {d})",
            lambda x, k: jnp.concatenate([x, jnp.flip(x, d)], axis=d),
        )
    if kind == "roll" and rank > 0:
        d = int(rng.integers(rank))
        shift = int(rng.integers(-shape[d], shape[d] + 1))
        return f"roll({shift}, {d})", lambda x, k: jnp.roll(x, shift, d)
    if kind == "take" and rank > 0:
        d = int(rng.integers(rank))
        idx = rng.integers(0, shape[d], size=int(rng.integers(1, MAX_DIM))).astype(np.int32)
        return f"take({idx.tolist()}, {d})", lambda x, k: jnp.take(x, jnp.asarray(idx), axis=d)
    if kind == "arith":
        a, b = int(rng.integers(-5, 6)), int(rng.integers(-50, 50))
        return f"x*{a}+{b}", lambda x, k: x * a + b
    if kind == "dynamic_update_slice" and rank > 0:
        sizes = tuple(int(rng.integers(1, n + 1)) for n in shape)
        offsets = tuple(int(rng.integers(-3, 4)) for _ in shape)
        # The update is a reversed corner of x itself, so it is a fused value too.
        corner = tuple(slice(0, n) for n in sizes)
        return (
            f"dynamic_update_slice(flip(x)[{sizes}], k+{offsets})",
            lambda x, k: lax.dynamic_update_slice(
                x, jnp.flip(x)[corner] * 2, tuple(k + o for o in offsets)
            ),
        )
    if kind == "scatter_add" and rank > 0:
        d = int(rng.integers(rank))
        # Repeated and out-of-range indices: repeats accumulate, out-of-range ones are dropped.
        idx = rng.integers(-2, shape[d] + 2, size=int(rng.integers(1, 6))).astype(np.int32)
        index = tuple(jnp.asarray(idx) if a == d else slice(None) for a in range(rank))
        return (
            f"x.at[{idx.tolist()} on {d}].add(1)",
            lambda x, k: x.at[index].add(1, mode="drop"),
        )
    if kind == "reduce" and rank > 1:
        axes = axes_of(rng, rank)
        if len(axes) == rank:
            axes = axes[1:]
        op = str(rng.choice(["sum", "max", "min", "argmax", "argmin", "prod"]))
        if op.startswith("arg"):
            d = axes[0]
            fn = jnp.argmax if op == "argmax" else jnp.argmin
            return f"{op}(axis={d})", lambda x, k: fn(x, axis=d).astype(jnp.int32)
        red = {"sum": jnp.sum, "max": jnp.max, "min": jnp.min, "prod": jnp.prod}[op]
        return f"{op}{axes}", lambda x, k: red(x, axis=axes)
    if kind == "cumulative" and rank > 0:
        d = int(rng.integers(rank))
        op = str(rng.choice(["cumsum", "cummax", "cummin"]))
        reverse = bool(rng.random() < 0.5)
        fn = {"cumsum": lax.cumsum, "cummax": lax.cummax, "cummin": lax.cummin}[op]
        return f"{op}({d}, reverse={reverse})", lambda x, k: fn(x, axis=d, reverse=reverse)
    if kind == "reduce_window" and rank > 0:
        window = tuple(int(rng.integers(1, min(n, 3) + 1)) for n in shape)
        strides = tuple(int(rng.integers(1, 3)) for _ in shape)
        padding = str(rng.choice(["VALID", "SAME"]))
        init, op = (np.int32(-(2**31)), lax.max) if rng.random() < 0.5 else (np.int32(0), lax.add)
        return (
            f"reduce_window({op.__name__}, {window}, {strides}, {padding})",
            lambda x, k: lax.reduce_window(x, init, op, window, strides, padding),
        )
    if kind == "sort" and rank > 0:
        d = int(rng.integers(rank))
        descending = bool(rng.random() < 0.5)
        return f"sort({d}, descending={descending})", lambda x, k: jnp.sort(
            x, axis=d, descending=descending
        )
    if kind == "dot" and rank > 0:
        # An integer product with a small drawn matrix (exact, wrapping) over the last dim.
        n = shape[-1]
        m = int(rng.integers(1, MAX_DIM))
        w = rng.integers(-3, 4, size=(n, m)).astype(np.int32)
        if rng.random() < 0.5:
            return f"x @ w{w.shape}", lambda x, k: x @ jnp.asarray(w)
        return f"w{w.T.shape} . x (dim -1)", lambda x, k: jnp.tensordot(
            jnp.asarray(w.T), x, axes=((1,), (x.ndim - 1,))
        )
    if kind == "convert":
        # Through a narrower or unsigned type and back: wrapping, sign and zero extension.
        t = str(rng.choice(["int8", "uint8", "int16", "uint16", "uint32", "bool"]))
        return f"astype({t}).astype(int32)", lambda x, k: x.astype(t).astype(jnp.int32)
    if kind == "bits":
        op = str(rng.choice(["div", "rem", "shift", "logic", "count", "minmax", "abs_sign"]))
        # Divisors and shift amounts drawn from the moved values themselves: zeros, negatives
        # and amounts past 31 all occur (XLA: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN).
        if op == "div":
            return "div(x, flip(x) % 7)", lambda x, k: lax.div(x, lax.rem(jnp.flip(x), 7))
        if op == "rem":
            return "rem(x, flip(x) % 5)", lambda x, k: lax.rem(x, lax.rem(jnp.flip(x), 5))
        if op == "shift":
            return "x << (flip(x) % 40) ^ x >> 3 ^ x >>> 5", lambda x, k: (
                lax.shift_left(x, lax.rem(jnp.flip(x), 40))
                ^ lax.shift_right_arithmetic(x, jnp.int32(3))
                ^ lax.shift_right_logical(x, jnp.int32(5))
            )
        if op == "logic":
            return "(x & 0x5a5a) | ~flip(x)", lambda x, k: (x & 0x5A5A) | ~jnp.flip(x)
        if op == "count":
            return "popcnt(x) + clz(x)", lambda x, k: lax.population_count(x) + lax.clz(x)
        if op == "minmax":
            return "clamp(-300, max(x, flip(x)), 300)", lambda x, k: jnp.clip(
                jnp.maximum(x, jnp.flip(x)), -300, 300
            )
        return "abs(x) * sign(flip(x))", lambda x, k: jnp.abs(x) * jnp.sign(jnp.flip(x))
    if kind == "loop" and rank > 0:
        return draw_loop(rng, shape)
    if kind == "squeeze_expand":
        if 1 in shape:
            d = shape.index(1)
            return f"squeeze({d})", lambda x, k: jnp.squeeze(x, d)
        if rank < 3:
            d = int(rng.integers(0, rank + 1))
            return f"expand_dims({d})", lambda x, k: jnp.expand_dims(x, d)
    return None


def draw_chain(seed: int) -> tuple[np.ndarray, list[Step]]:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(2, MAX_DIM)) for _ in range(rank))
    x = rng.integers(-1000, 1000, size=shape).astype(np.int32)
    steps: list[Step] = []
    current: tuple[int, ...] = shape
    length = int(rng.integers(3, 8))
    while len(steps) < length:
        step = draw_step(rng, current)
        if step is None:
            continue
        out = jax.eval_shape(step[1], jax.ShapeDtypeStruct(current, jnp.int32), jnp.int32(0))
        if out.size == 0 or out.size > MAX_ELEMENTS or max(out.shape, default=1) > 4 * MAX_DIM:
            continue
        steps.append(step)
        current = tuple(out.shape)
    return x, steps


def chain_fn(steps: list[Step]) -> Callable[[Array, Array], tuple[Array, Array]]:
    def f(x: Array, k: Array) -> tuple[Array, Array]:
        x = jnp.asarray(x)  # op by op, the first step may get the numpy input
        for _, fn in steps:
            x = fn(x, k)
        # A reduction at the end as well, so the chain also feeds a fused reduce.
        return x, jnp.sum(x * 3 + 1, axis=0) if x.ndim else x

    return f
