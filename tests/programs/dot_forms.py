"""Random dot_general forms, drawn from a seed: for tests/python/test_jit_dot_forms.py.

loopfuse lowers a dot by its form (dot_form.h): which dimensions are batch, contracting and free,
in which order each operand holds them, and how large each is decides between register tiles
(with or without a packed copy of the rhs), row-at-a-time loops and a scalar loop, with remainder
tiles where a size does not divide. A form is drawn here as: up to two dimensions of each kind,
sizes around the tile sizes (1, 2, 3, 5, 7, 8, 9, 16, 17, 33), each operand's dimensions in a
random order, the result transposed, and a consumer: none, a fused bias and tanh, or a fori_loop
whose carry is an operand.

The oracle is numpy in float64 (int64 for int32, wrapped to 32 bits as XLA's dot wraps), so no
JAX kernel is trusted: `reference` computes each result with an error bound, `K * u * sum|a*b|`
per element, with K the contraction's length and u the result type's unit roundoff.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

SIZES = (1, 2, 3, 5, 7, 8, 9, 16, 17, 33)
MAX_OPERAND = 40_000  # elements of either operand
MAX_WORK = 400_000  # multiply-adds of one dot
LOOP_TRIPS = 3


@dataclass(frozen=True)
class DotForm:
    batch: tuple[int, ...]
    contract: tuple[int, ...]
    lhs_free: tuple[int, ...]
    rhs_free: tuple[int, ...]
    lhs_order: tuple[str, ...]  # the lhs's dimensions: "b0", "c1", "l0", ... in storage order
    rhs_order: tuple[str, ...]
    out_perm: tuple[int, ...]  # applied to dot_general's (batch, lhs free, rhs free) result
    dtype: str  # "float32", "float64", "int32", or "bfloat16" (accumulated in float32)
    consumer: str  # "none", "bias_tanh" or "loop"

    def describe(self) -> str:
        return (
            f"{self.dtype} lhs{self.lhs_order} rhs{self.rhs_order} "
            f"batch={self.batch} contract={self.contract} lhs_free={self.lhs_free} "
            f"rhs_free={self.rhs_free} out_perm={self.out_perm} consumer={self.consumer}"
        )

    def size_of(self, name: str) -> int:
        kind, index = name[0], int(name[1:])
        return {"b": self.batch, "c": self.contract, "l": self.lhs_free, "r": self.rhs_free}[kind][
            index
        ]

    def shape(self, order: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(self.size_of(n) for n in order)

    def dimension_numbers(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        lc = tuple(self.lhs_order.index(f"c{i}") for i in range(len(self.contract)))
        rc = tuple(self.rhs_order.index(f"c{i}") for i in range(len(self.contract)))
        lb = tuple(self.lhs_order.index(f"b{i}") for i in range(len(self.batch)))
        rb = tuple(self.rhs_order.index(f"b{i}") for i in range(len(self.batch)))
        return ((lc, rc), (lb, rb))

    def out_names(self) -> tuple[str, ...]:
        """The result's dimensions after out_perm."""
        names = (
            [f"b{i}" for i in range(len(self.batch))]
            + [n for n in self.lhs_order if n[0] == "l"]
            + [n for n in self.rhs_order if n[0] == "r"]
        )
        return tuple(names[p] for p in self.out_perm)


def draw_form(seed: int) -> DotForm:
    rng = np.random.default_rng(seed)
    while True:
        counts = [int(rng.integers(0, 3)) for _ in range(4)]  # batch, contract, lhs, rhs free
        if counts[0] + counts[1] + counts[2] > 4 or counts[0] + counts[1] + counts[3] > 4:
            continue
        batch, contract, lhs_free, rhs_free = (
            tuple(int(rng.choice(SIZES)) for _ in range(c)) for c in counts
        )
        lhs_names = (
            [f"b{i}" for i in range(counts[0])]
            + [f"c{i}" for i in range(counts[1])]
            + [f"l{i}" for i in range(counts[2])]
        )
        rhs_names = (
            [f"b{i}" for i in range(counts[0])]
            + [f"c{i}" for i in range(counts[1])]
            + [f"r{i}" for i in range(counts[3])]
        )
        lhs_order = tuple(str(n) for n in rng.permutation(lhs_names)) if lhs_names else ()
        rhs_order = tuple(str(n) for n in rng.permutation(rhs_names)) if rhs_names else ()
        out_rank = counts[0] + counts[2] + counts[3]
        out_perm = tuple(int(p) for p in rng.permutation(out_rank)) if out_rank else ()
        # Mostly float32, the type of the tiled paths; the others once in a while.
        dtype = str(rng.choice(["float32"] * 5 + ["float64", "int32", "bfloat16"]))
        consumer = str(rng.choice(["none", "bias_tanh", "loop"]))
        form = DotForm(
            batch, contract, lhs_free, rhs_free, lhs_order, rhs_order, out_perm, dtype, consumer
        )
        lhs_n = int(np.prod(form.shape(lhs_order), dtype=np.int64))
        rhs_n = int(np.prod(form.shape(rhs_order), dtype=np.int64))
        work = int(np.prod(batch + contract + lhs_free + rhs_free, dtype=np.int64))
        if lhs_n <= MAX_OPERAND and rhs_n <= MAX_OPERAND and work <= MAX_WORK:
            return form


def inputs(form: DotForm, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """lhs, rhs and a bias of the result's shape; int32 values wrap when multiplied."""
    rng = np.random.default_rng(seed + 10_000)
    shapes = (form.shape(form.lhs_order), form.shape(form.rhs_order))
    out_shape = tuple(form.size_of(n) for n in form.out_names())
    if form.dtype == "int32":
        lhs, rhs = (rng.integers(-(2**20), 2**20, s, dtype=np.int32) for s in shapes)
        bias = rng.integers(-(2**30), 2**30, out_shape, dtype=np.int32)
        return lhs, rhs, bias
    lhs, rhs = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    bias = rng.standard_normal(out_shape).astype(np.float32)
    if form.dtype == "float64":
        return lhs.astype(np.float64), rhs.astype(np.float64), bias.astype(np.float64)
    if form.dtype == "bfloat16":
        return lhs.astype(jnp.bfloat16), rhs.astype(jnp.bfloat16), bias
    return lhs, rhs, bias


def function(form: DotForm) -> Callable[[jax.Array, jax.Array, jax.Array], jax.Array]:
    """The JAX program of `form`."""
    numbers = form.dimension_numbers()
    preferred = jnp.float32 if form.dtype == "bfloat16" else None

    def dot(lhs: jax.Array, rhs: jax.Array) -> jax.Array:
        out = lax.dot_general(lhs, rhs, numbers, preferred_element_type=preferred)
        return jnp.transpose(out, form.out_perm) if out.ndim else out

    def fn(lhs: jax.Array, rhs: jax.Array, bias: jax.Array) -> jax.Array:
        if form.consumer == "bias_tanh":
            if form.dtype == "int32":  # tanh has no integer form: a shift and a bitwise and
                return (dot(lhs, rhs) + bias) & jnp.int32(0x7FFFFF0F)
            return jnp.tanh(dot(lhs, rhs) + bias)
        if form.consumer == "loop":
            # The lhs is the loop's carry (halved, or negated, every trip); the results add up.
            def body(i: jax.Array, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, ...]:
                lhs, acc = carry
                acc = acc + dot(lhs, rhs)
                lhs = -lhs if form.dtype == "int32" else lhs * jnp.asarray(0.5, lhs.dtype)
                return lhs, acc

            return lax.fori_loop(0, LOOP_TRIPS, body, (lhs, bias))[1]
        return dot(lhs, rhs)

    return fn


def _einsum(form: DotForm, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    letters = dict(zip(sorted(set(form.lhs_order) | set(form.rhs_order)), string.ascii_letters))
    spec = (
        "".join(letters[n] for n in form.lhs_order)
        + ","
        + "".join(letters[n] for n in form.rhs_order)
        + "->"
        + "".join(letters[n] for n in form.out_names())
    )
    return np.einsum(spec, lhs, rhs)


def reference(
    form: DotForm, lhs: np.ndarray, rhs: np.ndarray, bias: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The exact result (float64; int32 wrapped) and the bound its floating-point result keeps to."""
    if form.dtype == "int32":
        l64, r64, b64 = (np.asarray(a, np.int64) for a in (lhs, rhs, bias))
        if form.consumer == "bias_tanh":
            want = (_einsum(form, l64, r64) + b64).astype(np.int32) & np.int32(0x7FFFFF0F)
        elif form.consumer == "loop":
            total = b64.copy()
            for t in range(LOOP_TRIPS):
                total += _einsum(form, l64 * (-1) ** t, r64)
            want = total.astype(np.int32)
        else:
            want = _einsum(form, l64, r64).astype(np.int32)
        return want, np.zeros(want.shape)
    l64, r64, b64 = (np.asarray(a, np.float64) for a in (lhs, rhs, bias))
    k = int(np.prod(form.contract, dtype=np.int64))
    u = 2.0**-53 if form.dtype == "float64" else 2.0**-24
    # Each sum of K products rounds at most K times, plus the bias's add and tanh's few ulp.
    gamma = (k + 4) * u * 2
    if form.consumer == "loop":
        total, bound = b64.copy(), np.abs(b64) * gamma
        for t in range(LOOP_TRIPS):
            scaled = l64 * 0.5**t
            total += _einsum(form, scaled, r64)
            bound += _einsum(form, np.abs(scaled), np.abs(r64)) * gamma + np.abs(total) * 2 * u
        return total, bound
    exact = _einsum(form, l64, r64)
    bound = _einsum(form, np.abs(l64), np.abs(r64)) * gamma
    if form.consumer == "bias_tanh":
        exact = exact + b64
        # tanh is 1-Lipschitz: the sum's error passes through no larger, plus tanh's own rounding.
        return np.tanh(exact), bound + np.abs(b64) * gamma + 8 * u
    return exact, bound
