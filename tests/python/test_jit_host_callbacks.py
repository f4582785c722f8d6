"""Host callbacks through lf.jit: jax.pure_callback / jax.debug.callback inside a conditional branch
(equinox's error_if, diffrax's throw=True checks) compile into the kernel; a call that reaches one
runs with XLA instead, so the callback runs exactly as under jax.jit. One outside any conditional
falls back at compile time."""

from __future__ import annotations

import warnings

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core


def _checked_newton(calls: list[np.ndarray]):
    """Newton's method for sqrt(a), each iterate checked: a pure_callback (recording its argument)
    in the branch taken when an iterate is not finite."""

    def on_failure(x: np.ndarray) -> np.ndarray:
        calls.append(np.asarray(x))
        return np.full_like(x, -7.0)

    def f(a):
        def check(x):
            return jax.lax.cond(
                jnp.all(jnp.isfinite(x)),
                lambda v: v,
                lambda v: jax.pure_callback(on_failure, jax.ShapeDtypeStruct(v.shape, v.dtype), v),
                x,
            )

        def body(state):
            x, i = state
            return check(0.5 * (x + a / x)), i + 1

        def cond(state):
            x, i = state
            return (i < 30) & jnp.any(jnp.abs(x * x - a) > 1e-6 * a)

        return jax.lax.while_loop(cond, body, (a, jnp.int32(0)))

    return f


def test_unreached_callback_runs_in_the_kernel() -> None:
    calls: list[np.ndarray] = []
    f = _checked_newton(calls)
    a = jnp.array([2.0, 9.0, 0.25], jnp.float32)
    compiled = lf.jit(f, fallback="error")
    assert_close(compiled(a), jax.jit(f)(a))
    assert calls == []
    explain = compiled.lower(a).explain()
    assert "host callbacks: 1" in explain and "pure_callback" in explain, explain
    assert compiled.fallback_count == 0


def test_reached_callback_runs_once_with_xla_and_gives_its_result() -> None:
    calls: list[np.ndarray] = []
    f = _checked_newton(calls)
    a = jnp.array([2.0, -1.0, 9.0], jnp.float32)  # sqrt(-1): 0, then -inf
    expected = jax.jit(f)(a)
    assert len(calls) == 1
    got = lf.jit(f, fallback="error")(a)
    assert len(calls) == 2  # once more: XLA's run of the call, not the kernel's
    np.testing.assert_array_equal(calls[0], calls[1])
    assert_close(got, expected)


def test_debug_callback_in_a_branch_runs_only_when_taken() -> None:
    seen: list[int] = []

    def f(x, n):
        y = jax.lax.fori_loop(0, n, lambda i, v: v * 1.5, x)
        jax.lax.cond(
            jnp.max(y) > 100.0,
            lambda: jax.debug.callback(lambda m: seen.append(int(m)), jnp.max(y)),
            lambda: None,
        )
        return y

    compiled = lf.jit(f, fallback="error")
    x = jnp.ones(3, jnp.float32)
    assert_close(compiled(x, jnp.int32(5)), jax.jit(f)(x, jnp.int32(5)))
    assert seen == []
    assert_close(compiled(x, jnp.int32(20)), jax.jit(f)(x, jnp.int32(20)))
    assert seen == [3325, 3325]  # jax.jit's call, then the one XLA ran for lf.jit


def test_callback_on_every_call_falls_back() -> None:
    def f(x):
        y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return jax.lax.fori_loop(0, 3, lambda i, v: v * 2.0, y)

    x = jnp.linspace(0.0, 1.0, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = lf.jit(f)(x)
    messages = [str(w.message) for w in caught if "loopfuse" in str(w.message)]
    assert len(messages) == 1 and "runs on every call" in messages[0], messages
    assert_close(got, jax.jit(f)(x))
    with pytest.raises(lf.CompileError, match="not inside a conditional branch"):
        lf.jit(f, fallback="error")(x)


def _checked_decay(x):
    x = eqx.error_if(x, x > 10.0, "x is too large")
    return jax.lax.fori_loop(0, 100, lambda i, v: v * 0.99, x)


def test_equinox_error_if_raises_its_message() -> None:
    compiled = lf.jit(_checked_decay, fallback="error")
    assert_close(compiled(jnp.float32(3.0)), jax.jit(_checked_decay)(jnp.float32(3.0)))
    with pytest.raises(Exception, match="x is too large"):
        jax.block_until_ready(compiled(jnp.float32(30.0)))
    # Under vmap too: equinox keeps the check's predicate unbatched.
    xs = jnp.array([1.0, 2.0, 3.0], jnp.float32)
    assert_close(jax.vmap(compiled)(xs), jax.vmap(_checked_decay)(xs))
    with pytest.raises(Exception, match="x is too large"):
        jax.block_until_ready(jax.vmap(compiled)(xs.at[1].set(11.0)))


def _van_der_pol(t, y, mu):
    return jnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def _diffrax_solve(y0, mu, max_steps=4096):
    # As diffrax's users write it: adaptive steps, dense output, throw=True (the default).
    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(_van_der_pol),
        diffrax.Tsit5(),
        t0=0.0,
        t1=5.0,
        dt0=0.05,
        y0=y0,
        args=mu,
        saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, 5.0, 11)),
        stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-7),
        max_steps=max_steps,
    )
    return solution.ys


# An adaptive solve is defined only up to its controller's tolerance: the step sizes come from
# error estimates that cancel nearly all their bits, so the last-bit differences of f32 arithmetic
# (XLA:CPU's dot order is not loopfuse's) move the solution by up to the requested rtol.
SOLVER_RTOL = 1e-5


def test_diffrax_adaptive_solve_compiles_and_matches_to_the_solver_tolerance() -> None:
    y0, mu = jnp.array([2.0, 0.0], jnp.float32), jnp.float32(1.0)
    compiled = lf.jit(_diffrax_solve, static_argnums=2, fallback="error")
    got, expected = compiled(y0, mu), jax.jit(_diffrax_solve, static_argnums=2)(y0, mu)
    np.testing.assert_allclose(got, expected, rtol=10 * SOLVER_RTOL, atol=10 * SOLVER_RTOL)
    assert "host callbacks:" in compiled.lower(y0, mu).explain()
    # Too few steps: equinox's check fails, and its error reaches the caller as under jax.jit.
    with pytest.raises(Exception, match="maximum number of solver steps"):
        jax.block_until_ready(compiled(y0, mu, 20))


def test_diffrax_solve_under_vmap_and_grad() -> None:
    y0s = jnp.array([[2.0, 0.0], [1.0, 0.5], [0.5, -0.5]], jnp.float32)
    compiled = lf.jit(_diffrax_solve, static_argnums=2, fallback="error")
    got = jax.vmap(lambda y: compiled(y, jnp.float32(1.0)))(y0s)
    expected = jax.vmap(lambda y: _diffrax_solve(y, jnp.float32(1.0)))(y0s)
    np.testing.assert_allclose(got, expected, rtol=10 * SOLVER_RTOL, atol=10 * SOLVER_RTOL)

    def loss(solve, y0):
        return jnp.sum(solve(y0, jnp.float32(1.0)) ** 2)

    g = jax.grad(lambda y: loss(compiled, y))(y0s[0])
    g_expected = jax.grad(lambda y: loss(_diffrax_solve, y))(y0s[0])
    np.testing.assert_allclose(g, g_expected, rtol=100 * SOLVER_RTOL)
