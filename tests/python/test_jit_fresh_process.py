"""The FFI call carries everything the handler needs: in a fresh process that never ran
loopfuse's compile (only `import loopfuse` registered the handler), an XLA program holding the
custom call, with the `hlo` and `key` attributes that lf.jit gives it, rebuilds the executable from
the attribute and runs. That is what happens when jax's persistent compilation cache (or
jax.export) hands XLA a compiled program that a previous process traced."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np

import loopfuse as lf
from conftest import assert_close, requires_core

pytestmark = requires_core


def damped(x, y):
    return jax.lax.fori_loop(0, 30, lambda i, v: v * 0.97 + jnp.sin(v) * y, x)


def test_handler_rebuilds_the_program_from_the_call_attributes(tmp_path) -> None:
    x, y = np.linspace(-2, 2, 12, dtype=np.float32), np.float32(0.3)
    lowered = lf.jit(damped).lower(x, y)
    # The text lf.jit puts in the call: what jax.jit of lf.jit lowers to carries it.
    assert "loopfuse_cpu" in jax.jit(lf.jit(damped)).lower(x, y).as_text()
    (tmp_path / "program.hlo").write_text(lowered.as_hlo_text())
    np.savez(tmp_path / "args.npz", x=x, y=y)

    script = tmp_path / "run_in_fresh_process.py"
    script.write_text(
        textwrap.dedent(f"""
        import jax, numpy as np
        import loopfuse  # registers the FFI handlers
        from loopfuse import _backend
        hlo = open({str(tmp_path / "program.hlo")!r}).read()
        key = np.array(_backend._core.hlo_key(hlo), np.uint64).view(np.int64)[()]
        args = np.load({str(tmp_path / "args.npz")!r})
        call = jax.ffi.ffi_call("loopfuse_cpu", jax.ShapeDtypeStruct((12,), np.float32))
        out = jax.jit(lambda x, y: call(x, y, hlo=hlo, key=key))(args["x"], args["y"])
        assert not _backend._compiled, "the Python side compiled: this test would prove nothing"
        np.save({str(tmp_path / "out.npy")!r}, np.asarray(out))
    """)
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert_close(np.load(tmp_path / "out.npy"), jax.jit(damped)(x, y))
