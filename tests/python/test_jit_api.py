"""lf.jit's calling conventions (jax.jit's), introspection, and the JAX versions it supports."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core


def test_installed_jax_is_a_supported_version() -> None:
    assert jax.__version__ in lf.SUPPORTED_JAX_VERSIONS


def test_plain_call_and_both_decorator_forms() -> None:
    def f(x, n):
        return jax.lax.fori_loop(0, n, lambda i, v: v * 0.5 + jnp.sin(v), x)

    x = jnp.linspace(-2.0, 2.0, 7)
    expected = jax.jit(f, static_argnums=1)(x, 9)
    assert_close(lf.jit(f, static_argnums=1)(x, 9), expected)
    assert_close(lf.jit(static_argnums=(1,))(f)(x, 9), expected)

    @lf.jit
    def g(x):
        return f(x, 9)

    assert_close(g(x), expected)
    assert g.__name__ == "g" and g.__wrapped__ is not None


def test_pytrees_keyword_arguments_and_python_scalars() -> None:
    def f(params, x, *, scale, bias=1.0):
        h = jnp.tanh(x @ params["w"] + params["b"])
        return {"out": h * scale + bias, "stats": (h.sum(), jnp.argmax(h))}

    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((4, 3), np.float32), "b": np.float32(0.25)}
    x = rng.standard_normal((5, 4)).astype(np.float32)
    expected = jax.jit(f)(params, x, scale=2, bias=0.5)
    actual = lf.jit(f)(params, x, scale=2, bias=0.5)
    assert_close(actual, expected)
    assert_close(lf.jit(f)(params, x=x, scale=3.0), jax.jit(f)(params, x=x, scale=3.0))


def test_python_scalar_arguments_keep_jax_dtypes() -> None:
    def f(x, k):
        return x * k, k + 1

    for x, k in ((np.float32(1.5), 2), (3, 4), (np.arange(3, dtype=np.int8), 2)):
        assert_close(lf.jit(f)(x, k), jax.jit(f)(x, k), what=f"f({x!r}, {k!r})")


def test_static_argnames_and_argnums_by_keyword() -> None:
    def f(x, steps, mode="sin"):
        op = jnp.sin if mode == "sin" else jnp.cos
        return jax.lax.fori_loop(0, steps, lambda i, v: op(v) + i, x)

    x = jnp.arange(4.0)
    for kw in ({"steps": 3}, {"steps": 5, "mode": "cos"}):
        expected = jax.jit(f, static_argnames=("steps", "mode"))(x, **kw)
        assert_close(lf.jit(f, static_argnames=("steps", "mode"))(x, **kw), expected)
        assert_close(lf.jit(f, static_argnums=(1, 2))(x, **kw), expected)


def test_donated_arguments() -> None:
    def f(state, x):
        return jax.lax.fori_loop(0, 10, lambda i, s: s * 0.9 + x, state)

    state, x = jnp.ones(8), jnp.arange(8.0)
    expected = jax.jit(f)(state, x)
    assert_close(lf.jit(f, donate_argnums=0)(jnp.ones(8), x), expected)


def _donation_not_usable(caught: list[warnings.WarningMessage]) -> bool:
    return any("donated buffers were not usable" in str(w.message) for w in caught)


def test_donated_state_buffer_becomes_the_output() -> None:
    def f(state, x):
        return jax.lax.fori_loop(0, 10, lambda i, s: s * 0.9 + x, state)

    x = jnp.arange(8.0)
    expected = jax.jit(f)(jnp.ones(8), x)
    compiled = lf.jit(f, donate_argnums=0)
    # The kernel call reuses the donated buffer for its output (an XLA input_output_alias)...
    assert "output_operand_alias" in compiled._jitted.lower(jnp.ones(8), x).as_text()
    state = jnp.ones(8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compiled(state, x)
    assert_close(out, expected)
    # ... so jax takes the buffer: the argument is gone and nothing warns it went unused.
    assert state.is_deleted()
    assert not _donation_not_usable(caught)
    assert not x.is_deleted()


def test_donated_batch_mapped_state() -> None:
    # vmapped over 16 chains: batch-mapped, each group writes its rows of the output over its
    # rows of the donated state.
    def chain(state, rate):
        return jax.lax.fori_loop(0, 25, lambda i, s: s * rate + jnp.sin(s), state)

    f = jax.vmap(chain)
    state = jnp.linspace(0.0, 1.0, 16 * 3).reshape(16, 3)
    rate = jnp.linspace(0.5, 0.9, 16 * 3).reshape(16, 3)
    expected = jax.jit(f)(state, rate)
    compiled = lf.jit(f, donate_argnums=0)
    donated = jnp.array(state)
    out = compiled(donated, rate)
    assert_close(out, expected)
    assert "batch mapping: 16 independent chains" in compiled.lower(state, rate).explain()
    assert donated.is_deleted()


def test_donation_is_declined_where_the_output_reads_the_input_late() -> None:
    # The output is the reversed input, computed while it is written: it cannot take the input's
    # buffer, so the kernel call declares no alias (and the result is still right).
    def f(x):
        return jnp.flip(x) * 2.0

    compiled = lf.jit(f, donate_argnums=0)
    x = jnp.arange(6.0)
    assert compiled.lower(x).program.alias_safe_inputs == (False,)
    assert "output_operand_alias" not in compiled._jitted.lower(x).as_text()
    assert_close(compiled(jnp.arange(6.0)), jnp.flip(jnp.arange(6.0)) * 2.0)


def test_x64_setting_at_call_time() -> None:
    def f(x):
        return jax.lax.fori_loop(0, 4, lambda i, v: v * v + 0.1, x)

    compiled = lf.jit(f)
    with jax.enable_x64(True):
        x64 = compiled(np.linspace(0.0, 0.5, 5))
        assert x64.dtype == jnp.float64
        assert_close(x64, jax.jit(f)(np.linspace(0.0, 0.5, 5)))
    x32 = compiled(np.linspace(0.0, 0.5, 5))
    assert x32.dtype == jnp.float32
    assert_close(x32, jax.jit(f)(np.linspace(0.0, 0.5, 5)))


def test_inside_a_larger_jit_and_in_a_scan_body() -> None:
    @lf.jit
    def step(h, x):
        return jax.lax.fori_loop(0, 3, lambda i, v: jnp.tanh(v + x), h)

    def outer(h0, xs):
        def body(h, x):
            h = step(h, x)
            return h, h.sum()

        return jax.lax.scan(body, h0, xs)

    h0, xs = jnp.zeros(3), jnp.linspace(-1, 1, 12).reshape(4, 3)
    expected = jax.jit(outer)(h0, xs)
    assert_close(jax.jit(outer)(h0, xs), expected)  # traced once more: lf.jit inside jax.jit
    with_xla = jax.jit(
        lambda h0, xs: jax.lax.scan(
            lambda h, x: (jax.lax.fori_loop(0, 3, lambda i, v: jnp.tanh(v + x), h),) * 2, h0, xs
        )
    )
    assert_close(jax.jit(outer)(h0, xs)[0], with_xla(h0, xs)[0])
    text = jax.jit(outer).lower(h0, xs).as_text()
    assert "loopfuse_cpu" in text


def test_compiles_once_per_signature() -> None:
    traces = []

    def f(x):
        traces.append(x.shape)
        return x * 2

    compiled = lf.jit(f)
    for _ in range(3):
        compiled(jnp.ones(3))
    compiled(jnp.ones(4))
    # Once per new signature, plus once when loopfuse lowers each to HLO.
    assert traces.count((3,)) <= 2 and traces.count((4,)) <= 2


def test_lower_gives_hlo_kernel_source_explain_and_compile_time() -> None:
    def f(x, n):
        return jax.lax.fori_loop(0, n, lambda i, v: v + jnp.cos(v), x)

    lowered = lf.jit(f).lower(jnp.ones(4), 5)
    hlo = lowered.as_hlo_text()
    assert hlo.startswith("HloModule") and "while" in hlo and "{...}" not in hlo
    assert "cos" in lowered.kernel_source() or "LF_" in lowered.kernel_source()
    assert lowered.explain().strip()
    assert lowered.compile_seconds >= 0.0
    assert isinstance(lowered.cache_hit, bool)


def test_large_constants_are_compiled_in_full() -> None:
    table = np.arange(1000, dtype=np.float32) / 7.0

    def f(x):
        return x * table

    x = jnp.linspace(0.0, 1.0, 1000)
    assert "{...}" not in lf.jit(f).lower(x).as_hlo_text()
    assert_close(lf.jit(f)(x), jax.jit(f)(x))


def test_method_decorator() -> None:
    class Model:
        def __init__(self, scale):
            self.scale = scale

        @functools.partial(lf.jit, static_argnums=0)
        def apply(self, x):
            return x * self.scale

        def __hash__(self):
            return hash(self.scale)

        def __eq__(self, other):
            return isinstance(other, Model) and other.scale == self.scale

    assert_close(Model(3.0).apply(jnp.ones(2)), jnp.full(2, 3.0))


def test_functions_jax_made_from_jitted_functions() -> None:
    # jax.grad(f) of a jitted f (jnp.linalg.det is one) carries f's __dict__, jit's `_fun` among
    # it: lf.jit once took that for its own and compiled det instead of its gradient.
    a = jax.random.normal(jax.random.PRNGKey(0), (5, 5))

    @jax.jit
    def energy(x):
        return jnp.sum(jnp.sin(x) * x[::-1])

    for f in [
        jax.grad(jnp.linalg.det),
        jax.grad(energy),
        jax.vmap(energy),
        jax.jit(energy),
        jax.jacfwd(energy),
        lf.jit(energy),
    ]:
        expected = jax.jit(f)(a)
        actual = lf.jit(f, fallback="error")(a)
        assert np.shape(actual) == np.shape(expected)
        assert_close(actual, expected, what=repr(f))


def test_an_lf_jit_function_inside_another_becomes_part_of_its_kernel() -> None:
    @lf.jit
    def step(x):
        return jax.lax.fori_loop(0, 5, lambda i, v: v * 0.5 + jnp.cos(v), x)

    def outer(x):
        return jnp.sum(step(x) ** 2) + step(x * 2.0).max()

    x = jnp.linspace(-1.0, 1.0, 9)
    step(x)  # traced once on its own first: its jax.jit cache now holds an FFI call
    expected = jax.jit(outer)(x)
    assert_close(lf.jit(outer, fallback="error")(x), expected)
    assert "loopfuse" not in lf.jit(outer).lower(x).as_hlo_text()
    assert_close(jax.grad(lf.jit(outer, fallback="error"))(x), jax.grad(jax.jit(outer))(x))
    # Outside any lf.jit lowering it stays its own kernel.
    assert "loopfuse_cpu" in jax.jit(outer).lower(x).as_text(dialect="hlo")


def test_typed_prng_keys_compile_and_give_jax_random_bits() -> None:
    # jax.random.key(...) arguments reach the HLO through a "Sharding" custom call (an annotation,
    # the identity on one device): loopfuse compiles it instead of falling back to XLA.
    def sample(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        def step(i: jax.Array, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            k, acc = carry
            k, sub = jax.random.split(k)
            return k, acc + jax.random.uniform(sub, (3,))

        k, acc = jax.lax.fori_loop(0, 5, step, (key, jnp.zeros(3)))
        return jax.random.key_data(k), acc

    key = jax.random.key(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback to XLA warns: fail on it
        got = lf.jit(sample)(key)
    want = jax.jit(sample)(key)
    for a, b in zip(got, want):
        assert np.array_equal(np.asarray(a), np.asarray(b))
