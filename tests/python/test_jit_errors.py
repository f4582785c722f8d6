"""Fallback to XLA for programs loopfuse cannot compile, and JAX-style errors for bad arguments."""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core


def uses_complex_clamp(x):
    # clamp of complex numbers: not supported by loopfuse
    return lax.clamp(0j, x * 1j, 1j).real * 2.0


def test_unsupported_op_warns_once_naming_the_op_and_runs_with_xla() -> None:
    compiled = lf.jit(uses_complex_clamp)
    x = jnp.arange(8.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = compiled(x)
        second = compiled(jnp.arange(16.0))  # a new signature: falls back again, silently
    messages = [str(w.message) for w in caught if "loopfuse" in str(w.message)]
    assert len(messages) == 1, messages
    assert "uses_complex_clamp" in messages[0] and "running it with XLA" in messages[0]
    assert "clamp" in messages[0] and "c64" in messages[0]  # the op and its type are named
    assert "test_jit_errors.py" in messages[0]  # where it comes from in the user's source
    assert compiled.fallback_count == 2
    assert_close(first, jax.jit(uses_complex_clamp)(x))
    assert_close(second, jax.jit(uses_complex_clamp)(jnp.arange(16.0)))


def test_fallback_error_raises_compile_error() -> None:
    with pytest.raises(lf.CompileError, match="uses_complex_clamp"):
        lf.jit(uses_complex_clamp, fallback="error")(jnp.arange(8.0))
    with pytest.raises(lf.CompileError):
        lf.jit(uses_complex_clamp).lower(jnp.arange(8.0))


def test_bad_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="fallback"):
        lf.jit(jnp.sin, fallback="never")
    with pytest.raises(ValueError, match="platform"):
        lf.jit(jnp.sin, platform="tpu")
    with pytest.raises(TypeError):
        lf.jit(42)


def _same_error_as_jax(fun, *args, **kwargs) -> BaseException:
    """Calls fun through jax.jit and lf.jit; both must raise the same exception type."""
    with pytest.raises(Exception) as expected:
        jax.jit(fun)(*args, **kwargs)
    with pytest.raises(Exception) as actual:
        lf.jit(fun)(*args, **kwargs)
    assert type(actual.value) is type(expected.value), (actual.value, expected.value)

    # The same message, up to object addresses.
    def scrub(e: BaseException) -> str:
        return re.sub(r" at 0x[0-9a-f]+", "", str(e))

    assert scrub(actual.value).splitlines()[0] == scrub(expected.value).splitlines()[0]
    return actual.value


def test_wrong_shapes_give_jax_errors() -> None:
    def matmul(a, b):
        return a @ b

    error = _same_error_as_jax(matmul, jnp.ones((2, 3)), jnp.ones((4, 5)))
    assert "dot_general" in str(error) or "shape" in str(error)


def test_wrong_dtypes_give_jax_errors() -> None:
    def shift(a, b):
        return jax.lax.shift_left(a, b)

    _same_error_as_jax(shift, jnp.ones(3, jnp.int32), jnp.ones(3, jnp.float32))

    def f(x):
        return jnp.sin(x)

    error = _same_error_as_jax(f, "not an array")
    assert "<function" in str(error) and " f " in str(error) or "f at" in str(error)


def test_wrong_pytree_structure_gives_jax_errors() -> None:
    def f(params, x):
        return params["w"] * x + params["b"]

    _same_error_as_jax(f, (1.0, 2.0), jnp.ones(2))
    _same_error_as_jax(f, {"w": 1.0}, jnp.ones(2))


def test_unhashable_static_argument_gives_jax_error() -> None:
    def f(x, n):
        return x * len(n)

    with pytest.raises(ValueError) as expected:
        jax.jit(f, static_argnums=1)(jnp.ones(2), [1, 2])
    with pytest.raises(ValueError) as actual:
        lf.jit(f, static_argnums=1)(jnp.ones(2), [1, 2])
    assert "hashable" in str(actual.value) and "hashable" in str(expected.value)


def test_ffi_handler_checks_buffers_and_never_throws() -> None:
    # Call the FFI target directly with buffers that do not match the program: the handler must
    # return an error that names the parameter (no crash, no C++ exception through XLA).
    lowered = lf.jit(lambda x: x * 2.0).lower(jnp.ones(3))
    hlo = lowered.as_hlo_text()
    key = np.array(lf._backend._core.hlo_key(hlo), np.uint64).view(np.int64)[()]
    call = jax.ffi.ffi_call("loopfuse_cpu", jax.ShapeDtypeStruct((3,), jnp.float32))
    with pytest.raises(Exception, match=r"parameter 0.*expected f32\[3\], got f32\[4\]"):
        jax.block_until_ready(jax.jit(lambda x: call(x, hlo=hlo, key=key))(jnp.ones(4)))
    garbage = "HloModule broken\nENTRY main { this is not hlo }"
    garbage_key = np.array(lf._backend._core.hlo_key(garbage), np.uint64).view(np.int64)[()]
    with pytest.raises(Exception, match="error"):
        jax.block_until_ready(jax.jit(lambda x: call(x, hlo=garbage, key=garbage_key))(jnp.ones(3)))
