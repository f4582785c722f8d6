"""loopfuse: run a whole JAX program, loops included, as one native kernel.

    import loopfuse as lf

    @lf.jit
    def f(x):
        return jax.lax.fori_loop(0, 100, lambda i, x: x * 0.5 + 1.0, x)

`lf.jit` takes jax.jit's arguments and works inside jax.jit, jax.grad, jax.vmap, lax.scan and
shard_map. The kernel runs where jax.jit would run the function: on the CPU, or on an NVIDIA GPU
(jax[cuda]) as one CUDA kernel launched on XLA's stream (`platform=` overrides the choice).
Programs loopfuse cannot compile run with XLA, with a warning (or raise, with
`fallback="error"`). Host callbacks under a `cond` (equinox's `error_if`, diffrax's checks) stay
in the kernel: a call that reaches one runs with XLA, which runs the Python.
"""

from __future__ import annotations

from loopfuse._backend import CompileError, available
from loopfuse._jit import JitFunction, Lowered, jit

__version__ = "0.1.0"

# The jax versions this package is tested with (tests/python/test_jit_api.py checks the
# installed one is listed).
SUPPORTED_JAX_VERSIONS = ("0.11.2",)

__all__ = [
    "CompileError",
    "JitFunction",
    "Lowered",
    "SUPPORTED_JAX_VERSIONS",
    "available",
    "jit",
]
