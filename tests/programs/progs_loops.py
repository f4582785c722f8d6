"""Loop and control-flow programs: scan, fori_loop, while_loop, cond, switch, nesting, autodiff."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import ints, normal, program, uniform


def _ema_step(carry, x):
    carry = 0.9 * carry + 0.1 * x
    return carry, jnp.tanh(carry) * x


@program("loop_scan_xs_ys", args=lambda rng: (normal(rng, (4,)), normal(rng, (12, 4))))
def loop_scan_xs_ys(init, xs):
    return lax.scan(_ema_step, init, xs)


@program("loop_scan_reverse", args=lambda rng: (normal(rng, (4,)), normal(rng, (12, 4))))
def loop_scan_reverse(init, xs):
    return lax.scan(_ema_step, init, xs, reverse=True)


@program("loop_scan_unroll2", args=lambda rng: (normal(rng, (4,)), normal(rng, (11, 4))))
def loop_scan_unroll2(init, xs):
    # An odd length with unroll=2: a rolled loop over pairs plus a remainder step.
    return lax.scan(_ema_step, init, xs, unroll=2)


@program(
    "loop_scan_multi_carry",
    args=lambda rng: (normal(rng, (3, 3)), ints(rng, (3,), 0, 9), normal(rng, (8, 3))),
)
def loop_scan_multi_carry(m, counts, xs):
    def step(carry, x):
        m, counts, total = carry
        m = jnp.tanh(m @ m * 0.5 + x)
        counts = counts + (x > 0).astype(jnp.int32)
        return (m, counts, total + x.sum()), (m[0], counts.sum())

    return lax.scan(step, (m, counts, jnp.float32(0)), xs)


@program("loop_fori_static", args=lambda rng: (normal(rng, (5,)),))
def loop_fori_static(x):
    # Static bounds: lowered as a scan (trip count 10 known at compile time).
    return lax.fori_loop(0, 10, lambda i, v: v * 0.9 + jnp.sin(v + i.astype(jnp.float32)), x)


@program(
    "loop_fori_traced",
    args=lambda rng: (normal(rng, (5,)), np.int32(2), np.int32(9), np.int32(5), np.int32(3)),
)
def loop_fori_traced(x, lo, hi, lo2, hi2):
    # Traced bounds: a while loop; the second one runs zero times (lo2 > hi2). The body is a
    # contraction, so rounding differences in cos do not grow from step to step.
    body = lambda i, v: v * 0.5 + 0.25 * jnp.cos(v + i.astype(jnp.float32))
    return lax.fori_loop(lo, hi, body, x), lax.fori_loop(lo2, hi2, body, x)


@program("loop_while_newton", args=lambda rng: (uniform(rng, (8,), 0.01, 100.0),))
def loop_while_newton(a):
    # Newton iteration for sqrt(a) until every element converged: a data-dependent trip count.
    def cond(state):
        x, step, n = state
        return (jnp.max(jnp.abs(step)) > 1e-6 * jnp.max(x)) & (n < 100)

    def body(state):
        x, _, n = state
        new = 0.5 * (x + a / x)
        return new, new - x, n + 1

    return lax.while_loop(cond, body, (a, jnp.full_like(a, jnp.inf), 0))


@program("loop_while_collatz", args=lambda rng: (ints(rng, (16,), 1, 1000),))
def loop_while_collatz(n):
    def steps(start):
        def body(state):
            value, count = state
            value = jnp.where(value % 2 == 0, value // 2, 3 * value + 1)
            return value, count + 1

        return lax.while_loop(lambda s: s[0] != 1, body, (start, 0))[1]

    return jax.vmap(steps)(n)


@program("loop_nested_scan_in_fori", args=lambda rng: (normal(rng, (4,)), normal(rng, (6, 4))))
def loop_nested_scan_in_fori(x, xs):
    def outer(i, carry):
        carry, ys = lax.scan(_ema_step, carry, xs * (i + 1).astype(jnp.float32))
        return carry + ys.mean(axis=0)

    return lax.fori_loop(0, 3, outer, x)


@program(
    "loop_cond_switch_in_scan",
    args=lambda rng: (normal(rng, (3,)), normal(rng, (10, 3)), ints(rng, (10,), -1, 4)),
)
def loop_cond_switch_in_scan(x, xs, which):
    # lax.switch clamps the branch index into range (-1 -> 0, 3 -> 2).
    branches = [lambda v, u: v + u, lambda v, u: v * jnp.cos(u), lambda v, u: jnp.tanh(v - u)]

    def step(carry, inputs):
        u, k = inputs
        carry = lax.switch(k, branches, carry, u)
        carry = lax.cond(carry.sum() > 0, lambda c: c * 0.5, lambda c: c - 1.0, carry)
        return carry, carry.sum()

    return lax.scan(step, x, (xs, which))


@program("cond_pred", args=lambda rng: (normal(rng, (4,)), np.bool_(True), np.float32(-0.5)))
def cond_pred(x, p, t):
    a = lax.cond(p, lambda v: jnp.exp(v), lambda v: -v, x)
    b = lax.cond(t > 0, lambda v: v.sum(), lambda v: v.max(), x)
    return a, b


@program("cond_switch_index", args=lambda rng: (normal(rng, (4,)), np.int32(2), np.int32(7)))
def cond_switch_index(x, k, out_of_range):
    branches = [jnp.sin, jnp.cos, lambda v: v * v, lambda v: v + 1.0]
    return lax.switch(k, branches, x), lax.switch(out_of_range, branches, x)


@program(
    "loop_grad_scan",
    args=lambda rng: (normal(rng, (4, 4)) * 0.5, normal(rng, (4,)), normal(rng, (8, 4))),
)
def loop_grad_scan(w, h0, xs):
    # Reverse-mode autodiff through scan: a forward loop that saves residuals and a backward loop.
    def loss(w, h0):
        def step(h, x):
            h = jnp.tanh(w @ h + x)
            return h, (h**2).sum()

        h, ys = lax.scan(step, h0, xs)
        return ys.sum() + h.sum()

    return jax.value_and_grad(loss, argnums=(0, 1))(w, h0)


@program(
    "loop_grad_rnn_short_scan",
    args=lambda rng: (
        normal(rng, (4, 4)) * 0.5,
        normal(rng, (4,)),
        normal(rng, (4,)),
        normal(rng, (6,)),
    ),
)
def loop_grad_rnn_short_scan(w, u, h0, xs):
    # The gradient of a 6-step RNN scan with a scalar input per step: loopfuse unrolls both loops,
    # and the backward pass's outer products w.r.t. w read the saved states with clamped dynamic
    # indices. GCC 12.2 -O3 for Zen 3 vectorized that with gathers and got a row of dW wrong
    # (runtime/host_compiler.cc, noGatherFlags).
    def loss(w, u, h0, xs):
        def cell(h, x):
            h = jnp.tanh(w @ h + u * x)
            return h, h.sum()

        h, ys = lax.scan(cell, h0, xs)
        return h.sum() + (ys**2).sum()

    return jax.grad(loss, argnums=(0, 1, 2, 3))(w, u, h0, xs)


@program("loop_grad_while_fori", args=lambda rng: (normal(rng, (3,)),))
def loop_grad_while_fori(x):
    # fori_loop with static bounds is differentiable in reverse mode.
    f = lambda x: lax.fori_loop(0, 5, lambda i, v: jnp.sin(v) * 1.1 + v, x).sum()
    return jax.grad(f)(x), jax.jvp(f, (x,), (jnp.ones_like(x),))


def _matmul_sqrt(x, _):
    return jnp.sqrt(jnp.matmul(x, x)), None


def _matmul_input(rng):
    # Seed 001 at a small size: uniform in [0, 1), as jax.random.uniform draws it.
    return (np.asarray(jax.random.uniform(jax.random.PRNGKey(0), (2, 16, 16))),)


@program("seed001_scan_matmul", args=_matmul_input)
def seed001_scan_matmul(x):
    return lax.scan(_matmul_sqrt, x, xs=None, length=16)[0]


@program("seed001_unrolled_matmul", args=_matmul_input)
def seed001_unrolled_matmul(x):
    # The Python-loop twin of seed001_scan_matmul: 16 matmuls, no while.
    for _ in range(16):
        x = jnp.sqrt(jnp.matmul(x, x))
    return x


@program(
    "loop_while_mixed_carry",
    args=lambda rng: (normal(rng, (4,), np.float16), ints(rng, (4,), 0, 50, np.uint8), np.int16(9)),
)
def loop_while_mixed_carry(h, u, limit):
    # Loop-carried state of several small dtypes.
    def body(state):
        h, u, i = state
        return h * np.float16(0.75) + np.float16(0.5), u * 3 + 1, i + 1

    return lax.while_loop(lambda s: s[2] < limit, body, (h, u, jnp.int16(0)))


def _stacked_step(x, _):
    # Two matmuls per step: the second writes where the first read, so no copy is needed.
    y = jnp.sqrt(jnp.matmul(x, x))
    return jnp.sqrt(jnp.matmul(y, y)), None


@program("seed001_stacked_unrolled_bf16", args=_matmul_input)
def seed001_stacked_unrolled_bf16(x):
    # The bf16 two-step variant proposed in seed 001's thread (16 matmuls in 8 trips).
    x = lax.scan(_stacked_step, x.astype(jnp.bfloat16), xs=None, length=8)[0]
    return x.astype(jnp.float32)


def _fail_if_called(x):
    raise RuntimeError("the corpus inputs never reach this callback")


@program("loop_host_callback_checks", args=lambda rng: (uniform(rng, (3,), 1.0, 4.0),))
def loop_host_callback_checks(a):
    # Newton's method for sqrt(a) with a runtime check in the loop body: a jax.pure_callback in
    # the branch of a cond that only runs when the iterate is not finite (the shape of equinox's
    # error_if), and a jax.debug.callback after the loop when it did not converge. The corpus
    # inputs reach neither: the kernel runs to the end and reports no callback reached.
    def check(x):
        return lax.cond(
            jnp.all(jnp.isfinite(x)),
            lambda v: v,
            lambda v: jax.pure_callback(_fail_if_called, jax.ShapeDtypeStruct(v.shape, v.dtype), v),
            x,
        )

    def body(state):
        x, i = state
        return check(0.5 * (x + a / x)), i + 1

    def cond(state):
        x, i = state
        return (i < 50) & jnp.any(jnp.abs(x * x - a) > 1e-6 * a)

    x, iterations = lax.while_loop(cond, body, (a, jnp.int32(0)))
    lax.cond(iterations >= 50, lambda: jax.debug.callback(_fail_if_called, x), lambda: None)
    return x, iterations


@program(
    "loop_vmap_while_per_chain",
    args=lambda rng: (uniform(rng, (64,), 0.1, 50.0), uniform(rng, (64,), 0.5, 3.0)),
)
def loop_vmap_while_per_chain(a, p):
    # jax.vmap of a Newton solve of x**p = a that each chain ends on its own (its own tolerance
    # test): JAX's loop runs while any chain goes on and freezes the finished ones with selects,
    # so a group of chains can stop when its own chains are done.
    def solve(a, p):
        def cond(state):
            x, i = state
            return (i < 100) & (jnp.abs(x**p - a) > 1e-5 * a)

        def body(state):
            x, i = state
            return x - (x**p - a) / (p * x ** (p - 1.0)), i + 1

        return lax.while_loop(cond, body, (jnp.maximum(a, 1.0), jnp.int32(0)))

    return jax.vmap(solve)(a, p)


@program(
    "loop_scan_matvec_gru",
    args=lambda rng: (
        0.25 * normal(rng, (48, 16)),
        0.35 * normal(rng, (48, 8)),
        normal(rng, (40, 8)),
    ),
)
def loop_scan_matvec_gru(w_hh, w_ih, xs):
    # A GRU cell written the equinox way, weight @ vector (matrix-vector products) in a scan: the
    # loop-invariant weights are read through transposed copies made before the loop. One matrix
    # is an argument, one a constant closed over, one is built in the loop (it stays as it is).
    w_out = jnp.asarray(np.sin(np.arange(16 * 16, dtype=np.float32)).reshape(16, 16) * 0.2)

    def cell(h, x):
        gh = w_hh @ h
        gx = w_ih @ x
        z = jax.nn.sigmoid(gx[:16] + gh[:16])
        r = jax.nn.sigmoid(gx[16:32] + gh[16:32])
        n = jnp.tanh(gx[32:] + r * gh[32:])
        h = (1.0 - z) * n + z * h
        scaled = w_out * x[0]
        return h, (w_out @ h, scaled @ h)

    return lax.scan(cell, jnp.zeros(16, jnp.float32), xs)


@program("loop_scan_reduce_precision", args=lambda rng: (normal(rng, (200, 16)) * 50,))
def loop_scan_reduce_precision(xs):
    # A running sum kept in f32 but rounded to f16's precision each step: a mixed-precision study.
    def step(acc, x):
        acc = lax.reduce_precision(acc + x, exponent_bits=5, mantissa_bits=10)
        return acc, acc

    return lax.scan(step, jnp.zeros((16,), jnp.float32), xs)


# A loop body whose dynamic-update-slice reads its update through a fused dynamic slice of the
# carry: the slice's clamped start once took the name s1, which shadowed the update's own column
# start s1 inside the update loop (seed 388 of tests/python/test_jit_index_chains.py).
@program("loop_update_of_fused_window", args=lambda rng: (ints(rng, (3, 3), -1000, 1000),))
def loop_update_of_fused_window(c):
    def body(i, c):
        window = lax.dynamic_slice_in_dim(jnp.concatenate([c, jnp.flip(c, 0)], 0), i, 3, 0)
        return lax.dynamic_update_slice(window, jnp.flip(window)[:2, :2] * 2 + 1, (i - 2, i + 1))

    return lax.fori_loop(0, 1, body, c), lax.fori_loop(0, 4, body, c)
